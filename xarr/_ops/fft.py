"""The FFT family: the graph op ``fft`` (seed 004 Fft, jax.lax.fft) and ``transform``, the
one kernel call every FFT of xarr makes (xa.fft's functions eagerly, and the op's impl).

The engine is ducc0 (PyPI ``ducc0``, the C++ FFT behind SciPy's scipy.fft): vectorized,
threaded (also a single long 1-D transform), any strides, single and double precision
computed natively. ``transform`` hands it zero-copy NumPy views of the tensors and a freshly
allocated xarr tensor as ``out=``, so a result is written once, where it stays.

The op (XLA semantics) transforms the trailing ``len(fft_lengths)`` dims (1 to 3):

    FFT    c64/c128 -> same, unnormalized forward (exp(-2 pi i jk/n))
    IFFT   c64/c128 -> same, inverse scaled by 1/N (N = product of fft_lengths)
    RFFT   f32/f64 -> c64/c128, the last dim n -> n // 2 + 1 (Hermitian half)
    IRFFT  c64/c128 -> f32/f64, the last dim n // 2 + 1 -> n, scaled by 1/N

The trailing input dims must equal fft_lengths (IRFFT: the last one n // 2 + 1), else
ValueError naming the op, the argument and the values (XLA's and jax's rules).

    >>> fft(xa.asarray([1, 0, 0, 0], xa.complex64), "FFT", (4,))   # [1, 1, 1, 1] c64
    >>> fft(xa.ones((2, 8), xa.float32), FftType.RFFT, (8,)).shape  # (2, 5) c64
    >>> fft(xa.ones((2, 5), xa.complex64), "IRFFT", (8,)).shape     # (2, 8) f32

Under xa.jit it prints as XLA prints it: ``fft(x), fft_type=FFT, fft_length={8}``.
"""

import enum
import math
import operator

import ducc0.fft as _ducc
import numpy as np

from xarr import _tensor
from xarr._dtypes import CODE_OF, DTYPES, KINDS, XLA_NAMES
from xarr._graph.ir import TensorType
from xarr._ops.structural import apply, as_operand, defop
from xarr._runtime import get_num_threads
from xarr._tensor import Tensor

_F32, _F64 = CODE_OF[np.dtype(np.float32)], CODE_OF[np.dtype(np.float64)]
_C64, _C128 = CODE_OF[np.dtype(np.complex64)], CODE_OF[np.dtype(np.complex128)]
REAL_OF = {_C64: _F32, _C128: _F64, _F32: _F32, _F64: _F64}
COMPLEX_OF = {_F32: _C64, _F64: _C128, _C64: _C64, _C128: _C128}
# Results smaller than this run on one thread (xarr's kParallelMinElements, 64 Ki): ducc0
# starts its pool's workers per call, which costs more than a small transform.
PARALLEL_MIN_ELEMENTS = 1 << 16


class FftType(enum.IntEnum):
    """jax.lax.FftType: which transform ``fft`` computes (strings name them too)."""

    FFT = 0     # forward complex -> complex
    IFFT = 1    # inverse complex -> complex (scaled by 1/N)
    RFFT = 2    # forward real -> complex (the Hermitian half)
    IRFFT = 3   # inverse complex (Hermitian half) -> real (scaled by 1/N)


# ------------------------------------------------------------------------ the kernel call
def _fit(a, axis, m, code):
    """NumPy view ``a`` cropped (a view) or zero-padded (a new xarr buffer) to length m
    along ``axis``: (array, whether it is a new buffer)."""
    have = a.shape[axis]
    if have >= m:
        return (a if have == m else a[(slice(None),) * axis + (slice(0, m),)]), False
    shape = a.shape[:axis] + (m,) + a.shape[axis + 1:]
    buf = np.asarray(_tensor.empty(shape, code, zero=True))
    buf[(slice(None),) * axis + (slice(0, have),)] = a
    return buf, True


def transform(x, kind, axes, lengths, forward, inorm, out=None):
    """One ducc0 transform of strided-or-tiled tensor ``x`` over distinct ``axes``, each
    cropped or zero-padded to its length first (``lengths[i]`` for axes[i]; for 'c2r' the
    last axis's input is fitted to lengths[-1] // 2 + 1 and its output has lengths[-1]).

    kind: 'c2c' (x complex, or real: ducc0 transforms it as complex data), 'r2c' (x real,
    the last axis keeps n // 2 + 1), 'c2r' (x complex). ``forward``: the exponent's sign
    is - (else +). ``inorm``: 0 none, 1 divide by sqrt(N), 2 divide by N, N the product
    of ``lengths``. x's dtype must be f32/f64/c64/c128 (single precision stays single).
    ``out``: a strided Tensor of the result's shape and dtype written in place (not
    overlapping x), else a new row-major tensor is returned.

    Example: transform(f32[4, 6], 'r2c', (1,), (6,), True, 0) -> c64[4, 4], rfft along 1.
    """
    if isinstance(x, Tensor) and _tensor.is_tiled(x):
        x = _tensor.strided(x)
    a = np.asarray(x)
    code = CODE_OF[a.dtype]
    fresh = False             # a is a padded copy (c2r may then overwrite it)
    for i, (ax, n) in enumerate(zip(axes, lengths)):
        last = kind == "c2r" and i == len(axes) - 1
        a, padded = _fit(a, ax, n // 2 + 1 if last else n, code)
        fresh = fresh or padded
    shape = list(a.shape)
    if kind == "r2c":
        shape[axes[-1]] = lengths[-1] // 2 + 1
    elif kind == "c2r":
        shape[axes[-1]] = lengths[-1]
    shape = tuple(shape)
    rcode = REAL_OF[code] if kind == "c2r" else COMPLEX_OF[code]
    if out is None:
        out = _tensor.empty(shape, rcode)
    size = math.prod(shape)
    if size == 0:
        return out
    o = np.asarray(out)
    threads = get_num_threads() if size >= PARALLEL_MIN_ELEMENTS else 1
    if kind == "c2c":
        _ducc.c2c(a, axes=axes, forward=forward, inorm=inorm, out=o, nthreads=threads)
    elif kind == "r2c":
        _ducc.r2c(a, axes=axes, forward=forward, inorm=inorm, out=o, nthreads=threads)
    else:
        _ducc.c2r(a, axes=axes, lastsize=lengths[-1], forward=forward, inorm=inorm, out=o,
                  nthreads=threads, allow_overwriting_input=fresh)
    return out


# ------------------------------------------------------------------------ the op
def _fft_rule(types, fft_type, fft_lengths):
    (t,) = types
    dims, k = tuple(t.dims), len(fft_lengths)
    name = XLA_NAMES[t.code]
    if not 1 <= k <= 3:
        raise ValueError(f"fft: fft_lengths {fft_lengths} must have 1 to 3 entries (XLA "
                         f"transforms up to 3 trailing dims)")
    if k > len(dims):
        raise ValueError(f"fft: operand shape {dims} has fewer dims than fft_lengths "
                         f"{fft_lengths}")
    if any(n < 0 for n in fft_lengths):
        raise ValueError(f"fft: fft_lengths {fft_lengths} must be >= 0")
    minor = dims[len(dims) - k:]
    if fft_type == "RFFT":
        if t.code not in (_F32, _F64):
            raise ValueError(f"fft: RFFT operand must be f32 or f64, got {name}")
        if minor != fft_lengths:
            raise ValueError(f"fft: RFFT operand shape {dims}: its minor dims must equal "
                             f"fft_lengths {fft_lengths}")
        return TensorType(COMPLEX_OF[t.code],
                          dims[:-1] + (fft_lengths[-1] // 2 + 1,), None)
    if t.code not in (_C64, _C128):
        raise ValueError(f"fft: {fft_type} operand must be c64 or c128, got {name}")
    if fft_type == "IRFFT":
        want = fft_lengths[:-1] + (fft_lengths[-1] // 2 + 1,)
        if minor != want:
            raise ValueError(f"fft: IRFFT operand shape {dims}: its minor dims must be "
                             f"{want} for fft_lengths {fft_lengths} (the last one "
                             f"fft_length[-1] // 2 + 1)")
        return TensorType(REAL_OF[t.code], dims[:-1] + (fft_lengths[-1],), None)
    if minor != fft_lengths:
        raise ValueError(f"fft: {fft_type} operand shape {dims}: its minor dims must equal "
                         f"fft_lengths {fft_lengths}")
    return TensorType(t.code, dims, None)


_KERNEL = {"FFT": ("c2c", True, 0), "IFFT": ("c2c", False, 2),
           "RFFT": ("r2c", True, 0), "IRFFT": ("c2r", False, 2)}


def _fft_impl(x, fft_type, fft_lengths):
    kind, forward, inorm = _KERNEL[fft_type]
    if math.prod(fft_lengths) == 0:
        rtype = _fft_rule([TensorType(CODE_OF[x.dtype], tuple(x.shape), None)],
                          fft_type, fft_lengths)
        return _tensor.empty(rtype.dims, rtype.code, zero=True)
    axes = tuple(range(x.ndim - len(fft_lengths), x.ndim))
    return transform(x, kind, axes, fft_lengths, forward, inorm)


def _fft_text(attrs):
    return [f"fft_type={attrs['fft_type']}",
            "fft_length={" + ",".join(str(n) for n in attrs["fft_lengths"]) + "}"]


defop("fft", _fft_rule, _fft_impl, text=_fft_text)


def fft_type_name(fft_type):
    """'FFT', 'IFFT', 'RFFT' or 'IRFFT' for an FftType or its name in either case; else
    ValueError (TypeError for another type), as jax.lax.fft."""
    if isinstance(fft_type, FftType):
        return fft_type.name
    if isinstance(fft_type, str):
        if fft_type.upper() in FftType.__members__ and fft_type in (
                fft_type.upper(), fft_type.lower()):
            return fft_type.upper()
        raise ValueError(f"lax.fft: unknown fft_type {fft_type!r} (FFT, IFFT, RFFT, IRFFT)")
    raise TypeError(f"lax.fft: fft_type must be an FftType or a string, got {fft_type!r}")


def _inexact_for_lax(x, fft_type):
    """jax.lax.fft's conversion of the operand: RFFT takes it to a float type (bool and
    integers of <= 32 bits to f32, 64-bit integers to f64; complex refused), the others
    to a complex type (f16 / bf16 / f32 / small integers to c64, else c128)."""
    code = CODE_OF[x.dtype]
    kind = KINDS[code]
    wide = kind in "iu" and x.dtype.itemsize == 8 or code in (_F64, _C128)
    if fft_type == "RFFT":
        if kind == "c":
            raise ValueError(f"lax.fft: RFFT needs a real operand, got {XLA_NAMES[code]}")
        if kind in "biu":
            return x.astype(DTYPES[_F64 if wide else _F32])
        return x
    want = _C128 if wide else _C64
    return x if code == want else x.astype(DTYPES[want])


def fft(x, fft_type, fft_lengths):
    """jax.lax.fft: the XLA Fft over the trailing ``len(fft_lengths)`` dims (1 to 3) of
    ``x``; ``fft_type`` an FftType or 'FFT' / 'IFFT' / 'RFFT' / 'IRFFT' (either case).
    The operand is first converted as jax does (integers and bool to floating point,
    non-RFFT operands to complex; RFFT of f16 / bf16 raises, as jax's); empty fft_lengths
    return it converted. See the module docstring for the four transforms.

    >>> fft(xa.asarray([1., 2., 3., 4.]), "RFFT", (4,))   # [10, -2+2j, -2] complex128
    """
    name = fft_type_name(fft_type)
    try:
        lengths = tuple(operator.index(n) for n in fft_lengths)
    except TypeError:
        raise TypeError(f"lax.fft: fft_lengths must be a sequence of integers, got "
                        f"{fft_lengths!r}") from None
    x = _inexact_for_lax(as_operand(x), name)
    if not lengths:
        return x
    return apply("fft", [x], fft_type=name, fft_lengths=lengths)

