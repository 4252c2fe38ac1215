"""Item and augmented assignment on traced values (xarr/_ops/update.py, Traced.__setitem__):
NumPy-style mutating code runs under xa.jit and xa.lazy with the results NumPy gives
eagerly - slices (any step), ints, masks, integer arrays with repeats, views, overlapping
slices, repeated writes."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import xarr as xa
from conftest import assert_same


def run_all(fn, *arrays):
    """fn on NumPy copies (the reference), under xa.jit, and inside xa.lazy."""
    want = fn(*[a.copy() for a in arrays])
    got_jit = xa.jit(fn)(*[xa.asarray(a.copy()) for a in arrays])
    with xa.lazy():
        got_lazy = fn(*[xa.positive(xa.asarray(a.copy())) if a.dtype != bool else
                        xa.asarray(a.copy()) for a in arrays])        # real lazy values
    return want, got_jit, got_lazy


def check(fn, *arrays):
    want, got_jit, got_lazy = run_all(fn, *arrays)
    assert_same(got_jit, want)
    assert_same(got_lazy, want)


def test_diffusion_step_and_stencils():
    def step(u):
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.1 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2]
                                                 + u[1:-1, 2:] - 4 * u[1:-1, 1:-1])
        u[0, :] = 0.0
        u[:, -1] = 1.0
        return u
    check(step, np.random.default_rng(0).random((9, 11)))

    def many(u):
        for _ in range(5):
            u[1:-1] = 0.5 * (u[:-2] + u[2:])      # overlapping reads and writes
        return u
    check(many, np.random.default_rng(1).random(20))


def test_masks_arrays_and_repeats():
    def f(x, m):
        x[x > 0.5] = -1.0
        x[m] = 2.0
        x[[0, 3, 3, -1]] = np.array([7.0, 8.0, 9.0, 10.0])   # repeated index: last wins
        x[np.array([1, 1])] += 5                               # NumPy: += applied once
        return x
    x = np.random.default_rng(2).random(8)
    m = np.array([True, False, True, False, False, True, False, False])
    check(f, x, m)

    def rows(a, m):
        a[m] = a[0]                      # a row broadcast over the selected rows
        a[m, 1] = -3
        return a
    check(rows, np.random.default_rng(3).random((5, 3)), np.array([0, 1, 1, 0, 1], bool))


def test_views_write_through():
    def f(u):
        w = u[1:5]
        w[0] = 100.0
        w += 1.0
        v = w[::2]                        # a view of a view
        v[...] = -v
        u[4] = 7.0                        # the base changes, then the view is written
        w[-1] *= 2.0
        return u
    check(f, np.arange(8.0))


def test_strided_and_negative_steps():
    def f(x):
        x[::3] = 1.0
        x[::-2] += 10.0
        x[5:1:-1] = np.arange(4.0)
        x[..., None][2] = 42.0
        return x
    check(f, np.zeros(12))

    def g(a):
        a[1::2, ::-3] = 5
        a[:, 0] = a[:, -1]
        a[-1] = 0
        return a
    check(g, np.arange(35).reshape(5, 7).astype(np.int32))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_basic_keys_match_numpy(data):
    shape = tuple(data.draw(st.lists(st.integers(1, 6), min_size=1, max_size=3)))
    key = []
    for n in shape:
        if data.draw(st.booleans()):
            key.append(data.draw(st.integers(-n, n - 1)))
        else:
            start = data.draw(st.none() | st.integers(-n - 1, n + 1))
            stop = data.draw(st.none() | st.integers(-n - 1, n + 1))
            step = data.draw(st.sampled_from([None, 1, 2, 3, -1, -2]))
            key.append(slice(start, stop, step))
    key = tuple(key)
    a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    region = a[key].shape
    value = data.draw(st.sampled_from(["scalar", "full", "row"]))
    v = -1.5 if value == "scalar" else (np.arange(np.prod(region)).reshape(region) + 100.0
                                        if value == "full" else
                                        (np.arange(region[-1]) + 50.0 if region else 3.0))

    def f(x):
        x[key] = v
        return x
    check(f, a)


def test_dtype_rules_and_errors():
    def cast(x):
        x[0] = 2.7                         # cast to the target's dtype, as NumPy
        return x
    check(cast, np.arange(4, dtype=np.int32))

    def bad_inplace(x):
        x += 1.5
        return x
    with pytest.raises(TypeError, match="same_kind"):
        xa.jit(bad_inplace)(xa.arange(4))

    def bad_shape(x):
        x[1:3] = xa.ones(5)
        return x
    with pytest.raises(ValueError, match="broadcast"):
        xa.jit(bad_shape)(xa.zeros(4))

    def data_dependent(x, m):
        x[m] = xa.asarray([1.0, 2.0])
        return x
    with pytest.raises(TypeError, match="data-dependent"):
        xa.jit(data_dependent)(xa.zeros(4), xa.asarray(np.array([1, 0, 1, 0], bool)))

    def control_flow(x):
        if x[0] > 0:
            x[0] = 1.0
        return x
    with pytest.raises(TypeError, match="fori_loop"):
        xa.jit(control_flow)(xa.ones(3))


def test_jit_arguments_are_not_changed_for_the_caller():
    def f(x):
        x[0] = 5.0
        return x * 2
    t = xa.zeros(3)
    r = xa.jit(f)(t)
    assert_same(r, np.array([10.0, 0.0, 0.0]))
    assert_same(t, np.zeros(3))


def test_basic_slices_lower_to_dynamic_update_slice():
    def f(u):
        u[1:-1] = u[2:] + u[:-2]
        return u
    text = xa.jit(f).lower(xa.zeros(8)).as_text()
    assert "dynamic-update-slice" in text or "dynamic_update_slice" in text


def test_traced_real_imag_iteration_and_sequences():
    z = np.array([1 + 2j, -3 + 0.5j])
    f = xa.jit(lambda v: v.real * 2 + v.imag)
    assert_same(f(xa.asarray(z)), z.real * 2 + z.imag)
    rows = xa.jit(lambda p: sum(x * y for x, y in p))       # iteration unrolls the rows
    p = np.arange(6.0).reshape(3, 2)
    assert_same(rows(xa.asarray(p)), np.float64(sum(x * y for x, y in p)))
    seq = xa.jit(lambda s: xa.array([s[0] * 2, 1, s[1] - s[0]]))
    assert_same(seq(xa.asarray([1.0, 5.0])), np.array([2.0, 1.0, 4.0]))
    with pytest.raises(ValueError, match="different shapes"):
        xa.jit(lambda s: xa.array([s, s[0]]))(xa.ones(2))


def test_masked_in_place_update():
    def f(v, p):
        out = (p < 0.2) | (p > 0.8)
        v[out] *= -1.0
        v[p > 0.5] += 2
        return v
    rng = np.random.default_rng(4)
    check(f, rng.random((6, 2)), rng.random((6, 2)))

    def bad(v):
        return v[v > 0].sum()
    with pytest.raises(TypeError, match="data-dependent"):
        xa.jit(bad)(xa.ones(3))

    def bad_int(v):
        v[v > 0] += 1.5
        return v
    with pytest.raises(TypeError, match="same_kind"):
        xa.jit(bad_int)(xa.arange(3))


def test_the_benchmark_kernels_trace():
    """benchmarks/kernels.py (issue 13's scientific kernels, written as NumPy code) runs
    unchanged under xa.jit and matches NumPy; the two that convert traced values to Python
    floats (a value-dependent `if`, `float(acc)`) stay refused with the clear error."""
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "kernels.py"
    spec = importlib.util.spec_from_file_location("xarr_bench_kernels", path)
    kernels = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kernels)
    refused = set()
    for name, (setup, fn) in kernels.KERNELS.items():
        np_args = setup(np, np.random.default_rng(0))
        xa_args = tuple(xa.asarray(a) if isinstance(a, np.ndarray) else a for a in np_args)
        want = fn(np, *[a.copy() if isinstance(a, np.ndarray) else a for a in np_args])
        try:
            got = xa.jit(lambda *a, fn=fn: fn(xa, *a))(*xa_args)
        except xa._graph.trace.TracerConversionError:
            refused.add(name)
            continue
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-9,
                                   err_msg=name)
    assert refused == {"row_norms_loop", "row_iteration"}


def test_review_cases_elements_views_and_nesting():
    def swap(x):
        t = x[0]                      # an element is a copy, as NumPy's scalar
        x[0] = x[2]
        x[2] = t
        return x
    check(swap, np.array([1.0, 2.0, 3.0]))

    def accumulate(x):
        a = x[0]
        for i in range(1, 3):
            a += x[i]
        return xa.stack([a, x[0]]) if not isinstance(x, np.ndarray) else np.stack([a, x[0]])
    check(accumulate, np.array([1.0, 2.0, 3.0]))

    def rows(x):
        for v in x:                   # 0-d rows of a 1-d x are copies: x unchanged
            v *= 2
        return x
    check(rows, np.array([1.0, 2.0]))

    def stale_view(x):
        w = x[1:4]
        x[2] = 5.0                    # the view sees its base's later write
        return w * 1
    check(stale_view, np.zeros(5))
    assert_same(xa.jit(lambda x: (x.__setitem__(1, 5.0), x[1:3])[1])(xa.zeros(4)),
                np.array([5.0, 0.0]))

    def loop(x):
        w = x[1:]
        x = xa.lax.fori_loop(0, 3, lambda i, c: c + 1.0, x)
        return w * 1                  # w's base was not written: no re-read in the body
    assert_same(xa.jit(loop)(xa.zeros(3)), np.zeros(2))

    with pytest.raises(TypeError, match="reshape"):
        xa.jit(lambda x: (x.T.__setitem__(0, 5.0), x)[1])(xa.zeros((2, 2)))

    inner = xa.jit(lambda x: (x.__setitem__(0, 5.0), x * 1)[1])
    outer = xa.jit(lambda x: inner(x) + x)        # the inner write stays inner's
    assert_same(outer(xa.zeros(2)), np.array([5.0, 0.0]))

    f32 = xa.jit(lambda x: xa.array([x[0], 1.5]))(xa.ones(2, dtype=xa.float32))
    assert f32.dtype == np.array([np.float32(1), 1.5]).dtype
    with xa.lazy():
        lz = xa.positive(xa.zeros(4))
        with pytest.raises(IndexError, match="out of bounds"):
            lz[np.array([5])] = 1.0


def test_scalar_values_stay_scalars_in_the_program():
    """x[mask] = 0.9 and a captured xa.broadcast_to of a scalar are a scalar constant and
    a broadcast: no array of x's size is baked into the program (fusions read the scalar
    from a register), and the results are NumPy's."""
    big = xa.broadcast_to(xa.asarray(np.float64(0.25)), (1000,))
    spread = xa.broadcast_to(xa.asarray(np.arange(3.0)), (1000, 3))

    def f(a):
        a = a.copy()
        a[a > 0.9] = 0.9
        a[a < 0.1] = 7.0
        return a + big, a[:, None] * spread

    x = np.random.default_rng(0).random(1000)
    text = xa.jit(f).lower(xa.asarray(x)).as_text()
    assert "constant({...})" not in text    # (f64[3] arange prints its values)
    want = x.copy()
    want[want > 0.9] = 0.9
    want[want < 0.1] = 7.0
    got0, got1 = xa.jit(f)(xa.asarray(x))
    np.testing.assert_array_equal(np.asarray(got0), want + 0.25)
    np.testing.assert_array_equal(np.asarray(got1), want[:, None] * np.arange(3.0))


def _in_place_updates(compiled):
    return sum(fn.__qualname__.startswith("_dus_in_place")
               for fn, _, _ in compiled.executable.steps)


def test_updates_write_in_place_only_when_the_old_value_is_dead():
    """A dynamic_update_slice writes into its operand's buffer when nothing reads that
    buffer afterwards (the 20 steps of a diffusion loop); a slice of the old value read
    after the update, an update that is a view of the operand, a parameter's buffer and
    the result's buffer keep the copying step."""
    lax = xa.lax
    x = xa.asarray(np.arange(12.0))

    def loop(v):
        u = v * 2.0
        for _ in range(5):
            u[1:-1] = u[:-2] + u[2:]
        return u
    c = xa.jit(loop).lower(x).compile()
    assert _in_place_updates(c) >= 4
    want = np.arange(12.0) * 2
    for _ in range(5):
        want[1:-1] = want[:-2] + want[2:]
    np.testing.assert_array_equal(np.asarray(c(x)), want)
    np.testing.assert_array_equal(np.asarray(x), np.arange(12.0))

    def old_value_read_later(v):
        u = v * 2.0
        s = lax.slice(u, (0,), (3,))
        w = lax.dynamic_update_slice(u, xa.ones(3), (0,))
        return w, s * 1.0

    def update_is_a_view(v):
        u = v * 2.0
        return lax.dynamic_update_slice(u, lax.rev(lax.slice(u, (2,), (6,)), (0,)), (0,))

    def of_a_parameter(v):
        return lax.dynamic_update_slice(v, xa.ones(3), (4,))
    for f in (old_value_read_later, update_is_a_view, of_a_parameter):
        c = xa.jit(f).lower(x).compile()
        assert _in_place_updates(c) == 0, f.__name__
    w, s = xa.jit(old_value_read_later)(x)
    np.testing.assert_array_equal(np.asarray(s), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(np.asarray(w)[:4], [1.0, 1.0, 1.0, 6.0])
    got = np.asarray(xa.jit(update_is_a_view)(x))
    np.testing.assert_array_equal(got[:5], [10.0, 8.0, 6.0, 4.0, 8.0])
    xa.jit(of_a_parameter)(x)
    np.testing.assert_array_equal(np.asarray(x), np.arange(12.0))
