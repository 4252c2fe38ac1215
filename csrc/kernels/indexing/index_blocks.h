// Loops of random accesses through an int64 index array, in blocks checked one ahead:
// take_elements (out[i] = src[idx[i]]), shared by NumPy's take / fancy indexing
// (indexing.cpp) and XLA gather of one element per position (gather.cpp), and
// run_index_blocks under it, which gather.cpp's scatter of one element per update uses too.
#pragma once

#include <cstdint>

namespace xarr {
namespace {

// Positions per block of run_index_blocks: the prefetch distance too.
constexpr int64_t kIndexBlock = 64;

// Runs body(i, idx[i]) for i in [0, n) when idx[i] is in [0, limit), prefetch(idx[i + 64])
// beside it. A block of positions whose indices are not all in range goes to
// out_of_range(i0, i1) instead, which handles [i0, i1) its own way (clamp, fill, skip, wrap
// a negative index, or refuse) and returns false to stop the loop (the call then returns
// false).
//
// Why blocks: a take of 4M out of 16M f32 misses the cache at every element, and its speed
// is the number of misses in flight, which the instructions per element bound (the demand
// loads wait in the reorder buffer). While block k runs, block k+1's addresses are
// prefetched and its indices checked (an unsigned max), so a block known to be in range
// runs without a clamp: a C probe of the take ran 11.2 ms on 2 Zen 4 threads, 14 ms with
// a clamp per element. The prefetches go to L2 (prefetcht1): L1's few miss buffers held
// the misses in flight down, and with L2's, 64 ahead, the probe ran 8.0 ms (xarr's whole
// lax.gather: 8.3-9 ms). (A prefetch of an out-of-range address is harmless: it never
// faults.)
template <class Prefetch, class Body, class OutOfRange>
bool run_index_blocks(const int64_t* idx, int64_t n, int64_t limit, Prefetch prefetch,
                      Body body, OutOfRange out_of_range) {
  const uint64_t bound = static_cast<uint64_t>(limit);
  auto block_in_range = [&](int64_t i0, int64_t i1) {
    uint64_t top = 0;
    for (int64_t i = i0; i < i1; ++i) {
      const uint64_t v = static_cast<uint64_t>(idx[i]);
      top = v > top ? v : top;
    }
    return top < bound;
  };
  constexpr int64_t B = kIndexBlock;
  int64_t s = 0;
  bool in_range = block_in_range(0, n < B ? n : B);
  for (; s + 2 * B <= n; s += B) {   // block [s, s + B); the next one is whole
    uint64_t top = 0;
    if (in_range) {
      for (int64_t i = s; i < s + B; ++i) {
        const uint64_t ahead = static_cast<uint64_t>(idx[i + B]);
        prefetch(ahead);
        top = ahead > top ? ahead : top;
        body(i, idx[i]);
      }
    } else {
      for (int64_t i = s; i < s + B; ++i) {
        const uint64_t ahead = static_cast<uint64_t>(idx[i + B]);
        top = ahead > top ? ahead : top;
      }
      if (!out_of_range(s, s + B)) return false;
    }
    in_range = top < bound;
  }
  for (; s < n; s += B) {   // the last one or two blocks, without prefetches
    const int64_t e = s + B < n ? s + B : n;
    if (!in_range) {
      if (!out_of_range(s, e)) return false;
    } else {
      for (int64_t i = s; i < e; ++i) body(i, idx[i]);
    }
    if (e < n) in_range = block_in_range(e, e + B < n ? e + B : n);
  }
  return true;
}

// out[i] = src[idx[i]] for i in [0, n) over run_index_blocks (contiguous T elements):
// out_of_range(i0, i1) writes a block with an index outside [0, src_n).
// Example: src = [10, 11, 12], idx = [2, 0, 5, 1] with a clamping out_of_range gives
// out = [12, 10, 12, 11] (the block [0, 4) holds 5, so out_of_range(0, 4) writes it all).
template <class T, class OutOfRange>
bool take_elements(const T* src, int64_t src_n, const int64_t* idx, T* out, int64_t n,
                   OutOfRange out_of_range) {
  const uintptr_t base = reinterpret_cast<uintptr_t>(src);
  return run_index_blocks(
      idx, n, src_n,
      [base](uint64_t v) {
        __builtin_prefetch(reinterpret_cast<const void*>(base + v * sizeof(T)), 0, 2);
      },
      [src, out](int64_t i, int64_t v) { out[i] = src[v]; }, out_of_range);
}

}  // namespace
}  // namespace xarr
