// Binary search of many keys in one sorted row: NumPy's searchsorted, and interp on it.
//
// searchsorted_run(dtype, sorted, n, keys, ndim, dims, key_strides, right, out)
//   sorted: n contiguous elements in ascending order under NumPy's sort order (NaN last;
//   complex lexicographic, NaN parts last). keys: a strided tensor (dims, strides in BYTES,
//   any sign) of the same dtype. out: int64, C-contiguous over dims.
//   right == 0: out = the first i with !(sorted[i] < key)   (side='left', lower bound);
//   right == 1: out = the first i with key < sorted[i]      (side='right', upper bound).
// Worked example: sorted [1, 2, 2, 3], keys [2, 0, 9] -> left [1, 0, 4], right [3, 0, 4].
// The searches run branch-free in groups of kSearchGroup keys advancing in lockstep, so
// each level's loads from the sorted row are independent and overlap in the memory
// system (a lone binary search of a row far bigger than the caches waits on one miss per
// level). Threads split the keys. Returns 0, or 1 for an unknown dtype.
#pragma once

#include <cstdint>

namespace xarr {

int searchsorted_run(int dtype, const char* sorted, int64_t n, const char* keys, int ndim,
                     const int64_t* dims, const int64_t* key_strides, int right,
                     int64_t* out);

// interp_run(xp, n, fp, complex_fp, x, ndim, dims, x_strides, left, right, out)
//   NumPy's interp: xp n >= 1 ascending float64 sample points, fp n contiguous float64
//   (complex_fp 0) or complex128 (1) values; x a strided float64 tensor; out contiguous,
//   fp's dtype, x's shape. left/right: {re, im} below xp[0] / above xp[n-1]. Per x:
//   NaN -> NaN (n == 1: fp[0]); x > xp[n-1] -> right; x < xp[0] -> left; x == xp[j] ->
//   fp[j]; else s * (x - xp[j]) + fp[j], s = (fp[j+1] - fp[j]) / (xp[j+1] - xp[j])
//   (complex parts: times 1 / dx), retried from xp[j+1] where NaN, then fp[j] where
//   fp[j] == fp[j+1]. NumPy's operations in NumPy's order, so its bits.
// Worked example: xp [0, 1, 3], fp [0, 10, 30], x [0.5, 2.5, 9] -> [5, 25, 30].
void interp_run(const double* xp, int64_t n, const char* fp, int complex_fp, const char* x,
                int ndim, const int64_t* dims, const int64_t* x_strides, const double* left,
                const double* right, char* out);

}  // namespace xarr
