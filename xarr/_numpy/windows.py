"""NumPy's sliding-window functions on lax.conv_general_dilated (xarr/_ops/convolution.py):
``convolve`` and ``correlate`` of 1-D sequences with NumPy's modes, and
``sliding_window_view`` (a zero-copy strided view, numpy.lib.stride_tricks').

Modes, for a of length N and v of length M (the full result has N + M - 1 values, lag
k = -(M - 1) .. N - 1 of correlate's c[k] = sum_n a[n + k] * conj(v[n])):
  'full'  every lag; 'valid' the min(M, N) - 1 .. max(M, N) - 1 entries of the full result
  (where one sequence covers the other); 'same' max(M, N) values centred as NumPy centres
  them. Worked example: correlate([1, 2, 3], [0, 1, 0.5], 'full') = [0.5, 2, 3.5, 3, 0].
convolve(a, v) is NumPy's correlate of the longer with the reversed shorter (no conj).

Concrete f32 / f64 sequences of one dtype take a direct path (``_direct``): only the
outputs the mode keeps, on the depthwise kernel (window.h depthwise_run), v reversed
through a negative stride. Anything else (other dtypes, mixed ones, traced values under
xa.jit / xa.lazy) is lax.conv_general_dilated of the full result, sliced.
"""

import operator

import numpy as np

from xarr import _tensor
from xarr._axes import normalize_axis
from xarr._bindings.window import correlate_1d
from xarr._graph.trace import recorder
from xarr._ops.convolution import conv_general_dilated
from xarr._ops.structural import as_operand, reshape, rev
from xarr._tensor import Tensor

_MODES = ("full", "same", "valid")


def _sequence(x, name, op):
    x = as_operand(x)
    if len(x.shape) != 1:
        raise ValueError(f"{op}: {name} must be 1-D, got shape {tuple(x.shape)}")
    if x.shape[0] == 0:
        raise ValueError(f"{op}: {name} cannot be empty")
    return x


def _full(a, v, conj_v):
    """The full correlation of 1-D a and v (every lag), in their common NumPy type."""
    dt = np.result_type(a.dtype, v.dtype)
    work = np.dtype(np.int64) if dt.kind == "b" else dt
    a, v = a.astype(work), v.astype(work)
    if conj_v and dt.kind == "c":
        v = v.conj()
    m = v.shape[0]
    out = conv_general_dilated(reshape(a, (1, 1, a.shape[0])), reshape(v, (1, 1, m)), (1,),
                               ((m - 1, m - 1),))
    out = reshape(out, (out.shape[2],))
    return out != 0 if dt.kind == "b" else out


def _direct(a, v, lo, hi, reverse_v):
    """Outputs [lo, hi) of the full correlation of a and v (v reversed when
    ``reverse_v``: a convolution) as a new 1-D tensor, or None unless a and v are
    concrete f32 / f64 tensors of one dtype (bindings/window.pyx correlate_1d)."""
    if type(a) is not Tensor or type(v) is not Tensor or recorder([a, v]) is not None:
        return None       # (traced, or under xa.lazy: recorded by the general path)
    return correlate_1d(a, v, lo, hi, reverse_v)


def _mode_window(mode, n, m, op):
    """[start, stop) of the full result that ``mode`` keeps (module docstring)."""
    if mode not in _MODES:
        raise ValueError(f"{op}: mode must be one of {_MODES}, got {mode!r}")
    if mode == "full":
        return 0, n + m - 1
    if mode == "valid":
        return min(n, m) - 1, max(n, m)
    start = m - 1 - m // 2 if n >= m else n // 2
    return start, start + max(n, m)


def correlate(a, v, mode="valid"):
    """numpy.correlate: c[k] = sum_n a[n + k] * conj(v[n]) over the lags ``mode`` keeps."""
    a, v = _sequence(a, "a", "correlate"), _sequence(v, "v", "correlate")
    lo, hi = _mode_window(mode, a.shape[0], v.shape[0], "correlate")
    out = _direct(a, v, lo, hi, False)
    return out if out is not None else _full(a, v, True)[lo:hi]


def convolve(a, v, mode="full"):
    """numpy.convolve: (a * v)[n] = sum_m a[m] * v[n - m] over the positions ``mode``
    keeps."""
    a, v = _sequence(a, "a", "convolve"), _sequence(v, "v", "convolve")
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    lo, hi = _mode_window(mode, a.shape[0], v.shape[0], "convolve")
    out = _direct(a, v, lo, hi, True)
    return out if out is not None else _full(a, rev(v, (0,)), False)[lo:hi]


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """numpy.lib.stride_tricks.sliding_window_view: a read-only (unless ``writeable``)
    view whose trailing dims run over each window; no data is copied. Worked example:
    x of shape (4, 5), window (2, 3) -> shape (3, 3, 2, 3), view[i, j] = x[i:i+2, j:j+3]."""
    x = _tensor.strided(as_operand(x)) if isinstance(x, Tensor) else \
        _tensor.strided(as_operand(np.asarray(x)))
    shape = tuple(x.shape)
    window = (operator.index(window_shape),) if np.ndim(window_shape) == 0 else \
        tuple(operator.index(w) for w in window_shape)
    if axis is None:
        axes = tuple(range(len(shape)))
    elif np.ndim(axis) == 0:
        axes = (normalize_axis(axis, len(shape), "sliding_window_view"),)
    else:
        axes = tuple(normalize_axis(a, len(shape), "sliding_window_view") for a in axis)
    if len(window) != len(axes):
        raise ValueError(f"sliding_window_view: window_shape {window} needs one entry per "
                         f"axis {axes}")
    out_shape = list(shape)
    for a, w in zip(axes, window):
        if w < 0 or out_shape[a] < w:
            raise ValueError(f"sliding_window_view: window_shape {window} is larger than "
                             f"the array's shape {shape} along axis {a}")
        out_shape[a] -= w - 1
    strides = tuple(x.strides)
    return _tensor.as_strided_view(x, tuple(out_shape) + window,
                                   strides + tuple(strides[a] for a in axes), 0,
                                   readonly=not (writeable and x.flags["WRITEABLE"]))
