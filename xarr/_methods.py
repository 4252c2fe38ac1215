"""NumPy-style methods shared by ``Tensor`` (xarr/_tensor.pyx) and the graph's ``Traced``
(xarr/_graph/trace.py): each is the xa function of the same name, so ``t.sum(axis=0)`` is
``xa.sum(t, axis=0)`` eagerly, under xa.jit and in xa.lazy alike. The functions are the
NumPy frontend's (xarr/_numpy/), reached through xarr/_dispatch.py's registered entry
points: this module sits below them.
"""

from xarr._dispatch import api


def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
    """NEP 13: NumPy's ufuncs on xarr values run xarr's (xarr/_numpy/interop.py)."""
    return api.array_ufunc(ufunc, method, inputs, kwargs)


def __array_function__(self, func, types, args, kwargs):
    """NEP 18: NumPy's functions on xarr values run xarr's (xarr/_numpy/interop.py)."""
    return api.array_function(func, types, args, kwargs)


def sum(self, axis=None, dtype=None, keepdims=False, where=None):  # noqa: A001
    return api.sum(self, axis, dtype, keepdims, where)


def prod(self, axis=None, dtype=None, keepdims=False, where=None):
    return api.prod(self, axis, dtype, keepdims, where)


def mean(self, axis=None, dtype=None, keepdims=False, where=None):
    return api.mean(self, axis, dtype, keepdims, where)


def var(self, axis=None, dtype=None, ddof=0, keepdims=False, where=None):
    return api.var(self, axis, dtype, ddof, keepdims, where)


def std(self, axis=None, dtype=None, ddof=0, keepdims=False, where=None):
    return api.std(self, axis, dtype, ddof, keepdims, where)


def max(self, axis=None, keepdims=False, where=None, initial=None):  # noqa: A001
    return api.max(self, axis, keepdims, where, initial)


def min(self, axis=None, keepdims=False, where=None, initial=None):  # noqa: A001
    return api.min(self, axis, keepdims, where, initial)


def argmax(self, axis=None, keepdims=False):
    return api.argmax(self, axis, keepdims)


def argmin(self, axis=None, keepdims=False):
    return api.argmin(self, axis, keepdims)


def any(self, axis=None, keepdims=False, where=None):  # noqa: A001
    return api.any(self, axis, keepdims, where)


def all(self, axis=None, keepdims=False, where=None):  # noqa: A001
    return api.all(self, axis, keepdims, where)


def cumsum(self, axis=None, dtype=None):
    return api.cumsum(self, axis, dtype)


def cumprod(self, axis=None, dtype=None):
    return api.cumprod(self, axis, dtype)


def ravel(self):
    return api.ravel(self)


def flatten(self):
    """A new 1-D tensor (NumPy's flatten always copies)."""
    return api.ravel(self).copy()


def squeeze(self, axis=None):
    return api.squeeze(self, axis)


def swapaxes(self, axis1, axis2):
    return api.swapaxes(self, axis1, axis2)


def clip(self, min=None, max=None):  # noqa: A002
    return api.clip(self, min, max)


def round(self, decimals=0):  # noqa: A001
    return api.round(self, decimals)


def nonzero(self):
    return api.nonzero(self)


def repeat(self, repeats, axis=None):
    return api.repeat(self, repeats, axis)


def take(self, indices, axis=None):
    return api.take(self, indices, axis)


def conj(self):
    return api.numpy_apply("conjugate", self)


def searchsorted(self, v, side="left", sorter=None):
    return api.searchsorted(self, v, side, sorter)


def sort(self, axis=-1, kind=None, order=None, *, stable=None):
    """Sorts self in place along ``axis`` (NumPy's ndarray.sort)."""
    api.sort_method(self, axis, kind, order, stable=stable)


def argsort(self, axis=-1, kind=None, order=None, *, stable=None):
    return api.argsort_method(self, axis, kind, order, stable=stable)


@property
def at(self):
    """JAX's functional updates: t.at[idx].set(v) / add / multiply / min / max / get
    (xarr/_ops/at.py)."""
    return api.at_of(self)


def to_device(self, device, /, *, stream=None):
    """Array API: the value on ``device``; xarr has one device, "cpu", so this is self."""
    if device != "cpu":
        raise ValueError(f"to_device: unsupported device {device!r}; xarr has 'cpu'")
    if stream is not None:
        raise ValueError(f"to_device: xarr's cpu device has no streams, got {stream!r}")
    return self


def tofile(self, fid, sep="", format="%s"):  # noqa: A002  (NumPy's name)
    """Writes the values to a file, raw bytes or text, in C order (NumPy's ndarray.tofile;
    xarr/_numpy/io.py)."""
    return api.tofile(self, fid, sep, format)


def fill(self, value):
    """Sets every element to ``value`` (in place)."""
    self[...] = value


# The matrix-product operators: Traced takes these functions, Tensor's class body calls
# them (a compiled class's operator slots must be defined there).
def __matmul__(self, other):
    return api.matmul(self, other)


def __rmatmul__(self, other):
    return api.matmul(other, self)


def __imatmul__(self, other):
    """t @= u: NumPy writes the product into t (its shape must stay)."""
    return api.matmul(self, other, out=self)


def dot(self, b, out=None):
    return api.dot(self, b, out)


def trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    return api.trace(self, offset, axis1, axis2, dtype, out)


def diagonal(self, offset=0, axis1=0, axis2=1):
    return api.diagonal(self, offset, axis1, axis2)


NAMES = ("sum", "prod", "mean", "var", "std", "max", "min", "argmax", "argmin", "any", "all",
         "cumsum", "cumprod", "ravel", "flatten", "squeeze", "swapaxes", "clip", "round",
         "nonzero", "repeat", "take", "conj", "searchsorted", "sort", "argsort", "at",
         "to_device", "tofile",
         "fill", "dot",
         "trace", "diagonal")
MATMUL_OPERATORS = ("__matmul__", "__rmatmul__", "__imatmul__")
