#include "core/capi.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <utility>
#include <vector>

#include "core/dtype.h"
#include "engine/nary.h"
#include "kernels/elementwise/ew_table.h"
#include "kernels/relayout/transpose_tiles.h"

namespace xarr {

namespace {

constexpr size_t kLargeBlock = size_t{1} << 20;
constexpr size_t kHugePage = size_t{2} << 20;
// Mid-size blocks (64 KiB .. 1 MiB) are cached too (mid_cache): glibc serves them with
// mmap or trims them back to the OS on free, so every temporary of a loop like a 256^2
// stencil (516 KB each) paid its page faults again - and with two threads touching fresh
// pages, the fault lock: a 5-op f64 Laplacian ran 700 us, 160 us with the blocks reused.
constexpr size_t kMidBlock = size_t{64} << 10;
constexpr size_t kPage = 4096;

// Rounded allocation size: 64 B granularity for small blocks, 4 KiB for mid-size ones,
// 2 MiB for large ones. (64 B rounding comes first: 1048560 bytes round to 1 MiB, a
// large block, so 2 MiB; aligned_alloc needs a size that is a multiple of the alignment.)
size_t rounded_size(int64_t nbytes) {
  size_t n = (static_cast<size_t>(nbytes < 64 ? 64 : nbytes) + 63) / 64 * 64;
  if (n >= kLargeBlock) return (n + kHugePage - 1) / kHugePage * kHugePage;
  if (n >= kMidBlock) return (n + kPage - 1) / kPage * kPage;
  return n;
}

struct BlockCache {
  std::mutex mu;
  std::vector<std::pair<void*, size_t>> blocks;  // most recently freed last
  size_t bytes = 0;
  size_t limit;
  // XARR_CACHE_BYTES bounds every cache (default 1 GiB); `most` bounds this one.
  explicit BlockCache(size_t most) {
    const char* env = std::getenv("XARR_CACHE_BYTES");
    limit = env ? static_cast<size_t>(std::strtoull(env, nullptr, 10)) : (size_t{1} << 30);
    if (limit > most) limit = most;
  }
  ~BlockCache() { release(); }
  void* take(size_t n) {
    std::lock_guard<std::mutex> lock(mu);
    for (size_t i = blocks.size(); i-- > 0;) {
      if (blocks[i].second == n) {
        void* p = blocks[i].first;
        blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(i));
        bytes -= n;
        return p;
      }
    }
    return nullptr;
  }
  bool put(void* p, size_t n) {
    std::lock_guard<std::mutex> lock(mu);
    if (n > limit) return false;
    while (bytes + n > limit && !blocks.empty()) {
      std::free(blocks.front().first);
      bytes -= blocks.front().second;
      blocks.erase(blocks.begin());
    }
    blocks.emplace_back(p, n);
    bytes += n;
    return true;
  }
  int64_t release() {
    std::lock_guard<std::mutex> lock(mu);
    int64_t released = static_cast<int64_t>(bytes);
    for (auto& b : blocks) std::free(b.first);
    blocks.clear();
    bytes = 0;
    return released;
  }
};

BlockCache& block_cache() {  // large blocks
  static BlockCache* cache = new BlockCache(~size_t{0});  // never destroyed: frees come late
  return *cache;
}
BlockCache& mid_cache() {  // mid-size blocks: a few dozen of them at most
  static BlockCache* cache = new BlockCache(size_t{32} << 20);
  return *cache;
}

// Small blocks (up to kSmallMax bytes, in 64-byte classes) are kept on a free list per
// class when freed and handed out again: glibc's aligned_alloc splits a larger chunk for
// each call (~500 instructions, most of the cost of a small elementwise op), a reuse is a
// few dozen. A spin lock guards the lists (allocations come from Python threads).
constexpr size_t kSmallMax = 2048;
constexpr int kSmallClasses = static_cast<int>(kSmallMax / 64);
constexpr int kSmallKeep = 64;  // blocks kept per class

struct SmallCache {
  std::atomic_flag busy = ATOMIC_FLAG_INIT;
  void* blocks[kSmallClasses][kSmallKeep];
  int count[kSmallClasses] = {};
  void lock() {
    while (busy.test_and_set(std::memory_order_acquire)) {
    }
  }
  void unlock() { busy.clear(std::memory_order_release); }
};

SmallCache& small_cache() {
  static SmallCache* cache = new SmallCache();  // never destroyed: frees may come late
  return *cache;
}

}  // namespace

// Under AddressSanitizer freed blocks go back to the allocator at once: a block kept for
// reuse would hide a use-after-free or an overflow into it from the sanitizer.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kReuseBlocks = false;
#else
constexpr bool kReuseBlocks = true;
#endif

namespace {

std::atomic<const SharedHeap*> g_shared_heap{nullptr};
std::atomic<bool> g_shared_allocation{false};

}  // namespace

bool set_shared_heap(const SharedHeap* heap) {
  if (heap == nullptr) {
    g_shared_allocation.store(false, std::memory_order_relaxed);
    g_shared_heap.store(nullptr, std::memory_order_release);
    return true;
  }
  const SharedHeap* none = nullptr;
  return g_shared_heap.compare_exchange_strong(none, heap, std::memory_order_acq_rel);
}

bool set_shared_allocation(bool on) {
  return g_shared_allocation.exchange(on, std::memory_order_relaxed);
}

bool in_shared_heap(const void* p) {
  const SharedHeap* h = g_shared_heap.load(std::memory_order_acquire);
  const char* c = static_cast<const char*>(p);
  return h != nullptr && c >= h->lo && c < h->hi;
}

void* aligned_alloc64(int64_t nbytes) {
  if (nbytes < 0) return nullptr;
  if (g_shared_allocation.load(std::memory_order_relaxed)) {
    if (const SharedHeap* h = g_shared_heap.load(std::memory_order_acquire))
      if (void* p = h->alloc(h->ctx, nbytes < 64 ? 64 : nbytes)) return p;
  }
  const size_t n = rounded_size(nbytes);
  if (kReuseBlocks && n <= kSmallMax) {
    SmallCache& c = small_cache();
    const int k = static_cast<int>(n / 64) - 1;
    c.lock();
    void* p = c.count[k] > 0 ? c.blocks[k][--c.count[k]] : nullptr;
    c.unlock();
    return p ? p : std::aligned_alloc(64, n);
  }
  if (n < kMidBlock) return std::aligned_alloc(64, n);
  if (n < kLargeBlock) {
    void* p = kReuseBlocks ? mid_cache().take(n) : nullptr;
    return p ? p : std::aligned_alloc(64, n);
  }
  if (void* p = kReuseBlocks ? block_cache().take(n) : nullptr) return p;
  void* p = std::aligned_alloc(kHugePage, n);
#if defined(MADV_HUGEPAGE)
  if (p) madvise(p, n, MADV_HUGEPAGE);
#endif
  return p;
}

void aligned_free(void* p, int64_t nbytes) {
  if (!p) return;
  if (const SharedHeap* h = g_shared_heap.load(std::memory_order_acquire)) {
    if (static_cast<const char*>(p) >= h->lo && static_cast<const char*>(p) < h->hi) {
      h->release(h->ctx, p);
      return;
    }
  }
  const size_t n = rounded_size(nbytes);
  if (kReuseBlocks && n <= kSmallMax) {
    SmallCache& c = small_cache();
    const int k = static_cast<int>(n / 64) - 1;
    c.lock();
    const bool kept = c.count[k] < kSmallKeep;
    if (kept) c.blocks[k][c.count[k]++] = p;
    c.unlock();
    if (kept) return;
  }
  if (kReuseBlocks && n >= kLargeBlock && block_cache().put(p, n)) return;
  if (kReuseBlocks && n >= kMidBlock && n < kLargeBlock && mid_cache().put(p, n)) return;
  std::free(p);
}

int64_t release_cached_memory() { return block_cache().release() + mid_cache().release(); }
int64_t cached_memory_bytes() {
  int64_t total = 0;
  for (BlockCache* c : {&block_cache(), &mid_cache()}) {
    std::lock_guard<std::mutex> lock(c->mu);
    total += static_cast<int64_t>(c->bytes);
  }
  return total;
}

int ew_run(int op, int dtype, int nargs, char** ptrs, int ndim, const int64_t* dims,
           const int64_t* strides) {
  if (op < 0 || op >= kNumEwOps || dtype < 0 || dtype >= kNumDTypes) return -1;
  LoopFn fn = active_ew_table().loops[op][dtype];
  if (!fn) return -1;
  // (inputs have `dtype`, but select's pred condition; a transposed input of `dtype` is
  // read through transposed tiles)
  InputTranspose tr;
  tr.itemsize = dtype_itemsize(dtype);
  if (op == kEw_SELECT) tr.inputs = ~1u;
  if (tr.itemsize == 4 || tr.itemsize == 8) tr.panel = transpose_panel(active_isa(), tr.itemsize);
  run_nary(fn, nargs, ptrs, ndim, dims, strides,
           parallel_min(ew_op_expensive(op) ? kParExpensive : kParCheap), &tr);
  return 0;
}

int ew_run_contiguous(int op, int dtype, int nargs, char** ptrs, const int64_t* itemsizes,
                      int64_t n) {
  if (op < 0 || op >= kNumEwOps || dtype < 0 || dtype >= kNumDTypes) return -1;
  LoopFn fn = active_ew_table().loops[op][dtype];
  if (!fn) return -1;
  const int64_t min_parallel = parallel_min(ew_op_expensive(op) ? kParExpensive : kParCheap);
  if (n < min_parallel) {
    if (n > 0) fn(ptrs, itemsizes, n);
    return 0;
  }
  run_nary(fn, nargs, ptrs, 1, &n, itemsizes, min_parallel);
  return 0;
}

int ew_convert(int src_dtype, int dst_dtype, char** ptrs, int ndim, const int64_t* dims,
               const int64_t* strides) {
  if (src_dtype < 0 || src_dtype >= kNumDTypes || dst_dtype < 0 || dst_dtype >= kNumDTypes)
    return -1;
  LoopFn fn = active_ew_table().convert[src_dtype][dst_dtype];
  if (!fn) return -1;
  run_nary(fn, 2, ptrs, ndim, dims, strides, parallel_min(kParCopy));
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
