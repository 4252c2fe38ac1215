// The avx2 sort table: sort_kernels.h's quicksort on 8 x u32 / 4 x u64 lanes. AVX2 has no
// compress: a split permutes the lanes through a table (the keys below the pivot first,
// the others last, each in lane order) and stores the whole vector at both ends. AVX2 has
// no unsigned 64-bit compare: keys are compared with their top bit flipped, as signed.
#define XARR_ISA_NS isa_avx2
#include <immintrin.h>

#include <array>

#include "kernels/sort/sort.h"
#include "kernels/sort/sort_kernels.h"

namespace xarr {
namespace isa_avx2 {
namespace {

// kSplit<lanes>[bits]: 8 dword indices for _mm256_permutevar8x32_epi32 that put the lanes
// whose bit is set first and the others after, each group in lane order (a 64-bit lane k
// is dwords 2k, 2k + 1).
template <int lanes> constexpr std::array<std::array<int32_t, 8>, (1 << lanes)> split_table() {
  std::array<std::array<int32_t, 8>, (1 << lanes)> t{};
  constexpr int w = 8 / lanes;
  for (int bits = 0; bits < (1 << lanes); ++bits) {
    int at = 0;
    for (int pass = 0; pass < 2; ++pass)
      for (int k = 0; k < lanes; ++k)
        if (((bits >> k) & 1) == (pass == 0 ? 1 : 0))
          for (int d = 0; d < w; ++d) t[bits][at++] = k * w + d;
  }
  return t;
}
alignas(32) constexpr auto kSplit8 = split_table<8>();
alignas(32) constexpr auto kSplit4 = split_table<4>();

// Exact-width split through memory: the partition's last few vectors.
template <class U, int N, class R>
void split_exact_scalar(R v, unsigned below, unsigned valid, U* left, U* right_end) {
  alignas(32) U lanes[N];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), v);
  int nb = 0;
  const int na = __builtin_popcount(valid & ~below);
  int ra = 0;
  for (int i = 0; i < N; ++i) {
    if (!((valid >> i) & 1)) continue;
    if ((below >> i) & 1) left[nb++] = lanes[i];
    else right_end[-na + ra++] = lanes[i];
  }
}

inline __m256i tail_mask(int m, int lanes) {
  const __m256i lane = lanes == 8 ? _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)
                                  : _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(m), lane);
}

struct V32 {
  using U = uint32_t;
  using R = __m256i;
  static constexpr int N = 8;
  static R load(const U* p) { return _mm256_loadu_si256(reinterpret_cast<const R*>(p)); }
  static R load_tail(const U* p, int m) {
    const R keep = tail_mask(m, N);
    const R v = _mm256_maskload_epi32(reinterpret_cast<const int*>(p), keep);
    return _mm256_or_si256(v, _mm256_andnot_si256(keep, _mm256_set1_epi32(-1)));
  }
  static void store(U* p, R v) { _mm256_storeu_si256(reinterpret_cast<R*>(p), v); }
  static R min(R a, R b) { return _mm256_min_epu32(a, b); }
  static R max(R a, R b) { return _mm256_max_epu32(a, b); }
  static R set1(U x) { return _mm256_set1_epi32(static_cast<int>(x)); }
  static R reverse(R v) {
    return _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0));
  }
  template <int j> static R swap(R v) {
    if constexpr (j == 1) return _mm256_shuffle_epi32(v, 0xB1);
    else if constexpr (j == 2) return _mm256_shuffle_epi32(v, 0x4E);
    else return _mm256_permute4x64_epi64(v, 0x4E);
  }
  template <unsigned bits> static R blend(R a, R b) { return _mm256_blend_epi32(a, b, bits); }
  static unsigned below(R v, R p, bool le) {
    if (le) {   // v <= p: max(v, p) == p
      return unsigned(_mm256_movemask_ps(
          _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_max_epu32(v, p), p))));
    }
    const unsigned ge = unsigned(_mm256_movemask_ps(
        _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_max_epu32(v, p), v))));
    return ~ge & 0xFFu;
  }
  static void split(R v, unsigned below, U* left, U* right_end) {
    const R s = _mm256_permutevar8x32_epi32(
        v, _mm256_load_si256(reinterpret_cast<const R*>(kSplit8[below].data())));
    store(left, s);
    store(right_end - N, s);
  }
  static void split_exact(R v, unsigned below, unsigned valid, U* left, U* right_end) {
    split_exact_scalar<U, N>(v, below, valid, left, right_end);
  }
};

struct V64 {
  using U = uint64_t;
  using R = __m256i;
  static constexpr int N = 4;
  static R flip(R v) { return _mm256_xor_si256(v, _mm256_set1_epi64x(INT64_MIN)); }
  static R greater(R a, R b) { return _mm256_cmpgt_epi64(flip(a), flip(b)); }
  static R load(const U* p) { return _mm256_loadu_si256(reinterpret_cast<const R*>(p)); }
  static R load_tail(const U* p, int m) {
    const R keep = tail_mask(m, N);
    const R v = _mm256_maskload_epi64(reinterpret_cast<const long long*>(p), keep);
    return _mm256_or_si256(v, _mm256_andnot_si256(keep, _mm256_set1_epi32(-1)));
  }
  static void store(U* p, R v) { _mm256_storeu_si256(reinterpret_cast<R*>(p), v); }
  static R min(R a, R b) { return _mm256_blendv_epi8(a, b, greater(a, b)); }
  static R max(R a, R b) { return _mm256_blendv_epi8(b, a, greater(a, b)); }
  static R set1(U x) { return _mm256_set1_epi64x(static_cast<long long>(x)); }
  static R reverse(R v) { return _mm256_permute4x64_epi64(v, 0x1B); }
  template <int j> static R swap(R v) {
    if constexpr (j == 1) return _mm256_shuffle_epi32(v, 0x4E);
    else return _mm256_permute4x64_epi64(v, 0x4E);
  }
  static constexpr unsigned dwords(unsigned bits) {
    unsigned d = 0;
    for (int k = 0; k < 4; ++k)
      if ((bits >> k) & 1) d |= 3u << (2 * k);
    return d;
  }
  template <unsigned bits> static R blend(R a, R b) {
    return _mm256_blend_epi32(a, b, dwords(bits));
  }
  static unsigned below(R v, R p, bool le) {
    const unsigned gt = unsigned(_mm256_movemask_pd(_mm256_castsi256_pd(
        le ? greater(v, p) : greater(p, v))));
    return le ? ~gt & 0xFu : gt;
  }
  static void split(R v, unsigned below, U* left, U* right_end) {
    const R s = _mm256_permutevar8x32_epi32(
        v, _mm256_load_si256(reinterpret_cast<const R*>(kSplit4[below].data())));
    store(left, s);
    store(right_end - N, s);
  }
  static void split_exact(R v, unsigned below, unsigned valid, U* left, U* right_end) {
    split_exact_scalar<U, N>(v, below, valid, left, right_end);
  }
};

}  // namespace
}  // namespace isa_avx2

void fill_sort_avx2(SortTable* t) {
  isa_avx2::sort_detail::Entries<isa_avx2::V32, isa_avx2::V64>::fill(t);
}

}  // namespace xarr
