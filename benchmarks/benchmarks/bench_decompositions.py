"""The LAPACK factorizations (issue 18, csrc/kernels/linalg/lapack.h on scipy-openblas64):
SVD, eigh, QR, eig and lstsq of mid-size f64 matrices (parity with NumPy expected: both
call the same OpenBLAS LAPACK) and 10000 batched 8x8 SVD / eigh / QR, which xarr splits
over its threads where NumPy loops on one (scipy, torch and jax: benchmarks/compare.py's
`dec_*` rows)."""

import numpy as np

import xarr as xa

from . import bench_factor


class Large(bench_factor.Large):
    """Timing and the ratio as bench_factor.Large's (time_xarr, track_speedup_vs_numpy)."""

    params = [["svd", "eigh", "qr", "eig", "lstsq"]]

    def setup(self, op):
        rng = np.random.default_rng(0)
        sq = rng.standard_normal((512, 512))
        sym = sq + sq.T
        tall = rng.standard_normal((1024, 256))
        rhs = rng.standard_normal((1024, 4))
        xs, xsym, xt, xr = (xa.asarray(v) for v in (sq, sym, tall, rhs))
        self.calls = {
            "svd": (lambda: xa.linalg.svd(xs), lambda: np.linalg.svd(sq)),
            "eigh": (lambda: xa.linalg.eigh(xsym), lambda: np.linalg.eigh(sym)),
            "qr": (lambda: xa.linalg.qr(xt), lambda: np.linalg.qr(tall)),
            "eig": (lambda: xa.linalg.eig(xs), lambda: np.linalg.eig(sq)),
            "lstsq": (lambda: xa.linalg.lstsq(xt, xr), lambda: np.linalg.lstsq(tall, rhs)),
        }


class Batched8x8(Large):
    """10000 batched 8x8 problems; timing as Large's (best of 5 for the ratio)."""

    params = [["svd", "svdvals", "eigh", "qr"]]
    timeout = 60
    rounds = 5

    def setup(self, op):
        rng = np.random.default_rng(0)
        m = rng.standard_normal((10000, 8, 8))
        sym = m + np.swapaxes(m, -1, -2)
        xm, xs = xa.asarray(m), xa.asarray(sym)
        self.calls = {
            "svd": (lambda: xa.linalg.svd(xm), lambda: np.linalg.svd(m)),
            "svdvals": (lambda: xa.linalg.svdvals(xm), lambda: np.linalg.svdvals(m)),
            "eigh": (lambda: xa.linalg.eigh(xs), lambda: np.linalg.eigh(sym)),
            "qr": (lambda: xa.linalg.qr(xm), lambda: np.linalg.qr(m)),
        }
