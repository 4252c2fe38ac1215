"""Computations given as Python callables (seed 004: Map, Call, Conditional, While, Tuple,
OptimizationBarrier, CustomCall), exported through ``xa.lax``.

Inside ``xa.jit`` each callable is traced into a sub-computation of the module (values of
the enclosing function it uses are lifted into extra operands) and one instruction
(``map``, ``call``, ``conditional``, ``while``, ``opt-barrier``, ``custom-call``) is
recorded. Eagerly the same functions run directly: ``cond`` calls the chosen branch,
``while_loop`` loops in Python, ``map`` compiles its computation into one fused kernel.
"""

import ctypes
import operator

import numpy as np

from xarr import _tensor
from xarr._dtypes import CODE_OF, as_dtype
from xarr._graph.compile import compiled_computation, unaliased
from xarr._graph.ir import Instruction, TensorType, type_text
from xarr._graph.jit import Jitted
from xarr._graph.pytree import flatten, unflatten
from xarr._graph.trace import Traced, instr_of, recorder, trace_sub, tracing
from xarr._ops.conversion import asarray
from xarr._ops.elementwise import lax_apply
from xarr._registry import Op, elementwise_ops, register
from xarr._shape import Shape, TupleShape
from xarr._tensor import Tensor


def _traced_comp(values):
    """The computation being traced that an op on ``values`` belongs to (not lazy)."""
    comp = recorder(values)
    if comp is None or comp.kind == "lazy":
        comp = tracing()
    return comp


def _as_value(x, where):
    if isinstance(x, (Tensor, Traced)):
        return x
    try:
        return asarray(x)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{where}: operands must be tensors or scalars, got "
                        f"{type(x).__name__}") from e


def _concrete(x):
    return x.concrete() if type(x) is Traced else x


def _fresh(out, inputs):
    """An eager result with every leaf that IS one of ``inputs`` copied (as the compiled
    path does: a branch or loop that passes an operand through must not hand the caller
    its own buffer back)."""
    ids = {id(x) for x in inputs}
    leaves = []
    struct = flatten(out, leaves)
    if not any(id(x) in ids for x in leaves):
        return out
    return unflatten(struct, iter([x.copy() if id(x) in ids else x for x in leaves]))


def _check_loop_state(where, struct, types, val):
    """Eagerly, body_fun must keep the loop state's structure, dtypes and shapes (the
    check the traced path makes)."""
    leaves = []
    s = flatten(val, leaves)
    got = [(np.dtype(getattr(x, "dtype", np.asarray(x).dtype)), tuple(np.shape(x)))
           for x in leaves]
    if s != struct or got != types:
        raise TypeError(f"{where}: body_fun returns {got}, the loop state is {types}; they "
                        f"must match (structure, dtypes and shapes)")


def _record(comp, op, operands, types, attrs=None, calls=()):
    """Records a (possibly tuple-valued) instruction; returns Traced outputs."""
    ttype = types[0] if len(types) == 1 and not attrs.get("tuple_result") else tuple(types)
    instr = comp.add(Instruction(op, operands, ttype, attrs, calls))
    if isinstance(ttype, TensorType):
        return [Traced(instr)]
    outs = []
    for k, t in enumerate(types):
        outs.append(Traced(comp.add(Instruction("get_tuple_element", [instr], t,
                                                {"index": k}))))
    return outs


# ------------------------------------------------------------------------ map
def map(fn, *operands, dimensions=None):  # noqa: A001
    """The seed's Map: ``fn`` is a scalar computation applied elementwise over operands of
    one shape (``map(lambda x, y: x * y + 1, a, b)``); it runs as one fused kernel.
    ``dimensions`` must be all dims (xarr maps over whole tensors)."""
    if not operands:
        raise TypeError("lax.map: needs at least one operand")
    vals = [_as_value(x, "lax.map") for x in operands]
    shape = tuple(vals[0].shape)
    for k, v in enumerate(vals):
        if tuple(v.shape) != shape:
            raise ValueError(f"lax.map: operand {k} has shape {tuple(v.shape)}, operand 0 "
                             f"has {shape} (Map needs one shape)")
    if dimensions is not None and tuple(dimensions) != tuple(range(len(shape))):
        raise ValueError(f"lax.map: dimensions {tuple(dimensions)} must be all dims "
                         f"{tuple(range(len(shape)))}")
    comp = _traced_comp(vals)
    if comp is None:
        return Jitted(lambda *xs: map(fn, *xs), )(*[_concrete(v) for v in vals])
    types = [TensorType(CODE_OF[v.dtype], (), None) for v in vals]
    sub, struct, out_types = trace_sub(comp, fn, types, "map_computation", "lax.map")
    if sub.captures:
        raise TypeError("lax.map: the computation may only use its scalar arguments and "
                        "constants, not tensors of the enclosing function")
    if struct != "*":
        raise TypeError("lax.map: the computation must return one scalar")
    for s in sub.instructions:
        if s.op not in ("parameter", "constant", "convert") and not _is_elementwise(s.op):
            raise TypeError(f"lax.map: the computation may only use elementwise ops, "
                            f"found {s.op}")
    ins = [instr_of(comp, v, "lax.map") for v in vals]
    rtype = TensorType(out_types[0].code, shape, None)
    return _record(comp, "map", ins, [rtype], {"dimensions": tuple(range(len(shape)))},
                   [sub])[0]


_ELEMENTWISE_KERNELS = elementwise_ops()


def _is_elementwise(op):
    return op in ("convert", "broadcast") or op in _ELEMENTWISE_KERNELS


# ------------------------------------------------------------------------ call
def call(fn, *operands):
    """The seed's Call: fn's computation invoked on operands (a ``call`` instruction under
    xa.jit; a plain call eagerly)."""
    vals = [_as_value(x, "lax.call") for x in operands]
    comp = _traced_comp(vals)
    if comp is None:
        return _fresh(fn(*vals), list(operands) + vals)
    types = [instr_of(comp, v, "lax.call").type for v in vals]
    sub, struct, out_types = trace_sub(comp, fn, types, "called_computation", "lax.call")
    ins = [instr_of(comp, v, "lax.call") for v in vals] + sub.captures
    outs = _record(comp, "call", ins, out_types, {"tuple_result": struct != "*"}, [sub])
    return unflatten(struct, iter(outs))


# ------------------------------------------------------------------------ cond
def cond(pred, true_fun, false_fun=None, *operands):
    """Conditional (seed 004), in both forms:

    * ``cond(pred, true_fun, false_fun, *operands)`` - pred a bool scalar;
    * ``cond(index, [f0, f1, ...], *operands)`` - index an int32 scalar; an index
      outside [0, N) runs the LAST branch, as the seed says.
    Every branch takes the operands and must return the same structure and types."""
    if isinstance(true_fun, (list, tuple)):
        branches = list(true_fun)
        if false_fun is not None:
            operands = (false_fun,) + operands
        by_index = True
    else:
        if false_fun is None:
            raise TypeError("lax.cond: give true_fun and false_fun, or a list of branches")
        branches = [true_fun, false_fun]
        by_index = False
    if not branches or not all(callable(b) for b in branches):
        raise TypeError("lax.cond: branches must be callables")
    sel = _as_value(pred, "lax.cond")
    if tuple(sel.shape) != ():
        raise TypeError(f"lax.cond: the {'index' if by_index else 'predicate'} must be a "
                        f"scalar, got shape {tuple(sel.shape)}")
    kind = sel.dtype.kind
    if by_index and kind not in "iu":
        raise TypeError(f"lax.cond: a branch index must be an integer scalar, got {sel.dtype}")
    if not by_index and kind != "b":
        raise TypeError(f"lax.cond: the predicate must be a bool scalar, got {sel.dtype} "
                        f"(use a list of branches for an index)")
    leaves = []
    struct = flatten(tuple(operands), leaves)
    vals = [_as_value(x, "lax.cond") for x in leaves]
    comp = _traced_comp([sel] + vals)
    if comp is None:
        v = _concrete(sel).item()
        if by_index:
            b = branches[v] if 0 <= v < len(branches) else branches[-1]
        else:
            b = branches[0] if v else branches[1]
        return _fresh(b(*unflatten(struct, iter(vals))), leaves + vals)
    types = [instr_of(comp, v, "lax.cond").type for v in vals]
    subs, out_struct, out_types = [], None, None
    for k, b in enumerate(branches):
        sub, s, ts = trace_sub(comp, lambda ops, b=b: b(*ops), types, "branch_computation",
                               "lax.cond", struct=struct)
        if out_types is None:
            out_struct, out_types = s, ts
        elif s != out_struct or [(t.code, t.dims) for t in ts] != \
                [(t.code, t.dims) for t in out_types]:
            raise TypeError(f"lax.cond: branch {k} returns {_types_text(ts)}, branch 0 "
                            f"returns {_types_text(out_types)}; every branch must return "
                            f"the same structure and types")
        subs.append(sub)
    out_types = [TensorType(t.code, t.dims, None) for t in out_types]
    ins = [instr_of(comp, sel, "lax.cond")]
    arity = []
    base = [instr_of(comp, v, "lax.cond") for v in vals]
    for sub in subs:
        ins += base + sub.captures
        arity.append(len(base) + len(sub.captures))
    outs = _record(comp, "conditional", ins, out_types,
                   {"pred": not by_index, "branch_arity": tuple(arity),
                    "tuple_result": out_struct != "*"}, subs)
    return unflatten(out_struct, iter(outs))


def switch(index, branches, *operands):
    """jax.lax.switch: ``index`` is clamped to [0, N) (JAX's rule), then ``cond``."""
    n = len(branches)
    idx = _as_value(index, "lax.switch")
    if idx.dtype != np.int32:
        idx = idx.astype(np.int32)
    idx = lax_apply("clamp", np.int32(0), idx, np.int32(n - 1)) if type(idx) is Traced \
        else _clamp_int(idx, n)
    return cond(idx, list(branches), *operands)


def _clamp_int(t, n):
    return asarray(np.int32(min(max(int(t.item()), 0), n - 1)))


def _types_text(ts):
    return "(" + ", ".join(type_text(t) for t in ts) + ")"


# ------------------------------------------------------------------------ loops
def while_loop(cond_fun, body_fun, init_val):
    """While (seed 004): ``while cond_fun(val): val = body_fun(val)``; ``val`` is a tensor
    or a tuple/list/dict of them; body_fun must keep its structure, dtypes and shapes."""
    leaves = []
    struct = flatten(init_val, leaves)
    vals = [_as_value(x, "lax.while_loop") for x in leaves]
    comp = _traced_comp(vals)
    if comp is None:
        val = unflatten(struct, iter(vals))
        types = [(np.dtype(v.dtype), tuple(v.shape)) for v in vals]
        while True:
            c = cond_fun(val)
            if _as_value(c, "lax.while_loop").dtype != np.bool_ or tuple(np.shape(c)) != ():
                raise TypeError(f"lax.while_loop: cond_fun must return a bool scalar, got "
                                f"{getattr(c, 'dtype', type(c).__name__)}"
                                f"{list(np.shape(c))}")
            if not bool(c):
                return _fresh(val, leaves + vals)
            val = body_fun(val)
            _check_loop_state("lax.while_loop", struct, types, val)
    types = [instr_of(comp, v, "lax.while_loop").type for v in vals]
    types = [TensorType(t.code, t.dims, None) for t in types]
    csub, cstruct, ctypes_ = trace_sub(comp, cond_fun, types, "while_condition",
                                       "lax.while_loop", struct=struct)
    if cstruct != "*" or ctypes_[0].code != 0 or ctypes_[0].dims != ():
        raise TypeError(f"lax.while_loop: cond_fun must return a bool scalar, got "
                        f"{_types_text(ctypes_)}")
    bsub, bstruct, btypes = trace_sub(comp, body_fun, types, "while_body",
                                      "lax.while_loop", struct=struct)
    if bstruct != struct or [(t.code, t.dims) for t in btypes] != \
            [(t.code, t.dims) for t in types]:
        raise TypeError(f"lax.while_loop: body_fun returns {_types_text(btypes)}, the loop "
                        f"state is {_types_text(types)}; they must match (structure, dtypes "
                        f"and shapes)")
    ins = [instr_of(comp, v, "lax.while_loop") for v in vals] + csub.captures + \
        bsub.captures
    outs = _record(comp, "while", ins, types,
                   {"n_state": len(vals), "n_cond_captures": len(csub.captures),
                    "tuple_result": True}, [csub, bsub])
    return unflatten(struct, iter(outs))


def fori_loop(lower, upper, body_fun, init_val):
    """``for i in range(lower, upper): val = body_fun(i, val)`` (jax.lax.fori_loop); a
    While with an int32 counter under xa.jit, a Python loop eagerly."""
    lo_v, hi_v = _as_value(lower, "lax.fori_loop"), _as_value(upper, "lax.fori_loop")
    leaves = []
    flatten(init_val, leaves)
    if _traced_comp([lo_v, hi_v] + [x for x in leaves if type(x) is Traced]) is None:
        # the counter is an int32 tensor, as under xa.jit (so promotion agrees)
        val = init_val
        struct = flatten(init_val, [])
        types = [(np.dtype(getattr(x, "dtype", np.asarray(x).dtype)), tuple(np.shape(x)))
                 for x in leaves]
        for i in range(int(_concrete(lo_v).item()), int(_concrete(hi_v).item())):
            val = body_fun(asarray(np.int32(i)), val)
            _check_loop_state("lax.fori_loop", struct, types, val)
        return _fresh(val, leaves)
    lo = lo_v.astype(np.int32) if lo_v.dtype != np.int32 else lo_v
    hi = hi_v.astype(np.int32) if hi_v.dtype != np.int32 else hi_v

    def c(state):
        return lax_apply("lt", state[0], state[1])

    def b(state):
        i, h, v = state
        return (lax_apply("add", i, np.int32(1)), h, body_fun(i, v))
    return while_loop(c, b, (lo, hi, init_val))[2]


# ------------------------------------------------------------------------ tuples
def tuple_(*operands):
    """Tuple (seed 004): a tuple of values; in xarr a Python tuple (the graph records
    tuple instructions where a computation returns or loops over several values)."""
    return tuple(operands)


def get_tuple_element(t, index):
    """GetTupleElement: ``t[index]`` with a clear error for a bad index."""
    index = operator.index(index)
    if not 0 <= index < len(t):
        raise IndexError(f"lax.get_tuple_element: index {index} out of range for a tuple of "
                         f"{len(t)}")
    return t[index]


def optimization_barrier(operand):
    """OptimizationBarrier: returns operand (a tensor or tuple of them) unchanged, but no
    fusion, CSE or reordering moves computation across it."""
    leaves = []
    struct = flatten(operand, leaves)
    vals = [_as_value(x, "lax.optimization_barrier") for x in leaves]
    comp = _traced_comp(vals)
    if comp is None:
        return unflatten(struct, iter(vals))
    ins = [instr_of(comp, v, "lax.optimization_barrier") for v in vals]
    outs = _record(comp, "opt_barrier", ins, [i.type for i in ins],
                   {"tuple_result": True, "side_effect": True})
    return unflatten(struct, iter(outs))


# ------------------------------------------------------------------------ custom call
_CUSTOM_CALL_TARGETS = {}
_CFUNC = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)


def register_custom_call_target(name, fn):
    """Registers a C function ``void f(void* out, void** ins)`` (a ctypes function, e.g.
    ``ctypes.CDLL(path).my_fn``) under ``name`` for ``custom_call(name, ...)``."""
    _CUSTOM_CALL_TARGETS[str(name)] = _as_cfunc(fn, name)


def _as_cfunc(fn, name):
    if isinstance(fn, ctypes._CFuncPtr):
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        fn.restype = None
        return fn
    raise TypeError(f"lax.custom_call: target {name!r} must be a ctypes function from a "
                    f"loaded library (ctypes.CDLL(path).name), got {type(fn).__name__}")


def _result_types(result_shape):
    if isinstance(result_shape, str):
        result_shape = TupleShape.parse(result_shape) if result_shape.startswith("(") \
            else Shape.parse(result_shape)
    if isinstance(result_shape, TupleShape):
        return [_result_types(s)[0][0] for s in result_shape.shapes], True
    if isinstance(result_shape, Shape):
        return [TensorType(CODE_OF[as_dtype(result_shape.element_type)],
                           tuple(result_shape.dims), None)], False
    if isinstance(result_shape, list):
        return [_result_types(s)[0][0] for s in result_shape], True
    if isinstance(result_shape, tuple) and len(result_shape) == 2:
        shape, dtype = result_shape
        return [TensorType(CODE_OF[as_dtype(dtype)], tuple(operator.index(d) for d in shape),
                           None)], False
    raise TypeError(f"lax.custom_call: result_shape must be an xa.Shape, shape text like "
                    f"'f32[4]', a (shape, dtype) pair or a list of them; got {result_shape!r}")


def custom_call(target, *operands, result_shape, has_side_effect=False):
    """CustomCall (seed 004): calls ``void target(void* out, void** ins)`` with pointers
    to row-major copies of the operands; ``out`` points to the result buffer (for a tuple
    result, to an array of result buffer pointers). ``target`` is a registered name or a
    ctypes function. The function must fill the result; xarr cannot check what it does."""
    if isinstance(target, str):
        fn = _CUSTOM_CALL_TARGETS.get(target)
        if fn is None:
            raise ValueError(f"lax.custom_call: no target named {target!r} is registered "
                             f"(xa.lax.register_custom_call_target)")
        name = target
    else:
        fn = _as_cfunc(target, getattr(target, "__name__", "target"))
        name = getattr(target, "__name__", "target")
    types, is_tuple = _result_types(result_shape)
    vals = [_as_value(x, "lax.custom_call") for x in operands]
    comp = _traced_comp(vals)
    attrs = {"target": name, "function": fn, "tuple_result": is_tuple,
             "side_effect": bool(has_side_effect)}
    if comp is None:
        instr = Instruction("custom_call", [], types[0] if not is_tuple else tuple(types), attrs)
        out = _custom_call_step(instr)(*[_tensor.strided(_concrete(v)) for v in vals])
        return list(out) if is_tuple else out
    ins = [instr_of(comp, v, "lax.custom_call") for v in vals]
    outs = _record(comp, "custom_call", ins, types, attrs)
    return outs if is_tuple else outs[0]


# ------------------------------------------------------------------------ executable steps
def _custom_call_step(i):
    fn = i.attrs["function"]
    out_types = [i.type] if not i.is_tuple else list(i.type)

    def custom_call(*xs):
        ins = [_tensor.copy_dense(x) if not x.flags["C_CONTIGUOUS"] else x for x in xs]
        outs = [_tensor.empty(t.dims, t.code, None) for t in out_types]
        in_ptrs = (ctypes.c_void_p * max(len(ins), 1))(*[x._address for x in ins])
        if len(outs) == 1:
            out_ptr = ctypes.c_void_p(outs[0]._address)
        else:
            arr = (ctypes.c_void_p * len(outs))(*[o._address for o in outs])
            out_ptr = ctypes.cast(arr, ctypes.c_void_p)
        fn(out_ptr, ctypes.cast(in_ptrs, ctypes.c_void_p))
        return outs[0] if len(outs) == 1 else tuple(outs)
    return custom_call


def _call_step(i):
    sub = compiled_computation(i.calls[0])
    return lambda *xs: unaliased(sub.run(list(xs)), xs)


def _conditional_step(i):
    branches = [compiled_computation(c) for c in i.calls]
    is_pred = bool(i.attrs.get("pred"))
    nb = len(branches)
    starts = [1]
    for n in i.attrs["branch_arity"]:
        starts.append(starts[-1] + n)

    def conditional(*xs):
        v = xs[0].item()
        if is_pred:
            k = 0 if v else 1
        else:
            k = v if 0 <= v < nb else nb - 1
        args = xs[starts[k]:starts[k + 1]]
        return unaliased(branches[k].run(list(args)), args)
    return conditional


def _while_step(i):
    cond_exe = compiled_computation(i.calls[0])
    body = compiled_computation(i.calls[1])
    n_state = i.attrs["n_state"]
    n_cc = i.attrs["n_cond_captures"]

    def while_loop(*xs):
        state = list(xs[:n_state])
        extra_c = list(xs[n_state:n_state + n_cc])
        extra_b = list(xs[n_state + n_cc:])
        while cond_exe.run(state + extra_c).item():
            out = body.run(state + extra_b)
            state = list(out) if isinstance(out, tuple) else [out]
        return unaliased(tuple(state), xs)
    return while_loop


def _opt_barrier_step(i):
    return lambda *xs: xs[0] if len(xs) == 1 and not i.is_tuple else tuple(xs)


# ------------------------------------------------------------------------ registry rows
def _calls_text(key):
    return lambda instr: [f"{key}=" + ", ".join(c.name for c in instr.calls)]


def _conditional_text(instr):
    if instr.attrs.get("pred"):
        return [f"true_computation={instr.calls[0].name}, "
                f"false_computation={instr.calls[1].name}"]
    return ["branch_computations={" + ", ".join(c.name for c in instr.calls) + "}"]


def _map_text(instr):
    return ["dimensions={" + ",".join(str(d) for d in instr.attrs["dimensions"]) + "}",
            "to_apply=" + ", ".join(c.name for c in instr.calls)]


for _op in [
        Op("map", "opaque", text=_map_text),     # inlined by the passes before fusion
        Op("call", "opaque", text=_calls_text("to_apply"), lower=_call_step),
        Op("conditional", "opaque", text=_conditional_text, lower=_conditional_step),
        Op("while", "opaque", lower=_while_step, text=lambda instr: [
            f"condition={instr.calls[0].name}, body={instr.calls[1].name}"]),
        Op("opt_barrier", "opaque", lower=_opt_barrier_step),
        Op("custom_call", "opaque", lower=_custom_call_step, text=lambda instr: [
            f'custom_call_target="{instr.attrs["target"]}"'])]:
    register(_op)
