"""Issue 14's everyday NumPy functions that are not elementwise or reductions over one
array (those are fuzzed in tests/fuzz_everyday.py): creation helpers, iterators, index
helpers, and the bad arguments NumPy refuses."""

import numpy as np
import pytest

import xarr as xa
from conftest import BF16, assert_same


def test_spaces():
    np.testing.assert_allclose(np.asarray(xa.logspace(0, 3, 7)), np.logspace(0, 3, 7),
                               rtol=1e-13)
    np.testing.assert_allclose(np.asarray(xa.logspace(1, 2, 5, base=2.0, endpoint=False)),
                               np.logspace(1, 2, 5, base=2.0, endpoint=False), rtol=1e-13)
    for start, stop, num, endpoint in ((1, 1000, 4, True), (2, 3.5, 9, False),
                                       (-1, -1e5, 6, True), (5, 5, 1, True)):
        got = np.asarray(xa.geomspace(start, stop, num, endpoint=endpoint))
        want = np.geomspace(start, stop, num, endpoint=endpoint)
        np.testing.assert_allclose(got, want, rtol=1e-13)
        assert got[0] == want[0]
        if endpoint:
            assert got[-1] == want[-1]             # exact endpoints, as NumPy
    with pytest.raises(ValueError, match="zero"):
        xa.geomspace(0, 10)
    assert xa.logspace(0, 1, 3, dtype=np.float32).dtype == np.float32


def test_iterators_and_index_helpers():
    assert list(xa.ndindex(2, 3)) == list(np.ndindex(2, 3))
    assert list(xa.ndindex((2, 0))) == list(np.ndindex((2, 0)))
    assert list(xa.ndindex()) == list(np.ndindex())
    a = np.arange(6.0).reshape(2, 3)
    got = list(xa.ndenumerate(xa.asarray(a)))
    assert got == list(np.ndenumerate(a))
    with pytest.raises(ValueError):
        xa.ndindex(-1)
    ix = xa.ix_([0, 1], np.array([True, False, True]))
    want = np.ix_([0, 1], np.array([True, False, True]))
    for g, w in zip(ix, want):
        assert_same(g, w)
    m = xa.asarray(np.arange(12).reshape(3, 4))
    assert_same(m[xa.ix_([0, 2], [1, 3])], np.arange(12).reshape(3, 4)[np.ix_([0, 2], [1, 3])])
    with pytest.raises(ValueError, match="1-dimensional"):
        xa.ix_([[0, 1]])


def test_fromfunction_and_atleast():
    got = xa.fromfunction(lambda i, j: i * 10 + j, (3, 4))
    assert_same(got, np.fromfunction(lambda i, j: i * 10 + j, (3, 4)))
    got = xa.fromfunction(lambda i: i, (5,), dtype=np.int32)
    assert_same(got, np.fromfunction(lambda i: i, (5,), dtype=np.int32))
    parts = xa.atleast_2d(1.0, [1, 2], np.ones((2, 2)))
    for g, w in zip(parts, np.atleast_2d(1.0, [1, 2], np.ones((2, 2)))):
        assert_same(g, w)


def test_bad_arguments_raise_as_numpy():
    with pytest.raises(ValueError, match="1-d or 2-d"):
        xa.diag(xa.ones((2, 2, 2)))
    a = xa.asarray(np.arange(6.0).reshape(2, 3))
    with pytest.raises(TypeError, match="axis must be specified"):
        xa.average(a, weights=[1, 2, 3])
    with pytest.raises(ValueError, match="consistent"):
        xa.average(a, axis=1, weights=[1, 2])
    with pytest.raises(ZeroDivisionError):
        xa.average(a, axis=1, weights=[1, -1, 0])
    with pytest.raises(ValueError, match="too small"):
        xa.gradient(xa.asarray([1.0, 2.0]), edge_order=2)
    with pytest.raises(ValueError, match="All-NaN"):
        xa.nanargmax(xa.asarray([[np.nan, np.nan], [1.0, 2.0]]), axis=1)
    with pytest.raises(ValueError):
        xa.nanmax(xa.zeros((0,)))


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_coordinate_arrays(edge_order):
    """Non-uniform coordinates per axis (NumPy's formulas), mixed with scalar spacings,
    integer coordinates, uniform coordinates (NumPy's uniform path), under jit too."""
    rng = np.random.default_rng(3)
    f = rng.standard_normal((5, 7))
    x = np.cumsum(rng.random(7) + 0.1)
    y = np.arange(5) * 3                                      # integers, uniform
    for args in [(y, x), (1.5, x), (y, 2.0), (np.linspace(0, 1, 5), x[::-1].copy())]:
        got = xa.gradient(xa.asarray(f), *[xa.asarray(a) if np.ndim(a) else a for a in args],
                          edge_order=edge_order)
        want = np.gradient(f, *args, edge_order=edge_order)
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12, atol=1e-12)
    # uniform spacings in NumPy's arithmetic, bit for bit: a Python float stays weak
    # (float32 data stays float32), a NumPy scalar keeps its dtype
    f32 = f.astype(np.float32)
    for args in [(), (0.1,), (np.float32(0.1),), (np.float64(0.3), 2)]:
        got = xa.gradient(xa.asarray(f32), *args, edge_order=edge_order)
        for g, w in zip(got, np.gradient(f32, *args, edge_order=edge_order)):
            assert_same(g, w)
    got = xa.gradient(xa.asarray(f32), x, axis=1, edge_order=edge_order)
    want = np.gradient(f32, x, axis=1, edge_order=edge_order)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
    jitted = xa.jit(lambda v, c: xa.gradient(v, c, axis=1, edge_order=edge_order))
    np.testing.assert_allclose(np.asarray(jitted(xa.asarray(f), xa.asarray(x))),
                               np.gradient(f, x, axis=1, edge_order=edge_order), rtol=1e-12)
    with pytest.raises(ValueError, match="scalars or 1d"):
        xa.gradient(xa.asarray(f), np.ones((2, 2)), axis=1)
    with pytest.raises(ValueError, match="match the length"):
        xa.gradient(xa.asarray(f), np.ones(3), axis=1)
    with pytest.raises(TypeError, match="invalid number of arguments"):
        xa.gradient(xa.asarray(f), 1.0, 2.0, 3.0)


def test_float_bit_functions_edges():
    """frexp / ldexp / spacing at the float range's ends, bit for bit against NumPy (the
    fuzz specs draw random values; these are the cases a random draw rarely hits)."""
    for dt in (np.float16, np.float32, np.float64):
        fi = np.finfo(dt)
        x = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, fi.max, fi.min,
                      fi.tiny, -fi.tiny, fi.smallest_subnormal, -fi.smallest_subnormal,
                      fi.tiny / 3], dtype=dt)
        m, e = xa.frexp(xa.asarray(x))
        wm, we = np.frexp(x)
        assert_same(m, wm)
        assert_same(e, we)
        with np.errstate(all="ignore"):
            assert_same(xa.spacing(xa.asarray(x)), np.spacing(x))
            for n in (0, 1, -1, 300, -300, 1100, -1074, -1075, -1076, 2**40, -2**40):
                nn = np.full(x.shape, n, np.int64)
                assert_same(xa.ldexp(xa.asarray(x), xa.asarray(nn)), np.ldexp(x, nn))
    with pytest.raises(TypeError, match="integer"):
        xa.ldexp(xa.asarray([1.0]), 2.0)
    with pytest.raises(TypeError, match="int64"):
        xa.ldexp(xa.asarray([1.0]), xa.asarray(np.array([1], np.uint64)))
    bf = np.array([0.75, -3.0, 1e-40, 0.0], dtype=BF16)            # bfloat16's fields
    m, e = xa.frexp(xa.asarray(bf))
    wm, we = np.frexp(bf.astype(np.float32))
    assert_same(m, wm.astype(BF16))
    assert_same(e, we)
    # complex reciprocal: NumPy's loop, the signs of its zeros included
    sp = [0.0, -0.0, 1.0, -2.0, np.inf, -np.inf, np.nan, 1e-300, 3e300]
    z = np.array([complex(a, b) for a in sp for b in sp])
    with np.errstate(all="ignore"):
        assert_same(xa.reciprocal(xa.asarray(z)), np.reciprocal(z))
        assert_same(xa.reciprocal(xa.asarray(z.astype(np.complex64))),
                    np.reciprocal(z.astype(np.complex64)))
    with pytest.raises(TypeError, match="frexp"):
        xa.frexp(xa.asarray([1 + 1j]))


def test_average_weights_and_returned():
    a = np.arange(24.0).reshape(2, 3, 4)
    w = np.arange(1.0, 4.0)
    for kw in ({"axis": 1, "weights": w}, {"axis": None}, {"axis": (0, 2)},
               {"axis": 1, "weights": w, "keepdims": True}):
        np.testing.assert_allclose(np.asarray(xa.average(xa.asarray(a), **kw)),
                                   np.average(a, **kw), rtol=1e-13)
    avg, scl = xa.average(xa.asarray(a), axis=1, weights=w, returned=True)
    wavg, wscl = np.average(a, axis=1, weights=w, returned=True)
    np.testing.assert_allclose(np.asarray(avg), wavg, rtol=1e-13)
    np.testing.assert_allclose(np.asarray(scl), wscl)
    ints = np.arange(6).reshape(2, 3)
    assert xa.average(xa.asarray(ints), axis=0).dtype == np.average(ints, axis=0).dtype


def test_under_jit_and_lazy():
    a = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, np.nan]])
    t = xa.asarray(a)

    def f(x):
        return xa.nanmean(x, axis=1) + xa.fmax(x, 2.0).sum(axis=1) + xa.sinc(x[:, 0]) + \
            xa.nan_to_num(x).sum(axis=1)
    with np.errstate(invalid="ignore"):
        want = np.nanmean(a, axis=1) + np.fmax(a, 2.0).sum(axis=1) + np.sinc(a[:, 0]) + \
            np.nan_to_num(a).sum(axis=1)
    np.testing.assert_allclose(np.asarray(xa.jit(f)(t)), want, rtol=1e-13)
    with xa.lazy():
        r = f(t)
    np.testing.assert_allclose(np.asarray(r), want, rtol=1e-13)


def test_nan_to_num_in_place_and_complex():
    a = np.array([np.nan, np.inf, -np.inf, -0.0], np.float32)
    t = xa.asarray(a)
    r = xa.nan_to_num(t, copy=False, nan=-1.0, posinf=9.0)
    assert r is t
    assert_same(t, np.nan_to_num(a, nan=-1.0, posinf=9.0))
    c = np.array([complex(np.nan, -0.0), complex(-np.inf, np.inf)], np.complex64)
    assert_same(xa.nan_to_num(xa.asarray(c)), np.nan_to_num(c))


def test_dtype_and_special_value_rules():
    x = np.full(70000, 0.5, np.float16)
    x[0] = np.nan                          # a float16 count beyond 65504 must not overflow
    assert xa.nanmean(xa.asarray(x)).item() == np.nanmean(x)
    y = np.tile(np.array([0, 1], np.float16), 35000)
    y[0] = np.nan
    assert xa.nanvar(xa.asarray(y)).item() == np.nanvar(y)
    assert xa.average(xa.asarray([1.0, np.inf]), weights=[1, 1]).item() == np.inf
    avg, n = xa.average(xa.asarray([1.0, np.inf]), returned=True)
    assert n.item() == 2.0
    i8 = np.array([1, 2], np.int8)
    assert_same(xa.sinc(xa.asarray(i8)), np.sinc(i8))
    assert_same(xa.unwrap(xa.asarray(i8)), np.unwrap(i8))
    assert_same(xa.heaviside(xa.asarray(i8), xa.asarray(i8)), np.heaviside(i8, i8))
    assert xa.average(xa.asarray(i8), weights=np.ones(2, np.float32)).dtype == np.float64
