// Cumulative (inclusive) scans along one dim: cumsum, cumprod, cummax, cummin.
//
// scan_run(op, dtype, src, ndim, dims, src_strides, axis, dst, dst_strides)
//   src/dst: first elements; dims: the shape (the same for both); strides in BYTES, any
//   sign and order; axis: the scanned dim. dst[..., k, ...] = src[..., 0, ...] op ... op
//   src[..., k, ...], accumulated in order (NumPy's accumulate: each partial result is
//   rounded to the dtype, so f16/bf16 round at every step like NumPy's float16 cumsum).
//   MAX/MIN propagate NaN (once a NaN is seen, the rest of the line is NaN).
// Worked example: cumsum of [[1, 2, 3], [4, 5, 6]] along axis 0 -> [[1, 2, 3], [5, 7, 9]]
// (the lines are the columns; they are processed as whole contiguous rows, so the inner
// loop is a vector add of row k-1's result and row k).
// Returns 0, or 1 when the op is not defined for the dtype (max/min of complex).
// src and dst may be the same memory (in-place) but must not otherwise overlap.
#pragma once

#include <cstdint>

namespace xarr {

enum ScanOp { kScanSum = 0, kScanProd = 1, kScanMax = 2, kScanMin = 3 };

int scan_run(int op, int dtype, const char* src, int ndim, const int64_t* dims,
             const int64_t* src_strides, int axis, char* dst, const int64_t* dst_strides);

}  // namespace xarr
