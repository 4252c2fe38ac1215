"""Element types: xarr's dtype table, shared with the C++ core by code.

xarr's dtypes are NumPy dtype objects (``xa.float32 is np.dtype('float32')``), with bfloat16
from ``ml_dtypes``; shape text uses XLA's short names. The code of each type is its index in
``DTYPES`` and equals the ``xarr::DType`` enum in ``csrc/core/dtype.h``.

>>> XLA_NAMES[CODE_OF[np.dtype('float32')]]
'f32'
"""

import ml_dtypes
import numpy as np

__all__ = [
    "DTYPES", "XLA_NAMES", "CODE_OF", "CODE_OF_XLA", "dtype_code", "as_dtype",
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

# Index = xarr::DType code. Never reorder.
DTYPES = (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
          float16, bfloat16, float32, float64, complex64, complex128)
XLA_NAMES = ("pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64",
             "f16", "bf16", "f32", "f64", "c64", "c128")
CODE_OF = {dt: i for i, dt in enumerate(DTYPES)}
CODE_OF_XLA = {name: i for i, name in enumerate(XLA_NAMES)}

# Kinds: 'b' pred, 'i' signed, 'u' unsigned, 'f' float (incl. bf16), 'c' complex.
KINDS = ("b", "i", "i", "i", "i", "u", "u", "u", "u", "f", "f", "f", "f", "c", "c")


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
