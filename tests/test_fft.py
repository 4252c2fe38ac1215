"""The FFT family (issue 18 part 3): ``xa.fft`` (xarr/_numpy/fft.py) against NumPy's
numpy.fft for every function, norm, axis / axes, n / s (cropping and padding), dtype
(NumPy 2's result dtypes; single precision compared with a single-precision tolerance),
layout, size-0 / size-1 dims, out= and bad arguments; ``xa.lax.fft`` (xarr/_ops/fft.py)
against numpy.fft under jax.lax's semantics, eager / xa.jit / xa.lazy, its HLO text and
errors; hypothesis properties (ifft(fft(x)) = x, Parseval)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import xarr as xa
from conftest import BF16, LAYOUTS, make_tensor
from xarr._graph.trace import Traced

lax = xa.lax
NORMS = [None, "backward", "ortho", "forward"]
C2C = ["fft", "ifft"]
R2C = ["rfft", "ihfft"]
C2R = ["irfft", "hfft"]
ONE_D = C2C + R2C + C2R
N_D = ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"]
REAL_INPUT = {"rfft", "ihfft", "rfftn", "rfft2"}


def _values(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        return rng.integers(0, 9, shape).astype(dt)
    return rng.standard_normal(shape).astype(dt)


def _input(fn, shape, seed=0):
    return _values(shape, np.float64 if fn in REAL_INPUT else np.complex128, seed)


def _tol(dt):
    """Relative tolerance (to the largest magnitude) of a result of dtype dt."""
    dt = np.dtype(dt)
    if dt in (np.dtype(np.float16), BF16):
        return 1e-2
    return 2e-5 if dt in (np.dtype(np.float32), np.dtype(np.complex64)) else 1e-12


def check(got, want, dtype=None):
    """got (a Tensor) has NumPy's shape and dtype (or ``dtype``) and values within the
    result precision's tolerance, relative to the largest magnitude."""
    assert isinstance(got, (xa.Tensor, Traced)), type(got)
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape, (g.shape, w.shape)
    assert g.dtype == (w.dtype if dtype is None else np.dtype(dtype)), (g.dtype, w.dtype)
    if g.size:
        g64 = g.astype(np.complex128 if g.dtype.kind == "c" else np.float64)
        scale = max(1.0, float(np.max(np.abs(w.astype(np.complex128)))))
        err = float(np.max(np.abs(g64 - w)))
        assert err <= _tol(g.dtype) * scale, f"max error {err} (scale {scale})"


# ------------------------------------------------------------------------ 1-D functions
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("fn", ONE_D)
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("n", [None, 3, 8, 11])
def test_one_d_against_numpy(fn, norm, axis, n):
    x = _input(fn, (6, 7))
    check(getattr(xa.fft, fn)(xa.asarray(x), n=n, axis=axis, norm=norm),
          getattr(np.fft, fn)(x, n=n, axis=axis, norm=norm))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("fn", N_D)
@pytest.mark.parametrize("s,axes", [(None, None), (None, (0,)), (None, (2, 0)),
                                    ((4, 6), (0, 2)), ((3, 2, 5), (0, 1, 2)),
                                    ((-1, 4), (1, 2)), (None, (-1, -2)), (None, (0, 0)),
                                    ((3, 5), (1, 1))])
def test_n_d_against_numpy(fn, norm, s, axes):
    x = _input(fn, (5, 4, 6))
    if fn.endswith("2") and axes is not None and len(axes) != 2:
        return
    kw = {} if axes is None and fn.endswith("2") else {"axes": axes}
    if "fft2" in fn and s is not None and len(s) != 2:
        return
    got = getattr(xa.fft, fn)(xa.asarray(x), s=s, norm=norm, **kw)
    check(got, getattr(np.fft, fn)(x, s=s, norm=norm, **kw))


def test_s_without_axes_is_numpys_deprecated_rule():
    x = _values((3, 4, 5), np.complex128)
    with pytest.warns(DeprecationWarning):
        got = xa.fft.fftn(xa.asarray(x), s=(2, 6))
    with pytest.warns(DeprecationWarning):
        check(got, np.fft.fftn(x, s=(2, 6)))


def test_four_and_more_axes():
    x = _values((2, 3, 2, 4, 3), np.complex64)
    check(xa.fft.fftn(xa.asarray(x)), np.fft.fftn(x))
    y = _values((2, 3, 2, 4, 3), np.float32)
    check(xa.fft.irfftn(xa.fft.rfftn(xa.asarray(y)), s=y.shape, axes=range(5)), y)


# ------------------------------------------------------------------------ dtypes
DTYPES = [np.bool_, np.int8, np.uint16, np.int32, np.int64, np.float16, BF16, np.float32,
          np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("fn", ONE_D + ["fftn", "rfftn", "irfftn", "fft2"])
def test_result_dtypes_are_numpys(fn, dt):
    x = _values((4, 6), dt, seed=1)
    t = xa.asarray(x)
    if dt == BF16:        # NumPy has no bf16 FFT loops: the f32 values, xarr's dtype rule
        want = getattr(np.fft, fn)(x.astype(np.float32))
        if np.dtype(want.dtype).kind == "f" and fn != "irfftn":   # (as NumPy's f16 rule)
            want = want.astype(BF16)
        check(getattr(xa.fft, fn)(t), want)
        return
    if fn in REAL_INPUT and np.dtype(dt).kind == "c":
        with pytest.raises(TypeError):
            getattr(np.fft, fn)(x)
        with pytest.raises(TypeError):
            getattr(xa.fft, fn)(t)
        return
    want = getattr(np.fft, fn)(x)
    if dt == np.float16:   # NumPy scales f16 input by a factor rounded to f16: compare with
        # the f32 transform of the same values, in NumPy's result dtype
        want = getattr(np.fft, fn)(x.astype(np.float32)).astype(want.dtype)
    check(getattr(xa.fft, fn)(t), want)


def test_single_precision_stays_single():
    x = _values((1 << 12,), np.float32)
    assert xa.fft.fft(xa.asarray(x)).dtype == np.complex64
    assert xa.fft.rfft(xa.asarray(x)).dtype == np.complex64
    assert xa.fft.irfft(xa.fft.rfft(xa.asarray(x))).dtype == np.float32
    # computed in single: the result differs from the double-precision transform
    got = np.asarray(xa.fft.fft(xa.asarray(x)))
    assert not np.array_equal(got, np.fft.fft(x.astype(np.float64)).astype(np.complex64))
    check(xa.fft.fft(xa.asarray(x)), np.fft.fft(x))


# ------------------------------------------------------------------------ layouts
@pytest.mark.parametrize("how", LAYOUTS)
@pytest.mark.parametrize("fn", ["fft", "rfft", "irfft", "fft2", "rfftn", "irfft2", "ihfft"])
def test_every_layout(fn, how):
    for dt in (np.float32, np.complex128) if fn not in REAL_INPUT else (np.float32,
                                                                         np.float64):
        x = _values((5, 6), dt, seed=2)
        t = make_tensor(x, how)
        for axis in (0, 1):
            if fn.endswith("2") or fn.endswith("n"):
                kw = {"axes": (1 - axis, axis)}
            else:
                kw = {"axis": axis}
            check(getattr(xa.fft, fn)(t, **kw), getattr(np.fft, fn)(x, **kw))


def test_size_one_and_size_zero_dims():
    x = _values((1, 5, 1), np.complex128)
    for axis in (0, 1, 2):
        check(xa.fft.fft(xa.asarray(x), axis=axis), np.fft.fft(x, axis=axis))
        check(xa.fft.rfft(xa.asarray(x.real), axis=axis), np.fft.rfft(x.real, axis=axis))
    check(xa.fft.fftn(xa.asarray(x)), np.fft.fftn(x))
    e = np.zeros((0, 4), np.complex64)
    check(xa.fft.fft(xa.asarray(e), axis=1), np.fft.fft(e, axis=1))
    check(xa.fft.fft(xa.asarray(e), n=3, axis=0), np.fft.fft(e, n=3, axis=0))
    check(xa.fft.irfft(xa.asarray(e), axis=1), np.fft.irfft(e, axis=1))
    check(xa.fft.rfft2(xa.asarray(e.real), s=(2, 4)), np.fft.rfft2(e.real, s=(2, 4)))
    for fn in ("fft", "rfft", "irfft"):
        src = e.real if fn == "rfft" else e
        with pytest.raises(ValueError, match="Invalid number of FFT data points"):
            getattr(np.fft, fn)(src, axis=0)
        with pytest.raises(ValueError, match="Invalid number of FFT data points"):
            getattr(xa.fft, fn)(xa.asarray(src), axis=0)
    one = np.ones((3, 1), np.complex128)        # irfft of one point: n = 0
    with pytest.raises(ValueError):
        xa.fft.irfft(xa.asarray(one))


def test_fftn_without_axes_returns_the_input():
    x = _values((2, 3), np.float32)
    check(xa.fft.fftn(xa.asarray(x), axes=()), np.fft.fftn(x, axes=()))


# ------------------------------------------------------------------------ errors
@pytest.mark.parametrize("call", [
    lambda m, x: m.fft(x, n=0), lambda m, x: m.ifft(x, n=-2), lambda m, x: m.irfft(x, n=0),
    lambda m, x: m.fft(x, norm="bad"), lambda m, x: m.fftn(x, norm="Ortho"),
    lambda m, x: m.fft(x, axis=2), lambda m, x: m.fftn(x, axes=(0, 3)),
    lambda m, x: m.fftn(x, s=(2, 3), axes=(0,)), lambda m, x: m.rfftn(x, s=(0, 2), axes=(0, 1)),
    lambda m, x: m.fft2(x, s=(2, -3)), lambda m, x: m.fft(x, n=2.5)])
def test_bad_arguments_raise_as_numpy(call):
    x = _values((3, 4), np.complex128)
    if any("rfft" in n for n in call.__code__.co_names):
        x = x.real
    try:
        call(np.fft, x)
    except Exception as err:  # noqa: BLE001 - the class NumPy raises
        cls = TypeError if isinstance(err, TypeError) else ValueError
    else:
        raise AssertionError("NumPy accepted it")
    with pytest.raises(cls):
        call(xa.fft, xa.asarray(x))


def test_zero_d_input_raises():
    for fn in ("fft", "rfft", "irfft"):
        with pytest.raises((ValueError, IndexError)):
            getattr(xa.fft, fn)(xa.asarray(2.0))


# ------------------------------------------------------------------------ out=
def test_out_is_written_in_place():
    x = _values((4, 8), np.complex64)
    out = xa.empty((4, 8), xa.complex64)
    r = xa.fft.fft(xa.asarray(x), out=out)
    assert r is out
    check(out, np.fft.fft(x))
    out_t = xa.empty((8, 4), xa.complex64).T      # a transposed view
    assert xa.fft.ifft2(xa.asarray(x), out=out_t) is out_t
    check(out_t, np.fft.ifft2(x))
    tiled = make_tensor(np.zeros((4, 5), np.complex64), "tiled")
    assert xa.fft.rfft(xa.asarray(x.real), out=tiled) is tiled
    check(tiled, np.fft.rfft(x.real))
    y = xa.empty((4, 5), xa.complex64)           # a double result cast into c64 (same_kind)
    xa.fft.rfft(xa.asarray(x.real.astype(np.float64)), out=y)
    check(y, np.fft.rfft(x.real.astype(np.float64)).astype(np.complex64))
    with pytest.raises(ValueError):
        xa.fft.fft(xa.asarray(x), out=xa.empty((4, 7), xa.complex64))
    with pytest.raises(TypeError):
        xa.fft.fft(xa.asarray(x), out=xa.empty((4, 8), xa.float32))
    t = xa.asarray(x.copy())                     # out = the input: computed, then written
    xa.fft.fft(t, out=t)
    check(t, np.fft.fft(x))


# ------------------------------------------------------------------------ traced
@pytest.mark.parametrize("mode", ["jit", "lazy"])
@pytest.mark.parametrize("fn,kw", [
    ("fft", {}), ("ifft", {"n": 5, "axis": 0, "norm": "ortho"}), ("rfft", {"n": 9}),
    ("irfft", {"axis": 0}), ("hfft", {"n": 7, "norm": "forward"}), ("ihfft", {"axis": 0}),
    ("fftn", {"s": (3, 8), "axes": (1, 0)}), ("rfft2", {"norm": "ortho"}),
    ("irfftn", {"s": (4, 5), "axes": (0, 1)}), ("ifft2", {"norm": "forward"})])
def test_under_jit_and_lazy(fn, kw, mode):
    x = _input(fn, (4, 6)).astype(np.float32 if fn in REAL_INPUT else np.complex64)
    want = getattr(np.fft, fn)(x, **kw)
    f = getattr(xa.fft, fn)
    if mode == "jit":
        got = xa.jit(lambda v: f(v, **kw))(xa.asarray(x))
    else:
        with xa.lazy():
            got = f(xa.asarray(x), **kw) * 1
    check(got, want)


def test_many_axes_under_jit_are_groups_of_three():
    x = _values((2, 3, 2, 2, 3), np.float64)
    f = xa.jit(lambda v: xa.fft.rfftn(v))
    check(f(xa.asarray(x)), np.fft.rfftn(x))
    text = f.lower(xa.asarray(x)).as_text()
    assert text.count(" fft(") == 2 and "fft_type=RFFT" in text and "fft_type=FFT" in text


# ------------------------------------------------------------------------ lax.fft
def _lax_ref(x, fft_type, lengths):
    axes = tuple(range(x.ndim - len(lengths), x.ndim))
    f = {"FFT": np.fft.fftn, "IFFT": np.fft.ifftn, "RFFT": np.fft.rfftn,
         "IRFFT": np.fft.irfftn}[fft_type]
    return f(x, s=lengths, axes=axes)


@pytest.mark.parametrize("mode", ["eager", "jit", "lazy"])
@pytest.mark.parametrize("fft_type", ["FFT", "IFFT", "RFFT", "IRFFT"])
@pytest.mark.parametrize("lengths", [(8,), (3, 8), (2, 3, 8)])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_lax_fft_against_numpy(fft_type, lengths, dt, mode):
    shape = (2,) + lengths
    if fft_type == "IRFFT":
        shape = shape[:-1] + (lengths[-1] // 2 + 1,)
    cdt = np.result_type(dt, np.complex64)
    x = _values(shape, dt if fft_type == "RFFT" else cdt)
    want = _lax_ref(x, fft_type, lengths)
    want = want.astype(cdt if fft_type != "IRFFT" else dt)

    def f(v):
        return lax.fft(v, fft_type, lengths)
    if mode == "eager":
        got = f(xa.asarray(x))
    elif mode == "jit":
        got = xa.jit(f)(xa.asarray(x))
    else:
        with xa.lazy():
            got = f(xa.asarray(x)) * 1
    check(got, want)


def test_lax_fft_hlo_text_and_types():
    f = xa.jit(lambda v: lax.fft(v, lax.FftType.FFT, (8,)))
    text = f.lower(xa.ones(8, xa.complex64)).as_text()
    assert "fft(p0), fft_type=FFT, fft_length={8}" in text
    g = xa.jit(lambda v: lax.fft(v, "irfft", (4, 6)))
    assert "fft_type=IRFFT, fft_length={4,6}" in g.lower(xa.ones((4, 4), xa.complex128)) \
        .as_text()
    assert lax.FftType.RFFT == 2 and lax.FftType["IFFT"] == lax.FftType.IFFT


def test_lax_fft_converts_as_jax():
    """jax.lax.fft's operand conversion (measured: jax 0.10 with x64)."""
    expect = {np.bool_: "c64", np.int8: "c64", np.int32: "c64", np.int64: "c128",
              np.uint64: "c128", np.float16: "c64", BF16: "c64", np.float32: "c64",
              np.float64: "c128"}
    for dt, want in expect.items():
        got = lax.fft(xa.ones(4, dt), "FFT", (4,))
        assert str(got.xla_shape).startswith(want)
    assert lax.fft(xa.ones(4, xa.int64), "RFFT", (4,)).dtype == np.complex128
    assert lax.fft(xa.ones(4, xa.int32), "RFFT", (4,)).dtype == np.complex64
    assert lax.fft(xa.ones(3, xa.float32), "IRFFT", (4,)).dtype == np.float32
    t = xa.ones((2, 3), xa.complex64)
    assert lax.fft(t, "FFT", ()) is t


@pytest.mark.parametrize("call,match", [
    (lambda: lax.fft(xa.ones(4, xa.float16), "RFFT", (4,)), "RFFT operand must be f32"),
    (lambda: lax.fft(xa.ones(4, xa.complex64), "RFFT", (4,)), "real operand"),
    (lambda: lax.fft(xa.ones((2, 4), xa.complex64), "FFT", (3,)), "minor dims"),
    (lambda: lax.fft(xa.ones((2, 4), xa.complex64), "IRFFT", (9,)), "IRFFT operand shape"),
    (lambda: lax.fft(xa.ones((2, 4), xa.float32), "RFFT", (2, 4, 1)), "fewer dims"),
    (lambda: lax.fft(xa.ones((1, 1, 1, 1), xa.complex64), "FFT", (1, 1, 1, 1)), "1 to 3"),
    (lambda: lax.fft(xa.ones(4, xa.complex64), "DFT", (4,)), "unknown fft_type"),
    (lambda: lax.fft(xa.ones(4, xa.complex64), "Fft", (4,)), "unknown fft_type")])
def test_lax_fft_errors_name_the_op(call, match):
    with pytest.raises(ValueError, match=match):
        call()
    with pytest.raises(TypeError):
        lax.fft(xa.ones(4, xa.complex64), 0.5, (4,))
    with pytest.raises(TypeError):
        lax.fft(xa.ones(4, xa.complex64), "FFT", (4.0,))


def test_lax_fft_errors_under_jit():
    with pytest.raises(ValueError, match="minor dims"):
        xa.jit(lambda v: lax.fft(v, "FFT", (5,)))(xa.ones(4, xa.complex64))


# ------------------------------------------------------------------------ threads
def test_threads_give_the_same_result(restore_threads):
    x = xa.asarray(_values((1 << 17,), np.complex64))
    y = xa.asarray(_values((256, 512), np.float32))
    xa.set_num_threads(1)
    one = np.asarray(xa.fft.fft(x)).copy(), np.asarray(xa.fft.rfft2(y)).copy()
    xa.set_num_threads(2)
    two = np.asarray(xa.fft.fft(x)), np.asarray(xa.fft.rfft2(y))
    for a, b in zip(one, two):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-3)


# ------------------------------------------------------------------------ helpers
@pytest.mark.parametrize("n", [1, 2, 5, 8])
@pytest.mark.parametrize("d", [1.0, 0.25, np.float32(3)])
def test_fftfreq_rfftfreq(n, d):
    check(xa.fft.fftfreq(n, d), np.fft.fftfreq(n, d))
    check(xa.fft.rfftfreq(n, d), np.fft.rfftfreq(n, d))
    check(xa.fft.fftfreq(n, d, device="cpu", dtype=xa.float32),
          np.fft.fftfreq(n, d).astype(np.float32))
    with pytest.raises(ValueError):
        xa.fft.fftfreq(2.5)
    with pytest.raises(ValueError):
        xa.fft.rfftfreq(4, device="gpu")


@pytest.mark.parametrize("axes", [None, 0, 1, (0, 1), (1,), (-1, 0)])
def test_fftshift_ifftshift(axes):
    x = np.arange(35.0).reshape(5, 7)
    check(xa.fft.fftshift(xa.asarray(x), axes), np.fft.fftshift(x, axes))
    check(xa.fft.ifftshift(xa.asarray(x), axes), np.fft.ifftshift(x, axes))
    check(xa.fft.ifftshift(xa.fft.fftshift(xa.asarray(x), axes), axes), x)


def test_numpy_dispatches_to_xa_fft():
    x = _values((4, 6), np.float32)
    t = xa.asarray(x)
    r = np.fft.rfft(t, axis=0)
    assert type(r) is xa.Tensor
    check(r, np.fft.rfft(x, axis=0))
    check(np.fft.fftshift(t), np.fft.fftshift(x))
    out = np.empty((4, 6), np.complex64)
    assert np.fft.fft(t, out=out) is out
    np.testing.assert_allclose(out, np.fft.fft(x), rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------------ properties
@given(shape=st.lists(st.integers(1, 9), min_size=1, max_size=3),
       dt=st.sampled_from([np.complex64, np.complex128]),
       how=st.sampled_from(LAYOUTS), seed=st.integers(0, 1000),
       norm=st.sampled_from(NORMS))
def test_inverse_and_parseval(shape, dt, how, seed, norm):
    x = _values(tuple(shape), dt, seed)
    t = make_tensor(x, how)
    f = xa.fft.fftn(t, norm=norm)
    back = xa.fft.ifftn(f, norm=norm)
    check(back, x)
    n = math.prod(shape)
    energy = float(np.sum(np.abs(x.astype(np.complex128)) ** 2))
    spec = float(np.sum(np.abs(np.asarray(f).astype(np.complex128)) ** 2))
    scale = {None: n, "backward": n, "ortho": 1, "forward": 1 / n}[norm]
    assert math.isclose(spec, energy * scale, rel_tol=50 * _tol(dt), abs_tol=1e-9)
    r = x.real.copy()
    check(xa.fft.irfftn(xa.fft.rfftn(make_tensor(r, how), norm=norm), s=r.shape,
                        axes=range(r.ndim), norm=norm), r)
