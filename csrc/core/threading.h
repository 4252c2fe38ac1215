// Thread pool control: xarr uses OpenMP (libgomp), so OMP_NUM_THREADS, omp_set_num_threads
// and threadpoolctl all act on the same pool.
#pragma once

#include <cstdint>

namespace xarr {

int get_num_threads();
void set_num_threads(int n);  // n >= 1
// Elementwise work below this many elements stays on one thread (fork/join costs ~2 us).
constexpr int64_t kParallelMinElements = 1 << 16;

}  // namespace xarr
