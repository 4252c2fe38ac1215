// AVX2 transpose panels: 8x8 tiles of 4-byte elements in registers.
#include <immintrin.h>

#include <cstring>

#include "kernels/relayout/transpose_tiles.h"

namespace xarr {

namespace {

inline void tile8x8_b32(const char* src, int64_t src_ld, char* dst, int64_t dst_ld,
                        bool stream) {
  __m256 r[8], t[8], s[8];
  for (int j = 0; j < 8; ++j) r[j] = _mm256_loadu_ps(reinterpret_cast<const float*>(src + j * src_ld));
  for (int k = 0; k < 4; ++k) {
    t[2 * k] = _mm256_unpacklo_ps(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm256_unpackhi_ps(r[2 * k], r[2 * k + 1]);
  }
  for (int k = 0; k < 2; ++k) {
    s[4 * k + 0] = _mm256_shuffle_ps(t[4 * k], t[4 * k + 2], 0x44);
    s[4 * k + 1] = _mm256_shuffle_ps(t[4 * k], t[4 * k + 2], 0xEE);
    s[4 * k + 2] = _mm256_shuffle_ps(t[4 * k + 1], t[4 * k + 3], 0x44);
    s[4 * k + 3] = _mm256_shuffle_ps(t[4 * k + 1], t[4 * k + 3], 0xEE);
  }
  for (int m = 0; m < 4; ++m) {
    __m256 lo = _mm256_permute2f128_ps(s[m], s[4 + m], 0x20);
    __m256 hi = _mm256_permute2f128_ps(s[m], s[4 + m], 0x31);
    float* d0 = reinterpret_cast<float*>(dst + m * dst_ld);
    float* d1 = reinterpret_cast<float*>(dst + (4 + m) * dst_ld);
    if (stream) {
      _mm256_stream_ps(d0, lo);
      _mm256_stream_ps(d1, hi);
    } else {
      _mm256_storeu_ps(d0, lo);
      _mm256_storeu_ps(d1, hi);
    }
  }
}

void panel_b32(const char* src, int64_t src_ld, char* dst, int64_t dst_ld, int64_t ni,
               int64_t nj, bool stream) {
  constexpr int T = 8, W = 4;
  const int64_t ni_full = ni / T * T, nj_full = nj / T * T;
  // Blocks of 16 source rows (one full 64-byte line of every destination row), each swept
  // down the panel's destination rows, so the source lines a block loads (16 rows x the
  // panel's width) stay in L1 for all of its tiles; sweeping whole source columns per tile
  // row instead re-fetches every line (a 16 KB row stride defeats the L1's associativity).
  int64_t j0 = 0;
  for (; j0 + 2 * T <= nj_full; j0 += 2 * T)
    for (int64_t i0 = 0; i0 < ni_full; i0 += T) {
      tile8x8_b32(src + j0 * src_ld + i0 * W, src_ld, dst + i0 * dst_ld + j0 * W, dst_ld,
                  stream);
      tile8x8_b32(src + (j0 + T) * src_ld + i0 * W, src_ld,
                  dst + i0 * dst_ld + (j0 + T) * W, dst_ld, stream);
    }
  for (; j0 < nj_full; j0 += T)
    for (int64_t i0 = 0; i0 < ni_full; i0 += T)
      tile8x8_b32(src + j0 * src_ld + i0 * W, src_ld, dst + i0 * dst_ld + j0 * W, dst_ld,
                  stream);
  for (int64_t i = 0; i < ni_full; ++i)
    for (int64_t j = nj_full; j < nj; ++j)
      std::memcpy(dst + i * dst_ld + j * W, src + j * src_ld + i * W, W);
  for (int64_t i = ni_full; i < ni; ++i)
    for (int64_t j = 0; j < nj; ++j)
      std::memcpy(dst + i * dst_ld + j * W, src + j * src_ld + i * W, W);
  if (stream) _mm_sfence();
}

}  // namespace

void fill_transpose_avx2(TransposeTable* t) { t->panel[2] = &panel_b32; }

}  // namespace xarr
