// The avx2 random table: random_kernels.h compiled with this ISA's flags (CMakeLists.txt).
#define XARR_ISA_NS isa_avx2
#include "kernels/random/random_kernels.h"

namespace xarr {
void fill_rng_avx2(RngTable* t) { isa_avx2::rng_detail::fill_table(t); }
}  // namespace xarr
