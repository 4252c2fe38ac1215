"""The fuzz harness's op table: one ``Spec`` per public op of ``xa.*`` and ``xa.lax.*``
(tests/test_fuzz.py runs them; ``pytest -m fuzz`` runs the long profile).

A spec draws one ``Case`` from hypothesis: the xarr call, its independent reference (NumPy
on the same values, or a float64 / Python-integer model of the lax semantics) and how to
compare. Operands are drawn over every dtype, shapes with 0 and 1 dims, and every storage
(row/column-major, tiled, padded, strided, negative-stride, transposed views, broadcast
stride-0 views), with extreme values mixed in (NaN, +-inf, +-0, subnormals, integer
min/max). Some draws are bad arguments: when the reference raises, xarr must raise an
exception of the class NumPy raised (for ``lax``, of the classes jax raises).

The elementwise rows come from the op registry (xarr/_registry.py): a new elementwise op
is fuzzed without touching this file. Every other public function needs a spec here or a
line in NOT_FUZZED saying why; test_every_public_op_is_fuzzed fails otherwise, so a new
kernel family registers its ops with the harness when it adds them.
"""

import warnings
from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

import xarr as xa
from conftest import (ALL_DTYPES, BF16, FLOATS, LAYOUTS, assert_same, kind, make_tensor,
                      random_array, to_np)
from op_reference import REFERENCE
from test_elementwise import VALUE_DTYPES, check_against_numpy
from test_lax_elementwise import div_ref, int_pow_ref, rem_ref, shift_ref
from xarr._dtypes import CODE_OF, DTYPES as DTYPE_OF_CODE
from xarr._registry import elementwise_ops, numpy_functions

lax = xa.lax
STORAGES = LAYOUTS + ["broadcast"]
REALS = [d for d in ALL_DTYPES if kind(d) != "c"]
NUMERIC = [d for d in ALL_DTYPES if d != xa.bool_]


# ------------------------------------------------------------------------- the table
@dataclass
class Case:
    run: object                   # () -> xarr's result
    ref: object                   # () -> the expected result (raises for a bad argument)
    check: object = None          # (got, want) -> None; default: equal bit for bit
    errors: tuple = ()            # exception classes allowed when ref raises (default:
    #                               the class NumPy raised, see expected_errors)
    inputs: dict = field(default_factory=dict)   # named inputs, for failure messages
    traced: tuple = None          # (fn, tensors): run() is fn(*tensors), which the harness
    #                               may also run under xa.jit or xa.lazy()
    modes: tuple = ("eager", "jit", "lazy")      # (data-dependent shapes: no jit)


SPECS = {}          # "xa.sum" / "lax.add" -> function(draw) -> Case


def spec(*names):
    def deco(fn):
        for n in names:
            SPECS[n] = fn if len(names) == 1 else (lambda draw, n=n: fn(draw, n))
        return fn
    return deco


class JaxError(Exception):
    """Raised by a lax reference for a bad argument: ``classes`` are the exception
    classes jax raises for it (TypeError or ValueError, as jax.lax's shape rules do)."""

    def __init__(self, *classes):
        super().__init__(classes)
        self.classes = classes or (TypeError, ValueError)


# --------------------------------------------------------------------------- operands
@st.composite
def shapes(draw, min_dims=0, max_dims=3, max_side=4):
    """Shapes with size-0 and size-1 dims."""
    return tuple(draw(st.lists(st.sampled_from([0, 1, 1, 2, 3, max_side]),
                               min_size=min_dims, max_size=max_dims)))


@st.composite
def operand(draw, shape, dtype, specials=None, low=None, high=None):
    """(NumPy array, tensor) holding the same values in a random storage."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if specials is None:
        specials = draw(st.sampled_from([0.0, 0.15, 0.6]))
    how = draw(st.sampled_from(STORAGES))
    if how == "broadcast" and shape and shape[0] > 1:
        row = random_array(rng, (1,) + shape[1:], dtype, specials, low, high)
        values = np.broadcast_to(row, shape).copy()
        return values, xa.broadcast_to(xa.asarray(row), shape)
    values = random_array(rng, shape, dtype, specials, low, high)
    return values, make_tensor(values, "c" if how == "broadcast" else how)


def broadcastable(draw, base, n):
    """n shapes that broadcast to ``base`` (dims dropped on the left or set to 1)."""
    out = []
    for _ in range(n):
        s = list(base)
        if s and draw(st.booleans()):
            s = s[draw(st.integers(0, len(s))):]
        s = [1 if d and draw(st.integers(0, 3)) == 0 else d for d in s]
        out.append(tuple(s))
    return out


def numpy_call(fn, *args, **kwargs):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def quiet(fn):
    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn()
    return run


# ------------------------------------------------------------------------ comparisons
def exact(got, want):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), \
            f"{len(got)} results, expected {len(want)}"
        for g, w in zip(got, want):
            exact(g, w)
        return
    assert_same(got, np.asarray(want))


def close(rtol_scale=1.0):
    """Equal dtype and shape; finite values within a summation-order bound of the
    reference (rtol per dtype times rtol_scale), non-finite ones equal."""
    rtols = {"float16": 4e-3, "bfloat16": 3e-2, "float32": 2e-5, "float64": 1e-12,
             "complex64": 2e-5, "complex128": 1e-12}

    def check(got, want):
        if isinstance(want, (tuple, list)):
            for g, w in zip(got, want):
                check(g, w)
            return
        g, w = to_np(got), np.asarray(want)
        assert g.dtype == w.dtype, f"dtype {g.dtype}, expected {w.dtype}"
        assert g.shape == w.shape, f"shape {g.shape}, expected {w.shape}"
        if kind(w.dtype) not in "fc":
            np.testing.assert_array_equal(g, w)
            return
        rtol = rtols[str(np.dtype(w.dtype))] * rtol_scale
        g64, w64 = g.astype(np.complex128), w.astype(np.complex128)
        fin = np.isfinite(w64)
        with np.errstate(all="ignore"):
            bad = fin & ~(np.abs(g64 - w64) <= rtol * np.maximum(np.abs(w64), 1.0))
            nonfin = ~fin & ~((g64 == w64) | (np.isnan(g64) & np.isnan(w64)))
            if kind(w.dtype) == "c":
                # complex infinities: C99 Annex G products recover inf where NumPy's
                # formula gives nan (inf * (1 + 0j)); any non-finite matches any
                nonfin = ~fin & np.isfinite(g64)
        assert not (bad | nonfin).any(), (f"{int((bad | nonfin).sum())} values off: got "
                                          f"{g[bad | nonfin][:4]}, expected "
                                          f"{w[bad | nonfin][:4]}")
    return check


def expected_errors(err):
    """The classes xarr may raise where NumPy raised ``err``: its builtin base classes
    (numpy's AxisError is both a ValueError and an IndexError; UFuncTypeError is a
    TypeError)."""
    if isinstance(err, JaxError):
        return err.classes
    return tuple(c for c in (TypeError, ValueError, IndexError, OverflowError, KeyError)
                 if isinstance(err, c)) or (type(err),)


# ======================================================= elementwise (from the registry)
NUMPY = numpy_functions()


def _numpy_elementwise(name):
    form, op = NUMPY[name]

    def case(draw):
        ok = VALUE_DTYPES[name]
        # (a reference other than NumPy's, such as scipy's expit, is not fuzzed for refusals)
        bad = REFERENCE[op.name].numpy is None and draw(st.integers(0, 9)) == 0 or not ok
        dt = draw(st.sampled_from(ALL_DTYPES if bad else ok))
        base = draw(shapes())
        sh = broadcastable(draw, base, op.arity)
        approx = kind(dt) == "c" and REFERENCE[op.name].is_complex_approx
        ops = [draw(operand(s, dt, **({"specials": 0, "low": -5, "high": 5} if approx
                                       else {}))) for s in sh]
        arrays = [a for a, t in ops]
        if name == "power" and kind(dt) in "iu":
            arrays[1] = (np.abs(arrays[1].astype(np.int64)) % 40).astype(dt)
            ops[1] = (arrays[1], xa.asarray(arrays[1]))
        tensors = [t for a, t in ops]
        fn = getattr(xa, name)
        if op.arity > 1 and base and base[-1] > 1 and draw(st.integers(0, 9)) == 0:
            arrays[-1] = arrays[-1].reshape(-1)[:1].repeat(base[-1] + 1)   # shapes clash
            tensors[-1] = xa.asarray(arrays[-1])
        return Case(run=quiet(lambda: fn(*tensors)),
                    ref=lambda: numpy_call(getattr(np, name, None) or REFERENCE[op.name].numpy,
                                           *arrays),
                    check=lambda got, want: check_against_numpy(name, got, arrays),
                    inputs={f"x{k}": a for k, a in enumerate(arrays)},
                    traced=(fn, tensors))
    return case


for _name in NUMPY:
    SPECS["xa." + _name] = _numpy_elementwise(_name)


# --- lax elementwise: same dtype operands; the reference is NumPy where the semantics are
# the same, else a Python-integer / float64 model of the seed's semantics.
def _total_key(a):
    """Integers ordered as the floats' TotalOrder (-NaN < -inf < ... < -0 < +0 < ... < NaN)."""
    a = np.asarray(a)
    if a.dtype == BF16 or a.dtype == np.float16:
        u = a.view(np.uint16).astype(np.int64)
        bits = 16
    else:
        u = a.view(np.uint32 if a.dtype == np.float32 else np.uint64).astype(object)
        bits = 8 * a.itemsize
    sign = 1 << (bits - 1)
    u = np.asarray(u, dtype=object)
    return np.where(u >= sign, -(u - sign) - 1, u) if u.size else u


def _int_model(fn):
    def ref(dt, *arrays):
        flat = [a.astype(object).ravel() for a in np.broadcast_arrays(*arrays)]
        vals = [fn(*(int(v) for v in xs), dt) for xs in zip(*flat)] if flat[0].size else []
        bits = 8 * np.dtype(dt).itemsize
        wrapped = [(v & ((1 << bits) - 1)) for v in vals]
        if kind(dt) == "i":
            wrapped = [v - (1 << bits) if v >> (bits - 1) else v for v in wrapped]
        shape = np.broadcast_shapes(*[a.shape for a in arrays])
        return np.array(wrapped, dtype=object).astype(dt).reshape(shape)
    return ref


def _sign_lax(x):
    if kind(x.dtype) == "c":        # x / |x| in x's precision (|x| may overflow: then 0)
        with np.errstate(all="ignore"):
            a = np.abs(x)
            return np.where(a == 0, 0, x / a).astype(x.dtype)
    if kind(x.dtype) in "iu":
        return np.sign(x)
    with np.errstate(all="ignore"):
        return np.where(x == 0, x, np.sign(x.astype(np.float64))).astype(x.dtype)


def _make_complex(a, b):
    out = np.empty(a.shape, np.complex128 if a.dtype == np.float64 else np.complex64)
    out.real, out.imag = a, b
    return out


def _clz(x, dt):
    bits = 8 * np.dtype(dt).itemsize
    return bits - (x & ((1 << bits) - 1)).bit_length()


def _float_ref(fn):
    """fn computed in float64 / complex128 (a result rounded once to the operand dtype)."""
    def ref(*xs):
        wide = [x.astype(np.complex128 if kind(x.dtype) == "c" else np.float64)
                if kind(x.dtype) in "fc" else x for x in xs]
        return fn(*wide)
    return ref


LAX_REF = {     # lax op -> reference(*same-dtype arrays) where NumPy's differs or is absent
    # (1 / sqrt(x) of a complex infinity is 0; NumPy's complex division makes it nan)
    "rsqrt": _float_ref(lambda x: np.where(np.isinf(x), 0, 1 / np.sqrt(x))
                        if x.dtype.kind == "c" else 1 / np.sqrt(x)),
    "rem": np.fmod, "div": np.divide, "pow": np.power,
    "round_nearest_even": np.rint, "sign": _sign_lax,
    "select": lambda p, a, b: np.where(p, a, b),
    "clamp": lambda lo, x, hi: np.minimum(np.maximum(x, lo), hi),
    "complex": lambda a, b: _make_complex(*np.broadcast_arrays(a, b)),
    "logistic": _float_ref(lambda x: 1 / (1 + np.exp(-x))),
}
LAX_INT_REF = {"div": div_ref, "rem": rem_ref, "pow": int_pow_ref,
               "shift_left": lambda a, b, dt: shift_ref("shift_left", a, b, dt),
               "shift_right_logical": lambda a, b, dt: shift_ref("shift_right_logical", a,
                                                                 b, dt),
               "shift_right_arithmetic": lambda a, b, dt: shift_ref("shift_right_arithmetic",
                                                                    a, b, dt),
               "clz": _clz,
               "population_count": lambda x, dt: bin(x & ((1 << 8 * np.dtype(dt).itemsize)
                                                          - 1)).count("1")}
TOTAL = {"eq_total": np.equal, "ne_total": np.not_equal, "lt_total": np.less,
         "le_total": np.less_equal, "gt_total": np.greater, "ge_total": np.greater_equal}


def _lax_elementwise(op):
    fn = getattr(lax, op.lax)
    kinds = op.kinds

    def dtypes_of_kinds(ks):
        return [d for d in ALL_DTYPES if kind(d) in ks]

    def case(draw):
        bad = draw(st.integers(0, 9)) == 0
        ok = [d for d in dtypes_of_kinds(kinds) if op.accepts(CODE_OF[np.dtype(d)])]
        dt = draw(st.sampled_from(ALL_DTYPES if bad else ok))
        base = draw(shapes())
        n = op.arity
        same_shape = draw(st.booleans())
        sh = [base] * n if same_shape else [base if draw(st.booleans()) else () for _ in
                                            range(n)]
        dts = [dt] * n
        if op.name == "select":
            dts[0] = xa.bool_
        approx = kind(dt) == "c" and REFERENCE[op.name].is_complex_approx
        ops = [draw(operand(s, d, **({"specials": 0, "low": -5, "high": 5} if approx and
                                       d == dt else {}))) for s, d in zip(sh, dts)]
        arrays = [a for a, t in ops]
        tensors = [t for a, t in ops]
        if op.name == "clamp" and draw(st.booleans()):
            arrays[0], arrays[2] = np.minimum(arrays[0], arrays[2]), np.maximum(arrays[0],
                                                                                arrays[2])
            tensors[0], tensors[2] = xa.asarray(arrays[0]), xa.asarray(arrays[2])
        mismatch = n > 1 and draw(st.integers(0, 9)) == 0
        if mismatch:                     # another dtype: jax raises TypeError
            other = draw(st.sampled_from([d for d in ALL_DTYPES if d != dts[-1]]))
            arrays[-1] = arrays[-1].astype(other) if kind(other) != "c" or \
                kind(arrays[-1].dtype) == "c" else arrays[-1].astype(np.float64).astype(other)
            tensors[-1] = xa.asarray(arrays[-1])

        def ref():
            if mismatch or dt not in ok:
                raise JaxError(TypeError)
            if op.name in TOTAL:
                keys = [_total_key(a) if kind(dt) == "f" else a.astype(object)
                        for a in arrays]
                return TOTAL[op.name](*np.broadcast_arrays(*keys)).astype(bool)
            if op.name in LAX_INT_REF and kind(dt) in "iu":
                return _int_model(LAX_INT_REF[op.name])(dt, *arrays)
            if op.name in LAX_REF:
                return numpy_call(LAX_REF[op.name], *arrays)
            form = op.numpy[0]
            return numpy_call(getattr(np, form.name, None) or REFERENCE[op.name].numpy,
                              *arrays)

        def check(got, want):
            rdt = DTYPE_OF_CODE[op.result_code(CODE_OF[np.dtype(dt)])]
            g = to_np(got)
            assert g.dtype == rdt, f"dtype {g.dtype}, expected {rdt}"
            want = numpy_call(lambda: np.asarray(want).astype(rdt))
            ulp = REFERENCE[op.name].ulp
            # (complex results: NumPy's own complex loops use FMA, so not bit for bit)
            if kind(g.dtype) == "c" or kind(g.dtype) == "f" and (
                    ulp or kind(dt) == "c" or op.name in ("rsqrt", "logistic")):
                close(64 if g.dtype in (np.float16, BF16) else
                      max(ulp, 2) * 4)(got, want.astype(g.dtype) if kind(want.dtype) ==
                                       kind(g.dtype) else want)
            elif op.name in ("max", "min"):
                _zero_sign_free(got, want)
            else:
                exact(got, want)
        return Case(run=quiet(lambda: fn(*tensors)), ref=ref, check=check,
                    inputs={f"x{k}": a for k, a in enumerate(arrays)},
                    traced=(fn, tensors))
    return case


for _op in elementwise_ops().values():
    if _op.lax:
        SPECS["lax." + _op.lax] = _lax_elementwise(_op)
SPECS["lax.xor"] = SPECS["lax.bitwise_xor"]
SPECS["lax.and_"] = SPECS["lax.bitwise_and"]
SPECS["lax.or_"] = SPECS["lax.bitwise_or"]
SPECS["lax.not_"] = SPECS["lax.bitwise_not"]
for _alias, _name in [("abs", "absolute"), ("acos", "arccos"), ("acosh", "arccosh"),
                      ("asin", "arcsin"), ("asinh", "arcsinh"), ("atan", "arctan"),
                      ("atanh", "arctanh"), ("atan2", "arctan2"), ("pow", "power"),
                      ("bitwise_invert", "invert"), ("bitwise_not", "invert"),
                      ("bitwise_left_shift", "left_shift"),
                      ("bitwise_right_shift", "right_shift"), ("conj", "conjugate"),
                      ("true_divide", "divide"), ("mod", "remainder")]:
    if "xa." + _alias not in SPECS:
        SPECS["xa." + _alias] = SPECS["xa." + _name]


# ===================================================================== reductions
def _axis(draw, ndim, allow_none=True, allow_tuple=True):
    """None, an int (sometimes out of range: a bad argument) or a tuple of distinct ints."""
    choices = ["int"] + (["none"] if allow_none else []) + (["tuple"] if allow_tuple
                                                             and ndim else [])
    k = draw(st.sampled_from(choices))
    if k == "none":
        return None
    if k == "int":
        return draw(st.integers(-ndim - 1, ndim)) if ndim else draw(st.sampled_from([0, -1]))
    axes = draw(st.lists(st.integers(0, ndim - 1), min_size=0, max_size=ndim, unique=True))
    return tuple(a - ndim if draw(st.booleans()) else a for a in axes)


def _reduction(name, dtypes, check, has_keepdims=True, ddof=False, np_name=None):
    def case(draw):
        dt = draw(st.sampled_from(dtypes))
        shp = draw(shapes())
        x, t = draw(operand(shp, dt))
        axis = _axis(draw, len(shp))
        kw = {}
        if has_keepdims and draw(st.booleans()):
            kw["keepdims"] = True
        if ddof and draw(st.booleans()):
            kw["ddof"] = draw(st.integers(0, 2))
        np_fn = getattr(np, np_name or name)
        return Case(run=quiet(lambda: getattr(xa, name)(t, axis=axis, **kw)),
                    ref=lambda: numpy_call(np_fn, x, axis=axis, **kw), check=check,
                    inputs={"x": x, "axis": axis, **kw})
    return case


NONBF16 = [d for d in ALL_DTYPES if d != BF16]
SPECS["xa.sum"] = _reduction("sum", NONBF16, close(8))
SPECS["xa.prod"] = _reduction("prod", NONBF16, close(8))
SPECS["xa.mean"] = _reduction("mean", [d for d in NONBF16 if d != xa.bool_], close(8))
SPECS["xa.std"] = _reduction("std", [d for d in NONBF16 if kind(d) in "fiu"], close(1e4),
                             ddof=True)
SPECS["xa.var"] = _reduction("var", [d for d in NONBF16 if kind(d) in "fiu"], close(1e4),
                             ddof=True)
for _n in ("max", "min", "amax", "amin"):
    SPECS["xa." + _n] = _reduction(_n, [d for d in REALS if d != BF16],
                                   lambda g, w: _zero_sign_free(g, w))
for _n in ("all", "any"):
    SPECS["xa." + _n] = _reduction(_n, NONBF16, exact)
SPECS["xa.count_nonzero"] = _reduction("count_nonzero", NONBF16, exact)


def _arg_reduction(name):
    def case(draw):
        dt = draw(st.sampled_from([d for d in REALS if d != BF16]))
        shp = draw(shapes())
        x, t = draw(operand(shp, dt))
        axis = None if draw(st.booleans()) else draw(st.integers(-len(shp) - 1, len(shp)))
        keep = draw(st.booleans())
        return Case(run=lambda: getattr(xa, name)(t, axis=axis, keepdims=keep),
                    ref=lambda: getattr(np, name)(x, axis=axis, keepdims=keep),
                    inputs={"x": x, "axis": axis})
    return case


SPECS["xa.argmax"] = _arg_reduction("argmax")
SPECS["xa.argmin"] = _arg_reduction("argmin")


def _scan(name, np_name, cumulative=False):
    def case(draw):
        dt = draw(st.sampled_from([d for d in NONBF16 if kind(d) != "b" or name.endswith(
            "sum")]))
        shp = draw(shapes(min_dims=1 if cumulative else 0))
        x, t = draw(operand(shp, dt))
        axis = None if not cumulative and draw(st.booleans()) else \
            draw(st.integers(-len(shp) - 1, max(len(shp), 1)))
        if cumulative and len(shp) > 1 and axis is None:
            axis = 0
        kw = {}
        if cumulative and draw(st.booleans()):
            kw["include_initial"] = True
        np_fn = getattr(np, np_name)
        return Case(run=quiet(lambda: getattr(xa, name)(t, axis=axis, **kw)),
                    ref=lambda: numpy_call(np_fn, x, axis=axis, **kw), check=close(8),
                    inputs={"x": x, "axis": axis})
    return case


SPECS["xa.cumsum"] = _scan("cumsum", "cumsum")
SPECS["xa.cumprod"] = _scan("cumprod", "cumprod")
SPECS["xa.cumulative_sum"] = _scan("cumulative_sum", "cumulative_sum", True)
SPECS["xa.cumulative_prod"] = _scan("cumulative_prod", "cumulative_prod", True)


# lax reductions: axes must be valid and distinct (ValueError in jax otherwise)
def _lax_reduce(name, np_fn, dtypes, check=exact):
    def case(draw):
        dt = draw(st.sampled_from(dtypes))
        shp = draw(shapes())
        x, t = draw(operand(shp, dt))
        axes = tuple(draw(st.lists(st.integers(0, len(shp)), max_size=len(shp) + 1,
                                   unique=True))) if shp else ()

        def ref():
            if any(a >= len(shp) for a in axes):
                raise JaxError(ValueError)
            if np_fn in (np.max, np.min):
                init = (-np.inf if np_fn is np.max else np.inf) if kind(dt) == "f" else (
                    np.iinfo(dt).min if np_fn is np.max else np.iinfo(dt).max)
                return numpy_call(np_fn, x, axis=axes, initial=init).astype(dt)
            if kind(dt) in "fc":
                return numpy_call(np_fn, _float_ref(lambda v: v)(x), axis=axes).astype(dt)
            return numpy_call(np_fn, x, axis=axes, **({"dtype": dt} if kind(dt) != "b"
                                                       else {}))
        return Case(run=quiet(lambda: getattr(lax, name)(t, axes)), ref=ref, check=check,
                    inputs={"x": x, "axes": axes})
    return case


_NB = [d for d in NONBF16 if kind(d) != "b"]
SPECS["lax.reduce_sum"] = _lax_reduce("reduce_sum", np.sum, _NB, close(8))
SPECS["lax.reduce_prod"] = _lax_reduce("reduce_prod", np.prod, _NB, close(8))
def _zero_sign_free(got, want):
    """Equal, where a zero may have either sign (max(0.0, -0.0) depends on the order)."""
    assert_same(got, np.asarray(want), zero_sign=False)


SPECS["lax.reduce_max"] = _lax_reduce("reduce_max", np.max, [d for d in _NB if kind(d) != "c"],
                                      _zero_sign_free)
SPECS["lax.reduce_min"] = _lax_reduce("reduce_min", np.min, [d for d in _NB if kind(d) != "c"],
                                      _zero_sign_free)
SPECS["lax.reduce_and"] = _lax_reduce("reduce_and", np.all, [xa.bool_])
SPECS["lax.reduce_or"] = _lax_reduce("reduce_or", np.any, [xa.bool_])


def _lax_argreduce(name):
    def case(draw):
        dt = draw(st.sampled_from([d for d in REALS if d not in (BF16, xa.bool_)]))
        shp = draw(shapes(min_dims=1))
        x, t = draw(operand(shp, dt))
        axis = draw(st.integers(0, len(shp)))
        idt = draw(st.sampled_from([xa.int32, xa.int64, xa.int8, xa.float32]))

        def ref():
            if axis >= len(shp) or shp[axis] == 0:
                raise JaxError(ValueError)
            if kind(idt) != "i":
                raise JaxError(TypeError, ValueError)
            if shp[axis] > np.iinfo(idt).max:
                raise JaxError(ValueError)
            if kind(dt) == "f":
                return _nan_first(x, axis, name).astype(idt)
            return getattr(np, name)(x, axis=axis).astype(idt)
        return Case(run=lambda: getattr(lax, name)(t, axis, idt), ref=ref,
                    inputs={"x": x, "axis": axis})
    return case


def _nan_first(x, axis, name):
    """lax.argmax/argmin: the first NaN wins, else NumPy's."""
    isn = np.isnan(x)
    has = isn.any(axis=axis)
    first = np.argmax(isn, axis=axis)
    with np.errstate(all="ignore"):
        plain = getattr(np, name)(np.where(isn, 0, x), axis=axis)
    return np.where(has, first, plain)


SPECS["lax.argmax"] = _lax_argreduce("argmax")
SPECS["lax.argmin"] = _lax_argreduce("argmin")


def _lax_cum(name, np_fn):
    def case(draw):
        dt = draw(st.sampled_from([d for d in _NB if kind(d) != "c" or name in ("cumsum",
                                                                                "cumprod")]))
        shp = draw(shapes(min_dims=1))
        x, t = draw(operand(shp, dt))
        axis = draw(st.integers(0, len(shp)))
        reverse = draw(st.booleans())

        def ref():
            if axis >= len(shp):
                raise JaxError(ValueError)
            y = np.flip(x, axis) if reverse else x
            r = numpy_call(np_fn, y, axis=axis).astype(dt)
            return np.flip(r, axis) if reverse else r
        return Case(run=quiet(lambda: getattr(lax, name)(t, axis, reverse=reverse)), ref=ref,
                    check=close(8), inputs={"x": x, "axis": axis})
    return case


SPECS["lax.cumsum"] = _lax_cum("cumsum", np.cumsum)
SPECS["lax.cumprod"] = _lax_cum("cumprod", np.cumprod)
SPECS["lax.cummax"] = _lax_cum("cummax", lambda y, axis: np.maximum.accumulate(y, axis=axis)
                               if not (kind(y.dtype) == "f") else _nan_accumulate(
                                   np.fmax, y, axis))
SPECS["lax.cummin"] = _lax_cum("cummin", lambda y, axis: np.minimum.accumulate(y, axis=axis)
                               if not (kind(y.dtype) == "f") else _nan_accumulate(
                                   np.fmin, y, axis))


def _nan_accumulate(f, y, axis):
    """max/min accumulate where a NaN stays from where it first appears (lax's max)."""
    acc = f.accumulate(y, axis=axis)
    seen = np.logical_or.accumulate(np.isnan(y), axis=axis)
    return np.where(seen, np.nan, acc).astype(y.dtype)


# ===================================================================== structural (xa)
def _one(draw, min_dims=0, max_dims=3, dtypes=ALL_DTYPES):
    dt = draw(st.sampled_from(dtypes))
    return draw(operand(draw(shapes(min_dims, max_dims)), dt))


def _simple(name, args, np_name=None, check=exact, min_dims=0, dtypes=ALL_DTYPES,
            modes=("eager", "jit", "lazy")):
    """xa.<name>(x, *args(draw, x)) against np.<np_name>(x, *same)."""
    def case(draw):
        x, t = _one(draw, min_dims, dtypes=dtypes)
        a, kw = args(draw, x)
        np_fn = getattr(np, np_name or name)
        fn = getattr(xa, name)
        return Case(run=quiet(lambda: fn(t, *a, **kw)),
                    ref=lambda: numpy_call(np_fn, x, *a, **kw), check=check,
                    inputs={"x": x, "args": a, **kw},
                    traced=(lambda v: fn(v, *a, **kw), [t]), modes=modes)
    return case


def _reshape_arg(draw, x):
    n = x.size
    dims = [d for d in range(1, 7) if n % d == 0] if n else [0, 1, 2]
    first = draw(st.sampled_from(dims))
    rest = n // first if first else draw(st.integers(0, 3))
    shape = draw(st.sampled_from([(first, rest), (rest, first), (n,), (-1,), (first, -1),
                                  (n + 1,), (2.5, 2)]))
    return (shape,), {}


def _perm(draw, x):
    p = list(draw(st.permutations(range(x.ndim))))
    if x.ndim and draw(st.integers(0, 7)) == 0:
        p[0] = p[-1] if x.ndim > 1 else 5            # repeated / out of range: bad
    return (tuple(p),), {}


SPECS["xa.reshape"] = _simple("reshape", _reshape_arg)
SPECS["xa.transpose"] = _simple("transpose", _perm)
SPECS["xa.permute_dims"] = _simple("permute_dims", _perm)
SPECS["xa.matrix_transpose"] = _simple("matrix_transpose", lambda d, x: ((), {}),
                                       min_dims=0)
SPECS["xa.flip"] = _simple("flip", lambda d, x: ((), {"axis": _axis(d, x.ndim)}))
SPECS["xa.roll"] = _simple("roll", lambda d, x: ((d.integers(-7, 7) if False else
                                                  d(st.integers(-7, 7)),),
                                                 {"axis": _axis(d, x.ndim)}))
SPECS["xa.squeeze"] = _simple("squeeze", lambda d, x: ((), {"axis": _axis(d, x.ndim)}))
SPECS["xa.expand_dims"] = _simple("expand_dims", lambda d, x: (
    (d(st.integers(-x.ndim - 2, x.ndim + 1)),), {}))
SPECS["xa.moveaxis"] = _simple("moveaxis", lambda d, x: (
    (d(st.integers(-x.ndim, max(x.ndim, 1))), d(st.integers(-x.ndim, max(x.ndim, 1)))), {}),
    min_dims=1)
SPECS["xa.swapaxes"] = _simple("swapaxes", lambda d, x: (
    (d(st.integers(-x.ndim, max(x.ndim, 1))), d(st.integers(-x.ndim, max(x.ndim, 1)))), {}),
    min_dims=1)
SPECS["xa.ravel"] = _simple("ravel", lambda d, x: ((), {}))
SPECS["xa.shape"] = _simple("shape", lambda d, x: ((), {}))
SPECS["xa.ndim"] = _simple("ndim", lambda d, x: ((), {}))
SPECS["xa.size"] = _simple("size", lambda d, x: ((), {"axis": None if d(st.booleans()) else
                                                     d(st.integers(-x.ndim - 1, x.ndim))}))
SPECS["xa.copy"] = _simple("copy", lambda d, x: ((), {}))
SPECS["xa.ascontiguousarray"] = _simple("ascontiguousarray", lambda d, x: ((), {}))
SPECS["xa.asfortranarray"] = _simple("asfortranarray", lambda d, x: ((), {}))
SPECS["xa.tile"] = _simple("tile", lambda d, x: (
    (tuple(d(st.lists(st.integers(0, 3), max_size=4))),), {}))
SPECS["xa.repeat"] = _simple("repeat", lambda d, x: (
    (d(st.integers(0, 3)),), {"axis": None if d(st.booleans()) or not x.ndim
                              else d(st.integers(-x.ndim, x.ndim - 1))}))
SPECS["xa.tril"] = _simple("tril", lambda d, x: ((), {"k": d(st.integers(-3, 3))}),
                           min_dims=2)
SPECS["xa.triu"] = _simple("triu", lambda d, x: ((), {"k": d(st.integers(-3, 3))}),
                           min_dims=2)
SPECS["xa.diff"] = _simple("diff", lambda d, x: ((), {"n": d(st.integers(0, 2)),
                                                      "axis": d(st.integers(-x.ndim,
                                                                            x.ndim - 1))}),
                           min_dims=1, dtypes=NUMERIC, check=close(4))
SPECS["xa.broadcast_to"] = _simple("broadcast_to", lambda d, x: (
    (tuple(d(st.sampled_from([(2,), (3,)]))) + x.shape if d(st.booleans())
     else tuple(d(shapes())),), {}))
# (zeros of either sign: NumPy's own sign differs by dtype, np.clip(-0.0, 0, None) is
# -0.0 in float16 and 0.0 in float32 / float64; np.clip(-0.0, 0, 1) is -0.0 in all)
SPECS["xa.clip"] = _simple("clip", lambda d, x: (
    (), {"min": d(st.sampled_from([None, 0, 1, -1])), "max": d(st.sampled_from([None, 2,
                                                                                 5]))}),
    dtypes=[dt for dt in REALS if dt not in (xa.bool_, BF16, xa.uint8, xa.uint16,
                                            xa.uint32, xa.uint64)], check=_zero_sign_free)
def _round(draw):
    """(integers within +-10**8: NumPy's integer round wraps where the scaled value
    overflows, xarr's saturates; both are outside the type's range)"""
    dt = draw(st.sampled_from([xa.float32, xa.float64, xa.int32, xa.int64]))
    x = draw(operand(draw(shapes()), dt))[0]
    if kind(dt) == "i":
        x = np.clip(x, -10**8, 10**8).astype(dt)
    t = make_tensor(x, draw(st.sampled_from(LAYOUTS)))
    decimals = draw(st.integers(-2, 3))
    return Case(run=quiet(lambda: xa.round(t, decimals=decimals)),
                ref=lambda: numpy_call(np.round, x, decimals=decimals), check=close(2),
                inputs={"x": x, "decimals": decimals})


SPECS["xa.round"] = _round
SPECS["xa.pad"] = _simple("pad", lambda d, x: (
    (d(st.sampled_from([0, 1, 2, (1, 2), ((0, 1),) * x.ndim if x.ndim else 1])),), {}))
_DATA_DEPENDENT = ("eager", "lazy")     # xa.jit refuses data-dependent shapes (TypeError)
SPECS["xa.nonzero"] = _simple("nonzero", lambda d, x: ((), {}), min_dims=1,
                              modes=_DATA_DEPENDENT)
SPECS["xa.argwhere"] = _simple("argwhere", lambda d, x: ((), {}), modes=_DATA_DEPENDENT)
SPECS["xa.flatnonzero"] = _simple("flatnonzero", lambda d, x: ((), {}), modes=_DATA_DEPENDENT)
SPECS["xa.real"] = _simple("real", lambda d, x: ((), {}))
SPECS["xa.imag"] = _simple("imag", lambda d, x: ((), {}))
SPECS["xa.conjugate"] = _simple("conjugate", lambda d, x: ((), {}))


def _astype(draw):
    to = draw(st.sampled_from(ALL_DTYPES))
    x, t = _convertible(draw, to)
    return Case(run=quiet(lambda: xa.astype(t, to)),
                ref=lambda: numpy_call(lambda: x.astype(to)), inputs={"x": x, "to": to})


SPECS["xa.astype"] = _astype


def _several(draw, n_min=1, n_max=3, same_shape=True, min_dims=0):
    dt = draw(st.sampled_from(ALL_DTYPES))
    shp = draw(shapes(min_dims))
    n = draw(st.integers(n_min, n_max))
    out = []
    for _ in range(n):
        s = shp if same_shape or draw(st.integers(0, 4)) else draw(shapes(min_dims))
        # (mixed dtypes without bfloat16: ml_dtypes' promotion with NumPy's integers
        # depends on the order of the operands)
        mixed = dt != BF16 and not draw(st.integers(0, 3))
        out.append(draw(operand(s, draw(st.sampled_from([d for d in ALL_DTYPES if d != BF16]))
                                if mixed else dt)))
    return [a for a, t in out], [t for a, t in out]


def _joiner(name, axis=True):
    def case(draw):
        arrays, tensors = _several(draw, same_shape=draw(st.booleans()),
                                   min_dims=1 if name in ("concatenate", "concat", "hstack",
                                                          "vstack") else 0)
        kw = {"axis": draw(st.integers(-3, 3))} if axis else {}
        np_fn = getattr(np, "concatenate" if name == "concat" else name)
        return Case(run=lambda: getattr(xa, name)(tensors, **kw),
                    ref=lambda: numpy_call(np_fn, arrays, **kw), inputs={"arrays": arrays})
    return case


for _n in ("concatenate", "concat", "stack"):
    SPECS["xa." + _n] = _joiner(_n)
for _n in ("hstack", "vstack"):
    SPECS["xa." + _n] = _joiner(_n, axis=False)


def _splitter(name):
    def case(draw):
        x, t = _one(draw, min_dims=1)
        axis = draw(st.integers(-x.ndim, x.ndim - 1))
        how = draw(st.sampled_from([1, 2, 3, [1], [0, 2], [3, 1]]))
        return Case(run=lambda: getattr(xa, name)(t, how, axis=axis),
                    ref=lambda: getattr(np, name)(x, how, axis=axis), inputs={"x": x})
    return case


SPECS["xa.split"] = _splitter("split")
SPECS["xa.array_split"] = _splitter("array_split")


def _unstack(draw):
    x, t = _one(draw, min_dims=1)
    axis = draw(st.integers(-x.ndim - 1, x.ndim))
    return Case(run=lambda: xa.unstack(t, axis=axis),
                ref=lambda: np.unstack(x, axis=axis) if hasattr(np, "unstack") else
                tuple(np.moveaxis(x, axis, 0)), inputs={"x": x})


SPECS["xa.unstack"] = _unstack


def _take(draw):
    x, t = _one(draw, min_dims=1)
    axis = None if draw(st.booleans()) else draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.size if axis is None else x.shape[axis]
    idx = np.array(draw(st.lists(st.integers(-n - 1, n), max_size=5)), np.int64)
    return Case(run=lambda: xa.take(t, xa.asarray(idx), axis=axis),
                ref=lambda: np.take(x, idx, axis=axis), inputs={"x": x, "idx": idx})


def _take_along_axis(draw):
    x, t = _one(draw, min_dims=1)
    axis = draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.shape[axis]
    ishape = list(x.shape)
    ishape[axis] = draw(st.integers(0, 3))
    rng = np.random.default_rng(draw(st.integers(0, 99)))
    idx = rng.integers(-n, max(n, 1), size=ishape) if n else np.zeros(ishape, np.int64)
    return Case(run=lambda: xa.take_along_axis(t, xa.asarray(idx), axis=axis),
                ref=lambda: np.take_along_axis(x, idx, axis=axis), inputs={"x": x, "i": idx})


SPECS["xa.take"] = _take
SPECS["xa.take_along_axis"] = _take_along_axis


def _where(draw):
    base = draw(shapes())
    s = broadcastable(draw, base, 3)
    c, tc = draw(operand(s[0], xa.bool_))
    dt = draw(st.sampled_from(ALL_DTYPES))
    a, ta = draw(operand(s[1], dt))
    b, tb = draw(operand(s[2], draw(st.sampled_from([dt, xa.float32, xa.int8]))))
    return Case(run=lambda: xa.where(tc, ta, tb), ref=lambda: np.where(c, a, b),
                inputs={"c": c, "a": a, "b": b})


SPECS["xa.where"] = _where


def _broadcast_arrays(draw):
    base = draw(shapes())
    s = broadcastable(draw, base, draw(st.integers(1, 3)))
    ops = [draw(operand(x, draw(st.sampled_from(ALL_DTYPES)))) for x in s]
    return Case(run=lambda: xa.broadcast_arrays(*[t for a, t in ops]),
                ref=lambda: tuple(np.broadcast_arrays(*[a for a, t in ops])))


SPECS["xa.broadcast_arrays"] = _broadcast_arrays


def _meshgrid(draw):
    ops = [draw(operand((draw(st.integers(0, 3)),), xa.float32)) for _ in
           range(draw(st.integers(1, 3)))]
    indexing = draw(st.sampled_from(["xy", "ij"]))
    return Case(run=lambda: xa.meshgrid(*[t for a, t in ops], indexing=indexing),
                ref=lambda: tuple(np.meshgrid(*[a for a, t in ops], indexing=indexing)))


SPECS["xa.meshgrid"] = _meshgrid


def _comparing(name):
    def case(draw):
        dt = draw(st.sampled_from([xa.float32, xa.float64, xa.int32, xa.complex128]))
        base = draw(shapes())
        a, ta = draw(operand(base, dt))
        b, tb = draw(operand(base if draw(st.booleans()) else broadcastable(draw, base, 1)[0],
                             dt))
        kw = {"equal_nan": draw(st.booleans())} if name != "array_equal" else \
            {"equal_nan": draw(st.booleans())}
        return Case(run=quiet(lambda: getattr(xa, name)(ta, tb, **kw)),
                    ref=lambda: numpy_call(getattr(np, name), a, b, **kw),
                    check=lambda g, w: exact(g, np.bool_(w) if np.ndim(w) == 0 else w),
                    inputs={"a": a, "b": b})
    return case


for _n in ("isclose", "allclose", "array_equal"):
    SPECS["xa." + _n] = _comparing(_n)


# ================================================================ creation (xa)
def _creation(name, args):
    def case(draw):
        a, kw = args(draw)
        return Case(run=quiet(lambda: getattr(xa, name)(*a, **kw)),
                    ref=lambda: numpy_call(getattr(np, name), *a, **kw),
                    check=close(4) if name == "linspace" else exact,
                    inputs={"args": a, **kw})
    return case


def _shape_arg(draw):
    return draw(st.sampled_from([draw(shapes()), draw(st.integers(-1, 4)), (2, -1)]))


_DT = st.sampled_from([None] + ALL_DTYPES)
SPECS["xa.zeros"] = _creation("zeros", lambda d: ((_shape_arg(d),), {"dtype": d(_DT)}))
SPECS["xa.ones"] = _creation("ones", lambda d: ((_shape_arg(d),), {"dtype": d(_DT)}))
SPECS["xa.full"] = _creation("full", lambda d: (
    (_shape_arg(d), d(st.sampled_from([0, 1, -3, 2.5, True]))),
    {"dtype": d(st.sampled_from([None, xa.float32, xa.int64, xa.int8, xa.bool_]))}))
SPECS["xa.arange"] = _creation("arange", lambda d: (
    tuple(d(st.lists(st.integers(-5, 9), min_size=1, max_size=2))) +
    ((d(st.sampled_from([1, 2, -1, 3, 0.5])),) if d(st.booleans()) else ()),
    {"dtype": d(st.sampled_from([None, xa.float64, xa.int32]))}))
SPECS["xa.linspace"] = _creation("linspace", lambda d: (
    (d(st.sampled_from([0, -1.5, 2])), d(st.sampled_from([1, 10, -3.25]))),
    {"num": d(st.integers(-1, 7)), "endpoint": d(st.booleans())}))
SPECS["xa.eye"] = _creation("eye", lambda d: (
    (d(st.integers(0, 4)),), {"k": d(st.integers(-2, 2)),
                              "dtype": d(st.sampled_from([None, xa.int8, xa.float32]))}))


def _like(name):
    def case(draw):
        x, t = _one(draw)
        kw = {"dtype": draw(_DT)}
        # (a negative fill of an unsigned 0-d array wraps in NumPy, raises otherwise)
        target = kw["dtype"] if kw["dtype"] is not None else x.dtype
        extra = (draw(st.sampled_from([0, 7] if kind(target) == "u" else [0, 7, -1.5])),) \
            if name == "full_like" else ()
        if name == "empty_like":
            return Case(run=lambda: xa.empty_like(t, **kw).shape,
                        ref=lambda: np.empty_like(x, **kw).shape, check=lambda g, w:
                        None if g == w else (_ for _ in ()).throw(AssertionError((g, w))))
        return Case(run=quiet(lambda: getattr(xa, name)(t, *extra, **kw)),
                    ref=lambda: numpy_call(getattr(np, name), x, *extra, **kw))
    return case


for _n in ("zeros_like", "ones_like", "full_like", "empty_like"):
    SPECS["xa." + _n] = _like(_n)


def _empty(draw):
    shp = _shape_arg(draw)
    dt = draw(_DT)
    return Case(run=lambda: (xa.empty(shp, dtype=dt).shape, xa.empty(shp, dtype=dt).dtype),
                ref=lambda: (np.empty(shp, dtype=dt).shape, np.empty(shp, dtype=dt).dtype),
                check=lambda g, w: None if g == w else (_ for _ in ()).throw(
                    AssertionError((g, w))))


SPECS["xa.empty"] = _empty


def _asarray(name):
    def case(draw):
        dt = draw(st.sampled_from(ALL_DTYPES))
        x = draw(operand(draw(shapes()), dt))[0]
        obj = draw(st.sampled_from(["array", "list", "scalar", "ragged"]))
        if obj == "list":
            src = x.tolist() if dt != BF16 else x
        elif obj == "scalar":
            src = draw(st.sampled_from([1, -2.5, True, 1 + 2j, 2**70]))
        elif obj == "ragged":
            src = [[1, 2], [3]]
        else:
            src = x
        to = draw(st.sampled_from([None, dt]))
        fn = getattr(xa, name)
        np_fn = np.array if name in ("array", "tensor") else np.asarray
        def ref():
            out = np_fn(src, dtype=to)
            if out.dtype == object:      # (a ragged list, an int beyond 64 bits)
                raise TypeError("xarr has no object dtype")
            return out
        return Case(run=lambda: fn(src, dtype=to), ref=ref, errors=(TypeError, ValueError,
                                                                     OverflowError),
                    inputs={"src": src, "dtype": to})
    return case


SPECS["xa.asarray"] = _asarray("asarray")
SPECS["xa.array"] = _asarray("array")
SPECS["xa.tensor"] = _asarray("tensor")


def _from_dlpack(draw):
    x = draw(operand(draw(shapes()), draw(st.sampled_from(
        [d for d in ALL_DTYPES if d != BF16]))))[0]
    device = draw(st.sampled_from([None, "cpu", "gpu"]))

    def ref():
        if device == "gpu":
            raise ValueError("not a cpu device")
        return x
    return Case(run=lambda: xa.from_dlpack(x, device=device), ref=ref, inputs={"x": x})


SPECS["xa.from_dlpack"] = _from_dlpack


def _relayout(draw):
    x, t = _one(draw, min_dims=1)
    nd = x.ndim
    lay = draw(st.sampled_from(["{" + ",".join(map(str, range(nd))) + "}",
                                "{" + ",".join(map(str, reversed(range(nd)))) + ":T(2)}",
                                "{" + ",".join(map(str, range(nd))) + ":PD(" +
                                ",".join(str(d + 2) for d in x.shape) + ")}",
                                "{0,0}", "{9}"]))

    def ref():
        if lay in ("{0,0}", "{9}") and not (nd == 1 and lay == "{0,0}" and False):
            raise ValueError(lay)
        return x
    return Case(run=lambda: xa.relayout(t, lay), ref=ref, inputs={"x": x, "layout": lay})


SPECS["xa.relayout"] = _relayout


# ================================================================ dtype utilities (xa)
_ANY_DT = st.sampled_from(ALL_DTYPES)
SPECS["xa.can_cast"] = lambda d: (lambda a, b: Case(
    run=lambda: xa.can_cast(a, b), ref=lambda: np.can_cast(a, b),
    check=lambda g, w: exact(np.bool_(g), np.bool_(w))))(d(_ANY_DT), d(_ANY_DT))
SPECS["xa.result_type"] = lambda d: (lambda ds: Case(
    run=lambda: xa.result_type(*ds), ref=lambda: np.result_type(*ds),
    check=lambda g, w: exact(np.zeros(0, g), np.zeros(0, w))))(
    d(st.lists(_ANY_DT.filter(lambda t: t != BF16), min_size=1, max_size=3)))
SPECS["xa.finfo"] = lambda d: (lambda t: Case(
    run=lambda: float(xa.finfo(t).eps), ref=lambda: float(np.finfo(t).eps) if t != BF16
    else 0.0078125, check=lambda g, w: exact(np.float64(g), np.float64(w))))(d(_ANY_DT))
SPECS["xa.iinfo"] = lambda d: (lambda t: Case(
    run=lambda: int(xa.iinfo(t).max), ref=lambda: int(np.iinfo(t).max),
    check=lambda g, w: exact(np.int64(g % 2**63), np.int64(w % 2**63))))(d(_ANY_DT))
SPECS["xa.isdtype"] = lambda d: (lambda t, k: Case(
    run=lambda: xa.isdtype(t, k), ref=lambda: np.isdtype(t, k) if t != BF16 else
    k in ("real floating", "numeric"), check=lambda g, w: exact(np.bool_(g), np.bool_(w))))(
    d(_ANY_DT), d(st.sampled_from(["bool", "signed integer", "unsigned integer",
                                   "integral", "real floating", "complex floating",
                                   "numeric"])))
SPECS["xa.broadcast_shapes"] = lambda d: (lambda ss: Case(
    run=lambda: xa.broadcast_shapes(*ss), ref=lambda: np.broadcast_shapes(*ss),
    check=lambda g, w: exact(np.array(g, np.int64), np.array(w, np.int64))))(
    [d(shapes()) for _ in range(d(st.integers(1, 3)))])


def _index_conversion(name):
    """The seed's linear index of an element in a layout's buffer (dense layouts: the
    index's components in major-to-minor order, raveled); bad indices raise IndexError,
    a wrong rank ValueError."""
    def case(draw):
        dims = draw(shapes(min_dims=1))
        m2m = list(draw(st.permutations(range(len(dims)))))
        shape = xa.Shape.parse(f"f32[{','.join(map(str, dims))}]{{{','.join(map(str, m2m))}}}")
        major = list(reversed(m2m))
        n = int(np.prod(dims))
        if name == "linear_index":
            idx = tuple(draw(st.integers(-1, max(d, 1))) for d in dims)
            if draw(st.integers(0, 9)) == 0:
                idx = idx + (0,)

            def ref():
                if len(idx) != len(dims):
                    raise ValueError("rank")
                if any(not 0 <= i < d for i, d in zip(idx, dims)):
                    raise IndexError("out of range")
                return np.int64(np.ravel_multi_index([idx[d] for d in major],
                                                     [dims[d] for d in major]))
            return Case(run=lambda: np.int64(xa.linear_index(shape, idx)), ref=ref,
                        inputs={"shape": shape, "index": idx})
        lin = draw(st.integers(-1, n))

        def ref():
            if not 0 <= lin < n:
                raise IndexError("out of range")
            pos = np.unravel_index(lin, [dims[d] for d in major])
            out = [0] * len(dims)
            for d, p in zip(major, pos):
                out[d] = int(p)
            return np.array(out, np.int64)
        return Case(run=lambda: np.array(xa.multi_index(shape, lin), np.int64), ref=ref,
                    inputs={"shape": shape, "linear": lin})
    return case


SPECS["xa.linear_index"] = _index_conversion("linear_index")
SPECS["xa.multi_index"] = _index_conversion("multi_index")


# ================================================================ lax structural
def _lax_case(draw, build, min_dims=0, dtypes=ALL_DTYPES):
    """build(draw, x) -> (call(t), reference(x) raising JaxError for bad arguments)."""
    x, t = _one(draw, min_dims, dtypes=dtypes)
    call, ref = build(draw, x)
    return Case(run=quiet(lambda: call(t)), ref=lambda: ref(x), inputs={"x": x},
                traced=(call, [t]))


def lax_spec(name, min_dims=0, dtypes=ALL_DTYPES):
    def deco(build):
        SPECS["lax." + name] = lambda draw: _lax_case(draw, build, min_dims, dtypes)
        return build
    return deco


@lax_spec("reshape")
def _(draw, x):
    (shape,), _kw = _reshape_arg(draw, x)
    shape = tuple(int(abs(s)) for s in shape)

    def ref(x):
        if int(np.prod(shape)) != x.size:
            raise JaxError()
        return x.reshape(shape)
    return (lambda t: lax.reshape(t, shape)), ref


@lax_spec("transpose")
def _(draw, x):
    (perm,), _kw = _perm(draw, x)

    def ref(x):
        if sorted(perm) != list(range(x.ndim)):
            raise JaxError()
        return np.transpose(x, perm)
    return (lambda t: lax.transpose(t, perm)), ref


@lax_spec("rev")
def _(draw, x):
    dims = tuple(draw(st.lists(st.integers(0, x.ndim), max_size=x.ndim, unique=True)))

    def ref(x):
        if any(d >= x.ndim for d in dims):
            raise JaxError()
        return np.flip(x, dims) if dims else x
    return (lambda t: lax.rev(t, dims)), ref


@lax_spec("slice", min_dims=1)
def _(draw, x):
    start = [draw(st.integers(0, d + 1)) for d in x.shape]
    limit = [draw(st.integers(max(s - 1, 0), d + 1)) for s, d in zip(start, x.shape)]
    strides = [draw(st.integers(1, 3)) for _ in x.shape] if draw(st.booleans()) else None

    def ref(x):
        if any(not 0 <= s <= lim <= d for s, lim, d in zip(start, limit, x.shape)):
            raise JaxError()
        return x[tuple(slice(s, lim, (strides or [1] * x.ndim)[k])
                       for k, (s, lim) in enumerate(zip(start, limit)))]
    return (lambda t: lax.slice(t, start, limit, strides)), ref


@lax_spec("dynamic_slice", min_dims=1)
def _(draw, x):
    start = [draw(st.integers(-3, d + 3)) for d in x.shape]
    sizes = [draw(st.integers(0, d + 1)) for d in x.shape]

    def ref(x):
        if any(z > d for z, d in zip(sizes, x.shape)):
            raise JaxError()
        s = [min(max(b, 0), d - z) for b, z, d in zip(start, sizes, x.shape)]
        return x[tuple(slice(b, b + z) for b, z in zip(s, sizes))]
    return (lambda t: lax.dynamic_slice(t, start, sizes)), ref


@lax_spec("dynamic_update_slice", min_dims=1)
def _(draw, x):
    start = [draw(st.integers(-3, d + 3)) for d in x.shape]
    ushape = tuple(draw(st.integers(0, d + 1)) for d in x.shape)
    u = draw(operand(ushape, x.dtype))[0]

    def ref(x):
        if any(z > d for z, d in zip(ushape, x.shape)):
            raise JaxError()
        out = x.copy()
        s = [min(max(b, 0), d - z) for b, z, d in zip(start, ushape, x.shape)]
        out[tuple(slice(b, b + z) for b, z in zip(s, ushape))] = u
        return out
    return (lambda t: lax.dynamic_update_slice(t, xa.asarray(u), start)), ref


@lax_spec("pad")
def _(draw, x):
    cfg = [(draw(st.integers(-2, 2)), draw(st.integers(-2, 2)), draw(st.integers(0, 2)))
           for _ in x.shape]
    value = np.zeros((), x.dtype)

    def ref(x):
        out = x
        for k, (lo, hi, interior) in enumerate(cfg):
            n = out.shape[k]
            size = lo + hi + n + max(n - 1, 0) * interior
            if size < 0:
                raise JaxError()
            shp = list(out.shape)
            shp[k] = n + max(n - 1, 0) * interior
            grown = np.zeros(shp, x.dtype)
            idx = [slice(None)] * out.ndim
            idx[k] = slice(0, None, interior + 1)
            grown[tuple(idx)] = out
            pads = [(0, 0)] * out.ndim
            pads[k] = (max(lo, 0), max(hi, 0))
            grown = np.pad(grown, pads)
            cut = [slice(None)] * out.ndim
            cut[k] = slice(-min(lo, 0), grown.shape[k] + min(hi, 0))
            out = grown[tuple(cut)]
        return out
    return (lambda t: lax.pad(t, xa.asarray(value), cfg)), ref


@lax_spec("squeeze")
def _(draw, x):
    dims = tuple(draw(st.lists(st.integers(0, x.ndim), max_size=x.ndim, unique=True)))

    def ref(x):
        if any(d >= x.ndim or x.shape[d] != 1 for d in dims):
            raise JaxError()
        return np.squeeze(x, dims) if dims else x
    return (lambda t: lax.squeeze(t, dims)), ref


@lax_spec("expand_dims")
def _(draw, x):
    dims = tuple(draw(st.lists(st.integers(0, x.ndim + 1), max_size=2, unique=True)))

    def ref(x):
        if any(d > x.ndim + len(dims) - 1 for d in dims):
            raise JaxError()
        return np.expand_dims(x, dims) if dims else x
    return (lambda t: lax.expand_dims(t, dims)), ref


@lax_spec("collapse", min_dims=1)
def _(draw, x):
    a = draw(st.integers(0, x.ndim))
    b = draw(st.integers(a, x.ndim + 1))

    def ref(x):
        if b > x.ndim:
            raise JaxError()
        return x.reshape(x.shape[:a] + (int(np.prod(x.shape[a:b])),) + x.shape[b:])
    return (lambda t: lax.collapse(t, a, b)), ref


@lax_spec("broadcast")
def _(draw, x):
    sizes = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    return (lambda t: lax.broadcast(t, sizes)), lambda x: np.broadcast_to(x, sizes + x.shape)


@lax_spec("broadcast_in_dim")
def _(draw, x):
    # operand dims land on result dims in any order (seed 004): a random injective map,
    # the mapped result dims sized as the operand's (now and then 2 larger: an error)
    extra = draw(st.integers(0, 2))
    dims = tuple(draw(st.permutations(range(x.ndim + extra)))[:x.ndim])
    shape = [draw(st.sampled_from([1, 2, 3])) for _ in range(x.ndim + extra)]
    for i, d in enumerate(dims):
        shape[d] = x.shape[i] if draw(st.integers(0, 5)) else x.shape[i] + 2

    def ref(x):
        for i, d in enumerate(dims):
            if x.shape[i] not in (1, shape[d]):
                raise JaxError()
        order = np.argsort(dims)
        expanded = [1] * len(shape)
        for i in order:
            expanded[dims[i]] = x.shape[i]
        return np.broadcast_to(np.transpose(x, order).reshape(expanded), shape)
    return (lambda t: lax.broadcast_in_dim(t, tuple(shape), dims)), ref


def _convertible(draw, to):
    """An operand whose values convert to ``to`` the same everywhere: float -> integer
    conversions of NaN, inf or out-of-range values are implementation-defined (NumPy's
    differ between platforms), so those operands hold in-range integral values."""
    dt = draw(st.sampled_from(ALL_DTYPES))
    x = draw(operand(draw(shapes()), dt))[0]
    if kind(dt) in "fc" and kind(to) in "iu":
        info = np.iinfo(to)
        r = np.real(x).astype(np.float64)
        with np.errstate(all="ignore"):
            r = np.where(np.isfinite(r), np.clip(np.trunc(r), max(info.min, -2**50),
                                                 min(info.max, 2**50)), 0)
            x = r.astype(dt)
            back = np.real(x).astype(np.float64)     # (rounding may leave the range again)
            x = np.where((back >= info.min) & (back <= info.max), x, 0).astype(dt)
    return x, make_tensor(x, draw(st.sampled_from(LAYOUTS)))


def _convert_element_type(draw):
    to = draw(st.sampled_from(ALL_DTYPES))
    x, t = _convertible(draw, to)

    def ref():
        if kind(x.dtype) == "c" and kind(to) != "c":
            return numpy_call(lambda: x.real.astype(to))
        return numpy_call(lambda: x.astype(to))
    return Case(run=quiet(lambda: lax.convert_element_type(t, to)), ref=ref,
                inputs={"x": x, "to": to})


SPECS["lax.convert_element_type"] = _convert_element_type


@lax_spec("bitcast_convert_type")
def _(draw, x):
    to = draw(st.sampled_from([d for d in ALL_DTYPES if d != xa.bool_]))

    def ref(x):
        """The seed's rule (xarr also bitcasts *from* pred, whose bytes are 0/1)."""
        a, b = x.dtype.itemsize, np.dtype(to).itemsize
        if a == b:
            return x.view(to)
        if a > b:
            return x.reshape(x.shape + (1,)).view(to)
        if not x.ndim or x.shape[-1] != b // a:
            raise JaxError()
        return np.ascontiguousarray(x).view(to).reshape(x.shape[:-1])
    return (lambda t: lax.bitcast_convert_type(t, to)), ref


@lax_spec("reduce_precision", dtypes=[xa.float32, xa.float64])
def _(draw, x):
    e, m = draw(st.sampled_from([(5, 10), (8, 7), (8, 23), (11, 52)]))
    target = {(5, 10): np.float16, (8, 7): BF16, (8, 23): np.float32, (11, 52): np.float64}

    def ref(x):
        if np.dtype(target[(e, m)]).itemsize > x.dtype.itemsize:
            return x
        return numpy_call(lambda: x.astype(target[(e, m)]).astype(x.dtype))
    return (lambda t: lax.reduce_precision(t, e, m)), ref


@lax_spec("get_dimension_size", min_dims=1)
def _(draw, x):
    d = draw(st.integers(0, x.ndim))

    def ref(x):
        if d >= x.ndim:
            raise JaxError()
        return np.int32(x.shape[d])
    return (lambda t: lax.get_dimension_size(t, d)), ref


@lax_spec("round", dtypes=FLOATS)
def _(draw, x):
    method = draw(st.sampled_from([0, 1]))

    def ref(x):
        x64 = x.astype(np.float64)
        if method == 1:
            return np.rint(x64).astype(x.dtype)
        return np.copysign(np.floor(np.abs(x64) + 0.5), x64).astype(x.dtype)
    return (lambda t: lax.round(t, method)), ref


SPECS["lax.lax_round"] = SPECS["lax.round"]


def _lax_concatenate(draw):
    arrays, tensors = _several(draw, same_shape=draw(st.booleans()), min_dims=1)
    dim = draw(st.integers(0, 3))

    def ref():
        if len({a.dtype for a in arrays}) > 1 or dim >= arrays[0].ndim or \
                len({a.ndim for a in arrays}) > 1:
            raise JaxError()
        return numpy_call(np.concatenate, arrays, axis=dim)
    return Case(run=lambda: lax.concatenate(tensors, dim), ref=ref)


SPECS["lax.concatenate"] = _lax_concatenate


def _iota(draw):
    dt = draw(st.sampled_from([d for d in NUMERIC if kind(d) != "c"]))
    n = draw(st.integers(-1, 9))

    def ref():
        if n < 0:
            raise JaxError()
        return np.arange(n).astype(dt)
    return Case(run=lambda: lax.iota(dt, n), ref=ref)


def _broadcasted_iota(draw):
    dt = draw(st.sampled_from([xa.int32, xa.float32, xa.uint8]))
    shp = draw(shapes(min_dims=1))
    dim = draw(st.integers(-1, len(shp)))

    def ref():
        if not -len(shp) <= dim < len(shp):       # (xarr also counts -1 from the end)
            raise JaxError()
        line = np.arange(shp[dim]).astype(dt)
        return np.broadcast_to(line.reshape([-1 if k == dim % len(shp) else 1 for k in
                                             range(len(shp))]), shp).copy()
    return Case(run=lambda: lax.broadcasted_iota(dt, shp, dim), ref=ref)


SPECS["lax.iota"] = _iota
SPECS["lax.broadcasted_iota"] = _broadcasted_iota


# ---- control flow: random predicates and trip counts, bodies of elementwise ops
def _cond(draw):
    x, t = _one(draw, dtypes=[xa.float32, xa.int32])
    p = draw(st.booleans())
    return Case(run=lambda: lax.cond(p, lambda v: v * 2, lambda v: v - 1, t),
                ref=lambda: x * 2 if p else x - 1)


def _switch(draw):
    x, t = _one(draw, dtypes=[xa.float64, xa.int64])
    i = draw(st.integers(-2, 4))
    branches = [lambda v: v + 1, lambda v: v * 3, lambda v: -v]
    return Case(run=lambda: lax.switch(i, branches, t),
                ref=lambda: [x + 1, x * 3, -x][min(max(i, 0), 2)])


def _while(draw):
    x, t = _one(draw, dtypes=[xa.int32, xa.float64])
    n = draw(st.integers(0, 5))

    def ref():
        v = x
        for _ in range(n):
            v = v + 1
        return v
    return Case(run=lambda: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] + 1),
                                           (0, t))[1], ref=ref)


def _fori(draw):
    x, t = _one(draw, dtypes=[xa.int64, xa.float32])
    lo, hi = draw(st.integers(-2, 4)), draw(st.integers(-2, 6))
    return Case(run=lambda: lax.fori_loop(lo, hi, lambda i, v: v + 2, t),
                ref=lambda: x + 2 * max(hi - lo, 0) if x.dtype != np.float32 else
                (x + np.float32(2 * max(hi - lo, 0))).astype(np.float32), check=close(4))


def _map(draw):
    x, t = _one(draw, min_dims=1, dtypes=[xa.float64, xa.int32])
    return Case(run=lambda: lax.map(lambda a, b: a * b + a, t, t), ref=lambda: x * x + x)


def _call(draw):
    x, t = _one(draw, dtypes=[xa.float32, xa.int16])
    return Case(run=lambda: lax.call(lambda v: v + v, t), ref=lambda: x + x)


def _barrier(draw):
    x, t = _one(draw)
    return Case(run=lambda: lax.optimization_barrier(t), ref=lambda: x)


def _tuples(draw):
    x, t = _one(draw)
    k = draw(st.integers(-1, 2))

    def ref():
        if not 0 <= k < 2:
            raise JaxError(IndexError, TypeError, ValueError)
        return x
    return Case(run=lambda: lax.get_tuple_element(lax.tuple_(t, t), k), ref=ref)


SPECS.update({"lax.cond": _cond, "lax.switch": _switch, "lax.while_loop": _while,
              "lax.fori_loop": _fori, "lax.map": _map, "lax.call": _call,
              "lax.optimization_barrier": _barrier, "lax.get_tuple_element": _tuples,
              "lax.tuple_": _tuples})


def _reduce_generic(draw):
    x, t = _one(draw, dtypes=[xa.float64, xa.int32])
    axes = tuple(sorted(draw(st.lists(st.integers(0, max(x.ndim - 1, 0)), max_size=x.ndim,
                                      unique=True)))) if x.ndim else ()
    return Case(run=lambda: lax.reduce(t, xa.asarray(np.zeros((), x.dtype)),
                                       lambda a, b: a + b, axes),
                ref=lambda: np.sum(x, axis=axes).astype(x.dtype), check=close(8))


SPECS["lax.reduce"] = _reduce_generic


def _lax_apply(draw):
    x, t = _one(draw, dtypes=[xa.float32, xa.int32])
    return Case(run=lambda: lax.lax_apply("add", t, t), ref=lambda: x + x)


SPECS["lax.lax_apply"] = _lax_apply


# ========================================================== not fuzzed, and why
NOT_FUZZED = {
    "xa.jit": "an execution strategy: test_graph_jit / test_graph_random run ops under it "
              "against eager, bit for bit",
    "xa.eval": "an execution strategy (lazy): test_graph_lazy, test_graph_random",
    "xa.set_num_threads": "a runtime control: test_hardening (bounds), "
                          "test_kernels_isa_threads (1 vs 2 threads)",
    "xa.get_num_threads": "a runtime control",
    "xa.clear_caches": "a runtime control: test_hardening",
    "lax.custom_call": "calls user C functions: test_graph_control",
    "lax.register_custom_call_target": "registers user C functions: test_graph_control",
    "lax.set_dimension_size": "dynamic shapes: test_graph_control",
    "lax.elementwise_ops": "lists the registry (not an op)",
}


# The contraction family's specs live in their own module, which registers them here.
import fuzz_contraction  # noqa: E402,F401
import fuzz_everyday  # noqa: E402,F401  (issue 14's everyday functions)
import fuzz_convolution  # noqa: E402,F401  (issue 15: convolutions)
import fuzz_sorting  # noqa: E402,F401  (issue 16: sorting)
import fuzz_fft  # noqa: E402,F401  (issue 18: lax.fft)
import fuzz_linalg  # noqa: E402,F401  (issue 18: xa.cross)

NOT_FUZZED.update({
    f"lax.{n}": "a collective needs several replica processes: every op, dtype and replica "
                "group against NumPy from all replicas' inputs, with real processes, in "
                "tests/test_collectives.py"
    for n in ("psum", "pmax", "pmin", "pmean", "all_gather", "all_to_all", "psum_scatter",
              "ppermute", "axis_index", "replica_id", "all_reduce", "reduce_scatter",
              "collective_permute", "cross_replica_sum", "send", "recv", "after_all")})
NOT_FUZZED.update({f"xa.{n}": "file I/O: tests/test_io.py" for n in (
    "save", "load", "savez", "savez_compressed", "fromfile", "loadtxt", "savetxt")})
NOT_FUZZED.update({f"lax.{n}": "random draws: tests/test_random.py (known-answer vectors, "
                   "distribution tests, bad arguments)" for n in (
    "rng_bit_generator", "rng_uniform", "rng_normal")})
