"""``xa.linalg``: the Array API linalg extension and NumPy's ``numpy.linalg``, as far as
xarr has them: the contraction members (``matmul``, ``tensordot``, ``vecdot``, ``outer``,
``trace``, ``matrix_transpose``: xarr/_numpy/contraction.py) and the members that need no
factorization (``norm``, ``vector_norm``, ``matrix_norm``, ``cross``, ``diagonal``,
``multi_dot``, ``LinAlgError``: xarr/_numpy/linalg.py), and the factorizations on xarr's
own kernels (``cholesky``, ``solve``, ``inv``, ``det``, ``slogdet``, ``matrix_power``:
xarr/_numpy/factorizations.py), each with the Array API's / NumPy's signature. Not yet:
``qr``, ``svd``, ``svdvals``, ``eigh``, ``eigvalsh``, ``eig``, ``eigvals``, ``lstsq``,
``pinv``, ``matrix_rank``, ``cond``. This module only assembles.

>>> xa.linalg.vector_norm(xa.asarray([3.0, 4.0]))       # 5.0
"""

from xarr._numpy.array_api import matrix_transpose
from xarr._numpy.contraction import matmul, tensordot, vecdot
from xarr._numpy.factorizations import (SlogdetResult, cholesky, det, inv, matrix_power,
                                        slogdet, solve)
from xarr._numpy.linalg import LinAlgError, matrix_norm, multi_dot, norm, vector_norm
from xarr._numpy.linalg import linalg_cross as cross
from xarr._numpy.linalg import linalg_diagonal as diagonal
from xarr._numpy.linalg import linalg_outer as outer
from xarr._numpy.linalg import linalg_trace as trace

__all__ = ["LinAlgError", "SlogdetResult", "cholesky", "det", "inv", "slogdet", "solve",
           "cross", "diagonal", "matmul", "matrix_norm", "matrix_power",
           "matrix_transpose", "multi_dot", "norm", "outer", "tensordot", "trace", "vecdot",
           "vector_norm"]
