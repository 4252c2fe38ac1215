"""XLA's Gather and Scatter (seed 004, lines 896 and ~1504) as jax.lax spells them:
``gather`` with ``GatherDimensionNumbers``, ``scatter`` / ``scatter_add`` / ``scatter_mul`` /
``scatter_min`` / ``scatter_max`` / ``scatter_apply`` with ``ScatterDimensionNumbers``,
batching dims included, and the modes 'clip', 'fill' / 'drop' and 'promise_in_bounds'.

Each is one graph op (structural: its impl is the kernel, csrc/kernels/gather/), eager,
under xa.jit and in xa.lazy, printed as XLA prints them. The shape rules check every
dimension number and name the bad value. The kernels see no dimension numbers: ``_plan``
maps them onto batch positions (the gather output's batch dims, the updates' scatter
dims, each with the start-index dims it reads) and windows (per operand dim: the window
size and the output / updates dim its index runs along).

Out-of-range starts (SPEC.md): gather clamps them so the whole slice is in bounds (mode
None or 'clip', the seed's DynamicSlice rule; 'promise_in_bounds' clamps too) or fills the
slice with ``fill_value`` ('fill': jax's NaN / integer extreme / True by default); scatter
skips each update element whose operand index is out of range (None, 'drop', 'fill') or
clamps the window start ('clip'). Repeated scatter indices: every update applies, in
update order - batch positions in row-major order, each window in row-major order. The
bits do not depend on the thread count, but for float add and mul in a scatter of
single elements (a histogram-like scatter-add), whose threads sum chunks of the updates
apart: those differ by reassociation (csrc/kernels/gather/gather.h).

Worked example (the seed's tf.gather_nd case, rows of a [3, 4] operand):

    >>> dn = GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
    ...                             start_index_map=(0,))
    >>> gather(x, xa.asarray([[2], [0]]), dn, slice_sizes=(1, 4))   # rows 2 and 0
"""

import operator
from collections import namedtuple

import numpy as np

from xarr import _tensor
from xarr._bindings import gather as _gather
from xarr._dtypes import CODE_OF, DTYPES, KINDS, XLA_NAMES
from xarr._graph import trace as _trace
from xarr._graph.ir import Instruction, TensorType
from xarr._graph.trace import Traced, recorder
from xarr._ops import reduction as R
from xarr._ops.conversion import asarray
from xarr._ops.creation import zeros
from xarr._ops.elementwise import lax_apply
from xarr._ops.structural import as_operand, on_strided, record_tuple
from xarr._registry import Op, register

GatherDimensionNumbers = namedtuple(
    "GatherDimensionNumbers", "offset_dims collapsed_slice_dims start_index_map "
    "operand_batching_dims start_indices_batching_dims", defaults=((), ()))
ScatterDimensionNumbers = namedtuple(
    "ScatterDimensionNumbers", "update_window_dims inserted_window_dims "
    "scatter_dims_to_operand_dims operand_batching_dims scatter_indices_batching_dims",
    defaults=((), ()))


class GatherScatterMode:
    """The mode strings (jax.lax.GatherScatterMode's values)."""
    CLIP = "clip"
    FILL_OR_DROP = "fill"
    PROMISE_IN_BOUNDS = "promise_in_bounds"


_MODES = {None: None, "clip": "clip", "fill": "fill", "drop": "fill",
          "promise_in_bounds": "clip"}
_COMBINES = {"set": _gather.SET, "add": _gather.ADD, "mul": _gather.MUL,
             "min": _gather.MIN, "max": _gather.MAX}


def _mode_of(mode, op):
    if mode not in _MODES:
        raise ValueError(f"lax.{op}: unknown mode {mode!r} (one of 'clip', 'fill', 'drop', "
                         "'promise_in_bounds')")
    return _MODES[mode]


def _dims(values, what, op):
    try:
        return tuple(operator.index(v) for v in values)
    except TypeError:
        raise TypeError(f"lax.{op}: {what} must be a sequence of integers, got "
                        f"{values!r}") from None


def _check_set(dims, what, bound, op, sorted_=True):
    if sorted_ and list(dims) != sorted(dims):
        raise ValueError(f"lax.{op}: {what} must be sorted, got {dims}")
    if len(set(dims)) != len(dims):
        raise ValueError(f"lax.{op}: {what} must not repeat a dimension, got {dims}")
    for d in dims:
        if not 0 <= d < bound:
            raise ValueError(f"lax.{op}: {what} {dims} must lie in [0, {bound}), got {d}")


def _index_layout(idx_dims, ivd, nvec, op):
    """(the start-index dims that are batch dims, index vector size) for indices of dims
    ``idx_dims`` whose index vectors run along ``ivd`` (== rank: an implicit trailing 1)."""
    rank = len(idx_dims)
    if not 0 <= ivd <= rank:
        raise ValueError(f"lax.{op}: index_vector_dim {ivd} must lie in [0, {rank}] for "
                         f"start indices of shape {idx_dims}")
    size = idx_dims[ivd] if ivd < rank else 1
    if size != nvec:
        raise ValueError(f"lax.{op}: the index vectors have {size} components (dim {ivd} "
                         f"of start indices {idx_dims}), the index map {nvec}")
    return [d for d in range(rank) if d != ivd]


def _plan(kind, operand_dims, idx_dims, window_sizes, window_dims, inserted, vec_map,
          operand_batching, index_batching, ivd, dense_rank, op):
    """The kernel's description (gather.h) of a gather (kind 'gather': dense = output) or
    scatter ('scatter': dense = updates). window_sizes: per operand dim; window_dims: the
    dense dims of the non-inserted, non-batching operand dims, in order; the other dense
    dims are batch positions, matched in order to the index batch dims."""
    rank = len(operand_dims)
    idx_batch = _index_layout(idx_dims, ivd, len(vec_map), op)
    _check_set(inserted, "collapsed_slice_dims" if kind == "gather" else
               "inserted_window_dims", rank, op)
    _check_set(vec_map, "start_index_map" if kind == "gather" else
               "scatter_dims_to_operand_dims", rank, op, sorted_=False)
    _check_set(operand_batching, "operand_batching_dims", rank, op)
    if set(operand_batching) & set(inserted):
        raise ValueError(f"lax.{op}: operand_batching_dims {operand_batching} and "
                         f"{'collapsed_slice_dims' if kind == 'gather' else 'inserted_window_dims'}"
                         f" {inserted} must be disjoint")
    if set(operand_batching) & set(vec_map):
        raise ValueError(f"lax.{op}: operand_batching_dims {operand_batching} may not be "
                         f"indexed by the index map {vec_map}")
    _check_set(index_batching, "start_indices_batching_dims", len(idx_dims), op,
               sorted_=False)
    if len(index_batching) != len(operand_batching) or ivd in index_batching:
        raise ValueError(f"lax.{op}: the index batching dims {index_batching} must pair "
                         f"with operand_batching_dims {operand_batching} and exclude "
                         f"index_vector_dim {ivd}")
    for od, idd in zip(operand_batching, index_batching):
        if operand_dims[od] != idx_dims[idd]:
            raise ValueError(f"lax.{op}: batching dims differ in size: operand dim {od} "
                             f"({operand_dims[od]}) and start indices dim {idd} "
                             f"({idx_dims[idd]})")
    free = [d for d in range(rank) if d not in inserted and d not in operand_batching]
    if len(free) != len(window_dims):
        raise ValueError(f"lax.{op}: the operand's rank {rank} must equal the window dims "
                         f"({len(window_dims)}) + "
                         f"{'collapsed_slice_dims' if kind == 'gather' else 'inserted_window_dims'}"
                         f" ({len(inserted)}) + operand_batching_dims "
                         f"({len(operand_batching)})")
    if dense_rank != len(window_dims) + len(idx_batch):
        raise ValueError(f"lax.{op}: {'the output' if kind == 'gather' else 'updates'} must "
                         f"have rank {len(window_dims) + len(idx_batch)} (window dims + "
                         f"start index batch dims), got {dense_rank}")
    window_dense = [-1] * rank
    for d, wd in zip(free, window_dims):
        window_dense[d] = wd
    batch_dense = [d for d in range(dense_rank) if d not in window_dims]
    pos_of_index_dim = {idd: i for i, idd in enumerate(idx_batch)}
    return dict(window=list(window_sizes), window_dense=window_dense,
                batch_dense=batch_dense, batch_index=idx_batch,
                ivd=ivd if ivd < len(idx_dims) else -1, vec_dim=list(vec_map),
                batching_dim=list(operand_batching),
                batching_pos=[pos_of_index_dim[d] for d in index_batching])


# ------------------------------------------------------------------------ gather
def _gather_rule(types, dimension_numbers, slice_sizes, index_vector_dim, mode, fill_value,
                 indices_are_sorted, unique_indices):
    x, idx = types[0], types[1]
    dn = dimension_numbers
    if KINDS[idx.code] not in "iu":
        raise TypeError(f"lax.gather: start_indices must be integers, got "
                        f"{XLA_NAMES[idx.code]}")
    rank = len(x.dims)
    if len(slice_sizes) != rank:
        raise ValueError(f"lax.gather: slice_sizes {slice_sizes} must have one size per "
                         f"operand dim (rank {rank})")
    for d, (s, n) in enumerate(zip(slice_sizes, x.dims)):
        if not 0 <= s <= n:
            raise ValueError(f"lax.gather: slice_sizes[{d}] = {s} must lie in [0, {n}] "
                             f"(operand shape {x.dims})")
    for d in tuple(dn.collapsed_slice_dims) + tuple(dn.operand_batching_dims):
        if 0 <= d < rank and slice_sizes[d] != 1:
            raise ValueError(f"lax.gather: collapsed and batching dims need slice size 1; "
                             f"slice_sizes[{d}] = {slice_sizes[d]}")
    batch = [idx.dims[d] for d in range(len(idx.dims)) if d != index_vector_dim]
    out_rank = len(dn.offset_dims) + len(batch)
    _check_set(dn.offset_dims, "offset_dims", out_rank, "gather")
    plan = _plan("gather", x.dims, idx.dims, slice_sizes, dn.offset_dims,
                 dn.collapsed_slice_dims, dn.start_index_map, dn.operand_batching_dims,
                 dn.start_indices_batching_dims, index_vector_dim, out_rank, "gather")
    out = [0] * out_rank
    for d, wd in enumerate(plan["window_dense"]):
        if wd >= 0:
            out[wd] = slice_sizes[d]
    for pos, dd in enumerate(plan["batch_dense"]):
        out[dd] = batch[pos]
    return TensorType(x.code, tuple(out), None)


def _gather_impl(x, idx, fill, dimension_numbers, slice_sizes, index_vector_dim, mode,
                 fill_value, indices_are_sorted, unique_indices):
    t = _gather_rule([_type(x), _type(idx)], dimension_numbers, slice_sizes,
                     index_vector_dim, mode, fill_value, indices_are_sorted, unique_indices)
    dn = dimension_numbers
    plan = _plan("gather", x.shape, idx.shape, slice_sizes, dn.offset_dims,
                 dn.collapsed_slice_dims, dn.start_index_map, dn.operand_batching_dims,
                 dn.start_indices_batching_dims, index_vector_dim, len(t.dims), "gather")
    return _gather.gather(x, idx.astype(np.int64, copy=False), t.dims, plan["window"],
                          plan["window_dense"], plan["batch_dense"], plan["batch_index"],
                          plan["ivd"], plan["vec_dim"], plan["batching_dim"],
                          plan["batching_pos"], _gather.FILL if mode == "fill" else
                          _gather.CLIP, fill)


def _dn_text(dn, names):
    return [f"{n}={{{','.join(map(str, getattr(dn, f)))}}}" for f, n in names]


def _gather_text(instr):
    a = instr.attrs
    return _dn_text(a["dimension_numbers"], (
        ("offset_dims", "offset_dims"), ("collapsed_slice_dims", "collapsed_slice_dims"),
        ("start_index_map", "start_index_map"),
        ("operand_batching_dims", "operand_batching_dims"),
        ("start_indices_batching_dims", "start_indices_batching_dims"))) + [
        f"index_vector_dim={a['index_vector_dim']}",
        f"slice_sizes={{{','.join(map(str, a['slice_sizes']))}}}",
        f"indices_are_sorted={'true' if a['indices_are_sorted'] else 'false'}"] + (
        [f"mode={a['mode']}"] if a["mode"] else [])


def _type(x):
    if type(x) is Traced:
        return x.instr.type
    return TensorType(CODE_OF[x.dtype], tuple(x.shape), None)


def default_fill(code):
    """jax's fill for out-of-range gathers: NaN (inexact), the minimum (signed), the
    maximum (unsigned), True (bool)."""
    k = KINDS[code]
    dt = DTYPES[code]
    if k in "fc":
        return np.array(np.nan).astype(dt)
    if k == "i":
        return np.array(np.iinfo(dt).min, dt)
    if k == "u":
        return np.array(np.iinfo(dt).max, dt)
    return np.array(True)


def gather(operand, start_indices, dimension_numbers, slice_sizes, *,
           unique_indices=False, indices_are_sorted=False, mode=None, fill_value=None,
           index_vector_dim=None):
    """Gather (seed 004) as jax.lax.gather: slices of ``operand`` of ``slice_sizes`` at the
    starts ``start_indices`` holds along ``index_vector_dim`` (default: its last dim, as
    jax; its rank: an implicit trailing 1, as the seed allows). Out-of-range starts are
    clamped (mode None / 'clip' / 'promise_in_bounds') or fill their slice with
    ``fill_value`` ('fill')."""
    x = as_operand(operand)
    idx = as_operand(start_indices)
    dn = dimension_numbers
    if not isinstance(dn, GatherDimensionNumbers):
        raise TypeError(f"lax.gather: dimension_numbers must be a GatherDimensionNumbers, "
                        f"got {type(dn).__name__}")
    dn = GatherDimensionNumbers(*(_dims(v, f, "gather") for v, f in zip(dn, dn._fields)))
    slice_sizes = _dims(slice_sizes, "slice_sizes", "gather")
    ivd = idx.ndim - 1 if index_vector_dim is None else operator.index(index_vector_dim)
    mode = _mode_of(mode, "gather")
    fill = None
    if mode == "fill":
        code = CODE_OF[x.dtype]
        fill = asarray(np.asarray(fill_value if fill_value is not None else
                                  default_fill(code)).astype(DTYPES[code]))
    attrs = dict(dimension_numbers=dn, slice_sizes=slice_sizes, index_vector_dim=ivd,
                 mode=mode, fill_value=fill_value, indices_are_sorted=bool(indices_are_sorted),
                 unique_indices=bool(unique_indices))
    rtype = _gather_rule([_type(x), _type(idx)], **attrs)
    ops = [x, idx] + ([fill] if fill is not None else [])
    rec = recorder(ops)
    if rec is None:
        return _gather_impl(_tensor.strided(x), _tensor.strided(idx), fill, **attrs)
    ins = [_trace.instr_of(rec, v, "lax.gather") for v in ops]
    return Traced(rec.add(Instruction("gather", ins, rtype, attrs)))


def _gather_op_impl(x, idx, fill=None, **attrs):
    return _gather_impl(x, idx, fill, **attrs)


register(Op("gather", "structural", rule=lambda types, **a: _gather_rule(types[:2], **a),
            impl=on_strided(_gather_op_impl), text=_gather_text))


# ------------------------------------------------------------------------ scatter
def _scatter_plan(x_dims, idx_dims, upd_dims, dn, ivd, op):
    uwd = dn.update_window_dims
    _check_set(uwd, "update_window_dims", len(upd_dims), op)
    rank = len(x_dims)
    free = [d for d in range(rank) if d not in dn.inserted_window_dims and
            d not in dn.operand_batching_dims]
    window = [1] * rank
    for d, ud in zip(free, uwd):
        window[d] = upd_dims[ud]
    plan = _plan("scatter", x_dims, idx_dims, window, uwd, dn.inserted_window_dims,
                 dn.scatter_dims_to_operand_dims, dn.operand_batching_dims,
                 dn.scatter_indices_batching_dims, ivd, len(upd_dims), op)
    for d in free:
        if window[d] > x_dims[d]:
            raise ValueError(f"lax.{op}: the update window {window[d]} along operand dim "
                             f"{d} exceeds its size {x_dims[d]} (operand {x_dims}, updates "
                             f"{upd_dims})")
    batch = [idx_dims[d] for d in plan["batch_index"]]
    ubatch = [upd_dims[d] for d in plan["batch_dense"]]
    if batch != ubatch:
        raise ValueError(f"lax.{op}: the updates' scatter dims {tuple(ubatch)} must match "
                         f"the start indices' batch dims {tuple(batch)}")
    return plan


def _scatter_rule(types, dimension_numbers, index_vector_dim, mode, combine, computation,
                  indices_are_sorted, unique_indices, n):
    xs, idx, ups = types[:n], types[n], types[n + 1:]
    op = "scatter"
    if KINDS[idx.code] not in "iu":
        raise TypeError(f"lax.{op}: scatter_indices must be integers, got "
                        f"{XLA_NAMES[idx.code]}")
    for k, (x, u) in enumerate(zip(xs, ups)):
        if x.dims != xs[0].dims or u.dims != ups[0].dims:
            raise ValueError(f"lax.{op}: operands (and updates) must share one shape; "
                             f"operand {k} is {x.dims}, updates {k} {u.dims}")
        if x.code != u.code:
            raise TypeError(f"lax.{op}: operand {k} is {XLA_NAMES[x.code]}, its updates "
                            f"{XLA_NAMES[u.code]}; they must have one dtype")
        if combine in ("min", "max") and KINDS[x.code] == "c":
            raise TypeError(f"lax.scatter_{combine}: not defined for complex operands")
    _scatter_plan(xs[0].dims, idx.dims, ups[0].dims, dimension_numbers, index_vector_dim, op)
    outs = tuple(TensorType(x.code, x.dims, None) for x in xs)
    return outs[0] if n == 1 else outs


def _destinations(x_shape, idx, upd_shape, plan, clip):
    """Flat operand positions of every update element (C order of the updates; -1 where
    the element is skipped), for the general update computation."""
    rank = len(x_shape)
    ind = np.asarray(idx).astype(np.int64)
    if plan["ivd"] < 0:
        ind = ind[..., None]
    else:
        ind = np.moveaxis(ind, plan["ivd"], -1)
    grids = np.indices(upd_shape, dtype=np.int64) if upd_shape else np.zeros((0,), np.int64)
    bpos = tuple(grids[d] for d in plan["batch_dense"])
    start = np.zeros(tuple(upd_shape) + (rank,), np.int64)
    vecs = ind[bpos] if bpos else ind.reshape(-1, ind.shape[-1])[0]
    for k, d in enumerate(plan["vec_dim"]):
        start[..., d] = vecs[..., k]
    for d, pos in zip(plan["batching_dim"], plan["batching_pos"]):
        start[..., d] = bpos[pos]
    dims = np.array(x_shape, np.int64)
    window = np.array(plan["window"], np.int64)
    if clip:
        start = np.clip(start, 0, dims - window)
    for d, wd in enumerate(plan["window_dense"]):
        if wd >= 0:
            start[..., d] += grids[wd]
    valid = np.all((start >= 0) & (start < dims), axis=-1)
    if not valid.any():
        return np.full(valid.size, -1, np.int64)
    flat = np.ravel_multi_index(tuple(np.where(valid, start[..., d], 0)
                                      for d in range(rank)), x_shape) if rank else \
        np.zeros(upd_shape, np.int64)
    return np.where(valid, flat, -1).reshape(-1)


def _scatter_general(xs, idx, ups, plan, clip, computation):
    """Any update computation: the update elements go in rounds, each element's r-th
    update to one position in round r, so a round's positions are distinct and the
    computation runs vectorized (reduction._vectorized) on whole rounds, in update order."""
    x_shape = tuple(xs[0].shape)
    dest = _destinations(x_shape, idx, tuple(ups[0].shape), plan, clip)
    keep = np.nonzero(dest >= 0)[0]
    order = keep[np.argsort(dest[keep], kind="stable")]
    pos = dest[order]
    first = np.r_[True, pos[1:] != pos[:-1]] if pos.size else np.zeros(0, bool)
    starts = np.flatnonzero(first)
    rank_in = np.arange(pos.size) - np.repeat(starts, np.diff(np.r_[starts, pos.size]))
    out = [np.array(np.asarray(x)).reshape(-1) for x in xs]
    upd = [np.asarray(u).reshape(-1) for u in ups]
    for r in range(int(rank_in.max()) + 1 if pos.size else 0):
        sel = order[rank_in == r]
        at = dest[sel]
        new = R._vectorized(computation, [asarray(o[at]) for o in out] +
                            [asarray(u[sel]) for u in upd])
        for o, v in zip(out, new):
            o[at] = np.asarray(v)
    res = [asarray(o.reshape(x_shape)) for o in out]
    return res[0] if len(res) == 1 else tuple(res)


def _scatter_impl(*arrays, dimension_numbers, index_vector_dim, mode, combine, computation,
                  indices_are_sorted, unique_indices, n):
    xs, idx, ups = arrays[:n], arrays[n], arrays[n + 1:]
    plan = _scatter_plan(tuple(xs[0].shape), tuple(idx.shape), tuple(ups[0].shape),
                         dimension_numbers, index_vector_dim, "scatter")
    clip = mode == "clip"
    if combine is None:
        return _scatter_general(xs, idx, ups, plan, clip, computation)
    return _gather.scatter(xs[0], idx.astype(np.int64, copy=False), ups[0], plan["window"],
                           plan["window_dense"], plan["batch_dense"], plan["batch_index"],
                           plan["ivd"], plan["vec_dim"], plan["batching_dim"],
                           plan["batching_pos"], _gather.CLIP if clip else _gather.FILL,
                           _COMBINES[combine])


def _scatter_text(instr):
    a = instr.attrs
    dn = a["dimension_numbers"]
    calls = [f"to_apply={instr.calls[0].name}"] if instr.calls else \
        [f"to_apply=%scatter-{a['combine']}"]
    return _dn_text(dn, (
        ("update_window_dims", "update_window_dims"),
        ("inserted_window_dims", "inserted_window_dims"),
        ("scatter_dims_to_operand_dims", "scatter_dims_to_operand_dims"),
        ("operand_batching_dims", "input_batching_dims"),
        ("scatter_indices_batching_dims", "scatter_indices_batching_dims"))) + [
        f"index_vector_dim={a['index_vector_dim']}",
        f"indices_are_sorted={'true' if a['indices_are_sorted'] else 'false'}",
        f"unique_indices={'true' if a['unique_indices'] else 'false'}"] + (
        [f"mode={a['mode']}"] if a["mode"] else []) + calls


register(Op("scatter", "structural", rule=_scatter_rule, impl=on_strided(_scatter_impl),
            text=_scatter_text))


def _combine_of(computation, codes):
    """(known combine name or None, traced computation or None) of an update computation:
    None (replace), a name, or a callable fn(acc, update) (tuples for N operands)."""
    if computation is None:
        return "set", None
    if isinstance(computation, str):
        if computation not in _COMBINES:
            raise ValueError(f"lax.scatter: unknown update computation {computation!r} "
                             f"(one of {', '.join(_COMBINES)}, or a callable)")
        return computation, None
    comp = R._trace_scalar_computation(computation, codes + codes, _trace.tracing())
    if len(codes) == 1:
        root, params = comp.root, comp.parameters
        if root is params[1]:
            return "set", comp
        monoid = R._monoid_of_traced(comp)
        if monoid in ("add", "mul", "min", "max"):
            return monoid, comp
    return None, comp


def _scatter(name, operand, scatter_indices, updates, dimension_numbers, computation,
             indices_are_sorted, unique_indices, mode, index_vector_dim):
    single = not isinstance(operand, (tuple, list))
    xs = [as_operand(v) for v in ([operand] if single else operand)]
    ups = [as_operand(v) for v in ([updates] if single else updates)]
    if len(xs) != len(ups) or not xs:
        raise ValueError(f"lax.{name}: {len(xs)} operands need as many updates, got "
                         f"{len(ups)}")
    idx = as_operand(scatter_indices)
    dn = dimension_numbers
    if not isinstance(dn, ScatterDimensionNumbers):
        raise TypeError(f"lax.{name}: dimension_numbers must be a ScatterDimensionNumbers, "
                        f"got {type(dn).__name__}")
    dn = ScatterDimensionNumbers(*(_dims(v, f, name) for v, f in zip(dn, dn._fields)))
    ivd = idx.ndim - 1 if index_vector_dim is None else operator.index(index_vector_dim)
    codes = [CODE_OF[x.dtype] for x in xs]
    combine, comp = _combine_of(computation, codes)
    if len(xs) > 1 and combine is not None and comp is None:
        comp = R._trace_scalar_computation(
            lambda accs, vals: tuple(lax_apply(combine, a, v) for a, v in zip(accs, vals))
            if combine != "set" else vals, codes + codes, _trace.tracing())
    if len(xs) > 1:
        combine = None
    attrs = dict(dimension_numbers=dn, index_vector_dim=ivd, mode=_mode_of(mode, name),
                 combine=combine, computation=comp,
                 indices_are_sorted=bool(indices_are_sorted),
                 unique_indices=bool(unique_indices), n=len(xs))
    ops = xs + [idx] + ups
    rtype = _scatter_rule([_type(v) for v in ops], **attrs)
    out = record_tuple("scatter", ops, rtype, attrs, [comp] if comp is not None else [])
    if out is None:
        out = _scatter_impl(*[_tensor.strided(v) for v in ops], **attrs)
    return out if single or isinstance(out, tuple) else (out,)


def scatter(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
            unique_indices=False, mode=None, update_computation=None, index_vector_dim=None):
    """Scatter (seed 004) as jax.lax.scatter: a copy of ``operand`` with ``updates`` written
    at the windows ``scatter_indices`` start (index vectors along ``index_vector_dim``,
    default the last dim). ``update_computation`` (the seed's): None replaces (repeated
    indices: the last update in update order wins), 'add' / 'mul' / 'min' / 'max', or a
    callable fn(current, update) - with a tuple of N operands and N updates, fn(currents,
    updates) of tuples. Out-of-range elements are skipped (mode None / 'drop' / 'fill') or
    window starts clamped ('clip')."""
    return _scatter("scatter", operand, scatter_indices, updates, dimension_numbers,
                    update_computation, indices_are_sorted, unique_indices, mode,
                    index_vector_dim)


def _named_scatter(combine):
    def fn(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
           unique_indices=False, mode=None, index_vector_dim=None):
        return _scatter(f"scatter_{combine}", operand, scatter_indices, updates,
                        dimension_numbers, combine, indices_are_sorted, unique_indices, mode,
                        index_vector_dim)
    fn.__name__ = f"scatter_{combine}"
    fn.__doc__ = (f"jax.lax.scatter_{combine}: lax.scatter with update_computation "
                  f"'{combine}' (repeated indices all apply, in update order).")
    return fn


scatter_add = _named_scatter("add")
scatter_mul = _named_scatter("mul")
scatter_min = _named_scatter("min")
scatter_max = _named_scatter("max")


def scatter_apply(operand, scatter_indices, func, dimension_numbers, *, update_shape=None,
                  indices_are_sorted=False, unique_indices=False, mode=None,
                  index_vector_dim=None):
    """jax.lax.scatter_apply: ``func`` (one value -> one value) applied to the operand
    elements the windows of ``update_shape`` at ``scatter_indices`` cover (once per
    covering update element)."""
    x = as_operand(operand)
    if update_shape is None:
        raise TypeError("lax.scatter_apply: update_shape is required (the shape of the "
                        "updates a scatter with these indices would take)")
    shape = tuple(_dims(update_shape, "update_shape", "scatter_apply"))
    ups = zeros(shape, x.dtype)
    return _scatter("scatter_apply", x, scatter_indices, ups, dimension_numbers,
                    lambda acc, _: func(acc), indices_are_sorted, unique_indices, mode,
                    index_vector_dim)
