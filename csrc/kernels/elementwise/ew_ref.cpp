// The scalar reference elementwise table: no vectorization, libm for every function.
// It never goes away: the vector tables are tested against it.
#define XARR_EW_REFERENCE 1
#define XARR_ISA_NS isa_ref
#define XARR_MATH ::xarr::libm
#include "kernels/elementwise/libm_math.h"
#include "kernels/elementwise/ew_loops.h"

namespace xarr {
void fill_ew_table_ref(EwTable* t) { isa_ref::fill_table(t); }
}  // namespace xarr
