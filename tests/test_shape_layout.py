"""Tests for xarr._shape: XLA shapes, layouts (tiling, padding) and IndexUtil."""

import copy
import doctest
import itertools
import math
import pickle
import re

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import xarr._shape as shape_module
from xarr._shape import (
    ELEMENT_TYPES,
    Layout,
    Shape,
    Tile,
    TupleShape,
    is_padding,
    linear_index,
    multi_index,
    padding_constraints,
    physical_dim_map,
    tiled_shape,
)

HYPOTHESIS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def all_indices(shape):
    return itertools.product(*(range(n) for n in shape.dims))


def unravel(position, sizes):
    coords = []
    for size in reversed(sizes):
        position, c = divmod(position, size)
        coords.append(c)
    return tuple(reversed(coords))


def buffer_of(shape, values, pad="0"):
    """The physical buffer of ``shape`` holding ``values[multi_index]``."""
    out = []
    for p in range(shape.storage_elements):
        out.append(pad if is_padding(shape, p) else values[multi_index(shape, p)])
    return out


# ------------------------------------------------------------------------------------
# Element types, tiles, layouts
# ------------------------------------------------------------------------------------


def test_element_types():
    assert ELEMENT_TYPES == {
        "pred": 1, "s8": 1, "s16": 2, "s32": 4, "s64": 8, "u8": 1, "u16": 2, "u32": 4,
        "u64": 8, "f16": 2, "bf16": 2, "f32": 4, "f64": 8, "c64": 8, "c128": 16,
    }


def test_tile_basics():
    t = Tile((8, 128))
    assert t.dims == (8, 128)
    assert str(t) == "(8,128)"
    assert repr(t) == "Tile((8, 128))"
    assert t == Tile([8, 128]) == Tile(t)
    assert hash(t) == hash(Tile([8, 128]))
    assert t != Tile((128, 8))
    assert len(t) == 2


@pytest.mark.parametrize(
    "dims, exc, fragment",
    [
        ((), ValueError, "()"),
        ((8, 0), ValueError, "(8, 0)"),
        ((2, -1), ValueError, "(2, -1)"),
        ((2.0,), TypeError, "2.0"),
        ((True,), TypeError, "True"),
        ("8", TypeError, "'8'"),
        (8, TypeError, "8"),
    ],
)
def test_tile_errors(dims, exc, fragment):
    with pytest.raises(exc, match=re.escape(fragment)):
        Tile(dims)


def test_layout_fields_and_defaults():
    lay = Layout((1, 0))
    assert lay.minor_to_major == (1, 0)
    assert lay.major_to_minor == (0, 1)
    assert lay.tiles == ()
    assert lay.tail_padding_alignment_in_elements == 1
    assert lay.memory_space == 0
    assert lay.padded_dimensions is None
    assert lay.padding_value == 0
    assert Layout.default(0) == Layout(())
    assert Layout.default(4).minor_to_major == (3, 2, 1, 0)
    lay = Layout([2, 1, 0], tiles=[(8, 128), Tile((2, 1))], memory_space=1)
    assert lay.tiles == (Tile((8, 128)), Tile((2, 1)))
    assert repr(lay) == "Layout('{2,1,0:T(8,128)(2,1)S(1)}')"
    assert lay.replace(memory_space=0) == Layout((2, 1, 0), tiles=((8, 128), (2, 1)))


@pytest.mark.parametrize(
    "layout, text",
    [
        (Layout((1, 0)), "{1,0}"),
        (Layout(()), "{}"),
        (Layout((3, 2, 0, 1), tiles=((8, 128), (2, 1))), "{3,2,0,1:T(8,128)(2,1)}"),
        (Layout((0,), memory_space=1), "{0:S(1)}"),
        (Layout((2, 1, 0), tiles=((8, 128), (2, 1)), memory_space=1),
         "{2,1,0:T(8,128)(2,1)S(1)}"),
        (Layout((0,), tiles=((4,),), tail_padding_alignment_in_elements=16, memory_space=2),
         "{0:T(4)L(16)S(2)}"),
        (Layout((0, 1), padded_dimensions=(3, 5)), "{0,1:PD(3,5)}"),
        (Layout((1, 0), padded_dimensions=(3, 5), padding_value=-1), "{1,0:PD(3,5)PV(-1)}"),
        (Layout((0,), tail_padding_alignment_in_elements=8, padded_dimensions=(4,),
                padding_value=0.5, memory_space=3), "{0:L(8)PD(4)PV(0.5)S(3)}"),
        (Layout((0,), padded_dimensions=(4,), padding_value=float("-inf")),
         "{0:PD(4)PV(-inf)}"),
        (Layout((), memory_space=1), "{:S(1)}"),
    ],
)
def test_layout_text(layout, text):
    assert str(layout) == text
    assert Layout.parse(text) == layout
    assert str(Layout.parse(text)) == text


def test_layout_parse_is_lenient_but_prints_canonically():
    assert str(Layout.parse(" { 1 , 0 : S(1) T(2,2) } ")) == "{1,0:T(2,2)S(1)}"
    assert str(Layout.parse("{1,0:L(1)S(0)PV(0)}")) == "{1,0}"


def test_layout_equality_and_hash():
    a = Layout((1, 0), tiles=((2, 2),))
    b = Layout([1, 0], tiles=[Tile([2, 2])])
    assert a == b and hash(a) == hash(b)
    assert a != Layout((1, 0))
    assert a != Layout((1, 0), tiles=((2, 2),), memory_space=1)
    assert a != Layout((1, 0), tiles=((2, 2),), tail_padding_alignment_in_elements=2)
    assert Layout((0,), padded_dimensions=(3,)) != Layout((0,), padded_dimensions=(4,))
    assert Layout((0,), padded_dimensions=(3,), padding_value=1) != Layout(
        (0,), padded_dimensions=(3,)
    )
    assert a != "{1,0:T(2,2)}"


@pytest.mark.parametrize(
    "kwargs, exc, fragments",
    [
        (dict(minor_to_major=(1, -1)), ValueError, ["(1, -1)"]),
        (dict(minor_to_major=(1.0, 0)), TypeError, ["1.0"]),
        (dict(minor_to_major="10"), TypeError, ["'10'"]),
        (dict(minor_to_major=(0,), tiles=(8, 128)), TypeError, ["(8, 128)"]),
        (dict(minor_to_major=(0,), tiles=((0,),)), ValueError, ["(0,)"]),
        (dict(minor_to_major=(0,), tail_padding_alignment_in_elements=0), ValueError, ["0"]),
        (dict(minor_to_major=(0,), tail_padding_alignment_in_elements=2.0), TypeError,
         ["2.0"]),
        (dict(minor_to_major=(0,), memory_space=-1), ValueError, ["-1"]),
        (dict(minor_to_major=(0,), padded_dimensions=(-3,)), ValueError, ["(-3,)"]),
        (dict(minor_to_major=(0,), padded_dimensions=(4,), tiles=((2,),)), ValueError,
         ["(4,)", "(2)"]),
        (dict(minor_to_major=(0,), padding_value="x"), TypeError, ["'x'"]),
        (dict(minor_to_major=(0,), padding_value=True), TypeError, ["True"]),
        (dict(minor_to_major=(0,), padding_value=float("nan")), ValueError, ["nan"]),
    ],
)
def test_layout_errors(kwargs, exc, fragments):
    with pytest.raises(exc) as info:
        Layout(**kwargs)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_layout_default_errors():
    with pytest.raises(ValueError, match="-1"):
        Layout.default(-1)
    with pytest.raises(TypeError):
        Layout.default(2.0)


# ------------------------------------------------------------------------------------
# Shapes: text, properties
# ------------------------------------------------------------------------------------

GOLDEN = [
    "f32[2,3]{1,0}",
    "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}",
    "f32[4]{0:S(1)}",
    "bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)}",
    "bf16[32,32,8192]{2,1,0:T(8,128)(2,1)S(1)}",
    "f32[]",
    "f64[]{:S(1)}",
    "pred[0,3]{1,0}",
    "f32[<=10,3]{1,0}",
    "s32[<=4,<=5]{0,1}",
    "f32[3,5]{1,0:T(2,2)}",
    "f32[2,3]{0,1:PD(3,5)}",
    "f32[2,3]{1,0:PD(3,5)PV(-1)}",
    "c128[2]{0:PD(4)PV(0.5)}",
    "u8[7,7]{0,1:L(3)}",
    "bf16[32,256]{1,0:T(8,128)(2,1,1,1)}",
    "(f32[2]{0}, s32[])",
    "()",
    "(f32[2]{0}, (s32[], (pred[1]{0})), ())",
]


@pytest.mark.parametrize("text", GOLDEN)
def test_golden_round_trip(text):
    parsed = Shape.parse(text)
    assert str(parsed) == text
    assert Shape.parse(str(parsed)) == parsed
    assert hash(Shape.parse(text)) == hash(parsed)


def test_golden_construction():
    cases = [
        (Shape("f32", (2, 3)), "f32[2,3]{1,0}"),
        (Shape("bf16", (8, 1, 1280, 16384), Layout((3, 2, 0, 1), tiles=((8, 128), (2, 1)))),
         "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}"),
        (Shape("f32", [4], Layout((0,), memory_space=1)), "f32[4]{0:S(1)}"),
        (Shape("bf16", (32, 32, 4096), "{2,1,0:T(8,128)(2,1)S(1)}"),
         "bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)}"),
        (Shape("f32", ()), "f32[]"),
        (Shape("pred", (0, 3)), "pred[0,3]{1,0}"),
        (Shape("f32", (10, 3), dynamic_dims=(True, False)), "f32[<=10,3]{1,0}"),
        (TupleShape([Shape("f32", (2,)), Shape("s32", ())]), "(f32[2]{0}, s32[])"),
        (TupleShape([]), "()"),
    ]
    for shape, text in cases:
        assert str(shape) == text
        assert Shape.parse(text) == shape


def test_parse_without_layout_uses_default():
    assert str(Shape.parse("f32[2,3]")) == "f32[2,3]{1,0}"
    assert Shape.parse("f32[2,3]") == Shape("f32", (2, 3))
    assert str(Shape.parse("(f32[2], s32[4,5,6])")) == "(f32[2]{0}, s32[4,5,6]{2,1,0})"
    assert str(Shape.parse("f32[<=3]")) == "f32[<=3]{0}"


def test_parse_accepts_whitespace_and_comments():
    assert str(Shape.parse(" ( f32[2] {0} ,s32[ 1, 2 ]{ 0 , 1 } ) ")) == (
        "(f32[2]{0}, s32[1,2]{0,1})"
    )
    xla_text = "(f32[], f32[], f32[], f32[], f32[], /*index=5*/s32[2]{0})"
    assert str(Shape.parse(xla_text)) == xla_text.replace("/*index=5*/", "")
    with pytest.raises(ValueError, match="unterminated comment"):
        Shape.parse("(f32[], /*index=5 s32[])")


def test_repr():
    assert repr(Shape("f32", (2, 3))) == "Shape('f32[2,3]{1,0}')"
    assert repr(TupleShape([Shape("f32", ())])) == "TupleShape('(f32[])')"


def test_shape_properties():
    s = Shape("f32", (2, 1, 3), dynamic_dims=(False, False, True))
    assert s.element_type == "f32"
    assert s.dims == (2, 1, 3)
    assert s.rank == 3
    assert s.true_rank == 2
    assert s.size == 6
    assert s.itemsize == 4
    assert s.layout == Layout((2, 1, 0))
    assert s.dynamic_dims == (False, False, True)
    assert [s.dimension(d) for d in (0, 1, 2, -1, -2, -3)] == [2, 1, 3, 3, 1, 2]
    assert [s.resolve_dim(d) for d in (0, 2, -1, -3)] == [0, 2, 2, 0]
    assert s.is_dynamic_dimension(-1) and not s.is_dynamic_dimension(0)
    assert s.storage_elements == 6 and s.storage_nbytes == 24
    assert not s.is_tuple and TupleShape([]).is_tuple
    scalar = Shape("c128", ())
    assert (scalar.rank, scalar.true_rank, scalar.size, scalar.storage_nbytes) == (0, 0, 1, 16)
    empty = Shape.parse("pred[0,3]{1,0}")
    assert (empty.size, empty.storage_elements, empty.true_rank) == (0, 0, 1)


def test_with_layout():
    s = Shape("f32", (2, 3), dynamic_dims=(True, False))
    t = s.with_layout(Layout((0, 1)))
    assert str(t) == "f32[<=2,3]{0,1}"
    assert t.with_layout(None) == s
    assert str(s.with_layout("{1,0:T(2,2)}")) == "f32[<=2,3]{1,0:T(2,2)}"
    with pytest.raises(ValueError, match=re.escape("(0, 1, 2)")):
        s.with_layout(Layout((0, 1, 2)))


def test_storage_of_golden_tpu_shapes():
    s = Shape.parse("bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}")
    assert tiled_shape(s) == (1, 8, 160, 128, 4, 128, 2, 1)
    assert s.storage_elements == 8 * 1280 * 16384
    assert s.storage_nbytes == 2 * 8 * 1280 * 16384
    s = Shape.parse("bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)}")
    assert tiled_shape(s) == (32, 4, 32, 4, 128, 2, 1)
    assert s.storage_elements == s.size
    s = Shape.parse("bf16[1,3,200]{2,1,0:T(8,128)(2,1)}")  # padded to 8 rows x 256
    assert s.storage_elements == 8 * 256


def test_equality_and_hash():
    a = Shape("f32", (2, 3))
    assert a == Shape.parse("f32[2,3]{1,0}") and hash(a) == hash(Shape.parse("f32[2,3]"))
    assert a != Shape("f32", (3, 2))
    assert a != Shape("s32", (2, 3))
    assert a != Shape("f32", (2, 3), "{0,1}")
    assert a != Shape("f32", (2, 3), "{1,0:S(1)}")
    assert a != Shape("f32", (2, 3), dynamic_dims=(True, False))
    assert a != TupleShape([a]) and TupleShape([a]) == TupleShape((a,))
    assert len({a, Shape.parse("f32[2,3]"), Shape("f32", [2, 3], Layout((1, 0)))}) == 1


def test_immutability_pickle_copy():
    s = Shape.parse("bf16[32,256]{1,0:T(8,128)(2,1)S(1)}")
    t = Shape.parse("(f32[2]{0}, s32[])")
    objects = [s, s.layout, s.layout.tiles[0], t, Layout((0,), padded_dimensions=(3,),
                                                         padding_value=0.5)]
    for obj in objects:
        assert pickle.loads(pickle.dumps(obj)) == obj
        assert copy.deepcopy(obj) == obj and copy.copy(obj) == obj
    for obj, name in [(s, "dims"), (s, "_dims"), (s.layout, "_tiles"),
                      (s.layout.tiles[0], "_dims"), (t, "_shapes"), (s, "foo")]:
        with pytest.raises(AttributeError):
            setattr(obj, name, ())
        with pytest.raises(AttributeError):
            delattr(obj, name)


# ------------------------------------------------------------------------------------
# Shape validation errors
# ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, exc, fragments",
    [
        (("f32", (2, 3), Layout((0, 0))), ValueError,
         ["Layout minor_to_major (0, 0) is not a permutation of 0..1 for f32[2,3]"]),
        (("f32", (2, 3), Layout((1, 2))), ValueError, ["(1, 2)", "0..1"]),
        (("f32", (2, 3), Layout((0,))), ValueError, ["(0,)", "rank 2", "f32[2,3]"]),
        (("f32", (), Layout((0,))), ValueError, ["(0,)", "rank 0"]),
        (("f32", (2, 3), Layout((0, 1, 2))), ValueError, ["(0, 1, 2)", "rank 2"]),
        (("f32", (2, 3), Layout((1, 0), padded_dimensions=(1, 5))), ValueError,
         ["(1, 5)", "(2, 3)", "1 < 2"]),
        (("f32", (2, 3), Layout((1, 0), padded_dimensions=(3, 2))), ValueError,
         ["(3, 2)", "2 < 3"]),
        (("f32", (2, 3), Layout((1, 0), padded_dimensions=(3,))), ValueError,
         ["(3,)", "rank 2"]),
        (("f33", (2, 3)), ValueError, ["'f33'"]),
        (("F32", (2, 3)), ValueError, ["'F32'"]),
        ((32, (2, 3)), TypeError, ["32"]),
        (("f32", (2, -1)), ValueError, ["(2, -1)"]),
        (("f32", (2, 1.5)), TypeError, ["1.5"]),
        (("f32", (True,)), TypeError, ["True"]),
        (("f32", 3), TypeError, ["3"]),
        (("f32", "23"), TypeError, ["'23'"]),
        (("f32", (2,), 5), TypeError, ["5"]),
        (("f32", (2, 3), None, (True,)), ValueError, ["(True,)", "rank 2"]),
        (("f32", (2, 3), None, (1, 0)), TypeError, ["(1, 0)"]),
    ],
)
def test_shape_errors(args, exc, fragments):
    with pytest.raises(exc) as info:
        Shape(*args)
    for fragment in fragments:
        assert fragment in str(info.value)


@pytest.mark.parametrize(
    "dims, bad", [((2, 3), 2), ((2, 3), -3), ((2, 3), 100), ((4,), -2), ((), 0), ((), -1)]
)
def test_dimension_out_of_range(dims, bad):
    s = Shape("f32", dims)
    for method in (s.dimension, s.resolve_dim, s.is_dynamic_dimension):
        with pytest.raises(IndexError) as info:
            method(bad)
        message = str(info.value)
        assert str(bad) in message and f"rank-{len(dims)}" in message


def test_dimension_number_type():
    with pytest.raises(TypeError):
        Shape("f32", (2,)).dimension(0.0)
    with pytest.raises(TypeError):
        Shape("f32", (2,)).resolve_dim("0")


def test_tuple_shape_errors():
    with pytest.raises(TypeError, match="1"):
        TupleShape([1])
    with pytest.raises(TypeError):
        TupleShape(Shape("f32", ()))
    with pytest.raises(ValueError, match=re.escape("'f32[2]'")):
        TupleShape.parse("f32[2]")
    assert TupleShape.parse("(f32[])") == TupleShape([Shape("f32", ())])


BAD_TEXT = [
    ("", 0),
    ("f32", 3),
    ("f32[2,3", 7),
    ("f32[2,,3]", 6),
    ("f32[2,3]{1,0", 12),
    ("f32[2,3]{1;0}", 10),
    ("f33[2]", 0),
    ("F32[2]", 0),
    ("f32[-1]", 4),
    ("f32[2]{0:X(1)}", 9),
    ("f32[2]{0:T}", 10),
    ("f32[2]{0:T()}", 10),
    ("f32[2]{0:T(0)}", 10),
    ("f32[2]{0:T(*,2)}", 11),
    ("f32[2]{0:E(4)}", 9),
    ("f32[2]{0:S(1)S(1)}", 13),
    ("f32[2]{0:L(1}", 12),
    ("f32[2]{0:PV(abc)}", 12),
    ("f32[2]{0:PV(nan)}", 12),
    ("f32[?]", 4),
    ("f32[2]{0} %fusion.32", 10),
    ("%fusion.3 = f32[2]{0}", 0),
    ("(f32[2]{0} s32[])", 11),
    ("(f32[2]{0},", 11),
    ("f32[2,3]{0,0}", 8),
    ("f32[2,3]{0}", 8),
    ("f32[2]{0:PD(1)}", 6),
    ("f32[2]{0:PD(4)T(2)}", 6),
]


@pytest.mark.parametrize("text, position", BAD_TEXT)
def test_parse_errors(text, position):
    with pytest.raises(ValueError) as info:
        Shape.parse(text)
    message = str(info.value)
    assert repr(text) in message
    assert f"position {position}" in message


def test_parse_error_messages_are_specific():
    with pytest.raises(ValueError, match="unknown element type 'f33'"):
        Shape.parse("f33[2]")
    with pytest.raises(ValueError, match="unknown element type 'F32'"):
        Shape.parse("F32[2]")
    with pytest.raises(ValueError, match="expected '\\(' after 'T'"):
        Shape.parse("f32[2]{0:T}")
    with pytest.raises(ValueError, match="not supported"):
        Shape.parse("f32[2]{0:T(*,2)}")
    with pytest.raises(ValueError, match="not a permutation"):
        Shape.parse("f32[2,3]{0,0}")
    with pytest.raises(ValueError, match="duplicate layout attribute"):
        Shape.parse("f32[2]{0:S(1)S(2)}")
    with pytest.raises(ValueError, match="trailing"):
        Shape.parse("f32[2]{0} %fusion.32")
    with pytest.raises(TypeError):
        Shape.parse(b"f32[2]")
    with pytest.raises(ValueError, match=re.escape("'{1,0'")):
        Layout.parse("{1,0")


# ------------------------------------------------------------------------------------
# Indexing: seed examples and XLA documentation examples
# ------------------------------------------------------------------------------------

LETTERS = {(0, 0): "a", (0, 1): "b", (0, 2): "c", (1, 0): "d", (1, 1): "e", (1, 2): "f"}


def test_seed_row_major():
    s = Shape.parse("f32[2,3]{1,0}")
    assert {LETTERS[i]: linear_index(s, i) for i in LETTERS} == dict(
        a=0, b=1, c=2, d=3, e=4, f=5
    )
    assert "".join(buffer_of(s, LETTERS)) == "abcdef"


def test_seed_column_major():
    s = Shape.parse("f32[2,3]{0,1}")
    assert {LETTERS[i]: linear_index(s, i) for i in LETTERS} == dict(
        a=0, d=1, b=2, e=3, c=4, f=5
    )
    assert " ".join(buffer_of(s, LETTERS)) == "a d b e c f"


def test_seed_padded_dimensions():
    s = Shape.parse("f32[2,3]{0,1:PD(3,5)}")
    assert s.storage_elements == 15
    assert tiled_shape(s) == (5, 3)
    assert {LETTERS[i]: linear_index(s, i) for i in LETTERS} == dict(
        a=0, d=1, b=3, e=4, c=6, f=7
    )
    assert " ".join(buffer_of(s, LETTERS)) == "a d 0 b e 0 c f 0 0 0 0 0 0 0"
    # "equivalent to the layout of the padded 3x5 array a b c 0 0 / d e f 0 0 / 0 0 0 0 0"
    s = Shape.parse("f32[2,3]{1,0:PD(3,5)}")
    assert " ".join(buffer_of(s, LETTERS)) == "a b c 0 0 d e f 0 0 0 0 0 0 0"
    with pytest.raises(ValueError, match="padding"):
        multi_index(s, 3)


def test_xla_tiled_example_f32_3x5_tile_2x2():
    s = Shape.parse("f32[3,5]{1,0:T(2,2)}")
    assert tiled_shape(s) == (2, 3, 2, 2)
    assert s.storage_elements == 24
    for i, j in all_indices(s):
        assert linear_index(s, (i, j)) == ((i // 2) * 3 + j // 2) * 4 + (i % 2) * 2 + j % 2
    assert linear_index(s, (2, 3)) == 17  # the worked example of the XLA docs
    assert multi_index(s, 17) == (2, 3)
    padding = [p for p in range(24) if is_padding(s, p)]
    assert padding == [9, 11, 14, 15, 18, 19, 21, 22, 23]
    assert len(padding) == 24 - s.size
    with pytest.raises(ValueError, match="padding"):
        multi_index(s, 9)


def test_xla_repeated_tiling_figure2():
    # 4x8 array tiled by (2,4)(2,1): values of an even and an odd row become neighbours.
    s = Shape.parse("f32[4,8]{1,0:T(2,4)(2,1)}")
    assert tiled_shape(s) == (2, 2, 1, 4, 2, 1)
    for i, j in all_indices(s):
        expected = ((i // 2) * 2 + j // 4) * 8 + (j % 4) * 2 + i % 2
        assert linear_index(s, (i, j)) == expected


def test_xla_bf16_packing_formula():
    s = Shape.parse("bf16[10,130]{1,0:T(8,128)(2,1)}")
    assert tiled_shape(s) == (2, 2, 4, 128, 2, 1)
    assert physical_dim_map(s) == ((0, 8), (1, 128), (0, 2), (1, 1), (0, 1), (1, 1))
    for i, j in all_indices(s):
        expected = ((i // 8) * 2 + j // 128) * 1024 + ((i % 8) // 2) * 256 + (j % 128) * 2
        assert linear_index(s, (i, j)) == expected + i % 2


def test_xla_alternative_bf16_packing_example():
    # Tiles may also reach the cross-tile dims: 8x8 by (2,4)(2,1,1,1), element (6,5) -> 51.
    s = Shape.parse("f32[8,8]{1,0:T(2,4)(2,1,1,1)}")
    assert tiled_shape(s) == (2, 2, 2, 4, 2, 1, 1, 1)
    assert linear_index(s, (6, 5)) == 51
    assert multi_index(s, 51) == (6, 5)
    s = Shape.parse("bf16[32,256]{1,0:T(8,128)(2,1,1,1)}")
    assert tiled_shape(s) == (2, 2, 8, 128, 2, 1, 1, 1)
    assert s.storage_elements == s.size


def test_tile_longer_than_rank_prepends_unit_dims():
    s = Shape.parse("f32[5]{0:T(2,4)}")
    assert tiled_shape(s) == (1, 2, 2, 4)
    assert physical_dim_map(s) == ((-1, 2), (0, 4), (-1, 1), (0, 1))
    assert [linear_index(s, (j,)) for j in range(5)] == [0, 1, 2, 3, 8]
    assert s.storage_elements == 16
    scalar = Shape.parse("f32[]{:T(4)}")
    assert tiled_shape(scalar) == (1, 4)
    assert scalar.storage_elements == 4
    assert linear_index(scalar, ()) == 0 and multi_index(scalar, 0) == ()
    assert [is_padding(scalar, p) for p in range(4)] == [False, True, True, True]


def test_tail_padding_alignment():
    s = Shape.parse("f32[3]{0:L(4)}")
    assert (s.storage_elements, s.storage_nbytes, tiled_shape(s)) == (4, 16, (3,))
    assert [linear_index(s, (i,)) for i in range(3)] == [0, 1, 2]
    with pytest.raises(ValueError, match="tail padding"):
        multi_index(s, 3)
    with pytest.raises(IndexError, match=r"\b4\b"):
        multi_index(s, 4)
    assert Shape.parse("f32[3,5]{1,0:T(2,2)L(16)}").storage_elements == 32
    assert Shape.parse("f32[4]{0:L(4)}").storage_elements == 4
    assert Shape.parse("f32[]{:L(3)}").storage_elements == 3
    assert Shape.parse("f32[0]{0:L(8)}").storage_elements == 0


def test_memory_space_does_not_change_indexing():
    a = Shape.parse("bf16[5,7]{0,1:T(2,4)(2,1)}")
    b = Shape.parse("bf16[5,7]{0,1:T(2,4)(2,1)S(5)}")
    assert a != b
    assert a.storage_elements == b.storage_elements
    assert all(linear_index(a, i) == linear_index(b, i) for i in all_indices(a))


def test_scalar_and_empty_indexing():
    s = Shape("f32", ())
    assert (linear_index(s, ()), multi_index(s, 0), s.storage_elements) == (0, (), 1)
    assert tiled_shape(s) == () and physical_dim_map(s) == () and padding_constraints(s) == ()
    e = Shape.parse("pred[0,3]{1,0}")
    with pytest.raises(IndexError):
        linear_index(e, (0, 0))
    with pytest.raises(IndexError):
        multi_index(e, 0)


def test_index_errors():
    s = Shape.parse("f32[2,3]{1,0}")
    with pytest.raises(IndexError) as info:
        linear_index(s, (2, 0))
    assert "(2, 0)" in str(info.value) and "size 2" in str(info.value)
    with pytest.raises(IndexError, match=re.escape("(0, -1)")):
        linear_index(s, (0, -1))
    with pytest.raises(ValueError, match=re.escape("(0,)")):
        linear_index(s, (0,))
    with pytest.raises(TypeError):
        linear_index(s, (0, 1.0))
    with pytest.raises(IndexError, match=r"\b6\b"):
        multi_index(s, 6)
    with pytest.raises(IndexError, match="-1"):
        multi_index(s, -1)
    with pytest.raises(TypeError):
        multi_index(s, 1.0)
    with pytest.raises(IndexError):
        is_padding(s, 6)
    t = Shape.parse("(f32[2]{0})")
    for func, arg in [(linear_index, (0,)), (multi_index, 0), (is_padding, 0)]:
        with pytest.raises(TypeError):
            func(t, arg)
    for func in (tiled_shape, physical_dim_map, padding_constraints):
        with pytest.raises(TypeError):
            func(t)


def test_padding_constraints_examples():
    assert padding_constraints(Shape.parse("f32[4,8]{1,0:T(2,4)}")) == ()
    assert padding_constraints(Shape.parse("f32[3,5]{1,0:T(2,2)}")) == (
        (((0, 2), (2, 1)), 3),
        (((1, 2), (3, 1)), 5),
    )
    s = Shape.parse("f32[16]{0:T(8)(3)}")
    assert tiled_shape(s) == (2, 3, 3)
    assert padding_constraints(s) == ((((1, 3), (2, 1)), 8),)
    # The map alone would alias slot (0, 2, 2) (value 8 in the 8-tile) with element 8.
    assert is_padding(s, 8) and linear_index(s, (8,)) == 9


def test_docstring_examples():
    result = doctest.testmod(shape_module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 30
    assert result.failed == 0


def test_module_is_stdlib_only():
    with open(shape_module.__file__, encoding="utf-8") as f:
        source = f.read()
    imports = set(re.findall(r"^\s*(?:from|import)\s+([\w.]+)", source, re.M))
    assert imports <= {"__future__", "math", "numbers", "operator", "re"}
    assert max(len(line) for line in source.splitlines()) <= 100


# ------------------------------------------------------------------------------------
# Property-based tests
# ------------------------------------------------------------------------------------

MAX_STORAGE = 1500


@st.composite
def layouts_for(draw, dims):
    rank = len(dims)
    m2m = tuple(draw(st.permutations(range(rank))))
    kind = draw(st.sampled_from(["plain", "padded", "tiled", "tiled"]))
    tiles, padded, value = (), None, 0
    if kind == "padded":
        padded = tuple(d + draw(st.integers(0, 3)) for d in dims)
        value = draw(st.sampled_from([0, -1, 7, 0.5, float("-inf")]))
    elif kind == "tiled":
        levels = draw(st.integers(1, 3))
        tiles = tuple(
            tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=rank + 1)))
            for _ in range(levels)
        )
    return Layout(
        m2m,
        tiles=tiles,
        tail_padding_alignment_in_elements=draw(st.sampled_from([1, 1, 1, 2, 3, 4, 8])),
        memory_space=draw(st.sampled_from([0, 0, 1, 5])),
        padded_dimensions=padded,
        padding_value=value,
    )


@st.composite
def shapes(draw, max_rank=4, max_dim=7):
    rank = draw(st.integers(0, max_rank))
    dims = tuple(draw(st.lists(st.integers(0, max_dim), min_size=rank, max_size=rank)))
    element_type = draw(st.sampled_from(sorted(ELEMENT_TYPES)))
    layout = draw(layouts_for(dims))
    dynamic = tuple(draw(st.lists(st.booleans(), min_size=rank, max_size=rank)))
    return Shape(element_type, dims, layout, dynamic)


def small(shape):
    assume(shape.storage_elements <= MAX_STORAGE)
    return shape


tuple_shapes = st.recursive(
    shapes(max_rank=2),
    lambda children: st.lists(children, max_size=3).map(TupleShape),
    max_leaves=6,
)


@HYPOTHESIS
@given(shapes())
def test_prop_text_round_trip(shape):
    text = str(shape)
    parsed = Shape.parse(text)
    assert parsed == shape and hash(parsed) == hash(shape)
    assert str(parsed) == text
    assert Layout.parse(str(shape.layout)) == shape.layout
    rebuilt = Shape(shape.element_type, list(shape.dims), Layout(
        shape.layout.minor_to_major,
        [t.dims for t in shape.layout.tiles],
        shape.layout.tail_padding_alignment_in_elements,
        shape.layout.memory_space,
        shape.layout.padded_dimensions,
        shape.layout.padding_value,
    ), list(shape.dynamic_dims))
    assert rebuilt == shape and hash(rebuilt) == hash(shape)
    assert pickle.loads(pickle.dumps(shape)) == shape


@HYPOTHESIS
@given(tuple_shapes)
def test_prop_tuple_round_trip(shape):
    text = str(shape)
    parsed = Shape.parse(text)
    assert parsed == shape and hash(parsed) == hash(shape) and str(parsed) == text


@HYPOTHESIS
@given(shapes(), shapes())
def test_prop_equality_consistent_with_hash_and_text(a, b):
    if a == b:
        assert hash(a) == hash(b) and str(a) == str(b)
    if str(a) == str(b):
        assert a == b  # the text is a complete description


@HYPOTHESIS
@given(shapes())
def test_prop_indexing_is_a_bijection_onto_data_slots(shape):
    shape = small(shape)
    storage = shape.storage_elements
    positions = {}
    for idx in all_indices(shape):
        p = linear_index(shape, idx)
        assert 0 <= p < storage
        assert p not in positions
        positions[p] = idx
        assert multi_index(shape, p) == idx
    assert len(positions) == shape.size
    data_slots = [p for p in range(storage) if not is_padding(shape, p)]
    assert sorted(positions) == data_slots
    for p in range(storage):
        if p not in positions:
            with pytest.raises(ValueError, match="padding"):
                multi_index(shape, p)
    with pytest.raises(IndexError):
        multi_index(shape, storage)
    with pytest.raises(IndexError):
        multi_index(shape, -1)
    align = shape.layout.tail_padding_alignment_in_elements
    assert storage % align == 0
    assert storage == -(-math.prod(tiled_shape(shape)) // align) * align
    assert shape.storage_nbytes == storage * shape.itemsize


@HYPOTHESIS
@given(shapes())
def test_prop_plain_layout_is_row_major_in_physical_order(shape):
    shape = small(shape)
    layout = shape.layout
    assume(not layout.tiles)
    sizes = layout.padded_dimensions or shape.dims
    order = layout.minor_to_major[::-1]
    assert tiled_shape(shape) == tuple(sizes[d] for d in order)
    for idx in all_indices(shape):
        expected = 0
        for d in order:
            expected = expected * sizes[d] + idx[d]
        assert linear_index(shape, idx) == expected


@HYPOTHESIS
@given(shapes())
def test_prop_physical_dim_map_and_padding_constraints(shape):
    shape = small(shape)
    sizes = tiled_shape(shape)
    dim_map = physical_dim_map(shape)
    constraints = padding_constraints(shape)
    assert len(dim_map) == len(sizes)
    assert all(-1 <= d < shape.rank and m >= 1 for d, m in dim_map)
    for p in range(math.prod(sizes)):
        c = unravel(p, sizes)
        is_data = all(sum(c[j] * w for j, w in terms) < bound for terms, bound in constraints)
        assert is_data == (not is_padding(shape, p))
        if is_data:
            logical = [0] * shape.rank
            for cj, (d, m) in zip(c, dim_map):
                if d < 0:
                    assert cj == 0
                else:
                    logical[d] += cj * m
            assert tuple(logical) == multi_index(shape, p)
    for p in range(math.prod(sizes), shape.storage_elements):
        assert is_padding(shape, p)


@HYPOTHESIS
@given(shapes(max_rank=4), st.data())
def test_prop_out_of_range_indices_and_dims(shape, data):
    rank = shape.rank
    bad_dim = data.draw(
        st.one_of(st.integers(rank, rank + 10), st.integers(-rank - 10, -rank - 1))
    )
    with pytest.raises(IndexError) as info:
        shape.dimension(bad_dim)
    assert str(bad_dim) in str(info.value) and f"rank-{rank}" in str(info.value)
    good_dim = data.draw(st.integers(-rank, rank - 1)) if rank else None
    if rank:
        assert shape.dimension(good_dim) == shape.dims[good_dim]
        assert shape.resolve_dim(good_dim) == good_dim % rank
        # An index with one component out of range (too large or negative).
        d = shape.resolve_dim(good_dim)
        idx = [0] * rank
        idx[d] = data.draw(st.sampled_from([shape.dims[d], shape.dims[d] + 3, -1]))
        with pytest.raises(IndexError) as info:
            linear_index(shape, idx)
        assert repr(tuple(idx)) in str(info.value)


@HYPOTHESIS
@given(st.integers(1, 4), st.data())
def test_prop_non_permutation_minor_to_major_rejected(rank, data):
    dims = tuple(data.draw(st.lists(st.integers(0, 5), min_size=rank, max_size=rank)))
    m2m = tuple(data.draw(st.lists(st.integers(0, rank + 1), min_size=rank, max_size=rank)))
    assume(sorted(m2m) != list(range(rank)))
    with pytest.raises(ValueError) as info:
        Shape("f32", dims, Layout(m2m))
    assert repr(m2m) in str(info.value) and f"0..{rank - 1}" in str(info.value)
    with pytest.raises(ValueError):
        Shape.parse("f32[%s]{%s}" % (",".join(map(str, dims)), ",".join(map(str, m2m))))


@HYPOTHESIS
@given(shapes(max_rank=3), st.data())
def test_prop_padded_dimension_smaller_than_dim_rejected(shape, data):
    rank = shape.rank
    assume(any(shape.dims))
    d = data.draw(st.sampled_from([i for i in range(rank) if shape.dims[i] > 0]))
    padded = list(shape.dims)
    padded[d] = data.draw(st.integers(0, shape.dims[d] - 1))
    with pytest.raises(ValueError) as info:
        Shape(shape.element_type, shape.dims, Layout(Layout.default(rank).minor_to_major,
                                                     padded_dimensions=padded))
    assert repr(tuple(padded)) in str(info.value)
    assert f"{padded[d]} < {shape.dims[d]}" in str(info.value)


@HYPOTHESIS
@given(st.text(alphabet="f32[]{},:T()<=0179SLPDV%- ", max_size=20))
def test_prop_random_text_parses_or_raises_value_error(text):
    try:
        parsed = Shape.parse(text)
    except ValueError as exc:
        assert repr(text) in str(exc)
    else:
        assert Shape.parse(str(parsed)) == parsed
