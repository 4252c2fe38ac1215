"""Fuzz specs of issue 14's everyday NumPy functions (xarr/_numpy/helpers.py,
mathfunctions.py, nanfunctions.py), registered into fuzz_ops.SPECS: each against NumPy's
function of the same name on random values, shapes, storages and specials, eagerly,
under xa.jit and in xa.lazy."""

import numpy as np
from hypothesis import strategies as st

import xarr as xa
from fuzz_ops import (NOT_FUZZED, SPECS, Case, _axis, _one, _reduction, _simple, close,
                      exact, numpy_call, operand, quiet, shapes)

REAL_FLOATS = [xa.float16, xa.float32, xa.float64]
FLOATISH = REAL_FLOATS + [xa.complex64, xa.complex128]
NUMBERS = REAL_FLOATS + [xa.int32, xa.int64, xa.uint8, xa.int8]

for _n in ("nansum", "nanmean"):
    SPECS["xa." + _n] = _reduction(_n, FLOATISH + [xa.int32], close(8))


def _nanprod(draw):
    """NaNs among finite values (a product with 0 and inf is order-dependent: NumPy's
    left-to-right order and xarr's lanes differ there, as for xa.prod)."""
    shp = draw(shapes())
    dt = draw(st.sampled_from([xa.float32, xa.float64, xa.complex128]))
    x, _ = draw(operand(shp, dt, specials=0.0, low=-2, high=2))
    nan = np.random.default_rng(draw(st.integers(0, 99))).random(shp) < 0.3
    x = np.where(nan, np.nan, x).astype(x.dtype)
    t = xa.asarray(x)
    axis = _axis(draw, len(shp))
    return Case(run=quiet(lambda: xa.nanprod(t, axis=axis)),
                ref=lambda: numpy_call(np.nanprod, x, axis=axis), check=close(8),
                inputs={"x": x, "axis": axis}, traced=(lambda v: xa.nanprod(v, axis=axis), [t]))


SPECS["xa.nanprod"] = _nanprod
for _n in ("nanmax", "nanmin"):
    SPECS["xa." + _n] = _reduction(_n, REAL_FLOATS + [xa.int32], close(1))
for _n in ("nanvar", "nanstd"):
    SPECS["xa." + _n] = _reduction(_n, [xa.float32, xa.float64, xa.complex128], close(1e4),
                                   ddof=True)
for _n in ("nanargmax", "nanargmin"):
    SPECS["xa." + _n] = _reduction(_n, REAL_FLOATS + [xa.int16], exact)


def _cumulative(name):
    def case(draw):
        x, t = _one(draw, dtypes=FLOATISH)
        axis = None if draw(st.booleans()) or not x.ndim else draw(
            st.integers(-x.ndim, x.ndim - 1))
        fn = getattr(xa, name)
        return Case(run=quiet(lambda: fn(t, axis=axis)),
                    ref=lambda: numpy_call(getattr(np, name), x, axis=axis), check=close(8),
                    inputs={"x": x, "axis": axis}, traced=(lambda v: fn(v, axis=axis), [t]))
    return case


SPECS["xa.nancumsum"] = _cumulative("nancumsum")
SPECS["xa.nancumprod"] = _cumulative("nancumprod")

_NO_ARGS = lambda d, x: ((), {})  # noqa: E731
for _n, _dts, _check in (("sinc", REAL_FLOATS, close(64)), ("deg2rad", NUMBERS, close(2)),
                         ("rad2deg", NUMBERS, close(2)), ("radians", NUMBERS, close(2)),
                         ("degrees", NUMBERS, close(2)), ("fix", NUMBERS, exact),
                         ("angle", FLOATISH + [xa.int32], close(4)),
                         ("isreal", FLOATISH + [xa.int32], exact),
                         ("iscomplex", FLOATISH + [xa.int32], exact),
                         ("nan_to_num", FLOATISH + [xa.int32], exact),
                         ("modf", REAL_FLOATS, exact),
                         ("atleast_1d", NUMBERS, exact), ("atleast_2d", NUMBERS, exact),
                         ("atleast_3d", NUMBERS, exact), ("diagflat", NUMBERS, exact),
                         ("ediff1d", [xa.float32, xa.float64, xa.int64], exact)):
    SPECS["xa." + _n] = _simple(_n, _NO_ARGS, check=_check, dtypes=_dts)
SPECS["xa.around"] = _simple("around", lambda d, x: ((d(st.integers(-2, 3)),), {}),
                             check=close(2), dtypes=[xa.float32, xa.float64])
SPECS["xa.unwrap"] = _simple("unwrap", lambda d, x: ((), {"axis": d(st.integers(
    -x.ndim, x.ndim - 1))}), check=close(64), min_dims=1, dtypes=[xa.float32, xa.float64])
SPECS["xa.diag"] = _simple("diag", lambda d, x: ((d(st.integers(-3, 3)),), {}),
                           min_dims=1, dtypes=NUMBERS)
SPECS["xa.gradient"] = _simple("gradient", lambda d, x: (
    (d(st.sampled_from([1.0, 0.5, 2.0])),), {"edge_order": d(st.sampled_from([1, 2]))}),
    check=close(64), min_dims=1, dtypes=[xa.float32, xa.float64])
SPECS["xa.average"] = _simple("average", lambda d, x: ((), {"axis": _axis(d, x.ndim)}),
                              check=close(8), dtypes=[xa.float32, xa.float64, xa.int32])


def _binary(name, dtypes, check):
    def case(draw):
        shp = draw(shapes())
        dt = draw(st.sampled_from(dtypes))
        x, t = draw(operand(shp, dt))
        y, u = draw(operand(shp, dt))
        fn = getattr(xa, name)
        return Case(run=quiet(lambda: fn(t, u)),
                    ref=lambda: numpy_call(getattr(np, name), x, y), check=check,
                    inputs={"x": x, "y": y}, traced=(fn, [t, u]))
    return case


SPECS["xa.fmax"] = _binary("fmax", REAL_FLOATS + [xa.int32], exact)
SPECS["xa.fmin"] = _binary("fmin", REAL_FLOATS + [xa.int32], exact)
SPECS["xa.heaviside"] = _binary("heaviside", REAL_FLOATS, exact)
SPECS["xa.divmod"] = _binary("divmod", [xa.float32, xa.float64, xa.int32], exact)
SPECS["xa.gcd"] = _binary("gcd", [xa.int8, xa.uint8, xa.int32, xa.int64, xa.uint16], exact)
SPECS["xa.lcm"] = _binary("lcm", [xa.int8, xa.uint8, xa.int32, xa.int16], exact)

NOT_FUZZED.update({
    "xa.ndenumerate": "a Python iterator over elements: test_everyday_functions",
    "xa.logspace": "creation from scalars: test_everyday_functions",
    "xa.geomspace": "creation from scalars: test_everyday_functions",
    "xa.fromfunction": "calls a user function: test_everyday_functions",
    "xa.ix_": "index helpers from sequences: test_everyday_functions",
})
