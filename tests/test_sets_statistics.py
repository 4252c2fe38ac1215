"""Issue 16's NumPy frontend on the sort / gather / scatter kernels: the set functions
(xarr/_numpy/sets.py), the order statistics and counting (xarr/_numpy/statistics.py) and
JAX's ``.at[]`` (xarr/_ops/at.py), against NumPy (and jax's documented semantics for
``.at``) over dtypes, shapes with size-0 / size-1 dims, NaNs and duplicates; jit and lazy
where the shape does not depend on the data; the bad arguments."""

import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import xarr as xa
from conftest import assert_same, make_tensor, random_array

METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "hazen", "weibull",
           "median_unbiased", "normal_unbiased", "inverted_cdf", "averaged_inverted_cdf",
           "closest_observation", "interpolated_inverted_cdf"]


def _dups(rng, shape, dt):
    a = random_array(rng, shape, dt)
    if a.size:
        a = rng.choice(a.reshape(-1)[: max(1, a.size // 3)], a.size).reshape(shape)
    return a


# ------------------------------------------------------------------------ sets
@given(st.sampled_from([np.int32, np.float32, np.float64, np.int8, np.uint16, np.bool_,
                        np.complex64]),
       st.lists(st.sampled_from([0, 1, 2, 5, 30]), min_size=1, max_size=3),
       st.integers(0, 2**16))
def test_unique_against_numpy(dt, shape, seed):
    a = _dups(np.random.default_rng(seed), tuple(shape), dt)
    t = xa.asarray(a)
    got = xa.unique(t, True, True, True)
    want = np.unique(a, True, True, True)
    for g, w in zip(got, want):
        assert_same(g, w, zero_sign=False)
    assert_same(xa.unique(t), np.unique(a), zero_sign=False)
    assert_same(xa.unique(t, equal_nan=False), np.unique(a, equal_nan=False),
                zero_sign=False)
    if a.ndim == 2 and dt != np.complex64:
        for g, w in zip(xa.unique(t, axis=0, return_index=True, return_counts=True),
                        np.unique(a, axis=0, return_index=True, return_counts=True)):
            assert_same(g, w, zero_sign=False)


def test_array_api_unique_and_set_ops():
    a = np.array([3, 1, 3, 7, 1, 1], np.int64)
    t = xa.asarray(a)
    for g, w in zip(xa.unique_all(t), np.unique_all(a)):
        assert_same(g, w)
    for g, w in zip(xa.unique_counts(t), np.unique_counts(a)):
        assert_same(g, w)
    for g, w in zip(xa.unique_inverse(t), np.unique_inverse(a)):
        assert_same(g, w)
    assert_same(xa.unique_values(t), np.sort(np.unique_values(a)))   # (order unspecified)
    b = np.array([7, 2, 3, 3])
    assert_same(xa.isin(t, b), np.isin(a, b))
    assert_same(xa.isin(t, b, invert=True), np.isin(a, b, invert=True))
    assert_same(xa.isin(xa.asarray([1.0, np.nan, 2.0]), [np.nan, 2]),
                np.isin([1.0, np.nan, 2.0], [np.nan, 2]))
    assert_same(xa.isin(t, np.array([], np.int64)), np.isin(a, np.array([], np.int64)))
    for g, w in zip(xa.intersect1d(t, b, return_indices=True),
                    np.intersect1d(a, b, return_indices=True)):
        assert_same(g, w)
    assert_same(xa.union1d(t, b), np.union1d(a, b))
    assert_same(xa.setdiff1d(t, b), np.setdiff1d(a, b))
    jit_isin = xa.jit(lambda e, s: xa.isin(e, s))
    assert_same(jit_isin(t, xa.asarray(b)), np.isin(a, b))
    with pytest.raises(TypeError, match="xa.unique: the result's shape depends on the"):
        xa.jit(lambda v: xa.unique(v))(t)
    assert_same(xa.jit(lambda v: xa.unique(v, size=5, fill_value=-1))(t),
                np.array([1, 3, 7, -1, -1]))


@given(st.sampled_from([np.int64, np.float64, np.uint8]),
       st.lists(st.sampled_from([0, 1, 2, 5, 9]), min_size=1, max_size=2),
       st.integers(1, 12), st.integers(0, 2**16), st.booleans(), st.booleans())
def test_unique_sized_against_numpy_cut_and_padded(dt, shape, size, seed, fill, jit):
    """unique(size=) with return_index / inverse / counts, eager and under jit, as jax:
    NumPy's results cut to ``size`` or padded (values with fill_value or the smallest,
    indices with the smallest's, counts with 0); the inverse keeps every run number."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 6, tuple(shape)).astype(dt)
    if np.dtype(dt).kind == "f" and a.size > 2:
        a.flat[[0, 2]] = np.nan
    fill_value = 99 if fill else None

    def run(v):
        return xa.unique(v, True, True, True, size=size, fill_value=fill_value)

    got = (xa.jit(run) if jit else run)(xa.asarray(a))
    if a.size == 0:
        assert [tuple(g.shape) for g in got] == [(size,), (size,), a.shape, (size,)]
        return
    u, i, inv, c = np.unique(a, True, True, True)
    k = min(size, u.size)
    pad = size - k
    assert_same(got[0], np.concatenate([u[:k], np.full(pad, u[0] if fill_value is None
                                                       else fill_value, dt)]))
    assert_same(got[1], np.concatenate([i[:k], np.full(pad, i[0])]).astype(np.int64))
    assert_same(got[2], inv.reshape(a.shape).astype(np.int64))
    assert_same(got[3], np.concatenate([c[:k], np.zeros(pad, np.int64)]).astype(np.int64))


# ------------------------------------------------------------------------ statistics
@given(st.sampled_from([np.float64, np.int16, np.int64, np.uint8]),
       st.lists(st.sampled_from([1, 2, 3, 6]), min_size=1, max_size=3),
       st.sampled_from(METHODS), st.integers(0, 2**16), st.booleans(),
       st.sampled_from(["c", "colmajor", "transposed"]))
def test_quantile_methods_bits_against_numpy(dt, shape, method, seed, keepdims, how):
    """float64 and integer inputs: NumPy's bits for every method, axis and q shape."""
    rng = np.random.default_rng(seed)
    a = random_array(rng, tuple(shape), dt, specials=0.0)
    t = make_tensor(a, how)
    for axis in [None] + list(range(a.ndim)):
        for q in (0.3, [0.0, 0.25, 0.5, 1.0]):
            want = np.quantile(a, q, axis=axis, method=method, keepdims=keepdims)
            assert_same(xa.quantile(t, q, axis=axis, method=method, keepdims=keepdims),
                        want)
        assert_same(xa.percentile(t, [10, 90], axis=axis, method=method),
                    np.percentile(a, [10, 90], axis=axis, method=method))


@pytest.mark.parametrize("dt", [np.float16, np.float32])
def test_quantile_narrow_floats(dt):
    """float16 / float32: NumPy's dtype and bits (a Python q is weak: a float64 virtual
    index, the interpolation in the narrow dtype; an array q promotes to float64)."""
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((7, 1001)) * 10).astype(dt)
    for method in METHODS:
        for q in (0.3, 0.9, [0.1, 0.5, 0.9]):
            assert_same(xa.quantile(xa.asarray(a), q, axis=1, method=method),
                        np.quantile(a, q, axis=1, method=method))


@given(st.sampled_from([np.float64, np.float32, np.float16, np.int8, np.uint32]),
       st.lists(st.sampled_from([0, 1, 2, 5, 8]), min_size=1, max_size=3),
       st.integers(0, 2**16), st.booleans())
def test_median_and_nanmedian_bits(dt, shape, seed, keepdims):
    a = random_array(np.random.default_rng(seed), tuple(shape), dt)
    t = xa.asarray(a)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for axis in [None] + list(range(a.ndim)):
            if a.size == 0 and axis is None:
                continue
            if axis is not None and a.shape[axis] == 0:
                continue
            assert_same(xa.median(t, axis=axis, keepdims=keepdims),
                        np.median(a, axis=axis, keepdims=keepdims), zero_sign=False)
            if np.dtype(dt).kind == "f":      # (a zero's sign: NumPy's masked sums differ)
                assert_same(xa.nanmedian(t, axis=axis, keepdims=keepdims),
                            np.nanmedian(a, axis=axis, keepdims=keepdims), zero_sign=False)


@given(st.sampled_from([np.float64, np.float32, np.int32]),
       st.lists(st.sampled_from([1, 2, 3, 6]), min_size=1, max_size=3),
       st.integers(0, 2**16), st.booleans())
def test_weighted_inverted_cdf_against_numpy(dt, shape, seed, whole_shape):
    """quantile / percentile weights= (method 'inverted_cdf' only, as NumPy): weights of
    a's shape, or of its shape along a tuple of axes; zero weights (a leading zero is
    skipped), ties, NaN slices, and q as a float64 or float32 array."""
    rng = np.random.default_rng(seed)
    a = random_array(rng, tuple(shape), dt, specials=0.0)
    if np.dtype(dt).kind == "f" and a.size > 2:
        a.flat[1] = np.nan
    axes = [None] + list(range(a.ndim)) + ([(a.ndim - 1, 0)] if a.ndim > 1 else [])
    for axis in axes:
        if whole_shape or axis is None:
            w = rng.integers(0, 3, a.shape).astype(np.float64)
        else:
            along = (axis,) if isinstance(axis, int) else axis
            w = rng.integers(0, 3, tuple(a.shape[d] for d in along)).astype(np.float64)
        w.flat[0] = 0.0
        if not np.all(np.sum(w.reshape(-1) if w.shape != a.shape else w) > 0):
            w.flat[-1] = 1.0
        try:
            with np.errstate(all="ignore"):
                want = np.quantile(a, 0.3, axis=axis, method="inverted_cdf", weights=w)
        except ValueError:          # (a slice whose weights are all zero)
            with pytest.raises(ValueError, match="all zero"):
                xa.quantile(xa.asarray(a), 0.3, axis=axis, method="inverted_cdf",
                            weights=xa.asarray(w))
            continue
        assert_same(xa.quantile(xa.asarray(a), 0.3, axis=axis, method="inverted_cdf",
                                weights=xa.asarray(w)), want)
        for q in (np.array([0.0, 0.5, 1.0]), np.array([0.1, 0.4], np.float32)):
            assert_same(xa.quantile(xa.asarray(a), q, axis=axis, method="inverted_cdf",
                                    weights=w),
                        np.quantile(a, q, axis=axis, method="inverted_cdf", weights=w))
        assert_same(xa.percentile(xa.asarray(a), [20, 80], axis=axis,
                                  method="inverted_cdf", weights=w),
                    np.percentile(a, [20, 80], axis=axis, method="inverted_cdf",
                                  weights=w))


def test_weighted_quantile_errors_and_jit():
    a = np.arange(12.0).reshape(3, 4)
    t = xa.asarray(a)
    with pytest.raises(ValueError, match="only method 'inverted_cdf' supports weights"):
        xa.quantile(t, 0.5, weights=np.ones((3, 4)))
    with pytest.raises(TypeError, match="axis must be given"):
        xa.quantile(t, 0.5, method="inverted_cdf", weights=np.ones(4))
    with pytest.raises(ValueError, match=r"weights of shape \(3,\) must have a's shape"):
        xa.quantile(t, 0.5, axis=1, method="inverted_cdf", weights=np.ones(3))
    with pytest.raises(ValueError, match="non-negative"):
        xa.quantile(t, 0.5, axis=1, method="inverted_cdf", weights=-np.ones(4))
    with pytest.raises(ValueError, match="NaN or inf, or were all zero"):
        xa.quantile(t, 0.5, axis=1, method="inverted_cdf", weights=np.zeros(4))
    w = np.array([0.0, 1.0, 3.0, 1.0])
    f = xa.jit(lambda v, ww: xa.quantile(v, [0.2, 0.6], axis=1, method="inverted_cdf",
                                         weights=ww))
    assert_same(f(t, xa.asarray(w)),
                np.quantile(a, [0.2, 0.6], axis=1, method="inverted_cdf", weights=w))


def test_statistics_under_jit_and_lazy():
    a = np.random.default_rng(2).standard_normal((6, 9))
    a[2, 3] = np.nan
    t = xa.asarray(a)
    f = xa.jit(lambda v: (xa.median(v, axis=1), xa.quantile(v, [0.2, 0.7], axis=0),
                          xa.nanmedian(v, axis=1)))
    got = f(t)
    assert_same(got[0], np.median(a, axis=1))
    assert_same(got[1], np.quantile(a, [0.2, 0.7], axis=0))
    assert_same(got[2], np.nanmedian(a, axis=1))
    with xa.lazy():
        m = xa.percentile(t + 0, 75, axis=0)
    assert_same(xa.eval(m), np.percentile(a, 75, axis=0))


def test_counting_against_numpy():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 50, 10_000)
    w = rng.standard_normal(10_000)
    assert_same(xa.bincount(xa.asarray(x)), np.bincount(x))
    assert_same(xa.bincount(xa.asarray(x), minlength=80), np.bincount(x, minlength=80))
    np.testing.assert_allclose(np.asarray(xa.bincount(xa.asarray(x), xa.asarray(w))),
                               np.bincount(x, w), rtol=1e-12, atol=1e-12)
    assert_same(xa.bincount(xa.asarray(np.array([], np.int64))), np.bincount([]))
    b = rng.standard_normal(5000) * 3
    for bins in (10, 37, [-2.0, -0.5, 0.0, 1.0, 4.0], "auto"):
        for rng_ in (None, (-1.0, 2.0)):
            if isinstance(bins, list) and rng_ is not None:
                continue
            got = xa.histogram(xa.asarray(b), bins, rng_)
            want = np.histogram(b, bins, rng_)
            assert_same(got[0], want[0])
            assert_same(got[1], want[1])
    d = xa.histogram(xa.asarray(b), 20, density=True)
    np.testing.assert_allclose(np.asarray(d[0]), np.histogram(b, 20, density=True)[0],
                               rtol=1e-12)
    c = rng.standard_normal(5000)
    for g, want in zip(xa.histogram2d(xa.asarray(b), xa.asarray(c), (7, 5)),
                       np.histogram2d(b, c, (7, 5))):
        assert_same(g, want)
    edges = np.array([-1.0, 0.0, 0.5, 3.0])
    for right in (False, True):
        assert_same(xa.digitize(xa.asarray(b), edges, right),
                    np.digitize(b, edges, right))
        assert_same(xa.digitize(xa.asarray(b), edges[::-1], right),
                    np.digitize(b, edges[::-1], right))
    with pytest.raises(ValueError, match="must not hold negative"):
        xa.bincount(xa.asarray([1, -1]))
    with pytest.raises(ValueError, match="monotonically"):
        xa.digitize(xa.asarray([1.0]), [0.0, 2.0, 1.0])
    with pytest.raises(ValueError, match="'bogus' is not a valid method"):
        xa.quantile(xa.asarray([1.0]), 0.5, method="bogus")
    with pytest.raises(ValueError, match="range \\[0, 1\\]"):
        xa.quantile(xa.asarray([1.0]), 1.5)
    with pytest.raises(ValueError, match="range \\[0, 100\\]"):
        xa.percentile(xa.asarray([1.0]), -1)


# ------------------------------------------------------------------------ .at[]
def test_at_updates_as_jax():
    x = np.arange(12.0).reshape(3, 4)
    t = xa.asarray(x)
    idx = np.array([0, 2, 0])
    want = x.copy()
    np.add.at(want, (idx,), 1.0)
    assert_same(t.at[xa.asarray(idx)].add(1.0), want)
    want = x.copy()
    want[idx] = 5.0
    assert_same(t.at[idx].set(5.0), want)
    want = x.copy()
    np.multiply.at(want, (slice(None), [1, 1]), 3.0)
    assert_same(t.at[:, [1, 1]].multiply(3.0), want)
    want = x.copy()
    np.minimum.at(want, (x > 6,), 7.0)
    assert_same(t.at[t > 6].min(7.0), want)
    want = x.copy()
    np.maximum.at(want, (1, slice(1, 3)), 5.5)
    assert_same(t.at[1, 1:3].max(5.5), want)
    want = x.copy()
    want[..., -1] -= 2
    assert_same(t.at[..., -1].subtract(2.0), want)
    assert_same(t.at[0].divide(2.0), np.concatenate([x[:1] / 2, x[1:]]))
    assert_same(t.at[2, 3].power(2.0), np.where(np.arange(12).reshape(3, 4) == 11, 121.0,
                                                x))
    assert_same(t.at[0, 0].apply(lambda v: v + 100), np.where(x == 0, 100.0, x))
    assert_same(t.at[xa.asarray([2, 0])].get(), x[[2, 0]])
    assert_same(t, x)                                   # t itself never changes
    # modes: drop / fill skip out-of-range indices, clip clamps them
    assert_same(t.at[xa.asarray([1, 9])].set(-1.0, mode="drop"),
                np.where(np.arange(3)[:, None] == 1, -1.0, x))
    assert_same(t.at[xa.asarray([1, 9])].set(-1.0, mode="clip"),
                np.where(np.arange(3)[:, None] >= 1, -1.0, x))
    assert_same(t.at[:, xa.asarray([0, 7])].get(mode="fill"),
                np.stack([x[:, 0], np.full(3, np.nan)], axis=1))
    assert_same(t.at[xa.asarray([0, 7])].get(mode="fill", fill_value=-5.0),
                np.stack([x[0], np.full(4, -5.0)]))
    with pytest.raises(IndexError):
        t.at[xa.asarray([9])].set(0.0)
    with pytest.raises(ValueError, match="unknown mode 'wrap'"):
        t.at[0].set(0.0, mode="wrap")


def test_at_under_jit_and_lazy():
    f = xa.jit(lambda a, i, v: a.at[i].add(v).at[0].set(-1.0))
    got = f(xa.zeros(5), xa.asarray([1, 1, 3]), xa.asarray([1.0, 2.0, 3.0]))
    assert_same(got, np.array([-1.0, 3.0, 0.0, 3.0, 0.0]))
    with xa.lazy():
        y = xa.zeros(4).at[xa.asarray([2, 2])].add(1.5)
    assert_same(xa.eval(y), np.array([0.0, 0.0, 3.0, 0.0]))


# ------------------------------------------------------------------------ index helpers
@given(st.sampled_from([np.float32, np.int64, np.complex64]),
       st.sampled_from(["c", "colmajor", "transposed"]), st.integers(0, 2**16))
def test_index_helpers_against_numpy(dt, how, seed):
    rng = np.random.default_rng(seed)
    a = random_array(rng, (4, 5), dt)
    for mode in ("raise", "wrap", "clip"):
        ind = rng.integers(-4 if mode == "raise" else -30, 20 if mode == "raise" else 30, 6)
        vals = random_array(rng, (3,), dt)
        t, want = make_tensor(a, how), a.copy()
        xa.put(t, ind, vals, mode=mode)
        np.put(want, ind, vals, mode=mode)
        assert_same(t, want)
    ind = rng.integers(0, 5, (4, 2))
    t, want = make_tensor(a, how), a.copy()
    xa.put_along_axis(t, ind, a[:, :1], axis=1)
    np.put_along_axis(want, ind, a[:, :1], axis=1)
    assert_same(t, want)
    cond = rng.random(5) < 0.5
    assert_same(xa.compress(cond, make_tensor(a, how), axis=1), np.compress(cond, a, axis=1))
    assert_same(xa.compress(cond[:3], make_tensor(a, how)), np.compress(cond[:3], a))
    choice = rng.integers(0, 3, (4, 5))
    opts = [a, a * 2, np.zeros_like(a[:1])]
    assert_same(xa.choose(xa.asarray(choice), opts), np.choose(choice, opts))
    assert_same(xa.choose(xa.asarray(choice + 2), opts, mode="clip"),
                np.choose(choice + 2, opts, mode="clip"))
    with pytest.raises(IndexError, match="out of bounds"):
        xa.put(xa.asarray(a), [99], [1])
    with pytest.raises(ValueError, match="invalid entry"):
        xa.choose(xa.asarray(choice + 5), opts)


def test_review_cases():
    """Cases a review found: .at with a boolean array before an integer under mode='drop';
    isin of int64 against uint64 past 2**53; histogram weights keep their dtype; a NumPy
    scalar q is strong; nanmedian over every axis is the 1-D case; choose keeps Python
    scalars weak; bad axes and conditions raise."""
    x = xa.zeros((2, 3, 4))
    m = xa.asarray(np.array([[1, 0, 1], [0, 1, 0]], bool))
    assert float(x.at[m, 3].set(1.0, mode="drop").sum()) == 3.0
    b = 2**53 + 1
    assert_same(xa.isin(xa.asarray([b]), xa.asarray(np.array([b - 1], np.uint64))),
                np.isin([b], np.array([b - 1], np.uint64)))
    for w in ([1, 2, 3], np.array([1.5, 2, 3], np.float32)):
        got = xa.histogram(xa.asarray([1.0, 2, 10]), 3, weights=xa.asarray(w))[0]
        assert_same(got, np.histogram([1.0, 2, 10], 3, weights=w)[0])
    f32 = np.arange(10, dtype=np.float32)
    assert_same(xa.quantile(xa.asarray(f32), np.float64(0.3)),
                np.quantile(f32, np.float64(0.3)))
    assert_same(xa.percentile(xa.asarray(f32), np.float64(30)),
                np.percentile(f32, np.float64(30)))
    big = np.array([[3e38, np.nan]], np.float32)
    assert_same(xa.nanmedian(xa.asarray(big), axis=(0, 1)), np.nanmedian(big, axis=(0, 1)))
    i8 = np.array([1, 2], np.int8)
    assert_same(xa.choose(xa.asarray([0, 1]), [xa.asarray(i8), 3]), np.choose([0, 1], [i8, 3]))
    with pytest.raises(ValueError, match="axis 3 is out of bounds"):
        xa.put_along_axis(xa.zeros((2, 2)), np.array([[0], [1]]), 1.0, 3)
    with pytest.raises(ValueError, match="1-d"):
        xa.compress(np.ones((2, 2), bool), xa.zeros((2, 2)))
    with pytest.raises(ValueError, match="out of bounds"):
        xa.unique(xa.asarray(3), axis=0)
    assert_same(xa.unique(xa.asarray([3.0, np.nan]), size=4),
                np.array([3.0, np.nan, 3.0, 3.0]))
