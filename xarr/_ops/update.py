"""Item assignment on traced values (inside ``xa.jit`` and ``xa.lazy``) as functional
updates, PyTorch-functionalization style: ``x[key] = v`` makes the new value of x from
lax ops and rebinds the Python object to it (Traced.__setitem__), so NumPy code like

    u[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1]       -> dynamic_update_slice
    u[::2] = 0                                        -> pad + select
    out[mask] = 0                                     -> select
    x[idx] = v                                        -> scatter (last write wins)
    u[1:-1] += v                                      -> the same, after NumPy's checks

traces unchanged. The value is broadcast to the indexed shape and cast to x's dtype as
NumPy's assignment casts (unsafely). Writes through a traced *view* (``w = u[1:]`` then
``w[0] = 1``) update the base too, as NumPy's views do (Traced keeps the view's base and
key). A jitted function's arguments are not changed for the caller (jax's semantics: the
function computes new values).

What stays an error under xa.jit: a masked assignment whose value has one element per
True (its length is data-dependent); Python control flow on traced values.
"""

import numpy as np

from xarr._dispatch import register
from xarr._dtypes import CODE_OF
from xarr._graph.trace import MaskedSelection, Traced
from xarr._ops import elementwise as E
from xarr._ops import gather as G
from xarr._ops import indexing as I
from xarr._ops import structural as S
from xarr._ops.creation import arange, full

_FLAT = G.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                  scatter_dims_to_operand_dims=(0,))


def _filled(shape, value, dtype):
    """full(shape, value, dtype) as a broadcast of one element: under jit a scalar constant
    the fusion reads from a register, not an array of ``shape`` baked into the program."""
    return S.broadcast_in_dim(full((), value, dtype), tuple(shape), ())


def _value(x, value, shape):
    """value cast to x's dtype and broadcast to ``shape``."""
    v = E.to_tensor_or_scalar(value)
    if not hasattr(v, "shape"):
        return _filled(shape, v, x.dtype)
    if v.dtype != x.dtype:
        v = E.astype(v, CODE_OF[x.dtype])
    if tuple(v.shape) != tuple(shape):
        try:
            np.broadcast_shapes(tuple(v.shape), tuple(shape))
        except ValueError:
            raise ValueError(f"could not broadcast input array from shape {tuple(v.shape)} "
                             f"into shape {tuple(shape)}") from None
        if len(v.shape) > len(shape):           # leading 1s NumPy drops
            v = S.reshape(v, tuple(v.shape)[len(v.shape) - len(shape):])
        v = S.broadcast_in_dim(v, tuple(shape),
                               tuple(range(len(shape) - len(v.shape), len(shape))))
    return v


def _basic(x, basic, value):
    """x with the view of basic key ``basic`` replaced by value: unit steps by
    dynamic_update_slice, other steps by pad (interior padding places the elements) and a
    select. Example: x f32[10], x[1::3] = v (3 elements) -> v padded by (1, 2, 2) =
    [_, v0, _, _, v1, _, _, v2, _, _] and a mask padded the same."""
    shape = tuple(x.shape)
    plan = [p for p in I._tensor.basic_index_plan(shape, basic) if p[0] is not None]
    v = _value(x, value, I._view_shape(shape, basic))
    if any(length == 0 for _, _, _, length, _ in plan):
        return x                                      # nothing is written
    block = tuple(1 if dropped else length for _, dropped, _, length, _ in plan)
    v = S.reshape(v, block)
    rev = [d for d, dropped, _, length, step in plan if step < 0 and length > 1]
    if rev:
        v = S.rev(v, rev)
    lows = [start + (length - 1) * step if step < 0 else start
            for _, _, start, length, step in plan]
    if all(abs(step) == 1 or length == 1 for _, _, _, length, step in plan):
        return S.dynamic_update_slice(x, v, lows)
    cfg = [(lo, shape[d] - lo - ((length - 1) * abs(step) + 1),
            abs(step) - 1 if length > 1 else 0)
           for (d, _, _, length, step), lo in zip(plan, lows)]
    placed = S.pad(v, np.zeros((), x.dtype).item(), cfg)
    mask = S.pad(_filled(block, True, np.bool_), False, cfg)
    return E.lax_apply("select", mask, placed, x)


def _check_bounds(x, key):
    """IndexError now for a concrete index array out of range (in xa.lazy the positions
    are computed later, where the error would surface at an unrelated write)."""
    plan = I._plan(tuple(x.shape), I.normalize_key(key))
    for _, kind, val, d in plan.adv:
        if kind == "array" and not isinstance(val, Traced) and val.size:
            a = np.asarray(val)
            n = x.shape[d]
            bad = a[(a >= n) | (a < -n)]
            if bad.size:
                raise IndexError(f"index {int(bad[0])} is out of bounds for axis {d} with "
                                 f"size {n}")


def _scattered(x, key, value):
    """x with x[key] = value for any key (integer arrays, masks, mixed): the flat
    positions the key selects (the same key applied to an iota), then one XLA scatter of
    the values into the flat x, the last write in key order winning (NumPy's rule)."""
    n = x.size
    _check_bounds(x, key)
    positions = I.getitem(S.reshape(arange(n, dtype=np.int64), tuple(x.shape)), key)
    k = positions.size
    v = S.reshape(_value(x, value, tuple(positions.shape)), (k,))
    flat = S.reshape(x, (n,))
    new = G.scatter(flat, S.reshape(positions, (k, 1)), v, _FLAT, mode="drop")
    return S.reshape(new, tuple(x.shape))


def _masked_back(x, key, sel):
    """x[mask] = sel, where sel is x[mask] updated in place (``x[mask] *= -1``): a select
    of sel's full-shape values where the mask is True."""
    m = key[0] if type(key) is tuple and len(key) == 1 else key
    if sel.key is not key or type(m) is not Traced or \
            tuple(m.shape) != tuple(x.shape)[:len(m.shape)]:
        raise TypeError("xa.jit: x[mask] from one key written back with another: only "
                        "x[mask] op= v (the same mask, covering leading dims) is traced")
    full_mask = S.broadcast_in_dim(m, tuple(x.shape), tuple(range(len(m.shape))))
    return E.lax_apply("select", full_mask, _value(x, sel.values, tuple(x.shape)), x)


def functional_setitem(x, key, value):
    """The value of x after ``x[key] = value`` (NumPy's rules), built from lax ops."""
    if type(value) is MaskedSelection:
        return _masked_back(x, key, value)
    items = I.normalize_key(key)
    plan = I._plan(tuple(x.shape), items)
    if not plan.adv:
        return _basic(x, plan.basic, value)
    mask = I._single_mask(plan)
    if mask is not None and mask[0] == 0:
        # out[mask, ...] = v with v broadcasting over the selected rows (its length is not
        # the data-dependent count): the rows of the basic view selected, one select
        m = mask[2]
        sub = I.getitem(x, plan.basic)
        rest = tuple(sub.shape)[len(m.shape):]
        v = E.to_tensor_or_scalar(value)
        vshape = tuple(getattr(v, "shape", ()))
        if len(vshape) == len(rest) + 1 and vshape[0] == 1:
            v, vshape = S.reshape(v, vshape[1:]), vshape[1:]
        if len(vshape) <= len(rest):
            v = S.broadcast_in_dim(_value(x, v, rest), tuple(sub.shape),
                                   tuple(range(len(m.shape), len(sub.shape))))
            m = S.broadcast_in_dim(m, tuple(sub.shape), tuple(range(len(m.shape))))
            return _basic(x, plan.basic, E.lax_apply("select", m, v, sub))
    return _scattered(x, key, value)


def inplace(name, target, other):
    """target <op>= other on a traced target: NumPy's checks (same_kind cast, no shape
    growth), then target[...] = target <op> other (through a view, the base too)."""
    other_v = E.to_tensor_or_scalar(other)
    form, opdef = E.NUMPY_FUNCTIONS[name]
    res_dt = E.resolve_numpy(form, opdef, E.promote([target, other_v]))[1]
    if not np.can_cast(res_dt, target.dtype, "same_kind"):
        raise TypeError(f"xa.{name}: cannot cast the result {res_dt} to the in-place "
                        f"target's {target.dtype} under casting rule 'same_kind'")
    shape = E.broadcast_shapes(tuple(target.shape), tuple(getattr(other_v, "shape", ())),
                               op=f"xa.{name}")
    if shape != tuple(target.shape):
        raise ValueError(f"xa.{name}: non-broadcastable output operand with shape "
                         f"{tuple(target.shape)} doesn't match the broadcast shape {shape}")
    target[...] = E.numpy_apply(name, target, other_v)
    return target


def contains_traced(obj):
    """Whether a (nested) list or tuple holds a traced value."""
    return any(isinstance(v, Traced) or (type(v) in (list, tuple) and contains_traced(v))
               for v in obj)


def stack_sequence(obj, dtype=None):
    """xa.asarray([...]) of a nested sequence holding traced values (under xa.jit,
    ``xa.array([10 * (y - x), x * (28 - z) - y, x * y - 8 / 3 * z])``): the elements
    promoted together (NumPy's rules, Python scalars weak) and stacked along new leading
    dims. Example: [traced f64[], 1.0, 2] -> f64[3]."""
    def leaves(o):
        for v in o:
            if type(v) in (list, tuple):
                yield from leaves(v)
            else:
                yield v
    # (NumPy's array construction types Python scalars by default - float64, int64 - not
    # weakly: np.array([np.float32(1), 1.5]) is float64)
    default = {bool: np.dtype(np.bool_), int: np.dtype(np.int64), float: np.dtype(np.float64),
               complex: np.dtype(np.complex128)}
    dt = np.dtype(dtype) if dtype is not None else np.result_type(
        *[default.get(type(v), None) or np.dtype(v.dtype) for v in leaves(obj)])

    def build(o):
        parts = [build(v) if type(v) in (list, tuple) else
                 (E.astype(v, CODE_OF[dt]) if hasattr(v, "shape") and v.dtype != dt else
                  (full((), v, dt) if not hasattr(v, "shape") else v)) for v in o]
        shapes = {tuple(p.shape) for p in parts}
        if len(shapes) != 1:
            raise ValueError(f"asarray: the sequence's elements have different shapes "
                             f"{sorted(shapes)}")
        shape = shapes.pop()
        return S.concatenate([S.reshape(p, (1,) + shape) for p in parts], 0)
    return build(obj)


register(functional_setitem=functional_setitem, traced_inplace=inplace,
         stack_sequence=stack_sequence, contains_traced=contains_traced)
