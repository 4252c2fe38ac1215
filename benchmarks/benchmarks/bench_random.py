"""The random family (issue 18, csrc/kernels/random/ and xarr/_numpy/random.py): uniform
and normal floats of 16M f32 / f64 (goal: 2x NumPy's default_rng, measured by
benchmarks/compare.py too), bounded integers, the per-element samplers, a permutation,
and the small-call cost of one draw."""

import numpy as np

import xarr as xa

from .common import best_time

N = 16 * 1024 * 1024


class Fill:
    params = [["random", "standard_normal"], ["float32", "float64"], ["philox", "threefry"]]
    param_names = ["fn", "dtype", "algorithm"]
    timeout = 300

    def setup(self, fn, dtype, algorithm):
        self.g = xa.random.default_rng(0, algorithm=algorithm)
        self.np_g = np.random.default_rng(0)

    def time_xarr(self, fn, dtype, algorithm):
        getattr(self.g, fn)(N, dtype=dtype)

    def track_speedup_vs_numpy(self, fn, dtype, algorithm):
        return best_time(lambda: getattr(self.np_g, fn)(N, dtype=dtype), 3) / \
            best_time(lambda: getattr(self.g, fn)(N, dtype=dtype), 3)

    track_speedup_vs_numpy.unit = "x"


class Samplers:
    params = [["integers", "poisson", "binomial", "gamma", "permutation"]]
    param_names = ["sampler"]
    timeout = 300

    def setup(self, sampler):
        n = 1 << 20
        self.calls = {
            "integers": lambda g: g.integers(0, 1000, n),
            "poisson": lambda g: g.poisson(5.0, n),
            "binomial": lambda g: g.binomial(100, 0.3, n),
            "gamma": lambda g: g.gamma(2.5, size=n),
            "permutation": lambda g: g.permutation(n),
        }
        self.g, self.np_g = xa.random.default_rng(0), np.random.default_rng(0)

    def time_xarr(self, sampler):
        self.calls[sampler](self.g)

    def track_speedup_vs_numpy(self, sampler):
        return best_time(lambda: self.calls[sampler](self.np_g), 3) / \
            best_time(lambda: self.calls[sampler](self.g), 3)

    track_speedup_vs_numpy.unit = "x"


class SmallCalls:
    def setup(self):
        self.g, self.np_g = xa.random.default_rng(0), np.random.default_rng(0)

    def time_one_float(self):
        self.g.random()

    def time_ten_normals(self):
        self.g.standard_normal(10)

    def track_ten_normals_vs_numpy(self):
        return best_time(lambda: self.np_g.standard_normal(10), 200) / \
            best_time(lambda: self.g.standard_normal(10), 200)

    track_ten_normals_vs_numpy.unit = "x"
