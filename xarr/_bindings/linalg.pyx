# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""The linalg kernels (csrc/kernels/linalg/linalg.h): Cholesky, LU with partial pivoting
and its solve, triangular solves, each in place on a contiguous batch of row-major square
matrices (f32 / f64 / c64 / c128). The ops are xarr/_ops/linalg.py's; this module checks
the buffers and releases the GIL."""

from libc.stdint cimport int64_t, uint8_t

from xarr._tensor cimport F_C_CONTIG, F_TILED, Tensor

from xarr._dtypes import DTYPES

cdef extern from "kernels/linalg/linalg.h" namespace "xarr" nogil:
    int cholesky_batched(int dtype, int64_t batch, int64_t n, void* a,
                         uint8_t* flags) except +
    int lu_batched(int dtype, int64_t batch, int64_t n, void* a, int64_t* piv,
                   uint8_t* flags) except +
    int lu_solve_batched(int dtype, int64_t batch, int64_t n, int64_t nrhs, const void* lu,
                         const int64_t* piv, void* b) except +
    int triangular_solve_batched(int dtype, int64_t batch, int64_t n, int64_t m, int64_t k,
                                 const void* a, void* b, bint left_side, bint lower,
                                 bint transpose, bint conjugate,
                                 bint unit_diagonal) except +


cdef void _dense(Tensor t, str what) except *:
    if not (t._flags & F_C_CONTIG) or (t._flags & F_TILED) or t._ndim < 2:
        raise ValueError(f"linalg.{what}: expected a row-major batch of matrices")


cdef void _rc(int rc, Tensor t, str what) except *:
    if rc:
        raise TypeError(f"linalg.{what}: no kernel for {DTYPES[t._dtype]} (float32, "
                        f"float64, complex64, complex128)")


def cholesky_(Tensor a, Tensor flags):
    """a [..., n, n] <- its lower Cholesky factor in place; flags (uint8, one per matrix)
    1 where a matrix is not positive definite (that matrix becomes NaN)."""
    _dense(a, "cholesky")
    cdef int64_t n = a._dims[a._ndim - 1]
    cdef int64_t batch = a._size // (n * n) if n else 0
    cdef int rc
    with nogil:
        rc = cholesky_batched(a._dtype, batch, n, a._data, <uint8_t*> flags._data)
    _rc(rc, a, "cholesky")


def lu_(Tensor a, Tensor piv, Tensor flags):
    """a [..., n, n] <- L and U of P a = L U in place; piv (int64 [..., n]) the swaps;
    flags 1 where U has a zero pivot."""
    _dense(a, "lu")
    cdef int64_t n = a._dims[a._ndim - 1]
    cdef int64_t batch = a._size // (n * n) if n else 0
    cdef int rc
    with nogil:
        rc = lu_batched(a._dtype, batch, n, a._data, <int64_t*> piv._data,
                        <uint8_t*> flags._data)
    _rc(rc, a, "lu")


def lu_solve_(Tensor lu, Tensor piv, Tensor b):
    """b [..., n, k] <- A^-1 b in place from lu_'s factors."""
    _dense(lu, "solve")
    _dense(b, "solve")
    cdef int64_t n = lu._dims[lu._ndim - 1]
    cdef int64_t k = b._dims[b._ndim - 1]
    cdef int64_t batch = lu._size // (n * n) if n else 0
    cdef int rc
    with nogil:
        rc = lu_solve_batched(lu._dtype, batch, n, k, lu._data, <const int64_t*> piv._data,
                              b._data)
    _rc(rc, lu, "solve")


def triangular_solve_(Tensor a, Tensor b, bint left_side, bint lower, bint transpose,
                      bint conjugate, bint unit_diagonal):
    """b [..., m, k] <- op(a)^-1 b (left_side) or b op(a)^-1 in place."""
    _dense(a, "triangular_solve")
    _dense(b, "triangular_solve")
    cdef int64_t n = a._dims[a._ndim - 1]
    cdef int64_t m = b._dims[b._ndim - 2]
    cdef int64_t k = b._dims[b._ndim - 1]
    cdef int64_t batch = a._size // (n * n) if n else 0
    cdef int rc
    with nogil:
        rc = triangular_solve_batched(a._dtype, batch, n, m, k, a._data, b._data, left_side,
                                      lower, transpose, conjugate, unit_diagonal)
    _rc(rc, a, "triangular_solve")
