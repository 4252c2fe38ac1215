"""``xa.linalg``: the Array API linalg extension. Today its contraction members
(``matmul``, ``tensordot``, ``vecdot``, ``outer``, ``trace``, ``matrix_transpose``), each the
NumPy frontend's function of xarr/_numpy/contraction.py with the Array API's signature.
This module only assembles.
"""

from xarr._numpy.array_api import matrix_transpose
from xarr._numpy.contraction import matmul, tensordot, vecdot
from xarr._numpy.contraction import outer as _outer
from xarr._numpy.contraction import trace as _trace

__all__ = ["matmul", "matrix_transpose", "outer", "tensordot", "trace", "vecdot"]


def outer(x1, x2, /):
    """Array API linalg.outer: both operands must be 1-D."""
    for i, x in enumerate((x1, x2)):
        if getattr(x, "ndim", 1) != 1:
            raise ValueError(f"linalg.outer: x{i + 1} must be 1-D, got shape {x.shape}")
    return _outer(x1, x2)


def trace(x, /, *, offset=0, dtype=None):
    """Array API linalg.trace: the sums of the diagonals of the last two dims."""
    return _trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)
