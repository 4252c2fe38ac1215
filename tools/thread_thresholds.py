"""Measures, per kernel family, the element count from which two threads beat one: the
thresholds of csrc/core/threading.h (ParallelFamily), whose defaults live in
csrc/core/isa.cpp. For each family a representative operation runs at sizes 4k .. 1M with
the family's threshold at 0 (every size threaded) and at infinity (one thread); the
threshold is the smallest size from which the threaded run is faster at that size and
every larger one. Run it on the machine the defaults are for:

    python tools/thread_thresholds.py            # table + suggested thresholds
"""

import numpy as np

import xarr as xa
from xarr.tour import best_time

SIZES = [4096 * 2 ** k for k in range(9)]          # 4k .. 1M


def _case(family, n):
    rng = np.random.default_rng(0)
    x = xa.asarray(rng.random(n, dtype=np.float32))
    y = xa.asarray(rng.random(n, dtype=np.float32))
    if family == "cheap":
        return lambda: x + y
    if family == "expensive":
        return lambda: xa.exp(x)
    if family == "copy":
        return lambda: x.astype(xa.float64)
    if family == "reduce":
        return lambda: x.sum()
    if family == "scan":                     # scans split over independent lines
        m = xa.asarray(rng.random((64, n // 64), dtype=np.float32))
        return lambda: xa.cumsum(m, axis=1)
    raise ValueError(family)


def measure(family, sizes=SIZES, rounds=5):
    """[(n, one-thread seconds, two-thread seconds)]."""
    core = xa._core
    before = core.get_parallel_min()[family]
    rows = []
    try:
        for n in sizes:
            fn = _case(family, n)
            one = two = float("inf")
            for _ in range(rounds):          # interleaved: the VM's noise hits both
                core.set_parallel_min(family, 1 << 62)
                one = min(one, best_time(fn))
                core.set_parallel_min(family, 0)
                two = min(two, best_time(fn))
            rows.append((n, one, two))
    finally:
        core.set_parallel_min(family, before)
    return rows


def threshold(rows):
    """The smallest n from which two threads win at n and every larger size."""
    best = None
    for n, one, two in reversed(rows):
        if two < one:
            best = n
        else:
            break
    return best if best is not None else 1 << 62


def main():
    if xa.get_num_threads() < 2:
        raise SystemExit("thread_thresholds: needs 2 or more threads")
    print(f"{xa.get_num_threads()} threads, kernels for {xa._core.get_isa()}")
    for family in xa._core.get_parallel_min():
        rows = measure(family)
        print(f"\n{family}: size, 1 thread us, 2 threads us, ratio")
        for n, one, two in rows:
            print(f"  {n:8d} {one * 1e6:9.2f} {two * 1e6:9.2f} {one / two:5.2f}")
        print(f"  -> threshold {threshold(rows)}")


if __name__ == "__main__":
    main()
