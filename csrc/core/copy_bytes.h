// copy_bytes(dst, src, n): std::memcpy of n bytes (the ranges must not overlap), except
// where glibc's memcpy is pathologically slow. glibc (2.36, Debian 12) copies blocks of a
// few KiB and more with `rep movsb` on CPUs that report ERMS / FSRM; on AMD Zen 3 that string
// copy falls to a slow path when the destination is a few bytes ahead of the source
// modulo the 4 KiB page. Measured on a Zen 3 VM (glibc 2.36), 32 KiB copies, GB/s by
// (dst - src) mod 4096: 0 -> 40, 8 -> 1.7, 16 -> 1.7, 32 -> 38, 56 -> 23, 64 -> 38, 4088
// -> 34; with rep movsb turned off (GLIBC_TUNABLES x86_rep_movsb_threshold) 8 -> 28. Half
// of a 10000-sample xa.convolve's time was such a copy (the depthwise kernel's padded
// row). Such copies (offsets 1 to 63, at least kCopyBytesLoopMin bytes) take a 16-byte
// vector loop instead; the bulk copies of the copy, gather, indexing, window and
// collective kernels go through here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace xarr {

constexpr size_t kCopyBytesLoopMin = 1024;

inline void copy_bytes(void* dst, const void* src, size_t n) {
#if defined(__SSE2__)
  const uintptr_t ahead =
      (reinterpret_cast<uintptr_t>(dst) - reinterpret_cast<uintptr_t>(src)) & 4095;
  if (n >= kCopyBytesLoopMin && ahead != 0 && ahead < 64) {
    char* d = static_cast<char*>(dst);
    const char* s = static_cast<const char*>(src);
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 32));
      const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 48));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i), a);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i + 16), b);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i + 32), c);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i + 48), e);
    }
    std::memcpy(d + i, s + i, n - i);   // (under 64 bytes: no string copy)
    return;
  }
#endif
  std::memcpy(dst, src, n);
}

}  // namespace xarr
