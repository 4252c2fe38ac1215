// NumPy advanced-indexing kernels (integer arrays and boolean masks): index_take / index_put
// copy through integer index arrays, mask_* through boolean masks. (Not XLA's Gather and
// Scatter, which have dimension numbers and a kernel family of their own.)
// These are copies, so they dispatch on the element SIZE (1, 2, 4, 8 or 16 bytes), never on
// the dtype: a value conversion, if any, is the caller's job (done before a put).
// Strides are in BYTES. Nothing here allocates; the caller sizes every output.
//
// Two sides take part in each copy:
//   * the "tensor" side: the strided tensor being indexed (read by a take, written by a
//     put);
//   * the "dense" side: the take's result, or the value a put stores (any strides,
//     0 for a broadcast value).
//
// ---- integer-array take / put (IndexedCopy)
// P positions p = 0..npos-1 each select one tensor-side sub-block: its origin is
//   tensor + sum_j idx[j][p] * idx_stride[j]
// (negative idx[j][p] wraps once by adding bound[j]; after that 0 <= index < bound[j] must
// hold, else the kernel reports it and never touches memory out of bounds). The sub-block is
// the non-indexed dims, split into `outer` dims (iterated OUTSIDE the positions) and `inner`
// dims (inside). The dense side holds, for outer multi-index o, position p, inner index i:
//   dense + o . outer_dense + p * pos_stride + i . inner_dense
// and the tensor side the same with the tensor origin of p and o . outer_tensor,
// i . inner_tensor. Index arrays are contiguous int64 arrays of npos elements (the caller
// broadcasts them to one shape first).
//
// Worked example: x = f32[4,3] (row-major, strides 12, 4), x[:, [2, 0]] -> out f32[4,2].
//   nidx 1, idx[0] = {2, 0}, bound {3}, idx_stride {4}, npos 2, pos_stride 4 (out dim 1),
//   outer: dims {4}, tensor strides {12}, dense strides {8}; inner: none.
//   out[o, p] = x[o, idx[p]]: row 1 of out is x[1, 2], x[1, 0].
//
// index_take: dense = tensor[...]; returns 0, or kIndexOutOfBounds (the dense side is then
//          partly written and must be discarded). Threaded over (outer, position) items.
// index_put:  tensor[...] = dense; every index is checked BEFORE anything is written (returns
//          kIndexOutOfBounds with the tensor untouched). Runs on one thread in position
//          order, so with repeated indices the last position wins, as in NumPy. (Callers
//          must not rely on that order: a later threaded variant may store any one of the
//          values written to a repeated position.)
//
// ---- boolean masks (MaskedCopy)
// The mask is a C-order contiguous byte array over `nmask` tensor dims (a byte != 0 is
// true), starting at tensor dim 0. Its true elements, in C order, are positions
// p = 0..count-1; each selects the inner sub-block at
//   tensor + m . mask_tensor (m the mask multi-index)   and   dense + p * pos_stride.
// The work is split into fixed chunks of kMaskChunk mask elements: mask_count_chunks counts
// each chunk, a prefix sum gives each chunk's first position, then the chunks copy in
// parallel. Chunk boundaries do not depend on the thread count, so neither does the result.
//
// Worked example: x = f32[5] {a b c d e}, mask {1 0 1 1 0}: count 3, compress -> {a c d};
// mask_assign with a dense value {u v w} (pos_stride 4) -> x = {u b v w e}; with a broadcast
// scalar (pos_stride 0) every true element gets the scalar. nonzero -> {0 2 3}.
#pragma once

#include <cstdint>

namespace xarr {

constexpr int kIndexMaxDims = 32;
constexpr int64_t kMaskChunk = int64_t{1} << 14;  // mask elements per chunk
constexpr int kIndexOutOfBounds = 1;
constexpr int kBadArgument = 2;

struct IndexedCopy {
  int itemsize;                            // 1, 2, 4, 8 or 16
  int nidx;                                // number of index arrays, 0..kIndexMaxDims
  const int64_t* idx[kIndexMaxDims];      // npos int64 each
  int64_t bound[kIndexMaxDims];           // size of the indexed tensor dim
  int64_t idx_stride[kIndexMaxDims];      // its tensor-side byte stride
  int64_t npos;
  int64_t pos_stride;                      // dense-side byte stride between positions
  int nouter;
  int64_t outer_dims[kIndexMaxDims];
  int64_t outer_tensor[kIndexMaxDims];
  int64_t outer_dense[kIndexMaxDims];
  int ninner;
  int64_t inner_dims[kIndexMaxDims];
  int64_t inner_tensor[kIndexMaxDims];
  int64_t inner_dense[kIndexMaxDims];
};

int index_take(const IndexedCopy& c, const char* tensor, char* dense);
int index_put(const IndexedCopy& c, char* tensor, const char* dense);

// The first (position, index array) whose index is out of bounds, for error messages:
// returns false when all are in bounds.
bool first_bad_index(const IndexedCopy& c, int64_t* pos, int* which);

struct MaskedCopy {
  int itemsize;
  const uint8_t* mask;                     // C-order over mask_dims, contiguous
  int nmask;
  int64_t mask_dims[kIndexMaxDims];
  int64_t mask_tensor[kIndexMaxDims];     // tensor-side byte strides of the mask dims
  int64_t pos_stride;                      // dense side (0: broadcast value, assign only)
  int ninner;
  int64_t inner_dims[kIndexMaxDims];
  int64_t inner_tensor[kIndexMaxDims];
  int64_t inner_dense[kIndexMaxDims];
};

// Number of chunks for n mask elements.
inline int64_t mask_num_chunks(int64_t n) { return (n + kMaskChunk - 1) / kMaskChunk; }
// Counts the true bytes of mask[0..n) per chunk into counts[mask_num_chunks(n)] (threaded);
// returns the total.
int64_t mask_count_chunks(const uint8_t* mask, int64_t n, int64_t* counts);
// dense[p] = tensor[p-th true element] (counts from mask_count_chunks). Returns 0 or
// kBadArgument.
int mask_compress(const MaskedCopy& c, const char* tensor, char* dense, const int64_t* counts);
// tensor[p-th true element] = dense[p].
int mask_assign(const MaskedCopy& c, char* tensor, const char* dense, const int64_t* counts);
// The multi-indices of the true elements of a C-order mask over dims[0..ndim): the p-th
// true element's index along dim d goes to out[d][p * out_stride] (int64 elements, so
// out_stride 1 gives NumPy's nonzero rows, out_stride ndim argwhere's [count, ndim]).
void mask_nonzero(const uint8_t* mask, int ndim, const int64_t* dims, const int64_t* counts,
                  int64_t* const* out, int64_t out_stride);

// ---- take along rows (RowTake): NumPy's take_along_axis, and the operands a sort moves
// Rows are enumerated by `ndim` outer dims; per row, for i < n:
//   out[i * out_step] = src[j * src_step],  j = idx[i * idx_step]
// (byte strides; an outer stride may be 0: a broadcast). j < 0 wraps once by adding
// src_n; then 0 <= j < src_n must hold, else the kernel returns kIndexOutOfBounds with
// *bad set to the first offending index in C order, as given (out is then partly
// written). Threaded over
// blocks of rows and of positions (the result never depends on the thread count).
// Worked example: src f32[2,3] [[a b c] [d e f]], idx [[2 0] [-1 1]] along dim 1 (n 2,
// src_n 3) -> out [[c a] [f e]].
struct RowTake {
  int itemsize = 0;                        // 1, 2, 4, 8 or 16
  int ndim = 0;
  int64_t dims[kIndexMaxDims] = {};
  int64_t n = 0, src_n = 0;
  const char* src = nullptr;
  int64_t src_outer[kIndexMaxDims] = {};
  int64_t src_step = 0;
  const int64_t* idx = nullptr;
  int64_t idx_outer[kIndexMaxDims] = {};
  int64_t idx_step = 0;
  char* out = nullptr;
  int64_t out_outer[kIndexMaxDims] = {};
  int64_t out_step = 0;
};
int take_rows(const RowTake& t, int64_t* bad);

// out = 0 repeated counts[0] times, 1 repeated counts[1] times, ... (np.repeat's index).
// Returns false when a count is negative (nothing is written then).
bool repeat_index(const int64_t* counts, int64_t n, int64_t* out);

}  // namespace xarr
