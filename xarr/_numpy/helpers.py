"""NumPy's everyday helpers that xarr builds from its own functions: ``average``,
``diag``, ``diagflat``, ``atleast_1d/2d/3d``, ``ix_``, ``fromfunction``, ``ndindex``,
``ndenumerate``, ``logspace``, ``geomspace``, ``gradient``, ``ediff1d``.

    >>> xa.average(xa.asarray([1.0, 2.0, 4.0]), weights=[1, 1, 2])     # 2.75
"""

import itertools
import math

import numpy as np

from xarr._axes import normalize_axes, normalize_axis
from xarr._dtypes import CODE_OF, KINDS
from xarr._numpy import ufuncs as U
from xarr._numpy.contraction import diagonal
from xarr._numpy.manipulation import broadcast_to, concatenate, ravel, stack
from xarr._numpy.reductions import mean, sum as _sum  # noqa: A004
from xarr._ops.creation import arange, full_like, linspace, zeros
from xarr._ops.conversion import asarray
from xarr._ops.indexing import nonzero, take, take_along_axis
from xarr._ops.structural import as_operand
from xarr._tensor import Tensor


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """The (weighted) mean along ``axis``: sum(a * w) / sum(w), in NumPy's result dtype
    (float64 at least for integer a). 1-D weights of a's length along one ``axis``
    broadcast along it. Raises as NumPy: TypeError when the shapes differ and no axis is
    given, ValueError for a length mismatch, ZeroDivisionError when the weights sum to
    zero (eagerly) or nothing is averaged."""
    a = as_operand(a)
    if weights is None:
        avg = mean(a, axis=axis, keepdims=keepdims)
        if avg.size == 0:          # NumPy's count a.size / avg.size divides by zero
            raise ZeroDivisionError(f"xa.average: no result elements (shape {avg.shape}) "
                                    f"to average a of shape {a.shape} into")
        if not returned:
            return avg
        return avg, full_like(avg, a.size // avg.size)
    w = as_operand(weights)
    if w.shape != a.shape:
        if axis is None:
            raise TypeError("xa.average: axis must be specified when shapes of a "
                            f"{a.shape} and weights {w.shape} differ")
        axes = normalize_axes(axis, a.ndim, "average")
        if w.shape != tuple(a.shape[d] for d in axes):
            raise ValueError(f"xa.average: shape of weights {w.shape} must be consistent "
                             f"with shape of a {a.shape} along axis {axis}")
        order = sorted(range(len(axes)), key=lambda i: axes[i])
        w = w.transpose(order) if len(axes) > 1 else w
        w = w.reshape(tuple(a.shape[d] if d in axes else 1 for d in range(a.ndim)))
    ad, wd = np.dtype(a.dtype), np.dtype(w.dtype)
    rd = np.result_type(ad, wd, np.float64) if ad.kind in "biu" else np.result_type(ad, wd)
    scl = _sum(w.astype(rd), axis=axis, keepdims=keepdims)
    if type(scl) is Tensor and bool(U.equal(scl, 0).any()):
        raise ZeroDivisionError("xa.average: weights sum to zero, can't be normalized")
    avg = U.divide(_sum(U.multiply(a.astype(rd), w.astype(rd)), axis=axis,
                        keepdims=keepdims), scl)
    if not returned:
        return avg
    if tuple(scl.shape) != tuple(avg.shape):
        scl = broadcast_to(scl, tuple(avg.shape)).copy()
    return avg, scl


def diag(v, k=0):
    """A 1-D v on the k-th diagonal of a square matrix of side len(v) + |k| (zeros
    elsewhere); the k-th diagonal of a 2-D v, as a new 1-D tensor."""
    v = as_operand(v)
    if v.ndim == 2:
        return diagonal(v, offset=k).copy()
    if v.ndim != 1:
        raise ValueError(f"xa.diag: input must be 1-d or 2-d, got shape {v.shape}")
    m = v.shape[0]
    n = m + abs(k)
    if m == 0:
        return zeros((n, n), v.dtype)
    rows = arange(n).reshape((n, 1))
    cols = arange(n).reshape((1, n))
    on = U.equal(U.subtract(cols, rows), k)           # out[i, i + k] = v[i] (k >= 0)
    src = U.minimum(rows if k >= 0 else cols, m - 1)  # out[j - k, j] = v[j] (k < 0)
    return U.where(on, v[src], 0).astype(v.dtype)


def diagflat(v, k=0):
    return diag(ravel(as_operand(v)), k)


def atleast_1d(*arys):
    out = [as_operand(a) for a in arys]
    out = [a.reshape((1,)) if a.ndim == 0 else a for a in out]
    return out[0] if len(out) == 1 else tuple(out)


def atleast_2d(*arys):
    out = []
    for a in arys:
        a = as_operand(a)
        out.append(a.reshape((1, 1)) if a.ndim == 0 else a.reshape((1,) + a.shape)
                   if a.ndim == 1 else a)
    return out[0] if len(out) == 1 else tuple(out)


def atleast_3d(*arys):
    out = []
    for a in arys:
        a = as_operand(a)
        if a.ndim == 0:
            a = a.reshape((1, 1, 1))
        elif a.ndim == 1:
            a = a.reshape((1,) + a.shape + (1,))
        elif a.ndim == 2:
            a = a.reshape(a.shape + (1,))
        out.append(a)
    return out[0] if len(out) == 1 else tuple(out)


def ix_(*args):
    """Open-mesh index arrays: the k-th 1-D sequence shaped (1, ..., n, ..., 1); a
    boolean sequence becomes the indices of its True elements."""
    out = []
    nd = len(args)
    for k, seq in enumerate(args):
        s = as_operand(seq)
        if s.ndim != 1:
            raise ValueError(f"xa.ix_: cross index must be 1-dimensional, got shape {s.shape}")
        if s.dtype == np.bool_:
            s = nonzero(s)[0]
        elif s.size == 0:
            s = s.astype(np.intp)
        out.append(s.reshape((1,) * k + (s.shape[0],) + (1,) * (nd - k - 1)))
    return tuple(out)


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """function(i0, i1, ...) called once with the index tensors of ``shape`` (each of
    that shape and ``dtype``, as NumPy's indices)."""
    shape = tuple(int(n) for n in shape)
    idx = []
    for k, n in enumerate(shape):
        r = arange(n, dtype=dtype).reshape((1,) * k + (n,) + (1,) * (len(shape) - k - 1))
        idx.append(broadcast_to(r, shape).copy())
    return function(*idx, **kwargs)


class ndindex:
    """Iterates the indices of an array of ``shape`` in row-major order (NumPy's
    ndindex: ``ndindex(2, 3)`` or ``ndindex((2, 3))``)."""

    def __init__(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], tuple):
            shape = shape[0]
        self.shape = tuple(int(n) for n in shape)
        if any(n < 0 for n in self.shape):
            raise ValueError(f"xa.ndindex: negative dimensions are not allowed: {self.shape}")
        self._it = itertools.product(*(range(n) for n in self.shape))

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)


def ndenumerate(arr):
    """(index, value) pairs of a tensor's elements in row-major order; values are
    NumPy scalars, as t[i, j] gives them."""
    t = as_operand(arr)
    for idx in ndindex(t.shape):
        yield idx, t[idx]


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """base ** linspace(start, stop, num)."""
    y = linspace(start, stop, num, endpoint=endpoint)
    r = U.power(base, y)
    return r.astype(dtype) if dtype is not None else r


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """num numbers spaced evenly on a log scale from start to stop (both non-zero, of
    one sign); the endpoints are exact."""
    if start == 0 or stop == 0:
        raise ValueError("xa.geomspace: geometric sequence cannot include zero")
    if isinstance(start, complex) or isinstance(stop, complex):
        raise TypeError("xa.geomspace: complex endpoints are not supported")
    sign = 1.0
    if start < 0 and stop < 0:
        start, stop, sign = -start, -stop, -1.0
    elif start < 0 or stop < 0:
        # NumPy returns complex values here; xarr's real geomspace refuses
        raise ValueError("xa.geomspace: start and stop must have the same sign")
    r = logspace(math.log10(start), math.log10(stop), num, endpoint=endpoint)
    if num > 0:
        r[0] = start
        if endpoint and num > 1:
            r[num - 1] = stop
    r = U.multiply(r, sign)
    return r.astype(dtype) if dtype is not None else r


def _spacings(varargs, f, axes):
    """gradient's spacing per axis: a scalar as given (uniform: a Python number stays weak,
    a NumPy scalar keeps its dtype, as in NumPy's arithmetic) or a 1-D tensor of the steps
    between coordinates (non-uniform). NumPy's rules: one scalar for every axis, or one
    scalar or 1-D coordinate array per axis; concrete coordinates with equal steps are
    uniform, their step a scalar of the coordinates' dtype."""
    if len(varargs) == 0:
        return [1.0] * len(axes)
    if len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        return [varargs[0]] * len(axes)
    if len(varargs) != len(axes):
        raise TypeError(f"xa.gradient: invalid number of arguments: {len(varargs)} spacings "
                        f"for {len(axes)} axes")
    out = []
    for v, a in zip(varargs, axes):
        if np.ndim(v) == 0:
            out.append(v)
            continue
        c = as_operand(v)
        if c.ndim != 1:
            raise ValueError(f"xa.gradient: distances must be either scalars or 1d, got "
                             f"shape {tuple(c.shape)} for axis {a}")
        if c.shape[0] != f.shape[a]:
            raise ValueError(f"xa.gradient: when 1d, distances must match the length of the "
                             f"corresponding dimension: {c.shape[0]} coordinates for axis "
                             f"{a} of length {f.shape[a]}")
        kind = KINDS[CODE_OF[c.dtype]]
        if kind in "iu":
            c = c.astype(np.float64)
        if isinstance(c, Tensor):      # concrete (also in xa.lazy): NumPy's uniformity test
            host = np.asarray(c)       # (NumPy's diff of booleans is !=)
            steps = host[1:] != host[:-1] if kind == "b" else host[1:] - host[:-1]
            if steps.size and (steps == steps[0]).all():
                out.append(steps[0])   # uniform: a scalar of the coordinates' dtype
                continue
        if kind == "b":
            raise TypeError("xa.gradient: boolean coordinates that are not uniform "
                            "(NumPy's boolean subtract is refused)")
        out.append(U.subtract(c[1:], c[:-1]))
    return out


def gradient(f, *varargs, axis=None, edge_order=1):
    """Central differences in the interior, one-sided (first or second order) at the
    edges, per axis. Spacing: one scalar, or a scalar or 1-D coordinate array per axis;
    non-uniform coordinates use NumPy's second-order formulas (under xa.jit traced
    coordinates always take the non-uniform formulas). One axis gives a tensor, several a
    tuple, as NumPy.

        >>> xa.gradient(xa.asarray([1.0, 2.0, 4.0]), xa.asarray([0.0, 1.0, 3.0]))
        # [1.0, 1.0, 1.0]"""
    f = as_operand(f)
    nd = f.ndim
    axes = tuple(range(nd)) if axis is None else normalize_axes(axis, nd, "gradient")
    dx = _spacings(varargs, f, axes)
    if edge_order not in (1, 2):
        raise ValueError(f"xa.gradient: edge_order must be 1 or 2, got {edge_order}")
    if KINDS[CODE_OF[f.dtype]] not in "fc":
        f = f.astype(np.float64)
    out = []
    for a, h in zip(axes, dx):
        n = f.shape[a]
        if n < edge_order + 1:
            raise ValueError("xa.gradient: shape of array too small to calculate a numerical "
                             f"gradient, at least (edge_order + 1) = {edge_order + 1} "
                             f"elements are required along axis {a}")

        def sl(s):
            return tuple(s if d == a else slice(None) for d in range(nd))
        if np.ndim(h) == 1:
            parts = _nonuniform(f, h, a, nd, edge_order, sl)
        else:
            parts = _uniform(f, h, edge_order, sl)
        out.append(concatenate(parts, axis=a).astype(f.dtype))
    return out[0] if len(out) == 1 else tuple(out)


def _uniform(f, h, edge_order, sl):
    """[first, interior, last] of the gradient along one axis with a uniform step h, in
    NumPy's arithmetic: the weights are Python operators on h (a Python number stays
    weak, a NumPy scalar keeps its dtype), and the second-order edges are a f0 + b f1 +
    c f2 with a = -1.5 / h, b = 2 / h, c = -0.5 / h (no intermediate 2 f1 to overflow)."""
    inner = U.divide(U.subtract(f[sl(slice(2, None))], f[sl(slice(None, -2))]), 2.0 * h)
    if edge_order == 1:
        first = U.divide(U.subtract(f[sl(slice(1, 2))], f[sl(slice(0, 1))]), h)
        last = U.divide(U.subtract(f[sl(slice(-1, None))], f[sl(slice(-2, -1))]), h)
        return [first, inner, last]

    def comb(w0, w1, w2, s0, s1, s2):
        return U.add(U.add(U.multiply(w0 / h, f[sl(s0)]), U.multiply(w1 / h, f[sl(s1)])),
                     U.multiply(w2 / h, f[sl(s2)]))
    first = comb(-1.5, 2.0, -0.5, slice(0, 1), slice(1, 2), slice(2, 3))
    last = comb(0.5, -2.0, 1.5, slice(-3, -2), slice(-2, -1), slice(-1, None))
    return [first, inner, last]


def _nonuniform(f, dx, a, nd, edge_order, sl):
    """[first, interior, last] with steps dx[i] = x[i+1] - x[i] (NumPy's formulas: the
    interior is exact for quadratics, a f[i-1] + b f[i] + c f[i+1])."""
    along = tuple(-1 if d == a else 1 for d in range(nd))

    def comb(w0, w1, w2, s0, s1, s2):
        terms = [U.multiply(w.reshape(along) if np.ndim(w) else w, f[sl(s)])
                 for w, s in ((w0, s0), (w1, s1), (w2, s2))]
        return U.add(U.add(terms[0], terms[1]), terms[2])
    d1, d2 = dx[:-1], dx[1:]
    s12 = U.add(d1, d2)
    inner = comb(U.negative(U.divide(d2, U.multiply(d1, s12))),
                 U.divide(U.subtract(d2, d1), U.multiply(d1, d2)),
                 U.divide(d1, U.multiply(d2, s12)),
                 slice(None, -2), slice(1, -1), slice(2, None))
    if edge_order == 1:
        first = U.divide(U.subtract(f[sl(slice(1, 2))], f[sl(slice(0, 1))]), dx[0])
        last = U.divide(U.subtract(f[sl(slice(-1, None))], f[sl(slice(-2, -1))]), dx[-1])
        return [first, inner, last]
    d1, d2 = dx[0], dx[1]
    s12 = U.add(d1, d2)
    first = comb(U.negative(U.divide(U.add(U.multiply(2.0, d1), d2), U.multiply(d1, s12))),
                 U.divide(s12, U.multiply(d1, d2)),
                 U.negative(U.divide(d1, U.multiply(d2, s12))),
                 slice(0, 1), slice(1, 2), slice(2, 3))
    d1, d2 = dx[-2], dx[-1]
    s12 = U.add(d1, d2)
    last = comb(U.divide(d2, U.multiply(d1, s12)),
                U.negative(U.divide(s12, U.multiply(d1, d2))),
                U.divide(U.add(U.multiply(2.0, d2), d1), U.multiply(d2, s12)),
                slice(-3, -2), slice(-2, -1), slice(-1, None))
    return [first, inner, last]


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences of the flattened ary, with to_begin / to_end around them."""
    a = ravel(as_operand(ary))
    d = U.subtract(a[1:], a[:-1])
    parts = []
    if to_begin is not None:
        parts.append(ravel(as_operand(to_begin)).astype(d.dtype))
    parts.append(d)
    if to_end is not None:
        parts.append(ravel(as_operand(to_end)).astype(d.dtype))
    return concatenate(parts) if len(parts) > 1 else d


__all__ = ["average", "diag", "diagflat", "atleast_1d", "atleast_2d", "atleast_3d", "ix_",
           "fromfunction", "ndindex", "ndenumerate", "logspace", "geomspace", "gradient",
           "ediff1d"]


# ------------------------------------------------------------------------ index helpers
def put(a, ind, v, mode="raise"):
    """NumPy's put: a.flat[ind] = v in place (v repeated to ind's length; mode 'raise',
    'wrap' or 'clip' for out-of-range indices). ``a`` must be a writable tensor."""
    if not isinstance(a, Tensor):
        raise TypeError(f"xa.put: a must be a tensor, got {type(a).__name__}")
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"xa.put: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    idx = np.asarray(ind, dtype=np.int64).reshape(-1)
    vals = np.asarray(v).reshape(-1)
    if idx.size == 0:
        return None
    if vals.size == 0:
        raise ValueError("xa.put: cannot put an empty sequence of values")
    n = a.size
    if mode == "wrap":
        idx = idx % n if n else idx
    elif mode == "clip":
        idx = np.clip(idx, 0, n - 1)
    elif n == 0 or idx.min() < -n or idx.max() >= n:
        bad = idx[(idx < -n) | (idx >= n)][0] if n else idx[0]
        raise IndexError(f"xa.put: index {int(bad)} is out of bounds for size {n}")
    vals = np.resize(vals, idx.size)
    whole = a.copy().reshape((n,))           # (a's own layout may be any: write it back)
    whole[asarray(idx)] = asarray(vals.astype(a.dtype, copy=False))
    a[...] = whole.reshape(tuple(a.shape))
    return None


def put_along_axis(arr, indices, values, axis):
    """NumPy's put_along_axis: arr[..., indices[..., i, ...], ...] = values in place
    (the indices' and values' other dims broadcast as NumPy's)."""
    if not isinstance(arr, Tensor):
        raise TypeError(f"xa.put_along_axis: arr must be a tensor, got {type(arr).__name__}")
    ind = np.asarray(indices)
    if ind.dtype.kind not in "iu":
        raise IndexError("xa.put_along_axis: indices must be an integer array")
    if axis is None:
        flat = arr.reshape((arr.size,))
        flat[asarray(ind.reshape(-1).astype(np.int64))] = values
        return None
    if ind.ndim != arr.ndim:
        raise ValueError(f"xa.put_along_axis: indices (ndim {ind.ndim}) and arr (ndim "
                         f"{arr.ndim}) must have the same number of dimensions")
    ax = normalize_axis(axis, arr.ndim, "put_along_axis")
    key = []
    for d in range(arr.ndim):
        if d == ax:
            key.append(asarray(ind.astype(np.int64)))
        else:
            shp = [1] * arr.ndim
            shp[d] = arr.shape[d]
            key.append(asarray(np.arange(arr.shape[d], dtype=np.int64).reshape(shp)))
    arr[tuple(key)] = values
    return None


def compress(condition, a, axis=None, out=None):
    """NumPy's compress: the slices of ``a`` along ``axis`` (flattened: None) where the 1-D
    ``condition`` is true (a shorter condition selects from the first slices only)."""
    cond = np.asarray(condition, dtype=bool)
    if cond.ndim != 1:
        raise ValueError(f"xa.compress: condition must be a 1-d array, got shape "
                         f"{cond.shape}")
    x = asarray(a) if not isinstance(a, (Tensor,)) else a
    if axis is None:
        x = x.reshape((x.size,))
        axis = 0
    ax = normalize_axis(axis, x.ndim, "compress")
    n = x.shape[ax]
    if cond.size > n and cond[n:].any():
        raise IndexError(f"xa.compress: index {int(np.flatnonzero(cond)[-1])} is out of "
                         f"bounds for axis {ax} with size {n}")
    picked = np.flatnonzero(cond[:n])
    res = take(x, asarray(picked.astype(np.int64)), axis=ax)
    if out is not None:
        out[...] = res
        return out
    return res


def choose(a, choices, out=None, mode="raise"):
    """NumPy's choose: out[i] = choices[a[i]][i], a and every choice broadcast together
    (mode 'raise', 'wrap' or 'clip' for indices outside [0, len(choices)))."""
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"xa.choose: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    idx = asarray(a) if not isinstance(a, Tensor) else a
    opts = [asarray(c) if not isinstance(c, Tensor) else c for c in choices]
    k = len(opts)
    if KINDS[CODE_OF[idx.dtype]] not in "biu":
        raise TypeError(f"xa.choose: a must hold integers, got {idx.dtype}")
    idx = idx.astype(np.int64)
    if mode == "wrap":
        idx = idx % k
    elif mode == "clip":
        idx = idx.clip(0, k - 1)
    elif idx.size and (int(idx.min()) < 0 or int(idx.max()) >= k):
        raise ValueError(f"xa.choose: invalid entry in choice array (indices must lie in "
                         f"[0, {k}))")
    shape = np.broadcast_shapes(tuple(idx.shape), *[tuple(c.shape) for c in opts])
    # NumPy's promotion, Python scalars weak: choose([0, 1], [int8 array, 3]) is int8
    dt = np.result_type(*[c if isinstance(c, (int, float, complex, bool)) else
                          np.dtype(o.dtype) for c, o in zip(choices, opts)])
    stacked = stack([broadcast_to(c.astype(dt), shape) for c in opts], axis=0)
    res = take_along_axis(stacked, broadcast_to(idx, shape).reshape((1,) + shape),
                          axis=0).reshape(shape)
    if out is not None:
        out[...] = res
        return out
    return res
