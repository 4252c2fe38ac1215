"""Element types: xarr's dtype table, shared with the C++ core by code.

xarr's dtypes are NumPy dtype objects (``xa.float32 is np.dtype('float32')``), with bfloat16
from ``ml_dtypes``; shape text uses XLA's short names. The table itself (code, XLA name,
kind, size) is the C++ core's (csrc/core/dtype.h, read through ``_core.dtypes()``); this
module adds the NumPy dtype of each XLA name and the dtype rules every layer shares.

>>> XLA_NAMES[CODE_OF[np.dtype('float32')]]
'f32'
"""

import warnings

import ml_dtypes
import numpy as np

from xarr import _core

__all__ = [
    "DTYPES", "XLA_NAMES", "KINDS", "CODE_OF", "CODE_OF_XLA", "dtype_code", "as_dtype",
    "check_python_int", "check_python_scalar", "warn_complex_to_real",
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
]

bool_ = np.dtype(np.bool_)
int8 = np.dtype(np.int8)
int16 = np.dtype(np.int16)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
uint8 = np.dtype(np.uint8)
uint16 = np.dtype(np.uint16)
uint32 = np.dtype(np.uint32)
uint64 = np.dtype(np.uint64)
float16 = np.dtype(np.float16)
bfloat16 = np.dtype(ml_dtypes.bfloat16)
float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
complex64 = np.dtype(np.complex64)
complex128 = np.dtype(np.complex128)

# The NumPy dtype of each XLA element type name.
_NUMPY_OF_XLA = {"pred": bool_, "s8": int8, "s16": int16, "s32": int32, "s64": int64,
                 "u8": uint8, "u16": uint16, "u32": uint32, "u64": uint64,
                 "f16": float16, "bf16": bfloat16, "f32": float32, "f64": float64,
                 "c64": complex64, "c128": complex128}

_TABLE = _core.dtypes()                          # [(XLA name, kind, itemsize)] by code
XLA_NAMES = tuple(name for name, _, _ in _TABLE)
# Kinds: 'b' pred, 'i' signed, 'u' unsigned, 'f' float (incl. bf16), 'c' complex.
KINDS = tuple(kind for _, kind, _ in _TABLE)
DTYPES = tuple(_NUMPY_OF_XLA[name] for name in XLA_NAMES)   # index = xarr::DType code
CODE_OF = {dt: i for i, dt in enumerate(DTYPES)}
CODE_OF_XLA = {name: i for i, name in enumerate(XLA_NAMES)}
assert all(dt.itemsize == size for dt, (_, _, size) in zip(DTYPES, _TABLE))


def as_dtype(dtype):
    """The xarr dtype (a NumPy dtype) for anything NumPy understands, or an XLA name.

    ``as_dtype('f32') == as_dtype('float32') == as_dtype(np.float32) == xa.float32``;
    ``as_dtype(float)`` is float64, ``as_dtype(int)`` int64, ``as_dtype(bool)`` bool.
    Raises TypeError naming the value for anything else (object, strings, datetimes ...).
    """
    if isinstance(dtype, np.dtype) and dtype in CODE_OF:
        return dtype
    if isinstance(dtype, str) and dtype in CODE_OF_XLA:
        return DTYPES[CODE_OF_XLA[dtype]]
    if isinstance(dtype, str) and dtype == "bfloat16":
        return bfloat16
    try:
        dt = np.dtype(dtype)
    except TypeError:
        dt = None
    if dt is None or dt not in CODE_OF:
        raise TypeError(f"xarr does not support dtype {dtype!r}; supported: "
                        f"{', '.join(str(d) for d in DTYPES)}")
    return dt


def dtype_code(dtype):
    """The xarr::DType code of ``dtype`` (see as_dtype)."""
    return CODE_OF[as_dtype(dtype)]


def check_python_int(op, value, dtype):
    """NumPy 2's rule for a Python int given for an integer dtype: it must fit, else
    OverflowError naming ``op`` (``uint8 + 300`` and ``full(3, -1, uint8)`` raise)."""
    if isinstance(value, int) and not isinstance(value, bool) and dtype.kind in "iu":
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise OverflowError(f"{op}: Python integer {value} out of bounds for {dtype}")


def check_python_scalar(op, value, dtype):
    """NumPy's rules for a Python scalar stored into an element of ``dtype`` (assignment,
    ``full``): an int must fit an integer dtype (OverflowError); a float stored into an
    integer dtype must be finite and in range (ValueError for NaN, OverflowError for
    infinities and out-of-range values; it is then truncated); a complex cannot become a
    real number (TypeError). ``i64[0] = nan`` raises, ``i64[0] = 2.7`` stores 2."""
    check_python_int(op, value, dtype)
    kind = KINDS[CODE_OF[dtype]]
    if isinstance(value, complex) and kind != "c":
        if type(value) is complex:
            raise TypeError(f"{op}: cannot store the complex value {value!r} in a {dtype} "
                            f"tensor")
        warn_complex_to_real(op)     # a NumPy complex scalar: NumPy warns and casts
    if isinstance(value, float) and kind in "iu":
        if value != value:
            raise ValueError(f"{op}: cannot convert float NaN to integer ({dtype})")
        if value in (float("inf"), float("-inf")):
            raise OverflowError(f"{op}: cannot convert float {value} to integer ({dtype})")
        check_python_int(op, int(value), dtype)


def warn_complex_to_real(op):
    """NumPy's ComplexWarning for complex values cast to a real dtype by assignment."""
    warnings.warn(f"{op}: casting complex values to real discards the imaginary part",
                  np.exceptions.ComplexWarning, stacklevel=4)
