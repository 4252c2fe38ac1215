// The math the vector elementwise tables use (XARR_MATH = xarr::vm): xarr's vectorizable
// functions (vmath.h) for exp, expm1, log, log1p, tanh, logistic, sin, cos, tan, cbrt,
// atan, atan2 and pow on float/double; libm for everything else and for f16/bf16 via float.
//
// Trig contract: vmath's sin/cos/tan are accurate for |x| <= kSin/kCos/kTanFastRange*; the
// scalar entry points below branch to libm beyond it (used by strided loops), and
// contiguous loops call the *_array helpers, which fix such lanes block by block.
#pragma once

#include <cmath>

#include "kernels/elementwise/libm_math.h"
#include "kernels/elementwise/vmath.h"

// Every function here has internal linkage and is always inlined (XARR_VMATH_INLINE): this
// header is compiled into each ISA's table with that ISA's flags, so a shared (vague-linkage)
// copy would let the linker call one ISA's code from another's loop - an AVX-512 body on an
// AVX2 CPU, or a scalar body inside a loop that should vectorize (tests/test_build.py).
namespace xarr {
namespace vm {

using libm::acos;
using libm::acosh;
using libm::asin;
using libm::asinh;
using libm::atanh;
using libm::cabs;
using libm::cosh;
using libm::exp2;
using libm::log10;
using libm::log2;
using libm::sinh;

#define XARR_VM_UNARY(fn)                                              \
  XARR_VMATH_INLINE float fn(float x) { return ::xarr::vmath::fn(x); }   \
  XARR_VMATH_INLINE double fn(double x) { return ::xarr::vmath::fn(x); }
XARR_VM_UNARY(exp)
XARR_VM_UNARY(expm1)
XARR_VM_UNARY(log)
XARR_VM_UNARY(log1p)
XARR_VM_UNARY(tanh)
XARR_VM_UNARY(logistic)
XARR_VM_UNARY(cbrt)
XARR_VM_UNARY(atan)
#undef XARR_VM_UNARY

XARR_VMATH_INLINE float atan2(float y, float x) { return ::xarr::vmath::atan2(y, x); }
XARR_VMATH_INLINE double atan2(double y, double x) { return ::xarr::vmath::atan2(y, x); }
// c ? a : b without a branch (vmath's select: a ternary on floats can block vectorization)
XARR_VMATH_INLINE float select(bool c, float a, float b) { return ::xarr::vmath::detail::sel(c, a, b); }
XARR_VMATH_INLINE double select(bool c, double a, double b) {
  return ::xarr::vmath::detail::sel(c, a, b);
}
// x**y for an ordinary pair, 0 < x < inf and finite y: pow's magnitude core without its
// special-value selects (the same bits pow gives there; ew_loops.h pow_blocks).
XARR_VMATH_INLINE float pow_ordinary(float x, float y) {
  return static_cast<float>(::xarr::vmath::detail::pow_core(x, y));
}
XARR_VMATH_INLINE double pow_ordinary(double x, double y) {
  return ::xarr::vmath::detail::pow_core(x, y);
}
XARR_VMATH_INLINE float pow(float x, float y) { return ::xarr::vmath::pow(x, y); }
XARR_VMATH_INLINE double pow(double x, double y) { return ::xarr::vmath::pow(x, y); }

// Scalar trig with the libm fallback beyond the fast range (strided loops).
template <class T> static constexpr T sin_range() {
  if constexpr (sizeof(T) == 4) return ::xarr::vmath::kSinFastRangeF32;
  else return ::xarr::vmath::kSinFastRangeF64;
}
template <class T> static constexpr T cos_range() {
  if constexpr (sizeof(T) == 4) return ::xarr::vmath::kCosFastRangeF32;
  else return ::xarr::vmath::kCosFastRangeF64;
}
template <class T> static constexpr T tan_range() {
  if constexpr (sizeof(T) == 4) return ::xarr::vmath::kTanFastRangeF32;
  else return ::xarr::vmath::kTanFastRangeF64;
}
template <class T> XARR_VMATH_INLINE T sin(T x) {
  return std::fabs(x) <= sin_range<T>() ? ::xarr::vmath::sin(x) : std::sin(x);
}
template <class T> XARR_VMATH_INLINE T cos(T x) {
  return std::fabs(x) <= cos_range<T>() ? ::xarr::vmath::cos(x) : std::cos(x);
}
template <class T> XARR_VMATH_INLINE T tan(T x) {
  return std::fabs(x) <= tan_range<T>() ? ::xarr::vmath::tan(x) : std::tan(x);
}

// Contiguous trig: the vectorized, fallback-fixing array helpers.
template <class T> XARR_VMATH_INLINE void sin_array(const T* x, T* y, int64_t n) {
  ::xarr::vmath::sin_array(x, y, n);
}
template <class T> XARR_VMATH_INLINE void cos_array(const T* x, T* y, int64_t n) {
  ::xarr::vmath::cos_array(x, y, n);
}
template <class T> XARR_VMATH_INLINE void tan_array(const T* x, T* y, int64_t n) {
  ::xarr::vmath::tan_array(x, y, n);
}

}  // namespace vm
}  // namespace xarr

#define XARR_MATH ::xarr::vm
