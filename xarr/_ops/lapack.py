"""The factorizations on LAPACK (csrc/kernels/linalg/lapack.h, bound in
xarr/_bindings/lapack.pyx): SVD, Hermitian and general eigenproblems, Householder QR and
least squares over batches of matrices, each taking tensors of any layout and returning
new row-major tensors plus LAPACK's per-matrix ``info`` (a NumPy int64 array; > 0 where an
algorithm did not converge: the callers raise LinAlgError).

The LAPACK is OpenBLAS as packaged for NumPy and SciPy on PyPI (``scipy-openblas64``, a
dependency of xarr: ILP64, so sizes beyond 2**31 elements work), loaded on first use (the
26 MB library is not mapped by ``import xarr``). Everything runs in float64 / complex128
(the operands are converted), as numpy.linalg computes. Worked example::

    s = singular_values(xa.asarray([[3.0, 0.0], [0.0, -4.0]]))[0]      # [4., 3.]
"""

import math
import os

import numpy as np

from xarr import _tensor
from xarr._bindings import lapack as _kernels
from xarr._dtypes import CODE_OF, DTYPES
from xarr._graph.ir import TensorType
from xarr._ops import structural as S
from xarr._ops.linalg import dense_copy, symmetrized

_F64, _C128, _S64 = (CODE_OF[np.dtype(d)] for d in (np.float64, np.complex128, np.int64))


def _load():
    """Loads scipy-openblas64's library once (OSError naming what is missing)."""
    if _kernels.loaded():
        return
    # OpenBLAS's idle workers spin 2^28 cycles (~0.1 s) before they sleep, on a core
    # xarr's own threads need next: a 2048 x 512 QR ran 166 ms instead of 70 (its copies
    # fought the spinner), 8x8 inverses right after an eigh 2x slower. 2^22 cycles
    # (~1.5 ms) keep LAPACK's own calls as fast. The library reads the variable when it
    # loads, which importing scipy_openblas64 already does (its get_openblas_config()
    # opens the library): it is set before that import and removed after; a value the
    # user set is kept (and if something imported the package first, OpenBLAS's default
    # stays).
    mine = "OPENBLAS_THREAD_TIMEOUT" not in os.environ
    if mine:
        os.environ["OPENBLAS_THREAD_TIMEOUT"] = "22"
    try:
        # (imported on first use: the package only locates the library file, and xarr's
        # import should not pay for it)
        import scipy_openblas64 as openblas
        path = os.path.join(openblas.get_lib_dir(), openblas.get_library(True))
        _kernels.load(path, "scipy_", "64_")
    except ImportError:
        raise ImportError("xa.linalg: the LAPACK routines (svd, eigh, eig, qr, lstsq ...) "
                          "need the package scipy-openblas64 (pip install "
                          "scipy-openblas64)") from None
    finally:
        if mine:
            os.environ.pop("OPENBLAS_THREAD_TIMEOUT", None)


def work_code(t):
    """The dtype code LAPACK runs t in: complex128 for complex t, else float64."""
    return _C128 if np.dtype(t.dtype).kind == "c" else _F64


def _prepared(x):
    """(row-major float64 / complex128 copy of x, batch dims, batch count): the kernels'
    buffer, destroyed or read by them."""
    _load()
    a = dense_copy(x, work_code(x))
    batch = tuple(a.shape[:-2])
    return a, batch, math.prod(batch)


def _info(count):
    return _tensor.empty((count,), _S64, None, True)


def _checked(info, fn, operand):
    """info as a NumPy array. A negative entry is LAPACK rejecting an argument: for a
    matrix holding NaN or inf (gesdd returns -4 for NaN) it becomes 1, "did not converge",
    which numpy.linalg raises too; otherwise it is a defect in xarr and raises
    RuntimeError (the number is LAPACKE's, one more than LAPACK's: the layout comes
    first)."""
    info = np.array(info)
    bad = info < 0
    if bad.any():
        values = np.asarray(operand).reshape((info.size, -1))
        finite = np.isfinite(values).all(axis=1)
        if (bad & finite).any():
            raise RuntimeError(f"linalg.{fn}: LAPACK rejected argument "
                               f"{-int(info[bad & finite][0])} (an xarr defect; please "
                               f"report it)")
        info[bad] = 1
    return info


def svd(x, full_matrices=True, compute_uv=True):
    """(u or None, s, vh or None, info) of the matrices [..., m, n] of x: x = u diag(s) vh,
    s real and descending (k = min(m, n) values), u [..., m, k] and vh [..., k, n] (m x m
    and n x n with ``full_matrices``). Empty matrices give identity u / vh as NumPy."""
    a, batch, count = _prepared(x)
    m, n = a.shape[-2:]
    k = min(m, n)
    code = CODE_OF[a.dtype]
    s = _tensor.empty(batch + (k,), _F64)
    u = vh = None
    if compute_uv and k == 0 and full_matrices:     # LAPACK is not called: identities
        u, vh = _identity(batch, m, code), _identity(batch, n, code)
    elif compute_uv:
        ur, vr = (m, n) if full_matrices else (k, k)
        u = _tensor.empty(batch + (m, ur), code)
        vh = _tensor.empty(batch + (vr, n), code)
    info = _info(count)
    _kernels.svd_(a, count, m, n, s, u, vh, bool(full_matrices), info)
    return u, s, vh, _checked(info, "svd", x)


def _identity(batch, n, code):
    eye = np.broadcast_to(np.eye(n, dtype=np.dtype(DTYPES[code])), batch + (n, n))
    return _tensor.wrap_numpy(np.ascontiguousarray(eye))


def singular_values(x):
    """(s [..., k] float64 descending, info) of x's matrices."""
    _, s, _, info = svd(x, compute_uv=False)
    return s, info


def eigh(x, lower=True, vectors=True):
    """(w [..., n] float64 ascending, v [..., n, n] or None, info) of the Hermitian
    matrices of x, reading only their ``lower`` (else upper) triangles: x v = v diag(w),
    v's columns orthonormal."""
    a, batch, count = _prepared(x)
    n = a.shape[-1]
    w = _tensor.empty(batch + (n,), _F64)
    info = _info(count)
    _kernels.eigh_(a, count, n, w, bool(vectors), bool(lower), info)
    return w, (a if vectors else None), _checked(info, "eigh", x)


def eig(x, vectors=True):
    """(w [..., n] complex128, v [..., n, n] complex128 or None, info) of x's square
    matrices: x v = v diag(w), each column of v of unit norm (LAPACK geev's order)."""
    a, batch, count = _prepared(x)
    n = a.shape[-1]
    w = _tensor.empty(batch + (n,), _C128)
    v = _tensor.empty(batch + (n, n), _C128) if vectors else None
    info = _info(count)
    _kernels.eig_(a, count, n, w, v, info)
    return w, v, _checked(info, "eig", x)


def qr(x, qcols=None):
    """(h [..., n, m], tau [..., k], q [..., m, qcols] or None, info): x = q r by
    Householder reflections; h holds LAPACK geqrf's column-major output (NumPy's
    mode='raw'), r is h's upper triangle transposed back, ``qcols`` k (reduced) or m
    (complete)."""
    a, batch, count = _prepared(x)
    m, n = a.shape[-2:]
    code = CODE_OF[a.dtype]
    h = _tensor.empty(batch + (n, m), code, None, True)
    tau = _tensor.empty(batch + (min(m, n),), code, None, True)
    q = None if qcols is None else _tensor.empty(batch + (m, qcols), code, None, True)
    info = _info(count)
    _kernels.qr_(a, count, m, n, h, tau, q, 0 if qcols is None else qcols, info)
    return h, tau, q, _checked(info, "qr", x)


def r_factor(h, rows, code=None):
    """R [..., rows, n] of qr's h (its upper triangle transposed back; rows k or m), a new
    row-major tensor (in dtype ``code``)."""
    r = dense_copy(h.swapaxes(-1, -2)[..., :rows, :], code)
    view = np.asarray(r)
    view[..., ~np.triu(np.ones(view.shape[-2:], bool))] = 0
    return r


def lstsq(a, b, rcond):
    """(x [..., n, k], residuals [..., k] float64, rank int64 [...], s [..., min(m, n)],
    info) minimizing ||a x - b|| for a [..., m, n], b [..., m, k] of a's batch dims
    (gelsd: singular values at most rcond * s[0] count as zero)."""
    code = _C128 if _C128 in (work_code(a), work_code(b)) else _F64
    _load()
    am, bm = dense_copy(a, code), dense_copy(b, code)
    batch = tuple(am.shape[:-2])
    count = math.prod(batch)
    m, n = am.shape[-2:]
    k = bm.shape[-1]
    x = _tensor.empty(batch + (n, k), code)
    s = _tensor.empty(batch + (min(m, n),), _F64)
    rank = _tensor.empty(batch, _S64)
    residuals = _tensor.empty(batch + (k,), _F64)
    info = _info(count)
    _kernels.lstsq_(am, bm, count, m, n, k, x, s, rank, residuals, float(rcond), info)
    return x, residuals, rank, s, _checked(info, "lstsq", am)


# ----------------------------------------------------- xa.lax.linalg: jax.lax.linalg's ops
# jax.lax.linalg's svd, eigh, qr and eig as graph ops (eager, xa.jit, xa.lazy), on the
# functions above. As in jax: results keep the operand's dtype (real parts real), and a
# matrix whose algorithm fails gives NaN (no exception inside graphs, SPEC.md).
_LAX_CODES = {CODE_OF[np.dtype(d)]: CODE_OF[np.dtype(r)] for d, r in (
    (np.float32, np.float32), (np.float64, np.float64), (np.complex64, np.float32),
    (np.complex128, np.float64))}


def _lax_matrix(t, fn, square):
    if len(t.dims) < 2 or (square and t.dims[-1] != t.dims[-2]):
        what = "square matrices [..., n, n]" if square else "matrices [..., m, n]"
        raise ValueError(f"lax.linalg.{fn}: x must be a batch of {what}, got shape {t.dims}")
    if t.code not in _LAX_CODES:
        raise TypeError(f"lax.linalg.{fn}: x must be float32, float64, complex64 or "
                        f"complex128, got {DTYPES[t.code]}")
    return t.dims[:-2], t.dims[-2], t.dims[-1]


def _nan_where_failed(t, info, code):
    """t in dtype ``code``, its matrices NaN where info != 0."""
    out = t if CODE_OF[t.dtype] == code else dense_copy(t, code)
    failed = np.asarray(info).reshape(-1) != 0
    if failed.any():
        view = np.asarray(out).reshape((failed.size, -1))
        view[failed] = np.nan
    return out


def _svd_rule(types, full_matrices, compute_uv):
    (t,) = types
    batch, m, n = _lax_matrix(t, "svd", False)
    k = min(m, n)
    s = TensorType(_LAX_CODES[t.code], batch + (k,), None)
    if not compute_uv:
        return s
    ucols, vrows = (m, n) if full_matrices else (k, k)
    return (TensorType(t.code, batch + (m, ucols), None), s,
            TensorType(t.code, batch + (vrows, n), None))


def _svd_impl(x, full_matrices, compute_uv):
    u, s, vh, info = svd(x, full_matrices, compute_uv)
    code = CODE_OF[x.dtype]
    s = _nan_where_failed(s, info, _LAX_CODES[code])
    if not compute_uv:
        return s
    return _nan_where_failed(u, info, code), s, _nan_where_failed(vh, info, code)


def _eigh_rule(types, lower, symmetrize_input):
    (t,) = types
    batch, n, _ = _lax_matrix(t, "eigh", True)
    return (TensorType(t.code, batch + (n, n), None),
            TensorType(_LAX_CODES[t.code], batch + (n,), None))


def _eigh_impl(x, lower, symmetrize_input):
    w, v, info = eigh(symmetrized(x) if symmetrize_input else x, lower, True)
    code = CODE_OF[x.dtype]
    return _nan_where_failed(v, info, code), _nan_where_failed(w, info, _LAX_CODES[code])


def _qr_rule(types, full_matrices):
    (t,) = types
    batch, m, n = _lax_matrix(t, "qr", False)
    rows = m if full_matrices else min(m, n)
    return (TensorType(t.code, batch + (m, rows), None),
            TensorType(t.code, batch + (rows, n), None))


def _qr_impl(x, full_matrices):
    m, n = x.shape[-2:]
    rows = m if full_matrices else min(m, n)
    h, _, q, _ = qr(x, rows)
    code = CODE_OF[x.dtype]
    return dense_copy(q, code), r_factor(h, rows, code)


def _eig_rule(types, compute_left_eigenvectors, compute_right_eigenvectors):
    (t,) = types
    batch, n, _ = _lax_matrix(t, "eig", True)
    if compute_left_eigenvectors:
        raise NotImplementedError("lax.linalg.eig: compute_left_eigenvectors=True is not "
                                  "supported (pass compute_left_eigenvectors=False)")
    wide = _C128 if t.code in (_C128, _F64) else CODE_OF[np.dtype(np.complex64)]
    w = TensorType(wide, batch + (n,), None)
    if not compute_right_eigenvectors:
        return (w,)
    return (w, TensorType(wide, batch + (n, n), None))


def _eig_impl(x, compute_left_eigenvectors, compute_right_eigenvectors):
    w, v, info = eig(x, compute_right_eigenvectors)
    single = CODE_OF[x.dtype] not in (_C128, _F64)
    code = CODE_OF[np.dtype(np.complex64)] if single else _C128
    w = _nan_where_failed(w, info, code)
    if not compute_right_eigenvectors:
        return (w,)
    return w, _nan_where_failed(v, info, code)


def _tuple_op(name, rule, impl, x, attrs):
    x = S.as_operand(x)
    rtype = rule([S.type_of(x, f"lax.linalg.{name}")], **attrs)
    out = S.record_tuple(name, [x], rtype, attrs)
    return impl(_tensor.strided(x), **attrs) if out is None else out


def lax_svd(x, *, full_matrices=True, compute_uv=True):
    """jax.lax.linalg.svd: (u, s, vh) with x = u diag(s) vh, s real and descending
    (u [..., m, m] and vh [..., n, n], or [..., m, k] and [..., k, n] without
    ``full_matrices``); s alone without ``compute_uv``."""
    attrs = {"full_matrices": bool(full_matrices), "compute_uv": bool(compute_uv)}
    return _tuple_op("svd", _svd_rule, _svd_impl, x, attrs)


def lax_eigh(x, *, lower=True, symmetrize_input=True):
    """jax.lax.linalg.eigh: (v, w), eigenvectors (columns) and ascending eigenvalues of
    each Hermitian matrix, of (x + x^H) / 2 with ``symmetrize_input`` (else only the
    ``lower`` or upper triangle is read)."""
    attrs = {"lower": bool(lower), "symmetrize_input": bool(symmetrize_input)}
    return _tuple_op("eigh", _eigh_rule, _eigh_impl, x, attrs)


def lax_qr(x, *, full_matrices=True):
    """jax.lax.linalg.qr: (q, r), x = q r with q's columns orthonormal and r upper
    triangular; q [..., m, m] and r [..., m, n] with ``full_matrices`` (jax's default),
    else [..., m, k] and [..., k, n]."""
    return _tuple_op("qr", _qr_rule, _qr_impl, x, {"full_matrices": bool(full_matrices)})


def lax_eig(x, *, compute_left_eigenvectors=False, compute_right_eigenvectors=True):
    """jax.lax.linalg.eig: [w] or [w, vr], complex eigenvalues and right eigenvectors (unit
    columns) of each square matrix. Left eigenvectors are not computed (xarr's default is
    False where jax's is True; True raises NotImplementedError)."""
    attrs = {"compute_left_eigenvectors": bool(compute_left_eigenvectors),
             "compute_right_eigenvectors": bool(compute_right_eigenvectors)}
    return list(_tuple_op("eig", _eig_rule, _eig_impl, x, attrs))


def _flags_text(*names):
    return lambda attrs: [f"{n}={str(attrs[n]).lower()}" for n in names]


S.defop("svd", _svd_rule, _svd_impl, text=_flags_text("full_matrices", "compute_uv"))
S.defop("eigh", _eigh_rule, _eigh_impl, text=_flags_text("lower", "symmetrize_input"))
S.defop("qr", _qr_rule, _qr_impl, text=_flags_text("full_matrices"))
S.defop("eig", _eig_rule, _eig_impl, text=_flags_text("compute_left_eigenvectors",
                                                      "compute_right_eigenvectors"))
