"""Process-wide kernel controls: the thread count (OpenMP; ``OMP_NUM_THREADS`` and
threadpoolctl act on the same pool) and the ISA the kernels run (csrc/core/isa.h)."""

import operator
import os

from xarr import _core


def get_num_threads():
    """Threads the kernels use (OpenMP; OMP_NUM_THREADS and threadpoolctl apply)."""
    return _core.get_num_threads()


def max_threads():
    """The most threads set_num_threads accepts: 4 per CPU, at least 256 (OpenMP cannot
    start arbitrarily many; a request beyond the machine is a mistake, not a plan)."""
    return max(256, 4 * (os.cpu_count() or 1))


def set_num_threads(n):
    """Sets the kernel thread count: 1 <= n <= max_threads(), else ValueError."""
    n = operator.index(n)
    if not 1 <= n <= max_threads():
        raise ValueError(f"set_num_threads: {n} threads requested; xarr runs 1 to "
                         f"{max_threads()} (4 per CPU, at least 256)")
    _core.set_num_threads(n)
