"""``xa.lax.linalg``: jax.lax.linalg's ``cholesky`` and ``triangular_solve`` (seed 004
Cholesky and TriangularSolve), from xarr/_ops/linalg.py. This module only assembles."""

from xarr._ops.linalg import cholesky, triangular_solve

__all__ = ["cholesky", "triangular_solve"]
