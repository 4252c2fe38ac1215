// Scalar definitions of every elementwise operation, one functor per op.
//
// Each functor has
//   template <class C> static constexpr bool ok;   // does the op apply to compute type C?
//   XARR_EW_FN R f(C...)                                // the value for one element
// C is the compute type (TypeInfo<T>::compute: float for f16/bf16). The output storage type
// is T unless the functor says otherwise through `Out<T>` (pred for comparisons, the real
// type for |complex|). Optional traits: `expensive` (a loop costs several memory accesses
// per element: the fused executor cuts its blocks finer), `has_array` (a contiguous
// float/double entry point, `array(x, y, n)`).
//
// Every op is one functor here plus its line in XARR_EW_OPS at the end of this file, which
// gives it its kernel code (kEw_NAME), its arity and its loops in every ISA table.
//
// Semantics follow seed 004 (XLA operation semantics) and ../SPEC.md's decisions:
//   integer x / 0 = -1 (all bits set for unsigned), x % 0 = x, INT_MIN / -1 = INT_MIN,
//   INT_MIN % -1 = 0; rem has the sign of the dividend (C fmod); max/min propagate NaN;
//   round is half away from zero; sign(-0.0) = -0.0 and sign(NaN) = NaN;
//   shifts by >= the bit width give 0 (logical) or the sign fill (arithmetic);
//   total-order comparisons order -NaN < -Inf < -finite < -0 < +0 < +finite < +Inf < +NaN.
//   floor_div and mod are NumPy's floor_divide/remainder (sign of the divisor); for integers
//   they give 0 on a zero divisor, as NumPy does.
// Transcendental functions come from the namespace XARR_MATH (libm in the reference table,
// xarr::vmath in the vector tables).
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/dtype.h"

#ifndef XARR_MATH
// A translation unit that needs the op list (ew_table.h), not the loops: the functors
// still name a math namespace; the per-ISA tables define XARR_MATH before including this.
#include "kernels/elementwise/libm_math.h"
#define XARR_MATH ::xarr::libm
#endif

// A functor's f / array are always inlined (XARR_EW_FN): this header is compiled into each
// ISA's table with that ISA's flags, and an out-of-line copy has vague linkage, so the
// linker would keep one ISA's copy for every table (vector_math.h says the same of the math;
// tests/test_build.py checks the library exports none).
#define XARR_EW_FN static inline __attribute__((always_inline))

namespace xarr {
namespace ew {

template <class C> struct is_complex : std::false_type {};
template <class R> struct is_complex<std::complex<R>> : std::true_type {};
template <class C> constexpr bool kBool = std::is_same_v<C, bool>;
template <class C> constexpr bool kInt = std::is_integral_v<C> && !kBool<C>;
template <class C> constexpr bool kSInt = kInt<C> && std::is_signed_v<C>;
template <class C> constexpr bool kUInt = kInt<C> && std::is_unsigned_v<C>;
template <class C> constexpr bool kFloat = std::is_floating_point_v<C>;
template <class C> constexpr bool kComplex = is_complex<C>::value;
template <class C> constexpr bool kNum = kInt<C> || kFloat<C> || kComplex<C>;
template <class C> constexpr bool kReal = kInt<C> || kFloat<C>;

// The type integer arithmetic wraps in: unsigned for integers, C itself otherwise.
template <class C, bool = kInt<C>> struct WrapOf { using type = C; };
template <class C> struct WrapOf<C, true> { using type = std::make_unsigned_t<C>; };

// Storage type of the real part of T (float for c64, double for c128, T otherwise).
template <class T> struct RealOf { using type = T; };
template <> struct RealOf<c64> { using type = float; };
template <> struct RealOf<c128> { using type = double; };

// Order-preserving integer key for the total order on floats.
// Worked example (f32): -0.0f has bits 0x80000000 -> key 0x80000000 ^ 0x7fffffff = -1,
// +0.0f has key 0, so -0 < +0; -NaN (0xffc00000) gets the smallest keys of all.
XARR_EW_FN int32_t total_key(float x) {
  int32_t i;
  std::memcpy(&i, &x, 4);
  return i ^ ((i >> 31) & 0x7fffffff);
}
XARR_EW_FN int64_t total_key(double x) {
  int64_t i;
  std::memcpy(&i, &x, 8);
  return i ^ ((i >> 63) & 0x7fffffffffffffffLL);
}

template <class C> XARR_EW_FN bool is_nan(C x) { return x != x; }

// The optional functor traits (false when a functor does not declare them).
template <class Op, class = void> struct ExpensiveTrait : std::false_type {};
template <class Op>
struct ExpensiveTrait<Op, std::enable_if_t<Op::expensive>> : std::true_type {};
template <class Op, class = void> struct HasArrayTrait : std::false_type {};
template <class Op>
struct HasArrayTrait<Op, std::enable_if_t<Op::has_array>> : std::true_type {};
template <class Op> constexpr bool kExpensive = ExpensiveTrait<Op>::value;
template <class Op> constexpr bool kHasArray = HasArrayTrait<Op>::value;

// ---------------------------------------------------------------------------- unary
struct Neg {
  template <class C> static constexpr bool ok = kNum<C>;
  template <class C> XARR_EW_FN C f(C x) {
    if constexpr (kUInt<C>) return static_cast<C>(0 - x);
    else return -x;
  }
};
struct Abs {
  template <class T> using Out = typename RealOf<T>::type;
  template <class C> static constexpr bool ok = kNum<C> || kBool<C>;
  template <class C> XARR_EW_FN auto f(C x) {
    if constexpr (kBool<C>) return x;
    else if constexpr (kComplex<C>) return XARR_MATH::cabs(x);
    else if constexpr (kUInt<C>) return x;
    else if constexpr (kInt<C>) return static_cast<C>(x < 0 ? static_cast<C>(0 - x) : x);
    else return std::fabs(x);
  }
};
struct Sign {
  template <class C> static constexpr bool ok = kNum<C>;
  template <class C> XARR_EW_FN C f(C x) {
    if constexpr (kComplex<C>) {
      auto a = XARR_MATH::cabs(x);
      return a == 0 ? C(0) : C(x.real() / a, x.imag() / a);
    } else if constexpr (kUInt<C>) {
      return static_cast<C>(x > 0);
    } else if constexpr (kInt<C>) {
      return static_cast<C>((x > 0) - (x < 0));
    } else {
      return x > 0 ? C(1) : (x < 0 ? C(-1) : x);  // keeps +-0 and NaN
    }
  }
};
// NumPy's sign (xa.sign): Sign, except that a float zero of either sign gives +0.0
// (np.sign(-0.0) is 0.0; XLA's sign keeps -0.0). Adding +0.0 maps -0.0 to +0.0 and leaves
// +-1 and NaN alone. Example: sign_np(-0.0f) = +0.0f, sign_np(-3.5f) = -1.0f.
// Complex: z / |z| with NumPy's special values: an infinite part gives the unit of its
// sign on that axis (inf+1j -> 1+0j, nan-infj -> -1j), both infinite or a NaN part gives
// nan+nanj, zero gives 0j, and a finite z whose |z| overflows is scaled first.
struct SignNumpy {
  template <class C> static constexpr bool ok = kNum<C>;
  template <class C> XARR_EW_FN C f(C x) {
    if constexpr (kComplex<C>) {
      using R = typename C::value_type;
      const R re = x.real(), im = x.imag();
      const R nan = std::numeric_limits<R>::quiet_NaN();
      if (std::isinf(re)) return std::isinf(im) ? C(nan, nan) : C(std::copysign(R(1), re), 0);
      if (std::isinf(im)) return C(0, std::copysign(R(1), im));
      if (re != re || im != im) return C(nan, nan);
      if (re == 0 && im == 0) return C(0, 0);
      R a = XARR_MATH::cabs(x);
      if (std::isinf(a)) {
        const R m = std::max(std::fabs(re), std::fabs(im));
        const C y(re / m, im / m);
        a = XARR_MATH::cabs(y);
        return C(y.real() / a, y.imag() / a);
      }
      return C(re / a, im / a);
    } else if constexpr (kInt<C>) {
      return Sign::f(x);
    } else {
      return Sign::f(x) + C(0);
    }
  }
};
struct Not {
  template <class C> static constexpr bool ok = kInt<C> || kBool<C>;
  template <class C> XARR_EW_FN C f(C x) {
    if constexpr (kBool<C>) return !x;
    else return static_cast<C>(~x);
  }
};
#define XARR_FLOAT_UNARY(NAME, EXPR, EXPENSIVE)                                           \
  struct NAME {                                                                           \
    template <class C> static constexpr bool ok = kFloat<C>;                              \
    static constexpr bool expensive = EXPENSIVE;                                          \
    template <class C> XARR_EW_FN C f(C x) { return EXPR; }                                   \
  };
XARR_FLOAT_UNARY(Ceil, std::ceil(x), false)
XARR_FLOAT_UNARY(Floor, std::floor(x), false)
XARR_FLOAT_UNARY(Trunc, std::trunc(x), false)
XARR_FLOAT_UNARY(Cbrt, XARR_MATH::cbrt(x), true)
#undef XARR_FLOAT_UNARY

// Round half away from zero: trunc(x) plus one step when |frac| >= 0.5.
// Worked example: 2.5 -> 3, -2.5 -> -3, 0.49999997f -> 0, -0.0 -> -0.0, -0.4 -> -0.0.
struct Round {
  template <class C> static constexpr bool ok = kFloat<C>;
  template <class C> XARR_EW_FN C f(C x) {
    C t = std::trunc(x);
    C d = x - t;
    C step = std::fabs(d) >= C(0.5) ? C(1) : C(0);
    return std::copysign(std::fabs(t) + step, x);  // keeps -0.0 and -0.4 -> -0.0
  }
};

// Float and complex functions: floats go to XARR_MATH, complex to std::.
#define XARR_FC_UNARY(NAME, FEXPR, CEXPR, EXPENSIVE)                                      \
  struct NAME {                                                                           \
    template <class C> static constexpr bool ok = kFloat<C> || kComplex<C>;               \
    static constexpr bool expensive = EXPENSIVE;                                          \
    template <class C> XARR_EW_FN C f(C x) {                                                  \
      if constexpr (kComplex<C>) return CEXPR;                                            \
      else return FEXPR;                                                                  \
    }                                                                                     \
  };
XARR_FC_UNARY(Exp, XARR_MATH::exp(x), std::exp(x), true)
XARR_FC_UNARY(Expm1, XARR_MATH::expm1(x), std::exp(x) - C(1), true)
XARR_FC_UNARY(Log, XARR_MATH::log(x), std::log(x), true)
// (complex: 1 + x keeps x's imaginary part as it is, so -0.0 stays -0.0 and the result's
// imaginary part is -pi on the branch cut: log1p(-1e16 - 0j) = 36.8 - 3.14j)
XARR_FC_UNARY(Log1p, XARR_MATH::log1p(x), std::log(C(x.real() + 1, x.imag())), true)
XARR_FC_UNARY(Logistic, XARR_MATH::logistic(x), C(1) / (C(1) + std::exp(-x)), true)
XARR_FC_UNARY(Tanh, XARR_MATH::tanh(x), std::tanh(x), true)
// sin/cos/tan also give contiguous float/double loops an array entry point (`array`), so
// the vector tables can fix lanes outside vmath's fast range block by block.
#define XARR_TRIG_UNARY(NAME, fn)                                                         \
  struct NAME {                                                                           \
    template <class C> static constexpr bool ok = kFloat<C> || kComplex<C>;               \
    static constexpr bool has_array = true;                                               \
    static constexpr bool expensive = true;                                               \
    template <class C> XARR_EW_FN C f(C x) {                                                  \
      if constexpr (kComplex<C>) return std::fn(x);                                       \
      else return XARR_MATH::fn(x);                                                       \
    }                                                                                     \
    template <class T> XARR_EW_FN void array(const T* x, T* y, int64_t n) {                   \
      XARR_MATH::fn##_array(x, y, n);                                                     \
    }                                                                                     \
  };
XARR_TRIG_UNARY(Sin, sin)
XARR_TRIG_UNARY(Cos, cos)
XARR_TRIG_UNARY(Tan, tan)
#undef XARR_TRIG_UNARY
XARR_FC_UNARY(Asin, XARR_MATH::asin(x), std::asin(x), true)
XARR_FC_UNARY(Acos, XARR_MATH::acos(x), std::acos(x), true)
XARR_FC_UNARY(Atan, XARR_MATH::atan(x), std::atan(x), true)
XARR_FC_UNARY(Sinh, XARR_MATH::sinh(x), std::sinh(x), true)
XARR_FC_UNARY(Cosh, XARR_MATH::cosh(x), std::cosh(x), true)
XARR_FC_UNARY(Asinh, XARR_MATH::asinh(x), std::asinh(x), true)
XARR_FC_UNARY(Acosh, XARR_MATH::acosh(x), std::acosh(x), true)
XARR_FC_UNARY(Atanh, XARR_MATH::atanh(x), std::atanh(x), true)
XARR_FC_UNARY(Exp2, XARR_MATH::exp2(x), std::pow(C(2), x), true)
XARR_FC_UNARY(Log2, XARR_MATH::log2(x), std::log(x) / typename C::value_type(0.69314718055994530942), true)
XARR_FC_UNARY(Log10, XARR_MATH::log10(x), std::log10(x), true)
XARR_FC_UNARY(RoundEven, std::nearbyint(x), C(std::nearbyint(x.real()), std::nearbyint(x.imag())), false)
XARR_FC_UNARY(Sqrt, std::sqrt(x), std::sqrt(x), false)  // (one vector instruction)
XARR_FC_UNARY(Rsqrt, C(1) / std::sqrt(x), C(1) / std::sqrt(x), true)
#undef XARR_FC_UNARY

struct Square {
  template <class C> static constexpr bool ok = kNum<C>;
  template <class C> XARR_EW_FN C f(C x) { return static_cast<C>(x * x); }
};

template <class C> XARR_EW_FN bool finite_value(C x) {
  if constexpr (kComplex<C>) return std::isfinite(x.real()) && std::isfinite(x.imag());
  else if constexpr (kFloat<C>) return x - x == x - x;  // false for inf and NaN
  else return true;
}
struct IsFinite {
  template <class T> using Out = bool;
  template <class C> static constexpr bool ok = kFloat<C> || kComplex<C> || kInt<C> || kBool<C>;
  template <class C> XARR_EW_FN bool f(C x) { return finite_value(x); }
};
struct IsNan {
  template <class T> using Out = bool;
  template <class C> static constexpr bool ok = kFloat<C> || kComplex<C> || kInt<C> || kBool<C>;
  template <class C> XARR_EW_FN bool f(C x) {
    if constexpr (kComplex<C>) return is_nan(x.real()) || is_nan(x.imag());
    else if constexpr (kFloat<C>) return is_nan(x);
    else return false;
  }
};
struct IsInf {
  template <class T> using Out = bool;
  template <class C> static constexpr bool ok = kFloat<C> || kComplex<C> || kInt<C> || kBool<C>;
  template <class C> XARR_EW_FN bool f(C x) {
    if constexpr (kComplex<C>) return std::isinf(x.real()) || std::isinf(x.imag());
    else if constexpr (kFloat<C>) return std::fabs(x) == std::numeric_limits<C>::infinity();
    else return false;
  }
};
struct SignBit {
  template <class T> using Out = bool;
  template <class C> static constexpr bool ok = kFloat<C> || kInt<C> || kBool<C>;
  template <class C> XARR_EW_FN bool f(C x) {
    if constexpr (kFloat<C>) {
      // Bit test instead of std::signbit (GCC 12 ICEs vectorizing signbit of bf16 loads).
      using I = std::conditional_t<sizeof(C) == 4, int32_t, int64_t>;
      I i;
      std::memcpy(&i, &x, sizeof(C));
      return i < 0;
    } else if constexpr (kSInt<C>) return x < 0;
    else return false;
  }
};
struct Popcnt {
  template <class C> static constexpr bool ok = kInt<C>;
  template <class C> XARR_EW_FN C f(C x) {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(__builtin_popcountll(static_cast<uint64_t>(static_cast<U>(x))));
  }
};
// Count leading zeros within the type's width; clz(0) = width.
struct Clz {
  template <class C> static constexpr bool ok = kInt<C>;
  template <class C> XARR_EW_FN C f(C x) {
    using U = std::make_unsigned_t<C>;
    uint64_t u = static_cast<U>(x);
    constexpr int extra = 64 - 8 * static_cast<int>(sizeof(C));
    return static_cast<C>(u == 0 ? 8 * sizeof(C) : __builtin_clzll(u) - extra);
  }
};
struct Real {
  template <class T> using Out = typename RealOf<T>::type;
  template <class C> static constexpr bool ok = kNum<C> || kBool<C>;
  template <class C> XARR_EW_FN auto f(C x) {
    if constexpr (kComplex<C>) return x.real();
    else return x;
  }
};
struct Imag {
  template <class T> using Out = typename RealOf<T>::type;
  template <class C> static constexpr bool ok = kNum<C> || kBool<C>;
  template <class C> XARR_EW_FN auto f(C x) {
    if constexpr (kComplex<C>) return x.imag();
    else return C(0);
  }
};
struct Conj {
  template <class C> static constexpr bool ok = kNum<C> || kBool<C>;
  template <class C> XARR_EW_FN C f(C x) {
    if constexpr (kComplex<C>) return std::conj(x);
    else return x;
  }
};
struct Copy {
  template <class C> static constexpr bool ok = true;
  template <class C> XARR_EW_FN C f(C x) { return x; }
};

// ---------------------------------------------------------------------------- binary
struct Add {
  template <class C> static constexpr bool ok = kNum<C> || kBool<C>;
  template <class C> XARR_EW_FN C f(C a, C b) {
    if constexpr (kBool<C>) return a || b;
    else return static_cast<C>(a + b);
  }
};
struct Sub {
  template <class C> static constexpr bool ok = kNum<C>;
  template <class C> XARR_EW_FN C f(C a, C b) { return static_cast<C>(a - b); }
};
struct Mul {
  template <class C> static constexpr bool ok = kNum<C> || kBool<C>;
  template <class C> XARR_EW_FN C f(C a, C b) {
    if constexpr (kBool<C>) {
      return a && b;
    } else if constexpr (kComplex<C>) {
      // Textbook product, as NumPy computes it (no C99 Annex G NaN recovery).
      return C(a.real() * b.real() - a.imag() * b.imag(),
               a.real() * b.imag() + a.imag() * b.real());
    } else {
      using W = typename WrapOf<C>::type;
      return static_cast<C>(static_cast<W>(a) * static_cast<W>(b));  // wraps for ints
    }
  }
};
struct Div {
  template <class C> static constexpr bool ok = kNum<C>;
  template <class C> XARR_EW_FN C f(C a, C b) {
    if constexpr (kComplex<C>) {
      // Smith's algorithm: avoids overflow of |b|^2.
      using R = typename C::value_type;
      R br = b.real(), bi = b.imag();
      if (std::fabs(br) >= std::fabs(bi)) {
        if (br == 0 && bi == 0) return C(a.real() / std::fabs(br), a.imag() / std::fabs(bi));
        R r = bi / br, d = br + bi * r;
        return C((a.real() + a.imag() * r) / d, (a.imag() - a.real() * r) / d);
      }
      R r = br / bi, d = bi + br * r;
      return C((a.real() * r + a.imag()) / d, (a.imag() * r - a.real()) / d);
    } else if constexpr (kSInt<C>) {
      bool zero = b == 0;
      bool overflow = (a == std::numeric_limits<C>::min()) & (b == C(-1));
      C safe_b = (zero | overflow) ? C(1) : b;
      C q = static_cast<C>(a / safe_b);  // a / 1 == INT_MIN when overflowing
      return zero ? C(-1) : q;
    } else if constexpr (kUInt<C>) {
      bool zero = b == 0;
      C q = static_cast<C>(a / (zero ? C(1) : b));
      return zero ? static_cast<C>(~C(0)) : q;
    } else {
      return a / b;
    }
  }
};
struct Rem {
  template <class C> static constexpr bool ok = kReal<C>;
  static constexpr bool expensive = true;
  template <class C> XARR_EW_FN C f(C a, C b) {
    if constexpr (kInt<C>) {
      bool zero = b == 0;
      bool overflow = false;
      if constexpr (kSInt<C>) overflow = (a == std::numeric_limits<C>::min()) & (b == C(-1));
      C safe_b = (zero | overflow) ? C(1) : b;
      C r = static_cast<C>(a % safe_b);
      return zero ? a : r;
    } else {
      return std::fmod(a, b);
    }
  }
};
// NumPy's fmod: C fmod for floats; integers give 0 for a zero divisor (NumPy's value).
struct Fmod {
  template <class C> static constexpr bool ok = kReal<C>;
  static constexpr bool expensive = true;
  template <class C> XARR_EW_FN C f(C a, C b) {
    if constexpr (kInt<C>) return b == 0 ? C(0) : Rem::f(a, b);
    else return std::fmod(a, b);
  }
};
struct FloorDiv {
  template <class C> static constexpr bool ok = kReal<C>;
  template <class C> XARR_EW_FN C f(C a, C b) {
    if constexpr (kInt<C>) {
      if (b == 0) return C(0);
      if constexpr (kSInt<C>) {
        if (a == std::numeric_limits<C>::min() && b == C(-1)) return a;
        C q = static_cast<C>(a / b);
        return static_cast<C>(((a % b) != 0 && ((a < 0) != (b < 0))) ? q - 1 : q);
      } else {
        return static_cast<C>(a / b);
      }
    } else {
      if (b == 0) return a / b;
      C m = std::fmod(a, b);
      C d = (a - m) / b;
      if (m != 0 && ((b < 0) != (m < 0))) d -= C(1);
      if (d == 0) return std::copysign(C(0), a / b);
      C fd = std::floor(d);
      if (d - fd > C(0.5)) fd += C(1);
      return fd;
    }
  }
};
struct Mod {
  template <class C> static constexpr bool ok = kReal<C>;
  template <class C> XARR_EW_FN C f(C a, C b) {
    if constexpr (kInt<C>) {
      if (b == 0) return C(0);
      if constexpr (kSInt<C>) {
        if (b == C(-1)) return C(0);
        C r = static_cast<C>(a % b);
        return static_cast<C>((r != 0 && ((r < 0) != (b < 0))) ? r + b : r);
      } else {
        return static_cast<C>(a % b);
      }
    } else {
      C r = std::fmod(a, b);
      if (r != 0) {
        if ((b < 0) != (r < 0)) r += b;
      } else {
        r = std::copysign(C(0), b);
      }
      return r;
    }
  }
};
// NaN-propagating max/min; complex and bool compare lexicographically / logically.
struct Max {
  template <class C> static constexpr bool ok = kNum<C> || kBool<C>;
  template <class C> XARR_EW_FN C f(C a, C b) {
    if constexpr (kComplex<C>) {
      if (is_nan(a.real()) || is_nan(a.imag())) return a;
      if (is_nan(b.real()) || is_nan(b.imag())) return b;
      bool a_ge = a.real() > b.real() || (a.real() == b.real() && a.imag() >= b.imag());
      return a_ge ? a : b;
    } else if constexpr (kFloat<C>) {
      // (a > b || is_nan(a)) ? a : b as two plain selects: GCC's vectorizer leaves the
      // || form (or a bitwise |) as branches - 7x slower on random data.
      const C m = a > b ? a : b;
      return is_nan(a) ? a : m;
    } else {
      return a > b ? a : b;
    }
  }
};
struct Min {
  template <class C> static constexpr bool ok = kNum<C> || kBool<C>;
  template <class C> XARR_EW_FN C f(C a, C b) {
    if constexpr (kComplex<C>) {
      if (is_nan(a.real()) || is_nan(a.imag())) return a;
      if (is_nan(b.real()) || is_nan(b.imag())) return b;
      bool a_le = a.real() < b.real() || (a.real() == b.real() && a.imag() <= b.imag());
      return a_le ? a : b;
    } else if constexpr (kFloat<C>) {
      const C m = a < b ? a : b;   // (a < b || is_nan(a)) ? a : b, see Max
      return is_nan(a) ? a : m;
    } else {
      return a < b ? a : b;
    }
  }
};
// Integer power by squaring; a negative exponent gives 0 unless |base| == 1 (XLA's rule).
template <class C> XARR_EW_FN C int_pow(C base, C exp) {
  if constexpr (kSInt<C>) {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp & 1) ? C(-1) : C(1);
      return 0;
    }
  }
  using U = std::make_unsigned_t<C>;
  U result = 1, b = static_cast<U>(base);
  auto e = static_cast<U>(exp);
  while (e) {
    if (e & 1) result = static_cast<U>(result * b);
    b = static_cast<U>(b * b);
    e >>= 1;
  }
  return static_cast<C>(result);
}
// pow's special exponents (NumPy's fast_scalar_power, with C99's values): x**2 = x*x,
// x**3 = x*x*x, x**-1 = 1/x, x**0.5 = sqrt(x), x**-0.5 =
// 1/sqrt(x), x**1 = x. Pow::f selects them lane by lane and the scalar-exponent loops
// (ew_loops.h pow_by_scalar) run them directly, so an exponent gives the same bits whether
// it is a broadcast scalar, a constant in a fusion or one element of an exponent array.
// Unlike NumPy's sqrt shortcut they keep pow's C99 values: (-0.0)**0.5 = +0.0 and
// (-inf)**0.5 = +inf (NumPy: -0.0 and nan), (-0.0)**-0.5 = +inf, (-inf)**-0.5 = +0.0.
namespace pow_special {
// x*x*x, two roundings (<= 1 ULP): what jax's integer_pow gives, and what the graph's
// rewrite of pow(x, 3) into two multiplies gives (xarr/_graph/passes.py _pow_special).
template <class C> XARR_EW_FN C cube(C x) { return x * x * x; }
template <class C> XARR_EW_FN C sqrt(C x) {
  const C inf = std::numeric_limits<C>::infinity();
  return XARR_MATH::select(x == -inf, inf, std::sqrt(x) + C(0));  // + 0: -0.0 -> +0.0
}
template <class C> XARR_EW_FN C rsqrt(C x) {
  const C inf = std::numeric_limits<C>::infinity();
  return XARR_MATH::select(x == -inf, C(0), C(1) / std::sqrt(x + C(0)));
}
}  // namespace pow_special
// An exponent with no special case of its own: finite and not 0, 1, 2, 3, -1, 0.5, -0.5.
template <class C> XARR_EW_FN bool pow_ordinary_exponent(C b) {
  return std::fabs(b) < std::numeric_limits<C>::infinity() && b != C(0) && b != C(1) &&
         b != C(2) && b != C(3) && b != C(-1) && b != C(0.5) && b != C(-0.5);
}
template <class C> XARR_EW_FN C float_pow(C a, C b) {
  C r = XARR_MATH::pow(a, b);
  r = XARR_MATH::select(b == C(2), a * a, r);
  r = XARR_MATH::select(b == C(3), pow_special::cube(a), r);
  r = XARR_MATH::select(b == C(-1), C(1) / a, r);
  r = XARR_MATH::select(b == C(0.5), pow_special::sqrt(a), r);
  r = XARR_MATH::select(b == C(-0.5), pow_special::rsqrt(a), r);
  return XARR_MATH::select(b == C(1), a, r);
}
// Complex a**b with NumPy's (and jax's) zero cases: a**0 = 1 for every a (0**0 included),
// 0**b = 0 for a real b > 0, other powers of zero nan+nanj; a**1 = a, a**2 = a*a; else
// std::pow.
template <class C> XARR_EW_FN C complex_pow(C a, C b) {
  using R = typename C::value_type;
  if (b.imag() == 0) {
    if (b.real() == 0) return C(1, 0);
    if (b.real() == 1) return a;
    if (b.real() == 2) return a * a;
  }
  if (a.real() == 0 && a.imag() == 0) {
    if (b.imag() == 0 && b.real() > 0) return C(0, 0);
    const R nan = std::numeric_limits<R>::quiet_NaN();
    return C(nan, nan);
  }
  return std::pow(a, b);
}
struct Pow {
  template <class C> static constexpr bool ok = kNum<C>;
  static constexpr bool expensive = true;
  template <class C> XARR_EW_FN C f(C a, C b) {
    if constexpr (kInt<C>) return int_pow(a, b);
    else if constexpr (kComplex<C>) return complex_pow(a, b);
    else return float_pow(a, b);
  }
};
#define XARR_FLOAT_BINARY(NAME, EXPR, EXPENSIVE)                                          \
  struct NAME {                                                                           \
    template <class C> static constexpr bool ok = kFloat<C>;                              \
    static constexpr bool expensive = EXPENSIVE;                                          \
    template <class C> XARR_EW_FN C f(C a, C b) { return EXPR; }                              \
  };
XARR_FLOAT_BINARY(Atan2, XARR_MATH::atan2(a, b), true)
XARR_FLOAT_BINARY(Hypot, std::hypot(a, b), true)
XARR_FLOAT_BINARY(Copysign, std::copysign(a, b), false)
XARR_FLOAT_BINARY(Nextafter, std::nextafter(a, b), false)
#undef XARR_FLOAT_BINARY
// lax.complex(re, im): f16/bf16/f32 -> c64, f64 -> c128.
template <class T> struct ComplexOf { using type = c64; };
template <> struct ComplexOf<double> { using type = c128; };
struct MakeComplex {
  template <class T> using Out = typename ComplexOf<T>::type;
  template <class C> static constexpr bool ok = kFloat<C>;
  template <class C> XARR_EW_FN std::complex<C> f(C a, C b) { return std::complex<C>(a, b); }
};
// log(exp(a) + exp(b)) and its base-2 form without overflow: max + log1p(e(-|a - b|)) *
// scale, with e = exp, scale 1 or e = exp2, scale 1 / ln 2; a == b (+-inf included) gives
// a + log(2) in the base. Worked examples: logaddexp(0, 0) = ln 2; logaddexp2(3, 3) = 4;
// logaddexp2(-inf, 5) = 5.
template <class C, class E> inline C log_add(C a, C b, E e, C log2_in_base, C scale) {
  if (a == b) return a + log2_in_base;
  C d = a - b;
  if (is_nan(d)) return d;
  C m = d > 0 ? a : b;
  return m + XARR_MATH::log1p(e(-std::fabs(d))) * scale;
}
struct LogAddExp {
  template <class C> static constexpr bool ok = kFloat<C>;
  static constexpr bool expensive = true;
  template <class C> XARR_EW_FN C f(C a, C b) {
    return log_add(a, b, [](C x) { return XARR_MATH::exp(x); }, C(0.6931471805599453094),
                   C(1));
  }
};
struct LogAddExp2 {
  template <class C> static constexpr bool ok = kFloat<C>;
  static constexpr bool expensive = true;
  template <class C> XARR_EW_FN C f(C a, C b) {
    return log_add(a, b, [](C x) { return XARR_MATH::exp2(x); }, C(1),
                   C(1.4426950408889634074));
  }
};
#define XARR_BIT_BINARY(NAME, OP)                                                         \
  struct NAME {                                                                           \
    template <class C> static constexpr bool ok = kInt<C> || kBool<C>;                    \
    template <class C> XARR_EW_FN C f(C a, C b) { return static_cast<C>(a OP b); }            \
  };
XARR_BIT_BINARY(And, &)
XARR_BIT_BINARY(Or, |)
XARR_BIT_BINARY(Xor, ^)
#undef XARR_BIT_BINARY
// Shifts: the amount is read as unsigned; amounts >= the bit width saturate.
struct Shl {
  template <class C> static constexpr bool ok = kInt<C>;
  template <class C> XARR_EW_FN C f(C a, C b) {
    using U = std::make_unsigned_t<C>;
    U n = static_cast<U>(b);
    bool big = n >= 8 * sizeof(C);
    U s = static_cast<U>(static_cast<U>(a) << (big ? 0 : n));
    return big ? C(0) : static_cast<C>(s);
  }
};
struct ShrLogical {
  template <class C> static constexpr bool ok = kInt<C>;
  template <class C> XARR_EW_FN C f(C a, C b) {
    using U = std::make_unsigned_t<C>;
    U n = static_cast<U>(b);
    bool big = n >= 8 * sizeof(C);
    U s = static_cast<U>(static_cast<U>(a) >> (big ? 0 : n));
    return big ? C(0) : static_cast<C>(s);
  }
};
struct ShrArith {
  template <class C> static constexpr bool ok = kInt<C>;
  template <class C> XARR_EW_FN C f(C a, C b) {
    using S = std::make_signed_t<C>;
    using U = std::make_unsigned_t<C>;
    U n = static_cast<U>(b);
    S sa = static_cast<S>(a);
    bool big = n >= 8 * sizeof(C);
    S s = static_cast<S>(sa >> (big ? 8 * sizeof(C) - 1 : n));
    return static_cast<C>(s);
  }
};
// Comparisons: complex compare lexicographically (real part first), as NumPy does.
// NumPy's complex order: a NaN imaginary part makes the real-part test false too.
template <class C> XARR_EW_FN bool lex_less(C a, C b) {
  if constexpr (kComplex<C>)
    return (a.real() < b.real() && !is_nan(a.imag()) && !is_nan(b.imag())) ||
           (a.real() == b.real() && a.imag() < b.imag());
  else return a < b;
}
template <class C> XARR_EW_FN bool lex_le(C a, C b) {
  if constexpr (kComplex<C>)
    return (a.real() < b.real() && !is_nan(a.imag()) && !is_nan(b.imag())) ||
           (a.real() == b.real() && a.imag() <= b.imag());
  else return a <= b;
}
#define XARR_CMP(NAME, EXPR)                                                              \
  struct NAME {                                                                           \
    template <class T> using Out = bool;                                                  \
    template <class C> static constexpr bool ok = true;                                   \
    template <class C> XARR_EW_FN bool f(C a, C b) { return EXPR; }                           \
  };
XARR_CMP(Eq, a == b)
XARR_CMP(Ne, a != b)
XARR_CMP(Lt, lex_less(a, b))
XARR_CMP(Le, lex_le(a, b))
XARR_CMP(Gt, lex_less(b, a))
XARR_CMP(Ge, lex_le(b, a))
#undef XARR_CMP
template <class C> XARR_EW_FN auto tkey(C x) {
  if constexpr (kFloat<C>) return total_key(x);
  else return x;
}
#define XARR_TCMP(NAME, OP)                                                               \
  struct NAME {                                                                           \
    template <class T> using Out = bool;                                                  \
    template <class C> static constexpr bool ok = kReal<C> || kBool<C>;                   \
    template <class C> XARR_EW_FN bool f(C a, C b) { return tkey(a) OP tkey(b); }             \
  };
XARR_TCMP(EqTotal, ==)
XARR_TCMP(NeTotal, !=)
XARR_TCMP(LtTotal, <)
XARR_TCMP(LeTotal, <=)
XARR_TCMP(GtTotal, >)
XARR_TCMP(GeTotal, >=)
#undef XARR_TCMP

// ---------------------------------------------------------------------------- ternary
struct Clamp {
  template <class C> static constexpr bool ok = kReal<C> || kBool<C>;
  template <class C> XARR_EW_FN C f(C lo, C x, C hi) { return Min::f(Max::f(x, lo), hi); }
  // f's value when lo and hi are not NaN (then Max's result is NaN exactly where x is):
  // max, min, one NaN test, one select - the vector max / min instructions' own semantics
  // (x > lo ? x : lo keeps lo on a tie, as Max::f: clamp(-0.0, +0.0, 1) is +0.0).
  template <class C> XARR_EW_FN C f_ordered_bounds(C lo, C x, C hi) {
    const C m = x > lo ? x : lo;
    const C y = m < hi ? m : hi;
    return is_nan(x) ? x : y;
  }
};
// NumPy's clip(x, lo, hi): max(x, lo) then min(., hi), each keeping its first operand on a
// tie - so clip(-0.0, 0.0, 1.0) is -0.0 (lax's Clamp gives +0.0) - and NaN where x or a
// bound is NaN. With lo and hi not NaN it is the vector max / min instructions' own
// semantics, maxps(lo, x) then minps(hi, .): two ops (f_ordered_bounds).
struct Clip {
  template <class C> static constexpr bool ok = kReal<C> || kBool<C>;
  template <class C> XARR_EW_FN C f_ordered_bounds(C lo, C x, C hi) {
    const C m = lo > x ? lo : x;
    return hi < m ? hi : m;
  }
  template <class C> XARR_EW_FN C f(C lo, C x, C hi) {
    const C y = f_ordered_bounds(lo, x, hi);
    if constexpr (kFloat<C>) {
      const C b = is_nan(lo) ? lo : hi;
      return is_nan(b) ? b : y;
    } else {
      return y;
    }
  }
};
// select(pred, on_true, on_false), keyed by the value dtype. It only moves bytes, so its
// loops are one per element width (ew_loops.h select_loop), not built from `f`.
struct Select {
  static constexpr bool bytewise = true;
  template <class C> static constexpr bool ok = true;
  template <class C> XARR_EW_FN C f(bool p, C a, C b) { return p ? a : b; }
};

// ---------------------------------------------------------------------------- convert
// ConvertElementType from compute type S to compute type D, xarr's rules (SPEC.md):
// float -> int rounds toward zero and saturates, NaN -> 0; x -> pred is x != 0;
// complex -> real keeps the real part; real -> complex has a zero imaginary part.
// Worked example: f32 3.9 -> s8 3; -1e10 -> s32 INT32_MIN; NaN -> u8 0; 300 -> u8 wraps to 44.
template <class D, class S> inline D convert_value(S x) {
  if constexpr (kBool<D>) {
    if constexpr (kComplex<S>) return x.real() != 0 || x.imag() != 0;
    else return x != S(0);
  } else if constexpr (kComplex<S> && !kComplex<D>) {
    return convert_value<D>(x.real());
  } else if constexpr (kComplex<D>) {
    if constexpr (kComplex<S>) return D(static_cast<typename D::value_type>(x.real()),
                                        static_cast<typename D::value_type>(x.imag()));
    else return D(static_cast<typename D::value_type>(x), 0);
  } else if constexpr (kInt<D> && kFloat<S>) {
    constexpr S lo = static_cast<S>(std::numeric_limits<D>::min());
    // 2^(bits) as a float: the first value that does not fit.
    constexpr S hi = static_cast<S>(std::numeric_limits<D>::max() / 2 + 1) * S(2);
    D r = static_cast<D>(x >= hi || x <= lo || is_nan(x) ? S(0) : x);
    r = x >= hi ? std::numeric_limits<D>::max() : r;
    r = x <= lo ? std::numeric_limits<D>::min() : r;
    return is_nan(x) ? D(0) : r;
  } else {
    return static_cast<D>(x);
  }
}

}  // namespace ew
}  // namespace xarr

// Every elementwise op: X(NAME, Functor, arity) gives kernel code kEw_NAME (ew_table.h, in
// this order) computed by ew::Functor with `arity` inputs. Python names the ops by NAME
// (xarr/_registry.py's rows; `_core.ew_ops()` reports codes and arities).
#define XARR_EW_OPS(X)                                                                     \
  /* unary */                                                                              \
  X(NEG, Neg, 1) X(ABS, Abs, 1) X(SIGN, Sign, 1) X(NOT, Not, 1) X(CEIL, Ceil, 1)            \
  X(FLOOR, Floor, 1) X(ROUND, Round, 1) X(ROUND_EVEN, RoundEven, 1) X(TRUNC, Trunc, 1)      \
  X(EXP, Exp, 1) X(EXPM1, Expm1, 1) X(EXP2, Exp2, 1) X(LOG, Log, 1) X(LOG1P, Log1p, 1)      \
  X(LOG2, Log2, 1) X(LOG10, Log10, 1) X(LOGISTIC, Logistic, 1) X(TANH, Tanh, 1)             \
  X(SIN, Sin, 1) X(COS, Cos, 1) X(TAN, Tan, 1) X(ASIN, Asin, 1) X(ACOS, Acos, 1)            \
  X(ATAN, Atan, 1) X(SINH, Sinh, 1) X(COSH, Cosh, 1) X(ASINH, Asinh, 1)                     \
  X(ACOSH, Acosh, 1) X(ATANH, Atanh, 1) X(SQRT, Sqrt, 1) X(RSQRT, Rsqrt, 1)                 \
  X(CBRT, Cbrt, 1) X(SQUARE, Square, 1) X(IS_FINITE, IsFinite, 1) X(IS_NAN, IsNan, 1)       \
  X(IS_INF, IsInf, 1) X(POPCNT, Popcnt, 1) X(CLZ, Clz, 1) X(REAL, Real, 1)                  \
  X(IMAG, Imag, 1) X(CONJ, Conj, 1) X(COPY, Copy, 1) X(SIGNBIT, SignBit, 1)                 \
  X(SIGN_NP, SignNumpy, 1)                                                                 \
  /* binary */                                                                             \
  X(ADD, Add, 2) X(SUB, Sub, 2) X(MUL, Mul, 2) X(DIV, Div, 2) X(REM, Rem, 2)                \
  X(FMOD, Fmod, 2) X(FLOOR_DIV, FloorDiv, 2) X(MOD, Mod, 2) X(MAX, Max, 2)                  \
  X(MIN, Min, 2) X(POW, Pow, 2) X(ATAN2, Atan2, 2) X(HYPOT, Hypot, 2)                       \
  X(COPYSIGN, Copysign, 2) X(LOGADDEXP, LogAddExp, 2) X(AND, And, 2) X(OR, Or, 2)           \
  X(XOR, Xor, 2) X(SHL, Shl, 2) X(SHR_LOGICAL, ShrLogical, 2) X(SHR_ARITH, ShrArith, 2)     \
  X(EQ, Eq, 2) X(NE, Ne, 2) X(LT, Lt, 2) X(LE, Le, 2) X(GT, Gt, 2) X(GE, Ge, 2)             \
  X(EQ_TOTAL, EqTotal, 2) X(NE_TOTAL, NeTotal, 2) X(LT_TOTAL, LtTotal, 2)                   \
  X(LE_TOTAL, LeTotal, 2) X(GT_TOTAL, GtTotal, 2) X(GE_TOTAL, GeTotal, 2)                   \
  X(NEXTAFTER, Nextafter, 2) X(COMPLEX, MakeComplex, 2) X(LOGADDEXP2, LogAddExp2, 2)       \
  /* ternary */                                                                            \
  X(SELECT, Select, 3) X(CLAMP, Clamp, 3) X(CLIP, Clip, 3)
