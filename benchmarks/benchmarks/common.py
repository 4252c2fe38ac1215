"""Shared, seeded benchmark data. Append new data; never change existing seeds."""

import numpy as np

from xarr.tour import best_time, per_call  # noqa: F401  (one timing rule for tour and benchmarks)

N_LARGE = 16 * 1024 * 1024


def rng(seed=0):
    return np.random.default_rng(seed)


def floats(n, dtype=np.float32, seed=0):
    return rng(seed).random(n, dtype=np.float64).astype(dtype)


def chain3(a, b, c, xp):
    """The lazy-graph issue's chain 2a + 3b*b - exp(-c), for any array namespace xp."""
    return 2 * a + 3 * b * b - xp.exp(-c)


def chain20(x, xp):
    """A 20-op elementwise chain on one input (cheap ops and one sqrt), for any array
    namespace xp with maximum/minimum/sqrt/abs."""
    y = x * 1.5
    y = y + 2
    y = xp.maximum(y, 0.1)
    y = y * y
    y = y - 1
    y = xp.abs(y)
    y = y * 0.5
    y = xp.minimum(y, 100.0)
    y = -y
    y = y + 3
    y = y * x
    y = y - x
    y = xp.abs(y)
    y = xp.sqrt(y)
    y = y + 1
    y = y * 0.25
    y = y - 0.5
    y = xp.maximum(y, x)
    y = y * 2
    return y + x
