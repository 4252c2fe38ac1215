"""Tensor attributes (shape, dtype, strides, flags, layout, xla_shape) and conversions
(T/mT/transpose, reshape, copy, astype, item/tolist, Python scalars, repr, pickling)."""

import copy
import operator
import pickle
import subprocess
import sys
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import xarr as xa
from conftest import ALL_DTYPES, SETTINGS, XLA_NAMES, make_values

XLA_NAME = dict(zip(ALL_DTYPES, XLA_NAMES))


def hlo(dtype, shape, m2m=None):
    if not shape:
        return f"{XLA_NAME[np.dtype(dtype)]}[]"
    m2m = tuple(range(len(shape) - 1, -1, -1)) if m2m is None else m2m
    return (f"{XLA_NAME[np.dtype(dtype)]}[{','.join(map(str, shape))}]"
            f"{{{','.join(map(str, m2m))}}}")


shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


@st.composite
def numpy_arrays(draw):
    """A NumPy array (any of the 15 dtypes) that may be a non-contiguous view."""
    shape = draw(shapes)
    dtype = draw(st.sampled_from(ALL_DTYPES))
    a = make_values(shape, dtype, draw(st.integers(0, 9)))
    how = draw(st.sampled_from(["c", "f", "T", "slice"]))
    if how == "f":
        a = np.asfortranarray(a)
    elif how == "T":
        a = a.T
    elif how == "slice" and a.ndim:
        a = a[tuple(slice(None, None, draw(st.sampled_from([1, 2, -1]))) for _ in shape)]
    return a


# ------------------------------------------------------------------------------ attributes
@SETTINGS
@given(a=numpy_arrays())
def test_prop_attributes_match_numpy(a):
    t = xa.asarray(a)
    assert isinstance(t, xa.Tensor) and isinstance(t, xa.ndarray)
    assert t.shape == a.shape
    assert type(t.shape) is tuple
    assert t.ndim == a.ndim
    assert t.size == a.size
    assert t.dtype == a.dtype
    assert t.itemsize == a.itemsize
    assert t.nbytes == a.nbytes
    assert t.strides == a.strides
    assert t.flags["C_CONTIGUOUS"] == a.flags.c_contiguous
    assert t.flags["WRITEABLE"] == a.flags.writeable
    assert not t.flags["TILED"]
    assert not t.flags["OWNDATA"]          # a zero-copy wrapper does not own its memory
    assert t.device == "cpu"
    np.testing.assert_array_equal(np.asarray(t), a)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=XLA_NAMES)
def test_dtype_and_xla_shape_text(dtype):
    t = xa.zeros((2, 3), dtype)
    assert t.dtype == dtype
    assert isinstance(t.dtype, np.dtype)
    assert t.itemsize == dtype.itemsize
    assert t.nbytes == 6 * dtype.itemsize
    assert str(t.xla_shape) == hlo(dtype, (2, 3))
    assert t.xla_shape == xa.Shape(XLA_NAME[dtype], (2, 3))
    assert t.xla_shape.element_type == XLA_NAME[dtype]
    assert str(xa.zeros((), dtype).xla_shape) == f"{XLA_NAME[dtype]}[]"
    assert str(xa.zeros((4, 0, 1), dtype).xla_shape) == hlo(dtype, (4, 0, 1))


def test_dtype_objects_are_numpy_dtypes():
    assert xa.float32 == np.dtype("float32")
    assert xa.bfloat16 == np.dtype(ml_dtypes.bfloat16)
    assert xa.bool_ == np.dtype(bool) and xa.bool == np.dtype(bool)
    assert xa.asarray([1.0], dtype=xa.float32).dtype is xa.float32
    for name, dt in zip(XLA_NAMES, ALL_DTYPES):
        assert xa.zeros(1, name).dtype == dt


@pytest.mark.parametrize("shape, m2m", [((2, 3), (1, 0)), ((2, 3), (0, 1)),
                                        ((2, 3, 4), (0, 2, 1)), ((5,), (0,)),
                                        ((2, 3, 4, 5), (3, 1, 0, 2))])
def test_strides_layout_and_xla_shape_follow_minor_to_major(shape, m2m):
    t = xa.zeros(shape, xa.float32, layout=m2m)
    expect = [0] * len(shape)
    s = 4
    for d in m2m:
        expect[d] = s
        s *= shape[d]
    assert t.strides == tuple(expect)
    assert t.layout == xa.Layout(m2m)
    assert t.layout.minor_to_major == m2m
    assert str(t.xla_shape) == hlo(np.float32, shape, m2m)
    assert t.flags["C_CONTIGUOUS"] == (m2m == tuple(range(len(shape) - 1, -1, -1)))
    assert t.flags["OWNDATA"]


def test_flags_of_new_views_and_copies():
    t = xa.zeros((3, 4), xa.int32)
    assert t.flags == {"C_CONTIGUOUS": True, "F_CONTIGUOUS": t.ndim <= 1 or 1 in t.shape,
                       "WRITEABLE": True, "TILED": False,
                       "OWNDATA": True}
    v = t[:, 1:]
    assert not v.flags["C_CONTIGUOUS"] and not v.flags["OWNDATA"] and v.flags["WRITEABLE"]
    assert v.copy().flags["C_CONTIGUOUS"] and v.copy().flags["OWNDATA"]
    tiled = t.relayout("{1,0:T(2,2)}")
    assert tiled.flags["TILED"] and not tiled.flags["C_CONTIGUOUS"]
    assert not xa.broadcast_to(xa.arange(4), (3, 4)).flags["WRITEABLE"]


def test_tensor_cannot_be_constructed_directly():
    with pytest.raises(TypeError, match="asarray"):
        xa.Tensor()
    with pytest.raises(TypeError, match="asarray"):
        xa.Tensor([1, 2])


def test_tensor_is_unhashable():
    with pytest.raises(TypeError, match="unhashable"):
        hash(xa.zeros(3))


# ------------------------------------------------------------------------------ transposes
@SETTINGS
@given(a=numpy_arrays(), data=st.data())
def test_prop_transpose_matches_numpy_and_is_a_view(a, data):
    t = xa.asarray(a)
    np.testing.assert_array_equal(np.asarray(t.T), a.T)
    np.testing.assert_array_equal(np.asarray(t.transpose()), a.T)
    np.testing.assert_array_equal(np.asarray(xa.transpose(t)), a.T)
    perm = data.draw(st.permutations(range(a.ndim)))
    neg = [p - a.ndim if data.draw(st.booleans()) else p for p in perm]
    for got in (t.transpose(perm), t.transpose(*perm) if perm else t.transpose(),
                t.transpose(neg), xa.permute_dims(t, perm)):
        np.testing.assert_array_equal(np.asarray(got), a.transpose(perm))
        assert got.strides == a.transpose(perm).strides
    if a.size and a.flags.writeable and a.dtype != np.bool_:
        # views share memory: writing through the transpose changes the source
        tt = t.T
        idx = tuple(0 for _ in range(a.ndim))
        tt[idx] = 0
        assert a[idx] == 0


MT_CHECK = """
import numpy as np, xarr as xa
for shape in [(2, 3), (4, 2, 3), (1, 0, 5), (2, 3, 4, 5)]:
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    t = xa.asarray(a)
    m = t.mT
    assert m.shape == np.swapaxes(a, -1, -2).shape, (m.shape, shape)
    np.testing.assert_array_equal(np.asarray(m), np.swapaxes(a, -1, -2))
    if a.size:
        m[(0,) * a.ndim] = -1          # a view
        assert a.flat[0] == -1
"""


def run_isolated(code, cwd):
    """Runs ``code`` in a fresh interpreter (a crash there fails this test only)."""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, cwd=cwd)
    assert r.returncode == 0, f"exit code {r.returncode}:\n{r.stderr[-3000:]}"


def test_mT_swaps_the_last_two_dims(tmp_path):
    # Run in a subprocess: t.mT has crashed the interpreter (segmentation fault).
    run_isolated(MT_CHECK, tmp_path)


def test_transpose_errors():
    t = xa.zeros((2, 3))
    with pytest.raises(ValueError, match=r"\(0, 0\)"):
        t.transpose(0, 0)
    with pytest.raises(ValueError, match=r"\(0,\)"):
        t.transpose(0)
    with pytest.raises(ValueError, match="2"):
        t.transpose(0, 2)
    with pytest.raises(ValueError, match=r"\(\)"):
        xa.asarray(1.0).mT
    with pytest.raises(ValueError, match=r"\(3,\)"):
        xa.zeros(3).mT


def test_transpose_of_tiled_tensor():
    a = np.arange(15.0).reshape(3, 5)
    t = xa.asarray(a, layout="{1,0:T(2,2)}")
    np.testing.assert_array_equal(np.asarray(t.T), a.T)
    np.testing.assert_array_equal(np.asarray(t.transpose(1, 0)), a.T)


# ------------------------------------------------------------------------------ reshape
RESHAPES = [((2, 3, 4), (6, 4)), ((2, 3, 4), (4, -1)), ((2, 3, 4), (-1,)),
            ((2, 3, 4), (2, 1, 12)), ((6,), (1, 2, 3, 1)), ((1,), ()), ((), (1, 1)),
            ((0, 3), (3, 0)), ((0, 3), (-1, 5)), ((4, 1), (2, 2)), ((2, 3, 4), (24,))]


@pytest.mark.parametrize("old, new", RESHAPES)
@pytest.mark.parametrize("how", ["c", "f", "T", "tiled", "slice"])
def test_reshape_matches_numpy(old, new, how):
    a = np.arange(int(np.prod(old)), dtype=np.float32).reshape(old)
    if how == "f":
        a = np.asfortranarray(a)
    elif how == "T":
        a = a.T
    t = xa.asarray(a)
    if how == "tiled" and a.ndim:
        t = t.relayout(xa.Layout(tuple(range(a.ndim - 1, -1, -1)), tiles=((2, 2),)))
    if how == "slice" and a.ndim:
        big = np.zeros(tuple(2 * d for d in a.shape), np.float32)
        big[tuple(slice(None, None, 2) for _ in a.shape)] = a
        a = big[tuple(slice(None, None, 2) for _ in a.shape)]
        t = xa.asarray(big)[tuple(slice(None, None, 2) for _ in a.shape)]
    want = a.reshape(new)
    for got in (t.reshape(new), t.reshape(*new) if new else t.reshape(()),
                xa.reshape(t, new)):
        assert got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), want)


def test_reshape_of_contiguous_tensor_is_a_view():
    t = xa.zeros((2, 3, 4), xa.int32)
    r = t.reshape(6, 4)
    r[5, 3] = 7
    assert t[1, 2, 3].item() == 7
    assert np.shares_memory(np.asarray(r), np.asarray(t))
    c = xa.zeros((2, 3), xa.int32, layout=(0, 1))
    rc = c.T.reshape(6)      # the transpose of a column-major tensor is row-major
    rc[1] = 3
    assert c[1, 0].item() == 3


def test_reshape_int_argument():
    t = xa.arange(6)
    assert t.reshape(6).shape == (6,)
    assert t.reshape((2, 3)).shape == (2, 3)
    assert t.reshape([3, 2]).shape == (3, 2)


@pytest.mark.parametrize("new, frag", [((4, 2), "(4, 2)"), ((-1, -1), "(-1, -1)"),
                                       ((-1, 4), "(-1, 4)"), ((-2, -3), "-"),
                                       ((0, -1), "(0, -1)")])
def test_reshape_errors(new, frag):
    t = xa.zeros((2, 3))
    with pytest.raises(ValueError) as info:
        t.reshape(new)
    assert frag in str(info.value)


def test_reshape_order_f_is_honoured_or_refused():
    a = np.arange(6).reshape(2, 3)
    t = xa.asarray(a)
    try:
        got = t.reshape((3, 2), order="F")
    except (ValueError, NotImplementedError, TypeError):
        return
    np.testing.assert_array_equal(np.asarray(got), a.reshape((3, 2), order="F"))


# ------------------------------------------------------------------------------ copy, astype
@SETTINGS
@given(a=numpy_arrays())
def test_prop_copy_is_independent_and_contiguous(a):
    t = xa.asarray(a)
    for c in (t.copy(), copy.copy(t), copy.deepcopy(t)):
        assert c is not t
        assert c.flags["C_CONTIGUOUS"] and c.flags["OWNDATA"] and c.flags["WRITEABLE"]
        assert c.dtype == a.dtype and c.shape == a.shape
        np.testing.assert_array_equal(np.asarray(c), a)
        if a.size:
            assert not np.shares_memory(np.asarray(c), a)
            c[(0,) * a.ndim] = 0 if a.dtype != np.bool_ else not a[(0,) * a.ndim]
            assert np.asarray(t)[(0,) * a.ndim] == a[(0,) * a.ndim]


def test_copy_of_tiled_and_padded():
    a = np.arange(15.0).reshape(3, 5)
    for lay in ("{1,0:T(2,2)}", "{0,1:PD(4,6)}"):
        c = xa.asarray(a, layout=lay).copy()
        assert c.flags["C_CONTIGUOUS"] and not c.flags["TILED"]
        assert c.storage().size == 15
        np.testing.assert_array_equal(np.asarray(c), a)


@pytest.mark.parametrize("src", ALL_DTYPES, ids=XLA_NAMES)
def test_astype_all_pairs_match_numpy(src):
    base = np.array([0, 1, 2, 3, 5, 100]) if src != np.bool_ else np.array([0, 1, 1, 0])
    a = base.astype(src)
    t = xa.asarray(a)
    for dst in ALL_DTYPES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = a.astype(dst)
        for got in (t.astype(dst), xa.astype(t, dst), t.astype(XLA_NAME[dst])):
            assert got.dtype == dst
            assert got.shape == a.shape
            np.testing.assert_array_equal(np.asarray(got), want)


def test_astype_copy_flag():
    t = xa.arange(4, dtype=xa.float32)
    assert t.astype(xa.float32, copy=False) is t
    c = t.astype(xa.float32)
    assert c is not t
    c[0] = 9
    assert t[0].item() == 0
    assert t.astype(xa.int32, copy=False).dtype == xa.int32


def test_astype_keeps_column_major_layout():
    t = xa.asarray(np.arange(6).reshape(2, 3), layout=(0, 1))
    r = t.astype(xa.float32)
    assert r.layout == xa.Layout((0, 1))
    np.testing.assert_array_equal(np.asarray(r), np.arange(6.0).reshape(2, 3))


def test_astype_complex_to_real_drops_imaginary_part():
    t = xa.asarray(np.array([1 + 2j, -3.5 - 1j]))
    assert t.astype(xa.float64).tolist() == [1.0, -3.5]


@pytest.mark.parametrize("bad", [object, str, "U3", "datetime64[s]", "O"])
def test_astype_unsupported_dtype_raises_type_error(bad):
    with pytest.raises(TypeError):
        xa.zeros(3).astype(bad)


# ------------------------------------------------------------------------------ item, tolist
@SETTINGS
@given(a=numpy_arrays())
def test_prop_tolist_matches_numpy(a):
    t = xa.asarray(a)
    got = t.tolist()
    want = a.tolist() if a.dtype != ml_dtypes.bfloat16 else a.astype(np.float32).tolist()
    assert got == want
    if a.ndim == 0:
        assert type(got) is type(want)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=XLA_NAMES)
def test_item_types(dtype):
    t = xa.asarray(make_values((), dtype, 3))
    v = t.item()
    py = {"b": bool, "i": int, "u": int, "f": float, "c": complex, "V": float}[dtype.kind]
    assert type(v) is py
    assert v == np.asarray(t).astype(np.float64 if dtype == ml_dtypes.bfloat16
                                     else dtype).item()


def test_item_with_indices():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = xa.asarray(a)
    assert t.item(1, 2) == 5.0
    assert t.item((1, 2)) == 5.0
    assert t.item(-1, -1) == 5.0
    with pytest.raises(IndexError):
        t.item(2, 0)
    with pytest.raises(ValueError, match=r"\(2, 3\)"):
        t.item()


def test_item_with_flat_index_like_numpy():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = xa.asarray(a)
    assert t.item(4) == a.item(4) == 4.0
    assert xa.asarray(a.T).item(1) == a.T.item(1)


def test_tolist_of_column_major_and_tiled():
    a = [[1, 2, 3], [4, 5, 6]]
    assert xa.asarray(a, layout=(0, 1)).tolist() == a
    assert xa.asarray(a, layout="{1,0:T(2,2)}").tolist() == a
    assert xa.asarray(a, layout="{0,1:PD(3,5)}").tolist() == a
    assert xa.zeros((2, 0)).tolist() == [[], []]


# ------------------------------------------------------------------------------ Python protocols
def test_len_and_iter():
    a = np.arange(12).reshape(3, 4)
    t = xa.asarray(a)
    assert len(t) == 3
    rows = list(t)
    assert len(rows) == 3
    for r, ar in zip(rows, a):
        assert isinstance(r, xa.Tensor)
        assert r.tolist() == ar.tolist()
    rows[1][0] = -1          # rows are views
    assert a[1, 0] == -1
    assert len(xa.zeros((0, 2))) == 0 and list(xa.zeros((0, 2))) == []
    assert [x.item() for x in xa.arange(3)] == [0, 1, 2]


def test_len_and_iter_of_0d_raise_type_error():
    s = xa.asarray(1.0)
    with pytest.raises(TypeError, match="0-d"):
        len(s)
    with pytest.raises(TypeError):
        list(s)
    with pytest.raises(TypeError):
        iter(s)          # NumPy raises at iter(), not at the first next()


def test_scalar_conversions():
    assert int(xa.asarray(3.7)) == 3
    assert int(xa.asarray(-3.7)) == -3
    assert int(xa.asarray(np.uint64(2**64 - 1))) == 2**64 - 1
    assert float(xa.asarray(3)) == 3.0 and type(float(xa.asarray(3))) is float
    assert complex(xa.asarray(1 + 2j)) == 1 + 2j
    assert complex(xa.asarray(2.5)) == 2.5 + 0j
    assert float(xa.asarray([[2.5]])) == 2.5
    assert float(xa.asarray(1.5).astype(xa.bfloat16)) == 1.5
    assert bool(xa.asarray([0])) is False
    assert bool(xa.asarray(2.0)) is True
    assert bool(xa.asarray(np.nan)) is True
    assert operator.index(xa.asarray(np.int8(5))) == 5
    assert operator.index(xa.asarray(np.uint64(2**63))) == 2**63
    assert [10, 20, 30][xa.asarray(2)] == 30
    assert format(xa.asarray(2.5), ".3f") == "2.500"


@pytest.mark.parametrize("func, exc", [(bool, ValueError), (int, TypeError),
                                       (float, TypeError), (complex, TypeError)])
def test_scalar_conversions_of_non_size_1_raise(func, exc):
    with pytest.raises(exc, match=r"\(2, 3\)|6"):
        func(xa.zeros((2, 3)))
    with pytest.raises(exc):
        func(xa.zeros((0,)))


@pytest.mark.parametrize("dtype", ["float32", "complex64", "bool", "bfloat16"])
def test_index_of_non_integer_raises_type_error(dtype):
    with pytest.raises(TypeError, match="integer"):
        operator.index(xa.zeros((), dtype))


# ------------------------------------------------------------------------------ repr
@pytest.mark.parametrize("lay", [None, (0, 1), "{1,0:T(2,2)}", "{0,1:PD(3,4)}"])
def test_repr_shows_values_and_hlo_shape(lay):
    t = xa.asarray([[1.5, 2, 3], [4, 5, 6]], dtype=xa.float32, layout=lay)
    r = repr(t)
    assert r.startswith("Tensor(")
    assert f"shape={t.xla_shape}" in r
    assert str(t.xla_shape).startswith("f32[2,3]")
    for v in ("1.5", "2.", "6."):
        assert v in r
    assert str(t) == str(np.asarray(t))


def test_repr_of_scalars_and_other_dtypes():
    assert repr(xa.asarray(True)) == "Tensor(True, shape=pred[])"
    assert repr(xa.asarray(np.arange(3, dtype=np.uint8))) == "Tensor([0, 1, 2], shape=u8[3]{0})"
    assert "shape=bf16[2]{0}" in repr(xa.asarray([1.0, 2.0], dtype=xa.bfloat16))
    assert "shape=f64[0,3]{1,0}" in repr(xa.zeros((0, 3)))
    assert "shape=c64[]" in repr(xa.asarray(1j, dtype=xa.complex64))


# ------------------------------------------------------------------------------ pickling
@SETTINGS
@given(a=numpy_arrays())
def test_prop_pickle_round_trip(a):
    t = xa.asarray(a)
    for proto in (2, pickle.HIGHEST_PROTOCOL):
        r = pickle.loads(pickle.dumps(t, protocol=proto))
        assert isinstance(r, xa.Tensor)
        assert r.dtype == a.dtype and r.shape == a.shape
        np.testing.assert_array_equal(np.asarray(r), a)
        assert r.flags["WRITEABLE"]


@pytest.mark.parametrize("lay", ["{1,0:T(2,2)}", "{0,1:PD(3,5)PV(-1)}", "{0,1:T(8,128)(2,1)}",
                                 "{1,0:L(8)S(1)}"])
def test_pickle_round_trip_of_layouts(lay):
    a = np.arange(1, 16, dtype=np.float32).reshape(3, 5)
    t = xa.asarray(a, layout=lay)
    r = pickle.loads(pickle.dumps(t))
    assert r.layout == t.layout
    assert str(r.xla_shape) == str(t.xla_shape)
    np.testing.assert_array_equal(np.asarray(r), a)
    np.testing.assert_array_equal(np.asarray(r.storage()), np.asarray(t.storage()))


def test_pickle_of_view_contains_only_the_view():
    big = xa.arange(10000, dtype=xa.float64)
    v = big[10:20:2]
    data = pickle.dumps(v)
    assert len(data) < 2000
    assert pickle.loads(data).tolist() == list(range(10, 20, 2))


# ------------------------------------------------------------------------------ real/imag
def test_real_and_imag():
    a = np.array([[1 + 2j, 3 - 4j]], dtype=np.complex64)
    t = xa.asarray(a)
    assert t.real.dtype == np.float32 and t.imag.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(t.real), a.real)
    np.testing.assert_array_equal(np.asarray(t.imag), a.imag)
    r = xa.asarray([1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(r.real), [1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(r.imag), [0.0, 0.0])


def test_views_whose_size_overflows_int64_are_refused():
    """A broadcast view of shape (2**32, 2**32) has 2**64 elements: its size would wrap to
    0 and fool the compiled fast paths into a 0-byte result that later reads crash on. It
    is refused when made; views that fit int64 but whose results would not fit in memory
    raise MemoryError, naming the shape and bytes, when an op allocates."""
    with pytest.raises(ValueError, match="too big"):
        xa.broadcast_to(xa.ones(()), (2**32, 2**32))
    with pytest.raises(ValueError, match="too big"):
        xa.broadcast_to(xa.ones((1,)), (2**62, 4))
    v = xa.broadcast_to(xa.ones((), dtype=xa.float32), (2**31, 2**31))   # 2**62 elements
    assert v.size == 2**62
    for op in (lambda t: -t, lambda t: xa.exp(t), lambda t: t * 2.0, lambda t: 2.0 * t,
               lambda t: t + t, lambda t: t == t, abs):
        with pytest.raises(MemoryError, match=r"shape \(2147483648, 2147483648\) and dtype "
                                              r"(float32|bool): \d+ bytes"):
            op(v)


def test_reused_tensor_objects_start_clean():
    """Tensor objects come from a free list (xarr/_tensor_alloc.pxi): one made after
    others were freed has no weak reference, layout, shape or flags of an earlier one,
    and the garbage collector still tracks and frees tensors."""
    import gc
    import weakref
    base = xa.asarray(np.arange(24.0).reshape(2, 3, 4))
    square = xa.asarray(np.arange(64.0, dtype=np.float32).reshape(8, 8))
    for _ in range(3):
        olds = [base[1], base[:, ::2], square.relayout(xa.Layout((1, 0), tiles=((8, 8),))),
                base.T]
        refs = [weakref.ref(t) for t in olds]
        assert [t.shape for t in olds] == [(3, 4), (2, 2, 4), (8, 8), (4, 3, 2)]
        del olds
        assert all(r() is None for r in refs)
        news = [x for row in base for x in row] + [xa.zeros(5) for _ in range(300)]
        for i, t in enumerate(news[:6]):
            assert t.shape == (4,) and t.strides == (8,) and t.flags["WRITEABLE"]
            assert t.layout == xa.Layout((0,)) and weakref.getweakrefcount(t) == 0
            np.testing.assert_array_equal(np.asarray(t), np.arange(24.0).reshape(6, 4)[i])
        assert all(gc.is_tracked(t) for t in news)
        ro = xa.broadcast_to(base[0, 0], (2, 4))
        assert not ro.flags["WRITEABLE"] and ro.shape == (2, 4)
        del news, ro
        gc.collect()
