"""NumPy's everyday scalar math that xarr builds from its elementwise functions
(xarr/_numpy/ufuncs.py), as NumPy defines each: ``fmax``, ``fmin``, ``heaviside``,
``divmod``, ``modf``, ``sinc``, ``deg2rad`` / ``radians``, ``rad2deg`` / ``degrees``,
``angle``, ``isreal``, ``iscomplex``, ``fix``, ``around``, ``nan_to_num``, ``unwrap``,
``gcd``, ``lcm``, ``frexp``, ``ldexp``, ``spacing``, ``reciprocal``.
Being compositions of xarr ops they run eagerly, under xa.jit and in xa.lazy, where the
graph fuses each into one kernel.

    >>> xa.fmax(xa.asarray([1.0, float("nan")]), 0.5)      # [1.0, 0.5]: NaN ignored
"""

import math

import numpy as np

from xarr._dtypes import CODE_OF, DTYPES, KINDS, bfloat16
from xarr._numpy import ufuncs as U
from xarr._numpy.array_api import diff
from xarr._numpy.manipulation import concatenate
from xarr._numpy.reductions import cumsum
from xarr._ops.creation import full_like
from xarr._ops.elementwise import lax_apply
from xarr._ops.structural import as_operand, bitcast_convert_type
from xarr._tensor import Tensor


def lax_complex(re, im):
    return lax_apply("complex", re, im)


def _kind(x):
    return KINDS[CODE_OF[x.dtype]]


def _float(x):
    """x as a tensor of a float (or complex) dtype, as NumPy's float-only ufuncs take
    integers and bools: the smallest float that holds them (uint8 -> float16, int16 ->
    float32, int32 -> float64)."""
    x = as_operand(x)
    return x if _kind(x) in "fc" else x.astype(np.promote_types(x.dtype, np.float16))


def _float64(x):
    """x as a float tensor, integers and bools as float64 (what pi * x gives in NumPy)."""
    x = as_operand(x)
    return x if _kind(x) in "fc" else x.astype(np.float64)


def fmax(x1, x2):
    """The larger of x1 and x2, ignoring a NaN (NaN only where both are)."""
    m = U.maximum(x1, x2)
    if KINDS[CODE_OF[m.dtype]] not in "fc":
        return m
    return U.where(U.isnan(x2), x1, U.where(U.isnan(x1), x2, m)).astype(m.dtype)


def fmin(x1, x2):
    """The smaller of x1 and x2, ignoring a NaN (NaN only where both are)."""
    m = U.minimum(x1, x2)
    if KINDS[CODE_OF[m.dtype]] not in "fc":
        return m
    return U.where(U.isnan(x2), x1, U.where(U.isnan(x1), x2, m)).astype(m.dtype)


def heaviside(x1, x2):
    """0 where x1 < 0, x2 where x1 == 0, 1 where x1 > 0, NaN where x1 is NaN; a float
    result (float64 for integers)."""
    dt = U.add(x1, x2).dtype
    if KINDS[CODE_OF[dt]] != "f":                # the smallest float that holds them
        dt = np.promote_types(dt, np.float16)
    r = U.where(U.less(x1, 0), 0.0, U.where(U.greater(x1, 0), 1.0, x2))
    return U.where(U.isnan(x1), float("nan"), r).astype(dt)


def divmod(x1, x2):  # noqa: A001
    """(x1 // x2, x1 % x2), NumPy's floor division and remainder."""
    return U.floor_divide(x1, x2), U.remainder(x1, x2)


def modf(x):
    """(fractional part, integral part), both with x's sign: modf(-2.5) = (-0.5, -2.0),
    modf(-2.0) = (-0.0, -2.0), modf(inf) = (0.0, inf)."""
    x = _float(x)
    i = U.trunc(x)
    f = U.where(U.isinf(x), 0.0, U.subtract(x, i)).astype(x.dtype)
    return U.copysign(f, x), i


def sinc(x):
    """sin(pi x) / (pi x), 1 at 0 (NumPy's formula: pi x = 0 is evaluated at the
    dtype's epsilon, 1e-20 for complex)."""
    y = U.multiply(math.pi, _float64(x))        # (NumPy: pi * x, float64 for integers)
    eps = float(np.finfo(y.dtype).eps) if _kind(y) == "f" else 1.0e-20
    y = U.where(U.not_equal(y, 0), y, eps).astype(y.dtype)
    return U.divide(U.sin(y), y)


def deg2rad(x):
    return U.multiply(_float(x), math.pi / 180.0)


def rad2deg(x):
    return U.multiply(_float(x), 180.0 / math.pi)


radians = deg2rad
degrees = rad2deg


def angle(z, deg=False):
    """The argument of z, arctan2(imag, real), in radians or degrees: 0 or pi for reals
    (pi for -0.0, as NumPy)."""
    z = as_operand(z)
    if _kind(z) == "c":
        a = U.arctan2(U.imag(z), U.real(z))
    else:
        zf = _float(z)
        a = U.arctan2(full_like(zf, 0.0), zf)
    return U.multiply(a, 180.0 / math.pi) if deg else a


def isreal(x):
    """Elementwise: the imaginary part is zero (every element of a real dtype)."""
    x = as_operand(x)
    return U.equal(U.imag(x), 0) if _kind(x) == "c" else full_like(x, True, np.bool_)


def iscomplex(x):
    """Elementwise: the imaginary part is not zero (no element of a real dtype)."""
    x = as_operand(x)
    return U.not_equal(U.imag(x), 0) if _kind(x) == "c" else full_like(x, False, np.bool_)


def fix(x):
    """Rounds toward zero, keeping x's dtype (integers unchanged)."""
    x = as_operand(x)
    return U.trunc(x) if _kind(x) in "fc" else x.copy()


def around(a, decimals=0, out=None):
    """NumPy's ``around``, an alias of ``round``."""
    return U.round(a, decimals, out)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """x with NaN -> ``nan``, +inf -> ``posinf`` (default: the dtype's largest finite
    value) and -inf -> ``neginf`` (its most negative); complex parts each. Integers and
    bools are returned as they are (a copy unless copy=False). copy=False writes the
    result into x when x is a tensor."""
    t = as_operand(x)
    k = _kind(t)
    if k not in "fc":
        return t.copy() if copy else t
    if k == "c":
        re = nan_to_num(U.real(t), True, nan, posinf, neginf)
        im = nan_to_num(U.imag(t), True, nan, posinf, neginf)
        r = lax_complex(re, im)             # (keeps the sign of a zero part)
    else:
        info = np.finfo(DTYPES[CODE_OF[t.dtype]])
        hi = float(info.max) if posinf is None else posinf
        lo = float(info.min) if neginf is None else neginf
        r = U.where(U.isnan(t), nan, U.where(U.equal(t, float("inf")), hi,
                                             U.where(U.equal(t, float("-inf")), lo, t)))
        r = r.astype(t.dtype)
    if not copy and t is x:
        x[...] = r
        return x
    return r


def unwrap(p, discont=None, axis=-1, *, period=2 * math.pi):
    """Unwraps phase p along ``axis``: where neighbours jump by more than
    max(discont, period / 2), the jump is replaced by its complement modulo ``period``
    (NumPy's algorithm for float input; integer input is computed in float64)."""
    p = _float64(p)                             # (NumPy: float64 for integers)
    nd = p.ndim
    a = axis % nd if nd else 0
    dd = diff(p, axis=a)
    if discont is None:
        discont = period / 2
    half = period / 2
    ddmod = U.subtract(U.remainder(U.add(dd, half), period), half)
    ddmod = U.where(U.logical_and(U.equal(ddmod, -half), U.greater(dd, 0)), half, ddmod)
    correct = U.subtract(ddmod, dd)
    correct = U.where(U.less(U.absolute(dd), discont), 0.0, correct).astype(p.dtype)
    first = tuple(slice(0, 1) if d == a else slice(None) for d in range(nd))
    rest = tuple(slice(1, None) if d == a else slice(None) for d in range(nd))
    return concatenate([p[first], U.add(p[rest], cumsum(correct, axis=a))], axis=a)


def _euclid_steps(dtype):
    """Remainder steps that finish Euclid's algorithm on any |a|, |b| of ``dtype``: the
    worst case is consecutive Fibonacci numbers, F(k) < 2**bits for k < 1.45 bits + 2."""
    return int(1.45 * 8 * np.dtype(dtype).itemsize) + 3


def gcd(x1, x2):
    """The greatest common divisor of |x1| and |x2| (integers; gcd(0, 0) = 0), by
    Euclid's algorithm on whole tensors. Eagerly it stops once every remainder is 0;
    under xa.jit it runs the dtype's worst-case step count (a fixed graph)."""
    a, b = as_operand(U.add(x1, 0)), as_operand(U.add(x2, 0))
    dt = U.add(a, b).dtype
    if KINDS[CODE_OF[dt]] not in "iu":
        raise TypeError(f"xa.gcd: integer operands required, got {a.dtype} and {b.dtype}")
    a, b = U.absolute(a.astype(dt)), U.absolute(b.astype(dt))
    for _ in range(_euclid_steps(dt)):
        if isinstance(b, Tensor) and not bool(U.not_equal(b, 0).any()):
            break
        nz = U.not_equal(b, 0)
        # C's truncated remainder, as NumPy's npy_gcd (|INT_MIN| stays negative)
        a, b = U.where(nz, b, a), U.where(nz, U.fmod(a, U.where(nz, b, 1)), 0)
    return a


def lcm(x1, x2):
    """The least common multiple of |x1| and |x2| (0 when either is 0)."""
    g = gcd(x1, x2)
    a = U.absolute(U.add(x1, U.multiply(g, 0)))
    b = U.absolute(U.add(x2, U.multiply(g, 0)))
    return U.where(U.equal(g, 0), 0, U.multiply(U.floor_divide(a, U.where(U.equal(g, 0), 1, g)),
                                                 b)).astype(g.dtype)


# ------------------------------------------------------------------ the float bit fields
# dtype -> (mantissa bits, exponent bits, exponent bias, signed integer of the same width).
# Worked example, float64: 1.0 is 0x3FF0000000000000, exponent field 1023 = the bias.
_FLOAT_FIELDS = {np.dtype(bfloat16): (7, 8, 127, np.int16),
                 np.dtype(np.float16): (10, 5, 15, np.int16),
                 np.dtype(np.float32): (23, 8, 127, np.int32),
                 np.dtype(np.float64): (52, 11, 1023, np.int64)}


def _fields(x, fname):
    dt = np.dtype(x.dtype)
    if dt not in _FLOAT_FIELDS:
        raise TypeError(f"xa.{fname}: not supported for dtype {x.dtype} (float16, float32, "
                        "float64, or integers)")
    return _FLOAT_FIELDS[dt]


def _pow2(j, dtype):
    """2.0**j in ``dtype`` for integer tensor j in [smallest subnormal exponent, bias],
    built from its bits (exact, subnormal powers included): 2**-1074 is bits 1."""
    mb, _, bias, itype = _FLOAT_FIELDS[np.dtype(dtype)]
    j = j.astype(itype)
    normal = U.left_shift(U.add(j, bias), mb)
    sub = U.left_shift(U.where(U.less(j, 1 - bias), 1, 0).astype(itype),
                       U.maximum(U.subtract(j, 1 - bias - mb), 0))
    return bitcast_convert_type(U.where(U.less(j, 1 - bias), sub, normal).astype(itype),
                                dtype)


def frexp(x):
    """(m, e) with x = m * 2**e and 0.5 <= |m| < 1, e as int32; (x, 0) where x is 0, inf
    or NaN. Integers and bools are computed in the smallest float that holds them, as
    NumPy: frexp(-3.0) = (-0.75, 2), frexp(5e-324) = (0.5, -1073)."""
    x = _float(x)
    mb, eb, bias, itype = _fields(x, "frexp")
    emask = (1 << eb) - 1
    scale = mb + 2                         # lifts the smallest subnormal into the normals
    bits = bitcast_convert_type(x, itype)
    tiny = U.logical_and(U.equal(U.bitwise_and(U.right_shift(bits, mb), emask), 0),
                         U.not_equal(x, 0))
    xs = U.where(tiny, U.multiply(x, float(2 ** scale)), x).astype(x.dtype)
    bits = bitcast_convert_type(xs, itype)
    field = U.bitwise_and(U.right_shift(bits, mb), emask)
    special = U.logical_or(U.equal(x, 0), U.equal(field, emask))
    e = U.subtract(U.subtract(field, bias - 1), U.where(tiny, scale, 0).astype(itype))
    keep = ~(emask << mb)                  # sign and mantissa bits, as a signed value
    mbits = U.bitwise_or(U.bitwise_and(bits, keep), (bias - 1) << mb)
    m = bitcast_convert_type(mbits.astype(itype), x.dtype)
    # (specials as x * 1: the value, with a signaling NaN quieted as C's frexp returns it)
    return (U.where(special, U.multiply(x, 1), m).astype(x.dtype),
            U.where(special, 0, e).astype(np.int32))


def ldexp(x1, x2):
    """x1 * 2**x2 with one rounding (subnormal results and overflow to inf as C's ldexp).
    x2 must be an integer (NumPy refuses floats); x1's integers and bools are computed in
    the smallest float that holds them. ldexp(0.75, 2) = 3.0, ldexp(1.0, -1074) = 5e-324.

    Method: x1 = m * 2**e (frexp); k = e + x2 clamped where the result is already 0 or
    inf; the result is (m * 2**a) * 2**b with b the part of k in the dtype's exponent
    range, m * 2**a exact, so the last product rounds once."""
    x1, n = _float(x1), as_operand(x2)
    if _kind(n) not in "biu" or np.dtype(n.dtype) == np.uint64:
        raise TypeError(f"xa.ldexp: the exponent x2 must be an integer that fits int64 "
                        f"(NumPy's loops), got {n.dtype}")
    mb, _, bias, _ = _fields(x1, "ldexp")
    lo, hi = 1 - bias - mb, bias           # exponents of the smallest subnormal, the max
    n = U.clip(n.astype(np.int64), -(1 << 20), 1 << 20)
    m, e = frexp(x1)
    k = U.clip(U.add(e.astype(np.int64), n), lo - 2, hi + 2)
    b = U.clip(k, lo, hi)
    a = U.subtract(k, b)                   # in [-2, 2]
    return U.multiply(U.multiply(m, _pow2(a, x1.dtype)), _pow2(b, x1.dtype))


def spacing(x):
    """The distance from x to the next float away from zero (toward +inf at +-0, so
    spacing(-0.0) is the smallest positive subnormal, as NumPy); NaN at inf and NaN, inf at
    the largest finite value. float16 follows NumPy's half-precision loop: the step toward
    +inf for every x, never negative (spacing(-1.0) = 2**-11). Integers in the smallest
    float that holds them."""
    x = _float(x)
    if _kind(x) != "f":
        raise TypeError(f"xa.spacing: not supported for dtype {x.dtype}")
    if np.dtype(x.dtype) == np.float16:    # NumPy's half spacing: toward +inf, so >= 0
        toward = full_like(x, float("inf"))
    else:
        toward = U.where(U.less(x, 0), float("-inf"), float("inf")).astype(x.dtype)
    d = U.subtract(U.nextafter(x, toward), x)
    # (float16: NumPy's half loop returns its one NaN, 0x7E00, for every NaN input)
    bad = U.isinf(x) if np.dtype(x.dtype) != np.float16 else U.logical_not(U.isfinite(x))
    return U.where(bad, float("nan"), d).astype(x.dtype)


def reciprocal(x):
    """1 / x in x's dtype. Integers as NumPy (C's truncating 1 / x: 1, -1 or 0; 1 / 0 is
    what x86 gives NumPy: the dtype's minimum for int32 / int64, else 0); bools as int8."""
    x = as_operand(x)
    k = _kind(x)
    if k == "f":
        return U.divide(1, x)
    if k == "c":                # NumPy's loop (Smith's division of 1 by x), its zero signs
        re, im = U.real(x), U.imag(x)
        by_re = U.greater_equal(U.absolute(re), U.absolute(im))
        r = U.where(by_re, U.divide(im, re), U.divide(re, im))
        d = U.where(by_re, U.add(re, U.multiply(im, r)), U.add(U.multiply(re, r), im))
        # (NumPy divides -r and -1 by d: the sign of a NaN part is theirs, not negated)
        return lax_complex(U.where(by_re, U.divide(1, d), U.divide(r, d)),
                           U.where(by_re, U.divide(U.negative(r), d), U.divide(-1, d)))
    if k == "b":
        x = x.astype(np.int8)
    dt = np.dtype(x.dtype)
    zero = int(np.iinfo(dt).min) if dt in (np.dtype(np.int32), np.dtype(np.int64)) else 0
    r = U.where(U.equal(x, 1), 1, U.where(U.equal(x, 0), zero, 0))
    if k == "i":
        r = U.where(U.equal(x, -1), -1, r)
    return r.astype(dt)
