// xarr/csrc/tools/vmath_check.cpp -- accuracy + throughput harness for
// csrc/kernels/elementwise/vmath.h. Not part of the library build.
//
// Build (one ISA at a time, from the repo root):
//   g++ -O3 -std=c++17 -fopenmp-simd -Icsrc csrc/tools/vmath_check.cpp -o /tmp/vmc_sse2
//   (optionally add -fno-trapping-math: the baseline double kernels vectorize only with it)
//   g++ -O3 -std=c++17 -fopenmp-simd -mavx2 -mfma -Icsrc csrc/tools/vmath_check.cpp
//       -o /tmp/vmc_avx2          (one line)
//   g++ -O3 -std=c++17 -fopenmp-simd -mavx512f -mavx512dq -mavx512bw -mavx512vl -mfma
//       -Icsrc csrc/tools/vmath_check.cpp -o /tmp/vmc_avx512          (one line)
// Add -ffp-contract=off to check that no result depends on contraction (it does not).
// Run:
//   vmc [--stride S] [--rand N] [--no-acc] [--no-time] [--only NAME]
//     (exhaustive float sweep of all functions: ~25 min per build on this machine)
//     --stride S : float sweep visits every S-th of the 2^32 bit patterns (default 7;
//                  S = 1 is exhaustive); every float in the trig fast range near multiples
//                  of pi/2 is always included.
//     --rand N   : random doubles per magnitude band (default 1000000); atan2 and pow use
//                  4N float pairs and N double pairs per band.
// Exit status 0 and "1 passed, 0 failed" when every special value / array check matches;
// the ULP table is informational (compare with the bounds stated in vmath.h).
//
// Accuracy: error in ULPs = |y - ref| / ulp(ref), with ulp taken at ref's binade (subnormal
// spacing below the normal range; inf is treated as the next power of two past the maximum
// finite value, so overflow thresholds are checked too). Reference: double libm for float
// functions (rounding error < 2^-29 float ULP), long double (x87, 64-bit mantissa) libm for
// double functions. NaN must map to NaN. Special values are checked bit-exactly (incl. the
// sign of zero) in a separate table.
// Timing: ns/element for the vmath array kernel vs a plain loop over std:: (libm), best of
// 5 passes over 16M floats / 4M doubles (trig: with the fallback pre-scan included), plus
// the same kernel on an L1-resident 4096-element slice (compute cost without DRAM).
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/elementwise/vmath.h"

namespace vm = xarr::vmath;

namespace {

// ---------------------------------------------------------------- kernels under test -----
// Fast-path kernels (no trig fallback) so the accuracy sweep measures the vector code itself.
#define FAST_KERNEL(fn)                                                         \
  template <class T>                                                            \
  void fast_##fn(const T* __restrict x, T* __restrict y, int64_t n) {           \
    _Pragma("omp simd") for (int64_t i = 0; i < n; ++i) y[i] = vm::fn(x[i]);    \
  }
FAST_KERNEL(exp)
FAST_KERNEL(expm1)
FAST_KERNEL(log)
FAST_KERNEL(log1p)
FAST_KERNEL(tanh)
FAST_KERNEL(logistic)
FAST_KERNEL(sin)
FAST_KERNEL(cos)
FAST_KERNEL(tan)
FAST_KERNEL(cbrt)
FAST_KERNEL(atan)

template <class T>
using ArrFn = void (*)(const T*, T*, int64_t);

long double logistic_l(long double x) { return 1.0L / (1.0L + expl(-x)); }
double logistic_d(double x) { return 1.0 / (1.0 + std::exp(-x)); }
float logistic_std(float x) { return 1.0f / (1.0f + std::exp(-x)); }
double logistic_std(double x) { return 1.0 / (1.0 + std::exp(-x)); }

struct Fn {
  const char* name;
  ArrFn<float> fast_f;  // vector kernel, fast path only
  ArrFn<double> fast_d;
  ArrFn<float> arr_f;  // public array helper (with trig fallback)
  ArrFn<double> arr_d;
  double (*ref_f)(double);             // reference for float
  long double (*ref_d)(long double);   // reference for double
  float (*std_f)(float);               // plain libm for timing
  double (*std_d)(double);
  double bound_f, bound_d;  // fast-range bound (trig) or inf
};

#define STD_WRAP(fn)                                        \
  float std_##fn##_f(float x) { return std::fn(x); }        \
  double std_##fn##_d(double x) { return std::fn(x); }      \
  double ref_##fn##_f(double x) { return std::fn(x); }      \
  long double ref_##fn##_d(long double x) { return std::fn(x); }
STD_WRAP(exp)
STD_WRAP(expm1)
STD_WRAP(log)
STD_WRAP(log1p)
STD_WRAP(tanh)
STD_WRAP(sin)
STD_WRAP(cos)
STD_WRAP(tan)
STD_WRAP(cbrt)
STD_WRAP(atan)

constexpr double kInf = std::numeric_limits<double>::infinity();

#define FN_ENTRY(fn, bf, bd)                                                           \
  Fn {                                                                                 \
    #fn, fast_##fn<float>, fast_##fn<double>, vm::fn##_array<float>,                   \
        vm::fn##_array<double>, ref_##fn##_f, ref_##fn##_d, std_##fn##_f, std_##fn##_d, \
        bf, bd                                                                         \
  }

std::vector<Fn> all_fns() {
  std::vector<Fn> v = {
      FN_ENTRY(exp, kInf, kInf),
      FN_ENTRY(expm1, kInf, kInf),
      FN_ENTRY(log, kInf, kInf),
      FN_ENTRY(log1p, kInf, kInf),
      FN_ENTRY(tanh, kInf, kInf),
      Fn{"logistic", fast_logistic<float>, fast_logistic<double>, vm::logistic_array<float>,
         vm::logistic_array<double>, logistic_d, logistic_l, logistic_std, logistic_std,
         kInf, kInf},
      FN_ENTRY(sin, vm::kSinFastRangeF32, vm::kSinFastRangeF64),
      FN_ENTRY(cos, vm::kCosFastRangeF32, vm::kCosFastRangeF64),
      FN_ENTRY(tan, vm::kTanFastRangeF32, vm::kTanFastRangeF64),
      FN_ENTRY(cbrt, kInf, kInf),
      FN_ENTRY(atan, kInf, kInf),
  };
  return v;
}

// ---------------------------------------------------------------- ULP measurement --------
double ulp_err(float y, double ref) {
  if (std::isnan(ref)) return std::isnan(y) ? 0.0 : kInf;
  if (std::isnan(y)) return kInf;
  double yv = std::isinf(y) ? std::copysign(0x1p128, y) : double(y);
  // Past the overflow threshold the correctly rounded result is inf: clamp ref to 2^128.
  double rv = std::fabs(ref) >= 0x1p128 ? std::copysign(0x1p128, ref) : ref;
  int e;
  std::frexp(rv, &e);  // |rv| in [2^(e-1), 2^e)
  int ue = (e - 1 < -126 ? -126 : e - 1) - 23;
  if (rv == 0) ue = -149;
  return std::fabs(yv - rv) / std::ldexp(1.0, ue);
}
double ulp_err(double y, long double ref) {
  if (std::isnan(ref)) return std::isnan(y) ? 0.0 : kInf;
  if (std::isnan(y)) return kInf;
  long double yv = std::isinf(y) ? std::copysign(0x1p1024L, (long double)y) : (long double)y;
  long double rv = std::fabs(ref) >= 0x1p1024L ? std::copysign(0x1p1024L, ref) : ref;
  int e;
  std::frexp(rv, &e);
  int ue = (e - 1 < -1022 ? -1022 : e - 1) - 52;
  if (rv == 0) ue = -1074;
  return (double)(std::fabs(yv - rv) / std::ldexp(1.0L, ue));
}

struct Acc {
  double max_ulp = 0;
  double where = 0, got = 0, want = 0;
  uint64_t count = 0;
  void add(double err, double x, double y, double r) {
    ++count;
    if (err > max_ulp) {
      max_ulp = err;
      where = x;
      got = y;
      want = r;
    }
  }
  void merge(const Acc& o) {
    count += o.count;
    if (o.max_ulp > max_ulp) {
      max_ulp = o.max_ulp;
      where = o.where;
      got = o.got;
      want = o.want;
    }
  }
};

constexpr int64_t kChunk = 1 << 16;

// Evaluates one chunk of float inputs (only those within `bound`) and accumulates errors.
void eval_f(const Fn& f, std::vector<float>& xs, Acc& acc) {
  // keep only in-range inputs
  size_t k = 0;
  for (float v : xs)
    if (!(std::fabs(v) > f.bound_f)) xs[k++] = v;
  xs.resize(k);
  std::vector<float> ys(k);
  f.fast_f(xs.data(), ys.data(), (int64_t)k);
  for (size_t i = 0; i < k; ++i) {
    double r = f.ref_f(xs[i]);
    acc.add(ulp_err(ys[i], r), xs[i], ys[i], r);
  }
}
void eval_d(const Fn& f, std::vector<double>& xs, Acc& acc) {
  size_t k = 0;
  for (double v : xs)
    if (!(std::fabs(v) > f.bound_d)) xs[k++] = v;
  xs.resize(k);
  std::vector<double> ys(k);
  f.fast_d(xs.data(), ys.data(), (int64_t)k);
  for (size_t i = 0; i < k; ++i) {
    long double r = f.ref_d(xs[i]);
    acc.add(ulp_err(ys[i], r), xs[i], ys[i], (double)r);
  }
}

// Float: strided sweep through all 2^32 bit patterns, plus every float within +-2 ulps of the
// float nearest k*pi/2 inside the fast range (worst cases for the Cody-Waite reduction).
Acc sweep_float(const Fn& f, uint64_t stride) {
  Acc acc;
  std::vector<float> xs;
  xs.reserve(kChunk);
  for (uint64_t b = 0; b < (1ull << 32); b += stride) {
    uint32_t u = (uint32_t)b;
    float v;
    std::memcpy(&v, &u, 4);
    xs.push_back(v);
    if ((int64_t)xs.size() == kChunk) {
      eval_f(f, xs, acc);
      xs.clear();
    }
  }
  if (std::isfinite(f.bound_f)) {
    for (long k = 1; k * 1.5707963267948966 < f.bound_f + 2; ++k) {
      float c = (float)(k * 1.5707963267948966);
      float lo = c, hi = c;
      for (int j = 0; j < 2; ++j) {
        lo = std::nextafter(lo, 0.0f);
        hi = std::nextafter(hi, 1e30f);
      }
      for (float v = lo; v <= hi; v = std::nextafter(v, 1e30f)) {
        xs.push_back(v);
        xs.push_back(-v);
      }
      if ((int64_t)xs.size() >= kChunk) {
        eval_f(f, xs, acc);
        xs.clear();
      }
    }
  }
  if (!xs.empty()) eval_f(f, xs, acc);
  return acc;
}

// Double: random bands. kind: 'u' uniform [a,b]; 'l' log-uniform magnitude in [a,b], random
// sign; 'p' log-uniform positive; '1' 1 +- log-uniform(a,b); 'm' -1 + log-uniform(a,b);
// 'k' nearest doubles to k*pi/2 (k < a) and their +-3 ulp neighbours.
struct Band {
  char kind;
  double a, b;
};
std::vector<Band> bands_for(const std::string& n) {
  if (n == "exp")
    return {{'u', -746, 710}, {'u', -1, 1}, {'l', 1e-300, 1}, {'u', -745.2, -708}};
  if (n == "expm1")
    return {{'u', -40, 710}, {'u', -1, 1}, {'l', 1e-300, 1}, {'l', 1e-10, 1e-3}};
  if (n == "log")
    return {{'p', 1e-308, 1e308}, {'u', 0.5, 2}, {'1', 1e-16, 0.3}, {'p', 4.9e-324, 2.2e-308}};
  if (n == "log1p")
    return {{'l', 1e-300, 1}, {'u', -1, 1}, {'p', 1, 1e308}, {'m', 1e-16, 1}};
  if (n == "tanh") return {{'u', -20, 20}, {'l', 1e-300, 1}, {'u', -1, 1}, {'l', 0.5, 0.75}};
  if (n == "logistic") return {{'u', -750, 40}, {'u', -10, 10}, {'l', 1e-300, 1}};
  if (n == "sin" || n == "cos" || n == "tan")
    return {{'u', -1e6, 1e6}, {'u', -10, 10}, {'l', 1e-300, 1}, {'k', 636000, 0}};
  if (n == "cbrt") return {{'l', 4.9e-324, 1e308}, {'u', -10, 10}};
  if (n == "atan") return {{'l', 1e-300, 1e300}, {'u', -10, 10}, {'l', 0.3, 3}};
  return {};
}

Acc random_double(const Fn& f, uint64_t n_per_band, uint64_t seed) {
  Acc acc;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  std::vector<double> xs;
  xs.reserve(kChunk);
  for (const Band& bd : bands_for(f.name)) {
    for (uint64_t i = 0; i < n_per_band; ++i) {
      double v = 0;
      double la = std::log(bd.a), lb = std::log(bd.b);
      switch (bd.kind) {
        case 'u': v = bd.a + (bd.b - bd.a) * U(rng); break;
        case 'l': v = std::exp(la + (lb - la) * U(rng)) * (U(rng) < 0.5 ? -1 : 1); break;
        case 'p': v = std::exp(la + (lb - la) * U(rng)); break;
        case '1': v = 1.0 + std::exp(la + (lb - la) * U(rng)) * (U(rng) < 0.5 ? -1 : 1); break;
        case 'm': v = -1.0 + std::exp(la + (lb - la) * U(rng)); break;
        case 'k': {
          long k = 1 + (long)(U(rng) * bd.a);
          long double c = (long double)k * 1.57079632679489661923132169163975144L;
          v = (double)c;
          int j = (int)(U(rng) * 7) - 3;
          for (; j > 0; --j) v = std::nextafter(v, 1e300);
          for (; j < 0; ++j) v = std::nextafter(v, -1e300);
          if (U(rng) < 0.5) v = -v;
          break;
        }
      }
      xs.push_back(v);
      if ((int64_t)xs.size() == kChunk) {
        eval_d(f, xs, acc);
        xs.clear();
      }
    }
  }
  if (!xs.empty()) eval_d(f, xs, acc);
  return acc;
}

// ---------------------------------------------------------------- special values ---------
template <class T>
bool same(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

template <class T>
int check_specials(const std::vector<Fn>& fns) {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const T den = std::numeric_limits<T>::denorm_min(), tiny = std::numeric_limits<T>::min();
  const T big = std::numeric_limits<T>::max();
  std::vector<T> xs = {T(0),     -T(0),     inf,         -inf,        nan,    -nan,  T(1),
                       T(-1),    den,       -den,        tiny,        -tiny,  big,   -big,
                       T(88.72), T(89),     T(-103.9),   T(-104),     T(709.78), T(710),
                       T(-745),  T(-746),   T(1e-30),    T(-1e-30),   T(8),   T(-27), T(0.5),
                       T(2),     T(1e5),    T(-1e5),     T(1e7),      T(-1e7),
                       T(1e300 > big ? 1e30 : 1e300)};
  int bad = 0;
  for (const Fn& f : fns) {
    std::vector<T> y(xs.size());
    if constexpr (sizeof(T) == 4)
      f.arr_f(xs.data(), y.data(), (int64_t)xs.size());
    else
      f.arr_d(xs.data(), y.data(), (int64_t)xs.size());
    for (size_t i = 0; i < xs.size(); ++i) {
      T x = xs[i];
      T want;
      if constexpr (sizeof(T) == 4)
        want = (T)f.ref_f(x);
      else
        want = (T)f.ref_d(x);
      bool exact_needed = std::isnan(want) || std::isinf(want) || want == 0 ||
                          std::fabs(want) == 1 || std::isinf(x) || x == 0;
      bool ok = exact_needed ? same(y[i], want)
                             : (sizeof(T) == 4 ? ulp_err((float)y[i], f.ref_f(x))
                                               : ulp_err((double)y[i], f.ref_d(x))) <= 3.0;
      if (!ok) {
        ++bad;
        std::printf("  SPECIAL MISMATCH %-8s %-6s x=%-14a got=%-14a want=%a\n", f.name,
                    sizeof(T) == 4 ? "float" : "double", (double)x, (double)y[i],
                    (double)want);
      }
    }
  }
  return bad;
}

// In-place and fallback checks of the array helpers (incl. trig lanes beyond the fast range).
template <class T>
int check_arrays(const std::vector<Fn>& fns) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  const int64_t n = 5000;
  std::vector<T> x(n);
  for (int64_t i = 0; i < n; ++i) {
    double s = (i % 97 == 0) ? 1e9 : (i % 13 == 0 ? 3e6 : 50.0);
    x[i] = (T)(U(rng) * s);
  }
  x[17] = std::numeric_limits<T>::infinity();
  x[18] = std::numeric_limits<T>::quiet_NaN();
  int bad = 0;
  for (const Fn& f : fns) {
    std::vector<T> a(n), b(x);
    if constexpr (sizeof(T) == 4) {
      f.arr_f(x.data(), a.data(), n);
      f.arr_f(b.data(), b.data(), n);  // in place
    } else {
      f.arr_d(x.data(), a.data(), n);
      f.arr_d(b.data(), b.data(), n);
    }
    for (int64_t i = 0; i < n; ++i) {
      T want;
      double e;
      if constexpr (sizeof(T) == 4) {
        want = (T)f.ref_f(x[i]);
        e = ulp_err((float)a[i], f.ref_f(x[i]));
      } else {
        want = (T)f.ref_d(x[i]);
        e = ulp_err((double)a[i], f.ref_d(x[i]));
      }
      (void)want;
      if (!(e <= 3.0) || !same(a[i], b[i])) {
        if (++bad < 10)
          std::printf("  ARRAY MISMATCH %-8s x=%a out=%a inplace=%a ulp=%g\n", f.name,
                      (double)x[i], (double)a[i], (double)b[i], e);
      }
    }
  }
  return bad;
}

// ---------------------------------------------------------------- binary: atan2 ---------
template <class T>
void atan2_fast(const T* __restrict y, const T* __restrict x, T* __restrict o, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = vm::atan2(y[i], x[i]);
}

// Random (y, x) pairs: uniform bit patterns, wide log-uniform magnitudes, a box, and points on
// the octant boundaries y = x tan(k pi/8) (+- a few ulps) where the reduction switches.
template <class T>
Acc check_atan2(uint64_t n_per_band) {
  Acc acc;
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const bool is_f = sizeof(T) == 4;
  const double lmin = is_f ? std::log(1e-45) : std::log(5e-324);
  const double lmax = is_f ? std::log(3e38) : std::log(1.7e308);
  std::vector<T> ys, xs, os;
  for (int band = 0; band < 4; ++band) {
    ys.clear();
    xs.clear();
    for (uint64_t i = 0; i < n_per_band; ++i) {
      T a, b;
      auto sg = [&] { return U(rng) < 0.5 ? -1.0 : 1.0; };
      if (band == 0) {
        uint64_t r1 = rng(), r2 = rng();
        if constexpr (sizeof(T) == 4) {
          uint32_t u1 = (uint32_t)r1, u2 = (uint32_t)r2;
          std::memcpy(&a, &u1, 4);
          std::memcpy(&b, &u2, 4);
        } else {
          std::memcpy(&a, &r1, 8);
          std::memcpy(&b, &r2, 8);
        }
      } else if (band == 1) {
        a = (T)(sg() * std::exp(lmin + (lmax - lmin) * U(rng)));
        b = (T)(sg() * std::exp(lmin + (lmax - lmin) * U(rng)));
      } else if (band == 2) {
        a = (T)(sg() * 1e3 * U(rng));
        b = (T)(sg() * 1e3 * U(rng));
      } else {
        b = (T)(sg() * std::exp(-20 + 40 * U(rng)));
        int k = 1 + (int)(U(rng) * 3);  // pi/8, 2pi/8, 3pi/8
        a = (T)(b * std::tan(k * 0.39269908169872414) * sg());
        int j = (int)(U(rng) * 7) - 3;
        for (; j > 0; --j) a = std::nextafter(a, (T)1e30);
        for (; j < 0; ++j) a = std::nextafter(a, (T)-1e30);
      }
      ys.push_back(a);
      xs.push_back(b);
    }
    os.resize(ys.size());
    atan2_fast<T>(ys.data(), xs.data(), os.data(), (int64_t)ys.size());
    for (size_t i = 0; i < ys.size(); ++i) {
      if constexpr (sizeof(T) == 4) {
        double r = std::atan2((double)ys[i], (double)xs[i]);
        acc.add(ulp_err(os[i], r), ys[i], os[i], r);
      } else {
        long double r = atan2l((long double)ys[i], (long double)xs[i]);
        acc.add(ulp_err(os[i], r), ys[i], os[i], (double)r);
      }
    }
  }
  return acc;
}

template <class T>
int atan2_specials() {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const T v[] = {T(0), -T(0), T(1), T(-1), inf, -inf, nan, std::numeric_limits<T>::denorm_min(),
                 -std::numeric_limits<T>::max(), std::numeric_limits<T>::max(), T(3)};
  int bad = 0;
  for (T y : v)
    for (T x : v) {
      T o;
      atan2_fast<T>(&y, &x, &o, 1);
      T want = (T)std::atan2(y, x);
      double e = sizeof(T) == 4 ? ulp_err((float)o, std::atan2((double)y, (double)x))
                                : ulp_err((double)o, atan2l((long double)y, (long double)x));
      bool ok = (want == 0 || std::isnan(want)) ? same(o, want) : e <= 1.0;
      if (!ok) {
        ++bad;
        std::printf("  SPECIAL MISMATCH atan2 %-6s y=%a x=%a got=%a want=%a\n",
                    sizeof(T) == 4 ? "float" : "double", (double)y, (double)x, (double)o,
                    (double)want);
      }
    }
  return bad;
}

// ---------------------------------------------------------------- binary: pow -----------
template <class T>
void pow_fast(const T* __restrict x, const T* __restrict y, T* __restrict o, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = vm::pow(x[i], y[i]);
}
// Bands: uniform bit patterns; log-uniform x with moderate y; x near 1 with huge y; negative x
// with integer y; and y*log(x) close to the overflow / underflow thresholds.
template <class T>
Acc check_pow(uint64_t n_per_band) {
  Acc acc;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const bool is_f = sizeof(T) == 4;
  const double ovf = is_f ? 88.72 : 709.78, unf = is_f ? -103.9 : -745.1;
  std::vector<T> xs, ys, os;
  for (int band = 0; band < 5; ++band) {
    xs.clear();
    ys.clear();
    for (uint64_t i = 0; i < n_per_band; ++i) {
      T a, b;
      if (band == 0) {
        uint64_t r1 = rng(), r2 = rng();
        if constexpr (sizeof(T) == 4) {
          uint32_t u1 = (uint32_t)r1, u2 = (uint32_t)r2;
          std::memcpy(&a, &u1, 4);
          std::memcpy(&b, &u2, 4);
        } else {
          std::memcpy(&a, &r1, 8);
          std::memcpy(&b, &r2, 8);
        }
      } else if (band == 1) {
        a = (T)std::exp(-80 + 160 * U(rng));
        b = (T)(-30 + 60 * U(rng));
      } else if (band == 2) {
        a = (T)(1.0 + (U(rng) - 0.5) * std::exp(-40 * U(rng)));
        b = (T)((U(rng) - 0.5) * std::exp(50 * U(rng)));
      } else if (band == 3) {
        a = (T)(-20 * U(rng));
        b = (T)std::floor(-40 + 80 * U(rng));
      } else {
        double lx = std::log(1.0001 + 1e4 * U(rng));
        a = (T)std::exp(lx);
        double target = (U(rng) < 0.5 ? ovf : unf) * (1 - 0.02 * U(rng));
        b = (T)(target / std::log((double)a));
      }
      xs.push_back(a);
      ys.push_back(b);
    }
    os.resize(xs.size());
    pow_fast<T>(xs.data(), ys.data(), os.data(), (int64_t)xs.size());
    for (size_t i = 0; i < xs.size(); ++i) {
      if constexpr (sizeof(T) == 4) {
        double r = std::pow((double)xs[i], (double)ys[i]);
        acc.add(ulp_err(os[i], r), xs[i], os[i], r);
      } else {
        long double r = powl((long double)xs[i], (long double)ys[i]);
        acc.add(ulp_err(os[i], r), xs[i], os[i], (double)r);
      }
    }
  }
  return acc;
}
template <class T>
int pow_specials() {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const T v[] = {T(0),  -T(0), T(1),  T(-1),  T(0.5), T(-0.5), T(2),   T(-2),  T(3),
                 T(-3), inf,   -inf,  nan,    T(2.5), T(-2.5), T(1e9), T(-1e9), T(1e30),
                 std::numeric_limits<T>::denorm_min(), std::numeric_limits<T>::max()};
  int bad = 0;
  for (T x : v)
    for (T y : v) {
      T o;
      pow_fast<T>(&x, &y, &o, 1);
      T want = (T)std::pow(x, y);
      double e = sizeof(T) == 4 ? ulp_err((float)o, std::pow((double)x, (double)y))
                                : ulp_err((double)o, powl((long double)x, (long double)y));
      bool exact = want == 0 || std::isnan(want) || std::isinf(want) || std::fabs(want) == 1;
      bool ok = exact ? same(o, want) : e <= 1.0;
      if (!ok) {
        ++bad;
        std::printf("  SPECIAL MISMATCH pow %-6s x=%a y=%a got=%a want=%a\n",
                    sizeof(T) == 4 ? "float" : "double", (double)x, (double)y, (double)o,
                    (double)want);
      }
    }
  return bad;
}

// ---------------------------------------------------------------- timing -----------------
double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
template <class Body>
double best_ns(Body body, int64_t n, int reps = 5) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    double t0 = now_s();
    body();
    double t = now_s() - t0;
    if (t < best) best = t;
  }
  return best * 1e9 / (double)n;
}

template <class T>
void fill_timing_input(const std::string& n, std::vector<T>& x) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  for (auto& v : x) {
    double u = U(rng);
    if (n == "log" || n == "cbrt")
      v = (T)std::exp(-60 + 120 * u);
    else if (n == "log1p")
      v = (T)(std::exp(-20 + 25 * u) - 0.999 * (u < 0.3));
    else if (n == "exp" || n == "expm1" || n == "logistic")
      v = (T)(-80 + 160 * u);
    else if (n == "tanh")
      v = (T)(-10 + 20 * u);
    else
      v = (T)(-100 + 200 * u);  // trig
  }
}

volatile double g_sink;
template <class T>
void time_fn(const Fn& f, int64_t n) {
  std::vector<T> x(n), y(n);
  fill_timing_input(f.name, x);
  double t_vm, t_std;
  if constexpr (sizeof(T) == 4) {
    t_vm = best_ns([&] { f.arr_f(x.data(), y.data(), n); }, n);
    t_std = best_ns(
        [&] {
          for (int64_t i = 0; i < n; ++i) y[i] = f.std_f(x[i]);
        },
        n, 3);
  } else {
    t_vm = best_ns([&] { f.arr_d(x.data(), y.data(), n); }, n);
    t_std = best_ns(
        [&] {
          for (int64_t i = 0; i < n; ++i) y[i] = f.std_d(x[i]);
        },
        n, 3);
  }
  // Same kernel on a 4096-element (L1-resident) slice repeated: compute cost without DRAM.
  const int64_t m = 4096, reps = n / m;
  double t_hot;
  if constexpr (sizeof(T) == 4)
    t_hot = best_ns([&] { for (int64_t k = 0; k < reps; ++k) f.arr_f(x.data(), y.data(), m); },
                    n);
  else
    t_hot = best_ns([&] { for (int64_t k = 0; k < reps; ++k) f.arr_d(x.data(), y.data(), m); },
                    n);
  g_sink = (double)y[n / 2];
  std::printf("  %-8s %-6s vmath %7.3f ns/elem (L1-hot %6.3f)   std:: %7.3f ns/elem"
              "   speedup %5.1fx\n", f.name, sizeof(T) == 4 ? "float" : "double", t_vm, t_hot,
              t_std, t_std / t_vm);
}

// Binary functions: 16M floats / 4M doubles, vmath array helper vs std:: loop.
template <class T>
void time_binary(const char* name, int64_t n) {
  std::vector<T> a(n), b(n), o(n);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  bool is_pow = std::strcmp(name, "pow") == 0;
  for (int64_t i = 0; i < n; ++i) {
    if (is_pow) {
      a[i] = (T)std::exp(-5 + 10 * U(rng));
      b[i] = (T)(-8 + 16 * U(rng));
    } else {
      a[i] = (T)(-100 + 200 * U(rng));
      b[i] = (T)(-100 + 200 * U(rng));
    }
  }
  double t_vm, t_std;
  if (is_pow) {
    t_vm = best_ns([&] { vm::pow_array(a.data(), b.data(), o.data(), n); }, n);
    t_std = best_ns([&] { for (int64_t i = 0; i < n; ++i) o[i] = std::pow(a[i], b[i]); }, n, 3);
  } else {
    t_vm = best_ns([&] { vm::atan2_array(a.data(), b.data(), o.data(), n); }, n);
    t_std = best_ns([&] { for (int64_t i = 0; i < n; ++i) o[i] = std::atan2(a[i], b[i]); }, n,
                    3);
  }
  g_sink = (double)o[n / 3];
  std::printf("  %-8s %-6s vmath %7.3f ns/elem                   std:: %7.3f ns/elem"
              "   speedup %5.1fx\n", name, sizeof(T) == 4 ? "float" : "double", t_vm, t_std,
              t_std / t_vm);
}

const char* isa_name() {
#if defined(__AVX512F__)
  return "AVX-512";
#elif defined(__AVX2__)
  return "AVX2+FMA";
#else
  return "SSE2 (baseline)";
#endif
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t stride = 7, nrand = 1000000;
  bool acc = true, timing = true;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--stride" && i + 1 < argc) stride = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--rand" && i + 1 < argc) nrand = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--no-acc") acc = false;
    else if (a == "--no-time") timing = false;
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else {
      std::fprintf(stderr, "unknown arg %s\n", a.c_str());
      return 2;
    }
  }
  std::vector<Fn> fns;
  for (const Fn& f : all_fns())
    if (only.empty() || only == f.name) fns.push_back(f);
  std::printf("vmath_check  ISA=%s  float stride=%" PRIu64 "  random doubles/band=%" PRIu64
              "\n", isa_name(), stride, nrand);
  int bad = 0;
  if (acc) {
    std::printf("\n%-9s %-6s %9s %14s  %-24s %-16s %-16s\n", "function", "type", "max ULP",
                "points", "worst x", "got", "want");
    for (const Fn& f : fns) {
      Acc a = sweep_float(f, stride);
      std::printf("%-9s %-6s %9.3f %14" PRIu64 "  %-24a %-16.9g %-16.9g\n", f.name, "float",
                  a.max_ulp, a.count, a.where, a.got, a.want);
      std::fflush(stdout);
      Acc d = random_double(f, nrand, 12345);
      std::printf("%-9s %-6s %9.3f %14" PRIu64 "  %-24a %-16.17g %-16.17g\n", f.name, "double",
                  d.max_ulp, d.count, d.where, d.got, d.want);
      std::fflush(stdout);
    }
    if (only.empty() || only == "atan2") {
      Acc a = check_atan2<float>(nrand * 4);
      std::printf("%-9s %-6s %9.3f %14" PRIu64 "  y=%-22a %-16.9g %-16.9g\n", "atan2", "float",
                  a.max_ulp, a.count, a.where, a.got, a.want);
      Acc d = check_atan2<double>(nrand);
      std::printf("%-9s %-6s %9.3f %14" PRIu64 "  y=%-22a %-16.17g %-16.17g\n", "atan2",
                  "double", d.max_ulp, d.count, d.where, d.got, d.want);
      bad += atan2_specials<float>() + atan2_specials<double>();
    }
    if (only.empty() || only == "pow") {
      Acc a = check_pow<float>(nrand * 4);
      std::printf("%-9s %-6s %9.3f %14" PRIu64 "  x=%-22a %-16.9g %-16.9g\n", "pow", "float",
                  a.max_ulp, a.count, a.where, a.got, a.want);
      Acc d = check_pow<double>(nrand);
      std::printf("%-9s %-6s %9.3f %14" PRIu64 "  x=%-22a %-16.17g %-16.17g\n", "pow",
                  "double", d.max_ulp, d.count, d.where, d.got, d.want);
      bad += pow_specials<float>() + pow_specials<double>();
    }
    std::printf("\nspecial values / array helpers (in place + trig fallback):\n");
    bad += check_specials<float>(fns);
    bad += check_specials<double>(fns);
    bad += check_arrays<float>(fns);
    bad += check_arrays<double>(fns);
    std::printf("  %d mismatches\n", bad);
  }
  if (timing) {
    std::printf("\ntiming (16M floats, 4M doubles; best of 5 / std best of 3):\n");
    for (const Fn& f : fns) time_fn<float>(f, 16 << 20);
    for (const Fn& f : fns) time_fn<double>(f, 4 << 20);
    for (const char* b : {"atan2", "pow"}) {
      if (!only.empty() && only != b) continue;
      time_binary<float>(b, 16 << 20);
      time_binary<double>(b, 4 << 20);
    }
  }
  std::printf("\n%d passed, %d failed\n", bad == 0 ? 1 : 0, bad == 0 ? 0 : 1);
  return bad == 0 ? 0 : 1;
}
