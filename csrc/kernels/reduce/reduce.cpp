// The reduction driver (contract in reduce.h): dims planning, strategy, threads, and the
// per-ISA registry. Type- and ISA-free: the arithmetic is in the ReduceKernel primitives.
#include "kernels/reduce/reduce.h"


#include <emmintrin.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/dtype.h"
#include "core/threading.h"
#include "core/scratch.h"
#include "core/isa.h"

namespace xarr {

namespace {

// ------------------------------------------------------------------ registry
const KernelTables<ReduceTable>& reduce_tables() {
  static const KernelTables<ReduceTable> t(XARR_ISA_FILLS(ReduceTable, fill_reduce_table));
  return t;
}

const char* const kReduceNames[] = {
#define XARR_REDUCE_NAME(name) #name,
    XARR_REDUCE_OPS(XARR_REDUCE_NAME)
#undef XARR_REDUCE_NAME
};

// ------------------------------------------------------------------ planning
constexpr int64_t kUnit = int64_t{1} << 15;  // elements per block of a few-output reduction
// Column accumulators of one vertical strip: 8 KiB keeps the strip (and its cascade's
// newest levels) in L1/L2 while each input row is read in long contiguous runs.
constexpr int64_t kStripBytes = 8192;
constexpr int64_t kLanesBytes = 64;          // a horizontal partial

struct Dim {
  int64_t n, s, d;  // extent, src stride, dst stride (bytes)
};

// Outer dims of an output odometer: offsets of output o.
struct Outer {
  int nd = 0;
  Dim dims[32];
  int64_t count() const {
    int64_t c = 1;
    for (int i = 0; i < nd; ++i) c *= dims[i].n;
    return c;
  }
  void offsets(int64_t o, int64_t* so, int64_t* dofs) const {
    int64_t s = 0, d = 0;
    for (int i = nd - 1; i >= 0; --i) {
      const int64_t j = o % dims[i].n;
      o /= dims[i].n;
      s += j * dims[i].s;
      d += j * dims[i].d;
    }
    *so = s;
    *dofs = d;
  }
};

// A pairwise cascade of equal-size items (a binary counter), combined with
// comb(older, newer, cnt) -> older. The next item is written at slot(), then push()ed,
// or left there as the tail for fold().
struct Cascade {
  using Comb = void (*)(void*, const void*, int64_t);
  Comb comb;
  int64_t cnt;
  size_t bytes;
  std::vector<char> buf;
  int lev[70];
  int top = 0;
  Cascade(Comb c, int64_t n, size_t b, int levels)
      : comb(c), cnt(n), bytes(b), buf(b * static_cast<size_t>(levels + 1)) {}
  char* at(int i) { return buf.data() + static_cast<size_t>(i) * bytes; }
  char* slot() { return at(top); }
  void push() {
    lev[top++] = 0;
    while (top >= 2 && lev[top - 1] == lev[top - 2]) {
      comb(at(top - 2), at(top - 1), cnt);
      ++lev[top - 2];
      --top;
    }
  }
  char* fold(bool tail) {
    int r;
    if (tail) {
      r = top;
    } else {
      if (top == 0) return nullptr;
      r = --top;
    }
    for (int i = top - 1; i >= 0; --i) {
      comb(at(i), at(r), cnt);
      r = i;
    }
    top = 0;
    return at(r);
  }
};

// The reduce family's threshold counts 4-byte elements (it was measured on f32): a bool
// reduction, 1 byte an element, stays on one thread up to 4x as many elements.
int threads_for(int64_t total, int acc_size) {
  const int64_t pm = parallel_min(kParReduce);   // (saturating: tools set it to 2**62)
  const int64_t limit = pm > INT64_MAX / 4 ? INT64_MAX : pm * 4 / acc_size;
  return total >= limit ? get_num_threads() : 1;
}

// Largest base * 2^c <= limit (at least base).
int64_t pow2_multiple(int64_t base, int64_t limit) {
  int64_t b = base;
  while (b * 2 <= limit) b *= 2;
  return b;
}

// ------------------------------------------------------------------ horizontal
// One output: rows (outer reduced dims) of n0 elements at stride s0.
void h_output(const ReduceKernel& k, const char* x, const RowSpan& rows, int64_t n0,
              int64_t s0, char* dst, Cascade& c) {
  for (int64_t r = 0; r < rows.end; ++r) {
    k.row(x + row_offset(rows, r), n0, s0, c.slot());
    c.push();
  }
  k.finish(c.fold(false), dst);
}

void run_horizontal(const ReduceKernel& k, const char* src, char* dst, const Outer& out,
                    const RowSpan& rows, int64_t n0, int64_t s0) {
  const int64_t nout = out.count();
  const int64_t nrows = rows.end;
  const int64_t per = nrows * n0;
  const int nt = threads_for(nout * per, k.acc_size);
  const int levels = cascade_levels(nrows);
  if (nout >= 16 || per < 2 * kUnit) {
    // Chunks of up to 16 outputs, but at least 8 chunks per thread: [16, 1M] must not
    // become one chunk on one thread.
    const int64_t chunk = std::max<int64_t>(1, std::min<int64_t>(16, nout / (8 * nt)));
    parallel_for_dynamic(
        nt, nout, chunk, [&] { return Cascade(k.combine_h, k.lanes, kLanesBytes, levels); },
        [&](Cascade& c, int64_t o) {
          int64_t so, dof;
          out.offsets(o, &so, &dof);
          h_output(k, src + so, rows, n0, s0, dst + dof, c);
        });
    return;
  }
  // Few outputs with a long reduction: fixed blocks (independent of the thread count) whose
  // partials combine in the same tree the serial cascade builds.
  for (int64_t o = 0; o < nout; ++o) {
    int64_t so, dof;
    out.offsets(o, &so, &dof);
    const char* x = src + so;
    Cascade outer(k.combine_h, k.lanes, kLanesBytes, levels);
    if (n0 > kUnit) {
      const int64_t C = pow2_multiple(k.leaf, kUnit);
      const int64_t cpr = (n0 + C - 1) / C;
      const int64_t units = nrows * cpr;
      std::vector<char> part(scratch_bytes(units, kLanesBytes));
      // Units (>= kUnit elements each) go out one at a time.
      parallel_for_dynamic(nt, units, 1, [] { return 0; }, [&](int&, int64_t u) {
        const int64_t r = u / cpr, q = u % cpr;
        k.row(x + row_offset(rows, r) + q * C * s0, std::min(C, n0 - q * C), s0,
              part.data() + u * kLanesBytes);
      });
      Cascade inner(k.combine_h, k.lanes, kLanesBytes, cascade_levels(cpr));
      const bool tail = n0 % C != 0;
      for (int64_t r = 0; r < nrows; ++r) {
        for (int64_t q = 0; q < cpr; ++q) {
          std::memcpy(inner.slot(), part.data() + (r * cpr + q) * kLanesBytes, kLanesBytes);
          if (!(tail && q == cpr - 1)) inner.push();
        }
        std::memcpy(outer.slot(), inner.fold(tail), kLanesBytes);
        outer.push();
      }
      k.finish(outer.fold(false), dst + dof);
    } else {
      const int64_t G = pow2_multiple(1, std::max<int64_t>(1, kUnit / std::max<int64_t>(n0, 1)));
      const int64_t groups = (nrows + G - 1) / G;
      std::vector<char> part(scratch_bytes(groups, kLanesBytes));
      const int glevels = cascade_levels(G);
      parallel_for_dynamic(
          nt, groups, 1, [&] { return Cascade(k.combine_h, k.lanes, kLanesBytes, glevels); },
          [&](Cascade& c, int64_t g) {
            const int64_t hi = std::min(nrows, (g + 1) * G);
            for (int64_t r = g * G; r < hi; ++r) {
              k.row(x + row_offset(rows, r), n0, s0, c.slot());
              c.push();
            }
            std::memcpy(part.data() + g * kLanesBytes, c.fold(false), kLanesBytes);
          });
      const bool tail = nrows % G != 0;
      for (int64_t g = 0; g < groups; ++g) {
        std::memcpy(outer.slot(), part.data() + g * kLanesBytes, kLanesBytes);
        if (!(tail && g == groups - 1)) outer.push();
      }
      k.finish(outer.fold(tail), dst + dof);
    }
  }
}

// ------------------------------------------------------------------ vertical
// Columns per vertical strip: at most kStripBytes of accumulators, narrower when there
// are fewer strips than threads. (Columns are independent: the width never changes bits.)
int64_t strip_width(int64_t n, int acc_size, int64_t nout, int nt) {
  int64_t W = std::min(n, std::max<int64_t>(1, kStripBytes / acc_size));
  const int64_t want = (nt + nout - 1) / nout;
  if (want > 1) W = std::min(W, std::max<int64_t>(16, ((n + want - 1) / want + 15) / 16 * 16));
  return std::max<int64_t>(1, std::min(W, n));
}

void run_vertical(const ReduceKernel& k, const char* src, char* dst, const Outer& out,
                  Dim col, const RowSpan& rows) {
  const int64_t nrows = rows.end;
  const int64_t nout = out.count();
  const int nt = threads_for(nout * col.n * nrows, k.acc_size);
  const int64_t W = strip_width(col.n, k.acc_size, nout, nt);
  const int64_t strips = (col.n + W - 1) / W;
  const int64_t items = nout * strips;
  const size_t abytes = static_cast<size_t>(k.acc_size);
  const int64_t leaves = (nrows + k.row_leaf - 1) / k.row_leaf;
  auto item_base = [&](int64_t it, const char** x, char** d, int64_t* w) {
    const int64_t o = it / strips, q = it % strips;
    int64_t so, dof;
    out.offsets(o, &so, &dof);
    *x = src + so + q * W * col.s;
    *d = dst + dof + q * W * col.d;
    *w = std::min(W, col.n - q * W);
  };
  if (items >= 4 || nrows < 4 * k.row_leaf) {
    struct Buffers {
      std::vector<char> scratch, acc;
    };
    parallel_for_dynamic(
        nt, items, 1,
        [&] {
          return Buffers{std::vector<char>(abytes * W * (cascade_levels(leaves) + 1)),
                         std::vector<char>(abytes * W)};
        },
        [&](Buffers& b, int64_t it) {
          const char* x;
          char* d;
          int64_t w;
          item_base(it, &x, &d, &w);
          k.cols(x, w, col.s, rows, b.acc.data(), b.scratch.data());
          k.store(b.acc.data(), w, d, col.d);
        });
    return;
  }
  // Few strips, many rows: fixed row blocks, partials combined in the serial tree.
  for (int64_t it = 0; it < items; ++it) {
    const char* x;
    char* d;
    int64_t w;
    item_base(it, &x, &d, &w);
    // Row chunks of about 8 * kUnit elements: 128 rows of a 2048-column strip. (32-row
    // chunks left 128 partials per strip for one thread to combine, and vertical sums of
    // a 4096^2 f32 read at 15 - 18 GB/s; 128-row chunks read at 21 - 25.)
    const int64_t RC = pow2_multiple(k.row_leaf, std::max<int64_t>(k.row_leaf, 8 * kUnit / w));
    const int64_t chunks = (nrows + RC - 1) / RC;
    const size_t pbytes = abytes * static_cast<size_t>(w);
    std::vector<char> part(scratch_bytes(chunks, static_cast<int64_t>(pbytes)));
    parallel_for_dynamic(
        nt, chunks, 1,
        [&] { return std::vector<char>(pbytes * (cascade_levels(RC / k.row_leaf) + 1)); },
        [&](std::vector<char>& scratch, int64_t ch) {
          RowSpan rs = rows;
          rs.begin = ch * RC;
          rs.end = std::min(nrows, (ch + 1) * RC);
          k.cols(x, w, col.s, rs, part.data() + ch * pbytes, scratch.data());
        });
    Cascade c(k.combine_a, w, pbytes, cascade_levels(chunks));
    const bool tail = nrows % RC != 0;
    for (int64_t ch = 0; ch < chunks; ++ch) {
      std::memcpy(c.slot(), part.data() + ch * pbytes, pbytes);
      if (!(tail && ch == chunks - 1)) c.push();
    }
    k.store(c.fold(tail), w, d, col.d);
  }
}

// ------------------------------------------------------------------ argmax / argmin
void store_index(char* dst, int64_t v) { std::memcpy(dst, &v, 8); }

void run_arg(const ReduceKernel& k, const char* src, char* dst, const Outer& out, Dim red,
             bool horizontal, Dim col) {
  const int64_t nout = out.count();
  if (horizontal) {
    const int nt = threads_for(nout * red.n, k.acc_size);
    if (nout >= 16 || red.n < 2 * kUnit) {
      parallel_for(nt, nout, [&](int64_t o) {
        int64_t so, dof, idx;
        char val[16];
        out.offsets(o, &so, &dof);
        k.arg_row(src + so, red.n, red.s, &idx, val);
        store_index(dst + dof, idx);
      });
      return;
    }
    const int64_t C = kUnit;
    const int64_t chunks = (red.n + C - 1) / C;
    std::vector<char> val(scratch_bytes(chunks, 16));
    std::vector<int64_t> idx(static_cast<size_t>(chunks));
    for (int64_t o = 0; o < nout; ++o) {
      int64_t so, dof;
      out.offsets(o, &so, &dof);
      parallel_for(nt, chunks, [&](int64_t q) {
        k.arg_row(src + so + q * C * red.s, std::min(C, red.n - q * C), red.s, &idx[q],
                  val.data() + q * 16);
      });
      int64_t best = 0;
      for (int64_t q = 1; q < chunks; ++q)
        if (k.arg_better(val.data() + q * 16, val.data() + best * 16)) best = q;
      store_index(dst + dof, best * C + idx[best]);
    }
    return;
  }
  const int nt = threads_for(nout * col.n * red.n, k.acc_size);
  const int64_t W = strip_width(col.n, k.acc_size, nout, nt);
  const int64_t strips = (col.n + W - 1) / W;
  const int64_t items = nout * strips;
  struct Buffers {
    std::vector<char> best;
    std::vector<int64_t> idx;
  };
  parallel_for_dynamic(
      nt, items, 1,
      [&] {
        return Buffers{std::vector<char>(static_cast<size_t>(W * k.acc_size)),
                       std::vector<int64_t>(static_cast<size_t>(W))};
      },
      [&](Buffers& b, int64_t it) {
        const int64_t o = it / strips, q = it % strips;
        int64_t so, dof;
        out.offsets(o, &so, &dof);
        const int64_t w = std::min(W, col.n - q * W);
        k.arg_cols(src + so + q * W * col.s, w, col.s, red.n, red.s, b.best.data(),
                   b.idx.data());
        char* d = dst + dof + q * W * col.d;
        for (int64_t j = 0; j < w; ++j) store_index(d + j * col.d, b.idx[j]);
      });
}

// Sorts dims outer first (larger |key| first) and merges neighbours that are contiguous
// for both src and dst.
int coalesce(Dim* v, int n, bool by_dst) {
  // A stable insertion sort: at most 32 dims, and no scratch allocation (std::stable_sort
  // takes a temporary buffer from the heap on every small call).
  const auto before = [by_dst](const Dim& a, const Dim& b) {
    const int64_t ka = std::llabs(by_dst ? a.d : a.s), kb = std::llabs(by_dst ? b.d : b.s);
    if (ka != kb) return ka > kb;
    return std::llabs(a.s) > std::llabs(b.s);
  };
  for (int i = 1; i < n; ++i) {
    const Dim x = v[i];
    int j = i;
    for (; j > 0 && before(x, v[j - 1]); --j) v[j] = v[j - 1];
    v[j] = x;
  }
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (m > 0 && v[m - 1].s == v[i].s * v[i].n && v[m - 1].d == v[i].d * v[i].n) {
      v[m - 1].n *= v[i].n;
      v[m - 1].s = v[i].s;
      v[m - 1].d = v[i].d;
      continue;
    }
    v[m++] = v[i];
  }
  return m;
}

}  // namespace

const ReduceTable& reduce_table(int isa) { return reduce_tables().table(isa); }

const char* reduce_op_name(int op) {
  return (op >= 0 && op < kNumReduceOps) ? kReduceNames[op] : "?";
}

bool reduce_supported(int op, int dtype, int isa) {
  if (op < 0 || op >= kNumReduceOps || dtype < 0 || dtype >= kNumDTypes) return false;
  if (isa < 0) isa = active_isa();
  if (isa >= kNumIsas) return false;
  const ReduceKernel& k = reduce_table(isa).k[op][dtype];
  const bool arg = op == kReduce_ARGMAX || op == kReduce_ARGMIN;
  return arg ? k.arg_row != nullptr : k.row != nullptr;
}

// any (a byte != 0) or all (every byte != 0) of n pred bytes (0 or 1), deciding at the
// first block that settles it: blocks of kPredBlock bytes are folded as 64-bit words (the
// compiler vectorizes the fold), and the threads' shared `settled` flag ends the others'
// scans once one of them finds the answer. Worked example: any of [0, 0, 1, ...] reads
// one block.
namespace {

constexpr int64_t kPredBlock = 4096;

// Whether a block of pred bytes settles any (some byte is nonzero) or all (some byte is
// zero), folded as 64-bit words: any ORs the words; all ORs each word's zero-byte flags
// ((w - 0x01..) & ~w & 0x80.. is nonzero iff w has a zero byte), so a pred byte other
// than 0 or 1 (a NumPy bool array viewed zero-copy may hold one) still counts as true.
// The body is SSE2 (every x86-64): 64 bytes per step, a byte compare with zero for all.
// (Scalar words read 1M bools at 48 us against NumPy's 21 us.)
template <bool kAny> bool block_settles(const uint8_t* b, int64_t len) {
  constexpr uint64_t kLow = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  int64_t i = 0;
  const __m128i zero = _mm_setzero_si128();
  __m128i vacc = zero;
  for (; i + 64 <= len; i += 64) {
    __m128i v[4];
    for (int j = 0; j < 4; ++j) {
      v[j] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i + 16 * j));
      if (!kAny) v[j] = _mm_cmpeq_epi8(v[j], zero);
    }
    vacc = _mm_or_si128(vacc, _mm_or_si128(_mm_or_si128(v[0], v[1]), _mm_or_si128(v[2], v[3])));
  }
  if (_mm_movemask_epi8(_mm_cmpeq_epi8(vacc, zero)) != 0xFFFF) return true;
  uint64_t acc = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    std::memcpy(&w, b + i, 8);
    acc |= kAny ? w : ((w - kLow) & ~w & kHigh);
  }
  for (; i < len; ++i) acc |= kAny ? b[i] : (b[i] == 0);
  return acc != 0;
}

bool pred_scan(const uint8_t* p, int64_t n, bool any) {
  const int64_t blocks = (n + kPredBlock - 1) / kPredBlock;
  const int nt = n >= parallel_min(kParReduce) ? std::min<int64_t>(get_num_threads(),
                                                                        blocks) : 1;
  std::atomic<bool> settled{false};
  const int64_t per = (blocks + nt - 1) / std::max(nt, 1);
  parallel_for(nt, nt, [&](int64_t t) {
    for (int64_t b = t * per; b < std::min(blocks, (t + 1) * per); ++b) {
      if (settled.load(std::memory_order_relaxed)) return;
      const int64_t start = b * kPredBlock;
      const int64_t len = std::min(kPredBlock, n - start);
      if (any ? block_settles<true>(p + start, len) : block_settles<false>(p + start, len)) {
        settled.store(true, std::memory_order_relaxed);
        return;
      }
    }
  });
  return any ? settled.load() : !settled.load();
}

}  // namespace

int reduce_run(int op, int dtype, const char* src, int ndim, const int64_t* dims,
               const int64_t* src_strides, const int64_t* dst_strides, char* dst) {
  if (!reduce_supported(op, dtype, -1)) return -1;
  if (ndim < 0 || ndim > 32) return -2;
  const ReduceKernel& k = reduce_table(active_isa()).k[op][dtype];
  const bool arg = op == kReduce_ARGMAX || op == kReduce_ARGMIN;
  Dim R[32], K[32];
  int nr = 0, nk = 0;
  bool empty_out = false, empty_red = false;
  for (int d = 0; d < ndim; ++d) {
    if (dims[d] < 0) return -2;
    if (dims[d] == 0) (dst_strides[d] == 0 ? empty_red : empty_out) = true;
    if (dims[d] <= 1) continue;
    const Dim x{dims[d], src_strides[d], dst_strides[d]};
    if (x.d == 0) R[nr++] = x;
    else K[nk++] = x;
  }
  if (arg && nr > 1) return -2;
  if (empty_out) return 0;
  Outer out;
  if (empty_red || (arg && nr == 0)) {
    out.nd = nk;
    for (int i = 0; i < nk; ++i) out.dims[i] = K[i];
    const int64_t nout = out.count();
    for (int64_t o = 0; o < nout; ++o) {
      int64_t so, dof;
      out.offsets(o, &so, &dof);
      if (arg) store_index(dst + dof, empty_red ? -1 : 0);
      else k.identity(dst + dof);
    }
    return 0;
  }
  if (!arg) {
    for (int i = 0; i < nr; ++i) {  // the order of a sum's terms is free: make strides >= 0
      if (R[i].s < 0) {
        src += (R[i].n - 1) * R[i].s;
        R[i].s = -R[i].s;
      }
    }
    nr = coalesce(R, nr, false);
    // any / all of a whole dense pred tensor (any layout, reversed too): a byte scan that
    // stops at the first deciding byte, as NumPy's does - (x > t).any() of 1M where the
    // first True comes early read the whole mask before (16 us against NumPy's 2).
    if (nk == 0 && nr == 1 && R[0].s == 1 && dtype == kPred &&
        (op == kReduce_OR || op == kReduce_SUM || op == kReduce_AND || op == kReduce_PROD)) {
      const bool any = op == kReduce_OR || op == kReduce_SUM;
      *reinterpret_cast<bool*>(dst) = pred_scan(reinterpret_cast<const uint8_t*>(src),
                                                R[0].n, any);
      return 0;
    }
  }
  nk = coalesce(K, nk, true);
  // The kept dim with the smallest source stride: the vertical strategy's columns.
  int kc = -1;
  for (int i = 0; i < nk; ++i)
    if (kc < 0 || std::llabs(K[i].s) < std::llabs(K[kc].s)) kc = i;
  bool horizontal = nr > 0 && (kc < 0 || std::llabs(R[nr - 1].s) <= std::llabs(K[kc].s));
  // Short contiguous reductions with many outputs (x.sum(axis=-1) of an [N, 3]) run
  // vertically over the kept dim instead of one tiny row per output.
  if (!arg && horizontal && kc >= 0 && R[nr - 1].n < 16 && K[kc].n >= 64) horizontal = false;
  if (horizontal) {
    out.nd = nk;
    for (int i = 0; i < nk; ++i) out.dims[i] = K[i];
    if (arg) {
      run_arg(k, src, dst, out, R[0], true, Dim{1, 0, 0});
      return 0;
    }
    RowSpan rows;
    rows.nd = nr - 1;
    int64_t nrows = 1;
    for (int i = 0; i < nr - 1; ++i) {
      rows.dims[i] = R[i].n;
      rows.strides[i] = R[i].s;
      nrows *= R[i].n;
    }
    rows.begin = 0;
    rows.end = nrows;
    run_horizontal(k, src, dst, out, rows, R[nr - 1].n, R[nr - 1].s);
    return 0;
  }
  Dim col{1, 0, 0};
  if (kc >= 0) {
    col = K[kc];
    for (int i = kc; i + 1 < nk; ++i) K[i] = K[i + 1];
    --nk;
  }
  if (col.s < 0) {  // walk the columns forward in memory
    src += (col.n - 1) * col.s;
    dst += (col.n - 1) * col.d;
    col.s = -col.s;
    col.d = -col.d;
  }
  out.nd = nk;
  for (int i = 0; i < nk; ++i) out.dims[i] = K[i];
  if (arg) {
    run_arg(k, src, dst, out, R[0], false, col);
    return 0;
  }
  RowSpan rows;
  rows.nd = nr;
  int64_t nrows = 1;
  for (int i = 0; i < nr; ++i) {
    rows.dims[i] = R[i].n;
    rows.strides[i] = R[i].s;
    nrows *= R[i].n;
  }
  rows.begin = 0;
  rows.end = nrows;
  run_vertical(k, src, dst, out, col, rows);
  return 0;
}

}  // namespace xarr
