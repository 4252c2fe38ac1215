"""NumPy's order statistics and counting on the sort family: ``median``, ``nanmedian``,
``percentile``, ``quantile`` (NumPy's 13 methods), ``bincount``, ``histogram``,
``histogram2d``, ``digitize``.

Order statistics select along the axis (the sort family's partition: quickselect on its
vector partitions, for the positions the quantiles need and the last one, where a NaN
would sort; nanmedian sorts, as its middle depends on the NaNs), then take the one or
two neighbours each quantile needs and interpolate with NumPy's
formulas in NumPy's order (_lerp: a + (b - a) t, or b - (b - a)(1 - t) for t >= 0.5), so
float64 results are NumPy's bits. NaN in a slice makes its statistic NaN (nanmedian:
NaNs are left out). Eager, under xa.jit and in xa.lazy (the neighbours' positions depend
on the axis length only). bincount, histogram and digitize size their result from the
data (max, range) and run eagerly.

    >>> xa.median(xa.asarray([[1., 3.], [2., nan]]), axis=0)      # [1.5, nan]
    >>> xa.quantile(xa.asarray([1., 2., 3., 4.]), 0.25)            # 1.75
"""

import operator

import numpy as np

from xarr._axes import normalize_axis
from xarr._dtypes import CODE_OF, KINDS
from xarr._numpy import ufuncs as U
from xarr._numpy.manipulation import broadcast_to, moveaxis, permute_dims
from xarr._numpy.reductions import cumsum
from xarr._ops import gather as _gather
from xarr._ops import indexing as _indexing
from xarr._ops import sorting as _sorting
from xarr._ops.conversion import asarray
from xarr._ops.structural import as_operand
from xarr._tensor import Tensor

# NumPy's quantile methods: the continuous ones by (alpha, beta) of the virtual index
# n q + alpha + q (1 - alpha - beta) - 1 (Hyndman & Fan), the discrete ones by rule.
_CONTINUOUS = {"linear": (1.0, 1.0), "weibull": (0.0, 0.0), "hazen": (0.5, 0.5),
               "median_unbiased": (1 / 3, 1 / 3), "normal_unbiased": (3 / 8, 3 / 8),
               "interpolated_inverted_cdf": (0.0, 1.0)}
_DISCRETE = ("lower", "higher", "nearest", "midpoint", "inverted_cdf",
             "averaged_inverted_cdf", "closest_observation")
_SELECTING = ("lower", "higher", "nearest", "inverted_cdf", "closest_observation")


def _result_dtype(x, q):
    """NumPy's: float64 for integers and bool, else x's float dtype, promoted with q when
    q is an array (a Python float q is weak)."""
    dt = np.dtype(np.float64) if KINDS[CODE_OF[x.dtype]] in "biu" else np.dtype(x.dtype)
    if type(q) not in (int, float):        # arrays and NumPy scalars promote
        dt = np.result_type(dt, np.asarray(q).dtype)
    return dt


def _virtual_index(n, q, method):
    """(index below, index above, weight t) per quantile q (float64 NumPy arrays) of a
    sorted axis of n, as NumPy's _quantile computes them."""
    if method in _CONTINUOUS:
        alpha, beta = _CONTINUOUS[method]
        v = (n - 1) * q if method == "linear" else n * q + (alpha + q * (1 - alpha - beta)) - 1
        lo = np.floor(v)
        t = v - lo
        lo = lo.astype(np.int64)
        below = np.clip(lo, 0, n - 1)
        above = np.clip(lo + 1, 0, n - 1)
        t = np.where((lo < 0) | (lo >= n - 1), np.zeros_like(t), t)
        below = np.where(v >= n - 1, n - 1, below)
        return below, above, t
    v = (n - 1) * q
    if method == "lower":
        i = np.floor(v)
    elif method == "higher":
        i = np.ceil(v)
    elif method == "nearest":
        i = np.around(v)
    elif method == "midpoint":
        lo = np.floor(v).astype(np.int64)
        return lo, np.ceil(v).astype(np.int64), np.where(lo == v, 0.0, 0.5)
    elif method == "inverted_cdf":
        i = np.ceil(n * q) - 1
    elif method == "averaged_inverted_cdf":
        lo = np.floor(n * q) - 1
        exact = n * q == np.floor(n * q)
        below = np.clip(lo, 0, n - 1).astype(np.int64)
        above = np.clip(np.where(exact, lo + 1, lo + 1), 0, n - 1).astype(np.int64)
        below = np.where(exact, below, above)
        return below, above, np.where(exact, 0.5, 0.0)
    else:   # closest_observation: the nearest even order statistic (1-based) at g = 0
        v2 = n * q - 1.5
        lo = np.floor(v2)
        i = np.where((v2 - lo == 0) & (lo % 2 == 1), lo, lo + 1)
    i = np.clip(i, 0, n - 1).astype(np.int64)
    return i, i, np.zeros(i.shape)


def _lerp(a, b, t):
    """NumPy's _lerp: a + (b - a) t, and b - (b - a)(1 - t) where t >= 0.5 (tensors a, b;
    t a NumPy array broadcasting against them)."""
    diff = b - a                      # (in the elements' dtype, as NumPy's subtract)
    if isinstance(t, float):          # a weak Python float: the elements' dtype stays
        return b - diff * (1 - t) if t >= 0.5 else a + diff * t
    tt = asarray(np.asarray(t))
    return U.where(asarray(np.asarray(t) >= 0.5), b - diff * (1 - tt), a + diff * tt)


def _quantile(a, q, axis, method, keepdims, fn, weights=None):
    """Quantiles along ``axis`` (None: all): the selection of the one or two neighbours of
    each quantile's virtual index (static: they depend on the length only) and of the last
    place (a NaN sorts there), NumPy's lerp; NaN where a slice holds one. ``weights``
    (method 'inverted_cdf' only, as NumPy): _weighted_inverted_cdf."""
    if method not in _CONTINUOUS and method not in _DISCRETE:
        raise ValueError(f"xa.{fn}: '{method}' is not a valid method; use one of "
                         f"{', '.join(list(_CONTINUOUS) + list(_DISCRETE))}")
    if weights is not None and method != "inverted_cdf":
        raise ValueError(f"xa.{fn}: only method 'inverted_cdf' supports weights, got "
                         f"method={method!r}")
    x = as_operand(a)
    if KINDS[CODE_OF[x.dtype]] == "c":
        raise TypeError(f"xa.{fn}: a must be real, got {x.dtype}")
    # NumPy's (2.4): a Python number q is weak - the virtual index is float64, and the
    # interpolation weight a Python float, so a float32 array interpolates in float32
    scalar_q = type(q) in (int, float)     # (a NumPy scalar is strong, as in NumPy)
    qa = np.asarray(q, np.float64)
    if np.any(qa < 0) or np.any(qa > 1) or np.any(qa != qa):
        raise ValueError(f"xa.{fn}: quantiles must be in the range [0, 1]")
    out_dt = _result_dtype(x, q)
    if method in _SELECTING:      # no interpolation: the elements' own dtype
        out_dt = np.dtype(x.dtype)
    if axis is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axis, (int, np.integer)):
        axes = (normalize_axis(axis, x.ndim, fn),)
    else:
        axes = tuple(normalize_axis(d, x.ndim, fn) for d in axis)
    keep_shape = tuple(1 if d in axes else e for d, e in enumerate(x.shape))
    rest = [d for d in range(x.ndim) if d not in axes]
    n = 1
    for d in axes:
        n *= x.shape[d]
    if n == 0:
        raise IndexError(f"xa.{fn}: cannot take a quantile of an empty axis")

    def rows(v):   # the reduced axes last, as one axis of n
        v = permute_dims(v, tuple(rest) + axes) if v.ndim else v
        return v.reshape(tuple(x.shape[d] for d in rest) + (n,))

    flat = rows(x)
    last = flat.ndim - 1
    if weights is not None:
        w = _weights_like(x, weights, axis, axes, fn)
        srt, res = _weighted_inverted_cdf(flat, rows(w), qa, q, fn)
    else:
        lo, hi, t = _virtual_index(n, qa.reshape(-1), method)
        srt = _sorting.partition(flat, last, sorted(set(lo.tolist()) | set(hi.tolist()) |
                                                    {n - 1}))
        res = _indexing.take(srt, asarray(lo), axis=last)
        if method not in _SELECTING:
            res = _lerp(res, _indexing.take(srt, asarray(hi), axis=last),
                        float(t[0]) if scalar_q else t)
    if KINDS[CODE_OF[x.dtype]] == "f":
        res = U.where(U.isnan(srt[..., n - 1:n]), np.nan, res)
    res = res.reshape(tuple(flat.shape[:-1]) + qa.shape)
    if qa.ndim:
        res = moveaxis(res, tuple(range(res.ndim - qa.ndim, res.ndim)),
                       tuple(range(qa.ndim)))
    res = res.astype(out_dt)
    if keepdims:
        res = res.reshape(qa.shape + keep_shape)
    return res


def _weights_like(x, weights, axis, axes, fn):
    """NumPy's weights of a quantile: x's shape, or (axis given) the shape of x along
    ``axes`` in their order, broadcast over the other dims; non-negative (checked when
    concrete)."""
    w = as_operand(weights)
    if KINDS[CODE_OF[w.dtype]] == "c":
        raise TypeError(f"xa.{fn}: weights must be real, got {w.dtype}")
    if tuple(w.shape) != tuple(x.shape):
        if axis is None:
            raise TypeError(f"xa.{fn}: axis must be given when the shapes of a "
                            f"{tuple(x.shape)} and weights {tuple(w.shape)} differ")
        along = tuple(x.shape[d] for d in axes)
        if tuple(w.shape) != along:
            raise ValueError(f"xa.{fn}: weights of shape {tuple(w.shape)} must have a's "
                             f"shape {tuple(x.shape)} or its shape along axis "
                             f"{axis}, {along}")
        w = permute_dims(w, tuple(int(k) for k in np.argsort(axes)))
        w = broadcast_to(w.reshape(tuple(e if d in axes else 1
                                         for d, e in enumerate(x.shape))), x.shape)
    if isinstance(w, Tensor) and bool(U.less(w, 0).any()):
        raise ValueError(f"xa.{fn}: weights must be non-negative")
    return w


def _weighted_inverted_cdf(flat, w, qa, q, fn):
    """NumPy's weighted 'inverted_cdf' along the last axis: the values sorted with their
    weights (one key-value sort), the normalized cumulative weights cdf (float64, then q's
    float dtype as NumPy), and per quantile the first place where cdf >= q (places with
    cdf 0 never: a zero weight up front is skipped). Returns (sorted values, result with
    the quantiles last)."""
    last = flat.ndim - 1
    srt, ws = _sorting.sort((flat, w), dimension=last, num_keys=1)
    cdf = cumsum(ws, axis=last, dtype=np.float64)
    total = cdf[..., -1:]
    if isinstance(total, Tensor) and \
            not bool(U.logical_and(U.isfinite(total), U.not_equal(total, 0)).all()):
        raise ValueError(f"xa.{fn}: weights included NaN or inf, or were all zero")
    cdf = cdf / total
    q_dt = np.asarray(q).dtype if type(q) not in (int, float) else np.dtype(np.float64)
    if q_dt.kind == "f":
        cdf = cdf.astype(q_dt)
    cdf = U.where(U.equal(cdf, 0), -1, cdf)
    qs = asarray(qa.reshape(-1).astype(cdf.dtype))
    # searchsorted side='left' per row: the count of cdf entries below q
    below = U.less(cdf[..., None, :], qs[:, None]).astype(np.int64).sum(axis=-1)
    idx = U.minimum(below, flat.shape[-1] - 1)
    return srt, _indexing.take_along(srt, idx, last)


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    """NumPy's quantile (q in [0, 1]) with its 13 methods; NaN in a slice gives NaN."""
    res = _quantile(a, q, axis, interpolation or method, keepdims, "quantile", weights)
    return _to_out(res, out)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    """NumPy's percentile: quantile of q / 100."""
    qa = np.true_divide(np.asarray(q, np.float64), 100)
    if np.any(qa < 0) or np.any(qa > 1):
        raise ValueError("xa.percentile: percentiles must be in the range [0, 100]")
    qq = float(qa) if type(q) in (int, float) else (np.float64(qa) if np.ndim(q) == 0
                                                    and not isinstance(q, np.ndarray)
                                                    else qa)
    res = _quantile(a, qq, axis, interpolation or method, keepdims, "percentile", weights)
    return _to_out(res, out)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """NumPy's median: the middle value, or the mean of the two middle values."""
    return _to_out(_median(a, axis, keepdims, "propagate", "median"), out)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """NumPy's nanmedian: the median of the non-NaN values (NaN where there are none)."""
    return _to_out(_median(a, axis, keepdims, "omit", "nanmedian"), out)


def _median(a, axis, keepdims, nan_policy, fn):
    """NumPy's median: the middle of the sorted axis, or the mean of the two middle values
    as np.mean takes it ((a + b) / 2 in float64 for integers and bool, in float32 for
    float16, else in the float dtype); NaN where a slice holds one ('propagate'), or of
    the non-NaN values only ('omit', nanmedian; NaN where there are none)."""
    x = as_operand(a)
    if KINDS[CODE_OF[x.dtype]] == "c":
        raise TypeError(f"xa.{fn}: a must be real, got {x.dtype}")
    out_dt = _result_dtype(x, 0.5)
    mean_dt = np.dtype(np.float32) if out_dt == np.float16 else out_dt
    axes = tuple(range(x.ndim)) if axis is None else (
        (normalize_axis(axis, x.ndim, fn),) if isinstance(axis, (int, np.integer)) else
        tuple(normalize_axis(d, x.ndim, fn) for d in axis))
    keep_shape = tuple(1 if d in axes else e for d, e in enumerate(x.shape))
    rest = [d for d in range(x.ndim) if d not in axes]
    n = 1
    for d in axes:
        n *= x.shape[d]
    outer = tuple(x.shape[d] for d in rest)
    if n == 0:
        res = asarray(np.full(outer, np.nan, out_dt))
        return res.reshape(keep_shape) if keepdims else res
    flat = permute_dims(x, tuple(rest) + axes) if x.ndim else x
    flat = flat.reshape(outer + (n,))
    is_float = KINDS[CODE_OF[x.dtype]] == "f"
    if nan_policy == "omit" and is_float:   # (where the middle is depends on the NaNs)
        srt = _sorting.sort(flat, len(outer), False)
    else:                                   # a selection of the middle and the last place
        srt = _sorting.partition(flat, len(outer), sorted({(n - 1) // 2, n // 2, n - 1}))
    if nan_policy == "omit" and is_float:
        # NumPy's nanmedian along an axis shorter than 600 of a 2-D+ array is a masked
        # median: (s[low] + s[high]) / 2 in the float dtype even when low == high
        masked = axis is not None and x.ndim > 1 and n < 600 and len(axes) < x.ndim
        if masked:
            mean_dt = out_dt
        m = U.logical_not(U.isnan(srt)).astype(np.int64).sum(axis=len(outer), keepdims=True)
        lo, hi = U.maximum(m - 1, 0) // 2, U.maximum(m, 1) // 2
        a_lo = _indexing.take_along(srt, lo, len(outer)).astype(mean_dt)
        a_hi = _indexing.take_along(srt, hi, len(outer)).astype(mean_dt)
        mid = (a_lo + a_hi) / 2
        res = mid if masked else U.where(U.equal(lo, hi), a_lo, mid)
        res = U.where(U.equal(m, 0), np.nan, res).reshape(outer)
    else:
        k = n // 2
        a_hi = srt[..., k].astype(mean_dt)
        res = a_hi if n % 2 else (srt[..., k - 1].astype(mean_dt) + a_hi) / 2
        if is_float:
            res = U.where(U.isnan(srt[..., n - 1]), np.nan, res)
    res = res.astype(out_dt)
    return res.reshape(keep_shape) if keepdims else res


def _to_out(res, out):
    if out is None:
        return res
    out[...] = res
    return out


def bincount(x, weights=None, minlength=0):
    """NumPy's bincount: counts (or weight sums, float64) of the non-negative ints in x,
    of length max(x) + 1 or minlength (a scatter-add into the bins)."""
    t = as_operand(x)
    if t.ndim != 1:
        raise ValueError(f"xa.bincount: x must be 1-D, got shape {tuple(t.shape)}")
    if KINDS[CODE_OF[t.dtype]] not in "biu":
        raise TypeError(f"xa.bincount: cannot cast x of dtype {t.dtype} to int64 safely")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("xa.bincount: minlength must be non-negative")
    t64 = t.astype(np.int64)
    if t.size and int(t64.min()) < 0:
        raise ValueError("xa.bincount: x must not hold negative values")
    n = max(int(t64.max()) + 1 if t.size else 0, minlength)
    dn = _gather.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    if weights is None:
        zeros = asarray(np.zeros(n, np.int64))
        ones = asarray(np.ones(t.size, np.int64))
        return _gather.scatter_add(zeros, t64.reshape((t.size, 1)), ones, dn)
    w = as_operand(weights)
    if tuple(w.shape) != tuple(t.shape):
        raise ValueError(f"xa.bincount: weights shape {tuple(w.shape)} must match x's "
                         f"{tuple(t.shape)}")
    wdt = np.complex128 if KINDS[CODE_OF[w.dtype]] == "c" else np.float64
    return _gather.scatter_add(asarray(np.zeros(n, wdt)), t64.reshape((t.size, 1)),
                           w.astype(wdt), dn)


def digitize(x, bins, right=False):
    """NumPy's digitize: the index of the bin each x falls in (bins monotonic, increasing
    or decreasing), a searchsorted on the bins."""
    b = np.asarray(as_operand(bins))
    if b.ndim != 1:
        raise ValueError("xa.digitize: bins must be 1-dimensional")
    t = as_operand(x)
    if KINDS[CODE_OF[t.dtype]] == "c":
        raise TypeError("xa.digitize: x may not be complex")
    delta = np.diff(b)
    increasing = bool(np.all(delta >= 0))
    if not increasing and not np.all(delta <= 0):
        raise ValueError("xa.digitize: bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"
    if increasing:
        return _sorting.searchsorted(asarray(b), t, side=side)
    rev = asarray(np.ascontiguousarray(b[::-1]))
    return b.size - _sorting.searchsorted(rev, t, side=side)


def _bin_index(x, edges, uniform):
    """int64 bin of each element of tensor x among NumPy ``edges`` (the last bin closed
    on the right), -1 outside [edges[0], edges[-1]]; NumPy's arithmetic for equal bins
    ((x - first) / (last - first) * n, truncated, then corrected against the edges) or a
    binary search of the edges."""
    nb = edges.size - 1
    first, last = edges[0], edges[-1]
    x = x.astype(edges.dtype)
    e = asarray(edges)
    inside = U.logical_and(U.greater_equal(x, first), U.less_equal(x, last))
    if uniform and last > first:
        idx = ((x - first) / (last - first) * nb).astype(np.int64)
        idx = U.where(U.logical_and(inside, idx < nb), U.maximum(idx, 0), nb - 1)
        idx = idx - U.less(x, _indexing.take(e, idx)).astype(np.int64)
        idx = U.maximum(idx, 0)
        up = U.logical_and(U.greater_equal(x, _indexing.take(e, U.minimum(idx + 1, nb))),
                           idx != nb - 1)
        idx = idx + up.astype(np.int64)
    else:
        idx = _sorting.searchsorted(e, x, side="right") - 1
        idx = U.where(U.equal(x, last), nb - 1, idx)
    return U.where(inside, idx, -1)


def _counts(index, nbins, weights):
    """Counts (int64) or weight sums (in the weights' dtype, as NumPy's histogram) of the
    bins 0..nbins-1 of ``index`` (-1: outside, dropped): one scatter-add."""
    dn = _gather.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                         scatter_dims_to_operand_dims=(0,))
    dt = np.dtype(np.int64) if weights is None else np.dtype(weights.dtype)
    ups = asarray(np.ones(index.size, dt)) if weights is None else weights
    c = _gather.scatter_add(asarray(np.zeros(nbins + 1, dt)),
                            (index + 1).reshape((index.size, 1)), ups, dn)
    return c[1:]


def histogram(a, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """NumPy's histogram: (counts, or weight sums, or densities; edges). The edges are
    NumPy's (histogram_bin_edges: bookkeeping on a few numbers); each value's bin is
    found with NumPy's arithmetic on xarr's kernels and counted by a scatter-add."""
    x = as_operand(a).reshape((-1,))
    xn = np.asarray(x) if range is None or isinstance(bins, str) else np.zeros(0, x.dtype)
    w = None if weights is None else as_operand(weights).reshape((-1,))
    edges = np.histogram_bin_edges(xn, bins, range,
                                   None if w is None or range is not None else np.asarray(w))
    if range is not None and isinstance(bins, (int, np.integer)):
        edges = np.histogram_bin_edges(np.zeros(0, np.asarray(x[:0]).dtype), bins, range)
    uniform = np.ndim(bins) == 0 and not isinstance(bins, str)
    counts = _counts(_bin_index(x, edges, uniform), edges.size - 1, w)
    if density:
        widths = asarray(np.diff(edges))
        return counts / widths / counts.sum(), asarray(edges)
    return counts, asarray(edges)


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """NumPy's histogram2d: (H, x edges, y edges), each axis binned as histogram bins it,
    H[i, j] counted by one scatter-add of i * ny + j."""
    tx, ty = as_operand(x).reshape((-1,)), as_operand(y).reshape((-1,))
    if tx.shape != ty.shape:
        raise ValueError(f"xa.histogram2d: x and y must have one length, got "
                         f"{tx.shape[0]} and {ty.shape[0]}")
    if np.ndim(bins) == 0 or len(bins) != 2:
        bins = (bins, bins)
    ranges = range if range is not None else (None, None)
    edges = []
    for v, b, r in zip((tx, ty), bins, ranges):
        src = np.asarray(v) if r is None else np.zeros(0, np.asarray(v[:0]).dtype)
        edges.append(np.histogram_bin_edges(src, b, r))
    ix = _bin_index(tx, edges[0], np.ndim(bins[0]) == 0)
    iy = _bin_index(ty, edges[1], np.ndim(bins[1]) == 0)
    nx, ny = edges[0].size - 1, edges[1].size - 1
    flat = U.where(U.logical_and(ix >= 0, iy >= 0), ix * ny + iy, -1)
    w = None if weights is None else as_operand(weights).reshape((-1,))
    h = _counts(flat, nx * ny, w).reshape((nx, ny)).astype(np.float64)
    if density:
        area = asarray(np.diff(edges[0])[:, None] * np.diff(edges[1])[None, :])
        h = h / area / h.sum()
    return h, asarray(edges[0]), asarray(edges[1])
