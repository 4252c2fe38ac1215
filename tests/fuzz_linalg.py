"""Fuzz spec of NumPy's top-level ``xa.cross`` (xarr/_numpy/linalg.py), registered into
fuzz_ops.SPECS: against numpy.cross over random dtypes, broadcast batch shapes with 0 and 1
dims, vector sizes 2 and 3 (and bad ones), axisa / axisb / axisc / axis (in and out of
range), every storage, eagerly, under xa.jit and in xa.lazy. ``xa.linalg``'s members are a
submodule's (not in the harness's public-op list): tests/test_linalg.py checks them."""

import warnings

import numpy as np
from hypothesis import strategies as st

import xarr as xa
from conftest import to_np
from fuzz_ops import SPECS, Case, exact, numpy_call, operand, quiet, shapes

DTYPES = [xa.float32, xa.float64, xa.complex128, xa.int32, xa.int8, xa.uint8, xa.bool_]


def _products_close(got, want):
    """Integers bit for bit; floats within a few ulps of the products' magnitude (a
    fused a*b - c*d may round once where NumPy rounds twice)."""
    g, w = to_np(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
    if w.dtype.kind not in "fc":
        exact(got, want)
        return
    scale = np.max(np.abs(w), initial=1.0) if w.size else 1.0
    tol = 8 * np.finfo(w.dtype).eps * max(scale, 1.0) * 16
    np.testing.assert_allclose(g, w, rtol=0, atol=tol)


def _cross(draw):
    batch = draw(shapes(max_dims=2))
    na, nb = (draw(st.sampled_from([3, 3, 2, 1, 4])) for _ in range(2))
    dt = draw(st.sampled_from(DTYPES))
    sa = batch[draw(st.integers(0, len(batch))):] + (na,)
    sb = tuple(1 if draw(st.integers(0, 3)) == 0 else d for d in batch) + (nb,)
    x, t = draw(operand(sa, dt, specials=0.0, low=-4, high=4))
    y, u = draw(operand(sb, dt, specials=0.0, low=-4, high=4))
    pa, pb = draw(st.integers(0, len(sa) - 1)), draw(st.integers(0, len(sb) - 1))
    x, y = np.moveaxis(x, -1, pa), np.moveaxis(y, -1, pb)
    t, u = xa.moveaxis(t, -1, pa), xa.moveaxis(u, -1, pb)
    if draw(st.booleans()):
        kw = {"axisa": pa - draw(st.sampled_from([0, len(sa)])),
              "axisb": pb - draw(st.sampled_from([0, len(sb), -5])),
              "axisc": draw(st.integers(-4, 3))}
    else:
        kw = {"axis": draw(st.integers(-3, 2))}

    def run_cross(a, b):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return xa.cross(a, b, **kw)
    return Case(run=quiet(lambda: run_cross(t, u)),
                ref=lambda: numpy_call(np.cross, x, y, **kw), check=_products_close,
                inputs={"a": x, "b": y, **kw}, traced=(run_cross, [t, u]))


SPECS["xa.cross"] = _cross
