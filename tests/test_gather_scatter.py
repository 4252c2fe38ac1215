"""XLA Gather and Scatter (xarr/_ops/gather.py, csrc/kernels/gather/) against plain Python
loops written from the seed's definitions (seed 004, Gather and Scatter: G, S, Sin, Oin /
Win, In = Sin + Oin), over random dimension numbers (batching dims included), index
vector dims, shapes with size-0 and size-1 dims, modes and update computations; the
seed's worked examples; duplicates on 1 and 2 threads; jit, lazy and the HLO text; and the
bad dimension numbers, which raise naming the values."""

import itertools

import numpy as np
import pytest
from hypothesis import given, strategies as st

import xarr as xa
from conftest import assert_same, make_tensor, random_array

L = xa.lax


# ------------------------------------------------------------------------ references
def _start(idx, ivd, g_index, vec_map, obd, ibd_pos, rank):
    """Sin of the seed for batch index G (a tuple over the index batch dims)."""
    sin = [0] * rank
    if ivd == idx.ndim:
        vec = [idx[g_index]] if vec_map else []
    else:
        vec = [idx[g_index[:ivd] + (k,) + g_index[ivd:]] for k in range(idx.shape[ivd])]
    for k, d in enumerate(vec_map):
        sin[d] = int(vec[k])
    for d, p in zip(obd, ibd_pos):
        sin[d] = g_index[p]
    return sin


def ref_gather(x, idx, dn, slice_sizes, ivd, mode, fill):
    rank = x.ndim
    nbatch = idx.ndim - (0 if ivd == idx.ndim else 1)
    out_rank = len(dn.offset_dims) + nbatch
    batch_out = [d for d in range(out_rank) if d not in dn.offset_dims]
    idx_batch = [d for d in range(idx.ndim) if d != ivd]
    ibd_pos = [idx_batch.index(d) for d in dn.start_indices_batching_dims]
    remapped = [d for d in range(rank) if d not in dn.collapsed_slice_dims and
                d not in dn.operand_batching_dims]
    shape = [0] * out_rank
    for k, d in enumerate(batch_out):
        shape[d] = idx.shape[idx_batch[k]]
    for k, d in enumerate(dn.offset_dims):
        shape[d] = slice_sizes[remapped[k]]
    out = np.empty(shape, x.dtype)
    for o in np.ndindex(*shape):
        g = tuple(o[d] for d in batch_out)
        sin = _start(idx, ivd, g, dn.start_index_map, dn.operand_batching_dims, ibd_pos,
                     rank)
        bad = False
        for d in range(rank):
            hi = x.shape[d] - slice_sizes[d]
            if not 0 <= sin[d] <= hi:
                bad = True
                sin[d] = min(max(sin[d], 0), hi)
        if bad and mode == "fill":
            out[o] = fill
            continue
        oin = [0] * rank
        for k, d in enumerate(dn.offset_dims):
            oin[remapped[k]] = o[d]
        out[o] = x[tuple(s + t for s, t in zip(sin, oin))]
    return out


def ref_scatter(x, idx, upd, dn, ivd, mode, fn):
    rank = x.ndim
    out = x.copy()
    idx_batch = [d for d in range(idx.ndim) if d != ivd]
    ibd_pos = [idx_batch.index(d) for d in dn.scatter_indices_batching_dims]
    uscatter = [d for d in range(upd.ndim) if d not in dn.update_window_dims]
    free = [d for d in range(rank) if d not in dn.inserted_window_dims and
            d not in dn.operand_batching_dims]
    window = [1] * rank
    for d, ud in zip(free, dn.update_window_dims):
        window[d] = upd.shape[ud]
    # update order: batch positions in row-major order, each window in row-major order
    # (the kernel's; the seed leaves the order of repeated updates open)
    def update_order():
        for g in np.ndindex(*[upd.shape[d] for d in uscatter]):
            for w in np.ndindex(*[upd.shape[d] for d in dn.update_window_dims]):
                u = [0] * upd.ndim
                for d, v in zip(uscatter, g):
                    u[d] = v
                for d, v in zip(dn.update_window_dims, w):
                    u[d] = v
                yield tuple(u)

    for u in update_order():
        g = tuple(u[d] for d in uscatter)
        sin = _start(idx, ivd, g, dn.scatter_dims_to_operand_dims, dn.operand_batching_dims,
                     ibd_pos, rank)
        if mode == "clip":
            sin = [min(max(s, 0), x.shape[d] - window[d]) for d, s in enumerate(sin)]
        win = [0] * rank
        for k, ud in enumerate(dn.update_window_dims):
            win[free[k]] = u[ud]
        i = tuple(s + w for s, w in zip(sin, win))
        if all(0 <= v < n for v, n in zip(i, x.shape)):
            out[i] = fn(out[i], upd[u])
    return out


# ------------------------------------------------------------------------ random problems
@st.composite
def gather_problem(draw, scatter=False):
    rank = draw(st.integers(1, 3))
    dims = [draw(st.sampled_from([1, 2, 3, 5])) for _ in range(rank)]
    roles = [draw(st.sampled_from(["offset", "offset", "collapsed", "batching"]))
             for _ in range(rank)]
    if scatter and draw(st.booleans()):
        dims[0] = draw(st.sampled_from([0, 1, 4]))
    collapsed = tuple(d for d in range(rank) if roles[d] == "collapsed")
    obd = tuple(d for d in range(rank) if roles[d] == "batching")
    indexable = [d for d in range(rank) if d not in obd]
    vec_map = tuple(draw(st.permutations(indexable))[:draw(st.integers(
        1 if indexable else 0, len(indexable)))])
    slices = [1 if roles[d] != "offset" else draw(st.integers(0, dims[d]))
              for d in range(rank)]
    extra = [draw(st.sampled_from([0, 1, 2, 3])) for _ in range(draw(st.integers(0, 2)))]
    batch = extra + [dims[d] for d in obd]
    order = draw(st.permutations(range(len(batch))))
    batch = [batch[i] for i in order]
    ibd_batchpos = [order.index(len(extra) + j) for j in range(len(obd))]
    implicit = len(vec_map) == 1 and draw(st.booleans())
    ivd = len(batch) if implicit else draw(st.integers(0, len(batch)))
    idx_shape = list(batch)
    if not implicit:
        idx_shape.insert(ivd, len(vec_map))
    idx_batch = [d for d in range(len(idx_shape)) if d != ivd]
    ibd = tuple(idx_batch[p] for p in ibd_batchpos)
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    hi = max(dims) + 2
    idx = rng.integers(-2, hi, idx_shape).astype(draw(st.sampled_from([np.int32, np.int64])))
    nwin = sum(1 for r in roles if r == "offset")
    out_rank = nwin + len(batch)
    window_pos = tuple(sorted(draw(st.permutations(range(out_rank)))[:nwin]))
    return dims, roles, collapsed, obd, vec_map, slices, idx, ivd, ibd, window_pos, rng


@given(gather_problem(), st.sampled_from([None, "clip", "fill"]),
       st.sampled_from([np.float32, np.int16, np.complex64, np.bool_, np.float64]),
       st.sampled_from(["c", "colmajor", "transposed"]))
def test_gather_against_the_seeds_definition(problem, mode, dt, how):
    dims, roles, collapsed, obd, vec_map, slices, idx, ivd, ibd, pos, rng = problem
    x = random_array(rng, dims, dt)
    dn = L.GatherDimensionNumbers(offset_dims=pos, collapsed_slice_dims=collapsed,
                                  start_index_map=vec_map, operand_batching_dims=obd,
                                  start_indices_batching_dims=ibd)
    fill = np.array(np.nan if np.dtype(dt).kind in "fc" else
                    (True if dt == np.bool_ else np.iinfo(dt).min)).astype(dt)
    want = ref_gather(x, idx, dn, slices, ivd, mode, fill)
    got = L.gather(make_tensor(x, how), xa.asarray(idx), dn, slices, mode=mode,
                   index_vector_dim=ivd)
    assert_same(got, want)


@given(gather_problem(scatter=True), st.sampled_from([None, "clip", "drop"]),
       st.sampled_from(["set", "add", "mul", "min", "max", "general"]),
       st.sampled_from([np.float32, np.int32, np.float64, np.uint8]))
def test_scatter_against_the_seeds_definition(problem, mode, combine, dt):
    dims, roles, inserted, obd, vec_map, slices, idx, ivd, ibd, pos, rng = problem
    if 0 in dims and mode == "clip":
        mode = None        # (no window fits a size-0 dim: nothing to clamp into)
    x = random_array(rng, dims, dt, specials=0.0, low=-3, high=3)
    free = [d for d in range(len(dims)) if d not in inserted and d not in obd]
    wins = [min(slices[d], dims[d]) for d in free]
    batch = [idx.shape[d] for d in range(idx.ndim) if d != ivd]
    upd_shape = [0] * (len(wins) + len(batch))
    for p, w in zip(pos, wins):
        upd_shape[p] = w
    rest = [d for d in range(len(upd_shape)) if d not in pos]
    for d, b in zip(rest, batch):
        upd_shape[d] = b
    upd = random_array(rng, upd_shape, dt, specials=0.0, low=-3, high=3)
    dn = L.ScatterDimensionNumbers(update_window_dims=pos, inserted_window_dims=inserted,
                                   scatter_dims_to_operand_dims=vec_map,
                                   operand_batching_dims=obd,
                                   scatter_indices_batching_dims=ibd)
    fns = {"set": lambda a, b: b, "add": lambda a, b: a + b, "mul": lambda a, b: a * b,
           "min": min, "max": max, "general": lambda a, b: a - b}
    with np.errstate(all="ignore"):
        want = ref_scatter(x, idx, upd, dn, ivd, "clip" if mode == "clip" else "drop",
                           fns[combine])
    t, u, i = xa.asarray(x), xa.asarray(upd), xa.asarray(idx)
    if combine == "general":
        got = L.scatter(t, i, u, dn, mode=mode, index_vector_dim=ivd,
                        update_computation=lambda a, b: a - b)
    elif combine == "set":
        got = L.scatter(t, i, u, dn, mode=mode, index_vector_dim=ivd)
    else:
        got = getattr(L, f"scatter_{combine}")(t, i, u, dn, mode=mode, index_vector_dim=ivd)
    if combine in ("add", "general") and dt == np.float32:
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
    else:
        assert_same(got, want)


# ------------------------------------------------------------------------ seed examples
def test_seed_examples():
    """The seed's informal examples: 5 slices [8,6] of a [16,11] operand (a batched
    dynamic slice), the same with [4,5,2] indices, and tf.gather_nd's rows."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 11)).astype(np.float32)
    starts = rng.integers(0, 9, (5, 2))
    starts[:, 1] = np.minimum(starts[:, 1], 5)
    dn = L.GatherDimensionNumbers(offset_dims=(1, 2), collapsed_slice_dims=(),
                                  start_index_map=(0, 1))
    got = np.asarray(L.gather(xa.asarray(x), xa.asarray(starts), dn, (8, 6)))
    for g, (a, b) in enumerate(starts):
        assert_same(got[g], x[a:a + 8, b:b + 6])
    starts4 = rng.integers(0, 6, (4, 5, 2))
    dn4 = L.GatherDimensionNumbers(offset_dims=(2, 3), collapsed_slice_dims=(),
                                   start_index_map=(0, 1))
    got4 = np.asarray(L.gather(xa.asarray(x), xa.asarray(starts4), dn4, (8, 6)))
    assert got4.shape == (4, 5, 8, 6)
    assert_same(got4[3, 2], x[starts4[3, 2, 0]:starts4[3, 2, 0] + 8,
                              starts4[3, 2, 1]:starts4[3, 2, 1] + 6])
    nd = L.GatherDimensionNumbers(offset_dims=(2,), collapsed_slice_dims=(0,),
                                  start_index_map=(0,))
    rows = rng.integers(0, 16, (2, 3, 1))
    assert_same(L.gather(xa.asarray(x), xa.asarray(rows), nd, (1, 11)), x[rows[..., 0]])


def test_out_of_range_rules():
    """SPEC.md: gather clamps a start so the slice is in bounds (or fills with mode
    'fill'); scatter skips out-of-range elements (or clamps with 'clip')."""
    x = xa.asarray(np.arange(10.0))
    dn = L.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(),
                                  start_index_map=(0,))
    idx = xa.asarray([[-3], [8], [2]])
    assert_same(L.gather(x, idx, dn, (3,)), np.array([[0, 1, 2], [7, 8, 9], [2, 3, 4.]]))
    assert_same(L.gather(x, idx, dn, (3,), mode="fill", fill_value=-1),
                np.array([[-1, -1, -1], [-1, -1, -1], [2, 3, 4.]]))
    sdn = L.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(),
                                    scatter_dims_to_operand_dims=(0,))
    ones = xa.ones((3, 3))
    assert_same(L.scatter_add(x, idx, ones, sdn),
                np.arange(10.0) + np.array([0, 0, 1, 1, 1, 0, 0, 0, 1, 1.]))
    assert_same(L.scatter_add(x, idx, ones, sdn, mode="clip"),
                np.arange(10.0) + np.array([1, 1, 2, 1, 1, 0, 0, 1, 1, 1.]))


@pytest.mark.parametrize("combine", ["set", "add", "mul", "min", "max"])
@pytest.mark.parametrize("dt", [np.float32, np.int64, np.float16])
def test_duplicates_one_thread_against_two(combine, dt, restore_threads):
    """Many updates to few positions: every update applies (the last in update order wins
    for set); the same bits on 1 and 2 threads, but for float add and mul, whose partial
    results per thread reassociate (gather.h)."""
    rng = np.random.default_rng(3)
    x = rng.integers(1, 4, 5000).astype(dt)
    idx = rng.integers(0, 5000, (200_000, 1))
    upd = (rng.integers(1, 3, 200_000) * (1 if combine != "mul" else 1)).astype(dt)
    if combine == "add" and dt != np.int64:
        upd = rng.standard_normal(200_000).astype(dt)
    dn = L.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                   scatter_dims_to_operand_dims=(0,))
    fn = {"set": L.scatter, "add": L.scatter_add, "mul": L.scatter_mul,
          "min": L.scatter_min, "max": L.scatter_max}[combine]
    outs = []
    for threads in (1, 2):
        xa.set_num_threads(threads)
        outs.append(np.asarray(fn(xa.asarray(x), xa.asarray(idx), xa.asarray(upd), dn)))
    if combine in ("add", "mul") and np.dtype(dt).kind == "f":
        np.testing.assert_allclose(outs[0].astype(np.float64), outs[1].astype(np.float64),
                                   rtol=2e-2 if dt == np.float16 else 1e-4,
                                   atol=5e-2 if dt == np.float16 else 1e-3)
    else:
        assert outs[0].tobytes() == outs[1].tobytes()
    want = x.copy()
    if combine == "set":
        want[idx[:, 0]] = upd                       # NumPy: the last write wins
    else:
        ufunc = {"add": np.add, "mul": np.multiply, "min": np.minimum,
                 "max": np.maximum}[combine]
        ufunc.at(want, idx[:, 0], upd)              # in update order, as the kernel
    if combine == "add" and dt == np.float16:
        np.testing.assert_allclose(outs[0].astype(np.float32), want.astype(np.float32),
                                   rtol=2e-2, atol=0.5)
    else:
        assert_same(outs[0], want)


def test_nan_and_n_operands():
    x = xa.asarray(np.array([1.0, 2.0, 3.0]))
    dn = L.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                   scatter_dims_to_operand_dims=(0,))
    idx = xa.asarray([[0], [0], [2]])
    got = L.scatter_max(x, idx, xa.asarray([np.nan, 5.0, 0.0]), dn)
    assert_same(got, np.array([np.nan, 2.0, 3.0]))            # NaN wins, as lax.max
    keys = xa.asarray(np.array([5, 1, 7], np.int32))
    vals = xa.asarray(np.array([0.5, 0.1, 0.7]))

    def keep_smaller(acc, new):     # an argmin-style pair update: N = 2 operands
        (k, v), (nk, nv) = acc, new
        take = nk < k
        return L.select(take, nk, k), L.select(take, nv, v)

    k, v = L.scatter((keys, vals), idx, (xa.asarray(np.array([3, 9, 2], np.int32)),
                                         xa.asarray([0.3, 0.9, 0.2])),
                     dn, update_computation=keep_smaller)
    assert_same(k, np.array([3, 1, 2], np.int32))
    assert_same(v, np.array([0.3, 0.1, 0.2]))
    y = L.scatter_apply(x, xa.asarray([[1], [1]]), lambda e: e * 10, dn, update_shape=(2,))
    assert_same(y, np.array([1.0, 200.0, 3.0]))


def test_jit_lazy_and_text():
    x = xa.asarray(np.arange(12.0).reshape(3, 4))
    dn = L.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                  start_index_map=(0,))
    sdn = L.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                    scatter_dims_to_operand_dims=(0,))
    idx = xa.asarray([[2], [0]])
    f = xa.jit(lambda a, i: L.scatter_add(a, i, L.gather(a, i, dn, (1, 4)) * 2, sdn))
    eager = L.scatter_add(x, idx, L.gather(x, idx, dn, (1, 4)) * 2, sdn)
    assert_same(f(x, idx), eager)
    with xa.lazy():
        y = L.scatter_add(x + 0, idx, L.gather(x, idx, dn, (1, 4)) * 2, sdn)
    assert_same(xa.eval(y), eager)
    text = f.lower(x, idx).as_text()
    assert "gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}" \
        in text
    assert "scatter(p0, p1, multiply" in text and "to_apply=%scatter-add" in text
    g = xa.jit(lambda a, i: L.scatter(a, i, xa.ones((2, 4)), sdn,
                                      update_computation=lambda p, q: p * q + 1))
    assert_same(g(x, idx), np.asarray(eager) * 0 + np.where(
        np.arange(3)[:, None] != 1, np.arange(12.0).reshape(3, 4) + 1,
        np.arange(12.0).reshape(3, 4)))
    assert "to_apply=" in g.lower(x, idx).as_text()


def test_bad_dimension_numbers_raise_with_values():
    x = xa.ones((3, 4))
    idx = xa.asarray([[1], [2]])
    G = L.GatherDimensionNumbers
    cases = [
        (G((1,), (0,), (0,)), (1, 5), "slice_sizes\\[1\\] = 5 must lie in \\[0, 4\\]"),
        (G((1,), (0,), (0,)), (1, 4, 1), "one size per operand dim"),
        (G((1, 0), (), (0,)), (1, 4), "offset_dims must be sorted, got \\(1, 0\\)"),
        (G((1,), (0, 0), (0,)), (1, 4), "must not repeat a dimension"),
        (G((1,), (0,), (0, 1)), (1, 4), "index vectors have 1 components"),
        (G((1,), (0,), (5,)), (1, 4), "must lie in \\[0, 2\\), got 5"),
        (G((1,), (0,), (0,)), (2, 4), "need slice size 1; slice_sizes\\[0\\] = 2"),
        (G((1,), (), (0,)), (1, 4), "rank 2 must equal"),
    ]
    for dn, sizes, msg in cases:
        with pytest.raises(ValueError, match=msg):
            L.gather(x, idx, dn, sizes)
    with pytest.raises(TypeError, match="start_indices must be integers, got f32"):
        L.gather(x, xa.asarray(np.array([[1.0]], np.float32)), G((1,), (0,), (0,)), (1, 4))
    with pytest.raises(ValueError, match="unknown mode 'wrap'"):
        L.gather(x, idx, G((1,), (0,), (0,)), (1, 4), mode="wrap")
    S = L.ScatterDimensionNumbers
    with pytest.raises(ValueError, match="window 5 along operand dim 1 exceeds its size 4"):
        L.scatter_add(x, idx, xa.ones((2, 5)), S((1,), (0,), (0,)))
    with pytest.raises(ValueError, match="scatter dims \\(3,\\) must match .* \\(2,\\)"):
        L.scatter_add(x, idx, xa.ones((3, 4)), S((1,), (0,), (0,)))
    with pytest.raises(TypeError, match="operand 0 is f64, its updates f32"):
        L.scatter(x, idx, xa.ones((2, 4), dtype=xa.float32), S((1,), (0,), (0,)))
    with pytest.raises(TypeError, match="not defined for complex"):
        L.scatter_max(x.astype(xa.complex64), idx, xa.ones((2, 4), dtype=xa.complex64),
                      S((1,), (0,), (0,)))
    with pytest.raises(ValueError, match="batching dims differ in size"):
        L.gather(xa.ones((3, 4)), xa.zeros((2, 1), dtype=xa.int32),
                 G((1,), (), (1,), operand_batching_dims=(0,),
                   start_indices_batching_dims=(0,)), (1, 1))


def test_index_dtypes_and_empty():
    x = xa.asarray(np.arange(6.0).reshape(2, 3))
    dn = L.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                  start_index_map=(0,))
    for dt in (np.int8, np.uint16, np.int32, np.uint64):
        assert_same(L.gather(x, xa.asarray(np.array([[1]], dt)), dn, (1, 3)),
                    np.array([[3.0, 4.0, 5.0]]))
    assert L.gather(x, xa.asarray(np.zeros((0, 1), np.int64)), dn, (1, 3)).shape == (0, 3)
    for a, b in itertools.product([0, 1], [0, 2]):
        assert L.gather(xa.ones((a + 1, b)), xa.asarray([[0]]), dn, (1, b)).shape == (1, b)


def test_scatter_partials_keep_untouched_elements_and_wrap_integers(restore_threads):
    """The 2-thread partial results start from an exact identity (add: -0.0), so elements
    no update reaches keep their bits (-0.0 stays -0.0); integer add and mul wrap as XLA
    and NumPy do; complex mul stays on one thread (no exact identity)."""
    dn = L.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                   scatter_dims_to_operand_dims=(0,))
    idx = xa.asarray(np.zeros((100_000, 1), np.int64))
    for threads in (1, 2):
        xa.set_num_threads(threads)
        x = np.full(1000, -0.0, np.float32)
        got = np.asarray(L.scatter_add(xa.asarray(x), idx, xa.ones(100_000, dtype=xa.float32),
                                       dn))
        assert got[0] == 100_000 and np.all(np.signbit(got[1:]))
        c = np.full(1000, complex(np.inf, 0), np.complex64)
        got = np.asarray(L.scatter_mul(xa.asarray(c), idx,
                                       xa.asarray(np.ones(100_000, np.complex64)), dn))
        assert_same(got[1:], c[1:])
        i32 = np.array([np.iinfo(np.int32).max] * 3, np.int32)
        got = L.scatter_add(xa.asarray(i32), xa.asarray([[0], [1]]),
                            xa.asarray(np.array([1, 2], np.int32)), dn)
        assert_same(got, i32 + np.array([1, 2, 0], np.int32))
        u16 = np.array([65535, 3], np.uint16)
        got = L.scatter_mul(xa.asarray(u16), xa.asarray([[0]]),
                            xa.asarray(np.array([65535], np.uint16)), dn)
        assert_same(got, u16 * np.array([65535, 1], np.uint16))


def test_take_along_axis_names_the_first_bad_index(restore_threads):
    src = xa.asarray(np.arange(3.0))
    ind = np.zeros(1 << 17, np.int64)
    ind[5], ind[100_000] = 7, -100
    for threads in (1, 2):
        xa.set_num_threads(threads)
        with pytest.raises(IndexError, match="index 7 is out of bounds"):
            xa.take_along_axis(src, xa.asarray(ind), axis=0)


@pytest.mark.parametrize("dt", [np.uint8, np.float16, np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("n", [1, 63, 64, 65, 128, 191, 192, 193, 300, 1 << 17])
def test_random_take_blocks_with_bad_indices(dt, n, restore_threads):
    """The random-take loop (csrc/kernels/indexing/index_blocks.h) checks indices a block of
    32 ahead and sends a block with one out of range to its slow path: NumPy's take wraps a
    negative index and refuses one out of bounds; gather clamps ('clip') or fills ('fill').
    Bad indices at each block edge, with 1 and 2 threads."""
    rng = np.random.default_rng(n)
    src = random_array(rng, (50,), dt)
    ind = rng.integers(-50, 50, n)
    x, xi = xa.asarray(src), xa.asarray(ind)
    far = ind.copy()
    for at in {0, 63, 64, 65, 127, 128, n // 2, n - 1}:
        if at < n:
            far[at] = 10**12 if at % 2 else -(10**12)
    dn = L.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
                                  start_index_map=(0,))
    for threads in (1, 2):
        xa.set_num_threads(threads)
        assert_same(x[xi], src[ind])
        assert_same(xa.take(x, xi), np.take(src, ind))
        with pytest.raises(IndexError, match="out of bounds"):
            x[xa.asarray(far)]
        clipped = np.clip(far, 0, 49)
        assert_same(L.gather(x, xa.asarray(far[:, None]), dn, (1,)), src[clipped])
        filled = src[clipped].copy()
        fill = L.gather(x, xa.asarray([[99]]), dn, (1,), mode="fill").item()
        filled[(far < 0) | (far > 49)] = fill
        assert_same(L.gather(x, xa.asarray(far[:, None]), dn, (1,), mode="fill"), filled)


@pytest.mark.parametrize("combine", ["add", "max"])
@pytest.mark.parametrize("n", [1, 63, 64, 65, 128, 193, 1 << 17])
def test_scatter_blocks_with_bad_indices(combine, n, restore_threads):
    """Scatter of one element per update runs index_blocks.h's loop too: a block holding an
    out-of-range index drops it (default mode) or clamps it ('clip'), the others apply
    unchecked; against np.add.at / np.maximum.at, with 1 and 2 threads."""
    rng = np.random.default_rng(n + 7)
    dest = rng.standard_normal(40)
    ind = rng.integers(0, 40, n)
    for at in {0, 63, 64, 65, 127, 128, n // 2, n - 1}:
        if at < n:
            ind[at] = 10**12 if at % 2 else -(10**12)
    upd = rng.standard_normal(n)
    sdn = L.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                    scatter_dims_to_operand_dims=(0,))
    run = L.scatter_add if combine == "add" else L.scatter_max
    ufunc = np.add if combine == "add" else np.maximum
    ok = (ind >= 0) & (ind < 40)
    dropped, clipped = dest.copy(), dest.copy()
    ufunc.at(dropped, ind[ok], upd[ok])
    ufunc.at(clipped, np.clip(ind, 0, 39), upd)
    for threads in (1, 2):
        xa.set_num_threads(threads)
        got = run(xa.asarray(dest), xa.asarray(ind[:, None]), xa.asarray(upd), sdn)
        np.testing.assert_allclose(np.asarray(got), dropped, rtol=1e-12, atol=1e-12)
        got = run(xa.asarray(dest), xa.asarray(ind[:, None]), xa.asarray(upd), sdn,
                  mode="clip")
        np.testing.assert_allclose(np.asarray(got), clipped, rtol=1e-12, atol=1e-12)
