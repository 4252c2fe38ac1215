#include "fused/executor.h"

#include <algorithm>

#include "core/dtype.h"
#include "engine/nary.h"
#include "kernels/elementwise/ew_table.h"

namespace xarr {

namespace {

struct Bound {
  const FusedProgram* p;
  const EwTable* table;
  std::vector<LoopFn> loops;  // resolved once per run
};

int reg_itemsize(const FusedProgram& p, int r) {
  if (r < p.ninputs) return dtype_itemsize(p.input_dtypes[r]);
  return dtype_itemsize(p.temp_dtypes[r - p.ninputs]);
}

// One row chunk of n elements: args[0..ninputs-1] inputs, then outputs, with strides st.
void fused_rows(void* ctx, char* const* args, const int64_t* st, int64_t n) {
  const Bound& b = *static_cast<const Bound*>(ctx);
  const FusedProgram& p = *b.p;
  const int nin = p.ninputs;
  // Per-call block buffers for the temporaries (16 bytes per element at most).
  alignas(64) static thread_local char storage[16][kFusedBlock * 16];
  char* temps[16];
  for (int t = 0; t < p.ntemps; ++t) temps[t] = storage[t];
  for (int64_t lo = 0; lo < n; lo += kFusedBlock) {
    const int64_t m = std::min(kFusedBlock, n - lo);
    for (size_t i = 0; i < p.code.size(); ++i) {
      const FusedInstr& ins = p.code[i];
      char* a[4];
      int64_t s[4];
      for (int k = 0; k < ins.nargs; ++k) {
        const int r = ins.args[k];
        if (r < nin) {
          a[k] = args[r] + lo * st[r];
          s[k] = st[r];
        } else {
          a[k] = temps[r - nin];
          s[k] = reg_itemsize(p, r);
        }
      }
      if (ins.dst < 0) {
        const int o = nin + (-1 - ins.dst);
        a[ins.nargs] = args[o] + lo * st[o];
        s[ins.nargs] = st[o];
      } else {
        a[ins.nargs] = temps[ins.dst - nin];
        s[ins.nargs] = reg_itemsize(p, ins.dst);
      }
      b.loops[i](a, s, m);
    }
  }
}

}  // namespace

std::string validate_fused(const FusedProgram& p) {
  const EwTable& t = active_ew_table();
  if (p.ntemps > 16) return "too many temporaries (max 16)";
  if (static_cast<int>(p.input_dtypes.size()) != p.ninputs) return "input_dtypes size";
  if (static_cast<int>(p.temp_dtypes.size()) != p.ntemps) return "temp_dtypes size";
  if (p.ninputs + static_cast<int>(p.output_dtypes.size()) > kMaxArgs)
    return "too many operands (inputs + outputs > 8)";
  const int nregs = p.ninputs + p.ntemps;
  const int nout = static_cast<int>(p.output_dtypes.size());
  for (size_t i = 0; i < p.code.size(); ++i) {
    const FusedInstr& ins = p.code[i];
    const std::string where = "instruction " + std::to_string(i) + ": ";
    if (ins.nargs < 1 || ins.nargs > 3) return where + "nargs must be 1..3";
    for (int k = 0; k < ins.nargs; ++k)
      if (ins.args[k] < 0 || ins.args[k] >= nregs) return where + "operand register out of range";
    if (ins.dst >= 0 && (ins.dst < p.ninputs || ins.dst >= nregs))
      return where + "destination must be a temporary or an output";
    if (ins.dst < 0 && -1 - ins.dst >= nout) return where + "output index out of range";
    if (ins.dtype < 0 || ins.dtype >= kNumDTypes || ins.out_dtype < 0 ||
        ins.out_dtype >= kNumDTypes)
      return where + "bad dtype";
    const int dst_dt = ins.dst < 0 ? p.output_dtypes[-1 - ins.dst]
                                   : p.temp_dtypes[ins.dst - p.ninputs];
    if (dst_dt != ins.out_dtype) return where + "destination dtype differs from out_dtype";
    if (ins.op == kFusedConvert) {
      if (ins.nargs != 1) return where + "convert takes one operand";
    } else {
      if (ins.op < 0 || ins.op >= kNumEwOps) return where + "bad op code";
      if (ew_op_arity(ins.op) != ins.nargs) return where + "wrong number of operands";
      if (!t.loops[ins.op][ins.dtype]) return where + "no kernel for this op and dtype";
    }
  }
  return "";
}

void run_fused(const FusedProgram& p, char* const* ptrs, int ndim, const int64_t* dims,
               const int64_t* strides) {
  Bound b;
  b.p = &p;
  b.table = &active_ew_table();
  for (const FusedInstr& ins : p.code)
    b.loops.push_back(ins.op == kFusedConvert ? b.table->convert[ins.dtype][ins.out_dtype]
                                              : b.table->loops[ins.op][ins.dtype]);
  const int nargs = p.ninputs + static_cast<int>(p.output_dtypes.size());
  run_nary_ctx(&fused_rows, &b, nargs, ptrs, ndim, dims, strides);
}

}  // namespace xarr
