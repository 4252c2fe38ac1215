// Reductions over any subset of a strided tensor's dims: sum, prod, max, min, and, or,
// argmax, argmin.
//
// Entry point (called by the Cython binding xarr/_bindings/reduce.pyx `reduce_into`):
//
//   int reduce_run(int op, int dtype, const char* src, int ndim, const int64_t* dims,
//                  const int64_t* src_strides, const int64_t* dst_strides, char* dst);
//
//   src, dims[d], src_strides[d]  the input: ndim dims, BYTE strides of any sign and order
//                                 (row-major, column-major, transposed, sliced, reversed).
//   dst_strides[d]                one entry per INPUT dim: 0 marks a reduced dim; otherwise
//                                 the output's byte stride along d. So a keepdims output, a
//                                 dims-removed output and any output layout all work.
//   dst                           receives, for every output element, the reduction over the
//                                 reduced dims (the op's identity when a reduced extent is 0).
//   Returns 0; -1 when (op, dtype) has no kernel; -2 for a bad call (ndim out of range,
//   argmax/argmin over more than one dim of extent > 1).
//
// Worked example: src f32[2,3]{1,0} = [[1,2,3],[4,5,6]], dims (2,3), src_strides (12,4).
//   sum over dim 1 into a f32[2]:      dst_strides (4, 0)  -> dst = [6, 15]
//   sum over dim 0, keepdims f32[1,3]: dst_strides (0, 4)  -> dst = [5, 7, 9]
//   argmax over dim 0 into a s64[3]:   dst_strides (0, 8)  -> dst = [1, 1, 1]
//   sum over both dims into a f32[]:   dst_strides (0, 0)  -> dst = 21
//   The same src stored {0,1} (column-major) has src_strides (4, 8); the results are equal.
//
// Semantics (same dtype in and out; argmax/argmin write s64):
//   SUM, PROD    integers wrap; f16/bf16 accumulate in f32 and round once at the end;
//                float SUM is pairwise: each accumulator lane adds 32 elements in order
//                (a contiguous leaf has two interleaved sets of 32 per lane; a major dim's
//                leaf is 32 rows), and leaves combine in a binary tree, so the error grows
//                like O(log n). pred: SUM = or, PROD = and (XLA's add/mul on pred).
//   MAX, MIN     propagate NaN (any NaN input gives a NaN); integers and pred as usual.
//                Not defined for complex. Identities: -inf/+inf, the type's min/max.
//   AND, OR      bitwise for integers, logical for pred. Identities: all ones / 0.
//   ARGMAX/MIN   the first index along the ONE reduced dim of the max/min; a NaN counts as
//                the max/min (the first NaN wins), as in NumPy. -1 for an empty dim.
//                Not defined for complex.
// Determinism: the evaluation tree depends on the shape and strides only, never on the
// thread count: 1 and N threads give the same bits. Every ISA uses the same tree and lane
// assignment, so vector tables match the scalar reference bit for bit (NaN payloads and
// the sign of a max/min zero aside).
//
// Strategy (reduce.cpp): size-1 dims drop out, reduced dims and kept dims are each sorted
// by stride and coalesced (like engine/nary.cpp). If the reduced dims include the
// innermost (smallest stride) dim, each output is a horizontal SIMD reduction of rows
// (several accumulators = the lanes of a 64-byte vector); otherwise the kept dim with the
// smallest stride becomes contiguous output columns and each input row is folded into a
// strip of column accumulators (vertical SIMD, no transposed copy). OpenMP splits the
// outputs, or, for few outputs, fixed-size blocks of the reduced extent whose partials are
// combined in a fixed tree. Work below kParallelMinElements stays on one thread.
// The GIL is the caller's business (the binding releases it).
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "core/isa.h"

namespace xarr {

#define XARR_REDUCE_OPS(X) X(SUM) X(PROD) X(MAX) X(MIN) X(AND) X(OR) X(ARGMAX) X(ARGMIN)

enum ReduceOp : int {
#define XARR_REDUCE_ENUM(name) kReduce_##name,
  XARR_REDUCE_OPS(XARR_REDUCE_ENUM)
#undef XARR_REDUCE_ENUM
      kNumReduceOps
};

int reduce_run(int op, int dtype, const char* src, int ndim, const int64_t* dims,
               const int64_t* src_strides, const int64_t* dst_strides, char* dst);

const char* reduce_op_name(int op);
// True when the active ISA's table (or the table of `isa`) has a kernel for (op, dtype).
bool reduce_supported(int op, int dtype, int isa = -1);

// ------------------------------------------------------------------ kernel registry
// Rows of the reduced dims other than the innermost one, walked in order (outer first).
struct RowSpan {
  int nd = 0;
  int64_t dims[32];
  int64_t strides[32];  // bytes
  int64_t begin = 0;    // first row (flat index over dims)
  int64_t end = 1;      // one past the last row
};

// Byte offset of flat row r of a RowSpan.
inline int64_t row_offset(const RowSpan& rs, int64_t r) {
  int64_t off = 0;
  for (int d = rs.nd - 1; d >= 0; --d) {
    off += (r % rs.dims[d]) * rs.strides[d];
    r /= rs.dims[d];
  }
  return off;
}

// The per-(op, dtype) primitives one ISA provides. `A` is the accumulator type (f32 for
// f16/bf16, the unsigned type for integer SUM/PROD, the type itself otherwise) and `H` the
// type of a horizontal lane (A, or A's real type for complex SUM). A horizontal partial is
// always 64 bytes: kLanes = 64 / sizeof(H) lanes; how a leaf (`leaf` storage elements)
// folds into them is documented at reduce_kernels.h's `leaf`.
struct ReduceKernel {
  int acc_size = 0;     // sizeof(A)
  int lanes = 0;        // horizontal lanes (of H)
  int64_t leaf = 0;     // storage elements per horizontal leaf
  int64_t row_leaf = 0; // rows per vertical leaf
  // out[lanes] = pairwise fold over the leaves of the n elements at x (byte stride s).
  void (*row)(const char* x, int64_t n, int64_t s, void* out) = nullptr;
  // a[i] = op(a[i], b[i]) for n lanes (H) / n accumulators (A).
  void (*combine_h)(void* a, const void* b, int64_t n) = nullptr;
  void (*combine_a)(void* a, const void* b, int64_t n) = nullptr;
  // Folds the lanes (destroying them) and stores one element at dst.
  void (*finish)(void* lanes, char* dst) = nullptr;
  // acc[w] = pairwise fold over rows [rs.begin, rs.end) of x + row_offset + j * cs, j < w.
  // scratch: (row_levels(rows) + 1) * w accumulators.
  void (*cols)(const char* x, int64_t w, int64_t cs, const RowSpan& rs, void* acc,
               void* scratch) = nullptr;
  // dst[j * ds] = acc[j] rounded to the storage type, j < w.
  void (*store)(const void* acc, int64_t w, char* dst, int64_t ds) = nullptr;
  void (*identity)(char* dst) = nullptr;
  // argmax/argmin: first index and value (A) of the best of n elements at x (stride s).
  void (*arg_row)(const char* x, int64_t n, int64_t s, int64_t* idx, void* val) = nullptr;
  // True when value `cand` beats `cur` strictly (a later index then wins).
  bool (*arg_better)(const void* cand, const void* cur) = nullptr;
  // Vertical argmax: idx[j] = first best row of column j over n rows (row stride rs).
  // best: w accumulators of scratch.
  void (*arg_cols)(const char* x, int64_t w, int64_t cs, int64_t n, int64_t rs, void* best,
                   int64_t* idx) = nullptr;
};

struct ReduceTable {
  ReduceKernel k[kNumReduceOps][kNumDTypes];
};

// Levels a pairwise cascade over `items` leaves may need (stack depth), plus slack.
inline int cascade_levels(int64_t items) {
  int l = 1;
  while (items > 1) {
    items = (items + 1) / 2;
    ++l;
  }
  return l + 1;
}

XARR_DECLARE_ISA_FILLS(ReduceTable, fill_reduce_table)
const ReduceTable& reduce_table(int isa);

}  // namespace xarr
