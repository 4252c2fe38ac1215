// The avx512 window table: window_kernels.h compiled with this ISA's flags (CMakeLists.txt).
#define XARR_ISA_NS isa_avx512
#include "kernels/window/window_kernels.h"

namespace xarr {
void fill_window_avx512(WindowTable* t) { isa_avx512::window_detail::fill_table(t); }
}  // namespace xarr
