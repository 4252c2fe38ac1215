# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: embedsignature=True
# distutils: language = c++
"""Binding of the scan kernels (csrc/kernels/scan/scan.h): cumulative sum, product, max
and min along one axis. The rules are xarr/_ops/reduction.py's (lax.cumsum ...).
"""

from libc.stdint cimport int64_t

from xarr._tensor cimport F_TILED, F_WRITEABLE, Tensor, as_strided, shape_of

from xarr._dtypes import DTYPES

cdef extern from "kernels/scan/scan.h" namespace "xarr" nogil:
    enum ScanOp:
        kScanSum, kScanProd, kScanMax, kScanMin
    int scan_run(int op, int dtype, const char* src, int ndim, const int64_t* dims,
                 const int64_t* src_strides, int axis, char* dst, const int64_t* dst_strides) except +

# The op codes (csrc/kernels/scan/scan.h ScanOp).
SCAN_SUM, SCAN_PROD, SCAN_MAX, SCAN_MIN = kScanSum, kScanProd, kScanMax, kScanMin


def scan_into(int op, Tensor out, Tensor src, int axis):
    """out = the inclusive scan (SCAN_SUM/PROD/MAX/MIN) of src along ``axis``; out has
    src's shape and dtype (csrc/kernels/scan/scan.h). Releases the GIL."""
    cdef Tensor s = as_strided(src)
    cdef int i, rc
    if out._ndim != s._ndim or out._dtype != s._dtype or (out._flags & F_TILED) or \
            not (out._flags & F_WRITEABLE):
        raise ValueError(f"scan: out must be a writeable strided {DTYPES[s._dtype]} "
                         f"tensor of shape {shape_of(s)}")
    for i in range(s._ndim):
        if out._dims[i] != s._dims[i]:
            raise ValueError(f"scan: out has shape {shape_of(out)}, src {shape_of(s)}")
    if not 0 <= axis < s._ndim:
        raise ValueError(f"scan: axis {axis} out of range for rank {s._ndim}")
    with nogil:
        rc = scan_run(op, s._dtype, s._data, s._ndim, s._dims, s._strides, axis, out._data,
                      out._strides)
    if rc:
        raise TypeError(f"scan: op {op} is not defined for {DTYPES[s._dtype]}")
