# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: embedsignature=True
# distutils: language = c++
"""Binding of the reduction kernel family (csrc/kernels/reduce/reduce.h): checks a
reduction's tensors, fills the kernel's byte strides, releases the GIL. The rules (which
axes, which dtype, init values) are xarr/_ops/reduction.py's.
"""

from libc.stdint cimport int64_t

from xarr._capi cimport NOGIL_MIN_ELEMENTS, dtype_itemsize, kMaxDims, kS64
from xarr._tensor cimport (F_TILED, F_WRITEABLE, Tensor, alloc_tensor, as_strided,
                           buffers_overlap, shape_of)

from xarr._dtypes import DTYPES

cdef extern from "kernels/reduce/reduce.h" namespace "xarr" nogil:
    enum ReduceOp:
        kReduce_SUM, kReduce_PROD, kReduce_MAX, kReduce_MIN, kReduce_AND, kReduce_OR,
        kReduce_ARGMAX, kReduce_ARGMIN, kNumReduceOps
    int reduce_run(int op, int dtype, const char* src, int ndim, const int64_t* dims,
                   const int64_t* src_strides, const int64_t* dst_strides, char* dst) except +
    bint reduce_supported(int op, int dtype, int isa)
    const char* reduce_op_name(int op)

# The op codes (csrc/kernels/reduce/reduce.h ReduceOp).
REDUCE_SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN = kReduce_SUM, kReduce_PROD, kReduce_MAX, \
    kReduce_MIN
REDUCE_AND, REDUCE_OR = kReduce_AND, kReduce_OR
REDUCE_ARGMAX, REDUCE_ARGMIN = kReduce_ARGMAX, kReduce_ARGMIN
REDUCE_NAMES = tuple([reduce_op_name(op).decode().lower() for op in range(kNumReduceOps)])


def reduce_has_kernel(int op, int dtype):
    """True when the active ISA has a reduction kernel for (op, dtype code)."""
    return bool(reduce_supported(op, dtype, -1))


cdef int _run_kernel(int op, Tensor s, const bint* red, const int64_t* dst_strides,
                     Tensor out, object axes) except -3:
    """reduce_run over s into out (dims reduced where red[i]), its return code. max, min,
    and, or are idempotent: a reduced dim of stride 0 (a broadcast) repeats one value, so
    one step of it gives the same result (a broadcast of 2**62 elements reduces in no
    time). MemoryError names the axes (None: all) and the shape."""
    cdef int64_t dims[kMaxDims]
    cdef int i, rc
    for i in range(s._ndim):
        dims[i] = s._dims[i]
        if red[i] and s._strides[i] == 0 and dims[i] > 1 and \
                op in (kReduce_MAX, kReduce_MIN, kReduce_AND, kReduce_OR):
            dims[i] = 1
    try:
        if s._size < NOGIL_MIN_ELEMENTS:
            rc = reduce_run(op, s._dtype, s._data, s._ndim, dims, s._strides, dst_strides,
                            out._data)
        else:
            with nogil:
                rc = reduce_run(op, s._dtype, s._data, s._ndim, dims, s._strides,
                                dst_strides, out._data)
    except MemoryError:
        what = "a tensor" if axes is None else f"axes {axes} of a tensor"
        raise MemoryError(f"reduce {REDUCE_NAMES[op]}: reducing {what} of shape "
                          f"{shape_of(s)} needs more scratch memory than is available") \
            from None
    return rc


def reduce_whole(int op, Tensor src):
    """The reduction ``op`` of every element of untiled ``src`` into a new 0-d tensor of
    src's dtype (REDUCE_ARGMAX / ARGMIN: the int64 flat index, src 1-D and not empty):
    reduce_into's kernel call without its argument checks, for the callers that have
    made them (the whole-tensor small-call paths, xarr/_numpy/reductions.py). Worked
    example: reduce_whole(REDUCE_SUM, f32[3,4]) -> f32[] holding the pairwise sum."""
    cdef int64_t dst_strides[kMaxDims]
    cdef bint red[kMaxDims]
    cdef int i, rc, nd = src._ndim
    cdef bint arg = op == kReduce_ARGMAX or op == kReduce_ARGMIN
    cdef Tensor out
    if (src._flags & F_TILED) or not 0 <= op < kNumReduceOps or \
            (arg and (nd != 1 or src._size == 0)):
        raise ValueError(f"reduce_whole: op {op} on a tensor of shape {shape_of(src)}")
    out = alloc_tensor(kS64 if arg else src._dtype, 0, NULL, None, False)
    for i in range(nd):
        dst_strides[i] = 0
        red[i] = True
    rc = _run_kernel(op, src, red, dst_strides, out, None)
    if rc != 0:
        raise TypeError(f"reduce {REDUCE_NAMES[op]}: not defined for {DTYPES[src._dtype]}")
    return out


def reduce_into(int op, Tensor out, Tensor src, axes):
    """out = the reduction ``op`` (REDUCE_*) of src over ``axes`` (csrc/kernels/reduce/
    reduce.h). out has src's shape with the reduced axes removed, or kept as size 1
    (keepdims); its dtype is src's (s64 for REDUCE_ARGMAX/ARGMIN, which take one axis).
    An empty reduced extent gives the op's identity. Releases the GIL."""
    cdef Tensor s
    cdef int64_t dst_strides[kMaxDims]
    cdef bint red[kMaxDims]
    cdef int i, j, a, rc, nd, nred = 0
    cdef bint keep
    if not 0 <= op < kNumReduceOps:
        raise ValueError(f"reduce: unknown op code {op} (expected 0..{kNumReduceOps - 1})")
    name = REDUCE_NAMES[op]
    s = as_strided(src)
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
                             f"(shape {shape_of(s)})")
        if a < 0:
            a += nd
        if red[a]:
            raise ValueError(f"reduce {name}: axis {a} repeated in axes {tuple(ax_list)}")
        red[a] = True
        nred += 1
    if op >= REDUCE_ARGMAX:
        if nred != 1:
            raise ValueError(f"reduce {name}: takes exactly one axis, got {tuple(ax_list)}")
        if out._dtype != kS64:
            raise TypeError(f"reduce {name}: out must be int64, got {DTYPES[out._dtype]}")
        for i in range(nd):
            if red[i] and s._dims[i] == 0:
                raise ValueError(f"reduce {name}: attempt to get {name} of an empty axis "
                                 f"{i} (shape {shape_of(s)})")
    elif out._dtype != s._dtype:
        raise TypeError(f"reduce {name}: out dtype {DTYPES[out._dtype]} differs from "
                        f"the input's {DTYPES[s._dtype]}")
    if (out._flags & F_TILED) or not (out._flags & F_WRITEABLE):
        raise ValueError(f"reduce {name}: out must be a writeable strided tensor")
    if out._ndim == nd:
        keep = True
    elif out._ndim == nd - nred:
        keep = False
    else:
        raise ValueError(f"reduce {name}: out has shape {shape_of(out)}; reducing axes "
                         f"{tuple(ax_list)} of {shape_of(s)} needs rank {nd - nred} "
                         f"(or {nd} with keepdims)")
    j = 0
    for i in range(nd):
        if red[i]:
            if keep:
                if out._dims[i] != 1:
                    raise ValueError(f"reduce {name}: out has shape {shape_of(out)}; a kept "
                                     f"reduced axis {i} must have size 1")
            dst_strides[i] = 0
        else:
            j = i if keep else j
            if out._dims[j] != s._dims[i]:
                raise ValueError(f"reduce {name}: out has shape {shape_of(out)}, expected "
                                 f"{s._dims[i]} at out axis {j} (input shape {shape_of(s)})")
            # A stride of 0 marks a reduced dim: a size-1 kept dim has any non-zero one.
            dst_strides[i] = out._strides[j] if (out._strides[j] != 0 or s._dims[i] <= 1) \
                else -1
            if dst_strides[i] == 0:
                dst_strides[i] = dtype_itemsize(out._dtype)
            if dst_strides[i] == -1:
                raise ValueError(f"reduce {name}: out must not be broadcast (stride 0 at "
                                 f"axis {j})")
            j += 1
    if out._size > 0 and s._size > 0 and buffers_overlap(out, s):
        raise ValueError(f"reduce {name}: out overlaps the input")
    if not reduce_supported(op, s._dtype, -1):
        raise TypeError(f"reduce {name}: not defined for {DTYPES[s._dtype]}")
    rc = _run_kernel(op, s, red, dst_strides, out, tuple(ax_list))
    if rc == -1:
        raise TypeError(f"reduce {name}: not defined for {DTYPES[s._dtype]}")
    if rc != 0:
        raise ValueError(f"reduce {name}: bad call (rank {nd}, axes {tuple(ax_list)})")
