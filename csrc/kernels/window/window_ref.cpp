// The ref window table: window_kernels.h compiled with this ISA's flags (CMakeLists.txt).
#define XARR_ISA_NS isa_ref
#include "kernels/window/window_kernels.h"

namespace xarr {
void fill_window_ref(WindowTable* t) { isa_ref::window_detail::fill_table(t); }
}  // namespace xarr
