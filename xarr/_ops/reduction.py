"""Reductions (seed 004 Reduce, ~line 1173; variadic ~1255): one definition of ``reduce``
- its shape rule, its eager implementation and its graph instruction - and the NumPy
reductions built on it.

A computation is recognized as a monoid when it is (or traces to) one of add, mul, max,
min, and, or of its two scalar arguments; monoids run on the C++ reduction kernels
(csrc/kernels/reduce/: SIMD, threaded, pairwise float sums, layout-aware). Any other
computation, and every variadic reduce, is evaluated as a tree: the reduced elements are
halved level by level, each level applying the traced scalar computation elementwise
to the two halves (the seed leaves the association order unspecified).

Worked example (seed 004): x is f32[4,2,3] holding [[1,2,3],[4,5,6]] four times along
dim 0; ``reduce(x, 0, add, (0,))`` is [[4,8,12],[16,20,24]], ``(2,)`` gives [[6,15]] * 4,
``(0, 1)`` gives [20, 28, 36] and all dims give 84.
"""

import operator

import numpy as np

from xarr import _tensor
from xarr._bindings import reduce as _reduce
from xarr._bindings.elementwise import run_elementwise
from xarr._bindings.scan import SCAN_MAX, SCAN_MIN, SCAN_PROD, SCAN_SUM, scan_into
from xarr._dtypes import CODE_OF, DTYPES, KINDS, XLA_NAMES, as_dtype
from xarr._graph import trace as _trace
from xarr._graph.ir import Instruction, Module, TensorType
from xarr._graph.trace import Traced, TracedComputation, recorder, trace_sub
from xarr._ops import structural as S
from xarr._ops.elementwise import OPS, lax_apply, lax_scalar
from xarr._ops.structural import as_operand, defop, on_strided, valid_region
from xarr._registry import Op, register
from xarr._tensor import Tensor

# monoid name -> the reduction kernel's op code (xarr/_bindings/reduce.pyx)
MONOIDS = {"add": _reduce.REDUCE_SUM, "mul": _reduce.REDUCE_PROD, "max": _reduce.REDUCE_MAX,
           "min": _reduce.REDUCE_MIN, "and": _reduce.REDUCE_AND, "or": _reduce.REDUCE_OR}


def reduce_shape(dims, dimensions, op="reduce"):
    """The shape rule: ``dims`` without ``dimensions`` (distinct, in range)."""
    n = len(dims)
    reduced = 0                       # bit i: dim i is reduced
    for d in dimensions:
        d = operator.index(d)
        if not 0 <= d < n or reduced >> d & 1:
            raise ValueError(f"lax.{op}: dimensions {tuple(dimensions)} must be distinct "
                             f"dims of a rank-{n} operand (shape {tuple(dims)})")
        reduced |= 1 << d
    return tuple([e for i, e in enumerate(dims) if not reduced >> i & 1])


# ------------------------------------------------------------------------ computations
def monoid_of(computation, n_operands):
    """The monoid name of ``computation`` or None: a name string, a lax function
    (``xa.lax.add``: xarr/lax.py marks its elementwise functions with their op), or a
    callable whose traced body is that op of its two arguments."""
    if isinstance(computation, str):
        if computation not in MONOIDS:
            raise ValueError(f"lax.reduce: unknown computation {computation!r} (one of "
                             f"{', '.join(MONOIDS)}, or a callable)")
        return computation
    if n_operands != 1:
        return None
    op = getattr(computation, "lax_op", None)
    return op if op in MONOIDS else None


def _lax_monoid(name):
    """The lax-style function of monoid ``name``: (acc, x) -> acc op x."""
    return lambda acc, x: lax_apply(name, acc, x)


def _trace_scalar_computation(fn, codes, parent=None):
    """Traces fn on scalar parameters (accumulators then values, SPEC.md's convention)
    into a computation; returns it."""
    n = len(codes) // 2
    if parent is None:
        parent = TracedComputation("main", Module("reduce"))
    types = [TensorType(c, (), None) for c in codes]

    def call(*scalars):
        if n == 1:
            return fn(scalars[0], scalars[1])
        return fn(tuple(scalars[:n]), tuple(scalars[n:]))
    sub, struct, out_types = trace_sub(parent, call, types, "reduce_computation",
                                       "lax.reduce")
    want = [TensorType(c, (), None) for c in codes[:n]]
    got = [TensorType(t.code, t.dims, None) for t in out_types]
    if got != want:
        raise TypeError(f"lax.reduce: the computation returns "
                        f"({', '.join(XLA_NAMES[t.code] + str(list(t.dims)) for t in got)}), "
                        f"expected one scalar per operand "
                        f"({', '.join(XLA_NAMES[c] + '[]' for c in codes[:n])})")
    return sub


def _monoid_of_traced(sub):
    r = sub.root
    if r.op in MONOIDS and len(sub.parameters) == 2 and \
            {id(o) for o in r.operands} == {id(p) for p in sub.parameters}:
        return r.op
    return None


# ------------------------------------------------------------------------ eager impl
def kernel_reduce(name, x, dims, init=None):
    """The monoid ``name`` over dims of eager tensor x on the C++ kernels, then combined
    with ``init`` (a scalar tensor of x's dtype, lax.reduce's init value) when given:
    kernel_reduce("add", [-0.0, -0.0], (0,), +0.0) is +0.0, as NumPy's sum."""
    code = CODE_OF[x.dtype]
    out = _tensor.empty(reduce_shape(x.shape, dims), code)
    _reduce.reduce_into(MONOIDS[name], out, x, dims)
    if init is not None and out.size:   # in place: out is new, init a scalar of its dtype
        run_elementwise(OPS[name].code, code, out, [out, init])
    return out


def _reduce_impl(*xs, dimensions, monoid, computation):
    n = len(xs) // 2
    operands = [valid_region(x, dimensions) for x in xs[:n]]   # dynamic sizes, at run time
    inits = xs[n:]
    if monoid is not None:
        return kernel_reduce(monoid, operands[0], dimensions, inits[0])
    return _tree_reduce(list(operands), list(inits), dimensions, computation)


def elementwise_emit(i, ins):
    """Instruction ``i`` of a scalar computation applied to whole tensors ``ins`` (its
    operands' values): the lax op, elementwise."""
    if i.op == "constant":
        return i.attrs["value"]
    if i.op == "convert":
        return ins[0].astype(DTYPES[i.code])
    if i.op == "broadcast":
        return ins[0]
    if i.op == "tuple":
        return tuple(ins)
    if i.op in OPS:
        return lax_apply(i.op, *ins)
    raise TypeError(f"lax.reduce: the computation may only use elementwise ops, "
                    f"found {i.op}")


def _vectorized(comp, arrays):
    """Evaluates scalar computation ``comp`` elementwise over same-shape ``arrays``: each
    of its instructions becomes the lax op over whole tensors (Computation.walk)."""
    out = comp.walk(arrays, elementwise_emit)
    return list(out) if isinstance(out, tuple) else [out]


def _tree_reduce(operands, inits, dims, comp):
    """Reduces dims by halving: operands are permuted so reduced dims are last and
    flattened to one axis R; while R > 1, pad R to even with the init values and combine
    the two halves elementwise with ``comp``."""
    x0 = operands[0]
    keep = [d for d in range(x0.ndim) if d not in dims]
    out_shape = tuple(x0.shape[d] for d in keep)
    r = 1
    for d in dims:
        r *= x0.shape[d]
    outer = 1
    for d in out_shape:
        outer *= d
    vals = [S.transpose(x, tuple(keep) + tuple(dims)).reshape((outer, r)) for x in operands]
    if r == 0:
        return _tuple_or_one([S.broadcast_in_dim(i, out_shape, ()).copy() for i in inits])
    while r > 1:
        if r % 2:
            vals = [S.concatenate([v, S.broadcast_in_dim(i, (outer, 1), ())], 1)
                    for v, i in zip(vals, inits)]
            r += 1
        half = r // 2
        lo = [S.slice(v, (0, 0), (outer, half)) for v in vals]
        hi = [S.slice(v, (0, half), (outer, r)) for v in vals]
        vals = _vectorized(comp, lo + hi)
        r = half
    # fold the init values in once
    vals = _vectorized(comp, [S.broadcast_in_dim(i, (outer, 1), ()) for i in inits] + vals)
    return _tuple_or_one([v.reshape(out_shape) for v in vals])


def _tuple_or_one(vals):
    return vals[0] if len(vals) == 1 else tuple(vals)


def _reduce_rule(types, dimensions, monoid, computation):
    n = len(types) // 2
    out = []
    for k in range(n):
        t, i = types[k], types[n + k]
        if i.dims != () or i.code != t.code:
            raise TypeError(f"lax.reduce: init value {k} must be a {XLA_NAMES[t.code]} "
                            f"scalar, got {XLA_NAMES[i.code]}{list(i.dims)}")
        if t.dims != types[0].dims:
            raise ValueError(f"lax.reduce: operand {k} has shape {t.dims}, operand 0 has "
                             f"{types[0].dims}; variadic operands need one shape")
        out.append(TensorType(t.code, reduce_shape(t.dims, dimensions), None))
    return out[0] if n == 1 else tuple(out)


def _reduce_text(instr):
    a = instr.attrs
    calls = [f"to_apply={instr.calls[0].name}"] if instr.calls else []
    return ["dimensions={" + ",".join(map(str, a["dimensions"])) + "}"] + calls


register(Op("reduce", "reduction", rule=_reduce_rule, impl=on_strided(_reduce_impl),
            text=_reduce_text))


def reduce(operands, init_values, computation, dimensions):  # noqa: A001
    """Reduce (seed 004): ``operands`` (a tensor or a tuple of N tensors of one shape),
    one scalar ``init_values`` each, ``computation`` a monoid name ('add', 'mul', 'max',
    'min', 'and', 'or'), a lax function or a Python callable (``fn(acc, x)``; for N
    operands ``fn(accs, xs)`` with tuples, returning N values), reduced over
    ``dimensions``. Returns a tensor, or a tuple for N > 1."""
    single = not isinstance(operands, (tuple, list))
    ops = [as_operand(x) for x in ([operands] if single else operands)]
    inits = [init_values] if single or not isinstance(init_values, (tuple, list)) \
        else list(init_values)
    if len(inits) != len(ops):
        raise ValueError(f"lax.reduce: {len(ops)} operands need {len(ops)} init values, got "
                         f"{len(inits)}")
    inits = [v if isinstance(v, (Tensor, Traced)) else as_operand(v)
             if isinstance(v, (np.generic, np.ndarray)) else
             lax_scalar("lax.reduce", v, CODE_OF[x.dtype]) for v, x in zip(inits, ops)]
    dims = tuple(operator.index(d) for d in dimensions)
    reduce_shape(ops[0].shape, dims)
    ops = [valid_region(x, dims) for x in ops]     # dynamic sizes: padding is ignored
    codes = [CODE_OF[x.dtype] for x in ops]
    monoid = monoid_of(computation, len(ops))
    comp = None
    if monoid is None or recorder(ops + inits) is not None:
        fn = computation if monoid is None else _lax_monoid(monoid)
        parent = _trace.tracing()
        comp = _trace_scalar_computation(fn, codes + codes, parent)
        if monoid is None and len(ops) == 1:
            monoid = _monoid_of_traced(comp)
    if monoid is not None and KINDS[codes[0]] == "c" and monoid in ("max", "min"):
        raise TypeError("lax.reduce: max/min are not defined for complex operands")
    attrs = {"dimensions": dims, "monoid": monoid, "computation": comp}
    types = [_type(x) for x in ops + inits]
    rtype = _reduce_rule(types, **attrs)
    rec = recorder(ops + inits)
    if rec is None:
        out = _reduce_impl(*[_tensor.strided(x) for x in ops + inits], **attrs)
    else:
        ins = [_trace.instr_of(rec, x, "lax.reduce") for x in ops + inits]
        calls = [comp] if comp is not None else []
        instr = rec.add(Instruction("reduce", ins, rtype, attrs, calls))
        if isinstance(rtype, TensorType):
            out = Traced(instr)
        else:
            out = tuple(Traced(rec.add(Instruction("get_tuple_element", [instr], t,
                                                   {"index": k})))
                        for k, t in enumerate(rtype))
    return out if single or not isinstance(out, tuple) else out


def _type(x):
    if type(x) is Traced:
        return x.instr.type
    return TensorType(CODE_OF[x.dtype], tuple(x.shape), None)


def argmax(operand, axis, index_dtype=np.int32):
    """Index of the first maximum along ``axis`` (NaN counts as the maximum)."""
    return arg_reduce("REDUCE_ARGMAX", operand, axis, index_dtype, "argmax")


def argmin(operand, axis, index_dtype=np.int32):
    """Index of the first minimum along ``axis`` (NaN counts as the minimum)."""
    return arg_reduce("REDUCE_ARGMIN", operand, axis, index_dtype, "argmin")


def _argkernel(x, axis, kernel):
    out = _tensor.empty(reduce_shape(x.shape, (axis,)), CODE_OF[np.dtype(np.int64)])
    _reduce.reduce_into(getattr(_reduce, kernel), out, _tensor.strided(x), (axis,))
    return out


def _arg_rule(types, axis, kernel):
    (t,) = types
    if KINDS[t.code] == "c":
        raise TypeError(f"lax.{kernel[7:].lower()}: not defined for complex operands")
    return TensorType(CODE_OF[np.dtype(np.int64)], reduce_shape(t.dims, (axis,)), None)


defop("arg_reduce", _arg_rule, _argkernel)


def arg_reduce(kernel, operand, axis, index_dtype, name):
    """argmax / argmin (``kernel`` REDUCE_ARGMAX / REDUCE_ARGMIN) along one axis."""
    x = as_operand(operand)
    axis = operator.index(axis)
    if not 0 <= axis < x.ndim:
        raise ValueError(f"lax.{name}: axis {axis} out of range for shape {tuple(x.shape)}")
    if x.shape[axis] == 0:
        raise ValueError(f"lax.{name}: cannot take the {name} of an empty axis {axis} "
                         f"(shape {tuple(x.shape)})")
    dt = as_dtype(index_dtype)
    if dt.kind not in "iu":
        raise TypeError(f"lax.{name}: index_dtype must be an integer type, got {dt}")
    if x.shape[axis] - 1 > np.iinfo(dt).max:
        raise ValueError(f"lax.{name}: index_dtype {dt} cannot hold the indices of axis "
                         f"{axis} of size {x.shape[axis]} (at most {np.iinfo(dt).max})")
    r = S.apply("arg_reduce", [x], axis=axis, kernel=kernel)
    return r if r.dtype == dt else r.astype(dt)


def reduce_sum(operand, axes):
    return reduce(operand, 0, "add", axes)


def reduce_prod(operand, axes):
    return reduce(operand, 1, "mul", axes)


def _no_complex(x, name):
    if KINDS[CODE_OF[x.dtype]] == "c":
        raise TypeError(f"lax.{name}: not defined for complex operands")


def reduce_max(operand, axes):
    x = as_operand(operand)
    _no_complex(x, "reduce_max")
    return reduce(x, lowest(x.dtype), "max", axes)


def reduce_min(operand, axes):
    x = as_operand(operand)
    _no_complex(x, "reduce_min")
    return reduce(x, highest(x.dtype), "min", axes)


def reduce_and(operand, axes):
    x = as_operand(operand)
    return reduce(x, True if x.dtype == np.bool_ else -1 if x.dtype.kind == "i"
                  else int(np.iinfo(x.dtype).max), "and", axes)


def reduce_or(operand, axes):
    x = as_operand(operand)
    return reduce(x, False if x.dtype == np.bool_ else 0, "or", axes)


def lowest(dt):
    if dt.kind == "f" or dt == DTYPES[10]:
        return float("-inf")
    if dt == np.bool_:
        return False
    return int(np.iinfo(dt).min)


def highest(dt):
    if dt.kind == "f" or dt == DTYPES[10]:
        return float("inf")
    if dt == np.bool_:
        return True
    return int(np.iinfo(dt).max)


# ------------------------------------------------------------------------ scans
SCAN_KERNELS = {"add": SCAN_SUM, "mul": SCAN_PROD, "max": SCAN_MAX, "min": SCAN_MIN}
_SCAN_NAME = {"add": "cumsum", "mul": "cumprod", "max": "cummax", "min": "cummin"}


def _scan_rule(types, axis, op, reverse):
    (t,) = types
    if not 0 <= axis < len(t.dims):
        raise ValueError(f"lax.{_SCAN_NAME[op]}: axis {axis} out of range for shape "
                         f"{t.dims}")
    if op in ("max", "min") and KINDS[t.code] == "c":
        raise TypeError(f"lax.{_SCAN_NAME[op]}: not defined for complex operands")
    return TensorType(t.code, t.dims, None)


def _scan_impl(x, axis, op, reverse):
    src = S.rev(x, (axis,)) if reverse else x
    out = _tensor.empty(x.shape, CODE_OF[x.dtype])
    scan_into(SCAN_KERNELS[op], out, src, axis)
    return S.rev(out, (axis,)) if reverse else out


defop("cumulative", _scan_rule, _scan_impl)


def cumulative(op, operand, axis, reverse):
    """The inclusive scan of monoid ``op`` along ``axis`` (lax.cumsum ...)."""
    x = as_operand(operand)
    axis = operator.index(axis)
    if -x.ndim <= axis < 0:
        axis += x.ndim            # out-of-range axes reach _scan_rule's error unchanged
    return S.apply("cumulative", [x], axis=axis, op=op, reverse=bool(reverse))


def cumsum(operand, axis=0, reverse=False):
    """lax.cumsum: inclusive running sum along axis (accumulated in order)."""
    return cumulative("add", operand, axis, reverse)


def cumprod(operand, axis=0, reverse=False):
    return cumulative("mul", operand, axis, reverse)


def cummax(operand, axis=0, reverse=False):
    return cumulative("max", operand, axis, reverse)


def cummin(operand, axis=0, reverse=False):
    return cumulative("min", operand, axis, reverse)
