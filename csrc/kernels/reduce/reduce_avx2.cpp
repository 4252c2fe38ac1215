// The avx2 reduction table: reduce_kernels.h compiled with this ISA's flags (CMakeLists.txt).
#define XARR_ISA_NS isa_avx2
#include "kernels/reduce/reduce_kernels.h"

namespace xarr {
void fill_reduce_table_avx2(ReduceTable* t) { isa_avx2::red::fill_table(t); }
}  // namespace xarr
