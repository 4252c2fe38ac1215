"""``xa.linalg``'s members that need no factorization (xarr/_numpy/linalg.py): norm,
vector_norm, matrix_norm, cross (and NumPy's top-level xa.cross), diagonal, multi_dot,
matrix_power, LinAlgError, against NumPy over dtypes (NumPy's result dtypes; bfloat16 kept,
integers as float64), shapes with batches and size-0 / size-1 dims, every layout, ords,
axes, keepdims, bad arguments (NumPy's exception class, a message naming the function),
under xa.jit / xa.lazy, and a hypothesis property (vector_norm vs NumPy)."""

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import xarr as xa
from conftest import BF16, LAYOUTS, make_tensor
from xarr._numpy.linalg import _chain_order

INF = math.inf
FLOAT_DTYPES = [np.float16, BF16, np.float32, np.float64, np.complex64, np.complex128]
OTHER_DTYPES = [np.int32, np.uint8, np.int64, np.bool_]
RTOL = {"float16": 1e-2, "bfloat16": 4e-2, "float32": 2e-5, "float64": 1e-12}
VECTOR_ORDS = [2, 1, 0, INF, -INF, 3, -1.5, 0.5, -1]
MATRIX_ORDS = ["fro", 1, -1, INF, -INF]


def _values(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) < 0.6
    if dt.kind in "iu":
        return rng.integers(0, 9, shape).astype(dt)
    if dt.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    return rng.standard_normal(shape).astype(dt)


def _wide(x):
    """x in float64 / complex128 (the reference's precision)."""
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def _expected_dtype(np_fn, x):
    """NumPy's result dtype, but bfloat16 stays bfloat16 (NumPy makes it float64)."""
    if x.dtype == BF16:
        return BF16
    with np.errstate(all="ignore"):
        return np.asarray(np_fn(x)).dtype


def check_like_numpy(xa_fn, np_fn, x, how="c"):
    """xa_fn(tensor of x) against np_fn on x in float64: NumPy's dtype and shape, values
    within the result dtype's tolerance (float16: against NumPy in float16, whose powers
    underflow as xarr's do)."""
    with np.errstate(all="ignore"):
        want = np.asarray(np_fn(x if x.dtype == np.float16 else _wide(x)))
    dt = _expected_dtype(np_fn, x)
    got = xa_fn(make_tensor(x, how))
    g = np.asarray(got)
    assert g.dtype == dt, f"dtype {g.dtype}, expected {dt}"
    assert g.shape == want.shape, f"shape {g.shape}, expected {want.shape}"
    rtol = RTOL.get(np.dtype(dt).name, 1e-12)
    np.testing.assert_allclose(g.astype(np.float64), want.astype(np.float64), rtol=rtol,
                               atol=0, equal_nan=True)


def same_error(xa_call, np_call, names=("xa.linalg",)):
    """xa_call raises the class np_call raises (AxisError as ValueError, LinAlgError as
    xa.linalg.LinAlgError), with a message naming the function."""
    with pytest.raises(Exception) as info:
        np_call()
    cls = type(info.value)
    if cls is np.exceptions.AxisError:
        cls = ValueError
    if cls is np.linalg.LinAlgError:
        cls = xa.linalg.LinAlgError
    with pytest.raises(cls) as got:
        xa_call()
    assert any(n in str(got.value) for n in names), str(got.value)
    return got.value


# ------------------------------------------------------------------------ vector norms
VECTOR_CASES = [((7,), None), ((7,), 0), ((3, 5), 1), ((3, 5), -2), ((2, 3, 4), (0, 2)),
                ((2, 3, 4), (2, 0, 1)), ((2, 3, 4), None), ((1,), None), ((4, 1), (1,)),
                ((), None), ((2, 3), ())]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + OTHER_DTYPES, ids=str)
@pytest.mark.parametrize("ord", VECTOR_ORDS)
def test_vector_norm_matches_numpy(dtype, ord):  # noqa: A002
    for k, (shape, axis) in enumerate(VECTOR_CASES):
        x = _values(shape, dtype, seed=k)
        for keepdims in (False, True):
            check_like_numpy(
                lambda t: xa.linalg.vector_norm(t, axis=axis, keepdims=keepdims, ord=ord),
                lambda a: np.linalg.vector_norm(a, axis=axis, keepdims=keepdims, ord=ord),
                x)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + OTHER_DTYPES, ids=str)
@pytest.mark.parametrize("ord", MATRIX_ORDS)
def test_matrix_norm_matches_numpy(dtype, ord):  # noqa: A002
    for k, shape in enumerate([(3, 4), (4, 3), (1, 1), (5, 2, 3), (2, 1, 3, 3), (1, 6)]):
        x = _values(shape, dtype, seed=k)
        for keepdims in (False, True):
            check_like_numpy(lambda t: xa.linalg.matrix_norm(t, keepdims=keepdims, ord=ord),
                             lambda a: np.linalg.matrix_norm(a, keepdims=keepdims, ord=ord),
                             x)


NORM_CASES = [((6,), None, None), ((6,), None, 2), ((6,), None, 1), ((6,), None, -INF),
              ((6,), None, 0), ((3, 4), None, None), ((3, 4), None, "fro"),
              ((3, 4), None, "f"), ((3, 4), None, 1), ((3, 4), None, INF),
              ((3, 4), None, -1), ((2, 3, 4), None, None), ((2, 3, 4), 1, None),
              ((2, 3, 4), -1, 3), ((2, 3, 4), (0,), INF), ((2, 3, 4), (2, 0), None),
              ((2, 3, 4), (2, 0), 1), ((2, 3, 4), (-1, 1), -INF), ((2, 3, 4), (0, 1), "fro"),
              ((2, 3, 4), 2.0, 1), ((), None, None), ((5, 1), (1, 0), -1)]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + OTHER_DTYPES, ids=str)
def test_norm_matches_numpy(dtype):
    for k, (shape, axis, ord) in enumerate(NORM_CASES):  # noqa: A001
        x = _values(shape, dtype, seed=k)
        for keepdims in (False, True):
            check_like_numpy(lambda t: xa.linalg.norm(t, ord, axis, keepdims),
                             lambda a: np.linalg.norm(a, ord, axis, keepdims), x)


@pytest.mark.parametrize("how", LAYOUTS)
def test_norms_on_every_layout(how):
    for dtype in (np.float32, np.float64, np.complex128):
        x = _values((3, 4, 5), dtype, seed=3)
        for ord in (None, 1, INF, -INF, 3):  # noqa: A001
            check_like_numpy(lambda t: xa.linalg.norm(t, ord, axis=1),
                             lambda a: np.linalg.norm(a, ord, axis=1), x, how)
        for ord in MATRIX_ORDS:  # noqa: A001
            check_like_numpy(lambda t: xa.linalg.matrix_norm(t, ord=ord),
                             lambda a: np.linalg.matrix_norm(a, ord=ord), x, how)
            check_like_numpy(lambda t: xa.linalg.norm(t, ord, axis=(2, 0)),
                             lambda a: np.linalg.norm(a, ord, axis=(2, 0)), x, how)
        for axis in (None, (0, 2), -1):
            check_like_numpy(lambda t: xa.linalg.vector_norm(t, axis=axis),
                             lambda a: np.linalg.vector_norm(a, axis=axis), x, how)
        check_like_numpy(lambda t: xa.linalg.norm(t[0]), lambda a: np.linalg.norm(a[0]),
                         x, how)


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 3), (0, 0)])
def test_size_zero_like_numpy(shape):
    """Empty vectors and matrices: 0 for sums and inf norms, ValueError for -inf / -1
    (a min with no identity), as NumPy."""
    x = np.zeros(shape, np.float32)
    t = xa.asarray(x)
    cases = [(lambda m, a, o=o: m.vector_norm(a, ord=o, axis=-1)) for o in VECTOR_ORDS]
    cases += [(lambda m, a, o=o: m.vector_norm(a, ord=o)) for o in VECTOR_ORDS]
    if len(shape) >= 2:
        cases += [(lambda m, a, o=o: m.matrix_norm(a, ord=o)) for o in MATRIX_ORDS]
    for case in cases:
        try:
            with np.errstate(all="ignore"):
                want = case(np.linalg, x)
        except ValueError:
            with pytest.raises(ValueError):
                case(xa.linalg, t)
            continue
        got = np.asarray(case(xa.linalg, t))
        assert got.shape == np.shape(want) and got.dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)


def test_norm_overflows_as_numpy():
    """Unscaled sums of squares, as NumPy's: a 2-norm of huge values is inf."""
    x = np.array([1e200, 1e200])
    with np.errstate(over="ignore"):
        assert np.isinf(np.linalg.norm(x))
    assert np.isinf(float(xa.linalg.norm(xa.asarray(x))))
    assert float(xa.linalg.norm(xa.asarray(x), INF)) == 1e200


NORM_ERRORS = [  # (function, operand shape, keywords)
    ("norm", (2, 3, 4), {"ord": 1}),                   # improper number of dims
    ("norm", (2, 3, 4), {"axis": (0, 1, 2)}),
    ("norm", (3,), {"ord": "fro"}),                    # invalid vector order
    ("norm", (3,), {"ord": "nuc"}),
    ("norm", (3, 3), {"ord": 3}),                      # invalid matrix order
    ("norm", (3, 3), {"ord": "bad"}),
    ("norm", (3, 3), {"axis": (0, 0)}),                # duplicate axes
    ("norm", (3, 3), {"axis": (1, -1)}),
    ("norm", (3,), {"axis": 3}),                       # out of bounds
    ("norm", (3, 3), {"axis": (0, 2)}),
    ("norm", (3,), {"axis": [0]}),                     # not an int or a tuple
    ("norm", (3,), {"axis": "a"}),
    ("vector_norm", (3,), {"ord": "fro"}),
    ("vector_norm", (2, 3, 4), {"axis": (0, 0)}),      # repeated axis
    ("vector_norm", (2, 3, 4), {"axis": (0, 3)}),
    ("vector_norm", (2, 3, 4), {"axis": 5}),
    ("vector_norm", (3,), {"axis": [0]}),
    ("matrix_norm", (3,), {}),                         # fewer than 2 dims
    ("matrix_norm", (3, 3), {"ord": 3}),
    ("matrix_norm", (3, 3), {"ord": 0})]


@pytest.mark.parametrize("fn,shape,kw", NORM_ERRORS)
def test_norm_errors_like_numpy(fn, shape, kw):
    x = np.ones(shape)
    same_error(lambda: getattr(xa.linalg, fn)(xa.asarray(x), **kw),
               lambda: getattr(np.linalg, fn)(x, **kw))


@pytest.mark.parametrize("ord", [2, -2, "nuc"])
def test_singular_value_norms(ord):  # noqa: A002
    """(LAPACK's SVD: more in test_decompositions.py)"""
    m = np.arange(9.0).reshape(3, 3) + np.eye(3)
    s = np.arange(2 * 9.0).reshape(2, 3, 3) ** 1.5
    np.testing.assert_allclose(np.asarray(xa.linalg.norm(m, ord)), np.linalg.norm(m, ord))
    np.testing.assert_allclose(np.asarray(xa.linalg.matrix_norm(m, ord=ord)),
                               np.linalg.matrix_norm(m, ord=ord))
    np.testing.assert_allclose(np.asarray(xa.linalg.norm(s, ord, axis=(1, 2))),
                               np.linalg.norm(s, ord, axis=(1, 2)))


@given(st.data())
def test_vector_norm_property(data):
    """vector_norm equals NumPy's over random shapes, axes, ords, keepdims and dtypes."""
    shape = tuple(data.draw(st.lists(st.integers(1, 5), min_size=0, max_size=4)))
    nd = len(shape)
    axis = data.draw(st.one_of(
        st.none(), st.integers(-nd, nd - 1) if nd else st.none(),
        st.lists(st.integers(0, nd - 1), unique=True, max_size=nd).map(tuple) if nd
        else st.none()))
    ord = data.draw(st.one_of(st.sampled_from([2, 1, 0, INF, -INF]),  # noqa: A001
                              st.floats(-4, 4, allow_nan=False).filter(lambda p: p != 0)))
    keepdims = data.draw(st.booleans())
    dtype = data.draw(st.sampled_from([np.float32, np.float64, np.complex128, np.int16]))
    how = data.draw(st.sampled_from(LAYOUTS))
    x = _values(shape, dtype, seed=data.draw(st.integers(0, 999)))
    check_like_numpy(lambda t: xa.linalg.vector_norm(t, axis=axis, keepdims=keepdims,
                                                     ord=ord),
                     lambda a: np.linalg.vector_norm(a, axis=axis, keepdims=keepdims,
                                                     ord=ord), x, how)


# ------------------------------------------------------------------------ cross
CROSS_SHAPES = [((3,), (3,)), ((4, 3), (3,)), ((2, 1, 3), (5, 3)), ((0, 3), (1, 3)),
                ((2,), (2,)), ((4, 2), (3,)), ((3,), (4, 2)), ((3, 2), (1, 2))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.int32, np.int8,
                                   np.uint8], ids=str)
def test_cross_matches_numpy(dtype):
    for k, (sa, sb) in enumerate(CROSS_SHAPES):
        a, b = _values(sa, dtype, seed=k), _values(sb, dtype, seed=k + 50)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", DeprecationWarning)
            want = np.cross(a, b)
            got = xa.cross(xa.asarray(a), xa.asarray(b))
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def test_cross_axes_and_layouts():
    a = _values((3, 4, 2), np.float64, 1)
    b = _values((3, 2), np.float64, 2)
    for how in LAYOUTS:
        ta, tb = make_tensor(a, how), make_tensor(b, how)
        for kw in ({"axisa": 0, "axisb": 0}, {"axisa": 0, "axisb": 0, "axisc": 1},
                   {"axisa": 0, "axisb": 0, "axisc": -3}):
            np.testing.assert_allclose(np.asarray(xa.cross(ta, tb, **kw)),
                                       np.cross(a, b, **kw), rtol=1e-12)
        c = _values((3, 4, 3), np.float64, 3)
        np.testing.assert_allclose(np.asarray(xa.cross(make_tensor(c, how), ta[:, :, :1],
                                                       axis=0)),
                                   np.cross(c, a[:, :, :1], axis=0), rtol=1e-12)
        np.testing.assert_allclose(
            np.asarray(xa.linalg.cross(make_tensor(c, how), make_tensor(c[::-1], how),
                                       axis=0)),
            np.linalg.cross(c, c[::-1], axis=0), rtol=1e-12)


def test_cross_two_component_vectors_warn():
    with pytest.warns(DeprecationWarning):
        assert int(xa.cross(xa.asarray([1, 2]), xa.asarray([3, 4]))) == -2


def test_cross_errors_like_numpy():
    three, two, four = np.ones(3), np.ones(2), np.ones(4)
    for a, b, kw in [(three, four, {}), (np.ones(()), three, {}), (three, three,
                                                                  {"axisa": 1}),
                     (np.ones((2, 3)), np.ones((4, 3)), {}),
                     (three, three, {"axisc": 2}), (three, np.ones((2, 3)), {"axisb": 2})]:
        same_error(lambda: xa.cross(xa.asarray(a), xa.asarray(b), **kw),
                   lambda: np.cross(a, b, **kw), names=("xa.cross",))
    for a, b, kw in [(three, two, {}), (np.ones((3, 2)), np.ones((3, 2)), {}),
                     (three, three, {"axis": 1})]:
        same_error(lambda: xa.linalg.cross(xa.asarray(a), xa.asarray(b), **kw),
                   lambda: np.linalg.cross(a, b, **kw))


# ------------------------------------------------------------------------ diagonal
@pytest.mark.parametrize("how", LAYOUTS)
def test_diagonal_of_the_last_two_dims(how):
    x = _values((2, 3, 4), np.float32, 4)
    for offset in (-3, -1, 0, 1, 2, 5):
        np.testing.assert_array_equal(
            np.asarray(xa.linalg.diagonal(make_tensor(x, how), offset=offset)),
            np.linalg.diagonal(x, offset=offset))
    same_error(lambda: xa.linalg.diagonal(xa.ones(3)), lambda: np.linalg.diagonal(np.ones(3)))


def test_outer_and_trace_unchanged():
    a, b = np.arange(3.0), np.arange(4.0)
    np.testing.assert_array_equal(np.asarray(xa.linalg.outer(xa.asarray(a), xa.asarray(b))),
                                  np.linalg.outer(a, b))
    with pytest.raises(ValueError, match="linalg.outer: x1 must be 1-D"):
        xa.linalg.outer(xa.ones((2, 2)), xa.asarray(b))
    x = _values((2, 3, 3), np.int32, 5)
    for offset in (-1, 0, 2):
        got = xa.linalg.trace(xa.asarray(x), offset=offset)
        want = np.linalg.trace(x, offset=offset)
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)


# ------------------------------------------------------------------------ multi_dot
def _brute_force_cost(dims):
    """The fewest multiply-adds of the chain, by trying every split recursively."""
    n = len(dims) - 1
    memo = {}

    def best(i, j):
        if i == j:
            return 0
        if (i, j) not in memo:
            memo[i, j] = min(best(i, k) + best(k + 1, j) + dims[i] * dims[k + 1] * dims[j + 1]
                             for k in range(i, j))
        return memo[i, j]
    return best(0, n - 1)


def _cost_of(split, dims, i, j):
    if i == j:
        return 0
    k = split[i][j]
    return (_cost_of(split, dims, i, k) + _cost_of(split, dims, k + 1, j)
            + dims[i] * dims[k + 1] * dims[j + 1])


def test_chain_order_is_optimal():
    rng = np.random.default_rng(0)
    for _ in range(200):
        dims = [int(d) for d in rng.integers(1, 60, rng.integers(3, 9))]
        assert _cost_of(_chain_order(dims), dims, 0, len(dims) - 2) == \
            _brute_force_cost(dims), dims
    # the classic example: 10x100, 100x5, 5x50 -> (AB)C, 7500 multiply-adds
    assert _cost_of(_chain_order([10, 100, 5, 50]), [10, 100, 5, 50], 0, 2) == 7500


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128, np.int64], ids=str)
def test_multi_dot_matches_numpy(dtype):
    rng = np.random.default_rng(1)
    for n in (2, 3, 4, 6):
        for first_1d, last_1d in itertools.product((False, True), repeat=2):
            dims = [int(d) for d in rng.integers(1, 12, n + 1)]
            arrays = [_values((dims[i], dims[i + 1]), dtype, seed=i) for i in range(n)]
            if first_1d:
                arrays[0] = arrays[0][0]
            if last_1d:
                arrays[-1] = arrays[-1][:, 0]
            want = np.linalg.multi_dot(arrays)
            how = LAYOUTS[n % len(LAYOUTS)]
            got = xa.linalg.multi_dot([make_tensor(a, how) for a in arrays])
            assert np.asarray(got).shape == np.shape(want)
            assert np.asarray(got).dtype == np.asarray(want).dtype
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)


def test_multi_dot_out_and_size_zero():
    a, b, c = np.ones((2, 0)), np.ones((0, 3)), np.ones((3, 4))
    out = xa.empty((2, 4))
    got = xa.linalg.multi_dot([xa.asarray(a), xa.asarray(b), xa.asarray(c)], out=out)
    assert got is out
    np.testing.assert_array_equal(np.asarray(out), np.linalg.multi_dot([a, b, c]))


def test_multi_dot_errors_like_numpy():
    for arrays in ([np.ones(3)], [], [np.ones((3, 3, 3)), np.ones(3), np.ones(3)],
                   [np.ones((2, 3)), np.ones((2, 3)), np.ones((3, 3))],
                   [np.ones(3), np.ones((3, 2)), np.ones((2, 2, 2))]):
        same_error(lambda: xa.linalg.multi_dot([xa.asarray(a) for a in arrays]),
                   lambda: np.linalg.multi_dot(arrays))


# ------------------------------------------------------------------------ matrix_power
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.int32, np.int8,
                                   np.bool_], ids=str)
def test_matrix_power_matches_numpy(dtype):
    for shape in [(3, 3), (2, 4, 4), (1, 1), (0, 0), (2, 0, 0), (3, 2, 2)]:
        x = _values(shape, dtype, seed=sum(shape))
        if np.dtype(dtype).kind in "fc":
            x = x / 2
        for n in range(0, 10):
            want = np.linalg.matrix_power(x, n)
            got = xa.linalg.matrix_power(make_tensor(x, LAYOUTS[n % len(LAYOUTS)]), n)
            assert np.asarray(got).dtype == want.dtype, (shape, n)
            assert np.asarray(got).shape == want.shape
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4)


def test_matrix_power_errors_like_numpy():
    m = np.ones((3, 3))
    for a, n in [(np.ones(3), 2), (np.ones((3, 2)), 2), (np.ones((2, 3, 2)), 1), (m, 1.5),
                 (m, "2")]:
        same_error(lambda: xa.linalg.matrix_power(xa.asarray(a), n),
                   lambda: np.linalg.matrix_power(a, n))
    with pytest.raises(xa.linalg.LinAlgError, match="Singular"):
        xa.linalg.matrix_power(xa.asarray(m), -1)
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    np.testing.assert_allclose(np.asarray(xa.linalg.matrix_power(xa.asarray(a), -3)),
                               np.linalg.matrix_power(a, -3), rtol=1e-12)


def test_linalg_error_is_numpy_like():
    assert issubclass(xa.linalg.LinAlgError, ValueError)
    with pytest.raises(ValueError):
        xa.linalg.matrix_power(xa.ones(3), 2)


# ------------------------------------------------------------------------ traced
def test_under_jit_and_lazy():
    x = _values((4, 3, 5), np.float32, 7)
    t = xa.asarray(x)
    fns = [(lambda v: xa.linalg.norm(v, axis=2), lambda a: np.linalg.norm(a, axis=2)),
           (lambda v: xa.linalg.matrix_norm(v, ord=1), lambda a: np.linalg.matrix_norm(
               a, ord=1)),
           (lambda v: xa.linalg.vector_norm(v, ord=3, axis=(0, 2)),
            lambda a: np.linalg.vector_norm(a, ord=3, axis=(0, 2))),
           (lambda v: xa.linalg.norm(v[0]), lambda a: np.linalg.norm(a[0])),
           (lambda v: xa.linalg.cross(v[:, :, :3], v[:, :, 2:]),
            lambda a: np.linalg.cross(a[:, :, :3], a[:, :, 2:])),
           (lambda v: xa.linalg.matrix_power(v[:, :3, :3], 5),
            lambda a: np.linalg.matrix_power(a[:, :3, :3], 5)),
           (lambda v: xa.linalg.matrix_power(v[:, :3, :3], 0),
            lambda a: np.linalg.matrix_power(a[:, :3, :3], 0)),
           (lambda v: xa.linalg.multi_dot([v[0], v[1].T, v[2]]),
            lambda a: np.linalg.multi_dot([a[0], a[1].T, a[2]]))]
    for fn, ref in fns:
        want = ref(x)
        got = xa.jit(fn)(t)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
        with xa.lazy():
            lazy = fn(t)
        np.testing.assert_allclose(np.asarray(lazy), want, rtol=1e-5)


def test_dispatch_from_numpy():
    """np.linalg's functions on tensors run xarr's (NEP 18)."""
    t = xa.asarray(_values((3, 3), np.float64, 8))
    assert type(np.linalg.norm(t)) is xa.Tensor
    assert type(np.linalg.matrix_power(t, 3)) is xa.Tensor
    assert type(np.cross(t, t)) is xa.Tensor


@pytest.mark.parametrize("how", ["c", "colmajor", "negstep", "step"])
def test_large_norms_threaded(how, restore_threads):
    """Sizes past the kernels' thread thresholds (the GEMM engine's dot, the reductions),
    on 1 and 2 threads, against float64 sums."""
    x = _values((700, 900), np.float32, 9)
    x64 = x.astype(np.float64)
    for threads in (1, 2):
        xa.set_num_threads(threads)
        t = make_tensor(x, how)
        np.testing.assert_allclose(float(xa.linalg.norm(t)), np.sqrt((x64 ** 2).sum()),
                                   rtol=1e-5)
        np.testing.assert_allclose(float(xa.linalg.norm(t, 1)),
                                   np.abs(x64).sum(axis=0).max(), rtol=1e-5)
        np.testing.assert_allclose(np.asarray(xa.linalg.vector_norm(t, axis=0, ord=3)),
                                   (np.abs(x64) ** 3).sum(axis=0) ** (1 / 3), rtol=1e-5)
