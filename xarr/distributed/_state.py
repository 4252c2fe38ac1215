"""This process's place among the replicas of an SPMD job, and its transports.

The launcher (xarr/distributed/launch.py) starts N copies of a program with three
variables: XARR_REPLICA_ID (0 .. N-1), XARR_NUM_REPLICAS (N) and XARR_JOB_TOKEN (128
random bits, hex: the name of the job's shared memory, which no other job can guess).
``initialize()`` reads them and attaches the shared-memory transport
(csrc/kernels/collectives/shm.h). A process started by mpirun / mpiexec (its MPI
environment: PMI_SIZE, OMPI_COMM_WORLD_SIZE, PMIX_RANK; or XARR_BACKEND=mpi) joins through
MPI instead (_mpi.py: shared memory within a node, MPI across nodes). Otherwise the process
is replica 0 of 1 and every collective is the identity. XARR_COLLECTIVE_TIMEOUT (seconds,
default 60) bounds every wait for a peer; XARR_SHM_SLOT_BYTES (default 2 MiB) is what a replica moves per round;
XARR_SHM_HEAP_BYTES (default 0) is each replica's shared heap, where tensors made under
``xa.distributed.shared_memory()`` live and collectives read them in place.

Failures of the transport become ``CollectiveError`` naming the op, the replica and what
differed (``failure``).
"""

import atexit
import os
import re
import zlib

from xarr import _core
from xarr._bindings import collectives as _transport
from xarr._dtypes import XLA_NAMES

DEFAULT_TIMEOUT = 60.0
ATTACH_TIMEOUT = 60.0      # seconds at least, for every replica to attach
DEFAULT_SLOT_BYTES = 2 << 20

# The transport's op codes (ShmCall.op) by XLA name, for messages.
_OP_NAMES = {v: k for k, v in _transport.OP_CODES.items()}

_EW = _core.ew_ops()
# reduction name -> the elementwise kernel (EwOp) the transports combine with
REDUCE_CODES = {"add": _EW["ADD"][0], "mul": _EW["MUL"][0], "max": _EW["MAX"][0],
                "min": _EW["MIN"][0], "and": _EW["AND"][0], "or": _EW["OR"][0],
                "xor": _EW["XOR"][0]}


class CollectiveError(RuntimeError):
    """A collective could not complete: a replica died, hung past the timeout, or called a
    different op, shape or dtype. Every surviving replica raises it."""


class ShmRoutes:
    """Which transport carries a collective, and in what numbering, for a job on one
    shared-memory segment: always the segment's, in replica ids (_mpi.MpiRoutes is the
    MPI job's)."""

    def __init__(self, transport):
        self.transport = transport

    def group(self, groups, members, index):
        """(transport, members, my index) for a collective over ``groups``."""
        return self.transport, members, index

    def permute(self, pairs, source, target):
        """(transport, source, target) for a collective permute of ``pairs``."""
        return self.transport, source, target

    def peer(self, replica):
        """(transport, replica) for a send to or a recv from ``replica``."""
        return self.transport, replica

    def close(self):
        self.transport.close()


class _Job:
    def __init__(self, rank, size, token, routes):
        self.rank, self.size, self.token, self.routes = rank, size, token, routes
        self.groups = {}   # xarr/_ops/collectives.py's resolved groups


_job = None


def _env_int(name, default=None):
    v = os.environ.get(name)
    if v is None or v == "":
        return default
    try:
        return int(v)
    except ValueError:
        raise ValueError(f"xarr.distributed: {name}={v!r} is not an integer") from None


def timeout():
    """XARR_COLLECTIVE_TIMEOUT in seconds (default 60)."""
    v = os.environ.get("XARR_COLLECTIVE_TIMEOUT", "")
    try:
        t = float(v) if v else DEFAULT_TIMEOUT
    except ValueError:
        raise ValueError(f"xarr.distributed: XARR_COLLECTIVE_TIMEOUT={v!r} is not a number "
                         f"of seconds") from None
    if not t > 0:
        raise ValueError(f"xarr.distributed: XARR_COLLECTIVE_TIMEOUT={v!r} must be > 0")
    return t


_MPI_SIZE_VARIABLES = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK")


def started_by_mpi():
    """Whether mpirun / mpiexec started this process (and the launcher did not)."""
    if "XARR_REPLICA_ID" in os.environ:
        return False
    backend = os.environ.get("XARR_BACKEND", "")
    if backend not in ("", "mpi", "shm"):
        raise ValueError(f"xarr.distributed: XARR_BACKEND={backend!r} is not 'mpi' or 'shm'")
    return backend == "mpi" or (backend == "" and any(v in os.environ
                                                      for v in _MPI_SIZE_VARIABLES))


def heap_bytes():
    """XARR_SHM_HEAP_BYTES: each replica's shared heap in bytes (default 0: none)."""
    n = _env_int("XARR_SHM_HEAP_BYTES", 0)
    if n < 0:
        raise ValueError(f"xarr.distributed: XARR_SHM_HEAP_BYTES={n} must be >= 0")
    return n


def initialize(replica_id=None, num_replicas=None, token=None):
    """Joins this process to its job (the launcher's environment, MPI's under mpirun, or
    the arguments); a process without them is replica 0 of 1. Idempotent. Returns
    (replica_id, count)."""
    global _job
    if _job is not None:
        return _job.rank, _job.size
    if replica_id is None and num_replicas is None and started_by_mpi():
        # (mpi4py is optional, and importing it starts MPI: only an MPI job loads it)
        from xarr.distributed import _mpi
        per_node = _env_int("XARR_MPI_RANKS_PER_NODE")
        if per_node is not None and per_node < 1:
            raise ValueError(f"xarr.distributed: XARR_MPI_RANKS_PER_NODE={per_node} must be "
                             f">= 1")
        try:
            rank, size, routes = _mpi.connect(
                timeout(), max(timeout(), ATTACH_TIMEOUT),
                _env_int("XARR_SHM_SLOT_BYTES", DEFAULT_SLOT_BYTES), heap_bytes(), per_node)
        except _transport.TransportFailure as e:
            raise CollectiveError(f"xarr.distributed.initialize: this MPI rank could not "
                                  f"attach its node's shared memory: {e.message}") from None
        _job = _Job(rank, size, None, routes)
        atexit.register(finalize)
        return rank, size
    rank = _env_int("XARR_REPLICA_ID", 0) if replica_id is None else int(replica_id)
    size = _env_int("XARR_NUM_REPLICAS", 1) if num_replicas is None else int(num_replicas)
    token = os.environ.get("XARR_JOB_TOKEN") if token is None else token
    if not 1 <= size <= _transport.MAX_RANKS:
        raise ValueError(f"xarr.distributed: {size} replicas (1 to {_transport.MAX_RANKS})")
    if not 0 <= rank < size:
        raise ValueError(f"xarr.distributed: replica id {rank} is not in [0, {size})")
    transport = None
    if size > 1:
        if not token or not re.fullmatch(r"[0-9a-f]{16,64}", token):
            raise ValueError("xarr.distributed: XARR_JOB_TOKEN must be 16 to 64 hex digits "
                             "(start replicas with python -m xarr.launch)")
        slot = _env_int("XARR_SHM_SLOT_BYTES", DEFAULT_SLOT_BYTES)
        try:
            # (attaching waits for every replica's start-up: an import of xarr can take
            # longer than a short collective timeout)
            transport = _transport.Transport(token, rank, size, slot, timeout(),
                                             max(timeout(), ATTACH_TIMEOUT), heap_bytes())
        except _transport.TransportFailure as e:
            raise CollectiveError(f"xarr.distributed.initialize: replica {rank} of {size} "
                                  f"could not join the job: {e.message}") from None
    _job = _Job(rank, size, token, None if transport is None else ShmRoutes(transport))
    atexit.register(finalize)
    return rank, size


def finalize():
    """Detaches this replica (peers still waiting for it then fail instead of hanging)."""
    global _job
    if _job is not None and _job.routes is not None:
        _job.routes.close()
    _job = None


def job():
    """The job, initialized on first use."""
    if _job is None:
        initialize()
    return _job


def groups_of(fn, replica_groups, size):
    """The replica groups as tuples (None or empty: one group of every replica in order),
    each replica in exactly one (the seed: the groups cover the replicas)."""
    if not replica_groups:
        return (tuple(range(size)),)
    groups = tuple(tuple(int(r) for r in g) for g in replica_groups)
    seen = sorted(r for g in groups for r in g)
    if seen != list(range(size)):
        raise ValueError(f"{fn}: replica_groups {[list(g) for g in groups]} must hold each of "
                         f"the {size} replicas exactly once")
    if any(len(g) == 0 for g in groups):
        raise ValueError(f"{fn}: replica_groups {[list(g) for g in groups]} has an empty "
                         f"group")
    return groups


def my_group(groups, rank):
    """(members, my index in them)."""
    for g in groups:
        if rank in g:
            return g, g.index(rank)
    raise AssertionError("groups_of covers every replica")


def groups_hash(groups, channel_id):
    """ShmCall.groups_hash: the same on every replica for the same groups and channel."""
    return zlib.crc32(repr((groups, channel_id)).encode())


def describe(call):
    op, dtype, reduce, group_size, nbytes, _ = call
    name = _OP_NAMES.get(op, f"op {op}")
    dt = XLA_NAMES[dtype] if 0 <= dtype < len(XLA_NAMES) else f"dtype {dtype}"
    return f"{name} of {dt}, {nbytes} bytes, over a group of {group_size}"


def failure(fn, e, rank):
    """The CollectiveError of a TransportFailure e, naming fn (the lax function)."""
    if e.status == "mismatch":
        (r0, r1), (c0, c1) = e.ranks, e.calls
        what = [name for name, a, b in zip(("op", "dtype", "reduction", "group size",
                                            "bytes", "replica groups / channel"), c0, c1)
                if a != b]
        return CollectiveError(
            f"{fn}: replicas called different collectives ({', '.join(what)} differ): "
            f"replica {r0} called {describe(c0)}; replica {r1} called {describe(c1)}")
    return CollectiveError(f"{fn} on replica {rank}: {e.message}")
