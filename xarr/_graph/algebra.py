"""Scalar constants of a graph (their Python values, cached; new ones) and the algebraic
rewrite of pow by a constant special exponent. Read by xarr/_graph/passes.py's simplify
pass; kept apart so the pass driver stays short."""

import numpy as np

from xarr import _tensor
from xarr._dtypes import CODE_OF, DTYPES, KINDS
from xarr._graph.ir import Instruction, TensorType


def scalar_value(instr):
    """The Python value of a scalar constant, or of a broadcast of one; else None."""
    while instr.op == "broadcast":
        instr = instr.operands[0]
    if instr.op == "constant" and instr.dims == ():
        t = instr.attrs["value"]
        hit = _SCALAR_VALUES.get(id(t))
        if hit is None or hit[0] is not t:
            if len(_SCALAR_VALUES) >= 4096:
                _SCALAR_VALUES.clear()
            hit = _SCALAR_VALUES[id(t)] = (t, np.asarray(t).item())
        return hit[1]
    return None


_SCALAR_VALUES = {}    # id(constant tensor) -> (tensor, its Python value)


def clear_scalar_values():
    _SCALAR_VALUES.clear()


def is_value(instr, value, negative_zero=None):
    v = scalar_value(instr)
    if v is None or v != value:
        return False
    if negative_zero is not None and isinstance(v, float):
        return bool(np.signbit(v)) == negative_zero
    return True


def new_constant(comp, tensor):
    c = Instruction("constant", (), TensorType(CODE_OF[tensor.dtype], (), None),
                    {"value": tensor})
    comp.add(c)
    return c


def pow_special(comp, i):
    """pow(x, c) for a constant scalar c among pow's special exponents, rewritten into the
    ops that compute the same bits as the pow kernel's own special cases (ew_ops.h
    pow_special, ew_loops.h pow_by_scalar), so they fuse and compile natively as cheap
    ops: x**2 -> x*x, x**3 -> x*x*x (f32/f64; integers wrap alike), x**-1 -> 1/x,
    x**1 -> x, x**0.5 -> select(x == -inf, inf, sqrt(x) + 0),
    x**-0.5 -> select(x == -inf, 0, rsqrt(x + 0)) (C99's pow values at -0.0 and -inf).
    None for any other exponent, dtype or a broadcasting x."""
    x, e = i.operands
    v = scalar_value(e)
    kind = KINDS[i.code]
    if v is None or x.type != i.type or kind not in "iuf":
        return None
    wide = DTYPES[i.code] in (np.float32, np.float64)   # f16 / bf16 compute in f32 once

    def new(name, *operands, code=i.code):
        return comp.add(Instruction(name, list(operands), TensorType(code, i.dims, None)))

    def scalar(value):
        c = new_constant(comp, _tensor.scalar_tensor(value, i.code))
        return comp.add(Instruction("broadcast", [c], TensorType(i.code, i.dims, None),
                                    {"dimensions": ()}))
    if v == 2:
        return new("mul", x, x)
    if v == 3 and (kind in "iu" or wide):
        return new("mul", new("mul", x, x), x)
    if kind in "iu":
        return None
    if v == 1:
        return x
    if v == -1:
        return new("div", scalar(1.0), x)
    if v in (0.5, -0.5):
        minus_inf = new("eq", x, scalar(-np.inf), code=CODE_OF[np.dtype(bool)])
        if v == 0.5:
            return new("select", minus_inf, scalar(np.inf), new("add", new("sqrt", x),
                                                                 scalar(0.0)))
        return new("select", minus_inf, scalar(0.0), new("rsqrt", new("add", x,
                                                                      scalar(0.0))))
    return None
