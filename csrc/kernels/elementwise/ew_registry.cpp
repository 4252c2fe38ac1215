// The elementwise family's tables and the per-op facts derived from XARR_EW_OPS.
#include "kernels/elementwise/ew_table.h"

namespace xarr {

namespace {

const KernelTables<EwTable>& tables() {
  static const KernelTables<EwTable> t(XARR_ISA_FILLS(EwTable, fill_ew_table));
  return t;
}

struct OpFacts {
  const char* name;
  const char* functor;
  int arity;
  bool expensive;
  bool has_array;
};

const OpFacts kOps[] = {
#define XARR_EW_FACTS(NAME, FUNCTOR, AR)                                        \
  {#NAME, #FUNCTOR, AR, ew::kExpensive<ew::FUNCTOR>, ew::kHasArray<ew::FUNCTOR>},
    XARR_EW_OPS(XARR_EW_FACTS)
#undef XARR_EW_FACTS
};
static_assert(sizeof(kOps) / sizeof(kOps[0]) == kNumEwOps, "one entry per op");

}  // namespace

const EwTable& ew_table(int isa) { return tables().table(isa); }
const EwTable& active_ew_table() { return tables().active(); }

const char* ew_op_name(int op) { return (op >= 0 && op < kNumEwOps) ? kOps[op].name : "?"; }
int ew_op_arity(int op) { return (op >= 0 && op < kNumEwOps) ? kOps[op].arity : 0; }
const char* ew_functor_name(int op) { return (op >= 0 && op < kNumEwOps) ? kOps[op].functor : ""; }
bool ew_op_expensive(int op) { return op >= 0 && op < kNumEwOps && kOps[op].expensive; }
bool ew_op_has_array(int op) { return op >= 0 && op < kNumEwOps && kOps[op].has_array; }

}  // namespace xarr
