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
from libc.math cimport INFINITY
from libc.string cimport memcpy, memset
from libcpp.string cimport string
from libcpp.vector cimport vector

import numpy as np

from xarr import _methods
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
    ctypedef void (*NativeFusedFn)(char** args, const char** consts, int64_t n)
    cdef cppclass NativeForm:
        NativeFusedFn fn
        int isa
    cdef cppclass FusedProgram:
        int ninputs, ntemps, nconst, reduce_op
        const NativeForm* native
        vector[int] input_dtypes
        vector[int] temp_dtypes
        vector[int] output_dtypes
        vector[FusedInstr] code
    void set_native_fused(FusedProgram* p, NativeFusedFn f, int isa)
    string validate_fused(const FusedProgram& p)
    void run_fused(const FusedProgram& p, char** ptrs, int ndim, const int64_t* dims,
                   const int64_t* strides)
    void run_fused_reduce(const FusedProgram& p, char** ptrs, int64_t outer, int64_t inner,
                          const int64_t* strides_outer, const int64_t* strides_inner,
                          int64_t out_stride)

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

    # NumPy-style methods (t.sum(axis=0) ...): one definition each, in xarr/_methods.py.
    sum = _methods.sum
    prod = _methods.prod
    mean = _methods.mean
    var = _methods.var
    std = _methods.std
    max = _methods.max
    min = _methods.min
    argmax = _methods.argmax
    argmin = _methods.argmin
    any = _methods.any
    all = _methods.all
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
    fill = _methods.fill

    def __array_namespace__(self, *, api_version=None):
        """The Array API namespace: the xarr module."""
        if api_version is not None and api_version not in ("2021.12", "2022.12", "2023.12"):
            raise ValueError(f"__array_namespace__: unsupported api_version {api_version!r}")
        import xarr
        return xarr
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
cdef inline int _finish(Tensor t, int ndim) except -1:
    """Sets ndim, size, the shape tuple and the C-contiguous flag from dims/strides.
    ValueError when the element count does not fit in int64 (a broadcast view of shape
    (2**32, 2**32) would wrap to size 0 and fool every size-based check after it)."""
    cdef int i
    cdef int64_t size = 1, expect = ITEMSIZE[t._dtype]
    cdef int64_t big = 0x7fffffffffffffff
    cdef bint c = True
    t._ndim = ndim
    for i in range(ndim):
        if t._dims[i] == 0:
            size = 0
            break
    if size != 0:
        for i in range(ndim):
            if t._dims[i] > big // size:
                raise ValueError(f"tensor of shape {tuple([t._dims[j] for j in range(ndim)])}"
                                 f" is too big: more than 2**63 - 1 elements")
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
    return 0


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
    cdef int64_t stride = ITEMSIZE[dtype]
    cdef int64_t nbytes = _checked_nbytes(like._ndim, like._dims, ITEMSIZE[dtype])
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


# ---------------------------------------------------------------------- reductions
cdef extern from "kernels/reduce/reduce.h" namespace "xarr" nogil:
    int reduce_run(int op, int dtype, const char* src, int ndim, const int64_t* dims,
                   const int64_t* src_strides, const int64_t* dst_strides, char* dst)
    bint reduce_supported(int op, int dtype, int isa)

# Op codes of csrc/kernels/reduce/reduce.h (ReduceOp).
REDUCE_SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN = 0, 1, 2, 3
REDUCE_AND, REDUCE_OR, REDUCE_ARGMAX, REDUCE_ARGMIN = 4, 5, 6, 7
REDUCE_NAMES = ("sum", "prod", "max", "min", "and", "or", "argmax", "argmin")


def reduce_has_kernel(int op, int dtype):
    """True when the active ISA has a reduction kernel for (op, dtype code)."""
    return bool(reduce_supported(op, dtype, -1))


def reduce_into(int op, Tensor out, Tensor src, axes):
    """out = the reduction ``op`` (REDUCE_*) of src over ``axes`` (csrc/kernels/reduce/
    reduce.h). out has src's shape with the reduced axes removed, or kept as size 1
    (keepdims); its dtype is src's (s64 for REDUCE_ARGMAX/ARGMIN, which take one axis).
    An empty reduced extent gives the op's identity. Releases the GIL."""
    cdef Tensor s
    cdef int64_t dst_strides[MAXDIM]
    cdef bint red[MAXDIM]
    cdef int i, j, a, rc, nd, nred = 0
    cdef bint keep
    if not 0 <= op < 8:
        raise ValueError(f"reduce: unknown op code {op} (expected 0..7)")
    name = REDUCE_NAMES[op]
    s = _strided(src)
    nd = s._ndim
    try:
        ax_list = [int(v) for v in axes]
    except TypeError:
        raise TypeError(f"reduce {name}: axes must be a sequence of ints, got {axes!r}")
    for i in range(nd):
        red[i] = False
    for a in ax_list:
        if not -nd <= a < nd:
            raise ValueError(f"reduce {name}: axis {a} out of range for rank {nd} "
                             f"(shape {s._shape})")
        if a < 0:
            a += nd
        if red[a]:
            raise ValueError(f"reduce {name}: axis {a} repeated in axes {tuple(ax_list)}")
        red[a] = True
        nred += 1
    if op >= REDUCE_ARGMAX:
        if nred != 1:
            raise ValueError(f"reduce {name}: takes exactly one axis, got {tuple(ax_list)}")
        if out._dtype != D_S64:
            raise TypeError(f"reduce {name}: out must be int64, got {_DTYPE_OBJ[out._dtype]}")
        for i in range(nd):
            if red[i] and s._dims[i] == 0:
                raise ValueError(f"reduce {name}: attempt to get {name} of an empty axis "
                                 f"{i} (shape {s._shape})")
    elif out._dtype != s._dtype:
        raise TypeError(f"reduce {name}: out dtype {_DTYPE_OBJ[out._dtype]} differs from "
                        f"the input's {_DTYPE_OBJ[s._dtype]}")
    if (out._flags & F_TILED) or not (out._flags & F_WRITEABLE):
        raise ValueError(f"reduce {name}: out must be a writeable strided tensor")
    if out._ndim == nd:
        keep = True
    elif out._ndim == nd - nred:
        keep = False
    else:
        raise ValueError(f"reduce {name}: out has shape {out._shape}; reducing axes "
                         f"{tuple(ax_list)} of {s._shape} needs rank {nd - nred} "
                         f"(or {nd} with keepdims)")
    j = 0
    for i in range(nd):
        if red[i]:
            if keep:
                if out._dims[i] != 1:
                    raise ValueError(f"reduce {name}: out has shape {out._shape}; a kept "
                                     f"reduced axis {i} must have size 1")
            dst_strides[i] = 0
        else:
            j = i if keep else j
            if out._dims[j] != s._dims[i]:
                raise ValueError(f"reduce {name}: out has shape {out._shape}, expected "
                                 f"{s._dims[i]} at out axis {j} (input shape {s._shape})")
            # A stride of 0 marks a reduced dim: a size-1 kept dim has any non-zero one.
            dst_strides[i] = out._strides[j] if (out._strides[j] != 0 or s._dims[i] <= 1) \
                else -1
            if dst_strides[i] == 0:
                dst_strides[i] = ITEMSIZE[out._dtype]
            if dst_strides[i] == -1:
                raise ValueError(f"reduce {name}: out must not be broadcast (stride 0 at "
                                 f"axis {j})")
            j += 1
    if out._size > 0 and s._size > 0 and shares_buffer(out, s):
        raise ValueError(f"reduce {name}: out overlaps the input")
    if not reduce_supported(op, s._dtype, -1):
        raise TypeError(f"reduce {name}: not defined for {_DTYPE_OBJ[s._dtype]}")
    with nogil:
        rc = reduce_run(op, s._dtype, s._data, nd, s._dims, s._strides, dst_strides,
                        out._data)
    if rc == -1:
        raise TypeError(f"reduce {name}: not defined for {_DTYPE_OBJ[s._dtype]}")
    if rc != 0:
        raise ValueError(f"reduce {name}: bad call (rank {nd}, axes {tuple(ax_list)})")


# ---------------------------------------------------------------------- scans
cdef extern from "kernels/scan/scan.h" namespace "xarr" nogil:
    int scan_run(int op, int dtype, const char* src, int ndim, const int64_t* dims,
                 const int64_t* src_strides, int axis, char* dst, const int64_t* dst_strides)

SCAN_SUM, SCAN_PROD, SCAN_MAX, SCAN_MIN = 0, 1, 2, 3


def scan_into(int op, Tensor out, Tensor src, int axis):
    """out = the inclusive scan (SCAN_SUM/PROD/MAX/MIN) of src along ``axis``; out has
    src's shape and dtype (csrc/kernels/scan/scan.h). Releases the GIL."""
    cdef Tensor s = _strided(src)
    cdef int i, rc
    if out._ndim != s._ndim or out._dtype != s._dtype or (out._flags & F_TILED) or \
            not (out._flags & F_WRITEABLE):
        raise ValueError(f"scan: out must be a writeable strided {_DTYPE_OBJ[s._dtype]} "
                         f"tensor of shape {s._shape}")
    for i in range(s._ndim):
        if out._dims[i] != s._dims[i]:
            raise ValueError(f"scan: out has shape {out._shape}, src {s._shape}")
    if not 0 <= axis < s._ndim:
        raise ValueError(f"scan: axis {axis} out of range for rank {s._ndim}")
    with nogil:
        rc = scan_run(op, s._dtype, s._data, s._ndim, s._dims, s._strides, axis, out._data,
                      out._strides)
    if rc:
        raise TypeError(f"scan: op {op} is not defined for {_DTYPE_OBJ[s._dtype]}")


# ---------------------------------------------------------------------- fused kernels
FUSED_CONVERT = kFusedConvert
MAX_FUSED_OPERANDS = kMaxArgs


cdef class FusedKernel:
    """A validated fused elementwise program (csrc/fused/executor.h), built once by the
    graph compiler and run on every call.

    code: [(op, dtype, out_dtype, [argument registers], dst)] with op an EwOp code or
    FUSED_CONVERT. Registers: the run() inputs first, then ``constants`` (0-d tensors
    baked in at compile time), then temporaries; dst = -1 - k writes output k.

    reduce_op (kind=kInput fusion): -1, or REDUCE_SUM / REDUCE_MAX / REDUCE_MIN; the
    program then has one output whose values are reduced over the trailing ``reduce_ndim``
    dims of the iteration shape (bind) as they are computed, in one pass
    (csrc/fused/executor.h run_fused_reduce). run() always stores the unreduced values.
    """
    cdef FusedProgram prog
    cdef readonly int n_inputs
    cdef readonly tuple output_dtypes
    cdef readonly int reduce_op, reduce_ndim
    # the last reducing call ran fused (one pass); False: the unfused fallback (tests)
    cdef readonly bint last_fused
    cdef list constants
    # set by bind(): how __call__ picks its inputs from the fusion's operands
    cdef list numbers, maps, baked, out_m2m
    cdef tuple shape
    # (input dtypes, constant dtypes, temporary dtypes, output dtypes, code): the program
    # as given, for the native code generator (xarr/_graph/native.py)
    cdef readonly tuple spec
    # elements x instructions run so far; when it reaches hot_work, on_hot(self) is
    # called once (the graph compiler asks for the native form of a hot kernel)
    cdef readonly int64_t work
    cdef int64_t hot_work
    cdef object on_hot
    cdef object native_lib

    def __init__(self, input_dtypes, temp_dtypes, output_dtypes, code, constants=(),
                 int reduce_op=-1):
        cdef FusedInstr ins
        cdef Tensor c
        self.constants = [_strided(c) for c in constants]
        self.n_inputs = len(input_dtypes)
        self.output_dtypes = tuple(output_dtypes)
        self.reduce_op = reduce_op
        self.reduce_ndim = 0
        self.prog.reduce_op = reduce_op
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
        self.spec = (tuple(input_dtypes), tuple([c._dtype for c in self.constants]),
                     tuple(temp_dtypes), tuple(output_dtypes),
                     tuple([(op, dt, odt, tuple(args), dst)
                            for op, dt, odt, args, dst in code]))

    def watch(self, int64_t hot_work, on_hot):
        """Calls on_hot(self) once, from the call whose work (elements x instructions
        run, summed over calls) reaches hot_work."""
        self.hot_work = hot_work
        self.on_hot = on_hot

    def set_native(self, lib, uintptr_t address, int isa):
        """Runs the native form at ``address`` (NativeFusedFn, csrc/fused/executor.h),
        compiled for ISA code ``isa``, from the next run on whenever that ISA is active;
        ``lib`` (the loaded library) is kept alive with the kernel. address 0: interpret
        again."""
        if address:
            self.native_lib = lib
        set_native_fused(&self.prog, <NativeFusedFn>address, isa)

    @property
    def is_native(self):
        return self.prog.native != NULL

    cdef _count_work(self, int64_t size):
        self.work += size * <int64_t>self.prog.code.size()
        if self.on_hot is not None and self.work >= self.hot_work:
            cb, self.on_hot = self.on_hot, None
            cb(self)

    def bind(self, numbers, maps, baked, shape, out_m2m, int reduce_ndim=0):
        """Fixes how a call maps operands to inputs: input a is operands[numbers[a]] (or
        baked[a] when numbers[a] is None) read through maps[a]; outputs are new tensors
        of ``shape`` with minor_to_major out_m2m[k] (None: row-major).
        A reducing kernel: ``shape`` is the iteration shape, its trailing ``reduce_ndim``
        dims are reduced; the output is a new tensor of shape[:len(shape) - reduce_ndim]
        with minor_to_major out_m2m[0]."""
        if reduce_ndim != 0 and self.reduce_op < 0:
            raise ValueError("FusedKernel: reduce_ndim needs a reducing kernel (reduce_op)")
        if not 0 <= reduce_ndim <= len(shape):
            raise ValueError(f"FusedKernel: reduce_ndim {reduce_ndim} out of range for "
                             f"shape {tuple(shape)}")
        self.reduce_ndim = reduce_ndim
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
        if self.reduce_op >= 0:
            return [self._run_reduce(ins, nd, dims)]
        cdef list outs = [_alloc_tensor(self.prog.output_dtypes[a], nd, dims,
                                        self.out_m2m[a], False)
                          for a in range(len(self.output_dtypes))]
        self.run(ins, self.maps, self.shape, outs)
        return outs

    cdef int _bind_inputs(self, list inputs, maps, int ndim, const int64_t* dims,
                          char** ptrs, int64_t* strides, list keep) except -1:
        """Fills ptrs/strides (bytes, against the iteration dims) for the inputs, each
        broadcast right-aligned (maps[a] None) or through its BroadcastInDim map, then the
        constants (stride 0). Raises on a dtype or shape that does not fit."""
        cdef int nin = len(inputs), nc = len(self.constants), a, i, d
        cdef Tensor x
        shape = tuple([dims[i] for i in range(ndim)])
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
                                         f"broadcast to {shape}")
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
                                         f"map onto {shape} with {m}")
                    if x._dims[i] != 1:
                        strides[a * ndim + d] = x._strides[i]
        for a in range(nc):
            x = self.constants[a]
            ptrs[nin + a] = x._data
            for i in range(ndim):
                strides[(nin + a) * ndim + i] = 0
        return 0

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
        self._bind_inputs(inputs, maps, ndim, dims, ptrs, strides, keep)
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
        self._count_work(size)

    cdef Tensor _run_reduce(self, list inputs, int nd, int64_t* dims):
        """The reducing call: a new output of dims[:nd - reduce_ndim]. One fused pass when
        the kept dims coalesce into one ``outer`` dim and the reduced dims into one
        ``inner`` dim for every operand; else the values are computed into a temporary
        (run) and reduced by reduce_run."""
        cdef int nin = self.n_inputs, nc = len(self.constants), nk = nd - self.reduce_ndim
        cdef int a, i, d, rc, op = self.reduce_op, odt = self.prog.output_dtypes[0]
        cdef char* ptrs[65]
        cdef int64_t strides[64 * MAXDIM]
        cdef int64_t so[64]
        cdef int64_t si[64]
        cdef int64_t dst_strides[MAXDIM]
        cdef int64_t outer, inner, s_out
        cdef bint ok
        cdef Tensor x, tmp
        cdef list keep = []
        if len(inputs) != nin or nin + nc > 64:
            raise ValueError(f"FusedKernel: expected {nin} inputs, got {len(inputs)}")
        cdef Tensor out = _alloc_tensor(odt, nk, dims, self.out_m2m[0], False)
        self._bind_inputs(inputs, self.maps, nd, dims, ptrs, strides, keep)
        ptrs[nin + nc] = out._data
        ok = _coalesce_span(nin, nd, 0, nk, dims, strides, out._strides, so, &outer, &s_out)
        ok = ok and _coalesce_span(nin, nd, nk, nd, dims, strides, NULL, si, &inner, NULL)
        self.last_fused = ok
        if ok:
            with nogil:
                run_fused_reduce(self.prog, ptrs, outer, inner, so, si, s_out)
            self._count_work(outer * inner)
            return out
        # Unfused fallback (e.g. a transposed input): values into a temporary, then reduce.
        tmp = _alloc_tensor(odt, nd, dims, None, False)
        self.run(inputs, self.maps, self.shape, [tmp])
        for i in range(nd):
            if i >= nk:
                dst_strides[i] = 0
            else:
                dst_strides[i] = out._strides[i] if out._strides[i] != 0 else ITEMSIZE[odt]
        with nogil:
            rc = reduce_run(op, odt, tmp._data, nd, dims, tmp._strides, dst_strides,
                            out._data)
        if rc != 0:
            raise ValueError(f"FusedKernel: reduce_run failed ({rc})")
        return out


cdef bint _coalesce_span(int nargs, int nd, int lo, int hi, const int64_t* dims,
                         const int64_t* strides, const int64_t* extra, int64_t* merged,
                         int64_t* extent, int64_t* extra_merged) noexcept:
    """Merges dims lo..hi-1 (row-major order) into one dim for every operand a
    (strides[a * nd + d]) and for ``extra`` (one stride per dim, may be NULL): the merged
    stride is that of the innermost dim of extent > 1. False when some operand's strides
    do not chain (stride[d] == stride[d + 1] * dims[d + 1] over the non-1 dims)."""
    cdef int a, d
    cdef int64_t n = 1, span = 0
    for d in range(lo, hi):
        n *= dims[d]
    extent[0] = n
    for a in range(nargs):
        merged[a] = 0
    if extra_merged != NULL:
        extra_merged[0] = 0
    if n == 0:
        return True
    for d in range(hi - 1, lo - 1, -1):
        if dims[d] == 1:
            continue
        if span == 0:
            for a in range(nargs):
                merged[a] = strides[a * nd + d]
            if extra != NULL:
                extra_merged[0] = extra[d]
            span = dims[d]
            continue
        for a in range(nargs):
            if strides[a * nd + d] != merged[a] * span:
                return False
        if extra != NULL and extra[d] != extra_merged[0] * span:
            return False
        span *= dims[d]
    return True


# ---------------------------------------------------------------------- operators
cdef bint _weak_scalar_fits(int dtype, object b):
    """True when Python scalar ``b`` is a weak operand NumPy would cast to ``dtype``
    unchanged in kind: a float for a float/complex tensor; an int that is exact in a
    float64 for a float/complex tensor, or in range for an integer tensor (NumPy 2 raises
    OverflowError otherwise; the frontend does that). Bool tensors and other scalars
    take the frontend's rules (bool + int is int64)."""
    cdef char k = KIND[dtype]
    cdef int bits
    cdef double v, fmax
    if type(b) is float or type(b) is int:
        if k == b'f'[0] or k == b'c'[0]:
            # finite values beyond the dtype's range would overflow in the cast, which
            # NumPy reports with a RuntimeWarning: those take the frontend's path
            if type(b) is int and not (-9007199254740992 <= b <= 9007199254740992):
                return False
            v = b
            fmax = 65504.0 if dtype == D_F16 else 3.3895313892515355e38 if dtype == D_BF16 \
                else 3.4028234663852886e38 if (dtype == D_F32 or dtype == D_C64) else INFINITY
            return v != v or v == INFINITY or v == -INFINITY or -fmax <= v <= fmax
    if type(b) is not int:
        return False
    bits = 8 * ITEMSIZE[dtype]
    if k == b'i'[0]:
        return -(1 << (bits - 1)) <= b < (1 << (bits - 1))
    if k == b'u'[0]:
        return 0 <= b < (1 << bits)
    return False


cdef object _binop_scalar(Tensor x, object b, int op, bint scalar_first):
    """x <op> b (or b <op> x) for a weak Python scalar b that fits x's dtype, on
    C-contiguous untiled x; None when the op has no fast entry for the dtype."""
    cdef Tensor out
    cdef int od = _fast_out[op * NUM_DTYPES + x._dtype]
    cdef char* ptrs[3]
    cdef int64_t sizes[3]
    cdef char scalar_buf[16]
    cdef int xi = 1 if scalar_first else 0
    if od < 0:
        return None
    _write_scalar(scalar_buf, x._dtype, b)
    out = _alloc_like_shape(od, x)
    ptrs[xi] = x._data
    ptrs[1 - xi] = scalar_buf
    ptrs[2] = out._data
    sizes[xi] = ITEMSIZE[x._dtype]
    sizes[1 - xi] = 0
    sizes[2] = ITEMSIZE[od]
    with nogil:
        ew_run_contiguous(op, x._dtype, 3, ptrs, sizes, x._size)
    return out


cdef object _binop_broadcast(Tensor x, Tensor y, int op, int od):
    """x <op> y for same-dtype C-contiguous tensors of different shapes that broadcast
    (NumPy's rules, right-aligned) into a new row-major result, by run_elementwise. None
    when the shapes do not broadcast (the frontend raises the error). ``od`` comes from
    _fast_out, whose entries all have a kernel loop."""
    cdef int nd = x._ndim if x._ndim > y._ndim else y._ndim
    cdef int i, ox = nd - x._ndim, oy = nd - y._ndim
    cdef int64_t dims[MAXDIM]
    cdef int64_t dx, dy
    cdef Tensor out
    for i in range(nd):
        dx = x._dims[i - ox] if i >= ox else 1
        dy = y._dims[i - oy] if i >= oy else 1
        if dx == dy or dy == 1:
            dims[i] = dx
        elif dx == 1:
            dims[i] = dy
        else:
            return None
    out = _alloc_tensor(od, nd, dims, None, False)
    if out._size:
        run_elementwise(op, x._dtype, out, (x, y))
    return out


cdef object _binop(object a, object b, int op, str name):
    """The compiled fast path of a binary operator: same-dtype C-contiguous tensors (same
    shape, or shapes that broadcast), or a tensor and a weak Python scalar that fits its
    dtype (_weak_scalar_fits), go straight to the kernels; all else goes to the Python
    frontend's rules. Example: f32[10,10] - f32[1,10] and i32[100] * 3 take this path;
    i8[3] + 300 (OverflowError) and bool[3] + 1 (int64) do not."""
    cdef Tensor x, y, out
    cdef int od
    cdef char* ptrs[3]
    cdef int64_t sizes[3]
    if type(a) is Tensor and not _lazy_depth:
        x = <Tensor>a
        if (x._flags & F_C_CONTIG) and not (x._flags & F_TILED):
            if type(b) is Tensor:
                y = <Tensor>b
                if (y._dtype == x._dtype and (y._flags & F_C_CONTIG)
                        and not (y._flags & F_TILED)):
                    od = _fast_out[op * NUM_DTYPES + x._dtype]
                    if od >= 0 and (y._shape is x._shape or y._shape == x._shape):
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
                    if od >= 0:
                        out = _binop_broadcast(x, y, op, od)
                        if out is not None:
                            return out
            elif _weak_scalar_fits(x._dtype, b):
                out = _binop_scalar(x, b, op, False)
                if out is not None:
                    return out
    return _frontend.binary(name, a, b)


def unary_contiguous(object a, tuple per_dtype):
    """The compiled fast path of a one-operand NumPy function: ``per_dtype[dtype code]`` is
    (kernel op, result dtype code) when that dtype may skip the Python rules (the frontend
    builds it, xarr._ops.elementwise._unary_fast_table), else None. A C-contiguous,
    untiled tensor outside ``xa.lazy`` goes straight to the kernel; otherwise None is
    returned and the caller takes the general path."""
    cdef Tensor x, out
    cdef int op, od
    cdef char* ptrs[2]
    cdef int64_t sizes[2]
    if type(a) is not Tensor or _lazy_depth:
        return None
    x = <Tensor>a
    if not (x._flags & F_C_CONTIG) or (x._flags & F_TILED):
        return None
    entry = per_dtype[x._dtype]
    if entry is None:
        return None
    op, od = entry
    if not ew_has_loop(op, x._dtype):
        return None
    out = _alloc_like_shape(od, x)
    ptrs[0] = x._data
    ptrs[1] = out._data
    sizes[0] = ITEMSIZE[x._dtype]
    sizes[1] = ITEMSIZE[od]
    with nogil:
        ew_run_contiguous(op, x._dtype, 2, ptrs, sizes, x._size)
    return out


cdef object _binop_reflected(Tensor x, object b, int op, str name):
    """``b <op> x`` for a weak Python scalar ``b`` that fits x's dtype (e.g. ``2.0 * t``,
    ``1 - t``): the scalar is broadcast as the first operand; everything else goes to the
    frontend."""
    cdef object out
    if (not _lazy_depth and (x._flags & F_C_CONTIG) and not (x._flags & F_TILED)
            and _weak_scalar_fits(x._dtype, b)):
        out = _binop_scalar(x, b, op, True)
        if out is not None:
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


# ---------------------------------------------------------------------- gather / scatter
# Advanced indexing kernels (csrc/kernels/gather_scatter/gather_scatter.h). The frontend
# (xarr/_ops/indexing.py) parses the key, builds the strided view the arrays index, and
# passes int64 index arrays that are already broadcast to one shape; these functions fill
# the kernel descriptors from tensors (byte strides), allocate results and release the GIL.
cdef extern from "kernels/gather_scatter/gather_scatter.h" namespace "xarr" nogil:
    int kIndexOutOfBounds
    int64_t kMaskChunk
    cdef struct IndexedCopy:
        int itemsize
        int nidx
        const int64_t* idx[32]
        int64_t bound[32]
        int64_t idx_stride[32]
        int64_t npos
        int64_t pos_stride
        int nouter
        int64_t outer_dims[32]
        int64_t outer_tensor[32]
        int64_t outer_dense[32]
        int ninner
        int64_t inner_dims[32]
        int64_t inner_tensor[32]
        int64_t inner_dense[32]
    cdef struct MaskedCopy:
        int itemsize
        const uint8_t* mask
        int nmask
        int64_t mask_dims[32]
        int64_t mask_tensor[32]
        int64_t pos_stride
        int ninner
        int64_t inner_dims[32]
        int64_t inner_tensor[32]
        int64_t inner_dense[32]
    int gather(const IndexedCopy& c, const char* tensor, char* dense)
    int scatter(const IndexedCopy& c, char* tensor, const char* dense)
    bint first_bad_index(const IndexedCopy& c, int64_t* pos, int* which)
    int64_t mask_num_chunks(int64_t n)
    int64_t mask_count_chunks(const uint8_t* mask, int64_t n, int64_t* counts)
    int mask_compress(const MaskedCopy& c, const char* tensor, char* dense,
                      const int64_t* counts)
    int mask_assign(const MaskedCopy& c, char* tensor, const char* dense,
                    const int64_t* counts)
    void mask_nonzero(const uint8_t* mask, int ndim, const int64_t* dims,
                      const int64_t* counts, int64_t* const* out, int64_t out_stride)
    bint repeat_index(const int64_t* counts, int64_t n, int64_t* out)


cdef int _fill_indexed(IndexedCopy* c, Tensor src, list indices, list axes, int nouter,
                       list dense_outer, list dense_inner) except -1:
    """Fills the index and block parts of ``c`` for view ``src``: dims ``axes`` are indexed
    by ``indices`` (C-contiguous int64 tensors of one size), the other dims are the block,
    the first ``nouter`` of them outside the positions. dense_outer / dense_inner are the
    dense side's byte strides of those block dims."""
    cdef int j, d, k = 0, o = 0
    cdef Tensor ix
    cdef int nidx = len(indices)
    if nidx > 32 or nidx != len(axes):
        raise ValueError("gather/scatter: too many index arrays")
    c.itemsize = ITEMSIZE[src._dtype]
    c.nidx = nidx
    c.npos = 1
    for j in range(nidx):
        ix = indices[j]
        if ix._dtype != D_S64 or not (ix._flags & F_C_CONTIG) or (ix._flags & F_TILED):
            raise TypeError("gather/scatter: index arrays must be C-contiguous int64")
        if j == 0:
            c.npos = ix._size
        elif ix._size != c.npos:
            raise ValueError("gather/scatter: index arrays must have one size")
        d = axes[j]
        c.idx[j] = <const int64_t*>ix._data
        c.bound[j] = src._dims[d]
        c.idx_stride[j] = src._strides[d]
    c.nouter = 0
    c.ninner = 0
    indexed = set(axes)
    for d in range(src._ndim):
        if d in indexed:
            continue
        if o < nouter:
            c.outer_dims[o] = src._dims[d]
            c.outer_tensor[o] = src._strides[d]
            c.outer_dense[o] = dense_outer[o]
            o += 1
        else:
            c.inner_dims[k] = src._dims[d]
            c.inner_tensor[k] = src._strides[d]
            c.inner_dense[k] = dense_inner[k]
            k += 1
    c.nouter = o
    c.ninner = k
    return 0


cdef _raise_bad_index(IndexedCopy* c, list labels):
    cdef int64_t pos = 0
    cdef int which = 0
    if first_bad_index(c[0], &pos, &which):
        v = c.idx[which][pos]
        raise IndexError(f"index {v} is out of bounds for axis {labels[which]} with size "
                         f"{c.bound[which]}")
    raise IndexError("index out of bounds")


def gather_take(Tensor src, list indices, list axes, list labels, int nouter, tuple bshape):
    """A new C-contiguous tensor out[outer..., b..., inner...] = src[...] where src's dims
    ``axes`` take indices[j][b] (int64, C-contiguous, shape ``bshape``; negative wraps,
    out of bounds raises IndexError naming labels[j]) and the other dims of src split into
    the first ``nouter`` (outer) and the rest (inner), in order."""
    cdef IndexedCopy c
    cdef int d, n = src._ndim, nb = len(bshape), k = 0, rc
    cdef int64_t dims[MAXDIM]
    if src._flags & F_TILED:
        src = _strided(src)
    ax = set(axes)
    rest = [dd for dd in range(n) if dd not in ax]
    shape = [src._dims[dd] for dd in rest[:nouter]] + list(bshape) + \
        [src._dims[dd] for dd in rest[nouter:]]
    if len(shape) > MAXDIM:
        raise IndexError(f"the indexing result would have {len(shape)} dims (max {MAXDIM})")
    for d in range(len(shape)):
        dims[d] = shape[d]
    cdef Tensor out = _alloc_tensor(src._dtype, len(shape), dims, None, False)
    dense_outer = [out._strides[d] for d in range(nouter)]
    dense_inner = [out._strides[d] for d in range(nouter + nb, out._ndim)]
    _fill_indexed(&c, src, indices, axes, nouter, dense_outer, dense_inner)
    c.pos_stride = ITEMSIZE[src._dtype]
    for d in range(nouter + nb, out._ndim):
        c.pos_stride *= out._dims[d]
    cdef int64_t bad_pos = 0
    cdef int bad_which = 0
    if out._size == 0:
        if first_bad_index(c, &bad_pos, &bad_which):
            _raise_bad_index(&c, labels)
        return out
    with nogil:
        rc = gather(c, src._data, out._data)
    if rc == kIndexOutOfBounds:
        _raise_bad_index(&c, labels)
    elif rc != 0:
        raise ValueError("gather: bad arguments")
    return out


cdef bint _flat_stride(Tensor t, int first, int count, int64_t* stride):
    """Whether dims [first, first+count) of t flatten (C order) to one stride."""
    cdef int d
    cdef int64_t expect = 0
    cdef bint have = False
    for d in range(first + count - 1, first - 1, -1):
        if t._dims[d] == 1:
            continue
        if not have:
            stride[0] = t._strides[d]
            expect = t._strides[d] * t._dims[d]
            have = True
        elif t._strides[d] != expect:
            return False
        else:
            expect = t._strides[d] * t._dims[d]
    if not have:
        stride[0] = 0
    return True


def scatter_put(Tensor dst, list indices, list axes, list labels, int nouter, Tensor value):
    """dst[...] = value, the scatter matching gather_take: ``value`` has dst's dtype and
    exactly the shape gather_take would return (broadcast views with 0 strides are fine).
    Every index is checked before anything is written."""
    cdef IndexedCopy c
    cdef int d, rc, nb, nrest
    cdef int64_t ps = 0
    if not (dst._flags & F_WRITEABLE) or (dst._flags & F_TILED):
        raise ValueError("scatter: the destination must be a writeable strided tensor")
    if value._dtype != dst._dtype:
        raise TypeError("scatter: value must have the destination's dtype")
    value = _strided(value)
    nrest = dst._ndim - len(axes)
    nb = value._ndim - nrest
    if not _flat_stride(value, nouter, nb, &ps):
        value = _copy_dense(value, None)
        _flat_stride(value, nouter, nb, &ps)
    dense_outer = [value._strides[d] for d in range(nouter)]
    dense_inner = [value._strides[d] for d in range(nouter + nb, value._ndim)]
    _fill_indexed(&c, dst, indices, axes, nouter, dense_outer, dense_inner)
    c.pos_stride = ps
    with nogil:
        rc = scatter(c, dst._data, value._data)   # checks the indices also when empty
    if rc == kIndexOutOfBounds:
        _raise_bad_index(&c, labels)
    elif rc != 0:
        raise ValueError("scatter: bad arguments")


cdef Tensor _dense_mask(Tensor mask):
    if mask._dtype != D_PRED:
        raise TypeError(f"a boolean mask must be bool, got {_DTYPE_OBJ[mask._dtype]}")
    if (mask._flags & F_TILED) or not (mask._flags & F_C_CONTIG):
        return _copy_dense(mask, None)
    return mask


cdef int64_t* _chunk_counts(Tensor mask, int64_t* total) except NULL:
    cdef int64_t n = mask._size
    cdef int64_t nch = mask_num_chunks(n)
    cdef int64_t* counts = <int64_t*>malloc(sizeof(int64_t) * (nch + 1))
    if counts == NULL:
        raise MemoryError()
    with nogil:
        total[0] = mask_count_chunks(<const uint8_t*>mask._data, n, counts)
    return counts


cdef int _fill_masked(MaskedCopy* c, Tensor t, Tensor mask, Tensor dense, int64_t ps,
                      int dense_first) except -1:
    cdef int k = mask._ndim, d
    c.itemsize = ITEMSIZE[t._dtype]
    c.mask = <const uint8_t*>mask._data
    c.nmask = k
    for d in range(k):
        c.mask_dims[d] = t._dims[d]
        c.mask_tensor[d] = t._strides[d]
    c.pos_stride = ps
    c.ninner = t._ndim - k
    for d in range(k, t._ndim):
        c.inner_dims[d - k] = t._dims[d]
        c.inner_tensor[d - k] = t._strides[d]
        c.inner_dense[d - k] = dense._strides[dense_first + d - k]
    return 0


def mask_select(Tensor src, Tensor mask):
    """src[mask] for a bool mask over src's leading dims (shapes checked by the caller):
    a new C-contiguous tensor [count] + src.shape[mask.ndim:], in the mask's C order."""
    cdef MaskedCopy c
    cdef int64_t total = 0
    cdef int64_t dims[MAXDIM]
    cdef int d, k = mask._ndim, rc = 0
    src = _strided(src)
    mask = _dense_mask(mask)
    cdef int64_t* counts = _chunk_counts(mask, &total)
    cdef Tensor out
    try:
        dims[0] = total
        for d in range(k, src._ndim):
            dims[d - k + 1] = src._dims[d]
        out = _alloc_tensor(src._dtype, src._ndim - k + 1, dims, None, False)
        _fill_masked(&c, src, mask, out, out._strides[0], 1)
        if out._size:
            with nogil:
                rc = mask_compress(c, src._data, out._data, counts)
    finally:
        free(counts)
    if rc != 0:
        raise ValueError("mask_select: bad arguments")
    return out


def mask_put(Tensor dst, Tensor mask, Tensor value):
    """dst[mask] = value: ``value`` has dst's dtype and broadcasts (right-aligned) to
    [count] + dst.shape[mask.ndim:]; else ValueError."""
    cdef MaskedCopy c
    cdef int64_t total = 0
    cdef int d, k = mask._ndim, rc = 0, nres, off
    cdef int64_t ps
    if not (dst._flags & F_WRITEABLE) or (dst._flags & F_TILED):
        raise ValueError("mask assignment: the destination must be a writeable strided tensor")
    if value._dtype != dst._dtype:
        raise TypeError("mask assignment: value must have the destination's dtype")
    value = _strided(value)
    mask = _dense_mask(mask)
    cdef int64_t* counts = _chunk_counts(mask, &total)
    cdef Tensor v
    try:
        nres = dst._ndim - k + 1
        res_shape = [total] + [dst._dims[d] for d in range(k, dst._ndim)]
        if value._ndim > nres:
            raise ValueError(f"shape mismatch: value array of shape {value._shape} could not "
                             f"be broadcast to indexing result of shape {tuple(res_shape)}")
        off = nres - value._ndim
        shape, strides = [], []
        for d in range(nres):
            if d < off:
                shape.append(res_shape[d])
                strides.append(0)
                continue
            if value._dims[d - off] == res_shape[d]:
                strides.append(value._strides[d - off] if res_shape[d] != 1 else 0)
            elif value._dims[d - off] == 1:
                strides.append(0)
            else:
                if d == 0:
                    raise ValueError(
                        f"NumPy boolean array indexing assignment cannot assign "
                        f"{value._dims[0]} input values to the {total} output values where "
                        f"the mask is true")
                raise ValueError(f"shape mismatch: value array of shape {value._shape} could "
                                 f"not be broadcast to indexing result of shape "
                                 f"{tuple(res_shape)}")
            shape.append(res_shape[d])
        v = as_strided_view(value, shape, strides, 0, True)
        _fill_masked(&c, dst, mask, v, v._strides[0], 1)
        if total and v._size:
            with nogil:
                rc = mask_assign(c, dst._data, v._data, counts)
    finally:
        free(counts)
    if rc != 0:
        raise ValueError("mask assignment: bad arguments")


def nonzero_of(Tensor mask, bint argwhere=False):
    """The indices of mask's true elements (C order) as a new int64 tensor: [ndim, count]
    (NumPy's nonzero rows), or [count, ndim] with ``argwhere``."""
    cdef int64_t total = 0
    cdef int64_t dims[2]
    cdef int d, n = mask._ndim
    cdef int64_t* ptrs[MAXDIM]
    cdef int64_t ostride
    mask = _dense_mask(mask)
    cdef int64_t* counts = _chunk_counts(mask, &total)
    cdef Tensor out
    try:
        if argwhere:
            dims[0] = total
            dims[1] = n
        else:
            dims[0] = n
            dims[1] = total
        out = _alloc_tensor(D_S64, 2, dims, None, False)
        for d in range(n):
            if argwhere:
                ptrs[d] = (<int64_t*>out._data) + d
            else:
                ptrs[d] = (<int64_t*>out._data) + d * total
        ostride = n if argwhere else 1
        if total and n:
            with nogil:
                mask_nonzero(<const uint8_t*>mask._data, n, mask._dims, counts, ptrs, ostride)
    finally:
        free(counts)
    return out


def repeat_indices(Tensor counts):
    """0 repeated counts[0] times, 1 repeated counts[1] times, ... (int64 C-contiguous
    counts; ValueError for a negative count)."""
    cdef int64_t total = 0, i, n = counts._size
    cdef const int64_t* cp
    cdef bint ok
    if counts._dtype != D_S64 or not (counts._flags & F_C_CONTIG) or (counts._flags & F_TILED):
        counts = _copy_dense(counts.astype(np.int64) if counts._dtype != D_S64 else counts,
                             None)
    cp = <const int64_t*>counts._data
    for i in range(n):
        if cp[i] < 0:
            raise ValueError(f"repeat: negative repeat count {cp[i]}")
        total += cp[i]
    cdef int64_t dims[1]
    dims[0] = total
    cdef Tensor out = _alloc_tensor(D_S64, 1, dims, None, False)
    with nogil:
        ok = repeat_index(cp, n, <int64_t*>out._data)
    return out
