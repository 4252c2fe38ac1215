#include "core/capi.h"

#include <cstdlib>

#include "core/dtype.h"
#include "engine/nary.h"
#include "kernels/elementwise/ew_table.h"

namespace xarr {

void* aligned_alloc64(int64_t nbytes) {
  if (nbytes < 0) return nullptr;
  size_t n = static_cast<size_t>(nbytes < 64 ? 64 : (nbytes + 63) / 64 * 64);
  return std::aligned_alloc(64, n);
}

void aligned_free(void* p) { std::free(p); }

int ew_run(int op, int dtype, int nargs, char** ptrs, int ndim, const int64_t* dims,
           const int64_t* strides) {
  if (op < 0 || op >= kNumEwOps || dtype < 0 || dtype >= kNumDTypes) return -1;
  LoopFn fn = active_ew_table().loops[op][dtype];
  if (!fn) return -1;
  run_nary(fn, nargs, ptrs, ndim, dims, strides);
  return 0;
}

int ew_run_contiguous(int op, int dtype, int nargs, char** ptrs, const int64_t* itemsizes,
                      int64_t n) {
  if (op < 0 || op >= kNumEwOps || dtype < 0 || dtype >= kNumDTypes) return -1;
  LoopFn fn = active_ew_table().loops[op][dtype];
  if (!fn) return -1;
  if (n < kParallelMinElements) {
    if (n > 0) fn(ptrs, itemsizes, n);
    return 0;
  }
  run_nary(fn, nargs, ptrs, 1, &n, itemsizes);
  return 0;
}

int ew_convert(int src_dtype, int dst_dtype, char** ptrs, int ndim, const int64_t* dims,
               const int64_t* strides) {
  if (src_dtype < 0 || src_dtype >= kNumDTypes || dst_dtype < 0 || dst_dtype >= kNumDTypes)
    return -1;
  LoopFn fn = active_ew_table().convert[src_dtype][dst_dtype];
  if (!fn) return -1;
  run_nary(fn, 2, ptrs, ndim, dims, strides);
  return 0;
}

int iota_fill(int dtype, char* out, int64_t n) {
  if (dtype < 0 || dtype >= kNumDTypes) return -1;
  LoopFn fn = active_ew_table().convert[kS64][dtype];
  const int64_t isz = dtype_itemsize(dtype);
  constexpr int64_t kChunk = 4096;
#pragma omp parallel for schedule(static) if (n >= kParallelMinElements)
  for (int64_t c = 0; c < (n + kChunk - 1) / kChunk; ++c) {
    int64_t vals[kChunk];
    const int64_t lo = c * kChunk;
    const int64_t m = n - lo < kChunk ? n - lo : kChunk;
    for (int64_t i = 0; i < m; ++i) vals[i] = lo + i;
    char* args[2] = {reinterpret_cast<char*>(vals), out + lo * isz};
    int64_t st[2] = {8, isz};
    fn(args, st, m);
  }
  return 0;
}

bool ew_has_loop(int op, int dtype) {
  if (op < 0 || op >= kNumEwOps || dtype < 0 || dtype >= kNumDTypes) return false;
  return active_ew_table().loops[op][dtype] != nullptr;
}

}  // namespace xarr
