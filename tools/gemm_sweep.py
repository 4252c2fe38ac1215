"""GFLOP/s of square and skinny f32 / f64 products against matrix size, xarr and its
peers (NumPy's OpenBLAS; torch and jax.jit when installed), for docs/performance.md.

    python tools/gemm_sweep.py [--threads N] > sweep.md

Each cell is the median over 3 rounds of each library's best time (libraries back to
back in one process). jax runs in float32 unless jax_enable_x64 is set: its f64 column is
left out. Prints a markdown table and a text bar chart.
"""

import argparse
import statistics
import time

import numpy as np

import xarr as xa
from xarr.tour import best_time

try:
    import torch
except ImportError:
    torch = None
try:
    import jax
    import jax.numpy as jnp
except ImportError:
    jax = None

SQUARE = [64, 128, 256, 512, 1024, 2048]
SKINNY = [(4096, 64, 4096), (64, 4096, 64), (4096, 4096, 8), (8, 4096, 4096)]


def best(fn, budget=0.5):
    """xarr.tour's best_time with as many repeats as fit in ``budget`` seconds (3 - 200)."""
    t0 = time.perf_counter()
    fn()
    once = time.perf_counter() - t0
    return best_time(fn, repeat=max(3, min(200, int(budget / max(once, 1e-6)))))


def row(m, k, n, dt, rounds=3):
    rng = np.random.default_rng(0)
    a, b = rng.random((m, k)).astype(dt), rng.random((k, n)).astype(dt)
    xa_a, xa_b = xa.asarray(a, copy=True), xa.asarray(b, copy=True)
    fns = {"xarr": lambda: xa_a @ xa_b, "NumPy": lambda: a @ b}
    if torch is not None:
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        fns["torch"] = lambda: ta @ tb
    if jax is not None and dt == np.float32:
        ja, jb = jnp.asarray(a), jnp.asarray(b)
        f = jax.jit(lambda x, y: x @ y)
        fns["jax.jit"] = lambda: f(ja, jb).block_until_ready()
    flops = 2.0 * m * k * n
    times = {name: statistics.median(best(fn) for _ in range(rounds))
             for name, fn in fns.items()}
    return {name: flops / t / 1e9 for name, t in times.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    xa.set_num_threads(args.threads)
    if torch is not None:
        torch.set_num_threads(args.threads)
    cols = ["xarr", "NumPy"] + (["torch"] if torch is not None else []) + \
        (["jax.jit"] if jax is not None else [])
    results = []
    for dt in (np.float32, np.float64):
        shapes = [(s, s, s) for s in SQUARE] + SKINNY
        for m, k, n in shapes:
            r = row(m, k, n, dt)
            results.append((f"{m}x{k}x{n} {np.dtype(dt).name}", r))
    print("| m x k x n | " + " | ".join(f"{c} GFLOP/s" for c in cols) + " | NumPy/xarr |")
    print("|---|" + "---|" * (len(cols) + 1))
    for label, r in results:
        cells = [f"{r[c]:.1f}" if c in r else "-" for c in cols]
        print(f"| {label} | " + " | ".join(cells) + f" | {r['xarr'] / r['NumPy']:.2f}x |")
    print()
    print("```")
    top = max(v for _, r in results for v in r.values())
    for label, r in results:
        for c in cols:
            if c in r:
                bar = "#" * int(round(50 * r[c] / top))
                print(f"{label:24s} {c:8s} {r[c]:6.1f} {bar}")
        print()
    print("```")


if __name__ == "__main__":
    main()
