"""Conversion into tensors: ``asarray`` / ``array`` and ``from_dlpack``. Every tensor that
enters xarr from outside (NumPy arrays, DLPack producers, buffers, nested sequences,
scalars) comes through here; ``layout=`` (an xa.Layout, HLO text or a minor_to_major
tuple) stores it with that layout: ``xa.asarray([[1, 2, 3], [4, 5, 6]], layout=(0, 1))``
stores ``1 4 2 5 3 6`` (seed 000's column-major example).
"""

import numpy as np

from xarr import _tensor
from xarr._bindings.dlpack import from_dlpack_capsule
from xarr._dispatch import api, register
from xarr._dtypes import CODE_OF, as_dtype
from xarr._graph.trace import Traced
from xarr._ops import layout as _layout
from xarr._tensor import Tensor

__all__ = ["asarray", "array", "tensor", "from_dlpack"]


def _with_layout(t, layout, op):
    if layout is None:
        return t
    lay = _layout.as_layout(layout, t.ndim, op)
    if t.layout == lay and _layout.is_dense(t):
        return t
    return _layout.relayout(t, lay)


def asarray(obj, dtype=None, *, copy=None, layout=None, device=None):
    """A Tensor from a Tensor, NumPy array, DLPack producer, buffer, nested sequence or
    scalar. Zero-copy when possible; ``copy=True`` always copies, ``copy=False`` raises
    ValueError if a copy is needed. Python scalars take NumPy's default types.
    """
    if (type(obj) is list or type(obj) is tuple) and dtype is None and layout is None and \
            device is None and copy is not False and \
            (t := _tensor.from_sequence(obj)) is not None:
        return t                              # short lists: the small-call path
    if device not in (None, "cpu"):
        raise ValueError(f"asarray: xarr tensors live on the 'cpu' device, not {device!r}")
    dt = as_dtype(dtype) if dtype is not None else None
    no_copy = copy is False
    if isinstance(obj, Traced):
        # A graph value stays one: a dtype converts it, copy=True records a copy.
        if dt is not None and obj.dtype != dt:
            return obj.astype(dt)
        return obj.copy() if copy else obj
    if isinstance(obj, Tensor):
        t = obj
    elif isinstance(obj, np.ndarray):
        if obj.dtype not in CODE_OF:
            native = obj.dtype.newbyteorder("=") if obj.dtype.byteorder not in "=|" \
                else obj.dtype
            target = dt if dt is not None else as_dtype(native)
            if copy is False:
                raise ValueError(f"asarray: {obj.dtype} needs a copy to become a tensor")
            obj = obj.astype(target)
            copy = False
        t = _tensor.wrap_numpy(obj)
    elif hasattr(obj, "__dlpack__") and not isinstance(obj, (list, tuple)):
        t = from_dlpack(obj)
    elif type(obj) in (list, tuple) and api.contains_traced(obj):
        t = api.stack_sequence(obj, dt)        # traced elements: stacked in the graph
        return t if layout is None else _with_layout(t, _layout.as_layout(
            layout, t.ndim, "asarray"), "asarray")
    else:
        try:
            view = memoryview(obj)
        except TypeError:
            view = None
        if view is not None:
            arr = np.asarray(view)
        else:
            if copy is False:
                raise ValueError(f"asarray: a {type(obj).__name__} needs a copy to become a "
                                 f"tensor")
            try:
                arr = np.asarray(obj, dtype=dt)
            except (ValueError, TypeError, OverflowError) as e:
                raise type(e)(f"asarray: cannot convert {type(obj).__name__}: {e}") from None
            if arr.dtype not in CODE_OF:
                raise TypeError(f"asarray: xarr does not support dtype {arr.dtype} (from "
                                f"{type(obj).__name__})")
            copy = False   # arr is already a fresh copy
        t = _tensor.wrap_numpy(arr)
    if dt is not None and t.dtype != dt:
        if copy is False:
            raise ValueError(f"asarray: converting {t.dtype} to {dt} needs a copy")
        t = t.astype(dt)
        copy = False
    if copy:
        if layout is not None:
            return _layout.relayout(t, _layout.as_layout(layout, t.ndim, "asarray"))
        # NumPy's asarray(copy=True) keeps the input's order ('K'): a dense column-major
        # input stays {0,1}; other strided views become row-major.
        if not _tensor.is_tiled(t) and _layout.is_dense(t):
            return _tensor.copy_dense(t, tuple(t.layout.minor_to_major))
        return t.copy()
    if layout is not None:
        lay = _layout.as_layout(layout, t.ndim, "asarray")
        if no_copy:
            if t.layout != lay or not _layout.is_dense(t):
                raise ValueError(f"asarray: storing {t.xla_shape} with layout {lay} needs a "
                                 f"copy, but copy=False")
            return t
        return _with_layout(t, lay, "asarray")
    return t


def array(obj, dtype=None, *, copy=True, layout=None):
    """Like asarray but copies by default (NumPy's ``np.array``)."""
    if (type(obj) is list or type(obj) is tuple) and dtype is None and layout is None and \
            copy and (t := _tensor.from_sequence(obj)) is not None:
        return t                              # (a new tensor: the copy is made)
    return asarray(obj, dtype, copy=copy, layout=layout)


tensor = array


def from_dlpack(x, *, device=None, copy=None):
    """A Tensor sharing the memory of a DLPack producer (NumPy, PyTorch, JAX ...)."""
    if device not in (None, "cpu"):
        raise ValueError(f"from_dlpack: xarr tensors live on the 'cpu' device, not {device!r}")
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack: {type(x).__name__} does not implement __dlpack__")
    if hasattr(x, "__dlpack_device__"):
        dev = x.__dlpack_device__()
        if int(dev[0]) != 1:
            raise BufferError(f"from_dlpack: only CPU tensors can be imported, got device "
                              f"{tuple(dev)}")
    try:
        capsule = x.__dlpack__(max_version=(1, 0))
    except TypeError:
        capsule = x.__dlpack__()
    t = from_dlpack_capsule(capsule)
    return t.copy() if copy else t


register(asarray=asarray)
