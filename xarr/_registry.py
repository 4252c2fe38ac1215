"""The op registry: one row per operation, from which everything else is derived.

A row (``Op``) holds what every layer needs to know about one op:

* ``name``    the graph op (an instruction's ``op``), also the lax-level identity;
* ``lax``     its public ``xa.lax`` name ('' when lax has none) and ``doc``;
* ``hlo``     its HLO opcode in text (default: the name with '-' for '_');
* ``fusion``  its fusion class: 'elementwise' (fuses into kLoop fusions), 'leaf'
              (broadcast / iota / constant: recomputed inside each fusion that reads it),
              'reduction' (a producer may fuse into it: kInput), 'structural' (runs
              ``impl``; may return a view of its operand when ``view``), 'opaque' (the
              compiler gives it a step of its own: control flow, custom calls, tuples);
* ``rule``    its pure shape + dtype rule, (operand types, **attrs) -> result type,
              raising with the op, the argument and the offending values;
* ``impl``    its kernel binding: the eager call, (*tensors, **attrs) -> tensor, which is
              also the step the graph executor runs for it;
* ``text``    its HLO attributes, instruction -> ["key=value", ...];
* ``lower``   for an opaque op, instruction -> the executable's step (control flow and
              custom calls, which run sub-computations: xarr/_graph/control.py).

Elementwise ops (``ElementwiseOp``) are pure data, all defined in ``ELEMENTWISE`` below:
the C++ kernel (``kernel``, a name of XARR_EW_OPS in csrc/kernels/elementwise/ew_ops.h),
``arity``, the element-type ``kinds`` it accepts, its ``result`` type rule and its NumPy
functions (``numpy``: ``NumpyForm`` rows with NumPy's casting rules for that function).
From these rows come ``xa.lax``'s elementwise functions, the NumPy functions ``xa.*``,
the graph's HLO text and fusion, the operators' compiled fast-path tables and the op lists
the tests and benchmarks iterate. The other families register their rows where their
rules and kernels are (``register``, in xarr/_ops/*.py and xarr/_graph/control.py).

Worked example: the row ``ew("logaddexp2", "LOGADDEXP2", 2, "f", numpy=(np_("logaddexp2",
to_float="loops"),), doc=...)`` is all the Python an elementwise op needs: xa.logaddexp2
(NumPy 2 promotion, int arguments computed in float), graph fusion, HLO ``logaddexp2``.
"""

from dataclasses import dataclass

from xarr import _core
from xarr._dtypes import CODE_OF_XLA, KINDS, XLA_NAMES

KERNELS = _core.ew_ops()   # {'ADD': (kernel code, arity), ...} from ew_ops.h's list

FUSION_CLASSES = ("elementwise", "leaf", "reduction", "structural", "opaque")


@dataclass(frozen=True)
class Op:
    """One op; see the module docstring for the fields."""

    name: str
    fusion: str
    rule: object = None
    impl: object = None
    text: object = None
    view: bool = False
    hlo: str = ""
    lax: str = ""
    doc: str = ""
    lower: object = None

    @property
    def hlo_opcode(self):
        return self.hlo or self.name.replace("_", "-")


@dataclass(frozen=True)
class NumpyForm:
    """A NumPy function computed by an elementwise op, with NumPy's rules for it.

    to_float:  integer/bool operands are computed in floating point: 'loops' (NumPy's
               loops: int8 -> float16, int16 -> float32, wider -> float64), 'f64' (always
               float64), 'keepint' (integers are returned unchanged: floor, ceil, trunc),
               'at_least_f64' (every dtype computes in float64 or complex128: float_power)
    kernel_by_kind: ((kind, op name), ...): another op for that kind (right_shift is
               logical on unsigned integers)
    logical:   operands are converted to bool first (logical_and ...)
    bool_as:   bool operands are computed in this dtype (NumPy's int8 loops)
    result_as: the result is converted to this dtype (bitwise_count -> uint8)
    no_bool:   NumPy has no bool loop (TypeError)
    int_exponent: integers to negative integer powers raise ValueError (power)
    magnitude: signed integers are replaced by their absolute value (bitwise_count)
    """

    name: str
    to_float: str = ""
    kernel_by_kind: tuple = ()
    logical: bool = False
    bool_as: str = ""
    result_as: str = ""
    no_bool: bool = False
    int_exponent: bool = False
    magnitude: bool = False


@dataclass(frozen=True)
class ElementwiseOp(Op):
    """An elementwise op: ``kernel`` (XARR_EW_OPS name), ``arity``, ``kinds`` accepted
    (b pred, i signed, u unsigned, f float, c complex), ``result`` ('same', 'pred', 'real'
    = the real type of a complex operand, 'complex' = the complex type of a real one),
    ``numpy`` (its NumPy functions), ``lax_params`` (the lax function's parameter names)."""

    kernel: str = ""
    arity: int = 1
    kinds: str = ""
    result: str = "same"
    numpy: tuple = ()
    lax_params: tuple = ()

    @property
    def code(self):
        """The kernel op code (csrc/kernels/elementwise/ew_table.h EwOp)."""
        return KERNELS[self.kernel][0]

    def result_code(self, code):
        """The output dtype code for (value) operands of dtype ``code``."""
        if self.result == "pred":
            return CODE_OF_XLA["pred"]
        if self.result == "real":
            return {CODE_OF_XLA["c64"]: CODE_OF_XLA["f32"],
                    CODE_OF_XLA["c128"]: CODE_OF_XLA["f64"]}.get(code, code)
        if self.result == "complex":
            return CODE_OF_XLA["c128"] if code == CODE_OF_XLA["f64"] else CODE_OF_XLA["c64"]
        return code

    def accepts(self, code):
        """Whether the op is defined for (value) operands of dtype ``code``."""
        return KINDS[code] in self.kinds and _core.ew_supported(self.code, code)

    def value_code(self, operand_codes):
        """The dtype code an instruction computes in: its last operand's for select
        (whose first operand is the pred), its first operand's otherwise."""
        return operand_codes[-1] if self.kernel == "SELECT" else operand_codes[0]


REGISTRY = {}


def register(op):
    """Adds a row; a second row for the same name is a bug (ValueError)."""
    if op.name in REGISTRY:
        raise ValueError(f"op registry: {op.name!r} is defined twice")
    if op.fusion not in FUSION_CLASSES:
        raise ValueError(f"op registry: {op.name!r} has fusion class {op.fusion!r}, not one "
                         f"of {FUSION_CLASSES}")
    REGISTRY[op.name] = op
    return op


def lookup(name):
    """The row of op ``name`` (KeyError naming it when there is none)."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"op registry: no op named {name!r}") from None


def hlo_opcode(name):
    op = REGISTRY.get(name)
    return op.hlo_opcode if op is not None else name.replace("_", "-")


def attr_text(instr):
    """The ``key=value`` attribute strings of an instruction's HLO text."""
    op = REGISTRY.get(instr.op)
    return list(op.text(instr)) if op is not None and op.text is not None else []


def ops_of_class(fusion):
    """The names of the ops of fusion class ``fusion``."""
    return {name for name, op in REGISTRY.items() if op.fusion == fusion}


# ------------------------------------------------------------------------ elementwise
def np_(name, **rules):
    return NumpyForm(name, **rules)


_COMPARE_DIRECTION = {"eq": "EQ", "ne": "NE", "lt": "LT", "le": "LE", "gt": "GT", "ge": "GE"}


def _compare_text(direction, total):
    attrs = [f"direction={direction}"] + (["type=TOTALORDER"] if total else [])
    return lambda instr: attrs


def ew(name, kernel, arity, kinds, result="same", lax="", doc="", hlo="", numpy=(),
       lax_params=()):
    """One elementwise row. Comparisons get HLO's ``compare`` with its direction."""
    text = None
    base = name[:-6] if name.endswith("_total") else name
    if base in _COMPARE_DIRECTION:
        hlo = "compare"
        text = _compare_text(_COMPARE_DIRECTION[base], name.endswith("_total"))
    return ElementwiseOp(name, "elementwise", text=text, hlo=hlo, lax=lax, doc=doc,
                         kernel=kernel, arity=arity, kinds=kinds, result=result,
                         numpy=tuple(numpy), lax_params=tuple(lax_params))


_ALL, _NUM, _INT, _FLT, _FC = "biufc", "iufc", "iu", "f", "fc"
_LOOPS = "loops"

# The one table of elementwise ops. The row's name is its graph op (lax's spelling, or
# xarr's for ops lax lacks); ``lax`` is set where xa.lax exports it.
ELEMENTWISE = [
    # ---------------------------------------------------------------- unary
    ew("neg", "NEG", 1, _NUM, lax="neg", doc="-x", hlo="negate",
       numpy=[np_("negative")]),
    ew("abs", "ABS", 1, _ALL, "real", lax="abs", doc="|x| (the real magnitude for complex x)",
       numpy=[np_("absolute")]),
    ew("sign", "SIGN", 1, _NUM, lax="sign",
       doc="sign(x): -1, 0 or 1; sign(-0.0) = -0.0, sign(NaN) = NaN"),
    ew("sign_np", "SIGN_NP", 1, _NUM, doc="NumPy's sign: sign(-0.0) = +0.0",
       numpy=[np_("sign")]),
    ew("not", "NOT", 1, "biu", lax="bitwise_not",
       doc="logical not on pred, bitwise not on integers",
       numpy=[np_("invert"), np_("logical_not", logical=True)]),
    ew("ceil", "CEIL", 1, _FLT, lax="ceil", doc="ceil(x)",
       numpy=[np_("ceil", to_float="keepint")]),
    ew("floor", "FLOOR", 1, _FLT, lax="floor", doc="floor(x)",
       numpy=[np_("floor", to_float="keepint")]),
    ew("round", "ROUND", 1, _FLT, doc="round half away from zero", hlo="round-nearest-afz"),
    ew("round_nearest_even", "ROUND_EVEN", 1, _FLT, lax="round_nearest_even",
       doc="round half to even"),
    ew("rint", "ROUND_EVEN", 1, _FC, doc="round half to even (complex: each part)",
       hlo="round-nearest-even", numpy=[np_("rint", to_float=_LOOPS)]),
    ew("trunc", "TRUNC", 1, _FLT, doc="round toward zero",
       numpy=[np_("trunc", to_float="keepint")]),
    ew("exp", "EXP", 1, _FC, lax="exp", doc="e**x", hlo="exponential",
       numpy=[np_("exp", to_float=_LOOPS)]),
    ew("expm1", "EXPM1", 1, _FC, lax="expm1", doc="e**x - 1", hlo="exponential-minus-one",
       numpy=[np_("expm1", to_float=_LOOPS)]),
    ew("exp2", "EXP2", 1, _FC, doc="2**x", numpy=[np_("exp2", to_float=_LOOPS)]),
    ew("log", "LOG", 1, _FC, lax="log", doc="ln(x)", numpy=[np_("log", to_float=_LOOPS)]),
    ew("log1p", "LOG1P", 1, _FC, lax="log1p", doc="ln(1 + x)", hlo="log-plus-one",
       numpy=[np_("log1p", to_float=_LOOPS)]),
    ew("log2", "LOG2", 1, _FC, doc="log2(x)", numpy=[np_("log2", to_float=_LOOPS)]),
    ew("log10", "LOG10", 1, _FC, doc="log10(x)", numpy=[np_("log10", to_float=_LOOPS)]),
    ew("logistic", "LOGISTIC", 1, _FC, lax="logistic", doc="1 / (1 + e**-x)",
       numpy=[np_("expit", to_float=_LOOPS)]),
    ew("tanh", "TANH", 1, _FC, lax="tanh", doc="tanh(x)",
       numpy=[np_("tanh", to_float=_LOOPS)]),
    ew("sin", "SIN", 1, _FC, lax="sin", doc="sin(x)", hlo="sine",
       numpy=[np_("sin", to_float=_LOOPS)]),
    ew("cos", "COS", 1, _FC, lax="cos", doc="cos(x)", hlo="cosine",
       numpy=[np_("cos", to_float=_LOOPS)]),
    ew("tan", "TAN", 1, _FC, lax="tan", doc="tan(x)", numpy=[np_("tan", to_float=_LOOPS)]),
    ew("asin", "ASIN", 1, _FC, lax="asin", doc="asin(x)",
       numpy=[np_("arcsin", to_float=_LOOPS)]),
    ew("acos", "ACOS", 1, _FC, lax="acos", doc="acos(x)",
       numpy=[np_("arccos", to_float=_LOOPS)]),
    ew("atan", "ATAN", 1, _FC, lax="atan", doc="atan(x)",
       numpy=[np_("arctan", to_float=_LOOPS)]),
    ew("sinh", "SINH", 1, _FC, lax="sinh", doc="sinh(x)",
       numpy=[np_("sinh", to_float=_LOOPS)]),
    ew("cosh", "COSH", 1, _FC, lax="cosh", doc="cosh(x)",
       numpy=[np_("cosh", to_float=_LOOPS)]),
    ew("asinh", "ASINH", 1, _FC, lax="asinh", doc="asinh(x)",
       numpy=[np_("arcsinh", to_float=_LOOPS)]),
    ew("acosh", "ACOSH", 1, _FC, lax="acosh", doc="acosh(x)",
       numpy=[np_("arccosh", to_float=_LOOPS)]),
    ew("atanh", "ATANH", 1, _FC, lax="atanh", doc="atanh(x)",
       numpy=[np_("arctanh", to_float=_LOOPS)]),
    ew("sqrt", "SQRT", 1, _FC, lax="sqrt", doc="sqrt(x)",
       numpy=[np_("sqrt", to_float=_LOOPS)]),
    ew("rsqrt", "RSQRT", 1, _FC, lax="rsqrt", doc="1 / sqrt(x)"),
    ew("cbrt", "CBRT", 1, _FLT, lax="cbrt", doc="cube root",
       numpy=[np_("cbrt", to_float=_LOOPS)]),
    ew("square", "SQUARE", 1, _NUM, lax="square", doc="x * x",
       numpy=[np_("square", bool_as="int8")]),
    ew("is_finite", "IS_FINITE", 1, _ALL, "pred", lax="is_finite",
       doc="true where x is neither infinite nor NaN", numpy=[np_("isfinite")]),
    ew("is_nan", "IS_NAN", 1, _ALL, "pred", doc="true where x is NaN",
       numpy=[np_("isnan")]),
    ew("is_inf", "IS_INF", 1, _ALL, "pred", doc="true where x is infinite",
       numpy=[np_("isinf")]),
    ew("signbit", "SIGNBIT", 1, "biuf", "pred", doc="true where the sign bit is set",
       numpy=[np_("signbit")]),
    ew("population_count", "POPCNT", 1, _INT, lax="population_count",
       doc="number of set bits", hlo="popcnt",
       numpy=[np_("bitwise_count", bool_as="uint8", result_as="uint8", magnitude=True)]),
    ew("clz", "CLZ", 1, _INT, lax="clz", doc="count of leading zero bits (clz(0) = bit width)",
       hlo="count-leading-zeros"),
    ew("real", "REAL", 1, _ALL, "real", lax="real", doc="real part", numpy=[np_("real")]),
    ew("imag", "IMAG", 1, _ALL, "real", lax="imag", doc="imaginary part",
       numpy=[np_("imag")]),
    ew("conj", "CONJ", 1, _ALL, lax="conj", doc="complex conjugate",
       numpy=[np_("conjugate", bool_as="int8")]),
    ew("copy", "COPY", 1, _ALL, doc="x", numpy=[np_("positive", no_bool=True)]),
    # ---------------------------------------------------------------- binary
    ew("add", "ADD", 2, _ALL, lax="add", doc="x + y", numpy=[np_("add")]),
    ew("sub", "SUB", 2, _NUM, lax="sub", doc="x - y", hlo="subtract",
       numpy=[np_("subtract")]),
    ew("mul", "MUL", 2, _ALL, lax="mul", doc="x * y", hlo="multiply",
       numpy=[np_("multiply")]),
    ew("div", "DIV", 2, _NUM, lax="div",
       doc="x / y (integers: x / 0 = -1, INT_MIN / -1 = INT_MIN)", hlo="divide",
       numpy=[np_("divide", to_float="f64")]),
    ew("rem", "REM", 2, "iuf", lax="rem",
       doc="remainder with the sign of the dividend (C fmod); x % 0 = x", hlo="remainder"),
    ew("fmod", "FMOD", 2, "iuf", doc="NumPy's fmod (integers: x % 0 = 0)",
       numpy=[np_("fmod", bool_as="int8")]),
    ew("floor_div", "FLOOR_DIV", 2, "iuf", doc="floor(x / y)", hlo="floor-divide",
       numpy=[np_("floor_divide", bool_as="int8")]),
    ew("mod", "MOD", 2, "iuf", doc="x - floor(x / y) * y (the sign of the divisor)",
       numpy=[np_("remainder", bool_as="int8")]),
    ew("max", "MAX", 2, _ALL, lax="max", doc="maximum, NaN-propagating", hlo="maximum",
       numpy=[np_("maximum")]),
    ew("min", "MIN", 2, _ALL, lax="min", doc="minimum, NaN-propagating", hlo="minimum",
       numpy=[np_("minimum")]),
    ew("pow", "POW", 2, _NUM, lax="pow", doc="x ** y", hlo="power",
       numpy=[np_("power", bool_as="int8", int_exponent=True),
              np_("float_power", to_float="at_least_f64")]),
    ew("atan2", "ATAN2", 2, _FLT, lax="atan2", doc="atan2(x, y)",
       numpy=[np_("arctan2", to_float=_LOOPS)]),
    ew("hypot", "HYPOT", 2, _FLT, doc="sqrt(x**2 + y**2) without overflow",
       numpy=[np_("hypot", to_float=_LOOPS)]),
    ew("copysign", "COPYSIGN", 2, _FLT, doc="|x| with the sign of y",
       numpy=[np_("copysign", to_float=_LOOPS)]),
    ew("logaddexp", "LOGADDEXP", 2, _FLT, doc="log(exp(x) + exp(y))",
       numpy=[np_("logaddexp", to_float=_LOOPS)]),
    ew("logaddexp2", "LOGADDEXP2", 2, _FLT, doc="log2(2**x + 2**y)",
       numpy=[np_("logaddexp2", to_float=_LOOPS)]),
    ew("nextafter", "NEXTAFTER", 2, _FLT, doc="the next float after x toward y",
       numpy=[np_("nextafter", to_float=_LOOPS)]),
    ew("complex", "COMPLEX", 2, _FLT, "complex", lax="complex",
       doc="x + i*y from two real operands (f32 -> c64, f64 -> c128)"),
    ew("and", "AND", 2, "biu", lax="bitwise_and",
       doc="logical and on pred, bitwise on integers",
       numpy=[np_("bitwise_and"), np_("logical_and", logical=True)]),
    ew("or", "OR", 2, "biu", lax="bitwise_or", doc="logical or on pred, bitwise on integers",
       numpy=[np_("bitwise_or"), np_("logical_or", logical=True)]),
    ew("xor", "XOR", 2, "biu", lax="bitwise_xor",
       doc="logical xor on pred, bitwise on integers",
       numpy=[np_("bitwise_xor"), np_("logical_xor", logical=True)]),
    ew("shift_left", "SHL", 2, _INT, lax="shift_left", doc="x << y (0 when y >= bit width)",
       numpy=[np_("left_shift", bool_as="int8")]),
    ew("shift_right_logical", "SHR_LOGICAL", 2, _INT, lax="shift_right_logical",
       doc="logical x >> y"),
    ew("shift_right_arithmetic", "SHR_ARITH", 2, _INT, lax="shift_right_arithmetic",
       doc="arithmetic x >> y",
       numpy=[np_("right_shift", bool_as="int8",
                  kernel_by_kind=(("u", "shift_right_logical"),))]),
    ew("eq", "EQ", 2, _ALL, "pred", lax="eq", doc="x == y", numpy=[np_("equal")]),
    ew("ne", "NE", 2, _ALL, "pred", lax="ne", doc="x != y", numpy=[np_("not_equal")]),
    ew("lt", "LT", 2, _ALL, "pred", lax="lt", doc="x < y", numpy=[np_("less")]),
    ew("le", "LE", 2, _ALL, "pred", lax="le", doc="x <= y", numpy=[np_("less_equal")]),
    ew("gt", "GT", 2, _ALL, "pred", lax="gt", doc="x > y", numpy=[np_("greater")]),
    ew("ge", "GE", 2, _ALL, "pred", lax="ge", doc="x >= y", numpy=[np_("greater_equal")]),
    ew("eq_total", "EQ_TOTAL", 2, "biuf", "pred", lax="eq_total",
       doc="x == y under the TotalOrder"),
    ew("ne_total", "NE_TOTAL", 2, "biuf", "pred", lax="ne_total",
       doc="x != y under the TotalOrder"),
    ew("lt_total", "LT_TOTAL", 2, "biuf", "pred", lax="lt_total",
       doc="x < y under the TotalOrder -NaN < -Inf < -finite < -0 < +0 < +finite < +Inf "
           "< +NaN"),
    ew("le_total", "LE_TOTAL", 2, "biuf", "pred", lax="le_total",
       doc="x <= y under the TotalOrder"),
    ew("gt_total", "GT_TOTAL", 2, "biuf", "pred", lax="gt_total",
       doc="x > y under the TotalOrder"),
    ew("ge_total", "GE_TOTAL", 2, "biuf", "pred", lax="ge_total",
       doc="x >= y under the TotalOrder"),
    # ---------------------------------------------------------------- ternary
    ew("select", "SELECT", 3, _ALL, lax="select", lax_params=("pred", "on_true", "on_false"),
       doc="Elementwise pred ? on_true : on_false (seed 004 Select; pred may be a scalar)."),
    ew("clamp", "CLAMP", 3, "biuf", lax="clamp", lax_params=("min", "x", "max"),
       doc="min(max(x, min), max) elementwise; min/max may be scalars (seed 004 Clamp)."),
    ew("clip", "CLIP", 3, "biuf",
       doc="NumPy's clip(x, min, max) as clip(min, x, max): a tie keeps x (clip(-0.0, 0.0, "
           "1.0) = -0.0), NaN where x or a bound is NaN"),
]
for _op in ELEMENTWISE:
    register(_op)


def elementwise_ops():
    """{name: ElementwiseOp} of every elementwise op."""
    return {op.name: op for op in REGISTRY.values() if isinstance(op, ElementwiseOp)}


def numpy_functions():
    """{NumPy function name: (NumpyForm, ElementwiseOp)} for every NumPy elementwise
    function xarr defines (xa.add, xa.logical_and, xa.expit ...)."""
    out = {}
    for op in elementwise_ops().values():
        for form in op.numpy:
            if form.name in out:
                raise ValueError(f"op registry: NumPy function {form.name!r} is defined by "
                                 f"{out[form.name][1].name!r} and {op.name!r}")
            out[form.name] = (form, op)
    return out


# ------------------------------------------------------------------------ graph plumbing
def _tuple_index_text(instr):
    return [f"index={instr.attrs['index']}"]


def _fusion_text(instr):
    return [f"kind={instr.attrs['kind']}", "calls=" + ", ".join(c.name for c in instr.calls)]


# The instructions every graph has, whatever the op families: parameters, constants,
# tuples and fusions (the compiler gives each its own step).
for _op in [Op("parameter", "opaque"), Op("constant", "leaf"), Op("tuple", "opaque"),
            Op("get_tuple_element", "opaque", text=_tuple_index_text),
            Op("fusion", "opaque", text=_fusion_text)]:
    register(_op)

assert len(XLA_NAMES) == len(KINDS)
