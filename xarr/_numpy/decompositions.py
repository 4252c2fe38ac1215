"""``xa.linalg``'s members on LAPACK's factorizations (xarr/_ops/lapack.py): ``svd``,
``svdvals``, ``eigh``, ``eigvalsh``, ``eig``, ``eigvals``, ``qr``, ``lstsq``, and the ones
built from them, ``pinv`` (its products on xarr's GEMM engine), ``matrix_rank`` and
``cond``, with numpy.linalg's signatures, result types (SVDResult, EighResult, EigResult,
QRResult), batching over leading dims and errors (LinAlgError where an algorithm does not
converge or a shape does not fit).

Dtypes as numpy.linalg: computed in float64 / complex128, results in the input's precision
(integers and bools give float64; float16 / bfloat16 raise TypeError). Inside ``xa.jit`` /
``xa.lazy``, ``svd``, ``svdvals``, ``eigh``, ``eigvalsh`` and ``qr`` record the
``xa.lax.linalg`` ops (NaN where an algorithm fails, as jax.numpy.linalg); the members that
raise LinAlgError on values (eig, lstsq, pinv, matrix_rank, cond) compute a lazy operand
first and raise NotImplementedError under xa.jit. Worked example::

    a = xa.asarray([[2.0, 1.0], [1.0, 2.0]])
    xa.linalg.eigh(a).eigenvalues                    # [1., 3.]
    xa.linalg.svd(a, compute_uv=False)               # [3., 1.]
    xa.linalg.lstsq(a, xa.asarray([3.0, 3.0]))[0]    # [1., 1.]
"""

import warnings
from collections import namedtuple

import numpy as np

from xarr._numpy.contraction import matmul
from xarr._graph.trace import Traced
from xarr._numpy.factorizations import (check_dtype, eager_operand, matrix_operand, narrowed,
                                        runs_eagerly)
from xarr._numpy.linalg import LinAlgError, norm
from xarr._numpy.manipulation import broadcast_to
from xarr._numpy import ufuncs as U
from xarr._ops import lapack as L
from xarr._ops import linalg as _lin
from xarr._ops.conversion import asarray
from xarr._tensor import Tensor

SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
EigResult = namedtuple("EigResult", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("QRResult", ["Q", "R"])

_EPS64 = float(np.finfo(np.float64).eps)


def _real(dtype):
    return np.zeros(0, dtype).real.dtype


def _complex(dtype):
    return np.result_type(dtype, np.complex64)


def _converged(info, fn, what):
    if (info > 0).any():
        raise LinAlgError(f"linalg.{fn}: {what} did not converge")


# ------------------------------------------------------------------------------------ SVD
@runs_eagerly
def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """numpy.linalg.svd: a = U diag(S) Vh for each matrix [..., M, N] of a; S real,
    descending. ``full_matrices``: U [..., M, M] and Vh [..., N, N], else [..., M, K] and
    [..., K, N] (K = min(M, N)). ``compute_uv=False``: S alone. ``hermitian``: a is taken
    as Hermitian and factored by eigh (its lower triangle is read).

    >>> xa.linalg.svd(xa.asarray([[3.0, 0.0], [0.0, -4.0]])).S        # [4., 3.]
    """
    t, result = matrix_operand(a, "svd", square=hermitian)
    if isinstance(t, Traced):            # in a graph: lax.linalg.svd (NaN if no convergence)
        out = L.lax_svd(_graph_dtype(t), full_matrices=full_matrices, compute_uv=compute_uv)
        return SVDResult(*out) if compute_uv else out
    if hermitian:
        return _hermitian_svd(t, result, compute_uv)
    u, s, vh, info = L.svd(t, full_matrices, compute_uv)
    _converged(info, "svd", "SVD")
    s = narrowed(s, _real(result))
    if not compute_uv:
        return s
    return SVDResult(narrowed(u, result), s, narrowed(vh, result))


def _graph_dtype(t):
    """A traced operand in a dtype lax.linalg takes (integers and bools as float64)."""
    return t.astype(np.float64) if np.dtype(t.dtype).kind in "biu" else t


def _hermitian_svd(t, result, compute_uv):
    """NumPy's SVD of a Hermitian matrix from its eigendecomposition: S = |w| in
    descending order, U = V in that order, Vh = (U * sign(w))^H."""
    w, v, info = L.eigh(t, True, compute_uv)
    _converged(info, "svd", "Eigenvalues")
    w = np.asarray(w)
    order = np.argsort(np.abs(w), axis=-1)[..., ::-1]
    s = asarray(np.take_along_axis(np.abs(w), order, axis=-1))
    if not compute_uv:
        return narrowed(s, _real(result))
    sign = np.take_along_axis(np.sign(w), order, axis=-1)
    u = np.take_along_axis(np.asarray(v), order[..., None, :], axis=-1)
    vh = np.conj(np.swapaxes(u * sign[..., None, :], -1, -2))
    return SVDResult(narrowed(asarray(np.ascontiguousarray(u)), result),
                     narrowed(s, _real(result)),
                     narrowed(asarray(np.ascontiguousarray(vh)), result))


def svdvals(x, /):
    """Array API svdvals: the singular values of each matrix, descending."""
    return svd(x, compute_uv=False)


# ---------------------------------------------------------------------------------- eigen
def _uplo(UPLO, fn):  # noqa: N803 (NumPy's argument name)
    side = UPLO.upper() if isinstance(UPLO, str) else UPLO
    if side not in ("L", "U"):
        raise ValueError(f"linalg.{fn}: UPLO argument must be 'L' or 'U', got {UPLO!r}")
    return side == "L"


@runs_eagerly
def eigh(a, UPLO="L"):  # noqa: N803
    """numpy.linalg.eigh: (eigenvalues ascending, eigenvectors as columns) of each
    Hermitian matrix, reading its lower (``UPLO='L'``) or upper triangle only.

    >>> xa.linalg.eigh(xa.asarray([[2.0, 1.0], [1.0, 2.0]])).eigenvalues    # [1., 3.]
    """
    lower = _uplo(UPLO, "eigh")
    t, result = matrix_operand(a, "eigh")
    if isinstance(t, Traced):            # in a graph: lax.linalg.eigh
        v, w = L.lax_eigh(_graph_dtype(t), lower=lower, symmetrize_input=False)
        return EighResult(w, v)
    w, v, info = L.eigh(t, lower, True)
    _converged(info, "eigh", "Eigenvalues")
    return EighResult(narrowed(w, _real(result)), narrowed(v, result))


@runs_eagerly
def eigvalsh(a, UPLO="L"):  # noqa: N803
    """numpy.linalg.eigvalsh: the eigenvalues of each Hermitian matrix, ascending."""
    lower = _uplo(UPLO, "eigvalsh")
    t, result = matrix_operand(a, "eigvalsh")
    if isinstance(t, Traced):
        return L.lax_eigh(_graph_dtype(t), lower=lower, symmetrize_input=False)[1]
    w, _, info = L.eigh(t, lower, False)
    _converged(info, "eigvalsh", "Eigenvalues")
    return narrowed(w, _real(result))


def _general_eigen(a, fn, vectors):
    t, result = matrix_operand(a, fn)
    t = eager_operand(t, fn)
    if not bool(U.isfinite(t).all()):
        raise LinAlgError(f"linalg.{fn}: Array must not contain infs or NaNs")
    w, v, info = L.eig(t, vectors)
    _converged(info, fn, "Eigenvalues")
    if result.kind != "c" and not np.asarray(w).imag.any():
        # NumPy: a real matrix whose eigenvalues are all real gets real results
        w, v = U.real(w), (U.real(v) if vectors else None)
    else:
        result = _complex(result)
    w = narrowed(w, result if np.dtype(w.dtype).kind == "c" else _real(result))
    if vectors:
        v = narrowed(v, result if np.dtype(v.dtype).kind == "c" else _real(result))
    return w, v


@runs_eagerly
def eig(a):
    """numpy.linalg.eig: (eigenvalues, right eigenvectors as unit-norm columns) of each
    square matrix; complex unless the matrix is real with all eigenvalues real.
    LinAlgError for infs or NaNs.

    >>> xa.linalg.eig(xa.asarray([[0.0, -1.0], [1.0, 0.0]])).eigenvalues    # [1j, -1j]
    """
    return EigResult(*_general_eigen(a, "eig", True))


@runs_eagerly
def eigvals(a):
    """numpy.linalg.eigvals: the eigenvalues of each square matrix (as eig's)."""
    return _general_eigen(a, "eigvals", False)[0]


# ------------------------------------------------------------------------------------- QR
@runs_eagerly
def qr(a, mode="reduced"):
    """numpy.linalg.qr: a = Q R with Q's columns orthonormal and R upper triangular, for
    each matrix [..., M, N]. ``mode``: 'reduced' (Q [..., M, K], R [..., K, N]),
    'complete' (Q [..., M, M], R [..., M, N]), 'r' (R alone) or 'raw' (LAPACK's (h, tau):
    h [..., N, M] the Householder reflectors and R, transposed).

    >>> q, r = xa.linalg.qr(xa.asarray([[3.0, 1.0], [4.0, 2.0]]))   # r[0, 0] = -5
    """
    if mode in ("f", "full"):            # (NumPy's deprecated spellings, still accepted)
        warnings.warn("The 'full' option is deprecated in favor of 'reduced'.",
                      DeprecationWarning, stacklevel=2)
        mode = "reduced"
    elif mode in ("e", "economic"):
        warnings.warn("The 'economic' option is deprecated.", DeprecationWarning,
                      stacklevel=2)
        mode = "economic"
    elif mode not in ("reduced", "complete", "r", "raw"):
        raise ValueError(f"linalg.qr: Unrecognized mode {mode!r} (valid: 'reduced', "
                         f"'complete', 'r', 'raw')")
    t, result = matrix_operand(a, "qr", square=False)
    if isinstance(t, Traced) and mode not in ("raw", "economic"):   # lax.linalg.qr
        q, r = L.lax_qr(_graph_dtype(t), full_matrices=mode == "complete")
        return r if mode == "r" else QRResult(q, r)
    t = eager_operand(t, "qr")
    m, n = t.shape[-2:]
    k = min(m, n)
    qcols = None if mode in ("r", "raw", "economic") else (m if mode == "complete" else k)
    h, tau, q, _ = L.qr(t, qcols)
    if mode == "raw":
        return narrowed(h, result), narrowed(tau, result)
    if mode == "economic":           # geqrf's output in a's shape: R above, reflectors below
        return narrowed(_lin.dense_copy(h.swapaxes(-1, -2)), result)
    rows = m if mode == "complete" else k
    r = narrowed(L.r_factor(h, rows), result)
    if mode == "r":
        return r
    return QRResult(narrowed(q, result), r)


# ---------------------------------------------------------------------------------- lstsq
@runs_eagerly
def lstsq(a, b, rcond=None):
    """numpy.linalg.lstsq: (x, residuals, rank, s) with x minimizing ||b - a x||_2 (SVD,
    LAPACK gelsd); b [M] or [M, K]. Singular values at most ``rcond`` times the largest
    count as zero (None: machine epsilon times max(M, N)). residuals are the squared
    2-norms of b - a x per column when rank == N < M, else empty. Leading batch dims of a
    and b broadcast (an extension: NumPy takes 2-D a only); rank is then an array.

    >>> xa.linalg.lstsq(xa.asarray([[1.0], [1.0]]), xa.asarray([1.0, 3.0]))[0]  # [2.]
    """
    t, result = matrix_operand(a, "lstsq", square=False)
    t = eager_operand(t, "lstsq")
    rhs = eager_operand(b, "lstsq")
    rhs = rhs if isinstance(rhs, Tensor) else asarray(rhs)
    check_dtype(rhs, "lstsq")
    m, n = t.shape[-2:]
    vector = rhs.ndim == 1
    if vector:
        rhs = rhs.reshape((rhs.shape[0], 1))
    if rhs.ndim < 2 or rhs.shape[-2] != m:
        raise LinAlgError(f"linalg.lstsq: Incompatible dimensions: a {tuple(t.shape)}, b "
                          f"{tuple(b.shape) if hasattr(b, 'shape') else np.shape(b)}")
    kind = np.dtype(rhs.dtype).kind
    result = np.result_type(result, np.float64 if kind in "biu" else rhs.dtype)
    batch = np.broadcast_shapes(tuple(t.shape[:-2]), tuple(rhs.shape[:-2]))
    t = broadcast_to(t, batch + (m, n)) if tuple(t.shape[:-2]) != batch else t
    if tuple(rhs.shape[:-2]) != batch:
        rhs = broadcast_to(rhs, batch + tuple(rhs.shape[-2:]))
    cutoff = _EPS64 * max(m, n) if rcond is None else float(rcond)
    x, residuals, rank, s, info = L.lstsq(t, rhs, cutoff)
    _converged(info, "lstsq", "SVD in Linear Least Squares")
    real = _real(result)
    x = narrowed(x, result)
    if vector:
        x = x.reshape(batch + (n,))
    ranks = np.asarray(rank)
    if m <= n or (ranks != n).any():
        residuals = asarray(np.empty((0,), real))
    else:
        residuals = narrowed(residuals, real)
    return x, residuals, (int(ranks) if ranks.ndim == 0 else asarray(ranks)), \
        narrowed(s, real)


# ------------------------------------------------------------------ built from the SVD
_NO_VALUE = object()


@runs_eagerly
def pinv(a, rcond=None, hermitian=False, *, rtol=_NO_VALUE):
    """numpy.linalg.pinv: the Moore-Penrose pseudo-inverse of each matrix, from its SVD;
    singular values at most ``rcond`` (default 1e-15; NumPy 2's ``rtol`` None: max(M, N)
    * eps) times the largest are dropped. The product V diag(1/S) U^H runs on xarr's
    GEMM engine.

    >>> xa.linalg.pinv(xa.asarray([[2.0, 0.0], [0.0, 0.0]]))    # [[0.5, 0], [0, 0]]
    """
    t, result = matrix_operand(a, "pinv", square=hermitian)
    t = eager_operand(t, "pinv")
    m, n = t.shape[-2:]
    if rcond is None:
        if rtol is _NO_VALUE:
            rcond = 1e-15
        elif rtol is None:
            rcond = max(m, n) * float(np.finfo(_real(result)).eps)
        else:
            rcond = rtol
    elif rtol is not _NO_VALUE:
        raise ValueError("linalg.pinv: `rtol` and `rcond` can't be both set.")
    if m == 0 or n == 0:
        return asarray(np.empty(tuple(t.shape[:-2]) + (n, m), result))
    conj = U.conjugate(t) if result.kind == "c" else t
    u, s, vh = svd(conj, full_matrices=False, hermitian=hermitian)
    sv = np.asarray(s, dtype=np.float64)
    cutoff = np.asarray(rcond, dtype=np.float64)[..., None] * sv.max(axis=-1, keepdims=True)
    large = sv > cutoff
    inv_s = np.divide(1.0, sv, out=np.zeros_like(sv), where=large)
    scaled = U.multiply(asarray(inv_s.astype(_real(result)))[..., None],
                        u.swapaxes(-1, -2))
    return narrowed(matmul(vh.swapaxes(-1, -2), scaled), result)


@runs_eagerly
def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):  # noqa: N803
    """numpy.linalg.matrix_rank: the number of singular values above ``tol`` (default
    S.max() * max(M, N) * eps, or S.max() * ``rtol``); a vector or scalar has rank 1
    unless all zero."""
    t = A if isinstance(A, (Tensor, Traced)) else asarray(A)
    t = eager_operand(t, "matrix_rank")
    if tol is not None and rtol is not None:
        raise ValueError("linalg.matrix_rank: `tol` and `rtol` can't be both set.")
    if t.ndim < 2:
        return int(bool(U.not_equal(t, 0).any()))
    s = np.asarray(svd(t, compute_uv=False, hermitian=hermitian))
    if tol is None:
        if rtol is None:
            rtol = max(t.shape[-2:]) * np.finfo(s.dtype).eps
        else:
            rtol = np.asarray(rtol)[..., None]
        tol = s.max(axis=-1, keepdims=True, initial=0) * rtol
    else:
        tol = np.asarray(tol)[..., None]
    ranks = np.count_nonzero(s > tol, axis=-1)
    return int(ranks) if ranks.ndim == 0 else asarray(ranks)


@runs_eagerly
def cond(x, p=None):
    """numpy.linalg.cond: the condition number of each matrix in the ``p`` norm: None / 2
    / -2 from its singular values (largest / smallest, or the reverse), 'fro', 'nuc', 1,
    -1, inf, -inf as norm(x, p) * norm(inv(x), p) of square x. A singular matrix gives
    inf (NaN only where x holds NaN)."""
    t, result = matrix_operand(x, "cond", square=p not in (None, 2, -2))
    t = eager_operand(t, "cond")
    if t.size == 0 and 0 in t.shape[-2:]:
        raise LinAlgError("linalg.cond: cond is not defined on empty arrays")
    real = _real(result)
    with np.errstate(all="ignore"):
        if p is None or (not isinstance(p, str) and p in (2, -2)):
            s = np.asarray(svd(t, compute_uv=False)).astype(real)
            r = s[..., -1] / s[..., 0] if p == -2 else s[..., 0] / s[..., -1]
        else:
            wide = t.astype(np.complex128 if result.kind == "c" else np.float64)
            lu, piv, _ = _lin.lu_factor(wide)          # a singular matrix: inf / NaN
            eye = np.broadcast_to(np.eye(t.shape[-1], dtype=np.dtype(lu.dtype)), t.shape)
            inverse = _lin.lu_solve(lu, piv, asarray(np.ascontiguousarray(eye)))
            r = (np.asarray(norm(wide, p, axis=(-2, -1))) *
                 np.asarray(norm(inverse, p, axis=(-2, -1)))).astype(real)
    r = np.asarray(r)
    nan = np.isnan(r)
    if nan.any():
        nan &= ~np.isnan(np.asarray(t)).any(axis=(-2, -1))
        r = np.where(nan, np.inf, r).astype(real)
    return asarray(r)
