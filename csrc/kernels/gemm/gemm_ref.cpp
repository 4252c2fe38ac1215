// The scalar reference GEMM table (no vectorization): the oracle every other ISA's
// kernels are tested against. Small 4x4 tiles (2x2 complex): the reference is for
// correctness, the driver's blocking is the same for every tile shape.
#define XARR_ISA_NS isa_ref
#include "kernels/gemm/gemm_kernels.h"

namespace xarr {
void fill_gemm_ref(GemmTable* t) {
  using namespace isa_ref::gemm_detail;
  t->kernel[kGemmF32] = scalar_kernel<float, 4, 4>("sgemm_ref_4x4");
  t->kernel[kGemmF64] = scalar_kernel<double, 4, 4>("dgemm_ref_4x4");
  t->kernel[kGemmC64] = scalar_kernel<c64, 2, 2>("cgemm_ref_2x2");
  t->kernel[kGemmC128] = scalar_kernel<c128, 2, 2>("zgemm_ref_2x2");
  t->kernel[kGemmS32] = scalar_kernel<int32_t, 4, 4>("s32gemm_ref_4x4");
  t->kernel[kGemmS64] = scalar_kernel<int64_t, 4, 4>("s64gemm_ref_4x4");
  t->dot[kGemmF32] = &dot_scalar<float>;
  t->dot[kGemmF64] = &dot_scalar<double>;
  t->axpy[kGemmF32] = &axpy_scalar<float>;
  t->axpy[kGemmF64] = &axpy_scalar<double>;
}
}  // namespace xarr
