"""The FFT family (issue 18, xarr/_ops/fft.py on ducc0): fft of 2^22 c64 and rfft of 2^23
f32 (goal: 1.5x NumPy), fft2 of 2048^2 c64 (goal: 1.5x NumPy and 1.0x scipy.fft.fft2 with
workers=2, measured by benchmarks/compare.py), the inverse transforms, a transform along
a non-contiguous axis, lax.fft under xa.jit, and the small-call cost of a 64-point fft."""

import numpy as np

import xarr as xa

from .common import best_time


def _complex(shape, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


class Fft1D:
    params = [["fft", "ifft", "rfft", "irfft"]]
    param_names = ["fn"]
    timeout = 300

    def setup(self, fn):
        if fn == "rfft":
            self.a = np.random.default_rng(18).standard_normal(1 << 23).astype(np.float32)
        else:
            self.a = _complex(1 << 22, 18)
        self.t = xa.asarray(self.a, copy=True)
        self.np_fn, self.xa_fn = getattr(np.fft, fn), getattr(xa.fft, fn)

    def time_xarr(self, fn):
        self.xa_fn(self.t)

    def track_speedup_vs_numpy(self, fn):
        return best_time(lambda: self.np_fn(self.a), 3) / best_time(lambda: self.xa_fn(self.t), 3)

    track_speedup_vs_numpy.unit = "x"


class Fft2D(Fft1D):
    """The 2-D transforms of 2048^2 (rfft2 of its real part); timing as Fft1D's."""

    params = [["fft2", "ifft2", "rfft2"]]

    def setup(self, fn):
        self.a = _complex((2048, 2048), 19)
        if fn == "rfft2":
            self.a = np.ascontiguousarray(self.a.real)
        self.t = xa.asarray(self.a, copy=True)
        self.np_fn, self.xa_fn = getattr(np.fft, fn), getattr(xa.fft, fn)


class FftAxis0:
    """fft along axis 0 of 4096 x 1024 c64 and of its column-major copy (strided reads)."""

    params = [["row-major", "column-major"]]
    param_names = ["layout"]

    def setup(self, layout):
        a = _complex((4096, 1024), 20)
        self.t = xa.asarray(a, layout=(0, 1) if layout == "column-major" else None)

    def time_xarr(self, layout):
        xa.fft.fft(self.t, axis=0)


class LaxFftJit:
    def setup(self):
        self.t = xa.asarray(_complex((1024, 1024), 21))
        self.f = xa.jit(lambda v: xa.lax.fft(v, "FFT", (1024, 1024)))
        self.f(self.t)

    def time_xarr(self):
        self.f(self.t)


class FftSmallCall:
    def setup(self):
        self.t = xa.asarray(_complex(64, 22))

    def time_fft_64(self):
        xa.fft.fft(self.t)
