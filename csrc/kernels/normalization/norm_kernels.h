// The normalization family's row kernels (norm.h), one copy per ISA: included by
// norm_ref.cpp, norm_avx2.cpp and norm_avx512.cpp with XARR_ISA_NS set.
#pragma once

#ifndef XARR_ISA_NS
#error "define XARR_ISA_NS before including norm_kernels.h"
#endif

#include <cstdint>
#include <cstring>

#include "core/dtype.h"
#include "kernels/normalization/norm.h"

namespace xarr {
namespace XARR_ISA_NS {
namespace norm_detail {

// 8 float64 lanes (one zmm, two ymm or four xmm), and 8 of T to load them from.
typedef double D8 __attribute__((vector_size(64)));
template <class T> struct Lanes8Of;
template <> struct Lanes8Of<float> { typedef float type __attribute__((vector_size(32))); };
template <> struct Lanes8Of<double> { typedef double type __attribute__((vector_size(64))); };

template <class T> inline D8 load8(const T* p) {
  typename Lanes8Of<T>::type v;
  std::memcpy(&v, p, sizeof(v));
  return __builtin_convertvector(v, D8);
}

// s8 / q8: 8-lane partial sums the caller keeps over a feature's runs (the lanes are
// added once, at the end, not per run): each step of 16 elements adds into two lane
// accumulators, their sum then into the partials; a tail element i (from the run's last
// full step) goes to lane i % 8 (8 of them into the accumulators, the rest with them).
template <class T>
void run_typed(const T* a, const T* b, int64_t n, double* s8, double* q8) {
  D8 s0 = {}, s1 = {}, q0 = {}, q1 = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const D8 x0 = load8(a + i), x1 = load8(a + i + 8);
    s0 += x0;
    s1 += x1;
    q0 += x0 * load8(b + i);
    q1 += x1 * load8(b + i + 8);
  }
  double ts[8] = {}, tq[8] = {};
  for (int64_t l = 0; i < n; ++i, ++l) {
    ts[l % 8] = static_cast<double>(a[i]);
    tq[l % 8] = static_cast<double>(a[i]) * static_cast<double>(b[i]);
    if (l == 7) {   // (a tail is at most 15 elements: two rounds of lanes)
      s0 += load8(ts);
      q0 += load8(tq);
      std::fill(ts, ts + 8, 0.0);
      std::fill(tq, tq + 8, 0.0);
    }
  }
  D8 sv, qv;
  std::memcpy(&sv, s8, sizeof(D8));
  std::memcpy(&qv, q8, sizeof(D8));
  sv += (s0 + load8(ts)) + s1;
  qv += (q0 + load8(tq)) + q1;
  std::memcpy(s8, &sv, sizeof(D8));
  std::memcpy(q8, &qv, sizeof(D8));
}

template <class T>
void across_typed(const T* a, const T* b, int64_t c, double* s, double* q) {
  int64_t i = 0;
  for (; i + 8 <= c; i += 8) {
    const D8 x = load8(a + i);
    D8 vs, vq;
    std::memcpy(&vs, s + i, sizeof(D8));
    std::memcpy(&vq, q + i, sizeof(D8));
    vs += x;
    vq += x * load8(b + i);
    std::memcpy(s + i, &vs, sizeof(D8));
    std::memcpy(q + i, &vq, sizeof(D8));
  }
  for (; i < c; ++i) {
    s[i] += static_cast<double>(a[i]);
    q[i] += static_cast<double>(a[i]) * static_cast<double>(b[i]);
  }
}

inline void run(int dtype, const char* a, const char* b, int64_t n, double* s8, double* q8) {
  if (dtype == kF32)
    run_typed(reinterpret_cast<const float*>(a), reinterpret_cast<const float*>(b), n, s8, q8);
  else
    run_typed(reinterpret_cast<const double*>(a), reinterpret_cast<const double*>(b), n, s8,
              q8);
}

inline void across(int dtype, const char* a, const char* b, int64_t c, double* s, double* q) {
  if (dtype == kF32)
    across_typed(reinterpret_cast<const float*>(a), reinterpret_cast<const float*>(b), c, s, q);
  else
    across_typed(reinterpret_cast<const double*>(a), reinterpret_cast<const double*>(b), c, s,
                 q);
}

inline void fill_table(NormTable* t) {
  t->run = &run;
  t->across = &across;
}

}  // namespace norm_detail
}  // namespace XARR_ISA_NS
}  // namespace xarr
