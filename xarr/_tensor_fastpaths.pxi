# Included by xarr/_tensor.pyx: the per-call fast paths of Tensor's Python protocol.
#
# Binary operators (TensorOperators, generated from xarr/_dispatch.py, calls _binop and
# _binop_reflected with the operator's slot), one-operand NumPy functions
# (unary_contiguous) and basic indexing (_getitem) check in C whether the operands are
# simple enough to go straight to a kernel or a view; everything else goes to the
# registered Python entry points (api.binary, api.getitem), which own the rules.

# ---------------------------------------------------------------------- operators
cdef object _np_float64 = np.float64


cdef bint _weak_scalar_fits(int dtype, object b):
    """True when Python scalar ``b`` is a weak operand NumPy would cast to ``dtype``
    unchanged in kind: a float for a float/complex tensor; an int that is exact in a
    float64 for a float/complex tensor, or in range for an integer tensor (NumPy 2 raises
    OverflowError otherwise; the frontend does that). Bool tensors and other scalars
    take the frontend's rules (bool + int is int64)."""
    cdef char k = dtype_kind(dtype)
    cdef object bits            # a Python int: 1 << 63 must not overflow a C int
    cdef double v, fmax
    if type(b) is _np_float64:
        # NumPy's float64 scalar (what t[i, j] of a float64 tensor gives) is strongly
        # typed, but with a float64 or complex128 tensor it changes no dtype either
        return dtype == kF64 or dtype == kC128
    if type(b) is float or type(b) is int:
        if k == b'f'[0] or k == b'c'[0]:
            # finite values beyond the dtype's range would overflow in the cast, which
            # NumPy reports with a RuntimeWarning: those take the frontend's path
            if type(b) is int and not (-9007199254740992 <= b <= 9007199254740992):
                return False
            v = b
            fmax = 65504.0 if dtype == kF16 else 3.3895313892515355e38 if dtype == kBF16 \
                else 3.4028234663852886e38 if (dtype == kF32 or dtype == kC64) else INFINITY
            return v != v or v == INFINITY or v == -INFINITY or -fmax <= v <= fmax
    if type(b) is not int:
        return False
    bits = 8 * dtype_itemsize(dtype)
    if k == b'i'[0]:
        return -(1 << (bits - 1)) <= b < (1 << (bits - 1))
    if k == b'u'[0]:
        return 0 <= b < (1 << bits)
    return False


cdef inline void run_contiguous(int op, int dtype, int nargs, char** ptrs,
                                const int64_t* sizes, int64_t n):
    """ew_run_contiguous, releasing the GIL for NOGIL_MIN_ELEMENTS elements or more."""
    if n < NOGIL_MIN_ELEMENTS:
        ew_run_contiguous(op, dtype, nargs, ptrs, sizes, n)
        return
    with nogil:
        ew_run_contiguous(op, dtype, nargs, ptrs, sizes, n)


cdef int ew_into(int op, int dtype, Tensor out, list inputs) except -1:
    """out = op(*inputs): the inputs have value dtype ``dtype`` and shapes that broadcast to
    out's (right-aligned). Releases the GIL around the kernel."""
    cdef int nin = len(inputs), a, i
    cdef int nargs = nin + 1
    cdef int ndim = out._ndim
    cdef char* ptrs[kMaxArgs]
    cdef int64_t strides[kMaxArgs * kMaxDims]
    cdef Tensor x
    cdef int rc
    if nargs > kMaxArgs:
        raise ValueError(f"elementwise op {op}: too many operands ({nin})")
    for a in range(nin):
        x = inputs[a]
        ptrs[a] = x._data
        broadcast_strides(x, ndim, out._dims, &strides[a * ndim])
    ptrs[nin] = out._data
    for i in range(ndim):
        strides[nin * ndim + i] = out._strides[i]
    if out._size < NOGIL_MIN_ELEMENTS:
        rc = ew_run(op, dtype, nargs, ptrs, ndim, out._dims, strides)
    else:
        with nogil:
            rc = ew_run(op, dtype, nargs, ptrs, ndim, out._dims, strides)
    if rc != 0:
        raise TypeError(f"elementwise op {op} has no kernel for {_DTYPE_OBJ[dtype]}")
    return 0


def convert_into(Tensor out, Tensor src):
    """out[...] = src converted to out's dtype, src broadcasting to out.shape."""
    cdef char* ptrs[2]
    cdef int64_t strides[2 * kMaxDims]
    cdef int ndim = out._ndim, i, rc
    broadcast_strides(src, ndim, out._dims, strides)     # (checks the shapes)
    for i in range(ndim):
        strides[ndim + i] = out._strides[i]
    ptrs[0] = src._data
    ptrs[1] = out._data
    if src._dtype == out._dtype and src._ndim == ndim:
        if out._size < NOGIL_MIN_ELEMENTS:
            copy_strided(dtype_itemsize(out._dtype), ndim, out._dims, src._data, strides,
                         out._data, &strides[ndim])
            return
        with nogil:
            copy_strided(dtype_itemsize(out._dtype), ndim, out._dims, src._data, strides,
                         out._data, &strides[ndim])
        return
    if out._size < NOGIL_MIN_ELEMENTS:
        rc = ew_convert(src._dtype, out._dtype, ptrs, ndim, out._dims, strides)
    else:
        with nogil:
            rc = ew_convert(src._dtype, out._dtype, ptrs, ndim, out._dims, strides)
    if rc != 0:
        raise TypeError(f"no conversion from {_DTYPE_OBJ[src._dtype]} to "
                        f"{_DTYPE_OBJ[out._dtype]}")


cdef inline object _python_scalar_at(int dtype, const char* p):
    """The Python scalar of the element at p for f64, f32, s64, s32 or pred; None for other
    dtypes. (p aligned to the element's size.)"""
    if dtype == kF64:
        return (<const double*>p)[0]
    if dtype == kF32:
        return <double>(<const float*>p)[0]
    if dtype == kS64:
        return (<const int64_t*>p)[0]
    if dtype == kS32:
        return (<const int*>p)[0]
    if dtype == kPred:
        return (<const char*>p)[0] != 0
    return None


cdef object tolist_1d(Tensor t):
    """t.tolist() of an untiled 1-D t of f64, f32, s64, s32 or pred, read in place (no
    ndarray in between: 5 f64 elements 0.19 -> 0.1 us); None for other dtypes, and for
    elements not aligned to their size (a view with odd byte strides)."""
    cdef Py_ssize_t i, n = t._dims[0]
    cdef int64_t st = t._strides[0]
    cdef char* p = t._data
    cdef list out
    cdef object v
    if ((<uintptr_t>p) | <uintptr_t>st) & <uintptr_t>(dtype_itemsize(t._dtype) - 1):
        return None
    if not (t._dtype == kF64 or t._dtype == kF32 or t._dtype == kS64 or t._dtype == kS32
            or t._dtype == kPred):
        return None
    out = PyList_New(n)
    for i in range(n):
        v = _python_scalar_at(t._dtype, p + i * st)
        Py_INCREF(v)                                   # PyList_SET_ITEM steals it
        PyList_SET_ITEM(out, i, v)
    return out


cdef object item_in_place(Tensor t):
    """The Python scalar at an untiled t's first element for f64, f32, s64, s32 or pred
    (t.item() without a NumPy scalar between: 92 -> 68 ns); None for other dtypes, and
    for an element not aligned to its size."""
    cdef char* p = t._data
    if (<uintptr_t>p) & <uintptr_t>(dtype_itemsize(t._dtype) - 1):
        return None
    return _python_scalar_at(t._dtype, p)


cdef object _binop_scalar(Tensor x, object b, int slot, bint scalar_first):
    """x <op> b (or b <op> x) for a weak Python scalar b that fits x's dtype, on
    C-contiguous untiled x; None when the operator has no fast entry for the dtype."""
    cdef Tensor out
    cdef int od = _fast_out[slot * kNumDTypes + x._dtype]
    cdef int op = _fast_kernel[slot * kNumDTypes + x._dtype]
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
    sizes[xi] = dtype_itemsize(x._dtype)
    sizes[1 - xi] = 0
    sizes[2] = dtype_itemsize(od)
    run_contiguous(op, x._dtype, 3, ptrs, sizes, x._size)
    return out


cdef object result_m2m(Tensor t):
    """The layout an elementwise result takes from its operand t (the frontend's
    output_layout_for and the compiled fast paths both ask here): None (row-major) for a
    C-contiguous or tiled t, or one whose strides already order its dims row-major (x[::2],
    x[::-1, 1:]); otherwise t's dims by |stride|, most minor first, where a size-1 or a
    broadcast (stride 0) dim says nothing and sorts just outside the next dim to its right.
    Worked examples: t.T of a row-major f32[2,3] -> (0, 1); broadcast_to(f32[3], (4, 3))
    (strides (0, 4)) -> None, as NumPy gives a C-ordered result."""
    cdef int n = t._ndim, i, j, m = 0
    cdef int64_t k = 0
    cdef int64_t keys[kMaxDims]
    cdef int order[kMaxDims]
    if n <= 1 or (t._flags & F_C_CONTIG) or (t._flags & F_TILED):
        return None
    for i in range(n - 1, -1, -1):
        if t._dims[i] > 1 and t._strides[i] != 0:
            k = t._strides[i] if t._strides[i] > 0 else -t._strides[i]
        keys[i] = k
    for i in range(n - 1, -1, -1):          # a stable insertion sort by key: ties keep
        j = m                               # the dim to the right more minor
        while j > 0 and keys[order[j - 1]] > keys[i]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i
        m += 1
    for j in range(n):
        if order[j] != n - 1 - j:
            return tuple([order[i] for i in range(n)])
    return None


def result_layout_of(Tensor t):
    """minor_to_major of an elementwise result that follows operand t (None: row-major);
    see result_m2m."""
    return result_m2m(t)


cdef object _ew_broadcast(int op, int dtype, int od, list operands, list layout_by=None):
    """op(*operands) for untiled strided tensors of value dtype ``dtype`` whose shapes
    broadcast (NumPy's rules, right-aligned), into a new tensor of dtype ``od`` laid out
    as the frontend lays out an elementwise result (the first operand of the full shape
    with more than one element - among ``layout_by`` when given (where: x and y; clip: x
    first) - gives its layout: result_m2m). None when the shapes do not
    broadcast (the frontend raises the error). ``op`` must have a kernel loop for dtype
    (the fast tables' entries all do). Example: x.T + y, x[::2, ::2] * 2, x + row."""
    cdef int nd = 0, i, j, off
    cdef int64_t dims[kMaxDims]
    cdef int64_t dx
    cdef Tensor t, out
    cdef object m2m = None
    for t in operands:
        if t._ndim > nd:                # more dims: the shape so far moves right
            for i in range(nd - 1, -1, -1):
                dims[i + t._ndim - nd] = dims[i]
            for i in range(t._ndim - nd):
                dims[i] = 1
            nd = t._ndim
        off = nd - t._ndim
        for i in range(t._ndim):
            dx = t._dims[i]
            if dx == dims[off + i] or dx == 1:
                continue
            if dims[off + i] == 1:
                dims[off + i] = dx
            else:
                return None
    for t in (operands if layout_by is None else layout_by):
        if t._ndim == nd and t._size > 1:
            for j in range(nd):
                if t._dims[j] != dims[j]:
                    break
            else:
                m2m = result_m2m(t)
                break
    out = alloc_tensor(od, nd, dims, m2m, False)
    if out._size:
        ew_into(op, dtype, out, operands)
    return out


cdef object _binop_general(Tensor x, object b, int slot, bint scalar_first):
    """x <op> b (b <op> x when scalar_first) for an untiled strided x of any layout and a
    same-dtype untiled tensor or a weak scalar b, through the strided engine
    (_ew_broadcast); None when the fast tables have no entry or b does not qualify."""
    cdef int od = _fast_out[slot * kNumDTypes + x._dtype]
    cdef int op = _fast_kernel[slot * kNumDTypes + x._dtype]
    cdef Tensor y
    if od < 0:
        return None
    if type(b) is Tensor:
        y = <Tensor>b
        if y._dtype != x._dtype or (y._flags & F_TILED):
            return None
        return _ew_broadcast(op, x._dtype, od, [x, y])
    return _ew_broadcast(op, x._dtype, od, [scalar_tensor(b, x._dtype), x] if scalar_first
                         else [x, scalar_tensor(b, x._dtype)])


cdef object _bool_as(Tensor m, int dtype):
    """Bool tensor m converted to ``dtype`` (row-major), or None when m is tiled."""
    cdef Tensor out
    if m._flags & F_TILED:
        return None
    out = alloc_tensor(dtype, m._ndim, m._dims, None, False)
    if out._size:
        convert_into(out, m)
    return out


cdef object _binop_fast(object a, object b, int slot):
    """The compiled fast path of a binary operator or function: same-dtype untiled
    tensors (same shape, or shapes that broadcast; any strides: x[::2], x.T, x[::-1],
    broadcast_to views), or a tensor and a weak Python scalar that fits its dtype
    (_weak_scalar_fits), go straight to the kernels - C-contiguous same-shape operands
    through one contiguous loop, all else through the strided engine with the frontend's
    result layout (_ew_broadcast); None for all else (the Python frontend's rules).
    ``slot`` is the function's row in the fast tables (xarr/_dispatch.py FAST_SLOTS).
    Example: f32[10,10] - f32[1,10] and i32[100] * 3 take this path; i8[3] + 300
    (OverflowError) and bool[3] + 1 (int64) do not."""
    cdef Tensor x, y, out
    cdef int od, op
    cdef char* ptrs[3]
    cdef int64_t sizes[3]
    if _lazy_depth != 0 or type(a) is not Tensor:
        return None
    if type(b) is Tensor and ((<Tensor>a)._dtype == kPred) != ((<Tensor>b)._dtype == kPred):
        # a bool mask with numbers (count + alive, x * mask): NumPy computes in the other
        # operand's dtype, so the mask is converted to it first, as the frontend does
        if (<Tensor>a)._dtype == kPred:
            a = _bool_as(<Tensor>a, (<Tensor>b)._dtype)
        else:
            b = _bool_as(<Tensor>b, (<Tensor>a)._dtype)
        if a is None or b is None:
            return None
    x = <Tensor>a
    if x._flags & F_TILED:
        return None
    if type(b) is Tensor:
        y = <Tensor>b
        if (x._flags & F_C_CONTIG) and (y._flags & F_C_CONTIG) and y._dtype == x._dtype \
                and not (y._flags & F_TILED) and same_dims(x, y):
            od = _fast_out[slot * kNumDTypes + x._dtype]
            op = _fast_kernel[slot * kNumDTypes + x._dtype]
            if od < 0:
                return None
            out = _alloc_like_shape(od, x)
            ptrs[0] = x._data
            ptrs[1] = y._data
            ptrs[2] = out._data
            sizes[0] = dtype_itemsize(x._dtype)
            sizes[1] = sizes[0]
            sizes[2] = dtype_itemsize(od)
            run_contiguous(op, x._dtype, 3, ptrs, sizes, x._size)
            return out
        return _binop_general(x, y, slot, False)
    if _weak_scalar_fits(x._dtype, b):
        if x._flags & F_C_CONTIG:
            return _binop_scalar(x, b, slot, False)
        return _binop_general(x, b, slot, False)
    return None


def flat_view(Tensor t):
    """The 1-D view of a C-contiguous untiled tensor (its elements in row-major order);
    None for any other tensor."""
    cdef int64_t n = t._size
    cdef int64_t stride = dtype_itemsize(t._dtype)
    if (t._flags & F_TILED) or not (t._flags & F_C_CONTIG):
        return None
    return _view_at(t, 1, &n, &stride, t._data)


def where_fast(object cond, object x, object y, int select_op):
    """where(cond, x, y) for an eager untiled bool tensor cond and x, y tensors of one
    float or complex dtype or Python numbers that dtype holds as weak scalars (NumPy 2:
    where(m, f32_t, 0.0) stays float32; a float16's range keeps any float dtype from
    overflowing): one select kernel, laid out by x and y (as the frontend's where).
    None for everything else (xarr/_numpy/ufuncs.py where's general rules)."""
    cdef Tensor c, t
    cdef int dtype = -1
    cdef char k
    if type(cond) is not Tensor or _lazy_depth != 0:
        return None
    c = <Tensor>cond
    if c._dtype != kPred or (c._flags & F_TILED):
        return None
    for v in (x, y):
        if type(v) is Tensor:
            t = <Tensor>v
            if (t._flags & F_TILED) or (dtype >= 0 and t._dtype != dtype):
                return None
            dtype = t._dtype
    if dtype < 0:
        return None
    k = dtype_kind(dtype)
    if k != b'f'[0] and k != b'c'[0]:
        return None
    ops = [c]
    for v in (x, y):
        if type(v) is Tensor:
            ops.append(v)
        elif (type(v) is float or type(v) is int) and -65504 <= v <= 65504:
            ops.append(scalar_tensor(v, dtype))
        else:
            return None
    return _ew_broadcast(select_op, dtype, dtype, ops, ops[1:])


def same_dtype_apply(int op, list operands, int layout_first=0):
    """op(*operands) when every tensor operand is an eager untiled Tensor of one dtype, at
    least one is, and every other operand is a weak Python scalar that fits that dtype
    (_weak_scalar_fits), for an op that keeps the dtype and has a kernel loop for it: the
    result is laid out as the frontend's (_ew_broadcast). None otherwise (the caller's
    general rules). Used by NumPy functions built on one kernel with those rules: clip
    (clamp). The result's layout follows operands[layout_first] first, then the others in
    order (clip: x, as minimum(maximum(x, lo), hi) does). Example: clip(f32 x.T, 0.2,
    0.8) -> one clamp loop, column-major result."""
    cdef int dtype = -1, i
    cdef Tensor t
    if _lazy_depth != 0:
        return None
    for v in operands:
        if type(v) is Tensor:
            t = <Tensor>v
            if t._flags & F_TILED or (dtype >= 0 and t._dtype != dtype):
                return None
            dtype = t._dtype
        elif type(v) is not float and type(v) is not int:
            return None
    if dtype < 0 or not ew_has_loop(op, dtype):
        return None
    ts = []
    for v in operands:
        if type(v) is Tensor:
            ts.append(v)
        elif _weak_scalar_fits(dtype, v):
            ts.append(scalar_tensor(v, dtype))
        else:
            return None
    return _ew_broadcast(op, dtype, dtype, ts,
                         [ts[layout_first]] + ts[:layout_first] + ts[layout_first + 1:])


cdef object _binop(object a, object b, int slot, str name):
    """A binary operator: the fast path, else api.binary (NotImplemented for operands
    that are not array-like, so Python tries the reflected operator)."""
    cdef object out = _binop_fast(a, b, slot)
    if out is not None:
        return out
    return api.binary(name, a, b)


def call_binary(object a, object b, int slot, str name):
    """A binary NumPy function (xa.add(a, b), xarr/_numpy/ufuncs.py) without ``out=``:
    the operators' fast path (also scalar first: xa.multiply(2.0, t)), else the
    frontend's numpy_apply."""
    cdef object out = _binop_fast(a, b, slot)
    if out is None and type(b) is Tensor and type(a) is not Tensor:
        out = _reflected_fast(<Tensor>b, a, slot)
    if out is not None:
        return out
    return api.numpy_apply(name, a, b)


cdef dict _unary_entries = {}    # NumPy function name -> api.unary_entries(name)


def call_unary(object x, str name):
    """A one-operand NumPy function without ``out=`` (-t, abs(t), xa.exp(t)): the compiled
    path (unary_contiguous) with the function's per-dtype entries, else the frontend."""
    cdef object entries = _unary_entries.get(name)
    cdef object res
    if entries is None:
        entries = _unary_entries[name] = api.unary_entries(name)
    if entries:
        res = unary_contiguous(x, entries)
        if res is not None:
            return res
    return api.numpy_apply(name, x)


def unary_contiguous(object a, tuple per_dtype):
    """The compiled fast path of a one-operand NumPy function: ``per_dtype[dtype code]`` is
    (kernel op, result dtype code) when that dtype may skip the Python rules (the frontend
    builds it, xarr._ops.elementwise._unary_entries), else None. An untiled tensor outside
    ``xa.lazy`` goes straight to the kernel (a strided one through the strided engine, its
    result laid out as result_m2m says); otherwise None is returned and the caller takes
    the general path."""
    cdef Tensor x, out
    cdef int op, od
    cdef char* ptrs[2]
    cdef int64_t sizes[2]
    if type(a) is not Tensor or _lazy_depth != 0:
        return None
    x = <Tensor>a
    if x._flags & F_TILED:
        return None
    entry = per_dtype[x._dtype]
    if entry is None:
        return None
    op, od = entry
    if not ew_has_loop(op, x._dtype):
        return None
    if not (x._flags & F_C_CONTIG):              # a strided view: the strided engine
        out = alloc_tensor(od, x._ndim, x._dims, result_m2m(x), False)
        if not out._size:
            return out
        sizes[0] = _flat_stride(x, out)
        if sizes[0] == 0:
            ew_into(op, x._dtype, out, [x])
            return out
        ptrs[0] = x._data
        ptrs[1] = out._data
        sizes[1] = dtype_itemsize(od)
        run_contiguous(op, x._dtype, 2, ptrs, sizes, x._size)
        return out
    out = _alloc_like_shape(od, x)
    ptrs[0] = x._data
    ptrs[1] = out._data
    sizes[0] = dtype_itemsize(x._dtype)
    sizes[1] = dtype_itemsize(od)
    run_contiguous(op, x._dtype, 2, ptrs, sizes, x._size)
    return out


cdef int64_t _flat_stride(Tensor x, Tensor out):
    """The byte step that walks x in the memory order of ``out`` (a new dense tensor of
    x's shape): x[::2] -> 2 * itemsize, x[::-1] -> -itemsize, x.T into a column-major out
    -> itemsize; then a unary op is one 1-D loop. 0 when there is none (a broadcast, or
    x's elements do not follow out's order at one step): the N-D engine runs it."""
    cdef int i, k = -1
    cdef int64_t osz = dtype_itemsize(out._dtype), step = 0, e
    if x._ndim == 1:
        return x._strides[0]
    for i in range(x._ndim):
        if x._dims[i] == 1:
            continue
        e = out._strides[i] // osz          # out's element stride along i (dense: >= 1)
        if k < 0:
            if e <= 0 or x._strides[i] % e:
                return 0
            step = x._strides[i] // e
            k = i
        elif x._strides[i] != step * e:
            return 0
    return step


cdef object _reflected_fast(Tensor x, object b, int slot):
    """``b <op> x`` for a weak Python scalar ``b`` that fits x's dtype (e.g. ``2.0 * t``,
    ``1 - t``), the scalar broadcast as the first operand; None for everything else."""
    if _lazy_depth != 0 or (x._flags & F_TILED) or not _weak_scalar_fits(x._dtype, b):
        return None
    if x._flags & F_C_CONTIG:
        return _binop_scalar(x, b, slot, True)
    return _binop_general(x, b, slot, True)


cdef object _binop_reflected(Tensor x, object b, int slot, str name):
    """``b <op> x``: the fast path for a weak scalar b, else the frontend."""
    cdef object out = _reflected_fast(x, b, slot)
    if out is not None:
        return out
    return api.binary(name, b, x)


# ---------------------------------------------------------------------- indexing
# A basic key (ints, slices with any step, Ellipsis, None) resolved against a shape: one
# BasicDim per source dim and per new axis, in key order. The one place slice arithmetic
# lives: Tensor views (_getitem), the graph's basic indexing and the advanced-index rule
# (xarr/_ops/indexing.py, through basic_index_plan) all read it.
cdef struct BasicDim:
    int src             # the source dim, or -1 for a new axis (None)
    bint dropped        # an integer index: the dim goes away, `start` is the index
    int64_t start       # first source index read (meaningless when length == 0)
    int64_t length      # elements along the result dim (1 for a new axis)
    int64_t step        # source index step (0 when length <= 1)


cdef object _np_integer = np.integer


cdef inline bint _is_basic_int(object item):
    """An integer index: a Python or NumPy int, or a 0-d integer tensor (not a bool)."""
    cdef type t = type(item)
    if t is int:
        return True
    if t is bool:
        return False
    return isinstance(item, _np_integer) or isinstance(item, int) or (
        t is Tensor and (<Tensor>item)._ndim == 0 and
        dtype_kind((<Tensor>item)._dtype) in b"iu")


cdef int _slice_dim(object item, int64_t dim, BasicDim* out) except -1:
    """Slice ``item`` over a dim of size ``dim``: out's start, length and step (start only
    where the length is positive, step only where it is above 1; 0 otherwise). CPython's
    own slice arithmetic: steps beyond the index range are clamped to +-(2**63 - 1), which
    selects the same elements; lengths never overflow. (out.src is the caller's.)"""
    cdef Py_ssize_t start, stop, step
    PySlice_Unpack(item, &start, &stop, &step)
    out.length = PySlice_AdjustIndices(dim, &start, &stop, step)
    out.dropped = False
    out.start = start if out.length > 0 else 0
    out.step = step if out.length > 1 else 0
    return 0


cdef int _basic_plan(int n, const int64_t* dims, tuple key, BasicDim* out) except -2:
    """Fills out[0 .. count) for basic key ``key`` over dims[0 .. n); returns count, or -1
    when the key is not basic (an array, a bool, anything else: advanced indexing).
    IndexError for an out-of-range integer, two ellipses or too many indices.
    Worked example: dims (5, 6), key (1, None, slice(None, None, -2)) ->
    [(src 0, dropped, start 1), (new axis), (src 1, start 5, length 3, step -2)]."""
    cdef int i, d = 0, k = 0, n_real = 0, n_ell = 0
    cdef type t
    for item in key:
        t = type(item)
        if t is int or t is slice:
            n_real += 1
        elif item is None:
            continue
        elif item is Ellipsis:
            n_ell += 1
        elif _is_basic_int(item):
            n_real += 1
        else:
            return -1
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if n_real > n:
        raise IndexError(f"too many indices for a tensor of rank {n}: {n_real} given")
    for item in key:
        if k + n - d + 1 > 2 * kMaxDims:
            raise IndexError(f"too many dims (max {kMaxDims})")
        t = type(item)
        if t is slice:
            _slice_dim(item, dims[d], &out[k])
            out[k].src = d
            d += 1
        elif item is None:
            out[k].src = -1
            out[k].dropped = False
            out[k].start = 0
            out[k].length = 1
            out[k].step = 0
        elif item is Ellipsis:
            for i in range(n - n_real):
                out[k].src = d
                out[k].dropped = False
                out[k].start = 0
                out[k].length = dims[d]
                out[k].step = 1
                k += 1
                d += 1
            continue
        else:
            out[k].src = d
            out[k].dropped = True
            out[k].start = _index_value(item, dims[d], d)
            out[k].length = 1
            out[k].step = 0
            d += 1
        k += 1
    while d < n:
        out[k].src = d
        out[k].dropped = False
        out[k].start = 0
        out[k].length = dims[d]
        out[k].step = 1
        k += 1
        d += 1
    return k


cdef int64_t _index_value(object item, int64_t dim, int d) except? -1:
    """An integer index into a dim of size ``dim``, made non-negative; IndexError naming
    the axis when out of range (any Python int, however large)."""
    cdef int overflow = 0
    cdef long long v
    if type(item) is not int:
        item = item.__index__()
    v = PyLong_AsLongLongAndOverflow(item, &overflow)
    if overflow or v < -dim or v >= dim:
        raise IndexError(f"index {item} is out of bounds for axis {d} with size {dim}")
    return v + dim if v < 0 else v


cdef char* _element_at(Tensor src, object key) noexcept:
    """The element a key of Python ints, one per dim and each in range, selects (t[i, j]);
    NULL for any other key, which then takes the general path (and its errors)."""
    cdef tuple items
    cdef object item
    cdef int d, overflow = 0
    cdef long long v
    cdef char* p = src._data
    if type(key) is not tuple:
        return NULL
    items = <tuple>key
    if len(items) != src._ndim:
        return NULL
    for d in range(src._ndim):
        item = items[d]
        if type(item) is not int:
            return NULL
        v = PyLong_AsLongLongAndOverflow(item, &overflow)
        if overflow:
            return NULL
        if v < 0:
            v += src._dims[d]
        if v < 0 or v >= src._dims[d]:
            return NULL
        p += v * src._strides[d]
    return p


cdef int _basic_locate(Tensor src, tuple key, int64_t* dims, int64_t* strides,
                       char** data) except -2:
    """Resolves basic key ``key`` on strided ``src``: the result's dims, strides and first
    element (data); returns its rank, or -1 when the key is not basic."""
    cdef BasicDim plan[2 * kMaxDims]
    cdef int count, j, k = 0
    cdef char* p = src._data
    count = _basic_plan(src._ndim, src._dims, key, plan)
    if count < 0:
        return -1
    for j in range(count):
        if plan[j].src < 0:
            if k >= kMaxDims:
                raise IndexError(f"too many dims (max {kMaxDims})")
            dims[k] = 1
            strides[k] = 0
        else:
            if plan[j].length > 0:
                p += plan[j].start * src._strides[plan[j].src]
            if plan[j].dropped:
                continue
            if k >= kMaxDims:
                raise IndexError(f"too many dims (max {kMaxDims})")
            dims[k] = plan[j].length
            strides[k] = src._strides[plan[j].src] * plan[j].step if plan[j].step \
                else src._strides[plan[j].src]
        k += 1
    data[0] = p
    return k


cdef Tensor _view_at(Tensor src, int k, const int64_t* dims, const int64_t* strides,
                     char* data):
    cdef Tensor out = view_of(src)
    cdef int j
    for j in range(k):
        out._dims[j] = dims[j]
        out._strides[j] = strides[j]
    out._data = data
    finish_view(out, k)
    return out


cdef Tensor _first_dim_slice(Tensor src, object key):
    """src[key] for a slice ``key``: the general path's plan for a one-slice key
    (_slice_dim), made directly."""
    cdef BasicDim sl
    cdef int j
    cdef Tensor out = view_of(src)
    _slice_dim(key, src._dims[0], &sl)
    for j in range(1, src._ndim):
        out._dims[j] = src._dims[j]
        out._strides[j] = src._strides[j]
    out._dims[0] = sl.length
    out._strides[0] = src._strides[0] * sl.step if sl.step else src._strides[0]
    out._data = src._data + sl.start * src._strides[0]
    finish_view(out, src._ndim)
    return out


cdef object _getitem(Tensor self, object key, bint scalars):
    """Basic indexing (ints, slices with any step, Ellipsis, None) as a view; anything
    else is advanced indexing and goes to the frontend (api.getitem). With ``scalars``
    (Tensor.__getitem__), a key of integers only, one per dim, gives the element as a
    NumPy scalar, as NumPy's indexing does (t[1, 2] is np.float64; t[1, ...] stays a 0-d
    view): docs/architecture.md, "What t[i, j] returns"."""
    cdef Tensor src = as_strided(self)
    cdef int64_t dims[kMaxDims]
    cdef int64_t strides[kMaxDims]
    cdef char* data
    cdef int k
    cdef int64_t i
    cdef int overflow = 0
    if type(key) is int and src._ndim >= 1:     # t[i]: the commonest key, directly
        i = PyLong_AsLongLongAndOverflow(key, &overflow)
        if overflow:
            i = -(1 << 62)                       # out of range: the general path raises
        if i < 0:
            i += src._dims[0]
        if 0 <= i < src._dims[0]:
            data = src._data + i * src._strides[0]
            if src._ndim == 1 and scalars:
                return scalar_at(src._dtype, data)
            return _view_at(src, src._ndim - 1, &src._dims[1], &src._strides[1], data)
    if type(key) is slice and src._ndim >= 1:   # t[a:b]: a slice of the first dim
        return _first_dim_slice(src, key)
    if (type(key) is Tensor and (<Tensor>key)._ndim >= 1) or type(key) is list or \
            (type(key) is np.ndarray and key.ndim >= 1):
        # an index array (t[idx], t[t > 0]): advanced indexing, without first trying the
        # key as an integer (its failed __index__ cost ~15 us a call on a Zen 3 VM). A 0-d
        # integer array is an integer index (a basic one): it goes on below.
        return api.getitem(self, key)
    if scalars:
        data = _element_at(src, key)                # t[i, j]: the element, directly
        if data != NULL:
            return scalar_at(src._dtype, data)
    if type(key) is not tuple:
        key = (key,)
    k = _basic_locate(src, <tuple>key, dims, strides, &data)
    if k < 0:
        return api.getitem(self, key)
    if k == 0 and scalars and not _has_ellipsis(<tuple>key):
        return scalar_at(src._dtype, data)
    return _view_at(src, k, dims, strides, data)


# ---------------------------------------------------------------------- writes
cdef inline bint _plain_target(Tensor t):
    """A tensor the write fast paths may write directly: writeable, strided, outside
    xa.lazy and with no lazy value pending (those read their leaves when computed, so a
    write goes through the frontend, which computes them first)."""
    return (t._flags & F_WRITEABLE) and not (t._flags & F_TILED) and _lazy_depth == 0 \
        and not _lazy_pending


cdef inline bint _fits_into(Tensor y, int ndim, const int64_t* dims):
    """y broadcasts to dims (right-aligned) without growing them."""
    cdef int off = ndim - y._ndim, i
    if off < 0:
        return False
    for i in range(y._ndim):
        if y._dims[i] != 1 and y._dims[i] != dims[off + i]:
            return False
    return True


cdef inline bint _disjoint_or_same(Tensor x, Tensor y):
    """y may be read while x is written element by element: no shared bytes, or exactly
    the same view (x += x). A partial overlap (x[1:] += x[:-1]) needs the frontend's
    copy."""
    return not buffers_overlap(x, y) or same_view(x, y)


cdef object _inplace(Tensor x, object b, int slot, str name):
    """x <op>= b: the compiled fast path of the in-place operators for a weak Python scalar
    that fits x's dtype, or a same-dtype tensor that broadcasts into x and does not
    partly overlap it, when the operator keeps x's dtype (a fast-table entry); the
    kernel writes x through its strides. Everything else: api.inplace (NumPy's casting
    and shape rules, lazy values). Example: row += 1.0, t[i] -= row, t[a:b] *= 2."""
    cdef int op = _fast_kernel[slot * kNumDTypes + x._dtype]
    cdef Tensor y
    if _plain_target(x) and _fast_out[slot * kNumDTypes + x._dtype] == x._dtype:
        if type(b) is Tensor:
            y = <Tensor>b
            if y._dtype == x._dtype and not (y._flags & F_TILED) and \
                    _fits_into(y, x._ndim, x._dims) and _disjoint_or_same(x, y):
                if x._size:
                    ew_into(op, x._dtype, x, [x, y])
                return x
        elif _weak_scalar_fits(x._dtype, b):
            if x._size:
                ew_into(op, x._dtype, x, [x, scalar_tensor(b, x._dtype)])
            return x
    return api.inplace(name, x, b)


cdef bint _setitem_fast(Tensor self, object key, object value) except -1:
    """self[key] = value for a basic key and a Python scalar that fits self's dtype (one
    element: written in place; more: filled) or a same-dtype tensor that broadcasts into
    the view and does not partly overlap it (copied; the same view, as in t[i] += v, is
    left as it is). Returns False for everything else (api.setitem's rules)."""
    cdef int64_t dims[kMaxDims]
    cdef int64_t strides[kMaxDims]
    cdef char* data
    cdef int k
    cdef Tensor view, y
    cdef type vt = type(value)
    if not _plain_target(self):
        return False
    if vt is not Tensor and not ((vt is float or vt is int) and
                                 _weak_scalar_fits(self._dtype, value)):
        return False
    if vt is not Tensor:
        data = _element_at(self, key)               # t[i, j] = v: written directly
        if data != NULL:
            _write_scalar(data, self._dtype, value)
            return True
    if type(key) is not tuple:
        key = (key,)
    k = _basic_locate(self, <tuple>key, dims, strides, &data)
    if k < 0:
        return False
    if vt is not Tensor:
        if k == 0:
            _write_scalar(data, self._dtype, value)
            return True
        view = _view_at(self, k, dims, strides, data)
        if view._size:
            convert_into(view, scalar_tensor(value, self._dtype))
        return True
    y = <Tensor>value
    if y._dtype != self._dtype or (y._flags & F_TILED) or not _fits_into(y, k, dims):
        return False
    view = _view_at(self, k, dims, strides, data)
    if same_view(view, y):
        return True
    if buffers_overlap(view, y):
        return False
    if view._size:
        convert_into(view, y)
    return True


cdef inline bint _has_ellipsis(tuple key):
    for item in key:
        if item is Ellipsis:
            return True
    return False


def basic_getitem(Tensor t, key, bint scalars=False):
    """The view of a basic key (0-d for a key of integers: setitem writes through it);
    with ``scalars``, what t[key] gives (a NumPy scalar for a key of integers)."""
    return _getitem(t, key, scalars)


def basic_index_plan(shape, key):
    """The resolved basic key for ``shape``: a list of (source dim or None for a new axis,
    dropped, start, length, step) in key order (see BasicDim), or None when the key is not
    basic. The graph's basic indexing and the advanced-index shape rule read it."""
    cdef int64_t dims[kMaxDims]
    cdef BasicDim plan[2 * kMaxDims]
    cdef int n = fill_dims(shape, dims), count, j
    if type(key) is not tuple:
        key = (key,)
    count = _basic_plan(n, dims, key, plan)
    if count < 0:
        return None
    return [(None if plan[j].src < 0 else plan[j].src, plan[j].dropped, plan[j].start,
             plan[j].length, plan[j].step) for j in range(count)]


cdef object _reshape(Tensor t, object shape):
    """Tensor.reshape: a C-contiguous strided tensor and a shape of Python ints (one may be
    -1) give the row-major view here, in C (0.3 us; the general path, api.reshape, takes
    8 us); anything else - other strides, sizes that do not match, size 0 - goes to
    api.reshape, which raises its errors."""
    cdef int64_t dims[kMaxDims]
    cdef int64_t size = 1, known = 1, d, stride
    cdef int k, i, unknown = -1
    if type(shape) is not tuple or not (t._flags & F_C_CONTIG) or (t._flags & F_TILED):
        return api.reshape(t, shape)
    k = len(shape)
    if k > kMaxDims:
        return api.reshape(t, shape)
    for i in range(t._ndim):
        size *= t._dims[i]
    for i in range(k):
        item = (<tuple>shape)[i]
        if type(item) is not int:
            return api.reshape(t, shape)
        d = item
        if d == -1 and unknown < 0:
            unknown = i
        elif d <= 0 or d > size // known:   # (size 0, products past the size: api.reshape)
            return api.reshape(t, shape)
        else:
            dims[i] = d
            known *= d
    if unknown >= 0:
        if size % known:
            return api.reshape(t, shape)
        dims[unknown] = size // known
    elif known != size:
        return api.reshape(t, shape)
    cdef Tensor out = view_of(t)
    stride = dtype_itemsize(t._dtype)
    for i in range(k - 1, -1, -1):
        out._dims[i] = dims[i]
        out._strides[i] = stride
        stride *= dims[i]
    finish_view(out, k)
    return out

