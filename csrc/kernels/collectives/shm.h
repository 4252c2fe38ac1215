// The shared-memory transport of xarr's replicas (one machine): one POSIX segment per job,
// owned by the user (mode 0600), named from a job token another job cannot guess, and
// unlinked as soon as every replica has attached (so a crash leaves nothing in /dev/shm;
// the launcher sweeps a job that died before that).
//
// Protocol. Every collective is a number of rounds, the same on every replica (the shapes
// match; the first round checks that). In round s a replica writes its contribution into
// its slot of parity s & 1, publishes arrived = s + 1 (release), waits until every member of
// its group has arrived at s + 1 (acquire), then reads its peers' slots of that parity.
// Double buffering is enough: before a replica writes its slot of round s + 2 it waits
// until round s's group has published round s + 1, so they finished round s's reads
// (within one group that wait is already done; it matters when groups change).
// Waits spin, then yield; every few milliseconds they check the job's failure flag, each
// peer's liveness (its pid; a replica that detached), and the timeout (seconds; the
// binding reads XARR_COLLECTIVE_TIMEOUT). A failure is recorded in the segment, so every
// survivor raises the same clear error instead of waiting forever.
//
// Shared heap (zero-copy). With heap_bytes > 0 every replica also owns a heap in the
// segment, registered as the process's shared allocator (core/capi.h SharedHeap): while
// shared allocation is on, its new tensors live there. An all-gather, all-to-all,
// reduce-scatter, permute or large all-reduce whose whole input lies in its owner's heap
// is not copied into the slots: the first round publishes its offset (RankState::heap_in)
// and the peers read it in place; before returning, its owner waits until every member has
// consumed the last round (RankState::consumed; the all-reduce's second round per chunk),
// so the caller may overwrite the input at once. The rounds stay the same (they depend on
// the bytes alone), whatever each replica's input is.
//
// Worked example (all-reduce, add, f32, 2 replicas, 4 bytes each, one round):
//   replica 0 writes [1.0] into slot(0, 0), replica 1 writes [3.0] into slot(1, 0); both
//   publish arrived = 1, both wait, both compute slot(0, 0) + slot(1, 0) = [4.0] in
//   member order (so the bits are the same on every replica).
#pragma once

#include <cstdint>

namespace xarr {

constexpr int kShmMaxRanks = 256;

// Status codes of the collectives (ShmFailure.status).
enum ShmStatus : int {
  kShmOk = 0,
  kShmTimeout = 1,     // a peer did not arrive within the timeout
  kShmPeerGone = 2,    // a peer died, or detached, while this replica waited for it
  kShmMismatch = 3,    // peers called a different op, shape, dtype, group or channel
  kShmFailed = 4,      // another replica recorded a failure first (its message is kept)
  kShmBadArgument = 5,
  kShmSystem = 6,      // shm_open / ftruncate / mmap failed (errno in the message)
};

// What a collective is, as every member must agree: published in its first round.
struct ShmCall {
  int32_t op = 0;          // the binding's op code (all-reduce, all-gather, ...)
  int32_t dtype = 0;
  int32_t reduce = 0;      // the elementwise op of a reduction (EwOp), or -1
  int32_t group_size = 0;
  int64_t nbytes = 0;      // this replica's operand bytes
  int64_t groups_hash = 0; // the replica groups (all of them) and the channel id
};

struct ShmFailure {
  int status = kShmOk;
  int peer = -1;           // the replica the failure is about
  int ranks[2] = {-1, -1}; // a mismatch: the two replicas, and their calls
  ShmCall calls[2];
  char message[512] = {};
};

class ShmComm;

// Creates (rank 0) or opens the job's segment "/xarr-<token>" and attaches this replica.
// slot_bytes: the bytes a replica moves per round (rounded to 4 KiB); heap_bytes: each
// replica's shared heap (rounded to 4 KiB; 0: none). Replica 0's values are the job's
// (the others read them from the segment's header). timeout_s bounds each wait of the
// collectives, attach_timeout_s the wait for every replica to attach (their start-up).
// Returns nullptr and fills *fail when it cannot (the other replicas never came).
ShmComm* shm_attach(const char* token, int rank, int nranks, int64_t slot_bytes,
                    int64_t heap_bytes, double timeout_s, double attach_timeout_s,
                    ShmFailure* fail);
// Marks this replica detached and unmaps (peers waiting for it then fail with kShmPeerGone).
void shm_detach(ShmComm* c);
int64_t shm_slot_bytes(const ShmComm* c);
// This replica's heap: its bytes, and the bytes its live blocks take.
int64_t shm_heap_bytes(const ShmComm* c);
int64_t shm_heap_used(const ShmComm* c);

// A group: members[0..size) the replicas (global ranks) in group order, index this
// replica's position in it. Every call returns kShmOk or a ShmStatus with *fail filled.

// All-reduce of count elements of dtype with elementwise op `reduce` (EwOp of a binary
// op: add, mul, max, min, and, or, xor): out = in_0 op in_1 op ... in member order.
int shm_all_reduce(ShmComm* c, const int* members, int size, int index, const ShmCall& call,
                   const char* in, char* out, int64_t count, int dtype, int reduce,
                   ShmFailure* fail);
// All-gather: out (size * nbytes) = in of member 0, in of member 1, ...
int shm_all_gather(ShmComm* c, const int* members, int size, int index, const ShmCall& call,
                   const char* in, char* out, int64_t nbytes, ShmFailure* fail);
// All-to-all of `size` contiguous blocks of block_bytes: out block k = block `index` of
// member k's in.
int shm_all_to_all(ShmComm* c, const int* members, int size, int index, const ShmCall& call,
                   const char* in, char* out, int64_t block_bytes, ShmFailure* fail);
// Reduce-scatter: in holds `size` blocks of count elements; out (count elements) = block
// `index` reduced over the members in member order.
int shm_reduce_scatter(ShmComm* c, const int* members, int size, int index,
                       const ShmCall& call, const char* in, char* out, int64_t count,
                       int dtype, int reduce, ShmFailure* fail);
// Collective permute over all replicas: out = in of replica `source` (source < 0: out is
// left to the caller, zeros). Every replica takes part (members = all, in rank order).
int shm_permute(ShmComm* c, const ShmCall& call, const char* in, char* out, int64_t nbytes,
                int source, ShmFailure* fail);
// Point to point, outside the rounds: send puts nbytes in the mailbox to replica dst
// (blocking while the receiver has not taken the previous chunk: a message larger than a
// mailbox needs its recv to be running), recv takes nbytes from replica src's mailbox to
// this replica, and checks the call (channel, dtype, bytes) against the sender's.
int shm_send(ShmComm* c, int dst, const ShmCall& call, const char* in, int64_t nbytes,
             ShmFailure* fail);
int shm_recv(ShmComm* c, int src, const ShmCall& call, char* out, int64_t nbytes,
             ShmFailure* fail);
// A barrier over the group (one round, no data).
int shm_barrier(ShmComm* c, const int* members, int size, int index, const ShmCall& call,
                ShmFailure* fail);

}  // namespace xarr
