"""Replica collectives (issue 17): all-reduce of 4 KB, 1 MB and 64 MB and a 1 MB ppermute
on 2 replica processes (xa.distributed.run), tracked as microseconds per call on replica
0. The side-by-side with mpi4py + MPICH and gloo is benchmarks/compare_collectives.py."""

import time

import numpy as np

import xarr as xa


def _per_call(nbytes, op):
    L = xa.lax
    x = xa.asarray(np.ones(nbytes // 4, np.float32))
    n = xa.distributed.num_replicas()
    call = {"psum": lambda: L.psum(x, "i"),
            "ppermute": lambda: L.ppermute(x, "i", [(k, (k + 1) % n) for k in range(n)])}[op]
    for _ in range(3):
        call()
    it = max(3, min(2000, (256 << 20) // nbytes))
    best = float("inf")
    for _ in range(3):
        L.psum(xa.asarray([0.0]), "i")
        t = time.perf_counter()
        for _ in range(it):
            call()
        best = min(best, (time.perf_counter() - t) / it)
    return best * 1e6


class Collectives:
    params = [["psum 4096", "psum 1048576", "psum 67108864", "ppermute 1048576"]]
    param_names = ["case"]
    timeout = 300

    def track_us_per_call(self, case):
        op, nbytes = case.split()
        return xa.distributed.run(_per_call, n=2, args=(int(nbytes), op))[0]

    track_us_per_call.unit = "us"
