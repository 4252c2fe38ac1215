"""Execution strategies against each other: every ISA table in
``xa._core.supported_isas()`` against the scalar reference table ('ref'), and 1 against 2
threads on arrays above ``parallel_min_elements``.

Every elementwise kernel of xarr's op table (``xarr._ops.elementwise.OPS``, which also
holds kernels only the NumPy frontend reaches: floor_div, mod, hypot, nextafter ...) runs
on the same inputs under each ISA, through each loop variant the kernels specialise
(contiguous, a broadcast scalar operand on either side, strided). Results must be equal
to the reference bit for bit (NaN payloads aside: any NaN equals any NaN), except the
transcendental functions, which may differ by ISA_ULP. Thread counts never change a bit.
"""

import operator
import zlib

import numpy as np
import pytest

import xarr as xa
from conftest import (ALL_DTYPES, BF16, INTS, assert_same, kind, make_tensor,
                      random_array, special_values, to_np, ulp_diff)
from op_reference import REFERENCE
from xarr._ops import elementwise as ew

CORE = xa._core
ISAS = CORE.supported_isas()
VECTOR_ISAS = [i for i in ISAS if i != "ref"]
CODE = {dt: ew.CODE_OF[dt] for dt in ALL_DTYPES}

# Functions whose vector implementations may differ from libm in the last bits.
TRANSCENDENTAL = {name for name, ref in REFERENCE.items() if not ref.isa_exact}
# Max ULP between an ISA's result and the reference's: each is within ~2 ULP of the true
# value for f32/f64; f16/bf16 compute in float32 and round, so at most 1.
ISA_ULP = {"wide": 4, "narrow": 1}
# Complex transcendental results: normwise relative difference.
ISA_CRTOL = {np.dtype(np.complex64): 2e-6, np.dtype(np.complex128): 4e-15}

KNOWN_KERNELS = {"add", "sub", "mul", "div", "rem", "floor_div", "mod", "max", "min", "pow",
                 "and", "or", "xor", "not", "neg", "abs", "sign", "exp", "log", "sin",
                 "sqrt", "rsqrt", "round", "round_nearest_even", "eq", "lt_total",
                 "shift_left", "shift_right_arithmetic", "select", "clamp", "clip",
                 "nextafter",
                 "population_count", "clz", "is_finite", "logistic", "copy"}


def test_isa_api():
    assert ISAS[0] == "ref"
    assert CORE.best_isa() in ISAS
    before = CORE.get_isa()
    try:
        for isa in ISAS:
            CORE.set_isa(isa)
            assert CORE.get_isa() == isa
        with pytest.raises(ValueError, match="bogus"):
            CORE.set_isa("bogus")
        assert CORE.get_isa() == ISAS[-1]
    finally:
        CORE.set_isa(before)
    assert set(CORE.cpu_features()) >= {"avx2_fma", "avx512"}
    if CORE.cpu_features()["avx512"]:
        assert "avx512" in ISAS


def test_every_isa_table_covers_the_reference():
    """A vector table never lacks a loop the reference has (it falls back to it)."""
    assert KNOWN_KERNELS <= set(ew.OPS)
    for opdef in ew.OPS.values():
        for dt in ALL_DTYPES:
            ref = CORE.ew_supported(opdef.code, CODE[dt], "ref")
            for isa in VECTOR_ISAS:
                assert CORE.ew_supported(opdef.code, CODE[dt], isa) == ref, \
                    (opdef.name, str(dt), isa)


def test_thread_api(restore_threads):
    xa.set_num_threads(2)
    assert xa.get_num_threads() == 2 and CORE.get_num_threads() == 2
    xa.set_num_threads(1)
    assert CORE.get_num_threads() == 1
    with pytest.raises(ValueError, match="0"):
        CORE.set_num_threads(0)
    with pytest.raises(ValueError):
        xa.set_num_threads(-3)
    assert CORE.parallel_min_elements > 0


# ------------------------------------------------------------------------------ helpers
def same_bits(a, b, what):
    """Equal values, NaN where NaN (any payload), equal signs of zero; dtypes equal."""
    a, b = np.ascontiguousarray(to_np(a)), np.ascontiguousarray(to_np(b))
    assert a.dtype == b.dtype and a.shape == b.shape, what
    if kind(a.dtype) in "fc":
        assert_same(a, b)
    else:
        if not np.array_equal(a.reshape(-1).view(np.uint8), b.reshape(-1).view(np.uint8)):
            bad = a != b
            raise AssertionError(f"{what}: {int(bad.sum())} differ, first got "
                                 f"{a[bad][:4]} expected {b[bad][:4]}")


def close_bits(a, b, max_ulp, what):
    a, b = to_np(a), to_np(b)
    assert a.dtype == b.dtype and a.shape == b.shape, what
    if kind(a.dtype) == "c":
        ok = ISA_CRTOL[a.dtype]
        x, y = a.astype(np.complex128), b.astype(np.complex128)
        fin = np.isfinite(y)
        with np.errstate(all="ignore"):
            err = np.abs(x - y)
            bad = np.where(fin, ~(err <= ok * np.abs(y)),
                           ~((np.isnan(x) & np.isnan(y)) | (x == y)))
        assert not bad.any(), f"{what}: got {a[bad][:4]} ref {b[bad][:4]}"
        return
    d = ulp_diff(a, b)
    if (d > max_ulp).any():
        i = np.argmax(d)
        raise AssertionError(f"{what}: {int((d > max_ulp).sum())} results > {max_ulp} ULP "
                             f"from ref; worst {d.ravel()[i]} ULP: got {a.ravel()[i]!r}, "
                             f"ref {b.ravel()[i]!r}")


def close_abs(a, b, tol, what):
    """Within ``tol`` absolutely or 4 ULP relatively; NaN matches NaN, inf matches inf."""
    a, b = to_np(a).astype(np.float64), to_np(b).astype(np.float64)
    with np.errstate(all="ignore"):
        ok = (np.abs(a - b) <= np.maximum(tol, 8 * np.spacing(np.abs(b)))) | (a == b) | \
            (np.isnan(a) & np.isnan(b))
    assert ok.all(), f"{what}: got {a[~ok][:4]} ref {b[~ok][:4]}"


def op_inputs(name, dt, rng, n=1037):
    """Operands for op ``name`` (arity from the table) of dtype ``dt``: special-value
    combinations plus random values, n elements each (vector bodies and tails)."""
    opdef = ew.OPS[name]
    sv = special_values(dt)
    if opdef.arity == 1:
        x = np.concatenate([sv, random_array(rng, (n - len(sv),), dt)])
        if name in TRANSCENDENTAL and kind(dt) == "f":
            x[-200:] = random_array(rng, (200,), dt, specials=0, low=-100, high=100)
        return [x]
    m = min(len(sv), int(np.sqrt(n)))
    sv = sv[:m]
    k = n - m * m
    a = np.concatenate([np.repeat(sv, m), random_array(rng, (k,), dt)])
    b = np.concatenate([np.tile(sv, m), random_array(rng, (k,), dt)])
    if name == "select":
        return [rng.random(n) < 0.5, a, b]
    if opdef.arity == 3:
        with np.errstate(all="ignore"):
            lo = np.minimum(a, b) if kind(dt) != "b" else a & b
            hi = np.maximum(a, b) if kind(dt) != "b" else a | b
        return [lo, random_array(rng, (n,), dt), hi]
    return [a, b]


def variants(args):
    """(label, tensors) for each loop variant: all contiguous; a broadcast 0-d operand
    first / last (stride 0); strided (step-2 views) with a negative-step operand."""
    out = [("contiguous", [xa.asarray(a) for a in args])]
    for pos in sorted({0, len(args) - 1}):
        ts = [xa.asarray(a) for a in args]
        ts[pos] = xa.asarray(args[pos][7])
        out.append((f"scalar@{pos}", ts))
    ts = [make_tensor(a, "step") for a in args]
    ts[-1] = make_tensor(args[-1], "negstep")
    out.append(("strided", ts))
    if len(args) == 3:      # clamp(lo, x, hi) with scalar bounds
        out.append(("scalar@0,2", [xa.asarray(args[0][7]), xa.asarray(args[1]),
                                   xa.asarray(args[2][7])]))
    if len(args) > 1:       # a strided operand beside a broadcast one (stride 0)
        ts = [make_tensor(a, "step") for a in args]
        ts[-1] = xa.asarray(args[-1][7])
        out.append(("strided+scalar", ts))
    return out


def _into_strided(name, ts):
    """op(*ts) written into a step-2 view (a strided output: the loops compute a block,
    then scatter it)."""
    opdef = ew.OPS[name]
    code = CODE[ts[-1].dtype]
    rcode = opdef.result_code(code)
    shape = ts[0].shape
    out = xa.zeros((2 * shape[0] + 1,), ew.DTYPES[rcode])[1::2]
    return ew.execute(opdef, code, ts, shape, out, name)


def run_all(name, args):
    with np.errstate(all="ignore"):
        res = [(label, ew.lax_apply(name, *ts)) for label, ts in variants(args)]
        steps = [make_tensor(a, "step") for a in args]
        res.append(("strided out", _into_strided(name, steps)))
        return res


def _kernel_cases():
    for name in sorted(ew.OPS):
        opdef = ew.OPS[name]
        for dt in ALL_DTYPES:
            if opdef.accepts(CODE[dt]):
                yield pytest.param(name, dt, id=f"{name}-{dt}")


KERNEL_CASES = list(_kernel_cases())


# ------------------------------------------------------------------------------ ISA vs ref
@pytest.mark.parametrize("isa", VECTOR_ISAS)
@pytest.mark.parametrize("name, dt", KERNEL_CASES)
def test_isa_matches_reference(isa, name, dt, restore_isa):
    rng = np.random.default_rng(zlib.crc32(f"{name}-{dt}".encode()))
    args = op_inputs(name, dt, rng)
    CORE.set_isa("ref")
    ref = run_all(name, args)
    CORE.set_isa(isa)
    got = run_all(name, args)
    narrow = np.dtype(dt) in (xa.float16, BF16)
    for (label, g), (_, r) in zip(got, ref):
        what = f"{name} {dt} {label} on {isa}"
        if REFERENCE[name].input_ulp:
            # logaddexp: m + log1p(exp(-|a-b|)) cancels when the result is near 0 (then
            # |m| <= log 2): last-bit differences of log1p/exp become absolute errors of
            # ~eps.
            close_abs(g, r, 4 * np.finfo(np.dtype(dt)).eps if not narrow else 1e-2, what)
        elif name in TRANSCENDENTAL and kind(dt) in "fc":
            close_bits(g, r, ISA_ULP["narrow" if narrow else "wide"], what)
        else:
            same_bits(g, r, what)


@pytest.mark.parametrize("isa", VECTOR_ISAS)
@pytest.mark.parametrize("dst", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("src", ALL_DTYPES, ids=str)
def test_isa_conversions_match_reference(src, dst, isa, restore_isa):
    rng = np.random.default_rng(3)
    x = np.concatenate([special_values(src), random_array(rng, (1000,), src)])
    if kind(src) == "f":
        with np.errstate(all="ignore"):
            x[-100:] = (rng.uniform(-1, 1, 100) * float(2 ** 65)).astype(src)
    results = {}
    for which in ("ref", isa):
        CORE.set_isa(which)
        into = xa.zeros((2 * len(x),), dst)[::-2]      # a strided output
        xa._tensor.convert_into(into, make_tensor(x, "step"))
        results[which] = [xa.asarray(x).astype(dst), make_tensor(x, "step").astype(dst),
                          into, make_tensor(x, "negstep").copy()]
    for g, r in zip(results[isa], results["ref"]):
        same_bits(g, r, f"{src}->{dst} on {isa}")


OPERATORS = [operator.add, operator.sub, operator.mul, operator.truediv,
             operator.floordiv, operator.mod, operator.and_, operator.or_, operator.xor,
             operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]


@pytest.mark.parametrize("isa", VECTOR_ISAS)
@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
def test_isa_operator_fast_path(isa, dt, restore_isa):
    """The compiled operator fast path (same-shape contiguous operands, a float
    scalar) under each ISA equals the reference table."""
    rng = np.random.default_rng(4)
    a, b = random_array(rng, (33, 31), dt), random_array(rng, (33, 31), dt)
    results = {}
    for which in ("ref", isa):
        CORE.set_isa(which)
        res = []
        for op in OPERATORS:
            for rhs in (xa.asarray(b), 0.75):
                try:
                    with np.errstate(all="ignore"):
                        res.append((op.__name__, op(xa.asarray(a), rhs)))
                except TypeError:
                    res.append((op.__name__, None))
        results[which] = res
    for (name, g), (_, r) in zip(results[isa], results["ref"]):
        assert (g is None) == (r is None), name
        if g is not None:
            same_bits(g, r, f"{name} {dt} on {isa}")


# ------------------------------------------------------------------------------ threads
BIG = 300_001


def _thread_cases():
    """(label, function of an rng -> result tensor) for large, threaded work: contiguous,
    row-chunked (few long rows), non-contiguous and broadcast operands, conversions."""
    def arr(rng, shape, dt, **kw):
        return random_array(rng, shape, dt, **kw)

    def binop(name, dt, shape_a, shape_b, la="c", lb="c"):
        def run(rng):
            a, b = arr(rng, shape_a, dt), arr(rng, shape_b, dt)
            return ew.lax_apply(name, make_tensor(a, la), make_tensor(b, lb)), (a, b)
        return run

    def unop(name, dt, shape, layout="c", **kw):
        def run(rng):
            a = arr(rng, shape, dt, **kw)
            return ew.lax_apply(name, make_tensor(a, layout)), (a,)
        return run

    def convert(src, dst, shape, layout="c"):
        def run(rng):
            a = arr(rng, shape, src)
            return make_tensor(a, layout).astype(dst), (a,)
        return run

    def numpy_add(rng):
        a = arr(rng, (600, 501), xa.float32)
        b = arr(rng, (501,), xa.float32)
        return make_tensor(a, "transposed") + xa.asarray(b), (a, b)

    return {
        "add-f32-1d": binop("add", xa.float32, (BIG,), (BIG,)),
        "add-f32-rows3": binop("add", xa.float32, (3, 100_003), (3, 100_003)),
        "add-f32-transposed-bcast": binop("add", xa.float32, (601, 500), (1, 500),
                                          la="transposed"),
        "add-f32-scalar": binop("add", xa.float32, (BIG,), ()),
        # x.T beside a row-major operand: the engine's tiled walk (nary.cpp run_tiles)
        "add-f32-mixed-orders": binop("add", xa.float32, (701, 453), (701, 453),
                                      la="transposed"),
        "gt-f64-mixed-orders": binop("lt_total", xa.float64, (3, 333, 301), (3, 333, 301),
                                     lb="transposed"),
        "mul-c64-step": binop("mul", xa.complex64, (BIG,), (BIG,), la="step"),
        "div-s32-negstep": binop("div", xa.int32, (BIG,), (BIG,), lb="negstep"),
        "rem-f64-colmajor": binop("rem", xa.float64, (700, 450), (700, 450), la="colmajor"),
        "max-f16-bcast": binop("max", xa.float16, (2, 150_001), (2, 1)),
        "lt_total-f32": binop("lt_total", xa.float32, (BIG,), (BIG,), la="step"),
        "pow-f32": binop("pow", xa.float32, (BIG,), (BIG,)),
        "atan2-f64-rows": binop("atan2", xa.float64, (5, 60_001), (5, 60_001)),
        "exp-f32-1d": unop("exp", xa.float32, (BIG,), low=-80, high=80),
        "exp-f32-rows3": unop("exp", xa.float32, (3, 100_003), low=-80, high=80),
        "sin-f64-strided": unop("sin", xa.float64, (BIG,), layout="step"),
        "logistic-bf16": unop("logistic", xa.bfloat16, (BIG,)),
        "tanh-f32-transposed": unop("tanh", xa.float32, (1000, 301), layout="transposed"),
        "log1p-f64": unop("log1p", xa.float64, (BIG,)),
        "round-f32": unop("round", xa.float32, (BIG,)),
        "convert-f64-bf16": convert(xa.float64, xa.bfloat16, (BIG,)),
        "convert-f32-s8-strided": convert(xa.float32, xa.int8, (BIG,), layout="negstep"),
        "convert-s64-f16-rows": convert(xa.int64, xa.float16, (3, 100_003)),
        "numpy-add-transposed-bcast": numpy_add,
    }


THREAD_CASES = _thread_cases()


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("case", sorted(THREAD_CASES))
def test_threads_bitwise_identical(case, isa, restore_isa, restore_threads):
    """1 and 2 threads give the same bits (chunk boundaries move vector-loop tails)."""
    CORE.set_isa(isa)
    out = {}
    for n in (1, 2):
        CORE.set_num_threads(n)
        with np.errstate(all="ignore"):
            out[n], inputs = THREAD_CASES[case](np.random.default_rng(9))
    a1, a2 = to_np(out[1]), to_np(out[2])
    assert a1.size >= CORE.parallel_min_elements
    same_bits(a2, a1, f"{case} on {isa}: 2 threads vs 1")


def _family_cases(n):
    """One operation per kernel family of csrc/core/threading.h on about n elements:
    (family, function of an rng -> result)."""
    def data(rng, shape, dt=xa.float32):
        return random_array(rng, shape, dt, specials=0)
    return [
        ("cheap", lambda r: xa.asarray(data(r, (n,))) + make_tensor(data(r, (n,)), "step")),
        ("expensive", lambda r: xa.exp(make_tensor(data(r, (n,)), "negstep"))),
        ("copy", lambda r: make_tensor(data(r, (n,), xa.float64), "step").astype(xa.float16)),
        ("reduce", lambda r: xa.asarray(data(r, (n,))).sum()),
        ("reduce", lambda r: xa.asarray(data(r, (n,))).argmax()),
        ("scan", lambda r: xa.cumsum(xa.asarray(data(r, (8, n // 8))), axis=1)),
        ("scan", lambda r: xa.cumsum(make_tensor(data(r, (n // 8, 8)), "transposed"),
                                      axis=0)),
    ]


@pytest.mark.parametrize("family", sorted(CORE.get_parallel_min()))
def test_family_thresholds_keep_the_bits(family, restore_threads):
    """Each kernel family's measured thread threshold (threading.h, set in isa.cpp): on
    each side of it, and with the threshold moved to 0 (every size threaded), 2 threads
    give the bits of 1 thread."""
    pm = CORE.get_parallel_min()[family]
    assert 0 < pm < 1 << 20
    try:
        for n in (pm - 8, pm + 8, 1000):
            for fam, case in _family_cases(n):
                if fam != family:
                    continue
                got = {}
                for threads, threshold in ((1, pm), (2, pm), (2, 0)):
                    CORE.set_num_threads(threads)
                    CORE.set_parallel_min(family, threshold)
                    got[threads, threshold] = to_np(case(np.random.default_rng(n))).copy()
                for key in ((2, pm), (2, 0)):
                    same_bits(got[key], got[1, pm], f"{family} n={n} {key}")
    finally:
        CORE.set_parallel_min(family, pm)
    with pytest.raises(ValueError, match="unknown kernel family"):
        CORE.set_parallel_min("bogus", 1)


@pytest.mark.parametrize("dt", [xa.float32, xa.int64, xa.complex128], ids=str)
def test_threaded_results_are_correct(dt, restore_threads):
    """Two threads on large non-contiguous / broadcast operands give NumPy's values, on
    each side of parallel_min_elements."""
    CORE.set_num_threads(2)
    rng = np.random.default_rng(10)
    pm = CORE.parallel_min_elements
    for n in (pm - 1, pm, pm + 1, 3 * pm + 17):
        a = random_array(rng, (n,), dt, specials=0)
        b = random_array(rng, (1, n), dt, specials=0)
        c = random_array(rng, (2, 1), dt, specials=0)
        got = xa.asarray(a) * make_tensor(b, "negstep") + xa.asarray(c)
        with np.errstate(all="ignore"):
            ref = a * b + c
        if kind(dt) == "c":  # NumPy may fuse complex products (FMA)
            err = np.abs(to_np(got) - ref)
            scale = np.abs(a * b) + np.abs(c)  # a*b + c may cancel: bound by the terms
            assert (err <= 1e-14 * scale + 1e-300).all()
        else:
            assert_same(got, ref)


@pytest.mark.parametrize("dt", [xa.int32, xa.float32, xa.bfloat16], ids=str)
def test_threaded_iota_and_select(dt, restore_threads):
    n = 3 * CORE.parallel_min_elements + 5
    results = {}
    for t in (1, 2):
        CORE.set_num_threads(t)
        it = xa.lax.iota(xa.int64, n)
        p = xa.lax.lt(xa.lax.rem(it, 3), 1)
        a = xa.asarray(np.arange(n).astype(dt))
        b = xa.asarray(np.full(n, 7, dt))
        results[t] = (to_np(it).copy(), to_np(xa.lax.select(p, a, b)).copy())
    assert_same(results[2][0], np.arange(n))
    assert_same(results[1][0], results[2][0])
    ref = np.where(np.arange(n) % 3 < 1, np.arange(n).astype(dt), np.full(n, 7, dt))
    assert_same(results[2][1], ref)
    assert_same(results[1][1], results[2][1])


@pytest.mark.parametrize("dt", INTS, ids=str)
def test_int_division_by_zero_never_traps(dt, restore_isa, restore_threads):
    """Every ISA, threaded or not: x / 0 and INT_MIN / -1 give the SPEC values, no
    signal (SIGFPE would kill the test process)."""
    info = np.iinfo(dt)
    n = CORE.parallel_min_elements + 100
    a = np.full(n, info.min, dt)
    b = np.zeros(n, dt)
    if kind(dt) == "i":
        b[::2] = -1
    for isa in ISAS:
        CORE.set_isa(isa)
        for t in (1, 2):
            CORE.set_num_threads(t)
            q = to_np(xa.lax.div(xa.asarray(a), xa.asarray(b)))
            r = to_np(xa.lax.rem(xa.asarray(a), xa.asarray(b)))
            fq = to_np(xa.floor_divide(xa.asarray(a), xa.asarray(b)))
            exp_q = np.where(b == 0, np.array(-1).astype(dt), info.min).astype(dt)
            exp_r = np.where(b == 0, info.min, 0).astype(dt)
            exp_f = np.where(b == 0, 0, info.min).astype(dt)
            assert_same(q, exp_q)
            assert_same(r, exp_r)
            assert_same(fq, exp_f)


@pytest.mark.parametrize("dt", [np.int8, np.float16, np.float32, np.float64, np.complex128],
                         ids=str)
def test_small_strided_copies_match_numpy(dt, restore_threads):
    """Copies below the copy family's thread threshold run relayout.cpp's copy_small (dims
    merged, an inline row loop); above it run_nary's walk. Both give NumPy's copy of the
    same view: steps, negative steps, broadcast rows, size-1 and size-0 dims, 1-4 dims,
    every itemsize."""
    rng = np.random.default_rng(5)
    pm = CORE.get_parallel_min()["copy"]
    try:
        for threshold in (pm, 0):
            CORE.set_parallel_min("copy", threshold)
            for _ in range(60):
                nd = int(rng.integers(1, 5))
                shape = tuple(int(v) for v in rng.integers(0, 9, nd))
                base = (rng.standard_normal(tuple(2 * d + 1 for d in shape)) * 50).astype(dt)
                sl = tuple(slice(None, None, int(rng.choice([1, 2, -1, -2]))) for _ in shape)
                sl = tuple(slice(0, d) if s.step == 1 else s for s, d in zip(sl, shape))
                a = base[sl]
                t = xa.asarray(base)[sl]
                assert_same(t.copy(), a.copy())
                row = a[(0,) * (a.ndim - 1)] if a.size else a.reshape(-1)[:0]
                if a.size:
                    b = np.broadcast_to(row, (3,) + row.shape)
                    tb = xa.broadcast_to(xa.asarray(np.ascontiguousarray(row)), b.shape)
                    assert_same(tb.copy(), b.copy())
    finally:
        CORE.set_parallel_min("copy", pm)


@pytest.mark.parametrize("dt", [xa.float32, xa.float64, xa.int8, xa.complex128, xa.bfloat16],
                         ids=str)
def test_repeated_rows_match_numpy(dt, restore_threads):
    """x + row, x / row, x > row and where(row_mask, x, row) with short rows run once per
    block of rows over a per-thread copy of the repeated row (csrc/engine/nary.cpp
    run_repeated): NumPy's values for row lengths around the block and the 512-element
    bound, strided and reversed rows, in-place updates, 1 and 2 threads."""
    rng = np.random.default_rng(31)
    fused = xa.jit(lambda p, q: p * 2 + q)  # the fused executor's walk
    for threads in (1, 2):
        CORE.set_num_threads(threads)
        for rows, n in [(4, 1), (5, 7), (40, 25), (100, 100), (33, 257), (9, 512), (6, 513),
                        (2000, 3)]:
            x = random_array(rng, (rows, n), dt, specials=0)
            base = random_array(rng, (2 * n,), dt, specials=0)
            tx, tbase = xa.asarray(x), xa.asarray(base)
            for view in (lambda b: b[:n], lambda b: b[::2], lambda b: b[::-1][:n]):
                row, trow = view(base), view(tbase)
                with np.errstate(all="ignore"):
                    assert_same(tx + trow, x + row)
                    assert_same(tx > trow, x > row)
                    if kind(dt) == "f":  # (complex division: 1 ulp from NumPy's order)
                        assert_same(tx / trow, x / row)
                    mask = row.real > 0 if kind(dt) == "c" else row > 0
                    assert_same(xa.where(xa.asarray(mask), tx, trow), np.where(mask, x, row))
                    full = (x.real if kind(dt) == "c" else x) > 0
                    assert_same(xa.where(xa.asarray(full), tx, trow), np.where(full, x, row))
                    assert_same(fused(tx, trow), x * 2 + row)
                    ti = xa.asarray(x.copy())
                    ti += trow
                    assert_same(ti, x + row)
