// The AVX-512 GEMM table: 12x32 f32 and 12x16 f64 tiles (24 accumulator registers of 32,
// like BLIS's Skylake-X kernels), 12x32 s32 (vpmulld), 12x16 s64 (vpmullq, AVX-512DQ).
// Narrow 24x16 f32 / 24x8 f64 tiles for products of few columns; flat 8x48 f32 / 8x24 f64
// tiles for products whose rows the 12-row tiles would pad (64 rows). Complex: 6x16 c64 and
// 6x8 c128 tiles on real registers (ukernel_complex). Where the CPU has AVX512-VNNI /
// AVX512-BF16, the k-grouped int8 and bf16 kernels of gemm_avx512dot.cpp; where it has
// AMX, the tile kernels of gemm_amx.cpp.
#include <immintrin.h>

#define XARR_ISA_NS isa_avx512
#include "kernels/gemm/gemm_kernels.h"

namespace xarr {
namespace isa_avx512 {
namespace {

struct F32x16 {
  using T = float;
  using R = __m512;
  static constexpr int kLanes = 16;
  static R zero() { return _mm512_setzero_ps(); }
  static R load(const T* p) { return _mm512_load_ps(p); }
  static R loadu(const T* p) { return _mm512_loadu_ps(p); }
  static R bcast(const T* p) { return _mm512_set1_ps(*p); }
  static R fma(R a, R b, R c) { return _mm512_fmadd_ps(a, b, c); }
  static R add(R a, R b) { return _mm512_add_ps(a, b); }
  static void storeu(T* p, R v) { _mm512_storeu_ps(p, v); }
  static R swap_pairs(R v) { return _mm512_permute_ps(v, 0xB1); }
  // (a - b, a + b) in alternate lanes: fmaddsub(a, 1, b)
  static R addsub(R a, R b) { return _mm512_fmaddsub_ps(a, _mm512_set1_ps(1.0f), b); }
};

struct F64x8 {
  using T = double;
  using R = __m512d;
  static constexpr int kLanes = 8;
  static R zero() { return _mm512_setzero_pd(); }
  static R load(const T* p) { return _mm512_load_pd(p); }
  static R loadu(const T* p) { return _mm512_loadu_pd(p); }
  static R bcast(const T* p) { return _mm512_set1_pd(*p); }
  static R fma(R a, R b, R c) { return _mm512_fmadd_pd(a, b, c); }
  static R add(R a, R b) { return _mm512_add_pd(a, b); }
  static void storeu(T* p, R v) { _mm512_storeu_pd(p, v); }
  static R swap_pairs(R v) { return _mm512_permute_pd(v, 0x55); }
  static R addsub(R a, R b) { return _mm512_fmaddsub_pd(a, _mm512_set1_pd(1.0), b); }
};

template <class E>
struct IntX512 {
  using T = E;
  using R = __m512i;
  static constexpr int kLanes = 64 / sizeof(E);
  static R zero() { return _mm512_setzero_si512(); }
  static R load(const T* p) { return _mm512_load_si512(p); }
  static R loadu(const T* p) { return _mm512_loadu_si512(p); }
  static R bcast(const T* p) {
    if constexpr (sizeof(E) == 4) return _mm512_set1_epi32(*p);
    else return _mm512_set1_epi64(*p);
  }
  static R fma(R a, R b, R c) {
    if constexpr (sizeof(E) == 4) return _mm512_add_epi32(_mm512_mullo_epi32(a, b), c);
    else return _mm512_add_epi64(_mm512_mullo_epi64(a, b), c);
  }
  static R add(R a, R b) {
    if constexpr (sizeof(E) == 4) return _mm512_add_epi32(a, b);
    else return _mm512_add_epi64(a, b);
  }
  static void storeu(T* p, R v) { _mm512_storeu_si512(p, v); }
};

}  // namespace
}  // namespace isa_avx512

void fill_gemm_avx512(GemmTable* t) {
  using namespace isa_avx512;
  using namespace isa_avx512::gemm_detail;
  t->kernel[kGemmF32] = vec_kernel<F32x16, 12, 2>("sgemm_avx512_12x32");
  t->kernel[kGemmF64] = vec_kernel<F64x8, 12, 2>("dgemm_avx512_12x16");
  t->kernel[kGemmS32] = vec_kernel<IntX512<int32_t>, 12, 2>("s32gemm_avx512_12x32");
  t->kernel[kGemmS64] = vec_kernel<IntX512<int64_t>, 12, 2>("s64gemm_avx512_12x16");
  t->kernel[kGemmC64] = complex_kernel<F32x16, 6, 2>("cgemm_avx512_6x16");
  t->kernel[kGemmC128] = complex_kernel<F64x8, 6, 2>("zgemm_avx512_6x8");
  t->narrow[kGemmF32] = vec_kernel<F32x16, 24, 1>("sgemm_avx512_24x16");
  t->narrow[kGemmF64] = vec_kernel<F64x8, 24, 1>("dgemm_avx512_24x8");
  t->flat[kGemmF32] = vec_kernel<F32x16, 8, 3>("sgemm_avx512_8x48");
  t->flat[kGemmF64] = vec_kernel<F64x8, 8, 3>("dgemm_avx512_8x24");
  fill_direct_rows<F32x16, 12, 2>(t->direct_rows[kGemmF32]);
  fill_direct_rows<F64x8, 12, 2>(t->direct_rows[kGemmF64]);
  t->dot[kGemmF32] = &dot_vec<F32x16>;
  t->dot[kGemmF64] = &dot_vec<F64x8>;
  t->dot4[kGemmF32] = &dot4_vec<F32x16>;
  t->dot4[kGemmF64] = &dot4_vec<F64x8>;
  t->axpy[kGemmF32] = &axpy_vec<F32x16>;
  t->axpy[kGemmF64] = &axpy_vec<F64x8>;
  const CpuFeatures& f = cpu_features();
  if (fill_gemm_avx512dot) fill_gemm_avx512dot(t, f.avx512_vnni, f.avx512_bf16);
  if (fill_gemm_amx && f.amx) fill_gemm_amx(t);
}
}  // namespace xarr
