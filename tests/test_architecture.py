"""The package's structure, as docs/architecture.md states it: imports run one way (no
module of xarr/ takes part in an import circle, imports inside functions counted), few
imports inside functions and each with its reason, no source file over 1,000 lines, every
entry point the lower layers call is registered, the op lists come from the registry, and
Tensor and Traced have the operators of one table."""

import ast
import operator
import re
from pathlib import Path

import numpy as np
import pytest

import xarr as xa
from op_reference import REFERENCE
from xarr import _dispatch, _methods
from xarr._graph.trace import Traced
from xarr._registry import REGISTRY, elementwise_ops, numpy_functions

SOURCE = Path(__file__).resolve().parent.parent / "xarr"
MAX_FUNCTION_IMPORTS = 10
MAX_LINES = 1000
LONG_FILES_ALLOWED = {"_shape.py"}   # one coherent XLA shape model (issue 10)


def _sources():
    if not (SOURCE / "_registry.py").is_file():
        pytest.skip("the xarr sources are not beside the tests")
    return sorted(p for p in SOURCE.rglob("*") if p.suffix in (".py", ".pyx", ".pxi", ".pxd")
                  and "include" not in p.relative_to(SOURCE).parts)


def _module_of(path):
    """The module a source file belongs to (a .pxi to the .pyx including it; a .pxd to its
    .pyx)."""
    rel = path.relative_to(SOURCE.parent).with_suffix("")
    parts = list(rel.parts)
    if path.suffix == ".pxi":
        parts[-1] = "_tensor"          # the tensor core's includes
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


COMPILED_ONLY = {"xarr._core"}        # the pybind11 module (csrc/bindings/core_module.cpp)


def _is_module(name):
    if name in COMPILED_ONLY:
        return True
    p = SOURCE.parent / Path(*name.split("."))
    return p.with_suffix(".py").is_file() or p.with_suffix(".pyx").is_file() or \
        (p / "__init__.py").is_file()


def _targets(module, names):
    """Modules an ``from module import names`` statement loads (xarr's only)."""
    if not (module == "xarr" or module.startswith("xarr.")):
        return []
    out = []
    for n in names:
        sub = f"{module}.{n}"
        out.append(sub if _is_module(sub) else module)
    return out


_CYTHON_IMPORT = re.compile(r"^(\s*)(?:from\s+([\w.]+)\s+c?import\s+(.+)|c?import\s+([\w.]+))")


def _imports(path):
    """[(target module, inside a function, line number, has a comment)] of a source file."""
    text = path.read_text()
    out = []
    if path.suffix == ".py":
        tree = ast.parse(text)
        lines = text.splitlines()

        def visit(node, in_fn):
            for child in ast.iter_child_nodes(node):
                fn = in_fn or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                 ast.Lambda))
                if isinstance(child, ast.Import):
                    targets = [a.name for a in child.names if a.name.startswith("xarr")]
                elif isinstance(child, ast.ImportFrom):
                    targets = _targets(child.module or "", [a.name for a in child.names])
                else:
                    visit(child, fn)
                    continue
                ln = child.lineno
                commented = "#" in lines[ln - 1] or lines[ln - 2].strip().startswith("#")
                out.append((targets, in_fn, ln, commented))
        visit(tree, False)
        return out
    lines = text.splitlines()
    k = 0
    while k < len(lines):
        m = _CYTHON_IMPORT.match(lines[k])
        if m:
            stmt = lines[k]
            while stmt.count("(") > stmt.count(")"):
                k += 1
                stmt += lines[k]
            m = _CYTHON_IMPORT.match(stmt)
            if m.group(2):
                names = [n.strip().split(" as ")[0] for n in
                         m.group(3).replace("(", "").replace(")", "").split(",") if n.strip()]
                targets = _targets(m.group(2), names)
                if m.group(2) == "xarr._capi":      # declarations only: nothing is imported
                    targets = []
            else:
                targets = [m.group(4)] if m.group(4).startswith("xarr") else []
            out.append((targets, bool(m.group(1)), k + 1, "#" in stmt))
        k += 1
    return out


def _graph():
    edges = {}
    function_imports = []
    for path in _sources():
        mod = _module_of(path)
        for targets, in_fn, line, commented in _imports(path):
            if in_fn:
                function_imports.append((path.relative_to(SOURCE.parent), line, commented))
            for t in targets:
                if t != mod:
                    edges.setdefault(mod, set()).add(t)
    return edges, function_imports


def _cycles(edges):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def connect(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))
    for v in sorted(edges):
        if v not in index:
            connect(v)
    return comps


def test_no_import_circle():
    edges, _ = _graph()
    assert edges["xarr"]                      # the parser sees the package's imports
    assert _cycles(edges) == []


def test_imports_inside_functions_are_few_and_explained():
    _, function_imports = _graph()
    assert len(function_imports) <= MAX_FUNCTION_IMPORTS, function_imports
    unexplained = [(str(p), ln) for p, ln, commented in function_imports if not commented]
    assert unexplained == []


def test_source_files_stay_short():
    long = [(str(p.relative_to(SOURCE)), n) for p in _sources()
            if (n := len(p.read_text().splitlines())) > MAX_LINES
            and p.name not in LONG_FILES_ALLOWED]
    assert long == []


def test_init_only_assembles():
    tree = ast.parse((SOURCE / "__init__.py").read_text())
    defined = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert defined == []


def test_every_entry_point_called_is_registered():
    used = set()
    for path in _sources():
        used |= set(re.findall(r"\bapi\.([a-z_]+)\b", path.read_text()))
    registered = set(vars(_dispatch.api))
    assert used - registered == set()


def test_op_reference_covers_the_registry():
    """Every elementwise op has its row in tests/op_reference.py (and only those)."""
    assert set(REFERENCE) == set(elementwise_ops())


def test_every_op_row_is_complete():
    for name, op in REGISTRY.items():
        assert op.fusion in ("elementwise", "leaf", "reduction", "structural", "opaque")
        if op.fusion == "structural":
            assert op.rule is not None and op.impl is not None, name
    for name, op in elementwise_ops().items():
        assert op.kernel in xa._core.ew_ops(), name
        assert op.arity == xa._core.ew_ops()[op.kernel][1], name
        if op.lax:
            assert getattr(xa.lax, op.lax).lax_op == name
    for name, (form, op) in numpy_functions().items():
        assert callable(getattr(xa, name)), name


def _operators(cls):
    return {n for n in dir(cls) if n.startswith("__") and n.endswith("__")}


def test_tensor_and_traced_share_the_operator_table():
    want = set()
    for stem, _ in _dispatch.BINARY_OPERATORS:
        want |= {f"__{stem}__", f"__r{stem}__"}
    for stem, _ in _dispatch.COMPARISON_OPERATORS + _dispatch.UNARY_OPERATORS:
        want.add(f"__{stem}__")
    assert want <= _operators(xa.Tensor)
    assert want <= _operators(Traced)
    for stem, _ in _dispatch.BINARY_OPERATORS:
        assert f"__i{stem}__" in _operators(xa.Tensor)
    whole = {"sum", "max", "min", "argmax", "argmin", "any", "all"}
    for name in _methods.NAMES:
        if name in whole:     # the kernel path of t.sum() ..., then _methods' (one def)
            assert getattr(xa.Tensor, name).__name__ == "_method_" + name
        else:
            assert getattr(xa.Tensor, name) is getattr(_methods, name)
        if name != "fill":
            assert getattr(Traced, name) is getattr(_methods, name)
    for name in _methods.MATMUL_OPERATORS:
        assert name in _operators(xa.Tensor)
        if name != "__imatmul__":  # a graph value is not written in place
            assert getattr(Traced, name) is getattr(_methods, name)


@pytest.mark.parametrize("stem,name", _dispatch.BINARY_OPERATORS)
def test_each_operator_is_its_numpy_function(stem, name):
    a = xa.asarray(np.array([[3, 5], [7, 9]], np.int32))
    b = xa.asarray(np.array([[2, 1], [3, 2]], np.int32))
    py = getattr(operator, {"truediv": "truediv", "and": "and_", "or": "or_"}.get(stem, stem))
    assert np.array_equal(np.asarray(py(a, b)), np.asarray(getattr(xa, name)(a, b)))
    f = xa.jit(lambda x, y: py(x, y))
    assert np.array_equal(np.asarray(f(a, b)), np.asarray(getattr(xa, name)(a, b)))
