# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: embedsignature=True
# distutils: language = c++
"""Binding of the elementwise kernel family (csrc/kernels/elementwise/): an op over
strided operands that broadcast to the output (``run_elementwise``) and Iota. The rules
(which op, which dtype, which shape) are xarr/_ops/elementwise.py's; the operators'
per-call fast paths are the tensor core's (xarr/_tensor_fastpaths.pxi).
"""

from libc.stdint cimport int64_t

from xarr._capi cimport iota_fill
from xarr._tensor cimport Tensor, alloc_tensor, ew_into


def run_elementwise(int op, int dtype, Tensor out, inputs):
    """out = op(*inputs): inputs have value dtype ``dtype`` and shapes that broadcast to
    out.shape (right-aligned). Releases the GIL around the kernel."""
    ew_into(op, dtype, out, list(inputs))


def iota(int dtype, int64_t n):
    """A 1-D tensor 0, 1, ..., n-1 of dtype code ``dtype``."""
    cdef int64_t dims[1]
    dims[0] = n
    cdef Tensor t = alloc_tensor(dtype, 1, dims, None, False)
    with nogil:
        iota_fill(dtype, t._data, n)
    return t
