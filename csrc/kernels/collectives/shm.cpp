// The shared-memory transport: contract and protocol in shm.h.
#include "kernels/collectives/shm.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "core/capi.h"
#include "core/copy_bytes.h"
#include "core/dtype.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace xarr {

namespace {

constexpr uint64_t kMagic = 0x78617272'73686d31ull;   // "xarrshm1"
constexpr int64_t kPage = 4096;
constexpr int64_t kSlotSlack = kShmMaxRanks * 16;   // a round's rounding: nblocks * unit
constexpr int64_t kSmallAllReduce = 32 << 10;        // bytes: one round a chunk

enum RankPhase : int32_t { kNotAttached = 0, kAttached = 1, kDetached = 2 };

struct alignas(64) RankState {
  std::atomic<uint64_t> arrived;   // rounds this replica has published
  std::atomic<int32_t> pid;
  std::atomic<int32_t> phase;      // RankPhase
  ShmCall call[2];                 // the call whose first round had this parity
  int64_t heap_in[2];              // that call's input in this replica's heap, or -1
  alignas(64) std::atomic<uint64_t> consumed;   // rounds whose peers' data it has read
};

struct Header {
  std::atomic<uint64_t> magic;     // set last by the creator
  int32_t nranks;
  int64_t slot_bytes;
  int64_t heap_bytes;
  std::atomic<int32_t> attached;
  std::atomic<int32_t> failed;     // 0, or the ShmStatus of the first failure
  std::atomic<int32_t> failure_ready;
  int32_t failure_peer;
  int32_t failure_ranks[2];        // a mismatch: the two replicas and their calls
  ShmCall failure_calls[2];
  char failure_message[512];
  RankState ranks[kShmMaxRanks];
};

// A mailbox: messages from one replica to another, box_bytes at a time. The sender waits
// until taken == sent (the buffer is free), writes a chunk (the first with the call) and
// advances sent; the receiver waits until sent > taken, copies and advances taken.
struct alignas(64) Mailbox {
  std::atomic<uint64_t> sent;
  alignas(64) std::atomic<uint64_t> taken;
  ShmCall call;
};

// Mailbox buffers: 256 KiB each up to 8 replicas, then smaller (64 MiB in all, 4 KiB at
// the least): a job of 256 replicas has 65536 of them.
int64_t mailbox_bytes(int nranks) {
  int64_t b = (int64_t{64} << 20) / (static_cast<int64_t>(nranks) * nranks);
  b = std::min<int64_t>(b, int64_t{256} << 10);
  return std::max<int64_t>(b / kPage * kPage, kPage);
}

int64_t mailbox_stride(int nranks) {
  return (static_cast<int64_t>(sizeof(Mailbox)) + 63) / 64 * 64 + mailbox_bytes(nranks);
}

int64_t data_offset() { return (static_cast<int64_t>(sizeof(Header)) + kPage - 1) / kPage * kPage; }

inline void cpu_relax() {
#if defined(__x86_64__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A replica's own heap in the segment: first fit over its free ranges, in 64-byte units.
// Only its owner allocates and frees (any of its threads: a mutex).
struct Heap {
  std::mutex mu;
  char* base = nullptr;
  int64_t bytes = 0;
  std::map<int64_t, int64_t> free_ranges;      // offset -> bytes, disjoint, not adjacent
  std::unordered_map<int64_t, int64_t> used;   // offset -> bytes of each live block
  int64_t used_bytes = 0;
  bool closed = false;                         // detached: no more blocks
  SharedHeap registered{};                     // what core/capi.h calls

  void* alloc(int64_t nbytes) {
    const int64_t n = (nbytes + 63) / 64 * 64;
    std::lock_guard<std::mutex> lock(mu);
    if (closed) return nullptr;
    for (auto it = free_ranges.begin(); it != free_ranges.end(); ++it) {
      if (it->second < n) continue;
      const int64_t off = it->first, rest = it->second - n;
      free_ranges.erase(it);
      if (rest > 0) free_ranges.emplace(off + n, rest);
      used.emplace(off, n);
      used_bytes += n;
      return base + off;
    }
    return nullptr;
  }

  void release(void* p) {
    std::lock_guard<std::mutex> lock(mu);
    int64_t off = static_cast<char*>(p) - base;
    auto u = used.find(off);
    if (u == used.end()) return;   // (not a block of this heap: nothing to do)
    int64_t n = u->second;
    used.erase(u);
    used_bytes -= n;
    auto next = free_ranges.lower_bound(off);
    if (next != free_ranges.end() && next->first == off + n) {   // merge with the next
      n += next->second;
      next = free_ranges.erase(next);
    }
    if (next != free_ranges.begin()) {                            // and with the previous
      auto prev = std::prev(next);
      if (prev->first + prev->second == off) {
        prev->second += n;
        return;
      }
    }
    free_ranges.emplace(off, n);
  }
};

void* heap_alloc(void* ctx, int64_t nbytes) { return static_cast<Heap*>(ctx)->alloc(nbytes); }
void heap_release(void* ctx, void* p) { static_cast<Heap*>(ctx)->release(p); }

// The heap registered by this process (never freed: a thread may still hold it).
Heap* g_registered_heap = nullptr;

// A child forked by a replica shares the heap's pages but has a copy of its free list:
// allocating there would overwrite the parent's blocks. The child neither allocates nor
// frees in it (its frees of inherited blocks do nothing), and never takes the heap's
// mutex, which another thread may have held at the fork.
void heap_after_fork_in_child() {
  set_shared_allocation(false);
  if (Heap* h = g_registered_heap) {
    h->registered.alloc = [](void*, int64_t) -> void* { return nullptr; };
    h->registered.release = [](void*, void*) {};
  }
}

}  // namespace

class ShmComm {
 public:
  Header* h = nullptr;
  char* data = nullptr;
  int64_t total = 0;
  int rank = 0, nranks = 0;
  int64_t slot = 0;
  double timeout = 60;
  uint64_t step = 0;     // rounds done by this replica
  int readers[2][kShmMaxRanks];   // the group of the last round of each parity
  int readers_n[2] = {0, 0};
  char* boxes = nullptr;          // the mailboxes, after the slots
  int64_t box_bytes = 0;          // each mailbox's buffer
  int64_t box_stride = 0;         // a mailbox's head and buffer
  char* heaps = nullptr;          // the replicas' heaps, after the mailboxes
  int64_t heap_bytes = 0;         // each replica's heap
  Heap* heap = nullptr;           // this replica's (nullptr: no heaps)

  char* slot_of(int r, uint64_t s) const;
  char* heap_of(int r) const;
  // The offset of [p, p + n) in this replica's heap, or -1 when it is not all there.
  int64_t heap_offset(const char* p, int64_t n) const;
  // A slot's bytes in the segment: its nominal size and kSlotSlack (block_rounds).
  int64_t slot_stride() const;

  // Records the job's first failure (every waiting survivor then reports it).
  void record(int status, int peer, const char* message, const ShmCall* calls = nullptr);

  // Copies the recorded failure into *fail (waiting briefly for its message).
  int report(ShmFailure* fail);

  // Waits until replica m has published round target - 1 (arrived >= target): spins,
  // then yields, checking the failure flag, m's liveness and the timeout.
  int wait_for(int m, uint64_t target, ShmFailure* fail);
  // The same for any counter `value` that replica m advances.
  int wait_value(int m, const std::atomic<uint64_t>& value, uint64_t target,
                 ShmFailure* fail);

  // The mailbox of messages from replica src to replica dst (send / recv).
  Mailbox* box(int src, int dst) const;

  // Before this replica writes its slot of round `step` = s: the replicas that read the
  // same slot in round s - 2 (that round's group) must have finished, which they have
  // once they published round s - 1 (arrived >= s). Within one group this holds already (the last
  // round waited for them); a replica whose groups change (or a group of one, which never
  // waits) would otherwise overwrite a slot a peer still reads.
  int begin(ShmFailure* fail);

  // Publishes round `step` (begin() came first; the contribution is in slot_of(rank,
  // step)) and waits for the group. first: the round opens a collective (its call is
  // checked against the peers').
  int round(const int* members, int size, const ShmCall& call, bool first, ShmFailure* fail);
};

int64_t ShmComm::slot_stride() const { return slot + kSlotSlack; }

char* ShmComm::slot_of(int r, uint64_t s) const {
  return data + (static_cast<int64_t>(r) * 2 + static_cast<int64_t>(s & 1)) * slot_stride();
}

char* ShmComm::heap_of(int r) const { return heaps + static_cast<int64_t>(r) * heap_bytes; }

int64_t ShmComm::heap_offset(const char* p, int64_t n) const {
  if (heap == nullptr || n <= 0) return -1;
  const char* lo = heap_of(rank);
  return p >= lo && p + n <= lo + heap_bytes ? p - lo : -1;
}

Mailbox* ShmComm::box(int src, int dst) const {
  return reinterpret_cast<Mailbox*>(
      boxes + (static_cast<int64_t>(src) * nranks + dst) * box_stride);
}

void ShmComm::record(int status, int peer, const char* message, const ShmCall* calls) {
  int32_t none = 0;
  if (h->failed.compare_exchange_strong(none, status, std::memory_order_acq_rel)) {
    h->failure_peer = peer;
    h->failure_ranks[0] = calls ? rank : -1;
    h->failure_ranks[1] = calls ? peer : -1;
    if (calls) {
      h->failure_calls[0] = calls[0];
      h->failure_calls[1] = calls[1];
    }
    std::snprintf(h->failure_message, sizeof h->failure_message, "%s", message);
    h->failure_ready.store(1, std::memory_order_release);
  }
}

int ShmComm::report(ShmFailure* fail) {
  const auto t0 = std::chrono::steady_clock::now();
  while (!h->failure_ready.load(std::memory_order_acquire) && seconds_since(t0) < 1.0)
    std::this_thread::yield();
  fail->status = h->failed.load(std::memory_order_acquire);
  fail->peer = h->failure_peer;
  fail->ranks[0] = h->failure_ranks[0];
  fail->ranks[1] = h->failure_ranks[1];
  fail->calls[0] = h->failure_calls[0];
  fail->calls[1] = h->failure_calls[1];
  std::snprintf(fail->message, sizeof fail->message, "%s", h->failure_message);
  return fail->status;
}

int ShmComm::wait_for(int m, uint64_t target, ShmFailure* fail) {
  return wait_value(m, h->ranks[m].arrived, target, fail);
}

int ShmComm::wait_value(int m, const std::atomic<uint64_t>& value, uint64_t target,
                        ShmFailure* fail) {
  RankState& peer = h->ranks[m];
  const auto t0 = std::chrono::steady_clock::now();
  int64_t spins = 0;
  while (value.load(std::memory_order_acquire) < target) {
    if (h->failed.load(std::memory_order_acquire)) return report(fail);
    if (++spins < 4096) {
      cpu_relax();
      continue;
    }
    std::this_thread::yield();
    if (spins % 256 != 0) continue;
    char msg[256];
    if (peer.phase.load(std::memory_order_acquire) == kDetached ||
        (kill(peer.pid.load(std::memory_order_relaxed), 0) != 0 && errno == ESRCH)) {
      if (value.load(std::memory_order_acquire) >= target) break;
      std::snprintf(msg, sizeof msg, "replica %d is gone (it exited or was killed) "
                    "while replica %d waited for it", m, rank);
      record(kShmPeerGone, m, msg);
      return report(fail);
    }
    if (seconds_since(t0) > timeout) {
      std::snprintf(msg, sizeof msg, "replica %d did not arrive within %g s "
                    "(XARR_COLLECTIVE_TIMEOUT); replica %d waited for it", m, timeout,
                    rank);
      record(kShmTimeout, m, msg);
      return report(fail);
    }
  }
  return kShmOk;
}

int ShmComm::begin(ShmFailure* fail) {
  const uint64_t s = step;
  if (s < 2) return kShmOk;
  const int p = static_cast<int>(s & 1);
  for (int k = 0; k < readers_n[p]; ++k)
    if (int st = wait_for(readers[p][k], s, fail)) return st;
  return kShmOk;
}

int ShmComm::round(const int* members, int size, const ShmCall& call, bool first,
                   ShmFailure* fail) {
  if (int st = begin(fail)) return st;   // (the call descriptor shares the slot's parity)
  const uint64_t s = step;
  RankState& me = h->ranks[rank];
  const int p = static_cast<int>(s & 1);
  readers_n[p] = size;
  std::copy(members, members + size, readers[p]);
  if (first) me.call[p] = call;
  me.arrived.store(s + 1, std::memory_order_release);
  ++step;
  for (int k = 0; k < size; ++k)
    if (members[k] != rank)
      if (int st = wait_for(members[k], s + 1, fail)) return st;
  if (first) {
    for (int k = 0; k < size; ++k) {
      const ShmCall& theirs = h->ranks[members[k]].call[s & 1];
      if (std::memcmp(&theirs, &call, sizeof call) != 0) {
        const ShmCall both[2] = {call, theirs};
        char msg[128];
        std::snprintf(msg, sizeof msg, "replicas %d and %d called different collectives",
                      rank, members[k]);
        record(kShmMismatch, members[k], msg, both);
        return report(fail);
      }
    }
  }
  return kShmOk;
}

namespace {

int system_failure(ShmFailure* fail, const char* what, const std::string& name) {
  fail->status = kShmSystem;
  std::snprintf(fail->message, sizeof fail->message, "%s of shared memory %s failed: %s",
                what, name.c_str(), std::strerror(errno));
  return kShmSystem;
}

// out[0, count) = a op b (elementwise op `reduce`, EwOp) over contiguous elements.
void combine(int reduce, int dtype, const char* a, const char* b, char* out, int64_t count) {
  const int64_t isz = dtype_itemsize(dtype);
  char* ptrs[3] = {const_cast<char*>(a), const_cast<char*>(b), out};
  const int64_t sizes[3] = {isz, isz, isz};
  ew_run_contiguous(reduce, dtype, 3, ptrs, sizes, count);
}

}  // namespace

namespace {

int64_t round_page(int64_t n) { return (n + kPage - 1) / kPage * kPage; }

// The segment's bytes: header, slots, mailboxes, heaps.
int64_t segment_bytes(int nranks, int64_t slot, int64_t heap) {
  return data_offset() + static_cast<int64_t>(nranks) * 2 * (slot + kSlotSlack) +
         round_page(static_cast<int64_t>(nranks) * nranks * mailbox_stride(nranks)) +
         static_cast<int64_t>(nranks) * heap;
}

// A replica other than 0: opens the segment replica 0 creates and reads the job's
// geometry from its header once replica 0 has published it (magic). Returns the fd, or -1
// with *fail filled.
int open_created(const std::string& name, int nranks, double attach_timeout_s,
                 std::chrono::steady_clock::time_point t0, int64_t* slot, int64_t* heap,
                 ShmFailure* fail) {
  for (;;) {
    int fd = shm_open(name.c_str(), O_RDWR, 0);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size >= data_offset()) {
      if (st.st_uid != geteuid() || (st.st_mode & 0777) != 0600) {
        close(fd);
        fail->status = kShmSystem;
        std::snprintf(fail->message, sizeof fail->message,
                      "shared memory %s is not this user's with mode 0600: refused",
                      name.c_str());
        return -1;
      }
      void* hp = mmap(nullptr, static_cast<size_t>(data_offset()), PROT_READ, MAP_SHARED,
                      fd, 0);
      if (hp != MAP_FAILED) {
        const Header* h = static_cast<const Header*>(hp);
        const bool ready = h->magic.load(std::memory_order_acquire) == kMagic;
        const int32_t their_n = h->nranks;
        *slot = h->slot_bytes;
        *heap = h->heap_bytes;
        munmap(hp, static_cast<size_t>(data_offset()));
        if (ready) {
          if (their_n != nranks) {
            close(fd);
            fail->status = kShmBadArgument;
            std::snprintf(fail->message, sizeof fail->message,
                          "replica 0 started a job of %d replicas, this one expects %d",
                          their_n, nranks);
            return -1;
          }
          return fd;
        }
      }
    }
    if (fd >= 0) close(fd);
    if (seconds_since(t0) > attach_timeout_s) {
      shm_unlink(name.c_str());   // (replica 0 may have died before initializing it)
      fail->status = kShmTimeout;
      fail->peer = 0;
      std::snprintf(fail->message, sizeof fail->message,
                    "replica 0 did not create the job's shared memory within %g s",
                    attach_timeout_s);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

ShmComm* shm_attach(const char* token, int rank, int nranks, int64_t slot_bytes,
                    int64_t heap_bytes, double timeout_s, double attach_timeout_s,
                    ShmFailure* fail) {
  if (nranks < 1 || nranks > kShmMaxRanks || rank < 0 || rank >= nranks || slot_bytes < 1 ||
      heap_bytes < 0) {
    fail->status = kShmBadArgument;
    std::snprintf(fail->message, sizeof fail->message, "bad replica %d of %d", rank, nranks);
    return nullptr;
  }
  const std::string name = std::string("/xarr-") + token;
  int64_t slot = round_page(slot_bytes), heap = round_page(heap_bytes);
  const auto t0 = std::chrono::steady_clock::now();
  int fd = -1;
  if (rank == 0) {
    fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) {
      system_failure(fail, "creating", name);
      return nullptr;
    }
    // (posix_fallocate reserves the pages: /dev/shm may be smaller than the segment, as
    // in a container, and a replica touching a page past it would die of SIGBUS)
    const int64_t total = segment_bytes(nranks, slot, heap);
    if (ftruncate(fd, total) != 0 || (errno = posix_fallocate(fd, 0, total)) != 0) {
      system_failure(fail, "sizing", name);
      close(fd);
      shm_unlink(name.c_str());
      return nullptr;
    }
  } else {   // (replica 0's slot and heap sizes are the job's)
    fd = open_created(name, nranks, attach_timeout_s, t0, &slot, &heap, fail);
    if (fd < 0) return nullptr;
  }
  const int64_t total = segment_bytes(nranks, slot, heap);
  void* base = mmap(nullptr, static_cast<size_t>(total), PROT_READ | PROT_WRITE, MAP_SHARED,
                    fd, 0);
  close(fd);
  if (base == MAP_FAILED) {
    system_failure(fail, "mapping", name);
    if (rank == 0) shm_unlink(name.c_str());
    return nullptr;
  }
  ShmComm* c = new ShmComm();
  c->h = static_cast<Header*>(base);
  c->data = static_cast<char*>(base) + data_offset();
  c->total = total;
  c->slot = slot;   // (before the regions after the slots: slot_stride() reads it)
  c->boxes = c->data + static_cast<int64_t>(nranks) * 2 * c->slot_stride();
  c->box_bytes = mailbox_bytes(nranks);
  c->box_stride = mailbox_stride(nranks);
  c->heaps = c->boxes + round_page(static_cast<int64_t>(nranks) * nranks * c->box_stride);
  c->heap_bytes = heap;
  c->rank = rank;
  c->nranks = nranks;
  c->timeout = timeout_s;
  Header* h = c->h;
  if (rank == 0) {   // (ftruncate zero-filled it: counters start at 0)
    h->nranks = nranks;
    h->slot_bytes = slot;
    h->heap_bytes = heap;
    h->magic.store(kMagic, std::memory_order_release);
  }   // (the others saw the magic in open_created)
  for (int k = 0; k < 2; ++k) h->ranks[rank].heap_in[k] = -1;
  if (heap > 0) {
    Heap* own = new Heap();
    own->base = c->heap_of(rank);
    own->bytes = heap;
    own->free_ranges.emplace(0, heap);
    own->registered = SharedHeap{heap_alloc, heap_release, own, own->base, own->base + heap};
    if (set_shared_heap(&own->registered)) {
      c->heap = own;
      g_registered_heap = own;
      static std::once_flag fork_handler;
      std::call_once(fork_handler,
                     [] { pthread_atfork(nullptr, nullptr, heap_after_fork_in_child); });
    } else {   // (another attachment of this process has the process's heap)
      delete own;
    }
  }
  h->ranks[rank].pid.store(static_cast<int32_t>(getpid()), std::memory_order_relaxed);
  h->ranks[rank].phase.store(kAttached, std::memory_order_release);
  // The last replica to attach unlinks the name: from then on the segment lives only as
  // long as a replica maps it, whatever happens to them.
  if (h->attached.fetch_add(1, std::memory_order_acq_rel) + 1 == nranks)
    shm_unlink(name.c_str());
  while (h->attached.load(std::memory_order_acquire) < nranks) {
    // A job that failed to start leaves no name behind, whichever replicas survive (under
    // mpiexec no launcher sweeps /dev/shm after it).
    if (h->failed.load(std::memory_order_acquire)) {
      c->report(fail);
      shm_unlink(name.c_str());
      shm_detach(c);
      return nullptr;
    }
    if (seconds_since(t0) > attach_timeout_s) {
      char msg[160];
      std::snprintf(msg, sizeof msg, "only %d of %d replicas attached within %g s",
                    h->attached.load(), nranks, attach_timeout_s);
      c->record(kShmTimeout, -1, msg);
      c->report(fail);
      shm_unlink(name.c_str());
      shm_detach(c);
      return nullptr;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return c;
}

void shm_detach(ShmComm* c) {
  if (!c) return;
  c->h->ranks[c->rank].phase.store(kDetached, std::memory_order_release);
  bool keep_mapping = false;
  if (c->heap != nullptr) {
    set_shared_allocation(false);
    std::lock_guard<std::mutex> lock(c->heap->mu);
    c->heap->closed = true;   // (a racing allocation now fails over to ordinary memory)
    // Tensors still living in the heap keep it mapped (and registered, so their frees
    // find it) until the process ends.
    keep_mapping = !c->heap->used.empty();
  }
  if (c->heap != nullptr && !keep_mapping) set_shared_heap(nullptr);   // (Heap kept)
  if (!keep_mapping) munmap(c->h, static_cast<size_t>(c->total));
  delete c;
}

int64_t shm_slot_bytes(const ShmComm* c) { return c->slot; }

int64_t shm_heap_bytes(const ShmComm* c) { return c->heap ? c->heap_bytes : 0; }

int64_t shm_heap_used(const ShmComm* c) {
  if (c->heap == nullptr) return 0;
  std::lock_guard<std::mutex> lock(c->heap->mu);
  return c->heap->used_bytes;
}

int shm_barrier(ShmComm* c, const int* members, int size, int index, const ShmCall& call,
                ShmFailure* fail) {
  (void)index;
  return c->round(members, size, call, true, fail);
}

namespace {

// dst[0, n) = at(0) op at(1) op ... at(size - 1), n elements each, in member order (one
// member: a copy).
template <class At>
void reduce_parts(int size, At at, int dtype, int reduce, int64_t n, char* dst) {
  if (size == 1) {
    copy_bytes(dst, at(0), static_cast<size_t>(n * dtype_itemsize(dtype)));
    return;
  }
  combine(reduce, dtype, at(0), at(1), dst, n);
  for (int k = 2; k < size; ++k) combine(reduce, dtype, dst, at(k), dst, n);
}

// dst[0, n) = the members' slots of round s from byte offset off, reduced in member order.
void reduce_slots(ShmComm* c, const int* members, int size, uint64_t s, int64_t off,
                  int dtype, int reduce, int64_t n, char* dst) {
  reduce_parts(size, [&](int k) -> const char* { return c->slot_of(members[k], s) + off; },
               dtype, reduce, n, dst);
}

}  // namespace

int shm_all_reduce(ShmComm* c, const int* members, int size, int index, const ShmCall& call,
                   const char* in, char* out, int64_t count, int dtype, int reduce,
                   ShmFailure* fail) {
  const int64_t isz = dtype_itemsize(dtype);
  const int64_t nbytes = count * isz;
  // The rounds depend on the bytes alone, never on the group's size: replicas in groups of
  // different sizes must stay in step. Small messages: one round a chunk, every member
  // reduces the whole chunk (fewest waits). Large: two rounds a chunk, each member reduces
  // its part into its next slot (reduce-scatter), then every member copies the parts.
  // A large input in this replica's heap is not copied into the slots: the members reduce
  // its chunks in place (shm.h, "Shared heap"); they have read a chunk once they publish
  // its second round, which its owner waits for anyway.
  const bool small = nbytes <= kSmallAllReduce;
  const int64_t per_round = std::max<int64_t>(1, c->slot / isz);
  const int64_t my_heap = small ? -1 : c->heap_offset(in, nbytes);
  int64_t heap_in[kShmMaxRanks];   // the members' inputs in their heaps, or -1
  RankState& me = c->h->ranks[c->rank];
  bool first = true;
  int64_t done = 0;
  do {
    const int64_t n = std::min(count - done, per_round);
    const int64_t off = done * isz;
    if (int st = c->begin(fail)) return st;
    const uint64_t s = c->step;
    if (my_heap < 0)
      copy_bytes(c->slot_of(c->rank, s), in + off, static_cast<size_t>(n * isz));
    if (first) me.heap_in[s & 1] = my_heap;   // (published by the round's arrival)
    if (int st = c->round(members, size, call, first, fail)) return st;
    if (first)
      for (int k = 0; k < size; ++k) heap_in[k] = c->h->ranks[members[k]].heap_in[s & 1];
    first = false;
    if (small) {
      reduce_slots(c, members, size, s, 0, dtype, reduce, n, out + off);
    } else {
      const int64_t p0 = n * index / size, p1 = n * (index + 1) / size;
      if (int st = c->begin(fail)) return st;
      char* part = c->slot_of(c->rank, s + 1);   // my next slot (begin: free)
      auto at = [&](int k) -> const char* {        // member k's chunk, from my part on
        if (k == index) return in + off + p0 * isz;
        if (heap_in[k] >= 0) return c->heap_of(members[k]) + heap_in[k] + off + p0 * isz;
        return c->slot_of(members[k], s) + p0 * isz;
      };
      if (p1 > p0) reduce_parts(size, at, dtype, reduce, p1 - p0, part);
      if (int st = c->round(members, size, call, false, fail)) return st;
      for (int k = 0; k < size; ++k) {
        const int64_t q0 = n * k / size, q1 = n * (k + 1) / size;
        copy_bytes(out + off + q0 * isz, c->slot_of(members[k], s + 1),
                    static_cast<size_t>((q1 - q0) * isz));
      }
    }
    done += n;
  } while (done < count);
  return kShmOk;
}

namespace {

// Rounds over [0, block_bytes) of the nblocks blocks of `in` (1: the whole operand; the
// group size: all-to-all's blocks): each round a sub-range of every block goes through
// this replica's slot (sub-block k of the slot is block k's), then consume(at, n, o)
// reads the group's data: at(k, b) points at bytes [o, o + n) of block b of member k's
// input (its slot, its heap when its input lives there, or `in` itself for this replica).
// The number of rounds is the operand's bytes over a slot (at least 1), whatever the
// group's size, so replicas in groups of different sizes stay in step; a round carries
// `per` bytes of each block (a multiple of unit: a round may pass the slot's nominal size
// by nblocks * unit, which the slot's slack holds), the last rounds may carry none.
// An input in this replica's heap is not copied (shm.h, "Shared heap"): its offset goes
// out with the first round, and this replica returns once every member consumed the last.
// With nblocks == size (all-to-all, reduce-scatter) block k goes to member k alone, so
// this replica's own block `index` never passes through its slot.
template <class Consume>
int block_rounds(ShmComm* c, const int* members, int size, int index, const ShmCall& call,
                 const char* in, int nblocks, int64_t block_bytes, int64_t unit,
                 ShmFailure* fail, Consume consume) {
  const int own_block = nblocks == size && size > 1 ? index : -1;
  const int64_t total = block_bytes * nblocks;
  const int64_t rounds = std::max<int64_t>(1, (total + c->slot - 1) / c->slot);
  const int64_t units = (block_bytes / unit + rounds - 1) / rounds;
  const int64_t per = units * unit;
  const int64_t my_heap = c->heap_offset(in, total);
  RankState& me = c->h->ranks[c->rank];
  int64_t heap_in[kShmMaxRanks];   // the members' inputs in their heaps, or -1
  int64_t done = 0;
  uint64_t last = 0;
  for (int64_t r = 0; r < rounds; ++r) {
    const int64_t n = std::max<int64_t>(0, std::min(block_bytes - done, per));
    if (int st = c->begin(fail)) return st;
    const uint64_t s = c->step;
    if (my_heap < 0) {
      char* mine = c->slot_of(c->rank, s);
      for (int k = 0; k < nblocks; ++k)
        if (k != own_block)
          copy_bytes(mine + k * n, in + k * block_bytes + done, static_cast<size_t>(n));
    }
    if (r == 0) me.heap_in[s & 1] = my_heap;   // (published by the round's arrival)
    if (int st = c->round(members, size, call, r == 0, fail)) return st;
    if (r == 0)
      for (int k = 0; k < size; ++k) heap_in[k] = c->h->ranks[members[k]].heap_in[s & 1];
    if (n > 0) {
      auto at = [&](int k, int b) -> const char* {
        if (k == index) return in + b * block_bytes + done;
        if (heap_in[k] >= 0) return c->heap_of(members[k]) + heap_in[k] + b * block_bytes + done;
        return c->slot_of(members[k], s) + b * n;
      };
      consume(at, n, done);
    }
    me.consumed.store(s + 1, std::memory_order_release);
    last = s;
    done += n;
  }
  if (my_heap >= 0)   // the caller may overwrite its input once every peer has read it
    for (int k = 0; k < size; ++k)
      if (members[k] != c->rank)
        if (int st = c->wait_value(members[k], c->h->ranks[members[k]].consumed, last + 1,
                                   fail))
          return st;
  return kShmOk;
}

}  // namespace

int shm_all_to_all(ShmComm* c, const int* members, int size, int index, const ShmCall& call,
                   const char* in, char* out, int64_t block_bytes, ShmFailure* fail) {
  return block_rounds(c, members, size, index, call, in, size, block_bytes, 1, fail,
                      [&](auto at, int64_t n, int64_t o) {
                        for (int k = 0; k < size; ++k)
                          copy_bytes(out + k * block_bytes + o, at(k, index),
                                      static_cast<size_t>(n));
                      });
}

int shm_reduce_scatter(ShmComm* c, const int* members, int size, int index,
                       const ShmCall& call, const char* in, char* out, int64_t count,
                       int dtype, int reduce, ShmFailure* fail) {
  const int64_t isz = dtype_itemsize(dtype);
  return block_rounds(c, members, size, index, call, in, size, count * isz, isz, fail,
                      [&](auto at, int64_t n, int64_t o) {
                        if (size == 1) {
                          copy_bytes(out + o, at(0, index), static_cast<size_t>(n));
                          return;
                        }
                        combine(reduce, dtype, at(0, index), at(1, index), out + o, n / isz);
                        for (int k = 2; k < size; ++k)
                          combine(reduce, dtype, out + o, at(k, index), out + o, n / isz);
                      });
}


int shm_all_gather(ShmComm* c, const int* members, int size, int index, const ShmCall& call,
                   const char* in, char* out, int64_t nbytes, ShmFailure* fail) {
  return block_rounds(c, members, size, index, call, in, 1, nbytes, 1, fail,
                      [&](auto at, int64_t n, int64_t o) {
                        for (int k = 0; k < size; ++k)
                          copy_bytes(out + k * nbytes + o, at(k, 0), static_cast<size_t>(n));
                      });
}

int shm_permute(ShmComm* c, const ShmCall& call, const char* in, char* out, int64_t nbytes,
                int source, ShmFailure* fail) {
  int members[kShmMaxRanks];
  for (int r = 0; r < c->nranks; ++r) members[r] = r;
  return block_rounds(c, members, c->nranks, c->rank, call, in, 1, nbytes, 1, fail,
                      [&](auto at, int64_t n, int64_t o) {
                        if (source >= 0)
                          copy_bytes(out + o, at(source, 0), static_cast<size_t>(n));
                      });
}

namespace {

char* box_data(Mailbox* b) {
  return reinterpret_cast<char*>(b) + (static_cast<int64_t>(sizeof(Mailbox)) + 63) / 64 * 64;
}

}  // namespace

int shm_send(ShmComm* c, int dst, const ShmCall& call, const char* in, int64_t nbytes,
             ShmFailure* fail) {
  if (dst < 0 || dst >= c->nranks || dst == c->rank) return kShmBadArgument;
  Mailbox* b = c->box(c->rank, dst);
  int64_t done = 0;
  do {
    const uint64_t n_sent = b->sent.load(std::memory_order_relaxed);
    if (int st = c->wait_value(dst, b->taken, n_sent, fail)) return st;   // buffer free
    const int64_t n = std::min(nbytes - done, c->box_bytes);
    if (done == 0) b->call = call;
    copy_bytes(box_data(b), in + done, static_cast<size_t>(n));
    b->sent.store(n_sent + 1, std::memory_order_release);
    done += n;
  } while (done < nbytes);
  return kShmOk;
}

int shm_recv(ShmComm* c, int src, const ShmCall& call, char* out, int64_t nbytes,
             ShmFailure* fail) {
  if (src < 0 || src >= c->nranks || src == c->rank) return kShmBadArgument;
  Mailbox* b = c->box(src, c->rank);
  int64_t done = 0;
  do {
    const uint64_t n_taken = b->taken.load(std::memory_order_relaxed);
    if (int st = c->wait_value(src, b->sent, n_taken + 1, fail)) return st;
    if (done == 0 && std::memcmp(&b->call, &call, sizeof call) != 0) {
      const ShmCall both[2] = {call, b->call};
      c->record(kShmMismatch, src, "a send and its recv differ", both);
      return c->report(fail);
    }
    const int64_t n = std::min(nbytes - done, c->box_bytes);
    copy_bytes(out + done, box_data(b), static_cast<size_t>(n));
    b->taken.store(n_taken + 1, std::memory_order_release);
    done += n;
  } while (done < nbytes);
  return kShmOk;
}

}  // namespace xarr
