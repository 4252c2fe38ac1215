"""NumPy's reductions and scans (``xa.sum`` ... ``xa.var``, ``xa.argmax``, ``xa.cumsum``,
``xa.any`` / ``xa.all``, ``xa.allclose``, ``xa.array_equal``) and the Array API's
``cumulative_sum`` / ``cumulative_prod``, built on lax.reduce and the scans
(xarr/_ops/reduction.py): NumPy's axis, dtype, keepdims, where= and initial= rules, its
accumulation dtypes (small ints widen to 64 bits), float sums pairwise (O(log n) error).
Eager tensors skip lax.reduce's tracing machinery (``_np_reduce``).
"""

import builtins

import numpy as np

from xarr import _tensor
from xarr._axes import is_scalar_axis, normalize_axes, normalize_axis
from xarr._dispatch import register
from xarr._dtypes import CODE_OF, DTYPES, KINDS, as_dtype, check_python_int
from xarr._graph.jit import Jitted
from xarr._graph.trace import Traced, recorder, tracing
from xarr._numpy import ufuncs as U
from xarr._numpy.manipulation import broadcast_to, concatenate, isclose
from xarr._ops import structural as S
from xarr._ops.creation import full
from xarr._ops.elementwise import broadcast_shapes
from xarr._bindings import reduce as _reduce_kernels
from xarr._bindings.scan import scan_into
from xarr._ops.reduction import (MONOIDS, SCAN_KERNELS, arg_reduce, cumulative, highest,
                                 kernel_reduce, lowest, reduce)
from xarr._ops.structural import as_operand, valid_region
from xarr._tensor import Tensor


def _np_axes(axis, ndim, fn):
    if axis is None:
        return tuple(range(ndim))
    if fn not in ("mean", "var") and is_scalar_axis(axis, ndim):
        return ()      # NumPy's ufunc reductions take axis 0 / -1 of a 0-d array
    return tuple(sorted(normalize_axes(axis, ndim, fn)))


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
    return U.where(where, x, fill)


def _np_reduce(x, init, name, axes, fn):
    """reduce(x, init, name, axes) for NumPy's ``fn`` (axes valid and sorted). An eager
    tensor goes straight to kernel_reduce, where reduce() ends too, without its variadic
    and tracing machinery (a 4x4 sum: 37 - 50 -> 4.5 - 7 us)."""
    if isinstance(init, np.generic):
        init = init.item()   # NumPy casts a NumPy scalar initial to x's dtype
    if type(init) in (int, float, bool):
        check_python_int(f"xa.{fn}", init, x.dtype)   # as NumPy: 300 for int8 raises
        init = _tensor.scalar_tensor(init, CODE_OF[x.dtype])   # NumPy's cast: 1.5 -> 1
    if type(x) is Tensor and recorder([x]) is None:
        return kernel_reduce(name, x, axes, init)
    return reduce(x, init, name, axes)


def _whole(name, x, axis, keepdims, where, *unset):
    """``x`` reduced over every dim by ``name`` into a 0-d tensor, straight on the kernel
    (the small-call path of xa.sum(t), xa.any(mask) ...: _tensor.whole_reduce, whose
    rules are whole_plan's), or None when the general path must decide. Only for the call
    with no axis, keepdims or where, and every argument in ``unset`` None (sum's dtype,
    max's initial)."""
    if axis is not None or keepdims or where is not None or unset.count(None) != len(unset):
        return None
    return _tensor.whole_reduce(x, name)


def _eager_strided(x):
    """Tensor x may go straight to a kernel: no lazy or traced context, untiled, no
    dynamic sizes (the small-call paths below check this)."""
    return not _tensor.lazy_active() and tracing() is None and not _tensor.is_tiled(x) \
        and not (S.has_dynamic_sizes() and S.dynamic_sizes_of(x))


def _flat(x):
    """The elements of eager strided x in row-major order as a 1-D tensor: a view when x
    is C-contiguous, else a row-major copy."""
    flat = _tensor.flat_view(x)
    return flat if flat is not None else _tensor.flat_view(x.copy())


def whole_plan(name, code):
    """Whether _tensor.whole_reduce may reduce a dtype-``code`` tensor by ``name`` on the
    kernel and give what NumPy gives: (kernel, +0.0 start, one dim only) or False. A sum
    of int8 is False (NumPy sums it in int64), as are any / all of non-bools (the general
    path converts), max / min / argmax of complex. A float or complex sum of -0.0s gives
    +0.0 (NumPy's init), which the +0.0 start asks for (clear_negative_zero)."""
    kind = KINDS[code]
    if name in ("argmax", "argmin"):
        return (_ARG_KERNELS[name], False, True) if kind != "c" else False
    if name == "add" and _sum_dtype(DTYPES[code]) != DTYPES[code] or \
            name in ("and", "or") and kind != "b" or \
            name in ("max", "min") and kind == "c":
        return False
    return MONOIDS[name], name == "add" and kind in "fc", False


_ARG_KERNELS = {"argmax": _reduce_kernels.REDUCE_ARGMAX,
                "argmin": _reduce_kernels.REDUCE_ARGMIN}
_tensor.register_whole_reduce(whole_plan, _reduce_kernels.reduce_whole)


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
    if (r := _whole("add", x, axis, keepdims, where, dtype)) is not None:
        return r
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
    identity = lowest(x.dtype) if name == "max" else highest(x.dtype)
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
    if (r := _whole("max", x, axis, keepdims, where, initial)) is not None:
        return r
    return _extreme("max", "max", x, axis, keepdims, where, initial)


def min(x, axis=None, keepdims=False, where=None, initial=None):  # noqa: A001
    """NumPy's min (amin): NaN propagates."""
    if (r := _whole("min", x, axis, keepdims, where, initial)) is not None:
        return r
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
    if where is None:
        dynamic = _traced_dynamic_dims(x) & set(axes)
        n = 1
        for a in axes:
            if a not in dynamic:
                n *= x.shape[a]
        for a in sorted(dynamic):
            n = n * S.get_dimension_size(x, a).astype(np.int64)
        return n
    mask = broadcast_to(as_operand(where), x.shape).astype(np.int64)
    return reduce(mask, 0, "add", axes)


def mean(x, axis=None, dtype=None, keepdims=False, where=None):
    """NumPy's mean: integers average in float64; float16 accumulates in float32."""
    if dtype is None and type(x) is Tensor and KINDS[CODE_OF[x.dtype]] in "fc" and \
            x.dtype != np.float16 and x.dtype != DTYPES[10] and \
            (s := _whole("add", x, axis, keepdims, where)) is not None:
        return s / float(x.size)    # the general path's sum and division, without its steps
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
    if where is None and recorder([x]) is None and tracing() is None:
        return _var_jitted(x, axes, None if dtype is None else as_dtype(dtype), ddof,
                             keepdims)
    return _var(x, axes, dtype, ddof, keepdims, where)


def _var(x, axes, dtype, ddof, keepdims, where=None):
    m = mean(x, axes, dtype, True, where)
    d = x - m
    sq = U.real(d * U.conjugate(d)) if d.dtype.kind == "c" else d * d
    # elementwise results carry no run-time sizes: give sq x's, so the sum skips padding
    for a in sorted(_traced_dynamic_dims(x) & set(axes)):
        sq = S.set_dimension_size(sq, S.get_dimension_size(x, a), a)
    s = sum(sq, axes, None, keepdims, where)
    n = _count(x, axes, where)
    if not isinstance(n, int):
        n = (n if n.ndim == 0 else _keep(n, x.shape, axes, keepdims)).astype(s.dtype)
    return s / U.maximum(n - ddof, 0) if not isinstance(n, int) else s / builtins.max(
        n - ddof, 0)


# Eager var: one cached xa.jit of _var per signature (mean, then a fused kInput sum).
_var_jitted = Jitted(_var, static_argnums=(1, 2, 3, 4))


def std(x, axis=None, dtype=None, ddof=0, keepdims=False, where=None):
    return U.sqrt(var(x, axis, dtype, ddof, keepdims, where))


def _arg_np(fn, x, axis, keepdims):
    if axis is None and not keepdims and (r := _tensor.whole_reduce(x, fn)) is not None:
        return r
    x = as_operand(x)
    kernel = "REDUCE_ARGMAX" if fn == "argmax" else "REDUCE_ARGMIN"
    if axis is None:
        r = arg_reduce(kernel, x.reshape((x.size,)), 0, np.int64, fn)
        return r.reshape((1,) * x.ndim) if keepdims else r
    if x.ndim == 0:                 # NumPy: a 0-d array counts as 1-d here
        return _arg_np(fn, x.reshape((1,)), axis, False)
    a = normalize_axis(axis, x.ndim, fn)
    r = arg_reduce(kernel, x, a, np.int64, fn)
    return _keep(r, x.shape, (a,), keepdims)


def argmax(x, axis=None, keepdims=False):
    return _arg_np("argmax", x, axis, keepdims)


def argmin(x, axis=None, keepdims=False):
    return _arg_np("argmin", x, axis, keepdims)


def _as_bool(x):
    x = as_operand(x)
    return x if x.dtype == np.bool_ else (x != 0)


def any(x, axis=None, keepdims=False, where=None):  # noqa: A001
    if (r := _whole("or", x, axis, keepdims, where)) is not None:
        return r
    x = _as_bool(x)
    axes = _np_axes(axis, x.ndim, "any")
    r = _np_reduce(_masked(x, where, False, "any"), False, "or", axes, "any")
    return _keep(r, x.shape, axes, keepdims)


def all(x, axis=None, keepdims=False, where=None):  # noqa: A001
    if (r := _whole("and", x, axis, keepdims, where)) is not None:
        return r
    x = _as_bool(x)
    axes = _np_axes(axis, x.ndim, "all")
    r = _np_reduce(_masked(x, where, True, "all"), True, "and", axes, "all")
    return _keep(r, x.shape, axes, keepdims)


def count_nonzero(x, axis=None, keepdims=False):
    x = _as_bool(x)
    return sum(x, axis, np.int64, keepdims)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(all(isclose(a, b, rtol, atol, equal_nan)))


def array_equal(a1, a2, equal_nan=False):
    a1, a2 = as_operand(a1), as_operand(a2)
    if tuple(a1.shape) != tuple(a2.shape):
        return False
    eq = U.equal(a1, a2)
    if equal_nan and a1.dtype.kind in "fc":
        eq = U.logical_or(eq, U.logical_and(U.isnan(a1), U.isnan(a2)))
    return bool(all(eq))



def cumsum(x, axis=None, dtype=None):
    """NumPy's cumsum: flattens when axis is None; small ints widen like sum."""
    return _np_cum("add", x, axis, dtype)


def cumprod(x, axis=None, dtype=None):
    return _np_cum("mul", x, axis, dtype)


def _np_cum(op, x, axis, dtype):
    if dtype is None and type(x) is Tensor and x.ndim and _eager_strided(x) and \
            _sum_dtype(x.dtype) == x.dtype:
        # the small-call path: the scan kernel directly (the general path's kernel)
        src, a = x, None
        if axis is None:
            src, a = (x if x.ndim == 1 else _flat(x)), 0
        elif type(axis) is int and -x.ndim <= axis < x.ndim:
            a = axis % x.ndim
        if a is not None:
            out = _tensor.empty(src.shape, CODE_OF[src.dtype])
            if out.size:
                scan_into(SCAN_KERNELS[op], out, src, a)
            return out
    x = as_operand(x)
    if axis is None or x.ndim == 0:     # (NumPy: a 0-d array counts as 1-d)
        x = x.reshape((x.size,))
        axis = 0 if axis is None else axis
    a = normalize_axis(axis, x.ndim, "cumsum" if op == "add" else "cumprod")
    dt = as_dtype(dtype) if dtype is not None else _sum_dtype(x.dtype)
    if x.dtype != dt:
        x = x.astype(dt)
    return cumulative(op, x, a, False)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Array API cumulative_sum (NumPy's cumsum; ``include_initial`` prepends a 0)."""
    r = cumsum(x, axis, dtype)
    return _with_initial(r, axis, include_initial, 0)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    r = cumprod(x, axis, dtype)
    return _with_initial(r, axis, include_initial, 1)


def _with_initial(r, axis, include_initial, value):
    if not include_initial:
        return r
    a = 0 if axis is None else axis % r.ndim
    shape = list(r.shape)
    shape[a] = 1
    return concatenate([full(tuple(shape), value, dtype=r.dtype), r], axis=a)


register(sum=sum, prod=prod, mean=mean, var=var, std=std, max=max, min=min, argmax=argmax,
         argmin=argmin, any=any, all=all, cumsum=cumsum, cumprod=cumprod)
