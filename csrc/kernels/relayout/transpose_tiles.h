// 2-D transpose panels used by copy_strided, a kernel family (core/isa.h) of one shape.
// Contract of every panel function:
//   dst[i * dst_ld + j * itemsize] = src[j * src_ld + i * itemsize]
// for 0 <= i < ni, 0 <= j < nj (ld in BYTES; src contiguous along i, dst along j).
// `stream` asks for non-temporal stores (only used when dst rows are 64-byte aligned);
// a panel that streams ends with a store fence.
#pragma once

#include <cstdint>

#include "core/isa.h"

namespace xarr {

using TransposePanelFn = void (*)(const char* src, int64_t src_ld, char* dst, int64_t dst_ld,
                                  int64_t ni, int64_t nj, bool stream);

// panel[k]: the panel for elements of 2**k bytes (1, 2, 4, 8, 16). The reference fills
// every entry with scalar 16x16 blocks; AVX2 overrides 4 bytes (8x8 in registers), AVX-512
// 4 bytes (16x16) and 8 bytes (8x8).
struct TransposeTable {
  TransposePanelFn panel[5];
};

XARR_DECLARE_ISA_FILLS(TransposeTable, fill_transpose)
const TransposeTable& transpose_table(int isa);
// The panel of `isa` for elements of `itemsize` bytes (1, 2, 4, 8; 16 otherwise).
TransposePanelFn transpose_panel(int isa, int itemsize);

}  // namespace xarr
