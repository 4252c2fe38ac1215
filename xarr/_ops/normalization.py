"""Batch normalization (seed 004 BatchNormTraining 148, BatchNormInference 125,
BatchNormGrad 93): composed of lax reductions and elementwise ops, so they run eager on the
reduction and elementwise kernels and, under xa.jit / xa.lazy, fuse like any other
elementwise chain (the statistics are input fusions into reductions, the normalization one
loop fusion).

With x the operand, l the feature dim (``feature_index``), m the count of elements per
feature (the product of every other dim) and sums over every dim but l:
  training:  mu = sum(x) / m, var = sum((x - mu)^2) / m,
             y = scale * (x - mu) / sqrt(var + epsilon) + offset  -> (y, mu, var)
  inference: y with the given mean and variance
  grad:      c = sum(dy * (x - mu)) / (m (var + epsilon)), d = sum(dy) / m,
             dx = scale / sqrt(var + epsilon) * (dy - d - c (x - mu)),
             dscale = sum(dy * (x - mu) / sqrt(var + epsilon)), doffset = sum(dy)
Worked example: x = [[1, 2], [3, 6]] with features along dim 1, scale 1, offset 0, epsilon
0: mu = [2, 4], var = [1, 4], y = [[-1, -1], [1, 1]].
"""

import operator

from xarr._dtypes import CODE_OF, KINDS, XLA_NAMES
from xarr._ops.elementwise import lax_apply, lax_scalar
from xarr._ops.reduction import reduce_sum
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


def _moments(x, f, code):
    axes = tuple(d for d in range(len(x.shape)) if d != f)
    count = 1
    for d in axes:
        count *= x.shape[d]
    inv = lax_scalar("batch_norm", 1.0 / max(count, 1), code)
    mean = lax_apply("mul", reduce_sum(x, axes), inv)
    centered = lax_apply("sub", x, _per_feature(mean, x, f))
    var = lax_apply("mul", reduce_sum(lax_apply("mul", centered, centered), axes), inv)
    return mean, var, centered, axes, inv


def _inv_std(var, epsilon, code):
    return lax_apply("rsqrt", lax_apply("add", var, lax_scalar("batch_norm", float(epsilon),
                                                               code)))


def batch_norm_training(operand, scale, offset, epsilon, feature_index):
    """BatchNormTraining (seed 004): (normalized operand, batch mean, batch variance)."""
    x, scale, offset = (as_operand(v) for v in (operand, scale, offset))
    f, code = _check("batch_norm_training", x, feature_index,
                     {"scale": scale, "offset": offset})
    mean, var, centered, _, _ = _moments(x, f, code)
    k = lax_apply("mul", scale, _inv_std(var, epsilon, code))
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
    axes = tuple(d for d in range(len(x.shape)) if d != f)
    count = 1
    for d in axes:
        count *= x.shape[d]
    inv = lax_scalar("batch_norm", 1.0 / max(count, 1), code)
    inv_std = _inv_std(variance, epsilon, code)
    centered = lax_apply("sub", x, _per_feature(mean, x, f))
    grad_offset = reduce_sum(dy, axes)
    dot = reduce_sum(lax_apply("mul", dy, centered), axes)
    grad_scale = lax_apply("mul", dot, inv_std)
    c = lax_apply("mul", lax_apply("mul", dot, inv), lax_apply("mul", inv_std, inv_std))
    d = lax_apply("mul", grad_offset, inv)
    inner = lax_apply("sub", lax_apply("sub", dy, _per_feature(d, x, f)),
                      lax_apply("mul", _per_feature(c, x, f), centered))
    grad_operand = lax_apply("mul", _per_feature(lax_apply("mul", scale, inv_std), x, f),
                             inner)
    return grad_operand, grad_scale, grad_offset
