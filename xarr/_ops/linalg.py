"""The seed's Cholesky and TriangularSolve (seed 004, lines 269 and 1755) as
``xa.lax.linalg.cholesky`` / ``triangular_solve`` (jax.lax.linalg's names and arguments),
and the LU factorization xa.linalg's solve / inv / det build on. Kernels:
csrc/kernels/linalg/linalg.h (bound in xarr/_bindings/linalg.pyx), which factor a
contiguous row-major copy of the operand in place; the copy is the result.

Rules (apart from the kernels) raise with the op, the argument and the values. A matrix
that is not positive definite gives a NaN factor (SPEC.md: no exception inside graphs);
xa.linalg.cholesky raises LinAlgError instead. Worked example::

    lax.linalg.cholesky(xa.asarray([[4.0, 2.0], [2.0, 5.0]]))   # [[2, 0], [1, 2]]
    lax.linalg.triangular_solve(L, b, left_side=True, lower=True)   # L x = b
"""

import math

import numpy as np

from xarr import _tensor
from xarr._bindings import linalg as _kernels
from xarr._dtypes import CODE_OF, DTYPES
from xarr._graph.ir import TensorType
from xarr._ops import structural as S

_FACTOR_CODES = {CODE_OF[np.dtype(d)] for d in (np.float32, np.float64, np.complex64,
                                                 np.complex128)}
_U8, _S64 = CODE_OF[np.dtype(np.uint8)], CODE_OF[np.dtype(np.int64)]


def _check_square(t, fn, what):
    if len(t.dims) < 2 or t.dims[-1] != t.dims[-2]:
        raise ValueError(f"{fn}: {what} must be a batch of square matrices [..., n, n], got "
                         f"shape {t.dims}")
    if t.code not in _FACTOR_CODES:
        raise TypeError(f"{fn}: {what} must be float32, float64, complex64 or complex128, "
                        f"got {DTYPES[t.code]}")


def dense_copy(x, code=None):
    """A fresh row-major tensor with x's values (in dtype ``code``): the kernels' in-place
    buffer and the result."""
    out = _tensor.empty(tuple(x.shape), CODE_OF[x.dtype] if code is None else code)
    _tensor.convert_into(out, _tensor.strided(x))
    return out


def _batch(shape):
    return math.prod(shape[:-2])


# -------------------------------------------------------------------------------- Cholesky
def _cholesky_rule(types, symmetrize_input):
    (t,) = types
    _check_square(t, "lax.linalg.cholesky", "x")
    return TensorType(t.code, t.dims, None)


def cholesky_with_flags(x):
    """(lower factor, uint8 flags: 1 where a matrix is not positive definite); x's lower
    triangle only is read. The lax op's step, and xa.linalg.cholesky's (which raises)."""
    a = dense_copy(x)
    flags = _tensor.empty((_batch(a.shape),), _U8, None, True)
    _kernels.cholesky_(a, flags)
    return a, flags


def symmetrized(x):
    """(x + x^H) / 2 of each matrix: jax's ``symmetrize_input``."""
    h = x.swapaxes(-1, -2)
    return (x + (h.conj() if np.dtype(x.dtype).kind == "c" else h)) * 0.5


def _cholesky_impl(x, symmetrize_input):
    if symmetrize_input:           # (only the lower triangle is read)
        x = symmetrized(x)
    return cholesky_with_flags(x)[0]


def cholesky(x, *, symmetrize_input=True):
    """jax.lax.linalg.cholesky: the lower Cholesky factor L of each matrix (x = L L^H),
    of (x + x^H) / 2 when ``symmetrize_input``; NaN where not positive definite."""
    return S.apply("cholesky", [x], symmetrize_input=bool(symmetrize_input))


S.defop("cholesky", _cholesky_rule, _cholesky_impl, text=lambda a: ["lower=true"])


# ------------------------------------------------------------------------ TriangularSolve
def _triangular_rule(types, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    a, b = types
    fn = "lax.linalg.triangular_solve"
    _check_square(a, fn, "a")
    if a.code != b.code:
        raise TypeError(f"{fn}: a and b must share a dtype, got {DTYPES[a.code]} and "
                        f"{DTYPES[b.code]}")
    if len(b.dims) != len(a.dims) or b.dims[:-2] != a.dims[:-2]:
        raise ValueError(f"{fn}: b must have a's batch dims {a.dims[:-2]} and two more, got "
                         f"shape {b.dims}")
    m = a.dims[-1]
    side = b.dims[-2] if left_side else b.dims[-1]
    if side != m:
        raise ValueError(f"{fn}: b's {'rows' if left_side else 'columns'} ({side}) must "
                         f"match a's size {m} (left_side={left_side}), shapes {a.dims} and "
                         f"{b.dims}")
    return TensorType(b.code, b.dims, None)


def _triangular_impl(a, b, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    a = dense_copy(a)
    out = dense_copy(b)
    _kernels.triangular_solve_(a, out, left_side, lower, transpose_a, conjugate_a,
                               unit_diagonal)
    return out


def triangular_solve(a, b, *, left_side=False, lower=False, transpose_a=False,
                     conjugate_a=False, unit_diagonal=False):
    """jax.lax.linalg.triangular_solve: x with op(a) x = b (``left_side``) or x op(a) = b,
    op(a) = a, a^T (``transpose_a``) or a^H (with ``conjugate_a``); only a's ``lower``
    (else upper) triangle is read, its diagonal taken as ones for ``unit_diagonal``."""
    return S.apply("triangular_solve", [a, b], left_side=bool(left_side), lower=bool(lower),
                   transpose_a=bool(transpose_a), conjugate_a=bool(conjugate_a),
                   unit_diagonal=bool(unit_diagonal))


def _triangular_text(attrs):
    op = ("ADJOINT" if attrs["conjugate_a"] else "TRANSPOSE") if attrs["transpose_a"] \
        else "NO_TRANSPOSE"
    text = [f"left_side={str(attrs['left_side']).lower()}",
            f"lower={str(attrs['lower']).lower()}",
            f"unit_diagonal={str(attrs['unit_diagonal']).lower()}", f"transpose_a={op}"]
    if attrs["conjugate_a"] and not attrs["transpose_a"]:
        text.append("conjugate_a=true")    # (XLA has no such option: jax conjugates first)
    return text


S.defop("triangular_solve", _triangular_rule, _triangular_impl, text=_triangular_text)


# ------------------------------------------------------------------------------------ LU
def lu_factor(x):
    """(LU, pivots int64 [..., n], flags uint8 [batch]: 1 where singular) of a batch of
    square matrices (x any layout, already of a factor dtype): P x = L U with L unit lower
    and U upper stored together, LAPACK's row swaps (0-based)."""
    a = dense_copy(x)
    piv = _tensor.empty(tuple(a.shape[:-1]), _S64)
    flags = _tensor.empty((_batch(a.shape),), _U8, None, True)
    _kernels.lu_(a, piv, flags)
    return a, piv, flags


def lu_solve(lu, piv, b):
    """x = A^-1 b for A = lu_factor's factors, b [..., n, k] of lu's batch dims (a new
    tensor)."""
    out = dense_copy(b, CODE_OF[lu.dtype])
    _kernels.lu_solve_(lu, piv, out)
    return out
