// The plain libm math used by the reference elementwise table (and by the vector tables for
// functions xarr::vmath does not provide). Same names as xarr::vmath, so a table picks its
// math with one macro (XARR_MATH).
#pragma once

#include <cmath>
#include <complex>

namespace xarr {
namespace libm {

template <class T> inline T exp(T x) { return std::exp(x); }
template <class T> inline T expm1(T x) { return std::expm1(x); }
template <class T> inline T exp2(T x) { return std::exp2(x); }
template <class T> inline T log(T x) { return std::log(x); }
template <class T> inline T log1p(T x) { return std::log1p(x); }
template <class T> inline T log2(T x) { return std::log2(x); }
template <class T> inline T log10(T x) { return std::log10(x); }
template <class T> inline T logistic(T x) { return T(1) / (T(1) + std::exp(-x)); }
template <class T> inline T tanh(T x) { return std::tanh(x); }
template <class T> inline T sin(T x) { return std::sin(x); }
template <class T> inline T cos(T x) { return std::cos(x); }
template <class T> inline T tan(T x) { return std::tan(x); }
template <class T> inline T asin(T x) { return std::asin(x); }
template <class T> inline T acos(T x) { return std::acos(x); }
template <class T> inline T atan(T x) { return std::atan(x); }
template <class T> inline T sinh(T x) { return std::sinh(x); }
template <class T> inline T cosh(T x) { return std::cosh(x); }
template <class T> inline T asinh(T x) { return std::asinh(x); }
template <class T> inline T acosh(T x) { return std::acosh(x); }
template <class T> inline T atanh(T x) { return std::atanh(x); }
template <class T> inline T cbrt(T x) { return std::cbrt(x); }
template <class T> inline T pow(T x, T y) { return std::pow(x, y); }
template <class T> inline T atan2(T y, T x) { return std::atan2(y, x); }
template <class T> inline T cabs(std::complex<T> z) { return std::abs(z); }

}  // namespace libm
}  // namespace xarr
