// Sorting rows of a strided tensor: NumPy's sort / argsort, jax.lax.sort with its known
// comparators (ascending, NaNs last, -0.0 == +0.0), stable or not.
//
// sort_rows(p): the tensor's rows are its 1-D lines along one dim (n elements, `step`
// bytes apart); `ndim` outer dims (dims[], byte strides per operand) enumerate them. Per row:
//   keys    the input, dtype p.dtype (any real dtype: pred, s8..s64, u8..u64, f16, bf16,
//           f32, f64; complex is sorted by the caller as three keys, see xarr/_ops/sorting.py);
//   perm    optional int64 start order (nullptr: 0, 1, ..., n - 1): the row is read as
//           keys[perm[0]], keys[perm[1]], ... (LSD composition of several keys: lexsort);
//   values  optional output of the sorted keys (keys' dtype);
//   index   optional int64 output: the position in keys of each sorted element (argsort).
// The order: ascending under NumPy's rule (every NaN after +inf; -0.0 and +0.0 equal), or
// descending (the reverse order, NaNs first). With `stable`, equal keys keep their start
// order (all NaNs are equal, and the two zeros); without it their order is unspecified
// (values alone: -0.0 lands before +0.0, NaNs by their bits). perm's entries must lie in
// [0, n) (the caller's: perm is an index output of an earlier call).
//
// Worked example: keys f32 [2, NaN, -0.0, 1, 0.0], stable, ascending:
//   index [2, 4, 3, 0, 1], values [-0.0, 0.0, 1, 2, NaN]; descending: index [1, 0, 3, 2, 4].
//
// The kernels sort unsigned integer images of the keys (sort.cpp): a radix sort (8-bit
// digits, LSD, digits equal in every key skipped; rows past the caches are first split on
// their top digit, MSD, and the buckets sorted in cache) of keys with their positions
// (index wanted) and of 1- and 2-byte values, and the ISA table's quicksort for 4- and
// 8-byte values alone (a stable sort of floats then puts the zeros and NaNs, the only
// equal keys with different bits, back in their start order). Threads take rows, or split
// one long row (the same result on any thread count).
#pragma once

#include <cstdint>

#include "core/isa.h"

namespace xarr {

constexpr int kSortMaxDims = 32;
constexpr int kSortUnknownDtype = 1;
constexpr int kSortRowTooLong = 2;   // rows of more than 2^32 - 1 elements: not supported
constexpr int kSortBadArgument = 3;  // partition: kth not ascending in [0, n), or > 256

struct SortRowsProblem {
  int dtype = 0;
  int ndim = 0;                           // outer dims
  int64_t dims[kSortMaxDims] = {};
  int64_t n = 0;                          // row length
  const char* keys = nullptr;
  int64_t key_outer[kSortMaxDims] = {};  // byte strides
  int64_t key_step = 0;
  const int64_t* perm = nullptr;
  int64_t perm_outer[kSortMaxDims] = {};
  int64_t perm_step = 0;
  char* values = nullptr;
  int64_t value_outer[kSortMaxDims] = {};
  int64_t value_step = 0;
  int64_t* index = nullptr;
  int64_t index_outer[kSortMaxDims] = {};
  int64_t index_step = 0;
  int stable = 0, descending = 0;
};

int sort_rows(const SortRowsProblem& p);

// partition_rows(p, kth, nk): NumPy's partition of every row (values out; p.index, p.perm,
// p.stable and p.descending must be unset): for each of the nk ascending offsets kth (in
// [0, n); at most 256), values[k] is what a sort puts there, with smaller keys before it
// and larger after (NaNs last). A selection (quickselect on the ISA's vector partitions), not a
// sort, for 4- and 8-byte keys; a radix sort for 1- and 2-byte keys.
int partition_rows(const SortRowsProblem& p, const int64_t* kth, int nk);

// Per ISA: an in-place ascending sort of n unsigned keys (the reference: std::sort; the
// vector ISAs: a quicksort with vector partitions and sorting networks, sort_kernels.h).
// select_*(a, n, kth, nk): NumPy's partition of n keys around the nk ascending offsets
// kth (a[k] as sorted, smaller keys before, larger after; kth is used as scratch).
struct SortTable {
  void (*u32)(uint32_t* a, int64_t n) = nullptr;
  void (*u64)(uint64_t* a, int64_t n) = nullptr;
  void (*select_u32)(uint32_t* a, int64_t n, int64_t* kth, int nk) = nullptr;
  void (*select_u64)(uint64_t* a, int64_t n, int64_t* kth, int nk) = nullptr;
};
XARR_DECLARE_ISA_FILLS(SortTable, fill_sort)

}  // namespace xarr
