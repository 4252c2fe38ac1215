// The fused-chain executor: runs a small register program of elementwise instructions over
// an N-D iteration space in cache-sized blocks, so a chain like 2*a + 3*b*b - exp(-c) reads
// each input once and writes each output once, whatever its length (numexpr's idea).
//
// Registers 0..ninputs-1 are the program's inputs (strided, broadcast with stride 0); the
// last nconst of them may be declared scalar constants (see FusedProgram::nconst);
// registers ninputs..ninputs+ntemps-1 are per-thread block buffers (temporaries);
// an instruction's destination may instead be an output (dst = -1 - k for output k).
// Each instruction is one call of the same 1-D loops the eager engine uses (ew_table.h),
// on the block: inputs are read in place with their own strides, temporaries are
// contiguous, so every instruction runs its SIMD fast path (a constant operand of a binary
// instruction takes the loops' scalar-broadcast path).
//
// Blocks hold kFusedBlockBytes per buffer (2048 f32, 1024 f64: a 20-op chain's buffers stay
// L1-resident), at most kFusedBlock elements. Large contiguous outputs are written with
// non-temporal stores from a per-thread staging block (no read-for-ownership).
//
// Worked example, out = 2*a + 3*b*b - exp(-c) with inputs a, b, c, k2 = 2, k3 = 3
// (k2, k3 are 0-d inputs, stride 0; nconst = 2), registers r5..r8 temporaries:
//   r5 = MUL(k2=r3, a=r0); r6 = MUL(b=r1, b=r1); r6 = MUL(k3=r4, r6); r5 = ADD(r5, r6);
//   r6 = NEG(c=r2); r6 = EXP(r6); out0 = SUB(r5, r6)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace xarr {

constexpr int64_t kFusedBlock = 8192;        // most elements per block (1-byte dtypes)
constexpr int64_t kFusedBlockBytes = 8192;   // bytes per block buffer (widest register dtype)
constexpr int kFusedMaxTemps = 16;
constexpr int kFusedMaxOperands = 64;        // inputs (constants included) + outputs
constexpr int kFusedConvert = -1;  // instruction op code for ConvertElementType

struct FusedInstr {
  int op;       // EwOp code, or kFusedConvert
  int dtype;    // the value dtype the loop is keyed by (the source dtype for a convert)
  int out_dtype;
  int nargs;    // 1..3 operand registers
  int args[3];
  int dst;      // register >= 0, or -1 - k for output k
};

// A natively compiled form of a program: xarr/_graph/native.py writes the same instruction
// list as one C++ loop over ew_ops.h's functors (every value in registers, no block
// buffers) and compiles it with the active ISA's flags. Contract:
//   void f(char* const* args, const char* const* consts, int64_t n)
// computes elements [0, n): args[0..nvar) the non-constant inputs, then the outputs, all
// contiguous (stride = itemsize); consts[c] points at constant c's element. Its results are
// the interpreter's bit for bit: the same functors and flags, and each value is held in its
// register's storage dtype, as the interpreter's buffers hold it.
using NativeFusedFn = void (*)(char* const* args, const char* const* consts, int64_t n);

struct NativeForm {
  NativeFusedFn fn;
  int isa;  // the Isa fn was compiled for
};

struct FusedProgram {
  int ninputs = 0;
  std::vector<int> input_dtypes;
  int ntemps = 0;
  std::vector<int> temp_dtypes;  // fixes each temporary's element size
  std::vector<int> output_dtypes;
  std::vector<FusedInstr> code;
  // The last nconst inputs are scalar constants: ptrs[] points at one element, strides are
  // ignored (broadcast everywhere). They do not count against kMaxArgs: at most kMaxArgs
  // non-constant inputs + outputs, at most kFusedMaxOperands operands in all.
  int nconst = 0;
  // kind=kInput fusion: -1 (none) or kReduce_SUM / kReduce_MAX / kReduce_MIN
  // (kernels/reduce/reduce.h). The program then has exactly one output, whose values are
  // reduced by run_fused_reduce instead of stored (run_fused ignores this field and stores
  // them). Semantics are reduce.h's: integers wrap, pred SUM = or (MAX = or, MIN = and),
  // f16/bf16 accumulate in f32, MAX/MIN propagate NaN and are not defined for complex.
  int reduce_op = -1;
  // The native form (function + the Isa it was compiled for), or nullptr (interpret).
  // Set with set_native_fused at any time, also while another thread runs the program: a
  // run reads the pointer once, when it starts, and uses the function only if its ISA is
  // the active one (each ISA's table gives its own bits). eval_rows uses it for the row
  // chunks whose non-constant inputs and outputs are contiguous along the row; other rows
  // (strided, broadcast along the row) are interpreted.
  const NativeForm* native = nullptr;
  // Owns every form ever published (a run may still hold an older one); writers are
  // serialized by the caller (the Python binding holds the GIL).
  std::vector<std::shared_ptr<const NativeForm>> native_forms;
};

// Publishes (f, isa) as p's native form with one atomic store, so a run never pairs one
// form's function with another's ISA; f == nullptr: interpret again.
inline void set_native_fused(FusedProgram* p, NativeFusedFn f, int isa) {
  const NativeForm* form = nullptr;
  if (f) {
    p->native_forms.push_back(std::make_shared<const NativeForm>(NativeForm{f, isa}));
    form = p->native_forms.back().get();
  }
  __atomic_store_n(&p->native, form, __ATOMIC_RELEASE);
}

// Checks operand counts, registers, dtypes and that a loop exists for every instruction in
// the active table; returns an empty string or a message naming the bad instruction.
std::string validate_fused(const FusedProgram& p);

// Runs p: ptrs = inputs then outputs; strides[a * ndim + d] in BYTES for every operand
// against the iteration shape dims (the outputs' shape). Threads over rows/chunks like the
// eager engine. Call validate_fused first.
void run_fused(const FusedProgram& p, char* const* ptrs, int ndim, const int64_t* dims,
               const int64_t* strides);

// Runs a reducing program (p.reduce_op >= 0) over the 2-D iteration space [outer, inner]:
//   out[o] = reduce over i < inner of the program's output value at (o, i).
// ptrs = the inputs (constants included) then the output; strides_outer[a] and
// strides_inner[a] are input a's BYTE strides along the two dims (ignored for constants);
// out_stride is the output's byte stride along outer. inner == 0 writes the identity.
// The values are evaluated block by block with run_fused's loops (bit-identical to the
// unfused elementwise result); each block of B values (B a power-of-two multiple of the
// reduce kernel's leaf) is reduced with reduce.h's row kernel and the block partials are
// combined in a binary cascade: the same evaluation tree reduce_run uses on a contiguous
// row of the same length, so fused and unfused (run_fused + reduce_run) agree bit for bit.
// Short rows (inner <= half a block) whose inputs walk [outer, inner] linearly are packed:
// blocks of whole rows over the flattened space, each row reduced from the block; with
// inner < 16 and outer >= 64 each output is then a sequential fold of its row (reduce_run's
// vertical strategy for that shape, so the bits still match). Many short rows (< 64) of
// inputs that are not linear (a sliced or broadcast input) are computed into a temporary
// and reduced by reduce_run.
// Threads: rows are split across threads; with fewer than 4 rows per thread, fixed-size
// chunks of kFusedReduceChunk elements of a row (a power-of-two number of blocks) whose
// partials join the row's cascade in order. Results never depend on the thread count.
// Call validate_fused first.
constexpr int64_t kFusedReduceChunk = int64_t{1} << 16;
void run_fused_reduce(const FusedProgram& p, char* const* ptrs, int64_t outer, int64_t inner,
                      const int64_t* strides_outer, const int64_t* strides_inner,
                      int64_t out_stride);

}  // namespace xarr
