// The reference sort table: std::sort and std::nth_element, the oracles every vector
// quicksort and selection is tested against.
#include <algorithm>

#include "kernels/sort/sort.h"

namespace xarr {

namespace {
template <class U> void std_sort(U* a, int64_t n) { std::sort(a, a + n); }
// every kth in place with std::nth_element, each on the range right of the previous one
template <class U> void std_select(U* a, int64_t n, int64_t* kth, int nk) {
  int64_t lo = 0;
  for (int i = 0; i < nk; ++i) {
    std::nth_element(a + lo, a + kth[i], a + n);
    lo = kth[i] + 1;
  }
}
}  // namespace

void fill_sort_ref(SortTable* t) {
  t->u32 = &std_sort<uint32_t>;
  t->u64 = &std_sort<uint64_t>;
  t->select_u32 = &std_select<uint32_t>;
  t->select_u64 = &std_select<uint64_t>;
}

}  // namespace xarr
