"""File I/O (xarr/_numpy/io.py): .npy / .npz round trips for every dtype and layout, files
NumPy writes read by xarr and the other way round, mmap modes, fromfile / tofile,
loadtxt / savetxt, and corrupt or truncated files raising clear errors."""

import io
import os
import pathlib
import pickle
import struct
import zipfile

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import xarr as xa
from conftest import (ALL_DTYPES, BF16, LAYOUTS, SETTINGS, XLA_NAMES, make_tensor,
                      random_array)
from xarr._numpy import io as xio

NON_BF16 = [d for d in ALL_DTYPES if d != BF16]


def bits(x):
    """The bytes of ``x``'s values in C order (exact comparison, NaN payloads included)."""
    return np.ascontiguousarray(np.asarray(x)).view(np.uint8).tobytes()


def values(shape, dtype, seed=0):
    return random_array(np.random.default_rng(seed), shape, dtype)


def header_of(path):
    """(header dict text, data offset) of a .npy file."""
    raw = open(path, "rb").read()
    major = raw[6]
    n = struct.unpack("<H" if major == 1 else "<I", raw[8:10] if major == 1 else raw[8:12])[0]
    start = 10 if major == 1 else 12
    return raw[start:start + n].decode("latin1"), start + n


def numpy_view(a):
    """A NumPy array of what xarr wrote, read by NumPy (bfloat16 through its field)."""
    return a.view(BF16) if a.dtype.names == ("bfloat16",) else a


# ---------------------------------------------------------------------- round trips
@pytest.mark.parametrize("how", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=XLA_NAMES)
def test_round_trip_every_dtype_and_layout(tmp_path, dtype, how):
    x = values((3, 4), dtype)
    t = make_tensor(x, how)
    path = tmp_path / "t.npy"
    xa.save(path, t)
    back = xa.load(path)
    assert isinstance(back, xa.Tensor) and back.dtype == dtype and back.shape == (3, 4)
    assert bits(back) == bits(x)
    text, offset = header_of(path)
    assert offset % 64 == 0
    column_major = how in ("colmajor", "transposed", "padded")
    assert ("'fortran_order': True" in text) == column_major, text
    if column_major:
        assert back.layout.minor_to_major == (0, 1)      # read back column-major
    assert bits(numpy_view(np.load(path))) == bits(x)    # NumPy reads it, values equal


@pytest.mark.parametrize("how", LAYOUTS)
def test_three_dims_and_pieces(tmp_path, how, monkeypatch):
    """Strided views written in small pieces: rows split when one exceeds a piece."""
    monkeypatch.setattr(xio, "CHUNK_BYTES", 64)
    monkeypatch.setattr(xio, "IO_BYTES", 100)
    x = values((5, 6, 7), np.dtype(np.float64), 1)
    t = make_tensor(x, how)
    xa.save(tmp_path / "t.npy", t)
    assert bits(np.load(tmp_path / "t.npy")) == bits(x)
    assert bits(xa.load(tmp_path / "t.npy")) == bits(x)
    y = values((1000,), np.dtype(np.int32), 2)
    xa.save(tmp_path / "v.npy", make_tensor(y, how))
    assert bits(xa.load(tmp_path / "v.npy")) == bits(y)


def test_column_major_is_written_without_a_copy(tmp_path, monkeypatch):
    """A column-major tensor goes out straight from its memory (no piece is copied)."""
    def refuse(t):
        raise AssertionError("copied")
    monkeypatch.setattr(xio, "_c_order_pieces", refuse)
    t = xa.asarray(np.arange(12.0).reshape(3, 4), layout=(0, 1))
    xa.save(tmp_path / "f.npy", t)
    xa.save(tmp_path / "c.npy", xa.asarray(np.arange(12.0).reshape(3, 4)))
    assert np.array_equal(np.load(tmp_path / "f.npy"), np.arange(12.0).reshape(3, 4))
    assert np.load(tmp_path / "f.npy").flags.f_contiguous


@pytest.mark.parametrize("shape", [(), (0,), (3, 0), (0, 2, 0), (1,), (1, 1, 5)])
@pytest.mark.parametrize("dtype", [np.dtype(np.float32), BF16, np.dtype(np.bool_)],
                         ids=["f32", "bf16", "pred"])
def test_zero_d_and_size_zero(tmp_path, shape, dtype):
    x = values(shape, dtype)
    for how in ("c", "colmajor"):
        xa.save(tmp_path / "t.npy", make_tensor(x, how))
        back = xa.load(tmp_path / "t.npy")
        assert back.shape == shape and back.dtype == dtype and bits(back) == bits(x)
        assert numpy_view(np.load(tmp_path / "t.npy")).shape == shape
        m = xa.load(tmp_path / "t.npy", mmap_mode="r")
        assert m.shape == shape and bits(m) == bits(x)


@SETTINGS
@given(shape=st.lists(st.integers(0, 5), min_size=0, max_size=4).map(tuple),
       dtype=st.sampled_from(ALL_DTYPES), how=st.sampled_from(LAYOUTS),
       seed=st.integers(0, 2**16), compressed=st.booleans())
def test_property_round_trip(shape, dtype, how, seed, compressed):
    x = values(shape, dtype, seed)
    t = make_tensor(x, how)
    buf = io.BytesIO()
    xa.save(buf, t)
    buf.seek(0)
    assert bits(xa.load(buf)) == bits(x)
    buf.seek(0)
    assert bits(numpy_view(np.load(buf))) == bits(x)
    z = io.BytesIO()
    (xa.savez_compressed if compressed else xa.savez)(z, t, b=t)
    z.seek(0)
    with xa.load(z) as npz:
        assert bits(npz["arr_0"]) == bits(x) and bits(npz["b"]) == bits(x)


# ---------------------------------------------------------------------- NumPy <-> xarr
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", NON_BF16, ids=[n for n in XLA_NAMES if n != "bf16"])
def test_numpy_written_files(tmp_path, dtype, order):
    x = np.asarray(values((4, 5), dtype), order=order)
    np.save(tmp_path / "n.npy", x)
    back = xa.load(tmp_path / "n.npy")
    assert back.dtype == dtype and bits(back) == bits(x)
    assert back.layout.minor_to_major == ((0, 1) if order == "F" else (1, 0))
    np.savez(tmp_path / "n.npz", x, y=x[::2])
    with xa.load(tmp_path / "n.npz") as z:
        assert bits(z["arr_0"]) == bits(x) and bits(z["y"]) == bits(x[::2])


@pytest.mark.parametrize("dt", [">f8", ">i4", ">c8", ">u2", "<f4"])
def test_byte_swapped_files(tmp_path, dt):
    x = np.arange(6, dtype=dt).reshape(2, 3) * 3
    np.save(tmp_path / "b.npy", x)
    back = xa.load(tmp_path / "b.npy")
    assert back.dtype == np.dtype(dt).newbyteorder("=")
    assert np.array_equal(np.asarray(back), x)


def test_ml_dtypes_encoding(tmp_path):
    """bfloat16 and every other ml_dtypes type survive; NumPy reads the file without error
    and a NumPy load + save keeps the type."""
    b = xa.asarray(np.array([[0.5, -2.0, np.inf]]), dtype=xa.bfloat16)
    xa.save(tmp_path / "b.npy", b)
    assert "'descr': [('bfloat16', '<u2')]" in header_of(tmp_path / "b.npy")[0]
    a = np.load(tmp_path / "b.npy")
    assert a.dtype.names == ("bfloat16",)
    assert bits(a.view(ml_dtypes.bfloat16)) == bits(b)
    np.save(tmp_path / "again.npy", a)                      # through NumPy and back
    assert xa.load(tmp_path / "again.npy").dtype == xa.bfloat16
    for name, dt in xio.ML_DTYPES.items():
        x = np.arange(4).astype(dt)
        xa.save(tmp_path / f"{name}.npy", x)
        back = xa.load(tmp_path / f"{name}.npy")
        assert back.dtype == dt and bits(back) == bits(x), name
        assert np.load(tmp_path / f"{name}.npy").dtype.names == (name,)
    np.save(tmp_path / "void.npy", np.zeros(3, ml_dtypes.bfloat16))   # NumPy's own '<V2'
    with pytest.raises(TypeError, match=r"load: .*void\.npy.*view\(ml_dtypes"):
        xa.load(tmp_path / "void.npy")


def test_numpy_functions_dispatch_to_xarr(tmp_path):
    t = xa.asarray(np.arange(6.0).reshape(2, 3), layout=(0, 1))
    np.save(tmp_path / "d.npy", t)                          # NEP 18: xa.save
    assert "'fortran_order': True" in header_of(tmp_path / "d.npy")[0]
    np.savez(tmp_path / "d.npz", t, k=t)
    assert sorted(xa.load(tmp_path / "d.npz").files) == ["arr_0", "k"]
    np.savetxt(tmp_path / "d.txt", t)
    assert np.array_equal(np.loadtxt(tmp_path / "d.txt"), np.asarray(t))


# ---------------------------------------------------------------------- files and names
def test_names_and_file_objects(tmp_path):
    t = xa.arange(5)
    xa.save(str(tmp_path / "a"), t)                         # .npy appended
    xa.save(tmp_path / "b.npy", t)                          # a PathLike, kept
    assert (tmp_path / "a.npy").exists() and (tmp_path / "b.npy").exists()
    xa.savez(str(tmp_path / "z"), t)
    assert (tmp_path / "z.npz").exists()
    with open(tmp_path / "seq.npy", "wb") as f:             # several arrays in one file
        xa.save(f, t)
        xa.save(f, t * 2)
        np.save(f, np.arange(3))
    with open(tmp_path / "seq.npy", "rb") as f:
        assert xa.load(f).tolist() == [0, 1, 2, 3, 4]
        assert xa.load(f).tolist() == [0, 2, 4, 6, 8]
        assert xa.load(f).tolist() == [0, 1, 2]
    with open(tmp_path / "raw.npy", "wb", buffering=0) as f:   # a raw (unbuffered) file
        xa.save(f, t)
    assert xa.load(pathlib.Path(tmp_path / "raw.npy")).tolist() == [0, 1, 2, 3, 4]


def test_npz_file_mapping(tmp_path):
    x, y = xa.arange(4), xa.ones((2, 2), dtype=xa.float32)
    xa.savez(tmp_path / "m.npz", x, y=y)
    with zipfile.ZipFile(tmp_path / "m.npz", "a") as zf:
        zf.writestr("notes.txt", b"hello")
    z = xa.load(tmp_path / "m.npz")
    assert z.files == ["y", "arr_0", "notes.txt"] and len(z) == 3
    assert "y" in z and "y.npy" in z and "q" not in z
    assert z["y.npy"].tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert z["notes.txt"] == b"hello"
    assert list(z) == z.files and dict(z.items())["arr_0"].tolist() == [0, 1, 2, 3]
    with pytest.raises(KeyError, match="q is not a file"):
        z["q"]
    z.close()
    with pytest.raises(ValueError, match="closed"):
        z["y"]
    with xa.load(tmp_path / "m.npz") as z2:
        assert z2["arr_0"].dtype == xa.int64
    assert z2.zip is None
    with pytest.raises(ValueError, match="un-named variables and keyword arr_0"):
        xa.savez(tmp_path / "bad.npz", x, arr_0=y)
    xa.savez_compressed(tmp_path / "c.npz", big=xa.zeros(100_000))
    assert os.path.getsize(tmp_path / "c.npz") < 10_000
    with np.load(tmp_path / "c.npz") as n:
        assert n["big"].shape == (100_000,)


# ---------------------------------------------------------------------- mmap
def test_mmap_modes(tmp_path):
    x = np.arange(12.0).reshape(3, 4)
    path = tmp_path / "m.npy"
    xa.save(path, xa.asarray(x, layout=(0, 1)))
    r = xa.load(path, mmap_mode="r")
    assert isinstance(r, xa.Tensor) and r.layout.minor_to_major == (0, 1)
    assert np.array_equal(np.asarray(r), x) and not r.flags["WRITEABLE"]
    with pytest.raises((ValueError, TypeError, BufferError)):
        r[0, 0] = 1.0
    rp = xa.load(path, mmap_mode="r+")
    rp[0, 0] = 100.0
    assert np.asarray(r)[0, 0] == 100.0                     # the same pages
    del rp
    assert np.load(path)[0, 0] == 100.0                     # reached the file
    c = xa.load(path, mmap_mode="c")
    c[1, 1] = -5.0
    assert np.asarray(c)[1, 1] == -5.0 and np.load(path)[1, 1] == 5.0   # stays in memory
    del r, c
    w = xa.load(path, mmap_mode="w+")
    assert w.shape == (3, 4) and not np.asarray(w).any()    # header kept, data zeroed
    w[2, 3] = 7.0
    del w
    want = np.zeros((3, 4))
    want[2, 3] = 7.0
    assert np.array_equal(np.load(path), want)
    with open(path, "rb") as f:                             # a file object with fileno
        assert np.array_equal(np.asarray(xa.load(f, mmap_mode="r")), want)
    s = xa.load(path, mmap_mode="r")[::2, 1:]               # views of a map are tensors
    assert xa.sum(s).item() == 7.0
    with pytest.raises(ValueError, match="mmap_mode must be"):
        xa.load(path, mmap_mode="rw")
    np.save(tmp_path / "be.npy", np.arange(3, dtype=">f8"))
    with pytest.raises(TypeError, match="cannot be memory-mapped"):
        xa.load(tmp_path / "be.npy", mmap_mode="r")


# ---------------------------------------------------------------------- raw and text
@pytest.mark.parametrize("how", ["c", "colmajor", "negstep", "tiled"])
def test_tofile_and_fromfile_binary(tmp_path, how):
    x = values((3, 4), np.dtype(np.int16))
    t = make_tensor(x, how)
    xio.tofile(t, tmp_path / "r.bin")                      # always C order, as NumPy's
    assert open(tmp_path / "r.bin", "rb").read() == x.tobytes()
    back = xa.fromfile(tmp_path / "r.bin", xa.int16)
    assert back.tolist() == x.ravel().tolist()
    assert xa.fromfile(str(tmp_path / "r.bin"), xa.int16, count=3, offset=4).tolist() == \
        x.ravel()[2:5].tolist()
    with open(tmp_path / "r.bin", "rb") as f:
        f.read(2)
        assert xa.fromfile(f, xa.int16, count=2, offset=2).tolist() == \
            x.ravel()[2:4].tolist()
    buf = io.BytesIO()
    xio.tofile(t, buf)
    assert buf.getvalue() == x.tobytes()
    with pytest.raises(ValueError, match=r"fromfile: .*r\.bin.*truncated"):
        xa.fromfile(tmp_path / "r.bin", xa.int16, count=13)
    with pytest.raises(ValueError, match="not a whole number of float64 items"):
        xa.fromfile(tmp_path / "r.bin", xa.float64, offset=2)
    assert xa.fromfile(tmp_path / "r.bin", xa.int16, count=0).shape == (0,)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=XLA_NAMES)
def test_tofile_text_matches_numpy(tmp_path, dtype):
    x = values((2, 3), dtype)
    xio.tofile(xa.asarray(x), tmp_path / "t.txt", sep=", ")
    x.tofile(tmp_path / "n.txt", sep=", ")
    assert open(tmp_path / "t.txt").read() == open(tmp_path / "n.txt").read()
    if dtype.kind not in "cb":                  # (NumPy reads neither from text)
        back = xa.fromfile(tmp_path / "t.txt", dtype, sep=",")
        assert back.dtype == dtype and bits(back) == bits(x.ravel())


def test_tofile_method(tmp_path):
    if not hasattr(xa.Tensor, "tofile"):
        pytest.skip("the compiled Tensor predates t.tofile (xarr/_tensor.pyx): rebuild")
    t = xa.asarray([1.5, 2.0])
    t.tofile(tmp_path / "m.txt", sep=",", format="%.1f")
    assert open(tmp_path / "m.txt").read() == "1.5,2.0"


@pytest.mark.parametrize("dtype", [np.dtype(np.float64), np.dtype(np.float32), BF16,
                                   np.dtype(np.int32)], ids=["f64", "f32", "bf16", "s32"])
def test_savetxt_loadtxt(tmp_path, dtype):
    x = values((3, 4), dtype)
    xa.savetxt(tmp_path / "t.txt", make_tensor(x, "negstep"), fmt="%d" if dtype.kind ==
               "i" else "%.18e", delimiter=",")
    back = xa.loadtxt(tmp_path / "t.txt", dtype=dtype, delimiter=",")
    assert isinstance(back, xa.Tensor) and back.dtype == dtype
    assert bits(back) == bits(x)
    a, b = xa.loadtxt(io.StringIO("1 2\n3 4\n"), unpack=True)
    assert a.tolist() == [1.0, 3.0] and b.tolist() == [2.0, 4.0]


# ---------------------------------------------------------------------- corrupt files
def _npy(header, data=b"", version=(1, 0)):
    body = header.encode("latin1")
    fmt = "<H" if version == (1, 0) else "<I"
    return b"\x93NUMPY" + bytes(version) + struct.pack(fmt, len(body)) + body + data


GOOD = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }\n"
CORRUPT = {
    "bad_magic": (b"\x93NUMPX\x01\x00" + b"x" * 80, ValueError, "not a .npy"),
    "short_magic": (b"\x93NUM", ValueError, "not a .npy"),
    "bad_version": (_npy(GOOD, version=(9, 0)), ValueError, "unsupported .npy format"),
    "cut_length": (b"\x93NUMPY\x01\x00\x10", ValueError, "header length"),
    "cut_header": (_npy(GOOD)[:30], ValueError, "ends inside the header"),
    "syntax": (_npy("{'descr': '<f8', 'fortran_order': Fal"), ValueError, "cannot parse"),
    "not_dict": (_npy("[1, 2]"), ValueError, "keys 'descr'"),
    "extra_key": (_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': 1}"),
                  ValueError, "keys 'descr'"),
    "negative_shape": (_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (-2,)}"),
                       ValueError, "shape"),
    "float_shape": (_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2.0,)}"),
                    ValueError, "shape"),
    "order": (_npy("{'descr': '<f8', 'fortran_order': 1, 'shape': (2,)}"), ValueError,
              "fortran_order"),
    "dtype_string": (_npy("{'descr': '<x9', 'fortran_order': False, 'shape': (2,)}"),
                     ValueError, "descr '<x9' is not a valid dtype"),
    "truncated_data": (_npy(GOOD, b"\x00" * 12), ValueError, r"\(truncated\)"),
    "huge_shape": (_npy("{'descr': '<f8', 'fortran_order': False, 'shape': "
                        "(1000000000000,)}"), ValueError, r"8000000000000 bytes.*truncated"),
    "huge_dims": (_npy("{'descr': '<f8', 'fortran_order': False, 'shape': "
                       "(1000000, 1000000)}", b"\x00" * 64), ValueError, r"truncated"),
    "too_big": (_npy("{'descr': '<f8', 'fortran_order': False, 'shape': "
                     "(1099511627776, 1099511627776)}"), ValueError, "no file holds"),
    "unicode": (_npy("{'descr': '<U3', 'fortran_order': False, 'shape': (2,)}"), TypeError,
                "not an xarr dtype"),
    "object": (_npy("{'descr': '|O', 'fortran_order': False, 'shape': (2,)}"), ValueError,
               "allow_pickle=False"),
    "pickle_file": (pickle.dumps([1, 2]), ValueError, "allow_pickle=True"),
    "empty": (b"", EOFError, "empty"),
    "bad_zip": (b"PK\x03\x04" + b"\x00" * 40, ValueError, "not a readable .npz"),
}


@pytest.mark.parametrize("case", list(CORRUPT))
def test_corrupt_files_raise_clear_errors(tmp_path, case):
    data, exc, message = CORRUPT[case]
    path = tmp_path / f"{case}.npy"
    path.write_bytes(data)
    with pytest.raises(exc, match=message) as info:
        xa.load(path)
    assert str(info.value).startswith(f"load: '{path}'")
    with pytest.raises(exc, match=message):
        xa.load(io.BytesIO(data))                   # file objects alike
    if case not in ("pickle_file", "empty", "bad_zip"):
        with pytest.raises((exc, TypeError), match=message + "|cannot be memory-mapped"):
            xa.load(path, mmap_mode="r")


def test_truncated_members_and_pickles(tmp_path):
    xa.savez(tmp_path / "z.npz", a=xa.arange(1000))
    raw = (tmp_path / "z.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes(raw[:len(raw) // 2])
    with pytest.raises(ValueError, match=r"load: .*cut\.npz"):
        xa.load(tmp_path / "cut.npz")["a"]
    hdr = raw.index(b"\x93NUMPY")
    (tmp_path / "flip.npz").write_bytes(raw[:hdr + 200] + b"\xff" + raw[hdr + 201:])
    with pytest.raises(ValueError, match="corrupt"):
        xa.load(tmp_path / "flip.npz")["a"]                 # a bad CRC
    obj = np.array([{"a": 1}, None], dtype=object)
    np.save(tmp_path / "o.npy", obj, allow_pickle=True)
    with pytest.raises(ValueError, match="allow_pickle=False"):
        xa.load(tmp_path / "o.npy")
    assert xa.load(tmp_path / "o.npy", allow_pickle=True)[0] == {"a": 1}
    xa.save(tmp_path / "o2.npy", obj)                       # pickled, as NumPy's save
    assert np.load(tmp_path / "o2.npy", allow_pickle=True)[0] == {"a": 1}
    with pytest.raises(ValueError, match="allow_pickle=False"):
        xa.save(tmp_path / "o3.npy", obj, allow_pickle=False)
    (tmp_path / "p.pkl").write_bytes(pickle.dumps({"k": 3}))
    assert xa.load(tmp_path / "p.pkl", allow_pickle=True) == {"k": 3}
    big = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }" + " " * 20000 + "\n"
    (tmp_path / "h.npy").write_bytes(_npy(big, b"\x00" * 16, version=(2, 0)))
    with pytest.raises(ValueError, match="max_header_size"):
        xa.load(tmp_path / "h.npy")
    assert xa.load(tmp_path / "h.npy", max_header_size=30000).tolist() == [0.0, 0.0]
    with pytest.raises(TypeError, match=r"save: .*s\.npy.*dtype"):
        xa.save(tmp_path / "s.npy", np.array(["ab"]))


def test_lazy_values_are_saved(tmp_path):
    t = xa.arange(4.0)
    with xa.lazy():
        y = t * 2
        xa.save(tmp_path / "l.npy", y)
    assert xa.load(tmp_path / "l.npy").tolist() == [0.0, 2.0, 4.0, 6.0]
