# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: embedsignature=True
# distutils: language = c++
"""Binding of the contraction engine (csrc/kernels/gemm/gemm.h): maps a dot_general's
dimension numbers onto the engine's batch / m / n / k dim lists with the tensors' byte
strides, checks the tensors, releases the GIL. The shape and dtype rules are
xarr/_ops/contraction.py's.
"""

from libc.stdint cimport int64_t

from xarr._capi cimport kMaxDims
from xarr._tensor cimport F_TILED, F_WRITEABLE, Tensor, as_strided, buffers_overlap, shape_of

from xarr._dtypes import DTYPES

cdef extern from "kernels/gemm/gemm.h" namespace "xarr" nogil:
    enum:
        kGemmMaxDims
        kGemmNumTypes
        kGemmC64
        kGemmC128
    cdef cppclass GemmDim:
        int64_t size, stride_a, stride_b, stride_c
    cdef cppclass GemmProblem:
        int type, dtype_a, dtype_b
        const char* a
        const char* b
        char* c
        int nbatch, nm, nn, nk
        GemmDim batch[32]
        GemmDim m[32]
        GemmDim n[32]
        GemmDim k[32]
    cdef cppclass GemmMicroKernel:
        void* fn
        int mr, nr
        const char* name
    cdef cppclass GemmTable:
        GemmMicroKernel kernel[6]
        GemmMicroKernel narrow[6]
        GemmMicroKernel flat[6]
    int gemm_type_of_code "xarr::gemm_type_of"(int out_dtype)
    bint gemm_reads(int out_dtype, int in_dtype)
    void gemm_run(const GemmProblem& p) except +
    const GemmTable& gemm_table(int isa)
    bint gemm_set_amx(bint enabled)
    double gemm_kernel_rate(int out_dtype, int da, int db, int isa,
                            double seconds) except +
    GemmMicroKernel gemm_grouped_kernel(int out_dtype, int da, int db, int isa)


def gemm_kernel(int out_dtype, int isa=-1, bint narrow=False, bint flat=False):
    """(name, mr, nr) of the micro-kernel computing products of dtype code ``out_dtype``
    on ``isa`` (-1: the active one), e.g. ('sgemm_avx2_6x16', 6, 16); with ``narrow``,
    of the narrow kernel for products of few columns; with ``flat``, of the flat kernel
    for products of few rows (gemm.h). None if none."""
    cdef int ty = gemm_type_of_code(out_dtype)
    if ty < 0:
        return None
    cdef const GemmMicroKernel* k
    if narrow:
        k = &gemm_table(isa).narrow[ty]
    elif flat:
        k = &gemm_table(isa).flat[ty]
    else:
        k = &gemm_table(isa).kernel[ty]
    if k.fn == NULL:
        return None
    return (k.name.decode(), k.mr, k.nr)


def grouped_kernel(int out_dtype, int a_dtype, int b_dtype, int isa=-1):
    """(name, mr, nr) of the k-grouped micro-kernel (gemm.h: AMX, AVX512-VNNI or
    AVX512-BF16) that products of dtype codes ``a_dtype`` x ``b_dtype`` into ``out_dtype``
    take on the packed path on ``isa`` (-1: the active one), e.g.
    ('u8s8gemm_avx512vnni_12x32', 12, 32); None where they convert while packing."""
    cdef GemmMicroKernel k = gemm_grouped_kernel(out_dtype, a_dtype, b_dtype, isa)
    if k.fn == NULL:
        return None
    return (k.name.decode(), k.mr, k.nr)


def kernel_rate(int out_dtype, int a_dtype=-1, int b_dtype=-1, int isa=-1,
                double seconds=0.2):
    """The rate, in operations per second (a real multiply-add is 2, a complex one 8), of
    the micro-kernel the packed path takes for products of dtype codes ``a_dtype`` x
    ``b_dtype`` (default: ``out_dtype``) into ``out_dtype`` on ``isa`` (-1: the active
    one), on cache-resident packed panels, one thread, timed for ``seconds``: the peak a
    whole product's rate is compared with (gemm.h gemm_kernel_rate). None if no kernel;
    ValueError for an out_dtype no product computes."""
    cdef int ty = gemm_type_of_code(out_dtype)
    if ty < 0:
        raise ValueError(f"kernel_rate: no product computes dtype code {out_dtype}")
    if a_dtype < 0:
        a_dtype = out_dtype
    if b_dtype < 0:
        b_dtype = out_dtype
    cdef double macs
    with nogil:
        macs = gemm_kernel_rate(out_dtype, a_dtype, b_dtype, isa, seconds)
    if macs == 0.0:
        return None
    return macs * (8.0 if ty == kGemmC64 or ty == kGemmC128 else 2.0)


def use_amx(bint enabled):
    """Lets the packed path take the AMX kernels (the default where the CPU and OS have
    AMX) or not (then AVX512-VNNI / AVX512-BF16 serve); returns the previous setting.
    For tests and benchmarks that compare the two."""
    return gemm_set_amx(enabled)


def gemm_type_of(int out_dtype):
    """The engine's computation type (a GemmType, gemm.h) of products into dtype code
    ``out_dtype``; -1 when it computes none (then the operands are converted first)."""
    return gemm_type_of_code(out_dtype)


def gemm_computes(int out_dtype, int in_dtype):
    """True when the engine computes products of dtype code ``in_dtype`` operands into an
    ``out_dtype`` result (gemm.h: inputs are converted while packed)."""
    return bool(gemm_reads(out_dtype, in_dtype))


cdef int _dims_of(object dims, int rank, int* out, bint* used, str what) except -1:
    """Copies dimension numbers into out[], marking used[]; returns their count."""
    cdef int n = 0, d
    for v in dims:
        d = v
        if n >= kGemmMaxDims or not 0 <= d < rank or used[d]:
            raise ValueError(f"dot_general: bad {what} dimension numbers {tuple(dims)} for "
                             f"rank {rank}")
        used[d] = True
        out[n] = d
        n += 1
    return n


def gemm_into(Tensor out, Tensor lhs, Tensor rhs, lhs_batch, rhs_batch, lhs_contracting,
              rhs_contracting):
    """out = lax.dot_general(lhs, rhs, ((lhs_contracting, rhs_contracting), (lhs_batch,
    rhs_batch))) with out's dtype as the computation type. out's dims are the batch dims,
    then lhs's free dims, then rhs's free dims, in order. Releases the GIL."""
    cdef Tensor a = as_strided(lhs)
    cdef Tensor b = as_strided(rhs)
    cdef GemmProblem p
    cdef int lb[kMaxDims]
    cdef int rb[kMaxDims]
    cdef int lc[kMaxDims]
    cdef int rc[kMaxDims]
    cdef bint lused[kMaxDims]
    cdef bint rused[kMaxDims]
    cdef int i, ax, bx, nlb, nrb, nlc, nrc, o = 0
    cdef int ty = gemm_type_of_code(out._dtype)
    if ty < 0:
        raise TypeError(f"dot_general: no product computes into {DTYPES[out._dtype]}")
    if not gemm_reads(out._dtype, a._dtype) or not gemm_reads(out._dtype, b._dtype):
        raise TypeError(f"dot_general: cannot compute {DTYPES[a._dtype]} x "
                        f"{DTYPES[b._dtype]} into {DTYPES[out._dtype]}")
    if (out._flags & F_TILED) or not (out._flags & F_WRITEABLE):
        raise ValueError("dot_general: out must be a writeable strided tensor")
    for i in range(kMaxDims):
        lused[i] = False
        rused[i] = False
    nlb = _dims_of(lhs_batch, a._ndim, lb, lused, "lhs_batch")
    nrb = _dims_of(rhs_batch, b._ndim, rb, rused, "rhs_batch")
    nlc = _dims_of(lhs_contracting, a._ndim, lc, lused, "lhs_contracting")
    nrc = _dims_of(rhs_contracting, b._ndim, rc, rused, "rhs_contracting")
    if nlb != nrb or nlc != nrc:
        raise ValueError(f"dot_general: batch dims {tuple(lhs_batch)} / {tuple(rhs_batch)} "
                         f"or contracting dims {tuple(lhs_contracting)} / "
                         f"{tuple(rhs_contracting)} differ in number")
    if out._ndim != a._ndim + b._ndim - nlb - 2 * nlc:
        raise ValueError(f"dot_general: out has rank {out._ndim}, expected "
                         f"{a._ndim + b._ndim - nlb - 2 * nlc}")
    p.type = ty
    p.dtype_a = a._dtype
    p.dtype_b = b._dtype
    p.a = a._data
    p.b = b._data
    p.c = out._data
    p.nbatch = nlb
    for i in range(nlb):
        ax, bx = lb[i], rb[i]
        if a._dims[ax] != b._dims[bx] or out._dims[o] != a._dims[ax]:
            raise ValueError(f"dot_general: batch dim sizes differ: lhs {a._dims[ax]}, "
                             f"rhs {b._dims[bx]}, out {out._dims[o]}")
        p.batch[i].size = a._dims[ax]
        p.batch[i].stride_a = a._strides[ax]
        p.batch[i].stride_b = b._strides[bx]
        p.batch[i].stride_c = out._strides[o]
        o += 1
    p.nm = 0
    for ax in range(a._ndim):
        if lused[ax]:
            continue
        if out._dims[o] != a._dims[ax]:
            raise ValueError(f"dot_general: out dim {o} is {out._dims[o]}, lhs dim {ax} "
                             f"is {a._dims[ax]}")
        p.m[p.nm].size = a._dims[ax]
        p.m[p.nm].stride_a = a._strides[ax]
        p.m[p.nm].stride_b = 0
        p.m[p.nm].stride_c = out._strides[o]
        p.nm += 1
        o += 1
    p.nn = 0
    for bx in range(b._ndim):
        if rused[bx]:
            continue
        if out._dims[o] != b._dims[bx]:
            raise ValueError(f"dot_general: out dim {o} is {out._dims[o]}, rhs dim {bx} "
                             f"is {b._dims[bx]}")
        p.n[p.nn].size = b._dims[bx]
        p.n[p.nn].stride_a = 0
        p.n[p.nn].stride_b = b._strides[bx]
        p.n[p.nn].stride_c = out._strides[o]
        p.nn += 1
        o += 1
    p.nk = nlc
    for i in range(nlc):
        ax, bx = lc[i], rc[i]
        if a._dims[ax] != b._dims[bx]:
            raise ValueError(f"dot_general: contracting dim sizes differ: lhs dim {ax} is "
                             f"{a._dims[ax]}, rhs dim {bx} is {b._dims[bx]}")
        p.k[i].size = a._dims[ax]
        p.k[i].stride_a = a._strides[ax]
        p.k[i].stride_b = b._strides[bx]
        p.k[i].stride_c = 0
    if out._size == 0:
        return
    for i in range(out._ndim):
        if out._strides[i] == 0 and out._dims[i] > 1:
            raise ValueError("dot_general: out must not be broadcast")
    if buffers_overlap(out, a) or buffers_overlap(out, b):
        raise ValueError("dot_general: out overlaps an operand")
    try:
        with nogil:
            gemm_run(p)
    except MemoryError:
        raise MemoryError(f"dot_general: packing buffers for {shape_of(a)} x {shape_of(b)} do "
                          f"not fit in memory") from None
