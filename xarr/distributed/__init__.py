"""``xa.distributed``: the replicas of an SPMD job.

- ``python -m xarr.launch -n N script.py`` starts N replicas (launch.py); in the script,
  ``xa.distributed.initialize()`` joins the job (optional: the first collective does it).
- ``xa.distributed.run(fn, n=4, args=())`` runs ``fn(*args)`` on n replica processes from
  Python (tests, notebooks) and returns their results, replica 0's first.
- ``replica_id()``, ``num_replicas()``; the collectives are ``xa.lax.psum`` and the others
  of xarr/_ops/collectives.py. A failed collective raises ``CollectiveError``.
"""

import contextlib
import multiprocessing
import os
import secrets
import time
import traceback

import numpy as np

from xarr import _runtime
from xarr._bindings import collectives as _transport
from xarr.distributed import _state
from xarr.distributed._state import CollectiveError, finalize, initialize
from xarr.distributed.launch import stop, sweep

__all__ = ["CollectiveError", "ReplicaFailure", "finalize", "in_shared_memory", "initialize",
           "num_replicas", "replica_id", "run", "shared_memory"]


def replica_id():
    """This process's replica id (0 outside a job)."""
    return _state.job().rank


def num_replicas():
    """The job's replica count (1 outside a job)."""
    return _state.job().size


@contextlib.contextmanager
def shared_memory():
    """Within the block, this replica's new tensors are allocated in its shared heap, a
    part of the job's shared memory (XARR_SHM_HEAP_BYTES per replica, set before the job
    starts; 0, the default, leaves allocation as it is). all_gather, all_to_all,
    psum_scatter and ppermute read such operands in place, without copying them through
    the transport's slots. A full heap falls back to ordinary memory.

        with xa.distributed.shared_memory():
            u = xa.zeros((1024, 1024))           # in the heap
            halo = xa.lax.ppermute(u[-1], "i", pairs)   # read by the peer in place
    """
    _state.job()      # (the heap comes with the job's transport)
    previous = _transport.shared_allocation(True)
    try:
        yield
    finally:
        _transport.shared_allocation(previous)


def in_shared_memory(t):
    """Whether tensor t's memory lies in this replica's shared heap."""
    return _transport.in_shared_heap(t)


class ReplicaFailure(RuntimeError):
    """A replica of ``run`` raised or died: ``replica``, ``kind`` (the exception's type
    name, or 'exit <code>'), ``message`` and the replica's ``traceback`` text."""

    def __init__(self, replica, kind, message, trace=""):
        super().__init__(f"replica {replica} failed: {kind}: {message}" +
                         (f"\n{trace}" if trace else ""))
        self.replica, self.kind, self.message, self.traceback = replica, kind, message, trace


_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def _to_numpy(tree):
    """Results cross the process boundary as NumPy arrays (pytrees of them)."""
    if isinstance(tree, (tuple, list)):
        return type(tree)(_to_numpy(v) for v in tree)
    if isinstance(tree, dict):
        return {k: _to_numpy(v) for k, v in tree.items()}
    return np.asarray(tree) if hasattr(tree, "__array__") else tree


def _replica_main(fn, rank, n, token, args, kwargs, threads, conn):
    """One replica of run(): joins the job, runs fn, sends ('ok', result) or ('error',
    type name, message, traceback)."""
    try:
        os.environ.update({"XARR_REPLICA_ID": str(rank), "XARR_NUM_REPLICAS": str(n),
                           "XARR_JOB_TOKEN": token})
        _runtime.set_num_threads(threads)
        initialize(rank, n, token)
        conn.send(("ok", _to_numpy(fn(*args, **kwargs))))
    except BaseException as e:   # noqa: BLE001 (every failure is reported to the parent)
        conn.send(("error", type(e).__name__, str(e), traceback.format_exc()))
    finally:
        finalize()
        conn.close()


def run(fn, n=2, args=(), kwargs=None, *, timeout=None, return_exceptions=False,
        grace=5.0):
    """Runs ``fn(*args, **kwargs)`` on ``n`` new replica processes (spawned: fn must be
    importable, e.g. defined at a module's top level) and returns their results in replica
    order. A replica that raises or dies raises ReplicaFailure here (the first one), after
    the others finished or were stopped; with ``return_exceptions`` its ReplicaFailure
    takes its place in the list instead. ``timeout`` (seconds; default the collective
    timeout + 30) bounds the whole run; once a replica failed, the others get ``grace``
    seconds to end (a survivor's CollectiveError comes within milliseconds of a death)
    before they are stopped."""
    if n < 1:
        raise ValueError(f"xa.distributed.run: n must be at least 1, got {n}")
    kwargs = kwargs or {}
    limit = _state.timeout() + 30 if timeout is None else float(timeout)
    token = secrets.token_hex(16)
    ctx = multiprocessing.get_context("spawn")
    threads = max(1, (os.cpu_count() or 1) // n)
    procs, pipes = [], []
    results = [None] * n
    try:
        _start(ctx, procs, pipes, (fn, n, token, args, kwargs, threads))
        _collect(procs, pipes, results, limit, grace)
    finally:   # (also when a start failed: fn is pickled there, and a lambda fails)
        stop([_ProcessHandle(p) for p in procs])
        for c in pipes:
            c.close()
        sweep(token)
    out = []
    for rank, msg in enumerate(results):
        if msg[0] == "ok":
            out.append(msg[1])
            continue
        failure = ReplicaFailure(rank, msg[1], msg[2], msg[3])
        if not return_exceptions:
            raise failure
        out.append(failure)
    return out


def _start(ctx, procs, pipes, job):
    """Starts the replicas (appending each process and its pipe as it goes). A spawned
    child takes the environment of the moment it starts: no more threads than cores
    between the replicas, for OpenMP and for NumPy's BLAS, whose idle threads spin."""
    fn, n, token, args, kwargs, threads = job
    saved = {k: os.environ.get(k) for k in _THREAD_VARIABLES}
    try:
        for k in _THREAD_VARIABLES:
            os.environ.setdefault(k, str(threads))
        for rank in range(n):
            here, there = ctx.Pipe(duplex=False)
            pipes.append(here)
            p = ctx.Process(target=_replica_main, args=(fn, rank, n, token, args, kwargs,
                                                        threads, there), daemon=True)
            try:
                p.start()
            finally:
                there.close()
            procs.append(p)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _collect(procs, pipes, results, limit, grace):
    """Fills results[rank] with each replica's ('ok', value) or ('error', kind, message,
    traceback) as they come; after a failure the others get ``grace`` seconds."""
    n = len(procs)
    pending = set(range(n))
    end = time.monotonic() + limit
    while pending and time.monotonic() < end:
        for rank in list(pending):
            if pipes[rank].poll(0.005):
                try:
                    msg = pipes[rank].recv()
                except EOFError:   # (it died: its exit code says how)
                    procs[rank].join(5)
                    msg = ("error", f"exit {procs[rank].exitcode}",
                           "the replica ended without a result", "")
                results[rank] = msg
                pending.discard(rank)
                if msg[0] == "error":   # the others get `grace` seconds to end too
                    end = min(end, time.monotonic() + grace)
            elif not procs[rank].is_alive() and not pipes[rank].poll(0):
                code = procs[rank].exitcode
                results[rank] = ("error", f"exit {code}", "the replica died", "")
                pending.discard(rank)
                end = min(end, time.monotonic() + grace)
    for rank in pending:
        results[rank] = ("error", "stopped", "no result before the run's deadline "
                         f"({limit:g} s, or {grace:g} s after a failure)", "")


class _ProcessHandle:
    """A multiprocessing.Process seen as launch.stop's subprocess.Popen."""

    def __init__(self, p):
        self.p = p

    def poll(self):
        return None if self.p.is_alive() else self.p.exitcode

    def terminate(self):
        self.p.terminate()

    def kill(self):
        self.p.kill()

    def wait(self):
        self.p.join()
