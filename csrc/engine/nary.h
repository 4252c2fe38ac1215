// The strided N-ary loop engine: runs a 1-D loop (LoopFn) over an N-D
// iteration space of strided operands.
//
// run_nary(loop, nargs, ptrs, ndim, dims, strides, min_parallel)
//   ptrs[a]                 first element of operand a (inputs first, the output last)
//   dims[d]                 the iteration shape (already broadcast)
//   strides[a * ndim + d]   operand a's stride along d, in BYTES (0 = broadcast)
// What it does, in order: drops size-1 dims; orders the dims so the output's smallest
// stride is innermost; merges dims that are contiguous for every operand into one (so a
// C-contiguous or a column-major tensor is one 1-D loop); then splits the remaining
// (row, chunk) work items evenly over OpenMP threads when the element count reaches
// min_parallel (rows of at most 512 elements beside an input whose row repeats, x + row,
// run a block of rows per loop call over a copy of that row: nary.cpp run_repeated).
// Worked example: a {0,1} f32[1000,3] plus a {0,1} f32[1000,3] into a
// {0,1} output coalesces into one loop of 3000 elements with strides (4, 4, 4).
// Never call with the GIL held for large work: it does not touch Python.
#pragma once

#include <cstdint>

#include "core/threading.h"

namespace xarr {

// A 1-D loop over n elements (contract in kernels/elementwise/ew_table.h).
using LoopFn = void (*)(char* const* args, const int64_t* strides, int64_t n);

constexpr int kMaxArgs = 16;  // operands of one loop (the fused executor's inputs + outputs)
constexpr int kMaxDims = 32;

// Mixed orders (x.T + y) walk tiles of the two innermost dims (nary.cpp run_tiles). An
// input of `itemsize` bytes that is contiguous along the next-to-innermost dim is then read
// one element per cache line; with an InputTranspose, each of its tiles is first
// transposed into a per-thread buffer by `panel` (the contract of
// kernels/relayout/transpose_tiles.h: dst[i * dst_ld + j * itemsize] = src[j * src_ld +
// i * itemsize]) and the loop reads that buffer's rows.
struct InputTranspose {
  int itemsize = 0;          // the element size of the inputs in `inputs`
  uint32_t inputs = ~0u;     // bit a: input a has that size (may be transposed)
  void (*panel)(const char* src, int64_t src_ld, char* dst, int64_t dst_ld, int64_t ni,
                int64_t nj, bool stream) = nullptr;
};

void run_nary(LoopFn loop, int nargs, char* const* ptrs, int ndim, const int64_t* dims,
              const int64_t* strides, int64_t min_parallel = kParallelMinElements,
              const InputTranspose* transpose = nullptr);

// The same engine for a loop that needs context (the fused executor's program):
// loop(ctx, args, strides, n), called concurrently from several threads.
// With `itemsizes` (bytes per element of each operand; the last `nout` operands are the
// outputs), rows shorter than kPackRowMax are packed: a block of consecutive rows of each
// operand that does not walk the block linearly is copied into a contiguous per-thread
// buffer (outputs are copied out after the call), and the loop runs once per block on
// about kPackBlockBytes per operand. A loop with a high per-call cost then pays it once
// per block instead of once per row. Worked example: x[:, None, :] - x[None, :, :] over
// f64[300, 300, 3] is 90000 rows of 3; packed, it is 300 calls of 900 elements, with
// x[:, None, :] copied (its rows repeat) and x[None, :, :] and the output read in place.
using LoopCtxFn = void (*)(void* ctx, char* const* args, const int64_t* strides, int64_t n);
constexpr int64_t kPackRowMax = 16;
constexpr int64_t kPackBlockBytes = 8192;
void run_nary_ctx(LoopCtxFn loop, void* ctx, int nargs, char* const* ptrs, int ndim,
                  const int64_t* dims, const int64_t* strides,
                  int64_t min_parallel = kParallelMinElements, const int* itemsizes = nullptr,
                  int nout = 1, const InputTranspose* transpose = nullptr);

}  // namespace xarr
