"""Random expression DAGs (hypothesis): elementwise ops (transcendental included),
comparisons feeding where/select, conversions, scalar constants, reused nodes (DAGs, not
trees) and several outputs, over 1-3 inputs of random shapes (broadcasting, size-0/1 dims),
dtypes and layouts. Eager, lazy (xa.eval) and jitted evaluation agree bit for bit."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import xarr as xa
from conftest import LAYOUTS, assert_same, make_tensor, random_array, to_np

DTYPES = [xa.float32, xa.float64, xa.int32, xa.float16, xa.uint8, xa.int64]
UNARY = {
    "exp": xa.exp, "sin": xa.sin, "tanh": xa.tanh, "log1p": xa.log1p, "sqrt": xa.sqrt,
    "abs": xa.abs, "neg": lambda x: -x, "floor": xa.floor, "expm1": xa.expm1,
    "square": xa.square, "cbrt": xa.cbrt, "arctan": xa.arctan, "isnan": xa.isnan,
    "logical_not": xa.logical_not, "sign": xa.sign,
}
BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b, "max": xa.maximum, "min": xa.minimum,
    "arctan2": xa.arctan2, "hypot": xa.hypot, "logaddexp": xa.logaddexp,
    "lt": lambda a, b: a < b, "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b,
    "mod": lambda a, b: a % b, "and": lambda a, b: a & b,
}
CONSTANTS = [0.0, -0.0, 1.0, 2.5, -3.0, 0, 1, 7, -2, float("inf"), float("nan")]
CONVERT_TO = [xa.float32, xa.float64, xa.int32, xa.float16, xa.uint8, xa.bool_]


def run(program, inputs):
    """Evaluates a program (a list of steps) over input values; returns the outputs. A step
    whose op the dtype rules refuse (TypeError/ValueError/OverflowError) yields its first operand
    instead, in every mode alike."""
    vals = list(inputs)
    steps, outs = program
    for kind, name, args, extra in steps:
        ops = [vals[k % len(vals)] for k in args]
        try:
            if kind == "u":
                v = UNARY[name](ops[0])
            elif kind == "b":
                v = BINARY[name](ops[0], ops[1])
            elif kind == "c":          # op with a Python scalar constant
                v = BINARY[name](ops[0], extra) if not extra_first(name) else \
                    BINARY[name](extra, ops[0])
            elif kind == "where":
                v = xa.where(ops[0] > ops[1], ops[1], ops[2])
            elif kind == "select":
                p = ops[0] < 3
                v = xa.lax.select(p, ops[1], ops[1] * 2)
            else:                      # convert
                v = ops[0].astype(extra)
        except (TypeError, ValueError, OverflowError):
            v = ops[0]
        vals.append(v)
    return tuple(vals[len(inputs) + (k % len(steps))] if steps else vals[k % len(vals)]
                 for k in outs)


def extra_first(name):
    return name in ("sub", "div")


@st.composite
def programs(draw):
    n_in = draw(st.integers(1, 3))
    base = draw(st.sampled_from([(3, 4), (2, 1, 5), (0, 3), (1,), (7,), (4, 1), (), (2, 3)]))
    shapes = []
    for _ in range(n_in):
        s = list(base)
        if s and draw(st.booleans()):
            s = s[draw(st.integers(0, len(s))):]          # drop leading dims
        s = [1 if (d and draw(st.integers(0, 3)) == 0) else d for d in s]   # size-1 dims
        shapes.append(tuple(s))
    dtypes = [draw(st.sampled_from(DTYPES)) for _ in range(n_in)]
    layouts = [draw(st.sampled_from(LAYOUTS)) for _ in range(n_in)]
    n_steps = draw(st.integers(1, 12))
    steps = []
    for i in range(n_steps):
        n_avail = n_in + i
        pick = st.integers(0, n_avail - 1)
        kind = draw(st.sampled_from(["u", "u", "b", "b", "b", "c", "c", "where", "select",
                                     "convert"]))
        if kind == "u":
            steps.append(("u", draw(st.sampled_from(sorted(UNARY))), [draw(pick)], None))
        elif kind == "b":
            steps.append(("b", draw(st.sampled_from(sorted(BINARY))),
                          [draw(pick), draw(pick)], None))
        elif kind == "c":
            steps.append(("c", draw(st.sampled_from(["add", "sub", "mul", "div", "max",
                                                     "lt", "eq"])),
                          [draw(pick)], draw(st.sampled_from(CONSTANTS))))
        elif kind in ("where", "select"):
            steps.append((kind, kind, [draw(pick), draw(pick), draw(pick)], None))
        else:
            steps.append(("convert", "convert", [draw(pick)],
                          draw(st.sampled_from(CONVERT_TO))))
    n_out = draw(st.integers(1, 3))
    outs = [draw(st.integers(0, n_steps - 1)) for _ in range(n_out - 1)] + [n_steps - 1]
    seed = draw(st.integers(0, 2**16))
    return shapes, dtypes, layouts, (steps, outs), seed


@settings(max_examples=400, deadline=None)
@given(programs())
def test_random_dags_eager_lazy_jit_agree(case):
    shapes, dtypes, layouts, program, seed = case
    rng = np.random.default_rng(seed)
    arrays = [random_array(rng, s, d, specials=0.15) for s, d in zip(shapes, dtypes)]
    ts = [make_tensor(a, how) for a, how in zip(arrays, layouts)]
    eager = run(program, ts)
    with xa.lazy():
        lazy = run(program, ts)
    lazy = [xa.eval(v) for v in lazy] if len(lazy) == 1 else xa.eval(*lazy)
    if not isinstance(lazy, (tuple, list)):
        lazy = [lazy]
    jitted = xa.jit(lambda *xs: run(program, xs))(*ts)
    assert len(eager) == len(lazy) == len(jitted)
    info = {f"in{k}": a for k, a in enumerate(arrays)}
    for k, (e, lz, j) in enumerate(zip(eager, lazy, jitted)):
        want = to_np(e)
        assert_same(j, want, inputs=info)
        assert_same(lz, want, inputs=info)


@settings(max_examples=20, deadline=None)
@given(programs())
def test_random_dags_jit_twice_and_threads(case):
    """The cached executable gives the same bits again, with 1 and 2 threads."""
    shapes, dtypes, layouts, program, seed = case
    rng = np.random.default_rng(seed)
    arrays = [random_array(rng, s, d) for s, d in zip(shapes, dtypes)]
    ts = [make_tensor(a, how) for a, how in zip(arrays, layouts)]
    f = xa.jit(lambda *xs: run(program, xs))
    before = xa._core.get_num_threads()
    try:
        xa.set_num_threads(1)
        r1 = [to_np(x).copy() for x in f(*ts)]
        xa.set_num_threads(2)
        r2 = [to_np(x).copy() for x in f(*ts)]
    finally:
        xa._core.set_num_threads(before)
    assert f.trace_count == 1
    for a, b in zip(r1, r2):
        assert_same(a, b)
