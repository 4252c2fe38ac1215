// The normalization family's driver (norm.h): orders the dims, splits features (or fixed
// blocks of rows) over threads and runs the active ISA's row kernels.
#include "kernels/normalization/norm.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "core/dtype.h"
#include "core/threading.h"

namespace xarr {

namespace {

const NormTable& norm_table() {
  static const KernelTables<NormTable> t(XARR_ISA_FILLS(NormTable, fill_norm));
  return t.active();
}

// body(offset in a, offset in b) for the linear indices [start, start + count) of n dims
// (sizes, byte strides), in row-major order.
template <class Body>
void walk(int n, const int64_t* size, const int64_t* sa, const int64_t* sb, int64_t start,
          int64_t count, Body body) {
  int64_t idx[kNormMaxDims] = {}, oa = 0, ob = 0, rest = start;
  for (int d = n - 1; d >= 0; --d) {
    idx[d] = rest % size[d];
    rest /= size[d];
    oa += idx[d] * sa[d];
    ob += idx[d] * sb[d];
  }
  for (int64_t i = 0; i < count; ++i) {
    body(oa, ob);
    for (int d = n - 1; d >= 0; --d) {
      oa += sa[d];
      ob += sb[d];
      if (++idx[d] < size[d]) break;
      oa -= size[d] * sa[d];
      ob -= size[d] * sb[d];
      idx[d] = 0;
    }
  }
}

}  // namespace

int feature_sums_run(const FeatureSumsProblem& p) {
  if (p.dtype != kF32 && p.dtype != kF64) return 1;
  const int64_t es = p.dtype == kF64 ? 8 : 4;
  const int f = p.feature;
  const int64_t C = p.dims[f];
  double* s = p.out;
  double* q = p.out + C;
  std::fill(p.out, p.out + 2 * C, 0.0);
  int n = 0;   // the other dims of more than one element, outer (larger a stride) first
  int64_t m = 1, size[kNormMaxDims], sa[kNormMaxDims], sb[kNormMaxDims];
  int other[kNormMaxDims];
  for (int d = 0; d < p.ndim; ++d) {
    if (d == f) continue;
    m *= p.dims[d];
    if (p.dims[d] != 1) other[n++] = d;
  }
  if (C == 0 || m == 0) return 0;
  std::stable_sort(other, other + n, [&](int x, int y) {
    return std::llabs(p.a_stride[x]) > std::llabs(p.a_stride[y]);
  });
  int merged = 0;   // neighbours that are one dim in a and b (H and W of NCHW) merged
  for (int j = 0; j < n; ++j) {
    const int d = other[j];
    if (merged > 0 && sa[merged - 1] == p.a_stride[d] * p.dims[d] &&
        sb[merged - 1] == p.b_stride[d] * p.dims[d]) {
      size[merged - 1] *= p.dims[d];
      sa[merged - 1] = p.a_stride[d];
      sb[merged - 1] = p.b_stride[d];
      continue;
    }
    size[merged] = p.dims[d];
    sa[merged] = p.a_stride[d];
    sb[merged] = p.b_stride[d];
    ++merged;
  }
  n = merged;
  const NormTable& t = norm_table();
  const int nt = C * m < kParallelMinElements ? 1 : get_num_threads();
  const bool across = p.a_stride[f] == es && p.b_stride[f] == es && C > 1 &&
                      (n == 0 || std::llabs(sa[n - 1]) > es);
  if (!across) {
    // each feature's elements in runs along the innermost other dim (contiguous in a and
    // b), or one by one; threads take features
    const bool unit = n > 0 && sa[n - 1] == es && sb[n - 1] == es;
    const int walked = unit ? n - 1 : n;
    const int64_t run = unit ? size[n - 1] : 1;
    int64_t runs = 1;
    for (int j = 0; j < walked; ++j) runs *= size[j];
    split_items(nt, C, [&](int64_t lo, int64_t hi) {
      for (int64_t c = lo; c < hi; ++c) {
        const char* a = p.a + c * p.a_stride[f];
        const char* b = p.b + c * p.b_stride[f];
        alignas(64) double s8[8] = {}, q8[8] = {};
        walk(walked, size, sa, sb, 0, runs, [&](int64_t oa, int64_t ob) {
          t.run(p.dtype, a + oa, b + ob, run, s8, q8);
        });
        for (int l = 0; l < 8; ++l) {
          s[c] += s8[l];
          q[c] += q8[l];
        }
      }
    });
    return 0;
  }
  // the feature dim contiguous (NHWC): rows of C features added into per-block partial
  // sums, blocks a fixed split of the rows (so the sum order is the thread count's as
  // much as the ISA's: neither), the blocks' sums then added in order
  const int64_t blocks = std::min<int64_t>(m, 64);
  std::vector<double> part(static_cast<size_t>(blocks * 2 * C), 0.0);
  split_items(nt, blocks, [&](int64_t lo, int64_t hi) {
    for (int64_t k = lo; k < hi; ++k) {
      const int64_t r0 = m * k / blocks, r1 = m * (k + 1) / blocks;
      double* ps = part.data() + k * 2 * C;
      walk(n, size, sa, sb, r0, r1 - r0, [&](int64_t oa, int64_t ob) {
        t.across(p.dtype, p.a + oa, p.b + ob, C, ps, ps + C);
      });
    }
  });
  for (int64_t k = 0; k < blocks; ++k)
    for (int64_t c = 0; c < C; ++c) {
      s[c] += part[k * 2 * C + c];
      q[c] += part[k * 2 * C + C + c];
    }
  return 0;
}

}  // namespace xarr
