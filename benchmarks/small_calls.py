"""The small-call patterns of issue 13, as (key, label, NumPy callable, xarr callable) on
the same data: scalar indexing and conversions, short-list creation, in-place operators
on views, assignment, small reductions, row iteration, creation, function calls. Used by
asv (benchmarks/benchmarks/bench_overhead.py ``SmallCalls``, ``SmallCallLoop``) and by
compare.py's ``small:`` rows.

    python benchmarks/small_calls.py        # per-call times and NumPy/xarr ratios
"""

import math
import operator

import numpy as np

import xarr as xa


def patterns():
    rng = np.random.default_rng(0)
    a = rng.random((4000, 2))
    t = xa.asarray(a)
    a2, t2 = a.copy(), xa.asarray(a.copy())
    p, q = np.array([1.0, 2.0]), np.array([1.0, 2.0])
    tp, tq = xa.asarray(p), xa.asarray(q)
    row, trow = np.array([1e-9, 2e-9]), xa.asarray(np.array([1e-9, 2e-9]))
    x = rng.random(1000)
    tx = xa.asarray(x)
    i10, ti10 = np.arange(10), xa.asarray(np.arange(10))
    s5, ts5 = np.arange(5.0), xa.asarray(np.arange(5.0))

    def rows(arr):
        for r in arr[:100]:
            pass

    def unpack(arr):
        for u, v in arr[:100]:
            pass
    return [
        ("float_index", "float(t[i, j])", lambda: float(a[3, 1]), lambda: float(t[3, 1])),
        ("bool_compare", "bool(t[i, 0] > 0)", lambda: bool(a[3, 0] > 0),
         lambda: bool(t[3, 0] > 0)),
        ("array_list", "array([1.0, 2.0])", lambda: np.array([1.0, 2.0]),
         lambda: xa.array([1.0, 2.0])),
        ("asarray_tuple", "asarray((1, 2, 3))", lambda: np.asarray((1, 2, 3)),
         lambda: xa.asarray((1, 2, 3))),
        ("isub_row", "t[i] -= row (2 elements)", lambda: operator.isub(a2[5], row),
         lambda: operator.isub(t2[5], trow)),
        ("iadd_scalar", "t[i] += 1e-9", lambda: operator.iadd(a2[6], 1e-9),
         lambda: operator.iadd(t2[6], 1e-9)),
        ("imul_slice", "t[a:b] *= 1.0", lambda: operator.imul(a2[5:9], 1.0),
         lambda: operator.imul(t2[5:9], 1.0)),
        ("setitem_scalar", "t[i, j] = 1.5", lambda: a2.__setitem__((5, 1), 1.5),
         lambda: t2.__setitem__((5, 1), 1.5)),
        ("eq_all", "(a == b).all(), 2 elements", lambda: (p == q).all(),
         lambda: (tp == tq).all()),
        ("sum_small", "t.sum(), 5 elements", lambda: s5.sum(), lambda: ts5.sum()),
        ("iterate_rows", "iterate 100 rows of (4000, 2)", lambda: rows(a), lambda: rows(t)),
        ("unpack_rows", "unpack 100 rows of (4000, 2)", lambda: unpack(a),
         lambda: unpack(t)),
        ("pow_slice", "x[:10] ** 2", lambda: x[:10] ** 2, lambda: tx[:10] ** 2),
        ("item", "t[2:3].item()", lambda: s5[2:3].item(), lambda: ts5[2:3].item()),
        ("int_index", "int(t[i])", lambda: int(i10[3]), lambda: int(ti10[3])),
        ("operator_index", "operator.index(t[i])", lambda: operator.index(i10[3]),
         lambda: operator.index(ti10[3])),
        ("tolist", "t.tolist(), 5 elements", lambda: s5.tolist(), lambda: ts5.tolist()),
        ("compare_scalar", "t < 0.5, 5 elements", lambda: s5 < 0.5, lambda: ts5 < 0.5),
        ("zeros", "zeros(5)", lambda: np.zeros(5), lambda: xa.zeros(5)),
        ("ones", "ones((2, 2))", lambda: np.ones((2, 2)), lambda: xa.ones((2, 2))),
        ("full", "full(5, 2.0)", lambda: np.full(5, 2.0), lambda: xa.full(5, 2.0)),
        ("add_function", "add(a, b), 2 elements", lambda: np.add(p, q),
         lambda: xa.add(tp, tq)),
        ("add_operator", "a + b, 2 elements", lambda: p + q, lambda: tp + tq),
        ("row_view", "t[i] (a row view)", lambda: a[5], lambda: t[5]),
        ("concatenate", "concatenate([x, y]), 2 + 5 elements",
         lambda: np.concatenate([p, s5]), lambda: xa.concatenate([tp, ts5])),
        ("roll", "roll(x, 1), 5 elements", lambda: np.roll(s5, 1), lambda: xa.roll(ts5, 1)),
        ("stack", "stack([x, x]), 5 elements", lambda: np.stack([s5, s5]),
         lambda: xa.stack([ts5, ts5])),
        ("convolve", "convolve(x, y), 5 and 2 elements", lambda: np.convolve(s5, p),
         lambda: xa.convolve(ts5, tp)),
    ]


def loop(fns):
    """One pass over every pattern (the asv loop benchmark: a run of them in a loop)."""
    for f in fns:
        f()


def run_table():
    from xarr.tour import per_call
    ratios = []
    pats = patterns()
    for key, label, np_fn, xa_fn in pats:
        tn, tx = per_call(np_fn), per_call(xa_fn)
        ratios.append(tn / tx)
        print(f"{label:32s} NumPy {tn * 1e6:7.2f} us  xarr {tx * 1e6:7.2f} us  "
              f"{tn / tx:5.2f}x", flush=True)
    tn = per_call(lambda: loop([p[2] for p in pats]))
    tx = per_call(lambda: loop([p[3] for p in pats]))
    print(f"{'all patterns in a loop':32s} NumPy {tn * 1e6:7.2f} us  xarr {tx * 1e6:7.2f} us  "
          f"{tn / tx:5.2f}x")
    print(f"geomean {math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f}x over "
          f"{len(ratios)}; lowest {min(ratios):.2f}x")


if __name__ == "__main__":
    run_table()
