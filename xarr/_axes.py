"""Axis arguments, NumPy's rules, shared by every layer: negative axes count from the end,
an axis out of range raises NumPy's ``AxisError`` (a ValueError and an IndexError) naming
the function, the axis and the rank.

>>> normalize_axis(-1, 3, "sum")
2
>>> normalize_axes((0, -1), 3, "sum")
(0, 2)
"""

import operator

from numpy.exceptions import AxisError


def normalize_axis(axis, ndim, fn, module="xa"):
    """``axis`` in [-ndim, ndim) as a non-negative int, else ValueError naming
    ``module.fn`` (xa.* or lax.*); TypeError for a non-integer."""
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"{module}.{fn}: axis must be an integer, got {axis!r}") from None
    if not -ndim <= a < ndim:
        # NumPy's AxisError: a ValueError and an IndexError, so code catching either works
        raise AxisError(f"{module}.{fn}: axis {a} is out of bounds for array of dimension "
                        f"{ndim}")
    return a % ndim if ndim else a


def is_scalar_axis(axis, ndim):
    """Whether ``axis`` is 0 or -1 of a 0-d array given as one int, which NumPy's
    reductions and squeeze accept (there is no axis to act on)."""
    return ndim == 0 and not isinstance(axis, (tuple, list)) and \
        operator.index(axis) in (0, -1)


def normalize_axes(axis, ndim, fn):
    """An int or a sequence of ints as a tuple of distinct normalized axes (in the given
    order); ValueError for a repeated axis."""
    if isinstance(axis, (tuple, list)):
        out = tuple(normalize_axis(a, ndim, fn) for a in axis)
        if len(set(out)) != len(out):
            raise ValueError(f"xa.{fn}: repeated axis in {tuple(axis)}")
        return out
    return (normalize_axis(axis, ndim, fn),)
