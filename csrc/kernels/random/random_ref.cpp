// The ref random table: random_kernels.h compiled with this ISA's flags (CMakeLists.txt).
#define XARR_ISA_NS isa_ref
#include "kernels/random/random_kernels.h"

namespace xarr {
void fill_rng_ref(RngTable* t) { isa_ref::rng_detail::fill_table(t); }
}  // namespace xarr
