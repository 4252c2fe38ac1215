// The GEMM driver: orientation, the matrix-vector path, BLIS's five loops with packing from
// any strides, threads. The contract and the strategy are in gemm.h.
#include "kernels/gemm/gemm.h"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <complex>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/capi.h"
#include "core/threading.h"
#include "kernels/relayout/transpose_tiles.h"

namespace xarr {

const GemmTable& gemm_table(int isa) {
  static const KernelTables<GemmTable> tables(XARR_ISA_FILLS(GemmTable, fill_gemm));
  return isa < 0 ? tables.active() : tables.table(isa);
}

int gemm_type_of(int out_dtype) {
  switch (out_dtype) {
    case kF32: return kGemmF32;
    case kF64: return kGemmF64;
    case kC64: return kGemmC64;
    case kC128: return kGemmC128;
    case kS32: case kU32: return kGemmS32;
    case kS64: case kU64: return kGemmS64;
    default: return -1;
  }
}

namespace {

// ------------------------------------------------------------------ cache sizes
struct CacheSizes {
  int64_t l1, l2, l3;
};

const CacheSizes& cache_sizes() {
  static const CacheSizes sizes = [] {
    auto ask = [](int name, int64_t fallback) {
      long v = sysconf(name);
      return v > 0 ? static_cast<int64_t>(v) : fallback;
    };
    CacheSizes s{ask(_SC_LEVEL1_DCACHE_SIZE, 32 << 10), ask(_SC_LEVEL2_CACHE_SIZE, 512 << 10),
                 ask(_SC_LEVEL3_CACHE_SIZE, 8 << 20)};
    // A hypervisor may report nonsense (a 320 MiB "L3"): keep within what CPUs have.
    s.l1 = std::clamp<int64_t>(s.l1, 16 << 10, 128 << 10);
    s.l2 = std::clamp<int64_t>(s.l2, 128 << 10, 4 << 20);
    s.l3 = std::clamp<int64_t>(s.l3, 1 << 20, 64 << 20);
    return s;
  }();
  return sizes;
}

int64_t round_down(int64_t v, int64_t m) { return std::max<int64_t>(m, v / m * m); }
int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }
// The block size that splits `total` into as few blocks of at most about `block` as
// possible, all of one size (a multiple of `tile`).
int64_t balanced(int64_t total, int64_t block, int64_t tile) {
  const int64_t blocks = std::max<int64_t>(1, (total + block - 1) / block);
  return round_up((total + blocks - 1) / blocks, tile);
}

}  // namespace

GemmBlocking gemm_blocking(const GemmMicroKernel& k, int itemsize) {
  const CacheSizes& cs = cache_sizes();
  GemmBlocking b;
  // KC spreads the load and store of each C tile over kc multiply-add steps: the longer
  // the better while a B micro-panel (kc x nr) stays a small share of L2. It need not fit
  // in L1: the kernel reads its panels in order and the prefetchers keep up. On a Zen 4
  // VM (32 KiB L1d, 1 MiB L2), one thread's 2048^3 sgemm ran 95 GFLOP/s with KC 128 (the
  // panel in half of L1), 103 with 384 and 106 with 512; the kernel's own peak is 115.
  // Panels of 1- and 2-byte operands (the k-grouped kernels) may be as long in bytes as
  // 4-byte ones at 512 (2048^3 on the Zen 4 VM, 2 threads: int8 with VNNI 545 -> 578
  // GOP/s with KC 512 -> 2048, bf16 with AVX512-BF16 363 -> 398 with KC 512 -> 1024).
  const int64_t most = itemsize >= 4 ? 512 : 2048 / itemsize;
  b.kc = std::clamp<int64_t>(cs.l2 / (16 * k.nr * itemsize), 64, most) / 8 * 8;
  // ... but not so long that the A block (MC x KC in half of L2) is at most a quarter as
  // tall as it is deep. On a Zen 3 VM (512 KiB L2, the AVX2 6x16 / 6x8 kernels) KC 512
  // gave sgemm MC 126 and dgemm MC 60. With KC 256 (MC 252 / 126), 2 threads, one
  // process timing both and NumPy's OpenBLAS in turn, GFLOP/s (OpenBLAS in brackets):
  //   sgemm 512^3 81-132 -> 110-139 (107), 1024^3 85 -> 122 (108), 2048^3 117 -> 126;
  //   dgemm 1024^3 47 -> 70 (63), 2048^3 45-49 -> 58-60 (66); one thread within noise.
  // The Zen 4 sgemm (12x32, 1 MiB L2: MC 256 at KC 512) keeps 512, measured best there;
  // its dgemm (MC 128) now takes 256, unmeasured on that CPU.
  // (4-byte and wider panels only: the k-grouped int8 / bf16 kernels' KC was measured.)
  while (itemsize >= 4 && b.kc >= 128 && cs.l2 / (2 * b.kc * itemsize) <= b.kc / 4)
    b.kc = b.kc / 2 / 8 * 8;
  b.mc = std::min<int64_t>(round_down(cs.l2 / (2 * b.kc * itemsize), k.mr), 1024 / k.mr * k.mr);
  b.nc = std::min<int64_t>(round_down(cs.l3 / (4 * b.kc * itemsize), k.nr), 4096 / k.nr * k.nr);
  return b;
}

namespace {

// ------------------------------------------------------------------ dims and offsets
// One list of dims (batch, m, n or k) with their byte strides in A, B and C. Offsets of a
// run of linear indices (row-major over the list) are produced incrementally.
struct DimList {
  int nd = 0;
  int64_t size[kGemmMaxDims];
  int64_t stride[3][kGemmMaxDims];  // [0] = A, [1] = B, [2] = C
  int64_t total = 1;

  // Drops size-1 dims and merges neighbours that are one dim in every operand.
  void set(const GemmDim* dims, int n) {
    nd = 0;
    total = 1;
    for (int d = 0; d < n; ++d) {
      const GemmDim& g = dims[d];
      if (g.size < 0) throw std::invalid_argument("gemm: negative dim size");
      total *= g.size;
      if (g.size == 1) continue;
      if (nd > 0 && stride[0][nd - 1] == g.stride_a * g.size &&
          stride[1][nd - 1] == g.stride_b * g.size && stride[2][nd - 1] == g.stride_c * g.size) {
        size[nd - 1] *= g.size;
        stride[0][nd - 1] = g.stride_a;
        stride[1][nd - 1] = g.stride_b;
        stride[2][nd - 1] = g.stride_c;
        continue;
      }
      size[nd] = g.size;
      stride[0][nd] = g.stride_a;
      stride[1][nd] = g.stride_b;
      stride[2][nd] = g.stride_c;
      ++nd;
    }
  }

  // The step of operand x's offset per linear index when it is one (at most one dim).
  bool affine(int x, int64_t* step) const {
    if (nd > 1) return false;
    *step = nd == 0 ? 0 : stride[x][0];
    return true;
  }

  // out_x[i] = offset in operand x of linear index start + i, for i < count (x, y: 0..2).
  void offsets(int64_t start, int64_t count, int x, int64_t* out_x, int y = -1,
               int64_t* out_y = nullptr) const {
    if (count <= 0) return;
    if (nd <= 1) {  // one dim (or none): an arithmetic sequence
      const int64_t sx = nd ? stride[x][0] : 0, sy = nd && y >= 0 ? stride[y][0] : 0;
      for (int64_t i = 0; i < count; ++i) {
        out_x[i] = (start + i) * sx;
        if (y >= 0) out_y[i] = (start + i) * sy;
      }
      return;
    }
    int64_t idx[kGemmMaxDims];
    int64_t ox = 0, oy = 0, rest = start;
    for (int d = nd - 1; d >= 0; --d) {
      idx[d] = rest % size[d];
      rest /= size[d];
      ox += idx[d] * stride[x][d];
      if (y >= 0) oy += idx[d] * stride[y][d];
    }
    for (int64_t i = 0; i < count; ++i) {
      out_x[i] = ox;
      if (y >= 0) out_y[i] = oy;
      for (int d = nd - 1; d >= 0; --d) {  // next multi-index
        ox += stride[x][d];
        if (y >= 0) oy += stride[y][d];
        if (++idx[d] < size[d]) break;
        ox -= size[d] * stride[x][d];
        if (y >= 0) oy -= size[d] * stride[y][d];
        idx[d] = 0;
      }
    }
  }
};

// ------------------------------------------------------------------ packing
// Packs `rows` (<= mr) rows of an operand into an mr-tall micro-panel: dst[p * mr + r] =
// convert(src[row_off[r] + k_off[p]]) for p < kc; rows beyond `rows` are zero.
template <class T> inline T convert_in(bool v) { return T(v ? 1 : 0); }
template <class T, class S> inline T convert_in(S v) {
  if constexpr (std::is_same_v<S, bf16>) return T(bf16_to_float(v));
  else return static_cast<T>(v);
}

using PackFn = void (*)(void* dst, int mr, int rows, int64_t kc, const char* base,
                        const int64_t* row_off, const int64_t* k_off);

#if defined(__SSE2__)
// Copies 4-byte (or 8-byte) elements of `rows` rows (at rp[r]) for k steps [p, p + 4) (or
// [p, p + 2)), contiguous in each row from offset ko, into dst[(p + i) * mr + r]: blocks of
// 4 x 4 (2 x 2) transposed in registers. Returns the rows done (a multiple of 4 / 2).
inline int transpose_steps(float* dst, int mr, int rows, const char* const* rp, int64_t ko) {
  int r = 0;
  for (; r + 4 <= rows; r += 4) {
    __m128 x0 = _mm_loadu_ps(reinterpret_cast<const float*>(rp[r] + ko));
    __m128 x1 = _mm_loadu_ps(reinterpret_cast<const float*>(rp[r + 1] + ko));
    __m128 x2 = _mm_loadu_ps(reinterpret_cast<const float*>(rp[r + 2] + ko));
    __m128 x3 = _mm_loadu_ps(reinterpret_cast<const float*>(rp[r + 3] + ko));
    _MM_TRANSPOSE4_PS(x0, x1, x2, x3);
    _mm_storeu_ps(dst + r, x0);
    _mm_storeu_ps(dst + mr + r, x1);
    _mm_storeu_ps(dst + 2 * mr + r, x2);
    _mm_storeu_ps(dst + 3 * mr + r, x3);
  }
  return r;
}
inline int transpose_steps(double* dst, int mr, int rows, const char* const* rp, int64_t ko) {
  int r = 0;
  for (; r + 2 <= rows; r += 2) {
    const __m128d x0 = _mm_loadu_pd(reinterpret_cast<const double*>(rp[r] + ko));
    const __m128d x1 = _mm_loadu_pd(reinterpret_cast<const double*>(rp[r + 1] + ko));
    _mm_storeu_pd(dst + r, _mm_unpacklo_pd(x0, x1));
    _mm_storeu_pd(dst + mr + r, _mm_unpackhi_pd(x0, x1));
  }
  return r;
}
#endif

// to[i] = src[2 * i], i < len (a stride-2 convolution's panel rows): four at a time from two
// loads and a shuffle, every load within src[0 .. 2 * len - 1) (the element after the last
// one read may lie past the operand's end). The last four (f32, len >= 5) are loaded one
// element early, from src[2 * len - 9], and taken from the odd lanes.
template <class T> inline void copy_every_second(T* to, const T* src, int len) {
  int i = 0;
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, float>) {
    for (; i + 5 <= len; i += 4) {
      const __m128 a = _mm_loadu_ps(src + 2 * i), b = _mm_loadu_ps(src + 2 * i + 4);
      _mm_storeu_ps(to + i, _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
    }
    if (len >= 5 && len - i == 4) {
      const __m128 a = _mm_loadu_ps(src + 2 * i - 1), b = _mm_loadu_ps(src + 2 * i + 3);
      _mm_storeu_ps(to + i, _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
      i = len;
    }
  } else if constexpr (std::is_same_v<T, double>) {
    for (; i + 3 <= len; i += 2) {
      const __m128d a = _mm_loadu_pd(src + 2 * i), b = _mm_loadu_pd(src + 2 * i + 2);
      _mm_storeu_pd(to + i, _mm_unpacklo_pd(a, b));
    }
  }
#endif
  for (; i < len; ++i) to[i] = src[2 * i];
}

template <class S, class T>
void pack_panel(void* dst_, int mr, int rows, int64_t kc, const char* base,
                const int64_t* row_off, const int64_t* k_off) {
  T* dst = static_cast<T*>(dst_);
  constexpr int kMaxRows = 64;
  const char* rp[kMaxRows];
  for (int r = 0; r < rows; ++r) rp[r] = base + row_off[r];
  constexpr int64_t es = sizeof(S);
  bool rows_unit = rows == mr;  // the panel's rows adjacent: each k step is contiguous
  for (int r = 1; rows_unit && r < rows; ++r) rows_unit = row_off[r] - row_off[r - 1] == es;
  bool k_unit = true;           // each row contiguous along k (a row-major A)
  for (int64_t p = 1; k_unit && p < kc; ++p) k_unit = k_off[p] - k_off[p - 1] == es;
  if (rows_unit) {  // column-major source: copy mr elements per k step
    for (int64_t p = 0; p < kc; ++p) {
      const S* src = reinterpret_cast<const S*>(rp[0] + k_off[p]);
      T* d = dst + p * mr;
      if constexpr (std::is_same_v<S, T>) {
        std::memcpy(d, src, mr * sizeof(T));
      } else {
        for (int r = 0; r < mr; ++r) d[r] = convert_in<T>(src[r]);
      }
    }
    return;
  }
  // Rows in a few runs of one element step (a panel of B crossing the end of an image row
  // in an implicit-GEMM convolution: columns 40..53 of one row, 0..17 of the next; every
  // second column for a stride-2 convolution): each run is copied as one piece per k step.
  const int64_t step = rows > 1 ? row_off[1] - row_off[0] : es;
  int run_start[kMaxRows + 1], runs = 0;
  for (int r = 0; r < rows; ++r)
    if (r == 0 || row_off[r] - row_off[r - 1] != step) run_start[runs++] = r;
  run_start[runs] = rows;
  // (rows further apart, an NHWC window's pixels, are contiguous along k instead: the
  // transposing path below serves them)
  if (runs * 4 <= rows && (step == es || step == 2 * es)) {
    const int64_t st = step / es;
    for (int64_t p = 0; p < kc; ++p) {
      const int64_t ko = k_off[p];
      T* d = dst + p * mr;
      for (int q = 0; q < runs; ++q) {
        const S* src = reinterpret_cast<const S*>(rp[run_start[q]] + ko);
        T* to = d + run_start[q];
        const int len = run_start[q + 1] - run_start[q];
        if constexpr (std::is_same_v<S, T>) {
          if (st == 1) {
            std::memcpy(to, src, len * sizeof(T));
          } else {
            copy_every_second(to, src, len);
          }
        } else {
          for (int i = 0; i < len; ++i) to[i] = convert_in<T>(src[i * st]);
        }
      }
      for (int r = rows; r < mr; ++r) d[r] = T(0);
    }
    return;
  }
#if defined(__SSE2__)
  // Rows contiguous along k, in runs (a row-major A; an NHWC convolution's window rows,
  // contiguous over (kw, channels) and broken at each kh): steps of 4 (f32) or 2 (f64) k
  // indices within a run are transposed in registers (46656 x 64 x 576 NHWC convolution
  // on a Zen 4 VM: 26.2 -> 19.9 ms); the rest element by element.
  if constexpr (std::is_same_v<S, T> && (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
    constexpr int64_t kStep = 16 / sizeof(T);
    int64_t p = 0;
    while (p < kc) {
      int64_t end = p + 1;  // the run [p, end)
      while (end < kc && k_off[end] - k_off[end - 1] == es) ++end;
      for (; p + kStep <= end; p += kStep) {
        T* d = dst + p * mr;
        const int done = transpose_steps(d, mr, rows, rp, k_off[p]);
        for (int64_t i = 0; i < kStep; ++i) {
          for (int r = done; r < rows; ++r)
            d[i * mr + r] = *reinterpret_cast<const S*>(rp[r] + k_off[p] + i * es);
          for (int r = rows; r < mr; ++r) d[i * mr + r] = T(0);
        }
      }
      for (; p < end; ++p) {
        T* d = dst + p * mr;
        for (int r = 0; r < rows; ++r) d[r] = *reinterpret_cast<const S*>(rp[r] + k_off[p]);
        for (int r = rows; r < mr; ++r) d[r] = T(0);
      }
    }
    return;
  }
#endif
  if (k_unit) {  // row-major source: stream each row, scatter into the panel (L1-resident)
    for (int r = 0; r < rows; ++r) {
      const S* src = reinterpret_cast<const S*>(rp[r] + k_off[0]);
      for (int64_t p = 0; p < kc; ++p) dst[p * mr + r] = convert_in<T>(src[p]);
    }
    for (int r = rows; r < mr; ++r)
      for (int64_t p = 0; p < kc; ++p) dst[p * mr + r] = T(0);
    return;
  }
  for (int64_t p = 0; p < kc; ++p) {
    const int64_t ko = k_off[p];
    T* d = dst + p * mr;
    for (int r = 0; r < rows; ++r) d[r] = convert_in<T>(*reinterpret_cast<const S*>(rp[r] + ko));
    for (int r = rows; r < mr; ++r) d[r] = T(0);
  }
}

// The pack function reading dtype `src` into type T, or nullptr.
template <class T>
PackFn pack_fn(int src) {
  PackFn fn = nullptr;
  visit_dtype(src, [&](auto s) {
    using S = decltype(s);
    if constexpr (std::is_same_v<S, T>) {
      fn = &pack_panel<S, T>;
    } else if constexpr (std::is_same_v<T, float>) {
      if constexpr (std::is_same_v<S, f16> || std::is_same_v<S, bf16>) fn = &pack_panel<S, T>;
    } else if constexpr (std::is_same_v<T, int32_t>) {
      if constexpr (std::is_same_v<S, bool> || std::is_same_v<S, int8_t> ||
                    std::is_same_v<S, uint8_t> || std::is_same_v<S, int16_t> ||
                    std::is_same_v<S, uint16_t> || std::is_same_v<S, uint32_t>)
        fn = &pack_panel<S, T>;
    } else if constexpr (std::is_same_v<T, int64_t>) {
      if constexpr (std::is_same_v<S, uint64_t>) fn = &pack_panel<S, T>;
    }
  });
  return fn;
}

// The rows_unit case of pack_grouped with SSE2 (x86-64's baseline) for G = 2 of 16-bit
// and G = 4 of 8-bit elements, a full panel of mr (a multiple of 16 / sizeof(S)) adjacent
// rows: per group, the G source runs (k indices q * G + g, zeros past kc) are interleaved
// so each row's G values land together. Returns false where it does not apply.
template <class S, int G, int kXor>
bool interleave_rows(S* dst, int mr, int64_t kc, const char* row0, const int64_t* k_off) {
  static_assert(kXor == 0 || sizeof(S) == 1, "the flip is per byte");
#if defined(__SSE2__)
  constexpr int kLanes = 16 / sizeof(S);
  if constexpr (G * sizeof(S) == 4) {
    if (mr % kLanes != 0) return false;
    const __m128i flip = _mm_set1_epi8(static_cast<char>(kXor));
    const int64_t groups = (kc + G - 1) / G;
    for (int64_t q = 0; q < groups; ++q) {
      const char* src[G];
      for (int g = 0; g < G; ++g) src[g] = q * G + g < kc ? row0 + k_off[q * G + g] : nullptr;
      auto load = [&](int g, int r) {
        return src[g] ? _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(
                                          src[g] + r * sizeof(S))),
                                      flip)
                      : _mm_setzero_si128();
      };
      char* d = reinterpret_cast<char*>(dst + q * mr * G);
      for (int r = 0; r < mr; r += kLanes, d += 16 * G) {
        __m128i* out = reinterpret_cast<__m128i*>(d);
        if constexpr (G == 2) {  // 8 rows of 2 x 16-bit
          const __m128i x0 = load(0, r), x1 = load(1, r);
          _mm_storeu_si128(out, _mm_unpacklo_epi16(x0, x1));
          _mm_storeu_si128(out + 1, _mm_unpackhi_epi16(x0, x1));
        } else {  // 16 rows of 4 bytes
          const __m128i x0 = load(0, r), x1 = load(1, r), x2 = load(2, r), x3 = load(3, r);
          const __m128i lo01 = _mm_unpacklo_epi8(x0, x1), lo23 = _mm_unpacklo_epi8(x2, x3);
          const __m128i hi01 = _mm_unpackhi_epi8(x0, x1), hi23 = _mm_unpackhi_epi8(x2, x3);
          _mm_storeu_si128(out, _mm_unpacklo_epi16(lo01, lo23));
          _mm_storeu_si128(out + 1, _mm_unpackhi_epi16(lo01, lo23));
          _mm_storeu_si128(out + 2, _mm_unpacklo_epi16(hi01, hi23));
          _mm_storeu_si128(out + 3, _mm_unpackhi_epi16(hi01, hi23));
        }
      }
    }
    return true;
  }
#endif
  (void)dst; (void)mr; (void)kc; (void)row0; (void)k_off;
  return false;
}

// k-grouped panels (gemm.h, GemmMicroKernel::group / a_group) of an operand's own
// elements S: dst[(q * mr + r) * G + g] = src(row r, k index q * G + g) ^ kXor, zero past
// `rows` and for k from kc up to a multiple of kPad. kCorr: the NR s32 corrections follow
// the panel (gemm_avx512dot.cpp), corr[r] = kCorrMult * sum_k src(r, k) (wrapping), so a
// kernel that read the other operand shifted by 128 recovers the true sums.
template <class S, int G, int kPad, int kXor, bool kCorr, int kCorrMult>
void pack_grouped(void* dst_, int mr, int rows, int64_t kc, const char* base,
                  const int64_t* row_off, const int64_t* k_off) {
  static_assert(kPad % G == 0);
  S* dst = static_cast<S*>(dst_);
  const int64_t groups = (kc + kPad - 1) / kPad * (kPad / G);
  constexpr int64_t es = sizeof(S);
  auto value = [&](int r, int64_t p) {
    return *reinterpret_cast<const S*>(base + row_off[r] + k_off[p]);
  };
  bool k_unit = true;  // each row contiguous along k (a row-major A, a column-major B)
  for (int64_t p = 1; k_unit && p < kc; ++p) k_unit = k_off[p] - k_off[p - 1] == es;
  bool rows_unit = rows > 1;  // the panel's rows adjacent (a row-major B)
  for (int r = 1; rows_unit && r < rows; ++r) rows_unit = row_off[r] - row_off[r - 1] == es;
  if (k_unit) {  // G consecutive elements per row and whole group, then the tail
    const int64_t whole = kc / G;
    for (int r = 0; r < rows; ++r) {
      const S* src = reinterpret_cast<const S*>(base + row_off[r] + k_off[0]);
      for (int64_t q = 0; q < whole; ++q)
        for (int g = 0; g < G; ++g)
          dst[(q * mr + r) * G + g] = static_cast<S>(src[q * G + g] ^ kXor);
      for (int64_t p = whole * G; p < kc; ++p)
        dst[(whole * mr + r) * G + p - whole * G] = static_cast<S>(src[p] ^ kXor);
    }
  } else if (rows_unit && rows == mr &&
             interleave_rows<S, G, kXor>(dst, mr, kc, base + row_off[0], k_off)) {
    // (packed with SSE2)
  } else if (rows_unit) {  // per k index, `rows` adjacent elements
    for (int64_t p = 0; p < kc; ++p) {
      const S* src = reinterpret_cast<const S*>(base + row_off[0] + k_off[p]);
      S* d = dst + (p / G) * mr * G + p % G;
      for (int r = 0; r < rows; ++r) d[r * G] = static_cast<S>(src[r] ^ kXor);
    }
  } else {
    for (int64_t p = 0; p < kc; ++p)
      for (int r = 0; r < rows; ++r)
        dst[((p / G) * mr + r) * G + p % G] = static_cast<S>(value(r, p) ^ kXor);
  }
  for (int64_t q = 0; q < groups; ++q)  // the padding: rows past `rows`, k past kc
    for (int r = 0; r < mr; ++r) {
      const int from = r >= rows ? 0 : static_cast<int>(std::clamp<int64_t>(kc - q * G, 0, G));
      for (int g = from; g < G; ++g) dst[(q * mr + r) * G + g] = S(0);
    }
  if constexpr (kCorr) {
    int32_t* corr = reinterpret_cast<int32_t*>(dst + groups * mr * G);
    for (int r = 0; r < mr; ++r) {
      uint32_t sum = 0;
      for (int64_t p = 0; r < rows && p < kc; ++p) sum += static_cast<uint32_t>(value(r, p));
      corr[r] = static_cast<int32_t>(sum * static_cast<uint32_t>(kCorrMult));
    }
  }
}

// The k-grouped plan of a product computed in `type` from dtypes da x db: its kernel, its
// panel packers and the bytes per B panel's corrections; kernel.fn == nullptr when the
// table has none for these operands. AMX first (when gemm_set_amx allows), then AVX-512's.
struct GroupedPlan {
  GemmMicroKernel kernel;
  PackFn pack_a = nullptr, pack_b = nullptr;
  int64_t in_size = 0, b_extra = 0;
};

std::atomic<bool> amx_allowed{true};

GroupedPlan grouped_plan(const GemmTable& t, int type, int da, int db) {
  GroupedPlan g;
  const bool a8 = da == kS8 || da == kU8, b8 = db == kS8 || db == kU8;
  const bool bf = da == kBF16 && db == kBF16;
  const bool amx = amx_allowed.load(std::memory_order_relaxed);
  if (amx && type == kGemmS32 && a8 && b8 && t.amx_int8[da == kU8][db == kU8].fn) {
    g.kernel = t.amx_int8[da == kU8][db == kU8];
    g.pack_a = &pack_grouped<uint8_t, 64, 64, 0, false, 0>;
    g.pack_b = &pack_grouped<uint8_t, 4, 64, 0, false, 0>;
    g.in_size = 1;
  } else if (amx && type == kGemmF32 && bf && t.amx_bf16.fn) {
    g.kernel = t.amx_bf16;
    g.pack_a = &pack_grouped<uint16_t, 32, 32, 0, false, 0>;
    g.pack_b = &pack_grouped<uint16_t, 2, 32, 0, false, 0>;
    g.in_size = 2;
  } else if (type == kGemmS32 && a8 && b8) {
    const bool as = da == kS8, bs = db == kS8;
    // The kernel's unsigned operand: A for (u8, s8) and (s8, s8) (A packed + 128); B for
    // (s8, u8) and (u8, u8) (A packed - 128). The corrections undo the shift.
    g.kernel = bs ? t.u8s8 : t.s8u8;
    if (as && bs) {  // sum (a + 128) b = ab + 128 sum b
      g.pack_a = &pack_grouped<uint8_t, 4, 4, 0x80, false, 0>;
      g.pack_b = &pack_grouped<int8_t, 4, 4, 0, true, -128>;
    } else if (!as && !bs) {  // sum (a - 128) b = ab - 128 sum b
      g.pack_a = &pack_grouped<uint8_t, 4, 4, 0x80, false, 0>;
      g.pack_b = &pack_grouped<uint8_t, 4, 4, 0, true, 128>;
    } else {
      g.pack_a = &pack_grouped<uint8_t, 4, 4, 0, false, 0>;
      g.pack_b = &pack_grouped<uint8_t, 4, 4, 0, true, 0>;
    }
    g.in_size = 1;
    g.b_extra = int64_t{4} * g.kernel.nr;
  } else if (type == kGemmF32 && bf) {
    g.kernel = t.bf16;
    g.pack_a = g.pack_b = &pack_grouped<uint16_t, 2, 2, 0, false, 0>;
    g.in_size = 2;
  }
  return g;
}

// K steps a B block is packed in at a time, across its panels (product()).
constexpr int64_t kPackChunk = 16;

// While a chunk of k steps of B panel j is packed, the same steps of panel j + kPackAhead
// are prefetched (into L2). The chunk's rows of a row-major B are 16 streams of 64 bytes
// per panel: too short for the hardware prefetchers, so each panel's reads waited on
// memory. 64 x 576 x 12544 f32 (B 29 MB) on a Zen 3 VM, 2 threads, GFLOP/s, processes
// alternating: none 64-90, 2 panels ahead 95-98, 4 ahead 95-106, 8 ahead 84-86
// (NumPy's OpenBLAS 96-102); 2048^3 and 512^3 f32 / f64 unchanged within noise.
constexpr int64_t kPackAhead = 4;

// Prefetches (into L2) the first and last of `cols` columns at col_off of an operand
// for the k offsets k_off[0 .. kc): what pack_panel will read of a panel, a line or two
// per k step.
inline void prefetch_panel(const char* base, const int64_t* col_off, int cols,
                           const int64_t* k_off, int64_t kc) {
  for (int64_t p = 0; p < kc; ++p) {
    __builtin_prefetch(base + col_off[0] + k_off[p], 0, 2);
    __builtin_prefetch(base + col_off[cols - 1] + k_off[p], 0, 2);
  }
}

// ------------------------------------------------------------------ aligned buffers
struct Buffer {
  void* p = nullptr;
  int64_t n = 0;
  Buffer() = default;
  explicit Buffer(int64_t bytes) : n(std::max<int64_t>(bytes, 64)) {
    p = aligned_alloc64(n);
    if (!p) throw std::bad_alloc();
  }
  Buffer(Buffer&& o) noexcept : p(o.p), n(o.n) { o.p = nullptr; }
  Buffer& operator=(Buffer&& o) noexcept {
    std::swap(p, o.p);
    std::swap(n, o.n);
    return *this;
  }
  ~Buffer() {
    if (p) aligned_free(p, n);
  }
};

// Items [lo, hi) of n for thread `tid` of `nt` (static split).
inline void split(int64_t n, int tid, int nt, int64_t* lo, int64_t* hi) {
  *lo = n * tid / nt;
  *hi = n * (tid + 1) / nt;
}

inline void team_barrier(bool team) {
  if (team) {
#pragma omp barrier
  }
}

// acc + a * b (complex written out, as the micro-kernels do). The driver's own copy of
// gemm_kernels.h's madd: that header is compiled once per ISA namespace, and the driver
// (default flags) must not call an instantiation built with an ISA's flags.
template <class T> inline T madd(T acc, T a, T b) { return acc + a * b; }
template <class F> inline std::complex<F> madd(std::complex<F> acc, std::complex<F> a,
                                               std::complex<F> b) {
  return {acc.real() + (a.real() * b.real() - a.imag() * b.imag()),
          acc.imag() + (a.real() * b.imag() + a.imag() * b.real())};
}

// ------------------------------------------------------------------ the typed driver
template <class T>
struct Driver {
  static constexpr int kMaxTile = 1024;  // elements of the local edge tile
  static constexpr int kMaxK = kGemmMaxKc;  // KC's upper bound (gemm_blocking)

  const GemmProblem& p;
  DimList batch, m, n, k;
  GemmMicroKernel uk;  // the table's kernel, or its narrow one for n <= its nr
  const GemmTable& table;
  int type;
  PackFn pack_a, pack_b;
  GemmBlocking blk;
  bool c_direct = false;  // full tiles store straight into C
  int64_t rs_c = 0;       // C's row stride in elements when direct
  // With a k-grouped kernel (gemm.h) on the packed path: panels of the operands' own
  // elements (in_size bytes each), B's followed by b_extra bytes of corrections.
  int64_t in_size = sizeof(T), b_extra = 0;

  Driver(const GemmProblem& prob, const GemmTable& t, int ty)
      : p(prob), uk(t.kernel[ty]), table(t), type(ty) {
    batch.set(p.batch, p.nbatch);
    m.set(p.m, p.nm);
    n.set(p.n, p.nn);
    k.set(p.k, p.nk);
    const GemmMicroKernel& narrow = t.narrow[ty];
    if (narrow.fn && n.total <= narrow.nr) uk = narrow;
    // The flat kernel where it pads the product at least 4% less (64 x N: 8 tiles of 8 rows
    // instead of 6 of 12; the interior GEMM of a 16x64x56x56 3x3 NCHW convolution on a
    // Zen 4 VM: 21.1 -> 18.9 ms)
    const GemmMicroKernel& flat = t.flat[ty];
    auto padded = [&](const GemmMicroKernel& q) {
      return static_cast<double>(round_up(m.total, q.mr)) * round_up(n.total, q.nr);
    };
    if (flat.fn && uk.fn == t.kernel[ty].fn && padded(flat) < 0.96 * padded(uk)) uk = flat;
    pack_a = pack_fn<T>(p.dtype_a);
    pack_b = pack_fn<T>(p.dtype_b);
    if (!pack_a || !pack_b)
      throw std::invalid_argument(std::string("gemm: no kernel computing in this type reads ") +
                                  dtype_name(pack_a ? p.dtype_b : p.dtype_a));
    // int8 / bf16 operands take a k-grouped kernel where the table has one, unless each
    // product is tiny (its padded panels and the tile setup would cost more): so run()'s
    // small(), which packs whole operands in the plain layout, never sees a grouped kernel
    const GroupedPlan plan = grouped_plan(t, ty, p.dtype_a, p.dtype_b);
    if (plan.kernel.fn && static_cast<double>(m.total) * n.total * k.total > kGemmSmallMacs) {
      uk = plan.kernel;
      pack_a = plan.pack_a;
      pack_b = plan.pack_b;
      in_size = plan.in_size;
      b_extra = plan.b_extra;
    }
    if (uk.mr * uk.nr > kMaxTile || uk.mr > 64 || uk.nr > 64)
      throw std::invalid_argument("gemm: micro-kernel tile too large");
    blk = gemm_blocking(uk, static_cast<int>(in_size));
    blk.kc = std::max<int64_t>(uk.a_group, blk.kc / uk.a_group * uk.a_group);

    int64_t sm = 0, sn = 0;
    if (m.affine(2, &sm) && n.affine(2, &sn) && (n.total <= 1 || sn == int64_t{sizeof(T)}) &&
        sm % int64_t{sizeof(T)} == 0) {
      c_direct = true;
      rs_c = sm / int64_t{sizeof(T)};
    }
  }

  // Matrix-vector eligibility: n == 1, both operands of type T, single affine k and m.
  bool gemv_ok(int64_t* a_m, int64_t* a_k, int64_t* b_k, int64_t* c_m) const {
    if (n.total != 1 || !table.dot[type] || !table.axpy[type]) return false;
    if (p.dtype_a != TypeInfo<T>::code || p.dtype_b != TypeInfo<T>::code) return false;
    return m.affine(0, a_m) && m.affine(2, c_m) && k.affine(0, a_k) && k.affine(1, b_k) &&
           *c_m % int64_t{sizeof(T)} == 0;
  }

  // Bytes of one packed micro-panel of A / of B over kc k indices (64-byte multiples).
  int64_t a_panel_bytes(int64_t kc) const {
    return round_up(round_up(kc, uk.a_group) * uk.mr * in_size, 64);
  }
  int64_t b_panel_bytes(int64_t kc) const {
    return round_up(round_up(kc, uk.a_group) * uk.nr * in_size + b_extra, 64);
  }
  // Bytes of product()'s packing buffers for A / B (its block sizes).
  int64_t a_pack_bytes() const {
    return balanced(m.total, blk.mc, uk.mr) / uk.mr * a_panel_bytes(std::min(blk.kc, k.total));
  }
  int64_t b_pack_bytes() const {
    return balanced(n.total, blk.nc, uk.nr) / uk.nr * b_panel_bytes(std::min(blk.kc, k.total));
  }

  // product()'s k block: K in equal blocks of at most KC (576 with KC = 512 runs as
  // 2 x 288, not 512 + 64: a whole pass over C for a ninth of the work), a multiple of 8
  // and of the kernel's k group.
  int64_t k_block() const { return balanced(k.total, blk.kc, std::max(8, uk.a_group)); }

  // The panels of A (is_b false) or B packed whole, for every k block: panel ip of k
  // block q at dst + (q * panels + ip) * (a or b)_panel_bytes(k_block()).
  void pack_all(bool is_b, const char* src, char* dst) const {
    const int tile = is_b ? uk.nr : uk.mr;
    const DimList& rows_of = is_b ? n : m;
    const int64_t R = rows_of.total, K = k.total, KCb = k_block();
    const int64_t panels = (R + tile - 1) / tile;
    const int64_t step = is_b ? b_panel_bytes(KCb) : a_panel_bytes(KCb);
    int64_t koff[kMaxK], roff[64];
    for (int64_t pc = 0; pc < K; pc += KCb) {
      const int64_t kc = std::min(KCb, K - pc);
      k.offsets(pc, kc, is_b ? 1 : 0, koff);
      for (int64_t ip = 0; ip < panels; ++ip) {
        const int rows = static_cast<int>(std::min<int64_t>(tile, R - ip * tile));
        rows_of.offsets(ip * tile, rows, is_b ? 1 : 0, roff);
        (is_b ? pack_b : pack_a)(dst + (pc / KCb * panels + ip) * step, tile, rows, kc, src,
                                 roff, koff);
      }
    }
  }

  // Rows (is_b false) or columns per block of the tall / wide paths, so that a thread's
  // packed block (kc x that many) stays in half of L2.
  int64_t l2_block(bool is_b) const {
    const int64_t bytes = is_b ? b_panel_bytes(k_block()) : a_panel_bytes(k_block());
    return std::max<int64_t>(1, cache_sizes().l2 / 2 / bytes) * (is_b ? uk.nr : uk.mr);
  }

  // Short, wide products (M within one MC block, many columns: an NCHW implicit-GEMM
  // convolution, 64 output channels x 46656 output pixels x 576) and tall, narrow ones
  // (N within one NC block, many rows: the NHWC one, 46656 x 64 x 576). BLIS's loops
  // would pack a long B (or A) block that leaves L2 and is then read by only M / MR (or
  // N / NR) micro-panels, or that both threads pack into and read across cores with a
  // barrier per block: its packing stalls. Here the short operand is packed once, and
  // each thread takes its own blocks of the long one, packing them into its own L2.
  // Returns 0 (no), 1 (wide: B split), 2 (tall: A split).
  int split_path(int nt) const {
    const int64_t M = m.total, N = n.total;
    const int64_t threads = std::max(nt, 1);
    if (M <= blk.mc && N >= 2 * threads * l2_block(true)) return 1;
    if (N <= blk.nc && N <= 4 * uk.nr && M >= 2 * threads * l2_block(false)) return 2;
    return 0;
  }

  void run_split(const std::vector<int64_t>& boff_a, const std::vector<int64_t>& boff_b,
                 const std::vector<int64_t>& boff_c, int nt, bool wide) const {
    const int64_t KCb = k_block(), kblocks = (k.total + KCb - 1) / KCb;
    const int64_t long_total = wide ? n.total : m.total, block = l2_block(wide);
    const int64_t short_panels = wide ? (m.total + uk.mr - 1) / uk.mr
                                      : (n.total + uk.nr - 1) / uk.nr;
    const int64_t blocks = (long_total + block - 1) / block;
    Buffer shared(kblocks * short_panels * (wide ? a_panel_bytes(KCb) : b_panel_bytes(KCb)));
    std::vector<Buffer> own;
    for (int t = 0; t < nt; ++t)
      own.emplace_back(block / (wide ? uk.nr : uk.mr) *
                       (wide ? b_panel_bytes(KCb) : a_panel_bytes(KCb)));
    for (int64_t bi = 0; bi < batch.total; ++bi) {
      const char* a = p.a + boff_a[bi];
      const char* b = p.b + boff_b[bi];
      char* packed = static_cast<char*>(shared.p);
      pack_all(!wide, wide ? a : b, packed);
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
      for (int64_t jb = 0; jb < blocks; ++jb) {
        Part part;
        const int64_t lo = jb * block, hi = std::min(long_total, lo + block);
        char* mine = static_cast<char*>(own[omp_get_thread_num()].p);
        if (wide) {
          part.n_lo = lo, part.n_hi = hi, part.a_packed = packed;
        } else {
          part.m_lo = lo, part.m_hi = hi, part.b_packed = packed;
        }
        product(a, b, p.c + boff_c[bi], mine, mine, 0, 1, false, part);
      }
    }
  }

  void zero_c(char* c) const {
    std::vector<int64_t> roff(m.total), coff(n.total);
    m.offsets(0, m.total, 2, roff.data());
    n.offsets(0, n.total, 2, coff.data());
    for (int64_t i = 0; i < m.total; ++i)
      for (int64_t j = 0; j < n.total; ++j) *reinterpret_cast<T*>(c + roff[i] + coff[j]) = T(0);
  }

  // A share of one product for product(): rows [m_lo, m_hi) and columns [n_lo, n_hi)
  // (hi < 0: to the end). a_packed / b_packed: that operand packed whole by pack_all (then
  // its rows fit one MC / NC block).
  struct Part {
    int64_t m_lo = 0, m_hi = -1, n_lo = 0, n_hi = -1;
    const char* a_packed = nullptr;
    const char* b_packed = nullptr;
  };

  // One product (one batch item), or a Part of it, on a team of nt threads (team = inside
  // a parallel region with every thread calling) or alone. apack / bpack: the (shared,
  // for a team) buffers of the operands not packed already.
  void product(const char* a, const char* b, char* c, char* apack, char* bpack, int tid,
               int nt, bool team, const Part& part = Part()) const {
    const int MR = uk.mr, NR = uk.nr;
    const int64_t M = part.m_hi < 0 ? m.total : part.m_hi;
    const int64_t N = part.n_hi < 0 ? n.total : part.n_hi, K = k.total;
    int64_t ka[kMaxK], kb[kMaxK];
    int64_t row_a[64], row_c[64], col_b[64], col_c[64];
    std::vector<int64_t> b_cols;   // B's column offsets of this thread's panels
    // Blocks of equal size (a multiple of the tile) rather than full ones and a sliver:
    // 1024 rows with MC = 510 run as 2 x 512, not 510 + 510 + 4. K likewise (k_block).
    const int64_t MCb = part.a_packed ? M : balanced(M - part.m_lo, blk.mc, MR);
    const int64_t NCb = part.b_packed ? N : balanced(N - part.n_lo, blk.nc, NR);
    const int64_t KCb = k_block();
    const int64_t a_step = part.a_packed ? a_panel_bytes(KCb) : 0;
    const int64_t b_step = part.b_packed ? b_panel_bytes(KCb) : 0;
    if (uk.begin) uk.begin();
    for (int64_t jc = part.n_lo; jc < N; jc += NCb) {
      const int64_t nc = std::min(NCb, N - jc);
      const int64_t npanels = (nc + NR - 1) / NR;
      for (int64_t pc = 0; pc < K; pc += KCb) {
        const int64_t kc = std::min(KCb, K - pc);
        k.offsets(pc, kc, 0, ka, 1, kb);
        int64_t lo, hi;
        const char* b_block = bpack;
        int64_t b_panel = b_panel_bytes(kc);
        if (part.b_packed) {
          b_block = part.b_packed + pc / KCb * npanels * b_step;
          b_panel = b_step;
        } else {
          split(npanels, tid, nt, &lo, &hi);
          // k steps in chunks across all of this thread's panels, so B is read a few rows
          // at a time along their length (streams the prefetcher follows), not one
          // panel's short piece of kc rows after another (64 x 576 x 12544 f32, one
          // thread, on a Zen 4 VM: 14.6 -> 11.5 ms); k-grouped panels
          // (and their corrections) are packed whole
          const int64_t chunk = uk.group == 1 && b_extra == 0 ? kPackChunk : kc;
          if (hi > lo) {
            const int64_t cols_lo = jc + lo * NR, cols = std::min(nc, hi * NR) - lo * NR;
            b_cols.resize(static_cast<size_t>(cols));
            n.offsets(cols_lo, cols, 1, b_cols.data());
          }
          for (int64_t p0 = 0; p0 < kc; p0 += chunk) {
            const int64_t pk = std::min(chunk, kc - p0);
            for (int64_t jp = lo; jp < hi; ++jp) {
              const int cols = static_cast<int>(std::min<int64_t>(NR, nc - jp * NR));
              const int64_t ja = jp + kPackAhead;
              if (ja < hi)
                prefetch_panel(b, b_cols.data() + (ja - lo) * NR,
                               static_cast<int>(std::min<int64_t>(NR, nc - ja * NR)), kb + p0, pk);
              pack_b(bpack + jp * b_panel + p0 * NR * in_size, NR, cols, pk, b,
                     b_cols.data() + (jp - lo) * NR, kb + p0);
            }
          }
          team_barrier(team);
        }
        for (int64_t ic = part.m_lo; ic < M; ic += MCb) {
          const int64_t mc = std::min(MCb, M - ic);
          const int64_t mpanels = (mc + MR - 1) / MR;
          const char* a_block = apack;
          int64_t a_panel = a_panel_bytes(kc);
          if (part.a_packed) {
            a_block = part.a_packed + pc / KCb * mpanels * a_step;
            a_panel = a_step;
          } else {
            split(mpanels, tid, nt, &lo, &hi);
            for (int64_t ip = lo; ip < hi; ++ip) {
              const int rows = static_cast<int>(std::min<int64_t>(MR, mc - ip * MR));
              m.offsets(ic + ip * MR, rows, 0, row_a);
              pack_a(const_cast<char*>(a_block) + ip * a_panel, MR, rows, kc, a, row_a, ka);
            }
            team_barrier(team);
          }
          // The tiles (jp outer, ip inner), split among the team.
          split(npanels * mpanels, tid, nt, &lo, &hi);
          int64_t cur_jp = -1;
          int cols = 0;
          bool cols_unit = false;  // this column panel's C offsets contiguous
          int run_lo[65], runs = 0;  // its runs of contiguous columns [run_lo[q], run_lo[q+1])
          for (int64_t it = lo; it < hi; ++it) {
            const int64_t jp = it / mpanels, ip = it % mpanels;
            if (jp != cur_jp) {
              cur_jp = jp;
              cols = static_cast<int>(std::min<int64_t>(NR, nc - jp * NR));
              n.offsets(jc + jp * NR, cols, 2, col_c);
              runs = 0;
              for (int j = 0; j < cols; ++j)
                if (j == 0 || col_c[j] - col_c[j - 1] != int64_t{sizeof(T)}) run_lo[runs++] = j;
              run_lo[runs] = cols;
              cols_unit = cols == NR && runs == 1;
            }
            const int rows = static_cast<int>(std::min<int64_t>(MR, mc - ip * MR));
            const char* ap = a_block + ip * a_panel;
            const char* bp = b_block + jp * b_panel;
            if (c_direct && rows == MR && cols == NR) {  // one offset serves
              m.offsets(ic + ip * MR, 1, 2, row_c);
              uk.fn(kc, ap, bp, c + row_c[0] + col_c[0], rs_c, 1, pc > 0 || p.accumulate);
              continue;
            }
            m.offsets(ic + ip * MR, rows, 2, row_c);
            if (cols_unit && rows == MR) {  // C's dims not affine, but this tile is
              // (an implicit-GEMM convolution's output rows): rows evenly spaced
              const int64_t rs = MR > 1 ? row_c[1] - row_c[0] : 0;
              bool even = rs % int64_t{sizeof(T)} == 0;
              for (int r = 2; even && r < MR; ++r) even = row_c[r] - row_c[r - 1] == rs;
              if (even) {
                uk.fn(kc, ap, bp, c + row_c[0] + col_c[0], rs / int64_t{sizeof(T)}, 1,
                      pc > 0 || p.accumulate);
                continue;
              }
            }
            alignas(64) T tile[kMaxTile];
            uk.fn(kc, ap, bp, tile, NR, 1, false);
            for (int r = 0; r < rows; ++r)
              for (int q = 0; q < runs; ++q) {  // (a convolution's tile spans two rows)
                T* d = reinterpret_cast<T*>(c + row_c[r] + col_c[run_lo[q]]);
                const T* v = tile + r * NR + run_lo[q];
                const int len = run_lo[q + 1] - run_lo[q];
                if (pc > 0 || p.accumulate) {
                  for (int j = 0; j < len; ++j) d[j] = d[j] + v[j];
                } else {
                  for (int j = 0; j < len; ++j) d[j] = v[j];
                }
              }
          }
          team_barrier(team);
        }
      }
    }
    if (uk.end) uk.end();
  }

  // Direct-path eligibility (see gemm.h): one type, B's n and C's n unit-stride, one
  // affine k dim and one affine m dim.
  // copy_b: B's rows need not be contiguous when B has at most kGemmDirectCopyB elements
  // (each product then copies its B into contiguous rows first: einsum('bij,bkj->bik')).
  bool direct_ok(int64_t* a_m, int64_t* a_k, int64_t* b_k, int64_t* b_n, bool copy_b) const {
    if (!uk.direct || !c_direct) return false;
    if (p.dtype_a != TypeInfo<T>::code || p.dtype_b != TypeInfo<T>::code) return false;
    const int64_t es = sizeof(T);
    if (!(m.affine(0, a_m) && k.affine(0, a_k) && k.affine(1, b_k) && n.affine(1, b_n) &&
          *a_m % es == 0 && *a_k % es == 0 && *b_k % es == 0 && *b_n % es == 0))
      return false;
    return *b_n == es || (copy_b && k.total * n.total <= kGemmDirectCopyB);
  }

  // One product on the direct path (strides in bytes from direct_ok).
  void product_direct(const char* a, const char* b, char* c, int64_t a_m, int64_t a_k,
                      int64_t b_k, int64_t b_n, int64_t tile_lo = 0,
                      int64_t tile_hi = -1) const {
    const int MR = uk.mr, NR = uk.nr;
    const int64_t M = m.total, N = n.total, K = k.total, es = sizeof(T);
    const int64_t a_rs = a_m / es, a_cs = a_k / es;
    int64_t b_rs = b_k / es;
    alignas(64) T b_rows[kGemmDirectCopyB];
    if (b_n != es && b_k == es) {  // B's rows made contiguous: b_rows[q * N + j]
      // B stored along k (einsum 'bij,bkj->bik', x @ y.T): the relayout family's
      // in-register transpose (4096 x 32^3 f32 einsum on a Zen 4 VM: 5.8 -> 2.3 ms)
      transpose_panel(active_isa(), static_cast<int>(es))(
          b, b_n, reinterpret_cast<char*>(b_rows), N * es, K, N, false);
      b = reinterpret_cast<const char*>(b_rows);
      b_rs = N;
    } else if (b_n != es) {
      for (int64_t q = 0; q < K; ++q)
        for (int64_t j = 0; j < N; ++j)
          b_rows[q * N + j] = *reinterpret_cast<const T*>(b + q * b_k + j * b_n);
      b = reinterpret_cast<const char*>(b_rows);
      b_rs = N;
    }
    int64_t c_m0 = 0, c_n0 = 0;
    m.offsets(0, 1, 2, &c_m0);
    n.offsets(0, 1, 2, &c_n0);
    char* c0 = c + c_m0 + c_n0;
    // Tiles [tile_lo, tile_hi) in column-tile order (all by default: a thread's share of
    // one product): the row tiles of one column of tiles read the same B panel in turn.
    const int64_t row_tiles = (M + MR - 1) / MR, col_tiles = (N + NR - 1) / NR;
    const GemmDirectKernelFn* direct_rows =
        uk.direct == table.kernel[type].direct ? table.direct_rows[type] : nullptr;
    const int64_t last = tile_hi < 0 ? row_tiles * col_tiles : tile_hi;
    for (int64_t ti = tile_lo; ti < last; ++ti) {
      const int64_t i = ti % row_tiles * MR, j = ti / row_tiles * NR;
      const int rows = static_cast<int>(std::min<int64_t>(MR, M - i));
      {
        const int cols = static_cast<int>(std::min<int64_t>(NR, N - j));
        T* ct = reinterpret_cast<T*>(c0) + i * rs_c + j;
        const T* at = reinterpret_cast<const T*>(a) + i * a_rs;
        const T* bt = reinterpret_cast<const T*>(b) + j;
        if (rows == MR && cols == NR) {
          uk.direct(K, at, a_rs, a_cs, bt, b_rs, ct, rs_c, false);
          continue;
        }
        if (cols == NR && direct_rows && direct_rows[rows]) {  // the last rows, in place
          direct_rows[rows](K, at, a_rs, a_cs, bt, b_rs, ct, rs_c, false);
          continue;
        }
        // An edge tile: pack its panels (zero padded) in KC steps, multiply into a tile.
        alignas(64) T tile[kMaxTile], acc[kMaxTile];
        alignas(64) T ap[2048], bp[2048];
        const int64_t kstep = std::max<int64_t>(1, 2048 / std::max(MR, NR));
        for (int64_t p0 = 0; p0 < K; p0 += kstep) {
          const int64_t kc = std::min(kstep, K - p0);
          for (int64_t q = 0; q < kc; ++q) {
            for (int r = 0; r < MR; ++r)
              ap[q * MR + r] = r < rows ? at[r * a_rs + (p0 + q) * a_cs] : T(0);
            for (int r = 0; r < NR; ++r) bp[q * NR + r] = r < cols ? bt[(p0 + q) * b_rs + r] : T(0);
          }
          uk.fn(kc, ap, bp, p0 == 0 ? acc : tile, NR, 1, false);
          if (p0 > 0)
            for (int e = 0; e < MR * NR; ++e) acc[e] = acc[e] + tile[e];
        }
        for (int r = 0; r < rows; ++r)
          for (int q = 0; q < cols; ++q) ct[r * rs_c + q] = acc[r * NR + q];
      }
    }
  }

  // y = A x for rows [lo, hi) (gemv_ok's strides); xbuf: x when B's k stride is not unit.
  // lo is a multiple of 4 (run_gemv): contiguous rows go four at a time from lo (dot4),
  // so a row's rounding depends on its index only, not on how rows were split.
  void gemv_rows(const char* a, const T* x, char* c, int64_t lo, int64_t hi, int64_t a_m,
                 int64_t a_k, int64_t c_m) const {
    const int64_t K = k.total;
    if (a_k == int64_t{sizeof(T)} || K <= 1) {  // each y[i] a contiguous dot product
      int64_t i = lo;
      if (table.dot4[type] && a_m % int64_t{sizeof(T)} == 0) {
        T out[4];
        for (; i + 4 <= hi; i += 4) {
          table.dot4[type](K, a + i * a_m, a_m / int64_t{sizeof(T)}, x, out);
          for (int r = 0; r < 4; ++r) *reinterpret_cast<T*>(c + (i + r) * c_m) = out[r];
        }
      }
      for (; i < hi; ++i) table.dot[type](K, a + i * a_m, x, c + i * c_m);
      return;
    }
    // Columns of A are contiguous: y += A[:, p] * x[p] over chunks of rows kept in L1/L2.
    constexpr int64_t kChunk = 4096;
    alignas(64) T y[kChunk];
    for (int64_t i0 = lo; i0 < hi; i0 += kChunk) {
      const int64_t rows = std::min(kChunk, hi - i0);
      std::fill(y, y + rows, T(0));
      for (int64_t pk = 0; pk < K; ++pk) table.axpy[type](rows, x + pk, a + i0 * a_m + pk * a_k, y);
      for (int64_t i = 0; i < rows; ++i) *reinterpret_cast<T*>(c + (i0 + i) * c_m) = y[i];
    }
  }

  // A small C over a long k (64 x 4096 x 64, a Gram matrix): the packed loops would pack
  // and synchronize once per KC step for little work each. Instead k is cut into
  // kGemmKSplitParts fixed parts, each a whole product on its own thread (no barriers)
  // into C or a row-major temporary, added in order: the same bits for any thread count.
  // Several k dims (a convolution's weight gradient sums over batch and pixels) split
  // their outermost dim.
  bool ksplit_ok() const {
    return batch.total == 1 && m.nd <= 1 && n.nd <= 1 && k.nd >= 1 &&
           k.size[0] >= kGemmKSplitParts && m.total * n.total <= kGemmKSplitMaxC &&
           k.total >= kGemmKSplitMinK;
  }

  void run_ksplit(int nt) const {
    const int64_t M = m.total, N = n.total, K = k.total, es = sizeof(T);
    constexpr int parts = kGemmKSplitParts;
    std::vector<T> temp((parts - 1) * M * N);
    std::vector<Buffer> apacks, bpacks;
    for (int q = 0; q < parts; ++q) {
      apacks.emplace_back(a_pack_bytes());
      bpacks.emplace_back(b_pack_bytes());
    }
    parallel_for(std::min(nt, parts), parts, [&](int64_t q) {
      Driver part = *this;  // the same product over k's dim 0 in [k0, k1), into C or temp
      const int64_t outer = k.size[0], inner = K / outer;
      const int64_t k0 = outer * q / parts, k1 = outer * (q + 1) / parts;
      part.k.size[0] = k1 - k0;
      part.k.total = (k1 - k0) * inner;
      char* c = p.c;
      if (q > 0) {  // a row-major M x N temporary
        c = reinterpret_cast<char*>(temp.data() + (q - 1) * M * N);
        if (part.m.nd) part.m.stride[2][0] = N * es;
        if (part.n.nd) part.n.stride[2][0] = es;
        part.c_direct = true;
        part.rs_c = N;
      }
      const char* a = p.a + k0 * k.stride[0][0];
      const char* b = p.b + k0 * k.stride[1][0];
      int64_t d_am, d_ak, d_bk, d_bn;
      if (part.direct_ok(&d_am, &d_ak, &d_bk, &d_bn, false)) {
        // A and B read in place: a row-major A would cost more to pack (one element of
        // each of MR rows per k step) than the 64 x 64 x KC product it feeds
        part.product_direct(a, b, c, d_am, d_ak, d_bk, d_bn);
        return;
      }
      part.product(a, b, c, static_cast<char*>(apacks[q].p), static_cast<char*>(bpacks[q].p),
                   0, 1, false);
    });
    int64_t roff[1] = {0}, coff[1] = {0};
    for (int64_t i = 0; i < M; ++i) {
      m.offsets(i, 1, 2, roff);
      for (int64_t j = 0; j < N; ++j) {
        n.offsets(j, 1, 2, coff);
        T& d = *reinterpret_cast<T*>(p.c + roff[0] + coff[0]);
        T sum = d;
        for (int q = 1; q < parts; ++q) sum = sum + temp[(q - 1) * M * N + i * N + j];
        d = sum;
      }
    }
  }

  // Batch item bi's offsets in A, B and C.
  void batch_offsets(int64_t bi, int64_t* oa, int64_t* ob, int64_t* oc) const {
    batch.offsets(bi, 1, 0, oa, 1, ob);
    batch.offsets(bi, 1, 2, oc);
  }

  // Tiny products: both operands converted into local panels once, then plain loops.
  void small() const {
    const int64_t M = m.total, N = n.total, K = k.total;
    int64_t ra[kGemmSmallDim], rc[kGemmSmallDim], cb[kGemmSmallDim], cc[kGemmSmallDim],
        ka[kGemmSmallDim], kb[kGemmSmallDim];
    m.offsets(0, M, 0, ra, 2, rc);
    n.offsets(0, N, 1, cb, 2, cc);
    k.offsets(0, K, 0, ka, 1, kb);
    T ap[kGemmSmallPanel], bp[kGemmSmallPanel], row[kGemmSmallDim];
    for (int64_t bi = 0; bi < batch.total; ++bi) {
      int64_t oa, ob, oc;
      batch_offsets(bi, &oa, &ob, &oc);
      pack_a(ap, static_cast<int>(M), static_cast<int>(M), K, p.a + oa, ra, ka);  // ap[q*M+i]
      pack_b(bp, static_cast<int>(N), static_cast<int>(N), K, p.b + ob, cb, kb);  // bp[q*N+j]
      for (int64_t i = 0; i < M; ++i) {
        std::fill(row, row + N, T(0));
        for (int64_t q = 0; q < K; ++q) {
          const T av = ap[q * M + i];
          for (int64_t j = 0; j < N; ++j) row[j] = madd(row[j], av, bp[q * N + j]);
        }
        for (int64_t j = 0; j < N; ++j) *reinterpret_cast<T*>(p.c + oc + rc[i] + cc[j]) = row[j];
      }
    }
  }

  void run() const {
    const int64_t M = m.total, N = n.total, K = k.total, B = batch.total;
    if (M == 0 || N == 0 || B == 0 || (K == 0 && p.accumulate)) return;
    if (K == 0) {
      for (int64_t bi = 0; bi < B; ++bi) {
        int64_t oa, ob, oc;
        batch_offsets(bi, &oa, &ob, &oc);
        zero_c(p.c + oc);
      }
      return;
    }
    const double macs = static_cast<double>(M) * N * K * B;
    const int64_t per_product = M * N * K;
    int64_t d_am, d_ak, d_bk, d_bn;
    // Direct: small products, or few columns whose B stays in L2 while A streams through
    // in place (4096 x 4096 x 8), or few rows whose A stays in L2 (8 x 4096 x 4096).
    const int64_t es = sizeof(T);
    const bool skinny = (N <= uk.nr && K * N * es <= cache_sizes().l2 / 2) ||
                        (M <= 2 * uk.mr && M * K * es <= cache_sizes().l2 / 2);
    // Products up to kGemmDirectL2Macs whose B sits in half of L2 skip packing too: on a
    // Zen 4 VM (1 MiB L2) 128^3 f32 ran 31.6 -> 21.7 us (NumPy 29.8), 256^3 192 -> 157 us.
    const bool in_l2 = per_product <= kGemmDirectL2Macs && K * N * es <= cache_sizes().l2 / 2;
    // Matrix-vector products take the row-dot / axpy kernels at every size. (The direct
    // path took those of at most kGemmDirectMacs: one column in a tile of 8, packed one
    // element at a time; on a Zen 3 VM 512^2 f32 @ x ran 284 us, NumPy 24 us.)
    int64_t a_m, a_k, b_k, c_m;
    const bool gemv = !p.accumulate && gemv_ok(&a_m, &a_k, &b_k, &c_m) &&
                      (a_k == es || a_m == es || K <= 1);
    // (accumulate: the packed paths only, which keep C through `pc > 0 || accumulate`)
    const bool direct = !gemv && !p.accumulate &&
                        (per_product <= kGemmDirectMacs || skinny || in_l2) &&
                        direct_ok(&d_am, &d_ak, &d_bk, &d_bn, per_product <= kGemmDirectMacs);
    if (!direct && !gemv && !p.accumulate && macs <= kGemmSmallMacs && M <= kGemmSmallDim &&
        N <= kGemmSmallDim && K <= kGemmSmallDim && M * K <= kGemmSmallPanel &&
        N * K <= kGemmSmallPanel) {
      small();
      return;
    }
    int nt = get_num_threads();
    if (macs < static_cast<double>(kGemmParallelMinFlops)) nt = 1;
    std::vector<int64_t> boff_a(B), boff_b(B), boff_c(B);
    batch.offsets(0, B, 0, boff_a.data(), 1, boff_b.data());
    batch.offsets(0, B, 2, boff_c.data());
    if (direct && (B >= 2 * nt || nt <= 1)) {
      parallel_for(nt, B, [&](int64_t bi) {
        product_direct(p.a + boff_a[bi], p.b + boff_b[bi], p.c + boff_c[bi], d_am, d_ak, d_bk,
                       d_bn);
      });
      return;
    }
    if (direct) {  // few products: split each one's tiles among the threads
      const int64_t tiles = ((M + uk.mr - 1) / uk.mr) * ((N + uk.nr - 1) / uk.nr);
      for (int64_t bi = 0; bi < B; ++bi)
        parallel_for(nt, nt, [&](int64_t t) {
          product_direct(p.a + boff_a[bi], p.b + boff_b[bi], p.c + boff_c[bi], d_am, d_ak,
                         d_bk, d_bn, tiles * t / nt, tiles * (t + 1) / nt);
        });
      return;
    }
    if (gemv) {
      run_gemv(boff_a, boff_b, boff_c, nt, a_m, a_k, b_k, c_m);
      return;
    }

    if (!p.accumulate && ksplit_ok()) {
      run_ksplit(nt);
      return;
    }
    const int split = split_path(nt);
    if (split && !(nt > 1 && B >= 2 * nt && per_product < (int64_t{1} << 22))) {
      run_split(boff_a, boff_b, boff_c, nt, split == 1);
      return;
    }
    const bool over_batch = nt > 1 && B >= 2 * nt && per_product < (int64_t{1} << 24);
    if (over_batch) {
      std::vector<Buffer> apacks, bpacks;
      for (int t = 0; t < nt; ++t) {
        apacks.emplace_back(a_pack_bytes());
        bpacks.emplace_back(b_pack_bytes());
      }
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
      for (int64_t bi = 0; bi < B; ++bi) {
        const int t = omp_get_thread_num();
        product(p.a + boff_a[bi], p.b + boff_b[bi], p.c + boff_c[bi],
                static_cast<char*>(apacks[t].p), static_cast<char*>(bpacks[t].p), 0, 1, false);
      }
      return;
    }
    Buffer apack(a_pack_bytes()), bpack(b_pack_bytes());
    char* ap = static_cast<char*>(apack.p);
    char* bp = static_cast<char*>(bpack.p);
    if (nt <= 1) {
      for (int64_t bi = 0; bi < B; ++bi)
        product(p.a + boff_a[bi], p.b + boff_b[bi], p.c + boff_c[bi], ap, bp, 0, 1, false);
      return;
    }
#pragma omp parallel num_threads(nt)
    {
      const int tid = omp_get_thread_num(), team = omp_get_num_threads();
      for (int64_t bi = 0; bi < B; ++bi)
        product(p.a + boff_a[bi], p.b + boff_b[bi], p.c + boff_c[bi], ap, bp, tid, team,
                team > 1);
    }
  }

  void run_gemv(const std::vector<int64_t>& boff_a, const std::vector<int64_t>& boff_b,
                const std::vector<int64_t>& boff_c, int nt, int64_t a_m, int64_t a_k,
                int64_t b_k, int64_t c_m) const {
    const int64_t M = m.total, K = k.total, B = batch.total;
    const bool x_unit = b_k == int64_t{sizeof(T)} || K <= 1;
    // Column axpys over whole rows of A (x @ A): kGemvKParts fixed parts of k, each summed
    // into its own y over every row (a thread streams its rows contiguously), then added
    // in order: the same bits for any thread count.
    const bool split_k = a_k != int64_t{sizeof(T)} && K >= 2 * kGemvKParts &&
                         M <= kGemvSplitRows;
    const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(M, 64));
    struct Buffers {
      std::vector<T> x, partial;  // x gathered when its k stride is not unit; split_k's y
    };
    auto buffers = [&] {
      return Buffers{std::vector<T>(x_unit ? 0 : K),
                     std::vector<T>(split_k ? kGemvKParts * M : 0)};
    };
    // One batch item on `threads` threads.
    auto item = [&](Buffers& buf, int64_t bi, int threads) {
      const char* a = p.a + boff_a[bi];
      const char* b = p.b + boff_b[bi];
      char* c = p.c + boff_c[bi];
      const T* x = reinterpret_cast<const T*>(b);
      if (!x_unit) {
        for (int64_t q = 0; q < K; ++q) buf.x[q] = *reinterpret_cast<const T*>(b + q * b_k);
        x = buf.x.data();
      }
      if (split_k) {
        std::fill(buf.partial.begin(), buf.partial.end(), T(0));
        parallel_for(threads, kGemvKParts, [&](int64_t q) {
          T* y = buf.partial.data() + q * M;
          for (int64_t pk = K * q / kGemvKParts; pk < K * (q + 1) / kGemvKParts; ++pk)
            table.axpy[type](M, x + pk, a + pk * a_k, y);
        });
        for (int64_t i = 0; i < M; ++i) {
          T sum = buf.partial[i];
          for (int q = 1; q < kGemvKParts; ++q) sum = sum + buf.partial[q * M + i];
          *reinterpret_cast<T*>(c + i * c_m) = sum;
        }
        return;
      }
      // Row dots: many chunks (balance), each starting on a multiple of 4 rows; column
      // axpys: one range of rows per thread, so each thread reads long runs of every column.
      const int64_t parts = threads <= 1 ? 1 : (a_k == int64_t{sizeof(T)} ? chunks : threads);
      const int64_t quads = (M + 3) / 4;
      parallel_for(threads, parts, [&](int64_t ch) {
        gemv_rows(a, x, c, 4 * (quads * ch / parts),
                  std::min(M, 4 * (quads * (ch + 1) / parts)), a_m, a_k, c_m);
      });
    };
    const int per_item = static_cast<double>(M) * K >= kGemmParallelMinFlops ? nt : 1;
    if (per_item == 1 && nt > 1 && B >= 2 * nt) {  // small items: the batch in parallel
      parallel_for_dynamic(nt, B, 1, buffers, [&](Buffers& buf, int64_t bi) { item(buf, bi, 1); });
      return;
    }
    Buffers buf = buffers();
    for (int64_t bi = 0; bi < B; ++bi) item(buf, bi, per_item);
  }
};

// Swaps the roles of A and B (C^T = B^T A^T): m <-> n, and every dim's A and B strides.
void transpose_problem(GemmProblem* q) {
  std::swap(q->a, q->b);
  std::swap(q->dtype_a, q->dtype_b);
  std::swap(q->nm, q->nn);
  for (int d = 0; d < kGemmMaxDims; ++d) std::swap(q->m[d], q->n[d]);
  auto swap_ab = [](GemmDim* dims, int nd) {
    for (int d = 0; d < nd; ++d) std::swap(dims[d].stride_a, dims[d].stride_b);
  };
  swap_ab(q->batch, q->nbatch);
  swap_ab(q->m, q->nm);
  swap_ab(q->n, q->nn);
  swap_ab(q->k, q->nk);
}

int64_t extent(const GemmDim* dims, int nd) {
  int64_t t = 1;
  for (int d = 0; d < nd; ++d) t *= dims[d].size;
  return t;
}

// Whether the innermost of the dims (of size > 1) has a C stride of one element: then C's
// rows run along them (an NCHW convolution's output pixels, (n, oh, ow) as m dims).
bool unit_c(const GemmDim* dims, int nd, int64_t itemsize) {
  DimList l;
  l.set(dims, nd);
  return l.total > 1 && l.nd > 0 && l.stride[2][l.nd - 1] == itemsize;
}

template <class T>
bool reads(int dtype) {
  return pack_fn<T>(dtype) != nullptr;
}

template <class T>
void run_typed(const GemmProblem& p, int type) {
  if (p.accumulate && (std::is_integral_v<T> || p.dtype_a != TypeInfo<T>::code ||
                       p.dtype_b != TypeInfo<T>::code))
    throw std::invalid_argument("gemm: accumulate needs a float type with operands of it");
  GemmProblem q = p;
  const int64_t es = sizeof(T);
  // Orientation: n == 1 is the matrix-vector form; otherwise C's unit stride along n.
  const int64_t M = extent(q.m, q.nm), N = extent(q.n, q.nn);
  if ((N != 1 && M == 1) || (N > 1 && !unit_c(q.n, q.nn, es) && unit_c(q.m, q.nm, es)))
    transpose_problem(&q);
  Driver<T> d(q, gemm_table(), type);
  d.run();
}

}  // namespace

bool gemm_set_amx(bool enabled) { return amx_allowed.exchange(enabled); }

GemmMicroKernel gemm_grouped_kernel(int out_dtype, int da, int db, int isa) {
  const int type = gemm_type_of(out_dtype);
  return type < 0 ? GemmMicroKernel{} : grouped_plan(gemm_table(isa), type, da, db).kernel;
}

bool gemm_reads(int out_dtype, int in_dtype) {
  switch (gemm_type_of(out_dtype)) {
    case kGemmF32: return reads<float>(in_dtype);
    case kGemmF64: return reads<double>(in_dtype);
    case kGemmC64: return reads<c64>(in_dtype);
    case kGemmC128: return reads<c128>(in_dtype);
    case kGemmS32: return reads<int32_t>(in_dtype);
    case kGemmS64: return reads<int64_t>(in_dtype);
    default: return false;
  }
}

double gemm_kernel_rate(int out_dtype, int da, int db, int isa, double seconds) {
  const int type = gemm_type_of(out_dtype);
  if (type < 0) throw std::invalid_argument("gemm: no product computes this dtype");
  static constexpr int64_t kItemsize[kGemmNumTypes] = {4, 8, 8, 16, 4, 8};
  const GemmTable& t = gemm_table(isa);
  const GroupedPlan plan = grouped_plan(t, type, da, db);
  const GemmMicroKernel& uk = plan.kernel.fn ? plan.kernel : t.kernel[type];
  if (!uk.fn) return 0.0;
  const int64_t es = plan.kernel.fn ? plan.in_size : kItemsize[type];
  const int64_t kc = std::max<int64_t>(uk.a_group,
                                       gemm_blocking(uk, static_cast<int>(es)).kc /
                                           uk.a_group * uk.a_group);
  const int64_t a_bytes = round_up(kc * uk.mr * es, 64);
  const int64_t b_bytes = round_up(kc * uk.nr * es + plan.b_extra, 64);
  const int64_t bytes = a_bytes + b_bytes + uk.mr * uk.nr * kItemsize[type] + 64;
  // zeros: every type's multiply-add takes the same time on them as on normal values
  std::vector<char> buf(static_cast<size_t>(bytes));
  char* a = reinterpret_cast<char*>(round_up(reinterpret_cast<intptr_t>(buf.data()), 64));
  char* b = a + a_bytes;
  char* c = b + b_bytes;
  using clock = std::chrono::steady_clock;
  if (uk.begin) uk.begin();
  const auto start = clock::now();
  int64_t calls = 0;
  double elapsed = 0.0;
  do {
    for (int r = 0; r < 64; ++r) uk.fn(kc, a, b, c, uk.nr, 1, true);
    calls += 64;
    elapsed = std::chrono::duration<double>(clock::now() - start).count();
  } while (elapsed < seconds);
  if (uk.end) uk.end();
  return static_cast<double>(calls) * uk.mr * uk.nr * kc / elapsed;
}

void gemm_run(const GemmProblem& p) {
  if (p.nbatch < 0 || p.nm < 0 || p.nn < 0 || p.nk < 0 || p.nbatch > kGemmMaxDims ||
      p.nm > kGemmMaxDims || p.nn > kGemmMaxDims || p.nk > kGemmMaxDims)
    throw std::invalid_argument("gemm: too many dims");
  switch (p.type) {
    case kGemmF32: return run_typed<float>(p, p.type);
    case kGemmF64: return run_typed<double>(p, p.type);
    case kGemmC64: return run_typed<c64>(p, p.type);
    case kGemmC128: return run_typed<c128>(p, p.type);
    case kGemmS32: return run_typed<int32_t>(p, p.type);
    case kGemmS64: return run_typed<int64_t>(p, p.type);
    default: throw std::invalid_argument("gemm: unknown computation type");
  }
}

}  // namespace xarr
