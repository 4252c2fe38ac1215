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
// min_parallel. Worked example: a {0,1} f32[1000,3] plus a {0,1} f32[1000,3] into a
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

void run_nary(LoopFn loop, int nargs, char* const* ptrs, int ndim, const int64_t* dims,
              const int64_t* strides, int64_t min_parallel = kParallelMinElements);

// The same engine for a loop that needs context (the fused executor's program):
// loop(ctx, args, strides, n), called concurrently from several threads.
using LoopCtxFn = void (*)(void* ctx, char* const* args, const int64_t* strides, int64_t n);
void run_nary_ctx(LoopCtxFn loop, void* ctx, int nargs, char* const* ptrs, int ndim,
                  const int64_t* dims, const int64_t* strides,
                  int64_t min_parallel = kParallelMinElements);

}  // namespace xarr
