// CPU features, the active ISA and the thread controls (contract in isa.h).
#include "core/isa.h"

#include <omp.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/threading.h"

namespace xarr {

namespace {

CpuFeatures detect() {
  CpuFeatures f;
#if defined(__x86_64__) || defined(_M_X64)
  __builtin_cpu_init();
  f.avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  f.avx512 = f.avx2_fma && __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl");
  f.avx512_bf16 = f.avx512 && __builtin_cpu_supports("avx512bf16");
  f.avx512_vnni = f.avx512 && __builtin_cpu_supports("avx512vnni");
  // AMX: CPUID leaf 7 EDX bits 22 (AMX-BF16), 24 (AMX-TILE), 25 (AMX-INT8), read
  // directly (older compilers' __builtin_cpu_supports lacks the names)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (f.avx512 && __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
    f.amx = (edx >> 22 & 1) && (edx >> 24 & 1) && (edx >> 25 & 1);
#endif
  return f;
}

bool cpu_has(int isa) {
  const CpuFeatures& f = cpu_features();
  switch (isa) {
    case kIsaRef:
    case kIsaBaseline: return true;
    case kIsaAvx2: return f.avx2_fma;
    case kIsaAvx512: return f.avx512;
    default: return false;
  }
}

// The active ISA: the best supported one until set_active_isa changes it.
int& active() {
  static int isa = best_isa();
  return isa;
}

const char* const kIsaNames[kNumIsas] = {"ref", "baseline", "avx2", "avx512"};

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

const char* isa_name(int isa) { return (isa >= 0 && isa < kNumIsas) ? kIsaNames[isa] : "unknown"; }

int isa_code(const char* name) {
  for (int isa = 0; isa < kNumIsas; ++isa)
    if (std::strcmp(name, kIsaNames[isa]) == 0) return isa;
  return -1;
}

bool isa_compiled(int isa) {
#if defined(XARR_HAVE_X86_KERNELS)
  return isa >= 0 && isa < kNumIsas;
#else
  return isa == kIsaRef || isa == kIsaBaseline;
#endif
}

bool isa_supported(int isa) { return isa_compiled(isa) && cpu_has(isa); }

int best_isa() {
  for (int isa = kNumIsas - 1; isa > kIsaRef; --isa)
    if (isa_supported(isa)) return isa;
  return kIsaRef;
}

int active_isa() { return active(); }

void set_active_isa(int isa) {
  if (!isa_supported(isa))
    throw std::invalid_argument(std::string("ISA '") + isa_name(isa) +
                                "' is not supported on this CPU or not compiled in");
  active() = isa;
}

int get_num_threads() { return omp_get_max_threads(); }

namespace {
// Measured on Zen 3 (AMD EPYC VM, 2 cores, AVX2), f32, contiguous, by
// tools/thread_thresholds.py (docs/performance.md, "Thread thresholds"): add 32k, exp 8k,
// astype 32k, sum 64k, cumsum over 64 lines 4k elements in all.
std::atomic<int64_t> g_parallel_min[kNumParFamilies] = {
    {32768}, {8192}, {32768}, {65536}, {4096}};
const char* const kParFamilyNames[kNumParFamilies] = {"cheap", "expensive", "copy",
                                                      "reduce", "scan"};
}  // namespace

int64_t parallel_min(int family) {
  return family >= 0 && family < kNumParFamilies
             ? g_parallel_min[family].load(std::memory_order_relaxed)
             : kParallelMinElements;
}
void set_parallel_min(int family, int64_t n) {
  if (family >= 0 && family < kNumParFamilies && n >= 0)
    g_parallel_min[family].store(n, std::memory_order_relaxed);
}
const char* parallel_family_name(int family) {
  return family >= 0 && family < kNumParFamilies ? kParFamilyNames[family] : "unknown";
}
void set_num_threads(int n) { omp_set_num_threads(n < 1 ? 1 : n); }

}  // namespace xarr
