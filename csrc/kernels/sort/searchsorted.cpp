#include "kernels/sort/searchsorted.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <climits>
#include <type_traits>
#include <vector>

#include "core/dtype.h"
#include "core/threading.h"

namespace xarr {

namespace {

// Keys searched together: enough independent loads to cover a DRAM miss's latency with
// the ~20 misses a core keeps in flight; more only lengthens the group's setup.
constexpr int kSearchGroup = 16;

template <class C> inline bool is_nan_c(C v) {
  if constexpr (std::is_floating_point_v<C>) return v != v;
  return false;
}

// NumPy's sort order: a < b, with NaN after every number (and equal to NaN).
template <class C> inline bool sort_less(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) return a < b || (b != b && a == a);
  else return a < b;
}

// Complex: lexicographic (real, then imaginary), NaN parts last (NumPy's CLT).
template <class R> inline bool sort_less(std::complex<R> a, std::complex<R> b) {
  const R ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
  if (ar < br) return ai == ai || bi != bi;
  if (ar > br) return bi != bi && ai == ai;
  if (ar == br || (ar != ar && br != br)) return ai < bi || (bi != bi && ai == ai);
  return br != br;
}

// Whether sorted element a lies before the answer: a < key (left), a <= key (right), in
// the sort order. For a real key that is not NaN this is one plain compare (a NaN element
// is after every key either way), which compiles to a flag, not a branch: the sort-order
// test's `||` was a branch mispredicted at half the levels (10x slower on random keys).
// NaN keys are answered apart (search_typed).
template <bool kRight, class C> inline bool before(C a, C key) {
  if constexpr (std::is_floating_point_v<C>) {
    if constexpr (kRight) return a <= key;
    else return a < key;
  } else if constexpr (kRight) {
    return !sort_less(key, a);
  } else {
    return sort_less(a, key);
  }
}

// A 16-bit float's place in the sort order as an int32: sign-magnitude made signed, both
// zeros 0, every NaN last (INT32_MAX). Integer compares instead of a float conversion at
// every level (a library call without F16C, 7x slower). Worked example (f16): 1.0 is
// 0x3C00 -> 15360, -1.0 is 0xBC00 -> -15360, -0.0 -> 0, 0x7E00 (NaN) -> INT32_MAX.
inline int32_t half_order(uint16_t bits, int32_t inf_bits) {
  const int32_t mag = bits & 0x7FFF;
  const int32_t v = (bits & 0x8000) ? -mag : mag;
  return mag > inf_bits ? INT32_MAX : v;
}

template <class T> inline auto value(const T* p) {
  if constexpr (std::is_same_v<T, c64> || std::is_same_v<T, c128>) {
    return *p;
  } else if constexpr (std::is_same_v<T, f16>) {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return half_order(bits, 0x7C00);
  } else if constexpr (std::is_same_v<T, bf16>) {
    return half_order(p->bits, 0x7F80);
  } else {
    return load(*p);
  }
}

// The answers for g keys (g <= kSearchGroup) in lockstep: every search has the same
// remaining length at each level, so one loop counter serves all of them. Invariant: the
// answer of key k lies in [pos[k], pos[k] + len].
template <bool kRight, class T, class C>
inline void search_group(const T* a, int64_t n, const C* key, int g, int64_t* res) {
  int64_t pos[kSearchGroup];
  for (int k = 0; k < g; ++k) pos[k] = 0;
  int64_t len = n;
  while (len > 1) {
    const int64_t half = len >> 1;
    for (int k = 0; k < g; ++k)   // (a mask, not ?:, which GCC made a branch for double)
      pos[k] += half & -static_cast<int64_t>(before<kRight>(value(a + pos[k] + half - 1),
                                                             key[k]));
    len -= half;
  }
  for (int k = 0; k < g; ++k) res[k] = pos[k] + before<kRight>(value(a + pos[k]), key[k]);
}

// The answer for a NaN key: NaN sorts after every number and equal to NaN, so side left
// is the first NaN of a (its count of numbers), side right is n.
template <bool kRight, class T> int64_t nan_key_answer(const T* a, int64_t n) {
  if (kRight) return n;
  int64_t lo = 0, len = n;                   // the first i with a[i] NaN
  while (len > 0) {
    const int64_t half = len >> 1;
    const auto v = value(a + lo + half);
    if (v == v) {
      lo += half + 1;
      len -= half + 1;
    } else {
      len = half;
    }
  }
  return lo;
}

// The keys of a strided tensor (strides in bytes) in blocks of up to kSearchGroup along
// its last dim: block `item` is (row, first key) with rows the outer dims' positions, so
// one long row splits over threads too. at() gives the block's first key, its row-major
// position (where its answers go) and its length.
struct KeyBlocks {
  const char* keys;
  int ndim;
  const int64_t* dims;
  const int64_t* strides;
  int64_t inner, step, rows = 1, blocks;
  KeyBlocks(const char* k, int nd, const int64_t* d, const int64_t* s)
      : keys(k), ndim(nd), dims(d), strides(s), inner(nd ? d[nd - 1] : 1),
        step(nd ? s[nd - 1] : 0) {
    for (int i = 0; i + 1 < nd; ++i) rows *= d[i];
    blocks = (inner + kSearchGroup - 1) / kSearchGroup;
  }
  int64_t size() const { return inner && rows ? rows * inner : 0; }
  int64_t count() const { return size() ? rows * blocks : 0; }
  const char* at(int64_t item, int64_t* pos, int* g) const {
    const int64_t r = item / blocks, b0 = (item % blocks) * kSearchGroup;
    int64_t rem = r, off = 0;
    for (int d = ndim - 2; d >= 0; --d) {
      off += (rem % dims[d]) * strides[d];
      rem /= dims[d];
    }
    *pos = r * inner + b0;
    *g = static_cast<int>(std::min<int64_t>(kSearchGroup, inner - b0));
    return keys + off + b0 * step;
  }
};

template <bool kRight, class T>
void search_typed(const T* a, int64_t n, const char* keys, int ndim, const int64_t* dims,
                  const int64_t* ks, int64_t* out) {
  using C = decltype(value(a));
  const KeyBlocks kb(keys, ndim, dims, ks);
  if (!kb.size()) return;
  int64_t levels = 1;
  while ((int64_t{1} << levels) < n + 1) ++levels;
  int64_t nan_answer = 0;
  if constexpr (std::is_floating_point_v<C>) nan_answer = nan_key_answer<kRight>(a, n);
  const int nt = kb.size() * levels >= 8 * kParallelMinElements ? get_num_threads() : 1;
  parallel_for(nt, kb.count(), [&](int64_t item) {
    int64_t pos;
    int g;
    const char* base = kb.at(item, &pos, &g);
    C key[kSearchGroup];
    for (int k = 0; k < g; ++k) key[k] = value(reinterpret_cast<const T*>(base + k * kb.step));
    int64_t* dst = out + pos;
    if (n == 0) {
      for (int k = 0; k < g; ++k) dst[k] = 0;
      return;
    }
    search_group<kRight, T, C>(a, n, key, g, dst);
    if constexpr (std::is_floating_point_v<C>)
      for (int k = 0; k < g; ++k)
        if (key[k] != key[k]) dst[k] = nan_answer;
  });
}

// One real interpolation between sample points j and j + 1 (NumPy's formula and
// fallbacks); slope is (y1 - y0) / dx, or (y1 - y0) * inv_dx for complex parts.
inline double lerp_at(double x, double x0, double x1, double y0, double y1, double slope) {
  double r = slope * (x - x0) + y0;
  if (r != r) {
    r = slope * (x - x1) + y1;
    if (r != r && y0 == y1) r = y0;
  }
  return r;
}

template <bool kComplex>
void interp_typed(const double* xp, int64_t n, const double* fp, const char* x, int ndim,
                  const int64_t* dims, const int64_t* xs, const double* left,
                  const double* right, double* out) {
  constexpr int W = kComplex ? 2 : 1;        // doubles per value
  const KeyBlocks kb(x, ndim, dims, xs);
  const int nt = kb.size() >= kParallelMinElements ? get_num_threads() : 1;
  parallel_for(nt, kb.count(), [&](int64_t item) {
    int64_t pos;
    int g;
    const char* base = kb.at(item, &pos, &g);
    double key[kSearchGroup];
    int64_t cnt[kSearchGroup];
    for (int k = 0; k < g; ++k) key[k] = *reinterpret_cast<const double*>(base + k * kb.step);
    double* dst = out + pos * W;
    if (n > 1) search_group<true, double, double>(xp, n, key, g, cnt);   // #{xp <= x}
    for (int k = 0; k < g; ++k) {
      const double v = key[k];
      double* o = dst + k * W;
      const double* pick = nullptr;
      if (n == 1) {
        pick = v < xp[0] ? left : v > xp[0] ? right : fp;
      } else if (v != v) {
        o[0] = v;
        if (kComplex) o[1] = 0.0;
        continue;
      } else if (v > xp[n - 1]) {
        pick = right;
      } else if (v < xp[0]) {
        pick = left;
      } else {
        // (>= 0 for ascending xp; the clamp keeps unsorted or NaN sample points in bounds)
        const int64_t j = std::max<int64_t>(cnt[k] - 1, 0);
        if (j >= n - 1 || xp[j] == v) {
          pick = fp + std::min(j, n - 1) * W;
        } else if (kComplex) {
          const double inv = 1.0 / (xp[j + 1] - xp[j]);
          const double* y0 = fp + 2 * j;
          const double* y1 = y0 + 2;
          o[0] = lerp_at(v, xp[j], xp[j + 1], y0[0], y1[0], (y1[0] - y0[0]) * inv);
          o[W - 1] = lerp_at(v, xp[j], xp[j + 1], y0[1], y1[1], (y1[1] - y0[1]) * inv);
          continue;
        } else {
          const double slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
          o[0] = lerp_at(v, xp[j], xp[j + 1], fp[j], fp[j + 1], slope);
          continue;
        }
      }
      for (int w = 0; w < W; ++w) o[w] = pick[w];
    }
  });
}

}  // namespace

void interp_run(const double* xp, int64_t n, const char* fp, int complex_fp, const char* x,
                int ndim, const int64_t* dims, const int64_t* x_strides, const double* left,
                const double* right, char* out) {
  const double* y = reinterpret_cast<const double*>(fp);
  double* o = reinterpret_cast<double*>(out);
  if (complex_fp)
    interp_typed<true>(xp, n, y, x, ndim, dims, x_strides, left, right, o);
  else
    interp_typed<false>(xp, n, y, x, ndim, dims, x_strides, left, right, o);
}

int searchsorted_run(int dtype, const char* sorted, int64_t n, const char* keys, int ndim,
                     const int64_t* dims, const int64_t* key_strides, int right,
                     int64_t* out) {
  return visit_dtype(dtype, [&](auto tag) {
           using T = decltype(tag);
           const T* a = reinterpret_cast<const T*>(sorted);
           if (right)
             search_typed<true, T>(a, n, keys, ndim, dims, key_strides, out);
           else
             search_typed<false, T>(a, n, keys, ndim, dims, key_strides, out);
         })
             ? 0
             : 1;
}

}  // namespace xarr
