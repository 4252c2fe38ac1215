"""Elementwise kernels: throughput on 16M elements, xarr vs NumPy (time_*), and the
speedup ratio NumPy-time / xarr-time measured in the same process (track_*)."""

import numpy as np

import xarr as xa
from xarr._registry import numpy_functions

from .common import N_LARGE, best_time, floats


class Binary:
    params = [["add", "mul", "sub", "div"], ["float32", "float64"]]
    param_names = ["op", "dtype"]

    def setup(self, op, dtype):
        self.a = floats(N_LARGE, dtype, 1)
        self.b = floats(N_LARGE, dtype, 2) + 0.5
        self.xa_a, self.xa_b = xa.asarray(self.a), xa.asarray(self.b)
        self.np_fn = {"add": np.add, "mul": np.multiply, "sub": np.subtract,
                      "div": np.divide}[op]
        self.xa_fn = {"add": xa.add, "mul": xa.multiply, "sub": xa.subtract,
                      "div": xa.divide}[op]

    def time_xarr(self, op, dtype):
        self.xa_fn(self.xa_a, self.xa_b)

    def time_numpy(self, op, dtype):
        self.np_fn(self.a, self.b)

    def track_speedup_vs_numpy(self, op, dtype):
        return (best_time(lambda: self.np_fn(self.a, self.b))
                / best_time(lambda: self.xa_fn(self.xa_a, self.xa_b)))

    track_speedup_vs_numpy.unit = "x"


class Unary:
    params = [["exp", "tanh", "log", "sin", "logistic", "sqrt"], ["float32"]]
    param_names = ["op", "dtype"]

    def setup(self, op, dtype):
        self.a = floats(N_LARGE, dtype, 3) * 4 - 2
        if op in ("log", "sqrt"):
            self.a = np.abs(self.a) + 0.1
        self.xa_a = xa.asarray(self.a)
        self.np_fn = {"exp": np.exp, "tanh": np.tanh, "log": np.log, "sin": np.sin,
                      "logistic": lambda x: 1 / (1 + np.exp(-x)), "sqrt": np.sqrt}[op]
        self.xa_fn = {"exp": xa.exp, "tanh": xa.tanh, "log": xa.log, "sin": xa.sin,
                      "logistic": xa.expit, "sqrt": xa.sqrt}[op]

    def time_xarr(self, op, dtype):
        self.xa_fn(self.xa_a)

    def time_numpy(self, op, dtype):
        self.np_fn(self.a)

    def track_speedup_vs_numpy(self, op, dtype):
        return best_time(lambda: self.np_fn(self.a)) / best_time(lambda: self.xa_fn(self.xa_a))

    track_speedup_vs_numpy.unit = "x"


class Chain:
    """2*a + 3*b*b - exp(-c), eager, on 16M f32."""

    def setup(self):
        self.a, self.b, self.c = (floats(N_LARGE, np.float32, s) for s in (4, 5, 6))
        self.ta, self.tb, self.tc = (xa.asarray(x) for x in (self.a, self.b, self.c))

    def time_xarr(self):
        2.0 * self.ta + 3.0 * self.tb * self.tb - xa.exp(-self.tc)

    def time_numpy(self):
        2 * self.a + 3 * self.b * self.b - np.exp(-self.c)

    def track_speedup_vs_numpy(self):
        return best_time(self.time_numpy) / best_time(self.time_xarr)

    track_speedup_vs_numpy.unit = "x"


class StridedAndBroadcast:
    """Non-contiguous and broadcast operands on 4096x4096 f32."""

    def setup(self):
        self.m = floats(4096 * 4096, np.float32, 7).reshape(4096, 4096)
        self.v = floats(4096, np.float32, 8)
        self.tm, self.tv = xa.asarray(self.m), xa.asarray(self.v)

    def time_xarr_row_broadcast(self):
        self.tm + self.tv

    def time_numpy_row_broadcast(self):
        self.m + self.v

    def time_xarr_transposed_operand(self):
        self.tm + self.tm.T

    def time_numpy_transposed_operand(self):
        self.m + self.m.T


class EveryFunction:
    """Every NumPy elementwise function of the op registry (xarr/_registry.py), so a new op
    has its row here without editing any list: 1M f32 (f64 for ops whose NumPy loop is
    float64 only), values in (0.1, 0.9) so every function is defined; integer-only ops on
    int32. NumPy's function of the same name is the peer (skipped where NumPy has none)."""

    params = [sorted(numpy_functions())]
    param_names = ["function"]

    def setup(self, name):
        form, op = numpy_functions()[name]
        n = 1 << 20
        if "f" in op.kinds:
            dt = np.float32
        elif "i" in op.kinds or "u" in op.kinds:
            dt = np.int32
        else:
            dt = np.bool_
        self.args = [(floats(n, np.float64, 20 + k) * 0.8 + 0.1).astype(dt)
                     if dt != np.bool_ else floats(n, np.float64, 20 + k) > 0.5
                     for k in range(op.arity)]
        if dt == np.int32:
            self.args = [a + 1 for a in self.args]    # shifts and powers stay small
        self.xargs = [xa.asarray(a, copy=True) for a in self.args]
        self.xa_fn = getattr(xa, name)
        self.np_fn = getattr(np, name, None)

    def time_xarr(self, name):
        self.xa_fn(*self.xargs)

    def time_numpy(self, name):
        if self.np_fn is None:
            raise NotImplementedError(f"NumPy has no {name}")
        self.np_fn(*self.args)

    def track_speedup_vs_numpy(self, name):
        if self.np_fn is None:
            raise NotImplementedError(f"NumPy has no {name}")
        with np.errstate(all="ignore"):
            return (best_time(lambda: self.np_fn(*self.args))
                    / best_time(lambda: self.xa_fn(*self.xargs)))

    track_speedup_vs_numpy.unit = "x"


class Pow:
    """x ** e on 16M f32 and 1M f64: the special exponents (own loops; goal: as fast as
    x * x, at least 2x NumPy), x ** 0.5 against sqrt, general x ** 1.7 and x ** y (goal:
    at least 2x NumPy)."""
    params = [["2", "2.0", "3", "-1", "0.5", "-0.5", "1.7", "y"], ["float32", "float64"]]
    param_names = ["exponent", "dtype"]

    def setup(self, exponent, dtype):
        n = N_LARGE if dtype == "float32" else 1 << 20
        self.a = floats(n, dtype, 4) + np.asarray(0.01, dtype)
        if exponent == "y":
            self.e = floats(n, dtype, 5) * 4 - 2
            self.xa_e = xa.asarray(self.e)
        else:
            value = float(exponent) if "." in exponent else int(exponent)
            self.e = np.asarray(value, dtype)[()] if isinstance(value, float) else value
            self.xa_e = value
        self.xa_a = xa.asarray(self.a)

    def time_xarr(self, exponent, dtype):
        self.xa_a ** self.xa_e

    def time_numpy(self, exponent, dtype):
        self.a ** self.e

    def track_speedup_vs_numpy(self, exponent, dtype):
        return best_time(lambda: self.a ** self.e) / best_time(lambda: self.xa_a ** self.xa_e)

    def track_ratio_to_multiply(self, exponent, dtype):
        """x * x time over x ** e time (>= 1: pow is as fast as a multiply)."""
        return (best_time(lambda: self.xa_a * self.xa_a)
                / best_time(lambda: self.xa_a ** self.xa_e))

    track_speedup_vs_numpy.unit = "x"
    track_ratio_to_multiply.unit = "x"
