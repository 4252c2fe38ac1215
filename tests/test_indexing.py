"""Basic indexing (ints, slices with any step, Ellipsis, None) as views, __setitem__ with
broadcasting and overlap, read-only tensors, index errors, and advanced indexing (which
raises IndexError until it is implemented)."""

import gc

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import xarr as xa
from conftest import make_values

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = [np.dtype(d) for d in ("bool", "int8", "int32", "uint16", "int64", "float16",
                                "float32", "float64", "complex64")] + [BF16]
LAYOUTS = ["c", "f", "padded", "view", "tiled"]
STRIDED = ["c", "f", "padded", "view"]




def build(a, how):
    """A tensor with the values of ``a`` stored as ``how``."""
    rank = a.ndim
    if how == "c":
        return xa.asarray(a.copy())
    if how == "f":
        return xa.asarray(a, layout=tuple(range(rank)))
    if how == "padded":
        return xa.asarray(a, layout=xa.Layout(tuple(range(rank)),
                                              padded_dimensions=[d + 2 for d in a.shape]))
    if how == "tiled":
        return xa.asarray(a, layout=xa.Layout(tuple(range(rank - 1, -1, -1)),
                                              tiles=((2, 2),)))
    if how == "view":                       # a non-contiguous view of a bigger tensor
        big = xa.zeros(tuple(2 * d + 1 for d in a.shape), a.dtype)
        key = tuple(slice(2 * d - 1, None, -2) if d else slice(0, 0) for d in a.shape)
        v = big[key + (Ellipsis,)]         # (a 0-d view for shape (), not a scalar)
        assert v.shape == a.shape
        v[...] = xa.asarray(a)
        return v
    raise AssertionError(how)


def np_of(t):
    return np.asarray(t)


shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)


def slices(size):
    bound = st.none() | st.integers(-size - 3, size + 3)
    step = st.none() | st.integers(-4, 4).filter(lambda s: s != 0)
    return st.builds(slice, bound, bound, step)


@st.composite
def keys(draw, shape):
    """Basic index keys: hypothesis' basic_indices, plus slices with any bounds/steps."""
    if draw(st.booleans()):
        return draw(hnp.basic_indices(shape, min_dims=0, allow_newaxis=True,
                                      allow_ellipsis=True))
    out = []
    nreal = draw(st.integers(0, len(shape)))
    ellipsis_at = draw(st.integers(-1, nreal)) if nreal < len(shape) else -1
    for d in range(nreal):
        if d == ellipsis_at:
            out.append(Ellipsis)
        if draw(st.integers(0, 5)) == 0:
            out.append(None)
        size = shape[d] if ellipsis_at == -1 or d < ellipsis_at else \
            shape[len(shape) - nreal + d]
        if size and draw(st.booleans()):
            out.append(draw(st.integers(-size, size - 1)))
        else:
            out.append(draw(slices(size)))
    if ellipsis_at == nreal:
        out.append(Ellipsis)
    return tuple(out)


@st.composite
def tensors_and_keys(draw, layouts=LAYOUTS, dtypes=DTYPES):
    shape = draw(shapes)
    dtype = draw(st.sampled_from(dtypes))
    how = draw(st.sampled_from(layouts))
    a = make_values(shape, dtype, draw(st.integers(0, 9)))
    return a, how, draw(keys(shape))


# ------------------------------------------------------------------------------ getitem
@SETTINGS
@given(case=tensors_and_keys())
def test_prop_getitem_matches_numpy(case):
    a, how, key = case
    t = build(a, how)
    got = t[key]
    raw = a[key]
    want = np.asarray(raw)
    # NumPy's rule: a key of integers only, one per dim, gives a scalar; else a view
    assert type(got) is type(raw) if isinstance(raw, np.generic) else \
        isinstance(got, xa.Tensor)
    assert got.shape == want.shape
    assert got.dtype == a.dtype
    np.testing.assert_array_equal(np_of(got), want)


@SETTINGS
@given(case=tensors_and_keys(layouts=STRIDED))
def test_prop_getitem_is_a_view(case):
    a, how, key = case
    t = build(a, how)
    mirror = a.copy()
    v = t[key]
    if v.size == 0 or isinstance(v, np.generic):   # a scalar is a copy, as NumPy's
        return
    assert not v.flags["OWNDATA"]
    assert np.shares_memory(np_of(v), np_of(t))
    # writing through the view changes exactly the selected elements of the base
    fill = make_values(v.shape, a.dtype, 42)
    v[...] = xa.asarray(fill)
    mirror[key] = fill
    np.testing.assert_array_equal(np_of(t), mirror)
    # and writing the base shows in the view
    t[...] = xa.asarray(a)
    np.testing.assert_array_equal(np_of(v), np.asarray(a[key]))


@pytest.mark.parametrize("how", LAYOUTS)
def test_getitem_examples(how):
    a = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    t = build(a, how)
    for key in [0, -1, (1, 2), (-3, -4, -5), slice(None, None, -1), (Ellipsis, 2),
                (None, 1, Ellipsis, None), (slice(1, None, 2), None, slice(None, None, -3)),
                (Ellipsis,), (), (slice(10, 20),), (slice(-100, 100, 7), 1),
                (slice(None), slice(3, 0, -1), slice(4, None, -2)), (1, Ellipsis, 1),
                np.int64(2), (np.uint8(1), np.int16(-1))]:
        np.testing.assert_array_equal(np_of(t[key]), a[key])


def test_integer_indexing_gives_numpy_scalars():
    """t[i, j] is NumPy's scalar (np.float64, np.int64 ...), as a NumPy user expects and
    at NumPy's speed; an Ellipsis, None or slice in the key keeps a 0-d view that writes
    through (docs/architecture.md, "What t[i, j] returns")."""
    t = xa.asarray(np.arange(6).reshape(2, 3))
    s = t[1, 2]
    assert type(s) is np.int64 and s == 5
    assert type(t[np.int32(1), -1]) is np.int64
    assert type(xa.asarray(np.ones(3, np.float32))[0]) is np.float32
    assert type(xa.asarray(np.ones(3, bool))[0]) is np.bool_
    v = t[1, 2, ...]
    assert isinstance(v, xa.Tensor) and v.shape == ()
    v[...] = 50
    assert t[1, 2] == 50
    z = xa.asarray(3.5)
    assert type(z[()]) is np.float64 and z[()] == 3.5
    assert z[...].shape == () and isinstance(z[...], xa.Tensor)
    assert z[None].shape == (1,)
    assert z[None, ..., None].shape == (1, 1)
    for dt in (np.float16, np.complex64, np.uint16):
        a = np.array([1, 2], dt)
        assert type(xa.asarray(a)[1]) is type(a[1]) and xa.asarray(a)[1] == a[1]
    import ml_dtypes
    b = np.array([1.5, 2.5], ml_dtypes.bfloat16)
    assert type(xa.asarray(b)[1]) is type(b[1]) and float(xa.asarray(b)[1]) == 2.5


def test_0d_tensor_as_index():
    t = xa.asarray(np.arange(10) * 10)
    assert t[xa.asarray(3)].item() == 30
    assert t[xa.asarray(np.uint8(7))].item() == 70
    assert t[xa.asarray(-1)].item() == 90


def test_size_0_and_size_1_dims():
    a = np.zeros((0, 1, 3))
    t = xa.asarray(a)
    for key in [(slice(None), 0), (Ellipsis, 2), (slice(None), slice(None), None),
                (slice(None), -1, slice(None, None, -1))]:
        assert t[key].shape == a[key].shape
    with pytest.raises(IndexError):
        t[0]


# ------------------------------------------------------------------------------ setitem
@st.composite
def setitem_cases(draw):
    a, how, key = draw(tensors_and_keys(dtypes=[d for d in DTYPES]))
    target = np.asarray(a[key])
    # the value: a scalar or an array broadcastable to the target
    kind = draw(st.sampled_from(["scalar", "array", "tensor", "list"]))
    if kind == "scalar":
        value = draw(st.sampled_from([0, 1, 7, 2.0, True])) if a.dtype.kind != "c" else 3j
        return a, how, key, value
    vshape = list(target.shape)
    vshape = vshape[draw(st.integers(0, len(vshape))):]
    vshape = [1 if draw(st.integers(0, 3)) == 0 else d for d in vshape]
    if target.ndim and draw(st.integers(0, 4)) == 0:
        vshape = [1] + vshape           # extra leading 1s are allowed
    vdtype = draw(st.sampled_from([a.dtype, np.dtype(np.int64), np.dtype(np.float64)]))
    if a.dtype.kind == "b":
        vdtype = a.dtype
    value = make_values(tuple(vshape), vdtype, draw(st.integers(0, 9)))
    if kind == "tensor":
        return a, how, key, xa.asarray(value)
    if kind == "list" and value.size:      # (a size-0 list loses its trailing dims)
        return a, how, key, value.tolist()
    return a, how, key, value


@SETTINGS
@given(case=setitem_cases())
def test_prop_setitem_matches_numpy(case):
    a, how, key, value = case
    t = build(a, how)
    want = a.copy()
    np_value = np.asarray(value) if isinstance(value, (xa.Tensor, list)) else value
    want[key] = np_value
    t[key] = value
    np.testing.assert_array_equal(np_of(t), want)
    if how == "padded":     # the padding stays untouched
        store = np_of(t.storage())
        nz = np.count_nonzero(store != 0)
        assert nz == np.count_nonzero(want != 0)


@pytest.mark.parametrize("how", LAYOUTS)
@pytest.mark.parametrize("case", ["shift_right", "shift_left", "reverse", "cols",
                                  "transpose", "rev_cols", "step"])
def test_overlapping_self_assignment_matches_numpy(how, case):
    a = np.arange(1, 26, dtype=np.float64).reshape(5, 5)
    t = build(a, how)
    want = a.copy()
    if case == "shift_right":
        t[1:] = t[:-1]
        want[1:] = want[:-1]
    elif case == "shift_left":
        t[:-1] = t[1:]
        want[:-1] = want[1:]
    elif case == "reverse":
        t[...] = t[::-1, ::-1]
        want[...] = want[::-1, ::-1]
    elif case == "cols":
        t[:, 1:] = t[:, :-1]
        want[:, 1:] = want[:, :-1]
    elif case == "transpose":
        t[...] = t.T
        want[...] = want.T
    elif case == "rev_cols":
        t[:, ::-1] = t
        want[:, ::-1] = want.copy()
    elif case == "step":
        t[::2] = t[1:4]
        want[::2] = want[1:4]
    np.testing.assert_array_equal(np_of(t), want)


def test_overlapping_assignment_1d():
    for n in (2, 7, 64, 1000):
        a = np.arange(n, dtype=np.int32)
        t = xa.asarray(a.copy())
        t[1:] = t[:-1]
        a[1:] = a[:-1].copy()
        np.testing.assert_array_equal(np_of(t), a)
        t[::-1] = t
        a[::-1] = a.copy()
        np.testing.assert_array_equal(np_of(t), a)


def test_setitem_broadcasting_examples():
    t = xa.zeros((2, 3, 4), xa.int32)
    t[...] = xa.arange(4, dtype=xa.int32)
    t[0] = [[10], [20], [30]]
    t[1, :, ::2] = np.array([[[7, 8]]])
    a = np.zeros((2, 3, 4), np.int32)
    a[...] = np.arange(4)
    a[0] = [[10], [20], [30]]
    a[1, :, ::2] = np.array([[[7, 8]]])
    np.testing.assert_array_equal(np_of(t), a)


def test_setitem_casts_like_numpy():
    t = xa.zeros(3, xa.int32)
    t[:] = np.array([1.7, -2.7, 3.2])
    assert t.tolist() == [1, -2, 3]
    t[0] = 9.9
    assert t[0].item() == 9
    b = xa.zeros(3, xa.bool_)
    b[1] = 5
    assert b.tolist() == [False, True, False]
    f = xa.zeros(2, xa.bfloat16)
    f[:] = [1.5, 2.25]
    assert f.tolist() == [1.5, 2.25]
    c = xa.zeros(2, xa.complex64)
    c[0] = 1 + 2j
    assert c.tolist() == [1 + 2j, 0j]


@pytest.mark.parametrize("dtype, value", [("uint8", 300), ("uint8", -1), ("int8", 128),
                                          ("int16", -40000), ("uint64", -1)])
def test_setitem_python_int_out_of_bounds_raises_like_numpy(dtype, value):
    a = np.zeros(3, dtype)
    with pytest.raises(OverflowError):
        a[0] = value
    t = xa.zeros(3, dtype)
    with pytest.raises(OverflowError, match=str(value)):
        t[0] = value
    assert t.tolist() == [0, 0, 0]


@pytest.mark.parametrize("value, shape", [([1, 2], (3,)), (np.ones((2, 3)), (3,)),
                                          (np.ones((4, 1)), (2, 3)), (np.ones(3), (3, 2))])
def test_setitem_shape_mismatch_raises_value_error(value, shape):
    t = xa.zeros(shape)
    with pytest.raises(ValueError):
        t[...] = value
    assert np.all(np_of(t) == 0)


def test_setitem_bad_value_types():
    t = xa.zeros(3)
    with pytest.raises(TypeError):
        t[0] = "a"
    with pytest.raises(TypeError):
        t[0] = None
    with pytest.raises(TypeError):
        t[0] = object()


def test_setitem_on_tiled_tensor_keeps_layout_and_padding():
    a = np.arange(15, dtype=np.float32).reshape(3, 5)
    t = build(a, "tiled")
    t[1:, ::2] = -1
    a[1:, ::2] = -1
    t[0] = xa.arange(5, dtype=xa.float32) * 10
    a[0] = np.arange(5) * 10
    np.testing.assert_array_equal(np_of(t), a)
    assert t.flags["TILED"]
    store = np_of(t.storage())
    assert store.size == 24
    assert np.count_nonzero(store) == np.count_nonzero(a)


# ------------------------------------------------------------------------------ read-only
def read_only_tensors():
    a = np.arange(6.0).reshape(2, 3)
    a.flags.writeable = False
    out = [("numpy", xa.asarray(a)),
           ("numpy-view", xa.asarray(a)[:, 1:]),
           ("broadcast_to", xa.broadcast_to(xa.arange(3.0), (2, 3))),
           ("broadcast_in_dim", xa.lax.broadcast_in_dim(xa.arange(3.0), (2, 3), (1,))),
           ("dlpack", xa.from_dlpack(a))]
    return out


@pytest.mark.parametrize("name", [n for n, _ in read_only_tensors()])
def test_read_only_tensors_refuse_assignment(name):
    t = dict(read_only_tensors())[name]
    before = np_of(t).copy()
    assert not t.flags["WRITEABLE"]
    for key, value in [(0, 1.0), (Ellipsis, 0.0), ((slice(None), 0), [5.0])]:
        with pytest.raises(ValueError, match="read-only"):
            t[key] = value
    with pytest.raises(ValueError, match="read-only"):
        t += 1
    v = t[..., ::-1]                  # views of read-only tensors are read-only
    assert not v.flags["WRITEABLE"]
    with pytest.raises(ValueError, match="read-only"):
        v[0] = 1.0
    np.testing.assert_array_equal(np_of(t), before)


def test_broadcast_view_values():
    b = xa.broadcast_to(xa.asarray([1, 2, 3]), (4, 3))
    np.testing.assert_array_equal(np_of(b), np.broadcast_to([1, 2, 3], (4, 3)))
    assert b.strides[0] == 0
    c = b.copy()
    assert c.flags["WRITEABLE"]
    c[0, 0] = 9
    assert c[1, 0].item() == 1


# ------------------------------------------------------------------------------ errors
@pytest.mark.parametrize("key, frag", [(2, "2"), (-3, "-3"), ((0, 3), "3"), ((0, -4), "-4"),
                                       ((Ellipsis, 5), "5"), ((None, 7), "7"),
                                       (np.int64(9), "9")])
def test_out_of_range_index_raises_index_error_naming_value(key, frag):
    t = xa.zeros((2, 3))
    with pytest.raises(IndexError) as info:
        t[key]
    assert frag in str(info.value)
    with pytest.raises(IndexError) as info:
        t[key] = 1.0
    assert frag in str(info.value)
    assert np.all(np_of(t) == 0)


def test_out_of_range_index_names_axis_and_size():
    t = xa.zeros((2, 3))
    with pytest.raises(IndexError, match=r"axis 1.*size 3|size 3.*axis 1"):
        t[0, 3]


def test_huge_index_does_not_crash():
    t = xa.zeros(3)
    for k in (2**63, 2**70, -2**70):
        with pytest.raises((IndexError, OverflowError)):
            t[k]


@pytest.mark.parametrize("shape, key", [((2, 3), (0, 0, 0)), ((2, 3), (Ellipsis, 0, 0, 0)),
                                        ((), 0), ((), (slice(None),)), ((4,), (1, 1)),
                                        ((2, 3), (None, 0, 0, slice(None)))])
def test_too_many_indices(shape, key):
    t = xa.zeros(shape)
    with pytest.raises(IndexError, match="too many indices"):
        t[key]
    with pytest.raises(IndexError, match="too many indices"):
        t[key] = 0


def test_multiple_ellipsis_raises_index_error():
    with pytest.raises(IndexError, match="ellipsis"):
        xa.zeros((2, 3))[..., ...]


def test_zero_slice_step_raises_value_error():
    with pytest.raises(ValueError, match="zero"):
        xa.zeros(3)[::0]


ADVANCED_KEYS = [
    ("list", [0, 1]),
    ("nested-list", [[0], [1]]),
    ("numpy-int-array", np.array([1, 0])),
    ("numpy-bool-array", np.array([True, False])),
    ("tensor-int", "tensor-int"),
    ("tensor-bool", "tensor-bool"),
    ("bool-scalar", True),
    ("false-scalar", False),
    ("tuple-with-array", (slice(None), np.array([0, 2]))),
    ("float", 1.0),
    ("string", "a"),
]


@pytest.mark.parametrize("name, key", ADVANCED_KEYS, ids=[n for n, _ in ADVANCED_KEYS])
def test_advanced_keys_match_numpy(name, key):
    """Integer-array and boolean keys follow NumPy (tests/test_indexing_advanced.py has the
    full coverage); keys NumPy refuses raise IndexError and write nothing."""
    x = np.arange(6.0).reshape(2, 3)
    t = xa.asarray(x)
    nkey = key
    if name == "tensor-int":
        key, nkey = xa.asarray([1, 0]), np.array([1, 0])
    elif name == "tensor-bool":
        key, nkey = xa.asarray([True, False]), np.array([True, False])
    if name in ("float", "string"):
        with pytest.raises(IndexError):
            t[key]
        with pytest.raises(IndexError):
            t[key] = 0.0
        assert t.tolist() == [[0, 1, 2], [3, 4, 5]]
        return
    assert np.array_equal(np.asarray(t[key]), x[nkey])
    t[key] = -1.0
    x[nkey] = -1.0
    assert np.array_equal(np.asarray(t), x)


# ------------------------------------------------------------------------------ chains
def test_chained_views_write_through():
    base = xa.zeros((6, 8), xa.int32, layout=(0, 1))
    v = base[1:, ::2][::-1][1:3, None, 1:].T
    v[...] = xa.asarray(np.arange(v.size, dtype=np.int32).reshape(v.shape))
    a = np.zeros((6, 8), np.int32)
    av = a[1:, ::2][::-1][1:3, None, 1:].T
    av[...] = np.arange(av.size).reshape(av.shape)
    np.testing.assert_array_equal(np_of(base), a)
    assert base.layout == xa.Layout((0, 1))


def test_overlapping_assignment_from_numpy_and_memoryview_of_same_memory():
    t = xa.asarray(np.arange(10.0))
    t[...] = np.asarray(t)[::-1]
    assert t.tolist() == list(np.arange(10.0)[::-1])
    t = xa.asarray(np.arange(10.0))
    t[1:] = memoryview(t)[:-1]
    assert t.tolist() == [0.0] + list(np.arange(9.0))


def test_views_keep_their_base_alive():
    base = xa.arange(1000, dtype=xa.float64)
    v = base[::2].reshape(50, 10)[::-1]
    s = base[1:].storage()
    del base
    gc.collect()
    assert v[0, 9].item() == 998.0
    assert v.storage().size == 1000
    assert s[999].item() == 999.0


@pytest.mark.parametrize("view", ["row", "slice", "T", "iter"])
def test_views_of_tiled_tensors_write_through_or_refuse(view):
    """Basic indexing returns views: writing through a view of a tiled tensor must change
    the tensor, or (if such views cannot be strided) raise - never be lost silently."""
    t = xa.asarray(np.arange(6.0).reshape(2, 3), layout="{1,0:T(2,2)}")
    v = {"row": lambda: t[0], "slice": lambda: t[:, 1:], "T": lambda: t.T,
         "iter": lambda: next(iter(t))}[view]()
    key = (1,) if v.ndim == 1 else (0, 1)
    try:
        v[key] = 99.0
    except ValueError:
        assert np.asarray(t).tolist() == [[0, 1, 2], [3, 4, 5]]
        return
    want = np.arange(6.0).reshape(2, 3)
    {"row": want[0], "slice": want[:, 1:], "T": want.T, "iter": want[0]}[view][key] = 99.0
    np.testing.assert_array_equal(np.asarray(t), want)
