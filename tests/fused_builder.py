"""A test helper: a builder of fused elementwise programs run on the C++ fused executor
(csrc/fused/executor.h) through xarr._bindings.fused.FusedKernel, for the executor's own
tests (the graph compiler, xarr/_graph/compile.py, builds its programs itself).

Registers: the inputs first (0..n_in-1), then scalar constants, then temporaries; an instruction writes a
temporary or output ``k`` (written ``Out(k)``). Each instruction is one elementwise kernel of
xarr/_ops/elementwise.py (by lax name) or a conversion.

>>> p = FusedProgram([xa.float32] * 3)          # a, b, c
>>> k2, k3 = p.constant(2.0), p.constant(3.0)
>>> t = p.emit("mul", k2, 0)
>>> u = p.emit("mul", k3, p.emit("mul", 1, 1))
>>> v = p.emit("exp", p.emit("neg", 2))
>>> p.emit("sub", p.emit("add", t, u), v, out=0)
>>> (result,) = p.run([a, b, c])                 # 2*a + 3*b*b - exp(-c), one pass
"""

from xarr import _core
from xarr import _tensor
from xarr._bindings.fused import FusedKernel
from xarr._dtypes import CODE_OF, DTYPES, as_dtype
from xarr._ops.elementwise import OPS, broadcast_shapes
from xarr._tensor import Tensor


class FusedProgram:
    """Builder for a straight-line elementwise program over broadcastable inputs."""

    def __init__(self, input_dtypes):
        self.input_dtypes = [CODE_OF[as_dtype(d)] for d in input_dtypes]
        self.constants = []          # (register, python value)
        self.temp_dtypes = []
        self.output_dtypes = []
        self.code = []

    @property
    def n_inputs(self):
        return len(self.input_dtypes) + len(self.constants)

    def constant(self, value, dtype=None):
        """A scalar input register holding ``value`` (dtype: the first input's)."""
        code = CODE_OF[as_dtype(dtype)] if dtype is not None else self.input_dtypes[0]
        if self.code or self.temp_dtypes:
            raise ValueError("FusedProgram: declare constants before instructions")
        self.constants.append((value, code))
        return len(self.input_dtypes) + len(self.constants) - 1

    def _dtype_of(self, reg):
        n_in = self.n_inputs
        if reg < len(self.input_dtypes):
            return self.input_dtypes[reg]
        if reg < n_in:
            return self.constants[reg - len(self.input_dtypes)][1]
        return self.temp_dtypes[reg - n_in]

    def _dest(self, out, out_code):
        if out is None:
            self.temp_dtypes.append(out_code)
            return self.n_inputs + len(self.temp_dtypes) - 1
        while len(self.output_dtypes) <= out:
            self.output_dtypes.append(None)
        if self.output_dtypes[out] not in (None, out_code):
            raise TypeError(f"FusedProgram: output {out} written with two dtypes")
        self.output_dtypes[out] = out_code
        return -1 - out

    def emit(self, name, *regs, out=None, into=None):
        """Appends ``name(*regs)`` (a lax elementwise op); returns the destination register
        (a new temporary, or the temporary ``into`` when reusing one), or None when writing
        output ``out``. At most 16 temporaries: reuse dead ones with ``into``."""
        opdef = OPS[name]
        if len(regs) != opdef.arity:
            raise ValueError(f"FusedProgram: {name} takes {opdef.arity} operands")
        value_regs = regs[1:] if opdef.kernel == "SELECT" else regs
        codes = {self._dtype_of(r) for r in value_regs}
        if len(codes) != 1:
            raise TypeError(f"FusedProgram: {name} operands have different dtypes")
        code = codes.pop()
        out_code = code if opdef.kernel == "SELECT" else opdef.result_code(code)
        if into is not None:
            if into < self.n_inputs or self._dtype_of(into) != out_code:
                raise ValueError(f"FusedProgram: {name} cannot write register {into}")
            dst = into
        else:
            dst = self._dest(out, out_code)
        self.code.append((opdef.code, code, out_code, list(regs), dst))
        return dst if out is None else None

    def convert(self, reg, dtype, out=None):
        """Appends a ConvertElementType of ``reg`` to ``dtype``."""
        src, dst_code = self._dtype_of(reg), CODE_OF[as_dtype(dtype)]
        dst = self._dest(out, dst_code)
        self.code.append((_core.fused_convert, src, dst_code, [reg], dst))
        return dst if out is None else None

    def run(self, inputs, shape=None):
        """Runs the program on Tensors broadcastable to ``shape`` (default: their broadcast
        shape); returns the new output tensors."""
        if len(inputs) != len(self.input_dtypes):
            raise ValueError(f"FusedProgram: expected {len(self.input_dtypes)} inputs, "
                             f"got {len(inputs)}")
        ins = []
        for t, code in zip(inputs, self.input_dtypes):
            if not isinstance(t, Tensor) or CODE_OF[t.dtype] != code:
                raise TypeError(f"FusedProgram: inputs must be tensors of {DTYPES[code]}")
            ins.append(_tensor.strided(t))
        ins += [_tensor.scalar_tensor(v, c) for v, c in self.constants]
        if shape is None:
            shape = broadcast_shapes(*[t.shape for t in ins], op="fused")
        if None in self.output_dtypes or not self.output_dtypes:
            raise ValueError("FusedProgram: every output must be written")
        outs = [_tensor.empty(shape, c) for c in self.output_dtypes]
        kernel = FusedKernel(self.input_dtypes, self.temp_dtypes, self.output_dtypes,
                                     self.code, [_tensor.scalar_tensor(v, c)
                                                 for v, c in self.constants])
        kernel.run(ins[:len(self.input_dtypes)], [None] * len(self.input_dtypes), shape, outs)
        return outs
