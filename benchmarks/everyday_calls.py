"""Everyday NumPy functions on small operands (50-element vectors, 8 x 8 matrices): the
per-call cost a script pays when it calls them in a loop, as (key, label, NumPy callable,
xarr callable) on the same data. Issue 13's small-call goal is NumPy's cost or less; the
table printed by ``run_table`` is sorted worst first. Used by asv
(benchmarks/benchmarks/bench_overhead.py ``EverydayCalls``).

    python benchmarks/everyday_calls.py     # per-call times and NumPy/xarr ratios
"""

import math
import warnings

import numpy as np

import xarr as xa


def patterns():
    rng = np.random.default_rng(0)
    a, b, m, v3 = rng.random(50), rng.random(50), rng.random((8, 8)), rng.random(3)
    A, B, M, V3 = (xa.asarray(x) for x in (a, b, m, v3))
    idx = np.array([1, 5, 7])
    IDX = xa.asarray(idx)
    return [
        ("linspace", "linspace", lambda: np.linspace(0, 1, 50),
         lambda: xa.linspace(0, 1, 50)),
        ("arange", "arange", lambda: np.arange(50.0),
         lambda: xa.arange(50.0)),
        ("where", "where", lambda: np.where(a > 0.5, a, b),
         lambda: xa.where(A > 0.5, A, B)),
        ("clip", "clip", lambda: np.clip(a, 0.2, 0.8),
         lambda: xa.clip(A, 0.2, 0.8)),
        ("sort", "sort", lambda: np.sort(a),
         lambda: xa.sort(A)),
        ("argsort", "argsort", lambda: np.argsort(a),
         lambda: xa.argsort(A)),
        ("unique", "unique", lambda: np.unique(a),
         lambda: xa.unique(A)),
        ("cumsum", "cumsum", lambda: np.cumsum(a),
         lambda: xa.cumsum(A)),
        ("diff", "diff", lambda: np.diff(a),
         lambda: xa.diff(A)),
        ("mean", "mean", lambda: np.mean(a),
         lambda: xa.mean(A)),
        ("std", "std", lambda: np.std(a),
         lambda: xa.std(A)),
        ("mean_axis0", "mean axis0", lambda: m.mean(axis=0),
         lambda: M.mean(axis=0)),
        ("dot", "dot", lambda: np.dot(a, b),
         lambda: xa.dot(A, B)),
        ("matmul_8x8", "matmul 8x8", lambda: m @ m,
         lambda: M @ M),
        ("outer", "outer", lambda: np.outer(a, b),
         lambda: xa.outer(A, B)),
        ("tile", "tile", lambda: np.tile(a, 2),
         lambda: xa.tile(A, 2)),
        ("repeat", "repeat", lambda: np.repeat(a, 2),
         lambda: xa.repeat(A, 2)),
        ("pad", "pad", lambda: np.pad(a, 2),
         lambda: xa.pad(A, 2)),
        ("split", "split", lambda: np.split(a, 5),
         lambda: xa.split(A, 5)),
        ("transpose", "transpose", lambda: m.T.copy(),
         lambda: M.T.copy()),
        ("reshape", "reshape", lambda: a.reshape(5, 10),
         lambda: A.reshape(5, 10)),
        ("take", "take", lambda: np.take(a, idx),
         lambda: xa.take(A, IDX)),
        ("fancy", "fancy", lambda: a[idx],
         lambda: A[IDX]),
        ("mask", "mask", lambda: a[a > 0.5],
         lambda: A[A > 0.5]),
        ("nonzero", "nonzero", lambda: np.nonzero(a > 0.5),
         lambda: xa.nonzero(A > 0.5)),
        ("searchsorted", "searchsorted", lambda: np.searchsorted(a, 0.5),
         lambda: xa.searchsorted(A, 0.5)),
        ("interp", "interp", lambda: np.interp(0.3, a, b),
         lambda: xa.interp(0.3, A, B)),
        ("histogram", "histogram", lambda: np.histogram(a, 5),
         lambda: xa.histogram(A, 5)),
        ("percentile", "percentile", lambda: np.percentile(a, 90),
         lambda: xa.percentile(A, 90)),
        ("median", "median", lambda: np.median(a),
         lambda: xa.median(A)),
        ("isclose", "isclose", lambda: np.isclose(a, b),
         lambda: xa.isclose(A, B)),
        ("allclose", "allclose", lambda: np.allclose(a, b),
         lambda: xa.allclose(A, B)),
        ("meshgrid", "meshgrid", lambda: np.meshgrid(a, b),
         lambda: xa.meshgrid(A, B)),
        ("eye", "eye", lambda: np.eye(8),
         lambda: xa.eye(8)),
        ("diag", "diag", lambda: np.diag(m),
         lambda: xa.diag(M)),
        ("trace", "trace", lambda: np.trace(m),
         lambda: xa.trace(M)),
        ("tril", "tril", lambda: np.tril(m),
         lambda: xa.tril(M)),
        ("einsum", "einsum", lambda: np.einsum("ij,j->i", m, m[0]),
         lambda: xa.einsum("ij,j->i", M, M[0])),
        ("norm", "norm", lambda: np.linalg.norm(a),
         lambda: xa.linalg.norm(A)),
        ("solve_3x3", "solve 3x3", lambda: np.linalg.solve(m[:3, :3], v3),
         lambda: xa.linalg.solve(M[:3, :3], V3)),
        ("inv_8x8", "inv 8x8", lambda: np.linalg.inv(m),
         lambda: xa.linalg.inv(M)),
        ("cross", "cross", lambda: np.cross(v3, v3[::-1]),
         lambda: xa.cross(V3, V3[::-1])),
        ("gradient", "gradient", lambda: np.gradient(a),
         lambda: xa.gradient(A)),
        ("round", "round", lambda: np.round(a, 2),
         lambda: xa.round(A, 2)),
        ("max_axis1", "max axis1", lambda: m.max(axis=1),
         lambda: M.max(axis=1)),
        ("argmax", "argmax", lambda: a.argmax(),
         lambda: A.argmax()),
        ("sqrt", "sqrt", lambda: np.sqrt(a),
         lambda: xa.sqrt(A)),
        ("sum_keepdims", "sum keepdims", lambda: m.sum(axis=1, keepdims=True),
         lambda: M.sum(axis=1, keepdims=True)),
        ("astype", "astype", lambda: a.astype(np.float32),
         lambda: A.astype(np.float32)),
        ("full_like", "full_like", lambda: np.full_like(a, 2.0),
         lambda: xa.full_like(A, 2.0)),
        ("zeros_like", "zeros_like", lambda: np.zeros_like(a),
         lambda: xa.zeros_like(A)),
        ("copy", "copy", lambda: a.copy(),
         lambda: A.copy()),
        ("flatten", "flatten", lambda: m.flatten(),
         lambda: M.flatten()),
        ("argwhere", "argwhere", lambda: np.argwhere(a > 0.5),
         lambda: xa.argwhere(A > 0.5)),
        ("count_nonzero", "count_nonzero", lambda: np.count_nonzero(a > 0.5),
         lambda: xa.count_nonzero(A > 0.5)),
        ("atleast_2d", "atleast_2d", lambda: np.atleast_2d(a),
         lambda: xa.atleast_2d(A)),
        ("swapaxes", "swapaxes", lambda: np.swapaxes(m, 0, 1),
         lambda: xa.swapaxes(M, 0, 1)),
        ("expand_dims", "expand_dims", lambda: np.expand_dims(a, 0),
         lambda: xa.expand_dims(A, 0)),
        ("squeeze", "squeeze", lambda: np.squeeze(a[None]),
         lambda: xa.squeeze(A[None])),
        ("flip", "flip", lambda: np.flip(a),
         lambda: xa.flip(A)),
        ("array_split", "array_split", lambda: np.array_split(a, 3),
         lambda: xa.array_split(A, 3)),
        ("logspace", "logspace", lambda: np.logspace(0, 1, 50),
         lambda: xa.logspace(0, 1, 50)),
        ("vstack", "vstack", lambda: np.vstack([a, b]),
         lambda: xa.vstack([A, B])),
        ("moveaxis", "moveaxis", lambda: np.moveaxis(m, 0, 1),
         lambda: xa.moveaxis(M, 0, 1)),
        ("bincount", "bincount", lambda: np.bincount(idx),
         lambda: xa.bincount(IDX)),
        ("digitize", "digitize", lambda: np.digitize(a, [0.2, 0.5]),
         lambda: xa.digitize(A, xa.asarray([0.2, 0.5]))),
        ("nan_to_num", "nan_to_num", lambda: np.nan_to_num(a),
         lambda: xa.nan_to_num(A)),
        ("var_axis0", "var axis0", lambda: m.var(axis=0),
         lambda: M.var(axis=0)),
        ("prod", "prod", lambda: np.prod(a),
         lambda: xa.prod(A)),
        ("any", "any", lambda: np.any(a > 0.9),
         lambda: xa.any(A > 0.9)),
    ]


def run_table():
    from xarr.tour import per_call
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xa.NumPyFallbackWarning)
        for key, label, np_fn, xa_fn in patterns():
            tn, tx = per_call(np_fn, 2000), per_call(xa_fn, 2000)
            rows.append((tn / tx, label, tn, tx))
    rows.sort()
    for r, label, tn, tx in rows:
        print(f"{label:16s} NumPy {tn * 1e6:7.2f} us  xarr {tx * 1e6:7.2f} us  {r:5.2f}x")
    ratios = [r[0] for r in rows]
    print(f"geomean {math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f}x over "
          f"{len(ratios)}; {sum(r < 1 for r in ratios)} below 1.0x")


if __name__ == "__main__":
    run_table()
