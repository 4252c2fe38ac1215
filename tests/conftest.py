"""Shared helpers for xarr's tests: dtypes, value generators, operand layouts, comparison
helpers (exact and ULP-based) and ISA/thread guards.

The tests import the *installed* xarr (run pytest from /tmp or with
``--import-mode=importlib``).
"""

import atexit
import math
import os
import shutil
import sys
import tempfile

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import xarr as xa

# Native kernels the tests compile go to a throwaway cache, not the user's
# ~/.cache/xarr (an XARR_CACHE_DIR set by the caller is respected).
if "XARR_CACHE_DIR" not in os.environ:
    os.environ["XARR_CACHE_DIR"] = tempfile.mkdtemp(prefix="xarr-test-cache-")
    atexit.register(shutil.rmtree, os.environ["XARR_CACHE_DIR"], ignore_errors=True)

# Test modules import these helpers with ``from conftest import ...``; under
# ``--import-mode=importlib`` the tests directory is not on sys.path by itself.
if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

settings.register_profile(
    "xarr", deadline=None, max_examples=30, print_blob=True, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much])
settings.load_profile("xarr")

# ------------------------------------------------------------------------------ dtypes
BF16 = np.dtype(ml_dtypes.bfloat16)
# The suite runs under AddressSanitizer (README, "Developing") with libasan preloaded;
# tests that measure time ratios or resident memory then measure the sanitizer instead.
UNDER_ASAN = "libasan" in os.environ.get("LD_PRELOAD", "")
not_under_asan = pytest.mark.skipif(
    UNDER_ASAN, reason="measures time or resident memory, which the sanitizer changes")

BOOL = [xa.bool_]
SIGNED = [xa.int8, xa.int16, xa.int32, xa.int64]
UNSIGNED = [xa.uint8, xa.uint16, xa.uint32, xa.uint64]
INTS = SIGNED + UNSIGNED
FLOATS = [xa.float16, xa.bfloat16, xa.float32, xa.float64]
COMPLEX = [xa.complex64, xa.complex128]
ALL_DTYPES = BOOL + INTS + FLOATS + COMPLEX
XLA_NAMES = ["pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f16", "bf16",
             "f32", "f64", "c64", "c128"]
XLA_NAME = dict(zip(ALL_DTYPES, XLA_NAMES))
# Settings for the tensor/layout/interop property tests.
SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def kind(dt):
    """'b', 'i', 'u', 'f' or 'c' (bfloat16's NumPy kind is 'V'; this says 'f')."""
    dt = np.dtype(dt)
    return "f" if dt == BF16 else dt.kind


def finfo(dt):
    return ml_dtypes.finfo(dt) if np.dtype(dt) == BF16 else np.finfo(dt)


def real_dtype(dt):
    return {xa.complex64: xa.float32, xa.complex128: xa.float64}.get(np.dtype(dt),
                                                                     np.dtype(dt))


def to_np(t):
    """The NumPy view of a tensor (zero-copy for strided tensors)."""
    return np.asarray(t)


# ------------------------------------------------------------------------------ values
def make_values(shape, dtype, seed=0):
    """Small exact values (1..100, bool 0/1) of ``dtype``: every dtype holds them exactly."""
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return np.asarray(rng.integers(0, 2, size=shape).astype(bool))
    ints = rng.integers(1, 101, size=shape)
    if dtype.kind == "c":
        return np.asarray((ints + 1j * rng.integers(1, 101, size=shape)).astype(dtype))
    return np.asarray(ints.astype(dtype))


def special_values(dt):
    """Edge values of ``dt``: extremes, zeros of both signs, NaN/inf, subnormals."""
    dt = np.dtype(dt)
    k = kind(dt)
    if k == "b":
        return np.array([False, True])
    if k in "iu":
        info = np.iinfo(dt)
        vals = [0, 1, 2, 3, 7, info.max, info.max - 1, info.max // 2, info.max // 2 + 1]
        if k == "i":
            vals += [-1, -2, -3, -7, info.min, info.min + 1]
        return np.array(vals, dt)
    if k == "f":
        fi = finfo(dt)
        sub = float(fi.smallest_subnormal)
        vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.0, 0.1, -7.25,
                math.nan, -math.nan, math.inf, -math.inf, float(fi.max), -float(fi.max),
                float(fi.tiny), -float(fi.tiny), sub, -sub, 3 * sub, 100.0, -1e4]
        arr = np.array(vals, np.float64)
        arr[14] = np.copysign(np.nan, -1.0)
        with np.errstate(all="ignore"):
            return arr.astype(dt)
    re = special_values(real_dtype(dt))
    sel = re[[0, 1, 2, 3, 4, 11, 12, 14, 15, 17, 18]].astype(np.float64)
    return np.array([complex(a, b) for a in sel for b in sel[::3]], dt)


def random_array(rng, shape, dt, specials=0.15, low=None, high=None):
    """Random values of ``dt``: a mix of full-range and small values, with a fraction
    ``specials`` of special_values. ``low``/``high``: uniform float (or complex part)
    values in that range instead, the only special value mixed in then being NaN."""
    dt = np.dtype(dt)
    k = kind(dt)
    n = int(np.prod(shape, dtype=np.int64))
    if k == "b":
        out = rng.integers(0, 2, n).astype(bool)
    elif k in "iu":
        info = np.iinfo(dt)
        full = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        small = np.clip(rng.integers(-20, 21, n), info.min, info.max).astype(dt)
        out = np.where(rng.random(n) < 0.5, full, small)
    elif k == "f":
        if low is not None:
            out = rng.uniform(low, high, n)
        else:
            mag = 10.0 ** rng.uniform(-4, 4, n)
            out = np.where(rng.random(n) < 0.3, rng.normal(0, 2, n),
                           mag * rng.choice([-1.0, 1.0], n))
        with np.errstate(all="ignore"):
            out = out.astype(dt)
    else:
        rd = real_dtype(dt)
        re = random_array(rng, (n,), rd, specials, low, high)
        im = random_array(rng, (n,), rd, specials, low, high)
        out = np.empty(n, dt)
        out.real, out.imag = re, im
        specials = specials if low is None else 0
    if specials and n:
        sv = special_values(dt)
        if low is not None:
            sv = sv[np.isnan(sv.astype(np.complex128))]
        if len(sv):
            mask = rng.random(n) < specials
            out[mask] = rng.choice(sv, int(mask.sum()))
    return out.reshape(shape)


# ------------------------------------------------------------------------------ layouts
LAYOUTS = ["c", "colmajor", "tiled", "padded", "step", "negstep", "transposed"]


def random_matrix(shape, dtype, seed=0):
    """Standard normal values of ``shape`` in ``dtype`` (complex: independent real and
    imaginary parts): the linear-algebra tests' operands."""
    rng = np.random.default_rng(seed)
    m = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        m = m + 1j * rng.standard_normal(shape)
    return m.astype(dtype)


def make_tensor(x, how="c"):
    """A tensor holding the values of NumPy array ``x`` stored in one of LAYOUTS:
    row-major, column-major, tiled T(2,2)/T(2), padded PD(d+1...), a step-2 slice view,
    a negative-step view, or a transposed view (non-contiguous)."""
    x = np.asarray(x)
    nd = x.ndim
    if nd == 0 or how == "c":
        return xa.asarray(x)
    if how == "colmajor":
        return xa.asarray(x, layout=tuple(range(nd)))
    if how == "tiled":
        tile = "T(2)" if nd == 1 else "T(2,2)"
        m2m = ",".join(str(d) for d in reversed(range(nd)))
        return xa.asarray(x, layout="{" + m2m + ":" + tile + "}")
    if how == "padded":
        m2m = ",".join(str(d) for d in range(nd))
        pd = ",".join(str(d + 1) for d in x.shape)
        return xa.asarray(x, layout="{" + m2m + ":PD(" + pd + ")}")
    if how == "step":
        base = np.zeros(tuple(2 * d + 1 for d in x.shape), x.dtype)
        sl = tuple(slice(1, None, 2) for _ in x.shape)
        base[sl] = x
        return xa.asarray(base)[sl]
    if how == "negstep":
        sl = tuple(slice(None, None, -1) for _ in x.shape)
        return xa.asarray(np.ascontiguousarray(x[sl]))[sl]
    if how == "transposed":
        return xa.asarray(np.ascontiguousarray(x.T)).T
    raise ValueError(how)


# ------------------------------------------------------------------------------ comparing
def _parts(a):
    """Float64 (exact) real parts of ``a``, or integers as they are."""
    a = np.asarray(a)
    if a.dtype.kind == "c":
        return [a.real.astype(np.float64), a.imag.astype(np.float64)]
    if kind(a.dtype) == "f":
        return [a.astype(np.float64)]
    return [a]


def describe_mismatch(mask, actual, expected, inputs, limit=6):
    idx = np.argwhere(mask)[:limit]
    lines = []
    for i in idx:
        i = tuple(int(v) for v in i)
        ins = []
        for name, v in (inputs or {}).items():
            v = np.asarray(v)
            if v.ndim == 0:
                ins.append(f"{name}={v[()]!r}")
            else:
                bi = tuple(0 if s == 1 else j for s, j in
                           zip(v.shape, i[len(i) - v.ndim:]))
                ins.append(f"{name}={v[bi]!r}")
        lines.append(f"  at {i}: {', '.join(ins)} -> got {actual[i]!r}, "
                     f"expected {expected[i]!r}")
    return f"{int(mask.sum())} of {mask.size} elements differ:\n" + "\n".join(lines)


def assert_same(actual, expected, inputs=None, zero_sign=True, dtype=True):
    """``actual`` (tensor or array) equals ``expected`` exactly: same dtype and shape, NaN
    where NaN (any payload), the same sign of zero (unless zero_sign=False)."""
    a = to_np(actual)
    e = np.asarray(expected)
    if dtype:
        assert a.dtype == e.dtype, f"dtype {a.dtype}, expected {e.dtype}"
    assert a.shape == e.shape, f"shape {a.shape}, expected {e.shape}"
    bad = np.zeros(a.shape, bool)
    for pa, pe in zip(_parts(a), _parts(e)):
        if pa.dtype.kind == "f":
            na, ne = np.isnan(pa), np.isnan(pe)
            bad |= (na != ne) | (~na & ~ne & (pa != pe))
            if zero_sign:
                bad |= ~na & ~ne & (np.signbit(pa) != np.signbit(pe))
        else:
            bad |= pa != pe
    if bad.any():
        raise AssertionError(describe_mismatch(bad, a, e, inputs))


_INT_VIEW = {2: np.int16, 4: np.int32, 8: np.int64}


def _ordered_keys(a):
    a = np.ascontiguousarray(a)
    i = a.view(_INT_VIEW[a.dtype.itemsize]).astype(np.int64)
    bits = 8 * a.dtype.itemsize
    lo = -(1 << (bits - 1))
    return np.where(i < 0, lo - i, i).astype(object)


def ulp_diff(actual, expected):
    """Distance in units in the last place between two real float arrays of the same
    dtype (f16, bf16, f32, f64): the number of representable values between them.
    -0 and +0 count as equal; two NaNs are 0 apart, NaN and a number are inf apart."""
    a = np.asarray(actual)
    e = np.asarray(expected)
    assert a.dtype == e.dtype, (a.dtype, e.dtype)
    a, e = np.broadcast_arrays(a, e)
    na = np.isnan(a.astype(np.float64))
    ne = np.isnan(e.astype(np.float64))
    d = np.abs(_ordered_keys(a) - _ordered_keys(e)).astype(np.float64)
    d = np.where(na | ne, np.where(na & ne, 0.0, np.inf), d)
    return d


def round_to(x64, dt):
    """float64/complex128 reference values rounded to dtype ``dt``."""
    with np.errstate(all="ignore"):
        if np.dtype(dt) == BF16:
            return _f64_to_bf16(x64)
        return np.asarray(x64).astype(dt)


def _f64_to_bf16(x):
    """Correctly rounded (nearest even) float64 -> bfloat16, without a float32 step."""
    x = np.asarray(x, np.float64)
    out = np.empty(x.shape, BF16)
    flat_in, flat_out = x.ravel(), out.reshape(-1)
    for j, v in enumerate(flat_in):
        if math.isnan(v) or math.isinf(v) or v == 0:
            flat_out[j] = np.float32(v)
            continue
        m, e = math.frexp(abs(v))          # v = m * 2**e, 0.5 <= m < 1
        e_eff = max(e, -125)               # bf16 min normal exponent (2**-126 = 0.5*2**-125)
        q = round(math.ldexp(abs(v), 8 - e_eff))   # 8 significant bits, ties to even
        r = math.ldexp(q, e_eff - 8)
        if r > 3.3895313892515355e38:
            r = math.inf
        flat_out[j] = np.float32(math.copysign(r, v))
    return out


def assert_ulp(actual, expected, max_ulp, inputs=None):
    """Real float results within ``max_ulp`` of ``expected`` (same dtype)."""
    a = to_np(actual)
    e = np.asarray(expected)
    assert a.dtype == e.dtype, f"dtype {a.dtype}, expected {e.dtype}"
    assert a.shape == e.shape, f"shape {a.shape}, expected {e.shape}"
    d = ulp_diff(a, e)
    bad = d > max_ulp
    if bad.any():
        raise AssertionError(f"max {d.max()} ulp > {max_ulp}; "
                             + describe_mismatch(bad, a, e, inputs))


# ------------------------------------------------------------------------------ guards
@pytest.fixture
def restore_isa():
    """Restores the active ISA after the test."""
    before = xa._core.get_isa()
    try:
        yield
    finally:
        xa._core.set_isa(before)


@pytest.fixture
def restore_threads():
    """Restores the kernel thread count after the test."""
    before = xa._core.get_num_threads()
    try:
        yield
    finally:
        xa._core.set_num_threads(before)
