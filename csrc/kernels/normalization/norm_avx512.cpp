// The avx512 normalization table: norm_kernels.h compiled with this ISA's flags (CMakeLists.txt).
#define XARR_ISA_NS isa_avx512
#include "kernels/normalization/norm_kernels.h"

namespace xarr {
void fill_norm_avx512(NormTable* t) { isa_avx512::norm_detail::fill_table(t); }
}  // namespace xarr
