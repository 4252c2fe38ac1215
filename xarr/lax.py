"""``xa.lax``: XLA's operation semantics (seed 004), named and shaped like ``jax.lax``.

Strict like XLA: operands of a binary op must have the same element type (TypeError
otherwise) and different ranks need ``broadcast_dimensions`` (seed 003), e.g.
``lax.add(x_f32_2x3, v_f32_3, broadcast_dimensions=(1,))``.
Every elementwise op here is one ElementwiseOp of xarr/_ops/elementwise.py.
"""

import operator

import numpy as np

from xarr import _tensor
from xarr._dtypes import CODE_OF, XLA_NAMES, as_dtype
from xarr._graph import trace as _trace
from xarr._graph.control import (call, cond, custom_call, fori_loop, get_tuple_element, map,
                                 optimization_barrier, register_custom_call_target, switch,
                                 tuple_, while_loop)
from xarr._graph.trace import Traced, recorder
from xarr._ops.elementwise import OPS, lax_apply
from xarr._ops.reduction import (argmax, argmin, cummax, cummin, cumprod, cumsum, reduce,
                                 reduce_and, reduce_max, reduce_min, reduce_or, reduce_prod,
                                 reduce_sum)
from xarr._ops.structural import (bitcast_convert_type, collapse, concatenate,
                                  dynamic_slice, dynamic_update_slice, expand_dims,
                                  get_dimension_size, pad, reshape, rev,
                                  set_dimension_size, slice, squeeze, transpose)
from xarr._tensor import Tensor

__all__ = []


def _make(name, lax_name, doc):
    opdef = OPS[name]
    if opdef.arity == 1:
        def fn(x):
            return lax_apply(name, x, label=lax_name)
    elif opdef.arity == 2:
        def fn(x, y, broadcast_dimensions=None):
            return lax_apply(name, x, y, broadcast_dimensions=broadcast_dimensions,
                             label=lax_name)
    else:
        def fn(a, b, c):
            return lax_apply(name, a, b, c, label=lax_name)
    fn.__name__ = fn.__qualname__ = lax_name
    fn.__doc__ = doc
    globals()[lax_name] = fn
    __all__.append(lax_name)


for _name, _lax_name, _doc in [
    ("neg", "neg", "-x"), ("abs", "abs", "|x| (the real magnitude for complex x)"),
    ("sign", "sign", "sign(x): -1, 0 or 1; sign(-0.0) = -0.0, sign(NaN) = NaN"),
    ("not", "bitwise_not", "logical not on pred, bitwise not on integers"),
    ("ceil", "ceil", "ceil(x)"), ("floor", "floor", "floor(x)"),
    ("round_nearest_even", "round_nearest_even", "round half to even"),
    ("exp", "exp", "e**x"), ("expm1", "expm1", "e**x - 1"), ("log", "log", "ln(x)"),
    ("log1p", "log1p", "ln(1 + x)"), ("logistic", "logistic", "1 / (1 + e**-x)"),
    ("tanh", "tanh", "tanh(x)"), ("sin", "sin", "sin(x)"), ("cos", "cos", "cos(x)"),
    ("tan", "tan", "tan(x)"), ("asin", "asin", "asin(x)"), ("acos", "acos", "acos(x)"),
    ("atan", "atan", "atan(x)"), ("sinh", "sinh", "sinh(x)"), ("cosh", "cosh", "cosh(x)"),
    ("asinh", "asinh", "asinh(x)"), ("acosh", "acosh", "acosh(x)"),
    ("atanh", "atanh", "atanh(x)"), ("sqrt", "sqrt", "sqrt(x)"),
    ("rsqrt", "rsqrt", "1 / sqrt(x)"), ("cbrt", "cbrt", "cube root"),
    ("square", "square", "x * x"),
    ("is_finite", "is_finite", "true where x is neither infinite nor NaN"),
    ("population_count", "population_count", "number of set bits"),
    ("clz", "clz", "count of leading zero bits (clz(0) = bit width)"),
    ("real", "real", "real part"), ("imag", "imag", "imaginary part"),
    ("conj", "conj", "complex conjugate"),
    ("add", "add", "x + y"), ("sub", "sub", "x - y"), ("mul", "mul", "x * y"),
    ("div", "div", "x / y (integers: x / 0 = -1, INT_MIN / -1 = INT_MIN)"),
    ("rem", "rem", "remainder with the sign of the dividend (C fmod); x % 0 = x"),
    ("max", "max", "maximum, NaN-propagating"), ("min", "min", "minimum, NaN-propagating"),
    ("pow", "pow", "x ** y"), ("atan2", "atan2", "atan2(x, y)"),
    ("complex", "complex", "x + i*y from two real operands (f32 -> c64, f64 -> c128)"),
    ("and", "bitwise_and", "logical and on pred, bitwise on integers"),
    ("or", "bitwise_or", "logical or on pred, bitwise on integers"),
    ("xor", "bitwise_xor", "logical xor on pred, bitwise on integers"),
    ("shift_left", "shift_left", "x << y (0 when y >= bit width)"),
    ("shift_right_logical", "shift_right_logical", "logical x >> y"),
    ("shift_right_arithmetic", "shift_right_arithmetic", "arithmetic x >> y"),
    ("eq", "eq", "x == y"), ("ne", "ne", "x != y"), ("lt", "lt", "x < y"),
    ("le", "le", "x <= y"), ("gt", "gt", "x > y"), ("ge", "ge", "x >= y"),
    ("eq_total", "eq_total", "x == y under the TotalOrder"),
    ("ne_total", "ne_total", "x != y under the TotalOrder"),
    ("lt_total", "lt_total",
     "x < y under the TotalOrder -NaN < -Inf < -finite < -0 < +0 < +finite < +Inf < +NaN"),
    ("le_total", "le_total", "x <= y under the TotalOrder"),
    ("gt_total", "gt_total", "x > y under the TotalOrder"),
    ("ge_total", "ge_total", "x >= y under the TotalOrder"),
]:
    _make(_name, _lax_name, _doc)

not_ = bitwise_not  # noqa: F821  (jax.lax spells these with a trailing underscore too)
and_ = bitwise_and  # noqa: F821
or_ = bitwise_or  # noqa: F821
xor = bitwise_xor  # noqa: F821


class RoundingMethod:
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):  # noqa: A001
    """Round to integral values: half away from zero (XLA's Round) by default, or half to
    even with ``rounding_method=RoundingMethod.TO_NEAREST_EVEN``."""
    if int(rounding_method) == RoundingMethod.TO_NEAREST_EVEN:
        return lax_apply("round_nearest_even", x)
    if int(rounding_method) != RoundingMethod.AWAY_FROM_ZERO:
        raise ValueError(f"lax.round: unknown rounding_method {rounding_method!r}")
    return lax_apply("round", x)


def select(pred, on_true, on_false):
    """Elementwise pred ? on_true : on_false (seed 004 Select; pred may be a scalar)."""
    return lax_apply("select", pred, on_true, on_false)


def clamp(min, x, max):  # noqa: A002
    """min(max(x, min), max) elementwise; min/max may be scalars (seed 004 Clamp)."""
    return lax_apply("clamp", min, x, max)


def convert_element_type(operand, new_dtype):
    """ConvertElementType: float -> int truncates toward zero and saturates (NaN -> 0);
    x -> pred is x != 0; complex -> real drops the imaginary part (SPEC.md)."""
    if not isinstance(operand, (Tensor, Traced)):
        from xarr._creation import asarray
        operand = asarray(operand)
    return operand.astype(as_dtype(new_dtype))


def iota(dtype, size):
    """0, 1, ..., size-1 of ``dtype`` (jax.lax.iota)."""
    size = operator.index(size)
    if size < 0:
        raise ValueError(f"lax.iota: size must be non-negative, got {size}")
    rec = recorder(())
    if rec is not None or _trace.tracing() is not None:
        return _trace.iota(rec or _trace.tracing(), CODE_OF[as_dtype(dtype)], (size,), 0)
    return _tensor.iota(CODE_OF[as_dtype(dtype)], size)


def broadcasted_iota(dtype, shape, dimension):
    """The seed's Iota(shape, dimension): values count along ``dimension``.
    ``broadcasted_iota(int32, (2, 3), 1)`` is [[0, 1, 2], [0, 1, 2]]."""
    shape = tuple(operator.index(d) for d in shape)
    dimension = operator.index(dimension)
    if not -len(shape) <= dimension < len(shape):
        raise ValueError(f"lax.broadcasted_iota: dimension {dimension} out of range for "
                         f"shape {shape}")
    dimension %= len(shape)
    rec = recorder(()) or _trace.tracing()
    if rec is not None:
        return _trace.iota(rec, CODE_OF[as_dtype(dtype)], shape, dimension)
    line = iota(dtype, shape[dimension])
    view = broadcast_in_dim(line, shape, (dimension,))
    return view.copy()


def broadcast_in_dim(operand, shape, broadcast_dimensions):
    """BroadcastInDim: operand dim i becomes result dim broadcast_dimensions[i] (sizes must
    match or be 1); a read-only view with stride 0 along broadcast dims."""
    if not isinstance(operand, (Tensor, Traced)):
        from xarr._creation import asarray
        operand = asarray(operand)
    shape = tuple(operator.index(d) for d in shape)
    bd = tuple(operator.index(d) for d in broadcast_dimensions)
    if len(bd) != operand.ndim:
        raise ValueError(f"lax.broadcast_in_dim: broadcast_dimensions {bd} must have one "
                         f"entry per operand dim (operand shape {operand.shape})")
    if any(d < 0 or d >= len(shape) for d in bd):
        raise ValueError(f"lax.broadcast_in_dim: broadcast_dimensions {bd} out of range for "
                         f"result shape {shape}")
    if any(bd[i] >= bd[i + 1] for i in range(len(bd) - 1)):
        raise ValueError(f"lax.broadcast_in_dim: broadcast_dimensions {bd} must be strictly "
                         f"increasing")
    for i, d in enumerate(bd):
        if operand.shape[i] != shape[d] and operand.shape[i] != 1:
            raise ValueError(f"lax.broadcast_in_dim: operand dim {i} has size "
                             f"{operand.shape[i]}, result dim {d} has size {shape[d]}")
    rec = recorder([operand])
    if rec is not None:
        return _trace.broadcast_in_dim(rec, operand, shape, bd)
    src = _tensor.strided(operand)
    strides = [0] * len(shape)
    for i, d in enumerate(bd):
        if src.shape[i] == shape[d]:
            strides[d] = src.strides[i]
    return _tensor.as_strided_view(src, shape, strides, 0, True)


def broadcast(operand, sizes):
    """Broadcast: prepends dims ``sizes`` (result shape sizes + operand.shape)."""
    if not isinstance(operand, (Tensor, Traced)):
        from xarr._creation import asarray
        operand = asarray(operand)
    sizes = tuple(operator.index(d) for d in sizes)
    if any(d < 0 for d in sizes):
        raise ValueError(f"lax.broadcast: negative size in {sizes}")
    n = len(sizes)
    return broadcast_in_dim(operand, sizes + operand.shape, tuple(range(n, n + operand.ndim)))


__all__ += ["not_", "and_", "or_", "xor", "round", "RoundingMethod", "select", "clamp",
            "convert_element_type", "iota", "broadcasted_iota", "broadcast_in_dim",
            "broadcast"]

__all__ += ["reshape", "collapse", "transpose", "rev", "slice", "dynamic_slice",
            "dynamic_update_slice", "pad", "concatenate", "squeeze", "expand_dims",
            "bitcast_convert_type", "get_dimension_size", "set_dimension_size"]
__all__ += ["reduce", "reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and",
            "reduce_or", "argmax", "argmin", "cumsum", "cumprod", "cummax", "cummin"]
__all__ += ["map", "call", "cond", "switch", "while_loop", "fori_loop", "tuple",
            "get_tuple_element", "optimization_barrier", "custom_call",
            "register_custom_call_target"]


def __getattr__(name):
    # ``lax.tuple`` (seed 004 Tuple) without shadowing the builtin inside this module.
    if name == "tuple":
        return tuple_
    raise AttributeError(f"module 'xarr.lax' has no attribute {name!r}")


# ------------------------------------------------------------------------ reduce_precision
_FLOAT_FORMAT = {np.dtype(np.float16): (10, 5, np.uint16),
                 np.dtype(np.float32): (23, 8, np.uint32),
                 np.dtype(np.float64): (52, 11, np.uint64)}


def reduce_precision(operand, exponent_bits, mantissa_bits):
    """ReducePrecision (seed 004): rounds to ``mantissa_bits`` (ties to even) and clamps
    values outside an ``exponent_bits`` range to +-inf (values below its normal range
    flush to signed zero); NaN stays NaN. Built from elementwise bit operations on the
    bit pattern, so it fuses under xa.jit.

    ``reduce_precision(f32 1.00048828125, exponent_bits=5, mantissa_bits=10) == 1.0``
    (f16's rounding: the tie goes to the even mantissa)."""
    from xarr._dtypes import DTYPES as _DT
    if not isinstance(operand, (Tensor, Traced)):
        from xarr._creation import asarray
        operand = asarray(operand)
    exponent_bits, mantissa_bits = operator.index(exponent_bits), operator.index(mantissa_bits)
    if exponent_bits < 1 or mantissa_bits < 0:
        raise ValueError(f"lax.reduce_precision: needs exponent_bits >= 1 and mantissa_bits "
                         f">= 0, got {exponent_bits} and {mantissa_bits}")
    dt = operand.dtype
    if dt == _DT[10]:   # bfloat16: its own format, 7 mantissa bits and 8 exponent bits
        fmt = (7, 8, np.uint16)
    elif dt in _FLOAT_FORMAT:
        fmt = _FLOAT_FORMAT[dt]
    else:
        raise TypeError(f"lax.reduce_precision: needs a floating-point operand, got {dt}")
    m_src, e_src, uint = fmt
    nbits = 8 * np.dtype(uint).itemsize
    bits = bitcast_convert_type(operand, uint)
    u = lambda v: uint(v)  # noqa: E731  (scalars of the bit pattern's type)
    if mantissa_bits < m_src:
        drop = m_src - mantissa_bits
        last_bit = 1 << drop
        bias = lax_apply("add", lax_apply("shift_right_logical",
                                          lax_apply("and", bits, u(last_bit)), u(drop)),
                         u((last_bit >> 1) - 1))
        keep = u(((1 << nbits) - 1) ^ (last_bit - 1))
        bits = lax_apply("and", lax_apply("add", bits, bias), keep)
    if exponent_bits < e_src:
        sign_mask = u(1 << (nbits - 1))
        exp_mask = u(((1 << e_src) - 1) << m_src)
        bias_src = (1 << (e_src - 1)) - 1
        bias_dst = (1 << (exponent_bits - 1)) - 1
        exponent = lax_apply("and", bits, exp_mask)
        overflow = lax_apply("gt", exponent, u((bias_src + bias_dst) << m_src))
        underflow = lax_apply("le", exponent, u((bias_src - bias_dst) << m_src))
        signed_zero = lax_apply("and", bits, sign_mask)
        signed_inf = lax_apply("or", signed_zero, exp_mask)
        bits = lax_apply("select", overflow, signed_inf,
                         lax_apply("select", underflow, signed_zero, bits))
    result = bitcast_convert_type(bits, dt)
    return lax_apply("select", lax_apply("is_nan", operand), operand, result)


__all__ += ["reduce_precision"]
