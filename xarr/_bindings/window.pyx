# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: embedsignature=True
# distutils: language = c++
"""Binding of the window family (csrc/kernels/window/window.h): reduce_window with a
monoid, select_and_scatter_add, and depthwise convolution. The shape rules are
xarr/_ops/window.py's and xarr/_ops/convolution.py's; this module checks the tensors
against the geometry it is given, fills the kernels' problems (byte strides) and releases
the GIL. A geometry is one tuple per dim: (size, stride, pad_lo, base_dilation,
window_dilation).
"""

from libc.stdint cimport int64_t

from xarr._capi cimport kF32, kF64
from xarr._tensor cimport F_TILED, F_WRITEABLE, Tensor, alloc_tensor, as_strided

from xarr._dtypes import DTYPES

cdef extern from "kernels/window/window.h" namespace "xarr" nogil:
    enum:
        kWindowMaxDims
    cdef cppclass WindowDim:
        int64_t size, stride, pad_lo, base_dil, win_dil
        int64_t in_ "in"
        int64_t out
    cdef cppclass ReduceWindowProblem:
        int op, dtype, ndim
        const char* in_ "in"
        char* out
        const void* init
        WindowDim dim[16]
        int64_t in_stride[16]
        int64_t out_stride[16]
    cdef cppclass SelectScatterProblem:
        int select, dtype, ndim
        const char* operand
        const char* source
        char* out
        const void* init
        WindowDim dim[16]
        int64_t operand_stride[16]
        int64_t source_stride[16]
        int64_t out_stride[16]
    cdef cppclass DepthwiseProblem:
        int dtype, nspatial
        const char* in_ "in"
        const char* w
        char* out
        int64_t batch, out_feat, multiplier
        WindowDim dim[3]
        int64_t in_sb, in_sf, w_sf, out_sb, out_sf
        int64_t in_s[3]
        int64_t w_s[3]
        int64_t out_s[3]
    cdef cppclass WinogradProblem:
        const char* in_ "in"
        const char* w
        char* out
        int64_t batch, in_feat, out_feat, in_h, in_w, out_h, out_w, pad_top, pad_left
        int64_t in_sb, in_sc, in_sh, w_so, w_si, w_sh, w_sw, out_sb, out_sk, out_sh
    void winograd_run(const WinogradProblem& p) except +
    int reduce_window_run(const ReduceWindowProblem& p) except +
    int select_and_scatter_add_run(const SelectScatterProblem& p) except +
    int depthwise_run(const DepthwiseProblem& p) except +

cdef int _F32 = DTYPES.index("float32")
OPS = {"add": 0, "mul": 1, "max": 2, "min": 3, "and": 4, "or": 5}
SELECTS = {"ge": 0, "gt": 1, "le": 2, "lt": 3}


cdef int _fill_dim(WindowDim* g, int64_t n_in, int64_t n_out, tuple geo) except -1:
    g.in_ = n_in
    g.out = n_out
    g.size, g.stride, g.pad_lo, g.base_dil, g.win_dil = geo
    if g.size < 0 or g.stride < 1 or g.base_dil < 1 or g.win_dil < 1:
        raise ValueError(f"window: bad geometry {geo}")
    return 0


cdef int _check_out(Tensor out, str op) except -1:
    if (out._flags & F_TILED) or not (out._flags & F_WRITEABLE):
        raise ValueError(f"{op}: out must be a writeable strided tensor")
    return 0


def reduce_window_into(Tensor out, Tensor x, str op, Tensor init, geometry):
    """out = ReduceWindow(x, init, op) (window.h) for monoid ``op`` ('add', 'mul', 'max',
    'min', 'and', 'or'); x, out and the 0-d init of one dtype, out's dims the window
    grid's. Raises TypeError for an op the dtype lacks."""
    cdef Tensor a = as_strided(x)
    cdef Tensor i0 = as_strided(init)
    cdef ReduceWindowProblem p
    cdef int d, rc
    _check_out(out, "reduce_window")
    if a._dtype != out._dtype or i0._dtype != a._dtype or i0._ndim != 0:
        raise TypeError("reduce_window: operand, init and out must share one dtype")
    if a._ndim != out._ndim or len(geometry) != a._ndim or a._ndim > kWindowMaxDims:
        raise ValueError(f"reduce_window: ranks differ (operand {a._ndim}, out "
                         f"{out._ndim}, geometry {len(geometry)})")
    p.op = OPS[op]
    p.dtype = a._dtype
    p.ndim = a._ndim
    p.in_ = a._data
    p.out = out._data
    p.init = i0._data
    for d in range(a._ndim):
        _fill_dim(&p.dim[d], a._dims[d], out._dims[d], tuple(geometry[d]))
        p.in_stride[d] = a._strides[d]
        p.out_stride[d] = out._strides[d]
    with nogil:
        rc = reduce_window_run(p)
    if rc:
        raise TypeError(f"reduce_window: '{op}' is not defined for {DTYPES[a._dtype]}")
    return out


def select_and_scatter_add_into(Tensor out, Tensor operand, Tensor source, str select,
                                Tensor init, geometry):
    """out (operand's shape) = init, then each window's selected element (select 'ge',
    'gt', 'le' or 'lt' against every later one: 'ge' picks the first maximum) + the
    window's source value (source's dims: the window grid's). One dtype throughout."""
    cdef Tensor a = as_strided(operand)
    cdef Tensor s = as_strided(source)
    cdef Tensor i0 = as_strided(init)
    cdef SelectScatterProblem p
    cdef int d, rc
    _check_out(out, "select_and_scatter_add")
    if not (a._dtype == s._dtype == out._dtype == i0._dtype) or i0._ndim != 0:
        raise TypeError("select_and_scatter_add: operand, source, init and out must share "
                        "one dtype")
    if not (a._ndim == s._ndim == out._ndim == len(geometry)) or a._ndim > kWindowMaxDims:
        raise ValueError("select_and_scatter_add: ranks differ")
    p.select = SELECTS[select]
    p.dtype = a._dtype
    p.ndim = a._ndim
    p.operand = a._data
    p.source = s._data
    p.out = out._data
    p.init = i0._data
    for d in range(a._ndim):
        if out._dims[d] != a._dims[d]:
            raise ValueError("select_and_scatter_add: out must have the operand's shape")
        _fill_dim(&p.dim[d], a._dims[d], s._dims[d], tuple(geometry[d]))
        p.operand_stride[d] = a._strides[d]
        p.source_stride[d] = s._strides[d]
        p.out_stride[d] = out._strides[d]
    with nogil:
        rc = select_and_scatter_add_run(p)
    if rc:
        raise TypeError(f"select_and_scatter_add: no kernel for {DTYPES[a._dtype]}")
    return out


def depthwise_into(Tensor out, Tensor lhs, Tensor rhs, spec, geometry, int64_t multiplier):
    """out = a convolution whose output feature f reads lhs feature f // multiplier
    (window.h depthwise_run). ``spec``: ((lhs batch, feature, spatial...), (rhs output
    feature, spatial...), (out batch, feature, spatial...)) dim numbers; geometry per
    spatial dim as above (base dilation: lhs dilation). f32 or f64, one dtype."""
    cdef Tensor a = as_strided(lhs)
    cdef Tensor w = as_strided(rhs)
    cdef DepthwiseProblem p
    cdef int d, rc, n = len(geometry)
    _check_out(out, "conv_general_dilated")
    if not (a._dtype == w._dtype == out._dtype) or n < 1 or n > 3:
        raise TypeError("depthwise: one f32 / f64 dtype and 1-3 spatial dims")
    ls, rs, os = spec
    p.dtype = a._dtype
    p.nspatial = n
    p.in_ = a._data
    p.w = w._data
    p.out = out._data
    p.batch = out._dims[os[0]]
    p.out_feat = out._dims[os[1]]
    p.multiplier = multiplier
    p.in_sb, p.in_sf = a._strides[ls[0]], a._strides[ls[1]]
    p.w_sf = w._strides[rs[0]]
    p.out_sb, p.out_sf = out._strides[os[0]], out._strides[os[1]]
    for d in range(n):
        _fill_dim(&p.dim[d], a._dims[ls[2 + d]], out._dims[os[2 + d]], tuple(geometry[d]))
        p.in_s[d] = a._strides[ls[2 + d]]
        p.w_s[d] = w._strides[rs[1 + d]]
        p.out_s[d] = out._strides[os[2 + d]]
    with nogil:
        rc = depthwise_run(p)
    if rc:
        raise TypeError(f"depthwise: no kernel for {DTYPES[a._dtype]}")
    return out


def correlate_1d(Tensor a, Tensor v, int64_t lo, int64_t hi, bint reverse_v):
    """Outputs [lo, hi) of the full correlation of 1-D ``a`` (length n) and ``v`` (length
    m >= 1) as a new tensor: out[j] = sum over taps t of a[lo + j + t - (m - 1)] * w[t],
    reads outside a being zero, with w = v, or v reversed when ``reverse_v`` (a
    convolution; read through a negative stride, not copied). One depthwise problem
    (window.h depthwise_run) of one feature, m taps and padding m - 1 - lo, so 0 <= lo
    <= m - 1 and lo <= hi. Worked example: a = [1, 2, 3], v = [0, 1, 0.5], lo 1, hi 4 ->
    [2, 3.5, 3]. None unless a and v are 1-D of one dtype, f32 or f64."""
    if a._ndim != 1 or v._ndim != 1 or a._dtype != v._dtype or \
            (a._dtype != kF32 and a._dtype != kF64):
        return None
    cdef Tensor x = as_strided(a)
    cdef Tensor w = as_strided(v)
    cdef int64_t m = w._dims[0], count = hi - lo
    cdef int rc
    if m < 1 or lo < 0 or lo > m - 1 or count < 0:
        raise ValueError(f"correlate_1d: outputs [{lo}, {hi}) of a correlation with {m} "
                         f"taps need 0 <= lo <= taps - 1 and lo <= hi")
    cdef Tensor out = alloc_tensor(x._dtype, 1, &count, None, False)
    cdef DepthwiseProblem p
    p.dtype = x._dtype
    p.nspatial = 1
    p.in_ = x._data
    p.w = w._data + (m - 1) * w._strides[0] if reverse_v else w._data
    p.out = out._data
    p.batch = p.out_feat = p.multiplier = 1
    p.in_sb = p.in_sf = p.w_sf = p.out_sb = p.out_sf = 0
    p.in_s[0] = x._strides[0]
    p.w_s[0] = -w._strides[0] if reverse_v else w._strides[0]
    p.out_s[0] = out._strides[0]
    _fill_dim(&p.dim[0], x._dims[0], count, (m, 1, m - 1 - lo, 1, 1))
    with nogil:
        rc = depthwise_run(p)
    if rc:
        raise TypeError(f"correlate_1d: no kernel for {DTYPES[x._dtype]}")
    return out


def winograd_into(Tensor out, Tensor lhs, Tensor rhs, spec, int64_t pad_top, int64_t pad_left):
    """out = a 3x3, stride-1 convolution of f32 lhs and rhs by Winograd's F(2x2, 3x3)
    (window.h winograd_run). ``spec`` as depthwise_into's (rhs: output feature, input
    feature, spatial...); lhs's and out's second spatial dims must be contiguous."""
    cdef Tensor a = as_strided(lhs)
    cdef Tensor w = as_strided(rhs)
    cdef WinogradProblem p
    _check_out(out, "conv_general_dilated")
    ls, rs, os = spec
    if not (a._dtype == w._dtype == out._dtype == _F32) or \
            len(ls) != 4 or w._dims[rs[2]] != 3 or w._dims[rs[3]] != 3 or \
            a._strides[ls[3]] != 4 or out._strides[os[3]] != 4:
        raise TypeError("winograd: f32, 2 spatial dims, a 3x3 window, contiguous rows")
    p.in_ = a._data
    p.w = w._data
    p.out = out._data
    p.batch = a._dims[ls[0]]
    p.in_feat, p.out_feat = a._dims[ls[1]], w._dims[rs[0]]
    p.in_h, p.in_w = a._dims[ls[2]], a._dims[ls[3]]
    p.out_h, p.out_w = out._dims[os[2]], out._dims[os[3]]
    p.pad_top, p.pad_left = pad_top, pad_left
    p.in_sb, p.in_sc, p.in_sh = a._strides[ls[0]], a._strides[ls[1]], a._strides[ls[2]]
    p.w_so, p.w_si = w._strides[rs[0]], w._strides[rs[1]]
    p.w_sh, p.w_sw = w._strides[rs[2]], w._strides[rs[3]]
    p.out_sb, p.out_sk, p.out_sh = out._strides[os[0]], out._strides[os[1]], out._strides[os[2]]
    if out._dims[os[0]] != p.batch or out._dims[os[1]] != p.out_feat or \
            w._dims[rs[1]] != p.in_feat:
        raise ValueError("winograd: operand and output dims disagree")
    with nogil:
        winograd_run(p)
    return out
