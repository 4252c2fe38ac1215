"""The size sweep of issue 13: every common operation x operand kind x size, xarr against
NumPy on the same data in the same process. Ratios are NumPy time / xarr time (above 1:
xarr is faster).

Operand kinds (each has ``n`` logical elements):

    contiguous   x                       1-D, dense
    strided      x[::2]                  1-D, every other element
    strided2d    x[::2, ::2]             2-D, every other row and column
    negstep      x[::-1]                 1-D, reversed
    transposed   x.T                     2-D column-major view; a binary op's other
                                         operand is row-major (mixed orders)
    broadcast    x + row                 2-D contiguous with a (cols,) row; unary ops and
                                         reductions take a broadcast_to view (stride 0)

Used by asv (benchmarks/benchmarks/bench_sweep.py) and by compare.py's ``sweep:`` rows.

    python benchmarks/sweep.py                       # the whole table (a few minutes)
    python benchmarks/sweep.py --ops add,sum --kinds strided --sizes 100,10000
    python benchmarks/sweep.py --markdown out.md     # the table and the ratio plot
"""

import argparse
import math
import time

import numpy as np

import xarr as xa

SIZES = [100, 1_000, 10_000, 100_000, 1_000_000, 16_000_000]
KINDS = ["contiguous", "strided", "strided2d", "negstep", "transposed", "broadcast"]


def _ops(xp):
    """name -> (arity, fn(x, y)). One definition for both libraries: xp is numpy or xarr."""
    return {
        "add": (2, lambda x, y: x + y),
        "mul_scalar": (1, lambda x, y: x * 2.0),
        "div": (2, lambda x, y: x / y),
        "negative": (1, lambda x, y: -x),
        "abs": (1, lambda x, y: xp.abs(x)),
        "exp": (1, lambda x, y: xp.exp(x)),
        "sqrt": (1, lambda x, y: xp.sqrt(x)),
        "greater": (2, lambda x, y: x > y),
        "maximum": (2, lambda x, y: xp.maximum(x, y)),
        "where": (2, lambda x, y: xp.where(x > y, x, y)),
        "clip": (1, lambda x, y: xp.clip(x, 0.2, 0.8)),
        "sum": (1, lambda x, y: x.sum()),
        "mean": (1, lambda x, y: x.mean()),
        "max": (1, lambda x, y: x.max()),
        "min": (1, lambda x, y: x.min()),
        "argmax": (1, lambda x, y: x.argmax()),
        "any": (1, lambda x, y: (x > 2.0).any()),
        "all": (1, lambda x, y: (x < 2.0).all()),
        "cumsum": (1, lambda x, y: xp.cumsum(x, axis=-1)),
        "astype_f64": (1, lambda x, y: x.astype(xp.float64)),
        "astype_i32": (1, lambda x, y: x.astype(xp.int32)),
        "copy": (1, lambda x, y: x.copy()),
    }


OPS = list(_ops(np))
ops_of = _ops          # (for the tests: the same definitions on any namespace)


def _grid(n):
    """(rows, cols) with rows * cols == n for the 2-D kinds, as square as n allows:
    100 -> (10, 10), 1000 -> (40, 25), 100000 -> (400, 250)."""
    if n == 0:
        return 0, 1
    cols = math.isqrt(n)
    while n % cols:
        cols -= 1
    return n // cols, cols


def _bases_and_views(kind, n, dtype, seed):
    """[(base array, view function)] for x and y of ``kind`` with n logical elements each.
    Values are in [0, 1) so sqrt/log-like ops stay finite."""
    rng = np.random.default_rng(seed)

    def draw(shape):
        return rng.random(shape, dtype=np.float64).astype(dtype)

    def same(b):
        return b
    r, c = _grid(n)
    if kind == "contiguous":
        return [(draw(n), same), (draw(n), same)]
    if kind == "strided":
        return [(draw(2 * n), lambda b: b[::2]), (draw(2 * n), lambda b: b[::2])]
    if kind == "strided2d":
        return [(draw((2 * r, 2 * c)), lambda b: b[::2, ::2]),
                (draw((2 * r, 2 * c)), lambda b: b[::2, ::2])]
    if kind == "negstep":
        return [(draw(n), lambda b: b[::-1]), (draw(n), lambda b: b[::-1])]
    if kind == "transposed":
        return [(draw((c, r)), lambda b: b.T), (draw((r, c)), same)]
    if kind == "broadcast":
        return [(draw((r, c)), same), (draw(c), same)]
    raise ValueError(f"sweep: unknown operand kind {kind!r}; expected one of {KINDS}")


def operands(kind, n, dtype="float32", seed=0):
    """((np_x, np_y), (xa_x, xa_y)): the same views of the same values in both libraries.
    For one-operand ops of the broadcast kind, unary_operand gives a broadcast_to view."""
    pairs = _bases_and_views(kind, n, dtype, seed)
    return (tuple(view(base) for base, view in pairs),
            tuple(view(xa.asarray(base)) for base, view in pairs))


def unary_operand(kind, n, dtype="float32", seed=0):
    (x, y), (tx, ty) = operands(kind, n, dtype, seed)
    if kind == "broadcast":
        r, c = _grid(n)
        return np.broadcast_to(y, (r, c)), xa.broadcast_to(ty, (r, c))
    return x, tx


def cell_operands(op, kind, n, dtype="float32"):
    """((np_x, np_y), (xa_x, xa_y)) of one sweep cell (y None for one-operand ops)."""
    if _ops(np)[op][0] == 2:
        return operands(kind, n, dtype)
    x, tx = unary_operand(kind, n, dtype)
    return (x, None), (tx, None)


def cell(op, kind, n, dtype="float32"):
    """(numpy_fn, xarr_fn): zero-argument callables for one sweep cell."""
    np_f, xa_f = _ops(np)[op][1], _ops(xa)[op][1]
    (x, y), (tx, ty) = cell_operands(op, kind, n, dtype)
    return (lambda: np_f(x, y)), (lambda: xa_f(tx, ty))


def _time(fn, budget=0.02, rounds=5):
    fn()
    t0 = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t0, 1e-7)
    calls = max(1, int(budget / one))
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best


def ratio(op, kind, n, dtype="float32", rounds=5):
    """(numpy_seconds, xarr_seconds) for one cell, interleaved best-of-rounds."""
    np_fn, xa_fn = cell(op, kind, n, dtype)
    tn = tx = float("inf")
    for _ in range(rounds):
        tn = min(tn, _time(np_fn, rounds=1))
        tx = min(tx, _time(xa_fn, rounds=1))
    return tn, tx


def sweep(ops=OPS, kinds=KINDS, sizes=SIZES, dtype="float32", rounds=5, out=print):
    results = {}
    for op in ops:
        for kind in kinds:
            cells = []
            for n in sizes:
                tn, tx = ratio(op, kind, n, dtype, rounds)
                results[op, kind, n] = (tn, tx)
                cells.append(f"{tn / tx:6.2f}")
            out(f"{op:11s} {kind:11s} " + " ".join(cells))
    return results


def plot(results, sizes, width=60, height=16):
    """A text plot of the per-size geomean, worst and best ratio (log scale)."""
    rows = []
    for n in sizes:
        rs = [tn / tx for (o, k, m), (tn, tx) in results.items() if m == n]
        if rs:
            rows.append((n, min(rs), math.exp(sum(map(math.log, rs)) / len(rs)), max(rs)))
    lo = math.log(min(r[1] for r in rows) * 0.9)
    hi = math.log(max(r[3] for r in rows) * 1.1)
    lines = []
    for n, mn, gm, mx in rows:
        def col(v):
            return int((math.log(v) - lo) / (hi - lo) * (width - 1))
        line = [" "] * width
        one = col(1.0) if lo < 0 < hi else None
        if one is not None:
            line[one] = "|"
        for c in range(col(mn), col(mx) + 1):
            if line[c] == " ":
                line[c] = "-"
        line[col(mn)], line[col(mx)] = "<", ">"
        line[col(gm)] = "#"
        lines.append(f"{n:>10,d} {''.join(line)}  worst {mn:5.2f} geomean {gm:5.2f} "
                     f"best {mx:6.2f}")
    ticks = [0.25, 0.5, 1, 2, 4, 8, 16, 32]
    axis = [" "] * width
    for tk in ticks:
        if lo < math.log(tk) < hi:
            c = int((math.log(tk) - lo) / (hi - lo) * (width - 1))
            for j, ch in enumerate(f"{tk:g}"):
                if c + j < width:
                    axis[c + j] = ch
    lines.append(f"{'':>10s} {''.join(axis)}  (NumPy time / xarr time, log scale; "
                 "| is 1.0)")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", default=",".join(OPS))
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--markdown", default=None)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"xarr/NumPy sweep, {args.dtype}, {xa.get_num_threads()} threads; "
          f"ratio = NumPy time / xarr time")
    print(f"{'op':11s} {'kind':11s} " + " ".join(f"{s:>6.0e}" for s in sizes))
    ops, kinds = args.ops.split(","), args.kinds.split(",")
    res = sweep(ops, kinds, sizes, args.dtype, args.rounds)
    rs = [tn / tx for tn, tx in res.values()]
    summary = (f"geomean {math.exp(sum(map(math.log, rs)) / len(rs)):.2f}x; "
               f"below 1.0: {sum(r < 1 for r in rs)} of {len(rs)}; lowest {min(rs):.2f}x; "
               f"from 100k up below 1.5: "
               f"{sum(r < 1.5 for (o, k, n), r in zip(res, rs) if n >= 100_000)} of "
               f"{sum(n >= 100_000 for (o, k, n) in res)}")
    print(summary)
    print(plot(res, sizes))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(f"xarr/NumPy sweep, {args.dtype}, {xa.get_num_threads()} threads, kernels "
                    f"for {xa._core.get_isa()}, NumPy {np.__version__}; NumPy time / xarr "
                    f"time, best of {args.rounds} interleaved rounds; {summary}.\n\n")
            f.write("| op | kind | " + " | ".join(f"{n:,}" for n in sizes) + " |\n")
            f.write("|---|---|" + "---|" * len(sizes) + "\n")
            for op in ops:
                for kind in kinds:
                    cells = [res[op, kind, n][0] / res[op, kind, n][1] for n in sizes]
                    f.write(f"| {op} | {kind} | " + " | ".join(
                        f"**{c:.2f}**" if c < 1 else f"{c:.2f}" for c in cells) + " |\n")
            f.write("\n```\n" + plot(res, sizes) + "\n```\n")


if __name__ == "__main__":
    main()
