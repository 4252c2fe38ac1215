"""The C++ fused executor (csrc/fused/executor.h) driven through FusedProgram: results are
bit-for-bit the eager results, for strided, broadcast and column-major inputs, several
outputs, conversions, 1 vs 2 threads; malformed programs raise ValueError."""

import numpy as np
import pytest

import xarr as xa
from conftest import make_tensor, random_array, to_np
from fused_builder import FusedProgram


def chain_program(dtype):
    """2*a + 3*b*b - exp(-c), associated as Python evaluates it."""
    p = FusedProgram([dtype] * 3)
    k2, k3 = p.constant(2.0), p.constant(3.0)
    t = p.emit("mul", k2, 0)
    u = p.emit("mul", p.emit("mul", k3, 1), 1)
    v = p.emit("exp", p.emit("neg", 2))
    p.emit("sub", p.emit("add", t, u), v, out=0)
    return p


def chain_eager(a, b, c):
    return 2.0 * a + 3.0 * b * b - xa.exp(-c)


@pytest.mark.parametrize("dtype", [xa.float32, xa.float64, xa.float16, xa.bfloat16])
@pytest.mark.parametrize("how", ["c", "colmajor", "step", "negstep", "transposed", "tiled"])
def test_chain_matches_eager_bitwise(dtype, how):
    rng = np.random.default_rng(3)
    arrays = [random_array(rng, (37, 45), dtype, specials=0.1) for _ in range(3)]
    ts = [make_tensor(x, how) for x in arrays]
    (got,) = chain_program(dtype).run(ts)
    want = chain_eager(*ts)
    np.testing.assert_array_equal(to_np(got).view(np.uint8), to_np(want).copy().view(np.uint8))


def test_broadcast_inputs_and_two_outputs():
    rng = np.random.default_rng(4)
    a = xa.asarray(rng.random((5, 1, 7), dtype=np.float32))
    b = xa.asarray(rng.random((6, 1), dtype=np.float32))
    p = FusedProgram([xa.float32, xa.float32])
    s = p.emit("add", 0, 1)
    p.emit("mul", s, s, out=0)
    p.emit("lt", 0, 1, out=1)
    out0, out1 = p.run([a, b])
    assert out0.shape == (5, 6, 7) and out1.dtype == xa.bool_
    np.testing.assert_array_equal(to_np(out0), to_np((a + b) * (a + b)))
    np.testing.assert_array_equal(to_np(out1), to_np(a < b))


def test_convert_and_select():
    x = xa.asarray(np.arange(-50, 50, dtype=np.int32))
    p = FusedProgram([xa.int32])
    f = p.convert(0, xa.float64)
    half = p.emit("mul", f, f)
    pos = p.emit("gt", 0, p.emit("sub", 0, 0))
    neg = p.emit("neg", half)
    p.emit("select", pos, half, neg, out=0)
    (got,) = p.run([x])
    xf = np.arange(-50, 50, dtype=np.float64)
    np.testing.assert_array_equal(to_np(got), np.where(xf > 0, xf * xf, -(xf * xf)))


def test_threads_bitwise_identical(restore_threads):
    rng = np.random.default_rng(5)
    arrays = [xa.asarray(rng.random(300_001, dtype=np.float32)) for _ in range(3)]
    res = []
    for n in (1, 2):
        xa.set_num_threads(n)
        res.append(to_np(chain_program(xa.float32).run(arrays)[0]).copy())
    np.testing.assert_array_equal(res[0], res[1])
    np.testing.assert_array_equal(res[0], to_np(chain_eager(*arrays)))


def test_size_zero():
    a = xa.zeros((0, 3), xa.float32)
    (got,) = chain_program(xa.float32).run([a, a, a])
    assert got.shape == (0, 3)


def test_validation_errors():
    p = FusedProgram([xa.float32])
    with pytest.raises(TypeError, match="different dtypes"):
        q = FusedProgram([xa.float32, xa.int32])
        q.emit("add", 0, 1)
    with pytest.raises(ValueError, match="takes 2 operands"):
        p.emit("add", 0)
    with pytest.raises(ValueError, match="output must be written"):
        FusedProgram([xa.float32]).run([xa.zeros(3, xa.float32)])
    bad = FusedProgram([xa.float32])
    bad.code.append((0, 11, 11, [7], -1))   # operand register 7 does not exist
    bad.output_dtypes.append(11)
    with pytest.raises(ValueError, match="register out of range"):
        bad.run([xa.zeros(3, xa.float32)])
    nok = FusedProgram([xa.float32])
    nok.emit("neg", 0, out=0)
    nok.code[0] = (nok.code[0][0], 11, 11, [0], -1)
    with pytest.raises(TypeError, match="inputs must be tensors"):
        nok.run([xa.zeros(3, xa.int32)])


def _block(dtype):
    """Elements per block of a program whose widest register has ``dtype``'s size."""
    from xarr import _core
    return min(_core.fused_block, _core.fused_block_bytes // np.dtype(to_np(xa.zeros(1, dtype)).dtype).itemsize)


@pytest.mark.parametrize("dtype", [xa.float32, xa.float64])
@pytest.mark.parametrize("edge", [-1, 0, 1, 63])
@pytest.mark.parametrize("threads", [1, 2])
def test_block_edges(dtype, edge, threads, restore_threads):
    xa.set_num_threads(threads)
    # 1 and 2 blocks; the parallel threshold (64 Ki elements) reached with a multiple too.
    for nblocks in (1, 2, 40):
        n = nblocks * _block(dtype) + edge
        rng = np.random.default_rng(n)
        arrays = [xa.asarray(rng.standard_normal(n).astype(to_np(xa.zeros(1, dtype)).dtype))
                  for _ in range(3)]
        (got,) = chain_program(dtype).run(arrays)
        want = chain_eager(*arrays)
        np.testing.assert_array_equal(to_np(got).view(np.uint8), to_np(want).view(np.uint8))


def test_large_output_streaming_and_strided_inputs(restore_threads):
    # > 16 MiB of outputs: written through the staging block with streaming stores;
    # odd length, a reversed (negative-stride) and a step-2 input.
    n = (1 << 22) + 37
    rng = np.random.default_rng(9)
    base = rng.standard_normal(2 * n + 5, dtype=np.float32)
    a = xa.asarray(base[:n])
    b = xa.asarray(base)[::-1][:n]
    c = xa.asarray(base)[::2][:n]
    for threads in (1, 2):
        xa.set_num_threads(threads)
        (got,) = chain_program(xa.float32).run([a, b, c])
        np.testing.assert_array_equal(to_np(got), to_np(chain_eager(a, b, c)))


def test_many_operands_and_constants():
    # 11 inputs + 2 outputs = 13 engine operands (> the old 8), plus 20 constants.
    rng = np.random.default_rng(11)
    shape = (3, 5000)
    xs = [rng.standard_normal(shape, dtype=np.float32) for _ in range(11)]
    p = FusedProgram([xa.float32] * 11)
    ks = [p.constant(float(i) + 0.5) for i in range(20)]
    acc = p.emit("mul", 0, ks[0])
    tmp = p.emit("mul", ks[1], 1)
    p.emit("add", acc, tmp, into=acc)
    for i in range(2, 11):
        p.emit("mul", ks[i], i, into=tmp)
        p.emit("add", acc, tmp, into=acc)
    s = acc
    for i in range(11, 20):
        p.emit("sub", s, ks[i], into=s)
    p.emit("mul", s, s, out=0)
    p.emit("max", 0, ks[19], out=1)
    out0, out1 = p.run([xa.asarray(x) for x in xs])
    w = xs[0] * np.float32(0.5)
    for i in range(1, 11):
        w = w + np.float32(i + 0.5) * xs[i]
    for i in range(11, 20):
        w = w - np.float32(i + 0.5)
    np.testing.assert_array_equal(to_np(out0), w * w)
    np.testing.assert_array_equal(to_np(out1), np.maximum(xs[0], np.float32(19.5)))


def test_constants_in_unary_and_ternary_ops():
    # A constant read by a unary or ternary loop is materialized as a block.
    x = np.linspace(-3, 3, 10001, dtype=np.float32)
    p = FusedProgram([xa.float32])
    lo, hi, zero = p.constant(-1.25), p.constant(2.5), p.constant(0.0)
    nlo = p.emit("neg", lo)                                   # 1.25
    c = p.emit("clamp", lo, 0, hi)
    pos = p.emit("gt", 0, zero)
    p.emit("select", pos, c, nlo, out=0)
    (got,) = p.run([xa.asarray(x)])
    np.testing.assert_array_equal(to_np(got),
                                  np.where(x > 0, np.clip(x, -1.25, 2.5), np.float32(1.25)))


def test_operand_limits():
    from xarr import _core
    nmax = _core.max_args
    assert nmax >= 16
    ok = FusedProgram([xa.float32] * (nmax - 1))
    acc = ok.emit("add", 0, 1)
    for i in range(2, nmax - 1):
        ok.emit("add", acc, i, into=acc)
    ok.emit("neg", acc, out=0)
    xs = [xa.full((7,), float(i), xa.float32) for i in range(nmax - 1)]
    (got,) = ok.run(xs)
    np.testing.assert_array_equal(to_np(got), np.full(7, -sum(range(nmax - 1)), np.float32))
    bad = FusedProgram([xa.float32] * nmax)
    bad.emit("neg", 0, out=0)
    with pytest.raises(ValueError, match="too many operands"):
        bad.run([xa.zeros(3, xa.float32)] * nmax)


def _bits(t):
    """The bytes of t with every NaN made the one quiet NaN (which NaN an operation on two
    NaNs returns depends on the operand order a loop uses)."""
    x = to_np(t).copy()
    if x.dtype.kind == "c":
        x.real[np.isnan(x.real)] = np.nan
        x.imag[np.isnan(x.imag)] = np.nan
    elif x.dtype.kind in "fV":   # V: ml_dtypes' bfloat16
        x[np.isnan(x)] = np.nan
    return x.view(np.uint8)


@pytest.mark.parametrize("dtype", [xa.float32, xa.float64, xa.bfloat16, xa.complex128])
@pytest.mark.parametrize("threads", [1, 2])
def test_short_rows_are_packed_bitwise(dtype, threads, restore_threads):
    """Rows shorter than kPackRowMax (csrc/engine/nary.h) run in packed blocks of whole
    rows: an input whose rows repeat (a[:, None, :]) or broadcast along the row (c) is
    copied, one whose rows follow each other (b) is read in place; 700 rows per outer
    index cross the packing block (341 rows of 3 f64) with a partial last block, and
    37 x 700 x 3 elements reach the parallel threshold."""
    xa.set_num_threads(threads)
    rng = np.random.default_rng(11)
    a = xa.asarray(random_array(rng, (37, 1, 3), dtype))
    b = xa.asarray(random_array(rng, (1, 700, 3), dtype))
    c = xa.asarray(random_array(rng, (37, 700, 1), dtype))
    (got,) = chain_program(dtype).run([a, b, c])
    assert got.shape == (37, 700, 3)
    np.testing.assert_array_equal(_bits(got), _bits(chain_eager(a, b, c)))


@pytest.mark.parametrize("dtype", [xa.int8, xa.int16, xa.float64])
@pytest.mark.parametrize("threads", [1, 2])
def test_short_rows_into_strided_outputs(dtype, threads, restore_threads):
    """Two outputs that are views (a step-2 middle axis, a reversed row) are written back
    from the packing buffer; the rows around them are untouched."""
    from xarr._bindings.fused import FusedKernel
    xa.set_num_threads(threads)
    rng = np.random.default_rng(12)
    a = xa.asarray(random_array(rng, (60, 1, 2), dtype))
    b = xa.asarray(random_array(rng, (1, 900, 2), dtype))
    p = FusedProgram([dtype, dtype])
    s = p.emit("add", 0, 1)
    p.emit("mul", s, 1, out=0)
    p.emit("sub", s, 0, out=1)
    big0 = xa.zeros((60, 1800, 2), dtype)
    big1 = xa.zeros((60, 900, 2), dtype)
    out0, out1 = big0[:, ::2, :], big1[:, :, ::-1]
    kernel = FusedKernel(p.input_dtypes, p.temp_dtypes, p.output_dtypes, p.code, [])
    kernel.run([a, b], [None, None], (60, 900, 2), [out0, out1])
    np.testing.assert_array_equal(to_np(out0), to_np((a + b) * b))
    np.testing.assert_array_equal(to_np(out1), to_np((a + b) - a))
    assert not to_np(big0[:, 1::2, :]).any()


@pytest.mark.parametrize("shape", [(17, 257), (33, 600), (300, 40), (3, 16, 256)])
def test_mixed_orders_through_transposed_tiles(shape, restore_threads):
    """x.T-like inputs beside row-major ones (nary.cpp run_tiles with the executor's
    InputTranspose): f32 and f64 inputs transposed per tile, a transposed pred condition
    that is not, against NumPy, on 1 and 2 threads."""
    rng = np.random.default_rng(9)
    swap = tuple(range(len(shape) - 2)) + (len(shape) - 1, len(shape) - 2)
    a = rng.random(shape).astype(np.float32)
    b = rng.random(shape)
    m = rng.random(shape) > 0.5
    # a and m stored transposed (their row dim contiguous), b row-major
    ta = xa.asarray(np.ascontiguousarray(a.transpose(swap))).transpose(swap)
    tm = xa.asarray(np.ascontiguousarray(m.transpose(swap))).transpose(swap)
    tb = xa.asarray(b)
    p = FusedProgram([xa.float32, xa.float64, xa.bool_])
    prod = p.emit("mul", p.convert(0, xa.float64), 1)
    p.emit("select", 2, prod, 1, out=0)
    p.emit("add", 0, 0, out=1)
    for n in (1, 2):
        xa.set_num_threads(n)
        got, twice = p.run([ta, tb, tm])
        np.testing.assert_array_equal(to_np(got), np.where(m, a.astype(np.float64) * b, b))
        np.testing.assert_array_equal(to_np(twice), a + a)
