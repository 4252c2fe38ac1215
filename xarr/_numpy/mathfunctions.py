"""NumPy's everyday scalar math that xarr builds from its elementwise functions
(xarr/_numpy/ufuncs.py), as NumPy defines each: ``fmax``, ``fmin``, ``heaviside``,
``divmod``, ``modf``, ``sinc``, ``deg2rad`` / ``radians``, ``rad2deg`` / ``degrees``,
``angle``, ``isreal``, ``iscomplex``, ``fix``, ``around``, ``nan_to_num``, ``unwrap``,
``gcd``, ``lcm``.
Being compositions of xarr ops they run eagerly, under xa.jit and in xa.lazy, where the
graph fuses each into one kernel.

    >>> xa.fmax(xa.asarray([1.0, float("nan")]), 0.5)      # [1.0, 0.5]: NaN ignored
"""

import math

import numpy as np

from xarr._dtypes import CODE_OF, DTYPES, KINDS
from xarr._numpy import ufuncs as U
from xarr._numpy.array_api import diff
from xarr._numpy.manipulation import concatenate
from xarr._numpy.reductions import cumsum
from xarr._ops.creation import full_like
from xarr._ops.elementwise import lax_apply
from xarr._ops.structural import as_operand
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
