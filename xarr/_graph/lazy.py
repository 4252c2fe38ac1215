"""``with xa.lazy():`` - eager-looking code recorded into the lazy graph, computed when a
value is needed (printing, ``np.asarray``, ``.item()``, ``bool()``, ``xa.eval``).

    >>> with xa.lazy():
    ...     y = 2 * a + 3 * b * b - xa.exp(-c)     # recorded, nothing runs
    ...     z = y * 0.5
    >>> xa.eval(y, z)                               # one fused kernel writes both

Evaluating copies the part of the graph the requested values depend on into a fresh
module, runs the jit pipeline on it (xarr/_graph/passes.py) and executes it; the computed
instructions then keep their values and act as leaves for later evaluations. Values stay
lazy after the ``with`` block ends; tensors created there by other means are ordinary.
"""

import collections
import contextlib

import numpy as np

from xarr import _tensor
from xarr._dispatch import register
from xarr._graph import passes
from xarr._graph.compile import Executable
from xarr._graph.ir import Instruction, Module, gc_paused
from xarr._graph.trace import STATE, Traced, _type_of_tensor, lazy_graph
from xarr._tensor import Tensor


class lazy:  # noqa: N801  (used as ``with xa.lazy():``)
    """Context manager: operations on tensors inside it are recorded, not run."""

    def __enter__(self):
        lazy_graph()
        STATE.lazy_depth += 1
        _tensor.set_lazy_depth(STATE.lazy_depth)
        return self

    def __exit__(self, *exc):
        STATE.lazy_depth -= 1
        _tensor.set_lazy_depth(STATE.lazy_depth)
        return False


@contextlib.contextmanager
def paused():
    """Inside ``xa.lazy()``: ops on concrete tensors run eagerly again until the block
    ends (for eager-only code, e.g. xa.linalg's members that raise on values, whose
    intermediate results feed kernels that need them). Lazy operands stay lazy."""
    depth = STATE.lazy_depth
    STATE.lazy_depth = 0
    _tensor.set_lazy_depth(0)
    try:
        yield
    finally:
        STATE.lazy_depth = depth
        _tensor.set_lazy_depth(depth)


def eval(*values):  # noqa: A001  (xa.eval)
    """Computes lazy values together (one fused pass where possible); returns the
    tensors (one value: the tensor itself). Non-lazy arguments are returned as they are."""
    lazies = [v for v in values if type(v) is Traced]
    results = dict(zip(map(id, lazies), evaluate(lazies))) if lazies else {}
    out = tuple(results.get(id(v), v) for v in values)
    return out[0] if len(out) == 1 else out


def evaluate(traced):
    """The Tensors of lazy values, computing the pending ones in one module."""
    roots = [t.instr for t in traced]
    pending = list({id(r): r for r in roots if r.value is None}.values())
    if pending:
        with gc_paused():
            _compute(pending)
    return [r.value for r in roots]


def _compute(pending):
    module = Module("lazy_eval")
    module._counter = pending[0].computation.module._counter
    comp = module.entry
    clone = {}
    leaf_param = {}
    args = []
    # Depth-first post-order from the pending values, operands in order, computed values
    # as leaves: with the parameters first, the order passes.topo_sort gives (so the
    # optimizer need not sort again: ``pruned``).
    order = []
    seen = set()
    for start in pending:
        if id(start) in seen:
            continue
        seen.add(id(start))
        path, operands = [start], [iter(start.operands)]
        while path:
            for o in operands[-1]:
                if id(o) not in seen:
                    seen.add(id(o))
                    path.append(o)
                    operands.append(iter(o.operands if o.value is None else ()))
                    break
            else:
                operands.pop()
                order.append(path.pop())

    params = comp.instructions             # the parameters, then everything else
    body = []
    for node in order:
        if node.value is not None:         # a computed value: one parameter per tensor
            key = id(node.value)
            p = leaf_param.get(key)
            if p is None:
                p = comp.add_parameter(_leaf_type(node), name=f"p{len(args)}")
                leaf_param[key] = p
                args.append(node.value)
            clone[id(node)] = p
            continue
        c = Instruction(node.op, [clone[id(o)] for o in node.operands], node.type,
                        dict(node.attrs), node.calls, comp)
        c.name = node.name
        body.append(c)
        clone[id(node)] = c
    comp.instructions = params + body
    roots = [clone[id(p)] for p in pending]
    if len(roots) == 1:
        comp.root = roots[0]
    else:
        comp.root = comp.add(Instruction("tuple", roots, tuple(r.type for r in roots)))
    key = _structure_key(comp, args) if len(order) <= _CACHE_MAX_INSTRUCTIONS else None
    hit = _CACHE.get(key) if key is not None else None
    if hit is None:
        passes.optimize(comp, root_default=False, entry=True, private=True,
                        pruned=not any(i.attrs.get("side_effect") for i in body))
        hit = (module, Executable(comp))
        if key is not None:
            if len(_CACHE) >= _CACHE_SIZE:
                _CACHE.popitem(last=False)
            _CACHE[key] = hit
    else:
        _CACHE.move_to_end(key)
    STATE.last_lazy = hit
    out = hit[1].run(args)
    outs = list(out) if len(roots) > 1 else [out]
    for p, v in zip(pending, outs):
        p.value = v
        p.operands = []     # the computed value is a leaf now: free what it read
        p.attrs = {}


def _leaf_type(node):
    return _type_of_tensor(node.value) if isinstance(node.value, Tensor) else node.type


# Compiled lazy modules by structure: a loop that builds the same expression over fresh
# tensors of the same types compiles once. At most _CACHE_SIZE, least recently used
# dropped first.
# Modules of more than _CACHE_MAX_INSTRUCTIONS instructions are not keyed (a graph that
# large rarely comes again; the key would cost ~5% of its compile): the lazy loop's
# automatic flushes (LazyGraph.FLUSH_DEPTH) stay under it and hit.
_CACHE = collections.OrderedDict()
_CACHE_SIZE = 64
_CACHE_MAX_INSTRUCTIONS = 8192


def clear_cache():
    _CACHE.clear()
    STATE.last_lazy = None


def _structure_key(comp, args):
    """A hashable description of comp (ops, types, wiring, attributes, small constants'
    bytes) and of the argument tensors' signatures."""
    index = {}
    parts = []
    for k, i in enumerate(comp.instructions):
        index[id(i)] = k
        if i.op == "parameter":
            parts.append(("P", _tensor.signature_of(args[i.attrs["number"]])))
            continue
        attrs = []
        for name, v in sorted(i.attrs.items()):
            if isinstance(v, Tensor):
                v = (v.dtype.str, v.shape, np.asarray(v).tobytes() if v.size <= 64 else id(v))
            attrs.append((name, v))
        parts.append((i.op, i.type, tuple(index[id(o)] for o in i.operands), tuple(attrs),
                      tuple(id(c) for c in i.calls)))
    return tuple(parts)


register(lazy_evaluate=evaluate)
