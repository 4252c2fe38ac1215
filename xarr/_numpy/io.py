"""File I/O in NumPy's formats: ``save`` / ``load`` (.npy), ``savez`` /
``savez_compressed`` (.npz), ``fromfile`` / ``tofile`` (raw bytes or text) and
``loadtxt`` / ``savetxt`` (text tables), with NumPy's signatures.

    >>> t = xa.asarray([[1, 2, 3], [4, 5, 6]], dtype=xa.float32, layout=(0, 1))
    >>> xa.save("/tmp/t.npy", t)          # fortran_order: True, the storage as it is
    >>> np.load("/tmp/t.npy")             # NumPy reads it ...
    array([[1., 2., 3.],
           [4., 5., 6.]], dtype=float32)
    >>> xa.load("/tmp/t.npy").xla_shape   # ... and xarr reads it back column-major
    Shape('f32[2,3]{0,1}')

The .npy format (NumPy's "format.py" documents it): the magic ``\\x93NUMPY``, a version
byte pair (1.0; 2.0 when the header exceeds 65535 bytes; 3.0 is read), the header length
(2 bytes little-endian in 1.0, 4 bytes otherwise), and the header: a Python dict literal
with exactly the keys ``descr``, ``fortran_order`` and ``shape``, padded with spaces and a
newline so that the data starts at a multiple of 64 bytes. The data follow in C order, or
in Fortran order when ``fortran_order`` is True. Everything here reads and writes that
format itself; the data go between the file and the tensor's own memory.

Contracts:
- **Writing** (``save``, ``savez``, ``tofile``) takes a row-major or column-major tensor's
  bytes as they are: one stream of large writes straight from its memory (a column-major
  tensor is saved with ``fortran_order: True``, not transposed). Any other strided view
  (steps, negative steps, padded storage) is copied in pieces of about CHUNK_BYTES, dense
  in C order (in Fortran order when its strides are column-major), each piece written
  before the next is made: no whole copy. A tiled tensor is untiled once (one whole copy;
  its buffer's order is neither C nor Fortran). ``tofile`` always writes C order, as
  NumPy's does.
- **Reading** (``load``, ``fromfile``) allocates the tensor (column-major when the header
  says ``fortran_order``) and ``readinto``s its memory from the file. Before allocating,
  the header's size is checked against the bytes the file still holds (when that can be
  known), so a corrupt shape neither allocates terabytes nor returns short data.
- **Errors** name the function, the file and what is wrong, with NumPy's classes: an empty
  file raises EOFError; a bad magic string, a bad header (syntax, keys, shape, descr),
  too few data bytes, pickled data without ``allow_pickle`` raise ValueError; a valid
  dtype xarr has no element type for (strings, datetimes, records) raises TypeError.
- **mmap_mode** ('r', 'r+', 'c', 'w+') maps the file (Python's ``mmap``) and returns a
  Tensor viewing the mapped pages, zero-copy (xarr tensors can hold foreign memory:
  the mapping lives as long as the tensor or any view of it). 'r' is read-only (writes
  raise), 'r+' writes reach the file, 'c' is copy-on-write (writes stay in memory).
  'w+' keeps the header (shape, dtype, order) and resets the data to zeros, mapped
  read-write; NumPy's ``np.load(..., mmap_mode='w+')`` fails there. A size-0 array is a
  new empty tensor (nothing to map); a byte-swapped (big-endian) file cannot be mapped
  as a tensor (TypeError: load it without mmap_mode, which swaps it).
- **Pickles.** ``load`` refuses object arrays and pickle files unless
  ``allow_pickle=True``; then it returns what NumPy's would (a NumPy object array, or the
  unpickled object): xarr has no object dtype. ``save`` of data that is an object array
  pickles it when ``allow_pickle`` (NumPy's default True), else ValueError.

The ml_dtypes decision. NumPy writes an ml_dtypes array with ``dtype.str`` as descr:
``'<V2'`` for bfloat16, ``'<V1'`` for float8_e4m3fn (plain void bytes: the type is lost),
``'<f1'`` for float8_e5m2 (which ``np.load`` then refuses to read). NumPy's reader
demands exactly the three header keys, so the type cannot go into an extra key. xarr
writes an ml_dtypes array with a one-field structured descr named after the type, the
field holding the bits as the unsigned integer of the same size:

    {'descr': [('bfloat16', '<u2')], 'fortran_order': False, 'shape': (2, 3), }

``np.load`` reads that without error (a structured array; ``a.dtype.names`` says
``('bfloat16',)`` and ``a.view(ml_dtypes.bfloat16)`` gives the values), a NumPy load and
save keeps it, and ``xa.load`` gives back the bfloat16 tensor. Every ml_dtypes type is
written this way (ML_DTYPES); those xarr has no element type for (float8, int4, ...)
load as a NumPy array of that type over memory xarr read, and ``save`` takes NumPy arrays
of them. A file NumPy wrote from an ml_dtypes array (``'<V2'``) cannot tell its type: it
raises TypeError naming the workaround (``np.load(f).view(ml_dtypes.bfloat16)``).
"""

import ast
import collections.abc
import io
import mmap
import os
import pickle
import struct
import zipfile

import ml_dtypes
import numpy as np

from xarr import _tensor
from xarr._dispatch import register
from xarr._dtypes import CODE_OF, as_dtype
from xarr._graph.trace import Traced
from xarr._ops.conversion import asarray
from xarr._tensor import Tensor

__all__ = ["save", "load", "savez", "savez_compressed", "NpzFile", "fromfile", "tofile",
           "loadtxt", "savetxt"]

MAGIC = b"\x93NUMPY"
ALIGN = 64                      # the data start at a multiple of this (NumPy's ARRAY_ALIGN)
CHUNK_BYTES = 16 << 20          # pieces of strided tensors copied for writing
IO_BYTES = 64 << 20             # bytes per read / write call on dense memory
_HEADER_KEYS = {"descr", "fortran_order", "shape"}
_ZIP_PREFIXES = (b"PK\x03\x04", b"PK\x05\x06")
_PICKLE_PROTOCOL = 3            # what NumPy writes (readable by Python >= 3.0)

# Every ml_dtypes type by name (those this ml_dtypes version has), and the unsigned
# integer descr of each size that holds their bits in a file.
ML_DTYPES = {name: np.dtype(getattr(ml_dtypes, name)) for name in (
    "bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
    "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn",
    "float6_e3m2fn", "float4_e2m1fn", "int1", "int2", "int4", "uint1", "uint2", "uint4")
    if hasattr(ml_dtypes, name)}
_ML_NAME = {dt: name for name, dt in ML_DTYPES.items()}
_BITS = {1: np.dtype("|u1"), 2: np.dtype("<u2"), 4: np.dtype("<u4"), 8: np.dtype("<u8")}


# ---------------------------------------------------------------------- small helpers
def _name_of(file):
    """How messages name a file: its path, or the file object's name or type."""
    if isinstance(file, (str, bytes, os.PathLike)):
        return repr(os.fsdecode(file))
    name = getattr(file, "name", None)
    return repr(name) if isinstance(name, (str, bytes)) else f"<{type(file).__name__}>"


def _is_path(file):
    return isinstance(file, (str, bytes, os.PathLike))


def _bytes_of(t):
    """A flat byte memoryview over dense tensor ``t``'s memory (C or Fortran order),
    zero-copy; writable when ``t`` is. (NumPy's view is the adapter: a tensor's own buffer
    export has no format for bfloat16.)"""
    arr = np.asarray(t)
    if arr.ndim > 1 and not arr.flags.c_contiguous:
        arr = arr.T                                  # Fortran order: its transpose is C
    return memoryview(arr.reshape(-1).view(np.uint8))    # (C order: reshape is a view)


def _remaining(f):
    """Bytes left in file object ``f`` after its position, or None when unknowable
    cheaply (pipes, compressed streams)."""
    try:
        if isinstance(f, io.BytesIO):
            return len(f.getbuffer()) - f.tell()
        return os.fstat(f.fileno()).st_size - f.tell()
    except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
        return None


def _read_exact(f, n):
    """Up to ``n`` bytes; fewer only at the end of the file."""
    parts, got = [], 0
    while got < n:
        b = f.read(n - got)
        if not b:
            break
        parts.append(b)
        got += len(b)
    return b"".join(parts)


def _write_all(f, mv):
    """Writes every byte of memoryview ``mv`` in calls of at most IO_BYTES (a raw file's
    write may take fewer bytes than offered: the rest is written again)."""
    pos, n = 0, len(mv)
    while pos < n:
        k = f.write(mv[pos:pos + IO_BYTES])
        pos += min(IO_BYTES, n - pos) if k is None else k
        if k == 0:
            raise OSError(f"the file accepted no more bytes after {pos} of {n}")


def _read_into(f, mv, what, shape, dtype):
    """Fills memoryview ``mv`` from ``f`` with readinto; ValueError when the file ends
    first."""
    pos, n = 0, len(mv)
    readinto = getattr(f, "readinto", None)
    while pos < n:
        end = min(n, pos + IO_BYTES)
        if readinto is not None:
            k = readinto(mv[pos:end])
        else:
            b = f.read(end - pos)
            k = len(b)
            mv[pos:pos + k] = b
        if not k:
            raise ValueError(f"{what}: the file ends after {pos} of the {n} data bytes that "
                             f"shape {shape} of {dtype} needs (truncated)")
        pos += k


# ---------------------------------------------------------------------- the header
def _descr_of(dtype):
    """The header's descr for ``dtype``: ``dtype.str`` ('<f4', '|b1' ...), or for an
    ml_dtypes type the one-field structured descr ``[('bfloat16', '<u2')]``."""
    name = _ML_NAME.get(dtype)
    if name is not None:
        return [(name, _BITS[dtype.itemsize].str)]
    return dtype.str


def _header_bytes(dtype, shape, fortran):
    """The whole header, magic to newline, padded so the data start at a multiple of
    ALIGN. ``_header_bytes(xa.float32, (2, 3), False)`` is 128 bytes: b'\\x93NUMPY\\x01\\x00v\\x00
    {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }' + spaces + b'\\n'."""
    text = (f"{{'descr': {_descr_of(dtype)!r}, 'fortran_order': {bool(fortran)}, "
            f"'shape': {tuple(int(d) for d in shape)!r}, }}")
    body = text.encode("latin1")
    for version, fmt in (((1, 0), "<H"), ((2, 0), "<I")):
        fixed = len(MAGIC) + 2 + struct.calcsize(fmt)
        pad = -(fixed + len(body) + 1) % ALIGN
        hlen = len(body) + pad + 1
        if hlen < 1 << (8 * struct.calcsize(fmt)):                 # fits the length field
            return MAGIC + bytes(version) + struct.pack(fmt, hlen) + body + b" " * pad + b"\n"
    raise ValueError(f"the header of shape {shape} does not fit the .npy format")


def _dtype_of(descr, what):
    """(dtype, byte-swapped) for a header's descr; ValueError for what is no dtype."""
    if (isinstance(descr, list) and len(descr) == 1 and isinstance(descr[0], tuple)
            and len(descr[0]) == 2 and descr[0][0] in ML_DTYPES):
        name, bits = descr[0]
        if bits in (_BITS[ML_DTYPES[name].itemsize].str,
                    _BITS[ML_DTYPES[name].itemsize].str.replace("<", "|")):
            return ML_DTYPES[name], False
    try:
        dt = np.dtype(descr if isinstance(descr, str) else
                      [tuple(f) if isinstance(f, (list, tuple)) else f for f in descr])
    except (TypeError, ValueError) as e:
        raise ValueError(f"{what}: the header's descr {descr!r} is not a valid dtype "
                         f"({e})") from None
    if dt.byteorder == ">" and dt.fields is None:
        return dt.newbyteorder("="), True
    return dt, False


def _parse_header(text, what):
    """(shape, fortran_order, descr) from the header dict's text; ValueError naming what
    is wrong."""
    try:
        d = ast.literal_eval(text)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError) as e:
        raise ValueError(f"{what}: cannot parse the header {text[:200]!r}: "
                         f"{type(e).__name__}") from None
    if not isinstance(d, dict) or set(d) != _HEADER_KEYS:
        keys = sorted(map(str, d)) if isinstance(d, dict) else type(d).__name__
        raise ValueError(f"{what}: the header must be a dict with keys 'descr', "
                         f"'fortran_order' and 'shape'; got {keys}")
    shape, fortran = d["shape"], d["fortran_order"]
    if not (isinstance(shape, tuple) and all(type(x) is int and 0 <= x < 1 << 62
                                             for x in shape)):
        raise ValueError(f"{what}: the header's shape {shape!r} is not a tuple of "
                         f"non-negative ints below 2**62")
    if len(shape) > 32:
        raise ValueError(f"{what}: the header's shape has {len(shape)} dims; xarr tensors "
                         f"have at most 32")
    if not isinstance(fortran, bool):
        raise ValueError(f"{what}: the header's fortran_order {fortran!r} is not a bool")
    return shape, fortran, d["descr"]


def _read_header(f, what, max_header_size):
    """Reads magic, version and header from ``f``; returns (shape, fortran, dtype,
    swapped). EOFError for an empty file, ValueError for anything malformed."""
    start = _read_exact(f, len(MAGIC) + 2)
    if not start:
        raise EOFError(f"{what}: no data left in the file (it is empty)")
    if len(start) < len(MAGIC) + 2 or start[:len(MAGIC)] != MAGIC:
        raise ValueError(f"{what}: not a .npy file: it starts with {start!r}, not the magic "
                         f"string {MAGIC!r}")
    version = (start[-2], start[-1])
    if version not in ((1, 0), (2, 0), (3, 0)):
        raise ValueError(f"{what}: unsupported .npy format version {version[0]}.{version[1]}"
                         f" (1.0, 2.0 and 3.0 are read)")
    fmt = "<H" if version == (1, 0) else "<I"
    raw = _read_exact(f, struct.calcsize(fmt))
    if len(raw) < struct.calcsize(fmt):
        raise ValueError(f"{what}: the file ends inside the header length (truncated)")
    (hlen,) = struct.unpack(fmt, raw)
    if hlen > max_header_size:
        raise ValueError(f"{what}: the header is {hlen} bytes, more than max_header_size="
                         f"{max_header_size}; pass a larger max_header_size if you trust "
                         f"the file")
    header = _read_exact(f, hlen)
    if len(header) < hlen:
        raise ValueError(f"{what}: the file ends inside the header ({len(header)} of "
                         f"{hlen} bytes; truncated)")
    try:
        text = header.decode("utf8" if version == (3, 0) else "latin1")
    except UnicodeDecodeError:
        raise ValueError(f"{what}: the header is not valid UTF-8") from None
    shape, fortran, descr = _parse_header(text, what)
    dtype, swapped = _dtype_of(descr, what)
    return shape, fortran, dtype, swapped


def _nbytes(shape, dtype, what):
    n = dtype.itemsize
    for d in shape:
        n *= d
    if n >= 1 << 62:
        raise ValueError(f"{what}: the header's shape {shape} of {dtype} needs {n} bytes; "
                         f"no file holds that")
    return n


# ---------------------------------------------------------------------- writing .npy
def _saveable(arr, allow_pickle, what):
    """(tensor or NumPy object array, header dtype) for what ``save`` was given."""
    if isinstance(arr, Tensor):
        return arr, arr.dtype
    if isinstance(arr, Traced) or not hasattr(arr, "__dlpack__"):
        arr = np.asarray(arr)        # lists, scalars; a lazy value (a jit tracer refuses)
    if isinstance(arr, np.ndarray):
        if arr.dtype in _ML_NAME and arr.dtype not in CODE_OF:
            return asarray(arr.view(_BITS[arr.itemsize])), arr.dtype  # bits, zero-copy
        if arr.dtype.hasobject:
            if not allow_pickle:
                raise ValueError(f"{what}: object arrays cannot be saved when "
                                 f"allow_pickle=False")
            return arr, arr.dtype
    try:
        t = asarray(arr)
    except TypeError as e:
        raise TypeError(f"{what}: {e}") from None
    return t, t.dtype


def _c_order_pieces(t):
    """Dense C-order copies of consecutive pieces of strided ``t``, each at most about
    CHUNK_BYTES (a single row larger than that is split further)."""
    if t.ndim == 0 or t.nbytes <= CHUNK_BYTES:
        yield _tensor.copy_dense(t)
        return
    if t.ndim == 1:
        step = max(1, CHUNK_BYTES // t.itemsize)
        for i in range(0, t.shape[0], step):
            yield _tensor.copy_dense(t[i:i + step])
        return
    row = t.nbytes // t.shape[0]
    if row > CHUNK_BYTES:
        for i in range(t.shape[0]):
            yield from _c_order_pieces(t[i])
        return
    step = CHUNK_BYTES // row
    for i in range(0, t.shape[0], step):
        yield _tensor.copy_dense(t[i:i + step])


def _reserve(f, nbytes):
    """Allocates the file's next ``nbytes`` before they are written, when ``f`` is a real
    file: one extent reservation instead of growing the file write by write (on ext4 a
    256 MB save into the page cache took 150 ms without, 45 ms with; NumPy's tofile does
    the same). Files that cannot (pipes, some file systems) are written as they are."""
    try:
        fd, pos = f.fileno(), f.tell()
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return
    try:
        f.flush()
        os.posix_fallocate(fd, pos, nbytes)
    except (AttributeError, OSError, ValueError):
        pass


def _write_data(f, t, fortran):
    """Writes tensor ``t``'s values in C order (Fortran order when ``fortran``): straight
    from its memory when it is dense in that order, else in pieces."""
    if t.size == 0:
        return
    _reserve(f, t.size * t.itemsize)
    flags = t.flags
    if (flags["F_CONTIGUOUS"] if fortran else flags["C_CONTIGUOUS"]):
        _write_all(f, _bytes_of(t))
        return
    for piece in _c_order_pieces(t.T if fortran else t):   # F order of t = C order of t.T
        _write_all(f, _bytes_of(piece))


def _write_npy(f, arr, allow_pickle, what):
    """Header and data of one array to file object ``f``."""
    t, dtype = _saveable(arr, allow_pickle, what)
    if isinstance(t, np.ndarray):                     # an object array: pickled
        f.write(_header_bytes(dtype, t.shape, False))
        pickle.dump(t, f, protocol=_PICKLE_PROTOCOL)
        return
    t = _tensor.strided(t)                            # a tiled tensor: untiled once
    flags = t.flags
    fortran = t.ndim > 1 and not flags["C_CONTIGUOUS"] and (
        flags["F_CONTIGUOUS"] or _tensor.minor_to_major_of(t) == tuple(range(t.ndim)))
    f.write(_header_bytes(dtype, t.shape, fortran))
    _write_data(f, t, fortran)


def save(file, arr, allow_pickle=True, fix_imports=True):
    """Saves ``arr`` (a tensor, or anything ``xa.asarray`` takes) to a .npy file.

    ``file`` is a path (".npy" is appended when it does not end so, as NumPy does) or a
    file object open for binary writing (written at its position). A column-major tensor
    is saved with ``fortran_order: True`` from its memory as it is; other strided views are
    written in pieces (see the module's contracts). ``fix_imports`` is accepted for
    NumPy's signature (Python 3 pickles need nothing).

    >>> xa.save("/tmp/x", xa.arange(3))       # writes /tmp/x.npy
    >>> xa.load("/tmp/x.npy").tolist()
    [0, 1, 2]
    """
    what = f"save: {_name_of(file)}"
    if _is_path(file):
        path = os.fsdecode(file)
        if not path.endswith(".npy"):
            path += ".npy"
        with open(path, "wb", buffering=0) as f:
            _write_npy(f, arr, allow_pickle, what)
        return
    _write_npy(file, arr, allow_pickle, what)


# ---------------------------------------------------------------------- reading .npy
def _check_size(f, nbytes, shape, dtype, what, available=None):
    left = _remaining(f) if available is None else available
    if left is not None and left < nbytes:
        raise ValueError(f"{what}: the header says shape {shape} of {dtype} ({nbytes} "
                         f"bytes) but the file holds {max(left, 0)} data bytes (truncated)")


def _swap_in_place(arr):
    """Reverses each element's bytes (each part's, for complex) in NumPy view ``arr``."""
    size = arr.itemsize // 2 if arr.dtype.kind == "c" else arr.itemsize
    if size > 1:
        arr.view(_BITS[size]).byteswap(inplace=True)


def _read_npy(f, what, allow_pickle, pickle_kwargs, max_header_size, available=None):
    """One array from file object ``f`` at its position (after the header's magic was
    checked by the caller or not at all)."""
    shape, fortran, dtype, swapped = _read_header(f, what, max_header_size)
    if dtype.hasobject:
        if not allow_pickle:
            raise ValueError(f"{what}: object arrays cannot be loaded when "
                             f"allow_pickle=False")
        try:
            return pickle.load(f, **pickle_kwargs)
        except (EOFError, pickle.UnpicklingError) as e:
            raise ValueError(f"{what}: the pickled object array is unreadable: {e}") \
                from None
    ml_only = dtype in _ML_NAME and dtype not in CODE_OF
    if not ml_only and dtype not in CODE_OF:
        raise TypeError(f"{what}: dtype {dtype.str} ({dtype}) is not an xarr dtype"
                        + (" (NumPy writes ml_dtypes arrays as void bytes: read it with "
                           "np.load(f).view(ml_dtypes.bfloat16) or the right type)"
                           if dtype.kind == "V" and dtype.fields is None else
                           "; read it with np.load"))
    nbytes = _nbytes(shape, dtype, what)
    _check_size(f, nbytes, shape, dtype, what,
                None if available is None else available - f.tell())
    code = CODE_OF[_BITS[dtype.itemsize] if ml_only else dtype]
    m2m = tuple(range(len(shape))) if fortran else None
    t = _tensor.empty(shape, code, m2m)
    if nbytes:
        _read_into(f, _bytes_of(t), what, shape, dtype)
    if swapped:
        _swap_in_place(np.asarray(t))
    if ml_only:
        return np.asarray(t).view(dtype)        # no xarr element type: NumPy's view
    return t


def _open_mmap(file, mode, what, max_header_size):
    """A tensor viewing the mapped data of a .npy file (see mmap_mode in the module's
    contracts)."""
    access = {"r": mmap.ACCESS_READ, "r+": mmap.ACCESS_WRITE, "c": mmap.ACCESS_COPY,
              "w+": mmap.ACCESS_WRITE}[mode]
    own = _is_path(file)
    f = open(file, "rb" if mode in ("r", "c") else "r+b") if own else file
    try:
        shape, fortran, dtype, swapped = _read_header(f, what, max_header_size)
        offset = f.tell()
        if dtype.hasobject or swapped or dtype not in CODE_OF:
            raise TypeError(f"{what}: a {dtype} file cannot be memory-mapped as a tensor "
                            f"(object, byte-swapped or non-xarr dtype); load it without "
                            f"mmap_mode")
        nbytes = _nbytes(shape, dtype, what)
        m2m = tuple(range(len(shape))) if fortran else None
        if mode == "w+":
            f.truncate(offset)                      # the data reset to zeros
            f.truncate(offset + nbytes)
        _check_size(f, nbytes, shape, dtype, what)
        if nbytes == 0:
            return _tensor.empty(shape, CODE_OF[dtype], m2m)
        mm = mmap.mmap(f.fileno(), offset + nbytes, access=access)
    finally:
        if own:
            f.close()
    arr = np.frombuffer(mm, dtype=np.uint8, count=nbytes, offset=offset).view(dtype)
    return _tensor.wrap_numpy(arr.reshape(shape, order="F" if fortran else "C"))


class NpzFile(collections.abc.Mapping):
    """The arrays of a .npz file (a zip of .npy files), read when asked for: NumPy's
    NpzFile. ``files`` lists the names, ``z[name]`` reads one (a Tensor; a member that is
    not .npy comes back as its bytes), and ``close()`` / ``with`` release the file.

    >>> with xa.load("/tmp/a.npz") as z:      # written by xa.savez("/tmp/a", x=xa.ones(2))
    ...     z.files, z["x"].tolist()
    (['x'], [1.0, 1.0])
    """

    def __init__(self, fid, own_fid, name, allow_pickle, pickle_kwargs, max_header_size):
        self._what = f"load: {name}"
        self.zip = self.fid = None
        try:
            self.zip = zipfile.ZipFile(fid)
        except zipfile.BadZipFile as e:
            if own_fid:
                fid.close()
            raise ValueError(f"{self._what}: not a readable .npz (zip) file: {e}") from None
        self.fid = fid if own_fid else None
        self._members = {}
        for member in self.zip.namelist():
            key = member[:-4] if member.endswith(".npy") else member
            self._members[key] = member
        self.files = list(self._members)
        self.allow_pickle = allow_pickle
        self.pickle_kwargs = pickle_kwargs
        self.max_header_size = max_header_size

    def __getitem__(self, key):
        if self.zip is None:
            raise ValueError(f"{self._what}: the NpzFile is closed")
        member = self._members.get(key, key if key in self._members.values() else None)
        if member is None:
            raise KeyError(f"{key} is not a file in the archive")
        what = f"{self._what}[{key!r}]"
        info = self.zip.getinfo(member)
        try:
            with self.zip.open(member) as m:
                if not member.endswith(".npy"):
                    return m.read()
                return _read_npy(m, what, self.allow_pickle, self.pickle_kwargs,
                                 self.max_header_size, available=info.file_size)
        except zipfile.BadZipFile as e:
            raise ValueError(f"{what}: the archive member is corrupt: {e}") from None

    def __iter__(self):
        return iter(self.files)

    def __len__(self):
        return len(self.files)

    def __contains__(self, key):
        return key in self._members or key in self._members.values()

    def close(self):
        """Closes the archive (and the file, when ``load`` opened it)."""
        if self.zip is not None:
            self.zip.close()
            self.zip = None
        if self.fid is not None:
            self.fid.close()
            self.fid = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def __repr__(self):
        return f"NpzFile({self._what[6:]}, files={self.files})"


def load(file, mmap_mode=None, allow_pickle=False, fix_imports=True, encoding="ASCII", *,
         max_header_size=10000):
    """Loads a .npy file (a Tensor), a .npz file (a lazy NpzFile) or, with
    ``allow_pickle=True``, a pickle file, from a path or a binary file object.

    ``mmap_mode`` ('r', 'r+', 'c', 'w+') maps a .npy file instead of reading it: the
    Tensor views the mapped pages (see the module's contracts). ``allow_pickle`` (default
    False) is needed for object arrays and pickle files; ``fix_imports`` and ``encoding``
    ('ASCII', 'latin1' or 'bytes') are passed to pickle for Python 2 pickles. Headers
    longer than ``max_header_size`` bytes are refused. Errors: see the module's contracts.

    >>> np.save("/tmp/n.npy", np.arange(4.0).reshape(2, 2))
    >>> xa.load("/tmp/n.npy").xla_shape
    Shape('f64[2,2]{1,0}')
    """
    what = f"load: {_name_of(file)}"
    if encoding not in ("ASCII", "latin1", "bytes"):
        raise ValueError(f"{what}: encoding must be 'ASCII', 'latin1' or 'bytes', got "
                         f"{encoding!r}")
    if mmap_mode not in (None, "r", "r+", "c", "w+"):
        raise ValueError(f"{what}: mmap_mode must be None, 'r', 'r+', 'c' or 'w+', got "
                         f"{mmap_mode!r}")
    pickle_kwargs = {"encoding": encoding, "fix_imports": fix_imports}
    own = _is_path(file)
    f = open(file, "rb", buffering=0) if own else file
    keep_open = False
    try:
        start = f.tell()
        magic = _read_exact(f, len(MAGIC))
        f.seek(start)
        if magic.startswith(_ZIP_PREFIXES):
            keep_open = True                        # the NpzFile owns it now
            return NpzFile(f, own, _name_of(file), allow_pickle, pickle_kwargs,
                           max_header_size)
        if magic == MAGIC:
            if mmap_mode is not None:
                return _open_mmap(file if own else f, mmap_mode, what, max_header_size)
            return _read_npy(f, what, allow_pickle, pickle_kwargs, max_header_size)
        if not magic:
            raise EOFError(f"{what}: no data left in the file (it is empty)")
        if not allow_pickle:
            raise ValueError(f"{what}: not a .npy / .npz file (it starts with {magic!r}); "
                             f"if it is a pickle you trust, pass allow_pickle=True")
        try:
            return pickle.load(f, **pickle_kwargs)
        except Exception as e:  # noqa: BLE001 - any unpickling failure: one clear error
            raise ValueError(f"{what}: not a .npy / .npz file, and unpickling it failed: "
                             f"{type(e).__name__}: {e}") from None
    finally:
        if own and not keep_open:
            f.close()


# ---------------------------------------------------------------------- .npz
def _savez(file, args, kwds, compress, allow_pickle, op):
    what = f"{op}: {_name_of(file)}"
    named = dict(kwds)
    for i, arr in enumerate(args):
        key = f"arr_{i}"
        if key in named:
            raise ValueError(f"{what}: cannot use un-named variables and keyword {key}")
        named[key] = arr
    if _is_path(file):
        file = os.fsdecode(file)
        if not file.endswith(".npz"):
            file += ".npz"
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(file, mode="w", compression=method, allowZip64=True) as zf:
        for key, arr in named.items():
            with zf.open(key + ".npy", "w", force_zip64=True) as member:
                _write_npy(member, arr, allow_pickle, f"{what}[{key!r}]")


def savez(file, *args, allow_pickle=True, **kwds):
    """Saves several arrays into one uncompressed .npz file: positional ones as
    ``arr_0``, ``arr_1`` ..., keyword ones under their names (".npz" is appended to a path
    that does not end so). Each member is a .npy file written as ``save`` writes.

    >>> xa.savez("/tmp/a", xa.ones(2), y=xa.zeros(3))
    >>> sorted(xa.load("/tmp/a.npz").files)
    ['arr_0', 'y']
    """
    _savez(file, args, kwds, False, allow_pickle, "savez")


def savez_compressed(file, *args, allow_pickle=True, **kwds):
    """``savez`` with each member deflate-compressed (zipfile.ZIP_DEFLATED)."""
    _savez(file, args, kwds, True, allow_pickle, "savez_compressed")


# ---------------------------------------------------------------------- raw and text
def fromfile(file, dtype=float, count=-1, sep="", offset=0, *, like=None):
    """A 1-D tensor from a file's raw bytes (``sep=''``) or from text items separated by
    ``sep``: NumPy's fromfile. ``offset`` bytes are skipped from the file's position
    (binary files only); ``count`` items are read (-1: all). Unlike NumPy, too few bytes
    for ``count`` items, or a trailing partial item, raise ValueError instead of returning
    short data. Text is parsed by NumPy (as float64 / complex128 for bfloat16, then
    converted).

    >>> xa.arange(4, dtype=xa.int16).tofile("/tmp/r.bin")
    >>> xa.fromfile("/tmp/r.bin", xa.int16, count=3, offset=2).tolist()
    [1, 2, 3]
    """
    what = f"fromfile: {_name_of(file)}"
    dt = as_dtype(dtype)
    if sep:
        parse = dt if dt != as_dtype("bfloat16") else np.dtype(np.float64)
        if offset:
            raise ValueError(f"{what}: offset is only supported for binary files (sep='')")
        return asarray(np.fromfile(file, parse, count, sep)).astype(dt, copy=False)
    own = _is_path(file)
    f = open(file, "rb", buffering=0) if own else file
    try:
        if offset:
            f.seek(offset, os.SEEK_CUR)
        left = _remaining(f)
        if count < 0:
            if left is None:
                data = f.read()
                left, f = len(data), io.BytesIO(data)
            if left % dt.itemsize:
                raise ValueError(f"{what}: {left} bytes are not a whole number of {dt} "
                                 f"items ({dt.itemsize} bytes each)")
            count = left // dt.itemsize
        t = _tensor.empty((count,), CODE_OF[dt])
        _check_size(f, t.nbytes, (count,), dt, what, left)
        if count:
            _read_into(f, _bytes_of(t), what, (count,), dt)
        return t
    finally:
        if own:
            f.close()


def tofile(t, fid, sep="", format="%s"):  # noqa: A002  (NumPy's name)
    """Writes tensor ``t`` to ``fid`` (a path or a file object), always in C order: its raw
    bytes (``sep=''``; no header, so dtype and shape are not kept), or text items
    ``format % item`` joined by ``sep`` (NumPy's ndarray.tofile; items are Python scalars,
    as NumPy's ``item()`` gives).

    >>> xa.asarray([1.5, 2.0]).tofile("/tmp/t.txt", sep=",")     # 1.5,2.0
    """
    t = asarray(np.asarray(t)) if isinstance(t, Traced) else asarray(t)  # (lazy: its value)
    own = _is_path(fid)
    f = open(fid, "wb", buffering=0) if own else fid
    try:
        if sep:
            text = sep.join(format % v for v in np.asarray(t).ravel().tolist())
            f.write(text.encode("latin1") if not isinstance(f, io.TextIOBase) else text)
        else:
            _write_data(f, _tensor.strided(t), False)
    finally:
        if own:
            f.close()


def loadtxt(fname, dtype=float, comments="#", delimiter=None, converters=None, skiprows=0,
            usecols=None, unpack=False, ndmin=0, encoding=None, max_rows=None, *,
            quotechar=None, like=None):
    """A tensor from a text table: NumPy's loadtxt parses the text (bfloat16 as float64,
    then converted), and the result becomes a tensor (with ``unpack=True`` the transposed
    table, whose rows unpack, as NumPy's).

    >>> xa.loadtxt(io.StringIO("1 2\\n3 4")).tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    dt = as_dtype(dtype)
    parse = dt if dt != as_dtype("bfloat16") else np.dtype(np.float64)
    arr = np.loadtxt(fname, parse, comments, delimiter, converters, skiprows, usecols,
                     unpack, ndmin, encoding, max_rows, quotechar=quotechar)
    return asarray(arr).astype(dt, copy=False)


def savetxt(fname, X, fmt="%.18e", delimiter=" ", newline="\n", header="", footer="",
            comments="# ", encoding=None):
    """Writes a 1-D or 2-D tensor as a text table: NumPy's savetxt formats the values of
    a zero-copy NumPy view (tiled tensors: of a strided copy).

    >>> xa.savetxt("/tmp/s.txt", xa.eye(2), fmt="%d")     # "1 0\\n0 1\\n"
    """
    if isinstance(X, (Tensor, Traced)):
        X = np.asarray(X)
    np.savetxt(fname, X, fmt, delimiter, newline, header, footer, comments, encoding)


register(tofile=tofile)
