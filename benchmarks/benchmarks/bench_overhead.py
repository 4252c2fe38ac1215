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


def _small_calls():
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import small_calls   # benchmarks/small_calls.py: the patterns of issue 13
    return small_calls


def _everyday_calls():
    _small_calls()          # (puts benchmarks/ on sys.path)
    import everyday_calls   # benchmarks/everyday_calls.py: everyday functions, small operands
    return everyday_calls


class _PatternRows:
    """asv over a pattern module's rows (key, label, NumPy callable, xarr callable): the
    xarr and NumPy per-call times and their ratio (issue 13's small-call goal: at least
    1.0). A subclass names the module (``rows``) and its parameter."""
    calls = 2000

    def setup(self, key):
        row = {p[0]: p for p in self.rows().patterns()}[key]
        self.np_fn, self.xa_fn = row[2], row[3]

    def time_xarr(self, key):
        self.xa_fn()

    def time_numpy(self, key):
        self.np_fn()

    def track_speedup_vs_numpy(self, key):
        return _per_call(self.np_fn, self.calls) / _per_call(self.xa_fn, self.calls)

    track_speedup_vs_numpy.unit = "x"


class EverydayCalls(_PatternRows):
    """Everyday NumPy functions on 50-element / 8 x 8 operands
    (benchmarks/everyday_calls.py)."""
    rows = staticmethod(_everyday_calls)
    params = [[p[0] for p in _everyday_calls().patterns()]]
    param_names = ["function"]
    calls = 1000


class SmallCalls(_PatternRows):
    """Each small-call pattern of issue 13 (benchmarks/small_calls.py)."""
    rows = staticmethod(_small_calls)
    params = [[p[0] for p in _small_calls().patterns()]]
    param_names = ["pattern"]


class SmallCallLoop:
    """Every pattern once, in a loop: NumPy's time over xarr's (goal: at least 1.0)."""

    def setup(self):
        sc = _small_calls()
        pats = sc.patterns()
        self.loop = sc.loop
        self.np_fns, self.xa_fns = [p[2] for p in pats], [p[3] for p in pats]

    def time_xarr(self):
        self.loop(self.xa_fns)

    def time_numpy(self):
        self.loop(self.np_fns)

    def track_speedup_vs_numpy(self):
        return (_per_call(lambda: self.loop(self.np_fns), 200)
                / _per_call(lambda: self.loop(self.xa_fns), 200))

    track_speedup_vs_numpy.unit = "x"
