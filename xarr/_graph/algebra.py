"""Scalar constants of a graph (their Python values, cached; new ones), the algebraic
rewrite of pow by a constant special exponent, and the slice rules (a slice of a
concatenation, a broadcast scalar or a small elementwise result). Read by
xarr/_graph/passes.py's simplify pass; kept apart so the pass driver stays short."""

import math

import numpy as np

from xarr import _tensor
from xarr._dtypes import CODE_OF, DTYPES, KINDS
from xarr._graph.ir import Instruction, TensorType
from xarr._registry import ops_of_class


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


# ------------------------------------------------------------------------ slices, reshapes
# A slice or reshape of an elementwise result this small (elements) becomes the
# elementwise op of slices / reshapes of its operands: the work repeated is at most this
# much, and NumPy-style code on short vectors (x, y, z = s[0], s[1], s[2] of a state
# updated in place each step) turns into scalar arithmetic of one shape that fuses, with
# no vector, slice, reshape and update steps between.
SMALL_VIEW_SOURCE = 4       # (a 3-vector state; 8 or 16 made fusion's multi-output
                            # search quadratic: 16 elements x 60 steps compiled in 20 s)
_ELEMENTWISE = frozenset(ops_of_class("elementwise"))
_MAX_PUSH_DEPTH = 16           # how far one rewrite pushes a slice down a chain


class ViewRewriter:
    """The slice and reshape rules for one simplify round, memoized by (op, source,
    attributes): a slice pushed down a chain meets the slices already rewritten earlier
    in the round (topological order), so a long chain costs one visit per instruction,
    not one round per link.

    Worked example: s1 = add(s0, mul(broadcast(0.001), concatenate(a, b, c))) with
    s0, s1 of 3 elements and a, b, c of one: slice(s1, [0:1]) -> add(slice(s0, [0:1]),
    mul(broadcast(0.001), a)), and slice(s0, [0:1]) is whatever it was rewritten to."""

    def __init__(self, comp):
        self.comp = comp
        self.memo = {}

    def rewrite(self, i):
        """The replacement of slice / reshape instruction i, or None."""
        if i.op == "reshape" and i.attrs.get("dimensions") is not None:
            return None
        key = self._key(i.op, i.operands[0], i.attrs, i.dims)
        hit = self.memo.get(key)
        if hit is not None:
            return None if hit is i else hit
        new = self._rules(i.op, i.operands[0], i.attrs, i.type, 0)
        self.memo[key] = i if new is None else new
        return new

    @staticmethod
    def _key(op, src, attrs, dims):
        if op == "slice":
            return (op, id(src), attrs["start_indices"], attrs["limit_indices"],
                    attrs["strides"])
        return (op, id(src), dims)

    def _view(self, op, src, attrs, code, dims, depth):
        """op(src) as an instruction: memoized, simplified by the rules if it can be."""
        key = self._key(op, src, attrs, dims)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        type_ = TensorType(code, dims, None)
        new = self._rules(op, src, attrs, type_, depth) if depth < _MAX_PUSH_DEPTH else None
        if new is None:
            new = self.comp.add(Instruction(op, [src], type_, dict(attrs)))
        self.memo[key] = new
        return new

    def _rules(self, op, src, attrs, type_, depth):
        if src.dims == type_.dims and (op == "reshape" or not any(attrs["start_indices"])):
            return src                                          # the whole operand
        if src.op == "broadcast" and src.operands[0].dims == ():
            return self.comp.add(Instruction("broadcast", [src.operands[0]], type_,
                                             {"dimensions": ()}))
        if op == "reshape" and src.op == "reshape" and src.attrs.get("dimensions") is None:
            return self._view(op, src.operands[0], attrs, type_.code, type_.dims, depth + 1)
        if op == "slice" and src.op == "concatenate":
            return self._slice_of_concatenate(src, attrs, type_, depth)
        # (a reshape is pushed only toward more dims - [] -> [1] - one direction, no
        # ping-pong: scalars read out of a short vector and put back into one by a
        # concatenation stay in the vector's shape, one fusion shape)
        if src.op in _ELEMENTWISE and math.prod(src.dims) <= SMALL_VIEW_SOURCE and \
                (op == "slice" or len(type_.dims) > len(src.dims)) and \
                all(o.dims == src.dims for o in src.operands):
            ops = [self._view(op, o, attrs, o.code, type_.dims, depth + 1)
                   for o in src.operands]
            return self.comp.add(Instruction(src.op, ops, type_, dict(src.attrs)))
        return None

    def split(self, i):
        """A small elementwise result with a concatenated operand, as the concatenation of
        its parts, each computed from slices of the operands (which the rules push on):
        add(s, concatenate(a, b)) -> concatenate(add(slice(s), a), add(slice(s), b)).
        None when i is not such an instruction."""
        if i.op not in _ELEMENTWISE or math.prod(i.dims) > SMALL_VIEW_SOURCE or \
                any(o.dims != i.dims for o in i.operands):
            return None
        cat = next((o for o in i.operands if o.op == "concatenate" and
                    len(o.operands) > 1), None)
        if cat is None:
            return None
        d = cat.attrs["dimension"]
        if any(part.dims[d] == 0 for part in cat.operands):
            return None         # (a part spanning all of i would slice i into itself)
        parts, offset = [], 0
        for part in cat.operands:
            start = tuple(offset if k == d else 0 for k in range(len(i.dims)))
            limit = tuple(offset + part.dims[d] if k == d else n for k, n in enumerate(i.dims))
            attrs = {"start_indices": start, "limit_indices": limit,
                     "strides": (1,) * len(i.dims)}
            parts.append(self._rules("slice", i, attrs, TensorType(i.code, part.dims, None),
                                     0))
            offset += part.dims[d]
        return self.comp.add(Instruction("concatenate", parts, i.type, {"dimension": d}))

    def _slice_of_concatenate(self, src, attrs, type_, depth):
        """A slice inside one of the concatenated parts: a slice of that part."""
        start, limit, strides = (attrs["start_indices"], attrs["limit_indices"],
                                 attrs["strides"])
        d = src.attrs["dimension"]
        if strides[d] != 1:
            return None
        offset = 0
        for part in src.operands:
            n = part.dims[d]
            if offset <= start[d] and limit[d] <= offset + n:
                inner = dict(attrs)
                inner["start_indices"] = tuple(v - offset if k == d else v
                                               for k, v in enumerate(start))
                inner["limit_indices"] = tuple(v - offset if k == d else v
                                               for k, v in enumerate(limit))
                return self._view("slice", part, inner, type_.code, type_.dims, depth + 1)
            offset += n
        return None
