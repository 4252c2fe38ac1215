"""Fuzz specs of the contraction family (xa.matmul ... xa.einsum, lax.dot_general,
lax.dot), registered into tests/fuzz_ops.py's SPECS (which imports this module last).

Operands are drawn over every numeric dtype and storage with values in [-5, 5] (a sum of
products of full-range values overflows in ways that depend on the summation order), and
size-0 / size-1 dims. Bad draws (mismatched contracted sizes, bad dimension numbers, bad
subscripts) must raise the class NumPy raises (ValueError), or jax's for lax.
"""

import numpy as np
from hypothesis import strategies as st

import xarr as xa
from conftest import BF16, kind
from fuzz_ops import SPECS, Case, JaxError, close, numpy_call, operand, quiet, shapes

lax = xa.lax
# NumPy has no bfloat16 matmul loop; float16 it computes in float16 steps.
NP_DTYPES = [xa.bool_, xa.int8, xa.uint8, xa.int16, xa.int32, xa.uint32, xa.int64,
             xa.uint64, xa.float32, xa.float64, xa.complex64, xa.complex128]
LAX_DTYPES = NP_DTYPES + [xa.float16, BF16]
CHECK = close(64)


def _pair(draw, sa, sb, dtypes=NP_DTYPES):
    dt = draw(st.sampled_from(dtypes))
    specials = draw(st.sampled_from([0.0, 0.0, 0.1]))
    x, tx = draw(operand(sa, dt, specials=specials, low=-5, high=5))
    y, ty = draw(operand(sb, dt, specials=specials, low=-5, high=5))
    if kind(dt) in "iu":  # small integers: products and sums stay exact in every width
        x = (x.astype(np.int64) % 5).astype(dt)
        y = (y.astype(np.int64) % 5).astype(dt)
        tx, ty = xa.asarray(x), xa.asarray(y)
    return x, tx, y, ty


def _side(draw):
    return draw(st.sampled_from([0, 1, 1, 2, 3, 5]))


def _mismatch(draw, n):
    """n, or (one draw in 8) a different size: a bad argument."""
    return n + 1 if draw(st.integers(0, 7)) == 0 else n


def _numpy_case(name, draw, sa, sb, call=None, np_fn=None, **kw):
    x, tx, y, ty = _pair(draw, sa, sb)
    fn = getattr(xa, name)
    ref = np_fn or getattr(np, name)
    call = call or (lambda a, b: fn(a, b, **kw))
    return Case(run=quiet(lambda: call(tx, ty)), ref=lambda: numpy_call(ref, x, y, **kw),
                check=CHECK, inputs={"x": x, "y": y, **kw}, traced=(call, [tx, ty]))


def _matmul(draw):
    m, n, k = _side(draw), _side(draw), _side(draw)
    batch = draw(shapes(0, 2, 3))
    sa = draw(st.sampled_from([(k,), (m, k), batch + (m, k)]))
    sb = draw(st.sampled_from([(_mismatch(draw, k),), (k, n), batch[1:] + (k, n),
                               tuple(1 for _ in batch) + (k, n)]))
    return _numpy_case("matmul", draw, sa, sb)


def _dot(draw):
    k = _side(draw)
    sa = draw(st.sampled_from([(), (k,), (2, k), (3, 1, k)]))
    sb = draw(st.sampled_from([(), (_mismatch(draw, k),), (k, 2), (2, k, 3)]))
    return _numpy_case("dot", draw, sa, sb)


def _inner(draw):
    k = _side(draw)
    return _numpy_case("inner", draw, draw(st.sampled_from([(), (k,), (2, k)])),
                       draw(st.sampled_from([(_mismatch(draw, k),), (3, k), (1, 2, k)])))


def _outer(draw):
    return _numpy_case("outer", draw, draw(shapes(0, 2)), draw(shapes(0, 2)))


def _vdot(draw):
    s = draw(shapes(1, 2))
    t = s if draw(st.integers(0, 7)) else s + (2,)
    return _numpy_case("vdot", draw, s, t)


def _kron(draw):
    return _numpy_case("kron", draw, draw(shapes(0, 3)), draw(shapes(0, 3)))


def _tensordot(draw):
    a = draw(shapes(0, 3))
    n = draw(st.integers(0, len(a)))
    b = tuple(a[len(a) - n:]) + draw(shapes(0, 1))
    if draw(st.integers(0, 7)) == 0 and b:
        b = (b[0] + 1,) + b[1:]
    return _numpy_case("tensordot", draw, a, b, axes=n)


def _vecdot(draw):
    k = _side(draw)
    return _numpy_case("vecdot", draw, draw(st.sampled_from([(k,), (2, k), (3, 1, k)])),
                       draw(st.sampled_from([(k,), (_mismatch(draw, k),), (4, k)])))


def _trace_like(name):
    def case(draw):
        dt = draw(st.sampled_from(NP_DTYPES))
        x, t = draw(operand(draw(shapes(2, 3)), dt, specials=0.0, low=-5, high=5))
        offset = draw(st.integers(-3, 3))
        axes = draw(st.sampled_from([(0, 1), (1, 0), (-1, 0), (0, 0), (0, 5)]))
        fn = getattr(xa, name)
        ref = getattr(np, name)
        return Case(run=quiet(lambda: fn(t, offset, *axes)),
                    ref=lambda: numpy_call(ref, x, offset, *axes), check=CHECK,
                    inputs={"x": x, "offset": offset, "axes": axes},
                    traced=(lambda v: fn(v, offset, *axes), [t]))
    return case


@st.composite
def _einsum_spec(draw):
    labels = "abcd"
    sizes = {c: _side(draw) for c in labels}
    terms = ["".join(draw(st.lists(st.sampled_from(labels), max_size=3)))
             for _ in range(draw(st.integers(1, 3)))]
    used = sorted(set("".join(terms)))
    out = "".join(draw(st.permutations(used))[:draw(st.integers(0, len(used)))])
    shapes_ = [tuple(sizes[c] for c in t) for t in terms]
    if draw(st.integers(0, 9)) == 0 and shapes_ and shapes_[0]:
        shapes_[0] = shapes_[0][:-1]     # a term naming more dims than its operand has
    return ",".join(terms) + ("->" + out if draw(st.booleans()) else ""), shapes_


def _einsum(draw):
    spec, shps = draw(_einsum_spec())
    dt = draw(st.sampled_from(NP_DTYPES))
    ops = [draw(operand(s, dt, specials=0.0, low=-5, high=5)) for s in shps]
    xs = [o[0] if kind(dt) not in "iu" else (o[0].astype(np.int64) % 5).astype(dt)
          for o in ops]
    ts = [xa.asarray(x) if kind(dt) in "iu" else o[1] for x, o in zip(xs, ops)]
    return Case(run=quiet(lambda: xa.einsum(spec, *ts)),
                ref=lambda: numpy_call(np.einsum, spec, *xs), check=CHECK,
                inputs={"spec": spec, "shapes": shps},
                traced=(lambda *vs: xa.einsum(spec, *vs), ts))


def _einsum_path(draw):
    """The path is numpy's format (NumPy's greedy may merge three operands in one step;
    xarr's steps are pairs) and einsum follows it to NumPy's result."""
    spec, shps = draw(_einsum_spec())
    xs = [np.arange(1, 1 + int(np.prod(s))).reshape(s) % 7 for s in shps]

    def run():
        path, report = xa.einsum_path(spec, *xs)
        assert path[0] == "einsum_path" and isinstance(report, str)
        return xa.einsum(spec, *xs, optimize=path)
    return Case(run=run, ref=lambda: numpy_call(np.einsum, spec, *xs), check=CHECK,
                inputs={"spec": spec, "shapes": shps}, modes=("eager",))


# ------------------------------------------------------------------------ lax
def _lax_dot_general(draw):
    nb, nc, nl, nr = (draw(st.integers(0, 2)) for _ in range(4))
    b = [_side(draw) for _ in range(nb)]
    c = [_side(draw) for _ in range(nc)]
    lf = [_side(draw) for _ in range(nl)]
    rf = [_side(draw) for _ in range(nr)]
    lperm = list(draw(st.permutations(range(nb + nc + nl))))
    rperm = list(draw(st.permutations(range(nb + nc + nr))))
    lsizes = b + c + lf
    rsizes = b + c + rf
    lshape = tuple(lsizes[p] for p in lperm)
    rshape = tuple(rsizes[p] for p in rperm)
    lb = [lperm.index(i) for i in range(nb)]
    lc = [lperm.index(nb + i) for i in range(nc)]
    rb = [rperm.index(i) for i in range(nb)]
    rc = [rperm.index(nb + i) for i in range(nc)]
    bad = draw(st.integers(0, 9))
    if bad == 0 and lc:
        lc[0] = len(lshape) + 1                  # out of range
    elif bad == 1 and lc and lb:
        lc[0] = lb[0]                            # overlap
    elif bad == 2 and lshape and rshape and lc:
        rc = rc[:-1]                             # lengths differ
    dn = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
    x, tx, y, ty = _pair(draw, lshape, rshape, LAX_DTYPES)
    pref = draw(st.sampled_from([None, None, xa.float32, xa.int32]))
    if pref is not None and kind(x.dtype) in "fc" and np.dtype(pref).kind != "f":
        pref = None

    def ref():
        ok = (len(lb) == len(rb) and len(lc) == len(rc)
              and all(0 <= d < len(lshape) for d in lb + lc)
              and all(0 <= d < len(rshape) for d in rb + rc)
              and len(set(lb + lc)) == len(lb + lc) and len(set(rb + rc)) == len(rb + rc)
              and [lshape[d] for d in lc] == [rshape[d] for d in rc])
        if not ok:
            raise JaxError(ValueError, TypeError)
        letters = iter("abcdefghijkl")
        la = [next(letters) for _ in lshape]
        lr = [None] * len(rshape)
        for i, j in zip(lb + lc, rb + rc):
            lr[j] = la[i]
        lr = [ch or next(letters) for ch in lr]
        out = [la[d] for d in lb] + [la[d] for d in range(len(lshape)) if d not in lb + lc] \
            + [lr[d] for d in range(len(rshape)) if d not in rb + rc]
        spec = f"{''.join(la)},{''.join(lr)}->{''.join(out)}"
        want = np.dtype(pref) if pref is not None else np.dtype(x.dtype)
        if kind(x.dtype) in "iub":
            r = np.einsum(spec, x.astype(np.int64), y.astype(np.int64))
            return (r != 0) if want == np.bool_ else r.astype(want)
        wide = np.complex128 if kind(x.dtype) == "c" else np.float64
        return np.einsum(spec, x.astype(wide), y.astype(wide)).astype(want)

    def call(a, c_):
        return lax.dot_general(a, c_, dn, preferred_element_type=pref)
    return Case(run=quiet(lambda: call(tx, ty)), ref=ref, check=close(256),
                inputs={"x": x, "y": y, "dn": dn, "pref": pref}, traced=(call, [tx, ty]))


def _lax_dot(draw):
    k = _side(draw)
    sa = draw(st.sampled_from([(k,), (2, k), (2, 2, k)]))
    sb = draw(st.sampled_from([(_mismatch(draw, k),), (k, 3)]))
    x, tx, y, ty = _pair(draw, sa, sb, LAX_DTYPES)

    def ref():
        if len(sa) > 2 or sa[-1] != sb[0]:
            raise JaxError(ValueError, TypeError)
        if kind(x.dtype) in "iub":
            r = np.dot(x.astype(np.int64), y.astype(np.int64))
            return (r != 0) if x.dtype == np.bool_ else r.astype(x.dtype)
        wide = np.complex128 if kind(x.dtype) == "c" else np.float64
        return np.asarray(np.dot(x.astype(wide), y.astype(wide))).astype(x.dtype)
    return Case(run=quiet(lambda: lax.dot(tx, ty)), ref=ref, check=close(256),
                inputs={"x": x, "y": y}, traced=(lax.dot, [tx, ty]))


SPECS.update({
    "xa.matmul": _matmul, "xa.dot": _dot, "xa.inner": _inner, "xa.outer": _outer,
    "xa.vdot": _vdot, "xa.kron": _kron, "xa.tensordot": _tensordot, "xa.vecdot": _vecdot,
    "xa.trace": _trace_like("trace"), "xa.diagonal": _trace_like("diagonal"),
    "xa.einsum": _einsum, "xa.einsum_path": _einsum_path,
    "lax.dot_general": _lax_dot_general, "lax.dot": _lax_dot,
})
