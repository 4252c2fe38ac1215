// The avx2 window table: window_kernels.h compiled with this ISA's flags (CMakeLists.txt).
#define XARR_ISA_NS isa_avx2
#include "kernels/window/window_kernels.h"

namespace xarr {
void fill_window_avx2(WindowTable* t) { isa_avx2::window_detail::fill_table(t); }
}  // namespace xarr
