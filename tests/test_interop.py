"""Interop: NumPy (__array__ / np.asarray, zero-copy), the buffer protocol (memoryview) and
DLPack (__dlpack__, __dlpack_device__, xa.from_dlpack) with NumPy and PyTorch."""

import ctypes
import gc
import hashlib
import weakref

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import xarr as xa
from conftest import BF16, ALL_DTYPES, SETTINGS, XLA_NAMES as NAMES, make_values

NON_BF16 = [d for d in ALL_DTYPES if d != BF16]
# NumPy's own formats: 64-bit integers are C long ("l") where long is 64 bits, so that
# NumPy reads them back as np.int64 / np.uint64, not np.longlong.
BUFFER_FORMATS = {"bool": "?", "int8": "b", "int16": "h", "int32": "i",
                  "int64": memoryview(np.zeros(1, np.int64)).format,
                  "uint8": "B", "uint16": "H", "uint32": "I",
                  "uint64": memoryview(np.zeros(1, np.uint64)).format,
                  "float16": "e", "float32": "f", "float64": "d", "complex64": "Zf",
                  "complex128": "Zd"}
STRIDED_LAYOUTS = [None, "{0,1}", "{1,0:PD(5,9)}", "{0,1:PD(4,8)PV(3)}", "{1,0:S(1)}"]




def one(dtype):
    """A value of ``dtype`` different from every value make_values produces but bool's."""
    return np.array(0 if dtype != np.bool_ else True).astype(dtype)


@st.composite
def numpy_arrays(draw, dtypes=ALL_DTYPES):
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=4)))
    dtype = draw(st.sampled_from(dtypes))
    a = make_values(shape, dtype, draw(st.integers(0, 9)))
    how = draw(st.sampled_from(["c", "f", "T", "slice", "neg"]))
    if how == "f":
        a = np.asfortranarray(a)
    elif how == "T":
        a = a.T
    elif how in ("slice", "neg") and a.ndim:
        step = 2 if how == "slice" else -1
        a = a[tuple(slice(None, None, step) for _ in shape)]
    return a


def first(a):
    return (0,) * a.ndim


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


# ------------------------------------------------------------------------------ NumPy
@SETTINGS
@given(a=numpy_arrays())
def test_prop_numpy_round_trip_is_zero_copy(a):
    t = xa.asarray(a)
    n = np.asarray(t)
    assert n.dtype == a.dtype and n.shape == a.shape
    assert n.strides == a.strides
    np.testing.assert_array_equal(n, a)
    if a.size:
        assert np.shares_memory(n, a)
        a[first(a)] = one(a.dtype)           # writing the source shows in the tensor
        assert t[first(a)].item() == one(a.dtype).item()
        n[first(a)] = a.flat[-1]             # and writing the export shows in the source
        assert a[first(a)] == a.flat[-1]


@pytest.mark.parametrize("lay", STRIDED_LAYOUTS)
def test_np_asarray_is_zero_copy_for_strided_layouts(lay):
    vals = make_values((4, 7), np.dtype(np.float32), 1)
    t = xa.asarray(vals, layout=lay)
    n = np.asarray(t)
    np.testing.assert_array_equal(n, vals)
    assert np.shares_memory(n, np.asarray(t.storage()))
    n[2, 3] = -5
    assert t[2, 3].item() == -5
    t[0, 6] = -7
    assert n[0, 6] == -7
    assert np.asarray(t, copy=False).base is not None


def test_np_asarray_of_views_is_zero_copy():
    ref = np.arange(60, dtype=np.int64).reshape(3, 4, 5)
    base = xa.asarray(ref.copy())
    keys = [(slice(1, None), slice(None, None, 2), slice(None, None, -2)),
            (Ellipsis, None, 1), (slice(None, None, -1), 2)]
    for key in keys:
        v = base[key]
        n = np.asarray(v)
        np.testing.assert_array_equal(n, ref[key])
        assert n.strides == v.strides
        assert np.shares_memory(n, np.asarray(base))
        n[first(n)] = 1000
        assert v[first(n)].item() == 1000
    n = np.asarray(base.T)
    np.testing.assert_array_equal(n, np.asarray(base).T)
    assert np.shares_memory(n, np.asarray(base))


def test_np_asarray_of_tiled_tensor_copies():
    vals = make_values((3, 5), np.dtype(np.float32), 1)
    t = xa.asarray(vals, layout="{1,0:T(2,2)}")
    n = np.asarray(t)
    np.testing.assert_array_equal(n, vals)
    assert not np.shares_memory(n, np.asarray(t.storage()))
    with pytest.raises(ValueError, match="tiled"):
        np.asarray(t, copy=False)
    with pytest.raises(ValueError, match="tiled"):
        t.__array__(copy=False)


def test_np_array_copies_and_dtype_argument():
    t = xa.asarray(np.arange(6.0).reshape(2, 3))
    c = np.array(t)
    assert not np.shares_memory(c, np.asarray(t))
    c[0, 0] = 9
    assert t[0, 0].item() == 0
    f = np.asarray(t, dtype=np.float32)
    assert f.dtype == np.float32
    np.testing.assert_array_equal(f, np.arange(6.0).reshape(2, 3))
    with pytest.raises(ValueError):
        np.asarray(t, dtype=np.float32, copy=False)
    assert np.shares_memory(np.asarray(t, dtype=np.float64, copy=False), np.asarray(t))


def test_bfloat16_numpy_interop():
    vals = np.array([[1.5, -2.0], [3.25, 0.0]], dtype=BF16)
    t = xa.asarray(vals)
    assert t.dtype == BF16
    n = np.asarray(t)
    assert n.dtype == BF16
    np.testing.assert_array_equal(n, vals)
    assert np.shares_memory(n, vals)
    t2 = xa.asarray([1.5, 2.5], dtype=xa.bfloat16)
    assert np.asarray(t2).dtype == BF16
    assert np.asarray(t2).tolist() == [1.5, 2.5]
    tiled = xa.asarray(vals, layout="{0,1:T(2,2)}")
    assert np.asarray(tiled).dtype == BF16
    np.testing.assert_array_equal(np.asarray(tiled), vals)


def test_read_only_tensors_export_read_only_arrays():
    a = np.arange(5.0)
    a.flags.writeable = False
    t = xa.asarray(a)
    assert not t.flags["WRITEABLE"]
    assert not np.asarray(t).flags.writeable
    b = xa.broadcast_to(xa.arange(3), (2, 3))
    nb = np.asarray(b)
    assert not nb.flags.writeable
    assert nb.strides[0] == 0
    with pytest.raises(ValueError):
        nb[0, 0] = 1


def test_numpy_operators_defer_to_tensor():
    a = np.arange(3.0)
    t = xa.asarray([1.0, 2.0, 3.0])
    for r in (a + t, t + a, a * t):
        assert isinstance(r, xa.Tensor)
    np.testing.assert_array_equal(np.asarray(a + t), [1.0, 3.0, 5.0])
    np.testing.assert_array_equal(np.asarray(a - t), [-1.0, -1.0, -1.0])
    assert isinstance(a < t, xa.Tensor)


def test_np_asarray_keeps_tensor_alive():
    t = xa.arange(1000, dtype=xa.float64)
    ref = weakref.ref(t)
    n = np.asarray(t)
    del t
    gc.collect()
    assert ref() is not None
    assert n[999] == 999
    del n
    gc.collect()
    assert ref() is None


# ------------------------------------------------------------------------------ buffer protocol
@pytest.mark.parametrize("dtype", NON_BF16, ids=[n for n in NAMES if n != "bf16"])
def test_memoryview_formats_and_values(dtype):
    vals = make_values((2, 3), dtype, 2)
    t = xa.asarray(vals)
    m = memoryview(t)
    assert m.format == BUFFER_FORMATS[dtype.name]
    assert m.itemsize == dtype.itemsize
    assert m.shape == (2, 3)
    assert m.strides == t.strides
    assert m.ndim == 2
    assert not m.readonly
    assert m.nbytes == t.nbytes
    n = np.asarray(m)
    assert n.dtype == dtype and type(n[0, 0]) is dtype.type
    assert type(np.asarray(t)[0, 0]) is dtype.type
    np.testing.assert_array_equal(n, vals)
    assert bytes(m) == vals.tobytes()


@pytest.mark.parametrize("lay", STRIDED_LAYOUTS)
def test_memoryview_of_strided_layouts_and_views(lay):
    vals = make_values((4, 7), np.dtype(np.int32), 0)
    t = xa.asarray(vals, layout=lay)
    for v, want in ((t, vals), (t[1:, ::-3], vals[1:, ::-3]), (t.T, vals.T)):
        m = memoryview(v)
        assert m.strides == v.strides
        assert m.tolist() == want.tolist()
        assert bytes(m) == want.tobytes()
        assert bytes(v) == want.tobytes()
    memoryview(t)[3, 6] = -9
    assert t[3, 6].item() == -9


def test_memoryview_is_writable_and_read_only_respected():
    t = xa.zeros(4, xa.float64)
    m = memoryview(t)
    m[2] = 4.5
    assert t.tolist() == [0, 0, 4.5, 0]
    ro = xa.broadcast_to(xa.arange(3, dtype=xa.int8), (2, 3))
    assert memoryview(ro).readonly
    with pytest.raises((BufferError, TypeError)):
        ctypes.c_char.from_buffer(ro)          # asks for a writable buffer
    a = np.arange(3.0)
    a.flags.writeable = False
    assert memoryview(xa.asarray(a)).readonly


def test_memoryview_0d_and_empty():
    m = memoryview(xa.asarray(np.int16(7)))
    assert m.shape == () and m.ndim == 0
    assert m.tolist() == 7
    e = memoryview(xa.zeros((0, 3), xa.float32))
    assert e.shape == (0, 3) and e.nbytes == 0


def test_buffer_protocol_refuses_bfloat16_and_tiled():
    with pytest.raises(BufferError, match="bfloat16"):
        memoryview(xa.zeros(3, xa.bfloat16))
    with pytest.raises(BufferError, match="tiled"):
        memoryview(xa.zeros((3, 5), layout="{1,0:T(2,2)}"))


def test_contiguous_buffer_requests_on_strided_tensor():
    """A consumer asking for a contiguous buffer (PyBUF_SIMPLE, e.g. hashlib) gets either
    the right bytes or a BufferError, never the wrong memory."""
    t = xa.arange(12, dtype=xa.int32)[::2]
    want = hashlib.sha256(np.asarray(t).tobytes()).hexdigest()
    try:
        got = hashlib.sha256(t).hexdigest()
    except (BufferError, ValueError, TypeError):
        return
    assert got == want


def test_memoryview_keeps_tensor_alive():
    t = xa.arange(100, dtype=xa.int64)
    ref = weakref.ref(t)
    m = memoryview(t)
    del t
    gc.collect()
    assert ref() is not None
    assert m[99] == 99
    m.release()
    del m
    gc.collect()
    assert ref() is None


# ------------------------------------------------------------------------------ DLPack / NumPy
def test_dlpack_device():
    assert xa.zeros(3).__dlpack_device__() == (1, 0)
    assert xa.zeros((3, 5), layout="{1,0:T(2,2)}").__dlpack_device__() == (1, 0)


@SETTINGS
@given(a=numpy_arrays(NON_BF16))
def test_prop_dlpack_round_trip_with_numpy_is_zero_copy(a):
    t = xa.from_dlpack(a)
    assert t.shape == a.shape and t.dtype == a.dtype
    np.testing.assert_array_equal(np.asarray(t), a)
    n = np.from_dlpack(t)
    assert n.dtype == a.dtype and n.shape == a.shape
    np.testing.assert_array_equal(n, a)
    if a.size:
        assert np.shares_memory(np.asarray(t), a)
        assert np.shares_memory(n, a)
        a[first(a)] = one(a.dtype)
        assert t[first(a)].item() == one(a.dtype).item()
        assert n[first(a)] == one(a.dtype)
    t2 = xa.from_dlpack(t)                    # xarr -> xarr
    np.testing.assert_array_equal(np.asarray(t2), a)


@pytest.mark.parametrize("lay", STRIDED_LAYOUTS)
def test_dlpack_export_of_strided_layouts_is_zero_copy(lay):
    vals = make_values((4, 7), np.dtype(np.float64), 3)
    t = xa.asarray(vals, layout=lay)
    for v, want in ((t, vals), (t[::-1, 1::3], vals[::-1, 1::3]), (t.T, vals.T)):
        n = np.from_dlpack(v)
        np.testing.assert_array_equal(n, want)
        assert n.strides == v.strides
        assert np.shares_memory(n, np.asarray(t.storage()))
    np.from_dlpack(t)[1, 1] = -1.0
    assert t[1, 1].item() == -1.0


def test_dlpack_export_of_tiled_tensor_copies():
    vals = make_values((3, 5), np.dtype(np.int32), 3)
    t = xa.asarray(vals, layout="{1,0:T(2,2)}")
    n = np.from_dlpack(t)
    np.testing.assert_array_equal(n, vals)
    assert not np.shares_memory(n, np.asarray(t.storage()))
    with pytest.raises(BufferError, match="tiled"):
        t.__dlpack__(copy=False)


def test_dlpack_capsules():
    t = xa.arange(6, dtype=xa.float32)
    assert "dltensor" in repr(t.__dlpack__())
    assert "dltensor_versioned" in repr(t.__dlpack__(max_version=(1, 0)))
    assert "dltensor_versioned" not in repr(t.__dlpack__(max_version=(0, 8)))
    c = xa.from_dlpack(_Producer(t, copy=True))
    c[0] = 5
    assert t[0].item() == 0
    with pytest.raises(BufferError, match=r"\(2, 0\)"):
        t.__dlpack__(dl_device=(2, 0))
    np.testing.assert_array_equal(np.asarray(xa.from_dlpack(t, copy=True)), np.arange(6))
    assert not np.shares_memory(np.asarray(xa.from_dlpack(t, copy=True)), np.asarray(t))


class _Producer:
    """A minimal DLPack producer forwarding to another object."""

    def __init__(self, obj, device=(1, 0), **kwargs):
        self.obj, self.device, self.kwargs = obj, device, kwargs

    def __dlpack__(self, **kwargs):
        kwargs.update(self.kwargs)
        return self.obj.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.device


def test_from_dlpack_of_generic_producer_shares_memory():
    a = np.arange(12, dtype=np.int16).reshape(3, 4)
    t = xa.from_dlpack(_Producer(a))
    a[2, 3] = -1
    assert t[2, 3].item() == -1
    t2 = xa.asarray(_Producer(a))             # asarray accepts DLPack producers too
    assert t2[2, 3].item() == -1
    assert np.shares_memory(np.asarray(t2), a)


def test_from_dlpack_errors():
    with pytest.raises(TypeError, match="list"):
        xa.from_dlpack([1, 2, 3])
    with pytest.raises(BufferError, match=r"\(2, 0\)"):
        xa.from_dlpack(_Producer(np.arange(3), device=(2, 0)))


def test_dlpack_read_only():
    a = np.arange(4.0)
    a.flags.writeable = False
    t = xa.from_dlpack(a)
    assert not t.flags["WRITEABLE"]
    with pytest.raises(ValueError, match="read-only"):
        t[0] = 1
    ro = xa.broadcast_to(xa.arange(3), (2, 3))
    n = np.from_dlpack(ro)
    assert not n.flags.writeable
    np.testing.assert_array_equal(n, [[0, 1, 2], [0, 1, 2]])


def test_dlpack_lifetimes():
    a = np.arange(1000.0)
    aref = weakref.ref(a)
    t = xa.from_dlpack(a)
    del a
    gc.collect()
    assert aref() is not None
    assert t[999].item() == 999.0
    del t
    gc.collect()
    assert aref() is None                      # the producer is released

    t = xa.arange(1000, dtype=xa.float64)
    tref = weakref.ref(t)
    n = np.from_dlpack(t)
    del t
    gc.collect()
    assert tref() is not None
    assert n[999] == 999.0
    del n
    gc.collect()
    assert tref() is None                      # the capsule's deleter ran

    t = xa.arange(10)
    tref = weakref.ref(t)
    cap = t.__dlpack__()                       # never consumed
    del t, cap
    gc.collect()
    assert tref() is None


def test_dlpack_0d_and_empty():
    s = xa.asarray(np.float32(2.5))
    assert np.from_dlpack(s).shape == ()
    assert np.from_dlpack(s)[()] == 2.5
    e = xa.zeros((0, 3), xa.int8)
    assert np.from_dlpack(e).shape == (0, 3)
    assert xa.from_dlpack(np.zeros((2, 0))).shape == (2, 0)


# ------------------------------------------------------------------------------ PyTorch
TORCH_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float16", "bfloat16",
                "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("name", TORCH_DTYPES)
def test_torch_from_xarr_is_zero_copy(torch, name):
    dt = np.dtype(BF16 if name == "bfloat16" else name)
    vals = make_values((3, 4), dt, 1)
    t = xa.asarray(vals, layout=(0, 1))
    tt = torch.from_dlpack(t)
    assert str(tt.dtype) == f"torch.{name}"
    assert tuple(tt.shape) == (3, 4)
    assert tuple(tt.stride()) == tuple(s // dt.itemsize for s in t.strides)
    assert tt.data_ptr() == t._address
    wide = {"bool": None, "complex64": "complex128", "complex128": "complex128"}.get(
        name, "float64")
    got = tt.numpy() if wide is None else tt.to(getattr(torch, wide)).numpy()
    np.testing.assert_array_equal(got, vals if wide is None else vals.astype(wide))
    if name not in ("bool",):
        tt[1, 2] = 0
        assert t[1, 2].item() == 0


@pytest.mark.parametrize("name", TORCH_DTYPES)
def test_xarr_from_torch_is_zero_copy(torch, name):
    tt = (torch.arange(12).reshape(3, 4) % 5 + 1).to(getattr(torch, name))
    t = xa.from_dlpack(tt)
    assert str(t.dtype) == ("bfloat16" if name == "bfloat16" else np.dtype(name).name)
    assert t.shape == (3, 4)
    assert t._address == tt.data_ptr()
    want = (np.arange(12).reshape(3, 4) % 5 + 1).astype(
        BF16 if name == "bfloat16" else np.dtype(name))
    np.testing.assert_array_equal(np.asarray(t), want)
    v = xa.from_dlpack(tt.t()[:, ::2])
    np.testing.assert_array_equal(np.asarray(v), want.T[:, ::2])
    if name != "bool":
        tt[0, 0] = 0
        assert t[0, 0].item() == 0
    t2 = xa.asarray(tt)
    assert t2._address == tt.data_ptr()


def test_torch_round_trip_and_lifetime(torch):
    tt = torch.arange(100, dtype=torch.float32)
    t = xa.from_dlpack(tt)
    back = torch.from_dlpack(t)
    assert back.data_ptr() == tt.data_ptr()
    del tt, t
    gc.collect()
    assert back[99].item() == 99.0
    tiled = xa.asarray(np.arange(15.0).reshape(3, 5), layout="{1,0:T(2,2)}")
    np.testing.assert_array_equal(torch.from_dlpack(tiled).numpy(),
                                  np.arange(15.0).reshape(3, 5))


def test_byte_strides_that_are_not_itemsize_multiples():
    rec = np.zeros(5, dtype=[("a", "<i4"), ("b", "i1")])
    rec["a"] = np.arange(5)
    a = rec["a"]                               # 5-byte strides over int32
    t = xa.asarray(a)
    assert t.strides == (5,)
    assert t.tolist() == [0, 1, 2, 3, 4]
    assert (t + 1).tolist() == [1, 2, 3, 4, 5]
    np.testing.assert_array_equal(np.asarray(t), a)
    assert np.shares_memory(np.asarray(t), rec)
    with pytest.raises(BufferError, match="itemsize"):
        t.__dlpack__()
    assert np.from_dlpack(t.copy()).tolist() == [0, 1, 2, 3, 4]
