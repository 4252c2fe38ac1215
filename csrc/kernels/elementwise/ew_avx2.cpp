// The avx2 elementwise table: ew_loops.h compiled with this ISA's flags (see CMakeLists.txt).
#define XARR_ISA_NS isa_avx2
#include "kernels/elementwise/vector_math.h"
#include "kernels/elementwise/ew_loops.h"

namespace xarr {
void fill_ew_table_avx2(EwTable* t) { isa_avx2::fill_table(t); }
}  // namespace xarr
