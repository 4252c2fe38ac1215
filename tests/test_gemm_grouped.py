"""The k-grouped GEMM kernels (csrc/kernels/gemm/gemm_amx.cpp, gemm_avx512dot.cpp): int8
products into s32 on AMX (tdpb[su][su]d) or AVX512-VNNI (vpdpbusd, with the 128-shift and
its column corrections when both operands have the same signedness), and bf16 products
into f32 on AMX (tdpbf16ps) or AVX512-BF16 (vdpbf16ps). Each variant the CPU has runs
against exact integers / a float64 reference over the kernels' edge sizes, k around the
block and group sizes, every sign combination and extreme values, layouts and strided
views, batches, the k-split path, and 1 vs 2 threads; a CPU without them runs the
convert-while-packing path through the same tests.
"""

import itertools

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import xarr as xa
from conftest import make_tensor
from xarr import lax
from xarr._bindings.gemm import grouped_kernel, use_amx
from xarr._dtypes import CODE_OF

CORE = xa._core
FEATURES = CORE.cpu_features()
BF16 = np.dtype(ml_dtypes.bfloat16)
INT8 = [np.dtype(np.int8), np.dtype(np.uint8)]
S32, F32 = CODE_OF[np.dtype(np.int32)], CODE_OF[np.dtype(np.float32)]
# AMX in use: the CPU has it and the OS granted the tile state
_AMX_BF16 = grouped_kernel(F32, CODE_OF[BF16], CODE_OF[BF16])
HAVE_AMX = bool(_AMX_BF16) and "amx" in _AMX_BF16[0]
# "amx": the AMX kernels where present; "avx512": with AMX turned off (VNNI / BF16 where
# present, else the converting path).
VARIANTS = ["amx", "avx512"]


@pytest.fixture(params=VARIANTS)
def variant(request):
    before = use_amx(request.param == "amx")
    if request.param == "amx" and not HAVE_AMX:
        use_amx(before)
        pytest.skip("this CPU (or OS) has no AMX")
    try:
        yield request.param
    finally:
        use_amx(before)


def _ints(rng, shape, dt):
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, shape, endpoint=True).astype(dt)


def _exact(a, b):
    return np.einsum("...ik,...kj->...ij", a.astype(np.int64), b.astype(np.int64))


def _dot(a, b, out):
    return np.asarray(lax.dot_general(a, b, (((a.ndim - 1,), (b.ndim - 2,)),
                                             (tuple(range(a.ndim - 2)),) * 2),
                                      preferred_element_type=out))


def _bf16_close(got, a, b):
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = np.einsum("...ik,...kj->...ij", a64, b64)
    bound = np.einsum("...ik,...kj->...ij", np.abs(a64), np.abs(b64))
    k = a.shape[-1]
    tol = 2 * (k + 2) * np.finfo(np.float32).eps * bound + 1e-30
    assert got.dtype == np.float32
    assert (np.abs(got - ref) <= tol).all(), float((np.abs(got - ref) - tol).max())


def _edges(t):
    return sorted({1, t - 1, t, t + 1, 2 * t + 3})


def test_the_kernel_each_cpu_gets():
    names = {}
    for da, db in itertools.product(INT8, INT8):
        k = grouped_kernel(S32, CODE_OF[da], CODE_OF[db])
        names[da.name, db.name] = k and k[0]
    bf = grouped_kernel(F32, CODE_OF[BF16], CODE_OF[BF16])
    if HAVE_AMX:
        assert FEATURES["amx"]
        assert names["int8", "uint8"] == "s8u8gemm_amx_32x32"
        assert bf[0] == "bf16gemm_amx_32x32"
    elif FEATURES["avx512_vnni"]:
        assert names["int8", "int8"] == "u8s8gemm_avx512vnni_12x32"  # A shifted by 128
        assert names["int8", "uint8"] == "s8u8gemm_avx512vnni_12x32"
    else:
        assert set(names.values()) == {None}
    before = use_amx(False)
    try:
        bf = grouped_kernel(F32, CODE_OF[BF16], CODE_OF[BF16])
        assert (bf and bf[0]) == ("bf16gemm_avx512bf16_12x32" if FEATURES["avx512_bf16"]
                                  else None)
    finally:
        use_amx(before)
    # other ISAs' tables and other operand types have none
    assert grouped_kernel(S32, CODE_OF[INT8[0]], CODE_OF[INT8[0]], CORE.isa_code("ref")) is None
    assert grouped_kernel(S32, CODE_OF[np.dtype(np.int16)], CODE_OF[INT8[0]]) is None
    assert grouped_kernel(F32, CODE_OF[np.dtype(np.float16)], CODE_OF[BF16]) is None


def test_the_chosen_kernel_runs(variant):
    # Denormal bf16 operands tell the paths apart: the k-grouped kernels (AMX, AVX512-BF16)
    # treat them as zero (gemm.h), the converting path multiplies them.
    kernel = grouped_kernel(F32, CODE_OF[BF16], CODE_OF[BF16])
    tiny = np.full((64, 300), 1e-39, BF16)
    assert np.float32(tiny[0, 0]) != 0
    got = _dot(xa.asarray(tiny), xa.asarray(np.ones((300, 40), BF16)), np.float32)
    if kernel:
        assert (got == 0).all(), kernel
    else:
        np.testing.assert_allclose(got, 300 * np.float64(np.float32(tiny[0, 0])), rtol=1e-3)


@pytest.mark.parametrize("da,db", list(itertools.product(INT8, INT8)),
                         ids=lambda d: d.name)
def test_int8_edges_are_exact(variant, da, db):
    kernel = grouped_kernel(S32, CODE_OF[da], CODE_OF[db])
    mr, nr = (kernel[1], kernel[2]) if kernel else (12, 32)
    rng = np.random.default_rng(1)
    for m, n in itertools.product(_edges(mr), _edges(nr)):
        for k in (1, 3, 4, 5, 63, 64, 65, 517, 1100):
            a, b = _ints(rng, (m, k), da), _ints(rng, (k, n), db)
            np.testing.assert_array_equal(_dot(xa.asarray(a), xa.asarray(b), np.int32),
                                          _exact(a, b), err_msg=f"{m}x{k}x{n}")


@pytest.mark.parametrize("da,db", list(itertools.product(INT8, INT8)),
                         ids=lambda d: d.name)
def test_int8_extremes(variant, da, db):
    # all -128 / all 255 (the largest group sums, and the corrections at their limits)
    for m, k, n in [(40, 1000, 70), (33, 4099, 31)]:
        for fa, fb in itertools.product((np.iinfo(da).min, np.iinfo(da).max),
                                        (np.iinfo(db).min, np.iinfo(db).max)):
            a, b = np.full((m, k), fa, da), np.full((k, n), fb, db)
            np.testing.assert_array_equal(_dot(xa.asarray(a), xa.asarray(b), np.int32),
                                          _exact(a, b))


@pytest.mark.parametrize("how_a,how_b", [("c", "c"), ("colmajor", "c"), ("c", "colmajor"),
                                         ("step", "transposed"), ("negstep", "step"),
                                         ("transposed", "negstep")])
def test_layouts_and_views(variant, how_a, how_b):
    rng = np.random.default_rng(2)
    for m, k, n in [(100, 301, 70), (64, 129, 33)]:
        for da, db in ((INT8[0], INT8[0]), (INT8[1], INT8[0]), (INT8[1], INT8[1])):
            a, b = _ints(rng, (m, k), da), _ints(rng, (k, n), db)
            got = _dot(make_tensor(a, how_a), make_tensor(b, how_b), np.int32)
            np.testing.assert_array_equal(got, _exact(a, b))
        a = rng.standard_normal((m, k)).astype(BF16)
        b = rng.standard_normal((k, n)).astype(BF16)
        _bf16_close(_dot(make_tensor(a, how_a), make_tensor(b, how_b), np.float32), a, b)


def test_bf16_edges(variant):
    kernel = grouped_kernel(F32, CODE_OF[BF16], CODE_OF[BF16])
    mr, nr = (kernel[1], kernel[2]) if kernel else (12, 32)
    rng = np.random.default_rng(3)
    for m, n in itertools.product(_edges(mr), _edges(nr)):
        for k in (1, 2, 3, 31, 32, 33, 385, 1100):
            a = rng.standard_normal((m, k)).astype(BF16)
            b = rng.standard_normal((k, n)).astype(BF16)
            _bf16_close(_dot(xa.asarray(a), xa.asarray(b), np.float32), a, b)


def test_batches_ksplit_and_threads_give_the_same_bits(variant):
    rng = np.random.default_rng(4)
    threads = xa.get_num_threads()
    cases = [((8, 40, 100), (8, 100, 50)),     # a batch, split over threads
             ((2, 300, 500), (2, 500, 260)),   # a team of threads per product
             ((64, 4096), (4096, 64)),         # the k-split path
             ((300, 2600), (2600, 200))]       # several KC blocks (2048 int8, 1024 bf16)
    try:
        for ls, rs in cases:
            for da, db, out in ((INT8[0], INT8[1], np.int32), (INT8[0], INT8[0], np.int32),
                                (BF16, BF16, np.float32)):
                if da == BF16:
                    a = rng.standard_normal(ls).astype(BF16)
                    b = rng.standard_normal(rs).astype(BF16)
                else:
                    a, b = _ints(rng, ls, da), _ints(rng, rs, db)
                ta, tb = xa.asarray(a), xa.asarray(b)
                got = []
                for t in (1, 2):
                    xa.set_num_threads(t)
                    got.append(_dot(ta, tb, out))
                np.testing.assert_array_equal(got[0], got[1])
                if da == BF16:
                    _bf16_close(got[0], a, b)
                else:
                    np.testing.assert_array_equal(got[0], _exact(a, b))
    finally:
        xa.set_num_threads(threads)


def test_numpy_style_products_wrap_and_round(variant):
    rng = np.random.default_rng(5)
    a, b = _ints(rng, (90, 200), np.int8), _ints(rng, (200, 80), np.int8)
    got = xa.asarray(a) @ xa.asarray(b)  # int8 @ int8 -> int8, wrapping like NumPy's
    assert got.dtype == np.int8
    np.testing.assert_array_equal(np.asarray(got), a @ b)
    x = rng.standard_normal((90, 200)).astype(BF16)
    y = rng.standard_normal((200, 80)).astype(BF16)
    got = np.asarray(xa.asarray(x) @ xa.asarray(y))  # bf16 result of f32 sums
    assert got.dtype == BF16
    ref = x.astype(np.float64) @ y.astype(np.float64)
    bound = np.abs(x.astype(np.float64)) @ np.abs(y.astype(np.float64))
    assert (np.abs(got.astype(np.float64) - ref) <= 2.0 ** -8 * np.abs(ref) +
            2 * 202 * 2.0 ** -24 * bound).all()


@given(m=st.integers(1, 80), k=st.integers(1, 300), n=st.integers(1, 80),
       da=st.sampled_from(INT8), db=st.sampled_from(INT8),
       how_a=st.sampled_from(["c", "colmajor", "step", "transposed"]),
       how_b=st.sampled_from(["c", "colmajor", "step", "negstep"]),
       amx=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_int8_products_match_exact_integers(m, k, n, da, db, how_a, how_b, amx, seed):
    rng = np.random.default_rng(seed)
    a, b = _ints(rng, (m, k), da), _ints(rng, (k, n), db)
    before = use_amx(amx)
    try:
        got = _dot(make_tensor(a, how_a), make_tensor(b, how_b), np.int32)
    finally:
        use_amx(before)
    np.testing.assert_array_equal(got, _exact(a, b))
