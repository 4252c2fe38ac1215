"""A 2-D heat equation (Jacobi iteration), domain-decomposed over the replicas.

The grid is n x n with fixed boundary values (the top edge at 1, the others at 0). Replica
r of R owns a band of rows and keeps one halo row above and below it; each step
- exchanges halos with ``xa.lax.ppermute`` (its first row up, its last row down),
- updates its band (the 5-point stencil),
and every ``check`` steps the global residual (the root of the sum of squared changes) is a
``xa.lax.psum`` of the bands' sums; a step is one ``xa.jit`` function, collectives included. The field is the same, bit for bit, on any number of
replicas (each point's arithmetic is the same); the residual is a sum in another order.

    python examples/heat2d.py --n 512 --steps 200              # one process
    python -m xarr.launch -n 2 examples/heat2d.py --n 512 --steps 200
"""

import argparse
import time

import numpy as np

import xarr as xa

ALPHA = 0.2


def _stencil(u):
    """One Jacobi step on a band with its halo rows: the interior points move, the halo
    rows and the first and last columns stay."""
    inner = u[1:-1, 1:-1]
    lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * inner
    return u.at[1:-1, 1:-1].set(inner + ALPHA * lap)


def _step(u, rank, size, residual):
    """Halo exchange, stencil and (with ``residual``) the global sum of squared changes:
    one xa.jit function per (rank, size, residual), the collectives inside it."""
    if size > 1:
        up = [(k, k - 1) for k in range(1, size)]        # my first row -> the band above
        down = [(k, k + 1) for k in range(size - 1)]     # my last row -> the band below
        from_below = xa.lax.ppermute(u[1], "i", up)
        from_above = xa.lax.ppermute(u[-2], "i", down)
        if rank > 0:
            u = u.at[0].set(from_above)
        if rank < size - 1:
            u = u.at[-1].set(from_below)
    new = _stencil(u)
    if not residual:
        return new, None
    d = new[1:-1, 1:-1] - u[1:-1, 1:-1]
    return new, xa.lax.psum((d * d).sum(), "i")


step = xa.jit(_step, static_argnums=(1, 2, 3))


def band(n, rank, size):
    """Rows [lo, hi) of the interior rows 1 .. n-2 that replica rank owns."""
    rows = n - 2
    return 1 + rows * rank // size, 1 + rows * (rank + 1) // size


def initial(n):
    u = np.zeros((n, n))
    u[0, :] = 1.0
    return u


def solve(n=256, steps=100, check=10):
    """Runs the solver on this job's replicas; returns (the band this replica owns with its
    halos as a NumPy array, its first row's index, the residuals)."""
    rank, size = xa.distributed.replica_id(), xa.distributed.num_replicas()
    lo, hi = band(n, rank, size)
    u = xa.asarray(initial(n)[lo - 1:hi + 1])          # the band and its two halo rows
    residuals = []
    for k in range(1, steps + 1):
        u, total = step(u, rank, size, k % check == 0)
        if total is not None:
            residuals.append(float(total) ** 0.5)
    return np.asarray(u), lo - 1, residuals


def main(args=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=512)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--check", type=int, default=50)
    ns = p.parse_args(args)
    xa.distributed.initialize()
    t0 = time.perf_counter()
    u, first, residuals = solve(ns.n, ns.steps, ns.check)
    seconds = time.perf_counter() - t0
    print(f"replica {xa.distributed.replica_id()} of {xa.distributed.num_replicas()}: rows "
          f"{first + 1}..{first + u.shape[0] - 2}, {seconds:.3f} s, residuals "
          f"{', '.join(f'{r:.3e}' for r in residuals)}")


if __name__ == "__main__":
    main()
