# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: embedsignature=True
# distutils: language = c++
"""The tensor type and its per-call hot paths (Cython).

A Tensor is a view onto memory: a data pointer, dims, BYTE strides and an element type,
plus whatever keeps the memory alive (its own 64-byte aligned allocation, a parent
tensor, a NumPy array or a DLPack producer). Its layout (xa.Layout) is derived from its
strides, except for tensors created with a padded or tiled layout, which remember it:
a tiled tensor's bytes are in tile order, not strided, and every op first relayouts it.

What lives here and why: operator dispatch, allocation, basic indexing and the elementwise
call into C++ run on every user call, where interpreter overhead dominates, so they are
compiled. Rules (promotion, broadcasting, op definitions) live in xarr/_ops in Python and
call back into the cdef-free functions at the bottom of this file.
"""

cimport cython
from cpython.pycapsule cimport (PyCapsule_GetPointer, PyCapsule_IsValid, PyCapsule_New,
                                PyCapsule_SetName)
from cpython.ref cimport Py_DECREF, Py_INCREF, PyObject
from libc.stdint cimport int64_t, uint64_t, uint8_t, uint16_t, uint32_t, uintptr_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset
from libcpp.string cimport string
from libcpp.vector cimport vector

import numpy as np

from xarr._dtypes import DTYPES, XLA_NAMES, CODE_OF, as_dtype

cdef extern from "core/capi.h" namespace "xarr" nogil:
    void* aligned_alloc64(int64_t nbytes)
    void aligned_free(void* p, int64_t nbytes)
    int64_t release_cached_memory()
    int64_t cached_memory_bytes()
    int ew_run(int op, int dtype, int nargs, char** ptrs, int ndim, const int64_t* dims,
               const int64_t* strides)
    int ew_run_contiguous(int op, int dtype, int nargs, char** ptrs,
                          const int64_t* itemsizes, int64_t n)
    int ew_convert(int src, int dst, char** ptrs, int ndim, const int64_t* dims,
                   const int64_t* strides)
    bint ew_has_loop(int op, int dtype)
    int iota_fill(int dtype, char* out, int64_t n)

cdef extern from "kernels/relayout/relayout.h" namespace "xarr" nogil:
    void copy_strided(int itemsize, int ndim, const int64_t* dims, const char* src,
                      const int64_t* src_strides, char* dst, const int64_t* dst_strides)

cdef extern from "kernels/elementwise/ew_table.h" namespace "xarr":
    cdef enum EwOp:
        kEw_NEG, kEw_ABS, kEw_NOT, kEw_ADD, kEw_SUB, kEw_MUL, kEw_DIV, kEw_FLOOR_DIV,
        kEw_MOD, kEw_POW, kEw_AND, kEw_OR, kEw_XOR, kEw_SHL, kEw_SHR_ARITH, kEw_EQ, kEw_NE,
        kEw_LT, kEw_LE, kEw_GT, kEw_GE, kNumEwOps

cdef extern from "engine/nary.h" namespace "xarr":
    int kMaxArgs

cdef extern from "fused/executor.h" namespace "xarr" nogil:
    int kFusedConvert
    cdef cppclass FusedInstr:
        int op, dtype, out_dtype, nargs, dst
        int args[3]
    cdef cppclass FusedProgram:
        int ninputs, ntemps, nconst
        vector[int] input_dtypes
        vector[int] temp_dtypes
        vector[int] output_dtypes
        vector[FusedInstr] code
    string validate_fused(const FusedProgram& p)
    void run_fused(const FusedProgram& p, char** ptrs, int ndim, const int64_t* dims,
                   const int64_t* strides)

cdef extern from "core/dlpack.h":
    ctypedef struct DLDevice:
        int device_type
        int device_id
    ctypedef struct DLDataType:
        uint8_t code
        uint8_t bits
        uint16_t lanes
    ctypedef struct DLTensor:
        void* data
        DLDevice device
        int ndim
        DLDataType dtype
        int64_t* shape
        int64_t* strides
        uint64_t byte_offset
    ctypedef struct DLManagedTensor:
        DLTensor dl_tensor
        void* manager_ctx
        void (*deleter)(DLManagedTensor*)
    ctypedef struct DLPackVersion:
        uint32_t major
        uint32_t minor
    ctypedef struct DLManagedTensorVersioned:
        DLPackVersion version
        void* manager_ctx
        void (*deleter)(DLManagedTensorVersioned*)
        uint64_t flags
        DLTensor dl_tensor
    int kDLCPU, kDLInt, kDLUInt, kDLFloat, kDLBfloat, kDLComplex, kDLBool
    uint64_t XARR_DLPACK_FLAG_READ_ONLY

cdef enum:
    MAXDIM = 32
    NUM_DTYPES = 15
    F_C_CONTIG = 1
    F_WRITEABLE = 2
    F_TILED = 4
    D_PRED = 0
    D_S64 = 4
    D_U64 = 8
    D_F16 = 9
    D_BF16 = 10
    D_F32 = 11
    D_F64 = 12
    D_C64 = 13
    D_C128 = 14

cdef int ITEMSIZE[15]
ITEMSIZE[:] = [1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16]
cdef list _DTYPE_OBJ = list(DTYPES)
cdef dict _CODE_OF = dict(CODE_OF)
cdef tuple _XLA = tuple(XLA_NAMES)
# 'b' pred, 'i' signed, 'u' unsigned, 'f' float, 'c' complex
cdef char* KIND = b"biiiiuuuuffffcc"

# The Python frontend (xarr._ops.elementwise) registers itself here at import.
cdef object _frontend = None
# Fast-path table: _fast_out[op * NUM_DTYPES + dtype] is the output dtype code when a
# same-dtype, same-shape operation on C-contiguous tensors may skip the Python rules;
# -1 otherwise. Filled by the frontend (it owns the rules).
cdef signed char _fast_out[256 * 15]
memset(_fast_out, -1, sizeof(_fast_out))
# Non-zero inside ``with xa.lazy():`` - operators then skip the fast paths so the frontend
# records them into the lazy graph (xarr/_graph/lazy.py).
cdef int _lazy_depth = 0


def set_lazy_depth(int depth):
    global _lazy_depth
    _lazy_depth = depth


def release_memory_cache():
    """Returns cached large blocks to the system; the number of bytes released."""
    return release_cached_memory()


def memory_cache_bytes():
    """Bytes currently held in the large-block cache."""
    return cached_memory_bytes()


def _register_frontend(module, fast_entries):
    """Called once by xarr._ops.elementwise: the module handling operator slow paths, and
    (op, dtype, out_dtype) triples that may take the compiled fast path."""
    global _frontend
    _frontend = module
    memset(_fast_out, -1, sizeof(_fast_out))
    for op, dt, out in fast_entries:
        if ew_has_loop(op, dt):
            _fast_out[op * NUM_DTYPES + dt] = out


cdef inline int _dtype_code_of(object dtype) except -1:
    try:
        return _CODE_OF[dtype]
    except (KeyError, TypeError):
        return _CODE_OF[as_dtype(dtype)]


@cython.final
cdef class Tensor:
    """An n-dimensional array with an explicit XLA shape and layout.

    Create tensors with ``xa.asarray``, ``xa.zeros``, ``xa.arange`` ...; the constructor is
    not public. ``t.xla_shape`` prints as HLO text, e.g. ``f32[2,3]{1,0}``.
    """
    cdef char* _data
    cdef void* _alloc
    cdef object _owner
    cdef int _ndim
    cdef int _dtype
    cdef int _flags
    cdef int64_t _size
    cdef int64_t _dims[MAXDIM]
    cdef int64_t _strides[MAXDIM]
    cdef object _shape
    cdef object _layout
    cdef char* _buf
    cdef int64_t _buf_nbytes
    cdef object __weakref__

    __array_priority__ = 100
    __array_ufunc__ = None   # NumPy defers binary operators to Tensor's reflected methods

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
        return self._shape

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
        return ITEMSIZE[self._dtype]

    @property
    def nbytes(self):
        return self._size * ITEMSIZE[self._dtype]

    @property
    def strides(self):
        """Byte strides per dim (NumPy convention). A tiled tensor has no strides."""
        if self._flags & F_TILED:
            raise AttributeError("a tiled tensor has no strides; relayout it first")
        return tuple([self._strides[i] for i in range(self._ndim)])

    @property
    def flags(self):
        return {"C_CONTIGUOUS": bool(self._flags & F_C_CONTIG),
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
        from xarr._shape import Layout
        if self._layout is not None:
            return self._layout
        return Layout(minor_to_major_of(self))

    @property
    def xla_shape(self):
        """The xa.Shape, printing as HLO text: ``f32[2,3]{1,0}``."""
        from xarr._shape import Shape
        return Shape(_XLA[self._dtype], self._shape, self.layout)

    @property
    def T(self):
        """The transpose (reversed dims) as a view."""
        return self.transpose()

    @property
    def mT(self):
        if self._ndim < 2:
            raise ValueError(f"mT requires ndim >= 2, got shape {self._shape}")
        cdef int n = self._ndim
        perm = list(range(n))
        perm[n - 1], perm[n - 2] = perm[n - 2], perm[n - 1]
        return self.transpose(perm)

    @property
    def real(self):
        return _frontend.unary("real", self)

    @property
    def imag(self):
        return _frontend.unary("imag", self)

    @property
    def device(self):
        return "cpu"

    # ------------------------------------------------------------------ views
    def transpose(self, *axes):
        """A view with dims permuted (``axes`` like NumPy; none reverses them)."""
        cdef Tensor src = _strided(self)
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
        cdef Tensor out = _view_of(src)
        for i in range(n):
            out._dims[i] = src._dims[perm[i]]
            out._strides[i] = src._strides[perm[i]]
        _finish(out, n)
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
        out._dims[0] = self._buf_nbytes // ITEMSIZE[self._dtype]
        out._strides[0] = ITEMSIZE[self._dtype]
        out._buf = self._buf
        out._buf_nbytes = self._buf_nbytes
        out._flags = self._flags & F_WRITEABLE
        _finish(out, 1)
        return out

    # ------------------------------------------------------------------ conversions
    def __len__(self):
        if self._ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._dims[0]

    def __iter__(self):
        if self._ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._dims[0]))

    def item(self, *args):
        """The single element as a Python scalar; ``item(i)`` takes a flat index and
        ``item(i, j, ...)`` a multi-index, as NumPy's."""
        if args:
            return self.__array__().item(*args)
        if self._size != 1:
            raise ValueError(f"item(): can only convert a tensor of size 1, "
                             f"got shape {self._shape}")
        return self.__array__().reshape(()).item()

    def tolist(self):
        """Nested Python lists of Python scalars (NumPy's tolist)."""
        return self.__array__().tolist()

    def __bool__(self):
        if self._size != 1:
            raise ValueError(f"the truth value of a tensor with {self._size} elements is "
                             f"ambiguous; use xa.any() or xa.all()")
        return bool(self.item())

    def __int__(self):
        return int(self._scalar_for("int"))

    def __float__(self):
        return float(self._scalar_for("float"))

    def __complex__(self):
        return complex(self._scalar_for("complex"))

    def __index__(self):
        if KIND[self._dtype] not in (b'i'[0], b'u'[0]):
            raise TypeError(f"only integer tensors can be used as an index, got "
                            f"{_DTYPE_OBJ[self._dtype]}")
        return int(self._scalar_for("index"))

    def _scalar_for(self, what):
        if self._size != 1:
            raise TypeError(f"only size-1 tensors can be converted to Python {what}, "
                            f"got shape {self._shape}")
        return self.item()

    def copy(self):
        """A new C-contiguous tensor with the same values."""
        return _copy_dense(self, None)

    def astype(self, dtype, copy=True):
        """The values converted to ``dtype`` (ConvertElementType rules, see SPEC.md)."""
        cdef int code = _dtype_code_of(dtype)
        if code == self._dtype and not copy:
            return self
        return _frontend.astype(self, code)

    def relayout(self, layout):
        """A copy stored with ``layout`` (xa.Layout, HLO text like '{0,1}', or a
        minor_to_major tuple)."""
        return _frontend.relayout(self, layout)

    def reshape(self, *shape, order="C"):
        """Reshape in row-major (``order='C'``) or column-major (``order='F'``) index
        order; a view when the strides allow it."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        if order == "F":
            return _frontend.reshape(self.transpose(), tuple(shape)[::-1]).transpose()
        if order != "C":
            raise ValueError(f"reshape: order must be 'C' or 'F', got {order!r}")
        return _frontend.reshape(self, shape)

    def __array__(self, dtype=None, copy=None):
        """A NumPy array sharing this tensor's memory (strided layouts; tiled tensors and
        ``copy=True`` copy)."""
        cdef Tensor src = self
        if self._flags & F_TILED:
            if copy is False:
                raise ValueError("a tiled tensor cannot be exported without a copy")
            src = _strided(self)
        arr = np.asarray(_ArrayInterface(src))
        if src._dtype == D_BF16:
            arr = arr.view(_DTYPE_OBJ[D_BF16])
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
        view.len = self._size * ITEMSIZE[self._dtype]
        view.readonly = 0 if (self._flags & F_WRITEABLE) else 1
        view.itemsize = ITEMSIZE[self._dtype]
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
            src = _copy_dense(self, None)
        versioned = max_version is not None and tuple(max_version) >= (1, 0)
        return _make_dlpack_capsule(src, versioned)

    # ------------------------------------------------------------------ indexing
    def __getitem__(self, key):
        return _getitem(self, key)

    def __setitem__(self, key, value):
        _frontend.setitem(self, key, value)

    # ------------------------------------------------------------------ operators
    def __add__(self, other): return _binop(self, other, kEw_ADD, "add")
    def __radd__(self, other): return _binop_reflected(self, other, kEw_ADD, "add")
    def __sub__(self, other): return _binop(self, other, kEw_SUB, "subtract")
    def __rsub__(self, other): return _binop_reflected(self, other, kEw_SUB, "subtract")
    def __mul__(self, other): return _binop(self, other, kEw_MUL, "multiply")
    def __rmul__(self, other): return _binop_reflected(self, other, kEw_MUL, "multiply")
    def __truediv__(self, other): return _binop(self, other, kEw_DIV, "divide")
    def __rtruediv__(self, other): return _binop_reflected(self, other, kEw_DIV, "divide")
    def __floordiv__(self, other): return _binop(self, other, kEw_FLOOR_DIV, "floor_divide")
    def __rfloordiv__(self, other): return _frontend.binary("floor_divide", other, self)
    def __mod__(self, other): return _binop(self, other, kEw_MOD, "remainder")
    def __rmod__(self, other): return _frontend.binary("remainder", other, self)
    def __pow__(self, other, mod=None): return _frontend.binary("power", self, other)
    def __rpow__(self, other, mod=None): return _frontend.binary("power", other, self)
    def __and__(self, other): return _binop(self, other, kEw_AND, "bitwise_and")
    def __rand__(self, other): return _frontend.binary("bitwise_and", other, self)
    def __or__(self, other): return _binop(self, other, kEw_OR, "bitwise_or")
    def __ror__(self, other): return _frontend.binary("bitwise_or", other, self)
    def __xor__(self, other): return _binop(self, other, kEw_XOR, "bitwise_xor")
    def __rxor__(self, other): return _frontend.binary("bitwise_xor", other, self)
    def __lshift__(self, other): return _frontend.binary("left_shift", self, other)
    def __rlshift__(self, other): return _frontend.binary("left_shift", other, self)
    def __rshift__(self, other): return _frontend.binary("right_shift", self, other)
    def __rrshift__(self, other): return _frontend.binary("right_shift", other, self)
    def __matmul__(self, other): return _frontend.matmul(self, other)
    def __rmatmul__(self, other): return _frontend.matmul(other, self)
    def __eq__(self, other): return _binop(self, other, kEw_EQ, "equal")
    def __ne__(self, other): return _binop(self, other, kEw_NE, "not_equal")
    def __lt__(self, other): return _binop(self, other, kEw_LT, "less")
    def __le__(self, other): return _binop(self, other, kEw_LE, "less_equal")
    def __gt__(self, other): return _binop(self, other, kEw_GT, "greater")
    def __ge__(self, other): return _binop(self, other, kEw_GE, "greater_equal")
    __hash__ = None

    def __neg__(self): return _frontend.unary("negative", self)
    def __pos__(self): return _frontend.unary("positive", self)
    def __abs__(self): return _frontend.unary("absolute", self)
    def __invert__(self): return _frontend.unary("invert", self)

    def __iadd__(self, other): return _frontend.inplace("add", self, other)
    def __isub__(self, other): return _frontend.inplace("subtract", self, other)
    def __imul__(self, other): return _frontend.inplace("multiply", self, other)
    def __itruediv__(self, other): return _frontend.inplace("divide", self, other)
    def __ifloordiv__(self, other): return _frontend.inplace("floor_divide", self, other)
    def __imod__(self, other): return _frontend.inplace("remainder", self, other)
    def __ipow__(self, other): return _frontend.inplace("power", self, other)
    def __iand__(self, other): return _frontend.inplace("bitwise_and", self, other)
    def __ior__(self, other): return _frontend.inplace("bitwise_or", self, other)
    def __ixor__(self, other): return _frontend.inplace("bitwise_xor", self, other)
    def __ilshift__(self, other): return _frontend.inplace("left_shift", self, other)
    def __irshift__(self, other): return _frontend.inplace("right_shift", self, other)

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


_BUFFER_FORMATS = [b"?", b"b", b"h", b"i", b"q", b"B", b"H", b"I", b"Q", b"e", None,
                   b"f", b"d", b"Zf", b"Zd"]


cdef class _ArrayInterface:
    """Presents a strided tensor to NumPy through __array_interface__ (zero-copy)."""
    cdef public object __array_interface__
    cdef object _tensor

    def __cinit__(self, Tensor t):
        self._tensor = t
        typestr = _TYPESTR[t._dtype]
        self.__array_interface__ = {
            "shape": t._shape,
            "typestr": typestr,
            "data": (<uintptr_t>t._data, not (t._flags & F_WRITEABLE)),
            "strides": tuple([t._strides[i] for i in range(t._ndim)]),
            "version": 3,
        }


_TYPESTR = ["|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<u2",
            "<f4", "<f8", "<c8", "<c16"]


# ---------------------------------------------------------------------- construction
cdef inline void _finish(Tensor t, int ndim):
    """Sets ndim, size, the shape tuple and the C-contiguous flag from dims/strides."""
    cdef int i
    cdef int64_t size = 1, expect = ITEMSIZE[t._dtype]
    cdef bint c = True
    t._ndim = ndim
    for i in range(ndim):
        size *= t._dims[i]
    for i in range(ndim - 1, -1, -1):
        if t._dims[i] != 1 and t._strides[i] != expect:
            c = False
        expect *= t._dims[i]
    t._size = size
    t._shape = tuple([t._dims[i] for i in range(ndim)])
    if c and size > 0:
        t._flags |= F_C_CONTIG
    elif size == 0:
        t._flags |= F_C_CONTIG
    else:
        t._flags &= ~F_C_CONTIG


cdef inline Tensor _view_of(Tensor base):
    """A new Tensor sharing base's memory (dims/strides to be filled by the caller)."""
    cdef Tensor out = Tensor.__new__(Tensor)
    out._owner = base if base._alloc != NULL else base._owner
    out._data = base._data
    out._dtype = base._dtype
    out._flags = base._flags & F_WRITEABLE
    out._buf = base._buf
    out._buf_nbytes = base._buf_nbytes
    return out


cdef Tensor _alloc_tensor(int dtype, int ndim, const int64_t* dims, object m2m, bint zero):
    """A new dense tensor; ``m2m`` (minor_to_major) None means row-major."""
    cdef Tensor t = Tensor.__new__(Tensor)
    cdef int i, d
    cdef int64_t size = 1, stride = ITEMSIZE[dtype], nbytes
    if ndim > MAXDIM:
        raise ValueError(f"xarr supports at most {MAXDIM} dims, got {ndim}")
    for i in range(ndim):
        if dims[i] < 0:
            raise ValueError(f"negative dimension {dims[i]} in shape "
                             f"{tuple([dims[j] for j in range(ndim)])}")
        t._dims[i] = dims[i]
    size = _checked_nbytes(ndim, dims, 1)
    nbytes = size * ITEMSIZE[dtype]
    t._alloc = aligned_alloc64(nbytes)
    if t._alloc == NULL:
        raise MemoryError(f"cannot allocate {nbytes} bytes")
    if zero:
        memset(t._alloc, 0, nbytes)
    t._data = <char*>t._alloc
    t._buf = t._data
    t._buf_nbytes = nbytes
    t._dtype = dtype
    t._flags = F_WRITEABLE
    if m2m is None:
        for i in range(ndim - 1, -1, -1):
            t._strides[i] = stride
            stride *= dims[i] if dims[i] > 0 else 1
    else:
        for d in m2m:
            t._strides[d] = stride
            stride *= dims[d] if dims[d] > 0 else 1
    _finish(t, ndim)
    return t


cdef int64_t _checked_nbytes(int ndim, const int64_t* dims, int64_t itemsize) except -1:
    """prod(dims) * itemsize, or ValueError when it does not fit in memory addresses."""
    cdef int i
    cdef int64_t n = itemsize
    cdef int64_t limit = (<int64_t>1) << 60
    for i in range(ndim):
        if dims[i] == 0:
            return 0
    for i in range(ndim):
        if dims[i] > limit // n:
            raise ValueError(f"tensor of shape {tuple([dims[j] for j in range(ndim)])} is "
                             f"too big: more than 2**60 bytes")
        n *= dims[i]
    return n


cdef inline Tensor _alloc_like_shape(int dtype, Tensor like):
    cdef Tensor t = Tensor.__new__(Tensor)
    cdef int i
    cdef int n = like._ndim
    cdef int64_t stride = ITEMSIZE[dtype], nbytes = like._size * ITEMSIZE[dtype]
    t._alloc = aligned_alloc64(nbytes)
    if t._alloc == NULL:
        raise MemoryError(f"cannot allocate {nbytes} bytes")
    t._data = <char*>t._alloc
    t._buf = t._data
    t._buf_nbytes = nbytes
    t._dtype = dtype
    t._flags = F_WRITEABLE | F_C_CONTIG
    t._ndim = n
    t._size = like._size
    for i in range(n - 1, -1, -1):
        t._dims[i] = like._dims[i]
        t._strides[i] = stride
        stride *= like._dims[i]
    t._shape = like._shape
    return t


cdef int _fill_dims(object shape, int64_t* dims) except -1:
    cdef int n = len(shape), i
    if n > MAXDIM:
        raise ValueError(f"xarr supports at most {MAXDIM} dims, got {n}")
    for i in range(n):
        dims[i] = shape[i]
    return n


def empty(shape, int dtype, m2m=None, bint zero=False):
    """A new dense tensor of dtype code ``dtype`` with minor_to_major ``m2m`` (None: row
    major). Internal: the frontend validates arguments first."""
    cdef int64_t dims[MAXDIM]
    cdef int n = _fill_dims(shape, dims)
    return _alloc_tensor(dtype, n, dims, m2m, zero)


def empty_buffer(shape, int dtype, int64_t nelems, layout):
    """A tensor of logical ``shape`` whose buffer holds ``nelems`` elements laid out as the
    padded/tiled ``layout`` (strides are filled in by the caller via set_view for padded
    layouts; tiled tensors keep F_TILED)."""
    cdef int64_t dims[MAXDIM]
    cdef int n = _fill_dims(shape, dims)
    cdef Tensor t = Tensor.__new__(Tensor)
    cdef int64_t one = 1
    _checked_nbytes(n, dims, ITEMSIZE[dtype])
    cdef int64_t nbytes = _checked_nbytes(1, &nelems, ITEMSIZE[dtype])
    t._alloc = aligned_alloc64(nbytes)
    if t._alloc == NULL:
        raise MemoryError(f"cannot allocate {nbytes} bytes")
    memset(t._alloc, 0, nbytes)
    t._data = <char*>t._alloc
    t._buf = t._data
    t._buf_nbytes = nbytes
    t._dtype = dtype
    t._flags = F_WRITEABLE
    for i in range(n):
        t._dims[i] = dims[i]
        t._strides[i] = 0
    _finish(t, n)
    t._flags &= ~F_C_CONTIG
    t._layout = layout
    return t


def set_strides(Tensor t, strides, bint tiled):
    """Internal: sets byte strides (padded layouts) or marks the tensor tiled."""
    cdef int i
    if tiled:
        t._flags |= F_TILED
        t._flags &= ~F_C_CONTIG
        return
    for i in range(t._ndim):
        t._strides[i] = strides[i]
    _finish(t, t._ndim)


def as_strided_view(Tensor base, shape, strides, int64_t offset_bytes, bint readonly=False):
    """Internal: a view of ``base``'s memory with the given shape/byte strides/offset. The
    caller guarantees the view stays inside the buffer. Broadcast views (stride 0) are
    made read-only, as NumPy does."""
    cdef Tensor out = _view_of(base)
    cdef int n = _fill_dims(shape, out._dims), i
    for i in range(n):
        out._strides[i] = strides[i]
    out._data = base._data + offset_bytes
    if readonly:
        out._flags &= ~F_WRITEABLE
    _finish(out, n)
    return out


def iota(int dtype, int64_t n):
    """A 1-D tensor 0, 1, ..., n-1 of dtype code ``dtype``."""
    cdef int64_t dims[1]
    dims[0] = n
    cdef Tensor t = _alloc_tensor(dtype, 1, dims, None, False)
    with nogil:
        iota_fill(dtype, t._data, n)
    return t


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
    if n > MAXDIM:
        raise ValueError(f"xarr supports at most {MAXDIM} dims, got {n}")
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
    _finish(t, n)
    t._buf = t._data + lo
    t._buf_nbytes = (hi - lo + ITEMSIZE[code]) if t._size > 0 else 0
    return t


def is_tiled(Tensor t):
    return bool(t._flags & F_TILED)


def shares_buffer(Tensor a, Tensor b):
    """True when the two tensors' memory ranges overlap (conservative)."""
    cdef int64_t alo, ahi, blo, bhi
    if a._size == 0 or b._size == 0:
        return False
    _extent(a, &alo, &ahi)
    _extent(b, &blo, &bhi)
    return alo < bhi and blo < ahi


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


cdef void _extent(Tensor t, int64_t* lo, int64_t* hi):
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
    hi[0] = <int64_t><uintptr_t>t._data + h + ITEMSIZE[t._dtype]


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


cdef Tensor _strided(Tensor t):
    """t itself, or a strided copy when t is tiled. The copy is read-only, so views of a
    tiled tensor (t[0], t.T, iteration) refuse writes instead of losing them."""
    cdef Tensor c
    if t._flags & F_TILED:
        c = _frontend.untile(t)
        c._flags &= ~F_WRITEABLE
        return c
    return t


def set_layout(Tensor t, layout):
    """Internal: remembers an explicit layout (one strides cannot tell, e.g. size-1 dims
    or a memory space)."""
    t._layout = layout


def strided(Tensor t):
    return _strided(t)


# ---------------------------------------------------------------------- kernels
cdef void _broadcast_strides(Tensor t, int ndim, const int64_t* dims, int64_t* out):
    """t's strides against a broadcast iteration shape (right-aligned, 0 where t is 1)."""
    cdef int off = ndim - t._ndim, i
    for i in range(ndim):
        if i < off or t._dims[i - off] == 1:
            out[i] = 0
        else:
            out[i] = t._strides[i - off]


def run_elementwise(int op, int dtype, Tensor out, inputs):
    """out = op(*inputs): inputs have value dtype ``dtype`` and shapes that broadcast to
    out.shape. Releases the GIL around the kernel."""
    cdef int nin = len(inputs), a, i
    cdef int nargs = nin + 1
    cdef int ndim = out._ndim
    cdef char* ptrs[8]
    cdef int64_t strides[8 * MAXDIM]
    cdef Tensor x
    cdef int rc
    if nargs > 8:
        raise ValueError("too many operands")
    for a in range(nin):
        x = inputs[a]
        ptrs[a] = x._data
        _broadcast_strides(x, ndim, out._dims, &strides[a * ndim])
    ptrs[nin] = out._data
    for i in range(ndim):
        strides[nin * ndim + i] = out._strides[i]
    with nogil:
        rc = ew_run(op, dtype, nargs, ptrs, ndim, out._dims, strides)
    if rc != 0:
        raise TypeError(f"elementwise op {op} has no kernel for {_DTYPE_OBJ[dtype]}")


def convert_into(Tensor out, Tensor src):
    """out[...] = src converted to out's dtype, src broadcasting to out.shape."""
    cdef char* ptrs[2]
    cdef int64_t strides[2 * MAXDIM]
    cdef int ndim = out._ndim, i, rc
    if src._ndim > ndim:
        raise ValueError(f"cannot broadcast shape {src._shape} to {out._shape}")
    _broadcast_strides(src, ndim, out._dims, strides)
    for i in range(ndim):
        strides[ndim + i] = out._strides[i]
    ptrs[0] = src._data
    ptrs[1] = out._data
    if src._dtype == out._dtype and src._ndim == ndim:
        with nogil:
            copy_strided(ITEMSIZE[out._dtype], ndim, out._dims, src._data, strides,
                         out._data, &strides[ndim])
        return
    with nogil:
        rc = ew_convert(src._dtype, out._dtype, ptrs, ndim, out._dims, strides)
    if rc != 0:
        raise TypeError(f"no conversion from {_DTYPE_OBJ[src._dtype]} to "
                        f"{_DTYPE_OBJ[out._dtype]}")


cdef Tensor _copy_dense(Tensor t, object m2m):
    cdef Tensor src = _strided(t)
    cdef Tensor out = _alloc_tensor(src._dtype, src._ndim, src._dims, m2m, False)
    convert_into(out, src)
    return out


def copy_dense(Tensor t, m2m=None):
    """A dense copy of t with minor_to_major ``m2m`` (None: row-major)."""
    return _copy_dense(t, m2m)


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
    if isinstance(value, bool):
        tmp[0] = 1 if value else 0
        src = D_PRED
    elif isinstance(value, int) and not (-0x8000000000000000 <= value <= 0xffffffffffffffff):
        # Beyond 64 bits: only float/complex targets can hold it (ints were range-checked).
        d = float(value)
        memcpy(tmp, &d, 8)
        src = D_F64
    elif isinstance(value, int):
        if value < 0 or value <= 0x7fffffffffffffff:
            i64 = value
            memcpy(tmp, &i64, 8)
            src = D_S64
        else:
            u64 = value
            memcpy(tmp, &u64, 8)
            src = D_U64
    elif isinstance(value, float):
        d = value
        memcpy(tmp, &d, 8)
        src = D_F64
    elif isinstance(value, complex):
        z = value
        memcpy(tmp, &z, 16)
        src = D_C128
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
    cdef Tensor t = _alloc_tensor(dtype, 0, NULL, None, False)
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
        return (t._dtype, t._shape, (t._layout, "tiled"))
    if t._flags & F_C_CONTIG:
        return (t._dtype, t._shape, None)
    return (t._dtype, t._shape, tuple(minor_to_major_of(t)))


# ---------------------------------------------------------------------- fused kernels
FUSED_CONVERT = kFusedConvert
MAX_FUSED_OPERANDS = kMaxArgs


cdef class FusedKernel:
    """A validated fused elementwise program (csrc/fused/executor.h), built once by the
    graph compiler and run on every call.

    code: [(op, dtype, out_dtype, [argument registers], dst)] with op an EwOp code or
    FUSED_CONVERT. Registers: the run() inputs first, then ``constants`` (0-d tensors
    baked in at compile time), then temporaries; dst = -1 - k writes output k.
    """
    cdef FusedProgram prog
    cdef readonly int n_inputs
    cdef readonly tuple output_dtypes
    cdef list constants
    # set by bind(): how __call__ picks its inputs from the fusion's operands
    cdef list numbers, maps, baked, out_m2m
    cdef tuple shape

    def __init__(self, input_dtypes, temp_dtypes, output_dtypes, code, constants=()):
        cdef FusedInstr ins
        cdef Tensor c
        self.constants = [_strided(c) for c in constants]
        self.n_inputs = len(input_dtypes)
        self.output_dtypes = tuple(output_dtypes)
        self.prog.ninputs = self.n_inputs + len(self.constants)
        self.prog.nconst = len(self.constants)
        for d in input_dtypes:
            self.prog.input_dtypes.push_back(d)
        for c in self.constants:
            if c._ndim != 0:
                raise ValueError("FusedKernel: constants must be 0-d tensors")
            self.prog.input_dtypes.push_back(c._dtype)
        self.prog.ntemps = len(temp_dtypes)
        for d in temp_dtypes:
            self.prog.temp_dtypes.push_back(d)
        for d in output_dtypes:
            self.prog.output_dtypes.push_back(d)
        for op, dtype, out_dtype, args, dst in code:
            if not 1 <= len(args) <= 3:
                raise ValueError(f"FusedKernel: an instruction takes 1 to 3 operands, got "
                                 f"{len(args)}")
            ins.op = op
            ins.dtype = dtype
            ins.out_dtype = out_dtype
            ins.nargs = len(args)
            for k in range(3):
                ins.args[k] = args[k] if k < len(args) else 0
            ins.dst = dst
            self.prog.code.push_back(ins)
        msg = validate_fused(self.prog).decode()
        if msg:
            raise ValueError(f"FusedKernel: {msg}")

    def bind(self, numbers, maps, baked, shape, out_m2m):
        """Fixes how a call maps operands to inputs: input a is operands[numbers[a]] (or
        baked[a] when numbers[a] is None) read through maps[a]; outputs are new tensors
        of ``shape`` with minor_to_major out_m2m[k] (None: row-major)."""
        self.numbers = [(-1 if n is None else n) for n in numbers]
        self.maps = list(maps)
        self.baked = list(baked)
        self.shape = tuple(shape)
        self.out_m2m = list(out_m2m)

    def __call__(self, operands):
        """Runs on the fusion's operands (after bind); returns the list of new outputs."""
        cdef int a, n
        cdef int64_t dims[MAXDIM]
        cdef int nd = _fill_dims(self.shape, dims)
        cdef list ins = []
        for a in range(self.n_inputs):
            n = self.numbers[a]
            ins.append(self.baked[a] if n < 0 else operands[n])
        cdef list outs = [_alloc_tensor(self.prog.output_dtypes[a], nd, dims,
                                        self.out_m2m[a], False)
                          for a in range(len(self.output_dtypes))]
        self.run(ins, self.maps, self.shape, outs)
        return outs

    def run(self, inputs, maps, shape, outputs):
        """Runs over the iteration ``shape``: ``outputs`` are tensors of that shape (any
        strides); input a broadcasts to it right-aligned when maps[a] is None, else its
        dim i lands on result dim maps[a][i] (BroadcastInDim). Releases the GIL."""
        cdef int nin = len(inputs), nc = len(self.constants), nout = len(outputs)
        cdef int nargs = nin + nc + nout, ndim = len(shape), a, i, d
        cdef char* ptrs[64]
        cdef int64_t dims[MAXDIM]
        cdef int64_t strides[64 * MAXDIM]
        cdef int64_t size = 1
        cdef Tensor x
        cdef list keep = []
        if nin != self.n_inputs or nout != len(self.output_dtypes):
            raise ValueError(f"FusedKernel: expected {self.n_inputs} inputs and "
                             f"{len(self.output_dtypes)} outputs, got {nin} and {nout}")
        if nargs > 64 or ndim > MAXDIM:
            raise ValueError("FusedKernel: too many operands or dims")
        for i in range(ndim):
            dims[i] = shape[i]
            size *= dims[i]
        for a in range(nin):
            x = inputs[a]
            if x._flags & F_TILED:
                x = _strided(x)
                keep.append(x)
            if x._dtype != self.prog.input_dtypes[a]:
                raise TypeError(f"FusedKernel: input {a} is {_DTYPE_OBJ[x._dtype]}, expected "
                                f"{_DTYPE_OBJ[self.prog.input_dtypes[a]]}")
            ptrs[a] = x._data
            m = maps[a]
            if m is None:
                if x._ndim > ndim:
                    raise ValueError(f"FusedKernel: input {a} has rank {x._ndim} > {ndim}")
                for i in range(x._ndim):
                    d = ndim - x._ndim + i
                    if x._dims[i] != 1 and x._dims[i] != dims[d]:
                        raise ValueError(f"FusedKernel: input {a} shape {x._shape} does not "
                                         f"broadcast to {tuple(shape)}")
                _broadcast_strides(x, ndim, dims, &strides[a * ndim])
            else:
                if len(m) != x._ndim:
                    raise ValueError(f"FusedKernel: input {a} map {m} vs rank {x._ndim}")
                for i in range(ndim):
                    strides[a * ndim + i] = 0
                for i in range(x._ndim):
                    d = m[i]
                    if d < 0 or d >= ndim or (x._dims[i] != 1 and x._dims[i] != dims[d]):
                        raise ValueError(f"FusedKernel: input {a} shape {x._shape} does not "
                                         f"map onto {tuple(shape)} with {m}")
                    if x._dims[i] != 1:
                        strides[a * ndim + d] = x._strides[i]
        for a in range(nc):
            x = self.constants[a]
            ptrs[nin + a] = x._data
            for i in range(ndim):
                strides[(nin + a) * ndim + i] = 0
        for a in range(nout):
            x = outputs[a]
            if x._ndim != ndim or x._dtype != self.prog.output_dtypes[a] or \
                    not (x._flags & F_WRITEABLE) or (x._flags & F_TILED):
                raise ValueError(f"FusedKernel: output {a} must be a writeable strided "
                                 f"{_DTYPE_OBJ[self.prog.output_dtypes[a]]} tensor of rank "
                                 f"{ndim}")
            for i in range(ndim):
                if x._dims[i] != dims[i]:
                    raise ValueError(f"FusedKernel: output {a} has shape {x._shape}, "
                                     f"expected {tuple(shape)}")
                strides[(nin + nc + a) * ndim + i] = x._strides[i]
            ptrs[nin + nc + a] = x._data
        if size == 0:
            return
        with nogil:
            run_fused(self.prog, ptrs, ndim, dims, strides)


# ---------------------------------------------------------------------- operators
cdef object _binop(object a, object b, int op, str name):
    """The compiled fast path of a binary operator: same dtype, same shape, C-contiguous
    tensors (or a tensor and a Python scalar of its kind) go straight to the kernel; all
    else goes to the Python frontend's rules."""
    cdef Tensor x, y, out
    cdef int od
    cdef char* ptrs[3]
    cdef int64_t sizes[3]
    cdef char scalar_buf[16]
    if type(a) is Tensor and not _lazy_depth:
        x = <Tensor>a
        if (x._flags & F_C_CONTIG) and not (x._flags & F_TILED):
            if type(b) is Tensor:
                y = <Tensor>b
                if (y._dtype == x._dtype and (y._flags & F_C_CONTIG)
                        and not (y._flags & F_TILED)
                        and (y._shape is x._shape or y._shape == x._shape)):
                    od = _fast_out[op * NUM_DTYPES + x._dtype]
                    if od >= 0:
                        out = _alloc_like_shape(od, x)
                        ptrs[0] = x._data
                        ptrs[1] = y._data
                        ptrs[2] = out._data
                        sizes[0] = ITEMSIZE[x._dtype]
                        sizes[1] = sizes[0]
                        sizes[2] = ITEMSIZE[od]
                        with nogil:
                            ew_run_contiguous(op, x._dtype, 3, ptrs, sizes, x._size)
                        return out
            elif type(b) is float and (KIND[x._dtype] == b'f'[0] or KIND[x._dtype] == b'c'[0]):
                od = _fast_out[op * NUM_DTYPES + x._dtype]
                if od >= 0:
                    _write_scalar(scalar_buf, x._dtype, b)
                    out = _alloc_like_shape(od, x)
                    ptrs[0] = x._data
                    ptrs[1] = scalar_buf
                    ptrs[2] = out._data
                    sizes[0] = ITEMSIZE[x._dtype]
                    sizes[1] = 0
                    sizes[2] = ITEMSIZE[od]
                    with nogil:
                        ew_run_contiguous(op, x._dtype, 3, ptrs, sizes, x._size)
                    return out
    return _frontend.binary(name, a, b)


cdef object _binop_reflected(Tensor x, object b, int op, str name):
    """``b <op> x`` for a Python float ``b`` and a float tensor x (e.g. ``2.0 * t``): the
    scalar is broadcast as the first operand; everything else goes to the frontend."""
    cdef Tensor out
    cdef int od
    cdef char* ptrs[3]
    cdef int64_t sizes[3]
    cdef char scalar_buf[16]
    if (type(b) is float and not _lazy_depth and (x._flags & F_C_CONTIG)
            and not (x._flags & F_TILED)
            and (KIND[x._dtype] == b'f'[0] or KIND[x._dtype] == b'c'[0])):
        od = _fast_out[op * NUM_DTYPES + x._dtype]
        if od >= 0:
            _write_scalar(scalar_buf, x._dtype, b)
            out = _alloc_like_shape(od, x)
            ptrs[0] = scalar_buf
            ptrs[1] = x._data
            ptrs[2] = out._data
            sizes[0] = 0
            sizes[1] = ITEMSIZE[x._dtype]
            sizes[2] = ITEMSIZE[od]
            with nogil:
                ew_run_contiguous(op, x._dtype, 3, ptrs, sizes, x._size)
            return out
    return _frontend.binary(name, b, x)


# ---------------------------------------------------------------------- indexing
cdef object _getitem(Tensor self, object key):
    """Basic indexing (ints, slices with any step, Ellipsis, None) as a view; anything
    else is advanced indexing and goes to the frontend."""
    cdef Tensor src = _strided(self)
    cdef Tensor out
    cdef int n = src._ndim, i, d = 0, k = 0, nk, n_real = 0, n_ell = 0
    cdef int64_t idx, dim, start, stop, step, length
    cdef char* data = src._data
    if type(key) is not tuple:
        key = (key,)
    nk = len(key)
    for item in key:
        if item is None:
            continue
        if item is Ellipsis:
            n_ell += 1
            continue
        if item is True or item is False:
            return _frontend.advanced_getitem(self, key)
        if isinstance(item, (int, slice)) or (type(item) is Tensor and
                                              (<Tensor>item)._ndim == 0 and
                                              KIND[(<Tensor>item)._dtype] in b"iu"):
            n_real += 1
            continue
        if isinstance(item, (np.integer,)):
            n_real += 1
            continue
        return _frontend.advanced_getitem(self, key)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if n_real > n:
        raise IndexError(f"too many indices for a tensor of rank {n}: {n_real} given")
    out = _view_of(src)
    for item in key:
        if item is None:
            out._dims[k] = 1
            out._strides[k] = 0
            k += 1
        elif item is Ellipsis:
            for i in range(n - n_real):
                out._dims[k] = src._dims[d]
                out._strides[k] = src._strides[d]
                k += 1
                d += 1
        elif isinstance(item, slice):
            dim = src._dims[d]
            start, stop, step = item.indices(dim)
            if step > 0:
                length = (stop - start + step - 1) // step if stop > start else 0
            else:
                length = (start - stop - step - 1) // (-step) if start > stop else 0
            if length > 0:
                data += start * src._strides[d]
            out._dims[k] = length
            out._strides[k] = src._strides[d] * step
            k += 1
            d += 1
        else:
            idx = item.__index__()
            dim = src._dims[d]
            if idx < -dim or idx >= dim:
                raise IndexError(f"index {idx} is out of bounds for axis {d} with size {dim}")
            if idx < 0:
                idx += dim
            data += idx * src._strides[d]
            d += 1
        if k > MAXDIM:
            raise IndexError(f"too many dims (max {MAXDIM})")
    while d < n:
        out._dims[k] = src._dims[d]
        out._strides[k] = src._strides[d]
        k += 1
        d += 1
    out._data = data
    _finish(out, k)
    return out


def basic_getitem(Tensor t, key):
    return _getitem(t, key)


# ---------------------------------------------------------------------- DLPack
cdef struct _DLHolder:
    int64_t shape[MAXDIM]
    int64_t strides[MAXDIM]


cdef void _dl_deleter(DLManagedTensor* m) noexcept with gil:
    if m == NULL:
        return
    if m.manager_ctx != NULL:
        Py_DECREF(<object>m.manager_ctx)
    free(m.dl_tensor.shape)
    free(m)


cdef void _dl_deleter_v(DLManagedTensorVersioned* m) noexcept with gil:
    if m == NULL:
        return
    if m.manager_ctx != NULL:
        Py_DECREF(<object>m.manager_ctx)
    free(m.dl_tensor.shape)
    free(m)


cdef void _capsule_destructor(object capsule) noexcept:
    cdef DLManagedTensor* m
    if PyCapsule_IsValid(capsule, b"dltensor"):
        m = <DLManagedTensor*>PyCapsule_GetPointer(capsule, b"dltensor")
        if m != NULL and m.deleter != NULL:
            m.deleter(m)


cdef void _capsule_destructor_v(object capsule) noexcept:
    cdef DLManagedTensorVersioned* m
    if PyCapsule_IsValid(capsule, b"dltensor_versioned"):
        m = <DLManagedTensorVersioned*>PyCapsule_GetPointer(capsule, b"dltensor_versioned")
        if m != NULL and m.deleter != NULL:
            m.deleter(m)


cdef DLDataType _dl_dtype(int code):
    cdef DLDataType d
    d.lanes = 1
    d.bits = ITEMSIZE[code] * 8
    k = KIND[code]
    if code == D_PRED:
        d.code = kDLBool
    elif code == D_BF16:
        d.code = kDLBfloat
    elif k == b'i'[0]:
        d.code = kDLInt
    elif k == b'u'[0]:
        d.code = kDLUInt
    elif k == b'f'[0]:
        d.code = kDLFloat
    else:
        d.code = kDLComplex
    return d


cdef object _make_dlpack_capsule(Tensor t, bint versioned):
    cdef int i, n = t._ndim
    cdef int64_t isz = ITEMSIZE[t._dtype]
    cdef int64_t* arrays = <int64_t*>malloc(sizeof(int64_t) * (2 * n + 2))
    cdef DLTensor* dl
    cdef DLManagedTensor* m
    cdef DLManagedTensorVersioned* mv
    if arrays == NULL:
        raise MemoryError()
    for i in range(n):
        if t._strides[i] % isz != 0:
            free(arrays)
            raise BufferError("__dlpack__: strides are not multiples of the itemsize")
        arrays[i] = t._dims[i]
        arrays[n + i] = t._strides[i] // isz
    if versioned:
        mv = <DLManagedTensorVersioned*>malloc(sizeof(DLManagedTensorVersioned))
        if mv == NULL:
            free(arrays)
            raise MemoryError()
        mv.version.major = 1
        mv.version.minor = 0
        mv.flags = 0 if (t._flags & F_WRITEABLE) else XARR_DLPACK_FLAG_READ_ONLY
        mv.manager_ctx = <void*>t
        mv.deleter = _dl_deleter_v
        dl = &mv.dl_tensor
    else:
        m = <DLManagedTensor*>malloc(sizeof(DLManagedTensor))
        if m == NULL:
            free(arrays)
            raise MemoryError()
        m.manager_ctx = <void*>t
        m.deleter = _dl_deleter
        dl = &m.dl_tensor
    Py_INCREF(t)
    dl.data = t._data
    dl.device.device_type = kDLCPU
    dl.device.device_id = 0
    dl.ndim = n
    dl.dtype = _dl_dtype(t._dtype)
    dl.shape = arrays
    dl.strides = arrays + n
    dl.byte_offset = 0
    if versioned:
        return PyCapsule_New(<void*>mv, b"dltensor_versioned",
                             _capsule_destructor_v)
    return PyCapsule_New(<void*>m, b"dltensor", _capsule_destructor)


cdef class _DLPackOwner:
    """Keeps a consumed DLPack tensor alive; calls the producer's deleter when freed."""
    cdef DLManagedTensor* m
    cdef DLManagedTensorVersioned* mv

    def __dealloc__(self):
        if self.m != NULL and self.m.deleter != NULL:
            self.m.deleter(self.m)
        if self.mv != NULL and self.mv.deleter != NULL:
            self.mv.deleter(self.mv)


cdef int _code_from_dl(DLDataType d) except -1:
    if d.lanes != 1:
        raise BufferError(f"from_dlpack: vector dtypes (lanes={d.lanes}) are not supported")
    cdef int bits = d.bits
    if d.code == kDLBool and bits == 8:
        return D_PRED
    if d.code == kDLInt:
        table = {8: 1, 16: 2, 32: 3, 64: 4}
    elif d.code == kDLUInt:
        table = {8: 5, 16: 6, 32: 7, 64: 8}
    elif d.code == kDLFloat:
        table = {16: 9, 32: 11, 64: 12}
    elif d.code == kDLBfloat:
        table = {16: 10}
    elif d.code == kDLComplex:
        table = {64: 13, 128: 14}
    else:
        table = {}
    if bits not in table:
        raise BufferError(f"from_dlpack: unsupported DLPack dtype code={d.code} bits={bits}")
    return table[bits]


def from_dlpack_capsule(capsule):
    """A Tensor viewing the memory of a DLPack capsule (consumes the capsule)."""
    cdef DLManagedTensor* m = NULL
    cdef DLManagedTensorVersioned* mv = NULL
    cdef DLTensor* dl
    cdef _DLPackOwner owner = _DLPackOwner()
    cdef bint readonly = False
    if PyCapsule_IsValid(capsule, b"dltensor_versioned"):
        mv = <DLManagedTensorVersioned*>PyCapsule_GetPointer(capsule, b"dltensor_versioned")
        if mv.version.major > 1:
            raise BufferError(f"from_dlpack: DLPack version {mv.version.major} is too new")
        dl = &mv.dl_tensor
        readonly = (mv.flags & XARR_DLPACK_FLAG_READ_ONLY) != 0
        PyCapsule_SetName(capsule, b"used_dltensor_versioned")
        owner.mv = mv
    elif PyCapsule_IsValid(capsule, b"dltensor"):
        m = <DLManagedTensor*>PyCapsule_GetPointer(capsule, b"dltensor")
        dl = &m.dl_tensor
        PyCapsule_SetName(capsule, b"used_dltensor")
        owner.m = m
    else:
        raise BufferError("from_dlpack: not a (fresh) DLPack capsule")
    if dl.device.device_type != kDLCPU:
        raise BufferError(f"from_dlpack: device type {dl.device.device_type} is not the CPU")
    cdef int code = _code_from_dl(dl.dtype)
    cdef Tensor t = Tensor.__new__(Tensor)
    cdef int i, n = dl.ndim
    cdef int64_t isz = ITEMSIZE[code], stride = isz, lo = 0, hi = 0, st
    if n > MAXDIM:
        raise BufferError(f"from_dlpack: rank {n} exceeds {MAXDIM}")
    t._owner = owner
    t._data = <char*>dl.data + dl.byte_offset
    t._dtype = code
    t._flags = 0 if readonly else F_WRITEABLE
    for i in range(n - 1, -1, -1):
        t._dims[i] = dl.shape[i]
        if dl.strides != NULL:
            t._strides[i] = dl.strides[i] * isz
        else:
            t._strides[i] = stride
            stride *= dl.shape[i]
    for i in range(n):
        st = t._strides[i]
        if t._dims[i] > 0:
            if st > 0:
                hi += st * (t._dims[i] - 1)
            else:
                lo += st * (t._dims[i] - 1)
    _finish(t, n)
    t._buf = t._data + lo
    t._buf_nbytes = (hi - lo + isz) if t._size > 0 else 0
    return t
