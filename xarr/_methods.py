"""NumPy-style methods shared by ``Tensor`` (xarr/_tensor.pyx) and the graph's ``Traced``
(xarr/_graph/trace.py): each is the xa function of the same name, so ``t.sum(axis=0)`` is
``xa.sum(t, axis=0)`` eagerly, under xa.jit and in xa.lazy alike. This module imports
nothing at load time (the tensor type imports it while the package initializes).
"""


def _xa():
    import xarr
    return xarr


def sum(self, axis=None, dtype=None, keepdims=False, where=None):  # noqa: A001
    return _xa().sum(self, axis, dtype, keepdims, where)


def prod(self, axis=None, dtype=None, keepdims=False, where=None):
    return _xa().prod(self, axis, dtype, keepdims, where)


def mean(self, axis=None, dtype=None, keepdims=False, where=None):
    return _xa().mean(self, axis, dtype, keepdims, where)


def var(self, axis=None, dtype=None, ddof=0, keepdims=False, where=None):
    return _xa().var(self, axis, dtype, ddof, keepdims, where)


def std(self, axis=None, dtype=None, ddof=0, keepdims=False, where=None):
    return _xa().std(self, axis, dtype, ddof, keepdims, where)


def max(self, axis=None, keepdims=False, where=None, initial=None):  # noqa: A001
    return _xa().max(self, axis, keepdims, where, initial)


def min(self, axis=None, keepdims=False, where=None, initial=None):  # noqa: A001
    return _xa().min(self, axis, keepdims, where, initial)


def argmax(self, axis=None, keepdims=False):
    return _xa().argmax(self, axis, keepdims)


def argmin(self, axis=None, keepdims=False):
    return _xa().argmin(self, axis, keepdims)


def any(self, axis=None, keepdims=False, where=None):  # noqa: A001
    return _xa().any(self, axis, keepdims, where)


def all(self, axis=None, keepdims=False, where=None):  # noqa: A001
    return _xa().all(self, axis, keepdims, where)


def cumsum(self, axis=None, dtype=None):
    return _xa().cumsum(self, axis, dtype)


def cumprod(self, axis=None, dtype=None):
    return _xa().cumprod(self, axis, dtype)


def ravel(self):
    return _xa().ravel(self)


def flatten(self):
    """A new 1-D tensor (NumPy's flatten always copies)."""
    return _xa().ravel(self).copy()


def squeeze(self, axis=None):
    return _xa().squeeze(self, axis)


def swapaxes(self, axis1, axis2):
    return _xa().swapaxes(self, axis1, axis2)


def clip(self, min=None, max=None):  # noqa: A002
    return _xa().clip(self, min, max)


def round(self, decimals=0):  # noqa: A001
    return _xa().round(self, decimals)


def nonzero(self):
    return _xa().nonzero(self)


def repeat(self, repeats, axis=None):
    return _xa().repeat(self, repeats, axis)


def take(self, indices, axis=None):
    return _xa().take(self, indices, axis)


def conj(self):
    return _xa().conjugate(self)


def fill(self, value):
    """Sets every element to ``value`` (in place)."""
    self[...] = value


NAMES = ("sum", "prod", "mean", "var", "std", "max", "min", "argmax", "argmin", "any", "all",
         "cumsum", "cumprod", "ravel", "flatten", "squeeze", "swapaxes", "clip", "round",
         "nonzero", "repeat", "take", "conj", "fill")
