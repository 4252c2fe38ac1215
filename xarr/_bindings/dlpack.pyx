# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: embedsignature=True
# distutils: language = c++
"""DLPack exchange (csrc/core/dlpack.h): Tensor.__dlpack__'s capsules
(``export_capsule``, registered as the ``dlpack_capsule`` entry point of
xarr/_dispatch.py) and the import of another library's (``from_dlpack_capsule``, used by
xa.from_dlpack). Zero-copy both ways; the exporter is kept alive by the capsule.
"""

from cpython.pycapsule cimport (PyCapsule_GetPointer, PyCapsule_IsValid, PyCapsule_New,
                                PyCapsule_SetName)
from cpython.ref cimport Py_DECREF, Py_INCREF
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc

from xarr._capi cimport (dtype_itemsize, dtype_kind, kBF16, kC128, kC64, kF16, kF32, kF64,
                         kMaxDims, kPred, kS16, kS32, kS64, kS8, kU16, kU32, kU64, kU8)
from xarr._tensor cimport F_WRITEABLE, Tensor, finish_view

from xarr._dispatch import register

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
    d.bits = dtype_itemsize(code) * 8
    k = dtype_kind(code)
    if code == kPred:
        d.code = kDLBool
    elif code == kBF16:
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


def export_capsule(Tensor t, bint versioned):
    """A DLPack capsule viewing strided ``t`` (Tensor.__dlpack__'s work; versioned: a
    DLPack 1.0 ``dltensor_versioned`` capsule)."""
    cdef int i, n = t._ndim
    cdef int64_t isz = dtype_itemsize(t._dtype)
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
        return kPred
    if d.code == kDLInt:
        table = {8: kS8, 16: kS16, 32: kS32, 64: kS64}
    elif d.code == kDLUInt:
        table = {8: kU8, 16: kU16, 32: kU32, 64: kU64}
    elif d.code == kDLFloat:
        table = {16: kF16, 32: kF32, 64: kF64}
    elif d.code == kDLBfloat:
        table = {16: kBF16}
    elif d.code == kDLComplex:
        table = {64: kC64, 128: kC128}
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
    cdef int64_t isz = dtype_itemsize(code), stride = isz, lo = 0, hi = 0, st
    if n > kMaxDims:
        raise BufferError(f"from_dlpack: rank {n} exceeds {kMaxDims}")
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
    finish_view(t, n)
    t._buf = t._data + lo
    t._buf_nbytes = (hi - lo + isz) if t._size > 0 else 0
    return t


register(dlpack_capsule=export_capsule)
