"""lax.dot_general / lax.dot and the GEMM engine (csrc/kernels/gemm/): the seed's worked
examples, a float64 reference over every dtype, layout, strided view and broadcast batch
dim, micro-kernel edge sizes on every ISA against the reference kernel, 1 vs 2 threads,
eager vs jit vs lazy, HLO text, and bad dimension numbers.

Tolerances: a float result may differ from the exact (float64 / integer) sum by
k * eps * sum |a_i b_i| (each of the k additions rounds once); ``_close`` checks that bound.
"""

import itertools

import ml_dtypes
import numpy as np
import pytest

import xarr as xa
from conftest import LAYOUTS, make_tensor
from xarr import lax
from xarr._bindings.gemm import gemm_kernel
from xarr._dtypes import CODE_OF

CORE = xa._core
ISAS = CORE.supported_isas()
BF16 = np.dtype(ml_dtypes.bfloat16)
FLOAT_DT = [np.float32, np.float64, np.complex64, np.complex128]
ALL_DT = FLOAT_DT + [np.float16, BF16, np.int8, np.uint8, np.int16, np.int32, np.uint32,
                     np.int64, np.uint64, np.bool_]


def _eps(dt):
    dt = np.dtype(dt)
    if dt == BF16:
        return 2.0 ** -8
    if dt.kind in "fc":
        return float(np.finfo(dt).eps)
    return 0.0


def _values(rng, shape, dt):
    dt = np.dtype(dt)
    if dt == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(max(info.min, -100), min(info.max, 100), shape,
                            endpoint=True).astype(dt)
    x = rng.standard_normal(shape)
    if dt.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dt)


def _reference(a, b, dn, out_dt):
    """dot_general in float64 / complex128 / exact integers via NumPy's einsum, and the
    magnitude bound sum |a||b| for the tolerance."""
    (lc, rc), (lb, rb) = dn
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    la = [next(letters) for _ in range(a.ndim)]
    lr = [None] * b.ndim
    for i, j in zip(lb + lc, rb + rc):
        lr[j] = la[i]
    lr = [c if c is not None else next(letters) for c in lr]
    lfree = [la[d] for d in range(a.ndim) if d not in lb + lc]
    rfree = [lr[d] for d in range(b.ndim) if d not in rb + rc]
    spec = f"{''.join(la)},{''.join(lr)}->{''.join([la[d] for d in lb] + lfree + rfree)}"
    kinds = {np.dtype(a.dtype).kind, np.dtype(b.dtype).kind}
    if np.dtype(a.dtype) == BF16 or np.dtype(b.dtype) == BF16:
        kinds.add("f")
    wide = np.complex128 if "c" in kinds else np.float64
    if kinds <= {"i", "u", "b"}:
        exact = np.einsum(spec, a.astype(object), b.astype(object)) if a.size and b.size \
            else np.einsum(spec, a.astype(np.int64), b.astype(np.int64))
        return exact, None
    af, bf = a.astype(wide), b.astype(wide)
    return np.einsum(spec, af, bf), np.einsum(spec, np.abs(af), np.abs(bf))


def _close(got, ref, bound, k, dt, out_dt):
    got = np.asarray(got)
    assert got.dtype == np.dtype(out_dt), (got.dtype, out_dt)
    assert got.shape == ref.shape
    if bound is None:  # integers: exact modulo the result's width
        out = np.dtype(out_dt)
        if out == np.bool_:
            np.testing.assert_array_equal(got, ref.astype(bool) if ref.dtype != object
                                          else np.array(ref != 0, dtype=bool))
            return
        bits = 8 * out.itemsize
        want = np.array([int(v) % (1 << bits) for v in np.ravel(ref)], dtype=object)
        have = np.array([int(v) % (1 << bits) for v in np.ravel(got)], dtype=object)
        assert (want == have).all()
        return
    eps = max(_eps(dt), _eps(out_dt))
    tol = 2 * (k + 2) * eps * bound + 1e-30
    err = np.abs(got.astype(ref.dtype) - ref)
    assert (err <= tol).all(), float((err - tol).max())


def _check(a, b, dn, k, out_dt=None, ta=None, tb=None, **kw):
    ta = xa.asarray(a) if ta is None else ta
    tb = xa.asarray(b) if tb is None else tb
    got = lax.dot_general(ta, tb, dn, **kw)
    out_dt = np.dtype(got.dtype) if out_dt is None else out_dt
    ref, bound = _reference(a, b, dn, out_dt)
    _close(got, ref, bound, k, a.dtype, out_dt)
    return got


# ------------------------------------------------------------------------ seed 004
def test_seed_dot_general_contracting_example():
    lhs = xa.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=xa.float32)
    rhs = xa.asarray([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]], dtype=xa.float32)
    got = lax.dot_general(lhs, rhs, (((1,), (1,)), ((), ())))
    assert got.dtype == xa.float32
    np.testing.assert_array_equal(np.asarray(got), [[6.0, 12.0], [15.0, 30.0]])


def test_seed_dot_general_batch_example():
    lhs = xa.asarray([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]])
    rhs = xa.asarray([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]]])
    got = lax.dot_general(lhs, rhs, (((2,), (1,)), ((0,), (0,))))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(lhs))


@pytest.mark.parametrize("ls,rs,want", [((4,), (4,), ()), ((3, 4), (4,), (3,)),
                                        ((3, 4), (4, 5), (3, 5)), ((4,), (4, 5), (5,))])
def test_seed_dot_ranks(ls, rs, want):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(ls), rng.standard_normal(rs)
    got = lax.dot(xa.asarray(a), xa.asarray(b))
    assert got.shape == want
    np.testing.assert_allclose(np.asarray(got), np.dot(a, b), rtol=1e-12)


def test_seed_batch_matmul_shapes():
    x = xa.ones((2, 3, 4, 5), dtype=xa.float32)
    y = xa.ones((2, 3, 5, 6), dtype=xa.float32)
    got = lax.dot_general(x, y, (((3,), (2,)), ((0, 1), (0, 1))))
    assert got.shape == (2, 3, 4, 6)
    assert (np.asarray(got) == 5).all()


# ------------------------------------------------------------------------ dtypes
@pytest.mark.parametrize("dt", ALL_DT, ids=lambda d: np.dtype(d).name)
def test_every_dtype_against_the_reference(dt):
    rng = np.random.default_rng(2)
    for m, n, k in [(7, 9, 13), (33, 20, 70), (1, 17, 5), (17, 1, 40)]:
        a, b = _values(rng, (m, k), dt), _values(rng, (k, n), dt)
        _check(a, b, (((1,), (0,)), ((), ())), k)


@pytest.mark.parametrize("dt,pref", [(np.int8, np.int32), (np.uint8, np.int32),
                                     (np.int8, np.int64), (BF16, np.float32),
                                     (np.float16, np.float32), (np.float32, np.float64),
                                     (np.int32, np.float32), (np.float32, np.int32),
                                     (np.int16, np.int8)])
def test_preferred_element_type(dt, pref):
    rng = np.random.default_rng(3)
    a, b = _values(rng, (5, 11), dt), _values(rng, (11, 4), dt)
    got = lax.dot_general(xa.asarray(a), xa.asarray(b), (((1,), (0,)), ((), ())),
                          preferred_element_type=pref)
    assert np.dtype(got.dtype) == np.dtype(pref)
    ref, bound = _reference(a, b, (((1,), (0,)), ((), ())), pref)
    if np.dtype(pref).kind in "iu" and np.dtype(dt).kind == "f":
        ref = np.trunc(ref)  # float products converted to int truncate
        np.testing.assert_allclose(np.asarray(got), ref, atol=1)
        return
    _close(got, ref, bound, 11, dt, pref)


def test_int8_wraps_like_xla():
    a = xa.full((2, 3), 100, dtype=xa.int8)
    np.testing.assert_array_equal(np.asarray(lax.dot(a, a.T)), np.full((2, 2), 48, np.int8))
    np.testing.assert_array_equal(
        np.asarray(lax.dot(a, a.T, preferred_element_type=xa.int32)), 30000)


def test_mixed_operand_types_promote():
    a = xa.ones((2, 3), dtype=xa.float32)
    b = xa.ones((3, 4), dtype=xa.bfloat16)
    assert lax.dot(a, b).dtype == xa.float32
    assert lax.dot(b, b.T).dtype == xa.bfloat16


def test_pred_dot_is_any_term():
    a = xa.asarray([[True, False], [False, False]])
    got = lax.dot(a, a)
    assert got.dtype == xa.bool_
    np.testing.assert_array_equal(np.asarray(got), [[True, False], [False, False]])


def test_precision_argument():
    a = xa.ones((2, 3), dtype=xa.float32)
    for p in (None, "highest", lax.Precision.HIGH, ("default", "highest")):
        np.testing.assert_array_equal(np.asarray(lax.dot(a, a.T, precision=p)), 3)
    with pytest.raises(ValueError, match="precision"):
        lax.dot(a, a.T, precision="ultra")


# ------------------------------------------------------------------------ dimension numbers
DNS = [
    ((3, 4), (4, 5), (((1,), (0,)), ((), ()))),
    ((4, 3), (4, 5), (((0,), (0,)), ((), ()))),
    ((3, 4), (5, 4), (((1,), (1,)), ((), ()))),
    ((2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,)))),
    ((3, 2, 4), (4, 5, 2), (((2,), (0,)), ((1,), (2,)))),   # batch dims anywhere
    ((2, 3, 4, 5), (5, 4, 6), (((2, 3), (1, 0)), ((), ()))),  # two contracting dims
    ((3,), (4,), (((), ()), ((), ()))),                      # outer product
    ((2, 3), (3, 2), (((), ()), ((0, 1), (1, 0)))),          # batch only: elementwise
    ((0, 4), (4, 5), (((1,), (0,)), ((), ()))),              # size-0 dims
    ((3, 0), (0, 5), (((1,), (0,)), ((), ()))),
    ((2, 1, 3, 1), (3, 1, 2), (((2,), (0,)), ((0,), (2,)))),
    ((2, 3, 5, 7), (2, 7, 3, 4), (((3,), (1,)), ((0, 1), (0, 2)))),
]


@pytest.mark.parametrize("ls,rs,dn", DNS)
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.int32])
def test_dimension_numbers(ls, rs, dn, dt):
    rng = np.random.default_rng(4)
    a, b = _values(rng, ls, dt), _values(rng, rs, dt)
    k = int(np.prod([ls[d] for d in dn[0][0]]))
    _check(a, b, dn, k)


@pytest.mark.parametrize("how_a", LAYOUTS)
@pytest.mark.parametrize("how_b", ["c", "colmajor", "transposed", "step"])
def test_layouts_and_views(how_a, how_b):
    rng = np.random.default_rng(5)
    for dt in (np.float32, np.float64, np.complex128):
        a, b = _values(rng, (19, 23), dt), _values(rng, (23, 21), dt)
        dn = (((1,), (0,)), ((), ()))
        _check(a, b, dn, 23, ta=make_tensor(a, how_a), tb=make_tensor(b, how_b))


def test_broadcast_batch_dims():
    rng = np.random.default_rng(6)
    a = rng.standard_normal((1, 9, 7)).astype(np.float32)
    b = rng.standard_normal((5, 7, 8)).astype(np.float32)
    ta = xa.broadcast_to(xa.asarray(a), (5, 9, 7))  # stride-0 batch dim
    got = lax.dot_general(ta, xa.asarray(b), (((2,), (1,)), ((0,), (0,))))
    np.testing.assert_allclose(np.asarray(got), np.matmul(a, b), rtol=1e-5, atol=1e-5)


def test_column_major_output_written_through_strides():
    # A column-major result (transposed problem inside the engine): compare with numpy.
    rng = np.random.default_rng(7)
    a = rng.standard_normal((40, 30))
    b = rng.standard_normal((30, 50))
    out = xa.matmul(xa.asarray(a), xa.asarray(b))
    np.testing.assert_allclose(np.asarray(out), a @ b, rtol=1e-12, atol=1e-12)
    from xarr._bindings.gemm import gemm_into
    fort = xa.zeros((40, 50), dtype=xa.float64, layout=(0, 1))
    gemm_into(fort, xa.asarray(a), xa.asarray(b), (), (), (1,), (0,))
    np.testing.assert_allclose(np.asarray(fort), a @ b, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------------ ISAs, threads
def _edge_sizes(t):
    return sorted({0, 1, t - 1, t, t + 1, 2 * t + 3} - {-1})


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128,
                                np.int32, np.int64], ids=lambda d: np.dtype(d).name)
def test_micro_kernel_edges_against_reference(isa, dt):
    code = CODE_OF[np.dtype(dt)]
    name, mr, nr = gemm_kernel(code, CORE.isa_code(isa))
    assert isa in name or (isa != "ref" and "ref" in name)
    rng = np.random.default_rng(8)
    before = CORE.get_isa()
    try:
        for m, n in itertools.product(_edge_sizes(mr), _edge_sizes(nr)):
            for k in (0, 1, 7, 300, 517):
                a, b = _values(rng, (m, k), dt), _values(rng, (k, n), dt)
                ta, tb = xa.asarray(a), xa.asarray(b)
                CORE.set_isa("ref")
                ref = np.asarray(lax.dot(ta, tb))
                CORE.set_isa(isa)
                got = np.asarray(lax.dot(ta, tb))
                if np.dtype(dt).kind in "iu":
                    np.testing.assert_array_equal(got, ref)
                else:
                    r, bound = _reference(a, b, (((1,), (0,)), ((), ())), dt)
                    _close(got, r, bound, k, dt, dt)
    finally:
        CORE.set_isa(before)


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_narrow_kernels_against_reference(isa, dt):
    kernel = gemm_kernel(CODE_OF[np.dtype(dt)], CORE.isa_code(isa), narrow=True)
    if kernel is None:
        pytest.skip(f"{isa} has no narrow kernel for {np.dtype(dt).name}")
    name, mr, nr = kernel
    rng = np.random.default_rng(15)
    before = CORE.get_isa()
    try:
        CORE.set_isa(isa)
        for m in _edge_sizes(mr) + [300]:
            for n in range(2, nr + 1):
                for k in (1, 9, 600):
                    a, b = _values(rng, (m, k), dt), _values(rng, (k, n), dt)
                    for ta, tb in ((xa.asarray(a), xa.asarray(b)),
                                   (make_tensor(a, "colmajor"), make_tensor(b, "step"))):
                        r, bound = _reference(a, b, (((1,), (0,)), ((), ())), dt)
                        _close(lax.dot(ta, tb), r, bound, k, dt, dt)
    finally:
        CORE.set_isa(before)


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_flat_kernels_against_reference(isa, dt):
    # The flat kernel (gemm.h: taken when its rows pad less than the regular kernel's)
    # over row counts around its mr and column counts around its nr.
    kernel = gemm_kernel(CODE_OF[np.dtype(dt)], CORE.isa_code(isa), flat=True)
    if kernel is None:
        pytest.skip(f"{isa} has no flat kernel for {np.dtype(dt).name}")
    name, mr, nr = kernel
    rng = np.random.default_rng(17)
    before = CORE.get_isa()
    try:
        CORE.set_isa(isa)
        for m in (mr, 2 * mr, 8 * mr, 8 * mr + 1):
            for n in (nr - 1, nr, nr + 1, 3 * nr + 5, 700):
                for k in (1, 9, 600):
                    a, b = _values(rng, (m, k), dt), _values(rng, (k, n), dt)
                    for ta, tb in ((xa.asarray(a), xa.asarray(b)),
                                   (make_tensor(a, "colmajor"), make_tensor(b, "step"))):
                        r, bound = _reference(a, b, (((1,), (0,)), ((), ())), dt)
                        _close(lax.dot(ta, tb), r, bound, k, dt, dt)
    finally:
        CORE.set_isa(before)


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_short_wide_and_tall_narrow_products_against_reference(isa, dt):
    # gemm.cpp run_split: few rows x many columns (the short operand packed once, threads
    # on their own column blocks) and many rows x few columns; operands also as
    # overlapping-window views (an implicit-GEMM convolution: m / n dims that are not one
    # stride, C tiles spanning two of its rows, k in runs), on each ISA and thread count.
    rng = np.random.default_rng(18)
    before, threads = CORE.get_isa(), xa.get_num_threads()
    try:
        CORE.set_isa(isa)
        for m, k, n in [(64, 100, 6000), (40, 300, 5000), (15000, 40, 64), (5000, 33, 24)]:
            a, b = _values(rng, (m, k), dt), _values(rng, (k, n), dt)
            r, bound = _reference(a, b, (((1,), (0,)), ((), ())), dt)
            for ta, tb in ((xa.asarray(a), xa.asarray(b)),
                           (make_tensor(a, "colmajor"), make_tensor(b, "transposed"))):
                _same_bits_on_1_and_2_threads_and_close(ta, tb, r, bound, k, dt)
        # windows: x[b, i + t, c] summed against w[t, c, o] (a 1-D convolution)
        x = _values(rng, (3, 1500, 5), dt)
        w = _values(rng, (4, 5, 64), dt)
        xv = np.lib.stride_tricks.sliding_window_view(x, 4, axis=1)   # (3, 1497, 5, 4)
        r, bound = _reference(xv, w, (((3, 2), (0, 1)), ((), ())), dt)
        tx = xa.sliding_window_view(xa.asarray(x), 4, axis=1)
        got = lax.dot_general(tx, xa.asarray(w), (((3, 2), (0, 1)), ((), ())))
        _close(got, r, bound, 20, dt, dt)
        got = lax.dot_general(xa.asarray(w), tx, (((0, 1), (3, 2)), ((), ())))
        r2, bound2 = _reference(w, xv, (((0, 1), (3, 2)), ((), ())), dt)
        _close(got, r2, bound2, 20, dt, dt)
    finally:
        CORE.set_isa(before)
        xa.set_num_threads(threads)


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_row_major_panel_packing_against_reference(isa, dt):
    # Large enough for the packed path: row-major A panels (also from unaligned row starts)
    # on each ISA against the float64 reference.
    rng = np.random.default_rng(16)
    before = CORE.get_isa()
    try:
        for m, k, n in [(301, 517, 40), (300, 1029, 8), (97, 8, 3000), (61, 2051, 70)]:
            a = rng.standard_normal((m, k + 3)).astype(dt)
            b = rng.standard_normal((k, n)).astype(dt)
            for ta in (xa.asarray(a[:, :k]), xa.asarray(a)[:, 3:]):
                av = np.asarray(ta)
                CORE.set_isa(isa)
                got = lax.dot(ta, xa.asarray(b))
                r, bound = _reference(av, b, (((1,), (0,)), ((), ())), dt)
                _close(got, r, bound, k, dt, dt)
    finally:
        CORE.set_isa(before)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.int32])
def test_threads_give_the_same_bits(dt):
    rng = np.random.default_rng(9)
    before = xa.get_num_threads()
    cases = [((300, 200), (200, 260), (((1,), (0,)), ((), ()))),
             ((300, 600), (600, 260), (((1,), (0,)), ((), ()))),
             ((64, 40, 40), (64, 40, 40), (((2,), (1,)), ((0,), (0,)))),
             ((700, 600), (600,), (((1,), (0,)), ((), ()))),
             ((703, 601), (601,), (((1,), (0,)), ((), ()))),  # rows in fours, and a tail
             # batches of small matrix-vector products (the items in parallel)
             ((600, 33, 50), (600, 50), (((2,), (1,)), ((0,), (0,)))),
             ((600, 50), (600, 50, 33), (((1,), (1,)), ((0,), (0,)))),
             ((900, 700), (700, 5), (((1,), (0,)), ((), ()))),
             ((60, 4100), (4100, 70), (((1,), (0,)), ((), ()))),
             ((600, 700), (600,), (((0,), (0,)), ((), ())))]
    try:
        for ls, rs, dn in cases:
            a, b = xa.asarray(_values(rng, ls, dt)), xa.asarray(_values(rng, rs, dt))
            xa.set_num_threads(1)
            one = np.asarray(lax.dot_general(a, b, dn))
            xa.set_num_threads(2)
            two = np.asarray(lax.dot_general(a, b, dn))
            np.testing.assert_array_equal(one, two)
    finally:
        xa.set_num_threads(before)


def test_large_blocked_product():
    # Several KC / MC / NC blocks and both threads.
    rng = np.random.default_rng(10)
    a = rng.standard_normal((700, 1100)).astype(np.float32)
    b = rng.standard_normal((1100, 600)).astype(np.float32)
    _check(a, b, (((1,), (0,)), ((), ())), 1100)
    _check(a.astype(np.float64), b.astype(np.float64), (((1,), (0,)), ((), ())), 1100)


@pytest.mark.parametrize("layout", ["c", "colmajor", "transposed", "step"])
def test_matrix_vector_paths(layout):
    rng = np.random.default_rng(11)
    for dt in (np.float32, np.float64):
        a = rng.standard_normal((513, 301)).astype(dt)
        x = rng.standard_normal(301).astype(dt)
        _check(a, x, (((1,), (0,)), ((), ())), 301, ta=make_tensor(a, layout),
               tb=make_tensor(x, "step" if layout == "step" else "c"))
        y = rng.standard_normal(513).astype(dt)
        _check(y, a, (((0,), (0,)), ((), ())), 513, tb=make_tensor(a, layout))


def test_batched_matrix_vector_against_numpy():
    # Many small items run in parallel, each on one thread; x contiguous and strided.
    rng = np.random.default_rng(13)
    for dt in (np.float32, np.float64):
        a = rng.standard_normal((600, 33, 50)).astype(dt)
        xs = rng.standard_normal((600, 100)).astype(dt)
        for x, tx in ((xs[:, :50].copy(), None), (xs[:, ::2], xa.asarray(xs)[:, ::2])):
            _check(a, x, (((2,), (1,)), ((0,), (0,))), 50, tb=tx)
            _check(x, a.transpose(0, 2, 1).copy(), (((1,), (1,)), ((0,), (0,))), 50, ta=tx)
            _check(x[:, :33], a, (((1,), (1,)), ((0,), (0,))), 33)


# ------------------------------------------------------------------------ graph
def _batched(x, y):
    return lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,))))


def test_jit_and_lazy_match_eager():
    rng = np.random.default_rng(12)
    a = xa.asarray(rng.standard_normal((3, 4, 5)).astype(np.float32))
    b = xa.asarray(rng.standard_normal((3, 5, 6)).astype(np.float32))
    eager = np.asarray(_batched(a, b))
    np.testing.assert_array_equal(np.asarray(xa.jit(_batched)(a, b)), eager)
    with xa.lazy():
        lazy = _batched(a, b) * 1.0
    np.testing.assert_array_equal(np.asarray(lazy), eager)


def test_hlo_text_as_xla_prints_it():
    a = xa.ones((4, 2, 3), dtype=xa.float32)
    b = xa.ones((4, 3, 5), dtype=xa.float32)
    text = xa.jit(_batched).lower(a, b).as_text()
    assert ("f32[4,2,5]{2,1,0} dot(p0, p1), lhs_batch_dims={0}, lhs_contracting_dims={2}, "
            "rhs_batch_dims={0}, rhs_contracting_dims={1}") in text
    mm = xa.jit(lambda x, y: lax.dot(x, y, precision="highest")).lower(
        xa.ones((2, 3)), xa.ones((3, 4))).as_text()
    assert "dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}, " \
           "operand_precision={highest,highest}" in mm


# ------------------------------------------------------------------------ errors
@pytest.mark.parametrize("ls,rs,dn,match", [
    ((2, 3), (3, 4), (((1,), (1,)), ((), ())), r"contracting dimensions must have the same "
                                               r"sizes.*\(3,\).*\(4,\)"),
    ((2, 3), (3, 4), (((5,), (0,)), ((), ())), r"lhs_contracting dimension 5 is out of range"),
    ((2, 3), (3, 4), (((-1,), (0,)), ((), ())), r"dimension -1 is out of range"),
    ((2, 3), (2, 3), (((1,), (1,)), ((1,), (0,))), r"share dimension"),
    ((2, 3), (3, 4), (((1, 1), (0, 0)), ((), ())), r"repeat a dimension"),
    ((2, 3), (3, 4), (((1,), ()), ((), ())), r"same length"),
    ((2, 3), (4, 3), (((1,), (1,)), ((0,), (0,))), r"batch dimensions must have the same"),
])
def test_bad_dimension_numbers_raise_with_values(ls, rs, dn, match):
    a, b = xa.ones(ls), xa.ones(rs)
    with pytest.raises(ValueError, match=match):
        lax.dot_general(a, b, dn)
    with pytest.raises(ValueError, match=match):
        xa.jit(lambda x, y: lax.dot_general(x, y, dn))(a, b)


def test_bad_arguments_raise():
    a = xa.ones((2, 3))
    with pytest.raises(TypeError, match="dimension_numbers"):
        lax.dot_general(a, a, ((1,), (1,)))
    with pytest.raises(TypeError, match="integers"):
        lax.dot_general(a, a, ((("x",), (1,)), ((), ())))
    with pytest.raises(ValueError, match="rank 1 or 2"):
        lax.dot(xa.ones((2, 2, 2)), a)


# ------------------------------------------------------------------------ output fusion
def _dense(x, w, b):
    return xa.maximum(x @ w + b, 0.0)


def test_output_fusion_is_one_kernel_and_matches_eager():
    rng = np.random.default_rng(13)
    x = xa.asarray(rng.standard_normal((70, 40)).astype(np.float32))
    w = xa.asarray(rng.standard_normal((40, 30)).astype(np.float32))
    b = xa.asarray(rng.standard_normal(30).astype(np.float32))
    f = xa.jit(_dense)
    compiled = f.lower(x, w, b).compile()
    assert compiled.kernel_count == 1
    text = compiled.as_text()
    assert "kind=kOutput" in text and " dot(" in text.split("ENTRY")[0]
    np.testing.assert_array_equal(np.asarray(f(x, w, b)), np.asarray(_dense(x, w, b)))
    with xa.lazy():
        y = _dense(x, w, b)
    np.testing.assert_array_equal(np.asarray(y), np.asarray(_dense(x, w, b)))
    g = xa.jit(lambda p, q: (lax.dot_general(p, q, (((1,), (0,)), ((), ()))) * 0.5)
               .astype(xa.float16))
    assert g.lower(x, w).compile().kernel_count == 1
    np.testing.assert_array_equal(np.asarray(g(x, w)),
                                  np.asarray(((x @ w) * 0.5).astype(xa.float16)))


def test_dot_with_other_readers_is_not_fused():
    x = xa.ones((8, 4))
    f = xa.jit(lambda p: (p @ p.T, xa.exp(p @ p.T)))
    assert "kOutput" not in f.lower(x).compile().as_text()
    a, e = f(x)
    np.testing.assert_array_equal(np.asarray(a), 4.0)
    np.testing.assert_allclose(np.asarray(e), np.exp(4.0), rtol=1e-6)


def test_eager_matmul_plans_match_the_general_path():
    # Tensors take the cached plan; NumPy arrays the general path: the same bits.
    rng = np.random.default_rng(14)
    for sa, sb in [((5, 7), (7, 3)), ((7,), (7, 3)), ((5, 7), (7,)), ((7,), (7,)),
                   ((2, 5, 7), (7, 3)), ((2, 5, 7), (2, 7, 3)), ((2, 5, 7), (7,))]:
        for dt in (np.float32, np.complex128, np.int64):
            a = (rng.standard_normal(sa) * 3).astype(dt)
            b = (rng.standard_normal(sb) * 3).astype(dt)
            fast = xa.matmul(xa.asarray(a), xa.asarray(b))
            general = xa.matmul(a, b)
            assert fast.shape == general.shape == np.matmul(a, b).shape
            np.testing.assert_array_equal(np.asarray(fast), np.asarray(general))


def _same_bits_on_1_and_2_threads_and_close(ta, tb, ref, bound, k, dt):
    """lax.dot(ta, tb) gives the same bits on 1 and 2 threads, within _close of ref.
    (The caller restores the thread count.)"""
    got = []
    for t in (1, 2):
        xa.set_num_threads(t)
        got.append(np.asarray(lax.dot(ta, tb)))
    np.testing.assert_array_equal(got[0], got[1])
    _close(xa.asarray(got[1]), ref, bound, k, dt, dt)


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.int32])
def test_small_c_over_long_k_against_reference(isa, dt):
    """The k-split path (a C of at most 128 x 128 over k >= 2048: 64 x 4096 x 64), whose
    parts read A and B in place when the direct kernels can (row-major A, unit-stride B)
    and pack them otherwise (column-major A, transposed or strided B): each ISA against
    the float64 reference, and the same bits on 1 and 2 threads."""
    rng = np.random.default_rng(17)
    before, threads = CORE.get_isa(), xa.get_num_threads()
    try:
        CORE.set_isa(isa)
        for m, k, n in [(64, 4096, 64), (61, 2051, 70), (7, 2048, 128), (128, 3001, 5)]:
            a, b = _values(rng, (m, k), dt), _values(rng, (k, n), dt)
            r, bound = _reference(a, b, (((1,), (0,)), ((), ())), dt)
            for how_a, how_b in (("c", "c"), ("colmajor", "c"), ("c", "transposed"),
                                 ("step", "step")):
                _same_bits_on_1_and_2_threads_and_close(
                    make_tensor(a, how_a), make_tensor(b, how_b), r, bound, k, dt)
    finally:
        CORE.set_isa(before)
        xa.set_num_threads(threads)


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128,
                                np.int32], ids=lambda d: np.dtype(d).name)
def test_medium_products_in_place_and_packed_against_reference(isa, dt):
    """Products past kGemmDirectMacs whose B fits in half of L2 read A and B in place (the
    direct kernels over the whole k); a B past that is packed (BLIS's loops): both on each
    ISA against the float64 / exact reference, edge tiles included, the same bits on 1
    and 2 threads, and a small B stored along k (x @ y.T, einsum 'bij,bkj->bik') made into
    rows by the in-register transpose on every ISA."""
    rng = np.random.default_rng(18)
    before, threads = CORE.get_isa(), xa.get_num_threads()
    shapes = [(131, 77, 93), (64, 257, 64), (200, 130, 203),   # B small: in place
              (37, 700, 900), (129, 515, 520)]                    # B past L2 / 2: packed
    small = [(19, 23, 21), (16, 16, 16), (33, 17, 47), (5, 64, 64)]
    try:
        CORE.set_isa(isa)
        for m, k, n in shapes + small:
            a, b = _values(rng, (m, k), dt), _values(rng, (k, n), dt)
            r, bound = _reference(a, b, (((1,), (0,)), ((), ())), dt)
            hows = (("c", "c"), ("c", "transposed")) if (m, k, n) in small else \
                (("c", "c"),)
            for how_a, how_b in hows:
                _same_bits_on_1_and_2_threads_and_close(
                    make_tensor(a, how_a), make_tensor(b, how_b), r, bound, k, dt)
        # a batch of small products with B stored along k
        a, b = _values(rng, (6, 20, 33), dt), _values(rng, (6, 35, 33), dt)
        dn = (((2,), (2,)), ((0,), (0,)))
        _check(a, b, dn, 33)
    finally:
        CORE.set_isa(before)
        xa.set_num_threads(threads)


def test_kernel_rate_measures_each_kernel():
    from xarr._bindings.gemm import kernel_rate
    f32, s32 = CODE_OF[np.dtype(np.float32)], CODE_OF[np.dtype(np.int32)]
    for isa in ISAS:
        for dt in (np.float32, np.float64, np.complex64, np.int32):
            rate = kernel_rate(CODE_OF[np.dtype(dt)], isa=CORE.isa_code(isa), seconds=0.002)
            assert rate > 0, (isa, dt)
    i8, bf = CODE_OF[np.dtype(np.int8)], CODE_OF[BF16]
    assert kernel_rate(s32, i8, i8, seconds=0.002) > 0  # the k-grouped kernel, or the table's
    assert kernel_rate(f32, bf, bf, seconds=0.002) > 0
    with pytest.raises(ValueError, match="kernel_rate"):
        kernel_rate(CODE_OF[np.dtype(np.int8)])
