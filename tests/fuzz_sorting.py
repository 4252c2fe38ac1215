"""Fuzz specs of issue 16's sorting functions (xarr/_ops/sorting.py,
xarr/_numpy/sorting.py), registered into fuzz_ops.SPECS: each against NumPy's stable sort
on random values (NaNs, signed zeros, duplicates), shapes and storages, eagerly, under
xa.jit and in xa.lazy."""

import numpy as np
from hypothesis import strategies as st

import xarr as xa
from conftest import BF16
from fuzz_ops import NOT_FUZZED, SPECS, Case, exact, numpy_call, operand, quiet, shapes

SORTABLE = [xa.bool_, xa.int8, xa.uint8, xa.int16, xa.uint16, xa.int32, xa.uint32,
            xa.int64, xa.uint64, xa.float16, xa.bfloat16, xa.float32, xa.float64,
            xa.complex64, xa.complex128]


def _keys(x):
    return x.astype(np.float32) if x.dtype == BF16 else x


def _draw_sortable(draw, min_dims=1):
    dt = draw(st.sampled_from(SORTABLE))
    x, t = draw(operand(draw(shapes(min_dims)), dt))
    if draw(st.booleans()) and x.size:       # duplicates: a few values repeated
        rng = np.random.default_rng(draw(st.integers(0, 99)))
        x = rng.choice(x.reshape(-1)[: max(1, x.size // 3)], x.size).reshape(x.shape)
        t = xa.asarray(x)
    axis = draw(st.integers(-x.ndim, x.ndim - 1)) if x.ndim else None
    return x, t, axis


def _sort(draw):
    x, t, axis = _draw_sortable(draw)
    return Case(run=quiet(lambda: xa.sort(t, axis=axis)),
                ref=lambda: np.take_along_axis(
                    x, np.argsort(_keys(x), axis=axis, kind="stable"), axis),
                check=exact, inputs={"x": x, "axis": axis},
                traced=(lambda v: xa.sort(v, axis=axis), [t]))


def _argsort(draw):
    x, t, axis = _draw_sortable(draw)
    return Case(run=quiet(lambda: xa.argsort(t, axis=axis)),
                ref=lambda: np.argsort(_keys(x), axis=axis, kind="stable"),
                check=exact, inputs={"x": x, "axis": axis},
                traced=(lambda v: xa.argsort(v, axis=axis), [t]))


def _lexsort(draw):
    shp = draw(shapes(1, 2))
    dts = [draw(st.sampled_from([xa.int8, xa.float32, xa.uint16, xa.float64]))
           for _ in range(draw(st.integers(1, 3)))]
    pairs = [draw(operand(shp, dt, low=-2, high=2)) for dt in dts]
    xs, ts = [p[0] for p in pairs], [p[1] for p in pairs]
    return Case(run=quiet(lambda: xa.lexsort(ts)), ref=lambda: numpy_call(np.lexsort, xs),
                check=exact, inputs={"keys": xs},
                traced=(lambda *vs: xa.lexsort(list(vs)), ts))


def _partition(name):
    def case(draw):
        dt = draw(st.sampled_from([xa.int32, xa.float32, xa.float64, xa.uint8]))
        x, t = draw(operand(draw(shapes(1)), dt))
        n = x.shape[-1]
        kth = draw(st.integers(-n, n - 1)) if n else 0
        fn = getattr(xa, name)

        def check(got, want):
            got = np.asarray(got)
            assert got.shape == np.asarray(want).shape
            vals = np.take_along_axis(x, got, -1) if name == "argpartition" else got
            k = kth % n
            ref = np.sort(x, axis=-1)
            np.testing.assert_array_equal(vals[..., k], ref[..., k])

        return Case(run=quiet(lambda: fn(t, kth)),
                    ref=lambda: getattr(np, name)(x, kth) if n else x.astype(
                        np.int64 if name == "argpartition" else x.dtype),
                    check=check if n else exact, inputs={"x": x, "kth": kth},
                    traced=(lambda v: fn(v, kth), [t]))
    return case


def _sort_complex(draw):
    dt = draw(st.sampled_from([xa.int8, xa.int32, xa.float32, xa.float64, xa.complex64]))
    x, t = draw(operand(draw(shapes(1)), dt))
    return Case(run=quiet(lambda: xa.sort_complex(t)),
                ref=lambda: np.sort_complex(x), check=exact, inputs={"x": x},
                traced=(lambda v: xa.sort_complex(v), [t]))


def _lax_sort(draw):
    shp = draw(shapes(1))
    n_ops = draw(st.integers(1, 3))
    num_keys = draw(st.integers(1, n_ops))
    pairs = [draw(operand(shp, draw(st.sampled_from(SORTABLE[:-2])), low=-2, high=2))
             for _ in range(n_ops)]
    xs, ts = [p[0] for p in pairs], [p[1] for p in pairs]
    dim = draw(st.integers(0, len(shp) - 1))

    def ref():
        order = np.lexsort([_keys(k) for k in reversed(xs[:num_keys])], axis=dim)
        return tuple(np.take_along_axis(x, order, dim) for x in xs)

    return Case(run=quiet(lambda: xa.lax.sort(tuple(ts), dim, True, num_keys)), ref=ref,
                check=exact, inputs={"operands": xs, "dimension": dim, "num_keys": num_keys},
                traced=(lambda *vs: xa.lax.sort(vs, dim, True, num_keys), ts))


def _lax_sort_key_val(draw):
    shp = draw(shapes(1))
    k, tk = draw(operand(shp, draw(st.sampled_from([xa.float32, xa.int16])), low=-2, high=2))
    v, tv = draw(operand(shp, xa.float64))
    order = lambda: np.argsort(k, axis=-1, kind="stable")  # noqa: E731
    return Case(run=quiet(lambda: xa.lax.sort_key_val(tk, tv)),
                ref=lambda: (np.take_along_axis(k, order(), -1),
                             np.take_along_axis(v, order(), -1)),
                check=exact, inputs={"keys": k, "values": v},
                traced=(lambda a, b: xa.lax.sort_key_val(a, b), [tk, tv]))


def _lax_argsort(draw):
    x, t, axis = _draw_sortable(draw)
    return Case(run=quiet(lambda: xa.lax.argsort(t, axis)),
                ref=lambda: np.argsort(_keys(x), axis=axis, kind="stable"),
                check=exact, inputs={"x": x, "axis": axis},
                traced=(lambda v: xa.lax.argsort(v, axis), [t]))


def _lax_top_k(draw):
    dt = draw(st.sampled_from([xa.float32, xa.int32, xa.float64, xa.uint8]))
    x, t = draw(operand(draw(shapes(1)), dt))
    k = draw(st.integers(0, x.shape[-1]))

    def ref():
        rank = np.unique(x, return_inverse=True, equal_nan=True)[1].reshape(x.shape) \
            if x.size else np.zeros(x.shape, np.int64)
        pos = np.broadcast_to(np.arange(x.shape[-1]), x.shape)
        order = np.lexsort((pos, -rank), axis=-1)[..., :k]
        return np.take_along_axis(x, order, -1), order.astype(np.int32)

    return Case(run=quiet(lambda: xa.lax.top_k(t, k)), ref=ref, check=exact,
                inputs={"x": x, "k": k}, traced=(lambda v: xa.lax.top_k(v, k), [t]))


SPECS["xa.sort"] = _sort
SPECS["xa.argsort"] = _argsort
SPECS["xa.lexsort"] = _lexsort
SPECS["xa.partition"] = _partition("partition")
SPECS["xa.argpartition"] = _partition("argpartition")
SPECS["xa.sort_complex"] = _sort_complex
SPECS["lax.sort"] = _lax_sort
SPECS["lax.sort_key_val"] = _lax_sort_key_val
SPECS["lax.argsort"] = _lax_argsort
SPECS["lax.top_k"] = _lax_top_k

NOT_FUZZED.update({
    f"lax.{n}": "random dimension numbers, modes and computations against loops written "
                "from the seed: tests/test_gather_scatter.py (hypothesis)"
    for n in ("gather", "scatter", "scatter_add", "scatter_mul", "scatter_min",
              "scatter_max", "scatter_apply")})

NOT_FUZZED.update({
    f"xa.{n}": "against NumPy over dtypes, shapes, NaNs and duplicates, with jit / lazy "
               "where the shape is static: tests/test_sets_statistics.py (hypothesis)"
    for n in ("unique", "unique_all", "unique_counts", "unique_inverse", "unique_values",
              "isin", "intersect1d", "union1d", "setdiff1d", "median", "nanmedian",
              "percentile", "quantile", "bincount", "histogram", "histogram2d",
              "digitize")})
NOT_FUZZED.update({
    f"xa.{n}": "in place or data-dependent shapes, against NumPy over dtypes, layouts and "
               "modes: tests/test_sets_statistics.py (hypothesis)"
    for n in ("put", "put_along_axis", "compress", "choose")})
