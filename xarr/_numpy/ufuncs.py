"""NumPy's elementwise functions (``xa.add``, ``xa.exp``, ``xa.logical_and`` ...), one per
NumpyForm of the op registry (xarr/_registry.py), with their Array API aliases, and the
elementwise functions NumPy builds from several ops: ``where``, ``clip``, ``round``.

>>> xa.add(xa.ones(3, xa.int8), 1.5)      # NumPy 2 promotion: float64
"""

import math

import numpy as np

from xarr import _tensor
from xarr._dispatch import FAST_SLOTS, register
from xarr._tensor import Tensor, call_binary, call_unary
from xarr._dtypes import CODE_OF, KINDS, bool_, float64
from xarr._graph.trace import Traced
from xarr._ops import elementwise as E
from xarr._ops.conversion import asarray
from xarr._ops.indexing import nonzero

__all__ = []


def _numpy_function(name, arity):
    if arity == 1:
        def fn(x, /, *, out=None):
            if out is None:
                return call_unary(x, name)
            return E.numpy_apply(name, x, out=out)
    elif name in FAST_SLOTS:         # the operators' compiled fast path first
        slot = FAST_SLOTS.index(name)

        def fn(x1, x2, /, *, out=None):
            if out is None:
                return call_binary(x1, x2, slot, name)
            return E.numpy_apply(name, x1, x2, out=out)
    else:
        def fn(x1, x2, /, *, out=None):
            return E.numpy_apply(name, x1, x2, out=out)
    form, op = E.NUMPY_FUNCTIONS[name]
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"NumPy's ``{name}`` on the xarr engine (op ``{op.name}``: {op.doc}): "
                  f"NumPy 2 promotion, broadcasting, ``out=``.")
    return fn


for _name, (_form, _op) in E.NUMPY_FUNCTIONS.items():
    globals()[_name] = _numpy_function(_name, _op.arity)
    __all__.append(_name)

# Array API / NumPy aliases.
ALIASES = {"abs": "absolute", "conj": "conjugate", "pow": "power", "bitwise_not": "invert",
           "bitwise_invert": "invert", "bitwise_left_shift": "left_shift",
           "bitwise_right_shift": "right_shift", "acos": "arccos", "asin": "arcsin",
           "atan": "arctan", "atan2": "arctan2", "acosh": "arccosh", "asinh": "arcsinh",
           "atanh": "arctanh", "true_divide": "divide", "mod": "remainder"}
for _alias, _name in ALIASES.items():
    globals()[_alias] = globals()[_name]
    __all__.append(_alias)


def _kind(dt):
    return KINDS[CODE_OF[dt]]


def round(x, decimals=0, out=None):  # noqa: A001
    """Round half to even to ``decimals`` places (NumPy's ``round``; integers stay integers;
    ``xa.lax.round`` is half away from zero)."""
    x = asarray(x)
    kind = _kind(x.dtype)
    if kind == "c":
        res = E.lax_apply("complex", round(real(x), decimals),  # noqa: F821
                          round(imag(x), decimals))  # noqa: F821
        if out is not None:
            out[...] = res
            return out
        return res
    if kind in "biu":
        if decimals >= 0:
            res = x.copy()
        else:
            scale = 10 ** (-decimals)
            res = (rint(x.astype(float64) / float(scale)) * float(scale)).astype(x.dtype)  # noqa: F821
    elif decimals == 0:
        return rint(x, out=out)  # noqa: F821
    elif decimals > 0:
        scale = 10.0 ** decimals
        res = rint(multiply(x, scale)) / scale  # noqa: F821
    else:
        scale = 10.0 ** (-decimals)
        res = rint(divide(x, scale)) * scale  # noqa: F821
    if out is not None:
        out[...] = res
        return out
    return res


def where(condition, x=None, y=None):
    """condition ? x : y elementwise with NumPy broadcasting and promotion; with only
    ``condition``, ``xa.nonzero(condition)``."""
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("xa.where: either both or neither of x and y should be given")
    fast = _tensor.where_fast(condition, x, y, _SELECT)
    if fast is not None:
        return fast
    cond = asarray(condition)
    if cond.dtype != bool_:
        cond = cond.astype(bool_)
    vals = [E.to_tensor_or_scalar(v) for v in (x, y)]
    rec = E.recorder([cond] + vals)
    dt = E.promote(vals)
    code = CODE_OF[dt]
    shape = E.broadcast_shapes(cond.shape, *[np.shape(v) if not hasattr(v, "shape")
                                             else v.shape for v in vals], op="xa.where")
    ops = [E.as_operand("xa.where", cond, CODE_OF[bool_], rec)]
    ops += [E.as_operand("xa.where", v, code, rec) for v in vals]
    return E.execute(E.OPS["select"], code, ops, shape, None, "xa.where", rec)


_SELECT = E.OPS["select"].code


def clip(x, min=None, max=None):  # noqa: A002
    """NumPy's clip, whose float32 / float64 loops break ties two ways (both kept here, bit
    for bit): with scalar bounds (size 1, NumPy's stride-0 loop) a tie keeps x
    (clip(-0.0, 0.0, 1.0) is -0.0) and a NaN bound gives NaN - ew_ops.h Clip; with array
    bounds a tie keeps the bound and x's NaN wins - lax's Clamp. float16 keeps x on ties
    either way (Clip). One bound: maximum or minimum; none: a copy. NumPy's rule for
    integer x: a Python int bound beyond the dtype's range on the side that clips nothing
    is dropped (clip(int8, 2, 300)). Eagerly and traced, with NumPy's broadcasting and
    promotion (a Python scalar x is an array, as NumPy's asarray makes it)."""
    if min is not None and max is not None and type(x) is Tensor and \
            KINDS[CODE_OF[x.dtype]] in "fiu":
        fast = _tensor.same_dtype_apply(E.OPS[_clip_op(min, max, x.dtype)].code,
                                        [min, x, max], 1)
        if fast is not None:
            return fast
    if not isinstance(x, (Tensor, Traced)):
        x = asarray(x)
    if _kind(x.dtype) in "iu":
        info = np.iinfo(x.dtype)
        if type(min) is int and min <= info.min:
            min = None  # noqa: A001
        if type(max) is int and max >= info.max:
            max = None  # noqa: A001
    if min is None and max is None:
        return positive(x)  # noqa: F821
    if min is None:
        return minimum(x, max)  # noqa: F821
    if max is None:
        return maximum(x, min)  # noqa: F821
    vals = [E.to_tensor_or_scalar(v) for v in (min, x, max)]
    dt = E.promote(vals)
    if _kind(dt) == "c":
        return _clip_complex(x, min, max, dt)
    rec = E.recorder(vals)
    code = CODE_OF[dt]
    shape = E.broadcast_shapes(*[np.shape(v) if not hasattr(v, "shape") else v.shape
                                 for v in vals], op="xa.clip")
    ops = [E.as_operand("xa.clip", v, code, rec) for v in vals]
    return E.execute(E.OPS[_clip_op(min, max, dt)], code, ops, shape, None, "xa.clip", rec)


def _clip_op(lo, hi, dtype):
    """The elementwise op NumPy's clip loop amounts to: "clip" (a tie keeps x) for scalar
    bounds and 16-bit floats, "clamp" (a tie keeps the bound) for array bounds."""
    return "clip" if _single(lo) and _single(hi) or np.dtype(dtype).itemsize == 2 \
        else "clamp"


def _clip_complex(x, lo, hi, dt):
    """NumPy's complex clip: m = x where x has a NaN part or is lexicographically above lo,
    else lo (a tie keeps the bound); then m where m has a NaN part or is below hi, else hi.
    greater(x, lo) = (x.real == lo.real) ? x.imag > lo.imag : x.real > lo.real."""
    x, lo, hi = (asarray(v).astype(dt) if not isinstance(v, (Tensor, Traced)) else
                 v.astype(dt) for v in (x, lo, hi))

    def beyond(a, b, cmp):
        ar, ai, br, bi = real(a), imag(a), real(b), imag(b)  # noqa: F821
        return where(equal(ar, br), cmp(ai, bi), cmp(ar, br))  # noqa: F821
    m = where(logical_or(isnan(x), beyond(x, lo, greater)), x, lo)  # noqa: F821
    return where(logical_or(isnan(m), beyond(m, hi, less)), m, hi)  # noqa: F821


def _single(v):
    """Whether a clip bound is one value (a scalar, or any array of size 1)."""
    if isinstance(v, (int, float, complex, np.generic)):      # (np.ndim(0.2): 1.3 us)
        return True
    shape = getattr(v, "shape", None)
    if shape is None:
        return np.size(v) == 1
    return math.prod(shape) == 1


__all__ += ["round", "where", "clip"]

register(round=round, clip=clip)
