// The vector quicksort of unsigned keys (sort.h SortTable), generic over a vector ISA's
// traits V (sort_avx512.cpp, sort_avx2.cpp), compiled once per ISA (XARR_ISA_NS).
//
// V provides, for N lanes of the unsigned type U in a register R:
//   load(p), load_tail(p, m) (lanes >= m all ones: they sort last), store(p, r),
//   min(a, b), max(a, b), set1(x), reverse(r),
//   swap<j>(r): lane i takes lane i ^ j's value (j a power of two below N),
//   blend<bits>(a, b): lane i from b where bit i of the constant `bits` is set, else a,
//   below(r, pivot, le): the bit mask of lanes r < pivot (le: r <= pivot),
//   split(r, below, left, right_end): stores the lanes of `below` (in lane order) at
//     left[0..) and the others at right_end[-count..0); it may also write anything into
//     left[0..N) and right_end[-N..0) (the partition leaves that room);
//   split_exact(r, below, valid, left, right_end): the same for the lanes of `valid`,
//     writing nothing else.
//
// The algorithm (the class of Bramas's AVX-512 quicksort and Intel's x86-simd-sort; this
// is xarr's own code):
//   * partition(a, n, pivot): in place, two vectors saved from the ends first, then each
//     step loads a vector from the side with less free room and splits it to both sides;
//     returns the count of keys < pivot (or <= pivot).
//   * blocks of up to kBlock = 16 N keys are sorted in registers: a bitonic network sorts
//     each vector, then bitonic merges double the sorted runs (1, 2, 4, 8 vectors).
//   * pivots are medians of N evenly spaced samples; a partition that leaves no key below
//     the pivot (the pivot is the minimum: duplicates) is redone with <=, whose left side
//     is all equal keys and done. Past 2 log2(n) + 8 levels, a heap sort finishes a range.
// Worked example (N = 4): [5 1 4 1 | 3 9 2 6] in registers: each vector sorted ->
// [1 1 4 5 | 2 3 6 9]; merge: reverse the second -> [9 6 3 2], min/max lane by lane ->
// [1 1 3 2 | 9 6 4 5], then each half cleaned within the vector -> [1 1 2 3 | 4 5 6 9].
#pragma once

#include <cstdint>

#include "kernels/sort/sort.h"

#ifndef XARR_ISA_NS
#error "define XARR_ISA_NS before including sort_kernels.h"
#endif

namespace xarr {
namespace XARR_ISA_NS {
namespace sort_detail {

// Bit i set where lane i of a bitonic stage (block size k, distance j) keeps the larger key:
// lanes in the upper half of their pair, in an ascending block, and the lower half in a
// descending one (k = N: every block ascending: the merges' cleaning stages).
constexpr unsigned takes_max(int lanes, int k, int j) {
  unsigned bits = 0;
  for (int i = 0; i < lanes; ++i)
    if (((i & j) != 0) != ((i & k) != 0)) bits |= 1u << i;
  return bits;
}

template <class V> struct Quicksort {
  using U = typename V::U;
  using R = typename V::R;
  static constexpr int N = V::N;
  static constexpr int kBlockVectors = 16;
  static constexpr int64_t kBlock = int64_t{kBlockVectors} * N;

  template <int k, int j> static R stage(R v) {
    const R s = V::template swap<j>(v);
    return V::template blend<takes_max(N, k, j)>(V::min(v, s), V::max(v, s));
  }
  // Bitonic stages j = J, J/2, ..., 1 within each vector, block size k.
  template <int k, int J> static R stages(R v) {
    v = stage<k, J>(v);
    if constexpr (J > 1) v = stages<k, J / 2>(v);
    return v;
  }
  template <int k> static R sort_vector_from(R v) {
    v = stages<k, k / 2>(v);
    if constexpr (k < N) v = sort_vector_from<2 * k>(v);
    return v;
  }
  static R sort_vector(R v) { return sort_vector_from<2>(v); }
  static R clean_vector(R v) { return stages<N, N / 2>(v); }

  // v[0..2w) holds two ascending runs of w vectors: merged into one.
  template <int w> static void merge_runs(R* v) {
#pragma GCC unroll 16
    for (int i = 0; i < w / 2; ++i) {
      const R x = V::reverse(v[w + i]), y = V::reverse(v[2 * w - 1 - i]);
      v[w + i] = y;
      v[2 * w - 1 - i] = x;
    }
    if constexpr (w == 1) v[1] = V::reverse(v[1]);
#pragma GCC unroll 16
    for (int d = w; d >= 1; d /= 2) {
#pragma GCC unroll 16
      for (int i = 0; i < 2 * w; ++i) {
        if (i & d) continue;
        const R lo = V::min(v[i], v[i + d]), hi = V::max(v[i], v[i + d]);
        v[i] = lo;
        v[i + d] = hi;
      }
    }
#pragma GCC unroll 16
    for (int i = 0; i < 2 * w; ++i) v[i] = clean_vector(v[i]);
  }

  template <int K> static void sort_block(U* a, int64_t n) {
    R v[K];
#pragma GCC unroll 16
    for (int i = 0; i < K; ++i) {
      const int64_t m = n - int64_t{i} * N;
      v[i] = m >= N ? V::load(a + i * N) : V::load_tail(a + i * N, m > 0 ? int(m) : 0);
      v[i] = sort_vector(v[i]);
    }
    if constexpr (K >= 2) {
#pragma GCC unroll 16
      for (int s = 0; s < K; s += 2) merge_runs<1>(v + s);
    }
    if constexpr (K >= 4) {
#pragma GCC unroll 16
      for (int s = 0; s < K; s += 4) merge_runs<2>(v + s);
    }
    if constexpr (K >= 8) {
#pragma GCC unroll 16
      for (int s = 0; s < K; s += 8) merge_runs<4>(v + s);
    }
    if constexpr (K >= 16) merge_runs<8>(v);
    alignas(64) U last[N];
#pragma GCC unroll 16
    for (int i = 0; i < K; ++i) {
      const int64_t m = n - int64_t{i} * N;
      if (m >= N) {
        V::store(a + i * N, v[i]);
      } else if (m > 0) {
        V::store(last, v[i]);
        for (int64_t k = 0; k < m; ++k) a[i * N + k] = last[k];
      }
    }
  }

  static void small_sort(U* a, int64_t n) {
    if (n <= N) sort_block<1>(a, n);
    else if (n <= 2 * N) sort_block<2>(a, n);
    else if (n <= 4 * N) sort_block<4>(a, n);
    else if (n <= 8 * N) sort_block<8>(a, n);
    else sort_block<16>(a, n);
  }

  // Splits a[0..n) (n >= 2 kUnroll N) into keys below the pivot (< or, with le, <=) and
  // the rest; returns the count below. kUnroll vectors are saved from each end first, so
  // both sides always have room for what a step stores (the free room of the two sides
  // adds up to 2 kUnroll N; each step reads kUnroll vectors from the side with less room,
  // chosen without a branch, and stores as many keys).
  static constexpr int kUnroll = 4;
  static int64_t partition(U* a, int64_t n, U pivot, bool le) {
    const R p = V::set1(pivot);
    R saved[2 * kUnroll];
#pragma GCC unroll 8
    for (int i = 0; i < kUnroll; ++i) {
      saved[i] = V::load(a + i * N);
      saved[kUnroll + i] = V::load(a + n - (i + 1) * N);
    }
    int64_t lw = 0, lr = kUnroll * N, rr = n - kUnroll * N, rw = n;   // unread: [lr, rr)
    auto emit = [&](R v) {   // room of N keys on either side
      const unsigned below = V::below(v, p, le);
      const int nb = __builtin_popcount(below);
      V::split(v, below, a + lw, a + rw);
      lw += nb;
      rw -= N - nb;
    };
    auto emit_exact = [&](R v, unsigned valid) {
      const unsigned below = V::below(v, p, le) & valid;
      const int nb = __builtin_popcount(below), nv = __builtin_popcount(valid);
      V::split_exact(v, below, valid, a + lw, a + rw);
      lw += nb;
      rw -= nv - nb;
    };
    constexpr unsigned kAll = (1u << N) - 1;
    constexpr int64_t kStep = int64_t{kUnroll} * N;
    while (rr - lr >= kStep) {
      const bool left = lr - lw <= rw - rr;
      const int64_t at = left ? lr : rr - kStep;
      lr += left ? kStep : 0;
      rr -= left ? 0 : kStep;
      R v[kUnroll];
#pragma GCC unroll 8
      for (int i = 0; i < kUnroll; ++i) v[i] = V::load(a + at + i * N);
#pragma GCC unroll 8
      for (int i = 0; i < kUnroll; ++i) emit(v[i]);
    }
    while (rr - lr >= N) {
      const bool left = lr - lw <= rw - rr;
      const int64_t at = left ? lr : rr - N;
      lr += left ? N : 0;
      rr -= left ? 0 : N;
      emit(V::load(a + at));
    }
    if (rr > lr) {   // every key is read now: any store inside [lw, rw) is safe
      const int m = int(rr - lr);
      const R v = V::load_tail(a + lr, m);
      lr = rr;
      emit_exact(v, (1u << m) - 1);
    }
#pragma GCC unroll 8
    for (int i = 0; i < 2 * kUnroll; ++i) emit_exact(saved[i], kAll);
    return lw;
  }

  // The median of N evenly spaced samples, sorted in a register.
  static U pivot_of(const U* a, int64_t n) {
    alignas(64) U s[N];
    for (int i = 0; i < N; ++i) s[i] = a[(n - 1) * (2 * i + 1) / (2 * N)];
    V::store(s, sort_vector(V::load(s)));
    return s[N / 2];
  }

  // The fallback of a range that keeps partitioning badly: O(n log n) whatever the keys.
  // (Not std::sort: a std template instantiated in each ISA's file is one symbol the
  // linker picks from any of them, with that ISA's instructions.)
  static void sift_down(U* a, int64_t n, int64_t i) {
    const U x = a[i];
    for (int64_t c; (c = 2 * i + 1) < n; i = c) {
      if (c + 1 < n && a[c + 1] > a[c]) ++c;
      if (a[c] <= x) break;
      a[i] = a[c];
    }
    a[i] = x;
  }
  static void heap_sort(U* a, int64_t n) {
    for (int64_t i = n / 2; i-- > 0;) sift_down(a, n, i);
    for (int64_t e = n - 1; e > 0; --e) {
      const U t = a[0];
      a[0] = a[e];
      a[e] = t;
      sift_down(a, e, 0);
    }
  }

  static void sort(U* a, int64_t n, int depth) {
    while (n > kBlock) {
      if (depth-- <= 0) {
        heap_sort(a, n);
        return;
      }
      const U pivot = pivot_of(a, n);
      int64_t k = partition(a, n, pivot, false);
      if (k == 0) {   // the pivot is the minimum: its copies go left, and are sorted
        k = partition(a, n, pivot, true);
        a += k;
        n -= k;
        continue;
      }
      if (k < n - k) {
        sort(a, k, depth);
        a += k;
        n -= k;
      } else {
        sort(a + k, n - k, depth);
        n = k;
      }
    }
    small_sort(a, n);
  }

  static void run(U* a, int64_t n) {
    int depth = 8;
    for (int64_t m = n; m > 1; m >>= 1) depth += 2;
    sort(a, n, depth);
  }

  // Selection (NumPy's partition): afterwards a[k] holds what a sort would put there for
  // every k of kth[0..nk) (ascending, offsets into a), smaller keys before it and larger
  // after. Quickselect on the same partitions: only the sides holding a k go on; a range
  // of at most kBlock keys is sorted in registers.
  static void select(U* a, int64_t n, int64_t* kth, int nk, int depth) {
    while (nk > 0 && n > kBlock) {
      if (depth-- <= 0) {
        heap_sort(a, n);
        return;
      }
      const U pivot = pivot_of(a, n);
      int64_t k = partition(a, n, pivot, false);
      if (k == 0) {            // the pivot is the minimum: its copies go left, done
        k = partition(a, n, pivot, true);
        int skip = 0;
        while (skip < nk && kth[skip] < k) ++skip;
        a += k;
        n -= k;
        kth += skip;
        nk -= skip;
        for (int i = 0; i < nk; ++i) kth[i] -= k;
        continue;
      }
      int left = 0;            // kths below k go left
      while (left < nk && kth[left] < k) ++left;
      if (left > 0 && left < nk) {
        select(a, k, kth, left, depth);
        for (int i = left; i < nk; ++i) kth[i] -= k;
        a += k;
        n -= k;
        kth += left;
        nk -= left;
      } else if (left == nk) {
        n = k;
      } else {
        for (int i = 0; i < nk; ++i) kth[i] -= k;
        a += k;
        n -= k;
      }
    }
    if (nk > 0) small_sort(a, n);
  }

  static void select_run(U* a, int64_t n, int64_t* kth, int nk) {
    int depth = 8;
    for (int64_t m = n; m > 1; m >>= 1) depth += 2;
    select(a, n, kth, nk, depth);
  }
};

// An ISA's SortTable entries from its traits for 4- and 8-byte keys.
template <class V32, class V64> struct Entries {
  static void u32(uint32_t* a, int64_t n) { Quicksort<V32>::run(a, n); }
  static void u64(uint64_t* a, int64_t n) { Quicksort<V64>::run(a, n); }
  static void select_u32(uint32_t* a, int64_t n, int64_t* kth, int nk) {
    Quicksort<V32>::select_run(a, n, kth, nk);
  }
  static void select_u64(uint64_t* a, int64_t n, int64_t* kth, int nk) {
    Quicksort<V64>::select_run(a, n, kth, nk);
  }
  static void fill(SortTable* t) {
    t->u32 = &u32;
    t->u64 = &u64;
    t->select_u32 = &select_u32;
    t->select_u64 = &select_u64;
  }
};

}  // namespace sort_detail
}  // namespace XARR_ISA_NS
}  // namespace xarr
