// The baseline GEMM table: 16-byte GCC vectors (SSE2 on any x86-64, NEON elsewhere).
// Complex products keep the reference's scalar kernels.
#define XARR_ISA_NS isa_baseline
#include "kernels/gemm/gemm_kernels.h"

namespace xarr {
void fill_gemm_baseline(GemmTable* t) {
  using namespace isa_baseline::gemm_detail;
  using F32 = GccVec<float, 16>;
  using F64 = GccVec<double, 16>;
  using S32 = GccVec<int32_t, 16>;
  using S64 = GccVec<int64_t, 16>;
  t->kernel[kGemmF32] = vec_kernel<F32, 4, 2>("sgemm_baseline_4x8");
  t->kernel[kGemmF64] = vec_kernel<F64, 4, 2>("dgemm_baseline_4x4");
  t->kernel[kGemmS32] = vec_kernel<S32, 4, 2>("s32gemm_baseline_4x8");
  t->kernel[kGemmS64] = vec_kernel<S64, 4, 2>("s64gemm_baseline_4x4");
  t->dot[kGemmF32] = &dot_vec<F32>;
  t->dot[kGemmF64] = &dot_vec<F64>;
  t->dot4[kGemmF32] = &dot4_vec<F32>;
  t->dot4[kGemmF64] = &dot4_vec<F64>;
  t->axpy[kGemmF32] = &axpy_vec<F32>;
  t->axpy[kGemmF64] = &axpy_vec<F64>;
}
}  // namespace xarr
