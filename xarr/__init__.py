"""xarr: a NumPy alternative whose tensors carry an explicit XLA Shape and Layout.

>>> import xarr as xa
>>> a = xa.asarray([[1, 2, 3], [4, 5, 6]], dtype=xa.float32, layout=(0, 1))
>>> a.xla_shape
Shape('f32[2,3]{0,1}')
>>> a.storage().tolist()          # column-major storage, as seed 000 describes
[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]

The NumPy-style frontend is ``xa.*`` (NumPy 2 promotion and broadcasting); XLA's strict
operation semantics are ``xa.lax.*``. See docs/architecture.md for where everything lives.
"""

import builtins as _builtins

from xarr import _core
from xarr import _tensor as _tensor_mod
from xarr._dtypes import (bfloat16, bool_, complex64, complex128, float16, float32, float64,
                          int8, int16, int32, int64, uint8, uint16, uint32, uint64)
from xarr._shape import (ELEMENT_TYPES, Layout, Shape, Tile, TupleShape, linear_index,
                         multi_index)
from xarr._tensor import Tensor
from xarr._ops import elementwise as _elementwise
from xarr._ops import layout as _layout_ops
from xarr._creation import (arange, array, asarray, empty, empty_like, eye, from_dlpack,
                            full, full_like, linspace, ones, ones_like, tensor, zeros,
                            zeros_like)
from xarr import lax
from xarr._array_api import (__array_api_version__, __array_namespace_info__, can_cast, diff,
                             finfo, iinfo, matrix_transpose, meshgrid, result_type, tril,
                             triu, unstack)
from xarr._graph.jit import jit
from xarr._ops.reduction import (all, allclose, any, array_equal, count_nonzero, max, mean,
                                 min, prod, std, sum, var)
from xarr._ops.reduction import np_argmax as argmax, np_argmin as argmin  # noqa: E402
from xarr._ops.reduction import np_cumsum as cumsum, np_cumprod as cumprod  # noqa: E402
from xarr._ops.manipulation import (array_split, concat, concatenate, expand_dims, flip,
                                    hstack, isclose, moveaxis, pad, ravel, repeat, roll,
                                    split, squeeze, stack, swapaxes, tile, vstack)
from xarr._graph.lazy import eval, lazy  # noqa: A004
from xarr._ops.indexing import (argwhere, flatnonzero, nonzero, take,  # noqa: E402
                                take_along_axis)

ndarray = Tensor
bool = bool_  # noqa: A001  (Array API spelling)

__version__ = "0.1.0"


def _numpy_function(name):
    nop = _elementwise.NUMPY_OPS[name]
    arity = _elementwise.OPS[nop.lax].arity

    if arity == 1:
        def fn(x, /, *, out=None):
            return _elementwise.numpy_apply(name, x, out=out)
    else:
        def fn(x1, x2, /, *, out=None):
            return _elementwise.numpy_apply(name, x1, x2, out=out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"NumPy's ``{name}`` on the xarr engine (lax op ``{nop.lax}``): NumPy 2 "
                  f"promotion, broadcasting, ``out=``.")
    return fn


for _name in _elementwise.NUMPY_OPS:
    globals()[_name] = _numpy_function(_name)

# Array API / NumPy aliases.
abs = absolute  # noqa: F821,A001
conj = conjugate  # noqa: F821
pow = power  # noqa: F821,A001
bitwise_not = invert  # noqa: F821
bitwise_invert = invert  # noqa: F821
bitwise_left_shift = left_shift  # noqa: F821
bitwise_right_shift = right_shift  # noqa: F821
acos, asin, atan, atan2 = arccos, arcsin, arctan, arctan2  # noqa: F821
acosh, asinh, atanh = arccosh, arcsinh, arctanh  # noqa: F821
true_divide = divide  # noqa: F821
mod = remainder  # noqa: F821


def round(x, decimals=0, out=None):  # noqa: A001
    """Round half to even to ``decimals`` places (NumPy's ``round``; integers stay integers;
    ``xa.lax.round`` is half away from zero)."""
    x = asarray(x)
    kind = _elementwise._kind(x.dtype)
    if kind == "c":
        res = lax.complex(round(real(x), decimals), round(imag(x), decimals))  # noqa: F821
        if out is not None:
            out[...] = res
            return out
        return res
    if kind in "biu":
        if decimals >= 0:
            res = x.copy()
        else:
            scale = 10 ** (-decimals)
            res = (rint(x.astype(float64) / float(scale)) * float(scale)).astype(x.dtype)  # noqa: F821
    elif decimals == 0:
        return rint(x, out=out)  # noqa: F821
    elif decimals > 0:
        scale = 10.0 ** decimals
        res = rint(multiply(x, scale)) / scale  # noqa: F821
    else:
        scale = 10.0 ** (-decimals)
        res = rint(divide(x, scale)) * scale  # noqa: F821
    if out is not None:
        out[...] = res
        return out
    return res


def where(condition, x=None, y=None):
    """condition ? x : y elementwise with NumPy broadcasting and promotion; with only
    ``condition``, ``xa.nonzero(condition)``."""
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("xa.where: either both or neither of x and y should be given")
    cond = asarray(condition)
    if cond.dtype != bool_:
        cond = cond.astype(bool_)
    vals = [_elementwise._to_tensor_or_scalar(v) for v in (x, y)]
    rec = _elementwise.recorder([cond] + vals)
    dt = _elementwise._promote(vals)
    code = _elementwise.CODE_OF[dt]
    shape = _elementwise.broadcast_shapes(cond.shape, *[_np_shape(v) for v in vals],
                                          op="xa.where")
    ops = [_tensor_mod.strided(cond) if rec is None else
           _elementwise._as_operand("xa.where", cond, 0, rec)]
    ops += [_elementwise._as_operand("xa.where", v, code, rec) for v in vals]
    return _elementwise._execute(_elementwise.OPS["select"], code, ops, shape, None,
                                 "xa.where", rec)


def _np_shape(v):
    return v.shape if hasattr(v, "shape") else ()


def clip(x, min=None, max=None):  # noqa: A002
    """Elementwise min(max(x, min), max); either bound may be None."""
    if min is not None:
        x = maximum(x, min)  # noqa: F821
    if max is not None:
        x = minimum(x, max)  # noqa: F821
    return x


def broadcast_shapes(*shapes):
    return _elementwise.broadcast_shapes(*shapes, op="xa.broadcast_shapes")


def broadcast_to(x, shape):
    """A read-only broadcast view of ``x`` with ``shape`` (NumPy rules)."""
    x = asarray(x)
    shape = tuple(shape)
    if _elementwise.broadcast_shapes(x.shape, shape, op="xa.broadcast_to") != shape:
        raise ValueError(f"xa.broadcast_to: cannot broadcast shape {x.shape} to {shape}")
    off = len(shape) - x.ndim
    return lax.broadcast_in_dim(x.reshape((1,) * 0 + x.shape), shape,
                                tuple(range(off, len(shape))))


def broadcast_arrays(*arrays):
    ts = [asarray(a) for a in arrays]
    shape = _elementwise.broadcast_shapes(*[t.shape for t in ts], op="xa.broadcast_arrays")
    return [broadcast_to(t, shape) for t in ts]


def relayout(x, layout):
    """A copy of ``x`` stored with ``layout`` (xa.Layout, HLO text or minor_to_major)."""
    return _layout_ops.relayout(x, layout)


def reshape(x, shape):
    return asarray(x).reshape(shape)


def transpose(x, axes=None):
    return asarray(x).transpose(axes)


def permute_dims(x, axes):
    return asarray(x).transpose(axes)


amax, amin = max, min


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Array API cumulative_sum (NumPy's cumsum; ``include_initial`` prepends a 0)."""
    r = cumsum(x, axis, dtype)
    return _with_initial(r, axis, include_initial, 0)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    r = cumprod(x, axis, dtype)
    return _with_initial(r, axis, include_initial, 1)


def _with_initial(r, axis, include_initial, value):
    if not include_initial:
        return r
    a = 0 if axis is None else axis % r.ndim
    shape = list(r.shape)
    shape[a] = 1
    return concatenate([full(tuple(shape), value, dtype=r.dtype), r], axis=a)


def copy(x):
    """A new tensor with x's values (row-major unless x's layout is kept by the op)."""
    return asarray(x).copy()


def astype(x, dtype, /, *, copy=True):
    return asarray(x).astype(dtype, copy=copy)


def get_num_threads():
    """Threads the kernels use (OpenMP; OMP_NUM_THREADS and threadpoolctl apply)."""
    return _core.get_num_threads()


def set_num_threads(n):
    """Sets the kernel thread count (n >= 1)."""
    _core.set_num_threads(int(n))


isdtype = None  # replaced below


def _isdtype(dtype, kind):
    from xarr._dtypes import KINDS, CODE_OF as _C
    code = _C[_layout_ops.DTYPES[_C[dtype]]] if dtype in _C else None
    if code is None:
        raise TypeError(f"isdtype: {dtype!r} is not an xarr dtype")
    if isinstance(kind, tuple):
        return _builtins.any(_isdtype(dtype, k) for k in kind)
    groups = {"bool": "b", "signed integer": "i", "unsigned integer": "u",
              "integral": "iu", "real floating": "f", "complex floating": "c",
              "numeric": "iufc"}
    if isinstance(kind, str):
        if kind not in groups:
            raise ValueError(f"isdtype: unknown kind {kind!r}")
        return KINDS[code] in groups[kind]
    return dtype == kind


isdtype = _isdtype

e = 2.718281828459045
pi = 3.141592653589793
inf = float("inf")
nan = float("nan")
newaxis = None
