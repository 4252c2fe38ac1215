"""``xa.jit``: trace a function once per input signature, optimize, compile, cache.

    >>> f = xa.jit(lambda a, b, c: 2 * a + 3 * b * b - xa.exp(-c))
    >>> f(a, b, c)                       # traces, optimizes, compiles, runs
    >>> f(a, b, c)                       # cache hit: runs the compiled kernels only
    >>> print(f.lower(a, b, c).as_text())             # HLO before optimization
    >>> print(f.lower(a, b, c).compile().as_text())   # after: one kLoop fusion

The signature of a call is, for every tensor argument, its dtype, dims and layout, plus
the static arguments (``static_argnums`` / ``static_argnames``, hashed by value) and the
values of Python scalars (they stay weakly typed, so they are compile-time constants).
Arguments may be nested tuples, lists and dicts of tensors; so may the result.
"""

import collections
import functools
import inspect
import operator
import weakref

import numpy as np

from xarr import _tensor
from xarr._graph import algebra, lazy, native, passes
from xarr._graph.compile import Executable
from xarr._graph.ir import Module, gc_paused
from xarr._graph.pytree import flatten, unflatten
from xarr._graph.trace import (STATE, Traced, TracedComputation, _type_of_tensor,
                               output_instr, set_root)
from xarr._tensor import Tensor

_SCALARS = (bool, int, float, complex)


def _leaf_key(x):
    """(dtype code, dims, minor_to_major or None) for a tensor; the value for a scalar."""
    if type(x) is Tensor:
        return _tensor.signature_of(x)
    if isinstance(x, _SCALARS):
        return (type(x), x)
    raise TypeError(f"xa.jit: arguments must be tensors, NumPy arrays, Python scalars or "
                    f"tuples/lists/dicts of them; got {type(x).__name__} (mark it static "
                    f"with static_argnums / static_argnames)")


# ------------------------------------------------------------------------ jit
# Executables kept per jitted function, least recently used dropped first (one call
# signature each: a static argument that takes many values makes many).
CACHE_SIZE = 256
_JITTED = weakref.WeakSet()      # every Jitted, for clear_caches


def clear_caches():
    """Empties xarr's caches that hold compiled code or tensors: every xa.jit function's
    executables, the lazy graph's compiled modules, the scalar constants the passes have
    read, and the native kernels loaded in memory (the disk cache stays; the small
    per-dtype rule tables stay too)."""
    for f in list(_JITTED):
        f.clear_cache()
    lazy.clear_cache()
    algebra.clear_scalar_values()
    native.clear_loaded()


class Jitted:
    """The callable ``xa.jit`` returns. ``trace_count`` counts traces (cache misses); at
    most CACHE_SIZE executables are kept, least recently used dropped first."""

    def __init__(self, fn, static_argnums=(), static_argnames=()):
        if not callable(fn):
            raise TypeError(f"xa.jit: expected a callable, got {type(fn).__name__}")
        self.fn = fn
        if isinstance(static_argnums, int):
            static_argnums = (static_argnums,)
        if isinstance(static_argnames, str):
            static_argnames = (static_argnames,)
        self.static_argnums = tuple(operator.index(i) for i in static_argnums)
        self.static_argnames = tuple(static_argnames)
        try:
            self._sig = inspect.signature(fn)
        except (TypeError, ValueError):
            self._sig = None
        if self._sig is not None:
            params = list(self._sig.parameters.values())
            positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                          p.POSITIONAL_OR_KEYWORD)]
            if not any(p.kind == p.VAR_POSITIONAL for p in params):
                for i in self.static_argnums:
                    if not 0 <= i < len(positional):
                        raise ValueError(f"xa.jit: static_argnums {i} is out of range for "
                                         f"{getattr(fn, '__name__', fn)}, which takes "
                                         f"{len(positional)} positional arguments")
            for name in self.static_argnames:
                if name not in self._sig.parameters:
                    raise ValueError(f"xa.jit: static_argnames {name!r} is not a parameter of "
                                     f"{getattr(fn, '__name__', fn)}")
                pos = [p.name for p in params].index(name)
                if params[pos].kind in (params[pos].POSITIONAL_ONLY,
                                        params[pos].POSITIONAL_OR_KEYWORD) and \
                        pos not in self.static_argnums:
                    self.static_argnums += (pos,)
            for name in [params[i].name for i in self.static_argnums if i < len(params)]:
                if name not in self.static_argnames:
                    self.static_argnames += (name,)
        self._cache = collections.OrderedDict()
        self._simple = not self.static_argnums
        self.trace_count = 0
        functools.update_wrapper(self, fn)
        _JITTED.add(self)

    def clear_cache(self):
        """Drops this function's executables (the next call traces again)."""
        self._cache.clear()

    # ---------------------------------------------------------------- call path
    def _split(self, args, kwargs):
        """(cache key, dynamic leaves, structure) for a call."""
        if not kwargs and not self.static_argnums:
            key = _tensor.call_key(args)
            if key is not None:
                return key, args, None
        static = []
        dyn_args = []
        for i, a in enumerate(args):
            if i in self.static_argnums:
                static.append((i, _hashable(a, i)))
                dyn_args.append(None)
            else:
                dyn_args.append(a)
        dyn_kwargs = {}
        for k, v in kwargs.items():
            if k in self.static_argnames:
                static.append((k, _hashable(v, k)))
            else:
                dyn_kwargs[k] = v
        leaves = []
        struct = flatten((tuple(dyn_args), dyn_kwargs), leaves)
        leaves = [_as_leaf(x) for x in leaves]
        keys = tuple(_leaf_key(x) for x in leaves)
        tensors = tuple(x for x in leaves if type(x) is Tensor)
        return (struct, keys, tuple(static)), tensors, (args, kwargs)

    def __call__(self, *args, **kwargs):
        if not kwargs and self._simple:
            key = _tensor.call_key(args)
            if key is not None:
                compiled = self._cache.get(key)
                if compiled is not None:
                    self._cache.move_to_end(key)
                    return compiled._run(args)
        if STATE.stack:
            # called while another function is traced: inlined into that trace, as jax does
            # (on fresh handles: item assignment inside rebinds them, not the caller's)
            args = tuple(Traced(a.instr) if type(a) is Traced else a for a in args)
            kwargs = {k: Traced(v.instr) if type(v) is Traced else v for k, v in kwargs.items()}
            return self.fn(*args, **kwargs)
        key, tensors, full = self._split(args, kwargs)
        compiled = self._cache.get(key)
        if compiled is None:
            compiled = self.lower(*args, **kwargs).compile()
            self._cache[key] = compiled
            if len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return compiled._run(tensors)

    def lower(self, *args, **kwargs):
        """Traces for these arguments; the result prints the unoptimized module."""
        self.trace_count += 1
        return trace_function(self.fn, args, kwargs, self.static_argnums,
                              self.static_argnames, self._sig)


def _as_leaf(x):
    """A call's leaf as the jitted function sees it: NumPy arrays and scalars as tensors
    (a NumPy scalar is a 0-d tensor of its dtype, as eagerly), lazy values computed."""
    if isinstance(x, np.ndarray):
        return _tensor.wrap_numpy(x)
    if isinstance(x, np.generic):
        return _tensor.wrap_numpy(np.asarray(x))
    if type(x) is Traced and x.instr.computation.kind == "lazy":
        return x.concrete()
    return x


def _hashable(v, where):
    try:
        hash(v)
    except TypeError:
        raise TypeError(f"xa.jit: static argument {where!r} must be hashable, got "
                        f"{type(v).__name__}") from None
    return (type(v), v)


def jit(fn=None, *, static_argnums=(), static_argnames=()):
    """Compiles ``fn`` on first call per input signature (see the module docstring).
    Usable as ``xa.jit(f)``, ``@xa.jit`` or ``@xa.jit(static_argnums=1)``."""
    if fn is None:
        return lambda f: Jitted(f, static_argnums, static_argnames)
    return Jitted(fn, static_argnums, static_argnames)


# ------------------------------------------------------------------------ tracing
def trace_function(fn, args, kwargs, static_argnums=(), static_argnames=(), sig=None,
                   name=None):
    """Traces fn into a new module; returns a Lowered."""
    name = name or getattr(fn, "__name__", "fn").replace("<", "").replace(">", "")
    module = Module(f"jit_{name}")
    comp = TracedComputation("main", module)
    module.entry = comp
    n_param = [0]

    def as_param(x):
        x = _as_leaf(x)
        if type(x) is Tensor:
            p = comp.add_parameter(_type_of_tensor(x), name=f"p{n_param[0]}")
            n_param[0] += 1
            return Traced(p)
        return x

    dyn_args = [None if i in static_argnums else a for i, a in enumerate(args)]
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static_argnames}
    leaves = []
    struct = flatten((tuple(dyn_args), dyn_kwargs), leaves)   # the order _split uses
    targs_t, tkwargs = unflatten(struct, iter([as_param(x) for x in leaves]))
    targs = [a if i in static_argnums else targs_t[i] for i, a in enumerate(args)]
    for k, v in kwargs.items():
        if k in static_argnames:
            tkwargs[k] = v
    STATE.stack.append(comp)
    try:
        out = fn(*targs, **tkwargs)
        leaves = []
        struct = flatten(out, leaves)
        # (inside the trace: a view returned after writes to its base re-reads it here)
        roots = [output_instr(comp, x, "xa.jit") for x in leaves]
    finally:
        STATE.stack.pop()
    comp.finished = True
    set_root(comp, roots)
    return Lowered(module, struct)


class Lowered:
    """A traced, not yet optimized module."""

    def __init__(self, module, out_struct):
        self.module = module
        self.out_struct = out_struct
        self._text = module.as_text()

    def as_text(self):
        return self._text

    def as_dot(self):
        return self.module.as_dot()

    def compile(self):
        with gc_paused():
            passes.optimize_module(self.module)
            return Compiled(self.module, self.out_struct)


class Compiled:
    """An optimized module with its executable; call it with the same tensors' layout."""

    def __init__(self, module, out_struct):
        self.module = module
        self.out_struct = out_struct
        self.executable = Executable(module.entry)
        self._single = out_struct == "*"

    @property
    def kernel_count(self):
        """Fused kernels one call launches (entry computation only)."""
        return self.executable.kernel_count

    @property
    def fused_kernels(self):
        """The FusedKernel of each fused kernel of the entry computation, in run order
        (their ``is_native``, ``spec`` and ``work``; xarr/_graph/native.py)."""
        return list(self.executable.kernels)

    def as_text(self):
        return self.module.as_text()

    def as_dot(self):
        return self.module.as_dot()

    def _run(self, tensors):
        out = self.executable.run(tensors)
        if self._single:
            return out
        if not isinstance(out, tuple):
            out = (out,)
        return unflatten(self.out_struct, iter(out))

    def __call__(self, *args, **kwargs):
        leaves = []
        flatten((args, kwargs), leaves)
        tensors = [x for x in leaves if isinstance(x, (Tensor, np.ndarray))]
        tensors = [_tensor.wrap_numpy(x) if isinstance(x, np.ndarray) else x for x in tensors]
        params = self.module.entry.parameters
        if len(tensors) != len(params):
            raise TypeError(f"compiled {self.module.name}: expected {len(params)} tensor "
                            f"arguments, got {len(tensors)}")
        for k, (t, p) in enumerate(zip(tensors, params)):
            if _type_of_tensor(t).dims != p.dims or _type_of_tensor(t).code != p.code:
                raise TypeError(f"compiled {self.module.name}: argument {k} is "
                                f"{_type_of_tensor(t)}, compiled for {p.type}")
        return self._run(tensors)
