// Run-time CPU feature detection (x86-64: cpuid via the compiler's builtins).
// Contract: the answers describe the machine the process runs on, not the build flags.
#pragma once

namespace xarr {

struct CpuFeatures {
  bool avx2_fma = false;   // AVX2 + FMA + F16C: the "avx2" kernels may run
  bool avx512 = false;     // AVX-512 F/DQ/BW/VL (Skylake-X and newer): the "avx512" kernels
};

const CpuFeatures& cpu_features();

}  // namespace xarr
