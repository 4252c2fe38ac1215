"""Elementwise operations: the shape and dtype rules, and the two frontends built on the
op registry's rows (xarr/_registry.py ELEMENTWISE).

* ``lax_apply(name, *operands)`` - XLA's strict semantics (``xa.lax.*``): equal element
  types or a TypeError, XLA broadcasting (``lax_broadcast``);
* ``numpy_apply(name, *operands)`` - NumPy 2's semantics (``xa.*`` and the operators):
  promotion with weak Python scalars (``promote``), the NumPy function's own casting rules
  (its ``NumpyForm``: ``resolve_numpy``), NumPy broadcasting (``broadcast_shapes``),
  ``out=``, outputs that follow the inputs' layout.

Both end in ``execute``: one kernel call (xarr._bindings.elementwise), or, when a graph is
recording (xa.jit, xa.lazy), one instruction. The shape rules, apart from the kernels:

* ``broadcast_shapes`` - NumPy's rule for ``xa.*`` and operators:
  ``(2, 1), (1, 3) -> (2, 3)``; ``(4,), (3, 1) -> (3, 4)``.
* ``lax_broadcast`` - XLA's rule (seed 003) for ``xa.lax.*``: same rank with degenerate
  (size-1) dims, a scalar with anything, or an explicit ``broadcast_dimensions`` mapping
  of the lower-rank operand's dims into the higher-rank operand's, strictly increasing:
  ``f32[4] + f32[1,2]`` with ``(0,)`` -> ``[4,2]``; ``f32[1,2] + f32[4,3,1]`` with
  ``(1, 2)`` -> ``[4,3,2]``.

The operators' compiled fast paths (xarr/_tensor_fastpaths.pxi) take their tables from
``resolve_numpy`` too (``_fast_path_entries``, ``_unary_entries``), so they give exactly
what this module's rules give.
"""

import numpy as np

from xarr import _tensor
from xarr._bindings.elementwise import run_elementwise
from xarr._dispatch import FAST_SLOTS, register
from xarr._dtypes import CODE_OF, DTYPES, KINDS, XLA_NAMES, as_dtype, check_python_int
from xarr._graph import trace as _trace
from xarr._graph.trace import Traced, recorder
from xarr._ops.conversion import asarray
from xarr._registry import Op, elementwise_ops, numpy_functions, register as register_op
from xarr._tensor import Tensor

OPS = elementwise_ops()               # {lax-level name: ElementwiseOp}
NUMPY_FUNCTIONS = numpy_functions()   # {NumPy name: (NumpyForm, ElementwiseOp)}


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


def promote(values):
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
        dt = strong[0] if len(strong) == 1 else promote(
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


def as_operand(op, v, code, rec=None):
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
        check_python_int(op, v, DTYPES[code])
        return _tensor.scalar_tensor(v, code)
    return as_operand(op, asarray(v), code)


def to_tensor_or_scalar(v):
    """v itself when it is a tensor, a traced value or a Python scalar (weakly typed);
    anything else (NumPy scalars and arrays, lists) as a tensor."""
    if isinstance(v, (Tensor, Traced) + _PY_SCALARS):
        return v
    return asarray(v)  # NumPy scalars are strongly typed: 0-d tensors


def output_layout_for(shape, operands):
    """minor_to_major for a result of ``shape``: the first full-shape operand's layout, so
    column-major inputs give column-major outputs; None (row-major) otherwise
    (_tensor.result_m2m; the compiled fast paths apply the same rule)."""
    for v in operands:
        if isinstance(v, Tensor) and v.shape == shape and v.size > 1:
            return _tensor.result_layout_of(v)
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


def execute(opdef, code, inputs, shape, out, op_label, rec=None):
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
    if out is None:
        out = _tensor.empty(shape, rcode, output_layout_for(shape, inputs))
    else:
        _check_out(op_label, out, shape, rcode)
        _trace.before_write(out)
        # Inputs that overlap the output without being exactly it are copied first.
        inputs = [x if (not _tensor.shares_buffer(x, out) or _tensor.same_view(x, out))
                  else _tensor.copy_dense(x) for x in inputs]
    if out.size:
        run_elementwise(opdef.code, code, out, inputs)
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
    check_python_int(op, value, DTYPES[code])
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
            ts.append(asarray(v))
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
    return execute(opdef, code, full, shape, None, f"lax.{name}", rec)


class RoundingMethod:
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def lax_round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):
    """lax.round: round to integral values, half away from zero (XLA's Round) by default,
    or half to even with ``rounding_method=RoundingMethod.TO_NEAREST_EVEN``."""
    if int(rounding_method) == RoundingMethod.TO_NEAREST_EVEN:
        return lax_apply("round_nearest_even", x)
    if int(rounding_method) != RoundingMethod.AWAY_FROM_ZERO:
        raise ValueError(f"lax.round: unknown rounding_method {rounding_method!r}")
    return lax_apply("round", x)


def convert_element_type(operand, new_dtype):
    """lax.convert_element_type: float -> int truncates toward zero and saturates
    (NaN -> 0); x -> pred is x != 0; complex -> real drops the imaginary part (SPEC.md)."""
    if new_dtype is None:
        raise TypeError("lax.convert_element_type: new_dtype must be a dtype, got None (lax "
                        "has no default type)")
    if not isinstance(operand, (Tensor, Traced)):
        operand = asarray(operand)
    return operand.astype(as_dtype(new_dtype))


# ---------------------------------------------------------------------- NumPy frontend
def _float_for(dt, rule):
    """The float dtype NumPy computes ``rule`` ops in for an integer/bool dtype (for
    'at_least_f64', float_power's rule, for every dtype: float64, or complex128)."""
    if rule == "at_least_f64":
        return np.dtype(np.complex128 if KINDS[CODE_OF[dt]] == "c" else np.float64)
    if KINDS[CODE_OF[dt]] in "fc" or rule == "":
        return dt
    if rule == "f64":
        return np.dtype(np.float64)
    if rule == "keepint":
        return dt
    # 'loops': NumPy's smallest float loop that holds the integer type safely.
    return np.result_type(dt, np.float16)


def resolve_numpy(form, opdef, dt):
    """What NumPy function ``form`` (computed by ``opdef``) does with operands promoted to
    dtype ``dt``: (the op to run, the dtype it computes in, the result dtype), or None when
    NumPy returns integer operands unchanged (floor / ceil / trunc of integers). TypeError
    names the function when NumPy has no loop for ``dt``.
    Worked examples: exp of int16 -> (exp, float32, float32); divide of int32 -> (div,
    float64, float64); right_shift of uint8 -> (shift_right_logical, uint8, uint8);
    bitwise_count of bool -> (population_count, uint8, uint8); floor of int8 -> None.
    (Answers are remembered per function and dtype: every call of numpy_apply asks.)"""
    key = (form.name, dt)
    hit = _RESOLVED.get(key, _RESOLVED)
    if hit is not _RESOLVED:
        return hit
    hit = _resolve(form, opdef, dt)
    _RESOLVED[key] = hit
    return hit


_RESOLVED = {}


def _resolve(form, opdef, dt):
    if form.logical:
        dt = np.dtype(bool)
    else:
        dt = _float_for(dt, form.to_float)
        if form.to_float == "keepint" and KINDS[CODE_OF[dt]] in "biu":
            return None
        if dt == np.bool_ and form.no_bool:
            raise TypeError(f"xa.{form.name}: not supported for bool inputs")
        if dt == np.bool_ and form.bool_as:
            dt = np.dtype(form.bool_as)
    op = opdef
    for kind, alt in form.kernel_by_kind:
        if dt.kind == kind:
            op = OPS[alt]
    if not op.accepts(CODE_OF[dt]):
        raise TypeError(f"xa.{form.name}: not supported for {dt} inputs")
    final = np.dtype(form.result_as) if form.result_as else DTYPES[op.result_code(CODE_OF[dt])]
    return op, dt, final


def numpy_apply(name, *operands, out=None):
    """The NumPy-semantics call of ``name`` (xa.add, operators ...): NumPy 2 promotion with
    weak Python scalars, NumPy broadcasting, output layout following the inputs."""
    if out is None and len(operands) == 1:
        entries = _UNARY_FAST.get(name)
        if entries is None:
            entries = _UNARY_FAST[name] = _unary_entries(name)
        if entries:
            res = _tensor.unary_contiguous(operands[0], entries)
            if res is not None:
                return res
    if out is None and len(operands) == 2:
        a, b = operands
        if type(a) is Traced and type(b) is float:
            res = _lazy_float_op(name, a, b, False)
            if res is not None:
                return res
        elif type(b) is Traced and type(a) is float:
            res = _lazy_float_op(name, b, a, True)
            if res is not None:
                return res
    return numpy_apply_general(name, *operands, out=out)


def numpy_apply_general(name, *operands, out=None):
    """numpy_apply without its fast paths: the rules, step by step (tests compare the fast
    paths against it)."""
    form, opdef = NUMPY_FUNCTIONS[name]
    label = f"xa.{name}"
    vals = [to_tensor_or_scalar(v) for v in operands]
    rec = recorder(vals)
    if opdef.name in _COMPARISONS:
        vals = _widen_for_out_of_range_ints(vals)
    promoted = promote(vals)
    resolved = resolve_numpy(form, opdef, promoted)
    if resolved is None:     # NumPy 2: floor/ceil/trunc of integers return them unchanged
        if promoted != np.bool_:
            return numpy_apply("positive", *operands, out=out)
        return execute(OPS["copy"], 0, [as_operand(name, vals[0], 0, rec)], vals[0].shape,
                       out, label, rec)
    op, dt, final = resolved
    if form.int_exponent and KINDS[CODE_OF[dt]] in "iu":
        _check_no_negative_int_exponent(vals[1])
    if form.magnitude and KINDS[CODE_OF[dt]] == "i":
        vals = [numpy_apply("absolute", vals[0])]  # NumPy counts the bits of |x|
    code = CODE_OF[dt]
    shape = broadcast_shapes(*[np.shape(v) if not isinstance(v, Tensor) else v.shape
                               for v in vals], op=label)
    ts = [as_operand(label, v, code, rec) for v in vals]
    if final == DTYPES[op.result_code(code)]:
        return execute(op, code, ts, shape, out, label, rec)
    res = execute(op, code, ts, shape, None, label, rec)
    if out is None:
        return res.astype(final)
    if rec is not None:
        return execute(OPS["copy"], CODE_OF[final], [_trace.operand(rec, res, CODE_OF[final],
                                                                    name)],
                       shape, out, label, rec)
    _check_out(label, out, shape, CODE_OF[final])
    _tensor.convert_into(out, res)
    return out


_COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge"}


def _lazy_float_op(name, t, s, scalar_first):
    """The recording of NumPy function ``name`` over lazy value ``t`` and Python float
    ``s`` (``s`` first when scalar_first), or None for the general path. A time-stepping
    loop under xa.lazy() (``x = x * 0.99 + 0.5``) records through here: for a float or
    complex ``t`` the general path's promotion keeps t's dtype and broadcasting keeps its
    shape, so when the function computes and returns that dtype (_lazy_float_op_for) the
    instruction is the one the general path records, made without its generic steps."""
    instr = t.instr
    comp = instr.computation
    if comp.kind != "lazy" or _trace.STATE.stack:
        return None
    code = instr.type.code
    op = _LAZY_FLOAT_OPS.get((name, code))
    if op is None:
        op = _LAZY_FLOAT_OPS[(name, code)] = _lazy_float_op_for(name, t)
    if op is False:
        return None
    c = comp.scalar_constant(s, code)
    return _trace.elementwise(comp, op, code, [c, instr] if scalar_first else [instr, c],
                              instr.type.dims)


def _lazy_float_op_for(name, t):
    """The op recorded for ``name`` over t's dtype and a Python float when the general
    path records exactly one instruction of t's dtype and shape; False otherwise."""
    dt = t.dtype
    if name in _COMPARISONS or KINDS[CODE_OF[dt]] not in "fc" or promote([t, 1.0]) != dt:
        return False
    form, opdef = NUMPY_FUNCTIONS[name]
    if opdef.arity != 2:
        return False
    try:
        resolved = resolve_numpy(form, opdef, dt)
    except TypeError:          # (the general path raises it, naming the function)
        return False
    if resolved is None:
        return False
    op, computed, final = resolved
    if computed != dt or final != DTYPES[op.result_code(CODE_OF[dt])]:
        return False
    return op


_LAZY_FLOAT_OPS = {}      # (NumPy name, dtype code) -> op, or False: the general path


def _widen_for_out_of_range_ints(vals):
    """NumPy 2 compares an integer tensor with any Python int exactly, even one outside the
    tensor's range (``int8_tensor < 300`` is all True): such a scalar is given a wide
    dtype (int64, uint64 or float64) so promotion computes in a type that holds both."""
    tensors = [v for v in vals if isinstance(v, (Tensor, Traced))]
    out = []
    for v in vals:
        if isinstance(v, int) and not isinstance(v, bool) and tensors and \
                all(KINDS[CODE_OF[t.dtype]] in "iu" for t in tensors):
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
    elif isinstance(e, Tensor) and KINDS[CODE_OF[e.dtype]] == "i" and e.size:
        neg = bool(np.asarray(e).min() < 0)  # a value check, on NumPy's own min
    else:
        neg = False
    if neg:
        raise ValueError("xa.power: integers to negative integer powers are not allowed")


# ---------------------------------------------------------------------- entry points
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


def inplace(name, target, other):
    """target <op>= other, NumPy's rules: the result must cast to target's dtype under
    'same_kind', and target's shape may not grow."""
    if not target.flags["WRITEABLE"]:
        raise ValueError(f"xa.{name}: in-place target is read-only")
    other_v = to_tensor_or_scalar(other)
    form, opdef = NUMPY_FUNCTIONS[name]
    res_dt = resolve_numpy(form, opdef, promote([target, other_v]))[1]
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
    target[...] = result
    return target


def astype(x, code):
    rec = recorder([x])
    if rec is not None:
        return _trace.convert(rec, x, code)
    out = _tensor.empty(x.shape, code, output_layout_for(x.shape, [x]))
    if out.size:
        _tensor.convert_into(out, _tensor.strided(x))
    return out


# ---------------------------------------------------------------------- fast paths
def _direct(name, dt):
    """(kernel op code, result code) when NumPy function ``name`` on operands all of
    dtype ``dt`` is exactly one kernel on ``dt`` (no conversion, no value check, no
    special case), else None: the operators' and one-operand functions' fast paths run
    only such entries."""
    form, opdef = NUMPY_FUNCTIONS[name]
    code = CODE_OF[dt]
    try:
        resolved = resolve_numpy(form, opdef, dt)
    except TypeError:
        return None
    if resolved is None:
        return None
    op, cdt, final = resolved
    if cdt != dt or form.int_exponent and KINDS[code] in "iu" or \
            form.magnitude and KINDS[code] == "i" or final != DTYPES[op.result_code(code)]:
        return None
    return op.code, op.result_code(code)


def _fast_path_entries():
    """(slot, dtype, kernel op, result dtype) for the operators' compiled fast path
    (xarr/_tensor_fastpaths.pxi; slots are xarr/_dispatch.py's FAST_SLOTS)."""
    entries = []
    for slot, name in enumerate(FAST_SLOTS):
        for code, dt in enumerate(DTYPES):
            d = _direct(name, dt)
            if d is not None:
                entries.append((slot, code, d[0], d[1]))
    return entries


def _unary_entries(name):
    """For NumPy function ``name``: a tuple over dtype codes of (kernel op, result code) or
    None, the dtypes for which numpy_apply's general path on one operand ends in exactly
    that kernel on the operand's own dtype (the one-operand fast path runs only those);
    () for functions of two operands or with no such dtype. E.g. exp on float32 is (EXP,
    float32); exp on int32 (computed in float64) and floor on int32 (NumPy returns the
    ints) are None. Computed on a function's first call (_UNARY_FAST)."""
    form, opdef = NUMPY_FUNCTIONS[name]
    if opdef.arity != 1:
        return ()
    entries = tuple(_direct(name, dt) for dt in DTYPES)
    return entries if any(entries) else ()


def unary_fast_table():
    """{NumPy function name: _unary_entries(name)} for every one-operand function with a
    fast path (for tests: numpy_apply fills _UNARY_FAST one function at a time)."""
    return {name: e for name in NUMPY_FUNCTIONS if (e := _unary_entries(name))}


_UNARY_FAST = {}


# ConvertElementType: an elementwise graph op of its own (its "kernel" is the conversion
# table of every elementwise ISA table; the fused executor runs it as FUSED_CONVERT).
register_op(Op("convert", "elementwise"))
_tensor.register_fast_paths(_fast_path_entries())
register(numpy_apply=numpy_apply, binary=binary, inplace=inplace, astype=astype,
         unary_entries=_unary_entries)
