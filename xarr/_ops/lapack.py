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
from xarr._dtypes import CODE_OF
from xarr._ops.linalg import dense_copy

_F64, _C128, _S64 = (CODE_OF[np.dtype(d)] for d in (np.float64, np.complex128, np.int64))


def _load():
    """Loads scipy-openblas64's library once (OSError naming what is missing)."""
    if _kernels.loaded():
        return
    try:
        # (imported on first use: the package only locates the library file, and xarr's
        # import should not pay for it)
        import scipy_openblas64 as openblas
    except ImportError:
        raise ImportError("xa.linalg: the LAPACK routines (svd, eigh, eig, qr, lstsq ...) "
                          "need the package scipy-openblas64 (pip install "
                          "scipy-openblas64)") from None
    path = os.path.join(openblas.get_lib_dir(), openblas.get_library(True))
    _kernels.load(path, "scipy_", "64_")


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
    matrix holding NaN or inf (gesdd and gelsd refuse those) it becomes 1, "did not
    converge", which numpy.linalg raises too; otherwise it is a defect in xarr and raises
    RuntimeError."""
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
    eye = np.broadcast_to(np.eye(n, dtype=np.dtype(_dtype_of(code))), batch + (n, n))
    return _tensor.wrap_numpy(np.ascontiguousarray(eye))


def _dtype_of(code):
    return np.complex128 if code == _C128 else np.float64


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
