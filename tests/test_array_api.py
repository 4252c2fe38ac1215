"""The Python Array API standard on xarr (xarr/_array_api.py, xarr/__init__.py):
``t.__array_namespace__()``, ``xa.__array_namespace_info__()``, the data-type functions
(result_type, can_cast, finfo, iinfo, isdtype), meshgrid, tril/triu, unstack, diff,
matrix_transpose, cumulative_sum/cumulative_prod (include_initial) against NumPy; the
presence of every function of the standard's (2024.12) creation, elementwise,
manipulation, searching, statistical, utility and data-type groups; and, when
``array_api_strict`` is importable, a few functions against it."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import xarr as xa
from conftest import ALL_DTYPES, BF16, LAYOUTS, assert_same, kind, make_tensor, random_array

API_DTYPES = [xa.bool_, xa.int8, xa.int16, xa.int32, xa.int64, xa.uint8, xa.uint16,
              xa.uint32, xa.uint64, xa.float32, xa.float64, xa.complex64, xa.complex128]


def values(shape, dt, seed=0):
    return random_array(np.random.default_rng(seed), shape, dt)


# ------------------------------------------------------------------------ namespace
def test_array_namespace():
    t = xa.ones((2, 3))
    assert t.__array_namespace__() is xa
    assert t.__array_namespace__(api_version=None) is xa
    assert xa.__array_api_version__ == "2024.12"
    assert t.__array_namespace__(api_version="2023.12") is xa
    assert t.__array_namespace__(api_version="2024.12") is xa
    with pytest.raises(ValueError, match="api_version"):
        t.__array_namespace__(api_version="2099.12")
    assert t.to_device("cpu") is t and t.device == "cpu"
    with pytest.raises(ValueError, match="device"):
        t.to_device("gpu")
    assert xa.astype(t, xa.float32, device="cpu").dtype == xa.float32
    with pytest.raises(ValueError, match="device"):
        xa.astype(t, xa.float32, device="gpu")
    seen = []
    xa.jit(lambda v: seen.append((v.device, v.to_device("cpu") is v,
                                  v.__array_namespace__(api_version="2024.12"))) or v)(t)
    assert seen == [("cpu", True, xa)]


def test_array_namespace_info():
    info = xa.__array_namespace_info__()
    caps = info.capabilities()
    assert caps["boolean indexing"] is True and caps["data-dependent shapes"] is True
    assert info.default_device() in info.devices()
    d = info.default_dtypes()
    assert d == info.default_dtypes(device=info.default_device())
    assert d["real floating"] == xa.float64 and d["complex floating"] == xa.complex128
    assert d["integral"] == xa.int64 and d["indexing"] == xa.int64
    every = info.dtypes()
    assert set(every) == {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                          "uint32", "uint64", "float32", "float64", "complex64",
                          "complex128"}
    for name, dt in every.items():
        assert getattr(xa, name) == dt
    assert set(info.dtypes(kind="signed integer")) == {"int8", "int16", "int32", "int64"}
    assert set(info.dtypes(kind="integral")) == {"int8", "int16", "int32", "int64", "uint8",
                                                 "uint16", "uint32", "uint64"}
    assert set(info.dtypes(kind=("bool", "complex floating"))) == {"bool", "complex64",
                                                                   "complex128"}
    assert len(info.dtypes(kind="numeric")) == 12
    with pytest.raises(ValueError):
        info.dtypes(kind="nonsense")
    # the default dtypes are what creation functions produce
    assert xa.asarray(1.5).dtype == d["real floating"]
    assert xa.asarray(3).dtype == d["integral"]
    assert xa.arange(3).dtype == d["integral"]


# ------------------------------------------------------------------------ data-type functions
@pytest.mark.parametrize("a", API_DTYPES, ids=str)
def test_result_type_and_can_cast_match_numpy(a):
    for b in API_DTYPES:
        want = np.result_type(np.dtype(a), np.dtype(b))
        got = xa.result_type(a, b)
        assert got == want, (a, b, got, want)
        assert xa.result_type(xa.zeros(2, a), b) == want
        assert xa.can_cast(a, b) == np.can_cast(a, b, "safe"), (a, b)
        assert xa.can_cast(xa.zeros(1, a), b) == np.can_cast(a, b, "safe")
    # Python scalars are weak (NEP 50 / the standard)
    if kind(a) in "iu":
        assert xa.result_type(a, 1) == np.dtype(a)
        assert xa.result_type(a, 1.0) == np.result_type(np.dtype(a), 1.0)
    if kind(a) == "f":
        assert xa.result_type(a, 1.0) == np.dtype(a)
        assert xa.result_type(a, 1j) == np.result_type(np.dtype(a), 1j)
    assert xa.result_type(a) == np.dtype(a)


def test_result_type_many_and_errors():
    assert xa.result_type(xa.int8, xa.uint8, xa.float32) == np.float32
    assert xa.result_type(xa.int8, xa.uint16, xa.int32) == np.int32
    assert xa.result_type(xa.uint64, xa.int64) == np.float64
    with pytest.raises((ValueError, TypeError)):
        xa.result_type()


@pytest.mark.parametrize("dt", [xa.float16, xa.float32, xa.float64, xa.bfloat16,
                                xa.complex64, xa.complex128], ids=str)
def test_finfo(dt):
    f = xa.finfo(dt)
    ref = np.finfo(np.empty(0, dt).real.dtype) if np.dtype(dt) != BF16 else \
        __import__("ml_dtypes").finfo(BF16)
    for attr in ("bits", "eps", "max", "min", "smallest_normal"):
        assert float(getattr(f, attr)) == float(getattr(ref, attr)), attr
    assert f.dtype == (np.empty(0, dt).real.dtype if np.dtype(dt) != BF16 else BF16)
    assert xa.finfo(xa.zeros(2, dt)).bits == f.bits


@pytest.mark.parametrize("dt", [xa.int8, xa.int16, xa.int32, xa.int64, xa.uint8, xa.uint16,
                                xa.uint32, xa.uint64], ids=str)
def test_iinfo(dt):
    i = xa.iinfo(dt)
    ref = np.iinfo(dt)
    assert (i.bits, i.min, i.max, i.dtype) == (ref.bits, ref.min, ref.max, ref.dtype)
    assert xa.iinfo(xa.zeros(2, dt)).max == ref.max


def test_finfo_iinfo_errors():
    with pytest.raises((ValueError, TypeError)):
        xa.iinfo(xa.float32)
    with pytest.raises((ValueError, TypeError)):
        xa.finfo(xa.int32)


KINDS = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
         "real floating": "f", "complex floating": "c", "numeric": "iufc"}


@pytest.mark.parametrize("dt", API_DTYPES + [xa.float16, xa.bfloat16], ids=str)
def test_isdtype(dt):
    k = kind(dt)
    for name, kinds in KINDS.items():
        assert xa.isdtype(dt, name) == (k in kinds), (dt, name)
    assert xa.isdtype(dt, ("bool", "complex floating")) == (k in "bc")
    assert xa.isdtype(dt, dt) is True
    other = xa.int8 if np.dtype(dt) != np.int8 else xa.uint8
    assert xa.isdtype(dt, other) is False
    with pytest.raises(ValueError):
        xa.isdtype(dt, "floating-ish")


# ------------------------------------------------------------------------ creation helpers
@given(lens=st.lists(st.integers(0, 4), min_size=0, max_size=3),
       indexing=st.sampled_from(["xy", "ij"]), dt=st.sampled_from(API_DTYPES))
def test_meshgrid(lens, indexing, dt):
    arrays = [values((n,), dt, k) for k, n in enumerate(lens)]
    got = xa.meshgrid(*[xa.asarray(a) for a in arrays], indexing=indexing)
    want = np.meshgrid(*arrays, indexing=indexing)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_same(g, w)


def test_meshgrid_error():
    with pytest.raises(ValueError):
        xa.meshgrid(xa.ones(2), indexing="yx")


@given(shape=hnp.array_shapes(min_dims=2, max_dims=4, min_side=0, max_side=5),
       dt=st.sampled_from(API_DTYPES), k=st.integers(-6, 6), how=st.sampled_from(LAYOUTS))
def test_tril_triu(shape, dt, k, how):
    x = values(shape, dt, 1)
    t = make_tensor(x, how)
    assert_same(xa.tril(t, k=k), np.tril(x, k=k))
    assert_same(xa.triu(t, k=k), np.triu(x, k=k))
    assert_same(xa.jit(lambda a: xa.tril(a, k=k))(t), np.tril(x, k=k))


def test_tril_triu_errors():
    with pytest.raises(ValueError):
        xa.tril(xa.ones(3))
    with pytest.raises(ValueError):
        xa.triu(xa.ones(()))


# ------------------------------------------------------------------------ manipulation helpers
@given(shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=4),
       dt=st.sampled_from(ALL_DTYPES), how=st.sampled_from(LAYOUTS), data=st.data())
def test_unstack(shape, dt, how, data):
    x = values(shape, dt, 2)
    n = len(shape)
    axis = data.draw(st.integers(-n, n - 1))
    got = xa.unstack(make_tensor(x, how), axis=axis)
    assert isinstance(got, tuple)
    want = tuple(np.moveaxis(x, axis, 0))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_same(g, w)


def test_unstack_errors():
    with pytest.raises(ValueError):
        xa.unstack(xa.ones((2, 3)), axis=2)
    with pytest.raises(ValueError):
        xa.unstack(xa.ones(()))


@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5),
       dt=st.sampled_from([d for d in API_DTYPES if kind(d) != "u"]),
       how=st.sampled_from(LAYOUTS), n=st.integers(0, 3), data=st.data())
def test_diff(shape, dt, how, n, data):
    x = values(shape, dt, 3)
    nd = len(shape)
    axis = data.draw(st.integers(-nd, nd - 1))
    kw = {}
    if data.draw(st.booleans()):
        s = list(shape)
        s[axis] = data.draw(st.integers(0, 2))
        kw["prepend"] = values(tuple(s), dt, 4)
    if data.draw(st.booleans()):
        kw["append"] = values((), dt, 5)
    with np.errstate(all="ignore"):
        want = np.diff(x, n=n, axis=axis, **kw)
    xkw = {k: xa.asarray(v) for k, v in kw.items()}
    got = xa.diff(make_tensor(x, how), axis=axis, n=n, **xkw)
    assert_same(got, want)


def test_diff_errors():
    with pytest.raises(ValueError):
        xa.diff(xa.ones(3), n=-1)
    with pytest.raises(ValueError):
        xa.diff(xa.ones(3), axis=1)


@given(shape=hnp.array_shapes(min_dims=2, max_dims=4, min_side=0, max_side=4),
       dt=st.sampled_from(ALL_DTYPES), how=st.sampled_from(LAYOUTS))
def test_matrix_transpose(shape, dt, how):
    x = values(shape, dt, 6)
    assert_same(xa.matrix_transpose(make_tensor(x, how)), np.swapaxes(x, -1, -2))


def test_matrix_transpose_error():
    with pytest.raises(ValueError):
        xa.matrix_transpose(xa.ones(3))


@given(shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5),
       dt=st.sampled_from([d for d in API_DTYPES if kind(d) in "biu"] + [xa.float64]),
       how=st.sampled_from(LAYOUTS), include_initial=st.booleans(), data=st.data())
def test_cumulative_sum_prod(shape, dt, how, include_initial, data):
    x = values(shape, dt, 7)
    nd = len(shape)
    if nd == 0:
        return
    axis = data.draw(st.integers(-nd, nd - 1)) if nd > 1 else \
        data.draw(st.sampled_from([None, 0, -1]))
    dtype = data.draw(st.sampled_from([None, xa.int64, xa.float64])) \
        if kind(dt) != "f" else None
    t = make_tensor(x, how)
    for fn, np_fn, init in ((xa.cumulative_sum, np.cumsum, 0),
                            (xa.cumulative_prod, np.cumprod, 1)):
        got = fn(t, axis=axis, dtype=dtype, include_initial=include_initial)
        with np.errstate(all="ignore"):
            want = np_fn(x, axis=axis, dtype=dtype)
            if include_initial:
                a = 0 if axis is None else axis % want.ndim
                pad_shape = list(want.shape)
                pad_shape[a] = 1
                want = np.concatenate([np.full(pad_shape, init, want.dtype), want], axis=a)
        assert_same(got, want)


def test_cumulative_sum_examples():
    x = xa.asarray(np.array([[1, 2, 3], [4, 5, 6]], np.int32))
    assert_same(xa.cumulative_sum(x, axis=1, include_initial=True),
                np.array([[0, 1, 3, 6], [0, 4, 9, 15]], np.int64))
    assert_same(xa.cumulative_prod(x, axis=0, include_initial=True),
                np.array([[1, 1, 1], [1, 2, 3], [4, 10, 18]], np.int64))
    assert_same(xa.cumulative_sum(xa.zeros((0,), xa.float32), include_initial=True),
                np.zeros(1, np.float32))


# ------------------------------------------------------------------------ presence (2024.12)
CREATION = ["arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full",
            "full_like", "linspace", "meshgrid", "ones", "ones_like", "tril", "triu",
            "zeros", "zeros_like"]
ELEMENTWISE = ["abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh",
               "bitwise_and", "bitwise_left_shift", "bitwise_invert", "bitwise_or",
               "bitwise_right_shift", "bitwise_xor", "ceil", "clip", "conj", "copysign",
               "cos", "cosh", "divide", "equal", "exp", "expm1", "floor", "floor_divide",
               "greater", "greater_equal", "hypot", "imag", "isfinite", "isinf", "isnan",
               "less", "less_equal", "log", "log1p", "log2", "log10", "logaddexp",
               "logical_and", "logical_not", "logical_or", "logical_xor", "maximum",
               "minimum", "multiply", "negative", "not_equal", "positive", "pow", "real",
               "remainder", "round", "sign", "signbit", "sin", "sinh", "square", "sqrt",
               "subtract", "tan", "tanh", "trunc", "nextafter", "reciprocal"]
MANIPULATION = ["broadcast_arrays", "broadcast_to", "concat", "expand_dims", "flip",
                "moveaxis", "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack",
                "tile", "unstack"]
SEARCHING = ["argmax", "argmin", "nonzero", "where", "count_nonzero", "searchsorted"]
INDEXING = ["take", "take_along_axis"]
STATISTICAL = ["cumulative_sum", "cumulative_prod", "max", "mean", "min", "prod", "std",
               "sum", "var"]
UTILITY = ["all", "any", "diff"]
DATA_TYPE = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]
DTYPE_NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
               "uint64", "float32", "float64", "complex64", "complex128"]
CONSTANTS = ["e", "inf", "nan", "newaxis", "pi"]
GROUPS = {"creation": CREATION, "elementwise": ELEMENTWISE, "manipulation": MANIPULATION,
          "searching": SEARCHING, "indexing": INDEXING, "statistical": STATISTICAL,
          "utility": UTILITY,
          "data-type": DATA_TYPE, "dtypes": DTYPE_NAMES, "constants": CONSTANTS}


def _missing():
    out = []
    for group, names in GROUPS.items():
        for n in names:
            # (a NumPy fallback, xarr.__getattr__, is not xarr's own)
            if not hasattr(xa, n) or getattr(getattr(xa, n), "_numpy_fallback", False):
                out.append(f"{group}:{n}")
            elif group not in ("dtypes", "constants") and not callable(getattr(xa, n)):
                out.append(f"{group}:{n} (not callable)")
    return out


def test_array_api_names_present():
    missing = _missing()
    assert not missing, f"missing from xarr: {', '.join(missing)}"


def test_constants_and_dtypes():
    assert xa.e == np.e and xa.pi == np.pi and np.isinf(xa.inf) and np.isnan(xa.nan)
    assert xa.newaxis is None
    assert xa.bool == np.bool_


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "std", "var"])
def test_statistical_signatures(name):
    """The standard's keywords: axis (int or tuple), keepdims; correction for std/var is
    NumPy's ddof here."""
    x = np.arange(1, 13, dtype=np.float64).reshape(3, 4)
    fn = getattr(xa, name)
    got = fn(xa.asarray(x), axis=(0, 1), keepdims=True)
    want = getattr(np, name)(x, axis=(0, 1), keepdims=True)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-14)


# ------------------------------------------------------------------------ array-api-strict
try:
    import array_api_strict as xp
    xp.set_array_api_strict_flags(api_version="2024.12")
except ImportError:          # pragma: no cover - then the comparisons below skip
    xp = None
needs_strict = pytest.mark.skipif(xp is None, reason="array-api-strict is not installed")


def _to_np(a):
    return np.asarray(a._array) if hasattr(a, "_array") else np.asarray(a)


STRICT_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64", "float32", "float64", "complex64", "complex128"]


@needs_strict
def test_promotion_table_matches_array_api_strict():
    """Where the standard defines a promotion (no mixed signed/unsigned 64-bit...), xarr
    gives the standard's answer."""
    for a in STRICT_DTYPES:
        for b in STRICT_DTYPES:
            try:
                want = xp.result_type(getattr(xp, a), getattr(xp, b))
            except TypeError:
                continue      # not defined by the standard (e.g. int with float)
            got = xa.result_type(getattr(xa, a if a != "bool" else "bool_"),
                                 getattr(xa, b if b != "bool" else "bool_"))
            assert str(got) == str(want).split(".")[-1], (a, b, got, want)
            assert xa.can_cast(getattr(xa, a if a != "bool" else "bool_"),
                               getattr(xa, b if b != "bool" else "bool_")) == \
                xp.can_cast(getattr(xp, a), getattr(xp, b)), (a, b)


@needs_strict
@pytest.mark.parametrize("case", ["cumulative_sum", "cumulative_prod", "meshgrid", "tril",
                                  "triu", "unstack", "diff", "matrix_transpose", "argmax",
                                  "count_nonzero", "concat", "stack", "roll", "tile",
                                  "repeat", "moveaxis", "var", "std", "clip", "where",
                                  "reciprocal", "nextafter", "take_along_axis", "diff_append",
                                  "cumulative_prod", "count_nonzero_keep", "scalar_left",
                                  "scalar_right", "scalar_shift", "scalar_pow",
                                  "scalar_compare", "where_scalars", "complex_scalar",
                                  "conj_real", "real_real", "mean_complex", "take_negative"])
def test_functions_match_array_api_strict(case):
    rng = np.random.default_rng(8)
    x = rng.integers(-5, 6, (3, 4)).astype(np.int32)
    f = rng.standard_normal((3, 4))
    xs, ts = xp.asarray(x), xa.asarray(x)
    fs, tf = xp.asarray(f), xa.asarray(f)
    calls = {
        "cumulative_sum": lambda m, a, b: m.cumulative_sum(a, axis=1, include_initial=True),
        "cumulative_prod": lambda m, a, b: m.cumulative_prod(a, axis=0, include_initial=True),
        "meshgrid": lambda m, a, b: m.meshgrid(m.arange(3), m.arange(4), indexing="xy"),
        "tril": lambda m, a, b: m.tril(a, k=-1),
        "triu": lambda m, a, b: m.triu(a, k=1),
        "unstack": lambda m, a, b: m.unstack(a, axis=1),
        "diff": lambda m, a, b: m.diff(a, axis=0, n=2),
        "matrix_transpose": lambda m, a, b: m.matrix_transpose(a),
        "argmax": lambda m, a, b: m.argmax(b, axis=1, keepdims=True),
        "count_nonzero": lambda m, a, b: m.count_nonzero(a, axis=0),
        "concat": lambda m, a, b: m.concat([a, a], axis=-1),
        "stack": lambda m, a, b: m.stack([a, a, a], axis=1),
        "roll": lambda m, a, b: m.roll(a, (1, -2), axis=(0, 1)),
        "tile": lambda m, a, b: m.tile(a, (2, 1)),
        "repeat": lambda m, a, b: m.repeat(a, 2, axis=1),
        "moveaxis": lambda m, a, b: m.moveaxis(a, 0, 1),
        "var": lambda m, a, b: m.var(b, axis=0, correction=1) if m is xp else
        m.var(b, axis=0, ddof=1),
        "std": lambda m, a, b: m.std(b, axis=1, keepdims=True),
        "clip": lambda m, a, b: m.clip(b, -0.5, 0.5),
        "where": lambda m, a, b: m.where(a > 0, b, 0.0),
        # 2024.12's additions
        "reciprocal": lambda m, a, b: m.reciprocal(b),
        "nextafter": lambda m, a, b: m.nextafter(b, 0.5),
        "take_along_axis": lambda m, a, b: m.take_along_axis(
            b, m.astype(m.abs(a) % 3, m.int64), axis=0),
        "diff_append": lambda m, a, b: m.diff(b, axis=1, append=m.zeros((3, 1), dtype=m.float64)),
        "cumulative_prod": lambda m, a, b: m.cumulative_prod(a, axis=1, dtype=m.int64),
        "count_nonzero_keep": lambda m, a, b: m.count_nonzero(a, axis=1, keepdims=True),
        # Python scalars in binary functions, either side (2024.12)
        "scalar_left": lambda m, a, b: m.subtract(2, a),
        "scalar_right": lambda m, a, b: m.divide(b, 3),
        "scalar_shift": lambda m, a, b: m.bitwise_left_shift(m.abs(a), 2),
        "scalar_pow": lambda m, a, b: m.pow(2.0, b),
        "scalar_compare": lambda m, a, b: m.greater_equal(a, 1),
        "where_scalars": lambda m, a, b: m.where(a > 0, 1.5, b),
        "complex_scalar": lambda m, a, b: m.multiply(m.astype(b, m.float32), 1j),
        "conj_real": lambda m, a, b: m.conj(b),
        "real_real": lambda m, a, b: m.real(b),
        "mean_complex": lambda m, a, b: m.mean(b + 2j, axis=0),
        "take_negative": lambda m, a, b: m.take(b, m.asarray([-1, 0, -3]), axis=1),
    }
    want = calls[case](xp, xs, fs)
    got = calls[case](xa, ts, tf)
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        pairs = list(zip(got, want))
    else:
        pairs = [(got, want)]
    for g, w in pairs:
        w = _to_np(w)
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype, (case, g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=1e-13)


@needs_strict
def test_result_type_with_scalars_matches_array_api_strict():
    """2024.12: result_type takes Python scalars, which adopt the array's dtype."""
    for name in STRICT_DTYPES:
        for scalar in (True, 1, 1.5, 1j):
            try:
                want = xp.result_type(getattr(xp, name), scalar)
            except TypeError:
                continue
            got = xa.result_type(getattr(xa, name if name != "bool" else "bool_"), scalar)
            assert str(got) == str(want).split(".")[-1], (name, scalar, got, want)


# ------------------------------------------------------------------------ hypothesis.extra.array_api
def _xps():
    import warnings
    from hypothesis.extra.array_api import make_strategies_namespace
    with warnings.catch_warnings():
        # "could not determine whether xarr is an Array API library": its arrays lack
        # __array_namespace__ (see test_array_namespace)
        warnings.simplefilter("ignore")
        return make_strategies_namespace(xa, api_version="2024.12")


xps = _xps()


@given(pair=st.tuples(xps.numeric_dtypes(), xps.numeric_dtypes()), data=st.data())
def test_array_api_strategies_promotion(pair, data):
    """Arrays drawn by hypothesis.extra.array_api from xarr itself: a binary op's result
    dtype is result_type's (NumPy 2's table, the standard's where it defines one)."""
    shape = data.draw(xps.array_shapes(min_dims=0, max_dims=3, max_side=3))
    a = data.draw(xps.arrays(pair[0], shape))
    b = data.draw(xps.arrays(pair[1], shape[-1:]))
    with np.errstate(all="ignore"):
        r = xa.multiply(a, b)
    assert r.dtype == xa.result_type(a, b) == xa.result_type(pair[0], pair[1]) == \
        np.result_type(np.dtype(pair[0]), np.dtype(pair[1]))
    assert r.shape == np.broadcast_shapes(shape, shape[-1:])
    s = xa.sum(a, axis=None)
    assert s.shape == ()
