// The reduction primitives of one ISA (reduce.h's ReduceKernel), and the function that
// fills a ReduceTable with them.
//
// Compiled once per ISA (reduce_ref.cpp, reduce_baseline.cpp, reduce_avx2.cpp,
// reduce_avx512.cpp) inside a distinct namespace XARR_ISA_NS. The reference
// (XARR_REDUCE_REFERENCE) runs the lanes as plain scalar loops; the vector builds run the
// same lanes as 64 bytes of native GCC vectors (2 ymm on AVX2, 1 zmm on AVX-512, 4 xmm on
// SSE2), so each lane sees the same operations in the same order and every table gives
// the same bits.
//
// Horizontal (the reduced dim is contiguous): a leaf is kLeafLanes lane elements in two
// interleaved sets of L lanes; lane j of set 0 folds elements j, j+2L, j+4L ..., of set 1
// elements L+j, 3L+j, ..., in order starting from the identity (-0.0 for float sums, so a
// sum of -0.0 stays -0.0); set 1 folds into set 0 (details at `leaf`). Leaves are combined
// in a binary cascade
// (a binary counter: two items of the same level merge, older op newer); what is left is
// folded from the newest to the oldest item. The 64-byte result is then folded by halving
// (lane j op lane j + L/2, ...) to one value.
// Vertical (a major dim is reduced): a leaf is kRowLeaf rows folded column by column in
// order (starting from the first row), leaves cascade the same way.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/dtype.h"
#include "core/register_width.h"
#include "kernels/reduce/reduce.h"

#if defined(__F16C__) || defined(__AVX__)
#include <immintrin.h>
#endif
#if defined(__AVX512F__)
// GCC 12's _mm512_cvtph_ps warns about its own internal passthrough operand.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#ifndef XARR_ISA_NS
#error "define XARR_ISA_NS before including reduce_kernels.h"
#endif

namespace xarr {
namespace XARR_ISA_NS {
namespace red {

#if defined(XARR_REDUCE_REFERENCE)
#define XARR_RSIMD
constexpr bool kVectorBuild = false;
#else
#define XARR_RSIMD _Pragma("omp simd")
constexpr bool kVectorBuild = true;
#endif

template <class T> struct IsCplx : std::false_type {};
template <class R> struct IsCplx<std::complex<R>> : std::true_type {};
template <class T> struct RealT { using type = T; };
template <class R> struct RealT<std::complex<R>> { using type = R; };

// ------------------------------------------------------------------ monoids
// f(older, newer) for scalars; fv for 64-byte vectors of the same lanes.
struct FSum {
  static constexpr bool kWrap = true;
  template <class A> static A id() {
    if constexpr (std::is_floating_point_v<A>) return A(-0.0);
    else if constexpr (IsCplx<A>::value) return A(-0.0, -0.0);
    else return A(0);
  }
  template <class A> static A empty() { return A(0); }
  template <class X> static X f(X a, X b) { return static_cast<X>(a + b); }
  template <class X> static X fv(X a, X b) { return a + b; }
};
struct FProd {
  static constexpr bool kWrap = true;
  template <class A> static A id() { return A(1); }
  template <class A> static A empty() { return A(1); }
  template <class X> static X f(X a, X b) {
    if constexpr (std::is_integral_v<X> && sizeof(X) < sizeof(unsigned)) {
      return static_cast<X>(static_cast<unsigned>(a) * static_cast<unsigned>(b));
    } else if constexpr (IsCplx<X>::value) {
      // The identity lanes start from must not touch a value: (1 + 0j) * (2 + inf j) is
      // nan + inf j by the product formula (0 * inf), while NumPy, which starts from the
      // first element, keeps 2 + inf j. Complex products run on the reference kernel only.
      if (a == X(1)) return b;
      if (b == X(1)) return a;
      return a * b;
    } else {
      return a * b;
    }
  }
  template <class X> static X fv(X a, X b) { return a * b; }
};
// The larger (kMax) or smaller of float vectors a (the accumulator) and b, NaN if either is
// NaN: b > a ? b : a, then b where b is NaN - the scalar FMax::f / FMin::f lane by lane.
// On AVX / AVX-512 it is NumPy's maxn: one maxps(b, a) (which returns a when either is
// NaN) and a masked move of a NaN b. GCC merges the two plain selects into
// cmp + cmp + or + blend, a third more work on a loop bound by it.
template <bool kMax, class X>
static inline __attribute__((always_inline)) X nan_max_min(X a, X b) {
  using E = std::remove_reference_t<decltype(a[0])>;
#if defined(__AVX512F__)
  if constexpr (sizeof(X) == 64 && std::is_same_v<E, float>) {
    const __m512 av = reinterpret_cast<__m512>(a), bv = reinterpret_cast<__m512>(b);
    const __m512 m = kMax ? _mm512_max_ps(bv, av) : _mm512_min_ps(bv, av);
    return reinterpret_cast<X>(
        _mm512_mask_mov_ps(m, _mm512_cmp_ps_mask(bv, bv, _CMP_UNORD_Q), bv));
  } else if constexpr (sizeof(X) == 64 && std::is_same_v<E, double>) {
    const __m512d av = reinterpret_cast<__m512d>(a), bv = reinterpret_cast<__m512d>(b);
    const __m512d m = kMax ? _mm512_max_pd(bv, av) : _mm512_min_pd(bv, av);
    return reinterpret_cast<X>(
        _mm512_mask_mov_pd(m, _mm512_cmp_pd_mask(bv, bv, _CMP_UNORD_Q), bv));
  }
#endif
#if defined(__AVX__)
  if constexpr (sizeof(X) == 32 && std::is_same_v<E, float>) {
    const __m256 av = reinterpret_cast<__m256>(a), bv = reinterpret_cast<__m256>(b);
    const __m256 m = kMax ? _mm256_max_ps(bv, av) : _mm256_min_ps(bv, av);
    return reinterpret_cast<X>(_mm256_blendv_ps(m, bv, _mm256_cmp_ps(bv, bv, _CMP_UNORD_Q)));
  } else if constexpr (sizeof(X) == 32 && std::is_same_v<E, double>) {
    const __m256d av = reinterpret_cast<__m256d>(a), bv = reinterpret_cast<__m256d>(b);
    const __m256d m = kMax ? _mm256_max_pd(bv, av) : _mm256_min_pd(bv, av);
    return reinterpret_cast<X>(_mm256_blendv_pd(m, bv, _mm256_cmp_pd(bv, bv, _CMP_UNORD_Q)));
  }
#endif
  const X m = kMax ? (b > a ? b : a) : (b < a ? b : a);
  return b != b ? b : m;
}

struct FMax {
  static constexpr bool kWrap = false;
  template <class A> static A id() {
    if constexpr (std::is_floating_point_v<A>) return -std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::lowest();
  }
  template <class A> static A empty() { return id<A>(); }
  template <class X> static X f(X a, X b) {
    if constexpr (std::is_floating_point_v<X>) {
      // The larger, NaN if either is NaN, as two plain selects (NumPy's maxn): b > a ? b : a
      // is one maxps, which keeps a when either is NaN; a NaN b then takes over. (An ||
      // form compiled to branches, which random data mispredicts in the scalar leaves.)
      const X m = b > a ? b : a;
      return b != b ? b : m;
    } else {
      return a >= b ? a : b;
    }
  }
  template <class X> static X fv(X a, X b) {
    if constexpr (std::is_floating_point_v<std::remove_reference_t<decltype(a[0])>>) {
      return nan_max_min<true>(a, b);
    } else {
      return a >= b ? a : b;
    }
  }
  // cand strictly beats cur (NaN beats any number; the first NaN stays).
  template <class A> static bool better(A c, A cur) {
    if constexpr (std::is_floating_point_v<A>) return c > cur || (c != c && cur == cur);
    else return c > cur;
  }
};
struct FMin {
  static constexpr bool kWrap = false;
  template <class A> static A id() {
    if constexpr (std::is_floating_point_v<A>) return std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::max();
  }
  template <class A> static A empty() { return id<A>(); }
  template <class X> static X f(X a, X b) {
    if constexpr (std::is_floating_point_v<X>) {
      const X m = b < a ? b : a;      // see FMax
      return b != b ? b : m;
    } else {
      return a <= b ? a : b;
    }
  }
  template <class X> static X fv(X a, X b) {
    if constexpr (std::is_floating_point_v<std::remove_reference_t<decltype(a[0])>>) {
      return nan_max_min<false>(a, b);
    } else {
      return a <= b ? a : b;
    }
  }
  template <class A> static bool better(A c, A cur) {
    if constexpr (std::is_floating_point_v<A>) return c < cur || (c != c && cur == cur);
    else return c < cur;
  }
};
struct FAnd {
  static constexpr bool kWrap = false;
  template <class A> static A id() { return static_cast<A>(~A(0)); }
  template <class A> static A empty() { return id<A>(); }
  template <class X> static X f(X a, X b) { return static_cast<X>(a & b); }
  template <class X> static X fv(X a, X b) { return a & b; }
};
struct FOr {
  static constexpr bool kWrap = false;
  template <class A> static A id() { return A(0); }
  template <class A> static A empty() { return A(0); }
  template <class X> static X f(X a, X b) { return static_cast<X>(a | b); }
  template <class X> static X fv(X a, X b) { return a | b; }
};

// Accumulator type: pred -> u8 (0/1), f16/bf16 -> f32, wrapping ops on integers -> unsigned.
template <class X> struct Same { using type = X; };
template <class T, class F> struct AccOf {
  using C0 = typename TypeInfo<T>::compute;
  using C = std::conditional_t<std::is_same_v<T, bool>, uint8_t, C0>;
  using type = typename std::conditional_t<std::is_integral_v<C> && F::kWrap,
                                           std::make_unsigned<C>,
                                           Same<C>>::type;
};

// The native vector width of the build: a 64-byte lane block is kNV native vectors.
constexpr int kVB = kRegisterBytes;

template <class H, bool = !IsCplx<H>::value> struct VecOf {
  typedef H type __attribute__((vector_size(kVB)));
};
template <class H> struct VecOf<H, false> { struct type {}; };

// ------------------------------------------------------------------ kernels
template <class T, class F> struct Kern {
  using A = typename AccOf<T, F>::type;
  static constexpr bool kCS = IsCplx<A>::value && std::is_same_v<F, FSum>;
  using H = std::conditional_t<kCS, typename RealT<A>::type, A>;
  static constexpr int kPer = kCS ? 2 : 1;              // lane elements per storage element
  static constexpr int L = 64 / sizeof(H);
  static constexpr int64_t kLeafLanes = 64 * L;
  static constexpr int64_t kLeaf = kLeafLanes / kPer;
  static constexpr int64_t kRowLeaf = 32;
  // arg_row's chunks, elements: a strided row's (the leaf gathers at most kLeaf) and a
  // contiguous row's (the leaf reads it in place; the winning chunk is scanned again).
  static constexpr int64_t kArgChunk = kLeaf;
  static constexpr int64_t kArgRunChunk = 16 * kLeaf;
  static constexpr bool kVec = kVectorBuild && !IsCplx<H>::value;
  // An integer fold (sums wrap; max, min, and, or) gives the same bits in any order, so
  // a contiguous row needs no pairwise tree: row() folds it as one leaf. (Not float max /
  // min: a tie of -0.0 and +0.0 keeps the older one, so the order shows in the sign.)
  static constexpr bool kExact = std::is_integral_v<H>;
  using V = typename VecOf<H>::type;

  static A ld(const T& v) { return static_cast<A>(load<T>(v)); }
  static void put(A r, char* dst) {
    T v;
    if constexpr (std::is_same_v<T, bool>) v = r != 0;
    else if constexpr (std::is_same_v<T, f16>) v = static_cast<f16>(r);
    else if constexpr (std::is_same_v<T, bf16>) v = float_to_bf16(r);
    else v = static_cast<T>(r);
    std::memcpy(dst, &v, sizeof(T));
  }
  // Lane element k of a row (storage stride s).
  static H get(const char* x, int64_t s, int64_t k) {
    if constexpr (kCS) {
      H v;
      std::memcpy(&v, x + (k >> 1) * s + (k & 1) * int64_t(sizeof(H)), sizeof(H));
      return v;
    } else {
      T v;
      std::memcpy(&v, x + k * s, sizeof(T));
      return static_cast<H>(ld(v));
    }
  }
  // VL lane elements k .. k+VL-1 of a contiguous row (one native vector).
  static constexpr int kNV = 64 / kVB;
  static constexpr int VL = kVB / int(sizeof(H));
  static V vload(const char* x, int64_t k) {
    V v;
    if constexpr (kVec) {
      if constexpr (std::is_same_v<T, f16>) {
#if defined(__AVX512F__)
        v = reinterpret_cast<V>(_mm512_cvtph_ps(
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + k * 2))));
        return v;
#elif defined(__F16C__)
        v = reinterpret_cast<V>(
            _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + k * 2))));
        return v;
#endif
        typedef _Float16 VH __attribute__((vector_size(kVB / 2)));
        VH h;
        std::memcpy(&h, x + k * 2, kVB / 2);
        v = __builtin_convertvector(h, V);
      } else if constexpr (std::is_same_v<T, bf16>) {
        typedef uint16_t VU16 __attribute__((vector_size(kVB / 2)));
        typedef uint32_t VU32 __attribute__((vector_size(kVB)));
        VU16 h;
        std::memcpy(&h, x + k * 2, kVB / 2);
        VU32 u = __builtin_convertvector(h, VU32) << 16;
        std::memcpy(&v, &u, kVB);
      } else {
        std::memcpy(&v, x + k * int64_t(sizeof(H)), kVB);
      }
    }
    return v;
  }

  // Lane j of a leaf (m lane elements from k0) folds in two interleaved sets: set 0 takes
  // elements j, j + 2L, j + 4L ..., set 1 takes L + j, 3L + j, ...; set 1 then folds into
  // set 0 lane by lane; a last group of L and the scalar tail fold in after that.
  // Example (L = 2, m = 9): lanes[0] = ((x0 + x4) + (x2 + x6)) + x8,
  //                         lanes[1] =  (x1 + x5) + (x3 + x7).
  // (Each fold starts from the identity.) A full leaf (kLeafLanes = 64 L) is 32 terms per
  // set, as many as the one-set 32 L leaf it replaced, so the error bound is unchanged.
  // Measured on Zen 3 against a plain 4-accumulator read loop (docs/performance.md,
  // session 4): 2 threads over 64 MiB 0.89-0.95 of it (the one-set 32 L leaf with a
  // prefetcht0 1 KiB ahead: 0.87-0.91), 1 thread 0.86-0.92 (0.81-0.86), L3-resident 0.88
  // (0.77). Two sets give 2 x kNV independent chains (4 ymm on AVX2, 2 zmm on AVX-512);
  // the prefetch cost 1-7% (2 threads) and 12-15% (1 thread) against the hardware
  // prefetcher alone; a two-set 32 L leaf (16 iterations) read only 0.74-0.79.
  static void leaf(const char* x, int64_t s, int64_t k0, int64_t m, H* lanes) {
    int64_t k = 0;
    const bool contig = s == int64_t(sizeof(T));
    if constexpr (kVec && !kCS) {
      if (!contig && m >= L) {
        // A strided leaf (x[::2].sum(), a column of a row-major matrix) is gathered into
        // a contiguous block, four elements per store, and folded by the vector path:
        // lanes follow the element index, not the address, so the bits are the scalar
        // fold's (the reference's), at the vector speed (the scalar fold of a max also
        // mispredicted its compare on random data).
        alignas(64) T buf[kLeaf];
        const char* p = x + k0 * s;
        int64_t i = 0;
        for (; i + 4 <= m; i += 4) {
          T t4[4];
          for (int j = 0; j < 4; ++j) std::memcpy(&t4[j], p + (i + j) * s, sizeof(T));
          std::memcpy(buf + i, t4, sizeof(t4));
        }
        for (; i < m; ++i) std::memcpy(buf + i, p + i * s, sizeof(T));
        leaf(reinterpret_cast<const char*>(buf), int64_t(sizeof(T)), 0, m, lanes);
        return;
      }
    }
    if constexpr (kVec) {
      if (contig && m >= L) {
        // Named accumulators (an array would live in memory).
        V a0;
        for (int j = 0; j < VL; ++j) a0[j] = F::template id<H>();
        V a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
        for (; k + 2 * L <= m; k += 2 * L) {
          const int64_t p = k0 + k, q = k0 + k + L;
          a0 = F::fv(a0, vload(x, p));
          b0 = F::fv(b0, vload(x, q));
          if constexpr (kNV > 1) {
            a1 = F::fv(a1, vload(x, p + VL));
            b1 = F::fv(b1, vload(x, q + VL));
          }
          if constexpr (kNV > 2) {
            a2 = F::fv(a2, vload(x, p + 2 * VL));
            b2 = F::fv(b2, vload(x, q + 2 * VL));
            a3 = F::fv(a3, vload(x, p + 3 * VL));
            b3 = F::fv(b3, vload(x, q + 3 * VL));
          }
        }
        a0 = F::fv(a0, b0);
        if constexpr (kNV > 1) a1 = F::fv(a1, b1);
        if constexpr (kNV > 2) {
          a2 = F::fv(a2, b2);
          a3 = F::fv(a3, b3);
        }
        if (k + L <= m) {
          a0 = F::fv(a0, vload(x, k0 + k));
          if constexpr (kNV > 1) a1 = F::fv(a1, vload(x, k0 + k + VL));
          if constexpr (kNV > 2) {
            a2 = F::fv(a2, vload(x, k0 + k + 2 * VL));
            a3 = F::fv(a3, vload(x, k0 + k + 3 * VL));
          }
          k += L;
        }
        std::memcpy(lanes, &a0, kVB);
        if constexpr (kNV > 1) std::memcpy(lanes + VL, &a1, kVB);
        if constexpr (kNV > 2) {
          std::memcpy(lanes + 2 * VL, &a2, kVB);
          std::memcpy(lanes + 3 * VL, &a3, kVB);
        }
        for (; k < m; ++k) lanes[k % L] = F::f(lanes[k % L], get(x, s, k0 + k));
        return;
      }
    }
    {  // the reference, and strided or short leaves of the vector builds
      H b[L];
      for (int j = 0; j < L; ++j) lanes[j] = b[j] = F::template id<H>();
      for (; k + 2 * L <= m; k += 2 * L)
        for (int j = 0; j < L; ++j) {
          lanes[j] = F::f(lanes[j], get(x, s, k0 + k + j));
          b[j] = F::f(b[j], get(x, s, k0 + k + L + j));
        }
      for (int j = 0; j < L; ++j) lanes[j] = F::f(lanes[j], b[j]);
      if (k + L <= m) {
        for (int j = 0; j < L; ++j) lanes[j] = F::f(lanes[j], get(x, s, k0 + k + j));
        k += L;
      }
    }
    for (; k < m; ++k) lanes[k % L] = F::f(lanes[k % L], get(x, s, k0 + k));
  }

  static void comb_h(H* a, const H* b) {
    XARR_RSIMD
    for (int j = 0; j < L; ++j) a[j] = F::f(a[j], b[j]);
  }

  static void row(const char* x, int64_t n, int64_t s, void* out) {
    if constexpr (kVec && kExact) {
      if (s == int64_t(sizeof(T))) {
        leaf(x, s, 0, n * kPer, static_cast<H*>(out));
        return;
      }
    }
    H st[64][L];
    int lev[64];
    int top = 0;
    bool tail = false;
    const int64_t m = n * kPer;
    for (int64_t k0 = 0; k0 < m; k0 += kLeafLanes) {
      const int64_t cnt = std::min(kLeafLanes, m - k0);
      leaf(x, s, k0, cnt, st[top]);
      if (cnt < kLeafLanes) {
        tail = true;
        break;
      }
      lev[top++] = 0;
      while (top >= 2 && lev[top - 1] == lev[top - 2]) {
        comb_h(st[top - 2], st[top - 1]);
        ++lev[top - 2];
        --top;
      }
    }
    int r;
    if (tail) {
      r = top;
    } else if (top == 0) {
      H* o = static_cast<H*>(out);
      for (int j = 0; j < L; ++j) o[j] = F::template id<H>();
      return;
    } else {
      r = --top;
    }
    for (int i = top - 1; i >= 0; --i) {
      comb_h(st[i], st[r]);
      r = i;
    }
    std::memcpy(out, st[r], 64);
  }

  static void combine_h(void* a, const void* b, int64_t n) {
    H* pa = static_cast<H*>(a);
    const H* pb = static_cast<const H*>(b);
    for (int64_t j = 0; j < n; ++j) pa[j] = F::f(pa[j], pb[j]);
  }
  static void combine_a(void* a, const void* b, int64_t n) {
    A* pa = static_cast<A*>(a);
    const A* pb = static_cast<const A*>(b);
    XARR_RSIMD
    for (int64_t j = 0; j < n; ++j) pa[j] = F::f(pa[j], pb[j]);
  }

  // The lanes' results, combined in a halving tree; a real product goes lane by lane,
  // left to right, so a reduction of at most L elements (one per lane, in order)
  // multiplies as NumPy does: prod([1.8e308, -7.2e-178, -4.7e16]) = (a * b) * c =
  // 6.0e147, where the tree's a * c would overflow to inf.
  static A fold_lanes(H* l) {
    if constexpr (std::is_same_v<F, FProd> && !kCS) {
      H acc = l[0];
      for (int j = 1; j < L; ++j) acc = F::f(acc, l[j]);
      return acc;
    }
    for (int w = L / 2; w >= kPer; w /= 2)
      for (int j = 0; j < w; ++j) l[j] = F::f(l[j], l[j + w]);
    if constexpr (kCS) return A(l[0], l[1]);
    else return l[0];
  }
  static void finish(void* lanes, char* dst) { put(fold_lanes(static_cast<H*>(lanes)), dst); }

  // a[j] = first row (copy), or a[j] = f(a[j], row[j]).
  static void load_row(A* a, const char* p, int64_t w, int64_t cs) {
    if (cs == int64_t(sizeof(T))) {
      const T* q = reinterpret_cast<const T*>(p);
      XARR_RSIMD
      for (int64_t j = 0; j < w; ++j) a[j] = ld(q[j]);
    } else {
      for (int64_t j = 0; j < w; ++j) {
        T v;
        std::memcpy(&v, p + j * cs, sizeof(T));
        a[j] = ld(v);
      }
    }
  }
  static void acc_row(A* a, const char* p, int64_t w, int64_t cs) {
    if (cs == int64_t(sizeof(T))) {
      const T* q = reinterpret_cast<const T*>(p);
      XARR_RSIMD
      for (int64_t j = 0; j < w; ++j) a[j] = F::f(a[j], ld(q[j]));
    } else {
      for (int64_t j = 0; j < w; ++j) {
        T v;
        std::memcpy(&v, p + j * cs, sizeof(T));
        a[j] = F::f(a[j], ld(v));
      }
    }
  }

  static void acc_rows4(A* a, const char* const* p, int64_t w, int64_t cs) {
    if (cs == int64_t(sizeof(T))) {
      const T* q0 = reinterpret_cast<const T*>(p[0]);
      const T* q1 = reinterpret_cast<const T*>(p[1]);
      const T* q2 = reinterpret_cast<const T*>(p[2]);
      const T* q3 = reinterpret_cast<const T*>(p[3]);
      XARR_RSIMD
      for (int64_t j = 0; j < w; ++j)
        a[j] = F::f(F::f(F::f(F::f(a[j], ld(q0[j])), ld(q1[j])), ld(q2[j])), ld(q3[j]));
    } else {
      for (int i = 0; i < 4; ++i) acc_row(a, p[i], w, cs);
    }
  }

  static void cols(const char* x, int64_t w, int64_t cs, const RowSpan& rs, void* accp,
                   void* scratch) {
    A* stk = static_cast<A*>(scratch);
    int lev[64];
    int top = 0;
    bool tail = false;
    int64_t idx[32];
    int64_t off = 0;
    {
      int64_t r = rs.begin;
      for (int d = rs.nd - 1; d >= 0; --d) {
        idx[d] = r % rs.dims[d];
        r /= rs.dims[d];
        off += idx[d] * rs.strides[d];
      }
    }
    for (int64_t r = rs.begin; r < rs.end;) {
      const int64_t cnt = std::min(kRowLeaf, rs.end - r);
      A* a = stk + top * w;
      // Rows of the leaf in order; four at a time fold into a column in one pass (the same
      // per-column order as one row at a time, with a quarter of the accumulator traffic).
      const char* p[4];
      int np = 0;
      for (int64_t i = 0; i < cnt; ++i, ++r) {
        p[np++] = x + off;
        for (int d = rs.nd - 1; d >= 0; --d) {  // next row
          off += rs.strides[d];
          if (++idx[d] < rs.dims[d]) break;
          off -= rs.strides[d] * rs.dims[d];
          idx[d] = 0;
        }
        if (i == 0) {
          load_row(a, p[0], w, cs);
          np = 0;
        } else if (np == 4) {
          acc_rows4(a, p, w, cs);
          np = 0;
        }
      }
      for (int i = 0; i < np; ++i) acc_row(a, p[i], w, cs);
      if (cnt < kRowLeaf) {
        tail = true;
        break;
      }
      lev[top++] = 0;
      while (top >= 2 && lev[top - 1] == lev[top - 2]) {
        combine_a(stk + (top - 2) * w, stk + (top - 1) * w, w);
        ++lev[top - 2];
        --top;
      }
    }
    int r;
    if (tail) {
      r = top;
    } else {
      r = --top;  // rs is never empty here
    }
    for (int i = top - 1; i >= 0; --i) {
      combine_a(stk + i * w, stk + r * w, w);
      r = i;
    }
    std::memcpy(accp, stk + r * w, w * sizeof(A));
  }

  static void store(const void* accp, int64_t w, char* dst, int64_t ds) {
    const A* a = static_cast<const A*>(accp);
    if (ds == int64_t(sizeof(T)) && !std::is_same_v<T, bool>) {
      T* o = reinterpret_cast<T*>(dst);
      XARR_RSIMD
      for (int64_t j = 0; j < w; ++j) {
        if constexpr (std::is_same_v<T, bf16>) o[j] = float_to_bf16(a[j]);
        else o[j] = static_cast<T>(a[j]);
      }
      return;
    }
    for (int64_t j = 0; j < w; ++j) put(a[j], dst + j * ds);
  }
  static void identity(char* dst) { put(F::template empty<A>(), dst); }

  // ---------------------------------------------------------------- argmax / argmin
  // Whether any lane of a comparison result (a vector of 0 / -1 lanes) is set.
  template <class W> static bool any_lane(W w) {
#if defined(__AVX512F__)
    if constexpr (sizeof(W) == 64) {
      __m512i v;
      std::memcpy(&v, &w, 64);
      return _mm512_test_epi64_mask(v, v) != 0;
    }
#endif
#if defined(__AVX__)
    if constexpr (sizeof(W) == 32) {
      __m256i v;
      std::memcpy(&v, &w, 32);
      return !_mm256_testz_si256(v, v);
    }
#endif
    uint64_t u[sizeof(W) / 8];
    std::memcpy(u, &w, sizeof(W));
    uint64_t r = 0;
    for (uint64_t q : u) r |= q;
    return r != 0;
  }

  // The start of the first group of 4 VL elements of a contiguous row, from i, that
  // holds m (a NaN when `nan`); n rounded down to a group when none does. Four compares
  // ORed and one test per group (two ops per vector, the max fold's three).
  static int64_t find_group(const char* x, int64_t i, int64_t n, H m, bool nan) {
    if constexpr (kVec) {
      V mv;
      for (int j = 0; j < VL; ++j) mv[j] = m;
      if (nan) {
        for (; i + 4 * VL <= n; i += 4 * VL) {
          const V a = vload(x, i), b = vload(x, i + VL), c = vload(x, i + 2 * VL),
                  d = vload(x, i + 3 * VL);
          if (any_lane((a != a) | (b != b) | (c != c) | (d != d))) break;
        }
      } else {
        for (; i + 4 * VL <= n; i += 4 * VL) {
          const V a = vload(x, i), b = vload(x, i + VL), c = vload(x, i + 2 * VL),
                  d = vload(x, i + 3 * VL);
          if (any_lane((a == mv) | (b == mv) | (c == mv) | (d == mv))) break;
        }
      }
    }
    return i;
  }

  static void arg_row(const char* x, int64_t n, int64_t s, int64_t* idx, void* val) {
    if (n <= 0) {
      *idx = -1;
      return;
    }
    H lanes[L];
    A m{};
    // The best of each chunk (the vector fold; a strided chunk is gathered first)
    // against the best so far; then only the winning chunk is scanned again, from its
    // start, for the first element equal to the best. Ties keep the earlier chunk; the
    // first NaN wins and ends the pass. Example: x = [3, 9, 9, ...] in chunks of 1024
    // with a 9 first at 1 and again at 5000: chunk 0's 9 stays best (chunk 4's 9 is not
    // better), index 1. A contiguous row takes chunks of kArgRunChunk (16 leaves): fewer
    // folds of the lanes, and a rescan of two ops per vector (find_group: compare, OR)
    // against the fold's three (max, unordered compare, blend).
    // t.argmax() of f32 on a Zen 3 VM, processes of both versions alternating, NumPy in
    // brackets: 4096: 757-766 -> 705-723 ns (653-667); 10k: 1343-1356 -> 1199-1231 ns
    // (1285-1326); 30k: 3453-3483 -> 3286-3306 ns (3313-3477). (Chunks of one leaf and
    // a rescan testing 64 elements at a time through a chain of blends, before.)
    const bool contig = s == int64_t(sizeof(T));
    const int64_t chunk = contig ? kArgRunChunk : kArgChunk;
    int64_t best = 0;
    for (int64_t c = 0; c < n; c += chunk) {
      leaf(x, s, c, std::min(chunk, n - c), lanes);
      const A v = fold_lanes(lanes);
      if (c == 0 || F::better(v, m)) {
        m = v;
        best = c;
        if (m != m) break;
      }
    }
    int64_t i = best;
    std::memcpy(val, &m, sizeof(A));
    const bool nan = m != m;
    if (contig) {
      if constexpr (kVec) {
        i = find_group(x, i, n, m, nan);
      } else {
        const T* q = reinterpret_cast<const T*>(x);
        for (; i + 64 <= n; i += 64) {
          int hit = 0;
          XARR_RSIMD
          for (int j = 0; j < 64; ++j) {
            const A v = ld(q[i + j]);
            hit |= (v == m) | (nan & (v != v));
          }
          if (hit) break;
        }
      }
    }
    for (; i < n; ++i) {
      T t;
      std::memcpy(&t, x + i * s, sizeof(T));
      const A v = ld(t);
      if (v == m || (nan && v != v)) break;
    }
    *idx = i;
  }
  static bool arg_better(const void* cand, const void* cur) {
    A c, u;
    std::memcpy(&c, cand, sizeof(A));
    std::memcpy(&u, cur, sizeof(A));
    return F::better(c, u);
  }
  static void arg_cols(const char* x, int64_t w, int64_t cs, int64_t n, int64_t rs,
                       void* bestp, int64_t* idx) {
    A* b = static_cast<A*>(bestp);
    load_row(b, x, w, cs);
    for (int64_t j = 0; j < w; ++j) idx[j] = 0;
    for (int64_t i = 1; i < n; ++i) {
      const char* p = x + i * rs;
      if (cs == int64_t(sizeof(T))) {
        const T* q = reinterpret_cast<const T*>(p);
        XARR_RSIMD
        for (int64_t j = 0; j < w; ++j) {
          const A v = ld(q[j]);
          const bool take = F::better(v, b[j]);
          b[j] = take ? v : b[j];
          idx[j] = take ? i : idx[j];
        }
      } else {
        for (int64_t j = 0; j < w; ++j) {
          T t;
          std::memcpy(&t, p + j * cs, sizeof(T));
          const A v = ld(t);
          if (F::better(v, b[j])) {
            b[j] = v;
            idx[j] = i;
          }
        }
      }
    }
  }
};

template <class T, class F> void fill_one(ReduceTable* t, int op, bool arg) {
  using K = Kern<T, F>;
  ReduceKernel& k = t->k[op][TypeInfo<T>::code];
  k.acc_size = sizeof(typename K::A);
  k.lanes = K::L;
  k.leaf = K::kLeaf;
  k.row_leaf = K::kRowLeaf;
  k.row = &K::row;
  k.combine_h = &K::combine_h;
  k.combine_a = &K::combine_a;
  k.finish = &K::finish;
  k.cols = &K::cols;
  k.store = &K::store;
  k.identity = &K::identity;
  if constexpr (std::is_same_v<F, FMax> || std::is_same_v<F, FMin>) {
    if (arg) {
      k.arg_row = &K::arg_row;
      k.arg_better = &K::arg_better;
      k.arg_cols = &K::arg_cols;
    }
  }
}

inline void fill_table(ReduceTable* t) {
  for_each_dtype([&](auto tag) {
    using T = decltype(tag);
    using C = typename TypeInfo<T>::compute;
    if constexpr (std::is_same_v<T, bool>) {
      fill_one<T, FOr>(t, kReduce_SUM, false);
      fill_one<T, FAnd>(t, kReduce_PROD, false);
      fill_one<T, FOr>(t, kReduce_MAX, false);
      fill_one<T, FAnd>(t, kReduce_MIN, false);
      fill_one<T, FAnd>(t, kReduce_AND, false);
      fill_one<T, FOr>(t, kReduce_OR, false);
      fill_one<T, FMax>(t, kReduce_ARGMAX, true);
      fill_one<T, FMin>(t, kReduce_ARGMIN, true);
    } else {
      fill_one<T, FSum>(t, kReduce_SUM, false);
      // Complex products stay on the reference (GCC may contract them into fmaddsub).
      if constexpr (!IsCplx<C>::value || !kVectorBuild)
        fill_one<T, FProd>(t, kReduce_PROD, false);
      if constexpr (!IsCplx<C>::value) {
        fill_one<T, FMax>(t, kReduce_MAX, false);
        fill_one<T, FMin>(t, kReduce_MIN, false);
        fill_one<T, FMax>(t, kReduce_ARGMAX, true);
        fill_one<T, FMin>(t, kReduce_ARGMIN, true);
      }
      if constexpr (std::is_integral_v<C>) {
        fill_one<T, FAnd>(t, kReduce_AND, false);
        fill_one<T, FOr>(t, kReduce_OR, false);
      }
    }
  });
}

#undef XARR_RSIMD

}  // namespace red
}  // namespace XARR_ISA_NS
}  // namespace xarr
