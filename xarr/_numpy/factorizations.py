"""``xa.linalg``'s members on xarr's own factorizations (csrc/kernels/linalg/, through
xarr/_ops/linalg.py): ``cholesky``, ``solve``, ``inv``, ``det``, ``slogdet`` (and ``matrix_power``'s negative
powers), with NumPy's
and the Array API's signatures, batching over leading dims and NumPy's errors
(``LinAlgError`` for a non-positive-definite or singular input).

Dtypes as numpy.linalg: float32 / float64 / complex64 / complex128 keep their precision,
integers and bools compute in float64; float16 and bfloat16 raise TypeError (NumPy:
"array type float16 is unsupported in linalg"). Worked example::

    a = xa.asarray([[3.0, 1.0], [1.0, 2.0]])
    xa.linalg.solve(a, xa.asarray([9.0, 8.0]))      # [2., 3.]
    xa.linalg.det(a)                                # 5.0
    xa.linalg.slogdet(a)                            # (sign 1.0, logabsdet log(5))
"""

import functools
from collections import namedtuple

import numpy as np

from xarr._numpy.linalg import LinAlgError
from xarr._numpy.linalg import matrix_power as _power
from xarr._numpy.manipulation import broadcast_to
from xarr._ops import linalg as _lin
from xarr._ops.conversion import asarray
from xarr._graph.lazy import paused
from xarr._graph.trace import Traced
from xarr._tensor import Tensor

SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
_FACTOR_DTYPES = (np.float32, np.float64, np.complex64, np.complex128)


_WIDE = {np.dtype(np.float32): np.float64, np.dtype(np.complex64): np.complex128}


def check_dtype(t, fn):
    dt = np.dtype(t.dtype)
    if dt.kind not in "biu" and dt not in _FACTOR_DTYPES:
        raise TypeError(f"linalg.{fn}: array type {dt} is unsupported in linalg")


def matrix_operand(x, fn, square=True):
    """(x as a tensor of a linalg dtype with at least two dims, square in the last two when
    ``square``; the result dtype): LinAlgError / TypeError as numpy.linalg. Integers and
    bools give float64 results."""
    t = x if isinstance(x, (Tensor, Traced)) else asarray(x)
    check_dtype(t, fn)
    dt = np.dtype(t.dtype)
    if t.ndim < 2:
        raise LinAlgError(f"linalg.{fn}: {t.ndim}-dimensional array given. Array must be at "
                          f"least two-dimensional")
    if square and t.shape[-1] != t.shape[-2]:
        raise LinAlgError(f"linalg.{fn}: Last 2 dimensions of the array must be square, got "
                          f"shape {tuple(t.shape)}")
    return t, (np.dtype(np.float64) if dt.kind in "biu" else dt)


def _operand(x, fn):
    """(x as a square-matrix tensor in the dtype it is factored in, the result dtype):
    float32 / complex64 factored in float64 / complex128 and rounded back at the end, as
    numpy.linalg does (single precision pivots would lose digits NumPy keeps on
    ill-conditioned matrices)."""
    t, result = matrix_operand(x, fn)
    work = _WIDE.get(result, result)
    return (t if np.dtype(t.dtype) == work else t.astype(work)), result


def eager_operand(t, fn):
    """t as a concrete tensor for ``fn``, which raises LinAlgError on the values (a graph
    cannot, SPEC.md) and has no graph op: a lazy value is computed first; under xa.jit,
    NotImplementedError."""
    if not isinstance(t, Traced):
        return t
    if t.instr.computation.kind == "lazy":
        return t.concrete()
    raise NotImplementedError(
        f"linalg.{fn}: not available inside xa.jit (it raises LinAlgError on the values); "
        f"call it outside, or use xa.linalg.cholesky / svd / eigh / qr or xa.lax.linalg, "
        f"which record graph ops")


def runs_eagerly(fn):
    """fn with xa.lazy's recording paused while it runs: its lazy operands are computed
    (eager_operand) and its own ops run, so its kernels get values; it returns ordinary
    tensors. (Under xa.jit, eager_operand refuses traced operands.)"""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        with paused():
            return fn(*args, **kwargs)
    return run


def narrowed(t, dtype):
    return t if np.dtype(t.dtype) == dtype else t.astype(dtype)


def _any(flags):
    return bool(np.asarray(flags).any())


def cholesky(a, /, *, upper=False):
    """The Cholesky factor of each matrix: lower L with a = L L^H (``upper``: L^H). Only
    the lower triangle is read. LinAlgError if a matrix is not positive definite."""
    t, result = _operand(a, "cholesky")
    if isinstance(t, Traced):            # in a graph: NaN where not positive definite, as jax
        factor = _lin.cholesky(t, symmetrize_input=False)
    else:
        factor, flags = _lin.cholesky_with_flags(t)
        if _any(flags):
            raise LinAlgError("linalg.cholesky: Matrix is not positive definite")
    if upper:
        factor = factor.swapaxes(-1, -2)
        factor = factor.conj() if np.dtype(factor.dtype).kind == "c" else factor.copy()
    return narrowed(factor, result)


@runs_eagerly
def solve(a, b, /):
    """x with a x = b for each matrix of a: b a vector (1-D, NumPy 2 / Array API) or a
    batch of [n, k] matrices broadcasting against a's batch dims. LinAlgError for a
    singular matrix."""
    t, result = _operand(a, "solve")
    t = eager_operand(t, "solve")
    rhs = eager_operand(b, "solve")
    rhs = rhs if isinstance(rhs, Tensor) else asarray(rhs)
    check_dtype(rhs, "solve")
    n = t.shape[-1]
    vector = rhs.ndim == 1
    if vector:
        rhs = rhs.reshape((n, 1)) if rhs.shape[0] == n else rhs
    if rhs.ndim < 2 or rhs.shape[-2] != n:
        raise ValueError(f"linalg.solve: b's shape {tuple(rhs.shape)} does not match a's "
                         f"{tuple(t.shape)} (b must be [n] or [..., n, k])")
    batch = np.broadcast_shapes(tuple(t.shape[:-2]), tuple(rhs.shape[:-2]))
    kind = np.dtype(rhs.dtype).kind
    result = np.result_type(result, np.float64 if kind in "biu" else rhs.dtype)
    work = _WIDE.get(result, result)
    if t.dtype != work:
        t = t.astype(work)
    if tuple(t.shape[:-2]) != batch:
        t = broadcast_to(t, batch + (n, n))
    if tuple(rhs.shape[:-2]) != batch:
        rhs = broadcast_to(rhs, batch + tuple(rhs.shape[-2:]))
    lu, piv, flags = _lin.lu_factor(t)
    if _any(flags):
        raise LinAlgError("linalg.solve: Singular matrix")
    x = narrowed(_lin.lu_solve(lu, piv, rhs), result)
    return x.reshape(batch + (n,)) if vector else x


@runs_eagerly
def inv(a, /):
    """The inverse of each matrix. LinAlgError for a singular matrix."""
    t, result = _operand(a, "inv")
    t = eager_operand(t, "inv")
    n = t.shape[-1]
    lu, piv, flags = _lin.lu_factor(t)
    if _any(flags):
        raise LinAlgError("linalg.inv: Singular matrix")
    eye = broadcast_to(asarray(np.eye(n, dtype=np.dtype(lu.dtype))), tuple(t.shape))
    return narrowed(_lin.lu_solve(lu, piv, eye), result)


def _lu_diagonal(t):
    """(diagonal of U as NumPy [..., n], swap parity +-1 [...]) of each matrix's LU."""
    lu, piv, _ = _lin.lu_factor(t)
    n = t.shape[-1]
    diag = np.diagonal(np.asarray(lu), axis1=-2, axis2=-1)
    swaps = np.count_nonzero(np.asarray(piv) != np.arange(n), axis=-1)
    return diag, np.where(swaps % 2, -1.0, 1.0)


def _slogdet(a, fn):
    """(sign, log|det|, result dtype) as NumPy arrays: the LU diagonal's phases and the sum
    of its logs (no product that could overflow on the way)."""
    t, result = _operand(a, fn)
    t = eager_operand(t, fn)
    diag, parity = _lu_diagonal(t)
    mag = np.abs(diag)
    with np.errstate(divide="ignore", invalid="ignore"):
        logabs = np.log(mag).sum(axis=-1)
        unit = np.where(mag == 0, 0, diag / np.where(mag == 0, 1, mag))
    sign = parity.astype(diag.dtype) * np.prod(unit, axis=-1)
    singular = (mag == 0).any(axis=-1)
    return np.where(singular, 0, sign), np.where(singular, -np.inf, logabs), result


@runs_eagerly
def slogdet(a, /):
    """(sign, log|det|) of each matrix: sign 0 and logabsdet -inf for a singular one
    (complex: sign has modulus 1)."""
    sign, logabs, result = _slogdet(a, "slogdet")
    real = np.zeros(0, result).real.dtype
    return SlogdetResult(asarray(np.asarray(sign, dtype=result)),
                         asarray(np.asarray(logabs, dtype=real)))


@runs_eagerly
def det(a, /):
    """The determinant of each matrix: sign * exp(log|det|) from the LU diagonal, as
    NumPy, so products like 1e200 * 1e200 * 1e-300 do not overflow on the way."""
    sign, logabs, result = _slogdet(a, "det")
    with np.errstate(over="ignore", under="ignore"):
        return asarray(np.asarray(sign * np.exp(logabs), dtype=result))


def matrix_power(a, n):
    """numpy.linalg.matrix_power: a (square matrices in the last two dims) to the integer
    power n by repeated squaring; a negative n powers the inverse (LinAlgError when a
    matrix is singular)."""
    if isinstance(n, (int, np.integer)) and n < 0:
        return _power(inv(a), -int(n))
    return _power(a, n)
