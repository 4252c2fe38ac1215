"""Batch normalization (seed 004 BatchNormTraining 148, BatchNormInference 125,
BatchNormGrad 93): one statistics op of its own (``batch_norm_sums``: per-feature sums of
a and a * b in float64, one pass; csrc/kernels/normalization/) and lax elementwise ops,
so under xa.jit / xa.lazy training and grad run as two passes over the data (the sums,
then one loop fusion computing y or dx), and eager as the sums and a few elementwise
kernels.

With x the operand, l the feature dim (``feature_index``), m the count of elements per
feature (the product of every other dim) and sums over every dim but l:
  training:  mu = sum(x) / m, var = sum((x - mu)^2) / m,
             y = scale * (x - mu) / sqrt(var + epsilon) + offset  -> (y, mu, var)
  inference: y with the given mean and variance
  grad:      c = sum(dy * (x - mu)) / (m (var + epsilon)), d = sum(dy) / m,
             dx = scale / sqrt(var + epsilon) * (dy - d - c (x - mu)),
             dscale = sum(dy * (x - mu) / sqrt(var + epsilon)), doffset = sum(dy)
The one-pass forms, var = sum(x x) / m - mu^2 and sum(dy (x - mu)) = sum(dy x) -
mu sum(dy), are formed in float64 from float64 sums: for f32 data every product is exact
and the cancellation costs nothing a float32 result keeps; f64 data loses about
eps * mu^2 / var of var.
Worked example: x = [[1, 2], [3, 6]] with features along dim 1, scale 1, offset 0, epsilon
0: sums [4, 8] and [10, 40], mu = [2, 4], var = [5 - 4, 20 - 16] = [1, 4],
y = [[-1, -1], [1, 1]].
"""

import operator

import numpy as np

from xarr import _tensor
from xarr._bindings.normalization import feature_sums_into
from xarr._dtypes import CODE_OF, KINDS, XLA_NAMES
from xarr._graph.ir import TensorType
from xarr._graph.trace import recorder
from xarr._ops import structural as S
from xarr._ops.elementwise import convert_element_type, lax_apply, lax_scalar
from xarr._ops.structural import as_operand, broadcast_in_dim


def _check(op, x, feature_index, vectors):
    rank = len(x.shape)
    try:
        f = operator.index(feature_index)
    except TypeError:
        raise TypeError(f"lax.{op}: feature_index must be an integer, got "
                        f"{feature_index!r}") from None
    if not 0 <= f < rank:
        raise ValueError(f"lax.{op}: feature_index {f} is out of range for an operand of "
                         f"rank {rank} (shape {tuple(x.shape)})")
    code = CODE_OF[x.dtype]
    if KINDS[code] != "f":
        raise TypeError(f"lax.{op}: the operand must be floating point, got "
                        f"{XLA_NAMES[code]}")
    for name, v in vectors.items():
        if tuple(v.shape) != (x.shape[f],) or CODE_OF[v.dtype] != code:
            raise ValueError(f"lax.{op}: {name} must be a {XLA_NAMES[code]} vector of "
                             f"{x.shape[f]} elements (the feature dim {f} of "
                             f"{tuple(x.shape)}), got {XLA_NAMES[CODE_OF[v.dtype]]}"
                             f"{list(v.shape)}")
    return f, code


def _per_feature(v, x, f):
    """Vector v broadcast along x's feature dim f."""
    return broadcast_in_dim(v, tuple(x.shape), (f,))


_F64 = CODE_OF[np.dtype(np.float64)]


# ------------------------------------------------------------------------ batch_norm_sums
def _sums_rule(types, feature_index):
    a, b = types
    if a.dims != b.dims or a.code != b.code or KINDS[a.code] != "f" or \
            not 0 <= feature_index < len(a.dims):
        raise ValueError(f"batch_norm_sums: operands {XLA_NAMES[a.code]}{list(a.dims)} and "
                         f"{XLA_NAMES[b.code]}{list(b.dims)} must share a floating type and "
                         f"shape, feature_index {feature_index} in range")
    return TensorType(_F64, (2, a.dims[feature_index]), None)


def _sums_impl(a, b, feature_index):
    out = _tensor.empty((2, a.shape[feature_index]), _F64)
    if a.dtype in (np.float32, np.float64):
        return feature_sums_into(out, a, b, feature_index)
    # f16 / bf16: the kernel reads f32
    a32, b32 = (convert_element_type(v, np.float32) for v in (a, b))
    return feature_sums_into(out, _tensor.strided(a32), _tensor.strided(b32), feature_index)


S.defop("batch_norm_sums", _sums_rule, _sums_impl,
        text=lambda attrs: [f"feature_index={attrs['feature_index']}"])


def _feature_sums(a, b, f, m):
    """(sum(a) / m, sum(a * b) / m) per feature, float64 vectors (m = 0: zeros)."""
    sums = S.apply("batch_norm_sums", [a, b], feature_index=f)
    inv = lax_scalar("batch_norm", 1.0 / max(m, 1), _F64)
    c = sums.shape[1]
    rows = [S.reshape(S.slice(sums, (r, 0), (r + 1, c)), (c,)) for r in (0, 1)]
    return lax_apply("mul", rows[0], inv), lax_apply("mul", rows[1], inv), rows[0]


_FUSED = {}


def _fused(which, *args):
    """Eager batch norm through xa.jit of the same composition (cached per shape, dtype
    and epsilon): two fused passes instead of a kernel per elementwise op (16 x 32 x 32 x
    32 f32 on a Zen 4 VM: training 0.35 -> 0.2 ms, grad 0.47 -> 0.25 ms)."""
    fn = _FUSED.get(which)
    if fn is None:
        from xarr._graph.jit import jit   # (jit imports the ops: a cycle at import time)
        fn = _FUSED[which] = jit(batch_norm_training if which == "training" else
                                 batch_norm_grad)
    return fn(*args)


def _count(x, f):
    m = 1
    for d, n in enumerate(x.shape):
        if d != f:
            m *= n
    return m


def _inv_std(var, epsilon, code):
    return lax_apply("rsqrt", lax_apply("add", var, lax_scalar("batch_norm", float(epsilon),
                                                               code)))


def batch_norm_training(operand, scale, offset, epsilon, feature_index):
    """BatchNormTraining (seed 004): (normalized operand, batch mean, batch variance)."""
    x, scale, offset = (as_operand(v) for v in (operand, scale, offset))
    f, code = _check("batch_norm_training", x, feature_index,
                     {"scale": scale, "offset": offset})
    if recorder([x, scale, offset]) is None:   # eager: the fused two-pass form
        return _fused("training", x, scale, offset, float(epsilon), f)
    mean64, sq64, _ = _feature_sums(x, x, f, _count(x, f))
    var64 = lax_apply("max", lax_apply("sub", sq64, lax_apply("mul", mean64, mean64)),
                      lax_scalar("batch_norm", 0.0, _F64))
    mean, var = (convert_element_type(v, x.dtype) for v in (mean64, var64))
    k = lax_apply("mul", scale, _inv_std(var, epsilon, code))
    centered = lax_apply("sub", x, _per_feature(mean, x, f))
    y = lax_apply("add", lax_apply("mul", centered, _per_feature(k, x, f)),
                  _per_feature(offset, x, f))
    return y, mean, var


def batch_norm_inference(operand, scale, offset, mean, variance, epsilon, feature_index):
    """BatchNormInference (seed 004): the operand normalized with the given statistics,
    as one scale and shift per feature."""
    x, scale, offset, mean, variance = (as_operand(v) for v in
                                        (operand, scale, offset, mean, variance))
    f, code = _check("batch_norm_inference", x, feature_index,
                     {"scale": scale, "offset": offset, "mean": mean, "variance": variance})
    k = lax_apply("mul", scale, _inv_std(variance, epsilon, code))
    shift = lax_apply("sub", offset, lax_apply("mul", mean, k))
    return lax_apply("add", lax_apply("mul", x, _per_feature(k, x, f)),
                     _per_feature(shift, x, f))


def batch_norm_grad(operand, scale, mean, variance, grad_output, epsilon, feature_index):
    """BatchNormGrad (seed 004): (grad_operand, grad_scale, grad_offset)."""
    x, scale, mean, variance, dy = (as_operand(v) for v in
                                    (operand, scale, mean, variance, grad_output))
    f, code = _check("batch_norm_grad", x, feature_index,
                     {"scale": scale, "mean": mean, "variance": variance})
    if tuple(dy.shape) != tuple(x.shape) or CODE_OF[dy.dtype] != code:
        raise ValueError(f"lax.batch_norm_grad: grad_output must have the operand's shape "
                         f"{tuple(x.shape)} and type, got {tuple(dy.shape)}")
    if recorder([x, scale, mean, variance, dy]) is None:
        return _fused("grad", x, scale, mean, variance, dy, float(epsilon), f)
    m = _count(x, f)
    # sum(dy) / m and sum(dy x) / m, then sum(dy (x - mu)) / m = sum(dy x) / m - mu sum(dy) / m
    d64, dyx64, sum_dy64 = _feature_sums(dy, x, f, m)
    dot64 = lax_apply("sub", dyx64, lax_apply("mul", convert_element_type(mean, np.float64),
                                              d64))
    inv_std = _inv_std(variance, epsilon, code)
    grad_offset = convert_element_type(sum_dy64, x.dtype)
    grad_scale = lax_apply("mul", convert_element_type(
        lax_apply("mul", dot64, lax_scalar("batch_norm", float(m), _F64)), x.dtype), inv_std)
    c = lax_apply("mul", convert_element_type(dot64, x.dtype),
                  lax_apply("mul", inv_std, inv_std))
    d = convert_element_type(d64, x.dtype)
    centered = lax_apply("sub", x, _per_feature(mean, x, f))
    inner = lax_apply("sub", lax_apply("sub", dy, _per_feature(d, x, f)),
                      lax_apply("mul", _per_feature(c, x, f), centered))
    grad_operand = lax_apply("mul", _per_feature(lax_apply("mul", scale, inv_std), x, f),
                             inner)
    return grad_operand, grad_scale, grad_offset
