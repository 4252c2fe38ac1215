"""Contractions (seed 004 Dot and DotGeneral): ``lax.dot_general`` and ``lax.dot``, one
registry row ``dot_general`` (HLO opcode ``dot``) whose eager impl and executable step run
the GEMM engine (csrc/kernels/gemm/, binding xarr/_bindings/gemm.pyx). The NumPy
contractions (matmul, einsum, tensordot ...) are built on it in xarr/_numpy/contraction.py.

dot_general(lhs, rhs, ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))):
  result dims = batch dims (in lhs_batch order), then lhs's free dims, then rhs's free dims,
  each in increasing order. Worked examples (seed 004):
  * lhs [[1,2,3],[4,5,6]] x rhs [[1,1,1],[2,2,2]], contracting ((1,), (1,))
    -> [[6, 12], [15, 30]];
  * f32[2,2,2] x f32[2,2,2], contracting ((2,), (1,)), batch ((0,), (0,)): two
    independent 2x2 products; lhs [[[1,2],[3,4]], [[5,6],[7,8]]] times a batch of two
    identity matrices gives lhs back;
  * no contracting dims: an outer product, f32[2] x f32[3] -> f32[2,3].

Element types: operands of different types are promoted (as jax does; NumPy's rules);
``preferred_element_type`` names the result type. The product is computed in f32 for f16 /
bf16 / f32 results, f64, c64, c128, and s32 / s64 for integers (then converted: an s8
result wraps modulo 2**8, as XLA's s8 dot does; a pred result is "any term true").
``precision`` is accepted as jax takes it (None, a Precision, its name, or a pair) and
printed in HLO text; on the CPU every precision computes in full precision of the
computation type, as XLA's CPU backend does.
"""

import enum
import operator

import numpy as np

from xarr import _tensor
from xarr._bindings.gemm import gemm_computes, gemm_into
from xarr._dtypes import CODE_OF, DTYPES, KINDS, as_dtype
from xarr._graph.ir import TensorType
from xarr._ops.elementwise import promote
from xarr._ops.structural import apply, defop


class Precision(enum.Enum):
    """jax.lax.Precision: the requested precision of each operand of a dot."""
    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    def __str__(self):
        return self.name.lower()


_PRECISION_NAMES = {"default": Precision.DEFAULT, "high": Precision.HIGH,
                    "highest": Precision.HIGHEST, "bfloat16": Precision.DEFAULT,
                    "tensorfloat32": Precision.HIGH, "float32": Precision.HIGHEST,
                    "fastest": Precision.DEFAULT}


def _one_precision(p, op):
    if p is None:
        return Precision.DEFAULT
    if isinstance(p, Precision):
        return p
    if isinstance(p, str) and p.lower() in _PRECISION_NAMES:
        return _PRECISION_NAMES[p.lower()]
    raise ValueError(f"lax.{op}: precision must be None, a lax.Precision or one of "
                     f"{sorted(_PRECISION_NAMES)}, got {p!r}")


def normalize_precision(precision, op="dot_general"):
    """(lhs, rhs) Precisions of jax's ``precision`` argument (None, one, or a pair)."""
    if isinstance(precision, (tuple, list)):
        if len(precision) != 2:
            raise ValueError(f"lax.{op}: precision must be one value or a pair, got "
                             f"{precision!r}")
        return (_one_precision(precision[0], op), _one_precision(precision[1], op))
    p = _one_precision(precision, op)
    return (p, p)


def _dims(values, what):
    try:
        return tuple(operator.index(v) for v in values)
    except TypeError:
        raise TypeError(f"lax.dot_general: {what} must be a sequence of integers, got "
                        f"{values!r}") from None


def normalize_dimension_numbers(dimension_numbers):
    """((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch)) as tuples of ints."""
    try:
        (lc, rc), (lb, rb) = dimension_numbers
    except (TypeError, ValueError):
        raise TypeError("lax.dot_general: dimension_numbers must be ((lhs_contracting, "
                        "rhs_contracting), (lhs_batch, rhs_batch)), got "
                        f"{dimension_numbers!r}") from None
    return ((_dims(lc, "lhs_contracting"), _dims(rc, "rhs_contracting")),
            (_dims(lb, "lhs_batch"), _dims(rb, "rhs_batch")))


def free_dims(rank, batch, contracting):
    """The dims of an operand that are neither batch nor contracting, in order."""
    return tuple(d for d in range(rank) if d not in batch and d not in contracting)


def _check_side(side, rank, batch, contracting):
    for name, dims in (("batch", batch), ("contracting", contracting)):
        for d in dims:
            if not 0 <= d < rank:
                raise ValueError(f"lax.dot_general: {side}_{name} dimension {d} is out of "
                                 f"range for a {side} of rank {rank} (dimension numbers "
                                 f"must be in 0..{rank - 1})")
        if len(set(dims)) != len(dims):
            raise ValueError(f"lax.dot_general: {side}_{name} dimensions {dims} repeat a "
                             f"dimension")
    both = set(batch) & set(contracting)
    if both:
        raise ValueError(f"lax.dot_general: {side}_batch {batch} and {side}_contracting "
                         f"{contracting} share dimension(s) {sorted(both)}")


def result_code(lhs_code, rhs_code, preferred_element_type):
    """The dtype code of a dot's result."""
    if preferred_element_type is not None:
        return CODE_OF[as_dtype(preferred_element_type)]
    return CODE_OF[promote([_DT(DTYPES[lhs_code]), _DT(DTYPES[rhs_code])])]


class _DT:
    """A stand-in with a ``dtype`` for promote()."""
    __slots__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = dtype


_RULE_CACHE = {}   # (operand codes and dims, attrs) -> TensorType: the rule is pure
_RULE_CACHE_SIZE = 4096


def _dot_general_rule(types, dimension_numbers, precision=None, preferred_element_type=None):
    lhs, rhs = types
    key = (lhs.code, lhs.dims, rhs.code, rhs.dims, dimension_numbers, precision,
           preferred_element_type)
    hit = _RULE_CACHE.get(key)
    if hit is None:
        hit = _dot_general_type(lhs, rhs, dimension_numbers, preferred_element_type)
        if len(_RULE_CACHE) >= _RULE_CACHE_SIZE:
            _RULE_CACHE.clear()
        _RULE_CACHE[key] = hit
    return hit


def _dot_general_type(lhs, rhs, dimension_numbers, preferred_element_type):
    (lc, rc), (lb, rb) = dimension_numbers
    if len(lb) != len(rb):
        raise ValueError(f"lax.dot_general: lhs_batch {lb} and rhs_batch {rb} must have "
                         f"the same length")
    if len(lc) != len(rc):
        raise ValueError(f"lax.dot_general: lhs_contracting {lc} and rhs_contracting {rc} "
                         f"must have the same length")
    _check_side("lhs", len(lhs.dims), lb, lc)
    _check_side("rhs", len(rhs.dims), rb, rc)
    for what, ld, rd in (("batch", lb, rb), ("contracting", lc, rc)):
        ls = tuple(lhs.dims[d] for d in ld)
        rs = tuple(rhs.dims[d] for d in rd)
        if ls != rs:
            raise ValueError(f"lax.dot_general: {what} dimensions must have the same sizes, "
                             f"got lhs {what} {ld} of sizes {ls} and rhs {what} {rd} of "
                             f"sizes {rs} (shapes {lhs.dims} and {rhs.dims})")
    code = result_code(lhs.code, rhs.code, preferred_element_type)
    dims = (tuple(lhs.dims[d] for d in lb)
            + tuple(lhs.dims[d] for d in free_dims(len(lhs.dims), lb, lc))
            + tuple(rhs.dims[d] for d in free_dims(len(rhs.dims), rb, rc)))
    return TensorType(code, dims, None)


_F32, _F64, _C64, _C128 = (CODE_OF[np.dtype(n)] for n in
                           ("float32", "float64", "complex64", "complex128"))
_S32, _S64 = CODE_OF[np.dtype("int32")], CODE_OF[np.dtype("int64")]


def computation_code(result, lhs, rhs):
    """The dtype code the GEMM engine computes a dot of ``lhs`` x ``rhs`` into ``result``
    in (module docstring): the narrowest of f32, f64, c64, c128, s32, s64 that holds the
    result and the operands' kind."""
    codes = (result, lhs, rhs)
    kinds = {KINDS[c] for c in codes}
    wide = any(DTYPES[c].itemsize == 8 and KINDS[c] in "iuf" or DTYPES[c].itemsize == 16
               for c in codes)
    if "c" in kinds:
        return _C128 if wide or _F64 in codes else _C64
    if "f" in kinds:
        return _F64 if wide else _F32
    return _S64 if wide else _S32


def gemm_operands(code, *xs):
    """The operands as the GEMM engine reads them for a product computed in dtype code
    ``code``: converted first where the engine does not convert while packing."""
    return [x if gemm_computes(code, CODE_OF[x.dtype]) else x.astype(DTYPES[code])
            for x in xs]


def as_result(out, code, result):
    """A product computed in dtype code ``code`` as the result dtype code ``result`` (pred:
    any term true)."""
    if code == result:
        return out
    if KINDS[result] == "b":
        return out != 0
    return out.astype(DTYPES[result])


def _dot_general_impl(lhs, rhs, dimension_numbers, precision=None,
                      preferred_element_type=None):
    (lc, rc), (lb, rb) = dimension_numbers
    rtype = _dot_general_rule([TensorType(CODE_OF[lhs.dtype], tuple(lhs.shape), None),
                               TensorType(CODE_OF[rhs.dtype], tuple(rhs.shape), None)],
                              dimension_numbers, precision, preferred_element_type)
    code = computation_code(rtype.code, CODE_OF[lhs.dtype], CODE_OF[rhs.dtype])
    a, b = gemm_operands(code, lhs, rhs)
    out = _tensor.empty(rtype.dims, code)
    gemm_into(out, a, b, lb, rb, lc, rc)
    return as_result(out, code, rtype.code)


def _dot_general_text(attrs):
    (lc, rc), (lb, rb) = attrs["dimension_numbers"]

    def braces(name, dims):
        return f"{name}={{{','.join(map(str, dims))}}}"

    parts = []
    if lb or rb:
        parts.append(braces("lhs_batch_dims", lb))
    parts.append(braces("lhs_contracting_dims", lc))
    if lb or rb:
        parts.append(braces("rhs_batch_dims", rb))
    parts.append(braces("rhs_contracting_dims", rc))
    precision = attrs.get("precision")
    if precision and any(p is not Precision.DEFAULT for p in precision):
        parts.append(f"operand_precision={{{','.join(str(p) for p in precision)}}}")
    return parts


defop("dot_general", _dot_general_rule, _dot_general_impl, text=_dot_general_text, hlo="dot")


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None):
    """DotGeneral (seed 004): sums products over the contracting dims, batched over the
    batch dims; the result's dims are batch, then lhs free, then rhs free (module
    docstring). ``precision`` and ``preferred_element_type`` as in jax.lax."""
    dn = normalize_dimension_numbers(dimension_numbers)
    pe = None if preferred_element_type is None else as_dtype(preferred_element_type)
    return apply("dot_general", [lhs, rhs], dimension_numbers=dn,
                 precision=normalize_precision(precision), preferred_element_type=pe)


def dot(lhs, rhs, precision=None, preferred_element_type=None):
    """Dot (seed 004): vector . vector -> scalar, matrix . vector -> vector, matrix . matrix
    -> matrix; contracts lhs's last dim with rhs's first."""
    lr = _rank(lhs)
    rr = _rank(rhs)
    if lr not in (1, 2) or rr not in (1, 2):
        raise ValueError(f"lax.dot: operands must have rank 1 or 2, got ranks {lr} and {rr} "
                         f"(use lax.dot_general for other ranks)")
    return dot_general(lhs, rhs, (((lr - 1,), (0,)), ((), ())), precision=precision,
                       preferred_element_type=preferred_element_type)


def _rank(x):
    shape = getattr(x, "shape", None)
    return len(shape) if shape is not None else np.ndim(x)


# ------------------------------------------------------------------------ diagonal
# An xarr op (XLA spells a diagonal as a gather; a strided view costs nothing): the
# elements x[..., i, ..., i + offset, ...] of dims axis1 < axis2, which leave the shape and
# come back as the last dim. Worked example: diagonal(f32[2,3,3], 0, 1, 2) is f32[2,3]
# with result[b, i] = x[b, i, i]; offset 1 gives f32[2,2], x[b, i, i + 1].
def _diagonal_length(n1, n2, offset):
    return max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))


def _diagonal_rule(types, offset, axis1, axis2):
    (t,) = types
    n = len(t.dims)
    if not (0 <= axis1 < n and 0 <= axis2 < n) or axis1 == axis2:
        raise ValueError(f"diagonal: axis1 {axis1} and axis2 {axis2} must be two different "
                         f"dims of a rank-{n} operand (shape {t.dims})")
    rest = tuple(s for d, s in enumerate(t.dims) if d not in (axis1, axis2))
    return TensorType(t.code, rest + (_diagonal_length(t.dims[axis1], t.dims[axis2],
                                                       offset),), None)


def _diagonal_impl(x, offset, axis1, axis2):
    shape = tuple(x.shape)
    strides = x.strides
    length = _diagonal_length(shape[axis1], shape[axis2], offset)
    start = (offset * strides[axis2] if offset >= 0 else -offset * strides[axis1]) \
        if length else 0
    keep = [d for d in range(len(shape)) if d not in (axis1, axis2)]
    return _tensor.as_strided_view(
        x, tuple(shape[d] for d in keep) + (length,),
        tuple(strides[d] for d in keep) + (strides[axis1] + strides[axis2],), start,
        readonly=not x.flags["WRITEABLE"])


defop("diagonal", _diagonal_rule, _diagonal_impl, view=True,
      text=lambda a: [f"offset={a['offset']}", f"dimensions={{{a['axis1']},{a['axis2']}}}"])


def diagonal(operand, offset=0, axis1=0, axis2=1):
    """The diagonal of dims ``axis1`` and ``axis2`` as the last dim (a view)."""
    rank = _rank(operand)
    a1, a2 = (operator.index(a) for a in (axis1, axis2))
    a1n, a2n = a1 + rank if a1 < 0 else a1, a2 + rank if a2 < 0 else a2
    if not (0 <= a1n < rank and 0 <= a2n < rank):
        raise ValueError(f"diagonal: axis1 {a1} / axis2 {a2} out of range for rank {rank}")
    return apply("diagonal", [operand], offset=operator.index(offset), axis1=a1n, axis2=a2n)
