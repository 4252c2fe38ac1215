#include "core/threading.h"

#include <omp.h>

namespace xarr {

int get_num_threads() { return omp_get_max_threads(); }
void set_num_threads(int n) { omp_set_num_threads(n < 1 ? 1 : n); }

}  // namespace xarr
