"""Advanced indexing (NumPy's rules) and the index-producing functions built on it:
``t[key]`` / ``t[key] = v`` with integer arrays and boolean masks, ``xa.nonzero``,
``xa.argwhere``, ``xa.flatnonzero``, ``xa.take`` and ``xa.take_along_axis``.

Python decides, C++ copies (csrc/kernels/indexing/): a key is normalized into items,
``_plan`` works out the strided view the arrays index (slices, ints and new axes applied
as a basic view), which of its dims the arrays index and where the indexed dims go, then
one take / put / mask kernel call does the copy. (These are NumPy's indexing rules;
XLA's Gather and Scatter, with dimension numbers, are a family of their own.)

NumPy's placement rule, with worked examples for x of shape (5, 6, 7):
* advanced indices (arrays, and ints once any array is present) next to each other keep
  their place: ``x[:, [0, 1], [2, 3]]`` -> (5, 2); ``x[:, [0, 1], 0]`` -> (5, 2);
* separated by a slice, None or an Ellipsis covering dims, the broadcast index dims go
  first: ``x[[0, 1], :, [2, 3]]`` -> (2, 6); ``x[0, :, [1, 2]]`` -> (2, 6).
A boolean mask of k dims stands for the k integer arrays of its ``nonzero()``; a 0-d bool
adds a new dim of length 1 (True) or 0 (False).

Under ``xa.jit`` integer-array gets are recorded as one ``advanced_index`` instruction (a
structural op whose executable step is the eager code); a boolean mask that is itself
traced has a data-dependent shape and raises a TypeError pointing to ``xa.where``.
Assignment through advanced keys is eager only.
"""

import operator
from collections import namedtuple

import numpy as np

from xarr import _tensor
from xarr._axes import normalize_axis
from xarr._bindings import indexing as _indexing
from xarr._bindings.indexing import (indexed_shape, mask_put, mask_select, nonzero_of,
                                     put_indexed, take_indexed)
from xarr._dispatch import register
from xarr._dtypes import CODE_OF, DTYPES, KINDS, check_python_scalar, warn_complex_to_real
from xarr._graph import trace as _trace
from xarr._graph.ir import TensorType
from xarr._graph.trace import Traced, recorder
from xarr._ops import layout as _layout
from xarr._ops import structural as S
from xarr._ops.conversion import asarray
from xarr._ops.elementwise import broadcast_shapes, numpy_apply
from xarr._tensor import Tensor

_PRED = CODE_OF[np.dtype(np.bool_)]
_S64 = CODE_OF[np.dtype(np.int64)]
_U64 = CODE_OF[np.dtype(np.uint64)]
_INT_CODES = tuple(c for c, k in enumerate(KINDS) if k in "iu")
_PY_SCALARS = (bool, int, float, complex)
_INT64_MAX = (1 << 63) - 1
_VALID_MSG = ("only integers, slices (`:`), ellipsis (`...`), None (`xa.newaxis`) and "
              "integer or boolean arrays are valid indices")


# ---------------------------------------------------------------------- key items
def _code(v):
    if type(v) is Traced:
        return v.instr.code
    if isinstance(v, TensorType):
        return v.code
    return CODE_OF[v.dtype]


def _shape_of(v):
    if isinstance(v, TensorType):
        return tuple(v.dims)
    return tuple(v.shape)


def _item(it):
    """One key entry as (kind, value): kind is 'none', 'ellipsis', 'slice', 'int',
    'array' (an integer tensor, Traced or TensorType), 'bool' (a bool tensor of ndim >= 1,
    or a traced bool) or 'bool0' (a Python bool)."""
    if it is None:
        return ("none", None)
    if it is Ellipsis:
        return ("ellipsis", None)
    if isinstance(it, slice):
        return ("slice", it)
    if isinstance(it, (bool, np.bool_)):
        return ("bool0", bool(it))
    if isinstance(it, (int, np.integer)):
        return ("int", int(it))
    if type(it) is Traced or isinstance(it, TensorType):
        code = _code(it)
        if code == _PRED:
            return ("bool", it)
        if code in _INT_CODES:
            return ("array", it)
        raise IndexError(f"arrays used as indices must be of integer (or boolean) type, got "
                         f"{DTYPES[code]}")
    if not isinstance(it, Tensor):
        if isinstance(it, (float, complex, np.floating, np.complexfloating, str, bytes)):
            raise IndexError(f"{_VALID_MSG}; got {type(it).__name__} {it!r}")
        if hasattr(it, "__index__") and not hasattr(it, "__array__") and \
                not hasattr(it, "__dlpack__"):
            return ("int", operator.index(it))
        try:
            arr = np.asarray(it)
        except Exception:
            raise IndexError(f"{_VALID_MSG}; got {type(it).__name__}") from None
        if arr.dtype == object:
            raise IndexError(f"{_VALID_MSG}; got {type(it).__name__} {it!r}")
        if arr.size == 0 and arr.dtype.kind == "f":
            arr = arr.astype(np.int64)           # an empty list indexes nothing
        if arr.dtype.kind not in "biu":
            raise IndexError(f"arrays used as indices must be of integer (or boolean) type, "
                             f"got {arr.dtype}")
        it = _tensor.wrap_numpy(arr)
    code = CODE_OF[it.dtype]
    if code == _PRED:
        if it.ndim == 0:
            return ("bool0", bool(it.item()))
        return ("bool", it)
    if code in _INT_CODES:
        if it.ndim == 0:
            return ("int", int(it.item()))
        return ("array", it)
    raise IndexError(f"arrays used as indices must be of integer (or boolean) type, got "
                     f"{it.dtype}")


def normalize_key(key):
    if type(key) is not tuple:
        key = (key,)
    return [_item(it) for it in key]


def is_advanced(key):
    """Whether a key needs advanced indexing (anything but ints, slices, None, Ellipsis)."""
    for it in (key if type(key) is tuple else (key,)):
        if it is None or it is Ellipsis or isinstance(it, slice):
            continue
        if isinstance(it, (bool, np.bool_)):
            return True
        if isinstance(it, (int, np.integer)):
            continue
        if isinstance(it, Tensor) and it.ndim == 0 and CODE_OF[it.dtype] in _INT_CODES:
            continue
        return True
    return False


# ---------------------------------------------------------------------- the plan
# basic: the key giving the view V (ints, slices, None); adv: (V dim, kind, value, source
# axis) per advanced entry in key order; nouter: V's non-indexed dims that stay before
# the index dims (NumPy's in-place rule), 0 when they go first.
Plan = namedtuple("Plan", "basic adv nouter vndim")


def _plan(shape, items):
    n = len(shape)
    consumed = 0
    n_ell = 0
    for kind, v in items:
        if kind in ("int", "slice", "array"):
            consumed += 1
        elif kind == "bool":
            consumed += len(_shape_of(v))
        elif kind == "ellipsis":
            n_ell += 1
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > n:
        raise IndexError(f"too many indices for array: array is {n}-dimensional, but "
                         f"{consumed} were indexed")
    fill = [("slice", slice(None))] * (n - consumed)
    expanded = []
    for item in items:
        if item[0] == "ellipsis":
            expanded += fill
        else:
            expanded.append(item)
    if not n_ell:
        expanded += fill
    has_arr = any(k in ("array", "bool", "bool0") for k, _ in expanded)
    basic, adv, positions = [], [], []
    d = v = 0
    for pos, (kind, val) in enumerate(expanded):
        if kind == "none":
            basic.append(None)
            v += 1
        elif kind == "slice":
            basic.append(val)
            d += 1
            v += 1
        elif kind == "int":
            size = shape[d]
            if not -size <= val < size:
                raise IndexError(f"index {val} is out of bounds for axis {d} with size {size}")
            basic.append(val)
            if has_arr:
                positions.append(pos)
            d += 1
        elif kind == "array":
            basic.append(slice(None))
            adv.append((v, kind, val, d))
            positions.append(pos)
            d += 1
            v += 1
        elif kind == "bool":
            mshape = _shape_of(val)
            for i, m in enumerate(mshape):
                if m != shape[d + i]:
                    raise IndexError(f"boolean index did not match indexed array along axis "
                                     f"{d + i}; size of axis is {shape[d + i]} but size of "
                                     f"corresponding boolean axis is {m}")
            basic += [slice(None)] * len(mshape)
            adv.append((v, kind, val, d))
            positions.append(pos)
            d += len(mshape)
            v += len(mshape)
        else:  # bool0: a new axis of length 1, indexed by [0] (True) or [] (False)
            basic.append(None)
            adv.append((v, kind, val, None))
            positions.append(pos)
            v += 1
    adjacent = bool(positions) and positions == list(range(positions[0], positions[-1] + 1))
    nouter = adv[0][0] if (adv and adjacent) else 0
    return Plan(tuple(basic), adv, nouter, v)


def _broadcast_index_shapes(shapes):
    try:
        return tuple(np.broadcast_shapes(*shapes)) if shapes else ()
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together "
                         "with shapes " + " ".join(str(tuple(s)) for s in shapes)) from None


def _index_shape(kind, val):
    if kind == "bool0":
        return (1,) if val else (0,)
    return _shape_of(val)


def _result_shape(vshape, plan, bshape):
    """The shape an integer-array key gives (masks already turned into their nonzero()
    arrays): the take kernel's own rule (indexed_shape)."""
    assert all(kind != "bool" for _, kind, _, _ in plan.adv)
    return indexed_shape(vshape, [v for v, _, _, _ in plan.adv], plan.nouter, bshape)


def _single_mask(plan):
    """The mask entry when the only advanced entry is one bool array of ndim >= 1 and the
    index dims go first (then the compress kernel applies), else None."""
    if len(plan.adv) == 1 and plan.adv[0][1] == "bool" and plan.nouter == 0:
        return plan.adv[0]
    return None


def _masks_to_arrays(items):
    """Bool arrays replaced by the integer arrays of their nonzero() (k adjacent entries,
    so NumPy's placement is unchanged)."""
    out = []
    for kind, val in items:
        if kind == "bool":
            nz = nonzero_of(_tensor.strided(val))
            out += [("array", nz[j]) for j in range(val.ndim)]
        else:
            out.append((kind, val))
    return out


def _mask_first(view, v0, k):
    """view with dims [v0, v0 + k) moved to the front (a view)."""
    if v0 == 0:
        return view
    n = view.ndim
    perm = list(range(v0, v0 + k)) + [i for i in range(n) if not v0 <= i < v0 + k]
    return view.transpose(perm)


def _index_tensors(plan, bshape, src_shape):
    """C-contiguous int64 index tensors of shape bshape, their V axes and source axes."""
    idx, vaxes, labels = [], [], []
    for v, kind, val, d in plan.adv:
        if kind == "bool0":
            t = _tensor.empty((1,) if val else (0,), _S64, zero=True)
        else:
            t = _tensor.strided(val)
        code = CODE_OF[t.dtype]
        if code == _U64 and t.size:   # uint64 beyond int64's range would wrap: out of bounds
            big = np.asarray(t).max()
            if big > _INT64_MAX:
                raise IndexError(f"index {int(big)} is out of bounds for axis {d} with size "
                                 f"{src_shape[d]}")
        if not (code == _S64 and t.shape == bshape and t.flags["C_CONTIGUOUS"]):
            out = _tensor.empty(bshape, _S64)
            if out.size:
                _tensor.convert_into(out, t)
            t = out
        idx.append(t)
        vaxes.append(v)
        labels.append(d if d is not None else "(new)")
    return idx, vaxes, labels


# ---------------------------------------------------------------------- get
def _getitem_eager(x, items):
    x = _tensor.strided(x)
    plan = _plan(x.shape, items)
    if not plan.adv:
        return _tensor.basic_getitem(x, plan.basic, True)
    view = _tensor.basic_getitem(x, plan.basic)
    m = _single_mask(plan)
    if m is not None:
        v0, _, mask, _ = m
        mask = _tensor.strided(mask)
        return mask_select(_mask_first(view, v0, mask.ndim), mask)
    if any(kind == "bool" for kind, _ in items):
        items = _masks_to_arrays(items)
        plan = _plan(x.shape, items)
    bshape = _broadcast_index_shapes([_index_shape(k, val) for _, k, val, _ in plan.adv])
    idx, vaxes, labels = _index_tensors(plan, bshape, x.shape)
    return take_indexed(view, idx, vaxes, labels, plan.nouter, bshape)


_INT64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)


def _one_index_tensor(x, key):
    """x[key] for the two everyday keys, eager, or None: a C-contiguous int64 tensor
    (rows ``x[idx]``: one take along dim 0) and a bool tensor of x's shape (``x[x > 0]``:
    one mask select). The rules, errors included, are the general path's (take_indexed
    and mask_select raise as it does); this skips the key's plan and broadcasting (a[idx]
    of 3 indices on a Zen 3 VM: 22 -> 2.8-5 us, NumPy 0.4 us)."""
    dt = key.dtype
    if dt == _INT64:
        # (a 0-d key is an integer index: a basic one, NumPy's scalar or view)
        if x.ndim == 0 or key.ndim == 0 or not key.flags["C_CONTIGUOUS"]:
            return None
        return take_indexed(_tensor.strided(x), [key], [0], [0], 0, tuple(key.shape))
    if dt == _BOOL and key.shape == x.shape and x.ndim:
        return mask_select(_tensor.strided(x), _tensor.strided(key))
    return None


def _as_index_tensor(key):
    """An ndarray or list key as a tensor (zero-copy for an ndarray) when NumPy reads it
    as an int64 or bool array, else None (the general path's rules apply)."""
    try:
        arr = key if type(key) is np.ndarray else np.asarray(key) if key else None
    except (ValueError, TypeError):   # ragged or traced items: the general path's errors
        return None
    if arr is None or arr.ndim == 0 or arr.dtype not in (_INT64, _BOOL):
        return None
    return asarray(arr)


def getitem(x, key):
    """x[key] with NumPy's basic + advanced indexing rules; records a ``gather``
    instruction when x or an index is traced."""
    if type(x) is Tensor and type(key) in (Tensor, np.ndarray, list) and \
            recorder([x]) is None:
        # (k is concrete: the key itself, or a tensor made of an ndarray or list)
        k = key if type(key) is Tensor else _as_index_tensor(key)
        out = None if k is None else _one_index_tensor(x, k)
        if out is not None:
            return out
    items = normalize_key(key)
    rec = recorder([x] + [v for k, v in items if k in ("array", "bool")])
    if rec is None:
        return _getitem_eager(x, items)
    shape = tuple(x.shape)
    _plan(shape, items)                      # validates (mask shapes, too many indices)
    resolved = []
    for kind, val in items:
        if kind == "bool":
            if type(val) is Traced:
                if rec.kind != "lazy":
                    raise TypeError(
                        f"xa.jit: boolean-mask indexing with a traced mask "
                        f"({val.dtype}{list(val.shape)}) has a data-dependent result shape "
                        f"and cannot be traced; use xa.where(mask, x, 0) (or another fill "
                        f"value) to keep the shape, or pass the mask as a static (concrete) "
                        f"array")
                val = val.concrete()
            nz = nonzero_of(_tensor.strided(val))
            resolved += [("array", nz[j]) for j in range(val.ndim)]
        else:
            resolved.append((kind, val))
    if not any(k in ("array", "bool0") for k, _ in resolved):
        return _traced_basic(x, _plan(shape, resolved))
    spec, operands = [], []
    for kind, val in resolved:
        if kind == "slice":
            spec.append(("slice", val.start, val.stop, val.step))
        elif kind == "array":
            spec.append(("array",))
            operands.append(val)
        elif kind in ("int", "bool0"):
            spec.append((kind, val))
        else:
            spec.append((kind,))
    return S.apply("advanced_index", [x] + operands, spec=tuple(spec))


def _items_of_spec(spec, arrays):
    items, k = [], 0
    for s in spec:
        kind = s[0]
        if kind == "slice":
            items.append(("slice", slice(s[1], s[2], s[3])))
        elif kind == "array":
            items.append(("array", arrays[k]))
            k += 1
        elif kind in ("int", "bool0"):
            items.append((kind, s[1]))
        else:
            items.append((kind, None))
    return items


def _index_rule(types, spec):
    x, arrays = types[0], types[1:]
    for a in arrays:
        if a.code not in _INT_CODES:
            raise IndexError(f"arrays used as indices must be of integer type, got "
                             f"{DTYPES[a.code]}")
    items = _items_of_spec(spec, arrays)
    plan = _plan(tuple(x.dims), items)
    vshape = _view_shape(tuple(x.dims), plan.basic)
    bshape = _broadcast_index_shapes([_index_shape(k, val) for _, k, val, _ in plan.adv])
    return TensorType(x.code, _result_shape(vshape, plan, bshape), None)


def _index_impl(x, *arrays, spec):
    return _getitem_eager(x, _items_of_spec(spec, arrays))


def _spec_text(a):
    parts = []
    for s in a["spec"]:
        if s[0] == "slice":
            lo, hi, st = ("" if v is None else str(v) for v in s[1:])
            parts.append(f"{lo}:{hi}" + (f":{st}" if st else ""))
        elif s[0] == "array":
            parts.append("[]")
        elif s[0] in ("int", "bool0"):
            parts.append(str(s[1]))
        else:
            parts.append({"none": "None", "ellipsis": "..."}[s[0]])
    return ["index={" + ", ".join(parts) + "}"]


S.defop("advanced_index", _index_rule, _index_impl, text=_spec_text)


def _view_shape(shape, basic):
    """The shape of the view a basic key gives (tensor core's basic_index_plan)."""
    return tuple(length for _, dropped, _, length, _ in _tensor.basic_index_plan(shape, basic)
                 if not dropped)


def _traced_basic(x, plan):
    """A basic key on a traced tensor as lax rev + slice + reshape, from the tensor core's
    resolution of the key (basic_index_plan: the slice arithmetic of Tensor views)."""
    shape = tuple(x.shape)
    starts, limits, strides, rev = [0] * len(shape), list(shape), [1] * len(shape), []
    for d, dropped, start, length, step in _tensor.basic_index_plan(shape, plan.basic):
        if d is None:
            continue
        if length == 0:
            lo, hi, st = 0, 0, 1
        elif step >= 0:
            lo, st = start, max(step, 1)
            hi = lo + (length - 1) * st + 1
        else:
            rev.append(d)
            lo, st = shape[d] - 1 - start, -step
            hi = lo + (length - 1) * st + 1
        starts[d], limits[d], strides[d] = lo, hi, st
    y = x
    if rev:
        y = S.rev(y, rev)
    if tuple(starts) != (0,) * len(shape) or tuple(limits) != shape or any(s != 1
                                                                          for s in strides):
        y = S.slice(y, starts, limits, strides)
    out_shape = _view_shape(shape, plan.basic)
    if tuple(y.shape) != out_shape:
        y = S.reshape(y, out_shape)
    return y


# ---------------------------------------------------------------------- set
def setitem(target, key, value):
    """target[key] = value (Tensor.__setitem__): value broadcast and cast unsafely to the
    target's dtype like NumPy; basic keys write through a view, advanced keys through the
    put / mask kernels. Pending lazy values that read ``target`` are computed first."""
    if not target.flags["WRITEABLE"]:
        raise ValueError("assignment destination is read-only")
    if type(value) is Traced:
        value = value.concrete()
    _trace.before_write(target)
    if _tensor.is_tiled(target):
        tmp = _layout.untile(target)
        setitem(tmp, key, value)
        _layout.retile_into(target, tmp)
        return
    if is_advanced(key):
        _setitem_advanced(target, key, value)
        return
    view = _tensor.basic_getitem(target, key)
    if not isinstance(value, Tensor):
        if isinstance(value, _PY_SCALARS):
            check_python_scalar("setitem", value, view.dtype)
            if view.size:
                _tensor.fill(view, value)
            return
        value = asarray(value)
    value = _tensor.strided(value)
    if KINDS[CODE_OF[value.dtype]] == "c" and KINDS[CODE_OF[view.dtype]] != "c":
        warn_complex_to_real("setitem")
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


def _setitem_advanced(target, key, value):
    """target[key] = value for an advanced key (eager only): value cast to target's dtype
    like NumPy (unsafe casting), broadcast to the indexed shape. Repeated integer indices:
    the last value wins."""
    items = normalize_key(key)
    resolved = []
    for kind, val in items:
        if type(val) is Traced:
            if val.instr.computation.kind != "lazy":
                raise TypeError("xa.jit: assignment through an index array that is traced "
                                "is not supported (advanced-index assignment is eager only; "
                                "a functional update arrives later)")
            val = val.concrete()
        resolved.append((kind, val))
    target = _tensor.strided(target)
    # An index or mask read from the buffer being written is copied first, so every
    # index is read before any write: t[t] = 2 on t = [1, 0, 0] gives [2, 2, 0], as NumPy.
    items = [(kind, val.copy() if isinstance(val, Tensor) and val.size
              and _tensor.shares_buffer(_tensor.strided(val), target) else val)
             for kind, val in resolved]
    plan = _plan(target.shape, items)
    view = _tensor.basic_getitem(target, plan.basic)
    code = CODE_OF[target.dtype]
    if isinstance(value, _PY_SCALARS):
        check_python_scalar("setitem", value, target.dtype)
        val = _tensor.scalar_tensor(value, code)
    else:
        val = value if isinstance(value, Tensor) else asarray(value)
        val = _tensor.strided(val)
        if KINDS[CODE_OF[val.dtype]] == "c" and KINDS[code] != "c":
            warn_complex_to_real("setitem")
        if CODE_OF[val.dtype] != code or _tensor.shares_buffer(val, target):
            cast = _tensor.empty(val.shape, code)
            if cast.size:
                _tensor.convert_into(cast, val)
            val = cast
    m = _single_mask(plan)
    if m is not None:
        v0, _, mask, _ = m
        mask = _tensor.strided(mask)
        val = _strip_leading_ones(val, view.ndim - mask.ndim + 1)
        mask_put(_mask_first(view, v0, mask.ndim), mask, val)
        return
    if any(kind == "bool" for kind, _ in items):
        items = _masks_to_arrays(items)
        plan = _plan(target.shape, items)
    bshape = _broadcast_index_shapes([_index_shape(k, v) for _, k, v, _ in plan.adv])
    rshape = _result_shape(view.shape, plan, bshape)
    val = _strip_leading_ones(val, len(rshape))
    val = _broadcast_value(val, rshape)
    idx, vaxes, labels = _index_tensors(plan, bshape, target.shape)
    put_indexed(view, idx, vaxes, labels, plan.nouter, val)


def _strip_leading_ones(val, ndim):
    shape = val.shape
    while len(shape) > ndim and shape[0] == 1:
        shape = shape[1:]
    return val.reshape(shape) if shape != val.shape else val


def _broadcast_value(val, shape):
    off = len(shape) - val.ndim
    ok = off >= 0
    strides = [0] * len(shape)
    if ok:
        for i, (s, st) in enumerate(zip(val.shape, val.strides)):
            if s == shape[off + i]:
                strides[off + i] = st if s != 1 else 0
            elif s != 1:
                ok = False
    if not ok:
        raise ValueError(f"shape mismatch: value array of shape {val.shape} could not be "
                         f"broadcast to indexing result of shape {tuple(shape)}")
    return _tensor.as_strided_view(val, shape, strides, 0, True)


# ---------------------------------------------------------------------- functions
def _data_dependent(fn, x):
    if type(x) is Traced:
        if x.instr.computation.kind == "lazy":
            return x.concrete()
        raise TypeError(f"xa.jit: xa.{fn} has a data-dependent result shape and cannot be "
                        f"traced; use xa.where(cond, x, y) with three arguments to keep the "
                        f"shape, or compute it outside the jitted function")
    return x


def _as_mask(fn, x):
    x = _data_dependent(fn, x)
    x = asarray(x) if not isinstance(x, Tensor) else x
    if CODE_OF[x.dtype] != _PRED:
        x = _data_dependent(fn, numpy_apply("not_equal", x, 0))   # (recorded under lazy)
    return _tensor.strided(x)


def nonzero(x):
    """The indices of the non-zero elements, one int64 tensor per dim (C order)."""
    m = _as_mask("nonzero", x)
    if m.ndim == 0:
        raise ValueError("xa.nonzero: calling nonzero on 0-d arrays is not allowed; use "
                         "xa.atleast_1d(x).nonzero() or x.reshape(1)")
    nz = nonzero_of(m)
    return tuple(nz[j] for j in range(m.ndim))


def argwhere(x):
    """The indices of the non-zero elements as an int64 tensor [count, ndim]."""
    m = _as_mask("argwhere", x)
    if m.ndim == 0:
        out = nonzero_of(m.reshape((1,)), True)
        return out[:, :0]
    return nonzero_of(m, True)


def flatnonzero(x):
    """The indices of the non-zero elements of the flattened tensor."""
    m = _as_mask("flatnonzero", x)
    return nonzero_of(m.reshape((m.size,)))[0]


def take(x, indices, axis=None, out=None, mode="raise"):
    """NumPy's take: elements of x at ``indices`` along ``axis`` (flattened x when None)."""
    if mode != "raise":
        raise NotImplementedError(f"xa.take: mode={mode!r} (only 'raise' is supported)")
    x = S.as_operand(x)
    if axis is None:
        x = x.reshape((x.size,))
        axis = 0
    a = normalize_axis(axis, x.ndim, "take")
    if not isinstance(indices, (Tensor, Traced)) and not isinstance(indices, (int, np.integer)):
        arr = np.asarray(indices)
        indices = asarray(arr.astype(np.int64) if arr.size == 0 else arr)
    if isinstance(indices, (Tensor, Traced)):
        code = _code(indices)
        if code == _PRED:
            indices = indices.astype(np.int64)
        elif code not in _INT_CODES:
            raise TypeError(f"xa.take: indices must be integers, got {indices.dtype}")
    if isinstance(indices, Tensor) and indices.ndim == 0:
        indices = int(indices.item())
    if any(d == 0 for d in x.shape[:a]):
        # no outer position: NumPy's take checks no index then (x[:, [0]] would raise)
        ishape = () if isinstance(indices, (int, np.integer)) else tuple(indices.shape)
        return _tensor.empty(x.shape[:a] + ishape + x.shape[a + 1:], CODE_OF[x.dtype])
    key = (slice(None),) * a + (indices,)
    res = getitem(x, key)
    if isinstance(indices, (int, np.integer)) and isinstance(res, Tensor):
        res = res.copy()
    if out is not None:
        out[...] = res
        return out
    return res


def _take_along_rule(types, axis):
    x, i = types
    if len(i.dims) != len(x.dims):
        raise ValueError(f"take_along_axis: indices (ndim {len(i.dims)}) and x (ndim "
                         f"{len(x.dims)}) must have the same number of dimensions")
    dims = []
    for d, (a, b) in enumerate(zip(x.dims, i.dims)):
        if d != axis and a != b and a != 1 and b != 1:
            raise ValueError(f"take_along_axis: shape mismatch: indices {i.dims} and x "
                             f"{x.dims} do not broadcast outside axis {axis}")
        dims.append(b if d == axis or a == 1 else a)
    return TensorType(x.code, tuple(dims), None)


def _take_along_impl(x, index, axis):
    return _indexing.take_rows(x, index, axis)


S.defop("take_along_axis", _take_along_rule, _take_along_impl,
        text=lambda attrs: [f"axis={attrs['axis']}"])


def take_along(x, index, axis):
    """x's elements at int64 ``index`` along ``axis`` (index of x's rank, its other dims
    broadcasting against x's): the take_rows kernel, eager or recorded."""
    return S.apply("take_along_axis", [x, index], axis=axis)


def take_along_axis(x, indices, axis=-1):
    """NumPy's take_along_axis: out[..., i, ...] = x[..., indices[..., i, ...], ...]
    (the other dims broadcast; negative indices wrap once; IndexError out of range)."""
    x = S.as_operand(x)
    ind = indices if isinstance(indices, (Tensor, Traced)) else asarray(indices)
    if _code(ind) not in _INT_CODES:
        raise IndexError(f"xa.take_along_axis: indices must be an integer array, got "
                         f"{ind.dtype}")
    if axis is None:
        if ind.ndim != 1:
            raise ValueError(f"xa.take_along_axis: with axis=None, indices must be 1-D, got "
                             f"shape {tuple(ind.shape)}")
        x = x.reshape((x.size,))
        axis = 0
    if ind.ndim != x.ndim:
        raise ValueError(f"xa.take_along_axis: indices (ndim {ind.ndim}) and x (ndim "
                         f"{x.ndim}) must have the same number of dimensions")
    a = normalize_axis(axis, x.ndim, "take_along_axis")
    return take_along(x, ind.astype(np.int64, copy=False), a)


register(getitem=getitem, setitem=setitem, take=take, nonzero=nonzero,
         is_advanced=is_advanced)
