"""The NumPy-style methods of Tensor and of traced values (xarr/_methods.py) against
NumPy's methods, eagerly and under xa.jit."""

import numpy as np
import pytest

import xarr as xa
from conftest import assert_same

R = np.random.default_rng(7).standard_normal((3, 5)).astype(np.float32)

CASES = [
    ("sum", {}), ("sum", {"axis": 0}), ("prod", {"axis": 1}), ("mean", {"axis": 1}),
    ("max", {}), ("min", {"axis": 0, "keepdims": True}), ("argmax", {}),
    ("argmin", {"axis": 1}), ("any", {}), ("all", {"axis": 0}), ("cumsum", {"axis": 1}),
    ("cumprod", {}), ("ravel", {}), ("flatten", {}), ("swapaxes", (0, 1)),
    ("clip", {"min": -0.5, "max": 0.5}), ("round", {"decimals": 1}), ("repeat", {"repeats": 2}),
    ("conj", {}),
]


def _call(x, name, args):
    """x.name(**args), or x.name(*args) for a tuple (ndarray.swapaxes takes no keywords)."""
    method = getattr(x, name)
    return method(*args) if isinstance(args, tuple) else method(**args)


# Float sums and products add in a different order than NumPy's (pairwise blocks of a
# different size), so they agree to rounding, not bit for bit.
ROUNDED = ("sum", "prod", "mean", "cumsum", "cumprod")


@pytest.mark.parametrize("name,kwargs", CASES)
def test_method_matches_numpy(name, kwargs):
    want = np.asarray(_call(R, name, kwargs))
    got = _call(xa.asarray(R), name, kwargs)
    if name in ROUNDED:
        got = np.asarray(got)
        assert (got.dtype, got.shape) == (want.dtype, want.shape)
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)
    else:
        assert_same(got, want)


@pytest.mark.parametrize("name,kwargs", CASES)
def test_method_under_jit(name, kwargs):
    f = xa.jit(lambda x: _call(x, name, kwargs))
    assert_same(f(xa.asarray(R)), np.asarray(_call(xa.asarray(R), name, kwargs)))


def test_var_std_squeeze_take_nonzero_fill():
    t = xa.asarray(R)
    np.testing.assert_allclose(np.asarray(t.var(axis=0)), R.var(axis=0), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(t.std(ddof=1)), R.std(ddof=1), rtol=1e-5)
    assert_same(xa.asarray(R[:1]).squeeze(), R[:1].squeeze())
    assert_same(t.take([4, 0], axis=1), R.take([4, 0], axis=1))
    for got, want in zip((t > 0).nonzero(), (R > 0).nonzero()):
        assert_same(got, want)
    z = xa.zeros((2, 2), xa.int32)
    z.fill(3)
    assert_same(z, np.full((2, 2), 3, np.int32))
