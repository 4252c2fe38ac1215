"""JAX's functional index updates: ``t.at[idx].set(v)``, ``.add``, ``.subtract``,
``.multiply`` / ``.mul``, ``.divide``, ``.power``, ``.min``, ``.max``, ``.apply(fn)`` and
``.get()``, on tensors and traced values alike (a new value; ``t`` is not changed).

``idx`` is any NumPy index (ints, slices, Ellipsis, None, integer and boolean arrays).
The positions it selects are found by indexing an iota of t's flat positions with it
(so every NumPy indexing rule holds, broadcasting of index arrays included), and the
update is one XLA scatter of the flat tensor (xarr/_ops/gather.py): repeated indices
all apply for add / multiply / min / max (set keeps the last, as NumPy's assignment).

``mode``: None (NumPy's rules: negative indices wrap, out-of-range ones raise),
'promise_in_bounds' (the same), 'clip' (integer indices clamped into range), 'drop' /
'fill' (updates at out-of-range integer indices are dropped; ``get`` returns
``fill_value`` there, NaN / the integer extreme / True by default).

    >>> x = xa.zeros(5)
    >>> x.at[xa.asarray([0, 0, 3])].add(1.0)              # [2, 0, 0, 1, 0]
    >>> x.at[1:3].set(7.0)                                # [0, 7, 7, 0, 0]
"""

import numpy as np

from xarr._dispatch import register
from xarr._dtypes import CODE_OF, DTYPES, KINDS
from xarr._graph.trace import Traced
from xarr._ops import gather as G
from xarr._ops import indexing as I
from xarr._ops import structural as S
from xarr._ops.elementwise import lax_apply
from xarr._tensor import Tensor

_FLAT = G.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                  scatter_dims_to_operand_dims=(0,))
_MODES = (None, "promise_in_bounds", "clip", "drop", "fill")


def _int_array(v):
    return isinstance(v, (Tensor, Traced, np.ndarray, list)) and \
        KINDS[CODE_OF[np.dtype(getattr(v, "dtype", np.asarray(v).dtype))]] in "iu"


def _key_items(key):
    return key if isinstance(key, tuple) else (key,)


def _prepared(x, key, mode):
    """(key for the iota, (validity mask or None, where its dims go in the result)):
    integer indices wrapped and clipped into range for 'clip' / 'drop' / 'fill', and for
    'drop' / 'fill' the mask of positions whose indices were all in range (the index
    arrays' broadcast shape, which NumPy puts at result dim `at`)."""
    items = list(_key_items(key))
    if mode not in ("clip", "drop", "fill"):
        return key, (None, 0)
    # the dims the items index: None adds none, Ellipsis spans the rest
    def spans(it):   # the dims of x an item indexes (a bool array: its ndim)
        if hasattr(it, "dtype") and np.dtype(it.dtype) == np.bool_:
            return len(getattr(it, "shape", np.shape(it)))
        return 1
    explicit = sum(spans(it) for it in items if it is not None and it is not Ellipsis)
    dim, valid = 0, None
    arrays = [k for k, it in enumerate(items) if _int_array(it) or (
        hasattr(it, "dtype") and np.dtype(it.dtype) == np.bool_)]
    # NumPy's rule: with index arrays, integers index as arrays too; the arrays'
    # broadcast dims go where they stand when they are adjacent, else first
    adv = [k for k, it in enumerate(items) if k in arrays or (
        arrays and isinstance(it, (int, np.integer)))]
    at = 0
    if adv and adv == list(range(adv[0], adv[-1] + 1)):
        for it in items[:adv[0]]:
            at += x.ndim - explicit if it is Ellipsis else 1   # (a slice or None: one)
    for k, it in enumerate(items):
        if it is None:
            continue
        if it is Ellipsis:
            dim += x.ndim - explicit
            continue
        if isinstance(it, (int, np.integer)) or _int_array(it):
            n = x.shape[dim]
            arr = S.as_operand(it) if not isinstance(it, (int, np.integer)) else \
                S.as_operand(np.int64(it))
            arr = arr.astype(np.int64)
            ok = lax_apply("and", lax_apply("ge", arr, -n), lax_apply("lt", arr, n))
            wrapped = lax_apply("select", lax_apply("lt", arr, 0), arr + n, arr)
            items[k] = lax_apply("max", lax_apply("min", wrapped, max(n - 1, 0)), 0)
            if mode != "clip":
                valid = ok if valid is None else valid & ok
        dim += spans(it)
    return tuple(items), (valid, at)


class _IndexRef:
    def __init__(self, x, key):
        self.x, self.key = x, key

    def _positions(self, mode):
        x = self.x
        if mode not in _MODES:
            raise ValueError(f".at[]: unknown mode {mode!r} (one of None, 'clip', 'drop', "
                             f"'fill', 'promise_in_bounds')")
        key, (valid, at) = _prepared(x, self.key, mode)
        iota = S.iota(np.int64, int(np.prod(x.shape, dtype=np.int64))).reshape(
            tuple(x.shape))
        pos = I.getitem(iota, key)
        if valid is not None:      # (the index arrays' broadcast dims start at `at`)
            if tuple(valid.shape) != tuple(pos.shape):
                valid = S.broadcast_in_dim(valid, tuple(pos.shape),
                                           tuple(range(at, at + valid.ndim)))
            pos = lax_apply("select", valid, pos, _broadcast(S.as_operand(np.int64(-1)),
                                                             tuple(pos.shape)))
        return pos

    def _update(self, values, combine, mode):
        x = S.as_operand(self.x)
        pos = self._positions(mode)
        v = S.as_operand(values) if not isinstance(values, (Tensor, Traced)) else values
        v = v.astype(DTYPES[CODE_OF[x.dtype]])
        if tuple(v.shape) != tuple(pos.shape):
            v = _broadcast(v, tuple(pos.shape))
        flat = x.reshape((-1,))
        m = int(np.prod(pos.shape, dtype=np.int64))
        out = G.scatter(flat, pos.reshape((m, 1)), v.reshape((m,)), _FLAT,
                        mode="drop", update_computation=combine)
        return out.reshape(tuple(x.shape))

    def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._update(values, None, mode)

    def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._update(values, "add", mode)

    def subtract(self, values, *, indices_are_sorted=False, unique_indices=False,
                 mode=None):
        return self._update(values, lambda a, b: lax_apply("sub", a, b), mode)

    def multiply(self, values, *, indices_are_sorted=False, unique_indices=False,
                 mode=None):
        return self._update(values, "mul", mode)

    mul = multiply

    def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._update(values, lambda a, b: lax_apply("div", a, b), mode)

    def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._update(values, lambda a, b: lax_apply("pow", a, b), mode)

    def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._update(values, "min", mode)

    def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._update(values, "max", mode)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None):
        x = S.as_operand(self.x)
        pos = self._positions(mode)
        return self._update(S.broadcast_in_dim(S.as_operand(np.zeros((), DTYPES[
            CODE_OF[x.dtype]])), tuple(pos.shape), ()), lambda a, _: func(a), mode)

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None,
            fill_value=None):
        x = S.as_operand(self.x)
        if mode not in ("drop", "fill"):
            key, _ = _prepared(x, self.key, mode)
            return I.getitem(x, key)
        pos = self._positions(mode)
        flat = x.reshape((-1,))
        one = G.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
                                       start_index_map=(0,))
        m = int(np.prod(pos.shape, dtype=np.int64))
        got = G.gather(flat, pos.reshape((m, 1)), one, (1,), mode="fill",
                       fill_value=fill_value)
        return got.reshape(tuple(pos.shape))


def _broadcast(v, shape):
    return S.broadcast_in_dim(v, shape, tuple(range(len(shape) - v.ndim, len(shape))))


class _AtHelper:
    """``t.at``: indexing it (``t.at[idx]``) gives the update methods."""

    def __init__(self, x):
        self.x = x

    def __getitem__(self, key):
        return _IndexRef(self.x, key)


def at_of(x):
    return _AtHelper(x)


register(at_of=at_of)     # t.at (xarr/_methods.py)
