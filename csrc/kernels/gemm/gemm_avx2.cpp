// The AVX2 + FMA GEMM table: 6x16 f32 and 6x8 f64 tiles (12 accumulator registers of 16,
// BLIS's Haswell shapes), 6x16 s32 (vpmulld + vpaddd), 4x8 s64 on GCC vectors (AVX2 has no
// 64-bit multiply); narrow 12x8 f32 / 12x4 f64 tiles for products of few columns.
// Complex: 3x8 c64 and 3x4 c128 tiles on real registers (ukernel_complex).
#include <immintrin.h>

#define XARR_ISA_NS isa_avx2
#include "kernels/gemm/gemm_kernels.h"

namespace xarr {
namespace isa_avx2 {
namespace {

struct F32x8 {
  using T = float;
  using R = __m256;
  static constexpr int kLanes = 8;
  static R zero() { return _mm256_setzero_ps(); }
  static R load(const T* p) { return _mm256_load_ps(p); }
  static R loadu(const T* p) { return _mm256_loadu_ps(p); }
  static R bcast(const T* p) { return _mm256_broadcast_ss(p); }
  static R fma(R a, R b, R c) { return _mm256_fmadd_ps(a, b, c); }
  static R add(R a, R b) { return _mm256_add_ps(a, b); }
  static void storeu(T* p, R v) { _mm256_storeu_ps(p, v); }
  static R swap_pairs(R v) { return _mm256_permute_ps(v, 0xB1); }
  static R addsub(R a, R b) { return _mm256_addsub_ps(a, b); }
};

struct F64x4 {
  using T = double;
  using R = __m256d;
  static constexpr int kLanes = 4;
  static R zero() { return _mm256_setzero_pd(); }
  static R load(const T* p) { return _mm256_load_pd(p); }
  static R loadu(const T* p) { return _mm256_loadu_pd(p); }
  static R bcast(const T* p) { return _mm256_broadcast_sd(p); }
  static R fma(R a, R b, R c) { return _mm256_fmadd_pd(a, b, c); }
  static R add(R a, R b) { return _mm256_add_pd(a, b); }
  static void storeu(T* p, R v) { _mm256_storeu_pd(p, v); }
  static R swap_pairs(R v) { return _mm256_permute_pd(v, 0x5); }
  static R addsub(R a, R b) { return _mm256_addsub_pd(a, b); }
};

struct S32x8 {
  using T = int32_t;
  using R = __m256i;
  static constexpr int kLanes = 8;
  static R zero() { return _mm256_setzero_si256(); }
  static R load(const T* p) { return _mm256_load_si256(reinterpret_cast<const R*>(p)); }
  static R loadu(const T* p) { return _mm256_loadu_si256(reinterpret_cast<const R*>(p)); }
  static R bcast(const T* p) { return _mm256_set1_epi32(*p); }
  static R fma(R a, R b, R c) { return _mm256_add_epi32(_mm256_mullo_epi32(a, b), c); }
  static R add(R a, R b) { return _mm256_add_epi32(a, b); }
  static void storeu(T* p, R v) { _mm256_storeu_si256(reinterpret_cast<R*>(p), v); }
};

}  // namespace
}  // namespace isa_avx2

void fill_gemm_avx2(GemmTable* t) {
  using namespace isa_avx2;
  using namespace isa_avx2::gemm_detail;
  t->kernel[kGemmF32] = vec_kernel<F32x8, 6, 2>("sgemm_avx2_6x16");
  t->kernel[kGemmF64] = vec_kernel<F64x4, 6, 2>("dgemm_avx2_6x8");
  t->kernel[kGemmS32] = vec_kernel<S32x8, 6, 2>("s32gemm_avx2_6x16");
  t->kernel[kGemmS64] = vec_kernel<GccVec<int64_t, 32>, 4, 2>("s64gemm_avx2_4x8");
  t->kernel[kGemmC64] = complex_kernel<F32x8, 3, 2>("cgemm_avx2_3x8");
  t->kernel[kGemmC128] = complex_kernel<F64x4, 3, 2>("zgemm_avx2_3x4");
  t->narrow[kGemmF32] = vec_kernel<F32x8, 12, 1>("sgemm_avx2_12x8");
  t->narrow[kGemmF64] = vec_kernel<F64x4, 12, 1>("dgemm_avx2_12x4");
  fill_direct_rows<F32x8, 6, 2>(t->direct_rows[kGemmF32]);
  fill_direct_rows<F64x4, 6, 2>(t->direct_rows[kGemmF64]);
  t->dot[kGemmF32] = &dot_vec<F32x8>;
  t->dot[kGemmF64] = &dot_vec<F64x4>;
  t->dot4[kGemmF32] = &dot4_vec<F32x8>;
  t->dot4[kGemmF64] = &dot4_vec<F64x4>;
  t->axpy[kGemmF32] = &axpy_vec<F32x8>;
  t->axpy[kGemmF64] = &axpy_vec<F64x4>;
}
}  // namespace xarr
