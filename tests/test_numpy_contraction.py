"""NumPy's contractions on xarr (xarr/_numpy/contraction.py): matmul / @ with batch
broadcasting, dot, vdot, inner, outer, tensordot, kron, vecdot, trace, diagonal, einsum
(random subscripts with hypothesis against numpy.einsum), einsum_path, the Array API
linalg members; eager, under xa.jit and in xa.lazy; errors naming the function."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xarr as xa
from conftest import make_tensor

RNG = np.random.default_rng(0)


def _rand(shape, dt=np.float64):
    x = RNG.standard_normal(shape)
    if np.dtype(dt).kind == "c":
        x = x + 1j * RNG.standard_normal(shape)
    if np.dtype(dt).kind in "iu":
        x = RNG.integers(-9, 10, shape)
    return x.astype(dt)


def _same(got, want, rtol=1e-10):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * 10)
    else:
        np.testing.assert_array_equal(got, want)


MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                 ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)),
                 ((1, 2, 3), (5, 3, 4)), ((6, 1, 2, 3), (5, 3, 4)), ((5, 2, 3), (3,)),
                 ((3,), (5, 3, 4)), ((0, 2, 3), (3, 4)), ((2, 0), (0, 4))]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
@pytest.mark.parametrize("dt", [np.float64, np.float32, np.complex128, np.int64, np.int32])
def test_matmul_like_numpy(sa, sb, dt):
    a, b = _rand(sa, dt), _rand(sb, dt)
    rtol = 1e-5 if dt == np.float32 else 1e-10
    _same(xa.matmul(a, b), np.matmul(a, b), rtol)
    _same(xa.asarray(a) @ xa.asarray(b), a @ b, rtol)
    _same(xa.jit(lambda x, y: x @ y)(xa.asarray(a), xa.asarray(b)), a @ b, rtol)


def test_matmul_mixed_dtypes_and_operators():
    a, b = _rand((3, 4), np.float32), _rand((4, 2), np.int64)
    _same(xa.matmul(a, b), a @ b)
    _same(a @ xa.asarray(b), a @ b)        # __rmatmul__
    t = xa.asarray(_rand((3, 3)))
    u = _rand((3, 3))
    want = np.asarray(t) @ u
    t @= xa.asarray(u)
    _same(t, want)


@pytest.mark.parametrize("how", ["c", "colmajor", "transposed", "step", "negstep", "tiled"])
def test_matmul_layouts(how):
    a, b = _rand((7, 9)), _rand((9, 5))
    _same(xa.matmul(make_tensor(a, how), make_tensor(b, how)), a @ b)


def test_matmul_errors():
    with pytest.raises(ValueError, match=r"matmul: contracted dims differ.*\(2, 3\) @ \(4, 5\)"):
        xa.matmul(xa.ones((2, 3)), xa.ones((4, 5)))
    with pytest.raises(ValueError, match="matmul: batch dims do not broadcast"):
        xa.matmul(xa.ones((2, 2, 3)), xa.ones((3, 3, 5)))
    with pytest.raises(ValueError, match="matmul: operands must not be scalars"):
        xa.matmul(xa.ones(()), xa.ones((3,)))


@pytest.mark.parametrize("sa,sb", [((), (3,)), ((3,), (3,)), ((2, 3), (3,)),
                                   ((2, 3), (3, 4)), ((2, 5, 3), (4, 3, 6)),
                                   ((2, 5, 3), (3,))])
def test_dot(sa, sb):
    a, b = _rand(sa), _rand(sb)
    _same(xa.dot(a, b), np.dot(a, b))
    if a.ndim:
        _same(xa.asarray(a).dot(b), a.dot(b))


def test_dot_errors():
    with pytest.raises(ValueError, match=r"dot: shapes \(2, 3\) and \(4,\) not aligned"):
        xa.dot(xa.ones((2, 3)), xa.ones(4))


def test_vdot_inner_outer():
    a, b = _rand((3, 4), np.complex128), _rand((3, 4), np.complex128)
    _same(xa.vdot(a, b), np.asarray(np.vdot(a, b)))
    x, y = _rand((2, 3, 4)), _rand((5, 4))
    _same(xa.inner(x, y), np.inner(x, y))
    _same(xa.inner(2.0, y), np.inner(2.0, y))
    _same(xa.outer(x, y), np.outer(x, y))
    with pytest.raises(ValueError, match="inner: last dims differ"):
        xa.inner(xa.ones(3), xa.ones(4))


@pytest.mark.parametrize("sb,axes", [((2, 3), 0), ((5, 2), 1), ((4, 5, 6), 2),
                                     ((4, 3, 5), ([1, 0], [0, 1])), ((5, 2), ([2], [0])),
                                     ((4, 2), (1, 0)), ((5, 4), ([-1, -2], [0, 1]))])
def test_tensordot(sb, axes):
    a, b = _rand((3, 4, 5)), _rand(sb)
    _same(xa.tensordot(a, b, axes), np.tensordot(a, b, axes))
    _same(xa.linalg.tensordot(a, b, axes=axes), np.tensordot(a, b, axes))


def test_tensordot_errors():
    with pytest.raises(ValueError, match="tensordot: shape mismatch"):
        xa.tensordot(xa.ones((2, 3)), xa.ones((2, 3)), axes=([0], [1]))
    with pytest.raises(ValueError, match="tensordot: axis 5 is out of bounds"):
        xa.tensordot(xa.ones((2, 3)), xa.ones((2, 3)), axes=([5], [0]))


@pytest.mark.parametrize("sa,sb", [((2,), (3,)), ((2, 2), (3, 3)), ((2, 3), (4,)),
                                   ((2, 1, 3), (2, 2))])
def test_kron(sa, sb):
    a, b = _rand(sa, np.int64), _rand(sb, np.int64)
    _same(xa.kron(a, b), np.kron(a, b))


def test_vecdot_and_linalg():
    a, b = _rand((4, 1, 3), np.complex128), _rand((5, 3), np.complex128)
    _same(xa.vecdot(a, b), np.vecdot(a, b))
    _same(xa.linalg.vecdot(a, b, axis=-1), np.vecdot(a, b))
    x = _rand((2, 4, 4))
    _same(xa.linalg.trace(x), np.trace(x, axis1=-2, axis2=-1))
    _same(xa.linalg.trace(x, offset=1), np.trace(x, offset=1, axis1=-2, axis2=-1))
    _same(xa.linalg.matmul(x, x), x @ x)
    _same(xa.linalg.outer(x[0, 0], x[1, 1]), np.outer(x[0, 0], x[1, 1]))
    _same(xa.linalg.matrix_transpose(x), np.swapaxes(x, -1, -2))
    with pytest.raises(ValueError, match="linalg.outer: x1 must be 1-D"):
        xa.linalg.outer(x, x[0, 0])


@pytest.mark.parametrize("offset", [-2, -1, 0, 1, 3])
def test_trace_and_diagonal(offset):
    x = _rand((3, 4, 5), np.int32)
    _same(xa.diagonal(x, offset, 0, 2), np.diagonal(x, offset, 0, 2))
    _same(xa.diagonal(x, offset, 2, 1), np.diagonal(x, offset, 2, 1))
    _same(xa.trace(x, offset), np.trace(x, offset))
    _same(xa.asarray(x).trace(offset, 1, 2), x.trace(offset, 1, 2))


# ------------------------------------------------------------------------ einsum
EINSUMS = [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]), ("ii", [(4, 4)]),
    ("ii->i", [(4, 4)]), ("ij->ji", [(3, 4)]), ("ij->", [(3, 4)]), ("i,i", [(5,), (5,)]),
    ("i,j->ij", [(2,), (3,)]), ("bij,bkj->bik", [(2, 3, 4), (2, 5, 4)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]), ("i...->...", [(3, 2, 4)]),
    ("ij,jk,kl->il", [(10, 3), (3, 10), (10, 2)]), ("iij->j", [(3, 3, 4)]),
    ("ijk,ikl,lm->jm", [(2, 3, 4), (2, 4, 5), (5, 2)]), ("a,b,c,d->abcd", [(2,), (3,), (1,), (2,)]),
    (",i->i", [(), (3,)]), ("ij,j->i", [(3, 1), (4,)]), ("Ab,bc->Ac", [(2, 3), (3, 2)]),
    ("ijj,kj->ik", [(2, 3, 3), (4, 3)]),
]


@pytest.mark.parametrize("spec,shapes", EINSUMS)
@pytest.mark.parametrize("dt", [np.float64, np.complex128, np.int32])
def test_einsum_like_numpy(spec, shapes, dt):
    ops = [_rand(s, dt) for s in shapes]
    want = np.einsum(spec, *ops)
    _same(xa.einsum(spec, *ops), np.asarray(want))
    _same(xa.jit(lambda *xs: xa.einsum(spec, *xs))(*[xa.asarray(o) for o in ops]),
          np.asarray(want))


def test_einsum_sublist_form_and_bool():
    a, b = _rand((3, 4)), _rand((4, 5))
    _same(xa.einsum(a, [0, 1], b, [1, 2], [0, 2]), np.einsum(a, [0, 1], b, [1, 2], [0, 2]))
    _same(xa.einsum(a, [0, Ellipsis]), np.einsum(a, [0, Ellipsis]))
    p = RNG.integers(0, 2, (3, 4)).astype(bool)
    q = RNG.integers(0, 2, (4, 2)).astype(bool)
    _same(xa.einsum("ij,jk->ik", p, q), np.einsum("ij,jk->ik", p, q))


def test_einsum_path_matches_numpy_order():
    a, b, c = _rand((100, 10)), _rand((10, 100)), _rand((100, 10))
    path, report = xa.einsum_path("ij,jk,kl->il", a, b, c)
    assert path == np.einsum_path("ij,jk,kl->il", a, b, c, optimize="greedy")[0]
    assert "Optimized FLOP count" in report
    path = xa.einsum_path("ij,jk,kl->il", a, b, c, optimize="optimal")[0]
    assert path == ["einsum_path", (1, 2), (0, 1)]
    _same(xa.einsum("ij,jk,kl->il", a, b, c, optimize=path), np.einsum("ij,jk,kl->il", a, b, c))


@pytest.mark.parametrize("spec,shapes,match", [
    ("ij,jk->ik", [(2, 3), (4, 5)], "subscript 'j' has sizes 3 and 4"),
    ("ij->ii", [(2, 2)], "output subscript 'i' repeats"),
    ("ij->k", [(2, 2)], "output subscript 'k' appears in no operand"),
    ("ij,jk", [(2, 3)], "name 2 operand"),
    ("ijk", [(2, 3)], "operand 0 has 2 dims"),
    ("...ij->ij", [(2, 3, 4)], "no '...'"),
    ("i.j", [(2, 3)], "misplaced"),
    ("i1", [(2, 3)], "not a letter"),
])
def test_einsum_errors(spec, shapes, match):
    with pytest.raises(ValueError, match=match):
        xa.einsum(spec, *[np.ones(s) for s in shapes])


_LABELS = "abcdef"


@st.composite
def einsum_cases(draw):
    sizes = {c: draw(st.integers(1, 4)) for c in _LABELS}
    n_ops = draw(st.integers(1, 4))
    terms = []
    for _ in range(n_ops):
        rank = draw(st.integers(0, 3))
        terms.append("".join(draw(st.lists(st.sampled_from(_LABELS), min_size=rank,
                                           max_size=rank))))
    used = sorted(set("".join(terms)))
    out = draw(st.permutations(used)) if used else []
    out = "".join(out[:draw(st.integers(0, len(used)))])
    spec = ",".join(terms) + "->" + out
    shapes = [tuple(sizes[c] for c in t) for t in terms]
    return spec, shapes


@settings(max_examples=60, deadline=None)
@given(case=einsum_cases(), seed=st.integers(0, 2 ** 16))
def test_einsum_random_subscripts(case, seed):
    spec, shapes = case
    rng = np.random.default_rng(seed)
    ops = [rng.standard_normal(s) for s in shapes]
    want = np.einsum(spec, *ops)
    np.testing.assert_allclose(np.asarray(xa.einsum(spec, *ops)), want, rtol=1e-9,
                               atol=1e-9)


def test_lazy_einsum_and_matmul():
    a, b = _rand((4, 5)), _rand((5, 6))
    with xa.lazy():
        x = xa.einsum("ij,jk->ik", xa.asarray(a), xa.asarray(b)) + 1.0
        y = xa.asarray(a) @ xa.asarray(b)
    _same(x, a @ b + 1.0)
    _same(y, a @ b)
