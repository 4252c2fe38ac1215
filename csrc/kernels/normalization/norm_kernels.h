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

// Two accumulators of 8 lanes each (16 elements a step), lanes summed in order at the end.
template <class T>
void run_typed(const T* a, const T* b, int64_t n, double* s, double* q) {
  D8 s0 = {}, s1 = {}, q0 = {}, q1 = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const D8 x0 = load8(a + i), x1 = load8(a + i + 8);
    s0 += x0;
    s1 += x1;
    q0 += x0 * load8(b + i);
    q1 += x1 * load8(b + i + 8);
  }
  const D8 sv = s0 + s1, qv = q0 + q1;
  double ss = 0, qq = 0;
  for (int l = 0; l < 8; ++l) {
    ss += sv[l];
    qq += qv[l];
  }
  for (; i < n; ++i) {
    ss += static_cast<double>(a[i]);
    qq += static_cast<double>(a[i]) * static_cast<double>(b[i]);
  }
  *s += ss;
  *q += qq;
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

inline void run(int dtype, const char* a, const char* b, int64_t n, double* s, double* q) {
  if (dtype == kF32)
    run_typed(reinterpret_cast<const float*>(a), reinterpret_cast<const float*>(b), n, s, q);
  else
    run_typed(reinterpret_cast<const double*>(a), reinterpret_cast<const double*>(b), n, s, q);
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
