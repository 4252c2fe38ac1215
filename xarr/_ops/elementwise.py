"""Elementwise operations: one definition per op, from which the NumPy frontend (``xa.*``),
the strict XLA frontend (``xa.lax.*``) and the tests are derived.

An op definition (``ElementwiseOp``) names the op, the C++ kernel that computes it, its
arity, which element-type kinds it accepts and how its result type follows from its
operand type. The shape rules live here too, apart from the kernels:

* ``broadcast_shapes`` - NumPy's rule for ``xa.*`` and operators:
  ``(2, 1), (1, 3) -> (2, 3)``; ``(4,), (3, 1) -> (3, 4)``.
* ``lax_broadcast`` - XLA's rule (seed 003) for ``xa.lax.*``: same rank with degenerate
  (size-1) dims, a scalar with anything, or an explicit ``broadcast_dimensions`` mapping
  of the lower-rank operand's dims into the higher-rank operand's, strictly increasing:
  ``f32[4] + f32[1,2]`` with ``(0,)`` -> ``[4,2]``; ``f32[1,2] + f32[4,3,1]`` with
  ``(1, 2)`` -> ``[4,3,2]``.

Kernel calls go through ``xarr._tensor.run_elementwise``; a kernel never sees Python.
"""

from dataclasses import dataclass

import numpy as np

from xarr import _core
from xarr import _tensor
from xarr._dtypes import CODE_OF, DTYPES, KINDS, XLA_NAMES, as_dtype
from xarr._graph import trace as _trace
from xarr._graph.trace import Traced, recorder
from xarr._tensor import Tensor

KERNELS = _core.ew_ops()  # {'ADD': (code, arity), ...}


@dataclass(frozen=True)
class ElementwiseOp:
    """One elementwise operation.

    name:    the user-facing name (``add``; the lax and NumPy spellings map onto it)
    kernel:  the EwOp kernel name in csrc/kernels/elementwise/ew_table.h
    arity:   number of operands
    kinds:   element-type kinds accepted: b(pred) i(signed) u(unsigned) f(float) c(complex)
    result:  'same' (the operand type), 'pred', or 'real' (real part type of complex)
    """

    name: str
    kernel: str
    arity: int
    kinds: str
    result: str = "same"

    @property
    def code(self):
        return KERNELS[self.kernel][0]

    def result_code(self, code):
        """The output dtype code for operands of dtype ``code``."""
        if self.result == "pred":
            return 0
        if self.result == "real":
            return {13: 11, 14: 12}.get(code, code)
        if self.result == "complex":
            return 14 if code == 12 else 13
        return code

    def accepts(self, code):
        return KINDS[code] in self.kinds and _core.ew_supported(self.code, code)


_ALL = "biufc"
_NUM = "iufc"
_INT = "iu"
_FLT = "f"
_FC = "fc"

# The one table of elementwise ops. Names are lax's (snake_case XLA op names).
OPS = {op.name: op for op in [
    # unary
    ElementwiseOp("neg", "NEG", 1, _NUM),
    ElementwiseOp("abs", "ABS", 1, _ALL, "real"),
    ElementwiseOp("sign", "SIGN", 1, _NUM),
    ElementwiseOp("sign_np", "SIGN_NP", 1, _NUM),   # NumPy's: sign(-0.0) = +0.0
    ElementwiseOp("not", "NOT", 1, "biu"),
    ElementwiseOp("ceil", "CEIL", 1, _FLT),
    ElementwiseOp("floor", "FLOOR", 1, _FLT),
    ElementwiseOp("round", "ROUND", 1, _FLT),
    ElementwiseOp("round_nearest_even", "ROUND_EVEN", 1, _FLT),
    ElementwiseOp("rint", "ROUND_EVEN", 1, _FC),
    ElementwiseOp("trunc", "TRUNC", 1, _FLT),
    ElementwiseOp("exp", "EXP", 1, _FC),
    ElementwiseOp("expm1", "EXPM1", 1, _FC),
    ElementwiseOp("exp2", "EXP2", 1, _FC),
    ElementwiseOp("log", "LOG", 1, _FC),
    ElementwiseOp("log1p", "LOG1P", 1, _FC),
    ElementwiseOp("log2", "LOG2", 1, _FC),
    ElementwiseOp("log10", "LOG10", 1, _FC),
    ElementwiseOp("logistic", "LOGISTIC", 1, _FC),
    ElementwiseOp("tanh", "TANH", 1, _FC),
    ElementwiseOp("sin", "SIN", 1, _FC),
    ElementwiseOp("cos", "COS", 1, _FC),
    ElementwiseOp("tan", "TAN", 1, _FC),
    ElementwiseOp("asin", "ASIN", 1, _FC),
    ElementwiseOp("acos", "ACOS", 1, _FC),
    ElementwiseOp("atan", "ATAN", 1, _FC),
    ElementwiseOp("sinh", "SINH", 1, _FC),
    ElementwiseOp("cosh", "COSH", 1, _FC),
    ElementwiseOp("asinh", "ASINH", 1, _FC),
    ElementwiseOp("acosh", "ACOSH", 1, _FC),
    ElementwiseOp("atanh", "ATANH", 1, _FC),
    ElementwiseOp("sqrt", "SQRT", 1, _FC),
    ElementwiseOp("rsqrt", "RSQRT", 1, _FC),
    ElementwiseOp("cbrt", "CBRT", 1, _FLT),
    ElementwiseOp("square", "SQUARE", 1, _NUM),
    ElementwiseOp("is_finite", "IS_FINITE", 1, _ALL, "pred"),
    ElementwiseOp("is_nan", "IS_NAN", 1, _ALL, "pred"),
    ElementwiseOp("is_inf", "IS_INF", 1, _ALL, "pred"),
    ElementwiseOp("signbit", "SIGNBIT", 1, "biuf", "pred"),
    ElementwiseOp("population_count", "POPCNT", 1, _INT),
    ElementwiseOp("clz", "CLZ", 1, _INT),
    ElementwiseOp("real", "REAL", 1, _ALL, "real"),
    ElementwiseOp("imag", "IMAG", 1, _ALL, "real"),
    ElementwiseOp("conj", "CONJ", 1, _ALL),
    ElementwiseOp("copy", "COPY", 1, _ALL),
    # binary
    ElementwiseOp("add", "ADD", 2, _ALL),
    ElementwiseOp("sub", "SUB", 2, _NUM),
    ElementwiseOp("mul", "MUL", 2, _ALL),
    ElementwiseOp("div", "DIV", 2, _NUM),
    ElementwiseOp("rem", "REM", 2, "iuf"),
    ElementwiseOp("fmod", "FMOD", 2, "iuf"),
    ElementwiseOp("floor_div", "FLOOR_DIV", 2, "iuf"),
    ElementwiseOp("mod", "MOD", 2, "iuf"),
    ElementwiseOp("max", "MAX", 2, _ALL),
    ElementwiseOp("min", "MIN", 2, _ALL),
    ElementwiseOp("pow", "POW", 2, _NUM),
    ElementwiseOp("atan2", "ATAN2", 2, _FLT),
    ElementwiseOp("hypot", "HYPOT", 2, _FLT),
    ElementwiseOp("copysign", "COPYSIGN", 2, _FLT),
    ElementwiseOp("logaddexp", "LOGADDEXP", 2, _FLT),
    ElementwiseOp("nextafter", "NEXTAFTER", 2, _FLT),
    ElementwiseOp("complex", "COMPLEX", 2, _FLT, "complex"),
    ElementwiseOp("and", "AND", 2, "biu"),
    ElementwiseOp("or", "OR", 2, "biu"),
    ElementwiseOp("xor", "XOR", 2, "biu"),
    ElementwiseOp("shift_left", "SHL", 2, _INT),
    ElementwiseOp("shift_right_logical", "SHR_LOGICAL", 2, _INT),
    ElementwiseOp("shift_right_arithmetic", "SHR_ARITH", 2, _INT),
    ElementwiseOp("eq", "EQ", 2, _ALL, "pred"),
    ElementwiseOp("ne", "NE", 2, _ALL, "pred"),
    ElementwiseOp("lt", "LT", 2, _ALL, "pred"),
    ElementwiseOp("le", "LE", 2, _ALL, "pred"),
    ElementwiseOp("gt", "GT", 2, _ALL, "pred"),
    ElementwiseOp("ge", "GE", 2, _ALL, "pred"),
    ElementwiseOp("eq_total", "EQ_TOTAL", 2, "biuf", "pred"),
    ElementwiseOp("ne_total", "NE_TOTAL", 2, "biuf", "pred"),
    ElementwiseOp("lt_total", "LT_TOTAL", 2, "biuf", "pred"),
    ElementwiseOp("le_total", "LE_TOTAL", 2, "biuf", "pred"),
    ElementwiseOp("gt_total", "GT_TOTAL", 2, "biuf", "pred"),
    ElementwiseOp("ge_total", "GE_TOTAL", 2, "biuf", "pred"),
    # ternary
    ElementwiseOp("select", "SELECT", 3, _ALL),
    ElementwiseOp("clamp", "CLAMP", 3, "biuf"),
]}


# ---------------------------------------------------------------------- shape rules
def broadcast_shapes(*shapes, op="broadcast_shapes"):
    """NumPy broadcasting of shapes; ValueError naming the op and the shapes if they
    don't broadcast. ``broadcast_shapes((2, 1), (1, 3)) == (2, 3)``."""
    if len(shapes) == 2 and shapes[0] == shapes[1]:
        return tuple(shapes[0])
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        off = ndim - len(s)
        for i, d in enumerate(s):
            cur = out[off + i]
            if d == cur or d == 1:
                continue
            if cur == 1:
                out[off + i] = d
            else:
                raise ValueError(f"{op}: operands could not be broadcast together with shapes "
                                 f"{' '.join(str(tuple(x)) for x in shapes)}")
    return tuple(out)


def lax_broadcast(op, shapes, broadcast_dimensions=None):
    """XLA's broadcasting rule for a lax binary/ternary op (seed 003).

    Returns (result shape, per-operand shape as seen by the kernel: the lower-rank operand
    reshaped with size-1 dims so that NumPy-style degenerate broadcasting finishes the job).
    Raises ValueError quoting the op, the shapes and broadcast_dimensions.
    """
    shapes = [tuple(s) for s in shapes]
    ranks = [len(s) for s in shapes]
    hi = max(ranks)
    if broadcast_dimensions is not None and len(shapes) == 2:
        bd = tuple(int(d) for d in broadcast_dimensions)
        lo_i = 0 if ranks[0] < ranks[1] else 1 if ranks[1] < ranks[0] else None
        if lo_i is None:
            if bd not in ((), tuple(range(hi))):
                raise ValueError(f"lax.{op}: broadcast_dimensions {bd} given for operands of "
                                 f"equal rank {shapes[0]} and {shapes[1]}")
        else:
            low = shapes[lo_i]
            if len(bd) != len(low):
                raise ValueError(f"lax.{op}: broadcast_dimensions {bd} must have one entry per "
                                 f"dim of the lower-rank operand {low}")
            if any(b < 0 or b >= hi for b in bd):
                raise ValueError(f"lax.{op}: broadcast_dimensions {bd} out of range for rank "
                                 f"{hi}")
            if any(bd[i] >= bd[i + 1] for i in range(len(bd) - 1)):
                raise ValueError(f"lax.{op}: broadcast_dimensions {bd} must be strictly "
                                 f"increasing")
            high = shapes[1 - lo_i]
            expanded = [1] * hi
            for i, b in enumerate(bd):
                if low[i] != high[b] and low[i] != 1 and high[b] != 1:
                    raise ValueError(f"lax.{op}: dim {i} of {low} (size {low[i]}) does not "
                                     f"match dim {b} of {high} (size {high[b]}) under "
                                     f"broadcast_dimensions {bd}")
                expanded[b] = low[i]
            shapes[lo_i] = tuple(expanded)
            ranks[lo_i] = hi
    for s, r in zip(shapes, ranks):
        if r != hi and r != 0:
            raise ValueError(f"lax.{op}: operands of different rank need broadcast_dimensions "
                             f"(shapes {' and '.join(str(x) for x in shapes)})")
    out = [1] * hi
    for s in shapes:
        if len(s) == 0:
            continue
        for i, d in enumerate(s):
            if d == out[i] or d == 1:
                continue
            if out[i] == 1:
                out[i] = d
            else:
                raise ValueError(f"lax.{op}: shapes {' and '.join(str(x) for x in shapes)} "
                                 f"are not compatible (dim {i}: {out[i]} vs {d})")
    return tuple(out), shapes


# ---------------------------------------------------------------------- dtype rules
_PY_SCALARS = (bool, int, float, complex)


def _promote(values):
    """NumPy 2 promotion (NEP 50: Python scalars are weak) over tensors and scalars."""
    args = []
    for v in values:
        if isinstance(v, Tensor):
            args.append(v.dtype)
        elif isinstance(v, _PY_SCALARS):
            args.append(v)
        else:
            args.append(v.dtype)
    key = tuple(a if isinstance(a, np.dtype) else type(a) for a in args)
    hit = _PROMOTE_CACHE.get(key)
    if hit is not None:
        return hit
    if any(a == DTYPES[10] for a in args if isinstance(a, np.dtype)) and \
            any(not isinstance(a, np.dtype) for a in args):
        # ml_dtypes' bfloat16 does not take part in NEP 50; apply the weak-scalar rule
        # NumPy applies to float16: a Python bool/int/float keeps bfloat16, complex -> c64.
        strong = [a for a in args if isinstance(a, np.dtype)]
        dt = strong[0] if len(strong) == 1 else _promote(
            [v for v in values if not isinstance(v, _PY_SCALARS)])
        if dt == DTYPES[10] and any(isinstance(a, complex) for a in args):
            dt = DTYPES[13]
        _PROMOTE_CACHE[key] = dt
        return dt
    try:
        if all(not isinstance(a, np.dtype) for a in args):
            dt = np.result_type(*[np.asarray(a) for a in args])
        else:
            dt = np.result_type(*args)
    except TypeError as e:
        raise TypeError(f"cannot promote {', '.join(str(k) for k in key)}: {e}") from None
    dt = as_dtype(dt)
    _PROMOTE_CACHE[key] = dt
    return dt


_PROMOTE_CACHE = {}


def _int_scalar_check(op, value, dtype):
    if isinstance(value, int) and not isinstance(value, bool) and dtype.kind in "iu":
        info = np.iinfo(dtype)
        if value < info.min or value > info.max:
            raise OverflowError(f"{op}: Python integer {value} out of bounds for {dtype}")


def _as_operand(op, v, code, rec=None):
    """v (Tensor, NumPy array, list, Python scalar) as a Tensor of dtype ``code``; with a
    recorder ``rec``, as an instruction of the graph being built."""
    if rec is not None:
        return _trace.operand(rec, v, code, op)
    if isinstance(v, Tensor):
        if CODE_OF[v.dtype] == code:
            return _tensor.strided(v)
        out = _tensor.empty(v.shape, code)
        _tensor.convert_into(out, _tensor.strided(v))
        return out
    if isinstance(v, _PY_SCALARS):
        _int_scalar_check(op, v, DTYPES[code])
        return _tensor.scalar_tensor(v, code)
    from xarr._creation import asarray
    return _as_operand(op, asarray(v), code)


def _to_tensor_or_scalar(v):
    if isinstance(v, (Tensor, Traced) + _PY_SCALARS):
        return v
    return _asarray(v)  # NumPy scalars are strongly typed: 0-d tensors


def _asarray(v):
    from xarr._creation import asarray
    return asarray(v)


def output_layout_for(shape, operands):
    """minor_to_major for a result of ``shape``: the first full-shape operand's layout, so
    column-major inputs give column-major outputs; None (row-major) otherwise."""
    for v in operands:
        if isinstance(v, Tensor) and v.shape == shape and v.size > 1:
            if v.flags["C_CONTIGUOUS"] or _tensor.is_tiled(v):
                return None
            return _tensor.minor_to_major_of(v)
    return None


def _check_out(op, out, shape, code):
    if not isinstance(out, Tensor):
        raise TypeError(f"{op}: out must be an xarr Tensor, got {type(out).__name__}")
    if out.shape != shape:
        raise ValueError(f"{op}: out has shape {out.shape}, the result has shape {shape}")
    if CODE_OF[out.dtype] != code:
        raise TypeError(f"{op}: out has dtype {out.dtype}, the result is {DTYPES[code]}")
    if not out.flags["WRITEABLE"]:
        raise ValueError(f"{op}: out is read-only")
    if _tensor.is_tiled(out):
        raise ValueError(f"{op}: out= must be a strided tensor, got a tiled one")


def _execute(opdef, code, inputs, shape, out, op_label, rec=None):
    """Runs opdef's kernel for value dtype ``code`` over operand tensors (already of that
    dtype, broadcastable to ``shape``) into ``out`` (new when None); with a recorder
    ``rec``, records it instead (inputs are then instructions)."""
    if rec is not None:
        res = _trace.elementwise(rec, opdef, code, inputs, shape)
        if out is None:
            return res
        if rec.kind != "lazy":
            raise TypeError(f"{op_label}: out= is not supported while tracing (xa.jit); "
                            f"return the result instead")
        _check_out(op_label, out, shape, CODE_OF[res.dtype])
        value = res.concrete()
        _trace.before_write(out)
        _tensor.convert_into(out, value)
        return out
    rcode = opdef.result_code(code)
    if opdef.kernel == "SELECT":
        rcode = code
    if out is None:
        out = _tensor.empty(shape, rcode, output_layout_for(shape, inputs))
    else:
        _check_out(op_label, out, shape, rcode)
        _trace.before_write(out)
        # Inputs that overlap the output without being exactly it are copied first.
        inputs = [x if (not _tensor.shares_buffer(x, out) or _tensor.same_view(x, out))
                  else _tensor.copy_dense(x) for x in inputs]
    if out.size:
        _tensor.run_elementwise(opdef.code, code, out, inputs)
    return out


# ---------------------------------------------------------------------- lax frontend
_SCALAR_KIND = {bool: "b", int: "i", float: "f", complex: "c"}
_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}


def lax_scalar(op, value, code):
    """Python scalar ``value`` as a 0-d tensor of dtype ``code`` under lax's rules: no
    promotion to a higher kind (``2.7`` cannot be an s32 operand: TypeError) and integers
    in range (``300`` for an s8: OverflowError), each error naming ``op``."""
    sk = _SCALAR_KIND[type(value)] if type(value) in _SCALAR_KIND else "c"
    if _KIND_RANK[sk] > _KIND_RANK[KINDS[code]]:
        raise TypeError(f"{op}: Python {type(value).__name__} {value!r} cannot be an "
                        f"operand of element type {XLA_NAMES[code]} (no implicit "
                        f"promotion in lax)")
    _int_scalar_check(op, value, DTYPES[code])
    return _tensor.scalar_tensor(value, code)


def lax_apply(name, *operands, broadcast_dimensions=None, label=None):
    """The strict XLA-semantics call of op ``name`` (xa.lax.*): equal element types or a
    TypeError naming them; XLA broadcasting (see lax_broadcast). Python scalars are weak
    but may not be of a higher kind than the tensors (``lax.add(int32, 2.7)`` raises)."""
    opdef = OPS[name]
    name = label or name
    rec = recorder(operands)
    ts = []
    for v in operands:
        if isinstance(v, (Tensor, Traced)):
            ts.append(v)
        elif isinstance(v, (np.ndarray, np.generic)):
            ts.append(_asarray(v))
        elif isinstance(v, _PY_SCALARS):
            ts.append(None)
        else:
            raise TypeError(f"lax.{name}: operands must be tensors or scalars, got "
                            f"{type(v).__name__}")
    dts = {CODE_OF[t.dtype] for t in ts if t is not None}
    check = [t for t in ts if t is not None]
    if opdef.kernel == "SELECT":
        pred = ts[0]
        if pred is None or CODE_OF[pred.dtype] != 0:
            raise TypeError(f"lax.select: pred must be a pred (bool) tensor, got "
                            f"{'a Python scalar' if pred is None else pred.dtype}")
        check = [t for t in ts[1:] if t is not None]
        dts = {CODE_OF[t.dtype] for t in check}
    if len(dts) > 1:
        names = ", ".join(f"{XLA_NAMES[CODE_OF[t.dtype]]}[{','.join(map(str, t.shape))}]"
                          for t in check)
        raise TypeError(f"lax.{name}: operands must have the same element type, got {names}")
    if not dts:
        raise TypeError(f"lax.{name}: at least one operand must be a tensor")
    code = dts.pop()
    if not opdef.accepts(code):
        raise TypeError(f"lax.{name}: not defined for element type {XLA_NAMES[code]} "
                        f"({DTYPES[code]})")
    full = []
    for v, t in zip(operands, ts):
        if t is None:
            full.append(lax_scalar(f"lax.{name}", v, code))
        else:
            full.append(_tensor.strided(t) if type(t) is Tensor else t)
    shape, kshapes = lax_broadcast(name, [t.shape for t in full], broadcast_dimensions)
    full = [t if t.shape == ks or t.ndim == 0 else t.reshape(ks)
            for t, ks in zip(full, kshapes)]
    if rec is not None:
        full = [_trace.instr_of(rec, t, f"lax.{name}") for t in full]
    return _execute(opdef, code, full, shape, None, f"lax.{name}", rec)


# ---------------------------------------------------------------------- NumPy frontend
@dataclass(frozen=True)
class NumpyOp:
    """A NumPy-frontend function defined on top of an ElementwiseOp.

    to_float: integer/bool operands are computed in floating point (NumPy's loops:
              int8 -> float16, int16 -> float32, wider -> float64; 'f64' forces float64)
    kernel_by_kind: per-kind override of the lax op (right_shift is logical on unsigned)
    logical: operands are converted to bool first (logical_and ...)
    """

    name: str
    lax: str
    to_float: str = ""
    kernel_by_kind: tuple = ()
    logical: bool = False
    bool_as: str = ""       # compute bool operands in this dtype (NumPy's int8 loops)
    result_as: str = ""     # convert the result to this dtype (bitwise_count -> uint8)
    no_bool: bool = False   # NumPy has no bool loop (TypeError)


NUMPY_OPS = {op.name: op for op in [
    NumpyOp("add", "add"), NumpyOp("subtract", "sub"), NumpyOp("multiply", "mul"),
    NumpyOp("divide", "div", to_float="f64"),
    NumpyOp("floor_divide", "floor_div", bool_as="int8"),
    NumpyOp("remainder", "mod", bool_as="int8"), NumpyOp("fmod", "fmod", bool_as="int8"),
    NumpyOp("power", "pow", bool_as="int8"),
    NumpyOp("maximum", "max"), NumpyOp("minimum", "min"),
    NumpyOp("arctan2", "atan2", to_float="loops"), NumpyOp("hypot", "hypot", to_float="loops"),
    NumpyOp("copysign", "copysign", to_float="loops"),
    NumpyOp("logaddexp", "logaddexp", to_float="loops"),
    NumpyOp("nextafter", "nextafter", to_float="loops"),
    NumpyOp("bitwise_and", "and"), NumpyOp("bitwise_or", "or"), NumpyOp("bitwise_xor", "xor"),
    NumpyOp("logical_and", "and", logical=True), NumpyOp("logical_or", "or", logical=True),
    NumpyOp("logical_xor", "xor", logical=True),
    NumpyOp("left_shift", "shift_left", bool_as="int8"),
    NumpyOp("right_shift", "shift_right_arithmetic", bool_as="int8",
            kernel_by_kind=(("u", "shift_right_logical"),)),
    NumpyOp("equal", "eq"), NumpyOp("not_equal", "ne"), NumpyOp("less", "lt"),
    NumpyOp("less_equal", "le"), NumpyOp("greater", "gt"), NumpyOp("greater_equal", "ge"),
    # unary
    NumpyOp("negative", "neg"), NumpyOp("positive", "copy", no_bool=True), NumpyOp("absolute", "abs"),
    NumpyOp("sign", "sign_np"), NumpyOp("invert", "not"), NumpyOp("logical_not", "not",
                                                                logical=True),
    NumpyOp("ceil", "ceil", to_float="keepint"), NumpyOp("floor", "floor", to_float="keepint"),
    NumpyOp("trunc", "trunc", to_float="keepint"),
    NumpyOp("rint", "rint", to_float="loops"),
    NumpyOp("exp", "exp", to_float="loops"), NumpyOp("expm1", "expm1", to_float="loops"),
    NumpyOp("exp2", "exp2", to_float="loops"), NumpyOp("log", "log", to_float="loops"),
    NumpyOp("log1p", "log1p", to_float="loops"), NumpyOp("log2", "log2", to_float="loops"),
    NumpyOp("log10", "log10", to_float="loops"), NumpyOp("sin", "sin", to_float="loops"),
    NumpyOp("cos", "cos", to_float="loops"), NumpyOp("tan", "tan", to_float="loops"),
    NumpyOp("arcsin", "asin", to_float="loops"), NumpyOp("arccos", "acos", to_float="loops"),
    NumpyOp("arctan", "atan", to_float="loops"), NumpyOp("sinh", "sinh", to_float="loops"),
    NumpyOp("cosh", "cosh", to_float="loops"), NumpyOp("tanh", "tanh", to_float="loops"),
    NumpyOp("arcsinh", "asinh", to_float="loops"), NumpyOp("arccosh", "acosh",
                                                           to_float="loops"),
    NumpyOp("arctanh", "atanh", to_float="loops"), NumpyOp("sqrt", "sqrt", to_float="loops"),
    NumpyOp("cbrt", "cbrt", to_float="loops"), NumpyOp("square", "square", bool_as="int8"),
    NumpyOp("isfinite", "is_finite"), NumpyOp("isnan", "is_nan"), NumpyOp("isinf", "is_inf"),
    NumpyOp("signbit", "signbit"), NumpyOp("real", "real"), NumpyOp("imag", "imag"),
    NumpyOp("conjugate", "conj", bool_as="int8"),
    NumpyOp("bitwise_count", "population_count", bool_as="uint8", result_as="uint8"),
    NumpyOp("expit", "logistic", to_float="loops"),
]}


def _kind(dt):
    return KINDS[CODE_OF[dt]]


def _float_for(dt, rule):
    """The float dtype NumPy computes ``rule`` ops in for an integer/bool dtype."""
    if _kind(dt) in "fc" or rule == "":
        return dt
    if rule == "f64":
        return np.dtype(np.float64)
    if rule == "keepint":
        return dt
    # 'loops': NumPy's smallest float loop that holds the integer type safely.
    return np.result_type(dt, np.float16)


def numpy_apply(name, *operands, out=None):
    """The NumPy-semantics call of ``name`` (xa.add, operators ...): NumPy 2 promotion with
    weak Python scalars, NumPy broadcasting, output layout following the inputs."""
    if out is None and len(operands) == 1 and name in _UNARY_FAST:
        res = _tensor.unary_contiguous(operands[0], _UNARY_FAST[name])
        if res is not None:
            return res
    nop = NUMPY_OPS[name]
    vals = [_to_tensor_or_scalar(v) for v in operands]
    rec = recorder(vals)
    if nop.lax in _COMPARISONS:
        vals = _widen_for_out_of_range_ints(vals)
    dt = _promote(vals)
    if nop.logical:
        dt = np.dtype(bool)
    else:
        dt = _float_for(dt, nop.to_float)
        if nop.to_float == "keepint" and _kind(dt) in "biu":
            # NumPy 2: floor/ceil/trunc of integers return the integers unchanged.
            return numpy_apply("positive", *operands, out=out) if dt != np.bool_ else \
                _execute(OPS["copy"], 0, [_as_operand(name, vals[0], 0, rec)],
                         vals[0].shape, out, f"xa.{name}", rec)
        if dt == np.bool_ and nop.no_bool:
            raise TypeError(f"xa.{name}: not supported for bool inputs")
        if dt == np.bool_ and nop.bool_as:
            dt = np.dtype(nop.bool_as)
    if nop.lax == "pow" and _kind(dt) in "iu":
        _check_no_negative_int_exponent(vals[1])
    if name == "bitwise_count" and _kind(dt) == "i":
        vals = [numpy_apply("absolute", vals[0])]  # NumPy counts the bits of |x|
    lax_name = nop.lax
    for kind, alt in nop.kernel_by_kind:
        if dt.kind == kind:
            lax_name = alt
    opdef = OPS[lax_name]
    code = CODE_OF[dt]
    if not opdef.accepts(code):
        raise TypeError(f"xa.{name}: not supported for {dt} inputs")
    shape = broadcast_shapes(*[np.shape(v) if not isinstance(v, Tensor) else v.shape
                               for v in vals], op=f"xa.{name}")
    ts = [_as_operand(f"xa.{name}", v, code, rec) for v in vals]
    if nop.result_as:
        res = _execute(opdef, code, ts, shape, None, f"xa.{name}", rec)
        final = np.dtype(nop.result_as)
        if out is None or rec is not None:
            return res.astype(final) if out is None else \
                _execute(OPS["copy"], CODE_OF[final], [_trace.operand(rec, res, CODE_OF[final],
                                                                      name)],
                         shape, out, f"xa.{name}", rec)
        _check_out(f"xa.{name}", out, shape, CODE_OF[final])
        _tensor.convert_into(out, res)
        return out
    return _execute(opdef, code, ts, shape, out, f"xa.{name}", rec)


_COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge"}


def _widen_for_out_of_range_ints(vals):
    """NumPy 2 compares an integer tensor with any Python int exactly, even one outside the
    tensor's range (``int8_tensor < 300`` is all True): such a scalar is given a wide
    dtype (int64, uint64 or float64) so promotion computes in a type that holds both."""
    tensors = [v for v in vals if isinstance(v, (Tensor, Traced))]
    out = []
    for v in vals:
        if isinstance(v, int) and not isinstance(v, bool) and tensors and \
                all(_kind(t.dtype) in "iu" for t in tensors):
            fits = all(np.iinfo(t.dtype).min <= v <= np.iinfo(t.dtype).max for t in tensors)
            if not fits:
                if -2**63 <= v < 2**63 and not (v < 0 and any(
                        t.dtype == np.uint64 for t in tensors)):
                    wide = np.dtype(np.int64)
                elif 0 <= v < 2**64:
                    wide = np.dtype(np.uint64)
                else:
                    wide = np.dtype(np.float64)
                if any(t.dtype == np.uint64 for t in tensors) and wide == np.int64:
                    wide = np.dtype(np.float64)
                v = _tensor.scalar_tensor(float(v) if wide.kind == "f" else v, CODE_OF[wide])
        out.append(v)
    return out


def _check_no_negative_int_exponent(e):
    """NumPy raises for integer ** negative integer (lax.pow returns 0 instead)."""
    if isinstance(e, int) and not isinstance(e, bool):
        neg = e < 0
    elif isinstance(e, Tensor) and _kind(e.dtype) == "i" and e.size:
        neg = bool(np.asarray(e).min() < 0)  # validation only; reductions come with issue 4
    else:
        neg = False
    if neg:
        raise ValueError("xa.power: integers to negative integer powers are not allowed")


# Hooks the Cython tensor type calls for operator slow paths.
def binary(name, a, b):
    try:
        return numpy_apply(name, a, b)
    except TypeError:
        if not isinstance(a, Tensor) and not _is_array_like(a):
            return NotImplemented
        if not isinstance(b, Tensor) and not _is_array_like(b):
            return NotImplemented
        raise


def _is_array_like(v):
    return isinstance(v, (list, tuple, np.ndarray, np.generic) + _PY_SCALARS) or \
        hasattr(v, "__dlpack__") or hasattr(v, "__array__")


def unary(name, x):
    return numpy_apply(name, x)


def inplace(name, target, other):
    """target <op>= other, NumPy's rules: the result must cast to target's dtype under
    'same_kind', and target's shape may not grow."""
    if not target.flags["WRITEABLE"]:
        raise ValueError(f"xa.{name}: in-place target is read-only")
    other_v = _to_tensor_or_scalar(other)
    res_dt = _promote([target, other_v])
    nop = NUMPY_OPS[name]
    res_dt = _float_for(res_dt, nop.to_float)
    if res_dt == np.bool_ and nop.bool_as:
        res_dt = np.dtype(nop.bool_as)
    if not np.can_cast(res_dt, target.dtype, "same_kind"):
        raise TypeError(f"xa.{name}: cannot cast the result {res_dt} to the in-place "
                        f"target's {target.dtype} under casting rule 'same_kind'")
    shape = broadcast_shapes(target.shape, other_v.shape if isinstance(other_v, Tensor)
                             else np.shape(other_v), op=f"xa.{name}")
    if shape != target.shape:
        raise ValueError(f"xa.{name}: non-broadcastable output operand with shape "
                         f"{target.shape} doesn't match the broadcast shape {shape}")
    if res_dt == target.dtype and not _tensor.is_tiled(target):
        numpy_apply(name, target, other_v, out=target)
        return target
    result = numpy_apply(name, target, other_v)
    setitem(target, Ellipsis, result)
    return target


def astype(x, code):
    rec = recorder([x])
    if rec is not None:
        return _trace.convert(rec, x, code)
    out = _tensor.empty(x.shape, code, output_layout_for(x.shape, [x]))
    if out.size:
        _tensor.convert_into(out, _tensor.strided(x))
    return out


def setitem(target, key, value):
    """target[key] = value (basic indexing; value broadcast and cast unsafely like NumPy)."""
    if not target.flags["WRITEABLE"]:
        raise ValueError("assignment destination is read-only")
    if type(value) is Traced:
        value = value.concrete()
    _trace.before_write(target)
    if _tensor.is_tiled(target):
        from xarr._ops import layout as _layout
        tmp = _layout.untile(target)
        setitem(tmp, key, value)
        _layout.retile_into(target, tmp)
        return
    from xarr._ops import indexing as _indexing
    if _indexing.is_advanced(key):
        _indexing.setitem(target, key, value)
        return
    view = _tensor.basic_getitem(target, key)
    if not isinstance(value, Tensor):
        if isinstance(value, _PY_SCALARS):
            _int_scalar_check("setitem", value, view.dtype)
            if view.size:
                _tensor.fill(view, value)
            return
        value = _asarray(value)
    value = _tensor.strided(value)
    vshape = value.shape
    while len(vshape) > view.ndim and vshape[0] == 1:
        vshape = vshape[1:]
    if vshape != value.shape:
        value = value.reshape(vshape)
    broadcast_shapes(view.shape, vshape, op="setitem")
    if broadcast_shapes(view.shape, vshape) != view.shape:
        raise ValueError(f"could not broadcast input of shape {value.shape} into shape "
                         f"{view.shape}")
    if _tensor.shares_buffer(value, view) and not _tensor.same_view(value, view):
        value = _tensor.copy_dense(value)
    if view.size:
        _tensor.convert_into(view, value)


def advanced_getitem(t, key):
    """Integer-array / boolean-mask indexing (xarr/_ops/indexing.py)."""
    from xarr._ops import indexing as _indexing
    return _indexing.advanced_getitem(t, key)


def matmul(a, b):
    return NotImplemented


def _fast_entries():
    """(kernel code, dtype, result dtype) triples where the compiled operator fast path
    gives exactly NumPy's result for same-dtype, same-shape tensors."""
    entries = []
    same = {"ADD": "biufc", "SUB": "iufc", "MUL": "biufc", "DIV": "fc",
            "FLOOR_DIV": "iuf", "MOD": "iuf", "AND": "biu", "OR": "biu", "XOR": "biu"}
    pred = {"EQ", "NE", "LT", "LE", "GT", "GE"}
    for kname, kinds in same.items():
        for code, dt in enumerate(DTYPES):
            if KINDS[code] in kinds:
                entries.append((KERNELS[kname][0], code, code))
    for kname in pred:
        for code in range(len(DTYPES)):
            entries.append((KERNELS[kname][0], code, 0))
    return entries


def _unary_fast_table():
    """{NumPy function name: tuple over dtype codes of (kernel op, result code) or None}:
    the one-operand functions and dtypes for which numpy_apply's general path ends in
    exactly lax op ``kernel`` on the operand's own dtype (no conversion to float, no
    bool or integer special case). E.g. exp on float32 is (EXP, float32); exp on int32
    (computed in float64) and floor on int32 (NumPy returns the ints) are None."""
    table = {}
    for name, nop in NUMPY_OPS.items():
        if nop.logical or nop.result_as or name == "bitwise_count":
            continue
        entries = []
        for code, dt in enumerate(DTYPES):
            lax_name = nop.lax
            for kind, alt in nop.kernel_by_kind:
                if dt.kind == kind:
                    lax_name = alt
            opdef = OPS[lax_name]
            ok = (opdef.arity == 1 and opdef.accepts(code)
                  and _float_for(dt, nop.to_float) == dt
                  and not (nop.to_float == "keepint" and _kind(dt) in "biu")
                  and not (dt == np.bool_ and (nop.no_bool or nop.bool_as)))
            entries.append((opdef.code, opdef.result_code(code)) if ok else None)
        if any(entries):
            table[name] = tuple(entries)
    return table


def reshape(x, shape):
    from xarr._ops import layout as _layout
    return _layout.reshape(x, shape)


def relayout(x, layout):
    from xarr._ops import layout as _layout
    return _layout.relayout(x, layout)


def untile(x):
    from xarr._ops import layout as _layout
    return _layout.untile(x)


import sys as _sys  # noqa: E402

_tensor._register_frontend(_sys.modules[__name__], _fast_entries())
_UNARY_FAST = _unary_fast_table()
