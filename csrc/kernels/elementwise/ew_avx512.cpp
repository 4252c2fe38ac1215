// The avx512 elementwise table: ew_loops.h compiled with this ISA's flags (see CMakeLists.txt).
#define XARR_ISA_NS isa_avx512
#include "kernels/elementwise/vector_math.h"
#include "kernels/elementwise/ew_loops.h"

namespace xarr {
void fill_ew_table_avx512(EwTable* t) { isa_avx512::fill_table(t); }
}  // namespace xarr
