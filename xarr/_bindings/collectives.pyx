# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: embedsignature=True
# distutils: language = c++
"""Binding of the shared-memory transport (csrc/kernels/collectives/shm.h): ``Transport``
attaches this replica to its job's segment and runs the collectives on row-major tensors.
The rules (groups, shapes, op names) are xarr/distributed/'s; this module checks what the
transport assumes (dense row-major operands of the call's dtype), allocates the results and
releases the GIL. A failure raises TransportFailure with the transport's record (status,
peer, the two calls of a mismatch), which xarr/distributed formats.
"""

from libc.stdint cimport int32_t, int64_t

from xarr._capi cimport dtype_itemsize
from xarr._tensor cimport F_C_CONTIG, F_TILED, Tensor, alloc_tensor, copy_dense_of

cdef extern from "kernels/collectives/shm.h" namespace "xarr" nogil:
    int kShmMaxRanks
    cdef cppclass ShmCall:
        int32_t op, dtype, reduce, group_size
        int64_t nbytes, groups_hash
    cdef cppclass ShmFailure:
        int status, peer
        int ranks[2]
        ShmCall calls[2]
        char message[512]
    cdef cppclass ShmComm:
        pass
    ShmComm* shm_attach(const char* token, int rank, int nranks, int64_t slot_bytes,
                        int64_t heap_bytes, double timeout_s, double attach_timeout_s,
                        ShmFailure* fail)
    void shm_detach(ShmComm* c)
    int64_t shm_slot_bytes(const ShmComm* c)
    int64_t shm_heap_bytes(const ShmComm* c)
    int64_t shm_heap_used(const ShmComm* c)
    int shm_all_reduce(ShmComm* c, const int* members, int size, int index,
                       const ShmCall& call, const char* inp, char* out, int64_t count,
                       int dtype, int reduce, ShmFailure* fail)
    int shm_all_gather(ShmComm* c, const int* members, int size, int index,
                       const ShmCall& call, const char* inp, char* out, int64_t nbytes,
                       ShmFailure* fail)
    int shm_all_to_all(ShmComm* c, const int* members, int size, int index,
                       const ShmCall& call, const char* inp, char* out, int64_t block_bytes,
                       ShmFailure* fail)
    int shm_reduce_scatter(ShmComm* c, const int* members, int size, int index,
                           const ShmCall& call, const char* inp, char* out, int64_t count,
                           int dtype, int reduce, ShmFailure* fail)
    int shm_permute(ShmComm* c, const ShmCall& call, const char* inp, char* out,
                    int64_t nbytes, int source, ShmFailure* fail)
    int shm_barrier(ShmComm* c, const int* members, int size, int index, const ShmCall& call,
                    ShmFailure* fail)
    int shm_send(ShmComm* c, int dst, const ShmCall& call, const char* inp, int64_t nbytes,
                 ShmFailure* fail)
    int shm_recv(ShmComm* c, int src, const ShmCall& call, char* out, int64_t nbytes,
                 ShmFailure* fail)

cdef extern from "core/capi.h" nogil:
    bint set_shared_allocation "xarr::set_shared_allocation"(bint on)
    bint capi_in_shared_heap "xarr::in_shared_heap"(const void* p)

MAX_RANKS = kShmMaxRanks


def shared_allocation(bint on):
    """Turns allocation of new tensors in this replica's shared heap on or off (the
    heap of an attached Transport with heap_bytes > 0; without one nothing changes).
    Returns the previous setting."""
    return set_shared_allocation(on)


def in_shared_heap(Tensor t):
    """Whether t's memory lies in this replica's shared heap."""
    return capi_in_shared_heap(t._data) if t._data != NULL else False
STATUS = {1: "timeout", 2: "peer_gone", 3: "mismatch", 4: "failed", 5: "bad_argument",
          6: "system"}


class TransportFailure(Exception):
    """The transport's failure record: ``status`` (a STATUS name), ``peer`` (the replica it
    is about, or -1), ``ranks`` and ``calls`` (a mismatch: two replicas and their calls as
    (op, dtype, reduce, group_size, nbytes, groups_hash)), ``message``."""

    def __init__(self, status, peer, ranks, calls, message):
        super().__init__(message)
        self.status, self.peer, self.ranks, self.calls, self.message = (
            status, peer, ranks, calls, message)


def dense(Tensor t):
    """t when it is dense row-major, else a dense row-major copy (the transport's form)."""
    if (t._flags & F_C_CONTIG) and not (t._flags & F_TILED):
        return t
    return copy_dense_of(t, None)


cdef tuple _call_tuple(const ShmCall& c):
    return (c.op, c.dtype, c.reduce, c.group_size, c.nbytes, c.groups_hash)


cdef object _raise(ShmFailure& f):
    raise TransportFailure(STATUS.get(f.status, "failed"), f.peer, (f.ranks[0], f.ranks[1]),
                           (_call_tuple(f.calls[0]), _call_tuple(f.calls[1])),
                           f.message.decode("utf-8", "replace"))


cdef int _members(object members, int* out) except -1:
    cdef int k = 0
    if len(members) > kShmMaxRanks:
        raise ValueError(f"Transport: a group of {len(members)} replicas (at most "
                         f"{kShmMaxRanks})")
    for m in members:
        out[k] = m
        k += 1
    return k


cdef enum:
    OP_ALL_REDUCE = 1
    OP_ALL_GATHER = 2
    OP_ALL_TO_ALL = 3
    OP_REDUCE_SCATTER = 4
    OP_PERMUTE = 5
    OP_BARRIER = 6
    OP_SEND_RECV = 7

# The ShmCall op codes, by XLA name (for messages).
OP_CODES = {"all-reduce": OP_ALL_REDUCE, "all-gather": OP_ALL_GATHER,
            "all-to-all": OP_ALL_TO_ALL, "reduce-scatter": OP_REDUCE_SCATTER,
            "collective-permute": OP_PERMUTE, "barrier": OP_BARRIER,
            "send / recv": OP_SEND_RECV}


cdef void _fill_call(ShmCall* c, int op, Tensor x, int group_size, int reduce,
                     int64_t groups_hash):
    """The call every member must agree on: op, x's dtype and bytes, the reduction, the
    group's size and the hash of the replica groups (and channel)."""
    c.op = op
    c.dtype = x._dtype if x is not None else -1
    c.reduce = reduce
    c.group_size = group_size
    c.nbytes = x._size * dtype_itemsize(x._dtype) if x is not None else 0
    c.groups_hash = groups_hash


cdef Tensor _dense(Tensor t, str what):
    if not (t._flags & F_C_CONTIG):
        raise ValueError(f"Transport.{what}: the operand must be dense row-major")
    return t


cdef class Transport:
    """This replica's attachment to the job's segment "/xarr-<token>" (shm.h)."""

    cdef ShmComm* c
    cdef readonly int rank, nranks
    cdef readonly int64_t slot_bytes, heap_bytes

    def __cinit__(self, str token, int rank, int nranks, int64_t slot_bytes, double timeout,
                  double attach_timeout, int64_t heap_bytes=0):
        cdef ShmFailure f
        cdef bytes tok = token.encode()
        cdef const char* t = tok
        with nogil:
            self.c = shm_attach(t, rank, nranks, slot_bytes, heap_bytes, timeout,
                                attach_timeout, &f)
        if self.c == NULL:
            _raise(f)
        self.rank, self.nranks = rank, nranks
        self.slot_bytes = shm_slot_bytes(self.c)
        self.heap_bytes = shm_heap_bytes(self.c)

    def heap_used(self):
        """The bytes this replica's live tensors take in its shared heap."""
        return shm_heap_used(self._open())

    def close(self):
        if self.c != NULL:
            shm_detach(self.c)
            self.c = NULL

    def __dealloc__(self):
        self.close()

    cdef ShmComm* _open(self) except NULL:
        if self.c == NULL:
            raise RuntimeError("xarr.distributed: the transport is closed "
                               "(xa.distributed.finalize was called)")
        return self.c

    def all_reduce(self, Tensor x, members, int index, int64_t groups_hash, int reduce):
        """A new tensor: x reduced over the members with EwOp ``reduce``."""
        cdef ShmComm* c = self._open()
        cdef int mem[256]
        cdef int size = _members(members, mem)
        cdef ShmCall sc
        cdef ShmFailure f
        cdef int st
        _fill_call(&sc, OP_ALL_REDUCE, x, size, reduce, groups_hash)
        _dense(x, "all_reduce")
        cdef Tensor out = alloc_tensor(x._dtype, x._ndim, x._dims, None, False)
        with nogil:
            st = shm_all_reduce(c, mem, size, index, sc, x._data, out._data, x._size,
                                x._dtype, reduce, &f)
        if st:
            _raise(f)
        return out

    def all_gather(self, Tensor x, members, int index, int64_t groups_hash):
        """A new tensor (size, *x.shape): the members' x in member order."""
        cdef ShmComm* c = self._open()
        cdef int mem[256]
        cdef int size = _members(members, mem)
        cdef ShmCall sc
        cdef ShmFailure f
        cdef int st, d
        cdef int64_t dims[33]
        _fill_call(&sc, OP_ALL_GATHER, x, size, -1, groups_hash)
        _dense(x, "all_gather")
        dims[0] = size
        for d in range(x._ndim):
            dims[d + 1] = x._dims[d]
        cdef Tensor out = alloc_tensor(x._dtype, x._ndim + 1, dims, None, False)
        cdef int64_t nbytes = x._size * dtype_itemsize(x._dtype)
        with nogil:
            st = shm_all_gather(c, mem, size, index, sc, x._data, out._data, nbytes, &f)
        if st:
            _raise(f)
        return out

    def all_to_all(self, Tensor x, members, int index, int64_t groups_hash):
        """x of shape (size, ...) in row-major blocks: a new tensor whose block k is block
        ``index`` of member k's x."""
        cdef ShmComm* c = self._open()
        cdef int mem[256]
        cdef int size = _members(members, mem)
        cdef ShmCall sc
        cdef ShmFailure f
        cdef int st
        _fill_call(&sc, OP_ALL_TO_ALL, x, size, -1, groups_hash)
        _dense(x, "all_to_all")
        if x._ndim < 1 or x._dims[0] != size:
            raise ValueError(f"Transport.all_to_all: the operand must have {size} blocks")
        cdef Tensor out = alloc_tensor(x._dtype, x._ndim, x._dims, None, False)
        cdef int64_t block = (x._size // size) * dtype_itemsize(x._dtype) if size else 0
        with nogil:
            st = shm_all_to_all(c, mem, size, index, sc, x._data, out._data, block, &f)
        if st:
            _raise(f)
        return out

    def reduce_scatter(self, Tensor x, members, int index, int64_t groups_hash, int reduce):
        """x of shape (size, ...): a new tensor of x.shape[1:], block ``index`` reduced
        over the members."""
        cdef ShmComm* c = self._open()
        cdef int mem[256]
        cdef int size = _members(members, mem)
        cdef ShmCall sc
        cdef ShmFailure f
        cdef int st
        _fill_call(&sc, OP_REDUCE_SCATTER, x, size, reduce, groups_hash)
        _dense(x, "reduce_scatter")
        if x._ndim < 1 or x._dims[0] != size:
            raise ValueError(f"Transport.reduce_scatter: the operand must have {size} blocks")
        cdef Tensor out = alloc_tensor(x._dtype, x._ndim - 1, &x._dims[1], None, False)
        cdef int64_t count = x._size // size if size else 0
        with nogil:
            st = shm_reduce_scatter(c, mem, size, index, sc, x._data, out._data, count,
                                    x._dtype, reduce, &f)
        if st:
            _raise(f)
        return out

    def permute(self, Tensor x, int source, int target, int64_t groups_hash):
        """A new tensor: replica ``source``'s x (zeros when source < 0). ``target`` (where
        x goes, or -1) is implied by the other replicas' sources here: every replica of
        the segment takes part, and shm.h pairs them."""
        cdef ShmComm* c = self._open()
        cdef ShmCall sc
        cdef ShmFailure f
        cdef int st
        _fill_call(&sc, OP_PERMUTE, x, self.nranks, -1, groups_hash)
        _dense(x, "permute")
        cdef Tensor out = alloc_tensor(x._dtype, x._ndim, x._dims, None, source < 0)
        cdef int64_t nbytes = x._size * dtype_itemsize(x._dtype)
        with nogil:
            st = shm_permute(c, sc, x._data, out._data, nbytes, source, &f)
        if st:
            _raise(f)
        return out

    def send(self, Tensor x, int dst, int64_t channel):
        """Puts x in the mailbox to replica dst (its recv checks dtype, bytes, channel)."""
        cdef ShmComm* c = self._open()
        cdef ShmCall sc
        cdef ShmFailure f
        cdef int st
        _dense(x, "send")
        _fill_call(&sc, OP_SEND_RECV, x, 2, -1, channel)
        cdef int64_t nbytes = x._size * dtype_itemsize(x._dtype)
        with nogil:
            st = shm_send(c, dst, sc, x._data, nbytes, &f)
        if st:
            _raise(f)

    def recv(self, Tensor like, int src, int64_t channel):
        """A new tensor of ``like``'s shape and dtype from replica src's mailbox."""
        cdef ShmComm* c = self._open()
        cdef ShmCall sc
        cdef ShmFailure f
        cdef int st
        _fill_call(&sc, OP_SEND_RECV, like, 2, -1, channel)
        cdef Tensor out = alloc_tensor(like._dtype, like._ndim, like._dims, None, False)
        cdef int64_t nbytes = out._size * dtype_itemsize(out._dtype)
        with nogil:
            st = shm_recv(c, src, sc, out._data, nbytes, &f)
        if st:
            _raise(f)
        return out

    def barrier(self, members, int index, int64_t groups_hash):
        cdef ShmComm* c = self._open()
        cdef int mem[256]
        cdef int size = _members(members, mem)
        cdef ShmCall sc
        cdef ShmFailure f
        cdef int st
        _fill_call(&sc, OP_BARRIER, None, size, -1, groups_hash)
        with nogil:
            st = shm_barrier(c, mem, size, index, sc, &f)
        if st:
            _raise(f)


