"""The contraction engine (issue 12): GFLOP/s of square and skinny GEMMs in f32 / f64,
operands in {0,1} and transposed views, batched small products, einsum, matrix-vector
bandwidth, the fused jit relu(x @ w + b), and the NumPy (OpenBLAS) ratios measured in the
same process."""

import numpy as np

import xarr as xa

from .common import best_time, rng

SHAPES = {"128^3": (128, 128, 128), "512^3": (512, 512, 512), "2048^3": (2048, 2048, 2048),
          "4096x64x4096": (4096, 64, 4096), "64x4096x64": (64, 4096, 64)}


def _operands(m, k, n, dtype, seed=20):
    g = rng(seed)
    return g.random((m, k)).astype(dtype), g.random((k, n)).astype(dtype)


class Gemm:
    """C = A @ B, m x k x n (``shape``), both row-major."""
    params = [list(SHAPES), ["float32", "float64"]]
    param_names = ["shape", "dtype"]
    timeout = 300

    def setup(self, shape, dtype):
        m, k, n = SHAPES[shape]
        self.flops = 2.0 * m * k * n
        self.a, self.b = _operands(m, k, n, dtype)
        self.xa_a, self.xa_b = xa.asarray(self.a, copy=True), xa.asarray(self.b, copy=True)

    def time_xarr(self, shape, dtype):
        self.xa_a @ self.xa_b

    def time_numpy(self, shape, dtype):
        self.a @ self.b

    def track_gflops(self, shape, dtype):
        return self.flops / best_time(lambda: self.xa_a @ self.xa_b) / 1e9

    def track_speedup_vs_numpy(self, shape, dtype):
        return best_time(lambda: self.a @ self.b) / best_time(lambda: self.xa_a @ self.xa_b)

    track_gflops.unit = "GFLOP/s"
    track_speedup_vs_numpy.unit = "x"


class GemmPeakFraction:
    """One thread's 2048^3 GEMM rate over the micro-kernel's own rate on L1-resident
    panels (xarr._bindings.gemm.kernel_rate, the same thread): the share of the kernel's
    peak that blocking, packing and C traffic leave (goal >= 0.85)."""
    params = [["float32", "float64"]]
    param_names = ["dtype"]
    timeout = 300

    def setup(self, dtype):
        self.a, self.b = (xa.asarray(v, copy=True) for v in _operands(2048, 2048, 2048, dtype))
        self.threads = xa.get_num_threads()
        xa.set_num_threads(1)

    def teardown(self, dtype):
        xa.set_num_threads(self.threads)

    def track_fraction_of_kernel_peak(self, dtype):
        from xarr._bindings.gemm import kernel_rate  # (asv collects without running it)
        from xarr._dtypes import dtype_code
        peak = kernel_rate(dtype_code(np.dtype(dtype)), seconds=0.3)
        return 2.0 * 2048 ** 3 / best_time(lambda: self.a @ self.b) / peak

    track_fraction_of_kernel_peak.unit = "x"


class GemmLowPrecision:
    """2048^3 lax.dot of int8 operands into s32 and of bf16 operands into f32: the
    k-grouped kernels (AMX, AVX512-VNNI, AVX512-BF16; csrc/kernels/gemm/gemm.h) where the
    CPU has them. track_ratio_to_sgemm: the rate over f32 matmul's of the same size (goals:
    int8 >= 2, bf16 >= 1.5); ``amx`` off measures the AVX-512 kernels."""
    params = [["int8", "bfloat16"], [True, False]]
    param_names = ["dtype", "amx"]
    timeout = 300

    def setup(self, dtype, amx):
        import ml_dtypes  # (imports here: asv collects this file without running them)
        from xarr._bindings.gemm import use_amx

        from xarr._bindings.gemm import grouped_kernel
        from xarr._dtypes import CODE_OF

        bf16 = CODE_OF[np.dtype(ml_dtypes.bfloat16)]
        kernel = grouped_kernel(CODE_OF[np.dtype(np.float32)], bf16, bf16)
        if amx and not (kernel and "amx" in kernel[0]):
            raise NotImplementedError("no AMX here")  # (asv skips the case)
        g = rng(24)
        n = 2048
        if dtype == "int8":
            a, b = (g.integers(-128, 128, (n, n)).astype(np.int8) for _ in range(2))
            self.out = np.int32
        else:
            a, b = (g.standard_normal((n, n)).astype(ml_dtypes.bfloat16) for _ in range(2))
            self.out = np.float32
        self.a, self.b = xa.asarray(a), xa.asarray(b)
        self.a32, self.b32 = (xa.asarray(g.random((n, n)).astype(np.float32)) for _ in range(2))
        self.before = use_amx(amx)

    def teardown(self, dtype, amx):
        from xarr._bindings.gemm import use_amx

        use_amx(self.before)

    def _dot(self):
        return xa.lax.dot(self.a, self.b, preferred_element_type=self.out)

    def time_xarr(self, dtype, amx):
        self._dot()

    def track_ratio_to_sgemm(self, dtype, amx):
        return best_time(lambda: self.a32 @ self.b32) / best_time(self._dot)

    track_ratio_to_sgemm.unit = "x"


class GemmLayouts:
    """2048^3 f32 with A in {0,1}, or A a transposed view: the ratio to the {1,0} time
    (the packing reads any strides; goal >= 0.95)."""
    params = [["{0,1}", "transposed view"]]
    param_names = ["a_storage"]
    timeout = 300

    def setup(self, how):
        a, b = _operands(2048, 2048, 2048, np.float32)
        self.row = xa.asarray(a, copy=True)
        self.b = xa.asarray(b, copy=True)
        self.other = xa.asarray(a, layout=(0, 1)) if how == "{0,1}" else \
            xa.asarray(np.ascontiguousarray(a.T), copy=True).T

    def time_xarr(self, how):
        self.other @ self.b

    def track_ratio_to_row_major(self, how):
        return best_time(lambda: self.row @ self.b) / best_time(lambda: self.other @ self.b)

    track_ratio_to_row_major.unit = "x"


class Batched:
    """4096 x (32x32 @ 32x32) f32 as matmul and as einsum('bij,bkj->bik')."""
    params = [["matmul", "einsum"]]
    param_names = ["form"]

    def setup(self, form):
        g = rng(21)
        self.a = g.random((4096, 32, 32)).astype(np.float32)
        self.b = g.random((4096, 32, 32)).astype(np.float32)
        self.xa_a, self.xa_b = xa.asarray(self.a, copy=True), xa.asarray(self.b, copy=True)
        if form == "matmul":
            self.np_fn = lambda: np.matmul(self.a, self.b)
            self.xa_fn = lambda: xa.matmul(self.xa_a, self.xa_b)
        else:
            self.np_fn = lambda: np.einsum("bij,bkj->bik", self.a, self.b)
            self.xa_fn = lambda: xa.einsum("bij,bkj->bik", self.xa_a, self.xa_b)

    def time_xarr(self, form):
        self.xa_fn()

    def time_numpy(self, form):
        self.np_fn()

    def track_speedup_vs_numpy(self, form):
        return best_time(self.np_fn) / best_time(self.xa_fn)

    track_speedup_vs_numpy.unit = "x"


class MatVec:
    """4096x4096 f32 @ 4096 (row-major and {0,1}): GB/s read of the matrix, and its ratio
    to a copy's bandwidth (read + write of the same bytes) and to a sum's (read only)."""
    params = [["{1,0}", "{0,1}"]]
    param_names = ["layout"]

    def setup(self, layout):
        g = rng(22)
        a = g.random((4096, 4096)).astype(np.float32)
        self.a = a if layout == "{1,0}" else np.asfortranarray(a)
        self.x = g.random(4096).astype(np.float32)
        self.xa_a = xa.asarray(a, layout=(1, 0) if layout == "{1,0}" else (0, 1), copy=True)
        self.xa_x = xa.asarray(self.x)
        self.big = xa.asarray(g.random(16 * 1024 * 1024).astype(np.float32))

    def time_xarr(self, layout):
        self.xa_a @ self.xa_x

    def track_gbps(self, layout):
        return self.a.nbytes / best_time(lambda: self.xa_a @ self.xa_x) / 1e9

    def track_fraction_of_copy_bandwidth(self, layout):
        copy = 2 * self.big.nbytes / best_time(lambda: self.big.copy())
        return self.track_gbps(layout) * 1e9 / copy

    def track_fraction_of_read_bandwidth(self, layout):
        # the memory bandwidth a read-only pass reaches: a sum of 64 MiB (goal >= 0.9)
        read = self.big.nbytes / best_time(lambda: self.big.sum())
        return self.track_gbps(layout) * 1e9 / read

    def track_speedup_vs_numpy(self, layout):
        return best_time(lambda: self.a @ self.x) / best_time(lambda: self.xa_a @ self.xa_x)

    track_gbps.unit = "GB/s"
    track_fraction_of_copy_bandwidth.unit = "x"
    track_fraction_of_read_bandwidth.unit = "x"
    track_speedup_vs_numpy.unit = "x"


class MatVecSizes:
    """A @ x and x @ A (f32, f64) at the sizes scientific loops use, 64^2 to 2048^2: the
    ratio to NumPy's time (these once took the direct GEMM path, 10x slower than NumPy at
    512^2)."""
    params = [[64, 256, 512, 2048], ["float32", "float64"], ["A @ x", "x @ A"]]
    param_names = ["n", "dtype", "form"]

    def setup(self, n, dtype, form):
        g = rng(24)
        self.a = g.random((n, n)).astype(dtype)
        self.x = g.random(n).astype(dtype)
        self.xa_a, self.xa_x = xa.asarray(self.a), xa.asarray(self.x)

    def _pair(self, form):
        if form == "A @ x":
            return (lambda: self.a @ self.x), (lambda: self.xa_a @ self.xa_x)
        return (lambda: self.x @ self.a), (lambda: self.xa_x @ self.xa_a)

    def time_xarr(self, n, dtype, form):
        self._pair(form)[1]()

    def track_speedup_vs_numpy(self, n, dtype, form):
        np_fn, xa_fn = self._pair(form)
        return best_time(np_fn) / best_time(xa_fn)

    track_speedup_vs_numpy.unit = "x"


class DenseLayer:
    """jit relu(x @ w + b), 1024x1024x1024 f32, against NumPy's three calls."""

    def setup(self):
        g = rng(23)
        self.x = g.random((1024, 1024)).astype(np.float32)
        self.w = g.random((1024, 1024)).astype(np.float32)
        self.bias = g.random(1024).astype(np.float32)
        self.args = [xa.asarray(v, copy=True) for v in (self.x, self.w, self.bias)]
        self.f = xa.jit(lambda x, w, b: xa.maximum(x @ w + b, 0.0))
        self.f(*self.args)

    def time_jit(self):
        self.f(*self.args)

    def track_speedup_vs_numpy(self):
        return best_time(lambda: np.maximum(self.x @ self.w + self.bias, 0.0)) / \
            best_time(lambda: self.f(*self.args))

    def track_kernels(self):
        return self.f.lower(*self.args).compile().kernel_count

    track_speedup_vs_numpy.unit = "x"
    track_kernels.unit = "kernels"
