"""Shared, seeded benchmark data. Append new data; never change existing seeds."""

import numpy as np

from xarr.tour import best_time  # noqa: F401  (one timing rule for tour and benchmarks)

N_LARGE = 16 * 1024 * 1024


def rng(seed=0):
    return np.random.default_rng(seed)


def floats(n, dtype=np.float32, seed=0):
    return rng(seed).random(n, dtype=np.float64).astype(dtype)
