// XLA's Gather and Scatter (seed 004) on strided tensors: windows of an operand found
// through start indices. xarr/_ops/gather.py turns the dimension numbers into this one
// description (its comments give the mapping), so the kernels know nothing of offset_dims
// or update_window_dims: only batch positions and windows.
//
// Batch positions b (the gather output's batch dims; the scatter updates' scatter dims)
// walk `nbatch` dims. Each finds its window start in the operand, per operand dim d:
//   start[d] = indices[b][k]   where vec_dim[k] == d (k < nvec: the index vector, int64,
//                              `vec_stride` bytes apart; the vector of b is at
//                              indices + sum_i b_i * batch_index[i])
//   start[d] = b_{batching_pos[j]}  where batching_dim[j] == d (operand batching dims)
//   start[d] = 0               otherwise.
// The window is window[d] elements along every operand dim d (1 where the dim is collapsed
// / inserted or a batching dim); window element w is operand[start + w] and, on the dense
// side (gather: the output; scatter: the updates), at
//   dense + sum_i b_i * batch_dense[i] + sum_d w_d * window_dense[d].
// Strides are in BYTES.
//
// gather_run: dense[b, w] = operand[start + w]. Out-of-range starts (start[d] < 0 or
//   start[d] + window[d] > operand_dims[d]): kClip clamps start[d] into range (the whole
//   window in bounds, as DynamicSlice); kFill writes `fill` (one element's bytes) to the
//   whole window of that b.
// scatter_run: result[start + w] = combine(result[start + w], dense[b, w]) for every b, w,
//   result a row-major tensor of the operand's dims (the caller copies the operand in).
//   kClip clamps starts as gather does; kFill skips each element whose operand index is out
//   of range (the seed: "si O es un índice válido"). Update order: batch positions in
//   row-major order, each window in row-major order; kScatterSet with repeated indices
//   keeps the LAST update. Threads own disjoint ranges of the result and apply the
//   updates that land there in update order - except a scatter of single elements with
//   one index each (scatter_simple), whose threads combine chunks of the updates into
//   partial results; there float add and mul may differ from one thread's bits by
//   reassociation. Every other result is the same on any thread count.
// Worked example (gather, a take of rows): operand f32[5,3] (strides 12, 4), indices
//   s64[2,1] = [[3], [-1]], vec_dim {0}, window {1, 3}, nbatch 1 (size 2). kClip: row 3,
//   then row 0 (-1 clamped). kFill with NaN: row 3, then a row of NaN.
// Returns 0, or 1 for a dtype / combine the kernels lack.
#pragma once

#include <cstdint>

namespace xarr {

constexpr int kGatherMaxDims = 32;
enum GatherMode : int { kGatherClip = 0, kGatherFill = 1 };
enum ScatterCombine : int {
  kScatterSet = 0,
  kScatterAdd = 1,
  kScatterMul = 2,
  kScatterMin = 3,
  kScatterMax = 4
};

struct IndexedWindows {
  int dtype = 0;
  int rank = 0;                                      // operand rank
  const char* operand = nullptr;                     // gather's source
  char* result = nullptr;                            // scatter's (row-major, operand_dims)
  int64_t operand_dims[kGatherMaxDims] = {};
  int64_t operand_strides[kGatherMaxDims] = {};     // gather: the operand's; scatter: result's
  int64_t window[kGatherMaxDims] = {};
  int64_t window_dense[kGatherMaxDims] = {};
  int nbatch = 0;
  int64_t batch_dims[kGatherMaxDims] = {};
  int64_t batch_dense[kGatherMaxDims] = {};
  int64_t batch_index[kGatherMaxDims] = {};
  const char* indices = nullptr;                     // int64 start indices
  int nvec = 0;
  int64_t vec_stride = 0;
  int vec_dim[kGatherMaxDims] = {};
  int nbatching = 0;
  int batching_dim[kGatherMaxDims] = {};
  int batching_pos[kGatherMaxDims] = {};
  char* dense = nullptr;                             // gather: output; scatter: updates
  int mode = kGatherClip;
  const char* fill = nullptr;                        // gather kFill: one element
  int combine = kScatterSet;                         // scatter
};

int gather_run(const IndexedWindows& p);
int scatter_run(const IndexedWindows& p);

}  // namespace xarr
