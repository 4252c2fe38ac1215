# Allocation: new dense tensors and the checks before them, included by xarr/_tensor.pyx.
# Sizes are computed without overflow (checked_nbytes); a tensor that cannot be allocated
# raises MemoryError naming its shape, dtype and bytes (alloc_error).


# ------------------------------------------------------------------ Tensor objects
# A free list of Tensor objects, through the type's tp_alloc / tp_free slots. A Tensor is
# ~600 bytes (its inline dims and strides), past pymalloc's 512-byte limit, so each view
# cost a malloc and a free. (Cython's @cython.freelist does not apply to a type with a
# base class, and Tensor inherits its operators.) Contract: a freed object is untracked
# by the GC (Tensor's tp_dealloc untracks it first); reuse zeroes it and tracks it
# again, as PyType_GenericAlloc does. Objects in the list are never Python-visible. As
# with Cython's freelists, a reused object does not count toward the next young-generation
# collection (nor does a listed one count down): a loop of views triggers none.
cdef extern from "Python.h":
    ctypedef PyObject* (*allocfunc)(PyTypeObject*, Py_ssize_t)
    ctypedef void (*freefunc)(void*)
    ctypedef struct TypeSlots "PyTypeObject":
        Py_ssize_t tp_basicsize
        allocfunc tp_alloc
        freefunc tp_free
    PyObject* PyType_GenericAlloc(PyTypeObject* tp, Py_ssize_t nitems)
    PyObject* PyObject_Init(PyObject* o, PyTypeObject* tp)
    void PyObject_GC_Track(void* o)
    void PyObject_GC_Del(void* o)
    int PyObject_GC_IsTracked(PyObject* o)

cdef enum:
    kTensorFreeListSize = 256
cdef PyObject* _free_tensors[kTensorFreeListSize]
cdef int _n_free_tensors = 0


cdef PyObject* _tensor_alloc(PyTypeObject* tp, Py_ssize_t nitems) noexcept:
    global _n_free_tensors
    cdef PyObject* o
    if _n_free_tensors == 0 or nitems != 0:
        return PyType_GenericAlloc(tp, nitems)
    _n_free_tensors -= 1
    o = _free_tensors[_n_free_tensors]
    memset(o, 0, (<TypeSlots*>tp).tp_basicsize)
    PyObject_Init(o, tp)
    PyObject_GC_Track(o)
    return o


cdef void _tensor_free(void* o) noexcept:
    global _n_free_tensors
    if _n_free_tensors < kTensorFreeListSize and not PyObject_GC_IsTracked(<PyObject*>o):
        _free_tensors[_n_free_tensors] = <PyObject*>o
        _n_free_tensors += 1
    else:
        PyObject_GC_Del(o)


(<TypeSlots*>Tensor).tp_alloc = _tensor_alloc
(<TypeSlots*>Tensor).tp_free = _tensor_free


cdef Tensor alloc_tensor(int dtype, int ndim, const int64_t* dims, object m2m, bint zero):
    """A new dense tensor; ``m2m`` (minor_to_major) None means row-major."""
    cdef Tensor t = Tensor.__new__(Tensor)
    cdef int i, d
    cdef int64_t stride = dtype_itemsize(dtype), nbytes
    if ndim > kMaxDims:
        raise ValueError(f"xarr supports at most {kMaxDims} dims, got {ndim}")
    for i in range(ndim):
        if dims[i] < 0:
            raise ValueError(f"negative dimension {dims[i]} in shape "
                             f"{tuple([dims[j] for j in range(ndim)])}")
        t._dims[i] = dims[i]
    nbytes = checked_nbytes(ndim, dims, dtype_itemsize(dtype), dtype)
    t._alloc = aligned_alloc64(nbytes)
    if t._alloc == NULL:
        raise alloc_error(ndim, dims, dtype)
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
    finish_view(t, ndim)
    return t


# No machine has more memory than this: larger sizes are refused before allocating.
cdef int64_t MAX_ALLOC_BYTES = (<int64_t>1) << 60


cdef int64_t checked_nbytes(int ndim, const int64_t* dims, int64_t itemsize,
                            int dtype) except -1:
    """prod(dims) * itemsize, computed without overflow; MemoryError (alloc_error) beyond
    2**60 bytes, which no machine has."""
    cdef int i
    cdef int64_t n = itemsize
    cdef int64_t limit = MAX_ALLOC_BYTES
    for i in range(ndim):
        if dims[i] == 0:
            return 0
    for i in range(ndim):
        if dims[i] > limit // n:
            raise alloc_error(ndim, dims, dtype)
        n *= dims[i]
    return n


cdef object alloc_error(int ndim, const int64_t* dims, int dtype):
    return _alloc_error(tuple([dims[i] for i in range(ndim)]), dtype)


def _alloc_error(shape, int dtype):
    """The MemoryError for a tensor that cannot be allocated, naming its shape, dtype and
    size: "cannot allocate a tensor of shape (1152921504606846976,) and dtype float64:
    9223372036854775808 bytes (8 EiB)"."""
    nbytes = _python_nbytes(shape, dtype)
    return MemoryError(f"cannot allocate a tensor of shape {tuple(shape)} and dtype "
                       f"{_DTYPE_OBJ[dtype]}: {nbytes} bytes "
                       f"({_human_bytes(nbytes)})")


def check_alloc(shape, int dtype):
    """Raises alloc_error's MemoryError when a tensor of ``shape`` and dtype code ``dtype``
    needs more than 2**60 bytes (for frontends that build a result's shape from factors
    whose product may overflow int64, such as xa.tile)."""
    if _python_nbytes(shape, dtype) > MAX_ALLOC_BYTES:
        raise _alloc_error(shape, dtype)


def _python_nbytes(shape, int dtype):
    """prod(shape) * itemsize as a Python int (never overflows)."""
    nbytes = int(dtype_itemsize(dtype))
    for d in shape:
        nbytes *= d
    return nbytes


def _physical_memory():
    """Bytes of RAM (2**62 where the OS does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        return 1 << 62


def _human_bytes(n):
    """1536 -> '1.5 KiB'; 2**63 -> '8 EiB'."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if n < 1024 or unit == "EiB":
            return f"{n:.3g} {unit}"
        n /= 1024


cdef inline Tensor _alloc_like_shape(int dtype, Tensor like):
    cdef Tensor t = Tensor.__new__(Tensor)
    cdef int i
    cdef int n = like._ndim
    cdef int64_t stride = dtype_itemsize(dtype)
    cdef int64_t nbytes = checked_nbytes(like._ndim, like._dims, dtype_itemsize(dtype),
                                         dtype)
    t._alloc = aligned_alloc64(nbytes)
    if t._alloc == NULL:
        raise alloc_error(like._ndim, like._dims, dtype)
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
    t._shape_memo = like._shape_memo
    return t


cdef int fill_dims(object shape, int64_t* dims) except -1:
    cdef int n = len(shape), i
    if n > kMaxDims:
        raise ValueError(f"xarr supports at most {kMaxDims} dims, got {n}")
    for i in range(n):
        dims[i] = shape[i]
    return n


def empty(shape, int dtype, m2m=None, bint zero=False):
    """A new dense tensor of dtype code ``dtype`` with minor_to_major ``m2m`` (None: row
    major). Internal: the frontend validates arguments first."""
    cdef int64_t dims[kMaxDims]
    cdef int n = fill_dims(shape, dims)
    return alloc_tensor(dtype, n, dims, m2m, zero)


def new_filled(shape, int dtype, value):
    """The small-call path of xa.empty / zeros / ones / full: a new row-major tensor for a
    ``shape`` that is an int or a tuple of ints (else None: the frontend's checks and
    messages), left uninitialized (value None), zeroed (value 0 of any type) or filled
    with a Python scalar the frontend has checked."""
    cdef int64_t dims[kMaxDims]
    cdef int n, i
    cdef Tensor t
    if type(shape) is int:
        n = 1
        dims[0] = shape
    elif type(shape) is tuple and len(<tuple>shape) <= kMaxDims:
        n = len(<tuple>shape)
        for i in range(n):
            d = (<tuple>shape)[i]
            if type(d) is not int:
                return None
            dims[i] = d
    else:
        return None
    for i in range(n):
        if dims[i] < 0:
            return None
    zero = value is not None and type(value) is not bool and value == 0 and \
        not (type(value) is float and (<double>value) == 0 and _signbit(value))
    t = alloc_tensor(dtype, n, dims, None, zero)
    if value is not None and not zero and t._size:
        convert_into(t, scalar_tensor(value, dtype))
    return t


# dtype arguments seen by the creators -> dtype code (None is float64); the frontend
# fills it (xarr/_ops/creation.py _code_of) the first time it resolves one.
cdef dict _DTYPE_ARGUMENT_CODES = {None: kF64}


def dtype_argument_code(dtype):
    """The remembered code of a dtype argument, or None (unseen or unhashable)."""
    try:
        return _DTYPE_ARGUMENT_CODES.get(dtype)
    except TypeError:
        return None


def remember_dtype_argument(dtype, int code):
    try:
        if len(_DTYPE_ARGUMENT_CODES) < 256:
            _DTYPE_ARGUMENT_CODES[dtype] = code
    except TypeError:                     # an unhashable dtype argument: not remembered
        pass


cdef object _filled_by_argument(object shape, object dtype, object value):
    cdef object code = dtype_argument_code(dtype)
    if code is None:
        return None
    return new_filled(shape, <int>code, value)


def numpy_zeros(shape, dtype=None, *, layout=None, device=None):
    """A tensor of zeros (dtype default float64), xa.zeros: the common call (an int or a
    tuple of ints, a dtype seen before, no layout) is made here; the rest by the frontend
    (xarr/_ops/creation.py zeros_general)."""
    if layout is None and device is None:
        t = _filled_by_argument(shape, dtype, 0)
        if t is not None:
            return t
    return api.zeros_general(shape, dtype, layout=layout, device=device)


def numpy_empty(shape, dtype=None, *, layout=None, device=None):
    """An uninitialized tensor (dtype default float64), xa.empty: as numpy_zeros."""
    if layout is None and device is None:
        t = _filled_by_argument(shape, dtype, None)
        if t is not None:
            return t
    return api.empty_general(shape, dtype, layout=layout, device=device)


def clear_negative_zero(Tensor t):
    """A float or complex 0-d tensor holding -0.0 (a part of it) gets +0.0: NumPy's sums
    start from +0.0, so a sum of -0.0s is +0.0 (the reductions' direct path)."""
    cdef int i, parts = 2 if dtype_kind(t._dtype) == b'c'[0] else 1
    cdef int64_t size = dtype_itemsize(t._dtype) // parts
    cdef char* p
    cdef int64_t j
    cdef bint zero
    for i in range(parts):
        p = t._data + i * size
        zero = True                       # all bits but the sign clear: +-0.0
        for j in range(size - 1):
            if p[j] != 0:
                zero = False
        if zero and (p[size - 1] & 0x7f) == 0:
            p[size - 1] = 0


cdef inline bint _signbit(double v):
    return (<uint64_t*>&v)[0] >> 63


cdef type _NP_F64 = type(np.float64(0))
cdef type _NP_I64 = type(np.int64(0))
cdef type _NP_BOOL = type(np.True_)


cdef inline int _leaf_kind(object v):
    """1 float (Python or np.float64), 2 int (Python or np.int64), 3 bool (Python or
    np.bool_), 0 anything else: the leaves NumPy turns into float64 / int64 / bool."""
    cdef type t = type(v)
    if t is float or t is _NP_F64:
        return 1
    if t is int or t is _NP_I64:
        return 2
    if t is bool or t is _NP_BOOL:
        return 3
    return 0


def from_sequence(object obj):
    """The small-call path of xa.asarray / xa.array for a list or tuple of Python (or
    NumPy float64 / int64 / bool) scalars, flat or of equal-length rows, all of one kind:
    float64, int64 or bool, as NumPy infers them (``xa.array([1.0, 2.0])``,
    ``xa.asarray([(1, 2), (3, 4)])``, ``xa.array([t[0], t[1]])``). None for anything else
    (mixed kinds, deeper nesting, ints beyond int64, empty): the frontend's general
    conversion."""
    cdef Py_ssize_t n = len(obj), m = -1, i, j
    cdef int64_t dims[2]
    cdef type rt
    cdef object first, row, v
    cdef Tensor t
    cdef int kind, dtype, overflow = 0
    cdef double* fp
    cdef int64_t* ip
    cdef char* bp
    if n == 0:
        return None
    first = obj[0]
    rt = type(first)
    if rt is list or rt is tuple:
        m = len(first)
        if m == 0:
            return None
        kind = _leaf_kind(first[0])
    else:
        kind = _leaf_kind(first)
    if kind == 0:
        return None
    dtype = kF64 if kind == 1 else kS64 if kind == 2 else kPred
    for i in range(n):                          # shape and kinds first: nothing allocated
        row = obj[i]
        if m < 0:
            if _leaf_kind(row) != kind:
                return None
        else:
            if (type(row) is not list and type(row) is not tuple) or len(row) != m:
                return None
            for j in range(m):
                if _leaf_kind(row[j]) != kind:
                    return None
    dims[0] = n
    dims[1] = m
    t = alloc_tensor(dtype, 1 if m < 0 else 2, dims, None, False)
    fp = <double*>t._data
    ip = <int64_t*>t._data
    bp = t._data
    for i in range(n):
        row = obj[i]
        for j in range(1 if m < 0 else m):
            v = row if m < 0 else row[j]
            if kind == 1:
                fp[0] = <double>v
                fp += 1
            elif kind == 2:
                ip[0] = PyLong_AsLongLongAndOverflow(v, &overflow)
                if overflow:
                    return None                 # NumPy's rules for big ints
                ip += 1
            else:
                bp[0] = 1 if v else 0
                bp += 1
    return t


def empty_buffer(shape, int dtype, int64_t nelems, layout):
    """A tensor of logical ``shape`` whose buffer holds ``nelems`` elements laid out as the
    padded/tiled ``layout`` (strides are filled in by the caller via set_view for padded
    layouts; tiled tensors keep F_TILED)."""
    cdef int64_t dims[kMaxDims]
    cdef int n = fill_dims(shape, dims)
    cdef Tensor t = Tensor.__new__(Tensor)
    checked_nbytes(n, dims, dtype_itemsize(dtype), dtype)
    cdef int64_t nbytes = checked_nbytes(1, &nelems, dtype_itemsize(dtype), dtype)
    t._alloc = aligned_alloc64(nbytes)
    if t._alloc == NULL:
        raise alloc_error(1, &nelems, dtype)
    memset(t._alloc, 0, nbytes)
    t._data = <char*>t._alloc
    t._buf = t._data
    t._buf_nbytes = nbytes
    t._dtype = dtype
    t._flags = F_WRITEABLE
    for i in range(n):
        t._dims[i] = dims[i]
        t._strides[i] = 0
    finish_view(t, n)
    t._flags &= ~F_C_CONTIG
    t._layout = layout
    return t
