"""Memory stays flat in long loops (issue 11): 100k calls of each op family, resident set
size read every 10k calls after a warm-up. Each assertion message gives the growth per
10k calls. (Linux: /proc/self/statm.)"""

import os

import numpy as np
import pytest

import xarr as xa
from conftest import not_under_asan

pytestmark = [pytest.mark.skipif(not os.path.exists("/proc/self/statm"),
                                 reason="needs /proc/self/statm"), not_under_asan]

CALLS = 100_000
WARMUP = 10_000
# Allowed growth over the 100k calls: allocator and interpreter noise (free lists, the
# small-block cache, hypothesis-free steady state) stays well under this.
LIMIT_BYTES = 4 << 20


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def assert_flat(name, step, calls=CALLS):
    for _ in range(WARMUP):
        step()
    samples = []
    for k in range(calls):
        if k % 10_000 == 0:
            samples.append(rss())
        step()
    samples.append(rss())
    growth = samples[-1] - samples[0]
    per_10k = [(b - a) / 1024 for a, b in zip(samples, samples[1:])]
    assert growth <= LIMIT_BYTES, (
        f"{name}: RSS grew {growth / 1024:.0f} KiB over {calls} calls; per 10k calls (KiB): "
        f"{[round(v) for v in per_10k]}")


a = xa.asarray(np.arange(64.0).reshape(8, 8))
b = xa.asarray(np.linspace(-1.0, 1.0, 64).reshape(8, 8))
idx = xa.asarray(np.array([3, 1, 7]))
mask = a > 20
fused = xa.jit(lambda x, y: xa.exp(x * 0.01) + y * y)
static = xa.jit(lambda x, n: x * n, static_argnums=(1,))


def _lazy_step():
    with xa.lazy():
        y = a * 2.0 + b
    np.asarray(y)


def _setitem_step():
    c = a.copy()
    c[1:3, ::2] = 5.0
    c[idx] = b[idx]
    c[mask] = 0.0


FAMILIES = {
    "elementwise": lambda: xa.sin(a) + b * 2.0,
    "reduction": lambda: (a.sum(axis=0), b.max(), xa.argmax(a, axis=1)),
    "scan": lambda: xa.cumsum(a, axis=1),
    "basic indexing": lambda: (a[2, 3:], a[::2, ::-1], float(a[1, 1])),
    "advanced indexing": lambda: (a[idx], a[mask], xa.take(a, idx, axis=1)),
    "setitem": _setitem_step,
    "structural": lambda: (a.T.copy(), xa.concatenate([a, b]), a.reshape(4, 16),
                           xa.flip(a, 0)),
    "creation": lambda: (xa.zeros((8, 8)), xa.arange(64), xa.full((3,), 2.5)),
    "jit": lambda: fused(a, b),
    "jit static arguments (cache hits)": lambda: static(a, 3),
    "lazy": _lazy_step,
    "contraction": lambda: (a @ b, xa.einsum("ij,jk,kl->il", a, b, a), xa.dot(a, b[0]),
                            xa.lax.dot_general(a, b, (((0,), (1,)), ((), ())))),
    "dlpack / NumPy interop": lambda: (xa.from_dlpack(np.ones(4)), np.asarray(a)),
    "convolution and windows": lambda: (
        xa.lax.conv(a[None, None], b[None, None, :3, :3], (1, 1), "SAME"),
        xa.lax.conv_general_dilated(xa.concatenate([a[None, None]] * 2, axis=1),
                                    b[:6, :3].reshape(2, 1, 3, 3), (1, 1), "SAME",
                                    feature_group_count=2),
        xa.lax.reduce_window(a, -np.inf, xa.lax.max, (2, 2), (2, 2), "VALID"),
        xa.lax.select_and_scatter_add(a[::2, ::2], a, xa.lax.ge, (2, 2), (2, 2),
                                      ((0, 0), (0, 0))),
        xa.convolve(a[0], b[0, :3])),
    "fft (ducc0)": lambda: (xa.fft.fft(a, n=12), xa.fft.irfft2(xa.fft.rfft2(a[::-1])),
                            xa.lax.fft(a.astype(xa.complex64), "IFFT", (8,))),
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_rss_stays_flat(family):
    assert_flat(family, FAMILIES[family])
