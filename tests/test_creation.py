"""Creation: asarray/array (lists, scalars, NumPy arrays, buffers, DLPack producers, the
copy=None/True/False contract), zeros/ones/empty/full(+_like), arange, linspace, eye,
lax.iota/broadcasted_iota, layout= on every creator, all 15 dtypes, and bad input."""

import array
import math
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import xarr as xa
from conftest import BF16, ALL_DTYPES, SETTINGS, XLA_NAMES as NAMES

NUMERIC = [d for d in ALL_DTYPES if d != np.bool_]
UNSUPPORTED = [object, str, "U3", "S3", "datetime64[s]", "timedelta64[ms]", "V8",
               np.longdouble, [("a", "f4"), ("b", "i4")], "O"]


def np_of(t):
    return np.asarray(t)


def check(t, want):
    """t is a Tensor equal to NumPy's ``want`` (same dtype, shape and values)."""
    want = np.asarray(want)
    assert isinstance(t, xa.Tensor)
    assert t.dtype == want.dtype, (t.dtype, want.dtype)
    assert t.shape == want.shape
    np.testing.assert_array_equal(np_of(t), want)


class _Producer:
    """A DLPack producer that is nothing but a producer."""

    def __init__(self, obj):
        self.obj = obj

    def __dlpack__(self, **kwargs):
        return self.obj.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (1, 0)


# ------------------------------------------------------------------------------ asarray
@SETTINGS
@given(a=hnp.arrays(dtype=np.int64,
                    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
                    elements=st.integers(-1000, 1000)),
       kind=st.sampled_from([bool, int, float, complex]))
def test_prop_asarray_of_nested_lists_matches_numpy(a, kind):
    obj = a.astype(kind).tolist()
    want = np.asarray(obj)
    check(xa.asarray(obj), want)
    check(xa.array(obj), want)
    if kind is not complex:
        check(xa.asarray(obj, dtype=xa.float32), np.asarray(obj, dtype=np.float32))
    if isinstance(obj, list):
        check(xa.asarray(tuple(obj)), want)


@pytest.mark.parametrize("obj", [1, -5, 2**62, 2**63, 2.5, True, False, 1 + 2j, 1e308,
                                 float("inf"), [1, 2.5], [1, 2j], [True, 2], [[]], [],
                                 [[1, 2], [3, 4]], ((1,), (2,)), [np.float32(1), 2],
                                 np.float32(1.5), np.int8(-3), np.bool_(True),
                                 np.complex64(1j), np.uint64(2**64 - 1), np.float16(0.5)])
def test_asarray_dtype_inference_matches_numpy(obj):
    check(xa.asarray(obj), np.asarray(obj))


def test_asarray_nan_and_bfloat16_scalar():
    t = xa.asarray(float("nan"))
    assert t.dtype == np.float64 and math.isnan(t.item())
    b = xa.asarray(ml_dtypes.bfloat16(1.5))
    assert b.dtype == BF16 and b.item() == 1.5


@pytest.mark.parametrize("dtype", ALL_DTYPES + ["f32", "float32", "bf16", "bfloat16", float,
                                                int, bool, complex, np.int16, "c64"],
                         ids=lambda d: str(d))
def test_asarray_with_dtype(dtype):
    want_dt = {"f32": np.float32, "bf16": BF16, "bfloat16": BF16, "c64": np.complex64
               }.get(dtype, dtype) if isinstance(dtype, str) else dtype
    t = xa.asarray([[0, 1, 2], [3, 4, 5]], dtype=dtype)
    assert t.dtype == np.dtype(want_dt)
    check(t, np.asarray([[0, 1, 2], [3, 4, 5]]).astype(want_dt))


def test_asarray_ragged_raises_value_error():
    with pytest.raises(ValueError, match="list"):
        xa.asarray([[1, 2], [3]])


@pytest.mark.parametrize("obj", [["a", "b"], [object()], None, {"a": 1}, [1, None],
                                 np.array(["x"]), np.array([1, 2], dtype=object),
                                 np.array([1], dtype="datetime64[s]"),
                                 np.zeros(2, dtype=np.longdouble), 2**64,
                                 np.zeros(2, dtype=[("a", "f4")])])
def test_asarray_unsupported_inputs_raise_type_error(obj):
    with pytest.raises((TypeError, OverflowError)):
        xa.asarray(obj)


@pytest.mark.parametrize("dtype", UNSUPPORTED, ids=str)
def test_unsupported_dtypes_raise_type_error(dtype):
    makers = [lambda: xa.asarray([1, 2], dtype=dtype), lambda: xa.zeros(3, dtype),
              lambda: xa.ones(3, dtype), lambda: xa.empty(3, dtype),
              lambda: xa.full(3, 1, dtype), lambda: xa.arange(3, dtype=dtype),
              lambda: xa.linspace(0, 1, 3, dtype=dtype), lambda: xa.eye(2, dtype=dtype),
              lambda: xa.lax.iota(dtype, 3), lambda: xa.zeros_like(xa.zeros(2), dtype),
              lambda: xa.zeros(2).astype(dtype)]
    for make in makers:
        with pytest.raises(TypeError) as info:
            make()
        assert "dtype" in str(info.value)


def test_asarray_device_argument():
    assert xa.asarray([1], device="cpu").device == "cpu"
    with pytest.raises(ValueError, match="gpu"):
        xa.asarray([1], device="gpu")


def test_asarray_big_endian_numpy_array():
    a = np.arange(6, dtype=">i4").reshape(2, 3)
    t = xa.asarray(a)
    check(t, a.astype("<i4"))
    f = np.arange(3, dtype=">f8")
    check(xa.asarray(f), f.astype("<f8"))
    with pytest.raises(ValueError):
        xa.asarray(a, copy=False)


# ------------------------------------------------------------------------------ copy contract
def test_asarray_of_tensor_copy_semantics():
    t = xa.arange(6, dtype=xa.float32)
    assert xa.asarray(t) is t
    assert xa.asarray(t, copy=False) is t
    assert xa.asarray(t, dtype=xa.float32) is t
    c = xa.asarray(t, copy=True)
    assert c is not t
    c[0] = 9
    assert t[0].item() == 0
    with pytest.raises(ValueError, match="copy"):
        xa.asarray(t, dtype=xa.float64, copy=False)
    assert xa.asarray(t, dtype=xa.float64).dtype == np.float64
    a = xa.array(t)
    a[1] = 9
    assert t[1].item() == 1
    assert xa.tensor(t) is not t


@pytest.mark.parametrize("how", ["c", "f", "view", "neg"])
def test_asarray_of_numpy_is_zero_copy(how):
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    a = {"c": base, "f": np.asfortranarray(base), "view": base[1:, ::2],
         "neg": base[::-1, ::-3]}[how]
    for t in (xa.asarray(a), xa.asarray(a, copy=False), xa.array(a, copy=False),
              xa.asarray(a, dtype=np.float32, copy=False)):
        check(t, a)
        assert t.strides == a.strides
        a[0, 0] += 100                      # modifying the source changes the tensor
        assert t[0, 0].item() == a[0, 0]
        t[1, 1] = -1                        # and the other way round
        assert a[1, 1] == -1
    c = xa.asarray(a, copy=True)
    d = xa.array(a)
    for x in (c, d):
        a[0, 0] += 100
        assert x[0, 0].item() != a[0, 0]
        assert x.flags["OWNDATA"]


def test_copy_false_raises_when_a_copy_is_needed():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    with pytest.raises(ValueError, match="copy"):
        xa.asarray(a, dtype=xa.float32, copy=False)
    with pytest.raises(ValueError, match="copy"):
        xa.asarray([1, 2, 3], copy=False)
    with pytest.raises(ValueError, match="copy"):
        xa.asarray(5, copy=False)
    with pytest.raises(ValueError, match="copy"):
        xa.asarray(a, layout=(0, 1), copy=False)
    with pytest.raises(ValueError, match="copy"):
        xa.asarray(a, layout="{1,0:T(2,2)}", copy=False)
    with pytest.raises(ValueError, match="copy"):
        xa.asarray(xa.asarray(a), layout=(0, 1), copy=False)
    # no copy needed: fine
    f = np.asfortranarray(a)
    t = xa.asarray(f, layout=(0, 1), copy=False)
    f[1, 2] = 77
    assert t[1, 2].item() == 77
    t2 = xa.asarray(a, layout=(1, 0), copy=False)
    a[0, 0] = 55
    assert t2[0, 0].item() == 55


@pytest.mark.parametrize("m2m", [(1, 0), (0, 1)])
@pytest.mark.parametrize("src", ["tensor", "numpy"])
def test_copy_false_with_layout_of_strided_view_never_copies_silently(m2m, src):
    """A strided view whose layout already is ``m2m``: asarray(..., layout=m2m,
    copy=False) returns it without a copy, or raises ValueError - it must not copy."""
    base = np.zeros((4, 6)) if m2m == (1, 0) else np.zeros((4, 6), order="F")
    view = base[:, ::2]
    x = xa.asarray(view) if src == "tensor" else view
    assert xa.asarray(view).layout == xa.Layout(m2m)
    try:
        r = xa.asarray(x, layout=m2m, copy=False)
    except ValueError:
        return
    r[0, 0] = 5
    assert base[0, 0] == 5


def test_asarray_with_matching_layout_does_not_copy():
    t = xa.zeros((3, 4), xa.float32, layout=(0, 1))
    same = xa.asarray(t, layout=(0, 1))
    same[2, 3] = 1
    assert t[2, 3].item() == 1
    tiled = xa.zeros((3, 4), xa.float32, layout="{1,0:T(2,2)}")
    assert xa.asarray(tiled, layout="{1,0:T(2,2)}", copy=False).layout == tiled.layout


def test_asarray_copy_true_with_layout():
    a = np.arange(6.0).reshape(2, 3)
    t = xa.asarray(a, layout=(0, 1), copy=True)
    assert t.layout == xa.Layout((0, 1))
    a[0, 0] = 9
    assert t[0, 0].item() == 0


# ------------------------------------------------------------------------------ buffers
def test_asarray_bytearray_is_zero_copy():
    buf = bytearray(b"\x01\x02\x03\x04")
    t = xa.asarray(buf)
    check(t, np.array([1, 2, 3, 4], np.uint8))
    buf[0] = 200
    assert t[0].item() == 200
    t[3] = 9
    assert buf[3] == 9
    c = xa.asarray(buf, copy=True)
    buf[1] = 100
    assert c[1].item() == 2


@pytest.mark.parametrize("code, dtype", [("d", np.float64), ("f", np.float32), ("i", np.int32),
                                         ("h", np.int16), ("B", np.uint8), ("q", np.int64),
                                         ("Q", np.uint64), ("b", np.int8)])
def test_asarray_array_module_is_zero_copy(code, dtype):
    arr = array.array(code, [1, 2, 3])
    t = xa.asarray(arr, copy=False)
    check(t, np.array([1, 2, 3], dtype))
    arr[2] = 7
    assert t[2].item() == 7
    t[0] = 5
    assert arr[0] == 5


def test_asarray_memoryview_and_bytes():
    raw = bytearray(np.arange(6, dtype=np.float32).tobytes())
    m = memoryview(raw).cast("f", (2, 3))
    t = xa.asarray(m)
    check(t, np.arange(6, dtype=np.float32).reshape(2, 3))
    t[1, 2] = -1
    assert memoryview(raw).cast("f")[5] == -1
    s = xa.asarray(memoryview(np.arange(10, dtype=np.int16))[::3])
    check(s, np.arange(10, dtype=np.int16)[::3])
    b = xa.asarray(b"ab")
    check(b, np.array([97, 98], np.uint8))
    assert not b.flags["WRITEABLE"]            # bytes are immutable
    with pytest.raises(ValueError, match="read-only"):
        b[0] = 1


def test_asarray_dlpack_producer_is_zero_copy():
    a = np.arange(6.0).reshape(2, 3)
    t = xa.asarray(_Producer(a))
    check(t, a)
    a[1, 1] = -4
    assert t[1, 1].item() == -4
    c = xa.asarray(_Producer(a), copy=True)
    a[1, 1] = 8
    assert c[1, 1].item() == -4
    f = xa.asarray(_Producer(a), dtype=xa.float32)
    assert f.dtype == np.float32
    with pytest.raises(ValueError):
        xa.asarray(_Producer(a), dtype=xa.float32, copy=False)


# ------------------------------------------------------------------------------ zeros & co
SHAPES = [(), 0, 3, (2, 3), [2, 3], (0, 4), (1, 1, 1), (2, 0, 3), (np.int64(2), 3)]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=NAMES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_zeros_ones_full_empty_match_numpy(dtype, shape):
    check(xa.zeros(shape, dtype), np.zeros(shape, dtype))
    check(xa.ones(shape, dtype), np.ones(shape, dtype))
    check(xa.full(shape, 7 if dtype != np.bool_ else True, dtype),
          np.full(shape, 7 if dtype != np.bool_ else True, dtype))
    e = xa.empty(shape, dtype)
    assert e.shape == np.empty(shape).shape and e.dtype == dtype
    assert e.flags["C_CONTIGUOUS"] and e.flags["WRITEABLE"] and e.flags["OWNDATA"]


def test_default_dtypes():
    for t in (xa.zeros(2), xa.ones(2), xa.empty(2), xa.linspace(0, 1, 2), xa.eye(2)):
        assert t.dtype == np.float64
    assert xa.zeros(2, dtype=None).dtype == np.float64


@pytest.mark.parametrize("fill, dtype", [(3, np.int64), (3.0, np.float64), (True, np.bool_),
                                         (1j, np.complex128), (np.float32(1.5), np.float32),
                                         (np.int8(-2), np.int8), (np.uint16(9), np.uint16),
                                         (float("inf"), np.float64), (-0.0, np.float64)])
def test_full_dtype_inference(fill, dtype):
    t = xa.full((2, 2), fill)
    check(t, np.full((2, 2), fill))
    assert t.dtype == dtype


def test_full_special_values():
    t = xa.full(3, float("nan"), xa.float16)
    assert np.all(np.isnan(np_of(t)))
    assert np.all(np.signbit(np_of(xa.full(2, -0.0, xa.float32))))
    check(xa.full(3, 1.5, xa.bfloat16), np.full(3, 1.5, BF16))
    check(xa.full(3, 2**64 - 1, xa.uint64), np.full(3, 2**64 - 1, np.uint64))
    check(xa.full(3, -2**63, xa.int64), np.full(3, -2**63, np.int64))
    check(xa.full(2, 1 + 2j, xa.complex64), np.full(2, 1 + 2j, np.complex64))
    check(xa.full(2, 2.9, xa.int32), np.full(2, 2.9).astype(np.int32))
    check(xa.full((2, 2), xa.asarray(3, dtype=xa.int8)), np.full((2, 2), 3, np.int8))
    check(xa.full((2, 2), xa.asarray(3, dtype=xa.int8), xa.float32), np.full((2, 2), 3.0,
                                                                          np.float32))


@pytest.mark.parametrize("dtype, value", [("uint8", 300), ("uint8", -1), ("int8", -129),
                                          ("uint16", 70000), ("int32", 2**31)])
def test_full_python_int_out_of_bounds_raises_like_numpy(dtype, value):
    with pytest.raises(OverflowError):
        np.full(2, value, dtype)
    with pytest.raises(OverflowError, match=str(value)):
        xa.full(2, value, dtype)


@pytest.mark.parametrize("maker", ["zeros", "ones", "empty", "full"])
@pytest.mark.parametrize("shape", [-1, (2, -3), (0, -1)], ids=str)
def test_negative_shapes_raise_value_error(maker, shape):
    args = (shape, 1.0) if maker == "full" else (shape,)
    with pytest.raises(ValueError, match="-"):
        getattr(xa, maker)(*args)


@pytest.mark.parametrize("shape", [2.5, "3", (2, None), (1.0, 2), [[2]]], ids=str)
def test_bad_shape_types_raise_type_error(shape):
    for maker in (xa.zeros, xa.ones, xa.empty):
        with pytest.raises(TypeError):
            maker(shape)


OVERSIZE = """
import xarr as xa
for make in (lambda: xa.{maker}({shape}, xa.{dtype}), ):
    try:
        t = make()
    except (ValueError, MemoryError, OverflowError):
        continue
    raise SystemExit("created a tensor of shape %r holding %d bytes" % (t.shape,
                     t.storage().nbytes))
"""


@pytest.mark.parametrize("maker", ["zeros", "empty", "ones"])
@pytest.mark.parametrize("shape, dtype", [((2**32, 2**32), "uint8"), ((2**62,), "float64"),
                                          ((2**31, 2**31, 4), "int32")])
def test_oversized_shapes_raise_instead_of_wrapping(maker, shape, dtype, tmp_path):
    """A shape whose byte size overflows int64 must raise (NumPy: ValueError 'array is too
    big'), never create a tensor over a too-small buffer. Run in a subprocess because a
    filling creator (ones) writes through such a buffer."""
    code = OVERSIZE.format(maker=maker, shape=shape, dtype=dtype)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, cwd=tmp_path)
    assert r.returncode == 0, f"exit code {r.returncode}: {(r.stdout + r.stderr)[-2000:]}"


# ------------------------------------------------------------------------------ *_like
@pytest.mark.parametrize("src", [np.arange(6.0).reshape(2, 3), [[1, 2], [3, 4]],
                                 np.zeros((0, 3), np.int8), np.float32(2.0)], ids=str)
def test_like_creators(src):
    ref = np.asarray(src)
    for x in (src, xa.asarray(src)):
        check(xa.zeros_like(x), np.zeros_like(ref))
        check(xa.ones_like(x), np.ones_like(ref))
        check(xa.full_like(x, 5), np.full_like(ref, 5))
        e = xa.empty_like(x)
        assert e.shape == ref.shape and e.dtype == ref.dtype
        check(xa.zeros_like(x, dtype=xa.complex64), np.zeros_like(ref, dtype=np.complex64))
        check(xa.ones_like(x, xa.bfloat16), np.ones_like(ref, dtype=BF16))
        check(xa.full_like(x, 2, shape=(4,)), np.full_like(ref, 2, shape=(4,)))
        assert xa.empty_like(x, shape=(3, 1)).shape == (3, 1)


def test_like_creators_of_views_are_new_memory():
    t = xa.arange(12, dtype=xa.int32).reshape(3, 4)[:, ::2]
    z = xa.zeros_like(t)
    assert z.flags["OWNDATA"]
    z[...] = 1
    assert t.tolist() == [[0, 2], [4, 6], [8, 10]]


# ------------------------------------------------------------------------------ arange
ARANGES = [(5,), (0,), (-3,), (2, 9), (9, 2), (10, 0, -3), (0, 10, 3), (-5, 5, 2),
           (0.0, 1.0, 0.1), (1.5,), (0, 1, 0.25), (5, -5, -0.5), (2**62, 2**62 + 3),
           (-2**63, -2**63 + 2), (0, 7, 7), (0, 7, 100), (3.0, 3.0), (1, 2, 0.3)]


@pytest.mark.parametrize("args", ARANGES, ids=str)
def test_arange_matches_numpy(args):
    want = np.arange(*args)
    t = xa.arange(*args)
    assert t.dtype == want.dtype and t.shape == want.shape
    if want.dtype.kind == "f":
        np.testing.assert_allclose(np_of(t), want, rtol=1e-12, atol=1e-15)
    else:
        np.testing.assert_array_equal(np_of(t), want)


@pytest.mark.parametrize("dtype", NUMERIC, ids=NAMES[1:])
def test_arange_with_dtype(dtype):
    check(xa.arange(0, 10, 3, dtype=dtype), np.arange(0, 10, 3).astype(dtype))
    check(xa.arange(5, dtype=dtype), np.arange(5, dtype=dtype))


def test_arange_errors():
    with pytest.raises(ValueError, match="step"):
        xa.arange(0, 5, 0)
    with pytest.raises(ValueError, match="step"):
        xa.arange(0, 5, 0.0)


# ------------------------------------------------------------------------------ linspace
LINSPACES = [((0, 1, 5), {}), ((0, 1, 1), {}), ((0, 1, 0), {}), ((1, 0, 7), {}),
             ((-3.5, 2.25, 10), {"endpoint": False}), ((0, 10, 4), {"endpoint": False}),
             ((2, 2, 3), {}), ((0, 1, 2), {"endpoint": False}), ((0, 1, 50), {}),
             ((0, 1 + 1j, 5), {}), ((0, 1e10, 3), {}), ((5, 5, 1), {"endpoint": False})]


@pytest.mark.parametrize("args, kw", LINSPACES, ids=str)
def test_linspace_matches_numpy(args, kw):
    want = np.linspace(*args, **kw)
    t = xa.linspace(*args, **kw)
    assert t.dtype == want.dtype and t.shape == want.shape
    np.testing.assert_allclose(np_of(t), want, rtol=1e-14, atol=1e-14)
    if want.size and kw.get("endpoint", True):
        assert t[-1].item() == want[-1]          # the endpoint is exact
        assert t[0].item() == want[0]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16, np.complex64, np.int32,
                                   np.int8, np.uint8], ids=str)
def test_linspace_with_dtype(dtype):
    want = np.linspace(0, 10, 6, dtype=dtype)
    t = xa.linspace(0, 10, 6, dtype=dtype)
    check(t, want)


def test_linspace_errors():
    with pytest.raises(ValueError, match="-1"):
        xa.linspace(0, 1, -1)
    with pytest.raises(TypeError):
        xa.linspace(0, 1, 2.5)


# ------------------------------------------------------------------------------ eye
EYES = [(3,), (3, 4), (4, 3), (3, 4, 1), (3, 4, -1), (3, 3, 5), (3, 3, -5), (0,), (1,),
        (5, 2, -3), (2, 5, 4), (4, 4, -3)]


@pytest.mark.parametrize("args", EYES, ids=str)
def test_eye_matches_numpy(args):
    check(xa.eye(*args), np.eye(*args))
    check(xa.eye(*args, dtype=xa.int16), np.eye(*args, dtype=np.int16))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=NAMES)
def test_eye_dtypes(dtype):
    check(xa.eye(3, 4, 1, dtype), np.eye(3, 4, 1, dtype=dtype))


def test_eye_negative_size_raises_value_error():
    with pytest.raises(ValueError):
        xa.eye(-1)
    with pytest.raises(ValueError):
        xa.eye(2, -2)


# ------------------------------------------------------------------------------ iota
@pytest.mark.parametrize("dtype", NUMERIC, ids=NAMES[1:])
def test_iota(dtype):
    for n in (0, 1, 5, 100):
        check(xa.lax.iota(dtype, n), np.arange(n).astype(dtype))
    assert xa.lax.iota(NAMES[ALL_DTYPES.index(dtype)], 3).dtype == dtype


def test_iota_large_and_errors():
    check(xa.lax.iota(xa.int64, 100000), np.arange(100000))
    check(xa.lax.iota(xa.float32, 4097), np.arange(4097, dtype=np.float32))
    with pytest.raises(ValueError, match="-1"):
        xa.lax.iota(xa.int32, -1)
    with pytest.raises(TypeError):
        xa.lax.iota(object, 3)


@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4), (5,), (0, 3), (3, 1, 2)], ids=str)
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.uint8, BF16, np.complex64],
                         ids=str)
def test_broadcasted_iota(shape, dtype):
    for dim in range(-len(shape), len(shape)):
        want = np.broadcast_to(
            np.arange(shape[dim]).reshape([-1 if i == dim % len(shape) else 1
                                           for i in range(len(shape))]), shape)
        t = xa.lax.broadcasted_iota(dtype, shape, dim)
        check(t, want.astype(dtype))
        assert t.flags["WRITEABLE"]          # a fresh tensor, not a broadcast view


def test_broadcasted_iota_seed_example_and_errors():
    assert xa.lax.broadcasted_iota(xa.int32, (2, 3), 1).tolist() == [[0, 1, 2], [0, 1, 2]]
    assert xa.lax.broadcasted_iota(xa.int32, (2, 3), 0).tolist() == [[0, 0, 0], [1, 1, 1]]
    with pytest.raises(ValueError, match="2"):
        xa.lax.broadcasted_iota(xa.int32, (2, 3), 2)
    with pytest.raises(ValueError, match="-3"):
        xa.lax.broadcasted_iota(xa.int32, (2, 3), -3)
    with pytest.raises(ValueError):
        xa.lax.broadcasted_iota(xa.int32, (2, -3), 0)


# ------------------------------------------------------------------------------ layout=
def _storage(t):
    return np.asarray(t.storage())


CREATORS = {
    "asarray": lambda lay: xa.asarray(np.arange(12.0).reshape(3, 4), layout=lay),
    "array": lambda lay: xa.array(np.arange(12.0).reshape(3, 4), layout=lay),
    "zeros": lambda lay: xa.zeros((3, 4), layout=lay),
    "ones": lambda lay: xa.ones((3, 4), layout=lay),
    "empty": lambda lay: xa.empty((3, 4), layout=lay),
    "full": lambda lay: xa.full((3, 4), 2.5, layout=lay),
    "eye": lambda lay: xa.eye(3, 4, 1, layout=lay),
    "zeros_like": lambda lay: xa.zeros_like(xa.zeros((3, 4)), layout=lay),
    "ones_like": lambda lay: xa.ones_like(xa.zeros((3, 4)), layout=lay),
    "full_like": lambda lay: xa.full_like(xa.zeros((3, 4)), 2.5, layout=lay),
    "empty_like": lambda lay: xa.empty_like(xa.zeros((3, 4)), layout=lay),
}
EXPECT = {"asarray": np.arange(12.0).reshape(3, 4), "array": np.arange(12.0).reshape(3, 4),
          "zeros": np.zeros((3, 4)), "ones": np.ones((3, 4)), "full": np.full((3, 4), 2.5),
          "eye": np.eye(3, 4, 1), "zeros_like": np.zeros((3, 4)),
          "ones_like": np.ones((3, 4)), "full_like": np.full((3, 4), 2.5)}


@pytest.mark.parametrize("name", list(CREATORS))
@pytest.mark.parametrize("lay", ["{0,1}", (0, 1), "{1,0:T(2,2)}", "{0,1:PD(4,6)}",
                                 "{1,0:L(16)}"], ids=str)
def test_layout_argument_on_creators(name, lay):
    t = CREATORS[name](lay)
    layout = xa.Layout(lay) if isinstance(lay, tuple) else xa.Layout.parse(lay)
    assert t.layout == layout
    assert t.shape == (3, 4) and t.dtype == np.float64
    assert t.storage().size == t.xla_shape.storage_elements
    if name in EXPECT:
        np.testing.assert_array_equal(np_of(t), EXPECT[name])
        store = _storage(t)
        for i in range(3):
            for j in range(4):
                assert store[xa.linear_index(t.xla_shape, (i, j))] == EXPECT[name][i, j]
    if layout.minor_to_major == (0, 1) and not layout.padded_dimensions and name in EXPECT:
        np.testing.assert_array_equal(_storage(t)[:12], EXPECT[name].ravel(order="F"))


@pytest.mark.parametrize("lay", ["{0}", (0,), "{0:T(4)}", "{0:T(8)(2)}", "{0:PD(20)PV(-1)}"],
                         ids=str)
def test_layout_argument_on_1d_creators(lay):
    layout = xa.Layout(lay) if isinstance(lay, tuple) else xa.Layout.parse(lay)
    for t, want in ((xa.arange(10, layout=lay), np.arange(10)),
                    (xa.linspace(0, 1, 11, layout=lay), np.linspace(0, 1, 11)),
                    (xa.asarray([1, 2, 3], layout=lay), np.array([1, 2, 3]))):
        assert t.layout == layout
        np.testing.assert_allclose(np_of(t), want, rtol=1e-15)


def test_like_creators_follow_column_major_input():
    src = xa.asarray(np.arange(6.0).reshape(2, 3), layout=(0, 1))
    for t in (xa.zeros_like(src), xa.ones_like(src), xa.empty_like(src),
              xa.full_like(src, 1)):
        assert t.layout == xa.Layout((0, 1))
    assert xa.zeros_like(src, layout=(1, 0)).layout == xa.Layout((1, 0))
    assert xa.zeros_like(src, shape=(2, 3)).flags["C_CONTIGUOUS"]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=NAMES)
def test_all_dtypes_round_trip_through_numpy_with_layouts(dtype):
    a = (np.arange(12) % 7).astype(dtype).reshape(3, 4)
    for lay in (None, (0, 1), "{1,0:T(2,2)}", "{0,1:PD(4,5)}"):
        t = xa.asarray(a, layout=lay)
        assert t.dtype == dtype
        np.testing.assert_array_equal(np_of(t), a)
        want = a.tolist() if dtype != BF16 else a.astype(np.float32).tolist()
        assert t.tolist() == want


def test_asarray_copy_keeps_a_dense_layout_like_numpy_order_k():
    """np.asarray(a, copy=True) keeps a's order ('K'); so does xa.asarray: a dense
    column-major input copies to {0,1}, strided views and plain copies to row-major."""
    m = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    f = xa.asarray(np.asfortranarray(m), copy=True)
    assert f.layout == xa.Layout((0, 1, 2))
    assert not np.shares_memory(np.asarray(f), m)
    np.testing.assert_array_equal(np.asarray(f), m)
    t = xa.asarray(m).relayout((1, 0, 2))
    c = xa.asarray(t, copy=True)
    assert c.layout == t.layout and not np.shares_memory(np.asarray(c), np.asarray(t))
    np.testing.assert_array_equal(np.asarray(c), m)
    v = xa.asarray(m[:, ::2], copy=True)          # a gapped view: row-major
    assert v.layout == xa.Layout((2, 1, 0))
    np.testing.assert_array_equal(np.asarray(v), m[:, ::2])
    assert xa.asarray(m, copy=True).layout == xa.Layout((2, 1, 0))
    assert xa.asarray(m).copy().layout == xa.Layout((2, 1, 0))   # ndarray.copy(): 'C'


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=NAMES)
def test_tolist_of_1d_views_gives_numpy_values_and_types(dtype):
    """1-D f64 / f32 / s64 / s32 / pred tensors are read in place (tolist_1d), the rest
    through NumPy: the same values and Python types as NumPy's tolist, for contiguous,
    reversed, strided and empty views and the specials; item() likewise."""
    a = np.array([0, 1, -2, 3, 7, 5, 1, 0, 2], dtype=np.int64).astype(dtype)
    if np.dtype(dtype).kind == "f" and dtype != BF16:
        a[:3] = np.array([np.nan, -0.0, np.inf]).astype(dtype)
    t = xa.asarray(a)
    for view in (lambda v: v, lambda v: v[::-1], lambda v: v[1::3], lambda v: v[:0]):
        got, want = view(t).tolist(), view(a).tolist()
        if dtype == BF16:
            want = view(a).astype(np.float32).tolist()
        assert [type(v) for v in got] == [type(v) for v in want]
        assert np.array_equal(np.array(got, dtype=object), np.array(want, dtype=object)) \
            or repr(got) == repr(want)
    for i in (0, 1, 2, 5):  # item() reads in place too (item_in_place)
        got, want = t[i:i + 1].item(), a[i:i + 1].item()
        if dtype == BF16:
            want = float(a[i])
        assert type(got) is type(want) and repr(got) == repr(want)
    raw = np.zeros(a.nbytes + 1, np.uint8)  # elements off their alignment (odd addresses)
    odd = raw[1:].view(a.dtype)
    odd[:] = a
    t = xa.asarray(odd)
    assert repr(t.tolist()) == repr(xa.asarray(a).tolist())
    assert repr(t[3:4].item()) == repr(xa.asarray(a)[3:4].item())
