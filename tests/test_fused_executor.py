"""The C++ fused executor (csrc/fused/executor.h) driven through FusedProgram: results are
bit-for-bit the eager results, for strided, broadcast and column-major inputs, several
outputs, conversions, 1 vs 2 threads; malformed programs raise ValueError."""

import numpy as np
import pytest

import xarr as xa
from conftest import make_tensor, random_array, to_np
from xarr._graph.fused_program import FusedProgram


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
