"""How the tests check each elementwise op: one row per op of the registry
(xarr/_registry.py ELEMENTWISE), keyed by its name. The op lists the tests iterate come from
the registry itself; this table holds only what an independent reference needs to know.
test_op_reference_covers_the_registry fails for an op without a row here: adding an op
means adding its row.

Ref fields:
  ulp            max ULP distance from the float64 NumPy result rounded to the result dtype,
                 for f32/f64 results of its NumPy functions (0: equal to NumPy bit for bit)
  isa_exact      every ISA table gives the scalar reference's bits (False: transcendental,
                 within test_kernels_isa_threads.ISA_ULP of it)
  complex_approx complex results are compared normwise, not bitwise (NumPy itself uses FMA
                 or other formulas in its complex loops); default: ulp > 0
  zero_sign_free the sign of a zero result is unspecified (NumPy differs between dtypes)
  input_ulp      results that cancel (log(e**a + e**b) near 0): float results within this
                 many ULPs of the largest input magnitude plus ``result_ulp`` ULPs of the
                 result, instead of ``ulp``
  numpy          the NumPy reference when NumPy has no function of that name (expit)
"""

from dataclasses import dataclass

import numpy as np


def expit(x):
    return 1.0 / (1.0 + np.exp(-x))


@dataclass(frozen=True)
class Ref:
    ulp: int = 0
    isa_exact: bool = True
    complex_approx: bool = None
    zero_sign_free: bool = False
    input_ulp: int = 0
    result_ulp: int = 1
    numpy: object = None

    @property
    def is_complex_approx(self):
        return self.ulp > 0 if self.complex_approx is None else self.complex_approx


EXACT = Ref()


def transcendental(ulp):
    """A libm-style function: NumPy within ``ulp``, vector ISAs within ISA_ULP."""
    return Ref(ulp=ulp, isa_exact=False)


REFERENCE = {
    # unary
    "neg": EXACT, "abs": EXACT, "sign": EXACT,
    "sign_np": Ref(complex_approx=True, zero_sign_free=True),
    "not": EXACT, "ceil": EXACT, "floor": EXACT, "round": EXACT, "round_nearest_even": EXACT,
    "rint": EXACT, "trunc": EXACT,
    "exp": transcendental(2), "expm1": transcendental(2), "exp2": transcendental(2),
    "log": transcendental(2), "log1p": transcendental(2), "log2": transcendental(2),
    "log10": transcendental(2), "logistic": Ref(ulp=4, isa_exact=False, numpy=expit),
    "tanh": transcendental(2), "sin": transcendental(2), "cos": transcendental(2),
    "tan": transcendental(3), "asin": transcendental(2), "acos": transcendental(2),
    "atan": transcendental(2), "sinh": transcendental(3), "cosh": transcendental(3),
    "asinh": transcendental(3), "acosh": transcendental(3), "atanh": transcendental(3),
    # cbrt: NumPy's float64 cbrt (libm) is itself up to ~2.5 ulp off: at x = 7.316e18
    # (uint64 7316032464344647610 converted) it gives 1941296.5138915163, 2.5 ulp from the
    # exact root, where xarr's 1941296.513891517 is 0.5 ulp from it (the long fuzz run).
    "sqrt": Ref(complex_approx=True), "rsqrt": EXACT, "cbrt": transcendental(3),
    "square": Ref(complex_approx=True), "is_finite": EXACT, "is_nan": EXACT,
    "is_inf": EXACT, "signbit": EXACT, "population_count": EXACT, "clz": EXACT,
    "real": EXACT, "imag": EXACT, "conj": EXACT, "copy": EXACT,
    # binary
    "add": EXACT, "sub": EXACT, "mul": Ref(complex_approx=True),
    "div": Ref(complex_approx=True), "rem": EXACT, "fmod": EXACT, "floor_div": EXACT,
    "mod": EXACT, "max": Ref(zero_sign_free=True), "min": Ref(zero_sign_free=True),
    "pow": transcendental(2), "atan2": transcendental(2), "hypot": Ref(ulp=1),
    "copysign": EXACT, "logaddexp": Ref(ulp=3, isa_exact=False, input_ulp=3, result_ulp=2),
    "logaddexp2": Ref(ulp=3, isa_exact=False, input_ulp=3, result_ulp=3),
    "nextafter": Ref(zero_sign_free=True), "complex": EXACT,
    "and": EXACT, "or": EXACT, "xor": EXACT, "shift_left": EXACT,
    "shift_right_logical": EXACT, "shift_right_arithmetic": EXACT,
    "eq": EXACT, "ne": EXACT, "lt": EXACT, "le": EXACT, "gt": EXACT, "ge": EXACT,
    "eq_total": EXACT, "ne_total": EXACT, "lt_total": EXACT, "le_total": EXACT,
    "gt_total": EXACT, "ge_total": EXACT,
    # ternary
    "select": EXACT, "clamp": EXACT, "clip": EXACT,
}
