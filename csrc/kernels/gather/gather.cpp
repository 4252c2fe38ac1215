// XLA Gather / Scatter kernels: contracts and a worked example in gather.h.
#include "kernels/gather/gather.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>
#include <vector>

#include "core/copy_bytes.h"
#include "core/scratch.h"
#include "core/dtype.h"
#include "core/threading.h"
#include "kernels/indexing/index_blocks.h"

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

// One start clamped into [0, hi]; *out says whether it was outside.
// Example: clamped(-3, 7, &o) == 0 with o true; clamped(5, 7, &o) == 5 with o false.
inline int64_t clamped(int64_t v, int64_t hi, bool* out) {
  *out = static_cast<uint64_t>(v) > static_cast<uint64_t>(hi);
  return v < 0 ? 0 : (v > hi ? hi : v);
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
    copy_bytes(d, s, static_cast<size_t>(n) * sizeof(T));
    return;
  }
  for (int64_t i = 0; i < n; ++i) std::memcpy(d + i * ds, s + i * ss, sizeof(T));
}

struct Bytes16 {
  uint64_t lo, hi;
};

// Batch positions are taken kBlock at a time: first their window starts (operand byte
// offsets) and dense offsets, then the copies in a loop of nothing else, so the random
// reads of many positions are in flight at once (one long loop body per position kept
// ~3 misses in flight: a 4M-element take ran 5x slower).
constexpr int kBlock = 256;
constexpr int64_t kNoWindow = -1;   // out of range (gather kFill; scatter: skipped)

// block(n, op, dense) for batch positions [b0, b1) in blocks of kBlock: op[i] the
// operand offset of the window start of entry i (clamped, or kNoWindow when out of range
// and `clamp` is false), dense[i] its dense offset.
template <class Block>
void start_blocks(const IndexedWindows& p, int64_t b0, int64_t b1, bool clamp,
                  Block block) {
  int64_t op[kBlock], dn[kBlock];
  int n = 0;
  auto flush = [&] {
    block(n, op, dn);
    n = 0;
  };
  if (p.nbatching == 0 && p.nbatch <= 1) {
    // the common case (a take, gather_nd, an embedding lookup): only the index vector
    // moves the start, along one batch dim; its dims not indexed start at 0
    int vd[kGatherMaxDims];
    int64_t hi[kGatherMaxDims], stride[kGatherMaxDims];
    for (int k = 0; k < p.nvec; ++k) {
      vd[k] = p.vec_dim[k];
      hi[k] = p.operand_dims[vd[k]] - p.window[vd[k]];
      stride[k] = p.operand_strides[vd[k]];
    }
    const int64_t bi = p.nbatch ? p.batch_index[0] : 0, bd = p.nbatch ? p.batch_dense[0] : 0;
    for (int64_t b = b0; b < b1; ++b) {
      const char* vec = p.indices + b * bi;
      int64_t off = 0;
      bool out = false;
      for (int k = 0; k < p.nvec; ++k) {
        int64_t v;
        std::memcpy(&v, vec + k * p.vec_stride, sizeof v);
        bool outside;
        off += clamped(v, hi[k], &outside) * stride[k];
        out |= outside;
      }
      op[n] = out && !clamp ? kNoWindow : off;
      dn[n] = b * bd;
      if (++n == kBlock) flush();
    }
    if (n) flush();
    return;
  }
  walk_batches(p, b0, b1, [&](const int64_t* g, const char* vec, int64_t dense) {
    int64_t start[kGatherMaxDims];
    start_of(p, g, vec, start);
    const bool out = clamp_start(p, start);
    int64_t off = 0;
    for (int d = 0; d < p.rank; ++d) off += start[d] * p.operand_strides[d];
    op[n] = out && !clamp ? kNoWindow : off;
    dn[n] = dense;
    if (++n == kBlock) flush();
  });
  if (n) flush();
}

// The fast path of a take (one index per position, along one batch dim; a window of one
// element or one row: NumPy's take, an embedding lookup): one loop, the operand rows of
// the position kAhead further on prefetched (the random reads' misses overlap).
constexpr int kAhead = 32;

template <class T>
void take_rows(const IndexedWindows& p, const WindowDims& w, int64_t batches, int nt,
               const T& fill) {
  const int vd = p.vec_dim[0];
  const int64_t hi = p.operand_dims[vd] - p.window[vd], stride = p.operand_strides[vd];
  const int64_t bi = p.nbatch ? p.batch_index[0] : 0, bd = p.nbatch ? p.batch_dense[0] : 0;
  const int rd = w.n ? w.dim[0] : 0;
  const int64_t row = w.n ? p.window[rd] : 1;
  const int64_t ros = w.n ? p.operand_strides[rd] : 0, rds = w.n ? p.window_dense[rd] : 0;
  const bool fill_mode = p.mode == kGatherFill;
  // the bytes of a row to prefetch: all its lines when it is contiguous (up to 1 KiB)
  const int64_t row_bytes = ros == static_cast<int64_t>(sizeof(T)) ?
      std::min<int64_t>(row * static_cast<int64_t>(sizeof(T)), 1024) : 1;
  auto at = [&](int64_t b, bool* out) {
    int64_t v;
    std::memcpy(&v, p.indices + b * bi, sizeof v);
    return clamped(v, hi, out);
  };
  // one element per position, everything contiguous: the loop of random reads
  const bool elements = row == 1 && stride == static_cast<int64_t>(sizeof(T)) && bi == 8 &&
                        bd == static_cast<int64_t>(sizeof(T)) &&
                        reinterpret_cast<uintptr_t>(p.indices) % 8 == 0 &&
                        reinterpret_cast<uintptr_t>(p.operand) % alignof(T) == 0 &&
                        reinterpret_cast<uintptr_t>(p.dense) % alignof(T) == 0;
  split_items(nt, batches, [&](int64_t b0, int64_t b1) {
    if (elements) {
      const T* src = reinterpret_cast<const T*>(p.operand);
      const int64_t* idx = reinterpret_cast<const int64_t*>(p.indices) + b0;
      T* out = reinterpret_cast<T*>(p.dense) + b0;
      take_elements(src, hi + 1, idx, out, b1 - b0, [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) {
          bool outside;
          const int64_t v = clamped(idx[i], hi, &outside);
          out[i] = fill_mode && outside ? fill : src[v];
        }
        return true;
      });
      return;
    }
    for (int64_t b = b0; b < b1; ++b) {
      if (b + kAhead < b1) {   // every line of the row kAhead further on
        bool ignored;
        const char* ahead = p.operand + at(b + kAhead, &ignored) * stride;
        for (int64_t l = 0; l < row_bytes; l += 64) __builtin_prefetch(ahead + l);
      }
      bool out;
      const int64_t v = at(b, &out);
      char* d = p.dense + b * bd;
      if (fill_mode && out) {
        for (int64_t k = 0; k < row; ++k) std::memcpy(d + k * rds, &fill, sizeof(T));
      } else if (row == 1) {
        std::memcpy(d, p.operand + v * stride, sizeof(T));
      } else {
        copy_row<T>(p.operand + v * stride, ros, d, rds, row);
      }
    }
  });
}

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
  const bool clamp = p.mode != kGatherFill;
  if (p.nbatching == 0 && p.nbatch <= 1 && p.nvec == 1 && w.n <= 1) {
    take_rows<T>(p, w, batches, nt, fill);
    return 0;
  }
  split_items(nt, batches, [&](int64_t b0, int64_t b1) {
    start_blocks(p, b0, b1, clamp, [&](int n, const int64_t* op, const int64_t* dn) {
      if (w.n == 0) {   // one element per position: the loop of the random reads
        for (int i = 0; i < n; ++i) {
          T v = fill;
          if (op[i] != kNoWindow) std::memcpy(&v, p.operand + op[i], sizeof(T));
          std::memcpy(p.dense + dn[i], &v, sizeof(T));
        }
        return;
      }
      for (int i = 0; i < n; ++i) {
        char* d0 = p.dense + dn[i];
        if (op[i] == kNoWindow) {
          walk_box(p, w, full_lo, full_hi, [&](int64_t, int64_t d, int64_t m, int64_t,
                                               int64_t ds) {
            for (int64_t k = 0; k < m; ++k) std::memcpy(d0 + d + k * ds, &fill, sizeof(T));
          });
          continue;
        }
        const char* o0 = p.operand + op[i];
        walk_box(p, w, full_lo, full_hi, [&](int64_t o, int64_t d, int64_t m, int64_t os,
                                             int64_t ds) {
          copy_row<T>(o0 + o, os, d0 + d, ds, m);
        });
      }
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
      if constexpr (std::is_integral_v<C> && (kOp == kScatterAdd || kOp == kScatterMul)) {
        // wrapping, as XLA and NumPy (in unsigned arithmetic: no signed overflow, and
        // u16 * u16 not in int)
        using W = std::make_unsigned_t<decltype(x + y)>;
        z = static_cast<C>(kOp == kScatterAdd ? W(W(x) + W(y)) : W(W(x) * W(y)));
      } else if constexpr (kOp == kScatterAdd) {
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

// The identity of a combine, exact for every value it meets: add -0.0 for floats (x + 0.0
// would turn -0.0 into +0.0) and 0 for integers, mul 1, min the largest value, max the
// smallest; for bool add / max are or, mul / min are and. (Complex mul has none: (inf +
// 0j) * (1 + 0j) is inf + nanj; it never takes partial results.)
template <class T, int kOp> T combine_identity() {
  if constexpr (std::is_same_v<T, bool>) {
    return kOp == kScatterMul || kOp == kScatterMin;
  } else if constexpr (kIsComplex<T>) {
    using R = typename T::value_type;
    return T(R(-0.0), R(-0.0));   // add only
  } else {
    using C = std::remove_cv_t<decltype(load<T>(T{}))>;
    C v = 0;
    if constexpr (std::is_floating_point_v<C>) v = C(-0.0);
    if constexpr (kOp == kScatterMul) v = 1;
    if constexpr (kOp == kScatterMin || kOp == kScatterMax) {
      const bool lo = kOp == kScatterMax;
      if constexpr (std::is_floating_point_v<C>)
        v = lo ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::infinity();
      else
        v = lo ? std::numeric_limits<C>::lowest() : std::numeric_limits<C>::max();
    }
    return store<T>(v);
  }
}

// Updates [b0, b1) of a simple scatter (one index per position, along one batch dim;
// scatter_simple) into res, whose element v is at res + v * step: one loop, the result
// line of the update kAhead further prefetched. Takes plain values, not the problem
// struct: the combine's char stores could alias its fields, and the compiler would
// reload them after every store (a 4M-update scatter-add ran 1.7x slower).
template <class T, int kOp>
void apply_updates(const char* idx, int64_t bi, const char* dense, int64_t bd, char* res,
                   int64_t step, int64_t n, bool clip, int64_t b0, int64_t b1) {
  const int64_t last = n - 1;
  constexpr int64_t kSize = static_cast<int64_t>(sizeof(T));
  if (step == kSize && bi == 8 && bd == kSize && reinterpret_cast<uintptr_t>(idx) % 8 == 0) {
    // one element per update, everything contiguous: run_index_blocks' loop
    const int64_t* ix = reinterpret_cast<const int64_t*>(idx) + b0;
    const char* up = dense + b0 * kSize;
    const uintptr_t base = reinterpret_cast<uintptr_t>(res);
    run_index_blocks(
        ix, b1 - b0, n,
        [base](uint64_t v) {   // (to L2, as take_elements: more misses in flight)
          __builtin_prefetch(reinterpret_cast<const void*>(base + v * kSize), 0, 2);
        },
        [res, up](int64_t i, int64_t v) { combine<T, kOp>(res + v * kSize, up + i * kSize); },
        [&](int64_t i0, int64_t i1) {
          for (int64_t i = i0; i < i1; ++i) {
            bool outside;
            const int64_t v = clamped(ix[i], last, &outside);
            if (clip || !outside) combine<T, kOp>(res + v * kSize, up + i * kSize);
          }
          return true;
        });
    return;
  }
  for (int64_t b = b0; b < b1; ++b) {
    if (b + kAhead < b1) {
      int64_t a;
      std::memcpy(&a, idx + (b + kAhead) * bi, sizeof a);
      bool ignored;
      __builtin_prefetch(res + clamped(a, last, &ignored) * step, 1);
    }
    int64_t v;
    std::memcpy(&v, idx + b * bi, sizeof v);
    bool outside;
    v = clamped(v, last, &outside);
    if (clip || !outside) combine<T, kOp>(res + v * step, dense + b * bd);
  }
}

// The fast path of a scatter of one element per position along one batch dim with one
// index per position (a histogram-like scatter-add, x.at[i].add(v)). One thread: one
// loop. More (a combine other than set): chunk t of the updates goes into a partial
// result of its own started from the combine's identity (chunk 0 into the result
// itself), and the partials are combined into the result in chunk order; no thread
// touches another's lines. Float add and mul then group the updates by chunk, so their
// bits can differ from one thread's by reassociation (integers, min and max cannot). Set,
// or a result much bigger than the updates, stays on one thread.
template <class T, int kOp>
void scatter_simple(const IndexedWindows& p, int64_t batches, int nt) {
  const int vd = p.vec_dim[0];
  const int64_t n = p.operand_dims[vd], stride = p.operand_strides[vd];
  const int64_t bi = p.nbatch ? p.batch_index[0] : 0, bd = p.nbatch ? p.batch_dense[0] : 0;
  const bool clip = p.mode == kGatherClip;
  if (nt == 1 || kOp == kScatterSet || n > 4 * batches ||
      (kIsComplex<T> && kOp == kScatterMul)) {
    apply_updates<T, kOp>(p.indices, bi, p.dense, bd, p.result, stride, n, clip, 0, batches);
    return;
  }
  const T identity = combine_identity<T, kOp>();
  std::vector<Scratch<T>> parts;
  for (int t = 1; t < nt; ++t) parts.emplace_back(n);
  split_items(nt, nt, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      char* const res = t == 0 ? p.result : reinterpret_cast<char*>(parts[t - 1].data());
      const int64_t step = t == 0 ? stride : static_cast<int64_t>(sizeof(T));
      if (t > 0)
        for (int64_t v = 0; v < n; ++v) std::memcpy(res + v * step, &identity, sizeof(T));
      apply_updates<T, kOp>(p.indices, bi, p.dense, bd, res, step, n, clip,
                            batches * t / nt, batches * (t + 1) / nt);
    }
  });
  split_items(nt, n, [&](int64_t v0, int64_t v1) {
    for (const Scratch<T>& part : parts) {
      const char* const src = reinterpret_cast<const char*>(part.data());
      for (int64_t v = v0; v < v1; ++v)
        combine<T, kOp>(p.result + v * stride, src + v * static_cast<int64_t>(sizeof(T)));
    }
  });
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
  if (w.n == 0 && p.nbatching == 0 && p.nbatch <= 1 && p.nvec == 1) {
    scatter_simple<T, kOp>(p, batches, nt);
    return 0;
  }
  const int64_t items = total / static_cast<int64_t>(sizeof(T));
  // thread t applies the updates whose result element lies in its share of the result
  split_items(nt, nt, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t own_lo = items * t / nt * static_cast<int64_t>(sizeof(T));
      const int64_t own_hi = items * (t + 1) / nt * static_cast<int64_t>(sizeof(T));
      const uint64_t own_span = static_cast<uint64_t>(own_hi - own_lo);
      // where updates that are not this thread's go: 8 slots, so writes to them form
      // no chain of store-to-load dependencies (one slot: 5x slower on 2 threads)
      constexpr int kSlot = sizeof(T) < 16 ? 16 : static_cast<int>(sizeof(T));
      alignas(64) char sinks[8 * kSlot];
      if (w.n == 0) {   // one element per position: blocks, no branch on range or owner
        start_blocks(p, 0, batches, p.mode == kGatherClip,
                     [&](int n, const int64_t* op, const int64_t* dn) {
          for (int i = 0; i < n; ++i) {
            const bool mine = op[i] != kNoWindow &&
                              static_cast<uint64_t>(op[i] - own_lo) < own_span;
            combine<T, kOp>(mine ? p.result + op[i] : sinks + (i & 7) * kSlot,
                            p.dense + dn[i]);
          }
        });
        continue;
      }
      walk_batches(p, 0, batches, [&](const int64_t* g, const char* vec, int64_t dense) {
        int64_t start[kGatherMaxDims], lo[kGatherMaxDims], hi[kGatherMaxDims];
        start_of(p, g, vec, start);
        const char* up = p.dense + dense;
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
