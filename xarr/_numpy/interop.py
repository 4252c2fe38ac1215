"""NumPy's dispatch protocols on xarr tensors: NEP 13 (``__array_ufunc__``) and NEP 18
(``__array_function__``), so code that calls NumPy on xarr data runs on xarr.

    np.add(t, 1)                  -> xa.add(t, 1)             (a Tensor)
    np.mean(t, axis=0)            -> xa.mean(t, axis=0)
    np.concatenate([t, a])        -> xa.concatenate([t, a])   (a: an ndarray, mixed)
    np.add.reduce(t, axis=1)      -> xa.sum(t, axis=1)
    ndarray_a += t                -> xa.add(a, t, out=a)      (written into a, as NumPy)

The rules, as for CuPy and Dask arrays:
- A NumPy function or ufunc that xarr implements (the same name in ``xarr``,
  ``xarr.linalg`` ...) runs xarr's, with the caller's arguments; ``out=`` is honoured
  (computed, then written into ``out``, a Tensor or an ndarray) and so is ``where=``.
- One that xarr lacks, or an argument xarr's function does not take (``casting=``,
  ``order=``), falls back to NumPy on zero-copy ndarray views of the tensors; ndarray
  results come back as tensors (zero-copy). Each fallen-back function warns once per
  process with ``xa.NumPyFallbackWarning`` naming it; ``warnings.simplefilter("error",
  xa.NumPyFallbackWarning)`` turns the fallback into an error. We chose the fallback over
  ``TypeError`` so that NumPy code keeps running, and the warning so the copy is seen.
- ``np.asarray(t)`` is not dispatched (it is the buffer / ``__array__`` protocol) and
  stays zero-copy.
- A traced value (inside ``xa.jit`` or ``xa.lazy``) dispatches the same way; a fallback
  needs its concrete value, which a jit trace refuses with TracerConversionError.
"""

import inspect
import sys
import warnings

import numpy as np

from xarr._dispatch import register
from xarr._graph.trace import Traced
from xarr._ops.conversion import asarray
from xarr._tensor import Tensor


class NumPyFallbackWarning(UserWarning):
    """A NumPy function xarr does not implement ran in NumPy on the tensors' data."""


# ufunc methods other than __call__ that map onto an xarr function of the same operands:
# np.add.reduce(t, axis=0) is xa.sum(t, axis=0); np.add.accumulate is xa.cumsum.
_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
           "logical_and": "all", "logical_or": "any"}
_ACCUMULATE = {"add": "cumsum", "multiply": "cumprod"}
# Where NumPy's functions live -> the xarr namespace with the same functions.
_NAMESPACES = {"numpy": "xarr", "numpy.linalg": "xarr.linalg", "numpy.fft": "xarr.fft"}
_warned = set()
_params = {}                 # xarr function -> (names it takes, takes **kwargs)


def _xarr_function(module, name):
    """xarr's function for NumPy's ``module.name``, or None."""
    ns = sys.modules.get(_NAMESPACES.get(module, ""))
    fn = getattr(ns, name, None) if ns is not None else None
    if fn is None or not callable(fn) or isinstance(fn, type) or \
            getattr(fn, "_numpy_fallback", False):   # (xarr.__getattr__'s: NumPy's own)
        return None
    return fn if (getattr(fn, "__module__", None) or "").startswith("xarr") else None


def _accepts(fn, key):
    hit = _params.get(fn)
    if hit is None:
        try:
            ps = inspect.signature(fn).parameters.values()
            hit = ({p.name for p in ps if p.kind != p.VAR_POSITIONAL},
                   any(p.kind == p.VAR_KEYWORD for p in ps))
        except (TypeError, ValueError):
            hit = (set(), True)
        _params[fn] = hit
    return key in hit[0] or hit[1]


def _to_numpy(x):
    """Tensors (also inside lists, tuples and dicts) as zero-copy ndarray views."""
    if isinstance(x, Tensor):
        return np.asarray(x)
    if type(x) in (list, tuple):
        return type(x)(_to_numpy(v) for v in x)
    if type(x) is dict:
        return {k: _to_numpy(v) for k, v in x.items()}
    if hasattr(x, "__array_namespace__") and not isinstance(x, np.ndarray):
        return np.asarray(x)                   # a traced value: its concrete value
    return x


def _to_xarr(r):
    if type(r) is np.ndarray:
        return asarray(r)
    if type(r) in (list, tuple):
        return type(r)(_to_xarr(v) for v in r)
    return r


def _fallback(what, call, args, kwargs):
    if what not in _warned:
        _warned.add(what)
        warnings.warn(f"xarr does not implement {what}: NumPy computes it on ndarray views "
                      f"of the tensors (shown once per function; see xa.NumPyFallbackWarning)",
                      NumPyFallbackWarning, stacklevel=4)
    out = kwargs.pop("out", None)
    r = call(*_to_numpy(args), **_to_numpy(kwargs))
    if out is None:
        return _to_xarr(r)
    return _write_out(out, r)


_module_fallbacks = {}     # name -> the wrapper numpy_fallback_attribute made


def numpy_fallback_attribute(name):
    """xarr's module ``__getattr__`` (PEP 562): a NumPy function xarr does not implement
    (``xa.append``, ``xa.polyfit``, ``xa.fliplr``) runs NumPy's on zero-copy ndarray views
    of the tensors, as a dispatched one does (``_fallback``: warned once per function, with
    NumPyFallbackWarning), so code written against NumPy keeps running under ``import xarr
    as np``; ndarray results come back as tensors. The wrapper has ``_numpy_fallback`` set.
    AttributeError for private names and for names that are not callables of NumPy's
    (classes, modules, constants)."""
    hit = _module_fallbacks.get(name)
    if hit is not None:
        return hit
    fn = None if name.startswith("_") else getattr(np, name, None)
    if fn is None or not callable(fn) or isinstance(fn, type):
        raise AttributeError(f"module 'xarr' has no attribute {name!r}")

    def call(*args, **kwargs):
        return _fallback(f"numpy.{name}", fn, args, kwargs)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"numpy.{name} on ndarray views of the tensors (xarr lacks it)."
    call._numpy_fallback = True
    _module_fallbacks[name] = call
    return call


def _write_out(out, r):
    """Writes result(s) r into ``out`` (a Tensor / ndarray or a tuple of them), returns
    out as NumPy does (the array itself for one output)."""
    outs = out if type(out) is tuple else (out,)
    rs = r if type(r) is tuple else (r,)
    if len(outs) != len(rs):
        raise ValueError(f"out: {len(outs)} arrays given for {len(rs)} results")
    for o, v in zip(outs, rs):
        if o is not None:
            o[...] = v
    return outs[0] if len(outs) == 1 else outs


def _apply(fn, what, fallback, args, kwargs):
    """fn(*args, **kwargs), with out= written afterwards when fn does not take it; the
    NumPy fallback when fn takes not some other argument."""
    for key in kwargs:
        if key != "out" and not _accepts(fn, key):
            return _fallback(f"{what} with {key}=", fallback, args, kwargs)
    out = kwargs.get("out")
    if out is not None and (type(out) is tuple or not _accepts(fn, "out")):
        kwargs = dict(kwargs)
        del kwargs["out"]
        return _write_out(out, fn(*args, **kwargs))
    if isinstance(out, np.ndarray):
        view = asarray(out)
        back = np.asarray(view)
        if back.dtype == out.dtype and back.ctypes.data == out.ctypes.data and \
                back.strides == out.strides:   # written through a zero-copy tensor view
            fn(*args, **dict(kwargs, out=view))
            return out
        kwargs = dict(kwargs)                  # (a byte-swapped out: computed, then copied)
        del kwargs["out"]
        return _write_out(out, fn(*args, **kwargs))
    return fn(*args, **kwargs)


def array_ufunc(ufunc, method, inputs, kwargs):
    """Tensor.__array_ufunc__ (NEP 13): ``ufunc.method(*inputs, **kwargs)`` on xarr."""
    xa = sys.modules["xarr"]
    name = ufunc.__name__
    what = f"numpy.{name}" + ("" if method == "__call__" else f".{method}")
    call = getattr(ufunc, method)
    kwargs = dict(kwargs)
    out = kwargs.get("out")
    if type(out) is tuple and len(out) == 1:
        kwargs["out"] = out = out[0]
    if method == "__call__":
        fn = _xarr_function("numpy", name)
        if fn is None:
            return _fallback(what, call, inputs, kwargs)
        if ufunc.nout != 1:                    # np.divmod, np.modf: a tuple of results
            if set(kwargs) - {"out"}:
                return _fallback(f"{what} with {sorted(kwargs)}", call, inputs, kwargs)
            r = fn(*inputs)
            return r if out is None else _write_out(out, r)
        where = kwargs.pop("where", True)
        dtype = kwargs.pop("dtype", None)
        if dtype is not None:                  # inputs cast to dtype under 'same_kind'
            dtype = np.dtype(dtype)
            for x in inputs:
                src = np.asarray(x).dtype if isinstance(x, (int, float, complex)) else \
                    np.dtype(xa.asarray(x).dtype)
                if not np.can_cast(src, dtype, "same_kind"):
                    raise TypeError(f"Cannot cast ufunc '{name}' input from {src!r} to "
                                    f"{dtype!r} with casting rule 'same_kind'")
            inputs = tuple(x if isinstance(x, (int, float, complex)) else
                           xa.asarray(x).astype(dtype) for x in inputs)
        if where is not True:
            if out is None:
                return _fallback(f"{what} with where= and no out=", call, inputs,
                                 dict(kwargs, where=where))
            kwargs.pop("out")
            r = xa.where(where, _apply(fn, what, call, inputs, kwargs), out)
            return _write_out(out, r)
        return _apply(fn, what, call, inputs, kwargs)
    if method == "reduce" and name in _REDUCE and len(inputs) == 1:
        kwargs.setdefault("axis", 0)           # ufunc.reduce's default, not None
        if kwargs.get("where", True) is True:
            kwargs.pop("where", None)
        return _apply(getattr(xa, _REDUCE[name]), what, call, inputs, kwargs)
    if method == "accumulate" and name in _ACCUMULATE and len(inputs) == 1:
        kwargs.setdefault("axis", 0)
        return _apply(getattr(xa, _ACCUMULATE[name]), what, call, inputs, kwargs)
    if method == "outer" and len(inputs) == 2 and ufunc.nout == 1 and \
            _xarr_function("numpy", name) is not None:
        a, b = xa.asarray(inputs[0]), xa.asarray(inputs[1])
        a = a.reshape(a.shape + (1,) * b.ndim)
        return _apply(_xarr_function("numpy", name), what, call, (a, b), kwargs)
    return _fallback(what, call, inputs, kwargs)


def array_function(func, types, args, kwargs):
    """Tensor.__array_function__ (NEP 18): NumPy's ``func(*args, **kwargs)`` on xarr."""
    if not all(issubclass(t, (Tensor, np.ndarray, Traced)) for t in types):
        return NotImplemented
    module = func.__module__ or "numpy"
    fn = _xarr_function(module, func.__name__)
    what = f"{module}.{func.__name__}"
    implementation = getattr(func, "_implementation", func)
    if fn is None:
        return _fallback(what, implementation, args, dict(kwargs))
    return _apply(fn, what, implementation, args, dict(kwargs))


register(array_ufunc=array_ufunc, array_function=array_function)
