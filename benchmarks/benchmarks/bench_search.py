"""The sort family's binary searches: searchsorted of 1M random keys into 16M sorted f32
(issue 16's target: 1.5x NumPy) and into 1000 sorted f64 (the sorted row in L1), sorted
keys, small calls, and interp of 1M points on 1000 samples (issue 14)."""

import numpy as np

import xarr as xa

from .common import best_time


class SearchSorted:
    params = [[16_000_000, 1000]]
    param_names = ["n"]

    def setup(self, n):
        rng = np.random.default_rng(16)
        self.a = np.sort(rng.random(n, dtype=np.float32))
        self.v = rng.random(1_000_000, dtype=np.float32)
        self.ta, self.tv = xa.asarray(self.a), xa.asarray(self.v)

    def time_xarr(self, n):
        xa.searchsorted(self.ta, self.tv)

    def time_numpy(self, n):
        np.searchsorted(self.a, self.v)

    def track_speedup_vs_numpy(self, n):
        return (best_time(lambda: np.searchsorted(self.a, self.v), 3)
                / best_time(lambda: xa.searchsorted(self.ta, self.tv), 3))

    track_speedup_vs_numpy.unit = "x"


class SearchSortedSmall:
    """100 keys into 1000 values: the per-call cost."""

    def setup(self):
        rng = np.random.default_rng(17)
        self.a = np.sort(rng.random(1000))
        self.v = rng.random(100)
        self.ta, self.tv = xa.asarray(self.a), xa.asarray(self.v)

    def time_xarr(self):
        xa.searchsorted(self.ta, self.tv, side="right")

    def track_speedup_vs_numpy(self):
        return (best_time(lambda: np.searchsorted(self.a, self.v, side="right"), 200)
                / best_time(lambda: xa.searchsorted(self.ta, self.tv, side="right"), 200))

    track_speedup_vs_numpy.unit = "x"


class Interp:
    params = [[100, 1_000_000]]
    param_names = ["points"]

    def setup(self, points):
        rng = np.random.default_rng(18)
        self.xp = np.sort(rng.random(1000))
        self.fp = rng.standard_normal(1000)
        self.x = rng.random(points)
        self.tx, self.txp, self.tfp = (xa.asarray(v) for v in (self.x, self.xp, self.fp))

    def time_xarr(self, points):
        xa.interp(self.tx, self.txp, self.tfp)

    def track_speedup_vs_numpy(self, points):
        reps = 200 if points < 10_000 else 3
        return (best_time(lambda: np.interp(self.x, self.xp, self.fp), reps)
                / best_time(lambda: xa.interp(self.tx, self.txp, self.tfp), reps))

    track_speedup_vs_numpy.unit = "x"
