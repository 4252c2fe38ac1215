"""Gather and scatter (issue 16): a random take of 4M out of 16M f32 through lax.gather and
NumPy's fancy indexing (the one random-take loop, csrc/kernels/indexing/index_blocks.h;
goal 1.2x jax.jit, tracked here against NumPy), an embedding lookup of 1M rows of 64 f32
out of 100k (goal 0.7 of copy bandwidth: GB/s), and scatter-add of 4M updates into 1M f32
(goal 2x NumPy's add.at); median and unique of 16M values, and a sort by a key-function
comparator."""

import numpy as np

import xarr as xa

from .common import best_time

L = xa.lax
_ONE = L.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
                                start_index_map=(0,))
_ROW = L.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                start_index_map=(0,))
_ADD = L.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                 scatter_dims_to_operand_dims=(0,))


class RandomTake:
    timeout = 300

    def setup(self):
        rng = np.random.default_rng(17)
        self.src = rng.random(16 * 1024 * 1024, dtype=np.float32)
        self.pick = rng.integers(0, self.src.size, 4 * 1024 * 1024)
        self.ts, self.tp = xa.asarray(self.src), xa.asarray(self.pick)
        self.tp2 = xa.asarray(self.pick[:, None])

    def time_lax_gather(self):
        L.gather(self.ts, self.tp2, _ONE, (1,))

    def time_fancy_index(self):
        self.ts[self.tp]

    def track_speedup_vs_numpy(self):
        return (best_time(lambda: self.src[self.pick], 3)
                / best_time(lambda: L.gather(self.ts, self.tp2, _ONE, (1,)), 5))

    track_speedup_vs_numpy.unit = "x"


class EmbeddingLookup:
    def setup(self):
        rng = np.random.default_rng(18)
        self.table = xa.asarray(rng.random((100_000, 64), dtype=np.float32))
        self.rows = xa.asarray(rng.integers(0, 100_000, (1_000_000, 1)))

    def time_xarr(self):
        L.gather(self.table, self.rows, _ROW, (1, 64))

    def track_gb_per_s(self):
        moved = 2 * self.rows.shape[0] * 64 * 4      # rows read + written
        return moved / best_time(lambda: L.gather(self.table, self.rows, _ROW, (1, 64)),
                                 5) / 1e9

    track_gb_per_s.unit = "GB/s"


class ScatterAdd:
    def setup(self):
        rng = np.random.default_rng(19)
        self.dest = np.zeros(1 << 20, np.float32)
        self.where = rng.integers(0, self.dest.size, 4 * 1024 * 1024)
        self.upd = rng.random(self.where.size, dtype=np.float32)
        self.td, self.tw, self.tu = (xa.asarray(self.dest), xa.asarray(self.where[:, None]),
                                     xa.asarray(self.upd))

    def time_xarr(self):
        L.scatter_add(self.td, self.tw, self.tu, _ADD)

    def track_speedup_vs_numpy_add_at(self):
        def numpy_add_at():
            out = self.dest.copy()
            np.add.at(out, self.where, self.upd)
        return (best_time(numpy_add_at, 3)
                / best_time(lambda: L.scatter_add(self.td, self.tw, self.tu, _ADD), 5))

    track_speedup_vs_numpy_add_at.unit = "x"


class OrderStatistics:
    timeout = 300

    def setup(self):
        rng = np.random.default_rng(20)
        self.a = rng.random(16 * 1024 * 1024, dtype=np.float32)
        self.ints = rng.integers(0, 1 << 20, 16 * 1024 * 1024).astype(np.int32)
        self.ta, self.ti = xa.asarray(self.a), xa.asarray(self.ints)

    def time_median(self):
        xa.median(self.ta)

    def time_unique(self):
        xa.unique(self.ti)

    def track_median_speedup_vs_numpy(self):
        return best_time(lambda: np.median(self.a), 2) / best_time(lambda: xa.median(self.ta), 3)

    track_median_speedup_vs_numpy.unit = "x"


class KeyComparatorSort:
    """lax.sort with comparator lt(|l - 0.5|, |r - 0.5|): the keys computed once and
    sorted on the kernels (the comparison network took 1.6 s for this)."""

    def setup(self):
        self.t = xa.asarray(np.random.default_rng(21).random(1 << 20, dtype=np.float32))

    def time_xarr(self):
        L.sort(self.t, comparator=lambda x, y: L.lt(L.abs(x - 0.5), L.abs(y - 0.5)))
