// The AVX-512 dot-product GEMM kernels: k-grouped micro-kernels whose one instruction sums
// several products per 32-bit lane.
//   u8s8gemm_avx512vnni_12x32   vpdpbusd: 4 u8 x s8 products + s32 accumulator per lane
//   s8u8gemm_avx512vnni_12x32   the same with A's bytes signed and B's unsigned
//   bf16gemm_avx512bf16_12x32   vdpbf16ps: 2 bf16 x bf16 products + f32 accumulator
// This file is compiled with the AVX-512 flags plus -mavx512vnni -mavx512bf16
// (CMakeLists.txt: *_avx512dot.cpp); fill_gemm_avx512 calls its fill only where
// cpu_features() reports the instructions.
//
// Panels (gemm.h, GemmMicroKernel::group = G): k is cut into ceil(kc / G) groups, the
// last one zero padded. A: a[(q * MR + i) * G + g] = A[i, q * G + g]; B: b[(q * NR + j) *
// G + g] = B[q * G + g, j]; per k group one 32-bit broadcast of A per row and NV 64-byte
// loads of B. The int8 kernels then read NR s32 corrections after the B panel (at b +
// groups * NR * G) and add corr[j] to every row of column j: the driver packs a signed A
// as unsigned (a ^ 0x80 = a + 128) or an unsigned A as signed (a - 128) when both operands
// have the same signedness, and corr[j] = -/+ 128 * sum_k B[k, j] undoes the shift.
// Integer sums wrap modulo 2**32 (vpdpbusd does not saturate), so the result is exact
// modulo 2**32, as the s32 reference is. vdpbf16ps rounds each pair's sum to nearest even
// and treats denormal inputs and outputs as zero; the product is within the f32 tolerance
// of the convert-while-packing path.
#include <immintrin.h>

#include <cstdint>

#include "kernels/gemm/gemm.h"

namespace xarr {
namespace isa_avx512dot {
namespace {

// One accumulator type and its dot step. kCorr: the B panel is followed by NR s32
// corrections.
template <bool kAUnsigned>
struct Int8Dot {
  using T = int32_t;
  using R = __m512i;
  static constexpr bool kCorr = true;
  static constexpr int kGroup = 4;  // k values per 32-bit word
  static R zero() { return _mm512_setzero_si512(); }
  // acc + sum of 4 byte products per lane; a: A's group broadcast, b: 16 of B's groups
  static R dot(R acc, R a, R b) {
    if constexpr (kAUnsigned) return _mm512_dpbusd_epi32(acc, a, b);
    else return _mm512_dpbusd_epi32(acc, b, a);
  }
  static R add(R a, R b) { return _mm512_add_epi32(a, b); }
  static R loadu(const T* p) { return _mm512_loadu_si512(p); }
  static void storeu(T* p, R v) { _mm512_storeu_si512(p, v); }
};

struct Bf16Dot {
  using T = float;
  using R = __m512;
  static constexpr bool kCorr = false;
  static constexpr int kGroup = 2;
  static R zero() { return _mm512_setzero_ps(); }
  static R dot(R acc, __m512i a, __m512i b) {
    return _mm512_dpbf16_ps(acc, reinterpret_cast<__m512bh>(a), reinterpret_cast<__m512bh>(b));
  }
  static R add(R a, R b) { return _mm512_add_ps(a, b); }
  static R loadu(const T* p) { return _mm512_loadu_ps(p); }
  static void storeu(T* p, R v) { _mm512_storeu_ps(p, v); }
};

// One 32-bit word of a panel: a group of 4 bytes or 2 bf16 (read through this type, which
// may alias them).
typedef int32_t Word __attribute__((may_alias));

// GemmMicroKernelFn over k-grouped panels (file comment): MR x (NV * 16) accumulators,
// into rows of C with unit column stride (cs_c == 1, gemm.h).
template <class D, int MR, int NV>
void ukernel_grouped(int64_t kc, const void* a_, const void* b_, void* c_, int64_t rs_c,
                     int64_t /*cs_c*/, bool accumulate) {
  using T = typename D::T;
  using R = typename D::R;
  const int64_t groups = (kc + D::kGroup - 1) / D::kGroup;
  const Word* a = static_cast<const Word*>(a_);
  const Word* b = static_cast<const Word*>(b_);
  T* c = static_cast<T*>(c_);
  R acc[MR][NV];
#pragma GCC unroll 32
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < NV; ++j) acc[i][j] = D::zero();
  for (int i = 0; i < MR; ++i) __builtin_prefetch(c + i * rs_c, 1);
#pragma GCC unroll 4
  for (int64_t q = 0; q < groups; ++q, a += MR, b += NV * 16) {
    __m512i bv[NV];
#pragma GCC unroll 8
    for (int j = 0; j < NV; ++j) bv[j] = _mm512_load_si512(b + j * 16);
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i) {
      const __m512i av = _mm512_set1_epi32(a[i]);
#pragma GCC unroll 8
      for (int j = 0; j < NV; ++j) acc[i][j] = D::dot(acc[i][j], av, bv[j]);
    }
  }
  if constexpr (D::kCorr) {  // b now points at the corrections
#pragma GCC unroll 8
    for (int j = 0; j < NV; ++j) {
      const R corr = _mm512_load_si512(b + j * 16);
#pragma GCC unroll 32
      for (int i = 0; i < MR; ++i) acc[i][j] = D::add(acc[i][j], corr);
    }
  }
#pragma GCC unroll 32
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < NV; ++j) {
      T* d = c + i * rs_c + j * 16;
      D::storeu(d, accumulate ? D::add(D::loadu(d), acc[i][j]) : acc[i][j]);
    }
}

template <class D, int MR, int NV>
GemmMicroKernel grouped_kernel(const char* name) {
  GemmMicroKernel k{&ukernel_grouped<D, MR, NV>, MR, NV * 16, name, nullptr};
  k.group = k.a_group = D::kGroup;
  return k;
}

}  // namespace
}  // namespace isa_avx512dot

void fill_gemm_avx512dot(GemmTable* t, bool vnni, bool bf16) {
  using namespace isa_avx512dot;
  if (vnni) {
    t->u8s8 = grouped_kernel<Int8Dot<true>, 12, 2>("u8s8gemm_avx512vnni_12x32");
    t->s8u8 = grouped_kernel<Int8Dot<false>, 12, 2>("s8u8gemm_avx512vnni_12x32");
  }
  if (bf16) t->bf16 = grouped_kernel<Bf16Dot, 12, 2>("bf16gemm_avx512bf16_12x32");
}

}  // namespace xarr
