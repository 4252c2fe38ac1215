// The elementwise kernel registry: one table of 1-D loops per instruction set.
//
// A loop has NumPy's ufunc inner-loop contract:
//   void loop(char* const* args, const int64_t* strides, int64_t n)
// args[0..nin-1] point at the first input elements, args[nin] at the first output element;
// strides are in BYTES, one per argument; the loop computes n elements. A stride of 0 means
// the operand is broadcast. The output may alias an input exactly (same pointer and stride:
// in-place `x += y`); partial overlap is the caller's job to avoid.
//
// Tables: `ref` is the plain scalar reference (libm for transcendental functions, no
// vectorization); `baseline`, `avx2` and `avx512` are the same templates compiled with each
// ISA's flags and xarr's vectorizable math (vmath.h). The reference is filled first and the
// vector tables fall back to it for any entry they leave empty (BLIS-style override).
#pragma once

#include <cstdint>

#include "core/dtype.h"

namespace xarr {

using LoopFn = void (*)(char* const* args, const int64_t* strides, int64_t n);

// Every elementwise operation. Arity and output-dtype rules live in Python
// (xarr/_ops/elementwise.py); the codes are shared with it through the bindings.
#define XARR_EW_OPS(X)                                                                       \
  /* unary */                                                                                \
  X(NEG, 1) X(ABS, 1) X(SIGN, 1) X(NOT, 1) X(CEIL, 1) X(FLOOR, 1) X(ROUND, 1)                  \
  X(ROUND_EVEN, 1) X(TRUNC, 1) X(EXP, 1) X(EXPM1, 1) X(EXP2, 1) X(LOG, 1) X(LOG1P, 1)          \
  X(LOG2, 1) X(LOG10, 1) X(LOGISTIC, 1) X(TANH, 1) X(SIN, 1) X(COS, 1) X(TAN, 1)              \
  X(ASIN, 1) X(ACOS, 1) X(ATAN, 1) X(SINH, 1) X(COSH, 1) X(ASINH, 1) X(ACOSH, 1)             \
  X(ATANH, 1) X(SQRT, 1) X(RSQRT, 1) X(CBRT, 1) X(SQUARE, 1) X(IS_FINITE, 1) X(IS_NAN, 1)    \
  X(IS_INF, 1) X(POPCNT, 1) X(CLZ, 1) X(REAL, 1) X(IMAG, 1) X(CONJ, 1) X(COPY, 1)             \
  X(SIGNBIT, 1) X(SIGN_NP, 1)                                                                \
  /* binary */                                                                               \
  X(ADD, 2) X(SUB, 2) X(MUL, 2) X(DIV, 2) X(REM, 2) X(FMOD, 2) X(FLOOR_DIV, 2) X(MOD, 2) X(MAX, 2)      \
  X(MIN, 2) X(POW, 2) X(ATAN2, 2) X(HYPOT, 2) X(COPYSIGN, 2) X(LOGADDEXP, 2) X(AND, 2)        \
  X(OR, 2) X(XOR, 2) X(SHL, 2) X(SHR_LOGICAL, 2) X(SHR_ARITH, 2) X(EQ, 2) X(NE, 2) X(LT, 2)  \
  X(LE, 2) X(GT, 2) X(GE, 2) X(EQ_TOTAL, 2) X(NE_TOTAL, 2) X(LT_TOTAL, 2) X(LE_TOTAL, 2)     \
  X(GT_TOTAL, 2) X(GE_TOTAL, 2) X(NEXTAFTER, 2) X(COMPLEX, 2)                                              \
  /* ternary: select(pred, on_true, on_false) keyed by the value dtype; clamp(lo, x, hi) */   \
  X(SELECT, 3) X(CLAMP, 3)

// Every elementwise op code with its functor and arity: X(OP, Functor, arity) for kEw_OP.
// One list for the ISA tables (ew_loops.h fill_table; the functors are in ew_ops.h) and for the names the native code
// generator writes (ew_functor_name, xarr/_graph/native.py). SELECT is not here: it moves
// bytes (ew_loops.h select_loop).
#define XARR_EW_FUNCTORS(X) \
  X(NEG, Neg, 1) X(ABS, Abs, 1) X(SIGN, Sign, 1) X(NOT, Not, 1) X(CEIL, Ceil, 1) \
  X(FLOOR, Floor, 1) X(ROUND, Round, 1) X(ROUND_EVEN, RoundEven, 1) X(TRUNC, Trunc, 1) \
  X(EXP, Exp, 1) X(EXPM1, Expm1, 1) X(EXP2, Exp2, 1) X(LOG, Log, 1) X(LOG1P, Log1p, 1) \
  X(LOG2, Log2, 1) X(LOG10, Log10, 1) X(LOGISTIC, Logistic, 1) X(TANH, Tanh, 1) \
  X(SIN, Sin, 1) X(COS, Cos, 1) X(TAN, Tan, 1) X(ASIN, Asin, 1) X(ACOS, Acos, 1) \
  X(ATAN, Atan, 1) X(SINH, Sinh, 1) X(COSH, Cosh, 1) X(ASINH, Asinh, 1) \
  X(ACOSH, Acosh, 1) X(ATANH, Atanh, 1) X(SQRT, Sqrt, 1) X(RSQRT, Rsqrt, 1) \
  X(CBRT, Cbrt, 1) X(SQUARE, Square, 1) X(IS_FINITE, IsFinite, 1) X(IS_NAN, IsNan, 1) \
  X(IS_INF, IsInf, 1) X(POPCNT, Popcnt, 1) X(CLZ, Clz, 1) X(REAL, Real, 1) \
  X(IMAG, Imag, 1) X(CONJ, Conj, 1) X(COPY, Copy, 1) X(SIGNBIT, SignBit, 1) \
  X(SIGN_NP, SignNumpy, 1) \
  X(ADD, Add, 2) X(SUB, Sub, 2) X(MUL, Mul, 2) X(DIV, Div, 2) X(REM, Rem, 2) \
  X(FMOD, Fmod, 2) X(FLOOR_DIV, FloorDiv, 2) X(MOD, Mod, 2) X(MAX, Max, 2) \
  X(MIN, Min, 2) X(POW, Pow, 2) X(ATAN2, Atan2, 2) X(HYPOT, Hypot, 2) \
  X(COPYSIGN, Copysign, 2) X(LOGADDEXP, LogAddExp, 2) X(AND, And, 2) X(OR, Or, 2) \
  X(XOR, Xor, 2) X(SHL, Shl, 2) X(SHR_LOGICAL, ShrLogical, 2) X(SHR_ARITH, ShrArith, 2) \
  X(EQ, Eq, 2) X(NE, Ne, 2) X(LT, Lt, 2) X(LE, Le, 2) X(GT, Gt, 2) X(GE, Ge, 2) \
  X(EQ_TOTAL, EqTotal, 2) X(NE_TOTAL, NeTotal, 2) X(LT_TOTAL, LtTotal, 2) \
  X(LE_TOTAL, LeTotal, 2) X(GT_TOTAL, GtTotal, 2) X(GE_TOTAL, GeTotal, 2) \
  X(NEXTAFTER, Nextafter, 2) X(COMPLEX, MakeComplex, 2) X(CLAMP, Clamp, 3)

enum EwOp : int {
#define XARR_EW_ENUM(name, arity) kEw_##name,
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

// Filled by each ISA's translation unit. Any entry left nullptr falls back to the reference.
void fill_ew_table_ref(EwTable* t);
void fill_ew_table_baseline(EwTable* t);
void fill_ew_table_avx2(EwTable* t);
void fill_ew_table_avx512(EwTable* t);

// The ISA variants, in preference order from best to the reference.
enum Isa : int { kIsaRef = 0, kIsaBaseline = 1, kIsaAvx2 = 2, kIsaAvx512 = 3 };
const char* isa_name(int isa);
bool isa_supported(int isa);     // compiled in and the CPU has it
int best_isa();                  // the best supported ISA
int active_isa();                // the ISA whose table active_ew_table() returns
void set_active_isa(int isa);    // throws std::invalid_argument if unsupported
const EwTable& ew_table(int isa);
const EwTable& active_ew_table();
const char* ew_op_name(int op);
int ew_op_arity(int op);
const char* ew_functor_name(int op);  // "Mul" for kEw_MUL, "" for SELECT

}  // namespace xarr
