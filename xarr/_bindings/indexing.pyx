# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: embedsignature=True
# distutils: language = c++
"""Binding of the advanced-indexing kernels (csrc/kernels/indexing/indexing.h): integer
index arrays (take_indexed / put_indexed) and boolean masks (mask_select, mask_put,
nonzero_of), with repeat_indices for xa.repeat. xarr/_ops/indexing.py parses the key,
builds the strided view the arrays index and passes int64 index arrays already broadcast
to one shape; these functions fill the kernel descriptors (byte strides), allocate the
results and release the GIL. (NumPy's indexing, not XLA's Gather / Scatter.) take_rows: NumPy's take_along_axis, and
the operands a sort moves along its permutation.
"""

from libc.stdint cimport int64_t, uint8_t
from libc.stdlib cimport free, malloc

from xarr._capi cimport dtype_itemsize, kMaxDims, kPred, kS64
from xarr._tensor cimport (F_C_CONTIG, F_TILED, F_WRITEABLE, Tensor, alloc_tensor,
                           as_strided, copy_dense_of, shape_of)

import numpy as np

from xarr._dtypes import DTYPES
from xarr._tensor import as_strided_view

cdef extern from "kernels/indexing/indexing.h" namespace "xarr" nogil:
    enum:
        kIndexMaxDims
        kIndexOutOfBounds
    cdef struct IndexedCopy:
        int itemsize
        int nidx
        const int64_t* idx[kIndexMaxDims]
        int64_t bound[kIndexMaxDims]
        int64_t idx_stride[kIndexMaxDims]
        int64_t npos
        int64_t pos_stride
        int nouter
        int64_t outer_dims[kIndexMaxDims]
        int64_t outer_tensor[kIndexMaxDims]
        int64_t outer_dense[kIndexMaxDims]
        int ninner
        int64_t inner_dims[kIndexMaxDims]
        int64_t inner_tensor[kIndexMaxDims]
        int64_t inner_dense[kIndexMaxDims]
    cdef struct MaskedCopy:
        int itemsize
        const uint8_t* mask
        int nmask
        int64_t mask_dims[kIndexMaxDims]
        int64_t mask_tensor[kIndexMaxDims]
        int64_t pos_stride
        int ninner
        int64_t inner_dims[kIndexMaxDims]
        int64_t inner_tensor[kIndexMaxDims]
        int64_t inner_dense[kIndexMaxDims]
    cdef cppclass RowTake:
        int itemsize, ndim
        int64_t dims[kIndexMaxDims]
        int64_t n, src_n
        const char* src
        int64_t src_outer[kIndexMaxDims]
        int64_t src_step
        const int64_t* idx
        int64_t idx_outer[kIndexMaxDims]
        int64_t idx_step
        char* out
        int64_t out_outer[kIndexMaxDims]
        int64_t out_step
    int take_rows_run "xarr::take_rows"(const RowTake& t, int64_t* bad) except +
    int index_take(const IndexedCopy& c, const char* tensor, char* dense) except +
    int index_put(const IndexedCopy& c, char* tensor, const char* dense) except +
    bint first_bad_index(const IndexedCopy& c, int64_t* pos, int* which) except +
    int64_t mask_num_chunks(int64_t n)
    int64_t mask_count_chunks(const uint8_t* mask, int64_t n, int64_t* counts) except +
    int mask_compress(const MaskedCopy& c, const char* tensor, char* dense,
                      const int64_t* counts) except +
    int mask_assign(const MaskedCopy& c, char* tensor, const char* dense,
                    const int64_t* counts) except +
    void mask_nonzero(const uint8_t* mask, int ndim, const int64_t* dims,
                      const int64_t* counts, int64_t* const* out, int64_t out_stride) except +
    bint repeat_index(const int64_t* counts, int64_t n, int64_t* out)


cdef int _fill_indexed(IndexedCopy* c, Tensor src, list indices, list axes, int nouter,
                       list dense_outer, list dense_inner) except -1:
    """Fills the index and block parts of ``c`` for view ``src``: dims ``axes`` are indexed
    by ``indices`` (C-contiguous int64 tensors of one size), the other dims are the block,
    the first ``nouter`` of them outside the positions. dense_outer / dense_inner are the
    dense side's byte strides of those block dims."""
    cdef int j, d, k = 0, o = 0
    cdef Tensor ix
    cdef int nidx = len(indices)
    if nidx > kIndexMaxDims or nidx != len(axes):
        raise ValueError("take/put: too many index arrays")
    c.itemsize = dtype_itemsize(src._dtype)
    c.nidx = nidx
    c.npos = 1
    for j in range(nidx):
        ix = indices[j]
        if ix._dtype != kS64 or not (ix._flags & F_C_CONTIG) or (ix._flags & F_TILED):
            raise TypeError("take/put: index arrays must be C-contiguous int64")
        if j == 0:
            c.npos = ix._size
        elif ix._size != c.npos:
            raise ValueError("take/put: index arrays must have one size")
        d = axes[j]
        c.idx[j] = <const int64_t*>ix._data
        c.bound[j] = src._dims[d]
        c.idx_stride[j] = src._strides[d]
    c.nouter = 0
    c.ninner = 0
    indexed = set(axes)
    for d in range(src._ndim):
        if d in indexed:
            continue
        if o < nouter:
            c.outer_dims[o] = src._dims[d]
            c.outer_tensor[o] = src._strides[d]
            c.outer_dense[o] = dense_outer[o]
            o += 1
        else:
            c.inner_dims[k] = src._dims[d]
            c.inner_tensor[k] = src._strides[d]
            c.inner_dense[k] = dense_inner[k]
            k += 1
    c.nouter = o
    c.ninner = k
    return 0


cdef _raise_bad_index(IndexedCopy* c, list labels):
    cdef int64_t pos = 0
    cdef int which = 0
    if first_bad_index(c[0], &pos, &which):
        v = c.idx[which][pos]
        raise IndexError(f"index {v} is out of bounds for axis {labels[which]} with size "
                         f"{c.bound[which]}")
    raise IndexError("index out of bounds")


def indexed_shape(shape, axes, int nouter, bshape):
    """The shape of take_indexed's result (and of put_indexed's value) for a source of
    ``shape`` whose dims ``axes`` are indexed by arrays of shape ``bshape``: the first
    ``nouter`` other dims, the index dims, then the rest. Worked example: shape (5, 6, 7),
    axes [1], nouter 1, bshape (2, 3) -> (5, 2, 3, 7); nouter 0 -> (2, 3, 5, 7)."""
    ax = set(axes)
    rest = [d for i, d in enumerate(shape) if i not in ax]
    return tuple(rest[:nouter]) + tuple(bshape) + tuple(rest[nouter:])


def take_indexed(Tensor src, list indices, list axes, list labels, int nouter, tuple bshape):
    """A new C-contiguous tensor out[outer..., b..., inner...] = src[...] where src's dims
    ``axes`` take indices[j][b] (int64, C-contiguous, shape ``bshape``; negative wraps,
    out of bounds raises IndexError naming labels[j]) and the other dims of src split into
    the first ``nouter`` (outer) and the rest (inner), in order."""
    cdef IndexedCopy c
    cdef int d, n = src._ndim, nb = len(bshape), k = 0, rc
    cdef int64_t dims[kMaxDims]
    if src._flags & F_TILED:
        src = as_strided(src)
    shape = indexed_shape(shape_of(src), axes, nouter, bshape)
    if len(shape) > kMaxDims:
        raise IndexError(f"the indexing result would have {len(shape)} dims (max {kMaxDims})")
    for d in range(len(shape)):
        dims[d] = shape[d]
    cdef Tensor out = alloc_tensor(src._dtype, len(shape), dims, None, False)
    dense_outer = [out._strides[d] for d in range(nouter)]
    dense_inner = [out._strides[d] for d in range(nouter + nb, out._ndim)]
    _fill_indexed(&c, src, indices, axes, nouter, dense_outer, dense_inner)
    c.pos_stride = dtype_itemsize(src._dtype)
    for d in range(nouter + nb, out._ndim):
        c.pos_stride *= out._dims[d]
    cdef int64_t bad_pos = 0
    cdef int bad_which = 0
    if out._size == 0:
        if first_bad_index(c, &bad_pos, &bad_which):
            _raise_bad_index(&c, labels)
        return out
    with nogil:
        rc = index_take(c, src._data, out._data)
    if rc == kIndexOutOfBounds:
        _raise_bad_index(&c, labels)
    elif rc != 0:
        raise ValueError("take: bad arguments")
    return out


cdef bint _flat_stride(Tensor t, int first, int count, int64_t* stride):
    """Whether dims [first, first+count) of t flatten (C order) to one stride."""
    cdef int d
    cdef int64_t expect = 0
    cdef bint have = False
    for d in range(first + count - 1, first - 1, -1):
        if t._dims[d] == 1:
            continue
        if not have:
            stride[0] = t._strides[d]
            expect = t._strides[d] * t._dims[d]
            have = True
        elif t._strides[d] != expect:
            return False
        else:
            expect = t._strides[d] * t._dims[d]
    if not have:
        stride[0] = 0
    return True


def put_indexed(Tensor dst, list indices, list axes, list labels, int nouter, Tensor value):
    """dst[...] = value, the put matching take_indexed: ``value`` has dst's dtype and
    exactly the shape take_indexed would return (broadcast views with 0 strides are fine).
    Every index is checked before anything is written."""
    cdef IndexedCopy c
    cdef int d, rc, nb, nrest
    cdef int64_t ps = 0
    if not (dst._flags & F_WRITEABLE) or (dst._flags & F_TILED):
        raise ValueError("put: the destination must be a writeable strided tensor")
    if value._dtype != dst._dtype:
        raise TypeError("put: value must have the destination's dtype")
    value = as_strided(value)
    nrest = dst._ndim - len(axes)
    nb = value._ndim - nrest
    if not _flat_stride(value, nouter, nb, &ps):
        value = copy_dense_of(value, None)
        _flat_stride(value, nouter, nb, &ps)
    dense_outer = [value._strides[d] for d in range(nouter)]
    dense_inner = [value._strides[d] for d in range(nouter + nb, value._ndim)]
    _fill_indexed(&c, dst, indices, axes, nouter, dense_outer, dense_inner)
    c.pos_stride = ps
    with nogil:
        rc = index_put(c, dst._data, value._data)   # checks the indices also when empty
    if rc == kIndexOutOfBounds:
        _raise_bad_index(&c, labels)
    elif rc != 0:
        raise ValueError("put: bad arguments")


cdef Tensor _dense_mask(Tensor mask):
    if mask._dtype != kPred:
        raise TypeError(f"a boolean mask must be bool, got {DTYPES[mask._dtype]}")
    if (mask._flags & F_TILED) or not (mask._flags & F_C_CONTIG):
        return copy_dense_of(mask, None)
    return mask


cdef int64_t* _chunk_counts(Tensor mask, int64_t* total) except NULL:
    cdef int64_t n = mask._size
    cdef int64_t nch = mask_num_chunks(n)
    cdef int64_t* counts = <int64_t*>malloc(sizeof(int64_t) * (nch + 1))
    if counts == NULL:
        raise MemoryError()
    with nogil:
        total[0] = mask_count_chunks(<const uint8_t*>mask._data, n, counts)
    return counts


cdef int _fill_masked(MaskedCopy* c, Tensor t, Tensor mask, Tensor dense, int64_t ps,
                      int dense_first) except -1:
    cdef int k = mask._ndim, d
    c.itemsize = dtype_itemsize(t._dtype)
    c.mask = <const uint8_t*>mask._data
    c.nmask = k
    for d in range(k):
        c.mask_dims[d] = t._dims[d]
        c.mask_tensor[d] = t._strides[d]
    c.pos_stride = ps
    c.ninner = t._ndim - k
    for d in range(k, t._ndim):
        c.inner_dims[d - k] = t._dims[d]
        c.inner_tensor[d - k] = t._strides[d]
        c.inner_dense[d - k] = dense._strides[dense_first + d - k]
    return 0


def mask_select(Tensor src, Tensor mask):
    """src[mask] for a bool mask over src's leading dims (shapes checked by the caller):
    a new C-contiguous tensor [count] + src.shape[mask.ndim:], in the mask's C order."""
    cdef MaskedCopy c
    cdef int64_t total = 0
    cdef int64_t dims[kMaxDims]
    cdef int d, k = mask._ndim, rc = 0
    src = as_strided(src)
    mask = _dense_mask(mask)
    cdef int64_t* counts = _chunk_counts(mask, &total)
    cdef Tensor out
    try:
        dims[0] = total
        for d in range(k, src._ndim):
            dims[d - k + 1] = src._dims[d]
        out = alloc_tensor(src._dtype, src._ndim - k + 1, dims, None, False)
        _fill_masked(&c, src, mask, out, out._strides[0], 1)
        if out._size:
            with nogil:
                rc = mask_compress(c, src._data, out._data, counts)
    finally:
        free(counts)
    if rc != 0:
        raise ValueError("mask_select: bad arguments")
    return out


def mask_put(Tensor dst, Tensor mask, Tensor value):
    """dst[mask] = value: ``value`` has dst's dtype and broadcasts (right-aligned) to
    [count] + dst.shape[mask.ndim:]; else ValueError."""
    cdef MaskedCopy c
    cdef int64_t total = 0
    cdef int d, k = mask._ndim, rc = 0, nres, off
    cdef int64_t ps
    if not (dst._flags & F_WRITEABLE) or (dst._flags & F_TILED):
        raise ValueError("mask assignment: the destination must be a writeable strided tensor")
    if value._dtype != dst._dtype:
        raise TypeError("mask assignment: value must have the destination's dtype")
    value = as_strided(value)
    mask = _dense_mask(mask)
    cdef int64_t* counts = _chunk_counts(mask, &total)
    cdef Tensor v
    try:
        nres = dst._ndim - k + 1
        res_shape = [total] + [dst._dims[d] for d in range(k, dst._ndim)]
        if value._ndim > nres:
            raise ValueError(f"shape mismatch: value array of shape {shape_of(value)} could not "
                             f"be broadcast to indexing result of shape {tuple(res_shape)}")
        off = nres - value._ndim
        shape, strides = [], []
        for d in range(nres):
            if d < off:
                shape.append(res_shape[d])
                strides.append(0)
                continue
            if value._dims[d - off] == res_shape[d]:
                strides.append(value._strides[d - off] if res_shape[d] != 1 else 0)
            elif value._dims[d - off] == 1:
                strides.append(0)
            else:
                if d == 0:
                    raise ValueError(
                        f"NumPy boolean array indexing assignment cannot assign "
                        f"{value._dims[0]} input values to the {total} output values where "
                        f"the mask is true")
                raise ValueError(f"shape mismatch: value array of shape {shape_of(value)} could "
                                 f"not be broadcast to indexing result of shape "
                                 f"{tuple(res_shape)}")
            shape.append(res_shape[d])
        v = as_strided_view(value, shape, strides, 0, True)
        _fill_masked(&c, dst, mask, v, v._strides[0], 1)
        if total and v._size:
            with nogil:
                rc = mask_assign(c, dst._data, v._data, counts)
    finally:
        free(counts)
    if rc != 0:
        raise ValueError("mask assignment: bad arguments")


def nonzero_of(Tensor mask, bint argwhere=False):
    """The indices of mask's true elements (C order) as a new int64 tensor: [ndim, count]
    (NumPy's nonzero rows), or [count, ndim] with ``argwhere``."""
    cdef int64_t total = 0
    cdef int64_t dims[2]
    cdef int d, n = mask._ndim
    cdef int64_t* ptrs[kMaxDims]
    cdef int64_t ostride
    mask = _dense_mask(mask)
    cdef int64_t* counts = _chunk_counts(mask, &total)
    cdef Tensor out
    try:
        if argwhere:
            dims[0] = total
            dims[1] = n
        else:
            dims[0] = n
            dims[1] = total
        out = alloc_tensor(kS64, 2, dims, None, False)
        for d in range(n):
            if argwhere:
                ptrs[d] = (<int64_t*>out._data) + d
            else:
                ptrs[d] = (<int64_t*>out._data) + d * total
        ostride = n if argwhere else 1
        if total and n:
            with nogil:
                mask_nonzero(<const uint8_t*>mask._data, n, mask._dims, counts, ptrs, ostride)
    finally:
        free(counts)
    return out


def repeat_indices(Tensor counts):
    """0 repeated counts[0] times, 1 repeated counts[1] times, ... (int64 C-contiguous
    counts; ValueError for a negative count)."""
    cdef int64_t total = 0, i, n = counts._size
    cdef const int64_t* cp
    cdef bint ok
    if counts._dtype != kS64 or not (counts._flags & F_C_CONTIG) or (counts._flags & F_TILED):
        counts = copy_dense_of(counts.astype(np.int64) if counts._dtype != kS64 else counts,
                             None)
    cp = <const int64_t*>counts._data
    for i in range(n):
        if cp[i] < 0:
            raise ValueError(f"repeat: negative repeat count {cp[i]}")
        total += cp[i]
    cdef int64_t dims[1]
    dims[0] = total
    cdef Tensor out = alloc_tensor(kS64, 1, dims, None, False)
    with nogil:
        ok = repeat_index(cp, n, <int64_t*>out._data)
    return out


def take_rows(Tensor src, Tensor index, int axis):
    """out[..., i, ...] = src[..., index[..., i, ...], ...] along ``axis`` (NumPy's
    take_along_axis; csrc/kernels/indexing/indexing.h take_rows): index int64 of src's
    rank, its other dims broadcasting against src's (size 1 against any). Negative
    indices wrap once; IndexError names the first out-of-range one. A new row-major
    tensor of src's dtype, of the broadcast shape with index's length along axis."""
    cdef Tensor s = as_strided(src)
    cdef Tensor ix = as_strided(index)
    cdef RowTake t
    cdef int64_t dims[kMaxDims]
    cdef Tensor out
    cdef int d, j = 0, rc
    cdef int64_t bad = 0
    if ix._dtype != kS64 or ix._ndim != s._ndim or not 0 <= axis < s._ndim:
        raise ValueError(f"take_along_axis: index must be int64 of rank {s._ndim} and axis "
                         f"in range, got {DTYPES[ix._dtype]}{shape_of(ix)}, axis {axis}")
    for d in range(s._ndim):
        if d == axis:
            dims[d] = ix._dims[d]
        elif s._dims[d] == ix._dims[d] or ix._dims[d] == 1:
            dims[d] = s._dims[d]
        elif s._dims[d] == 1:
            dims[d] = ix._dims[d]
        else:
            raise ValueError(f"take_along_axis: shape mismatch: index {shape_of(ix)} and "
                             f"array {shape_of(s)} do not broadcast outside axis {axis}")
    out = alloc_tensor(s._dtype, s._ndim, dims, None, False)
    if s._dims[axis] == 0 and out._size:
        raise IndexError(f"take_along_axis: cannot take from an empty axis {axis} of "
                         f"shape {shape_of(s)}")
    t.itemsize = dtype_itemsize(s._dtype)
    t.ndim = s._ndim - 1
    t.n = dims[axis]
    t.src_n = s._dims[axis]
    t.src = s._data
    t.idx = <const int64_t*>ix._data
    t.out = out._data
    t.src_step = s._strides[axis]
    t.idx_step = ix._strides[axis]
    t.out_step = out._strides[axis]
    for d in range(s._ndim):
        if d == axis:
            continue
        t.dims[j] = dims[d]
        t.src_outer[j] = s._strides[d] if s._dims[d] != 1 else 0
        t.idx_outer[j] = ix._strides[d] if ix._dims[d] != 1 else 0
        t.out_outer[j] = out._strides[d]
        j += 1
    if out._size == 0:
        return out
    with nogil:
        rc = take_rows_run(t, &bad)
    if rc == kIndexOutOfBounds:
        raise IndexError(f"take_along_axis: index {bad} is out of bounds for axis {axis} "
                         f"with size {s._dims[axis]}")
    if rc:
        raise TypeError(f"take_along_axis: no kernel for dtype {DTYPES[s._dtype]}")
    return out
