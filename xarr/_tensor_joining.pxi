# Included by xarr/_tensor.pyx: joining tensors in one C call (the NumPy frontend's
# concatenate and roll take it for tensors of one dtype and rank).

def concat_same_dtype(list xs, int axis):
    """numpy.concatenate(xs, axis) for strided tensors of one dtype and rank whose dims
    agree but along ``axis`` (negative counts from the end): a new row-major tensor, each
    operand copied into its slab by the copy kernel. None for anything else (other types,
    mixed dtypes or ranks, tiled layouts, a bad axis, xa.lazy): the frontend's general
    path promotes, records or raises. Worked example: shapes (2, 3) and (2, 1), axis -1
    -> (2, 4), columns 0-2 from the first."""
    cdef Tensor first, x, out
    cdef object obj
    cdef int n = len(xs), nd, i, k
    cdef int64_t dims[kMaxDims]
    cdef int64_t strides[2 * kMaxDims]
    cdef int64_t total = 0, at = 0
    cdef char* dst
    if n == 0 or _lazy_depth != 0 or type(xs[0]) is not Tensor:
        return None
    first = <Tensor>xs[0]
    nd = first._ndim
    if axis < 0:
        axis += nd
    if axis < 0 or axis >= nd:
        return None
    for k in range(n):
        obj = xs[k]
        if type(obj) is not Tensor:
            return None
        x = <Tensor>obj
        if x._dtype != first._dtype or x._ndim != nd or (x._flags & F_TILED):
            return None
        for i in range(nd):
            if i != axis and x._dims[i] != first._dims[i]:
                return None
        total += x._dims[axis]
    for i in range(nd):
        dims[i] = first._dims[i]
    dims[axis] = total
    out = alloc_tensor(first._dtype, nd, dims, None, False)
    for k in range(n):
        x = <Tensor>xs[k]
        if x._size:
            for i in range(nd):
                strides[i] = x._strides[i]
                strides[nd + i] = out._strides[i]
            dst = out._data + at * out._strides[axis]
            if x._size < NOGIL_MIN_ELEMENTS:
                copy_strided(dtype_itemsize(x._dtype), nd, x._dims, x._data, strides, dst,
                             &strides[nd])
            else:
                with nogil:
                    copy_strided(dtype_itemsize(x._dtype), nd, x._dims, x._data, strides,
                                 dst, &strides[nd])
        at += x._dims[axis]
    return out
