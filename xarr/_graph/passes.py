"""Graph passes over a traced computation, run in this order by ``optimize``:

1. ``simplify``  algebraic rewrites that are exact bit for bit:
                 x*1 -> x, x/1 -> x, x-0 -> x, x+0 -> x (integers; floats only for -0.0,
                 since -0.0 + 0.0 is +0.0), neg(neg(x)) -> x, convert to the same type -> x,
                 reshape(reshape(x)) -> reshape(x), transpose(transpose(x)) -> one
                 transpose, broadcast(broadcast(x)) -> one broadcast, identity
                 reshape/transpose/broadcast -> x, and scalar constant folding (an
                 elementwise op of scalar constants is computed now, by the eager kernel).
2. ``cse``       common-subexpression elimination (same op, operands, type, attributes;
                 small constants by value).
3. ``dce``       removes what the ROOT does not need.
4. ``assign_layouts``  every tensor result gets a layout: parameters keep the caller's, an
                 elementwise result follows its first same-shaped operand, a transpose is a
                 bitcast of its operand's layout; then consumers win: a value whose users
                 all want one layout (an elementwise user wants its own, a transpose user the
                 layout that makes it a bitcast, a jit ROOT the default) is produced in it.
5. ``fuse``      elementwise loop fusion (kind=kLoop) of whole DAGs, then multi-output fusion
                 (see ``fuse``'s docstring for the rule).
Sub-computations (while/cond/call bodies) are optimized the same way.
"""

import bisect

import numpy as np

from xarr import _tensor
from xarr._bindings.elementwise import run_elementwise
from xarr._bindings.fused import MAX_FUSED_OPERANDS
from xarr._dtypes import CODE_OF, DTYPES, KINDS
from xarr._graph.ir import Instruction, TensorType
from xarr._graph.algebra import (ViewRewriter, is_value, new_constant, pow_special,
                                 scalar_value)
from xarr._graph.output_fusion import fuse_into_dots
from xarr._registry import REGISTRY, elementwise_ops, ops_of_class

# The op registry's fusion classes (xarr/_registry.py), taken when this module is imported:
# every row of the classes read here (elementwise ops, convert, broadcast, iota,
# constant) is registered before (xarr/__init__.py imports the op families first).
KERNEL_OPS = elementwise_ops()      # elementwise ops with a kernel: {name: ElementwiseOp}


def is_elementwise(op):
    """Elementwise kernel ops and convert: fused into kLoop fusions."""
    return op in _ELEMENTWISE_OPS


_ELEMENTWISE_OPS = frozenset(ops_of_class("elementwise"))


def is_leaf(op):
    """broadcast, iota, constant: recomputed inside every fusion that reads them."""
    return op in _LEAF_OPS


_LEAF_OPS = frozenset(ops_of_class("leaf"))


def is_view(op):
    """Whether the op's executable step may return a view of its first operand."""
    row = REGISTRY.get(op)
    return row is not None and row.view


# kind=kInput: a monoid reduction a producer fuses into, and the executor's reduce op.
INPUT_FUSION_MONOIDS = {"add": "SUM", "max": "MAX", "min": "MIN"}
MAX_FUSION_OPERANDS = MAX_FUSED_OPERANDS   # kernel inputs + outputs (C++ limit)
MAX_FUSION_TEMPS = 16


# ------------------------------------------------------------------------ utilities
def topo_sort(comp):
    """Reorders comp.instructions: everything reachable from the ROOT (and every parameter
    and side-effecting instruction), operands before users, in depth-first order of the
    operands (so the order depends on the graph only); unreachable instructions go."""
    order = []
    state = {}                       # id -> OPEN while its operands are visited, else DONE
    keep = [i for i in comp.instructions if i.op == "parameter" or i.attrs.get("side_effect")]
    for start in keep + [comp.root]:
        if id(start) in state:
            continue
        state[id(start)] = _OPEN
        path, operands = [start], [iter(start.operands)]
        while path:
            for op in operands[-1]:
                s = state.get(id(op))
                if s is None:
                    state[id(op)] = _OPEN
                    path.append(op)
                    operands.append(iter(op.operands))
                    break
                if s is _OPEN:
                    raise AssertionError(f"graph cycle through {op.name} and "
                                         f"{path[-1].name} (a pass bug)")
            else:
                node = path.pop()
                operands.pop()
                state[id(node)] = _DONE
                order.append(node)
    comp.instructions = order


_OPEN, _DONE = object(), object()


class Rewiring:
    """Replacements of instructions, applied to their users in one pass (passes stay
    linear in graph size). ``replace(old, new)`` records one; ``current(x)`` is what x
    stands for now (chains a -> b -> c resolve to c); ``apply(comp)`` rewires every
    operand and the ROOT of comp. A pass visiting instructions in topological order calls
    ``rewire(instr)`` first, so each instruction sees its operands' replacements."""

    def __init__(self):
        self._new = {}          # id(old) -> (old, new): old kept alive so ids stay unique

    def __bool__(self):
        return bool(self._new)

    def replace(self, old, new):
        self._new[id(old)] = (old, new)

    def current(self, x):
        hit = self._new.get(id(x))
        while hit is not None:
            x = hit[1]
            hit = self._new.get(id(x))
        return x

    def rewire(self, instr):
        new = self._new
        if new and any(id(o) in new for o in instr.operands):
            instr.operands = [self.current(o) for o in instr.operands]

    def apply(self, comp, instructions=None):
        """Rewires comp's instructions (or only ``instructions`` of it) and its ROOT."""
        if self._new:
            for i in comp.instructions if instructions is None else instructions:
                self.rewire(i)
            comp.root = self.current(comp.root)


def dce(comp):
    topo_sort(comp)


# ------------------------------------------------------------------------ simplify
def simplify(comp):
    """Rewrites instructions by the rules of _simplify_one until none applies; returns
    whether any did."""
    changed = True
    any_change = False
    while changed:
        changed = False
        rewiring = Rewiring()
        views = ViewRewriter(comp)
        for instr in list(comp.instructions):
            rewiring.rewire(instr)
            if instr.op in ("slice", "reshape"):
                new = views.rewrite(instr)
            else:
                new = _simplify_one(comp, instr) or views.split(instr)
            if new is not None and new is not instr:
                rewiring.replace(instr, new)
                changed = True
        if changed:
            any_change = True
            rewiring.apply(comp)
            topo_sort(comp)
    return any_change


def _simplify_one(comp, i):
    op, ops = i.op, i.operands
    if ops and ops[0].op == "constant" and op in KERNEL_OPS and \
            all(o.op == "constant" and o.dims == () for o in ops):
        return _fold(comp, i)
    if op == "convert" and ops[0].code == i.code:
        return ops[0]
    if op == "convert" and ops[0].op == "constant" and ops[0].dims == ():
        out = _tensor.empty((), i.code)
        _tensor.convert_into(out, ops[0].attrs["value"])
        return new_constant(comp, out)
    if op == "neg" and ops[0].op == "neg":
        return ops[0].operands[0]
    if len(ops) == 2 and op in ("mul", "add", "sub", "div"):
        a, b = ops
        kind = KINDS[i.code]
        if op == "mul" and kind != "c":
            if is_value(b, 1) and a.type == i.type:
                return a
            if is_value(a, 1) and b.type == i.type:
                return b
        if op == "div" and kind != "c" and is_value(b, 1) and a.type == i.type:
            return a
        if op == "sub" and kind in "iuf" and is_value(b, 0, negative_zero=False) \
                and a.type == i.type:
            return a
        if op == "add" and kind in "biuf":
            nz = True if kind == "f" else None   # floats: only x + (-0.0) is exact
            if is_value(b, 0, nz) and a.type == i.type:
                return a
            if is_value(a, 0, nz) and b.type == i.type:
                return b
    if op == "pow":
        return pow_special(comp, i)
    if op == "dynamic_update_slice" and ops[1].dims == i.dims:
        return ops[1]           # an update of the whole operand is the update (x[...] = v)
    if op == "transpose":
        perm = i.attrs["permutation"]
        src = ops[0]
        if src.op == "transpose":
            inner = src.attrs["permutation"]
            i.operands = [src.operands[0]]
            i.attrs = {"permutation": tuple(inner[p] for p in perm)}
            perm = i.attrs["permutation"]
            src = i.operands[0]
        if perm == tuple(range(len(perm))):
            return src
    if op == "broadcast":
        src = ops[0]
        dims = i.attrs["dimensions"]
        if src.op == "broadcast":
            inner = src.attrs["dimensions"]
            i.operands = [src.operands[0]]
            i.attrs = {"dimensions": tuple(dims[d] for d in inner)}
            return i
        if src.dims == i.dims and dims == tuple(range(len(dims))):
            return src
    return None


def _code(t):
    return CODE_OF[t.dtype]


def _fold(comp, i):
    """An elementwise op of scalar constants, computed now by the eager kernel."""
    opdef = KERNEL_OPS[i.op]
    ins = [o.attrs["value"] for o in i.operands]
    code = opdef.value_code([_code(x) for x in ins])
    out = _tensor.empty((), i.code)
    run_elementwise(opdef.code, code, out, ins)
    return new_constant(comp, out)


# ------------------------------------------------------------------------ CSE
def cse(comp):
    """Common subexpressions: an instruction equal to an earlier one (op, operands, type,
    attributes) is replaced by it. Returns whether any was."""
    seen = {}
    rewiring = Rewiring()
    for instr in list(comp.instructions):
        rewiring.rewire(instr)
        if instr.op == "parameter" or instr.attrs.get("side_effect") or instr.calls and \
                instr.op not in ("map", "call"):
            continue
        if instr.op == "constant":
            v = instr.attrs["value"]
            if v.size > 64:
                continue
            key = ("constant", instr.type, np.asarray(v).tobytes())
        else:
            key = (instr.op, tuple(map(id, instr.operands)), instr.type,
                   _freeze(instr.attrs), tuple(map(id, instr.calls)))
        prev = seen.get(key)
        if prev is None:
            seen[key] = instr
        else:
            rewiring.replace(instr, prev)
    if rewiring:
        rewiring.apply(comp)
        topo_sort(comp)
        return True
    return False


def _freeze(attrs):
    if not attrs:
        return ()
    return tuple(sorted(((k, _hashable(v)) for k, v in attrs.items() if k != "kernel"),
                        key=lambda kv: kv[0]))


def _hashable(v):
    """v as a CSE key part: lists as tuples; unhashable objects (a custom call's ctypes
    function) by identity."""
    if isinstance(v, list):
        v = tuple(v)
    try:
        hash(v)
    except TypeError:
        return ("id", id(v))
    return v


# ------------------------------------------------------------------------ layouts
def _default(n):
    return None


def assign_layouts(comp, root_default=True):
    """See the module docstring (pass 4). Layouts are stored in instr.type.m2m."""
    def set_m2m(instr, m2m):
        t = instr.type
        if m2m is not None:
            m2m = tuple(m2m)
            if m2m == tuple(range(len(t.dims) - 1, -1, -1)):
                m2m = None
        if t.m2m != m2m:
            instr.type = TensorType(t.code, t.dims, m2m)

    # Every value row-major and no transpose (most graphs; a 10^5-instruction lazy chain):
    # the passes below would keep every layout as it is; only tuples' types are re-derived.
    if all(i.op != "transpose" and (i.is_tuple or i.type.m2m is None)
           for i in comp.instructions):
        for i in comp.instructions:
            if i.op == "tuple":
                i.type = tuple(o.type for o in i.operands)
        return
    # Forward: follow the inputs.
    for i in comp.instructions:
        if i.is_tuple or i.op in ("parameter", "constant"):
            continue
        if i.op == "transpose":
            src = i.operands[0]
            perm = i.attrs["permutation"]
            inv = {p: k for k, p in enumerate(perm)}
            set_m2m(i, [inv[d] for d in src.type.layout])
        elif is_elementwise(i.op):
            m2m = None
            for o in i.operands:
                if not o.is_tuple and o.dims == i.dims and o.type.m2m is not None:
                    m2m = o.type.m2m
                    break
            set_m2m(i, m2m)
        else:
            set_m2m(i, None)
    # Backward: consumers win.
    users = comp.users()
    wants = {}
    root_outputs = [comp.root] if not comp.root.is_tuple else \
        (list(comp.root.operands) if comp.root.op == "tuple" else [])
    for r in root_outputs:
        if root_default:
            wants.setdefault(id(r), set()).add(None)
    for i in reversed(comp.instructions):
        if i.is_tuple or i.op in ("parameter", "constant"):
            continue
        w = wants.get(id(i), set())
        for u in users[i]:
            if is_elementwise(u.op):
                w.add(u.type.m2m if u.dims == i.dims else "any")
            elif u.op == "transpose":
                perm = u.attrs["permutation"]
                w.add(tuple(perm[d] for d in u.type.layout))
            else:
                w.add("any")
        w.discard("any")
        if len(w) == 1 and is_elementwise(i.op):
            (m2m,) = w
            set_m2m(i, m2m)
            if i.op == "transpose":
                continue
    # Re-derive transposes after the backward pass (a transpose's layout is its operand's),
    # and tuples' types from their operands' (operands come first: one pass suffices).
    for i in comp.instructions:
        if i.op == "transpose":
            src = i.operands[0]
            perm = i.attrs["permutation"]
            inv = {p: k for k, p in enumerate(perm)}
            set_m2m(i, [inv[d] for d in src.type.layout])
        elif i.op == "tuple":
            i.type = tuple(o.type for o in i.operands)


# ------------------------------------------------------------------------ fusion
def fusible(i):
    if type(i.type) is not TensorType:
        return False
    op = i.op
    opdef = KERNEL_OPS.get(op)
    if opdef is not None:
        key = (op,) + tuple([o.type.code for o in i.operands])
        ok = _ACCEPTS.get(key)
        if ok is None:
            ok = _ACCEPTS[key] = opdef.accepts(opdef.value_code(list(key[1:])))
        return ok
    return is_elementwise(op) or is_leaf(op)


_ACCEPTS = {}     # (op, operand dtype codes...) -> whether the kernel takes them


class Group:
    """A fusion under construction: members (instructions of one iteration shape), outputs
    (members whose value is needed outside) and what it reads from outside, kept current
    as members join so that each join costs O(its operands): ``inputs`` {key: instruction}
    (leaves expanded to their operands; equal iotas share a key) and ``constants`` (the
    scalar constants it reads, by id). ``lo``/``hi``: its members' first and last
    positions in the computation."""

    def __init__(self, root, position):
        self.members = [root]
        self.member_ids = {id(root)}
        self.shape = root.dims
        self.outputs = [root]
        self.inputs = {}
        self.constants = set()
        _reads(root, self.member_ids, self.inputs, self.constants)
        self.lo = self.hi = position

    def join(self, instr, position, max_operands):
        """Adds ``instr`` unless the kernel would then have more than max_operands
        operands (inputs, outputs, scalar constants); returns whether it did."""
        inputs, constants = {}, set()
        _reads(instr, self.member_ids, inputs, constants)
        mine = self.inputs
        new_inputs = [k for k in inputs if k not in mine]
        new_constants = constants - self.constants
        n = (len(mine) - (id(instr) in mine) + len(new_inputs) + len(self.outputs)
             + len(self.constants) + len(new_constants))
        if n > max_operands:
            return False
        self.members.append(instr)
        self.member_ids.add(id(instr))
        mine.pop(id(instr), None)
        for k in new_inputs:
            mine[k] = inputs[k]
        self.constants |= new_constants
        if position < self.lo:
            self.lo = position
        elif position > self.hi:
            self.hi = position
        return True

    def merge(self, other, outputs, inputs):
        """Takes in ``other``'s members; ``outputs`` and ``inputs`` (_merged_inputs(self,
        other)) are the merged group's."""
        self.members = other.members + self.members
        self.member_ids = self.member_ids | other.member_ids
        self.inputs = inputs
        self.constants = self.constants | other.constants
        self.outputs = outputs
        self.lo, self.hi = min(self.lo, other.lo), max(self.hi, other.hi)


def _reads(instr, member_ids, inputs, constants):
    """Adds what ``instr`` reads from outside the group ``member_ids`` to ``inputs`` (key ->
    instruction, see Group) and the scalar constants it reads to ``constants``."""
    for o in instr.operands:
        while True:
            oid = id(o)
            if oid in member_ids:
                break
            op = o.op
            if op in _LEAF_OPS and type(o.type) is not tuple:
                if op == "constant" and not o.type.dims:
                    constants.add(oid)
                    break
                if op == "iota":
                    inputs.setdefault(("iota", o.type.dims, o.attrs["iota_dimension"],
                                       o.type.code), o)
                    break
                if op == "broadcast":
                    o = o.operands[0]
                    continue
            inputs.setdefault(oid, o)
            break


def _merged_inputs(a, b):
    ids = a.member_ids | b.member_ids
    out = {k: v for k, v in b.inputs.items() if k not in ids}
    for k, v in a.inputs.items():
        if k not in ids:
            out.setdefault(k, v)
    return out


# Bounds that keep fusion linear in graph size: a fusion has at most MAX_FUSION_MEMBERS
# instructions (a longer elementwise chain, e.g. a lazy loop of x = x + 1, becomes
# several fusions, each materialized once), and multi-output merging only considers
# fusions whose members lie within MERGE_WINDOW instructions of each other (the cycle
# check walks the instructions between them).
MAX_FUSION_MEMBERS = 256
MERGE_WINDOW = 1024


def fuse(comp, private=False):
    """Elementwise loop fusion (``private``: see optimize). The rule:

    * Fusible: elementwise ops (with compare, select, clamp), convert, broadcast, iota and
      constants. A fusion has one iteration shape: its members all have the shape of its
      outputs; broadcast, iota and constant are leaves read from their (small) operands.
    * Consumers first (reverse topological order): an instruction joins the fusion of its
      users when all its users are in that one fusion; otherwise it starts its own, whose
      result is materialized once and read by every user. So no work is ever duplicated
      except the cheap leaves (broadcast/iota/constant), which every consuming fusion
      recomputes from their operands rather than reading a materialized copy.
    * Multi-output: a fusion whose output only feeds other fusions of the same shape (and
      the outside) merges into its consumer, and sibling fusions of the same shape that
      read a common input merge, both only when no path through a third instruction
      would make a cycle and the operand limit allows. The merged fusion writes every
      value needed outside as one of its outputs.
    * Size: see MAX_FUSION_MEMBERS and MERGE_WINDOW (every step is linear in graph size).
    """
    users = comp.users()
    position = {id(i): k for k, i in enumerate(comp.instructions)}
    group_of = {}
    groups = []
    root_outputs = {id(comp.root)}
    if comp.root.op == "tuple":
        root_outputs |= {id(o) for o in comp.root.operands}
    for instr in reversed(comp.instructions):
        if not fusible(instr):
            continue
        op = instr.op
        if op == "constant" and not instr.type.dims:
            continue
        us = users[instr]
        g = None           # the one fusion every user is in, if there is one (else False)
        all_inside = True  # every user is in some fusion
        for u in us:
            gu = group_of.get(id(u))
            if gu is None:
                all_inside = g = False
                break
            if g is None:
                g = gu
            elif gu is not g:
                g = False
        if op in _LEAF_OPS and all_inside and id(instr) not in root_outputs:
            continue       # duplicated into each consuming fusion
        if op == "constant":
            continue       # a non-scalar constant used outside a fusion stays a constant
        if g and id(instr) not in root_outputs and g.shape == instr.type.dims and \
                len(g.members) < MAX_FUSION_MEMBERS and \
                g.join(instr, position[id(instr)], MAX_FUSION_OPERANDS):
            group_of[id(instr)] = g
            continue
        g = Group(instr, position[id(instr)])
        group_of[id(instr)] = g
        groups.append(g)
    groups = _multi_output(comp, groups, group_of, users, root_outputs, position)
    rewiring = Rewiring()
    for g in groups:
        g.members.sort(key=lambda m: position[id(m)])
        _outline(comp, g, users, root_outputs, rewiring, private)
    # (members are replaced by their fusions and dropped: only the rest is rewired)
    rewiring.apply(comp, [i for i in comp.instructions if id(i) not in group_of])
    topo_sort(comp)
    fuse_into_reductions(comp)
    if fuse_into_dots(comp):
        topo_sort(comp)
        dce(comp)


def fuse_into_reductions(comp):
    """kind=kInput: a single-output kLoop fusion read only by a reduction (a monoid in
    INPUT_FUSION_MONOIDS with a constant init, over the trailing dims of a row-major
    iteration) becomes one fusion whose ROOT is the reduction, so the executor reduces
    each block as it computes it: one pass over memory, no intermediate array. An init
    value that is not the monoid's exact identity is applied to the reduced result (a
    scalar epilogue of the same kernel step)."""
    users = comp.users()
    reductions = ops_of_class("reduction")
    rewiring = Rewiring()
    for r in list(comp.instructions):
        if r.op not in reductions or r.attrs.get("monoid") not in INPUT_FUSION_MONOIDS:
            continue
        f, init = r.operands
        if f.op != "fusion" or f.attrs.get("kind") != "kLoop" or f.is_tuple or \
                len(users[f]) != 1:
            continue
        dims = r.attrs["dimensions"]
        n = len(f.dims)
        # (the fusion's own output layout does not matter: it is never materialized)
        if tuple(sorted(dims)) != tuple(range(n - len(dims), n)):
            continue
        if any(not p.is_tuple and p.type.m2m is not None for p in f.operands):
            continue
        if scalar_value(init) is None:
            continue
        fused = f.calls[0]
        root = fused.root
        c_init = Instruction("constant", (), init.type, dict(init.attrs))
        fused.add(c_init)
        red = Instruction("reduce", [root, c_init], r.type, dict(r.attrs),
                          [r.attrs["computation"]] if r.attrs.get("computation") else [])
        fused.add(red)
        fused.root = red
        f.type = r.type
        f.attrs = dict(f.attrs, kind="kInput")
        rewiring.replace(r, f)
    if rewiring:
        rewiring.apply(comp)
        topo_sort(comp)


def is_identity(init, monoid):
    """Whether the scalar constant ``init`` is exactly the monoid's identity (so applying
    it changes no bit: -0.0 for float add, -inf / +inf or the integer extremes)."""
    v = scalar_value(init)
    if v is None:
        return False
    if monoid == "add":   # -0.0 is the float identity (x + -0.0 == x, also for x = -0.0)
        return v == 0 and (not isinstance(v, float) or bool(np.signbit(v)))
    if monoid == "max":
        return v == float("-inf") or (isinstance(v, (int, bool)) and
                                      v == _int_extreme(init.code, low=True))
    return v == float("inf") or (isinstance(v, (int, bool)) and
                                 v == _int_extreme(init.code, low=False))


def _int_extreme(code, low):
    dt = DTYPES[code]
    if dt == np.bool_:
        return False if low else True
    if dt.kind not in "iu":
        return None
    info = np.iinfo(dt)
    return int(info.min if low else info.max)


def _inputs_of(g):
    """Instructions read by group g from outside, in the order its members read them
    (leaves expanded to their operands): the fusion's parameters."""
    inputs = {}
    for m in g.members:
        _reads(m, g.member_ids, inputs, set())
    return list(inputs.values())


# Nodes one _reaches walk may visit before it answers "a path exists" (the merge is then
# skipped): a graph of many small groups (short-vector arithmetic unrolled over steps)
# made the walks, one per candidate pair, quadratic.
REACH_BUDGET = 2000


def _reaches(start_ids, target_ids, excluded_ids, users, group_of, position, last):
    """Whether a path from instructions start_ids leads to target_ids through at least
    one instruction outside excluded_ids. A path that enters another fusion group leaves
    it from any of its members (once outlined, the group is one instruction whose users
    depend on all of its inputs): merging a and b while a -> c -> b for a third group c
    would make the cycle ab -> c -> ab. Instructions after position ``last`` (the
    targets' last) cannot lead to a target and are not walked, unless their group
    starts before it."""
    stack = [(u, False) for s in start_ids for u in users.get(s, ())]
    seen = set()
    groups_seen = set()
    budget = REACH_BUDGET
    while stack:
        budget -= 1
        if budget < 0:
            return True         # (walked too far to tell cheaply: assume a path, keep apart)
        node, outside = stack.pop()
        nid = id(node)
        if nid in target_ids:
            if outside:
                return True
            continue
        if position[nid] > last:
            g = group_of.get(nid)      # a group is left from any member: its first counts
            if g is None or g.lo > last:
                continue
        key = (nid, outside or nid not in excluded_ids)
        if key in seen:
            continue
        seen.add(key)
        now_outside = outside or nid not in excluded_ids
        for u in users.get(nid, ()):
            stack.append((u, now_outside))
        g = group_of.get(nid) if nid not in excluded_ids else None
        if g is not None and (id(g), now_outside) not in groups_seen:
            groups_seen.add((id(g), now_outside))
            for m in g.members:
                for u in users.get(id(m), ()):
                    stack.append((u, now_outside))
    return False


def _merge_candidates(a, group_of, users, readers):
    """The groups a may merge with: the groups reading one of a's outputs (a produces into
    them) and, within MERGE_WINDOW of a, those reading one of a's inputs (siblings)."""
    found = {}
    for o in a.outputs:
        for u in users[o]:
            g = group_of.get(id(u))
            if g is not None:
                found[id(g)] = g
    for v in a.inputs.values():
        positions, instrs = readers(v)
        first = bisect.bisect_left(positions, a.hi - MERGE_WINDOW)
        last = bisect.bisect_right(positions, a.lo + MERGE_WINDOW)
        for u in instrs[first:last]:
            g = group_of.get(id(u))
            if g is not None:
                found[id(g)] = g
    found.pop(id(a), None)
    return found.values()


class _Readers:
    """readers(v) -> (positions, instructions): the instructions reading v, directly or
    through broadcasts, in order (for a bisection by position); computed when asked."""

    def __init__(self, users, position):
        self.users = users
        self.position = position
        self.memo = {}

    def __call__(self, v):
        hit = self.memo.get(id(v))
        if hit is None:
            found = []
            stack = [v]
            while stack:
                x = stack.pop()
                for u in self.users.get(x, ()):
                    found.append(u)
                    if u.op == "broadcast":
                        stack.append(u)
            found = sorted({id(u): u for u in found}.values(),
                           key=lambda u: self.position[id(u)])
            hit = self.memo[id(v)] = ([self.position[id(u)] for u in found], found, v)
        return hit[0], hit[1]


def _multi_output(comp, groups, group_of, users, root_outputs, position):
    by_id = {id(i): us for i, us in users.items()}
    readers = _Readers(users, position)
    rank = {id(g): k for k, g in enumerate(groups)}
    alive = set(rank)
    merged = True
    while merged:
        merged = False
        for a in list(groups):
            if id(a) not in alive:
                continue
            for b in sorted(_merge_candidates(a, group_of, users, readers),
                            key=lambda g: rank[id(g)]):
                if id(b) not in alive or a.shape != b.shape or \
                        max(a.hi, b.hi) - min(a.lo, b.lo) > MERGE_WINDOW or \
                        len(a.members) + len(b.members) > MAX_FUSION_MEMBERS:
                    continue
                producer = any(group_of.get(id(u)) is b for o in a.outputs for u in users[o])
                sibling = not producer and \
                    {id(x) for x in a.inputs.values()} & {id(x) for x in b.inputs.values()} \
                    and not any(group_of.get(id(u)) is a for o in b.outputs for u in users[o])
                if not producer and not sibling:
                    continue
                both = a.member_ids | b.member_ids
                ids_a = [id(m) for m in a.members]
                ids_b = [id(m) for m in b.members]
                if _reaches(ids_a, b.member_ids, both, by_id, group_of, position, b.hi) or \
                        _reaches(ids_b, a.member_ids, both, by_id, group_of, position, a.hi):
                    continue
                outputs = _merged_outputs(a, b, users, group_of, root_outputs)
                inputs = _merged_inputs(b, a)
                if len(inputs) + len(outputs) + len(a.constants | b.constants) > \
                        MAX_FUSION_OPERANDS:
                    continue
                b.merge(a, outputs, inputs)
                for m in a.members:
                    group_of[id(m)] = b
                alive.discard(id(a))
                merged = True
                break
        groups = [g for g in groups if id(g) in alive]
    return groups


def _merged_outputs(a, b, users, group_of, root_outputs):
    out = []
    for o in a.outputs + b.outputs:
        needed = id(o) in root_outputs or any(group_of.get(id(u)) not in (a, b)
                                              for u in users[o])
        if needed and o not in out:
            out.append(o)
    return out


def _outline(comp, g, users, root_outputs, rewiring, private=False):
    """Replaces group g's members by one fusion instruction calling a new fused
    computation; values needed outside come out of it (a tuple when several). The
    replacements are recorded in ``rewiring``, applied once every group is outlined to
    the instructions left outside fusions (members are not rewired: they are dropped).
    ``private``: the members themselves move into the fused computation."""
    module = comp.module
    fused = module.new_computation("fused_computation")
    inputs = _inputs_of(g)
    clone = {}
    for k, x in enumerate(inputs):
        if x.op == "iota":
            continue
        p = Instruction("parameter", (), x.type, {"number": len(fused.parameters)})
        p.name = f"param_{len(fused.parameters)}.{module.unique_name('p').split('.')[1]}"
        fused.parameters.append(p)
        fused.add(p)
        clone[id(x)] = p
    operands = [x for x in inputs if x.op != "iota"]

    def cloned(o):
        c = clone.get(id(o))
        if c is not None:
            return c
        # a leaf or scalar constant copied into the fused computation
        c = Instruction(o.op, [cloned(x) for x in o.operands], o.type, dict(o.attrs))
        c.name = o.name
        fused.add(c)
        clone[id(o)] = c
        return c

    for m in g.members:
        reads = [cloned(o) for o in m.operands]
        if private:
            c = m
            c.operands = reads
            c.computation = fused
        else:
            c = Instruction(m.op, reads, m.type, dict(m.attrs), (), fused)
            c.name = m.name
        fused.instructions.append(c)       # (fused.add, the name already set)
        clone[id(m)] = c
    # outputs: every member needed outside the group
    member_ids = g.member_ids
    outs = [m for m in g.members if id(m) in root_outputs or
            any(id(u) not in member_ids for u in users[m])] or list(g.outputs)
    if len(outs) == 1:
        fused.root = clone[id(outs[0])]
        ftype = outs[0].type
    else:
        t = Instruction("tuple", [clone[id(o)] for o in outs], tuple(o.type for o in outs))
        fused.add(t)
        fused.root = t
        ftype = tuple(o.type for o in outs)
    fusion = Instruction("fusion", operands, ftype, {"kind": "kLoop"}, calls=[fused])
    comp.add(fusion)          # (placed by the topological sort that follows)
    if len(outs) == 1:
        rewiring.replace(outs[0], fusion)
    else:
        for k, o in enumerate(outs):
            gte = Instruction("get_tuple_element", [fusion], o.type, {"index": k})
            comp.add(gte)
            rewiring.replace(o, gte)


# ------------------------------------------------------------------------ driver
# Ops whose called computations are scalar functions their impls evaluate as traced
# (reduction.py _vectorized): the pipeline leaves them unfused.
SCALAR_COMPUTATION_OPS = ("map", "reduce", "reduce_window", "select_and_scatter", "scatter",
                          "sort")


def optimize_module(module, root_default=True):
    """The pipeline for a traced module (entry computation and everything it calls)."""
    optimize(module.entry, root_default, entry=True)


def optimize(comp, root_default=True, entry=False, called=False, pruned=False,
             private=False):
    """Runs every pass on comp and on the computations it calls (``called``: comp is the
    body of a call / conditional / while instruction; ``pruned``: comp holds only what its
    ROOT needs, in topological order, as lazy evaluation's copy does, so dead-code
    elimination runs only if an earlier pass changed the graph; ``private``: nothing
    outside holds comp's instructions, as for that copy, so fusion moves them into the
    fused computations instead of copying them; a jit trace's escaped values still
    refer to theirs)."""
    for i in comp.instructions:
        for sub in i.calls:
            if i.op not in SCALAR_COMPUTATION_OPS:   # scalar computations stay as traced
                optimize(sub, root_default=False, called=True)
    n = len(comp.instructions)
    changed = _inline_maps(comp)
    changed = simplify(comp) or changed
    changed = cse(comp) or changed
    if changed or not pruned or len(comp.instructions) != n:
        dce(comp)
    if entry or called:
        protect_outputs(comp, called=called and not entry)
    assign_layouts(comp, root_default)
    fuse(comp, private)


def protect_outputs(comp, called=False):
    """A result that is an argument or a constant (or a view of one) is copied, so the
    caller never gets an alias of its input or of a cached constant. In a ``called``
    computation (call / conditional / while body) a parameter returned as it is is left
    alone: the executor copies results that ARE its operands (compile._unaliased), and a
    loop that carries a value unchanged should not copy it every iteration; views of
    parameters and constants are copied."""
    outs = list(comp.root.operands) if comp.root.op == "tuple" else [comp.root]
    new = []
    seen = set()            # the entry's results: two of them never share a buffer
    for o in outs:
        base = o
        while True:
            if is_view(base.op):
                base = base.operands[0]
            elif base.op == "get_tuple_element" and base.operands[0].op == "opt_barrier":
                base = base.operands[0].operands[base.attrs["index"]]
            else:
                break
        shared = not called and id(base) in seen      # (return u, u after CSE / x[...] = u)
        seen.add(id(base))
        if called and base is o and base.op == "parameter":
            pass
        elif shared or base.op in ("parameter", "constant", "broadcast"):
            c = Instruction("copy", [o], TensorType(o.code, o.dims, None))
            comp.add(c)
            o = c
        new.append(o)
    if any(a is not b for a, b in zip(new, outs)):
        if comp.root.op == "tuple":
            comp.root.operands = new
        else:
            comp.root = new[0]
        topo_sort(comp)


def _inline_maps(comp):
    """A map of a scalar elementwise computation becomes those elementwise ops over the
    whole operands (so fusion runs it on the fused executor): the computation is walked
    over the map's operands (Computation.walk), each instruction added with the map's
    shape (the topological sort that follows places them). Returns whether any map was
    inlined."""
    rewiring = Rewiring()
    for i in list(comp.instructions):
        rewiring.rewire(i)
        if i.op != "map":
            continue

        def emit(s, ops, i=i):
            if s.op == "constant":
                return comp.add(Instruction("constant", (), s.type, dict(s.attrs)))
            ops = [o if o.dims == i.dims else comp.add(Instruction(
                "broadcast", [o], TensorType(o.code, i.dims, None),
                {"dimensions": ()})) for o in ops]
            return comp.add(Instruction(s.op, ops, TensorType(s.code, i.dims, None),
                                        dict(s.attrs)))
        rewiring.replace(i, i.calls[0].walk(i.operands, emit))
    if rewiring:
        rewiring.apply(comp)
        topo_sort(comp)
        return True
    return False
