// The scalar reference reduction table: no vectorization. It never goes away: the vector
// tables are tested against it bit for bit.
#define XARR_REDUCE_REFERENCE 1
#define XARR_ISA_NS isa_ref
#include "kernels/reduce/reduce_kernels.h"

namespace xarr {
void fill_reduce_table_ref(ReduceTable* t) { isa_ref::red::fill_table(t); }
}  // namespace xarr
