"""NumPy's ``numpy.fft`` and the Array API fft extension (``xa.fft``, assembled by
xarr/fft.py) on the FFT family (xarr/_ops/fft.py, ducc0).

NumPy's signatures, arguments and errors: ``n`` / ``s`` crop or zero-pad the input (n < 1
raises ValueError), ``axis`` / ``axes`` any (repeated axes of fftn transform twice, as
NumPy's), ``norm`` 'backward' (None) / 'ortho' / 'forward', ``out=`` (written in place
when it is a strided tensor of the result's dtype; else the result is cast into it).

Precision (NumPy 2's rules): f32 / c64 are computed and returned in single precision,
f64 / c128 in double; bool and integers are computed in double (c128 / f64 results). f16
and bf16 are computed in single precision: complex results are c64, the real results of
irfft / hfft / irfftn are cast back to the input's dtype (NumPy gives f16 for f16 input;
bf16 is treated the same way). rfft / ihfft / rfftn refuse complex input (TypeError).

Eagerly one ducc0 call writes into a new tensor (or ``out``), over any layout: strided
views (negative strides, transposed, column-major) are read in place, tiled ones are
made strided first. Under xa.jit and xa.lazy the transform is recorded as lax ops: the
axes moved last by transposes (views), slice / pad for n, one ``fft`` op per group of
up to 3 axes, a multiply for the norm.

    >>> xa.fft.fft(xa.asarray([1., 0., 0., 0.]))             # [1, 1, 1, 1] complex128
    >>> xa.fft.rfft(xa.ones(8, xa.float32), norm="forward")  # [1, 0, 0, 0, 0] complex64
    >>> xa.fft.irfft(xa.fft.rfft(x), n=x.shape[-1])          # x again
    >>> xa.fft.fftfreq(4, d=0.5)                              # [0, 0.5, -1, -0.5]
"""

import math
import operator
import warnings

import numpy as np

from xarr import _tensor
from xarr._axes import normalize_axis
from xarr._dtypes import CODE_OF, DTYPES, KINDS, as_dtype
from xarr._graph.trace import recorder
from xarr._numpy.manipulation import roll
from xarr._ops import fft as F
from xarr._ops import structural as S
from xarr._ops.conversion import asarray
from xarr._ops.elementwise import lax_apply
from xarr._tensor import Tensor

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft",
           "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "fftfreq", "rfftfreq", "fftshift",
           "ifftshift"]

_NORMS = {None: 0, "backward": 0, "ortho": 1, "forward": 2}
_F32, _F64 = CODE_OF[np.dtype(np.float32)], CODE_OF[np.dtype(np.float64)]
_C64, _C128 = CODE_OF[np.dtype(np.complex64)], CODE_OF[np.dtype(np.complex128)]


def _inorm(norm, inverse):
    """ducc0's inorm for NumPy's ``norm`` of a forward (or inverse) transform: 0 none,
    1 1/sqrt(N), 2 1/N."""
    if not isinstance(norm, (str, type(None))) or norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or '
                         f'"forward".')
    return 2 - _NORMS[norm] if inverse else _NORMS[norm]


def _operand(a, kind, fn):
    """(x converted to what the kernel reads, the result dtype): NumPy's precision rules
    (module docstring). kind: 'c2c', 'r2c' or 'c2r'."""
    x = S.as_operand(a)
    code = CODE_OF[x.dtype]
    k = KINDS[code]
    double = k in "biu" or code in (_F64, _C128)
    if kind == "r2c":
        if k == "c":
            raise TypeError(f"xa.fft.{fn}: the input must be real, got {x.dtype}")
        want = _F64 if double else _F32
    elif kind == "c2r":
        want = _C128 if double else _C64
    else:
        want = code if code in (_F32, _F64, _C64, _C128) else (_F64 if double else _F32)
    if kind == "c2r":
        result = DTYPES[_F64 if double else _F32] if k != "f" else x.dtype
    else:
        result = DTYPES[_C128 if double else _C64]
    return (x if code == want else x.astype(DTYPES[want])), result


def _length(n, fn):
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"xa.fft.{fn}: n must be an integer, got {n!r}") from None
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return n


def _check_out(out, shape, dtype, fn):
    """Whether the result can be written straight into ``out`` (a concrete strided tensor
    of its dtype); ValueError / TypeError for an ``out`` of the wrong shape / kind."""
    if tuple(out.shape) != tuple(shape):
        raise ValueError(f"xa.fft.{fn}: output array has wrong shape: out is "
                         f"{tuple(out.shape)}, the result {tuple(shape)}")
    if not np.can_cast(dtype, out.dtype, "same_kind"):
        raise TypeError(f"xa.fft.{fn}: cannot cast the {dtype} result to out's {out.dtype}")
    return type(out) is Tensor and out.dtype == dtype and not _tensor.is_tiled(out) and \
        recorder((out,)) is None


def _result_shape(x, kind, axes, lengths):
    shape = list(x.shape)
    for i, (ax, n) in enumerate(zip(axes, lengths)):
        shape[ax] = n // 2 + 1 if kind == "r2c" and i == len(axes) - 1 else n
    return tuple(shape)


def _run(x, result, kind, axes, lengths, forward, inorm, out, fn):
    """The transform of converted operand x over distinct ``axes``: one kernel call
    eagerly (into ``out`` when it can take it), lax ops under a trace; the result cast
    to ``result`` and written into ``out``."""
    if recorder((x,)) is None:
        code = CODE_OF[x.dtype]
        natural = DTYPES[F.REAL_OF[code] if kind == "c2r" else F.COMPLEX_OF[code]]
        if out is not None and natural == result and \
                _check_out(out, _result_shape(x, kind, axes, lengths), result, fn) and \
                not _tensor.shares_buffer(out, x):
            return F.transform(x, kind, axes, lengths, forward, inorm, out)
        res = F.transform(x, kind, axes, lengths, forward, inorm)
    else:
        res = _traced(x, kind, axes, lengths, forward, inorm)
    if res.dtype != result:
        res = res.astype(result)
    if out is None:
        return res
    _check_out(out, res.shape, result, fn)
    out[...] = res
    return out


def _traced(x, kind, axes, lengths, forward, inorm):
    """The transform recorded as lax ops (see the module docstring)."""
    for i, (ax, n) in enumerate(zip(axes, lengths)):
        m = n // 2 + 1 if kind == "c2r" and i == len(axes) - 1 else n
        have = x.shape[ax]
        if have > m:
            limit = list(x.shape)
            limit[ax] = m
            x = S.slice(x, [0] * x.ndim, limit)
        elif have < m:
            cfg = [(0, m - have if d == ax else 0, 0) for d in range(x.ndim)]
            x = S.pad(x, np.zeros((), x.dtype), cfg)
    if kind == "c2c" and KINDS[CODE_OF[x.dtype]] != "c":
        x = x.astype(DTYPES[F.COMPLEX_OF[CODE_OF[x.dtype]]])
    if kind == "c2r" and forward:
        x = lax_apply("conj", x)
    groups, rest = [], list(axes)
    while rest:                      # XLA transforms at most 3 dims: groups, last one last
        groups.insert(0, rest[-3:])
        rest = rest[:-3]
    steps = [(g, "FFT" if forward else "IFFT") for g in groups]
    if kind == "r2c":
        steps = [(groups[-1], "RFFT")] + [(g, "FFT") for g in groups[:-1]]
    elif kind == "c2r":
        steps = [(g, "IFFT") for g in groups[:-1]] + [(groups[-1], "IRFFT")]
    for group, fft_type in steps:
        x = _on_trailing(x, group, fft_type, [lengths[axes.index(a)] for a in group])
    if kind == "r2c" and not forward:
        x = lax_apply("conj", x)
    total = math.prod(lengths)
    lax_scale = 1.0 / total if kind == "c2r" or kind == "c2c" and not forward else 1.0
    want = (1.0, 1.0 / math.sqrt(total), 1.0 / total)[inorm]
    return x if want == lax_scale else lax_apply("mul", x, want / lax_scale)


def _on_trailing(x, group, fft_type, lengths):
    """lax.fft of x over dims ``group``, moved last (transposes are views)."""
    nd = x.ndim
    perm = [d for d in range(nd) if d not in group] + list(group)
    if perm != list(range(nd)):
        x = S.transpose(x, perm)
    x = F.fft(x, fft_type, tuple(lengths))
    if perm != list(range(nd)):
        x = S.transpose(x, [perm.index(d) for d in range(nd)])
    return x


# ------------------------------------------------------------------------ 1-D transforms
def _one(a, n, axis, norm, out, fn, kind, forward, inverse):
    x, result = _operand(a, kind, fn)
    if x.ndim == 0:
        raise IndexError(f"xa.fft.{fn}: the input must have at least 1 dimension")
    axis = normalize_axis(axis, x.ndim, f"fft.{fn}")
    if n is None:
        n = x.shape[axis] if kind != "c2r" else 2 * (x.shape[axis] - 1)
    n = _length(n, fn)
    return _run(x, result, kind, (axis,), (n,), forward, _inorm(norm, inverse), out, fn)


def fft(a, n=None, axis=-1, norm=None, out=None):
    """The 1-D discrete Fourier transform along ``axis`` (NumPy's np.fft.fft): ``n``
    points (the input cropped or zero-padded), complex result.

    >>> xa.fft.fft(xa.asarray([0., 1., 0., 0.]))   # [1, -1j, -1, 1j]
    """
    return _one(a, n, axis, norm, out, "fft", "c2c", True, False)


def ifft(a, n=None, axis=-1, norm=None, out=None):
    """The inverse of fft (scaled by 1/n with norm='backward').

    >>> xa.fft.ifft(xa.asarray([1, -1j, -1, 1j]))   # [0, 1, 0, 0]
    """
    return _one(a, n, axis, norm, out, "ifft", "c2c", False, True)


def rfft(a, n=None, axis=-1, norm=None, out=None):
    """fft of real input, its n // 2 + 1 non-negative frequencies (complex input:
    TypeError).

    >>> xa.fft.rfft(xa.asarray([1., 2., 3., 4.]))   # [10, -2+2j, -2]
    """
    return _one(a, n, axis, norm, out, "rfft", "r2c", True, False)


def irfft(a, n=None, axis=-1, norm=None, out=None):
    """The inverse of rfft: ``n`` real points (default 2 * (m - 1) for m inputs) from the
    Hermitian half spectrum (cropped or zero-padded to n // 2 + 1).

    >>> xa.fft.irfft(xa.asarray([10, -2+2j, -2]))   # [1, 2, 3, 4]
    """
    return _one(a, n, axis, norm, out, "irfft", "c2r", False, True)


def hfft(a, n=None, axis=-1, norm=None, out=None):
    """fft of a Hermitian-symmetric signal given by its first half: ``n`` real points
    (default 2 * (m - 1)); irfft(conj(a)) scaled as a forward transform.

    >>> xa.fft.hfft(xa.asarray([1, 2, 3]))          # [8, -2, 0, -2] float64 (n = 4)
    """
    return _one(a, n, axis, norm, out, "hfft", "c2r", True, False)


def ihfft(a, n=None, axis=-1, norm=None, out=None):
    """The inverse of hfft: conj(rfft(a)) / n of real input.

    >>> xa.fft.ihfft(xa.asarray([8., -2., 0., -2.]))   # [1, 2, 3]
    """
    return _one(a, n, axis, norm, out, "ihfft", "r2c", False, True)


# ------------------------------------------------------------------------ N-D transforms
def _cook(x, s, axes, fn, invreal):
    """NumPy's (s, axes) of an N-D transform: axes normalized (not deduplicated), s of
    the same length with -1 meaning the input's size."""
    if s is None:
        shapeless = True
        axes = list(range(x.ndim)) if axes is None else list(axes)
        axes = [normalize_axis(ax, x.ndim, f"fft.{fn}") for ax in axes]
        s = [x.shape[ax] for ax in axes]
    else:
        shapeless = False
        s = list(s)
        if axes is None:
            warnings.warn("`axes` should not be `None` if `s` is not `None` (Deprecated in "
                          "NumPy 2.0): the last len(s) axes are transformed",
                          DeprecationWarning, stacklevel=4)
            axes = list(range(-len(s), 0))
        axes = list(axes)
        if len(s) != len(axes):
            raise ValueError("Shape and axes have different lengths.")
        axes = [normalize_axis(ax, x.ndim, f"fft.{fn}") for ax in axes]
    if invreal and shapeless and axes:
        s[-1] = (x.shape[axes[-1]] - 1) * 2
    if None in s:
        warnings.warn("Passing an array containing `None` values to `s` is deprecated in "
                      "NumPy 2.0", DeprecationWarning, stacklevel=4)
        s = [x.shape[ax] if n is None and not (invreal and i == len(s) - 1)
             else n for i, (n, ax) in enumerate(zip(s, axes))]
        if invreal and s[-1] is None:
            s[-1] = (x.shape[axes[-1]] - 1) * 2
    s = [x.shape[ax] if n == -1 else n for n, ax in zip(s, axes)]
    return [_length(n, fn) for n in s], axes


def _many(a, s, axes, norm, out, fn, kind, forward, inverse):
    x, result = _operand(a, kind, fn)
    s, axes = _cook(x, s, axes, fn, kind == "c2r")
    if not axes:
        if kind != "c2c":
            raise IndexError(f"xa.fft.{fn}: no axes to transform")
        return S.as_operand(a)
    if kind == "c2r" and len(axes) > 1 and CODE_OF[result] not in (_F32, _F64):
        result = DTYPES[_F32]   # (NumPy: f16 in, the complex steps first, f32 out)
    inorm = _inorm(norm, inverse)
    if len(set(axes)) == len(axes):
        return _run(x, result, kind, tuple(axes), tuple(s), forward, inorm, out, fn)
    # a repeated axis: NumPy's sequence of 1-D transforms, each with its n
    one = {("c2c", True): fft, ("c2c", False): ifft}
    order = list(reversed(range(len(axes))))
    if kind == "r2c":
        x = rfft(x, s[-1], axes[-1], norm)
        order = order[1:]
    elif kind == "c2r":
        order = list(range(len(axes) - 1))
    for i in order:
        x = one[("c2c", forward)](x, s[i], axes[i], norm)
    if kind == "c2r":
        x = irfft(x, s[-1], axes[-1], norm)
    if x.dtype != result:
        x = x.astype(result)
    if out is None:
        return x
    out[...] = x
    return out


def fftn(a, s=None, axes=None, norm=None, out=None):
    """The N-D fft over ``axes`` (default all; with ``s`` the last len(s)), each axis
    cropped or zero-padded to its ``s`` entry (-1: as it is).

    >>> xa.fft.fftn(xa.ones((2, 3)))                 # [[6, 0, 0], [0, 0, 0]]
    """
    return _many(a, s, axes, norm, out, "fftn", "c2c", True, False)


def ifftn(a, s=None, axes=None, norm=None, out=None):
    """The inverse of fftn."""
    return _many(a, s, axes, norm, out, "ifftn", "c2c", False, True)


def rfftn(a, s=None, axes=None, norm=None, out=None):
    """fftn of real input: the last axis keeps s[-1] // 2 + 1 frequencies."""
    return _many(a, s, axes, norm, out, "rfftn", "r2c", True, False)


def irfftn(a, s=None, axes=None, norm=None, out=None):
    """The inverse of rfftn: the last axis gets s[-1] real points (default
    2 * (m - 1))."""
    return _many(a, s, axes, norm, out, "irfftn", "c2r", False, True)


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """fftn over the last two axes (or ``axes``).

    >>> xa.fft.fft2(xa.ones((2, 2)))                 # [[4, 0], [0, 0]]
    """
    return _many(a, s, axes, norm, out, "fft2", "c2c", True, False)


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """ifftn over the last two axes (or ``axes``)."""
    return _many(a, s, axes, norm, out, "ifft2", "c2c", False, True)


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """rfftn over the last two axes (or ``axes``)."""
    return _many(a, s, axes, norm, out, "rfft2", "r2c", True, False)


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """irfftn over the last two axes (or ``axes``)."""
    return _many(a, s, axes, norm, out, "irfft2", "c2r", False, True)


# ------------------------------------------------------------------------ helpers
def _freq_dtype(dtype, device, fn):
    if device not in (None, "cpu"):
        raise ValueError(f"xa.fft.{fn}: unsupported device {device!r}; xarr has 'cpu'")
    dt = np.dtype(np.float64) if dtype is None else as_dtype(dtype)
    if KINDS[CODE_OF[dt]] not in "fc":
        raise ValueError(f"xa.fft.{fn}: dtype must be a floating-point dtype, got {dt}")
    return dt


def _count(n, fn):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise ValueError(f"xa.fft.{fn}: n should be an integer, got {n!r}")
    return int(n)


def fftfreq(n, d=1.0, device=None, *, dtype=None):
    """The sample frequencies of an n-point fft with sample spacing ``d``:
    [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n), float64 (or ``dtype``).

    >>> xa.fft.fftfreq(5)                           # [0, 0.2, 0.4, -0.4, -0.2]
    """
    n = _count(n, "fftfreq")
    dt = _freq_dtype(dtype, device, "fftfreq")
    ints = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return asarray((ints * (1.0 / (n * d))).astype(dt, copy=False))


def rfftfreq(n, d=1.0, device=None, *, dtype=None):
    """The sample frequencies of rfft: [0, 1, ..., n // 2] / (d * n).

    >>> xa.fft.rfftfreq(4, d=0.5)                  # [0, 0.5, 1]
    """
    n = _count(n, "rfftfreq")
    dt = _freq_dtype(dtype, device, "rfftfreq")
    return asarray((np.arange(0, n // 2 + 1) * (1.0 / (n * d))).astype(dt, copy=False))


def _shift(x, axes, sign):
    x = S.as_operand(x)
    if axes is None:
        axes = tuple(range(x.ndim))
        shift = [sign * (d // 2) for d in x.shape]
    elif isinstance(axes, (int, np.integer)):
        shift = sign * (x.shape[axes] // 2)
    else:
        shift = [sign * (x.shape[ax] // 2) for ax in axes]
    return roll(x, shift, axes)


def fftshift(x, axes=None):
    """The zero frequency moved to the centre: a roll by n // 2 along each of ``axes``
    (default all).

    >>> xa.fft.fftshift(xa.fft.fftfreq(4))          # [-0.5, -0.25, 0, 0.25]
    """
    return _shift(x, axes, 1)


def ifftshift(x, axes=None):
    """The inverse of fftshift: a roll by -(n // 2).

    >>> xa.fft.ifftshift(xa.asarray([-2, -1, 0, 1]))   # [0, 1, -2, -1]
    """
    return _shift(x, axes, -1)
