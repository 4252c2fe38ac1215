// The window family's driver (window.h): picks the row dim, splits rows over threads and
// runs the active ISA's row kernels; select_and_scatter_add runs here (its scatter order
// is what makes it deterministic, not its arithmetic).
#include "kernels/window/window.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/capi.h"
#include "core/dtype.h"
#include "core/threading.h"
#include "kernels/gemm/gemm.h"

namespace xarr {

namespace {

const WindowTable& window_table() {
  static const KernelTables<WindowTable> t(XARR_ISA_FILLS(WindowTable, fill_window));
  return t.active();
}

// Runs rows [0, rows) as nt contiguous parts; work ~ elements touched, for the threshold.
template <class Fn>
void split_rows(int64_t rows, double work, Fn fn) {
  int nt = get_num_threads();
  if (work < static_cast<double>(kParallelMinElements) || rows < 2) nt = 1;
  split_items(nt, rows, fn);
}

// Moves dim `from` of each of the per-dim arrays to the end (the row dim).
template <class... A>
void move_last(int n, int from, A*... arrays) {
  (std::rotate(arrays + from, arrays + from + 1, arrays + n), ...);
}

int innermost(const int64_t* out_stride, const WindowDim* dim, int n) {
  int best = n - 1;
  for (int d = 0; d < n; ++d)
    if (dim[d].out > 1 && std::llabs(out_stride[d]) < std::llabs(out_stride[best])) best = d;
  return best;
}

}  // namespace

int reduce_window_run(const ReduceWindowProblem& prob) {
  ReduceWindowProblem p = prob;
  if (p.ndim == 0) {   // a scalar: the window of one element
    p.ndim = 1;
    p.dim[0] = WindowDim{};
    p.in_stride[0] = p.out_stride[0] = dtype_itemsize(p.dtype);
  }
  int64_t total = 1, window = 1;
  for (int d = 0; d < p.ndim; ++d) {
    total *= p.dim[d].out;
    window *= p.dim[d].size;
  }
  if (total == 0) return 0;
  move_last(p.ndim, innermost(p.out_stride, p.dim, p.ndim), p.dim, p.in_stride, p.out_stride);
  const int64_t rows = total / p.dim[p.ndim - 1].out;
  const WindowTable& t = window_table();
  int status = 0;
  split_rows(rows, static_cast<double>(total) * window, [&](int64_t lo, int64_t hi) {
    if (t.reduce_rows(p, lo, hi)) status = 1;
  });
  return status;
}

namespace {

// Outputs per segment when a depthwise problem's rows are cut along their length.
constexpr int64_t kDepthwiseSegment = 4096;

// The part of problem p (spatial-inner form, its last dim the row, no base dilation)
// that computes outputs [j0, j1) of each row: a problem of its own over the input
// elements those windows read, with its own (nonnegative) padding. Output j reads
// position x = j * stride + k * win_dil - pad_lo; the part's first element i0 is the
// first real one at or after j0's first tap, so its pad_lo' = i0 - (j0 * stride - pad_lo).
// Worked example: 1-D, 5 taps, pad_lo 4, in 1000000, outputs [4096, 8192): positions
// 4092 .. 8191, so i0 = 4092, in' = 4100, pad_lo' = 0. False when the part reads no real
// element (padding wider than a part): the caller then runs the rows whole.
bool depthwise_part(const DepthwiseProblem& p, int64_t j0, int64_t j1, DepthwiseProblem* q) {
  const int n = p.nspatial;
  const WindowDim& g = p.dim[n - 1];
  const int64_t x0 = j0 * g.stride - g.pad_lo;
  const int64_t x1 = (j1 - 1) * g.stride + (g.size - 1) * g.win_dil - g.pad_lo;
  const int64_t i0 = std::max<int64_t>(0, x0), i1 = std::min(g.in - 1, x1);
  if (i1 < i0) return false;
  *q = p;
  WindowDim& h = q->dim[n - 1];
  h.in = i1 - i0 + 1;
  h.out = j1 - j0;
  h.pad_lo = i0 - x0;
  q->in = p.in + i0 * p.in_s[n - 1];
  q->out = p.out + j0 * p.out_s[n - 1];
  return true;
}

}  // namespace

int depthwise_run(const DepthwiseProblem& prob) {
  DepthwiseProblem p = prob;
  const int n = p.nspatial;
  if (n < 1 || n > 3 || (p.dtype != kF32 && p.dtype != kF64)) return 1;
  int64_t positions = 1, taps = 1;
  for (int d = 0; d < n; ++d) {
    positions *= p.dim[d].out;
    taps *= p.dim[d].size;
  }
  if (positions * p.batch * p.out_feat == 0) return 0;
  const bool ci = depthwise_channels_inner(p);
  if (!ci) move_last(n, innermost(p.out_s, p.dim, n), p.dim, p.in_s, p.w_s, p.out_s);
  const int64_t rows = ci ? p.batch * positions
                          : p.batch * p.out_feat * (positions / p.dim[n - 1].out);
  const WindowTable& t = window_table();
  const double work = static_cast<double>(positions) * p.batch * p.out_feat * taps;
  // Long rows (a 1-D convolve of 1M samples) run in parts of kDepthwiseSegment outputs,
  // split over threads: the row kernels' padded copy of a row then stays in L1 / L2. One
  // 1M-sample f64 row with 5 taps had 8 MB of buffers allocated, faulted in and filled
  // per call, on one thread: 20.5 ms, NumPy's np.convolve 2.0 ms; in parts 1.35 ms (Zen 3
  // VM, 2 threads).
  const WindowDim& row = p.dim[n - 1];
  const int64_t parts = (row.out + kDepthwiseSegment - 1) / kDepthwiseSegment;
  bool split = !ci && row.base_dil == 1 && parts >= 2;
  std::vector<DepthwiseProblem> part(split ? static_cast<size_t>(parts) : 0);
  for (int64_t s = 0; split && s < parts; ++s)
    split = depthwise_part(p, s * kDepthwiseSegment,
                           std::min(row.out, (s + 1) * kDepthwiseSegment), &part[s]);
  if (split) {
    int nt = get_num_threads();
    if (work < static_cast<double>(kParallelMinElements)) nt = 1;
    split_items(nt, parts, [&](int64_t lo, int64_t hi) {
      for (int64_t s = lo; s < hi; ++s) t.depthwise_rows(part[s], 0, rows);
    });
    return 0;
  }
  split_rows(rows, work, [&](int64_t lo, int64_t hi) { t.depthwise_rows(p, lo, hi); });
  return 0;
}

// ------------------------------------------------------------------ select and scatter
namespace {

template <int SEL, class C> inline bool prefer(C a, C b) {
  if constexpr (SEL == kSelectGe) return a >= b;
  else if constexpr (SEL == kSelectGt) return a > b;
  else if constexpr (SEL == kSelectLe) return a <= b;
  else return a < b;
}

// Dims a window never crosses (size 1, stride 1, no padding or dilation): independent
// slices, which threads split. The others are walked window by window in order; a window
// whose taps all read real elements (the interior) takes its taps' offsets from a table
// made once, the others (borders) check each tap.
template <class T, int SEL>
void select_scatter_typed(const SelectScatterProblem& p) {
  using C = typename TypeInfo<T>::compute;
  const int n = p.ndim;
  std::vector<int> free_dims, win_dims;
  for (int d = 0; d < n; ++d) {
    const WindowDim& g = p.dim[d];
    const bool free = g.size == 1 && g.stride == 1 && g.pad_lo == 0 && g.base_dil == 1 &&
                      g.out == g.in;
    (free ? free_dims : win_dims).push_back(d);
  }
  const int nw = static_cast<int>(win_dims.size());
  int64_t slices = 1, windows = 1, taps = 1, cells = 1;
  for (int d : free_dims) slices *= p.dim[d].in;
  for (int d : win_dims) {
    windows *= p.dim[d].out;
    taps *= p.dim[d].size;
    cells *= p.dim[d].in;
  }
  const C init = load(*static_cast<const T*>(p.init));
  // Each tap's offsets from its window's origin (the element of tap 0 ... 0), in tap order.
  std::vector<int64_t> tap_op(taps), tap_out(taps), tap_k(static_cast<size_t>(taps) * nw);
  for (int64_t q = 0; q < taps; ++q) {
    int64_t r = q, op = 0, out = 0;
    for (int j = nw - 1; j >= 0; --j) {
      const int d = win_dims[j];
      const int64_t k = r % p.dim[d].size;
      r /= p.dim[d].size;
      tap_k[q * nw + j] = k;
      op += k * p.dim[d].win_dil / p.dim[d].base_dil * p.operand_stride[d];
      out += k * p.dim[d].win_dil / p.dim[d].base_dil * p.out_stride[d];
    }
    tap_op[q] = op;
    tap_out[q] = out;
  }
  // Per window dim: the windows [lo, hi) whose every tap reads a real element (none with
  // base dilation: those check every tap).
  std::vector<int64_t> lo(nw), hi(nw);
  for (int j = 0; j < nw; ++j) {
    const WindowDim& g = p.dim[win_dims[j]];
    const int64_t span = (g.size - 1) * g.win_dil;
    if (g.base_dil != 1 || g.size == 0) {
      lo[j] = hi[j] = 0;
      continue;
    }
    lo[j] = g.pad_lo <= 0 ? 0 : (g.pad_lo + g.stride - 1) / g.stride;
    const int64_t top = g.in - 1 - span + g.pad_lo;   // o * stride <= top
    hi[j] = top < 0 ? 0 : std::min(g.out, top / g.stride + 1);
    if (hi[j] < lo[j]) hi[j] = lo[j];
  }
  auto slice_offsets = [&](int64_t s, int64_t* op, int64_t* src, int64_t* out) {
    *op = *src = *out = 0;
    for (int j = static_cast<int>(free_dims.size()) - 1; j >= 0; --j) {
      const int d = free_dims[j];
      const int64_t i = s % p.dim[d].in;
      s /= p.dim[d].in;
      *op += i * p.operand_stride[d];
      *src += i * p.source_stride[d];
      *out += i * p.out_stride[d];
    }
  };
  auto run_slice = [&](int64_t s) {
    int64_t op0, src0, out0;
    slice_offsets(s, &op0, &src0, &out0);
    int64_t idx[kWindowMaxDims] = {}, o[kWindowMaxDims] = {};
    {  // out = init over the slice (an odometer over the window dims' input positions)
      int64_t off = out0;
      for (int64_t c = 0; c < cells; ++c) {
        *reinterpret_cast<T*>(p.out + off) = store<T>(init);
        for (int j = nw - 1; j >= 0; --j) {
          const int d = win_dims[j];
          off += p.out_stride[d];
          if (++idx[j] < p.dim[d].in) break;
          off -= p.dim[d].in * p.out_stride[d];
          idx[j] = 0;
        }
      }
    }
    int64_t src_off = src0;
    for (int64_t w = 0; w < windows; ++w) {
      bool interior = true;
      int64_t origin_op = op0, origin_out = out0;
      for (int j = 0; j < nw; ++j) {
        const WindowDim& g = p.dim[win_dims[j]];
        interior = interior && o[j] >= lo[j] && o[j] < hi[j];
        const int64_t x = o[j] * g.stride - g.pad_lo;   // tap 0's input index (interior)
        origin_op += x * p.operand_stride[win_dims[j]];
        origin_out += x * p.out_stride[win_dims[j]];
      }
      bool found = false;
      C best{};
      int64_t best_out = 0;
      for (int64_t q = 0; q < taps; ++q) {    // taps in row-major (lexicographic) order
        int64_t op_off, out_off;
        if (interior) {
          op_off = origin_op + tap_op[q];
          out_off = origin_out + tap_out[q];
        } else {
          bool real = true;
          op_off = op0;
          out_off = out0;
          for (int j = 0; j < nw && real; ++j) {
            const WindowDim& g = p.dim[win_dims[j]];
            const int64_t x = o[j] * g.stride + tap_k[q * nw + j] * g.win_dil - g.pad_lo;
            real = x >= 0 && x <= (g.in - 1) * g.base_dil && x % g.base_dil == 0;
            const int64_t i = real ? x / g.base_dil : 0;
            op_off += i * p.operand_stride[win_dims[j]];
            out_off += i * p.out_stride[win_dims[j]];
          }
          if (!real) continue;
        }
        // (branch-free: which tap wins is data, a branch on it mispredicted half the time)
        const C v = load(*reinterpret_cast<const T*>(p.operand + op_off));
        const bool keep = found && prefer<SEL>(best, v);
        best = keep ? best : v;
        best_out = keep ? best_out : out_off;
        found = true;
      }
      if (found) {
        T& d = *reinterpret_cast<T*>(p.out + best_out);
        const C add = load(*reinterpret_cast<const T*>(p.source + src_off));
        if constexpr (std::is_same_v<C, bool>) d = store<T>(load(d) || add);
        else d = store<T>(static_cast<C>(load(d) + add));
      }
      for (int j = nw - 1; j >= 0; --j) {   // next window
        const int d = win_dims[j];
        src_off += p.source_stride[d];
        if (++o[j] < p.dim[d].out) break;
        src_off -= p.dim[d].out * p.source_stride[d];
        o[j] = 0;
      }
    }
  };
  int nt = get_num_threads();
  if (static_cast<double>(slices) * windows * taps < kParallelMinElements) nt = 1;
  parallel_for(static_cast<int>(std::min<int64_t>(nt, slices)), slices, run_slice);
}

}  // namespace

namespace {

// select_and_scatter_add of a 2x2/2 max pool's gradient on the ISA's pair kernel: two
// dims with 2-wide, stride-2 windows that never touch padding (out = in / 2), the inner
// one contiguous in operand and out (a strided or broadcast source row is gathered first);
// every other dim free. False: not that shape.
bool select_pairs_run(const SelectScatterProblem& p) {
  const int64_t es = p.dtype == kF64 ? 8 : 4;
  if (p.dtype != kF32 && p.dtype != kF64) return false;
  int win[2], nwin = 0;
  for (int d = 0; d < p.ndim; ++d) {
    const WindowDim& g = p.dim[d];
    if (g.size == 1 && g.stride == 1 && g.pad_lo == 0 && g.base_dil == 1 && g.out == g.in)
      continue;
    if (nwin == 2 || g.size != 2 || g.stride != 2 || g.pad_lo != 0 || g.base_dil != 1 ||
        g.win_dil != 1 || g.out != g.in / 2)
      return false;
    win[nwin++] = d;
  }
  if (nwin != 2) return false;
  const int dw = p.operand_stride[win[1]] == es ? win[1] : win[0];
  const int dh = dw == win[1] ? win[0] : win[1];
  if (p.operand_stride[dw] != es || p.out_stride[dw] != es) return false;
  const bool gather = p.source_stride[dw] != es;
  std::vector<int> free_dims;
  int64_t slices = 1;
  for (int d = 0; d < p.ndim; ++d)
    if (d != dh && d != dw) {
      free_dims.push_back(d);
      slices *= p.dim[d].in;
    }
  const WindowDim &gh = p.dim[dh], &gw = p.dim[dw];
  const int64_t pairs = (gh.in + 1) / 2;    // row pairs per slice (the last one alone if odd)
  const WindowTable& t = window_table();
  const int nt = slices * pairs * gw.in < kParallelMinElements ? 1 : get_num_threads();
  split_items(nt, slices * pairs, [&](int64_t lo, int64_t hi) {
    std::vector<char> row(gather ? static_cast<size_t>(gw.out * es) : 0);
    for (int64_t r = lo; r < hi; ++r) {
      int64_t s = r / pairs, op = 0, src = 0, out = 0;
      const int64_t py = r % pairs;
      for (int j = static_cast<int>(free_dims.size()) - 1; j >= 0; --j) {
        const int d = free_dims[j];
        const int64_t i = s % p.dim[d].in;
        s /= p.dim[d].in;
        op += i * p.operand_stride[d];
        src += i * p.source_stride[d];
        out += i * p.out_stride[d];
      }
      op += 2 * py * p.operand_stride[dh];
      out += 2 * py * p.out_stride[dh];
      if (py < gh.out) {
        const char* source = p.source + src + py * p.source_stride[dh];
        if (gather) {
          for (int64_t x = 0; x < gw.out; ++x)
            std::memcpy(row.data() + x * es, source + x * p.source_stride[dw],
                        static_cast<size_t>(es));
          source = row.data();
        }
        t.select_pairs(p.dtype, p.select, p.operand + op, p.operand + op + p.operand_stride[dh],
                       source, p.out + out,
                       p.out + out + p.out_stride[dh], gw.in, gw.out, p.init);
      } else {   // the last row of an odd height: in no window
        for (int64_t x = 0; x < gw.in; ++x)
          std::memcpy(p.out + out + x * es, p.init, static_cast<size_t>(es));
      }
    }
  });
  return true;
}

}  // namespace

int select_and_scatter_add_run(const SelectScatterProblem& p) {
  if (select_pairs_run(p)) return 0;
  int status = 1;
  visit_dtype(p.dtype, [&](auto tag) {
    using T = decltype(tag);
    using C = typename TypeInfo<T>::compute;
    if constexpr (!std::is_same_v<C, c64> && !std::is_same_v<C, c128>) {
      switch (p.select) {
        case kSelectGe: select_scatter_typed<T, kSelectGe>(p); break;
        case kSelectGt: select_scatter_typed<T, kSelectGt>(p); break;
        case kSelectLe: select_scatter_typed<T, kSelectLe>(p); break;
        default: select_scatter_typed<T, kSelectLt>(p); break;
      }
      status = 0;
    }
  });
  return status;
}

// ------------------------------------------------------------------ Winograd F(2x2, 3x3)
namespace {

// 64-byte aligned scratch (the micro-kernel's packed panels).
struct AlignedFloats {
  float* p = nullptr;
  int64_t bytes = 0;
  explicit AlignedFloats(int64_t n) : bytes(std::max<int64_t>(n, 16) * 4) {
    p = static_cast<float*>(aligned_alloc64(bytes));
    if (!p) throw std::bad_alloc();
    std::memset(p, 0, static_cast<size_t>(bytes));
  }
  AlignedFloats(const AlignedFloats&) = delete;
  AlignedFloats& operator=(const AlignedFloats&) = delete;
  ~AlignedFloats() { aligned_free(p, bytes); }
};

// The GEMM's A operand: G g G^T of every (output, input) feature pair, packed as the
// micro-kernel reads it: u[(xi * panels + k / mr) * stride + c * mr + k % mr], k < K (rows
// up to the padded K stay zero); stride: C * mr rounded up to 16 floats, so every panel,
// and every 128-feature chunk of one, starts 64-byte aligned (gemm.h's contract).
void transform_filters(const WinogradProblem& p, int64_t mr, int64_t panels, int64_t stride,
                       float* u) {
  const int64_t C = p.in_feat;
  for (int64_t k = 0; k < p.out_feat; ++k)
    for (int64_t c = 0; c < C; ++c) {
      float g[3][3], gt[4][3];   // gt = G g
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
          g[a][b] = *reinterpret_cast<const float*>(p.w + k * p.w_so + c * p.w_si +
                                                    a * p.w_sh + b * p.w_sw);
      for (int b = 0; b < 3; ++b) {
        gt[0][b] = g[0][b];
        gt[1][b] = 0.5f * (g[0][b] + g[1][b] + g[2][b]);
        gt[2][b] = 0.5f * (g[0][b] - g[1][b] + g[2][b]);
        gt[3][b] = g[2][b];
      }
      for (int i = 0; i < 4; ++i) {
        const float row[4] = {gt[i][0], 0.5f * (gt[i][0] + gt[i][1] + gt[i][2]),
                              0.5f * (gt[i][0] - gt[i][1] + gt[i][2]), gt[i][2]};
        for (int j = 0; j < 4; ++j)
          u[((4 * i + j) * panels + k / mr) * stride + c * mr + k % mr] = row[j];
      }
    }
}

}  // namespace

void winograd_run(const WinogradProblem& p) {
  const int64_t C = p.in_feat, K = p.out_feat;
  if (p.batch * K * p.out_h * p.out_w == 0) return;
  if (C == 0) {   // no input features: a sum of nothing
    for (int64_t b = 0; b < p.batch; ++b)
      for (int64_t k = 0; k < K; ++k)
        for (int64_t y = 0; y < p.out_h; ++y)
          std::fill_n(reinterpret_cast<float*>(p.out + b * p.out_sb + k * p.out_sk +
                                               y * p.out_sh), p.out_w, 0.0f);
    return;
  }
  const GemmTable& gt = gemm_table();
  GemmMicroKernel uk = gt.kernel[kGemmF32];
  const GemmMicroKernel& flat = gt.flat[kGemmF32];
  auto padded = [K](const GemmMicroKernel& k) { return (K + k.mr - 1) / k.mr * k.mr; };
  if (flat.fn && padded(flat) < padded(uk)) uk = flat;
  const int64_t mr = uk.mr, nr = uk.nr, kp = padded(uk), panels_k = kp / mr;
  const int64_t a_stride = (C * mr + 15) / 16 * 16;
  AlignedFloats u(16 * panels_k * a_stride);
  transform_filters(p, mr, panels_k, a_stride, u.p);
  const int64_t tiles_x = (p.out_w + 1) / 2, per_image = (p.out_h + 1) / 2 * tiles_x;
  const int64_t tiles = p.batch * per_image, panels = (tiles + nr - 1) / nr;
  // input features per pass: the transformed panel (16 x cb x nr) stays in L2; chunks
  // start at multiples of 128, so A's panels stay 64-byte aligned
  const int64_t cb = std::min<int64_t>(C, 128);
  const int64_t v_xi = cb * nr + 16, m_xi = kp * nr;
  const WindowTable& t = window_table();
  const double flops = 2.0 * 16 * static_cast<double>(tiles) * C * K;
  const int nt = flops < 4.0 * kParallelMinElements ? 1 : get_num_threads();
  split_items(nt, panels, [&](int64_t lo, int64_t hi) {
    AlignedFloats v(16 * v_xi), m(16 * m_xi + 16);
    std::vector<WinogradSegment> seg(static_cast<size_t>(nr));   // at most one per tile
    if (uk.begin) uk.begin();
    for (int64_t panel = lo; panel < hi; ++panel) {
      int nseg = 0;
      const int64_t first = panel * nr, last = std::min(tiles, first + nr);
      for (int64_t i = first; i < last;) {
        const int64_t b = i / per_image, r = i % per_image;
        const int64_t ty = r / tiles_x, tx = r % tiles_x;
        const int64_t n = std::min(tiles_x - tx, last - i);
        seg[nseg++] = WinogradSegment{b, ty, tx, n, i - first};
        i += n;
      }
      for (int64_t c0 = 0; c0 < C; c0 += cb) {
        const int64_t c1 = std::min(C, c0 + cb);
        t.winograd_input(p, seg.data(), nseg, c0, c1, nr, v.p, v_xi);
        for (int xi = 0; xi < 16; ++xi)
          for (int64_t q = 0; q < panels_k; ++q)
            uk.fn(c1 - c0, u.p + (xi * panels_k + q) * a_stride + c0 * mr, v.p + xi * v_xi,
                  m.p + xi * m_xi + q * mr * nr, nr, 1, c0 > 0);
      }
      t.winograd_output(p, seg.data(), nseg, nr, m.p, m_xi);
    }
    if (uk.end) uk.end();
  });
}

}  // namespace xarr
