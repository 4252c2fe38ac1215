"""NumPy's NaN-ignoring reductions (``xa.nansum`` ... ``xa.nancumprod``), built on the
reductions of xarr/_numpy/reductions.py as NumPy builds them: NaNs are replaced by the
reduction's identity (0 for sums, 1 for products, -inf / +inf for max / min), counts
skip them. They run eagerly, under xa.jit and in xa.lazy alike (the graph fuses the
replacement into the reduction's input).

    >>> xa.nanmean(xa.asarray([1.0, float("nan"), 3.0]))       # 2.0

An all-NaN slice gives NaN for nanmax / nanmin / nanmean / nanvar (NumPy also warns;
xarr does not) and ValueError for nanargmax / nanargmin (eagerly; a traced value cannot
be checked and gives the index NumPy's replacement gives, as jax does). Integer and bool
inputs have no NaN: the plain reductions run.
"""

from xarr._dtypes import CODE_OF, KINDS
from xarr._numpy import reductions as R
from xarr._numpy import ufuncs as U
from xarr._ops.structural import as_operand
from xarr._tensor import Tensor


def _has_nan(x):
    return KINDS[CODE_OF[x.dtype]] in "fc"


def _replaced(x, value):
    """x with NaN elements replaced by ``value`` (x itself when its dtype has no NaN)."""
    x = as_operand(x)
    if not _has_nan(x):
        return x
    return U.where(U.isnan(x), value, x)


def _count(x, axis, keepdims):
    return R.sum(U.logical_not(U.isnan(x)), axis=axis, keepdims=keepdims)


def nansum(a, axis=None, dtype=None, keepdims=False):
    return R.sum(_replaced(a, 0), axis=axis, dtype=dtype, keepdims=keepdims)


def nanprod(a, axis=None, dtype=None, keepdims=False):
    return R.prod(_replaced(a, 1), axis=axis, dtype=dtype, keepdims=keepdims)


def _nan_extreme(a, axis, keepdims, fill, reduce):
    a = as_operand(a)
    if not _has_nan(a):
        return reduce(a, axis=axis, keepdims=keepdims)
    r = reduce(_replaced(a, fill), axis=axis, keepdims=keepdims)
    all_nan = R.all(U.isnan(a), axis=axis, keepdims=keepdims)
    return U.where(all_nan, float("nan"), r)


def nanmax(a, axis=None, keepdims=False):
    return _nan_extreme(a, axis, keepdims, float("-inf"), R.max)


def nanmin(a, axis=None, keepdims=False):
    return _nan_extreme(a, axis, keepdims, float("inf"), R.min)


def _nan_arg(a, axis, keepdims, fill, reduce, fn):
    a = as_operand(a)
    if not _has_nan(a):
        return reduce(a, axis=axis, keepdims=keepdims)
    if type(a) is Tensor and a.size and bool(R.any(R.all(U.isnan(a), axis=axis))):
        raise ValueError(f"xa.{fn}: All-NaN slice encountered")
    return reduce(_replaced(a, fill), axis=axis, keepdims=keepdims)


def nanargmax(a, axis=None, keepdims=False):
    return _nan_arg(a, axis, keepdims, float("-inf"), R.argmax, "nanargmax")


def nanargmin(a, axis=None, keepdims=False):
    return _nan_arg(a, axis, keepdims, float("inf"), R.argmin, "nanargmin")


def nanmean(a, axis=None, dtype=None, keepdims=False):
    """The mean of the non-NaN elements: their sum over their count (NaN when none)."""
    a = as_operand(a)
    if not _has_nan(a):
        return R.mean(a, axis=axis, dtype=dtype, keepdims=keepdims)
    s = R.sum(_replaced(a, 0), axis=axis, dtype=dtype, keepdims=keepdims)
    return _divide_by_count(s, _count(a, axis, keepdims))


def _divide_by_count(s, n):
    """s / n (n an int64 count) computed as NumPy's _divide_by_count does: the division
    promotes (float16 / int64 is float64), the result is cast back to s's dtype, so a
    float16 count above 2048 neither rounds nor overflows."""
    return U.divide(s, n).astype(s.dtype)


def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """sum(|x - nanmean|^2 over non-NaN x) / (count - ddof), as NumPy's nanvar; a
    complex input gives a real result."""
    a = as_operand(a)
    if not _has_nan(a):
        return R.var(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    nan = U.isnan(a)
    m = nanmean(a, axis=axis, dtype=dtype, keepdims=True)
    d = U.where(nan, 0, U.subtract(a if dtype is None else a.astype(dtype), m))
    sq = U.multiply(d, U.conjugate(d)).real if KINDS[CODE_OF[d.dtype]] == "c" else \
        U.multiply(d, d)
    s = R.sum(sq, axis=axis, keepdims=keepdims)
    dof = U.subtract(R.sum(U.logical_not(nan), axis=axis, keepdims=keepdims), ddof)
    return U.where(U.less_equal(dof, 0), float("nan"), _divide_by_count(s, dof)).astype(
        s.dtype)


def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False):
    return U.sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims))


def nancumsum(a, axis=None, dtype=None):
    return R.cumsum(_replaced(a, 0), axis=axis, dtype=dtype)


def nancumprod(a, axis=None, dtype=None):
    return R.cumprod(_replaced(a, 1), axis=axis, dtype=dtype)
