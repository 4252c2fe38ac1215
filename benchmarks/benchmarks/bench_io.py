"""File I/O (xarr/_numpy/io.py): save / load of a 256 MB f32 tensor in .npy, against
np.save / np.load, row-major and column-major, and a strided view written in pieces. The
file lives in the temporary directory; the page cache usually holds it, so these measure
the copy path between the tensor's memory and the kernel (docs: the disk's own bandwidth
is measured against dd in the issue's report)."""

import os
import tempfile

import numpy as np

import xarr as xa

from .common import best_time, floats

N = 64 * 1024 * 1024            # 256 MB of f32


class SaveLoad:
    params = [["c", "colmajor"]]
    param_names = ["layout"]
    timeout = 300

    def setup(self, layout):
        m = floats(N, np.float32, 21).reshape(8192, 8192)
        self.a = m if layout == "c" else np.asfortranarray(m)
        self.t = xa.asarray(m, layout=None if layout == "c" else (0, 1))
        fd, self.path = tempfile.mkstemp(suffix=".npy")
        os.close(fd)
        np.save(self.path, self.a)

    def teardown(self, layout):
        os.unlink(self.path)

    def time_xarr_save(self, layout):
        xa.save(self.path, self.t)

    def time_numpy_save(self, layout):
        np.save(self.path, self.a)

    def time_xarr_load(self, layout):
        xa.load(self.path)

    def time_numpy_load(self, layout):
        np.load(self.path)

    def track_xarr_load_gbytes_per_s(self, layout):
        return self.a.nbytes / best_time(lambda: xa.load(self.path), 3) / 1e9

    track_xarr_load_gbytes_per_s.unit = "GB/s"

    def track_load_speedup_vs_numpy(self, layout):
        return (best_time(lambda: np.load(self.path), 3)
                / best_time(lambda: xa.load(self.path), 3))

    track_load_speedup_vs_numpy.unit = "x"

    def track_save_speedup_vs_numpy(self, layout):
        return (best_time(lambda: np.save(self.path, self.a), 3)
                / best_time(lambda: xa.save(self.path, self.t), 3))

    track_save_speedup_vs_numpy.unit = "x"


class SaveStrided:
    """A negative-step view: written in pieces of 16 MB (NumPy copies it whole)."""
    timeout = 300

    def setup(self):
        m = floats(N, np.float32, 22).reshape(8192, 8192)
        self.a = m[::-1]
        self.t = xa.asarray(m)[::-1]
        fd, self.path = tempfile.mkstemp(suffix=".npy")
        os.close(fd)

    def teardown(self):
        os.unlink(self.path)

    def time_xarr_save(self):
        xa.save(self.path, self.t)

    def time_numpy_save(self):
        np.save(self.path, self.a)
