"""The NumPy frontend's elementwise functions and operators (``xa.add``, ``t + u`` ...)
against NumPy 2: result dtypes (NEP 50 weak Python scalars), values over every dtype,
special values, broadcasting, layouts and views, ``out=``, in-place operators, errors.

References: NumPy itself (in the same dtype) for exact operations; for float functions
the float64 NumPy result rounded to the result dtype, with the max-ULP tolerances of
ULP_TOL; for complex functions a normwise relative tolerance (COMPLEX_RTOL).
"""

import math
import operator
import warnings
import zlib

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xarr as xa
from conftest import (ALL_DTYPES, BF16, FLOATS, INTS, LAYOUTS, SIGNED, UNSIGNED,
                      assert_same, assert_ulp, describe_mismatch, finfo, kind, make_tensor,
                      random_array, round_to, special_values, to_np)
from op_reference import REFERENCE, expit as _expit
from xarr._registry import numpy_functions

# ------------------------------------------------------------------------------ op tables
# Every NumPy elementwise function xarr defines, from the op registry; how each is checked
# comes from its op's row in tests/op_reference.py.
NUMPY = numpy_functions()                 # {NumPy name: (NumpyForm, ElementwiseOp)}
REF = {name: REFERENCE[op.name] for name, (form, op) in NUMPY.items()}
BINARY = [name for name, (form, op) in NUMPY.items() if op.arity == 2]
UNARY = [name for name, (form, op) in NUMPY.items() if op.arity == 1]


def np_func(name):
    return REF[name].numpy or getattr(np, name)


# Max ULP distance from the float64 result rounded to the result dtype, for f32/f64
# results. float16/bfloat16 results are computed in float32, so they may only be off by
# a double rounding: 1 ULP of the narrow type.
ULP_TOL = {name: ref.ulp for name, ref in REF.items() if ref.ulp}
NARROW_ULP = 1
# Complex results of these ops are compared normwise: |got - ref| <= rtol * |ref|.
COMPLEX_RTOL = {np.dtype(np.complex64): 1e-5, np.dtype(np.complex128): 1e-12}
# (NumPy multiplies complex numbers with FMA in its SIMD loops, so not bitwise either.)
COMPLEX_APPROX = {name for name, ref in REF.items() if ref.is_complex_approx}


def ulp_tol(name, rd):
    return NARROW_ULP if np.dtype(rd) in (xa.float16, BF16) else ULP_TOL[name]


def numpy_result(name, *args):
    """(NumPy's result or None, the exception NumPy raised or None)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return np_func(name)(*args), None
        except Exception as e:  # noqa: BLE001 - any NumPy refusal counts
            return None, e


def base_exception(err):
    """The builtin class of a NumPy exception (UFuncTypeError -> TypeError ...)."""
    for cls in (OverflowError, TypeError, ValueError):
        if isinstance(err, cls):
            return cls
    return type(err)


def _probe(name, dt):
    nargs = 2 if name in BINARY else 1
    x = np.ones(3, dt)
    ref, err = numpy_result(name, *([x] * nargs))
    try:
        got = getattr(xa, name)(*([xa.asarray(x)] * nargs))
    except Exception:  # noqa: BLE001
        return False
    return err is None and to_np(got).dtype == np.asarray(ref).dtype


# (op, dtype) pairs where NumPy and xarr both compute the op with the same result dtype;
# test_support_and_result_dtype checks that this is every pair NumPy supports.
VALUE_DTYPES = {name: [dt for dt in ALL_DTYPES if _probe(name, dt)]
                for name in BINARY + UNARY}


def gen_args(rng, name, dt, shapes):
    """Random operands for ``name``: special values mixed in, except for complex results
    compared normwise (finite values of moderate size there); non-negative integer
    exponents for power (NumPy raises on negative ones)."""
    if kind(dt) == "c" and name in COMPLEX_APPROX:
        args = [random_array(rng, s, dt, specials=0, low=-5, high=5) for s in shapes]
    else:
        args = [random_array(rng, s, dt) for s in shapes]
    if name == "power" and kind(dt) in "iu":
        args[1] = (np.abs(args[1].astype(np.int64)) % 40).astype(dt)
    return args


def _ulp_of(m, dt):
    """One ULP of dtype ``dt`` at magnitude ``m`` (float64 array)."""
    fi = finfo(dt)
    e = np.floor(np.log2(np.maximum(m, float(fi.tiny))))
    return np.exp2(e - fi.nmant)


# the sign of a zero result is unspecified for these (NumPy itself differs between dtypes;
# xa.sign keeps -0.0 as the lax SPEC decides, NumPy returns +0.0)
# sign: NumPy gives +0.0 for float -0.0 but ml_dtypes' bfloat16 loop keeps -0.0; xa.sign
# gives +0.0 for every float dtype (test_numpy_sign_of_zero_is_positive_lax_sign_keeps_it).
ZERO_SIGN_FREE = {name for name, ref in REF.items() if ref.zero_sign_free}


def check_against_numpy(name, got, args, inputs=None):
    """got = xa.<name>(*tensors) where ``args`` are the NumPy/Python equivalents."""
    ref, err = numpy_result(name, *args)
    assert err is None, f"NumPy refused: {err}"
    ref = np.asarray(ref)
    rd = ref.dtype
    kinds = {kind(np.asarray(a).dtype) for a in args}
    inputs = inputs or {f"x{i}": a for i, a in enumerate(args)}
    if kind(rd) == "c" and name in COMPLEX_APPROX:
        g = to_np(got)
        assert g.dtype == rd
        with np.errstate(all="ignore"):
            ref128 = np.asarray(np_func(name)(*[np.asarray(a).astype(np.complex128)
                                                for a in args]))
        err = np.abs(g.astype(np.complex128) - ref128)
        bad = ~(err <= COMPLEX_RTOL[rd] * np.maximum(np.abs(ref128), 1e-30))
        assert not bad.any(), (f"{int(bad.sum())} complex results off: got "
                               f"{g[bad][:4]}, expected {ref128[bad][:4]}")
        return
    if name == "absolute" and "c" in kinds:
        z = np.asarray(args[0])  # NumPy's own complex abs is not correctly rounded
        with np.errstate(all="ignore"):
            ref64 = np.hypot(z.real.astype(np.float64), z.imag.astype(np.float64))
        assert_ulp(got, round_to(ref64, rd), 1, inputs)
        return
    if REF[name].input_ulp and kind(rd) == "f":
        # logaddexp: max(a, b) + log1p(exp(-|a - b|)) cancels when the result is near 0
        # (NumPy's float32 loop too): allow input_ulp ULP of max(|a|, |b|) plus result_ulp
        # ULP of the result.
        a64, b64 = (np.asarray(a).astype(np.float64) for a in args)
        with np.errstate(all="ignore"):
            ref64 = np_func(name)(a64, b64)
        g = to_np(got)
        assert g.dtype == rd
        g64 = g.astype(np.float64)
        with np.errstate(all="ignore"):
            fin = np.isfinite(ref64)
            tol = REF[name].input_ulp * _ulp_of(np.maximum(np.abs(a64), np.abs(b64)), rd) + \
                REF[name].result_ulp * _ulp_of(np.abs(ref64), rd)
            bad = np.where(fin, ~(np.abs(g64 - ref64) <= tol),
                           ~((g64 == ref64) | (np.isnan(g64) & np.isnan(ref64))))
        if bad.any():
            raise AssertionError(describe_mismatch(bad, g, round_to(ref64, rd), inputs))
        return
    if name in ULP_TOL and kind(rd) == "f" and not (name == "power" and kinds <= set("biu")):
        with np.errstate(all="ignore"):
            ref64 = np_func(name)(*[np.asarray(a).astype(np.float64) for a in args])
        assert_ulp(got, round_to(ref64, rd), ulp_tol(name, rd), inputs)
        return
    assert_same(got, ref, inputs, zero_sign=name not in ZERO_SIGN_FREE)


# ------------------------------------------------------------------------------ dtypes
@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("name", BINARY + UNARY)
def test_support_and_result_dtype(name, dt):
    """Every dtype NumPy accepts is accepted, with NumPy's result dtype; dtypes NumPy
    rejects raise TypeError naming the op."""
    nargs = 2 if name in BINARY else 1
    x = np.ones(4, dt)
    ref, err = numpy_result(name, *([x] * nargs))
    if name == "expit":  # scipy.special.expit's loops: e->e, f->f, d->d
        if kind(dt) == "c":
            pytest.skip("no NumPy/SciPy reference for complex expit")
        ref, err = np.ones(4, np.sin(x).dtype), None
    args = [xa.asarray(x)] * nargs
    if err is not None:
        with pytest.raises(TypeError, match=name):
            getattr(xa, name)(*args)
        return
    got = getattr(xa, name)(*args)
    assert got.dtype == np.asarray(ref).dtype
    assert got.shape == (4,)


PROMO_DTYPES = [xa.bool_, xa.int8, xa.uint8, xa.int16, xa.uint32, xa.int64, xa.uint64,
                xa.float16, xa.bfloat16, xa.float32, xa.float64, xa.complex64]


@pytest.mark.parametrize("d2", PROMO_DTYPES, ids=str)
@pytest.mark.parametrize("d1", PROMO_DTYPES, ids=str)
@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "less"])
def test_mixed_dtype_promotion(name, d1, d2):
    """Tensor-tensor promotion is np.result_type's (TypeError where it has none); values
    are NumPy's computed in that dtype."""
    rng = np.random.default_rng(7)
    a = random_array(rng, (3, 4), d1)
    b = random_array(rng, (4,), d2)
    try:
        rt = np.result_type(d1, d2)
    except TypeError:
        with pytest.raises(TypeError):
            getattr(xa, name)(xa.asarray(a), xa.asarray(b))
        return
    got = getattr(xa, name)(xa.asarray(a), xa.asarray(b))
    with np.errstate(all="ignore"):
        ref = np_func(name)(a.astype(rt), b.astype(rt))
    if rt.kind == "c" and name in ("multiply", "divide", "power"):
        # NumPy's SIMD complex products may use FMA: not a bitwise reference.
        g = np.asarray(got).astype(np.complex128)
        r = ref.astype(np.complex128)
        fin = np.isfinite(r)
        tol = 4 * np.finfo(rt).eps
        assert np.asarray(got).dtype == rt
        assert (np.abs(g[fin] - r[fin]) <= tol * np.abs(r[fin]) + 1e-300).all()
        return
    assert_same(got, ref, {"a": a, "b": b}, zero_sign=name not in ZERO_SIGN_FREE)


SCALARS = [True, 0, 1, -1, 7, 127, 128, 255, 300, -129, 2 ** 31, 2 ** 63 - 1, 2 ** 63,
           1.5, -0.0, math.inf, math.nan, 1e300, 1 + 2j]


@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
@pytest.mark.parametrize("dt", [d for d in ALL_DTYPES if d != BF16], ids=str)
def test_python_scalar_weak_promotion(dt, scalar):
    """NEP 50: a Python scalar takes the tensor's dtype when of the same or a lower kind;
    a Python int that does not fit raises OverflowError (as NumPy does)."""
    rng = np.random.default_rng(1)
    a = random_array(rng, (5,), dt)
    for name, args in [("add", (a, scalar)), ("subtract", (scalar, a)),
                       ("multiply", (a, scalar)), ("less", (scalar, a))]:
        targs = [xa.asarray(v) if isinstance(v, np.ndarray) else v for v in args]
        ref, err = numpy_result(name, *args)
        if err is not None:
            with pytest.raises(base_exception(err)) as info:
                getattr(xa, name)(*targs)
            assert str(scalar) in str(info.value) or not isinstance(err, OverflowError)
            continue
        got = getattr(xa, name)(*targs)
        assert_same(got, ref, {"x0": args[0], "x1": args[1]})


@pytest.mark.parametrize("scalar", [1, 2.5, True, -3], ids=repr)
def test_python_scalar_keeps_bfloat16(scalar):
    """bfloat16 follows NEP 50 like float16: bf16 tensor + Python int/float is bf16."""
    a = np.array([1.0, 2.5, -3.0], BF16)
    got = xa.asarray(a) + scalar
    assert got.dtype == BF16
    assert_same(got, (a.astype(np.float32) + np.float32(scalar)).astype(BF16))
    got = scalar * xa.asarray(a)
    assert got.dtype == BF16


@pytest.mark.parametrize("dt", INTS, ids=str)
def test_python_int_out_of_range_raises(dt):
    info = np.iinfo(dt)
    t = xa.asarray(np.zeros(3, dt))
    for v in (info.max + 1, info.min - 1):
        with pytest.raises(OverflowError, match=str(v)):
            xa.add(t, v)
        with pytest.raises(OverflowError, match=str(v)):
            t * v
        with pytest.raises(OverflowError):
            v - t
    assert_same(xa.add(t, info.max), np.full(3, info.max, dt))


# ------------------------------------------------------------------------------ values
def _sweep_args(name, dt, rng):
    """Every pair of special values (binary) or the special values (unary), plus random
    values."""
    sv = special_values(dt)
    rnd = random_array(rng, (300,), dt)
    if name in BINARY:
        a = np.concatenate([np.repeat(sv, len(sv)), rnd])
        b = np.concatenate([np.tile(sv, len(sv)), random_array(rng, (300,), dt)])
        if name == "power" and kind(dt) in "iu":
            b = (np.abs(b.astype(np.int64)) % 70).astype(dt)
        return [a, b]
    return [np.concatenate([sv, rnd])]


def _sweep_cases():
    for name in BINARY + UNARY:
        for dt in VALUE_DTYPES[name]:
            yield pytest.param(name, dt, id=f"{name}-{dt}")


@pytest.mark.parametrize("name, dt", list(_sweep_cases()))
def test_values_special_sweep(name, dt):
    """All special-value combinations and random values against NumPy."""
    rng = np.random.default_rng(zlib.crc32(f"{name}-{dt}".encode()))
    args = _sweep_args(name, dt, rng)
    if kind(dt) == "c" and name in COMPLEX_APPROX:
        args = gen_args(rng, name, dt, [a.shape for a in args])
    got = getattr(xa, name)(*[xa.asarray(a) for a in args])
    check_against_numpy(name, got, args)


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_expit_values(dt):
    rng = np.random.default_rng(3)
    x = np.concatenate([special_values(dt), random_array(rng, (200,), dt)])
    got = xa.expit(make_tensor(x, "negstep"))
    assert got.dtype == dt
    with np.errstate(all="ignore"):
        ref = _expit(x.astype(np.float64))
    assert_ulp(got, round_to(ref, dt), ulp_tol("expit", dt), {"x": x})


@st.composite
def operand_case(draw, name):
    """dtype, NumPy operands (one may be a Python scalar), and their tensors in random
    layouts, with NumPy-broadcastable shapes including size-0 and size-1 dims."""
    dt = draw(st.sampled_from(VALUE_DTYPES[name]))
    nargs = 2 if name in BINARY else 1
    shapes = draw(hnp.mutually_broadcastable_shapes(
        num_shapes=nargs, min_dims=0, max_dims=3, min_side=0, max_side=5)).input_shapes
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    args = gen_args(rng, name, dt, shapes)
    scalar_at = draw(st.sampled_from([None] * 3 + list(range(nargs)))) if nargs == 2 \
        else None
    tensors = []
    for i, a in enumerate(args):
        if i == scalar_at and dt != BF16:
            v = a.ravel()[0].item() if a.size else 1
            args[i] = v
            tensors.append(v)
        else:
            tensors.append(make_tensor(a, draw(st.sampled_from(LAYOUTS))))
    return dt, args, tensors


@pytest.mark.parametrize("name", BINARY + UNARY)
@settings(max_examples=15)
@given(data=st.data())
def test_values_shapes_layouts_scalars(name, data):
    dt, args, tensors = data.draw(operand_case(name))
    for a, t in zip(args, tensors):
        if isinstance(a, np.ndarray):
            assert_same(t, a)  # the layout round-trips
    got = getattr(xa, name)(*tensors)
    check_against_numpy(name, got, args)


OPERATORS = {
    "add": lambda a, b: a + b, "subtract": lambda a, b: a - b,
    "multiply": lambda a, b: a * b, "divide": lambda a, b: a / b,
    "floor_divide": lambda a, b: a // b, "remainder": lambda a, b: a % b,
    "power": lambda a, b: a ** b, "bitwise_and": lambda a, b: a & b,
    "bitwise_or": lambda a, b: a | b, "bitwise_xor": lambda a, b: a ^ b,
    "left_shift": lambda a, b: a << b, "right_shift": lambda a, b: a >> b,
    "equal": lambda a, b: a == b, "not_equal": lambda a, b: a != b,
    "less": lambda a, b: a < b, "less_equal": lambda a, b: a <= b,
    "greater": lambda a, b: a > b, "greater_equal": lambda a, b: a >= b,
}
UNARY_OPERATORS = {"negative": lambda a: -a, "positive": lambda a: +a,
                   "absolute": lambda a: abs(a), "invert": lambda a: ~a}


@pytest.mark.parametrize("name", sorted(OPERATORS))
@settings(max_examples=15)
@given(data=st.data())
def test_operators_match_functions(name, data):
    """Binary operators (incl. their compiled fast paths and reflected forms) = NumPy."""
    dt, args, tensors = data.draw(operand_case(name))
    check_against_numpy(name, OPERATORS[name](*tensors), args)


@pytest.mark.parametrize("name", sorted(OPERATORS))
@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
def test_operators_fast_path_contiguous(name, dt):
    """Same-shape, same-dtype C-contiguous operands and a float scalar (the compiled
    fast path)."""
    if dt not in VALUE_DTYPES[name]:
        pytest.skip("op not defined for this dtype in NumPy")
    a, b = gen_args(np.random.default_rng(5), name, dt, [(7, 9), (7, 9)])
    check_against_numpy(name, OPERATORS[name](xa.asarray(a), xa.asarray(b)), [a, b])
    if kind(dt) in "fc" and dt != BF16:
        check_against_numpy(name, OPERATORS[name](xa.asarray(a), 0.75), [a, 0.75])
        check_against_numpy(name, OPERATORS[name](-2.5, xa.asarray(a)), [-2.5, a])


@pytest.mark.parametrize("name", sorted(UNARY_OPERATORS))
@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
def test_unary_operators(name, dt):
    if dt not in VALUE_DTYPES[name]:
        pytest.skip("op not defined for this dtype in NumPy")
    x = np.concatenate([special_values(dt), random_array(np.random.default_rng(2), (50,),
                                                         dt)])
    if kind(dt) == "c" and name in COMPLEX_APPROX:
        x = gen_args(np.random.default_rng(2), name, dt, [(50,)])[0]
    check_against_numpy(name, UNARY_OPERATORS[name](make_tensor(x, "step")), [x])


# ------------------------------------------------------------------------------ semantics
@pytest.mark.parametrize("dt", SIGNED + UNSIGNED, ids=str)
def test_integer_floor_divide_remainder_by_zero_and_overflow(dt):
    """NumPy: x // 0 == 0 and x % 0 == 0 for integers; INT_MIN // -1 == INT_MIN,
    INT_MIN % -1 == 0; floor semantics (sign of the divisor)."""
    info = np.iinfo(dt)
    if kind(dt) == "i":
        a = [7, -7, 7, -7, 5, info.min, info.max, 0, info.min, -1]
        b = [2, 2, -2, -2, 0, -1, 0, 0, 1, info.min]
    else:
        a = [7, 7, 0, 5, info.max, info.max, 0, 1]
        b = [2, 3, 0, 0, 0, 7, 5, info.max]
    a, b = np.array(a, dt), np.array(b, dt)
    ta, tb = xa.asarray(a), xa.asarray(b)
    exp_q = [x // y if y else 0 for x, y in zip(a.tolist(), b.tolist())]
    exp_r = [x % y if y else 0 for x, y in zip(a.tolist(), b.tolist())]
    exp_q = np.array([q if info.min <= q <= info.max else info.min for q in exp_q], dt)
    assert_same(ta // tb, exp_q, {"a": a, "b": b})
    assert_same(xa.floor_divide(ta, tb), exp_q, {"a": a, "b": b})
    assert_same(ta % tb, np.array(exp_r, dt), {"a": a, "b": b})
    assert_same(xa.remainder(ta, tb), np.array(exp_r, dt), {"a": a, "b": b})


def test_float_floor_divide_remainder_signs():
    a = np.array([7.0, -7.0, 7.0, -7.0, 1.0, -1.0, 0.0, -0.0, 5.0, np.inf, 1.0, 0.3])
    b = np.array([2.0, 2.0, -2.0, -2.0, 0.0, 0.0, 3.0, 3.0, np.inf, 2.0, -np.inf, 0.1])
    for dt in FLOATS:
        x, y = a.astype(dt), b.astype(dt)
        for name in ("floor_divide", "remainder", "fmod"):
            check_against_numpy(name, getattr(xa, name)(xa.asarray(x), xa.asarray(y)),
                                [x, y])


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_nextafter_steps_one_ulp_of_the_dtype(dt):
    """nextafter moves to the adjacent value of the operand's own dtype."""
    x = np.array([1.0, 0.0, -0.0, 1.0, 65504.0, 2.0], dt)
    y = np.array([2.0, 1.0, -1.0, 0.0, np.inf, -np.inf], dt)
    got = xa.nextafter(xa.asarray(x), xa.asarray(y))
    with np.errstate(all="ignore"):
        ref = np.nextafter(x, y)
    assert_same(got, ref, {"x": x, "y": y})


def test_integer_power_negative_exponent_raises_like_numpy():
    t = xa.asarray(np.array([2, 3], np.int32))
    with pytest.raises(ValueError):
        np.power(np.array([2, 3], np.int32), np.array([-1, 1], np.int32))
    with pytest.raises(ValueError, match="negative"):
        xa.power(t, xa.asarray(np.array([-1, 1], np.int32)))


@pytest.mark.parametrize("dt", FLOATS + INTS + [xa.complex128], ids=str)
def test_where(dt):
    rng = np.random.default_rng(11)
    cond = rng.random((3, 1, 4)) < 0.5
    x = random_array(rng, (5, 4), dt)
    y = random_array(rng, (4,), dt)
    assert_same(xa.where(xa.asarray(cond), make_tensor(x, "transposed"), xa.asarray(y)),
                np.where(cond, x, y), {"c": cond, "x": x, "y": y})
    assert_same(xa.where(cond, make_tensor(x, "colmajor"), 0), np.where(cond, x, 0))
    # a non-bool condition is its truth value
    ci = rng.integers(-2, 3, (5, 4)).astype(np.int8)
    assert_same(xa.where(xa.asarray(ci), xa.asarray(x), xa.asarray(y)),
                np.where(ci, x, y))


def test_where_promotion_and_scalars():
    cond = np.array([True, False, True])
    i8 = np.array([1, 2, 3], np.int8)
    f32 = np.array([0.5, 1.5, 2.5], np.float32)
    for x, y in [(i8, 1.5), (i8, 100), (f32, 2), (i8, f32), (1, 2.5), (f32, 1j)]:
        tx = xa.asarray(x) if isinstance(x, np.ndarray) else x
        ty = xa.asarray(y) if isinstance(y, np.ndarray) else y
        assert_same(xa.where(cond, tx, ty), np.where(cond, x, y), {"x": x, "y": y})
    with pytest.raises(ValueError, match="where"):
        xa.where(xa.asarray(cond), xa.asarray(np.ones(2)), 1.0)


@pytest.mark.parametrize("dt", [xa.int8, xa.uint16, xa.int64, xa.float16, xa.float32,
                                xa.float64], ids=str)
def test_clip(dt):
    rng = np.random.default_rng(12)
    x = random_array(rng, (4, 6), dt)
    lo = random_array(rng, (6,), dt, specials=0)
    hi = np.maximum(lo, random_array(rng, (4, 1), dt, specials=0))
    with np.errstate(all="ignore"):
        assert_same(xa.clip(make_tensor(x, "negstep"), xa.asarray(lo), xa.asarray(hi)),
                    np.clip(x, lo, hi), {"x": x, "lo": lo, "hi": hi})
        assert_same(xa.clip(xa.asarray(x), 1, None), np.clip(x, 1, None))
        assert_same(xa.clip(xa.asarray(x), None, 3), np.clip(x, None, 3))


@pytest.mark.parametrize("decimals", [0, 1, 2, 3, -1, -2])
@pytest.mark.parametrize("dt", [xa.float16, xa.float32, xa.float64, xa.int32, xa.int64,
                                xa.complex128], ids=str)
def test_round(dt, decimals):
    """xa.round is np.round: half to even, ``decimals`` of either sign; integers stay
    integers."""
    rng = np.random.default_rng(13)
    x = np.concatenate([random_array(rng, (60,), dt, specials=0.1),
                        np.array([0.5, 1.5, 2.5, -2.5, 15, 25, -35, 1234.5678, 0.125,
                                  2.675]).astype(dt)])
    with np.errstate(all="ignore"):
        ref = np.round(x, decimals)
    assert_same(xa.round(xa.asarray(x), decimals), ref, {"x": x})


# ------------------------------------------------------------------------------ shapes
@pytest.mark.parametrize("s1, s2, expected", [
    ((2, 1), (1, 3), (2, 3)), ((4,), (3, 1), (3, 4)), ((), (2, 3), (2, 3)),
    ((0, 3), (1, 3), (0, 3)), ((0,), (1,), (0,)), ((1, 0), (5, 1), (5, 0)),
    ((2, 1, 4), (3, 1), (2, 3, 4)), ((1,), (), (1,)),
])
def test_broadcast_shapes(s1, s2, expected):
    a = np.arange(math.prod(s1), dtype=np.int32).reshape(s1)
    b = np.arange(math.prod(s2), dtype=np.int32).reshape(s2) * 10
    got = xa.add(xa.asarray(a), xa.asarray(b))
    assert got.shape == expected
    assert_same(got, a + b)
    assert xa.broadcast_shapes(s1, s2) == expected


@pytest.mark.parametrize("s1, s2", [((2, 3), (3, 2)), ((3,), (4,)), ((0,), (2,)),
                                    ((2, 3, 4), (2, 4, 4))])
def test_incompatible_shapes_raise(s1, s2):
    a, b = xa.asarray(np.ones(s1)), xa.asarray(np.ones(s2))
    for fn, name in [(xa.add, "add"), (xa.less, "less"), (xa.arctan2, "arctan2")]:
        with pytest.raises(ValueError, match=name) as info:
            fn(a, b)
        assert str(s1) in str(info.value) and str(s2) in str(info.value)
    with pytest.raises(ValueError):
        a * b


def test_output_layout_follows_column_major_input():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = xa.asarray(x, layout=(0, 1))
    for r in (t + 1, xa.sin(t), t * t, xa.add(xa.asarray(np.ones(4, np.float32)), t)):
        assert r.xla_shape.layout.minor_to_major == (0, 1)
    assert_ulp(xa.sin(t), np.sin(x.astype(np.float64)).astype(np.float32), ULP_TOL["sin"])
    r = xa.asarray(x) + t
    assert r.xla_shape.layout.minor_to_major == (1, 0)


def test_size_zero_and_scalar_tensors():
    e = xa.asarray(np.zeros((0, 3), np.float32))
    assert (e + 1).shape == (0, 3)
    assert xa.sin(e).dtype == xa.float32
    assert (e < e).dtype == xa.bool_
    s = xa.asarray(np.float64(2.0))
    r = s * 3
    assert r.shape == () and to_np(r)[()] == 6.0
    assert_same(xa.add(s, xa.asarray(np.ones((2, 2)))), np.full((2, 2), 3.0))


# ------------------------------------------------------------------------------ out=
@pytest.mark.parametrize("layout", ["c", "step", "transposed", "colmajor"])
def test_out_argument(layout):
    rng = np.random.default_rng(21)
    a = random_array(rng, (3, 4), xa.float32)
    b = random_array(rng, (4,), xa.float32)
    out = make_tensor(np.zeros((3, 4), np.float32), layout)
    r = xa.add(xa.asarray(a), xa.asarray(b), out=out)
    assert r is out
    assert_same(out, a + b)
    r = xa.sin(xa.asarray(a), out=out)
    assert r is out
    with np.errstate(all="ignore"):
        ref = round_to(np.sin(a.astype(np.float64)), np.float32)
    assert_ulp(out, ref, ULP_TOL["sin"])
    r = xa.less(xa.asarray(a), 0.0, out=xa.asarray(np.zeros((3, 4), bool)))
    assert_same(r, a < 0)


def test_out_aliasing_inputs():
    """out= may be an input (in place) or overlap one; results are as if inputs were
    read first (NumPy's behaviour)."""
    x = np.arange(10, dtype=np.int64)
    t = xa.asarray(x.copy())
    xa.add(t, t, out=t)
    assert_same(t, x + x)
    t = xa.asarray(x.copy())
    xa.add(t[:-1], 1, out=t[1:])
    y = x.copy()
    np.add(y[:-1], 1, out=y[1:])
    assert_same(t, y)
    t = xa.asarray(x.copy())
    xa.multiply(t[::-1], t, out=t)
    assert_same(t, x[::-1] * x)


def test_out_errors():
    a = xa.asarray(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"xa\.add.*shape"):
        xa.add(a, a, out=xa.empty((3, 2)))
    with pytest.raises(TypeError, match=r"xa\.add.*dtype"):
        xa.add(a, a, out=xa.empty((2, 3), dtype=xa.int64))
    with pytest.raises(TypeError, match=r"xa\.sin"):
        xa.sin(a, out=xa.empty((2, 3), dtype=xa.int32))
    with pytest.raises(TypeError, match="out"):
        xa.add(a, a, out=np.empty((2, 3)))
    ro = xa.broadcast_to(xa.asarray(np.ones(3)), (2, 3))
    with pytest.raises(ValueError, match="read-only"):
        xa.add(a, a, out=ro)
    with pytest.raises(ValueError, match=r"xa\.add"):
        xa.add(a, a, out=xa.empty((1, 3)))  # out may not be broadcast


# ------------------------------------------------------------------------------ in-place
INPLACE = {
    "add": lambda a, b: a.__iadd__(b), "subtract": lambda a, b: a.__isub__(b),
    "multiply": lambda a, b: a.__imul__(b), "divide": lambda a, b: a.__itruediv__(b),
    "floor_divide": lambda a, b: a.__ifloordiv__(b),
    "remainder": lambda a, b: a.__imod__(b), "power": lambda a, b: a.__ipow__(b),
    "bitwise_and": lambda a, b: a.__iand__(b), "bitwise_or": lambda a, b: a.__ior__(b),
    "bitwise_xor": lambda a, b: a.__ixor__(b), "left_shift": lambda a, b: a.__ilshift__(b),
    "right_shift": lambda a, b: a.__irshift__(b),
}
INPLACE_CASES = [(xa.int32, xa.int32), (xa.int32, xa.int8), (xa.int8, xa.int64),
                 (xa.uint8, xa.int16), (xa.float32, xa.float64), (xa.float32, xa.int64),
                 (xa.float16, xa.float32), (xa.int64, xa.float64),
                 (xa.complex64, xa.float64), (xa.float64, xa.complex128),
                 (xa.bool_, xa.bool_), (xa.bool_, xa.int8)]


@pytest.mark.parametrize("layout", ["c", "step", "tiled", "colmajor"])
@pytest.mark.parametrize("td, od", INPLACE_CASES, ids=str)
@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_operators(name, td, od, layout):
    """t <op>= u: NumPy's same_kind casting of the result into t (TypeError otherwise),
    the same object returned, views write through to their base."""
    rng = np.random.default_rng(31)
    sp = 0 if "c" in kind(td) + kind(od) else 0.1
    a = random_array(rng, (3, 4), td, specials=sp)
    b = random_array(rng, (4,), od, specials=sp)
    if name == "power" and kind(od) in "iu":
        b = (np.abs(b.astype(np.int64)) % 5).astype(od)
    if name in ("left_shift", "right_shift") and kind(od) in "iu":
        b = (np.abs(b.astype(np.int64)) % 9).astype(od)
    ref = a.copy()
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            INPLACE[name](ref, b)
            err = None
        except Exception as e:  # noqa: BLE001
            err = e
    t = make_tensor(a, layout)
    if err is not None:
        with pytest.raises(base_exception(err)):
            INPLACE[name](t, xa.asarray(b))
        assert_same(t, a)  # unchanged
        return
    r = INPLACE[name](t, xa.asarray(b))
    assert r is t
    if name == "power" and kind(td) == "f":
        assert_ulp(t, ref, ulp_tol("power", td), {"a": a, "b": b})
    elif name in ("divide", "power") and kind(td) == "c":
        err = np.abs(to_np(t).astype(np.complex128) - ref)
        assert (err <= COMPLEX_RTOL[np.dtype(td)] * np.abs(ref)).all(), (to_np(t), ref)
    else:
        assert_same(t, ref, {"a": a, "b": b})


def test_inplace_views_write_through_and_scalars():
    base = np.arange(12, dtype=np.int32).reshape(3, 4)
    t = xa.asarray(base.copy())
    v = t[::2, ::-1]
    v += 100
    ref = base.copy()
    ref[::2, ::-1] += 100
    assert_same(t, ref)
    t2 = t
    t += t[::-1]  # overlapping read and write
    ref += ref[::-1].copy()
    assert t2 is t
    assert_same(t, ref)
    with pytest.raises(TypeError):
        t += 1.5
    with pytest.raises(TypeError):
        t /= 2
    with pytest.raises(OverflowError, match="2147483648"):
        t += 2 ** 31
    with pytest.raises(ValueError):
        t += xa.asarray(np.ones((2, 3, 4), np.int32))  # would grow the target
    ro = xa.broadcast_to(xa.asarray(np.ones(4, np.int32)), (3, 4))
    with pytest.raises(ValueError, match="read-only"):
        ro += 1
    assert_same(t, ref)


# ------------------------------------------------------------------------------ errors
@pytest.mark.parametrize("name, dt", [
    ("bitwise_and", xa.float32), ("bitwise_or", xa.float64), ("invert", xa.float16),
    ("left_shift", xa.float32), ("right_shift", xa.complex64), ("arctan2", xa.complex64),
    ("floor_divide", xa.complex128), ("remainder", xa.complex64), ("signbit", xa.complex64),
    ("bitwise_count", xa.float32), ("logaddexp", xa.complex128), ("ceil", xa.complex64),
])
def test_unsupported_dtype_raises_type_error(name, dt):
    nargs = 2 if name in BINARY else 1
    ref, err = numpy_result(name, *([np.ones(3, dt)] * nargs))
    assert isinstance(err, TypeError)  # NumPy refuses too
    with pytest.raises(TypeError, match=name) as info:
        getattr(xa, name)(*([xa.asarray(np.ones(3, dt))] * nargs))
    assert str(np.dtype(dt)) in str(info.value)


def test_bad_operands_raise_clear_errors():
    t = xa.asarray(np.ones(3, np.float32))
    with pytest.raises(TypeError):
        xa.add(t, "abc")
    with pytest.raises(TypeError):
        xa.add(t, None)
    with pytest.raises(TypeError):
        t & 1.5
    with pytest.raises(TypeError):
        t + object()
    with pytest.raises(TypeError):
        xa.sin(t, t)
    with pytest.raises(ValueError, match="add"):
        xa.add(t, [1.0, 2.0])
    # lists and NumPy arrays are accepted like NumPy
    assert_same(xa.add(t, [1.0, 2.0, 3.0]), np.ones(3, np.float32) + [1.0, 2.0, 3.0])
    assert_same(xa.multiply(np.arange(3), t), np.arange(3) * np.ones(3, np.float32))


def test_unary_fast_path_runs_what_the_general_path_runs():
    """xa.<unary>(t) on a C-contiguous tensor skips numpy_apply's rules through
    _tensor.unary_contiguous. For every function and dtype the table admits, that gives
    the bits of the general path (numpy_apply_general; strided views - a step, a
    transpose - take the fast path through the strided engine, with the general path's
    layout), and the table leaves out what the rules convert (exp of int32 is float64)."""
    from xarr import _tensor
    from xarr._ops.elementwise import numpy_apply_general, unary_fast_table
    UNARY_FAST = unary_fast_table()
    from xarr._dtypes import DTYPES
    rng = np.random.default_rng(21)
    checked = 0
    for name, per_dtype in UNARY_FAST.items():
        for code, entry in enumerate(per_dtype):
            if entry is None:
                continue
            dt = DTYPES[code]
            base = (rng.uniform(-3, 3, 64) if dt.kind in "fcV" else
                    rng.integers(0, 2, 64) if dt == np.bool_ else
                    rng.integers(-50 if dt.kind == "i" else 0, 50, 64)).astype(dt)
            square = base.reshape(8, 8)
            wide = xa.asarray(np.ascontiguousarray(square.T)).T   # transposed
            dense = xa.asarray(square)
            fast = _tensor.unary_contiguous(dense, per_dtype)
            assert fast is not None
            stepped = xa.asarray(np.repeat(square, 2, axis=1))[:, ::2]   # strided fast path
            with np.errstate(all="ignore"):
                general = numpy_apply_general(name, dense)
                for view in (stepped, wide):
                    via = _tensor.unary_contiguous(view, per_dtype)
                    ref = numpy_apply_general(name, view)
                    assert np.asarray(via).tobytes() == np.asarray(general).tobytes(), \
                        (name, dt)
                    assert via.xla_shape == ref.xla_shape, (name, dt)
            assert fast.dtype == general.dtype, (name, dt)
            assert np.asarray(fast).tobytes() == np.asarray(general).tobytes(), (name, dt)
            assert np.asarray(getattr(xa, name)(dense)).tobytes() == \
                np.asarray(fast).tobytes()
            checked += 1
    assert checked > 300
    assert UNARY_FAST["exp"][xa._dtypes.CODE_OF[np.dtype(np.int32)]] is None
    assert xa.exp(xa.asarray(np.arange(3, dtype=np.int32))).dtype == np.float64
    assert UNARY_FAST["floor"][xa._dtypes.CODE_OF[np.dtype(np.int32)]] is None
    with xa.lazy():   # inside xa.lazy the fast path steps aside so the op is recorded
        assert _tensor.unary_contiguous(xa.asarray(np.ones(3, np.float32)),
                                        UNARY_FAST["exp"]) is None


def test_numpy_sign_of_zero_is_positive_lax_sign_keeps_it():
    """np.sign(-0.0) is +0.0 (xa.sign, the SIGN_NP kernel); XLA's sign(-0.0) is -0.0
    (xa.lax.sign). Contiguous, strided and jitted alike; ints and complex unchanged."""
    for dt in (np.float16, xa.bfloat16, np.float32, np.float64):
        x = np.array([-0.0, 0.0, -2.0, 3.0, np.nan, -np.inf], dt)
        t = xa.asarray(x)
        strided = xa.asarray(np.repeat(x, 2))[::2]
        jitted = xa.jit(lambda v: xa.sign(v))(t)
        for got in (xa.sign(t), xa.sign(strided), jitted):
            g = np.asarray(got).astype(np.float64)
            assert not np.signbit(g[:2]).any(), dt
            np.testing.assert_array_equal(g, np.sign(x.astype(np.float64)))
        lz = np.asarray(xa.lax.sign(t)).astype(np.float64)
        assert np.signbit(lz[0]) and not np.signbit(lz[1])
    assert_same(xa.sign(xa.asarray(np.array([-3, 0, 5], np.int8))),
                np.sign(np.array([-3, 0, 5], np.int8)))
    z = np.array([3 + 4j, 0j, -2j], np.complex64)
    np.testing.assert_allclose(np.asarray(xa.sign(xa.asarray(z))), np.sign(z), rtol=1e-6)


_FAST_OPERATORS = [operator.add, operator.sub, operator.mul, operator.truediv,
                   operator.floordiv, operator.mod, operator.and_, operator.or_,
                   operator.xor, operator.eq, operator.ne, operator.lt, operator.le,
                   operator.gt, operator.ge]


def _strided_copy(a):
    """A non-contiguous view with a's values (so operators take the frontend's path)."""
    a = np.asarray(a)
    wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype) if a.ndim else None
    if wide is None:
        return None
    wide[..., ::2] = a
    return xa.asarray(wide)[..., ::2]


def _outcome(fn):
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn()
    except Exception as e:  # noqa: BLE001 - the exception type is the outcome
        return type(e)
    return (np.asarray(r).dtype, np.asarray(r).shape, np.asarray(r).tobytes())


@settings(max_examples=60, deadline=None)
@given(dt=st.sampled_from(ALL_DTYPES),
       shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=1, max_dims=3,
                                                max_side=4),
       scalar=st.one_of(st.integers(-300, 300), st.integers(-2**70, 2**70),
                        st.floats(allow_nan=True, width=32), st.sampled_from([0, 1, -1])),
       seed=st.integers(0, 2**16))
def test_operator_fast_paths_match_the_general_path(dt, shapes, scalar, seed):
    """x <op> y on C-contiguous tensors (same shape, broadcast, or a Python scalar) runs
    in _tensor.pyx's fast paths; the same values through strided views run the
    frontend's rules. Results (dtype, shape, bits) or exception types must agree."""
    rng = np.random.default_rng(seed)
    a = random_array(rng, shapes.input_shapes[0], dt)
    b = random_array(rng, shapes.input_shapes[1], dt)
    x, y = xa.asarray(a), xa.asarray(b)
    xs, ys = _strided_copy(a), _strided_copy(b)
    for op in _FAST_OPERATORS:
        assert _outcome(lambda: op(x, y)) == _outcome(lambda: op(xs, ys)), (op, dt)
        assert _outcome(lambda: op(x, scalar)) == _outcome(lambda: op(xs, scalar)), \
            (op, dt, scalar)
        assert _outcome(lambda: op(scalar, x)) == _outcome(lambda: op(scalar, xs)), \
            (op, dt, scalar)


@pytest.mark.parametrize("shape", [(64, 64, 2), (300, 300, 3), (7, 5000, 1), (2, 3, 4000, 5),
                                   (40000, 2)])
@pytest.mark.parametrize("threads", [1, 2])
def test_short_rows_run_with_a_longer_dim_inside(shape, threads, restore_threads):
    """Rows shorter than 8 elements (csrc/engine/nary.cpp swap_short_row) run with the
    longest outer dim innermost: broadcast, sliced and transposed operands, on 1 and 2
    threads (300 x 300 x 3 and 40000 x 2 reach the parallel threshold), equal NumPy's."""
    xa.set_num_threads(threads)
    rng = np.random.default_rng(len(shape) * 100 + shape[-1])
    a = rng.standard_normal(shape)
    b = rng.standard_normal(shape[:-2] + (1,) + shape[-1:])
    c = rng.standard_normal(shape[:-1] + (1,))
    ta, tb, tc = xa.asarray(a), xa.asarray(b), xa.asarray(c)
    np.testing.assert_array_equal(np.asarray(ta / tc), a / c)
    np.testing.assert_array_equal(np.asarray(tb - ta), b - a)
    np.testing.assert_array_equal(np.asarray(xa.maximum(tb, tc)), np.maximum(b, c))
    wide = rng.standard_normal(shape[:-1] + (3 * shape[-1],))
    tw = xa.asarray(wide)
    np.testing.assert_array_equal(np.asarray(tw[..., ::3] * ta), wide[..., ::3] * a)
    out = xa.zeros(shape[:-1] + (2 * shape[-1],))
    xa.add(ta, tc, out=out[..., ::2])
    want = np.zeros(out.shape)
    want[..., ::2] = a + c
    np.testing.assert_array_equal(np.asarray(out), want)


@pytest.mark.parametrize("n", [1, 2, 3, 17, 1000])
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64, np.float64])
def test_where_of_wide_elements_and_broadcast_values(n, dtype):
    """select on 16-byte elements (complex128: select16's blend, two elements a step) with
    array and broadcast values, odd lengths, and mask bytes other than 0/1 (a NumPy bool
    view of uint8 data: any nonzero byte is true)."""
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    if dtype != np.float64:
        a, b = a + 1j * rng.standard_normal(n), b - 1j * rng.standard_normal(n)
    a, b = a.astype(dtype), b.astype(dtype)
    v = 2j if dtype != np.float64 else 2.0
    raw = rng.integers(0, 4, n).astype(np.uint8)
    mask = raw.view(np.bool_)
    want = np.where(raw != 0, a, b)
    tm, ta, tb = xa.asarray(mask), xa.asarray(a), xa.asarray(b)
    np.testing.assert_array_equal(np.asarray(xa.where(tm, ta, tb)), want)
    np.testing.assert_array_equal(np.asarray(xa.where(tm, ta, 0)), np.where(raw != 0, a, 0))
    np.testing.assert_array_equal(np.asarray(xa.where(tm, v, tb)), np.where(raw != 0, v, b))
    np.testing.assert_array_equal(np.asarray(xa.where(tm, ta[::-1], tb)),
                                  np.where(raw != 0, a[::-1], b))
    np.testing.assert_array_equal(np.asarray(xa.jit(lambda m, x: xa.where(m, x, 0))(tm, ta)),
                                  np.where(raw != 0, a, 0))


@pytest.mark.parametrize("op", ["abs", "negative", "sqrt", "exp", "sin", "isnan", "real"])
@pytest.mark.parametrize("n", [7, 300, 200_001])
def test_unary_of_views_walked_in_one_loop(op, n, restore_threads):
    """A unary op on a view whose elements follow the result's memory order at one step
    (x[::2], x[::-1], x.T, a permuted slice) runs as one 1-D loop (_flat_stride); views
    without such a step (a broadcast, a 2-D slice) take the N-D engine. Bits equal those
    of the contiguous copy, on 1 and 2 threads (200001 reaches the parallel threshold)."""
    rng = np.random.default_rng(n)
    base = rng.random(2 * n + 3).astype(np.float32) + 0.25
    m = int(n ** 0.5) + 2
    grid = rng.random((m, 2 * m, 3)).astype(np.float32)
    views = [xa.asarray(base)[1::2][:n], xa.asarray(base)[::-1],
             xa.asarray(grid[:, :, 0]).T, xa.asarray(grid)[:, ::2].transpose(2, 0, 1),
             xa.broadcast_to(xa.asarray(base[:1]), (n,)), xa.asarray(grid)[1:, ::3, 1:]]
    f = getattr(xa, op)
    for threads in (1, 2):
        xa.set_num_threads(threads)
        for v in views:
            got = np.ascontiguousarray(np.asarray(f(v)))
            want = np.ascontiguousarray(np.asarray(f(xa.asarray(np.ascontiguousarray(np.asarray(v))))))
            np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16", "float16", "bfloat16", "float64",
                                   "complex64", "bool"])
@pytest.mark.parametrize("n", [5, 16, 1001])
def test_binary_on_every_other_element(dtype, n):
    """x[::2] op y[::2] (the stride-2 loop of binary_loop) equals the op on contiguous
    copies, bit for bit, for every element width."""
    rng = np.random.default_rng(n)
    a = rng.integers(1, 100, 2 * n)
    b = rng.integers(1, 100, 2 * n + 1)
    ta = xa.asarray(a).astype(getattr(xa, dtype))
    tb = xa.asarray(b).astype(getattr(xa, dtype))
    for name in ("add", "multiply", "maximum", "less", "not_equal"):
        f = getattr(xa, name)
        got = np.asarray(f(ta[::2], tb[1::2]))
        want = np.asarray(f(xa.asarray(np.ascontiguousarray(np.asarray(ta)[::2])),
                            xa.asarray(np.ascontiguousarray(np.asarray(tb)[1::2]))))
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
