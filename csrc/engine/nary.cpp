#include "engine/nary.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace xarr {

namespace {

struct Plan {
  int nargs = 0;
  int ndim = 0;                         // after simplification; the last dim is innermost
  int64_t dims[kMaxDims];
  int64_t st[kMaxArgs][kMaxDims];
};

// Returns false when the iteration space is empty.
bool simplify(Plan& p, int nargs, int ndim, const int64_t* dims, const int64_t* strides) {
  p.nargs = nargs;
  int order[kMaxDims];
  int k = 0;
  for (int d = 0; d < ndim; ++d) {
    if (dims[d] == 0) return false;
    if (dims[d] != 1) order[k++] = d;
  }
  const int out = nargs - 1;
  auto key_out = [&](int d) { return std::llabs(strides[out * ndim + d]); };
  auto key_in = [&](int d) {
    int64_t s = 0;
    for (int a = 0; a < out; ++a) s += std::llabs(strides[a * ndim + d]);
    return s;
  };
  // Outermost first: larger output stride first, ties by larger summed input stride. A
  // stable insertion sort: k <= 32, and std::stable_sort may allocate a buffer per call.
  auto before = [&](int x, int y) {
    if (key_out(x) != key_out(y)) return key_out(x) > key_out(y);
    return key_in(x) > key_in(y);
  };
  for (int i = 1; i < k; ++i) {
    const int d = order[i];
    int j = i;
    for (; j > 0 && before(d, order[j - 1]); --j) order[j] = order[j - 1];
    order[j] = d;
  }
  int n = 0;
  for (int i = 0; i < k; ++i) {
    int d = order[i];
    if (n > 0) {
      bool mergeable = true;
      for (int a = 0; a < nargs; ++a)
        if (p.st[a][n - 1] != strides[a * ndim + d] * dims[d]) mergeable = false;
      if (mergeable) {
        p.dims[n - 1] *= dims[d];
        for (int a = 0; a < nargs; ++a) p.st[a][n - 1] = strides[a * ndim + d];
        continue;
      }
    }
    p.dims[n] = dims[d];
    for (int a = 0; a < nargs; ++a) p.st[a][n] = strides[a * ndim + d];
    ++n;
  }
  if (n == 0) {  // a single element
    p.dims[0] = 1;
    for (int a = 0; a < nargs; ++a) p.st[a][0] = 0;
    n = 1;
  }
  p.ndim = n;
  return true;
}

// Runs work items [begin, end) of a plan whose innermost row is cut into `chunks` pieces.
template <class Loop>
void run_items(const Loop& loop, const Plan& p, char* const* ptrs, int64_t chunks, int64_t chunk,
               int64_t begin, int64_t end) {
  const int nargs = p.nargs;
  const int inner = p.ndim - 1;
  const int64_t n_inner = p.dims[inner];
  int64_t inner_st[kMaxArgs];
  for (int a = 0; a < nargs; ++a) inner_st[a] = p.st[a][inner];
  // Odometer over the outer dims, positioned at the row of `begin`.
  int64_t idx[kMaxDims];
  int64_t row = begin / chunks;
  for (int d = inner - 1; d >= 0; --d) {
    idx[d] = row % p.dims[d];
    row /= p.dims[d];
  }
  char* base[kMaxArgs];
  for (int a = 0; a < nargs; ++a) {
    base[a] = ptrs[a];
    for (int d = 0; d < inner; ++d) base[a] += idx[d] * p.st[a][d];
  }
  int64_t c = begin % chunks;
  char* args[kMaxArgs];
  for (int64_t item = begin; item < end; ++item) {
    int64_t lo = c * chunk;
    int64_t hi = std::min(n_inner, lo + chunk);
    for (int a = 0; a < nargs; ++a) args[a] = base[a] + lo * inner_st[a];
    if (hi > lo) loop(args, inner_st, hi - lo);
    if (++c == chunks) {
      c = 0;
      for (int d = inner - 1; d >= 0; --d) {  // next row
        for (int a = 0; a < nargs; ++a) base[a] += p.st[a][d];
        if (++idx[d] < p.dims[d]) break;
        for (int a = 0; a < nargs; ++a) base[a] -= p.st[a][d] * p.dims[d];
        idx[d] = 0;
      }
    }
  }
}

// Mixed orders (x.T + y): some input is more contiguous along the next-to-innermost dim
// than along the innermost one, so a row-by-row walk reads it one cache line per element
// and never comes back to the line. Then the two innermost dims run in tiles of kTileRows
// rows x kTileCols elements: each input line fetched for a tile is reused by all its rows.
// Measured on Zen 3, f32 x.T + y (400 x 250): 90 -> 58 us (NumPy 89 us); 1M: 1.16 ms ->
// 0.50 ms; 16M: 4x NumPy.
constexpr int64_t kTileRows = 16;
constexpr int64_t kTileCols = 256;

bool mixed_orders(const Plan& p) {
  if (p.ndim < 2) return false;
  const int in = p.ndim - 1;
  for (int a = 0; a < p.nargs - 1; ++a) {
    const int64_t s_in = std::llabs(p.st[a][in]), s_row = std::llabs(p.st[a][in - 1]);
    if (s_row != 0 && s_row < s_in) return true;
  }
  return false;
}

// Work items [begin, end) of the tiled walk: item = (outer row, row tile, column tile),
// column tiles innermost. With `tr`, inputs contiguous along the row dim (stride
// tr->itemsize there, a larger positive one along the inner dim) are transposed per tile
// into `buf` (nary.h InputTranspose): 10k f32 x.T + y on AVX-512, 10.0 -> 4.0 us (NumPy
// 5.7); 100k: 50 -> 22 us (NumPy 48).
template <class Loop>
void run_tiles(const Loop& loop, const Plan& p, char* const* ptrs, int64_t begin, int64_t end,
               const InputTranspose* tr) {
  const int nargs = p.nargs;
  const int in = p.ndim - 1, rw = p.ndim - 2;
  const int64_t rtiles = (p.dims[rw] + kTileRows - 1) / kTileRows;
  const int64_t ctiles = (p.dims[in] + kTileCols - 1) / kTileCols;
  int64_t inner_st[kMaxArgs];
  for (int a = 0; a < nargs; ++a) inner_st[a] = p.st[a][in];
  // buffered inputs: via[a] >= 0 is the slot of input a in buf
  int via[kMaxArgs];
  int nvia = 0;
  const int64_t isz = tr && tr->panel ? tr->itemsize : 0;
  for (int a = 0; a < nargs; ++a) {
    via[a] = -1;
    if (isz > 0 && a < nargs - 1 && (tr->inputs >> a & 1) && p.st[a][rw] == isz &&
        p.st[a][in] > isz) {
      via[a] = nvia++;
      inner_st[a] = isz;
    }
  }
  const int64_t slot = kTileRows * kTileCols * isz;
  static thread_local std::vector<char> buf;  // (grown, never shrunk or cleared)
  if (static_cast<int64_t>(buf.size()) < nvia * slot) buf.resize(nvia * slot);
  char* args[kMaxArgs];
  for (int64_t item = begin; item < end; ++item) {
    const int64_t ct = item % ctiles, rt = (item / ctiles) % rtiles;
    int64_t outer = item / ctiles / rtiles;
    char* base[kMaxArgs];
    for (int a = 0; a < nargs; ++a) base[a] = ptrs[a];
    for (int d = rw - 1; d >= 0; --d) {
      const int64_t i = outer % p.dims[d];
      outer /= p.dims[d];
      for (int a = 0; a < nargs; ++a) base[a] += i * p.st[a][d];
    }
    const int64_t c0 = ct * kTileCols, cn = std::min(kTileCols, p.dims[in] - c0);
    const int64_t r0 = rt * kTileRows, r1 = std::min(p.dims[rw], r0 + kTileRows);
    for (int a = 0; a < nargs; ++a)
      if (via[a] >= 0)  // buf row r - r0 holds the tile's row r, kTileCols elements apart
        tr->panel(base[a] + r0 * p.st[a][rw] + c0 * p.st[a][in], p.st[a][in],
                  buf.data() + via[a] * slot, kTileCols * isz, r1 - r0, cn, false);
    for (int64_t r = r0; r < r1; ++r) {
      for (int a = 0; a < nargs; ++a)
        args[a] = via[a] >= 0 ? buf.data() + via[a] * slot + (r - r0) * kTileCols * isz
                              : base[a] + r * p.st[a][rw] + c0 * inner_st[a];
      loop(args, inner_st, cn);
    }
  }
}

// Copies `rows` rows of n elements of kSize bytes between a contiguous block and a strided
// one (element (r, c) at strided + r * st_row + c * st_in): into the block when `in`, else
// out of it.
template <int kSize>
void copy_rows(char* block, char* strided, int64_t rows, int64_t n, int64_t st_row,
               int64_t st_in, bool in) {
  for (int64_t r = 0; r < rows; ++r) {
    char* s = strided + r * st_row;
    for (int64_t c = 0; c < n; ++c, block += kSize, s += st_in) {
      if (in) std::memcpy(block, s, kSize);
      else std::memcpy(s, block, kSize);
    }
  }
}

void copy_rows(int isz, char* block, char* strided, int64_t rows, int64_t n, int64_t st_row,
               int64_t st_in, bool in) {
  switch (isz) {
    case 1: return copy_rows<1>(block, strided, rows, n, st_row, st_in, in);
    case 2: return copy_rows<2>(block, strided, rows, n, st_row, st_in, in);
    case 4: return copy_rows<4>(block, strided, rows, n, st_row, st_in, in);
    case 8: return copy_rows<8>(block, strided, rows, n, st_row, st_in, in);
    default: return copy_rows<16>(block, strided, rows, n, st_row, st_in, in);
  }
}

// The packed walk of short rows (run_nary_ctx with itemsizes): work item = (outer row,
// block of `block_rows` rows of the next-to-innermost dim). An operand whose rows follow
// each other in memory (st_row == n * st_in) is passed in place; the others go through
// their slot of the per-thread buffer.
template <class Loop>
void run_packed(const Loop& loop, const Plan& p, char* const* ptrs, const int* itemsizes,
                int nout, int64_t block_rows, int64_t begin, int64_t end) {
  const int nargs = p.nargs;
  const int in = p.ndim - 1, rw = p.ndim - 2;
  const int64_t n = p.dims[in];
  const int64_t rblocks = (p.dims[rw] + block_rows - 1) / block_rows;
  const int64_t slot = (block_rows * n * 16 + 63) / 64 * 64;
  static thread_local std::vector<char> buffer;
  buffer.resize(static_cast<size_t>(slot * nargs + 64));
  char* slots = buffer.data() + ((64 - (reinterpret_cast<uintptr_t>(buffer.data()) & 63)) & 63);
  bool direct[kMaxArgs];
  int64_t st[kMaxArgs];
  for (int a = 0; a < nargs; ++a) {
    direct[a] = p.st[a][rw] == n * p.st[a][in];
    st[a] = direct[a] ? p.st[a][in] : itemsizes[a];
  }
  char* args[kMaxArgs];
  for (int64_t item = begin; item < end; ++item) {
    const int64_t rb = item % rblocks;
    int64_t outer = item / rblocks;
    const int64_t r0 = rb * block_rows, rows = std::min(block_rows, p.dims[rw] - r0);
    char* base[kMaxArgs];
    for (int a = 0; a < nargs; ++a) base[a] = ptrs[a] + r0 * p.st[a][rw];
    for (int d = rw - 1; d >= 0; --d) {
      const int64_t i = outer % p.dims[d];
      outer /= p.dims[d];
      for (int a = 0; a < nargs; ++a) base[a] += i * p.st[a][d];
    }
    for (int a = 0; a < nargs; ++a) {
      args[a] = direct[a] ? base[a] : slots + a * slot;
      if (!direct[a] && a < nargs - nout)
        copy_rows(itemsizes[a], args[a], base[a], rows, n, p.st[a][rw], p.st[a][in], true);
    }
    loop(args, st, rows * n);
    for (int a = nargs - nout; a < nargs; ++a)
      if (!direct[a])
        copy_rows(itemsizes[a], args[a], base[a], rows, n, p.st[a][rw], p.st[a][in], false);
  }
}

// A plain loop (no packing) over rows shorter than kShortRow runs with the longest outer
// dim innermost instead, the short dim next to it: y / x[:, :, None] over f64[64, 64, 2]
// is 128 strided loops of 64 elements rather than 4096 loops of 2 (measured 101 -> 7 us;
// NumPy 19 us). Elementwise loops give the same values in any order.
constexpr int64_t kShortRow = 8;

void swap_short_row(Plan& p) {
  const int in = p.ndim - 1;
  int best = -1;
  for (int d = 0; d < in; ++d)
    if (p.dims[d] > p.dims[in] && (best < 0 || p.dims[d] > p.dims[best])) best = d;
  if (best < 0) return;
  auto swap_dims = [&p](int x, int y) {
    std::swap(p.dims[x], p.dims[y]);
    for (int a = 0; a < p.nargs; ++a) std::swap(p.st[a][x], p.st[a][y]);
  };
  swap_dims(best, in);
  if (best != in - 1) swap_dims(best, in - 1);   // the short dim next to the innermost
}

// A repeated row (x + row, x / row, where(x > row, ...)): an input whose rows all start at
// the same address (outer stride 0), beside operands whose rows follow each other. Short
// rows would cost one loop call each; instead each thread copies the row, repeated for a
// block of rows, into a buffer, and the loop runs once per block over all its rows. The
// repeated input's element size must be known: ew_run's InputTranspose names it.
// Measured on a Zen 4 VM, f32 x + row over [100, 100]: 3.4 -> 1.6 us (NumPy 3.3); over
// [40, 25]: 1.36 -> 0.65 us (NumPy 1.31).
constexpr int64_t kRepeatRowMax = 512;       // row length, elements
constexpr int64_t kRepeatBlockBytes = 8192;  // bytes of a repeated input per block

// Bit a set: input a is a repeated row. 0 when the plan is not of that form.
uint32_t repeated_rows(const Plan& p, const InputTranspose* known, int nout) {
  if (!known || known->itemsize <= 0 || p.ndim != 2 || p.dims[1] > kRepeatRowMax ||
      p.dims[0] < 4)
    return 0;
  const int64_t n = p.dims[1];
  uint32_t repeated = 0;
  for (int a = 0; a < p.nargs; ++a) {
    const int64_t r = p.st[a][0], s = p.st[a][1];
    if (r == n * s) continue;  // rows follow each other (a scalar too)
    if (r == 0 && a < p.nargs - nout && ((known->inputs >> a) & 1)) {
      repeated |= 1u << a;
      continue;
    }
    return 0;
  }
  return repeated;
}

template <class Loop>
void run_repeated(const Loop& loop, const Plan& p, char* const* ptrs, uint32_t repeated,
                  int itemsize, int64_t block_rows, int64_t begin, int64_t end) {
  const int nargs = p.nargs;
  const int64_t n = p.dims[1];
  const int64_t slot = (block_rows * n * itemsize + 63) / 64 * 64;
  static thread_local std::vector<char> buffer;
  buffer.resize(static_cast<size_t>(slot * nargs + 64));
  char* slots = buffer.data() + ((64 - (reinterpret_cast<uintptr_t>(buffer.data()) & 63)) & 63);
  int64_t st[kMaxArgs];
  char* args[kMaxArgs];
  for (int a = 0; a < nargs; ++a) {
    st[a] = p.st[a][1];
    if (!((repeated >> a) & 1)) continue;
    char* dst = slots + a * slot;
    for (int64_t j = 0; j < n; ++j)
      std::memcpy(dst + j * itemsize, ptrs[a] + j * p.st[a][1], static_cast<size_t>(itemsize));
    for (int64_t r = 1; r < block_rows; ++r)
      std::memcpy(dst + r * n * itemsize, dst, static_cast<size_t>(n * itemsize));
    st[a] = itemsize;
  }
  for (int64_t b = begin; b < end; ++b) {
    const int64_t r0 = b * block_rows, rows = std::min(block_rows, p.dims[0] - r0);
    for (int a = 0; a < nargs; ++a)
      args[a] = (repeated >> a) & 1 ? slots + a * slot : ptrs[a] + r0 * p.st[a][0];
    loop(args, st, rows * n);
  }
}

}  // namespace

template <class Loop>
void run_nary_impl(const Loop& loop, int nargs, char* const* ptrs, int ndim,
                   const int64_t* dims, const int64_t* strides, int64_t min_parallel,
                   const int* itemsizes = nullptr, int nout = 1,
                   const InputTranspose* transpose = nullptr) {
  Plan p;
  if (!simplify(p, nargs, ndim, dims, strides)) return;
  const int inner = p.ndim - 1;
  if (!itemsizes && p.ndim >= 2 && p.dims[inner] < kShortRow) swap_short_row(p);
  int64_t rows = 1;
  for (int d = 0; d < inner; ++d) rows *= p.dims[d];
  const int64_t total = rows * p.dims[inner];
  int nt = total >= min_parallel ? get_num_threads() : 1;
  if (itemsizes && p.ndim >= 2 && p.dims[inner] < kPackRowMax && p.dims[inner - 1] >= 2) {
    int widest = 1;
    for (int a = 0; a < nargs; ++a) widest = std::max(widest, itemsizes[a]);
    const int64_t block_rows =
        std::min(p.dims[inner - 1], std::max<int64_t>(1, kPackBlockBytes / widest / p.dims[inner]));
    const int64_t items =
        rows / p.dims[inner - 1] * ((p.dims[inner - 1] + block_rows - 1) / block_rows);
    split_items(nt, items, [&](int64_t b, int64_t e) {
      run_packed(loop, p, ptrs, itemsizes, nout, block_rows, b, e);
    });
    return;
  }
  if (const uint32_t repeated = repeated_rows(p, transpose, nout)) {
    const int isz = transpose->itemsize;
    const int64_t block_rows =
        std::min(p.dims[0], std::max<int64_t>(1, kRepeatBlockBytes / (isz * p.dims[1])));
    const int64_t items = (p.dims[0] + block_rows - 1) / block_rows;
    split_items(nt, items, [&](int64_t b, int64_t e) {
      run_repeated(loop, p, ptrs, repeated, isz, block_rows, b, e);
    });
    return;
  }
  if (mixed_orders(p) && p.dims[inner] > 1 && p.dims[inner - 1] > 1) {
    const int64_t items = rows / p.dims[inner - 1] *
                          ((p.dims[inner - 1] + kTileRows - 1) / kTileRows) *
                          ((p.dims[inner] + kTileCols - 1) / kTileCols);
    split_items(nt, items, [&](int64_t b, int64_t e) {
      run_tiles(loop, p, ptrs, b, e, transpose);
    });
    return;
  }
  if (nt <= 1) {
    run_items(loop, p, ptrs, 1, p.dims[inner], 0, rows);
    return;
  }
  // Cut rows into chunks when there are too few rows to balance the threads;
  // chunks stay >= 4096 elements so each call still runs a long vector loop.
  int64_t chunks = 1;
  if (rows < 8 * nt) {
    chunks = (8 * nt + rows - 1) / rows;
    chunks = std::min<int64_t>(chunks, std::max<int64_t>(1, p.dims[inner] / 4096));
  }
  // Chunk starts stay 64-element aligned so vector loops see aligned, whole-line work.
  const int64_t chunk = ((p.dims[inner] + chunks - 1) / chunks + 63) / 64 * 64;
  chunks = (p.dims[inner] + chunk - 1) / chunk;
  const int64_t items = rows * chunks;
  if (items < nt) nt = static_cast<int>(items);
#pragma omp parallel num_threads(nt)
  {
    const int t = omp_get_thread_num();
    const int n = omp_get_num_threads();
    const int64_t begin = items * t / n;
    const int64_t end = items * (t + 1) / n;
    if (end > begin) run_items(loop, p, ptrs, chunks, chunk, begin, end);
  }
}

void run_nary(LoopFn loop, int nargs, char* const* ptrs, int ndim, const int64_t* dims,
              const int64_t* strides, int64_t min_parallel, const InputTranspose* transpose) {
  run_nary_impl(loop, nargs, ptrs, ndim, dims, strides, min_parallel, nullptr, 1, transpose);
}

void run_nary_ctx(LoopCtxFn loop, void* ctx, int nargs, char* const* ptrs, int ndim,
                  const int64_t* dims, const int64_t* strides, int64_t min_parallel,
                  const int* itemsizes, int nout, const InputTranspose* transpose) {
  auto bound = [loop, ctx](char* const* args, const int64_t* st, int64_t n) {
    loop(ctx, args, st, n);
  };
  run_nary_impl(bound, nargs, ptrs, ndim, dims, strides, min_parallel, itemsizes, nout,
                transpose);
}

}  // namespace xarr
