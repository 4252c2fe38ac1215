// The sort family's driver (sort.h): key images, the radix sorts, rows over threads.
#include "kernels/sort/sort.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <type_traits>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/scratch.h"
#include "core/dtype.h"
#include "core/threading.h"

namespace xarr {

namespace {

const SortTable& sort_table() {
  static const KernelTables<SortTable> t(XARR_ISA_FILLS(SortTable, fill_sort));
  return t.active();
}

// ---- key images: each dtype's keys as unsigned integers U in the sort order.
//   ints: signed ones with the sign bit flipped, unsigned and pred as they are;
//   floats, `exact` (bijective, for unstable sorts of values alone): the IEEE total order
//     (negative: all bits flipped; positive: sign bit set) minus the count of negative
//     NaNs, wrapping, so negative NaNs land after positive ones, above +inf. Worked
//     example (f32): -inf 0xff800000 -> 0x007fffff - 0x7fffff = 0; +inf -> 0xff000001;
//     +NaN 0x7fc00000 -> 0xff400001; -NaN 0xffc00000 -> 0xffc00000.
//   floats, not exact (keys with an index: stable sorts, argsort): both zeros one image,
//     every NaN the largest one, so equal keys are equal images.
template <int kBytes> struct Uint;
template <> struct Uint<1> { using T = uint8_t; };
template <> struct Uint<2> { using T = uint16_t; };
template <> struct Uint<4> { using T = uint32_t; };
template <> struct Uint<8> { using T = uint64_t; };

enum KeyKind : int { kUnsignedKey = 0, kSignedKey = 1, kFloatKey = 2 };

struct KeyCodec {
  int bytes = 0;        // 1, 2, 4 or 8
  int kind = 0;         // KeyKind
  int mant = 0;         // float: mantissa bits
};

KeyCodec codec_of(int dtype) {
  switch (dtype) {
    case kPred: case kU8: return {1, kUnsignedKey, 0};
    case kS8: return {1, kSignedKey, 0};
    case kU16: return {2, kUnsignedKey, 0};
    case kS16: return {2, kSignedKey, 0};
    case kU32: return {4, kUnsignedKey, 0};
    case kS32: return {4, kSignedKey, 0};
    case kU64: return {8, kUnsignedKey, 0};
    case kS64: return {8, kSignedKey, 0};
    case kF16: return {2, kFloatKey, 10};
    case kBF16: return {2, kFloatKey, 7};
    case kF32: return {4, kFloatKey, 23};
    case kF64: return {8, kFloatKey, 52};
    default: return {};
  }
}

template <class U, int kKind> struct Codec {
  static constexpr U kSign = U(U(1) << (sizeof(U) * 8 - 1));
  U negative_nans;   // floats: 2^mant - 1
  U inf;             // floats: +inf's bits

  explicit Codec(int mant)
      : negative_nans(U((U(1) << mant) - 1)), inf(U(~kSign & ~negative_nans)) {}

  U image(U bits, bool exact) const {
    if constexpr (kKind == kUnsignedKey) return bits;
    else if constexpr (kKind == kSignedKey) return U(bits ^ kSign);
    else {
      if (!exact) {
        if (U(bits & ~kSign) > inf) return U(~U(0));
        if (bits == kSign) bits = 0;
      }
      const U total = (bits & kSign) ? U(~bits) : U(bits | kSign);
      return exact ? U(total - negative_nans) : total;
    }
  }
  U bits_of(U image) const {   // the inverse of image(., true)
    if constexpr (kKind == kUnsignedKey) return image;
    else if constexpr (kKind == kSignedKey) return U(image ^ kSign);
    else {
      const U total = U(image + negative_nans);
      return (total & kSign) ? U(total ^ kSign) : U(~total);
    }
  }
};

// A record: a key image alone, or with its position in the row.
template <class U> struct Keyed {
  U key;
  uint32_t at;
};
template <class U> inline U key_of(U r) { return r; }
template <class U> inline U key_of(const Keyed<U>& r) { return r.key; }

constexpr int64_t kInsertionMax = 48;            // rows this short: insertion sort
constexpr int64_t kMsdMin = int64_t{1} << 17;    // rows this long: MSD split first
constexpr int64_t kThreadMinElements = int64_t{1} << 15;

// Stable insertion sort by key.
template <class R> void insertion_sort(R* a, int64_t n) {
  for (int64_t i = 1; i < n; ++i) {
    const R r = a[i];
    int64_t j = i;
    while (j > 0 && key_of(a[j - 1]) > key_of(r)) {
      a[j] = a[j - 1];
      --j;
    }
    a[j] = r;
  }
}

// Stable LSD radix sort of a[0..n) on the low `bits` bits of the keys, b scratch: returns
// a or b, whichever holds the result. The bits go in passes of equal digits of at most 8
// bits (rows up to 2^14) or 11 (longer ones: fewer passes, histograms still in L1); one
// read counts every pass's digits, and a pass whose digit is equal in every key is
// skipped. Worked example: bits 20 of 40000 keys -> 2 passes of 10-bit digits.
// The passes of lsd_sort: `passes` digits of kWidth bits (0: `width`, known at run time;
// kPasses > 0: passes known at compile time, the counting loop unrolled).
template <class R, class U, int kWidth, int kPasses = 0>
R* lsd_passes(R* a, R* b, int64_t n, int run_passes, int run_width) {
  const int width = kWidth ? kWidth : run_width;
  const int passes = kPasses ? kPasses : run_passes;
  const int nk = 1 << width;
  const U mask = U(nk - 1);
  uint32_t counts[6 * 2048];   // passes * nk <= 8 * 256 or 6 * 2048
  std::fill(counts, counts + passes * nk, 0u);
  for (int64_t i = 0; i < n; ++i) {
    const U k = key_of(a[i]);
    for (int d = 0; d < passes; ++d) ++counts[d * nk + ((k >> (width * d)) & mask)];
  }
  uint32_t at[2048];
  for (int d = 0; d < passes; ++d) {
    const int shift = width * d;
    const uint32_t* c = counts + d * nk;
    if (c[(key_of(a[0]) >> shift) & mask] == n) continue;
    uint32_t sum = 0;
    for (int k = 0; k < nk; ++k) {
      at[k] = sum;
      sum += c[k];
    }
    for (int64_t i = 0; i < n; ++i) b[at[(key_of(a[i]) >> shift) & mask]++] = a[i];
    std::swap(a, b);
  }
  return a;
}

template <class R, class U> R* lsd_sort(R* a, R* b, int64_t n, int bits) {
  if (n <= kInsertionMax) {
    insertion_sort(a, n);
    return a;
  }
  if (bits <= 0) return a;
  if (n <= (int64_t{1} << 14)) {
    if (bits == 8 * static_cast<int>(sizeof(U)))
      return lsd_passes<R, U, 8, sizeof(U)>(a, b, n, sizeof(U), 8);
    return lsd_passes<R, U, 8>(a, b, n, (bits + 7) / 8, 8);
  }
  const int passes = (bits + 10) / 11;
  return lsd_passes<R, U, 0>(a, b, n, passes, (bits + passes - 1) / passes);
}

// n records of `size` bytes rounded up to whole 64-byte lines: the scratch halves start
// on a line, as the scatter's streaming stores need.
inline int64_t lined(int64_t n, size_t size) {
  const int64_t per_line = static_cast<int64_t>(64 / size);
  return (n + per_line - 1) / per_line * per_line;
}

// A full cache line of records to a 64-byte aligned place, around the caches where the
// CPU can (the scatter's destination is read again only by the bucket sorts, and a
// streaming store skips reading each line before writing it).
inline void store_line(void* to, const void* line) {
#if defined(__SSE2__)
  const __m128i* s = static_cast<const __m128i*>(line);
  __m128i* d = static_cast<__m128i*>(to);
  _mm_stream_si128(d, _mm_load_si128(s));
  _mm_stream_si128(d + 1, _mm_load_si128(s + 1));
  _mm_stream_si128(d + 2, _mm_load_si128(s + 2));
  _mm_stream_si128(d + 3, _mm_load_si128(s + 3));
#else
  std::memcpy(to, line, 64);
#endif
}

// The stable scatter of a[i0..i1) into b by bucket (key >> shift) & mask (nb buckets, to[k]
// the next position of bucket k; b 64-byte aligned): records gather in one cache line per
// bucket that mirrors the destination's line, written out when full with one streaming
// line store (not one store per record to nb places in memory). A bucket's first and last
// lines, shared with its neighbours' records, are copied record by record.
// `line` (nb * kLine records, 64-byte aligned) and `state` (2 nb) are the caller's: they
// are allocated before the threads start (an exception may not leave a parallel region).
template <class R, class U, int kLine>
void scatter_lines(const R* a, R* b, int64_t i0, int64_t i1, int shift, U mask, int nb,
                   int64_t* to, R* line, uint32_t* state) {
  static_assert(sizeof(R) * kLine == 64, "one line of records");
  uint32_t* const fill = state;                 // records in the line (from its start)
  uint32_t* const first = state + nb;           // where this thread's records start in it
  for (int k = 0; k < nb; ++k) {
    fill[k] = first[k] = static_cast<uint32_t>(to[k] % kLine);
    to[k] -= fill[k];                           // to[k]: the line's place in b
  }
  for (int64_t i = i0; i < i1; ++i) {
    const R r = a[i];
    const uint32_t k = static_cast<uint32_t>((key_of(r) >> shift) & mask);
    R* const l = line + size_t{k} * kLine;
    const uint32_t f = fill[k];
    l[f] = r;
    if (f + 1 == kLine) {
      if (first[k] == 0) {
        store_line(b + to[k], l);
      } else {
        std::memcpy(b + to[k] + first[k], l + first[k], sizeof(R) * (kLine - first[k]));
        first[k] = 0;
      }
      to[k] += kLine;
      fill[k] = 0;
    } else {
      fill[k] = f + 1;
    }
  }
  for (int k = 0; k < nb; ++k)
    if (fill[k] > first[k])
      std::memcpy(b + to[k] + first[k], line + int64_t{k} * kLine + first[k],
                  sizeof(R) * (fill[k] - first[k]));
#if defined(__SSE2__)
  _mm_sfence();   // the streamed lines are visible before the threads join
#endif
}

// Sorts a[0..n) (scratch b) on nt threads; done(lo, hi, src) is called once for every
// piece [lo, hi) of the result, which then lies in src[lo..hi) (src a or b). Stable.
// bucket(a, b, m, bits) sorts a[0..m) on the low `bits` bits of its keys (scratch b) and
// returns where the result lies: lsd_sort, or an ISA quicksort for values alone.
// `vary`: the bits in which the keys differ (OR ^ AND of all keys, which the caller's
// load pass finds). Long rows (MSD first): one stable
// scatter pass splits the row on its top `width` varying bits (width grows with n, so
// buckets are ~32K keys when keys spread evenly; skewed keys, as the exponents of floats,
// fill fewer buckets) through per-thread write-combining lines, and the buckets are sorted
// in cache, largest first, by whichever thread is free.
// Worked example: keys spanning bits 0..23 (vary = 0xffffff), n = 2^24, width 12: bucket
// = key >> 12, 4096 buckets of ~4096 keys, each then sorted on its low 12 bits.
template <class R, class U, class Bucket, class Done>
void radix_sort(R* a, R* b, int64_t n, int nt, U vary, const Bucket& bucket,
                const Done& done) {
  constexpr int kDigits = sizeof(U);
  if (n < kMsdMin || kDigits == 1) {
    R* r = bucket(a, b, n, 8 * kDigits);
    done(0, n, r);
    return;
  }
  if (n < nt * kThreadMinElements) nt = 1;
  if (vary == 0) {   // every key equal
    done(0, n, a);
    return;
  }
  int top = 8 * kDigits - 1;
  while (!((vary >> top) & 1)) --top;
  int width = 3;
  while (width < 12 && (n >> (width - 3)) > (int64_t{1} << 15)) ++width;
  const int shift = std::max(0, top + 1 - width);
  const int nb = 1 << (top + 1 - shift);
  const U mask = U(nb - 1);
  std::vector<int64_t> at(static_cast<size_t>(nt) * nb, 0);
  split_items(nt, nt, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      int64_t* c = &at[t * nb];
      for (int64_t i = n * t / nt, e = n * (t + 1) / nt; i < e; ++i)
        ++c[(key_of(a[i]) >> shift) & mask];
    }
  });
  std::vector<int64_t> start(static_cast<size_t>(nb) + 1);
  int64_t sum = 0;
  for (int k = 0; k < nb; ++k) {
    start[k] = sum;
    for (int t = 0; t < nt; ++t) {
      const int64_t c = at[t * nb + k];
      at[t * nb + k] = sum;
      sum += c;
    }
  }
  start[nb] = n;
  // the scatter: records gather in a cache line per bucket, written out when full
  constexpr int kLine = 64 / sizeof(R) > 0 ? static_cast<int>(64 / sizeof(R)) : 1;
  std::vector<Scratch<R>> lines;
  for (int t = 0; t < nt; ++t) lines.emplace_back(int64_t{nb} * kLine);
  std::vector<uint32_t> states(static_cast<size_t>(2 * nb) * nt);
  split_items(nt, nt, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      scatter_lines<R, U, kLine>(a, b, n * t / nt, n * (t + 1) / nt, shift, mask, nb,
                                 &at[t * nb], lines[t].data(), &states[2 * nb * t]);
    }
  });
  std::vector<int> order(static_cast<size_t>(nb));
  for (int k = 0; k < nb; ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    return start[x + 1] - start[x] > start[y + 1] - start[y];
  });
  std::atomic<int> next{0};
  split_items(nt, nt, [&](int64_t, int64_t) {
    for (int j; (j = next.fetch_add(1)) < nb;) {
      const int k = order[j];
      const int64_t lo = start[k], m = start[k + 1] - lo;
      if (m == 0) break;   // (largest first: the rest are empty too)
      R* r = shift ? bucket(b + lo, a + lo, m, shift) : b + lo;
      done(lo, lo + m, r - lo);
    }
  });
}

// ---- rows: load (images, optionally through perm), sort, store.

struct RowAddress {
  const char* keys;
  const int64_t* perm;
  char* values;
  int64_t* index;
};

// What a load pass learns of a row of float keys for restoring ties (RowSorter::
// restore_ties): the count of keys with the sign bit, and of zeros and NaNs per sign, and
// whether the zeros (the NaNs) mix bit patterns. The common key costs a compare.
template <class U> struct TieTally {
  static constexpr U kSign = U(U(1) << (sizeof(U) * 8 - 1));
  U inf = 0;
  int64_t negative = 0, zeros[2] = {0, 0}, nans[2] = {0, 0};
  U zero = 0, nan = 0;
  bool mixed_zeros = false, mixed_nans = false;

  void add(U bits) {
    negative += bits >> (sizeof(U) * 8 - 1);
    const U mag = U(bits & ~kSign);
    if (U(mag - 1) >= inf) rare(bits, mag > inf);   // a zero (mag - 1 wraps) or a NaN
  }
  void rare(U bits, bool is_nan) {
    const int s = (bits & kSign) ? 1 : 0;
    if (is_nan) {
      if (nans[0] + nans[1] && bits != nan) mixed_nans = true;
      nan = bits;
      ++nans[s];
    } else {
      if (zeros[0] + zeros[1] && bits != zero) mixed_zeros = true;
      zero = bits;
      ++zeros[s];
    }
  }
  void merge(const TieTally& o) {
    if (o.zeros[0] + o.zeros[1]) {
      if (zeros[0] + zeros[1] && o.zero != zero) mixed_zeros = true;
      zero = o.zero;
    }
    if (o.nans[0] + o.nans[1]) {
      if (nans[0] + nans[1] && o.nan != nan) mixed_nans = true;
      nan = o.nan;
    }
    mixed_zeros |= o.mixed_zeros;
    mixed_nans |= o.mixed_nans;
    negative += o.negative;
    for (int s = 0; s < 2; ++s) {
      zeros[s] += o.zeros[s];
      nans[s] += o.nans[s];
    }
  }
};
template <class U> struct NoTally {
  void add(U) {}
  void merge(const NoTally&) {}
};

template <class U, int kKind> struct RowSorter {
  const SortRowsProblem& p;
  Codec<U, kKind> codec;
  int nt;   // threads for one row

  const U& key_at(const RowAddress& r, int64_t i) const {
    const int64_t j = r.perm ? r.perm[i * (p.perm_step / 8)] : i;
    return *reinterpret_cast<const U*>(r.keys + j * p.key_step);
  }
  int64_t source_of(const RowAddress& r, int64_t i) const {
    return r.perm ? r.perm[i * (p.perm_step / 8)] : i;
  }

  // a[i] = make(key i's bits, i) for the row's keys, threads taking the chunks the radix
  // sort's scatter takes; returns the bits in which the records' keys differ, and adds
  // every key's bits to *tally (a TieTally, or NoTally).
  template <class R, class Make, class Tally>
  U fill(const RowAddress& r, R* a, const Make& make, Tally* tally) const {
    const int64_t n = p.n;
    const int parts = n < kThreadMinElements ? 1 : nt;
    std::vector<U> ors(static_cast<size_t>(parts), 0);
    std::vector<U> ands(static_cast<size_t>(parts), U(~U(0)));
    std::vector<Tally> tallies(static_cast<size_t>(parts), *tally);
    const bool dense = !r.perm && p.key_step == static_cast<int64_t>(sizeof(U));
    split_items(parts, parts, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        U o = 0, x = U(~U(0));
        Tally c = tallies[t];
        const int64_t i0 = n * t / parts, i1 = n * (t + 1) / parts;
        if (dense) {   // the common case, in a loop the compiler vectorizes
          const U* keys = reinterpret_cast<const U*>(r.keys);
          for (int64_t i = i0; i < i1; ++i) {
            const R rec = make(keys[i], i);
            c.add(keys[i]);
            a[i] = rec;
            o |= key_of(rec);
            x &= key_of(rec);
          }
        } else {
          for (int64_t i = i0; i < i1; ++i) {
            const U bits = key_at(r, i);
            const R rec = make(bits, i);
            c.add(bits);
            a[i] = rec;
            o |= key_of(rec);
            x &= key_of(rec);
          }
        }
        ors[t] = o;
        ands[t] = x;
        tallies[t] = c;
      }
    });
    U all_or = 0, all_and = U(~U(0));
    for (int t = 0; t < parts; ++t) {
      all_or |= ors[t];
      all_and &= ands[t];
      tally->merge(tallies[t]);
    }
    return U(all_or ^ all_and);
  }

  // Values alone: exact images, the ISA quicksort for 4 / 8 bytes (radix for 1 / 2), then
  // for a stable sort of floats the ties put back in their start order.
  void values_only(const RowAddress& r, U* a, U* b) const {
    const int64_t n = p.n;
    const bool ties = kKind == kFloatKey && p.stable;
    TieTally<U> tally;
    tally.inf = codec.inf;
    NoTally<U> none;
    auto image = [&](U bits, int64_t) { return codec.image(bits, true); };
    const U vary = ties ? fill(r, a, image, &tally) : fill(r, a, image, &none);
    auto store = [&](int64_t lo, int64_t hi, const U* src) {
      if (!p.descending && p.value_step == static_cast<int64_t>(sizeof(U))) {
        U* out = reinterpret_cast<U*>(r.values);   // (vectorized)
        for (int64_t i = lo; i < hi; ++i) out[i] = codec.bits_of(src[i]);
        return;
      }
      for (int64_t i = lo; i < hi; ++i) {
        const int64_t o = p.descending ? n - 1 - i : i;
        *reinterpret_cast<U*>(r.values + o * p.value_step) = codec.bits_of(src[i]);
      }
    };
    auto bucket = [](U* x, U* scratch, int64_t m, int bits) {
      if constexpr (sizeof(U) == 4) sort_table().u32(x, m);
      else if constexpr (sizeof(U) == 8) sort_table().u64(x, m);
      else return lsd_sort<U, U>(x, scratch, m, bits);
      return x;
    };
    radix_sort<U, U>(a, b, n, nt, vary, bucket, store);
    if (ties) restore_ties(r, tally);
  }

  // A float's only keys that are equal yet different bits are the two zeros and the NaNs:
  // the exact images sort them apart (-0.0 first; NaNs by their bits). A stable sort wants
  // each group in its start order instead: the load pass's tally (TieTally) says where the
  // groups landed and whether either mixes bits, and only then a second pass writes that
  // group's keys again in their start order.
  // Worked example (ascending): [0.0, -1, -0.0] sorts to [-1, -0.0, 0.0]; 1 key below the
  // zeros, 2 zeros of both signs: positions 1.. get 0.0, -0.0 -> [-1, 0.0, -0.0].
  void restore_ties(const RowAddress& r, const TieTally<U>& t) const {
    if (!t.mixed_zeros && !t.mixed_nans) return;
    const int64_t n = p.n;
    const U sign = Codec<U, kKind>::kSign;
    // keys before the zeros: negative ones ascending, positive ones descending
    const int64_t below = p.descending ? n - t.negative - t.zeros[0] - t.nans[0]
                                       : t.negative - t.zeros[1] - t.nans[1];
    const int64_t nans = t.nans[0] + t.nans[1];
    int64_t zero_at = p.descending ? nans + below : below;
    int64_t nan_at = p.descending ? 0 : n - nans;
    for (int64_t i = 0; i < n; ++i) {
      const U bits = key_at(r, i);
      const U mag = U(bits & ~sign);
      int64_t* at = nullptr;
      if (t.mixed_nans && mag > codec.inf) at = &nan_at;
      else if (t.mixed_zeros && mag == 0) at = &zero_at;
      if (at) *reinterpret_cast<U*>(r.values + (*at)++ * p.value_step) = bits;
    }
  }

  // Keys with their positions: stable.
  void keyed(const RowAddress& r, Keyed<U>* a, Keyed<U>* b) const {
    const int64_t n = p.n;
    const U flip = p.descending ? U(~U(0)) : U(0);
    NoTally<U> none;
    const U vary = fill(r, a, [&](U bits, int64_t i) {
      return Keyed<U>{U(codec.image(bits, false) ^ flip), static_cast<uint32_t>(i)};
    }, &none);
    auto bucket = [](Keyed<U>* x, Keyed<U>* scratch, int64_t m, int bits) {
      return lsd_sort<Keyed<U>, U>(x, scratch, m, bits);
    };
    radix_sort<Keyed<U>, U>(a, b, n, nt, vary, bucket,
                            [&](int64_t lo, int64_t hi, const Keyed<U>* src) {
      for (int64_t i = lo; i < hi; ++i) {
        const int64_t j = src[i].at;
        if (r.index) r.index[i * (p.index_step / 8)] = source_of(r, j);
        if (r.values)
          *reinterpret_cast<U*>(r.values + i * p.value_step) = key_at(r, j);
      }
    });
  }
};

// partition_rows for one key width: rows over threads, each row's images selected.
template <class U, int kKind>
int partition_typed(const SortRowsProblem& p, const KeyCodec& kc, const int64_t* kth, int nk) {
  const int64_t n = p.n;
  int64_t rows = 1;
  for (int d = 0; d < p.ndim; ++d) rows *= p.dims[d];
  if (rows == 0 || n == 0) return 0;
  const Codec<U, kKind> codec(kc.mant);
  const int threads = rows * n < kParallelMinElements ? 1 : get_num_threads();
  parallel_for_dynamic(threads, rows, 1, [&] {
    return Scratch<U>(2 * lined(n, sizeof(U)) + nk);
  }, [&](Scratch<U>& s, int64_t row) {
    const char* keys = p.keys;
    char* values = p.values;
    for (int d = p.ndim - 1; d >= 0; --d) {
      const int64_t i = row % p.dims[d];
      row /= p.dims[d];
      keys += i * p.key_outer[d];
      values += i * p.value_outer[d];
    }
    U* a = s.data();
    for (int64_t i = 0; i < n; ++i)
      a[i] = codec.image(*reinterpret_cast<const U*>(keys + i * p.key_step), true);
    if constexpr (sizeof(U) >= 4) {
      int64_t ks[256];
      std::copy(kth, kth + nk, ks);
      if constexpr (sizeof(U) == 4) sort_table().select_u32(a, n, ks, nk);
      else sort_table().select_u64(a, n, ks, nk);
    } else {
      U* r = lsd_sort<U, U>(a, a + lined(n, sizeof(U)), n, 8 * sizeof(U));
      if (r != a) std::copy(r, r + n, a);
    }
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<U*>(values + i * p.value_step) = codec.bits_of(a[i]);
  });
  return 0;
}

template <class U, int kKind> int sort_typed(const SortRowsProblem& p, const KeyCodec& kc) {
  const int64_t n = p.n;
  int64_t rows = 1;
  for (int d = 0; d < p.ndim; ++d) rows *= p.dims[d];
  if (rows == 0 || n == 0) return 0;
  const bool keyed = p.index != nullptr;
  if (n > int64_t{UINT32_MAX}) return kSortRowTooLong;   // (32-bit positions and counts)
  const int threads = rows * n < kParallelMinElements ? 1 : get_num_threads();
  const int row_threads = rows >= threads ? 1 : threads;
  const int outer_threads = row_threads == 1 ? threads : 1;
  RowSorter<U, kKind> sorter{p, Codec<U, kKind>(kc.mant), row_threads};
  auto address = [&](int64_t row) {
    RowAddress r{p.keys, p.perm, p.values, p.index};
    for (int d = p.ndim - 1; d >= 0; --d) {
      const int64_t i = row % p.dims[d];
      row /= p.dims[d];
      r.keys += i * p.key_outer[d];
      if (r.perm) r.perm = reinterpret_cast<const int64_t*>(
          reinterpret_cast<const char*>(r.perm) + i * p.perm_outer[d]);
      if (r.values) r.values += i * p.value_outer[d];
      if (r.index) r.index = reinterpret_cast<int64_t*>(
          reinterpret_cast<char*>(r.index) + i * p.index_outer[d]);
    }
    return r;
  };
  if (keyed) {
    using R = Keyed<U>;
    parallel_for_dynamic(outer_threads, rows, 1, [&] {
      return Scratch<R>(2 * lined(n, sizeof(R)));
    }, [&](Scratch<R>& s, int64_t row) {
      sorter.keyed(address(row), s.data(), s.data() + lined(n, sizeof(R)));
    });
  } else {
    parallel_for_dynamic(outer_threads, rows, 1, [&] {
      return Scratch<U>(2 * lined(n, sizeof(U)));
    }, [&](Scratch<U>& s, int64_t row) {
      sorter.values_only(address(row), s.data(), s.data() + lined(n, sizeof(U)));
    });
  }
  return 0;
}

template <class U>
int partition_kind(const SortRowsProblem& p, const KeyCodec& kc, const int64_t* kth, int nk) {
  switch (kc.kind) {
    case kUnsignedKey: return partition_typed<U, kUnsignedKey>(p, kc, kth, nk);
    case kSignedKey: return partition_typed<U, kSignedKey>(p, kc, kth, nk);
    default: return partition_typed<U, kFloatKey>(p, kc, kth, nk);
  }
}

template <class U> int sort_kind(const SortRowsProblem& p, const KeyCodec& kc) {
  switch (kc.kind) {
    case kUnsignedKey: return sort_typed<U, kUnsignedKey>(p, kc);
    case kSignedKey: return sort_typed<U, kSignedKey>(p, kc);
    default: return sort_typed<U, kFloatKey>(p, kc);
  }
}

}  // namespace

int partition_rows(const SortRowsProblem& p, const int64_t* kth, int nk) {
  if (nk > 256) return kSortBadArgument;   // (callers pass a few; a sort beyond that)
  if (p.n > int64_t{UINT32_MAX}) return kSortRowTooLong;
  for (int i = 0; i < nk; ++i)
    if (kth[i] < 0 || kth[i] >= p.n || (i && kth[i] <= kth[i - 1])) return kSortBadArgument;
  const KeyCodec kc = codec_of(p.dtype);
  switch (kc.bytes) {
    case 1: return partition_kind<uint8_t>(p, kc, kth, nk);
    case 2: return partition_kind<uint16_t>(p, kc, kth, nk);
    case 4: return partition_kind<uint32_t>(p, kc, kth, nk);
    case 8: return partition_kind<uint64_t>(p, kc, kth, nk);
    default: return kSortUnknownDtype;
  }
}

int sort_rows(const SortRowsProblem& p) {
  const KeyCodec kc = codec_of(p.dtype);
  switch (kc.bytes) {
    case 1: return sort_kind<uint8_t>(p, kc);
    case 2: return sort_kind<uint16_t>(p, kc);
    case 4: return sort_kind<uint32_t>(p, kc);
    case 8: return sort_kind<uint64_t>(p, kc);
    default: return kSortUnknownDtype;
  }
}

}  // namespace xarr
