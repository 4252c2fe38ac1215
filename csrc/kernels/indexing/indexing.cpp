// Index take / put and mask kernels: contracts and worked examples in indexing.h.
#include "kernels/indexing/indexing.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "core/copy_bytes.h"
#include "core/threading.h"
#include "kernels/indexing/index_blocks.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace xarr {
namespace {

// ------------------------------------------------------------------ element copies
struct B16 {
  uint64_t lo, hi;
};

template <class T>
inline void copy_elem(const char* s, char* d) {
  T v;
  std::memcpy(&v, s, sizeof(T));
  std::memcpy(d, &v, sizeof(T));
}

// n elements of type T from s (byte stride ss) to d (byte stride ds).
template <class T>
void copy_row(const char* s, int64_t ss, char* d, int64_t ds, int64_t n) {
  for (int64_t i = 0; i < n; ++i) copy_elem<T>(s + i * ss, d + i * ds);
}

using RowFn = void (*)(const char*, int64_t, char*, int64_t, int64_t);

RowFn row_for(int64_t size) {
  switch (size) {
    case 1: return copy_row<uint8_t>;
    case 2: return copy_row<uint16_t>;
    case 4: return copy_row<uint32_t>;
    case 8: return copy_row<uint64_t>;
    case 16: return copy_row<B16>;
    default: return nullptr;
  }
}

// Walks an N-D index space (outer dims) keeping two byte offsets.
struct Odometer {
  int n = 0;
  const int64_t* dims = nullptr;
  const int64_t* sa = nullptr;
  const int64_t* sb = nullptr;
  int64_t idx[kIndexMaxDims];
  int64_t a = 0, b = 0;

  void start(int n_, const int64_t* dims_, const int64_t* sa_, const int64_t* sb_,
             int64_t linear) {
    n = n_;
    dims = dims_;
    sa = sa_;
    sb = sb_;
    a = b = 0;
    for (int k = n - 1; k >= 0; --k) {
      idx[k] = dims[k] ? linear % dims[k] : 0;
      linear = dims[k] ? linear / dims[k] : 0;
      a += idx[k] * sa[k];
      b += idx[k] * sb[k];
    }
  }

  void next() {
    for (int k = n - 1; k >= 0; --k) {
      a += sa[k];
      b += sb[k];
      if (++idx[k] < dims[k]) return;
      a -= sa[k] * dims[k];
      b -= sb[k] * dims[k];
      idx[k] = 0;
    }
  }
};

// A strided sub-block copied from one side (s strides) to the other (d strides). After
// coalescing, a block that is contiguous on both sides becomes one "element" of
// elem_bytes bytes (ndim 0).
struct Block {
  int ndim = 0;
  int64_t dims[kIndexMaxDims];
  int64_t ss[kIndexMaxDims];
  int64_t ds[kIndexMaxDims];
  int itemsize = 1;
  int64_t elem_bytes = 1;   // when ndim == 0
  RowFn row = nullptr;      // itemsize rows for ndim >= 1

  void init(int itemsize_, int n, const int64_t* dims_, const int64_t* s_, const int64_t* d_) {
    itemsize = itemsize_;
    ndim = 0;
    for (int k = 0; k < n; ++k) {
      if (dims_[k] == 1) continue;
      if (ndim > 0 && ss[ndim - 1] == s_[k] * dims_[k] && ds[ndim - 1] == d_[k] * dims_[k]) {
        dims[ndim - 1] *= dims_[k];
        ss[ndim - 1] = s_[k];
        ds[ndim - 1] = d_[k];
        continue;
      }
      dims[ndim] = dims_[k];
      ss[ndim] = s_[k];
      ds[ndim] = d_[k];
      ++ndim;
    }
    elem_bytes = itemsize;
    if (ndim == 1 && ss[0] == itemsize && ds[0] == itemsize) {
      elem_bytes = dims[0] * itemsize;
      ndim = 0;
    }
    row = row_for(itemsize);
  }

  int64_t size() const {
    int64_t n = 1;
    for (int k = 0; k < ndim; ++k) n *= dims[k];
    return n;
  }

  // Copies one block (ndim >= 1, or a raw element of elem_bytes).
  void copy(const char* s, char* d) const {
    if (ndim == 0) {
      std::memcpy(d, s, static_cast<size_t>(elem_bytes));
      return;
    }
    if (ndim == 1) {
      row(s, ss[0], d, ds[0], dims[0]);
      return;
    }
    const int last = ndim - 1;
    int64_t rows = 1;
    for (int k = 0; k < last; ++k) rows *= dims[k];
    Odometer od;
    od.start(last, dims, ss, ds, 0);
    for (int64_t r = 0; r < rows; ++r, od.next())
      row(s + od.a, ss[last], d + od.b, ds[last], dims[last]);
  }
};

inline bool wrap_index(int64_t& i, int64_t bound) {
  if (i < 0) i += bound;
  return static_cast<uint64_t>(i) < static_cast<uint64_t>(bound);
}

// ------------------------------------------------------------------ integer arrays
// Positions [p0, p1) of one outer index: tb/db are the tensor/dense origins for it.
// Returns false at the first out-of-bounds index (take only; a put was checked).
template <class T, bool kPut>
bool rows_one_index_elem(const IndexedCopy& c, const char* tb, char* db, int64_t p0,
                         int64_t p1) {
  const int64_t* ix = c.idx[0];
  const int64_t bound = c.bound[0], st = c.idx_stride[0], ps = c.pos_stride;
  constexpr int64_t kSize = static_cast<int64_t>(sizeof(T));
  if (!kPut && st == kSize && ps == kSize && reinterpret_cast<uintptr_t>(ix) % 8 == 0 &&
      reinterpret_cast<uintptr_t>(tb) % alignof(T) == 0 &&
      reinterpret_cast<uintptr_t>(db) % alignof(T) == 0) {   // the loop of random reads
    const T* src = reinterpret_cast<const T*>(tb);
    T* out = reinterpret_cast<T*>(db) + p0;
    const int64_t* at = ix + p0;
    return take_elements(src, bound, at, out, p1 - p0, [&](int64_t a, int64_t b) {
      for (int64_t k = a; k < b; ++k) {
        int64_t i = at[k];
        if (!wrap_index(i, bound)) return false;
        out[k] = src[i];
      }
      return true;
    });
  }
  for (int64_t p = p0; p < p1; ++p) {
    if (!kPut && p + 16 < p1) {
      int64_t q = ix[p + 16];
      if (q < 0) q += bound;
      if (static_cast<uint64_t>(q) < static_cast<uint64_t>(bound))
        __builtin_prefetch(tb + q * st);
    }
    int64_t i = ix[p];
    if (!wrap_index(i, bound)) return false;
    if (kPut)
      copy_elem<T>(db + p * ps, const_cast<char*>(tb) + i * st);
    else
      copy_elem<T>(tb + i * st, db + p * ps);
  }
  return true;
}

template <bool kPut>
bool rows_generic(const IndexedCopy& c, const Block& blk, RowFn elem, const char* tb,
                  char* db, int64_t p0, int64_t p1) {
  const int64_t ps = c.pos_stride;
  for (int64_t p = p0; p < p1; ++p) {
    int64_t off = 0;
    for (int j = 0; j < c.nidx; ++j) {
      int64_t i = c.idx[j][p];
      if (!wrap_index(i, c.bound[j])) return false;
      off += i * c.idx_stride[j];
    }
    const char* t = tb + off;
    char* d = db + p * ps;
    if (kPut) {
      if (elem)
        elem(d, 0, const_cast<char*>(t), 0, 1);
      else
        blk.copy(d, const_cast<char*>(t));
    } else {
      if (elem)
        elem(t, 0, d, 0, 1);
      else
        blk.copy(t, d);
    }
  }
  return true;
}

template <bool kPut>
bool run_rows(const IndexedCopy& c, const Block& blk, const char* tb, char* db, int64_t p0,
              int64_t p1) {
  if (blk.ndim == 0 && c.nidx == 1) {
    switch (blk.elem_bytes) {
      case 1: return rows_one_index_elem<uint8_t, kPut>(c, tb, db, p0, p1);
      case 2: return rows_one_index_elem<uint16_t, kPut>(c, tb, db, p0, p1);
      case 4: return rows_one_index_elem<uint32_t, kPut>(c, tb, db, p0, p1);
      case 8: return rows_one_index_elem<uint64_t, kPut>(c, tb, db, p0, p1);
      case 16: return rows_one_index_elem<B16, kPut>(c, tb, db, p0, p1);
      default: break;
    }
  }
  RowFn elem = blk.ndim == 0 ? row_for(blk.elem_bytes) : nullptr;
  return rows_generic<kPut>(c, blk, elem, tb, db, p0, p1);
}

bool valid(const IndexedCopy& c) {
  if (!row_for(c.itemsize) || c.nidx < 0 || c.nidx > kIndexMaxDims || c.nouter < 0 ||
      c.nouter > kIndexMaxDims || c.ninner < 0 || c.ninner > kIndexMaxDims || c.npos < 0)
    return false;
  for (int j = 0; j < c.nidx; ++j)
    if (c.bound[j] < 0 || (c.npos > 0 && c.idx[j] == nullptr)) return false;
  return true;
}

template <bool kPut>
int run_indexed(const IndexedCopy& c, const char* tensor, char* dense) {
  if (!valid(c)) return kBadArgument;
  int64_t nout = 1;
  for (int k = 0; k < c.nouter; ++k) nout *= c.outer_dims[k];
  for (int k = 0; k < c.ninner; ++k)
    if (c.inner_dims[k] == 0) return 0;
  const int64_t items = nout * c.npos;
  if (items == 0) return 0;
  Block blk;
  if (kPut)
    blk.init(c.itemsize, c.ninner, c.inner_dims, c.inner_dense, c.inner_tensor);
  else
    blk.init(c.itemsize, c.ninner, c.inner_dims, c.inner_tensor, c.inner_dense);
  const int64_t block_bytes = blk.size() * blk.elem_bytes;
  int nt = 1;
  if (!kPut && items * block_bytes >= (int64_t{1} << 17)) nt = get_num_threads();
  if (items < nt) nt = static_cast<int>(items);
  int bad = 0;
#pragma omp parallel num_threads(nt) if (nt > 1) reduction(| : bad)
  {
    const int t = omp_get_thread_num();
    const int n = omp_get_num_threads();
    const int64_t begin = items * t / n, end = items * (t + 1) / n;
    if (begin < end) {
      Odometer od;
      od.start(c.nouter, c.outer_dims, c.outer_tensor, c.outer_dense, begin / c.npos);
      int64_t p = begin % c.npos;
      int64_t item = begin;
      while (item < end) {
        const int64_t p1 = std::min(c.npos, p + (end - item));
        if (!run_rows<kPut>(c, blk, tensor + od.a, dense + od.b, p, p1)) {
          bad = 1;
          break;
        }
        item += p1 - p;
        p = 0;
        od.next();
      }
    }
  }
  return bad ? kIndexOutOfBounds : 0;
}

}  // namespace

bool first_bad_index(const IndexedCopy& c, int64_t* pos, int* which) {
  for (int64_t p = 0; p < c.npos; ++p)
    for (int j = 0; j < c.nidx; ++j) {
      int64_t i = c.idx[j][p];
      if (!wrap_index(i, c.bound[j])) {
        *pos = p;
        *which = j;
        return true;
      }
    }
  return false;
}

int index_take(const IndexedCopy& c, const char* tensor, char* dense) {
  return run_indexed<false>(c, tensor, dense);
}

int index_put(const IndexedCopy& c, char* tensor, const char* dense) {
  if (!valid(c)) return kBadArgument;
  // Check every index first (read-only, threaded for large index sets) so a failing
  // assignment writes nothing.
  int bad = 0;
  const int64_t work = c.npos * (c.nidx > 0 ? c.nidx : 1);
  const int nt = work >= kParallelMinElements ? get_num_threads() : 1;
  for (int j = 0; j < c.nidx; ++j) {
    const int64_t* ix = c.idx[j];
    const int64_t bound = c.bound[j];
#pragma omp parallel for num_threads(nt) if (nt > 1) reduction(| : bad) schedule(static)
    for (int64_t p = 0; p < c.npos; ++p) {
      int64_t i = ix[p];
      bad |= !wrap_index(i, bound);
    }
  }
  if (bad) return kIndexOutOfBounds;
  return run_indexed<true>(c, tensor, const_cast<char*>(dense));
}

// ------------------------------------------------------------------ take along rows
namespace {

constexpr int64_t kRowTakeBlock = 4096;   // positions per work item

template <class T> int take_rows_typed(const RowTake& t, int64_t* bad) {
  int64_t rows = 1;
  for (int d = 0; d < t.ndim; ++d) rows *= t.dims[d];
  const int64_t blocks = (t.n + kRowTakeBlock - 1) / kRowTakeBlock;
  const int64_t items = rows * blocks;
  const int nt = rows * t.n >= kParallelMinElements ? get_num_threads() : 1;
  int64_t first_bad = 0, first_at = INT64_MAX;   // the first bad index, in C order
  int failed = 0;
  // one element per position, everything contiguous and aligned (the outer offsets too)
  bool elements = t.src_step == static_cast<int64_t>(sizeof(T)) && t.idx_step == 8 &&
                  t.out_step == static_cast<int64_t>(sizeof(T));
  auto aligned = [](const void* a, int64_t step) {
    return reinterpret_cast<uintptr_t>(a) % alignof(T) == 0 && step % alignof(T) == 0;
  };
  elements = elements && aligned(t.src, 0) && aligned(t.out, 0) &&
             reinterpret_cast<uintptr_t>(t.idx) % 8 == 0;
  for (int d = 0; d < t.ndim; ++d)
    elements = elements && aligned(nullptr, t.src_outer[d]) &&
               aligned(nullptr, t.out_outer[d]) && t.idx_outer[d] % 8 == 0;
  parallel_for(nt, items, [&](int64_t item) {
    int64_t row = item / blocks;
    const int64_t i0 = (item % blocks) * kRowTakeBlock;
    const int64_t i1 = std::min(t.n, i0 + kRowTakeBlock);
    const char* src = t.src;
    const char* idx = reinterpret_cast<const char*>(t.idx);
    char* out = t.out;
    for (int d = t.ndim - 1; d >= 0; --d) {
      const int64_t k = row % t.dims[d];
      row /= t.dims[d];
      src += k * t.src_outer[d];
      idx += k * t.idx_outer[d];
      out += k * t.out_outer[d];
    }
    auto refuse = [&](int64_t i, int64_t given) {
      const int64_t at = (item / blocks) * t.n + i;
#pragma omp critical(xarr_take_rows_bad)
      if (at < first_at) {
        failed = 1;
        first_at = at;
        first_bad = given;
      }
    };
    if (elements) {   // the loop of random reads; negative indices wrap in out_of_range
      const T* s = reinterpret_cast<const T*>(src);
      const int64_t* ix = reinterpret_cast<const int64_t*>(idx) + i0;
      T* o = reinterpret_cast<T*>(out) + i0;
      take_elements(s, t.src_n, ix, o, i1 - i0, [&](int64_t a, int64_t b) {
        for (int64_t i = a; i < b; ++i) {
          int64_t j = ix[i];
          if (!wrap_index(j, t.src_n)) {
            refuse(i0 + i, ix[i]);
            return false;
          }
          o[i] = s[j];
        }
        return true;
      });
      return;
    }
    for (int64_t i = i0; i < i1; ++i) {
      int64_t j = *reinterpret_cast<const int64_t*>(idx + i * t.idx_step);
      const int64_t given = j;
      if (!wrap_index(j, t.src_n)) {
        refuse(i, given);
        return;
      }
      copy_elem<T>(src + j * t.src_step, out + i * t.out_step);
    }
  });
  if (failed) *bad = first_bad;
  return failed ? kIndexOutOfBounds : 0;
}

}  // namespace

int take_rows(const RowTake& t, int64_t* bad) {
  switch (t.itemsize) {
    case 1: return take_rows_typed<uint8_t>(t, bad);
    case 2: return take_rows_typed<uint16_t>(t, bad);
    case 4: return take_rows_typed<uint32_t>(t, bad);
    case 8: return take_rows_typed<uint64_t>(t, bad);
    case 16: return take_rows_typed<B16>(t, bad);
    default: return kBadArgument;
  }
}

// ------------------------------------------------------------------ masks
namespace {

int64_t count_true(const uint8_t* m, int64_t n) {
  int64_t total = 0;
  int64_t i = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  const __m128i one = _mm_set1_epi8(1);
  __m128i acc = _mm_setzero_si128();
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(m + i));
    // 1 where the byte is non-zero, 0 where it is zero
    const __m128i nz = _mm_andnot_si128(_mm_cmpeq_epi8(v, zero), one);
    acc = _mm_add_epi64(acc, _mm_sad_epu8(nz, zero));
  }
  alignas(16) int64_t parts[2];
  _mm_store_si128(reinterpret_cast<__m128i*>(parts), acc);
  total = parts[0] + parts[1];
#endif
  for (; i < n; ++i) total += m[i] != 0;
  return total;
}

int threads_for_mask(int64_t n) { return n >= kParallelMinElements ? get_num_threads() : 1; }

// Coalesced mask dims on the tensor side: the mask is C-contiguous, so dims k, k+1 merge
// when the tensor strides allow it.
struct MaskWalk {
  int n = 0;
  int64_t dims[kIndexMaxDims];
  int64_t ts[kIndexMaxDims];

  void init(int nmask, const int64_t* d, const int64_t* s) {
    n = 0;
    for (int k = 0; k < nmask; ++k) {
      if (d[k] == 1) continue;
      if (n > 0 && ts[n - 1] == s[k] * d[k]) {
        dims[n - 1] *= d[k];
        ts[n - 1] = s[k];
        continue;
      }
      dims[n] = d[k];
      ts[n] = s[k];
      ++n;
    }
    if (n == 0) {
      dims[0] = 1;
      ts[0] = 0;
      n = 1;
    }
  }

  // Calls row(mask_offset, tensor_offset, length) for the rows of the innermost dim that
  // cover mask elements [a, b).
  template <class F>
  void rows(int64_t a, int64_t b, F&& row) const {
    int64_t idx[kIndexMaxDims];
    int64_t lin = a, off = 0;
    for (int k = n - 1; k >= 0; --k) {
      idx[k] = lin % dims[k];
      lin /= dims[k];
      off += idx[k] * ts[k];
    }
    const int last = n - 1;
    int64_t i = a;
    while (i < b) {
      const int64_t len = std::min(dims[last] - idx[last], b - i);
      row(i, off, len);
      i += len;
      off += len * ts[last];
      idx[last] += len;
      if (idx[last] == dims[last] && i < b) {
        off -= dims[last] * ts[last];
        idx[last] = 0;
        for (int k = last - 1; k >= 0; --k) {
          off += ts[k];
          if (++idx[k] < dims[k]) break;
          off -= ts[k] * dims[k];
          idx[k] = 0;
        }
      }
    }
  }
};

// Last true mask element in [a, b), or a - 1.
int64_t last_true(const uint8_t* m, int64_t a, int64_t b) {
  int64_t i = b - 1;
  while (i >= a && m[i] == 0) --i;
  return i;
}

// The sparse walk of compress and masked assign: calls on_set(i, k) for every set mask byte
// m[i] of [0, len) in order, k counting positions from j (returned advanced), skipping
// all-false 8-byte mask words; prefetch(i) is called 512 elements ahead, because sparse
// accesses defeat the hardware prefetcher.
template <class OnSet, class Prefetch>
int64_t walk_set(const uint8_t* m, int64_t len, int64_t j, OnSet on_set, Prefetch prefetch) {
  int64_t i = 0;
  for (; i + 8 <= len; i += 8) {
    if (i + 512 < len) prefetch(i + 512);
    uint64_t w;
    std::memcpy(&w, m + i, 8);
    if (w == 0) continue;
    for (int64_t q = i; q < i + 8; ++q)
      if (m[q]) on_set(q, j++);
  }
  for (; i < len; ++i)
    if (m[i]) on_set(i, j++);
  return j;
}

// Compress one row, elements of type T: returns the next position.
// Branch-free form (dense chunks): every element is read and stored, the position only
// advances on true elements, so a false element's store is overwritten by the next true
// one - the caller stops the row at the chunk's last true element, so no store lands past
// the chunk's positions. Sparse form: skips all-false 8-byte mask words.
template <class T, bool kBranchFree>
int64_t compress_row(const uint8_t* m, const char* s, int64_t ss, char* d, int64_t ds,
                     int64_t len, int64_t j) {
  if (kBranchFree) {
    for (int64_t i = 0; i < len; ++i) {
      copy_elem<T>(s + i * ss, d + j * ds);
      j += m[i] != 0;
    }
    return j;
  }
  return walk_set(
      m, len, j, [&](int64_t i, int64_t k) { copy_elem<T>(s + i * ss, d + k * ds); },
      [&](int64_t i) { __builtin_prefetch(s + i * ss); });
}

// Bitwise select without a branch: on ? v : old.
template <class T>
inline T select_bits(bool on, T v, T old) {
  const T all = static_cast<T>(0) - static_cast<T>(on);
  return static_cast<T>(old ^ ((old ^ v) & all));
}

template <>
inline B16 select_bits<B16>(bool on, B16 v, B16 old) {
  return B16{select_bits<uint64_t>(on, v.lo, old.lo), select_bits<uint64_t>(on, v.hi, old.hi)};
}

template <class T, bool kBranchFree>
int64_t assign_row(const uint8_t* m, char* t, int64_t ts, const char* d, int64_t ds,
                   int64_t len, int64_t j) {
  if (kBranchFree) {
    for (int64_t i = 0; i < len; ++i) {
      T old, v;
      std::memcpy(&old, t + i * ts, sizeof(T));
      std::memcpy(&v, d + j * ds, sizeof(T));
      const bool on = m[i] != 0;
      const T r = select_bits<T>(on, v, old);
      std::memcpy(t + i * ts, &r, sizeof(T));
      j += on;
    }
    return j;
  }
  return walk_set(
      m, len, j, [&](int64_t i, int64_t k) { copy_elem<T>(d + k * ds, t + i * ts); },
      [&](int64_t i) { __builtin_prefetch(t + i * ts, 1); });
}

template <bool kAssign, class T>
void mask_chunks_typed(const MaskedCopy& c, const MaskWalk& w, char* tensor, char* dense,
                       const int64_t* counts, const int64_t* starts, int64_t nchunks,
                       int64_t n, int nt) {
  const uint8_t* m = c.mask;
  const int64_t ps = c.pos_stride;
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
  for (int64_t ch = 0; ch < nchunks; ++ch) {
    if (counts[ch] == 0) continue;
    const int64_t a = ch * kMaskChunk;
    const int64_t b = last_true(m, a, std::min(n, a + kMaskChunk)) + 1;
    const bool branch_free = counts[ch] * 16 >= (b - a);
    const bool all_true = counts[ch] == b - a;
    int64_t j = starts[ch];
    const int64_t ts = w.ts[w.n - 1];
    w.rows(a, b, [&](int64_t mi, int64_t toff, int64_t len) {
      if (all_true) {   // a run of true elements: plain (contiguous when possible) copies
        if (kAssign && ps == 0) {
          for (int64_t i = 0; i < len; ++i) copy_elem<T>(dense, tensor + toff + i * ts);
        } else if (ts == sizeof(T) && ps == sizeof(T)) {
          if (kAssign)
            copy_bytes(tensor + toff, dense + j * ps, len * sizeof(T));
          else
            copy_bytes(dense + j * ps, tensor + toff, len * sizeof(T));
        } else if (kAssign) {
          copy_row<T>(dense + j * ps, ps, tensor + toff, ts, len);
        } else {
          copy_row<T>(tensor + toff, ts, dense + j * ps, ps, len);
        }
        j += len;
        return;
      }
      if (kAssign) {
        j = branch_free ? assign_row<T, true>(m + mi, tensor + toff, w.ts[w.n - 1], dense, ps,
                                              len, j)
                        : assign_row<T, false>(m + mi, tensor + toff, w.ts[w.n - 1], dense,
                                               ps, len, j);
      } else {
        j = branch_free ? compress_row<T, true>(m + mi, tensor + toff, w.ts[w.n - 1], dense,
                                                ps, len, j)
                        : compress_row<T, false>(m + mi, tensor + toff, w.ts[w.n - 1], dense,
                                                 ps, len, j);
      }
    });
  }
}

template <bool kAssign>
void mask_chunks_block(const MaskedCopy& c, const MaskWalk& w, const Block& blk, char* tensor,
                       char* dense, const int64_t* counts, const int64_t* starts,
                       int64_t nchunks, int64_t n, int nt) {
  const uint8_t* m = c.mask;
  const int64_t ps = c.pos_stride;
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
  for (int64_t ch = 0; ch < nchunks; ++ch) {
    if (counts[ch] == 0) continue;
    const int64_t a = ch * kMaskChunk;
    const int64_t b = std::min(n, a + kMaskChunk);
    int64_t j = starts[ch];
    const int64_t ts = w.ts[w.n - 1];
    w.rows(a, b, [&](int64_t mi, int64_t toff, int64_t len) {
      for (int64_t i = 0; i < len; ++i) {
        if (!m[mi + i]) continue;
        if (kAssign)
          blk.copy(dense + j * ps, tensor + toff + i * ts);
        else
          blk.copy(tensor + toff + i * ts, dense + j * ps);
        ++j;
      }
    });
  }
}

bool valid(const MaskedCopy& c) {
  return row_for(c.itemsize) && c.nmask >= 0 && c.nmask <= kIndexMaxDims &&
         c.ninner >= 0 && c.ninner <= kIndexMaxDims;
}

template <bool kAssign>
int run_masked(const MaskedCopy& c, char* tensor, char* dense, const int64_t* counts) {
  if (!valid(c)) return kBadArgument;
  int64_t n = 1;
  for (int k = 0; k < c.nmask; ++k) n *= c.mask_dims[k];
  for (int k = 0; k < c.ninner; ++k)
    if (c.inner_dims[k] == 0) return 0;
  if (n == 0) return 0;
  const int64_t nchunks = mask_num_chunks(n);
  int64_t* starts = new int64_t[nchunks];
  int64_t total = 0;
  for (int64_t ch = 0; ch < nchunks; ++ch) {
    starts[ch] = total;
    total += counts[ch];
  }
  MaskWalk w;
  w.init(c.nmask, c.mask_dims, c.mask_tensor);
  Block blk;
  if (kAssign)
    blk.init(c.itemsize, c.ninner, c.inner_dims, c.inner_dense, c.inner_tensor);
  else
    blk.init(c.itemsize, c.ninner, c.inner_dims, c.inner_tensor, c.inner_dense);
  const int nt = threads_for_mask(n * (blk.ndim == 0 ? 1 : blk.size()));
  auto typed = [&](auto tag) {
    using T = decltype(tag);
    mask_chunks_typed<kAssign, T>(c, w, tensor, dense, counts, starts, nchunks, n, nt);
  };
  switch (blk.ndim == 0 ? blk.elem_bytes : 0) {
    case 1: typed(uint8_t{}); break;
    case 2: typed(uint16_t{}); break;
    case 4: typed(uint32_t{}); break;
    case 8: typed(uint64_t{}); break;
    case 16: typed(B16{}); break;
    default:
      mask_chunks_block<kAssign>(c, w, blk, tensor, dense, counts, starts, nchunks, n, nt);
  }
  delete[] starts;
  return 0;
}

}  // namespace

int64_t mask_count_chunks(const uint8_t* mask, int64_t n, int64_t* counts) {
  const int64_t nchunks = mask_num_chunks(n);
  const int nt = threads_for_mask(n);
  int64_t total = 0;
#pragma omp parallel for num_threads(nt) if (nt > 1) reduction(+ : total) schedule(static)
  for (int64_t ch = 0; ch < nchunks; ++ch) {
    const int64_t a = ch * kMaskChunk;
    const int64_t k = count_true(mask + a, std::min(n, a + kMaskChunk) - a);
    counts[ch] = k;
    total += k;
  }
  return total;
}

int mask_compress(const MaskedCopy& c, const char* tensor, char* dense, const int64_t* counts) {
  return run_masked<false>(c, const_cast<char*>(tensor), dense, counts);
}

int mask_assign(const MaskedCopy& c, char* tensor, const char* dense, const int64_t* counts) {
  return run_masked<true>(c, tensor, const_cast<char*>(dense), counts);
}

void mask_nonzero(const uint8_t* mask, int ndim, const int64_t* dims, const int64_t* counts,
                  int64_t* const* out, int64_t out_stride) {
  int64_t n = 1;
  for (int k = 0; k < ndim; ++k) n *= dims[k];
  if (n == 0 || ndim <= 0) return;
  const int64_t nchunks = mask_num_chunks(n);
  int64_t* starts = new int64_t[nchunks];
  int64_t total = 0;
  for (int64_t ch = 0; ch < nchunks; ++ch) {
    starts[ch] = total;
    total += counts[ch];
  }
  const int nt = threads_for_mask(n);
  const int last = ndim - 1;
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
  for (int64_t ch = 0; ch < nchunks; ++ch) {
    if (counts[ch] == 0) continue;
    const int64_t a = ch * kMaskChunk;
    int64_t j = starts[ch];
    if (ndim == 1) {
      const int64_t b = last_true(mask, a, std::min(n, a + kMaskChunk)) + 1;
      int64_t* o = out[0];
      for (int64_t i = a; i < b; ++i) {
        o[j * out_stride] = i;
        j += mask[i] != 0;
      }
      continue;
    }
    const int64_t b = std::min(n, a + kMaskChunk);
    int64_t idx[kIndexMaxDims];
    int64_t lin = a;
    for (int k = last; k >= 0; --k) {
      idx[k] = lin % dims[k];
      lin /= dims[k];
    }
    int64_t i = a;
    while (i < b) {
      const int64_t len = std::min(dims[last] - idx[last], b - i);
      for (int64_t q = 0; q < len; ++q) {
        if (!mask[i + q]) continue;
        for (int k = 0; k < last; ++k) out[k][j * out_stride] = idx[k];
        out[last][j * out_stride] = idx[last] + q;
        ++j;
      }
      i += len;
      idx[last] += len;
      if (idx[last] == dims[last]) {
        idx[last] = 0;
        for (int k = last - 1; k >= 0; --k) {
          if (++idx[k] < dims[k]) break;
          idx[k] = 0;
        }
      }
    }
  }
  delete[] starts;
}

bool repeat_index(const int64_t* counts, int64_t n, int64_t* out) {
  for (int64_t i = 0; i < n; ++i)
    if (counts[i] < 0) return false;
  int64_t j = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t r = 0; r < counts[i]; ++r) out[j++] = i;
  return true;
}

}  // namespace xarr
