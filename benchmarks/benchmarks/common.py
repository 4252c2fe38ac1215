"""Shared, seeded benchmark data. Append new data; never change existing seeds."""

import time

import numpy as np

N_LARGE = 16 * 1024 * 1024


def rng(seed=0):
    return np.random.default_rng(seed)


def floats(n, dtype=np.float32, seed=0):
    return rng(seed).random(n, dtype=np.float64).astype(dtype)


def best_time(fn, repeat=5):
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best
