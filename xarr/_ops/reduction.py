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

import builtins
import operator

import numpy as np

from xarr import _tensor
from xarr._dtypes import CODE_OF, DTYPES, KINDS, XLA_NAMES, as_dtype
from xarr._graph import trace as _trace
from xarr._graph.ir import Instruction, TensorType
from xarr._graph.trace import Traced, recorder
from xarr._ops.elementwise import OPS, _int_scalar_check, lax_scalar
from xarr._ops import structural as _structural
from xarr._ops.structural import STRUCTURAL, StructuralOp, as_operand, valid_region, on_strided
from xarr._tensor import Tensor

# monoid name -> (kernel op code attribute on _tensor, lax elementwise op combining init)
MONOIDS = {"add": "REDUCE_SUM", "mul": "REDUCE_PROD", "max": "REDUCE_MAX",
           "min": "REDUCE_MIN", "and": "REDUCE_AND", "or": "REDUCE_OR"}


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
def _lax():
    from xarr import lax
    return lax


def monoid_of(computation, n_operands):
    """The monoid name of ``computation`` or None: a name string, a lax function
    (``xa.lax.add``), or a callable whose traced body is that op of its two arguments."""
    if isinstance(computation, str):
        if computation not in MONOIDS:
            raise ValueError(f"lax.reduce: unknown computation {computation!r} (one of "
                             f"{', '.join(MONOIDS)}, or a callable)")
        return computation
    if n_operands != 1:
        return None
    lax = _lax()
    direct = {lax.add: "add", lax.mul: "mul", lax.max: "max", lax.min: "min",
              lax.bitwise_and: "and", lax.bitwise_or: "or"}
    return direct.get(computation)


def _trace_scalar_computation(fn, codes, parent=None):
    """Traces fn on scalar parameters (accumulators then values, SPEC.md's convention)
    into a computation; returns it."""
    from xarr._graph.control import trace_sub
    from xarr._graph.ir import Module
    from xarr._graph.trace import TracedComputation
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
    _tensor.reduce_into(_KERNEL_OP[name], out, x, dims)
    if init is not None and out.size:   # in place: out is new, init a scalar of its dtype
        _tensor.run_elementwise(_COMBINE_OP[name], code, out, [out, init])
    return out


# monoid name -> the reduce kernel's op code, and the elementwise op folding in the init
_KERNEL_OP = {name: getattr(_tensor, code) for name, code in MONOIDS.items()}
_COMBINE_OP = {name: OPS[name].code for name in MONOIDS}


def _reduce_impl(*xs, dimensions, monoid, computation):
    n = len(xs) // 2
    operands = [valid_region(x, dimensions) for x in xs[:n]]   # dynamic sizes, at run time
    inits = xs[n:]
    if monoid is not None:
        return kernel_reduce(monoid, operands[0], dimensions, inits[0])
    return _tree_reduce(list(operands), list(inits), dimensions, computation)


def _vectorized(comp, arrays):
    """Evaluates scalar computation ``comp`` elementwise over same-shape ``arrays``."""
    from xarr._ops.elementwise import OPS, lax_apply
    env = {}
    for p, a in zip(comp.parameters, arrays):
        env[id(p)] = a
    for i in comp.instructions:
        if i.op == "parameter":
            continue
        if i.op == "constant":
            env[id(i)] = i.attrs["value"]
        elif i.op == "convert":
            env[id(i)] = env[id(i.operands[0])].astype(DTYPES[i.code])
        elif i.op == "broadcast":
            env[id(i)] = env[id(i.operands[0])]
        elif i.op == "tuple":
            env[id(i)] = tuple(env[id(o)] for o in i.operands)
        elif i.op in OPS:
            env[id(i)] = lax_apply(i.op, *[env[id(o)] for o in i.operands])
        else:
            raise TypeError(f"lax.reduce: the computation may only use elementwise ops, "
                            f"found {i.op}")
    out = env[id(comp.root)]
    return list(out) if isinstance(out, tuple) else [out]


def _tree_reduce(operands, inits, dims, comp):
    """Reduces dims by halving: operands are permuted so reduced dims are last and
    flattened to one axis R; while R > 1, pad R to even with the init values and combine
    the two halves elementwise with ``comp``."""
    from xarr._ops import structural as S
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
    from xarr import lax
    if r == 0:
        return _tuple_or_one([lax.broadcast_in_dim(i, out_shape, ()).copy() for i in inits])
    while r > 1:
        if r % 2:
            vals = [S.concatenate([v, lax.broadcast_in_dim(i, (outer, 1), ())], 1)
                    for v, i in zip(vals, inits)]
            r += 1
        half = r // 2
        lo = [S.slice(v, (0, 0), (outer, half)) for v in vals]
        hi = [S.slice(v, (0, half), (outer, r)) for v in vals]
        vals = _vectorized(comp, lo + hi)
        r = half
    # fold the init values in once
    vals = _vectorized(comp, [lax.broadcast_in_dim(i, (outer, 1), ()) for i in inits] + vals)
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


STRUCTURAL["reduce"] = StructuralOp("reduce", _reduce_rule, on_strided(_reduce_impl))


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
        fn = computation
        if monoid is not None:
            fn = getattr(_lax(), {"and": "bitwise_and", "or": "bitwise_or"}.get(monoid,
                                                                                 monoid))
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
    return _arg("REDUCE_ARGMAX", operand, axis, index_dtype, "argmax")


def argmin(operand, axis, index_dtype=np.int32):
    """Index of the first minimum along ``axis`` (NaN counts as the minimum)."""
    return _arg("REDUCE_ARGMIN", operand, axis, index_dtype, "argmin")


def _argkernel(x, axis, kernel):
    out = _tensor.empty(reduce_shape(x.shape, (axis,)), CODE_OF[np.dtype(np.int64)])
    _tensor.reduce_into(getattr(_tensor, kernel), out, _tensor.strided(x), (axis,))
    return out


def _arg_rule(types, axis, kernel):
    (t,) = types
    if KINDS[t.code] == "c":
        raise TypeError(f"lax.{kernel[7:].lower()}: not defined for complex operands")
    return TensorType(CODE_OF[np.dtype(np.int64)], reduce_shape(t.dims, (axis,)), None)


STRUCTURAL["arg_reduce"] = StructuralOp("arg_reduce", _arg_rule, on_strided(_argkernel))


def _arg(kernel, operand, axis, index_dtype, name):
    from xarr._ops import structural as S
    x = as_operand(operand)
    axis = operator.index(axis)
    if not 0 <= axis < x.ndim:
        raise ValueError(f"lax.{name}: axis {axis} out of range for shape {tuple(x.shape)}")
    if x.shape[axis] == 0:
        raise ValueError(f"lax.{name}: cannot take the {name} of an empty axis {axis} "
                         f"(shape {tuple(x.shape)})")
    r = S.apply("arg_reduce", [x], axis=axis, kernel=kernel)
    dt = as_dtype(index_dtype)
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
    return reduce(x, _lowest(x.dtype), "max", axes)


def reduce_min(operand, axes):
    x = as_operand(operand)
    _no_complex(x, "reduce_min")
    return reduce(x, _highest(x.dtype), "min", axes)


def reduce_and(operand, axes):
    x = as_operand(operand)
    return reduce(x, True if x.dtype == np.bool_ else -1 if x.dtype.kind == "i"
                  else int(np.iinfo(x.dtype).max), "and", axes)


def reduce_or(operand, axes):
    x = as_operand(operand)
    return reduce(x, False if x.dtype == np.bool_ else 0, "or", axes)


def _lowest(dt):
    if dt.kind == "f" or dt == DTYPES[10]:
        return float("-inf")
    if dt == np.bool_:
        return False
    return int(np.iinfo(dt).min)


def _highest(dt):
    if dt.kind == "f" or dt == DTYPES[10]:
        return float("inf")
    if dt == np.bool_:
        return True
    return int(np.iinfo(dt).max)


# ------------------------------------------------------------------------ NumPy frontend
def _np_axes(axis, ndim, fn):
    if axis is None:
        return tuple(range(ndim))
    from xarr._ops.manipulation import _axes
    return tuple(sorted(_axes(axis, ndim, fn)))


def _keep(r, shape, axes, keepdims):
    if not keepdims:
        return r
    return r.reshape(tuple(1 if i in axes else d for i, d in enumerate(shape)))


def _sum_dtype(dt):
    """NumPy's default accumulation dtype for sum/prod: small ints widen to int64 /
    uint64, bool to int64, floats and complex keep theirs."""
    return _SUM_DTYPE[dt]


def _sum_dtype_rule(dt):
    if dt == np.bool_ or (dt.kind == "i" and dt.itemsize < 8):
        return np.dtype(np.int64)
    if dt.kind == "u" and dt.itemsize < 8:
        return np.dtype(np.uint64)
    return dt


_SUM_DTYPE = {dt: _sum_dtype_rule(dt) for dt in DTYPES}


def _check_where(x, where, fn):
    """where= must broadcast to x's shape (NumPy): a larger mask would broadcast x."""
    if where is None:
        return
    from xarr._ops.elementwise import broadcast_shapes
    wshape = tuple(np.shape(where)) if not isinstance(where, (Tensor, Traced)) \
        else tuple(where.shape)
    if broadcast_shapes(wshape, tuple(x.shape), op=f"xa.{fn}") != tuple(x.shape):
        raise ValueError(f"xa.{fn}: where= of shape {wshape} does not broadcast to the "
                         f"operand's shape {tuple(x.shape)}")


def _masked(x, where, fill, fn):
    """x with the elements where ``where`` is False replaced by ``fill``."""
    if where is None:
        return x
    _check_where(x, where, fn)
    import xarr as xa
    return xa.where(where, x, fill)


def _np_reduce(x, init, name, axes, fn):
    """reduce(x, init, name, axes) for NumPy's ``fn`` (axes valid and sorted). An eager
    tensor goes straight to kernel_reduce, where reduce() ends too, without its variadic
    and tracing machinery (a 4x4 sum: 37 - 50 -> 4.5 - 7 us)."""
    if isinstance(init, np.generic):
        init = init.item()   # NumPy casts a NumPy scalar initial to x's dtype
    if type(init) in (int, float, bool):
        _int_scalar_check(f"xa.{fn}", init, x.dtype)   # as NumPy: 300 for int8 raises
        init = _tensor.scalar_tensor(init, CODE_OF[x.dtype])   # NumPy's cast: 1.5 -> 1
    if type(x) is Tensor and recorder([x]) is None:
        return kernel_reduce(name, x, axes, init)
    return reduce(x, init, name, axes)


def _monoid_np(name, fn, x, axis, dtype, keepdims, where, identity):
    x = as_operand(x)
    axes = _np_axes(axis, x.ndim, fn)
    x = valid_region(x, axes)
    dt = as_dtype(dtype) if dtype is not None else _sum_dtype(x.dtype)
    if x.dtype != dt:
        x = x.astype(dt)
    x = _masked(x, where, identity, fn)
    r = _np_reduce(x, identity, name, axes, fn)
    return _keep(r, x.shape, axes, keepdims)


def sum(x, axis=None, dtype=None, keepdims=False, where=None):  # noqa: A001
    """NumPy's sum: pairwise float summation; ints widen to 64 bits by default. The init
    is +0, as NumPy's (a sum of -0.0s is +0.0)."""
    return _monoid_np("add", "sum", x, axis, dtype, keepdims, where, 0)


def prod(x, axis=None, dtype=None, keepdims=False, where=None):
    return _monoid_np("mul", "prod", x, axis, dtype, keepdims, where, 1)


def _extreme(name, fn, x, axis, keepdims, where, initial):
    x = as_operand(x)
    if KINDS[CODE_OF[x.dtype]] == "c":
        raise TypeError(f"xa.{fn}: complex values have no order here (NumPy's "
                        f"lexicographic complex {fn} is not supported)")
    axes = _np_axes(axis, x.ndim, fn)
    x = valid_region(x, axes)
    identity = _lowest(x.dtype) if name == "max" else _highest(x.dtype)
    if initial is None:
        if where is not None:
            raise ValueError(f"xa.{fn}: reduction with where= needs an initial value")
        if builtins.any(x.shape[a] == 0 for a in axes) and x.size == 0:
            raise ValueError(f"xa.{fn}: zero-size array to reduction operation "
                             f"{'maximum' if name == 'max' else 'minimum'} which has no "
                             f"identity")
        init = identity
    else:
        init = initial
    x = _masked(x, where, identity, fn)
    r = _np_reduce(x, init, name, axes, fn)
    return _keep(r, x.shape, axes, keepdims)


def max(x, axis=None, keepdims=False, where=None, initial=None):  # noqa: A001
    """NumPy's max (amax): NaN propagates."""
    return _extreme("max", "max", x, axis, keepdims, where, initial)


def min(x, axis=None, keepdims=False, where=None, initial=None):  # noqa: A001
    """NumPy's min (amin): NaN propagates."""
    return _extreme("min", "min", x, axis, keepdims, where, initial)


def _traced_dynamic_dims(x):
    """Dims of a traced x whose size set_dimension_size made a run-time value (x produced
    directly by a chain of set_dimension_size). Eager tensors need none of this:
    valid_region has already cut them to their dynamic sizes."""
    dims = set()
    instr = x.instr if type(x) is Traced else None
    while instr is not None and instr.op == "set_dimension_size":
        dims.add(instr.attrs["dimension"])
        instr = instr.operands[0]
    return dims


def _count(x, axes, where):
    """Elements reduced over ``axes``: an int, or under tracing a traced int64 scalar when
    some axis has a run-time size (set_dimension_size), or with ``where`` the per-output
    counts of the mask."""
    import xarr as xa
    if where is None:
        dynamic = _traced_dynamic_dims(x) & set(axes)
        n = 1
        for a in axes:
            if a not in dynamic:
                n *= x.shape[a]
        for a in sorted(dynamic):
            n = n * _structural.get_dimension_size(x, a).astype(np.int64)
        return n
    mask = xa.broadcast_to(as_operand(where), x.shape).astype(np.int64)
    return reduce(mask, 0, "add", axes)


def mean(x, axis=None, dtype=None, keepdims=False, where=None):
    """NumPy's mean: integers average in float64; float16 accumulates in float32."""
    x = as_operand(x)
    _check_where(x, where, "mean")
    axes = _np_axes(axis, x.ndim, "mean")
    x = valid_region(x, axes)
    if dtype is not None:
        acc = out = as_dtype(dtype)
    elif x.dtype.kind in "biu":
        acc = out = np.dtype(np.float64)
    elif x.dtype == np.float16 or x.dtype == DTYPES[10]:
        acc, out = np.dtype(np.float32), x.dtype
    else:
        acc = out = x.dtype
    s = sum(x, axes, acc, keepdims, where)
    n = _count(x, axes, where)
    if isinstance(n, int):
        n = float(n)   # a weak Python float, as the int was: the operator's fast path
    else:
        n = (n if n.ndim == 0 else _keep(n, x.shape, axes, keepdims)).astype(acc)
    r = s / n
    return r if r.dtype == out else r.astype(out)


def var(x, axis=None, dtype=None, ddof=0, keepdims=False, where=None):
    """NumPy's var: sum(|x - mean(x)|**2) / (n - ddof). Eagerly it runs as a cached
    xa.jit of the same function, so it reads x twice: once for the mean, once for the
    fused (x - mean)**2 -> sum kernel (kind=kInput)."""
    x = as_operand(x)
    _check_where(x, where, "var")
    axes = _np_axes(axis, x.ndim, "var")
    x = valid_region(x, axes)
    if where is None and recorder([x]) is None and _trace.tracing() is None:
        return _var_jitted()(x, axes, None if dtype is None else as_dtype(dtype), ddof,
                             keepdims)
    return _var(x, axes, dtype, ddof, keepdims, where)


def _var(x, axes, dtype, ddof, keepdims, where=None):
    import xarr as xa
    m = mean(x, axes, dtype, True, where)
    d = x - m
    sq = xa.real(d * xa.conjugate(d)) if d.dtype.kind == "c" else d * d
    # elementwise results carry no run-time sizes: give sq x's, so the sum skips padding
    for a in sorted(_traced_dynamic_dims(x) & set(axes)):
        sq = _structural.set_dimension_size(sq, _structural.get_dimension_size(x, a), a)
    s = sum(sq, axes, None, keepdims, where)
    n = _count(x, axes, where)
    if not isinstance(n, int):
        n = (n if n.ndim == 0 else _keep(n, x.shape, axes, keepdims)).astype(s.dtype)
    return s / xa.maximum(n - ddof, 0) if not isinstance(n, int) else s / builtins_max(
        n - ddof, 0)


_VAR_JIT = []


def _var_jitted():
    if not _VAR_JIT:
        from xarr._graph.jit import Jitted
        _VAR_JIT.append(Jitted(_var, static_argnums=(1, 2, 3, 4)))
    return _VAR_JIT[0]


def builtins_max(a, b):
    return a if a > b else b


def std(x, axis=None, dtype=None, ddof=0, keepdims=False, where=None):
    import xarr as xa
    return xa.sqrt(var(x, axis, dtype, ddof, keepdims, where))


def _arg_np(kernel, fn, x, axis, keepdims):
    x = as_operand(x)
    if axis is None:
        r = _arg(kernel, x.reshape((x.size,)), 0, np.int64, fn)
        return r.reshape((1,) * x.ndim) if keepdims else r
    from xarr._ops.manipulation import normalize_axis
    a = normalize_axis(axis, x.ndim, fn)
    r = _arg(kernel, x, a, np.int64, fn)
    return _keep(r, x.shape, (a,), keepdims)


def np_argmax(x, axis=None, keepdims=False):
    return _arg_np("REDUCE_ARGMAX", "argmax", x, axis, keepdims)


def np_argmin(x, axis=None, keepdims=False):
    return _arg_np("REDUCE_ARGMIN", "argmin", x, axis, keepdims)


def _as_bool(x):
    x = as_operand(x)
    return x if x.dtype == np.bool_ else (x != 0)


def any(x, axis=None, keepdims=False, where=None):  # noqa: A001
    x = _as_bool(x)
    axes = _np_axes(axis, x.ndim, "any")
    r = _np_reduce(_masked(x, where, False, "any"), False, "or", axes, "any")
    return _keep(r, x.shape, axes, keepdims)


def all(x, axis=None, keepdims=False, where=None):  # noqa: A001
    x = _as_bool(x)
    axes = _np_axes(axis, x.ndim, "all")
    r = _np_reduce(_masked(x, where, True, "all"), True, "and", axes, "all")
    return _keep(r, x.shape, axes, keepdims)


def count_nonzero(x, axis=None, keepdims=False):
    x = _as_bool(x)
    return sum(x, axis, np.int64, keepdims)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    from xarr._ops.manipulation import isclose
    return bool(all(isclose(a, b, rtol, atol, equal_nan)))


def array_equal(a1, a2, equal_nan=False):
    import xarr as xa
    a1, a2 = as_operand(a1), as_operand(a2)
    if tuple(a1.shape) != tuple(a2.shape):
        return False
    eq = xa.equal(a1, a2)
    if equal_nan and a1.dtype.kind in "fc":
        eq = xa.logical_or(eq, xa.logical_and(xa.isnan(a1), xa.isnan(a2)))
    return bool(all(eq))


# ------------------------------------------------------------------------ scans
_SCAN = {"add": "SCAN_SUM", "mul": "SCAN_PROD", "max": "SCAN_MAX", "min": "SCAN_MIN"}
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
    from xarr._ops import structural as S
    src = S.rev(x, (axis,)) if reverse else x
    out = _tensor.empty(x.shape, CODE_OF[x.dtype])
    _tensor.scan_into(getattr(_tensor, _SCAN[op]), out, src, axis)
    return S.rev(out, (axis,)) if reverse else out


STRUCTURAL["cumulative"] = StructuralOp("cumulative", _scan_rule, on_strided(_scan_impl))


def _cum(op, operand, axis, reverse):
    from xarr._ops import structural as S
    x = as_operand(operand)
    axis = operator.index(axis)
    if -x.ndim <= axis < 0:
        axis += x.ndim            # out-of-range axes reach _scan_rule's error unchanged
    return S.apply("cumulative", [x], axis=axis, op=op, reverse=bool(reverse))


def cumsum(operand, axis=0, reverse=False):
    """lax.cumsum: inclusive running sum along axis (accumulated in order)."""
    return _cum("add", operand, axis, reverse)


def cumprod(operand, axis=0, reverse=False):
    return _cum("mul", operand, axis, reverse)


def cummax(operand, axis=0, reverse=False):
    return _cum("max", operand, axis, reverse)


def cummin(operand, axis=0, reverse=False):
    return _cum("min", operand, axis, reverse)


def np_cumsum(x, axis=None, dtype=None):
    """NumPy's cumsum: flattens when axis is None; small ints widen like sum."""
    return _np_cum("add", x, axis, dtype)


def np_cumprod(x, axis=None, dtype=None):
    return _np_cum("mul", x, axis, dtype)


def _np_cum(op, x, axis, dtype):
    x = as_operand(x)
    if axis is None:
        x = x.reshape((x.size,))
        axis = 0
    from xarr._ops.manipulation import normalize_axis
    a = normalize_axis(axis, x.ndim, "cumsum" if op == "add" else "cumprod")
    dt = as_dtype(dtype) if dtype is not None else _sum_dtype(x.dtype)
    if x.dtype != dt:
        x = x.astype(dt)
    return _cum(op, x, a, False)
