"""The sort family's sorts (csrc/kernels/sort/sort.h, xarr/_ops/sorting.py,
xarr/_numpy/sorting.py): values and permutations against NumPy's stable sort on every
dtype with NaNs, signed zeros and duplicates, over layouts, axes and size-0/1 dims;
stability with tagged keys; each ISA's quicksort against the std::sort reference; one
thread against two; lax.sort's operands and keys, top_k, jit / lazy and the HLO text; the
bad arguments."""

import functools

import numpy as np
import pytest
from hypothesis import given, strategies as st

import xarr as xa
from xarr._ops import sorting as sorting_ops
from xarr._dtypes import CODE_OF
from conftest import (ALL_DTYPES, BF16, COMPLEX, LAYOUTS, assert_same, make_tensor,
                      random_array)
from xarr import _core as CORE
from xarr._bindings import sort as _sort

ISAS = CORE.supported_isas()
REAL_DTYPES = [d for d in ALL_DTYPES if d not in COMPLEX]


def _np_keys(a):
    """a as NumPy sorts it (bfloat16 through float32, which keeps its order and NaNs)."""
    return a.astype(np.float32) if a.dtype == BF16 else a


def stable_argsort(a, axis):
    return np.argsort(_np_keys(a), axis=axis, kind="stable")


def descending_argsort(a, axis):
    """The stable descending order: NaNs first, equal keys (both zeros, every NaN) in
    index order. From NumPy's dense ranks (np.unique merges NaNs and the two zeros)."""
    a = np.moveaxis(_np_keys(a), axis, -1)
    out = np.empty(a.shape, np.int64)
    for i in np.ndindex(a.shape[:-1]):
        row = a[i]
        _, rank = np.unique(row, return_inverse=True, equal_nan=True)
        out[i] = np.lexsort((np.arange(row.size), -rank.reshape(-1)))
    return np.moveaxis(out, -1, axis)


def _values(dt, shape, rng, dups):
    a = random_array(rng, shape, dt)
    if dups and a.size:            # many equal keys: a few values repeated
        pool = a.reshape(-1)[: max(1, a.size // 7)]
        a = rng.choice(pool, a.size).reshape(shape)
    return a


@given(st.data())
def test_sort_and_argsort_against_numpy(data):
    """Values and stable permutations equal NumPy's stable sort (zero signs and NaN
    placement included) for every dtype, layout and axis, size-0 and size-1 dims too."""
    dt = data.draw(st.sampled_from(ALL_DTYPES))
    shape = tuple(data.draw(st.lists(st.sampled_from([0, 1, 2, 3, 7, 40, 300]),
                                     min_size=1, max_size=3)))
    how = data.draw(st.sampled_from(LAYOUTS))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    dups = data.draw(st.booleans())
    a = _values(dt, shape, np.random.default_rng(data.draw(st.integers(0, 2**16))), dups)
    t = make_tensor(a, how)
    want = stable_argsort(a, axis)
    assert_same(xa.argsort(t, axis=axis), want)
    assert_same(xa.sort(t, axis=axis), np.take_along_axis(a, want, axis))
    assert_same(xa.sort(t, axis=axis, stable=False), np.take_along_axis(a, want, axis),
                zero_sign=False)


@pytest.mark.parametrize("dt", REAL_DTYPES)
def test_descending_keeps_equal_keys_in_order(dt):
    rng = np.random.default_rng(3)
    a = _values(dt, (5, 257), rng, dups=True)
    want = descending_argsort(a, 1)
    t = xa.asarray(a)
    assert_same(xa.argsort(t, axis=1, descending=True), want)
    assert_same(xa.sort(t, axis=1, descending=True), np.take_along_axis(a, want, 1))


def test_stability_with_tagged_keys():
    """Equal keys keep their order: the tags moved with the keys stay ascending within
    every run of equal keys (the seed's is_stable), for 1- to 8-byte keys."""
    rng = np.random.default_rng(7)
    for dt in (np.int8, np.uint16, np.float32, np.int64, np.float64, BF16):
        keys = rng.integers(0, 5, 3000).astype(dt)
        tags = np.arange(3000, dtype=np.int32)
        k, v = xa.lax.sort((xa.asarray(keys), xa.asarray(tags)), num_keys=1)
        k, v = np.asarray(k), np.asarray(v)
        assert np.all(np.diff(k.astype(np.float64)) >= 0)
        same = k[1:] == k[:-1]
        assert np.all(np.diff(v)[same] > 0)
        assert_same(v, stable_argsort(keys, 0).astype(np.int32))


def test_zeros_and_nans_keep_their_order():
    """-0.0 == +0.0 and NaN == NaN: a stable sort leaves each group in its start order
    (the value sort restores them after the quicksort), an unstable one need not."""
    a = np.array([0.0, -1.0, -0.0, np.nan, -np.nan, 0.0, -0.0, 2.0], np.float32)
    for dt in (np.float16, np.float32, np.float64):
        x = a.astype(dt)
        got = np.asarray(xa.sort(xa.asarray(x)))
        assert_same(got, np.sort(x, kind="stable"))
        assert list(np.signbit(got[1:5])) == [False, True, False, True]
        assert list(np.signbit(got[6:])) == [False, True]        # +NaN came first
        down = np.asarray(xa.sort(xa.asarray(x), descending=True))
        assert list(np.signbit(down[:2])) == [False, True]
        assert list(np.signbit(down[3:7])) == [False, True, False, True]


def _hard_inputs(n, dt, rng):
    info = np.iinfo(dt) if np.dtype(dt).kind in "iu" else None
    yield rng.integers(0, 2**31, n).astype(dt)                  # random
    yield np.sort(rng.integers(0, 2**31, n).astype(dt))          # sorted
    yield np.sort(rng.integers(0, 2**31, n).astype(dt))[::-1].copy()
    yield np.full(n, 5, dt)                                       # all equal
    yield rng.integers(0, 3, n).astype(dt)                       # few distinct
    yield np.concatenate([np.arange(n // 2), np.arange(n - n // 2)[::-1]]).astype(dt)
    if info is not None:
        yield rng.choice(np.array([info.min, info.max, 0], dt), n)


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dt", [np.uint32, np.int32, np.float32, np.uint64, np.int64,
                                np.float64])
def test_every_isa_quicksort_against_numpy(isa, dt, restore_isa):
    """Each ISA's vector quicksort (the reference's std::sort too) on the shapes that
    stress it: around its register blocks (16 N keys) and partition unrolls, sorted,
    reversed, all-equal, few-distinct and organ-pipe rows."""
    rng = np.random.default_rng(11)
    CORE.set_isa(isa)
    for n in (1, 2, 3, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
              300, 511, 513, 1000, 4097, 20000):
        for a in _hard_inputs(n, dt, rng):
            got = _sort.sort_rows(xa.asarray(a), 0, None, True, False, False, False)[0]
            assert_same(got, np.sort(a), zero_sign=False)


@pytest.mark.parametrize("dt", [np.float32, np.int64, np.uint8, np.float16])
def test_long_rows_one_thread_against_two(dt, restore_threads):
    """A row long enough to be split over threads (an MSD pass, then buckets) sorts to the
    same values and permutation on 1 and 2 threads, skewed buckets included."""
    rng = np.random.default_rng(2)
    n = 400_000
    for a in (random_array(rng, (n,), dt), (rng.integers(0, 40, n) * 1000).astype(dt)):
        t = xa.asarray(a)
        out = []
        for threads in (1, 2):
            xa.set_num_threads(threads)
            out.append((np.asarray(xa.sort(t)), np.asarray(xa.argsort(t))))
        want = stable_argsort(a, 0)
        for values, index in out:
            assert_same(index, want)
            assert_same(values, a[want])


def test_rows_over_threads_and_strided_outputs(restore_threads):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((64, 3000)).astype(np.float32)
    for threads in (1, 2):
        xa.set_num_threads(threads)
        for how in ("c", "colmajor", "transposed", "negstep"):
            t = make_tensor(a, how)
            assert_same(xa.sort(t, axis=1), np.sort(a, axis=1))
            assert_same(xa.sort(t, axis=0), np.sort(a, axis=0))
            assert_same(xa.argsort(t, axis=0), stable_argsort(a, 0))


def test_lax_sort_operands_keys_and_jit():
    rng = np.random.default_rng(5)
    k1 = rng.integers(0, 3, (4, 50)).astype(np.int32)
    k2 = rng.standard_normal((4, 50)).astype(np.float32)
    v = rng.standard_normal((4, 50))
    want = np.lexsort((k2, k1), axis=1)
    ops = (xa.asarray(k1), xa.asarray(k2), xa.asarray(v))
    got = xa.lax.sort(ops, dimension=1, num_keys=2)
    for g, x in zip(got, (k1, k2, v)):
        assert_same(g, np.take_along_axis(x, want, 1))
    jitted = xa.jit(lambda a, b, c: xa.lax.sort((a, b, c), 1, True, 2))(*ops)
    for g, e in zip(jitted, got):
        assert_same(g, e)
    with xa.lazy():
        lazy = xa.lax.sort((ops[0] + 0, ops[2]), 0, num_keys=1)
    assert_same(xa.eval(lazy[1]), np.take_along_axis(v, stable_argsort(k1, 0), 0))
    text = xa.jit(lambda a, b: xa.lax.sort((a, b), 0, True, 2)).lower(
        ops[0], ops[1]).as_text()
    assert "sort(p0, p1), dimensions={0}, is_stable=true, to_apply=%compare-lt.keys2" in text
    k, val = xa.lax.sort_key_val(xa.asarray(k1[0]), xa.asarray(v[0]))
    assert_same(val, v[0][stable_argsort(k1[0], 0)])
    assert_same(xa.lax.sort(xa.asarray([3.0, np.nan, -1.0])), np.array([-1.0, 3.0, np.nan]))


def test_complex_keys_follow_numpy_nan_classes():
    x = np.array([complex(np.nan, 1), complex(2, np.nan), 1 + 1j, complex(np.nan, np.nan),
                  1 - 1j, complex(2, 0), complex(-1, np.nan), complex(np.nan, -3)],
                 np.complex128)
    rng = np.random.default_rng(1)
    for _ in range(5):
        a = rng.permutation(np.concatenate([x, x[:3]]))
        assert_same(xa.sort(xa.asarray(a)), np.sort(a, kind="stable"))
        assert_same(xa.argsort(xa.asarray(a)), np.argsort(a, kind="stable"))
        assert_same(xa.sort(xa.asarray(a.astype(np.complex64))),
                    np.sort(a.astype(np.complex64), kind="stable"))


def test_top_k_as_jax():
    """The k largest along the last axis, largest first, ties by lower index; NaN is the
    largest (jax.lax.top_k)."""
    a = np.array([[1.0, 5.0, 3.0, 5.0, np.nan], [0.0, -1.0, 2.0, 2.0, 2.0]], np.float32)
    values, index = xa.lax.top_k(xa.asarray(a), 3)
    assert_same(index, np.array([[4, 1, 3], [2, 3, 4]], np.int32))
    assert_same(values, np.array([[np.nan, 5, 5], [2, 2, 2]], np.float32))
    v0, i0 = xa.lax.top_k(xa.asarray(a), 0)
    assert v0.shape == (2, 0) and i0.dtype == np.int32


def test_numpy_frontend_and_methods():
    a = np.array([[3, 1, 2], [9, 7, 8]], np.int16)
    t = xa.asarray(a)
    assert_same(xa.sort(t, axis=None), np.sort(a, axis=None))
    assert_same(xa.argsort(t, axis=None), np.argsort(a, axis=None, kind="stable"))
    assert_same(np.sort(t, axis=0), np.sort(a, axis=0))          # NEP 18 dispatch
    assert_same(xa.lexsort([xa.asarray([1, 0, 1]), xa.asarray([2, 2, 1])]),
                np.lexsort([[1, 0, 1], [2, 2, 1]]))
    keys = np.array([[1, 0, 1, 0], [2, 2, 1, 1]])
    assert_same(xa.lexsort(xa.asarray(keys)), np.lexsort(keys))
    assert_same(xa.sort_complex(xa.asarray([3, 1, 2])), np.sort_complex([3, 1, 2]))
    assert_same(xa.sort_complex(xa.asarray(np.array([3, 1], np.int8))),
                np.sort_complex(np.array([3, 1], np.int8)))
    p = np.asarray(xa.partition(t, 1, axis=1))
    assert np.all(p[:, :1] <= p[:, 1:2]) and np.all(p[:, 2:] >= p[:, 1:2])
    ap = np.asarray(xa.argpartition(xa.asarray(a[0]), [0, 2]))
    assert sorted(ap.tolist()) == [0, 1, 2] and a[0][ap[0]] == 1
    m = xa.asarray(a.copy())
    m.sort(axis=1)
    assert_same(m, np.sort(a, axis=1))
    assert_same(t.argsort(), np.argsort(a, kind="stable"))
    assert_same(xa.sort(xa.asarray(np.array(5))[()], axis=None), np.array([5]))


def test_bad_arguments_raise_with_values():
    t = xa.asarray([[1, 2], [3, 4]])
    with pytest.raises(ValueError, match=r"num_keys must be in \[1, 2\].*got 3"):
        xa.lax.sort((t, t), num_keys=3)
    with pytest.raises(ValueError, match="one shape.*\\(2, 2\\).*\\(2,\\)"):
        xa.lax.sort((t, xa.asarray([1, 2])), num_keys=1)
    with pytest.raises(ValueError, match="lax.sort.*axis 2.*out of bounds|out of range"):
        xa.lax.sort(t, dimension=2)
    with pytest.raises(ValueError, match="sort kind must be one of.*'bogus'"):
        xa.sort(t, kind="bogus")
    with pytest.raises(ValueError, match="cannot specify order"):
        xa.argsort(t, order="x")
    with pytest.raises(ValueError, match=r"kth\(=5\) out of bounds \(2\)"):
        xa.partition(t, 5)
    with pytest.raises(ValueError, match="same shape"):
        xa.lexsort([xa.asarray([1, 2]), xa.asarray([1, 2, 3])])
    with pytest.raises(ValueError, match=r"k must be in \[0, 2\].*got 3"):
        xa.lax.top_k(t, 3)
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 1 with size 2"):
        xa.take_along_axis(t, xa.asarray([[5], [0]]), axis=1)


def test_comparator_sorts_against_python_sorted():
    """A traced comparator (the seed's lhs_0, rhs_0, lhs_1, rhs_1 ... order) sorts as
    Python's sorted with functools.cmp_to_key over the same rule, stably; lt / gt of
    operand 0 are recognized and run on the kernels; under jit the comparator is a
    called computation."""
    rng = np.random.default_rng(9)
    a = rng.integers(-5, 6, 37).astype(np.float64)
    tags = np.arange(37)

    def less(x, y):                      # by distance from 1, ties keep their order
        return abs(x - 1.0) < abs(y - 1.0)

    want = sorted(range(37), key=functools.cmp_to_key(
        lambda i, j: -1 if less(a[i], a[j]) else (1 if less(a[j], a[i]) else 0)))
    got = xa.lax.sort((xa.asarray(a), xa.asarray(tags)),
                      comparator=lambda x, y, i, j: xa.lax.abs(x - 1.0) <
                      xa.lax.abs(y - 1.0))
    assert_same(got[1], tags[want])
    assert_same(got[0], a[want])
    two_key = xa.lax.sort((xa.asarray(a), xa.asarray(-tags)),
                          comparator=lambda x, y, p, q: xa.lax.select(
                              x == y, p < q, x < y))
    order = np.lexsort((-tags, a))
    assert_same(two_key[1], -tags[order])
    assert_same(xa.lax.sort(xa.asarray(a), comparator=lambda x, y: x > y),
                np.sort(a)[::-1])
    rows = rng.standard_normal((3, 10))
    f = xa.jit(lambda v: xa.lax.sort(v, 1, comparator=lambda x, y: x * x < y * y))
    assert_same(f(xa.asarray(rows)), np.take_along_axis(
        rows, np.argsort(rows * rows, axis=1, kind="stable"), 1))
    assert "to_apply=compare" in f.lower(xa.asarray(rows)).as_text()
    with pytest.raises(TypeError, match="comparator must return one pred scalar"):
        xa.lax.sort(xa.asarray(a), comparator=lambda x, y: x - y)


def test_key_function_comparators_against_the_network():
    """A comparator lt / gt(k(lhs...), k(rhs...)) sorts by the keys k(operands) on the
    kernels (sorting._keys_of), and so does a lexicographic chain of such keys (select on
    eq / ne, or or / and); against Python's sorted and against the general network
    (_sort_by_comparator) on the same comparator: keys of several operands, a descending
    one, a key of pred type, ties kept in order, eager and under jit. Mixed directions
    and keys that are not mirrors run on the network."""
    rng = np.random.default_rng(10)
    a, b = rng.integers(-4, 5, 300), rng.integers(-4, 5, 300)
    tags = np.arange(300)
    cases = [
        (lambda l0, r0, l1, r1, l2, r2: (l0 + l1) < (r0 + r1), lambda i: a[i] + b[i]),
        (lambda l0, r0, l1, r1, l2, r2: xa.lax.gt(l0 * l0, r0 * r0), lambda i: -a[i] ** 2),
        (lambda l0, r0, l1, r1, l2, r2: xa.lax.lt(l1 > 0, r1 > 0), lambda i: b[i] > 0),
        (lambda l0, r0, l1, r1, l2, r2: xa.lax.select(l0 == r0, l1 < r1, l0 < r0),
         lambda i: (a[i], b[i])),
        (lambda l0, r0, l1, r1, l2, r2: xa.lax.select(l1 != r1, l1 > r1, l0 * 2 > r0 * 2),
         lambda i: (-b[i], -a[i])),
        (lambda l0, r0, l1, r1, l2, r2: xa.lax.bitwise_or(
            xa.lax.bitwise_and(l0 + l1 == r0 + r1, l0 < r0), l0 + l1 < r0 + r1),
         lambda i: (a[i] + b[i], a[i])),
        (lambda l0, r0, l1, r1, l2, r2: xa.lax.select(l0 == r0, l1 > r1, l0 < r0),
         lambda i: (a[i], -b[i])),
        (lambda l0, r0, l1, r1, l2, r2: xa.lax.lt(xa.lax.abs(l0 - 1), 2), None),
    ]
    on_kernels = [True, True, True, True, True, True, False, False]
    ops = (xa.asarray(a), xa.asarray(b), xa.asarray(tags))
    codes = [CODE_OF[x.dtype] for x in ops]
    for n, (comparator, key) in enumerate(cases):
        got = xa.lax.sort(ops, comparator=comparator)
        if key is not None:
            assert_same(got[2], tags[sorted(range(300), key=key)])   # (sorted is stable)
        _, comp = sorting_ops._comparator_of(comparator, codes)
        assert (sorting_ops._keys_of(comp) is not None) == on_kernels[n], n
        network = sorting_ops._sort_by_comparator(ops, 0, comp)
        for g, w in zip(got, network):
            assert_same(g, w)
    f = xa.jit(lambda x, y, t: xa.lax.sort((x, y, t), comparator=cases[0][0]))
    assert_same(f(*ops)[2], tags[sorted(range(300), key=cases[0][1])])


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dt", [np.float32, np.int64, np.uint32, np.float64, np.int16])
def test_every_isa_selection_against_a_sort(isa, dt, restore_isa):
    """NumPy's partition contract on each ISA's quickselect (std::nth_element the
    reference): every kth holds the sorted element, smaller before and larger after, and
    the row is a permutation; hard inputs, NaNs included."""
    rng = np.random.default_rng(13)
    CORE.set_isa(isa)
    for n in (1, 7, 255, 256, 257, 1000, 20000):
        for a in _hard_inputs(n, dt, rng):
            if np.dtype(dt).kind == "f" and n > 3:
                a = a.copy()
                a[rng.integers(0, n, 2)] = np.nan
            ks = sorted({int(k) for k in rng.integers(0, n, 4)} | {n - 1})
            got = np.asarray(xa.partition(xa.asarray(a), ks))
            srt = np.sort(a)
            assert_same(np.sort(got), srt, zero_sign=False)
            for k in ks:
                assert_same(got[k:k + 1], srt[k:k + 1], zero_sign=False)
                lo, hi = got[:k], got[k + 1:]
                if not np.isnan(got[k]):
                    assert np.all(lo <= got[k]) and np.all((hi >= got[k]) | np.isnan(hi))


def test_network_stages_fused_against_eager(monkeypatch):
    """A comparator the kernels do not take (mixed directions) runs the comparison network;
    rows of 1024 or more run each stage as one xa.jit function: the same result as the
    eager stages, and as NumPy's lexsort, along either axis of a 2-D operand."""
    rng = np.random.default_rng(12)
    a = rng.integers(0, 9, (3, 1500)).astype(np.float32)
    b = rng.standard_normal((3, 1500))
    comparator = lambda l0, r0, l1, r1: xa.lax.select(l0 == r0, l1 > r1, l0 < r0)  # noqa: E731
    fused = xa.lax.sort((xa.asarray(a), xa.asarray(b)), 1, comparator=comparator)
    down = xa.lax.sort((xa.asarray(a.T), xa.asarray(b.T)), 0, comparator=comparator)
    monkeypatch.setattr(sorting_ops, "_FUSED_STAGES_FROM", 1 << 40)
    eager = xa.lax.sort((xa.asarray(a), xa.asarray(b)), 1, comparator=comparator)
    order = np.stack([np.lexsort((-b[r], a[r])) for r in range(3)])
    for f, e, v in zip(fused, eager, (a, b)):
        assert_same(f, e)
        assert_same(f, np.take_along_axis(v, order, 1))
    assert_same(down[1], np.take_along_axis(b, order, 1).T)


def test_a_non_strict_comparator_still_permutes():
    """With <= both of a tied pair claim to go first: ties go by position, so the result
    is still a permutation (stable)."""
    keys = xa.asarray([1.0, 1.0, 0.0, 1.0, 0.0])
    _, tags = xa.lax.sort((keys, xa.asarray([0.0, 1.0, 2.0, 3.0, 4.0])),
                          comparator=lambda p, q, c, d: p <= q)
    assert_same(tags, np.array([2.0, 4.0, 0.0, 1.0, 3.0]))
