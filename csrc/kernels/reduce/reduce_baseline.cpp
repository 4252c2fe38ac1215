// The baseline reduction table: reduce_kernels.h compiled with this ISA's flags (CMakeLists.txt).
#define XARR_ISA_NS isa_baseline
#include "kernels/reduce/reduce_kernels.h"

namespace xarr {
void fill_reduce_table_baseline(ReduceTable* t) { isa_baseline::red::fill_table(t); }
}  // namespace xarr
