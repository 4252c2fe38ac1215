// 1-D loops built from the functors in ew_ops.h, and the function that fills an EwTable.
//
// This header is compiled once per ISA (ew_ref.cpp, ew_baseline.cpp, ew_avx2.cpp,
// ew_avx512.cpp) inside a distinct namespace XARR_ISA_NS, with XARR_MATH naming the math
// namespace. Contiguous operands (stride == itemsize) and broadcast scalars (stride == 0)
// get dedicated `#pragma omp simd` loops the compiler vectorizes for the ISA; any other
// strides run the generic strided loop. Contract of every loop: see ew_table.h.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/elementwise/ew_ops.h"
#include "kernels/elementwise/ew_table.h"

#if defined(__AVX2__) && !defined(XARR_EW_REFERENCE)
#include <immintrin.h>
#define XARR_EW_COMPLEX_MUL 1  // complex products by intrinsics (complex_mul below)
#endif

#ifndef XARR_ISA_NS
#error "define XARR_ISA_NS before including ew_loops.h"
#endif

namespace xarr {
namespace XARR_ISA_NS {

using namespace ::xarr::ew;

template <class Op, class T, class = void> struct OutOf { using type = T; };
template <class Op, class T>
struct OutOf<Op, T, std::void_t<typename Op::template Out<T>>> {
  using type = typename Op::template Out<T>;
};

#if defined(XARR_EW_REFERENCE)
#define XARR_SIMD
#define XARR_SIMD_OR_ODD
#else
#define XARR_SIMD _Pragma("omp simd")
#define XARR_SIMD_OR_ODD _Pragma("omp simd reduction(| : odd)")  // int odd |= ... (pow_blocks)
#endif


// ------------------------------------------------------------------ strided operands
// Loops over strided operands (the vector tables; the reference keeps the plain
// element-by-element loop, it is the oracle). Measured on Zen 3, 100k f32, x[::2]:
// - a contiguous output with strided inputs runs y[i] = f(x[i * s]) as an `omp simd`
//   loop: the compiler builds vectors from the strided loads (abs 19 us, against 41-61 us
//   for the pointer-stepping loop, whose every element also pays a taken branch; maximum
//   on random data 36 us against 590 us, where the scalar loop mispredicts its select);
// - an expensive op (exp, sin, pow ...) gathers strided inputs into contiguous blocks
//   (via_input_blocks) so its vector math runs on whole vectors;
// - a strided output (t[::2] += 1) is computed into a contiguous block by the loops above
//   and then scattered (via_output_block).
// Each element gets the same op on the same values as in the plain loop: only the order
// of memory traffic changes, never the bits.
#if defined(XARR_EW_REFERENCE)
constexpr bool kVectorStrided = false;
#else
constexpr bool kVectorStrided = true;
#endif
// Elements per block: 4 KiB of f64 per operand on the stack, L1-resident.
constexpr int64_t kGatherBlock = 512;
constexpr int64_t kGatherMin = 16;   // shorter rows run the element-by-element loop

// Four elements per contiguous access (twice the element-by-element loop's speed on
// Zen 3: the same measurement as copy_loop's in relayout.cpp).
template <class T> inline void gather_block(T* dst, const char* src, int64_t s, int64_t m) {
  int64_t j = 0;
  for (; j + 4 <= m; j += 4) {
    T t[4];
    for (int k = 0; k < 4; ++k) std::memcpy(&t[k], src + (j + k) * s, sizeof(T));
    std::memcpy(dst + j, t, sizeof(t));
  }
  for (; j < m; ++j) std::memcpy(dst + j, src + j * s, sizeof(T));
}
template <class T> inline void scatter_block(char* dst, int64_t s, const T* src, int64_t m) {
  int64_t j = 0;
  for (; j + 4 <= m; j += 4) {
    T t[4];
    std::memcpy(t, src + j, sizeof(t));
    for (int k = 0; k < 4; ++k) std::memcpy(dst + (j + k) * s, &t[k], sizeof(T));
  }
  for (; j < m; ++j) std::memcpy(dst + j * s, src + j, sizeof(T));
}

// loop(args, strides, m) in blocks for N inputs of type T and a CONTIGUOUS output: every
// input that is neither contiguous nor (kZeroOk: the loop has branches for them)
// broadcast (stride 0) is gathered into a block; when all inputs are broadcast, input 0
// is gathered. The block call sees inputs that are contiguous or (kZeroOk) stride 0.
template <class T, int N, bool kZeroOk, class Loop>
inline void via_input_blocks(Loop loop, char* const* args, const int64_t* st, int64_t n) {
  constexpr int64_t ts = sizeof(T);
  alignas(64) T xb[N][kGatherBlock];
  bool gather[N];
  bool all_zero = true;
  int64_t bst[N + 1];
  for (int a = 0; a < N; ++a) {
    gather[a] = st[a] != ts && !(kZeroOk && st[a] == 0);
    all_zero = all_zero && st[a] == 0;
  }
  if (all_zero) gather[0] = true;
  for (int a = 0; a < N; ++a) bst[a] = (gather[a] || st[a] == ts) ? ts : 0;
  bst[N] = st[N];
  char* bargs[N + 1];
  for (int64_t i0 = 0; i0 < n; i0 += kGatherBlock) {
    const int64_t m = n - i0 < kGatherBlock ? n - i0 : kGatherBlock;
    for (int a = 0; a < N; ++a) {
      if (gather[a]) {
        gather_block(xb[a], args[a] + i0 * st[a], st[a], m);
        bargs[a] = reinterpret_cast<char*>(xb[a]);
      } else {
        bargs[a] = args[a] + i0 * st[a];
      }
    }
    bargs[N] = args[N] + i0 * st[N];
    loop(bargs, bst, m);
  }
}

// loop(args, strides, m) in blocks for N inputs and a STRIDED output of type O: each block
// is computed into a contiguous buffer (inputs as they are), then scattered. The output
// may be exactly an input (t[::2] += 1): a block is read before it is written.
template <class O, int N, class Loop>
inline void via_output_block(Loop loop, char* const* args, const int64_t* st, int64_t n) {
  alignas(64) O yb[kGatherBlock];
  int64_t bst[N + 1];
  for (int a = 0; a < N; ++a) bst[a] = st[a];
  bst[N] = sizeof(O);
  char* bargs[N + 1];
  bargs[N] = reinterpret_cast<char*>(yb);
  for (int64_t i0 = 0; i0 < n; i0 += kGatherBlock) {
    const int64_t m = n - i0 < kGatherBlock ? n - i0 : kGatherBlock;
    for (int a = 0; a < N; ++a) bargs[a] = args[a] + i0 * st[a];
    loop(bargs, bst, m);
    scatter_block(args[N] + i0 * st[N], st[N], yb, m);
  }
}

template <class Op, class T> void unary_loop(char* const* args, const int64_t* st, int64_t n) {
  using O = typename OutOf<Op, T>::type;
  const char* a = args[0];
  char* o = args[1];
  if constexpr (kHasArray<Op> && (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
    if (st[0] == sizeof(T) && st[1] == sizeof(T)) {
      Op::array(reinterpret_cast<const T*>(a), reinterpret_cast<T*>(o), n);
      return;
    }
  }
  if (st[0] == sizeof(T) && st[1] == sizeof(O)) {
    if constexpr (std::is_same_v<Op, Not> && std::is_same_v<T, bool>) {
      // pred bytes are 0 or 1: not is a byte xor. GCC does not vectorize `!` on bool
      // (1M elements: 350 us, a scalar loop; this: 25 us).
      const uint8_t* x = reinterpret_cast<const uint8_t*>(a);
      uint8_t* y = reinterpret_cast<uint8_t*>(o);
      XARR_SIMD
      for (int64_t i = 0; i < n; ++i) y[i] = static_cast<uint8_t>(x[i] ^ 1u);
      return;
    }
    const T* x = reinterpret_cast<const T*>(a);
    O* y = reinterpret_cast<O*>(o);
    XARR_SIMD
    for (int64_t i = 0; i < n; ++i) y[i] = store<O>(Op::f(load<T>(x[i])));
    return;
  }
  if constexpr (kVectorStrided) {
    if (n >= kGatherMin) {
      if (st[1] != sizeof(O)) {
        via_output_block<O, 1>(unary_loop<Op, T>, args, st, n);
      } else if constexpr (kExpensive<Op>) {
        via_input_blocks<T, 1, false>(unary_loop<Op, T>, args, st, n);
      } else if (st[0] == -int64_t{sizeof(T)}) {
        // x[::-1]: a step of -1 known at compile time is loaded as whole vectors and
        // reversed in registers (10k f32 abs on AVX-512: 1.4 us, NumPy 2.1)
        const T* x = reinterpret_cast<const T*>(a);
        O* y = reinterpret_cast<O*>(o);
        XARR_SIMD
        for (int64_t i = 0; i < n; ++i) y[i] = store<O>(Op::f(load<T>(x[-i])));
      } else {
        const int64_t s0 = st[0];
        O* y = reinterpret_cast<O*>(o);
        XARR_SIMD
        for (int64_t i = 0; i < n; ++i) {
          T x;
          std::memcpy(&x, a + i * s0, sizeof(T));
          y[i] = store<O>(Op::f(load<T>(x)));
        }
      }
      return;
    }
  }
  const int64_t s0 = st[0], s1 = st[1];   // (read once: see binary_loop)
  for (int64_t i = 0; i < n; ++i, a += s0, o += s1) {
    T x;
    std::memcpy(&x, a, sizeof(T));
    O y = store<O>(Op::f(load<T>(x)));
    std::memcpy(o, &y, sizeof(O));
  }
}

#if defined(XARR_EW_COMPLEX_MUL)
// y = a * b over n contiguous complex numbers (interleaved re, im), the textbook product
// the reference computes - re = ar*br - ai*bi, im = ar*bi + ai*br, each product rounded,
// then one add or subtract (addsub) - bit for bit. Intrinsics, not the vectorizer: GCC's
// SLP complex-multiply pattern fuses to fmaddsub even under -ffp-contract=off. y may
// alias a or b exactly.
#define XARR_NO_VECTORIZE __attribute__((optimize("no-tree-vectorize", "no-tree-slp-vectorize")))
// (the scalar tails too: left to the vectorizer they became vfmaddsub)
XARR_NO_VECTORIZE inline void complex_mul(const double* a, const double* b, double* y,
                                            int64_t n) {
  int64_t i = 0;
  for (; i + 2 <= n; i += 2) {
    const __m256d va = _mm256_loadu_pd(a + 2 * i), vb = _mm256_loadu_pd(b + 2 * i);
    const __m256d t1 = _mm256_mul_pd(_mm256_movedup_pd(va), vb);             // ar*br ar*bi
    const __m256d t2 = _mm256_mul_pd(_mm256_permute_pd(va, 0xF),             // ai*bi ai*br
                                     _mm256_permute_pd(vb, 0x5));
    _mm256_storeu_pd(y + 2 * i, _mm256_addsub_pd(t1, t2));
  }
  for (; i < n; ++i) {
    const double ar = a[2 * i], ai = a[2 * i + 1], br = b[2 * i], bi = b[2 * i + 1];
    y[2 * i] = ar * br - ai * bi;
    y[2 * i + 1] = ar * bi + ai * br;
  }
}
XARR_NO_VECTORIZE inline void complex_mul(const float* a, const float* b, float* y,
                                            int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256 va = _mm256_loadu_ps(a + 2 * i), vb = _mm256_loadu_ps(b + 2 * i);
    const __m256 t1 = _mm256_mul_ps(_mm256_moveldup_ps(va), vb);
    const __m256 t2 = _mm256_mul_ps(_mm256_movehdup_ps(va), _mm256_permute_ps(vb, 0xB1));
    _mm256_storeu_ps(y + 2 * i, _mm256_addsub_ps(t1, t2));
  }
  for (; i < n; ++i) {
    const float ar = a[2 * i], ai = a[2 * i + 1], br = b[2 * i], bi = b[2 * i + 1];
    y[2 * i] = ar * br - ai * bi;
    y[2 * i + 1] = ar * bi + ai * br;
  }
}
// The vector tables' complex Mul loop: contiguous operands through complex_mul, any other
// strides one element at a time in a function the compiler may not vectorize (the same
// products and sums as the reference, no fused multiply-add).
template <class R>
XARR_NO_VECTORIZE void complex_mul_strided(char* const* args, const int64_t* st, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    R a[2], b[2], y[2];
    std::memcpy(a, args[0] + i * st[0], sizeof(a));
    std::memcpy(b, args[1] + i * st[1], sizeof(b));
    y[0] = a[0] * b[0] - a[1] * b[1];
    y[1] = a[0] * b[1] + a[1] * b[0];
    std::memcpy(args[2] + i * st[2], y, sizeof(y));
  }
}
template <class T> void complex_mul_loop(char* const* args, const int64_t* st, int64_t n) {
  using R = typename T::value_type;
  constexpr int64_t ts = sizeof(T);
  if (st[0] == ts && st[1] == ts && st[2] == ts) {
    complex_mul(reinterpret_cast<const R*>(args[0]), reinterpret_cast<const R*>(args[1]),
                reinterpret_cast<R*>(args[2]), n);
    return;
  }
  complex_mul_strided<R>(args, st, n);
}
#endif

// x ** e for a broadcast exponent e (a scalar operand, a constant of a fusion): pow's
// special exponents (ew_ops.h pow_special: 2, 3, -1, 0.5, -0.5, 1 for floats; 2, 3 for
// integers, wrapping as int_pow does) run as their own loops, bit for bit what Pow::f gives
// lane by lane; false for any other exponent (the caller runs Pow::f).
// Worked example: x ** 2.0 on f64 runs y[i] = x[i] * x[i], as fast as x * x.
#define XARR_POW_LOOP(EXPR)                                       \
  {                                                               \
    XARR_SIMD for (int64_t i = 0; i < n; ++i) {                   \
      const C v = load<T>(x[i]);                                  \
      y[i] = store<O>(EXPR);                                      \
    }                                                             \
    return true;                                                  \
  }
template <class T, class O, class C> bool pow_by_scalar(const T* x, C e, O* y, int64_t n) {
  if constexpr (kFloat<C>) {
    if (e == C(2)) XARR_POW_LOOP(v * v)
    if (e == C(3)) XARR_POW_LOOP(pow_special::cube(v))
    if (e == C(-1)) XARR_POW_LOOP(C(1) / v)
    if (e == C(0.5)) XARR_POW_LOOP(pow_special::sqrt(v))
    if (e == C(-0.5)) XARR_POW_LOOP(pow_special::rsqrt(v))
    if (e == C(1)) XARR_POW_LOOP(v)
  } else if constexpr (kInt<C>) {
    using U = std::make_unsigned_t<C>;
    if (e == 2) XARR_POW_LOOP(static_cast<C>(static_cast<U>(v) * static_cast<U>(v)))
    if (e == 3)
      XARR_POW_LOOP(static_cast<C>(static_cast<U>(static_cast<U>(v) * static_cast<U>(v)) *
                                   static_cast<U>(v)))
  }
  return false;
}
#undef XARR_POW_LOOP

// Contiguous float/double pow, x[i] ** y[i] (kScalarY: x[i] ** y[0]), in blocks: a
// block whose lanes are all ordinary (0 < x < inf, pow_ordinary_exponent(y)) runs pow's
// magnitude core alone (XARR_MATH::pow_ordinary), skipping the selects for zeros,
// infinities, NaN, negative bases and special exponents that cost a third of pow's time;
// other blocks run Pow::f lane by lane. Both give the same bits on an ordinary lane.
// out may alias x or y exactly (each lane is read before it is written).
template <class T, bool kScalarY> void pow_blocks(const T* x, const T* y, T* out, int64_t n) {
  constexpr int64_t kBlock = 256;
  constexpr T inf = std::numeric_limits<T>::infinity();
  const bool scalar_ordinary = kScalarY && pow_ordinary_exponent(y[0]);
  constexpr int64_t ys = kScalarY ? 0 : 1;
  for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
    const int64_t m = n - i0 < kBlock ? n - i0 : kBlock;
    const T* xb = x + i0;
    const T* yb = y + i0 * ys;
    T* ob = out + i0;
    int odd = 0;
    if constexpr (kScalarY) {
      if (!scalar_ordinary) odd = 1;
      else {
        XARR_SIMD_OR_ODD
        for (int64_t i = 0; i < m; ++i) odd |= (xb[i] > T(0) && xb[i] < inf) ? 0 : 1;
      }
    } else {
      XARR_SIMD_OR_ODD
      for (int64_t i = 0; i < m; ++i)
        odd |= (xb[i] > T(0) && xb[i] < inf && pow_ordinary_exponent(yb[i])) ? 0 : 1;
    }
    if (!odd) {
      XARR_SIMD
      for (int64_t i = 0; i < m; ++i) ob[i] = XARR_MATH::pow_ordinary(xb[i], yb[i * ys]);
    } else {
      XARR_SIMD
      for (int64_t i = 0; i < m; ++i) ob[i] = Pow::f(xb[i], yb[i * ys]);
    }
  }
}

template <class Op, class T> void binary_loop(char* const* args, const int64_t* st, int64_t n) {
  using O = typename OutOf<Op, T>::type;
  const char* a = args[0];
  const char* b = args[1];
  char* o = args[2];
  constexpr int64_t ts = sizeof(T);
  if (st[2] == sizeof(O)) {
    O* y = reinterpret_cast<O*>(o);
    if (st[0] == ts && st[1] == ts) {
      const T* x0 = reinterpret_cast<const T*>(a);
      const T* x1 = reinterpret_cast<const T*>(b);
      if constexpr (std::is_same_v<Op, Pow> && std::is_floating_point_v<T>) {
        pow_blocks<T, false>(x0, x1, y, n);
        return;
      }
      XARR_SIMD
      for (int64_t i = 0; i < n; ++i) y[i] = store<O>(Op::f(load<T>(x0[i]), load<T>(x1[i])));
      return;
    }
    if (st[0] == 0 && st[1] == ts) {
      const auto s0 = load<T>(*reinterpret_cast<const T*>(a));
      const T* x1 = reinterpret_cast<const T*>(b);
      XARR_SIMD
      for (int64_t i = 0; i < n; ++i) y[i] = store<O>(Op::f(s0, load<T>(x1[i])));
      return;
    }
    if (st[0] == ts && st[1] == 0) {
      const T* x0 = reinterpret_cast<const T*>(a);
      const auto s1 = load<T>(*reinterpret_cast<const T*>(b));
      if constexpr (std::is_same_v<Op, Pow>) {
        if (pow_by_scalar<T, O>(x0, s1, y, n)) return;
        if constexpr (std::is_floating_point_v<T>) {
          pow_blocks<T, true>(x0, reinterpret_cast<const T*>(b), y, n);
          return;
        }
      }
      XARR_SIMD
      for (int64_t i = 0; i < n; ++i) y[i] = store<O>(Op::f(load<T>(x0[i]), s1));
      return;
    }
  }
  if constexpr (kVectorStrided) {
    if (n >= kGatherMin) {
      if (st[2] != sizeof(O)) {
        via_output_block<O, 2>(binary_loop<Op, T>, args, st, n);
      } else if constexpr (kExpensive<Op>) {
        via_input_blocks<T, 2, true>(binary_loop<Op, T>, args, st, n);
      } else if (st[1] == 0) {            // x[::2] * 2.0: the scalar loaded once
        const int64_t s0 = st[0];
        const auto x1 = load<T>(*reinterpret_cast<const T*>(b));
        O* y = reinterpret_cast<O*>(o);
        XARR_SIMD
        for (int64_t i = 0; i < n; ++i) {
          T x0;
          std::memcpy(&x0, a + i * s0, sizeof(T));
          y[i] = store<O>(Op::f(load<T>(x0), x1));
        }
      } else if (st[0] == 0) {
        const int64_t s1 = st[1];
        const auto x0 = load<T>(*reinterpret_cast<const T*>(a));
        O* y = reinterpret_cast<O*>(o);
        XARR_SIMD
        for (int64_t i = 0; i < n; ++i) {
          T x1;
          std::memcpy(&x1, b + i * s1, sizeof(T));
          y[i] = store<O>(Op::f(x0, load<T>(x1)));
        }
      } else if ((st[0] == ts || st[0] == -ts) && (st[1] == ts || st[1] == -ts)) {
        // x[::-1] + y, x + y[::-1], x[::-1] + y[::-1]: as the stride-2 case below, with
        // vectors reversed in registers (10k f32 x[::-1] + y[::-1] on AVX-512: 9.0 -> 1.6
        // us; NumPy 4.3)
        const T* x0 = reinterpret_cast<const T*>(a);
        const T* x1 = reinterpret_cast<const T*>(b);
        O* y = reinterpret_cast<O*>(o);
        if (st[0] == -ts && st[1] == -ts) {
          XARR_SIMD
          for (int64_t i = 0; i < n; ++i) y[i] = store<O>(Op::f(load<T>(x0[-i]), load<T>(x1[-i])));
        } else if (st[0] == -ts) {
          XARR_SIMD
          for (int64_t i = 0; i < n; ++i) y[i] = store<O>(Op::f(load<T>(x0[-i]), load<T>(x1[i])));
        } else {
          XARR_SIMD
          for (int64_t i = 0; i < n; ++i) y[i] = store<O>(Op::f(load<T>(x0[i]), load<T>(x1[-i])));
        }
      } else if (st[0] == 2 * ts && st[1] == 2 * ts) {
        // x[::2] + y[::2]: a stride known at compile time is loaded as whole vectors and
        // shuffled; the variable-stride loop below builds each vector element by element
        // (10k f32: 6.4 -> 2.8 us, NumPy 4.8)
        const T* x0 = reinterpret_cast<const T*>(a);
        const T* x1 = reinterpret_cast<const T*>(b);
        O* y = reinterpret_cast<O*>(o);
        XARR_SIMD
        for (int64_t i = 0; i < n; ++i)
          y[i] = store<O>(Op::f(load<T>(x0[2 * i]), load<T>(x1[2 * i])));
      } else {
        const int64_t s0 = st[0], s1 = st[1];
        O* y = reinterpret_cast<O*>(o);
        XARR_SIMD
        for (int64_t i = 0; i < n; ++i) {
          T x0, x1;
          std::memcpy(&x0, a + i * s0, sizeof(T));
          std::memcpy(&x1, b + i * s1, sizeof(T));
          y[i] = store<O>(Op::f(load<T>(x0), load<T>(x1)));
        }
      }
      return;
    }
  }
  // Any strides: the strides are read once and the pointers stepped (the compiler cannot
  // keep st[] in registers across the stores itself: they might alias it).
  const int64_t s0 = st[0], s1 = st[1], s2 = st[2];
  for (int64_t i = 0; i < n; ++i, a += s0, b += s1, o += s2) {
    T x0, x1;
    std::memcpy(&x0, a, sizeof(T));
    std::memcpy(&x1, b, sizeof(T));
    O y = store<O>(Op::f(load<T>(x0), load<T>(x1)));
    std::memcpy(o, &y, sizeof(O));
  }
}

template <class Op, class T> void ternary_loop(char* const* args, const int64_t* st, int64_t n) {
  constexpr int64_t ts = sizeof(T);
  if (st[0] == ts && st[1] == ts && st[2] == ts && st[3] == ts) {
    const T* x0 = reinterpret_cast<const T*>(args[0]);
    const T* x1 = reinterpret_cast<const T*>(args[1]);
    const T* x2 = reinterpret_cast<const T*>(args[2]);
    T* y = reinterpret_cast<T*>(args[3]);
    XARR_SIMD
    for (int64_t i = 0; i < n; ++i)
      y[i] = store<T>(Op::f(load<T>(x0[i]), load<T>(x1[i]), load<T>(x2[i])));
    return;
  }
  // clamp(lo, x, hi) / clip(x, lo, hi) with scalar bounds: x contiguous, or (vector
  // builds) reversed, stride 2 or any stride, loaded through `at` (the three-operand gather
  // loop ran x[::2].clip(.2, .8) at 10k f32 at 0.6x NumPy's speed; this: 2.65 us, NumPy
  // 5.7 on AVX-512)
  if (st[0] == 0 && st[2] == 0 && st[3] == ts) {
    const auto lo = load<T>(*reinterpret_cast<const T*>(args[0]));
    const auto hi = load<T>(*reinterpret_cast<const T*>(args[2]));
    const char* a1 = args[1];
    const T* x1 = reinterpret_cast<const T*>(a1);
    const int64_t s1 = st[1];
    T* y = reinterpret_cast<T*>(args[3]);
    auto run = [&](auto at) {
      if constexpr ((std::is_same_v<Op, Clamp> || std::is_same_v<Op, Clip>) &&
                    kFloat<decltype(lo)>) {
        if (!is_nan(lo) && !is_nan(hi)) {     // the usual bounds: 4 (clip: 2) vector ops
          XARR_SIMD
          for (int64_t i = 0; i < n; ++i) y[i] = store<T>(Op::f_ordered_bounds(lo, at(i), hi));
          return;
        }
      }
      XARR_SIMD
      for (int64_t i = 0; i < n; ++i) y[i] = store<T>(Op::f(lo, at(i), hi));
    };
    if (s1 == ts) {
      run([&](int64_t i) { return load<T>(x1[i]); });
      return;
    }
    if constexpr (kVectorStrided) {
      if (s1 == -ts) {
        run([&](int64_t i) { return load<T>(x1[-i]); });
        return;
      }
      if (s1 == 2 * ts) {
        run([&](int64_t i) { return load<T>(x1[2 * i]); });
        return;
      }
      if (n >= kGatherMin) {
        run([&](int64_t i) {
          T v;
          std::memcpy(&v, a1 + i * s1, ts);
          return load<T>(v);
        });
        return;
      }
    }
  }
  if constexpr (kVectorStrided) {
    if (n >= kGatherMin) {
      if (st[3] != ts) {
        via_output_block<T, 3>(ternary_loop<Op, T>, args, st, n);
      } else {
        const int64_t s0 = st[0], s1 = st[1], s2 = st[2];
        const char* a0 = args[0];
        const char* a1 = args[1];
        const char* a2 = args[2];
        T* y = reinterpret_cast<T*>(args[3]);
        XARR_SIMD
        for (int64_t i = 0; i < n; ++i) {
          T x0, x1, x2;
          std::memcpy(&x0, a0 + i * s0, ts);
          std::memcpy(&x1, a1 + i * s1, ts);
          std::memcpy(&x2, a2 + i * s2, ts);
          y[i] = store<T>(Op::f(load<T>(x0), load<T>(x1), load<T>(x2)));
        }
      }
      return;
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    T x0, x1, x2;
    std::memcpy(&x0, args[0] + i * st[0], ts);
    std::memcpy(&x1, args[1] + i * st[1], ts);
    std::memcpy(&x2, args[2] + i * st[2], ts);
    T y = store<T>(Op::f(load<T>(x0), load<T>(x1), load<T>(x2)));
    std::memcpy(args[3] + i * st[3], &y, ts);
  }
}

struct Bytes16 {
  uint64_t lo, hi;
};

// p ? a : b. For 16-byte elements (complex128) through a mask, without a branch: GCC
// branched on the struct copy, and a boundary-heavy mask (a Mandelbrot set's edge) made
// the select the most expensive instruction of a complex loop.
template <class W> inline W pick(bool p, W a, W b) { return p ? a : b; }
inline Bytes16 pick(bool p, Bytes16 a, Bytes16 b) {
  const uint64_t m = uint64_t{0} - static_cast<uint64_t>(p);
  return {(a.lo & m) | (b.lo & ~m), (a.hi & m) | (b.hi & ~m)};
}

// y[i] = p[i] ? a[i * sa] : b[i * sb] over 16-byte elements (sa, sb: 1, or 0 for one
// broadcast element). AVX2 blends two elements per step; GCC's own vectorization of the
// struct select deinterleaved and spilled (46% of a complex where's time).
inline void select16(const uint8_t* p, const Bytes16* a, int64_t sa, const Bytes16* b,
                     int64_t sb, Bytes16* y, int64_t n) {
  int64_t i = 0;
#if defined(__AVX2__) && !defined(XARR_EW_REFERENCE)
  const __m256i a0 = n < 2 ? _mm256_setzero_si256() : _mm256_broadcastsi128_si256(
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(a)));
  const __m256i b0 = n < 2 ? _mm256_setzero_si256() : _mm256_broadcastsi128_si256(
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(b)));
  for (; i + 2 <= n; i += 2) {
    const int64_t m0 = -static_cast<int64_t>(p[i] != 0), m1 = -static_cast<int64_t>(p[i + 1] != 0);
    const __m256i m = _mm256_set_epi64x(m1, m1, m0, m0);
    const __m256i va = sa ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i)) : a0;
    const __m256i vb = sb ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i)) : b0;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), _mm256_blendv_epi8(vb, va, m));
  }
#endif
  for (; i < n; ++i) y[i] = pick(p[i] != 0, a[i * sa], b[i * sb]);
}

// select(pred, on_true, on_false): moves bytes, so one loop per element width.
template <class W> void select_loop(char* const* args, const int64_t* st, int64_t n) {
  constexpr int64_t ws = sizeof(W);
  if constexpr (ws == 16) {
    if (st[0] == 1 && st[3] == ws && (st[1] == 0 || st[1] == ws) && (st[2] == 0 || st[2] == ws)) {
      select16(reinterpret_cast<const uint8_t*>(args[0]), reinterpret_cast<const W*>(args[1]),
               st[1] / ws, reinterpret_cast<const W*>(args[2]), st[2] / ws,
               reinterpret_cast<W*>(args[3]), n);
      return;
    }
  }
  if (st[0] == 1 && st[1] == ws && st[2] == ws && st[3] == ws) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(args[0]);  // any nonzero byte is true
    const W* x1 = reinterpret_cast<const W*>(args[1]);
    const W* x2 = reinterpret_cast<const W*>(args[2]);
    W* y = reinterpret_cast<W*>(args[3]);
    XARR_SIMD
    for (int64_t i = 0; i < n; ++i) y[i] = pick(p[i] != 0, x1[i], x2[i]);
    return;
  }
  if (st[0] == 1 && st[3] == ws && (st[1] == 0 || st[1] == ws) && (st[2] == 0 || st[2] == ws)) {
    // a broadcast value (where(mask, x, 0)): one element, read once
    const uint8_t* p = reinterpret_cast<const uint8_t*>(args[0]);  // any nonzero byte is true
    W* y = reinterpret_cast<W*>(args[3]);
    const W* x1 = reinterpret_cast<const W*>(args[1]);
    const W* x2 = reinterpret_cast<const W*>(args[2]);
    if (st[1] == 0 && st[2] == ws) {
      const W a = *x1;
      XARR_SIMD
      for (int64_t i = 0; i < n; ++i) y[i] = pick(p[i] != 0, a, x2[i]);
    } else if (st[1] == ws && st[2] == 0) {
      const W b = *x2;
      XARR_SIMD
      for (int64_t i = 0; i < n; ++i) y[i] = pick(p[i] != 0, x1[i], b);
    } else {
      const W a = *x1, b = *x2;
      XARR_SIMD
      for (int64_t i = 0; i < n; ++i) y[i] = pick(p[i] != 0, a, b);
    }
    return;
  }
  const int64_t s0 = st[0], s1 = st[1], s2 = st[2], s3 = st[3];   // (read once)
  const char *pp = args[0], *a = args[1], *b = args[2];
  char* o = args[3];
  for (int64_t i = 0; i < n; ++i, pp += s0, a += s1, b += s2, o += s3) {
    uint8_t p;
    std::memcpy(&p, pp, 1);
    std::memcpy(o, p ? a : b, ws);
  }
}

// double -> bf16 with a single rounding: round to float with round-to-odd (truncate, then
// set the last bit if anything was dropped), then float -> bf16 rounds to nearest even.
// Plain double -> float -> bf16 rounds twice: 1.0039062509313226 would become 1.0, not
// 1.0078125.
inline bf16 double_to_bf16(double d) {
  float f = static_cast<float>(d);
  if (static_cast<double>(f) != d && d == d && std::fabs(d) <= 3.4028234663852886e38) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if (std::fabs(static_cast<double>(f)) > std::fabs(d)) u -= 1;  // truncate toward zero
    u |= 1u;                                                       // sticky bit
    std::memcpy(&f, &u, 4);
  }
  return float_to_bf16(f);
}

template <class S, class D> inline D convert_storage(S x) {
  if constexpr (std::is_same_v<D, f16> && std::is_same_v<S, double>) {
    return static_cast<f16>(x);  // one rounding, not double -> float -> f16
  } else if constexpr (std::is_same_v<D, f16> && std::is_integral_v<S> && sizeof(S) >= 4) {
    return static_cast<f16>(static_cast<double>(x));
  } else if constexpr (std::is_same_v<D, bf16> &&
                       (std::is_same_v<S, double> ||
                        (std::is_integral_v<S> && sizeof(S) >= 4))) {
    return double_to_bf16(static_cast<double>(x));
  } else {
    using DC = typename TypeInfo<D>::compute;
    return store<D>(convert_value<DC>(load<S>(x)));
  }
}

#if defined(__AVX2__) && !defined(XARR_EW_REFERENCE)
// f32 -> s32 by cvttps2dq, which gives INT32_MIN for NaN and every value out of range:
// xor with (x >= 2^31) turns those into INT32_MAX, and with (x ordered) NaN into 0 -
// convert_value's saturating rule in 5 vector ops instead of ~10 (astype(int32) of 10k
// f32: 2.1 -> 1.3 us). Returns how many leading elements it converted.
static inline int64_t f32_to_s32_avx2(const float* x, int32_t* y, int64_t n) {
  const __m256 two31 = _mm256_set1_ps(2147483648.0f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    __m256i r = _mm256_cvttps_epi32(v);
    r = _mm256_xor_si256(r, _mm256_castps_si256(_mm256_cmp_ps(v, two31, _CMP_GE_OQ)));
    r = _mm256_and_si256(r, _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_ORD_Q)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), r);
  }
  return i;
}
#endif

template <class S, class D> void convert_loop(char* const* args, const int64_t* st, int64_t n) {
  if (st[0] == sizeof(S) && st[1] == sizeof(D)) {
    const S* x = reinterpret_cast<const S*>(args[0]);
    D* y = reinterpret_cast<D*>(args[1]);
    int64_t i0 = 0;
#if defined(__AVX2__) && !defined(XARR_EW_REFERENCE)
    if constexpr (std::is_same_v<S, float> && std::is_same_v<D, int32_t>)
      i0 = f32_to_s32_avx2(x, y, n);
#endif
    XARR_SIMD
    for (int64_t i = i0; i < n; ++i) y[i] = convert_storage<S, D>(x[i]);
    return;
  }
  if constexpr (kVectorStrided) {
    if (n >= kGatherMin) {
      if (st[1] != sizeof(D)) {
        via_output_block<D, 1>(convert_loop<S, D>, args, st, n);
      } else {
        const char* a = args[0];
        const int64_t s0 = st[0];
        D* y = reinterpret_cast<D*>(args[1]);
        XARR_SIMD
        for (int64_t i = 0; i < n; ++i) {
          S x;
          std::memcpy(&x, a + i * s0, sizeof(S));
          y[i] = convert_storage<S, D>(x);
        }
      }
      return;
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    S x;
    std::memcpy(&x, args[0] + i * st[0], sizeof(S));
    D y = convert_storage<S, D>(x);
    std::memcpy(args[1] + i * st[1], &y, sizeof(D));
  }
}

// nextafter on 16-bit floats steps one ULP of the 16-bit type, so it works on the bits.
template <class T> inline uint16_t bits16(T v) {
  uint16_t u;
  std::memcpy(&u, &v, 2);
  return u;
}
template <class T> void nextafter16_loop(char* const* args, const int64_t* st, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    T a, b;
    std::memcpy(&a, args[0] + i * st[0], 2);
    std::memcpy(&b, args[1] + i * st[1], 2);
    const float fa = load<T>(a), fb = load<T>(b);
    uint16_t ua = bits16(a);
    uint16_t r;
    if (fa != fa || fb != fb) {
      r = 0x7e00u | (fa != fa ? ua : bits16(b));  // a quiet NaN
    } else if (fa == fb) {
      r = bits16(b);
    } else if (fa == 0.0f) {
      r = static_cast<uint16_t>((fb < 0 ? 0x8000u : 0u) | 1u);  // smallest subnormal
    } else if ((fa < fb) == (fa > 0)) {
      r = static_cast<uint16_t>(ua + 1);  // away from zero
    } else {
      r = static_cast<uint16_t>(ua - 1);  // toward zero
    }
    std::memcpy(args[2] + i * st[2], &r, 2);
  }
}

template <class Op, int Arity, class T> LoopFn pick_loop() {
  using C = typename TypeInfo<T>::compute;
  if constexpr (std::is_same_v<Op, Nextafter> &&
                (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)) {
    return &nextafter16_loop<T>;
  } else if constexpr (!Op::template ok<C>) {
    return nullptr;
#if !defined(XARR_EW_REFERENCE)
#if defined(XARR_EW_COMPLEX_MUL)
  } else if constexpr (kComplex<C> && std::is_same_v<Op, Mul>) {
    return &complex_mul_loop<T>;
#endif
  } else if constexpr (kComplex<C> && (std::is_same_v<Op, Mul> || std::is_same_v<Op, Div> ||
                                       std::is_same_v<Op, Square>)) {
    // GCC's SLP complex-multiply patterns emit fmaddsub even under -ffp-contract=off; the
    // reference loop keeps complex products bitwise identical across ISAs (complex Mul
    // has its own loop where the ISA has AVX2: complex_mul_loop).
    return nullptr;
#endif
  } else if constexpr (Arity == 1) {
    return &unary_loop<Op, T>;
  } else if constexpr (Arity == 2) {
    return &binary_loop<Op, T>;
  } else {
    return &ternary_loop<Op, T>;
  }
}

// The loop of select for a dtype: it moves bytes, so one loop per element width.
template <class T> LoopFn select_loop_for() {
  constexpr int s = sizeof(T);
  if constexpr (s == 1) return &select_loop<uint8_t>;
  else if constexpr (s == 2) return &select_loop<uint16_t>;
  else if constexpr (s == 4) return &select_loop<uint32_t>;
  else if constexpr (s == 8) return &select_loop<uint64_t>;
  else return &select_loop<Bytes16>;
}

template <class Op, int Arity> void fill_op(EwTable* t, int op) {
  for_each_dtype([&](auto tag) {
    using T = decltype(tag);
    LoopFn fn;
    if constexpr (std::is_same_v<Op, Select>) fn = select_loop_for<T>();
    else fn = pick_loop<Op, Arity, T>();
    // Only what this table implements: the other entries keep the reference's loops.
    if (fn) t->loops[op][TypeInfo<T>::code] = fn;
  });
}

inline void fill_table(EwTable* t) {
  using namespace ::xarr::ew;
#define XARR_FILL(OPC, FUNCTOR, AR) fill_op<FUNCTOR, AR>(t, kEw_##OPC);
  XARR_EW_OPS(XARR_FILL)
#undef XARR_FILL
  for_each_dtype([&](auto src) {
    using S = decltype(src);
    for_each_dtype([&](auto dst) {
      using D = decltype(dst);
      t->convert[TypeInfo<S>::code][TypeInfo<D>::code] = &convert_loop<S, D>;
    });
  });
}

#undef XARR_SIMD

}  // namespace XARR_ISA_NS
}  // namespace xarr
