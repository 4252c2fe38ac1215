"""The MPI backend of xa.distributed: a job started by mpirun / mpiexec, on one machine or
many, through mpi4py over whichever MPI it was built for (MPICH from PyPI's ``mpich`` wheel
in the tests). The replicas are MPI_COMM_WORLD's ranks.

Nodes: the ranks that share memory (MPI_COMM_TYPE_SHARED), or with
XARR_MPI_RANKS_PER_NODE=k blocks of k consecutive ranks (several "nodes" on one machine,
for tests). The ranks of a node attach a shared-memory segment of their own (shm.h, its
token drawn by the node's first rank and sent to the others over MPI).

Routing (``MpiRoutes``), decided by every replica alike from the op's arguments:
- a collective whose replica groups each lie within one node runs on the node's segment,
  in node-local numbering (every rank of the node takes part, as the segment requires);
- a collective permute whose pairs each stay within a node runs on the segment too;
- a send / recv between two ranks of a node uses the segment's mailbox;
- anything else runs on MPI (``MpiGroup``): over a communicator per group
  (MPI_Comm_create_group, made on first use) or over MPI_COMM_WORLD for permutes and
  point-to-point messages. No network layer of xarr's own.

On MPI, as on the segment, every collective first exchanges the call (op, dtype,
reduction, group size, bytes, groups hash; ``_agree``), so replicas that call different
collectives raise CollectiveError naming both calls; every wait polls a non-blocking
request for at most XARR_COLLECTIVE_TIMEOUT seconds. A rank that dies ends the job through
mpiexec (which stops every rank). Reductions: MPI's own ops (its reduction order, the same
result on every rank), floating max / min through an op that lets NaN win (as lax.max),
and dtypes MPI has no type for (bfloat16, float8) by gathering the operands and reducing
them in member order with xarr's kernels.
"""

import secrets
import time
import zlib

import numpy as np
from mpi4py import MPI
from mpi4py.util import dtlib

from xarr import _core, _tensor
from xarr._bindings import collectives as _transport
from xarr._dtypes import CODE_OF
from xarr._ops.elementwise import lax_apply

_OP = _transport.OP_CODES
# the EwOp codes the transports reduce with (_state.REDUCE_CODES), by lax name
_NAME_OF_CODE = {_core.ew_ops()[name.upper()][0]: name
                 for name in ("add", "mul", "max", "min", "and", "or", "xor")}
_TAG_PERMUTE, _TAG_HEADER, _TAG_PAYLOAD = 101, 102, 103


def connect(timeout, attach_timeout, slot_bytes, heap_bytes=0, per_node=None):
    """Joins MPI_COMM_WORLD and this node's segment (nodes of ``per_node`` consecutive
    ranks, or MPI's shared-memory nodes): (replica id, count, MpiRoutes). A segment that
    cannot be attached raises TransportFailure."""
    world = MPI.COMM_WORLD
    rank, size = world.Get_rank(), world.Get_size()
    node = (world.Split(rank // per_node, rank) if per_node else
            world.Split_type(MPI.COMM_TYPE_SHARED, key=rank))
    # every rank's (node, rank within it): the node named by its first rank's world rank
    places = world.allgather((node.bcast(rank), node.Get_rank()))
    shm = None
    if node.Get_size() > 1:
        if node.Get_size() > _transport.MAX_RANKS:
            raise ValueError(f"xarr.distributed: {node.Get_size()} ranks on one node (the "
                             f"shared-memory transport takes {_transport.MAX_RANKS})")
        token = node.bcast(secrets.token_hex(16) if node.Get_rank() == 0 else None)
        shm = _transport.Transport(token, node.Get_rank(), node.Get_size(), slot_bytes,
                                   timeout, attach_timeout, heap_bytes)
    node.Free()
    return rank, size, MpiRoutes(world, places, shm, timeout)


class MpiRoutes:
    """Which transport carries each collective of an MPI job (the module's docstring)."""

    def __init__(self, world, places, shm, timeout):
        self.world, self.places, self.shm, self.timeout = world, places, shm, timeout
        self.rank = world.Get_rank()
        self.everyone = MpiGroup(world, list(range(world.Get_size())), self.rank, timeout)
        self.comms = {}    # groups -> my group's MpiGroup

    def _node(self, r):
        return self.places[r][0]

    def _local(self, r):
        return self.places[r][1]

    def _one_node(self, ranks):
        return len({self._node(r) for r in ranks}) <= 1

    def group(self, groups, members, index):
        """(transport, members, my index): the segment in node-local numbering when every
        group lies within a node (a rank alone on its node is then a group of one), else
        MPI over my group's communicator. Every replica decides alike: the groups and the
        nodes are the same on all."""
        if all(self._one_node(g) for g in groups):
            if self.shm is None:
                return ALONE, [0], 0
            return self.shm, [self._local(r) for r in members], index
        comm = self.comms.get(groups)
        if comm is None:
            if list(members) == list(range(self.world.Get_size())):
                comm = self.everyone
            else:
                # MPI_Comm_create_group blocks over the members with no timeout: the whole
                # job first agrees on the groups (polled, bounded by the timeout).
                self.everyone._agree(_OP["barrier"], None, self.world.Get_size(), -1,
                                     zlib.crc32(repr(groups).encode()))
                sub = self.world.Create_group(self.world.Get_group().Incl(list(members)))
                comm = MpiGroup(sub, list(members), self.rank, self.timeout)
            self.comms[groups] = comm
        return comm, members, index

    def permute(self, pairs, source, target):
        """(transport, source, target): the segment's numbering when every pair stays within
        a node (a rank alone on its node can only be its own source), else world ranks on
        MPI."""
        if all(self._one_node(p) for p in pairs):
            if self.shm is None:
                return ALONE, (0 if source == self.rank else -1), target
            local = (lambda r: -1 if r < 0 else self._local(r))
            return self.shm, local(source), local(target)
        return self.everyone, source, target

    def peer(self, replica):
        """(transport, peer): the segment's mailbox for a rank of my node, else MPI."""
        if self.shm is not None and self._one_node((self.rank, replica)):
            return self.shm, self._local(replica)
        return self.everyone, replica

    def close(self):
        if self.shm is not None:
            self.shm.close()
            self.shm = None
        for comm in self.comms.values():
            comm.free()
        self.comms = {}


class _Alone:
    """The collectives of a replica that is a group of one (alone on its node, with every
    group within a node): its own operand, as the segment would give it."""

    def all_reduce(self, x, members, index, groups_hash, reduce):
        return x.copy()

    def all_gather(self, x, members, index, groups_hash):
        return x.copy().reshape((1,) + tuple(x.shape))

    def all_to_all(self, blocks, members, index, groups_hash):
        return blocks.copy()

    def reduce_scatter(self, blocks, members, index, groups_hash, reduce):
        return blocks[0].copy()

    def permute(self, x, source, target, groups_hash):
        out = x.copy()
        if source < 0:
            _view(out)[...] = 0
        return out


ALONE = _Alone()


def _view(t):
    """A tensor's buffer as a flat NumPy array (zero-copy; dense row-major tensors)."""
    return np.asarray(t).reshape(-1)


def _bytes(t):
    return _view(t).view(np.uint8)


def _mpi_type(dtype):
    """The predefined MPI datatype of a NumPy dtype (the reductions need a predefined one),
    or None (bfloat16, float8: MPI has no type)."""
    return MPI._typedict.get(dtype.char) if dtype.isbuiltin else None


def _nan_wins(fn):
    """An MPI op of NumPy's maximum / minimum, which let NaN win as lax.max / lax.min do
    (MPI_MAX / MPI_MIN compare with > and <, which drop it)."""
    def combine(inbuf, inoutbuf, datatype):
        dt = dtlib.to_numpy_dtype(datatype)
        a = np.frombuffer(inbuf, dt)
        b = np.frombuffer(inoutbuf, dt)
        fn(a, b, out=b)
    return MPI.Op.Create(combine, commute=True)


_ARITHMETIC_OPS = {"add": MPI.SUM, "mul": MPI.PROD, "max": MPI.MAX, "min": MPI.MIN,
                   "and": MPI.BAND, "or": MPI.BOR, "xor": MPI.BXOR}
# bool: add and max are or, mul and min are and (xarr's bool arithmetic)
_BOOL_OPS = {"add": MPI.LOR, "max": MPI.LOR, "or": MPI.LOR, "mul": MPI.LAND,
             "min": MPI.LAND, "and": MPI.LAND, "xor": MPI.LXOR}
_FLOAT_OPS = {}


def _mpi_op(name, dtype):
    """The MPI op reducing ``dtype`` with ``name``, or None (float16 max / min)."""
    if dtype.kind == "b":
        return _BOOL_OPS[name]
    if name in ("max", "min") and dtype.kind == "f":
        if dtype.itemsize < 4:
            return None
        if name not in _FLOAT_OPS:
            _FLOAT_OPS[name] = _nan_wins(np.maximum if name == "max" else np.minimum)
        return _FLOAT_OPS[name]
    return _ARITHMETIC_OPS[name]


# An all-reduce of at most _INLINE_BYTES whose members' operands (with their calls) gather
# into at most SMALL_GATHER_BYTES runs in one round (MpiGroup._small_all_reduce).
SMALL_GATHER_BYTES = 64 << 10
_INLINE_BYTES = 4096
_HEADER_BYTES = 64          # the call (6 int64), padded so the operand stays aligned
_UFUNCS = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum,
           "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


def _fill_call(call, op, x, group_size, reduce, groups_hash):
    """call[:6] = (op, dtype code, reduction, group size, bytes, groups hash): what every
    member must agree on (ShmCall's fields; None: no operand)."""
    call[0], call[2], call[3], call[5] = op, reduce, group_size, groups_hash
    call[1] = -1 if x is None else CODE_OF[x.dtype]
    call[4] = 0 if x is None else x.size * x.dtype.itemsize


class MpiGroup:
    """The collectives of one replica group over an MPI communicator: the same methods
    and results as the shared-memory Transport (collectives.pyx), members in world ranks
    (ranks of ``comm`` follow them in order)."""

    def __init__(self, comm, members, rank, timeout):
        self.comm, self.members, self.rank, self.timeout = comm, members, rank, timeout
        n = comm.Get_size()
        # every collective opens with a gather of this many bytes from each member: the
        # call, and a small all-reduce's operand inline (the same size on every member, so
        # members whose calls differ never post gathers of different sizes)
        self.inline = max(0, min(_INLINE_BYTES, SMALL_GATHER_BYTES // n - _HEADER_BYTES))
        self.opening = _HEADER_BYTES + self.inline
        self.broken = None     # why the group can no longer be used
        self.stale = []        # the requests (and buffers) of a collective that timed out

    def free(self):
        if self.comm not in (MPI.COMM_WORLD, MPI.COMM_NULL) and not self.stale:
            self.comm.Free()
        self.comm = MPI.COMM_NULL

    # ------------------------------------------------------------------ waits, agreement
    def _wait(self, *requests, keep=()):
        """Waits for the requests, raising TransportFailure after the timeout. MPICH makes
        progress on a non-blocking collective only inside its tests, so this spins on them
        for the first 20 ms (a sleep between tests made 1 MB collectives 3x slower), then
        yields the core between tests, and after 1 s sleeps 1 ms between them. After a
        timeout the requests stay pending (MPI cannot cancel a collective): they and their
        buffers (``keep``) are kept alive, and the group refuses further calls."""
        if not requests:
            return
        if len(requests) == 1:
            request = requests[0]
            if request.Test():
                return
            done = request.Test
        else:
            requests = list(requests)
            done = (lambda: MPI.Request.Testall(requests))
        start = time.monotonic()
        spins = 0
        while not done():
            spins += 1
            if spins & 63:
                continue
            elapsed = time.monotonic() - start
            if elapsed > 20e-3:
                if elapsed > self.timeout:
                    self.stale.append((requests, keep))
                    self.broken = (f"a collective on this group timed out after "
                                   f"{self.timeout:g} s")
                    raise _transport.TransportFailure(
                        "timeout", -1, (self.rank, -1), ((0,) * 6, (0,) * 6),
                        f"no progress from the other replicas within {self.timeout:g} s "
                        f"(XARR_COLLECTIVE_TIMEOUT) over MPI")
                time.sleep(1e-3 if elapsed > 1.0 else 0)

    def _agree(self, op, x, group_size, reduce, groups_hash, inline=None):
        """Opens a collective: gathers every member's call (and ``inline``, a small
        operand's bytes) in one polled, non-blocking gather of ``opening`` bytes each, so a
        replica that never comes makes this raise after the timeout; TransportFailure
        ('mismatch') when any member's call differs from this replica's. Returns the
        gathered rows. The data then moves with non-blocking collectives too, so a replica
        that arrives after the others timed out (and matches their stale requests) times
        out in turn instead of hanging."""
        self._refuse_if_broken()
        send = np.empty(self.opening, np.uint8)
        call = send[:_HEADER_BYTES].view(np.int64)[:6]
        _fill_call(call, op, x, group_size, reduce, groups_hash)
        if inline is not None:
            send[_HEADER_BYTES:_HEADER_BYTES + inline.size] = inline
        every = np.empty((self.comm.Get_size(), self.opening), np.uint8)
        self._wait(self.comm.Iallgather(send, every), keep=(send, every))
        self._check(call, every[:, :_HEADER_BYTES].view(np.int64)[:, :6])
        return every

    def _refuse_if_broken(self):
        if self.broken:
            raise _transport.TransportFailure("failed", -1, (self.rank, -1),
                                              ((0,) * 6, (0,) * 6), self.broken)

    def _check(self, call, calls):
        if calls.tobytes() == call.tobytes() * calls.shape[0]:    # (the common case, fast)
            return
        mine = tuple(call.tolist())
        for k, theirs in enumerate(map(tuple, calls.tolist())):
            if theirs != mine:
                raise _transport.TransportFailure(
                    "mismatch", self.members[k], (self.rank, self.members[k]),
                    (mine, theirs), "replicas called different collectives")

    # ------------------------------------------------------------------ the collectives
    def all_reduce(self, x, members, index, groups_hash, reduce):
        nbytes = x.size * x.dtype.itemsize
        if nbytes <= self.inline:
            return self._small_all_reduce(x, len(members), reduce, groups_hash)
        self._agree(_OP["all-reduce"], x, len(members), reduce, groups_hash)
        name = _NAME_OF_CODE[reduce]
        dt = _view(x).dtype
        mpi_type, op = _mpi_type(dt), _mpi_op(name, dt)
        if mpi_type is None or op is None:
            return self._reduce_in_order(self._gather(x), name)
        out = _tensor.empty(tuple(x.shape), CODE_OF[x.dtype])
        self._wait(self.comm.Iallreduce([_view(x), mpi_type], [_view(out), mpi_type], op),
                   keep=(x, out))
        return out

    def _small_all_reduce(self, x, group_size, reduce, groups_hash):
        """One round: every member's call and operand in the opening gather, then reduced
        in member order (the segment's order and bits) with NumPy's ufuncs, the same IEEE
        operations as xarr's kernels."""
        nbytes = x.size * x.dtype.itemsize
        every = self._agree(_OP["all-reduce"], x, group_size, reduce, groups_hash,
                            inline=_bytes(x))
        out = _tensor.empty(tuple(x.shape), CODE_OF[x.dtype])
        o = _view(out)
        rows = every[:, _HEADER_BYTES:_HEADER_BYTES + nbytes].view(o.dtype)
        combine = _UFUNCS[_NAME_OF_CODE[reduce]]
        if rows.shape[0] == 1:
            o[...] = rows[0]
        else:
            combine(rows[0], rows[1], out=o)
        for k in range(2, rows.shape[0]):
            combine(o, rows[k], out=o)
        return out

    def _gather(self, x):
        out = _tensor.empty((self.comm.Get_size(),) + tuple(x.shape), CODE_OF[x.dtype])
        self._wait(self.comm.Iallgather(_bytes(x), _bytes(out)), keep=(x, out))
        return out

    @staticmethod
    def _reduce_in_order(stacked, name):
        """stacked[0] op stacked[1] op ... in member order (the segment's order)."""
        acc = stacked[0]
        for k in range(1, stacked.shape[0]):
            acc = lax_apply(name, acc, stacked[k])
        return _transport.dense(_tensor.strided(acc))

    def all_gather(self, x, members, index, groups_hash):
        self._agree(_OP["all-gather"], x, len(members), -1, groups_hash)
        return self._gather(x)

    def all_to_all(self, blocks, members, index, groups_hash):
        self._agree(_OP["all-to-all"], blocks, len(members), -1, groups_hash)
        out = _tensor.empty(tuple(blocks.shape), CODE_OF[blocks.dtype])
        self._wait(self.comm.Ialltoall(_bytes(blocks), _bytes(out)), keep=(blocks, out))
        return out

    def reduce_scatter(self, blocks, members, index, groups_hash, reduce):
        """An all-to-all of the blocks, then their reduction in member order (the
        segment's bits; MPICH's Ireduce_scatter_block of 1 MB is 9x slower here)."""
        self._agree(_OP["reduce-scatter"], blocks, len(members), reduce, groups_hash)
        out = _tensor.empty(tuple(blocks.shape), CODE_OF[blocks.dtype])
        self._wait(self.comm.Ialltoall(_bytes(blocks), _bytes(out)), keep=(blocks, out))
        return self._reduce_in_order(out, _NAME_OF_CODE[reduce])

    def permute(self, x, source, target, groups_hash):
        """Over MPI_COMM_WORLD: x to ``target``, the result from ``source`` (zeros when
        source < 0)."""
        self._agree(_OP["collective-permute"], x, self.comm.Get_size(), -1, groups_hash)
        out = _tensor.empty(tuple(x.shape), CODE_OF[x.dtype])
        requests = []
        if source >= 0:
            requests.append(self.comm.Irecv(_bytes(out), source, _TAG_PERMUTE))
        else:
            _view(out)[...] = 0
        if target >= 0:
            requests.append(self.comm.Isend(_bytes(x), target, _TAG_PERMUTE))
        self._wait(*requests, keep=(x, out))
        return out

    def _header(self, x, channel):
        return np.array((_OP["send / recv"], CODE_OF[x.dtype], -1, 2,
                         x.size * x.dtype.itemsize, channel & 0x7FFFFFFFFFFFFFFF), np.int64)

    def send(self, x, dst, channel):
        """x to world rank ``dst``: its call first (dtype, bytes, channel), then the data."""
        self._refuse_if_broken()
        header = self._header(x, channel)
        self._wait(self.comm.Isend(header, dst, _TAG_HEADER),
                   self.comm.Isend(_bytes(x), dst, _TAG_PAYLOAD), keep=(header, x))

    def recv(self, like, src, channel):
        self._refuse_if_broken()
        mine = self._header(like, channel)
        theirs = np.empty(6, np.int64)
        self._wait(self.comm.Irecv(theirs, src, _TAG_HEADER), keep=(theirs,))
        if tuple(theirs.tolist()) != tuple(mine.tolist()):
            raise _transport.TransportFailure(
                "mismatch", src, (self.rank, src), (tuple(mine.tolist()),
                                                    tuple(theirs.tolist())),
                "a send and its recv differ")
        out = _tensor.empty(tuple(like.shape), CODE_OF[like.dtype])
        self._wait(self.comm.Irecv(_bytes(out), src, _TAG_PAYLOAD), keep=(out,))
        return out
