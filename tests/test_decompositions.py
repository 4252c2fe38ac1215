"""xa.linalg's LAPACK members (csrc/kernels/linalg/lapack.h, xarr/_ops/lapack.py,
xarr/_numpy/decompositions.py): svd, svdvals, eigh, eigvalsh, eig, eigvals, qr, lstsq,
pinv, matrix_rank, cond and the singular-value norms, against NumPy and against their
defining identities (U S Vh = A, A V = V W, Q R = A, orthonormal factors) with tolerances
scaled by size and condition number, over dtypes, batch shapes (size 0 and 1 included),
layouts, thread counts and the errors NumPy raises."""

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xarr as xa
from xarr._bindings import lapack as lapack_kernels
from conftest import make_tensor, random_matrix

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
SHAPES = [(1, 1), (3, 3), (5, 3), (3, 5), (4, 7, 7), (2, 3, 6, 4), (0, 3, 3), (2, 4, 0),
          (2, 0, 3), (70, 40)]


def eps(dtype):
    return float(np.finfo(np.dtype(dtype)).eps)


def hermitian(shape, dtype, seed=0):
    m = random_matrix(shape, dtype, seed)
    return ((m + np.conj(np.swapaxes(m, -1, -2))) / 2).astype(dtype)


def small(residual, scale, dtype, factor=50):
    """|residual| <= factor * n * eps * scale, elementwise maxima."""
    residual = np.asarray(residual)
    if residual.size == 0:
        return
    n = max(residual.shape[-2:]) if residual.ndim >= 2 else max(residual.shape[-1:], default=1)
    bound = factor * max(n, 1) * eps(dtype) * max(scale, 1.0)
    assert np.abs(residual).max() <= bound, (np.abs(residual).max(), bound)


def same_kind(got, want):
    got = np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    return got


def unitary(q, dtype):
    q = np.asarray(q)
    gram = np.conj(np.swapaxes(q, -1, -2)) @ q
    small(gram - np.eye(q.shape[-1]), 1, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("full", [True, False])
def test_svd_against_numpy(dtype, shape, full):
    a = random_matrix(shape, dtype)
    want_u, want_s, want_vh = np.linalg.svd(a, full_matrices=full)
    u, s, vh = xa.linalg.svd(a, full_matrices=full)
    u, s, vh = same_kind(u, want_u), same_kind(s, want_s), same_kind(vh, want_vh)
    scale = np.abs(a).max() if a.size else 1
    small(s - want_s, scale, dtype)
    k = min(shape[-2:])
    small((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :] - a, scale, dtype)
    unitary(u, dtype)
    unitary(np.conj(np.swapaxes(vh, -1, -2)), dtype)
    values = same_kind(xa.linalg.svd(a, compute_uv=False), want_s)
    small(values - want_s, scale, dtype)
    small(np.asarray(xa.linalg.svdvals(a)) - want_s, scale, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (3, 6, 6), (0, 2, 2), (2, 0, 0), (50, 50)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_against_numpy(dtype, shape, uplo):
    h = hermitian(shape, dtype)
    # only the named triangle is read: poison the other one
    other = np.triu(np.ones(shape[-2:]), 1) if uplo == "L" else np.tril(np.ones(shape[-2:]), -1)
    given_ = np.where(other.astype(bool), np.asarray(99, dtype), h).astype(dtype)
    want_w, want_v = np.linalg.eigh(h)
    w, v = xa.linalg.eigh(given_, UPLO=uplo)
    w, v = same_kind(w, want_w), same_kind(v, want_v)
    scale = np.abs(h).max() if h.size else 1
    small(w - want_w, scale, dtype)
    small(h @ v - v * w[..., None, :], scale, dtype)
    unitary(v, dtype)
    small(np.asarray(xa.linalg.eigvalsh(given_, UPLO=uplo)) - want_w, scale, dtype)


def sorted_eigenvalues(w):
    return np.sort_complex(np.asarray(w, dtype=np.complex128))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (5, 5), (3, 6, 6), (0, 3, 3), (2, 0, 0),
                                   (40, 40)])
def test_eig_against_numpy(dtype, shape):
    a = random_matrix(shape, dtype, 2)
    want_w, want_v = np.linalg.eig(a)
    w, v = xa.linalg.eig(a)
    w, v = same_kind(w, want_w), same_kind(v, want_v)
    scale = np.abs(a).max() if a.size else 1
    # eigenvalues are as well conditioned as the eigenvector basis allows
    cond = np.linalg.cond(want_v).max() if a.size else 1
    small(sorted_eigenvalues(w) - sorted_eigenvalues(want_w), scale * cond, dtype)
    small(a @ v - v * w[..., None, :], scale, dtype)
    if v.size:
        np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1, atol=100 * eps(dtype))
    same_kind(xa.linalg.eigvals(a), want_w)


def test_eig_of_real_matrices_is_real_when_the_eigenvalues_are():
    sym = hermitian((4, 4), np.float64)
    w, v = xa.linalg.eig(sym)
    assert np.dtype(w.dtype) == np.float64 and np.dtype(v.dtype) == np.float64
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]], np.float32)
    w = xa.linalg.eigvals(rotation)
    assert np.dtype(w.dtype) == np.complex64
    np.testing.assert_allclose(sorted_eigenvalues(w), [-1j, 1j], atol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r", "raw"])
def test_qr_against_numpy(dtype, shape, mode):
    a = random_matrix(shape, dtype, 3)
    want = np.linalg.qr(a, mode=mode)
    got = xa.linalg.qr(a, mode=mode)
    scale = np.abs(a).max() if a.size else 1
    if mode == "r":
        small(same_kind(got, want) - want, scale, dtype)
        return
    first, second = same_kind(got[0], want[0]), same_kind(got[1], want[1])
    # LAPACK's geqrf on both sides: the same factors up to rounding
    small(first - want[0], scale, dtype)
    small(second - want[1], scale, dtype)
    if mode != "raw":
        small(first @ second - a, scale, dtype)
        unitary(first, dtype)
        assert np.array_equal(np.triu(second), second)
        assert np.asarray(got.R).flags["C_CONTIGUOUS"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m, n, k", [(6, 3, 2), (3, 6, 2), (5, 5, 1), (1, 1, 1), (6, 3, 0),
                                     (0, 3, 2), (3, 0, 2), (40, 20, 3), (6, 3, None),
                                     (3, 6, None), (0, 2, None), (4, 0, None)])
def test_lstsq_against_numpy(dtype, m, n, k):
    """(k None: b is a vector)"""
    a = random_matrix((m, n), dtype, 4)
    b = random_matrix((m,) if k is None else (m, k), dtype, 5)
    want = np.linalg.lstsq(a, b)
    got = xa.linalg.lstsq(a, b)
    cond = np.linalg.cond(a) if a.size else 1
    scale = max(np.abs(b).max() if b.size else 1, 1)
    small(same_kind(got[0], want[0]) - want[0], scale * cond, dtype, 200)
    small(same_kind(got[1], want[1]) - want[1], scale * scale * cond, dtype, 200)
    assert got[2] == want[2]
    small(same_kind(got[3], want[3]) - want[3], np.abs(a).max() if a.size else 1, dtype)


def test_lstsq_rank_deficient_rcond_and_batches():
    a = random_matrix((8, 3), np.float64, 6)
    a[:, 2] = a[:, 0] + a[:, 1]                      # rank 2
    b = random_matrix((8, 2), np.float64, 7)
    want = np.linalg.lstsq(a, b)
    got = xa.linalg.lstsq(a, b)
    assert got[2] == want[2] == 2 and np.asarray(got[1]).shape == (0,)
    np.testing.assert_allclose(np.asarray(got[0]), want[0], atol=1e-12)
    for rcond in (1e-3, 0.5):
        np.testing.assert_allclose(np.asarray(xa.linalg.lstsq(a, b, rcond=rcond)[0]),
                                   np.linalg.lstsq(a, b, rcond=rcond)[0], atol=1e-12)
    stack = random_matrix((4, 7, 3), np.float64, 8)
    rhs = random_matrix((7, 2), np.float64, 9)
    x, residuals, rank, s = xa.linalg.lstsq(stack, rhs)       # (b broadcasts)
    for i in range(4):
        w = np.linalg.lstsq(stack[i], rhs)
        np.testing.assert_allclose(np.asarray(x)[i], w[0], atol=1e-12)
        np.testing.assert_allclose(np.asarray(residuals)[i], w[1], rtol=1e-10)
        assert np.asarray(rank)[i] == w[2]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, hermitian_", [
    ((4, 4), False), ((6, 3), False), ((3, 6), False), ((2, 5, 4), False), ((0, 3), False),
    ((4, 4), True), ((3, 5, 5), True), ((0, 0), True)])
def test_pinv_rank_cond_against_numpy(dtype, shape, hermitian_):
    a = hermitian(shape, dtype) if hermitian_ else random_matrix(shape, dtype, 10)
    want = np.linalg.pinv(a, hermitian=hermitian_)
    got = same_kind(xa.linalg.pinv(a, hermitian=hermitian_), want)
    cond = np.linalg.cond(a).max() if a.size else 1
    small(got - want, (np.abs(want).max() if a.size else 1) * cond, dtype, 200)
    assert np.array_equal(np.asarray(xa.linalg.matrix_rank(a, hermitian=hermitian_)),
                          np.linalg.matrix_rank(a, hermitian=hermitian_))
    if a.size:
        got_u, got_s, got_vh = xa.linalg.svd(a, hermitian=hermitian_)
        small(np.asarray(got_s) - np.linalg.svd(a, compute_uv=False), cond, dtype)
        u, s, vh = map(np.asarray, (got_u, got_s, got_vh))
        k = min(shape[-2:])
        small((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :] - a, np.abs(a).max(), dtype)


def test_pinv_drops_small_singular_values_and_its_arguments():
    a = np.diag([2.0, 1e-20, 0.0])
    np.testing.assert_allclose(np.asarray(xa.linalg.pinv(a)), np.linalg.pinv(a))
    np.testing.assert_allclose(np.asarray(xa.linalg.pinv(a, rtol=None)),
                               np.linalg.pinv(a, rtol=None))
    np.testing.assert_allclose(np.asarray(xa.linalg.pinv(a, rcond=0.6)),
                               np.linalg.pinv(a, rcond=0.6))
    with pytest.raises(ValueError, match="rtol"):
        xa.linalg.pinv(a, rcond=0.1, rtol=0.1)
    assert xa.linalg.matrix_rank(a) == np.linalg.matrix_rank(a) == 1
    assert xa.linalg.matrix_rank(a, tol=2.5) == 0
    assert xa.linalg.matrix_rank(a, rtol=1e-30) == 2
    assert xa.linalg.matrix_rank(np.zeros(3)) == 0 and xa.linalg.matrix_rank(np.ones(3)) == 1


@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, np.inf, -np.inf, "fro", "nuc"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_cond_against_numpy(p, dtype):
    a = random_matrix((3, 5, 5), dtype, 11)
    want = np.linalg.cond(a, p)
    got = same_kind(xa.linalg.cond(a, p), want)
    np.testing.assert_allclose(got, want, rtol=1e3 * eps(dtype))
    singular = np.ones((3, 3), dtype)
    try:
        want = np.linalg.cond(singular, p)
    except np.linalg.LinAlgError:       # ('nuc' of the NaN inverse: an SVD of NaN)
        with pytest.raises(xa.linalg.LinAlgError, match="did not converge"):
            xa.linalg.cond(singular, p)
    else:
        assert np.isinf(np.asarray(xa.linalg.cond(singular, p))) == np.isinf(want)


@pytest.mark.parametrize("ord_", [2, -2, "nuc"])
@pytest.mark.parametrize("keepdims", [False, True])
def test_singular_value_norms(ord_, keepdims):
    a = random_matrix((3, 4, 5), np.complex64, 12)
    for axis in [(1, 2), (2, 0), (-1, -3)]:
        want = np.linalg.norm(a, ord_, axis=axis, keepdims=keepdims)
        got = same_kind(xa.linalg.norm(a, ord_, axis=axis, keepdims=keepdims), want)
        np.testing.assert_allclose(got, want, rtol=1e-5)
    want = np.linalg.matrix_norm(a.real, ord=ord_, keepdims=keepdims)
    got = same_kind(xa.linalg.matrix_norm(a.real, ord=ord_, keepdims=keepdims), want)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(xa.linalg.norm(a[0].real.astype(np.float64), ord_)),
                               np.linalg.norm(a[0].real.astype(np.float64), ord_), rtol=1e-12)


@pytest.mark.parametrize("how", ["c", "colmajor", "negstep", "transposed", "tiled", "step"])
def test_any_layout(how):
    a = random_matrix((2, 6, 4), np.float64, 13)
    t = make_tensor(a, how)
    a = np.asarray(t)
    np.testing.assert_allclose(np.asarray(xa.linalg.svd(t, compute_uv=False)),
                               np.linalg.svd(a, compute_uv=False), rtol=1e-12)
    q, r = xa.linalg.qr(t)
    np.testing.assert_allclose(np.asarray(q) @ np.asarray(r), a, atol=1e-12)
    h = make_tensor(hermitian((2, 5, 5), np.float64), how)
    np.testing.assert_allclose(np.asarray(xa.linalg.eigvalsh(h)),
                               np.linalg.eigvalsh(np.asarray(h)), atol=1e-12)
    sq = make_tensor(random_matrix((5, 5), np.float64, 14), how)
    np.testing.assert_allclose(sorted_eigenvalues(xa.linalg.eigvals(sq)),
                               sorted_eigenvalues(np.linalg.eigvals(np.asarray(sq))),
                               atol=1e-12)
    x = xa.linalg.lstsq(t[0], make_tensor(np.ones((6, 2)), how))[0]
    np.testing.assert_allclose(np.asarray(x), np.linalg.lstsq(a[0], np.ones((6, 2)))[0],
                               atol=1e-12)


@pytest.mark.parametrize("fn", ["svd", "eigh", "eig", "qr", "lstsq"])
def test_one_and_two_threads_agree(fn, restore_threads):
    """Threads split a batch, each matrix on one thread: the bits do not depend on the
    count. One large matrix runs on OpenBLAS's threads, whose blocked products split the
    sums by thread count, so there the results agree to rounding (eigenvalues compared
    sorted: a last-bit change can swap the order LAPACK returns them in)."""
    results = []
    for threads in (1, 2):
        xa._core.set_num_threads(threads)
        out = []
        for shape in [(300, 8, 8), (1, 200, 200)]:
            a = random_matrix(shape, np.float64, 15)
            if fn == "svd":
                out.append(np.asarray(xa.linalg.svd(a)[1]))
            elif fn == "eigh":
                out.append(np.asarray(xa.linalg.eigh(a + np.swapaxes(a, -1, -2))[1]))
            elif fn == "eig":
                out.append(np.asarray(xa.linalg.eigvals(a)))
            elif fn == "qr":
                out.append(np.asarray(xa.linalg.qr(a)[0]))
            else:
                out.append(np.asarray(xa.linalg.lstsq(a, a[..., :2])[0]))
        results.append(out)
    (batch_one, large_one), (batch_two, large_two) = results
    np.testing.assert_array_equal(batch_one, batch_two)
    if fn == "eig":
        large_one, large_two = np.sort_complex(large_one), np.sort_complex(large_two)
    np.testing.assert_allclose(large_one, large_two, rtol=1e-10, atol=1e-10)


def test_integer_and_bool_inputs_give_float64():
    a = np.array([[2, 1], [1, 2]])
    for fn in (xa.linalg.eigvalsh, xa.linalg.svdvals, xa.linalg.eigvals, xa.linalg.pinv):
        assert np.dtype(fn(a).dtype) == np.float64
    assert np.dtype(xa.linalg.qr(a).Q.dtype) == np.float64
    assert np.dtype(xa.linalg.svd(np.eye(2, dtype=bool)).U.dtype) == np.float64


@pytest.mark.parametrize("call, err, match", [
    (lambda: xa.linalg.svd(np.ones(3)), xa.linalg.LinAlgError, "1-dimensional"),
    (lambda: xa.linalg.eigh(np.ones((2, 3))), xa.linalg.LinAlgError, "square"),
    (lambda: xa.linalg.eig(np.ones((2, 3))), xa.linalg.LinAlgError, "square"),
    (lambda: xa.linalg.eigh(np.eye(2), UPLO="X"), ValueError, "UPLO"),
    (lambda: xa.linalg.qr(np.eye(2), mode="thin"), ValueError, "mode"),
    (lambda: xa.linalg.eig(np.array([[1.0, np.nan], [0.0, 1.0]])), xa.linalg.LinAlgError,
     "infs or NaNs"),
    (lambda: xa.linalg.svd(np.eye(2, dtype=np.float16)), TypeError, "float16"),
    (lambda: xa.linalg.lstsq(np.eye(3), np.ones(4)), xa.linalg.LinAlgError, "Incompatible"),
    (lambda: xa.linalg.cond(np.ones((3, 0))), xa.linalg.LinAlgError, "empty"),
    (lambda: xa.linalg.cond(np.ones((2, 3)), 1), xa.linalg.LinAlgError, "square"),
    (lambda: xa.linalg.norm(np.ones((2, 2)), 3), ValueError, "Invalid norm order"),
])
def test_bad_inputs_raise_clearly(call, err, match):
    with pytest.raises(err, match=match):
        call()
    assert issubclass(xa.linalg.LinAlgError, np.linalg.LinAlgError)


@pytest.mark.parametrize("call", [
    lambda a: xa.linalg.svd(a, compute_uv=False), lambda a: xa.linalg.svd(a),
    lambda a: xa.linalg.norm(a, "nuc"), lambda a: xa.linalg.lstsq(a, np.ones(2)),
    lambda a: xa.linalg.pinv(a), lambda a: xa.linalg.matrix_rank(a)])
def test_nan_does_not_converge_as_numpy(call):
    """LAPACK's gesdd / gelsd reject a matrix holding NaN; numpy.linalg (and xarr) raise
    LinAlgError for it (an inf gives NaN singular values, and LinAlgError in lstsq)."""
    a = np.array([[1.0, np.nan], [2.0, 3.0]])
    with pytest.raises(xa.linalg.LinAlgError, match="did not converge"):
        call(a)
    inf = np.array([[1.0, np.inf], [2.0, 3.0]])
    assert np.isnan(np.asarray(xa.linalg.svdvals(inf))).all()
    with pytest.raises(xa.linalg.LinAlgError, match="did not converge"):
        xa.linalg.lstsq(inf, np.ones(2))


@settings(max_examples=40, deadline=None)
@given(m=st.integers(0, 9), n=st.integers(0, 9), batch=st.sampled_from([(), (1,), (3,)]),
       dtype=st.sampled_from(DTYPES), seed=st.integers(0, 2**16))
def test_factorizations_reconstruct_property(m, n, batch, dtype, seed):
    a = random_matrix(batch + (m, n), dtype, seed)
    scale = np.abs(a).max() if a.size else 1
    u, s, vh = map(np.asarray, xa.linalg.svd(a, full_matrices=False))
    small((u * s[..., None, :]) @ vh - a, scale, dtype)
    q, r = map(np.asarray, xa.linalg.qr(a))
    small(q @ r - a, scale, dtype)
    if m == n:
        h = hermitian(batch + (n, n), dtype, seed)
        w, v = map(np.asarray, xa.linalg.eigh(h))
        small(h @ v - v * w[..., None, :], max(np.abs(h).max(), 1) if h.size else 1, dtype)


# ------------------------------------------------------------------------ xa.lax.linalg
@pytest.mark.parametrize("dtype", DTYPES)
def test_lax_ops_match_jax_semantics_eager_jit_lazy(dtype):
    lax = xa.lax
    a = random_matrix((3, 5, 4), dtype, 20)
    h = hermitian((3, 4, 4), dtype, 21)
    scale = np.abs(a).max()

    def run(x, y):
        u, s, vh = lax.linalg.svd(x)
        q, r = lax.linalg.qr(x, full_matrices=False)
        v, w = lax.linalg.eigh(y)
        return u, s, vh, q, r, v, w, lax.linalg.svd(x, compute_uv=False)

    eager = [np.asarray(o) for o in run(a, h)]
    jitted = [np.asarray(o) for o in xa.jit(run)(a, h)]
    with xa.lazy():
        lazy = run(xa.asarray(a), xa.asarray(h))
    lazy = [np.asarray(o) for o in lazy]
    for e, j, z in zip(eager, jitted, lazy):
        assert e.dtype == j.dtype == z.dtype and e.shape == j.shape == z.shape
        np.testing.assert_array_equal(e, j)
        np.testing.assert_array_equal(e, z)
    u, s, vh, q, r, v, w, s_only = eager
    real = np.zeros(0, dtype).real.dtype
    assert u.shape == (3, 5, 5) and vh.shape == (3, 4, 4) and u.dtype == dtype
    assert s.dtype == real and w.dtype == real and v.dtype == dtype
    small((u[..., :4] * s[..., None, :]) @ vh - a, scale, dtype)
    small(q @ r - a, scale, dtype)
    assert np.array_equal(np.triu(r), r) and q.shape == (3, 5, 4)
    small(h @ v - v * w[..., None, :], np.abs(h).max(), dtype)
    small(s_only - s, scale, dtype)      # (LAPACK's values-only path rounds differently)


def test_lax_eigh_symmetrizes_and_eig_vectors():
    lax = xa.lax
    m = random_matrix((4, 4), np.float64, 22)
    v, w = lax.linalg.eigh(m)                             # of (m + m^T) / 2
    np.testing.assert_allclose(np.asarray(w), np.linalg.eigvalsh((m + m.T) / 2), atol=1e-12)
    v, w = lax.linalg.eigh(np.tril(m), symmetrize_input=False)   # lower triangle only
    np.testing.assert_allclose(np.asarray(w), np.linalg.eigvalsh(np.tril(m)), atol=1e-12)
    w, vr = lax.linalg.eig(m)
    assert np.dtype(w.dtype) == np.complex128
    np.testing.assert_allclose(m @ np.asarray(vr), np.asarray(vr) * np.asarray(w), atol=1e-12)
    (w32,) = lax.linalg.eig(m.astype(np.float32), compute_right_eigenvectors=False)
    assert np.dtype(w32.dtype) == np.complex64
    with pytest.raises(NotImplementedError, match="left"):
        lax.linalg.eig(m, compute_left_eigenvectors=True)


def test_lax_failures_give_nan_and_the_hlo_text_names_the_ops():
    lax = xa.lax
    bad = np.stack([np.eye(3), np.full((3, 3), np.nan)])
    u, s, vh = lax.linalg.svd(bad)
    assert np.isfinite(np.asarray(s)[0]).all() and np.isnan(np.asarray(s)[1]).all()
    assert np.isnan(np.asarray(u)[1]).all()
    text = xa.jit(lambda x: lax.linalg.svd(x, full_matrices=False)).lower(bad).as_text()
    assert "svd(" in text and "full_matrices=false" in text
    with pytest.raises(ValueError, match="square"):
        lax.linalg.eigh(np.ones((2, 3)))
    with pytest.raises(TypeError, match="float32, float64"):
        lax.linalg.qr(np.ones((2, 3), np.int32))


def test_lapack_load_leaves_the_environment_as_it_was():
    """xarr shortens OpenBLAS's idle spin (OPENBLAS_THREAD_TIMEOUT) only while loading it."""
    before = os.environ.get("OPENBLAS_THREAD_TIMEOUT")
    xa.linalg.svdvals(np.eye(2))
    assert os.environ.get("OPENBLAS_THREAD_TIMEOUT") == before


def test_linalg_inside_jit_and_lazy():
    """svd / svdvals / eigh / eigvalsh / qr / cholesky record xa.lax.linalg ops in a graph;
    the members that raise on values compute a lazy operand first and refuse under jit."""
    a = random_matrix((3, 4, 4), np.float64, 30)
    h = hermitian((4, 4), np.float32, 31)

    def graph(x, y):
        return (xa.linalg.svd(x).S, xa.linalg.svdvals(x), xa.linalg.eigh(y).eigenvalues,
                xa.linalg.eigvalsh(y, UPLO="U"), xa.linalg.qr(x, mode="r"),
                xa.linalg.cholesky(y @ y.T + 4 * xa.eye(4, dtype=xa.float32), upper=True))

    eager = [np.asarray(o) for o in graph(xa.asarray(a), xa.asarray(h))]
    jitted = [np.asarray(o) for o in xa.jit(graph)(a, h)]
    with xa.lazy():
        lazy = graph(xa.asarray(a) * 1, xa.asarray(h) * 1)
    for e, j, z in zip(eager, jitted, (np.asarray(o) for o in lazy)):
        assert e.dtype == j.dtype == z.dtype
        np.testing.assert_allclose(j, e, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(z, e, rtol=1e-5, atol=1e-5)
    with pytest.raises(NotImplementedError, match="inside xa.jit"):
        xa.jit(lambda x: xa.linalg.inv(x))(a)
    with pytest.raises(NotImplementedError, match="inside xa.jit"):
        xa.jit(lambda x: xa.linalg.lstsq(x, x)[0])(a)
    with xa.lazy():
        x = xa.asarray(a) * 1
        inv, pinv = xa.linalg.inv(x), xa.linalg.pinv(x)
        sol = xa.linalg.lstsq(x[0], x[0][:, :2] * 1)[0]
    np.testing.assert_allclose(np.asarray(inv), np.linalg.inv(a), rtol=1e-8)
    np.testing.assert_allclose(np.asarray(pinv), np.linalg.pinv(a), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(np.asarray(sol), np.linalg.lstsq(a[0], a[0][:, :2])[0],
                               atol=1e-10)


def test_review_regressions():
    """NumPy's deprecated qr modes, matrix_rank's tol + rtol, the binding's type checks."""
    a = random_matrix((5, 3), np.float64, 40)
    with pytest.warns(DeprecationWarning, match="full"):
        q, r = xa.linalg.qr(a, mode="full")
    np.testing.assert_allclose(np.asarray(q) @ np.asarray(r), a, atol=1e-12)
    with pytest.warns(DeprecationWarning, match="economic"):
        h = xa.linalg.qr(a, mode="e")
    with pytest.warns(DeprecationWarning):
        want = np.linalg.qr(a, mode="economic")
    np.testing.assert_allclose(np.asarray(h), want, atol=1e-12)
    with pytest.raises(ValueError, match="both set"):
        xa.linalg.matrix_rank(a, tol=1.0, rtol=1.0)
    s = xa.empty((2,), dtype=xa.float64)
    info = xa.zeros((1,), dtype=xa.int64)
    with pytest.raises(TypeError, match="Tensor or None"):
        lapack_kernels.svd_(xa.asarray(np.eye(2)), 1, 2, 2, s, [1, 2, 3], "abcd", True, info)


def test_a_missing_or_wrong_lapack_raises_clearly():
    """In a fresh process (this one has loaded its LAPACK): a path that does not open, and a
    library without LAPACKE's routines, raise OSError naming what failed."""
    code = ("from xarr._bindings import lapack as k\n"
            "for path in ('/nonexistent/libx.so', 'libm.so.6'):\n"
            "    try:\n"
            "        k.load(path, 'scipy_', '64_')\n"
            "    except OSError as e:\n"
            "        print(e)\n"
            "print(k.loaded())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd="/").stdout
    assert "cannot open /nonexistent/libx.so" in out
    assert "lacks scipy_LAPACKE_dgesdd_work64_" in out
    assert out.strip().endswith("False")
