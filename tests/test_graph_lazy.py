"""``with xa.lazy():`` and ``xa.eval`` (xarr/_graph/lazy.py): values are recorded as
``Traced`` and computed when needed (printing, NumPy conversion, .item(), bool(),
float(), xa.eval); results equal eager bit for bit; one xa.eval computes several values in
one module with one fused kernel; computed values are not recomputed."""

import numpy as np
import pytest

import xarr as xa
from conftest import assert_same, make_tensor, random_array, to_np
from xarr._graph import trace
from xarr._graph.trace import Traced


def chain(a, b, c):
    return 2 * a + 3 * b * b - xa.exp(-c)


def _inputs(dt=xa.float32, shape=(5, 6), seed=0, how="c"):
    rng = np.random.default_rng(seed)
    arrays = [random_array(rng, shape, dt, specials=0.1) for _ in range(3)]
    return arrays, [make_tensor(a, how) for a in arrays]


def _last_kernels():
    module, exe = trace.STATE.last_lazy
    return exe.kernel_count


@pytest.mark.parametrize("how", ["c", "colmajor", "step", "negstep", "tiled"])
@pytest.mark.parametrize("dt", [xa.float32, xa.float64, xa.bfloat16, xa.float16])
def test_lazy_equals_eager_bitwise(dt, how):
    arrays, ts = _inputs(dt, how=how)
    want = to_np(chain(*ts))
    with xa.lazy():
        y = chain(*ts)
        assert type(y) is Traced
        assert y.shape == want.shape and y.dtype == want.dtype
    assert_same(xa.eval(y), want)


def test_int_and_bool_lazy():
    x = np.arange(-6, 6, dtype=np.int32).reshape(3, 4)
    t = xa.asarray(x)
    with xa.lazy():
        a = (t * 3) ^ 5
        m = a > 2
        s = xa.where(m, a, -a) if hasattr(xa, "where") else a
    assert type(a) is Traced and type(m) is Traced
    assert_same(a, (x * 3) ^ 5)
    assert_same(m, ((x * 3) ^ 5) > 2)
    assert_same(s, to_np(xa.where(((t * 3) ^ 5) > 2, (t * 3) ^ 5, -((t * 3) ^ 5)))
                if hasattr(xa, "where") else (x * 3) ^ 5)


@pytest.mark.parametrize("force", ["repr", "str", "asarray", "item", "bool", "float", "int",
                                   "tolist", "eval", "numpy"])
def test_value_computed_on_demand(force):
    t = xa.asarray(np.float32(1.25))
    with xa.lazy():
        y = xa.exp(t) * 2 - 1
        assert type(y) is Traced
        assert y.instr.value is None          # nothing ran yet
    want = xa.exp(t) * 2 - 1
    wv = float(to_np(want))
    if force == "repr":
        assert repr(y) == repr(want)
    elif force == "str":
        assert str(y) == str(want)
    elif force == "asarray":
        assert_same(np.asarray(y), to_np(want))
    elif force == "item":
        assert y.item() == wv
    elif force == "bool":
        assert bool(y) is True
    elif force == "float":
        assert float(y) == wv
    elif force == "int":
        assert int(y) == int(wv)
    elif force == "tolist":
        assert y.tolist() == wv
    elif force == "numpy":
        assert_same(y.numpy(), to_np(want))
    else:
        assert_same(xa.eval(y), to_np(want))
    assert y.instr.value is not None


def test_python_control_flow_inside_lazy():
    t = xa.asarray(np.array([1.0, -2.0, 3.0], np.float64))
    with xa.lazy():
        s = t * t
        total = 0.0
        for v in s:                # iteration computes
            total += float(v)
        if (s[1] > 3):             # indexing and bool compute
            z = s + 1
        else:
            z = s - 1
    assert total == 14.0
    assert_same(z, np.array([2.0, 5.0, 10.0]))


def test_eval_several_values_one_module_one_kernel():
    arrays, (a, b, c) = _inputs(xa.float32, shape=(40, 30), seed=3)
    with xa.lazy():
        y = chain(a, b, c)
        z = y * 0.5
        w = xa.sin(y) + xa.cos(a)
    ry, rz, rw = xa.eval(y, z, w)
    module, exe = trace.STATE.last_lazy
    assert exe.kernel_count == 1
    text = module.as_text()
    assert text.count("fusion(") == 1
    ey = chain(a, b, c)
    assert_same(ry, to_np(ey))
    assert_same(rz, to_np(ey * 0.5))
    assert_same(rw, to_np(xa.sin(ey) + xa.cos(a)))
    # all three are computed now: evaluating again runs nothing new
    before = trace.STATE.last_lazy
    assert xa.eval(y, z, w)[0] is ry
    assert trace.STATE.last_lazy is before


def test_eval_passes_through_non_lazy_and_single_value():
    a = xa.ones(3, xa.float32)
    with xa.lazy():
        y = a + 1
    r = xa.eval(y)
    assert not isinstance(r, tuple)
    assert_same(r, np.full(3, 2, np.float32))
    r1, r2, r3 = xa.eval(a, y, 5)
    assert r1 is a and r3 == 5
    assert_same(r2, np.full(3, 2, np.float32))


def test_values_used_after_block_stay_lazy_and_work():
    arrays, (a, b, c) = _inputs(xa.float64, seed=4)
    with xa.lazy():
        y = a * b
    z = y + c                      # outside the block: a lazy value still records
    assert type(z) is Traced
    assert y.instr.value is None
    w = a + c                      # plain tensors outside the block are eager
    assert type(w) is not Traced
    assert_same(z, to_np(a * b + c))
    assert_same(y, to_np(a * b))


def test_mixing_lazy_and_eager_tensors():
    arrays, (a, b, c) = _inputs(xa.float32, seed=5)
    e = xa.exp(a)                  # eager
    with xa.lazy():
        y = e * b                  # eager tensor as a leaf
        z = y + xa.asarray(np.float32(3))
    u = xa.eval(z)
    assert_same(u, to_np(xa.exp(a) * b + xa.asarray(np.float32(3))))
    # a lazy value passed to an eager-only path computes first
    v = np.asarray(z) + 1
    np.testing.assert_array_equal(v, to_np(u) + 1)
    # and a lazy value used by a jitted function is computed, then is a constant
    f = xa.jit(lambda x: x + z)
    assert_same(f(a), to_np(a + u))


def test_computed_value_not_recomputed():
    arrays, (a, b, c) = _inputs(xa.float32, seed=6)
    with xa.lazy():
        y = chain(a, b, c)
        z = y * 2
    ry = xa.eval(y)
    assert y.instr.value is ry
    assert y.instr.operands == []          # a leaf now
    xa.eval(z)
    module, exe = trace.STATE.last_lazy
    text = module.as_text()
    # z's module reads y's value as a parameter instead of recomputing the chain
    assert "exponential" not in text
    assert len(module.entry.parameters) == 1
    assert exe.kernel_count == 1
    assert_same(z, to_np(chain(a, b, c) * 2))
    # a second eval of z returns the same tensor
    assert xa.eval(z) is z.instr.value


def test_shared_subexpression_computed_once_in_module():
    arrays, (a, b, c) = _inputs(xa.float32, seed=7)
    with xa.lazy():
        s = a * b
        y = s + 1
        z = s - 1
    ry, rz = xa.eval(y, z)
    module, exe = trace.STATE.last_lazy
    assert exe.kernel_count == 1
    assert module.as_text().count("multiply(") == 1
    assert_same(ry, to_np(a * b + 1))
    assert_same(rz, to_np(a * b - 1))


def test_nested_lazy_blocks_and_jit_inside_lazy():
    a = xa.asarray(np.arange(4, dtype=np.float32))
    with xa.lazy():
        with xa.lazy():
            y = a + 1
        z = y * 2                  # still inside the outer block
        assert type(z) is Traced
        r = xa.jit(lambda x: x * 3)(a)     # a jitted call inside lazy runs normally
    assert_same(z, (np.arange(4, dtype=np.float32) + 1) * 2)
    assert_same(r, np.arange(4, dtype=np.float32) * 3)


def test_lazy_size_zero_and_broadcast():
    a = xa.zeros((0, 3), xa.float32)
    b = xa.asarray(np.arange(3, dtype=np.float32))
    with xa.lazy():
        y = a + b
        z = xa.asarray(np.ones((4, 1), np.float32)) * b
    assert to_np(y).shape == (0, 3)
    assert_same(z, np.ones((4, 1), np.float32) * np.arange(3, dtype=np.float32))


def test_lazy_shape_error_at_record_time():
    with xa.lazy():
        with pytest.raises(ValueError, match=r"\(2, 3\).*\(4,\)"):
            xa.ones((2, 3)) + xa.ones(4)


def test_lazy_threads_identical(restore_threads):
    arrays, (a, b, c) = _inputs(xa.float32, shape=(300, 701), seed=8)
    res = []
    for n in (1, 2):
        xa.set_num_threads(n)
        with xa.lazy():
            y = chain(a, b, c)
        res.append(to_np(xa.eval(y)).copy())
    np.testing.assert_array_equal(res[0].view(np.uint32), res[1].view(np.uint32))


# ------------------------------------------- lazy value <op> Python float (fast path)
def _graph_signature(instr):
    """The recorded graph under ``instr``: (op, type, attributes, operand count) of each
    instruction, depth first."""
    out, stack, seen = [], [instr], set()
    while stack:
        i = stack.pop()
        if id(i) in seen:
            continue
        seen.add(id(i))
        out.append((i.op, i.type, tuple(sorted((k, str(v)) for k, v in i.attrs.items())),
                    len(i.operands)))
        stack.extend(i.operands)
    return out


_BINARY_NUMPY = sorted(n for n, (form, op) in __import__(
    "xarr._ops.elementwise", fromlist=["NUMPY_FUNCTIONS"]).NUMPY_FUNCTIONS.items()
    if op.arity == 2 and n in vars(xa))


@pytest.mark.parametrize("dt", [xa.float16, xa.bfloat16, xa.float32, xa.float64,
                                xa.complex64, xa.int32], ids=str)
def test_lazy_float_fast_path_records_what_the_general_path_records(dt, monkeypatch):
    """``x <op> 0.5`` on a lazy value is recorded by _lazy_float_op when its rules allow:
    for every binary NumPy function, both orders, the graph and the values equal the
    general path's (or both raise the same exception type)."""
    from xarr._ops import elementwise as E
    import warnings

    def record(name, first, fast):
        E._LAZY_FLOAT_OPS.clear()
        if not fast:
            monkeypatch.setattr(E, "_lazy_float_op", lambda *a: None)
        try:
            x = xa.asarray(np.linspace(-2.0, 3.0, 6).reshape(2, 3)).astype(dt)
            with xa.lazy(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                x = x * 1 if dt == xa.int32 else x * 1.0
                f = getattr(xa, name)
                y = f(0.5, x) if first else f(x, 0.5)
                return _graph_signature(y.instr), to_np(y)
        except Exception as e:      # noqa: BLE001 - both paths must raise the same type
            return type(e), None
        finally:
            monkeypatch.undo()
            E._LAZY_FLOAT_OPS.clear()

    for name in _BINARY_NUMPY:
        for first in (False, True):
            fast, general = record(name, first, True), record(name, first, False)
            assert fast[0] == general[0], (name, first)
            if fast[1] is not None:
                with np.errstate(all="ignore"):
                    assert_same(fast[1], general[1])
