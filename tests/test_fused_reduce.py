"""Fused elementwise producer + reduction (kind=kInput) in the C++ fused executor
(csrc/fused/executor.h run_fused_reduce), driven through xarr._bindings.fused.FusedKernel with
reduce_op / reduce_ndim: results against the unfused values reduced by NumPy in float64
(float sums within ~log2(n) eps sum|x|; integer sums, max and min exact), bit for bit
against the unfused path (run + reduce_run), every dtype, block and chunk boundaries,
broadcast inputs, the non-coalescible fallback, NaN propagation, 1 vs 2 threads."""

import math

import numpy as np
import pytest

import xarr as xa
from conftest import (ALL_DTYPES, BF16, COMPLEX, FLOATS, INTS, finfo, kind, make_tensor,
                      random_array, to_np)
from xarr import _tensor
from xarr._bindings import reduce as _reduce
from xarr._bindings.fused import FusedKernel
from xarr._dtypes import CODE_OF, as_dtype
from fused_builder import FusedProgram

SUM, MAX, MIN = _reduce.REDUCE_SUM, _reduce.REDUCE_MAX, _reduce.REDUCE_MIN
F32_BLOCK = 2048          # f32 reduce block (4 leaves of 512; csrc/fused/executor.cpp)
F64_BLOCK = 1024
CHUNK = 1 << 16           # kFusedReduceChunk


def bits(t):
    """The bytes of a tensor's values (exact comparison, NaN payloads and zero signs too)."""
    return np.ascontiguousarray(np.atleast_1d(to_np(t))).view(np.uint8)


def np_dt(dtype):
    return np.dtype(to_np(xa.zeros(1, dtype)).dtype)


def axpy_program(dtype):
    """out = x * c + y (c = 3, or True for pred): every dtype has mul and add."""
    p = FusedProgram([dtype, dtype])
    c = p.constant(True if np_dt(dtype) == np.bool_ else 3)
    p.emit("add", p.emit("mul", 0, c), 1, out=0)
    return p


def kernel(p, op, shape, nred, maps=None, out_m2m=None):
    k = FusedKernel(p.input_dtypes, p.temp_dtypes, p.output_dtypes, p.code,
                            [_tensor.scalar_tensor(v, c) for v, c in p.constants],
                            reduce_op=op)
    n = len(p.input_dtypes)
    k.bind(list(range(n)), maps or [None] * n, [None] * n, shape, [out_m2m], reduce_ndim=nred)
    return k


def values(p, inputs, shape):
    """The unfused elementwise values (the program run without the reduction)."""
    (v,) = p.run([_tensor.strided(t) for t in inputs], shape)
    return v


def unfused_reduce(v, op, nred):
    out = xa.empty(v.shape[:v.ndim - nred], v.dtype)
    _reduce.reduce_into(op, out, v, list(range(v.ndim - nred, v.ndim)))
    return out


def check_reduction(got, vals, op, nred):
    """got vs the float64 (exact for integers) reduction of the values vals (NumPy)."""
    got = to_np(got)
    vals = np.asarray(vals)
    axes = tuple(range(vals.ndim - nred, vals.ndim))
    n = int(np.prod([vals.shape[a] for a in axes], dtype=np.int64))
    k = kind(vals.dtype)
    assert got.dtype == vals.dtype and got.shape == vals.shape[:vals.ndim - nred]
    if k == "b":
        want = vals.any(axis=axes) if op in (SUM, MAX) else vals.all(axis=axes)
        np.testing.assert_array_equal(got, want)
        return
    if k in "iu":
        if op == SUM:
            want = vals.astype(np.uint64).sum(axis=axes, dtype=np.uint64).astype(vals.dtype)
        elif n == 0:
            info = np.iinfo(vals.dtype)
            want = np.full(got.shape, info.min if op == MAX else info.max, vals.dtype)
        else:
            want = vals.max(axis=axes) if op == MAX else vals.min(axis=axes)
        np.testing.assert_array_equal(got, want)
        return
    parts = [(got.real, vals.real), (got.imag, vals.imag)] if k == "c" else [(got, vals)]
    for g, v in parts:
        g = g.astype(np.float64)
        v = v.astype(np.float64)
        if op != SUM:
            if n == 0:
                want = np.full(g.shape, -np.inf if op == MAX else np.inf)
            else:
                with np.errstate(invalid="ignore"):
                    want = v.max(axis=axes) if op == MAX else v.min(axis=axes)
            np.testing.assert_array_equal(g, want)   # NaN where NaN; +-0 compare equal
            continue
        want = v.sum(axis=axes)
        real_dt = np.float64 if vals.dtype in (np.float64, np.complex128) else np.float32
        store_eps = float(finfo(vals.dtype if k == "f" else real_dt).eps)
        acc_eps = float(np.finfo(real_dt).eps)
        bound = (math.log2(max(n, 2)) + 2) * acc_eps * np.abs(v).sum(axis=axes) \
            + store_eps * np.abs(want)
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(g), nan)
        err = np.abs(g - want)
        assert (err[~nan] <= bound[~nan]).all(), (err.max(), bound.max())


def inputs_for(dtype, shape, seed, how="c"):
    rng = np.random.default_rng(seed)
    dt = np_dt(dtype)
    if kind(dt) in "fc":
        arrs = [random_array(rng, shape, dt, specials=0, low=-2.0, high=2.0) for _ in range(2)]
    else:
        arrs = [random_array(rng, shape, dt, specials=0.05) for _ in range(2)]
    return [make_tensor(a, how) for a in arrs]


def run_and_check(dtype, op, shape, nred, how="c", seed=0, expect_fused=True):
    p = axpy_program(dtype)
    ins = inputs_for(dtype, shape, seed, how)
    k = kernel(p, op, shape, nred)
    (got,) = k(ins)
    assert k.last_fused == expect_fused
    vals = values(p, ins, shape)
    check_reduction(got, to_np(vals), op, nred)
    return got, vals


# ---------------------------------------------------------------------- dtypes
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("op", [SUM, MAX, MIN], ids=["sum", "max", "min"])
def test_every_dtype(dtype, op):
    if op != SUM and dtype in COMPLEX:
        pytest.skip("max/min are not defined for complex")
    for shape, nred in [((3 * F32_BLOCK + 17,), 1), ((5, 4099), 1), ((3, 7, 129), 2),
                        ((70, 33), 1), ((4, 6), 2)]:
        got, vals = run_and_check(dtype, op, shape, nred, seed=len(shape) + shape[-1])
        # Fused and unfused (run + reduce_run) build the same tree: same bits.
        want = unfused_reduce(vals, op, nred)
        np.testing.assert_array_equal(bits(got), bits(want))


@pytest.mark.parametrize("dtype", [xa.complex64, xa.complex128], ids=str)
@pytest.mark.parametrize("op", [MAX, MIN])
def test_complex_max_min_rejected(dtype, op):
    with pytest.raises(ValueError, match="reduction"):
        kernel(axpy_program(dtype), op, (4,), 1)


# ---------------------------------------------------------------------- sizes
@pytest.mark.parametrize("dtype,block", [(xa.float32, F32_BLOCK), (xa.float64, F64_BLOCK)],
                         ids=["f32", "f64"])
@pytest.mark.parametrize("op", [SUM, MAX])
def test_block_and_chunk_boundaries(dtype, block, op):
    sizes = [1, 2, 15, 16, 63, 64, block - 1, block, block + 1, 2 * block + 5,
             CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK, 3 * CHUNK + block + 7]
    for n in sizes:
        got, vals = run_and_check(dtype, op, (n,), 1, seed=n)
        want = unfused_reduce(vals, op, 1)
        np.testing.assert_array_equal(to_np(got), to_np(want))


@pytest.mark.parametrize("outer,inner", [(2, 70_001), (3, 2 * CHUNK + 11), (17, 5000),
                                         (1000, 100), (20_000, 3), (7, 1), (100, 1),
                                         (30, 5), (5000, 40), (300, 1500)])
def test_outer_small_and_large(outer, inner):
    for op in (SUM, MIN):
        got, vals = run_and_check(xa.float32, op, (outer, inner), 1, seed=outer)
        np.testing.assert_array_equal(to_np(got), to_np(unfused_reduce(vals, op, 1)))


@pytest.mark.parametrize("outer,inner", [(20_000, 5), (3000, 40), (100, 300), (50, 7)])
@pytest.mark.parametrize("dtype", [xa.float32, xa.bfloat16, xa.int32, xa.complex128], ids=str)
def test_short_rows_not_linear(outer, inner, dtype, restore_threads):
    """Rows whose inputs do not walk [outer, inner] linearly (a sliced input, a broadcast
    row vector): computed via a temporary (many short rows) or row by row."""
    rng = np.random.default_rng(outer + inner)
    dt = np_dt(dtype)
    wide = random_array(rng, (outer, inner + 9), dt, specials=0, low=-2.0, high=2.0) \
        if kind(dt) in "fc" else random_array(rng, (outer, inner + 9), dt, specials=0)
    x = xa.asarray(wide)[:, 3:inner + 3]
    row = xa.asarray(wide[0, :inner].copy())
    p = axpy_program(dtype)
    for y in (row, x):
        res = []
        for n in (1, 2):
            xa.set_num_threads(n)
            k = kernel(p, SUM, (outer, inner), 1)
            (got,) = k([x, y])
            assert k.last_fused
            res.append(to_np(got).copy())
        np.testing.assert_array_equal(bits(res[0]), bits(res[1]))
        vals = values(p, [x, y], (outer, inner))
        check_reduction(res[0], to_np(vals), SUM, 1)
        np.testing.assert_array_equal(bits(res[0]), bits(unfused_reduce(vals, SUM, 1)))


def test_reduce_everything_nd():
    run_and_check(xa.float32, SUM, (3, 50, 700), 3)
    run_and_check(xa.int16, SUM, (3, 50, 700), 3)
    run_and_check(xa.float64, MAX, (6, 5, 4, 300), 2)


def test_reduce_nothing_and_empty():
    # reduce_ndim 0: each output is its one value.
    p = axpy_program(xa.float32)
    ins = inputs_for(xa.float32, (4, 5), 1)
    (got,) = kernel(p, SUM, (4, 5), 0)(ins)
    np.testing.assert_array_equal(to_np(got), to_np(values(p, ins, (4, 5))))
    # empty reduced extent: the identity; empty kept extent: an empty output.
    for dtype, op, ident in [(xa.float32, SUM, 0.0), (xa.float32, MAX, -np.inf),
                             (xa.float64, MIN, np.inf), (xa.int8, MAX, -128),
                             (xa.uint16, MIN, 65535), (xa.bool_, SUM, False)]:
        z = [xa.zeros((3, 0), dtype)] * 2
        (got,) = kernel(axpy_program(dtype), op, (3, 0), 1)(z)
        np.testing.assert_array_equal(to_np(got), np.full(3, ident, np_dt(dtype)))
    z = [xa.zeros((0, 5), xa.float32)] * 2
    (got,) = kernel(axpy_program(xa.float32), SUM, (0, 5), 1)(z)
    assert got.shape == (0,)


# ---------------------------------------------------------------------- layouts
def test_broadcast_inputs():
    rng = np.random.default_rng(7)
    p = FusedProgram([xa.float32, xa.float32])
    p.emit("mul", p.emit("exp", 0), 1, out=0)
    x = xa.asarray(rng.standard_normal((37, 3000), dtype=np.float32))
    for y_np, maps in [(rng.standard_normal(3000, dtype=np.float32), None),   # row vector
                       (rng.standard_normal((37, 1), dtype=np.float32), None),  # column
                       (rng.standard_normal(37, dtype=np.float32), [None, (0,)]),  # map
                       (np.float32(1.5), None)]:                             # 0-d
        y = xa.asarray(y_np)
        k = kernel(p, SUM, (37, 3000), 1, maps=maps)
        (got,) = k([x, y])
        assert k.last_fused
        if maps is None:
            (vals,) = p.run([x, y], (37, 3000))
        else:
            (vals,) = p.run([x, xa.asarray(np.broadcast_to(y_np[:, None], (37, 3000)).copy())])
        check_reduction(got, to_np(vals), SUM, 1)
        np.testing.assert_array_equal(to_np(got), to_np(unfused_reduce(vals, SUM, 1)))


@pytest.mark.parametrize("how", ["colmajor", "step", "negstep", "transposed", "tiled"])
def test_strided_layouts(how):
    # one reduced and one kept dim always coalesce, whatever the strides
    run_and_check(xa.float32, SUM, (45, 3001), 1, how=how, seed=3)
    run_and_check(xa.float64, MIN, (45, 301), 1, how=how, seed=4)


def test_fallback_when_dims_do_not_coalesce():
    # two reduced dims of a transposed input: strides do not chain -> run + reduce_run
    rng = np.random.default_rng(11)
    x_np = rng.standard_normal((6, 40, 50), dtype=np.float32)
    base = xa.asarray(np.ascontiguousarray(x_np.transpose(0, 2, 1)))   # (6, 50, 40)
    x = _tensor.as_strided_view(base, (6, 40, 50), (8000, 4, 160), 0)
    np.testing.assert_array_equal(to_np(x), x_np)
    y = xa.asarray(rng.standard_normal((6, 40, 50), dtype=np.float32))
    p = axpy_program(xa.float32)
    for op in (SUM, MAX):
        k = kernel(p, op, (6, 40, 50), 2)
        (got,) = k([x, y])
        assert not k.last_fused
        vals = values(p, [x, y], (6, 40, 50))
        check_reduction(got, to_np(vals), op, 2)
    # a reduced dim broadcast for one input only
    b = xa.asarray(rng.standard_normal((40, 1), dtype=np.float32))
    k = kernel(p, SUM, (6, 40, 50), 2)
    (got,) = k([y, b])
    assert not k.last_fused
    check_reduction(got, to_np(values(p, [y, b], (6, 40, 50))), SUM, 2)
    # kept dims of a column-major output do not chain either
    k = kernel(p, SUM, (6, 40, 50), 1, out_m2m=(0, 1))
    (got,) = k([y, y])
    assert not k.last_fused and got.shape == (6, 40)
    check_reduction(got, to_np(values(p, [y, y], (6, 40, 50))), SUM, 1)
    # ... while a row-major 3-D iteration coalesces into [240, 50] / [6, 2000]
    for nred in (1, 2):
        k = kernel(p, SUM, (6, 40, 50), nred)
        (got,) = k([y, y])
        assert k.last_fused


# ---------------------------------------------------------------------- semantics
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_nan_propagation(dtype):
    dt = np_dt(dtype)
    n = 3 * F32_BLOCK + 100
    for pos in (0, 777, n - 1):
        x_np = np.linspace(-3, 3, n).astype(dt)
        x_np[pos] = np.nan
        x = xa.asarray(x_np)
        y = xa.asarray(np.zeros(n, dt))
        for op in (SUM, MAX, MIN):
            (got,) = kernel(axpy_program(dtype), op, (n,), 1)([x, y])
            assert np.isnan(to_np(got).astype(np.float64)), (op, pos)
    # inf - inf inside the producer gives NaN too
    x = xa.asarray(np.full(100, np.inf, dt))
    p = FusedProgram([dtype, dtype])
    p.emit("sub", 0, 1, out=0)
    (got,) = kernel(p, MAX, (100,), 1)([x, x])
    assert np.isnan(to_np(got).astype(np.float64))


def test_integer_sums_wrap():
    for dtype in INTS:
        dt = np_dt(dtype)
        info = np.iinfo(dt)
        x = xa.asarray(np.full(5000, info.max, dt))
        y = xa.asarray(np.full(5000, info.max // 3, dt))
        (got,) = kernel(axpy_program(dtype), SUM, (5000,), 1)([x, y])
        vals = to_np(values(axpy_program(dtype), [x, y], (5000,)))
        check_reduction(got, vals, SUM, 1)


def test_sum_exp_matches_float64():
    """The headline kernel: sum(exp(x) * 2)."""
    rng = np.random.default_rng(1)
    n = 1_000_003
    x_np = rng.uniform(-3, 3, n).astype(np.float32)
    p = FusedProgram([xa.float32])
    c = p.constant(2.0)
    p.emit("mul", p.emit("exp", 0), c, out=0)
    (got,) = kernel(p, SUM, (n,), 1)([xa.asarray(x_np)])
    want = (np.exp(x_np.astype(np.float64)) * 2).sum()
    assert abs(float(to_np(got)) - want) <= 1e-6 * want


# ---------------------------------------------------------------------- threads
@pytest.mark.parametrize("shape,nred", [((1_000_003,), 1), ((3, 2 * CHUNK + 11), 1),
                                        ((2, 300_001), 1), ((1000, 777), 1),
                                        ((4, 100, 999), 2), ((100_000, 5), 1),
                                        ((30_000, 40), 1), ((7, 20_000, 3), 2)])
@pytest.mark.parametrize("dtype", [xa.float32, xa.float16, xa.float64, xa.complex64], ids=str)
def test_threads_bitwise_identical(shape, nred, dtype, restore_threads):
    p = axpy_program(dtype)
    ins = inputs_for(dtype, shape, 5)
    res = []
    for n in (1, 2):
        xa.set_num_threads(n)
        (got,) = kernel(p, SUM, shape, nred)(ins)
        res.append(to_np(got).copy())
    np.testing.assert_array_equal(bits(res[0]), bits(res[1]))
    check_reduction(res[0], to_np(values(p, ins, shape)), SUM, nred)


# ---------------------------------------------------------------------- validation
def test_validation():
    p = FusedProgram([xa.float32])
    p.emit("neg", 0, out=0)
    p.emit("exp", 0, out=1)
    with pytest.raises(ValueError, match="exactly one output"):
        kernel(p, SUM, (4,), 1)
    with pytest.raises(ValueError, match="reduce_op"):
        kernel(axpy_program(xa.float32), _reduce.REDUCE_PROD, (4,), 1)
    q = axpy_program(xa.float32)
    k = FusedKernel(q.input_dtypes, q.temp_dtypes, q.output_dtypes, q.code,
                            [_tensor.scalar_tensor(v, c) for v, c in q.constants])
    with pytest.raises(ValueError, match="reduce_ndim"):
        k.bind([0, 1], [None, None], [None, None], (4,), [None], reduce_ndim=1)
    k = kernel(axpy_program(xa.float32), SUM, (4,), 1)
    with pytest.raises(TypeError, match="input 0"):
        k([xa.zeros(4, xa.int32), xa.zeros(4, xa.float32)])
    with pytest.raises(ValueError, match="out of range"):
        kernel(axpy_program(xa.float32), SUM, (4,), 2)


# ---------------------------------------------------------------------- ISAs
@pytest.mark.parametrize("isa", xa._core.supported_isas())
def test_every_isa_matches_unfused(isa, restore_isa):
    """Each ISA's tables: the fused result equals run + reduce_run of the same ISA."""
    xa._core.set_isa(isa)
    for dtype, op, shape in [(xa.float32, SUM, (3, 70_001)), (xa.float16, SUM, (2000, 7)),
                             (xa.float64, MAX, (9, 3000)), (xa.uint8, SUM, (50_000,))]:
        got, vals = run_and_check(dtype, op, shape, 1, seed=shape[-1])
        np.testing.assert_array_equal(bits(got), bits(unfused_reduce(vals, op, 1)))
