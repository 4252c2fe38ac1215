"""pow: the C99 special-value table, the special exponents (2, 3, -1, 0.5, -0.5, 1) as
scalars, 0-d tensors, arrays, constants under jit / lazy, against each other bit for bit
and against float64 math; integer pow by squaring; float_power; every ISA and 1 vs 2
threads. The kernels: csrc/kernels/elementwise/ew_ops.h (Pow, pow_special), ew_loops.h
(pow_by_scalar), vmath.h (pow); the graph rewrite: xarr/_graph/passes.py _pow_special."""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

import xarr as xa
from conftest import (BF16, assert_same, assert_ulp, make_tensor, round_to, special_values,
                      ulp_diff)

lax = xa.lax
ISAS = xa._core.supported_isas()
FLOATS = [np.float32, np.float64]
SPECIAL_EXPONENTS = [2.0, 3.0, -1.0, 0.5, -0.5, 1.0]

# C99 Annex F's pow table, as (x, y, expected): the rows the spec spells out.
INF, NAN = math.inf, math.nan
C99_TABLE = [
    (0.0, 3.0, 0.0), (-0.0, 3.0, -0.0), (-0.0, -3.0, -INF), (0.0, -3.0, INF),
    (-0.0, -2.0, INF), (0.0, -0.5, INF), (-0.0, -0.5, INF), (-0.0, 0.5, 0.0),
    (-0.0, 2.0, 0.0), (-0.0, -INF, INF), (-0.0, INF, 0.0), (-1.0, INF, 1.0),
    (-1.0, -INF, 1.0), (1.0, NAN, 1.0), (NAN, 0.0, 1.0), (NAN, -0.0, 1.0),
    (-2.5, 0.5, NAN), (-2.5, 1.5, NAN), (0.5, -INF, INF), (2.0, -INF, 0.0),
    (0.5, INF, 0.0), (2.0, INF, INF), (-INF, -3.0, -0.0), (-INF, -2.0, 0.0),
    (-INF, -0.5, 0.0), (-INF, 3.0, -INF), (-INF, 2.0, INF), (-INF, 0.5, INF),
    (INF, -1.0, 0.0), (INF, 0.5, INF), (NAN, 2.0, NAN), (2.0, NAN, NAN),
    (-2.0, 3.0, -8.0), (-2.0, -1.0, -0.5), (-2.0, 2.0, 4.0), (4.0, 0.5, 2.0),
    (4.0, -0.5, 0.5), (-3.0, 1.0, -3.0), (2.0, -1074.0, 5e-324),
]


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dt", FLOATS)
def test_c99_table(isa, dt, restore_isa):
    """Every row of the table, with the exponent as an array (the general loop, Pow::f
    lane by lane) and as a scalar (the scalar-exponent loops)."""
    xa._core.set_isa(isa)
    rows = [r for r in C99_TABLE if dt == np.float64 or r[1] != -1074.0]
    x = np.array([r[0] for r in rows], dt)
    y = np.array([r[1] for r in rows], dt)
    expected = np.array([r[2] for r in rows], dt)
    assert_same(lax.pow(xa.asarray(x), xa.asarray(y)), expected, {"x": x, "y": y})
    for k, (a, b, e) in enumerate(rows):
        got = lax.pow(xa.asarray(x), xa.full(x.shape, b, dtype=dt))
        assert_same(got[k:k + 1], expected[k:k + 1], {"x": a, "y": b})


def _reference(x, y, dt):
    """float64 math (libm's pow, correctly rounded almost always) rounded to dt."""
    with np.errstate(all="ignore"):
        return round_to(np.power(x.astype(np.float64), y.astype(np.float64)), dt)


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dt", FLOATS + [np.float16, BF16])
def test_general_pow_against_float64(isa, dt, restore_isa):
    """Random bases and exponents (negative bases with integer exponents included) within
    the ULP bound the vmath table quotes (float 0.5, double 0.84; 1 allowed), half
    precision through float."""
    xa._core.set_isa(isa)
    rng = np.random.default_rng(7)
    n = 4099
    x = np.exp(rng.uniform(-20, 20, n)) * rng.choice([1.0, -1.0], n)
    y = np.where(rng.random(n) < 0.3, rng.integers(-9, 10, n).astype(float),
                 rng.uniform(-8, 8, n))
    near_one = rng.random(n) < 0.2          # x near 1 with large y: log's relative error
    x = np.where(near_one, 1 + rng.uniform(-1e-3, 1e-3, n), x)
    y = np.where(near_one, rng.uniform(-2e4, 2e4, n), y)
    with np.errstate(over="ignore"):
        x, y = x.astype(dt), y.astype(dt)
    got = lax.pow(xa.asarray(x), xa.asarray(y))
    # cube is x*x*x (two roundings): up to 2 ulp from the correctly rounded value
    tol = np.where(y == 3, 2, 1)
    d = ulp_diff(np.asarray(got), _reference(x, y, dt))
    assert (d <= tol).all(), (d.max(), x[d > tol][:4], y[d > tol][:4])


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dt", FLOATS + [np.float16, BF16])
@pytest.mark.parametrize("e", SPECIAL_EXPONENTS)
def test_special_exponent_same_bits_every_way(isa, dt, e, restore_isa):
    """x ** e gives one answer whichever way e arrives: a Python scalar (the operators'
    fast path), a NumPy scalar, a 0-d tensor, a full exponent array (Pow::f lane by lane),
    lax.pow with a broadcast, a strided base, and under jit and lazy (the graph rewrite)."""
    xa._core.set_isa(isa)
    rng = np.random.default_rng(3)
    x = np.concatenate([special_values(dt), (rng.standard_normal(300) * 3).astype(dt)])
    t = xa.asarray(x)
    ref = lax.pow(t, xa.full(x.shape, e, dtype=dt))      # the general loop
    assert_same(t ** e, ref, {"x": x})
    assert_same(xa.power(t, xa.asarray(np.array(e, dt))), ref, {"x": x})
    assert_same(lax.pow(t, xa.asarray(np.array(e, dt))), ref, {"x": x})
    assert_same(make_tensor(x, "negstep") ** e, ref, {"x": x})
    assert_same(xa.jit(lambda v: v ** e)(t), ref, {"x": x})
    assert_same(xa.jit(lambda v: lax.pow(v, xa.full(v.shape, e, dtype=dt)))(t), ref)
    with xa.lazy():
        lazy = t ** e
    assert_same(lazy, ref, {"x": x})


@pytest.mark.parametrize("dt", FLOATS)
def test_special_exponents_follow_numpy_values(dt):
    """Against NumPy on ordinary values: x**2, x**-1, x**1 exact; x**0.5 is sqrt (exact);
    x**3 and x**-0.5 within 2 ulp. (Where NumPy's own sqrt shortcut gives -0.0 for
    (-0.0)**0.5 and nan for (-inf)**0.5, xarr keeps pow's C99 values: +0.0 and inf.)"""
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(1000) * 10).astype(dt)
    t = xa.asarray(x)
    with np.errstate(all="ignore"):
        for e in (2, 2.0, -1, 1):
            assert_same(t ** e, x ** e, {"e": e})
        assert_same(t ** 0.5, x ** 0.5)
        assert_ulp(t ** 3, _reference(x, np.full_like(x, 3), dt), 2)
        assert_ulp(t ** -0.5, _reference(x, np.full_like(x, -0.5), dt), 2)
    edge = xa.asarray(np.array([-0.0, -np.inf], dt))
    assert_same(edge ** 0.5, np.array([0.0, np.inf], dt))


def test_special_exponents_are_a_graph_rewrite_that_fuses():
    """Under jit, pow by a constant special exponent becomes cheap ops in the same
    fusion: one kernel, no power instruction left."""
    x = xa.asarray(np.linspace(-3, 3, 1001))
    for e in SPECIAL_EXPONENTS:
        f = xa.jit(lambda v: v ** e + 1.0)
        compiled = f.lower(x).compile()
        assert compiled.kernel_count == 1
        assert "power(" not in compiled.as_text(), e
    # a non-special exponent stays a power
    assert "power(" in xa.jit(lambda v: v ** 1.7).lower(x).compile().as_text()


@pytest.mark.parametrize("dt", [np.int8, np.int16, np.int32, np.int64, np.uint8,
                                np.uint32, np.uint64])
def test_integer_pow_by_squaring_wraps(dt):
    """Integer pow wraps as repeated multiplication does (Python's pow mod 2**bits), for
    scalar exponents 2 and 3 (their own loops) and for arrays of exponents."""
    rng = np.random.default_rng(5)
    info = np.iinfo(dt)
    x = rng.integers(info.min, info.max, 500, dtype=dt, endpoint=True)
    y = rng.integers(0, 70, 500).astype(dt)
    bits = 8 * np.dtype(dt).itemsize

    def ref(a, b):
        r = [pow(int(u), int(v), 1 << bits) for u, v in zip(a, b)]
        return np.array([v - (1 << bits) if info.min < 0 and v > info.max else v
                         for v in r], dtype=dt)
    assert_same(xa.power(xa.asarray(x), xa.asarray(y)), ref(x, y))
    for e in (2, 3, 0, 1):
        assert_same(xa.asarray(x) ** e, ref(x, np.full_like(x, e)), {"e": e})


def test_integer_negative_exponent():
    """NumPy raises for int ** negative int; lax.pow gives 0 unless |base| == 1."""
    t = xa.asarray(np.array([2, 1, -1, 0], np.int32))
    with pytest.raises(ValueError, match="power"):
        t ** -1
    assert_same(lax.pow(t, xa.full((4,), -3, dtype=np.int32)),
                np.array([0, 1, -1, 0], np.int32))


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64, np.int32,
                                np.complex64, np.bool_])
def test_float_power(dt):
    """float_power computes in float64 (complex128 for complex), as NumPy's does."""
    x = np.array([1, 2, 3, 0], dt)
    y = np.array([2, 0.5 if np.dtype(dt).kind in "fc" else 3, 1, 2], dt)
    got = xa.float_power(xa.asarray(x), xa.asarray(y))
    exp = np.float_power(x, y)
    assert got.dtype == exp.dtype
    np.testing.assert_allclose(np.asarray(got), exp, rtol=1e-15)
    assert xa.float_power(xa.asarray(np.float32(2)), 2).dtype == np.float64


def test_complex_special_exponents():
    z = np.array([1 + 2j, -3 - 0.5j, 0j, 2j], np.complex128)
    t = xa.asarray(z)
    assert_same(t ** 2, z * z)
    assert_same(t ** 1, z)
    np.testing.assert_allclose(np.asarray(t ** 0.5), z ** 0.5, rtol=1e-14)


@pytest.mark.parametrize("dt", FLOATS)
def test_one_and_two_threads_same_bits(dt, restore_threads):
    rng = np.random.default_rng(9)
    x = rng.uniform(0, 4, 1 << 20).astype(dt)
    y = rng.uniform(-3, 3, 1 << 20).astype(dt)
    out = {}
    for n in (1, 2):
        xa._core.set_num_threads(n)
        out[n] = [np.asarray(xa.power(xa.asarray(x), xa.asarray(y))),
                  np.asarray(xa.asarray(x) ** 1.7), np.asarray(xa.asarray(x) ** 3)]
    for a, b in zip(out[1], out[2]):
        assert_same(a, b)


@given(st.sampled_from(FLOATS + [np.float16]), st.sampled_from(SPECIAL_EXPONENTS + [1.7]),
       st.lists(st.integers(0, 5), min_size=0, max_size=3),
       st.sampled_from(["c", "colmajor", "step", "negstep", "transposed", "tiled"]))
def test_fast_paths_match_general_path(dt, e, shape, how):
    """Hypothesis: any shape (size 0 and 1 included) and layout, the scalar exponent
    against an exponent array of the same value: dtype, shape and bits."""
    rng = np.random.default_rng(len(shape))
    x = (rng.standard_normal(shape) * 4).astype(dt)
    t = make_tensor(x, how)
    general = lax.pow(xa.asarray(x), xa.full(x.shape, e, dtype=dt))
    got = t ** e
    assert got.dtype == np.dtype(dt) and got.shape == x.shape
    assert_same(got, general)
