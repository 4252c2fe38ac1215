"""From an optimized computation to something that runs: ``Executable``.

Each instruction of the (fused) entry computation becomes one step; a fusion becomes one
``FusedKernel`` (the C++ fused executor, csrc/fused/executor.h) built once here. A fused
computation is lowered to the executor's register program:

    fused_computation.5 { p0 = f32[N] parameter(0); c = f32[] constant(2)
                          b = f32[N] broadcast(c); m = f32[N] multiply(b, p0)
                          ROOT e = f32[N] exponential(m) }
    ->  inputs r0 = p0, constants r1 = 2.0 (0-d)
        r2 = MUL(r1, r0); out0 = EXP(r2)

Registers: kernel inputs (fusion operands, each with a BroadcastInDim map when read
through a broadcast, and 1-D iota vectors baked at compile time), then scalar constants,
then temporaries, reused after their last use. An output that later instructions still
read is computed into a temporary and copied out.
"""

import numpy as np

from xarr import _tensor
from xarr._bindings import reduce as _reduce
from xarr._bindings.elementwise import iota as iota_kernel
from xarr._bindings.elementwise import run_elementwise
from xarr._bindings.fused import FUSED_CONVERT, FusedKernel
from xarr._dtypes import CODE_OF
from xarr._graph import native
from xarr._graph.ir import Instruction
from xarr._graph.output_fusion import OUTPUT_FUSIBLE
from xarr._graph.passes import INPUT_FUSION_MONOIDS, KERNEL_OPS, is_identity
from xarr._ops.elementwise import lax_apply
from xarr._ops.structural import broadcast_view, dus_into, slice_key
from xarr._registry import REGISTRY

_COPY = KERNEL_OPS["copy"]
_FUSION_LEAVES = ("constant", "iota", "broadcast")   # read from their small operands


class LoweringError(Exception):
    """The fused computation does not fit the executor (too many temporaries)."""


class KernelPlan:
    """A fused computation lowered for the executor: run(operands) -> output tensors."""

    def __init__(self, fused, out_types):
        reduce_op, reduce_ndim = -1, 0
        self.epilogue = None
        if fused.root.op == "reduce":   # kind=kInput: lower the producer, reduce its blocks
            red = fused.root
            init = red.operands[1]
            if not is_identity(init, red.attrs["monoid"]):
                self.epilogue = (red.attrs["monoid"], init.attrs["value"])
            fused = _ElementwisePart(fused, red.operands[0])
            reduce_op = getattr(_reduce, "REDUCE_" + INPUT_FUSION_MONOIDS[red.attrs["monoid"]])
            reduce_ndim = len(red.attrs["dimensions"])
            reduce_type = out_types[0]
            out_types = [red.operands[0].type]
        self.shape = tuple(out_types[0].dims)
        self.out_types = out_types
        inputs = []                      # (operand number or None, map, baked tensor)
        input_reg = {}
        constants = []
        const_reg = {}
        temp_dtypes = []
        free = {}
        instrs = [i for i in fused.instructions if i.op not in ("parameter", "tuple")]
        root_outs = list(fused.root.operands) if fused.root.op == "tuple" else [fused.root]
        out_index = {}
        for k, o in enumerate(root_outs):
            out_index.setdefault(id(o), []).append(k)
        last_use = {}
        for n, i in enumerate(instrs):
            for o in i.operands:
                last_use[id(o)] = n

        # Pass 1: input registers (fusion operands and iota vectors), constant registers.
        def input_for(key, number, m, baked=None):
            r = input_reg.get(key)
            if r is None:
                r = len(inputs)
                inputs.append((number, m, baked))
                input_reg[key] = r
            return ("in", r)

        def leaf_source(o):
            """A register source for a leaf read (parameter / broadcast / iota / const)."""
            if o.op == "parameter":
                m = None if tuple(o.dims) == self.shape else tuple(
                    range(len(self.shape) - len(o.dims), len(self.shape)))
                return input_for(("p", o.attrs["number"], m), o.attrs["number"], m)
            if o.op == "constant" and o.dims == ():
                key = (o.code, np.asarray(o.attrs["value"]).tobytes())
                r = const_reg.get(key)
                if r is None:
                    r = len(constants)
                    constants.append(o.attrs["value"])
                    const_reg[key] = r
                return ("const", r)
            if o.op == "iota":
                return self._iota_source(o, tuple(range(len(o.dims))), input_for)
            if o.op == "broadcast":
                src = o.operands[0]
                dims = o.attrs["dimensions"]
                if src.op == "parameter":
                    m = tuple(dims)
                    return input_for(("p", src.attrs["number"], m), src.attrs["number"], m)
                if src.op == "constant" and src.dims == ():
                    return leaf_source(src)
                if src.op == "iota":
                    return self._iota_source(src, dims, input_for)
            raise LoweringError(f"cannot read {o.op} inside a fusion")

        sources = {}
        for n, i in enumerate(instrs):
            if i.op in _FUSION_LEAVES:
                sources[id(i)] = leaf_source(i)
        # Pass 2: instructions -> code, allocating temporaries.
        program = []   # (opcode, dtype, out_dtype, [sources], dest)

        def src_of(o):
            s = sources.get(id(o))
            if s is None:
                s = leaf_source(o)
                sources[id(o)] = s
            return s

        sources_get, last_get = sources.get, last_use.get
        for n, i in enumerate(instrs):
            op, ops, code = i.op, i.operands, i.type.code
            if op in _FUSION_LEAVES:
                if id(i) not in out_index:
                    continue
                args = [src_of(i)]
                op_code, dtype = _COPY.code, code
            elif op == "convert":
                args = [src_of(ops[0])]
                op_code, dtype = FUSED_CONVERT, ops[0].type.code
            else:
                opdef = KERNEL_OPS[op]
                args = [src_of(o) for o in ops]
                op_code = opdef.code
                dtype = opdef.value_code([o.type.code for o in ops])
            # free temporaries whose last use is this instruction (may be reused as dest);
            # a freed operand's last use is cleared, so add(x, x) frees x once
            for o in ops:
                oid = id(o)
                if last_get(oid) == n:
                    last_use[oid] = -1
                    s = sources_get(oid)
                    if s is not None and s[0] == "tmp":
                        free.setdefault(temp_dtypes[s[1]], []).append(s[1])
            outs_here = out_index.get(id(i), ())
            if len(outs_here) == 1 and last_get(id(i), -1) <= n:
                dest = ("out", outs_here[0])
                extra = ()
            else:
                pool = free.get(code)
                if pool:
                    t = pool.pop()
                else:
                    t = len(temp_dtypes)
                    temp_dtypes.append(code)
                    if t >= 16:
                        raise LoweringError("more than 16 live temporaries")
                dest = ("tmp", t)
                extra = outs_here
            program.append((op_code, dtype, code, args, dest))
            sources[id(i)] = dest if dest[0] == "tmp" else None
            for k in extra:
                program.append((_COPY.code, code, code, [dest], ("out", k)))
        # Outputs that are leaves read directly (e.g. ROOT is a parameter) need copies.
        written = {p[4][1] for p in program if p[4][0] == "out"}
        for k, o in enumerate(root_outs):
            if k not in written:
                program.append((_COPY.code, o.code, o.code, [src_of(o)], ("out", k)))

        nin = len(inputs)
        nconst = len(constants)

        def resolve(s):
            kind, r = s
            if kind == "in":
                return r
            if kind == "const":
                return nin + r
            if kind == "tmp":
                return nin + nconst + r
            return -1 - r

        kcode = [(op, dt, odt, [resolve(a) for a in args], resolve(dest))
                 for op, dt, odt, args, dest in program]
        in_dtypes = []
        for number, m, baked in inputs:
            in_dtypes.append(baked.dtype if baked is not None else
                             fused.parameters[number].code)
        in_codes = [CODE_OF[d] if not isinstance(d, int) else d for d in in_dtypes]
        if reduce_op < 0:
            self.kernel = FusedKernel(in_codes, temp_dtypes, [t.code for t in out_types],
                                      kcode, constants)
            self.kernel.bind([number for number, m, baked in inputs],
                             [m for number, m, baked in inputs],
                             [baked for number, m, baked in inputs],
                             self.shape, [t.m2m for t in out_types])
        else:
            self.kernel = FusedKernel(in_codes, temp_dtypes, [t.code for t in out_types],
                                      kcode, constants, reduce_op=reduce_op)
            self.kernel.bind([number for number, m, baked in inputs],
                             [m for number, m, baked in inputs],
                             [baked for number, m, baked in inputs],
                             self.shape, [reduce_type.m2m], reduce_ndim=reduce_ndim)
        native.watch(self.kernel)

    def _iota_source(self, iota, dims, input_for):
        k = iota.attrs["iota_dimension"]
        n = iota.dims[k]
        vec = iota_kernel(iota.code, n)
        return input_for(("iota", iota.code, n, dims[k]), None, (dims[k],), vec)

    def run(self, operands):
        return self.kernel(operands)


class _ElementwisePart:
    """The elementwise producer of a kInput fusion, seen as a fused computation whose
    ROOT is the reduction's operand (what KernelPlan lowers)."""

    def __init__(self, fused, root):
        self.parameters = fused.parameters
        self.instructions = [i for i in fused.instructions
                             if i.op != "reduce" and i is not fused.root.operands[1]]
        self.root = root


class _OutputPart:
    """The elementwise part of a kOutput fusion, seen as a fused computation whose dot is
    one more parameter, number ``number`` (what KernelPlan lowers)."""

    def __init__(self, fused, dot, number):
        pseudo = Instruction("parameter", (), dot.type, {"number": number})
        mapping = {id(dot): pseudo}
        self.instructions = [pseudo]
        for i in fused.instructions:
            if i is dot:
                continue
            if i.op == "parameter":
                mapping[id(i)] = i
                self.instructions.append(i)
                continue
            c = Instruction(i.op, [mapping.get(id(o), o) for o in i.operands], i.type,
                            i.attrs, i.calls)
            mapping[id(i)] = c
            self.instructions.append(c)
        self.parameters = list(fused.parameters) + [pseudo]
        self.root = mapping[id(fused.root)]


def _output_fusion_step(i):
    """kind=kOutput: the GEMM, then the fused elementwise program over its result, one
    step (one kernel). Returns None when the elementwise part does not lower."""
    fused = i.calls[0]
    dot = next(x for x in fused.instructions if x.op in OUTPUT_FUSIBLE)
    number = len(i.operands)
    try:
        plan = KernelPlan(_OutputPart(fused, dot, number), [i.type])
    except LoweringError:
        return None
    kernel = plan.kernel
    impl, attrs = REGISTRY[dot.op].impl, dict(dot.attrs)
    ln, rn = (o.attrs["number"] for o in dot.operands)

    def step(*xs):
        product = impl(xs[ln], xs[rn], **attrs)
        return kernel(list(xs) + [product])[0]
    return step


# ------------------------------------------------------------------------ executable
class Executable:
    """Runs one optimized computation: a list of steps over value slots."""

    def __init__(self, comp):
        self.comp = comp
        self.kernel_count = 0
        self.kernels = []  # the FusedKernel of each fusion step, in order
        self._maybe_views = set()  # ids of fusions run op by op (_update_in_place)
        slot = {}
        init = []
        steps = []
        for n, i in enumerate(comp.instructions):
            slot[id(i)] = n
        self.n_slots = len(comp.instructions)
        self.param_slots = [slot[id(p)] for p in comp.parameters]
        for i in comp.instructions:
            s = slot[id(i)]
            ins = [slot[id(o)] for o in i.operands]
            if i.op == "parameter":
                continue
            if i.op == "constant":
                init.append((s, i.attrs["value"]))
                continue
            fn = self._step(i)
            steps.append((fn, ins, s))
        self.init = init
        self.steps = steps
        self.root_slot = slot[id(comp.root)]
        self._update_in_place(comp, [s for s, _ in init])
        root = comp.root
        if len(steps) == 1 and root.op == "fusion" and not root.is_tuple and not init and \
                all(o.op == "parameter" for o in root.operands) and \
                isinstance(getattr(self, "_last_plan", None), KernelPlan) and \
                self._last_plan.epilogue is None:
            # parameters -> one kernel -> ROOT: skip the slot machinery
            kernel = self._last_plan.kernel
            numbers = [o.attrs["number"] for o in root.operands]
            if numbers == list(range(len(numbers))) and len(numbers) == len(comp.parameters):
                self.run = lambda args: kernel(args)[0]

    def _update_in_place(self, comp, init_slots):
        """Lets each dynamic_update_slice step write into its operand's buffer when no
        value sharing that buffer is read after the step and the buffer is not a
        parameter's, a constant's or the result's. Values share buffers through every step
        but those in _FRESH_RESULTS (slices, reshapes, tuples: taken as views). Example:
        20 steps of u[1:-1, 1:-1] = f(u) (diffusion) update one grid instead of copying it
        20 times."""
        parent = list(range(self.n_slots))

        def find(a):
            while parent[a] != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            return a
        ops = [i.op if id(i) not in self._maybe_views else "fusion run op by op"
               for i in comp.instructions]
        for fn, ins, out in self.steps:
            if ops[out] not in _FRESH_RESULTS and ops[out] not in KERNEL_OPS:
                for k in ins:
                    parent[find(k)] = find(out)
        last = {}
        for n, (fn, ins, out) in enumerate(self.steps):
            for k in ins:
                last[find(k)] = n
        never = {find(s) for s in self.param_slots + init_slots + [self.root_slot]}
        for n, (fn, ins, out) in enumerate(self.steps):
            if ops[out] != "dynamic_update_slice":
                continue
            c = find(ins[0])
            if c in never or last.get(c) != n or any(find(k) == c for k in ins[1:]):
                continue
            self.steps[n] = (_dus_in_place(fn), ins, out)

    def _step(self, i):
        """The callable that runs instruction ``i``: a fusion's FusedKernel, or the
        op's own step from its registry row (``lower`` for control flow and custom calls,
        ``impl`` for structural ops and reductions)."""
        op = i.op
        if op == "fusion" and i.attrs.get("kind") == "kOutput":
            self.kernel_count += 1
            step = _output_fusion_step(i)
            if step is not None:
                return step
            self._maybe_views.add(id(i))
            sub = Executable(i.calls[0])
            return lambda *xs: sub.run(list(xs))
        if op == "fusion":
            self.kernel_count += 1
            out_types = [i.type] if not i.is_tuple else list(i.type)
            try:
                plan = KernelPlan(i.calls[0], out_types)
                self._last_plan = plan
            except LoweringError:
                self._maybe_views.add(id(i))   # op by op: a leaf output may be a view
                sub = Executable(i.calls[0])
                return lambda *xs: sub.run(list(xs))
            kernel = plan.kernel
            self.kernels.append(kernel)
            if plan.epilogue is not None:      # kInput with a non-identity init
                monoid, init = plan.epilogue
                return lambda *xs: lax_apply(monoid, kernel(xs)[0], init)
            if not i.is_tuple:
                return lambda *xs: kernel(xs)[0]
            return lambda *xs: tuple(kernel(xs))
        if op in KERNEL_OPS or op in ("convert", "broadcast", "iota"):
            return _single_op_step(i)
        if op == "get_tuple_element":
            k = i.attrs["index"]
            return lambda t: t[k]
        if op == "slice" and i.dims:
            # the view by a basic index built once (the registry impl builds it per call)
            key = slice_key(i.attrs["start_indices"], i.attrs["limit_indices"],
                            i.attrs["strides"])
            return lambda x: x[key]
        if op == "tuple":
            return lambda *xs: tuple(xs)
        row = REGISTRY.get(op)
        if row is not None and getattr(row, "lower", None) is not None:
            return row.lower(i)
        if row is not None and row.impl is not None:
            impl, attrs = row.impl, dict(i.attrs)
            return lambda *xs: impl(*xs, **attrs)
        raise NotImplementedError(f"no executor for {op}")

    def run(self, args):
        env = [None] * self.n_slots
        for s, a in zip(self.param_slots, args):
            env[s] = a
        for s, v in self.init:
            env[s] = v
        for fn, ins, out in self.steps:
            env[out] = fn(*[env[k] for k in ins])
        return env[self.root_slot]


# Ops whose step always returns a new buffer (besides KERNEL_OPS' elementwise steps); a
# dynamic_update_slice result is a new value even when written in place (its operand's
# buffer is dead then).
_FRESH_RESULTS = ("fusion", "convert", "iota", "dynamic_update_slice")


def _dus_in_place(copying):
    """The in-place step of dynamic_update_slice: the operand itself is written when it is
    a writeable row-major tensor (not a broadcast or other view), else ``copying`` runs."""
    def step(x, update, *starts):
        f = x.flags
        if f["C_CONTIGUOUS"] and f["WRITEABLE"] and not f["TILED"]:
            return dus_into(x, update, *starts)
        return copying(x, update, *starts)
    return step


def _single_op_step(i):
    """The step of a fusible instruction run on its own, outside any fusion: inside the
    fused computation of a fusion the executor cannot take (LoweringError), which then
    runs op by op (never the fast path, always correct)."""
    dims, code = tuple(i.dims), i.code
    if i.op == "convert":
        def convert(x):
            out = _tensor.empty(dims, code)
            _tensor.convert_into(out, x)
            return out
        return convert
    if i.op == "broadcast":
        bd = tuple(i.attrs["dimensions"])
        return lambda x: broadcast_view(x, dims, bd)
    if i.op == "iota":
        k = i.attrs["iota_dimension"]
        return lambda: broadcast_view(iota_kernel(code, dims[k]), dims, (k,)).copy()
    opdef = KERNEL_OPS[i.op]
    value_code = opdef.value_code([o.code for o in i.operands])

    def elementwise(*xs):
        out = _tensor.empty(dims, code)
        if out.size:
            run_elementwise(opdef.code, value_code, out, list(xs))
        return out
    return elementwise


def unaliased(out, inputs):
    """out, with any tensor that IS one of ``inputs`` copied (a computation that passes
    an argument through must not hand the caller its own buffer back)."""
    ids = {id(x) for x in inputs}
    if isinstance(out, tuple):
        return tuple(x.copy() if id(x) in ids else x for x in out)
    return out.copy() if id(out) in ids else out


def compiled_computation(comp):
    exe = getattr(comp, "_executable", None)
    if exe is None:
        exe = Executable(comp)
        comp._executable = exe
    return exe
