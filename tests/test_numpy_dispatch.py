"""NumPy's dispatch protocols on xarr values (xarr/_numpy/interop.py): NEP 13 ufuncs and
NEP 18 functions run xarr's, with out= / where= and mixed NumPy / xarr operands; what
xarr lacks falls back to NumPy with one NumPyFallbackWarning per function."""

import warnings

import numpy as np
import pytest

import xarr as xa
from conftest import assert_same, make_tensor
from xarr._dispatch import FAST_SLOTS
from xarr._numpy import interop


def _data(shape=(3, 4), seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("how", ["c", "colmajor", "negstep", "transposed", "tiled"])
def test_the_issues_examples_return_tensors(how):
    a = _data()
    t = make_tensor(a, how)
    cases = [
        (np.add(t, 1), a + 1),
        (np.mean(t, axis=0), a.mean(axis=0)),
        (np.concatenate([t, t]), np.concatenate([a, a])),
        (np.concatenate([t, a]), np.concatenate([a, a])),          # mixed operands
        (np.where(t > 0, t, 0), np.where(a > 0, a, 0)),
        (np.sum(t), np.sum(a)),
        (np.exp(t), np.exp(a)),
        (np.maximum(a, t), np.maximum(a, a)),
        (a * t, a * a),                         # ndarray.__mul__ -> np.multiply -> xarr
        (np.float64(2.0) * t, 2.0 * a),
        (np.clip(t, -0.5, 0.5), np.clip(a, -0.5, 0.5)),
        (np.transpose(t), a.T),
        (np.reshape(t, (4, 3)), a.reshape(4, 3)),
    ]
    for got, want in cases:
        assert isinstance(got, xa.Tensor)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)


def test_ufunc_out_and_where():
    a = _data()
    t = xa.asarray(a)
    o = xa.zeros((3, 4))
    assert np.add(t, 1, out=o) is o
    assert_same(o, a + 1)
    assert np.add(t, 1, out=(o,)) is o                 # NumPy's tuple form
    prev = np.asarray(o).copy()
    r = np.multiply(t, 10, out=o, where=a > 0)
    assert r is o
    assert_same(o, np.where(a > 0, a * 10, prev))
    n = np.zeros((3, 4))                               # an ndarray out: written in place
    assert np.subtract(t, 1, out=n) is n
    assert_same(n, a - 1)
    b = a.copy()
    b += t                                             # ndarray in-place with a tensor
    assert type(b) is np.ndarray and np.array_equal(b, a + a)
    c = np.asfortranarray(a)[::-1]
    c_before = c.copy()
    c *= t                                             # a strided ndarray out
    assert np.array_equal(c, c_before * a)
    assert_same(np.add(t, 1, dtype=np.float32), np.add(a, 1, dtype=np.float32))
    with pytest.raises(ValueError):
        np.add(t, 1, out=xa.zeros((2, 2)))


def test_array_function_out():
    a = _data()
    t = xa.asarray(a)
    o = xa.zeros(4)
    assert np.sum(t, axis=0, out=o) is o
    np.testing.assert_allclose(np.asarray(o), a.sum(axis=0))
    n = np.zeros(3)
    assert np.mean(t, axis=1, out=n) is n
    np.testing.assert_allclose(n, a.mean(axis=1))


def test_ufunc_methods():
    a = _data()
    t = xa.asarray(a)
    np.testing.assert_allclose(np.asarray(np.add.reduce(t)), np.add.reduce(a))
    np.testing.assert_allclose(np.asarray(np.add.reduce(t, axis=1)), a.sum(axis=1))
    np.testing.assert_allclose(np.asarray(np.add.reduce(t, axis=None)), a.sum())
    assert_same(np.maximum.reduce(t, axis=1, keepdims=True), a.max(axis=1, keepdims=True))
    assert_same(np.minimum.reduce(t), a.min(axis=0))
    assert_same(np.logical_or.reduce(t > 1), np.logical_or.reduce(a > 1))
    np.testing.assert_allclose(np.asarray(np.add.accumulate(t)), np.add.accumulate(a))
    np.testing.assert_allclose(np.asarray(np.multiply.accumulate(t, axis=1)),
                               np.multiply.accumulate(a, axis=1))
    x, y = xa.arange(3.0), xa.arange(4.0)
    assert_same(np.multiply.outer(x, y), np.multiply.outer(np.arange(3.0), np.arange(4.0)))
    for r in (np.add.reduce(t), np.add.accumulate(t), np.multiply.outer(x, y)):
        assert isinstance(r, xa.Tensor)


def test_fallback_warns_once_per_function_and_returns_tensors():
    a = _data()
    t = xa.asarray(a)
    interop._warned.discard("numpy.ptp")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r1 = np.ptp(t, axis=0)
        r2 = np.ptp(t)
    hits = [x for x in w if issubclass(x.category, xa.NumPyFallbackWarning)]
    assert len(hits) == 1 and "numpy.ptp" in str(hits[0].message)
    assert isinstance(r1, xa.Tensor)
    np.testing.assert_allclose(np.asarray(r1), np.ptp(a, axis=0))
    assert r2 == np.ptp(a)
    interop._warned.discard("numpy.ptp")
    with warnings.catch_warnings():
        warnings.simplefilter("error", xa.NumPyFallbackWarning)
        with pytest.raises(xa.NumPyFallbackWarning, match="numpy.ptp"):
            np.ptp(t)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xa.NumPyFallbackWarning)
        f, i = np.frexp(t)                             # a two-output ufunc xarr lacks
        assert isinstance(f, xa.Tensor)
        assert_same(f, np.frexp(a)[0])
    q, r = np.divmod(t, 0.5)                           # two outputs, xarr's
    assert isinstance(q, xa.Tensor)
    assert_same(q, np.divmod(a, 0.5)[0])
    oq, orr = xa.zeros((3, 4)), xa.zeros((3, 4))
    assert np.divmod(t, 0.5, out=(oq, orr)) == (oq, orr)
    assert_same(orr, np.divmod(a, 0.5)[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xa.NumPyFallbackWarning)
        o = xa.zeros((3, 4))
        np.add(t, 1, out=o, casting="unsafe")          # an argument xarr lacks: NumPy
        assert_same(o, a + 1)


def test_asarray_stays_zero_copy():
    a = _data()
    t = xa.asarray(a)
    v = np.asarray(t)
    assert np.shares_memory(v, np.asarray(t))
    v[0, 0] = 42.0
    assert t[0, 0] == 42.0


def test_under_jit_and_lazy():
    a = _data()
    t = xa.asarray(a)
    f = xa.jit(lambda x: np.sin(x) + np.mean(x, axis=0) * np.add(x, 1))
    want = np.sin(a) + a.mean(axis=0) * (a + 1)
    np.testing.assert_allclose(np.asarray(f(t)), want, rtol=1e-12)
    with xa.lazy():
        r = np.exp(t) - np.sum(t)
    np.testing.assert_allclose(np.asarray(r), np.exp(a) - a.sum(), rtol=1e-12)


def test_foreign_types_are_not_claimed():
    class Other:
        def __array_function__(self, func, types, args, kwargs):
            return "other"
    assert np.concatenate([xa.ones(2), Other()]) == "other"


def _numpy_functions_xarr_implements():
    """(name, NumPy callable, xarr namespace) for every NumPy ufunc / array function of
    the same name in xarr, xarr.linalg or xarr.fft."""
    out = []
    for np_ns, xa_ns in ((np, xa), (np.linalg, xa.linalg), (np.fft, xa.fft)):
        for name in dir(xa_ns):
            f = getattr(np_ns, name, None)
            if name.startswith("_") or f is None:
                continue
            if isinstance(f, np.ufunc) or hasattr(f, "_implementation"):
                if interop._xarr_function(np_ns.__name__, name) is not None:
                    out.append((name, f, xa_ns))
    return out


NUMPY_FUNCTIONS = _numpy_functions_xarr_implements()


def test_the_enumeration_is_broad():
    names = {n for n, _, _ in NUMPY_FUNCTIONS}
    assert len(names) >= 150
    assert {"add", "mean", "concatenate", "where", "matmul", "einsum", "tril"} <= names


@pytest.mark.parametrize("name,fn,ns", NUMPY_FUNCTIONS, ids=[n for n, _, _ in NUMPY_FUNCTIONS])
def test_every_implemented_numpy_function_dispatches(name, fn, ns, monkeypatch):
    """np.<name>(tensor, ...) reaches xarr's function of that name (replaced here by a
    recorder): enumerated from xarr's namespace, so a new function is covered at once."""
    calls = []
    name = fn.__name__          # an alias (np.abs, np.concat) dispatches by NumPy's name
    if isinstance(fn, np.ufunc) and name in FAST_SLOTS:
        # Tensor.__array_ufunc__ (_tensor_numpy_dispatch.pxi) runs these as xa.<name> does,
        # from Cython (call_binary): the result is the function's, value and dtype
        for dt in (np.int32, np.float32):
            x, y = xa.asarray(np.array([[3, 1], [2, 5]], dt)), xa.asarray(np.array([1, 2], dt))
            try:
                want = getattr(xa, name)(x, y)
            except TypeError:
                with pytest.raises(TypeError):
                    fn(x, y)
                continue
            got = fn(x, y)
            assert type(got) is xa.Tensor
            assert_same(got, want)
        return

    def recorder(*args, **kwargs):
        calls.append(args)
        return "xarr"
    recorder.__module__ = "xarr.recorder"
    monkeypatch.setattr(ns, name, recorder)
    t = xa.ones((2, 2))
    for k in ((fn.nin,) if isinstance(fn, np.ufunc) else (1, 2, 3, 4)):
        try:
            r = fn(*[t] * k)
        except TypeError:
            continue
        if calls:
            assert r == "xarr"
            break
    assert calls, f"np.{name} did not dispatch to xarr"


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex128, np.int32, np.float16])
@pytest.mark.parametrize("how", ["c", "negstep", "transposed"])
def test_numpy_scalars_with_tensors_follow_numpy(dt, how):
    """A NumPy scalar (what t[i, j] gives) with a tensor, either side: NumPy 2's dtype
    (np.float64 is strongly typed: float32 * np.float64 is float64) and values; float64
    scalars with float64 / complex128 tensors take the operators' fast path."""
    a = (np.arange(1, 7).reshape(2, 3) * 1.25).astype(dt)
    t = make_tensor(a, how)
    for s in (np.float64(1.5), np.float32(-2.0), np.int64(3), np.float64("nan")):
        with np.errstate(invalid="ignore"):
            pairs = ((s * t, s * a), (t - s, a - s), (s - t, s - a), (t / s, a / s),
                     (s < t, s < a), (np.maximum(s, t), np.maximum(s, a)))
        for got, want in pairs:
            assert isinstance(got, xa.Tensor)
            if want.dtype.kind == "c":
                # xarr's complex division is (a * conj(b)) / |b|^2, NumPy's Smith's
                # algorithm: 1 ulp apart (1.25 / 1.5: ...334 against ...333)
                assert np.asarray(got).dtype == want.dtype
                np.testing.assert_allclose(np.asarray(got), want, rtol=4e-16)
            else:
                assert_same(got, want)


def test_out_and_dtype_edge_cases():
    be = np.zeros(3, ">f8")                # asarray copies a byte-swapped array: no view
    be += xa.ones(3)
    assert np.array_equal(be, np.ones(3))
    o = np.zeros(3, ">f8")
    assert np.add(xa.ones(3), 1, out=o) is o and np.array_equal(o, np.full(3, 2.0))
    with pytest.raises(TypeError, match="same_kind"):
        np.add(xa.arange(3), 1.5, dtype=np.int64)
    assert_same(np.add(xa.arange(3), 1.5, dtype=np.float32),
                np.add(np.arange(3), 1.5, dtype=np.float32))
    assert np.result_type(xa.ones(2, dtype=xa.float16), np.float32) == np.float32


def test_numpy_functions_xarr_lacks_run_in_numpy_under_import_xarr_as_np():
    # xarr.__getattr__ (interop.numpy_fallback_attribute): `import xarr as np` code
    # calling a function xarr does not implement gets NumPy's on ndarray views, warned
    # once, with tensors back; names that are not NumPy functions still raise.
    a = xa.asarray([3.0, 1.0, 2.0])
    interop._warned.discard("numpy.append")     # (warned once per process)
    with pytest.warns(xa.NumPyFallbackWarning, match="numpy.append"):
        got = xa.append(a, [4.0])
    assert isinstance(got, xa.Tensor)
    np.testing.assert_array_equal(np.asarray(got), [3.0, 1.0, 2.0, 4.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xa.NumPyFallbackWarning)
        np.testing.assert_allclose(np.asarray(xa.polyfit(a, 2 * a + 1, 1)), [2.0, 1.0])
        np.testing.assert_array_equal(np.asarray(xa.fliplr(xa.eye(2))), np.fliplr(np.eye(2)))
        r, c = xa.tril_indices(3)
        np.testing.assert_array_equal(np.asarray(r), np.tril_indices(3)[0])
    assert xa.append._numpy_fallback and "append" not in vars(xa)
    for name in ("no_such_function", "_private", "ndarray_subclass_x", "testing"):
        with pytest.raises(AttributeError, match=name):
            getattr(xa, name)
