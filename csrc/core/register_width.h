// The vector register width of the translation unit's ISA flags, in bytes: 64 with
// AVX-512, 32 with AVX, 16 else. For the kernel headers every ISA file includes with its
// own flags (reduce_kernels.h, window_kernels.h): a namespace-scope constant has internal
// linkage, so each ISA's file sees its own value.
#pragma once

namespace xarr {

#if defined(__AVX512F__)
constexpr int kRegisterBytes = 64;
#elif defined(__AVX__)
constexpr int kRegisterBytes = 32;
#else
constexpr int kRegisterBytes = 16;
#endif

}  // namespace xarr
