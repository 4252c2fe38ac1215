"""lax.reduce_window, lax.select_and_scatter(_add) (xarr/_ops/window.py, kernels in
csrc/kernels/window/) and the batch norm ops (xarr/_ops/normalization.py): against naive
references written here (a loop over windows and taps, in tap order), the seed's examples,
random geometry (hypothesis), every ISA, 1 vs 2 threads, eager vs jit vs lazy, HLO text
and bad arguments.
"""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xarr as xa
from conftest import make_tensor
from xarr import lax

CORE = xa._core
ISAS = CORE.supported_isas()


# ------------------------------------------------------------------------ references
def grid_of(shape, win, strides, pads, bd, wd):
    out = []
    for n, w, s, (lo, hi), b, d in zip(shape, win, strides, pads, bd, wd):
        size = (0 if n == 0 else (n - 1) * b + 1) + lo + hi
        span = 0 if w == 0 else (w - 1) * d + 1
        out.append(max(0, (size - span) // s + 1) if size >= span else 0)
    return tuple(out)


def taps_of(o, shape, win, strides, pads, bd, wd):
    """The (tap, input index) pairs of window o that read real elements, in tap order."""
    for k in itertools.product(*[range(w) for w in win]):
        idx = []
        for d in range(len(shape)):
            x = o[d] * strides[d] + k[d] * wd[d] - pads[d][0]
            if x < 0 or x > (shape[d] - 1) * bd[d] or x % bd[d]:
                break
            idx.append(x // bd[d])
        else:
            yield k, tuple(idx)


def reference_reduce_window(x, init, fn, win, strides, pads, bd, wd):
    """out[o] = fn(... fn(fn(init, x_0), x_1) ...) over the real taps of each window."""
    grid = grid_of(x.shape, win, strides, pads, bd, wd)
    out = np.empty(grid, x.dtype)
    for o in np.ndindex(*grid):
        acc = init
        for _, idx in taps_of(o, x.shape, win, strides, pads, bd, wd):
            acc = fn(acc, x[idx])
        out[o] = acc
    return out


def reference_select_and_scatter(x, source, select, scatter, init, win, strides, pads):
    one = (1,) * x.ndim
    out = np.full(x.shape, init, x.dtype)
    for o in np.ndindex(*source.shape):
        best = None
        for _, idx in taps_of(o, x.shape, win, strides, pads, one, one):
            if best is None or not select(x[best], x[idx]):
                best = idx
        if best is not None:
            out[best] = scatter(out[best], source[o])
    return out


MONOIDS = {"add": (lax.add, np.add), "max": (lax.max, np.maximum),
           "min": (lax.min, np.minimum), "mul": (lax.mul, np.multiply)}


# ------------------------------------------------------------------------ examples
def test_seed_examples():
    x = xa.asarray(np.array([10000, 1000, 100, 10, 1], np.float32))
    big = np.float32(np.finfo(np.float32).max)
    np.testing.assert_array_equal(np.asarray(lax.reduce_window(x, big, lax.min, (3,), (2,),
                                                               "VALID")), [100, 1])
    np.testing.assert_array_equal(np.asarray(lax.reduce_window(x, big, lax.min, (3,), (2,),
                                                               ((1, 1),))), [1000, 10, 1])
    # the seed's 4x6 max over 2x3 windows of stride 2x3
    m = np.arange(24, dtype=np.float32).reshape(4, 6)
    got = lax.reduce_window(xa.asarray(m), -np.inf, lax.max, (2, 3), (2, 3), "VALID")
    np.testing.assert_array_equal(np.asarray(got), [[8, 11], [20, 23]])
    # overlapping windows both select the 9: scatter add gives 2 + 6
    out = lax.select_and_scatter_add(xa.asarray(np.array([2.0, 6.0])),
                                     xa.asarray(np.array([1.0, 9.0, 3.0])), lax.ge, (2,), (1,),
                                     ((0, 0),))
    np.testing.assert_array_equal(np.asarray(out), [0, 8, 0])


def test_padding_is_skipped_and_init_enters_once_as_in_jax():
    x = xa.asarray(np.array([1.0, 2.0, 3.0], np.float32))
    np.testing.assert_array_equal(
        np.asarray(lax.reduce_window(x, np.float32(10), lax.add, (2,), (1,), ((1, 1),))),
        [11, 13, 15, 13])
    np.testing.assert_array_equal(
        np.asarray(lax.reduce_window(x, np.float32(10), lax.add, (2,), (1,), ((0, 0),),
                                     (2,))), [11, 12, 12, 13])
    # the same through a computation that is not a monoid the kernels know
    got = lax.reduce_window(x, np.float32(10), lambda a, b: a + b * 1.0, (2,), (1,),
                            ((1, 1),))
    np.testing.assert_array_equal(np.asarray(got), [11, 13, 15, 13])


# ------------------------------------------------------------------------ properties
@st.composite
def window_cases(draw):
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.integers(0 if rank < 3 else 1, 6)) for _ in range(rank))
    win = tuple(draw(st.integers(1, 3)) for _ in range(rank))
    strides = tuple(draw(st.integers(1, 3)) for _ in range(rank))
    bd = tuple(draw(st.sampled_from([1, 1, 2])) for _ in range(rank))
    wd = tuple(draw(st.sampled_from([1, 1, 2])) for _ in range(rank))
    pads = tuple((draw(st.integers(0, 2)), draw(st.integers(0, 2))) for _ in range(rank))
    return shape, win, strides, pads, bd, wd, draw(st.integers(0, 2 ** 31))


@settings(max_examples=80, deadline=None)
@given(window_cases(), st.sampled_from(sorted(MONOIDS)),
       st.sampled_from([np.float32, np.float64, np.int32, np.int8]))
def test_reduce_window_monoids_against_reference(case, name, dt):
    shape, win, strides, pads, bd, wd, seed = case
    rng = np.random.default_rng(seed)
    x = (rng.integers(-3, 4, shape) if np.dtype(dt).kind == "i" else
         rng.standard_normal(shape)).astype(dt)
    init = {"add": 0, "mul": 1, "max": -100, "min": 100}[name]
    init = dt(init) if np.dtype(dt).kind == "i" else dt(init + 0.5)
    lax_fn, np_fn = MONOIDS[name]
    want = reference_reduce_window(x, init, lambda a, b: dt(np_fn(a, b)), win, strides, pads,
                                   bd, wd)
    for t in (xa.asarray(x), make_tensor(x, "negstep")):
        got = np.asarray(lax.reduce_window(t, init, lax_fn, win, strides, pads, bd, wd))
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 7), st.integers(1, 7), st.integers(1, 3), st.integers(1, 3),
       st.sampled_from([1, 1, 2]), st.integers(0, 3), st.integers(0, 3),
       st.sampled_from(sorted(MONOIDS)), st.sampled_from([np.float32, np.float64]),
       st.sampled_from(["dense", "negstep", "colmajor"]), st.integers(0, 2 ** 31))
def test_separable_windows_on_every_isa(kh, kw, sh, sw, dil, pad_h, pad_w, name, dt, how,
                                        seed):
    """Windows over two dims (the separable row and column passes): rows wide enough for
    vector blocks, strides, window dilation, padding, infinities and NaN for max / min,
    strided operands and outputs."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 3, 9, 37)).astype(dt)
    if name in ("max", "min"):
        x.flat[rng.integers(0, x.size, 6)] = [np.inf, -np.inf, np.nan, 5, -5, np.inf]
    if name == "mul":
        x = (1 + 0.1 * x).astype(dt)
    init = dt({"add": 0.5, "mul": 1.5, "max": -100, "min": 100}[name])
    win, strides = (1, 1, kh, kw), (1, 1, sh, sw)
    wd = (1, 1, dil, dil)
    pads = ((0, 0), (0, 0), (pad_h, pad_h // 2), (pad_w, 1))
    lax_fn, np_fn = MONOIDS[name]
    want = reference_reduce_window(x, init, lambda a, b: dt(np_fn(a, b)), win, strides, pads,
                                   (1,) * 4, wd)
    before = CORE.get_isa()
    try:
        for isa in ISAS:
            CORE.set_isa(isa)
            t = xa.asarray(x) if how == "dense" else make_tensor(x, how)
            got = np.asarray(lax.reduce_window(t, init, lax_fn, win, strides, pads,
                                               window_dilation=wd))
            np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-5)
    finally:
        CORE.set_isa(before)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(2, 11), st.integers(16, 70), st.sampled_from(["add", "mul"]),
       st.sampled_from([np.float32, np.float64]), st.booleans(), st.integers(0, 2 ** 31))
def test_2x2_stride_2_sums_and_products_on_every_isa(c, h, w, name, dt, special, seed):
    """2x2/2 windows without padding (the pair kernel when rows hold a register of windows;
    odd sizes leave the last row or column out): the same bits as the separable order,
    init op ((identity op (x00 op x01)) op (x10 op x11)), on every ISA and 1 or 2 threads,
    with infinities, NaN and signed zeros."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, c, h, w)).astype(dt)
    if name == "mul":
        x = (1 + 0.1 * x).astype(dt)
    if special:
        x.flat[rng.integers(0, x.size, 5)] = [np.inf, -np.inf, np.nan, 0.0, -0.0]
    init = dt(0.5 if name == "add" else 1.5)
    op, ident = (np.add, dt(0)) if name == "add" else (np.multiply, dt(1))
    v = x[:, :, : h // 2 * 2, : w // 2 * 2]
    with np.errstate(invalid="ignore", over="ignore"):   # (inf - inf, 0 * inf)
        r0 = op(v[:, :, 0::2, 0::2], v[:, :, 0::2, 1::2])
        r1 = op(v[:, :, 1::2, 0::2], v[:, :, 1::2, 1::2])
        want = op(init, op(op(ident, r0), r1))
    lax_fn = lax.add if name == "add" else lax.mul
    before, threads = CORE.get_isa(), xa.get_num_threads()
    try:
        for isa in ISAS:
            CORE.set_isa(isa)
            for nt in (1, 2):
                xa.set_num_threads(nt)
                got = np.asarray(lax.reduce_window(xa.asarray(x), init, lax_fn, (1, 1, 2, 2),
                                                   (1, 1, 2, 2), "VALID"))
                assert got.dtype == want.dtype
                np.testing.assert_array_equal(got, want, err_msg=f"{isa}, {nt} threads")
                real = ~np.isnan(want)   # (and the signs of zeros)
                assert np.array_equal(np.signbit(got[real]), np.signbit(want[real]))
    finally:
        CORE.set_isa(before)
        xa.set_num_threads(threads)


def test_2x2_stride_2_sums_split_over_two_threads():
    """Past the window family's thread threshold (kParallelMinElements), so rows split
    over two threads: the same bits as one thread (a sum and a product, f32)."""
    x = np.random.default_rng(3).standard_normal((4, 16, 40, 70)).astype(np.float32)
    before = xa.get_num_threads()
    try:
        for fn, init in ((lax.add, np.float32(0.5)), (lax.mul, np.float32(1.5))):
            outs = []
            for nt in (1, 2):
                xa.set_num_threads(nt)
                outs.append(np.asarray(lax.reduce_window(xa.asarray(x), init, fn, (1, 1, 2, 2),
                                                         (1, 1, 2, 2), "VALID")))
            assert np.array_equal(outs[0], outs[1], equal_nan=True)
            r = x.reshape(4, 16, 20, 2, 35, 2)
            row0, row1 = r[:, :, :, 0], r[:, :, :, 1]
            if fn is lax.add:
                want = init + ((row0[..., 0] + row0[..., 1]) + (row1[..., 0] + row1[..., 1]))
            else:
                want = init * ((row0[..., 0] * row0[..., 1]) * (row1[..., 0] * row1[..., 1]))
            np.testing.assert_array_equal(outs[0], want)
    finally:
        xa.set_num_threads(before)


@pytest.mark.parametrize("kh, pad, infinities", [(8, (3, 4), False), (11, (10, 0), True),
                                                  (9, (0, 0), True)])
def test_tall_window_sums_run_down_the_columns(kh, pad, infinities):
    """Sums over windows of 8 or more rows (the running column sum, exact again every 16
    output rows and around infinities): against the reference, and the same bits on 1
    and 2 threads (a thread starting mid-run replays from the restart row)."""
    rng = np.random.default_rng(kh)
    x = rng.standard_normal((2, 3, 45, 37)).astype(np.float32)
    if infinities:
        x[0, 1, 20, 5], x[1, 2, 3, 30], x[1, 0, 40, 0] = np.inf, -np.inf, np.nan
    win, strides, pads = (1, 1, kh, 3), (1, 1, 1, 1), ((0, 0), (0, 0), pad, (1, 1))
    want = reference_reduce_window(x, np.float32(0.5), lambda a, b: np.float32(a + b), win,
                                   strides, pads, (1,) * 4, (1,) * 4)
    before = xa.get_num_threads()
    outs = []
    try:
        for nt in (1, 2):
            xa.set_num_threads(nt)
            outs.append(np.asarray(lax.reduce_window(xa.asarray(x), np.float32(0.5), lax.add,
                                                     win, strides, pads)))
    finally:
        xa.set_num_threads(before)
    np.testing.assert_allclose(outs[0], want, rtol=1e-5, atol=2e-5)
    assert np.array_equal(outs[0], outs[1], equal_nan=True)


def test_empty_windows_and_an_overflowing_running_sum():
    """Windows of size 0 give init (no taps); a running column sum that overflows f32 in
    one window gives the right finite sums in the next ones (review findings)."""
    x = np.arange(160, dtype=np.float32).reshape(4, 40)
    for win, wd in (((1, 0), (1, 1)), ((0, 2), (2, 1))):
        got = lax.reduce_window(xa.asarray(x), np.float32(3), lax.add, win, (1, 1), "VALID",
                                window_dilation=wd)
        want = reference_reduce_window(x, np.float32(3), lambda a, b: np.float32(a + b), win,
                                       (1, 1), ((0, 0), (0, 0)), (1, 1), wd)
        np.testing.assert_array_equal(np.asarray(got), want)
    big = np.zeros((1, 1, 32, 32), np.float32)
    big[0, 0, :2] = 1.5e38
    win = (1, 1, 8, 2)
    with np.errstate(over="ignore"):
        want = reference_reduce_window(big, np.float32(0), lambda a, b: np.float32(a + b), win,
                                       (1,) * 4, ((0, 0),) * 4, (1,) * 4, (1,) * 4)
    got = np.asarray(lax.reduce_window(xa.asarray(big), np.float32(0), lax.add, win,
                                       (1,) * 4, "VALID"))
    assert np.isinf(got[0, 0, 0]).all() and np.isfinite(got[0, 0, 1:]).all()
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("width, pads", [(8, (0, 0)), (9, (1, 0)), (9, (1, 1)), (10, (2, 1)),
                                         (7, (0, 1)), (1, (1, 1)), (2, (2, 2))])
def test_two_wide_stride_two_pools_with_padding(name, width, pads):
    # The one-pass path for 2-wide, stride-2 max / min windows (window_kernels.h pool2):
    # interior pairs together, border outputs tap by tap, against the reference.
    x = np.random.default_rng(width).standard_normal((3, 5, width)).astype(np.float32)
    lax_fn, np_fn = MONOIDS[name]
    init = np.float32(-np.inf if name == "max" else np.inf)
    win, strides, padding = (1, 2, 2), (1, 1, 2), ((0, 0), (1, 0), pads)
    want = reference_reduce_window(x, init, np_fn, win, strides, padding, (1, 1, 1),
                                   (1, 1, 1))
    for t in (xa.asarray(x), make_tensor(x, "step")):
        got = lax.reduce_window(t, init, lax_fn, win, strides, padding)
        np.testing.assert_array_equal(np.asarray(got), want)


@settings(max_examples=30, deadline=None)
@given(window_cases())
def test_reduce_window_of_a_callable_and_of_two_operands(case):
    shape, win, strides, pads, bd, wd, seed = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    idx = np.arange(x.size, dtype=np.int32).reshape(shape)

    def soft(a, b):      # not a monoid: runs the traced computation over the taps
        return a * 0.5 + b
    want = reference_reduce_window(x, 1.0, soft, win, strides, pads, bd, wd)
    got = lax.reduce_window(xa.asarray(x), 1.0, soft, win, strides, pads, bd, wd)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)

    def argmax(acc, cur):  # (value, index) pairs: the first maximum
        take = cur[0] > acc[0]
        return (lax.select(take, cur[0], acc[0]), lax.select(take, cur[1], acc[1]))
    vals, inds = lax.reduce_window((xa.asarray(x), xa.asarray(idx)),
                                   (-np.inf, np.int32(-1)), argmax, win, strides, pads, bd, wd)
    pairs = np.empty(x.shape, object)
    for i in np.ndindex(*x.shape):
        pairs[i] = (x[i], idx[i])
    want = reference_reduce_window(pairs, (-np.inf, -1),
                                   lambda a, b: b if b[0] > a[0] else a, win, strides, pads,
                                   bd, wd)
    np.testing.assert_array_equal(np.asarray(vals), np.vectorize(lambda p: p[0])(want)
                                  if want.size else np.zeros(want.shape))
    np.testing.assert_array_equal(np.asarray(inds), np.vectorize(lambda p: p[1])(want)
                                  if want.size else np.zeros(want.shape))


@settings(max_examples=60, deadline=None)
@given(window_cases(), st.sampled_from(["ge", "gt", "le", "lt"]))
def test_select_and_scatter_against_reference(case, select):
    shape, win, strides, pads, _, _, seed = case
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 3, shape).astype(np.float32)        # ties
    grid = grid_of(shape, win, strides, pads, (1,) * len(shape), (1,) * len(shape))
    src = rng.standard_normal(grid).astype(np.float32)
    cmp = {"ge": np.greater_equal, "gt": np.greater, "le": np.less_equal,
           "lt": np.less}[select]
    want = reference_select_and_scatter(x, src, cmp, np.add, 0.0, win, strides, pads)
    got = lax.select_and_scatter_add(xa.asarray(src), xa.asarray(x), select, win, strides,
                                     pads)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
    # the generic path (traced select and scatter computations), scatter max, init -5
    want = reference_select_and_scatter(x, src, cmp, np.maximum, -5.0, win, strides, pads)
    lax_cmp = {"ge": lax.ge, "gt": lax.gt, "le": lax.le, "lt": lax.lt}[select]
    got = lax.select_and_scatter(xa.asarray(x), lambda a, b: lax_cmp(a, b), win, strides,
                                 pads, xa.asarray(src), np.float32(-5),
                                 lambda a, b: lax.max(a, b))
    np.testing.assert_array_equal(np.asarray(got), want)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.integers(2, 9), st.integers(2, 45),
       st.sampled_from([np.float32, np.float64]), st.sampled_from(["ge", "gt", "le", "lt"]),
       st.sampled_from(["dense", "broadcast source", "strided source"]),
       st.integers(0, 2 ** 31))
def test_pool_gradient_pairs_on_every_isa(c, h, w, dt, select, source_kind, seed):
    """2x2/2 windows (the pair kernel): ties, infinities and NaN, odd sizes (elements in no
    window), vector blocks and their tails, broadcast and strided sources."""
    rng = np.random.default_rng(seed)
    x = rng.choice(np.array([0.0, 1.0, 2.0, np.inf, -np.inf, np.nan]), (2, c, h, w),
                   p=[.3, .3, .25, .05, .05, .05]).astype(dt)
    grid = (2, c, h // 2, w // 2)
    if source_kind == "broadcast source":
        base = rng.standard_normal(grid[:3] + (1,)).astype(dt)
        src_np, src = np.broadcast_to(base, grid), lax.broadcast_in_dim(
            xa.asarray(base[..., 0]), grid, (0, 1, 2))
    elif source_kind == "strided source":
        wide = rng.standard_normal(grid[:3] + (2 * grid[3],)).astype(dt)
        src_np, src = wide[..., ::2], xa.asarray(wide)[..., ::2]
    else:
        src_np = rng.standard_normal(grid).astype(dt)
        src = xa.asarray(src_np)
    cmp = {"ge": np.greater_equal, "gt": np.greater, "le": np.less_equal,
           "lt": np.less}[select]
    win = (1, 1, 2, 2)
    want = reference_select_and_scatter(x, np.ascontiguousarray(src_np), cmp, np.add, 0.0,
                                        win, win, ((0, 0),) * 4)
    before = CORE.get_isa()
    try:
        for isa in ISAS:
            CORE.set_isa(isa)
            got = lax.select_and_scatter_add(src, xa.asarray(x), select, win, win,
                                             ((0, 0),) * 4)
            np.testing.assert_array_equal(np.asarray(got), want)
    finally:
        CORE.set_isa(before)


# ------------------------------------------------------------------------ strategies
def _pool_input():
    return np.random.default_rng(7).standard_normal((4, 8, 30, 31)).astype(np.float32)


@pytest.mark.parametrize("isa", ISAS)
def test_every_isa_against_the_reference(isa):
    x = _pool_input()
    before = CORE.get_isa()
    try:
        CORE.set_isa(isa)
        for name, (lax_fn, np_fn) in MONOIDS.items():
            for win, strides, pads in (((1, 1, 2, 2), (1, 1, 2, 2), ((0, 0),) * 4),
                                       ((1, 1, 3, 3), (1, 1, 2, 2), ((0, 0), (0, 0), (1, 1),
                                                                     (1, 1)))):
                init = {"add": 0, "mul": 1, "max": -np.inf, "min": np.inf}[name]
                got = lax.reduce_window(xa.asarray(x), np.float32(init), lax_fn, win,
                                        strides, pads)
                want = reference_reduce_window(x[:1, :2], np.float32(init), np_fn, win,
                                               strides, pads, (1,) * 4, (1,) * 4)
                np.testing.assert_allclose(np.asarray(got)[:1, :2], want, rtol=1e-5,
                                           atol=1e-6)
        w = np.random.default_rng(8).standard_normal((8, 1, 3, 3)).astype(np.float32)
        got = lax.conv_general_dilated(xa.asarray(x), xa.asarray(w), (1, 2), "SAME",
                                       feature_group_count=8)
        CORE.set_isa("ref")
        want = lax.conv_general_dilated(xa.asarray(x), xa.asarray(w), (1, 2), "SAME",
                                        feature_group_count=8)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)
    finally:
        CORE.set_isa(before)


def test_one_and_two_threads_give_the_same_bits():
    x = np.random.default_rng(9).standard_normal((8, 16, 64, 64)).astype(np.float32)
    src = np.random.default_rng(10).standard_normal((8, 16, 32, 32)).astype(np.float32)
    w = np.random.default_rng(11).standard_normal((16, 1, 3, 3)).astype(np.float32)
    before = xa.get_num_threads()
    outs = []
    try:
        for nt in (1, 2):
            xa.set_num_threads(nt)
            outs.append([np.asarray(v) for v in (
                lax.reduce_window(xa.asarray(x), np.float32(0), lax.add, (1, 1, 3, 3),
                                  (1, 1, 2, 2), "SAME"),
                lax.select_and_scatter_add(xa.asarray(src), xa.asarray(x), lax.ge,
                                           (1, 1, 2, 2), (1, 1, 2, 2), ((0, 0),) * 4),
                lax.conv_general_dilated(xa.asarray(x[:, :, :37]), xa.asarray(w), (1, 1),
                                         "SAME", feature_group_count=16))])
    finally:
        xa.set_num_threads(before)
    for a, b in zip(*outs):
        assert np.array_equal(a, b)


def test_jit_lazy_eager_agree_and_hlo_text():
    x = xa.asarray(_pool_input())
    src = xa.asarray(np.ones((4, 8, 15, 15), np.float32))

    def pools(p, s):
        m = lax.reduce_window(p, -np.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
        g = lax.select_and_scatter_add(s, p, lax.ge, (1, 1, 2, 2), (1, 1, 2, 2),
                                       ((0, 0),) * 4)
        return m, g
    eager = [np.asarray(v) for v in pools(x, src)]
    f = xa.jit(pools)
    for a, b in zip(f(x, src), eager):
        np.testing.assert_array_equal(np.asarray(a), b)
    with xa.lazy():
        lazy = pools(x, src)
    for a, b in zip(lazy, eager):
        np.testing.assert_array_equal(np.asarray(a), b)
    text = f.lower(x, src).as_text()
    assert "reduce-window(" in text and "window={size=1x1x2x2 stride=1x1x2x2" in text
    assert "select-and-scatter(" in text


# ------------------------------------------------------------------------ batch norm
def test_batch_norm_follows_the_seed_formulas():
    rng = np.random.default_rng(11)
    x = rng.standard_normal((4, 5, 3, 6))
    g, b = rng.standard_normal(3), rng.standard_normal(3)
    eps = 1e-3
    axes = (0, 1, 3)
    mu, var = x.mean(axes), x.var(axes)

    def per(v):
        return v[None, None, :, None]
    ref = (x - per(mu)) / np.sqrt(per(var) + eps) * per(g) + per(b)
    y, m, v = lax.batch_norm_training(xa.asarray(x), xa.asarray(g), xa.asarray(b), eps, 2)
    np.testing.assert_allclose(np.asarray(y), ref, atol=1e-12)
    np.testing.assert_allclose(np.asarray(m), mu, atol=1e-12)
    np.testing.assert_allclose(np.asarray(v), var, atol=1e-12)
    yi = lax.batch_norm_inference(xa.asarray(x), xa.asarray(g), xa.asarray(b),
                                  xa.asarray(mu), xa.asarray(var), eps, 2)
    np.testing.assert_allclose(np.asarray(yi), ref, atol=1e-12)
    dy = rng.standard_normal(x.shape)
    dx, dg, db = lax.batch_norm_grad(xa.asarray(x), xa.asarray(g), xa.asarray(mu),
                                     xa.asarray(var), xa.asarray(dy), eps, 2)
    m_count = x.size / 3
    c = (dy * (x - per(mu))).sum(axes) / (m_count * (var + eps))
    d = dy.sum(axes) / m_count
    np.testing.assert_allclose(np.asarray(dx), per(g) / np.sqrt(per(var) + eps) *
                               (dy - per(d) - per(c) * (x - per(mu))), atol=1e-12)
    np.testing.assert_allclose(np.asarray(dg), (dy * (x - per(mu)) /
                                                np.sqrt(per(var) + eps)).sum(axes), atol=1e-12)
    np.testing.assert_allclose(np.asarray(db), dy.sum(axes), atol=1e-12)
    # the gradient is the derivative of sum(dy * y) through the batch statistics
    def loss(xx):
        mu_, var_ = xx.mean(axes), xx.var(axes)
        return (dy * ((xx - per(mu_)) / np.sqrt(per(var_) + eps) * per(g) + per(b))).sum()
    h = 1e-6
    for i in [(0, 0, 0, 0), (3, 4, 2, 5), (1, 2, 1, 3)]:
        xp, xm = x.copy(), x.copy()
        xp[i] += h
        xm[i] -= h
        assert abs((loss(xp) - loss(xm)) / (2 * h) - np.asarray(dx)[i]) < 1e-6


def test_batch_norm_under_jit_matches_eager():
    rng = np.random.default_rng(12)
    x = xa.asarray(rng.standard_normal((8, 6, 5, 5)).astype(np.float32))
    g = xa.asarray(rng.standard_normal(6).astype(np.float32))
    b = xa.asarray(rng.standard_normal(6).astype(np.float32))
    f = xa.jit(lambda p, q, r: lax.batch_norm_training(p, q, r, 1e-5, 1))
    for a, e in zip(f(x, g, b), lax.batch_norm_training(x, g, b, 1e-5, 1)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(e), rtol=2e-5, atol=2e-5)


def test_batch_norm_is_two_passes_under_jit_and_exact_on_shifted_data():
    rng = np.random.default_rng(13)
    # a mean 1000 times the spread: the one-pass sums in float64 keep var to f32 accuracy
    x = (1000 + rng.standard_normal((6, 5, 7, 9))).astype(np.float32)
    dy = rng.standard_normal(x.shape).astype(np.float32)
    g, b = rng.standard_normal(5).astype(np.float32), rng.standard_normal(5).astype(np.float32)
    X, G, B, DY = (xa.asarray(v) for v in (x, g, b, dy))
    train = xa.jit(lambda p, q, r: lax.batch_norm_training(p, q, r, 1e-5, 1))
    y, m, v = train(X, G, B)
    x64 = x.astype(np.float64)
    axes = (0, 2, 3)
    np.testing.assert_allclose(np.asarray(m), x64.mean(axes), rtol=1e-7)
    np.testing.assert_allclose(np.asarray(v), x64.var(axes), rtol=2e-6)
    grad = xa.jit(lambda p, q, mm, vv, d: lax.batch_norm_grad(p, q, mm, vv, d, 1e-5, 1))
    dx, dg, db = grad(X, G, m, v, DY)
    mu, var = np.asarray(m).astype(np.float64), np.asarray(v).astype(np.float64)
    per = lambda u: u[None, :, None, None]   # noqa: E731
    dot = (dy * (x64 - per(mu))).sum(axes)
    np.testing.assert_allclose(np.asarray(dg), dot / np.sqrt(var + 1e-5), rtol=1e-4,
                               atol=1e-4)
    np.testing.assert_allclose(np.asarray(db), dy.astype(np.float64).sum(axes), rtol=1e-5,
                               atol=1e-4)
    # two passes over the data each: the sums, then one loop fusion
    assert train.lower(X, G, B).compile().kernel_count == 2
    assert grad.lower(X, G, m, v, DY).compile().kernel_count == 2
    text = train.lower(X, G, B).compile().as_text()
    assert "batch-norm-sums(" in text and "feature_index=1" in text


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("how", ["dense", "channels last", "strided"])
def test_batch_norm_sums_layouts_threads_and_isas(dt, how):
    rng = np.random.default_rng(14)
    base = rng.standard_normal((4, 70, 6, 35))
    if how == "channels last":       # the feature dim contiguous: rows of features
        x = np.ascontiguousarray(base.transpose(0, 2, 3, 1)).astype(dt)
        f = 3
        X = xa.asarray(x)
    elif how == "strided":
        x = base.astype(dt)[:, :, ::2, 1::3]
        f = 1
        X = xa.asarray(base.astype(dt))[:, :, ::2, 1::3]
    else:
        x, f = base.astype(dt), 1
        X = xa.asarray(x)
    g = np.ones(x.shape[f], dt)
    axes = tuple(d for d in range(4) if d != f)
    x64 = x.astype(np.float64)
    results = []
    before_isa, before_nt = CORE.get_isa(), xa.get_num_threads()
    try:
        for isa in ISAS:
            for nt in (1, 2):
                CORE.set_isa(isa)
                xa.set_num_threads(nt)
                y, m, v = lax.batch_norm_training(X, xa.asarray(g), xa.asarray(0 * g), 1e-3, f)
                results.append([np.asarray(t) for t in (y, m, v)])
    finally:
        CORE.set_isa(before_isa)
        xa.set_num_threads(before_nt)
    tol = {np.float32: 1e-6, np.float64: 1e-12, np.float16: 1e-3}[dt]
    np.testing.assert_allclose(results[0][1], x64.mean(axes), rtol=tol, atol=tol)
    np.testing.assert_allclose(results[0][2], x64.var(axes), rtol=tol, atol=tol)
    for other in results[1:]:      # every ISA and thread count: the same bits
        for a, e in zip(other, results[0]):
            assert np.array_equal(a, e)


# ------------------------------------------------------------------------ errors
@pytest.mark.parametrize("call, match", [
    (lambda: lax.reduce_window(xa.ones((4, 4)), 0.0, lax.add, (2,), (1,), "VALID"),
     "window_dimensions"),
    (lambda: lax.reduce_window(xa.ones((4, 4)), 0.0, lax.add, (2, 2), (0, 1), "VALID"),
     "must be positive"),
    (lambda: lax.reduce_window(xa.ones((4, 4), dtype=xa.int32), 0.5, lax.add, (2, 2),
                               (1, 1), "VALID"), "cannot be an operand"),
    (lambda: lax.reduce_window(xa.ones((4, 4)), 0.0, lax.add, (2, 2), (1, 1), "FULL"),
     "padding must be"),
    (lambda: lax.reduce_window(xa.ones((4,), dtype=xa.complex64), np.complex64(0), lax.max,
                               (2,), (1,), "VALID"), "complex"),
    (lambda: lax.select_and_scatter_add(xa.ones((3,)), xa.ones((4,)), lax.ge, (2,), (2,),
                                        ((0, 0),)), "source has shape"),
    (lambda: lax.batch_norm_training(xa.ones((2, 3)), xa.ones(2), xa.ones(3), 1e-5, 1),
     "scale must be"),
    (lambda: lax.batch_norm_training(xa.ones((2, 3)), xa.ones(3), xa.ones(3), 1e-5, 2),
     "feature_index 2 is out of range"),
    (lambda: lax.batch_norm_training(xa.ones((2, 3), dtype=xa.int32), xa.ones(3), xa.ones(3),
                                     1e-5, 1), "floating point"),
])
def test_bad_arguments_raise_with_the_values(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
