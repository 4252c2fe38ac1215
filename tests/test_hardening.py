"""Regression tests for issue 11's hostile-input table: each test is named after what it
guards, and its docstring gives the table row. They check exceptions (type and a message
naming the op, argument and values), results against NumPy, and that nothing hangs,
crashes or grows without bound."""

import gc
import time
import warnings

import numpy as np
import pytest

import xarr as xa
from conftest import assert_same, not_under_asan
from xarr._graph import jit as _jit
from xarr._graph import lazy as _lazy
from xarr._graph.trace import LazyGraph


# ------------------------------------------------------------------ threads (row 1)
def test_thread_counts_no_machine_can_run_are_refused():
    """Row 1: set_num_threads(10**6) crashed in libgomp; now a ValueError with the range."""
    before = xa.get_num_threads()
    with pytest.raises(ValueError, match=r"set_num_threads: 1000000 threads requested"):
        xa.set_num_threads(10**6)
    with pytest.raises(ValueError, match="set_num_threads"):
        xa.set_num_threads(0)
    assert xa.get_num_threads() == before
    assert float((xa.ones((1000, 1000)) + 1).sum()) == 2e6


# --------------------------------------------- C++ exceptions, huge reductions (row 2)
def test_huge_broadcast_sums_raise_memory_error_naming_the_shape():
    """Row 2: an uncaught std::bad_alloc aborted the process; now MemoryError."""
    for shape in [(2**62,), (2**31, 2**31)]:
        v = xa.broadcast_to(xa.ones(()), shape)
        with pytest.raises(MemoryError, match=r"reduce sum: .*shape \(" + str(shape[0])):
            v.sum()
    with pytest.raises(MemoryError, match="reduce sum"):
        xa.broadcast_to(xa.ones((1,)), (2**62,)).sum(axis=0)


def test_max_min_any_all_of_huge_broadcasts_computed_without_materializing():
    """Row 2: max/min/and/or are idempotent, so a broadcast (stride-0) reduced dim is read
    once: the result of 2**62 elements comes at once."""
    v = xa.broadcast_to(xa.asarray([3.0, -1.0, 2.0]), (2**60, 3))
    assert float(v.max()) == 3.0 and float(v.min()) == -1.0
    assert_same(v.max(axis=0), np.array([3.0, -1.0, 2.0]))
    b = xa.broadcast_to(xa.asarray([True, False]), (2**61, 2))
    assert bool(b.any()) and not bool(b.all())
    assert_same(b.all(axis=0), np.array([True, False]))


# ------------------------------------------------------------- lazy at scale (row 3)
def _lazy_chain(n, step=1.0):
    b = xa.ones((4,))
    with xa.lazy():
        for _ in range(n):
            b = b + step
    return b


@not_under_asan
def test_lazy_materialization_is_linear_in_graph_size(monkeypatch):
    """Row 3 / deliverable 6: materializing was quadratic (4000 steps: 10 s). Without the
    automatic flush, 8x the nodes costs at most 12x the time (best of 5 and of 3: the
    small graph's time is the noisier). Both sizes are past the CPU caches (below ~2000
    nodes a graph's objects stay in cache and each node costs less). Measured on an AVX2
    EPYC: 6x - 8x."""
    monkeypatch.setattr(LazyGraph, "FLUSH_DEPTH", 10**9)

    def best(n, repeat):
        times = []
        for k in range(repeat):
            b = _lazy_chain(n, 1.0 + k)        # new constants: no compile-cache hit
            t = time.perf_counter()
            out = np.asarray(b)
            times.append(time.perf_counter() - t)
            assert out[0] == 1.0 + n * (1.0 + k)
        return min(times)

    small, large = best(3000, 5), best(24000, 3)
    assert large <= 12 * small, (f"materializing 24000 lazy nodes took {large:.3f} s, "
                                 f"3000 took {small:.3f} s: {large / small:.1f}x")


def test_long_lazy_loops_flush_automatically_with_the_same_results():
    """Deliverable 6: a time-stepping loop of 3.5 flush depths under lazy computes in
    bounded pieces (no value depends on more than FLUSH_DEPTH pending instructions) and
    gives the eager loop's bits."""
    n = int(3.5 * LazyGraph.FLUSH_DEPTH)
    x0 = xa.asarray(np.linspace(-1.0, 1.0, 33))
    eager = x0
    for _ in range(n):
        eager = eager * 0.999 + xa.sin(eager) * 1e-3
    lazy = x0
    with xa.lazy():
        for _ in range(n):
            lazy = lazy * 0.999 + xa.sin(lazy) * 1e-3
            assert lazy.instr.depth <= LazyGraph.FLUSH_DEPTH
    assert_same(lazy, np.asarray(eager))


def test_lazy_scalar_constants_are_shared_but_keep_sign_and_type():
    """The lazy graph shares a Python scalar's constant between ops; 0.0 and -0.0, 1 and
    1.0 and True stay distinct."""
    x = xa.asarray([-0.0, 2.0])
    with xa.lazy():
        a, b = x + 0.0, x + -0.0
        c, d = xa.asarray([1], dtype=xa.int8) + 1, xa.asarray([1.5]) * 1
    assert_same(a, np.array([-0.0, 2.0]) + 0.0)
    assert_same(b, np.array([-0.0, 2.0]) + -0.0)
    assert_same(c, np.array([2], dtype=np.int8))
    assert_same(d, np.array([1.5]))


def test_fusion_the_executor_cannot_lower_runs_op_by_op():
    """A fused DAG needing more than 16 live temporaries (LoweringError) ran into 'no
    executor for convert'; it now runs instruction by instruction with the same bits."""
    def f(x):
        vals = [x * (k + 1.5) for k in range(24)]        # 24 values live at once
        acc = xa.astype(vals[0], xa.float32)
        for v in vals[1:]:
            acc = acc + xa.astype(xa.sin(v), xa.float32)
        return acc + sum(vals)
    x = xa.asarray(np.linspace(0.0, 1.0, 50))
    eager = f(x)
    assert_same(xa.jit(f)(x), np.asarray(eager))
    with xa.lazy():
        lz = f(x)
    assert_same(lz, np.asarray(eager))


# ------------------------------------------------------------ slice arithmetic (row 4)
@pytest.mark.parametrize("key", [slice(None, None, -2**63), slice(None, None, -2**63 + 1),
                                 slice(1, None, 2**63 - 1), slice(None, None, 2**63),
                                 slice(-2**70, 2**70, 3), slice(2**70, -2**70, -2)])
def test_slices_with_extreme_steps_match_numpy(key):
    """Row 4: slice-length arithmetic overflowed (xa.arange(3)[::-2**63] was [])."""
    a = np.arange(12).reshape(3, 4)
    assert_same(xa.asarray(a)[key], a[key])
    assert_same(xa.arange(3)[key], np.arange(3)[key])


# -------------------------------------------------- complex special values (rows 5-7)
def test_complex_power_of_zero_matches_numpy_and_jax():
    """Row 5: 0j ** 0j was nan+nanj; NumPy and jax give 1+0j (and 0**b = 0 for b > 0)."""
    a = np.array([0j, 0j, 0j, 1 + 1j, complex("nan+nanj")])
    b = np.array([0j, 2 + 0j, -1 + 0j, 0j, 0j])
    with np.errstate(all="ignore"):
        want = np.power(a, b)
    assert_same(xa.power(xa.asarray(a), xa.asarray(b)), want)
    assert_same(xa.lax.pow(xa.asarray(a[:2]), xa.asarray(b[:2])), want[:2])


def test_complex_sign_with_infinite_parts_matches_numpy():
    """Row 6: sign(inf+1j) was nan+0j; NumPy's sign gives 1+0j."""
    z = np.array([complex("inf+1j"), complex("-inf+nanj"), complex("nan-infj"),
                  complex("inf+infj"), complex("nan+1j"), 0j, complex(-0.0, -0.0), 3 - 4j,
                  complex(1e-320, 0.0)])
    assert_same(xa.sign(xa.asarray(z)), np.sign(z))
    assert_same(xa.sign(xa.asarray(z.astype(np.complex64))), np.sign(z.astype(np.complex64)))


def test_complex_log1p_keeps_the_sign_of_a_negative_zero_imaginary_part():
    """Row 7: log1p(-1.38e16 - 0j) had imaginary part +pi; the branch cut gives -pi."""
    for dt in (np.complex64, np.complex128):
        z = np.array([complex(-1.38e16, -0.0), complex(-1.38e16, 0.0), complex(-3.0, -0.0)],
                     dtype=dt)
        got = np.asarray(xa.log1p(xa.asarray(z)))
        np.testing.assert_array_equal(np.sign(got.imag), np.sign(np.log1p(z).imag))
        assert got.imag[0] < 0 < got.imag[1]


# ------------------------------------------------------------------- prod order (row 8)
def test_short_products_multiply_left_to_right_as_numpy_does():
    """Row 8: prod([1.8e308, -7.2e-178, -4.7e16]) was inf (a * c first); NumPy multiplies
    left to right: 6.04e147."""
    x = np.array([1.7976931348623157e308, -7.22e-178, -4.65e16])
    assert_same(xa.prod(xa.asarray(x)), np.prod(x))
    y = np.array([3e38, 1e-30, 5e-9], np.float32)
    assert_same(xa.prod(xa.asarray(y)), np.prod(y))


# ------------------------------------------------------------- argmax dtype (row 9)
def test_argmax_index_dtype_must_hold_the_indices():
    """Row 9: index_dtype=int8 wrapped at 300 elements and float32 was accepted."""
    with pytest.raises(ValueError, match=r"int8 cannot hold the indices .* size 300"):
        xa.lax.argmax(xa.arange(300), 0, index_dtype=xa.int8)
    with pytest.raises(TypeError, match="index_dtype must be an integer type"):
        xa.lax.argmax(xa.arange(3), 0, index_dtype=xa.float32)
    assert int(xa.lax.argmax(xa.arange(127), 0, index_dtype=xa.int8)) == 126


# ------------------------------------------------------------ jit caches (rows 10, 11)
def test_jit_executable_cache_is_lru_bounded_and_clearable(monkeypatch):
    """Row 10: 20000 static arguments grew RSS by 169 MB; the cache keeps CACHE_SIZE
    executables, least recently used dropped first; clear_cache / xa.clear_caches empty it."""
    monkeypatch.setattr(_jit, "CACHE_SIZE", 8)
    f = xa.jit(lambda x, n: x * n, static_argnums=(1,))
    x = xa.ones(3)
    for k in range(20):
        f(x, k)
    assert len(f._cache) == 8 and f.trace_count == 20
    f(x, 19)                                   # a hit: no new trace
    assert f.trace_count == 20
    f(x, 12)                                   # the oldest kept one
    f(x, 100)                                  # evicts 13, not 12
    f(x, 12)
    assert f.trace_count == 21
    f.clear_cache()
    assert len(f._cache) == 0
    f(x, 1)
    xa.clear_caches()
    assert len(f._cache) == 0


def test_a_jitted_function_called_inside_another_is_inlined():
    """Row 11: it raised TypeError: got Traced."""
    inner = xa.jit(lambda x: x + 1)
    outer = xa.jit(lambda x: inner(x) * 2)
    x = xa.asarray([1.0, 2.0])
    assert_same(outer(x), np.array([4.0, 6.0]))
    assert inner.trace_count == 0           # traced as part of outer, not on its own


# --------------------------------------------------- allocation sizes (rows 12-14)
def test_allocations_beyond_memory_raise_memory_error_with_shape_and_bytes():
    """Row 12: linspace(0, 1, 2**60) said 'cannot allocate -9223372036854775808 bytes'."""
    with pytest.raises(MemoryError, match=r"shape \(1152921504606846976,\) and dtype "
                                          r"float64: 9223372036854775808 bytes"):
        xa.linspace(0, 1, 2**60)
    with pytest.raises(MemoryError, match=r"shape \(2147483648, 6442450944\).*bytes"):
        xa.tile(xa.ones(3), (2**31, 2**31))
    with pytest.raises(MemoryError, match=r"tolist: a tensor of shape \(1099511627776,\)"):
        xa.broadcast_to(xa.ones(()), (2**40,)).tolist()


@pytest.mark.parametrize("reps", [2, (2, 3), (1, 1), (0, 2), (2, 1, 3), ()])
def test_tile_matches_numpy_and_returns_a_new_tensor(reps):
    a = np.arange(6.0).reshape(2, 3)
    t = xa.asarray(a)
    got = xa.tile(t, reps)
    assert_same(got, np.tile(a, reps))
    if got.size:
        got[(0,) * got.ndim] = -1.0
        assert t[0, 0] == 0.0


def test_negative_dimensions_are_named_as_such():
    """Row 14: broadcast_to(a, (-1, 3, 4)) said 'too big: more than 2**63-1 elements'."""
    with pytest.raises(ValueError, match=r"negative dimension -1 in shape \(-1, 3, 4\)"):
        xa.broadcast_to(xa.ones((3, 4)), (-1, 3, 4))


def test_reshape_to_a_float_dimension_is_a_type_error():
    """Row 15: reshape(a, (2.5, 4)) silently reshaped to (2, 4)."""
    with pytest.raises(TypeError):
        xa.reshape(xa.ones((2, 4)), (2.5, 4))
    with pytest.raises(TypeError):
        xa.ones((2, 4)).reshape(2.0, 4)


# -------------------------------------------------- huge integers, deep text (16, 17)
def test_huge_integers_in_indices_and_layouts_name_the_argument():
    """Row 16: OverflowError 'Python int too large to convert to C long'."""
    a = xa.ones((3, 4))
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 3"):
        a[2**63]
    assert_same(a[::2**63], np.ones((3, 4))[::2**63])
    with pytest.raises(ValueError, match=r"integer 9223372036854775807 is too large"):
        xa.Shape.parse("f32[4,4]{1,0:T(9223372036854775807,2)}")
    with pytest.raises(ValueError, match=r"layout \{1,0:PD\(100000000000,100000000000\)\} "
                                         r"of shape \(4, 4\) needs"):
        xa.zeros((4, 4), layout="{1,0:PD(100000000000,100000000000)}")


def test_deeply_nested_shape_text_is_a_value_error_with_the_position():
    """Row 17: Shape.parse('(' * 5000 + ')' * 5000) raised RecursionError."""
    with pytest.raises(ValueError, match=r"'\(\(\(\(.{73}\.\.\.': tuples nest more than 64 "
                                         r"deep at position 64"):
        xa.Shape.parse("(" * 5000 + ")" * 5000)
    assert xa.Shape.parse("((f32[2]), s8[])")[0][0].dims == (2,)


# ------------------------------------------------------- setitem casting (row 18)
def test_setitem_follows_numpys_casting_rules():
    """Row 18: i[0] = nan wrote 0 into an int64 tensor; a[0] = 1+2j dropped the imaginary
    part. As NumPy: ValueError for NaN, OverflowError for inf, TypeError for a Python
    complex into a real tensor, ComplexWarning for a complex tensor or NumPy scalar."""
    i = xa.zeros(3, dtype=xa.int64)
    with pytest.raises(ValueError, match="NaN to integer"):
        i[0] = float("nan")
    with pytest.raises(OverflowError, match="inf to integer"):
        i[1:] = float("inf")
    with pytest.raises(ValueError, match="NaN to integer"):
        i[[0, 2]] = float("nan")
    assert_same(i, np.zeros(3, np.int64))
    f = xa.zeros(3, dtype=xa.float32)
    with pytest.raises(TypeError, match="complex value"):
        f[0] = 1 + 2j
    with pytest.warns(np.exceptions.ComplexWarning):
        f[1] = np.complex64(3 + 4j)
    with pytest.warns(np.exceptions.ComplexWarning):
        f[:] = xa.asarray([1 + 1j, 2 + 2j, 5 - 1j])
    assert_same(f, np.array([1.0, 2.0, 5.0], np.float32))


# ------------------------------------------------------ strict lax, dlpack (19, 20)
def test_lax_convert_element_type_to_none_is_a_type_error():
    """Row 19: it converted to float64."""
    with pytest.raises(TypeError, match="new_dtype must be a dtype, got None"):
        xa.lax.convert_element_type(xa.ones(2), None)


def test_from_dlpack_refuses_other_devices():
    """Row 20: device='gpu' was accepted."""
    with pytest.raises(ValueError, match="'cpu' device, not 'gpu'"):
        xa.from_dlpack(np.ones(3), device="gpu")
    assert_same(xa.from_dlpack(np.ones(3), device="cpu"), np.ones(3))


# -------------------------------------------------------------- jit arguments (21)
def test_jit_checks_static_argnums_and_takes_numpy_scalars_as_weak_inputs():
    """Row 21: static_argnums=(5,) on a one-argument function was accepted silently; a
    NumPy scalar argument was rejected. It is a 0-d input of its dtype, as eagerly."""
    with pytest.raises(ValueError, match="static_argnums 5 is out of range"):
        xa.jit(lambda x: x, static_argnums=(5,))(xa.ones(2))
    f = xa.jit(lambda x, y: x * y)
    x = xa.ones(2, dtype=xa.float32)
    for y in (np.float32(2), np.float64(2), np.int64(3)):
        assert_same(f(x, y), np.ones(2, np.float32) * y)


# --------------------------------------------------------- caches (deliverable 5)
def test_clear_caches_empties_every_cache():
    f = xa.jit(lambda x: x + 1)
    f(xa.ones(2))
    with xa.lazy():
        y = xa.ones(2) * 3
    np.asarray(y)
    assert len(f._cache) and len(_lazy._CACHE)
    xa.clear_caches()
    assert not len(f._cache) and not len(_lazy._CACHE)
    assert_same(f(xa.ones(2)), np.full(2, 2.0))


def test_lazy_compile_cache_is_lru_bounded():
    _lazy.clear_cache()
    for k in range(_lazy._CACHE_SIZE + 20):
        with xa.lazy():
            y = xa.ones(k + 1) + 1
        np.asarray(y)
    assert len(_lazy._CACHE) == _lazy._CACHE_SIZE


def test_caught_warnings_leave_no_state():
    """A warning raised while a lazy value computes leaves no half-computed state."""
    gc.collect()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with xa.lazy():
            y = xa.log(xa.asarray([-1.0, 1.0]))
        assert np.isnan(np.asarray(y)[0])


# ------------------------------------- found by the sanitizer build (deliverable 3)
@pytest.mark.parametrize("dt", ["int8", "int32", "int64", "uint32", "uint64"])
def test_operator_fast_path_integer_bounds_match_numpy(dt):
    """UBSan: the operators' weak-scalar range check shifted a C int by 63 bits. Every
    bound of every integer width gives NumPy's result or NumPy's exception type."""
    bits = np.iinfo(dt).bits
    scalars = [2**(bits - 1) - 1, -2**(bits - 1), 2**(bits - 1), 2**bits - 1, 2**bits,
               -2**(bits - 1) - 1, 2**63 - 1, -2**63, 2**64 - 1]
    a_np = np.array([0, 1], dtype=dt)
    a = xa.asarray(a_np)
    for b in scalars:
        try:
            ref = a_np + b
        except OverflowError:
            with pytest.raises(OverflowError):
                a + b
            continue
        assert_same(a + b, ref)


def test_reduction_scratch_of_impossible_size_is_refused_before_allocating():
    """ASan: a sum over 2**62 broadcast elements asked the allocator for 2**53 bytes of
    partial sums (scratch_bytes now refuses > 1 TiB up front, in every build)."""
    v = xa.broadcast_to(xa.ones((1,)), (2**62,))
    with pytest.raises(MemoryError, match="reduce sum"):
        v.sum()
    with pytest.raises(MemoryError, match="reduce argmax"):
        xa.argmax(xa.broadcast_to(xa.ones(()), (2**62,)))


def test_kernel_entry_points_refuse_operands_that_do_not_broadcast():
    """A graph-compiler bug once handed the eager elementwise kernel operands of the wrong
    shape: it read outside their buffers and crashed. The binding now checks every
    operand's shape against the iteration shape (ValueError naming both)."""
    from xarr._bindings.elementwise import run_elementwise
    from xarr._ops.elementwise import OPS
    from xarr import _tensor
    out = _tensor.empty((4, 8), 12)           # float64
    add = OPS["add"].code
    with pytest.raises(ValueError, match=r"shape \(16,\) does not broadcast to \(4, 8\)"):
        run_elementwise(add, 12, out, [xa.ones((16,)), xa.ones((4, 8))])
    with pytest.raises(ValueError, match="more dimensions"):
        run_elementwise(add, 12, out, [xa.ones((2, 4, 8)), xa.ones((4, 8))])
    with pytest.raises(ValueError, match="does not broadcast"):
        _tensor.convert_into(out, xa.ones((3, 8)))
    run_elementwise(add, 12, out, [xa.ones((8,)), xa.ones((4, 1))])
    assert_same(out, np.full((4, 8), 2.0))
