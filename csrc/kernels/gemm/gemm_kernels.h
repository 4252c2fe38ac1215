// The GEMM micro-kernels and matrix-vector kernels, written once as templates and compiled
// by each ISA's file (gemm_ref.cpp, gemm_baseline.cpp, gemm_avx2.cpp, gemm_avx512.cpp)
// with that ISA's flags, inside that file's namespace XARR_ISA_NS (a template instantiated
// with AVX2 flags must never be the one the linker hands the reference table).
// Contracts: gemm.h (GemmMicroKernelFn, GemmDotFn, GemmAxpyFn).
//
//   ukernel_scalar<T, MR, NR>   one C element at a time; the reference (and the complex and
//                               64-bit integer kernels of every ISA without a vector one)
//   ukernel_vec<V, MR, NV>      MR x (NV * lanes) accumulators in vector registers: per k
//                               step, NV loads of B, MR broadcasts of A, MR * NV fused
//                               multiply-adds (BLIS's register blocking). V is a vector
//                               traits struct (the ISA file defines it): T, R, kLanes, zero,
//                               load, loadu, bcast, fma, add, storeu.
//   dot_scalar / dot_vec, dot4_vec, axpy_scalar / axpy_vec   the matrix-vector kernels.
#ifndef XARR_ISA_NS
#error "define XARR_ISA_NS (the ISA's namespace) before including gemm_kernels.h"
#endif

#include <complex>
#include <cstdint>
#include <cstring>

#include "kernels/gemm/gemm.h"

namespace xarr {
namespace XARR_ISA_NS {
namespace gemm_detail {

// acc + a * b in T's arithmetic. Complex: written out, so every ISA rounds the same way
// and no Annex G recovery runs (BLAS does the same).
template <class T> inline T madd(T acc, T a, T b) { return acc + a * b; }
template <class F> inline std::complex<F> madd(std::complex<F> acc, std::complex<F> a,
                                               std::complex<F> b) {
  return {acc.real() + (a.real() * b.real() - a.imag() * b.imag()),
          acc.imag() + (a.real() * b.imag() + a.imag() * b.real())};
}

// One MR x NR tile in scalar arithmetic from A at a[i * a_rs + p * a_cs] and B at
// b[p * b_rs + j], into c[i * rs_c + j * cs_c]: the reference kernel (packed panels are
// a_rs = 1, a_cs = MR, b_rs = NR) and its direct variant.
template <class T, int MR, int NR>
void scalar_tile(int64_t kc, const T* a, int64_t a_rs, int64_t a_cs, const T* b,
                 int64_t b_rs, T* c, int64_t rs_c, int64_t cs_c, bool accumulate) {
  T acc[MR][NR];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j) acc[i][j] = T(0);
  for (int64_t p = 0; p < kc; ++p, a += a_cs, b += b_rs)
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < NR; ++j) acc[i][j] = madd(acc[i][j], a[i * a_rs], b[j]);
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j) {
      T& d = c[i * rs_c + j * cs_c];
      d = accumulate ? d + acc[i][j] : acc[i][j];
    }
}

template <class T, int MR, int NR>
void ukernel_scalar(int64_t kc, const void* a, const void* b, void* c, int64_t rs_c,
                    int64_t cs_c, bool accumulate) {
  scalar_tile<T, MR, NR>(kc, static_cast<const T*>(a), 1, MR, static_cast<const T*>(b), NR,
                         static_cast<T*>(c), rs_c, cs_c, accumulate);
}

template <class V, int MR, int NV>
void ukernel_vec(int64_t kc, const void* a_, const void* b_, void* c_, int64_t rs_c,
                 int64_t cs_c, bool accumulate) {
  using T = typename V::T;
  using R = typename V::R;
  constexpr int L = V::kLanes;
  constexpr int NR = NV * L;
  const T* a = static_cast<const T*>(a_);
  const T* b = static_cast<const T*>(b_);
  T* c = static_cast<T*>(c_);
  R acc[MR][NV];
#pragma GCC unroll 32
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < NV; ++j) acc[i][j] = V::zero();
  // C's rows are read (or written) after the loop: start bringing in every line of them.
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR * int{sizeof(T)}; j += 64)
      __builtin_prefetch(reinterpret_cast<char*>(c + i * rs_c) + j, 1);
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p, a += MR, b += NR) {
    R bv[NV];
#pragma GCC unroll 8
    for (int j = 0; j < NV; ++j) bv[j] = V::load(b + j * L);
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i) {
      R av = V::bcast(a + i);
#pragma GCC unroll 8
      for (int j = 0; j < NV; ++j) acc[i][j] = V::fma(av, bv[j], acc[i][j]);
    }
  }
  if (cs_c == 1) {
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
      for (int j = 0; j < NV; ++j) {
        T* d = c + i * rs_c + j * L;
        V::storeu(d, accumulate ? V::add(V::loadu(d), acc[i][j]) : acc[i][j]);
      }
    return;
  }
  // (every access to acc is fully unrolled: an indexed one would keep acc in memory)
  alignas(64) T tile[MR * NR];
#pragma GCC unroll 32
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < NV; ++j) V::storeu(tile + i * NR + j * L, acc[i][j]);
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j) {
      T& d = c[i * rs_c + j * cs_c];
      d = accumulate ? d + tile[i * NR + j] : tile[i * NR + j];
    }
}

// Complex products on real vectors (V: the float / double traits, plus swap_pairs and
// addsub). A register holds L/2 complex values of B as (re, im) pairs; per k step each A
// element's real and imaginary parts are broadcast, and two accumulators per register
// gather ar * (br, bi) and ai * (br, bi). At the end (ai*br, ai*bi) is swapped to
// (ai*bi, ai*br) and addsub gives (ar*br - ai*bi, ar*bi + ai*br). Tile: MR x (NV * L/2)
// complex values. The real part is sum(ar*br) - sum(ai*bi), summed separately (the
// reference rounds each step's difference): within the tolerance tests allow.
template <class V, int MR, int NV>
void ukernel_complex(int64_t kc, const void* a_, const void* b_, void* c_, int64_t rs_c,
                     int64_t cs_c, bool accumulate) {
  using F = typename V::T;
  using R = typename V::R;
  constexpr int L = V::kLanes;      // reals per register
  constexpr int NR = NV * L / 2;    // complex columns per tile
  const F* a = static_cast<const F*>(a_);
  const F* b = static_cast<const F*>(b_);
  F* c = static_cast<F*>(c_);
  R re[MR][NV], im[MR][NV];
#pragma GCC unroll 32
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < NV; ++j) re[i][j] = im[i][j] = V::zero();
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p, a += 2 * MR, b += 2 * NR) {
    R bv[NV];
#pragma GCC unroll 8
    for (int j = 0; j < NV; ++j) bv[j] = V::load(b + j * L);
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i) {
      const R ar = V::bcast(a + 2 * i), ai = V::bcast(a + 2 * i + 1);
#pragma GCC unroll 8
      for (int j = 0; j < NV; ++j) {
        re[i][j] = V::fma(ar, bv[j], re[i][j]);
        im[i][j] = V::fma(ai, bv[j], im[i][j]);
      }
    }
  }
  alignas(64) F tile[MR * NR * 2];
#pragma GCC unroll 32
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < NV; ++j)
      V::storeu(tile + (i * NR) * 2 + j * L, V::addsub(re[i][j], V::swap_pairs(im[i][j])));
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j) {
      F* d = c + 2 * (i * rs_c + j * cs_c);
      const F* t = tile + 2 * (i * NR + j);
      d[0] = accumulate ? d[0] + t[0] : t[0];
      d[1] = accumulate ? d[1] + t[1] : t[1];
    }
}

template <class V, int MR, int NV>
GemmMicroKernel complex_kernel(const char* name) {
  return {&ukernel_complex<V, MR, NV>, MR, NV * V::kLanes / 2, name, nullptr};
}

// The unpacked variant for small products: A read through its strides (a[i * a_rs + p *
// a_cs], broadcast), B's rows contiguous (b[p * b_rs + j]), full MR x NR tiles only. The
// same arithmetic, in the same order, as ukernel_vec on packed panels. (ukernel_vec is
// not written as this kernel with a_rs = 1, a_cs = MR, b_rs = NR: its offsets are then
// compile-time constants, and the packed path is the one that must run at peak.)
template <class V, int MR, int NV>
void ukernel_direct(int64_t kc, const void* a_, int64_t a_rs, int64_t a_cs, const void* b_,
                    int64_t b_rs, void* c_, int64_t rs_c, bool accumulate) {
  using T = typename V::T;
  using R = typename V::R;
  constexpr int L = V::kLanes;
  const T* a = static_cast<const T*>(a_);
  const T* b = static_cast<const T*>(b_);
  T* c = static_cast<T*>(c_);
  R acc[MR][NV];
#pragma GCC unroll 32
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < NV; ++j) acc[i][j] = V::zero();
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p, a += a_cs, b += b_rs) {
    R bv[NV];
#pragma GCC unroll 8
    for (int j = 0; j < NV; ++j) bv[j] = V::loadu(b + j * L);
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i) {
      R av = V::bcast(a + i * a_rs);
#pragma GCC unroll 8
      for (int j = 0; j < NV; ++j) acc[i][j] = V::fma(av, bv[j], acc[i][j]);
    }
  }
#pragma GCC unroll 32
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < NV; ++j) {
      T* d = c + i * rs_c + j * L;
      V::storeu(d, accumulate ? V::add(V::loadu(d), acc[i][j]) : acc[i][j]);
    }
}

template <class T, int MR, int NR>
void ukernel_direct_scalar(int64_t kc, const void* a, int64_t a_rs, int64_t a_cs,
                           const void* b, int64_t b_rs, void* c, int64_t rs_c,
                           bool accumulate) {
  scalar_tile<T, MR, NR>(kc, static_cast<const T*>(a), a_rs, a_cs, static_cast<const T*>(b),
                         b_rs, static_cast<T*>(c), rs_c, 1, accumulate);
}

template <class T>
void dot_scalar(int64_t k, const void* x_, const void* y_, void* result) {
  const T* x = static_cast<const T*>(x_);
  const T* y = static_cast<const T*>(y_);
  T s = T(0);
  for (int64_t p = 0; p < k; ++p) s = madd(s, x[p], y[p]);
  *static_cast<T*>(result) = s;
}

template <class T>
void axpy_scalar(int64_t n, const void* alpha_, const void* x_, void* y_) {
  const T alpha = *static_cast<const T*>(alpha_);
  const T* x = static_cast<const T*>(x_);
  T* y = static_cast<T*>(y_);
  for (int64_t i = 0; i < n; ++i) y[i] = madd(y[i], alpha, x[i]);
}

// Four vector accumulators (the loads of two streams keep two FMA pipes busy), combined in
// a fixed order, then the tail in scalar.
template <class V>
void dot_vec(int64_t k, const void* x_, const void* y_, void* result) {
  using T = typename V::T;
  using R = typename V::R;
  constexpr int L = V::kLanes;
  const T* x = static_cast<const T*>(x_);
  const T* y = static_cast<const T*>(y_);
  R s0 = V::zero(), s1 = V::zero(), s2 = V::zero(), s3 = V::zero();
  int64_t p = 0;
  for (; p + 4 * L <= k; p += 4 * L) {
    s0 = V::fma(V::loadu(x + p), V::loadu(y + p), s0);
    s1 = V::fma(V::loadu(x + p + L), V::loadu(y + p + L), s1);
    s2 = V::fma(V::loadu(x + p + 2 * L), V::loadu(y + p + 2 * L), s2);
    s3 = V::fma(V::loadu(x + p + 3 * L), V::loadu(y + p + 3 * L), s3);
  }
  for (; p + L <= k; p += L) s0 = V::fma(V::loadu(x + p), V::loadu(y + p), s0);
  alignas(64) T lanes[L];
  V::storeu(lanes, V::add(V::add(s0, s1), V::add(s2, s3)));
  T s = T(0);
  for (int i = 0; i < L; ++i) s += lanes[i];
  for (; p < k; ++p) s = madd(s, x[p], y[p]);
  *static_cast<T*>(result) = s;
}

// Four row dots at once: result[r] = sum_p a[r * lda + p] * x[p], r < 4 (lda in
// elements). Each x vector is loaded once for the four rows, and the rows are four read
// streams that a core keeps in flight together: on a Zen 3 VM a 4096^2 f32 matrix-vector
// product on one thread read 10-12 GB/s one row at a time and 15-16.5 four at a time
// (NumPy's OpenBLAS 16-18). Each row: two accumulators over steps of 2L elements, one
// more L step into the first, the two added, the lanes summed in order, the scalar tail.
template <class V>
void dot4_vec(int64_t k, const void* a_, int64_t lda, const void* x_, void* result) {
  using T = typename V::T;
  using R = typename V::R;
  constexpr int L = V::kLanes;
  const T* a = static_cast<const T*>(a_);
  const T* x = static_cast<const T*>(x_);
  const T* r0 = a;
  const T* r1 = a + lda;
  const T* r2 = a + 2 * lda;
  const T* r3 = a + 3 * lda;
  R s00 = V::zero(), s01 = V::zero(), s10 = V::zero(), s11 = V::zero();
  R s20 = V::zero(), s21 = V::zero(), s30 = V::zero(), s31 = V::zero();
  int64_t p = 0;
  for (; p + 2 * L <= k; p += 2 * L) {
    const R x0 = V::loadu(x + p), x1 = V::loadu(x + p + L);
    s00 = V::fma(V::loadu(r0 + p), x0, s00);
    s01 = V::fma(V::loadu(r0 + p + L), x1, s01);
    s10 = V::fma(V::loadu(r1 + p), x0, s10);
    s11 = V::fma(V::loadu(r1 + p + L), x1, s11);
    s20 = V::fma(V::loadu(r2 + p), x0, s20);
    s21 = V::fma(V::loadu(r2 + p + L), x1, s21);
    s30 = V::fma(V::loadu(r3 + p), x0, s30);
    s31 = V::fma(V::loadu(r3 + p + L), x1, s31);
  }
  if (p + L <= k) {
    const R x0 = V::loadu(x + p);
    s00 = V::fma(V::loadu(r0 + p), x0, s00);
    s10 = V::fma(V::loadu(r1 + p), x0, s10);
    s20 = V::fma(V::loadu(r2 + p), x0, s20);
    s30 = V::fma(V::loadu(r3 + p), x0, s30);
    p += L;
  }
  alignas(64) T lanes[4][L];
  V::storeu(lanes[0], V::add(s00, s01));
  V::storeu(lanes[1], V::add(s10, s11));
  V::storeu(lanes[2], V::add(s20, s21));
  V::storeu(lanes[3], V::add(s30, s31));
  const T* rows[4] = {r0, r1, r2, r3};
  T* out = static_cast<T*>(result);
  for (int r = 0; r < 4; ++r) {
    T v = T(0);
    for (int i = 0; i < L; ++i) v += lanes[r][i];
    for (int64_t q = p; q < k; ++q) v = madd(v, rows[r][q], x[q]);
    out[r] = v;
  }
}

template <class V>
void axpy_vec(int64_t n, const void* alpha_, const void* x_, void* y_) {
  using T = typename V::T;
  constexpr int L = V::kLanes;
  const T alpha = *static_cast<const T*>(alpha_);
  const T* x = static_cast<const T*>(x_);
  T* y = static_cast<T*>(y_);
  const typename V::R va = V::bcast(&alpha);
  int64_t i = 0;
  for (; i + 2 * L <= n; i += 2 * L) {
    V::storeu(y + i, V::fma(va, V::loadu(x + i), V::loadu(y + i)));
    V::storeu(y + i + L, V::fma(va, V::loadu(x + i + L), V::loadu(y + i + L)));
  }
  for (; i + L <= n; i += L) V::storeu(y + i, V::fma(va, V::loadu(x + i), V::loadu(y + i)));
  if (i < n) {  // the tail through the same vector operation: every y[i] rounds alike,
    alignas(64) T xt[L] = {}, yt[L] = {};  // wherever a thread's rows start
    std::memcpy(xt, x + i, sizeof(T) * (n - i));
    std::memcpy(yt, y + i, sizeof(T) * (n - i));
    V::storeu(yt, V::fma(va, V::loadu(xt), V::loadu(yt)));
    std::memcpy(y + i, yt, sizeof(T) * (n - i));
  }
}

// GCC vector extensions: a portable vector of `Bytes` bytes (the baseline ISA's SSE2, and
// the integer types AVX2 has no multiply for). fma is a multiply, then an add.
template <class Elem, int Bytes>
struct GccVec {
  using T = Elem;
  typedef Elem R __attribute__((vector_size(Bytes)));
  static constexpr int kLanes = Bytes / sizeof(Elem);
  static R zero() { return R{}; }
  static R load(const T* p) { R v; std::memcpy(&v, p, sizeof(R)); return v; }
  static R loadu(const T* p) { R v; std::memcpy(&v, p, sizeof(R)); return v; }
  static R bcast(const T* p) { return R{} + *p; }
  static R fma(R a, R b, R c) { return a * b + c; }
  static R add(R a, R b) { return a + b; }
  static void storeu(T* p, R v) { std::memcpy(p, &v, sizeof(R)); }
};

template <class T, int MR, int NR>
GemmMicroKernel scalar_kernel(const char* name) {
  return {&ukernel_scalar<T, MR, NR>, MR, NR, name, &ukernel_direct_scalar<T, MR, NR>};
}
template <class V, int MR, int NV>
GemmMicroKernel vec_kernel(const char* name) {
  return {&ukernel_vec<V, MR, NV>, MR, NV * V::kLanes, name, &ukernel_direct<V, MR, NV>};
}

// The direct kernels of the same width for 1 .. MR-1 rows (the last rows of a small
// product, or all of a product with few rows), into table->direct_rows[type].
template <class V, int MR, int NV, int R = 1>
void fill_direct_rows(GemmDirectKernelFn* rows) {
  if constexpr (R < MR) {
    rows[R] = &ukernel_direct<V, R, NV>;
    fill_direct_rows<V, MR, NV, R + 1>(rows);
  }
}

}  // namespace gemm_detail
}  // namespace XARR_ISA_NS
}  // namespace xarr
