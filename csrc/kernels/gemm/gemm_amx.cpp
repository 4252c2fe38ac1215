// The AMX GEMM kernels (Sapphire Rapids and newer): a 32 x 32 tile of C in four 16 x 16
// accumulator tiles, two A tiles (16 rows x 64 bytes) and two B tiles (16 rows of 32-bit
// groups x 16 columns) per k block; one tile instruction does 16 x 16 x (64 / itemsize)
// multiply-adds.
//   bf16gemm_amx_32x32      tdpbf16ps, k blocks of 32
//   s8s8gemm_amx_32x32 ...  tdpbssd / tdpbsud / tdpbusd / tdpbuud by the operands'
//                           signedness, k blocks of 64; s32 sums wrap modulo 2**32
// Compiled with the AVX-512 and AMX flags (CMakeLists.txt: *_amx.cpp, Linux only); filled
// only where cpu_features().amx and the OS grants the tile state.
//
// Panels (gemm.h, GemmMicroKernel::group / a_group): k padded to a multiple of the block.
//   A: row i of k block q at a + (q * 32 + i) * 64 bytes: 64 bytes of consecutive k
//   B: group row r (k indices r * G .. r * G + G - 1, G = 4 / itemsize) at b + r * 128
//      bytes: 32 columns x 4 bytes, so the tile of columns 0-15 of block q starts at
//      b + q * 16 * 128 with a row stride of 128 bytes, and columns 16-31 64 bytes later.
// Worked example (bf16, kc = 40): two k blocks, the second holding k 32..39 and 24 zero
// k values; tdpbf16ps adds each C element's 2 products per 32-bit group to the f32 sums.
// tdpbf16ps rounds to nearest even and treats denormal inputs and outputs as zero: within
// the f32 tolerance of the convert-while-packing path.
#include <immintrin.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

#include "kernels/gemm/gemm.h"

namespace xarr {
namespace isa_amx {
namespace {

// The palette-1 configuration: tiles 0-3 C, 4-5 A, 6-7 B, each 16 rows x 64 bytes.
struct alignas(64) TileConfig {
  uint8_t palette = 1, start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
  TileConfig() {
    for (int t = 0; t < 8; ++t) {
      colsb[t] = 64;
      rows[t] = 16;
    }
  }
};

void tiles_begin() {
  static const TileConfig config;
  _tile_loadconfig(&config);
}

void tiles_end() { _tile_release(); }

enum TileOp { kBf16, kSS, kSU, kUS, kUU };  // kXY: A's bytes X, B's Y (s / u)

template <TileOp kOp>
inline void tile_products() {  // C tiles += A tiles x B tiles
  if constexpr (kOp == kBf16) {
    _tile_dpbf16ps(0, 4, 6); _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6); _tile_dpbf16ps(3, 5, 7);
  } else if constexpr (kOp == kSS) {
    _tile_dpbssd(0, 4, 6); _tile_dpbssd(1, 4, 7);
    _tile_dpbssd(2, 5, 6); _tile_dpbssd(3, 5, 7);
  } else if constexpr (kOp == kSU) {
    _tile_dpbsud(0, 4, 6); _tile_dpbsud(1, 4, 7);
    _tile_dpbsud(2, 5, 6); _tile_dpbsud(3, 5, 7);
  } else if constexpr (kOp == kUS) {
    _tile_dpbusd(0, 4, 6); _tile_dpbusd(1, 4, 7);
    _tile_dpbusd(2, 5, 6); _tile_dpbusd(3, 5, 7);
  } else {
    _tile_dpbuud(0, 4, 6); _tile_dpbuud(1, 4, 7);
    _tile_dpbuud(2, 5, 6); _tile_dpbuud(3, 5, 7);
  }
}

// GemmMicroKernelFn on the panels above, into rows of C with unit column stride (cs_c ==
// 1, gemm.h), which the C tiles load from and store to; T: C's element (float or
// int32_t). The caller ran tiles_begin on this thread.
template <TileOp kOp, class T>
void ukernel_amx(int64_t kc, const void* a_, const void* b_, void* c_, int64_t rs_c,
                 int64_t /*cs_c*/, bool accumulate) {
  constexpr int64_t kBlockK = kOp == kBf16 ? 32 : 64;
  constexpr int64_t kBlockBytes = 32 * 64;  // per k block: A's 32 rows, B's 16 group rows
  const int64_t blocks = (kc + kBlockK - 1) / kBlockK;
  const char* a = static_cast<const char*>(a_);
  const char* b = static_cast<const char*>(b_);
  char* d = static_cast<char*>(c_);
  const int64_t ds = rs_c * int64_t{sizeof(T)};
  if (accumulate) {
    _tile_loadd(0, d, ds);
    _tile_loadd(1, d + 64, ds);
    _tile_loadd(2, d + 16 * ds, ds);
    _tile_loadd(3, d + 16 * ds + 64, ds);
  } else {
    _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
  }
  for (int64_t q = 0; q < blocks; ++q, a += kBlockBytes, b += kBlockBytes) {
    _tile_loadd(4, a, 64);
    _tile_loadd(5, a + 16 * 64, 64);
    _tile_loadd(6, b, 128);
    _tile_loadd(7, b + 64, 128);
    tile_products<kOp>();
  }
  _tile_stored(0, d, ds);
  _tile_stored(1, d + 64, ds);
  _tile_stored(2, d + 16 * ds, ds);
  _tile_stored(3, d + 16 * ds + 64, ds);
}

template <TileOp kOp, class T>
GemmMicroKernel amx_kernel(const char* name) {
  GemmMicroKernel k{&ukernel_amx<kOp, T>, 32, 32, name, nullptr};
  k.group = kOp == kBf16 ? 2 : 4;
  k.a_group = kOp == kBf16 ? 32 : 64;
  k.begin = &tiles_begin;
  k.end = &tiles_end;
  return k;
}

}  // namespace
}  // namespace isa_amx

void fill_gemm_amx(GemmTable* t) {
  using namespace isa_amx;
  // Linux hands out AMX's tile state only to a process that asks (arch_prctl
  // ARCH_REQ_XCOMP_PERM = 0x1023 for XFEATURE_XTILEDATA = 18), asked here, when the first
  // product builds the tables; a kernel that refuses leaves AMX unused.
  static const bool granted = syscall(SYS_arch_prctl, 0x1023, 18) == 0;
  if (!granted) return;
  t->amx_bf16 = amx_kernel<kBf16, float>("bf16gemm_amx_32x32");
  t->amx_int8[0][0] = amx_kernel<kSS, int32_t>("s8s8gemm_amx_32x32");
  t->amx_int8[0][1] = amx_kernel<kSU, int32_t>("s8u8gemm_amx_32x32");
  t->amx_int8[1][0] = amx_kernel<kUS, int32_t>("u8s8gemm_amx_32x32");
  t->amx_int8[1][1] = amx_kernel<kUU, int32_t>("u8u8gemm_amx_32x32");
}

}  // namespace xarr
