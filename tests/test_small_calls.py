"""The small-call fast paths (issue 13) against the general paths and NumPy: scalar
indexing and conversions, in-place operators and basic-key assignment on views, with
overlaps, lazy values pending, read-only targets and every layout. The fast paths:
xarr/_tensor_fastpaths.pxi (_getitem, _inplace, _setitem_fast); the general ones:
xarr/_ops/elementwise.py inplace, xarr/_ops/indexing.py setitem."""

import operator

import numpy as np
import pytest
from hypothesis import given, strategies as st

import xarr as xa
from xarr import lax
from conftest import assert_same, make_tensor

INPLACE = [operator.iadd, operator.isub, operator.imul, operator.itruediv,
           operator.ifloordiv, operator.ipow, operator.imod, operator.iand, operator.ior,
           operator.ixor, operator.ilshift, operator.irshift]
DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_, np.complex64]


def _np_apply(fn, a, b):
    """NumPy's result, or the exception type it raises."""
    try:
        with np.errstate(all="ignore"):
            return fn(a, b), None
    except Exception as e:                      # noqa: BLE001 (the type is compared)
        # NumPy's own subclasses (UFuncTypeError ...) as the builtin they derive from
        return None, next(c for c in type(e).__mro__ if c.__module__ == "builtins")


@given(st.sampled_from(INPLACE), st.sampled_from(DTYPES),
       st.sampled_from(["row", "col", "block", "whole"]),
       st.sampled_from(["scalar_int", "scalar_float", "row_tensor", "same_view", "bcast"]),
       st.sampled_from(["c", "colmajor", "step", "negstep", "transposed"]))
def test_inplace_on_views_matches_numpy(fn, dt, where, other, how):
    """t[sel] <op>= v for views of every layout: values, dtype, exception type, and the
    elements outside the view left alone."""
    rng = np.random.default_rng(0)
    base = (rng.integers(1, 9, (4, 5))).astype(dt)
    sel = {"row": (2,), "col": (slice(None), 3), "block": (slice(1, 3), slice(0, 4, 2)),
           "whole": (Ellipsis,)}[where]
    a = base.copy()
    t = make_tensor(base, how)
    view_np, view_xa = a[sel], t[sel]
    if other == "scalar_int":
        v_np = v_xa = 3
    elif other == "scalar_float":
        v_np = v_xa = 2.5
    elif other == "same_view":
        v_np, v_xa = view_np, view_xa
    else:
        shape = view_np.shape[-1:] if other == "row_tensor" else (1,) * view_np.ndim
        v_np = rng.integers(1, 4, shape).astype(dt)
        v_xa = xa.asarray(v_np)
    expect, err = _np_apply(fn, view_np, v_np)
    if err is not None:
        with pytest.raises(err):
            with np.errstate(all="ignore"):
                fn(view_xa, v_xa)
        return
    with np.errstate(all="ignore"):
        got = fn(view_xa, v_xa)
    assert got is view_xa
    assert_same(np.asarray(t), a)


def test_inplace_partial_overlap_reads_before_writing():
    """x[1:] += x[:-1] reads every element before any write, as NumPy does."""
    for dt in (np.float64, np.int32):
        a = np.arange(10, dtype=dt)
        t = xa.asarray(a.copy())
        a[1:] += a[:-1]
        v = t[1:]
        v += t[:-1]
        assert_same(np.asarray(t), a)
        b = np.arange(12, dtype=dt).reshape(3, 4)
        u = xa.asarray(b.copy())
        b += b[0]
        u += u[0]
        assert_same(np.asarray(u), b)


def test_writes_compute_pending_lazy_values_first():
    """A lazy value reading t, not computed yet, sees t as it was before an in-place
    operator or an assignment (the fast paths defer to the frontend then)."""
    t = xa.asarray(np.arange(4.0))
    with xa.lazy():
        y = t * 2.0
    t += 1.0
    t[0] = 100.0
    u = t[1:3]
    u -= t[2:4] * 0 + 1.0
    assert_same(np.asarray(y), np.arange(4.0) * 2.0)
    assert_same(np.asarray(t), np.array([100.0, 1.0, 2.0, 4.0]))


def test_writes_to_read_only_and_bad_shapes_raise():
    t = xa.asarray(np.arange(6.0).reshape(2, 3))
    r = xa.broadcast_to(xa.asarray(np.arange(3.0)), (2, 3))
    with pytest.raises(ValueError, match="read-only"):
        r += 1.0
    with pytest.raises(ValueError, match="read-only"):
        r[0, 0] = 1.0
    with pytest.raises(ValueError):
        row = t[0]
        row += xa.asarray(np.ones((2, 3)))          # would grow the target
    with pytest.raises(ValueError):
        t[0] = xa.asarray(np.ones(4))
    with pytest.raises(IndexError):
        t[2, 0] = 1.0
    i8 = xa.asarray(np.zeros(3, np.int8))
    with pytest.raises(OverflowError):
        i8 += 300
    with pytest.raises(TypeError):
        i8 += 1.5                                   # same_kind casting refuses float -> int


@given(st.sampled_from(DTYPES), st.sampled_from(["c", "colmajor", "negstep", "transposed"]),
       st.sampled_from([(1, 2), (0,), (slice(None), 1), (slice(0, 2), slice(None, None, -1)),
                        (Ellipsis, 0), (1, Ellipsis, 2)]),
       st.sampled_from(["int", "float", "same_dtype", "other_dtype", "bcast", "self_view"]))
def test_setitem_matches_numpy(dt, how, key, value):
    rng = np.random.default_rng(1)
    base = rng.integers(0, 9, (3, 4)).astype(dt)
    a = base.copy()
    t = make_tensor(base, how)
    target_shape = a[key].shape
    if value == "int":
        v_np = v_xa = 7
    elif value == "float":
        v_np = v_xa = 2.75
    elif value == "self_view":
        v_np, v_xa = a[key], t[key]
        if not isinstance(v_xa, xa.Tensor):
            v_np = v_xa = 5
    else:
        vdt = dt if value != "other_dtype" else np.float64
        shape = target_shape if value != "bcast" else target_shape[-1:]
        v_np = rng.integers(0, 9, shape).astype(vdt)
        v_xa = xa.asarray(v_np)
    with np.errstate(all="ignore"):
        a[key] = v_np
    t[key] = v_xa
    assert_same(np.asarray(t), a)


@given(st.sampled_from(DTYPES), st.sampled_from(["c", "colmajor", "negstep", "transposed"]),
       st.lists(st.integers(-5, 5), min_size=1, max_size=3),
       st.tuples(st.none() | st.integers(-6, 6), st.none() | st.integers(-6, 6),
                 st.none() | st.sampled_from([-3, -1, 1, 2, 5])),
       st.floats(allow_nan=True, allow_infinity=True, width=64))
def test_element_and_slice_keys_match_numpy(dt, how, index, bounds, value):
    """The direct paths for a key of one int per dim (t[i, j], t[i, j] = v) and a slice of
    the first dim (t[a:b:c]) against NumPy: values, dtypes, views' shapes and strides,
    and the general path's errors for out-of-range or short keys."""
    base = (np.arange(3 * 4 * 2) % 7).astype(dt).reshape(3, 4, 2)
    t = make_tensor(base, how)
    a = np.asarray(t).copy()
    key = tuple(index)
    try:
        expect = a[key]
    except IndexError:
        with pytest.raises(IndexError):
            t[key]
    else:
        got = t[key]
        if len(key) == 3:
            assert type(got) is type(expect) and got == expect
        else:
            assert_same(np.asarray(got), expect)
    sl = slice(*bounds)
    view = t[sl]
    assert view.shape == a[sl].shape
    assert_same(np.asarray(view), a[sl])
    if len(key) == 3 and dt in (np.float32, np.float64, np.complex64):
        try:
            with np.errstate(all="ignore"):
                a[key] = value
        except IndexError:
            return
        t[key] = value
        assert_same(np.asarray(t), a)


def test_scalar_indexing_and_conversions():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = xa.asarray(a)
    assert type(t[1, 2]) is np.float32 and t[1, 2] == a[1, 2]
    assert float(t[2, 3]) == 11.0 and bool(t[0, 1] > 0) is True
    z = xa.asarray(np.array([3], np.int64))
    assert int(z) == 3 and operator.index(z) == 3 and complex(z) == 3 + 0j
    assert z.item() == 3 and type(z.item()) is int
    assert xa.asarray(np.arange(3.0))[1:2].item() == 1.0
    with pytest.raises(TypeError, match="size-1"):
        float(t)
    with pytest.raises(ValueError, match="ambiguous"):
        bool(t)
    with pytest.raises(TypeError, match="integer"):
        operator.index(xa.asarray(np.array([1.5])))
    tiled = xa.asarray(a, layout="{1,0:T(2,2)}")
    assert tiled[2, 1] == a[2, 1] and float(tiled[1:2, 1:2]) == a[1, 1]
    rows = [r for r in t]
    assert all(isinstance(r, xa.Tensor) for r in rows) and len(rows) == 3
    assert [x for x in xa.asarray(np.arange(3))] == [0, 1, 2]
    arr = np.asarray(t)
    assert np.shares_memory(arr, np.asarray(t)) and arr.flags["WRITEABLE"]
    ro = np.asarray(xa.broadcast_to(xa.asarray(np.arange(3.0)), (2, 3)))
    assert not ro.flags["WRITEABLE"]


@pytest.mark.parametrize("obj", [[1.0, 2.0], (1, 2, 3), [True, False], [[1.0, 2.0], [3.0, 4.0]],
                                 ((1, 2), (3, 4)), [1, 2.5], [[1], [2, 3]], [], [[]],
                                 [2 ** 63, 1], [-2 ** 63], [1, True], [[1.0, 2.0], 3.0],
                                 [np.float32(1), np.float32(2)], [1 + 2j]])
def test_short_sequences_convert_as_numpy(obj):
    """xa.array / xa.asarray of lists and tuples: NumPy's dtype and values, whichever path
    (the small-call one takes flat or 2-d lists of one Python type)."""
    try:
        want = np.array(obj)
    except ValueError:
        with pytest.raises(ValueError):
            xa.array(obj)
        return
    for fn in (xa.array, xa.asarray):
        got = fn(obj)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), want)
    a = xa.array(obj)
    b = xa.array(obj)
    if a.size:
        assert not np.shares_memory(np.asarray(a), np.asarray(b))
    with pytest.raises(ValueError):
        xa.asarray([1.0, 2.0], copy=False)


@pytest.mark.parametrize("shape", [5, (2, 3), (), (0,), (2, 0, 3), [2, 3], np.int64(3),
                                   (np.int32(2), 2)])
@pytest.mark.parametrize("dtype", [None, np.float32, "int8", xa.bool_, np.complex64])
def test_creation_matches_numpy(shape, dtype):
    for xf, nf, args in ((xa.zeros, np.zeros, ()), (xa.ones, np.ones, ()),
                         (xa.full, np.full, (3,)), (xa.full, np.full, (-0.0,)),
                         (xa.full, np.full, (True,))):
        if dtype is not None and np.dtype(dtype).kind in "biu" and args and \
                isinstance(args[0], float):
            continue
        got, want = xf(shape, *args, dtype=dtype), nf(shape, *args, dtype=dtype)
        assert_same(got, want)
    e = xa.empty(shape, dtype)
    assert e.shape == np.empty(shape, dtype).shape and e.dtype == np.empty(shape, dtype).dtype


def test_creation_errors():
    for fn in (xa.zeros, xa.empty, xa.ones):
        with pytest.raises(ValueError, match="negative"):
            fn((2, -1))
        with pytest.raises(TypeError):
            fn((2, 1.5))
    with pytest.raises(OverflowError):
        xa.full(2, 300, dtype=np.int8)
    with pytest.raises(ValueError):
        xa.full(2, float("nan"), dtype=np.int32)
    assert xa.full(2, 2 ** 62).dtype == np.int64


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int64, np.int8, np.bool_,
                                np.complex128, np.float16])
@pytest.mark.parametrize("how", ["c", "negstep", "transposed", "tiled"])
def test_whole_reductions_match_general_path(dt, how):
    """t.sum() / max / min / any / all with no arguments (the small-call path) against the
    same reduction with an explicit axis tuple (the general path) and NumPy."""
    rng = np.random.default_rng(2)
    a = (rng.standard_normal((3, 4)) * 3).astype(dt)
    t = make_tensor(a, how)
    every = (0, 1)
    pairs = [(xa.sum, np.sum), (xa.any, np.any), (xa.all, np.all)]
    if np.dtype(dt).kind != "c":
        pairs += [(xa.max, np.max), (xa.min, np.min)]
    for xf, nf in pairs:
        got, general = xf(t), xf(t, axis=every)
        assert_same(got, general)
        if xf is xa.sum and np.dtype(dt).kind in "fc":      # summation orders differ
            np.testing.assert_allclose(np.asarray(got), nf(a), rtol=1e-2 if dt ==
                                       np.float16 else 1e-5)
        else:
            assert_same(got, np.asarray(nf(a)))
    neg = xa.asarray(np.array([-0.0, -0.0], np.float32))
    assert not np.signbit(np.asarray(neg.sum()))              # NumPy's +0.0 init
    with pytest.raises(ValueError, match="zero-size"):
        xa.max(xa.zeros((0,)))
    with xa.lazy():
        s = xa.sum(xa.asarray(a))
    assert_same(s, xa.sum(xa.asarray(a), axis=every))          # lazy: the graph's sum


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int64, np.int8, np.bool_,
                                np.complex64, np.float16])
@pytest.mark.parametrize("how", ["c", "negstep", "step", "transposed", "tiled"])
def test_whole_reduction_methods_match_functions(dt, how):
    """The methods t.sum() ... t.argmin() with no arguments (_tensor_whole.pxi, straight
    to the kernel) give the functions' general path and NumPy, 1-D and n-D, size 1."""
    rng = np.random.default_rng(3)
    for shape in [(3, 4), (7,), (1,), (2, 1, 3)]:
        a = (rng.standard_normal(shape) * 3).astype(dt)
        t = make_tensor(a, how)
        names = ["sum", "any", "all"]
        if np.dtype(dt).kind != "c":
            names += ["max", "min", "argmax", "argmin"]
        for name in names:
            got = getattr(t, name)()
            general = getattr(xa, name)(t, axis=None if name.startswith("arg") else
                                        tuple(range(a.ndim)), keepdims=False)
            assert_same(got, general)
            want = np.asarray(getattr(a, name)())
            if name == "sum" and np.dtype(dt).kind in "fc":
                np.testing.assert_allclose(np.asarray(got), want,
                                           rtol=1e-2 if dt == np.float16 else 1e-5)
            else:
                assert_same(got, want)


def test_whole_reductions_step_aside_for_lazy_jit_and_dynamic_sizes():
    """The kernel path of t.sum() / t.argmax() ... runs only eagerly: inside xa.lazy the
    graph records the reduction, under xa.jit a captured tensor's reduction is traced,
    and a tensor with a dynamic size reduces only its valid elements."""
    a = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0], np.float32)
    t = xa.asarray(a)
    with xa.lazy():
        lazy = [t.sum(), t.max(), t.argmax(), (t > 2).any()]
    assert all(type(v) is not xa.Tensor for v in lazy)      # recorded, not computed
    assert [np.asarray(v).item() for v in lazy] == [23.0, 9.0, 5, True]
    f = xa.jit(lambda x: x.sum() + t.sum() + t.argmax() + t.min())
    assert np.asarray(f(t)).item() == 23.0 + 23.0 + 5 + 1.0
    d = lax.set_dimension_size(t, 3, 0)                      # valid: [3, 1, 4]
    assert d.sum().item() == 8.0 and d.max().item() == 4.0 and d.min().item() == 1.0
    assert xa.sum(d).item() == 8.0


def test_binary_functions_fast_and_general():
    """xa.add(a, b) takes the operators' fast path, and the frontend's rules otherwise."""
    a = xa.asarray(np.array([1.0, 2.0]))
    assert_same(xa.add(a, a), np.array([2.0, 4.0]))
    assert_same(xa.multiply(a, 2), np.array([2.0, 4.0]))
    assert_same(xa.add([1, 2], 1.5), np.array([2.5, 3.5]))
    assert xa.add(1, 2) == 3
    with pytest.raises(TypeError):
        xa.add(a, "x")
    with pytest.raises(ValueError):
        xa.add(a, xa.ones(3))
    out = xa.empty(2)
    assert xa.add(a, a, out=out) is out


def test_iteration_matches_numpy():
    a = np.arange(24.0).reshape(2, 3, 4)
    t = make_tensor(a, "transposed")
    for got, want in zip(t, a):
        assert_same(got, want)
    rows = list(xa.asarray(a))
    assert len(rows) == 2 and all(isinstance(r, xa.Tensor) for r in rows)
    rows[0][0, 0] = -1.0
    assert list(xa.asarray(np.array([1, 2], np.int16))) == [1, 2]
    assert type(next(iter(xa.asarray(np.array([1.5]))))) is np.float64
    assert list(xa.zeros((0, 3))) == []
    with pytest.raises(TypeError, match="0-d"):
        iter(xa.asarray(1.0))


@pytest.mark.parametrize("how", ["c", "colmajor", "step", "negstep", "transposed", "tiled"])
def test_ascontiguousarray_and_asfortranarray(how):
    a = np.arange(12.0).reshape(3, 4)
    t = make_tensor(a, how)
    c, f = xa.ascontiguousarray(t), xa.asfortranarray(t)
    assert c.flags["C_CONTIGUOUS"] and c.layout.minor_to_major == (1, 0)
    assert f.flags["F_CONTIGUOUS"] and f.layout.minor_to_major == (0, 1)
    assert_same(c, a)
    assert_same(f, a)
    if how == "c":
        assert c is t
    if how == "colmajor":
        assert f is t
    assert xa.ascontiguousarray(3.0).shape == (1,)
    assert xa.ascontiguousarray([1, 2], dtype=np.float32).dtype == np.float32


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 8, 1001])
def test_complex_multiply_same_bits_on_every_isa(dt, n, restore_isa):
    """The AVX2 complex product (intrinsics, ew_loops.h complex_mul) gives the reference
    table's bits - no fused multiply-add - contiguous, strided and with special values."""
    rng = np.random.default_rng(n)
    vals = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, 1e-300, 2.5])
    with np.errstate(all="ignore"):                  # (inf * 0 while building the data)
        vals = vals + 0j
    a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
    b = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
    if n >= 8:
        with np.errstate(over="ignore"):            # (1e300 becomes inf in complex64)
            a[:8].real, a[:8].imag = vals.real, vals.real[::-1]
            b[:8].real, b[:8].imag = vals.real[::-1], vals.real
    results = {}
    for isa in xa._core.supported_isas():
        xa._core.set_isa(isa)
        ta, tb = xa.asarray(a), xa.asarray(b)
        with np.errstate(all="ignore"):
            results[isa] = [np.asarray(ta * tb), np.asarray(ta[::-1] * tb[::-1]),
                            np.asarray(ta * tb[0:1] if n else ta * tb)]
    for isa, got in results.items():
        for g, r in zip(got, results["ref"]):
            assert_same(g, r)
    with np.errstate(all="ignore"):
        finite = np.isfinite(a) & np.isfinite(b) & (np.abs(a) < 1e100) & (np.abs(b) < 1e100)
        np.testing.assert_allclose(results["ref"][0][finite], (a * b)[finite], rtol=1e-6)


def test_real_and_imag_are_views():
    z = xa.asarray(np.array([[1 + 2j, 3 - 4j], [5 + 0j, -1j]], np.complex128))
    r, i = z.real, z.imag
    assert r.dtype == np.float64 and i.dtype == np.float64
    assert_same(r, np.asarray(z).real)
    assert_same(i, np.asarray(z).imag)
    want = np.asarray(z).copy()
    r *= 2.0
    i[0, 0] = 7.0
    want.real *= 2.0
    want.imag[0, 0] = 7.0
    assert_same(z, want)
    assert_same(z.T.imag, want.T.imag)
    x = xa.asarray(np.arange(3.0))
    assert_same(x.real, np.arange(3.0))
    assert_same(x.imag, np.zeros(3))
    tiled = xa.asarray(np.arange(4.0).reshape(2, 2) * (1 + 1j), layout="{1,0:T(2,2)}")
    assert_same(tiled.imag, np.arange(4.0).reshape(2, 2))


UNARY_STRIDED = ["exp", "log", "sin", "cos", "tanh", "arctan", "expm1", "log1p", "cbrt",
                 "sqrt", "abs", "negative", "floor"]
BINARY_STRIDED = ["power", "arctan2", "hypot", "add", "multiply", "maximum", "logaddexp"]


@pytest.mark.parametrize("isa", xa._core.supported_isas())
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_strided_operands_give_the_contiguous_bits(isa, dt, restore_isa):
    """Every op in the sweep on strided, negative-step and transposed operands (gathered
    in blocks for the expensive ones, ew_loops.h kGatherBlock) against the same op on
    contiguous copies: the same bits, sizes across block edges."""
    xa._core.set_isa(isa)
    rng = np.random.default_rng(4)
    a = (rng.random((7, 2 * 1100)) * 4 + 0.1).astype(dt)
    b = (rng.random((7, 2 * 1100)) * 3 - 1).astype(dt)
    ta, tb = xa.asarray(a), xa.asarray(b)
    views = [(ta[:, ::2], tb[:, 1::2]), (ta[::-1, ::-3], tb[::-1, ::-3]),
             (ta[:, :7].T, tb[:, :7].T),
             # unit reversed steps, alone or beside forward ones (ew_loops.h x[-i] loops)
             (ta[:, ::-1], tb[:, ::-1]), (ta[:, ::-1], tb), (ta, tb[:, ::-1]),
             (ta[3, ::-1][:2195], tb[4, 5:]), (ta[3, 7:], tb[5, ::-1][:2193])]
    with np.errstate(all="ignore"):
        for va, vb in views:
            ca, cb = xa.ascontiguousarray(va), xa.ascontiguousarray(vb)
            for name in UNARY_STRIDED:
                fn = getattr(xa, name)
                assert_same(fn(va), fn(ca), {"op": name})
            for name in BINARY_STRIDED:
                fn = getattr(xa, name)
                assert_same(fn(va, vb), fn(ca, cb), {"op": name})
                assert_same(fn(va, 1.5), fn(ca, 1.5), {"op": name})


@pytest.mark.parametrize("isa", xa._core.supported_isas())
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128,
                                np.int8, np.int16, np.bool_])
def test_mixed_orders_match_numpy(isa, dt, restore_isa):
    """x.T + y: the tiled walk (nary.cpp run_tiles), whose 4- and 8-byte transposed inputs
    go through transposed tiles (InputTranspose), on shapes across the 16 x 256 tile
    edges, with an outer dim, both orders, a ternary op, and 1 vs 2 threads."""
    xa._core.set_isa(isa)
    rng = np.random.default_rng(21)
    threads = xa.get_num_threads()

    def draw(shape):
        v = rng.integers(-9, 9, shape) if np.dtype(dt).kind in "iub" else rng.random(shape)
        return v.astype(dt)

    try:
        for r, c in [(1, 300), (15, 255), (16, 256), (17, 257), (33, 600), (300, 40)]:
            x, y = draw((c, r)), draw((r, c))
            tx, ty = xa.asarray(x), xa.asarray(y)
            x3, y3 = draw((3, c, r)), draw((3, r, c))
            for t in (1, 2):
                xa.set_num_threads(t)
                assert_same(tx.T + ty, x.T + y, {"shape": (r, c)})
                assert_same(ty * tx.T, y * x.T)
                assert_same(tx.T == ty, x.T == y)
                assert_same(xa.where(ty == ty, tx.T, ty), np.where(y == y, x.T, y))
                # a transposed pred condition whose row step is the values' size (select's
                # condition is never read through the values' transpose panel)
                m = rng.random((c, 16 * r)) > 0.5
                step = np.dtype(dt).itemsize
                assert_same(xa.where(xa.asarray(m)[:, ::step][:, :r].T, ty, tx.T),
                            np.where(m[:, ::step][:, :r].T, y, x.T))
                assert_same(xa.asarray(x3).transpose(0, 2, 1) + xa.asarray(y3),
                            x3.transpose(0, 2, 1) + y3)
    finally:
        xa.set_num_threads(threads)


@pytest.mark.parametrize("dt", [np.int8, np.int32, np.uint16, np.float32, np.float64,
                                np.complex64])
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "maximum",
                                  "greater", "bitwise_and", "power"])
def test_bool_mask_with_numbers_matches_numpy(dt, name):
    """A bool tensor with a numeric one (count + alive, x * mask; the operators' compiled
    path converts the mask): NumPy's dtype, values or exception type, either order."""
    rng = np.random.default_rng(6)
    m = rng.random(37) > 0.5
    x = rng.integers(1, 5, 37).astype(dt)
    for a, b in ((x, m), (m, x)):
        expect, err = _np_apply(getattr(np, name), a, b)
        ta, tb = xa.asarray(a), xa.asarray(b)
        op = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
              "divide": operator.truediv, "greater": operator.gt, "bitwise_and": operator.and_,
              "power": operator.pow, "maximum": xa.maximum}[name]
        if err is not None:
            with pytest.raises(err):
                op(ta, tb)
            continue
        with np.errstate(all="ignore"):
            got = op(ta, tb)
        assert_same(got, expect)
