// The plain libm math used by the reference elementwise table (and by the vector tables for
// functions xarr::vmath does not provide). Same names as xarr::vmath, so a table picks its
// math with one macro (XARR_MATH).
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>

// Internal linkage, always inlined, for the reason vector_math.h gives: each ISA's table
// compiles its own copy.
#define XARR_LIBM_INLINE static inline __attribute__((always_inline))

namespace xarr {
namespace libm {

template <class T> XARR_LIBM_INLINE T exp(T x) { return std::exp(x); }
template <class T> XARR_LIBM_INLINE T expm1(T x) { return std::expm1(x); }
template <class T> XARR_LIBM_INLINE T exp2(T x) { return std::exp2(x); }
template <class T> XARR_LIBM_INLINE T log(T x) { return std::log(x); }
template <class T> XARR_LIBM_INLINE T log1p(T x) { return std::log1p(x); }
template <class T> XARR_LIBM_INLINE T log2(T x) { return std::log2(x); }
template <class T> XARR_LIBM_INLINE T log10(T x) { return std::log10(x); }
// e / (1 + e) with e = exp(-|x|): never overflows, so the negative tail underflows
// gradually (logistic(-100.f) = 3.72e-44f) instead of flushing at x = -88.7.
template <class T> XARR_LIBM_INLINE T logistic(T x) {
  T e = std::exp(-std::fabs(x));
  T r = T(1) / (T(1) + e);
  return x >= T(0) ? r : e * r;
}
template <class T> XARR_LIBM_INLINE T tanh(T x) { return std::tanh(x); }
template <class T> XARR_LIBM_INLINE T sin(T x) { return std::sin(x); }
template <class T> XARR_LIBM_INLINE T cos(T x) { return std::cos(x); }
template <class T> XARR_LIBM_INLINE T tan(T x) { return std::tan(x); }
template <class T> XARR_LIBM_INLINE T asin(T x) { return std::asin(x); }
template <class T> XARR_LIBM_INLINE T acos(T x) { return std::acos(x); }
template <class T> XARR_LIBM_INLINE T atan(T x) { return std::atan(x); }
template <class T> XARR_LIBM_INLINE T sinh(T x) { return std::sinh(x); }
template <class T> XARR_LIBM_INLINE T cosh(T x) { return std::cosh(x); }
template <class T> XARR_LIBM_INLINE T asinh(T x) { return std::asinh(x); }
template <class T> XARR_LIBM_INLINE T acosh(T x) { return std::acosh(x); }
template <class T> XARR_LIBM_INLINE T atanh(T x) { return std::atanh(x); }
template <class T> XARR_LIBM_INLINE T cbrt(T x) { return std::cbrt(x); }
template <class T> XARR_LIBM_INLINE T pow(T x, T y) { return std::pow(x, y); }
// x**y for an ordinary pair (0 < x < inf, finite y): libm's pow here, vmath's core in the
// vector tables (vector_math.h)
template <class T> XARR_LIBM_INLINE T pow_ordinary(T x, T y) { return std::pow(x, y); }
// c ? a : b (the vector tables' select is branch-free, vector_math.h)
template <class T> XARR_LIBM_INLINE T select(bool c, T a, T b) { return c ? a : b; }
template <class T> XARR_LIBM_INLINE T atan2(T y, T x) { return std::atan2(y, x); }
template <class T> XARR_LIBM_INLINE T cabs(std::complex<T> z) { return std::abs(z); }
template <class T> XARR_LIBM_INLINE void sin_array(const T* x, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::sin(x[i]);
}
template <class T> XARR_LIBM_INLINE void cos_array(const T* x, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::cos(x[i]);
}
template <class T> XARR_LIBM_INLINE void tan_array(const T* x, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::tan(x[i]);
}

}  // namespace libm
}  // namespace xarr
