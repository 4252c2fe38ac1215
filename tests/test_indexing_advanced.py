"""Advanced indexing (integer arrays, boolean masks) against NumPy: get and set, every
element size, layouts, placement rules, errors, threads, xa.jit; and the functions built on
it (nonzero, where/1, argwhere, flatnonzero, take, take_along_axis, repeat with counts)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xarr as xa
from conftest import ALL_DTYPES, LAYOUTS, assert_same, make_tensor, random_array

# one dtype per element size (1, 2, 4, 8, 16 bytes) plus the odd ones
SIZES = [xa.bool_, xa.int8, xa.uint16, xa.bfloat16, xa.float32, xa.int64, xa.complex64,
         xa.complex128]


def _vals(shape, dt, seed=0):
    return random_array(np.random.default_rng(seed), shape, dt, specials=0.0)


def _check_get(x, key, how="c"):
    t = make_tensor(x, how)
    assert_same(t[key], x[key])


def _check_set(x, key, value, how="c"):
    t = make_tensor(x, how)
    expect = x.copy()
    expect[key] = value
    t[key] = value
    assert_same(t, expect)


# ------------------------------------------------------------------------------ get
KEYS_3D = [
    ([1, 0],),
    (np.array([-1, -4, 2]),),
    ([0, 1], [2, 0]),
    (slice(None), [2, 0]),
    (slice(None), [2, 0], [1, 1]),
    (0, slice(None), [1, 2]),            # int and array separated: index dims go first
    (slice(None), [0, 2], 0),            # adjacent: stay in place
    ([0, 1], Ellipsis, [1, 3]),
    (None, [1, 0], None, [0, 2]),
    (np.array([[0], [1]]), slice(None), np.array([[0, 3]])),
    (Ellipsis, [3, -1]),
    (slice(1, None), slice(None, None, -1), [2, 2, 0]),
    (np.array([], np.int64),),
    (slice(None), [], slice(None)),
    (np.array(1), [0, 2]),
    (slice(None), np.array(1), [0, 2]),
    (np.array([[1, 0], [0, 1]], np.uint8),),
    ([[0, 1], [1, 0]], [[2], [0]], slice(None, 2)),
]


@pytest.mark.parametrize("key", KEYS_3D, ids=[str(i) for i in range(len(KEYS_3D))])
@pytest.mark.parametrize("how", ["c", "colmajor", "transposed", "negstep", "step", "tiled"])
def test_integer_keys_layouts(key, how):
    x = _vals((4, 3, 5), np.float32)
    _check_get(x, key, how)


@pytest.mark.parametrize("dt", ALL_DTYPES)
def test_every_dtype_get(dt):
    x = _vals((6, 5), dt)
    idx = np.array([5, 0, -1, 3, 3])
    _check_get(x, idx)                                   # rows: contiguous blocks
    _check_get(x, (slice(None), idx[:3] % 5))            # single elements with outer dim
    _check_get(x, (idx, idx % 5))                        # two arrays, element gather
    _check_get(x, x.real > x.real.mean() if np.dtype(dt).kind == "c" else
               x.astype(np.float64) > 50 if np.dtype(dt).kind != "b" else x)
    _check_get(x, (slice(None), np.array([True, False, True, True, False])))


@pytest.mark.parametrize("dt", SIZES)
def test_block_sizes(dt):
    """Inner blocks of 1..9 elements: typed element copies, memcpy and strided blocks."""
    for inner in range(1, 10):
        x = _vals((7, inner), dt, seed=inner)
        idx = np.array([6, 0, 3, 3, -7])
        _check_get(x, idx)
        _check_get(x, idx, "colmajor")
        _check_get(x, idx, "step")
        m = np.array([True, False, True, True, False, False, True])
        _check_get(x, m)
        _check_get(x, m, "transposed")


@pytest.mark.parametrize("how", LAYOUTS)
def test_mask_positions(how):
    x = _vals((3, 4, 5), np.int32)
    rng = np.random.default_rng(1)
    for start in range(3):
        for k in range(1, 4 - start):
            mshape = x.shape[start:start + k]
            m = rng.random(mshape) < 0.5
            key = (slice(None),) * start + (m,)
            _check_get(x, key, how)
            _check_get(x, (Ellipsis, m) if start + k == 3 else key, how)
    _check_get(x, (rng.random((3, 4)) < 0.5, slice(None)), how)
    _check_get(x, (np.array([True, False, True]), slice(None), [1, 2]), how)
    _check_get(x, (0, np.array([True, False, True, True])), how)
    _check_get(x, (slice(None), np.array([True, False, True, True]), 0), how)
    _check_get(x, (np.zeros((3, 4, 5), bool),), how)
    _check_get(x, (np.ones((3, 4, 5), bool),), how)


def test_zero_d_bools():
    x = _vals((3, 4), np.float64)
    for key in [True, False, (True,), (0, True), (slice(None), True), ([0, 1], True),
                (np.True_, [1, 2]), (Ellipsis, False), (None, True, 1)]:
        _check_get(x, key)
    x0 = np.array(3.5)
    _check_get(x0, True)
    _check_get(x0, False)
    _check_get(x0, np.array(True))


def test_size_zero_dims():
    x = np.zeros((0, 3), np.float32)
    _check_get(x, np.array([], np.int64))
    _check_get(x, (slice(None), [0, 2]))
    _check_get(x, np.zeros(0, bool))
    y = _vals((3, 0, 2), np.int16)
    _check_get(y, [0, 2, 2])
    _check_get(y, (slice(None), slice(None), [1, 0]))
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 0"):
        xa.zeros((0, 3))[[0]]


def test_index_dtypes():
    x = _vals((10,), np.float32)
    t = xa.asarray(x)
    for dt in [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
               np.uint64]:
        idx = np.array([9, 0, 3], dt)
        assert_same(t[idx], x[idx])
        assert_same(t[xa.asarray(idx)], x[idx])
    assert_same(t[[-1, -10]], x[[-1, -10]])
    with pytest.raises(IndexError, match="index 18446744073709551615 is out of bounds"):
        t[np.array([2 ** 64 - 1], np.uint64)]


# ------------------------------------------------------------------------------ hypothesis
@st.composite
def shape_and_key(draw):
    nd = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=nd, max_size=nd)))
    seed = draw(st.integers(0, 2 ** 31))
    rng = np.random.default_rng(seed)
    key = []
    d = 0
    use_ell = draw(st.booleans())
    bshape = draw(st.sampled_from([(), (3,), (2, 1), (1, 3), (0,)]))
    while d < nd:
        kind = draw(st.sampled_from(["int", "slice", "array", "array", "mask", "none"]))
        if kind == "none":
            key.append(None)
            continue
        size = shape[d]
        if kind == "int" and size:
            key.append(int(rng.integers(-size, size)))
        elif kind == "array" and size:
            key.append(rng.integers(-size, size, bshape))
        elif kind == "mask":
            k = int(rng.integers(1, nd - d + 1))
            key.append(rng.random(shape[d:d + k]) < 0.5)
            d += k
            continue
        else:
            a, b = sorted(rng.integers(-size - 1, size + 2, 2).tolist())
            key.append(slice(a, b, int(rng.choice([1, 2, -1, -2]))))
        d += 1
        if use_ell and draw(st.booleans()):
            key.append(Ellipsis)
            break
    return shape, tuple(key), seed


def _numpy_ok(x, key):
    try:
        return x[key], None
    except (IndexError, ValueError) as e:
        return None, type(e)


@settings(max_examples=250)
@given(shape_and_key(), st.sampled_from(SIZES), st.sampled_from(["c", "colmajor",
                                                                  "negstep"]))
def test_random_keys_get_and_set(sk, dt, how):
    shape, key, seed = sk
    x = _vals(shape, dt, seed % 1000)
    t = make_tensor(x, how)
    expect, err = _numpy_ok(x, key)
    if err is not None:
        with pytest.raises(err):
            t[key]
        return
    assert_same(t[key], expect)
    # set: a broadcast value of the indexed shape's trailing dims, and a scalar
    value = _vals(expect.shape[1:], dt, seed % 7)
    ex = x.copy()
    ex[key] = value
    t[key] = value
    assert_same(t, ex)
    ex[key] = ex.dtype.type(1)
    t[key] = ex.dtype.type(1)
    assert_same(t, ex)


# ------------------------------------------------------------------------------ set
@pytest.mark.parametrize("dt", ALL_DTYPES)
def test_every_dtype_set(dt):
    x = _vals((6, 5), dt)
    vals = _vals((5,), dt, 3)
    _check_set(x, [0, 5, -2], vals)                          # broadcast row
    _check_set(x, ([0, 1], [4, 0]), vals[:2])
    _check_set(x, (slice(None), [1, 3]), _vals((6, 2), dt, 4))
    m = np.zeros((6, 5), bool)
    m[::2, 1::2] = True
    _check_set(x, m, _vals((int(m.sum()),), dt, 5))
    _check_set(x, m, vals[0])                                # a 0-d value broadcasts
    _check_set(x, np.array([True, False] * 3), vals)


def test_set_casts_like_numpy():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    _check_set(x, [0, 2], 7.9)                               # float -> int: truncation
    _check_set(x, [0, 2], np.array([1.5, -2.5, 3.7, 4.0]))
    _check_set(x, x > 5, np.float64(-3.0))
    _check_set(x, ([1, 2], [0, 3]), True)
    f = np.zeros((2, 3), np.float16)
    _check_set(f, [1], np.array([1, 2, 3], np.int64))
    b = np.zeros(5, bool)
    _check_set(b, [0, 3], np.array([2.0, 0.0]))
    with pytest.raises(OverflowError):
        xa.zeros((3,), dtype=xa.uint8)[[0]] = 300


def test_set_repeated_indices_last_wins():
    x = np.zeros(4, np.float64)
    _check_set(x, [1, 1, 1, 2], np.array([1.0, 2.0, 3.0, 4.0]))
    y = np.zeros((3, 2), np.int64)
    _check_set(y, [0, 0, 2, 0], np.arange(8).reshape(4, 2))


def test_set_from_own_view():
    x = np.arange(10, dtype=np.float32)
    t = xa.asarray(x)
    t[[0, 1, 2]] = t[7:]
    x[[0, 1, 2]] = x[7:]
    assert_same(t, x)
    t[t > 5] = t[:int((x > 5).sum())]
    x[x > 5] = x[:int((x > 5).sum())].copy()
    assert_same(t, x)


@pytest.mark.parametrize("how", ["colmajor", "transposed", "step", "tiled", "padded"])
def test_set_layouts(how):
    x = _vals((4, 5), np.float64)
    _check_set(x, ([3, 0], slice(None)), 2.0, how)
    _check_set(x, (slice(None), [4, 0, 1]), _vals((4, 3), np.float64, 2), how)
    _check_set(x, x > 50, 0.5, how)


def test_set_errors():
    t = xa.zeros((3, 4))
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        t[[0, 3]] = 1.0
    assert not np.asarray(t).any()                           # nothing written
    with pytest.raises(ValueError, match="shape mismatch"):
        t[[0, 1]] = np.ones(5)
    with pytest.raises(ValueError, match="cannot assign 2 input values to the 3"):
        t[np.array([True, False, True]) | np.array([False, True, False])] = np.ones((2, 4))
    with pytest.raises(IndexError, match="boolean index did not match"):
        t[np.ones(4, bool)] = 1.0
    ro = xa.broadcast_to(xa.asarray([1.0, 2.0]), (3, 2))
    with pytest.raises(ValueError, match="read-only"):
        ro[[0]] = 1.0


# ------------------------------------------------------------------------------ errors
def test_get_errors():
    t = xa.zeros((3, 4))
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 3"):
        t[[5]]
    with pytest.raises(IndexError, match="index -5 is out of bounds for axis 1 with size 4"):
        t[:, [-5]]
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 1 with size 4"):
        t[[0, 1], [0, 4]]
    with pytest.raises(IndexError, match="shape mismatch: indexing arrays could not be "
                                         "broadcast"):
        t[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match="too many indices"):
        t[[0], [0], [0]]
    with pytest.raises(IndexError, match="integer"):
        t[[1.0]]
    with pytest.raises(IndexError, match="valid indices"):
        t[1.5]
    with pytest.raises(IndexError, match="boolean index did not match indexed array along "
                                         "axis 1; size of axis is 4"):
        t[:, np.ones(3, bool)]
    with pytest.raises(IndexError, match="single ellipsis"):
        t[..., [0], ...]


# ------------------------------------------------------------------------------ threads
@pytest.mark.parametrize("how", ["c", "transposed", "step"])
def test_mask_runs(how, restore_threads):
    """Long all-true runs (whole chunks: plain copies) next to sparse and dense parts."""
    rng = np.random.default_rng(8)
    x = _vals((40000,), np.float32).reshape(200, 200)
    m = np.zeros(x.shape, bool)
    m[:90] = True
    m[120:150] = rng.random((30, 200)) < 0.5
    m[150:] = rng.random((50, 200)) < 0.01
    for n in (1, 2):
        xa.set_num_threads(n)
        _check_get(x, m, how)
        _check_set(x, m, np.float32(3.0), how)
        _check_set(x, m, _vals((int(m.sum()),), np.float32, 1), how)


@pytest.mark.parametrize("dt", [xa.uint8, xa.float32, xa.complex128])
def test_threads_identical(dt, restore_threads):
    rng = np.random.default_rng(5)
    x = _vals((300, 700), dt)
    t = xa.asarray(x)
    m = rng.random(x.shape) < 0.4
    sparse = rng.random(x.shape) < 0.02
    rows = rng.integers(-300, 300, 5000)
    elems = (rng.integers(0, 300, 200000), rng.integers(0, 700, 200000))
    results = []
    for n in (1, 2):
        xa.set_num_threads(n)
        u = xa.asarray(x.copy())
        u[m] = x[0, 0]
        u[sparse] = np.arange(int(sparse.sum())).astype(x.dtype)
        results.append([np.asarray(v).copy() for v in (
            t[m], t[sparse], t[rows], t[elems], t[:, m[0]], u, *xa.nonzero(xa.asarray(m)),
            xa.argwhere(xa.asarray(sparse)))])
    for a, b in zip(*results):
        assert_same(a, b)
    assert_same(results[0][0], x[m])
    assert_same(results[0][2], x[rows])
    assert_same(results[0][3], x[elems])
    ex = x.copy()
    ex[m] = x[0, 0]
    ex[sparse] = np.arange(int(sparse.sum())).astype(x.dtype)
    assert_same(results[0][5], ex)


# ------------------------------------------------------------------------------ functions
def test_nonzero_family():
    rng = np.random.default_rng(2)
    for shape in [(7,), (3, 4), (2, 3, 4), (0, 3), (5, 0)]:
        x = (rng.random(shape) < 0.5) * rng.integers(1, 5, shape)
        t = xa.asarray(x)
        for a, b in zip(xa.nonzero(t), np.nonzero(x)):
            assert_same(a, b)
        for a, b in zip(xa.where(t), np.where(x)):
            assert_same(a, b)
        assert_same(xa.argwhere(t), np.argwhere(x))
        assert_same(xa.flatnonzero(t), np.flatnonzero(x))
        assert_same(xa.nonzero(t > 2)[0], np.nonzero(x > 2)[0])
    assert_same(xa.argwhere(xa.asarray(3.0)), np.argwhere(np.array(3.0)))
    assert_same(xa.argwhere(xa.asarray(0)), np.argwhere(np.array(0)))
    with pytest.raises(ValueError, match="0-d"):
        xa.nonzero(xa.asarray(1))
    f = np.array([0.0, -0.0, np.nan, 1e-300, 0.0], np.float64)
    assert_same(xa.flatnonzero(xa.asarray(f)), np.flatnonzero(f))
    c = np.array([0j, 1j, 0, 2], np.complex64)
    assert_same(xa.nonzero(xa.asarray(c))[0], np.nonzero(c)[0])


def test_take():
    x = _vals((4, 5, 3), np.float32)
    t = xa.asarray(x)
    for idx, axis in [([0, 3, -1], 0), ([[1, 2], [0, 4]], 1), (2, 2), (np.array(1), 0),
                      ([5, 0, 59], None), ([], 1)]:
        assert_same(xa.take(t, idx, axis=axis), np.take(x, idx, axis=axis))
    with pytest.raises(IndexError, match="out of bounds"):
        xa.take(t, [60])


def test_take_along_axis():
    rng = np.random.default_rng(3)
    x = _vals((3, 4, 5), np.int32)
    t = xa.asarray(x)
    for axis in (0, 1, 2, -1):
        idx = np.argsort(x, axis=axis)
        assert_same(xa.take_along_axis(t, idx, axis), np.take_along_axis(x, idx, axis))
        small = np.take(idx, [0], axis=axis)
        assert_same(xa.take_along_axis(t, small, axis), np.take_along_axis(x, small, axis))
    flat = rng.integers(0, 60, 7)
    assert_same(xa.take_along_axis(t, flat, None), np.take_along_axis(x, flat, None))
    with pytest.raises(ValueError, match="same number of dimensions"):
        xa.take_along_axis(t, [0, 1], 0)


def test_repeat_with_counts():
    x = _vals((3, 4), np.float64)
    t = xa.asarray(x)
    assert_same(xa.repeat(t, [1, 0, 2], axis=0), np.repeat(x, [1, 0, 2], axis=0))
    assert_same(xa.repeat(t, np.array([2, 1, 0, 3]), axis=1),
                np.repeat(x, [2, 1, 0, 3], axis=1))
    assert_same(xa.repeat(t, [2], axis=1), np.repeat(x, [2], axis=1))
    assert_same(xa.repeat(t, np.arange(12) % 3), np.repeat(x, np.arange(12) % 3))
    with pytest.raises(ValueError):
        xa.repeat(t, [1, 2], axis=0)
    with pytest.raises(ValueError, match="negative"):
        xa.repeat(t, [1, -1, 2], axis=0)


# ------------------------------------------------------------------------------ jit / lazy
def test_jit_integer_gets():
    x = _vals((5, 6, 3), np.float32)
    t = xa.asarray(x)
    i = np.array([4, 0, -1])
    f = xa.jit(lambda a, idx: a[idx, :, 1] * 2)
    assert_same(f(t, xa.asarray(i)), x[i, :, 1] * 2)
    assert_same(f(t, xa.asarray(i[:2])), x[i[:2], :, 1] * 2)
    g = xa.jit(lambda a: a[:, [5, 0], ::-1])
    assert_same(g(t), x[:, [5, 0], ::-1])
    assert "advanced-index(" in g.lower(t).as_text()
    h = xa.jit(lambda a: a[1:4, ::-2, 0])                     # basic key: slice/rev/reshape
    assert_same(h(t), x[1:4, ::-2, 0])
    k = xa.jit(lambda a: a[np.array([True, False, True, False, True])])   # static mask
    assert_same(k(t), x[np.array([True, False, True, False, True])])
    tk = xa.jit(lambda a, idx: xa.take_along_axis(a, idx, 1))
    idx = np.argsort(x, axis=1)
    assert_same(tk(t, xa.asarray(idx)), np.take_along_axis(x, idx, 1))
    with pytest.raises(IndexError, match="out of bounds"):
        f(t, xa.asarray(np.array([9])))


def test_jit_mask_and_set_errors():
    t = xa.asarray(_vals((4, 3), np.float32))
    with pytest.raises(TypeError, match="xa.where"):
        xa.jit(lambda a: a[a > 50])(t)
    with pytest.raises(TypeError, match="data-dependent"):
        xa.jit(lambda a: xa.nonzero(a))(t)

    def setter(a):                   # a functional update under jit (test_jit_mutation)
        a[[0]] = 1.0
        return a
    want = np.asarray(t).copy()
    want[[0]] = 1.0
    assert_same(xa.jit(setter)(t), want)


def test_lazy_gets():
    x = _vals((4, 3), np.float64)
    t = xa.asarray(x)
    with xa.lazy():
        y = (t * 2)[[3, 0]]
        z = t[t > 50]
    assert_same(y, (x * 2)[[3, 0]])
    assert_same(z, x[x > 50])


def test_assignment_through_an_index_read_from_the_target():
    """Every index is read before any write, as NumPy: an index or mask tensor sharing
    the target's buffer is copied first."""
    for vals, fill in (([1, 0, 0], 2), ([1, 0, 2], 5)):
        n = np.array(vals)
        t = xa.asarray(n.copy())
        n[n] = fill
        t[t] = fill
        assert_same(t, n)
    n = np.arange(4)
    t = xa.asarray(n.copy())
    nv, tv = n[1:], t[1:]
    nv[n[:-1]] = 7
    tv[t[:-1]] = 7
    assert_same(t, n)
    b = np.array([True, False, True, True])
    tb = xa.asarray(b.copy())
    b[b] = False
    tb[tb] = False
    assert_same(tb, b)


def test_one_index_array_keys_take_the_direct_path_with_the_general_rules():
    # _ops/indexing.py _one_index_tensor: t[idx] (C-contiguous int64 tensor, ndarray or
    # list) and t[mask] (bool of t's shape) skip the key's plan; results, dtypes and errors
    # are NumPy's. Other keys (int32, strided int64, masks of other shapes) take the
    # general path; under xa.lazy the gather is recorded.
    base = np.arange(30.0).reshape(5, 6)
    t = xa.asarray(base)
    idx = np.array([[4, -1], [0, 2]])
    keys = [idx, idx[:, 0], idx.astype(np.int32), idx.T, np.array([], np.int64),
            [3, -5], [True, False, True, False, True], base > 11, (base > 11)[:, 0]]
    for k in keys:
        for key in (k, xa.asarray(k) if isinstance(k, np.ndarray) else k):
            got = t[key]
            np.testing.assert_array_equal(np.asarray(got), base[k])
            assert got.dtype == base[k].dtype
    for bad in (np.array([5]), [0, -6], xa.asarray(np.array([7, 1]))):
        with pytest.raises(IndexError, match="out of bounds for axis 0 with size 5"):
            t[bad]
    with xa.lazy():
        got = t[xa.asarray(idx)]
    np.testing.assert_array_equal(np.asarray(got), base[idx])


def test_zero_d_integer_keys_stay_basic_indices():
    # A 0-d integer tensor or ndarray is an integer index, as in NumPy: t[k] is a scalar
    # (1-D) or a view (2-D), and t[k] = v writes t; not the index-array path.
    t = xa.arange(3.0)
    for k in (xa.asarray(1), np.array(1), xa.asarray(1, dtype=xa.int32)):
        got = t[k]
        assert not isinstance(got, xa.Tensor) and got == 1.0
    x = xa.zeros(3)
    x[xa.asarray(1)] = np.float64(5)
    x[np.array(2)] = 7.0
    np.testing.assert_array_equal(np.asarray(x), [0.0, 5.0, 7.0])
    m = xa.zeros((2, 3))
    m[xa.asarray(0)][1] = 9.0
    assert float(m[0, 1]) == 9.0
    with pytest.raises((IndexError, ValueError)):
        t[[[0, 1], [2]]]                      # ragged: no index array
