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


@pytest.mark.parametrize("dtype", [np.uint8, np.float64])
def test_contiguous_copies_at_every_small_offset(dtype):
    # core/copy_bytes.h: a contiguous copy whose destination is 1-63 bytes ahead of its
    # source modulo 4 KiB takes a vector loop instead of memcpy. Destinations and sources
    # at every offset 0..71 elements into two buffers of one page alignment hit that band
    # and the plain memcpy, with lengths around the loop's 1 KiB minimum and its 64-byte
    # steps. (float64 reaches the loop: a mutation of its tail failed this test; the uint8
    # case checks the other copies at byte offsets.)
    rng = np.random.default_rng(4)
    n_max = 5000
    src_np = rng.integers(0, 255, n_max + 80).astype(dtype)
    src = xa.asarray(src_np)
    for n in (1023, 1024, 1089, 4999):
        for k in range(72):
            big = xa.zeros(n_max + 80, dtype)
            big[k:k + n] = src[3:3 + n]
            want = np.zeros(n_max + 80, dtype)
            want[k:k + n] = src_np[3:3 + n]
            np.testing.assert_array_equal(to_np(big), want)
            np.testing.assert_array_equal(to_np(src[k:k + n].copy()), src_np[k:k + n])
