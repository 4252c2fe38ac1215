// Windowed kernels (seed 004 ReduceWindow, SelectAndScatter, and depthwise Conv): a window
// slides over the spatial dims of the input; each kernel walks one output row at a time,
// accumulating whole rows of the input (the row along the output's most contiguous dim),
// so the inner loop is a vector loop over that row.
//
// Geometry of one dim (WindowDim): an output position o covers window taps k < size at
// position x = o * stride + k * win_dil - pad_lo of the input dilated by base_dil
// (base_dil - 1 holes between elements); x reads input element x / base_dil when x is a
// multiple of base_dil in [0, (in - 1) * base_dil], and is padding otherwise.
//
// reduce_window_run (ReduceWindow with a monoid): out[o] = init op (op over the window's
// taps that read real elements): padding and holes are skipped and init enters once, as
// XLA's CPU backend (and so jax) computes it; the seed's picture of a padded array holding
// init gives the same whenever init is the op's identity. Worked examples: the seed's, min
// over windows of 3, stride 2, of [10000, 1000, 100, 10, 1], init +max: VALID -> [100, 1];
// padding (1, 1) -> windows [pad, 10000, 1000], [1000, 100, 10], [10, 1, pad] -> [1000,
// 10, 1]; and jax's, add over windows of 2 of [1, 2, 3] with init 10 and padding (1, 1) ->
// [11, 13, 15, 13].
// Ops: add, mul, max, min (NaN-propagating), and, or (pred / integers), over every dtype
// but complex max / min. Returns 0, or 1 for an op the dtype lacks.
//
// select_and_scatter_add_run (SelectAndScatter with select ge / gt / le / lt and scatter
// add): out = init everywhere, then for each window the element that select prefers over
// every later one in the window (ge: the first maximum) receives + source[window].
// Padding is never selected; a window of padding only drops its source value.
//
// depthwise_run: a convolution whose every output feature reads one input feature
// (feature_group_count = input features, channel multiplier M = output / input features:
// output feature f reads input feature f / M), out[b, f, o...] = sum over taps of
// w[f, k...] * in[b, f / M, x...]; padding and holes are zero. f32 / f64.
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "core/isa.h"

namespace xarr {

constexpr int kWindowMaxDims = 16;

enum WindowOp : int {
  kWindowAdd = 0, kWindowMul, kWindowMax, kWindowMin, kWindowAnd, kWindowOr, kWindowNumOps
};
enum WindowSelect : int { kSelectGe = 0, kSelectGt, kSelectLe, kSelectLt };

struct WindowDim {
  int64_t in = 1, out = 1, size = 1, stride = 1, pad_lo = 0, base_dil = 1, win_dil = 1;
};

struct ReduceWindowProblem {
  int op = kWindowAdd, dtype = 0, ndim = 0;
  const char* in = nullptr;
  char* out = nullptr;
  const void* init = nullptr;       // one element of dtype
  WindowDim dim[kWindowMaxDims];
  int64_t in_stride[kWindowMaxDims] = {}, out_stride[kWindowMaxDims] = {};  // bytes
};

struct SelectScatterProblem {
  int select = kSelectGe, dtype = 0, ndim = 0;
  const char* operand = nullptr;    // the input shape (dim[d].in)
  const char* source = nullptr;     // the window grid's shape (dim[d].out)
  char* out = nullptr;              // the input shape, dense strides given
  const void* init = nullptr;
  WindowDim dim[kWindowMaxDims];
  int64_t operand_stride[kWindowMaxDims] = {}, source_stride[kWindowMaxDims] = {},
          out_stride[kWindowMaxDims] = {};
};

struct DepthwiseProblem {
  int dtype = 0, nspatial = 0;
  const char* in = nullptr;
  const char* w = nullptr;
  char* out = nullptr;
  int64_t batch = 0, out_feat = 0, multiplier = 1;
  WindowDim dim[3];
  int64_t in_sb = 0, in_sf = 0, in_s[3] = {};   // byte strides: batch, feature, spatial
  int64_t w_sf = 0, w_s[3] = {};                 // output feature, spatial taps
  int64_t out_sb = 0, out_sf = 0, out_s[3] = {};
};

// Whether a depthwise problem runs in the channel-inner form (NHWC: multiplier 1 and unit
// feature strides, the vector loop over features) rather than along its last spatial dim.
inline bool depthwise_channels_inner(const DepthwiseProblem& p) {
  const int64_t es = p.dtype == kF64 ? 8 : 4;
  return p.multiplier == 1 && p.in_sf == es && p.out_sf == es && p.w_sf == es;
}

// winograd_run: a 2-D convolution with a 3x3 window, unit strides and no dilation or groups,
// f32, whose input and output rows (the second spatial dim) are contiguous (NCHW), by
// Winograd's F(2x2, 3x3): each 2x2 output tile is A^T [(G g G^T) . (B^T d B)] A, d the
// tile's 4x4 input patch (zero outside the input), g the 3x3 filter, with 16 products per
// tile and input feature instead of 36. The 16 elementwise products summed over input
// features are 16 GEMMs (output features x tiles, over input features) on the GEMM
// engine's micro-kernel; threads take panels of the kernel's nr tiles, each transforming
// its panel's input into a packed B operand, multiplying and transforming back, all in L2.
//   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], G = [1 0 0; .5 .5 .5; .5 -.5 .5; 0 0 1],
//   A^T = [1 1 1 0; 0 1 -1 -1].
// Worked example, in 1-D (F(2, 3); the 2-D form nests it along both dims): d = [1 2 3 4],
// g = [1 1 1]: m1 = (d0 - d2) g0 = -2, m2 = (d1 + d2)(g0 + g1 + g2) / 2 = 7.5,
// m3 = (d2 - d1)(g0 - g1 + g2) / 2 = 0.5, m4 = (d1 - d3) g2 = -2; y0 = m1 + m2 + m3 = 6
// (= 1 + 2 + 3), y1 = m2 - m3 - m4 = 9 (= 2 + 3 + 4).
// Rounding differs from a direct sum (the transforms add and halve), within a few units
// of eps * sum |x| |w| per output.
struct WinogradProblem {
  const char* in = nullptr;     // [batch, C, H, W], W contiguous (byte strides below)
  const char* w = nullptr;      // [K, C, 3, 3]
  char* out = nullptr;          // [batch, K, OH, OW], OW contiguous
  int64_t batch = 0, in_feat = 0, out_feat = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t pad_top = 0, pad_left = 0;   // output (y, x) reads input (y + ky - pad_top, ...)
  int64_t in_sb = 0, in_sc = 0, in_sh = 0;
  int64_t w_so = 0, w_si = 0, w_sh = 0, w_sw = 0;
  int64_t out_sb = 0, out_sk = 0, out_sh = 0;
};

// A run of tiles on one tile row: tiles (ty, tx0 .. tx0 + n - 1) of image b, at lanes
// lane0 .. lane0 + n - 1 of the panel.
struct WinogradSegment {
  int64_t b, ty, tx0, n, lane0;
};

// A family table: per ISA, the row kernels (window_kernels.h compiled with the ISA's
// flags). Each runs rows [lo, hi) of its problem on the calling thread; the driver
// (window.cpp) splits rows over threads.
struct WindowTable {
  int (*reduce_rows)(const ReduceWindowProblem& p, int64_t lo, int64_t hi) = nullptr;
  int (*depthwise_rows)(const DepthwiseProblem& p, int64_t lo, int64_t hi) = nullptr;
  // Winograd transforms of one panel (winograd.cpp). Input: for features [c0, c1), the
  // 16 transformed values of each segment's tiles into v[xi * v_xi + (c - c0) * nr +
  // lane] (lanes past a segment's end may be written with values of no tile: segments
  // run in order, and each region v_xi has 16 floats of slack past its c1 - c0 rows).
  // Output: out tiles from m[xi * m_xi + k * nr + lane], summed over features.
  void (*winograd_input)(const WinogradProblem& p, const WinogradSegment* seg, int nseg,
                         int64_t c0, int64_t c1, int64_t nr, float* v, int64_t v_xi) = nullptr;
  void (*winograd_output)(const WinogradProblem& p, const WinogradSegment* seg, int nseg,
                          int64_t nr, const float* m, int64_t m_xi) = nullptr;
  // select_and_scatter_add over 2x2 windows with stride 2 and no padding, one pair of
  // rows (operand rows op0, op1; source row src; out rows out0, out1; in_w elements, out_w
  // windows, all contiguous); f32 / f64 (returns 1 for another dtype).
  int (*select_pairs)(int dtype, int select, const char* op0, const char* op1,
                      const char* src, char* out0, char* out1, int64_t in_w, int64_t out_w,
                      const void* init) = nullptr;
};
XARR_DECLARE_ISA_FILLS(WindowTable, fill_window)

// Entry points (threads: get_num_threads(); the GIL is the caller's business).
int reduce_window_run(const ReduceWindowProblem& p);
int select_and_scatter_add_run(const SelectScatterProblem& p);
int depthwise_run(const DepthwiseProblem& p);
void winograd_run(const WinogradProblem& p);   // throws std::bad_alloc

}  // namespace xarr
