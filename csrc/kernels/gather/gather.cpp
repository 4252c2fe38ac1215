// XLA Gather / Scatter kernels: contracts and a worked example in gather.h.
#include "kernels/gather/gather.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "core/dtype.h"
#include "core/threading.h"

namespace xarr {

namespace {

// The window dims that have more than one element (fewer loops; a window of one element
// per batch position, a take of scalars, has none).
struct WindowDims {
  int n = 0;
  int dim[kGatherMaxDims] = {};
};

WindowDims window_dims_of(const IndexedWindows& p) {
  WindowDims w;
  for (int d = 0; d < p.rank; ++d)
    if (p.window[d] != 1) w.dim[w.n++] = d;
  return w;
}

int64_t batch_count(const IndexedWindows& p) {
  int64_t b = 1;
  for (int i = 0; i < p.nbatch; ++i) b *= p.batch_dims[i];
  return b;
}

// Batch positions [b0, b1) in row-major order: body(g, index vector address, dense offset).
template <class Body>
void walk_batches(const IndexedWindows& p, int64_t b0, int64_t b1, Body body) {
  int64_t g[kGatherMaxDims] = {};
  int64_t rest = b0, idx = 0, dense = 0;
  for (int i = p.nbatch - 1; i >= 0; --i) {
    g[i] = rest % p.batch_dims[i];
    rest /= p.batch_dims[i];
    idx += g[i] * p.batch_index[i];
    dense += g[i] * p.batch_dense[i];
  }
  for (int64_t b = b0; b < b1; ++b) {
    body(g, p.indices + idx, dense);
    for (int i = p.nbatch - 1; i >= 0; --i) {
      idx += p.batch_index[i];
      dense += p.batch_dense[i];
      if (++g[i] < p.batch_dims[i]) break;
      idx -= p.batch_dims[i] * p.batch_index[i];
      dense -= p.batch_dims[i] * p.batch_dense[i];
      g[i] = 0;
    }
  }
}

// The window start of batch position g (gather.h's three cases).
inline void start_of(const IndexedWindows& p, const int64_t* g, const char* vec,
                     int64_t* start) {
  for (int d = 0; d < p.rank; ++d) start[d] = 0;
  for (int k = 0; k < p.nvec; ++k) {
    int64_t v;
    std::memcpy(&v, vec + k * p.vec_stride, sizeof v);
    start[p.vec_dim[k]] = v;
  }
  for (int j = 0; j < p.nbatching; ++j) start[p.batching_dim[j]] = g[p.batching_pos[j]];
}

// Clamps start into [0, dims - window] per dim; returns whether any start was out of range.
inline bool clamp_start(const IndexedWindows& p, int64_t* start) {
  bool out = false;
  for (int d = 0; d < p.rank; ++d) {
    const int64_t hi = p.operand_dims[d] - p.window[d];
    if (start[d] < 0 || start[d] > hi) {
      out = true;
      start[d] = start[d] < 0 ? 0 : hi;
    }
  }
  return out;
}

// Rows of the box [lo, hi) of window dims w: row(operand offset, dense offset, count,
// operand step, dense step) for every innermost row.
template <class Row>
void walk_box(const IndexedWindows& p, const WindowDims& w, const int64_t* lo,
              const int64_t* hi, Row row) {
  if (w.n == 0) {
    row(int64_t{0}, int64_t{0}, int64_t{1}, int64_t{0}, int64_t{0});
    return;
  }
  const int last = w.dim[w.n - 1];
  const int64_t count = hi[last] - lo[last];
  if (count <= 0) return;
  int64_t at[kGatherMaxDims];
  int64_t op = 0, dn = 0;
  for (int j = 0; j < w.n; ++j) {
    const int d = w.dim[j];
    if (hi[d] <= lo[d]) return;
    at[j] = lo[d];
    op += lo[d] * p.operand_strides[d];
    dn += lo[d] * p.window_dense[d];
  }
  for (;;) {
    row(op, dn, count, p.operand_strides[last], p.window_dense[last]);
    int j = w.n - 2;
    for (; j >= 0; --j) {
      const int d = w.dim[j];
      op += p.operand_strides[d];
      dn += p.window_dense[d];
      if (++at[j] < hi[d]) break;
      op -= (hi[d] - lo[d]) * p.operand_strides[d];
      dn -= (hi[d] - lo[d]) * p.window_dense[d];
      at[j] = lo[d];
    }
    if (j < 0) return;
  }
}

template <class T> inline void copy_row(const char* s, int64_t ss, char* d, int64_t ds,
                                        int64_t n) {
  if (ss == static_cast<int64_t>(sizeof(T)) && ds == static_cast<int64_t>(sizeof(T))) {
    std::memcpy(d, s, static_cast<size_t>(n) * sizeof(T));
    return;
  }
  for (int64_t i = 0; i < n; ++i) std::memcpy(d + i * ds, s + i * ss, sizeof(T));
}

struct Bytes16 {
  uint64_t lo, hi;
};

template <class T> int gather_typed(const IndexedWindows& p) {
  const WindowDims w = window_dims_of(p);
  const int64_t batches = batch_count(p);
  int64_t per = 1;
  for (int d = 0; d < p.rank; ++d) per *= p.window[d];
  if (batches == 0 || per == 0) return 0;
  int64_t full_lo[kGatherMaxDims] = {}, full_hi[kGatherMaxDims];
  for (int d = 0; d < p.rank; ++d) full_hi[d] = p.window[d];
  T fill{};
  if (p.fill) std::memcpy(&fill, p.fill, sizeof(T));
  const int nt = batches * per >= kParallelMinElements ? get_num_threads() : 1;
  split_items(nt, batches, [&](int64_t b0, int64_t b1) {
    walk_batches(p, b0, b1, [&](const int64_t* g, const char* vec, int64_t dense) {
      int64_t start[kGatherMaxDims];
      start_of(p, g, vec, start);
      const bool out = clamp_start(p, start);
      char* dn = p.dense + dense;
      if (out && p.mode == kGatherFill) {
        walk_box(p, w, full_lo, full_hi, [&](int64_t, int64_t d, int64_t n, int64_t,
                                             int64_t ds) {
          for (int64_t i = 0; i < n; ++i) std::memcpy(dn + d + i * ds, &fill, sizeof(T));
        });
        return;
      }
      const char* op = p.operand;
      for (int d = 0; d < p.rank; ++d) op += start[d] * p.operand_strides[d];
      if (w.n == 0) {
        std::memcpy(dn, op, sizeof(T));
        return;
      }
      walk_box(p, w, full_lo, full_hi, [&](int64_t o, int64_t d, int64_t n, int64_t os,
                                           int64_t ds) {
        copy_row<T>(op + o, os, dn + d, ds, n);
      });
    });
  });
  return 0;
}

// ---- scatter combines: result element r, update u (storage types; f16 / bf16 in float).
template <class T> constexpr bool kIsComplex =
    std::is_same_v<T, c64> || std::is_same_v<T, c128>;

template <class T, int kOp> inline void combine(char* r, const char* u) {
  T a, b;
  std::memcpy(&b, u, sizeof(T));
  if constexpr (kOp == kScatterSet) {
    std::memcpy(r, &b, sizeof(T));
    return;
  } else {
    std::memcpy(&a, r, sizeof(T));
    if constexpr (std::is_same_v<T, bool>) {
      a = kOp == kScatterAdd || kOp == kScatterMax ? (a || b) : (a && b);
    } else {
      const auto x = load<T>(a), y = load<T>(b);
      using C = std::remove_cv_t<decltype(x)>;
      C z;
      if constexpr (kOp == kScatterAdd) {
        z = static_cast<C>(x + y);
      } else if constexpr (kOp == kScatterMul) {
        z = static_cast<C>(x * y);
      } else if constexpr (kIsComplex<T>) {
        z = x;   // (min / max of complex values: refused before the kernel)
      } else if constexpr (std::is_floating_point_v<C>) {   // NaN wins, as lax.max / min
        if (x != x || y != y) z = x + y;
        else z = kOp == kScatterMin ? (y < x ? y : x) : (y > x ? y : x);
      } else {
        z = kOp == kScatterMin ? (y < x ? y : x) : (y > x ? y : x);
      }
      a = store<T>(z);
    }
    std::memcpy(r, &a, sizeof(T));
  }
}

template <class T, int kOp> int scatter_typed(const IndexedWindows& p) {
  const WindowDims w = window_dims_of(p);
  const int64_t batches = batch_count(p);
  int64_t per = 1, total = static_cast<int64_t>(sizeof(T));
  for (int d = 0; d < p.rank; ++d) {
    per *= p.window[d];
    total *= p.operand_dims[d];
  }
  if (batches == 0 || per == 0 || total == 0) return 0;
  const int nt = batches * per >= kParallelMinElements ? get_num_threads() : 1;
  const int64_t items = total / static_cast<int64_t>(sizeof(T));
  // thread t applies the updates whose result element lies in its share of the result
  split_items(nt, nt, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t own_lo = items * t / nt * static_cast<int64_t>(sizeof(T));
      const int64_t own_hi = items * (t + 1) / nt * static_cast<int64_t>(sizeof(T));
      const uint64_t own_span = static_cast<uint64_t>(own_hi - own_lo);
      alignas(16) char sink[sizeof(T) < 16 ? 16 : sizeof(T)];
      walk_batches(p, 0, batches, [&](const int64_t* g, const char* vec, int64_t dense) {
        int64_t start[kGatherMaxDims], lo[kGatherMaxDims], hi[kGatherMaxDims];
        start_of(p, g, vec, start);
        const char* up = p.dense + dense;
        if (w.n == 0) {   // one element: no branch on whether it is in range or ours
          bool valid = true;
          int64_t off = 0;
          if (p.mode == kGatherClip) {
            clamp_start(p, start);
          } else {
            for (int d = 0; d < p.rank; ++d)
              valid &= static_cast<uint64_t>(start[d]) <
                       static_cast<uint64_t>(p.operand_dims[d]);
            for (int d = 0; d < p.rank; ++d) start[d] = valid ? start[d] : 0;
          }
          for (int d = 0; d < p.rank; ++d) off += start[d] * p.operand_strides[d];
          valid &= static_cast<uint64_t>(off - own_lo) < own_span;
          combine<T, kOp>(valid ? p.result + off : sink, up);
          return;
        }
        if (p.mode == kGatherClip) {
          clamp_start(p, start);
          for (int d = 0; d < p.rank; ++d) {
            lo[d] = 0;
            hi[d] = p.window[d];
          }
        } else {
          for (int d = 0; d < p.rank; ++d) {
            if (start[d] <= -p.window[d] || start[d] >= p.operand_dims[d]) return;
            lo[d] = std::max<int64_t>(0, -start[d]);
            hi[d] = std::min<int64_t>(p.window[d], p.operand_dims[d] - start[d]);
            if (hi[d] <= lo[d]) return;
          }
        }
        char* base = p.result;
        int64_t first = 0, last = 0;
        for (int d = 0; d < p.rank; ++d) {
          base += start[d] * p.operand_strides[d];
          first += (start[d] + lo[d]) * p.operand_strides[d];
          last += (start[d] + hi[d] - 1) * p.operand_strides[d];
        }
        if (last < own_lo || first >= own_hi) return;
        const bool check = first < own_lo || last >= own_hi;
        const int64_t base_off = base - p.result;
        walk_box(p, w, lo, hi, [&](int64_t o, int64_t d, int64_t n, int64_t os,
                                   int64_t ds) {
          for (int64_t i = 0; i < n; ++i) {
            const int64_t off = base_off + o + i * os;
            if (check && static_cast<uint64_t>(off - own_lo) >= own_span) continue;
            combine<T, kOp>(p.result + off, up + d + i * ds);
          }
        });
      });
    }
  });
  return 0;
}

template <class T> int scatter_dispatch(const IndexedWindows& p) {
  switch (p.combine) {
    case kScatterSet: return scatter_typed<T, kScatterSet>(p);
    case kScatterAdd: return scatter_typed<T, kScatterAdd>(p);
    case kScatterMul: return scatter_typed<T, kScatterMul>(p);
    case kScatterMin:
      if constexpr (kIsComplex<T>) return 1;
      else return scatter_typed<T, kScatterMin>(p);
    case kScatterMax:
      if constexpr (kIsComplex<T>) return 1;
      else return scatter_typed<T, kScatterMax>(p);
    default: return 1;
  }
}

}  // namespace

int gather_run(const IndexedWindows& p) {
  switch (dtype_itemsize(p.dtype)) {   // a copy: the element size is all that matters
    case 1: return gather_typed<uint8_t>(p);
    case 2: return gather_typed<uint16_t>(p);
    case 4: return gather_typed<uint32_t>(p);
    case 8: return gather_typed<uint64_t>(p);
    case 16: return gather_typed<Bytes16>(p);
    default: return 1;
  }
}

int scatter_run(const IndexedWindows& p) {
  int rc = 1;
  if (!visit_dtype(p.dtype, [&](auto t) { rc = scatter_dispatch<decltype(t)>(p); })) return 1;
  return rc;
}

}  // namespace xarr
