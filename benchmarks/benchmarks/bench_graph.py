"""The lazy graph: fused chains under xa.jit and xa.lazy on 16M f32, the cached
jit call on 100-element tensors, and trace + optimize + compile time.

track_* report ratios measured in one process: ``*_vs_floor`` is the fused time over the
memory-bound floor (bytes moved / this run's copy bandwidth; the target is <= 1.5),
``*_speedup_vs_numpy`` is NumPy's time over xarr's.
"""

import numpy as np

import xarr as xa

from .common import N_LARGE, best_time, chain3, chain20, floats


def _copy_floor(x, nbytes):
    """Seconds to move ``nbytes`` at the copy bandwidth measured now (x.copy() of a
    tensor moves 2 * x.nbytes)."""
    t = best_time(lambda: x.copy())
    return t * nbytes / (2 * x.nbytes)


class Chain:
    def setup(self):
        self.np_args = [floats(N_LARGE, np.float32, s) for s in (1, 2, 3)]
        self.args = [xa.asarray(v) for v in self.np_args]
        self.jitted = xa.jit(lambda a, b, c: chain3(a, b, c, xa))
        self.jitted(*self.args)

    def _lazy(self):
        with xa.lazy():
            y = chain3(*self.args, xa)
        return xa.eval(y)

    def time_jit(self):
        self.jitted(*self.args)

    def time_lazy(self):
        self._lazy()

    def time_numpy(self):
        chain3(*self.np_args, np)

    def track_jit_vs_floor(self):
        return best_time(lambda: self.jitted(*self.args)) / _copy_floor(self.args[0],
                                                                         4 * self.args[0].nbytes)

    def track_lazy_vs_floor(self):
        return best_time(self._lazy) / _copy_floor(self.args[0], 4 * self.args[0].nbytes)

    def track_jit_speedup_vs_numpy(self):
        return best_time(lambda: chain3(*self.np_args, np)) / \
            best_time(lambda: self.jitted(*self.args))

    track_jit_vs_floor.unit = track_lazy_vs_floor.unit = "x floor"
    track_jit_speedup_vs_numpy.unit = "x"


class Chain20:
    def setup(self):
        self.np_x = floats(N_LARGE, np.float32, 4)
        self.x = xa.asarray(self.np_x)
        self.jitted = xa.jit(lambda x: chain20(x, xa))
        self.jitted(self.x)

    def time_jit(self):
        self.jitted(self.x)

    def time_numpy(self):
        chain20(self.np_x, np)

    def track_jit_vs_floor(self):
        return best_time(lambda: self.jitted(self.x)) / _copy_floor(self.x, 2 * self.x.nbytes)

    def track_kernels(self):
        return self.jitted.lower(self.x).compile().kernel_count

    track_jit_vs_floor.unit = "x floor"
    track_kernels.unit = "kernels"


class Overhead:
    def setup(self):
        self.small = [xa.asarray(floats(100, np.float32, s)) for s in (5, 6, 7)]
        self.jitted = xa.jit(lambda a, b, c: chain3(a, b, c, xa))
        self.jitted(*self.small)
        self.x = self.small[0]

    def time_cached_jit_call(self):
        self.jitted(*self.small)

    def time_trace_compile_chain20(self):
        xa.jit(lambda x: chain20(x, xa)).lower(self.x).compile()


def _lazy_loop(n, step=1.0, flush_depth=None):
    """b = b + step, n times under xa.lazy(), then materialized (issue 11's time-stepping
    loop); flush_depth replaces LazyGraph.FLUSH_DEPTH for the call."""
    from xarr._graph.trace import LazyGraph
    old = LazyGraph.FLUSH_DEPTH
    if flush_depth is not None:
        LazyGraph.FLUSH_DEPTH = flush_depth
    try:
        b = xa.ones((4,))
        with xa.lazy():
            for _ in range(n):
                b = b + step
            return np.asarray(b)
    finally:
        LazyGraph.FLUSH_DEPTH = old


class LazyScale:
    """Lazy graphs at scale: a 10^5-step loop (automatic flushes), and one 10^5-node
    graph materialized at once; track_growth_8x is the time of 8x the nodes over the
    time of 1x (linear: 8; the target is <= 12)."""
    timeout = 300

    def time_loop_1e5_steps(self):
        _lazy_loop(100_000)

    def time_materialize_1e5_nodes(self):
        _lazy_loop(100_000, flush_depth=10**9)

    def track_growth_8x(self):
        import time

        def best(n):
            out = []
            for k in range(3):
                t = time.perf_counter()
                _lazy_loop(n, 1.0 + k, flush_depth=10**9)
                out.append(time.perf_counter() - t)
            return min(out)
        return best(24_000) / best(3_000)

    track_growth_8x.unit = "x time"
