# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: embedsignature=True
# distutils: language = c++
"""The tensor core (Cython): the Tensor type, allocation, views, conversions, the buffer
protocol, basic indexing and the operators' compiled fast paths.

A Tensor is a view onto memory: a data pointer, dims, BYTE strides and an element type,
plus whatever keeps the memory alive (its own 64-byte aligned allocation, a parent
tensor, a NumPy array or a DLPack producer). Its layout (xa.Layout) is derived from its
strides, except for tensors created with a padded or tiled layout, which remember it:
a tiled tensor's bytes are in tile order, not strided, and every op first relayouts it.

What lives here and why: what runs on every user call (operator dispatch, allocation,
basic indexing, conversion to Python scalars), where interpreter overhead dominates. The
kernel families' bindings are the modules of xarr/_bindings/, which cimport this module's
C-level helpers (xarr/_tensor.pxd). Rules (promotion, broadcasting, op definitions) live
in Python (xarr/_ops); the slow paths reach them through xarr/_dispatch.py's entry points.
"""

cimport cython
from libc.stdint cimport int64_t, uint64_t, uintptr_t
from libc.math cimport INFINITY
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.object cimport PyTypeObject
from cpython.ref cimport Py_INCREF, PyObject
from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.slice cimport PySlice_AdjustIndices, PySlice_Unpack
from libc.string cimport memcpy, memset

from xarr._capi cimport (NOGIL_MIN_ELEMENTS, aligned_alloc64, aligned_free,
                         cached_memory_bytes, copy_strided, dtype_itemsize, dtype_kind,
                         ew_convert, ew_has_loop, ew_run, ew_run_contiguous, kBF16, kC128, kF16, kF32, kF64, kC64,
                         kMaxArgs, kMaxDims, kNumDTypes, kParCopy, kPred, kS32, kS64, kU64,
                         parallel_min, release_cached_memory)

import os

import numpy as np

from xarr import _methods
from xarr._dispatch import FAST_SLOTS, api
from xarr._dtypes import CODE_OF, DTYPES, XLA_NAMES, as_dtype
from xarr._shape import Layout, Shape

cdef extern from "core/dlpack.h":
    int kDLCPU


cdef list _DTYPE_OBJ = list(DTYPES)
cdef dict _CODE_OF = dict(CODE_OF)
# The Array API versions __array_namespace__ accepts (Tensor's and the graph's Traced's).
ARRAY_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")
# ... and the scalar types people pass as dtypes (t.astype(np.float64), dtype=float):
# a dict hit instead of as_dtype's np.dtype() construction (1.5 us an astype).
_CODE_OF.update({t: CODE_OF[as_dtype(t)] for t in (bool, int, float, complex)})
_CODE_OF.update({dt.type: c for dt, c in CODE_OF.items()})
cdef tuple _XLA = tuple(XLA_NAMES)

include "_tensor_numpy.pxi"

# The operators' compiled fast path (xarr/_tensor_fastpaths.pxi): for operator slot k
# (xarr/_dispatch.py FAST_SLOTS) and dtype d, _fast_kernel[k * kNumDTypes + d] is the
# elementwise kernel op and _fast_out[...] the result dtype when same-dtype C-contiguous
# operands may skip the Python rules; -1 otherwise. Filled by the elementwise family,
# which owns the rules (register_fast_paths).
cdef enum:
    MAX_FAST_SLOTS = 48
cdef int _fast_kernel[MAX_FAST_SLOTS * kNumDTypes]
cdef signed char _fast_out[MAX_FAST_SLOTS * kNumDTypes]
memset(_fast_out, -1, sizeof(_fast_out))
# Non-zero inside ``with xa.lazy():`` - operators then skip the fast paths so the frontend
# records them into the lazy graph (xarr/_graph/lazy.py).
cdef int _lazy_depth = 0
# True while lazy values may be pending (xarr/_graph/trace.py sets it when one is made and
# clears it once they are computed): the write fast paths then defer to the frontend.
cdef bint _lazy_pending = False


cdef bint in_lazy():
    return _lazy_depth != 0


def lazy_active():
    """Whether a ``with xa.lazy():`` block is open (frontend fast paths step aside)."""
    return _lazy_depth != 0


def set_lazy_pending(bint pending):
    global _lazy_pending
    _lazy_pending = pending


def set_lazy_depth(int depth):
    global _lazy_depth
    _lazy_depth = depth


def release_memory_cache():
    """Returns cached large blocks to the system; the number of bytes released."""
    return release_cached_memory()


def memory_cache_bytes():
    """Bytes currently held in the large-block cache."""
    return cached_memory_bytes()


def register_fast_paths(entries):
    """Called once by xarr._ops.elementwise: (slot, dtype, kernel op, result dtype) rows
    where an operator (FAST_SLOTS[slot]) on same-dtype C-contiguous operands gives
    exactly what the frontend's rules give by running that one kernel."""
    memset(_fast_out, -1, sizeof(_fast_out))
    if len(FAST_SLOTS) > MAX_FAST_SLOTS:
        raise ValueError("register_fast_paths: too many operator slots")
    for slot, dt, op, out in entries:
        if ew_has_loop(op, dt):
            _fast_kernel[slot * kNumDTypes + dt] = op
            _fast_out[slot * kNumDTypes + dt] = out


cdef inline int _dtype_code_of(object dtype) except -1:
    try:
        return _CODE_OF[dtype]
    except (KeyError, TypeError):
        return _CODE_OF[as_dtype(dtype)]


include "_tensor_whole.pxi"
include "_tensor_numpy_dispatch.pxi"


# TensorOperators, Tensor's base class: its operators, written by CMake from the tables of
# xarr/_dispatch.py (the graph's Traced gets the same ones from there).
include "_tensor_operator_methods.pxi"


@cython.final
cdef class Tensor(TensorOperators):
    """An n-dimensional array with an explicit XLA shape and layout.

    Create tensors with ``xa.asarray``, ``xa.zeros``, ``xa.arange`` ...; the constructor is
    not public. ``t.xla_shape`` prints as HLO text, e.g. ``f32[2,3]{1,0}``.
    (Fields: xarr/_tensor.pxd.)
    """
    __array_priority__ = 100

    # NumPy-style methods (t.sum(axis=0) ...): one definition each, in xarr/_methods.py
    # (the whole-tensor reductions try _tensor_whole.pxi's kernel path first).
    sum = _method_sum
    prod = _methods.prod
    mean = _methods.mean
    var = _methods.var
    std = _methods.std
    max = _method_max
    min = _method_min
    argmax = _method_argmax
    argmin = _method_argmin
    any = _method_any
    all = _method_all
    cumsum = _methods.cumsum
    cumprod = _methods.cumprod
    ravel = _methods.ravel
    flatten = _methods.flatten
    squeeze = _methods.squeeze
    swapaxes = _methods.swapaxes
    clip = _methods.clip
    round = _methods.round
    nonzero = _methods.nonzero
    repeat = _methods.repeat
    take = _methods.take
    conj = _methods.conj
    searchsorted = _methods.searchsorted
    sort = _methods.sort
    argsort = _methods.argsort
    at = _methods.at
    to_device = _methods.to_device
    tofile = _methods.tofile
    fill = _methods.fill
    dot = _methods.dot
    trace = _methods.trace
    diagonal = _methods.diagonal

    # The matrix product (_methods.MATMUL_OPERATORS; slots are defined in the class body).
    def __matmul__(self, other):
        return _methods.__matmul__(self, other)

    def __rmatmul__(self, other):
        return _methods.__rmatmul__(self, other)

    def __imatmul__(self, other):
        return _methods.__imatmul__(self, other)

    def __array_namespace__(self, *, api_version=None):
        """The Array API namespace: the xarr module."""
        if api_version is not None and api_version not in ARRAY_API_VERSIONS:
            raise ValueError(f"__array_namespace__: unsupported api_version {api_version!r}")
        return api.namespace()
    __array_ufunc__ = _array_ufunc                      # NEP 13 / 18: NumPy calls on
    __array_function__ = _methods.__array_function__    # tensors run xarr's functions

    def __init__(self, *args, **kwargs):
        raise TypeError("xarr.Tensor cannot be constructed directly; use xa.asarray, "
                        "xa.zeros, xa.empty, ...")

    def __dealloc__(self):
        if self._alloc != NULL:
            aligned_free(self._alloc, self._buf_nbytes)
            self._alloc = NULL

    # ------------------------------------------------------------------ properties
    @property
    def shape(self):
        """The dims as a tuple, NumPy style."""
        return shape_of(self)

    @property
    def dtype(self):
        """The element type (a NumPy dtype object; bfloat16 comes from ml_dtypes)."""
        return _DTYPE_OBJ[self._dtype]

    @property
    def ndim(self):
        return self._ndim

    @property
    def size(self):
        return self._size

    @property
    def itemsize(self):
        return dtype_itemsize(self._dtype)

    @property
    def nbytes(self):
        return self._size * dtype_itemsize(self._dtype)

    @property
    def strides(self):
        """Byte strides per dim (NumPy convention). A tiled tensor has no strides."""
        if self._flags & F_TILED:
            raise AttributeError("a tiled tensor has no strides; relayout it first")
        return tuple([self._strides[i] for i in range(self._ndim)])

    @property
    def flags(self):
        return {"C_CONTIGUOUS": bool(self._flags & F_C_CONTIG),
                "F_CONTIGUOUS": _f_contiguous(self),
                "WRITEABLE": bool(self._flags & F_WRITEABLE),
                "TILED": bool(self._flags & F_TILED),
                "OWNDATA": self._alloc != NULL}

    @property
    def _address(self):
        """The address of element [0, ..., 0] (of the buffer for a tiled tensor)."""
        return <uintptr_t>self._data

    @property
    def _xla_element_type(self):
        return _XLA[self._dtype]

    @property
    def _explicit_layout(self):
        return self._layout

    @property
    def layout(self):
        """The xa.Layout: the remembered padded/tiled layout, else derived from strides."""
        if self._layout is not None:
            return self._layout
        return Layout(minor_to_major_of(self))

    @property
    def xla_shape(self):
        """The xa.Shape, printing as HLO text: ``f32[2,3]{1,0}``."""
        return Shape(_XLA[self._dtype], shape_of(self), self.layout)

    @property
    def T(self):
        """The transpose (reversed dims) as a view."""
        cdef Tensor src = as_strided(self)
        cdef Tensor out = view_of(src)
        cdef int n = src._ndim, i
        for i in range(n):
            out._dims[i] = src._dims[n - 1 - i]
            out._strides[i] = src._strides[n - 1 - i]
        finish_view(out, n)
        return out

    @property
    def mT(self):
        if self._ndim < 2:
            raise ValueError(f"mT requires ndim >= 2, got shape {shape_of(self)}")
        cdef int n = self._ndim
        perm = list(range(n))
        perm[n - 1], perm[n - 2] = perm[n - 2], perm[n - 1]
        return self.transpose(perm)

    @property
    def real(self):
        """The real parts as a view, as NumPy's ``a.real`` (writing it writes the tensor);
        a real tensor's view of itself."""
        return self._part(0)

    @property
    def imag(self):
        """The imaginary parts of a complex tensor as a view; zeros for a real one."""
        if dtype_kind(self._dtype) != b'c'[0]:
            return api.numpy_apply("imag", self)
        return self._part(1)

    cdef Tensor _part(self, int which):
        """View of the real (0) or imaginary (1) parts: the same strides over the part's
        dtype, the imaginary parts one element in. A tiled tensor's part comes from its
        (read-only) strided copy."""
        cdef Tensor src = as_strided(self)
        cdef Tensor out = view_of(src)
        cdef int i
        if dtype_kind(src._dtype) == b'c'[0]:
            out._dtype = kF32 if src._dtype == kC64 else kF64
            out._data = src._data + which * dtype_itemsize(out._dtype)
        for i in range(src._ndim):
            out._dims[i] = src._dims[i]
            out._strides[i] = src._strides[i]
        finish_view(out, src._ndim)
        return out

    @property
    def device(self):
        return "cpu"

    # ------------------------------------------------------------------ views
    @cython.binding(False)     # a method descriptor: no argument tuples per call
    def transpose(self, *axes):
        """A view with dims permuted (``axes`` like NumPy; none reverses them)."""
        cdef Tensor src = as_strided(self)
        cdef int n = src._ndim, i, a
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        if axes is None or len(axes) == 0:
            perm = list(range(n - 1, -1, -1))
        else:
            perm = [int(a_) for a_ in axes]
        if len(perm) != n:
            raise ValueError(f"transpose: axes {tuple(perm)} don't match a tensor of rank {n}")
        seen = [False] * n
        for i in range(n):
            a = perm[i]
            if a < -n or a >= n:
                raise ValueError(f"transpose: axis {a} is out of range for rank {n}")
            if a < 0:
                a += n
            if seen[a]:
                raise ValueError(f"transpose: axes {tuple(perm)} repeat axis {a}")
            seen[a] = True
            perm[i] = a
        cdef Tensor out = view_of(src)
        for i in range(n):
            out._dims[i] = src._dims[perm[i]]
            out._strides[i] = src._strides[perm[i]]
        finish_view(out, n)
        return out

    def storage(self):
        """A 1-D tensor over the whole physical buffer, padding included, in memory order.

        ``xa.asarray([[1, 2, 3], [4, 5, 6]], layout=(0, 1)).storage()`` holds 1 4 2 5 3 6.
        """
        cdef Tensor out = Tensor.__new__(Tensor)
        out._owner = self if self._alloc != NULL else self._owner
        out._data = self._buf
        out._dtype = self._dtype
        out._ndim = 1
        out._dims[0] = self._buf_nbytes // dtype_itemsize(self._dtype)
        out._strides[0] = dtype_itemsize(self._dtype)
        out._buf = self._buf
        out._buf_nbytes = self._buf_nbytes
        out._flags = self._flags & F_WRITEABLE
        finish_view(out, 1)
        return out

    # ------------------------------------------------------------------ conversions
    def __len__(self):
        if self._ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._dims[0]

    def __iter__(self):
        """The rows, as NumPy iterates: views of the sub-tensors, or NumPy scalars for a
        1-d tensor."""
        if self._ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return _Rows(as_strided(self))

    @cython.binding(False)     # a method descriptor: no argument tuples per call
    def item(self, *args):
        """The single element as a Python scalar; ``item(i)`` takes a flat index and
        ``item(i, j, ...)`` a multi-index, as NumPy's."""
        if args:
            return self.__array__().item(*args)
        if self._size != 1:
            raise ValueError(f"item(): can only convert a tensor of size 1, "
                             f"got shape {shape_of(self)}")
        if not (self._flags & F_TILED):
            v = item_in_place(self)
            if v is not None:
                return v
        v = self._single("item")
        k = dtype_kind(self._dtype)            # (NumPy's scalar .item() costs ~0.3 us)
        if k == b'f'[0]:
            return float(v)
        if k == b'i'[0] or k == b'u'[0]:
            return int(v)
        if k == b'b'[0]:
            return bool(v)
        return complex(v)

    def tolist(self):
        """Nested Python lists of Python scalars (NumPy's tolist). MemoryError up front
        when the Python objects (~32 bytes per element) could not fit in this machine's
        memory."""
        need = 32 * self._size
        if need > (1 << 30) and need > _physical_memory():   # (asks the OS for big ones only)
            raise MemoryError(f"tolist: a tensor of shape {shape_of(self)} has {self._size} "
                              f"elements; as Python objects they need about "
                              f"{_human_bytes(need)}, more than this machine's memory "
                              f"({_human_bytes(_physical_memory())})")
        if self._ndim == 1 and not (self._flags & F_TILED):
            short = tolist_1d(self)
            if short is not None:
                return short
        return self.__array__().tolist()

    def __bool__(self):
        if self._size != 1:
            raise ValueError(f"the truth value of a tensor with {self._size} elements is "
                             f"ambiguous; use xa.any() or xa.all()")
        return bool(self._single("bool"))

    def __int__(self):
        return int(self._single("int"))

    def __float__(self):
        return float(self._single("float"))

    def __complex__(self):
        return complex(self._single("complex"))

    def __index__(self):
        if dtype_kind(self._dtype) not in (b'i'[0], b'u'[0]):
            raise TypeError(f"only integer tensors can be used as an index, got "
                            f"{_DTYPE_OBJ[self._dtype]}")
        return int(self._single("index"))

    cdef object _single(self, str what):
        """The NumPy scalar of a size-1 tensor (the conversions to Python scalars)."""
        cdef Tensor src = self
        if self._size != 1:
            raise TypeError(f"only size-1 tensors can be converted to Python {what}, "
                            f"got shape {shape_of(self)}")
        if self._flags & F_TILED:
            src = as_strided(self)
        return scalar_at(src._dtype, src._data)

    def copy(self):
        """A new C-contiguous tensor with the same values."""
        return copy_dense_of(self, None)

    def astype(self, dtype, copy=True):
        """The values converted to ``dtype`` (ConvertElementType rules, see SPEC.md)."""
        cdef int code = _dtype_code_of(dtype)
        cdef Tensor out
        if code == self._dtype and not copy:
            return self
        if _lazy_depth == 0 and not (self._flags & F_TILED):   # eager: the kernel directly,
            out = alloc_tensor(code, self._ndim, self._dims, result_m2m(self), False)
            if out._size:                                        # laid out as the frontend
                convert_into(out, self)                          # lays out (api.astype)
            return out
        return api.astype(self, code)

    def relayout(self, layout):
        """A copy stored with ``layout`` (xa.Layout, HLO text like '{0,1}', or a
        minor_to_major tuple)."""
        return api.relayout(self, layout)

    @cython.binding(False)     # a method descriptor: no argument tuples per call
    def reshape(self, *shape, order="C"):
        """Reshape in row-major (``order='C'``) or column-major (``order='F'``) index
        order; a view when the strides allow it."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        if order == "F":
            return api.reshape(self.transpose(), tuple(shape)[::-1]).transpose()
        if order != "C":
            raise ValueError(f"reshape: order must be 'C' or 'F', got {order!r}")
        return _reshape(self, shape)

    def __array__(self, dtype=None, copy=None):
        """A NumPy array sharing this tensor's memory (strided layouts; tiled tensors and
        ``copy=True`` copy)."""
        cdef Tensor src = self
        if self._flags & F_TILED:
            if copy is False:
                raise ValueError("a tiled tensor cannot be exported without a copy")
            src = as_strided(self)
        Py_INCREF(_DTYPE_OBJ[src._dtype])                     # stolen by NewFromDescr
        arr = PyArray_NewFromDescr(&PyArray_Type, <PyArray_Descr*>_DESCR[src._dtype],
                                   src._ndim, <npy_intp*>src._dims,
                                   <npy_intp*>src._strides, src._data,
                                   NPY_ARRAY_WRITEABLE if src._flags & F_WRITEABLE else 0,
                                   None)
        Py_INCREF(src)                                              # stolen as the base
        PyArray_SetBaseObject(<PyArrayObject*>arr, src)
        if dtype is not None and np.dtype(dtype) != arr.dtype:
            if copy is False:
                raise ValueError(f"__array__: converting {arr.dtype} to {dtype} needs a copy")
            return arr.astype(dtype)
        if copy:
            return arr.copy()
        return arr

    def __repr__(self):
        arr = self.__array__()
        body = np.array2string(arr, separator=", ", prefix="Tensor(", threshold=1000)
        return f"Tensor({body}, shape={self.xla_shape})"

    def __str__(self):
        return str(self.__array__())

    def __format__(self, spec):
        if self._ndim == 0:
            return format(self.item(), spec)
        return format(str(self), spec)

    # ------------------------------------------------------------------ buffer protocol
    def __getbuffer__(self, Py_buffer* view, int flags):
        cdef Tensor src = self
        if self._flags & F_TILED:
            raise BufferError("a tiled tensor has no strided buffer; relayout it first")
        fmt = _BUFFER_FORMATS[self._dtype]
        if fmt is None:
            raise BufferError(f"{_DTYPE_OBJ[self._dtype]} has no buffer-protocol format; "
                              f"use np.asarray(t) or DLPack")
        if (flags & 0x0001) and not (self._flags & F_WRITEABLE):   # PyBUF_WRITABLE
            raise BufferError("the tensor is read-only")
        # PyBUF_STRIDES (0x18) absent: the consumer needs C-contiguous memory; an explicit
        # C/F/ANY_CONTIGUOUS request (0x20/0x40/0x80) is honoured only when C-contiguous.
        if ((flags & 0x0018) != 0x0018 or (flags & 0x00e0)) and \
                not (self._flags & F_C_CONTIG):
            raise BufferError("the tensor is not C-contiguous; the consumer asked for a "
                              "contiguous buffer (use t.copy())")
        view.buf = self._data
        view.obj = self
        view.len = self._size * dtype_itemsize(self._dtype)
        view.readonly = 0 if (self._flags & F_WRITEABLE) else 1
        view.itemsize = dtype_itemsize(self._dtype)
        view.format = NULL
        if flags & 0x0004:                                        # PyBUF_FORMAT
            view.format = fmt
        view.ndim = self._ndim
        view.shape = NULL
        if flags & 0x0008:                                        # PyBUF_ND
            view.shape = <Py_ssize_t*>self._dims
        view.strides = NULL
        if (flags & 0x0010) == 0x0010:                            # PyBUF_STRIDES
            view.strides = <Py_ssize_t*>self._strides
        view.suboffsets = NULL
        view.internal = NULL

    def __releasebuffer__(self, Py_buffer* view):
        pass

    # ------------------------------------------------------------------ DLPack
    def __dlpack_device__(self):
        return (kDLCPU, 0)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Export as a DLPack capsule (zero-copy for strided layouts)."""
        if dl_device is not None and tuple(dl_device) != (kDLCPU, 0):
            raise BufferError(f"__dlpack__: xarr tensors live on the CPU, not {dl_device}")
        cdef Tensor src = self
        if copy or (self._flags & F_TILED):
            if copy is False:
                raise BufferError("a tiled tensor cannot be exported without a copy")
            src = copy_dense_of(self, None)
        versioned = max_version is not None and tuple(max_version) >= (1, 0)
        return api.dlpack_capsule(src, versioned)

    # ------------------------------------------------------------------ indexing
    def __getitem__(self, key):
        return _getitem(self, key, True)

    def __setitem__(self, key, value):
        if not _setitem_fast(self, key, value):
            api.setitem(self, key, value)

    __hash__ = None

    def __reduce__(self):
        layout = self._layout
        if layout is None and not (self._flags & F_C_CONTIG):
            layout = self.layout
        return (_rebuild, (self.__array__().copy(), layout))

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()


def _rebuild(arr, layout):
    t = wrap_numpy(arr)
    if layout is not None:
        return t.relayout(layout)
    return t


# The buffer protocol's format per dtype code. 64-bit integers are C long where long is 64
# bits: NumPy reads "l" as np.int64 and "q" as np.longlong, a distinct scalar type, so
# np.asarray(t)[0] of an int64 tensor would not be an np.int64 (Linux, macOS).
_INT64_FORMAT, _UINT64_FORMAT = (b"l", b"L") if sizeof(long) == 8 else (b"q", b"Q")
_BUFFER_FORMATS = [b"?", b"b", b"h", b"i", _INT64_FORMAT, b"B", b"H", b"I", _UINT64_FORMAT,
                   b"e", None, b"f", b"d", b"Zf", b"Zd"]


# ---------------------------------------------------------------------- construction
cdef int finish_view(Tensor t, int ndim) except -1:
    """Sets ndim, size, the shape tuple and the C-contiguous flag from dims/strides.
    ValueError when the element count does not fit in int64 (a broadcast view of shape
    (2**32, 2**32) would wrap to size 0 and fool every size-based check after it)."""
    cdef int i, j
    cdef int64_t size = 1, expect = dtype_itemsize(t._dtype)
    cdef int64_t big = 0x7fffffffffffffff
    cdef bint c = True
    t._ndim = ndim
    for i in range(ndim):
        if t._dims[i] < 0:
            raise ValueError(f"negative dimension {t._dims[i]} in shape "
                             f"{tuple([t._dims[j] for j in range(ndim)])}")
        if t._dims[i] == 0:
            size = 0
            break
    if size != 0:
        for i in range(ndim):
            # (two factors below 2**31 cannot overflow: no division on the common path)
            if ((t._dims[i] | size) >> 31) and t._dims[i] > big // size:
                raise ValueError(f"tensor of shape {tuple([t._dims[j] for j in range(ndim)])}"
                                 f" is too big: more than 2**63 - 1 elements")
            size *= t._dims[i]
    for i in range(ndim - 1, -1, -1):
        if size == 0:
            break
        if t._dims[i] != 1 and t._strides[i] != expect:
            c = False
            break
        if ((t._dims[i] | expect) >> 31) and t._dims[i] > big // expect:
            # more bytes than int64 holds (a broadcast view): no outer stride can match
            for j in range(i):
                if t._dims[j] != 1:
                    c = False
            break
        expect *= t._dims[i]
    t._size = size
    t._shape_memo = None                               # (shape_of builds it)
    if c and size > 0:
        t._flags |= F_C_CONTIG
    elif size == 0:
        t._flags |= F_C_CONTIG
    else:
        t._flags &= ~F_C_CONTIG
    return 0


cdef Tensor view_of(Tensor base):
    """A new Tensor sharing base's memory (dims/strides to be filled by the caller)."""
    cdef Tensor out = Tensor.__new__(Tensor)
    out._owner = base if base._alloc != NULL else base._owner
    out._data = base._data
    out._dtype = base._dtype
    out._flags = base._flags & F_WRITEABLE
    out._buf = base._buf
    out._buf_nbytes = base._buf_nbytes
    return out


include "_tensor_alloc.pxi"


def set_strides(Tensor t, strides, bint tiled):
    """Internal: sets byte strides (padded layouts) or marks the tensor tiled."""
    cdef int i
    if tiled:
        t._flags |= F_TILED
        t._flags &= ~F_C_CONTIG
        return
    for i in range(t._ndim):
        t._strides[i] = strides[i]
    finish_view(t, t._ndim)


def as_strided_view(Tensor base, shape, strides, int64_t offset_bytes, bint readonly=False):
    """Internal: a view of ``base``'s memory with the given shape/byte strides/offset. The
    caller guarantees the view stays inside the buffer. Broadcast views (stride 0) are
    made read-only, as NumPy does."""
    cdef Tensor out = view_of(base)
    cdef int n = fill_dims(shape, out._dims), i
    for i in range(n):
        out._strides[i] = strides[i]
    out._data = base._data + offset_bytes
    if readonly:
        out._flags &= ~F_WRITEABLE
    finish_view(out, n)
    return out


def wrap_numpy(arr):
    """A Tensor viewing a NumPy array's memory (zero-copy, any strides)."""
    if not isinstance(arr, np.ndarray):
        arr = np.asarray(arr)
    cdef int code = _dtype_code_of(arr.dtype)
    cdef Tensor t = Tensor.__new__(Tensor)
    cdef int i, n = arr.ndim
    cdef int64_t lo = 0, hi = 0, st
    iface = arr.__array_interface__
    t._owner = arr
    t._data = <char*><uintptr_t>iface["data"][0]
    t._dtype = code
    t._flags = F_WRITEABLE if arr.flags.writeable else 0
    if n > kMaxDims:
        raise ValueError(f"xarr supports at most {kMaxDims} dims, got {n}")
    shp = arr.shape
    strd = arr.strides
    for i in range(n):
        t._dims[i] = shp[i]
        st = strd[i]
        t._strides[i] = st
        if shp[i] > 0:
            if st > 0:
                hi += st * (shp[i] - 1)
            else:
                lo += st * (shp[i] - 1)
    finish_view(t, n)
    t._buf = t._data + lo
    t._buf_nbytes = (hi - lo + dtype_itemsize(code)) if t._size > 0 else 0
    return t


def is_tiled(Tensor t):
    return bool(t._flags & F_TILED)


cdef bint buffers_overlap(Tensor a, Tensor b):
    cdef int64_t alo, ahi, blo, bhi
    if a._size == 0 or b._size == 0:
        return False
    extent_of(a, &alo, &ahi)
    extent_of(b, &blo, &bhi)
    return alo < bhi and blo < ahi


def shares_buffer(Tensor a, Tensor b):
    """True when the two tensors' memory ranges overlap (conservative)."""
    return buffers_overlap(a, b)


def same_view(Tensor a, Tensor b):
    """True when both tensors view exactly the same elements in the same places."""
    cdef int i
    if a._data != b._data or a._ndim != b._ndim or a._dtype != b._dtype:
        return False
    for i in range(a._ndim):
        if a._dims[i] != b._dims[i]:
            return False
        if a._dims[i] > 1 and a._strides[i] != b._strides[i]:
            return False
    return True


cdef void extent_of(Tensor t, int64_t* lo, int64_t* hi):
    cdef int64_t l = 0, h = 0
    cdef int i
    if t._flags & F_TILED:
        lo[0] = <int64_t><uintptr_t>t._buf
        hi[0] = lo[0] + t._buf_nbytes
        return
    for i in range(t._ndim):
        if t._strides[i] > 0:
            h += t._strides[i] * (t._dims[i] - 1)
        else:
            l += t._strides[i] * (t._dims[i] - 1)
    lo[0] = <int64_t><uintptr_t>t._data + l
    hi[0] = <int64_t><uintptr_t>t._data + h + dtype_itemsize(t._dtype)


def minor_to_major_of(Tensor t):
    """The minor_to_major order implied by the strides.

    Dims sort by |stride|, smallest (most minor) first; a size-1 dim, whose stride means
    nothing, sorts just outside the next non-trivial dim to its right, so row-major
    tensors report the default layout. Worked example: a NumPy Fortran-order (2,3) array
    has strides (4, 8) for f32 -> (0, 1).
    """
    cdef int n = t._ndim, i
    keys = []
    cdef int64_t k = 0
    for i in range(n - 1, -1, -1):
        if t._dims[i] > 1:
            k = abs(t._strides[i])
        keys.append((k, -i, i))
    keys.sort()
    return tuple([e[2] for e in keys])


cdef Tensor as_strided(Tensor t):
    """t itself, or a strided copy when t is tiled. The copy is read-only, so views of a
    tiled tensor (t[0], t.T, iteration) refuse writes instead of losing them."""
    cdef Tensor c
    if t._flags & F_TILED:
        c = api.untile(t)
        c._flags &= ~F_WRITEABLE
        return c
    return t


def set_layout(Tensor t, layout):
    """Internal: remembers an explicit layout (one strides cannot tell, e.g. size-1 dims
    or a memory space)."""
    t._layout = layout


def strided(Tensor t):
    return as_strided(t)


# ---------------------------------------------------------------------- kernels
cdef int broadcast_strides(Tensor t, int ndim, const int64_t* dims, int64_t* out) except -1:
    """t's strides against a broadcast iteration shape (right-aligned, 0 where t is 1);
    ValueError when t's shape does not broadcast to it (a kernel given such an operand
    would read outside t's buffer)."""
    cdef int off = ndim - t._ndim, i
    if off < 0:
        raise ValueError(f"an operand of shape {shape_of(t)} does not broadcast to "
                         f"{tuple([dims[i] for i in range(ndim)])}: more dimensions")
    for i in range(t._ndim):
        if t._dims[i] != 1 and t._dims[i] != dims[off + i]:
            raise ValueError(f"an operand of shape {shape_of(t)} does not broadcast to "
                             f"{tuple([dims[i] for i in range(ndim)])}")
    for i in range(ndim):
        if i < off or t._dims[i - off] == 1:
            out[i] = 0
        else:
            out[i] = t._strides[i - off]


cdef Tensor copy_dense_of(Tensor t, object m2m):
    cdef Tensor src = as_strided(t)
    cdef Tensor out
    if m2m is None and (src._flags & F_C_CONTIG) and src._size < parallel_min(kParCopy):
        out = _alloc_like_shape(src._dtype, src)       # a row-major copy of a short
        if out._buf_nbytes:                            # row-major tensor: one memcpy
            memcpy(out._data, src._data, out._buf_nbytes)
        return out                                     # (longer ones: threads, below)
    out = alloc_tensor(src._dtype, src._ndim, src._dims, m2m, False)
    convert_into(out, src)
    return out


def copy_dense(Tensor t, m2m=None):
    """A dense copy of t with minor_to_major ``m2m`` (None: row-major)."""
    return copy_dense_of(t, m2m)


cdef int _write_scalar(char* dst, int dtype, object value) except -1:
    """Writes a Python bool/int/float/complex into one element of ``dtype`` (conversion
    rules of ConvertElementType; range checks are the frontend's job)."""
    cdef char tmp[16]
    cdef char* ptrs[2]
    cdef int64_t st[2]
    cdef int64_t one = 1
    cdef int src
    cdef double d
    cdef int64_t i64
    cdef uint64_t u64
    cdef double complex z
    cdef float f
    if type(value) is float and (dtype == kF64 or dtype == kF32):    # t[i, j] = 1.5
        d = value                                    # (memcpy: dst may be unaligned)
        if dtype == kF64:
            memcpy(dst, &d, 8)
        else:
            f = <float>d
            memcpy(dst, &f, 4)
        return 0
    if isinstance(value, bool):
        tmp[0] = 1 if value else 0
        src = kPred
    elif isinstance(value, int) and not (-0x8000000000000000 <= value <= 0xffffffffffffffff):
        # Beyond 64 bits: only float/complex targets can hold it (ints were range-checked).
        d = float(value)
        memcpy(tmp, &d, 8)
        src = kF64
    elif isinstance(value, int):
        if value < 0 or value <= 0x7fffffffffffffff:
            i64 = value
            memcpy(tmp, &i64, 8)
            src = kS64
        else:
            u64 = value
            memcpy(tmp, &u64, 8)
            src = kU64
    elif isinstance(value, float):
        d = value
        memcpy(tmp, &d, 8)
        src = kF64
    elif isinstance(value, complex):
        z = value
        memcpy(tmp, &z, 16)
        src = kC128
    else:
        raise TypeError(f"cannot store {type(value).__name__} {value!r} in a tensor")
    ptrs[0] = tmp
    ptrs[1] = dst
    st[0] = 0
    st[1] = 0
    ew_convert(src, dtype, ptrs, 1, &one, st)
    return 0


def scalar_tensor(value, int dtype):
    """A 0-d tensor of dtype code ``dtype`` holding a Python scalar."""
    cdef Tensor t = alloc_tensor(dtype, 0, NULL, None, False)
    _write_scalar(t._data, dtype, value)
    return t


def fill(Tensor t, value):
    """Sets every element of strided ``t`` to a Python scalar."""
    cdef Tensor s = scalar_tensor(value, t._dtype)
    convert_into(t, s)


def call_key(tuple args):
    """The tuple of signature_of(a) for a call whose arguments are all Tensors, else
    None (xa.jit's fast path)."""
    cdef list keys = []
    for a in args:
        if type(a) is not Tensor:
            return None
        keys.append(signature_of(a))
    return tuple(keys)


def signature_of(Tensor t):
    """(dtype code, dims, layout key) of a tensor: the part of a call's signature an
    executable depends on (xa.jit's cache key). The layout key is None for C-contiguous
    tensors, else the minor_to_major order, plus 'tiled' for tiled storage."""
    if t._flags & F_TILED:
        return (t._dtype, shape_of(t), (t._layout, "tiled"))
    if t._flags & F_C_CONTIG:
        return (t._dtype, shape_of(t), None)
    return (t._dtype, shape_of(t), tuple(minor_to_major_of(t)))


# The per-call fast paths of Tensor's Python protocol: binary operators (_binop,
# _binop_reflected), one-operand NumPy functions (unary_contiguous), basic indexing
# (_getitem).
include "_tensor_fastpaths.pxi"
include "_tensor_joining.pxi"
