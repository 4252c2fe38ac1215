"""Convolution (seed 004 Conv / ConvWithGeneralPadding, line ~448): ``lax.conv_general_dilated``
and its shorthands ``conv``, ``conv_with_general_padding`` and ``conv_transpose``, one
registry row ``conv_general_dilated`` (HLO opcode ``convolution``) whose eager impl and
executable step run the GEMM engine (csrc/kernels/gemm/) as an implicit GEMM: no window
is copied, no padded or dilated input is built.

Semantics (the seed's pseudocode, for any number n of spatial dims). For an output element
(b, oz, o_1..o_n):
  value = sum over iz < Cg and taps k_1..k_n of lhs(b', g * Cg + iz, i_1..i_n) *
          rhs(oz, iz, k_1..k_n)
where x_d = o_d * window_strides[d] + k_d * rhs_dilation[d] - padding[d][0] is a position
in lhs's spatial dim d dilated by lhs_dilation[d] (lhs_dilation - 1 holes between
elements): the term reads lhs element i_d = x_d / lhs_dilation[d] when that divides and
0 <= i_d < the dim's size, and is zero otherwise (padding and holes are zeros; negative
padding crops). Output dim d has max(0, (dilated input + lo + hi - dilated window) //
stride + 1) positions. Groups (at most one count > 1):
  * feature_group_count G: lhs's C features split into G runs of Cg = C / G (rhs's input
    feature dim is Cg), rhs's O output features into G runs; group g = oz // (O / G)
    reads lhs features g * Cg .. and b' = b;
  * batch_group_count G: lhs's batch split into G runs of N / G (the output batch), group
    g = oz // (O / G) reads b' = g * (N / G) + b and all C features (as jax does).
Dimension numbers name, for lhs, rhs and the output, which dims are batch / feature (for
rhs: output / input feature) and which are spatial, in jax's ConvDimensionNumbers form
(lhs_spec, rhs_spec, out_spec) or as strings ('NCHW', 'OIHW', 'NCHW'); spatial dims pair
up by their order in the rhs spec.

Worked example (1-D, NCW / OIW / NCW): lhs [[[1, 2, 3, 4]]], rhs [[[1, 1]]], stride 1,
padding ((1, 0),): windows over [0, 1, 2, 3, 4] -> [[[1, 3, 5, 7]]]; with lhs_dilation 2
the lhs reads [1, 0, 2, 0, 3, 0, 4] and padding ((0, 0),) gives [[[1, 2, 2, 3, 3, 4]]].

How it runs (``_segments``): along each spatial dim, the output positions split into a few
segments in which every position reads the same taps, an arithmetic progression, at input
positions that advance by a constant (with stride 1 and SAME 3x3 padding: the first
position reads taps 1..2, the interior 0..2, the last 0..1). With lhs dilation a segment
takes every P-th output (its phase). Each combination of one segment per spatial dim is
one GEMM over strided views of the operands (batch = groups, m = (batch, output positions),
k = (taps, input features), n = output features): 9 GEMMs for 3x3 SAME, one for VALID.
"""

import collections
import functools
import math
import operator

import numpy as np

from xarr import _tensor
from xarr._bindings.gemm import gemm_into
from xarr._bindings.window import depthwise_into, winograd_into
from xarr._dtypes import CODE_OF, as_dtype
from xarr._graph.ir import TensorType
from xarr._ops.contraction import (as_result, computation_code, gemm_operands,
                                   normalize_precision, result_code)
from xarr._ops.structural import apply, on_strided, pad, rev, transpose
from xarr._registry import Op, register

ConvDimensionNumbers = collections.namedtuple("ConvDimensionNumbers",
                                              ["lhs_spec", "rhs_spec", "out_spec"])
ConvDimensionNumbers.__doc__ = """jax.lax.ConvDimensionNumbers: for lhs, rhs and the output,
the dims (batch or output feature, feature or input feature, then the spatial dims)."""

_OP = "lax.conv_general_dilated"


# ------------------------------------------------------------------------ arguments
def _ints(values, what, n, default=1):
    """A tuple of n ints (``values`` None: n copies of ``default``)."""
    if values is None:
        return (default,) * n
    try:
        out = tuple(operator.index(v) for v in values)
    except TypeError:
        raise TypeError(f"{_OP}: {what} must be a sequence of integers, got {values!r}") \
            from None
    if len(out) != n:
        raise ValueError(f"{_OP}: {what} {out} must have one entry per spatial dimension "
                         f"({n})")
    return out


def _specs_from_strings(lhs_s, rhs_s, out_s, rank):
    pairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for spec, (a, b), what in zip((lhs_s, rhs_s, out_s), pairs, ("lhs", "rhs", "out")):
        if len(spec) != rank:
            raise ValueError(f"{_OP}: {what} spec {spec!r} must have {rank} letters (the "
                             f"operands' rank)")
        if spec.count(a) != 1 or spec.count(b) != 1 or len(set(spec)) != len(spec):
            raise ValueError(f"{_OP}: {what} spec {spec!r} must name {a!r} and {b!r} once "
                             f"and repeat no letter")
    spatial = [c for c in rhs_s if c not in "OI"]
    if set(spatial) != set(lhs_s) - {"N", "C"} or set(spatial) != set(out_s) - {"N", "C"}:
        raise ValueError(f"{_OP}: the spatial letters of {lhs_s!r}, {rhs_s!r} and {out_s!r} "
                         f"differ")

    def perm(spec, a, b):
        return (spec.index(a), spec.index(b)) + tuple(spec.index(c) for c in spatial)

    return ConvDimensionNumbers(perm(lhs_s, "N", "C"), perm(rhs_s, "O", "I"),
                                perm(out_s, "N", "C"))


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers):
    """jax.lax.conv_dimension_numbers: ``dimension_numbers`` (None, a ConvDimensionNumbers
    or a triple of specs: strings like ('NHWC', 'HWIO', 'NHWC') or tuples of dims) as a
    ConvDimensionNumbers of dim tuples. None means ('NCHW', 'OIHW', 'NCHW') order."""
    rank = len(lhs_shape)
    if len(rhs_shape) != rank:
        raise ValueError(f"{_OP}: lhs and rhs must have the same rank, got shapes "
                         f"{tuple(lhs_shape)} and {tuple(rhs_shape)}")
    if rank < 2:
        raise ValueError(f"{_OP}: operands need rank >= 2 (batch and feature dims), got "
                         f"shape {tuple(lhs_shape)}")
    if dimension_numbers is None:
        iota = tuple(range(rank))
        return ConvDimensionNumbers(iota, iota, iota)
    try:
        lhs_s, rhs_s, out_s = dimension_numbers
    except (TypeError, ValueError):
        raise TypeError(f"{_OP}: dimension_numbers must be None, a ConvDimensionNumbers or "
                        f"(lhs_spec, rhs_spec, out_spec), got {dimension_numbers!r}") from None
    if all(isinstance(s, str) for s in (lhs_s, rhs_s, out_s)):
        return _specs_from_strings(lhs_s, rhs_s, out_s, rank)
    specs = []
    for spec, what in ((lhs_s, "lhs"), (rhs_s, "rhs"), (out_s, "out")):
        try:
            spec = tuple(operator.index(d) for d in spec)
        except TypeError:
            raise TypeError(f"{_OP}: {what}_spec must be a string or a sequence of dims, got "
                            f"{spec!r}") from None
        if sorted(spec) != list(range(rank)):
            raise ValueError(f"{_OP}: {what}_spec {spec} must be a permutation of "
                             f"0..{rank - 1}")
        specs.append(spec)
    return ConvDimensionNumbers(*specs)


def padtype_to_pads(in_shape, window_shape, window_strides, padding):
    """(lo, hi) pairs of a padding name: 'VALID' (none), 'SAME' (output size ceil(in /
    stride), the odd element high) or 'SAME_LOWER' (the odd element low), as jax's."""
    name = padding.upper()
    if name == "VALID":
        return tuple((0, 0) for _ in in_shape)
    if name not in ("SAME", "SAME_LOWER"):
        raise ValueError(f"{_OP}: padding must be 'SAME', 'SAME_LOWER', 'VALID' or (lo, hi) "
                         f"pairs, got {padding!r}")
    pads = []
    for n, w, s in zip(in_shape, window_shape, window_strides):
        total = max(0, (-(-n // s) - 1) * s + w - n)
        small, large = total // 2, total - total // 2
        pads.append((small, large) if name == "SAME" else (large, small))
    return tuple(pads)


def _dilated(n, d):
    return 0 if n == 0 else (n - 1) * d + 1


# ------------------------------------------------------------------------ shape rule
def _conv_rule(types, window_strides, padding, lhs_dilation, rhs_dilation,
               dimension_numbers, feature_group_count, batch_group_count, precision=None,
               preferred_element_type=None):
    lhs, rhs = types
    lspec, rspec, ospec = dimension_numbers
    if len(lhs.dims) != len(lspec) or len(rhs.dims) != len(rspec):
        raise ValueError(f"{_OP}: dimension numbers {dimension_numbers} do not fit shapes "
                         f"{lhs.dims} and {rhs.dims}")
    n_batch, n_feat = lhs.dims[lspec[0]], lhs.dims[lspec[1]]
    n_out, n_in = rhs.dims[rspec[0]], rhs.dims[rspec[1]]
    fgc, bgc = feature_group_count, batch_group_count
    if fgc < 1 or bgc < 1:
        raise ValueError(f"{_OP}: feature_group_count {fgc} and batch_group_count {bgc} "
                         f"must be >= 1")
    if fgc > 1 and bgc > 1:
        raise ValueError(f"{_OP}: at most one of feature_group_count ({fgc}) and "
                         f"batch_group_count ({bgc}) may exceed 1")
    if n_feat != n_in * fgc:
        raise ValueError(f"{_OP}: lhs feature dimension size {n_feat} must equal rhs input "
                         f"feature dimension size {n_in} times feature_group_count {fgc}")
    if n_out % fgc:
        raise ValueError(f"{_OP}: rhs output feature dimension size {n_out} must be a "
                         f"multiple of feature_group_count {fgc}")
    if n_batch % bgc:
        raise ValueError(f"{_OP}: lhs batch dimension size {n_batch} must be a multiple of "
                         f"batch_group_count {bgc}")
    if n_out % bgc:
        raise ValueError(f"{_OP}: rhs output feature dimension size {n_out} must be a "
                         f"multiple of batch_group_count {bgc}")
    for what, values in (("window_strides", window_strides), ("lhs_dilation", lhs_dilation),
                         ("rhs_dilation", rhs_dilation)):
        if any(v < 1 for v in values):
            raise ValueError(f"{_OP}: {what} {values} must be positive")
    for d in range(len(lspec) - 2):
        size = _dilated(lhs.dims[lspec[2 + d]], lhs_dilation[d])
        if -padding[d][0] > size or -padding[d][1] > size:
            raise ValueError(f"{_OP}: negative padding {padding[d]} of spatial dimension "
                             f"{d} crops more than its (dilated) size {size}")
    dims = [0] * len(ospec)
    dims[ospec[0]] = n_batch // bgc
    dims[ospec[1]] = n_out
    for d in range(len(lspec) - 2):
        size = _dilated(lhs.dims[lspec[2 + d]], lhs_dilation[d]) + sum(padding[d])
        window = _dilated(rhs.dims[rspec[2 + d]], rhs_dilation[d])
        dims[ospec[2 + d]] = max(0, (size - window) // window_strides[d] + 1) \
            if size >= window else 0
    code = result_code(lhs.code, rhs.code, preferred_element_type)
    return TensorType(code, tuple(dims), None)


# ------------------------------------------------------------------------ the plan
Segment = collections.namedtuple("Segment", "o0 o_step count k0 k_step taps i0 i_step i_k_step")
Segment.__doc__ = """Output positions o0 + j * o_step (j < count) of one spatial dim, each
reading taps k0 + t * k_step (t < taps) at input positions i0 + j * i_step + t * i_k_step."""


@functools.lru_cache(maxsize=1024)
def _segments(n_in, n_win, n_out, stride, lo, lhs_dil, rhs_dil):
    """The Segments covering output positions 0..n_out-1 of one spatial dim (module
    docstring). Worked example: n_in 5, n_win 3, n_out 5, stride 1, lo 1, no dilation ->
    (0, 1, 1, k 1.., 2 taps, i 0), (1, 1, 3, k 0.., 3 taps, i 0), (4, 1, 1, k 0.., 2 taps,
    i 3). A tap k of output o reads dilated position x = o * stride + k * rhs_dil - lo,
    which must be a multiple of lhs_dil inside the input: the taps of o form a progression
    of step lhs_dil / gcd(rhs_dil, lhs_dil)."""
    g = math.gcd(rhs_dil, lhs_dil)
    k_step, i_k_step = lhs_dil // g, rhs_dil // g
    inverse = pow(rhs_dil // g, -1, k_step) if k_step > 1 else 0
    last = (n_in - 1) * lhs_dil

    def taps_of(o):  # (first tap, tap count, its input position)
        base = o * stride - lo
        if n_in == 0 or (-base) % g:
            return 0, 0, 0
        residue = (-base) // g * inverse % k_step
        k_lo = max(0, -(base // rhs_dil))              # x >= 0
        k_hi = min(n_win - 1, (last - base) // rhs_dil)  # x <= last
        first = k_lo + (residue - k_lo) % k_step
        if first > k_hi:
            return 0, 0, 0
        return first, (k_hi - first) // k_step + 1, (base + first * rhs_dil) // lhs_dil

    period = lhs_dil // math.gcd(stride, lhs_dil)
    i_step = period * stride // lhs_dil
    out = []
    for phase in range(min(period, n_out)):
        cur = None
        for o in range(phase, n_out, period):
            k0, taps, i0 = taps_of(o)
            if cur is not None and (cur[3], cur[5]) == (k0, taps) and \
                    (taps == 0 or i0 == cur[6] + cur[2] * i_step):
                cur[2] += 1
                continue
            if cur is not None:
                out.append(Segment(*cur))
            cur = [o, period, 1, k0, k_step, taps, i0, i_step, i_k_step]
        out.append(Segment(*cur))
    return tuple(out)


def _conv_regions(lhs, rhs, out, attrs):
    """Runs the convolution into ``out`` (of the computation type, dims in the output
    spec's order) as one GEMM per combination of segments."""
    lspec, rspec, ospec = attrs["dimension_numbers"]
    n = len(lspec) - 2
    fgc, bgc = attrs["feature_group_count"], attrs["batch_group_count"]
    ls, rs, os_ = lhs.strides, rhs.strides, out.strides
    n_batch, n_feat = lhs.shape[lspec[0]], lhs.shape[lspec[1]]
    n_out_feat, n_in_feat = rhs.shape[rspec[0]], rhs.shape[rspec[1]]
    groups = max(fgc, bgc)
    og = n_out_feat // groups
    out_batch = n_batch // bgc
    if fgc > 1:   # group g: lhs features g * Cg.., rhs / out features g * og..
        g_strides = (n_in_feat * ls[lspec[1]], og * rs[rspec[0]], og * os_[ospec[1]])
    else:         # batch groups (or none): lhs batch g * (N / G)..
        g_strides = (out_batch * ls[lspec[0]], og * rs[rspec[0]], og * os_[ospec[1]])
    per_dim = []
    for d in range(n):
        per_dim.append(_segments(lhs.shape[lspec[2 + d]], rhs.shape[rspec[2 + d]],
                                 out.shape[ospec[2 + d]], attrs["window_strides"][d],
                                 attrs["padding"][d][0], attrs["lhs_dilation"][d],
                                 attrs["rhs_dilation"][d]))
    # m dims (batch, output positions) and k dims (taps, input features), each ordered by
    # the strides of the output / lhs (outer first), so the engine can merge neighbours
    m_order = sorted(range(n + 1), key=lambda j: -abs(os_[ospec[0 if j == 0 else 1 + j]]))
    k_order = sorted(range(n + 1), key=lambda j: -abs(ls[lspec[1 if j == n else 2 + j]]))
    lb = (0,)
    lc = tuple(2 + n + j for j in range(n + 1))
    rc = tuple(1 + j for j in range(n + 1))
    for combo in _product(per_dim):
        if any(s.count == 0 for s in combo):
            continue
        empty_k = any(s.taps == 0 for s in combo) or n_in_feat == 0
        l_off = r_off = o_off = 0
        m_dims, m_l, m_o = [out_batch], [ls[lspec[0]]], [os_[ospec[0]]]
        k_dims, k_l, k_r = [], [], []
        for d, s in enumerate(combo):
            ld, rd, od = ls[lspec[2 + d]], rs[rspec[2 + d]], os_[ospec[2 + d]]
            o_off += s.o0 * od
            m_dims.append(s.count)
            m_l.append(s.i_step * ld)
            m_o.append(s.o_step * od)
            k_dims.append(s.taps)
            k_l.append(s.i_k_step * ld)
            k_r.append(s.k_step * rd)
            if not empty_k:
                l_off += s.i0 * ld
                r_off += s.k0 * rd
        k_dims.append(n_in_feat)
        k_l.append(ls[lspec[1]])
        k_r.append(rs[rspec[1]])
        m_dims, m_l, m_o = ([v[j] for j in m_order] for v in (m_dims, m_l, m_o))
        k_dims, k_l, k_r = ([v[j] for j in k_order] for v in (k_dims, k_l, k_r))
        lv = _tensor.as_strided_view(lhs, [groups] + m_dims + k_dims,
                                     [g_strides[0]] + m_l + k_l, l_off, readonly=True)
        rv = _tensor.as_strided_view(rhs, [groups] + k_dims + [og],
                                     [g_strides[1]] + k_r + [rs[rspec[0]]], r_off,
                                     readonly=True)
        ov = _tensor.as_strided_view(out, [groups] + m_dims + [og],
                                     [g_strides[2]] + m_o + [os_[ospec[1]]], o_off)
        _gemm_into_region(ov, lv, rv, lb, lc, rc)


def _padded_first(lhs, rhs, out_dims, attrs):
    """(lhs, attrs), or lhs zero-padded and attrs without the (positive) padding when the
    window holds more taps than the output has positions (a weight gradient: a 32x32
    window, 3x3 outputs): then one GEMM over the padded copy replaces one per output
    position, each too small to fill the micro-kernel's tiles (16 x 3 x 32 x 32 by 32
    3x3 filters' gradient on a Zen 4 VM: 3.0 -> 0.85 ms)."""
    lspec, rspec, ospec = attrs["dimension_numbers"]
    n = len(lspec) - 2
    pads = attrs["padding"]
    if any(d != 1 for d in attrs["lhs_dilation"]) or \
            not any(lo > 0 or hi > 0 for lo, hi in pads):
        return lhs, attrs
    window = out_positions = 1
    for d in range(n):
        window *= (rhs.shape[rspec[2 + d]] - 1) * attrs["rhs_dilation"][d] + 1
        out_positions *= out_dims[ospec[2 + d]]
    if window <= out_positions:
        return lhs, attrs
    widths = [(0, 0, 0)] * len(lspec)
    for d in range(n):
        widths[lspec[2 + d]] = (max(pads[d][0], 0), max(pads[d][1], 0), 0)
    zero = _tensor.scalar_tensor(0, CODE_OF[lhs.dtype])
    padded = _tensor.strided(pad(lhs, zero, widths))
    return padded, dict(attrs, padding=tuple((min(lo, 0), min(hi, 0)) for lo, hi in pads))


def _depthwise(lhs, rhs, out, attrs):
    """Runs a depthwise convolution (one input feature per group: feature_group_count =
    input features; f32 / f64; 1-3 spatial dims) on the window family's kernel, which
    slides the filter along output rows (NCHW) or runs over features (NHWC) instead of
    one GEMM of a single column per group. Returns whether it did."""
    lspec, rspec, ospec = attrs["dimension_numbers"]
    n = len(lspec) - 2
    if rhs.shape[rspec[1]] != 1 or attrs["feature_group_count"] != lhs.shape[lspec[1]] or \
            attrs["batch_group_count"] != 1 or not 1 <= n <= 3 or \
            lhs.dtype not in (np.float32, np.float64) or lhs.dtype != out.dtype:
        return False
    geometry = [(rhs.shape[rspec[2 + d]], attrs["window_strides"][d], attrs["padding"][d][0],
                 attrs["lhs_dilation"][d], attrs["rhs_dilation"][d]) for d in range(n)]
    rs = (rspec[0],) + tuple(rspec[2:])
    depthwise_into(out, lhs, rhs, (lspec, rs, ospec), geometry,
                   rhs.shape[rspec[0]] // max(1, lhs.shape[lspec[1]]))
    return True


# Winograd's panels keep 16 x (input + output features) x nr floats in L2: above this sum
# they spill, and the implicit GEMM wins (Zen 4, 2 threads: 3 + 32 features 2.1x faster,
# 64 + 64 at 56 x 56 1.8x, 256 + 256 at 14 x 14 1.35x, 512 + 512 at 7 x 7 0.9x)
_WINOGRAD_MAX_FEATURES = 512


def _winograd(lhs, rhs, out, attrs):
    """Runs a 3x3, stride-1, undilated, ungrouped 2-D f32 convolution whose input and
    output rows are contiguous (NCHW) by Winograd's F(2x2, 3x3) (window.h winograd_run:
    2.25x fewer multiplies than the implicit GEMM). Returns whether it did."""
    lspec, rspec, ospec = attrs["dimension_numbers"]
    if len(lspec) != 4 or attrs["feature_group_count"] != 1 or \
            attrs["batch_group_count"] != 1 or tuple(attrs["window_strides"]) != (1, 1) or \
            any(v != 1 for v in attrs["lhs_dilation"] + attrs["rhs_dilation"]) or \
            not (lhs.dtype == rhs.dtype == out.dtype == np.float32) or \
            (rhs.shape[rspec[2]], rhs.shape[rspec[3]]) != (3, 3) or \
            lhs.shape[lspec[1]] + rhs.shape[rspec[0]] > _WINOGRAD_MAX_FEATURES or \
            lhs.strides[lspec[3]] != 4 or out.strides[ospec[3]] != 4:
        return False
    winograd_into(out, lhs, rhs, (lspec, rspec, ospec), attrs["padding"][0][0],
                  attrs["padding"][1][0])
    return True


_DIRECT_MAX = 1 << 14   # outputs of a region below which a strided C is written in place


def _gemm_into_region(ov, lv, rv, lb, lc, rc):
    """gemm_into(ov, ...), through a dense temporary when no dim of the region's output
    view is contiguous (a phase of a transposed convolution writes every second pixel):
    the engine then stores whole tiles, and one strided copy places them (16 x 64 x 56 x 56
    -> 112 x 112, stride-2 transposed 3x3 on a Zen 4 VM: 50 -> 42 ms)."""
    shape, strides = tuple(ov.shape), ov.strides
    es = ov.itemsize
    contiguous = any(n > 1 and abs(st) == es for n, st in zip(shape, strides))
    if contiguous or ov.size < _DIRECT_MAX:
        gemm_into(ov, lv, rv, lb, lb, lc, rc)
        return
    order = sorted(range(len(shape)), key=lambda d: -abs(strides[d]))
    tmp = _tensor.empty([shape[d] for d in order], CODE_OF[ov.dtype])
    dense = [0] * len(shape)
    for d, st in zip(order, tmp.strides):
        dense[d] = st
    tv = _tensor.as_strided_view(tmp, shape, dense, 0)
    gemm_into(tv, lv, rv, lb, lb, lc, rc)
    ov[...] = tv


def _product(lists):
    if not lists:
        yield ()
        return
    for head in lists[0]:
        for rest in _product(lists[1:]):
            yield (head,) + rest


def _conv_impl(lhs, rhs, **attrs):
    rtype = _conv_rule([TensorType(CODE_OF[lhs.dtype], tuple(lhs.shape), None),
                        TensorType(CODE_OF[rhs.dtype], tuple(rhs.shape), None)], **attrs)
    code = computation_code(rtype.code, CODE_OF[lhs.dtype], CODE_OF[rhs.dtype])
    a, b = gemm_operands(code, lhs, rhs)
    out = _tensor.empty(rtype.dims, code)
    if all(rtype.dims) and not _depthwise(a, b, out, attrs) and \
            not _winograd(a, b, out, attrs):
        a, attrs = _padded_first(a, b, rtype.dims, attrs)
        _conv_regions(a, b, out, attrs)
    return as_result(out, code, rtype.code)


# ------------------------------------------------------------------------ HLO text
def dim_labels(dimension_numbers):
    """XLA's dim_labels: each operand's dims as letters, 'b'/'f' (lhs, output), 'o'/'i'
    (rhs) and spatial indices: ('NCHW', 'OIHW', 'NCHW') -> 'bf01_oi01->bf01'."""
    def labels(spec, a, b):
        out = [""] * len(spec)
        out[spec[0]], out[spec[1]] = a, b
        for j, d in enumerate(spec[2:]):
            out[d] = str(j)
        return "".join(out)

    lspec, rspec, ospec = dimension_numbers
    return f"{labels(lspec, 'b', 'f')}_{labels(rspec, 'o', 'i')}->{labels(ospec, 'b', 'f')}"


def window_text(sizes, strides, padding, lhs_dilation=None, rhs_dilation=None):
    """XLA's window attribute: 'size=3x3 stride=1x1 pad=1_1x1_1' (and lhs_dilate /
    rhs_dilate when not all 1)."""
    def x(values):
        return "x".join(str(v) for v in values)

    parts = [f"size={x(sizes)}", f"stride={x(strides)}",
             "pad=" + "x".join(f"{lo}_{hi}" for lo, hi in padding)]
    if lhs_dilation and any(v != 1 for v in lhs_dilation):
        parts.append(f"lhs_dilate={x(lhs_dilation)}")
    if rhs_dilation and any(v != 1 for v in rhs_dilation):
        parts.append(f"rhs_dilate={x(rhs_dilation)}")
    return "{" + " ".join(parts) + "}"


def _conv_text(instr):
    a = instr.attrs
    rhs = instr.operands[1].type
    rspec = a["dimension_numbers"][1]
    parts = [f"window={window_text([rhs.dims[d] for d in rspec[2:]], a['window_strides'], a['padding'], a['lhs_dilation'], a['rhs_dilation'])}",
             f"dim_labels={dim_labels(a['dimension_numbers'])}"]
    if a["feature_group_count"] != 1:
        parts.append(f"feature_group_count={a['feature_group_count']}")
    if a["batch_group_count"] != 1:
        parts.append(f"batch_group_count={a['batch_group_count']}")
    return parts


register(Op("conv_general_dilated", "structural", rule=_conv_rule, impl=on_strided(_conv_impl),
            hlo="convolution", text=_conv_text))


# ------------------------------------------------------------------------ lax functions
def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
                         rhs_dilation=None, dimension_numbers=None, feature_group_count=1,
                         batch_group_count=1, precision=None, preferred_element_type=None):
    """ConvWithGeneralPadding (seed 004) with jax.lax's arguments: ``padding`` as (lo, hi)
    pairs or 'SAME' / 'SAME_LOWER' / 'VALID' (computed on the undilated lhs and the
    dilated window, as jax does); dilations, dimension numbers (module docstring), group
    counts, ``precision`` and ``preferred_element_type`` as in lax.dot_general."""
    lhs_shape, rhs_shape = _shape_of(lhs), _shape_of(rhs)
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    n = len(lhs_shape) - 2
    strides = _ints(window_strides, "window_strides", n)
    lhs_dil = _ints(lhs_dilation, "lhs_dilation", n)
    rhs_dil = _ints(rhs_dilation, "rhs_dilation", n)
    if isinstance(padding, str):
        if any(d != 1 for d in lhs_dil):
            raise ValueError(f"{_OP}: string padding {padding!r} with lhs_dilation {lhs_dil} "
                             f"is ambiguous (as in jax): give (lo, hi) pairs or use "
                             f"lax.conv_transpose")
        window = [_dilated(rhs_shape[d], r) for d, r in zip(dn.rhs_spec[2:], rhs_dil)]
        pads = padtype_to_pads([lhs_shape[d] for d in dn.lhs_spec[2:]], window, strides,
                               padding)
    else:
        try:
            pads = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
        except (TypeError, ValueError):
            raise TypeError(f"{_OP}: padding must be a string or (lo, hi) pairs of "
                            f"integers, got {padding!r}") from None
        if len(pads) != n:
            raise ValueError(f"{_OP}: padding {pads} must have one pair per spatial "
                             f"dimension ({n})")
    pe = None if preferred_element_type is None else as_dtype(preferred_element_type)
    return apply("conv_general_dilated", [lhs, rhs], window_strides=strides, padding=pads,
                 lhs_dilation=lhs_dil, rhs_dilation=rhs_dil, dimension_numbers=dn,
                 feature_group_count=operator.index(feature_group_count),
                 batch_group_count=operator.index(batch_group_count),
                 precision=normalize_precision(precision, "conv_general_dilated"),
                 preferred_element_type=pe)


def _shape_of(x):
    shape = getattr(x, "shape", None)
    if shape is None:
        raise TypeError(f"{_OP}: operands must be arrays, got {type(x).__name__}")
    return tuple(shape)


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """Conv (seed 004): conv_general_dilated with ('NCHW', 'OIHW', 'NCHW') dims, no
    dilation and ``padding`` 'SAME' / 'VALID' or pairs."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    """ConvWithGeneralPadding (seed 004) in ('NCHW', 'OIHW', 'NCHW') dims."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation,
                                rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k, s, padding):
    """jax's padding of a transposed convolution of dilated window size k and stride s:
    'SAME' gives an output of in * s, 'VALID' of in * s + max(k - s, 0)."""
    if padding == "SAME":
        total = k + s - 2
        lo = k - 1 if s > k - 1 else -(-total // 2)
    elif padding == "VALID":
        total = k + s - 2 + max(k - s, 0)
        lo = k - 1
    else:
        raise ValueError(f"lax.conv_transpose: padding must be 'SAME', 'VALID' or (lo, hi) "
                         f"pairs, got {padding!r}")
    return lo, total - lo


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel=False, precision=None, preferred_element_type=None):
    """jax.lax.conv_transpose: the gradient-style convolution that upsamples by
    ``strides`` (lhs dilation; the dilated input is never built). Default dims: ('NC',
    'IO', 'NC'), ('NHC', 'HIO', 'NHC'), ('NHWC', 'HWIO', 'NHWC') or ('NHWDC', 'HWDIO',
    'NHWDC') by rank; ``transpose_kernel`` flips the spatial dims of rhs and swaps its
    feature dims, as for the gradient of a forward convolution."""
    lhs_shape, rhs_shape = _shape_of(lhs), _shape_of(rhs)
    rank = len(lhs_shape)
    if dimension_numbers is None:
        defaults = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                    4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}
        if rank not in defaults:
            raise ValueError(f"lax.conv_transpose: no default dimension numbers for rank "
                             f"{rank}; pass dimension_numbers")
        dimension_numbers = defaults[rank]
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    n = rank - 2
    strides = _ints(strides, "strides", n)
    rhs_dil = _ints(rhs_dilation, "rhs_dilation", n)
    if isinstance(padding, str):
        window = [_dilated(rhs_shape[d], r) for d, r in zip(dn.rhs_spec[2:], rhs_dil)]
        padding = tuple(_conv_transpose_padding(k, s, padding.upper())
                        for k, s in zip(window, strides))
    if transpose_kernel:
        rhs = rev(rhs, tuple(dn.rhs_spec[2:]))
        perm = list(range(rank))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = dn.rhs_spec[1], dn.rhs_spec[0]
        rhs = transpose(rhs, tuple(perm))
    return conv_general_dilated(lhs, rhs, (1,) * n, padding, strides, rhs_dil, dn,
                                precision=precision,
                                preferred_element_type=preferred_element_type)
