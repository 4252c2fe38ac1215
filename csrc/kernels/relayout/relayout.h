// Relayout kernels: copies between strided arrays (any strides, e.g. {1,0} -> {0,1}) and
// between a strided array and a tiled buffer.
//
// copy_strided(itemsize, ndim, dims, src, src_strides, dst, dst_strides)
//   dst[i] = src[i] for every multi-index i of dims. Strides in BYTES. src and dst must not
//   overlap. When the source's contiguous dim is not the destination's (a transpose), the
//   copy runs over cache-sized 2-D tiles with an in-register transpose (AVX-512 16x16 /
//   AVX2 8x8 for 4-byte elements, 8x8 for 8-byte elements) and streaming stores for
//   large outputs; otherwise it is the N-ary engine's row copy. Threaded over tile rows.
//   Worked example: f32[2,3]{1,0} `a b c d e f` copied into a {0,1} destination
//   (strides 4, 8) stores `a d b e c f`.
//
// copy_tiled(...): see tiled_copy below.
#pragma once

#include <cstdint>

namespace xarr {

void copy_strided(int itemsize, int ndim, const int64_t* dims, const char* src,
                  const int64_t* src_strides, char* dst, const int64_t* dst_strides);

// The same copy with the transpose path restricted to a given ISA (kIsaRef = scalar tiles);
// tests compare every variant with the reference.
void copy_strided_isa(int isa, int itemsize, int ndim, const int64_t* dims, const char* src,
                      const int64_t* src_strides, char* dst, const int64_t* dst_strides);

// Tiled <-> strided copy. The tiled buffer is a row-major array of `nphys` physical dims
// `phys_dims`. Each physical position k (a multi-index of phys_dims) has `nforms` linear
// forms f_r(k) = sum_j forms[r * nphys + j] * k_j. The first `ndim` forms are the logical
// indices i_0..i_{ndim-1}; the slot is real (not padding) iff f_r(k) < bounds[r] for every r.
// to_tiled = true: tiled[k] = strided[i(k)] for real slots, `pad` (itemsize bytes) for the
// others; to_tiled = false: strided[i(k)] = tiled[k] for real slots.
// Worked example: f32[3,5]{1,0:T(2,2)}: phys_dims (2,3,2,2); forms i0 = 2*k0 + k2,
// i1 = 2*k1 + k3, bounds (3, 5); slot k = (1,2,0,1) is i = (2,5) -> padding.
void copy_tiled(int itemsize, int nphys, const int64_t* phys_dims, int nforms,
                const int64_t* forms, const int64_t* bounds, int ndim, char* strided,
                const int64_t* strided_strides, char* tiled, bool to_tiled, const char* pad);

}  // namespace xarr
