"""A short tour of xarr: layouts, broadcasting, elementwise math, the lazy graph,
contractions and convolutions, sorting and gathers, and measured speed.

Run it with ``xarr-tour`` (or ``python -m xarr.tour`` outside the source tree).
"""

import time

import numpy as np

import xarr as xa
from xarr._bindings.gemm import gemm_kernel
from xarr._dtypes import CODE_OF
from xarr._graph import native


def best_time(fn, repeat=7):
    """The best of ``repeat`` timed calls after one warm-up call, in seconds. Shared with
    benchmarks/ so the tour and the benchmarks measure the same way. The warm-up includes
    the native compile of any fused kernel it made hot (xarr/_graph/native.py): the
    steady state a program reaches about a second after its first call."""
    fn()
    native.wait()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def per_call(fn, calls=20000):
    """Seconds per call of a fast ``fn``: the best of 5 loops of ``calls`` calls."""
    fn()
    native.wait()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best


def section(title):
    print()
    print(title)
    print("-" * len(title))


def main():
    print(f"xarr {xa.__version__}: kernels for {xa._core.get_isa()} "
          f"(supported here: {', '.join(xa._core.supported_isas())}), "
          f"{xa.get_num_threads()} threads")

    section("1. Every tensor has an XLA shape and a real layout")
    a = xa.asarray([[1, 2, 3], [4, 5, 6]], dtype=xa.float32)
    print("a =", a.tolist(), "  shape", a.xla_shape)
    print("  storage in memory order:", a.storage().tolist())
    col = a.relayout((0, 1))
    print("column-major", col.xla_shape, "stores", col.storage().tolist())
    padded = a.relayout("{0,1:PD(3,5)}")
    print("padded to [3,5]", padded.xla_shape, "stores", padded.storage().tolist())
    tiled = xa.arange(15, dtype=xa.float32).reshape(3, 5).relayout("{1,0:T(2,2)}")
    print("tiled", tiled.xla_shape, "stores", tiled.storage().tolist())
    print("  element (2,3) sits at linear index", xa.linear_index(tiled.xla_shape, (2, 3)),
          "->", tiled.storage()[xa.linear_index(tiled.xla_shape, (2, 3))].item())
    print("  a bf16 TPU-style shape parses back:",
          xa.Shape.parse("bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}"))

    section("2. Broadcasting: NumPy rules in xa.*, XLA's explicit rules in xa.lax")
    m = xa.asarray([[1, 2, 3], [4, 5, 6]], dtype=xa.float32)
    v = xa.asarray([7, 8, 9], dtype=xa.float32)
    print("xa:      m + v =", (m + v).tolist())
    print("xa.lax:  add(m, v, broadcast_dimensions=(1,)) =",
          xa.lax.add(m, v, broadcast_dimensions=(1,)).tolist())
    try:
        xa.lax.add(m, v)
    except ValueError as e:
        print("xa.lax:  add(m, v) ->", type(e).__name__ + ":", e)
    col4 = xa.asarray([1, 2, 3, 4], dtype=xa.float32)
    row = xa.asarray([[5, 6]], dtype=xa.float32)
    print("seed 003: [1 2 3 4] + [[5 6]] with (0,) =",
          xa.lax.add(col4, row, broadcast_dimensions=(0,)).tolist())
    try:
        xa.lax.add(m, xa.asarray([1, 2, 3], dtype=xa.int32), broadcast_dimensions=(1,))
    except TypeError as e:
        print("xa.lax is strict about types:", e)

    section("3. Elementwise math on the C++ engine (SIMD, OpenMP)")
    x = xa.linspace(-2, 2, 5, dtype=xa.float32)
    print("x           =", x.tolist())
    print("exp(x)      =", [round(float(u), 5) for u in xa.exp(x).tolist()])
    print("tanh(x)     =", [round(float(u), 5) for u in xa.tanh(x).tolist()])
    print("lax.round   =", xa.lax.round(xa.asarray([0.5, 1.5, 2.5, -2.5])).tolist(),
          "(half away from zero)")
    print("int32 7 / 0 in lax.div =", xa.lax.div(xa.asarray([7], xa.int32),
                                                 xa.asarray([0], xa.int32)).tolist(),
          "(no signal; SPEC.md)")
    print("total order: lt_total(-0.0, 0.0) =",
          xa.lax.lt_total(xa.asarray([-0.0]), xa.asarray([0.0])).tolist())

    section("4. The lazy graph: trace once, fuse, run in one pass")
    f = xa.jit(lambda a, b, c: 2 * a + 3 * b * b - xa.exp(-c))
    s = [xa.asarray(np.arange(4, dtype=np.float32) + k) for k in range(3)]
    print("f = xa.jit(lambda a, b, c: 2*a + 3*b*b - exp(-c)); f(a, b, c) =",
          [round(float(u), 4) for u in f(*s).tolist()])
    compiled = f.lower(*s).compile()
    entry = compiled.as_text().split("ENTRY")[1]
    print("optimized entry computation:", *entry.strip().splitlines()[1:-1], sep="\n  ")
    print(f"kernels launched per call: {compiled.kernel_count} "
          f"(eagerly: 7, one per operation)")
    with xa.lazy():
        y = 2 * s[0] + 3 * s[1] * s[1] - xa.exp(-s[2])
    print("with xa.lazy(): y is recorded, computed when printed:", y)

    section("5. Reductions, structural ops and indexing")
    m = xa.asarray(np.arange(12, dtype=np.float32).reshape(3, 4)).relayout((0, 1))
    print("m (stored column-major) =", m.tolist())
    print("sum(m, axis=0) =", xa.sum(m, axis=0).tolist(), "  argmax(m, axis=1) =",
          xa.argmax(m, axis=1).tolist(), "  cumsum(m, axis=1)[0] =",
          xa.cumsum(m, axis=1)[0].tolist())
    print("lax.pad(m, 0, [(1, 0, 0), (0, 0, 1)])[:2] =",
          xa.lax.pad(m, 0.0, [(1, 0, 0), (0, 0, 1)])[:2].tolist())
    print("m[m > 5] =", m[m > 5].tolist(), "  m[[2, 0], 1:3] =", m[[2, 0], 1:3].tolist())
    g = xa.jit(lambda v: xa.sum(xa.exp(v) * 2))
    print("xa.jit(sum(exp(x)*2)) compiles to", g.lower(m).compile().kernel_count,
          "kernel (the reduction consumes the elementwise blocks as they are computed)")

    section("6. Contractions on xarr's own GEMM engine")
    lhs = xa.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=xa.float32)
    rhs = xa.asarray([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]], dtype=xa.float32)
    print("seed 004: dot_general(lhs, rhs, contracting ((1,), (1,))) =",
          xa.lax.dot_general(lhs, rhs, (((1,), (1,)), ((), ()))).tolist())
    print("micro-kernel for f32 here:", gemm_kernel(CODE_OF[np.dtype(np.float32)])[0],
          "  lhs @ rhs.T =", (lhs @ rhs.T).tolist())
    print("einsum('ij,jk,kl->il', 100x10, 10x100, 100x10) order:",
          xa.einsum_path("ij,jk,kl->il", np.ones((100, 10)), np.ones((10, 100)),
                         np.ones((100, 10)))[0])
    dense = xa.jit(lambda x, w, b: xa.maximum(x @ w + b, 0.0))
    args = [xa.ones((4, 3)), xa.ones((3, 2)), xa.ones(2)]
    print("xa.jit(relu(x @ w + b)):", dense.lower(*args).compile().kernel_count,
          "kernel (the bias add and relu fuse into the product: kind=kOutput)")
    print("lax.conv of a 4x4 of ones with a 3x3 of ones, SAME (window sums):",
          xa.lax.conv(xa.ones((1, 1, 4, 4)), xa.ones((1, 1, 3, 3)), (1, 1), "SAME")[0, 0]
          .tolist())
    v = xa.asarray([3.0, float("nan"), -0.0, 1.0, 0.0])
    print("sort([3, nan, -0.0, 1, 0.0]) =", xa.sort(v).tolist(), " argsort =",
          xa.argsort(v).tolist(), "(NaN last, the zeros in their order)")
    rows_dn = xa.lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                            start_index_map=(0,))
    print("lax.gather rows [2, 0] of m:", xa.lax.gather(m, xa.asarray([[2], [0]]), rows_dn,
                                                     (1, 2)).tolist(),
          "  zeros(4).at[[1, 1, 3]].add(1) =",
          xa.zeros(4).at[xa.asarray([1, 1, 3])].add(1.0).tolist())

    section("7. Measured against NumPy on this machine")
    n = 16 * 1024 * 1024
    rng = np.random.default_rng(0)
    na, nb, nc = (rng.random(n, dtype=np.float32) for _ in range(3))
    # xarr tensors in xarr's own (aligned, huge-page-advised) buffers, as users' would be;
    # xa.asarray(ndarray) without copy=True would share NumPy's buffer instead.
    ta, tb, tc = (xa.asarray(v, copy=True) for v in (na, nb, nc))
    rows = []
    rows.append(("add 16M f32", best_time(lambda: na + nb), best_time(lambda: ta + tb)))
    rows.append(("exp 16M f32", best_time(lambda: np.exp(na)), best_time(lambda: xa.exp(ta))))
    rows.append(("tanh 16M f32", best_time(lambda: np.tanh(na)), best_time(lambda: xa.tanh(ta))))
    chain_np = best_time(lambda: 2 * na + 3 * nb * nb - np.exp(-nc))
    rows.append(("2a + 3b*b - exp(-c) eager", chain_np,
                 best_time(lambda: 2.0 * ta + 3.0 * tb * tb - xa.exp(-tc))))
    rows.append(("  the same under xa.jit", chain_np, best_time(lambda: f(ta, tb, tc))))
    nm = rng.random((4096, 4096), dtype=np.float32)
    tm = xa.asarray(nm, copy=True)
    rows.append(("sum over axis 0, 4096^2 f32", best_time(lambda: nm.sum(axis=0)),
                 best_time(lambda: xa.sum(tm, axis=0))))
    rows.append(("sum(exp(x)*2) 16M f32, jit", best_time(lambda: np.sum(np.exp(na) * 2)),
                 best_time(lambda: g(ta))))
    mask_np = na < 0.5
    mask_xa = xa.asarray(mask_np)
    rows.append(("x[mask] 16M f32, half true", best_time(lambda: na[mask_np]),
                 best_time(lambda: ta[mask_xa])))
    rows.append(("transpose copy 4096^2 f32", best_time(lambda: np.ascontiguousarray(nm.T), 3),
                 best_time(lambda: tm.relayout((0, 1)))))
    big = rng.random((1024, 1024), dtype=np.float32)
    tbig = xa.asarray(big, copy=True)
    t_np = best_time(lambda: big @ big, 3)
    time.sleep(0.2)   # (as above)
    rows.append(("matmul 1024^3 f32", t_np, best_time(lambda: tbig @ tbig, 3)))
    bat = rng.random((4096, 32, 32), dtype=np.float32)
    tbat = xa.asarray(bat, copy=True)
    rows.append(("einsum bij,bkj->bik 4096x32^3", best_time(
        lambda: np.einsum("bij,bkj->bik", bat, bat), 1), best_time(
        lambda: xa.einsum("bij,bkj->bik", tbat, tbat), 3)))
    xc = rng.standard_normal((8, 32, 56, 56), dtype=np.float32)
    wc = rng.standard_normal((32, 32, 3, 3), dtype=np.float32)
    txc, twc = xa.asarray(xc, copy=True), xa.asarray(wc, copy=True)

    def np_conv():   # what a NumPy user writes: padded windows, then one einsum
        win = np.lib.stride_tricks.sliding_window_view(
            np.pad(xc, ((0, 0), (0, 0), (1, 1), (1, 1))), (3, 3), axis=(2, 3))
        return np.einsum("nchwij,ocij->nohw", win, wc, optimize=True)
    t_np = best_time(np_conv, 3)
    time.sleep(0.2)   # NumPy's BLAS threads spin ~80 ms after its einsum, on our cores
    rows.append(("conv 3x3 SAME 8x32x56x56 f32", t_np,
                 best_time(lambda: xa.lax.conv(txc, twc, (1, 1), "SAME"), 3)))
    rows.append(("sort 16M f32", best_time(lambda: np.sort(na), 2),
                 best_time(lambda: xa.sort(ta, stable=False), 3)))
    rows.append(("median 16M f32", best_time(lambda: np.median(na), 2),
                 best_time(lambda: xa.median(ta), 3)))
    gen, xgen = np.random.default_rng(1), xa.random.default_rng(1)
    rows.append(("standard_normal 16M f32", best_time(
        lambda: gen.standard_normal(n, dtype=np.float32), 3), best_time(
        lambda: xgen.standard_normal(n, dtype=np.float32), 3)))
    sig = (rng.standard_normal(1 << 20) + 1j * rng.standard_normal(1 << 20)).astype(
        np.complex64)
    tsig = xa.asarray(sig, copy=True)
    rows.append(("fft 2^20 c64", best_time(lambda: np.fft.fft(sig), 3),
                 best_time(lambda: xa.fft.fft(tsig), 3)))
    g64 = rng.standard_normal((1024, 1024))
    spd = g64 @ g64.T + 1024 * np.eye(1024)
    tspd = xa.asarray(spd, copy=True)
    t_np = best_time(lambda: np.linalg.cholesky(spd), 3)
    time.sleep(0.2)   # (as above: NumPy's OpenBLAS threads)
    rows.append(("cholesky 1024^2 f64", t_np, best_time(lambda: xa.linalg.cholesky(tspd), 3)))
    s1, s2 = rng.random(100, dtype=np.float32), rng.random(100, dtype=np.float32)
    t1, t2 = xa.asarray(s1), xa.asarray(s2)
    rows.append(("x + y, 100 f32 (per call)", per_call(lambda: s1 + s2),
                 per_call(lambda: t1 + t2)))
    s3, t3 = rng.random(100, dtype=np.float32), None
    t3 = xa.asarray(s3)
    rows.append(("jitted chain, 100 f32 (call)", per_call(lambda: 2 * s1 + 3 * s2 * s2 -
                                                          np.exp(-s3)),
                 per_call(lambda: f(t1, t2, t3))))
    print(f"{'operation':28s} {'NumPy':>10s} {'xarr':>10s} {'speedup':>8s}")
    for name, tn, tx in rows:
        unit, scale = ("us", 1e6) if tn < 1e-4 else ("ms", 1e3)
        print(f"{name:28s} {tn * scale:8.2f}{unit} {tx * scale:8.2f}{unit} {tn / tx:7.2f}x")
    print("\n(best of several runs; NumPy", np.__version__ + ")")


if __name__ == "__main__":
    main()
