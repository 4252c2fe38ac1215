# The whole-tensor reductions' small-call path (included by _tensor.pyx, before Tensor):
# t.sum(), t.max(), t.argmax(), xa.any(mask) ... with no axis, keepdims, where, dtype or
# initial go from Cython straight to the reduce kernel, with no Python frame between. The
# rules of which (reduction, dtype) pairs may (NumPy reduces int8 sums in int64, so those
# may not) are xarr/_numpy/reductions.py's `whole_plan`, asked once per pair and cached.
# Worked example: f32[100].argmax() -> reduce_whole(REDUCE_ARGMAX, t) -> s64[] holding the
# first index of the largest element (0.3 us, where the Python path took 0.9 us).

cdef list _trace_stack = []      # xarr._graph.trace.STATE.stack: non-empty while tracing
cdef dict _dynamic_sizes = {}    # xarr._ops.structural._DYNAMIC_SIZES: tensors with them
cdef object _whole_planner = None   # reductions.whole_plan(name, dtype code)
cdef object _reduce_whole = None    # xarr._bindings.reduce.reduce_whole(kernel, tensor)
cdef dict _whole_plans = {}      # reduction name -> [plan or None (not asked yet)] by dtype


def register_eager_state(list trace_stack=None, dict dynamic_sizes=None):
    """Called once by xarr._graph.trace and xarr._ops.structural with the objects that
    say whether a reduction may run straight on the kernel (both are only ever mutated
    in place)."""
    global _trace_stack, _dynamic_sizes
    if trace_stack is not None:
        _trace_stack = trace_stack
    if dynamic_sizes is not None:
        _dynamic_sizes = dynamic_sizes


def register_whole_reduce(planner, reduce_whole):
    """Called once by xarr._numpy.reductions: ``planner(name, code)`` is (kernel, +0.0
    sum) or False; ``reduce_whole`` runs a kernel over a whole tensor."""
    global _whole_planner, _reduce_whole
    _whole_planner = planner
    _reduce_whole = reduce_whole
    _whole_plans.clear()


cdef inline bint _eager_plain(Tensor t):
    """t may go straight to a kernel: no lazy or traced context, untiled, and no tensor
    has dynamic sizes (a reduction must then respect them)."""
    return _lazy_depth == 0 and not (t._flags & F_TILED) and not _trace_stack \
        and not _dynamic_sizes


cpdef object whole_reduce(object x, str name):
    """The reduction ``name`` ("add", "max", "min", "and", "or", "argmax", "argmin") of
    every element of tensor x, as NumPy's x.<name>() gives it, in a new 0-d tensor; None
    when the Python path must decide (not an eager plain tensor, a dtype NumPy reduces in
    another type, an empty max). argmax of an n-D tensor runs over its row-major
    elements: a flat view when C-contiguous, else a row-major copy (as NumPy's ravel)."""
    cdef Tensor t
    cdef list plans
    if type(x) is not Tensor or _whole_planner is None:
        return None
    t = <Tensor>x
    if t._ndim == 0 or not _eager_plain(t):
        return None
    plans = _whole_plans.get(name)
    if plans is None:
        plans = _whole_plans[name] = [None] * kNumDTypes
    plan = plans[t._dtype]
    if plan is None:
        plan = plans[t._dtype] = _whole_planner(name, t._dtype)
    if plan is False:
        return None
    kernel, plus_zero, one_dim = plan
    if t._size == 0 and (one_dim or name == "max" or name == "min"):
        return None
    if one_dim and t._ndim != 1:
        if not (t._flags & F_C_CONTIG):
            t = copy_dense_of(t, None)
        t = <Tensor>flat_view(t)
    out = _reduce_whole(kernel, t)
    if plus_zero:
        clear_negative_zero(out)
    return out


# Tensor's methods for these reductions: the path above first, else xarr/_methods.py's
# (the one definition, shared with the graph's Traced).
def _method_sum(self, axis=None, dtype=None, keepdims=False, where=None):
    if axis is None and dtype is None and not keepdims and where is None:
        r = whole_reduce(self, "add")
        if r is not None:
            return r
    return _methods.sum(self, axis, dtype, keepdims, where)


def _method_max(self, axis=None, keepdims=False, where=None, initial=None):
    if axis is None and not keepdims and where is None and initial is None:
        r = whole_reduce(self, "max")
        if r is not None:
            return r
    return _methods.max(self, axis, keepdims, where, initial)


def _method_min(self, axis=None, keepdims=False, where=None, initial=None):
    if axis is None and not keepdims and where is None and initial is None:
        r = whole_reduce(self, "min")
        if r is not None:
            return r
    return _methods.min(self, axis, keepdims, where, initial)


def _method_argmax(self, axis=None, keepdims=False):
    if axis is None and not keepdims:
        r = whole_reduce(self, "argmax")
        if r is not None:
            return r
    return _methods.argmax(self, axis, keepdims)


def _method_argmin(self, axis=None, keepdims=False):
    if axis is None and not keepdims:
        r = whole_reduce(self, "argmin")
        if r is not None:
            return r
    return _methods.argmin(self, axis, keepdims)


def _method_any(self, axis=None, keepdims=False, where=None):
    if axis is None and not keepdims and where is None:
        r = whole_reduce(self, "or")
        if r is not None:
            return r
    return _methods.any(self, axis, keepdims, where)


def _method_all(self, axis=None, keepdims=False, where=None):
    if axis is None and not keepdims and where is None:
        r = whole_reduce(self, "and")
        if r is not None:
            return r
    return _methods.all(self, axis, keepdims, where)
