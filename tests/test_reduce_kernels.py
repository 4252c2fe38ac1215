"""The reduction kernels (csrc/kernels/reduce, bound as ``xarr._tensor.reduce_into``) against
NumPy, against the scalar reference table on every vector ISA, and 1 against 2 threads.

Exact ops (integer arithmetic, max/min, and/or, argmax/argmin) must equal NumPy. Float sums
are pairwise: the error against a float64 (complex128) reference stays within
``(leaf + c log2 n) eps sum|x|``, and within a small multiple of NumPy's own error.
Every vector ISA gives the reference's bits, and so do 1 and 2 threads.
"""

import itertools
import math

import numpy as np
import pytest

import xarr as xa
from conftest import (ALL_DTYPES, BF16, assert_same, finfo, kind, make_tensor, random_array,
                      to_np)
from xarr import _tensor as T
from xarr._bindings import reduce as RK
from xarr._dtypes import CODE_OF

CORE = xa._core
ISAS = CORE.supported_isas()
VECTOR_ISAS = [i for i in ISAS if i != "ref"]
OPS = ["sum", "prod", "max", "min", "and", "or", "argmax", "argmin"]
CODE = {name: getattr(RK, "REDUCE_" + name.upper()) for name in OPS}
LAYOUTS = ["c", "colmajor", "step", "negstep", "transposed"]
SHAPES = [(0,), (1,), (7,), (300,), (3, 0), (1, 5), (4, 1), (6, 37), (33, 65), (2, 3, 4),
          (5, 1, 70), (0, 3, 2), (3, 17, 9)]
PAR = CORE.parallel_min_elements


def supported(op, dt):
    return RK.reduce_has_kernel(CODE[op], CODE_OF[np.dtype(dt)])


def expected_support(op, dt):
    k = kind(dt)
    if op in ("sum", "prod"):
        return True
    if op in ("and", "or"):
        return k in "biu"
    return k != "c"


def out_shape(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if a in axes else d for a, d in enumerate(shape))
    return tuple(d for a, d in enumerate(shape) if a not in axes)


def run(op, t, axes, keepdims=False, m2m=None):
    """reduce_into into a fresh output; returns the NumPy view of the output."""
    shape = tuple(t.shape)
    dt = np.dtype(np.int64) if op.startswith("arg") else np.dtype(t.dtype)
    out = T.empty(out_shape(shape, axes, keepdims), CODE_OF[dt], m2m)
    RK.reduce_into(CODE[op], out, t, tuple(axes))
    res = to_np(out)
    if keepdims:
        res = res.reshape(out_shape(shape, axes, False))
    return res


def as_f64(x):
    x = np.asarray(x)
    if kind(x.dtype) == "c":
        return x.astype(np.complex128)
    if kind(x.dtype) == "f":
        return x.astype(np.float64)
    return x


def np_reduce(op, x, axes):
    """NumPy's answer (identities for empty reductions; pred sum/prod are or/and)."""
    axes = tuple(axes)
    dt = x.dtype
    k = kind(dt)
    if op.startswith("arg"):
        (ax,) = axes
        xf = x.astype(np.float32) if dt in (np.dtype(np.float16), BF16) else x
        return (np.argmax if op == "argmax" else np.argmin)(xf, axis=ax).astype(np.int64)
    if k == "b":
        fn = np.logical_or if op in ("sum", "max", "or") else np.logical_and
        return fn.reduce(x, axis=axes) if axes else x.copy()
    if k in "iu":
        info = np.iinfo(dt)
        ident = {"sum": 0, "prod": 1, "max": info.min, "min": info.max, "and": -1, "or": 0}[op]
        ufunc = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum,
                 "and": np.bitwise_and, "or": np.bitwise_or}[op]
        if any(x.shape[a] == 0 for a in axes):
            return np.full(out_shape(x.shape, axes, False), ident).astype(dt)
        return ufunc.reduce(x, axis=axes, dtype=dt) if axes else x.copy()
    # floats: max/min are exact selections; computed in float64 and cast back
    x64 = as_f64(x)
    ident = {"max": -np.inf, "min": np.inf}[op]
    fn = np.maximum if op == "max" else np.minimum
    r = fn.reduce(x64, axis=axes, initial=ident) if axes else x64
    return np.asarray(r).astype(dt)


def sum_bound(x, axes, dt):
    """(exact, bound): the float64 sum and the error allowed for a pairwise sum."""
    x64 = as_f64(x)
    exact = x64.sum(axis=tuple(axes))
    absum = np.abs(x64).sum(axis=tuple(axes))
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64)) if axes else 1
    acc_eps = np.finfo(np.float64 if dt in (np.float64, np.complex128) else np.float32).eps
    out_eps = float(finfo(np.float32 if kind(dt) == "c" and dt == np.complex64 else
                          (np.float64 if dt == np.complex128 else dt)).eps)
    bound = ((40 + 4 * math.log2(n + 2)) * acc_eps * absum + out_eps * np.abs(exact)
             + 4 * math.log2(n + 2) * np.finfo(np.float64).eps * absum)
    return exact, bound


def check(op, x, t, axes, keepdims=False, m2m=None):
    got = run(op, t, axes, keepdims, m2m)
    dt = x.dtype
    if op == "sum" and kind(dt) in "fc":
        exact, bound = sum_bound(x, axes, dt)
        err = np.abs(as_f64(got) - exact)
        assert got.shape == exact.shape
        assert np.all(err <= bound), (op, str(dt), x.shape, axes, float(np.max(err - bound)))
        return
    if op == "prod" and kind(dt) in "fc":
        exact = as_f64(x).prod(axis=tuple(axes))
        n = max(1, int(np.prod([x.shape[a] for a in axes], dtype=np.int64)))
        acc_eps = np.finfo(np.float64 if dt in (np.float64, np.complex128) else
                           np.float32).eps
        out_eps = float(finfo(np.float32 if dt == np.complex64 else
                              (np.float64 if dt == np.complex128 else dt)).eps)
        rtol = 8 * n * acc_eps + out_eps
        np.testing.assert_allclose(as_f64(got), exact, rtol=rtol, atol=0)
        return
    assert_same(got, np_reduce(op, x, axes), zero_sign=False)


def axes_subsets(nd):
    for r in range(nd + 1):
        yield from itertools.combinations(range(nd), r)


def values(rng, shape, dt, op):
    if op == "prod" and kind(dt) == "c":   # unit modulus: no overflow or underflow
        x = np.exp(1j * rng.uniform(0, 2 * np.pi, shape)).astype(dt)
    elif op == "prod" and kind(dt) == "f":
        x = np.exp(rng.uniform(-0.05, 0.05, shape)).astype(dt)
    elif op == "sum" and kind(dt) in "fc":
        x = random_array(rng, shape, dt, specials=0, low=-1, high=1)
    elif op in ("sum", "prod"):
        x = random_array(rng, shape, dt, specials=0)
    else:
        x = random_array(rng, shape, dt, specials=0.05)
    return np.asarray(x)


# ------------------------------------------------------------------------------ against NumPy
@pytest.mark.parametrize("op", OPS)
def test_op_table(op):
    for dt in ALL_DTYPES:
        assert supported(op, dt) == expected_support(op, dt), (op, str(dt))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("op", ["sum", "prod", "max", "min", "and", "or"])
def test_against_numpy(op, dt):
    if not supported(op, dt):
        pytest.skip("op not defined for dtype")
    rng = np.random.default_rng(hash((op, str(dt))) % 2**32)
    for shape in SHAPES:
        x = values(rng, shape, dt, op)
        for how in LAYOUTS:
            t = make_tensor(x, how)
            for axes in axes_subsets(len(shape)):
                check(op, x, t, axes)


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_arg_against_numpy(op, dt):
    if not supported(op, dt):
        pytest.skip("op not defined for dtype")
    rng = np.random.default_rng(7)
    for shape in SHAPES:
        x = values(rng, shape, dt, op)
        if kind(dt) in "iu":   # many ties
            x = (x % 4).astype(dt)
        for how in LAYOUTS:
            t = make_tensor(x, how)
            for ax in range(len(shape)):
                if shape[ax] == 0:
                    with pytest.raises(ValueError, match="empty"):
                        run(op, t, (ax,))
                    continue
                check(op, x, t, (ax,))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_keepdims_and_output_layouts(layout):
    rng = np.random.default_rng(3)
    for dt in [np.dtype(np.float32), np.dtype(np.int16), BF16, np.dtype(np.complex128)]:
        x = values(rng, (5, 6, 7), dt, "sum")
        t = make_tensor(x, layout)
        for axes in axes_subsets(3):
            check("sum", x, t, axes, keepdims=True)
            check("sum", x, t, axes, keepdims=True, m2m=tuple(range(3)))
            nd_out = 3 - len(axes)
            check("sum", x, t, axes, m2m=tuple(range(nd_out)) if nd_out else None)
            if dt != np.complex128:
                check("max", x, t, axes, keepdims=True, m2m=(1, 2, 0))


def test_worked_example_of_the_header():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    for t in (xa.asarray(x), xa.asarray(x, layout=(0, 1))):
        assert run("sum", t, (1,)).tolist() == [6, 15]
        assert run("sum", t, (0,), keepdims=True).tolist() == [5, 7, 9]
        assert run("argmax", t, (0,)).tolist() == [1, 1, 1]
        assert run("sum", t, (0, 1)).tolist() == 21


# ------------------------------------------------------------------------------ special values
@pytest.mark.parametrize("dt", [np.float16, BF16, np.float32, np.float64], ids=str)
def test_nan_propagation(dt):
    x = np.arange(1, 1001, dtype=np.float64).reshape(40, 25)
    x[7, 3] = np.nan
    x = x.astype(dt)
    for how in LAYOUTS:
        t = make_tensor(x, how)
        for op in ("sum", "prod", "max", "min"):
            full = run(op, t, (0, 1))
            assert np.isnan(as_f64(full)), (op, how)
            rows = run(op, t, (1,))
            assert np.isnan(as_f64(rows))[7] and np.isnan(as_f64(rows)).sum() == 1, (op, how)
            cols = run(op, t, (0,))
            assert np.isnan(as_f64(cols))[3] and np.isnan(as_f64(cols)).sum() == 1, (op, how)
    # a NaN anywhere in a long contiguous max (vector lanes, leaf tails, chunks)
    for n in (15, 16, 17, 511, 513, 100003):
        for pos in (0, n // 2, n - 1):
            y = np.ones(n, dt)
            y[pos] = np.nan
            t = xa.asarray(y)
            assert np.isnan(as_f64(run("max", t, (0,)))) and np.isnan(as_f64(run("min", t, (0,))))
            assert run("argmax", t, (0,)) == pos and run("argmin", t, (0,)) == pos


def test_argmax_ties_and_nan():
    x = np.array([[1.0, 3.0, 3.0, -1.0, -1.0],
                  [np.nan, 2.0, np.nan, 2.0, 0.0],
                  [0.0, -0.0, 0.0, 5.0, 5.0]], np.float32)
    for how in LAYOUTS:
        t = make_tensor(x, how)
        assert run("argmax", t, (1,)).tolist() == [1, 0, 3]
        assert run("argmin", t, (1,)).tolist() == [3, 0, 0]
        assert run("argmax", t, (0,)).tolist() == [1, 0, 1, 2, 2]
        assert run("argmin", t, (0,)).tolist() == [1, 2, 1, 0, 0]
    ints = np.array([5, 9, 9, 1, 1, 9], np.int32)
    assert run("argmax", xa.asarray(ints), (0,)) == 1
    assert run("argmin", xa.asarray(ints), (0,)) == 3
    b = np.array([False, False, True, True])
    assert run("argmax", xa.asarray(b), (0,)) == 2 and run("argmin", xa.asarray(b), (0,)) == 0


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dt", [np.float16, BF16, np.float32, np.float64, np.int8, np.uint16,
                                np.int32, np.int64], ids=str)
def test_arg_of_long_rows_across_chunks(dt, threads):
    """Long contiguous rows cross arg_row's chunks (16 leaves: 16384 f32, 65536 int8) and
    run_arg's per-thread blocks: the first of equal best values wins wherever the copies
    fall, a NaN after the best wins, and -0.0 ties +0.0."""
    xa.set_num_threads(threads)
    try:
        dt = np.dtype(dt)
        is_float = kind(dt) in "fV" or dt == BF16
        for n in (1000, 16383, 16385, 40000, 70001, 140000):
            for first, again in ((5, n - 1), (n // 3, n // 3 + 1), (n - 2, n - 1),
                                 (16384 % n, (16384 * 2 + 7) % n)):
                if again <= first:
                    continue
                low = min({2, 3, 4} - {first, again})
                x = np.full(n, 3.0)
                x[first] = x[again] = 7
                x[low] = 1
                y = x.astype(dt)
                t = xa.asarray(y)
                assert run("argmax", t, (0,)) == first, (n, first, again)
                assert run("argmin", t, (0,)) == low, (n, first, again)
                if is_float:
                    y[again] = np.nan
                    t = xa.asarray(y)
                    assert run("argmax", t, (0,)) == again and run("argmin", t, (0,)) == again
        if is_float:
            z = np.full(50000, -0.0, dt)
            z[30000] = 0.0
            assert run("argmax", xa.asarray(z), (0,)) == 0
            assert run("argmin", xa.asarray(z), (0,)) == 0
    finally:
        xa.set_num_threads(2)


def test_integer_wrap_and_identities():
    x = np.full(1000, 100, np.int8)
    assert run("sum", xa.asarray(x), (0,)) == np.int8(np.sum(x, dtype=np.int8))
    u = np.full(70000, 3, np.uint16)
    assert run("prod", xa.asarray(u), (0,)) == np.prod(u, dtype=np.uint16)
    empty = np.zeros((0, 3), np.float32)
    t = xa.asarray(empty)
    assert run("sum", t, (0,)).tolist() == [0, 0, 0]
    assert not np.signbit(run("sum", t, (0,))).any()
    assert run("prod", t, (0,)).tolist() == [1, 1, 1]
    assert run("max", t, (0,)).tolist() == [-np.inf] * 3
    assert run("min", t, (0,)).tolist() == [np.inf] * 3
    ei = xa.asarray(np.zeros((0, 2), np.uint8))
    assert run("and", ei, (0,)).tolist() == [255, 255]
    assert run("max", ei, (0,)).tolist() == [0, 0]
    # -0.0 stays -0.0 (the lanes start from -0.0)
    assert np.signbit(run("sum", xa.asarray(np.array([-0.0, -0.0])), (0,)))


# ------------------------------------------------------------------------------ accuracy
@pytest.mark.parametrize("case", ["contig", "major", "major16", "sliced"])
@pytest.mark.parametrize("dt", [np.float32, np.float16, BF16], ids=str)
def test_pairwise_error_grows_like_log_n(case, dt):
    """Sums of 2^21 + 12345 values: the error is O(log n) eps sum|x|, never naive."""
    n = 2**21 + 12345
    rng = np.random.default_rng(1)
    # f16 holds at most 65504: values below 1/64 keep the sum finite
    scale = 1 / 64 if dt == np.float16 else 1.0
    base = rng.uniform(0.0, scale, n).astype(dt) if dt != np.float32 else \
        np.full(n, 0.1, np.float32) + rng.uniform(0, 1e-3, n).astype(np.float32)
    if case == "contig":
        x, t, axes = base, xa.asarray(base), (0,)
    elif case == "major":   # reduce the major dim of an [n/2, 2]: vertical columns
        x = base[: n - 1].reshape(-1, 2)
        t, axes = xa.asarray(x), (0,)
    elif case == "major16":
        x = base[: n // 16 * 16].reshape(-1, 16)
        t, axes = xa.asarray(x), (0,)
    else:                  # every other element: a strided row
        x = base[::2]
        t, axes = xa.asarray(base)[::2], (0,)
    got = as_f64(run("sum", t, axes))
    exact = x.astype(np.float64).sum(axis=axes)
    absum = np.abs(x.astype(np.float64)).sum(axis=axes)
    m = x.shape[0]
    eps32 = np.finfo(np.float32).eps
    out_eps = float(finfo(dt).eps)
    err = np.abs(got - exact)
    assert np.all(err <= (40 + 4 * math.log2(m)) * eps32 * absum + out_eps * np.abs(exact))
    if dt == np.float32:
        # NumPy's own float32 sum: pairwise when contiguous, naive along a major dim
        np_err = np.abs(x.sum(axis=axes).astype(np.float64) - exact)
        assert np.all(err <= 2 * np_err + 64 * eps32 * absum)
        # far better than a naive running sum would be
        assert np.all(err <= 1e-5 * absum)


# ------------------------------------------------------------------------------ ISAs, threads
def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.uint8)


@pytest.mark.parametrize("isa", VECTOR_ISAS)
@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
def test_isa_matches_reference(isa, dt, restore_isa):
    rng = np.random.default_rng(11)
    shapes = [(1000,), (37, 129), (130, 33), (4, 5, 300), (2, 70000)]
    for op in OPS:
        if not supported(op, dt):
            continue
        for shape in shapes:
            x = values(rng, shape, dt, op)
            for how in ("c", "colmajor", "negstep", "step"):
                t = make_tensor(x, how)
                axes_list = [(a,) for a in range(len(shape))] if op.startswith("arg") \
                    else list(axes_subsets(len(shape)))[1:]
                for axes in axes_list:
                    CORE.set_isa("ref")
                    want = run(op, t, axes)
                    CORE.set_isa(isa)
                    got = run(op, t, axes)
                    assert_same(got, want, zero_sign=True), (op, shape, how, axes)


BIG = [((300001,), [(0,)]), ((3, 100003), [(1,), (0, 1), (0,)]),
       ((100003, 3), [(0,), (0, 1), (1,)]), ((70001, 9), [(0,)]),
       ((513, 257), [(0,), (1,), (0, 1)]), ((16, 4099, 3), [(0, 1), (1,), (1, 2)])]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16, BF16, np.int32,
                                np.uint8, np.complex64, np.bool_], ids=str)
def test_threads_bitwise_identical(op, dt, restore_threads):
    dt = np.dtype(dt)
    if not supported(op, dt):
        pytest.skip("op not defined for dtype")
    rng = np.random.default_rng(5)
    for shape, axes_list in BIG:
        x = values(rng, shape, dt, op)
        for how in ("c", "colmajor", "step"):
            t = make_tensor(x, how)
            for axes in axes_list:
                if op.startswith("arg") and len(axes) != 1:
                    continue
                CORE.set_num_threads(1)
                one = run(op, t, axes)
                CORE.set_num_threads(2)
                two = run(op, t, axes)
                assert np.array_equal(_bits(one), _bits(two)), (op, shape, how, axes)
                if how == "c" and not (op == "prod" and kind(dt) in "fc"):
                    check(op, x, t, axes)


# ------------------------------------------------------------------------------ bad input
def test_bad_input_raises():
    t = xa.asarray(np.ones((3, 4), np.float32))
    out = T.empty((3,), CODE_OF[np.dtype(np.float32)])
    with pytest.raises(ValueError, match="unknown op"):
        RK.reduce_into(99, out, t, (1,))
    with pytest.raises(ValueError, match="out of range"):
        RK.reduce_into(RK.REDUCE_SUM, out, t, (2,))
    with pytest.raises(ValueError, match="repeated"):
        RK.reduce_into(RK.REDUCE_SUM, T.empty((), 11), t, (1, -1))
    with pytest.raises(TypeError, match="axes"):
        RK.reduce_into(RK.REDUCE_SUM, out, t, 1)
    with pytest.raises(ValueError, match="shape"):
        RK.reduce_into(RK.REDUCE_SUM, out, t, (0,))
    with pytest.raises(ValueError, match="rank"):
        RK.reduce_into(RK.REDUCE_SUM, T.empty((3, 4, 1), 11), t, (1,))
    with pytest.raises(TypeError, match="dtype"):
        RK.reduce_into(RK.REDUCE_SUM, T.empty((3,), CODE_OF[np.dtype(np.float64)]), t, (1,))
    with pytest.raises(TypeError, match="int64"):
        RK.reduce_into(RK.REDUCE_ARGMAX, out, t, (1,))
    with pytest.raises(ValueError, match="exactly one axis"):
        RK.reduce_into(RK.REDUCE_ARGMAX, T.empty((), 4), t, (0, 1))
    with pytest.raises(TypeError, match="not defined"):
        c = xa.asarray(np.ones(3, np.complex64))
        RK.reduce_into(RK.REDUCE_MAX, T.empty((), CODE_OF[np.dtype(np.complex64)]), c, (0,))
    with pytest.raises(TypeError, match="not defined"):
        RK.reduce_into(RK.REDUCE_AND, out, t, (1,))
    with pytest.raises(ValueError, match="overlaps"):
        RK.reduce_into(RK.REDUCE_SUM, t[0], t, (0,))
    with pytest.raises(ValueError, match="writeable|strided"):
        ro = xa.asarray(np.ones(3, np.float32))
        RK.reduce_into(RK.REDUCE_SUM, T.as_strided_view(ro, (3,), (4,), 0, True), t, (1,))


def test_block_split_gives_the_serial_tree():
    """A few long rows (split into fixed blocks, partials combined) give the same bits as
    many rows (one row per output, no split): the block tree is the serial tree."""
    rng = np.random.default_rng(9)
    x = rng.uniform(-1, 1, (20, 200003)).astype(np.float32)
    many = run("sum", xa.asarray(x), (1,))            # 20 outputs: one row each
    few = run("sum", xa.asarray(x[:3]), (1,))          # 3 outputs: fixed blocks
    one = run("sum", xa.asarray(x[5]), (0,))
    assert np.array_equal(_bits(many[:3]), _bits(few))
    assert np.array_equal(_bits(many[5:6]), _bits(one.reshape(1)))
    y = np.ascontiguousarray(x[:, :4096].T)           # [4096, 20]: vertical columns
    cols = run("sum", xa.asarray(y), (0,))
    narrow = run("sum", xa.asarray(y)[:, :2], (0,))   # one 2-column strip: row blocks
    assert np.array_equal(_bits(cols[:2]), _bits(narrow))


def _model_row_sum(x):
    """An independent model of a contiguous row sum (reduce_kernels.h): 64-byte lanes
    (L of them), leaves of 64 L elements folded in two interleaved sets of L lanes, a
    binary cascade of leaves (older + newer), the tail leaf folded in from the newest
    item to the oldest, then the lanes folded by halving. NumPy arrays of x's dtype do
    every add in that dtype, one IEEE operation at a time."""
    dt = x.dtype
    L = 64 // dt.itemsize
    leaf_n = 64 * L
    neg0 = dt.type(-0.0)

    def leaf(v):
        a = np.full(L, neg0, dt)
        b = np.full(L, neg0, dt)
        k = 0
        while k + 2 * L <= len(v):
            a = a + v[k:k + L]
            b = b + v[k + L:k + 2 * L]
            k += 2 * L
        a = a + b
        if k + L <= len(v):
            a = a + v[k:k + L]
            k += L
        for i in range(k, len(v)):
            a[i % L] = a[i % L] + v[i]
        return a

    items, levels, tail = [], [], None
    for k0 in range(0, len(x), leaf_n):
        lanes = leaf(x[k0:k0 + leaf_n])
        if len(x) - k0 < leaf_n:
            tail = lanes
            break
        items.append(lanes)
        levels.append(0)
        while len(items) >= 2 and levels[-1] == levels[-2]:
            newer = items.pop()
            levels.pop()
            items[-1] = items[-1] + newer
            levels[-1] += 1
    acc = tail if tail is not None else items.pop()
    for older in reversed(items):
        acc = older + acc
    w = L // 2
    while w >= 1:
        acc[:w] = acc[:w] + acc[w:2 * w]
        w //= 2
    return acc[0]


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=str)
def test_row_sum_follows_the_documented_tree(dt, restore_isa):
    """Every table (scalar reference and each SIMD build) gives the bits of the tree the
    header documents, not just bits that agree with each other."""
    rng = np.random.default_rng(12)
    L = 64 // np.dtype(dt).itemsize
    for n in (1, L - 1, L, L + 1, 2 * L + 3, 64 * L - 1, 64 * L, 64 * L + 1,
              3 * 64 * L + 2 * L + 5, 7 * 64 * L + 11, 30011):
        x = (rng.standard_normal(n) * 10.0 ** rng.integers(-6, 7, n)).astype(dt)
        want = _model_row_sum(x)
        for isa in ["ref"] + VECTOR_ISAS:
            xa._core.set_isa(isa)
            got = run("sum", xa.asarray(x), (0,))
            assert _bits(got).tobytes() == _bits(np.asarray(want, dt)).tobytes(), (isa, n)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16, np.int16, np.uint8],
                         ids=str)
def test_argmax_chunks_and_nan_bits(dt, restore_isa):
    """The one-pass argmax (1024-element chunks, the winning chunk searched again) gives
    NumPy's first index across chunk boundaries, on every ISA; max / min keep NaN and the
    sign of zero bit for bit as the reference does."""
    rng = np.random.default_rng(21)
    is_float = kind(dt) == "f"
    cases = []
    for n in (1023, 1024, 1025, 2048, 2049, 3073, 5000):
        base = rng.integers(0, 50, n).astype(dt)
        for first, second in ((0, n - 1), (1022, min(1024, n - 1)), (n - 1, n - 1),
                              (1, n // 2)):
            y = base.copy()
            y[first] = 100
            y[second] = 100                   # a tie: the first stays
            cases.append(y)
            z = -y if kind(dt) != "u" else y
            cases.append(z)
        if is_float:
            y = base.copy()
            y[n // 2] = np.nan                # a NaN after a larger value ends the pass
            y[0] = 1000
            y[n - 1] = np.nan
            cases.append(y)
            cases.append(np.full(n, -np.inf, dt))
            signed = np.where(rng.random(n) < 0.5, -0.0, 0.0).astype(dt)
            cases.append(signed)
    for y in cases:
        t = xa.asarray(y)
        for isa in ["ref"] + VECTOR_ISAS:
            CORE.set_isa(isa)
            assert run("argmax", t, (0,)) == np.argmax(y), (isa, y.size)
            assert run("argmin", t, (0,)) == np.argmin(y), (isa, y.size)
            for op in ("max", "min"):
                CORE.set_isa("ref")
                want = run(op, t, (0,))
                CORE.set_isa(isa)
                got = run(op, t, (0,))
                assert _bits(got).tobytes() == _bits(want).tobytes(), (op, isa, y.size)
                np.testing.assert_array_equal(got, getattr(np, op)(y))


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=str)
def test_signed_zero_ties_are_the_same_on_every_path(dt, restore_isa):
    """A max / min over a -0.0 / +0.0 tie keeps the same zero on every ISA and whether the
    row is alone or one of many (the float folds keep their pairwise tree: a one-leaf
    fold of a long row once returned the other zero on the vector builds)."""
    for n, pos in ((1100, (16, 1024)), (100000, (16, 32768)), (5000, (3000, 7))):
        x = np.full(n, -1.0, dt)
        x[pos[0]], x[pos[1]] = 0.0, -0.0
        rows = np.tile(x, (4, 1))
        for op in ("max", "min"):
            y = x if op == "max" else -x
            got = {}
            for isa in ["ref"] + VECTOR_ISAS:
                CORE.set_isa(isa)
                got[isa] = _bits(run(op, xa.asarray(y), (0,))).tobytes()
                many = run(op, xa.asarray(rows if op == "max" else -rows), (1,))
                assert all(_bits(r).tobytes() == got[isa] for r in many), (op, isa, n)
            assert len(set(got.values())) == 1, (op, n, got)


@pytest.mark.parametrize("threads", [1, 2])
def test_pred_any_all_stop_early_and_agree(threads, restore_threads):
    """any / all of a whole dense pred tensor run as a byte scan that stops at the deciding
    block (reduce.cpp pred_scan): the deciding element anywhere - first, last, at and
    around 4096-byte block edges and the threads' split - in any layout that covers its
    memory densely (reversed, transposed), and through sum / prod of pred (or / and)."""
    xa.set_num_threads(threads)
    for n in (1, 7, 8, 9, 4095, 4096, 4097, 70_000, 131_072, 300_001):
        for pos in sorted({0, 1, 4095, 4096, n // 2, n // 2 + 1, n - 1}):
            if pos >= n:
                continue
            for base in (False, True):
                m = np.full(n, base)
                m[pos] = not base
                t = xa.asarray(m)
                for view, ref in ((t, m), (t[::-1], m[::-1])):
                    assert bool(view.any()) == m.any() and bool(view.all()) == m.all()
                    assert bool(RK.reduce_whole(RK.REDUCE_SUM, view)) == m.any()
                    assert bool(RK.reduce_whole(RK.REDUCE_PROD, view)) == m.all()
        if n % 7 == 0 or n == 70_000:
            m2 = np.zeros((n // 7, 7), bool) if n % 7 == 0 else np.zeros((n // 10, 10), bool)
            m2[-1, 0] = True
            assert bool(xa.asarray(m2).T.any()) and not bool(xa.asarray(m2).T.all())
    empty = xa.asarray(np.zeros(0, bool))
    assert not bool(empty.any()) and bool(empty.all())
    # NumPy bool arrays may hold bytes other than 0 / 1 (asarray keeps them): true
    odd = np.frombuffer(b"\x02" * 10_000 + b"\x00" + b"\x80" * 5000, dtype=bool)
    for view in (odd[:10_000], odd, odd[10_000:10_001], odd[10_001:]):
        t = xa.asarray(view)
        assert bool(t.any()) == view.any() and bool(t.all()) == view.all()
