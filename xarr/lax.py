"""``xa.lax``: XLA's operation semantics (seed 004), named and shaped like ``jax.lax``.

Strict like XLA: operands of a binary op must have the same element type (TypeError
otherwise) and different ranks need ``broadcast_dimensions`` (seed 003), e.g.
``lax.add(x_f32_2x3, v_f32_3, broadcast_dimensions=(1,))``.

This module only assembles: the elementwise functions are made from the op registry's
rows that have a lax name (xarr/_registry.py ELEMENTWISE), the others are the op
families' own lax functions (xarr/_ops/, xarr/_graph/control.py).
"""

from xarr._graph.control import (call, cond, custom_call, fori_loop, get_tuple_element, map,
                                 optimization_barrier, register_custom_call_target, switch,
                                 tuple_, while_loop)
from xarr._ops.collectives import (Token, after_all, all_gather, all_reduce, all_to_all,
                                   axis_index, collective_permute, cross_replica_sum, pmax,
                                   pmean, pmin, ppermute, psum, psum_scatter, recv,
                                   reduce_scatter, replica_id, send)
from xarr._ops.contraction import Precision, dot, dot_general
from xarr._ops.fft import FftType, fft
from xarr._ops.convolution import (ConvDimensionNumbers, conv, conv_dimension_numbers,
                                   conv_general_dilated, conv_transpose,
                                   conv_with_general_padding, padtype_to_pads)
from xarr import lax_linalg as linalg
from xarr._ops.random import (RandomAlgorithm, rng_bit_generator, rng_normal,
                              rng_uniform)
from xarr._ops.normalization import (batch_norm_grad, batch_norm_inference,
                                     batch_norm_training)
from xarr._ops.window import reduce_window, select_and_scatter, select_and_scatter_add
from xarr._ops.sorting import argsort, sort, sort_key_val, top_k
from xarr._ops.gather import (GatherDimensionNumbers, GatherScatterMode,
                              ScatterDimensionNumbers, gather, scatter, scatter_add,
                              scatter_apply, scatter_max, scatter_min, scatter_mul)
from xarr._ops.elementwise import RoundingMethod, convert_element_type, lax_apply, lax_round
from xarr._ops.reduction import (argmax, argmin, cummax, cummin, cumprod, cumsum, reduce,
                                 reduce_and, reduce_max, reduce_min, reduce_or, reduce_prod,
                                 reduce_sum)
from xarr._ops.structural import (bitcast_convert_type, broadcast, broadcast_in_dim,
                                  broadcasted_iota, collapse, concatenate, dynamic_slice,
                                  dynamic_update_slice, expand_dims, get_dimension_size, iota,
                                  pad, reduce_precision, reshape, rev, set_dimension_size,
                                  slice, squeeze, transpose)
from xarr._registry import elementwise_ops

__all__ = []


def _lax_function(op):
    """The xa.lax function of elementwise registry row ``op``: (x), (x, y,
    broadcast_dimensions=None) or its three named operands. ``fn.lax_op`` names the row
    (lax.reduce recognizes ``lax.add`` ... as monoids by it)."""
    name = op.lax
    if op.arity == 1:
        def fn(x):
            return lax_apply(op.name, x, label=name)
    elif op.arity == 2:
        def fn(x, y, broadcast_dimensions=None):
            return lax_apply(op.name, x, y, broadcast_dimensions=broadcast_dimensions,
                             label=name)
    else:
        a, b, c = op.lax_params or ("a", "b", "c")
        ns = {"lax_apply": lax_apply, "op": op.name}
        exec(f"def fn({a}, {b}, {c}):\n    return lax_apply(op, {a}, {b}, {c})\n", ns)  # noqa: S102
        fn = ns["fn"]
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = op.doc
    fn.lax_op = op.name
    return fn


for _op in elementwise_ops().values():
    if _op.lax:
        globals()[_op.lax] = _lax_function(_op)
        __all__.append(_op.lax)

not_ = bitwise_not  # noqa: F821  (jax.lax spells these with a trailing underscore too)
and_ = bitwise_and  # noqa: F821
or_ = bitwise_or  # noqa: F821
xor = bitwise_xor  # noqa: F821
round = lax_round  # noqa: A001

__all__ += ["not_", "and_", "or_", "xor", "round", "RoundingMethod", "convert_element_type",
            "iota", "broadcasted_iota", "broadcast_in_dim", "broadcast"]
__all__ += ["reshape", "collapse", "transpose", "rev", "slice", "dynamic_slice",
            "dynamic_update_slice", "pad", "concatenate", "squeeze", "expand_dims",
            "bitcast_convert_type", "get_dimension_size", "set_dimension_size",
            "reduce_precision"]
__all__ += ["reduce", "reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and",
            "reduce_or", "argmax", "argmin", "cumsum", "cumprod", "cummax", "cummin"]
__all__ += ["dot", "dot_general", "Precision"]
__all__ += ["rng_bit_generator", "rng_uniform", "rng_normal", "RandomAlgorithm"]
__all__ += ["linalg"]
__all__ += ["fft", "FftType"]
__all__ += ["conv_general_dilated", "conv", "conv_with_general_padding", "conv_transpose",
            "conv_dimension_numbers", "ConvDimensionNumbers", "padtype_to_pads"]
__all__ += ["reduce_window", "select_and_scatter", "select_and_scatter_add",
            "batch_norm_training", "batch_norm_inference", "batch_norm_grad"]
__all__ += ["psum", "pmax", "pmin", "pmean", "all_gather", "all_to_all", "psum_scatter",
            "ppermute", "axis_index", "replica_id", "all_reduce", "reduce_scatter",
            "collective_permute", "cross_replica_sum", "send", "recv", "after_all", "Token"]
__all__ += ["map", "call", "cond", "switch", "while_loop", "fori_loop", "tuple",
            "get_tuple_element", "optimization_barrier", "custom_call",
            "register_custom_call_target"]


def __getattr__(name):
    # ``lax.tuple`` (seed 004 Tuple) without shadowing the builtin inside this module.
    if name == "tuple":
        return tuple_
    raise AttributeError(f"module 'xarr.lax' has no attribute {name!r}")
