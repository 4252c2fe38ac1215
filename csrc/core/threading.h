// Threaded loops over OpenMP (the thread controls, get_num_threads / set_num_threads, are
// in core/isa.h with the other process-wide kernel switches).
#pragma once

#include <omp.h>

#include <cstdint>
#include <exception>
#include <optional>

#include "core/isa.h"

namespace xarr {

// Work below this many elements stays on one thread (fork/join costs ~2 us): the default
// of the kernels that have no measured family threshold below (indexing, iota, fusions).
constexpr int64_t kParallelMinElements = 1 << 16;

// The element count from which a kernel family splits its work over threads, measured
// per family (tools/thread_thresholds.py: the smallest size from which 2 threads beat 1
// at every larger size; docs/performance.md, "Thread thresholds"). Read at every call, so
// the measuring tool can move them (set_parallel_min); the defaults live in isa.cpp.
enum ParallelFamily : int {
  kParCheap = 0,      // elementwise ops of a few instructions (add, compare, abs ...)
  kParExpensive = 1,  // elementwise ops with an `expensive` functor (exp, sin, pow ...)
  kParCopy = 2,       // copies and dtype conversions (copy_strided, astype)
  kParReduce = 3,     // reductions (sum, max, argmax ...)
  kParScan = 4,       // scans (cumsum ...), which split over independent lines only
  kNumParFamilies = 5
};
int64_t parallel_min(int family);
void set_parallel_min(int family, int64_t n);   // n >= 0
const char* parallel_family_name(int family);   // "cheap", "expensive", ...

// Loops over items [0, n) on `nt` OpenMP threads, inline when nt <= 1: an OpenMP region
// costs ~1 us even with one thread (libgomp builds a team), most of a small reduction.
// parallel_for: body(i), items split statically.
// parallel_for_dynamic: each thread makes its state once (make_state()), then runs
//   body(state, i) on items handed out `chunk` at a time.
// Example: parallel_for_dynamic(nt, rows, 16, [&] { return Scratch(w); },
//                               [&](Scratch& s, int64_t r) { reduce_row(r, s); });
template <class Body>
void parallel_for(int nt, int64_t n, Body body) {
  if (nt <= 1) {
    for (int64_t i = 0; i < n; ++i) body(i);
    return;
  }
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t i = 0; i < n; ++i) body(i);
}

//
// An exception may not leave an OpenMP region (the runtime would terminate the process):
// parallel_for_dynamic, whose make_state() allocates, catches what a thread throws, lets
// the other threads finish their items, and rethrows the first exception after the region
// (so std::bad_alloc reaches the binding, which raises MemoryError).
// split_items: work(begin, end) over work items [0, n) on up to nt threads, each thread
// one contiguous share (inline, no parallel region, for one thread or fewer than 2 items).
// Example: split_items(nt, blocks, [&](int64_t b, int64_t e) { run_blocks(b, e); });
template <class Work>
void split_items(int nt, int64_t n, const Work& work) {
  if (n < nt) nt = static_cast<int>(n);
  if (nt <= 1) {
    work(0, n);
    return;
  }
#pragma omp parallel num_threads(nt)
  {
    const int64_t t = omp_get_thread_num(), team = omp_get_num_threads();
    work(n * t / team, n * (t + 1) / team);
  }
}

template <class MakeState, class Body>
void parallel_for_dynamic(int nt, int64_t n, int64_t chunk, MakeState make_state, Body body) {
  if (nt <= 1) {
    auto state = make_state();
    for (int64_t i = 0; i < n; ++i) body(state, i);
    return;
  }
  std::exception_ptr error;
  auto keep_first = [&error] {
#pragma omp critical(xarr_parallel_error)
    if (!error) error = std::current_exception();
  };
#pragma omp parallel num_threads(nt)
  {
    std::optional<decltype(make_state())> state;
    try {
      state.emplace(make_state());
    } catch (...) {
      keep_first();
    }
#pragma omp for schedule(dynamic, chunk)
    for (int64_t i = 0; i < n; ++i) {
      if (!state) continue;
      try {
        body(*state, i);
      } catch (...) {
        keep_first();
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace xarr
