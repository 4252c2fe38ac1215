// The reference sort table: std::sort, the oracle every vector quicksort is tested against.
#include <algorithm>

#include "kernels/sort/sort.h"

namespace xarr {

namespace {
template <class U> void std_sort(U* a, int64_t n) { std::sort(a, a + n); }
}  // namespace

void fill_sort_ref(SortTable* t) {
  t->u32 = &std_sort<uint32_t>;
  t->u64 = &std_sort<uint64_t>;
}

}  // namespace xarr
