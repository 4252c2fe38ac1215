# Included by xarr/_tensor.pyx: the tensor core's side of NumPy. Scalars and zero-copy
# arrays come from NumPy's C API straight from a data pointer (t[i, j], float(t),
# np.asarray(t) at NumPy's own speed); rows are iterated as NumPy does.

# NumPy's C API: scalars and zero-copy arrays straight from a data pointer (t[i, j],
# float(t), np.asarray(t) at NumPy's own speed). References: PyArray_NewFromDescr steals
# one to its descr, PyArray_SetBaseObject one to its base.
cdef extern from "numpy/arrayobject.h":
    ctypedef Py_ssize_t npy_intp
    ctypedef struct PyArray_Descr:
        pass
    ctypedef struct PyTypeObject:
        pass
    ctypedef struct PyArrayObject:
        pass
    PyTypeObject PyArray_Type
    int NPY_ARRAY_WRITEABLE
    object PyArray_Scalar(void* data, PyArray_Descr* descr, object base)
    object PyArray_NewFromDescr(PyTypeObject* subtype, PyArray_Descr* descr, int nd,
                                npy_intp* dims, npy_intp* strides, void* data, int flags,
                                object obj)
    int PyArray_SetBaseObject(PyArrayObject* arr, object base) except -1
    int _import_array() except -1

_import_array()


cdef PyObject* _DESCR[kNumDTypes]       # np.dtype of each code (kept alive by _DTYPE_OBJ)
for _code, _dt in enumerate(_DTYPE_OBJ):
    _DESCR[_code] = <PyObject*>_dt


cdef inline object scalar_at(int dtype, char* data):
    """The NumPy scalar (np.float64, np.int32, np.bool_, ml_dtypes.bfloat16 ...) of the
    element of ``dtype`` at ``data``: what NumPy's own indexing returns."""
    return PyArray_Scalar(data, <PyArray_Descr*>_DESCR[dtype], None)


cdef bint _f_contiguous(Tensor t):
    """Dense column-major strides (NumPy's F_CONTIGUOUS: size-1 dims ignored)."""
    cdef int64_t expect = dtype_itemsize(t._dtype)
    cdef int i
    if t._flags & F_TILED:
        return False
    if t._size == 0:
        return True
    for i in range(t._ndim):
        if t._dims[i] != 1:
            if t._strides[i] != expect:
                return False
            expect *= t._dims[i]
    return True


cdef class _Rows:
    """Iterator over the leading dim of a strided tensor (Tensor.__iter__): each step
    makes its row's view (or scalar) directly, without the indexing machinery."""
    cdef Tensor _t
    cdef int64_t _i

    def __cinit__(self, Tensor t):
        self._t = t
        self._i = 0

    def __iter__(self):
        return self

    def __next__(self):
        cdef Tensor t = self._t
        if self._i >= t._dims[0]:
            raise StopIteration
        cdef char* data = t._data + self._i * t._strides[0]
        self._i += 1
        if t._ndim == 1:
            return scalar_at(t._dtype, data)
        return _view_at(t, t._ndim - 1, &t._dims[1], &t._strides[1], data)
