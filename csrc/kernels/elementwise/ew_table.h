// The elementwise kernel family: one table of 1-D loops per instruction set.
//
// A loop (LoopFn, engine/nary.h) has NumPy's ufunc inner-loop contract:
//   void loop(char* const* args, const int64_t* strides, int64_t n)
// args[0..nin-1] point at the first input elements, args[nin] at the first output element;
// strides are in BYTES, one per argument; the loop computes n elements. A stride of 0 means
// the operand is broadcast. The output may alias an input exactly (same pointer and stride:
// in-place `x += y`); partial overlap is the caller's job to avoid.
//
// Tables (core/isa.h KernelTables): `ref` is the plain scalar reference (libm for
// transcendental functions, no vectorization); `baseline`, `avx2` and `avx512` are the same
// templates (ew_loops.h) compiled with each ISA's flags and xarr's vectorizable math
// (vmath.h), overriding the reference's entries.
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "core/isa.h"
#include "engine/nary.h"
#include "kernels/elementwise/ew_ops.h"

namespace xarr {

// kEw_NEG, kEw_ABS, ...: the codes of XARR_EW_OPS (ew_ops.h), in its order.
enum EwOp : int {
#define XARR_EW_ENUM(name, functor, arity) kEw_##name,
  XARR_EW_OPS(XARR_EW_ENUM)
#undef XARR_EW_ENUM
      kNumEwOps
};

struct EwTable {
  // loops[op][dtype of the (value) inputs]; nullptr when the op does not apply to the dtype.
  LoopFn loops[kNumEwOps][kNumDTypes];
  // convert[src][dst]: ConvertElementType with xarr's rules (see ew_ops.h).
  LoopFn convert[kNumDTypes][kNumDTypes];
};

XARR_DECLARE_ISA_FILLS(EwTable, fill_ew_table)

const EwTable& ew_table(int isa);
const EwTable& active_ew_table();
const char* ew_op_name(int op);
int ew_op_arity(int op);
const char* ew_functor_name(int op);  // "Mul" for kEw_MUL
bool ew_op_expensive(int op);         // the functor's `expensive` trait
bool ew_op_has_array(int op);         // the functor's `has_array` trait

}  // namespace xarr
