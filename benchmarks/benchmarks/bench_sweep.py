"""The size sweep of issue 13 (benchmarks/sweep.py): every common operation x operand kind
(contiguous, x[::2], x[::2, ::2], x[::-1], x.T, broadcast) x size (100 .. 16M f32),
xarr's time and NumPy's time over xarr's in the same process (track_*). Goal: every cell
at least 1.0x, and at least 1.5x from 100k elements up."""

import os
import sys

from .common import best_time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import sweep  # noqa: E402  (benchmarks/sweep.py)


class SizeSweep:
    params = [sweep.OPS, sweep.KINDS, sweep.SIZES]
    param_names = ["op", "kind", "size"]
    timeout = 600

    def setup(self, op, kind, size):
        self.np_fn, self.xa_fn = sweep.cell(op, kind, size)

    def time_xarr(self, op, kind, size):
        self.xa_fn()

    def track_speedup_vs_numpy(self, op, kind, size):
        return best_time(self.np_fn) / best_time(self.xa_fn)

    track_speedup_vs_numpy.unit = "x"
