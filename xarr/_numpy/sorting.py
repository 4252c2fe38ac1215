"""NumPy's and the Array API's sorting functions on the sort family (xarr/_ops/sorting.py):
``sort``, ``argsort``, ``lexsort``, ``partition``, ``argpartition``, ``sort_complex``, and
the Tensor methods ``t.sort()`` (in place, as NumPy's) and ``t.argsort()``. Eager, under
xa.jit and in xa.lazy.

The order is NumPy's: ascending, NaNs last (complex: lexicographic, NumPy's NaN classes).
Sorts are stable unless asked otherwise: stability costs the value sort nothing (the
kernel restores the order of equal keys with different bits), and it is the Array API's
default; NumPy's ``kind`` picks nothing else (each kind's contract is met).

    >>> xa.sort(xa.asarray([[3, 1], [0, 2]]), axis=0)           # [[0, 1], [3, 2]]
    >>> xa.argsort(xa.asarray([3., nan, 1.]))                    # [2, 0, 1]
    >>> xa.lexsort([xa.asarray([1, 0, 1]), xa.asarray([2, 2, 1])])   # [2, 1, 0]
"""

import numpy as np

from xarr._axes import normalize_axis
from xarr._bindings import sort as _sort
from xarr._dispatch import register
from xarr._dtypes import CODE_OF, KINDS
from xarr._graph.trace import recorder
from xarr._ops import sorting as _sorting
from xarr._ops.structural import as_operand, broadcasted_iota
from xarr._tensor import Tensor

_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")
_COMPLEX = (CODE_OF[np.dtype(np.complex64)], CODE_OF[np.dtype(np.complex128)])


def _kind_check(kind, order, fn):
    if kind not in _KINDS:
        raise ValueError(f"xa.{fn}: sort kind must be one of 'quicksort', 'mergesort', "
                         f"'heapsort' or 'stable' (got {kind!r})")
    if order is not None:
        raise ValueError(f"xa.{fn}: cannot specify order when the array has no fields")


def _flat_or_axis(a, axis, fn):
    """(a, axis): a flattened when axis is None; axis normalized (ValueError / TypeError
    naming xa.fn)."""
    a = as_operand(a)
    if axis is None:
        return a.reshape((a.size,)), 0
    if a.ndim == 0:
        raise ValueError(f"xa.{fn}: axis {axis} is out of bounds for a 0-d array")
    return a, normalize_axis(axis, a.ndim, fn)


def sort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """A sorted copy of ``a`` along ``axis`` (None: flattened): NumPy's np.sort and the
    Array API's sort (``descending``: the reverse order, NaNs first; equal keys keep their
    order with ``stable``, the default)."""
    if type(a) is Tensor and kind is None and order is None and type(axis) is int and \
            a.ndim and -a.ndim <= axis < a.ndim and CODE_OF[a.dtype] not in _COMPLEX and \
            recorder((a,)) is None:   # eager: the kernel directly (a call costs ~1 us)
        return _sort.sort_rows(a, axis % a.ndim, None, True, False, stable is not False,
                               bool(descending))[0]
    _kind_check(kind, order, "sort")
    a, axis = _flat_or_axis(a, axis, "sort")
    return _sorting.sort(a, axis, stable is not False, descending=bool(descending))


def argsort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """int64 indices that sort ``a`` along ``axis`` (None: flattened), equal keys in index
    order (NumPy's kind='stable' result, which every kind may return)."""
    if type(a) is Tensor and kind is None and order is None and type(axis) is int and \
            a.ndim and -a.ndim <= axis < a.ndim and CODE_OF[a.dtype] not in _COMPLEX and \
            recorder((a,)) is None:   # eager: the kernel directly
        return _sort.sort_rows(a, axis % a.ndim, None, False, True, True,
                               bool(descending))[1]
    _kind_check(kind, order, "argsort")
    a, axis = _flat_or_axis(a, axis, "argsort")
    return _sorting.argsort(a, axis, True, bool(descending))


def lexsort(keys, axis=-1):
    """int64 indices sorting by several keys, the LAST the primary one (NumPy's lexsort):
    ``keys`` a sequence of arrays of one shape, or a 2-D array whose rows are the keys."""
    if isinstance(keys, (list, tuple)):
        ks = [as_operand(k) for k in keys]
    else:
        k2 = as_operand(keys)
        if k2.ndim == 0:
            raise TypeError("xa.lexsort: need a sequence of keys with len >= 1")
        ks = [k2[i] for i in range(k2.shape[0])]
    if not ks:
        raise TypeError("xa.lexsort: need a sequence of keys with len >= 1")
    shape = tuple(ks[0].shape)
    for k in ks:
        if tuple(k.shape) != shape:
            raise ValueError(f"xa.lexsort: all keys need the same shape, got {shape} and "
                             f"{tuple(k.shape)}")
    if not shape:
        return as_operand(np.int64(0))
    axis = normalize_axis(axis, len(shape), "lexsort")
    iota = broadcasted_iota(np.int64, shape, axis)
    return _sorting.sort(tuple(reversed(ks)) + (iota,), axis, True, num_keys=len(ks))[-1]


def _kth(kth, n, fn):
    ks = np.atleast_1d(np.asarray(kth))
    if ks.dtype.kind not in "iu" or ks.ndim > 1:
        raise TypeError(f"xa.{fn}: kth must be an integer or a 1-D sequence of integers, "
                        f"got {kth!r}")
    for k in ks.tolist():
        if n and not -n <= k < n:     # (NumPy checks nothing on an empty axis)
            raise ValueError(f"xa.{fn}: kth(={k}) out of bounds ({n})")


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """NumPy's partition: a copy with the element at each ``kth`` position where a sort
    would put it, smaller ones before and larger after (a selection: the sort family's
    quickselect on its vector partitions)."""
    if kind != "introselect":
        raise ValueError(f"xa.partition: kind must be 'introselect', got {kind!r}")
    _kind_check(None, order, "partition")
    a, axis = _flat_or_axis(a, axis, "partition")
    n = a.shape[axis]
    _kth(kth, n, "partition")
    if n == 0:
        return a.copy()
    return _sorting.partition(a, axis, [k % n for k in np.atleast_1d(kth).tolist()])


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """NumPy's argpartition: indices that partition ``a`` around each ``kth`` (xarr's are
    the stable argsort's, which meet that contract)."""
    if kind != "introselect":
        raise ValueError(f"xa.argpartition: kind must be 'introselect', got {kind!r}")
    _kind_check(None, order, "argpartition")
    a, axis = _flat_or_axis(a, axis, "argpartition")
    _kth(kth, a.shape[axis], "argpartition")
    return _sorting.argsort(a, axis, True)


def sort_complex(a):
    """``a`` sorted along its last axis, as complex: complex64 for 1- and 2-byte integers,
    else complex128 (NumPy's sort_complex, float32 included)."""
    a = as_operand(a)
    out = sort(a)
    kind = KINDS[CODE_OF[a.dtype]]
    if kind == "c":
        return out
    small = kind in "iu" and a.dtype.itemsize <= 2
    return out.astype(np.complex64 if small else np.complex128)


def _sort_method(self, axis=-1, kind=None, order=None, *, stable=None):
    """t.sort(): sorts t in place along ``axis`` (NumPy's ndarray.sort)."""
    self[...] = sort(self, axis, kind, order, stable=stable)


def _argsort_method(self, axis=-1, kind=None, order=None, *, stable=None):
    return argsort(self, axis, kind, order, stable=stable)


register(sort_method=_sort_method, argsort_method=_argsort_method)
