// The avx512 reduction table: reduce_kernels.h compiled with this ISA's flags (CMakeLists.txt).
#define XARR_ISA_NS isa_avx512
#include "kernels/reduce/reduce_kernels.h"

namespace xarr {
void fill_reduce_table_avx512(ReduceTable* t) { isa_avx512::red::fill_table(t); }
}  // namespace xarr
