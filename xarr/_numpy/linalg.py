"""The members of NumPy's ``numpy.linalg`` and the Array API linalg extension that need no
LAPACK factorization, built on xarr's own ops (matmul / dot_general, reductions,
elementwise), so they run eagerly, under ``xa.jit`` and in ``xa.lazy`` alike:
``vector_norm``, ``matrix_norm``, NumPy's ``norm``, ``cross`` (NumPy's top-level
``xa.cross`` and the Array API's), ``diagonal``, ``outer``, ``trace``, ``multi_dot``,
``matrix_power`` and ``LinAlgError``. Batched over leading dims, any layout, NumPy's dtypes
(integers and bools become float64; complex norms are real) and NumPy's errors, each
message naming the function and the values.

Norms are NumPy's formulas, unscaled (a 2-norm whose squares overflow is inf, as NumPy's):
a sum of squares over every element is one dot product on the GEMM engine (one pass, no
temporary), other sums of squares ``sum(x * x)`` over the axes; complex values contribute
``re**2 + im**2``. Matrix 1 / inf norms are the max of column / row sums of ``|x|``.

    >>> xa.linalg.norm(xa.asarray([[3.0, 0.0], [0.0, 4.0]]))          # 5.0 (Frobenius)
    >>> xa.linalg.vector_norm(xa.asarray([3.0, -4.0]), ord=1)          # 7.0
    >>> xa.linalg.multi_dot([a, b, c])    # (a @ b) @ c or a @ (b @ c), the cheaper one

The matrix 2 / -2 / nuclear norms reduce the singular values of LAPACK's SVD
(xarr/_ops/lapack.py).
"""

import numbers
import operator
import warnings

import numpy as np

from xarr._axes import normalize_axes, normalize_axis
from xarr._dtypes import CODE_OF, KINDS, float64
from xarr._numpy import ufuncs as U
from xarr._numpy.contraction import diagonal as _diagonal
from xarr._numpy.contraction import _write_out, dot, matmul, outer as _outer
from xarr._numpy.contraction import trace as _trace
from xarr._numpy.manipulation import broadcast_to, copy, moveaxis, stack
from xarr._numpy.reductions import max as _max, min as _min, sum as _sum  # noqa: A004
from xarr._ops import contraction as C
from xarr._ops import lapack
from xarr._ops.creation import eye
from xarr._ops import structural as S
from xarr._ops.elementwise import broadcast_shapes, promote
from xarr._ops.structural import as_operand
from xarr._tensor import Tensor

__all__ = ["LinAlgError", "cross", "linalg_cross", "linalg_diagonal", "linalg_outer",
           "linalg_trace", "matrix_norm", "matrix_power", "multi_dot", "norm", "vector_norm"]

_INF = float("inf")
_REAL_OF = {np.dtype(np.complex64): np.dtype(np.float32),
            np.dtype(np.complex128): np.dtype(np.float64)}


class LinAlgError(np.linalg.LinAlgError):
    """A linear-algebra error (a singular or non-positive-definite matrix, an operand of
    the wrong rank): NumPy's ``numpy.linalg.LinAlgError``, also a ValueError."""


def _kind(x):
    return KINDS[CODE_OF[x.dtype]]


def _as_inexact(x):
    """x as a tensor of a float or complex dtype: integers and bools become float64, as
    numpy.linalg.norm converts them."""
    x = as_operand(x)
    return x if _kind(x) in "fc" else x.astype(float64)


# ------------------------------------------------------------------------ norms
def _dense_flat(x):
    """A 1-D unit-stride view of the elements of eager tensor ``x`` (in memory order), or
    None when they are not one dense block (tiled, padded, stepped views). Any order of
    dims and any signs of strides do: a sum over every element does not care."""
    if type(x) is not Tensor or x.flags["TILED"]:
        return None
    if x.flags["C_CONTIGUOUS"]:
        return x.reshape((x.size,))
    dims = [d for d in range(x.ndim) if x.shape[d] != 1]
    if any(x.strides[d] < 0 for d in dims):
        x = x[tuple(slice(None, None, -1) if x.strides[d] < 0 else slice(None)
                    for d in range(x.ndim))]
    dims.sort(key=lambda d: -x.strides[d])
    step = x.itemsize
    for d in reversed(dims):
        if x.strides[d] != step:
            return None
        step *= x.shape[d]
    rest = [d for d in range(x.ndim) if d not in dims]
    return S.transpose(x, tuple(rest + dims)).reshape((x.size,))


def _sum_abs2(x, axes, keepdims):
    """The sum over ``axes`` (normalized, distinct) of |x|**2, in x's real dtype. Over
    every element of an eager real x whose elements are one dense block it is one dot
    product on the GEMM engine (one pass, no temporary; the engine's dot of strided
    operands is slow); otherwise, and for complex x (re**2 + im**2), sum(x * x) over the
    axes (under xa.jit one fused pass too)."""
    if len(axes) == x.ndim and _kind(x) != "c":
        flat = _dense_flat(x)
        if flat is not None:
            total = C.dot_general(flat, flat, (((0,), (0,)), ((), ())))
            return total.reshape((1,) * x.ndim) if keepdims else total
    if _kind(x) == "c":
        re, im = U.real(x), U.imag(x)
        sq = U.add(U.multiply(re, re), U.multiply(im, im))
    else:
        sq = U.multiply(x, x)
    return _sum(sq, axis=axes, keepdims=keepdims)


def _vector(x, axes, ord, keepdims, fn):  # noqa: A002
    """The vector ``ord``-norm of inexact ``x`` over normalized ``axes`` (NumPy's
    formulas: max |x| for inf (0 when empty), min |x| for -inf, the count of non-zeros
    for 0, (sum |x|**p)**(1/p) otherwise)."""
    if isinstance(ord, str) or not (ord is None or isinstance(ord, numbers.Real)):
        shown = f"'{ord}'" if isinstance(ord, str) else repr(ord)
        raise ValueError(f"xa.linalg.{fn}: Invalid norm order {shown} for vectors")
    if ord is None or ord == 2:
        return U.sqrt(_sum_abs2(x, axes, keepdims))
    if ord == _INF:
        return _max(U.absolute(x), axis=axes, keepdims=keepdims, initial=0)
    if ord == -_INF:
        return _min(U.absolute(x), axis=axes, keepdims=keepdims)
    real = _REAL_OF.get(x.dtype, x.dtype)
    if ord == 0:
        return _sum(U.not_equal(x, 0).astype(real), axis=axes, keepdims=keepdims)
    if ord == 1:
        return _sum(U.absolute(x), axis=axes, keepdims=keepdims)
    powered = U.power(U.absolute(x), float(ord))
    total = _sum(powered, axis=axes, keepdims=keepdims)
    inv = float(np.reciprocal(np.asarray(float(ord)).astype(real)))  # 1/ord in the dtype
    return U.power(total, inv)


_SVD_ORDS = {2: _max, -2: _min, "nuc": _sum}   # reductions of the singular values


def _singular_value_norm(x, row, col, ord, keepdims, fn):  # noqa: A002
    """The matrix 2 / -2 / nuclear norm: the largest / smallest / sum of the singular
    values of the matrices in dims (row, col) (LAPACK's SVD, xarr/_ops/lapack.py)."""
    s, info = lapack.singular_values(moveaxis(x, (row, col), (-2, -1)))
    if (info > 0).any():
        raise LinAlgError(f"xa.linalg.{fn}: SVD did not converge")
    r = _SVD_ORDS[ord](s, axis=-1).astype(_REAL_OF.get(x.dtype, x.dtype))
    if keepdims:
        shape = list(x.shape)
        shape[row] = shape[col] = 1
        r = r.reshape(tuple(shape))
    return r


def _matrix(x, row, col, ord, keepdims, fn):  # noqa: A002
    """The matrix ``ord``-norm of inexact ``x`` over dims ``row``, ``col`` (normalized,
    distinct): 1 / -1 the max / min column sum of |x|, inf / -inf the max / min row sum,
    'fro' the square root of the sum of |x|**2."""
    if ord in (None, "fro", "f"):
        return U.sqrt(_sum_abs2(x, tuple(sorted((row, col))), keepdims))
    if isinstance(ord, (str, numbers.Real)) and ord in _SVD_ORDS:
        return _singular_value_norm(x, row, col, ord, keepdims, fn)
    if ord in (1, -1, _INF, -_INF) and not isinstance(ord, str):
        summed, over = (row, col) if ord in (1, -1) else (col, row)
        sums = _sum(U.absolute(x), axis=summed, keepdims=True)
        if ord > 0:
            r = _max(sums, axis=over, keepdims=True, initial=0)
        else:
            r = _min(sums, axis=over, keepdims=True)
        if keepdims:
            return r
        return r.reshape(tuple(n for d, n in enumerate(r.shape) if d not in (row, col)))
    raise ValueError(f"xa.linalg.{fn}: Invalid norm order for matrices: {ord!r} (valid: "
                     f"None, 'fro', 'nuc', 1, -1, 2, -2, inf, -inf)")


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    """NumPy's numpy.linalg.norm. ``axis`` None: the 2-norm of x flattened when ``ord`` is
    None (also for 'fro' of a matrix and 2 of a vector), else the vector norm of a 1-D x or
    the matrix norm of a 2-D x. An int axis (or a 1-tuple) gives vector norms along it, a
    2-tuple matrix norms of those dims; other counts raise ValueError("Improper number of
    dimensions to norm."). Vector ords: any real (inf, -inf, 0 ...); matrix ords: None,
    'fro', 'nuc', 1, -1, 2, -2, inf, -inf.

    >>> xa.linalg.norm(xa.asarray([[1.0, -2.0], [3.0, 4.0]]), ord=1)      # 6.0
    """
    x = _as_inexact(x)
    nd = x.ndim
    if axis is None:
        if ord is None or (isinstance(ord, str) and ord in ("f", "fro") and nd == 2) or \
                (not isinstance(ord, str) and ord == 2 and nd == 1):
            return U.sqrt(_sum_abs2(x, tuple(range(nd)), keepdims))
        axes = tuple(range(nd))
    elif isinstance(axis, tuple):
        axes = axis
    else:
        try:
            axes = (int(axis),)
        except (TypeError, ValueError):
            raise TypeError(f"xa.linalg.norm: 'axis' must be None, an integer or a tuple of "
                            f"integers, got {axis!r}") from None
    if len(axes) == 1:
        return _vector(x, (normalize_axis(axes[0], nd, "norm", "xa.linalg"),), ord,
                       keepdims, "norm")
    if len(axes) == 2:
        row, col = (normalize_axis(a, nd, "norm", "xa.linalg") for a in axes)
        if row == col:
            raise ValueError(f"xa.linalg.norm: Duplicate axes given: axis={axis!r} of a "
                             f"{nd}-d array")
        return _matrix(x, row, col, ord, keepdims, "norm")
    raise ValueError(f"xa.linalg.norm: Improper number of dimensions to norm: axis={axis!r} "
                     f"names {len(axes)} dims of shape {tuple(x.shape)} (1 for vector "
                     f"norms, 2 for matrix norms)")


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):  # noqa: A002
    """Array API vector_norm: the ``ord``-norm of the vectors along ``axis`` (an int, a
    tuple of any number of dims taken together, or None: every element). ``ord``: any
    real, inf, -inf or 0 (the count of non-zeros). Integer inputs give float64, complex
    ones their real dtype.

    >>> xa.linalg.vector_norm(xa.asarray([[3.0, 4.0], [0.0, 0.0]]), axis=1)  # [5., 0.]
    """
    x = _as_inexact(x)
    if axis is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axis, tuple):
        axes = normalize_axes(axis, x.ndim, "linalg.vector_norm")
    else:
        try:
            axis = int(axis)
        except (TypeError, ValueError):
            raise TypeError(f"xa.linalg.vector_norm: 'axis' must be None, an integer or a "
                            f"tuple of integers, got {axis!r}") from None
        axes = (normalize_axis(axis, x.ndim, "vector_norm", "xa.linalg"),)
    return _vector(x, tuple(sorted(axes)), ord, keepdims, "vector_norm")


def matrix_norm(x, /, *, keepdims=False, ord="fro"):  # noqa: A002
    """Array API matrix_norm: the ``ord``-norm of the matrices in the last two dims:
    'fro', 'nuc', 1, -1, 2, -2, inf, -inf.

    >>> xa.linalg.matrix_norm(xa.ones((5, 2, 3)), ord=xa.inf)            # [3., ... 3.]
    """
    x = _as_inexact(x)
    if x.ndim < 2:
        raise ValueError(f"xa.linalg.matrix_norm: x must have at least 2 dims (the "
                         f"matrices), got shape {tuple(x.shape)}")
    return _matrix(x, x.ndim - 2, x.ndim - 1, ord, keepdims, "matrix_norm")


# ------------------------------------------------------------------------ cross
def _cross_axis(axis, ndim, which):
    try:
        return normalize_axis(axis, ndim, "cross")
    except ValueError:
        raise ValueError(f"xa.cross: {which} {axis} is out of bounds for array of "
                         f"dimension {ndim}") from None


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """NumPy's cross: the cross products of the vectors along ``axisa`` of ``a`` and
    ``axisb`` of ``b`` (the other dims broadcast), the result's vectors along ``axisc``;
    ``axis`` sets all three. Vectors have 3 components, or 2 (deprecated in NumPy 2: a
    missing z is 0, and two 2-vectors give the z component alone).

    >>> xa.cross(xa.asarray([1, 0, 0]), xa.asarray([0, 1, 0]))          # [0, 0, 1]
    """
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = as_operand(a), as_operand(b)
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError(f"xa.cross: At least one array has zero dimension (shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)})")
    a = moveaxis(a, _cross_axis(axisa, a.ndim, "axisa"), -1)
    b = moveaxis(b, _cross_axis(axisb, b.ndim, "axisb"), -1)
    na, nb = a.shape[-1], b.shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError(f"xa.cross: incompatible dimensions for cross product (dimension "
                         f"must be 2 or 3), got vectors of {na} and {nb}")
    if na == 2 or nb == 2:
        warnings.warn("xa.cross: arrays of 2-dimensional vectors are deprecated (as in "
                      "NumPy 2.0); use arrays of 3-dimensional vectors instead",
                      DeprecationWarning, stacklevel=2)
    try:
        batch = broadcast_shapes(tuple(a.shape[:-1]), tuple(b.shape[:-1]))
    except ValueError:
        raise ValueError(f"xa.cross: shapes {tuple(a.shape)} and {tuple(b.shape)} (vectors "
                         f"last) do not broadcast") from None
    if na == 3 or nb == 3:
        axisc = _cross_axis(axisc, len(batch) + 1, "axisc")
    dt = promote([a, b])
    a = a if a.dtype == dt else a.astype(dt)
    b = b if b.dtype == dt else b.astype(dt)
    ac = [a[..., i] for i in range(na)]
    bc = [b[..., i] for i in range(nb)]

    def det2(i, j, k, m):       # ac[i] * bc[j] - ac[k] * bc[m]
        return U.subtract(U.multiply(ac[i], bc[j]), U.multiply(ac[k], bc[m]))

    if na == 2 and nb == 2:
        return broadcast_to(det2(0, 1, 1, 0), batch)
    if na == 3 and nb == 3:
        comps = [det2(1, 2, 2, 1), det2(2, 0, 0, 2), det2(0, 1, 1, 0)]
    elif na == 2:               # a2 = 0
        comps = [U.multiply(ac[1], bc[2]), U.negative(U.multiply(ac[0], bc[2])),
                 det2(0, 1, 1, 0)]
    else:                       # b2 = 0
        comps = [U.negative(U.multiply(ac[2], bc[1])), U.multiply(ac[2], bc[0]),
                 det2(0, 1, 1, 0)]
    cp = stack([broadcast_to(c, batch) for c in comps], axis=-1)
    return moveaxis(cp, -1, axisc)


def linalg_cross(x1, x2, /, *, axis=-1):
    """Array API linalg.cross (``xa.linalg.cross``): the cross products of the 3-vectors
    along ``axis`` of x1 and x2, the other dims broadcast.

    >>> xa.linalg.cross(xa.asarray([[1., 0, 0]]), xa.asarray([0., 1, 0]))  # [[0, 0, 1]]
    """
    x1, x2 = as_operand(x1), as_operand(x2)
    sizes = []
    for name, x in (("x1", x1), ("x2", x2)):
        try:
            sizes.append(x.shape[operator.index(axis)])
        except IndexError:
            raise IndexError(f"xa.linalg.cross: axis {axis} is out of range for {name} of "
                             f"shape {tuple(x.shape)}") from None
    if sizes != [3, 3]:
        raise ValueError(f"xa.linalg.cross: Both input arrays must be (arrays of) "
                         f"3-dimensional vectors, but they are {sizes[0]} and {sizes[1]} "
                         f"dimensional instead (axis {axis})")
    return cross(x1, x2, axis=axis)


# ------------------------------------------------------------------------ diagonal ...
def linalg_diagonal(x, /, *, offset=0):
    """Array API linalg.diagonal: the diagonals (``offset`` above the main one when
    positive) of the matrices in the last two dims, a view.

    >>> xa.linalg.diagonal(xa.asarray([[1, 2], [3, 4]]))                 # [1, 4]
    """
    x = as_operand(x)
    if x.ndim < 2:
        raise ValueError(f"xa.linalg.diagonal: x must have at least 2 dims, got shape "
                         f"{tuple(x.shape)}")
    return _diagonal(x, offset, -2, -1)


def linalg_outer(x1, x2, /):
    """Array API linalg.outer: result[i, j] = x1[i] * x2[j]; both operands must be 1-D."""
    for i, x in enumerate((x1, x2)):
        if getattr(x, "ndim", 1) != 1:
            raise ValueError(f"linalg.outer: x{i + 1} must be 1-D, got shape {x.shape}")
    return _outer(x1, x2)


def linalg_trace(x, /, *, offset=0, dtype=None):
    """Array API linalg.trace: the sums of the diagonals of the last two dims."""
    return _trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


# ------------------------------------------------------------------------ multi_dot
def _chain_order(dims):
    """The optimal parenthesization of the product of matrices i (dims[i] x dims[i + 1]):
    split[i][j] is the k at which the product of matrices i..j splits into (i..k)(k+1..j),
    by the classic O(n^3) dynamic program over multiply-add counts (ties: the first k)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain_product(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return matmul(_chain_product(mats, split, i, k), _chain_product(mats, split, k + 1, j))


def multi_dot(arrays, *, out=None):
    """NumPy's numpy.linalg.multi_dot: the product of two or more arrays in the order of
    fewest multiply-adds (the matrix-chain dynamic program), each product one matmul. A
    1-D first array is a row vector, a 1-D last one a column vector (and the result loses
    those dims); the others must be 2-D (LinAlgError otherwise). ``out`` receives the
    result.

    >>> xa.linalg.multi_dot([xa.ones(10), xa.ones((10, 1000)), xa.ones((1000, 5))])
    """
    mats = [as_operand(a) for a in arrays]
    if len(mats) < 2:
        raise ValueError(f"xa.linalg.multi_dot: Expecting at least two arrays, got "
                         f"{len(mats)}")
    first_1d, last_1d = mats[0].ndim == 1, mats[-1].ndim == 1
    if len(mats) == 2:          # NumPy's dot rules (any ranks)
        return _write_out(dot(mats[0], mats[1]), out, "xa.linalg.multi_dot")
    if first_1d:
        mats[0] = mats[0].reshape((1, mats[0].shape[0]))
    if last_1d:
        mats[-1] = mats[-1].reshape((mats[-1].shape[0], 1))
    for i, m in enumerate(mats):
        if m.ndim != 2:
            raise LinAlgError(f"xa.linalg.multi_dot: {m.ndim}-dimensional array given "
                              f"(array {i}, shape {tuple(m.shape)}). Array must be "
                              f"two-dimensional")
    for i in range(len(mats) - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise ValueError(f"xa.linalg.multi_dot: shapes {tuple(mats[i].shape)} (array "
                             f"{i}) and {tuple(mats[i + 1].shape)} (array {i + 1}) not "
                             f"aligned")
    dims = [mats[0].shape[0]] + [m.shape[1] for m in mats]
    res = _chain_product(mats, _chain_order(dims), 0, len(mats) - 1)
    if first_1d and last_1d:
        res = res.reshape(())
    elif first_1d or last_1d:
        res = res.reshape((res.size,))
    return _write_out(res, out, "xa.linalg.multi_dot")


# ------------------------------------------------------------------------ matrix_power
def matrix_power(a, n):
    """NumPy's numpy.linalg.matrix_power: the matrices in the last two dims of ``a`` (square)
    raised to the integer power ``n`` >= 0 by repeated squaring, each product one matmul
    (about 2 log2(n) of them); n = 0 gives identities of a's dtype. xa.linalg's
    matrix_power (xarr/_numpy/factorizations.py) inverts first for a negative n.

    >>> xa.linalg.matrix_power(xa.asarray([[1, 1], [0, 1]]), 5)         # [[1, 5], [0, 1]]
    """
    a = as_operand(a)
    if a.ndim < 2:
        raise LinAlgError(f"xa.linalg.matrix_power: {a.ndim}-dimensional array given "
                          f"(shape {tuple(a.shape)}). Array must be at least "
                          f"two-dimensional")
    if a.shape[-1] != a.shape[-2]:
        raise LinAlgError(f"xa.linalg.matrix_power: Last 2 dimensions of the array must be "
                          f"square, got shape {tuple(a.shape)}")
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"xa.linalg.matrix_power: exponent must be an integer, got "
                        f"{n!r}") from None
    if n < 0:
        raise ValueError(f"xa.linalg.matrix_power: n={n} < 0 needs the inverse: call "
                         f"xa.linalg.matrix_power, which inverts first")
    if n == 0:
        return copy(broadcast_to(eye(a.shape[-1], dtype=a.dtype), tuple(a.shape)))
    if n == 1:
        return copy(a)
    result, square = None, a
    while True:
        if n & 1:
            result = square if result is None else matmul(result, square)
        n >>= 1
        if not n:
            return result
        square = matmul(square, square)
