# The C++ entry points and constants every Cython binding module shares, declared once
# from their headers (csrc/): the tensor core (xarr/_tensor.pyx) and the family modules
# (xarr/_bindings/*.pyx) cimport them from here. A family's own entry points are declared
# in its module. Nothing here is copied from the headers by hand but the signatures.
# Every kernel entry point is ``except +``: a C++ exception (std::bad_alloc from a scratch
# buffer...) becomes a Python exception (MemoryError...) instead of ending the process.
from libc.stdint cimport int64_t

cdef extern from "core/dtype.h" namespace "xarr" nogil:
    enum DType:
        kPred, kS8, kS16, kS32, kS64, kU8, kU16, kU32, kU64, kF16, kBF16, kF32, kF64,
        kC64, kC128, kNumDTypes
    int dtype_itemsize(int dt)
    char dtype_kind(int dt)

cdef extern from "engine/nary.h" namespace "xarr" nogil:
    enum:
        kMaxDims      # dims of a tensor
        kMaxArgs      # operands of one elementwise loop

cdef extern from "core/threading.h" namespace "xarr" nogil:
    enum ParallelFamily:
        kParCopy      # copies and dtype conversions
    int64_t parallel_min(int family)   # elements from which the family runs on threads

cdef extern from "core/capi.h" namespace "xarr" nogil:
    void* aligned_alloc64(int64_t nbytes)
    void aligned_free(void* p, int64_t nbytes)
    int64_t release_cached_memory()
    int64_t cached_memory_bytes()
    int ew_run(int op, int dtype, int nargs, char** ptrs, int ndim, const int64_t* dims,
               const int64_t* strides) except +
    int ew_run_contiguous(int op, int dtype, int nargs, char** ptrs,
                          const int64_t* itemsizes, int64_t n) except +
    int ew_convert(int src, int dst, char** ptrs, int ndim, const int64_t* dims,
                   const int64_t* strides) except +
    bint ew_has_loop(int op, int dtype)
    int iota_fill(int dtype, char* out, int64_t n) except +

cdef extern from "kernels/relayout/relayout.h" namespace "xarr" nogil:
    void copy_strided(int itemsize, int ndim, const int64_t* dims, const char* src,
                      const int64_t* src_strides, char* dst,
                      const int64_t* dst_strides) except +

# Kernels over fewer elements than this run with the GIL held: releasing it and taking it
# back costs about 40-50 ns, a fifth of a 100-element t.max() (290 -> 210 ns on a Zen 4
# VM). Long kernels release it.
cdef enum:
    NOGIL_MIN_ELEMENTS = 4096
