"""Reductions and structural copies: GB/s on 4096x4096 f32 in both layouts,
the fused jit reduction, and the NumPy speedup ratios measured in the same process."""

import numpy as np

import xarr as xa

from .common import N_LARGE, best_time, floats


class Sum:
    params = [["{1,0}", "{0,1}"], ["all", "0", "1"]]
    param_names = ["layout", "axis"]

    def setup(self, layout, axis):
        m = floats(4096 * 4096, np.float32, 8).reshape(4096, 4096)
        self.np_m = m if layout == "{1,0}" else np.asfortranarray(m)
        # xarr's own buffer (aligned, huge-page-advised), not a zero-copy view of NumPy's
        self.xa_m = xa.asarray(m, layout=(1, 0) if layout == "{1,0}" else (0, 1), copy=True)
        self.axis = None if axis == "all" else int(axis)

    def time_xarr(self, layout, axis):
        xa.sum(self.xa_m, axis=self.axis)

    def time_numpy(self, layout, axis):
        self.np_m.sum(axis=self.axis)

    def track_gbps(self, layout, axis):
        return self.np_m.nbytes / best_time(lambda: xa.sum(self.xa_m, axis=self.axis)) / 1e9

    def track_speedup_vs_numpy(self, layout, axis):
        return best_time(lambda: self.np_m.sum(axis=self.axis)) / \
            best_time(lambda: xa.sum(self.xa_m, axis=self.axis))

    track_gbps.unit = "GB/s"
    track_speedup_vs_numpy.unit = "x"


class FusedSum:
    def setup(self):
        self.np_x = floats(N_LARGE, np.float32, 9)
        self.x = xa.asarray(self.np_x, copy=True)
        self.f = xa.jit(lambda x: xa.sum(xa.exp(x) * 2))
        self.f(self.x)

    def time_jit(self):
        self.f(self.x)

    def track_speedup_vs_numpy(self):
        return best_time(lambda: np.sum(np.exp(self.np_x) * 2)) / best_time(lambda: self.f(self.x))

    def track_kernels(self):
        return self.f.lower(self.x).compile().kernel_count

    track_speedup_vs_numpy.unit = "x"
    track_kernels.unit = "kernels"


class Structural:
    params = [["pad", "concatenate", "rev", "dynamic_update_slice"]]
    param_names = ["op"]

    def setup(self, op):
        m = floats(4096 * 4096, np.float32, 10).reshape(4096, 4096)
        self.x = xa.asarray(m, copy=True)
        half = self.x[:2048]
        self.fn = {
            "pad": lambda: xa.pad(self.x, 8),
            "concatenate": lambda: xa.concatenate([half, half]),
            "rev": lambda: xa.flip(self.x).copy(),
            "dynamic_update_slice": lambda: xa.lax.dynamic_update_slice(
                self.x, half[:, :2048], (1024, 1024)),
        }[op]

    def time_xarr(self, op):
        self.fn()

    def track_fraction_of_copy_bandwidth(self, op):
        return best_time(lambda: self.x.copy()) / best_time(self.fn)

    track_fraction_of_copy_bandwidth.unit = "x copy"


class MaskGet:
    def setup(self):
        self.np_x = floats(N_LARGE, np.float32, 11)
        self.np_mask = floats(N_LARGE, np.float32, 12) < 0.5
        self.x, self.mask = xa.asarray(self.np_x, copy=True), xa.asarray(self.np_mask, copy=True)

    def time_xarr(self):
        self.x[self.mask]

    def time_numpy(self):
        self.np_x[self.np_mask]

    def track_speedup_vs_numpy(self):
        return best_time(lambda: self.np_x[self.np_mask]) / best_time(lambda: self.x[self.mask])

    track_speedup_vs_numpy.unit = "x"


class Gather:
    """Integer-array get of 1M random positions of a 16M f32 tensor."""

    def setup(self):
        self.np_x = floats(N_LARGE, np.float32, 13)
        self.np_idx = np.random.default_rng(14).integers(0, N_LARGE, N_LARGE // 16)
        self.x, self.idx = xa.asarray(self.np_x, copy=True), xa.asarray(self.np_idx, copy=True)

    def time_xarr(self):
        self.x[self.idx]

    def track_speedup_vs_numpy(self):
        return best_time(lambda: self.np_x[self.np_idx]) / best_time(lambda: self.x[self.idx])

    track_speedup_vs_numpy.unit = "x"


class Cumsum:
    params = [["0", "1"]]
    param_names = ["axis"]

    def setup(self, axis):
        self.np_m = floats(4096 * 4096, np.float32, 15).reshape(4096, 4096)
        self.m = xa.asarray(self.np_m, copy=True)
        self.axis = int(axis)

    def time_xarr(self, axis):
        xa.cumsum(self.m, axis=self.axis)

    def track_speedup_vs_numpy(self, axis):
        return best_time(lambda: np.cumsum(self.np_m, axis=self.axis)) / \
            best_time(lambda: xa.cumsum(self.m, axis=self.axis))

    track_speedup_vs_numpy.unit = "x"
