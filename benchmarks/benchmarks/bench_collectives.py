"""Replica collectives (issue 17): all-reduce of 4 KB, 1 MB and 64 MB, a 1 MB ppermute and
a 1 MB all-to-all on 2 replica processes (xa.distributed.run), tracked as microseconds per
call on replica 0; the "heap" cases put the operand in the shared heap
(xa.distributed.shared_memory(), read in place). The side-by-side with mpi4py + MPICH and
gloo is benchmarks/compare_collectives.py."""

import contextlib
import os
import time

import numpy as np

import xarr as xa


def _per_call(nbytes, op, heap):
    L = xa.lax
    with (xa.distributed.shared_memory() if heap else contextlib.nullcontext()):
        x = xa.asarray(np.ones(nbytes // 4, np.float32)) + 0.0
    n = xa.distributed.num_replicas()
    call = {"psum": lambda: L.psum(x, "i"),
            "ppermute": lambda: L.ppermute(x, "i", [(k, (k + 1) % n) for k in range(n)]),
            "all_to_all": lambda: L.all_to_all(x, "i", 0, 0, tiled=True)}[op]
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
    params = [["psum 4096", "psum 1048576", "psum 67108864", "psum 67108864 heap",
               "ppermute 1048576",
               "ppermute 1048576 heap", "all_to_all 1048576", "all_to_all 1048576 heap"]]
    param_names = ["case"]
    timeout = 300

    def track_us_per_call(self, case):
        op, nbytes, *heap = case.split()
        os.environ["XARR_SHM_HEAP_BYTES"] = str(80 << 20)    # (the replicas inherit it)
        return xa.distributed.run(_per_call, n=2, args=(int(nbytes), op, bool(heap)))[0]

    track_us_per_call.unit = "us"
