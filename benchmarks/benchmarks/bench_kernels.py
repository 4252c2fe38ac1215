"""The scientific kernels of benchmarks/kernels.py (issue 13): NumPy's time over xarr's,
eager and under xa.jit (kernels that do not trace yet report nan; the jit figure belongs
to the drop-in issue, which makes them trace). Goal: geomean at least 1.5x eager, none
below 0.8x."""

import math
import os
import sys

import numpy as np

import xarr as xa

from .common import best_time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import kernels  # noqa: E402  (benchmarks/kernels.py)


class ScientificKernels:
    params = [list(kernels.KERNELS)]
    param_names = ["kernel"]
    timeout = 300

    def setup(self, kernel):
        setup, self.fn = kernels.KERNELS[kernel]
        self.np_args = setup(np, np.random.default_rng(0))
        self.xa_args = tuple(xa.asarray(a) for a in self.np_args)

    def time_xarr(self, kernel):
        self.fn(xa, *self.xa_args)

    def time_numpy(self, kernel):
        self.fn(np, *self.np_args)

    def track_speedup_vs_numpy(self, kernel):
        return (best_time(lambda: self.fn(np, *self.np_args))
                / best_time(lambda: self.fn(xa, *self.xa_args)))

    def track_jit_speedup_vs_numpy(self, kernel):
        try:
            jitted = xa.jit(lambda *a: self.fn(xa, *a))
            jitted(*self.xa_args)
        except Exception:                       # noqa: BLE001 (does not trace yet)
            return math.nan
        return best_time(lambda: self.fn(np, *self.np_args)) / best_time(
            lambda: jitted(*self.xa_args))

    track_speedup_vs_numpy.unit = "x"
    track_jit_speedup_vs_numpy.unit = "x"
