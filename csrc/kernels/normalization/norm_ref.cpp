// The ref normalization table: norm_kernels.h compiled with this ISA's flags (CMakeLists.txt).
#define XARR_ISA_NS isa_ref
#include "kernels/normalization/norm_kernels.h"

namespace xarr {
void fill_norm_ref(NormTable* t) { isa_ref::norm_detail::fill_table(t); }
}  // namespace xarr
