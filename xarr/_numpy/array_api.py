"""The Python Array API standard's namespace pieces that are not NumPy functions defined
elsewhere: ``__array_namespace_info__``, the data-type functions (``result_type``,
``can_cast``, ``finfo``, ``iinfo``) and a few creation/manipulation helpers (``meshgrid``,
``tril``, ``triu``, ``unstack``, ``diff``, ``matrix_transpose``).
"""

import builtins

import ml_dtypes
import numpy as np

from xarr._axes import normalize_axis
from xarr._dtypes import CODE_OF, KINDS, as_dtype, bfloat16
from xarr._numpy import ufuncs as U
from xarr._numpy.manipulation import broadcast_to, concatenate
from xarr._ops import structural as S
from xarr._ops.creation import zeros
from xarr._ops.elementwise import promote
from xarr._ops.structural import as_operand

__array_api_version__ = "2024.12"


class _Info:
    """What ``xa.__array_namespace_info__()`` returns (Array API inspection)."""

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": 32}

    def default_device(self):
        return "cpu"

    def devices(self):
        return ["cpu"]

    def default_dtypes(self, *, device=None):
        return {"real floating": np.dtype(np.float64), "complex floating":
                np.dtype(np.complex128), "integral": np.dtype(np.int64),
                "indexing": np.dtype(np.int64)}

    def dtypes(self, *, device=None, kind=None):
        groups = {
            "bool": ["bool"],
            "signed integer": ["int8", "int16", "int32", "int64"],
            "unsigned integer": ["uint8", "uint16", "uint32", "uint64"],
            "real floating": ["float32", "float64"],
            "complex floating": ["complex64", "complex128"],
        }
        groups["integral"] = groups["signed integer"] + groups["unsigned integer"]
        groups["numeric"] = groups["integral"] + groups["real floating"] + \
            groups["complex floating"]
        if kind is None:
            names = groups["bool"] + groups["numeric"]
        elif isinstance(kind, tuple):
            names = [n for k in kind for n in groups[k]]
        else:
            if kind not in groups:
                raise ValueError(f"dtypes: unknown kind {kind!r}")
            names = groups[kind]
        return {n: np.dtype(n) for n in names}


def __array_namespace_info__():
    return _Info()


def result_type(*arrays_and_dtypes):
    """The promoted dtype (NumPy 2 / Array API rules; Python scalars are weak)."""
    vals = []
    for v in arrays_and_dtypes:
        if isinstance(v, (builtins.bool, builtins.int, builtins.float, builtins.complex)):
            vals.append(v)
        elif isinstance(v, type):           # np.float32 (a scalar type has a .dtype too)
            vals.append(_DtypeOnly(as_dtype(v)))
        elif hasattr(v, "dtype"):
            vals.append(v)
        else:
            vals.append(_DtypeOnly(as_dtype(v)))
    if not vals:
        raise ValueError("result_type: at least one array or dtype is required")
    return promote(vals)


class _DtypeOnly:
    def __init__(self, dtype):
        self.dtype = dtype


def can_cast(from_, to, /):
    src = from_.dtype if hasattr(from_, "dtype") else as_dtype(from_)
    return builtins.bool(np.can_cast(src, as_dtype(to), "safe"))


def finfo(type_):
    dt = type_.dtype if hasattr(type_, "dtype") else as_dtype(type_)
    if dt == bfloat16:
        return ml_dtypes.finfo(dt)
    return np.finfo(dt)


def iinfo(type_):
    dt = type_.dtype if hasattr(type_, "dtype") else as_dtype(type_)
    return np.iinfo(dt)


def meshgrid(*arrays, indexing="xy"):
    """Coordinate tensors (broadcast views made dense) like NumPy's meshgrid."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    vals = [as_operand(a).reshape((-1,)) for a in arrays]
    shape = [v.shape[0] for v in vals]
    if indexing == "xy" and len(vals) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for k, v in enumerate(vals):
        dim = k
        if indexing == "xy" and len(vals) > 1 and k < 2:
            dim = 1 - k
        out.append(S.broadcast_in_dim(v, tuple(shape), (dim,)).copy())
    return out


def _tri_mask(shape, k, lower):
    n, m = shape[-2], shape[-1]
    rows = S.broadcasted_iota(np.int64, (n, m), 0)
    cols = S.broadcasted_iota(np.int64, (n, m), 1)
    return U.less_equal(cols - rows, k) if lower else U.greater_equal(cols - rows, k)


def tril(x, /, *, k=0):
    x = as_operand(x)
    if x.ndim < 2:
        raise ValueError(f"tril: needs at least 2 dims, got shape {tuple(x.shape)}")
    return U.where(_tri_mask(x.shape, k, True), x, zeros((), dtype=x.dtype))


def triu(x, /, *, k=0):
    x = as_operand(x)
    if x.ndim < 2:
        raise ValueError(f"triu: needs at least 2 dims, got shape {tuple(x.shape)}")
    return U.where(_tri_mask(x.shape, k, False), x, zeros((), dtype=x.dtype))


def unstack(x, /, *, axis=0):
    x = S.as_operand(x)
    a = normalize_axis(axis, x.ndim, "unstack")
    out = []
    for i in range(x.shape[a]):
        start, limit = [0] * x.ndim, list(x.shape)
        start[a], limit[a] = i, i + 1
        out.append(S.squeeze(S.slice(x, start, limit), (a,)))
    return tuple(out)


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    x = S.as_operand(x)
    a = normalize_axis(axis, x.ndim, "diff")
    if n < 0:
        raise ValueError(f"diff: order n must be non-negative, got {n}")
    if n == 0:
        return x    # NumPy: n=0 returns the input, without prepend / append
    parts = [v for v in (prepend, x, append) if v is not None]
    if len(parts) > 1:
        x = concatenate([S.as_operand(v) if S.as_operand(v).ndim else
                         broadcast_to(v, tuple(1 if i == a else d for i, d in
                                               enumerate(x.shape)))
                         for v in parts], axis=a)
    for _ in range(n):
        m = x.shape[a]
        if m == 0:
            break
        hi_start, lo_limit = [0] * x.ndim, list(x.shape)
        hi_start[a] = 1
        lo_limit[a] = m - 1
        hi = S.slice(x, hi_start, list(x.shape))
        lo = S.slice(x, [0] * x.ndim, lo_limit)
        x = U.not_equal(hi, lo) if x.dtype == np.bool_ else hi - lo
    return x


def matrix_transpose(x, /):
    x = as_operand(x)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: needs at least 2 dims, got {tuple(x.shape)}")
    return x.mT


def isdtype(dtype, kind):
    """Array API isdtype: whether ``dtype`` is of ``kind`` (a dtype, a kind name such as
    'real floating', or a tuple of them)."""
    code = CODE_OF.get(dtype)
    if code is None:
        raise TypeError(f"isdtype: {dtype!r} is not an xarr dtype")
    if isinstance(kind, tuple):
        return builtins.any(isdtype(dtype, k) for k in kind)
    groups = {"bool": "b", "signed integer": "i", "unsigned integer": "u",
              "integral": "iu", "real floating": "f", "complex floating": "c",
              "numeric": "iufc"}
    if isinstance(kind, str):
        if kind not in groups:
            raise ValueError(f"isdtype: unknown kind {kind!r}")
        return KINDS[code] in groups[kind]
    return dtype == kind
