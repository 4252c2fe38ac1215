// The one home of instruction-set dispatch and thread control.
//
// What is here:
//   * CPU feature detection (cpuid through the compiler's builtins): what the machine the
//     process runs on can execute, never what the build flags assumed.
//   * The ISA variants xarr compiles (Isa), which of them this build and this CPU can run,
//     and the active one: every kernel family reads `active_isa()` on each call, so
//     `set_active_isa` switches all families at once (tests pit each ISA against `kIsaRef`).
//   * The thread controls (OpenMP: OMP_NUM_THREADS, omp_set_num_threads and threadpoolctl
//     act on the same pool). The loop helpers that use them are in core/threading.h.
//   * KernelTables<Table>: a kernel family's tables, one per ISA, built BLIS-style: the
//     scalar reference table is filled first, every other ISA's table starts as a copy of
//     it, and the ISA's fill function overrides only the entries it implements. So a
//     variant never lacks a kernel the reference has, and the reference never goes away.
//
// A kernel family is one folder of csrc/kernels/ with
//   <family>.h        its Table type (any struct: loops per (op, dtype), micro-kernels per
//                     dtype with their tile shape, sort networks per key type ...) and the
//                     fill functions' declarations (XARR_DECLARE_ISA_FILLS);
//   *_ref.cpp, *_baseline.cpp, *_avx2.cpp, *_avx512.cpp
//                     each defines one fill function (fill_<table>_<isa>); CMakeLists.txt's
//                     xarr_kernel_family() compiles each with its ISA's flags. A family may
//                     lack any but the reference: that ISA then runs the reference's entries;
//   its driver        which owns `static KernelTables<Table> tables(XARR_ISA_FILLS(...))`
//                     and calls tables.active().
// Worked example (a GEMM family with several kernel shapes):
//   struct GemmTable { MicroKernel f32, f64, s8s32; };   // MicroKernel {fn, mr, nr}
//   XARR_DECLARE_ISA_FILLS(GemmTable, fill_gemm)         // fill_gemm_ref ... _avx512
//   const GemmTable& gemm() {
//     static const KernelTables<GemmTable> t(XARR_ISA_FILLS(GemmTable, fill_gemm));
//     return t.active();
//   }
//   // gemm_avx512.cpp: void fill_gemm_avx512(GemmTable* t) { t->f32 = {&sgemm_avx512_16x12,
//   //                                                        16, 12}; }  // f64 stays ref
#pragma once

#include <cstdint>

namespace xarr {

// The variants, in preference order from the reference to the best.
enum Isa : int { kIsaRef = 0, kIsaBaseline = 1, kIsaAvx2 = 2, kIsaAvx512 = 3, kNumIsas = 4 };

struct CpuFeatures {
  bool avx2_fma = false;     // AVX2 + FMA + F16C: the "avx2" kernels may run
  bool avx512 = false;       // AVX-512 F/DQ/BW/VL (Skylake-X and newer): the "avx512" kernels
  bool avx512_bf16 = false;  // AVX512-BF16 (vdpbf16ps)
  bool avx512_vnni = false;  // AVX512-VNNI (vpdpbusd)
  // AMX tiles with the BF16 and INT8 products (tdpbf16ps, tdpb[su][su]d); the OS must
  // also grant the tile state (gemm_amx.cpp asks for it)
  bool amx = false;
};
const CpuFeatures& cpu_features();

const char* isa_name(int isa);  // "ref", "baseline", "avx2", "avx512"; "unknown" otherwise
int isa_code(const char* name);  // the Isa of a name, -1 if none
bool isa_compiled(int isa);     // this build has the variant's kernels
bool isa_supported(int isa);    // compiled in and the CPU has it
int best_isa();                 // the best supported ISA
int active_isa();               // the ISA every family's kernels run now
void set_active_isa(int isa);   // throws std::invalid_argument if unsupported

int get_num_threads();
void set_num_threads(int n);    // n >= 1

// One family's fill functions, by ISA; nullptr where the family has no variant (or the
// build has no such ISA): that ISA's table is the reference's copy.
template <class Table> struct IsaFills {
  void (*fill[kNumIsas])(Table*);
};

template <class Table> class KernelTables {
 public:
  explicit KernelTables(const IsaFills<Table>& fills) {
    fills.fill[kIsaRef](&t_[kIsaRef]);
    for (int isa = kIsaRef + 1; isa < kNumIsas; ++isa) {
      t_[isa] = t_[kIsaRef];
      // A fill function is compiled with its ISA's flags: only run it where the CPU has it.
      if (fills.fill[isa] && isa_supported(isa)) fills.fill[isa](&t_[isa]);
    }
  }
  KernelTables(const KernelTables&) = delete;
  KernelTables& operator=(const KernelTables&) = delete;
  const Table& table(int isa) const { return t_[isa >= 0 && isa < kNumIsas ? isa : kIsaRef]; }
  const Table& active() const { return t_[active_isa()]; }

 private:
  Table t_[kNumIsas] = {};
};

}  // namespace xarr

// XARR_DECLARE_ISA_FILLS(Table, fill_x) declares fill_x_ref ... fill_x_avx512, weakly: a
// variant whose file the family lacks (or this build does not compile, as the x86 ones
// elsewhere) is a null pointer, and XARR_ISA_FILLS(Table, fill_x) is the family's IsaFills.
#define XARR_DECLARE_ISA_FILLS(Table, name)                                                \
  void name##_ref(Table* t);                                                               \
  __attribute__((weak)) void name##_baseline(Table* t);                                    \
  __attribute__((weak)) void name##_avx2(Table* t);                                        \
  __attribute__((weak)) void name##_avx512(Table* t);

#define XARR_ISA_FILLS(Table, name) \
  ::xarr::IsaFills<Table>{{&name##_ref, &name##_baseline, &name##_avx2, &name##_avx512}}
