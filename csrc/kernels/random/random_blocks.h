// The two block functions of the random family (random.h), always inline: the tile kernels
// (random_kernels.h) call them inside a simd loop over 16 lanes, where they vectorize, and
// the driver's per-element samplers (random.cpp) call them one block at a time. One
// definition for both, so a tile and an element stream can never disagree on a block.
#pragma once

#include <cstdint>

namespace xarr {
namespace rng_blocks {

#define XARR_RNG_INLINE static inline __attribute__((always_inline))

// Philox4x32-10: ten rounds of two 32x32->64 products; the key is bumped by the Weyl
// constants between rounds (bumping after the tenth too changes nothing).
XARR_RNG_INLINE void philox(uint32_t& c0, uint32_t& c1, uint32_t& c2, uint32_t& c3,
                            uint32_t k0, uint32_t k1) {
#pragma GCC unroll 10
  for (int r = 0; r < 10; ++r) {
    const uint64_t p0 = uint64_t{0xD2511F53u} * c0;
    const uint64_t p1 = uint64_t{0xCD9E8D57u} * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1);
    c3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}

XARR_RNG_INLINE uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

// ThreeFry2x32-20: twenty add-rotate-xor rounds, the key schedule (k0, k1, k0 ^ k1 ^
// 0x1BD11BDA) injected after every fourth round with the injection count added to x1.
XARR_RNG_INLINE void threefry(uint32_t& x0, uint32_t& x1, uint32_t k0, uint32_t k1) {
  const uint32_t ks[3] = {k0, k1, k0 ^ k1 ^ 0x1BD11BDAu};
  constexpr int rot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  x0 += ks[0];
  x1 += ks[1];
#pragma GCC unroll 20
  for (int r = 0; r < 20; ++r) {
    x0 += x1;
    x1 = rotl32(x1, rot[r % 8]);
    x1 ^= x0;
    if (r % 4 == 3) {
      const int s = r / 4 + 1;
      x0 += ks[s % 3];
      x1 += ks[(s + 1) % 3] + static_cast<uint32_t>(s);
    }
  }
}

#undef XARR_RNG_INLINE

}  // namespace rng_blocks
}  // namespace xarr
