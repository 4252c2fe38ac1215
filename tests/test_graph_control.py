"""Computations given as Python callables (xarr/_graph/control.py, seed 004): lax.map,
lax.cond (pred and index forms), lax.switch, lax.while_loop, lax.fori_loop, lax.call,
lax.optimization_barrier and lax.custom_call (a C function compiled here with gcc), eager
and under xa.jit; eager and jitted results agree bit for bit; no result aliases an input."""

import ctypes
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import xarr as xa
from conftest import assert_same, make_tensor, random_array, to_np

lax = xa.lax


def _f32(shape=(3, 4), seed=0, dt=xa.float32):
    rng = np.random.default_rng(seed)
    return xa.asarray(random_array(rng, shape, dt, specials=0.1))


def _shares(a, b):
    return np.shares_memory(to_np(a), to_np(b))


def i32(v):
    return xa.asarray(np.int32(v))


def both(fn, *args):
    """(eager result, jitted result) of fn(*args)."""
    return fn(*args), xa.jit(fn)(*args)


# ------------------------------------------------------------------------ map
def test_map_elementwise_several_operands():
    a, b, c = _f32(seed=1), _f32(seed=2), _f32(seed=3)
    fn = lambda x, y, z: lax.map(lambda u, v, w: u * v + xa.exp(-w), x, y, z)  # noqa: E731
    eager, jitted = both(fn, a, b, c)
    want = to_np(a * b + xa.exp(-c))
    assert_same(eager, want)
    assert_same(jitted, want)
    comp = xa.jit(fn).lower(a, b, c).compile()
    assert comp.kernel_count == 1


def test_map_dtype_change_inside():
    a = _f32(seed=4, dt=xa.float64)
    fn = lambda x: lax.map(lambda u: (u * 3).astype(xa.int32) > 2, x)  # noqa: E731
    eager, jitted = both(fn, a)
    want = to_np((a * 3).astype(xa.int32) > 2)
    assert_same(eager, want)
    assert_same(jitted, want)
    assert jitted.dtype == xa.bool_


def test_map_with_strided_and_colmajor_operands():
    rng = np.random.default_rng(5)
    x = random_array(rng, (4, 6), xa.float32)
    y = random_array(rng, (4, 6), xa.float32)
    a, b = make_tensor(x, "negstep"), make_tensor(y, "colmajor")
    fn = lambda p, q: lax.map(lambda u, v: xa.maximum(u, v) - u * 0.5, p, q)  # noqa: E731
    eager, jitted = both(fn, a, b)
    want = to_np(xa.maximum(a, b) - a * 0.5)
    assert_same(eager, want)
    assert_same(jitted, want)


def test_map_in_jit_fuses_with_neighbours():
    a = _f32(seed=6)
    fn = lambda x: lax.map(lambda u: xa.sin(u) * 2, x * 3) + 1  # noqa: E731
    comp = xa.jit(fn).lower(a).compile()
    assert comp.kernel_count == 1
    assert "map(" not in comp.as_text()
    assert_same(xa.jit(fn)(a), to_np(xa.sin(a * 3) * 2 + 1))


def test_map_text_before_optimization():
    a = _f32(seed=7)
    t = xa.jit(lambda x: lax.map(lambda u: u * u, x)).lower(a).as_text()
    assert "map_computation" in t
    assert "map(p0), dimensions={0,1}, to_apply=map_computation" in t


def test_map_errors():
    a = _f32()
    with pytest.raises(ValueError, match=r"shape"):
        lax.map(lambda u, v: u + v, a, xa.ones(4, xa.float32))
    with pytest.raises(TypeError, match="elementwise"):
        lax.map(lambda u: u.reshape(1), a)
    with pytest.raises(TypeError, match="enclosing"):
        xa.jit(lambda x: lax.map(lambda u: u + x, x))(a)
    with pytest.raises(TypeError, match="one scalar"):
        lax.map(lambda u: (u, u), a)
    with pytest.raises(ValueError, match="dimensions"):
        lax.map(lambda u: u, a, dimensions=(0,))
    with pytest.raises(TypeError):
        lax.map(lambda u: u)
    # jitted errors come at trace time too
    with pytest.raises(ValueError, match="shape"):
        xa.jit(lambda x, y: lax.map(lambda u, v: u * v, x, y))(a, xa.ones((4, 3), xa.float32))


# ------------------------------------------------------------------------ cond / switch
@pytest.mark.parametrize("pred", [True, False])
def test_cond_pred_form(pred):
    a, b = _f32(seed=8), _f32(seed=9)

    def fn(p, x, y):
        return lax.cond(p, lambda u, v: (u * v, u - v), lambda u, v: (u + v, xa.exp(v)), x, y)

    p = xa.asarray(np.bool_(pred))
    eager, jitted = both(fn, p, a, b)
    want = (a * b, a - b) if pred else (a + b, xa.exp(b))
    for e, j, w in zip(eager, jitted, want):
        assert_same(e, to_np(w))
        assert_same(j, to_np(w))
    f = xa.jit(fn)
    f(xa.asarray(np.bool_(True)), a, b)
    f(xa.asarray(np.bool_(False)), a, b)
    assert f.trace_count == 1          # both branches are in the one compiled module


@pytest.mark.parametrize("index, taken", [(0, 0), (1, 1), (2, 2), (3, 2), (100, 2),
                                          (-1, 2), (-7, 2)])
def test_cond_index_form_out_of_range_runs_last(index, taken):
    a = _f32(seed=10)
    branches = [lambda u: u + 1, lambda u: u * 2, lambda u: -u]

    def fn(i, x):
        return lax.cond(i, branches, x)

    eager, jitted = both(fn, i32(index), a)
    want = to_np(branches[taken](a))
    assert_same(eager, want)
    assert_same(jitted, want)


@pytest.mark.parametrize("index, taken", [(0, 0), (1, 1), (2, 2), (3, 2), (99, 2),
                                          (-1, 0), (-50, 0)])
def test_switch_clamps_like_jax(index, taken):
    a = _f32(seed=11)
    branches = [lambda u: u + 1, lambda u: u * 2, lambda u: -u]
    fn = lambda i, x: lax.switch(i, branches, x)  # noqa: E731
    eager, jitted = both(fn, i32(index), a)
    want = to_np(branches[taken](a))
    assert_same(eager, want)
    assert_same(jitted, want)
    assert_same(lax.switch(index, branches, a), want)     # a Python int index


def test_cond_captures_outer_values():
    a, b = _f32(seed=12), _f32(seed=13)

    def fn(p, x, y):
        s = y * 2
        return lax.cond(p, lambda u: u + s, lambda u: u - s, x)

    for pv in (True, False):
        eager, jitted = both(fn, xa.asarray(np.bool_(pv)), a, b)
        want = to_np(a + b * 2 if pv else a - b * 2)
        assert_same(eager, want)
        assert_same(jitted, want)


def test_cond_branch_type_mismatch():
    a = _f32()
    p = xa.asarray(np.bool_(True))
    with pytest.raises(TypeError, match="branch 1"):
        xa.jit(lambda q, x: lax.cond(q, lambda u: u, lambda u: u.astype(xa.float64), x))(p, a)
    with pytest.raises(TypeError, match="same structure"):
        xa.jit(lambda q, x: lax.cond(q, lambda u: u, lambda u: (u, u), x))(p, a)
    with pytest.raises(TypeError, match="same structure"):
        xa.jit(lambda q, x: lax.cond(q, lambda u: u, lambda u: u.reshape(12), x))(p, a)


def test_cond_argument_errors():
    a = _f32()
    with pytest.raises(TypeError, match="bool"):
        lax.cond(i32(1), lambda u: u, lambda u: u, a)
    with pytest.raises(TypeError, match="integer"):
        lax.cond(xa.asarray(np.float32(1)), [lambda u: u], a)
    with pytest.raises(TypeError, match="scalar"):
        lax.cond(xa.asarray(np.array([True, False])), lambda u: u, lambda u: u, a)


def test_cond_result_not_aliased():
    a = _f32(seed=14)
    fn = lambda p, x: lax.cond(p, lambda u: u, lambda u: u.T.T, x)  # noqa: E731
    for pv in (True, False):
        eager, jitted = both(fn, xa.asarray(np.bool_(pv)), a)
        assert_same(eager, to_np(a))
        assert_same(jitted, to_np(a))
        assert not _shares(jitted, a)
        if pv:                      # eagerly u.T.T is a view, as any eager view op
            assert eager is not a and not _shares(eager, a)


def test_cond_view_result_not_aliased():
    a = _f32(seed=15)
    fn = lambda p, x: lax.cond(p, lambda u: u.T, lambda u: u.T + 1, x)  # noqa: E731
    r = xa.jit(fn)(xa.asarray(np.bool_(True)), a)
    assert_same(r, to_np(a).T)
    assert not _shares(r, a)


# ------------------------------------------------------------------------ while / fori
def test_while_tuple_state():
    a = _f32(seed=16, dt=xa.float64)

    def fn(x):
        def body(s):
            i, v, acc = s
            return i + 1, v * 0.5, acc + v
        return lax.while_loop(lambda s: s[0] < 5, body, (i32(0), x, x * 0))

    eager, jitted = both(fn, a)
    assert int(eager[0]) == 5 and int(jitted[0]) == 5
    for e, j in zip(eager, jitted):
        assert_same(e, to_np(j))
    v, acc = a, a * 0
    for _ in range(5):
        v, acc = v * 0.5, acc + v
    assert_same(jitted[2], to_np(acc))


def test_while_dict_state_and_closure_captures():
    a, b = _f32(seed=17), _f32(seed=18)

    def fn(x, y, n):
        scale = y * 0.25                  # outer traced values used inside: captures

        def cond(s):
            return s["i"] < n

        def body(s):
            return {"i": s["i"] + 1, "v": s["v"] + scale}
        return lax.while_loop(cond, body, {"i": i32(0), "v": x})

    eager, jitted = both(fn, a, b, i32(4))
    want = a
    for _ in range(4):
        want = want + b * 0.25
    assert_same(eager["v"], to_np(want))
    assert_same(jitted["v"], to_np(want))
    t = xa.jit(fn).lower(a, b, i32(4)).as_text()
    assert re.search(r"while\(.*\), condition=while_condition\.\d+, body=while_body\.\d+", t)


def test_while_body_type_mismatch():
    a = _f32()
    bad = lambda x: lax.while_loop(lambda s: s[0] < 3,  # noqa: E731
                                   lambda s: (s[0] + 1, s[1].astype(xa.float64)), (i32(0), x))
    with pytest.raises(TypeError, match="must match"):
        xa.jit(bad)(a)
    with pytest.raises(TypeError, match="must match"):
        bad(a)
    with pytest.raises(TypeError, match="bool scalar"):
        xa.jit(lambda x: lax.while_loop(lambda s: s, lambda s: s, x))(a)
    bad_struct = lambda x: lax.while_loop(lambda s: s[0] < 3,  # noqa: E731
                                          lambda s: (s[0] + 1,), (i32(0), x))
    with pytest.raises(TypeError, match="must match"):
        xa.jit(bad_struct)(a)


def test_while_zero_iterations_returns_copy():
    a = _f32(seed=19)
    fn = lambda x: lax.while_loop(lambda s: s[0] < 0, lambda s: (s[0] + 1, s[1] * 2),  # noqa
                                  (i32(0), x))
    eager, jitted = both(fn, a)
    for r in (eager, jitted):
        assert int(r[0]) == 0
        assert_same(r[1], to_np(a))
        assert r[1] is not a
        assert not _shares(r[1], a)
    # one tensor state, eager
    r = lax.while_loop(lambda s: xa.asarray(np.bool_(False)), lambda s: s + 1, a)
    assert not _shares(r, a)


def test_while_carried_view_not_aliased():
    a = xa.asarray(np.arange(9, dtype=np.float32).reshape(3, 3))
    fn = lambda x: lax.fori_loop(0, 3, lambda i, v: v.T, x)  # noqa: E731
    r = xa.jit(fn)(a)
    assert_same(r, np.arange(9, dtype=np.float32).reshape(3, 3).T)
    assert not _shares(r, a)


@pytest.mark.parametrize("lo, hi", [(0, 5), (2, 7), (3, 3), (5, 2)])
def test_fori_loop_eager_and_jitted(lo, hi):
    a = _f32(seed=20)

    def fn(x):
        return lax.fori_loop(lo, hi, lambda i, v: v * 1.5 + i.astype(xa.float32), x)

    eager, jitted = both(fn, a)
    want = a
    for i in range(lo, hi):
        want = want * 1.5 + np.float32(i)
    assert_same(eager, to_np(want))
    assert_same(jitted, to_np(want))
    if hi <= lo:
        assert not _shares(eager, a) and not _shares(jitted, a)


def test_fori_loop_traced_bounds_and_tuple_state():
    a = _f32(seed=21, dt=xa.int32)

    def fn(x, n):
        return lax.fori_loop(i32(0), n, lambda i, s: (s[0] + i, s[1] * 2), (x, x))

    eager, jitted = both(fn, a, i32(4))
    for e, j in zip(eager, jitted):
        assert_same(e, to_np(j))
    assert_same(jitted[0], to_np(a + 6))


def test_fori_counter_is_int32_in_both_modes():
    seen = []

    def body(i, v):
        seen.append((type(i).__name__, str(i.dtype)))
        return v + 1
    a = _f32()
    lax.fori_loop(0, 1, body, a)
    xa.jit(lambda x: lax.fori_loop(0, 1, body, x))(a)
    assert [d for _, d in seen] == ["int32", "int32"]


# ------------------------------------------------------------------------ call
def test_call_eager_and_jitted():
    a, b = _f32(seed=22), _f32(seed=23)

    def fn(x, y):
        return lax.call(lambda u, v: (u * v, xa.sin(u) + v), x, y)

    eager, jitted = both(fn, a, b)
    for e, j in zip(eager, jitted):
        assert_same(j, to_np(e))
    t = xa.jit(fn).lower(a, b).as_text()
    assert re.search(r"call\(p0, p1\), to_apply=called_computation\.\d+", t)


def test_call_identity_and_views_not_aliased():
    a = _f32(seed=24)
    for f in (lambda u: u, lambda u: u.T, lambda u: u.reshape(12)):
        fn = lambda x, f=f: lax.call(f, x)  # noqa: E731
        eager, jitted = both(fn, a)
        assert_same(jitted, to_np(f(a)))
        assert not _shares(jitted, a)
    assert not _shares(lax.call(lambda u: u, a), a)


def test_call_captures():
    a, b = _f32(seed=25), _f32(seed=26)
    fn = lambda x, y: lax.call(lambda u: u * y, x + 1)  # noqa: E731
    eager, jitted = both(fn, a, b)
    assert_same(jitted, to_np(eager))


# ------------------------------------------------------------------------ barrier
def test_optimization_barrier_blocks_fusion():
    a = _f32(seed=27)
    plain = lambda x: xa.exp(x * 2) + 1  # noqa: E731
    barred = lambda x: xa.exp(lax.optimization_barrier(x * 2)) + 1  # noqa: E731
    assert xa.jit(plain).lower(a).compile().kernel_count == 1
    comp = xa.jit(barred).lower(a).compile()
    assert comp.kernel_count == 2
    assert "opt-barrier(" in comp.as_text()
    eager, jitted = both(barred, a)
    assert_same(eager, to_np(plain(a)))
    assert_same(jitted, to_np(plain(a)))


def test_optimization_barrier_tuple_and_cse():
    a = _f32(seed=28)

    def fn(x):
        u, v = lax.optimization_barrier((x * 2, x + 1))
        return u + v, xa.exp(x) + xa.exp(x)

    eager, jitted = both(fn, a)
    for e, j in zip(eager, jitted):
        assert_same(j, to_np(e))


def test_optimization_barrier_result_not_aliased():
    a = _f32(seed=29)
    r = xa.jit(lambda x: lax.optimization_barrier(x))(a)
    assert_same(r, to_np(a))
    assert not _shares(r, a)
    r = xa.jit(lambda x: lax.optimization_barrier((x, x * 2)))(a)
    assert not _shares(r[0], a)


# ------------------------------------------------------------------------ custom call
C_SOURCE = r"""
#include <stddef.h>
#define N 12
extern "C" void add_f32(void* out, void** in) {
    float* o = (float*)out; const float* a = (const float*)in[0];
    const float* b = (const float*)in[1];
    for (size_t i = 0; i < N; ++i) o[i] = a[i] + b[i];
}
extern "C" void sum_diff_f32(void* out, void** in) {
    void** outs = (void**)out;
    float* s = (float*)outs[0]; float* d = (float*)outs[1];
    const float* a = (const float*)in[0]; const float* b = (const float*)in[1];
    for (size_t i = 0; i < N; ++i) { s[i] = a[i] + b[i]; d[i] = a[i] - b[i]; }
}
"""


@pytest.fixture(scope="module")
def clib(tmp_path_factory):
    cc = shutil.which("gcc") or shutil.which("g++") or shutil.which("cc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C++ compiler found")
    d = tmp_path_factory.mktemp("custom_call")
    src = d / "cc.cpp"
    src.write_text(C_SOURCE)
    so = d / "libcc.so"
    res = subprocess.run([cc, "-O1", "-shared", "-fPIC", "-o", str(so), str(src)],
                         capture_output=True, text=True)
    if res.returncode != 0:
        pytest.skip(f"compiler failed: {res.stderr[:200]}")
    return ctypes.CDLL(os.fspath(so))


def _cc_inputs():
    rng = np.random.default_rng(30)
    x = random_array(rng, (3, 4), xa.float32, specials=0)
    y = random_array(rng, (3, 4), xa.float32, specials=0)
    return x, y


@pytest.mark.parametrize("how", ["c", "colmajor", "negstep"])
def test_custom_call_eager_and_jitted(clib, how):
    x, y = _cc_inputs()
    a, b = make_tensor(x, how), make_tensor(y, "c")
    fn = lambda u, v: lax.custom_call(clib.add_f32, u, v, result_shape="f32[3,4]")  # noqa
    eager, jitted = both(fn, a, b)
    assert_same(eager, x + y)
    assert_same(jitted, x + y)
    t = xa.jit(fn).lower(a, b).as_text()
    assert 'custom-call(p0, p1), custom_call_target="add_f32"' in t


def test_custom_call_fused_around(clib):
    x, y = _cc_inputs()
    a, b = xa.asarray(x), xa.asarray(y)

    def fn(u, v):
        s = lax.custom_call(clib.add_f32, u * 2, v, result_shape=((3, 4), xa.float32))
        return xa.exp(s * 0.01) + u

    eager, jitted = both(fn, a, b)
    assert_same(jitted, to_np(eager))
    assert_same(eager, to_np(xa.exp(xa.asarray(x * 2 + y) * 0.01) + a))
    assert xa.jit(fn).lower(a, b).compile().kernel_count == 2


def test_custom_call_tuple_result(clib):
    x, y = _cc_inputs()
    a, b = xa.asarray(x), xa.asarray(y)
    fn = lambda u, v: lax.custom_call(clib.sum_diff_f32, u, v,  # noqa: E731
                                      result_shape="(f32[3,4], f32[3,4])")
    eager, jitted = both(fn, a, b)
    for r in (eager, jitted):
        assert len(r) == 2
        assert_same(r[0], x + y)
        assert_same(r[1], x - y)


def test_custom_call_registered_name(clib):
    lax.register_custom_call_target("xarr_test_add", clib.add_f32)
    x, y = _cc_inputs()
    a, b = xa.asarray(x), xa.asarray(y)
    fn = lambda u, v: lax.custom_call("xarr_test_add", u, v, result_shape="f32[3,4]")  # noqa
    eager, jitted = both(fn, a, b)
    assert_same(eager, x + y)
    assert_same(jitted, x + y)
    with pytest.raises(ValueError, match="no target"):
        lax.custom_call("no_such_target", a, result_shape="f32[3,4]")
    with pytest.raises(TypeError, match="ctypes"):
        lax.custom_call(lambda o, i: None, a, result_shape="f32[3,4]")
    with pytest.raises(TypeError, match="result_shape"):
        lax.custom_call(clib.add_f32, a, b, result_shape=12)

