# NEP 13 for Tensor (included by _tensor.pyx, before Tensor): the plain two-operand call of
# a ufunc that has an operator fast path - np.float64(2) * t, ndarray + t, np.add(t, 1) -
# goes from Cython straight to call_binary (what xa.add is); every other call, method and
# keyword goes to xarr/_numpy/interop.py through _methods.__array_ufunc__.

cdef dict _ufunc_slots = {}      # ufunc -> its FAST_SLOTS row, or -1


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    cdef object slot
    if method == "__call__" and not kwargs and len(inputs) == 2:
        slot = _ufunc_slots.get(ufunc)
        if slot is None:
            name = ufunc.__name__
            slot = _ufunc_slots[ufunc] = FAST_SLOTS.index(name) if name in FAST_SLOTS else -1
        if slot >= 0:
            return call_binary(inputs[0], inputs[1], slot, ufunc.__name__)
    return _methods.__array_ufunc__(self, ufunc, method, *inputs, **kwargs)
