"""``xa.lax`` elementwise operations: XLA's strict semantics (seed 004) and broadcasting
(seed 003), with xarr's decisions from SPEC.md (integer division by zero, INT_MIN / -1,
conversions, total order, rounding, shifts).

References are independent: Python integer arithmetic for integer ops, exact rational
rounding for conversions, NumPy / float64 NumPy (rounded, max-ULP tolerance) for floats.
"""

import itertools
import math
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import xarr as xa
from conftest import (ALL_DTYPES, BF16, COMPLEX, FLOATS, INTS, LAYOUTS, XLA_NAME,
                      assert_same, assert_ulp, finfo, kind, make_tensor,
                      random_array, real_dtype, round_to, special_values, to_np)

lax = xa.lax
REALS = INTS + FLOATS


def f32(a):
    return xa.asarray(np.asarray(a, np.float32))


def py_ints(a):
    return [int(v) for v in np.asarray(a).ravel().tolist()]


def from_py(values, shape, dt):
    """Python ints (any size) wrapped into integer dtype ``dt``, as an array."""
    dt = np.dtype(dt)
    bits = 8 * dt.itemsize
    u = np.array([v % (1 << bits) for v in values], dtype=f"u{dt.itemsize}")
    return u.view(dt).reshape(shape)


# ------------------------------------------------------------------------------ seed 003
def test_seed003_degenerate_outer_product():
    """(2,1) and (1,3) broadcast to (2,3): an 'outer' operation."""
    a = f32([[1], [2]])
    b = f32([[10, 20, 30]])
    got = lax.add(a, b)
    assert_same(got, np.array([[11, 21, 31], [12, 22, 32]], np.float32))


def test_seed003_vector_plus_1x2_matrix():
    """|1 2 3 4| + [5 6] with broadcast_dimensions (0) -> 4x2."""
    got = lax.add(f32([1, 2, 3, 4]), f32([[5, 6]]), broadcast_dimensions=(0,))
    assert_same(got, np.array([[6, 7], [7, 8], [8, 9], [9, 10]], np.float32))
    got = lax.add(f32([[5, 6]]), f32([1, 2, 3, 4]), broadcast_dimensions=(0,))
    assert_same(got, np.array([[6, 7], [7, 8], [8, 9], [9, 10]], np.float32))


def test_seed003_1x2_matrix_plus_4x3x1():
    m = np.array([[1, 2]], np.float32)
    c = np.arange(12, dtype=np.float32).reshape(4, 3, 1) * 10
    got = lax.add(xa.asarray(m), xa.asarray(c), broadcast_dimensions=(1, 2))
    assert got.shape == (4, 3, 2)
    assert_same(got, m.reshape(1, 1, 2) + c)


def test_seed003_matrix_vector_dims():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    v = np.array([7, 8, 9], np.float32)
    assert_same(lax.add(xa.asarray(x), xa.asarray(v), broadcast_dimensions=(1,)),
                np.array([[8, 10, 12], [11, 13, 15]], np.float32))
    sq = np.arange(9, dtype=np.float32).reshape(3, 3)
    assert_same(lax.add(xa.asarray(sq), xa.asarray(v), broadcast_dimensions=(0,)),
                sq + v[:, None])
    assert_same(lax.add(xa.asarray(sq), xa.asarray(v), broadcast_dimensions=(1,)),
                sq + v[None, :])
    # "a 2x3 matrix plus a 3-vector with broadcast dimension 0 is invalid"
    with pytest.raises(ValueError, match=r"lax\.add"):
        lax.add(xa.asarray(x), xa.asarray(v), broadcast_dimensions=(0,))


def test_seed003_scalar_with_anything():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    assert_same(lax.add(xa.asarray(x), 7), x + 7)
    assert_same(lax.add(xa.asarray(np.int32(7)), xa.asarray(x)), x + 7)
    assert_same(lax.mul(2, xa.asarray(x)), x * 2)


@st.composite
def indim_case(draw):
    """A higher-rank shape, a strictly increasing broadcast_dimensions and a lower-rank
    shape matching those dims (some of them degenerate, size 1)."""
    hi = draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4))
    k = draw(st.integers(0, len(hi) - 1))
    bd = tuple(sorted(draw(st.sets(st.integers(0, len(hi) - 1), min_size=k, max_size=k))))
    lo = tuple(1 if draw(st.booleans()) and len(bd) else hi[d] for d in bd)
    # the higher-rank operand may itself be degenerate where lo is not
    hi = tuple(1 if (d in bd and lo[bd.index(d)] != 1 and draw(st.booleans())) else s
               for d, s in enumerate(hi))
    return hi, lo, bd, draw(st.booleans())


@given(case=indim_case(), name=st.sampled_from(["add", "sub", "max", "lt", "atan2"]),
       layout=st.sampled_from(LAYOUTS), seed=st.integers(0, 2 ** 31))
def test_indim_broadcasting_property(case, name, layout, seed):
    hi, lo, bd, lo_first = case
    rng = np.random.default_rng(seed)
    a = random_array(rng, hi, xa.float32, specials=0)
    b = random_array(rng, lo, xa.float32, specials=0)
    expanded = [1] * len(hi)
    for i, d in enumerate(bd):
        expanded[d] = lo[i]
    b_full = b.reshape(expanded)
    ops = {"add": np.add, "sub": np.subtract, "max": np.maximum, "lt": np.less,
           "atan2": np.arctan2}
    ta, tb = make_tensor(a, layout), xa.asarray(b)
    fn = getattr(lax, name)
    if lo_first:
        got = fn(tb, ta, broadcast_dimensions=bd)
        ref = ops[name](b_full, a)
    else:
        got = fn(ta, tb, broadcast_dimensions=bd)
        ref = ops[name](a, b_full)
    if name == "atan2":
        assert_ulp(got, round_to(ops[name](*(np.asarray(v, np.float64) for v in (
            (b_full, a) if lo_first else (a, b_full)))), np.float32), 2)
    else:
        assert_same(got, ref)


@pytest.mark.parametrize("s1, s2, bd, fragment", [
    ((2, 3), (3,), None, "broadcast_dimensions"),
    ((2, 3), (3,), (0,), "does not match"),
    ((2, 3, 4), (3, 4), (2, 1), "strictly increasing"),
    ((2, 3, 4), (3, 4), (1,), "one entry per"),
    ((2, 3, 4), (3, 4), (1, 3), "out of range"),
    ((2, 3), (2, 3), (1, 0), "equal rank"),
    ((2, 3), (3, 2), None, "not compatible"),
    ((7, 2, 5), (7, 2, 6), None, "not compatible"),
])
def test_broadcast_errors(s1, s2, bd, fragment):
    a, b = f32(np.ones(s1)), f32(np.ones(s2))
    with pytest.raises(ValueError, match=r"lax\.add") as info:
        lax.add(a, b, broadcast_dimensions=bd)
    assert fragment in str(info.value)
    assert str(s1) in str(info.value) or str(s2) in str(info.value) or \
        str(bd) in str(info.value)


def test_same_rank_broadcast_dimensions_identity_allowed():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert_same(lax.add(xa.asarray(a), xa.asarray(a), broadcast_dimensions=(0, 1)), a + a)


# ------------------------------------------------------------------------------ strictness
@pytest.mark.parametrize("d1, d2", [(xa.float32, xa.float64), (xa.int32, xa.int64),
                                    (xa.int8, xa.uint8), (xa.float16, xa.bfloat16),
                                    (xa.complex64, xa.float32), (xa.bool_, xa.int8)])
@pytest.mark.parametrize("name", ["add", "mul", "max", "eq", "lt_total"])
def test_dtype_mismatch_is_type_error(name, d1, d2):
    a, b = xa.asarray(np.ones(3, d1)), xa.asarray(np.ones(3, d2))
    with pytest.raises(TypeError, match=rf"lax\.{name}") as info:
        getattr(lax, name)(a, b)
    msg = str(info.value)
    if name != "lt_total" or kind(d1) != "c":
        assert XLA_NAME[d1] in msg and XLA_NAME[d2] in msg


def test_select_and_clamp_dtype_mismatch():
    p = xa.asarray(np.array([True, False]))
    a32, a64 = xa.asarray(np.ones(2, np.float32)), xa.asarray(np.ones(2, np.float64))
    with pytest.raises(TypeError, match="select"):
        lax.select(p, a32, a64)
    with pytest.raises(TypeError, match="select"):
        lax.select(a32, a32, a32)
    with pytest.raises(TypeError, match="clamp"):
        lax.clamp(a64, a32, a32)


@pytest.mark.parametrize("name, dt", [
    ("bitwise_and", xa.float32), ("bitwise_or", xa.float64), ("bitwise_xor", xa.float16),
    ("bitwise_not", xa.float32), ("shift_left", xa.float32), ("population_count", xa.float64),
    ("clz", xa.bfloat16), ("atan2", xa.int32), ("rem", xa.complex64), ("floor", xa.int32),
    ("round_nearest_even", xa.complex64), ("cbrt", xa.complex128), ("exp", xa.int32),
    ("lt_total", xa.complex64), ("clamp", xa.complex64), ("sub", xa.bool_),
])
def test_unsupported_dtype_names_the_op(name, dt):
    fn = getattr(lax, name)
    x = xa.asarray(np.ones(3, dt))
    nargs = {"bitwise_not": 1, "population_count": 1, "clz": 1, "floor": 1,
             "round_nearest_even": 1, "cbrt": 1, "exp": 1, "clamp": 3}.get(name, 2)
    with pytest.raises(TypeError) as info:
        fn(*([x] * nargs))
    assert name in str(info.value), "the message names the lax function called"
    assert XLA_NAME[dt] in str(info.value) or str(np.dtype(dt)) in str(info.value)


def test_bad_operands():
    t = f32([1, 2])
    with pytest.raises(TypeError, match="tensor"):
        lax.add(1, 2)
    with pytest.raises(TypeError, match="list"):
        lax.add([1.0, 2.0], t)
    with pytest.raises(TypeError):
        lax.add("a", t)
    with pytest.raises(OverflowError, match="300"):
        lax.add(xa.asarray(np.int8([1])), 300)
    with pytest.raises(OverflowError, match="-1"):
        lax.add(xa.asarray(np.uint32([1])), -1)
    with pytest.raises(ValueError, match="rounding_method"):
        lax.round(t, 7)
    # NumPy arrays and Python scalars of the operand's kind are fine
    assert_same(lax.add(np.float32([1, 2]), t), np.float32([2, 4]))
    assert_same(lax.mul(t, 3), np.float32([3, 6]))


@pytest.mark.parametrize("dt, scalar", [(xa.int32, 2.7), (xa.int8, 1.5), (xa.uint16, 0.5),
                                        (xa.float32, 1j), (xa.float64, 2 + 3j)])
def test_python_scalar_of_a_higher_kind_is_rejected(dt, scalar):
    """A Python scalar that the operand's element type cannot hold (a float for an
    integer tensor, a complex for a real one) is a type error, never silently
    truncated."""
    t = xa.asarray(np.ones(2, dt))
    with pytest.raises(TypeError, match=r"lax\.add"):
        lax.add(t, scalar)


# ------------------------------------------------------------------------------ integer ops
def _trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def div_ref(a, b, dt):
    info = np.iinfo(dt)
    if b == 0:
        return -1 if kind(dt) == "i" else info.max
    if a == info.min and b == -1 and kind(dt) == "i":
        return info.min
    return _trunc_div(a, b)


def rem_ref(a, b, dt):
    info = np.iinfo(dt)
    if b == 0:
        return a
    if a == info.min and b == -1 and kind(dt) == "i":
        return 0
    return a - b * _trunc_div(a, b)


def int_operands(dt, rng, n=400):
    sv = special_values(dt)
    a = np.concatenate([np.repeat(sv, len(sv)), random_array(rng, (n,), dt)])
    b = np.concatenate([np.tile(sv, len(sv)), random_array(rng, (n,), dt)])
    return a, b


@pytest.mark.parametrize("dt", INTS, ids=str)
def test_integer_div_rem_spec(dt):
    """SPEC: x / 0 = -1 (all bits set for unsigned), x % 0 = x, INT_MIN / -1 = INT_MIN,
    INT_MIN % -1 = 0; division truncates, rem has the sign of the dividend."""
    rng = np.random.default_rng(41)
    a, b = int_operands(dt, rng)
    pa, pb = py_ints(a), py_ints(b)
    exp_q = from_py([div_ref(x, y, dt) for x, y in zip(pa, pb)], a.shape, dt)
    exp_r = from_py([rem_ref(x, y, dt) for x, y in zip(pa, pb)], a.shape, dt)
    assert_same(lax.div(xa.asarray(a), xa.asarray(b)), exp_q, {"a": a, "b": b})
    assert_same(lax.rem(make_tensor(a, "negstep"), make_tensor(b, "step")), exp_r,
                {"a": a, "b": b})


def test_integer_div_rem_worked_examples():
    i32 = np.iinfo(np.int32)
    a = xa.asarray(np.array([7, -7, 7, -7, 5, i32.min, i32.min, 0], np.int32))
    b = xa.asarray(np.array([2, 2, -2, -2, 0, -1, 0, 0], np.int32))
    assert to_np(lax.div(a, b)).tolist() == [3, -3, -3, 3, -1, i32.min, -1, -1]
    assert to_np(lax.rem(a, b)).tolist() == [1, -1, 1, -1, 5, 0, i32.min, 0]
    u = xa.asarray(np.array([5, 0, 255], np.uint8))
    z = xa.asarray(np.zeros(3, np.uint8))
    assert to_np(lax.div(u, z)).tolist() == [255, 255, 255]
    assert to_np(lax.rem(u, z)).tolist() == [5, 0, 255]


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_float_div_rem(dt):
    """Float division is IEEE; rem is C fmod (sign of the dividend, |r| < |b|)."""
    rng = np.random.default_rng(42)
    sv = special_values(dt)
    a = np.concatenate([np.repeat(sv, len(sv)), random_array(rng, (300,), dt)])
    b = np.concatenate([np.tile(sv, len(sv)), random_array(rng, (300,), dt)])
    with np.errstate(all="ignore"):
        ref_div = (a.astype(np.float64) / b.astype(np.float64))
        ref_rem = np.fmod(a.astype(np.float64), b.astype(np.float64))
    # f16/bf16 divide in float32: one more rounding, innocuous for division
    assert_same(lax.div(xa.asarray(a), xa.asarray(b)), round_to(ref_div, dt),
                {"a": a, "b": b})
    assert_same(lax.rem(xa.asarray(a), xa.asarray(b)), round_to(ref_rem, dt),
                {"a": a, "b": b})


def int_pow_ref(a, b, dt):
    bits = 8 * np.dtype(dt).itemsize
    if b < 0:
        return 1 if a == 1 else (-1 if b % 2 else 1) if a == -1 else 0
    return pow(a, b, 1 << bits)


@pytest.mark.parametrize("dt", INTS, ids=str)
def test_integer_pow(dt):
    """Wrapping integer power; a negative exponent gives 0 unless |base| == 1."""
    rng = np.random.default_rng(43)
    a, b = int_operands(dt, rng)
    b = np.where(rng.random(b.shape) < 0.7, (b.astype(np.int64) % 70).astype(dt), b)
    exp = from_py([int_pow_ref(x, y, dt) for x, y in zip(py_ints(a), py_ints(b))],
                  a.shape, dt)
    assert_same(lax.pow(xa.asarray(a), xa.asarray(b)), exp, {"a": a, "b": b})


def shift_ref(op, a, b, dt):
    bits = 8 * np.dtype(dt).itemsize
    mask = (1 << bits) - 1
    n, ua = b & mask, a & mask
    if op == "shift_left":
        return (ua << n) & mask if n < bits else 0
    if op == "shift_right_logical":
        return ua >> n if n < bits else 0
    sa = ua - (1 << bits) if ua >> (bits - 1) else ua
    return sa >> min(n, bits - 1)


@pytest.mark.parametrize("op", ["shift_left", "shift_right_logical",
                                "shift_right_arithmetic"])
@pytest.mark.parametrize("dt", INTS, ids=str)
def test_shifts(op, dt):
    """Shift amounts are read as unsigned; >= the bit width gives 0 (left, logical) or
    the sign fill (arithmetic)."""
    rng = np.random.default_rng(44)
    bits = 8 * np.dtype(dt).itemsize
    a = random_array(rng, (600,), dt)
    b = np.concatenate([np.arange(bits + 3), rng.integers(-3, 2 * bits, 600 - bits - 3)])
    b = b.astype(np.int64).astype(dt)  # negative amounts wrap to huge unsigned ones
    exp = from_py([shift_ref(op, x, y, dt) for x, y in zip(py_ints(a), py_ints(b))],
                  a.shape, dt)
    got = getattr(lax, op)(make_tensor(a, "step"), xa.asarray(b))
    assert_same(got, exp, {"a": a, "b": b})
    # scalar shift amount
    got = getattr(lax, op)(xa.asarray(a), bits)
    assert_same(got, from_py([shift_ref(op, x, bits, dt) for x in py_ints(a)], a.shape, dt))


@pytest.mark.parametrize("dt", INTS, ids=str)
def test_population_count_and_clz(dt):
    rng = np.random.default_rng(45)
    bits = 8 * np.dtype(dt).itemsize
    a = np.concatenate([special_values(dt), random_array(rng, (300,), dt)])
    ua = [v & ((1 << bits) - 1) for v in py_ints(a)]
    assert_same(lax.population_count(xa.asarray(a)),
                from_py([bin(v).count("1") for v in ua], a.shape, dt))
    assert_same(lax.clz(make_tensor(a, "negstep")),
                from_py([bits - v.bit_length() for v in ua], a.shape, dt))


@pytest.mark.parametrize("dt", INTS + [xa.bool_], ids=str)
def test_bitwise(dt):
    rng = np.random.default_rng(46)
    a, b = int_operands(dt, rng) if dt != xa.bool_ else (
        random_array(rng, (50,), dt), random_array(rng, (50,), dt))
    ta, tb = xa.asarray(a), make_tensor(b, "tiled")
    assert_same(lax.bitwise_and(ta, tb), a & b)
    assert_same(lax.bitwise_or(ta, tb), a | b)
    assert_same(lax.bitwise_xor(ta, tb), a ^ b)
    assert_same(lax.bitwise_not(ta), ~a)
    assert_same(lax.and_(ta, tb), a & b)
    assert_same(lax.not_(ta), ~a)


@pytest.mark.parametrize("dt", INTS, ids=str)
def test_integer_arithmetic_wraps(dt):
    rng = np.random.default_rng(47)
    a, b = int_operands(dt, rng)
    pa, pb = py_ints(a), py_ints(b)
    ta, tb = make_tensor(a, "transposed"), make_tensor(b, "padded")
    assert_same(lax.add(ta, tb), from_py([x + y for x, y in zip(pa, pb)], a.shape, dt))
    assert_same(lax.sub(ta, tb), from_py([x - y for x, y in zip(pa, pb)], a.shape, dt))
    assert_same(lax.mul(ta, tb), from_py([x * y for x, y in zip(pa, pb)], a.shape, dt))
    assert_same(lax.neg(ta), from_py([-x for x in pa], a.shape, dt))
    assert_same(lax.abs(ta), from_py([abs(x) for x in pa], a.shape, dt))
    assert_same(lax.sign(ta), from_py([(x > 0) - (x < 0) for x in pa], a.shape, dt))
    assert_same(lax.max(ta, tb), from_py([max(x, y) for x, y in zip(pa, pb)], a.shape, dt))
    assert_same(lax.min(ta, tb), from_py([min(x, y) for x, y in zip(pa, pb)], a.shape, dt))
    for name, fn in [("eq", lambda x, y: x == y), ("ne", lambda x, y: x != y),
                     ("lt", lambda x, y: x < y), ("le", lambda x, y: x <= y),
                     ("gt", lambda x, y: x > y), ("ge", lambda x, y: x >= y)]:
        exp = np.array([fn(x, y) for x, y in zip(pa, pb)])
        assert_same(getattr(lax, name)(ta, tb), exp)
        assert_same(getattr(lax, name + "_total")(ta, tb), exp)


# ------------------------------------------------------------------------------ floats
def total_order_values(dt):
    """Float values of ``dt`` in strictly increasing TotalOrder."""
    fi = finfo(dt)
    sub, tiny, mx = float(fi.smallest_subnormal), float(fi.tiny), float(fi.max)
    vals = [np.copysign(np.nan, -1.0), -np.inf, -mx, -1.0, -tiny, -sub, -0.0, 0.0, sub,
            tiny, 1.0, mx, np.inf, np.nan]
    arr = np.array(vals, np.float32 if dt != xa.float64 else np.float64).astype(dt)
    sign = np.signbit(arr.astype(np.float64))
    assert sign[0] and not sign[-1] and sign[6] and not sign[7]
    return arr


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_total_order_comparisons(dt):
    """-NaN < -Inf < -finite < -0 < +0 < +finite < +Inf < +NaN."""
    v = total_order_values(dt)
    n = len(v)
    a = np.repeat(v, n)
    b = np.tile(v, n)
    ia, ib = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
    ta, tb = xa.asarray(a), xa.asarray(b)
    for name, op in [("lt_total", np.less), ("le_total", np.less_equal),
                     ("gt_total", np.greater), ("ge_total", np.greater_equal),
                     ("eq_total", np.equal), ("ne_total", np.not_equal)]:
        assert_same(getattr(lax, name)(ta, tb), op(ia, ib), {"a": a, "b": b})
    # the IEEE comparisons are unordered on NaN and equal on zeros
    with np.errstate(invalid="ignore"):
        for name, op in [("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
                         ("ge", np.greater_equal), ("eq", np.equal), ("ne", np.not_equal)]:
            ref = op(a.astype(np.float64), b.astype(np.float64))
            assert_same(getattr(lax, name)(ta, tb), ref, {"a": a, "b": b})


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_max_min_propagate_nan(dt):
    v = np.array([np.nan, 1.0, -np.inf, np.nan, 0.0, -0.0, 2.0], dt)
    w = np.array([1.0, np.nan, np.nan, np.nan, 5.0, -3.0, np.inf], dt)
    assert_same(lax.max(xa.asarray(v), xa.asarray(w)),
                np.array([np.nan, np.nan, np.nan, np.nan, 5.0, -0.0, np.inf], dt))
    assert_same(lax.min(xa.asarray(v), xa.asarray(w)),
                np.array([np.nan, np.nan, np.nan, np.nan, 0.0, -3.0, 2.0], dt))


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_sign_specials(dt):
    """sign(-0.0) = -0.0, sign(+0.0) = +0.0, sign(NaN) = NaN, else -1 / 1."""
    x = np.concatenate([special_values(dt),
                        random_array(np.random.default_rng(48), (100,), dt)])
    x64 = x.astype(np.float64)
    ref = np.where(np.isnan(x64), np.nan, np.where(x64 == 0, x64, np.sign(x64)))
    assert_same(lax.sign(xa.asarray(x)), ref.astype(dt), {"x": x})


def _round_half_away(v):
    if not math.isfinite(v) or abs(v) >= 2.0 ** 52:
        return v
    r = float(Decimal(v).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    return math.copysign(r, v) if r == 0 else r


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_round_half_away_from_zero(dt):
    worked = [0.5, -0.5, 1.5, 2.5, -2.5, 0.49999997, -0.49999997, -0.0, 0.0, 3.5, -3.5,
              8388609.0, 4503599627370497.0, 1e30, np.nan, np.inf, -np.inf, 0.5000001]
    with np.errstate(all="ignore"):
        x = np.concatenate([np.array(worked).astype(dt), special_values(dt),
                            random_array(np.random.default_rng(49), (200,), dt, low=-50,
                                         high=50)])
    ref = np.array([_round_half_away(float(v)) for v in x.astype(np.float64)]).astype(dt)
    assert_same(lax.round(make_tensor(x, "step")), ref, {"x": x})
    assert_same(lax.round(xa.asarray(x), lax.RoundingMethod.AWAY_FROM_ZERO), ref)
    with np.errstate(all="ignore"):
        even = np.rint(x.astype(np.float64)).astype(dt)
        assert_same(lax.round_nearest_even(xa.asarray(x)), even, {"x": x})
        assert_same(lax.round(xa.asarray(x), lax.RoundingMethod.TO_NEAREST_EVEN), even)
        assert_same(lax.floor(xa.asarray(x)), np.floor(x.astype(np.float64)).astype(dt))
        assert_same(lax.ceil(xa.asarray(x)), np.ceil(x.astype(np.float64)).astype(dt))


def test_round_worked_examples():
    x = f32([0.5, -0.5, 2.5, -2.5, 0.49999997, -0.0, 1.5])
    assert to_np(lax.round(x)).tolist() == [1.0, -1.0, 3.0, -3.0, 0.0, -0.0, 2.0]
    assert np.signbit(to_np(lax.round(x))[5])
    assert to_np(lax.round_nearest_even(x)).tolist() == [0.0, -0.0, 2.0, -2.0, 0.0, -0.0,
                                                         2.0]


@pytest.mark.parametrize("dt", FLOATS + COMPLEX, ids=str)
def test_float_arithmetic_exact(dt):
    """add/sub/mul/neg/abs/square/max/min on floats: correctly rounded (computed in
    float64 where that is exact, else against NumPy in the same dtype)."""
    rng = np.random.default_rng(50)
    sv = special_values(dt)
    a = np.concatenate([np.repeat(sv, len(sv)), random_array(rng, (300,), dt)])
    b = np.concatenate([np.tile(sv, len(sv)), random_array(rng, (300,), dt)])
    ta, tb = make_tensor(a, "negstep"), xa.asarray(b)
    with np.errstate(all="ignore"):
        if kind(dt) == "f":
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
            for name, op in [("add", np.add), ("sub", np.subtract), ("mul", np.multiply)]:
                assert_same(getattr(lax, name)(ta, tb), round_to(op(a64, b64), dt),
                            {"a": a, "b": b})
            assert_same(lax.abs(ta), np.abs(a))
            assert_same(lax.square(ta), round_to(a64 * a64, dt), {"a": a})
        else:
            assert_same(lax.add(ta, tb), a + b, {"a": a, "b": b})
            assert_same(lax.sub(ta, tb), a - b, {"a": a, "b": b})
            assert_ulp(lax.abs(ta), round_to(np.hypot(a.real.astype(np.float64),
                                                      a.imag.astype(np.float64)),
                                             real_dtype(dt)), 1, {"a": a})
        assert_same(lax.neg(ta), -a)


@pytest.mark.parametrize("dt", COMPLEX, ids=str)
def test_complex_parts(dt):
    rng = np.random.default_rng(51)
    z = random_array(rng, (5, 7), dt)
    t = make_tensor(z, "colmajor")
    assert_same(lax.real(t), z.real)
    assert_same(lax.imag(t), z.imag)
    assert_same(lax.conj(t), np.conj(z))
    w = random_array(rng, (5, 7), dt, specials=0, low=-10, high=10)
    zz = random_array(rng, (5, 7), dt, specials=0, low=-10, high=10)
    got = to_np(lax.mul(xa.asarray(zz), xa.asarray(w))).astype(np.complex128)
    ref = zz.astype(np.complex128) * w.astype(np.complex128)
    assert np.all(np.abs(got - ref) <= 4 * finfo(real_dtype(dt)).eps * np.abs(ref))
    got = to_np(lax.div(xa.asarray(zz), xa.asarray(w))).astype(np.complex128)
    ref = zz.astype(np.complex128) / w.astype(np.complex128)
    assert np.all(np.abs(got - ref) <= 8 * finfo(real_dtype(dt)).eps * np.abs(ref))


@pytest.mark.parametrize("dt", REALS + COMPLEX + [xa.bool_], ids=str)
def test_is_finite(dt):
    x = np.concatenate([special_values(dt), random_array(np.random.default_rng(52), (20,),
                                                         dt)])
    if kind(dt) in "biu":
        ref = np.ones(x.shape, bool)
    else:
        ref = np.isfinite(x.astype(np.complex128 if kind(dt) == "c" else np.float64))
    if kind(dt) == "c" or kind(dt) == "b":
        try:
            got = lax.is_finite(xa.asarray(x))
        except TypeError:
            pytest.skip("is_finite is defined on floats")
        assert_same(got, ref)
        return
    assert_same(lax.is_finite(xa.asarray(x)), ref, {"x": x})


# Transcendental functions: max ULP distance from the float64 result rounded to the
# dtype (f32/f64); f16/bf16 compute in float32 then round: at most 1 ULP (sqrt: 0).
LAX_F64_REF = {
    "exp": np.exp, "expm1": np.expm1, "log": np.log, "log1p": np.log1p,
    "logistic": lambda x: 1.0 / (1.0 + np.exp(-x)), "tanh": np.tanh, "sin": np.sin,
    "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x), "cbrt": np.cbrt,
}
LAX_ULP = {"exp": 2, "expm1": 2, "log": 2, "log1p": 2, "logistic": 4, "tanh": 2,
           "sin": 2, "cos": 2, "tan": 3, "asin": 2, "acos": 2, "atan": 2, "sinh": 3,
           "cosh": 3, "asinh": 3, "acosh": 3, "atanh": 3, "sqrt": 0, "rsqrt": 2,
           "cbrt": 2, "atan2": 2, "pow": 2}


def lax_ulp(name, dt):
    if name == "sqrt":
        return 0
    return 1 if np.dtype(dt) in (xa.float16, BF16) else LAX_ULP[name]


@pytest.mark.parametrize("dt", FLOATS, ids=str)
@pytest.mark.parametrize("name", sorted(LAX_F64_REF))
def test_transcendental_real(name, dt):
    rng = np.random.default_rng(53)
    x = np.concatenate([special_values(dt), random_array(rng, (300,), dt),
                        random_array(rng, (200,), dt, specials=0, low=-1.2, high=1.2)])
    with np.errstate(all="ignore"):
        ref = round_to(LAX_F64_REF[name](x.astype(np.float64)), dt)
    got = getattr(lax, name)(make_tensor(x, "step"))
    assert_ulp(got, ref, lax_ulp(name, dt), {"x": x})


@pytest.mark.parametrize("dt", FLOATS, ids=str)
@pytest.mark.parametrize("name", ["atan2", "pow"])
def test_transcendental_binary(name, dt):
    rng = np.random.default_rng(54)
    sv = special_values(dt)
    a = np.concatenate([np.repeat(sv, len(sv)), random_array(rng, (300,), dt)])
    b = np.concatenate([np.tile(sv, len(sv)), random_array(rng, (300,), dt)])
    fn = {"atan2": np.arctan2, "pow": np.power}[name]
    with np.errstate(all="ignore"):
        ref = round_to(fn(a.astype(np.float64), b.astype(np.float64)), dt)
    got = getattr(lax, name)(xa.asarray(a), make_tensor(b, "transposed"))
    assert_ulp(got, ref, lax_ulp(name, dt), {"a": a, "b": b})


@pytest.mark.parametrize("dt", COMPLEX, ids=str)
@pytest.mark.parametrize("name", ["exp", "expm1", "log", "log1p", "logistic", "tanh",
                                  "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
                                  "cosh", "asinh", "acosh", "atanh", "sqrt", "rsqrt",
                                  "pow"])
def test_transcendental_complex(name, dt):
    """Finite moderate inputs; normwise relative error (c64: 1e-5, c128: 1e-12)."""
    rng = np.random.default_rng(55)
    z = random_array(rng, (200,), dt, specials=0, low=-3, high=3)
    w = random_array(rng, (200,), dt, specials=0, low=-2, high=2)
    fn = getattr(lax, name)
    with np.errstate(all="ignore"):
        if name == "pow":
            got = fn(xa.asarray(z), xa.asarray(w))
            ref = np.power(z.astype(np.complex128), w.astype(np.complex128))
        else:
            got = fn(xa.asarray(z))
            ref = LAX_F64_REF[name](z.astype(np.complex128))
    rtol = 1e-5 if dt == xa.complex64 else 1e-12
    g = to_np(got).astype(np.complex128)
    err = np.abs(g - ref)
    bad = ~(err <= rtol * np.abs(ref))
    assert not bad.any(), f"z={z[bad][:3]} got={g[bad][:3]} expected={ref[bad][:3]}"


# ------------------------------------------------------------------------------ convert
def _exact_to_float(v, dt):
    """Python int / Fraction -> the nearest (ties to even) value of float dtype ``dt``,
    with overflow to inf and gradual underflow; a Python float result."""
    fi = finfo(dt)
    p = int(fi.nmant) + 1
    f = Fraction(v)
    if f == 0:
        return math.copysign(0.0, v) if isinstance(v, float) else 0.0
    sign = -1.0 if f < 0 else 1.0
    f = abs(f)
    e = f.numerator.bit_length() - f.denominator.bit_length()
    if Fraction(2) ** e > f:
        e -= 1
    q = max(e, int(fi.minexp)) - (p - 1)
    scaled = f / Fraction(2) ** q
    n, rem = divmod(scaled.numerator, scaled.denominator)
    rem = Fraction(rem, scaled.denominator)
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2):
        n += 1
    r = Fraction(n) * Fraction(2) ** q
    if r > Fraction(float(fi.max)):
        return sign * math.inf
    return sign * float(r)


def convert_ref(x, src, dst):
    """ConvertElementType per SPEC.md, element by element, in exact arithmetic."""
    src, dst = np.dtype(src), np.dtype(dst)
    ks, kd = kind(src), kind(dst)
    flat = x.ravel()
    if ks == "c" and kd == "c":
        return np.array([complex(_conv1(v.real, "f", real_dtype(dst)),
                                 _conv1(v.imag, "f", real_dtype(dst))) for v in flat],
                        dst).reshape(x.shape)
    if kd == "b":
        if ks in "fc":
            flat = flat.astype(np.complex128 if ks == "c" else np.float64)
        return (flat != 0).reshape(x.shape)
    if ks == "c":
        flat = flat.real
        ks = "f"
    out = [_conv1(v, ks, real_dtype(dst) if kd == "c" else dst) for v in flat.tolist()]
    if kd in "iu":
        return from_py(out, x.shape, dst)
    return np.array(out, np.float64).astype(dst).reshape(x.shape)


def _conv1(v, ks, dst):
    kd = kind(dst)
    if ks == "b":
        v = int(bool(v))
        ks = "i"
    v = float(v) if ks == "f" else int(v)
    if kd in "iu":
        info = np.iinfo(dst)
        if ks == "f":
            if math.isnan(v):
                return 0
            if math.isinf(v):
                return info.max if v > 0 else info.min
            t = math.trunc(v)
            return min(max(t, info.min), info.max)
        return v  # integer -> integer wraps (from_py)
    if ks == "f" and (math.isnan(v) or math.isinf(v) or v == 0):
        return v
    return _exact_to_float(v, dst)


def convert_inputs(src, rng):
    x = np.concatenate([special_values(src), random_array(rng, (120,), src)])
    if kind(src) == "f":
        edges = []
        for it in INTS:
            info = np.iinfo(it)
            edges += [info.max, info.max + 1, info.min, info.min - 1, info.max + 0.5,
                      info.min - 0.5, -0.99, 0.99, 2.0 ** 24 + 1]
        with np.errstate(all="ignore"):
            x = np.concatenate([x, np.array(edges, np.float64).astype(src)])
    if src == xa.float64:  # f64 -> bf16 must round once: this one rounds up to 1.0078125
        x = np.concatenate([x, np.array([1.00390625 + 2.0 ** -30, -(1.00390625 + 2.0 ** -30),
                                         65519.99, 65520.0])])
    if kind(src) == "i":
        x = np.concatenate([x, np.array([2 ** 24 + 1, 2 ** 53 + 1, -(2 ** 24) - 3, 2049,
                                         65519, 65520, 300, 2 ** 24 + 2 ** 16 + 1,
                                         -(2 ** 24 + 2 ** 16 + 1)], np.int64).astype(src)])
    if kind(src) == "u":
        x = np.concatenate([x, np.array([2 ** 64 - 1, 2 ** 63 + 1, 2 ** 24 + 1, 2049,
                                         65520, 2 ** 24 + 2 ** 16 + 1], np.uint64).astype(src)])
    return x


@pytest.mark.parametrize("dst", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("src", ALL_DTYPES, ids=str)
def test_convert_element_type(src, dst):
    """float -> int truncates and saturates (NaN -> 0); int -> float and narrowing float
    conversions round to nearest even; x -> pred is x != 0; ints wrap; complex -> real
    keeps the real part."""
    rng = np.random.default_rng(56)
    x = convert_inputs(src, rng)
    ref = convert_ref(x, src, dst)
    got = lax.convert_element_type(make_tensor(x, "negstep"), dst)
    assert_same(got, ref, {"x": x})
    assert_same(xa.asarray(x).astype(dst), ref)


def test_convert_worked_examples():
    x = f32([3.9, -3.9, 1e10, -1e10, np.nan, 300.0])
    assert to_np(lax.convert_element_type(x, xa.int8)).tolist() == [3, -3, 127, -128, 0, 127]
    assert to_np(lax.convert_element_type(x, xa.int32)).tolist() == \
        [3, -3, 2 ** 31 - 1, -2 ** 31, 0, 300]
    assert to_np(lax.convert_element_type(x, xa.uint8)).tolist() == [3, 0, 255, 0, 0, 255]
    i = xa.asarray(np.array([300, -1, 2 ** 24 + 1], np.int32))
    assert to_np(lax.convert_element_type(i, xa.uint8)).tolist() == [44, 255, 1]
    assert to_np(lax.convert_element_type(i, xa.float32)).tolist() == [300.0, -1.0, 2 ** 24]
    assert lax.convert_element_type(i, "f16").dtype == xa.float16
    assert lax.convert_element_type([1, 2], xa.float64).dtype == xa.float64


# ------------------------------------------------------------------------------ select ...
@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
def test_select(dt):
    rng = np.random.default_rng(57)
    p = rng.random((4, 5)) < 0.5
    a = random_array(rng, (4, 5), dt)
    b = random_array(rng, (4, 5), dt)
    got = lax.select(xa.asarray(p), make_tensor(a, "tiled"), make_tensor(b, "transposed"))
    assert_same(got, np.where(p, a, b), {"p": p, "a": a, "b": b})
    for scalar_p in (True, False):
        got = lax.select(xa.asarray(np.bool_(scalar_p)), xa.asarray(a), xa.asarray(b))
        assert_same(got, a if scalar_p else b)


def test_select_shape_errors():
    p = xa.asarray(np.ones((2, 3), bool))
    with pytest.raises(ValueError, match="select"):
        lax.select(p, f32(np.ones((3, 2))), f32(np.ones((3, 2))))


@pytest.mark.parametrize("dt", REALS, ids=str)
def test_clamp(dt):
    rng = np.random.default_rng(58)
    x = random_array(rng, (6, 7), dt)
    lo = random_array(rng, (6, 7), dt, specials=0)
    hi = np.maximum(lo, random_array(rng, (6, 7), dt, specials=0))
    with np.errstate(all="ignore"):
        ref = np.minimum(np.maximum(x, lo), hi)
    got = lax.clamp(xa.asarray(lo), make_tensor(x, "colmajor"), xa.asarray(hi))
    # the sign of a zero that ties with a bound is unspecified
    assert_same(got, ref, {"lo": lo, "x": x, "hi": hi}, zero_sign=False)
    s_lo, s_hi = (lo.min().item(), hi.max().item()) if kind(dt) != "f" or dt == BF16 \
        else (float(lo.min()), float(hi.max()))
    if dt != BF16:
        with np.errstate(all="ignore"):
            ref = np.minimum(np.maximum(x, np.array(s_lo, dt)), np.array(s_hi, dt))
        assert_same(lax.clamp(s_lo, xa.asarray(x), s_hi), ref, zero_sign=False)


@pytest.mark.parametrize("dt", [xa.float16, xa.float32, xa.float64], ids=str)
@pytest.mark.parametrize("layout", ["c", "colmajor", "negstep"])
def test_clip_is_numpys(dt, layout):
    """xa.clip with both bounds is NumPy's clip bit for bit, signed zeros included (a tie
    keeps x: clip(-0.0, 0.0, 1.0) is -0.0, where lax.clamp gives +0.0) and NaN bounds
    (NaN everywhere); scalar bounds (the kernel's two-op loop), array bounds, jit."""
    rng = np.random.default_rng(59)
    dt = dt.type
    x = random_array(rng, (9, 8), dt)
    x[0, :4] = [-0.0, 0.0, np.nan, -np.inf]
    t = make_tensor(x, layout)
    jitted = xa.jit(lambda v, lo, hi: xa.clip(v, lo, hi))
    for lo, hi in [(0.0, 1.0), (-0.0, 0.0), (0.0, -0.0), (-1.5, 2.0), (float("nan"), 1.0),
                   (0.0, float("nan")), (3.0, -3.0)]:
        with np.errstate(all="ignore"):
            want = np.clip(x, dt(lo), dt(hi))
        assert_same(xa.clip(t, lo, hi), want, {"lo": lo, "hi": hi})
        assert_same(jitted(t, xa.asarray(dt(lo)), xa.asarray(dt(hi))), want)
    lo = random_array(rng, (9, 8), dt, specials=0.3)
    with np.errstate(all="ignore"):
        want = np.clip(x, lo, dt(0.5))
    assert_same(xa.clip(t, xa.asarray(lo), 0.5), want)
    assert_same(lax.clamp(0.0, xa.asarray(np.array([-0.0], dt)), 1.0), np.array([0.0], dt))
    # every combination of specials, array bounds (NumPy's float32 / float64 array loop
    # keeps the bound on a tie, its scalar loop keeps x) and scalar bounds
    sp = [-0.0, 0.0, np.nan, -1.0, 1.0, -np.inf, np.inf]
    grid = np.array(list(itertools.product(sp, sp, sp)), dt).T
    gx, glo, ghi = (make_tensor(v, layout) for v in grid)
    with np.errstate(all="ignore"):
        assert_same(xa.clip(gx, glo, ghi), np.clip(*grid))
        for lo_s, hi_s in itertools.product(sp, sp):
            assert_same(xa.clip(gx, lo_s, hi_s), np.clip(grid[0], dt(lo_s), dt(hi_s)))


@pytest.mark.parametrize("dt", [np.complex64, np.complex128], ids=str)
def test_clip_complex_is_numpys(dt):
    """NumPy's complex clip: lexicographic compares, a tie keeps the bound, x's NaN stays,
    a bound's NaN part is not propagated."""
    sp = [-0.0, 0.0, np.nan, -1.0, 1.0, np.inf]
    z = np.array([complex(r, i) for r in sp for i in sp], dt)
    with np.errstate(all="ignore"):
        for lo in z[::5]:
            for hi in z[::7]:
                want = np.clip(z, lo, hi)
                got = to_np(xa.clip(xa.asarray(z), complex(lo), complex(hi)))
                nan = np.isnan(want.real) | np.isnan(want.imag)
                assert np.array_equal(np.isnan(got.real) | np.isnan(got.imag), nan)
                assert np.array_equal(got[~nan].view(np.uint8), want[~nan].view(np.uint8)), \
                    (lo, hi)


def test_broadcast_in_dim_and_broadcast():
    v = np.array([1, 2, 3], np.int32)
    got = lax.broadcast_in_dim(xa.asarray(v), (2, 3), (1,))
    assert_same(got, np.broadcast_to(v, (2, 3)))
    got = lax.broadcast_in_dim(xa.asarray(v), (3, 4), (0,))
    assert_same(got, np.broadcast_to(v[:, None], (3, 4)))
    c = np.array([[7], [8]], np.float32)
    assert_same(lax.broadcast_in_dim(xa.asarray(c), (2, 5, 3), (0, 2)),
                np.broadcast_to(c[:, None, :], (2, 5, 3)))
    assert_same(lax.broadcast(xa.asarray(v), (4, 2)), np.broadcast_to(v, (4, 2, 3)))
    assert lax.broadcast(xa.asarray(v), ()).shape == (3,)
    with pytest.raises(ValueError, match="broadcast_in_dim"):
        lax.broadcast_in_dim(xa.asarray(v), (2, 4), (1,))
    # any order (seed 004): operand dim 0 lands on result dim 2, dim 1 on dim 0
    want = np.broadcast_to(c.T[:, None, :], (3, 5, 2))
    assert_same(lax.broadcast_in_dim(xa.asarray(c), (3, 5, 2), (2, 0)), want)
    m = np.arange(6.0).reshape(2, 3)
    f = xa.jit(lambda x: lax.broadcast_in_dim(x, (3, 4, 2), (2, 0)) * 2 + 1)
    want = np.broadcast_to(m.T[:, None, :], (3, 4, 2)) * 2 + 1
    assert_same(f(xa.asarray(m)), want)
    with xa.lazy():
        lazy = lax.broadcast_in_dim(xa.asarray(m), (3, 4, 2), (2, 0)) * 2 + 1
    assert_same(lazy, want)
    assert_same(lax.broadcast_in_dim(xa.asarray(m), (3, 2), (1, 0)), m.T)
    with pytest.raises(ValueError, match="repeat"):
        lax.broadcast_in_dim(xa.asarray(m), (2, 3), (1, 1))
    with pytest.raises(ValueError, match="operand dim 0 has size 2, result dim 2 has size 5"):
        lax.broadcast_in_dim(xa.asarray(m), (3, 4, 5), (2, 0))
    with pytest.raises(ValueError, match="one"):
        lax.broadcast_in_dim(xa.asarray(v), (2, 3), (0, 1))
    with pytest.raises(ValueError, match="out of range"):
        lax.broadcast_in_dim(xa.asarray(v), (2, 3), (2,))
    with pytest.raises(ValueError):
        lax.broadcast(xa.asarray(v), (-1,))
    view = lax.broadcast_in_dim(xa.asarray(v), (2, 3), (1,))
    with pytest.raises(ValueError, match="read-only"):
        view[0, 0] = 5


@pytest.mark.parametrize("dt", INTS + FLOATS + COMPLEX, ids=str)
def test_iota(dt):
    n = 100
    assert_same(lax.iota(dt, n), np.arange(n).astype(dt))
    assert lax.iota(dt, 0).shape == (0,)
    got = lax.broadcasted_iota(dt, (3, 4, 2), 1)
    assert_same(got, np.broadcast_to(np.arange(4)[None, :, None], (3, 4, 2)).astype(dt))
    got = lax.broadcasted_iota(dt, (3, 4), -1)
    assert_same(got, np.broadcast_to(np.arange(4), (3, 4)).astype(dt))


def test_iota_errors():
    with pytest.raises(ValueError, match="iota"):
        lax.iota(xa.int32, -1)
    with pytest.raises(ValueError, match="broadcasted_iota"):
        lax.broadcasted_iota(xa.int32, (2, 3), 2)
    with pytest.raises(TypeError):
        lax.iota(object, 3)


# ------------------------------------------------------------------------------ property
LAX_EXACT = {
    "add": np.add, "sub": np.subtract, "max": np.maximum, "min": np.minimum,
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "ge": np.greater_equal,
}


@given(name=st.sampled_from(sorted(LAX_EXACT)),
       dt=st.sampled_from([xa.int8, xa.uint16, xa.int32, xa.int64, xa.uint64, xa.float16,
                           xa.float32, xa.float64]),
       shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4),
       layouts=st.tuples(st.sampled_from(LAYOUTS), st.sampled_from(LAYOUTS)),
       degenerate=st.lists(st.booleans(), min_size=4, max_size=4),
       seed=st.integers(0, 2 ** 31))
def test_lax_same_rank_property(name, dt, shape, layouts, degenerate, seed):
    """Same-rank operands (one possibly degenerate in some dims) in any layout/view."""
    rng = np.random.default_rng(seed)
    other = tuple(1 if d else s for s, d in zip(shape, degenerate))
    a = random_array(rng, shape, dt)
    b = random_array(rng, other, dt)
    got = getattr(lax, name)(make_tensor(a, layouts[0]), make_tensor(b, layouts[1]))
    with np.errstate(all="ignore"):
        ref = LAX_EXACT[name](a, b)
    assert_same(got, ref, {"a": a, "b": b}, zero_sign=name not in ("max", "min"))
