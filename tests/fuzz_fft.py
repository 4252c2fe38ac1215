"""Fuzz spec of issue 18's lax.fft (xarr/_ops/fft.py), registered into fuzz_ops.SPECS:
jax.lax.fft's semantics (operand conversion, trailing dims, the four types) against
numpy.fft's N-D transforms over random dtypes, shapes with 0 and 1 dims, storages and
fft_lengths, bad ones included (jax raises ValueError / TypeError), eagerly, under
xa.jit and in xa.lazy. xa.fft's functions are a submodule's (not in the harness's
public-op list): tests/test_fft.py checks them against NumPy."""

import numpy as np
from hypothesis import strategies as st

import xarr as xa
from conftest import BF16, to_np
from fuzz_ops import SPECS, Case, JaxError, operand, quiet

TYPES = ["FFT", "IFFT", "RFFT", "IRFFT"]
DTYPES = [xa.bool_, xa.int8, xa.int32, xa.int64, xa.float16, xa.bfloat16, xa.float32,
          xa.float64, xa.complex64, xa.complex128]


def _jax_dtype(dt, fft_type):
    """jax.lax.fft's operand conversion (tests/test_fft.py test_lax_fft_converts_as_jax)."""
    dt = np.dtype(dt)
    wide = dt.kind in "iu" and dt.itemsize == 8 or dt in (np.float64, np.complex128)
    if fft_type == "RFFT":
        if dt.kind == "c":
            raise JaxError(ValueError)
        if dt in (np.float16, BF16):
            raise JaxError(ValueError)
        return np.dtype(np.float64 if wide else np.float32)
    return np.dtype(np.complex128 if wide else np.complex64)


def _converted(x, fft_type):
    if fft_type == "RFFT" and x.dtype.kind == "c":
        raise JaxError(ValueError)
    if fft_type == "RFFT" and (x.dtype.kind == "f" or x.dtype == BF16):
        return x
    return x.astype(_jax_dtype(x.dtype, fft_type))


def _reference(x, fft_type, lengths):
    if not 1 <= len(lengths) <= 3 or len(lengths) > x.ndim:
        raise JaxError(ValueError)
    dt = _jax_dtype(x.dtype, fft_type)
    minor = x.shape[x.ndim - len(lengths):]
    want = lengths[:-1] + (lengths[-1] // 2 + 1,) if fft_type == "IRFFT" else lengths
    if minor != want:
        raise JaxError(ValueError)
    v = x.astype(np.float32) if x.dtype == BF16 else x
    v = v.astype(dt)
    axes = tuple(range(x.ndim - len(lengths), x.ndim))
    if v.size == 0 or 0 in lengths:
        shape = x.shape[:x.ndim - len(lengths)] + (
            lengths[:-1] + (lengths[-1] // 2 + 1,) if fft_type == "RFFT" else lengths)
        real = fft_type == "IRFFT"
        out = np.dtype(np.float64 if dt in (np.float64, np.complex128) else np.float32) \
            if real else (dt if dt.kind == "c" else np.result_type(dt, np.complex64))
        return np.zeros(shape, out)
    f = {"FFT": np.fft.fftn, "IFFT": np.fft.ifftn, "RFFT": np.fft.rfftn,
         "IRFFT": np.fft.irfftn}[fft_type]
    r = f(v, s=lengths, axes=axes)
    single = dt in (np.float32, np.complex64)
    if fft_type == "IRFFT":
        return r.astype(np.float32 if single else np.float64)
    return r.astype(np.complex64 if single else np.complex128)


def _close(got, want):
    g, w = to_np(got), np.asarray(want)
    assert g.dtype == w.dtype, f"dtype {g.dtype}, expected {w.dtype}"
    assert g.shape == w.shape, f"shape {g.shape}, expected {w.shape}"
    if w.size:
        tol = 1e-4 if w.dtype in (np.float32, np.complex64) else 1e-11
        scale = max(1.0, float(np.abs(w.astype(np.complex128)).max()))
        err = float(np.abs(g.astype(np.complex128) - w).max())
        assert err <= tol * scale, f"max error {err} (scale {scale})"


def _lax_fft(draw):
    fft_type = draw(st.sampled_from(TYPES))
    k = draw(st.sampled_from([1, 1, 2, 3, 0, 4]))
    lengths = tuple(draw(st.sampled_from([1, 2, 3, 4, 5])) for _ in range(k))
    batch = tuple(draw(st.lists(st.sampled_from([0, 1, 2]), max_size=2)))
    minor = lengths
    if fft_type == "IRFFT" and k:
        minor = lengths[:-1] + (lengths[-1] // 2 + 1,)
    if k and draw(st.integers(0, 5)) == 0:          # a bad minor dim
        minor = minor[:-1] + (minor[-1] + 1,)
    dt = draw(st.sampled_from(DTYPES))
    x, t = draw(operand(batch + minor, dt, specials=0.0, low=-3, high=3))
    if k == 0:                       # jax returns the converted operand
        return Case(run=lambda: xa.lax.fft(t, fft_type, ()),
                    ref=lambda: _converted(x, fft_type), check=_close,
                    inputs={"x": x, "fft_type": fft_type})
    return Case(run=quiet(lambda: xa.lax.fft(t, fft_type, lengths)),
                ref=lambda: _reference(x, fft_type, lengths), check=_close,
                inputs={"x": x, "fft_type": fft_type, "fft_lengths": lengths},
                traced=(lambda v: xa.lax.fft(v, fft_type, lengths), [t]))


SPECS["lax.fft"] = _lax_fft
