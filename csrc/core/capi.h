// The C++ entry points the Cython tensor type (xarr/_tensor.pyx) calls directly.
// No Python object crosses this line: pointers, dims and BYTE strides only.
#pragma once

#include <cstdint>

namespace xarr {

// 64-byte aligned allocation; nullptr on failure (the caller raises MemoryError).
// Always returns at least 64 usable bytes so size-0 tensors still have a valid pointer.
// Blocks of >= 1 MiB are 2 MiB aligned, advised for transparent huge pages, and on free
// kept in a bounded cache (default 1 GiB, XARR_CACHE_BYTES overrides, 0 disables) so the
// next allocation of the same rounded size reuses already-faulted pages. Blocks of at most
// 2 KiB are kept on small free lists (64 per 64-byte size class) and reused likewise.
// aligned_free must get the same nbytes the block was allocated with.
void* aligned_alloc64(int64_t nbytes);
void aligned_free(void* p, int64_t nbytes);
// Frees every cached block; returns the bytes released.
int64_t release_cached_memory();

// A second home for tensors: the replicas' shared heap (kernels/collectives/shm.h). While
// shared allocation is on, aligned_alloc64 tries heap.alloc first (nullptr: the heap is
// full, the ordinary allocator serves); aligned_free gives every block in [lo, hi) back to
// heap.release and never caches it. At most one heap is registered; the registered struct
// must outlive every block it gave out.
struct SharedHeap {
  void* (*alloc)(void* ctx, int64_t nbytes);
  void (*release)(void* ctx, void* p);
  void* ctx;
  const char* lo;
  const char* hi;
};
// Registers `heap` (nullptr: none). Returns false when another heap is registered.
bool set_shared_heap(const SharedHeap* heap);
// Turns shared allocation on or off for the process; returns the previous setting.
bool set_shared_allocation(bool on);
// Whether p lies in the registered heap.
bool in_shared_heap(const void* p);
int64_t cached_memory_bytes();

// Runs elementwise op `op` (EwOp) for value dtype `dtype` over an N-D iteration space
// (engine/nary.h contract). Returns 0, or -1 when the op has no loop for the dtype.
int ew_run(int op, int dtype, int nargs, char** ptrs, int ndim, const int64_t* dims,
           const int64_t* strides);
// The same for contiguous 1-D operands of n elements with the given itemsizes: the
// per-call fast path (one table lookup, then the loop or the threaded engine).
int ew_run_contiguous(int op, int dtype, int nargs, char** ptrs, const int64_t* itemsizes,
                      int64_t n);
// Converts src dtype -> dst dtype (ConvertElementType rules); args are (src, dst).
int ew_convert(int src_dtype, int dst_dtype, char** ptrs, int ndim, const int64_t* dims,
               const int64_t* strides);
// Writes 0, 1, ..., n-1 converted to `dtype` into a contiguous buffer (the Iota op).
int iota_fill(int dtype, char* out, int64_t n);
// True when the active table has a loop for (op, dtype).
bool ew_has_loop(int op, int dtype);

}  // namespace xarr
