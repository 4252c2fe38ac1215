"""xarr's own factorizations (csrc/kernels/linalg/, xarr/_ops/linalg.py,
xarr/_numpy/factorizations.py): lax.linalg.cholesky / triangular_solve with jax's
semantics, and xa.linalg's cholesky, solve, inv, det, slogdet against NumPy, over dtypes,
batch shapes (size 0 and 1 included), layouts, the blocked paths of large matrices, and
the errors (LinAlgError for singular and non-positive-definite inputs, NaN in lax)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xarr as xa
from conftest import make_tensor, random_matrix

lax = xa.lax
FACTOR_DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def tol(dtype, n=8):
    single = np.dtype(dtype) in (np.float32, np.complex64)
    return (2e-4 if single else 1e-10) * max(n, 1)


def spd(shape, dtype, seed=0):
    m = random_matrix(shape, dtype, seed)
    n = shape[-1]
    return (m @ np.conj(np.swapaxes(m, -1, -2)) + n * np.eye(n)).astype(dtype)


def close(got, want, dtype, n):
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype)
    scale = max(np.abs(want).max(), 1) if want.size else 1
    np.testing.assert_allclose(got, want, rtol=tol(dtype, n), atol=tol(dtype, n) * scale)


@pytest.mark.parametrize("dtype", FACTOR_DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (8, 8), (5, 4, 4), (2, 3, 6, 6), (0, 3, 3),
                                   (2, 0, 0), (150, 150)])
def test_cholesky_solve_inv_det_against_numpy(dtype, shape):
    a = spd(shape, dtype)
    n = shape[-1]
    close(xa.linalg.cholesky(a), np.linalg.cholesky(a), dtype, n)
    close(xa.linalg.cholesky(a, upper=True), np.linalg.cholesky(a, upper=True), dtype, n)
    close(xa.linalg.inv(a), np.linalg.inv(a), dtype, n)
    b = random_matrix(shape[:-1] + (3,), dtype, 1)
    close(xa.linalg.solve(a, b), np.linalg.solve(a, b), dtype, n)
    close(xa.linalg.det(a) if n < 40 else xa.linalg.slogdet(a)[1],
          np.linalg.det(a) if n < 40 else np.linalg.slogdet(a)[1], dtype, n)
    sign, logabs = xa.linalg.slogdet(a)
    want_sign, want_log = np.linalg.slogdet(a)
    close(sign, want_sign, dtype, n)
    close(logabs, want_log, dtype, n)


@pytest.mark.parametrize("how", ["c", "colmajor", "negstep", "transposed", "tiled"])
def test_any_layout(how):
    a = spd((6, 6), np.float64)
    t = make_tensor(a, how)
    close(xa.linalg.cholesky(t), np.linalg.cholesky(np.asarray(t)), np.float64, 6)
    close(xa.linalg.inv(t), np.linalg.inv(np.asarray(t)), np.float64, 6)
    close(lax.linalg.cholesky(t), np.linalg.cholesky(np.asarray(t)), np.float64, 6)


def test_general_matrices_pivot():
    a = random_matrix((20, 7, 7), np.float64, 3)
    a[:, 0, 0] = 0                                    # the first pivot must swap
    close(xa.linalg.inv(a), np.linalg.inv(a), np.float64, 7)
    close(xa.linalg.det(a), np.linalg.det(a), np.float64, 7)
    close(xa.linalg.solve(a, np.ones(7))[0], np.linalg.solve(a[0], np.ones(7)), np.float64, 7)


def test_solve_broadcasts_and_promotes():
    a = spd((4, 5, 5), np.float32)
    b = np.arange(5.0)
    close(xa.linalg.solve(a, b), np.linalg.solve(a, b), np.float64, 5)
    bb = random_matrix((5, 2), np.float32)
    close(xa.linalg.solve(a, bb), np.linalg.solve(a, bb), np.float32, 5)
    ai = np.array([[3, 1], [1, 2]])
    close(xa.linalg.solve(ai, [9, 8]), np.linalg.solve(ai, [9, 8]), np.float64, 2)
    close(xa.linalg.det(ai), np.linalg.det(ai), np.float64, 2)


@pytest.mark.parametrize("n", [96, 200, 300])
def test_large_matrices_take_the_blocked_paths(n, restore_threads):
    a = spd((n, n), np.float64, 5)
    want = np.linalg.cholesky(a)
    for threads in (1, 2):
        xa._core.set_num_threads(threads)
        close(xa.linalg.cholesky(a), want, np.float64, n)
        low = xa.asarray(want)
        b = random_matrix((n, 40), np.float64, 6)
        x = lax.linalg.triangular_solve(low, xa.asarray(b), left_side=True, lower=True)
        np.testing.assert_allclose(want @ np.asarray(x), b, atol=1e-9 * n)


@pytest.mark.parametrize("dtype", FACTOR_DTYPES)
@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose_a,conjugate_a", [(False, False), (True, False),
                                                     (True, True), (False, True)])
@pytest.mark.parametrize("unit", [False, True])
def test_triangular_solve_every_variant(dtype, left_side, lower, transpose_a, conjugate_a,
                                        unit):
    n = 6
    base = random_matrix((2, n, n), dtype, 7) + 4 * np.eye(n, dtype=dtype)
    a = base                         # only one triangle is read: the other is garbage
    tri = np.tril(base) if lower else np.triu(base)
    if unit:
        idx = np.arange(n)
        tri[..., idx, idx] = 1
    op = np.swapaxes(tri, -1, -2) if transpose_a else tri
    op = np.conj(op) if conjugate_a else op
    b = random_matrix((2, n, 3) if left_side else (2, 3, n), dtype, 8)
    x = np.asarray(lax.linalg.triangular_solve(a, b, left_side=left_side, lower=lower,
                                               transpose_a=transpose_a,
                                               conjugate_a=conjugate_a, unit_diagonal=unit))
    got = op @ x if left_side else x @ op
    np.testing.assert_allclose(got, b, atol=tol(dtype, n) * 10)


@pytest.mark.parametrize("n", [200, 300, 517])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_blocked_lu_against_numpy(n, dtype, restore_threads):
    """n >= 192: the blocked LU, its panels factored recursively (getrf2's order) in
    column-major copies, the trailing updates accumulated on the GEMM engine."""
    a = random_matrix((n, n), dtype, 11)
    a[:, 0] *= 1e-3                       # pivots come from far down the first column
    b = random_matrix((n, 5), dtype, 12)
    for threads in (1, 2):
        xa._core.set_num_threads(threads)
        x = np.asarray(xa.linalg.solve(a, b))
        np.testing.assert_allclose(a @ x, b, atol=1e-9 * n)
        close(xa.linalg.slogdet(a)[1], np.linalg.slogdet(a)[1], dtype, n)
        close(xa.linalg.inv(a), np.linalg.inv(a), dtype, 10 * n)
    singular = a.copy()
    singular[:, n // 2] = 0                  # an exact zero pivot inside a panel
    with pytest.raises(xa.linalg.LinAlgError, match="Singular"):
        xa.linalg.inv(singular)
    assert np.asarray(xa.linalg.det(singular)) == 0


@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose_a", [False, True])
def test_triangular_solve_recursive_paths(dtype, left_side, lower, transpose_a):
    """n = 150 with 40 right-hand sides: the recursive solve (halves of 80 / 70, leaves of
    <= 64 rows, the off-diagonal products accumulated on the GEMM engine)."""
    n = 150
    base = (random_matrix((n, n), dtype, 9) / np.sqrt(n) + 2 * np.eye(n)).astype(dtype)
    tri = np.tril(base) if lower else np.triu(base)
    op = tri.T if transpose_a else tri
    b = random_matrix((n, 40) if left_side else (40, n), dtype, 10)
    x = np.asarray(lax.linalg.triangular_solve(base, b, left_side=left_side, lower=lower,
                                               transpose_a=transpose_a))
    got = op @ x if left_side else x @ op
    np.testing.assert_allclose(got, b, atol=tol(dtype, n) * 10)


def test_lax_cholesky_symmetrizes_and_gives_nan():
    a = spd((3, 3), np.float64)
    skewed = a + np.triu(np.ones((3, 3)), 1)            # upper part differs
    want = np.linalg.cholesky((skewed + skewed.T) / 2)
    close(lax.linalg.cholesky(skewed), want, np.float64, 3)
    close(lax.linalg.cholesky(skewed, symmetrize_input=False), np.linalg.cholesky(a),
          np.float64, 3)
    batch = np.stack([a, -a])
    out = np.asarray(lax.linalg.cholesky(batch))
    assert np.isfinite(out[0]).all() and np.isnan(out[1]).all()


def test_lax_ops_under_jit_and_lazy():
    a = xa.asarray(spd((4, 4), np.float32))
    b = xa.asarray(random_matrix((4, 2), np.float32))

    def f(a, b):
        return lax.linalg.triangular_solve(lax.linalg.cholesky(a), b, left_side=True,
                                           lower=True)
    want = np.asarray(f(a, b))
    np.testing.assert_allclose(np.asarray(xa.jit(f)(a, b)), want, rtol=1e-6)
    with xa.lazy():
        lazy = f(a + 0, b)
    np.testing.assert_allclose(np.asarray(lazy), want, rtol=1e-6)
    text = xa.jit(f).lower(a, b).as_text()
    assert "cholesky(p0), lower=true" in text
    assert "triangular-solve(" in text and "transpose_a=NO_TRANSPOSE" in text


@pytest.mark.parametrize("call,err,match", [
    (lambda: xa.linalg.cholesky(np.array([[1.0, 2.0], [2.0, 1.0]])), xa.linalg.LinAlgError,
     "not positive definite"),
    (lambda: xa.linalg.inv(np.zeros((3, 3))), xa.linalg.LinAlgError, "Singular"),
    (lambda: xa.linalg.solve(np.zeros((2, 2)), np.ones(2)), xa.linalg.LinAlgError,
     "Singular"),
    (lambda: xa.linalg.det(np.zeros(3)), xa.linalg.LinAlgError, "at least two"),
    (lambda: xa.linalg.inv(np.zeros((2, 3))), xa.linalg.LinAlgError, "square"),
    (lambda: xa.linalg.det(np.zeros((2, 2), np.float16)), TypeError, "unsupported"),
    (lambda: xa.linalg.solve(np.eye(3), np.ones(4)), ValueError, "does not match"),
    (lambda: lax.linalg.cholesky(xa.zeros((2, 3))), ValueError, "square"),
    (lambda: lax.linalg.cholesky(xa.zeros((2, 2), dtype=xa.int32)), TypeError, "float32"),
    (lambda: lax.linalg.triangular_solve(xa.eye(3), xa.ones((4, 2)), left_side=True),
     ValueError, "rows"),
    (lambda: lax.linalg.triangular_solve(xa.eye(3), xa.ones((3, 2), dtype=xa.float32),
                                         left_side=True), TypeError, "dtype"),
])
def test_bad_inputs_raise_clearly(call, err, match):
    with pytest.raises(err, match=match):
        call()


def test_singular_slogdet_and_det():
    z = np.zeros((2, 3, 3))
    sign, logabs = xa.linalg.slogdet(z)
    np.testing.assert_array_equal(np.asarray(sign), [0, 0])
    np.testing.assert_array_equal(np.asarray(logabs), [-np.inf, -np.inf])
    np.testing.assert_array_equal(np.asarray(xa.linalg.det(z)), [0, 0])


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 12), batch=st.integers(0, 3), seed=st.integers(0, 1000),
       dtype=st.sampled_from(FACTOR_DTYPES))
def test_reconstruction_property(n, batch, seed, dtype):
    shape = (batch, n, n) if batch else (n, n)
    a = spd(shape, dtype, seed)
    low = np.asarray(xa.linalg.cholesky(a))
    recon = low @ np.conj(np.swapaxes(low, -1, -2))
    cond = float(np.max(np.linalg.cond(a))) if a.size else 1.0
    scale = float(np.abs(a).max()) if a.size else 1.0
    np.testing.assert_allclose(recon, a, atol=tol(dtype, n) * max(scale, 1) * max(cond, 1))
    g = random_matrix(shape, dtype, seed + 1) + 3 * np.eye(n, dtype=dtype)
    x = np.asarray(xa.linalg.solve(g, np.ones(shape[:-1] + (1,), dtype)))
    gcond = float(np.max(np.linalg.cond(g))) if g.size else 1.0
    np.testing.assert_allclose(g @ x, np.ones(shape[:-1] + (1,)), atol=tol(dtype, n) * gcond)


# ------------------------------------------------ regressions found in review (session 20)
def test_single_precision_is_factored_in_double_as_numpy():
    i = np.arange(7)
    hilbert = (1 / (i[:, None] + i[None, :] + 1)).astype(np.float32)
    b = np.ones(7, np.float32)
    ref = np.linalg.solve(hilbert.astype(np.float64), b.astype(np.float64))
    x = np.asarray(xa.linalg.solve(hilbert, b))
    assert x.dtype == np.float32
    assert np.abs(x - ref).max() / np.abs(ref).max() < 1e-6      # f32 pivots gave 0.65
    inv = np.asarray(xa.linalg.inv(hilbert))
    np.testing.assert_allclose(inv, np.linalg.inv(hilbert), rtol=1e-5)


def test_det_does_not_overflow_on_the_way():
    assert float(xa.linalg.det(np.diag([1e200, 1e200, 1e-300]))) == pytest.approx(1e100)
    assert float(xa.linalg.det(np.diag([1e30, 1e30, 1e-30]).astype(np.float32))) == \
        pytest.approx(1e30, rel=1e-5)


def test_numpy_compatible_errors_and_nan():
    with pytest.raises(np.linalg.LinAlgError):        # catchable as NumPy's
        xa.linalg.inv(np.zeros((2, 2)))
    with pytest.raises(TypeError, match="float16"):
        xa.linalg.solve(np.eye(2, dtype=np.float32), np.ones(2, np.float16))
    out = np.asarray(xa.linalg.cholesky(np.array([[np.nan, 0.0], [0.0, 1.0]])))
    assert np.isnan(out[0, 0])                        # NaN flows on, no LinAlgError


def test_conjugate_without_transpose_shows_in_the_text():
    a = xa.asarray(np.eye(2, dtype=np.complex64))
    b = xa.asarray(np.ones((2, 1), np.complex64))
    text = xa.jit(lambda a, b: lax.linalg.triangular_solve(
        a, b, left_side=True, lower=True, conjugate_a=True)).lower(a, b).as_text()
    assert "conjugate_a=true" in text
