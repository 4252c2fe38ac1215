"""Relayout (the strided-copy kernel): {1,0} -> {0,1} of 4096x4096 f32, a transpose copy."""

import numpy as np

import xarr as xa

from .common import best_time, floats


class Transpose:
    params = [["float32", "float64"]]
    param_names = ["dtype"]

    def setup(self, dtype):
        self.m = floats(4096 * 4096, dtype, 9).reshape(4096, 4096)
        self.t = xa.asarray(self.m)

    def time_xarr_relayout(self, dtype):
        self.t.relayout((0, 1))

    def time_numpy_ascontiguous_transpose(self, dtype):
        np.ascontiguousarray(self.m.T)

    def track_xarr_gbytes_per_s(self, dtype):
        return self.m.nbytes / best_time(lambda: self.t.relayout((0, 1))) / 1e9

    track_xarr_gbytes_per_s.unit = "GB/s"

    def track_speedup_vs_numpy(self, dtype):
        return (best_time(lambda: np.ascontiguousarray(self.m.T), 3)
                / best_time(lambda: self.t.relayout((0, 1))))

    track_speedup_vs_numpy.unit = "x"


class Tiled:
    def setup(self):
        self.t = xa.asarray(floats(1024 * 1024, np.float32, 10).reshape(1024, 1024))

    def time_to_tiled_8x128(self):
        self.t.relayout("{1,0:T(8,128)}")
