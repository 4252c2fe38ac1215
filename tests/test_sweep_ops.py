"""Every operation of the size sweep (benchmarks/sweep.py: elementwise ops, where, clip,
reductions, cumsum, astype, copy) on every operand kind it measures - contiguous,
x[::2], x[::2, ::2], x[::-1], x.T beside a row-major operand, x + row / broadcast_to
views - against NumPy on the same views and against xarr on contiguous copies of them.
Sizes cross the loops' boundaries: empty, one element, the strided loops' 16-element
minimum, the 512-element gather blocks, and the measured thread thresholds."""

import importlib.util
import pathlib
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import xarr as xa
from conftest import assert_same, to_np

_PATH = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "sweep.py"
_spec = importlib.util.spec_from_file_location("xarr_sweep", _PATH)
sweep = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sweep)

NP_OPS, XA_OPS = sweep.ops_of(np), sweep.ops_of(xa)
# Float sums are pairwise in xarr (blocked differently for a strided view than for its
# contiguous copy) and in NumPy (with other blocks): equal to a few ULP of the sum.
SUMS = {"sum", "mean"}
# xarr's vector exp is within 2 ULP of libm's (NumPy's own SIMD exp differs from libm too).
LIBM = {"exp"}
SIZES = [0, 1, 2, 15, 16, 17, 100, 511, 513, 1031, 8195]


def _run(fn, *args):
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)     # NumPy: mean of empty
            return fn(*args), None
    except Exception as e:      # noqa: BLE001 - compared by type below
        return None, type(e)


def _contiguous(t):
    return None if t is None else xa.asarray(np.ascontiguousarray(to_np(t)))


def _check(op, kind, n, dtype):
    (x, y), (tx, ty) = sweep.cell_operands(op, kind, n, dtype)
    want, want_err = _run(NP_OPS[op][1], x, y)
    got, got_err = _run(XA_OPS[op][1], tx, ty)
    dense, _ = _run(XA_OPS[op][1], _contiguous(tx), _contiguous(ty))
    what = f"{op} {kind} n={n} {dtype}"
    if want_err is not None:
        assert got_err is not None, f"{what}: NumPy raised {want_err.__name__}, xarr did not"
        return
    assert got_err is None, f"{what}: xarr raised {got_err.__name__}"
    want = np.asarray(want)
    if op in SUMS:
        np.testing.assert_allclose(to_np(got), want, rtol=2e-6 if dtype == "float32"
                                   else 1e-14, err_msg=what)
        np.testing.assert_allclose(to_np(got), to_np(dense), rtol=2e-6 if dtype ==
                                   "float32" else 1e-14, err_msg=what)
        return
    if op in LIBM:
        np.testing.assert_allclose(to_np(got), want, rtol=4e-7 if dtype == "float32"
                                   else 1e-15, err_msg=what)
    elif op in ("argmax",):
        assert int(to_np(got)) == int(want), what
    else:
        assert_same(got, want)
    assert_same(got, to_np(dense))          # a view computes like its contiguous copy


@pytest.mark.parametrize("kind", sweep.KINDS)
@pytest.mark.parametrize("op", sweep.OPS)
def test_sweep_op_matches_numpy_on_each_view(op, kind):
    for n in SIZES:
        _check(op, kind, n, "float32")


@settings(max_examples=60, deadline=None)
@given(op=st.sampled_from(sweep.OPS), kind=st.sampled_from(sweep.KINDS),
       n=st.integers(0, 3000), dtype=st.sampled_from(["float32", "float64"]))
def test_sweep_ops_property(op, kind, n, dtype):
    _check(op, kind, n, dtype)


@pytest.mark.parametrize("op", ["add", "exp", "sum", "cumsum", "astype_f64", "copy",
                                "argmax", "where", "clip"])
def test_sweep_ops_one_vs_two_threads(op, restore_threads):
    """Above each family's thread threshold, 2 threads give the bits of 1."""
    for kind in sweep.KINDS:
        out = {}
        for threads in (1, 2):
            xa.set_num_threads(threads)
            (x, y), (tx, ty) = sweep.cell_operands(op, kind, 140_000, "float32")
            out[threads] = to_np(XA_OPS[op][1](tx, ty)).copy()
        assert_same(out[2], out[1])


def test_clip_and_where_fast_paths_keep_the_general_layouts():
    """clip's one clamp kernel lays its result out by x (as minimum(maximum(x, lo), hi)
    does), where's select by x and y, whatever the bounds' or the mask's layout."""
    x = xa.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    lo = xa.asarray(np.full((4, 3), 2, np.float32)).T
    fast = xa.clip(x, lo, 8.0)
    general = xa.minimum(xa.maximum(x, lo), 8.0)
    assert fast.xla_shape == general.xla_shape
    assert_same(fast, to_np(general))
    xt = xa.asarray(np.arange(12, dtype=np.float32).reshape(4, 3)).T
    assert xa.clip(xt, lo, 8.0).xla_shape == xa.minimum(xa.maximum(xt, lo), 8.0).xla_shape
    mask = xa.asarray(np.arange(12).reshape(4, 3) % 2 == 0).T
    assert xa.where(mask, x, 0.0).xla_shape == x.xla_shape
