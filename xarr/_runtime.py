"""Process-wide kernel controls: the thread count (OpenMP; ``OMP_NUM_THREADS`` and
threadpoolctl act on the same pool) and the ISA the kernels run (csrc/core/isa.h)."""

from xarr import _core


def get_num_threads():
    """Threads the kernels use (OpenMP; OMP_NUM_THREADS and threadpoolctl apply)."""
    return _core.get_num_threads()


def set_num_threads(n):
    """Sets the kernel thread count (n >= 1)."""
    _core.set_num_threads(int(n))
