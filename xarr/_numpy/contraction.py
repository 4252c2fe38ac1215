"""NumPy's contractions (``xa.matmul`` / ``@``, ``dot``, ``vdot``, ``inner``, ``outer``,
``tensordot``, ``kron``, ``vecdot``, ``trace``, ``diagonal``, ``einsum``,
``einsum_path``) and the Array API linalg extension's contraction members, each one or a
few ``lax.dot_general`` calls (xarr/_ops/contraction.py), so they run eagerly, under
``xa.jit`` and in ``xa.lazy`` alike. NumPy's rules: NumPy 2 promotion, batch broadcasting
in matmul, errors naming the function and the shapes.

einsum: each operand first loses its repeated labels (a diagonal view) and the labels no
other operand or the output needs (a sum); then the operands are contracted pairwise, each
pair one dot_general whose batch dims are the labels both share that are still needed and
whose contracting dims are the shared labels that are not. The pair order is searched
(all orders up to 6 operands, else greedy) to minimize multiply-adds, as
``numpy.einsum_path`` / opt_einsum do. Worked example: ``einsum('ij,jk,kl->il', a, b, c)``
with a 1000x10, b 10x1000, c 1000x10 contracts (b, c) first (10*1000*10 multiply-adds,
a 10x10 intermediate), then a with it: 2e5 in all instead of 2e7 for (a, b) first.
"""

import builtins
import itertools
import math
import operator

import numpy as np

from xarr import _tensor
from xarr._bindings.gemm import gemm_into, gemm_type_of
from xarr._dispatch import register
from xarr._graph.trace import recorder
from xarr._dtypes import CODE_OF, KINDS, as_dtype
from xarr._ops import contraction as C
from xarr._ops import structural as S
from xarr._ops.elementwise import broadcast_shapes, promote
from xarr._ops.reduction import reduce as lax_reduce
from xarr._tensor import Tensor
from xarr._numpy.reductions import sum as _np_sum


def _arr(x):
    return S.as_operand(x)


def _common(a, b, name, dtype=None):
    """a, b as tensors of their NumPy result type (or ``dtype``)."""
    a, b = _arr(a), _arr(b)
    dt = as_dtype(dtype) if dtype is not None else promote([a, b])
    return (a if a.dtype == dt else a.astype(dt)), (b if b.dtype == dt else b.astype(dt))


def _dot_general(a, b, lc, rc, lb=(), rb=()):
    return C.dot_general(a, b, ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb))))


def _write_out(result, out, name):
    if out is None:
        return result
    if tuple(out.shape) != tuple(result.shape):
        raise ValueError(f"{name}: out has shape {tuple(out.shape)}, the result "
                         f"{tuple(result.shape)}")
    out[...] = result
    return out


# (Reshapes go through the tensor's own reshape, the NumPy frontend's: a view when the
# strides allow, and recorded as lax.reshape under xa.jit / xa.lazy.)


# ------------------------------------------------------------------------ matmul
# Eager products of two tensors of one dtype the engine computes in (f32, f64, c64, c128,
# s32 / u32, s64 / u64) skip the general path: a plan per (shapes, dtype) says the result
# shape and the dimension numbers, and the call is one allocation and one gemm_into. The
# plans are the general path's answers (tests/test_numpy_contraction.py compares them).
_PLANS = {}
_PLANS_SIZE = 4096


def _matmul_plan(sa, sb, dt):
    """(result shape, dtype code, lhs_batch, rhs_batch, lhs_contracting, rhs_contracting)
    of NumPy's matmul for these shapes, or None when the general path must run."""
    code = CODE_OF[dt]
    if gemm_type_of(code) < 0 or not sa or not sb or sa[-1] != sb[-2 if len(sb) > 1 else 0]:
        return None
    if len(sb) == 1:
        return sa[:-1], code, (), (), (len(sa) - 1,), (0,)
    if len(sb) == 2:
        return sa[:-1] + sb[1:], code, (), (), (len(sa) - 1,), (0,)
    if len(sa) != len(sb) or sa[:-2] != sb[:-2]:
        return None
    nb = len(sa) - 2
    batch = tuple(range(nb))
    return sa[:-1] + sb[-1:], code, batch, batch, (nb + 1,), (nb,)


def _eager_matmul(a, b):
    """a @ b through a cached plan, or None (then the general path runs)."""
    key = (a.shape, b.shape, a.dtype, b.dtype)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _matmul_plan(a.shape, b.shape, a.dtype) if a.dtype == b.dtype else False
        if len(_PLANS) >= _PLANS_SIZE:
            _PLANS.clear()
        _PLANS[key] = plan or False
    if not plan:
        return None
    shape, code, lb, rb, lc, rc = plan
    res = _tensor.empty(shape, code)
    gemm_into(res, a, b, lb, rb, lc, rc)
    return res


def matmul(x1, x2, /, out=None, *, dtype=None):
    """NumPy's matmul: the last two dims are matrices, the others broadcast as batch dims;
    a 1-D operand is a vector (a dim added, then removed)."""
    if out is None and dtype is None and type(x1) is Tensor and type(x2) is Tensor and \
            recorder(()) is None:
        res = _eager_matmul(x1, x2)
        if res is not None:
            return res
    a, b = _common(x1, x2, "matmul", dtype)
    shapes = f"{tuple(a.shape)} @ {tuple(b.shape)}"
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"matmul: operands must not be scalars (shapes {tuple(a.shape)} "
                         f"and {tuple(b.shape)}); use multiply")
    av, bv = a.ndim == 1, b.ndim == 1
    if av:
        a = a.reshape((1,) + tuple(a.shape))
    if bv:
        b = b.reshape(tuple(b.shape) + (1,))
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"matmul: contracted dims differ: {shapes} (sizes {a.shape[-1]} "
                         f"and {b.shape[-2]})")
    if b.ndim == 2:
        # (..., m, k) @ (k, n): a's batch dims are free dims of one big product.
        res = _dot_general(a, b, (a.ndim - 1,), (0,))
    else:
        try:
            batch = broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
        except ValueError:
            raise ValueError(f"matmul: batch dims do not broadcast: {tuple(a.shape)} @ "
                             f"{tuple(b.shape)}") from None
        nb = len(batch)
        a = _broadcast_batch(a, batch)
        b = _broadcast_batch(b, batch)
        res = _dot_general(a, b, (nb + 1,), (nb,), tuple(range(nb)), tuple(range(nb)))
    if av:
        res = res.reshape(tuple(res.shape[:-2]) + tuple(res.shape[-1:]))
    if bv:
        res = res.reshape(tuple(res.shape[:-1]))
    return _write_out(res, out, "matmul")


def _broadcast_batch(x, batch):
    shape = tuple(batch) + tuple(x.shape[-2:])
    if tuple(x.shape) == shape:
        return x
    nd = len(shape)
    return S.broadcast_in_dim(x, shape, tuple(range(nd - x.ndim, nd)))


# ------------------------------------------------------------------------ dot family
def dot(a, b, out=None):
    """NumPy's dot: scalars multiply; 1-D . 1-D is the inner product; otherwise the last
    dim of ``a`` against the second-to-last of ``b`` (the last for a 1-D ``b``)."""
    if out is None and type(a) is Tensor and type(b) is Tensor and 0 < a.ndim <= 2 and \
            0 < b.ndim <= 2 and recorder(()) is None:
        res = _eager_matmul(a, b)   # NumPy's dot is matmul for 1-D and 2-D operands
        if res is not None:
            return res
    a, b = _common(a, b, "dot")
    if a.ndim == 0 or b.ndim == 0:
        return _write_out(a * b, out, "dot")
    kb = 0 if b.ndim == 1 else b.ndim - 2
    if a.shape[-1] != b.shape[kb]:
        raise ValueError(f"dot: shapes {tuple(a.shape)} and {tuple(b.shape)} not aligned: "
                         f"{a.shape[-1]} (dim {a.ndim - 1}) != {b.shape[kb]} (dim {kb})")
    return _write_out(_dot_general(a, b, (a.ndim - 1,), (kb,)), out, "dot")


def vdot(a, b, /):
    """NumPy's vdot: both flattened, ``a`` conjugated, then the inner product."""
    a, b = _common(a, b, "vdot")
    if a.size != b.size:
        raise ValueError(f"vdot: operands have {a.size} and {b.size} elements")
    if KINDS[CODE_OF[a.dtype]] == "c":
        a = a.conj()
    return _dot_general(a.reshape((a.size,)), b.reshape((b.size,)), (0,), (0,))


def inner(a, b, /):
    """NumPy's inner: sums over the last dims of both."""
    a, b = _common(a, b, "inner")
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"inner: last dims differ: {tuple(a.shape)} and {tuple(b.shape)}")
    return _dot_general(a, b, (a.ndim - 1,), (b.ndim - 1,))


def outer(a, b, /, out=None):
    """NumPy's outer: both flattened, result[i, j] = a[i] * b[j]."""
    a, b = _common(a, b, "outer")
    res = _dot_general(a.reshape((a.size,)), b.reshape((b.size,)), (), ())
    return _write_out(res, out, "outer")


def tensordot(a, b, /, axes=2):
    """NumPy's tensordot: ``axes`` = N sums the last N dims of ``a`` with the first N of
    ``b``; a pair of sequences names the dims."""
    a, b = _common(a, b, "tensordot")
    if isinstance(axes, (int, np.integer)):
        n = operator.index(axes)
        if n < 0 or n > a.ndim or n > b.ndim:
            raise ValueError(f"tensordot: axes={n} out of range for shapes {tuple(a.shape)} "
                             f"and {tuple(b.shape)}")
        la, lb = tuple(range(a.ndim - n, a.ndim)), tuple(range(n))
    else:
        try:
            la, lb = axes
        except (TypeError, ValueError):
            raise ValueError(f"tensordot: axes must be an int or a pair of sequences, got "
                             f"{axes!r}") from None
        la = (la,) if isinstance(la, (int, np.integer)) else tuple(la)
        lb = (lb,) if isinstance(lb, (int, np.integer)) else tuple(lb)
        if len(la) != len(lb):
            raise ValueError(f"tensordot: axes {la} and {lb} differ in length")
        la = tuple(_axis(d, a.ndim, "tensordot") for d in la)
        lb = tuple(_axis(d, b.ndim, "tensordot") for d in lb)
    for i, j in zip(la, lb):
        if a.shape[i] != b.shape[j]:
            raise ValueError(f"tensordot: shape mismatch for sum: dim {i} of "
                             f"{tuple(a.shape)} vs dim {j} of {tuple(b.shape)}")
    return _dot_general(a, b, la, lb)


def _axis(d, n, name):
    d = operator.index(d)
    if not -n <= d < n:
        raise ValueError(f"{name}: axis {d} is out of bounds for rank {n}")
    return d + n if d < 0 else d


def kron(a, b, /):
    """NumPy's kron: the block product, result[i*nb + j] = a[i] * b[j] per dim."""
    a, b = _common(a, b, "kron")
    nd = builtins.max(a.ndim, b.ndim)
    a = a.reshape((1,) * (nd - a.ndim) + tuple(a.shape))
    b = b.reshape((1,) * (nd - b.ndim) + tuple(b.shape))
    prod = _dot_general(a, b, (), ())  # dims a0..a(nd-1), b0..b(nd-1)
    perm = tuple(itertools.chain.from_iterable((i, nd + i) for i in range(nd)))
    shape = tuple(a.shape[i] * b.shape[i] for i in range(nd))
    return S.transpose(prod, perm).reshape(shape)


def vecdot(x1, x2, /, *, axis=-1):
    """Array API / NumPy vecdot: sum over ``axis`` of conj(x1) * x2, other dims broadcast."""
    a, b = _common(x1, x2, "vecdot")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("vecdot: operands must have at least one dim")
    try:
        shape = broadcast_shapes(tuple(a.shape), tuple(b.shape))
    except ValueError:
        raise ValueError(f"vecdot: shapes {tuple(a.shape)} and {tuple(b.shape)} do not "
                         f"broadcast") from None
    nd = len(shape)
    ax = _axis(axis, nd, "vecdot")
    core = [x.shape[ax - nd] if ax - nd >= -x.ndim else None for x in (a, b)]
    if None in core or core[0] != core[1]:
        raise ValueError(f"vecdot: the contracted dims differ: axis {axis} of shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")
    if KINDS[CODE_OF[a.dtype]] == "c":
        a = a.conj()
    a = _broadcast_full(a, shape)
    b = _broadcast_full(b, shape)
    batch = tuple(d for d in range(nd) if d != ax)
    return _dot_general(a, b, (ax,), (ax,), batch, batch)


def _broadcast_full(x, shape):
    if tuple(x.shape) == tuple(shape):
        return x
    nd = len(shape)
    return S.broadcast_in_dim(x, tuple(shape), tuple(range(nd - x.ndim, nd)))


def diagonal(a, offset=0, axis1=0, axis2=1):
    """NumPy's diagonal: a view whose last dim is the diagonal (read-only, as NumPy's)."""
    return C.diagonal(_arr(a), offset, axis1, axis2)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """NumPy's trace: the sum of the diagonal (NumPy's sum dtype: small ints widen)."""
    a = _arr(a)
    if a.ndim < 2:
        raise ValueError(f"trace: needs at least 2 dims, got shape {tuple(a.shape)}")
    return _write_out(_np_sum(C.diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype),
                      out, "trace")


register(matmul=matmul, dot=dot, trace=trace, diagonal=diagonal)


# ------------------------------------------------------------------------ einsum
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_ELLIPSIS_BASE = 0x2460  # labels of the dims '...' stands for (never a subscript letter)


def _sublist_text(sublist, where):
    text = []
    for s in sublist:
        if s is Ellipsis:
            text.append("...")
            continue
        try:
            i = operator.index(s)
        except TypeError:
            raise TypeError(f"einsum: {where} sublist items must be ints or Ellipsis, got "
                            f"{s!r}") from None
        if not 0 <= i < len(_LETTERS):
            raise ValueError(f"einsum: subscript {i} in {where} is not in 0..51")
        text.append(_LETTERS[i])
    return "".join(text)


def _einsum_args(subscripts, operands):
    """(subscripts text, operands) of either calling form: einsum('ij,jk->ik', a, b) or
    einsum(a, [0, 1], b, [1, 2], [0, 2])."""
    if isinstance(subscripts, str):
        return subscripts, list(operands)
    args = [subscripts] + list(operands)
    ops, terms = args[0::2], args[1::2]
    out = None
    if len(ops) > len(terms):  # a trailing output sublist
        out = ops.pop()
    terms = [_sublist_text(t, f"operand {i}'s") for i, t in enumerate(terms)]
    text = ",".join(terms)
    if out is not None:
        text += "->" + _sublist_text(out, "the output")
    return text, ops


def _parse_einsum(subscripts, ops):
    """Each operand's labels (one per dim) and the output's; '...' dims get labels of
    their own, right-aligned across operands as NumPy broadcasts them."""
    text = subscripts.replace(" ", "")
    if "->" in text:
        lhs, rhs = text.split("->", 1)
        if "->" in rhs:
            raise ValueError(f"einsum: subscripts {subscripts!r} have more than one '->'")
    else:
        lhs, rhs = text, None
    terms = lhs.split(",")
    if len(terms) != len(ops):
        raise ValueError(f"einsum: subscripts {subscripts!r} name {len(terms)} operand(s), "
                         f"got {len(ops)}")
    ell_counts = []
    for i, (t, x) in enumerate(zip(terms, ops)):
        if t.count("...") > 1 or "." in t.replace("...", ""):
            raise ValueError(f"einsum: operand {i}'s subscripts {t!r} have a misplaced '.'")
        letters = t.replace("...", "")
        for ch in letters:
            if ch not in _LETTERS:
                raise ValueError(f"einsum: subscript {ch!r} in {t!r} is not a letter")
        n_ell = x.ndim - len(letters)
        if "..." not in t and n_ell != 0 or n_ell < 0:
            raise ValueError(f"einsum: operand {i} has {x.ndim} dims, its subscripts {t!r} "
                             f"name {len(letters)}")
        ell_counts.append(n_ell if "..." in t else 0)
    n_ell = builtins.max(ell_counts, default=0)
    ell = [chr(_ELLIPSIS_BASE + k) for k in range(n_ell)]
    labels = []
    for t, k in zip(terms, ell_counts):
        head, _, tail = t.partition("...")
        labels.append(list(head) + (ell[n_ell - k:] if "..." in t else []) + list(tail))
    if rhs is None:
        counts = {}
        for ls in labels:
            for ch in ls:
                counts[ch] = counts.get(ch, 0) + 1
        out = ell + sorted(ch for ch, c in counts.items() if c == 1 and ch in _LETTERS)
    else:
        if rhs.count("...") > 1 or "." in rhs.replace("...", ""):
            raise ValueError(f"einsum: output subscripts {rhs!r} have a misplaced '.'")
        if ell and "..." not in rhs:
            raise ValueError(f"einsum: operands have dims '...' stands for, and the output "
                             f"{rhs!r} has no '...' to put them ({subscripts!r})")
        head, _, tail = rhs.partition("...")
        out = list(head) + (ell if "..." in rhs else []) + list(tail)
        seen = set()
        used = set(itertools.chain.from_iterable(labels))
        for ch in out:
            if ch in seen:
                raise ValueError(f"einsum: output subscript {ch!r} repeats in {rhs!r}")
            if ch not in used:
                raise ValueError(f"einsum: output subscript {ch!r} appears in no operand "
                                 f"({subscripts!r})")
            seen.add(ch)
    return labels, out


def _label_sizes(labels, ops, subscripts):
    sizes = {}
    for ls, x in zip(labels, ops):
        for ch, n in zip(ls, x.shape):
            if sizes.get(ch, 1) == 1:
                sizes[ch] = n
            elif n not in (1, sizes[ch]):
                raise ValueError(f"einsum: subscript {_show(ch)!r} has sizes {sizes[ch]} and "
                                 f"{n} in {subscripts!r} (shapes "
                                 f"{[tuple(o.shape) for o in ops]})")
    return sizes


def _show(ch):
    return "..." if ord(ch) >= _ELLIPSIS_BASE else ch


def _contraction_cost(la, lb, sizes):
    return math.prod(sizes[ch] for ch in set(la) | set(lb))


def _einsum_plan(label_sets, out, sizes, optimize):
    """The pairwise contraction order as numpy.einsum_path gives it: a list of (i, j)
    positions in the current operand list, whose result goes to the end."""
    n = len(label_sets)
    if isinstance(optimize, (list, tuple)) and optimize and optimize[0] == "einsum_path":
        path = [tuple(p) for p in optimize[1:] if len(p) != 1 or n != 1]
        if sum(len(p) - 1 for p in path) != n - 1 or any(len(p) != 2 for p in path):
            raise ValueError(f"einsum: path {optimize!r} does not contract {n} operands "
                             f"pairwise")
        return path
    if n < 2:
        return []
    out = frozenset(out)

    def result(sets, i, j):
        rest = [s for k, s in enumerate(sets) if k not in (i, j)]
        keep = out.union(*rest) if rest else out
        return (sets[i] | sets[j]) & keep

    def step(sets, i, j):
        r = result(sets, i, j)
        return [s for k, s in enumerate(sets) if k not in (i, j)] + [r]

    if n <= 6 and optimize not in ("greedy",):
        best = [math.inf, None]

        def search(sets, cost, path):
            if cost >= best[0]:
                return
            if len(sets) == 1:
                best[0], best[1] = cost, path
                return
            for i, j in itertools.combinations(range(len(sets)), 2):
                search(step(sets, i, j), cost + _contraction_cost(sets[i], sets[j], sizes),
                       path + [(i, j)])

        search(list(label_sets), 0, [])
        return best[1]
    sets, path = list(label_sets), []
    while len(sets) > 1:
        i, j = builtins.min(itertools.combinations(range(len(sets)), 2),
                            key=lambda p: (_contraction_cost(sets[p[0]], sets[p[1]], sizes),
                                           math.prod(sizes[c] for c in result(sets, *p))))
        sets = step(sets, i, j)
        path.append((i, j))
    return path


def _einsum_prepare(subscripts, operands, dtype=None):
    text, ops = _einsum_args(subscripts, operands)
    ops = [_arr(x) for x in ops]
    if not ops:
        raise ValueError("einsum: needs at least one operand")
    dt = as_dtype(dtype) if dtype is not None else promote(ops)
    ops = [x if x.dtype == dt else x.astype(dt) for x in ops]
    labels, out = _parse_einsum(text, ops)
    sizes = _label_sizes(labels, ops, text)
    return text, ops, labels, out, sizes


def _single_operand(x, ls, others, out, sizes):
    """x with its broadcast size-1 dims dropped, its repeated labels taken as diagonals
    and the labels nothing else needs summed: (x, labels)."""
    squeeze = tuple(d for d, ch in enumerate(ls) if x.shape[d] == 1 and sizes[ch] != 1)
    if squeeze:
        x = x.reshape(tuple(d for k, d in enumerate(x.shape) if k not in squeeze))
        ls = [ch for d, ch in enumerate(ls) if d not in squeeze]
    while len(set(ls)) != len(ls):
        ch = next(c for c in ls if ls.count(c) > 1)
        d1 = ls.index(ch)
        d2 = ls.index(ch, d1 + 1)
        x = C.diagonal(x, 0, d1, d2)
        ls = [c for d, c in enumerate(ls) if d not in (d1, d2)] + [ch]
    needed = set(out).union(*others) if others else set(out)
    drop = tuple(d for d, ch in enumerate(ls) if ch not in needed)
    if drop:
        x = lax_reduce(x, False if x.dtype == np.bool_ else 0, "add", drop)  # pred: or
        ls = [ch for d, ch in enumerate(ls) if d not in drop]
    return x, ls


def einsum(subscripts, *operands, out=None, dtype=None, order="K", casting="safe",
           optimize=True):
    """NumPy's einsum (both calling forms, '...', implicit and explicit output, repeated
    labels, size-1 broadcasting), each pair of operands one dot_general (module
    docstring). ``optimize`` may be a path from einsum_path."""
    text, ops, labels, out_labels, sizes = _einsum_prepare(subscripts, operands, dtype)
    prepared = []
    for i, (x, ls) in enumerate(zip(ops, labels)):
        others = [set(l2) for k, l2 in enumerate(labels) if k != i]
        prepared.append(_single_operand(x, ls, others, out_labels, sizes))
    path = _einsum_plan([frozenset(ls) for _, ls in prepared], out_labels, sizes, optimize)
    for i, j in path:
        (x, lx), (y, ly) = prepared[i], prepared[j]
        rest = [ls for k, (_, ls) in enumerate(prepared) if k not in (i, j)]
        keep = set(out_labels).union(*map(set, rest)) if rest else set(out_labels)
        shared = [ch for ch in lx if ch in ly]
        batch = [ch for ch in shared if ch in keep]
        contract = [ch for ch in shared if ch not in keep]
        res = _dot_general(x, y, [lx.index(c) for c in contract],
                           [ly.index(c) for c in contract], [lx.index(c) for c in batch],
                           [ly.index(c) for c in batch])
        lr = batch + [ch for ch in lx if ch not in ly] + [ch for ch in ly if ch not in lx]
        prepared = [p for k, p in enumerate(prepared) if k not in (i, j)] + [(res, lr)]
    (x, ls), = prepared
    x, ls = _single_operand(x, ls, [], out_labels, sizes)
    missing = [ch for ch in out_labels if ch not in ls]
    if missing:  # output labels whose every dim was a broadcast 1
        x = x.reshape(tuple(x.shape) + (1,) * len(missing))
        ls = ls + missing
    perm = tuple(ls.index(ch) for ch in out_labels)
    if perm != tuple(range(len(perm))):
        x = S.transpose(x, perm)
    return _write_out(x, out, "einsum")


def einsum_path(subscripts, *operands, optimize="greedy", einsum_call=False):
    """NumPy's einsum_path: (['einsum_path', (i, j), ...], a report of the order and its
    cost). 'optimal' searches every order, 'greedy' (and True) the cheapest pair first."""
    if optimize is True:
        optimize = "greedy"
    text, ops, labels, out_labels, sizes = _einsum_prepare(subscripts, operands)
    sets = [frozenset(ls) for ls in labels]
    path = _einsum_plan(sets, out_labels, sizes, optimize)
    naive = math.prod(sizes.values()) * builtins.max(1, len(ops) - 1) if sizes else 0
    cost, largest, cur, lines = 0, 0, list(sets), []
    names = [("".join(map(_show, ls))) for ls in labels]
    for i, j in path:
        rest = [s for k, s in enumerate(cur) if k not in (i, j)]
        keep = frozenset(out_labels).union(*rest) if rest else frozenset(out_labels)
        res = (cur[i] | cur[j]) & keep
        scaling = len(cur[i] | cur[j])
        cost += _contraction_cost(cur[i], cur[j], sizes)
        largest = builtins.max(largest, math.prod(sizes[c] for c in res))
        rname = "".join(map(_show, sorted(res)))
        step = f"{names[i]},{names[j]}->{rname}"
        names = [nm for k, nm in enumerate(names) if k not in (i, j)] + [rname]
        cur = rest + [res]
        remaining = ",".join(names) + "->" + "".join(map(_show, out_labels))
        lines.append(f"{scaling:>4}   {step:>30}   {remaining:>30}")
    report = "\n".join([
        f"  Complete contraction:  {text}",
        f"      Naive FLOP count:  {naive:.3e}",
        f"  Optimized FLOP count:  {cost:.3e}",
        f"  Largest intermediate:  {largest:.3e} elements",
        "-" * 70,
        "scaling                  current                                remaining",
        "-" * 70] + lines)
    # (NumPy's path names the one operand of a single-operand einsum: [(0,)])
    return ["einsum_path"] + (path if len(ops) > 1 else [(0,)]), report
