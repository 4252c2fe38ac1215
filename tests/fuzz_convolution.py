"""Fuzz specs of the convolution family (lax.conv_general_dilated and its shorthands,
xa.convolve / correlate / sliding_window_view), registered into tests/fuzz_ops.py's
SPECS (which imports this module last). References: test_convolution.reference_conv (the
seed's definition in float64) for lax, NumPy for xa. One draw in 8 is a bad argument
(mismatched feature counts), which must raise what jax raises (ValueError / TypeError).
"""

import numpy as np
from hypothesis import strategies as st

import xarr as xa
from fuzz_ops import NOT_FUZZED, SPECS, Case, JaxError, close, numpy_call, quiet
from test_convolution import _operands, _values, conv_cases, reference_conv

lax = xa.lax
CHECK = close(256)


def _result(case, x, w, dn, args_of):
    """The reference of a drawn case (JaxError for a bad one), in the operands' dtype."""
    def ref():
        feat = x.shape[dn.lhs_spec[1]]
        if feat != w.shape[dn.rhs_spec[1]] * case["fgc"]:
            raise JaxError(ValueError, TypeError)
        out, _ = reference_conv(x, w, *args_of())
        if np.dtype(case["dt"]).kind in "iu":
            return out.real.round().astype(np.int64).astype(case["dt"])
        return out.astype(case["dt"])
    return ref


def _case(draw):
    case = draw(conv_cases())
    x, w, dn = _operands(case)
    if draw(st.integers(0, 7)) == 0:         # a bad argument: one input feature too many
        shape = list(w.shape)
        shape[dn.rhs_spec[1]] += 1
        w = _values(np.random.default_rng(0), shape, case["dt"])
    return case, x, w, dn


def _conv_general_dilated(draw):
    case, x, w, dn = _case(draw)
    args = (case["strides"], case["padding"], case["lhs_dil"], case["rhs_dil"], dn,
            case["fgc"], case["bgc"])

    def call(a, b):
        return lax.conv_general_dilated(a, b, args[0], args[1], args[2], args[3], dn,
                                        feature_group_count=case["fgc"],
                                        batch_group_count=case["bgc"])
    tx, tw = xa.asarray(x), xa.asarray(w)
    return Case(run=quiet(lambda: call(tx, tw)), ref=_result(case, x, w, dn, lambda: args),
                check=CHECK, inputs={"x": x, "w": w, "case": case}, traced=(call, [tx, tw]))


def _nchw_case(draw, n_spatial):
    case = draw(conv_cases().filter(lambda c: c["spec"][0].startswith("NC")
                                    and c["fgc"] == c["bgc"] == 1))
    return case


def _conv(draw):
    case = _nchw_case(draw, None)
    x, w, dn = _operands(case)
    padding = draw(st.sampled_from(["SAME", "VALID", "pairs"]))
    pads = case["padding"] if padding == "pairs" else padding
    n = case["n"]

    def args_of():
        if isinstance(pads, str):
            window = [w.shape[2 + d] for d in range(n)]
            return (case["strides"], _same_valid(x.shape[2:], window, case["strides"], pads),
                    (1,) * n, (1,) * n, dn)
        return (case["strides"], pads, (1,) * n, (1,) * n, dn)

    def call(a, b):
        return lax.conv(a, b, case["strides"], pads)
    tx, tw = xa.asarray(x), xa.asarray(w)
    return Case(run=quiet(lambda: call(tx, tw)), ref=_result(case, x, w, dn, args_of),
                check=CHECK, inputs={"x": x, "w": w, "pads": pads}, traced=(call, [tx, tw]))


def _same_valid(in_shape, window, strides, name):
    """jax's 'SAME' / 'VALID' pads (written out here, independent of xarr's)."""
    if name == "VALID":
        return [(0, 0)] * len(in_shape)
    pads = []
    for n, k, s in zip(in_shape, window, strides):
        out = (n + s - 1) // s
        total = max(0, (out - 1) * s + k - n)
        pads.append((total // 2, total - total // 2))
    return pads


def _conv_with_general_padding(draw):
    case = _nchw_case(draw, None)
    x, w, dn = _operands(case)
    args = (case["strides"], case["padding"], case["lhs_dil"], case["rhs_dil"], dn)

    def call(a, b):
        return lax.conv_with_general_padding(a, b, *args[:4])
    tx, tw = xa.asarray(x), xa.asarray(w)
    return Case(run=quiet(lambda: call(tx, tw)), ref=_result(case, x, w, dn, lambda: args),
                check=CHECK, inputs={"x": x, "w": w, "case": case}, traced=(call, [tx, tw]))


def _conv_transpose(draw):
    # NHC / HIO in 1-D: jax's padding rule written out here, against the reference with
    # lhs dilation = strides.
    dt = draw(st.sampled_from([np.float32, np.float64]))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 31)))
    n, k, s = draw(st.integers(1, 6)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    rd = draw(st.integers(1, 2))
    x = _values(rng, (2, n, 3), dt)
    w = _values(rng, (k, 3, 2), dt)
    name = draw(st.sampled_from(["SAME", "VALID"]))
    kd = (k - 1) * rd + 1
    if name == "SAME":
        total = kd + s - 2
        lo = kd - 1 if s > kd - 1 else (total + 1) // 2
    else:
        total = kd + s - 2 + max(kd - s, 0)
        lo = kd - 1
    dn = lax.conv_dimension_numbers(x.shape, w.shape, ("NHC", "HIO", "NHC"))
    case = {"fgc": 1, "dt": dt}

    def call(a, b):
        return lax.conv_transpose(a, b, (s,), name, rhs_dilation=(rd,))
    tx, tw = xa.asarray(x), xa.asarray(w)
    return Case(run=quiet(lambda: call(tx, tw)),
                ref=_result(case, x, w, dn, lambda: ((1,), ((lo, total - lo),), (s,), (rd,),
                                                     dn)),
                check=CHECK, inputs={"x": x, "w": w, "s": s, "padding": name},
                traced=(call, [tx, tw]))


def _numpy_window(name):
    def make(draw):
        dt = draw(st.sampled_from([np.float64, np.float32, np.int32, np.complex128]))
        rng = np.random.default_rng(draw(st.integers(0, 2 ** 31)))
        a = _values(rng, (draw(st.integers(1, 9)),), dt)
        v = _values(rng, (draw(st.integers(1, 9)),), dt)
        mode = draw(st.sampled_from(["full", "same", "valid"]))
        fn = getattr(xa, name)
        ta = xa.asarray(a)
        return Case(run=quiet(lambda: fn(ta, v, mode)),
                    ref=lambda: numpy_call(getattr(np, name), a, v, mode), check=close(64),
                    inputs={"a": a, "v": v, "mode": mode},
                    traced=(lambda p: fn(p, v, mode), [ta]))
    return make


def _sliding_window_view(draw):
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=1, max_size=3)))
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    axes = draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=2))
    window = tuple(draw(st.integers(0, 6)) for _ in axes)
    tx = xa.asarray(x)
    return Case(run=lambda: xa.sliding_window_view(tx, window, axes),
                ref=lambda: np.lib.stride_tricks.sliding_window_view(x, window, axes),
                inputs={"x": x, "window": window, "axes": axes}, modes=("eager",))


SPECS.update({
    "lax.conv_general_dilated": _conv_general_dilated, "lax.conv": _conv,
    "lax.conv_with_general_padding": _conv_with_general_padding,
    "lax.conv_transpose": _conv_transpose,
    "xa.convolve": _numpy_window("convolve"), "xa.correlate": _numpy_window("correlate"),
    "xa.sliding_window_view": _sliding_window_view,
})
NOT_FUZZED.update({
    "lax.conv_dimension_numbers": "an argument helper (not an op): test_convolution",
    "lax.padtype_to_pads": "an argument helper (not an op): test_convolution",
})


# ------------------------------------------------------------------------ windowed ops
from test_window import (MONOIDS, grid_of, reference_reduce_window,  # noqa: E402
                         reference_select_and_scatter, window_cases)


def _reduce_window(draw):
    shape, win, strides, pads, bd, wd, seed = draw(window_cases())
    name = draw(st.sampled_from(sorted(MONOIDS)))
    dt = draw(st.sampled_from([np.float32, np.float64, np.int32]))
    rng = np.random.default_rng(seed)
    x = (rng.integers(-3, 4, shape) if np.dtype(dt).kind == "i" else
         rng.standard_normal(shape)).astype(dt)
    init = dt({"add": 0, "mul": 1, "max": -100, "min": 100}[name])
    lax_fn, np_fn = MONOIDS[name]

    def call(a):
        return lax.reduce_window(a, init, lax_fn, win, strides, pads, bd, wd)
    tx = xa.asarray(x)
    return Case(run=quiet(lambda: call(tx)),
                ref=lambda: reference_reduce_window(x, init, lambda a, b: dt(np_fn(a, b)), win,
                                                    strides, pads, bd, wd),
                check=close(64), inputs={"x": x, "op": name, "win": win}, traced=(call, [tx]))


def _select_and_scatter_case(draw, generic):
    shape, win, strides, pads, _, _, seed = draw(window_cases())
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 3, shape).astype(np.float32)
    grid = grid_of(shape, win, strides, pads, (1,) * len(shape), (1,) * len(shape))
    src = rng.standard_normal(grid).astype(np.float32)
    if generic:
        def call(a, s):
            return lax.select_and_scatter(a, lambda p, q: lax.ge(p, q), win, strides, pads, s,
                                          np.float32(0), lambda p, q: lax.add(p, q))
    else:
        def call(a, s):
            return lax.select_and_scatter_add(s, a, lax.ge, win, strides, pads)
    tx, ts = xa.asarray(x), xa.asarray(src)
    return Case(run=quiet(lambda: call(tx, ts)),
                ref=lambda: reference_select_and_scatter(x, src, np.greater_equal, np.add,
                                                         np.float32(0), win, strides, pads),
                check=close(64), inputs={"x": x, "src": src, "win": win},
                traced=(call, [tx, ts]))


def _batch_norm(which):
    def make(draw):
        rng = np.random.default_rng(draw(st.integers(0, 2 ** 31)))
        shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
        f = draw(st.integers(0, len(shape) - 1))
        x = rng.standard_normal(shape)
        g, b = rng.standard_normal(shape[f]), rng.standard_normal(shape[f])
        axes = tuple(d for d in range(len(shape)) if d != f)
        mu, var = x.mean(axes), x.var(axes)
        eps = 1e-3

        def per(v):
            return np.expand_dims(v, axes)
        y = (x - per(mu)) / np.sqrt(per(var) + eps) * per(g) + per(b)
        if which == "training":
            def call(p, q, r):
                return lax.batch_norm_training(p, q, r, eps, f)
            args, want = (x, g, b), (y, mu, var)
        elif which == "inference":
            def call(p, q, r):
                return lax.batch_norm_inference(p, q, r, xa.asarray(mu), xa.asarray(var), eps,
                                                f)
            args, want = (x, g, b), y
        else:
            dy = rng.standard_normal(shape)
            m = x.size / shape[f]
            c = (dy * (x - per(mu))).sum(axes) / (m * (var + eps))
            d = dy.sum(axes) / m

            def call(p, q, r):
                return lax.batch_norm_grad(p, q, xa.asarray(mu), xa.asarray(var), r, eps, f)
            args = (x, g, dy)
            want = (per(g) / np.sqrt(per(var) + eps) * (dy - per(d) - per(c) * (x - per(mu))),
                    (dy * (x - per(mu)) / np.sqrt(per(var) + eps)).sum(axes), dy.sum(axes))
        ts = [xa.asarray(a) for a in args]
        return Case(run=lambda: call(*ts), ref=lambda: want, check=close(1e4),
                    inputs={"shape": shape, "f": f}, traced=(call, ts))
    return make


SPECS.update({
    "lax.reduce_window": _reduce_window,
    "lax.select_and_scatter_add": lambda draw: _select_and_scatter_case(draw, False),
    "lax.select_and_scatter": lambda draw: _select_and_scatter_case(draw, True),
    "lax.batch_norm_training": _batch_norm("training"),
    "lax.batch_norm_inference": _batch_norm("inference"),
    "lax.batch_norm_grad": _batch_norm("grad"),
})
