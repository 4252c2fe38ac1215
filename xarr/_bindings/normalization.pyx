# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Batch normalization's statistics kernel (csrc/kernels/normalization/norm.h): per-feature
sums of a and of a * b over every other dim, in float64. The op that uses it is
xarr/_ops/normalization.py's; this module checks the tensors, fills the problem (byte
strides) and releases the GIL."""

from libc.stdint cimport int64_t

from xarr._tensor cimport Tensor, as_strided

from xarr._dtypes import DTYPES

cdef extern from "kernels/normalization/norm.h" namespace "xarr" nogil:
    cdef cppclass FeatureSumsProblem:
        int dtype, ndim, feature
        const char* a
        const char* b
        int64_t dims[32]
        int64_t a_stride[32]
        int64_t b_stride[32]
        double* out
    int feature_sums_run(const FeatureSumsProblem& p) except +

cdef int _F64 = DTYPES.index("float64")


def feature_sums_into(Tensor out, Tensor a, Tensor b, int feature):
    """out (float64 [2, C], contiguous) = [sum of a, sum of a * b] per index of a's dim
    ``feature`` (C elements), over every other dim; a and b of one shape and dtype (f32 /
    f64)."""
    cdef Tensor x = as_strided(a)
    cdef Tensor y = as_strided(b)
    cdef FeatureSumsProblem p
    cdef int d, rc
    if x._ndim != y._ndim or any(x._dims[d] != y._dims[d] for d in range(x._ndim)) or \
            x._dtype != y._dtype or not 0 <= feature < x._ndim or x._ndim > 32:
        raise ValueError("feature_sums: a and b must share shape and dtype, feature in range")
    if out._dtype != _F64 or out._ndim != 2 or out._dims[0] != 2 or \
            out._dims[1] != x._dims[feature] or out._strides[1] != 8 or \
            out._strides[0] != 8 * out._dims[1]:
        raise ValueError("feature_sums: out must be a contiguous float64 [2, C]")
    p.dtype = x._dtype
    p.ndim = x._ndim
    p.feature = feature
    p.a = x._data
    p.b = y._data
    p.out = <double*> out._data
    for d in range(x._ndim):
        p.dims[d] = x._dims[d]
        p.a_stride[d] = x._strides[d]
        p.b_stride[d] = y._strides[d]
    with nogil:
        rc = feature_sums_run(p)
    if rc:
        raise TypeError(f"feature_sums: no kernel for {DTYPES[x._dtype]}")
    return out
