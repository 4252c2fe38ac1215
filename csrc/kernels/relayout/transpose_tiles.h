// 2-D transpose panels used by copy_strided. Contract of every panel function:
//   dst[i * dst_ld + j * itemsize] = src[j * src_ld + i * itemsize]
// for 0 <= i < ni, 0 <= j < nj (ld in BYTES; src contiguous along i, dst along j).
// `stream` asks for non-temporal stores (only used when dst rows are 64-byte aligned);
// a panel that streams ends with a store fence.
#pragma once

#include <cstdint>

namespace xarr {

using TransposePanelFn = void (*)(const char* src, int64_t src_ld, char* dst, int64_t dst_ld,
                                  int64_t ni, int64_t nj, bool stream);

// Scalar reference panels for element sizes 1, 2, 4, 8, 16 (index = log2(itemsize)).
TransposePanelFn transpose_panel_ref(int itemsize);
// Vector panels; nullptr when the ISA has no panel for that element size.
TransposePanelFn transpose_panel_avx2(int itemsize);
TransposePanelFn transpose_panel_avx512(int itemsize);

}  // namespace xarr
