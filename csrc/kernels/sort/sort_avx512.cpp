// The avx512 sort table: sort_kernels.h's quicksort on 16 x u32 / 8 x u64 lanes. Splits
// compress in registers and store with masks (a compressing store to memory is
// microcoded and slow on Zen 4).
#define XARR_ISA_NS isa_avx512
#include <immintrin.h>

#include "kernels/sort/sort.h"
#include "kernels/sort/sort_kernels.h"

namespace xarr {
namespace isa_avx512 {
namespace {



struct V32 {
  using U = uint32_t;
  using R = __m512i;
  static constexpr int N = 16;
  static R load(const U* p) { return _mm512_loadu_si512(p); }
  static R load_tail(const U* p, int m) {
    return _mm512_mask_loadu_epi32(_mm512_set1_epi32(-1), __mmask16((1u << m) - 1), p);
  }
  static void store(U* p, R v) { _mm512_storeu_si512(p, v); }
  static R min(R a, R b) { return _mm512_min_epu32(a, b); }
  static R max(R a, R b) { return _mm512_max_epu32(a, b); }
  static R set1(U x) { return _mm512_set1_epi32(static_cast<int>(x)); }
  static R reverse(R v) {
    return _mm512_permutexvar_epi32(
        _mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), v);
  }
  template <int j> static R swap(R v) {
    if constexpr (j == 1) return _mm512_shuffle_epi32(v, _MM_PERM_CDAB);
    else if constexpr (j == 2) return _mm512_shuffle_epi32(v, _MM_PERM_BADC);
    else if constexpr (j == 4) return _mm512_shuffle_i32x4(v, v, _MM_SHUFFLE(2, 3, 0, 1));
    else return _mm512_shuffle_i32x4(v, v, _MM_SHUFFLE(1, 0, 3, 2));
  }
  template <unsigned bits> static R blend(R a, R b) {
    return _mm512_mask_blend_epi32(__mmask16(bits), a, b);
  }
  static unsigned below(R v, R p, bool le) {
    return le ? _mm512_cmple_epu32_mask(v, p) : _mm512_cmplt_epu32_mask(v, p);
  }
  static void split_exact(R v, unsigned below, unsigned valid, U* left, U* right_end) {
    const int nb = __builtin_popcount(below), na = __builtin_popcount(valid & ~below);
    _mm512_mask_storeu_epi32(left, __mmask16((1u << nb) - 1),
                             _mm512_maskz_compress_epi32(__mmask16(below), v));
    _mm512_mask_storeu_epi32(right_end - na, __mmask16((1u << na) - 1),
                             _mm512_maskz_compress_epi32(__mmask16(valid & ~below), v));
  }
  static void split(R v, unsigned below, U* left, U* right_end) {
    split_exact(v, below, (1u << N) - 1, left, right_end);
  }
};

struct V64 {
  using U = uint64_t;
  using R = __m512i;
  static constexpr int N = 8;
  static R load(const U* p) { return _mm512_loadu_si512(p); }
  static R load_tail(const U* p, int m) {
    return _mm512_mask_loadu_epi64(_mm512_set1_epi64(-1), __mmask8((1u << m) - 1), p);
  }
  static void store(U* p, R v) { _mm512_storeu_si512(p, v); }
  static R min(R a, R b) { return _mm512_min_epu64(a, b); }
  static R max(R a, R b) { return _mm512_max_epu64(a, b); }
  static R set1(U x) { return _mm512_set1_epi64(static_cast<long long>(x)); }
  static R reverse(R v) {
    return _mm512_permutexvar_epi64(_mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7), v);
  }
  template <int j> static R swap(R v) {
    if constexpr (j == 1) return _mm512_shuffle_epi32(v, _MM_PERM_BADC);
    else if constexpr (j == 2) return _mm512_shuffle_i32x4(v, v, _MM_SHUFFLE(2, 3, 0, 1));
    else return _mm512_shuffle_i32x4(v, v, _MM_SHUFFLE(1, 0, 3, 2));
  }
  template <unsigned bits> static R blend(R a, R b) {
    return _mm512_mask_blend_epi64(__mmask8(bits), a, b);
  }
  static unsigned below(R v, R p, bool le) {
    return le ? _mm512_cmple_epu64_mask(v, p) : _mm512_cmplt_epu64_mask(v, p);
  }
  static void split_exact(R v, unsigned below, unsigned valid, U* left, U* right_end) {
    const int nb = __builtin_popcount(below), na = __builtin_popcount(valid & ~below);
    _mm512_mask_storeu_epi64(left, __mmask8((1u << nb) - 1),
                             _mm512_maskz_compress_epi64(__mmask8(below), v));
    _mm512_mask_storeu_epi64(right_end - na, __mmask8((1u << na) - 1),
                             _mm512_maskz_compress_epi64(__mmask8(valid & ~below), v));
  }
  static void split(R v, unsigned below, U* left, U* right_end) {
    split_exact(v, below, (1u << N) - 1, left, right_end);
  }
};

}  // namespace
}  // namespace isa_avx512

void fill_sort_avx512(SortTable* t) {
  isa_avx512::sort_detail::Entries<isa_avx512::V32, isa_avx512::V64>::fill(t);
}

}  // namespace xarr
