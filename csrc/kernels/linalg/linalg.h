// Dense factorizations and solves on batches of square matrices (seed 004 Cholesky and
// TriangularSolve; LU with partial pivoting for xa.linalg's solve / inv / det). Every
// routine works in place on `batch` row-major matrices stored back to back (the binding
// makes that copy, which is also the result), dtype f32 / f64 / c64 / c128, threads over
// the batch (a lone large matrix runs blocked on the GEMM engine where noted).
//
// Contracts (A is n x n, row-major, element (i, j) at a[i * n + j]):
//   cholesky_batched: A = L L^H with L lower; A's lower triangle becomes L and its strict
//     upper triangle 0. Only the lower triangle of A is read. A matrix that is not
//     positive definite (a pivot <= 0) becomes all NaN and its flag is 1; a NaN pivot
//     flows on into the factor (flag 0), as LAPACK's potrf.
//     Worked example: [[4, 2], [2, 5]] -> [[2, 0], [1, 2]].
//   lu_batched: P A = L U, L unit lower and U upper stored together in A; piv[i] is the row
//     swapped with row i at step i (LAPACK's getrf order, 0-based). flag 1 if some U[i, i]
//     is exactly 0 (singular; the factorization still completes).
//     Worked example: [[0, 1], [2, 3]] -> piv [1, 1], A -> [[2, 3], [0, 1]].
//   lu_solve_batched: B (n x nrhs, row-major) <- A^-1 B from lu_batched's output.
//   triangular_solve_batched: B (m x k row-major, m = n for left_side, k = n otherwise)
//     <- op(A)^-1 B (left_side) or B op(A)^-1, op(A) = A, A^T or A^H; only A's `lower` (or
//     upper) triangle is read, its diagonal taken as 1 for unit_diagonal. A zero pivot
//     gives inf / NaN as the arithmetic does (XLA's semantics: no error).
// Large matrices run blocked, the trailing updates as products accumulated in place on the
// GEMM engine (gemm.h, GemmProblem::accumulate), so they thread and use its micro-kernels:
// Cholesky from n = kLinalgBlock (blocks of 2 kLinalgBlock, each panel a triangular solve),
// LU from 2 kLinalgBlock, triangular solves recursively (halves) from 65 rows with at least
// 16 right-hand sides. Smaller ones run unblocked loops whose inner loops are dot products
// or axpys over contiguous rows (LU's solve of one or two right-hand sides up to n = 16:
// plain loops).
#pragma once

#include <cstdint>

namespace xarr {

constexpr int64_t kLinalgBlock = 96;

// Each returns 0, or -1 for a dtype other than f32 / f64 / c64 / c128. flags: one byte per
// matrix (may be null).
int cholesky_batched(int dtype, int64_t batch, int64_t n, void* a, uint8_t* flags);
int lu_batched(int dtype, int64_t batch, int64_t n, void* a, int64_t* piv, uint8_t* flags);
int lu_solve_batched(int dtype, int64_t batch, int64_t n, int64_t nrhs, const void* lu,
                     const int64_t* piv, void* b);
int triangular_solve_batched(int dtype, int64_t batch, int64_t n, int64_t m, int64_t k,
                             const void* a, void* b, bool left_side, bool lower,
                             bool transpose, bool conjugate, bool unit_diagonal);

}  // namespace xarr
