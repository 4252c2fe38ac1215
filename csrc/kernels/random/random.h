// Counter-based random numbers (seed 004 RngBitGenerator / RngUniform / RngNormal; SPEC.md:
// Philox4x32-10 and ThreeFry2x32-20). A stream is a key and a counter; its output is a pure
// function of them, so the same bits come out on every machine, ISA and thread count.
//
// The two block functions (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
// SC11; the Random123 known-answer vectors pin them, tests/test_random.py):
//   philox4x32_10(counter c[4], key k[2]) -> 4 words;
//   threefry2x32_20(counter c[2], key k[2]) -> 2 words.
// Worked example: philox4x32_10({0, 0, 0, 0}, {0, 0}) = {0x6627e8d5, 0xe169c58d,
// 0xbc57ac4c, 0x9b00dbd8}; threefry2x32_20({0, 0}, {0, 0}) = {0x6b200159, 0x99ba4efe}.
//
// Bulk output comes in tiles of 64 32-bit words, 4 rows of 16 lanes. Tile q of a stream
// with counter C:
//   Philox:   row w, lane l = word w of block C + 16q + l (a 128-bit add);
//   ThreeFry: row 2h + w, lane l = word w of block C + 32q + 16h + l (a 64-bit add).
// Each kind reads a tile (row r, lane l) as:
//   kBits32    64 u32: element 16r + l = row r lane l;
//   kBits64    32 u64: element 16p + l = row 2p lane l | row 2p + 1 lane l << 32;
//   kUniformF32 64 f32: (bits32 >> 8) * 2^-24 in [0, 1), then a + b u;
//   kUniformF64 32 f64: (bits64 >> 11) * 2^-53 in [0, 1), then a + b u;
//   kNormalF32 64 f32 and kNormalF64 32 f64: Box-Muller on the tile's first half (u1, for
//             the radius sqrt(-2 log u1), u1 in (0, 1]) and second half (u2, the angle
//             2 pi u2): element e < half = r cos, element half + e = r sin, then a + b z.
// A call of n elements uses ceil(n / per-tile) tiles, the blocks of which it consumes; the
// caller advances its counter by rng_blocks_used(). Normals are exact across thread counts;
// across ISAs they may differ in the last bit (FMA), bits and uniforms never do.
//
// Per-element samplers (integers in a range, Poisson, binomial, gamma) draw a variable
// number of words per element: element i reads its own stream, Philox blocks with the
// 128-bit counter C + i + j 2^64 for j = 0, 1, ... (the tiles' add: a carry out of the low
// half goes into the high), ThreeFry blocks C + i under key j (key 0 the stream's, key
// j > 0 = threefry2x32_20({j, 0x243f6a88}, key)).
// They consume at least n blocks of the counter (rng_sample, rng_integers: exactly how many).
#pragma once

#include <cstdint>

#include "core/isa.h"

namespace xarr {

enum RngAlgorithm : int { kPhilox4x32 = 0, kThreeFry2x32 = 1 };
enum RngKind : int {
  kBits32 = 0, kBits64, kUniformF32, kUniformF64, kNormalF32, kNormalF64, kNumRngKinds
};
enum RngSampler : int {
  kSamplePoisson = 0, kSampleBinomial, kSampleGamma, kSampleBeta, kNumRngSamplers
};

struct RngStream {
  int algorithm = kPhilox4x32;
  uint32_t key[2] = {0, 0};
  uint64_t counter[2] = {0, 0};   // Philox: the 128-bit counter (low, high); ThreeFry: [0]
};

constexpr int kRngTileWords = 64;
int rng_per_tile(int kind);                               // elements of one tile
int64_t rng_blocks_used(int algorithm, int kind, int64_t n);

void philox4x32_10(const uint32_t c[4], const uint32_t k[2], uint32_t out[4]);
void threefry2x32_20(const uint32_t c[2], const uint32_t k[2], uint32_t out[2]);

// Per ISA: tiles [q0, q1) of kind into out (the first element of tile q0), full tiles only.
struct RngTable {
  void (*tiles)(const RngStream& s, int kind, int64_t q0, int64_t q1, void* out, double a,
                double b) = nullptr;
};
XARR_DECLARE_ISA_FILLS(RngTable, fill_rng)

// n elements of kind into out (contiguous), on get_num_threads() threads. Returns 0, or 1
// for a bad algorithm / kind.
int rng_fill(const RngStream& s, int kind, int64_t n, void* out, double a, double b);

// Integers low[i] + U[0, range[i]] (range inclusive, so range 2^64 - 1 is every u64), by
// Lemire's multiply-and-reject. Element i's first candidate is element i of the stream's
// bits32 tiles (bits64 when some range reaches 2^32); a rejected candidate is followed by
// the words of element i's own stream from block 1 on (Philox C + i + j 2^64, j >= 1;
// ThreeFry key j >= 1). Consumes max(the tiles' blocks, n) blocks. low / range step by
// ls / rs elements (0: one value).
int rng_integers(const RngStream& s, int64_t n, const int64_t* low, int64_t ls,
                 const uint64_t* range, int64_t rs, int64_t* out);
// Poisson(p0) and binomial(n = p0, p = p1) into int64; gamma(shape = p0, scale 1) and
// beta(a = p0, b = p1) into f64. Parameters step by s0 / s1 elements. Returns 0, 1 for a
// bad sampler, 2 for a parameter out of range (NaN, negative or infinite; Poisson's and the
// binomial's above 1e18; p outside [0, 1]; beta's b not positive): the caller checks them
// first with NumPy's messages, this is the safety net against a sampler that never accepts.
// First attempts come from SIMD tiles: Poisson's and the binomial's read element i of the
// stream's uniform64 tiles and of the uniform64 tiles of the stream whose block b is
// element b's block 1 (Philox C + 2^64, ThreeFry key 1): inversion below a mean of
// 10, PTRS / BTRS above.
// Gamma's reads element i of the normal64 tiles, of block 1's uniform64 tiles and, for a
// shape below 1, of block 2's. A rejection continues on element i's own stream from block
// 3 on. Beta is X / (X + Y), X such a gamma(a) and Y a gamma(b) on the same counters under
// another key (random.cpp, other_key_stream), or Johnk's method on element i's stream from
// block 3 when a, b <= 1. They consume max(the f64 tiles' blocks, n) blocks.
int rng_sample(const RngStream& s, int sampler, int64_t n, const double* p0, int64_t s0,
               const double* p1, int64_t s1, void* out);
// out = a uniform random permutation of 0 .. n-1 (Sanders' bucket shuffle: element i of
// the stream's bits32 tiles picks index i's bucket from its top bits, buckets of ~2048
// indices are filled in index order, bucket j is shuffled by Fisher-Yates on element j's
// stream of the stream whose block b is element b's block 1). The same permutation for
// any thread count. Returns the blocks consumed (0 for a bad algorithm or n <= 0).
int64_t rng_permutation(const RngStream& s, int64_t n, int64_t* out);

}  // namespace xarr
