"""XLA-style shapes and layouts for xarr (pure Python, standard library only).

This module models XLA's ``ShapeProto`` / ``LayoutProto`` and the ``IndexUtil``
helpers that map multi-dimensional indices to positions in a physical buffer.
It has no dependencies besides the Python standard library, so it can be used
before (or without) the compiled parts of xarr.

Terminology (as in XLA)
-----------------------
* The *rank* of an array is its number of dimensions; the *true rank* is the
  number of dimensions whose size is greater than 1.
* Dimensions are numbered ``0 .. rank-1``; the numbering says nothing about the
  order in memory. Some helpers (:meth:`Shape.dimension`,
  :meth:`Shape.resolve_dim`) also accept Python-style negative numbers, ``-1``
  being the last dimension.
* A :class:`Layout` describes how the array is stored. ``minor_to_major`` lists
  the dimension numbers from the fastest varying (most minor) to the slowest
  varying (most major) one. ``{1,0}`` is row-major for rank 2, ``{0,1}`` is
  column-major. The default layout is major-to-minor, ``{rank-1,...,1,0}``.

HLO text
--------
Shapes print (and parse) exactly like XLA's HLO text::

    f32[2,3]{1,0}                               row-major 2x3 array
    bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}  two-level tiling
    f32[4]{0:S(1)}                              memory space 1
    f32[<=10,3]{1,0}                            dimension 0 is dynamic, bound 10
    f32[]                                       scalar (its layout ``{}`` is omitted)
    (f32[2]{0}, s32[])                          tuple

The layout attributes after the colon are, in this order: ``T(..)(..)`` tiles,
``L(n)`` tail padding alignment (omitted when 1), ``PD(..)`` padded dimensions
and ``PV(v)`` padding value (xarr's spelling of the older proto fields; XLA has
no text for them; ``PV`` is omitted when the value is 0), ``S(n)`` memory space
(omitted when 0).

Physical storage model
----------------------
The buffer of an array shape holds :attr:`Shape.storage_elements` elements.
Its contents are defined in four steps:

1. Take the dimensions in physical order, most major first
   (``reversed(minor_to_major)``). If ``padded_dimensions`` is set, use the
   padded sizes instead of the real ones.
2. Apply each tile in turn. A tile ``(t_1, .., t_k)`` applies to the ``k`` most
   minor dimensions of the current physical shape (size-1 dimensions are
   prepended when ``k`` exceeds the current number of dimensions). Each tiled
   dimension ``D`` becomes ``ceil(D/t)`` tiles, kept in place, and the tile
   extent ``t`` is appended at the end::

       (..., D_a, D_b) tiled by (t_a, t_b)
           -> (..., ceil(D_a/t_a), ceil(D_b/t_b), t_a, t_b)

   so a coordinate ``(.., i_a, i_b)`` moves to
   ``(.., i_a//t_a, i_b//t_b, i_a%t_a, i_b%t_b)``.
3. The buffer is row-major over the resulting shape (:func:`tiled_shape`).
   Slots whose coordinate falls outside the real bounds at any step are
   padding (value ``padding_value`` for ``padded_dimensions``; unspecified for
   tiles).
4. The element count is rounded up to a multiple of
   ``tail_padding_alignment_in_elements``.

The memory space has no influence on indexing.

>>> s = Shape.parse("f32[3,5]{1,0:T(2,2)}")
>>> tiled_shape(s), s.storage_elements
((2, 3, 2, 2), 24)
>>> linear_index(s, (2, 3))
17
>>> multi_index(s, 17)
(2, 3)
"""

from __future__ import annotations

import math
import numbers
import operator
import re

__all__ = [
    "ELEMENT_TYPES",
    "Tile",
    "Layout",
    "Shape",
    "TupleShape",
    "linear_index",
    "multi_index",
    "is_padding",
    "tiled_shape",
    "physical_dim_map",
    "padding_constraints",
]

#: XLA element type names (as printed in HLO text) -> size of one element in bytes.
ELEMENT_TYPES = {
    "pred": 1,
    "s8": 1,
    "s16": 2,
    "s32": 4,
    "s64": 8,
    "u8": 1,
    "u16": 2,
    "u32": 4,
    "u64": 8,
    "f16": 2,
    "bf16": 2,
    "f32": 4,
    "f64": 8,
    "c64": 8,
    "c128": 16,
}


# --------------------------------------------------------------------------------------
# Small validation helpers
# --------------------------------------------------------------------------------------


# Integers in shapes and layouts stay below 2**62: no tensor has more elements, and the
# C++ side computes sizes and strides with int64.
MAX_INT = 1 << 62


def _bounded(value, what):
    if not -MAX_INT < value < MAX_INT:
        raise ValueError(f"{what}: {value} is out of range (|value| < 2**62)")
    return value


def _as_int(value, what):
    """Return ``value`` as a Python int; TypeError for bools and non-integers, ValueError
    beyond 2**62."""
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an integer, got {value!r}")
    try:
        return _bounded(operator.index(value), what)
    except TypeError:
        raise TypeError(f"{what} must be an integer, got {value!r}") from None


def _int_tuple(value, what):
    """Return ``value`` (a sequence of integers) as a tuple of Python ints."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{what} must be a sequence of integers, got {value!r}")
    try:
        items = tuple(value)
    except TypeError:
        raise TypeError(f"{what} must be a sequence of integers, got {value!r}") from None
    out = []
    for item in items:
        if isinstance(item, bool):
            raise TypeError(f"{what} must contain only integers, got {items!r}")
        try:
            out.append(_bounded(operator.index(item), what))
        except TypeError:
            raise TypeError(f"{what} must contain only integers, got {items!r}") from None
    return tuple(out)


def _entries(n):
    return f"{n} entry" if n == 1 else f"{n} entries"


def _join(values):
    return ",".join(str(v) for v in values)


class _Frozen:
    """Base class making ``__slots__`` instances immutable after ``__init__``."""

    __slots__ = ()

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} objects are immutable (cannot set {name!r})")

    def __delattr__(self, name):
        raise AttributeError(
            f"{type(self).__name__} objects are immutable (cannot delete {name!r})"
        )

    def _init(self, **fields):
        for name, value in fields.items():
            object.__setattr__(self, name, value)


# --------------------------------------------------------------------------------------
# Tile
# --------------------------------------------------------------------------------------


class Tile(_Frozen):
    """One level of tiling: a non-empty tuple of positive tile extents.

    The extents are listed major to minor and apply to the most minor
    *physical* dimensions of the shape being tiled (see the module docstring).

    >>> t = Tile((8, 128))
    >>> t.dims
    (8, 128)
    >>> str(t)
    '(8,128)'
    >>> t == Tile([8, 128]) and hash(t) == hash(Tile((8, 128)))
    True

    XLA's "combine dimensions" tile entries (``*``) are not supported.
    """

    __slots__ = ("_dims", "_hash")

    def __init__(self, dims):
        if isinstance(dims, Tile):
            dims = dims.dims
        dims = _int_tuple(dims, "Tile dims")
        if not dims:
            raise ValueError("Tile dims must be non-empty, got ()")
        if any(d < 1 for d in dims):
            raise ValueError(f"Tile dims must be positive integers, got {dims!r}")
        self._init(_dims=dims, _hash=hash(("Tile", dims)))

    @property
    def dims(self):
        """The tile extents, major to minor (tuple of positive ints)."""
        return self._dims

    def __len__(self):
        return len(self._dims)

    def __eq__(self, other):
        if not isinstance(other, Tile):
            return NotImplemented
        return self._dims == other._dims

    def __hash__(self):
        return self._hash

    def __str__(self):
        return f"({_join(self._dims)})"

    def __repr__(self):
        return f"Tile({self._dims!r})"

    def __reduce__(self):
        return (Tile, (self._dims,))


# --------------------------------------------------------------------------------------
# Layout
# --------------------------------------------------------------------------------------


def _normalize_padding_value(value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"Layout padding_value must be a real number, got {value!r}")
    if isinstance(value, numbers.Integral):
        return int(value)
    value = float(value)
    if math.isnan(value):
        raise ValueError(f"Layout padding_value must not be NaN, got {value!r}")
    return value


class Layout(_Frozen):
    """How an array is laid out in memory (XLA ``LayoutProto``).

    ``Layout(minor_to_major, tiles=(), tail_padding_alignment_in_elements=1,
    memory_space=0, padded_dimensions=None, padding_value=0)``

    * ``minor_to_major``: dimension numbers from most minor to most major.
    * ``tiles``: tiling levels applied in order; each a :class:`Tile` or a
      sequence of ints, e.g. ``((8, 128), (2, 1))``.
    * ``tail_padding_alignment_in_elements``: the element count of the buffer
      is rounded up to a multiple of this (>= 1).
    * ``memory_space``: memory space id (>= 0), ``S(n)`` in HLO text.
    * ``padded_dimensions``: ``None`` or the padded size of every dimension
      (older proto field; cannot be combined with ``tiles``).
    * ``padding_value``: value stored in ``padded_dimensions`` padding (an int
      or a non-NaN float).

    A Layout only checks its own fields (integers, ranges, the tiles/padding
    exclusion). Whether it fits a shape (``minor_to_major`` being a permutation
    of ``0..rank-1``, padded sizes >= sizes) is checked by :class:`Shape`.
    Layouts are immutable, hashable and compare equal by value.

    >>> Layout((1, 0))
    Layout('{1,0}')
    >>> str(Layout((3, 2, 0, 1), tiles=((8, 128), (2, 1))))
    '{3,2,0,1:T(8,128)(2,1)}'
    >>> str(Layout((2, 1, 0), tiles=[(8, 128), (2, 1)], memory_space=1))
    '{2,1,0:T(8,128)(2,1)S(1)}'
    >>> str(Layout((0,), tail_padding_alignment_in_elements=4))
    '{0:L(4)}'
    >>> str(Layout((1, 0), padded_dimensions=(3, 5), padding_value=-1))
    '{1,0:PD(3,5)PV(-1)}'
    >>> Layout.parse("{0,1:PD(3,5)}") == Layout((0, 1), padded_dimensions=(3, 5))
    True
    >>> Layout.default(3)
    Layout('{2,1,0}')
    """

    __slots__ = (
        "_minor_to_major",
        "_tiles",
        "_tail_padding_alignment_in_elements",
        "_memory_space",
        "_padded_dimensions",
        "_padding_value",
        "_hash",
    )

    def __init__(
        self,
        minor_to_major,
        tiles=(),
        tail_padding_alignment_in_elements=1,
        memory_space=0,
        padded_dimensions=None,
        padding_value=0,
    ):
        m2m = _int_tuple(minor_to_major, "Layout minor_to_major")
        if any(d < 0 for d in m2m):
            raise ValueError(
                f"Layout minor_to_major entries must be non-negative dimension numbers, "
                f"got {m2m!r}"
            )
        tiles = self._normalize_tiles(tiles)
        tail = _as_int(
            tail_padding_alignment_in_elements, "Layout tail_padding_alignment_in_elements"
        )
        if tail < 1:
            raise ValueError(f"Layout tail_padding_alignment_in_elements must be >= 1, got {tail}")
        space = _as_int(memory_space, "Layout memory_space")
        if space < 0:
            raise ValueError(f"Layout memory_space must be >= 0, got {space}")
        if padded_dimensions is not None:
            padded_dimensions = _int_tuple(padded_dimensions, "Layout padded_dimensions")
            if any(p < 0 for p in padded_dimensions):
                raise ValueError(
                    f"Layout padded_dimensions must be non-negative, got {padded_dimensions!r}"
                )
            if tiles:
                raise ValueError(
                    f"Layout cannot combine padded_dimensions {padded_dimensions!r} with tiles "
                    f"{''.join(str(t) for t in tiles)}: xarr does not mix the old and the new "
                    f"(tiled) padding"
                )
        pad_value = _normalize_padding_value(padding_value)
        key = (m2m, tiles, tail, space, padded_dimensions, pad_value)
        self._init(
            _minor_to_major=m2m,
            _tiles=tiles,
            _tail_padding_alignment_in_elements=tail,
            _memory_space=space,
            _padded_dimensions=padded_dimensions,
            _padding_value=pad_value,
            _hash=hash(("Layout",) + key),
        )

    @staticmethod
    def _normalize_tiles(tiles):
        if isinstance(tiles, (str, bytes, Tile)):
            raise TypeError(
                f"Layout tiles must be a sequence of tiles such as ((8, 128), (2, 1)), "
                f"got {tiles!r}"
            )
        try:
            items = tuple(tiles)
        except TypeError:
            raise TypeError(
                f"Layout tiles must be a sequence of tiles such as ((8, 128), (2, 1)), "
                f"got {tiles!r}"
            ) from None
        out = []
        for item in items:
            if isinstance(item, numbers.Number) or isinstance(item, (str, bytes)):
                raise TypeError(
                    f"Layout tiles must be a sequence of tiles such as ((8, 128), (2, 1)), "
                    f"got {items!r}"
                )
            out.append(item if isinstance(item, Tile) else Tile(item))
        return tuple(out)

    # -- constructors -------------------------------------------------------------------

    @classmethod
    def default(cls, rank):
        """The default (major-to-minor) layout ``{rank-1,...,1,0}`` of a rank.

        >>> str(Layout.default(2)), str(Layout.default(0))
        ('{1,0}', '{}')
        """
        rank = _as_int(rank, "rank")
        if rank < 0:
            raise ValueError(f"rank must be non-negative, got {rank}")
        return cls(tuple(range(rank - 1, -1, -1)))

    @classmethod
    def parse(cls, text):
        """Parse layout HLO text such as ``'{3,2,0,1:T(8,128)(2,1)S(1)}'``.

        Attributes after the colon may appear in any order but at most once;
        the printed (canonical) order is ``T L PD PV S``. Malformed text raises
        ValueError quoting the text and the position.

        >>> Layout.parse("{1,0:T(2,2)L(8)}").tiles
        (Tile((2, 2)),)
        >>> Layout.parse("{1,0:X(2)}")
        Traceback (most recent call last):
        ...
        ValueError: cannot parse layout '{1,0:X(2)}': unknown layout attribute ...
        """
        parser = _Parser(text, "layout")
        layout = parser.layout()
        parser.finish()
        return layout

    def replace(self, **changes):
        """Return a copy with some constructor arguments replaced.

        >>> str(Layout((1, 0)).replace(memory_space=1))
        '{1,0:S(1)}'
        """
        fields = dict(
            minor_to_major=self._minor_to_major,
            tiles=self._tiles,
            tail_padding_alignment_in_elements=self._tail_padding_alignment_in_elements,
            memory_space=self._memory_space,
            padded_dimensions=self._padded_dimensions,
            padding_value=self._padding_value,
        )
        unknown = set(changes) - set(fields)
        if unknown:
            raise TypeError(f"Layout.replace() got unknown field(s) {sorted(unknown)!r}")
        fields.update(changes)
        return Layout(**fields)

    # -- fields -------------------------------------------------------------------------

    @property
    def minor_to_major(self):
        """Dimension numbers from most minor (fastest varying) to most major."""
        return self._minor_to_major

    @property
    def major_to_minor(self):
        """``reversed(minor_to_major)``: the physical order, most major first."""
        return self._minor_to_major[::-1]

    @property
    def tiles(self):
        """Tuple of :class:`Tile`, applied in order (may be empty)."""
        return self._tiles

    @property
    def tail_padding_alignment_in_elements(self):
        """The buffer's element count is a multiple of this (default 1)."""
        return self._tail_padding_alignment_in_elements

    @property
    def memory_space(self):
        """Memory space id (0 = device memory, the default)."""
        return self._memory_space

    @property
    def padded_dimensions(self):
        """``None`` or the padded size of each dimension (older proto field)."""
        return self._padded_dimensions

    @property
    def padding_value(self):
        """Value stored in ``padded_dimensions`` padding (default 0)."""
        return self._padding_value

    # -- protocol -----------------------------------------------------------------------

    def _key(self):
        return (
            self._minor_to_major,
            self._tiles,
            self._tail_padding_alignment_in_elements,
            self._memory_space,
            self._padded_dimensions,
            self._padding_value,
        )

    def __eq__(self, other):
        if not isinstance(other, Layout):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self):
        return self._hash

    def __str__(self):
        attrs = []
        if self._tiles:
            attrs.append("T" + "".join(str(t) for t in self._tiles))
        if self._tail_padding_alignment_in_elements != 1:
            attrs.append(f"L({self._tail_padding_alignment_in_elements})")
        if self._padded_dimensions is not None:
            attrs.append(f"PD({_join(self._padded_dimensions)})")
        if self._padding_value != 0:
            attrs.append(f"PV({self._padding_value!r})")
        if self._memory_space != 0:
            attrs.append(f"S({self._memory_space})")
        text = _join(self._minor_to_major)
        if attrs:
            text += ":" + "".join(attrs)
        return "{" + text + "}"

    def __repr__(self):
        return f"Layout({str(self)!r})"

    def __reduce__(self):
        return (Layout, self._key())


# --------------------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------------------


def _array_text(element_type, dims, dynamic_dims):
    parts = [f"<={d}" if dyn else str(d) for d, dyn in zip(dims, dynamic_dims)]
    return f"{element_type}[{','.join(parts)}]"


class Shape(_Frozen):
    """An array shape: element type, dimension sizes, layout (XLA ``ShapeProto``).

    ``Shape(element_type, dims, layout=None, dynamic_dims=None)``

    * ``element_type``: a key of :data:`ELEMENT_TYPES` such as ``'f32'``.
    * ``dims``: sequence of non-negative ints (size 0 is valid).
    * ``layout``: a :class:`Layout`, layout text such as ``'{0,1}'``, or
      ``None`` for the default ``Layout.default(rank)``.
    * ``dynamic_dims``: ``None`` or one bool per dimension; a dynamic dimension
      is bounded by its size and prints as ``<=N``.

    Wrong types raise TypeError; bad values raise ValueError naming the
    offending values. Shapes are immutable, hashable and compare by value
    (element type, dims, dynamic dims and the full layout).

    >>> s = Shape("f32", (2, 3))
    >>> s
    Shape('f32[2,3]{1,0}')
    >>> s.rank, s.size, s.itemsize, s.storage_nbytes
    (2, 6, 4, 24)
    >>> s.dimension(-1), s.resolve_dim(-1)
    (3, 1)
    >>> str(s.with_layout("{0,1}"))
    'f32[2,3]{0,1}'
    >>> str(Shape("f32", (10, 3), dynamic_dims=(True, False)))
    'f32[<=10,3]{1,0}'
    >>> str(Shape("f32", ()))
    'f32[]'
    >>> Shape("f32", (2, 3), Layout((0, 0)))
    Traceback (most recent call last):
    ...
    ValueError: Layout minor_to_major (0, 0) is not a permutation of 0..1 for f32[2,3]
    """

    __slots__ = ("_element_type", "_dims", "_layout", "_dynamic_dims", "_hash", "_plan")

    #: False for array shapes, True for :class:`TupleShape`.
    is_tuple = False

    def __init__(self, element_type, dims, layout=None, dynamic_dims=None):
        if not isinstance(element_type, str):
            raise TypeError(f"Shape element_type must be a str, got {element_type!r}")
        if element_type not in ELEMENT_TYPES:
            raise ValueError(
                f"unknown element type {element_type!r}; expected one of "
                f"{', '.join(ELEMENT_TYPES)}"
            )
        dims = _int_tuple(dims, "Shape dims")
        if any(d < 0 for d in dims):
            raise ValueError(f"Shape dims must be non-negative, got {dims!r}")
        rank = len(dims)
        if dynamic_dims is None:
            dynamic_dims = (False,) * rank
        else:
            if isinstance(dynamic_dims, (str, bytes)):
                raise TypeError(
                    f"Shape dynamic_dims must be a sequence of bools, got {dynamic_dims!r}"
                )
            try:
                dynamic_dims = tuple(dynamic_dims)
            except TypeError:
                raise TypeError(
                    f"Shape dynamic_dims must be a sequence of bools, got {dynamic_dims!r}"
                ) from None
            if not all(isinstance(b, bool) for b in dynamic_dims):
                raise TypeError(f"Shape dynamic_dims must contain only bools, got {dynamic_dims!r}")
            if len(dynamic_dims) != rank:
                raise ValueError(
                    f"Shape dynamic_dims {dynamic_dims!r} has {_entries(len(dynamic_dims))} but "
                    f"dims {dims!r} has rank {rank}"
                )
        if layout is None:
            layout = Layout.default(rank)
        elif isinstance(layout, str):
            layout = Layout.parse(layout)
        elif not isinstance(layout, Layout):
            raise TypeError(f"Shape layout must be a Layout, layout text or None, got {layout!r}")
        _check_layout_fits(layout, _array_text(element_type, dims, dynamic_dims), dims)
        self._init(
            _element_type=element_type,
            _dims=dims,
            _layout=layout,
            _dynamic_dims=dynamic_dims,
            _hash=hash(("Shape", element_type, dims, dynamic_dims, layout)),
            _plan=None,
        )

    # -- parsing ------------------------------------------------------------------------

    @classmethod
    def parse(cls, text):
        """Parse shape HLO text; returns a :class:`Shape` or a :class:`TupleShape`.

        A missing layout means the default layout. Canonical text round-trips
        exactly (``str(Shape.parse(t)) == t``). Only shape text is accepted (no
        instruction names such as ``%fusion.3``); malformed text raises
        ValueError quoting the text and the position.

        >>> Shape.parse("f32[2,3]")
        Shape('f32[2,3]{1,0}')
        >>> str(Shape.parse("(f32[2]{0}, (s32[], pred[0,3]))"))
        '(f32[2]{0}, (s32[], pred[0,3]{1,0}))'
        >>> Shape.parse("f32[2,3")
        Traceback (most recent call last):
        ...
        ValueError: cannot parse shape 'f32[2,3': expected ',' or ']', found end of text ...
        """
        parser = _Parser(text, "shape")
        shape = parser.shape()
        parser.finish()
        return shape

    # -- properties ---------------------------------------------------------------------

    @property
    def element_type(self):
        """XLA element type name, e.g. ``'f32'``."""
        return self._element_type

    @property
    def dims(self):
        """Dimension sizes in dimension-number order (bounds for dynamic dims)."""
        return self._dims

    @property
    def rank(self):
        """Number of dimensions."""
        return len(self._dims)

    @property
    def true_rank(self):
        """Number of dimensions whose size is greater than 1."""
        return sum(1 for d in self._dims if d > 1)

    @property
    def layout(self):
        """The :class:`Layout` (never None)."""
        return self._layout

    @property
    def dynamic_dims(self):
        """One bool per dimension: True for a bounded dynamic dimension."""
        return self._dynamic_dims

    @property
    def size(self):
        """Number of logical elements (product of ``dims``; 1 for a scalar)."""
        return math.prod(self._dims)

    @property
    def itemsize(self):
        """Bytes per element (``ELEMENT_TYPES[element_type]``)."""
        return ELEMENT_TYPES[self._element_type]

    @property
    def storage_elements(self):
        """Number of elements of the physical buffer, padding included.

        >>> Shape.parse("f32[2,3]{0,1:PD(3,5)}").storage_elements
        15
        >>> Shape.parse("f32[3,5]{1,0:T(2,2)L(32)}").storage_elements
        32
        """
        return self._get_plan().storage

    @property
    def storage_nbytes(self):
        """``storage_elements * itemsize``."""
        return self.storage_elements * self.itemsize

    # -- dimension helpers --------------------------------------------------------------

    def resolve_dim(self, d):
        """Return dimension number ``d`` as a non-negative number.

        Negative numbers count from the end like in Python. Out-of-range numbers
        raise IndexError naming the rank and the value.
        """
        d = _as_int(d, "dimension number")
        rank = len(self._dims)
        if -rank <= d < rank:
            return d + rank if d < 0 else d
        valid = f"valid: {-rank}..{rank - 1}" if rank else "a rank-0 shape has no dimensions"
        raise IndexError(f"dimension {d} is out of range for rank-{rank} shape {self} ({valid})")

    def dimension(self, d):
        """Size of dimension ``d`` (negative ``d`` counts from the end)."""
        return self._dims[self.resolve_dim(d)]

    def is_dynamic_dimension(self, d):
        """Whether dimension ``d`` (negative counts from the end) is dynamic."""
        return self._dynamic_dims[self.resolve_dim(d)]

    def with_layout(self, layout):
        """Same shape with another layout (a Layout, layout text, or None = default)."""
        return Shape(self._element_type, self._dims, layout, self._dynamic_dims)

    # -- protocol -----------------------------------------------------------------------

    def __eq__(self, other):
        if not isinstance(other, Shape):
            return NotImplemented
        return (
            self._element_type == other._element_type
            and self._dims == other._dims
            and self._dynamic_dims == other._dynamic_dims
            and self._layout == other._layout
        )

    def __hash__(self):
        return self._hash

    def __str__(self):
        text = _array_text(self._element_type, self._dims, self._dynamic_dims)
        layout_text = str(self._layout)
        if self._dims or layout_text != "{}":
            text += layout_text
        return text

    def __repr__(self):
        return f"Shape({str(self)!r})"

    def __reduce__(self):
        return (Shape, (self._element_type, self._dims, self._layout, self._dynamic_dims))

    def _get_plan(self):
        plan = self._plan
        if plan is None:
            plan = _Plan(self)
            object.__setattr__(self, "_plan", plan)
        return plan


def _check_layout_fits(layout, shape_text, dims):
    rank = len(dims)
    m2m = layout.minor_to_major
    if len(m2m) != rank:
        raise ValueError(
            f"Layout minor_to_major {m2m!r} has {_entries(len(m2m))} but {shape_text} has "
            f"rank {rank}"
        )
    if sorted(m2m) != list(range(rank)):
        raise ValueError(
            f"Layout minor_to_major {m2m!r} is not a permutation of 0..{rank - 1} for {shape_text}"
        )
    padded = layout.padded_dimensions
    if padded is not None:
        if len(padded) != rank:
            raise ValueError(
                f"Layout padded_dimensions {padded!r} has {_entries(len(padded))} but "
                f"{shape_text} has rank {rank}"
            )
        for d, (p, n) in enumerate(zip(padded, dims)):
            if p < n:
                raise ValueError(
                    f"Layout padded_dimensions {padded!r} is smaller than the dims {dims!r} of "
                    f"{shape_text} in dimension {d} ({p} < {n})"
                )


class TupleShape(_Frozen):
    """A tuple of shapes (elements are :class:`Shape` or nested TupleShape).

    >>> t = TupleShape([Shape("f32", (2,)), Shape("s32", ())])
    >>> str(t)
    '(f32[2]{0}, s32[])'
    >>> len(t), t[1]
    (2, Shape('s32[]'))
    >>> Shape.parse(str(t)) == t
    True
    """

    __slots__ = ("_shapes", "_hash")

    #: True for tuple shapes, False for :class:`Shape`.
    is_tuple = True

    def __init__(self, shapes):
        if isinstance(shapes, (str, bytes, Shape, TupleShape)):
            raise TypeError(f"TupleShape expects a sequence of shapes, got {shapes!r}")
        try:
            shapes = tuple(shapes)
        except TypeError:
            raise TypeError(f"TupleShape expects a sequence of shapes, got {shapes!r}") from None
        for s in shapes:
            if not isinstance(s, (Shape, TupleShape)):
                raise TypeError(
                    f"TupleShape elements must be Shape or TupleShape, got {s!r} in {shapes!r}"
                )
        self._init(_shapes=shapes, _hash=hash(("TupleShape", shapes)))

    @classmethod
    def parse(cls, text):
        """Parse tuple shape text such as ``'(f32[2]{0}, s32[])'``."""
        result = Shape.parse(text)
        if not isinstance(result, TupleShape):
            raise ValueError(f"cannot parse tuple shape {text!r}: it is an array shape")
        return result

    @property
    def shapes(self):
        """The element shapes (tuple)."""
        return self._shapes

    def __len__(self):
        return len(self._shapes)

    def __iter__(self):
        return iter(self._shapes)

    def __getitem__(self, i):
        return self._shapes[i]

    def __eq__(self, other):
        if not isinstance(other, TupleShape):
            return NotImplemented
        return self._shapes == other._shapes

    def __hash__(self):
        return self._hash

    def __str__(self):
        return "(" + ", ".join(str(s) for s in self._shapes) + ")"

    def __repr__(self):
        return f"TupleShape({str(self)!r})"

    def __reduce__(self):
        return (TupleShape, (self._shapes,))


# --------------------------------------------------------------------------------------
# Text parser
# --------------------------------------------------------------------------------------

_IDENT_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_INT_RE = re.compile(r"[0-9]+")
_NUMBER_RE = re.compile(r"[+-]?(?:inf|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_SIGNED_INT_RE = re.compile(r"[+-]?[0-9]+")


class _Parser:
    """Recursive-descent parser for shape / layout HLO text."""

    # Tuples nest at most this deep; integers in shape text are below MAX_INT.
    MAX_DEPTH = 64

    def __init__(self, text, what):
        if not isinstance(text, str):
            raise TypeError(f"{what} text must be a str, got {text!r}")
        self.text = text
        self.pos = 0
        self.what = what
        self.depth = 0

    def error(self, message, pos=None):
        pos = self.pos if pos is None else pos
        text = self.text if len(self.text) <= 80 else self.text[:77] + "..."
        return ValueError(f"cannot parse {self.what} {text!r}: {message} at position {pos}")

    def found(self):
        if self.pos >= len(self.text):
            return "end of text"
        return repr(self.text[self.pos])

    def skip_ws(self):
        """Skip whitespace and ``/*...*/`` comments (XLA prints ``/*index=5*/`` in tuples)."""
        text, pos = self.text, self.pos
        while pos < len(text):
            if text[pos].isspace():
                pos += 1
            elif text.startswith("/*", pos):
                end = text.find("*/", pos + 2)
                if end < 0:
                    raise self.error("unterminated comment", pos)
                pos = end + 2
            else:
                break
        self.pos = pos

    def peek(self):
        return self.text[self.pos : self.pos + 1]

    def accept(self, token):
        if self.text.startswith(token, self.pos):
            self.pos += len(token)
            return True
        return False

    def expect(self, token, alternatives=None):
        if not self.accept(token):
            wanted = alternatives or repr(token)
            raise self.error(f"expected {wanted}, found {self.found()}")

    def integer(self):
        m = _INT_RE.match(self.text, self.pos)
        if not m:
            raise self.error(f"expected a non-negative integer, found {self.found()}")
        value = int(m.group())
        if value >= MAX_INT:
            raise self.error(f"integer {value} is too large (at most 2**62 - 1)")
        self.pos = m.end()
        return value

    def int_list(self, close):
        """Comma-separated integers up to (and including) ``close``."""
        values = []
        self.skip_ws()
        if self.accept(close):
            return tuple(values)
        while True:
            self.skip_ws()
            values.append(self.integer())
            self.skip_ws()
            if self.accept(close):
                return tuple(values)
            self.expect(",", f"',' or {close!r}")

    def finish(self):
        self.skip_ws()
        if self.pos != len(self.text):
            raise self.error(f"unexpected trailing text {self.text[self.pos:]!r}")

    # -- grammar ------------------------------------------------------------------------

    def shape(self):
        self.skip_ws()
        if self.peek() == "(":
            return self.tuple_shape()
        return self.array_shape()

    def tuple_shape(self):
        if self.depth >= self.MAX_DEPTH:
            raise self.error(f"tuples nest more than {self.MAX_DEPTH} deep")
        self.depth += 1
        try:
            return self._tuple_shape()
        finally:
            self.depth -= 1

    def _tuple_shape(self):
        self.expect("(")
        shapes = []
        self.skip_ws()
        if self.accept(")"):
            return TupleShape(shapes)
        while True:
            shapes.append(self.shape())
            self.skip_ws()
            if self.accept(")"):
                return TupleShape(shapes)
            self.expect(",", "',' or ')'")

    def array_shape(self):
        start = self.pos
        m = _IDENT_RE.match(self.text, self.pos)
        if not m:
            raise self.error(f"expected an element type such as 'f32', found {self.found()}")
        element_type = m.group()
        if element_type not in ELEMENT_TYPES:
            raise self.error(
                f"unknown element type {element_type!r} (expected one of "
                f"{', '.join(ELEMENT_TYPES)})",
                start,
            )
        self.pos = m.end()
        self.expect("[")
        dims, dynamic = [], []
        self.skip_ws()
        if not self.accept("]"):
            while True:
                self.skip_ws()
                if self.peek() == "?":
                    raise self.error("unbounded dynamic dimensions ('?') are not supported")
                dynamic.append(self.accept("<="))
                dims.append(self.integer())
                self.skip_ws()
                if self.accept("]"):
                    break
                self.expect(",", "',' or ']'")
        layout_pos = None
        layout = None
        self.skip_ws()
        if self.peek() == "{":
            layout_pos = self.pos
            layout = self.layout()
        try:
            return Shape(element_type, dims, layout, dynamic)
        except ValueError as exc:
            raise self.error(str(exc), layout_pos if layout_pos is not None else start) from exc

    def layout(self):
        start = self.pos
        self.skip_ws()
        self.expect("{")
        m2m = []
        self.skip_ws()
        if self.peek() not in ("}", ":"):
            while True:
                self.skip_ws()
                m2m.append(self.integer())
                self.skip_ws()
                if self.peek() in ("}", ":"):
                    break
                self.expect(",", "',', ':' or '}'")
        attrs = {}
        if self.accept(":"):
            while True:
                self.skip_ws()
                if self.accept("}"):
                    break
                self.layout_attribute(attrs)
        else:
            self.expect("}")
        try:
            return Layout(m2m, **attrs)
        except ValueError as exc:
            raise self.error(str(exc), start) from exc

    def layout_attribute(self, attrs):
        start = self.pos
        text = self.text
        if text.startswith("T", start):
            name, self.pos = "tiles", start + 1
            if self.peek() != "(":
                raise self.error(f"expected '(' after 'T', found {self.found()}")
            tiles = []
            while self.peek() == "(":
                tile_start = self.pos
                self.pos += 1
                self.skip_ws()
                if self.peek() == "*":
                    raise self.error("combine-dimension tile entries ('*') are not supported")
                tile = self.int_list(")")
                if not tile:
                    raise self.error("a tile must have at least one dimension", tile_start)
                if any(t < 1 for t in tile):
                    raise self.error(f"tile dimensions must be positive, got {tile!r}", tile_start)
                tiles.append(tile)
            value = tuple(tiles)
        elif text.startswith("L(", start):
            name, self.pos = "tail_padding_alignment_in_elements", start + 2
            value = self.single_int()
        elif text.startswith("PD(", start):
            name, self.pos = "padded_dimensions", start + 3
            value = self.int_list(")")
        elif text.startswith("PV(", start):
            name, self.pos = "padding_value", start + 3
            self.skip_ws()
            m = _NUMBER_RE.match(text, self.pos)
            if not m:
                raise self.error(f"expected a number, found {self.found()}")
            self.pos = m.end()
            literal = m.group()
            value = int(literal) if _SIGNED_INT_RE.fullmatch(literal) else float(literal)
            self.skip_ws()
            self.expect(")")
        elif text.startswith("S(", start):
            name, self.pos = "memory_space", start + 2
            value = self.single_int()
        else:
            raise self.error(
                "unknown layout attribute (xarr supports T(..), L(n), PD(..), PV(v) and S(n))",
                start,
            )
        if name in attrs:
            raise self.error(f"duplicate layout attribute {text[start:self.pos]!r}", start)
        attrs[name] = value

    def single_int(self):
        self.skip_ws()
        value = self.integer()
        self.skip_ws()
        self.expect(")")
        return value


# --------------------------------------------------------------------------------------
# Index utilities (XLA IndexUtil semantics, extended to tiling and padding)
# --------------------------------------------------------------------------------------


class _Node:
    """A dimension of some intermediate physical shape (used for padding checks)."""

    __slots__ = ("size", "bound", "children")

    def __init__(self, size, bound):
        self.size = size  # extent of the dimension in the shape where it appears
        self.bound = bound  # coordinates >= bound are padding
        self.children = None  # [(node, weight)] once split by a tile


class _Plan:
    """Precomputed physical description of an array shape (cached on the Shape)."""

    __slots__ = ("order", "levels", "final", "strides", "count", "storage", "dim_map",
                 "constraints")

    def __init__(self, shape):
        layout = shape.layout
        dims = shape.dims
        self.order = layout.major_to_minor
        sizes = layout.padded_dimensions if layout.padded_dimensions is not None else dims
        cur = [sizes[d] for d in self.order]
        cmap = [(d, 1) for d in self.order]
        nodes = [_Node(sizes[d], dims[d]) for d in self.order]
        all_nodes = list(nodes)
        levels = []
        for tile in layout.tiles:
            t = tile.dims
            k = len(t)
            pre = max(0, k - len(cur))
            if pre:
                cur = [1] * pre + cur
                cmap = [(-1, 1)] * pre + cmap
                new = [_Node(1, 1) for _ in range(pre)]
                all_nodes.extend(new)
                nodes = new + nodes
            n = len(cur)
            levels.append((pre, t, tuple(cur)))
            split = range(n - k, n)
            counts = [-(-cur[j] // tj) for j, tj in zip(split, t)]
            major_nodes, minor_nodes = [], []
            for j, tj, c in zip(split, t, counts):
                a, b = _Node(c, c), _Node(tj, tj)
                nodes[j].children = [(a, tj), (b, 1)]
                major_nodes.append(a)
                minor_nodes.append(b)
                all_nodes.extend((a, b))
            cmap = (
                cmap[: n - k]
                + [(cmap[j][0], cmap[j][1] * tj) for j, tj in zip(split, t)]
                + [cmap[j] for j in split]
            )
            nodes = nodes[: n - k] + major_nodes + minor_nodes
            cur = cur[: n - k] + counts + list(t)
        self.levels = tuple(levels)
        self.final = tuple(cur)
        strides = [1] * len(cur)
        for j in range(len(cur) - 2, -1, -1):
            strides[j] = strides[j + 1] * cur[j + 1]
        self.strides = tuple(strides)
        self.count = math.prod(cur)
        align = layout.tail_padding_alignment_in_elements
        self.storage = -(-self.count // align) * align
        self.dim_map = tuple(cmap)
        self.constraints = self._constraints(all_nodes, nodes)

    def _constraints(self, all_nodes, leaves):
        position = {id(node): j for j, node in enumerate(leaves)}

        def terms(node, weight, out):
            if node.children is None:
                j = position[id(node)]
                out[j] = out.get(j, 0) + weight
            else:
                for child, w in node.children:
                    terms(child, weight * w, out)
            return out

        def reach(node):
            """Largest value of ``node`` when all its descendants respect their bounds."""
            if node.children is None:
                return node.size - 1
            return sum(min(reach(c), c.bound - 1) * w for c, w in node.children)

        result = []
        for node in all_nodes:
            if reach(node) >= node.bound:
                expansion = terms(node, 1, {})
                result.append((tuple(sorted(expansion.items())), node.bound))
        return tuple(result)


def _array_plan(shape, func):
    if not isinstance(shape, Shape):
        raise TypeError(f"{func}() needs an array Shape, got {shape!r}")
    return shape._get_plan()


def linear_index(shape, multi_index):
    """Position (in elements) of the element at ``multi_index`` in the buffer.

    ``multi_index`` has one component per dimension, in dimension-number order,
    each with ``0 <= i < dims[d]`` (no negative indices; IndexError otherwise,
    ValueError if the length is not the rank). The result lies in
    ``[0, shape.storage_elements)`` and :func:`multi_index` inverts it.

    Examples from the XLA documentation, for the 2x3 array ``a b c / d e f``:

    >>> s = Shape.parse("f32[2,3]{1,0}")      # row-major: a b c d e f
    >>> [linear_index(s, (i, j)) for i in range(2) for j in range(3)]
    [0, 1, 2, 3, 4, 5]
    >>> s = Shape.parse("f32[2,3]{0,1}")      # column-major: a d b e c f
    >>> [linear_index(s, (i, j)) for i in range(2) for j in range(3)]
    [0, 2, 4, 1, 3, 5]
    >>> s = Shape.parse("f32[2,3]{0,1:PD(3,5)}")  # a d 0 b e 0 c f 0 0 0 0 0 0 0
    >>> [linear_index(s, (i, j)) for i in range(2) for j in range(3)]
    [0, 3, 6, 1, 4, 7]
    >>> s = Shape.parse("f32[3,5]{1,0:T(2,2)}")
    >>> linear_index(s, (2, 3))    # tile (1,1), within-tile (0,1): (1*3+1)*4 + 0*2+1
    17
    """
    plan = _array_plan(shape, "linear_index")
    idx = _int_tuple(multi_index, "multi_index")
    dims = shape.dims
    if len(idx) != len(dims):
        raise ValueError(
            f"multi_index {idx!r} has {len(idx)} components but {shape} has rank {len(dims)}"
        )
    for d, (i, n) in enumerate(zip(idx, dims)):
        if not 0 <= i < n:
            raise IndexError(
                f"multi_index {idx!r} is out of bounds for {shape}: component {d} is {i}, "
                f"dimension {d} has size {n}"
            )
    coords = [idx[d] for d in plan.order]
    for pre, t, _ in plan.levels:
        if pre:
            coords = [0] * pre + coords
        n, k = len(coords), len(t)
        part = coords[n - k :]
        coords = (
            coords[: n - k]
            + [c // tj for c, tj in zip(part, t)]
            + [c % tj for c, tj in zip(part, t)]
        )
    return sum(c * s for c, s in zip(coords, plan.strides))


def _locate(shape, plan, linear):
    """Return (multi_index, None) or (None, reason) for a buffer position."""
    if linear >= plan.count:
        return None, (
            f"tail padding (data ends at {plan.count}, the buffer has {plan.storage} elements)"
        )
    coords = []
    rest = linear
    for size in reversed(plan.final):
        rest, c = divmod(rest, size)
        coords.append(c)
    coords.reverse()
    for pre, t, before in reversed(plan.levels):
        k = len(t)
        n = len(before)
        q, r = coords[n - k : n], coords[n:]
        whole = [qi * tj + ri for qi, tj, ri in zip(q, t, r)]
        for j, (x, bound) in enumerate(zip(whole, before[n - k :])):
            if x >= bound:
                return None, (
                    f"tile padding (coordinate {x} >= {bound} in dimension {n - k + j} of the "
                    f"intermediate shape {before!r} tiled by {Tile(t)})"
                )
        coords = coords[: n - k] + whole
        if pre:
            coords = coords[pre:]
    dims = shape.dims
    result = [0] * len(dims)
    for c, d in zip(coords, plan.order):
        if c >= dims[d]:
            return None, (
                f"padded_dimensions padding (coordinate {c} >= size {dims[d]} of dimension {d})"
            )
        result[d] = c
    return tuple(result), None


def _check_linear(shape, plan, linear):
    linear = _as_int(linear, "linear index")
    if not 0 <= linear < plan.storage:
        raise IndexError(
            f"linear index {linear} is out of range for {shape}: the buffer has "
            f"{plan.storage} elements"
        )
    return linear


def multi_index(shape, linear):
    """Inverse of :func:`linear_index`: the multi-index stored at buffer position ``linear``.

    Raises IndexError if ``linear`` is not in ``[0, shape.storage_elements)``
    and ValueError (mentioning "padding") if that position is a padding slot.

    >>> s = Shape.parse("f32[2,3]{0,1:PD(3,5)}")
    >>> multi_index(s, 4)
    (1, 1)
    >>> multi_index(s, 2)
    Traceback (most recent call last):
    ...
    ValueError: linear index 2 of f32[2,3]{0,1:PD(3,5)} is a padding slot: ...
    """
    plan = _array_plan(shape, "multi_index")
    linear = _check_linear(shape, plan, linear)
    result, reason = _locate(shape, plan, linear)
    if result is None:
        raise ValueError(f"linear index {linear} of {shape} is a padding slot: {reason}")
    return result


def is_padding(shape, linear):
    """Whether buffer position ``linear`` (in range, else IndexError) is padding.

    >>> s = Shape.parse("f32[3,5]{1,0:T(2,2)}")
    >>> [p for p in range(s.storage_elements) if is_padding(s, p)]
    [9, 11, 14, 15, 18, 19, 21, 22, 23]
    """
    plan = _array_plan(shape, "is_padding")
    linear = _check_linear(shape, plan, linear)
    return _locate(shape, plan, linear)[0] is None


def tiled_shape(shape):
    """The row-major physical shape of the buffer (before tail padding).

    Without tiles this is the (padded) dims in major-to-minor order; with tiles
    it is the result of applying every tile (module docstring, step 2).
    ``math.prod(tiled_shape(s))`` rounded up to the tail alignment equals
    ``s.storage_elements``.

    >>> tiled_shape(Shape.parse("f32[2,3]{0,1:PD(3,5)}"))
    (5, 3)
    >>> tiled_shape(Shape.parse("bf16[20,300]{1,0:T(8,128)(2,1)}"))
    (3, 3, 4, 128, 2, 1)
    >>> tiled_shape(Shape.parse("f32[5]{0:T(2,4)}"))   # rank 1 < tile rank 2
    (1, 2, 2, 4)
    """
    return _array_plan(shape, "tiled_shape").final


def physical_dim_map(shape):
    """How the physical dims of :func:`tiled_shape` recombine into logical indices.

    Returns one pair ``(logical_dim, multiplier)`` per physical dim ``j`` of
    ``tiled_shape(shape)``; ``logical_dim`` is ``-1`` for dims that come from
    the size-1 dims prepended when a tile has more dims than the shape. For
    every non-padding slot with physical coordinates ``c`` (the row-major
    unravelling of its buffer position over ``tiled_shape``)::

        i_d = sum(c[j] * multiplier_j for j with logical_dim_j == d)

    A dim of extent ``D`` and multiplier ``m`` tiled by ``t`` becomes a tile
    count dim with multiplier ``m*t`` (in place) and a within-tile dim with
    multiplier ``m`` (appended).

    Worked example, ``f32[3,5]{1,0:T(2,2)}`` (tiled shape ``(2, 3, 2, 2)``):

    >>> s = Shape.parse("f32[3,5]{1,0:T(2,2)}")
    >>> physical_dim_map(s)
    ((0, 2), (1, 2), (0, 1), (1, 1))

    Position 17 unravels to ``c = (1, 1, 0, 1)``, hence ``i_0 = 1*2 + 0*1 = 2``
    and ``i_1 = 1*2 + 1*1 = 3``: element ``(2, 3)``. For the bf16 TPU layout the
    second tile splits the (8,128) tile into 4x128 pairs of rows:

    >>> physical_dim_map(Shape.parse("bf16[20,300]{1,0:T(8,128)(2,1)}"))
    ((0, 8), (1, 128), (0, 2), (1, 1), (0, 1), (1, 1))

    and for a plain column-major layout the map is just the physical order:

    >>> physical_dim_map(Shape.parse("f32[2,3]{0,1}"))
    ((1, 1), (0, 1))

    The map alone does not identify padding slots. Positions
    ``>= math.prod(tiled_shape)`` are tail padding; a slot below that is
    padding iff it violates one of :func:`padding_constraints`. For common
    layouts such as ``T(8,128)(2,1)`` those are just ``i_d < dims[d]``; with an
    uneven sub-tiling such as ``T(8)(3)`` a padding slot can map to the index of
    a real element, so a relayout kernel must check the constraints.
    """
    return _array_plan(shape, "physical_dim_map").dim_map


def padding_constraints(shape):
    """Conditions a physical slot must satisfy to hold data (not padding).

    Returns a tuple of ``(terms, bound)`` where ``terms`` is a tuple of
    ``(physical_dim, weight)`` pairs over the dims of :func:`tiled_shape`. A slot
    with physical coordinates ``c`` (and position below ``math.prod(tiled_shape)``)
    holds data iff ``sum(c[j] * weight for j, weight in terms) < bound`` for
    every constraint. Constraints that always hold are omitted; an unpadded
    layout gives ``()``.

    Each constraint is one dimension of some intermediate shape (the logical
    dims, the prepended size-1 dims, and every dim produced by a tile) whose
    reconstructed coordinate must stay below that dimension's bound:

    >>> padding_constraints(Shape.parse("f32[3,5]{1,0:T(2,2)}"))
    ((((0, 2), (2, 1)), 3), (((1, 2), (3, 1)), 5))
    >>> padding_constraints(Shape.parse("f32[2,3]{0,1:PD(3,5)}"))
    ((((0, 1),), 3), (((1, 1),), 2))
    >>> padding_constraints(Shape.parse("bf16[20,300]{1,0:T(8,128)(2,1)}"))  # i0<20, i1<300
    ((((0, 8), (2, 2), (4, 1)), 20), (((1, 128), (3, 1), (5, 1)), 300))
    >>> tiled_shape(Shape.parse("f32[16]{0:T(8)(3)}"))   # 8 = 3+3+2: uneven sub-tile
    (2, 3, 3)
    >>> padding_constraints(Shape.parse("f32[16]{0:T(8)(3)}"))
    ((((1, 3), (2, 1)), 8),)

    Constraints implied by the others are left out (above, ``i_0 < 16`` follows
    from ``3*c[1] + c[2] < 8`` since ``c[0] < 2``).
    """
    return _array_plan(shape, "padding_constraints").constraints
