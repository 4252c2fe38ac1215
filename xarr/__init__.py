"""xarr: a NumPy alternative whose tensors carry an explicit XLA Shape and Layout.

>>> import xarr as xa
>>> a = xa.asarray([[1, 2, 3], [4, 5, 6]], dtype=xa.float32, layout=(0, 1))
>>> a.xla_shape
Shape('f32[2,3]{0,1}')
>>> a.storage().tolist()          # column-major storage, as seed 000 describes
[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]

The NumPy-style frontend is ``xa.*`` (NumPy 2 promotion and broadcasting); XLA's strict
operation semantics are ``xa.lax.*``. This module only assembles the public surface from
the layers below it; docs/architecture.md says where everything lives.
"""

import sys as _sys

from xarr import _core
from xarr import _dispatch
from xarr._dtypes import (bfloat16, bool_, complex64, complex128, float16, float32, float64,
                          int8, int16, int32, int64, uint8, uint16, uint32, uint64)
from xarr._shape import (ELEMENT_TYPES, Layout, Shape, Tile, TupleShape, linear_index,
                         multi_index)
from xarr._tensor import Tensor
from xarr._runtime import get_num_threads, set_num_threads
from xarr._ops.conversion import array, asarray, from_dlpack, tensor
from xarr._ops.creation import (arange, empty, empty_like, eye, full, full_like, linspace,
                                ones, ones_like, zeros, zeros_like)
from xarr._ops.indexing import argwhere, flatnonzero, nonzero, take, take_along_axis
from xarr._graph.jit import clear_caches, jit
from xarr._graph.lazy import eval, lazy  # noqa: A004
from xarr import lax
from xarr import linalg
from xarr import random
from xarr import fft
from xarr import distributed
from xarr._numpy.ufuncs import *  # noqa: F401,F403  (every NumPy elementwise function)
from xarr._numpy.ufuncs import clip, round, where  # noqa: A004
from xarr._numpy.manipulation import (array_split, ascontiguousarray, asfortranarray, astype,
                                      broadcast_arrays, broadcast_shapes,
                                      broadcast_to, concat, concatenate, copy, expand_dims,
                                      flip, hstack, isclose, moveaxis, pad, permute_dims,
                                      ndim, ravel, relayout, repeat, reshape, roll, shape,
                                      size, split, squeeze, stack, swapaxes, tile, transpose,
                                      vstack)
from xarr._numpy.reductions import (all, allclose, any, argmax, argmin, array_equal,  # noqa
                                    count_nonzero, cumprod, cumsum, cumulative_prod,
                                    cumulative_sum, max, mean, min, prod, std, sum, var)
from xarr._numpy.contraction import (diagonal, dot, einsum, einsum_path, inner, kron,
                                      matmul, outer, tensordot, trace, vdot, vecdot)
from xarr._numpy.linalg import cross
from xarr._numpy.array_api import (__array_api_version__, __array_namespace_info__,
                                   can_cast, diff, finfo, iinfo, isdtype, matrix_transpose,
                                   meshgrid, result_type, tril, triu, unstack)

from xarr._numpy.interop import NumPyFallbackWarning
from xarr._numpy.interop import numpy_fallback_attribute as __getattr__  # noqa: F401
from xarr._ops import update as _update  # noqa: F401  (item assignment on traced values)
from xarr._ops import at as _at  # noqa: F401  (t.at[idx].set / add / ...)
from xarr._numpy.helpers import (atleast_1d, atleast_2d, atleast_3d, average, choose,
                                 compress, diag, diagflat, ediff1d, fromfunction,
                                 geomspace, gradient, ix_, logspace, ndenumerate, ndindex,
                                 put, put_along_axis)
from xarr._numpy.mathfunctions import (angle, around, deg2rad, degrees, divmod, fix, fmax,  # noqa
                                       fmin, frexp, gcd, heaviside, iscomplex, isreal, lcm,
                                       ldexp, modf, nan_to_num, rad2deg, radians, reciprocal,
                                       sinc, spacing, unwrap)
from xarr._numpy.searching import interp
from xarr._numpy.windows import convolve, correlate, sliding_window_view
from xarr._ops.sorting import searchsorted
from xarr._numpy.sorting import (argpartition, argsort, lexsort, partition, sort,
                                 sort_complex)
from xarr._numpy.sets import (intersect1d, isin, setdiff1d, union1d, unique, unique_all,
                              unique_counts, unique_inverse, unique_values)
from xarr._numpy.statistics import (bincount, digitize, histogram, histogram2d, median,
                                    nanmedian, percentile, quantile)
from xarr._numpy.nanfunctions import (nanargmax, nanargmin, nancumprod, nancumsum, nanmax,
                                      nanmean, nanmin, nanprod, nanstd, nansum, nanvar)
from xarr._numpy.io import (NpzFile, fromfile, load, loadtxt, save, savetxt, savez,
                           savez_compressed)

ndarray = Tensor
bool = bool_  # noqa: A001  (Array API spelling)
amax, amin = max, min

e = 2.718281828459045
pi = 3.141592653589793
inf = float("inf")
nan = float("nan")
newaxis = None

__version__ = "0.1.0"

# Tensor.__array_namespace__ and Traced.__array_namespace__ return this module.
_dispatch.register(namespace=lambda: _sys.modules[__name__])
