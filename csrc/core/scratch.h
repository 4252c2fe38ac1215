// A kernel's scratch buffers: their sizes, checked before anything is allocated, and
// Scratch<T>, an uninitialized buffer from the tensor allocator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

#include "core/capi.h"

namespace xarr {

// Scratch larger than this is refused up front: partials are a small fraction of what a
// kernel reads, so only a broadcast view of an impossible element count (2**62 ones)
// asks for more. (An AddressSanitizer build aborts, instead of throwing, on requests
// above 1 TiB; refusing them here keeps the MemoryError path the same in every build.)
constexpr int64_t kMaxScratchBytes = int64_t{1} << 40;

// count * each bytes; throws std::bad_alloc (MemoryError in the binding) when the product
// overflows or exceeds kMaxScratchBytes. Example: scratch_bytes(2**53, 64) throws;
// scratch_bytes(1024, 64) == 65536.
inline size_t scratch_bytes(int64_t count, int64_t each) {
  if (count < 0 || each < 0 || (each != 0 && count > kMaxScratchBytes / each))
    throw std::bad_alloc();
  return static_cast<size_t>(count * each);
}

// Scratch<T>: n uninitialized elements from the tensor allocator (core/capi.h
// aligned_alloc64: 64-byte aligned; its block cache keeps big blocks' pages faulted
// between calls, so a kernel's 64 MB scratch costs no page faults on its second call).
// Throws std::bad_alloc (the binding raises MemoryError). Movable, so a std::vector of
// them can hold one per thread. (In an unnamed namespace: each file gets its own copy
// with internal linkage, so no weak symbol is shared between files compiled for
// different ISAs; tests/test_build.py.)
namespace {
template <class T> class Scratch {
 public:
  explicit Scratch(int64_t n)
      : bytes_(static_cast<int64_t>(scratch_bytes(n, static_cast<int64_t>(sizeof(T))))) {
    p_ = static_cast<T*>(aligned_alloc64(bytes_));
    if (!p_) throw std::bad_alloc();
  }
  Scratch(Scratch&& o) noexcept : p_(o.p_), bytes_(o.bytes_) { o.p_ = nullptr; }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  Scratch& operator=(Scratch&&) = delete;
  ~Scratch() { aligned_free(p_, bytes_); }
  T* data() const { return p_; }

 private:
  T* p_;
  int64_t bytes_;
};
}  // namespace

}  // namespace xarr
