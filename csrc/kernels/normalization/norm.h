// Per-feature sums for batch normalization (seed 004 BatchNormTraining / BatchNormGrad):
// for every index c of dim `feature`, sums over every other dim of a and of a * b,
// accumulated in float64 whatever the dtype, so the statistics batch norm derives from
// them lose nothing to cancellation (var = sum(x x) / m - mean^2, and sum(dy (x - mean)) =
// sum(dy x) - mean sum(dy), are formed in float64 by the caller):
//   out[c] = sum a[..., c, ...],  out[C + c] = sum a[..., c, ...] * b[..., c, ...].
// Worked example: a = b = [[1, 2], [3, 6]] with feature dim 1: out = [4, 8, 10, 40]
// (features 0 and 1: sums 1 + 3 and 2 + 6, sums of squares 1 + 9 and 4 + 36).
// One pass over a and b; f32 / f64. Sums run in a fixed order that depends on neither the
// thread count nor the ISA (8 float64 lanes everywhere, lanes added in order).
#pragma once

#include <cstdint>

#include "core/isa.h"

namespace xarr {

constexpr int kNormMaxDims = 32;

struct FeatureSumsProblem {
  int dtype = 0, ndim = 0, feature = 0;
  const char* a = nullptr;
  const char* b = nullptr;
  int64_t dims[kNormMaxDims] = {};
  int64_t a_stride[kNormMaxDims] = {}, b_stride[kNormMaxDims] = {};   // bytes
  double* out = nullptr;                                               // 2 * dims[feature]
};

// Per ISA: the row kernels (norm_kernels.h compiled with the ISA's flags).
//   run(dtype, a, b, n, s8, q8): adds one contiguous run of n elements into 8-lane partial
//     sums (s8: of a[i], q8: of a[i] b[i]; the caller adds the lanes in order at the end);
//   across(dtype, a, b, C, s, q): s[c] += a[c], q[c] += a[c] b[c] for c < C (one row of
//     a problem whose feature dim is the contiguous one).
struct NormTable {
  void (*run)(int dtype, const char* a, const char* b, int64_t n, double* s8, double* q8) =
      nullptr;
  void (*across)(int dtype, const char* a, const char* b, int64_t c, double* s, double* q) =
      nullptr;
};
XARR_DECLARE_ISA_FILLS(NormTable, fill_norm)

// Returns 0, or 1 for a dtype other than f32 / f64. Threads: get_num_threads().
int feature_sums_run(const FeatureSumsProblem& p);

}  // namespace xarr
