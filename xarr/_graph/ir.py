"""The lazy graph's IR: an HLO-like module of uniquely named instructions (seed 002).

A ``Module`` holds computations; each ``Computation`` is a list of ``Instruction`` in
topological order with numbered parameters and a ROOT. An instruction has an op (a name
of the op registry, xarr/_registry.py: a lax elementwise name such as ``mul``, or a
structural op such as ``broadcast``), operands, a result type, attributes and called
sub-computations. Its text form is the seed's; the op's registry row gives its HLO opcode
and attributes:

    multiply.4 = f32[4096,4096]{1,0} multiply(p0, broadcast.3)
    fusion.9 = f32[4096,4096]{1,0} fusion(p0, p1, p2), kind=kLoop, calls=fused_computation.9

Result types are ``TensorType(code, dims, m2m)`` (dtype code of xarr/_dtypes.py, dims,
minor_to_major or None for the default row-major) or a tuple of types for tuple-valued
instructions (tuple, while, conditional, multi-output fusion...).
"""

import contextlib
import gc
from collections import namedtuple

import numpy as np

from xarr._dtypes import XLA_NAMES
from xarr._registry import attr_text, hlo_opcode


class TensorType(namedtuple("TensorType", "code dims m2m")):
    """Element type code, dims and minor_to_major (None: the default {n-1,...,0})."""

    __slots__ = ()

    @property
    def layout(self):
        return self.m2m if self.m2m is not None else tuple(range(len(self.dims) - 1, -1, -1))

    def text(self):
        dims = ",".join(str(d) for d in self.dims)
        if not self.dims:
            return f"{XLA_NAMES[self.code]}[]"
        return f"{XLA_NAMES[self.code]}[{dims}]{{{','.join(str(d) for d in self.layout)}}}"


def type_text(t):
    if isinstance(t, TensorType):
        return t.text()
    return "(" + ", ".join(type_text(x) for x in t) + ")"


class Instruction:
    """One node. ``value`` is set on lazy-graph nodes once computed (then they act as
    leaves); ``depth`` (lazy graph) is the length of the longest chain of instructions not
    computed yet that ends here."""

    __slots__ = ("op", "operands", "type", "attrs", "calls", "name", "computation", "value",
                 "depth", "__weakref__")

    def __init__(self, op, operands, type_, attrs=None, calls=(), computation=None):
        self.op = op
        self.operands = list(operands)
        self.type = type_
        self.attrs = attrs or {}
        self.calls = list(calls)
        self.computation = computation
        self.name = None
        self.value = None
        self.depth = 0

    @property
    def is_tuple(self):
        return not isinstance(self.type, TensorType)

    @property
    def dims(self):
        return self.type.dims

    @property
    def code(self):
        return self.type.code

    def __repr__(self):
        return f"<Instruction {self.name or self.op}: {type_text(self.type)}>"

    # --------------------------------------------------------------------- text
    def attr_text(self):
        """The ``, key=value`` suffix of the HLO text line (the op's registry row says
        which attributes it prints)."""
        return "".join(", " + p for p in attr_text(self))

    def operand_text(self):
        if self.op == "parameter":
            return str(self.attrs["number"])
        if self.op == "constant":
            return constant_text(self.attrs["value"])
        return ", ".join(o.name for o in self.operands)

    def text(self, root=False):
        return (f"{'ROOT ' if root else ''}{self.name} = {type_text(self.type)} "
                f"{hlo_opcode(self.op)}({self.operand_text()}){self.attr_text()}")


def constant_text(value):
    """A constant literal: ``2``, ``{1, 2, 3}``, or ``{...}`` when large."""
    arr = np.asarray(value)
    if arr.ndim == 0:
        v = arr.item()
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float):
            if v != v:
                return "nan"
            if v in (float("inf"), float("-inf")):
                return "inf" if v > 0 else "-inf"
            if v == 0 and np.signbit(v):
                return "-0"
            if v == int(v) and abs(v) < 1e16:
                return str(int(v))
        return str(v)
    if arr.size > 8:
        return "{...}"

    def rec(a):
        if a.ndim == 1:
            return "{" + ", ".join(constant_text(x) for x in a) + "}"
        return "{ " + ", ".join(rec(x) for x in a) + " }"
    return rec(arr)


class Computation:
    """A list of instructions in topological order, numbered parameters and a ROOT."""

    def __init__(self, name, module):
        self.name = name
        self.module = module
        self.instructions = []
        self.parameters = []
        self.root = None

    def add(self, instr):
        instr.computation = self
        if instr.name is None:
            instr.name = self.module.unique_name(hlo_opcode(instr.op))
        self.instructions.append(instr)
        return instr

    def add_parameter(self, type_, name=None):
        instr = Instruction("parameter", (), type_, {"number": len(self.parameters)})
        instr.name = name
        self.parameters.append(instr)
        return self.add(instr)

    def users(self):
        """{instruction: [users in this computation, in order]} (the ROOT has none)."""
        out = {i: [] for i in self.instructions}
        for i in self.instructions:
            for o in i.operands:
                if o in out:
                    out[o].append(i)
        return out

    def text(self, entry=False):
        lines = [f"{'ENTRY ' if entry else ''}{self.name} {{"]
        for i in self.instructions:
            lines.append("  " + i.text(root=i is self.root))
        lines.append("}")
        return "\n".join(lines)

    def walk(self, operands, emit):
        """Evaluates this computation over ``operands`` (one value per parameter): every
        other instruction, in order, becomes ``emit(instr, [its operands' values])``;
        returns the ROOT's value. The one evaluator of scalar computations: the reduce
        tree applies them to whole tensors (xarr/_ops/reduction.py), map inlining turns
        them into instructions of the enclosing graph (xarr/_graph/passes.py)."""
        env = {id(p): v for p, v in zip(self.parameters, operands)}
        for i in self.instructions:
            if i.op != "parameter":
                env[id(i)] = emit(i, [env[id(o)] for o in i.operands])
        return env[id(self.root)]

    def called_computations(self):
        """Every computation called from this one, callees first, each once."""
        seen, order = set(), []

        def visit(c):
            for i in c.instructions:
                for sub in i.calls:
                    if id(sub) not in seen:
                        seen.add(id(sub))
                        visit(sub)
                        order.append(sub)
        visit(self)
        return order


class Module:
    """An HLO module: an entry computation and the computations it calls."""

    def __init__(self, name):
        self.name = name
        self._counter = 0
        self.entry = Computation("main", self)

    def unique_name(self, prefix):
        self._counter += 1
        return f"{prefix}.{self._counter}"

    def new_computation(self, prefix):
        return Computation(self.unique_name(prefix), self)

    def as_text(self):
        """The module in seed-002 HLO text: called computations first, then ENTRY."""
        e = self.entry
        params = ", ".join(type_text(p.type) for p in e.parameters)
        head = (f"HloModule {self.name}, entry_computation_layout="
                f"{{({params})->{type_text(e.root.type)}}}")
        parts = [head, ""]
        for c in e.called_computations():
            parts += [c.text(), ""]
        parts.append(e.text(entry=True))
        return "\n".join(parts) + "\n"

    def as_dot(self):
        """Graphviz DOT of the entry computation (fusions drawn as clusters)."""
        lines = [f'digraph "{self.name}" {{', "  rankdir=TB;", "  node [shape=box];"]

        def node_id(c, i):
            return f'"{c.name}/{i.name}"'

        def emit(c, indent):
            for i in c.instructions:
                label = f"{i.name}\\n{type_text(i.type)}"
                style = ', style=filled, fillcolor="#e8f0ff"' if i.op == "fusion" else ""
                lines.append(f'{indent}{node_id(c, i)} [label="{label}"{style}];')
                for k, o in enumerate(i.operands):
                    lines.append(f"{indent}{node_id(c, o)} -> {node_id(c, i)} "
                                 f'[label="{k}"];')
        emit(self.entry, "  ")
        for n, c in enumerate(self.entry.called_computations()):
            lines.append(f'  subgraph "cluster_{n}" {{')
            lines.append(f'    label="{c.name}";')
            emit(c, "    ")
            lines.append("  }")
        lines.append("}")
        return "\n".join(lines) + "\n"


@contextlib.contextmanager
def gc_paused():
    """Python's cyclic garbage collector off while a graph is optimized and compiled: the
    passes allocate many long-lived objects, and the collections that would trigger walk
    every live object each time (a 10^5-instruction graph compiled ~25% slower)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
