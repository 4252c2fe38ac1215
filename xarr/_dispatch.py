"""Where the lowest layer reaches the op families: the operator and method tables that
``Tensor`` (xarr/_tensor.pyx) and the graph's ``Traced`` (xarr/_graph/trace.py) both
derive their Python protocol from, and the entry points the op families register.

This module imports nothing. The tensor type and the tracer sit below the op families
(docs/architecture.md, "The layers"), yet ``t + u``, ``t.sum()`` and ``t[mask]`` must run
code that lives above them. So the families register their functions here when they are
imported (``register(numpy_apply=...)``), and the lower layers call ``api.numpy_apply``
at call time (tests/test_architecture.py checks that every ``api.<name>`` the code calls
is registered by someone).

The operator tables are plain data so the build can read them too: CMake runs this file
(``python xarr/_dispatch.py out.pxi``) to write the Cython methods of
``TensorOperators``, Tensor's base class; ``install_operators`` gives ``Traced`` the same
operators at import. Worked example: the row ``("add", "add")`` of ``BINARY_OPERATORS``
gives ``Tensor.__add__`` (compiled fast path, then ``api.numpy_apply("add", t, u)``),
``Tensor.__radd__``, ``Tensor.__iadd__`` (compiled fast path, then ``api.inplace("add", t, u)``) and
``Traced.__add__`` / ``__radd__``.
"""

# (dunder stem, NumPy function): __stem__, __rstem__ and __istem__.
BINARY_OPERATORS = (
    ("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "divide"),
    ("floordiv", "floor_divide"), ("mod", "remainder"), ("pow", "power"),
    ("and", "bitwise_and"), ("or", "bitwise_or"), ("xor", "bitwise_xor"),
    ("lshift", "left_shift"), ("rshift", "right_shift"),
)
# (dunder stem, NumPy function): __stem__ only (Python reflects comparisons itself).
COMPARISON_OPERATORS = (
    ("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"),
    ("gt", "greater"), ("ge", "greater_equal"),
)
# (dunder stem, NumPy function)
UNARY_OPERATORS = (
    ("neg", "negative"), ("pos", "positive"), ("abs", "absolute"), ("invert", "invert"),
)

class _Api:
    """The registered entry points (attributes are set by ``register``). Who registers
    what: numpy_apply, binary, inplace, astype (xarr/_ops/elementwise.py); relayout,
    untile (xarr/_ops/layout.py); reshape, lax_transpose (xarr/_ops/structural.py);
    getitem, setitem, take, nonzero (xarr/_ops/indexing.py); asarray
    (xarr/_ops/conversion.py); dlpack_capsule (xarr/_bindings/dlpack.pyx); lazy_evaluate
    (xarr/_graph/lazy.py); the NumPy functions behind Tensor's methods (xarr/_numpy/);
    namespace (xarr/__init__.py)."""

    def __getattr__(self, name):
        raise RuntimeError(f"xarr internal error: no op family registered {name!r} "
                           f"(xarr/_dispatch.py)")


api = _Api()

def register(**entry_points):
    """Called by an op family at import: ``register(numpy_apply=numpy_apply)``."""
    for name, fn in entry_points.items():
        setattr(api, name, fn)


def install_operators(cls):
    """Gives a Python class (the graph's Traced) the operators of the tables above, each
    ``api.numpy_apply(name, ...)``. (Tensor's compiled ones come from operators_pxi.)"""
    def binary(name):
        return lambda self, other: api.numpy_apply(name, self, other)

    def reflected(name):
        return lambda self, other: api.numpy_apply(name, other, self)

    def unary(name):
        return lambda self: api.numpy_apply(name, self)

    for stem, name in BINARY_OPERATORS:
        setattr(cls, f"__{stem}__", binary(name))
        setattr(cls, f"__r{stem}__", reflected(name))
    for stem, name in COMPARISON_OPERATORS:
        setattr(cls, f"__{stem}__", binary(name))
    for stem, name in UNARY_OPERATORS:
        setattr(cls, f"__{stem}__", unary(name))


def operators_pxi():
    """Cython source of ``TensorOperators``, Tensor's base class: each binary operator,
    in-place operator and comparison is slot k of the compiled fast path (_binop /
    _binop_reflected / _inplace in xarr/_tensor_fastpaths.pxi, k = its row in
    BINARY_OPERATORS + COMPARISON_OPERATORS); unary operators go to call_unary (the
    compiled one-operand path, then the registered entry points)."""
    lines = ["# Generated from xarr/_dispatch.py by CMake: do not edit.",
             "cdef class TensorOperators:",
             '    """The Python operators of Tensor (xarr/_dispatch.py\'s tables)."""']
    slot = 0
    for stem, name in BINARY_OPERATORS:
        extra = ", mod=None" if stem == "pow" else ""
        lines += [f"    def __{stem}__(self, other{extra}):",
                  f"        return _binop(self, other, {slot}, {name!r})",
                  f"    def __r{stem}__(self, other{extra}):",
                  f"        return _binop_reflected(self, other, {slot}, {name!r})",
                  f"    def __i{stem}__(self, other):",
                  f"        return _inplace(self, other, {slot}, {name!r})"]
        slot += 1
    for stem, name in COMPARISON_OPERATORS:
        lines += [f"    def __{stem}__(self, other):",
                  f"        return _binop(self, other, {slot}, {name!r})"]
        slot += 1
    for stem, name in UNARY_OPERATORS:
        lines += [f"    def __{stem}__(self):",
                  f"        return call_unary(self, {name!r})"]
    return "\n".join(lines) + "\n"


# Two-operand NumPy functions with no operator that take the same compiled fast path
# (xa.maximum(a, b) ...), after the operators' slots.
BINARY_FUNCTIONS = ("maximum", "minimum", "fmod", "arctan2", "hypot", "copysign",
                    "logaddexp", "logaddexp2", "nextafter", "logical_and", "logical_or",
                    "logical_xor")

# Slot k of the binary fast path: the NumPy function of binary operator / comparison k,
# then BINARY_FUNCTIONS.
FAST_SLOTS = tuple(name for _, name in BINARY_OPERATORS + COMPARISON_OPERATORS) + \
    BINARY_FUNCTIONS


if __name__ == "__main__":
    import sys
    with open(sys.argv[1], "w") as out:
        out.write(operators_pxi())
