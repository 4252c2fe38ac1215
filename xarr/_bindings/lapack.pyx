# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""The LAPACK-backed factorizations (csrc/kernels/linalg/lapack.h): SVD, eigh, eig, QR
and least squares over contiguous batches of row-major float64 / complex128 matrices, on a
LAPACK library loaded at run time (xarr/_ops/lapack.py finds it). The ops are
xarr/_ops/lapack.py's; this module checks every buffer's dtype, size and contiguity (a
wrong buffer raises, never reaches LAPACK) and releases the GIL."""

from libc.stdint cimport int64_t
from libcpp cimport bool as cbool
from libcpp.string cimport string

from xarr._tensor cimport F_C_CONTIG, F_TILED, Tensor

import numpy as np

from xarr._dtypes import CODE_OF, DTYPES

cdef extern from "kernels/linalg/lapack.h" namespace "xarr" nogil:
    string lapack_load(const string& path, const string& prefix,
                       const string& suffix) except +
    cbool lapack_loaded()
    int svd_batched(int dtype, int64_t batch, int64_t m, int64_t n, void* a, double* s,
                    void* u, void* vh, cbool full, int64_t* info) except +
    int eigh_batched(int dtype, int64_t batch, int64_t n, void* a, double* w, cbool vectors,
                     cbool lower, int64_t* info) except +
    int eig_batched(int dtype, int64_t batch, int64_t n, void* a, void* w, void* v,
                    int64_t* info) except +
    int qr_batched(int dtype, int64_t batch, int64_t m, int64_t n, const void* a, void* h,
                   void* tau, void* q, int64_t qcols, int64_t* info) except +
    int lstsq_batched(int dtype, int64_t batch, int64_t m, int64_t n, int64_t nrhs,
                      const void* a, const void* b, void* x, double* s, int64_t* rank,
                      double* residuals, double rcond, int64_t* info) except +

cdef int _F64 = CODE_OF[np.dtype(np.float64)]
cdef int _C128 = CODE_OF[np.dtype(np.complex128)]
cdef int _S64 = CODE_OF[np.dtype(np.int64)]


def load(str path, str prefix, str suffix):
    """Loads the LAPACK at ``path`` (routines named prefix + LAPACKE name + suffix); raises
    OSError saying what failed."""
    cdef string why = lapack_load(path.encode(), prefix.encode(), suffix.encode())
    if why.size():
        raise OSError(f"xa.linalg: cannot use LAPACK: {why.decode(errors='replace')}")


def loaded():
    return lapack_loaded()


cdef void _buffer(Tensor t, int dtype, int64_t size, str fn, str what) except *:
    if not (t._flags & F_C_CONTIG) or (t._flags & F_TILED) or t._dtype != dtype \
            or t._size != size:
        raise ValueError(f"linalg.{fn}: {what} must be a row-major {DTYPES[dtype]} buffer "
                         f"of {size} elements, got {DTYPES[t._dtype]} shape {t.shape}")


cdef void* _optional(object t, int dtype, int64_t size, str fn, str what) except? NULL:
    if t is None:
        return NULL
    if not isinstance(t, Tensor):
        raise TypeError(f"linalg.{fn}: {what} must be a Tensor or None, got "
                        f"{type(t).__name__}")
    _buffer(<Tensor> t, dtype, size, fn, what)
    return (<Tensor> t)._data


cdef int _matrix_dtype(Tensor a, str fn) except -1:
    if a._dtype != _F64 and a._dtype != _C128:
        raise TypeError(f"linalg.{fn}: LAPACK runs in float64 or complex128, got "
                        f"{DTYPES[a._dtype]}")
    return a._dtype


cdef void _rc(int rc, str fn) except *:
    if rc == -2:
        raise RuntimeError(f"linalg.{fn}: no LAPACK is loaded")
    if rc:
        raise TypeError(f"linalg.{fn}: no LAPACK kernel for this dtype")


def svd_(Tensor a, int64_t batch, int64_t m, int64_t n, Tensor s, u, vh, bint full,
         Tensor info):
    """a (batch x m x n, destroyed) -> s (batch x k), u / vh (or None) as lapack.h."""
    cdef int dt = _matrix_dtype(a, "svd")
    cdef int64_t k = min(m, n)
    _buffer(a, dt, batch * m * n, "svd", "a")
    _buffer(s, _F64, batch * k, "svd", "s")
    _buffer(info, _S64, batch, "svd", "info")
    if (u is None) != (vh is None):
        raise ValueError("linalg.svd: u and vh are both given or both None")
    cdef void* up = _optional(u, dt, batch * m * (m if full else k), "svd", "u")
    cdef void* vp = _optional(vh, dt, batch * n * (n if full else k), "svd", "vh")
    cdef int rc
    with nogil:
        rc = svd_batched(dt, batch, m, n, a._data, <double*> s._data, up, vp, full,
                         <int64_t*> info._data)
    _rc(rc, "svd")


def eigh_(Tensor a, int64_t batch, int64_t n, Tensor w, bint vectors, bint lower,
          Tensor info):
    """a (batch x n x n) -> w (batch x n, ascending); a becomes the eigenvectors."""
    cdef int dt = _matrix_dtype(a, "eigh")
    _buffer(a, dt, batch * n * n, "eigh", "a")
    _buffer(w, _F64, batch * n, "eigh", "w")
    _buffer(info, _S64, batch, "eigh", "info")
    cdef int rc
    with nogil:
        rc = eigh_batched(dt, batch, n, a._data, <double*> w._data, vectors, lower,
                          <int64_t*> info._data)
    _rc(rc, "eigh")


def eig_(Tensor a, int64_t batch, int64_t n, Tensor w, v, Tensor info):
    """a (batch x n x n, destroyed) -> w (complex128 batch x n), v (or None)."""
    cdef int dt = _matrix_dtype(a, "eig")
    _buffer(a, dt, batch * n * n, "eig", "a")
    _buffer(w, _C128, batch * n, "eig", "w")
    _buffer(info, _S64, batch, "eig", "info")
    cdef void* vp = _optional(v, _C128, batch * n * n, "eig", "v")
    cdef int rc
    with nogil:
        rc = eig_batched(dt, batch, n, a._data, w._data, vp, <int64_t*> info._data)
    _rc(rc, "eig")


def qr_(Tensor a, int64_t batch, int64_t m, int64_t n, Tensor h, Tensor tau, q,
        int64_t qcols, Tensor info):
    """a (batch x m x n, read) -> h (batch x n x m), tau (batch x k), q (batch x m x qcols,
    or None)."""
    cdef int dt = _matrix_dtype(a, "qr")
    cdef int64_t k = min(m, n)
    _buffer(a, dt, batch * m * n, "qr", "a")
    _buffer(h, dt, batch * m * n, "qr", "h")
    _buffer(tau, dt, batch * k, "qr", "tau")
    _buffer(info, _S64, batch, "qr", "info")
    if q is not None and not (qcols == k or qcols == m):
        raise ValueError(f"linalg.qr: qcols must be {k} or {m}, got {qcols}")
    cdef void* qp = _optional(q, dt, batch * m * qcols, "qr", "q")
    cdef int rc
    with nogil:
        rc = qr_batched(dt, batch, m, n, a._data, h._data, tau._data, qp, qcols,
                        <int64_t*> info._data)
    _rc(rc, "qr")


def lstsq_(Tensor a, Tensor b, int64_t batch, int64_t m, int64_t n, int64_t nrhs,
           Tensor x, Tensor s, Tensor rank, Tensor residuals, double rcond, Tensor info):
    """a (batch x m x n), b (batch x m x nrhs), both read -> x (batch x n x nrhs), s
    (batch x k), rank (batch), residuals (batch x nrhs)."""
    cdef int dt = _matrix_dtype(a, "lstsq")
    _buffer(a, dt, batch * m * n, "lstsq", "a")
    _buffer(b, dt, batch * m * nrhs, "lstsq", "b")
    _buffer(x, dt, batch * n * nrhs, "lstsq", "x")
    _buffer(s, _F64, batch * min(m, n), "lstsq", "s")
    _buffer(rank, _S64, batch, "lstsq", "rank")
    _buffer(residuals, _F64, batch * nrhs, "lstsq", "residuals")
    _buffer(info, _S64, batch, "lstsq", "info")
    cdef int rc
    with nogil:
        rc = lstsq_batched(dt, batch, m, n, nrhs, a._data, b._data, x._data,
                           <double*> s._data, <int64_t*> rank._data,
                           <double*> residuals._data, rcond, <int64_t*> info._data)
    _rc(rc, "lstsq")
