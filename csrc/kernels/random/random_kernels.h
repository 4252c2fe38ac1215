// The random family's tile kernels (random.h), one copy per ISA: included by random_ref.cpp,
// random_avx2.cpp and random_avx512.cpp with XARR_ISA_NS set. A tile is 16 lanes of blocks
// computed in one simd loop (16 Philox or 2 x 16 ThreeFry blocks), then read as the kind
// asks; every kind writes whole tiles straight into the output.
#pragma once

#ifndef XARR_ISA_NS
#error "define XARR_ISA_NS before including random_kernels.h"
#endif

#include <cstdint>
#include <cstring>

// AVX2 without AVX-512: Philox on ymm registers (philox16_avx2 below).
#if defined(__AVX2__) && !defined(__AVX512F__)
#define XARR_RNG_PHILOX_YMM 1
#include <immintrin.h>
#endif

#include "kernels/elementwise/vmath.h"
#include "kernels/random/random.h"
#include "kernels/random/random_blocks.h"

namespace xarr {
namespace XARR_ISA_NS {
namespace rng_detail {

constexpr int kLanes = 16;
typedef uint32_t Tile[4][kLanes];

// Philox4x32-10 on 16 lanes of GCC vectors: rng_blocks::philox's rounds with each 32x32
// product split by lane parity into 64-bit lanes (even lanes, then odd ones shifted down).
// Measured faster than the plain simd loop over rng_blocks::philox (16M f64 uniforms 19.2
// -> 14.0 ms on Zen 4), though GCC 12 still multiplies with vpmullq, not vpmuludq (objdump
// of random_avx512.cpp.o). tests/test_random.py checks every tile against the scalar block
// function.
typedef uint32_t V32 __attribute__((vector_size(64)));
typedef uint64_t V64 __attribute__((vector_size(64)));

inline void mulhilo16(V32 c, uint64_t m, V32& hi, V32& lo) {
  const V64 x = reinterpret_cast<V64&>(c);
  const V64 even = (x & 0xFFFFFFFFull) * m, odd = (x >> 32) * m;
  const V64 h = (even >> 32) | (odd & 0xFFFFFFFF00000000ull);
  const V64 l = (even & 0xFFFFFFFFull) | (odd << 32);
  hi = reinterpret_cast<const V32&>(h);
  lo = reinterpret_cast<const V32&>(l);
}

inline void philox16(V32& c0, V32& c1, V32& c2, V32& c3, uint32_t k0, uint32_t k1) {
#pragma GCC unroll 10
  for (int r = 0; r < 10; ++r) {
    V32 hi0, lo0, hi1, lo1;
    mulhilo16(c0, 0xD2511F53u, hi0, lo0);
    mulhilo16(c2, 0xCD9E8D57u, hi1, lo1);
    c0 = hi1 ^ c1 ^ k0;
    c2 = hi0 ^ c3 ^ k1;
    c1 = lo1;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}

#if defined(XARR_RNG_PHILOX_YMM)
// philox16 for AVX2, on ymm registers: GCC lowers philox16's 64-byte vectors there with
// a full 64 x 64-bit product emulated (three vpmuludq for one) and its lane views through
// the stack (16M f32 uniforms: 77 ms on Zen 3, against 6.3 ms with AVX-512 on Zen 4).
// Each 32 x 32 -> 64-bit product is one vpmuludq of the even lanes and one of the odd
// lanes shifted down; the same words as philox16, lane for lane. The counter words of
// lanes 0-15: (w0 + lane, w1, w2, w3).
inline void mulhilo8(__m256i c, __m256i m, __m256i& hi, __m256i& lo) {
  const __m256i even = _mm256_mul_epu32(c, m);
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(c, 32), m);
  hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
  lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
}

inline void philox16_avx2(Tile t, uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3,
                          uint32_t k0, uint32_t k1) {
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(0xD2511F53u));
  const __m256i m1 = _mm256_set1_epi32(static_cast<int>(0xCD9E8D57u));
  for (int h = 0; h < 2; ++h) {   // lanes 8h .. 8h + 7
    __m256i c0 = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(w0)),
                                  _mm256_setr_epi32(8 * h, 8 * h + 1, 8 * h + 2, 8 * h + 3,
                                                    8 * h + 4, 8 * h + 5, 8 * h + 6, 8 * h + 7));
    __m256i c1 = _mm256_set1_epi32(static_cast<int>(w1));
    __m256i c2 = _mm256_set1_epi32(static_cast<int>(w2));
    __m256i c3 = _mm256_set1_epi32(static_cast<int>(w3));
    uint32_t a = k0, b = k1;
#pragma GCC unroll 10
    for (int r = 0; r < 10; ++r) {
      __m256i hi0, lo0, hi1, lo1;
      mulhilo8(c0, m0, hi0, lo0);
      mulhilo8(c2, m1, hi1, lo1);
      c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), _mm256_set1_epi32(static_cast<int>(a)));
      c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), _mm256_set1_epi32(static_cast<int>(b)));
      c1 = lo1;
      c3 = lo0;
      a += 0x9E3779B9u;
      b += 0xBB67AE85u;
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(t[0] + 8 * h), c0);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(t[1] + 8 * h), c1);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(t[2] + 8 * h), c2);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(t[3] + 8 * h), c3);
  }
}
#endif

// Tile q of the stream (rows as random.h says). When the low counter word does not wrap
// within the tile (all but one tile in 2^28), words 1-3 are the same in every lane and the
// lanes differ only in word 0: 32-bit lanes throughout.
inline void philox_tile(const RngStream& s, int64_t q, Tile t) {
  const uint64_t step = static_cast<uint64_t>(q) * kLanes;
  const uint64_t lo0 = s.counter[0] + step;
  const uint64_t hi0 = s.counter[1] + (lo0 < step ? 1 : 0);
  const uint32_t k0 = s.key[0], k1 = s.key[1];
  if ((lo0 & 0xFFFFFFFFu) <= 0xFFFFFFFFu - (kLanes - 1)) {
    const uint32_t w0 = static_cast<uint32_t>(lo0), w1 = static_cast<uint32_t>(lo0 >> 32);
    const uint32_t w2 = static_cast<uint32_t>(hi0), w3 = static_cast<uint32_t>(hi0 >> 32);
#if defined(XARR_RNG_PHILOX_YMM)
    philox16_avx2(t, w0, w1, w2, w3, k0, k1);
#else
    const V32 lanes = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    V32 c0 = w0 + lanes, c1 = V32{} + w1, c2 = V32{} + w2, c3 = V32{} + w3;
    philox16(c0, c1, c2, c3, k0, k1);
    std::memcpy(t[0], &c0, sizeof(c0));
    std::memcpy(t[1], &c1, sizeof(c1));
    std::memcpy(t[2], &c2, sizeof(c2));
    std::memcpy(t[3], &c3, sizeof(c3));
#endif
    return;
  }
  for (int l = 0; l < kLanes; ++l) {
    const uint64_t lo = lo0 + static_cast<uint64_t>(l);
    const uint64_t hi = hi0 + (lo < lo0 ? 1 : 0);
    uint32_t c0 = static_cast<uint32_t>(lo), c1 = static_cast<uint32_t>(lo >> 32);
    uint32_t c2 = static_cast<uint32_t>(hi), c3 = static_cast<uint32_t>(hi >> 32);
    rng_blocks::philox(c0, c1, c2, c3, k0, k1);
    t[0][l] = c0;
    t[1][l] = c1;
    t[2][l] = c2;
    t[3][l] = c3;
  }
}

inline void threefry_tile(const RngStream& s, int64_t q, Tile t) {
  const uint64_t first = s.counter[0] + static_cast<uint64_t>(q) * 2 * kLanes;
  const uint32_t k0 = s.key[0], k1 = s.key[1];
  for (int h = 0; h < 2; ++h) {
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) {
      const uint64_t c = first + static_cast<uint64_t>(h * kLanes + l);
      uint32_t x0 = static_cast<uint32_t>(c), x1 = static_cast<uint32_t>(c >> 32);
      rng_blocks::threefry(x0, x1, k0, k1);
      t[2 * h][l] = x0;
      t[2 * h + 1][l] = x1;
    }
  }
}

inline void make_tile(const RngStream& s, int64_t q, Tile t) {
  if (s.algorithm == kThreeFry2x32)
    threefry_tile(s, q, t);
  else
    philox_tile(s, q, t);
}

inline uint64_t join(uint32_t lo, uint32_t hi) { return lo | (static_cast<uint64_t>(hi) << 32); }

// Conversions through signed 32-bit integers, the ones AVX2 has (GCC converts unsigned or
// 64-bit integers lane by lane there), with the same values as the plain casts:
// u32_to_double(w) = w exactly; unit53(lo, hi) = (join(lo, hi) >> 11) * 2^-53 exactly (the
// shift is hi 2^21 + (lo >> 11): both parts exact in a double, and their sum, 53 bits).
inline double u32_to_double(uint32_t w) {
  return static_cast<double>(static_cast<int32_t>(w ^ 0x80000000u)) + 0x1p31;
}
inline double unit53(uint32_t lo, uint32_t hi) {
  return u32_to_double(hi) * 0x1p-32 +
         static_cast<double>(static_cast<int32_t>(lo >> 11)) * 0x1p-53;
}

// One tile of kind into out (rng_per_tile(kind) elements).
inline void emit(const Tile t, int kind, void* out, double a, double b) {
  switch (kind) {
    case kBits32:
      std::memcpy(out, t, sizeof(Tile));
      return;
    case kBits64: {
      uint64_t* o = static_cast<uint64_t*>(out);
      for (int p = 0; p < 2; ++p) {
#pragma omp simd
        for (int l = 0; l < kLanes; ++l) o[p * kLanes + l] = join(t[2 * p][l], t[2 * p + 1][l]);
      }
      return;
    }
    case kUniformF32: {
      float* o = static_cast<float*>(out);
      const float fa = static_cast<float>(a), fb = static_cast<float>(b);
      for (int r = 0; r < 4; ++r) {
#pragma omp simd
        for (int l = 0; l < kLanes; ++l)
          o[r * kLanes + l] =
              fa + fb * (static_cast<float>(static_cast<int32_t>(t[r][l] >> 8)) * 0x1p-24f);
      }
      return;
    }
    case kUniformF64: {
      double* o = static_cast<double*>(out);
      for (int p = 0; p < 2; ++p) {
#pragma omp simd
        for (int l = 0; l < kLanes; ++l) {
          o[p * kLanes + l] = a + b * unit53(t[2 * p][l], t[2 * p + 1][l]);
        }
      }
      return;
    }
    case kNormalF32: {
      // u1 = (w + 1/2) 2^-32 in (0, 1] from rows 0-1, the angle from rows 2-3
      float* o = static_cast<float*>(out);
      const float fa = static_cast<float>(a), fb = static_cast<float>(b);
      const uint32_t* w1 = &t[0][0];
      const uint32_t* w2 = &t[2][0];
#pragma omp simd
      for (int e = 0; e < 2 * kLanes; ++e) {
        const float u1 = (static_cast<float>(u32_to_double(w1[e])) + 0.5f) * 0x1p-32f;
        const float r = std::sqrt(-2.0f * vmath::log(u1));
        const float theta =
            6.28318530717958647692f *
            (static_cast<float>(static_cast<int32_t>(w2[e] >> 8)) * 0x1p-24f);
        o[e] = fa + fb * (r * vmath::cos(theta));
        o[2 * kLanes + e] = fa + fb * (r * vmath::sin(theta));
      }
      return;
    }
    case kNormalF64: {
      double* o = static_cast<double*>(out);
#pragma omp simd
      for (int l = 0; l < kLanes; ++l) {
        // (m1 + 0.5) 2^-53 = m1 2^-53 + 2^-54, rounded once either way
        const double u1 = unit53(t[0][l], t[1][l]) + 0x1p-54;
        const double r = std::sqrt(-2.0 * vmath::log(u1));
        const double theta = 6.28318530717958647692 * unit53(t[2][l], t[3][l]);
        o[l] = a + b * (r * vmath::cos(theta));
        o[kLanes + l] = a + b * (r * vmath::sin(theta));
      }
      return;
    }
    default:
      return;
  }
}

inline void tiles(const RngStream& s, int kind, int64_t q0, int64_t q1, void* out, double a,
                  double b) {
  const int64_t bytes = static_cast<int64_t>(sizeof(Tile));   // every kind: 256 bytes a tile
  char* o = static_cast<char*>(out);
  alignas(64) Tile t;
  for (int64_t q = q0; q < q1; ++q, o += bytes) {
    make_tile(s, q, t);
    emit(t, kind, o, a, b);
  }
}

inline void fill_table(RngTable* table) { table->tiles = &tiles; }

}  // namespace rng_detail
}  // namespace XARR_ISA_NS
}  // namespace xarr
