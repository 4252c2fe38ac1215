"""The sort family (csrc/kernels/sort/): today ``searchsorted``, the binary search, and
``interp``, NumPy's piecewise-linear interpolation on it. Issue 16 brings the sort
kernels themselves into this family.

Each is one graph op (structural: its impl is the kernel), so it runs eagerly, under
xa.jit and in xa.lazy alike:

    >>> searchsorted(xa.asarray([1, 2, 2, 3]), xa.asarray([2, 0, 9]))            # [1, 0, 4]
    >>> searchsorted(xa.asarray([1, 2, 2, 3]), xa.asarray([2, 0, 9]), "right")   # [3, 0, 4]
"""

import numpy as np

from xarr._bindings import sort as _sort
from xarr._dispatch import register
from xarr._dtypes import CODE_OF, KINDS, XLA_NAMES
from xarr._graph.ir import TensorType
from xarr._ops.elementwise import promote
from xarr._graph.trace import recorder
from xarr._ops.structural import apply, as_operand, defop
from xarr._tensor import Tensor

_S64 = CODE_OF[np.dtype(np.int64)]
_F64 = CODE_OF[np.dtype(np.float64)]
_C128 = CODE_OF[np.dtype(np.complex128)]


def _searchsorted_rule(types, side):
    a, v = types
    if len(a.dims) != 1:
        raise ValueError(f"searchsorted: the sorted operand must be 1-D, got shape {a.dims}")
    if a.code != v.code:
        raise TypeError(f"searchsorted: sorted is {XLA_NAMES[a.code]}, keys "
                        f"{XLA_NAMES[v.code]}; they must have one dtype")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    return TensorType(_S64, v.dims, None)


def _searchsorted_impl(a, v, side):
    return _sort.searchsorted(a, v, side == "right")


defop("searchsorted", _searchsorted_rule, _searchsorted_impl,
      text=lambda attrs: [f"side={attrs['side']}"])


def searchsorted(a, v, side="left", sorter=None):
    """Indices (int64, of v's shape) where v's elements go into the ascending 1-D ``a`` to
    keep it sorted: before equal elements (side='left') or after them ('right'). NaN sorts
    last, as in NumPy. ``sorter``: indices that sort ``a`` (a is read as a[sorter]). a and
    v are compared in their promoted dtype (NumPy's rule)."""
    if side != "left" and side != "right":
        raise ValueError(f"xa.searchsorted: side must be 'left' or 'right', got {side!r}")
    if type(a) is Tensor and type(v) is Tensor and sorter is None and a.dtype == v.dtype \
            and a.ndim == 1 and recorder((a, v)) is None:
        return _sort.searchsorted(a, v, side == "right")      # eager: the kernel directly
    a = as_operand(a)
    if a.ndim != 1:
        raise ValueError(f"xa.searchsorted: a must be 1-D, got shape {tuple(a.shape)}")
    if sorter is not None:
        sorter = as_operand(sorter)
        if KINDS[CODE_OF[sorter.dtype]] not in "iu":
            raise TypeError(f"xa.searchsorted: sorter must hold integers, got {sorter.dtype}")
        if sorter.shape != a.shape:
            raise ValueError(f"xa.searchsorted: sorter has shape {tuple(sorter.shape)}, a "
                             f"{tuple(a.shape)}; they must match")
        if isinstance(sorter, Tensor) and sorter.size and \
                (int(sorter.min()) < 0 or int(sorter.max()) >= a.shape[0]):
            raise ValueError(f"xa.searchsorted: sorter index out of range [0, {a.shape[0]})")
        a = a[sorter]
    # (NumPy types a Python scalar key as an array would be - float64, int64 - not weakly:
    # searchsorted(float16 [0.1, 0.5], 0.1) compares in float64)
    v = as_operand(np.asarray(v) if isinstance(v, (int, float, bool, complex)) else v)
    dt = promote([a, v])
    a, v = a.astype(dt, copy=False), v.astype(dt, copy=False)
    return apply("searchsorted", [a, v], side=side)


def _interp_rule(types, left, right):
    x, xp, fp = types
    if x.code != _F64 or xp.code != _F64 or fp.code not in (_F64, _C128):
        raise TypeError(f"interp: x and xp must be f64 and fp f64 or c128, got "
                        f"{XLA_NAMES[x.code]}, {XLA_NAMES[xp.code]}, {XLA_NAMES[fp.code]}")
    if len(xp.dims) != 1 or len(fp.dims) != 1:
        raise ValueError(f"interp: xp and fp must be 1-D, got shapes {xp.dims} and {fp.dims}")
    if xp.dims[0] == 0:
        raise ValueError("interp: array of sample points is empty")
    if fp.dims != xp.dims:
        raise ValueError(f"interp: fp and xp are not of the same length ({fp.dims[0]} and "
                         f"{xp.dims[0]})")
    return TensorType(fp.code, x.dims, None)


def _interp_impl(x, xp, fp, left, right):
    return _sort.interp(x, xp, fp, left, right)


def _interp_text(attrs):
    return [f"{k}={attrs[k]}" for k in ("left", "right") if attrs[k] is not None]


defop("interp", _interp_rule, _interp_impl, text=_interp_text)


def interp(x, xp, fp, left=None, right=None):
    """The interp op on float64 x, xp and float64 / complex128 fp (xarr/_numpy/searching.py
    converts NumPy's inputs); left / right are Python numbers or None (fp[0] / fp[-1])."""
    return apply("interp", [x, xp, fp], left=left, right=right)


register(searchsorted=searchsorted)       # t.searchsorted(v) (xarr/_methods.py)
