"""The linear-algebra rows of benchmarks/compare.py (issue 18): xa.linalg's norms, the
factorizations on xarr's own kernels (Cholesky, triangular solve, LU) and those on LAPACK
(SVD, eigh, eig, QR, lstsq, pinv), each against numpy.linalg and, where installed, scipy,
torch and jax.jit. Each builder returns compare.py's rows and fills the peers' tables."""

import numpy as np

import xarr as xa
from xarr.tour import best_time as best

from peers import SCIPY, jax, jnp, scipy_linalg, torch


def _x64(fn):
    """fn run in jax's 64-bit mode: without it jax turns the f64 rows' arrays into f32
    (and its times are those of single precision)."""
    def run():
        with jax.enable_x64(True):
            return fn()
    return run


def linalg_rows(t, jx):
    """Issue 18's xa.linalg norms (xarr/_numpy/linalg.py): the Frobenius and 1-norm of a
    4096x4096 f32 matrix and the 2-norm of 16M f32, against numpy.linalg, torch.linalg
    and jax.jit. (GB/s: the operand read once.)"""
    rng = np.random.default_rng(18)
    m = rng.standard_normal((4096, 4096)).astype(np.float32)
    v = rng.standard_normal(16 * 1024 * 1024).astype(np.float32)
    xm, xv = xa.asarray(m, copy=True), xa.asarray(v, copy=True)
    if torch is not None:
        tm, tv = torch.from_numpy(m), torch.from_numpy(v)
        t.update({"linalg_norm_fro_f32": lambda: torch.linalg.norm(tm),
                  "linalg_norm_1_f32": lambda: torch.linalg.matrix_norm(tm, ord=1),
                  "linalg_vector_norm_f32": lambda: torch.linalg.vector_norm(tv)})
    if jax is not None:
        jm, jv = jnp.asarray(m), jnp.asarray(v)
        jf = jax.jit(jnp.linalg.norm)
        j1 = jax.jit(lambda x: jnp.linalg.norm(x, ord=1))
        jvn = jax.jit(jnp.linalg.vector_norm)
        jx.update({"linalg_norm_fro_f32": lambda: jf(jm).block_until_ready(),
                   "linalg_norm_1_f32": lambda: j1(jm).block_until_ready(),
                   "linalg_vector_norm_f32": lambda: jvn(jv).block_until_ready()})
    return [
        ("linalg_norm_fro_f32", "linalg.norm 4096^2 f32 ('fro')", lambda: np.linalg.norm(m),
         lambda: xa.linalg.norm(xm), best, m.nbytes),
        ("linalg_norm_1_f32", "linalg.norm 4096^2 f32 (ord=1)",
         lambda: np.linalg.norm(m, 1), lambda: xa.linalg.norm(xm, 1), best, m.nbytes),
        ("linalg_vector_norm_f32", "linalg.vector_norm 16M f32",
         lambda: np.linalg.vector_norm(v), lambda: xa.linalg.vector_norm(xv), best, v.nbytes),
    ]


def factor_rows(t, jx):
    """Issue 18's factorizations on xarr's kernels (csrc/kernels/linalg/): Cholesky of a
    2048^2 f64 SPD matrix (goal 1.0x NumPy), a triangular solve with 2048 right-hand sides
    (goal 1.0x scipy.linalg.solve_triangular), solve of 2048^2, and 10000 batched 8x8
    inv / solve / cholesky (goal 3x NumPy), against NumPy (OpenBLAS), scipy, torch and jax."""
    rng = np.random.default_rng(18)
    g = rng.standard_normal((2048, 2048))
    spd = g @ g.T + 2048 * np.eye(2048)
    low = np.linalg.cholesky(spd)
    rhs = rng.standard_normal((2048, 2048))
    small = rng.standard_normal((10000, 8, 8))
    small_spd = small @ np.swapaxes(small, -1, -2) + 8 * np.eye(8)
    vec = rng.standard_normal((10000, 8, 1))
    x_spd, x_low, x_rhs, x_g = (xa.asarray(v, copy=True) for v in (spd, low, rhs, g))
    x_small, x_sspd, x_vec = (xa.asarray(v, copy=True) for v in (small, small_spd, vec))
    if scipy_linalg is not None:
        sla = scipy_linalg
        SCIPY.update({"factor_trsm_f64": lambda: sla.solve_triangular(low, rhs, lower=True),
                      "factor_cholesky_f64": lambda: sla.cholesky(spd, lower=True)})
    if torch is not None:
        ts, tl, tr, tg = (torch.from_numpy(v) for v in (spd, low, rhs, g))
        tsm, tss, tv = (torch.from_numpy(v) for v in (small, small_spd, vec))
        t.update({"factor_cholesky_f64": lambda: torch.linalg.cholesky(ts),
                  "factor_trsm_f64": lambda: torch.linalg.solve_triangular(tl, tr, upper=False),
                  "factor_solve_f64": lambda: torch.linalg.solve(tg, tr),
                  "factor_inv_8x8": lambda: torch.linalg.inv(tsm),
                  "factor_solve_8x8": lambda: torch.linalg.solve(tsm, tv),
                  "factor_cholesky_8x8": lambda: torch.linalg.cholesky(tss)})
    if jax is not None:
        with jax.enable_x64(True):
            js, jl, jr, jg = (jnp.asarray(v) for v in (spd, low, rhs, g))
            jsm, jss, jv = (jnp.asarray(v) for v in (small, small_spd, vec))
        jchol, jinv = jax.jit(jnp.linalg.cholesky), jax.jit(jnp.linalg.inv)
        jsolve = jax.jit(jnp.linalg.solve)
        jtri = jax.jit(lambda a, b: jax.scipy.linalg.solve_triangular(a, b, lower=True))
        jx.update({k: _x64(f) for k, f in {
            "factor_cholesky_f64": lambda: jchol(js).block_until_ready(),
            "factor_trsm_f64": lambda: jtri(jl, jr).block_until_ready(),
            "factor_solve_f64": lambda: jsolve(jg, jr).block_until_ready(),
            "factor_inv_8x8": lambda: jinv(jsm).block_until_ready(),
            "factor_solve_8x8": lambda: jsolve(jsm, jv).block_until_ready(),
            "factor_cholesky_8x8": lambda: jchol(jss).block_until_ready()}.items()})
    return [
        ("factor_cholesky_f64", "cholesky 2048^2 f64", lambda: np.linalg.cholesky(spd),
         lambda: xa.linalg.cholesky(x_spd), best, None),
        ("factor_trsm_f64", "triangular solve 2048^2, 2048 rhs f64",
         lambda: np.linalg.solve(low, rhs),
         lambda: xa.lax.linalg.triangular_solve(x_low, x_rhs, left_side=True, lower=True),
         best, None),
        ("factor_solve_f64", "solve 2048^2, 2048 rhs f64", lambda: np.linalg.solve(g, rhs),
         lambda: xa.linalg.solve(x_g, x_rhs), best, None),
        ("factor_inv_8x8", "inv 10000 x 8x8 f64", lambda: np.linalg.inv(small),
         lambda: xa.linalg.inv(x_small), best, None),
        ("factor_solve_8x8", "solve 10000 x 8x8 f64", lambda: np.linalg.solve(small, vec),
         lambda: xa.linalg.solve(x_small, x_vec), best, None),
        ("factor_cholesky_8x8", "cholesky 10000 x 8x8 f64",
         lambda: np.linalg.cholesky(small_spd), lambda: xa.linalg.cholesky(x_sspd), best,
         None),
    ]


def decomposition_rows(t, jx):
    """Issue 18's LAPACK half (xarr/_numpy/decompositions.py on scipy-openblas64): SVD,
    eigh, QR, eig, lstsq and pinv of mid-size f64 matrices, where xarr and NumPy call the
    same OpenBLAS LAPACK (parity expected: xarr's copies into LAPACK's layout are its own),
    and 10000 batched 8x8 SVD / eigh / QR, where NumPy calls LAPACK matrix by matrix on one
    thread and xarr splits the batch over its threads."""
    rng = np.random.default_rng(19)
    sq = rng.standard_normal((1024, 1024))
    sym = sq + sq.T
    tall = rng.standard_normal((2048, 512))
    rhs = rng.standard_normal((2048, 8))
    small = rng.standard_normal((10000, 8, 8))
    small_sym = small + np.swapaxes(small, -1, -2)
    eig_in = sq[:512, :512].copy()
    xs, xsym, xtall, xrhs, xeig = (xa.asarray(v, copy=True) for v in
                                   (sq, sym, tall, rhs, eig_in))
    xsmall, xssym = xa.asarray(small, copy=True), xa.asarray(small_sym, copy=True)
    if scipy_linalg is not None:
        sla = scipy_linalg
        SCIPY.update({"dec_svd_f64": lambda: sla.svd(sq, full_matrices=False),
                      "dec_eigh_f64": lambda: sla.eigh(sym),
                      "dec_qr_f64": lambda: sla.qr(tall, mode="economic"),
                      "dec_eig_f64": lambda: sla.eig(eig_in),
                      "dec_lstsq_f64": lambda: sla.lstsq(tall, rhs, lapack_driver="gelsd")})
    if torch is not None:
        ts, tsym, ttall, trhs, te = (torch.from_numpy(v) for v in
                                     (sq, sym, tall, rhs, eig_in))
        tsm, tss = torch.from_numpy(small), torch.from_numpy(small_sym)
        t.update({"dec_svd_f64": lambda: torch.linalg.svd(ts, full_matrices=False),
                  "dec_eigh_f64": lambda: torch.linalg.eigh(tsym),
                  "dec_qr_f64": lambda: torch.linalg.qr(ttall),
                  "dec_eig_f64": lambda: torch.linalg.eig(te),
                  "dec_lstsq_f64": lambda: torch.linalg.lstsq(ttall, trhs, driver="gelsd"),
                  "dec_pinv_f64": lambda: torch.linalg.pinv(ttall),
                  "dec_svd_8x8": lambda: torch.linalg.svd(tsm),
                  "dec_eigh_8x8": lambda: torch.linalg.eigh(tss),
                  "dec_qr_8x8": lambda: torch.linalg.qr(tsm)})
    if jax is not None:
        with jax.enable_x64(True):
            js, jsym, jtall, jrhs = (jnp.asarray(v) for v in (sq, sym, tall, rhs))
            jsm, jss = jnp.asarray(small), jnp.asarray(small_sym)
        jsvd = jax.jit(lambda a: jnp.linalg.svd(a, full_matrices=False))
        jeigh, jqr = jax.jit(jnp.linalg.eigh), jax.jit(jnp.linalg.qr)
        jlstsq, jpinv = jax.jit(jnp.linalg.lstsq), jax.jit(jnp.linalg.pinv)
        jsvd_full = jax.jit(jnp.linalg.svd)

        def ready(out):
            return jax.block_until_ready(out)
        jx.update({k: _x64(f) for k, f in {
            "dec_svd_f64": lambda: ready(jsvd(js)),
            "dec_eigh_f64": lambda: ready(jeigh(jsym)),
            "dec_qr_f64": lambda: ready(jqr(jtall)),
            "dec_lstsq_f64": lambda: ready(jlstsq(jtall, jrhs)),
            "dec_pinv_f64": lambda: ready(jpinv(jtall)),
            "dec_svd_8x8": lambda: ready(jsvd_full(jsm)),
            "dec_eigh_8x8": lambda: ready(jeigh(jss)),
            "dec_qr_8x8": lambda: ready(jqr(jsm))}.items()})
    return [
        ("dec_svd_f64", "svd 1024^2 f64 (reduced)",
         lambda: np.linalg.svd(sq, full_matrices=False),
         lambda: xa.linalg.svd(xs, full_matrices=False), best, None),
        ("dec_eigh_f64", "eigh 1024^2 f64", lambda: np.linalg.eigh(sym),
         lambda: xa.linalg.eigh(xsym), best, None),
        ("dec_qr_f64", "qr 2048x512 f64 (reduced)", lambda: np.linalg.qr(tall),
         lambda: xa.linalg.qr(xtall), best, None),
        ("dec_eig_f64", "eig 512^2 f64", lambda: np.linalg.eig(eig_in),
         lambda: xa.linalg.eig(xeig), best, None),
        ("dec_lstsq_f64", "lstsq 2048x512, 8 rhs f64", lambda: np.linalg.lstsq(tall, rhs),
         lambda: xa.linalg.lstsq(xtall, xrhs), best, None),
        ("dec_pinv_f64", "pinv 2048x512 f64", lambda: np.linalg.pinv(tall),
         lambda: xa.linalg.pinv(xtall), best, None),
        ("dec_svd_8x8", "svd 10000 x 8x8 f64", lambda: np.linalg.svd(small),
         lambda: xa.linalg.svd(xsmall), best, None),
        ("dec_eigh_8x8", "eigh 10000 x 8x8 f64", lambda: np.linalg.eigh(small_sym),
         lambda: xa.linalg.eigh(xssym), best, None),
        ("dec_qr_8x8", "qr 10000 x 8x8 f64", lambda: np.linalg.qr(small),
         lambda: xa.linalg.qr(xsmall), best, None),
    ]
