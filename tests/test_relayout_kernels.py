"""The strided-copy (relayout) kernel: every transpose-panel ISA against the scalar
reference, 1 vs 2 threads, every element width, sizes below/at/above the 16x16 / 8x8 tiles,
non-contiguous sources, and values against NumPy."""

import numpy as np
import pytest

import xarr as xa
from conftest import to_np

CORE = xa._core
WIDTHS = {1: np.uint8, 2: np.uint16, 4: np.float32, 8: np.float64, 16: np.complex128}
SHAPES = [(1, 1), (7, 9), (8, 8), (16, 16), (17, 33), (64, 5), (130, 70), (3, 40, 24)]


def _copy_to_column_major(src, isa):
    """Copies NumPy array ``src`` into a fresh column-major array with the kernel."""
    dst = np.zeros(src.shape, src.dtype, order="F")
    CORE.copy_strided(src.itemsize, list(src.shape), src.ctypes.data, list(src.strides),
                      dst.ctypes.data, list(dst.strides), isa)
    return dst


@pytest.mark.parametrize("isa", CORE.supported_isas())
@pytest.mark.parametrize("width", sorted(WIDTHS))
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_transpose_copy_each_isa_matches_numpy(isa, width, shape):
    rng = np.random.default_rng(width * 1000 + len(shape))
    src = rng.integers(0, 255, size=shape).astype(WIDTHS[width])
    dst = _copy_to_column_major(src, isa)
    np.testing.assert_array_equal(dst, src)


@pytest.mark.parametrize("isa", CORE.supported_isas())
def test_copy_from_non_contiguous_source(isa):
    rng = np.random.default_rng(5)
    base = rng.random((50, 70), dtype=np.float32)
    for src in (base[::2, ::3], base[::-1, 5:], base.T[3:40, ::-2]):
        dst = _copy_to_column_major(src, isa)
        np.testing.assert_array_equal(dst, src)


@pytest.mark.parametrize("dtype", [xa.float32, xa.float64, xa.int16, xa.complex64])
def test_relayout_threads_are_bitwise_identical(dtype, restore_threads):
    rng = np.random.default_rng(11)
    a = xa.asarray((rng.random((600, 700)) * 100).astype(dtype))
    results = []
    for n in (1, 2):
        xa.set_num_threads(n)
        results.append(to_np(a.relayout((0, 1))).copy())
        results.append(to_np(a.T.relayout((1, 0))).copy())
    np.testing.assert_array_equal(results[0], results[2])
    np.testing.assert_array_equal(results[1], results[3])
    np.testing.assert_array_equal(results[0], to_np(a))
    np.testing.assert_array_equal(results[1], to_np(a).T)


def test_large_transpose_streaming_path_is_correct():
    # >= 8 MiB of output with aligned rows takes the streaming-store path.
    a = np.arange(2048 * 1536, dtype=np.float32).reshape(2048, 1536)
    t = xa.asarray(a).relayout((0, 1))
    assert t.xla_shape.layout.minor_to_major == (0, 1)
    np.testing.assert_array_equal(to_np(t), a)
    np.testing.assert_array_equal(to_np(t.storage()), a.T.ravel())


def test_copy_strided_rejects_mismatched_ranks():
    with pytest.raises(ValueError, match="one entry per dim"):
        CORE.copy_strided(4, [2, 3], 0, [12], 0, [4, 8], "")


def test_copy_strided_rejects_unknown_isa():
    a = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match="unknown ISA"):
        CORE.copy_strided(4, [4], a.ctypes.data, [4], a.ctypes.data, [4], "sse9")
