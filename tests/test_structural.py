"""``xa.lax`` structural ops (xarr/_ops/structural.py, seed 004): transpose, reshape (with
the ``dimensions`` order argument), collapse, rev, slice, dynamic_slice,
dynamic_update_slice, pad, concatenate, squeeze, expand_dims, bitcast_convert_type and
reduce_precision - against NumPy references and the seed's worked examples, over random
shapes (size-0 / size-1 dims), every dtype and input layouts; eager, ``xa.jit`` and
``xa.lazy`` results identical; bad input raises ValueError / TypeError naming the op."""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import xarr as xa
from conftest import (ALL_DTYPES, FLOATS, LAYOUTS, XLA_NAME, assert_same, make_tensor,
                      random_array, to_np)

lax = xa.lax

SEED_V = np.array([[[10, 11, 12], [15, 16, 17]],
                   [[20, 21, 22], [25, 26, 27]],
                   [[30, 31, 32], [35, 36, 37]],
                   [[40, 41, 42], [45, 46, 47]]], np.float32)


# ------------------------------------------------------------------------ helpers
def three_ways(fn, *tensors):
    """fn eagerly, under xa.jit and in xa.lazy; asserts the three agree bit for bit and
    returns the eager result as NumPy (a tuple for tuple results)."""
    eager = fn(*tensors)
    jitted = xa.jit(fn)(*tensors)
    with xa.lazy():
        lz = fn(*tensors)
    lz = xa.eval(*lz) if isinstance(lz, tuple) else xa.eval(lz)
    if isinstance(eager, tuple):
        for e, j, z in zip(eager, jitted, lz):
            assert_same(j, to_np(e))
            assert_same(z, to_np(e))
        return tuple(to_np(e) for e in eager)
    assert_same(jitted, to_np(eager))
    assert_same(lz, to_np(eager))
    return to_np(eager)


def raises_everywhere(exc, match, fn, *tensors):
    """fn raises exc (message matching) eagerly, while tracing for xa.jit and in xa.lazy."""
    with pytest.raises(exc, match=match):
        fn(*tensors)
    with pytest.raises(exc, match=match):
        xa.jit(fn)(*tensors)
    with pytest.raises(exc, match=match):
        with xa.lazy():
            xa.eval(fn(*tensors))


dtypes = st.sampled_from(ALL_DTYPES)
layouts = st.sampled_from(LAYOUTS)
shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)
nonscalar = hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=4)


def values(shape, dt, seed):
    return random_array(np.random.default_rng(seed), shape, dt)


def np_pad(x, value, cfg):
    """Reference Pad: interior padding first, then low/high edges (negative crops)."""
    out = np.asarray(x)
    for d, (lo, hi, interior) in enumerate(cfg):
        n = out.shape[d]
        m = n + max(n - 1, 0) * interior
        shape = list(out.shape)
        shape[d] = m
        tmp = np.full(shape, value, out.dtype)
        key = [slice(None)] * out.ndim
        key[d] = slice(0, m, interior + 1)
        tmp[tuple(key)] = out
        # low edge
        if lo >= 0:
            shape[d] = lo
            tmp = np.concatenate([np.full(shape, value, out.dtype), tmp], axis=d)
        else:
            key[d] = slice(-lo, None)
            tmp = tmp[tuple(key)]
        if hi >= 0:
            shape[d] = hi
            tmp = np.concatenate([tmp, np.full(shape, value, out.dtype)], axis=d)
        else:
            key[d] = slice(0, tmp.shape[d] + hi)
            tmp = tmp[tuple(key)]
        out = tmp
    return out


# ------------------------------------------------------------------------ transpose
@given(shape=shapes, dt=dtypes, how=layouts, data=st.data())
def test_transpose(shape, dt, how, data):
    x = values(shape, dt, 1)
    perm = tuple(data.draw(st.permutations(range(len(shape)))))
    got = three_ways(lambda t: lax.transpose(t, perm), make_tensor(x, how))
    assert_same(got, np.transpose(x, perm))


# ------------------------------------------------------------------------ reshape / collapse
def test_reshape_seed_examples():
    v = xa.asarray(SEED_V)
    flat = SEED_V.reshape(-1)
    assert_same(three_ways(lambda t: lax.reshape(t, (24,), (0, 1, 2)), v), flat)
    assert_same(three_ways(lambda t: lax.reshape(t, (8, 3), (0, 1, 2)), v),
                flat.reshape(8, 3))
    v021_24 = np.array([10, 20, 30, 40, 11, 21, 31, 41, 12, 22, 32, 42,
                        15, 25, 35, 45, 16, 26, 36, 46, 17, 27, 37, 47], np.float32)
    assert_same(three_ways(lambda t: lax.reshape(t, (24,), (1, 2, 0)), v), v021_24)
    assert_same(three_ways(lambda t: lax.reshape(t, (8, 3), (1, 2, 0)), v),
                np.array([[10, 20, 30], [40, 11, 21], [31, 41, 12], [22, 32, 42],
                          [15, 25, 35], [45, 16, 26], [36, 46, 17], [27, 37, 47]],
                         np.float32))
    assert_same(three_ways(lambda t: lax.reshape(t, (2, 6, 2), (1, 2, 0)), v),
                np.array([[[10, 20], [30, 40], [11, 21], [31, 41], [12, 22], [32, 42]],
                          [[15, 25], [35, 45], [16, 26], [36, 46], [17, 27], [37, 47]]],
                         np.float32))
    # a one-element array to a scalar and back
    one = xa.asarray(np.array([[5]], np.float32))
    assert_same(three_ways(lambda t: lax.reshape(t, (), (0, 1)), one), np.float32(5))
    five = xa.asarray(np.float32(5))
    assert_same(three_ways(lambda t: lax.reshape(t, (1, 1), ()), five),
                np.array([[5]], np.float32))


@pytest.mark.parametrize("how", LAYOUTS)
def test_reshape_seed_examples_any_layout(how):
    v = make_tensor(SEED_V, how)
    got = three_ways(lambda t: lax.reshape(t, (8, 3), (1, 2, 0)), v)
    assert_same(got, np.transpose(SEED_V, (1, 2, 0)).reshape(8, 3))


def _targets(size):
    out = [(size,), (1, size), (size, 1), (1, 1, size)]
    for k in (2, 3, 4):
        if size and size % k == 0:
            out.append((k, size // k))
            out.append((size // k, 1, k))
    if size == 0:
        out += [(0, 3), (2, 0, 5)]
    if size == 1:
        out.append(())
    return out


@given(shape=shapes, dt=dtypes, how=layouts, data=st.data())
def test_reshape_random(shape, dt, how, data):
    x = values(shape, dt, 2)
    size = x.size
    new = data.draw(st.sampled_from(_targets(size)))
    dims = data.draw(st.none() | st.permutations(range(len(shape))).map(tuple))
    want = (x if dims is None else np.transpose(x, dims)).reshape(new)
    got = three_ways(lambda t: lax.reshape(t, new, dims), make_tensor(x, how))
    assert_same(got, want)


def test_reshape_errors():
    t = xa.asarray(SEED_V)
    raises_everywhere(ValueError, "reshape", lambda a: lax.reshape(a, (5, 5)), t)
    raises_everywhere(ValueError, "reshape", lambda a: lax.reshape(a, (-1, 6)), t)
    raises_everywhere(ValueError, "reshape.*dimensions", lambda a: lax.reshape(a, (24,), (0, 1)),
                      t)
    raises_everywhere(ValueError, "reshape.*dimensions",
                      lambda a: lax.reshape(a, (24,), (0, 1, 1)), t)
    with pytest.raises(TypeError, match="reshape"):
        lax.reshape(t, (24.0,))


def test_collapse_seed_examples():
    v = xa.asarray(SEED_V)
    flat = SEED_V.reshape(-1)
    assert_same(three_ways(lambda t: lax.collapse(t, (0, 1, 2)), v), flat)
    # The seed's Collapse text says the lowest dim number is the most major one (as in
    # Reshape and jax.lax.collapse), but its v01 / v12 examples label the two results the
    # other way round (v01 == f32[4x6], v12 == f32[8x3]: dims counted from the minor
    # end). xarr follows the text: {0,1} merges the 4 and the 2, {1,2} the 2 and the 3.
    seed_4x6 = np.array([[10, 11, 12, 15, 16, 17], [20, 21, 22, 25, 26, 27],
                         [30, 31, 32, 35, 36, 37], [40, 41, 42, 45, 46, 47]], np.float32)
    seed_8x3 = np.array([[10, 11, 12], [15, 16, 17], [20, 21, 22], [25, 26, 27],
                         [30, 31, 32], [35, 36, 37], [40, 41, 42], [45, 46, 47]], np.float32)
    assert_same(three_ways(lambda t: lax.collapse(t, (1, 2)), v), seed_4x6)
    assert_same(three_ways(lambda t: lax.collapse(t, (0, 1)), v), seed_8x3)
    # jax's form: collapse(x, start, stop) with stop exclusive
    assert_same(three_ways(lambda t: lax.collapse(t, 1, 3), v), SEED_V.reshape(4, 6))
    assert_same(three_ways(lambda t: lax.collapse(t, 0, 2), v), SEED_V.reshape(8, 3))
    # an empty range inserts a unit dim, as jax.lax.collapse does
    assert_same(three_ways(lambda t: lax.collapse(t, 1, 1), v), SEED_V.reshape(4, 1, 2, 3))


@given(shape=nonscalar, dt=dtypes, how=layouts, data=st.data())
def test_collapse_random(shape, dt, how, data):
    x = values(shape, dt, 3)
    n = len(shape)
    start = data.draw(st.integers(0, n - 1))
    stop = data.draw(st.integers(start, n - 1))
    dims = tuple(range(start, stop + 1))
    want = x.reshape(shape[:start] + (int(np.prod(shape[start:stop + 1])),) + shape[stop + 1:])
    got = three_ways(lambda t: lax.collapse(t, dims), make_tensor(x, how))
    assert_same(got, want)


@pytest.mark.parametrize("dims", [(1, 0), (0, 2), (2, 1, 0), (), (0, 0)], ids=str)
def test_collapse_non_monotone_error(dims):
    t = xa.asarray(SEED_V)
    raises_everywhere(ValueError, "collapse", lambda a: lax.collapse(a, dims), t)


def test_collapse_out_of_range_error():
    t = xa.asarray(SEED_V)
    raises_everywhere(ValueError, "collapse", lambda a: lax.collapse(a, (2, 3)), t)
    raises_everywhere(ValueError, "collapse", lambda a: lax.collapse(a, 2, 5), t)


# ------------------------------------------------------------------------ rev
@given(shape=shapes, dt=dtypes, how=layouts, data=st.data())
def test_rev(shape, dt, how, data):
    x = values(shape, dt, 4)
    dims = tuple(data.draw(st.lists(st.integers(0, max(len(shape) - 1, 0)), unique=True,
                                    max_size=len(shape))))
    got = three_ways(lambda t: lax.rev(t, dims), make_tensor(x, how))
    assert_same(got, np.flip(x, dims) if dims else x)


def test_rev_errors():
    t = xa.asarray(np.zeros((2, 3), np.float32))
    raises_everywhere(ValueError, "rev", lambda a: lax.rev(a, (2,)), t)
    raises_everywhere(ValueError, "rev", lambda a: lax.rev(a, (0, 0)), t)
    raises_everywhere(ValueError, "rev", lambda a: lax.rev(a, (-1,)), t)


# ------------------------------------------------------------------------ slice
def test_slice_seed_examples():
    a = xa.asarray(np.array([0.0, 1.0, 2.0, 3.0, 4.0], np.float32))
    assert_same(three_ways(lambda t: lax.slice(t, (2,), (4,)), a),
                np.array([2.0, 3.0], np.float32))
    b = np.arange(12, dtype=np.float32).reshape(4, 3)
    assert_same(three_ways(lambda t: lax.slice(t, (2, 1), (4, 3)), xa.asarray(b)),
                np.array([[7.0, 8.0], [10.0, 11.0]], np.float32))
    # strides: the module docstring's example f32[4,6] -> f32[2,3]
    c = np.arange(24, dtype=np.float32).reshape(4, 6)
    assert_same(three_ways(lambda t: lax.slice(t, (1, 0), (3, 6), (1, 2)), xa.asarray(c)),
                c[1:3, 0:6:2])


@given(shape=nonscalar, dt=dtypes, how=layouts, data=st.data())
def test_slice_random(shape, dt, how, data):
    x = values(shape, dt, 5)
    start, limit, strides = [], [], []
    for n in shape:
        lo = data.draw(st.integers(0, n))
        hi = data.draw(st.integers(lo, n))
        start.append(lo)
        limit.append(hi)
        strides.append(data.draw(st.integers(1, 3)))
    want = x[tuple(slice(a, b, s) for a, b, s in zip(start, limit, strides))]
    got = three_ways(lambda t: lax.slice(t, start, limit, strides), make_tensor(x, how))
    assert_same(got, want)


def test_slice_scalar():
    x = xa.asarray(np.float64(2.5))
    assert_same(three_ways(lambda t: lax.slice(t, (), ()), x), np.float64(2.5))


@pytest.mark.parametrize("args", [((0, 0), (2,), (1, 1)), ((0, 0), (2, 4), (1, 1)),
                                  ((2, 0), (1, 3), (1, 1)), ((-1, 0), (2, 3), (1, 1)),
                                  ((0, 0), (2, 3), (0, 1)), ((0, 0), (2, 3), (1, -1))],
                         ids=["limit-rank", "limit>size", "start>limit", "negative-start",
                              "zero-stride", "negative-stride"])
def test_slice_errors(args):
    t = xa.asarray(np.zeros((2, 3), np.int32))
    raises_everywhere(ValueError, "slice", lambda a: lax.slice(a, *args), t)


# ------------------------------------------------------------------------ dynamic slice
def test_dynamic_slice_seed_examples():
    a = xa.asarray(np.array([0.0, 1.0, 2.0, 3.0, 4.0], np.float32))
    assert_same(three_ways(lambda t: lax.dynamic_slice(t, (2,), (2,)), a),
                np.array([2.0, 3.0], np.float32))
    b = xa.asarray(np.arange(12, dtype=np.float32).reshape(4, 3))
    assert_same(three_ways(lambda t: lax.dynamic_slice(t, (2, 1), (2, 2)), b),
                np.array([[7.0, 8.0], [10.0, 11.0]], np.float32))
    # clamping: start 4 of size 2 in a dim of 5 -> 3; negative -> 0
    assert_same(three_ways(lambda t: lax.dynamic_slice(t, (4,), (2,)), a),
                np.array([3.0, 4.0], np.float32))
    assert_same(three_ways(lambda t: lax.dynamic_slice(t, (-7,), (2,)), a),
                np.array([0.0, 1.0], np.float32))
    assert_same(three_ways(lambda t: lax.dynamic_slice(t, (100, -100), (3, 2)), b),
                np.array([[3.0, 4.0], [6.0, 7.0], [9.0, 10.0]], np.float32))


def _clamp(s, size, dim):
    return min(max(s, 0), dim - size)


@given(shape=nonscalar, dt=dtypes, how=layouts, data=st.data())
def test_dynamic_slice_clamping_random(shape, dt, how, data):
    x = values(shape, dt, 6)
    sizes = [data.draw(st.integers(0, n)) for n in shape]
    starts = [data.draw(st.integers(-6, 8)) for _ in shape]
    lo = [_clamp(s, z, n) for s, z, n in zip(starts, sizes, shape)]
    want = x[tuple(slice(a, a + z) for a, z in zip(lo, sizes))]
    got = three_ways(lambda t: lax.dynamic_slice(t, starts, sizes), make_tensor(x, how))
    assert_same(got, want)


@pytest.mark.parametrize("idt", [xa.int32, xa.int64, xa.uint8, xa.int8])
def test_dynamic_slice_runtime_indices_under_jit(idt):
    """Start indices passed as jit arguments are run-time values: one trace, each call
    clamped by the seed's rule."""
    x = np.arange(30, dtype=np.int16).reshape(5, 6)
    f = xa.jit(lambda t, i, j: lax.dynamic_slice(t, (i, j), (2, 3)))
    signed = np.dtype(idt).kind == "i"
    for i, j in [(0, 0), (1, 2), (4, 5), (3, 100 if np.dtype(idt).itemsize > 1 else 100)] + \
            ([(-3, -1)] if signed else []):
        got = f(xa.asarray(x), xa.asarray(np.array(i, idt)), xa.asarray(np.array(j, idt)))
        a, b = _clamp(i, 2, 5), _clamp(j, 3, 6)
        assert_same(got, x[a:a + 2, b:b + 3])
    assert f.trace_count == 1


def test_dynamic_slice_errors():
    t = xa.asarray(np.zeros((4, 3), np.float32))
    raises_everywhere(ValueError, "dynamic_slice", lambda a: lax.dynamic_slice(a, (0,), (1,)),
                      t)
    raises_everywhere(ValueError, "dynamic_slice",
                      lambda a: lax.dynamic_slice(a, (0, 0), (5, 1)), t)
    raises_everywhere(ValueError, "dynamic_slice",
                      lambda a: lax.dynamic_slice(a, (0, 0), (1,)), t)
    fidx = xa.asarray(np.float32(1))
    raises_everywhere(TypeError, "dynamic_slice",
                      lambda a, i: lax.dynamic_slice(a, (i, 0), (1, 1)), t, fidx)
    vidx = xa.asarray(np.array([1, 2], np.int32))
    raises_everywhere(TypeError, "dynamic_slice",
                      lambda a, i: lax.dynamic_slice(a, (i, 0), (1, 1)), t, vidx)


# ------------------------------------------------------------------------ dynamic update slice
def test_dynamic_update_slice_seed_examples():
    a = xa.asarray(np.array([0.0, 1.0, 2.0, 3.0, 4.0], np.float32))
    u = xa.asarray(np.array([5.0, 6.0], np.float32))
    assert_same(three_ways(lambda t, v: lax.dynamic_update_slice(t, v, (2,)), a, u),
                np.array([0.0, 1.0, 5.0, 6.0, 4.0], np.float32))
    b = xa.asarray(np.arange(12, dtype=np.float32).reshape(4, 3))
    u2 = xa.asarray(np.arange(12, 18, dtype=np.float32).reshape(3, 2))
    want = np.array([[0, 1, 2], [3, 12, 13], [6, 14, 15], [9, 16, 17]], np.float32)
    assert_same(three_ways(lambda t, v: lax.dynamic_update_slice(t, v, (1, 1)), b, u2), want)
    # clamped: (5, 5) -> (1, 1)
    assert_same(three_ways(lambda t, v: lax.dynamic_update_slice(t, v, (5, 5)), b, u2), want)
    # the operand is not modified
    assert_same(b, np.arange(12, dtype=np.float32).reshape(4, 3))


@given(shape=nonscalar, dt=dtypes, how=layouts, uhow=layouts, data=st.data())
def test_dynamic_update_slice_random(shape, dt, how, uhow, data):
    x = values(shape, dt, 7)
    ushape = tuple(data.draw(st.integers(0, n)) for n in shape)
    u = values(ushape, dt, 8)
    starts = [data.draw(st.integers(-5, 7)) for _ in shape]
    lo = [_clamp(s, z, n) for s, z, n in zip(starts, ushape, shape)]
    want = x.copy()
    want[tuple(slice(a, a + z) for a, z in zip(lo, ushape))] = u
    t = make_tensor(x, how)
    got = three_ways(lambda a, b: lax.dynamic_update_slice(a, b, starts), t,
                     make_tensor(u, uhow))
    assert_same(got, want)
    assert_same(t, x)


def test_dynamic_update_slice_runtime_indices_under_jit():
    x = np.zeros((4, 5), np.float64)
    u = np.ones((2, 2), np.float64)
    f = xa.jit(lambda t, v, i, j: lax.dynamic_update_slice(t, v, (i, j)))
    for i, j in [(0, 0), (3, 4), (-2, 1), (1, 99)]:
        got = f(xa.asarray(x), xa.asarray(u), xa.asarray(np.int32(i)), xa.asarray(np.int32(j)))
        want = x.copy()
        a, b = _clamp(i, 2, 4), _clamp(j, 2, 5)
        want[a:a + 2, b:b + 2] = u
        assert_same(got, want)
    assert f.trace_count == 1


def test_dynamic_update_slice_errors():
    t = xa.asarray(np.zeros((4, 3), np.float32))
    big = xa.asarray(np.zeros((5, 1), np.float32))
    other = xa.asarray(np.zeros((1, 1), np.float64))
    flat = xa.asarray(np.zeros((3,), np.float32))
    for upd in (big, other, flat):
        raises_everywhere(ValueError, "dynamic_update_slice",
                          lambda a, b: lax.dynamic_update_slice(a, b, (0, 0)), t, upd)
    small = xa.asarray(np.zeros((1, 1), np.float32))
    raises_everywhere(ValueError, "dynamic_update_slice",
                      lambda a, b: lax.dynamic_update_slice(a, b, (0,)), t, small)


# ------------------------------------------------------------------------ pad
def test_pad_docstring_example():
    x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    got = three_ways(lambda t: lax.pad(t, np.float32(0), [(1, -1, 1), (0, 0, 2)]),
                     xa.asarray(x))
    assert got.shape == (3, 7)
    assert_same(got, np_pad(x, 0, [(1, -1, 1), (0, 0, 2)]))
    assert_same(got, np.array([[0] * 7, [1, 0, 0, 2, 0, 0, 3], [0] * 7], np.float32))


# The seed's figure: a 2x3 array padded with edge (low, high) and interior settings.
PAD_FIGURE = [
    [(0, 0, 0), (0, 0, 0)],           # no-op
    [(1, 2, 0), (0, 0, 0)],           # edge padding on dim 0
    [(0, 0, 0), (1, 2, 0)],           # edge padding on dim 1
    [(0, 0, 1), (0, 0, 1)],           # interior padding
    [(1, 2, 1), (2, 1, 1)],           # both
    [(-1, 0, 0), (0, -1, 0)],         # negative edges crop
    [(0, 0, 1), (-2, 0, 2)],          # negative edge removes from the interior-padded array
    [(-2, -1, 1), (3, -4, 1)],
    [(-3, 0, 1), (0, 0, 0)],          # crops everything but a pad row
    [(2, -2, 0), (0, 0, 0)],          # shift down
]


@pytest.mark.parametrize("cfg", PAD_FIGURE, ids=str)
@pytest.mark.parametrize("how", ["c", "colmajor", "negstep", "tiled"])
def test_pad_figure_cases(cfg, how):
    x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    got = three_ways(lambda t: lax.pad(t, np.float32(-9), cfg), make_tensor(x, how))
    assert_same(got, np_pad(x, np.float32(-9), cfg))


@given(shape=nonscalar, dt=dtypes, how=layouts, data=st.data())
def test_pad_random(shape, dt, how, data):
    x = values(shape, dt, 9)
    cfg = []
    for n in shape:
        interior = data.draw(st.integers(0, 2))
        m = n + max(n - 1, 0) * interior
        lo = data.draw(st.integers(-m, 3))
        hi = data.draw(st.integers(-(m + lo) if m + lo > 0 else 0, 3))
        cfg.append((lo, hi, interior))
    pv = values((), dt, 10)
    got = three_ways(lambda t, v: lax.pad(t, v, cfg), make_tensor(x, how), xa.asarray(pv))
    assert_same(got, np_pad(x, pv, cfg))


def test_pad_python_scalar_value_and_scalar_operand():
    x = np.arange(4, dtype=np.int32)
    assert_same(three_ways(lambda t: lax.pad(t, 7, [(1, 1, 1)]), xa.asarray(x)),
                np.array([7, 0, 7, 1, 7, 2, 7, 3, 7], np.int32))
    s = xa.asarray(np.float64(3))
    assert_same(three_ways(lambda t: lax.pad(t, 0.0, []), s), np.float64(3))


def test_pad_errors():
    t = xa.asarray(np.zeros((2, 3), np.float32))
    v = xa.asarray(np.float32(0))
    raises_everywhere(ValueError, "pad.*interior",
                      lambda a, b: lax.pad(a, b, [(0, 0, -1), (0, 0, 0)]), t, v)
    raises_everywhere(ValueError, "pad", lambda a, b: lax.pad(a, b, [(0, 0, 0)]), t, v)
    raises_everywhere(ValueError, "pad", lambda a, b: lax.pad(a, b, [(-2, -1, 0), (0, 0, 0)]),
                      t, v)
    raises_everywhere(TypeError, "pad", lambda a, b: lax.pad(a, b, [(0, 0, 0)] * 2), t,
                      xa.asarray(np.float64(0)))
    raises_everywhere(TypeError, "pad", lambda a, b: lax.pad(a, b, [(0, 0, 0)] * 2), t,
                      xa.asarray(np.zeros(2, np.float32)))
    with pytest.raises(ValueError, match="pad"):
        lax.pad(t, 0.0, [(0, 0), (0, 0)])


# ------------------------------------------------------------------------ concatenate
def test_concatenate_seed_examples():
    parts = [xa.asarray(np.array(p, np.int32)) for p in ([2, 3], [4, 5], [6, 7])]
    assert_same(three_ways(lambda *ts: lax.concatenate(ts, 0), *parts),
                np.array([2, 3, 4, 5, 6, 7], np.int32))
    a = xa.asarray(np.array([[1, 2], [3, 4], [5, 6]], np.float32))
    b = xa.asarray(np.array([[7, 8]], np.float32))
    assert_same(three_ways(lambda p, q: lax.concatenate([p, q], 0), a, b),
                np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.float32))


@given(shape=nonscalar, dt=dtypes, hows=st.lists(layouts, min_size=1, max_size=4),
       data=st.data())
def test_concatenate_random(shape, dt, hows, data):
    dim = data.draw(st.integers(0, len(shape) - 1))
    xs = []
    for k, how in enumerate(hows):
        s = list(shape)
        s[dim] = data.draw(st.integers(0, 3))
        xs.append(values(tuple(s), dt, 11 + k))
    got = three_ways(lambda *ts: lax.concatenate(ts, dim),
                     *[make_tensor(x, h) for x, h in zip(xs, hows)])
    assert_same(got, np.concatenate(xs, dim))


def test_concatenate_errors():
    a = xa.asarray(np.zeros((2, 3), np.float32))
    b = xa.asarray(np.zeros((2, 4), np.float32))
    c = xa.asarray(np.zeros((2, 3), np.int32))
    s = xa.asarray(np.float32(1))
    raises_everywhere(ValueError, "concatenate", lambda p, q: lax.concatenate([p, q], 0), a, b)
    raises_everywhere(ValueError, "concatenate", lambda p, q: lax.concatenate([p, q], 0), a, c)
    raises_everywhere(ValueError, "concatenate", lambda p, q: lax.concatenate([p, q], 2), a, a)
    raises_everywhere(ValueError, "concatenate", lambda p, q: lax.concatenate([p, q], 0), s, s)
    with pytest.raises(ValueError, match="concatenate"):
        lax.concatenate([], 0)


# ------------------------------------------------------------------------ squeeze / expand_dims
@given(shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=3), dt=dtypes,
       how=layouts, data=st.data())
def test_squeeze_expand_dims(shape, dt, how, data):
    x = values(shape, dt, 12)
    ones = [i for i, d in enumerate(shape) if d == 1]
    dims = tuple(data.draw(st.lists(st.sampled_from(ones), unique=True))) if ones else ()
    got = three_ways(lambda t: lax.squeeze(t, dims), make_tensor(x, how))
    assert_same(got, np.squeeze(x, dims) if dims else x)
    k = data.draw(st.integers(0, 2))
    n = len(shape) + k
    edims = tuple(data.draw(st.lists(st.integers(0, n - 1), unique=True, min_size=k,
                                     max_size=k))) if n else ()
    got = three_ways(lambda t: lax.expand_dims(t, edims), make_tensor(x, how))
    assert_same(got, np.expand_dims(x, edims) if edims else x)


def test_squeeze_expand_dims_negative_and_errors():
    x = np.arange(6, dtype=np.float32).reshape(1, 2, 1, 3)
    t = xa.asarray(x)
    assert_same(three_ways(lambda a: lax.squeeze(a, (-2, 0)), t), x.reshape(2, 3))
    assert_same(three_ways(lambda a: lax.expand_dims(a, (-1, 0)), t),
                x.reshape(1, 1, 2, 1, 3, 1))
    raises_everywhere(ValueError, "squeeze", lambda a: lax.squeeze(a, (1,)), t)
    raises_everywhere(ValueError, "squeeze", lambda a: lax.squeeze(a, (7,)), t)
    raises_everywhere(ValueError, "expand_dims", lambda a: lax.expand_dims(a, (0, 0)), t)


# ------------------------------------------------------------------------ bitcast_convert_type
def _np_bitcast(x, new):
    new = np.dtype(new)
    a = np.array(x, order="C")
    b_old, b_new = a.dtype.itemsize, new.itemsize
    if b_old == b_new:
        return a.view(new)
    if b_old > b_new:
        return a.reshape(a.shape + (1,)).view(new).reshape(a.shape + (b_old // b_new,))
    return a.view(new).reshape(a.shape[:-1])


def test_bitcast_seed_examples():
    x = np.linspace(-3, 3, 10).astype(np.float32)
    # f16[10,2] <- f32[10]
    got = three_ways(lambda t: lax.bitcast_convert_type(t, xa.float16), xa.asarray(x))
    assert got.shape == (10, 2) and got.dtype == np.float16
    assert_same(got, x.view(np.float16).reshape(10, 2))
    # f16[2] <- f32[] (the effective scalar rule)
    s = np.float32(1.5)
    got = three_ways(lambda t: lax.bitcast_convert_type(t, xa.float16), xa.asarray(s))
    assert_same(got, np.array([s]).view(np.float16))
    # f32[10] <- f16[10,2]
    h = x.view(np.float16).reshape(10, 2)
    got = three_ways(lambda t: lax.bitcast_convert_type(t, xa.float32), xa.asarray(h))
    assert_same(got, x)
    # s32 -> f32 keeps the shape; s32 -> four s8
    i = np.array([1, -1, 0x12345678, 1065353216], np.int32)
    assert_same(three_ways(lambda t: lax.bitcast_convert_type(t, xa.float32), xa.asarray(i)),
                i.view(np.float32))
    assert_same(three_ways(lambda t: lax.bitcast_convert_type(t, xa.int8), xa.asarray(i)),
                i.view(np.int8).reshape(4, 4))


@given(shape=shapes, src=dtypes, dst=dtypes, how=layouts)
def test_bitcast_random(shape, src, dst, how):
    a, b = np.dtype(src).itemsize, np.dtype(dst).itemsize
    if b > a:
        shape = shape + (b // a,)
    x = values(shape, src, 13)
    if np.dtype(src) == np.bool_:
        x = x.astype(np.bool_)
    if np.dtype(dst) == np.bool_ and np.dtype(src) != np.bool_:
        # only 0/1 bytes are valid bools: nothing else bitcasts to pred
        with pytest.raises(TypeError, match="bitcast_convert_type.*pred"):
            lax.bitcast_convert_type(make_tensor(x, how), dst)
        return
    got = three_ways(lambda t: lax.bitcast_convert_type(t, dst), make_tensor(x, how))
    want = _np_bitcast(x, dst)
    # bit patterns compared as unsigned ints (complex as bytes; 1-d so a 0-d complex
    # result can change itemsize)
    def bits(a):
        a = np.atleast_1d(a)
        return a.view(np.uint8) if np.dtype(dst).kind == "c" else \
            a.view(f"u{np.dtype(dst).itemsize}")
    assert_same(bits(to_np(got)), bits(want))
    assert got.dtype == np.dtype(dst) and got.shape == want.shape


@pytest.mark.parametrize("src, shape, dst", [(xa.float16, (10, 3), xa.float32),
                                             (xa.float16, (10,), xa.float64),
                                             (xa.uint8, (), xa.int16),
                                             (xa.int32, (3, 2), xa.complex128)],
                         ids=["f16x3->f32", "f16->f64", "u8[]->s16", "s32x2->c128"])
def test_bitcast_width_error(src, shape, dst):
    t = xa.asarray(np.zeros(shape, src))
    raises_everywhere(ValueError, "bitcast_convert_type",
                      lambda a: lax.bitcast_convert_type(a, dst), t)


# ------------------------------------------------------------------------ reduce_precision
@pytest.mark.parametrize("how", ["c", "colmajor", "negstep"])
def test_reduce_precision_f32_to_f16_and_bf16(how):
    rng = np.random.default_rng(14)
    mag = 2.0 ** rng.uniform(-13, 15.9, 399)
    x = (mag * rng.choice([-1, 1], 399)).astype(np.float32)
    x = np.concatenate([x, np.array([0.0, -0.0, np.inf, -np.inf, 1.00048828125, 65520.0,
                                     1e6, -1e6, 1.0009765625 + 2 ** -11], np.float32)])
    x = x.reshape(17, 24)
    t = make_tensor(x, how)
    got = three_ways(lambda a: lax.reduce_precision(a, exponent_bits=5, mantissa_bits=10), t)
    with np.errstate(over="ignore"):
        assert_same(got, x.astype(np.float16).astype(np.float32))
    got = three_ways(lambda a: lax.reduce_precision(a, exponent_bits=8, mantissa_bits=7), t)
    assert_same(got, x.astype(ml_dtypes.bfloat16).astype(np.float32))
    # more bits than the type has: a no-op
    assert_same(three_ways(lambda a: lax.reduce_precision(a, 11, 52), t), x)


def test_reduce_precision_nan_underflow_and_f64():
    x = np.array([np.nan, -np.nan, 1e-10, -1e-10, 2.0 ** -14, 1.0 + 2.0 ** -30], np.float64)
    got = three_ways(lambda a: lax.reduce_precision(a, 5, 10), xa.asarray(x))
    assert np.isnan(got[:2]).all()
    assert_same(got[2:], np.array([0.0, -0.0, 2.0 ** -14, 1.0], np.float64))
    assert_same(lax.reduce_precision(xa.asarray(np.float32(1.00048828125)), 5, 10),
                np.float32(1.0))


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: XLA_NAME[np.dtype(d)])
def test_reduce_precision_every_float(dt):
    rng = np.random.default_rng(15)
    x = random_array(rng, (5, 7), dt)
    got = three_ways(lambda a: lax.reduce_precision(a, 5, 2), xa.asarray(x))
    assert got.dtype == np.dtype(dt)


def test_reduce_precision_errors():
    t = xa.asarray(np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="reduce_precision"):
        lax.reduce_precision(t, 0, 3)
    with pytest.raises(ValueError, match="reduce_precision"):
        lax.reduce_precision(t, 5, -1)
    with pytest.raises(TypeError, match="reduce_precision"):
        lax.reduce_precision(xa.asarray(np.zeros(3, np.int32)), 5, 10)


# ------------------------------------------------------------------------ composition
@pytest.mark.parametrize("how", LAYOUTS)
def test_chain_of_structural_ops(how):
    """Views over views (rev of a slice of a transpose...) feeding copies (pad, concat)."""
    x = np.arange(4 * 5 * 6, dtype=np.float64).reshape(4, 5, 6)

    def f(t):
        a = lax.transpose(t, (2, 0, 1))
        b = lax.slice(a, (1, 0, 1), (6, 4, 5), (2, 1, 2))
        c = lax.rev(b, (0, 2))
        d = lax.pad(c, -1.0, [(1, 0, 1), (0, -1, 0), (0, 0, 0)])
        e = lax.concatenate([d, d * 2], 2)
        return lax.reshape(e, (-1 + 1 + int(np.prod(e.shape)),)), lax.collapse(c, (0, 1))

    got = three_ways(f, make_tensor(x, how))
    a = np.transpose(x, (2, 0, 1))[1:6:2, 0:4, 1:5:2][::-1, :, ::-1]
    d = np_pad(a, -1.0, [(1, 0, 1), (0, -1, 0), (0, 0, 0)])
    assert_same(got[0], np.concatenate([d, d * 2], 2).reshape(-1))
    assert_same(got[1], a.reshape(-1, a.shape[2]))


# ------------------------------------------------------------------------ dynamic sizes
def test_set_dimension_size_seed_example():
    """Seed 004 SetDimensionSize: the static shape stays f32[10]; reductions see 5 / 6."""
    v = xa.asarray(np.arange(1, 11, dtype=np.float32))
    five, six = xa.asarray(np.int32(5)), xa.asarray(np.int32(6))
    p5 = lax.set_dimension_size(v, five, 0)
    p6 = lax.set_dimension_size(v, six, 0)
    assert p5.shape == (10,)
    assert lax.reduce_sum(p5, (0,)).item() == 15.0
    assert lax.reduce_prod(p5, (0,)).item() == 120.0
    assert lax.reduce_sum(p6, (0,)).item() == 21.0
    assert lax.get_dimension_size(p5, 0).item() == 5
    assert lax.get_dimension_size(p5, 0).dtype == np.int32
    assert lax.get_dimension_size(v, 0).item() == 10
    assert xa.sum(p6).item() == 21.0 and xa.mean(p6).item() == 3.5
    assert xa.max(p5).item() == 5.0


def test_set_dimension_size_on_one_dim_of_two():
    m = xa.asarray(np.arange(12.0).reshape(3, 4))
    d = lax.set_dimension_size(m, 2, 1)
    assert_same(xa.sum(d, axis=1), np.arange(12.0).reshape(3, 4)[:, :2].sum(axis=1))
    assert_same(lax.reduce(d, 0.0, "add", (0, 1)), np.float64(np.arange(12.0).reshape(3, 4)[:, :2].sum()))


@pytest.mark.parametrize("axis", [1, None, (0, 1)])
def test_mean_var_std_respect_a_run_time_size_under_jit(axis):
    """Under xa.jit the size is a run-time value (one trace for every size): mean divides
    by it and var/std sum only the valid squared deviations, as eagerly and lazily."""
    m = np.random.default_rng(2).standard_normal((3, 7)).astype(np.float32)
    x = xa.asarray(m)

    def stats(v, n):
        d = lax.set_dimension_size(v, n, 1)
        return xa.mean(d, axis=axis), xa.var(d, axis=axis, ddof=1), xa.std(d, axis=axis)

    f = xa.jit(stats)
    for n in (2, 5, 7):
        want = m[:, :n]
        got = f(x, xa.asarray(np.int32(n)))
        eager = stats(x, n)
        with xa.lazy():
            lazy = stats(x, n)
        for k, w in enumerate((want.mean(axis=axis), want.var(axis=axis, ddof=1),
                               want.std(axis=axis))):
            for r in (got[k], eager[k], lazy[k]):
                np.testing.assert_allclose(np.asarray(r), w, rtol=2e-6, atol=1e-6)
    assert f.trace_count == 1


def test_set_dimension_size_errors():
    v = xa.asarray(np.arange(4, dtype=np.float32))
    with pytest.raises(ValueError, match="set_dimension_size"):
        lax.set_dimension_size(v, 5, 0)
    with pytest.raises(ValueError, match="set_dimension_size"):
        lax.set_dimension_size(v, 1, 1)
    with pytest.raises(TypeError, match="set_dimension_size"):
        lax.set_dimension_size(v, xa.asarray(np.float32(1)), 0)
    with pytest.raises(ValueError, match="get_dimension_size"):
        lax.get_dimension_size(v, 3)
    with pytest.raises(ValueError, match="set_dimension_size"):
        xa.jit(lambda x, n: lax.set_dimension_size(x, n, 0))(v, xa.asarray(np.int32(9)))


def test_set_dimension_size_under_jit_and_lazy():
    """The size may be a run-time value: one trace serves every size."""
    v = xa.asarray(np.arange(1, 11, dtype=np.float32))
    f = xa.jit(lambda x, n: (lax.reduce_sum(lax.set_dimension_size(x, n, 0), (0,)),
                             lax.get_dimension_size(lax.set_dimension_size(x, n, 0), 0)))
    for n in (0, 5, 6, 10):
        s, size = f(v, xa.asarray(np.int32(n)))
        assert s.item() == sum(range(1, n + 1)) and size.item() == n
    assert f.trace_count == 1
    assert "set-dimension-size" in f.lower(v, xa.asarray(np.int32(5))).as_text()
    with xa.lazy():
        r = lax.reduce_prod(lax.set_dimension_size(v, 5, 0), (0,))
    assert r.item() == 120.0


def test_dynamic_slice_starts_beyond_int32_clamp():
    """Python-int starts that do not fit s32 are not truncated: they clamp like any other
    out-of-range start (2**32 -> the last block, -2**70 -> 0)."""
    n = np.arange(10.0)
    f = xa.asarray(n)
    for start, want in ((2**31, n[8:]), (2**32, n[8:]), (2**70, n[8:]), (-2**70, n[:2]),
                        (np.int64(2**40), n[8:])):
        assert_same(lax.dynamic_slice(f, (start,), (2,)), want)
    u = np.arange(10.0)
    u[8:] = 1
    assert_same(lax.dynamic_update_slice(f, xa.ones(2, dtype=xa.float64), (2**32,)), u)
    with pytest.raises(TypeError, match="lax.dynamic_slice.*3.5"):
        lax.dynamic_slice(f, (3.5,), (2,))


def test_dims_out_of_range_raise_instead_of_wrapping():
    y = xa.zeros((3, 1))
    for bad in (3, 2, -3):
        with pytest.raises(ValueError, match="lax.squeeze"):
            lax.squeeze(y, (bad,))
    assert lax.squeeze(y, (-1,)).shape == (3,)
    with pytest.raises(ValueError, match="lax.expand_dims"):
        lax.expand_dims(y, (7,))
    assert lax.expand_dims(y, (-1,)).shape == (3, 1, 1)
    for fn in (lax.cumsum, lax.cumprod, lax.cummax, lax.cummin):
        with pytest.raises(ValueError, match="out of range"):
            fn(xa.ones((3, 2)), 5)
        assert fn(xa.ones((3, 2)), -1).shape == (3, 2)
