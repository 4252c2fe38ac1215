"""Replica collectives (seed 004: AllReduce, AllGather, AllToAll, ReduceScatter,
CollectivePermute, CrossReplicaSum, ReplicaId), named as jax.lax's (``psum``, ``pmax``,
``pmin``, ``pmean``, ``all_gather``, ``all_to_all``, ``psum_scatter``, ``ppermute``,
``axis_index``) and as the seed's (``all_reduce`` with a computation, ``reduce_scatter``,
``collective_permute``, ``cross_replica_sum``, ``replica_id``).

Every replica of the job (xarr/distributed) runs the same program; a collective takes one
operand per replica and gives each replica its result. ``axis_name`` is accepted for jax's
signatures and names the one replica axis; ``axis_index_groups`` (jax) and
``replica_groups`` (the seed) split the replicas into groups that each run the op among
themselves (None: one group of every replica, in order). Shapes and dtypes must agree over
a group: a replica that differs, dies or hangs past XARR_COLLECTIVE_TIMEOUT makes every
survivor raise CollectiveError naming the op and the replica.

The data moves through the shared-memory transport (csrc/kernels/collectives/shm.h):
reductions in member order, so every replica gets the same bits. Each collective is one
graph op (all_reduce, all_gather, all_to_all, reduce_scatter, collective_permute: the
transport's forms; the jax functions reshape around them), so it runs eagerly and is
recorded under xa.jit / xa.lazy, printed as XLA prints it:
``all-reduce(p0), replica_groups={{0,1}}, to_apply=%add``.

    >>> # on 2 replicas holding [1., 2.5] and [3., 5.25]:
    >>> xa.lax.psum(x, "i")                    # [4., 7.75] on both
    >>> xa.lax.all_gather(x, "i", tiled=True)  # [1., 2.5, 3., 5.25] on both
"""

import numpy as np

from xarr import _tensor
from xarr._bindings import collectives as _transport
from xarr._dtypes import CODE_OF, KINDS, XLA_NAMES
from xarr._graph import pytree
from xarr._graph.trace import Traced
from xarr._ops.conversion import asarray
from xarr._ops.elementwise import lax_apply
from xarr._ops import structural as S
from xarr._ops.structural import as_operand
from xarr._registry import lookup
from xarr._ops.reduction import _vectorized
from xarr._graph.trace import TracedComputation, recorder, trace_sub, tracing
from xarr._graph.ir import Instruction, Module, TensorType
from xarr.distributed import _state

_REDUCE = _state.REDUCE_CODES


def _operand(fn, x):
    """x as a tensor or traced value (a collective records itself under xa.jit /
    xa.lazy; the transport gets a dense row-major tensor: _dense)."""
    return as_operand(x)


def _concrete(x):
    """x is a tensor to run on now (not traced, not under xa.lazy)."""
    return type(x) is _tensor.Tensor and recorder([x]) is None


def _reshape(v, shape):
    """S.reshape, or a concrete tensor's own view method: the graph op's bookkeeping (a
    few microseconds) was a third of a small all-to-all's time."""
    return v.reshape(shape) if _concrete(v) else S.reshape(v, shape)


def _transpose(v, permutation):
    return v.transpose(permutation) if _concrete(v) else S.transpose(v, permutation)


def _collective(name, x, **attrs):
    """S.apply of collective graph op ``name``, or on a concrete tensor its impl at once."""
    if _concrete(x):
        return lookup(name).impl(x, **attrs)
    return S.apply(name, [x], **attrs)


def _dense(x):
    return _transport.dense(_tensor.strided(x))


def _group(fn, groups, channel_id=None):
    """(job, groups, my group's members, my index in them, the groups' hash, the link),
    resolved once per (groups, channel) and job: a small collective's cost is mostly this
    Python. The link is (transport, members, index) in the numbering of the transport that
    carries this group's traffic (_state.ShmRoutes, _mpi.MpiRoutes; None: one replica)."""
    job = _state.job()
    key = (None if not groups else tuple(tuple(g) for g in groups), channel_id)
    hit = job.groups.get(key)
    if hit is None:
        gs = _state.groups_of(fn, groups, job.size)
        members, index = _state.my_group(gs, job.rank)
        link = None if job.routes is None else job.routes.group(gs, members, index)
        hit = job.groups[key] = (job, gs, members, index, _state.groups_hash(gs, channel_id),
                                 link)
    return hit


def _run(fn, job, work):
    try:
        return work()
    except _transport.TransportFailure as e:
        raise _state.failure(fn, e, job.rank) from None


def _leaves(fn, tree, one):
    """one(leaf) over a pytree of operands (jax's collectives take pytrees)."""
    if type(tree) is _tensor.Tensor:
        return one(tree)
    leaves = []
    struct = pytree.flatten(tree, leaves)
    return pytree.unflatten(struct, iter([one(v) for v in leaves]))


# ------------------------------------------------------------------------ all-reduce
def _all_reduce_leaf(fn, x, reduce, groups, channel_id):
    x = _operand(fn, x)
    hit = _group(fn, groups, channel_id)
    code = _code(x)
    kind = KINDS[code]
    if reduce in ("and", "or", "xor") and kind not in "biu":
        raise TypeError(f"{fn}: a bitwise reduction needs bool or integer operands, got "
                        f"{XLA_NAMES[code]}")
    if reduce in ("max", "min") and kind == "c":
        raise TypeError(f"{fn}: {reduce} is not defined for complex operands "
                        f"({XLA_NAMES[code]})")
    if _concrete(x):   # eager: no graph op to build (the small all-reduce's hot path)
        return _all_reduce_run(hit, x, fn, reduce)
    return S.apply("all_reduce", [x], fn=fn, reduce=reduce, groups=hit[1],
                   channel_id=channel_id, side_effect=True)


def _code(x):
    return x.instr.type.code if isinstance(x, Traced) else CODE_OF[x.dtype]


def _all_reduce_impl(x, fn, reduce, groups, channel_id, side_effect):
    return _all_reduce_run(_group(fn, groups, channel_id), x, fn, reduce)


def _all_reduce_run(hit, x, fn, reduce):
    """x all-reduced over the group _group resolved (``hit``)."""
    job, _, _, _, ghash, link = hit
    x = _dense(x)
    if link is None:
        return x.copy()
    transport, members, index = link
    try:   # (_run's handling, inline: this is the small all-reduce's hot path)
        return transport.all_reduce(x, members, index, ghash, _REDUCE[reduce])
    except _transport.TransportFailure as e:
        raise _state.failure(fn, e, job.rank) from None


def _same_type(types, **attrs):
    return types[0]


def _groups_text(groups):
    return "replica_groups={" + ",".join("{" + ",".join(map(str, g)) + "}"
                                         for g in groups) + "}"


def _collective_text(attrs):
    """XLA's attributes of a collective: dimensions, replica_groups, channel_id, to_apply."""
    out = []
    if "dimension" in attrs:
        out.append(f"dimensions={{{attrs['dimension']}}}")
    if "pairs" in attrs:
        out.append("source_target_pairs={" + ",".join(f"{{{s},{t}}}"
                                                      for s, t in attrs["pairs"]) + "}")
    else:
        out.append(_groups_text(attrs["groups"]))
    if attrs.get("channel_id") is not None:
        out.append(f"channel_id={attrs['channel_id']}")
    if "reduce" in attrs:
        out.append(f"to_apply=%{attrs['reduce']}")
    return out


# Every collective is side-effecting (``side_effect`` attribute): the passes keep it when
# this replica does not use its result and never merge two, and the executor runs them in
# program order, as every replica must call the same collectives in the same order.
S.defop("all_reduce", _same_type, _all_reduce_impl, text=_collective_text)


_BOOL = CODE_OF[np.dtype(bool)]


def _counts(v):
    """bool operands of psum / pmean are counted, as jax's (int32)."""
    v = as_operand(v)
    return v.astype(np.int32) if _code(v) == _BOOL else v


def psum(x, axis_name=None, *, axis_index_groups=None):
    """jax.lax.psum: the sum over the replicas (of each leaf of a pytree; bools are
    counted in int32, as jax)."""
    return _leaves("xa.lax.psum", x, lambda v: _all_reduce_leaf(
        "xa.lax.psum", _counts(v), "add", axis_index_groups, None))


def pmax(x, axis_name=None, *, axis_index_groups=None):
    """jax.lax.pmax: the elementwise maximum over the replicas (NaN wins, as lax.max)."""
    return _leaves("xa.lax.pmax", x, lambda v: _all_reduce_leaf(
        "xa.lax.pmax", v, "max", axis_index_groups, None))


def pmin(x, axis_name=None, *, axis_index_groups=None):
    """jax.lax.pmin: the elementwise minimum over the replicas."""
    return _leaves("xa.lax.pmin", x, lambda v: _all_reduce_leaf(
        "xa.lax.pmin", v, "min", axis_index_groups, None))


def pmean(x, axis_name=None, *, axis_index_groups=None):
    """jax.lax.pmean: psum divided by the group's size (integers become float64, as
    NumPy's true division)."""
    def one(v):
        total = _all_reduce_leaf("xa.lax.pmean", _counts(v), "add", axis_index_groups, None)
        n = len(_group("xa.lax.pmean", axis_index_groups)[2])
        if KINDS[CODE_OF[total.dtype]] in "biu":
            total = total.astype(np.float64)
        return lax_apply("div", total, asarray(np.asarray(n, total.dtype)))
    return _leaves("xa.lax.pmean", x, one)


def cross_replica_sum(operand, replica_groups=None):
    """The seed's CrossReplicaSum: all_reduce with add."""
    return _all_reduce_leaf("xa.lax.cross_replica_sum", operand, "add", replica_groups, None)


def _named_reduction(computation, code):
    """'add' / 'mul' / 'max' / 'min' / 'and' / 'or' / 'xor' when ``computation`` (a string
    or a Python function of two scalars) is one of those ops of its two parameters, else
    the traced computation."""
    if isinstance(computation, str):
        if computation not in _REDUCE:
            raise ValueError(f"xa.lax.all_reduce: computation {computation!r} is not one of "
                             f"{sorted(_REDUCE)} or a function")
        return computation, None
    types = [TensorType(code, (), None)] * 2
    sub, _, out = trace_sub(TracedComputation("main", Module("all_reduce")), computation,
                            types, "all_reduce", "lax.all_reduce")
    root, params = sub.root, sub.parameters
    if root.op in _REDUCE and len(root.operands) == 2 and \
            set(map(id, root.operands)) == set(map(id, params)):
        return root.op, None
    return None, sub


def all_reduce(operand, computation="add", replica_groups=None, channel_id=None):
    """The seed's AllReduce: ``operand`` (a tensor or a tuple of them) reduced over each
    group with ``computation`` (a name or a function of two scalars; add, mul, max, min,
    and, or, xor run in the transport, any other function is applied to the gathered
    operands in member order)."""
    fn = "xa.lax.all_reduce"

    def one(v):
        x = _operand(fn, v)
        name, sub = _named_reduction(computation, _code(x))
        if sub is None:
            return _all_reduce_leaf(fn, x, name, replica_groups, channel_id)
        gathered = _all_gather_leaf(fn, x, replica_groups, channel_id)
        acc = gathered[0]
        for k in range(1, gathered.shape[0]):
            acc = _vectorized(sub, [acc, gathered[k]])[0]
        return acc
    if isinstance(operand, (tuple, list)):
        return tuple(one(v) for v in operand)
    return one(operand)


# ------------------------------------------------------------------------ gathers, permutes
def _all_gather_leaf(fn, x, groups, channel_id):
    """(group size, *x.shape): the members' operands stacked in member order."""
    x = _operand(fn, x)
    gs, members = _group(fn, groups, channel_id)[1:3]
    return _collective("all_gather", x, fn=fn, groups=gs, channel_id=channel_id,
                       dimension=0, n=len(members), side_effect=True)


def _all_gather_impl(x, fn, groups, channel_id, dimension, n, side_effect):
    job, _, _, _, ghash, link = _group(fn, groups, channel_id)
    x = _dense(x)
    if link is None:
        return S.reshape(x, (1,) + tuple(x.shape))
    transport, members, index = link
    return _run(fn, job, lambda: transport.all_gather(x, members, index, ghash))


def _stacked(types, n, **attrs):
    t = types[0]
    return TensorType(t.code, (n,) + tuple(t.dims), None)


S.defop("all_gather", _stacked, _all_gather_impl, text=_collective_text)


def _axis(fn, axis, ndim, what="axis"):
    a = int(axis)
    if not -ndim <= a < ndim:
        raise ValueError(f"{fn}: {what} {axis} is out of range for rank {ndim}")
    return a % ndim


def _first_to(g, axis):
    """g with its first dim moved to ``axis`` (no op for axis 0: the common case's
    result is then a view of the transport's output)."""
    if axis == 0:
        return g
    return _transpose(g, tuple(range(1, axis + 1)) + (0,) + tuple(range(axis + 1, g.ndim)))


def all_gather(x, axis_name=None, *, axis_index_groups=None, axis=0, tiled=False):
    """jax.lax.all_gather: the replicas' operands stacked along a new ``axis``, or with
    ``tiled`` concatenated along ``axis`` (the seed's AllGather, all_gather_dim)."""
    fn = "xa.lax.all_gather"

    def one(v):
        g = _all_gather_leaf(fn, v, axis_index_groups, None)   # (n, *shape)
        n, shape = g.shape[0], tuple(g.shape[1:])
        if not tiled:
            return _first_to(g, _axis(fn, axis, len(shape) + 1))
        a = _axis(fn, axis, len(shape))
        return _reshape(_first_to(g, a), shape[:a] + (n * shape[a],) + shape[a + 1:])
    return _leaves(fn, x, one)


def _split(fn, x, dim, what, tiled, groups, channel_id):
    """The operand split along ``dim`` into the group's blocks, blocks first and dense:
    (operand, job, members, index, groups hash, dim, blocks of shape (n, *block)).
    Without ``tiled`` the dim must have the group's size."""
    v = _operand(fn, x)
    job, _, members, index, ghash = _group(fn, groups, channel_id)[:5]
    n = len(members)
    d = _axis(fn, dim, v.ndim, what)
    shape = tuple(v.shape)
    if not tiled and shape[d] != n:
        raise ValueError(f"{fn}: {what} {dim} has {shape[d]} elements; without tiled it "
                         f"must be the group size {n}")
    if shape[d] % n:
        raise ValueError(f"{fn}: {what} {dim} has {shape[d]} elements, not a multiple of "
                         f"the group size {n}")
    split = _reshape(v, shape[:d] + (n, shape[d] // n) + shape[d + 1:])
    if d:
        split = _transpose(split, (d,) + tuple(k for k in range(split.ndim) if k != d))
    return v, job, members, index, ghash, d, split


def all_to_all(x, axis_name=None, split_axis=0, concat_axis=0, *, axis_index_groups=None,
               tiled=False):
    """jax.lax.all_to_all: block k of ``split_axis`` goes to member k, and the blocks a
    replica receives are joined in member order: stacked along ``concat_axis`` in place of
    the split axis (which must have the group's size), or with ``tiled`` concatenated
    along ``concat_axis`` (the seed's AllToAll)."""
    fn = "xa.lax.all_to_all"
    return _leaves(fn, x, lambda v: _all_to_all_leaf(fn, v, split_axis, concat_axis,
                                                     axis_index_groups, tiled))


def _all_to_all_leaf(fn, x, split_axis, concat_axis, axis_index_groups, tiled):
    v, job, members, index, ghash, sa, blocks = _split(fn, x, split_axis, "split_axis", tiled,
                                                       axis_index_groups, None)
    n = len(members)
    got = _collective("all_to_all", blocks, fn=fn, groups=_group(fn, axis_index_groups)[1],
                      channel_id=None, dimension=0, side_effect=True)
    block = tuple(got.shape[1:])                              # x's shape, split axis / n
    ca = _axis(fn, concat_axis, len(block), "concat_axis")
    if not tiled:
        return _first_to(_reshape(got, (n,) + block[:sa] + block[sa + 1:]), ca)
    return _reshape(_first_to(got, ca), block[:ca] + (n * block[ca],) + block[ca + 1:])


def _reduce_scatter_leaf(fn, x, reduce, dim, tiled, groups, channel_id):
    v, job, members, index, ghash, d, blocks = _split(fn, x, dim, "scatter_dimension", tiled,
                                                      groups, channel_id)
    got = _collective("reduce_scatter", blocks, fn=fn, reduce=reduce,
                      groups=_group(fn, groups, channel_id)[1], channel_id=channel_id,
                      dimension=0, side_effect=True)
    block = tuple(got.shape)
    if not tiled:
        return _reshape(got, block[:d] + block[d + 1:])
    return got


def psum_scatter(x, axis_name=None, *, scatter_dimension=0, axis_index_groups=None,
                 tiled=False):
    """jax.lax.psum_scatter: the sum over the replicas, of which member k keeps block k of
    ``scatter_dimension`` (that dim removed, or with ``tiled`` divided by the group
    size)."""
    fn = "xa.lax.psum_scatter"
    return _leaves(fn, x, lambda v: _reduce_scatter_leaf(fn, v, "add", scatter_dimension,
                                                         tiled, axis_index_groups, None))


def reduce_scatter(operand, computation="add", scatter_dimension=0, replica_groups=None,
                   channel_id=None):
    """The seed's ReduceScatter: the reduction (add, mul, max, min, and, or, xor) of which
    member k keeps block k of ``scatter_dimension`` (divided by the group size)."""
    fn = "xa.lax.reduce_scatter"
    name = computation if isinstance(computation, str) else None
    if name not in _REDUCE:
        raise ValueError(f"{fn}: computation must be one of {sorted(_REDUCE)}, got "
                         f"{computation!r}")
    return _reduce_scatter_leaf(fn, operand, name, scatter_dimension, True, replica_groups,
                                channel_id)


def ppermute(x, axis_name=None, perm=()):
    """jax.lax.ppermute: for each (source, target) of ``perm`` the target receives the
    source's operand; a replica no pair targets receives zeros."""
    fn = "xa.lax.ppermute"
    job = _state.job()
    pairs = [(int(s), int(t)) for s, t in perm]
    for what, ids in (("source", [s for s, _ in pairs]), ("target", [t for _, t in pairs])):
        if len(set(ids)) != len(ids):
            raise ValueError(f"{fn}: perm {pairs} repeats a {what}")
        bad = [r for r in ids if not 0 <= r < job.size]
        if bad:
            raise ValueError(f"{fn}: perm {pairs} names replica {bad[0]}, not in "
                             f"[0, {job.size})")
    source = dict((t, s) for s, t in pairs).get(job.rank, -1)

    return _leaves(fn, x, lambda v: _collective("collective_permute", _operand(fn, v), fn=fn,
                                                pairs=tuple(pairs), source=source,
                                                side_effect=True))


def _blocks_impl(kind):
    """The impl of all_to_all / reduce_scatter over blocks (n, *block) (_split)."""
    def impl(blocks, fn, groups, channel_id, dimension, side_effect, reduce=None):
        job, _, _, _, ghash, link = _group(fn, groups, channel_id)
        blocks = _dense(blocks)
        if link is None:
            return blocks.copy() if kind == "all-to-all" else \
                S.reshape(blocks, tuple(blocks.shape[1:]))
        transport, members, index = link
        if kind == "all-to-all":
            return _run(fn, job, lambda: transport.all_to_all(blocks, members, index, ghash))
        return _run(fn, job, lambda: transport.reduce_scatter(blocks, members, index, ghash,
                                                              _REDUCE[reduce]))
    return impl


def _one_block(types, **attrs):
    t = types[0]
    return TensorType(t.code, tuple(t.dims[1:]), None)


def _permute_impl(x, fn, pairs, source, side_effect):
    job = _state.job()
    x = _dense(x)
    if job.routes is None:
        return x.copy() if source == 0 else S.broadcast_in_dim(
            asarray(np.zeros((), x.dtype)), tuple(x.shape), ())
    ghash = _state.groups_hash((pairs,), None)
    target = dict(pairs).get(job.rank, -1)
    transport, source, target = job.routes.permute(pairs, source, target)
    return _run(fn, job, lambda: transport.permute(x, source, target, ghash))


S.defop("all_to_all", _same_type, _blocks_impl("all-to-all"), text=_collective_text)
S.defop("reduce_scatter", _one_block, _blocks_impl("reduce-scatter"),
        text=_collective_text)
S.defop("collective_permute", _same_type, _permute_impl, text=_collective_text)


def collective_permute(operand, source_target_pairs, channel_id=None):
    """The seed's CollectivePermute: ppermute with ``source_target_pairs``."""
    return ppermute(operand, None, source_target_pairs)


# ------------------------------------------------------------------------ ids
def axis_index(axis_name=None):
    """jax.lax.axis_index: this replica's index (int32 scalar)."""
    return asarray(np.int32(_state.job().rank))


def replica_id():
    """The seed's ReplicaId: this replica's id (uint32 scalar)."""
    return asarray(np.uint32(_state.job().rank))


# ------------------------------------------------------------------------ send, recv, tokens
class Token:
    """XLA's token: orders side-effecting ops (send, recv, after_all). xarr runs a
    replica's sends and receives in program order (eagerly, and as side-effecting graph
    ops under xa.jit), so a token carries no data; it is passed through for the seed's
    signatures."""

    def __repr__(self):
        return "Token()"


def after_all(*tokens):
    """The seed's AfterAll: one token after every given one."""
    for t in tokens:
        if not isinstance(t, Token):
            raise TypeError(f"xa.lax.after_all: expected tokens, got {type(t).__name__}")
    return Token()


def _peer(fn, what, r):
    job = _state.job()
    r = int(r)
    if not 0 <= r < job.size or r == job.rank:
        raise ValueError(f"{fn}: {what} {r} must be another replica, in [0, {job.size}) and "
                         f"not {job.rank}")
    return job, r


def send(operand, channel_id, target, token=None):
    """The seed's Send on one replica: ``operand`` to replica ``target``, whose recv with the
    same ``channel_id`` takes it (channel, dtype and shape checked). Returns a token. A message
    larger than a mailbox (256 KiB up to 8 replicas) waits for its recv to run."""
    fn = "xa.lax.send"
    job, target = _peer(fn, "target", target)
    x = _operand(fn, operand)
    S.apply("send", [x], fn=fn, channel_id=int(channel_id), target=target, side_effect=True)
    return Token()


def recv(shape, dtype, channel_id, source, token=None):
    """The seed's Recv on one replica: a tensor of ``shape`` and ``dtype`` from replica
    ``source``'s send with the same ``channel_id``. Returns (tensor, token)."""
    fn = "xa.lax.recv"
    job, source = _peer(fn, "source", source)
    code = CODE_OF[np.dtype(dtype)] if not isinstance(dtype, int) else dtype
    attrs = dict(fn=fn, channel_id=int(channel_id), source=source,
                 shape=tuple(int(d) for d in shape), code=code, side_effect=True)
    comp = tracing()
    if comp is None:      # (no operand tells apply a function is being traced)
        return S.apply("recv", [], **attrs), Token()
    rtype = _recv_type([], **attrs)
    return Traced(comp.add(Instruction("recv", [], rtype, attrs))), Token()


def _channel_key(channel_id, shape):
    """What a send and its recv must agree on besides dtype and bytes: the channel and
    the shape."""
    return _state.groups_hash(tuple(shape), channel_id)


def _send_impl(x, fn, channel_id, target, side_effect):
    job = _state.job()
    key = _channel_key(channel_id, x.shape)
    transport, peer = job.routes.peer(target)
    _run(fn, job, lambda: transport.send(_dense(x), peer, key))
    return x


def _recv_impl(fn, channel_id, source, shape, code, side_effect):
    job = _state.job()
    like = _tensor.empty(shape, code)
    key = _channel_key(channel_id, shape)
    transport, peer = job.routes.peer(source)
    return _run(fn, job, lambda: transport.recv(like, peer, key))


def _recv_type(types, shape, code, **attrs):   # (the received tensor's type)
    return TensorType(code, shape, None)


def _channel_text(attrs):
    peer = f"target={attrs['target']}" if "target" in attrs else f"source={attrs['source']}"
    return [f"channel_id={attrs['channel_id']}", peer]


S.defop("send", _same_type, _send_impl, text=_channel_text)
S.defop("recv", _recv_type, _recv_impl, text=_channel_text)
