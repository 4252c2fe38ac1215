// Scalar transpose panels (the reference table): 16x16 blocks so both sides stay in L1.
#include <cstring>

#include "kernels/relayout/transpose_tiles.h"

namespace xarr {

namespace {

template <int W>
void panel_ref(const char* src, int64_t src_ld, char* dst, int64_t dst_ld, int64_t ni,
               int64_t nj, bool) {
  constexpr int64_t B = 16;
  for (int64_t i0 = 0; i0 < ni; i0 += B) {
    const int64_t i1 = i0 + B < ni ? i0 + B : ni;
    for (int64_t j0 = 0; j0 < nj; j0 += B) {
      const int64_t j1 = j0 + B < nj ? j0 + B : nj;
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = j0; j < j1; ++j)
          std::memcpy(dst + i * dst_ld + j * W, src + j * src_ld + i * W, W);
    }
  }
}

}  // namespace

void fill_transpose_ref(TransposeTable* t) {
  t->panel[0] = &panel_ref<1>;
  t->panel[1] = &panel_ref<2>;
  t->panel[2] = &panel_ref<4>;
  t->panel[3] = &panel_ref<8>;
  t->panel[4] = &panel_ref<16>;
}

}  // namespace xarr
