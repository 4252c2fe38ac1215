// The math the vector elementwise tables use (XARR_MATH): xarr's vectorizable functions
// where they exist, libm for the rest.
#pragma once

#include "kernels/elementwise/libm_math.h"

#define XARR_MATH ::xarr::libm
