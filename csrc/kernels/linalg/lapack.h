// The factorizations xarr does not write itself (SVD, symmetric / Hermitian and general
// eigenproblems, Householder QR, least squares), on a LAPACK loaded at run time: OpenBLAS
// as packaged for NumPy and SciPy (the PyPI wheel scipy-openblas64: ILP64, so 64-bit
// sizes; the Python layer finds the library file and calls lapack_load). Each routine loops
// over `batch` matrices stored back to back (float64 or complex128; xa.linalg computes in
// double as numpy.linalg does) and threads over the batch when the matrices are small; a
// large matrix runs alone on OpenBLAS's own threads.
//
// Layouts: every operand is a contiguous batch of ROW-MAJOR matrices; LAPACK's
// column-major view of a row-major m x n matrix A is A^T, which the routines use where it
// saves a copy (svd) and undo with transposes where it does not. info[b] is LAPACK's info
// of matrix b: 0, or > 0 where the algorithm did not converge (the caller raises
// LinAlgError); a negative info is a bad argument, i.e. a defect here.
//
// Contracts (k = min(m, n)):
//   svd_batched: A (m x n) = U diag(s) Vh, s descending (k values). U (m x k, or m x m
//     when `full`) and Vh (k x n, or n x n) are written when u / vh are non-null. A's
//     buffer is destroyed. Worked example: [[3, 0], [0, -4]] -> s [4, 3].
//   eigh_batched: A (n x n, Hermitian; only the `lower` or upper triangle read) = V
//     diag(w) V^H, w ascending; A's buffer becomes V (columns are the eigenvectors) when
//     `vectors`, else is destroyed. Worked example: [[2, 1], [1, 2]] -> w [1, 3].
//   eig_batched: A (n x n, any) V = V diag(w); w complex (n), V complex n x n (columns the
//     eigenvectors, each of unit 2-norm with its largest component real, LAPACK geev's
//     normalization) when v is non-null. A's buffer is destroyed.
//     Worked example: [[0, -1], [1, 0]] -> w [i, -i].
//   qr_batched: A (m x n) = Q R by Householder reflections (geqrf). h (n x m row-major,
//     i.e. geqrf's column-major output: R in its upper triangle seen as A^T, reflectors
//     below) and tau (k) are written (NumPy's mode='raw'); Q (m x qcols, qcols = k or m,
//     orthonormal columns) when q is non-null.
//   lstsq_batched: x (n x nrhs) minimizing ||A x - B||_2 by SVD (gelsd), singular values
//     s (k) of A, rank[b] the count of s > rcond * s[0] (rcond < 0: machine epsilon). A and
//     B are read only; residuals[b * nrhs + j] = ||A x_j - B_j||^2 when m > n and the rank
//     is n, else 0.
#pragma once

#include <cstdint>
#include <string>

namespace xarr {

// Opens the shared library at `path` and resolves every routine, named prefix + LAPACKE
// name + suffix (scipy-openblas64: "scipy_LAPACKE_dgesdd_work64_"). Returns "" on success,
// else what failed (the library stays unloaded). Safe to call again: a loaded library is
// kept and "" returned.
std::string lapack_load(const std::string& path, const std::string& prefix,
                        const std::string& suffix);
bool lapack_loaded();

// Each returns 0, -1 for a dtype other than f64 / c128, or -2 when no LAPACK is loaded.
int svd_batched(int dtype, int64_t batch, int64_t m, int64_t n, void* a, double* s, void* u,
                void* vh, bool full, int64_t* info);
int eigh_batched(int dtype, int64_t batch, int64_t n, void* a, double* w, bool vectors,
                 bool lower, int64_t* info);
int eig_batched(int dtype, int64_t batch, int64_t n, void* a, void* w, void* v,
                int64_t* info);
int qr_batched(int dtype, int64_t batch, int64_t m, int64_t n, const void* a, void* h,
               void* tau, void* q, int64_t qcols, int64_t* info);
int lstsq_batched(int dtype, int64_t batch, int64_t m, int64_t n, int64_t nrhs,
                  const void* a, const void* b, void* x, double* s, int64_t* rank,
                  double* residuals, double rcond, int64_t* info);

}  // namespace xarr
