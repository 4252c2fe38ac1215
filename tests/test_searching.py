"""The sort family's binary searches (xarr/_ops/sorting.py, csrc/kernels/sort/
searchsorted.h): searchsorted and interp against NumPy on the cases random draws rarely
hit (tests/fuzz_everyday.py draws the rest): NaN keys and elements, signed zeros, 16-bit
floats, empty rows, 0-d keys; one thread against two; eager against jit and lazy; the
graph text; the bad arguments NumPy refuses."""

import ml_dtypes
import numpy as np
import pytest

import xarr as xa
from conftest import assert_same
from xarr._ops.structural import apply

SPECIALS = [-np.inf, -1.5, -0.0, 0.0, 0.0, 1.0, 1.0, 2.5, np.inf, np.nan, np.nan]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, ml_dtypes.bfloat16])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_specials(dtype, side):
    """NaN sorts last and equals NaN; -0.0 equals +0.0 (16-bit floats compare as integers
    inside the kernel: this pins that mapping)."""
    a = np.array(SPECIALS, dtype=dtype)
    keys = np.array([np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf, 1.0, 0.5, -7.0, 9.0],
                    dtype=dtype)
    want = np.searchsorted(a.astype(np.float64), keys.astype(np.float64), side=side)
    assert_same(xa.searchsorted(xa.asarray(a), xa.asarray(keys), side=side), want)


def test_searchsorted_shapes_and_threads(restore_threads):
    rng = np.random.default_rng(5)
    a = np.sort(rng.integers(-1000, 1000, 5000)).astype(np.int32)
    keys = rng.integers(-1100, 1100, (70, 33, 41)).astype(np.int32)
    want = np.searchsorted(a, keys, side="right")
    got = []
    for threads in (1, 2):
        xa.set_num_threads(threads)
        got.append(xa.searchsorted(xa.asarray(a), xa.asarray(keys), side="right"))
        # a transposed (non-contiguous) view of the keys, and a reversed sorted view
        assert_same(xa.searchsorted(xa.asarray(a), xa.asarray(keys.T.copy()).T, "right"),
                    want)
    assert_same(got[0], want)
    assert_same(got[1], want)
    rev = xa.asarray(a[::-1].copy())[::-1]
    assert_same(xa.searchsorted(rev, xa.asarray(keys)), np.searchsorted(a, keys))
    assert_same(xa.searchsorted(xa.asarray(a), xa.asarray(np.int32(7))),
                np.searchsorted(a, np.int32(7)))
    assert_same(xa.searchsorted(xa.asarray(a[:0]), xa.asarray(keys[:2, :3, :4])),
                np.searchsorted(a[:0], keys[:2, :3, :4]))
    assert_same(xa.searchsorted(xa.asarray(a), xa.asarray(keys[:0])),
                np.searchsorted(a, keys[:0]))


def test_searchsorted_promotion_sorter_method_and_dispatch():
    a = np.array([1, 3, 5, 7], np.int8)
    t = xa.asarray(a)
    assert_same(xa.searchsorted(t, 4.5), np.searchsorted(a, 4.5))          # float64
    assert_same(xa.searchsorted(t, [2, 9], side="right"),
                np.searchsorted(a, [2, 9], side="right"))
    assert_same(t.searchsorted(xa.asarray([0, 5])), a.searchsorted(np.array([0, 5])))
    got = np.searchsorted(t, xa.asarray([6]))                  # NEP 18 -> xarr
    assert isinstance(got, xa.Tensor)
    assert_same(got, np.searchsorted(a, [6]))
    f16 = np.array([0.1, 0.5], np.float16)      # a Python scalar key is float64, as NumPy
    assert_same(xa.searchsorted(xa.asarray(f16), 0.1), np.searchsorted(f16, 0.1))
    assert_same(xa.searchsorted(t, 300), np.searchsorted(a, 300))
    shuffled = np.array([5, 1, 7, 3], np.int8)
    order = np.argsort(shuffled)
    assert_same(xa.searchsorted(xa.asarray(shuffled), [3, 6], sorter=order),
                np.searchsorted(shuffled, [3, 6], sorter=order))


def test_searchsorted_bad_arguments():
    t = xa.asarray([1.0, 2.0])
    for side in ("middle", "r", None):              # NumPy 2 takes only the two words
        with pytest.raises(ValueError, match="side"):
            xa.searchsorted(t, 1.0, side=side)
    with pytest.raises(ValueError, match="1-D"):
        xa.searchsorted(xa.ones((2, 2)), 1.0)
    with pytest.raises(ValueError, match="sorter"):
        xa.searchsorted(t, 1.0, sorter=[0, 1, 2])
    with pytest.raises(ValueError, match="sorter index out of range"):
        xa.searchsorted(t, 1.0, sorter=[0, -1])
    with pytest.raises(TypeError, match="sorter"):
        xa.searchsorted(t, 1.0, sorter=[0.0, 1.0])
    with pytest.raises(TypeError, match="one dtype"):          # the graph op's own rule
        apply("searchsorted", [t, xa.asarray([1], xa.int32)], side="left")


def test_searchsorted_and_interp_traced():
    a = xa.asarray(np.linspace(0.0, 1.0, 11))
    keys = xa.asarray(np.array([0.05, 0.5, 2.0, -1.0]))
    fp = xa.asarray(np.arange(11.0) ** 2)
    want_idx = np.searchsorted(np.linspace(0.0, 1.0, 11), np.asarray(keys), side="right")
    want_val = np.interp(np.asarray(keys), np.linspace(0.0, 1.0, 11), np.arange(11.0) ** 2,
                         left=-1.0)

    def f(p, q, r):
        return xa.searchsorted(p, q, side="right"), xa.interp(q, p, r, left=-1.0)
    got = xa.jit(f)(a, keys, fp)
    assert_same(got[0], want_idx)
    assert_same(got[1], want_val)
    text = xa.jit(f).lower(a, keys, fp).as_text()
    assert "searchsorted(" in text and "side=right" in text
    assert "interp(" in text and "left=-1.0" in text
    with xa.lazy():
        i, v = f(a, keys, fp)
    assert_same(xa.eval(i), want_idx)
    assert_same(xa.eval(v), want_val)


def test_interp_cases():
    xp = np.array([0.0, 1.0, 1.0, 3.0])             # a repeated sample point
    fp = np.array([0.0, 10.0, 20.0, 30.0])
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 4.0, np.nan, np.inf, -np.inf])
    assert_same(xa.interp(xa.asarray(x), xp, fp), np.interp(x, xp, fp))
    assert_same(xa.interp(xa.asarray(x), xp, fp, left=7, right=8),
                np.interp(x, xp, fp, left=7, right=8))
    fc = fp.astype(np.complex128)                              # complex, an infinite part
    fc.imag = [1.0, np.inf, 2.0, 3.0]
    assert_same(xa.interp(xa.asarray(x), xp, fc), np.interp(x, xp, fc))
    assert_same(xa.interp(xa.asarray(x), xp, fc, left=1j), np.interp(x, xp, fc, left=1j))
    assert_same(xa.interp(xa.asarray(x), [2.0], [5.0]), np.interp(x, [2.0], [5.0]))
    x32 = xa.asarray(np.float32([0.25, 2.5]))                  # float32 x: float64 result
    assert_same(xa.interp(x32, xp, fp), np.interp(np.float32([0.25, 2.5]), xp, fp))
    assert_same(xa.interp(2.5, xp, fp), np.asarray(np.interp(2.5, xp, fp)))
    rng = np.random.default_rng(9)
    big = rng.random((300, 500)) * 4 - 0.5
    assert_same(xa.interp(xa.asarray(big.T.copy()).T, xp, fp), np.interp(big, xp, fp))


def test_interp_bad_arguments():
    x = xa.asarray([0.5])
    with pytest.raises(ValueError, match="empty"):
        xa.interp(x, [], [])
    with pytest.raises(ValueError, match="same length"):
        xa.interp(x, [0.0, 1.0], [1.0])
    with pytest.raises(ValueError, match="1-D"):
        xa.interp(x, [[0.0, 1.0]], [[1.0, 2.0]])
    with pytest.raises(TypeError):
        xa.interp(x, [0.0, 1.0], [1.0, 2.0], left=1j)          # NumPy: float(1j) raises
    with pytest.raises(TypeError, match="cannot cast x"):
        xa.interp(xa.asarray([0.5j]), [0.0, 1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="period must be a non-zero value"):
        xa.interp(x, [0.0, 1.0], [1.0, 2.0], period=0)


@pytest.mark.parametrize("fp_dtype", [np.float64, np.complex128])
def test_interp_period_as_numpy(fp_dtype):
    """period=: x and xp modulo the period, xp sorted (the sort family's argsort), one
    point added each side; NumPy's bits (its own example among the points)."""
    rng = np.random.default_rng(12)
    x = np.concatenate([[-180, -170, -185, 185, -10, -5, 0, 365], rng.uniform(-720, 720, 50)])
    xp = np.array([190.0, -190.0, 350.0, -350.0, 10.0])
    fp = (np.array([5.0, 10.0, 3.0, 4.0, 7.0]) * (1 + 1j if fp_dtype == np.complex128
                                                  else 1)).astype(fp_dtype)
    for period in (360, -360.0, 100.5):
        assert_same(xa.interp(xa.asarray(x), xp, fp, period=period),
                    np.interp(x, xp, fp, period=period))
