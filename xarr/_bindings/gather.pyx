# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: embedsignature=True
# distutils: language = c++
"""Binding of XLA's Gather and Scatter kernels (csrc/kernels/gather/gather.h). The rules
and the mapping of dimension numbers onto batch positions and windows are
xarr/_ops/gather.py's; these functions take that mapping as lists, fill the kernel's
description (byte strides), allocate the result and release the GIL.
"""

from libc.stdint cimport int64_t

from xarr._capi cimport kMaxDims, kS64
from xarr._tensor cimport Tensor, alloc_tensor, as_strided, copy_dense_of, fill_dims

from xarr._dtypes import DTYPES

cdef extern from "kernels/gather/gather.h" namespace "xarr" nogil:
    int kGatherMaxDims
    cdef cppclass IndexedWindows:
        int dtype, rank
        const char* operand
        char* result
        int64_t operand_dims[32]
        int64_t operand_strides[32]
        int64_t window[32]
        int64_t window_dense[32]
        int nbatch
        int64_t batch_dims[32]
        int64_t batch_dense[32]
        int64_t batch_index[32]
        const char* indices
        int nvec
        int64_t vec_stride
        int vec_dim[32]
        int nbatching
        int batching_dim[32]
        int batching_pos[32]
        char* dense
        int mode
        const char* fill
        int combine
    int gather_run_c "xarr::gather_run"(const IndexedWindows& p) except +
    int scatter_run_c "xarr::scatter_run"(const IndexedWindows& p) except +

assert kGatherMaxDims >= kMaxDims

CLIP = 0
FILL = 1
SET, ADD, MUL, MIN, MAX = 0, 1, 2, 3, 4


cdef int _describe(IndexedWindows* p, Tensor operand, Tensor indices, Tensor dense,
                   list window, list window_dense_dims, list batch_dense_dims,
                   list batch_index_dims, int ivd, list vec_dim, list batching_dim,
                   list batching_pos, int mode) except -1:
    """Fills p: window[d] per operand dim, window_dense_dims[d] the dense dim its window
    index runs along (-1: none), batch_dense_dims / batch_index_dims the dense / indices
    dim of each batch position, ivd the indices' index vector dim (-1: implicit, one
    component), vec_dim the operand dim of each vector component, batching_dim /
    batching_pos the operand batching dims and the batch position giving each."""
    cdef int d, i
    if indices._dtype != kS64:
        raise TypeError(f"gather/scatter: start indices must be int64 here, got "
                        f"{DTYPES[indices._dtype]}")
    p.dtype = dense._dtype
    p.rank = operand._ndim
    for d in range(operand._ndim):
        p.operand_dims[d] = operand._dims[d]
        p.operand_strides[d] = operand._strides[d]
        p.window[d] = window[d]
        p.window_dense[d] = dense._strides[window_dense_dims[d]] \
            if window_dense_dims[d] >= 0 else 0
    p.nbatch = len(batch_dense_dims)
    for i in range(p.nbatch):
        p.batch_dims[i] = dense._dims[batch_dense_dims[i]]
        p.batch_dense[i] = dense._strides[batch_dense_dims[i]]
        p.batch_index[i] = indices._strides[batch_index_dims[i]]
    p.indices = indices._data
    p.nvec = len(vec_dim)
    p.vec_stride = indices._strides[ivd] if ivd >= 0 else 0
    for i in range(p.nvec):
        p.vec_dim[i] = vec_dim[i]
    p.nbatching = len(batching_dim)
    for i in range(p.nbatching):
        p.batching_dim[i] = batching_dim[i]
        p.batching_pos[i] = batching_pos[i]
    p.dense = dense._data
    p.mode = mode
    return 0


def gather(Tensor operand, Tensor indices, tuple out_shape, list window,
           list window_out_dims, list batch_out_dims, list batch_index_dims, int ivd,
           list vec_dim, list batching_dim, list batching_pos, int mode, Tensor fill):
    """A new row-major tensor of ``out_shape`` and operand's dtype: gather.h gather_run
    (arguments as _describe says; ``fill``: a 0-d tensor of operand's dtype, mode FILL)."""
    cdef Tensor op = as_strided(operand)
    cdef Tensor ix = as_strided(indices)
    cdef int64_t dims[32]
    cdef int nd = fill_dims(out_shape, dims)
    cdef Tensor out = alloc_tensor(op._dtype, nd, dims, None, False)
    cdef IndexedWindows p
    cdef int rc
    _describe(&p, op, ix, out, window, window_out_dims, batch_out_dims, batch_index_dims,
              ivd, vec_dim, batching_dim, batching_pos, mode)
    p.operand = op._data
    p.fill = NULL
    if fill is not None:
        fill = copy_dense_of(as_strided(fill), None)
        p.fill = fill._data
    with nogil:
        rc = gather_run_c(p)
    if rc:
        raise TypeError(f"lax.gather: no kernel for dtype {DTYPES[op._dtype]}")
    return out


def scatter(Tensor operand, Tensor indices, Tensor updates, list window,
            list window_update_dims, list batch_update_dims, list batch_index_dims, int ivd,
            list vec_dim, list batching_dim, list batching_pos, int mode, int combine):
    """A row-major copy of operand with the updates combined in (gather.h scatter_run;
    combine SET / ADD / MUL / MIN / MAX; mode CLIP or FILL, which skips out-of-range
    elements). updates has operand's dtype."""
    cdef Tensor res = copy_dense_of(as_strided(operand), None)
    cdef Tensor ix = as_strided(indices)
    cdef Tensor up = as_strided(updates)
    cdef IndexedWindows p
    cdef int rc
    if up._dtype != res._dtype:
        raise TypeError(f"lax.scatter: updates are {DTYPES[up._dtype]}, the operand "
                        f"{DTYPES[res._dtype]}; they must have one dtype")
    _describe(&p, res, ix, up, window, window_update_dims, batch_update_dims,
              batch_index_dims, ivd, vec_dim, batching_dim, batching_pos, mode)
    p.result = res._data
    p.combine = combine
    with nogil:
        rc = scatter_run_c(p)
    if rc:
        raise TypeError(f"lax.scatter: no {['set', 'add', 'mul', 'min', 'max'][combine]} "
                        f"kernel for dtype {DTYPES[res._dtype]}")
    return res
