"""Recording operations into the graph: the ``Traced`` value and the recorder.

The frontends (xarr/_ops/elementwise.py, xarr/lax.py) decide an op's dtype and shape with
the same rules eagerly and when tracing; only the last step differs: with a recorder
(``recorder(values)`` is not None) they call ``operand`` / ``elementwise`` / ``convert``
... here instead of running a kernel, and get a ``Traced`` back.

A ``Traced`` is an abstract tensor (dtype, dims, layout) whose value is an instruction of a
computation being built:

* under ``xa.jit`` the computation is the function being traced; asking for its value
  (``bool(t)``, ``float(t)``, ``np.asarray(t)``) raises ``TracerConversionError`` pointing
  to ``xa.lax.cond`` / ``xa.lax.while_loop``;
* under ``xa.lazy()`` it is the process's lazy graph; asking for its value computes it and
  everything it depends on, fused (xarr/_graph/lazy.py).

Sub-computations (cond branches, while bodies, map functions) are traced as child
computations: a value of an enclosing computation used inside is lifted into an extra
parameter (``captures``), as JAX closes over tracers.
"""

import math
import operator
import weakref

import numpy as np

from xarr import _methods, _tensor
from xarr._dispatch import BINARY_OPERATORS, api, install_operators
from xarr._dtypes import CODE_OF, DTYPES, as_dtype, check_python_int
from xarr._graph.ir import Computation, Instruction, Module, TensorType, type_text
from xarr._graph.pytree import flatten, unflatten
from xarr._registry import hlo_opcode
from xarr._shape import Shape
from xarr._tensor import Tensor

_PY_SCALARS = (bool, int, float, complex)


class TracerConversionError(TypeError):
    """A traced value's concrete value was needed while tracing (Python control flow,
    ``float()``, NumPy conversion)."""


class TraceState:
    """The computations being traced (innermost last) and the lazy graph's nesting depth."""

    def __init__(self):
        self.stack = []
        self.lazy_depth = 0
        self.lazy_graph = None
        self.pending = weakref.WeakValueDictionary()   # id -> lazy Traced not computed yet


STATE = TraceState()
_DERIVED = "derived"     # Traced._view of x.T, x.reshape(...), x.real: writes refused
_tensor.register_eager_state(trace_stack=STATE.stack)   # whole_reduce asks it


class TracedComputation(Computation):
    """A computation under construction. ``parent`` is the enclosing computation (for
    sub-computations); ``captures`` the enclosing values lifted into parameters;
    ``finished`` is set when tracing ends (its values may no longer be used)."""

    def __init__(self, name, module, parent=None, kind="jit"):
        super().__init__(name, module)
        self.parent = parent
        self.kind = kind
        self.captures = []          # outer Instruction for each lifted parameter
        self._capture_of = {}
        self.finished = False

    def capture(self, outer):
        p = self._capture_of.get(id(outer))
        if p is None:
            if self.parent is not None and outer.computation is not self.parent:
                outer = self.parent.capture(outer)
            p = self.add_parameter(outer.type)
            self.captures.append(outer)
            self._capture_of[id(outer)] = p
        return p


class LazyGraph(Computation):
    """The process-wide lazy graph: it keeps no instruction list (an instruction lives as
    long as a Traced or a later instruction refers to it); leaves are concrete tensors."""

    kind = "lazy"
    finished = False
    parent = None

    def __init__(self):
        super().__init__("lazy", Module("lazy"))
        # Python scalars' constants and their broadcasts, shared by every op that reads
        # them (a loop of x = x + 1 adds one instruction per step): key -> instruction;
        # emptied when it reaches SCALAR_CACHE_SIZE.
        self.scalars = {}

    SCALAR_CACHE_SIZE = 1024
    # A long-running lazy loop is computed whenever a chain of FLUSH_DEPTH instructions
    # not computed yet forms (evaluate_pending, called when the value is wrapped): the
    # graph a value depends on stays bounded, the results are the same.
    FLUSH_DEPTH = 2000

    def scalar_constant(self, value, code):
        # (type and sign bit in the key: 1 == 1.0 == True and 0.0 == -0.0 are distinct)
        key = (code, type(value), value,
               math.copysign(1.0, value.real) if isinstance(value, (float, complex)) else 0,
               math.copysign(1.0, value.imag) if isinstance(value, complex) else 0)
        c = self.scalars.get(key)
        if c is None:
            if len(self.scalars) >= self.SCALAR_CACHE_SIZE:
                self.scalars.clear()
            t = _tensor.scalar_tensor(value, code)
            c = self.scalars[key] = self.add(Instruction("constant", (), TensorType(code, (), None),
                                                         {"value": t}))
        return c

    def scalar_broadcast(self, instr, shape):
        key = (id(instr), shape)
        b = self.scalars.get(key)
        if b is None or b.operands[0] is not instr:
            if len(self.scalars) >= self.SCALAR_CACHE_SIZE:
                self.scalars.clear()
            b = self.scalars[key] = self.add(Instruction(
                "broadcast", [instr], TensorType(instr.code, shape, None),
                {"dimensions": ()}))
        return b

    def add(self, instr):
        instr.computation = self
        if instr.name is None:
            instr.name = self.module.unique_name(hlo_opcode(instr.op))
        depth = 0
        for o in instr.operands:
            if o.value is None and o.depth > depth:
                depth = o.depth
        instr.depth = depth + 1
        return instr


def recorder(values):
    """The computation an op on ``values`` is recorded in, or None to run it eagerly."""
    comp = None
    for v in values:
        if type(v) is Traced:
            comp = v.instr.computation
            break
    st = STATE
    if comp is None:
        if st.lazy_depth and not st.stack:
            return lazy_graph()
        return None
    if st.stack:
        return st.stack[-1]
    if comp.kind == "lazy":
        return comp
    raise TracerConversionError(
        f"a traced value ({type_text(v.instr.type)}) escaped its xa.jit trace: values "
        f"computed inside a jitted function are only valid inside it; return them instead")


def before_write(tensor):
    """Called before a tensor is written in place: pending lazy values read their leaves
    when computed, so they are computed now, seeing the tensor as it was (eager order)."""
    if STATE.pending:
        evaluate_pending()
    else:
        _tensor.set_lazy_pending(False)      # (the pending values died uncomputed)


def evaluate_pending():
    """Computes every lazy value still referenced and not computed yet (one module)."""
    pending = [t for t in list(STATE.pending.values()) if t.instr.value is None]
    STATE.pending.clear()
    _tensor.set_lazy_pending(False)
    if pending:
        api.lazy_evaluate(pending)


def lazy_graph():
    if STATE.lazy_graph is None:
        STATE.lazy_graph = LazyGraph()
    return STATE.lazy_graph


def tracing():
    """The innermost computation being traced, or None."""
    return STATE.stack[-1] if STATE.stack else None


# ------------------------------------------------------------------------ operands
def _is_ancestor(comp, other):
    c = comp.parent
    while c is not None:
        if c is other:
            return True
        c = c.parent
    return False


def instr_of(comp, v, op="xa"):
    """``v`` (Traced, Tensor, NumPy array, Python scalar) as an instruction of ``comp``."""
    if type(v) is Traced:
        instr = v.instr
        owner = instr.computation
        if owner is comp:
            return instr
        if owner.kind == "lazy":
            if comp.kind == "lazy":
                return instr
            return _constant(comp, v.concrete())   # a lazy value closed over by a jit
        if isinstance(comp, TracedComputation) and _is_ancestor(comp, owner):
            return comp.capture(instr)
        raise TracerConversionError(
            f"{op}: a traced value ({type_text(instr.type)}) from another xa.jit trace "
            f"was used here; pass it as an argument instead")
    if isinstance(v, Tensor):
        if comp.kind == "lazy":
            leaf = comp.add(Instruction("parameter", (), _type_of_tensor(v), {"number": -1}))
            leaf.value = v
            return leaf
        return _constant(comp, v)
    if isinstance(v, _PY_SCALARS):
        raise TypeError(f"{op}: a Python scalar needs a dtype here")
    return instr_of(comp, api.asarray(v), op)


def _type_of_tensor(t):
    m2m = _tensor.minor_to_major_of(t) if t.ndim > 1 else None
    if m2m is not None and tuple(m2m) == tuple(range(t.ndim - 1, -1, -1)):
        m2m = None
    return TensorType(CODE_OF[t.dtype], tuple(t.shape), m2m if m2m is None else tuple(m2m))


def _constant(comp, value, code=None):
    """A constant instruction holding a Tensor or a Python scalar (converted to ``code``).
    A tensor broadcast along some dims (stride 0, as xa.broadcast_to makes) is its
    compact part and a broadcast: f64[200000] strides (0,) -> broadcast(f64[] constant),
    which fusions read as a scalar instead of a stride-0 array."""
    if isinstance(value, Tensor):
        spread = _broadcast_dims(value)
        if spread:
            compact = value[tuple(0 if d in spread else slice(None)
                                  for d in range(value.ndim)) + (Ellipsis,)]
            c = _constant(comp, compact)
            kept = tuple(d for d in range(value.ndim) if d not in spread)
            return comp.add(Instruction("broadcast", [c],
                                        TensorType(CODE_OF[value.dtype], tuple(value.shape),
                                                   None), {"dimensions": kept}))
        return comp.add(Instruction("constant", (), _type_of_tensor(value), {"value": value}))
    if comp.kind == "lazy":
        return comp.scalar_constant(value, code)
    t = _tensor.scalar_tensor(value, code)
    return comp.add(Instruction("constant", (), TensorType(code, (), None), {"value": t}))


def _broadcast_dims(t):
    """The dims of a strided tensor along which it repeats one value (stride 0, size > 1);
    () for tiled and empty tensors."""
    if not t.size or _tensor.is_tiled(t):
        return ()
    return tuple(d for d, (n, s) in enumerate(zip(t.shape, t.strides)) if s == 0 and n > 1)


def operand(comp, v, code, op):
    """``v`` as an instruction of element type ``code`` (scalars become constants,
    other types are converted)."""
    if isinstance(v, _PY_SCALARS):
        check_python_int(op, v, DTYPES[code])     # as eagerly: uint8 + (-2) raises
        return _constant(comp, v, code)
    instr = instr_of(comp, v, op)
    if instr.code != code:
        instr = comp.add(Instruction("convert", [instr], TensorType(code, instr.dims, None)))
    return instr


def wrap(instr):
    return Traced(instr)


# ------------------------------------------------------------------------ ops
def broadcast_to_shape(comp, instr, shape):
    """NumPy's right-aligned broadcast of ``instr`` to ``shape`` (a broadcast instruction
    with dimensions mapping operand dims onto result dims; size-1 dims stretch)."""
    if tuple(instr.dims) == tuple(shape):
        return instr
    if not instr.dims and instr.op == "constant" and comp.kind == "lazy":
        return comp.scalar_broadcast(instr, tuple(shape))
    off = len(shape) - len(instr.dims)
    dims = tuple(range(off, len(shape)))
    return comp.add(Instruction("broadcast", [instr], TensorType(instr.code, tuple(shape), None),
                                {"dimensions": dims}))


def elementwise(comp, opdef, code, operands, shape):
    """Records ``opdef`` over instructions of value type ``code``, broadcast to ``shape``."""
    ins = [broadcast_to_shape(comp, o, shape) for o in operands]
    rcode = opdef.result_code(code)
    return Traced(comp.add(Instruction(opdef.name, ins, TensorType(rcode, tuple(shape), None))))


def convert(comp, v, code):
    instr = instr_of(comp, v)
    if instr.code == code:
        return Traced(instr) if type(v) is Traced else v
    return Traced(comp.add(Instruction("convert", [instr], TensorType(code, instr.dims, None))))


def broadcast_in_dim(comp, v, shape, dims):
    instr = instr_of(comp, v, "lax.broadcast_in_dim")
    return Traced(comp.add(Instruction("broadcast", [instr],
                                       TensorType(instr.code, tuple(shape), None),
                                       {"dimensions": tuple(dims)})))


def iota(comp, code, shape, dimension):
    return Traced(comp.add(Instruction("iota", [], TensorType(code, tuple(shape), None),
                                       {"iota_dimension": dimension})))


def copy(comp, v):
    instr = instr_of(comp, v)
    return Traced(comp.add(Instruction("copy", [instr], TensorType(instr.code, instr.dims,
                                                                   None))))


# ------------------------------------------------------------------------ Traced
class Traced:
    """An abstract tensor of the graph being built (see the module docstring). It supports
    the Tensor API's arithmetic, comparison and shape methods; its value is computed (lazy)
    or refused (jit) when Python needs it."""

    __slots__ = ("_instr", "_view", "__weakref__")
    __array_priority__ = 200
    __array_ufunc__ = _methods.__array_ufunc__
    __array_function__ = _methods.__array_function__
    _explicit_layout = None      # read by xa.*_like (xarr/_ops/creation.py)

    def __init__(self, instr):
        self._instr = instr
        self._view = None        # [base Traced, basic key, writes seen] for a view of base
        self._track()

    def _track(self):
        """A lazy value not computed yet is pending (computed before a tensor write)."""
        instr = self._instr
        if instr.value is None and instr.computation.kind == "lazy":
            STATE.pending[id(self)] = self
            _tensor.set_lazy_pending(True)         # (the tensor core's writes defer)
            if instr.depth >= LazyGraph.FLUSH_DEPTH:
                evaluate_pending()

    @property
    def instr(self):
        """The instruction holding this value. A view re-reads its base when the base
        was written since it last looked (``w = u[1:]; u[2] = 0`` - then w sees the 0)."""
        v = self._view
        if v is not None and v is not _DERIVED:
            base_instr = v[0].instr
            if base_instr is not v[2]:
                v[2] = base_instr
                self._instr = v[0][v[1]]._instr
        return self._instr

    @instr.setter
    def instr(self, value):
        self._instr = value
        self._track()

    # ---------------------------------------------------------------- attributes
    @property
    def shape(self):
        return tuple(self.instr.dims)

    @property
    def dtype(self):
        return DTYPES[self.instr.code]

    @property
    def ndim(self):
        return len(self.instr.dims)

    @property
    def size(self):
        n = 1
        for d in self.instr.dims:
            n *= d
        return n

    @property
    def xla_shape(self):
        return Shape.parse(type_text(self.instr.type))

    @property
    def layout(self):
        return self.xla_shape.layout

    @property
    def flags(self):
        """The Tensor.flags entries *_like and layout logic read (a traced value is dense
        in its layout and not writable)."""
        m2m = self.instr.type.m2m
        n = self.ndim
        return {"C_CONTIGUOUS": m2m is None, "F_CONTIGUOUS": n < 2 or
                m2m == tuple(range(n)), "WRITEABLE": False, "OWNDATA": True}

    @property
    def T(self):
        return self.transpose()

    @property
    def mT(self):
        if self.ndim < 2:
            raise ValueError(f"mT: needs at least 2 dims, got {self.ndim}")
        perm = list(range(self.ndim))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        return self.transpose(perm)

    def __array_namespace__(self, *, api_version=None):
        if api_version is not None and api_version not in _tensor.ARRAY_API_VERSIONS:
            raise ValueError(f"__array_namespace__: unsupported api_version {api_version!r}")
        return api.namespace()

    def __len__(self):
        if not self.instr.dims:
            raise TypeError("len() of a 0-d tensor")
        return self.instr.dims[0]

    def __repr__(self):
        comp = self.instr.computation
        if comp.kind == "lazy":
            return repr(self.concrete())
        return f"Traced<{type_text(self.instr.type)}>"

    def __str__(self):
        if self.instr.computation.kind == "lazy":
            return str(self.concrete())
        return repr(self)

    # ---------------------------------------------------------------- values
    def concrete(self):
        """The value as a Tensor: computed for a lazy value, an error under jit."""
        comp = self.instr.computation
        if comp.kind == "lazy":
            return api.lazy_evaluate([self])[0]
        raise TracerConversionError(
            f"xa.jit: the value of a traced {type_text(self.instr.type)} is not known while "
            f"tracing. Python control flow (`if`, `while`, `bool()`, `float()`, NumPy "
            f"conversion) on traced values cannot be staged: use xa.lax.cond / "
            f"xa.lax.while_loop / xa.lax.fori_loop, or mark the argument static with "
            f"static_argnums / static_argnames")

    def __bool__(self):
        return bool(self.concrete())

    def __float__(self):
        return float(self.concrete())

    def __int__(self):
        return int(self.concrete())

    def __complex__(self):
        return complex(self.concrete())

    def __index__(self):
        return operator.index(self.concrete())

    def __array__(self, dtype=None, copy=None):
        return self.concrete().__array__(dtype, copy)

    def __iter__(self):
        """The rows, as traced values (the loop unrolls into the graph, as in jax: the
        length is static)."""
        if self.instr.computation.kind == "lazy":
            return iter(self.concrete())
        if not self.instr.dims:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.instr.dims[0]))

    @property
    def real(self):
        return _derived(api.numpy_apply("real", self), self)

    @property
    def imag(self):
        return _derived(api.numpy_apply("imag", self), self)

    def item(self, *args):
        return self.concrete().item(*args)

    def tolist(self):
        return self.concrete().tolist()

    def numpy(self):
        return np.asarray(self.concrete())

    def __dlpack__(self, *args, **kwargs):
        return self.concrete().__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return (1, 0)

    @property
    def device(self):
        return "cpu"

    def __getitem__(self, key):
        if _traced_mask_in(key):
            if self.instr.computation.kind != "lazy":
                return MaskedSelection(self, key)
            key = _concrete_masks(key)
        r = api.getitem(self, key)
        if type(r) is Traced and r is not self and r.instr.dims and not api.is_advanced(key):
            r._view = [self, key, self.instr]   # a basic key gives a view: writes go through
        return r                                 # (an element is a copy, as NumPy's scalar)

    def __setitem__(self, key, value):
        """x[key] = value as a functional update (xarr/_ops/update.py): x becomes the
        updated value; through a view, the base is updated too (from its current value)."""
        if self._view is _DERIVED:
            raise TypeError("xa.jit / xa.lazy: writing into x.T, x.reshape(...), x.real ... "
                            "would change x in NumPy, which a traced update cannot follow; "
                            "write to x with its own key, or .copy() the derived value first")
        if self._view is None:
            self.instr = api.functional_setitem(self, key, value).instr
            return
        base, bkey = self._view[0], self._view[1]
        new = api.functional_setitem(base[bkey], key, value)
        base[bkey] = new
        self.instr = new._instr
        self._view[2] = base.instr

    # ---------------------------------------------------------------- shape methods
    def astype(self, dtype, copy=True):
        return api.astype(self, CODE_OF[as_dtype(dtype)])

    def reshape(self, *shape):
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return _derived(api.reshape(self, shape), self)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], int)):
            axes = axes[0]
        n = self.ndim
        perm = tuple(range(n - 1, -1, -1)) if not axes else \
            tuple(operator.index(p) % n if n else operator.index(p) for p in axes)
        return _derived(api.lax_transpose(self, perm), self)

    def copy(self):
        return copy(_recorder_of(self), self)

    __hash__ = None


# The operators of xarr/_dispatch.py's tables (Tensor's are generated from the same ones)
# and the NumPy-style methods (t.sum(axis=0) ...) Tensor has; fill writes in place, which
# a graph value cannot.
install_operators(Traced)
for _stem, _name in BINARY_OPERATORS:       # x += v: NumPy's checks, then x[...] = x + v
    setattr(Traced, f"__i{_stem}__",
            lambda self, other, _name=_name: api.traced_inplace(_name, self, other))
for _name in _methods.NAMES + _methods.MATMUL_OPERATORS:
    if _name not in ("fill", "__imatmul__"):
        setattr(Traced, _name, getattr(_methods, _name))


def _derived(r, source):
    """A value NumPy would give as a view of ``source`` (x.T, x.reshape(...), x.real): a
    write into it is refused (Traced.__setitem__), not silently kept from the base."""
    if type(r) is Traced and r is not source and r._view is None:
        r._view = _DERIVED
    return r


def _concrete_masks(key):
    one = type(key) is not tuple
    items = tuple(it.concrete() if type(it) is Traced and it.instr.dims and
                  it.instr.code == CODE_OF[np.dtype(np.bool_)] else it
                  for it in ((key,) if one else key))
    return items[0] if one else items


def _traced_mask_in(key):
    for it in (key if type(key) is tuple else (key,)):
        if type(it) is Traced and it.instr.code == CODE_OF[np.dtype(np.bool_)] and \
                it.instr.dims:
            return True
    return False


class MaskedSelection:
    """``x[mask]`` under xa.jit with a traced mask: its length is data-dependent, so it
    only exists to be updated in place and written back. ``x[mask] *= -1`` (a getitem,
    an in-place multiply, a setitem) becomes x = select(mask, x * -1, x). Any other use
    raises the data-dependent error."""

    __slots__ = ("base", "key", "values")

    def __init__(self, base, key):
        self.base, self.key, self.values = base, key, base

    def _inplace(self, name, other):
        if hasattr(other, "shape") and tuple(other.shape) != ():
            _data_dependent(self.base, "an operand with elements per selected element")
        r = api.numpy_apply(name, self.values, other)
        if not np.can_cast(r.dtype, self.base.dtype, "same_kind"):
            raise TypeError(f"xa.{name}: cannot cast the result {r.dtype} to the in-place "
                            f"target's {self.base.dtype} under casting rule 'same_kind'")
        self.values = r
        return self

    def __getattr__(self, name):
        _data_dependent(self.base, f"using x[mask] ({name})")


def _data_dependent(x, what):
    raise TypeError(f"xa.jit: {what}: x[mask] with a traced mask has a data-dependent "
                    f"shape (x is {type_text(x.instr.type)}) and cannot be traced; use "
                    f"xa.where(mask, x, 0) (or another fill value) to keep the shape; "
                    f"x[mask] = v and x[mask] op= scalar are traced")


for _stem, _name in BINARY_OPERATORS:
    setattr(MaskedSelection, f"__i{_stem}__",
            lambda self, other, _name=_name: self._inplace(_name, other))


def _recorder_of(t):
    return recorder([t])


# ------------------------------------------------------------------------ sub-computations
def output_instr(comp, x, where):
    """A function's result ``x`` (traced value, tensor, array or scalar) as an instruction
    of ``comp``."""
    if isinstance(x, (Traced, Tensor)):
        return instr_of(comp, x, where)
    if isinstance(x, np.ndarray):
        return instr_of(comp, _tensor.wrap_numpy(x), where)
    if isinstance(x, _PY_SCALARS) or isinstance(x, np.generic):
        return _constant(comp, api.asarray(x))
    if isinstance(x, MaskedSelection):
        _data_dependent(x.base, "returning x[mask]")
    raise TypeError(f"{where}: the function returned a {type(x).__name__}; results must be "
                    f"tensors (or tuples/lists/dicts of them)")


def set_root(comp, roots):
    if len(roots) == 1:
        comp.root = roots[0]
    else:
        comp.root = comp.add(Instruction("tuple", roots, tuple(r.type for r in roots)))


def trace_sub(parent, fn, types, prefix, where, struct=None):
    """Traces fn on parameters of ``types`` into a child computation of ``parent`` (the
    computations of lax.reduce, lax.map, lax.cond, lax.while_loop ...). Returns
    (computation, output structure, output instructions' types)."""
    sub = TracedComputation(parent.module.unique_name(prefix), parent.module, parent=parent,
                            kind="sub")
    params = [Traced(sub.add_parameter(t)) for t in types]
    args = [unflatten(struct, iter(params))] if struct is not None else params
    STATE.stack.append(sub)
    try:
        out = fn(*args)
    finally:
        STATE.stack.pop()
    sub.finished = True
    leaves = []
    out_struct = flatten(out, leaves)
    roots = [output_instr(sub, x, where) for x in leaves]
    if not roots:
        raise TypeError(f"{where}: the function returned nothing")
    set_root(sub, roots)
    return sub, out_struct, [r.type for r in roots]
