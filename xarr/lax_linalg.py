"""``xa.lax.linalg``: jax.lax.linalg's ``cholesky`` and ``triangular_solve`` (seed 004
Cholesky and TriangularSolve, on xarr's own kernels: xarr/_ops/linalg.py) and ``svd``,
``eigh``, ``qr``, ``eig`` (on LAPACK: xarr/_ops/lapack.py). This module only assembles."""

from xarr._ops.lapack import lax_eig as eig
from xarr._ops.lapack import lax_eigh as eigh
from xarr._ops.lapack import lax_qr as qr
from xarr._ops.lapack import lax_svd as svd
from xarr._ops.linalg import cholesky, triangular_solve

__all__ = ["cholesky", "eig", "eigh", "qr", "svd", "triangular_solve"]
