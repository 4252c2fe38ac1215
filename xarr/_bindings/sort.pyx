# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: embedsignature=True
# distutils: language = c++
"""Binding of the sort family's kernels (csrc/kernels/sort/): the row sorts (sort.h) and
the binary searches of searchsorted and interp (searchsorted.h). The rules are xarr/_ops/sorting.py's; this module checks
what the kernel assumes (a contiguous 1-D sorted row, keys of its dtype), allocates the
int64 result and releases the GIL.
"""

from libc.stdint cimport int64_t

from xarr._capi cimport kC128, kF64, kS64, kMaxDims
from xarr._tensor cimport F_C_CONTIG, Tensor, alloc_tensor, as_strided, copy_dense_of, shape_of

from xarr._dtypes import DTYPES

cdef extern from "kernels/sort/sort.h" namespace "xarr" nogil:
    int kSortMaxDims, kSortUnknownDtype, kSortRowTooLong, kSortBadArgument
    cdef cppclass SortRowsProblem:
        int dtype, ndim
        int64_t dims[32]
        int64_t n
        const char* keys
        int64_t key_outer[32]
        int64_t key_step
        const int64_t* perm
        int64_t perm_outer[32]
        int64_t perm_step
        char* values
        int64_t value_outer[32]
        int64_t value_step
        int64_t* index
        int64_t index_outer[32]
        int64_t index_step
        int stable, descending
    int sort_rows_run "xarr::sort_rows"(const SortRowsProblem& p) except +
    int partition_rows_run "xarr::partition_rows"(const SortRowsProblem& p,
                                                  const int64_t* kth, int nk) except +

assert kSortMaxDims >= kMaxDims


cdef void _row_strides(Tensor t, int axis, int64_t* outer, int64_t* step):
    cdef int d, j = 0
    for d in range(t._ndim):
        if d == axis:
            step[0] = t._strides[d]
        else:
            outer[j] = t._strides[d]
            j += 1


cdef void _rows_of(SortRowsProblem* p, Tensor k, int axis):
    """The rows of k along axis: dtype, outer dims, length, keys and their strides (no
    perm)."""
    cdef int d, j = 0
    p.dtype = k._dtype
    p.ndim = k._ndim - 1
    p.n = k._dims[axis]
    for d in range(k._ndim):
        if d != axis:
            p.dims[j] = k._dims[d]
            j += 1
    p.keys = k._data
    _row_strides(k, axis, p.key_outer, &p.key_step)
    p.perm = NULL


def sort_rows(Tensor keys, int axis, Tensor perm, bint want_values, bint want_index,
              bint stable, bint descending):
    """(values, index): keys sorted along ``axis`` (csrc/kernels/sort/sort.h sort_rows),
    each a new row-major tensor of keys' shape or None when not wanted (index: int64, the
    argsort). ``perm``: None, or an int64 tensor of keys' shape whose rows are permutations
    of 0..n-1 (trusted: an index output of this function), the rows' start order.
    Ascending, NaNs last, -0.0 == +0.0; ``stable`` keeps equal keys in start order."""
    cdef Tensor k = as_strided(keys)
    cdef Tensor pm = as_strided(perm) if perm is not None else None
    cdef Tensor values = None, index = None
    cdef SortRowsProblem p
    cdef int rc
    if not 0 <= axis < k._ndim:
        raise ValueError(f"sort: axis {axis} is out of range for shape {shape_of(k)}")
    if pm is not None and (pm._dtype != kS64 or shape_of(pm) != shape_of(k)):
        raise ValueError(f"sort: perm must be int64 of shape {shape_of(k)}, got "
                         f"{DTYPES[pm._dtype]}{shape_of(pm)}")
    if want_values:
        values = alloc_tensor(k._dtype, k._ndim, k._dims, None, False)
    if want_index:
        index = alloc_tensor(kS64, k._ndim, k._dims, None, False)
    _rows_of(&p, k, axis)
    if pm is not None:
        p.perm = <const int64_t*>pm._data
        _row_strides(pm, axis, p.perm_outer, &p.perm_step)
    p.values = NULL
    if values is not None:
        p.values = values._data
        _row_strides(values, axis, p.value_outer, &p.value_step)
    p.index = NULL
    if index is not None:
        p.index = <int64_t*>index._data
        _row_strides(index, axis, p.index_outer, &p.index_step)
    p.stable = stable
    p.descending = descending
    with nogil:
        rc = sort_rows_run(p)
    if rc == kSortUnknownDtype:
        raise TypeError(f"sort: no sort kernel for dtype {DTYPES[k._dtype]}")
    if rc == kSortRowTooLong:
        raise ValueError(f"sort: rows of {p.n} elements are beyond the kernel's 2**32 - 1")
    return values, index


def partition_rows(Tensor keys, int axis, kth):
    """A new row-major tensor: keys partitioned along ``axis`` around the ascending
    offsets ``kth`` (NumPy's partition; sort.h partition_rows): each kth holds what a
    sort puts there, smaller keys before, larger after, NaNs last."""
    cdef Tensor k = as_strided(keys)
    cdef SortRowsProblem p
    cdef int64_t ks[256]
    cdef int nk = len(kth), i, rc
    if not 0 <= axis < k._ndim:
        raise ValueError(f"partition: axis {axis} is out of range for shape {shape_of(k)}")
    if nk > 256:
        raise ValueError(f"partition: at most 256 kth at once, got {nk}")
    for i in range(nk):
        ks[i] = kth[i]
    cdef Tensor values = alloc_tensor(k._dtype, k._ndim, k._dims, None, False)
    _rows_of(&p, k, axis)
    p.index = NULL
    p.values = values._data
    _row_strides(values, axis, p.value_outer, &p.value_step)
    p.stable = 0
    p.descending = 0
    with nogil:
        rc = partition_rows_run(p, ks, nk)
    if rc == kSortUnknownDtype:
        raise TypeError(f"partition: no kernel for dtype {DTYPES[k._dtype]}")
    if rc == kSortBadArgument:
        raise ValueError(f"partition: kth {list(kth)} must ascend within [0, {p.n})")
    return values


cdef extern from "kernels/sort/searchsorted.h" namespace "xarr" nogil:
    int searchsorted_run(int dtype, const char* sorted, int64_t n, const char* keys, int ndim,
                         const int64_t* dims, const int64_t* key_strides, int right,
                         int64_t* out) except +
    void interp_run(const double* xp, int64_t n, const char* fp, int complex_fp,
                    const char* x, int ndim, const int64_t* dims, const int64_t* x_strides,
                    const double* left, const double* right, char* out) except +


def searchsorted(Tensor sorted_row, Tensor keys, bint right):
    """int64 tensor of keys' shape: for each key, the insertion index into the 1-D
    ``sorted_row`` (ascending in NumPy's order, NaN last) that keeps it sorted, before
    equal elements (right=False) or after them (right=True). Both of one dtype."""
    cdef Tensor a = as_strided(sorted_row)
    cdef Tensor k = as_strided(keys)
    cdef Tensor out
    cdef int rc
    if a._ndim != 1:
        raise ValueError(f"searchsorted: the sorted operand must be 1-D, got shape {shape_of(a)}")
    if a._dtype != k._dtype:
        raise TypeError(f"searchsorted: sorted is {DTYPES[a._dtype]}, keys "
                        f"{DTYPES[k._dtype]}; convert them to one dtype first")
    if not (a._flags & F_C_CONTIG):
        a = copy_dense_of(a, None)
    out = alloc_tensor(kS64, k._ndim, k._dims, None, False)
    with nogil:
        rc = searchsorted_run(a._dtype, a._data, a._dims[0] if a._ndim else 0, k._data,
                              k._ndim, k._dims, k._strides, right, <int64_t*>out._data)
    if rc:
        raise TypeError(f"searchsorted: no kernel for dtype {DTYPES[a._dtype]}")
    return out


def interp(Tensor x, Tensor xp, Tensor fp, left, right):
    """NumPy's interp (csrc/kernels/sort/searchsorted.h interp_run): x float64 of any
    shape; xp float64 and fp float64 or complex128, 1-D of one length >= 1; left / right
    Python numbers or None (fp[0] / fp[-1]). Returns a new tensor of fp's dtype."""
    cdef Tensor a = as_strided(x)
    cdef Tensor p = as_strided(xp)
    cdef Tensor f = as_strided(fp)
    cdef Tensor out
    cdef double lo[2]
    cdef double hi[2]
    cdef int64_t n
    cdef bint cplx = f._dtype == kC128
    if a._dtype != kF64 or p._dtype != kF64 or not (cplx or f._dtype == kF64):
        raise TypeError(f"interp: x and xp must be f64 and fp f64 or c128, got "
                        f"{DTYPES[a._dtype]}, {DTYPES[p._dtype]}, {DTYPES[f._dtype]}")
    if p._ndim != 1 or f._ndim != 1 or p._dims[0] != f._dims[0] or p._dims[0] < 1:
        raise ValueError(f"interp: xp and fp must be 1-D of one length >= 1, got "
                         f"{shape_of(p)} and {shape_of(f)}")
    if not (p._flags & F_C_CONTIG):
        p = copy_dense_of(p, None)
    if not (f._flags & F_C_CONTIG):
        f = copy_dense_of(f, None)
    n = p._dims[0]
    cdef const double* y = <const double*>f._data
    cdef int w = 2 if cplx else 1
    lo[0], lo[1] = y[0], (y[1] if cplx else 0.0)
    hi[0], hi[1] = y[(n - 1) * w], (y[(n - 1) * w + 1] if cplx else 0.0)
    if left is not None:             # (float() of a complex raises, as NumPy's)
        lv = complex(left) if cplx else complex(float(left))
        lo[0], lo[1] = lv.real, lv.imag
    if right is not None:
        rv = complex(right) if cplx else complex(float(right))
        hi[0], hi[1] = rv.real, rv.imag
    out = alloc_tensor(f._dtype, a._ndim, a._dims, None, False)
    with nogil:
        interp_run(<const double*>p._data, n, f._data, cplx, a._data, a._ndim, a._dims,
                   a._strides, lo, hi, out._data)
    return out
