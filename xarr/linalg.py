"""``xa.linalg``: the Array API linalg extension and NumPy's ``numpy.linalg``: the
contraction members (``matmul``, ``tensordot``, ``vecdot``, ``outer``, ``trace``,
``matrix_transpose``: xarr/_numpy/contraction.py), the members that need no factorization
(``norm``, ``vector_norm``, ``matrix_norm``, ``cross``, ``diagonal``, ``multi_dot``,
``LinAlgError``: xarr/_numpy/linalg.py), the factorizations on xarr's own kernels
(``cholesky``, ``solve``, ``inv``, ``det``, ``slogdet``, ``matrix_power``:
xarr/_numpy/factorizations.py) and those on LAPACK (``svd``, ``svdvals``, ``eigh``,
``eigvalsh``, ``eig``, ``eigvals``, ``qr``, ``lstsq``, ``pinv``, ``matrix_rank``, ``cond``:
xarr/_numpy/decompositions.py), each with the Array API's / NumPy's signature. This module
only assembles.

>>> xa.linalg.vector_norm(xa.asarray([3.0, 4.0]))       # 5.0
"""

from xarr._numpy.array_api import matrix_transpose
from xarr._numpy.contraction import matmul, tensordot, vecdot
from xarr._numpy.decompositions import (EighResult, EigResult, QRResult, SVDResult, cond, eig,
                                        eigh, eigvals, eigvalsh, lstsq, matrix_rank, pinv,
                                        qr, svd, svdvals)
from xarr._numpy.factorizations import (SlogdetResult, cholesky, det, inv, matrix_power,
                                        slogdet, solve)
from xarr._numpy.linalg import LinAlgError, matrix_norm, multi_dot, norm, vector_norm
from xarr._numpy.linalg import linalg_cross as cross
from xarr._numpy.linalg import linalg_diagonal as diagonal
from xarr._numpy.linalg import linalg_outer as outer
from xarr._numpy.linalg import linalg_trace as trace

__all__ = ["EigResult", "EighResult", "LinAlgError", "QRResult", "SVDResult", "SlogdetResult",
           "cholesky", "cond", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv", "lstsq",
           "matrix_rank", "pinv", "qr", "slogdet", "solve", "svd", "svdvals",
           "cross", "diagonal", "matmul", "matrix_norm", "matrix_power",
           "matrix_transpose", "multi_dot", "norm", "outer", "tensordot", "trace", "vecdot",
           "vector_norm"]
