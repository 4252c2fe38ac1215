"""Tensor layouts and physical storage: relayout, t.storage(), padding, tiling (seeds 000/002).

The central property: for a tensor stored with any layout,
``t.storage()[xa.linear_index(t.xla_shape, idx)] == t[idx]`` for every index, the buffer
holds ``xla_shape.storage_elements`` elements and every other slot is padding (zero, or
the layout's ``padding_value`` for ``padded_dimensions``).
"""

import itertools
import math
import pickle
import re
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import xarr as xa
from conftest import ALL_DTYPES, SETTINGS
from xarr._ops import layout as layout_ops
from xarr._shape import is_padding, tiled_shape

XLA_NAME = dict(zip(ALL_DTYPES, ["pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32",
                                 "u64", "f16", "bf16", "f32", "f64", "c64", "c128"]))


# ------------------------------------------------------------------------------ helpers
def make_values(shape, dtype, seed=0):
    """A NumPy array of ``dtype`` with non-zero values 1..100 (exact in every dtype)."""
    rng = np.random.default_rng(seed)
    ints = rng.integers(1, 101, size=shape)
    if dtype == np.bool_:
        return np.asarray(rng.integers(0, 2, size=shape).astype(bool))
    if dtype.kind == "c":
        return np.asarray((ints + 1j * rng.integers(1, 101, size=shape)).astype(dtype))
    return np.asarray(ints.astype(dtype))


def np_storage(t):
    """The tensor's physical buffer as a 1-D NumPy array."""
    s = t.storage()
    assert s.ndim == 1
    return np.asarray(s)


def check_storage(t, expected, layout, pad_value=0):
    """Checks the storage contract of ``t`` (stored with ``layout``) against ``expected``."""
    shape = xa.Shape(XLA_NAME[np.dtype(expected.dtype)], expected.shape, layout)
    store = np_storage(t)
    assert store.dtype == expected.dtype
    assert store.size == shape.storage_elements
    data_slots = set()
    for idx in itertools.product(*(range(n) for n in expected.shape)):
        li = xa.linear_index(shape, idx)
        assert store[li] == expected[idx], (idx, li, store[li], expected[idx])
        data_slots.add(li)
    assert len(data_slots) == expected.size
    data_end = math.prod(tiled_shape(shape))
    pad = np.asarray(pad_value).astype(expected.dtype)
    zero = np.zeros((), expected.dtype)
    for p in range(store.size):
        if p in data_slots:
            continue
        assert is_padding(shape, p)
        if p >= data_end:   # tail padding (L(n)): zero, or the padding value
            assert store[p] == zero or store[p] == pad, (p, store[p])
        else:
            assert store[p] == pad, (p, store[p], pad)


@st.composite
def shape_and_layout(draw, max_rank=3, max_dim=5):
    rank = draw(st.integers(0, max_rank))
    dims = tuple(draw(st.lists(st.integers(0, max_dim), min_size=rank, max_size=rank)))
    m2m = tuple(draw(st.permutations(range(rank))))
    kind = draw(st.sampled_from(["plain", "padded", "tiled", "tiled"]))
    kwargs = {}
    if kind == "padded":
        kwargs["padded_dimensions"] = tuple(d + draw(st.integers(0, 3)) for d in dims)
        kwargs["padding_value"] = draw(st.sampled_from([0, 7]))
    elif kind == "tiled":
        tiles = []
        for _ in range(draw(st.integers(1, 2))):
            k = draw(st.integers(1, max(rank, 1) + 1))
            tiles.append(tuple(draw(st.sampled_from([1, 2, 3, 4, 8])) for _ in range(k)))
        kwargs["tiles"] = tuple(tiles)
    if draw(st.integers(0, 3)) == 0:
        kwargs["tail_padding_alignment_in_elements"] = draw(st.sampled_from([2, 3, 8]))
    if draw(st.integers(0, 5)) == 0:
        kwargs["memory_space"] = 1
    return dims, xa.Layout(m2m, **kwargs)


def _is_plain(layout):
    return (not layout.tiles and layout.padded_dimensions is None
            and layout.tail_padding_alignment_in_elements == 1 and layout.memory_space == 0)


# ------------------------------------------------------------------------------ seeds
SEED_2x3 = [[1, 2, 3], [4, 5, 6]]   # a b c / d e f


def test_seed_row_major_storage():
    t = xa.asarray(SEED_2x3, dtype=xa.float32, layout=(1, 0))
    assert str(t.xla_shape) == "f32[2,3]{1,0}"
    assert np_storage(t).tolist() == [1, 2, 3, 4, 5, 6]     # a b c d e f


def test_seed_column_major_storage():
    t = xa.asarray(SEED_2x3, dtype=xa.float32, layout=(0, 1))
    assert str(t.xla_shape) == "f32[2,3]{0,1}"
    assert np_storage(t).tolist() == [1, 4, 2, 5, 3, 6]     # a d b e c f
    assert t.tolist() == SEED_2x3
    assert t.strides == (4, 8)


def test_seed_padded_dimensions_storage():
    t = xa.asarray(SEED_2x3, dtype=xa.float32, layout="{0,1:PD(3,5)}")
    assert str(t.xla_shape) == "f32[2,3]{0,1:PD(3,5)}"
    assert t.xla_shape.storage_elements == 15
    # a d 0 b e 0 c f 0 0 0 0 0 0 0
    assert np_storage(t).tolist() == [1, 4, 0, 2, 5, 0, 3, 6, 0, 0, 0, 0, 0, 0, 0]
    assert t.tolist() == SEED_2x3


def test_seed_padded_dimensions_row_major_equivalent():
    # "equivalent to: a b c 0 0 / d e f 0 0 / 0 0 0 0 0" with the same minor-to-major order
    t = xa.asarray(SEED_2x3, dtype=xa.int32, layout="{1,0:PD(3,5)}")
    assert np_storage(t).reshape(3, 5).tolist() == [[1, 2, 3, 0, 0], [4, 5, 6, 0, 0],
                                                    [0, 0, 0, 0, 0]]


def test_seed_padding_value():
    t = xa.asarray(SEED_2x3, dtype=xa.float32, layout="{0,1:PD(3,5)PV(-1)}")
    assert t.layout.padding_value == -1
    assert np_storage(t).tolist() == [1, 4, -1, 2, 5, -1, 3, 6, -1] + [-1] * 6
    assert t.tolist() == SEED_2x3


def test_seed_tiled_3x5_t2x2():
    vals = np.arange(1, 16, dtype=np.float32).reshape(3, 5)
    t = xa.asarray(vals).relayout("{1,0:T(2,2)}")
    assert str(t.xla_shape) == "f32[3,5]{1,0:T(2,2)}"
    assert t.flags["TILED"]
    store = np_storage(t)
    assert store.size == 24
    expected = np.zeros(24, np.float32)
    for i in range(3):
        for j in range(5):
            expected[((i // 2) * 3 + j // 2) * 4 + (i % 2) * 2 + j % 2] = vals[i, j]
    np.testing.assert_array_equal(store, expected)
    # padding slots of the tiled buffer are zero
    assert [p for p in range(24) if store[p] == 0] == [9, 11, 14, 15, 18, 19, 21, 22, 23]
    np.testing.assert_array_equal(np.asarray(t), vals)


def test_seed_tpu_bf16_tiling():
    vals = make_values((20, 300), np.dtype(ml_dtypes.bfloat16), seed=3)
    lay = "{1,0:T(8,128)(2,1)}"
    t = xa.asarray(vals).relayout(lay)
    assert str(t.xla_shape) == "bf16[20,300]" + lay
    check_storage(t, vals, xa.Layout.parse(lay))
    np.testing.assert_array_equal(np.asarray(t), vals)


def test_seed_4d_tpu_layout():
    # bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)} scaled down
    vals = make_values((3, 1, 10, 130), np.dtype(ml_dtypes.bfloat16), seed=4)
    lay = xa.Layout.parse("{3,2,0,1:T(8,128)(2,1)}")
    t = xa.relayout(xa.asarray(vals), lay)
    assert t.layout == lay
    check_storage(t, vals, lay)


def test_linear_index_and_multi_index_exports():
    s = xa.Shape.parse("f32[3,5]{1,0:T(2,2)}")
    assert xa.linear_index(s, (2, 3)) == 17
    assert xa.multi_index(s, 17) == (2, 3)
    for idx in itertools.product(range(3), range(5)):
        assert xa.multi_index(s, xa.linear_index(s, idx)) == idx
    with pytest.raises(ValueError, match="padding"):
        xa.multi_index(s, 9)


# ------------------------------------------------------------------------------ property
@SETTINGS
@given(sl=shape_and_layout(), dtype=st.sampled_from(ALL_DTYPES), seed=st.integers(0, 99))
def test_prop_storage_matches_linear_index(sl, dtype, seed):
    dims, layout = sl
    vals = make_values(dims, dtype, seed)
    t = xa.asarray(vals).relayout(layout)
    assert t.shape == dims and t.dtype == dtype
    pad = layout.padding_value if layout.padded_dimensions is not None else 0
    check_storage(t, vals, layout, pad)
    assert t.storage().size == xa.Shape(XLA_NAME[dtype], dims, layout).storage_elements
    if not _is_plain(layout):
        assert t.layout == layout
        assert str(t.xla_shape) == str(xa.Shape(XLA_NAME[dtype], dims, layout))
    np.testing.assert_array_equal(np.asarray(t), vals)
    for idx in itertools.product(*(range(n) for n in dims)):
        assert t[idx].item() == vals[idx].item()


@SETTINGS
@given(sl=shape_and_layout(), dtype=st.sampled_from(ALL_DTYPES))
def test_prop_storage_when_created_with_layout(sl, dtype):
    dims, layout = sl
    vals = make_values(dims, dtype, 1)
    pad = layout.padding_value if layout.padded_dimensions is not None else 0
    check_storage(xa.asarray(vals, layout=layout), vals, layout, pad)
    check_storage(xa.zeros(dims, dtype, layout=layout), np.zeros(dims, dtype), layout, pad)
    check_storage(xa.full(dims, 1, dtype, layout=layout), np.ones(dims, dtype), layout, pad)


@SETTINGS
@given(sl1=shape_and_layout(max_rank=3), data=st.data(),
       dtype=st.sampled_from(ALL_DTYPES))
def test_prop_relayout_round_trips(sl1, data, dtype):
    dims, lay1 = sl1
    rank = len(dims)
    lay2 = xa.Layout(tuple(data.draw(st.permutations(range(rank)))),
                     tiles=data.draw(st.sampled_from([(), ((2, 2),), ((8, 128), (2, 1)),
                                                      ((4,), (2,))])))
    vals = make_values(dims, dtype, 5)
    t = xa.asarray(vals)
    default = tuple(range(rank - 1, -1, -1))
    colmajor = tuple(range(rank))
    chain = [default, colmajor, lay1, lay2, lay1, default]
    for lay in chain:
        t = t.relayout(lay)
        np.testing.assert_array_equal(np.asarray(t), vals)
    assert t.flags["C_CONTIGUOUS"]
    check_storage(t, vals, xa.Layout(default))


def test_round_trip_seed_chain():
    """{1,0} -> {0,1} -> tiled -> {1,0} keeps the values (seed 000/002)."""
    vals = np.arange(1, 16, dtype=np.float32).reshape(3, 5)
    t = xa.asarray(vals, layout="{1,0}")
    t2 = t.relayout("{0,1}")
    t3 = t2.relayout("{1,0:T(2,2)}")
    t4 = t3.relayout("{1,0}")
    for x in (t2, t3, t4):
        np.testing.assert_array_equal(np.asarray(x), vals)
    np.testing.assert_array_equal(np_storage(t4), vals.ravel())
    np.testing.assert_array_equal(np_storage(t2), vals.ravel(order="F"))


@pytest.mark.parametrize("m2m", list(itertools.permutations(range(3))))
def test_3d_permutations(m2m):
    vals = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    t = xa.asarray(vals).relayout(m2m)
    assert t.layout.minor_to_major == m2m
    assert str(t.xla_shape) == "s32[2,3,4]{" + ",".join(map(str, m2m)) + "}"
    # row-major over the dims in major-to-minor order
    expected = np.transpose(vals, m2m[::-1]).ravel()
    np.testing.assert_array_equal(np_storage(t), expected)
    np.testing.assert_array_equal(np.asarray(t), vals)
    check_storage(t, vals, xa.Layout(m2m))
    # the strides are those of the permuted dense buffer
    itemsize = 4
    expect_strides = [0] * 3
    s = itemsize
    for d in m2m:
        expect_strides[d] = s
        s *= vals.shape[d]
    assert t.strides == tuple(expect_strides)


@pytest.mark.parametrize("m2m", list(itertools.permutations(range(4))))
def test_4d_permutations_tiled(m2m):
    vals = make_values((2, 3, 4, 5), np.dtype(np.float32), 11)
    lay = xa.Layout(m2m, tiles=((2, 4),))
    t = xa.asarray(vals).relayout(lay)
    check_storage(t, vals, lay)
    np.testing.assert_array_equal(np.asarray(t), vals)


@pytest.mark.parametrize("dims, m2m", [((3, 1), (0, 1)), ((1, 4), (1, 0)), ((1, 4), (0, 1)),
                                       ((2, 1, 3), (0, 1, 2)), ((2, 1, 3), (1, 2, 0)),
                                       ((2, 0, 3), (0, 1, 2)), ((1, 1), (0, 1))])
def test_relayout_reports_requested_layout_with_degenerate_dims(dims, m2m):
    """A tensor relayouted to ``{m2m}`` carries that layout, also when some dims have size
    0 or 1 (the storage is the same as for any equivalent order, the xla_shape is not)."""
    t = xa.zeros(dims, xa.float32).relayout(m2m)
    assert t.layout == xa.Layout(m2m)
    assert str(t.xla_shape) == str(xa.Shape("f32", dims, xa.Layout(m2m)))


def test_layout_derived_from_numpy_strides():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert xa.asarray(a).layout == xa.Layout((1, 0))
    f = np.asfortranarray(a)
    t = xa.asarray(f)
    assert t.layout == xa.Layout((0, 1))
    assert str(t.xla_shape) == "f32[2,3]{0,1}"
    np.testing.assert_array_equal(np_storage(t), f.ravel(order="K"))
    check_storage(t, a, xa.Layout((0, 1)))
    b = np.arange(24).reshape(2, 3, 4).transpose(1, 2, 0)  # strides (32, 8, 96)
    assert xa.asarray(b).layout.minor_to_major == (1, 0, 2)


def test_views_report_layout_from_strides():
    t = xa.asarray(np.arange(12.0).reshape(3, 4))
    assert t.T.layout == xa.Layout((0, 1))
    assert t[:, ::2].layout == xa.Layout((1, 0))
    assert t.relayout((0, 1)).T.layout == xa.Layout((1, 0))
    assert t.relayout((0, 1)).T.flags["C_CONTIGUOUS"]


# ------------------------------------------------------------------------------ layout inputs
@pytest.mark.parametrize("spec", ["{0,1}", "0,1", (0, 1), [0, 1], xa.Layout((0, 1))])
def test_relayout_accepts_layout_spellings(spec):
    t = xa.asarray(SEED_2x3, dtype=xa.float32)
    for r in (t.relayout(spec), xa.relayout(t, spec)):
        assert r.layout == xa.Layout((0, 1))
        assert np_storage(r).tolist() == [1, 4, 2, 5, 3, 6]


def test_relayout_is_a_copy():
    src = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = xa.asarray(src)
    for lay in ("{1,0}", "{0,1}", "{1,0:PD(2,4)}", "{1,0:T(2,2)}"):
        r = t.relayout(lay)
        r[0, 0] = 100
        assert t[0, 0].item() == 0
        assert src[0, 0] == 0
        assert r[0, 0].item() == 100


def test_relayout_of_non_contiguous_sources():
    base = np.arange(1, 61, dtype=np.int64).reshape(3, 4, 5)
    views = [base[:, ::2, 1:], base[::-1, :, ::-2], base.transpose(2, 0, 1),
             base[1:2, :, :].transpose(1, 0, 2)]
    for v in views:
        t = xa.asarray(v)
        for lay in [tuple(range(3)), (1, 2, 0), "{2,1,0:T(2,2)}", "{0,1,2:T(4)(2)}",
                    xa.Layout((2, 0, 1), padded_dimensions=tuple(d + 1 for d in v.shape))]:
            lay = lay if isinstance(lay, xa.Layout) else \
                (xa.Layout(lay) if isinstance(lay, tuple) else xa.Layout.parse(lay))
            r = t.relayout(lay)
            check_storage(r, v, lay)


def test_relayout_from_tiled_and_padded_sources():
    vals = make_values((5, 7), np.dtype(np.float32), 2)
    layouts = ["{1,0:T(2,2)}", "{0,1:T(4)(2)}", "{1,0:PD(6,9)}", "{0,1:PD(5,8)PV(3)}",
               "{1,0:T(8,128)(2,1)}", "{0,1:T(2,4)L(64)}", "{1,0:L(9)}", "{0,1:S(1)}"]
    for a, b in itertools.product(layouts, repeat=2):
        la, lb = xa.Layout.parse(a), xa.Layout.parse(b)
        t = xa.asarray(vals, layout=la).relayout(lb)
        pad = lb.padding_value if lb.padded_dimensions is not None else 0
        check_storage(t, vals, lb, pad)
        assert t.layout == lb


def test_tail_padding_alignment_storage():
    vals = make_values((3, 5), np.dtype(np.int16), 0)
    t = xa.asarray(vals).relayout("{1,0:T(2,2)L(32)}")
    assert t.xla_shape.storage_elements == 32
    assert t.storage().size == 32
    assert np.all(np_storage(t)[24:] == 0)
    check_storage(t, vals, t.layout)
    t = xa.asarray(vals).relayout("{0,1:L(7)}")
    assert t.storage().size == 21
    check_storage(t, vals, t.layout)


def test_memory_space_is_remembered_and_does_not_change_storage():
    vals = make_values((3, 4), np.dtype(np.float64), 0)
    t = xa.asarray(vals).relayout("{0,1:S(1)}")
    assert t.layout.memory_space == 1
    assert str(t.xla_shape) == "f64[3,4]{0,1:S(1)}"
    np.testing.assert_array_equal(np_storage(t), vals.ravel(order="F"))


def test_storage_of_views_is_the_whole_buffer():
    t = xa.asarray(np.arange(12, dtype=np.int32).reshape(3, 4))
    v = t[1:, ::2]
    assert np_storage(v).tolist() == list(range(12))
    assert np_storage(t.T).tolist() == list(range(12))


def test_storage_is_writable_view_of_buffer():
    t = xa.zeros((2, 3), xa.float32, layout=(0, 1))
    s = t.storage()
    s[1] = 5.0                   # slot 1 of {0,1} is element (1, 0)
    assert t[1, 0].item() == 5.0
    p = xa.zeros((2, 3), xa.float32, layout="{0,1:PD(3,5)}")
    p.storage()[4] = 7.0          # slot 4 is element (1, 1)
    assert p.tolist() == [[0, 0, 0], [0, 7, 0]]


def test_scalar_and_empty_storage():
    s = xa.asarray(np.float32(2.5))
    assert str(s.xla_shape) == "f32[]"
    assert np_storage(s).tolist() == [2.5]
    e = xa.zeros((0, 3), xa.float32)
    assert e.storage().size == 0
    e2 = xa.zeros((0, 3), xa.float32, layout="{1,0:PD(2,3)}")
    assert e2.storage().size == 6
    assert np.all(np_storage(e2) == 0)
    e3 = xa.zeros((0, 3), xa.float32, layout="{1,0:T(2,2)}")
    assert e3.shape == (0, 3)
    assert e3.storage().size == e3.xla_shape.storage_elements
    assert np.asarray(e3).shape == (0, 3)


# ------------------------------------------------------------------------------ ops on layouts
OP_LAYOUTS = ["{1,0}", "{0,1}", "{1,0:T(2,2)}", "{0,1:T(8,128)(2,1)}", "{1,0:T(4)(2)}",
              "{0,1:PD(7,9)}", "{1,0:PD(5,8)PV(-1)}", "{0,1:T(2,2)L(16)}"]


@pytest.mark.parametrize("lay", OP_LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "int32", "complex64", "bfloat16"])
def test_ops_on_layouts_match_plain(lay, dtype):
    dt = xa._dtypes.as_dtype(dtype)
    a = make_values((5, 7), dt, 1)
    b = make_values((5, 7), dt, 2)
    ta = xa.asarray(a, layout=lay)
    tb = xa.asarray(b, layout=lay)
    pa, pb = xa.asarray(a), xa.asarray(b)
    pairs = [(ta + tb, pa + pb), (ta * 2, pa * 2), (ta - pb, pa - pb), (-ta, -pa),
             (ta == tb, pa == pb), (ta.astype(xa.float64), pa.astype(xa.float64)),
             (xa.add(ta, ta), xa.add(pa, pa)), (ta.T, pa.T), (ta.reshape(-1), pa.reshape(-1)),
             (ta[1:, ::-2], pa[1:, ::-2]), (ta[3], pa[3]), (ta.copy(), pa.copy()),
             (ta[None, ..., 1], pa[None, ..., 1])]
    for got, want in pairs:
        assert got.shape == want.shape
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    np.testing.assert_array_equal(np.asarray(ta + tb), a + b)
    # the operands are unchanged, padding included
    pad = ta.layout.padding_value if ta.layout.padded_dimensions is not None else 0
    check_storage(ta, a, xa.Layout.parse(lay), pad)


@pytest.mark.parametrize("lay", OP_LAYOUTS)
def test_setitem_and_inplace_on_layouts(lay):
    a = make_values((5, 7), np.dtype(np.float32), 1)
    t = xa.asarray(a, layout=lay)
    layout = xa.Layout.parse(lay)
    pad = layout.padding_value if layout.padded_dimensions is not None else 0
    t[1, :] = 5
    a[1, :] = 5
    t[2:4, ::3] = xa.asarray(np.float32([[-1], [-2]]))
    a[2:4, ::3] = [[-1], [-2]]
    np.testing.assert_array_equal(np.asarray(t), a)
    t += 1
    a += 1
    t *= xa.asarray(a)
    a *= a
    np.testing.assert_array_equal(np.asarray(t), a)
    assert t.layout == layout
    check_storage(t, a, layout, pad)


def test_like_creators_keep_layout():
    for lay in ["{0,1}", "{1,0:T(2,2)}", "{0,1:PD(4,5)}"]:
        t = xa.asarray(make_values((3, 4), np.dtype(np.float32), 0), layout=lay)
        for like in (xa.zeros_like(t), xa.ones_like(t), xa.empty_like(t),
                     xa.full_like(t, 3)):
            assert like.layout == xa.Layout.parse(lay)
            assert like.shape == (3, 4)
        assert np.all(np.asarray(xa.full_like(t, 3)) == 3)


@pytest.mark.parametrize("lay", ["{1,0:T(2,2)}", "{0,1:PD(4,6)PV(2)}", "{1,0}", "{0,1}"])
def test_pickle_keeps_layout_and_storage(lay):
    vals = make_values((3, 5), np.dtype(np.float32), 0)
    t = xa.asarray(vals, layout=lay)
    r = pickle.loads(pickle.dumps(t))
    assert str(r.xla_shape) == str(t.xla_shape)
    np.testing.assert_array_equal(np_storage(r), np_storage(t))
    np.testing.assert_array_equal(np.asarray(r), vals)


def test_tiled_tensor_has_no_strides():
    t = xa.zeros((3, 5), xa.float32, layout="{1,0:T(2,2)}")
    with pytest.raises(AttributeError, match="tiled"):
        t.strides
    p = xa.zeros((3, 5), xa.float32, layout="{1,0:PD(4,8)}")
    assert p.strides == (32, 4)
    assert not p.flags["C_CONTIGUOUS"]


# ------------------------------------------------------------------------------ bad layouts
BAD_LAYOUTS = [
    ((0, 0), ["(0, 0)", "permutation"]),
    ((0, 2), ["(0, 2)", "permutation"]),
    ((0,), ["(0,)", "rank 2"]),
    ((0, 1, 2), ["(0, 1, 2)", "rank 2"]),
    ("{0,1:PD(1,5)}", ["(1, 5)", "1 < 2"]),
    ("{0,1:PD(2,2)}", ["(2, 2)", "2 < 3"]),
    ("{0,1:PD(3)}", ["(3,)"]),
    ("{1,0:T(0,2)}", ["T(0,2)"]),
    ("{1,0:X(2)}", ["X(2)"]),
    ("{1,0:PD(3,5)T(2,2)}", ["(3, 5)", "(2,2)"]),
    ((-1, 0), ["(-1, 0)"]),
    ("{1,0", ["{1,0"]),
]


@pytest.mark.parametrize("layout, fragments", BAD_LAYOUTS)
def test_bad_layouts_raise_value_error_with_values(layout, fragments):
    t = xa.asarray(SEED_2x3, dtype=xa.float32)
    makers = [lambda: t.relayout(layout), lambda: xa.relayout(t, layout),
              lambda: xa.asarray(SEED_2x3, layout=layout),
              lambda: xa.zeros((2, 3), layout=layout),
              lambda: xa.ones((2, 3), layout=layout),
              lambda: xa.empty((2, 3), layout=layout),
              lambda: xa.full((2, 3), 1.0, layout=layout)]
    for make in makers:
        with pytest.raises(ValueError) as info:
            make()
        for frag in fragments:
            assert frag in str(info.value), (frag, str(info.value))
    assert t.tolist() == SEED_2x3


@pytest.mark.parametrize("layout", [3.5, ("a", "b"), object(), {0: 1}, b"{1,0}"])
def test_bad_layout_types_raise_type_error(layout):
    t = xa.asarray(SEED_2x3, dtype=xa.float32)
    with pytest.raises(TypeError):
        t.relayout(layout)
    with pytest.raises(TypeError):
        xa.zeros((2, 3), layout=layout)


def test_relayout_of_non_tensor_raises_type_error():
    with pytest.raises(TypeError, match="list"):
        layout_ops.relayout([[1, 2]], (0, 1))


def test_layout_errors_name_the_operation():
    with pytest.raises(ValueError, match=re.escape("(0, 0)")):
        xa.arange(6).reshape(2, 3).relayout("{0,0}")
    with pytest.raises(ValueError, match=re.escape("(5,)")):
        xa.arange(6, layout="{0:PD(5)}")


HUGE_LAYOUT = """
import xarr as xa
try:
    t = xa.{maker}
except (ValueError, MemoryError, OverflowError):
    raise SystemExit(0)
raise SystemExit("created %s with a buffer of %d elements" % (t.xla_shape,
                 t.storage().size))
"""


@pytest.mark.parametrize("maker", [
    "ones((2, 3), layout='{1,0:PD(2147483648,2147483648)}')",
    "ones((2, 3), layout='{1,0:PD(4294967296,4294967296)}')",
    "ones((2, 3), layout='{1,0:T(2147483648,2147483648)}')",
    "ones((2, 3), layout='{1,0:L(4611686018427387904)}')",
    "zeros((2, 3), layout='{0,1:T(1073741824,1073741824)(2,1)}')",
    "asarray([[1.0, 2.0]]).relayout('{1,0:PD(2147483648,4294967296)}')",
])
def test_layouts_whose_buffer_overflows_raise(maker, tmp_path):
    """A layout whose buffer size overflows 64 bits must raise (ValueError/MemoryError),
    not crash or create a tensor over a too-small buffer (run in a subprocess)."""
    r = subprocess.run([sys.executable, "-c", HUGE_LAYOUT.format(maker=maker)],
                       capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 0, f"exit code {r.returncode}: {(r.stdout + r.stderr)[-2000:]}"
