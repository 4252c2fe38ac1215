// Builds the per-ISA elementwise tables once and picks the active one.
#include <stdexcept>
#include <string>

#include "core/cpu_features.h"
#include "kernels/elementwise/ew_table.h"

namespace xarr {

namespace {

struct Tables {
  EwTable t[4] = {};
  bool compiled[4] = {true, false, false, false};
  int active = kIsaRef;

  Tables() {
    fill_ew_table_ref(&t[kIsaRef]);
#if defined(XARR_HAVE_X86_KERNELS)
    compiled[kIsaBaseline] = compiled[kIsaAvx2] = compiled[kIsaAvx512] = true;
    fill_ew_table_baseline(&t[kIsaBaseline]);
    // A table's fill code is compiled with its ISA's flags: only run it on a CPU that has
    // the ISA (an unfilled table is never active: supported_on_cpu is false).
    if (supported_on_cpu(kIsaAvx2)) fill_ew_table_avx2(&t[kIsaAvx2]);
    if (supported_on_cpu(kIsaAvx512)) fill_ew_table_avx512(&t[kIsaAvx512]);
#else
    compiled[kIsaBaseline] = true;
    fill_ew_table_baseline(&t[kIsaBaseline]);
#endif
    // Any entry a vector table leaves empty falls back to the reference loop.
    for (int isa = 1; isa < 4; ++isa) {
      for (int op = 0; op < kNumEwOps; ++op)
        for (int d = 0; d < kNumDTypes; ++d)
          if (!t[isa].loops[op][d]) t[isa].loops[op][d] = t[kIsaRef].loops[op][d];
      for (int s = 0; s < kNumDTypes; ++s)
        for (int d = 0; d < kNumDTypes; ++d)
          if (!t[isa].convert[s][d]) t[isa].convert[s][d] = t[kIsaRef].convert[s][d];
    }
    active = best_isa_of(*this);
  }

  static int best_isa_of(const Tables& tb) {
    for (int isa = kIsaAvx512; isa > kIsaRef; --isa)
      if (tb.compiled[isa] && supported_on_cpu(isa)) return isa;
    return kIsaRef;
  }

  static bool supported_on_cpu(int isa) {
    const CpuFeatures& f = cpu_features();
    switch (isa) {
      case kIsaRef: return true;
      case kIsaBaseline: return true;
      case kIsaAvx2: return f.avx2_fma;
      case kIsaAvx512: return f.avx512;
      default: return false;
    }
  }
};

Tables& tables() {
  static Tables tb;
  return tb;
}

const char* const kOpNames[] = {
#define XARR_EW_NAME(name, arity) #name,
    XARR_EW_OPS(XARR_EW_NAME)
#undef XARR_EW_NAME
};
constexpr int kOpArity[] = {
#define XARR_EW_AR(name, arity) arity,
    XARR_EW_OPS(XARR_EW_AR)
#undef XARR_EW_AR
};

// The two op lists of ew_table.h must agree: every op but SELECT has exactly one functor
// entry (a duplicate would repeat a case label in ew_functor_name), with the same arity.
#define XARR_EW_COUNT(OPC, FUNCTOR, AR) +1
static_assert(0 XARR_EW_FUNCTORS(XARR_EW_COUNT) == kNumEwOps - 1,
              "XARR_EW_FUNCTORS must list every op of XARR_EW_OPS except SELECT");
#undef XARR_EW_COUNT
#define XARR_EW_SAME_ARITY(OPC, FUNCTOR, AR) \
  static_assert(kOpArity[kEw_##OPC] == (AR), "arity of " #OPC " differs between the lists");
XARR_EW_FUNCTORS(XARR_EW_SAME_ARITY)
#undef XARR_EW_SAME_ARITY

}  // namespace

const char* isa_name(int isa) {
  static const char* names[] = {"ref", "baseline", "avx2", "avx512"};
  return (isa >= 0 && isa < 4) ? names[isa] : "unknown";
}

bool isa_supported(int isa) {
  if (isa < 0 || isa > 3) return false;
  return tables().compiled[isa] && Tables::supported_on_cpu(isa);
}

int best_isa() { return Tables::best_isa_of(tables()); }
int active_isa() { return tables().active; }

void set_active_isa(int isa) {
  if (!isa_supported(isa))
    throw std::invalid_argument(std::string("ISA '") + isa_name(isa) +
                                "' is not supported on this CPU or not compiled in");
  tables().active = isa;
}

const EwTable& ew_table(int isa) { return tables().t[isa]; }
const EwTable& active_ew_table() {
  Tables& tb = tables();
  return tb.t[tb.active];
}
const char* ew_op_name(int op) { return (op >= 0 && op < kNumEwOps) ? kOpNames[op] : "?"; }
int ew_op_arity(int op) { return (op >= 0 && op < kNumEwOps) ? kOpArity[op] : 0; }

const char* ew_functor_name(int op) {
  switch (op) {
#define XARR_FUNCTOR_NAME(OPC, FUNCTOR, AR) \
  case kEw_##OPC:                          \
    return #FUNCTOR;
    XARR_EW_FUNCTORS(XARR_FUNCTOR_NAME)
#undef XARR_FUNCTOR_NAME
    default:
      return "";
  }
}

}  // namespace xarr
