"""Reductions (xarr/_ops/reduction.py, seed 004 Reduce ~1173, variadic ~1255): ``lax.reduce``
with named monoids, lax functions and traced Python callables (a monoid callable runs on the
kernels, any other one as a tree), the seed's 3-D example and variadic argmax, init values,
errors; ``reduce_*``, ``lax.argmax/argmin``, ``lax.cum*`` (reverse=); the NumPy frontend
(sum, prod, max, min, mean, var, std, argmax, argmin, any, all, count_nonzero, allclose,
array_equal, cumsum, cumprod) with axis / keepdims / dtype / where against NumPy over dtypes
and layouts (float sums within c*log2(n)*eps*sum|x| of a float64 reference), NumPy's default
result dtypes, empty reductions, NaN propagation, eager vs jit vs lazy, and the kInput
fusion of an elementwise producer into its reduction (one kernel)."""

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import xarr as xa
from conftest import (ALL_DTYPES, BF16, COMPLEX, FLOATS, INTS, LAYOUTS, XLA_NAME,
                      assert_same, finfo, kind, make_tensor, random_array, to_np)
from xarr._ops import reduction as R

lax = xa.lax
# NumPy's own warnings on the reference side (empty means, overflowing int sums...)
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

SEED_X = np.tile(np.array([[1, 2, 3], [4, 5, 6]], np.float32), (4, 1, 1))   # f32[4,2,3]


# ------------------------------------------------------------------------ helpers
def three_ways(fn, *tensors, exact=True):
    """fn eagerly, under xa.jit and in xa.lazy; the three agree bit for bit (``exact``) and
    the eager result is returned as NumPy (a tuple for tuple results)."""
    eager = fn(*tensors)
    jitted = xa.jit(fn)(*tensors)
    with xa.lazy():
        lz = fn(*tensors)
    lz = xa.eval(*lz) if isinstance(lz, tuple) else xa.eval(lz)
    outs = eager if isinstance(eager, tuple) else (eager,)
    js = jitted if isinstance(jitted, tuple) else (jitted,)
    zs = lz if isinstance(lz, tuple) else (lz,)
    for e, j, z in zip(outs, js, zs):
        e = to_np(e)
        if exact:
            assert_same(j, e)
            assert_same(z, e)
        else:
            for o in (j, z):
                o = to_np(o)
                assert o.dtype == e.dtype and o.shape == e.shape
                np.testing.assert_allclose(o.astype(np.complex128), e.astype(np.complex128),
                                           rtol=1e-5, atol=1e-6, equal_nan=True)
    res = tuple(to_np(e) for e in outs)
    return res if isinstance(eager, tuple) else res[0]


def values(shape, dt, seed=0, **kw):
    return random_array(np.random.default_rng(seed), shape, dt, **kw)


def f64(a):
    a = np.asarray(a)
    return a.astype(np.complex128) if a.dtype.kind == "c" else a.astype(np.float64)


def assert_sum_close(got, x, axis, n_terms, dtype=None, ref=None, c=4.0):
    """A float sum within c * log2(n) * eps * sum|x| (+ a few ulps) of the float64 sum."""
    got = to_np(got)
    dt = np.dtype(dtype) if dtype is not None else got.dtype
    eps = float(finfo(dt if dt.kind != "c" else np.empty(0, dt).real.dtype).eps)
    x64 = f64(x)
    want = np.sum(x64, axis=axis) if ref is None else ref
    mag = np.sum(np.abs(x64), axis=axis)
    bound = c * max(math.log2(max(n_terms, 2)), 1.0) * eps * mag + 4 * eps * np.abs(want) + \
        float(finfo(dt if dt.kind != "c" else np.empty(0, dt).real.dtype).tiny)
    g = f64(got)
    with np.errstate(invalid="ignore"):
        err = np.abs(g - want)
        bad = ~(err <= bound) & ~(np.isnan(g) & np.isnan(want)) & ~(g == want)
    assert not np.any(bad), (f"{int(np.sum(bad))} sums out of bound: got {g[bad][:4]}, want "
                            f"{np.asarray(want)[bad][:4]}, bound {np.asarray(bound)[bad][:4]}")


dtypes = st.sampled_from(ALL_DTYPES)
layouts = st.sampled_from(LAYOUTS)
shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)
nonscalar = hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=5)


def axis_arg(data, ndim):
    """None, an int (maybe negative) or a tuple of distinct axes (maybe negative)."""
    choices = [st.none()]
    if ndim:
        choices.append(st.integers(-ndim, ndim - 1))
        choices.append(st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(
            lambda v: tuple(a - ndim if a % 2 else a for a in v)))
    return data.draw(st.one_of(*choices))


def n_reduced(shape, axis):
    if axis is None:
        return int(np.prod(shape, dtype=np.int64))
    axes = (axis,) if isinstance(axis, int) else axis
    return int(np.prod([shape[a] for a in axes], dtype=np.int64))


# ------------------------------------------------------------------------ the seed's examples
@pytest.mark.parametrize("computation", ["add", lax.add, lambda a, b: a + b,
                                         lambda a, b: lax.add(b, a),
                                         lambda a, b: a * 1 + b],
                         ids=["name", "lax.add", "lambda", "lambda-swapped", "non-monoid"])
def test_reduce_seed_3d_example(computation):
    x = xa.asarray(SEED_X)
    zero = np.float32(0)
    cases = [((0,), np.array([[4, 8, 12], [16, 20, 24]], np.float32)),
             ((2,), np.array([[6, 15]] * 4, np.float32)),
             ((0, 1), np.array([20, 28, 36], np.float32)),
             ((1, 0), np.array([20, 28, 36], np.float32)),       # dims are unordered
             ((0, 1, 2), np.float32(84)),
             ((2, 0, 1), np.float32(84)),
             ((), SEED_X)]
    for dims, want in cases:
        got = three_ways(lambda t: lax.reduce(t, zero, computation, dims), x)
        assert_same(got, want)


def test_reduce_seed_2d_example():
    x = xa.asarray(np.array([[1, 2, 3], [4, 5, 6]], np.int32))
    assert_same(three_ways(lambda t: lax.reduce(t, 0, "add", (0,)), x),
                np.array([5, 7, 9], np.int32))
    assert_same(three_ways(lambda t: lax.reduce(t, 0, "add", (1,)), x),
                np.array([6, 15], np.int32))


def _argmax_comp(acc, x):
    (m, am), (v, i) = acc, x
    take = lax.ge(v, m)
    return lax.select(take, v, m), lax.select(take, i, am)


@pytest.mark.parametrize("n", [1, 2, 5, 16, 37])
def test_reduce_seed_variadic_argmax(n):
    """The seed's f(max, argmax, value, index) over values V and indices K = iota."""
    rng = np.random.default_rng(n)
    v = rng.permutation(n).astype(np.float32) * 1.5 - 7   # distinct values
    V = xa.asarray(v)

    def f(vals):
        k = lax.iota(xa.int32, vals.shape[0])
        return lax.reduce((vals, k), (np.float32(-np.inf), np.int32(0)), _argmax_comp, (0,))

    m, am = three_ways(f, V)
    assert_same(m, np.float32(v.max()))
    assert_same(am, np.int32(np.argmax(v)))


def test_reduce_variadic_argmax_2d_and_min_of_pairs():
    rng = np.random.default_rng(3)
    v = rng.standard_normal((6, 9)).astype(np.float64)
    V = xa.asarray(v)

    def f(vals):
        k = lax.broadcasted_iota(xa.int64, vals.shape, 1)
        return lax.reduce([vals, k], [np.float64(-np.inf), np.int64(-1)], _argmax_comp, [1])

    m, am = three_ways(f, V)
    assert_same(m, v.max(axis=1))
    assert_same(am, np.argmax(v, axis=1))

    # a (sum, count) pair: two monoids side by side
    def g(vals):
        ones = xa.ones_like(vals)
        return lax.reduce((vals, ones), (0.0, 0.0),
                          lambda acc, x: (acc[0] + x[0], acc[1] + x[1]), (0,))
    s, c = three_ways(g, V)
    np.testing.assert_allclose(s, v.sum(axis=0), rtol=1e-12)
    assert_same(c, np.full(9, 6.0))


# ------------------------------------------------------------------------ paths and callables
@pytest.fixture
def paths(monkeypatch):
    """Counts the eager reduce paths taken: 'kernel' (C++ monoid kernels) or 'tree'."""
    seen = []
    kernel, tree = R.kernel_reduce, R._tree_reduce

    def k(*a, **kw):
        seen.append("kernel")
        return kernel(*a, **kw)

    def t(*a, **kw):
        seen.append("tree")
        return tree(*a, **kw)
    monkeypatch.setattr(R, "kernel_reduce", k)
    monkeypatch.setattr(R, "_tree_reduce", t)
    return seen


@pytest.mark.parametrize("comp, monoid, np_fn", [
    ("add", True, np.sum), ("max", True, np.max), ("min", True, np.min),
    ("mul", True, np.prod),
    (lax.add, True, np.sum), (lax.max, True, np.max), (lax.mul, True, np.prod),
    (lambda a, b: a + b, True, np.sum), (lambda a, b: lax.max(a, b), True, np.max),
    (lambda a, b: lax.min(b, a), True, np.min), (lambda a, b: a * b, True, np.prod),
    (lambda a, b: lax.max(a, b) + 0, False, np.max),
    (lambda a, b: (a + 1) * (b + 1) - 1, False, None),
    (lambda a, b: lax.select(lax.gt(a, b), a, b), False, np.max),
], ids=["add", "max", "min", "mul", "lax.add", "lax.max", "lax.mul", "l-add", "l-max",
        "l-min", "l-mul", "max+0", "(a+1)(b+1)-1", "select-max"])
def test_callable_paths(comp, monoid, np_fn, paths):
    x = values((5, 6, 7), np.dtype(np.int64), 4) % 3
    t = xa.asarray(x)
    init = {np.sum: 0, np.max: -100, np.min: 100, np.prod: 1, None: 0}[np_fn]
    for dims in [(1,), (0, 2), (0, 1, 2)]:
        del paths[:]
        got = lax.reduce(t, np.int64(init), comp, dims)
        assert paths == (["kernel"] if monoid else ["tree"])
        if np_fn is None:
            want = np.prod(x + 1, axis=dims) - 1
        else:
            want = np_fn(x, axis=dims)
        assert_same(got, want)
        assert_same(xa.jit(lambda a: lax.reduce(a, np.int64(init), comp, dims))(t), want)


def test_callable_is_traced_once_and_recorded():
    calls = []

    def comp(a, b):
        calls.append(1)
        return a + b
    t = xa.asarray(np.arange(10, dtype=np.float32).reshape(2, 5))
    f = xa.jit(lambda a: lax.reduce(a, np.float32(0), comp, (1,)))
    f(t)
    f(t)
    assert f.trace_count == 1
    assert len(calls) <= 2
    text = f.lower(t).as_text()
    assert "reduce(" in text and "to_apply=" in text


@given(shape=shapes, data=st.data(), how=layouts,
       dt=st.sampled_from([xa.int32, xa.uint8, xa.int64, xa.float64]))
def test_tree_reduce_matches_kernel(shape, data, how, dt):
    """A non-monoid callable computing max gives the max kernel's result for any dims."""
    x = values(shape, dt, 5, specials=0)
    dims = tuple(data.draw(st.lists(st.integers(0, max(len(shape) - 1, 0)), unique=True,
                                    max_size=len(shape)))) if shape else ()
    t = make_tensor(x, how)
    lo = -np.inf if kind(dt) == "f" else np.iinfo(dt).min
    init = np.asarray(lo, dt)[()]
    got = three_ways(lambda a: lax.reduce(a, init, lambda p, q: lax.max(p, q) + 0 * q, dims),
                     t)
    want = three_ways(lambda a: lax.reduce(a, init, "max", dims), t)
    assert_same(got, want)
    assert_same(got, np.max(x, axis=dims, initial=lo) if x.size or dims else x)


def test_init_values():
    x = np.arange(1, 13, dtype=np.int32).reshape(3, 4)
    t = xa.asarray(x)
    assert_same(three_ways(lambda a: lax.reduce(a, 100, "add", (0,)), t), (x.sum(0) + 100).astype(np.int32))
    assert_same(three_ways(lambda a: lax.reduce(a, 50, "max", (1,)), t),
                np.maximum(x.max(1), 50).astype(np.int32))
    assert_same(three_ways(lambda a: lax.reduce(a, 2, "mul", (1,)), t),
                (x.prod(1, dtype=np.int32) * 2).astype(np.int32))
    # an empty reduction is the init value
    e = xa.asarray(np.zeros((3, 0), np.float32))
    assert_same(three_ways(lambda a: lax.reduce(a, np.float32(7), "add", (1,)), e),
                np.full(3, 7, np.float32))
    assert_same(three_ways(lambda a: lax.reduce(a, np.float32(-3), lambda p, q: p - q * 0 + q
                                                * 0 + lax.max(p, q) - p, (1,)), e),
                np.full(3, -3, np.float32))
    # an init tensor (0-d)
    assert_same(three_ways(lambda a, i: lax.reduce(a, i, "add", (0, 1)), t,
                           xa.asarray(np.int32(5))), np.int32(x.sum() + 5))


def test_reduce_errors():
    t = xa.asarray(np.zeros((2, 3), np.float32))
    for dims in [(2,), (-1,), (0, 0)]:
        with pytest.raises(ValueError, match="reduce"):
            lax.reduce(t, np.float32(0), "add", dims)
        with pytest.raises(ValueError, match="reduce"):
            xa.jit(lambda a: lax.reduce(a, np.float32(0), "add", dims))(t)
    with pytest.raises(TypeError, match="init value"):
        lax.reduce(t, np.float64(0), "add", (0,))
    with pytest.raises(TypeError, match="init value"):
        xa.jit(lambda a: lax.reduce(a, np.float64(0), "add", (0,)))(t)
    with pytest.raises(TypeError, match="init value"):
        lax.reduce(t, xa.zeros(2, xa.float32), "add", (0,))
    with pytest.raises(ValueError, match="reduce"):
        lax.reduce(t, np.float32(0), "subtract", (0,))
    with pytest.raises(ValueError, match="init values"):
        lax.reduce((t, t), (np.float32(0),), lambda a, b: a, (0,))
    with pytest.raises(ValueError, match="reduce"):
        lax.reduce((t, xa.zeros((3, 2), xa.float32)), (np.float32(0), np.float32(0)),
                   lambda a, b: a, (0,))
    with pytest.raises(TypeError, match="reduce"):
        lax.reduce(t, np.float32(0), lambda a, b: (a + b).astype(xa.float64), (0,))
    with pytest.raises(TypeError, match="complex"):
        lax.reduce(xa.zeros(3, xa.complex64), np.complex64(0), "max", (0,))


# ------------------------------------------------------------------------ reduce_* / argmax
@given(shape=shapes, dt=dtypes, how=layouts, data=st.data())
def test_reduce_named(shape, dt, how, data):
    x = values(shape, dt, 6)
    t = make_tensor(x, how)
    dims = tuple(data.draw(st.lists(st.integers(0, max(len(shape) - 1, 0)), unique=True,
                                    max_size=len(shape)))) if shape else ()
    n = n_reduced(shape, dims)
    k = kind(dt)
    if k != "b":
        got = three_ways(lambda a: lax.reduce_sum(a, dims), t)
        if k in "fc":
            assert_sum_close(got, x, dims, n, dt)
        else:
            assert_same(got, np.sum(x, axis=dims, dtype=dt))
        got = three_ways(lambda a: lax.reduce_prod(a, dims), t)
        if k in "iu":
            assert_same(got, np.prod(x, axis=dims, dtype=dt))
    if k != "c":
        for fn, np_fn in ((lax.reduce_max, np.maximum), (lax.reduce_min, np.minimum)):
            got = three_ways(lambda a: fn(a, dims), t)
            want = np_fn.reduce(x.astype(np.float64) if k == "f" else x, axis=dims,
                                initial=R.lowest(np.dtype(dt)) if np_fn is np.maximum
                                else R.highest(np.dtype(dt)))
            assert_same(got, np.asarray(want).astype(dt) if k == "f" else want)
    else:
        with pytest.raises(TypeError):
            lax.reduce_max(t, dims)
    if k in "biu":
        for fn, np_fn in ((lax.reduce_and, np.bitwise_and), (lax.reduce_or, np.bitwise_or)):
            got = three_ways(lambda a: fn(a, dims), t)
            assert_same(got, np_fn.reduce(x, axis=dims) if dims else x)


@given(shape=nonscalar, dt=st.sampled_from([d for d in ALL_DTYPES if kind(d) != "c"]),
       how=layouts, data=st.data())
def test_lax_argmax_argmin(shape, dt, how, data):
    x = values(shape, dt, 7)
    axis = data.draw(st.integers(0, len(shape) - 1))
    t = make_tensor(x, how)
    if shape[axis] == 0:
        with pytest.raises(ValueError, match="argmax"):
            lax.argmax(t, axis)
        return
    xf = x.astype(np.float32) if np.dtype(dt) == BF16 else x
    for fn, np_fn in ((lax.argmax, np.argmax), (lax.argmin, np.argmin)):
        got = three_ways(lambda a: fn(a, axis), t)
        assert_same(got, np_fn(xf, axis=axis).astype(np.int32))
        got = fn(t, axis, index_dtype=xa.int64)
        assert_same(got, np_fn(xf, axis=axis).astype(np.int64))


def test_lax_argmax_errors():
    t = xa.zeros((2, 3))
    with pytest.raises(ValueError, match="argmax"):
        lax.argmax(t, 2)
    with pytest.raises(ValueError, match="argmin"):
        lax.argmin(t, -1)
    with pytest.raises(TypeError, match="complex"):
        lax.argmax(xa.zeros(3, xa.complex64), 0)


# ------------------------------------------------------------------------ scans
def _np_scan(fn, x, axis, reverse):
    if reverse:
        return np.flip(fn(np.flip(x, axis), axis), axis)
    return fn(x, axis)


@given(shape=nonscalar, dt=st.sampled_from([d for d in ALL_DTYPES if kind(d) != "b"]),
       how=layouts, reverse=st.booleans(), data=st.data())
def test_lax_scans(shape, dt, how, reverse, data):
    x = values(shape, dt, 8)
    n = len(shape)
    axis = data.draw(st.integers(-n, n - 1))
    t = make_tensor(x, how)
    k = kind(dt)
    for name, np_fn in [("cumsum", lambda a, ax: np.cumsum(a, ax, dtype=a.dtype)),
                        ("cumprod", lambda a, ax: np.cumprod(a, ax, dtype=a.dtype)),
                        ("cummax", np.maximum.accumulate), ("cummin", np.minimum.accumulate)]:
        fn = getattr(lax, name)
        if k == "c" and name in ("cummax", "cummin"):
            with pytest.raises(TypeError):
                fn(t, axis, reverse=reverse)
            continue
        got = three_ways(lambda a: fn(a, axis, reverse=reverse), t)
        with np.errstate(all="ignore"):
            if np.dtype(dt) in (np.dtype(np.float16), BF16) and name in ("cumsum", "cumprod"):
                continue    # NumPy rounds each step to 16 bits; checked separately
            want = _np_scan(np_fn, x, axis % n, reverse)
        assert_same(got, want)


def test_lax_scan_examples_and_16bit():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    t = xa.asarray(x)
    assert_same(lax.cumsum(t, 1), np.array([[1, 3, 6], [4, 9, 15]], np.int32))
    assert_same(lax.cumsum(t, 1, reverse=True), np.array([[6, 5, 3], [15, 11, 6]], np.int32))
    assert_same(lax.cumprod(t, 0), np.array([[1, 2, 3], [4, 10, 18]], np.int32))
    assert_same(lax.cummax(xa.asarray(np.array([3, 1, 4, 1, 5], np.int8)), 0),
                np.array([3, 3, 4, 4, 5], np.int8))
    assert_same(lax.cummin(xa.asarray(np.array([3, 1, 4, 1, 5], np.int8)), 0, reverse=True),
                np.array([1, 1, 1, 1, 5], np.int8))
    nan = np.array([1.0, np.nan, 0.5, 3.0], np.float32)
    assert np.isnan(to_np(lax.cummax(xa.asarray(nan), 0))[1:]).all()
    assert np.isnan(to_np(lax.cumsum(xa.asarray(nan), 0))[1:]).all()
    for dt in (np.float16, BF16):
        v = values((50,), dt, 9, specials=0, low=-2, high=2)
        got = to_np(lax.cumsum(xa.asarray(v), 0))
        assert got.dtype == dt
        assert_sum_close(got, v, None, 50, dt, ref=np.cumsum(v.astype(np.float64)), c=50)


def test_lax_scan_errors():
    with pytest.raises(ValueError, match="cumsum"):
        xa.jit(lambda a: lax.cumsum(a, 0))(xa.asarray(np.float32(1)))


# ------------------------------------------------------------------------ NumPy frontend
NP_SUM_DTYPES = [d for d in ALL_DTYPES]


def _np_ref_sum(x, axis, dtype, keepdims, where):
    kw = {} if where is None else {"where": where}
    with np.errstate(all="ignore"):
        if np.dtype(x.dtype) == BF16:
            r = np.sum(x.astype(np.float32), axis=axis, keepdims=keepdims, **kw)
            return r.astype(dtype or BF16)
        return np.sum(x, axis=axis, dtype=dtype, keepdims=keepdims, **kw)


@given(shape=shapes, dt=dtypes, how=layouts, keepdims=st.booleans(), data=st.data())
def test_sum_prod(shape, dt, how, keepdims, data):
    x = values(shape, dt, 10, specials=0.05)
    t = make_tensor(x, how)
    axis = axis_arg(data, len(shape))
    use_where = data.draw(st.booleans())
    where = values(shape[-1:] if data.draw(st.booleans()) else shape, np.dtype(bool), 11) \
        if use_where else None
    dtype = data.draw(st.sampled_from([None, None, xa.int64, xa.float64])) \
        if kind(dt) in "biu" else None
    kw = {} if where is None else {"where": xa.asarray(where)}
    got = three_ways(lambda a: xa.sum(a, axis=axis, dtype=dtype, keepdims=keepdims, **kw), t)
    want = _np_ref_sum(x, axis, dtype, keepdims, where)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if kind(got.dtype) in "fc":
        xs = x if where is None else np.where(where, x, 0)
        ref = np.sum(f64(xs), axis=axis, keepdims=keepdims)
        ax = axis
        mag = np.sum(np.abs(f64(xs)), axis=ax, keepdims=keepdims)
        _close_to(got, ref, mag, n_reduced(shape, axis), got.dtype)
    else:
        assert_same(got, want)
    # prod: ints wrap like NumPy's; floats compared loosely
    got = three_ways(lambda a: xa.prod(a, axis=axis, dtype=dtype, keepdims=keepdims, **kw), t)
    with np.errstate(all="ignore"):
        if np.dtype(dt) == BF16:
            want = np.prod(x.astype(np.float32), axis=axis, keepdims=keepdims,
                           **({} if where is None else {"where": where})).astype(BF16)
        else:
            want = np.prod(x, axis=axis, dtype=dtype, keepdims=keepdims,
                           **({} if where is None else {"where": where}))
    assert got.dtype == want.dtype
    if kind(got.dtype) not in "fc":
        assert_same(got, want)


def _close_to(got, ref, mag, n, dt, c=4.0):
    dt = np.dtype(dt)
    real = np.empty(0, dt).real.dtype if dt.kind == "c" else dt
    eps, tiny = float(finfo(real).eps), float(finfo(real).tiny)
    g = f64(to_np(got))
    assert g.shape == np.shape(ref)
    bound = c * max(math.log2(max(n, 2)), 1.0) * eps * mag + 4 * eps * np.abs(ref) + tiny
    with np.errstate(invalid="ignore"):
        ok = (np.abs(g - ref) <= bound) | (np.isnan(g) & np.isnan(ref)) | (g == ref)
        # out of the result type's range: inf where the float64 sum overflows it
        ok |= np.isinf(g) & (np.abs(ref) >= float(finfo(real).max) * (1 - 4 * eps))
    assert np.all(ok), f"got {g[~ok][:4]}, want {np.asarray(ref)[~ok][:4]}"


@pytest.mark.parametrize("dt, want", [(xa.bool_, np.int64), (xa.int8, np.int64),
                                      (xa.int16, np.int64), (xa.int32, np.int64),
                                      (xa.int64, np.int64), (xa.uint8, np.uint64),
                                      (xa.uint16, np.uint64), (xa.uint32, np.uint64),
                                      (xa.float16, np.float16), (xa.bfloat16, BF16),
                                      (xa.float32, np.float32),
                                      (xa.complex64, np.complex64)],
                         ids=lambda v: str(np.dtype(v)))
def test_default_result_dtypes(dt, want):
    t = xa.asarray(values((3, 4), dt, 12, specials=0))
    assert xa.sum(t).dtype == want
    assert xa.sum(t, axis=0).dtype == want
    assert xa.prod(t, axis=1).dtype == want
    assert xa.cumsum(t).dtype == want
    assert xa.cumprod(t, axis=0).dtype == want
    if kind(dt) in "biu":
        assert xa.mean(t).dtype == np.float64
        assert xa.var(t, axis=0).dtype == np.float64
        assert xa.std(t).dtype == np.float64
    elif kind(dt) == "f":
        assert xa.mean(t).dtype == np.dtype(dt)
        assert xa.var(t).dtype == np.dtype(dt)
    else:
        assert xa.mean(t).dtype == np.dtype(dt)
        assert xa.var(t).dtype == np.empty(0, dt).real.dtype
    if kind(dt) != "c":
        assert xa.max(t).dtype == np.dtype(dt)
        assert xa.min(t, axis=0).dtype == np.dtype(dt)
    if kind(dt) != "c":
        assert xa.argmax(t).dtype == np.int64
    else:
        # NumPy orders complex values lexicographically; xarr refuses them clearly
        with pytest.raises(TypeError, match="complex"):
            xa.argmax(t)
        with pytest.raises(TypeError, match="complex"):
            xa.max(t)
    assert xa.any(t).dtype == np.bool_ and xa.all(t, axis=0).dtype == np.bool_
    assert xa.count_nonzero(t, axis=0).dtype == np.int64


@given(shape=shapes, dt=st.sampled_from([d for d in ALL_DTYPES if kind(d) != "c"]),
       how=layouts, keepdims=st.booleans(), data=st.data())
def test_max_min(shape, dt, how, keepdims, data):
    x = values(shape, dt, 13)
    t = make_tensor(x, how)
    axis = axis_arg(data, len(shape))
    xf = x.astype(np.float32) if np.dtype(dt) == BF16 else x
    for fn, np_fn in ((xa.max, np.max), (xa.min, np.min)):
        if n_reduced(shape, axis) == 0 and x.size == 0:
            with pytest.raises(ValueError):
                np_fn(xf, axis=axis)
            with pytest.raises(ValueError, match="zero-size"):
                fn(t, axis=axis, keepdims=keepdims)
            continue
        got = three_ways(lambda a: fn(a, axis=axis, keepdims=keepdims), t)
        want = np_fn(xf, axis=axis, keepdims=keepdims)
        assert_same(got, np.asarray(want).astype(dt))
        init = 5 if kind(dt) != "b" else True
        got = fn(t, axis=axis, keepdims=keepdims, initial=init)
        assert_same(got, np.asarray(np_fn(xf, axis=axis, keepdims=keepdims,
                                          initial=init)).astype(dt))
        if shape:
            where = values(shape, np.dtype(bool), 14)
            got = fn(t, axis=axis, keepdims=keepdims, initial=init, where=xa.asarray(where))
            assert_same(got, np.asarray(np_fn(xf, axis=axis, keepdims=keepdims, initial=init,
                                              where=where)).astype(dt))


def test_max_errors_and_nan():
    with pytest.raises(ValueError, match="zero-size"):
        xa.max(xa.zeros((0, 3)))
    with pytest.raises(ValueError, match="zero-size"):
        xa.min(xa.zeros((0,)), axis=0)
    with pytest.raises(ValueError):
        xa.max(xa.ones(3), where=xa.asarray(np.array([True, False, True])))
    assert_same(xa.max(xa.zeros((0, 3)), axis=1), np.zeros((0,), np.float64))
    x = np.array([[1.0, np.nan, 3.0], [-np.inf, 2.0, np.inf]], np.float32)
    t = xa.asarray(x)
    for fn, np_fn in ((xa.max, np.max), (xa.min, np.min), (xa.sum, np.sum),
                      (xa.prod, np.prod), (xa.mean, np.mean)):
        for axis in (None, 0, 1):
            assert_same(fn(t, axis=axis), np_fn(x, axis=axis))
    for axis in (None, 0, 1):
        assert_same(xa.argmax(t, axis=axis), np.argmax(x, axis=axis))
        assert_same(xa.argmin(t, axis=axis), np.argmin(x, axis=axis))


def test_empty_reductions():
    e = np.zeros((0, 3), np.float32)
    t = xa.asarray(e)
    assert_same(xa.sum(t), np.float32(0))
    assert_same(xa.sum(t, axis=0), np.zeros(3, np.float32))
    assert_same(xa.prod(t, axis=0), np.ones(3, np.float32))
    assert_same(xa.sum(xa.zeros((0,), xa.int8)), np.int64(0))
    assert_same(xa.any(t), np.False_)
    assert_same(xa.all(t), np.True_)
    assert_same(xa.count_nonzero(t), np.int64(0))
    assert_same(xa.cumsum(t), np.zeros(0, np.float32))
    with np.errstate(all="ignore"):
        assert np.isnan(float(xa.mean(t)))
    with pytest.raises(ValueError):
        xa.argmax(t)
    with pytest.raises(ValueError):
        xa.argmin(t, axis=0)
    assert_same(xa.argmax(t, axis=1), np.zeros(0, np.int64))


def test_sum_of_negative_zeros_is_positive_zero_like_numpy():
    for dt in (np.float16, np.float32, np.float64):
        x = np.array([-0.0, -0.0], dt)
        assert_same(xa.sum(xa.asarray(x)), np.sum(x))
        # the fused (kInput) path applies the +0 init too
        f = xa.jit(lambda v: xa.sum(v * 1.5))
        assert_same(f(xa.asarray(x)), np.sum(x * dt(1.5)))
        assert f.lower(xa.asarray(x)).compile().kernel_count == 1


def test_sum_float_specials():
    y = np.array([np.inf, -np.inf, 1.0], np.float64)
    assert_same(xa.sum(xa.asarray(y)), np.sum(y))
    z = np.array([np.inf, 1.0, np.inf], np.float64)
    assert_same(xa.sum(xa.asarray(z)), np.float64(np.inf))


@pytest.mark.parametrize("dt", [xa.float32, xa.float64, xa.float16, xa.bfloat16])
@pytest.mark.parametrize("n", [1, 7, 1000, 100_003])
def test_float_sum_error_bound(dt, n):
    """Float sums are pairwise/blocked: within c*log2(n)*eps*sum|x| of float64."""
    rng = np.random.default_rng(n)
    x = random_array(rng, (n,), dt, specials=0, low=-1, high=1)
    got = xa.sum(xa.asarray(x))
    assert_sum_close(got, x, None, n, dt)
    pos = np.abs(x).astype(dt)
    assert_sum_close(xa.sum(xa.asarray(pos)), pos, None, n, dt)


@given(shape=shapes, dt=st.sampled_from([xa.float32, xa.float64, xa.float16, xa.int32,
                                         xa.uint8, xa.bool_, xa.complex64, xa.bfloat16]),
       how=layouts, keepdims=st.booleans(), ddof=st.integers(0, 2), data=st.data())
def test_mean_var_std(shape, dt, how, keepdims, ddof, data):
    x = values(shape, dt, 15, specials=0, low=-3, high=3) if kind(dt) in "fc" else \
        values(shape, dt, 15, specials=0)
    t = make_tensor(x, how)
    axis = axis_arg(data, len(shape))
    n = n_reduced(shape, axis)
    use_where = bool(shape) and data.draw(st.booleans())
    where = values(shape, np.dtype(bool), 16) if use_where else None
    kw = {} if where is None else {"where": xa.asarray(where)}
    nkw = {} if where is None else {"where": where}
    x64 = f64(x)
    with np.errstate(all="ignore"):
        m64 = np.mean(x64, axis=axis, keepdims=keepdims, **nkw)
        v64 = np.var(x64, axis=axis, keepdims=keepdims, ddof=ddof, **nkw)
        s64 = np.std(x64, axis=axis, keepdims=keepdims, ddof=ddof, **nkw)
        m = three_ways(lambda a: xa.mean(a, axis=axis, keepdims=keepdims, **kw), t)
        v = three_ways(lambda a: xa.var(a, axis=axis, keepdims=keepdims, ddof=ddof, **kw), t)
        s = three_ways(lambda a: xa.std(a, axis=axis, keepdims=keepdims, ddof=ddof, **kw), t)
    xf = x.astype(np.float32) if np.dtype(dt) == BF16 else x
    with np.errstate(all="ignore"), __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("ignore")
        want_dt = np.mean(xf, axis=axis, **nkw).dtype if np.dtype(dt) != BF16 else BF16
    assert m.dtype == want_dt
    real = want_dt if kind(want_dt) != "c" else np.empty(0, want_dt).real.dtype
    assert v.dtype == real and s.dtype == real
    eps = float(finfo(real).eps)
    tol = 8 * max(math.log2(max(n, 2)), 1) * eps
    for got, ref, scale in ((m, m64, np.abs(x64).max(initial=1)),
                            (v, v64, np.abs(x64).max(initial=1) ** 2),
                            (s, s64, np.abs(x64).max(initial=1))):
        g = f64(got)
        with np.errstate(invalid="ignore"):
            ok = (np.abs(g - ref) <= tol * scale + 8 * eps * np.abs(ref)) | \
                (np.isnan(g) & np.isnan(ref)) | (np.isinf(g) & (g == ref))
        assert np.all(ok), f"{g[~ok][:4]} vs {np.asarray(ref)[~ok][:4]}"


def test_mean_dtype_argument_and_var_complex():
    x = np.arange(10, dtype=np.int16).reshape(2, 5)
    t = xa.asarray(x)
    assert_same(xa.mean(t, dtype=xa.float32), np.mean(x, dtype=np.float32))
    assert_same(xa.mean(t, axis=1, dtype=xa.float32), np.mean(x, axis=1, dtype=np.float32))
    c = np.array([1 + 2j, 3 - 1j, -2 + 0.5j], np.complex128)
    np.testing.assert_allclose(to_np(xa.var(xa.asarray(c))), np.var(c), rtol=1e-14)
    h = np.full(5000, 0.1, np.float16)
    assert_same(xa.mean(xa.asarray(h)), np.mean(h))      # f16 mean accumulates in f32


@given(shape=nonscalar, dt=st.sampled_from([d for d in ALL_DTYPES if kind(d) != "c"]),
       how=layouts, keepdims=st.booleans(), data=st.data())
def test_np_argmax_argmin(shape, dt, how, keepdims, data):
    x = values(shape, dt, 17)
    t = make_tensor(x, how)
    n = len(shape)
    axis = data.draw(st.none() | st.integers(-n, n - 1))
    xf = x.astype(np.float32) if np.dtype(dt) == BF16 else x
    for fn, np_fn in ((xa.argmax, np.argmax), (xa.argmin, np.argmin)):
        try:
            want = np_fn(xf, axis=axis, keepdims=keepdims)
        except ValueError:
            with pytest.raises(ValueError):
                fn(t, axis=axis, keepdims=keepdims)
            continue
        got = three_ways(lambda a: fn(a, axis=axis, keepdims=keepdims), t)
        assert_same(got, want)


@given(shape=shapes, dt=dtypes, how=layouts, keepdims=st.booleans(), data=st.data())
def test_any_all_count_nonzero(shape, dt, how, keepdims, data):
    x = values(shape, dt, 18)
    if kind(dt) != "b" and x.size:
        x.reshape(-1)[::3] = 0
    t = make_tensor(x, how)
    axis = axis_arg(data, len(shape))
    for fn, np_fn in ((xa.any, np.any), (xa.all, np.all)):
        got = three_ways(lambda a: fn(a, axis=axis, keepdims=keepdims), t)
        assert_same(got, np_fn(x, axis=axis, keepdims=keepdims))
        if shape:
            where = values(shape, np.dtype(bool), 19)
            assert_same(fn(t, axis=axis, keepdims=keepdims, where=xa.asarray(where)),
                        np_fn(x, axis=axis, keepdims=keepdims, where=where))
    got = three_ways(lambda a: xa.count_nonzero(a, axis=axis, keepdims=keepdims), t)
    want = np.count_nonzero(x, axis=axis, keepdims=keepdims)
    assert_same(got, np.asarray(want).astype(np.int64))


def test_reduction_axis_errors():
    t = xa.ones((2, 3))
    for fn in (xa.sum, xa.prod, xa.max, xa.min, xa.mean, xa.var, xa.std, xa.any, xa.all,
               xa.argmax, xa.argmin, xa.count_nonzero, xa.cumsum, xa.cumprod):
        with pytest.raises(ValueError, match="out of bounds"):
            fn(t, axis=2)
        with pytest.raises(ValueError, match="out of bounds"):
            fn(t, axis=-3)
    for fn in (xa.sum, xa.max, xa.mean, xa.any):
        with pytest.raises(ValueError, match="repeated"):
            fn(t, axis=(0, -2))


def test_allclose_array_equal():
    a = np.array([1.0, 2.0, np.nan, np.inf])
    b = a * (1 + 1e-7)
    for x, y in [(a, b), (a, a), (a[:2], b[:2]), (a, a + 1)]:
        for en in (False, True):
            assert xa.allclose(xa.asarray(x), xa.asarray(y), equal_nan=en) == \
                np.allclose(x, y, equal_nan=en)
            assert xa.array_equal(xa.asarray(x), xa.asarray(y), equal_nan=en) == \
                np.array_equal(x, y, equal_nan=en)
    assert xa.allclose(xa.asarray(a[:2]), 1.5, atol=0.6) == np.allclose(a[:2], 1.5, atol=0.6)
    assert xa.array_equal(xa.ones((2, 3)), xa.ones((3, 2))) is False
    assert xa.array_equal(xa.ones((2, 3), xa.int8), xa.ones((2, 3), xa.float32)) is True
    assert isinstance(xa.allclose(xa.ones(2), xa.ones(2)), bool)


@given(shape=shapes, dt=dtypes, how=layouts, data=st.data())
def test_np_cumsum_cumprod(shape, dt, how, data):
    x = values(shape, dt, 20, specials=0.05)
    t = make_tensor(x, how)
    n = len(shape)
    axis = data.draw(st.none() | st.integers(-n, n - 1)) if n else None
    dtype = data.draw(st.sampled_from([None, xa.int64, xa.float64])) \
        if kind(dt) in "biu" else None
    for fn, np_fn in ((xa.cumsum, np.cumsum), (xa.cumprod, np.cumprod)):
        got = three_ways(lambda a: fn(a, axis=axis, dtype=dtype), t)
        with np.errstate(all="ignore"):
            if np.dtype(dt) in (np.dtype(np.float16), BF16):
                assert got.dtype == dt
                continue
            want = np_fn(x, axis=axis, dtype=dtype)
        assert_same(got, want)


# ------------------------------------------------------------------------ jit / lazy / kInput
def test_reductions_in_one_graph():
    rng = np.random.default_rng(21)
    x = rng.standard_normal((30, 17)).astype(np.float64)
    t = xa.asarray(x, layout=(0, 1))

    def f(a):
        m = xa.mean(a, axis=0, keepdims=True)
        return xa.sum((a - m) * (a - m), axis=0), xa.max(a, axis=1), xa.argmin(a, axis=0), \
            xa.cumsum(a, axis=1)[:, -1]

    got = three_ways(f, t)
    np.testing.assert_allclose(got[0], ((x - x.mean(0)) ** 2).sum(0), rtol=1e-12)
    assert_same(got[1], x.max(1))
    assert_same(got[2], x.argmin(0))
    assert_same(got[3], np.cumsum(x, 1)[:, -1])


def _sum_exp(x):
    return xa.sum(xa.exp(x) * 2)


@pytest.mark.parametrize("shape", [(1000,), (64, 33), (5, 0), (1,)], ids=str)
@pytest.mark.parametrize("dt", [xa.float32, xa.float64])
def test_kinput_fusion_one_kernel(shape, dt):
    rng = np.random.default_rng(22)
    x = rng.uniform(-2, 2, shape).astype(dt)
    t = xa.asarray(x)
    f = xa.jit(_sum_exp)
    compiled = f.lower(t).compile()
    assert compiled.kernel_count == 1
    assert "kind=kInput" in compiled.as_text()
    got = to_np(f(t))
    want = to_np(_sum_exp(t))
    assert got.dtype == want.dtype and got.shape == ()
    ref = np.sum(np.exp(x.astype(np.float64)) * 2)
    _close_to(got, ref, ref, x.size, dt, c=8)
    _close_to(want, ref, ref, x.size, dt, c=8)
    with xa.lazy():
        y = _sum_exp(t)
    _close_to(xa.eval(y), ref, ref, x.size, dt, c=8)


@pytest.mark.parametrize("how", ["colmajor", "negstep", "tiled"])
def test_kinput_axis_reductions(how):
    rng = np.random.default_rng(23)
    x = rng.uniform(-1, 1, (37, 41)).astype(np.float32)
    t = make_tensor(x, how)
    for fn, np_fn in ((lambda a: xa.sum(a * a + 1, axis=0), lambda v: np.sum(v * v + 1, 0)),
                      (lambda a: xa.max(xa.abs(a) - 0.5, axis=1),
                       lambda v: np.max(np.abs(v) - 0.5, 1)),
                      (lambda a: xa.sum(xa.exp(a), axis=(0, 1)), lambda v: np.sum(np.exp(v)))):
        f = xa.jit(fn)
        assert f.lower(t).compile().kernel_count == 1
        got, eager = to_np(f(t)), to_np(fn(t))
        ref = np_fn(x.astype(np.float64))
        _close_to(got, ref, np.abs(ref) + 41, 41, np.float32, c=8)
        _close_to(eager, ref, np.abs(ref) + 41, 41, np.float32, c=8)


def test_threads_do_not_change_results(restore_threads):
    rng = np.random.default_rng(24)
    x = xa.asarray(rng.standard_normal((300, 501)).astype(np.float32))
    res = []
    for n in (1, 2):
        xa.set_num_threads(n)
        res.append([to_np(xa.sum(x)).copy(), to_np(xa.sum(x, axis=0)).copy(),
                    to_np(xa.var(x, axis=1)).copy()])
    for a, b in zip(*res):
        assert_same(a, b)


def test_initial_and_init_values_must_fit_the_dtype():
    """NumPy: an out-of-range Python int initial raises OverflowError, a NumPy scalar or a
    float initial is cast. lax (no implicit conversion): out of range -> OverflowError, a
    float for an integer operand -> TypeError. Each error names the op."""
    n = np.array([1, 2, 3], np.int8)
    x = xa.asarray(n)
    with pytest.raises(OverflowError, match="xa.max.*300"):
        xa.max(x, initial=300)
    with pytest.raises(OverflowError, match="xa.min.*128"):
        xa.min(x, initial=128)
    assert_same(xa.max(x, initial=np.int64(5)), np.max(n, initial=np.int64(5)))
    assert_same(xa.max(x, initial=1.5), np.max(n, initial=1.5))
    assert_same(xa.max(x, initial=7), np.max(n, initial=7))
    with pytest.raises(OverflowError, match="lax.reduce"):
        xa.lax.reduce(x, 300, "max", (0,))
    with pytest.raises(OverflowError, match="lax.reduce"):
        xa.lax.reduce(x, 2**70, "max", (0,))
    with pytest.raises(TypeError, match="lax.reduce"):
        xa.lax.reduce(x, 1.5, "add", (0,))
    with pytest.raises(OverflowError, match="lax.pad"):
        xa.lax.pad(x, 300, [(1, 0, 0)])
    f = xa.jit(lambda v: xa.max(v, initial=100))
    assert_same(f(x), np.max(n, initial=100))


@pytest.mark.parametrize("fn", ["sum", "prod", "max", "min", "any", "all", "mean", "var"])
def test_where_must_broadcast_to_the_operand(fn):
    """A mask larger than x would broadcast x itself (NumPy raises)."""
    x = xa.asarray([1.0, 2.0, 3.0])
    mask = xa.asarray([[True, True, True], [True, False, True]])
    kw = {"initial": 0.0} if fn in ("max", "min") else {}
    with pytest.raises(ValueError, match=f"xa.{fn}"):
        getattr(xa, fn)(x, axis=0, where=mask, **kw)
    with pytest.raises(ValueError, match=f"xa.{fn}"):
        getattr(xa, fn)(xa.asarray(1.0), where=xa.asarray([True, False]), **kw)
    ok = getattr(xa, fn)(x, axis=0, where=xa.asarray([True, False, True]), **kw)
    want = getattr(np, fn)(np.array([1.0, 2.0, 3.0]), axis=0,
                           where=np.array([True, False, True]), **kw)
    np.testing.assert_allclose(np.asarray(ok), want)
