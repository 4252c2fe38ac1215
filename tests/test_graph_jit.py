"""``xa.jit`` (xarr/_graph/jit.py): jitted results equal the eager results bit for bit for
every dtype an op applies to, for strided / broadcast / column-major / tiled inputs, size-0
and size-1 dims and 1 vs 2 threads; the compile cache (trace_count), static arguments,
pytrees, Python scalars; trace-time errors; results never alias the inputs."""

import numpy as np
import pytest

import xarr as xa
from conftest import (ALL_DTYPES, FLOATS, INTS, LAYOUTS, XLA_NAME, assert_same, kind,
                      make_tensor, random_array, to_np)
from xarr._graph.trace import TracerConversionError
from xarr._registry import numpy_functions

# Every NumPy elementwise function, from the op registry.
UNARY = [n for n, (form, op) in numpy_functions().items() if op.arity == 1]
BINARY = [n for n, (form, op) in numpy_functions().items() if op.arity == 2]


def _args(name, dt, shapes, seed=0):
    rng = np.random.default_rng(seed)
    args = [random_array(rng, s, dt) for s in shapes]
    if name == "power" and kind(dt) in "iu":
        args[1] = (np.abs(args[1].astype(np.int64)) % 20).astype(dt)  # no negative powers
    if name in ("left_shift", "right_shift") and kind(dt) in "iu":
        args[1] = (np.abs(args[1].astype(np.int64)) % (8 * np.dtype(dt).itemsize)).astype(dt)
    return args


def _eager_or_error(fn, *args):
    try:
        return fn(*args), None
    except (TypeError, ValueError) as e:
        return None, e


# ------------------------------------------------------------------------ per op, per dtype
@pytest.mark.parametrize("dt", ALL_DTYPES, ids=[XLA_NAME[d] for d in ALL_DTYPES])
@pytest.mark.parametrize("name", UNARY + BINARY)
def test_op_matches_eager_bitwise(name, dt):
    nargs = 2 if name in BINARY else 1
    fn = getattr(xa, name)
    arrays = _args(name, dt, [(3, 7)] * nargs)
    ts = [xa.asarray(a) for a in arrays]
    want, err = _eager_or_error(fn, *ts)
    f = xa.jit(fn)
    if err is not None:
        # the same dtype rule refuses the op while tracing
        with pytest.raises(type(err)):
            f(*ts)
        return
    got = f(*ts)
    assert_same(got, to_np(want), inputs=dict(zip("ab", arrays)))
    assert f.trace_count == 1


# ------------------------------------------------------------------------ layouts
def chain(a, b, c):
    return 2 * a + 3 * b * b - xa.exp(-c)


def int_chain(a, b, c):
    return (a * 3 + b) ^ (c - 7) | (a & b)


@pytest.mark.parametrize("how", LAYOUTS)
@pytest.mark.parametrize("dt", [xa.float32, xa.float64, xa.float16, xa.bfloat16, xa.int32,
                                xa.uint8], ids=lambda d: XLA_NAME[np.dtype(d)])
@pytest.mark.parametrize("shape", [(6, 7), (1, 5), (4, 1), (0, 3), (1, 1), (9,)],
                         ids=str)
def test_layouts_and_sizes(how, dt, shape):
    rng = np.random.default_rng(11)
    arrays = [random_array(rng, shape, dt, specials=0.1) for _ in range(3)]
    ts = [make_tensor(a, how) for a in arrays]
    fn = chain if kind(dt) == "f" else int_chain
    got = xa.jit(fn)(*ts)
    assert_same(got, to_np(fn(*ts)), inputs=dict(zip("abc", arrays)))


def test_mixed_layouts_in_one_call():
    rng = np.random.default_rng(12)
    arrays = [random_array(rng, (5, 6), xa.float32) for _ in range(3)]
    ts = [make_tensor(arrays[0], "colmajor"), make_tensor(arrays[1], "negstep"),
          make_tensor(arrays[2], "tiled")]
    assert_same(xa.jit(chain)(*ts), to_np(chain(*ts)))


@pytest.mark.parametrize("sa, sb", [((4, 1, 5), (3, 1)), ((), (2, 3)), ((1,), (4, 1)),
                                    ((2, 3), (3,)), ((5, 1), (1, 6)), ((0, 1), (1, 4)),
                                    ((1, 1, 1), (7,))], ids=str)
@pytest.mark.parametrize("dt", [xa.float32, xa.float64, xa.int32, xa.complex64],
                         ids=lambda d: XLA_NAME[np.dtype(d)])
def test_broadcasting(sa, sb, dt):
    rng = np.random.default_rng(13)
    a, b = random_array(rng, sa, dt), random_array(rng, sb, dt)
    ta, tb = xa.asarray(a), xa.asarray(b)

    def f(x, y):
        return x * y + (x - y)

    got = xa.jit(f)(ta, tb)
    assert_same(got, to_np(f(ta, tb)))
    assert got.shape == np.broadcast_shapes(sa, sb)


def test_broadcast_strided_operand():
    rng = np.random.default_rng(14)
    a = random_array(rng, (4, 6), xa.float64)
    b = random_array(rng, (6,), xa.float64)
    ta, tb = make_tensor(a, "transposed"), make_tensor(b, "negstep")
    assert_same(xa.jit(chain)(ta, tb, ta), to_np(chain(ta, tb, ta)))


def test_threads_bitwise_identical(restore_threads):
    rng = np.random.default_rng(15)
    arrays = [xa.asarray(random_array(rng, (300, 1001), xa.float32, specials=0.05))
              for _ in range(3)]
    f = xa.jit(chain)
    res = []
    for n in (1, 2):
        xa.set_num_threads(n)
        res.append(to_np(f(*arrays)).copy())
    np.testing.assert_array_equal(res[0].view(np.uint32), res[1].view(np.uint32))
    assert_same(res[0], to_np(chain(*arrays)))
    assert f.trace_count == 1     # the thread count is not part of the signature


# ------------------------------------------------------------------------ the cache
def test_cache_hits_and_misses():
    f = xa.jit(chain)
    a = xa.asarray(np.ones((3, 4), np.float32))
    f(a, a, a)
    f(a, a, a)
    assert f.trace_count == 1
    f(xa.asarray(np.ones((3, 4), np.float32) * 2), a, a)   # same signature, other values
    assert f.trace_count == 1
    f(a.astype(xa.float64), a, a)                            # dtype
    assert f.trace_count == 2
    f(xa.asarray(np.ones((3, 5), np.float32)), a[:, :1], a[:, :1])   # shape
    assert f.trace_count == 3
    f(xa.asarray(np.ones((3, 4), np.float32), layout=(0, 1)), a, a)   # layout
    assert f.trace_count == 4
    f(xa.asarray(np.ones((3, 4), np.float32), layout=(0, 1)), a, a)
    assert f.trace_count == 4
    f(xa.asarray(np.ones((3, 4), np.float32), layout="{1,0:T(2,2)}"), a, a)   # tiling
    assert f.trace_count == 5


def test_cache_python_scalars_are_part_of_the_key():
    f = xa.jit(lambda x, s: x * s)
    a = xa.asarray(np.arange(6, dtype=np.float32))
    assert_same(f(a, 2.5), np.arange(6, dtype=np.float32) * np.float32(2.5))
    assert_same(f(a, 2.5), np.arange(6, dtype=np.float32) * np.float32(2.5))
    assert f.trace_count == 1
    assert_same(f(a, 3.0), np.arange(6, dtype=np.float32) * np.float32(3.0))
    assert f.trace_count == 2
    # weak Python scalars: an int scalar keeps an int8 tensor int8 (NEP 50)
    b = xa.asarray(np.arange(6, dtype=np.int8))
    assert_same(f(b, 3), np.arange(6, dtype=np.int8) * 3)
    assert_same(f(b, 2.0), np.arange(6, dtype=np.int8) * 2.0)


def test_static_argnums_and_argnames():
    calls = []

    def f(x, n, *, mode="add"):
        calls.append(n)
        return x + n if mode == "add" else x * n

    a = xa.asarray(np.arange(5, dtype=np.int32))
    g = xa.jit(f, static_argnums=1, static_argnames="mode")
    assert_same(g(a, 3), np.arange(5, dtype=np.int32) + 3)
    assert_same(g(a, 3), np.arange(5, dtype=np.int32) + 3)
    assert g.trace_count == 1
    assert_same(g(a, 4), np.arange(5, dtype=np.int32) + 4)
    assert g.trace_count == 2
    assert_same(g(a, 4, mode="mul"), np.arange(5, dtype=np.int32) * 4)
    assert g.trace_count == 3
    assert calls == [3, 4, 4]       # the Python body ran once per trace only
    # a static argument may be any hashable value, including a Python control value
    h = xa.jit(lambda x, flag: -x if flag else x, static_argnums=(1,))
    assert_same(h(a, True), -np.arange(5, dtype=np.int32))
    # argnames that name a positional parameter make it static too
    k = xa.jit(lambda x, n: x * n, static_argnames=("n",))
    assert_same(k(a, n=2), np.arange(5, dtype=np.int32) * 2)
    assert_same(k(a, 2), np.arange(5, dtype=np.int32) * 2)


def test_static_argument_must_be_hashable():
    g = xa.jit(lambda x, n: x, static_argnums=1)
    a = xa.asarray(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="hashable"):
        g(a, [1, 2])
    g2 = xa.jit(lambda x, opts=None: x, static_argnames="opts")
    with pytest.raises(TypeError, match="hashable"):
        g2(a, opts={"k": 1})
    with pytest.raises(ValueError, match="not a parameter"):
        xa.jit(lambda x: x, static_argnames="nope")


def test_non_tensor_argument_error():
    with pytest.raises(TypeError, match="static_argnums"):
        xa.jit(lambda x, s: x)(xa.ones(3), "hello")


# ------------------------------------------------------------------------ pytrees
def test_pytree_arguments_and_results():
    rng = np.random.default_rng(16)
    x = random_array(rng, (3, 4), xa.float64)
    y = random_array(rng, (4,), xa.float64)
    tx, ty = xa.asarray(x), xa.asarray(y)

    def f(d, pair, lst):
        s = d["x"] + pair[0]
        return {"sum": s, "parts": (s * pair[1], [lst[0] - 1.0, lst[1]])}

    g = xa.jit(f)
    out = g({"x": tx, "unused": ty}, (ty, tx), [tx, ty])
    want = f({"x": tx, "unused": ty}, (ty, tx), [tx, ty])
    assert set(out) == {"sum", "parts"}
    assert isinstance(out["parts"], tuple) and isinstance(out["parts"][1], list)
    assert_same(out["sum"], to_np(want["sum"]))
    assert_same(out["parts"][0], to_np(want["parts"][0]))
    assert_same(out["parts"][1][0], to_np(want["parts"][1][0]))
    assert_same(out["parts"][1][1], y)
    assert not np.shares_memory(to_np(out["parts"][1][1]), to_np(ty))
    g({"x": tx, "unused": ty}, (ty, tx), [tx, ty])
    assert g.trace_count == 1
    g({"x": tx, "unused": ty}, [ty, tx], [tx, ty])    # tuple -> list: another structure
    assert g.trace_count == 2


def test_numpy_array_arguments():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = xa.jit(lambda a: a * 2 + 1)(x)
    assert_same(got, x * 2 + 1)


def test_returning_constants_and_scalars():
    a = xa.asarray(np.arange(4, dtype=np.int16))
    out = xa.jit(lambda x: (x + 1, 7, xa.asarray(np.float32(2.5))))(a)
    assert_same(out[0], np.arange(4, dtype=np.int16) + 1)
    assert int(out[1]) == 7
    assert_same(out[2], np.float32(2.5))


def test_tensor_closed_over_is_a_constant():
    c = xa.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    f = xa.jit(lambda x: x * c)
    a = xa.asarray(np.full((2, 3), 3, np.float32))
    assert_same(f(a), np.arange(6, dtype=np.float32).reshape(2, 3) * 3)


# ------------------------------------------------------------------------ trace-time errors
def test_shape_mismatch_error_names_op_and_shapes():
    f = xa.jit(lambda x, y: x * 2 + y)
    with pytest.raises(ValueError, match=r"add.*\(4, 5\).*\(3,\)"):
        f(xa.ones((4, 5)), xa.ones(3))
    g = xa.jit(lambda x, y: xa.lax.mul(x, y))
    with pytest.raises((ValueError, TypeError), match=r"mul"):
        g(xa.ones((4, 5)), xa.ones((5, 4)))


def test_lax_dtype_errors():
    f = xa.jit(lambda x, y: xa.lax.add(x, y))
    with pytest.raises(TypeError, match="element type"):
        f(xa.ones(3, xa.float32), xa.ones(3, xa.int32))
    with pytest.raises(TypeError):
        xa.jit(lambda x: xa.lax.exp(x))(xa.ones(3, xa.int32))
    with pytest.raises(TypeError):
        xa.jit(lambda x: xa.lax.bitwise_and(x, x) if hasattr(xa.lax, "bitwise_and")
               else xa.lax.and_(x, x))(xa.ones(3, xa.float32))


@pytest.mark.parametrize("use", [lambda t: bool(t), lambda t: float(t), lambda t: int(t),
                                 lambda t: np.asarray(t), lambda t: t.item(),
                                 lambda t: 1 if t > 0 else 0],
                         ids=["bool", "float", "int", "asarray", "item", "if"])
def test_python_control_flow_on_traced_value(use):
    def f(x):
        use(x)
        return x

    with pytest.raises(TracerConversionError) as info:
        xa.jit(f)(xa.asarray(np.float32(1.5)))
    assert isinstance(info.value, TypeError)
    msg = str(info.value)
    assert "xa.lax.cond" in msg and "xa.lax.while_loop" in msg


def test_python_if_on_traced_array():
    def f(x):
        if x[0] > 0:          # indexing a traced tensor is refused too
            return x
        return -x
    with pytest.raises(TypeError):
        xa.jit(f)(xa.ones(3))


def test_escaped_tracer_raises_when_used():
    leaked = []

    def f(x):
        y = x * 2
        leaked.append(y)
        return y + 1

    a = xa.asarray(np.arange(3, dtype=np.float32))
    assert_same(xa.jit(f)(a), np.arange(3, dtype=np.float32) * 2 + 1)
    with pytest.raises(TracerConversionError, match="escaped"):
        leaked[0] + 1
    with pytest.raises(TypeError):
        np.asarray(leaked[0])
    with pytest.raises(TypeError):
        xa.exp(leaked[0])
    # passed to another jitted function: refused too
    with pytest.raises(TypeError):
        xa.jit(lambda x: x + leaked[0])(a)


# ------------------------------------------------------------------------ no aliasing
@pytest.mark.parametrize("fn", [lambda x: x, lambda x: x * 1, lambda x: x + 0,
                                lambda x: -(-x), lambda x: x.astype(x.dtype),
                                lambda x: x.reshape(x.shape),
                                lambda x: x.T.T, lambda x: (x, x)],
                         ids=["identity", "mul1", "add0", "negneg", "astype", "reshape",
                              "TT", "tuple"])
@pytest.mark.parametrize("how", ["c", "colmajor", "step"])
def test_results_never_alias_inputs(fn, how):
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    t = make_tensor(x.copy(), how)
    out = xa.jit(fn)(t)
    outs = out if isinstance(out, tuple) else (out,)
    for o in outs:
        assert_same(o, x)
        assert not np.shares_memory(to_np(o), to_np(t))
    if len(outs) == 2:
        assert not np.shares_memory(to_np(outs[0]), to_np(outs[1]))
    # writing into the input does not change the result
    v = to_np(t)
    if v.flags.writeable:
        v[...] = 0
    assert_same(outs[0], x)


def test_constant_result_is_fresh_each_call():
    f = xa.jit(lambda x: (x + 1, xa.asarray(np.arange(3, dtype=np.float32))))
    a = xa.ones(2)
    r1 = f(a)[1]
    r2 = f(a)[1]
    assert not np.shares_memory(to_np(r1), to_np(r2))
    to_np(r1)[0] = 99
    assert_same(f(a)[1], np.arange(3, dtype=np.float32))


def test_float_int_complex_dtype_tables_smoke():
    # every conftest dtype goes through a jitted identity + add with itself
    for dt in ALL_DTYPES:
        rng = np.random.default_rng(1)
        x = random_array(rng, (2, 3), dt)
        t = xa.asarray(x)
        f = xa.jit(lambda a: (a, a + a) if dt != np.bool_ else (a, a | a))
        r0, r1 = f(t)
        assert_same(r0, x)
        assert_same(r1, to_np(t + t if dt != np.bool_ else t | t))
    assert len(FLOATS) + len(INTS) < len(ALL_DTYPES)


# ------------------------------------------------------------------------ regressions
def test_special_float_constants_print_and_run():
    """NaN / inf / -0.0 scalar constants used to crash the text printer (int(nan))."""
    x = np.array([1.0, -0.0, 0.0], np.float32)
    t = xa.asarray(x)
    f = xa.jit(lambda v: (v + float("nan"), v * float("inf"), v - float("-inf"), v * -0.0))
    text = f.lower(t).as_text()
    assert "constant(nan)" in text and "constant(inf)" in text
    assert "constant(-inf)" in text and "constant(-0)" in text
    out = f(t)
    with np.errstate(all="ignore"):
        want = (x + np.float32("nan"), x * np.float32("inf"), x - np.float32("-inf"),
                x * np.float32(-0.0))
    for o, w in zip(out, want):
        assert_same(o, w)


@pytest.mark.parametrize("dt, value", [(xa.uint8, -2), (xa.uint8, 256), (xa.int8, 200),
                                       (xa.int32, 2**40)])
def test_out_of_range_python_int_raises_under_jit_as_eagerly(dt, value):
    t = xa.asarray(np.array([1, 2], dt))
    with pytest.raises(OverflowError):
        t + value
    with pytest.raises(OverflowError):
        xa.jit(lambda v: v + value)(t)
    with xa.lazy():
        with pytest.raises(OverflowError):
            t + value


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "full_like"])
def test_like_creation_on_traced_values(name):
    fn = getattr(xa, name)
    make = (lambda v: fn(v, 3)) if name == "full_like" else fn
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = xa.asarray(x)
    got = xa.jit(lambda v: make(v) + v)(t)
    assert_same(got, to_np(make(t) + t))
    with xa.lazy():
        y = t * 2
        z = make(y) + y
    assert_same(z, to_np(make(t) + t * 2))
