"""Windowed ops (issue 15): convolutions (3x3 stride 1 NCHW by Winograd F(2x2, 3x3), the
others as implicit GEMMs: 3x3 SAME in NCHW and NHWC, 1x1, strided 3x3/2, depthwise,
transposed), pooling and window sums with reduce_window, the max-pool gradient
select_and_scatter_add, and batch norm, on the issue's shapes (16 x 64 x 56 x 56 f32 for
convs and batch norm, 16 x 64 x 112 x 112 for pools). Ratios are measured in the same
process: a 1x1 convolution against the GEMM engine's rate on the same product, pools
against a copy of their input."""

import numpy as np

import xarr as xa

from .common import best_time, per_call, rng

lax = xa.lax
N, C, H, W = 16, 64, 56, 56
CONVS = {
    "3x3": dict(w=(64, 64, 3, 3), strides=(1, 1), padding="SAME"),
    "1x1": dict(w=(64, 64, 1, 1), strides=(1, 1), padding="VALID"),
    "3x3/2": dict(w=(64, 64, 3, 3), strides=(2, 2), padding=((1, 1), (1, 1))),
    "depthwise": dict(w=(64, 1, 3, 3), strides=(1, 1), padding="SAME", groups=64),
    "transposed": dict(w=(64, 64, 3, 3), strides=(1, 1), padding=((1, 2), (1, 2)),
                       lhs_dilation=(2, 2)),
}


def _flops(name, out_shape):
    spec = CONVS[name]
    o, i, kh, kw = spec["w"]
    return 2.0 * np.prod(out_shape) * i * kh * kw


class Conv2d:
    """lax.conv_general_dilated on 16 x 64 x 56 x 56 f32, NCHW / OIHW or NHWC / HWIO."""
    params = [list(CONVS), ["NCHW", "NHWC"]]
    param_names = ["conv", "layout"]
    timeout = 300

    def setup(self, conv, layout):
        spec = CONVS[conv]
        g = rng(30)
        x = g.standard_normal((N, C, H, W)).astype(np.float32)
        w = g.standard_normal(spec["w"]).astype(np.float32)
        if layout == "NHWC":
            x, w = x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0)
            dn = ("NHWC", "HWIO", "NHWC")
        else:
            dn = ("NCHW", "OIHW", "NCHW")
        self.x, self.w = xa.asarray(np.ascontiguousarray(x)), xa.asarray(np.ascontiguousarray(w))
        self.run = lambda: lax.conv_general_dilated(
            self.x, self.w, spec["strides"], spec["padding"], spec.get("lhs_dilation"),
            dimension_numbers=dn, feature_group_count=spec.get("groups", 1))
        self.flops = _flops(conv, self.run().shape)

    def time_conv(self, conv, layout):
        self.run()

    def track_gflops(self, conv, layout):
        return self.flops / best_time(self.run) / 1e9

    track_gflops.unit = "GFLOP/s"


class Conv1x1FractionOfGemm:
    """A 1x1 NHWC convolution's time over the same product as a plain matmul (issue 15:
    the convolution at least 0.9 of the GEMM engine's rate)."""
    timeout = 300

    def setup(self):
        g = rng(31)
        x = g.standard_normal((N, H, W, C)).astype(np.float32)
        w = g.standard_normal((1, 1, C, 64)).astype(np.float32)
        self.x, self.w = xa.asarray(x), xa.asarray(w)
        self.a, self.b = xa.asarray(x.reshape(-1, C)), xa.asarray(w.reshape(C, 64))

    def track_fraction_of_gemm_rate(self):
        conv = best_time(lambda: lax.conv_general_dilated(
            self.x, self.w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")))
        return best_time(lambda: self.a @ self.b) / conv

    track_fraction_of_gemm_rate.unit = "x"


class Pool:
    """Max / average (sum) pools over 16 x 64 x 112 x 112 f32 NCHW with lax.reduce_window,
    and the max pool's gradient (select_and_scatter_add)."""
    params = [["max2x2/2", "max3x3/2", "avg2x2/2", "max2x2/2-grad"]]
    param_names = ["pool"]
    timeout = 300

    def setup(self, pool):
        x = rng(32).standard_normal((N, C, 112, 112)).astype(np.float32)
        self.x = xa.asarray(x)
        win = (1, 1, 3, 3) if pool.startswith("max3x3") else (1, 1, 2, 2)
        st = (1, 1, 2, 2)
        pads = ((0, 0), (0, 0), (1, 1), (1, 1)) if pool.startswith("max3x3") else "VALID"
        if pool.endswith("grad"):
            src = xa.asarray(rng(33).standard_normal((N, C, 56, 56)).astype(np.float32))
            self.run = lambda: lax.select_and_scatter_add(src, self.x, lax.ge, win, st,
                                                          ((0, 0),) * 4)
        elif pool.startswith("avg"):
            self.run = lambda: lax.reduce_window(self.x, np.float32(0), lax.add, win, st,
                                                 pads) * np.float32(0.25)
        else:
            self.run = lambda: lax.reduce_window(self.x, -np.inf, lax.max, win, st, pads)

    def time_pool(self, pool):
        self.run()

    def track_fraction_of_copy_bandwidth(self, pool):
        """(input + output bytes) / pool time over (2 x input bytes) / copy time."""
        out = self.run()
        moved = self.x.nbytes + out.nbytes
        return (moved / best_time(self.run)) / (2 * self.x.nbytes / best_time(self.x.copy))

    track_fraction_of_copy_bandwidth.unit = "x"


class WindowSum:
    """Window sums over 16 x 64 x 112 x 112 f32 (reduce_window add, stride 1, SAME): a 3x3
    (the separable row and column passes) and a 15x15 (the running column sum)."""
    params = [[3, 15]]
    param_names = ["window"]
    timeout = 300

    def setup(self, window):
        self.x = xa.asarray(rng(34).standard_normal((N, C, 112, 112)).astype(np.float32))
        win = (1, 1, window, window)
        self.run = lambda: lax.reduce_window(self.x, np.float32(0), lax.add, win,
                                             (1, 1, 1, 1), "SAME")

    def time_window_sum(self, window):
        self.run()


class BatchNorm:
    """lax.batch_norm_training and batch_norm_grad on 16 x 64 x 56 x 56 f32 NCHW (two
    passes each: the per-feature sums, then one fused elementwise pass)."""
    params = [["training", "grad"]]
    param_names = ["op"]
    timeout = 300

    def setup(self, op):
        g = rng(35)
        x = xa.asarray(g.standard_normal((N, C, H, W)).astype(np.float32))
        dy = xa.asarray(g.standard_normal((N, C, H, W)).astype(np.float32))
        ones, zeros = xa.ones((C,), np.float32), xa.zeros((C,), np.float32)
        _, mean, var = lax.batch_norm_training(x, ones, zeros, 1e-5, 1)
        if op == "training":
            self.run = lambda: lax.batch_norm_training(x, ones, zeros, 1e-5, 1)
        else:
            self.run = lambda: lax.batch_norm_grad(x, ones, mean, var, dy, 1e-5, 1)

    def time_batch_norm(self, op):
        self.run()


class Convolve:
    """xa.convolve against numpy.convolve on f64 signals, from a loop-sized call (100
    samples) to a long one (1M): the direct path's per-call cost and the depthwise
    kernel's rows in parts. The ratio is NumPy's time over xarr's, same process."""
    params = [[100, 10_000, 1_000_000], [5, 51]]
    param_names = ["samples", "taps"]
    timeout = 300

    def setup(self, samples, taps):
        g = rng(36)
        self.a, self.v = g.standard_normal(samples), g.standard_normal(taps)
        self.xa_a, self.xa_v = xa.asarray(self.a), xa.asarray(self.v)

    def time_convolve(self, samples, taps):
        xa.convolve(self.xa_a, self.xa_v)

    def track_speedup_vs_numpy(self, samples, taps):
        calls = max(3, 1_000_000 // (samples * taps))   # loops of about 1M multiply-adds
        return per_call(lambda: np.convolve(self.a, self.v), calls) / \
            per_call(lambda: xa.convolve(self.xa_a, self.xa_v), calls)

    track_speedup_vs_numpy.unit = "x"
