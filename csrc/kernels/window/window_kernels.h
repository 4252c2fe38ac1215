// The window family's row kernels (window.h), one copy per ISA: included by window_ref.cpp,
// window_avx2.cpp and window_avx512.cpp with XARR_ISA_NS set, each compiled with its ISA's
// flags, so the inner row loops (contiguous or stride-2 over the row) vectorize per ISA.
// The driver (window.cpp) puts the row dim last and splits rows over threads.
#pragma once

#ifndef XARR_ISA_NS
#error "define XARR_ISA_NS before including window_kernels.h"
#endif

#include <cmath>
#include <limits>
#include <complex>
#include <cstring>
#include <algorithm>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/copy_bytes.h"
#include "core/dtype.h"
#include "core/register_width.h"
#include "kernels/window/window.h"

namespace xarr {
namespace XARR_ISA_NS {
namespace window_detail {

// A vector of B bytes of T (GCC's vector extension), loaded from possibly unaligned memory.
// (typedefs in a trait: GCC drops the attribute from an alias template)
template <class T, int B> struct VecOf { typedef T type __attribute__((vector_size(B))); };
template <class V, class T> inline V load_vec(const T* p) {
  V v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// Vec64: 64 bytes of T (one zmm or two ymm; kept in registers where an array would live on
// the stack), for loops of arithmetic and shuffles only.
template <class T> using Vec64 = typename VecOf<T, 64>::type;
static_assert(sizeof(Vec64<float>) == 64 && sizeof(Vec64<double>) == 64);
template <class T> inline Vec64<T> load64(const T* p) { return load_vec<Vec64<T>>(p); }

// Reg: one register of T (64 bytes with AVX-512, 32 with AVX, 16 else), for loops that
// compare or select. GCC splits the arithmetic, loads and shuffles of a vector wider than
// the registers into register-wide pieces, but lowers a comparison or a `?:` on it lane by
// lane through general registers: a 64-byte max took ~300 instructions on AVX2, and made
// the AVX2 3x3/2 max pool 12x slower than this form (kRegisterBytes:
// core/register_width.h).
template <class T> using Reg = typename VecOf<T, kRegisterBytes>::type;
template <class T> inline Reg<T> load_reg(const T* p) { return load_vec<Reg<T>>(p); }

// Lane shuffles of two vectors of n lanes of T (GCC's __builtin_shuffle: vpermt2ps /
// vpermt2pd for 64 bytes on AVX-512): the even / odd lanes of their concatenation, and
// their lanes interleaved (zip_lo: a0 b0 a1 b1 ... from the low halves; zip_hi: the high).
template <class T, class V> struct LaneShuffles {
  static constexpr int n = sizeof(V) / sizeof(T);
  using M = typename VecOf<std::conditional_t<sizeof(T) == 4, int32_t, int64_t>,
                           sizeof(V)>::type;
  template <size_t... I> static V even(V a, V b, std::index_sequence<I...>) {
    return __builtin_shuffle(a, b, M{static_cast<int>(2 * I)...});
  }
  template <size_t... I> static V odd(V a, V b, std::index_sequence<I...>) {
    return __builtin_shuffle(a, b, M{static_cast<int>(2 * I + 1)...});
  }
  template <size_t... I> static V zip(V a, V b, int from, std::index_sequence<I...>) {
    return __builtin_shuffle(a, b, M{static_cast<int>(from + I / 2 + (I % 2) * n)...});
  }
};
template <class T, class V> inline V lanes_even(V a, V b) {
  using S = LaneShuffles<T, V>;
  return S::even(a, b, std::make_index_sequence<S::n>{});
}
template <class T, class V> inline V lanes_odd(V a, V b) {
  using S = LaneShuffles<T, V>;
  return S::odd(a, b, std::make_index_sequence<S::n>{});
}
template <class T, class V> inline V lanes_zip_lo(V a, V b) {
  using S = LaneShuffles<T, V>;
  return S::zip(a, b, 0, std::make_index_sequence<S::n>{});
}
template <class T, class V> inline V lanes_zip_hi(V a, V b) {
  using S = LaneShuffles<T, V>;
  return S::zip(a, b, S::n / 2, std::make_index_sequence<S::n>{});
}

// One input row as a window dim with stride s and low padding pad_lo reads it, padded
// and split into s phases of phase_len elements (the depthwise and separable-window rows):
// dst[ph * phase_len + i] = padded column i * s + ph, i.e. input column i * s + ph -
// pad_lo of the `in` elements at src (byte stride is), `pad` outside them. Worked example:
// s = 2, pad_lo = 1, input [a b c d]: phase 0 = [pad b d ...], phase 1 = [a c pad ...].
template <class T>
void fill_phase_row(T* dst, const char* src, int64_t is, int64_t in, int64_t pad_lo,
                    int64_t s, int64_t phase_len, T pad) {
  const T* row = reinterpret_cast<const T*>(src);
  const bool unit = is == int64_t{sizeof(T)};
  for (int64_t ph = 0; ph < s; ++ph, dst += phase_len) {
    const int64_t first = ph - pad_lo;   // the input column of i = 0
    const int64_t i0 = first >= 0 ? 0 : std::min(phase_len, (-first + s - 1) / s);
    const int64_t i1 = std::max(
        i0, std::min(phase_len, in - first <= 0 ? int64_t{0} : (in - first + s - 1) / s));
    std::fill(dst, dst + i0, pad);
    if (unit && s == 1) {
      copy_bytes(dst + i0, row + i0 + first, static_cast<size_t>(i1 - i0) * sizeof(T));
    } else if (unit && s == 2) {
      for (int64_t i = i0; i < i1; ++i) dst[i] = row[2 * i + first];
    } else {
      for (int64_t i = i0; i < i1; ++i)
        dst[i] = *reinterpret_cast<const T*>(src + (i * s + first) * is);
    }
    std::fill(dst + i1, dst + phase_len, pad);
  }
}

template <class C> inline bool nan_of(C v) {
  if constexpr (std::is_floating_point_v<C>) return v != v;
  return false;
}

// The monoid of op OP on compute values (max / min propagate NaN, as XLA's do).
template <int OP, class C> inline C combine(C a, C b) {
  if constexpr (OP == kWindowAdd) {
    if constexpr (std::is_same_v<C, bool>) return a || b;
    else return static_cast<C>(a + b);
  } else if constexpr (OP == kWindowMul) {
    if constexpr (std::is_same_v<C, bool>) return a && b;
    else return static_cast<C>(a * b);
  } else if constexpr (OP == kWindowMax) {
    return (nan_of(a) || a > b) ? a : b;
  } else if constexpr (OP == kWindowMin) {
    return (nan_of(a) || a < b) ? a : b;
  } else if constexpr (OP == kWindowAnd) {
    if constexpr (std::is_same_v<C, bool>) return a && b;
    else return static_cast<C>(a & b);
  } else {
    if constexpr (std::is_same_v<C, bool>) return a || b;
    else return static_cast<C>(a | b);
  }
}

template <int OP, class T> constexpr bool defined() {
  using C = typename TypeInfo<T>::compute;
  constexpr bool complex = std::is_same_v<C, c64> || std::is_same_v<C, c128>;
  if constexpr (OP == kWindowMax || OP == kWindowMin) return !complex;
  if constexpr (OP == kWindowAnd || OP == kWindowOr) return std::is_integral_v<C>;
  return true;
}

// The output range [lo, hi) of positions whose tap k reads a real element of a dim
// without base dilation (x = o * stride + k * win_dil - pad_lo in [0, in)).
inline void valid_range(const WindowDim& g, int64_t k, int64_t* lo, int64_t* hi) {
  const int64_t shift = k * g.win_dil - g.pad_lo;    // x = o * stride + shift
  // smallest o with x >= 0, largest with x <= in - 1
  int64_t a = shift >= 0 ? 0 : (-shift + g.stride - 1) / g.stride;
  int64_t top = g.in - 1 - shift;
  int64_t b = top < 0 ? 0 : top / g.stride + 1;
  *lo = std::min(a, g.out);
  *hi = std::max(*lo, std::min(b, g.out));
}

// Input element (index, true) of tap k at output o of dim g, or (_, false) for padding.
inline bool tap_index(const WindowDim& g, int64_t o, int64_t k, int64_t* index) {
  const int64_t x = o * g.stride + k * g.win_dil - g.pad_lo;
  if (g.base_dil == 1) {   // (no division: this runs once per row and tap)
    *index = x;
    return x >= 0 && x < g.in;
  }
  if (x < 0 || x > (g.in - 1) * g.base_dil || x % g.base_dil) return false;
  *index = x / g.base_dil;
  return true;
}

// acc[o] = f(acc[o], element of row `src` at tap k) for every output o of inner dim g
// (src: the input row's first element, stride `is` bytes); pad(o) for padding taps.
template <class T, class F, class P>
inline void row_taps(const WindowDim& g, int64_t k, const char* src, int64_t is, F f, P pad) {
  if (g.base_dil == 1) {
    int64_t lo, hi;
    valid_range(g, k, &lo, &hi);
    for (int64_t o = 0; o < lo; ++o) pad(o);
    const int64_t first = lo * g.stride + k * g.win_dil - g.pad_lo;
    if (is == int64_t{sizeof(T)} && hi > lo) {      // element pointer: vector loops
      const T* s = reinterpret_cast<const T*>(src) + first;
      const int64_t st = g.stride;
      if (st == 1) {
        for (int64_t o = lo; o < hi; ++o) f(o, s[o - lo]);
      } else if (st == 2) {
        for (int64_t o = lo; o < hi; ++o) f(o, s[2 * (o - lo)]);
      } else {
        for (int64_t o = lo; o < hi; ++o) f(o, s[st * (o - lo)]);
      }
    } else {
      for (int64_t o = lo; o < hi; ++o)
        f(o, *reinterpret_cast<const T*>(src + (first + (o - lo) * g.stride) * is));
    }
    for (int64_t o = hi; o < g.out; ++o) pad(o);
    return;
  }
  for (int64_t o = 0; o < g.out; ++o) {
    int64_t i;
    if (tap_index(g, o, k, &i)) f(o, *reinterpret_cast<const T*>(src + i * is));
    else pad(o);
  }
}

// Calls body(offset) for every combination of taps of dims [0, n) that reads real
// elements at outputs o[0..n): offset = sum of index * stride; and pad() once for each
// combination that touches padding.
template <class Body, class Pad>
inline void outer_taps(const WindowDim* g, const int64_t* o, const int64_t* stride, int n,
                       Body body, Pad pad) {
  for (int d = 0; d < n; ++d)
    if (g[d].size == 0) return;   // an empty window: no taps
  int64_t k[kWindowMaxDims] = {};
  for (;;) {
    int64_t off = 0;
    bool real = true;
    for (int d = 0; d < n && real; ++d) {
      int64_t i;
      real = tap_index(g[d], o[d], k[d], &i);
      off += i * stride[d];
    }
    if (real) body(off);
    else pad();
    int d = n - 1;
    for (; d >= 0; --d) {
      if (++k[d] < g[d].size) break;
      k[d] = 0;
    }
    if (d < 0) return;
  }
}

// Row r's output indices o[0..n) (row-major over dims [0, n)).
inline void row_index(const WindowDim* g, int n, int64_t r, int64_t* o) {
  for (int d = n - 1; d >= 0; --d) {
    o[d] = r % g[d].out;
    r /= g[d].out;
  }
}

// ------------------------------------------------------------------ separable windows
// A window over at most two dims (the row dim and one other; every other dim free: size 1,
// stride 1, no padding) without base dilation, for add / mul / max / min on f32 / f64, is
// reduced in two passes: each input row's windows along the row (a row pass, through a
// copy of the row with the op's identity as padding, split into `stride` phases as the
// depthwise kernel's rows), then each output row from the row results of its window's rows
// (a column pass over whole rows). A k x k window costs 2k ops per output instead of k^2,
// and a stride-2 row reads its even and odd elements as two plain rows. Each input row's
// result is kept in a ring of the window's height, so overlapping windows (3x3/2: rows
// 2i - 1, 2i, 2i + 1) compute each row once. Init enters once, after the taps (XLA's
// order); sums therefore round differently from the tap-by-tap walk, max / min do not.
template <int OP, class T> constexpr T identity_of() {
  if constexpr (OP == kWindowAdd) return T(0);
  else if constexpr (OP == kWindowMul) return T(1);
  else if constexpr (OP == kWindowMax) return -std::numeric_limits<T>::infinity();
  else return std::numeric_limits<T>::infinity();
}

// combine<OP> on vectors: max / min keep a NaN of either side, as the scalar form.
template <int OP, class V> inline V combine_vec(V a, V b) {
  if constexpr (OP == kWindowAdd) return a + b;
  else if constexpr (OP == kWindowMul) return a * b;
  else if constexpr (OP == kWindowMax) return ((a != a) | (a > b)) ? a : b;
  else return ((a != a) | (a < b)) ? a : b;
}

inline bool window_free(const WindowDim& g) {
  return g.size == 1 && g.stride == 1 && g.pad_lo == 0 && g.base_dil == 1 && g.out == g.in;
}

// The separable form's other window dim (-1: none), or -2 when the problem is not
// separable (the row dim, p.ndim - 1, must be a window dim).
inline int separable_dim(const ReduceWindowProblem& p) {
  const int L = p.ndim - 1;
  if (L < 0 || window_free(p.dim[L]) || p.dim[L].base_dil != 1 || p.dim[L].size == 0)
    return -2;
  int dh = -1;
  for (int d = 0; d < L; ++d) {
    if (window_free(p.dim[d])) continue;
    if (dh >= 0 || p.dim[d].base_dil != 1 || p.dim[d].size == 0) return -2;
    dh = d;
  }
  return dh;
}

template <class T, int OP>
void reduce_separable(const ReduceWindowProblem& p, int dh, int64_t lo, int64_t hi) {
  constexpr int64_t Lanes = kRegisterBytes / sizeof(T);
  using V = Reg<T>;   // (max / min compare)
  const int L = p.ndim - 1;
  const WindowDim& gi = p.dim[L];
  const WindowDim go = dh >= 0 ? p.dim[dh] : WindowDim{};
  const int64_t go_stride = dh >= 0 ? p.in_stride[dh] : 0;
  const T init = *static_cast<const T*>(p.init), ident = identity_of<OP, T>();
  const int64_t OW = gi.out, s = gi.stride;
  const int64_t phase_len = OW + ((gi.size - 1) * gi.win_dil) / s;
  std::vector<T> padded(static_cast<size_t>(s * phase_len));
  std::vector<int64_t> tap(static_cast<size_t>(gi.size));   // tap kx's start in `padded`
  for (int64_t kx = 0; kx < gi.size; ++kx) {
    const int64_t c = kx * gi.win_dil;
    tap[kx] = (c % s) * phase_len + c / s;
  }
  // Tall windows summed by a running sum down the columns: each output row is the row
  // above plus the row result entering minus the one leaving, exact again at every
  // kRunRestart-th output row (the rounding then depends on the row only, not on where a
  // thread starts: a thread starting elsewhere replays from the restart row), and exact
  // wherever the rows entering or leaving hold an infinity or NaN (inf - inf) or the sum
  // itself overflowed.
  constexpr int64_t kRunRestart = 16;
  const bool running = OP == kWindowAdd && dh >= 0 && go.size >= 8 && go.stride == 1 &&
                       go.win_dil == 1;
  const int64_t R = (go.size - 1) * go.win_dil + 1 + (running ? 1 : 0);   // the ring's rows
  // (the running sum is kept in float64 for f32 data: a sum that overflows f32 stays
  // finite, and a large value leaving costs 2^-52, not 2^-23, of itself)
  using Acc = std::conditional_t<std::is_same_v<T, float>, double, T>;
  std::vector<T> ring(static_cast<size_t>(R * OW));
  std::vector<Acc> acc(running ? OW : 0);
  std::vector<int64_t> held(static_cast<size_t>(R), -1);     // input row in each slot
  std::vector<char> finite(static_cast<size_t>(R), 1);
  std::vector<const T*> rows(static_cast<size_t>(go.size));
  std::vector<T> line(static_cast<size_t>(OW));
  const char* plane = nullptr;
  // ring row of input row y (its windows along the row), computed when first needed
  auto row_result = [&](const char* src_plane, int64_t y) -> const T* {
    const int64_t slot = y % R;
    T* res = ring.data() + slot * OW;
    if (held[slot] == y) return res;
    held[slot] = y;
    const char* src = src_plane + y * go_stride;
    fill_phase_row(padded.data(), src, p.in_stride[L], gi.in, gi.pad_lo, s, phase_len, ident);
    const T* base = padded.data();
    if (OW >= Lanes) {
      for (int64_t j0 = 0;; j0 += Lanes) {   // the last block overlaps the one before
        const int64_t j = std::min(j0, OW - Lanes);
        V a = load_reg(base + tap[0] + j);
        for (int64_t kx = 1; kx < gi.size; ++kx)
          a = combine_vec<OP>(a, load_reg(base + tap[kx] + j));
        std::memcpy(res + j, &a, sizeof(V));
        if (j0 + Lanes >= OW) break;
      }
    } else {
      for (int64_t j = 0; j < OW; ++j) {
        T a = base[tap[0] + j];
        for (int64_t kx = 1; kx < gi.size; ++kx) a = combine<OP>(a, base[tap[kx] + j]);
        res[j] = a;
      }
    }
    if (running) {   // x * 0 is NaN for an infinity or NaN
      T z = T(0);
      for (int64_t j = 0; j < OW; ++j) z += res[j] * T(0);
      finite[slot] = z == T(0);
    }
    return res;
  };
  // acc = the exact column sum of output row oy's window rows
  auto exact_rows = [&](const char* src_plane, int64_t oy) {
    std::fill(acc.begin(), acc.end(), Acc(0));
    for (int64_t ky = 0; ky < go.size; ++ky) {
      const int64_t y = oy + ky - go.pad_lo;
      if (y < 0 || y >= go.in) continue;
      const T* t = row_result(src_plane, y);
      for (int64_t j = 0; j < OW; ++j) acc[j] += t[j];
    }
  };
  // acc: output row oy - 1's sum -> oy's
  auto step_rows = [&](const char* src_plane, int64_t oy) {
    const int64_t y_out = oy - 1 - go.pad_lo, y_in = oy - go.pad_lo + go.size - 1;
    const T* t_out = y_out >= 0 && y_out < go.in ? row_result(src_plane, y_out) : nullptr;
    const T* t_in = y_in >= 0 && y_in < go.in ? row_result(src_plane, y_in) : nullptr;
    if ((t_out && !finite[y_out % R]) || (t_in && !finite[y_in % R])) {
      exact_rows(src_plane, oy);
      return;
    }
    if (t_out)
      for (int64_t j = 0; j < OW; ++j) acc[j] -= t_out[j];
    if (t_in)
      for (int64_t j = 0; j < OW; ++j) acc[j] += t_in[j];
    Acc z = Acc(0);   // an overflowed sum (inf, or NaN once it leaves): exact instead
    for (int64_t j = 0; j < OW; ++j) z += acc[j] * Acc(0);
    if (z != Acc(0)) exact_rows(src_plane, oy);
  };
  const char* run_plane = nullptr;
  int64_t run_oy = -1;
  int64_t o[kWindowMaxDims];
  for (int64_t r = lo; r < hi; ++r) {
    row_index(p.dim, L, r, o);
    const char* src_plane = p.in;
    char* dst = p.out;
    for (int d = 0; d < L; ++d) {
      dst += o[d] * p.out_stride[d];
      if (d != dh) src_plane += o[d] * p.in_stride[d];
    }
    if (src_plane != plane) {   // a new plane: the ring holds none of its rows
      plane = src_plane;
      std::fill(held.begin(), held.end(), int64_t{-1});
    }
    const int64_t oy = dh >= 0 ? o[dh] : 0;
    const bool direct = p.out_stride[L] == int64_t{sizeof(T)};
    T* out = direct ? reinterpret_cast<T*>(dst) : line.data();
    if (running) {
      if (run_plane != src_plane || run_oy != oy - 1 || oy % kRunRestart == 0) {
        run_oy = oy - oy % kRunRestart;   // the restart row, then steps up to oy
        exact_rows(src_plane, run_oy);
      } else {
        run_oy = oy - 1;
      }
      for (; run_oy < oy; ++run_oy) step_rows(src_plane, run_oy + 1);
      run_plane = src_plane;
      for (int64_t j = 0; j < OW; ++j) out[j] = static_cast<T>(init + acc[j]);
      if (!direct)
        for (int64_t j = 0; j < OW; ++j)
          *reinterpret_cast<T*>(dst + j * p.out_stride[L]) = out[j];
      continue;
    }
    int nrows = 0;
    for (int64_t ky = 0; ky < go.size; ++ky) {
      const int64_t y = oy * go.stride + ky * go.win_dil - go.pad_lo;
      if (y >= 0 && y < go.in) rows[nrows++] = row_result(src_plane, y);
    }
    if (OW >= Lanes) {
      const V vinit = V{} + init;
      for (int64_t j0 = 0;; j0 += Lanes) {
        const int64_t j = std::min(j0, OW - Lanes);
        V a = V{} + ident;
        for (int q = 0; q < nrows; ++q) a = combine_vec<OP>(a, load_reg(rows[q] + j));
        a = combine_vec<OP>(vinit, a);
        std::memcpy(out + j, &a, sizeof(V));
        if (j0 + Lanes >= OW) break;
      }
    } else {
      for (int64_t j = 0; j < OW; ++j) {
        T a = ident;
        for (int q = 0; q < nrows; ++q) a = combine<OP>(a, rows[q][j]);
        out[j] = combine<OP>(init, a);
      }
    }
    if (!direct)
      for (int64_t j = 0; j < OW; ++j) *reinterpret_cast<T*>(dst + j * p.out_stride[L]) = out[j];
  }
}

template <class T, int OP>
void reduce_rows_typed(const ReduceWindowProblem& p, int64_t lo, int64_t hi) {
  using C = typename TypeInfo<T>::compute;
  const int L = p.ndim - 1;
  const WindowDim& inner = p.dim[L];
  const C init = load(*static_cast<const T*>(p.init));
  // (an array, not std::vector<C>: vector<bool> has no data())
  std::unique_ptr<C[]> acc(new C[static_cast<size_t>(inner.out)]);
  C* a = acc.get();
  // Max / min pools of 2 wide with stride 2 (2x2/2, any padding): the outputs whose taps
  // are both inside the row, [jl, jh), in one pass that reads each pair together (2x2/2 on
  // 16x64x112x112 on a Zen 4 VM: 6.0 -> 1.6 ms); the few others tap by tap. (Max / min
  // only: a sum keeps the taps' order, init + x0 + x1. 3-wide windows measured slower this
  // way, 0.18 -> 0.045 of copy bandwidth: they stay on the per-tap rows.)
  const bool pool2 = (OP == kWindowMax || OP == kWindowMin) && inner.size == 2 &&
                     inner.stride == 2 &&
                     inner.win_dil == 1 && inner.base_dil == 1 &&
                     p.in_stride[L] == int64_t{sizeof(T)};
  const int64_t pad = inner.pad_lo, reach = inner.in - inner.size + pad;
  const int64_t jl = std::min(inner.out, pad > 0 ? (pad + 1) / 2 : int64_t{0});
  const int64_t jh = std::max(jl, std::min(inner.out, reach < 0 ? int64_t{0} : reach / 2 + 1));
  int64_t o[kWindowMaxDims];
  for (int64_t r = lo; r < hi; ++r) {
    row_index(p.dim, L, r, o);
    for (int64_t j = 0; j < inner.out; ++j) a[j] = init;
    outer_taps(p.dim, o, p.in_stride, L, [&](int64_t off) {
      if (pool2) {
        const T* s = reinterpret_cast<const T*>(p.in + off);
        const T* first = s + (jl < jh ? 2 * jl - pad : 0);   // the pair of output jl
        for (int64_t j = jl; j < jh; ++j)
          a[j] = combine<OP>(a[j], combine<OP>(load(first[2 * (j - jl)]),
                                               load(first[2 * (j - jl) + 1])));
        auto border = [&](int64_t j) {
          for (int64_t k = 0; k < inner.size; ++k) {
            const int64_t x = 2 * j + k - pad;
            if (x >= 0 && x < inner.in) a[j] = combine<OP>(a[j], load(s[x]));
          }
        };
        for (int64_t j = 0; j < jl; ++j) border(j);
        for (int64_t j = jh; j < inner.out; ++j) border(j);
        return;
      }
      for (int64_t k = 0; k < inner.size; ++k)
        row_taps<T>(inner, k, p.in + off, p.in_stride[L],
                    [&](int64_t j, T v) { a[j] = combine<OP>(a[j], load(v)); },
                    [](int64_t) {});
    }, [] {});
    char* dst = p.out;
    for (int d = 0; d < L; ++d) dst += o[d] * p.out_stride[d];
    if (p.out_stride[L] == int64_t{sizeof(T)}) {
      T* d = reinterpret_cast<T*>(dst);
      for (int64_t j = 0; j < inner.out; ++j) d[j] = store<T>(a[j]);
    } else {
      for (int64_t j = 0; j < inner.out; ++j)
        *reinterpret_cast<T*>(dst + j * p.out_stride[L]) = store<T>(a[j]);
    }
  }
}

// 2x2 windows with stride 2 along the row dim and one other (dh), every tap inside the
// input (no padding, no dilation, 2 out <= in along both): sums and products of a vector
// of windows from the even and odd lanes of the two input rows, without the separable
// form's padded row copies and ring. The same order as reduce_separable, so the same bits:
// out = init op ((identity op (x00 op x01)) op (x10 op x11)).
template <class T>
bool pairs_2x2(const ReduceWindowProblem& p, int dh) {
  const int L = p.ndim - 1;
  if (dh < 0) return false;
  for (int d : {dh, L}) {
    const WindowDim& g = p.dim[d];
    if (g.size != 2 || g.stride != 2 || g.win_dil != 1 || g.pad_lo != 0 || 2 * g.out > g.in)
      return false;
  }
  return p.in_stride[L] == int64_t{sizeof(T)} && p.out_stride[L] == int64_t{sizeof(T)} &&
         p.dim[L].out >= int64_t{kRegisterBytes / sizeof(T)};
}

template <class T, int OP>
void reduce_pairs_2x2(const ReduceWindowProblem& p, int dh, int64_t lo, int64_t hi) {
  constexpr int64_t Lanes = kRegisterBytes / sizeof(T);
  using V = Reg<T>;
  const int L = p.ndim - 1;
  const int64_t OW = p.dim[L].out;
  const T init = *static_cast<const T*>(p.init), ident = identity_of<OP, T>();
  const V vinit = V{} + init, vident = V{} + ident;
  int64_t o[kWindowMaxDims];
  for (int64_t r = lo; r < hi; ++r) {
    row_index(p.dim, L, r, o);
    const char* src = p.in;
    char* dst = p.out;
    for (int d = 0; d < L; ++d) {
      dst += o[d] * p.out_stride[d];
      src += (d == dh ? 2 * o[d] : o[d]) * p.in_stride[d];
    }
    const T* row0 = reinterpret_cast<const T*>(src);
    const T* row1 = reinterpret_cast<const T*>(src + p.in_stride[dh]);
    T* out = reinterpret_cast<T*>(dst);
    for (int64_t j0 = 0;; j0 += Lanes) {   // the last block overlaps the one before
      const int64_t j = std::min(j0, OW - Lanes);
      const V a0 = load_reg(row0 + 2 * j), a1 = load_reg(row0 + 2 * j + Lanes);
      const V b0 = load_reg(row1 + 2 * j), b1 = load_reg(row1 + 2 * j + Lanes);
      const V r0 = combine_vec<OP>(lanes_even<T>(a0, a1), lanes_odd<T>(a0, a1));
      const V r1 = combine_vec<OP>(lanes_even<T>(b0, b1), lanes_odd<T>(b0, b1));
      const V a = combine_vec<OP>(vinit, combine_vec<OP>(combine_vec<OP>(vident, r0), r1));
      std::memcpy(out + j, &a, sizeof(V));
      if (j0 + Lanes >= OW) break;
    }
  }
}

inline int reduce_rows(const ReduceWindowProblem& p, int64_t lo, int64_t hi) {
  int status = 1;
  visit_dtype(p.dtype, [&](auto tag) {
    using T = decltype(tag);
    auto run = [&](auto op_tag) {
      constexpr int OP = decltype(op_tag)::value;
      if constexpr (defined<OP, T>()) {
        if constexpr ((std::is_same_v<T, float> || std::is_same_v<T, double>) &&
                      OP != kWindowAnd && OP != kWindowOr) {
          const int dh = separable_dim(p);
          const int64_t taps = p.dim[p.ndim - 1].size * (dh >= 0 ? p.dim[dh].size : 1);
          if ((OP == kWindowAdd || OP == kWindowMul) && pairs_2x2<T>(p, dh)) {
            reduce_pairs_2x2<T, OP>(p, dh, lo, hi);
            status = 0;
            return;
          }
          if (dh > -2 && (taps > 4 || OP == kWindowAdd || OP == kWindowMul)) {
            // (2x2 max / min pools: the per-tap rows' pairs are as fast)
            reduce_separable<T, OP>(p, dh, lo, hi);
            status = 0;
            return;
          }
        }
        reduce_rows_typed<T, OP>(p, lo, hi);
        status = 0;
      }
    };
    switch (p.op) {
      case kWindowAdd: run(std::integral_constant<int, kWindowAdd>{}); break;
      case kWindowMul: run(std::integral_constant<int, kWindowMul>{}); break;
      case kWindowMax: run(std::integral_constant<int, kWindowMax>{}); break;
      case kWindowMin: run(std::integral_constant<int, kWindowMin>{}); break;
      case kWindowAnd: run(std::integral_constant<int, kWindowAnd>{}); break;
      case kWindowOr: run(std::integral_constant<int, kWindowOr>{}); break;
      default: break;
    }
  });
  return status;
}

// One tap of a depthwise output row: output j in [lo, hi) reads src[(j - lo) * stride]
// (src: the input element of output lo) times w.
template <class T> struct RowTap {
  const T* src;
  T w;
  int64_t lo, hi;
};


// a[j] = sum over taps of w * input, j < n: blocks of one 64-byte vector of outputs where
// every tap reads (the accumulator stays in a register over all taps; the last block
// overlaps the one before rather than leaving a tail), then the border outputs tap by tap.
template <class T>
void run_row_taps(const RowTap<T>* taps, int64_t count, int64_t stride, int64_t n, T* a) {
  constexpr int64_t L = 64 / sizeof(T);
  int64_t jl = 0, jh = n;
  for (int64_t q = 0; q < count; ++q) {
    jl = std::max(jl, taps[q].lo);
    jh = std::min(jh, taps[q].hi);
  }
  if (count == 0 || jh < jl) jl = jh = 0;
  const bool blocks = stride == 1 && jh - jl >= L;
  if (blocks) {
    for (int64_t j0 = jl;; j0 += L) {
      const int64_t j = std::min(j0, jh - L);
      Vec64<T> acc = {};
      for (int64_t q = 0; q < count; ++q)
        acc += taps[q].w * load64(taps[q].src + (j - taps[q].lo));
      std::memcpy(a + j, &acc, sizeof(acc));
      if (j0 + L >= jh) break;
    }
  } else {
    jl = jh = 0;   // everything through the tap-by-tap loop below
  }
  for (int64_t j = 0; j < jl; ++j) a[j] = T(0);
  for (int64_t j = jh; j < n; ++j) a[j] = T(0);
  if (!blocks)
    for (int64_t j = 0; j < n; ++j) a[j] = T(0);
  for (int64_t q = 0; q < count; ++q) {
    const RowTap<T>& t = taps[q];
    for (int64_t j = t.lo; j < std::min(jl, t.hi); ++j) a[j] += t.w * t.src[(j - t.lo) * stride];
    for (int64_t j = std::max(blocks ? jh : 0, t.lo); j < t.hi; ++j)
      a[j] += t.w * t.src[(j - t.lo) * stride];
  }
}

// Depthwise rows through a padded copy (the spatial-inner form of a 1-D or 2-D problem
// without base dilation): the input rows a run of output rows reads are copied once into
// a small buffer with their padding as zeros, split into `stride` phases along the row
// (phase ph holds padded columns ph, ph + stride, ...), so every tap of every output is a
// plain load at a fixed offset and each vector of outputs accumulates all taps in a
// register, borders included. Worked example: 3x3, stride 1, padding 1 on a 56 x 56
// plane: the buffer is 58 x 58 (one zero row and column each side); tap (ky, kx) of
// output (y, j) reads buffer[y + ky][j + kx]. With stride 2 along the row, padded columns
// 0, 2, 4, ... form phase 0 and 1, 3, 5, ... phase 1; tap kx reads phase kx % 2 at j + kx / 2.
struct PlaneGeometry {
  WindowDim outer, inner;          // outer: a size-1 dim for a 1-D problem
  int64_t in_s_outer = 0, in_s_inner = 0, w_s_outer = 0, w_s_inner = 0;
  int64_t out_s_outer = 0, out_s_inner = 0;
};

inline bool plane_geometry(const DepthwiseProblem& p, PlaneGeometry* g) {
  const int n = p.nspatial;
  if (n > 2) return false;
  g->inner = p.dim[n - 1];
  g->in_s_inner = p.in_s[n - 1];
  g->w_s_inner = p.w_s[n - 1];
  g->out_s_inner = p.out_s[n - 1];
  if (n == 2) {
    g->outer = p.dim[0];
    g->in_s_outer = p.in_s[0];
    g->w_s_outer = p.w_s[0];
    g->out_s_outer = p.out_s[0];
  }
  return g->outer.base_dil == 1 && g->inner.base_dil == 1 && g->inner.stride <= 4 &&
         g->outer.size > 0 && g->inner.size > 0;   // (empty windows: the per-tap rows)
}

// Output rows [lo, hi) (row r: plane r / outer.out, output row r % outer.out) of a
// problem plane_geometry accepted. NT: the tap count when fixed at compile time (9: 3x3),
// else 0.
template <class T, int NT>
void depthwise_plane_rows(const DepthwiseProblem& p, const PlaneGeometry& g, int64_t lo,
                          int64_t hi) {
  constexpr int64_t L = kRegisterBytes / sizeof(T);   // (AVX2: 12 rows of
  // 64 bytes and the weights would spill)
  const WindowDim &go = g.outer, &gi = g.inner;
  const int64_t F = p.out_feat, W = gi.out, s = gi.stride;
  const int64_t ntaps = NT ? NT : go.size * gi.size;
  // phase length: the last output's farthest tap, j + ((size - 1) * win_dil) / s
  const int64_t span = ((gi.size - 1) * gi.win_dil) / s;
  const int64_t phase_len = W + span;
  const int64_t row_len = s * phase_len;              // one padded input row, all phases
  // output rows per chunk: the buffer stays within 64 KiB (at least one row)
  const int64_t rows_per_out = go.stride, extra = (go.size - 1) * go.win_dil + 1;
  // (and no more rows than this call runs: a single 100-element 1-D row, a NumPy-style
  // convolve, zeroed a 64 KiB buffer per call; f64, 5 taps, on a Zen 3 VM: 2.15 -> 1.31 us)
  int64_t chunk = std::max<int64_t>(
      1, (int64_t{65536} / int64_t{sizeof(T)} / row_len - extra) / rows_per_out + 1);
  chunk = std::min({chunk, go.out, hi - lo});
  // (every element of buf is written before it is read: fill_phase_row writes whole
  // padded rows, so it is not zeroed)
  std::unique_ptr<T[]> buf_own(new T[((chunk - 1) * rows_per_out + extra) * row_len]);
  T* const buf_data = buf_own.get();
  std::vector<T> tmp(g.out_s_inner == int64_t{sizeof(T)} ? 0 : static_cast<size_t>(W));
  std::vector<int64_t> off(static_cast<size_t>(ntaps));  // tap offsets in buf, at row 0
  std::vector<T> wv(static_cast<size_t>(ntaps));
  for (int64_t ky = 0, t = 0; ky < go.size; ++ky)
    for (int64_t kx = 0; kx < gi.size; ++kx, ++t) {
      const int64_t c = kx * gi.win_dil;
      off[t] = ky * go.win_dil * row_len + (c % s) * phase_len + c / s;
    }
  const int64_t outer = go.out;
  const char* built = nullptr;   // the input plane and first row now in buf
  int64_t built_y0 = -1, built_rows = 0;
  for (int64_t r = lo; r < hi;) {
    const int64_t bf = r / outer, oy0 = r % outer;
    const int64_t oy1 = std::min({outer, oy0 + chunk, oy0 + (hi - r)});
    const int64_t b = bf / F, f = bf % F;
    const char* in0 = p.in + b * p.in_sb + (f / p.multiplier) * p.in_sf;
    // padded rows [y0, y0 + nrows): padded row y is input row y - pad_lo
    const int64_t y0 = oy0 * go.stride, nrows = (oy1 - 1 - oy0) * go.stride + extra;
    if (built != in0 || built_y0 != y0 || built_rows != nrows) {
      for (int64_t y = 0; y < nrows; ++y) {
        T* row = buf_data + y * row_len;
        const int64_t iy = y0 + y - go.pad_lo;
        if (iy < 0 || iy >= go.in) {
          std::fill(row, row + row_len, T(0));
          continue;
        }
        const char* src = in0 + iy * g.in_s_outer;
        fill_phase_row(row, src, g.in_s_inner, gi.in, gi.pad_lo, s, phase_len, T(0));
      }
      built = in0;
      built_y0 = y0;
      built_rows = nrows;
    }
    const char* w0 = p.w + f * p.w_sf;
    for (int64_t ky = 0, t = 0; ky < go.size; ++ky)
      for (int64_t kx = 0; kx < gi.size; ++kx, ++t)
        wv[t] = *reinterpret_cast<const T*>(w0 + ky * g.w_s_outer + kx * g.w_s_inner);
    // (a fixed tap count keeps offsets and weights in registers: the output stores may
    // alias neither local copy)
    int64_t o_fixed[NT ? NT : 1];
    T w_fixed[NT ? NT : 1];
    if constexpr (NT > 0) {
      std::copy(off.begin(), off.end(), o_fixed);
      std::copy(wv.begin(), wv.end(), w_fixed);
    }
    const int64_t* o = NT ? o_fixed : off.data();
    const T* w = NT ? w_fixed : wv.data();
    // 3x3 windows sliding by one row: two output rows at once share their middle input
    // rows (12 loads for 2 vectors of outputs, not 18; the same sums in the same order)
    const bool pairs = NT == 9 && go.size == 3 && go.stride == 1 && go.win_dil == 1 &&
                       W >= L && g.out_s_inner == int64_t{sizeof(T)};
    for (int64_t oy = oy0; oy < oy1; ++oy) {
      const T* base = buf_data + (oy - oy0) * go.stride * row_len;
      char* dst_row = p.out + b * p.out_sb + f * p.out_sf + oy * g.out_s_outer;
      if (pairs && oy + 1 < oy1) {
        T* a0 = reinterpret_cast<T*>(dst_row);
        T* a1 = reinterpret_cast<T*>(dst_row + g.out_s_outer);
        for (int64_t j0 = 0;; j0 += L) {
          const int64_t j = std::min(j0, W - L);
          Reg<T> x[4][3];
          for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 3; ++c) x[r][c] = load_reg(base + r * row_len + o[c] + j);
          Reg<T> acc0 = {}, acc1 = {};
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
              acc0 += w[ky * 3 + kx] * x[ky][kx];
              acc1 += w[ky * 3 + kx] * x[ky + 1][kx];
            }
          std::memcpy(a0 + j, &acc0, sizeof(acc0));
          std::memcpy(a1 + j, &acc1, sizeof(acc1));
          if (j0 + L >= W) break;
        }
        ++oy;
        continue;
      }
      const bool direct = g.out_s_inner == int64_t{sizeof(T)};
      T* a = direct ? reinterpret_cast<T*>(dst_row) : tmp.data();
      if (W >= L) {
        int64_t j0 = 0;
        if constexpr (NT == 0) {
          // four vectors of outputs per pass over the taps: each tap's weight and offset
          // are loaded once for 4 loads and 4 multiply-adds (the same sums, tap by tap)
          // (four named accumulators: an array of them was zeroed with `rep stos`)
          for (; j0 + 4 * L <= W; j0 += 4 * L) {
            Reg<T> acc0 = {}, acc1 = {}, acc2 = {}, acc3 = {};
            for (int64_t t = 0; t < ntaps; ++t) {
              const T* src = base + o[t] + j0;
              const T wt = w[t];
              acc0 += wt * load_reg(src);
              acc1 += wt * load_reg(src + L);
              acc2 += wt * load_reg(src + 2 * L);
              acc3 += wt * load_reg(src + 3 * L);
            }
            std::memcpy(a + j0, &acc0, sizeof(acc0));
            std::memcpy(a + j0 + L, &acc1, sizeof(acc1));
            std::memcpy(a + j0 + 2 * L, &acc2, sizeof(acc2));
            std::memcpy(a + j0 + 3 * L, &acc3, sizeof(acc3));
          }
        }
        for (; j0 < W; j0 += L) {   // the last block overlaps the one before
          const int64_t j = std::min(j0, W - L);
          Reg<T> acc = {};
          for (int64_t t = 0; t < ntaps; ++t) acc += w[t] * load_reg(base + o[t] + j);
          std::memcpy(a + j, &acc, sizeof(acc));
          if (j0 + L >= W) break;
        }
      } else {
        for (int64_t j = 0; j < W; ++j) {
          T sum = T(0);
          for (int64_t t = 0; t < ntaps; ++t) sum += w[t] * base[o[t] + j];
          a[j] = sum;
        }
      }
      if (!direct)
        for (int64_t j = 0; j < W; ++j)
          *reinterpret_cast<T*>(dst_row + j * g.out_s_inner) = a[j];
    }
    r += oy1 - oy0;
  }
}

// Depthwise rows. Spatial-inner form (channels_inner false): a row is (b, f, o[0..n-1)),
// the vector loop runs along the last spatial dim. Channel-inner form (NHWC, multiplier
// 1, unit feature strides): a row is (b, o[0..n)), the vector loop runs over features.
template <class T>
void depthwise_rows_typed(const DepthwiseProblem& p, bool channels_inner, int64_t lo,
                          int64_t hi) {
  const int n = p.nspatial;
  const int64_t F = p.out_feat;
  int64_t o[3];
  if (!channels_inner) {
    PlaneGeometry g;
    if (plane_geometry(p, &g)) {
      if (g.outer.size * g.inner.size == 9) depthwise_plane_rows<T, 9>(p, g, lo, hi);
      else depthwise_plane_rows<T, 0>(p, g, lo, hi);
      return;
    }
    const WindowDim& inner = p.dim[n - 1];
    std::vector<T> acc(static_cast<size_t>(inner.out));
    T* a = acc.data();
    // Each inner tap's valid outputs [lo, hi) and first input element, the same on every
    // row (computed once, not per row and tap), when the row is contiguous and undilated.
    const bool unit = inner.base_dil == 1 && p.in_s[n - 1] == int64_t{sizeof(T)};
    struct Span { int64_t lo, hi, first; };
    std::vector<Span> span(static_cast<size_t>(inner.size));
    for (int64_t kk = 0; kk < inner.size; ++kk) {
      valid_range(inner, kk, &span[kk].lo, &span[kk].hi);
      span[kk].first = span[kk].lo * inner.stride + kk * inner.win_dil - inner.pad_lo;
    }
    int64_t max_taps = 1;
    for (int d = 0; d < n; ++d) max_taps *= p.dim[d].size;
    std::vector<RowTap<T>> taps(static_cast<size_t>(max_taps));
    int64_t outer = 1;   // rows per (b, f): the outer spatial positions
    for (int d = 0; d < n - 1; ++d) outer *= p.dim[d].out;
    for (int64_t r = lo; r < hi; ++r) {
      row_index(p.dim, n - 1, r % outer, o);
      const int64_t bf = r / outer, b = bf / F, f = bf % F;
      const char* in0 = p.in + b * p.in_sb + (f / p.multiplier) * p.in_sf;
      const char* w0 = p.w + f * p.w_sf;
      if (!unit)
        for (int64_t j = 0; j < inner.out; ++j) a[j] = T(0);
      int64_t k[3] = {0, 0, 0}, ntaps = 0;
      // taps of the outer spatial dims, each with its filter row
      for (;;) {
        int64_t off = 0, woff = 0;
        bool real = true;
        for (int d = 0; d < n - 1 && real; ++d) {
          int64_t i;
          real = tap_index(p.dim[d], o[d], k[d], &i);
          off += i * p.in_s[d];
          woff += k[d] * p.w_s[d];
        }
        if (real && unit) {  // the common case: collect the row's taps, run them below
          // (field by field: a whole-struct copy read back fresh 8- and 4-byte stores as
          // one 32-byte load, which stalled on store forwarding: 68% of the time)
          const T* row = reinterpret_cast<const T*>(in0 + off);
          for (int64_t kk = 0; kk < inner.size; ++kk) {
            if (span[kk].lo >= span[kk].hi) continue;
            RowTap<T>& t = taps[ntaps++];
            t.src = row + span[kk].first;
            t.w = *reinterpret_cast<const T*>(w0 + woff + kk * p.w_s[n - 1]);
            t.lo = span[kk].lo;
            t.hi = span[kk].hi;
          }
        } else if (real) {
          for (int64_t kk = 0; kk < inner.size; ++kk) {
            const T wv = *reinterpret_cast<const T*>(w0 + woff + kk * p.w_s[n - 1]);
            row_taps<T>(inner, kk, in0 + off, p.in_s[n - 1],
                        [&](int64_t j, T v) { a[j] += wv * v; }, [](int64_t) {});
          }
        }
        int d = n - 2;
        for (; d >= 0; --d) {
          if (++k[d] < p.dim[d].size) break;
          k[d] = 0;
        }
        if (d < 0) break;
      }
      if (unit) run_row_taps(taps.data(), ntaps, inner.stride, inner.out, a);
      char* dst = p.out + b * p.out_sb + f * p.out_sf;
      for (int d = 0; d < n - 1; ++d) dst += o[d] * p.out_s[d];
      if (p.out_s[n - 1] == int64_t{sizeof(T)}) {
        std::copy(a, a + inner.out, reinterpret_cast<T*>(dst));
      } else {
        for (int64_t j = 0; j < inner.out; ++j)
          *reinterpret_cast<T*>(dst + j * p.out_s[n - 1]) = a[j];
      }
    }
    return;
  }
  std::vector<std::pair<const T*, const T*>> taps;   // (input, filter) feature rows
  int64_t positions = 1;
  for (int d = 0; d < n; ++d) positions *= p.dim[d].out;
  constexpr int64_t L = 64 / sizeof(T);
  for (int64_t r = lo; r < hi; ++r) {
    const int64_t b = r / positions;
    row_index(p.dim, n, r % positions, o);
    taps.clear();
    const char* in0 = p.in + b * p.in_sb;
    int64_t k[3] = {0, 0, 0};
    for (;;) {
      int64_t off = 0, woff = 0;
      bool real = true;
      for (int d = 0; d < n && real; ++d) {
        int64_t i;
        real = tap_index(p.dim[d], o[d], k[d], &i);
        off += i * p.in_s[d];
        woff += k[d] * p.w_s[d];
      }
      if (real)
        taps.emplace_back(reinterpret_cast<const T*>(in0 + off),
                          reinterpret_cast<const T*>(p.w + woff));
      int d = n - 1;
      for (; d >= 0; --d) {
        if (++k[d] < p.dim[d].size) break;
        k[d] = 0;
      }
      if (d < 0) break;
    }
    char* row = p.out + b * p.out_sb;
    for (int d = 0; d < n; ++d) row += o[d] * p.out_s[d];
    T* dst = reinterpret_cast<T*>(row);
    // blocks of one vector of features in a register over all taps (as run_row_taps; the
    // last block overlaps), or feature by feature when there are fewer
    if (F >= L) {
      for (int64_t f0 = 0;; f0 += L) {
        const int64_t f = std::min(f0, F - L);
        Vec64<T> acc = {};
        for (const auto& t : taps) acc += load64(t.second + f) * load64(t.first + f);
        std::memcpy(dst + f, &acc, sizeof(acc));
        if (f0 + L >= F) break;
      }
    } else {
      for (int64_t f = 0; f < F; ++f) {
        T sum = T(0);
        for (const auto& t : taps) sum += t.second[f] * t.first[f];
        dst[f] = sum;
      }
    }
  }
}


// ------------------------------------------------------------------ Winograd F(2x2, 3x3)
// The transforms of window.h's winograd_run, kTileLanes tiles of a tile row per register
// (16 with AVX-512, 8 with AVX2: a transform holds 16 vectors, which 64-byte vectors on
// AVX2 would spill): a tile's 4 input columns are the even and odd elements of its patch
// rows, taken from a copy of the rows with their padding as zeros (one shuffle each); its
// 2 output columns are interleaved back. A segment of at least kTileLanes tiles ends with a
// vector overlapping the one before (the same values again); a shorter one computes
// kTileLanes lanes and stores only its own (input: the later segments overwrite the rest,
// and winograd_run pads each of the 16 transformed matrices by 16 floats; output: through
// a staging row).
using FR = Reg<float>;
constexpr int64_t kTileLanes = sizeof(FR) / sizeof(float);
static_assert(kTileLanes <= 16);

// Vector starts i0 over a segment of n tiles: 0, kTileLanes, ..., the last at
// max(n - kTileLanes, 0).
template <class Body> inline void tile_vectors(int64_t n, Body body) {
  for (int64_t i = 0;; i += kTileLanes) {
    body(std::min(i, std::max<int64_t>(n - kTileLanes, 0)));
    if (i + kTileLanes >= n) break;
  }
}

inline void winograd_input(const WinogradProblem& p, const WinogradSegment* seg, int nseg,
                           int64_t c0, int64_t c1, int64_t nr, float* v, int64_t v_xi) {
  int64_t row_len = 2 * kTileLanes + 2;   // a vector of tiles reads 2 per tile + 2
  for (int s = 0; s < nseg; ++s) row_len = std::max(row_len, 2 * seg[s].n + 2);
  std::vector<float> rows(static_cast<size_t>(4 * row_len));
  for (int64_t c = c0; c < c1; ++c) {
    for (int s = 0; s < nseg; ++s) {
      const WinogradSegment& g = seg[s];
      const int64_t xs = 2 * g.tx0 - p.pad_left;   // input column of patch column 0
      const int64_t lo = std::clamp<int64_t>(-xs, 0, row_len);
      const int64_t hi = std::clamp<int64_t>(p.in_w - xs, lo, row_len);
      for (int r = 0; r < 4; ++r) {
        float* row = rows.data() + r * row_len;
        const int64_t y = 2 * g.ty - p.pad_top + r;
        if (y < 0 || y >= p.in_h) {
          std::fill(row, row + row_len, 0.0f);
          continue;
        }
        const float* src = reinterpret_cast<const float*>(p.in + g.b * p.in_sb + c * p.in_sc +
                                                          y * p.in_sh) + xs;
        std::fill(row, row + lo, 0.0f);
        std::memcpy(row + lo, src + lo, static_cast<size_t>(hi - lo) * sizeof(float));
        std::fill(row + hi, row + row_len, 0.0f);
      }
      float* dst = v + (c - c0) * nr + g.lane0;
      tile_vectors(g.n, [&](int64_t i0) {
        FR t[4][4];
        for (int r = 0; r < 4; ++r) {
          const float* q = rows.data() + r * row_len + 2 * i0;
          const FR a0 = load_reg(q), a1 = load_reg(q + kTileLanes), b0 = load_reg(q + 2),
                   b1 = load_reg(q + kTileLanes + 2);
          const FR d0 = lanes_even<float>(a0, a1), d1 = lanes_odd<float>(a0, a1),
                   d2 = lanes_even<float>(b0, b1), d3 = lanes_odd<float>(b0, b1);
          t[r][0] = d0 - d2;
          t[r][1] = d1 + d2;
          t[r][2] = d2 - d1;
          t[r][3] = d1 - d3;
        }
        for (int j = 0; j < 4; ++j) {
          const FR u[4] = {t[0][j] - t[2][j], t[1][j] + t[2][j], t[2][j] - t[1][j],
                            t[1][j] - t[3][j]};
          for (int i = 0; i < 4; ++i)
            std::memcpy(dst + (4 * i + j) * v_xi + i0, &u[i], sizeof(FR));
        }
      });
    }
  }
}

inline void winograd_output(const WinogradProblem& p, const WinogradSegment* seg, int nseg,
                            int64_t nr, const float* m, int64_t m_xi) {
  float stage[2 * kTileLanes];
  for (int64_t k = 0; k < p.out_feat; ++k) {
    for (int s = 0; s < nseg; ++s) {
      const WinogradSegment& g = seg[s];
      const float* src = m + k * nr + g.lane0;
      char* plane = p.out + g.b * p.out_sb + k * p.out_sk;
      tile_vectors(g.n, [&](int64_t i0) {
        FR q[4][2];   // A^T M along the columns of each row of M
        for (int i = 0; i < 4; ++i) {
          const FR m0 = load_reg(src + (4 * i) * m_xi + i0),
                   m1 = load_reg(src + (4 * i + 1) * m_xi + i0),
                   m2 = load_reg(src + (4 * i + 2) * m_xi + i0),
                   m3 = load_reg(src + (4 * i + 3) * m_xi + i0);
          q[i][0] = m0 + m1 + m2;
          q[i][1] = m1 - m2 - m3;
        }
        const int64_t x0 = 2 * (g.tx0 + i0);
        const int64_t width = std::min(2 * std::min<int64_t>(kTileLanes, g.n - i0), p.out_w - x0);
        for (int i = 0; i < 2; ++i) {
          const int64_t y = 2 * g.ty + i;
          if (y >= p.out_h) break;
          const FR y0 = i == 0 ? q[0][0] + q[1][0] + q[2][0] : q[1][0] - q[2][0] - q[3][0];
          const FR y1 = i == 0 ? q[0][1] + q[1][1] + q[2][1] : q[1][1] - q[2][1] - q[3][1];
          const FR lo = lanes_zip_lo<float>(y0, y1), hi = lanes_zip_hi<float>(y0, y1);
          float* dst = reinterpret_cast<float*>(plane + y * p.out_sh) + x0;
          if (width == 2 * kTileLanes) {
            std::memcpy(dst, &lo, sizeof(FR));
            std::memcpy(dst + kTileLanes, &hi, sizeof(FR));
          } else {
            std::memcpy(stage, &lo, sizeof(FR));
            std::memcpy(stage + kTileLanes, &hi, sizeof(FR));
            std::memcpy(dst, stage, static_cast<size_t>(width) * sizeof(float));
          }
        }
      });
    }
  }
}

inline int depthwise_rows(const DepthwiseProblem& p, int64_t lo, int64_t hi) {
  const bool ci = depthwise_channels_inner(p);
  if (p.dtype == kF32) depthwise_rows_typed<float>(p, ci, lo, hi);
  else if (p.dtype == kF64) depthwise_rows_typed<double>(p, ci, lo, hi);
  else return 1;
  return 0;
}

// ------------------------------------------------------------------ select and scatter, 2x2/2
// A max pool's gradient (select_and_scatter_add with 2x2 windows, stride 2, no padding:
// every element in at most one window), one pair of rows at a time, a vector of windows
// at once: the four taps of each window are the even and odd elements of the two operand
// rows; the selected one (select over the taps in row-major order, the first kept when
// select prefers it: ge picks the first maximum, NaN is taken when met, as the scalar
// walk) gets init + source, the others init. An odd row's last element gets init.
template <int SEL, class V> inline auto keeps(V a, V b) {
  if constexpr (SEL == kSelectGe) return a >= b;
  else if constexpr (SEL == kSelectGt) return a > b;
  else if constexpr (SEL == kSelectLe) return a <= b;
  else return a < b;
}

template <class T, int SEL>
void select_pairs_typed(const T* op0, const T* op1, const T* src, T* out0, T* out1,
                        int64_t in_w, int64_t out_w, T init) {
  constexpr int64_t L = kRegisterBytes / sizeof(T);
  using V = Reg<T>;   // (compares)
  auto window = [&](auto tl, auto tr, auto bl, auto br, auto s, auto* o) {
    using X = decltype(tl);      // a vector of windows, or one (the tail)
    const X zero{};              // (not tl - tl: inf - inf is NaN)
    X best = tl, which = zero;   // the selected tap's number, 0..3, as T
    auto k = keeps<SEL>(best, tr);
    best = k ? best : tr;
    which = k ? which : zero + T(1);
    k = keeps<SEL>(best, bl);
    best = k ? best : bl;
    which = k ? which : zero + T(2);
    k = keeps<SEL>(best, br);
    which = k ? which : zero + T(3);
    const X with = s + init, without = zero + init;
    for (int q = 0; q < 4; ++q) o[q] = which == zero + T(q) ? with : without;
  };
  int64_t j = 0;
  if (out_w >= L) {
    for (int64_t j0 = 0;; j0 += L) {   // the last block overlaps the one before
      j = std::min(j0, out_w - L);
      const V a0 = load_reg(op0 + 2 * j), a1 = load_reg(op0 + 2 * j + L);
      const V b0 = load_reg(op1 + 2 * j), b1 = load_reg(op1 + 2 * j + L);
      V o[4];
      window(lanes_even<T>(a0, a1), lanes_odd<T>(a0, a1), lanes_even<T>(b0, b1),
             lanes_odd<T>(b0, b1), load_reg(src + j), o);
      const V r0 = lanes_zip_lo<T>(o[0], o[1]), r1 = lanes_zip_hi<T>(o[0], o[1]);
      const V r2 = lanes_zip_lo<T>(o[2], o[3]), r3 = lanes_zip_hi<T>(o[2], o[3]);
      std::memcpy(out0 + 2 * j, &r0, sizeof(V));
      std::memcpy(out0 + 2 * j + L, &r1, sizeof(V));
      std::memcpy(out1 + 2 * j, &r2, sizeof(V));
      std::memcpy(out1 + 2 * j + L, &r3, sizeof(V));
      if (j0 + L >= out_w) break;
    }
    j = out_w;
  }
  for (; j < out_w; ++j) {
    T o[4];
    window(op0[2 * j], op0[2 * j + 1], op1[2 * j], op1[2 * j + 1], src[j], o);
    out0[2 * j] = o[0];
    out0[2 * j + 1] = o[1];
    out1[2 * j] = o[2];
    out1[2 * j + 1] = o[3];
  }
  for (int64_t x = 2 * out_w; x < in_w; ++x) out0[x] = out1[x] = init;
}

// One row pair (window.h WindowTable::select_pairs); 1: no kernel for the dtype.
inline int select_pairs(int dtype, int select, const char* op0, const char* op1,
                        const char* src, char* out0, char* out1, int64_t in_w, int64_t out_w,
                        const void* init) {
  auto run = [&](auto tag) {
    using T = decltype(tag);
    auto go = [&](auto sel) {
      select_pairs_typed<T, decltype(sel)::value>(
          reinterpret_cast<const T*>(op0), reinterpret_cast<const T*>(op1),
          reinterpret_cast<const T*>(src), reinterpret_cast<T*>(out0),
          reinterpret_cast<T*>(out1), in_w, out_w, *static_cast<const T*>(init));
    };
    switch (select) {
      case kSelectGe: go(std::integral_constant<int, kSelectGe>{}); break;
      case kSelectGt: go(std::integral_constant<int, kSelectGt>{}); break;
      case kSelectLe: go(std::integral_constant<int, kSelectLe>{}); break;
      default: go(std::integral_constant<int, kSelectLt>{}); break;
    }
  };
  if (dtype == kF32) run(float{});
  else if (dtype == kF64) run(double{});
  else return 1;
  return 0;
}

inline void fill_table(WindowTable* t) {
  t->reduce_rows = &reduce_rows;
  t->depthwise_rows = &depthwise_rows;
  t->winograd_input = &winograd_input;
  t->winograd_output = &winograd_output;
  t->select_pairs = &select_pairs;
}

}  // namespace window_detail
}  // namespace XARR_ISA_NS
}  // namespace xarr
