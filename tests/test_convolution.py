"""lax.conv_general_dilated and its shorthands (xarr/_ops/convolution.py): against a naive
float64 reference written here (explicit dilation, padding and windows), over random
parameters (hypothesis), the seed's pseudocode, jax's conv_transpose padding rules, NCHW vs
NHWC, every layout, 1 vs 2 threads, every ISA, eager vs jit vs lazy, HLO text, the output
fusion, and bad arguments. The NumPy frontend (convolve, correlate, sliding_window_view)
against NumPy.

Tolerances: each output element is a sum of K products; a float result may differ from the
float64 sum by K * eps * sum |x w| (checked with that bound).
"""

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import xarr as xa
from conftest import make_tensor
from xarr import lax

CORE = xa._core
ISAS = CORE.supported_isas()


# ------------------------------------------------------------------------ reference
def _dilate(x, factors, axes):
    """x with factor - 1 zeros between elements along each axis."""
    shape = list(x.shape)
    for a, f in zip(axes, factors):
        shape[a] = 0 if shape[a] == 0 else (shape[a] - 1) * f + 1
    out = np.zeros(shape, x.dtype)
    sl = [slice(None)] * x.ndim
    for a, f in zip(axes, factors):
        sl[a] = slice(None, None, f)
    out[tuple(sl)] = x
    return out


def _pad(x, padding, axes):
    """Zero padding, negative entries crop."""
    for a, (lo, hi) in zip(axes, padding):
        widths = [(0, 0)] * x.ndim
        widths[a] = (max(lo, 0), max(hi, 0))
        x = np.pad(x, widths)
        sl = [slice(None)] * x.ndim
        sl[a] = slice(max(-lo, 0), x.shape[a] - max(-hi, 0))
        x = x[tuple(sl)]
    return x


def reference_conv(lhs, rhs, strides, padding, lhs_dil, rhs_dil, dn, fgc=1, bgc=1):
    """The seed's definition, literally: float64 (complex128) NCHW / OIHW copies, lhs
    dilated and padded, rhs dilated, every window summed. Returns (result in the output
    spec's dims, the magnitude sum |x||w| per element)."""
    lspec, rspec, ospec = dn
    wide = np.complex128 if np.iscomplexobj(lhs) or np.iscomplexobj(rhs) else np.float64
    x = np.transpose(np.asarray(lhs), lspec).astype(wide)
    w = np.transpose(np.asarray(rhs), rspec).astype(wide)
    n = x.ndim - 2
    axes = list(range(2, 2 + n))
    x = _pad(_dilate(x, lhs_dil, axes), padding, axes)
    w = _dilate(w, rhs_dil, axes)
    batch, feat = x.shape[:2]
    o_feat, i_feat = w.shape[:2]
    groups = max(fgc, bgc)
    og = o_feat // groups
    out_sp = [max(0, (x.shape[2 + d] - w.shape[2 + d]) // strides[d] + 1)
              if x.shape[2 + d] >= w.shape[2 + d] else 0 for d in range(n)]
    out = np.zeros([batch // bgc, o_feat] + out_sp, wide)
    mag = np.zeros(out.shape)
    for g in range(groups):
        if bgc > 1:
            xg = x[g * (batch // bgc):(g + 1) * (batch // bgc)]
        else:
            xg = x[:, g * i_feat:(g + 1) * i_feat]
        wg = w[g * og:(g + 1) * og]
        for pos in itertools.product(*[range(s) for s in out_sp]):
            win = tuple(slice(p * s, p * s + w.shape[2 + d])
                        for d, (p, s) in enumerate(zip(pos, strides)))
            patch = xg[(slice(None), slice(None)) + win]
            out[(slice(None), slice(g * og, (g + 1) * og)) + pos] = np.tensordot(
                patch, wg, axes=(list(range(1, 2 + n)), list(range(1, 2 + n))))
            mag[(slice(None), slice(g * og, (g + 1) * og)) + pos] = np.tensordot(
                np.abs(patch), np.abs(wg), axes=(list(range(1, 2 + n)), list(range(1, 2 + n))))
    inverse = np.argsort(ospec)
    return np.transpose(out, inverse), np.transpose(mag, inverse)


def _eps(dt):
    dt = np.dtype(dt)
    return float(np.finfo(dt).eps) if dt.kind in "fc" else 0.0


def _close(got, ref, mag, k, dt):
    got = np.asarray(got)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    if np.dtype(dt).kind in "iu":
        np.testing.assert_array_equal(got, ref.real.astype(np.int64).astype(dt))
        return
    bound = (k + 2) * _eps(dt) * mag + 4 * np.finfo(np.dtype(dt)).tiny
    assert np.all(np.abs(got.astype(ref.dtype) - ref) <= bound), \
        np.max(np.abs(got.astype(ref.dtype) - ref) - bound)


def _values(rng, shape, dt):
    dt = np.dtype(dt)
    if dt.kind in "iu":
        return rng.integers(-9, 10, shape).astype(dt)
    x = rng.standard_normal(shape)
    if dt.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dt)


def _nchw(n):
    iota = tuple(range(n + 2))
    return (iota, iota, iota)


def _conv(x, w, strides, padding, lhs_dil, rhs_dil, dn, fgc=1, bgc=1, **kw):
    return lax.conv_general_dilated(x, w, strides, padding, lhs_dil, rhs_dil, dn,
                                    feature_group_count=fgc, batch_group_count=bgc, **kw)


# ------------------------------------------------------------------------ the seed
def test_seed_pseudocode_2d_with_padding_and_strides():
    # The seed's pseudocode: iy = oy*stride_y + ky - pad_low_y, inside the base area.
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 6, 5))
    w = rng.standard_normal((4, 3, 3, 2))
    sy, sx, py, px = 2, 1, 1, 2
    oy_n = (6 + py + 1 - 3) // sy + 1
    ox_n = (5 + px + 0 - 2) // sx + 1
    want = np.zeros((2, 4, oy_n, ox_n))
    for b, oz, oy, ox in itertools.product(range(2), range(4), range(oy_n), range(ox_n)):
        value = 0.0
        for iz, ky, kx in itertools.product(range(3), range(3), range(2)):
            iy, ix = oy * sy + ky - py, ox * sx + kx - px
            if 0 <= iy < 6 and 0 <= ix < 5:
                value += x[b, iz, iy, ix] * w[oz, iz, ky, kx]
        want[b, oz, oy, ox] = value
    got = lax.conv_with_general_padding(xa.asarray(x), xa.asarray(w), (sy, sx),
                                        ((py, 1), (px, 0)), (1, 1), (1, 1))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)


def test_module_worked_examples():
    x = xa.asarray(np.array([[[1.0, 2, 3, 4]]], np.float32))
    w = xa.asarray(np.array([[[1.0, 1]]], np.float32))
    np.testing.assert_array_equal(np.asarray(lax.conv_general_dilated(x, w, (1,), ((1, 0),))),
                                  [[[1, 3, 5, 7]]])
    np.testing.assert_array_equal(
        np.asarray(lax.conv_general_dilated(x, w, (1,), ((0, 0),), lhs_dilation=(2,))),
        [[[1, 2, 2, 3, 3, 4]]])


def test_same_and_valid_padding_shapes_follow_jax():
    x = xa.ones((1, 1, 7, 8), dtype=xa.float32)
    w = xa.ones((1, 1, 3, 2), dtype=xa.float32)
    assert lax.conv(x, w, (1, 1), "SAME").shape == (1, 1, 7, 8)
    assert lax.conv(x, w, (2, 3), "SAME").shape == (1, 1, 4, 3)
    assert lax.conv(x, w, (2, 3), "VALID").shape == (1, 1, 3, 3)
    assert lax.padtype_to_pads((7, 8), (3, 2), (1, 1), "SAME") == ((1, 1), (0, 1))
    assert lax.padtype_to_pads((7, 8), (3, 2), (1, 1), "SAME_LOWER") == ((1, 1), (1, 0))
    # 'SAME' centres the window: the middle output sums the full 3x2 window
    y = np.asarray(lax.conv(x, w, (1, 1), "SAME"))
    assert y[0, 0, 3, 4] == 6 and y[0, 0, 0, 0] == 4 and y[0, 0, 0, 7] == 2


# ------------------------------------------------------------------------ properties
_SPECS = {1: [("NCH", "OIH", "NCH"), ("NHC", "HIO", "NHC"), ("HNC", "IHO", "CHN")],
          2: [("NCHW", "OIHW", "NCHW"), ("NHWC", "HWIO", "NHWC"), ("CHWN", "WHIO", "NWHC")],
          3: [("NCDHW", "OIDHW", "NCDHW"), ("NDHWC", "DHWIO", "NDHWC")]}


@st.composite
def conv_cases(draw):
    n = draw(st.sampled_from([1, 1, 2, 2, 2, 3]))
    spec = draw(st.sampled_from(_SPECS[n]))
    group_kind = draw(st.sampled_from(["none", "none", "feature", "batch"]))
    groups = 1 if group_kind == "none" else draw(st.integers(1, 3))
    fgc = groups if group_kind == "feature" else 1
    bgc = groups if group_kind == "batch" else 1
    batch = draw(st.integers(0, 2)) * bgc if draw(st.booleans()) else bgc * draw(st.integers(1, 2))
    i_feat = draw(st.integers(0 if n == 1 else 1, 3))
    og = draw(st.integers(1, 3))
    in_sp = [draw(st.integers(1, 7 if n < 3 else 4)) for _ in range(n)]
    win = [draw(st.integers(1, 4 if n < 3 else 2)) for _ in range(n)]
    strides = [draw(st.integers(1, 3)) for _ in range(n)]
    lhs_dil = [draw(st.sampled_from([1, 1, 2, 3])) for _ in range(n)]
    rhs_dil = [draw(st.sampled_from([1, 1, 2])) for _ in range(n)]
    padding = []
    for d in range(n):
        size = (in_sp[d] - 1) * lhs_dil[d] + 1
        padding.append((draw(st.integers(-min(size, 2), 3)), draw(st.integers(-min(size, 2), 3))))
    dt = draw(st.sampled_from([np.float32, np.float64, np.int32, np.complex64]))
    return dict(n=n, spec=spec, fgc=fgc, bgc=bgc, batch=batch, i_feat=i_feat,
                o_feat=og * groups, in_sp=in_sp, win=win, strides=strides, lhs_dil=lhs_dil,
                rhs_dil=rhs_dil, padding=padding, dt=dt,
                seed=draw(st.integers(0, 2 ** 31)))


def _operands(case):
    """NumPy lhs / rhs in the case's dimension numbers, and the ConvDimensionNumbers."""
    rng = np.random.default_rng(case["seed"])
    n = case["n"]
    feat = case["i_feat"] * case["fgc"]
    x = _values(rng, [case["batch"], feat] + case["in_sp"], case["dt"])
    w = _values(rng, [case["o_feat"], case["i_feat"]] + case["win"], case["dt"])
    dn = lax.conv_dimension_numbers(x.shape, w.shape, case["spec"])
    # x / w are in NCHW order: move them into the spec's order
    x = np.transpose(x, np.argsort(dn.lhs_spec))
    w = np.transpose(w, np.argsort(dn.rhs_spec))
    assert x.shape[dn.lhs_spec[1]] == feat and len(dn.lhs_spec) == n + 2
    return x, w, dn


@settings(max_examples=120, deadline=None)
@given(conv_cases())
def test_conv_general_dilated_against_reference(case):
    x, w, dn = _operands(case)
    args = (case["strides"], case["padding"], case["lhs_dil"], case["rhs_dil"], dn,
            case["fgc"], case["bgc"])
    ref, mag = reference_conv(x, w, *args)
    got = _conv(xa.asarray(x), xa.asarray(w), *args)
    k = case["i_feat"] * int(np.prod(case["win"]))
    assert got.dtype == np.dtype(case["dt"])
    _close(got, ref, mag, k, case["dt"])


@settings(max_examples=25, deadline=None)
@given(conv_cases(), st.sampled_from(["colmajor", "step", "negstep", "transposed", "tiled"]))
def test_conv_on_every_layout_matches_row_major(case, how):
    x, w, dn = _operands(case)
    args = (case["strides"], case["padding"], case["lhs_dil"], case["rhs_dil"], dn,
            case["fgc"], case["bgc"])
    want = np.asarray(_conv(xa.asarray(x), xa.asarray(w), *args))
    got = np.asarray(_conv(make_tensor(x, how), make_tensor(w, how), *args))
    ref, mag = reference_conv(x, w, *args)
    _close(got, ref, mag, case["i_feat"] * int(np.prod(case["win"])), case["dt"])
    assert got.shape == want.shape


@st.composite
def depthwise_cases(draw):
    """Depthwise convolutions (feature_group_count = input features) with rows wide enough
    for the kernel's vector blocks (>= 16 outputs), every stride, dilation and padding."""
    n = draw(st.sampled_from([1, 2, 2, 3]))
    spec = draw(st.sampled_from(_SPECS[n]))
    feat, mult = draw(st.integers(1, 3)), draw(st.integers(1, 2))
    in_sp = [draw(st.integers(1, 5)) for _ in range(n - 1)] + [draw(st.integers(14, 45))]
    win = [draw(st.integers(1, 4)) for _ in range(n)]
    strides = [draw(st.integers(1, 5)) for _ in range(n)]
    lhs_dil = [draw(st.sampled_from([1, 1, 1, 2])) for _ in range(n)]
    rhs_dil = [draw(st.sampled_from([1, 1, 2])) for _ in range(n)]
    padding = []
    for d in range(n):
        size = (in_sp[d] - 1) * lhs_dil[d] + 1
        padding.append((draw(st.integers(-min(size, 2), 3)), draw(st.integers(-min(size, 2), 3))))
    return dict(n=n, spec=spec, fgc=feat, bgc=1, batch=draw(st.integers(1, 2)), i_feat=1,
                o_feat=feat * mult, in_sp=in_sp, win=win, strides=strides, lhs_dil=lhs_dil,
                rhs_dil=rhs_dil, padding=padding,
                dt=draw(st.sampled_from([np.float32, np.float64])),
                seed=draw(st.integers(0, 2 ** 31)))


@settings(max_examples=150, deadline=None)
@given(depthwise_cases(), st.sampled_from(["dense", "dense", "colmajor", "step"]))
def test_depthwise_wide_rows_against_reference(case, how):
    x, w, dn = _operands(case)
    args = (case["strides"], case["padding"], case["lhs_dil"], case["rhs_dil"], dn,
            case["fgc"], 1)
    ref, mag = reference_conv(x, w, *args)
    lhs = xa.asarray(x) if how == "dense" else make_tensor(x, how)
    before = CORE.get_isa()
    try:
        for isa in ISAS:   # (each ISA's row width: a register of 16, 32 or 64 bytes)
            CORE.set_isa(isa)
            _close(_conv(lhs, xa.asarray(w), *args), ref, mag, int(np.prod(case["win"])),
                   case["dt"])
    finally:
        CORE.set_isa(before)


@st.composite
def winograd_cases(draw):
    """3x3 stride-1 f32 NCHW convolutions, the shapes Winograd's F(2x2, 3x3) takes: odd and
    even output sizes (half-empty edge tiles), panels of tiles crossing rows and images,
    output features not a multiple of the micro-kernel's rows."""
    h, w = draw(st.integers(1, 23)), draw(st.integers(1, 37))
    pad = [(draw(st.integers(-1, 3)), draw(st.integers(-1, 3))) for _ in range(2)]
    for size, (lo, hi) in zip((h, w), pad):
        assume(size + lo + hi >= 3)
    return dict(batch=draw(st.integers(1, 3)), c=draw(st.integers(2, 24)),   # (1: depthwise)
                k=draw(st.integers(1, 40)), h=h, w=w, pad=pad,
                seed=draw(st.integers(0, 2 ** 31)))


@pytest.fixture
def winograd_calls(monkeypatch):
    """Counts the convolutions that took the Winograd kernel."""
    import xarr._ops.convolution as conv_module
    calls = []
    real = conv_module.winograd_into

    def spy(*args):
        calls.append(args[0].shape)
        return real(*args)

    monkeypatch.setattr(conv_module, "winograd_into", spy)
    return calls


def _close_winograd(got, x, w, pad):
    """Winograd's transforms mix a 2x2 output tile's whole 4x4 input patch: its error is
    bounded by eps times the products of that patch (for an output at (y, x): the 5x5
    input area around its window, times the largest filter tap), summed over features."""
    (pt, pb), (pl, pr) = pad
    ref, _ = reference_conv(x, w, (1, 1), pad, (1, 1), (1, 1), _nchw(2))
    got = np.asarray(got)
    assert got.shape == ref.shape
    ax = np.pad(np.abs(x.astype(np.float64)),
                ((0, 0), (0, 0), (max(pt + 1, 0), max(pb + 3, 0)), (max(pl + 1, 0), max(pr + 3, 0))))
    ax = ax[:, :, max(-pt - 1, 0):, max(-pl - 1, 0):]
    area = np.lib.stride_tricks.sliding_window_view(ax, (5, 5), axis=(2, 3)).sum(axis=(-1, -2))
    mag = np.einsum("bchw,kc->bkhw", area, np.abs(w.astype(np.float64)).max(axis=(2, 3)))
    mag = mag[:, :, :ref.shape[2], :ref.shape[3]]
    bound = (9 * x.shape[1] + 2) * _eps(np.float32) * mag + 4 * np.finfo(np.float32).tiny
    assert np.all(np.abs(got - ref) <= bound), np.max(np.abs(got - ref) - bound)


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])   # (counts only grow)
@given(case=winograd_cases())
def test_winograd_against_reference(case, winograd_calls):
    rng = np.random.default_rng(case["seed"])
    x = rng.standard_normal((case["batch"], case["c"], case["h"], case["w"])).astype(np.float32)
    w = rng.standard_normal((case["k"], case["c"], 3, 3)).astype(np.float32)
    isa_before = CORE.get_isa()
    try:
        for isa in ISAS:   # (each ISA's transforms take a register of tiles: 4, 8 or 16)
            CORE.set_isa(isa)
            before = len(winograd_calls)
            got = lax.conv_general_dilated(xa.asarray(x), xa.asarray(w), (1, 1), case["pad"])
            assert len(winograd_calls) == before + 1
            _close_winograd(got, x, w, case["pad"])
    finally:
        CORE.set_isa(isa_before)


def test_winograd_feature_chunks_views_and_the_fallbacks(winograd_calls):
    rng = np.random.default_rng(8)
    # more than 128 input features: the products accumulate over two passes
    x = rng.standard_normal((2, 150, 9, 17)).astype(np.float32)
    w = rng.standard_normal((5, 150, 3, 3)).astype(np.float32)
    got = lax.conv_general_dilated(xa.asarray(x), xa.asarray(w), (1, 1), "SAME")
    _close_winograd(got, x, w, ((1, 1), (1, 1)))
    # a view with strided rows and features (rows still contiguous), and a strided filter
    big = rng.standard_normal((3, 8, 30, 19)).astype(np.float32)
    wk = rng.standard_normal((7, 8, 3, 5)).astype(np.float32)
    xv, wv = xa.asarray(big)[:, ::2, ::3], xa.asarray(wk)[:, ::2, :, 1:4]
    got = lax.conv_general_dilated(xv, wv, (1, 1), ((2, 0), (0, 1)))
    _close_winograd(got, big[:, ::2, ::3], wk[:, ::2, :, 1:4], ((2, 0), (0, 1)))
    assert len(winograd_calls) == 2
    # no input features: a sum of nothing (zeros, not an uninitialized output), through
    # the conv and through the kernel's binding
    f32 = np.float32
    got = lax.conv_general_dilated(xa.zeros((1, 0, 8, 8), f32), xa.zeros((4, 0, 3, 3), f32),
                                   (1, 1), "SAME")
    np.testing.assert_array_equal(np.asarray(got), np.zeros((1, 4, 8, 8), np.float32))
    from xarr._bindings.window import winograd_into
    out = xa.full((1, 4, 8, 8), 7.0, f32)
    nchw = (0, 1, 2, 3)
    winograd_into(out, xa.zeros((1, 0, 8, 8), f32), xa.zeros((4, 0, 3, 3), f32),
                  (nchw, nchw, nchw), 1, 1)
    np.testing.assert_array_equal(np.asarray(out), np.zeros((1, 4, 8, 8), np.float32))
    # not taken: f64, stride 2, dilation, groups, NHWC rows, a 5x5 window
    x = rng.standard_normal((2, 8, 10, 12)).astype(np.float32)
    w = rng.standard_normal((8, 8, 3, 3)).astype(np.float32)
    X, Wt = xa.asarray(x), xa.asarray(w)
    lax.conv_general_dilated(xa.asarray(x.astype(np.float64)), xa.asarray(w.astype(np.float64)),
                             (1, 1), "SAME")
    lax.conv_general_dilated(X, Wt, (2, 2), "SAME")
    lax.conv_general_dilated(X, Wt, (1, 1), "SAME", rhs_dilation=(2, 1))
    lax.conv_general_dilated(X, Wt[:, :4], (1, 1), "SAME", feature_group_count=2)
    lax.conv_general_dilated(xa.asarray(np.ascontiguousarray(x.transpose(0, 2, 3, 1))),
                             xa.asarray(np.ascontiguousarray(w.transpose(2, 3, 1, 0))), (1, 1),
                             "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    lax.conv_general_dilated(X, xa.asarray(rng.standard_normal((8, 8, 5, 5)).astype(np.float32)),
                             (1, 1), "SAME")
    assert len(winograd_calls) == 3   # (the two above and the one without features)


def test_nchw_and_nhwc_agree():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 5, 9, 8)).astype(np.float32)
    w = rng.standard_normal((6, 5, 3, 3)).astype(np.float32)
    for strides, pad, rd in [((1, 1), "SAME", (1, 1)), ((2, 1), ((1, 0), (2, 2)), (2, 1)),
                             ((1, 2), "VALID", (1, 1))]:
        a = np.asarray(lax.conv_general_dilated(xa.asarray(x), xa.asarray(w), strides, pad,
                                                rhs_dilation=rd))
        b = np.asarray(lax.conv_general_dilated(
            xa.asarray(np.ascontiguousarray(x.transpose(0, 2, 3, 1))),
            xa.asarray(np.ascontiguousarray(w.transpose(2, 3, 1, 0))), strides, pad,
            rhs_dilation=rd, dimension_numbers=("NHWC", "HWIO", "NHWC")))
        ref, mag = reference_conv(x, w, strides, pad if not isinstance(pad, str) else
                                  lax.padtype_to_pads((9, 8), [(3 - 1) * r + 1 for r in rd],
                                                      strides, pad),
                                  (1, 1), rd, _nchw(2))
        _close(a, ref, mag, 45, np.float32)
        _close(b.transpose(0, 3, 1, 2), ref, mag, 45, np.float32)


def test_windows_larger_than_the_input_and_empty_batches():
    x = np.arange(6.0).reshape(1, 1, 2, 3)
    w = np.ones((2, 1, 4, 5))
    got = lax.conv_general_dilated(xa.asarray(x), xa.asarray(w), (1, 1), ((2, 2), (2, 2)))
    ref, _ = reference_conv(x, w, (1, 1), ((2, 2), (2, 2)), (1, 1), (1, 1), _nchw(2))
    np.testing.assert_allclose(np.asarray(got), ref)
    assert lax.conv_general_dilated(xa.asarray(x), xa.asarray(w), (1, 1), "VALID").shape == \
        (1, 2, 0, 0)
    empty = lax.conv_general_dilated(xa.zeros((0, 1, 5, 5)), xa.asarray(w), (1, 1), "SAME")
    assert empty.shape == (0, 2, 5, 5)
    zero_feat = lax.conv_general_dilated(xa.zeros((2, 0, 5)), xa.zeros((3, 0, 2)), (1,),
                                         "SAME")
    np.testing.assert_array_equal(np.asarray(zero_feat), np.zeros((2, 3, 5)))


def test_conv_transpose_is_the_scatter_of_each_input_through_the_flipped_window():
    # Textbook transposed convolution (VALID): y[i * s + (K - 1 - k)] += x[i] * w[k].
    rng = np.random.default_rng(3)
    for s, k_size, n in [(2, 3, 5), (3, 2, 4), (1, 3, 6), (2, 4, 3)]:
        x = rng.standard_normal((1, n, 2))          # NHC
        w = rng.standard_normal((k_size, 2, 3))     # HIO
        want = np.zeros((1, (n - 1) * s + k_size, 3))
        for i, k in itertools.product(range(n), range(k_size)):
            want[0, i * s + (k_size - 1 - k)] += x[0, i] @ w[k]
        got = np.asarray(lax.conv_transpose(xa.asarray(x), xa.asarray(w), (s,), "VALID"))
        valid_len = n * s + max(k_size - s, 0)      # jax's VALID output length
        assert got.shape == (1, valid_len, 3)
        np.testing.assert_allclose(got[:, :want.shape[1]], want, rtol=1e-12, atol=1e-12)
        same = lax.conv_transpose(xa.asarray(x), xa.asarray(w), (s,), "SAME")
        assert same.shape == (1, n * s, 3)


def test_conv_transpose_with_transpose_kernel_is_the_gradient_of_conv():
    # <conv(x, w), y> == <x, conv_transpose(y, w, transpose_kernel=True)> (the adjoint).
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 8, 8, 3))
    w = rng.standard_normal((3, 3, 3, 4))
    dn = ("NHWC", "HWIO", "NHWC")
    y = lax.conv_general_dilated(xa.asarray(x), xa.asarray(w), (2, 2), ((1, 1), (1, 1)),
                                 dimension_numbers=dn)
    g = rng.standard_normal(y.shape)
    back = lax.conv_transpose(xa.asarray(g), xa.asarray(w), (2, 2), ((1, 2), (1, 2)),
                              dimension_numbers=dn, transpose_kernel=True)
    assert back.shape == x.shape
    np.testing.assert_allclose(np.sum(np.asarray(y) * g), np.sum(x * np.asarray(back)),
                               rtol=1e-10)


# ------------------------------------------------------------------------ strategies
def _big_case():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 16, 20, 21)).astype(np.float32)
    w = rng.standard_normal((24, 16, 3, 3)).astype(np.float32)
    return x, w


def test_one_and_two_threads_give_the_same_bits():
    x, w = _big_case()
    before = xa.get_num_threads()
    try:
        outs = []
        for nt in (1, 2):
            xa.set_num_threads(nt)
            outs.append(np.asarray(lax.conv(xa.asarray(x), xa.asarray(w), (1, 1), "SAME")))
            outs.append(np.asarray(lax.conv_general_dilated(
                xa.asarray(x), xa.asarray(w[:, :4]), (2, 1), ((1, 1), (0, 2)),
                feature_group_count=4)))
    finally:
        xa.set_num_threads(before)
    assert np.array_equal(outs[0], outs[2]) and np.array_equal(outs[1], outs[3])


@pytest.mark.parametrize("isa", ISAS)
def test_every_isa_against_the_reference(isa):
    x, w = _big_case()
    before = CORE.get_isa()
    try:
        CORE.set_isa(isa)
        for dt in (np.float32, np.float64):
            for pad, fgc in (("SAME", 1), (((2, 0), (1, 1)), 2)):
                wg = w[:, :16 // fgc].astype(dt)
                got = lax.conv_general_dilated(xa.asarray(x.astype(dt)), xa.asarray(wg),
                                               (1, 1), pad, feature_group_count=fgc)
                pads = lax.padtype_to_pads((20, 21), (3, 3), (1, 1), pad) \
                    if isinstance(pad, str) else pad
                ref, mag = reference_conv(x.astype(dt), wg, (1, 1), pads, (1, 1), (1, 1),
                                          _nchw(2), fgc)
                _close(got, ref, mag, 9 * 16 // fgc, dt)
    finally:
        CORE.set_isa(before)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_stride_2_rows_of_every_length_against_the_reference(dt):
    # Output rows 1..21 wide: the engine's B panels (positions) are runs of every length
    # read at stride 2 (gemm.cpp copy_every_second, including its last four from one
    # element early), some crossing a row's end. VALID windows end on the last input
    # element, so a read past a run would also leave the input.
    rng = np.random.default_rng(12)
    for ow in range(1, 22):
        x = rng.standard_normal((2, 6, 5, 2 * ow + 1)).astype(dt)
        w = rng.standard_normal((20, 6, 3, 3)).astype(dt)
        got = lax.conv_general_dilated(xa.asarray(x), xa.asarray(w), (2, 2), "VALID")
        ref, mag = reference_conv(x, w, (2, 2), ((0, 0), (0, 0)), (1, 1), (1, 1), _nchw(2))
        _close(got, ref, mag, 54, dt)


def _layer(x, w, b):
    y = lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return xa.maximum(y + b, 0.0)


def test_jit_lazy_eager_agree_and_the_epilogue_fuses():
    rng = np.random.default_rng(6)
    x = xa.asarray(rng.standard_normal((2, 9, 10, 4)).astype(np.float32))
    w = xa.asarray(rng.standard_normal((3, 3, 4, 5)).astype(np.float32))
    b = xa.asarray(rng.standard_normal(5).astype(np.float32))
    f = xa.jit(_layer)
    compiled = f.lower(x, w, b).compile()
    assert compiled.kernel_count == 1
    text = compiled.as_text()
    assert "kind=kOutput" in text and " convolution(" in text
    eager = np.asarray(_layer(x, w, b))
    np.testing.assert_array_equal(np.asarray(f(x, w, b)), eager)
    with xa.lazy():
        y = _layer(x, w, b)
    np.testing.assert_array_equal(np.asarray(y), eager)


def test_hlo_text_as_xla_prints_it():
    x = xa.ones((1, 3, 8, 8), dtype=xa.float32)
    w = xa.ones((4, 3, 3, 3), dtype=xa.float32)
    text = xa.jit(lambda p, q: lax.conv(p, q, (1, 1), "SAME")).lower(x, w).as_text()
    assert "convolution(" in text
    assert "window={size=3x3 stride=1x1 pad=1_1x1_1}" in text
    assert "dim_labels=bf01_oi01->bf01" in text
    text = xa.jit(lambda p, q: lax.conv_general_dilated(
        p, q, (2, 1), ((0, 1), (2, 2)), (1, 2), (3, 1), ("NHWC", "HWIO", "NHWC"),
        feature_group_count=1)).lower(xa.ones((1, 8, 8, 3)), xa.ones((3, 3, 3, 4))).as_text()
    assert "window={size=3x3 stride=2x1 pad=0_1x2_2 lhs_dilate=1x2 rhs_dilate=3x1}" in text
    assert "dim_labels=b01f_01io->b01f" in text


# ------------------------------------------------------------------------ errors
@pytest.mark.parametrize("call, match", [
    (lambda: lax.conv(xa.ones((1, 3, 5, 5)), xa.ones((2, 4, 3, 3)), (1, 1), "SAME"),
     "lhs feature dimension size 3 must equal rhs input feature dimension size 4"),
    (lambda: lax.conv_general_dilated(xa.ones((1, 4, 5)), xa.ones((3, 2, 3)), (1,), "SAME",
                                      feature_group_count=2),
     "output feature dimension size 3 must be a multiple of feature_group_count 2"),
    (lambda: lax.conv_general_dilated(xa.ones((3, 4, 5)), xa.ones((2, 4, 3)), (1,), "SAME",
                                      batch_group_count=2),
     "batch dimension size 3 must be a multiple of batch_group_count 2"),
    (lambda: lax.conv(xa.ones((1, 3, 5, 5)), xa.ones((2, 3, 3, 3)), (1, -1), "SAME"),
     r"window_strides \(1, -1\) must be positive"),
    (lambda: lax.conv(xa.ones((1, 3, 5, 5)), xa.ones((2, 3, 3, 3)), (1,), "SAME"),
     "one entry per spatial dimension"),
    (lambda: lax.conv(xa.ones((1, 3, 5, 5)), xa.ones((2, 3, 3)), (1, 1), "SAME"),
     "same rank"),
    (lambda: lax.conv(xa.ones((1, 3, 5, 5)), xa.ones((2, 3, 3, 3)), (1, 1), "FULL"),
     "padding must be"),
    (lambda: lax.conv_general_dilated(xa.ones((1, 3, 5, 5)), xa.ones((2, 3, 3, 3)), (1, 1),
                                      "SAME", dimension_numbers=("NCHW", "OIHW", "NCHX")),
     "spatial letters"),
    (lambda: lax.conv_general_dilated(xa.ones((1, 3, 5, 5)), xa.ones((2, 3, 3, 3)), (1, 1),
                                      "SAME", dimension_numbers=("NCHW", "OOHW", "NCHW")),
     "must name 'O' and 'I' once"),
    (lambda: lax.conv_general_dilated(xa.ones((1, 3, 5)), xa.ones((2, 3, 3)), (1,),
                                      ((-9, 0),)),
     "crops more than"),
    (lambda: lax.conv_general_dilated(xa.ones((1, 3, 5)), xa.ones((2, 3, 3)), (1,), "SAME",
                                      lhs_dilation=(2,)),
     "string padding"),
    (lambda: lax.conv_general_dilated(xa.ones((2, 4, 5)), xa.ones((4, 2, 3)), (1,), "SAME",
                                      feature_group_count=2, batch_group_count=2),
     "at most one"),
])
def test_bad_arguments_raise_with_the_values(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


# ------------------------------------------------------------------------ NumPy frontend
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("na, nv", [(7, 3), (3, 7), (5, 5), (6, 4), (4, 6), (1, 1), (8, 1)])
@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int64, np.complex128])
def test_convolve_and_correlate_match_numpy(mode, na, nv, dt):
    rng = np.random.default_rng(na * 10 + nv)
    a, v = _values(rng, (na,), dt), _values(rng, (nv,), dt)
    for name in ("convolve", "correlate"):
        want = getattr(np, name)(a, v, mode)
        got = getattr(xa, name)(xa.asarray(a), v, mode)
        assert got.dtype == want.dtype and got.shape == want.shape, (name, got.shape)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("na, nv", [(100, 5), (9000, 31), (5000, 4999), (10, 9000)])
def test_convolve_direct_path_on_views_and_long_rows(na, nv, dt):
    # f32 / f64 take the direct path (windows.py _direct: only the mode's outputs, v
    # reversed through a negative stride); rows past 4096 outputs run in parts
    # (window.cpp depthwise_part), here with padding wider than a part (5000, 4999) and
    # a filter longer than the signal (10, 9000). Views: every second, reversed.
    rng = np.random.default_rng(na + nv)
    a64, v64 = rng.standard_normal(2 * na).astype(dt), rng.standard_normal(3 * nv).astype(dt)
    ta, tv = xa.asarray(a64), xa.asarray(v64)
    for sa, sv in ((slice(0, na), slice(0, nv)), (slice(None, None, 2), slice(None, None, -3)),
                   (slice(None, None, -2), slice(nv, 2 * nv))):
        a, v = a64[sa].astype(np.float64), v64[sv].astype(np.float64)
        bound = (min(na, nv) + 2) * np.finfo(dt).eps * \
            np.max(np.convolve(np.abs(a), np.abs(v))) + 1e-30
        for mode in ("full", "same", "valid"):
            for name in ("convolve", "correlate"):
                want = getattr(np, name)(a, v, mode)
                got = getattr(xa, name)(ta[sa], tv[sv], mode)
                assert got.dtype == dt and got.shape == want.shape, (name, mode, got.shape)
                assert np.max(np.abs(np.asarray(got) - want), initial=0) <= bound, (name, mode)


def test_convolve_direct_and_graph_paths_agree():
    # Traced operands take lax.conv_general_dilated of the full result, sliced; the
    # direct path must give the same numbers (the same taps in the same order).
    rng = np.random.default_rng(3)
    a, v = xa.asarray(rng.standard_normal(9000)), xa.asarray(rng.standard_normal(13))
    for mode in ("full", "same", "valid"):
        eager = np.asarray(xa.convolve(a, v, mode))
        traced = np.asarray(xa.jit(lambda x, y: xa.convolve(x, y, mode))(a, v))
        np.testing.assert_allclose(eager, traced, rtol=1e-13, atol=1e-13)
        with xa.lazy():
            recorded = xa.convolve(a, v, mode)
        assert not isinstance(recorded, xa.Tensor)    # recorded, not run (xa.lazy)
        np.testing.assert_allclose(np.asarray(recorded), eager, rtol=1e-13, atol=1e-13)


def test_long_depthwise_rows_in_parts_against_the_reference_on_1_and_2_threads():
    # 2-D planes with rows of 9000 outputs (cut into parts of 4096), stride 2 along the
    # row, and a 1-D window whose padding covers whole parts (the rows then run whole).
    rng = np.random.default_rng(8)
    x = rng.standard_normal((1, 2, 4, 18001)).astype(np.float32)
    w = rng.standard_normal((2, 1, 3, 3)).astype(np.float32)
    x1 = rng.standard_normal((1, 1, 5)).astype(np.float64)
    w1 = rng.standard_normal((1, 1, 3)).astype(np.float64)
    before = xa.get_num_threads()
    try:
        outs = []
        for nt in (1, 2):
            xa.set_num_threads(nt)
            outs.append(np.asarray(lax.conv_general_dilated(
                xa.asarray(x), xa.asarray(w), (1, 2), ((1, 1), (1, 1)),
                feature_group_count=2)))
            outs.append(np.asarray(lax.conv_general_dilated(
                xa.asarray(x1), xa.asarray(w1), (1,), ((9000, 9000),))))
    finally:
        xa.set_num_threads(before)
    assert np.array_equal(outs[0], outs[2]) and np.array_equal(outs[1], outs[3])
    ref, mag = reference_conv(x, w, (1, 2), ((1, 1), (1, 1)), (1, 1), (1, 1), _nchw(2), 2)
    _close(outs[0], ref, mag, 9, np.float32)
    ref, mag = reference_conv(x1, w1, (1,), ((9000, 9000),), (1,), (1,), _nchw(1))
    _close(outs[1], ref, mag, 3, np.float64)


def test_convolve_rejects_empty_and_bad_modes():
    with pytest.raises(ValueError, match="empty"):
        xa.convolve(xa.asarray([]), [1.0])
    with pytest.raises(ValueError, match="mode"):
        xa.correlate([1.0, 2.0], [1.0], mode="middle")
    with pytest.raises(ValueError, match="1-D"):
        xa.convolve(xa.ones((2, 2)), [1.0])


@pytest.mark.parametrize("shape, window, axis", [((10,), 3, None), ((4, 5), (2, 3), None),
                                                  ((4, 5), 2, 1), ((4, 5, 6), (2, 2), (0, 2)),
                                                  ((4, 5), (3, 2), (1, 1))])
def test_sliding_window_view_matches_numpy(shape, window, axis):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    want = np.lib.stride_tricks.sliding_window_view(x, window, axis)
    got = xa.sliding_window_view(xa.asarray(x), window, axis)
    np.testing.assert_array_equal(np.asarray(got), want)
    assert not got.flags["WRITEABLE"]
    with pytest.raises(ValueError, match="window"):
        xa.sliding_window_view(xa.asarray(x), 99, 0)
