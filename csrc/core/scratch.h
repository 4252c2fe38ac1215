// Sizes of a kernel's scratch buffers (std::vector<char> of partial results), checked
// before anything is allocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

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

}  // namespace xarr
