"""xa.linalg's members that need no factorization (issue 18, xarr/_numpy/linalg.py): norms
of a 4096x4096 f32 matrix ('fro': one dot on the GEMM engine; 1 and inf: column / row sums
of |x|) and of 16M f32 (vector_norm: ord 2, 1, inf), on a row-major and a column-major
matrix, under xa.jit, and the small-call cost of multi_dot and matrix_power
(benchmarks/compare.py `linalg_*` rows measure the peers)."""

import numpy as np

import xarr as xa

from .common import best_time

_N = 4096


def _matrix(order="C"):
    a = np.random.default_rng(18).standard_normal((_N, _N)).astype(np.float32)
    return np.asfortranarray(a) if order == "F" else a


class MatrixNorm:
    params = [["fro", 1, float("inf")], ["C", "F"]]
    param_names = ["ord", "order"]
    timeout = 300

    def setup(self, ord, order):  # noqa: A002
        self.a = _matrix(order)
        layout = (0, 1) if order == "F" else None
        self.t = xa.asarray(self.a, layout=layout)

    def time_xarr(self, ord, order):  # noqa: A002
        xa.linalg.norm(self.t, ord)

    def track_speedup_vs_numpy(self, ord, order):  # noqa: A002
        return best_time(lambda: np.linalg.norm(self.a, ord), 3) / \
            best_time(lambda: xa.linalg.norm(self.t, ord), 3)

    track_speedup_vs_numpy.unit = "x"


class VectorNorm:
    params = [[2, 1, float("inf")]]
    param_names = ["ord"]
    timeout = 300

    def setup(self, ord):  # noqa: A002
        self.a = np.random.default_rng(19).standard_normal(16 * 1024 * 1024).astype(np.float32)
        self.t = xa.asarray(self.a, copy=True)

    def time_xarr(self, ord):  # noqa: A002
        xa.linalg.vector_norm(self.t, ord=ord)

    def track_speedup_vs_numpy(self, ord):  # noqa: A002
        return best_time(lambda: np.linalg.vector_norm(self.a, ord=ord), 3) / \
            best_time(lambda: xa.linalg.vector_norm(self.t, ord=ord), 3)

    track_speedup_vs_numpy.unit = "x"


class NormJit:
    """Row norms under xa.jit (the squares fused into the reduction)."""
    timeout = 300

    def setup(self):
        self.t = xa.asarray(_matrix())
        self.f = xa.jit(lambda x: xa.linalg.norm(x, axis=1))
        self.f(self.t)

    def time_row_norms_jit(self):
        self.f(self.t)

    def time_row_norms_eager(self):
        xa.linalg.norm(self.t, axis=1)


class SmallCalls:
    def setup(self):
        rng = np.random.default_rng(20)
        self.chain = [xa.asarray(rng.standard_normal(s)) for s in
                      ((10, 30), (30, 5), (5, 60), (60, 8))]
        self.m = xa.asarray(rng.standard_normal((8, 8)) / 4)

    def time_multi_dot_4(self):
        xa.linalg.multi_dot(self.chain)

    def time_matrix_power_13(self):
        xa.linalg.matrix_power(self.m, 13)

    def time_vector_norm_small(self):
        xa.linalg.vector_norm(self.m)
