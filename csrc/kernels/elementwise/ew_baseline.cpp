// The baseline elementwise table: ew_loops.h compiled with this ISA's flags (see CMakeLists.txt).
#define XARR_ISA_NS isa_baseline
#include "kernels/elementwise/vector_math.h"
#include "kernels/elementwise/ew_loops.h"

namespace xarr {
void fill_ew_table_baseline(EwTable* t) { isa_baseline::fill_table(t); }
}  // namespace xarr
