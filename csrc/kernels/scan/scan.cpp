#include "kernels/scan/scan.h"

#include <cmath>
#include <cstdlib>
#include <complex>
#include <vector>

#include "core/dtype.h"
#include "core/threading.h"

namespace xarr {

namespace {

template <class C> inline bool is_nan_v(C v) {
  if constexpr (std::is_floating_point_v<C>) return std::isnan(v);
  return false;
}

template <class T, int OP> inline typename TypeInfo<T>::compute combine(
    typename TypeInfo<T>::compute a, typename TypeInfo<T>::compute b) {
  using C = typename TypeInfo<T>::compute;
  if constexpr (OP == kScanSum) {
    if constexpr (std::is_same_v<T, bool>) return a || b;
    else return static_cast<C>(a + b);
  } else if constexpr (OP == kScanProd) {
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else return static_cast<C>(a * b);
  } else if constexpr (OP == kScanMax) {
    if (is_nan_v(a) || is_nan_v(b)) return is_nan_v(a) ? a : b;
    return a < b ? b : a;
  } else {
    if (is_nan_v(a) || is_nan_v(b)) return is_nan_v(a) ? a : b;
    return b < a ? b : a;
  }
}

// One group of `lines` lines along the axis: line j starts at src + j * s_in (dst + j *
// d_in); consecutive axis positions are s_ax / d_ax bytes apart. Processed row by row over
// the axis so the inner loop runs across lines (contiguous when s_in == sizeof(T)).
template <class T, int OP>
void scan_lines(const char* src, int64_t s_in, int64_t s_ax, char* dst, int64_t d_in,
                int64_t d_ax, int64_t lines, int64_t n) {
  using C = typename TypeInfo<T>::compute;
  if (n == 0) return;
  if (lines == 1) {
    // One line along the axis: the running value stays in a register (read back from
    // dst, every step waited for a store to forward: 14 cycles an element on Zen 3,
    // against the add's latency now). The same operations in the same order: in-order
    // sums give NumPy's bits, which a reassociated (blocked or parallel) scan would not.
    // (acc holds the stored value: f16/bf16 round to T at each step, as before.)
    T acc = *reinterpret_cast<const T*>(src);
    *reinterpret_cast<T*>(dst) = acc;
    for (int64_t k = 1; k < n; ++k) {
      acc = store<T>(combine<T, OP>(load(acc), load(*reinterpret_cast<const T*>(src + k * s_ax))));
      *reinterpret_cast<T*>(dst + k * d_ax) = acc;
    }
    return;
  }
  for (int64_t j = 0; j < lines; ++j)
    *reinterpret_cast<T*>(dst + j * d_in) = *reinterpret_cast<const T*>(src + j * s_in);
  for (int64_t k = 1; k < n; ++k) {
    const char* s = src + k * s_ax;
    const char* prev = dst + (k - 1) * d_ax;
    char* d = dst + k * d_ax;
    for (int64_t j = 0; j < lines; ++j) {
      const C a = load(*reinterpret_cast<const T*>(prev + j * d_in));
      const C b = load(*reinterpret_cast<const T*>(s + j * s_in));
      *reinterpret_cast<T*>(d + j * d_in) = store<T>(combine<T, OP>(a, b));
    }
  }
}

template <class T, int OP>
void scan_typed(const char* src, int ndim, const int64_t* dims, const int64_t* ss, int axis,
                char* dst, const int64_t* ds) {
  // The inner (vectorized) dim: the non-axis dim with the smallest output stride - unless
  // the scanned axis itself is the most contiguous one: then every line is scanned on its
  // own, sequentially along contiguous memory (lines split over threads).
  int inner = -1;
  for (int d = 0; d < ndim; ++d) {
    if (d == axis || dims[d] <= 1) continue;
    if (inner < 0 || std::llabs(ds[d]) < std::llabs(ds[inner])) inner = d;
  }
  if (inner >= 0 && std::llabs(ds[axis]) < std::llabs(ds[inner])) inner = -1;
  std::vector<int> outer;
  int64_t n_outer = 1;
  for (int d = 0; d < ndim; ++d)
    if (d != axis && d != inner) {
      outer.push_back(d);
      n_outer *= dims[d];
    }
  const int64_t lines = inner >= 0 ? dims[inner] : 1;
  const int64_t s_in = inner >= 0 ? ss[inner] : 0, d_in = inner >= 0 ? ds[inner] : 0;
  const int64_t n = dims[axis];
  const int64_t work = n_outer * lines * n;
  const int no = static_cast<int>(outer.size());
  auto group = [&](int64_t o) {
    int64_t rem = o, so = 0, dof = 0;
    for (int k = no - 1; k >= 0; --k) {
      const int d = outer[k];
      const int64_t i = rem % dims[d];
      rem /= dims[d];
      so += i * ss[d];
      dof += i * ds[d];
    }
    scan_lines<T, OP>(src + so, s_in, ss[axis], dst + dof, d_in, ds[axis], lines, n);
  };
  const int nt = work >= parallel_min(kParScan) && n_outer > 1 ? get_num_threads() : 1;
  parallel_for(nt, n_outer, group);   // (inline on one thread: no OpenMP region)
}

template <int OP> int scan_op(int dtype, const char* src, int ndim, const int64_t* dims,
                              const int64_t* ss, int axis, char* dst, const int64_t* ds) {
  int rc = 0;
  visit_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr ((OP == kScanMax || OP == kScanMin) &&
                  (std::is_same_v<T, c64> || std::is_same_v<T, c128>)) {
      rc = 1;
    } else {
      scan_typed<T, OP>(src, ndim, dims, ss, axis, dst, ds);
    }
  });
  return rc;
}

}  // namespace

int scan_run(int op, int dtype, const char* src, int ndim, const int64_t* dims,
             const int64_t* src_strides, int axis, char* dst, const int64_t* dst_strides) {
  if (axis < 0 || axis >= ndim || dtype < 0 || dtype >= kNumDTypes) return 1;
  for (int d = 0; d < ndim; ++d)
    if (dims[d] == 0) return 0;
  switch (op) {
    case kScanSum: return scan_op<kScanSum>(dtype, src, ndim, dims, src_strides, axis, dst,
                                            dst_strides);
    case kScanProd: return scan_op<kScanProd>(dtype, src, ndim, dims, src_strides, axis, dst,
                                              dst_strides);
    case kScanMax: return scan_op<kScanMax>(dtype, src, ndim, dims, src_strides, axis, dst,
                                            dst_strides);
    case kScanMin: return scan_op<kScanMin>(dtype, src, ndim, dims, src_strides, axis, dst,
                                            dst_strides);
    default: return 1;
  }
}

}  // namespace xarr
