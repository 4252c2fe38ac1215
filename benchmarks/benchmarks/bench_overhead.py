"""Per-call overhead: x + y on 100-element f32 tensors."""

import numpy as np

import xarr as xa

from xarr.tour import per_call as _per_call

from .common import floats


class SmallAdd:
    def setup(self):
        self.a, self.b = floats(100, np.float32, 11), floats(100, np.float32, 12)
        self.ta, self.tb = xa.asarray(self.a), xa.asarray(self.b)

    def time_xarr(self):
        self.ta + self.tb

    def time_numpy(self):
        self.a + self.b

    def track_overhead_ratio_xarr_over_numpy(self):
        return _per_call(lambda: self.ta + self.tb) / _per_call(lambda: self.a + self.b)

    track_overhead_ratio_xarr_over_numpy.unit = "x"

    def time_xarr_scalar(self):
        self.ta * 2.0

    def time_numpy_scalar(self):
        self.a * 2.0


class SmallUnaryAndSum:
    """Per-call overhead of a NumPy function and a reduction on 100 f32: xa.exp takes the
    compiled unary fast path, xa.sum goes straight to the reduce kernel."""

    def setup(self):
        self.a = floats(100, np.float32, 13)
        self.ta = xa.asarray(self.a)

    def time_xarr_exp(self):
        xa.exp(self.ta)

    def time_numpy_exp(self):
        np.exp(self.a)

    def time_xarr_sum(self):
        xa.sum(self.ta)

    def time_numpy_sum(self):
        np.sum(self.a)

    def track_exp_overhead_ratio_xarr_over_numpy(self):
        return _per_call(lambda: xa.exp(self.ta)) / _per_call(lambda: np.exp(self.a))

    def track_sum_overhead_ratio_xarr_over_numpy(self):
        return _per_call(lambda: xa.sum(self.ta)) / _per_call(lambda: np.sum(self.a))

    track_exp_overhead_ratio_xarr_over_numpy.unit = "x"
    track_sum_overhead_ratio_xarr_over_numpy.unit = "x"
