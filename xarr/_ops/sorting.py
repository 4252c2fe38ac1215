"""The sort family (csrc/kernels/sort/): ``sort`` (seed 004 Sort: N operands sorted along
one dimension by the first ``num_keys`` of them, lexicographically), ``argsort`` (the
permutation alone), ``top_k``; ``searchsorted``, the binary search, and ``interp``,
NumPy's piecewise-linear interpolation on it.

Each is one graph op (structural: its impl is the kernel), so it runs eagerly, under
xa.jit and in xa.lazy alike. The order is xarr's default comparator (SPEC.md): ascending
as NumPy, every NaN last, -0.0 == +0.0 (``descending``: the reverse, NaNs first); complex
keys lexicographic on (real, imaginary) with NumPy's NaN classes last (R + Rj, R + nanj,
nan + Rj, nan + nanj). The kernel sorts one real key per call (stable with positions, or
values alone); several keys, complex keys and moved operands are composed here: LSD
order, each key a stable sort of the rows read through the permutation so far, then the
operands taken along it (indexing's take_rows).

    >>> sort(xa.asarray([3., nan, -1.]))                          # [-1, 3, nan]
    >>> sort((xa.asarray([2, 1, 2]), xa.asarray([0, 1, 2])), num_keys=1)
    ... # ([1, 2, 2], [1, 0, 2])
    >>> argsort(xa.asarray([2, 1, 2]))                           # [1, 0, 2]

    >>> searchsorted(xa.asarray([1, 2, 2, 3]), xa.asarray([2, 0, 9]))            # [1, 0, 4]
    >>> searchsorted(xa.asarray([1, 2, 2, 3]), xa.asarray([2, 0, 9]), "right")   # [3, 0, 4]
"""

import operator

import numpy as np

from xarr import _tensor
from xarr._axes import normalize_axis
from xarr._bindings import indexing as _indexing
from xarr._bindings import sort as _sort
from xarr._dispatch import register
from xarr._dtypes import CODE_OF, DTYPES, KINDS, XLA_NAMES
from xarr._graph import trace as _trace
from xarr._graph.ir import Instruction, Module, TensorType
from xarr._ops.elementwise import lax_apply, promote
from xarr._ops import indexing as _indexing_ops
from xarr._ops import structural as S
from xarr._ops.conversion import asarray
from xarr._ops.indexing import take_along
from xarr._ops.reduction import _vectorized, elementwise_emit
from xarr._graph.trace import Traced, TracedComputation, recorder, trace_sub
from xarr._ops.structural import apply, as_operand, defop, on_strided, record_tuple
from xarr._registry import Op, register as register_op
from xarr._tensor import Tensor

_S64 = CODE_OF[np.dtype(np.int64)]
_F64 = CODE_OF[np.dtype(np.float64)]
_C128 = CODE_OF[np.dtype(np.complex128)]
_U8 = CODE_OF[np.dtype(np.uint8)]
_PRED = CODE_OF[np.dtype(np.bool_)]


# ------------------------------------------------------------------------ sort, argsort
def _sort_keys(x):
    """The real keys whose lexicographic order is x's, most significant first: x itself,
    or for complex x (NaN class, real, imaginary) with class 2 isnan(re) + isnan(im)."""
    if KINDS[CODE_OF[x.dtype]] != "c":
        return [x]
    re, im = lax_apply("real", x), lax_apply("imag", x)
    nan_re = lax_apply("ne", re, re).astype(np.uint8)
    nan_im = lax_apply("ne", im, im).astype(np.uint8)
    cls = lax_apply("add", lax_apply("add", nan_re, nan_re), nan_im)
    return [cls, re, im]


def _permutation(keys, dimension, descending):
    """int64 tensor: the stable sort permutation of the rows along ``dimension`` of the
    key tensors, lexicographic (keys[0] most significant)."""
    parts = [k for x in keys for k in _sort_keys(x)]
    perm = None
    for k in reversed(parts):
        perm = _sort.sort_rows(k, dimension, perm, False, True, True, descending)[1]
    return perm


def _sort_impl(*operands, dimension, is_stable, num_keys, descending, comparator=None):
    if comparator is not None:
        keyed = _keys_of(comparator)
        if keyed is None:
            return _sort_by_comparator(operands, dimension, comparator)
        key_nodes, descending = keyed   # the keys computed once; the kernels sort them
        perm = _permutation([_key_values(comparator, k, operands) for k in key_nodes],
                            dimension, descending)
        outs = tuple(_indexing.take_rows(v, perm, dimension) for v in operands)
        return outs[0] if len(outs) == 1 else outs
    x = operands[0]
    if len(operands) == 1 and num_keys == 1 and KINDS[CODE_OF[x.dtype]] != "c":
        return _sort.sort_rows(x, dimension, None, True, False, is_stable, descending)[0]
    perm = _permutation(operands[:num_keys], dimension, descending)
    outs = tuple(_indexing.take_rows(v, perm, dimension) for v in operands)
    return outs[0] if len(outs) == 1 else outs


class _Shapes:
    """Structural equality of a comparator's instructions: ``mirrors(x, y)`` when y is x
    with each lhs parameter (2k) replaced by its rhs partner (2k + 1), ``same(x, y)``
    when they compute the same thing (memoized: comparators are small trees)."""

    def __init__(self):
        self.seen = {}

    def mirrors(self, x, y):
        return self._equal(x, y, 1)

    def same(self, x, y):
        return x is y or self._equal(x, y, 0)

    def _equal(self, x, y, shift):
        key = (id(x), id(y), shift)
        if key not in self.seen:
            if x.op == "parameter":
                n = x.attrs["number"]
                eq = y.op == "parameter" and y.attrs["number"] == n + shift and \
                    (shift == 0 or n % 2 == 0)
            elif x.op == "constant":
                eq = y.op == "constant" and x.type == y.type and \
                    np.array_equal(np.asarray(x.attrs["value"]), np.asarray(y.attrs["value"]))
            else:
                eq = (x.op == y.op and x.type == y.type and not x.calls and not y.calls
                      and len(x.operands) == len(y.operands) and
                      x.attrs.keys() == y.attrs.keys() and
                      all(np.array_equal(np.asarray(x.attrs[k]), np.asarray(y.attrs[k]))
                          for k in x.attrs) and
                      all(self._equal(a, b, shift) for a, b in zip(x.operands, y.operands)))
            self.seen[key] = eq
        return self.seen[key]


def _keys_of(comp):
    """([key instructions, most significant first], descending) when comparator ``comp``
    (a traced computation of lhs_0, rhs_0, lhs_1, rhs_1, ...) is the lexicographic order
    of keys k_1, k_2, ... (each a scalar function of the lhs values, compared with its
    mirror on the rhs values), every one by lt, or every one by gt; else None.
    Recognized: lt / gt(k(lhs), k(rhs)); select(eq(k(lhs), k(rhs)), REST, lt(k(lhs),
    k(rhs))) and select(ne(...), lt(...), REST); or(lt(...), and(eq(...), REST)) in
    either operand order; REST again such a comparator. Such a comparator is the
    order of the keys k(operands) (ties by position in the stable sort), which the kernels
    sort. Examples: lambda l, r: lax.gt(l * l, r * r) gives ([l * l], True);
    lambda l0, r0, l1, r1: select(l0 == r0, l1 < r1, l0 < r0) gives ([l0, l1], False)."""
    shapes = _Shapes()

    def compare(node):   # lt / gt of a mirrored pair: (lhs key, op) or None
        if node.op in ("lt", "gt") and len(node.operands) == 2 and \
                shapes.mirrors(*node.operands):
            return node.operands[0], node.op
        return None

    def pair_test(node, op):   # eq / ne of a mirrored pair: its lhs key, or None
        if node.op == op and len(node.operands) == 2 and shapes.mirrors(*node.operands):
            return node.operands[0]
        return None

    def chain(node):   # [(key, op), ...] or None
        last = compare(node)
        if last is not None:
            return [last]
        if node.op == "select":
            test, if_true, if_false = node.operands
            for op, first, rest in (("eq", if_false, if_true), ("ne", if_true, if_false)):
                key = pair_test(test, op)
                head = compare(first)
                if key is not None and head is not None and shapes.same(key, head[0]):
                    tail = chain(rest)
                    return None if tail is None else [head] + tail
        if node.op == "or":
            for lt_side, and_side in (node.operands, node.operands[::-1]):
                head = compare(lt_side)
                if head is None or and_side.op != "and":
                    continue
                for test, rest in (and_side.operands, and_side.operands[::-1]):
                    key = pair_test(test, "eq")
                    if key is not None and shapes.same(key, head[0]):
                        tail = chain(rest)
                        return None if tail is None else [head] + tail
        return None

    keys = chain(comp.root)
    if keys is None or len({op for _, op in keys}) != 1:
        return None
    return [k for k, _ in keys], keys[0][1] == "gt"


def _key_values(comp, node, operands):
    """The keys k(operands) of _keys_of: the instructions ``node`` depends on, evaluated
    elementwise over whole operands (the lhs parameters are the operands)."""
    need, stack = set(), [node]
    while stack:
        i = stack.pop()
        if id(i) not in need:
            need.add(id(i))
            stack.extend(i.operands)
    env = {id(p): operands[k // 2] for k, p in enumerate(comp.parameters)}
    for i in comp.instructions:
        if id(i) in need and i.op != "parameter":
            env[id(i)] = elementwise_emit(i, [env[id(o)] for o in i.operands])
    key = env[id(node)]
    if not isinstance(key, Tensor):   # (a key of constants alone: every pair ties)
        key = asarray(np.asarray(key, DTYPES[node.code]))
    if tuple(key.shape) != tuple(operands[0].shape):
        key = S.broadcast_in_dim(key, tuple(operands[0].shape), ())
    return key


# Rows at least this long run each stage as one xa.jit function (its elementwise work
# fused): 1M f32 + f32 under a mixed-direction comparator 2.3 -> 0.9 s, 16K 32 -> 14 ms.
_FUSED_STAGES_FROM = 1024


def _sort_by_comparator(operands, dimension, comp):
    """Any comparator (a traced scalar computation of the 2N values lhs_0, rhs_0, ...,
    true when lhs goes first): a bitonic network over the axis padded to a power of two,
    each stage evaluating the comparator on whole arrays (reduction._vectorized) and
    keeping, per position, its own values or its partner's. Ties (neither goes first) go
    by position, and padding after everything, so the order is total and the result is
    the stable sort. log2(n)(log2(n) + 1) / 2 stages, each one function (xa.jit, its
    elementwise work fused, for rows of _FUSED_STAGES_FROM or more): the general
    fallback, not fast."""
    n = operands[0].shape[dimension]
    if n <= 1:
        return _copies(operands)
    moved = [_move(x, dimension, x.ndim - 1) for x in operands]
    size = 1
    while size < n:
        size *= 2
    pad = size - n
    rows = [_pad_last(x, pad) for x in moved]
    shape = tuple(rows[0].shape)
    pos = S.broadcast_in_dim(asarray(np.arange(size, dtype=np.int64)), shape,
                             (len(shape) - 1,))
    last = len(shape) - 1
    lane = asarray(np.arange(size, dtype=np.int64))
    zero = asarray(np.zeros((), np.int64))

    def stage(rows, pos, lane, j, k):   # j, k: 0-d int64 (one trace serves every stage)
        partner = lax_apply("xor", lane, j)
        other = [_indexing_ops.take(v, partner, axis=last) for v in rows]
        other_pos = _indexing_ops.take(pos, partner, axis=last)
        first = _before(comp, rows, other, pos, other_pos, n)
        # keep own values where (own goes first) == (own place is the first of the pair
        # in this block's direction: lane & j == 0, flipped where lane & k != 0)
        place_first = lax_apply("eq", lax_apply("eq", lax_apply("and", lane, j), zero),
                                lax_apply("eq", lax_apply("and", lane, k), zero))
        keep = lax_apply("eq", first, S.broadcast_in_dim(place_first, shape, (last,)))
        return ([lax_apply("select", keep, a, b) for a, b in zip(rows, other)],
                lax_apply("select", keep, pos, other_pos))

    if _trace.tracing() is None and size >= _FUSED_STAGES_FROM:
        from xarr._graph.jit import jit   # (jit imports the ops: a cycle at import time)
        stage = jit(stage)     # a stage's elementwise work fused (the takes apart)
    k = 2
    while k <= size:
        j = k // 2
        while j >= 1:
            rows, pos = stage(rows, pos, lane, asarray(np.int64(j)), asarray(np.int64(k)))
            rows = list(rows)
            j //= 2
        k *= 2
    outs = [_move(_first_along_last(v, n), v.ndim - 1, dimension) for v in rows]
    return outs[0] if len(outs) == 1 else tuple(outs)


def _before(comp, a, b, pos_a, pos_b, n):
    """Whether a goes before b: the comparator, ties by position, padding last."""
    ab = _vectorized(comp, [v for pair in zip(a, b) for v in pair])[0]
    ba = _vectorized(comp, [v for pair in zip(b, a) for v in pair])[0]
    # a goes first when only ab holds; when both or neither do (a tie, or a non-strict
    # comparator such as <=), by position: exactly one of a pair goes first
    tie = lax_apply("eq", ab, ba)
    by_pos = lax_apply("lt", pos_a, pos_b)
    real_a, real_b = lax_apply("lt", pos_a, n), lax_apply("lt", pos_b, n)
    first = lax_apply("or", lax_apply("and", ab, lax_apply("not", ba)),
                      lax_apply("and", tie, by_pos))
    # padding (positions >= n) after every element
    return lax_apply("select", real_a, lax_apply("or", first, lax_apply("not", real_b)),
                     lax_apply("and", lax_apply("not", real_b), by_pos))


def _move(x, src, dst):
    order = [d for d in range(x.ndim) if d != src]
    order.insert(dst, src)
    return S.transpose(x, tuple(order))


def _first_along_last(x, m):
    return S.slice(x, (0,) * x.ndim, tuple(x.shape[:-1]) + (m,))


def _pad_last(x, pad):
    if pad == 0:
        return x
    edge = _first_along_last(x, 1)
    fill = S.broadcast_in_dim(edge.reshape(tuple(x.shape[:-1])), tuple(x.shape[:-1]) + (pad,),
                              tuple(range(x.ndim - 1)))
    return S.concatenate([x, fill], x.ndim - 1)


def _copies(operands):
    outs = tuple(x.copy() for x in operands)
    return outs[0] if len(outs) == 1 else outs


def _sort_rule(types, dimension, is_stable, num_keys, descending, comparator=None):
    dims = types[0].dims
    for k, t in enumerate(types):
        if t.dims != dims:
            raise ValueError(f"lax.sort: every operand must have one shape; operand 0 has "
                             f"{dims}, operand {k} {t.dims}")
    if not 0 <= dimension < len(dims):
        raise ValueError(f"lax.sort: dimension {dimension} is out of range for rank "
                         f"{len(dims)}")
    if not 1 <= num_keys <= len(types):
        raise ValueError(f"lax.sort: num_keys must be in [1, {len(types)}] (the operand "
                         f"count), got {num_keys}")
    outs = tuple(TensorType(t.code, dims, None) for t in types)
    return outs[0] if len(outs) == 1 else outs


def _sort_text(instr):
    a = instr.attrs
    order = "gt" if a["descending"] else "lt"
    keys = f".keys{a['num_keys']}" if a["num_keys"] > 1 else ""
    apply = instr.calls[0].name if instr.calls else f"%compare-{order}{keys}"
    return [f"dimensions={{{a['dimension']}}}",
            f"is_stable={'true' if a['is_stable'] else 'false'}", f"to_apply={apply}"]


register_op(Op("sort", "structural", rule=_sort_rule, impl=on_strided(_sort_impl),
               text=_sort_text))


def _type(x):
    if type(x) is Traced:
        return x.instr.type
    return TensorType(CODE_OF[x.dtype], tuple(x.shape), None)


def _comparator_of(fn, codes):
    """(descending or None, traced computation or None) of a comparator fn(lhs_0, rhs_0,
    lhs_1, rhs_1, ...) -> pred (the seed's argument order): lt / gt of operand 0's pair
    is xarr's default order ascending / descending (the kernels); anything else runs as
    the traced computation."""
    parent = _trace.tracing()
    if parent is None:
        parent = TracedComputation("main", Module("sort"))
    types = [TensorType(c, (), None) for c in codes for _ in (0, 1)]
    sub, _, out_types = trace_sub(parent, fn, types, "compare", "lax.sort")
    if len(out_types) != 1 or out_types[0].code != _PRED or out_types[0].dims:
        raise TypeError(f"lax.sort: the comparator must return one pred scalar, got "
                        f"{', '.join(XLA_NAMES[t.code] + str(list(t.dims)) for t in out_types)}")
    root, params = sub.root, sub.parameters
    if root.op in ("lt", "gt") and len(root.operands) == 2 and \
            root.operands[0] is params[0] and root.operands[1] is params[1]:
        return root.op == "gt", None
    return None, sub


def sort(operand, dimension=-1, is_stable=True, num_keys=1, *, descending=False,
         comparator=None):
    """Sort (seed 004) with xarr's default comparator, as jax.lax.sort: ``operand`` a
    tensor or a sequence of N tensors of one shape, sorted along ``dimension`` by the
    first ``num_keys`` operands (lexicographically; the others move with them). Ascending,
    NaNs last, -0.0 == +0.0 (``descending=True``: the reverse order). ``is_stable``: equal
    keys keep their order. ``comparator`` (the seed's): fn(lhs_0, rhs_0, lhs_1, rhs_1,
    ...) -> pred, true when lhs goes first; lt / gt of operand 0 run on the kernels, and
    so does a lexicographic order of key functions of each side (_keys_of: the keys computed
    once);
    any other is traced and runs as a stable comparison network (slow, general).
    Returns a tensor, or a tuple for a sequence."""
    single = not isinstance(operand, (tuple, list))
    ops = [as_operand(x) for x in ([operand] if single else operand)]
    if not ops:
        raise ValueError("lax.sort: needs at least one operand")
    num_keys = operator.index(num_keys)
    dimension = normalize_axis(operator.index(dimension), ops[0].ndim, "sort", "lax")
    comp = None
    if comparator is not None:
        known, comp = _comparator_of(comparator, [CODE_OF[x.dtype] for x in ops])
        if known is not None:
            descending, num_keys = known, 1
    attrs = {"dimension": dimension, "is_stable": bool(is_stable), "num_keys": num_keys,
             "descending": bool(descending), "comparator": comp}
    rtype = _sort_rule([_type(x) for x in ops], **attrs)
    out = record_tuple("sort", ops, rtype, attrs, [comp] if comp is not None else [])
    if out is None:
        out = _sort_impl(*[_tensor.strided(x) for x in ops], **attrs)
    if single:
        return out
    return out if isinstance(out, tuple) else (out,)


def sort_key_val(keys, values, dimension=-1, is_stable=True):
    """jax.lax.sort_key_val: (keys sorted along ``dimension``, values moved with them)."""
    return sort((keys, values), dimension, is_stable, num_keys=1)


def _argsort_impl(x, dimension, is_stable, descending):
    if KINDS[CODE_OF[x.dtype]] != "c":
        return _sort.sort_rows(x, dimension, None, False, True, True, descending)[1]
    return _permutation([x], dimension, descending)


def _argsort_rule(types, dimension, is_stable, descending):
    (t,) = types
    if not 0 <= dimension < len(t.dims):
        raise ValueError(f"argsort: dimension {dimension} is out of range for rank "
                         f"{len(t.dims)}")
    return TensorType(_S64, t.dims, None)


def _argsort_text(attrs):
    return [f"dimensions={{{attrs['dimension']}}}",
            f"is_stable={'true' if attrs['is_stable'] else 'false'}",
            f"to_apply=%compare-{'gt' if attrs['descending'] else 'lt'}"]


defop("argsort", _argsort_rule, _argsort_impl, text=_argsort_text)


def argsort(operand, dimension=-1, is_stable=True, descending=False):
    """int64 indices that sort ``operand`` along ``dimension`` (the permutation of lax.sort
    with an iota operand; always stable: equal keys in index order)."""
    x = as_operand(operand)
    dimension = normalize_axis(operator.index(dimension), x.ndim, "argsort", "lax")
    return apply("argsort", [x], dimension=dimension, is_stable=bool(is_stable),
                 descending=bool(descending))


def _partition_rule(types, dimension, kth):
    (t,) = types
    if not 0 <= dimension < len(t.dims):
        raise ValueError(f"partition: dimension {dimension} is out of range for rank "
                         f"{len(t.dims)}")
    n = t.dims[dimension]
    if any(not 0 <= k < n for k in kth) or list(kth) != sorted(set(kth)):
        raise ValueError(f"partition: kth {kth} must be distinct, ascending, in [0, {n})")
    return TensorType(t.code, t.dims, None)


def _partition_impl(x, dimension, kth):
    if KINDS[CODE_OF[x.dtype]] == "c" or len(kth) > 256 or not kth:
        return _sort_impl(x, dimension=dimension, is_stable=False, num_keys=1,
                          descending=False)
    return _sort.partition_rows(x, dimension, list(kth))


defop("partition", _partition_rule, _partition_impl,
      text=lambda attrs: [f"dimensions={{{attrs['dimension']}}}",
                          f"kth={{{','.join(map(str, attrs['kth']))}}}"])


def partition(operand, dimension, kth):
    """NumPy's partition along ``dimension``: for each offset of ``kth`` (ints in [0, n),
    any order, repeats allowed) the element a sort puts there, smaller ones before and
    larger after (NaNs last); a selection on the vector partitions, not a sort."""
    x = as_operand(operand)
    dimension = normalize_axis(operator.index(dimension), x.ndim, "partition", "lax")
    ks = tuple(sorted({operator.index(k) for k in kth}))
    return apply("partition", [x], dimension=dimension, kth=ks)


def top_k(operand, k):
    """jax.lax.top_k: the ``k`` largest entries along the last axis, largest first, and
    their int32 indices (equal values: the lower index first). NaN counts as the largest,
    as jax's."""
    x = as_operand(operand)
    k = operator.index(k)
    if x.ndim == 0:
        raise ValueError("lax.top_k: operand must have at least one dimension")
    n = x.shape[-1]
    if not 0 <= k <= n:
        raise ValueError(f"lax.top_k: k must be in [0, {n}] (the last axis), got {k}")
    idx = argsort(x, x.ndim - 1, True, descending=True)[..., :k]
    return take_along(x, idx, x.ndim - 1), idx.astype(np.int32)


def _searchsorted_rule(types, side):
    a, v = types
    if len(a.dims) != 1:
        raise ValueError(f"searchsorted: the sorted operand must be 1-D, got shape {a.dims}")
    if a.code != v.code:
        raise TypeError(f"searchsorted: sorted is {XLA_NAMES[a.code]}, keys "
                        f"{XLA_NAMES[v.code]}; they must have one dtype")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    return TensorType(_S64, v.dims, None)


def _searchsorted_impl(a, v, side):
    return _sort.searchsorted(a, v, side == "right")


defop("searchsorted", _searchsorted_rule, _searchsorted_impl,
      text=lambda attrs: [f"side={attrs['side']}"])


def searchsorted(a, v, side="left", sorter=None):
    """Indices (int64, of v's shape) where v's elements go into the ascending 1-D ``a`` to
    keep it sorted: before equal elements (side='left') or after them ('right'). NaN sorts
    last, as in NumPy. ``sorter``: indices that sort ``a`` (a is read as a[sorter]). a and
    v are compared in their promoted dtype (NumPy's rule)."""
    if side != "left" and side != "right":
        raise ValueError(f"xa.searchsorted: side must be 'left' or 'right', got {side!r}")
    if type(a) is Tensor and type(v) is Tensor and sorter is None and a.dtype == v.dtype \
            and a.ndim == 1 and recorder((a, v)) is None:
        return _sort.searchsorted(a, v, side == "right")      # eager: the kernel directly
    a = as_operand(a)
    if a.ndim != 1:
        raise ValueError(f"xa.searchsorted: a must be 1-D, got shape {tuple(a.shape)}")
    if sorter is not None:
        sorter = as_operand(sorter)
        if KINDS[CODE_OF[sorter.dtype]] not in "iu":
            raise TypeError(f"xa.searchsorted: sorter must hold integers, got {sorter.dtype}")
        if sorter.shape != a.shape:
            raise ValueError(f"xa.searchsorted: sorter has shape {tuple(sorter.shape)}, a "
                             f"{tuple(a.shape)}; they must match")
        if isinstance(sorter, Tensor) and sorter.size and \
                (int(sorter.min()) < 0 or int(sorter.max()) >= a.shape[0]):
            raise ValueError(f"xa.searchsorted: sorter index out of range [0, {a.shape[0]})")
        a = a[sorter]
    # (NumPy types a Python scalar key as an array would be - float64, int64 - not weakly:
    # searchsorted(float16 [0.1, 0.5], 0.1) compares in float64)
    v = as_operand(np.asarray(v) if isinstance(v, (int, float, bool, complex)) else v)
    dt = promote([a, v])
    a, v = a.astype(dt, copy=False), v.astype(dt, copy=False)
    return apply("searchsorted", [a, v], side=side)


def _interp_rule(types, left, right):
    x, xp, fp = types
    if x.code != _F64 or xp.code != _F64 or fp.code not in (_F64, _C128):
        raise TypeError(f"interp: x and xp must be f64 and fp f64 or c128, got "
                        f"{XLA_NAMES[x.code]}, {XLA_NAMES[xp.code]}, {XLA_NAMES[fp.code]}")
    if len(xp.dims) != 1 or len(fp.dims) != 1:
        raise ValueError(f"interp: xp and fp must be 1-D, got shapes {xp.dims} and {fp.dims}")
    if xp.dims[0] == 0:
        raise ValueError("interp: array of sample points is empty")
    if fp.dims != xp.dims:
        raise ValueError(f"interp: fp and xp are not of the same length ({fp.dims[0]} and "
                         f"{xp.dims[0]})")
    return TensorType(fp.code, x.dims, None)


def _interp_impl(x, xp, fp, left, right):
    return _sort.interp(x, xp, fp, left, right)


def _interp_text(attrs):
    return [f"{k}={attrs[k]}" for k in ("left", "right") if attrs[k] is not None]


defop("interp", _interp_rule, _interp_impl, text=_interp_text)


def interp(x, xp, fp, left=None, right=None):
    """The interp op on float64 x, xp and float64 / complex128 fp (xarr/_numpy/searching.py
    converts NumPy's inputs); left / right are Python numbers or None (fp[0] / fp[-1])."""
    return apply("interp", [x, xp, fp], left=left, right=right)


register(searchsorted=searchsorted)       # t.searchsorted(v) (xarr/_methods.py)
