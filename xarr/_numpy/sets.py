"""NumPy's and the Array API's set functions on the sort family: ``unique`` (with
return_index / return_inverse / return_counts / axis / equal_nan), ``unique_all``,
``unique_counts``, ``unique_inverse``, ``unique_values``, ``isin``, ``intersect1d``,
``union1d``, ``setdiff1d``.

A unique is one sort (values alone, or a stable argsort when positions are wanted), a
compare of neighbours and a compress. Its result's length depends on the data, so these
run eagerly; under xa.jit they raise, naming the function, unless a static ``size=`` is
given (as in jax: the result is cut or padded to ``size`` with ``fill_value``, default
the smallest unique value).

    >>> xa.unique(xa.asarray([3, 1, 3, nan, nan]))          # [1, 3, nan] (equal_nan)
    >>> xa.unique_counts(xa.asarray([3, 1, 3]))              # values [1, 3], counts [1, 2]
"""

import operator
from collections import namedtuple

import numpy as np

from xarr._dtypes import CODE_OF, KINDS
from xarr._graph.trace import Traced
from xarr._numpy.manipulation import broadcast_to, concatenate, moveaxis
from xarr._numpy.reductions import cumsum
from xarr._numpy.ufuncs import where
from xarr._ops import gather as _gather
from xarr._ops import indexing as _indexing
from xarr._ops import sorting as _sorting
from xarr._ops.conversion import asarray
from xarr._ops.elementwise import promote
from xarr._ops.structural import as_operand

_FLAT = _gather.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                        scatter_dims_to_operand_dims=(0,))
UniqueAllResult = namedtuple("UniqueAllResult", "values indices inverse_indices counts")
UniqueCountsResult = namedtuple("UniqueCountsResult", "values counts")
UniqueInverseResult = namedtuple("UniqueInverseResult", "values inverse_indices")


def _eager(x, fn, size=None):
    """x as a tensor; a traced x raises (data-dependent shape) unless ``size`` is given."""
    x = as_operand(x)
    if isinstance(x, Traced) and size is None:
        raise TypeError(f"xa.{fn}: the result's shape depends on the values, so it cannot "
                        f"be traced under xa.jit / xa.lazy; pass a static size= (as in jax) "
                        f"or call it outside the traced function")
    return x


def _new_run(s, equal_nan):
    """bool tensor: s[i] starts a run of equal values in the sorted 1-D s (with equal_nan
    every NaN one run: for complex, as NumPy, every value with a NaN part)."""
    n = s.shape[0]
    if n == 0:
        return asarray(np.zeros(0, bool))
    differ = s[1:] != s[:-1]
    if equal_nan and KINDS[CODE_OF[s.dtype]] in "fc":
        both_nan = (s[1:] != s[1:]) & (s[:-1] != s[:-1])
        differ = differ & ~both_nan
    return asarray(np.concatenate([np.ones(1, bool), np.asarray(differ)]))


def _unique_1d(x, return_index, return_inverse, return_counts, equal_nan):
    flat = x.reshape((x.size,))
    need_perm = return_index or return_inverse
    if need_perm:
        perm = _sorting.argsort(flat, 0)
        s = _indexing.take_along(flat, perm, 0)
    else:
        perm = None
        s = _sorting.sort(flat, 0, False)
    first = _new_run(s, equal_nan)
    values = s[first]
    index = perm[first] if return_index else None
    if equal_nan and not need_perm and KINDS[CODE_OF[s.dtype]] == "c" and \
            values.shape[0] and bool(values[-1] != values[-1]):
        # every value with a NaN part is one: NumPy's unique of values alone (a hash
        # table) keeps the first in the input; with positions, the first in sort order
        at = int(np.argmax(np.asarray(flat != flat)))
        values = asarray(np.concatenate([np.asarray(values[:-1]), np.asarray(flat[at:at + 1])]))
    out = [values]
    if return_index:
        out.append(index)
    if return_inverse:
        rank = np.cumsum(np.asarray(first)) - 1
        inverse = np.empty(flat.shape[0], np.int64)
        inverse[np.asarray(perm)] = rank
        out.append(asarray(inverse.reshape(x.shape)))
    if return_counts:
        starts = np.flatnonzero(np.asarray(first))
        out.append(asarray(np.diff(np.r_[starts, flat.shape[0]]).astype(np.int64)))
    return out


def _unique_axis(x, axis, return_index, return_inverse, return_counts):
    """Unique slices along ``axis``: rows compared lexicographically (lax.sort over the
    columns as keys), neighbours compared whole."""
    ax = axis % x.ndim if x.ndim else 0
    moved = moveaxis(x, ax, 0)
    n = moved.shape[0]
    width = 1
    for e in moved.shape[1:]:
        width *= e
    rows = moved.reshape((n, width))
    m = rows.shape[1]
    iota = asarray(np.arange(n, dtype=np.int64))
    if m:
        cols = [rows[:, j] for j in range(m)]
        perm = _sorting.sort(tuple(cols) + (iota,), 0, True, num_keys=m)[-1]
    else:
        perm = iota
    srt = np.asarray(rows)[np.asarray(perm)]
    first = np.ones(n, bool)
    if n > 1:
        first[1:] = np.any(srt[1:] != srt[:-1], axis=1) if m else False
    values = srt[first].reshape((int(first.sum()),) + tuple(moved.shape[1:]))
    out = [moveaxis(asarray(values), 0, ax)]
    if return_index:
        out.append(asarray(np.asarray(perm)[first]))
    if return_inverse:
        inverse = np.empty(n, np.int64)
        inverse[np.asarray(perm)] = np.cumsum(first) - 1
        out.append(asarray(inverse))
    if return_counts:
        starts = np.flatnonzero(first)
        out.append(asarray(np.diff(np.r_[starts, n]).astype(np.int64)))
    return out


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, equal_nan=True, sorted=True, size=None, fill_value=None):  # noqa: A002
    """NumPy's unique: the sorted distinct values of ``ar`` (flattened, or the distinct
    slices along ``axis``), with the first index of each, the inverse (ar's shape for
    axis=None) and the counts when asked. ``size`` (jax, axis=None): the results cut or
    padded to that many (values with ``fill_value``, default the smallest), which also
    works under jit (_unique_sized)."""
    x = _eager(ar, "unique", size)
    if size is not None:
        if axis is not None:
            raise NotImplementedError("xa.unique: size= is supported with axis=None only")
        out = _unique_sized(x, operator.index(size), fill_value, equal_nan, return_index,
                            return_inverse, return_counts)
        return out[0] if len(out) == 1 else tuple(out)
    if axis is not None and x.ndim == 0:
        raise ValueError(f"xa.unique: axis {axis} is out of bounds for an array of "
                         f"dimension 0")
    if axis is None or x.ndim <= 1 and axis in (0, -1):
        out = _unique_1d(x, return_index, return_inverse, return_counts, equal_nan)
        if return_inverse and axis is not None:
            out[1 + return_index] = out[1 + return_index].reshape((x.size,))
    else:
        if not -x.ndim <= axis < x.ndim:
            raise ValueError(f"xa.unique: axis {axis} is out of bounds for an array of "
                             f"dimension {x.ndim}")
        out = _unique_axis(x, axis, return_index, return_inverse, return_counts)
    return out[0] if len(out) == 1 else tuple(out)


def _unique_sized(x, size, fill_value, equal_nan, return_index, return_inverse,
                  return_counts):
    """jnp.unique with a static ``size``, as traced ops: the first ``size`` sorted
    distinct values of x (padded with ``fill_value``, default the smallest value), and
    as asked the first index of each (padding: the smallest value's), the inverse (x's
    shape; a value cut off has its run number, >= size) and the counts (padding: 0).
    Each run's start position is scattered to its run number (runs past ``size`` dropped)
    into size + 1 slots of n, so the counts are the differences of the slots.
    Example: x = [3, 1, 3, 2, 1], size 4: values [1, 2, 3, 1], index [1, 3, 0, 1],
    inverse [2, 0, 2, 1, 0], counts [2, 1, 2, 0]."""
    flat = x.reshape((-1,))
    n = flat.shape[0]
    if n == 0:
        fill = 0 if fill_value is None else fill_value
        out = [asarray(np.full(size, fill, x.dtype))]
        out += [asarray(np.zeros(size, np.int64))] if return_index else []
        out += [asarray(np.zeros(x.shape, np.int64))] if return_inverse else []
        out += [asarray(np.zeros(size, np.int64))] if return_counts else []
        return out
    if return_index or return_inverse:
        perm = _sorting.argsort(flat, 0)
        srt = _indexing.take_along(flat, perm, 0)
    else:
        srt = _sorting.sort(flat, 0, False)
    new = srt[1:] != srt[:-1]
    if equal_nan and KINDS[CODE_OF[srt.dtype]] in "fc":
        new = new & ~((srt[1:] != srt[1:]) & (srt[:-1] != srt[:-1]))
    first = concatenate([asarray(np.ones(1, bool)), new])
    run = cumsum(first.astype(np.int64)) - 1              # each position's run number
    iota = asarray(np.arange(n, dtype=np.int64))
    slots = broadcast_to(asarray(np.asarray(n, np.int64)), (size + 1,))
    starts = _gather.scatter(slots, where(first, run, size + 1).reshape((n, 1)), iota,
                             _FLAT, mode="drop")
    real = asarray(np.arange(size)) < run[n - 1] + 1      # slots holding a run
    at = where(real, starts[:size], 0)
    values = _indexing.take_along(srt, at, 0)
    if fill_value is not None:
        values = where(real, values, asarray(np.asarray(fill_value, x.dtype)))
    out = [values]
    if return_index:
        out.append(_indexing.take_along(perm, at, 0))
    if return_inverse:
        inverse = _gather.scatter(asarray(np.zeros(n, np.int64)), perm.reshape((n, 1)), run,
                                  _FLAT, unique_indices=True)
        out.append(inverse.reshape(x.shape))
    if return_counts:
        out.append(starts[1:] - starts[:size])
    return out


def unique_all(x):
    """Array API: (values, first indices, inverse indices of x's shape, counts)."""
    v, i, inv, c = unique(x, True, True, True, equal_nan=False)
    return UniqueAllResult(v, i, inv, c)


def unique_counts(x):
    """Array API: (values, counts)."""
    v, c = unique(x, return_counts=True, equal_nan=False)
    return UniqueCountsResult(v, c)


def unique_inverse(x):
    """Array API: (values, inverse indices of x's shape)."""
    v, inv = unique(x, return_inverse=True, equal_nan=False)
    return UniqueInverseResult(v, inv)


def unique_values(x):
    """Array API: the distinct values, sorted."""
    return unique(x, equal_nan=False)


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """NumPy's isin: for each element, whether it is among ``test_elements`` (a binary
    search in their sorted values; NaN is in nothing). Eager, under jit and lazy.
    ``assume_unique`` and ``kind`` change nothing here (the search is the same)."""
    if kind not in (None, "sort", "table"):
        raise ValueError(f"xa.isin: kind must be None, 'sort' or 'table', got {kind!r}")
    e = as_operand(element)
    t = as_operand(test_elements)
    t = t.reshape((t.size,))
    if t.size == 0:
        found = asarray(np.zeros(tuple(e.shape), bool))
        return ~found if invert else found
    dt = promote([e, t])
    ke, kt = KINDS[CODE_OF[e.dtype]], KINDS[CODE_OF[t.dtype]]
    if ke in "iu" and kt in "iu" and KINDS[CODE_OF[np.dtype(dt)]] == "f" and \
            not isinstance(t, Traced):
        # int64 against uint64 promotes to float64, which merges neighbours past 2**53:
        # compare exactly, in e's dtype, among the test values it can hold
        tn = np.asarray(t)
        info = np.iinfo(np.dtype(e.dtype))
        tn = tn[(tn >= 0) if kt == "i" else (tn <= info.max)].astype(np.dtype(e.dtype))
        dt, t = np.dtype(e.dtype), asarray(tn)
        if t.size == 0:
            found = asarray(np.zeros(tuple(e.shape), bool))
            return ~found if invert else found
    e2, t2 = e.astype(dt, copy=False), t.astype(dt, copy=False)
    t2 = _sorting.sort(t2, 0, False)          # (repeats do not disturb the search)
    pos = _sorting.searchsorted(t2, e2).clip(0, t2.size - 1)
    found = _indexing.take(t2, pos) == e2
    return ~found if invert else found


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """NumPy's intersect1d: the sorted values in both (and their first indices in each)."""
    a, b = (_eager(v, "intersect1d").reshape((-1,)) for v in (ar1, ar2))
    if return_indices:
        ua, ia = unique(a, return_index=True) if not assume_unique else (a, None)
        ub, ib = unique(b, return_index=True) if not assume_unique else (b, None)
    else:
        ua = unique(a) if not assume_unique else a
        ub = unique(b) if not assume_unique else b
    both = np.concatenate([np.asarray(ua), np.asarray(ub)])
    order = np.asarray(_sorting.argsort(asarray(both), 0))
    s = both[order]
    same = s[1:] == s[:-1]
    values = asarray(s[:-1][same])
    if not return_indices:
        return values
    i1 = order[:-1][same]
    i2 = order[1:][same] - np.asarray(ua).size
    if not assume_unique:
        i1, i2 = np.asarray(ia)[i1], np.asarray(ib)[i2]
    return values, asarray(i1.astype(np.int64)), asarray(i2.astype(np.int64))


def union1d(ar1, ar2):
    """NumPy's union1d: the sorted distinct values of either."""
    a, b = (_eager(v, "union1d") for v in (ar1, ar2))
    return unique(asarray(np.concatenate([np.asarray(a).reshape(-1),
                                          np.asarray(b).reshape(-1)])))


def setdiff1d(ar1, ar2, assume_unique=False):
    """NumPy's setdiff1d: the sorted distinct values of ar1 not in ar2."""
    a = _eager(ar1, "setdiff1d").reshape((-1,))
    a = a if assume_unique else unique(a)
    return a[isin(a, ar2, assume_unique=assume_unique, invert=True)]
