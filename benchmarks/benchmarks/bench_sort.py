"""The sort family's sorts (issue 16): 16M f32 / i32 / f64 values (goal: 1.5x NumPy and
250 Melem/s for 4-byte keys on 2 AVX-512 threads), stable argsort of 16M f32 (3x NumPy,
100 Melem/s), 4096 rows of 4096 f32 along the last axis (2x NumPy), a 2-operand
lax.sort, and the small-call cost of sorting 100 values."""

import numpy as np

import xarr as xa

from .common import best_time


class SortValues:
    params = [["float32", "int32", "float64"]]
    param_names = ["dtype"]
    timeout = 300

    def setup(self, dtype):
        rng = np.random.default_rng(16)
        self.a = (rng.standard_normal(16 * 1024 * 1024) * 1e6).astype(dtype)
        self.t = xa.asarray(self.a)

    def time_xarr(self, dtype):
        xa.sort(self.t, stable=False)

    def track_melem_per_s(self, dtype):
        return self.a.size / best_time(lambda: xa.sort(self.t, stable=False), 3) / 1e6

    track_melem_per_s.unit = "Melem/s"

    def track_speedup_vs_numpy(self, dtype):
        return (best_time(lambda: np.sort(self.a), 2)
                / best_time(lambda: xa.sort(self.t, stable=False), 3))

    track_speedup_vs_numpy.unit = "x"


class ArgsortStable:
    timeout = 300

    def setup(self):
        rng = np.random.default_rng(17)
        self.a = rng.standard_normal(16 * 1024 * 1024).astype(np.float32)
        self.t = xa.asarray(self.a)

    def time_xarr(self):
        xa.argsort(self.t)

    def track_melem_per_s(self):
        return self.a.size / best_time(lambda: xa.argsort(self.t), 3) / 1e6

    track_melem_per_s.unit = "Melem/s"

    def track_speedup_vs_numpy(self):
        return (best_time(lambda: np.argsort(self.a, kind="stable"), 1)
                / best_time(lambda: xa.argsort(self.t), 3))

    track_speedup_vs_numpy.unit = "x"


class SortRows:
    def setup(self):
        rng = np.random.default_rng(18)
        self.a = rng.standard_normal((4096, 4096)).astype(np.float32)
        self.t = xa.asarray(self.a)

    def time_xarr(self):
        xa.sort(self.t, axis=-1)

    def track_speedup_vs_numpy(self):
        return (best_time(lambda: np.sort(self.a, axis=-1), 3)
                / best_time(lambda: xa.sort(self.t, axis=-1), 3))

    track_speedup_vs_numpy.unit = "x"


class LaxSortKeyValue:
    def setup(self):
        rng = np.random.default_rng(19)
        self.k = xa.asarray(rng.standard_normal(1 << 20).astype(np.float32))
        self.v = xa.asarray(np.arange(1 << 20, dtype=np.int32))

    def time_xarr(self):
        xa.lax.sort((self.k, self.v), num_keys=1)


class SortSmall:
    """100 values: the per-call cost."""

    def setup(self):
        self.a = np.random.default_rng(20).standard_normal(100)
        self.t = xa.asarray(self.a)

    def time_xarr(self):
        xa.sort(self.t)

    def track_speedup_vs_numpy(self):
        return (best_time(lambda: np.sort(self.a), 2000)
                / best_time(lambda: xa.sort(self.t), 2000))

    track_speedup_vs_numpy.unit = "x"
