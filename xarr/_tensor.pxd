# The tensor core shared with the family binding modules (xarr/_bindings/*.pyx): the
# Tensor type's fields and the C-level helpers that allocate tensors, make views and read
# their strides. Strides are in BYTES. Definitions and contracts: xarr/_tensor.pyx.
from libc.stdint cimport int64_t
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM

from xarr._capi cimport kMaxDims

cdef enum:
    F_C_CONTIG = 1
    F_WRITEABLE = 2
    F_TILED = 4


cdef class TensorOperators:
    pass


cdef class Tensor(TensorOperators):
    cdef char* _data
    cdef void* _alloc
    cdef object _owner
    cdef int _ndim
    cdef int _dtype
    cdef int _flags
    cdef int64_t _size
    cdef int64_t _dims[kMaxDims]
    cdef int64_t _strides[kMaxDims]
    cdef object _shape_memo     # the shape tuple once asked for (shape_of), else None
    cdef object _layout
    cdef char* _buf
    cdef int64_t _buf_nbytes
    cdef object __weakref__

    cdef object _single(self, str what)
    cdef Tensor _part(self, int which)


# Sets ndim, size, the shape tuple and the C-contiguous flag from dims/strides.
cdef int finish_view(Tensor t, int ndim) except -1
# A new Tensor sharing base's memory (dims/strides to be filled, then finish_view).
cdef Tensor view_of(Tensor base)
# A new dense tensor; m2m (minor_to_major) None means row-major.
cdef Tensor alloc_tensor(int dtype, int ndim, const int64_t* dims, object m2m, bint zero)
# prod(dims) * itemsize without overflow; MemoryError naming shape and bytes beyond 2**60.
cdef int64_t checked_nbytes(int ndim, const int64_t* dims, int64_t itemsize,
                            int dtype) except -1
# Copies a Python shape sequence into dims; returns ndim (ValueError beyond kMaxDims).
cdef int fill_dims(object shape, int64_t* dims) except -1
# t itself, or a read-only strided copy when t is tiled.
cdef Tensor as_strided(Tensor t)
# A dense copy (minor_to_major m2m, None: row-major).
cdef Tensor copy_dense_of(Tensor t, object m2m)
# t's byte strides against a broadcast iteration shape (right-aligned, 0 where t is 1).
cdef int broadcast_strides(Tensor t, int ndim, const int64_t* dims, int64_t* out) except -1
# The memory range [lo, hi) t's elements occupy; whether two tensors' ranges overlap.
cdef void extent_of(Tensor t, int64_t* lo, int64_t* hi)
cdef bint buffers_overlap(Tensor a, Tensor b)
# out = op(*inputs) for inputs of value dtype `dtype` broadcasting to out (GIL released).
cdef int ew_into(int op, int dtype, Tensor out, list inputs) except -1
# True inside `with xa.lazy():` (operators and fast paths then defer to the frontend).
cdef bint in_lazy()


# The shape tuple of t, built on first use and kept: views are made on every row of a loop,
# and most are never asked for their shape. (t.shape, error messages, jit cache keys.)
cdef inline tuple shape_of(Tensor t):
    cdef tuple out
    cdef object v
    cdef int i
    if t._shape_memo is not None:
        return <tuple>t._shape_memo
    out = PyTuple_New(t._ndim)
    for i in range(t._ndim):
        v = t._dims[i]
        Py_INCREF(v)                                   # PyTuple_SET_ITEM steals it
        PyTuple_SET_ITEM(out, i, v)
    t._shape_memo = out
    return out


# Whether a and b have the same dims (their shapes are equal).
cdef inline bint same_dims(Tensor a, Tensor b):
    cdef int i
    if a._ndim != b._ndim:
        return False
    for i in range(a._ndim):
        if a._dims[i] != b._dims[i]:
            return False
    return True
