"""Structural operations (seed 004): one definition per op - a pure shape rule, an eager
implementation over tensors, and its HLO attributes - from which ``xa.lax.*``, the
NumPy frontend, the lazy graph's instruction and its executable step all derive.

Each op is one registry row (xarr/_registry.py, registered by ``defop``).
``apply(name, operands, **attrs)`` checks the rule (raising with the op, the argument and
the values), then either runs ``impl`` or, when a graph is recording, records one
instruction whose executable step calls the same ``impl``. The lax functions here
(``transpose``, ``slice`` ...) normalize their arguments and call ``apply``; xa.lax
exports them. Broadcast and iota are here too (fusion class 'leaf').

Worked examples (seed 004):
* ``slice(f32[4,6], (1, 0), (3, 6), (1, 2))`` -> ``f32[2,3]``, a view;
* ``pad(f32[2,3], 0, [(1, -1, 1), (0, 0, 2)])`` -> dim 0: 1 + 2 + 1 interior - 1 = 3,
  dim 1: 3 + 2*2 = 7 -> ``f32[3,7]``;
* ``dynamic_slice(f32[5], (4,), (2,))`` clamps the start to 3 -> elements 3, 4;
* ``reshape(f32[2,3,2], (3, 4), dimensions=(2, 1, 0))`` transposes to [2,3,2] order
  (2, 1, 0) first, then reshapes row-major.
"""

import builtins
import math
import operator
import weakref

import numpy as np

from xarr import _tensor
from xarr._axes import normalize_axis
from xarr._bindings.elementwise import iota as iota_kernel
from xarr._dispatch import register as register_entry_points
from xarr._dtypes import CODE_OF, DTYPES, KINDS, XLA_NAMES, as_dtype, bfloat16
from xarr._graph import trace as _trace
from xarr._graph.ir import Instruction, TensorType
from xarr._graph.trace import Traced, recorder
from xarr._ops.conversion import asarray
from xarr._ops.elementwise import lax_apply, lax_scalar
from xarr._ops.layout import reshape as reshape_tensor
from xarr._ops.layout import reshape_shape
from xarr._registry import Op, lookup, register
from xarr._tensor import Tensor


def on_strided(impl):
    """impl with its tensor operands made strided first (tiled / padded layouts have no
    strides the impls could use): the graph executor calls ``impl`` with the tensors as
    they are, so the normalization ``apply`` does eagerly must happen here too."""
    def run(*xs, **attrs):
        return impl(*[_tensor.strided(x) if isinstance(x, Tensor) else x for x in xs],
                    **attrs)
    run.__name__ = getattr(impl, "__name__", "impl")
    return run


def defop(name, rule, impl, view=False, text=None, hlo=""):
    """Registers structural op ``name``: its shape rule, its eager impl (also the graph
    executor's step), its HLO attributes (``text(attrs) -> ["key=value", ...]``) and its
    HLO opcode when it is not the name's (``dot_general`` prints as ``dot``)."""
    register(Op(name, "structural", rule=rule, impl=on_strided(impl), view=view, hlo=hlo,
                text=None if text is None else (lambda instr: text(instr.attrs))))


def type_of(x, where):
    if type(x) is Traced:
        return x.instr.type
    if isinstance(x, Tensor):
        return TensorType(CODE_OF[x.dtype], tuple(x.shape), None)
    raise TypeError(f"{where}: expected a tensor, got {type(x).__name__}")


def as_operand(x):
    """x as a tensor or traced value (lists, NumPy arrays and scalars converted)."""
    if isinstance(x, (Tensor, Traced)):
        return x
    return asarray(x)


def apply(name, operands, **attrs):
    """Runs or records structural op ``name`` (see the module docstring)."""
    op = lookup(name)
    operands = [as_operand(x) for x in operands]
    rtype = op.rule([type_of(x, f"lax.{name}") for x in operands], **attrs)
    rec = recorder(operands)
    if rec is None:
        return op.impl(*[_tensor.strided(x) for x in operands], **attrs)
    ins = [_trace.instr_of(rec, x, f"lax.{name}") for x in operands]
    return Traced(rec.add(Instruction(name, ins, rtype, dict(attrs))))


def record_tuple(name, operands, rtype, attrs, calls=()):
    """Records op ``name`` (whose result may be a tuple) when an operand is traced; None
    when all are concrete (the caller runs it)."""
    rec = recorder(operands)
    if rec is None:
        return None
    ins = [_trace.instr_of(rec, x, f"lax.{name}") for x in operands]
    instr = rec.add(Instruction(name, ins, rtype, attrs, list(calls)))
    if isinstance(rtype, TensorType):
        return Traced(instr)
    return tuple(Traced(rec.add(Instruction("get_tuple_element", [instr], t, {"index": k})))
                 for k, t in enumerate(rtype))


def _ints(values, what, op):
    try:
        return tuple(operator.index(v) for v in values)
    except TypeError:
        raise TypeError(f"lax.{op}: {what} must be integers, got {values!r}") from None


def _dims_text(name, dims):
    return [f"{name}={{{','.join(map(str, dims))}}}"]


# ------------------------------------------------------------------------ transpose
def _transpose_rule(types, permutation):
    (t,) = types
    n = len(t.dims)
    if sorted(permutation) != list(range(n)):
        raise ValueError(f"lax.transpose: permutation {permutation} is not a permutation of "
                         f"0..{n - 1} for shape {t.dims}")
    return TensorType(t.code, tuple(t.dims[p] for p in permutation), None)


def _transpose_impl(x, permutation):
    return x.transpose(permutation)


defop("transpose", _transpose_rule, _transpose_impl, view=True,
      text=lambda a: _dims_text("dimensions", a["permutation"]))


def transpose(operand, permutation):
    """Transpose: result dim i is operand dim permutation[i] (a view)."""
    return apply("transpose", [operand], permutation=_ints(permutation, "permutation",
                                                               "transpose"))


# ------------------------------------------------------------------------ reshape
def _reshape_rule(types, new_sizes, dimensions):
    (t,) = types
    n = len(t.dims)
    if dimensions is not None and sorted(dimensions) != list(range(n)):
        raise ValueError(f"lax.reshape: dimensions {dimensions} must be a permutation of "
                         f"0..{n - 1} for shape {t.dims}")
    size = math.prod(t.dims)       # (Python ints: exact, and 10x faster than np.prod on
    new = math.prod(new_sizes)     # a tuple; the rule runs for every reshape)
    if any(d < 0 for d in new_sizes) or new != size:
        raise ValueError(f"lax.reshape: cannot reshape {XLA_NAMES[t.code]}{list(t.dims)} "
                         f"(size {size}) into {list(new_sizes)} (size {new})")
    return TensorType(t.code, tuple(new_sizes), None)


def _reshape_impl(x, new_sizes, dimensions):
    if dimensions is not None and tuple(dimensions) != tuple(range(x.ndim)):
        x = x.transpose(dimensions)
    return x.reshape(new_sizes)


defop("reshape", _reshape_rule, _reshape_impl, view=True)


def reshape(operand, new_sizes, dimensions=None):
    """Reshape (seed 004): with ``dimensions``, the operand's dims are first taken in that
    order (a transpose), then the elements are laid out row-major into ``new_sizes``."""
    new_sizes = _ints(new_sizes, "new_sizes", "reshape")
    dims = None if dimensions is None else _ints(dimensions, "dimensions", "reshape")
    return apply("reshape", [operand], new_sizes=new_sizes, dimensions=dims)


def collapse(operand, start_dimension, stop_dimension=None):
    """Collapse: merges consecutive dims into one. jax form ``collapse(x, start, stop)``
    (stop exclusive) or the seed's ``collapse(x, dims)`` with dims consecutive and in
    order (``collapse(f32[2,3,4], (1, 2))`` -> f32[2,12])."""
    operand = as_operand(operand)
    shape = tuple(operand.shape)
    if stop_dimension is None:
        dims = _ints(start_dimension, "dimensions", "collapse")
        if not dims or any(dims[i] + 1 != dims[i + 1] for i in range(len(dims) - 1)):
            raise ValueError(f"lax.collapse: dimensions {dims} must be consecutive and in "
                             f"increasing order")
        start, stop = dims[0], dims[-1] + 1
    else:
        start, stop = operator.index(start_dimension), operator.index(stop_dimension)
    if not 0 <= start <= stop <= len(shape):
        raise ValueError(f"lax.collapse: dims [{start}, {stop}) out of range for shape "
                         f"{shape}")
    merged = math.prod(shape[start:stop])
    return reshape(operand, shape[:start] + (merged,) + shape[stop:])


# ------------------------------------------------------------------------ rev
def _rev_rule(types, dimensions):
    (t,) = types
    if any(not 0 <= d < len(t.dims) for d in dimensions) or \
            len(set(dimensions)) != len(dimensions):
        raise ValueError(f"lax.rev: dimensions {dimensions} must be distinct dims of shape "
                         f"{t.dims}")
    return TensorType(t.code, t.dims, None)


def _rev_impl(x, dimensions):
    key = tuple(builtins.slice(None, None, -1) if d in dimensions else builtins.slice(None)
                for d in range(x.ndim))
    return x[key] if key else x


defop("rev", _rev_rule, _rev_impl, view=True,
      text=lambda a: _dims_text("dimensions", a["dimensions"]))


def rev(operand, dimensions):
    """Rev: reverses the order of elements along ``dimensions`` (a view)."""
    return apply("rev", [operand], dimensions=_ints(dimensions, "dimensions", "rev"))


# ------------------------------------------------------------------------ slice
def _slice_rule(types, start_indices, limit_indices, strides):
    (t,) = types
    n = len(t.dims)
    if not len(start_indices) == len(limit_indices) == len(strides) == n:
        raise ValueError(f"lax.slice: start_indices {start_indices}, limit_indices "
                         f"{limit_indices} and strides {strides} need {n} entries for shape "
                         f"{t.dims}")
    out = []
    for d, (lo, hi, st, size) in enumerate(zip(start_indices, limit_indices, strides, t.dims)):
        if st < 1:
            raise ValueError(f"lax.slice: strides {strides} must be positive")
        if not 0 <= lo <= hi <= size:
            raise ValueError(f"lax.slice: dim {d}: need 0 <= start {lo} <= limit {hi} <= "
                             f"size {size} (shape {t.dims})")
        out.append((hi - lo + st - 1) // st)
    return TensorType(t.code, tuple(out), None)


def slice_key(start_indices, limit_indices, strides):
    """The basic index of a Slice: ((start, limit, stride) per dim) as Python slices."""
    return tuple(builtins.slice(lo, hi, st) for lo, hi, st in
                 zip(start_indices, limit_indices, strides))


def _slice_impl(x, start_indices, limit_indices, strides):
    return x[slice_key(start_indices, limit_indices, strides)] if x.ndim else x


def _slice_text(a):
    parts = []
    for lo, hi, st in zip(a["start_indices"], a["limit_indices"], a["strides"]):
        parts.append(f"[{lo}:{hi}{'' if st == 1 else ':' + str(st)}]")
    return ["slice={" + ", ".join(parts) + "}"]


defop("slice", _slice_rule, _slice_impl, view=True, text=_slice_text)


def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001
    """Slice: elements start..limit (exclusive) with ``strides`` per dim (a view)."""
    start = _ints(start_indices, "start_indices", "slice")
    limit = _ints(limit_indices, "limit_indices", "slice")
    st = _ints(strides, "strides", "slice") if strides is not None else (1,) * len(start)
    return apply("slice", [operand], start_indices=start, limit_indices=limit, strides=st)


# ------------------------------------------------------------------------ dynamic slice
def _clamped_starts(starts, sizes, dims):
    """The seed's rule: each start is clamped to [0, dim - size]."""
    return tuple(min(max(int(s), 0), d - z) for s, z, d in zip(starts, sizes, dims))


def _index_types(types, n, op):
    for k, it in enumerate(types):
        if it.dims != () or KINDS[it.code] not in "iu":
            raise TypeError(f"lax.{op}: start index {k} must be an integer scalar, got "
                            f"{XLA_NAMES[it.code]}{list(it.dims)}")
    if len(types) != n:
        raise ValueError(f"lax.{op}: needs {n} start indices (one per dim), got "
                         f"{len(types)}")


def _dynamic_slice_rule(types, slice_sizes):
    t = types[0]
    _index_types(types[1:], len(t.dims), "dynamic_slice")
    if len(slice_sizes) != len(t.dims) or any(not 0 <= z <= d for z, d in
                                               zip(slice_sizes, t.dims)):
        raise ValueError(f"lax.dynamic_slice: slice_sizes {slice_sizes} must have one entry "
                         f"per dim with 0 <= size <= dim (shape {t.dims})")
    return TensorType(t.code, tuple(slice_sizes), None)


def _dynamic_slice_impl(x, *starts, slice_sizes):
    lo = _clamped_starts([s.item() for s in starts], slice_sizes, x.shape)
    return x[tuple(builtins.slice(a, a + z) for a, z in zip(lo, slice_sizes))] if x.ndim else x


defop("dynamic_slice", _dynamic_slice_rule, _dynamic_slice_impl, view=True,
      text=lambda a: _dims_text("dynamic_slice_sizes", a["slice_sizes"]))


def _index_operands(start_indices, op):
    """Start indices as scalar tensors: Python ints become s32, or s64 for all of them
    when one does not fit s32 (saturated to s64's range: every start is clamped to
    [0, dim - size] anyway, so 2**70 and 2**63 - 1 select the same block)."""
    ints = []
    for s in start_indices:
        if not isinstance(s, (Tensor, Traced)):
            try:
                ints.append(operator.index(s))
            except TypeError:
                raise TypeError(f"lax.{op}: start indices must be integers or integer "
                                f"scalar tensors, got {s!r}") from None
    code = 3 if builtins.all(-2**31 <= v < 2**31 for v in ints) else 4
    vals = iter(ints)
    return [s if isinstance(s, (Tensor, Traced)) else
            _tensor.scalar_tensor(builtins.min(builtins.max(next(vals), -2**63), 2**63 - 1),
                                  code)
            for s in start_indices]


def dynamic_slice(operand, start_indices, slice_sizes):
    """DynamicSlice: a ``slice_sizes`` block at run-time ``start_indices``, each start
    clamped to [0, dim - size] so the block is always in bounds (seed 004)."""
    sizes = _ints(slice_sizes, "slice_sizes", "dynamic_slice")
    return apply("dynamic_slice", [operand] + _index_operands(start_indices, "dynamic_slice"),
                 slice_sizes=sizes)


def _dus_rule(types):
    t, u = types[0], types[1]
    if u.code != t.code or len(u.dims) != len(t.dims) or \
            any(a > b for a, b in zip(u.dims, t.dims)):
        raise ValueError(f"lax.dynamic_update_slice: update {XLA_NAMES[u.code]}"
                         f"{list(u.dims)} must have the operand's type and rank and fit in "
                         f"{XLA_NAMES[t.code]}{list(t.dims)}")
    _index_types(types[2:], len(t.dims), "dynamic_update_slice")
    return TensorType(t.code, t.dims, None)


def dus_into(out, update, *starts):
    """DynamicUpdateSlice written into ``out`` itself (returned): the eager op on a copy,
    and the graph executor's step when nothing reads the operand's buffer afterwards."""
    lo = _clamped_starts([s.item() for s in starts], update.shape, out.shape)
    if out.ndim:
        out[tuple(builtins.slice(a, a + z) for a, z in zip(lo, update.shape))] = update
    else:
        out[...] = update
    return out


def _dus_impl(x, update, *starts):
    return dus_into(x.copy(), update, *starts)


defop("dynamic_update_slice", _dus_rule, _dus_impl)


def dynamic_update_slice(operand, update, start_indices):
    """DynamicUpdateSlice: a copy of operand with ``update`` written at the run-time start,
    clamped like DynamicSlice so it fits."""
    return apply("dynamic_update_slice",
                 [operand, update] + _index_operands(start_indices, "dynamic_update_slice"))


# ------------------------------------------------------------------------ pad
def _pad_rule(types, padding_config):
    t, v = types
    if v.dims != () or v.code != t.code:
        raise TypeError(f"lax.pad: padding_value must be a {XLA_NAMES[t.code]} scalar, got "
                        f"{XLA_NAMES[v.code]}{list(v.dims)}")
    if len(padding_config) != len(t.dims):
        raise ValueError(f"lax.pad: padding_config {padding_config} needs one (low, high, "
                         f"interior) per dim of {t.dims}")
    out = []
    for d, ((lo, hi, interior), size) in enumerate(zip(padding_config, t.dims)):
        if interior < 0:
            raise ValueError(f"lax.pad: interior padding must be non-negative, got "
                             f"{interior} for dim {d}")
        n = lo + hi + size + max(size - 1, 0) * interior
        if n < 0:
            raise ValueError(f"lax.pad: dim {d} of size {size} with padding {(lo, hi, interior)} "
                             f"has negative size {n}")
        out.append(n)
    return TensorType(t.code, tuple(out), None)


def _pad_impl(x, value, padding_config):
    shape = []
    for (lo, hi, interior), size in zip(padding_config, x.shape):
        shape.append(lo + hi + size + max(size - 1, 0) * interior)
    out = _tensor.empty(tuple(shape), CODE_OF[x.dtype])
    # Destination positions of source element i along a dim: lo + i * (interior + 1);
    # negative low/high padding crops the source.
    src_key, dst_key = [], []
    for (lo, hi, interior), size, n in zip(padding_config, x.shape, shape):
        step = interior + 1
        first = 0 if lo >= 0 else (-lo + step - 1) // step
        last = size - 1
        while last >= first and lo + last * step >= n:
            last -= 1
        if last < first:
            if out.size:
                _tensor.convert_into(out, value)
            return out
        src_key.append(builtins.slice(first, last + 1))
        dst_key.append(builtins.slice(lo + first * step, lo + last * step + 1, step))
    if x.ndim == 0:
        _tensor.convert_into(out, x)
        return out
    if all(interior == 0 for _, _, interior in padding_config):
        # Fill only the border slabs (each output element written once, corners twice),
        # then copy the operand into the middle: one read and one write of the data.
        for d, key in enumerate(dst_key):
            for part in (builtins.slice(0, key.start), builtins.slice(key.stop, shape[d])):
                if part.stop > part.start:
                    k = [builtins.slice(None)] * len(shape)
                    k[d] = part
                    _tensor.convert_into(out[tuple(k)], value)
    elif out.size:
        _tensor.convert_into(out, value)
    _tensor.convert_into(out[tuple(dst_key)], x[tuple(src_key)])
    return out


def _pad_text(a):
    return ["padding=" + "x".join(f"{lo}_{hi}" + (f"_{i}" if i else "")
                                  for lo, hi, i in a["padding_config"])]


defop("pad", _pad_rule, _pad_impl, text=_pad_text)


def pad(operand, padding_value, padding_config):
    """Pad (seed 004): per dim (low, high, interior); negative low/high crop, interior
    inserts padding between elements (must be >= 0)."""
    operand = as_operand(operand)
    cfg = tuple(_ints(c, "padding_config entries", "pad") for c in padding_config)
    if any(len(c) != 3 for c in cfg):
        raise ValueError(f"lax.pad: each padding_config entry is (low, high, interior), got "
                         f"{padding_config}")
    if isinstance(padding_value, (np.generic, np.ndarray)):
        padding_value = as_operand(padding_value)
    elif not isinstance(padding_value, (Tensor, Traced)):
        padding_value = lax_scalar("lax.pad", padding_value, CODE_OF[operand.dtype])
    return apply("pad", [operand, padding_value], padding_config=cfg)


# ------------------------------------------------------------------------ concatenate
def _concat_rule(types, dimension):
    t0 = types[0]
    n = len(t0.dims)
    if not 0 <= dimension < n:
        raise ValueError(f"lax.concatenate: dimension {dimension} out of range for rank {n}")
    total = 0
    for k, t in enumerate(types):
        if t.code != t0.code or len(t.dims) != n or any(
                a != b for i, (a, b) in enumerate(zip(t.dims, t0.dims)) if i != dimension):
            raise ValueError(f"lax.concatenate: operand {k} is {XLA_NAMES[t.code]}"
                             f"{list(t.dims)}, operand 0 is {XLA_NAMES[t0.code]}"
                             f"{list(t0.dims)}; all must match except in dim {dimension}")
        total += t.dims[dimension]
    dims = list(t0.dims)
    dims[dimension] = total
    return TensorType(t0.code, tuple(dims), None)


def _concat_impl(*xs, dimension):
    shape = list(xs[0].shape)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    out = _tensor.empty(tuple(shape), CODE_OF[xs[0].dtype])
    at = 0
    for x in xs:
        n = x.shape[dimension]
        if n and x.size:
            key = [builtins.slice(None)] * len(shape)
            key[dimension] = builtins.slice(at, at + n)
            _tensor.convert_into(out[tuple(key)], x)
        at += n
    return out


defop("concatenate", _concat_rule, _concat_impl,
      text=lambda a: _dims_text("dimensions", (a["dimension"],)))


def concatenate(operands, dimension):
    """Concatenate along ``dimension`` (same type, equal other dims)."""
    if not operands:
        raise ValueError("lax.concatenate: needs at least one operand")
    return apply("concatenate", list(operands), dimension=operator.index(dimension))


# ------------------------------------------------------------------------ squeeze / expand
def squeeze(array, dimensions):
    """Removes the given size-1 dims."""
    array = as_operand(array)
    shape = tuple(array.shape)
    given = _ints(dimensions, "dimensions", "squeeze")
    dims = tuple(normalize_axis(d, len(shape), "squeeze", "lax") for d in given)
    for g, d in zip(given, dims):
        if shape[d] != 1:
            raise ValueError(f"lax.squeeze: dimension {g} of shape {shape} is not of size 1")
    return reshape(array, tuple(s for i, s in enumerate(shape) if i not in dims))


def expand_dims(array, dimensions):
    """Inserts size-1 dims at ``dimensions`` (positions in the result)."""
    array = as_operand(array)
    shape = list(array.shape)
    given = _ints(dimensions, "dimensions", "expand_dims")
    n = len(shape) + len(given)   # the positions are dims of the result
    dims = sorted(normalize_axis(d, n, "expand_dims", "lax") for d in given)
    if len(set(dims)) != len(dims):
        raise ValueError(f"lax.expand_dims: repeated dimensions {tuple(dimensions)}")
    for d in dims:
        shape.insert(d, 1)
    return reshape(array, tuple(shape))


# ------------------------------------------------------------------------ bitcast
def _bitcast_rule(types, new_code):
    (t,) = types
    if new_code == 0 and t.code != 0:
        # Bytes other than 0 and 1 are not bools (sums, all, argmax and comparisons would
        # disagree about them), so nothing bitcasts *to* pred; from pred (0/1 bytes) is
        # fine. jax refuses both directions.
        raise TypeError(f"lax.bitcast_convert_type: {XLA_NAMES[t.code]} -> pred: only pred "
                        f"bitcasts to pred (its bytes must be 0 or 1); use "
                        f"convert_element_type or x != 0")
    a, b = _tensor_itemsize(t.code), _tensor_itemsize(new_code)
    if a == b:
        return TensorType(new_code, t.dims, None)
    if a > b:
        if a % b:
            raise ValueError(f"lax.bitcast_convert_type: {XLA_NAMES[t.code]} -> "
                             f"{XLA_NAMES[new_code]}: widths {a} and {b} bytes do not divide")
        return TensorType(new_code, t.dims + (a // b,), None)
    if b % a or not t.dims or t.dims[-1] != b // a:
        raise ValueError(f"lax.bitcast_convert_type: {XLA_NAMES[t.code]}{list(t.dims)} -> "
                         f"{XLA_NAMES[new_code]} needs a last dim of size {b // a} (seed: "
                         f"the narrower type's last dim folds into the wider element)")
    return TensorType(new_code, t.dims[:-1], None)


def _tensor_itemsize(code):
    return DTYPES[code].itemsize


def _bitcast_impl(x, new_code):
    src = x if x.flags["C_CONTIGUOUS"] else _tensor.copy_dense(x)
    arr = np.asarray(src)
    a, b = arr.dtype.itemsize, DTYPES[new_code].itemsize
    if a > b:
        # a trailing unit dim first: NumPy refuses to change the itemsize of a 0-d array
        out = arr.reshape(arr.shape + (1,)).view(DTYPES[new_code])
    else:
        out = arr.view(DTYPES[new_code])
        if a < b:
            out = out.reshape(arr.shape[:-1])
    return _tensor.wrap_numpy(out)


defop("bitcast_convert", _bitcast_rule, _bitcast_impl, view=True)


def bitcast_convert_type(operand, new_dtype):
    """BitcastConvertType: reinterprets the bits. Same width keeps the shape; a narrower
    type appends a dim of size (old width / new width); a wider type consumes a last dim
    of size (new width / old width) (seed 004, ~line 200)."""
    return apply("bitcast_convert", [operand], new_code=CODE_OF[as_dtype(new_dtype)])


# ------------------------------------------------------------------------ dynamic sizes
# Dynamic sizes (seed 004 SetDimensionSize) live beside the tensor they describe: id ->
# (weak reference, {dim: size}); the entry goes when the tensor does. The tensor's static
# shape stays the bound; reductions (lax.reduce and the NumPy reductions) ignore the
# padding past a dynamic size, get_dimension_size reports it; other ops see the static
# shape and return ordinary tensors (the padding travels as data, as in XLA).
_DYNAMIC_SIZES = {}
_tensor.register_eager_state(dynamic_sizes=_DYNAMIC_SIZES)   # whole_reduce asks it


def has_dynamic_sizes():
    """Whether any live tensor has dynamic sizes (the reductions' fast path asks first)."""
    return bool(_DYNAMIC_SIZES)


def dynamic_sizes_of(x):
    """{dim: run-time size} set on tensor x by set_dimension_size, or None."""
    entry = _DYNAMIC_SIZES.get(id(x))
    if entry is None or entry[0]() is not x:
        return None
    return entry[1]


def _set_dynamic_sizes(x, sizes):
    _DYNAMIC_SIZES[id(x)] = (weakref.ref(x), sizes)
    weakref.finalize(x, _DYNAMIC_SIZES.pop, id(x), None)


def _dim_rule(types, dimension, op):
    t = types[0]
    if not 0 <= dimension < len(t.dims):
        raise ValueError(f"lax.{op}: dimension {dimension} out of range [0, {len(t.dims)})")
    return t


def _get_size_rule(types, dimension):
    _dim_rule(types, dimension, "get_dimension_size")
    return TensorType(CODE_OF[np.dtype(np.int32)], (), None)


def _get_size_impl(x, dimension):
    sizes = dynamic_sizes_of(x) or {}
    return _tensor.scalar_tensor(int(sizes.get(dimension, x.shape[dimension])),
                                 CODE_OF[np.dtype(np.int32)])


def _set_size_rule(types, dimension):
    t, n = types
    _dim_rule(types, dimension, "set_dimension_size")
    if n.dims != () or KINDS[n.code] not in "iu":
        raise TypeError(f"lax.set_dimension_size: size must be an integer scalar, got "
                        f"{XLA_NAMES[n.code]}{list(n.dims)}")
    return TensorType(t.code, t.dims, None)


def _set_size_impl(x, size, dimension):
    n = int(size.item())
    if not 0 <= n <= x.shape[dimension]:
        raise ValueError(f"lax.set_dimension_size: size {n} outside [0, "
                         f"{x.shape[dimension]}] for dimension {dimension} of shape "
                         f"{tuple(x.shape)}")
    out = _tensor.as_strided_view(x, tuple(x.shape), tuple(x.strides), 0)
    sizes = dict(dynamic_sizes_of(x) or {})
    sizes[dimension] = n
    _set_dynamic_sizes(out, sizes)
    return out


def get_dimension_size(operand, dimension):
    """GetDimensionSize: the (dynamic, else static) size of ``dimension`` as an s32
    scalar (read at run time under xa.jit)."""
    return apply("get_dimension_size", [operand], dimension=operator.index(dimension))


def set_dimension_size(operand, size, dimension):
    """SetDimensionSize: ``operand`` with ``dimension``'s run-time size set to ``size``
    (0 <= size <= the static size, which stays the shape's bound; checked when it runs).
    Reductions ignore the elements past it, eagerly and under xa.jit / xa.lazy."""
    if not isinstance(size, (Tensor, Traced)):
        size = _tensor.scalar_tensor(operator.index(size), CODE_OF[np.dtype(np.int32)])
    return apply("set_dimension_size", [operand, size], dimension=operator.index(dimension))


def valid_region(x, dims):
    """x restricted to its dynamic sizes along ``dims`` (a plain view), or x itself."""
    sizes = dynamic_sizes_of(x) if type(x) is Tensor else None
    if not sizes or not any(d in sizes for d in dims):
        return x
    limit = [sizes.get(d, s) if d in dims else s for d, s in enumerate(x.shape)]
    return _tensor.as_strided_view(_tensor.strided(x), tuple(limit),
                                   tuple(_tensor.strided(x).strides), 0)


defop("get_dimension_size", _get_size_rule, _get_size_impl,
      text=lambda a: _dims_text("dimensions", (a["dimension"],)))
defop("set_dimension_size", _set_size_rule, _set_size_impl, view=True,
      text=lambda a: _dims_text("dimensions", (a["dimension"],)))


# ------------------------------------------------------------------------ broadcast / iota
# Leaves of a fusion (xarr/_graph/passes.py): recomputed inside each fusion that reads
# them. Their executable step (outside fusions) is the eager function's.
def _broadcast_text(instr):
    return ["dimensions={" + ",".join(map(str, instr.attrs["dimensions"])) + "}"]


register(Op("broadcast", "leaf", text=_broadcast_text))
register(Op("iota", "leaf", text=lambda instr: [
    f"iota_dimension={instr.attrs['iota_dimension']}"]))


def iota(dtype, size):
    """0, 1, ..., size-1 of ``dtype`` (jax.lax.iota)."""
    size = operator.index(size)
    if size < 0:
        raise ValueError(f"lax.iota: size must be non-negative, got {size}")
    rec = recorder(())
    if rec is not None or _trace.tracing() is not None:
        return _trace.iota(rec or _trace.tracing(), CODE_OF[as_dtype(dtype)], (size,), 0)
    return iota_kernel(CODE_OF[as_dtype(dtype)], size)


def broadcasted_iota(dtype, shape, dimension):
    """The seed's Iota(shape, dimension): values count along ``dimension``.
    ``broadcasted_iota(int32, (2, 3), 1)`` is [[0, 1, 2], [0, 1, 2]]."""
    shape = tuple(operator.index(d) for d in shape)
    dimension = operator.index(dimension)
    if not -len(shape) <= dimension < len(shape):
        raise ValueError(f"lax.broadcasted_iota: dimension {dimension} out of range for "
                         f"shape {shape}")
    dimension %= len(shape)
    rec = recorder(()) or _trace.tracing()
    if rec is not None:
        return _trace.iota(rec, CODE_OF[as_dtype(dtype)], shape, dimension)
    line = iota(dtype, shape[dimension])
    view = broadcast_in_dim(line, shape, (dimension,))
    return view.copy()


def broadcast_in_dim(operand, shape, broadcast_dimensions):
    """BroadcastInDim: operand dim i becomes result dim broadcast_dimensions[i] (sizes must
    match or be 1), in any order (seed 004); a read-only view with stride 0 along
    broadcast dims. Example: f32[2,3] with shape (3, 4, 2) and dims (2, 0) puts operand
    dim 0 on result dim 2 and dim 1 on result dim 0: out[k, j, i] = x[i, k]."""
    operand = as_operand(operand)
    shape = tuple(operator.index(d) for d in shape)
    bd = tuple(operator.index(d) for d in broadcast_dimensions)
    if len(bd) != operand.ndim:
        raise ValueError(f"lax.broadcast_in_dim: broadcast_dimensions {bd} must have one "
                         f"entry per operand dim (operand shape {operand.shape})")
    if any(d < 0 or d >= len(shape) for d in bd):
        raise ValueError(f"lax.broadcast_in_dim: broadcast_dimensions {bd} out of range for "
                         f"result shape {shape}")
    if len(set(bd)) != len(bd):
        raise ValueError(f"lax.broadcast_in_dim: broadcast_dimensions {bd} repeat a result "
                         f"dim (each operand dim needs its own)")
    for i, d in enumerate(bd):
        if operand.shape[i] != shape[d] and operand.shape[i] != 1:
            raise ValueError(f"lax.broadcast_in_dim: operand dim {i} has size "
                             f"{operand.shape[i]}, result dim {d} has size {shape[d]}")
    rec = recorder([operand])
    if rec is not None:
        return _trace.broadcast_in_dim(rec, operand, shape, bd)
    return broadcast_view(operand, shape, bd)


def broadcast_view(operand, shape, broadcast_dimensions):
    """BroadcastInDim of a concrete tensor, arguments already checked: a read-only view
    with stride 0 along the broadcast dims (also the graph executor's broadcast step)."""
    src = _tensor.strided(operand)
    strides = [0] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        if src.shape[i] == shape[d]:
            strides[d] = src.strides[i]
    return _tensor.as_strided_view(src, shape, strides, 0, True)


def broadcast(operand, sizes):
    """Broadcast: prepends dims ``sizes`` (result shape sizes + operand.shape)."""
    operand = as_operand(operand)
    sizes = tuple(operator.index(d) for d in sizes)
    if any(d < 0 for d in sizes):
        raise ValueError(f"lax.broadcast: negative size in {sizes}")
    n = len(sizes)
    return broadcast_in_dim(operand, sizes + operand.shape, tuple(range(n, n + operand.ndim)))


# ------------------------------------------------------------------------ reduce_precision
_FLOAT_FORMAT = {np.dtype(np.float16): (10, 5, np.uint16),
                 np.dtype(np.float32): (23, 8, np.uint32),
                 np.dtype(np.float64): (52, 11, np.uint64)}


def reduce_precision(operand, exponent_bits, mantissa_bits):
    """ReducePrecision (seed 004): rounds to ``mantissa_bits`` (ties to even) and clamps
    values outside an ``exponent_bits`` range to +-inf (values below its normal range
    flush to signed zero); NaN stays NaN. Built from elementwise bit operations on the
    bit pattern, so it fuses under xa.jit.

    ``reduce_precision(f32 1.00048828125, exponent_bits=5, mantissa_bits=10) == 1.0``
    (f16's rounding: the tie goes to the even mantissa)."""
    operand = as_operand(operand)
    exponent_bits, mantissa_bits = operator.index(exponent_bits), operator.index(mantissa_bits)
    if exponent_bits < 1 or mantissa_bits < 0:
        raise ValueError(f"lax.reduce_precision: needs exponent_bits >= 1 and mantissa_bits "
                         f">= 0, got {exponent_bits} and {mantissa_bits}")
    dt = operand.dtype
    if dt == bfloat16:   # bfloat16: its own format, 7 mantissa bits and 8 exponent bits
        fmt = (7, 8, np.uint16)
    elif dt in _FLOAT_FORMAT:
        fmt = _FLOAT_FORMAT[dt]
    else:
        raise TypeError(f"lax.reduce_precision: needs a floating-point operand, got {dt}")
    m_src, e_src, uint = fmt
    nbits = 8 * np.dtype(uint).itemsize
    bits = bitcast_convert_type(operand, uint)
    u = lambda v: uint(v)  # noqa: E731  (scalars of the bit pattern's type)
    if mantissa_bits < m_src:
        drop = m_src - mantissa_bits
        last_bit = 1 << drop
        bias = lax_apply("add", lax_apply("shift_right_logical",
                                          lax_apply("and", bits, u(last_bit)), u(drop)),
                         u((last_bit >> 1) - 1))
        keep = u(((1 << nbits) - 1) ^ (last_bit - 1))
        bits = lax_apply("and", lax_apply("add", bits, bias), keep)
    if exponent_bits < e_src:
        sign_mask = u(1 << (nbits - 1))
        exp_mask = u(((1 << e_src) - 1) << m_src)
        bias_src = (1 << (e_src - 1)) - 1
        bias_dst = (1 << (exponent_bits - 1)) - 1
        exponent = lax_apply("and", bits, exp_mask)
        overflow = lax_apply("gt", exponent, u((bias_src + bias_dst) << m_src))
        underflow = lax_apply("le", exponent, u((bias_src - bias_dst) << m_src))
        signed_zero = lax_apply("and", bits, sign_mask)
        signed_inf = lax_apply("or", signed_zero, exp_mask)
        bits = lax_apply("select", overflow, signed_inf,
                         lax_apply("select", underflow, signed_zero, bits))
    result = bitcast_convert_type(bits, dt)
    return lax_apply("select", lax_apply("is_nan", operand), operand, result)


# ------------------------------------------------------------------------ entry points
def reshape_any(x, shape):
    """NumPy's row-major reshape of a tensor or a traced value (Tensor.reshape and
    Traced.reshape come here): a view when the strides allow, else a copy."""
    if type(x) is not Traced:
        return reshape_tensor(x, shape)
    shape = reshape_shape(x.shape, shape)
    return x if shape == tuple(x.shape) else reshape(x, shape)


register_entry_points(reshape=reshape_any, lax_transpose=transpose)
