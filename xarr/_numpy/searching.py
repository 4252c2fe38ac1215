"""NumPy's functions on sorted data that need no sort themselves, beyond searchsorted
(xarr/_ops/sorting.py): ``interp``, piecewise-linear interpolation, whose kernel is the
sort family's (csrc/kernels/sort/searchsorted.h). Eager, under xa.jit and in xa.lazy.

    >>> xa.interp(xa.asarray([0.5, 2.5]), [0.0, 1.0, 3.0], [0.0, 10.0, 30.0])   # [5, 25]
"""

import numpy as np

from xarr._dtypes import CODE_OF, KINDS
from xarr._bindings import sort as _sort
from xarr._graph.trace import Traced, recorder
from xarr._ops import sorting as _sorting
from xarr._numpy.manipulation import concatenate
from xarr._ops.indexing import take
from xarr._ops.structural import as_operand


def _fill_value(v, complex_fp, what):
    """left / right as the Python number the kernel takes (None stays None)."""
    if v is None:
        return None
    if isinstance(v, Traced):
        raise TypeError(f"xa.interp: {what} must be a concrete number under xa.jit, got a "
                        "traced value")
    return complex(v) if complex_fp else float(v)


def _periodic(x, xp, fp, period):
    """NumPy's periodic interp inputs: x, xp modulo |period|, (xp, fp) sorted by xp and
    extended by the last point one period down and the first one period up."""
    if isinstance(period, Traced):
        raise TypeError("xa.interp: period must be a concrete number under xa.jit")
    if period == 0:
        raise ValueError("xa.interp: period must be a non-zero value")
    period = abs(float(period))
    for v, what in ((xp, "xp"), (fp, "fp")):
        if v.ndim != 1:
            raise ValueError("xa.interp: Data points must be 1-D sequences")
    if xp.shape[0] != fp.shape[0]:
        raise ValueError(f"xa.interp: fp and xp are not of the same length ({fp.shape[0]} "
                         f"and {xp.shape[0]})")
    x = x.astype(np.float64, copy=False) % period
    xp = xp.astype(np.float64, copy=False) % period
    order = _sorting.argsort(xp, 0)
    xp, fp = take(xp, order), take(fp, order)
    xp = concatenate([xp[-1:] - period, xp, xp[:1] + period])
    fp = concatenate([fp[-1:], fp, fp[:1]])
    return x, xp, fp


def interp(x, xp, fp, left=None, right=None, period=None):
    """The piecewise-linear interpolant through (xp, fp) at x, as NumPy's interp: xp
    increasing (not checked, as NumPy), x and xp in float64, fp in float64 or complex128;
    ``left`` / ``right`` (default fp[0] / fp[-1]) below xp[0] / above xp[-1]; NaN where x
    is NaN; fp[j] exactly where x == xp[j]; NumPy's bits (the kernel is its loop, with a
    grouped binary search). ``period``: x and xp taken modulo it, xp sorted (argsort) and
    extended by one point each side, as NumPy's (left / right are then ignored)."""
    x = as_operand(x)
    xp, fp = as_operand(xp), as_operand(fp)
    if period is not None:
        x, xp, fp = _periodic(x, xp, fp, period)
        left = right = None
    for v, what in ((xp, "xp"), (fp, "fp")):
        if v.ndim != 1:
            raise ValueError(f"xa.interp: {what} must be a 1-D sequence, got shape "
                             f"{tuple(v.shape)}")
    for v, what in ((x, "x"), (xp, "xp")):
        if KINDS[CODE_OF[v.dtype]] == "c":
            raise TypeError(f"xa.interp: cannot cast {what} from {v.dtype} to float64 "
                            "(NumPy's safe casting)")
    complex_fp = KINDS[CODE_OF[fp.dtype]] == "c"
    x, xp = x.astype(np.float64, copy=False), xp.astype(np.float64, copy=False)
    fp = fp.astype(np.complex128 if complex_fp else np.float64, copy=False)
    left = _fill_value(left, complex_fp, "left")
    right = _fill_value(right, complex_fp, "right")
    if recorder((x, xp, fp)) is None and xp.shape[0] and xp.shape == fp.shape:
        return _sort.interp(x, xp, fp, left, right)       # eager: the kernel directly
    return _sorting.interp(x, xp, fp, left, right)
