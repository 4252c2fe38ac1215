"""Windowed reductions (seed 004 ReduceWindow, line 1322; SelectAndScatter, 1615) and batch
normalization (BatchNormTraining / Inference / Grad, 93-180), with jax.lax's names.

reduce_window(operand, init, computation, window_dimensions, window_strides, padding,
base_dilation, window_dilation): each output element reduces one window of the operand,
starting from ``init``: out[o] = init op x_0 op x_1 ... over the window's taps that read
real elements (padding and base-dilation holes are skipped, as XLA's CPU backend and jax
compute it; the seed's picture of a padded array holding init agrees whenever init is the
computation's identity). A monoid computation ('add', 'mul', 'max', 'min', 'and', 'or', a
lax function or a callable tracing to one) runs on the window family's C++ row kernels
(csrc/kernels/window/); any other computation, and N operands, run the traced computation
over the window's taps as whole tensors (each tap's strided view of the padded operand,
folded in tap order where the tap reads a real element). Worked examples: the seed's, min
over windows of 3, stride 2, of [10000, 1000, 100, 10, 1] with init +max -> VALID [100, 1],
padding ((1, 1),) -> [1000, 10, 1]; add over windows of 2 of [1, 2, 3] with init 10 and
padding ((1, 1),) -> [11, 13, 15, 13].

select_and_scatter(operand, select, window_dimensions, window_strides, padding, source,
init_value, scatter): out = init_value everywhere; each window picks the tap ``select``
prefers (select(a, b) true keeps a, the earlier tap; padding is never picked) and
scatters its source value into it with ``scatter``. select_and_scatter_add is the
max-pool gradient (select ge, scatter add) on a C++ kernel.
"""

import operator

import numpy as np

from xarr import _tensor
from xarr._bindings.window import reduce_window_into, select_and_scatter_add_into
from xarr._dtypes import CODE_OF, KINDS, XLA_NAMES
from xarr._graph import trace as _trace
from xarr._graph.ir import Instruction, Module, TensorType
from xarr._graph.trace import Traced, TracedComputation, recorder, trace_sub
from xarr._ops import structural as S
from xarr._ops.convolution import padtype_to_pads, window_text
from xarr._ops.elementwise import lax_apply, lax_scalar
from xarr._ops.reduction import (_lax_monoid, _monoid_of_traced, _trace_scalar_computation,
                                 _vectorized, monoid_of)
from xarr._ops.structural import as_operand, on_strided
from xarr._registry import Op, register
from xarr._tensor import Tensor

# ------------------------------------------------------------------------ geometry
def _ints(values, what, n, op, default=1):
    if values is None:
        return (default,) * n
    try:
        out = tuple(operator.index(v) for v in values)
    except TypeError:
        raise TypeError(f"lax.{op}: {what} must be a sequence of integers, got "
                        f"{values!r}") from None
    if len(out) != n:
        raise ValueError(f"lax.{op}: {what} {out} must have one entry per operand dim ({n})")
    return out


def _pads(padding, shape, window, strides, dilation, op):
    if isinstance(padding, str):
        dilated = [0 if w == 0 else (w - 1) * d + 1 for w, d in zip(window, dilation)]
        return padtype_to_pads(shape, dilated, strides, padding)
    try:
        pads = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        raise TypeError(f"lax.{op}: padding must be a string or (lo, hi) pairs, got "
                        f"{padding!r}") from None
    if len(pads) != len(shape):
        raise ValueError(f"lax.{op}: padding {pads} must have one pair per dim "
                         f"({len(shape)})")
    return pads


def window_shape(dims, window, strides, padding, base_dil, win_dil, op="reduce_window"):
    """The window grid's dims: per dim max(0, (dilated input + lo + hi - dilated window)
    // stride + 1). Raises with the values for bad geometry."""
    out = []
    for d, (n, w, s, (lo, hi), bd, wd) in enumerate(zip(dims, window, strides, padding,
                                                         base_dil, win_dil)):
        if w < 0 or s < 1 or bd < 1 or wd < 1:
            raise ValueError(f"lax.{op}: dim {d}: window {w}, stride {s}, base dilation "
                             f"{bd} and window dilation {wd} must be positive (window >= 0)")
        size = (0 if n == 0 else (n - 1) * bd + 1) + lo + hi
        span = 0 if w == 0 else (w - 1) * wd + 1
        if size < 0:
            raise ValueError(f"lax.{op}: dim {d}: padding {(lo, hi)} crops more than the "
                             f"(dilated) size")
        out.append(max(0, (size - span) // s + 1) if size >= span else 0)
    return tuple(out)


def _geometry(attrs):
    return [(w, s, lo, bd, wd) for w, s, (lo, _), bd, wd in
            zip(attrs["window_dimensions"], attrs["window_strides"], attrs["padding"],
                attrs["base_dilation"], attrs["window_dilation"])]


def _window_attrs(shape, window_dimensions, window_strides, padding, base_dilation,
                  window_dilation, op):
    n = len(shape)
    window = _ints(window_dimensions, "window_dimensions", n, op)
    strides = _ints(window_strides, "window_strides", n, op)
    bd = _ints(base_dilation, "base_dilation", n, op)
    wd = _ints(window_dilation, "window_dilation", n, op)
    pads = _pads(padding, shape, window, strides, wd, op)
    return {"window_dimensions": window, "window_strides": strides, "padding": pads,
            "base_dilation": bd, "window_dilation": wd}


# ------------------------------------------------------------------------ generic path
def _tap_views(x, init, attrs):
    """The operand padded with ``init`` (base dilation holes too), and for each window tap
    in row-major order, the strided view of the padded operand it reads over the grid."""
    pads = [(lo, hi, bd - 1) for (lo, hi), bd in zip(attrs["padding"], attrs["base_dilation"])]
    padded = _tensor.strided(S.pad(x, init, pads))
    grid = window_shape(x.shape, attrs["window_dimensions"], attrs["window_strides"],
                        attrs["padding"], attrs["base_dilation"], attrs["window_dilation"])
    st = padded.strides
    views = []
    for taps in np.ndindex(*attrs["window_dimensions"]):
        if not all(grid):
            views.append(_tensor.empty(grid, CODE_OF[x.dtype]))
            continue
        off = sum(t * wd * s for t, wd, s in zip(taps, attrs["window_dilation"], st))
        views.append(_tensor.as_strided_view(
            padded, grid, tuple(s * k for s, k in zip(st, attrs["window_strides"])), off,
            readonly=True))
    return views, grid


def _valid_views(shape, attrs):
    """Per tap, a pred view over the grid: whether the tap reads a real element."""
    pred = CODE_OF[np.dtype(bool)]
    ones = S.broadcast_in_dim(lax_scalar("reduce_window", True, pred), tuple(shape), ())
    return _tap_views(ones, lax_scalar("reduce_window", False, pred), attrs)[0]


def _reduce_window_generic(operands, inits, attrs, comp):
    """Folds the traced computation over the taps: acc = init, then acc = comp(acc, tap)
    where the tap reads a real element."""
    per_operand = [_tap_views(x, i, attrs) for x, i in zip(operands, inits)]
    grid = per_operand[0][1]
    valid = _valid_views(operands[0].shape, attrs)
    acc = [S.broadcast_in_dim(i, grid, ()) for i in inits]
    for t in range(len(per_operand[0][0])):
        new = _vectorized(comp, acc + [views[t] for views, _ in per_operand])
        acc = [lax_apply("select", valid[t], n, a) for n, a in zip(new, acc)]
    return [a.copy() if isinstance(a, Tensor) else a for a in acc]


# ------------------------------------------------------------------------ reduce_window
def _reduce_window_rule(types, monoid, computation, **attrs):
    n = len(types) // 2
    out = []
    for k in range(n):
        t, i = types[k], types[n + k]
        if i.dims != () or i.code != t.code:
            raise TypeError(f"lax.reduce_window: init value {k} must be a "
                            f"{XLA_NAMES[t.code]} scalar, got {XLA_NAMES[i.code]}"
                            f"{list(i.dims)}")
        if t.dims != types[0].dims:
            raise ValueError(f"lax.reduce_window: operand {k} has shape {t.dims}, operand 0 "
                             f"has {types[0].dims}")
        out.append(TensorType(t.code, window_shape(
            t.dims, attrs["window_dimensions"], attrs["window_strides"], attrs["padding"],
            attrs["base_dilation"], attrs["window_dilation"]), None))
    return out[0] if n == 1 else tuple(out)


def _reduce_window_impl(*xs, monoid, computation, **attrs):
    n = len(xs) // 2
    operands, inits = xs[:n], xs[n:]
    if monoid is not None:
        x = operands[0]
        grid = window_shape(x.shape, attrs["window_dimensions"], attrs["window_strides"],
                            attrs["padding"], attrs["base_dilation"], attrs["window_dilation"])
        out = _tensor.empty(grid, CODE_OF[x.dtype])
        return reduce_window_into(out, x, monoid, _tensor.strided(inits[0]), _geometry(attrs))
    outs = _reduce_window_generic(list(operands), list(inits), attrs, computation)
    return outs[0] if n == 1 else tuple(outs)


def _reduce_window_text(instr):
    a = instr.attrs
    parts = [f"window={window_text(a['window_dimensions'], a['window_strides'], a['padding'], a['base_dilation'], a['window_dilation'])}"]
    if instr.calls:
        parts.append(f"to_apply={instr.calls[0].name}")
    return parts


register(Op("reduce_window", "structural", rule=_reduce_window_rule,
            impl=on_strided(_reduce_window_impl), hlo="reduce-window",
            text=_reduce_window_text))


def _type(x):
    if type(x) is Traced:
        return x.instr.type
    return TensorType(CODE_OF[x.dtype], tuple(x.shape), None)


def _record(name, operands, rtype, attrs, calls):
    rec = recorder(operands)
    ins = [_trace.instr_of(rec, x, f"lax.{name}") for x in operands]
    instr = rec.add(Instruction(name, ins, rtype, attrs, calls))
    if isinstance(rtype, TensorType):
        return Traced(instr)
    return tuple(Traced(rec.add(Instruction("get_tuple_element", [instr], t, {"index": k})))
                 for k, t in enumerate(rtype))


def _scalars(values, operands, op):
    return [v if isinstance(v, (Tensor, Traced)) else as_operand(v)
            if isinstance(v, (np.generic, np.ndarray)) else
            lax_scalar(f"lax.{op}", v, CODE_OF[x.dtype]) for v, x in zip(values, operands)]


def reduce_window(operand, init_value, computation, window_dimensions, window_strides=None,
                  padding="VALID", base_dilation=None, window_dilation=None):
    """ReduceWindow (seed 004) with jax.lax's arguments (module docstring): ``operand`` a
    tensor or a tuple of N of one shape, one scalar ``init_value`` each, ``padding`` as
    (lo, hi) pairs or 'SAME' / 'SAME_LOWER' / 'VALID' (from the undilated operand and the
    dilated window, as jax computes it)."""
    single = not isinstance(operand, (tuple, list))
    ops = [as_operand(x) for x in ([operand] if single else operand)]
    inits = [init_value] if single or not isinstance(init_value, (tuple, list)) \
        else list(init_value)
    if len(inits) != len(ops):
        raise ValueError(f"lax.reduce_window: {len(ops)} operands need {len(ops)} init "
                         f"values, got {len(inits)}")
    inits = _scalars(inits, ops, "reduce_window")
    shape = tuple(ops[0].shape)
    attrs = _window_attrs(shape, window_dimensions,
                          (1,) * len(shape) if window_strides is None else window_strides,
                          padding, base_dilation, window_dilation, "reduce_window")
    codes = [CODE_OF[x.dtype] for x in ops]
    monoid = monoid_of(computation, len(ops))
    comp = None
    if monoid is None or recorder(ops + inits) is not None:
        fn = computation if monoid is None else _lax_monoid(monoid)
        comp = _trace_scalar_computation(fn, codes + codes, _trace.tracing())
        if monoid is None and len(ops) == 1:
            monoid = _monoid_of_traced(comp)
    if monoid is not None and KINDS[codes[0]] == "c" and monoid in ("max", "min"):
        raise TypeError("lax.reduce_window: max/min are not defined for complex operands")
    if monoid in ("and", "or") and KINDS[codes[0]] not in "biu":
        raise TypeError(f"lax.reduce_window: {monoid} needs pred or integer operands, got "
                        f"{XLA_NAMES[codes[0]]}")
    attrs.update(monoid=monoid, computation=comp)
    rtype = _reduce_window_rule([_type(x) for x in ops + inits], **attrs)
    if recorder(ops + inits) is None:
        out = _reduce_window_impl(*[_tensor.strided(x) for x in ops + inits], **attrs)
    else:
        out = _record("reduce_window", ops + inits, rtype, attrs,
                      [comp] if comp is not None else [])
    return out


# ------------------------------------------------------------------------ select and scatter
_SELECTS = {"ge": "ge", "gt": "gt", "le": "le", "lt": "lt"}


def _select_name(select):
    """'ge' / 'gt' / 'le' / 'lt' for a name or a lax comparison function, else None."""
    if isinstance(select, str):
        return _SELECTS.get(select)
    return _SELECTS.get(getattr(select, "lax_op", None))


def _sas_rule(types, select, scatter, select_comp, scatter_comp, **attrs):
    operand, source, init = types
    grid = window_shape(operand.dims, attrs["window_dimensions"], attrs["window_strides"],
                        attrs["padding"], attrs["base_dilation"], attrs["window_dilation"],
                        "select_and_scatter")
    if source.dims != grid:
        raise ValueError(f"lax.select_and_scatter: source has shape {source.dims}, the "
                         f"window grid of the operand {operand.dims} is {grid}")
    if not (operand.code == source.code == init.code) or init.dims != ():
        raise TypeError(f"lax.select_and_scatter: operand, source and init_value must share "
                        f"one element type, got {XLA_NAMES[operand.code]}, "
                        f"{XLA_NAMES[source.code]}, {XLA_NAMES[init.code]}{list(init.dims)}")
    return TensorType(operand.code, operand.dims, None)


def _sas_impl(operand, source, init, select, scatter, select_comp, scatter_comp, **attrs):
    if select is not None and scatter == "add" and KINDS[CODE_OF[operand.dtype]] != "c":
        out = _tensor.empty(tuple(operand.shape), CODE_OF[operand.dtype])
        return select_and_scatter_add_into(out, operand, source, select,
                                           _tensor.strided(init), _geometry(attrs))
    return _select_and_scatter_generic(operand, source, init, select_comp, scatter_comp,
                                       attrs)


def _select_and_scatter_generic(operand, source, init, select_comp, scatter_comp, attrs):
    """The traced select and scatter computations over whole tensors: for each window tap
    in order, the running choice keeps itself where select(choice, tap) holds; then each
    tap's view of the output takes scatter(out, source) where that tap was chosen. Padding
    (never selectable) is marked by a validity view of the padded grid."""
    views, grid = _tap_views(operand, init, attrs)
    valid = _valid_views(operand.shape, attrs)
    best = chosen = have = None
    for t, (v, ok) in enumerate(zip(views, valid)):
        if best is None:
            best, have = v, ok
            chosen = S.broadcast_in_dim(_tensor.scalar_tensor(0, CODE_OF[np.dtype(np.int64)]),
                                        grid, ())
            continue
        keep = _vectorized(select_comp, [best, v])[0]
        take = lax_apply("and", ok, lax_apply("or", lax_apply("not", have),
                                              lax_apply("not", keep)))
        best = lax_apply("select", take, v, best)
        chosen = lax_apply("select", take, S.broadcast_in_dim(
            _tensor.scalar_tensor(t, CODE_OF[np.dtype(np.int64)]), grid, ()), chosen)
        have = lax_apply("or", have, ok)
    out = S.broadcast_in_dim(init, tuple(operand.shape), ()).copy()
    pads = [(lo, hi, bd - 1) for (lo, hi), bd in zip(attrs["padding"], attrs["base_dilation"])]
    # The output padded like the operand, scattered tap by tap through strided views
    # (distinct windows of one tap never share an element), then cropped.
    big = _tensor.strided(S.pad(out, init, pads).copy())
    st = big.strides
    for t, taps in enumerate(np.ndindex(*attrs["window_dimensions"])):
        if not all(grid):
            break
        off = sum(k * wd * s for k, wd, s in zip(taps, attrs["window_dilation"], st))
        view = _tensor.as_strided_view(
            big, grid, tuple(s * k for s, k in zip(st, attrs["window_strides"])), off)
        hit = lax_apply("and", have, lax_apply("eq", chosen, S.broadcast_in_dim(
            _tensor.scalar_tensor(t, CODE_OF[np.dtype(np.int64)]), grid, ())))
        new = _vectorized(scatter_comp, [view, source])[0]
        view[...] = lax_apply("select", hit, new, view)
    starts = [lo for lo, _ in attrs["padding"]]
    strides = list(attrs["base_dilation"])
    if any(s < 0 for s in starts):
        raise ValueError("lax.select_and_scatter: negative padding is not supported")
    limits = [lo + (0 if n == 0 else (n - 1) * bd + 1) for lo, n, bd in
              zip(starts, operand.shape, strides)]
    return S.slice(big, starts, limits, strides).copy()


register(Op("select_and_scatter", "structural", rule=_sas_rule, impl=on_strided(_sas_impl),
            hlo="select-and-scatter",
            text=lambda instr: [f"window={window_text(instr.attrs['window_dimensions'], instr.attrs['window_strides'], instr.attrs['padding'])}"]
            + [f"{k}={c.name}" for k, c in zip(("select", "scatter"), instr.calls)]))


def _trace_binary(fn, code, result_code, what, parent):
    """Traces fn(a, b) on two scalars of dtype ``code`` into a computation returning one
    scalar of ``result_code``, else TypeError naming ``what``."""
    if parent is None:
        parent = TracedComputation("main", Module("select_and_scatter"))
    types = [TensorType(code, (), None)] * 2
    sub, _, out_types = trace_sub(parent, fn, types, f"{what}_computation",
                                  "lax.select_and_scatter")
    got = [(t.code, tuple(t.dims)) for t in out_types]
    if got != [(result_code, ())]:
        raise TypeError(f"lax.select_and_scatter: the {what} computation returns "
                        f"{[XLA_NAMES[c] + str(list(d)) for c, d in got]}, expected "
                        f"{XLA_NAMES[result_code]}[]")
    return sub


def select_and_scatter(operand, select, window_dimensions, window_strides, padding, source,
                       init_value, scatter):
    """SelectAndScatter (seed 004), in its argument order (module docstring). ``select``
    and ``scatter`` are computations of two scalars (select -> pred, scatter -> the
    element type), names ('ge', 'gt', 'le', 'lt' / 'add') or lax functions."""
    x, src = as_operand(operand), as_operand(source)
    (init,) = _scalars([init_value], [x], "select_and_scatter")
    shape = tuple(x.shape)
    attrs = _window_attrs(shape, window_dimensions, window_strides, padding, None, None,
                          "select_and_scatter")
    code = CODE_OF[x.dtype]
    sel = _select_name(select)
    sca = "add" if scatter == "add" or getattr(scatter, "lax_op", None) == "add" else None
    parent = _trace.tracing()
    sel_fn = select if sel is None else (lambda a, b, n=sel: lax_apply(n, a, b))
    sca_fn = scatter if sca is None else (lambda a, b: lax_apply("add", a, b))
    select_comp = _trace_binary(sel_fn, code, CODE_OF[np.dtype(bool)], "select", parent)
    scatter_comp = _trace_binary(sca_fn, code, code, "scatter", parent)
    attrs.update(select=sel, scatter=sca, select_comp=select_comp, scatter_comp=scatter_comp)
    rtype = _sas_rule([_type(x), _type(src), _type(init)], **attrs)
    if recorder([x, src, init]) is None:
        return _sas_impl(*[_tensor.strided(v) for v in (x, src, init)], **attrs)
    return _record("select_and_scatter", [x, src, init], rtype, attrs,
                   [select_comp, scatter_comp])


def select_and_scatter_add(source, operand, select_prim, window_dimensions, window_strides,
                           padding):
    """jax's select_and_scatter_add: the gradient of a max (select_prim lax.ge) or min
    (lax.le) pool: each window's first selected operand element receives its source value;
    the rest of the output is zero."""
    x = as_operand(operand)
    zero = lax_scalar("select_and_scatter_add", 0, CODE_OF[x.dtype]) \
        if KINDS[CODE_OF[x.dtype]] != "b" else lax_scalar("select_and_scatter_add", False,
                                                          CODE_OF[x.dtype])
    return select_and_scatter(x, select_prim, window_dimensions, window_strides, padding,
                              source, zero, "add")
