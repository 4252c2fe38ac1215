"""The factorizations (issue 18, csrc/kernels/linalg/): Cholesky of 2048^2 f64 (goal: 1.0x
NumPy), a triangular solve with 2048 right-hand sides (goal: 1.0x scipy's, measured by
benchmarks/compare.py), solve / inv of 1024^2, and 10000 batched 8x8 inv / solve /
cholesky (goal: 3x NumPy)."""

import numpy as np

import xarr as xa

from .common import best_time


class Large:
    params = [["cholesky", "triangular_solve", "solve", "inv"]]
    param_names = ["op"]
    timeout = 300
    rounds = 3            # best-of for the ratio

    def setup(self, op):
        rng = np.random.default_rng(0)
        n = 2048 if op in ("cholesky", "triangular_solve") else 1024
        g = rng.standard_normal((n, n))
        spd = g @ g.T + n * np.eye(n)
        low = np.linalg.cholesky(spd)
        rhs = rng.standard_normal((n, n))
        xs, xl, xr, xg = (xa.asarray(v) for v in (spd, low, rhs, g))
        self.calls = {
            "cholesky": (lambda: xa.linalg.cholesky(xs), lambda: np.linalg.cholesky(spd)),
            "triangular_solve": (lambda: xa.lax.linalg.triangular_solve(
                xl, xr, left_side=True, lower=True), lambda: np.linalg.solve(low, rhs)),
            "solve": (lambda: xa.linalg.solve(xg, xr), lambda: np.linalg.solve(g, rhs)),
            "inv": (lambda: xa.linalg.inv(xg), lambda: np.linalg.inv(g)),
        }

    def time_xarr(self, op):
        self.calls[op][0]()

    def track_speedup_vs_numpy(self, op):
        mine, numpy_call = self.calls[op]
        return best_time(numpy_call, self.rounds) / best_time(mine, self.rounds)

    track_speedup_vs_numpy.unit = "x"


class Batched8x8(Large):
    """10000 batched 8x8 problems; timing as Large's (best of 5 for the ratio)."""

    params = [["inv", "solve", "cholesky", "det"]]
    timeout = 60
    rounds = 5

    def setup(self, op):
        rng = np.random.default_rng(0)
        m = rng.standard_normal((10000, 8, 8))
        spd = m @ np.swapaxes(m, -1, -2) + 8 * np.eye(8)
        b = rng.standard_normal((10000, 8, 1))
        xm, xs, xb = (xa.asarray(v) for v in (m, spd, b))
        self.calls = {
            "inv": (lambda: xa.linalg.inv(xm), lambda: np.linalg.inv(m)),
            "solve": (lambda: xa.linalg.solve(xm, xb), lambda: np.linalg.solve(m, b)),
            "cholesky": (lambda: xa.linalg.cholesky(xs), lambda: np.linalg.cholesky(spd)),
            "det": (lambda: xa.linalg.det(xm), lambda: np.linalg.det(m)),
        }
