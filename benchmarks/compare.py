"""Side-by-side comparison of xarr with NumPy and (when installed) PyTorch (eager and
torch.compile), JAX (jax.jit) and numexpr.

Prints one row per workload with each library's best time and the ratio peer-time /
xarr-time (> 1 means xarr is faster), and with ``--markdown FILE`` writes the same table for
docs/performance.md. All numbers come from one process on one machine, same data. With
``--rounds R`` every cell is the median of R best times taken back to back with the other
libraries' (shuffled order each round) and each ratio the median of the R per-round ratios.

    python benchmarks/compare.py [--markdown out.md] [--threads N] [--rounds R]

To compare against NumPy's own BLAS-free kernels nothing else is needed; when a workload
uses BLAS, unset OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE for that command only.
"""

import argparse
import atexit
import datetime
import os
import platform
import random
import statistics
import tempfile
import time

import sys

import numpy as np

import xarr as xa
from xarr.tour import best_time as best
from xarr.tour import per_call

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchmarks.common import chain3, chain20  # noqa: E402

from compare_linalg import decomposition_rows, factor_rows, linalg_rows  # noqa: E402
from peers import SCIPY, jax, jnp, numexpr, scipy_fft, torch  # noqa: E402


class _TorchScalars:
    """torch spelled like the array namespaces chain20 expects (maximum/minimum with a
    Python scalar)."""

    exp, abs, sqrt = (staticmethod(getattr(torch, n)) if torch is not None else None
                      for n in ("exp", "abs", "sqrt"))
    maximum = staticmethod(lambda a, b: torch.clamp(a, min=b))
    minimum = staticmethod(lambda a, b: torch.clamp(a, max=b))


def workloads():
    n = 16 * 1024 * 1024
    rng = np.random.default_rng(0)
    a, b, c = (rng.random(n, dtype=np.float32) for _ in range(3))
    # Each library reads its own allocation, as its users' arrays would be: xarr copies
    # into its 2 MiB-aligned, huge-page-advised buffers (jnp.asarray copies too). A
    # zero-copy xa.asarray(ndarray) would read NumPy's buffer, which here sits 16 bytes
    # past a page boundary on 4 KiB pages; a 4096^2 f32 sum read it 3-5% slower (medians
    # of 15 interleaved rounds; single rounds from 23% slower to 15% faster).
    xa_a, xa_b, xa_c = (xa.asarray(v, copy=True) for v in (a, b, c))
    m = rng.random((4096, 4096), dtype=np.float32)
    xm = xa.asarray(m, copy=True)
    s1, s2 = rng.random(100, dtype=np.float32), rng.random(100, dtype=np.float32)
    s3 = rng.random(100, dtype=np.float32)
    x1, x2, x3 = xa.asarray(s1), xa.asarray(s2), xa.asarray(s3)
    jit3 = xa.jit(lambda p, q, r: chain3(p, q, r, xa))
    jit20 = xa.jit(lambda x: chain20(x, xa))

    def lazy3():
        with xa.lazy():
            y = chain3(xa_a, xa_b, xa_c, xa)
        return xa.eval(y)
    t = {}
    if torch is not None:
        ta, tb, tc = (torch.from_numpy(v) for v in (a, b, c))
        tm = torch.from_numpy(m)
        t1, t2 = torch.from_numpy(s1), torch.from_numpy(s2)
        t = {
            "add": lambda: ta + tb, "mul": lambda: ta * tb,
            "exp": lambda: torch.exp(ta), "tanh": lambda: torch.tanh(ta),
            "chain": lambda: 2 * ta + 3 * tb * tb - torch.exp(-tc),
            "transpose": lambda: tm.t().contiguous(),
            "small": lambda: t1 + t2, "small_exp": lambda: torch.exp(t1),
            "small_sum": lambda: torch.sum(t1),
        }
        c3, c20 = torch.compile(lambda p, q, r: chain3(p, q, r, torch)), \
            torch.compile(lambda x: chain20(x, _TorchScalars))
        t3 = torch.from_numpy(s3)
        t.update({"chain_jit": lambda: c3(ta, tb, tc), "chain_lazy": lambda: c3(ta, tb, tc),
                  "chain20": lambda: c20(ta), "jit_small": lambda: c3(t1, t2, t3)})
    jx = {}
    if jax is not None:
        ja, jb, jc = (jnp.asarray(v) for v in (a, b, c))
        j1, j2, j3 = (jnp.asarray(v) for v in (s1, s2, s3))
        j3f = jax.jit(lambda p, q, r: chain3(p, q, r, jnp))
        j20 = jax.jit(lambda x: chain20(x, jnp))
        jx = {"chain_jit": lambda: j3f(ja, jb, jc).block_until_ready(),
              "chain_lazy": lambda: j3f(ja, jb, jc).block_until_ready(),
              "chain20": lambda: j20(ja).block_until_ready(),
              "jit_small": lambda: j3f(j1, j2, j3).block_until_ready(),
              "add": lambda: (ja + jb).block_until_ready()}
    ne = {}
    if numexpr is not None:
        ne3 = lambda: numexpr.evaluate("2*a + 3*b*b - exp(-c)",  # noqa: E731
                                       local_dict={"a": a, "b": b, "c": c})
        ne = {"chain": ne3, "chain_jit": ne3, "chain_lazy": ne3,
              "exp": lambda: numexpr.evaluate("exp(a)", local_dict={"a": a}),
              "tanh": lambda: numexpr.evaluate("tanh(a)", local_dict={"a": a})}
    return [
        ("add", "add 16M f32", lambda: a + b, lambda: xa_a + xa_b, best, 3 * a.nbytes),
        ("mul", "mul 16M f32", lambda: a * b, lambda: xa_a * xa_b, best, 3 * a.nbytes),
        ("exp", "exp 16M f32", lambda: np.exp(a), lambda: xa.exp(xa_a), best, 2 * a.nbytes),
        ("tanh", "tanh 16M f32", lambda: np.tanh(a), lambda: xa.tanh(xa_a), best,
         2 * a.nbytes),
        ("chain", "2a + 3b*b - exp(-c) 16M f32 (eager)",
         lambda: 2 * a + 3 * b * b - np.exp(-c),
         lambda: 2.0 * xa_a + 3.0 * xa_b * xa_b - xa.exp(-xa_c), best, 4 * a.nbytes),
        ("transpose", "relayout {1,0}->{0,1} 4096^2 f32",
         lambda: np.ascontiguousarray(m.T), lambda: xm.relayout((0, 1)), best, m.nbytes),
        ("small", "x + y, 100 f32 (per call)", lambda: s1 + s2, lambda: x1 + x2, per_call,
         None),
        ("small_exp", "exp(x), 100 f32 (per call)", lambda: np.exp(s1), lambda: xa.exp(x1),
         per_call, None),
        ("small_sum", "sum(x), 100 f32 (per call)", lambda: np.sum(s1), lambda: xa.sum(x1),
         per_call, None),
        ("chain_jit", "2a + 3b*b - exp(-c) 16M f32, xa.jit (peers: jit/compile)",
         lambda: chain3(a, b, c, np), lambda: jit3(xa_a, xa_b, xa_c), best, 4 * a.nbytes),
        ("chain_lazy", "2a + 3b*b - exp(-c) 16M f32, xa.lazy + xa.eval",
         lambda: chain3(a, b, c, np), lazy3, best, 4 * a.nbytes),
        ("chain20", "20-op chain 16M f32, xa.jit (peers: jit/compile)",
         lambda: chain20(a, np), lambda: jit20(xa_a), best, 2 * a.nbytes),
        ("jit_small", "cached jit call, 3 x 100 f32 chain (per call)",
         lambda: chain3(s1, s2, s3, np), lambda: jit3(x1, x2, x3), per_call, None),
        ("copy", "copy 16M f32 (bandwidth reference)", lambda: a.copy(),
         lambda: xa_a.copy(), best, 2 * a.nbytes),
    ] + reduction_rows(m, xm, a, xa_a, t, jx) + structural_rows(m, xm) + \
        indexing_rows(a, xa_a) + search_rows(jx) + sort_rows(t, jx) + gather_rows(t, jx) + \
        dot_rows(t, jx) + \
        conv_rows(t, jx) + \
        pow_rows(a, b, xa_a, xa_b, t) + \
        call_rows() + kernel_rows() + sweep_rows() + io_rows() + fft_rows(t, jx) + \
        random_rows(t, jx) + linalg_rows(t, jx) + factor_rows(t, jx) + \
        decomposition_rows(t, jx), \
        [("torch", torch, t), ("numexpr", numexpr, ne), ("jax", jax, jx),
         ("scipy", scipy_fft, SCIPY)]


def reduction_rows(m, xm, a, xa_a, t, jx):
    """Issue 4: sums of 4096^2 f32 in both layouts, mean/var, fused sum(exp(x)*2)."""
    mc = np.asfortranarray(m)
    xmc = xm.relayout((0, 1))
    jit_sum = xa.jit(lambda x: xa.sum(xa.exp(x) * 2))
    rows = []
    for lay, nm, xx in (("{1,0}", m, xm), ("{0,1}", mc, xmc)):
        for axis in (None, 0, 1):
            key = f"sum_{lay}_{axis}"
            rows.append((key, f"sum axis={axis} 4096^2 f32 {lay}",
                         lambda nm=nm, axis=axis: nm.sum(axis=axis),
                         lambda xx=xx, axis=axis: xa.sum(xx, axis=axis), best, m.nbytes))
            if torch is not None:
                tt = torch.from_numpy(nm)
                t[key] = (lambda tt=tt: tt.sum()) if axis is None else \
                    (lambda tt=tt, axis=axis: tt.sum(dim=axis))
            if jax is not None:
                # jax arrays are row-major: the {0,1} case gives jax the transpose and the
                # other axis, so both libraries walk the same bytes in the same order.
                jm = jnp.asarray(m if lay == "{1,0}" else np.ascontiguousarray(m.T))
                jaxis = axis if lay == "{1,0}" or axis is None else 1 - axis
                f = jax.jit(lambda v, jaxis=jaxis: jnp.sum(v, axis=jaxis))
                jx[key] = lambda f=f, jm=jm: f(jm).block_until_ready()
    rows += [
        ("mean1", "mean axis=1 4096^2 f32", lambda: m.mean(axis=1),
         lambda: xa.mean(xm, axis=1), best, m.nbytes),
        ("var1", "var axis=1 4096^2 f32", lambda: m.var(axis=1),
         lambda: xa.var(xm, axis=1), best, m.nbytes),
        ("sumexp", "sum(exp(x)*2) 16M f32, xa.jit (one kInput kernel)",
         lambda: np.sum(np.exp(a) * 2), lambda: jit_sum(xa_a), best, a.nbytes),
        ("cumsum", "cumsum axis=0 4096^2 f32", lambda: np.cumsum(m, axis=0),
         lambda: xa.cumsum(xm, axis=0), best, 2 * m.nbytes),
    ]
    if jax is not None:
        ja = jnp.asarray(a)
        js = jax.jit(lambda v: jnp.sum(jnp.exp(v) * 2))
        jx["sumexp"] = lambda: js(ja).block_until_ready()
    return rows


def structural_rows(m, xm):
    """Issue 4: copies of large arrays that must run near copy bandwidth."""
    small = m[:2048]
    xsmall = xm[:2048]
    return [
        ("pad", "pad 4096^2 f32 by 8 (constant)", lambda: np.pad(m, 8),
         lambda: xa.pad(xm, 8), best, 2 * m.nbytes),
        ("concat", "concatenate 2 x 2048x4096 f32", lambda: np.concatenate([small, small]),
         lambda: xa.concatenate([xsmall, xsmall]), best, 2 * m.nbytes),
        ("rev", "flip (rev) both dims 4096^2 f32, copied", lambda: np.flip(m).copy(),
         lambda: xa.flip(xm).copy(), best, 2 * m.nbytes),
        ("dus", "dynamic_update_slice 2048^2 into 4096^2 f32",
         lambda: _np_dus(m, small[:, :2048]),
         lambda: xa.lax.dynamic_update_slice(xm, xsmall[:, :2048], (1024, 1024)), best,
         2 * m.nbytes),
    ]


def indexing_rows(a, xa_a):
    """Issue 4: boolean-mask get of 16M f32 with half true, random gather."""
    mask = np.random.default_rng(1).random(a.size) < 0.5
    xmask = xa.asarray(mask)
    idx = np.random.default_rng(2).integers(0, a.size, a.size // 16)
    xidx = xa.asarray(idx)
    return [
        ("maskget", "x[mask] 16M f32, half true", lambda: a[mask], lambda: xa_a[xmask],
         best, a.nbytes + mask.nbytes),
        ("gather", "x[idx] 1M random of 16M f32", lambda: a[idx], lambda: xa_a[xidx], best,
         None),
    ]


def search_rows(jx):
    """The sort family's binary searches (issue 16's searchsorted target: 1.5x NumPy on 1M
    random keys into 16M sorted f32) and interp (issue 14), against NumPy and jax.jit."""
    rng = np.random.default_rng(16)
    big = np.sort(rng.random(16_000_000, dtype=np.float32))
    keys = rng.random(1_000_000, dtype=np.float32)
    xp, fp = np.sort(rng.random(1000)), rng.standard_normal(1000)
    x, xs = rng.random(1_000_000), rng.random(100)
    skeys = np.sort(keys)
    tb, tk, tsk, txp, tfp, tx, txs = (xa.asarray(v) for v in (big, keys, skeys, xp, fp, x,
                                                              xs))
    if jax is not None:
        jb, jkey, jxp, jfp, jxx = (jnp.asarray(v) for v in (big, keys, xp, fp, x))
        jss = jax.jit(jnp.searchsorted)
        jint = jax.jit(jnp.interp)
        jx["searchsorted"] = lambda: jss(jb, jkey).block_until_ready()
        jx["search_interp"] = lambda: jint(jxx, jxp, jfp).block_until_ready()
    return [
        ("searchsorted", "searchsorted 1M random keys into 16M sorted f32",
         lambda: np.searchsorted(big, keys), lambda: xa.searchsorted(tb, tk), best, None),
        ("search_sorted_keys", "searchsorted 1M sorted keys into 16M sorted f32",
         lambda: np.searchsorted(big, skeys), lambda: xa.searchsorted(tb, tsk), best, None),
        ("search_interp", "interp 1M f64 points on 1000 samples",
         lambda: np.interp(x, xp, fp), lambda: xa.interp(tx, txp, tfp), best, None),
        ("search_interp_small", "interp 100 points on 1000 samples (per call)",
         lambda: np.interp(xs, xp, fp), lambda: xa.interp(txs, txp, tfp), per_call, None),
    ]


def sort_rows(t, jx):
    """Issue 16's sorts: 16M f32 / i32 / f64 (goal 1.5x NumPy and 250 Melem/s for 4-byte
    keys), stable sort and argsort of 16M f32 (3x NumPy, 100 Melem/s), 4096 rows of 4096
    f32 (2x NumPy), a 2-operand lax.sort with num_keys=1 (3x jax.jit), against NumPy,
    torch.sort and jax.jit; median and percentile of 16M f32 (1.5x NumPy), unique of 16M
    i32 with 1M distinct values (2x NumPy)."""
    rng = np.random.default_rng(16)
    n = 16 * 1024 * 1024
    f32 = rng.standard_normal(n).astype(np.float32)
    i32 = rng.integers(-2**31, 2**31 - 1, n, dtype=np.int32)
    f64 = rng.standard_normal(n)
    rows = rng.standard_normal((4096, 4096)).astype(np.float32)
    k1, v1 = rng.standard_normal(1 << 20).astype(np.float32), np.arange(1 << 20, dtype=np.int32)
    dist = rng.integers(0, 1 << 20, n, dtype=np.int32)
    x32, xi, x64, xr, xk, xv, xdist = (xa.asarray(v) for v in (f32, i32, f64, rows, k1, v1,
                                                               dist))
    few = lambda fn: best(fn, 3)  # noqa: E731  (seconds-long NumPy sorts)
    if torch is not None:
        t32, ti, t64, tr, tdist = (torch.from_numpy(v) for v in (f32, i32, f64, rows, dist))
        t.update({"sort_f32": lambda: torch.sort(t32), "sort_i32": lambda: torch.sort(ti),
                  "sort_f64": lambda: torch.sort(t64),
                  "sort_stable_f32": lambda: torch.sort(t32, stable=True),
                  "sort_argsort_f32": lambda: torch.sort(t32, stable=True)[1],
                  "sort_rows": lambda: torch.sort(tr, dim=-1),
                  "sort_unique": lambda: torch.unique(tdist, sorted=True)})
    if jax is not None:
        j32, ji, j64, jr, jk, jv = (jnp.asarray(v) for v in (f32, i32, f64, rows, k1, v1))
        jsort = jax.jit(jnp.sort)
        jrows = jax.jit(lambda v: jnp.sort(v, axis=-1))
        jarg = jax.jit(lambda v: jnp.argsort(v, stable=True))
        jkv = jax.jit(lambda k, v: jax.lax.sort((k, v), num_keys=1))
        jmed = jax.jit(jnp.median)
        jpct = jax.jit(lambda v: jnp.percentile(v, 90))
        jx.update({"sort_f32": lambda: jsort(j32).block_until_ready(),
                   "sort_i32": lambda: jsort(ji).block_until_ready(),
                   "sort_f64": lambda: jsort(j64).block_until_ready(),
                   "sort_argsort_f32": lambda: jarg(j32).block_until_ready(),
                   "sort_rows": lambda: jrows(jr).block_until_ready(),
                   "sort_lax2": lambda: jkv(jk, jv)[1].block_until_ready(),
                   "sort_median": lambda: jmed(j32).block_until_ready(),
                   "sort_percentile": lambda: jpct(j32).block_until_ready()})
    return [
        ("sort_f32", "sort 16M f32", lambda: np.sort(f32), lambda: xa.sort(x32, stable=False),
         few, None),
        ("sort_i32", "sort 16M i32", lambda: np.sort(i32), lambda: xa.sort(xi), few, None),
        ("sort_f64", "sort 16M f64", lambda: np.sort(f64), lambda: xa.sort(x64, stable=False),
         few, None),
        ("sort_stable_f32", "stable sort 16M f32", lambda: np.sort(f32, kind="stable"),
         lambda: xa.sort(x32), few, None),
        ("sort_argsort_f32", "stable argsort 16M f32", lambda: np.argsort(f32, kind="stable"),
         lambda: xa.argsort(x32), few, None),
        ("sort_rows", "sort 4096 rows of 4096 f32", lambda: np.sort(rows, axis=-1),
         lambda: xa.sort(xr, axis=-1), few, None),
        ("sort_lax2", "lax.sort (keys f32, values i32) 1M, num_keys=1",
         lambda: v1[np.argsort(k1, kind="stable")],
         lambda: xa.lax.sort((xk, xv), num_keys=1), few, None),
        ("sort_median", "median 16M f32", lambda: np.median(f32), lambda: xa.median(x32),
         few, None),
        ("sort_percentile", "percentile 90 of 16M f32", lambda: np.percentile(f32, 90),
         lambda: xa.percentile(x32, 90), few, None),
        ("sort_unique", "unique 16M i32 (1M distinct)", lambda: np.unique(dist),
         lambda: xa.unique(xdist), few, None),
    ]


def gather_rows(t, jx):
    """Issue 16's gather and scatter: 4M random elements out of 16M f32 (goal 1.2x
    jax.jit), an embedding lookup of 1M rows of 64 f32 out of 100k (0.7 of copy bandwidth:
    compare GB/s with the copy row), scatter-add of 4M updates into 1M f32 (1.5x jax.jit,
    2x NumPy's add.at)."""
    rng = np.random.default_rng(17)
    src = rng.random(16 * 1024 * 1024, dtype=np.float32)
    pick = rng.integers(0, src.size, 4 * 1024 * 1024)
    table = rng.random((100_000, 64), dtype=np.float32)
    rows = rng.integers(0, 100_000, 1_000_000)
    dest = np.zeros(1 << 20, np.float32)
    where = rng.integers(0, dest.size, 4 * 1024 * 1024)
    upd = rng.random(where.size, dtype=np.float32)
    L = xa.lax
    one = L.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
                                   start_index_map=(0,))
    row = L.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                   start_index_map=(0,))
    add = L.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                    scatter_dims_to_operand_dims=(0,))
    xs, xp, xt, xr, xd, xw, xu = (xa.asarray(v) for v in (src, pick[:, None], table,
                                                          rows[:, None], dest,
                                                          where[:, None], upd))
    if torch is not None:
        ts, tp, tt, tr, td, tw, tu = (torch.from_numpy(v) for v in (src, pick, table, rows,
                                                                    dest, where, upd))
        t.update({"gather_take": lambda: ts[tp],
                  "gather_embedding": lambda: torch.nn.functional.embedding(tr, tt),
                  "gather_scatter_add": lambda: td.clone().index_add_(0, tw, tu)})
    if jax is not None:
        js, jp, jt, jr, jd, jw, ju = (jnp.asarray(v) for v in (src, pick, table, rows, dest,
                                                               where, upd))
        jtake = jax.jit(lambda a, i: a[i])
        jemb = jax.jit(lambda a, i: jnp.take(a, i, axis=0))
        jadd = jax.jit(lambda d, i, u: d.at[i].add(u))
        jx.update({"gather_take": lambda: jtake(js, jp).block_until_ready(),
                   "gather_embedding": lambda: jemb(jt, jr).block_until_ready(),
                   "gather_scatter_add": lambda: jadd(jd, jw, ju).block_until_ready()})

    def np_add_at():
        out = dest.copy()
        np.add.at(out, where, upd)
        return out

    return [
        ("gather_take", "gather 4M random of 16M f32", lambda: src[pick],
         lambda: L.gather(xs, xp, one, (1,)), best, 2 * pick.size * 4),
        ("gather_embedding", "embedding lookup 1M rows x 64 f32 of 100k",
         lambda: table[rows], lambda: L.gather(xt, xr, row, (1, 64)), best,
         2 * rows.size * 64 * 4),
        ("gather_scatter_add", "scatter-add 4M updates into 1M f32", np_add_at,
         lambda: L.scatter_add(xd, xw, xu, add), best, None),
    ]


def dot_rows(t, jx):
    """Issue 12: GEMMs square and skinny (f32, f64), an operand in {0,1}, batched small
    products as matmul and einsum, matrix-vector, and jit relu(x @ w + b). The last
    column is GFLOP/s here (GB/s of the matrix for matrix-vector)."""
    rng = np.random.default_rng(12)
    rows = []

    def add(key, label, np_ops, np_fn, xa_fn_of, flops, torch_fn=None, jax_fn=None):
        xs = [xa.asarray(v, copy=True) for v in np_ops]
        rows.append((key, label, lambda: np_fn(*np_ops), lambda: xa_fn_of(*xs), best,
                     flops))
        if torch is not None and torch_fn is not None:
            def as_torch(v):  # (torch reads no ml_dtypes array: bf16 through its bits)
                v = np.ascontiguousarray(v)
                if v.dtype.name == "bfloat16":
                    return torch.from_numpy(v.view(np.int16)).view(torch.bfloat16)
                return torch.from_numpy(v)

            ts = [as_torch(v) for v in np_ops]
            t[key] = lambda: torch_fn(*ts)
        if jax is not None and jax_fn is not None:
            js = [jnp.asarray(v) for v in np_ops]
            jf = jax.jit(jax_fn)
            jx[key] = lambda: jf(*js).block_until_ready()

    # 64 x 576 x 12544: the shape of a 3x3 / 2 convolution's implicit GEMM (wide, short)
    for (m, k, n) in ((2048, 2048, 2048), (512, 512, 512), (128, 128, 128),
                      (4096, 64, 4096), (64, 4096, 64), (64, 576, 12544)):
        for dt in (np.float32, np.float64):
            a = rng.random((m, k)).astype(dt)
            b = rng.random((k, n)).astype(dt)
            add(f"gemm_{m}x{k}x{n}_{np.dtype(dt).name}",
                f"matmul {m}x{k}x{n} {np.dtype(dt).name} (GFLOP/s)", [a, b],
                np.matmul, lambda x, y: x @ y, 2.0 * m * k * n, torch.matmul if torch else None,
                lambda x, y: x @ y)
    # int8 and bf16 operands: xarr's k-grouped kernels (AMX / AVX512-VNNI / AVX512-BF16
    # where the CPU has them). NumPy has no fast int8 or bf16 product: its row is what a
    # NumPy user runs instead, a float32 matmul of the converted operands.
    import ml_dtypes
    i8a, i8b = (rng.integers(-128, 128, (2048, 2048)).astype(np.int8) for _ in range(2))
    add("gemm_int8", "dot 2048^3 s8 x s8 -> s32 (GOP/s; NumPy: f32 matmul)", [i8a, i8b],
        lambda x, y: x.astype(np.float32) @ y.astype(np.float32),
        lambda x, y: xa.lax.dot(x, y, preferred_element_type=np.int32), 2.0 * 2048 ** 3,
        getattr(torch, "_int_mm", None) if torch else None,
        lambda x, y: jax.lax.dot(x, y, preferred_element_type=jnp.int32))
    bfa, bfb = (rng.standard_normal((2048, 2048)).astype(ml_dtypes.bfloat16) for _ in range(2))
    add("gemm_bf16", "dot 2048^3 bf16 x bf16 -> f32 (GFLOP/s; NumPy: f32 matmul)", [bfa, bfb],
        lambda x, y: x.astype(np.float32) @ y.astype(np.float32),
        lambda x, y: xa.lax.dot(x, y, preferred_element_type=np.float32), 2.0 * 2048 ** 3,
        (lambda x, y: torch.matmul(x, y)) if torch else None,
        lambda x, y: jax.lax.dot(x, y, preferred_element_type=jnp.float32))
    a = rng.random((2048, 2048)).astype(np.float32)
    b = rng.random((2048, 2048)).astype(np.float32)
    xa_f, xa_b = xa.asarray(a, layout=(0, 1)), xa.asarray(b, copy=True)
    rows.append(("gemm_colmajor", "matmul 2048^3 f32, A in {0,1} (GFLOP/s)",
                 lambda: np.asfortranarray(a) @ b, lambda: xa_f @ xa_b, best, 2.0 * 2048 ** 3))
    ba = rng.random((4096, 32, 32)).astype(np.float32)
    bb = rng.random((4096, 32, 32)).astype(np.float32)
    add("batched", "matmul 4096 x (32x32 @ 32x32) f32 (GFLOP/s)", [ba, bb], np.matmul,
        lambda x, y: x @ y, 2.0 * 4096 * 32 ** 3, torch.matmul if torch else None,
        lambda x, y: x @ y)
    add("einsum_bij", "einsum bij,bkj->bik 4096 x 32^3 f32 (GFLOP/s)", [ba, bb],
        lambda x, y: np.einsum("bij,bkj->bik", x, y), lambda x, y: xa.einsum("bij,bkj->bik", x, y), 2.0 * 4096 * 32 ** 3,
        (lambda x, y: torch.einsum("bij,bkj->bik", x, y)) if torch else None,
        lambda x, y: jnp.einsum("bij,bkj->bik", x, y))
    mv = rng.random((4096, 4096)).astype(np.float32)
    v = rng.random(4096).astype(np.float32)
    add("gemv", "matrix-vector 4096^2 f32 @ 4096 (GB/s of the matrix)", [mv, v], np.matmul,
        lambda x, y: x @ y, mv.nbytes, torch.matmul if torch else None, lambda x, y: x @ y)
    mv5, v5 = mv[:512, :512].copy(), v[:512].copy()
    add("gemv_512", "matrix-vector 512^2 f32 @ 512 (GB/s of the matrix)", [mv5, v5], np.matmul,
        lambda x, y: x @ y, mv5.nbytes, torch.matmul if torch else None, lambda x, y: x @ y)
    x, w = rng.random((1024, 1024)).astype(np.float32), rng.random((1024, 1024)).astype(
        np.float32)
    bias = rng.random(1024).astype(np.float32)
    layer = xa.jit(lambda p, q, r: xa.maximum(p @ q + r, 0.0))
    add("dense", "jit relu(x @ w + b) 1024^3 f32 (GFLOP/s)", [x, w, bias],
        lambda p, q, r: np.maximum(p @ q + r, 0.0), layer,
        2.0 * 1024 ** 3, (lambda p, q, r: torch.relu(p @ q + r)) if torch else None,
        lambda p, q, r: jnp.maximum(p @ q + r, 0.0))
    return rows


def conv_rows(t, jx):
    """Issue 15: convolutions on 16 x 64 x 56 x 56 f32 (3x3 SAME NCHW and NHWC, 1x1,
    3x3/2, depthwise 3x3, a transposed 3x3 with stride 2), pools on 16 x 64 x 112 x 112 and
    the max pool's gradient. NumPy has no convolution: its column is what a NumPy user
    writes instead (np.pad + sliding_window_view + einsum; reshape + max for pools). The
    last column is GFLOP/s (GB/s moved for pools)."""
    rng = np.random.default_rng(15)
    lax = xa.lax
    rows = []
    x = rng.standard_normal((16, 64, 56, 56)).astype(np.float32)
    w3 = rng.standard_normal((64, 64, 3, 3)).astype(np.float32)
    w1 = rng.standard_normal((64, 64, 1, 1)).astype(np.float32)
    wd = rng.standard_normal((64, 1, 3, 3)).astype(np.float32)
    xh = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    X, XH = xa.asarray(x, copy=True), xa.asarray(xh, copy=True)
    W3, W1, WD = (xa.asarray(v, copy=True) for v in (w3, w1, wd))
    W3H = xa.asarray(np.ascontiguousarray(w3.transpose(2, 3, 1, 0)))
    # torch's transposed weights (in, out, kh, kw); xarr's equivalent: flipped, (out, in)
    WT = xa.asarray(np.ascontiguousarray(w3[:, :, ::-1, ::-1].transpose(1, 0, 2, 3)))

    def np_conv(v, k, stride=1, pad=1, groups=1):
        vp = np.pad(v, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        win = np.lib.stride_tricks.sliding_window_view(vp, k.shape[2:], axis=(2, 3))
        win = win[:, :, ::stride, ::stride]
        if groups == 1:
            return np.einsum("nchwij,ocij->nohw", win, k, optimize=True)
        return np.einsum("nchwij,cij->nchw", win, k[:, 0], optimize=True)

    nchw = ("NCHW", "OIHW", "NCHW")
    specs = [
        ("conv3x3", "conv 3x3 SAME 16x64x56x56 f32 NCHW", lambda: np_conv(x, w3),
         lambda: lax.conv_general_dilated(X, W3, (1, 1), "SAME"), 3.70e9),
        ("conv3x3_nhwc", "conv 3x3 SAME 16x64x56x56 f32 NHWC (torch: NCHW)",
         lambda: np_conv(x, w3),
         lambda: lax.conv_general_dilated(XH, W3H, (1, 1), "SAME",
                                          dimension_numbers=("NHWC", "HWIO", "NHWC")), 3.70e9),
        ("conv1x1", "conv 1x1 16x64x56x56 f32 NCHW", lambda: np_conv(x, w1, pad=0),
         lambda: lax.conv_general_dilated(X, W1, (1, 1), "VALID"), 0.411e9),
        ("conv3x3s2", "conv 3x3 stride 2 16x64x56x56 f32 NCHW", lambda: np_conv(x, w3, 2),
         lambda: lax.conv_general_dilated(X, W3, (2, 2), ((1, 1), (1, 1))), 0.925e9),
        ("depthwise", "depthwise 3x3 16x64x56x56 f32 NCHW",
         lambda: np_conv(x, wd, groups=64),
         lambda: lax.conv_general_dilated(X, WD, (1, 1), "SAME", feature_group_count=64),
         0.0578e9),
        ("conv_transpose", "transposed conv 3x3 stride 2 16x64x56x56 -> 112x112 f32 NCHW",
         lambda: np_conv(np.pad(np.kron(x, np.array([[1, 0], [0, 0]], np.float32)),
                                ((0, 0), (0, 0), (0, 1), (0, 1)))[:, :, :112, :112],
                         w3[:, :, ::-1, ::-1].transpose(1, 0, 2, 3)),
         lambda: lax.conv_general_dilated(X, WT, (1, 1), ((1, 2), (1, 2)), (2, 2)), 3.70e9),
    ]
    tx = torch.from_numpy(x) if torch is not None else None
    torch_fns = {} if torch is None else {
        "conv3x3": lambda: torch.nn.functional.conv2d(tx, torch.from_numpy(w3), padding=1),
        "conv3x3_nhwc": lambda: torch.nn.functional.conv2d(tx, torch.from_numpy(w3), padding=1),
        "conv1x1": lambda: torch.nn.functional.conv2d(tx, torch.from_numpy(w1)),
        "conv3x3s2": lambda: torch.nn.functional.conv2d(tx, torch.from_numpy(w3), stride=2,
                                                        padding=1),
        "depthwise": lambda: torch.nn.functional.conv2d(tx, torch.from_numpy(wd), padding=1,
                                                        groups=64),
        "conv_transpose": lambda: torch.nn.functional.conv_transpose2d(
            tx, torch.from_numpy(w3), stride=2, padding=1, output_padding=1),
    }
    if jax is not None:
        jxn, jxh = jnp.asarray(x), jnp.asarray(xh)
        jw3, jw3h = jnp.asarray(w3), jnp.asarray(np.ascontiguousarray(w3.transpose(2, 3, 1, 0)))
        jw1, jwd = jnp.asarray(w1), jnp.asarray(wd)
        jwt = jnp.asarray(np.asarray(WT))
        cg = jax.lax.conv_general_dilated
        # (operands passed as arguments: closed over, XLA would fold the whole convolution
        # into a constant at compile time)
        jit_fns = {
            "conv3x3": (jax.jit(lambda a, b: cg(a, b, (1, 1), "SAME")), jxn, jw3),
            "conv3x3_nhwc": (jax.jit(lambda a, b: cg(
                a, b, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))), jxh, jw3h),
            "conv1x1": (jax.jit(lambda a, b: cg(a, b, (1, 1), "VALID")), jxn, jw1),
            "conv3x3s2": (jax.jit(lambda a, b: cg(a, b, (2, 2), ((1, 1), (1, 1)))), jxn, jw3),
            "depthwise": (jax.jit(lambda a, b: cg(a, b, (1, 1), "SAME",
                                                  feature_group_count=64)), jxn, jwd),
            "conv_transpose": (jax.jit(lambda a, b: cg(a, b, (1, 1), ((1, 2), (1, 2)),
                                                       (2, 2))), jxn, jwt),
        }
    for key, label, np_fn, xa_fn, flops in specs:
        rows.append((key, label + " (GFLOP/s)", np_fn, xa_fn, best, flops))
        if key in torch_fns:
            t[key] = torch_fns[key]
        if jax is not None:
            jx[key] = (lambda f, a, b: lambda: f(a, b).block_until_ready())(*jit_fns[key])
    p = rng.standard_normal((16, 64, 112, 112)).astype(np.float32)
    P = xa.asarray(p, copy=True)
    src = rng.standard_normal((16, 64, 56, 56)).astype(np.float32)
    SRC = xa.asarray(src, copy=True)
    moved = p.nbytes * 1.25

    src_dy = rng.standard_normal(src.shape).astype(np.float32)
    SRC_DY = xa.asarray(src_dy, copy=True)
    ONES, ZEROS = xa.ones((64,), np.float32), xa.zeros((64,), np.float32)
    _, BN_MEAN, BN_VAR = lax.batch_norm_training(SRC, ONES, ZEROS, 1e-5, 1)

    c_a, c_v, c_long, c_w = (rng.standard_normal(n) for n in (100, 5, 1 << 20, 51))
    C_A, C_V, C_LONG, C_W = (xa.asarray(v) for v in (c_a, c_v, c_long, c_w))

    def np_boxsum(v, k):   # a NumPy user's window sum: an integral image (cumsum twice)
        h = k // 2
        c = np.pad(v, ((0, 0), (0, 0), (h + 1, h), (h + 1, h))).cumsum(2).cumsum(3)
        return c[:, :, k:, k:] - c[:, :, :-k, k:] - c[:, :, k:, :-k] + c[:, :, :-k, :-k]

    def np_bn_grad(x, dy):
        axes, m = (0, 2, 3), x.size / x.shape[1]
        mu, var = x.mean(axis=axes, keepdims=True), x.var(axis=axes, keepdims=True)
        inv = 1 / np.sqrt(var + np.float32(1e-5))
        xc = x - mu
        return inv * (dy - dy.sum(axis=axes, keepdims=True) / m -
                      xc * inv * inv * (dy * xc).sum(axis=axes, keepdims=True) / m)

    def np_maxpool_grad():   # what a NumPy user writes: the argmax of each 2x2 block
        blocks = p.reshape(16, 64, 56, 2, 56, 2).transpose(0, 1, 2, 4, 3, 5).reshape(
            16, 64, 56, 56, 4)
        hit = np.argmax(blocks, axis=-1)[..., None] == np.arange(4)
        g = np.where(hit, src[..., None], 0).reshape(16, 64, 56, 56, 2, 2)
        return g.transpose(0, 1, 2, 4, 3, 5).reshape(p.shape)
    rows += [
        ("maxpool", "maxpool 2x2/2 16x64x112x112 f32 (GB/s)",
         lambda: p.reshape(16, 64, 56, 2, 56, 2).max(axis=(3, 5)),
         lambda: lax.reduce_window(P, -np.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID"),
         best, moved),
        ("avgpool", "avgpool 2x2/2 16x64x112x112 f32 (GB/s)",
         lambda: p.reshape(16, 64, 56, 2, 56, 2).mean(axis=(3, 5)),
         lambda: lax.reduce_window(P, np.float32(0), lax.add, (1, 1, 2, 2), (1, 1, 2, 2),
                                   "VALID") * np.float32(0.25), best, moved),
        ("maxpool_grad", "maxpool 2x2/2 gradient (select_and_scatter_add) (GB/s)",
         np_maxpool_grad,
         lambda: lax.select_and_scatter_add(SRC, P, lax.ge, (1, 1, 2, 2), (1, 1, 2, 2),
                                            ((0, 0),) * 4), best, p.nbytes * 2.25),
        ("maxpool3", "maxpool 3x3/2 pad 1 16x64x112x112 f32 (GB/s)",
         lambda: np.lib.stride_tricks.sliding_window_view(
             np.pad(p, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf), (3, 3),
             axis=(2, 3))[:, :, ::2, ::2].max(axis=(-1, -2)),
         lambda: lax.reduce_window(P, -np.inf, lax.max, (1, 1, 3, 3), (1, 1, 2, 2),
                                   ((0, 0), (0, 0), (1, 1), (1, 1))), best, moved),
        ("boxsum15", "window sum 15x15 SAME 16x64x112x112 f32 (GB/s)", lambda: np_boxsum(p, 15),
         lambda: lax.reduce_window(P, np.float32(0), lax.add, (1, 1, 15, 15), (1, 1, 1, 1),
                                   "SAME"), best, p.nbytes * 2),
        ("batchnorm", "batch norm training 16x64x56x56 f32 NCHW (GB/s)",
         lambda: (src - src.mean(axis=(0, 2, 3), keepdims=True)) /
         np.sqrt(src.var(axis=(0, 2, 3), keepdims=True) + np.float32(1e-5)),
         lambda: lax.batch_norm_training(SRC, ONES, ZEROS, 1e-5, 1), best, src.nbytes * 3),
        ("batchnorm_grad", "batch norm grad 16x64x56x56 f32 NCHW (GB/s)",
         lambda: np_bn_grad(src, src_dy),
         lambda: lax.batch_norm_grad(SRC, ONES, BN_MEAN, BN_VAR, SRC_DY, 1e-5, 1), best,
         src.nbytes * 5),
        # NumPy's 1-D convolve (the NumPy frontend of issue 15): a loop-sized call and a
        # long signal
        ("convolve_small", "np.convolve 100 f64, 5 taps (per call)",
         lambda: np.convolve(c_a, c_v), lambda: xa.convolve(C_A, C_V), per_call, None),
        ("convolve_long", "np.convolve 1M f64, 51 taps", lambda: np.convolve(c_long, c_w),
         lambda: xa.convolve(C_LONG, C_W), best, None),
    ]
    if torch is not None:
        tp = torch.from_numpy(p)
        t["maxpool"] = lambda: torch.nn.functional.max_pool2d(tp, 2, 2)
        t["avgpool"] = lambda: torch.nn.functional.avg_pool2d(tp, 2, 2)
        t["maxpool3"] = lambda: torch.nn.functional.max_pool2d(tp, 3, 2, 1)
        t["boxsum15"] = lambda: torch.nn.functional.avg_pool2d(tp, 15, 1, 7) * 225.0
        tsrc, tdy = torch.from_numpy(src), torch.from_numpy(src_dy)
        tg, tb = torch.ones(64), torch.zeros(64)
        t["batchnorm"] = lambda: torch.nn.functional.batch_norm(tsrc, None, None, tg, tb,
                                                                training=True, eps=1e-5)
        t["batchnorm_grad"] = lambda: torch.ops.aten.native_batch_norm_backward(
            tdy, tsrc, tg, None, None, torch.from_numpy(np.asarray(BN_MEAN)),
            torch.from_numpy(1 / np.sqrt(np.asarray(BN_VAR) + np.float32(1e-5))), True, 1e-5,
            [True, True, True])
    if jax is not None:
        jp, jsrc = jnp.asarray(p), jnp.asarray(src)
        from jax._src.lax.windowed_reductions import _select_and_scatter_add
        mp = jax.jit(lambda v: jax.lax.reduce_window(v, -jnp.inf, jax.lax.max, (1, 1, 2, 2),
                                                     (1, 1, 2, 2), "VALID"))
        ap = jax.jit(lambda v: jax.lax.reduce_window(v, 0.0, jax.lax.add, (1, 1, 2, 2),
                                                     (1, 1, 2, 2), "VALID") * 0.25)
        sg = jax.jit(lambda s, v: _select_and_scatter_add(s, v, jax.lax.ge_p, (1, 1, 2, 2),
                                                          (1, 1, 2, 2), ((0, 0),) * 4))
        jx["maxpool"] = lambda: mp(jp).block_until_ready()
        jx["avgpool"] = lambda: ap(jp).block_until_ready()
        jx["maxpool_grad"] = lambda: sg(jsrc, jp).block_until_ready()
        mp3 = jax.jit(lambda v: jax.lax.reduce_window(v, -jnp.inf, jax.lax.max, (1, 1, 3, 3),
                                                      (1, 1, 2, 2),
                                                      ((0, 0), (0, 0), (1, 1), (1, 1))))
        bs = jax.jit(lambda v: jax.lax.reduce_window(v, 0.0, jax.lax.add, (1, 1, 15, 15),
                                                     (1, 1, 1, 1), "SAME"))
        jx["maxpool3"] = lambda: mp3(jp).block_until_ready()
        jx["boxsum15"] = lambda: bs(jp).block_until_ready()
    return rows


def pow_rows(a, b, xa_a, xa_b, t):
    """pow (issue 13): the special exponents against NumPy's fast_scalar_power (2, -1, 0.5
    are its own shortcuts; 3 and -0.5 are libm pow there), and general float pow, on 16M
    f32 and 1M f64. torch computes pow by its own kernels (a ** 2 is its square)."""
    rng = np.random.default_rng(1)
    d, e = rng.random(1 << 20) + 0.01, rng.random(1 << 20) * 4 - 2
    xd, xe = xa.asarray(d), xa.asarray(e)
    rows = []
    for key, expo in (("pow2", 2), ("pow2f", 2.0), ("pow3", 3), ("pow-1", -1),
                      ("pow0.5", 0.5), ("pow-0.5", -0.5), ("pow1.7", 1.7)):
        f32 = np.float32(expo) if isinstance(expo, float) else expo
        rows.append((key, f"x ** {expo!r} 16M f32", lambda f32=f32: a ** f32,
                     lambda expo=expo: xa_a ** expo, best, 2 * a.nbytes))
        rows.append((key + "_f64", f"x ** {expo!r} 1M f64", lambda expo=expo: d ** expo,
                     lambda expo=expo: xd ** expo, best, 2 * d.nbytes))
        if torch is not None:
            ta, td = torch.from_numpy(a), torch.from_numpy(d)
            t[key] = lambda ta=ta, expo=expo: ta ** expo
            t[key + "_f64"] = lambda td=td, expo=expo: td ** expo
    rows.append(("powxy", "x ** y 16M f32", lambda: a ** b, lambda: xa_a ** xa_b, best,
                 3 * a.nbytes))
    rows.append(("powxy_f64", "x ** y 1M f64", lambda: d ** e, lambda: xd ** xe, best,
                 3 * d.nbytes))
    rows.append(("powmul_f64", "x * x 1M f64 (reference for x ** 2)", lambda: d * d,
                 lambda: xd * xd, best, 2 * d.nbytes))
    if torch is not None:
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        t["powxy"] = lambda: ta ** tb
    return rows


def call_rows():
    """The small-call patterns of issue 13 (benchmarks/small_calls.py), keys call_*."""
    import small_calls
    return [("call_" + key, label + " (per call)", np_fn, xa_fn, per_call, None)
            for key, label, np_fn, xa_fn in small_calls.patterns()]


def sweep_rows():
    """The size sweep of issue 13 (benchmarks/sweep.py) at 100, 10k and 100k f32 elements
    (the operands of every row are made up front; sweep.py itself runs 1M and 16M), keys
    sweep_<op>_<kind>_<size>."""
    import sweep
    rows = []
    for op in sweep.OPS:
        for kind in sweep.KINDS:
            for n in (100, 10_000, 100_000):
                np_fn, xa_fn = sweep.cell(op, kind, n)
                rows.append((f"sweep_{op}_{kind}_{n}", f"{op} {kind} {n:,} f32", np_fn,
                             xa_fn, best, None))
    return rows


def kernel_rows():
    """The scientific kernels of benchmarks/kernels.py, eager, keys kernel_*."""
    import kernels
    rows = []
    for name, (setup, fn) in kernels.KERNELS.items():
        np_args = setup(np, np.random.default_rng(0))
        xa_args = tuple(xa.asarray(v) for v in np_args)
        rows.append((f"kernel_{name}", f"kernel {name} (eager)",
                     lambda fn=fn, a=np_args: fn(np, *a),
                     lambda fn=fn, a=xa_args: fn(xa, *a), best, None))
    return rows


def io_rows():
    """Issue 18: save / load of a 256 MB f32 tensor in .npy against np.save / np.load (the
    files in the temporary directory, usually in the page cache: the copy path, not the
    disk)."""
    a = np.random.default_rng(7).random(64 * 1024 * 1024, dtype=np.float32)
    xt = xa.asarray(a, copy=True)
    paths = [os.path.join(tempfile.gettempdir(), f"xarr_compare_{os.getpid()}_{w}.npy")
             for w in ("np", "xa")]
    for p in paths:
        np.save(p, a)
        atexit.register(lambda p=p: os.path.exists(p) and os.unlink(p))
    return [
        ("io_save", "save 256 MB f32 .npy", lambda: np.save(paths[0], a),
         lambda: xa.save(paths[1], xt), best, a.nbytes),
        ("io_load", "load 256 MB f32 .npy", lambda: np.load(paths[0]),
         lambda: xa.load(paths[1]), best, a.nbytes),
    ]


def fft_rows(t, jx):
    """Issue 18's FFTs (goals: fft of 2^22 c64 and rfft of 2^23 f32 at least 1.5x NumPy;
    fft2 of 2048^2 c64 at least 1.5x NumPy and 1.0x scipy.fft.fft2 with workers=2)
    against NumPy, scipy.fft (workers=2), torch.fft and jax.jit."""
    rng = np.random.default_rng(18)
    c1 = (rng.standard_normal(1 << 22) + 1j * rng.standard_normal(1 << 22)).astype(np.complex64)
    r1 = rng.standard_normal(1 << 23).astype(np.float32)
    c2 = (rng.standard_normal((2048, 2048)) +
          1j * rng.standard_normal((2048, 2048))).astype(np.complex64)
    xc1, xr1, xc2 = (xa.asarray(v, copy=True) for v in (c1, r1, c2))
    if scipy_fft is not None:
        SCIPY.update({"fft_c64": lambda: scipy_fft.fft(c1, workers=2),
                      "fft_rfft_f32": lambda: scipy_fft.rfft(r1, workers=2),
                      "fft_fft2_c64": lambda: scipy_fft.fft2(c2, workers=2)})
    if torch is not None:
        tc1, tr1, tc2 = (torch.from_numpy(v) for v in (c1, r1, c2))
        t.update({"fft_c64": lambda: torch.fft.fft(tc1),
                  "fft_rfft_f32": lambda: torch.fft.rfft(tr1),
                  "fft_fft2_c64": lambda: torch.fft.fft2(tc2)})
    if jax is not None:
        jc1, jr1, jc2 = (jnp.asarray(v) for v in (c1, r1, c2))
        jf, jr, j2 = jax.jit(jnp.fft.fft), jax.jit(jnp.fft.rfft), jax.jit(jnp.fft.fft2)
        jx.update({"fft_c64": lambda: jf(jc1).block_until_ready(),
                   "fft_rfft_f32": lambda: jr(jr1).block_until_ready(),
                   "fft_fft2_c64": lambda: j2(jc2).block_until_ready()})
    return [
        ("fft_c64", "fft 2^22 c64", lambda: np.fft.fft(c1), lambda: xa.fft.fft(xc1), best,
         2 * c1.nbytes),
        ("fft_rfft_f32", "rfft 2^23 f32", lambda: np.fft.rfft(r1), lambda: xa.fft.rfft(xr1),
         best, 3 * r1.nbytes),
        ("fft_fft2_c64", "fft2 2048^2 c64", lambda: np.fft.fft2(c2),
         lambda: xa.fft.fft2(xc2), best, 2 * c2.nbytes),
    ]


def random_rows(t, jx):
    """Issue 18's random numbers (goal: random and standard_normal of 16M f32 and f64 at
    least 2x NumPy's default_rng) and the per-element samplers, against NumPy's
    default_rng (PCG64), torch's CPU generator and jax.random under jax.jit."""
    n = 16 * 1024 * 1024
    g, xg = np.random.default_rng(1), xa.random.default_rng(1)
    rows = []
    for fn, tfn, jfn in (("random", "rand", "uniform"), ("standard_normal", "randn", "normal")):
        for dt in (np.float32, np.float64):
            key = f"random_{fn}_{np.dtype(dt).name}"
            rows.append((key, f"{fn} 16M {np.dtype(dt).name}",
                         lambda fn=fn, dt=dt: getattr(g, fn)(n, dtype=dt),
                         lambda fn=fn, dt=dt: getattr(xg, fn)(n, dtype=dt), best,
                         n * np.dtype(dt).itemsize))
            if torch is not None:
                tdt = getattr(torch, np.dtype(dt).name)
                t[key] = lambda tfn=tfn, tdt=tdt: getattr(torch, tfn)(n, dtype=tdt)
            if jax is not None:
                jf = jax.jit(lambda k, jfn=jfn, dt=dt: getattr(jax.random, jfn)(
                    k, (n,), dtype=dt))
                jk = jax.random.key(1)
                jx[key] = lambda jf=jf, jk=jk: jf(jk).block_until_ready()
    rows += [
        ("random_integers", "integers [0, 1000) 16M int64", lambda: g.integers(0, 1000, n),
         lambda: xg.integers(0, 1000, n), best, 8 * n),
        ("random_poisson", "poisson lam=5 1M", lambda: g.poisson(5.0, n // 16),
         lambda: xg.poisson(5.0, n // 16), best, None),
        ("random_gamma", "gamma shape=2.5 1M", lambda: g.gamma(2.5, size=n // 16),
         lambda: xg.gamma(2.5, size=n // 16), best, None),
        ("random_permutation", "permutation 1M", lambda: g.permutation(n // 16),
         lambda: xg.permutation(n // 16), best, None),
        ("random_poisson_50", "poisson lam=50 1M", lambda: g.poisson(50.0, n // 16),
         lambda: xg.poisson(50.0, n // 16), best, None),
        ("random_binomial", "binomial n=100 p=0.3 1M", lambda: g.binomial(100, 0.3, n // 16),
         lambda: xg.binomial(100, 0.3, n // 16), best, None),
        ("random_gamma_small", "gamma shape=0.5 1M", lambda: g.gamma(0.5, size=n // 16),
         lambda: xg.gamma(0.5, size=n // 16), best, None),
        ("random_beta", "beta a=2 b=3 1M", lambda: g.beta(2.0, 3.0, n // 16),
         lambda: xg.beta(2.0, 3.0, n // 16), best, None),
    ]
    return rows


def _np_dus(m, u):
    out = m.copy()
    out[1024:3072, 1024:3072] = u
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--markdown", help="write a markdown table here")
    ap.add_argument("--threads", type=int, help="xarr (and torch) threads")
    ap.add_argument("--only", help="run only the workloads whose key starts with this (several: comma-separated)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="time every library this many times per workload, back to back in "
                         "a shuffled order; cells are medians, ratios medians of per-round "
                         "ratios (the VM's bandwidth drifts between minutes)")
    args = ap.parse_args()
    if args.threads:
        xa.set_num_threads(args.threads)
        if torch is not None:
            torch.set_num_threads(args.threads)
    rows, peers = workloads()
    header = ["workload", "xarr", "NumPy", "NumPy/xarr"]
    for name, mod, _ in peers:
        if mod is not None:
            header += [name, f"{name}/xarr"]
    header += ["xarr GB/s"]
    lines = []
    order_rng = random.Random(0)
    for key, label, np_fn, xa_fn, timer, nbytes in rows:
        if args.only and not key.startswith(tuple(args.only.split(","))):
            continue
        fns = [("xarr", xa_fn), ("NumPy", np_fn)] + [
            (name, table[key]) for name, mod, table in peers if mod is not None and key in table]
        times = {name: [] for name, _ in fns}
        for _ in range(args.rounds):       # libraries back to back, in a fresh order
            for name, fn in order_rng.sample(fns, len(fns)):
                # the previous library's idle workers go to sleep first: OpenBLAS's spin
                # (yielding) for 2**28 cycles after a call, about 80 ms, and took a core
                # from whatever ran next (xarr's 2048^3 sgemm right after NumPy's: 116 ms,
                # after a pause: 58 ms)
                time.sleep(0.2)
                times[name].append(timer(fn))
        tx = statistics.median(times["xarr"])

        def cells(name):
            t = statistics.median(times[name])
            ratio = statistics.median(p / x for p, x in zip(times[name], times["xarr"]))
            return [f"{t * scale:.3g} {unit}", f"{ratio:.2f}x"]

        unit, scale = ("us", 1e6) if tx < 1e-4 else ("ms", 1e3)
        row = [label, f"{tx * scale:.3g} {unit}"] + cells("NumPy")
        for name, mod, _ in peers:
            if mod is not None:
                row += cells(name) if name in times else ["-", "-"]
        row += [f"{nbytes / tx / 1e9:.1f}" if nbytes else "-"]
        lines.append(row)
        print(" | ".join(row), flush=True)
    info = (f"{datetime.date.today()}, {platform.processor() or platform.machine()}, "
            f"{os.cpu_count()} cores, xarr ISA {xa._core.get_isa()}, "
            f"{xa.get_num_threads()} xarr threads, NumPy {np.__version__}"
            + (f", torch {torch.__version__} ({torch.get_num_threads()} threads)"
               if torch is not None else "")
            + (f", numexpr {numexpr.__version__}" if numexpr is not None else "")
            + (f", jax {jax.__version__}" if jax is not None else ""))
    print(info)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(f"Measured {info}; {args.rounds} round(s) per workload.\n\n")
            f.write("| " + " | ".join(header) + " |\n")
            f.write("|" + "---|" * len(header) + "\n")
            for row in lines:
                f.write("| " + " | ".join(row) + " |\n")


if __name__ == "__main__":
    main()
