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
                         ("frexp", NUMBERS, exact), ("spacing", NUMBERS, exact),
                         ("reciprocal", FLOATISH + [xa.int8, xa.int32, xa.uint16], exact),
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
def _gradient_args(draw, x):
    """A scalar spacing, or (with one axis) a coordinate array along it: increasing,
    decreasing, integer or uniform. Fewer than 2 coordinates: NumPy raises IndexError from
    its uniformity check, xarr the ValueError of too few elements, so those draw scalars."""
    edge = {"edge_order": draw(st.sampled_from([1, 2]))}
    if not draw(st.booleans()):
        return (draw(st.sampled_from([1.0, 0.5, 2.0])),), edge
    axis = draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.shape[axis]
    if n < 2:       # NumPy's IndexError from its uniformity check; xarr's too-small error
        return (1.0,), {"axis": axis, **edge}
    rng = np.random.default_rng(draw(st.integers(0, 99)))
    coords = draw(st.sampled_from([np.cumsum(rng.random(n) + 0.25),
                                   -np.cumsum(rng.random(n) + 0.25),
                                   np.arange(n) * 2, np.linspace(0.0, 3.0, n)]))
    return (coords,), {"axis": axis, **edge}


SPECS["xa.gradient"] = _simple("gradient", _gradient_args, check=close(1e4), min_dims=1,
                               dtypes=[xa.float32, xa.float64])
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

def _ldexp(draw):
    """ldexp(x, n) bit for bit: n from small to far past the float range (overflow to inf,
    gradual underflow to subnormals and zero), x with specials and subnormals."""
    shp = draw(shapes())
    x, t = draw(operand(shp, draw(st.sampled_from(NUMBERS))))
    ndt = draw(st.sampled_from([np.int8, np.int32, np.int64, np.uint8]))
    lim = draw(st.sampled_from([8, 40, 1100, 3000]))
    info = np.iinfo(ndt)
    n = np.random.default_rng(draw(st.integers(0, 99))).integers(
        max(-lim, info.min), min(lim, info.max), shp, endpoint=True).astype(ndt)
    u = xa.asarray(n)
    return Case(run=quiet(lambda: xa.ldexp(t, u)), ref=lambda: numpy_call(np.ldexp, x, n),
                check=exact, inputs={"x": x, "n": n}, traced=(xa.ldexp, [t, u]))


SPECS["xa.ldexp"] = _ldexp

def _sorted_row(draw, dt, n, nan=True):
    """An ascending 1-D NumPy array (NumPy's order: NaN last), duplicates likely."""
    vals, _ = draw(operand((n,), dt, specials=0.15 if nan else 0.0, low=-6, high=6))
    return np.sort(vals)


def _searchsorted(draw):
    dt = draw(st.sampled_from([xa.int8, xa.uint16, xa.int32, xa.int64, xa.float16,
                               xa.float32, xa.float64, xa.bool_, xa.complex128]))
    a = _sorted_row(draw, dt, draw(st.sampled_from([0, 1, 2, 5, 16, 17, 40])))
    v, u = draw(operand(draw(shapes()), dt, low=-7, high=7))
    side = draw(st.sampled_from(["left", "right"]))
    sorter = None
    if draw(st.booleans()) and a.size:             # a shuffled, with the indices that sort it
        perm = np.random.default_rng(draw(st.integers(0, 99))).permutation(a.size)
        a = a[perm]
        sorter = np.argsort(a, kind="stable")
    t = xa.asarray(a)
    return Case(run=quiet(lambda: xa.searchsorted(t, u, side=side, sorter=sorter)),
                ref=lambda: numpy_call(np.searchsorted, a, v, side=side, sorter=sorter),
                check=exact, inputs={"a": a, "v": v, "side": side, "sorter": sorter},
                traced=(lambda p, q: xa.searchsorted(p, q, side=side, sorter=sorter), [t, u]))


def _interp(draw):
    """Increasing sample points (repeats allowed), real or complex values with infinities,
    queries with NaN / inf, the defaults or explicit left / right."""
    n = draw(st.sampled_from([1, 2, 3, 8, 30]))
    xp = _sorted_row(draw, xa.float64, n, nan=False)
    fdt = draw(st.sampled_from([xa.float32, xa.float64, xa.complex128]))
    fp, _ = draw(operand((n,), fdt, specials=draw(st.sampled_from([0.0, 0.2]))))
    x, t = draw(operand(draw(shapes()), draw(st.sampled_from([xa.float32, xa.float64])),
                        low=-8, high=8))
    kw = {}
    if draw(st.booleans()):
        kw = {"left": -100.0, "right": 100.0}
    return Case(run=quiet(lambda: xa.interp(t, xp, fp, **kw)),
                ref=lambda: numpy_call(np.interp, x, xp, fp, **kw), check=exact,
                inputs={"x": x, "xp": xp, "fp": fp, **kw},
                traced=(lambda p: xa.interp(p, xp, fp, **kw), [t]))


SPECS["xa.searchsorted"] = _searchsorted
SPECS["xa.interp"] = _interp

NOT_FUZZED.update({
    "xa.ndenumerate": "a Python iterator over elements: test_everyday_functions",
    "xa.logspace": "creation from scalars: test_everyday_functions",
    "xa.geomspace": "creation from scalars: test_everyday_functions",
    "xa.fromfunction": "calls a user function: test_everyday_functions",
    "xa.ix_": "index helpers from sequences: test_everyday_functions",
})
