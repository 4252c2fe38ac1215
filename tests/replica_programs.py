"""The programs tests/test_collectives.py runs on replica processes (xa.distributed.run).

They live in a module of their own, importable by name from the tests directory (which
conftest.py puts on sys.path, and a spawned replica inherits): a function defined in a test
module under pytest's --import-mode=importlib pickles as ``tests.test_collectives.<name>``,
which a replica cannot import.
"""

import contextlib
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np

import xarr as xa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import heat2d  # noqa: E402  (examples/heat2d.py: the domain-decomposed heat equation)

L = xa.lax
DTYPES = [np.float32, np.float64, np.int32, np.int8, np.uint16, np.int64, np.complex64]


def _input(rank, dt, shape=(4, 6)):
    """Replica rank's operand: distinct per replica, exact in every dtype."""
    rng = np.random.default_rng(rank)
    v = rng.integers(-20, 20, shape)
    if np.dtype(dt).kind == "u":
        v = np.abs(v)
    if np.dtype(dt).kind == "c":
        return (v + 1j * rng.integers(-5, 5, shape)).astype(dt)
    return v.astype(dt)


def _blocks(rank, dt, n):
    """Replica rank's n blocks for the block collectives: distinct from each other (so a
    wrong block index shows) and from other replicas'."""
    return [_input(rank, dt) + np.asarray(j, dt) for j in range(n)]


def every_op(dtypes):
    n, r = xa.distributed.num_replicas(), xa.distributed.replica_id()
    out = {"id": (int(L.axis_index("i")), int(L.replica_id()))}
    for dt in dtypes:
        x = xa.asarray(_input(r, dt))
        name = np.dtype(dt).name
        out[name, "psum"] = L.psum(x, "i")
        out[name, "all_gather"] = L.all_gather(x, "i")
        out[name, "all_gather_tiled_1"] = L.all_gather(x, "i", axis=1, tiled=True)
        out[name, "ppermute"] = L.ppermute(x, "i", [(k, (k + 1) % n) for k in range(n - 1)])
        if np.dtype(dt).kind != "c":
            out[name, "pmax"] = L.pmax(x, "i")
            out[name, "pmin"] = L.pmin(x, "i")
        wide = xa.asarray(np.concatenate(_blocks(r, dt, n), axis=1))      # (4, 6n)
        out[name, "all_to_all"] = L.all_to_all(wide, "i", 1, 0, tiled=True)
        out[name, "psum_scatter"] = L.psum_scatter(wide, "i", scatter_dimension=1,
                                                   tiled=True)
        stacked = xa.asarray(np.stack(_blocks(r, dt, n)))                  # (n, 4, 6)
        out[name, "all_to_all_stack"] = L.all_to_all(stacked, "i", 0, 2)
        out[name, "psum_scatter_stack"] = L.psum_scatter(stacked, "i")
    out["pmean"] = L.pmean(xa.asarray(_input(r, np.int32)), "i")
    out["tree"] = L.psum({"a": xa.asarray([1.0, r]), "b": (xa.asarray([r]),)}, "i")
    out["bool_or"] = L.all_reduce(xa.asarray(np.arange(5) == r), "or")
    out["bool_count"] = L.psum(xa.asarray(np.arange(5) >= r), "i")        # jax: int32 counts
    out["a2a_tree"] = L.all_to_all((xa.asarray(np.arange(2.0 * n) + r),), "i", 0, 0,
                                   tiled=True)
    out["traced"] = L.all_reduce(xa.asarray(_input(r, np.float64)),
                                 lambda a, b: a * 2 + b)
    out["big"] = L.psum(xa.asarray(np.arange(700_001, dtype=np.float32) * (r + 1)), "i")
    x = xa.asarray(_input(r, np.float32))
    wide = xa.asarray(np.concatenate(_blocks(r, np.float32, n), axis=1))

    def program(v, w):
        return (L.psum(v * 2, "i") + 1, L.all_gather(v, "i", axis=1, tiled=True),
                L.psum_scatter(w, "i", scatter_dimension=1, tiled=True),
                L.all_to_all(w, "i", 1, 0, tiled=True),
                L.pmax(L.ppermute(v, "i", [(0, n - 1)]), "i"))
    jitted = xa.jit(program)
    out["jit"] = jitted(x, wide)
    out["eager"] = program(x, wide)
    with xa.lazy():
        lazy = program(x, wide)
    out["lazy"] = tuple(xa.eval(v) for v in lazy)
    out["text"] = jitted.lower(x, wide).as_text()
    return out


def grouped():
    r = xa.distributed.replica_id()
    x = xa.asarray(np.array([1.0, 10.0]) * (r + 1))
    return {"pairs": L.psum(x, "i", axis_index_groups=[[0, 2], [1, 3]]),
            "uneven": L.all_reduce(x, "max", replica_groups=[[3], [2, 0, 1]]),
            "gather": L.all_gather(x, "i", axis_index_groups=[[1, 0], [3, 2]]),
            "crs": L.cross_replica_sum(x, [[0, 1, 2], [3]]),
            "rs": L.reduce_scatter(xa.asarray(np.arange(4.0) + r), "add", 0, [[0, 3], [1, 2]]),
            "permute": L.collective_permute(x, [(0, 3), (3, 0), (1, 2)]),
            # groups of different sizes with messages of several rounds, then everyone:
            # the rounds depend on the bytes alone, so the replicas stay in step
            "uneven_big": L.all_reduce(xa.asarray(np.full(40_000, r + 1.0)), "add",
                                       replica_groups=[[3], [2, 0, 1]]),
            "uneven_a2a": L.all_to_all(xa.asarray(np.arange(36_000.0) + r), "i", 0, 0,
                                       axis_index_groups=[[0, 1, 2], [3]], tiled=True),
            "after": L.psum(x, "i")}


def bad_arguments():
    x = xa.asarray([1.0, 2.0])
    errors = []
    for call in (lambda: L.psum(x, "i", axis_index_groups=[[0], [0, 1]]),
                 lambda: L.ppermute(x, "i", [(0, 1), (1, 1)]),
                 lambda: L.ppermute(x, "i", [(0, 5)]),
                 lambda: L.all_to_all(xa.asarray(np.ones(3)), "i", 0, 0, tiled=True),
                 lambda: L.psum_scatter(xa.asarray(np.ones((3, 2))), "i"),
                 lambda: L.all_reduce(x, "sub"),
                 lambda: L.all_reduce(x, "and"),
                 lambda: L.pmax(xa.asarray([1j]), "i")):
        try:
            call()
            errors.append(None)
        except Exception as e:   # noqa: BLE001 (the test reads each message)
            errors.append((type(e).__name__, str(e)))
    L.psum(x, "i")      # the job still works after refused calls
    return errors


def point_to_point():
    r, n = xa.distributed.replica_id(), xa.distributed.num_replicas()
    got = {}
    small = xa.asarray(np.arange(5.0) + r)
    big = xa.asarray(np.arange(300_000, dtype=np.int32) * (r + 1))     # > a mailbox
    right, left = (r + 1) % n, (r - 1) % n
    if r % 2 == 0:      # evens send first, odds receive first: no one waits on itself
        t = L.send(small, 7, right)
        got["small"], t = L.recv((5,), np.float64, 7, left, t)
        L.send(big, 8, right, t)
        got["big"], _ = L.recv((300_000,), np.int32, 8, left)
    else:
        got["small"], t = L.recv((5,), np.float64, 7, left)
        L.send(small, 7, right, t)
        got["big"], _ = L.recv((300_000,), np.int32, 8, left)
        L.send(big, 8, right)
    assert isinstance(L.after_all(t, L.Token()), L.Token)
    ring = xa.jit(lambda v: L.recv((5,), np.float64, 9, left)[0] + 0 if r % 2 else v)
    if r % 2 == 0:
        L.send(small * 2, 9, right)
        got["jit"] = None
    else:
        got["jit"] = ring(small)
        got["text"] = ring.lower(small).as_text()
    return got


def mismatched_recv():
    r = xa.distributed.replica_id()
    if r == 0:
        L.send(xa.asarray(np.ones(4, np.float32)), 3, 1)
        return L.psum(xa.asarray([1.0]), "i")      # waits: replica 1 failed
    return L.recv((4,), np.float64, 3, 0)


def mismatched_shape():
    if xa.distributed.replica_id() == 0:
        L.send(xa.asarray(np.ones((2, 3))), 4, 1)
        return L.psum(xa.asarray([1.0]), "i")
    return L.recv((3, 2), np.float64, 4, 0)


def bad_peers():
    errors = []
    for call in (lambda: L.send(xa.asarray([1.0]), 0, 0),
                 lambda: L.recv((1,), np.float64, 0, 5),
                 lambda: L.after_all(3)):
        try:
            call()
        except Exception as e:   # noqa: BLE001 (the test reads each message)
            errors.append(str(e))
    return errors


def dies_before_psum():
    if xa.distributed.replica_id() == 1:
        os._exit(3)
    return L.psum(xa.asarray([1.0]), "i")


def killed_mid_job():
    x = L.psum(xa.asarray([1.0]), "i")        # everyone attached and in step
    if xa.distributed.replica_id() == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return L.psum(x, "i")


def hangs(seconds=30):
    if xa.distributed.replica_id() == 0:
        time.sleep(seconds)
    return L.psum(xa.asarray([1.0]), "i")


def mismatched(kind):
    r = xa.distributed.replica_id()
    if kind == "shape":
        return L.psum(xa.asarray(np.ones(3 + r)), "i")
    if kind == "dtype":
        return L.psum(xa.asarray(np.ones(3, np.float32 if r else np.float64)), "i")
    return L.psum(xa.asarray(np.ones(3)), "i") if r else L.all_gather(xa.asarray(np.ones(3)))


def heat_band(n, steps):
    return heat2d.solve(n, steps, check=5)


def routes_taken():
    """Which transport each kind of collective takes (xarr/distributed/_mpi.py's routing),
    by the transport's class name, after running it."""
    job = xa.distributed._state.job()
    r, n = job.rank, job.size
    x = xa.asarray([r + 1.0])
    neighbours = [[k, k + 1] for k in range(0, n, 2)]
    strided = [list(range(0, n, 2)), list(range(1, n, 2))]
    routes = {}
    for name, groups in (("neighbours", neighbours), ("strided", strided), ("all", None)):
        total = float(L.psum(x, "i", axis_index_groups=groups)[0])
        link = job.groups[None if groups is None else tuple(map(tuple, groups)), None][5]
        routes[name] = (type(link[0]).__name__, total)     # (the route the psum took)
    pairs = [(k, k + 1) for k in range(0, n, 2)]
    routes["permute_within"] = type(job.routes.permute(pairs, -1, -1)[0]).__name__
    routes["permute_across"] = type(job.routes.permute([(0, n - 1)], -1, -1)[0]).__name__
    return routes


def shared_heap(mixed):
    """The collectives that read operands in place, with operands in the shared heap (on
    every replica, or with ``mixed`` on replica 0 only), each overwritten as soon as the
    collective returns; then the heap's bookkeeping and its fallback when full."""
    r, n = xa.distributed.replica_id(), xa.distributed.num_replicas()
    transport = xa.distributed._state.job().routes.transport
    heap = not mixed or r == 0
    base = np.arange(300_000, dtype=np.float32)
    with (xa.distributed.shared_memory() if heap else contextlib.nullcontext()):
        x = xa.asarray(base) * (r + 1)
        wide = xa.concatenate([x + 1000.0 * j for j in range(n)])   # distinct blocks
        grid = xa.asarray(base.reshape(600, 500)) + r
    out = {"in_heap": [xa.distributed.in_shared_memory(v) for v in (x, wide, grid)],
           "heap_bytes": transport.heap_bytes}
    out["gather"] = L.all_gather(x, "i")
    out["psum"] = L.psum(x, "i")     # (1.2 MB: the large all-reduce reads heaps in place)
    x[:] = -1.0                      # the peers have read it: overwriting is safe
    out["a2a"] = L.all_to_all(wide, "i", 0, 0, tiled=True)
    out["rs"] = L.psum_scatter(wide, "i", tiled=True)
    wide[:] = -1.0
    out["halo"] = L.ppermute(grid[-1], "i", [(k, (k + 1) % n) for k in range(n)])
    grid[-1] = -1.0
    used = transport.heap_used()
    del x, wide, grid
    out["used"] = (used > 0) == heap, transport.heap_used()
    with xa.distributed.shared_memory():
        too_big = xa.zeros(transport.heap_bytes // 4 + 1024, np.float32)   # falls back
        small = xa.ones(10)
    out["fallback"] = (xa.distributed.in_shared_memory(too_big),
                       xa.distributed.in_shared_memory(small) == (transport.heap_bytes > 0))
    return out


def message_waits_through_collectives():
    """A message sits in its mailbox while both replicas run large collectives (whose
    slots must not overlap the mailboxes), then is received intact."""
    r = xa.distributed.replica_id()
    message = np.arange(1000.0) * 3
    if r == 0:
        L.send(xa.asarray(message), 5, 1)
    big = xa.asarray(np.full(1_500_000, r + 1.0))      # 12 MB: several slot rounds
    total = L.psum(big, "i")
    gathered = L.all_gather(big[:400_000], "i")
    got = L.recv((1000,), np.float64, 5, 0)[0] if r == 1 else None
    return got, float(total[-1]), float(gathered[1, -1])


def swap_within_node():
    """Replicas 0 and 1 swap their operands; any others receive zeros. Then everyone sums
    (the job goes on after the permute)."""
    r = xa.distributed.replica_id()
    got = L.ppermute(xa.asarray([r + 1.0, r + 1.0]), "i", [(0, 1), (1, 0)])
    L.psum(xa.asarray([1.0]), "i")
    return got


def fork_keeps_the_heap():
    """A child forked by a replica shares the heap's pages but not its bookkeeping: it
    allocates in ordinary memory, and its frees leave the parent's blocks alone."""
    transport = xa.distributed._state.job().routes.transport
    with xa.distributed.shared_memory():
        x = xa.ones(1000) * 7
    pid = os.fork()
    if pid == 0:
        with xa.distributed.shared_memory():
            y = xa.ones(1000) * 3
        ok = not xa.distributed.in_shared_memory(y) and float(y.sum()) == 3000.0
        del x
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    return (os.waitstatus_to_exitcode(status), xa.distributed.in_shared_memory(x),
            float(x.sum()), transport.heap_used())
