"""Creation: zeros / ones / empty / full (and their _like forms), arange, linspace, eye.
Every creator takes ``layout=`` (an xa.Layout, HLO text or a minor_to_major tuple):
``xa.zeros((2, 3), layout=(0, 1))`` is column-major. (Conversion of existing data,
asarray / array / from_dlpack, is xarr/_ops/conversion.py.)
"""

import math
import operator

import numpy as np

from xarr import _tensor
from xarr._dispatch import register
from xarr._dtypes import CODE_OF, DTYPES, as_dtype, check_python_scalar
from xarr._ops import layout as _layout
from xarr._ops.conversion import asarray
from xarr._ops.structural import iota
from xarr._tensor import Tensor

__all__ = ["empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like",
           "full_like", "arange", "linspace", "eye"]


def _shape_tuple(shape, op):
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        shape = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError(f"{op}: shape must be an int or a sequence of ints, got {shape!r}") \
            from None
    if any(d < 0 for d in shape):
        raise ValueError(f"{op}: negative dimensions are not allowed, got {shape}")
    return shape


def _default_dtype(dtype):
    return as_dtype(dtype) if dtype is not None else DTYPES[12]  # float64


def _code_of(dtype):
    """The dtype code of a dtype argument (None: float64), remembered by the tensor core
    so its compiled xa.zeros / xa.empty resolve it the next time without Python."""
    code = _tensor.dtype_argument_code(dtype)
    if code is None:
        code = CODE_OF[_default_dtype(dtype)]
        _tensor.remember_dtype_argument(dtype, code)
    return code


# xa.zeros and xa.empty are the tensor core's (xarr/_tensor_alloc.pxi numpy_zeros,
# numpy_empty): the common call is made there, the rest comes here (zeros_general,
# empty_general, registered below).
zeros = _tensor.numpy_zeros
empty = _tensor.numpy_empty


def empty_general(shape, dtype=None, *, layout=None, device=None):
    """An uninitialized tensor (dtype default float64): what numpy_empty does not make."""
    shape = _shape_tuple(shape, "empty")
    t = _tensor.empty(shape, _code_of(dtype))
    return t if layout is None else _layout.relayout(t, _layout.as_layout(layout, t.ndim))


def full(shape, fill_value, dtype=None, *, layout=None, device=None):
    """A tensor of ``shape`` filled with ``fill_value`` (dtype inferred NumPy-style)."""
    if layout is None and type(fill_value) in _PY_FILL:
        code = _PY_FILL[type(fill_value)] if dtype is None else _code_of(dtype)
        if dtype is not None or type(fill_value) is int:
            check_python_scalar("full", fill_value, DTYPES[code])
        if (t := _tensor.new_filled(shape, code, fill_value)) is not None:
            return t
    shape = _shape_tuple(shape, "full")
    if dtype is None:
        if isinstance(fill_value, Tensor):
            dt = fill_value.dtype
        else:
            dt = as_dtype(np.asarray(fill_value).dtype)
    else:
        dt = as_dtype(dtype)
    t = _tensor.empty(shape, CODE_OF[dt])
    if isinstance(fill_value, Tensor):
        if t.size:
            _tensor.convert_into(t, fill_value)
    else:
        if isinstance(fill_value, np.generic):
            fill_value = fill_value.item()
        check_python_scalar("full", fill_value, dt)
        if t.size:
            _tensor.fill(t, fill_value)
    return t if layout is None else _layout.relayout(t, _layout.as_layout(layout, t.ndim))


# Python fill values and the dtype NumPy gives them (full(shape, 2.5) is float64).
_PY_FILL = {float: CODE_OF[np.dtype(np.float64)], int: CODE_OF[np.dtype(np.int64)],
            bool: CODE_OF[np.dtype(np.bool_)], complex: CODE_OF[np.dtype(np.complex128)]}


def zeros_general(shape, dtype=None, *, layout=None, device=None):
    """A tensor of zeros: what numpy_zeros does not make."""
    shape = _shape_tuple(shape, "zeros")
    t = _tensor.empty(shape, _code_of(dtype), None, True)
    return t if layout is None else _layout.relayout(t, _layout.as_layout(layout, t.ndim))


def ones(shape, dtype=None, *, layout=None, device=None):
    if layout is None and (t := _tensor.new_filled(shape, _code_of(dtype), 1)) is not None:
        return t
    return full(shape, 1, _default_dtype(dtype), layout=layout)


def _like(x, dtype, shape):
    x = x if isinstance(x, Tensor) else asarray(x)
    return (x.shape if shape is None else shape), (x.dtype if dtype is None else dtype), x


def _like_layout(x, layout):
    if layout is not None:
        return layout
    if x._explicit_layout is not None:
        return x._explicit_layout
    return None if x.flags["C_CONTIGUOUS"] else x.layout


def empty_like(x, dtype=None, *, shape=None, layout=None, device=None):
    s, d, x = _like(x, dtype, shape)
    return empty(s, d, layout=_like_layout(x, layout) if shape is None else layout)


def zeros_like(x, dtype=None, *, shape=None, layout=None, device=None):
    s, d, x = _like(x, dtype, shape)
    return zeros(s, d, layout=_like_layout(x, layout) if shape is None else layout)


def ones_like(x, dtype=None, *, shape=None, layout=None, device=None):
    s, d, x = _like(x, dtype, shape)
    return ones(s, d, layout=_like_layout(x, layout) if shape is None else layout)


def full_like(x, fill_value, dtype=None, *, shape=None, layout=None, device=None):
    s, d, x = _like(x, dtype, shape)
    return full(s, fill_value, d, layout=_like_layout(x, layout) if shape is None else layout)


def arange(start, stop=None, step=1, dtype=None, *, layout=None, device=None):
    """Evenly spaced values in [start, stop) (NumPy's arange and its dtype inference)."""
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ValueError("arange: step must not be zero")
    n = max(0, math.ceil((stop - start) / step))
    dt = as_dtype(dtype) if dtype is not None else \
        as_dtype(np.result_type(np.asarray(start), np.asarray(stop), np.asarray(step)))
    if dt == np.bool_ and n > 2:
        raise TypeError(f"arange: booleans are supported only when the result has at most "
                        f"length 2 (NumPy's rule), got length {n}")
    if dt.kind in "iu" and all(isinstance(v, (int, np.integer)) for v in (start, step)):
        # exact integers: start + i * step
        idx = iota(np.dtype(np.int64), n)
        vals = idx * int(step) + int(start) if n else idx
        out = vals.astype(dt) if vals.dtype != dt else vals
    elif dt.kind in "iuf" and dt.itemsize <= 8:
        # NumPy's fill: the first two values converted to dtype, then a[0] + i * delta in
        # the dtype with delta = a[1] - a[0] (arange(0, 2, 0.5, dtype=int32) is all 0s;
        # arange(0.1, 1, 0.2) steps by (0.1 + 0.2) - 0.1)
        with np.errstate(all="ignore"):
            a0 = np.asarray(start).astype(dt)[()]
            delta = (np.asarray(start + step).astype(dt) - a0)[()]
        idx = iota(dt, n)
        out = idx * delta + a0 if n > 1 else (idx * 0 + a0 if n else idx)
    else:
        idx = iota(np.dtype(np.float64), n)
        vals = idx * float(step) + float(start) if n else idx
        out = vals.astype(dt) if vals.dtype != dt else vals
    return out if layout is None else _layout.relayout(out, _layout.as_layout(layout, 1))


def linspace(start, stop, num=50, *, endpoint=True, dtype=None, layout=None, device=None):
    """``num`` evenly spaced values from start to stop (NumPy's linspace)."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"linspace: num must be non-negative, got {num}")
    div = (num - 1) if endpoint else num
    dt = as_dtype(dtype) if dtype is not None else \
        as_dtype(np.result_type(np.asarray(start), np.asarray(stop), np.float64))
    work = np.dtype(np.complex128) if dt.kind == "c" else np.dtype(np.float64)
    idx = iota(work, num)
    if num == 0:
        return idx.astype(dt)
    if div > 0:
        step = (stop - start) / div
        vals = idx * step + start if step != 0 else idx * 0 + start
        if endpoint and num > 1:
            vals[num - 1] = stop
    else:
        vals = idx * 0 + start
    out = vals.astype(dt) if vals.dtype != dt else vals
    return out if layout is None else _layout.relayout(out, _layout.as_layout(layout, 1))


def eye(n_rows, n_cols=None, k=0, dtype=None, *, layout=None, device=None):
    """A 2-D tensor with ones on diagonal ``k`` and zeros elsewhere."""
    n_cols = n_rows if n_cols is None else n_cols
    t = zeros((n_rows, n_cols), dtype)
    if n_rows and n_cols:
        # The diagonal is a strided view: stride row + col.
        start = k if k >= 0 else -k * n_cols
        length = max(0, min(n_rows, n_cols - k) if k >= 0 else min(n_rows + k, n_cols))
        if length > 0:
            flat = t.reshape(-1)
            diag = flat[start:start + (length - 1) * (n_cols + 1) + 1:n_cols + 1]
            _tensor.fill(diag, 1)
    return t if layout is None else _layout.relayout(t, _layout.as_layout(layout, 2))


register(zeros_general=zeros_general, empty_general=empty_general)
