// AVX-512 transpose panels: 16x16 tiles of 4-byte elements and 8x8 tiles of 8-byte
// elements, transposed in registers (unpack -> 64-bit unpack -> 128-bit lane shuffles).
#include <immintrin.h>

#include <cstring>

#include "kernels/relayout/transpose_tiles.h"

namespace xarr {

namespace {

inline void store_row(char* p, __m512 v, bool stream) {
  if (stream) _mm512_stream_ps(reinterpret_cast<float*>(p), v);
  else _mm512_storeu_ps(reinterpret_cast<float*>(p), v);
}

// One 16x16 tile of 32-bit elements.
inline void tile16x16_b32(const char* src, int64_t src_ld, char* dst, int64_t dst_ld,
                          bool stream) {
  __m512 r[16], t[16], u[16];
  for (int j = 0; j < 16; ++j) r[j] = _mm512_loadu_ps(reinterpret_cast<const float*>(src + j * src_ld));
  for (int k = 0; k < 8; ++k) {
    t[2 * k] = _mm512_unpacklo_ps(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm512_unpackhi_ps(r[2 * k], r[2 * k + 1]);
  }
  for (int k = 0; k < 4; ++k) {
    __m512d a = _mm512_castps_pd(t[4 * k]), b = _mm512_castps_pd(t[4 * k + 2]);
    __m512d c = _mm512_castps_pd(t[4 * k + 1]), d = _mm512_castps_pd(t[4 * k + 3]);
    u[4 * k] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
    u[4 * k + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
    u[4 * k + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(c, d));
    u[4 * k + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(c, d));
  }
  // Lane L of u[4k+m] holds column 4L+m of rows 4k..4k+3.
  for (int m = 0; m < 4; ++m) {
    __m512 v = _mm512_shuffle_f32x4(u[m], u[4 + m], 0x88);
    __m512 w = _mm512_shuffle_f32x4(u[8 + m], u[12 + m], 0x88);
    __m512 v2 = _mm512_shuffle_f32x4(u[m], u[4 + m], 0xdd);
    __m512 w2 = _mm512_shuffle_f32x4(u[8 + m], u[12 + m], 0xdd);
    store_row(dst + (0 + m) * dst_ld, _mm512_shuffle_f32x4(v, w, 0x88), stream);
    store_row(dst + (8 + m) * dst_ld, _mm512_shuffle_f32x4(v, w, 0xdd), stream);
    store_row(dst + (4 + m) * dst_ld, _mm512_shuffle_f32x4(v2, w2, 0x88), stream);
    store_row(dst + (12 + m) * dst_ld, _mm512_shuffle_f32x4(v2, w2, 0xdd), stream);
  }
}

// One 8x8 tile of 64-bit elements.
inline void tile8x8_b64(const char* src, int64_t src_ld, char* dst, int64_t dst_ld,
                        bool stream) {
  __m512d r[8], t[8];
  for (int j = 0; j < 8; ++j) r[j] = _mm512_loadu_pd(reinterpret_cast<const double*>(src + j * src_ld));
  for (int k = 0; k < 4; ++k) {
    t[2 * k] = _mm512_unpacklo_pd(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm512_unpackhi_pd(r[2 * k], r[2 * k + 1]);
  }
  // Lane L of t[2k+m] holds column 2L+m of rows 2k, 2k+1.
  for (int m = 0; m < 2; ++m) {
    __m512d v = _mm512_shuffle_f64x2(t[m], t[2 + m], 0x88);
    __m512d w = _mm512_shuffle_f64x2(t[4 + m], t[6 + m], 0x88);
    __m512d v2 = _mm512_shuffle_f64x2(t[m], t[2 + m], 0xdd);
    __m512d w2 = _mm512_shuffle_f64x2(t[4 + m], t[6 + m], 0xdd);
    __m512 rows[4] = {_mm512_castpd_ps(_mm512_shuffle_f64x2(v, w, 0x88)),
                      _mm512_castpd_ps(_mm512_shuffle_f64x2(v2, w2, 0x88)),
                      _mm512_castpd_ps(_mm512_shuffle_f64x2(v, w, 0xdd)),
                      _mm512_castpd_ps(_mm512_shuffle_f64x2(v2, w2, 0xdd))};
    for (int L = 0; L < 4; ++L) store_row(dst + (2 * L + m) * dst_ld, rows[L], stream);
  }
}

template <int W, int T>
void panel(const char* src, int64_t src_ld, char* dst, int64_t dst_ld, int64_t ni, int64_t nj,
           bool stream) {
  const int64_t ni_full = ni / T * T, nj_full = nj / T * T;
  for (int64_t i0 = 0; i0 < ni_full; i0 += T) {
    for (int64_t j0 = 0; j0 < nj_full; j0 += T) {
      const char* s = src + j0 * src_ld + i0 * W;
      char* d = dst + i0 * dst_ld + j0 * W;
      if constexpr (W == 4) tile16x16_b32(s, src_ld, d, dst_ld, stream);
      else tile8x8_b64(s, src_ld, d, dst_ld, stream);
    }
    for (int64_t i = i0; i < i0 + T; ++i)
      for (int64_t j = nj_full; j < nj; ++j)
        std::memcpy(dst + i * dst_ld + j * W, src + j * src_ld + i * W, W);
  }
  for (int64_t i = ni_full; i < ni; ++i)
    for (int64_t j = 0; j < nj; ++j)
      std::memcpy(dst + i * dst_ld + j * W, src + j * src_ld + i * W, W);
  if (stream) _mm_sfence();
}

}  // namespace

void fill_transpose_avx512(TransposeTable* t) {
  t->panel[2] = &panel<4, 16>;
  t->panel[3] = &panel<8, 8>;
}

}  // namespace xarr
