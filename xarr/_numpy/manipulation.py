"""NumPy's array-manipulation functions (``xa.*``), each built on the structural ops of
xarr/_ops/structural.py, so they run eagerly, under ``xa.jit`` and in ``xa.lazy`` alike.
NumPy's rules: negative axes count from the end, axis errors raise ``ValueError``
(NumPy's AxisError is a ValueError) naming the function, the axis and the rank.
"""

import builtins
import operator

import numpy as np

from xarr import _tensor
from xarr._axes import is_scalar_axis, normalize_axes, normalize_axis
from xarr._bindings.indexing import repeat_indices
from xarr._dispatch import register
from xarr._dtypes import CODE_OF
from xarr._graph.trace import Traced
from xarr._numpy import ufuncs as U
from xarr._ops import layout as _layout
from xarr._ops import structural as S
from xarr._ops.conversion import asarray
from xarr._ops.elementwise import broadcast_shapes as _broadcast_shapes
from xarr._ops.elementwise import promote, to_tensor_or_scalar
from xarr._ops.indexing import take
from xarr._tensor import Tensor


def _arr(x):
    return S.as_operand(x)


def shape(a):
    """NumPy's ``np.shape``: the shape of a tensor, traced value, array or nested list."""
    return tuple(a.shape) if hasattr(a, "shape") else _arr(a).shape


def ndim(a):
    """NumPy's ``np.ndim``."""
    return len(shape(a))


def size(a, axis=None):
    """NumPy's ``np.size``: the element count, or the extent of ``axis`` (an int or a
    tuple of ints: their product). Example: size(zeros((2, 3)), 1) -> 3."""
    dims = shape(a)
    if axis is None:
        axes = range(len(dims))
    else:
        axes = normalize_axes(axis, len(dims), "size")
    n = 1
    for d in axes:
        n *= dims[d]
    return n


def ravel(x):
    x = _arr(x)
    return x.reshape((x.size,))


def moveaxis(x, source, destination):
    x = _arr(x)
    n = x.ndim
    src = normalize_axes(source, n, "moveaxis")
    dst = normalize_axes(destination, n, "moveaxis")
    if len(src) != len(dst):
        raise ValueError(f"xa.moveaxis: source {source} and destination {destination} must "
                         f"have the same number of elements")
    order = [a for a in range(n) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return S.transpose(x, tuple(order))


def swapaxes(x, axis1, axis2):
    x = _arr(x)
    a, b = normalize_axis(axis1, x.ndim, "swapaxes"), normalize_axis(axis2, x.ndim, "swapaxes")
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return S.transpose(x, tuple(perm))


def squeeze(x, axis=None):
    x = _arr(x)
    if axis is None:
        dims = tuple(i for i, d in enumerate(x.shape) if d == 1)
    elif is_scalar_axis(axis, x.ndim):
        dims = ()           # NumPy takes axis 0 / -1 of a 0-d array
    else:
        dims = normalize_axes(axis, x.ndim, "squeeze")
        for d in dims:
            if x.shape[d] != 1:
                raise ValueError(f"xa.squeeze: cannot select an axis to squeeze out which "
                                 f"has size not equal to one (axis {d}, shape {x.shape})")
    return S.squeeze(x, dims) if dims else x


def expand_dims(x, axis):
    x = _arr(x)
    n = x.ndim + (len(axis) if isinstance(axis, (tuple, list)) else 1)
    return S.expand_dims(x, normalize_axes(axis, n, "expand_dims"))


def _common(arrays, fn):
    if not len(arrays):
        raise ValueError(f"xa.{fn}: need at least one array")
    if type(arrays[0]) is Tensor:   # tensors of one dtype: nothing to promote
        dt = arrays[0].dtype
        if all(type(a) is Tensor and a.dtype == dt for a in arrays):
            return list(arrays)
    vals = [_arr(a) for a in arrays]
    dt = promote([to_tensor_or_scalar(v) for v in vals])
    return [v if v.dtype == dt else v.astype(dt) for v in vals]


def concatenate(arrays, axis=0, dtype=None):
    if dtype is None and type(axis) is int and -64 < axis < 64 and type(arrays) in (list, tuple):
        # tensors of one dtype and rank: one C call, no promotion or graph machinery (an
        # axis past any rank, which the C int could not hold, takes the general path's
        # error)
        # (_tensor_joining.pxi concat_same_dtype; on a Zen 3 VM, f64: 3 + 3 elements
        # 25-28 -> 0.7-1.1 us, NumPy 1.0-1.8; 3 + 128k 62 -> 20-35 us, NumPy 31-42)
        out = _tensor.concat_same_dtype(list(arrays), axis)
        if out is not None:
            return out
    vals = _common(list(arrays), "concatenate")
    if dtype is not None:
        dtype = np.dtype(dtype)
        if not np.can_cast(vals[0].dtype, dtype, "same_kind"):
            raise TypeError(f"xa.concatenate: cannot cast {vals[0].dtype} to {dtype} under "
                            f"casting rule 'same_kind'")
        vals = [v.astype(dtype) for v in vals]
    if axis is None:
        vals = [ravel(v) for v in vals]
        axis = 0
    if any(v.ndim == 0 for v in vals):
        raise ValueError("xa.concatenate: zero-dimensional arrays cannot be concatenated")
    n = vals[0].ndim
    for k, v in enumerate(vals):
        if v.ndim != n:
            raise ValueError(f"xa.concatenate: all the input arrays must have the same number "
                             f"of dimensions; array 0 has {n} and array {k} has {v.ndim}")
    ax = normalize_axis(axis, n, "concatenate")
    for k, v in enumerate(vals):
        for d in range(n):
            if d != ax and v.shape[d] != vals[0].shape[d]:
                raise ValueError(f"xa.concatenate: all the input array dimensions except for "
                                 f"the concatenation axis must match exactly; array 0 has "
                                 f"shape {vals[0].shape}, array {k} has {v.shape}")
    return S.concatenate(vals, ax) if len(vals) > 1 else vals[0].copy()


concat = concatenate


def stack(arrays, axis=0):
    vals = _common(list(arrays), "stack")
    shape = vals[0].shape
    for k, v in enumerate(vals):
        if v.shape != shape:
            raise ValueError(f"xa.stack: all input arrays must have the same shape; array 0 "
                             f"has {shape}, array {k} has {v.shape}")
    ax = normalize_axis(axis, len(shape) + 1, "stack")
    # a new axis on each as a view (basic indexing), then one concatenation (2 x 5 f64 on
    # a Zen 3 VM: 26 us through lax.expand_dims -> 3-6 us; NumPy 4-7 us)
    key = (builtins.slice(None),) * ax + (None,)
    return concatenate([v[key] for v in vals], ax)


def hstack(arrays):
    vals = [_atleast_1d(a) for a in arrays]
    return concatenate(vals, 0 if vals and vals[0].ndim == 1 else 1)


def vstack(arrays):
    return concatenate([_atleast_2d(a) for a in arrays], 0)


def _atleast_1d(x):
    x = _arr(x)
    return x.reshape((1,)) if x.ndim == 0 else x


def _atleast_2d(x):
    x = _arr(x)
    return x.reshape((1,) * (2 - x.ndim) + tuple(x.shape)) if x.ndim < 2 else x


def array_split(x, indices_or_sections, axis=0):
    x = _arr(x)
    ax = normalize_axis(axis, x.ndim, "array_split")
    n = x.shape[ax]
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k <= 0:
            raise ValueError(f"xa.array_split: number of sections must be larger than 0, got "
                             f"{k}")
        q, r = divmod(n, k)
        bounds = [0]
        for i in range(k):
            bounds.append(bounds[-1] + q + (1 if i < r else 0))
    else:
        bounds = [0] + [min(max(operator.index(i) if i >= 0 else n + i, 0), n)
                        for i in indices_or_sections] + [n]
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        hi = max(hi, lo)
        start = [0] * x.ndim
        limit = list(x.shape)
        start[ax], limit[ax] = min(lo, n), min(hi, n)
        out.append(S.slice(x, start, limit))
    return out


def split(x, indices_or_sections, axis=0):
    x = _arr(x)
    if isinstance(indices_or_sections, (int, np.integer)):
        ax = normalize_axis(axis, x.ndim, "split")
        if int(indices_or_sections) <= 0 or x.shape[ax] % int(indices_or_sections):
            raise ValueError(f"xa.split: array split does not result in an equal division "
                             f"({x.shape[ax]} into {indices_or_sections})")
    return array_split(x, indices_or_sections, axis)


def flip(x, axis=None):
    x = _arr(x)
    dims = tuple(range(x.ndim)) if axis is None else normalize_axes(axis, x.ndim, "flip")
    return S.rev(x, dims)


def roll(x, shift, axis=None):
    x = _arr(x)
    if axis is None:
        return roll(ravel(x), shift, 0).reshape(x.shape)
    shifts = tuple(shift) if isinstance(shift, (tuple, list)) else (shift,)
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    # NumPy broadcasts shift against axis: roll(x, 1, (0, 1)), roll(x, (1, 2), 0)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    elif len(axes) == 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError(f"xa.roll: shift {shift} and axis {axis} must have the same length")
    out = x
    for s, a in zip(shifts, axes):
        a = normalize_axis(a, x.ndim, "roll")
        n = out.shape[a]
        if n == 0:
            continue
        s = operator.index(s) % n
        if s == 0:
            continue
        lead = (builtins.slice(None),) * a
        tail, head = out[lead + (builtins.slice(n - s, None),)], \
            out[lead + (builtins.slice(0, n - s),)]
        # (views and one C concatenation for tensors: 16k f64 on a Zen 3 VM, 39-66 -> 8-13
        # us, NumPy 14-24 us; traced values record the slices and a concatenate)
        rolled = _tensor.concat_same_dtype([tail, head], a)
        out = rolled if rolled is not None else S.concatenate([tail, head], a)
    return out if out is not x else x.copy()      # always a new tensor, as NumPy's


def tile(x, reps):
    """NumPy's tile: ``x`` repeated reps[i] times along dim i (reps and x.shape aligned on
    the right, the shorter padded with ones); always a new tensor. One broadcast view and
    one copy: tile(x of shape (2, 3), (4, 5)) views x as (1, 2, 1, 3), broadcasts it to
    (4, 2, 5, 3) and copies that into the result of shape (8, 15)."""
    x = _arr(x)
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    reps = tuple(operator.index(r) for r in reps)
    if any(r < 0 for r in reps):
        raise ValueError(f"xa.tile: negative repetitions {reps}")
    n = max(len(reps), x.ndim)
    reps = (1,) * (n - len(reps)) + reps
    shape = (1,) * (n - x.ndim) + tuple(x.shape)
    result = tuple(r * d for r, d in zip(reps, shape))
    _tensor.check_alloc(result, CODE_OF[x.dtype])
    if all(r == 1 for r in reps):
        return x.reshape(shape).copy()
    pairs = tuple(v for d in shape for v in (1, d))
    target = tuple(v for r, d in zip(reps, shape) for v in (r, d))
    view = S.broadcast_in_dim(x.reshape(pairs), target, tuple(range(2 * n)))
    return view.reshape(result)      # (a stride-0 dim of size > 1 is merged: a copy)


def _empty_along(x, a):
    limit = list(x.shape)
    limit[a] = 0
    return S.slice(x, [0] * x.ndim, limit)


def repeat(x, repeats, axis=None):
    """Repeats each element ``repeats`` times (an integer, or one count per element along
    ``axis``: ``_repeat_counts``)."""
    x = _arr(x)
    if axis is None:
        x = ravel(x)
        axis = 0
    a = normalize_axis(axis, x.ndim, "repeat")
    try:
        r = operator.index(repeats)
    except TypeError:
        return _repeat_counts(x, repeats, a)
    if r < 0:
        raise ValueError(f"xa.repeat: negative repeats {r}")
    shape = list(x.shape)
    expanded = S.expand_dims(x, (a + 1,))
    target = shape[:a + 1] + [r] + shape[a + 1:]
    b = S.broadcast_in_dim(expanded, tuple(target), tuple(range(len(target))))
    shape[a] *= r
    return b.reshape(tuple(shape)) if b.size else _empty_along(x, a).reshape(tuple(shape))


def pad(x, pad_width, mode="constant", constant_values=0):
    """NumPy's pad for modes constant, edge, reflect and wrap."""
    x = _arr(x)
    n = x.ndim
    pw = np.broadcast_to(np.asarray(pad_width, dtype=np.int64).reshape(-1, 2)
                         if np.ndim(pad_width) else np.asarray([[pad_width] * 2]),
                         (n, 2)).tolist()
    if any(lo < 0 or hi < 0 for lo, hi in pw):
        raise ValueError(f"xa.pad: index can't contain negative values, got {pad_width}")
    if mode == "constant":
        return S.pad(x, _scalar_of(constant_values, x), [(lo, hi, 0) for lo, hi in pw])
    if mode not in ("edge", "reflect", "wrap"):
        raise ValueError(f"xa.pad: mode {mode!r} is not supported (constant, edge, reflect, "
                         f"wrap)")
    for a, (lo, hi) in enumerate(pw):
        if lo == 0 and hi == 0:
            continue
        size = x.shape[a]
        if size == 0:
            raise ValueError(f"xa.pad: can't extend empty axis {a} using mode {mode!r}")
        parts = []
        if lo:
            parts.append(_pad_piece(x, a, lo, mode, before=True))
        parts.append(x)
        if hi:
            parts.append(_pad_piece(x, a, hi, mode, before=False))
        x = S.concatenate(parts, a)
    return x


def _scalar_of(v, x):
    if isinstance(v, (builtins.int, builtins.float, builtins.bool, builtins.complex)):
        return _tensor.scalar_tensor(v, CODE_OF[x.dtype])
    return _arr(v).astype(x.dtype).reshape(())


def _take_range(x, a, idx):
    """x's slices at the integer positions idx along axis a, concatenated in order
    (idx is a run of consecutive or reversed positions)."""
    pieces = []
    for i in idx:
        start, limit = [0] * x.ndim, list(x.shape)
        start[a], limit[a] = i, i + 1
        pieces.append(S.slice(x, start, limit))
    return S.concatenate(pieces, a) if len(pieces) > 1 else pieces[0]


def _pad_piece(x, a, count, mode, before):
    size = x.shape[a]
    if mode == "edge":
        edge = _take_range(x, a, [0 if before else size - 1])
        shape = list(x.shape)
        shape[a] = count
        return S.broadcast_in_dim(edge, tuple(shape), tuple(range(x.ndim))).copy()
    if mode == "wrap":
        idx = [(i % size) for i in range(-count, 0)] if before else \
            [(i % size) for i in range(count)]
        return _gather_runs(x, a, idx)
    # reflect (no edge repeat): positions mirror around the edges with period 2*(size-1)
    period = 2 * (size - 1)

    def mirror(i):
        if period == 0:
            return 0
        i %= period
        return i if i < size else period - i
    idx = [mirror(-i) for i in range(count, 0, -1)] if before else \
        [mirror(size - 1 + i) for i in range(1, count + 1)]
    return _gather_runs(x, a, idx)


def _gather_runs(x, a, idx):
    """x along axis a at positions idx, taken as maximal runs of +1 / -1 steps (slices
    and reversed slices), so the copy is a few strided blocks, not one per element."""
    pieces = []
    k = 0
    while k < len(idx):
        j = k
        step = 0
        if k + 1 < len(idx) and idx[k + 1] - idx[k] in (1, -1):
            step = idx[k + 1] - idx[k]
            while j + 1 < len(idx) and idx[j + 1] - idx[j] == step:
                j += 1
        lo, hi = min(idx[k], idx[j]), max(idx[k], idx[j]) + 1
        start, limit = [0] * x.ndim, list(x.shape)
        start[a], limit[a] = lo, hi
        piece = S.slice(x, start, limit)
        if step == -1:
            piece = S.rev(piece, (a,))
        pieces.append(piece)
        k = j + 1
    return S.concatenate(pieces, a) if len(pieces) > 1 else pieces[0]


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol * |b| elementwise (NumPy's rule), infinities equal only to
    themselves, NaN equal to NaN with equal_nan."""
    a, b = _arr(a), _arr(b)
    dt = promote([to_tensor_or_scalar(a), to_tensor_or_scalar(b)])
    if dt.kind not in "fc":
        dt = np.dtype(np.float64)
    a, b = a.astype(dt), b.astype(dt)
    finite = U.logical_and(U.isfinite(a), U.isfinite(b))
    close = U.less_equal(U.absolute(a - b), atol + rtol * U.absolute(b))
    res = U.where(finite, close, U.equal(a, b))
    if equal_nan:
        res = U.logical_or(res, U.logical_and(U.isnan(a), U.isnan(b)))
    return res


def _repeat_counts(x, repeats, axis):
    """xa.repeat with per-element counts along ``axis`` (x already raveled for None)."""
    if type(repeats) is Traced:
        raise TypeError("xa.jit: xa.repeat with traced repeat counts has a data-dependent "
                        "result shape; pass the counts as a concrete array")
    r = repeats if isinstance(repeats, Tensor) else asarray(repeats)
    if r.dtype.kind not in "biu":
        raise TypeError(f"xa.repeat: repeats must be integers, got {r.dtype}")
    if r.ndim > 1:
        raise ValueError(f"xa.repeat: repeats must be 0-d or 1-d, got shape {r.shape}")
    n = x.shape[axis]
    if r.size == 1:
        return repeat(x, int(r.reshape(()).item()), axis=axis)
    if r.shape != (n,):
        raise ValueError(f"xa.repeat: operands could not be broadcast together: repeats of "
                         f"shape {r.shape} for axis {axis} of size {n}")
    counts = _tensor.strided(r)
    s64 = CODE_OF[np.dtype(np.int64)]
    if CODE_OF[counts.dtype] != s64 or not counts.flags["C_CONTIGUOUS"]:
        c = _tensor.empty(counts.shape, s64)
        if c.size:
            _tensor.convert_into(c, counts)
        counts = c
    idx = repeat_indices(counts)
    return take(x, idx, axis=axis)


# ------------------------------------------------------------------------ shape helpers
def broadcast_shapes(*shapes):
    return _broadcast_shapes(*shapes, op="xa.broadcast_shapes")


def broadcast_to(x, shape):
    """A read-only broadcast view of ``x`` with ``shape`` (NumPy rules)."""
    x = _arr(x)
    shape = tuple(shape)
    if _broadcast_shapes(x.shape, shape, op="xa.broadcast_to") != shape:
        raise ValueError(f"xa.broadcast_to: cannot broadcast shape {x.shape} to {shape}")
    off = len(shape) - x.ndim
    return S.broadcast_in_dim(x, shape, tuple(range(off, len(shape))))


def broadcast_arrays(*arrays):
    ts = [_arr(a) for a in arrays]
    shape = _broadcast_shapes(*[t.shape for t in ts], op="xa.broadcast_arrays")
    return [broadcast_to(t, shape) for t in ts]


def relayout(x, layout):
    """A copy of ``x`` stored with ``layout`` (xa.Layout, HLO text or minor_to_major)."""
    return _layout.relayout(x, layout)


def reshape(x, shape):
    return _arr(x).reshape(shape)


def transpose(x, axes=None):
    return _arr(x).transpose(axes)


def permute_dims(x, axes):
    return _arr(x).transpose(axes)


def copy(x):
    """A new tensor with x's values (row-major unless x's layout is kept by the op)."""
    return _arr(x).copy()


def ascontiguousarray(a, dtype=None):
    """A row-major (C-contiguous) tensor with a's values, at least 1-d (NumPy's rule): a
    itself when it already is one, else a row-major copy."""
    return _dense(a, dtype, None, "C_CONTIGUOUS")


def asfortranarray(a, dtype=None):
    """A column-major (layout {0,1,...}) tensor with a's values, at least 1-d."""
    return _dense(a, dtype, "F", "F_CONTIGUOUS")


def _dense(a, dtype, order, flag):
    t = asarray(a, dtype)
    if t.ndim == 0:
        t = t.reshape((1,))
    if isinstance(t, Traced):                 # a graph value: the layout is the compiler's
        return t
    if not _tensor.is_tiled(t) and t.flags[flag]:
        return t
    return _tensor.copy_dense(_tensor.strided(t),
                              None if order is None else tuple(range(t.ndim)))


def astype(x, dtype, /, *, copy=True, device=None):
    """x in ``dtype`` (Array API): a copy unless copy=False and the dtype is x's; device
    must be None or "cpu", xarr's one device."""
    if device not in (None, "cpu"):
        raise ValueError(f"xa.astype: unsupported device {device!r}; xarr has 'cpu'")
    return _arr(x).astype(dtype, copy=copy)


register(ravel=ravel, squeeze=squeeze, swapaxes=swapaxes, repeat=repeat)
