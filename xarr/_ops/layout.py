"""Layout operations: relayout (strided, padded, tiled), reshape, and the storage plans.

Storage contract (seed 000/002, see xarr/_shape.py for the index math):
* plain layout ``{m2m}``: dense strided, the dim ``m2m[0]`` fastest;
* ``padded_dimensions`` (``PD(...)``): strided over the padded dims, padding slots hold
  ``padding_value``;
* tiled (``T(...)``): the buffer is row-major over ``tiled_shape(shape)`` with padding
  slots zero; it is not strided, so ops relayout it first (``untile``);
* ``L(n)`` tail padding and ``S(n)`` memory space are remembered on the tensor.

Python decides the plan here; the copies are C++ (``_core.copy_strided``: cache-blocked
SIMD transpose; ``_core.copy_tiled``).
"""

import operator

import numpy as np

from xarr import _core
from xarr import _tensor
from xarr._dispatch import register
from xarr._dtypes import CODE_OF, DTYPES, XLA_NAMES
from xarr._shape import (MAX_INT, Layout, Shape, padding_constraints, physical_dim_map,
                         tiled_shape)
from xarr._tensor import Tensor


def as_layout(layout, rank, op="relayout"):
    """A Layout from a Layout, HLO text ('{0,1}' or '0,1'), or a minor_to_major sequence."""
    if isinstance(layout, Layout):
        return layout
    if isinstance(layout, str):
        text = layout.strip()
        if not text.startswith("{"):
            text = "{" + text + "}"
        return Layout.parse(text)
    if isinstance(layout, (tuple, list)):
        try:
            m2m = tuple(int(d) for d in layout)
        except (TypeError, ValueError):
            raise TypeError(f"{op}: layout must be an xa.Layout, HLO text or a "
                            f"minor_to_major sequence of ints, got {layout!r}") from None
        return Layout(m2m)
    raise TypeError(f"{op}: layout must be an xa.Layout, HLO text or a minor_to_major "
                    f"sequence, got {type(layout).__name__}")


def _checked_shape(t, layout, op):
    """The Shape of t in ``layout``; ValueError naming the layout when its storage (padding
    and tiles included) does not fit in 2**62 elements."""
    try:
        shape = Shape(XLA_NAMES[CODE_OF[t.dtype]], t.shape, layout)
    except (ValueError, TypeError) as e:
        raise type(e)(f"{op}: {e}") from None
    if shape.storage_elements >= MAX_INT:
        raise ValueError(f"{op}: layout {layout} of shape {t.shape} needs "
                         f"{shape.storage_elements} elements of storage (at most 2**62)")
    return shape


def is_dense(t):
    """True when strided ``t`` covers exactly its own dense block of memory (its strides
    are those of its minor_to_major with no gaps): the storage its layout promises."""
    if _tensor.is_tiled(t) or t._explicit_layout is not None:
        return True
    if t.size == 0:
        return True
    expect = t.itemsize
    for d in t.layout.minor_to_major:
        if t.shape[d] != 1 and t.strides[d] != expect:
            return False
        expect *= t.shape[d]
    return True


def _is_plain(layout):
    return (not layout.tiles and layout.padded_dimensions is None
            and layout.tail_padding_alignment_in_elements == 1 and layout.memory_space == 0)


def _copy(dst, src):
    """dst[...] = src for strided tensors of equal shape and dtype (C++ copy)."""
    if src.size == 0:
        return
    _core.copy_strided(src.itemsize, list(src.shape), src._address, list(src.strides),
                       dst._address, list(dst.strides))


def _strides_for(dims, m2m, itemsize):
    strides = [0] * len(dims)
    s = itemsize
    for d in m2m:
        strides[d] = s
        s *= max(dims[d], 1)
    return strides


def _tiled_plan(shape):
    """(physical dims, forms, bounds) for _core.copy_tiled (see relayout.h)."""
    phys = tiled_shape(shape)
    dmap = physical_dim_map(shape)
    nphys = len(phys)
    forms, bounds = [], []
    for d in range(shape.rank):
        row = [0] * nphys
        for j, (ld, mult) in enumerate(dmap):
            if ld == d:
                row[j] = mult
        forms.extend(row)
        bounds.append(shape.dims[d])
    for terms, bound in padding_constraints(shape):
        row = [0] * nphys
        for j, w in terms:
            row[j] += w
        forms.extend(row)
        bounds.append(bound)
    return list(phys), forms, bounds


def _pad_bytes(code, value):
    return np.asarray(value).astype(DTYPES[code]).tobytes()


def relayout(t, layout):
    """A copy of ``t`` stored with ``layout`` (its values unchanged).

    >>> a = xa.asarray([[1, 2, 3], [4, 5, 6]], dtype=xa.float32)
    >>> a.relayout((0, 1)).storage().tolist()
    [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
    """
    if not isinstance(t, Tensor):
        raise TypeError(f"relayout: expected an xarr Tensor, got {type(t).__name__}")
    layout = as_layout(layout, t.ndim)
    shape = _checked_shape(t, layout, "relayout")
    src = _tensor.strided(t)
    code = CODE_OF[t.dtype]
    m2m = layout.minor_to_major
    if _is_plain(layout):
        out = _tensor.empty(t.shape, code, m2m)
        _copy(out, src)
        if out.layout != layout:
            # Size-0/1 dims make several layouts share strides: remember the requested one.
            _tensor.set_layout(out, layout)
        return out
    out = _tensor.empty_buffer(t.shape, code, shape.storage_elements, layout)
    if layout.tiles:
        _tensor.set_strides(out, None, True)
        if t.size:
            phys, forms, bounds = _tiled_plan(shape)
            _core.copy_tiled(src.itemsize, phys, forms, bounds, list(src.shape), src._address,
                             list(src.strides), out._address, True, _pad_bytes(code, 0))
        return out
    dims = layout.padded_dimensions or t.shape
    strides = _strides_for(dims, m2m, src.itemsize)
    if layout.padded_dimensions is not None and layout.padding_value != 0:
        _tensor.fill(out.storage(), layout.padding_value)
    _tensor.set_strides(out, strides, False)
    _copy(out, src)
    return out


def untile(t):
    """A strided copy (minor_to_major of its layout) of a tiled tensor."""
    layout = t._explicit_layout
    shape = _checked_shape(t, layout, "untile")
    code = CODE_OF[t.dtype]
    out = _tensor.empty(t.shape, code, layout.minor_to_major)
    if t.size:
        phys, forms, bounds = _tiled_plan(shape)
        _core.copy_tiled(out.itemsize, phys, forms, bounds, list(out.shape), out._address,
                         list(out.strides), t._address, False, _pad_bytes(code, 0))
    return out


def retile_into(t, src):
    """Writes strided ``src`` back into tiled tensor ``t``'s buffer."""
    layout = t._explicit_layout
    shape = _checked_shape(t, layout, "retile")
    code = CODE_OF[t.dtype]
    if t.size:
        phys, forms, bounds = _tiled_plan(shape)
        _core.copy_tiled(src.itemsize, phys, forms, bounds, list(src.shape), src._address,
                         list(src.strides), t._address, True, _pad_bytes(code, 0))


def reshape_shape(old_shape, shape, op="reshape"):
    """The shape rule of a row-major reshape: ``shape`` with its one -1 resolved; raises
    ValueError naming both shapes when the sizes differ.
    ``reshape_shape((2, 6), (3, -1)) == (3, 4)``."""
    try:
        shape = (operator.index(shape),)
    except TypeError:
        try:
            shape = tuple(operator.index(d) for d in shape)
        except TypeError:
            raise TypeError(f"{op}: the new shape must be integers, got {shape!r}") from None
    size = 1
    for d in old_shape:
        size *= d
    if shape.count(-1) > 1:
        raise ValueError(f"{op}: can only specify one unknown dimension, got {shape}")
    if -1 in shape:
        known = 1
        for d in shape:
            if d != -1:
                known *= d
        if known == 0 or size % known:
            raise ValueError(f"{op}: cannot reshape a tensor of size {size} into shape "
                             f"{shape}")
        shape = tuple(size // known if d == -1 else d for d in shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"{op}: negative dimension in {shape}")
    n = 1
    for d in shape:
        n *= d
    if n != size:
        raise ValueError(f"{op}: cannot reshape a tensor of shape {tuple(old_shape)} (size "
                         f"{size}) into shape {shape}")
    return shape


def reshape(t, shape):
    """Row-major reshape (NumPy ``order='C'``): a view when the strides allow, else a copy.
    One dim may be -1."""
    shape = reshape_shape(t.shape, shape)
    src = _tensor.strided(t)
    strides = _view_strides(src.shape, src.strides, shape, src.itemsize)
    if strides is None:
        src = _tensor.copy_dense(src)
        strides = _view_strides(src.shape, src.strides, shape, src.itemsize)
    return _tensor.as_strided_view(src, shape, strides, 0)


def _view_strides(old_shape, old_strides, new_shape, itemsize):
    """Strides making ``new_shape`` a row-major reshape view of a strided tensor, or None.

    Groups of old dims that are contiguous with each other can be split or merged freely.
    Worked example: old (6, 4) strides (16, 4) -> new (2, 3, 4) strides (48, 16, 4).
    """
    old = [(d, s) for d, s in zip(old_shape, old_strides) if d != 1]
    i = 0
    # Walk the new dims, consuming old dims chunk by chunk.
    new = list(new_shape)
    if 0 in old_shape or 0 in new:
        st = []
        s = itemsize
        for d in reversed(new):
            st.append(s)
            s *= max(d, 1)
        return list(reversed(st))
    j = 0
    result = [0] * len(new)
    while j < len(new):
        if new[j] == 1:
            result[j] = 0
            j += 1
            continue
        if i >= len(old):
            return None
        # Take old dims until their product is a multiple of the new dims run.
        od, os_ = old[i]
        prod_old = od
        i0 = i
        i += 1
        j0 = j
        prod_new = new[j]
        j += 1
        while prod_old != prod_new:
            if prod_old < prod_new:
                if i >= len(old):
                    return None
                prod_old *= old[i][0]
                i += 1
            else:
                while j < len(new) and new[j] == 1:
                    j += 1
                if j >= len(new):
                    return None
                prod_new *= new[j]
                j += 1
        # Old dims i0..i-1 must be contiguous with each other.
        for k in range(i0, i - 1):
            if old[k][1] != old[k + 1][1] * old[k + 1][0]:
                return None
        stride = old[i - 1][1]
        for k in range(j - 1, j0 - 1, -1):
            result[k] = stride
            if new[k] != 1:
                stride *= new[k]
    return result


register(relayout=relayout, untile=untile)
