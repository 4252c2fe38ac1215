# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: embedsignature=True
# distutils: language = c++
"""Binding of the fused executor (csrc/fused/executor.h): ``FusedKernel``, a validated
register program the graph compiler (xarr/_graph/compile.py) builds once per fusion and
calls on every run, with its native form (xarr/_graph/native.py) when one is compiled.
"""

from libc.stdint cimport int64_t, uintptr_t
from libcpp.string cimport string
from libcpp.vector cimport vector

from xarr._capi cimport dtype_itemsize, kMaxArgs, kMaxDims
from xarr._tensor cimport (F_TILED, F_WRITEABLE, Tensor, alloc_tensor, as_strided,
                           broadcast_strides, fill_dims, shape_of)

from xarr._dtypes import DTYPES

cdef extern from "fused/executor.h" namespace "xarr" nogil:
    enum:
        kFusedConvert
        kFusedMaxOperands
    cdef cppclass FusedInstr:
        int op, dtype, out_dtype, nargs, dst
        int args[3]
    ctypedef void (*NativeFusedFn)(char** args, const char** consts, int64_t n)
    cdef cppclass NativeForm:
        NativeFusedFn fn
        int isa
    cdef cppclass FusedProgram:
        int ninputs, ntemps, nconst, reduce_op
        const NativeForm* native
        vector[int] input_dtypes
        vector[int] temp_dtypes
        vector[int] output_dtypes
        vector[FusedInstr] code
    void set_native_fused(FusedProgram* p, NativeFusedFn f, int isa) except +
    string validate_fused(const FusedProgram& p) except +
    void run_fused(const FusedProgram& p, char** ptrs, int ndim, const int64_t* dims,
                   const int64_t* strides) except +
    void run_fused_reduce(const FusedProgram& p, char** ptrs, int64_t outer, int64_t inner,
                          const int64_t* strides_outer, const int64_t* strides_inner,
                          int64_t out_stride) except +

cdef extern from "kernels/reduce/reduce.h" namespace "xarr" nogil:
    int reduce_run(int op, int dtype, const char* src, int ndim, const int64_t* dims,
                   const int64_t* src_strides, const int64_t* dst_strides, char* dst) except +

# The op code of a conversion instruction, and the most operands one elementwise loop of
# the fused executor takes (what the fusion pass may put in one kernel).
FUSED_CONVERT = kFusedConvert
MAX_FUSED_OPERANDS = kMaxArgs


cdef class FusedKernel:
    """A validated fused elementwise program (csrc/fused/executor.h), built once by the
    graph compiler and run on every call.

    code: [(op, dtype, out_dtype, [argument registers], dst)] with op an EwOp code or
    FUSED_CONVERT. Registers: the run() inputs first, then ``constants`` (0-d tensors
    baked in at compile time), then temporaries; dst = -1 - k writes output k.

    reduce_op (kind=kInput fusion): -1, or REDUCE_SUM / REDUCE_MAX / REDUCE_MIN; the
    program then has one output whose values are reduced over the trailing ``reduce_ndim``
    dims of the iteration shape (bind) as they are computed, in one pass
    (csrc/fused/executor.h run_fused_reduce). run() always stores the unreduced values.
    """
    cdef FusedProgram prog
    cdef readonly int n_inputs
    cdef readonly tuple output_dtypes
    cdef readonly int reduce_op, reduce_ndim
    # the last reducing call ran fused (one pass); False: the unfused fallback (tests)
    cdef readonly bint last_fused
    cdef list constants
    # set by bind(): how __call__ picks its inputs from the fusion's operands
    cdef list numbers, maps, baked, out_m2m
    cdef tuple shape
    # (input dtypes, constant dtypes, temporary dtypes, output dtypes, code): the program
    # as given, for the native code generator (xarr/_graph/native.py)
    cdef readonly tuple spec
    cdef object __weakref__   # native.py groups the kernels of one program in a WeakSet
    # elements x instructions run so far; when it reaches hot_work, on_hot(self) is
    # called once (the graph compiler asks for the native form of a hot kernel)
    cdef readonly int64_t work
    cdef int64_t hot_work
    cdef object on_hot
    cdef object native_lib

    def __init__(self, input_dtypes, temp_dtypes, output_dtypes, code, constants=(),
                 int reduce_op=-1):
        cdef FusedInstr ins
        cdef Tensor c
        self.constants = [as_strided(c) for c in constants]
        self.n_inputs = len(input_dtypes)
        self.output_dtypes = tuple(output_dtypes)
        self.reduce_op = reduce_op
        self.reduce_ndim = 0
        self.prog.reduce_op = reduce_op
        self.prog.ninputs = self.n_inputs + len(self.constants)
        self.prog.nconst = len(self.constants)
        for d in input_dtypes:
            self.prog.input_dtypes.push_back(d)
        for c in self.constants:
            if c._ndim != 0:
                raise ValueError("FusedKernel: constants must be 0-d tensors")
            self.prog.input_dtypes.push_back(c._dtype)
        self.prog.ntemps = len(temp_dtypes)
        for d in temp_dtypes:
            self.prog.temp_dtypes.push_back(d)
        for d in output_dtypes:
            self.prog.output_dtypes.push_back(d)
        for op, dtype, out_dtype, args, dst in code:
            if not 1 <= len(args) <= 3:
                raise ValueError(f"FusedKernel: an instruction takes 1 to 3 operands, got "
                                 f"{len(args)}")
            ins.op = op
            ins.dtype = dtype
            ins.out_dtype = out_dtype
            ins.nargs = len(args)
            for k in range(3):
                ins.args[k] = args[k] if k < len(args) else 0
            ins.dst = dst
            self.prog.code.push_back(ins)
        msg = validate_fused(self.prog).decode()
        if msg:
            raise ValueError(f"FusedKernel: {msg}")
        self.spec = (tuple(input_dtypes), tuple([c._dtype for c in self.constants]),
                     tuple(temp_dtypes), tuple(output_dtypes),
                     tuple([(op, dt, odt, tuple(args), dst)
                            for op, dt, odt, args, dst in code]))

    def watch(self, int64_t hot_work, on_hot):
        """Calls on_hot(self) once, from the call whose work (elements x instructions
        run, summed over calls) reaches hot_work."""
        self.hot_work = hot_work
        self.on_hot = on_hot

    def set_native(self, lib, uintptr_t address, int isa):
        """Runs the native form at ``address`` (NativeFusedFn, csrc/fused/executor.h),
        compiled for ISA code ``isa``, from the next run on whenever that ISA is active;
        ``lib`` (the loaded library) is kept alive with the kernel. address 0: interpret
        again."""
        if address:
            self.native_lib = lib
        set_native_fused(&self.prog, <NativeFusedFn>address, isa)

    @property
    def is_native(self):
        return self.prog.native != NULL

    cdef _count_work(self, int64_t size):
        self.work += size * <int64_t>self.prog.code.size()
        if self.on_hot is not None and self.work >= self.hot_work:
            cb, self.on_hot = self.on_hot, None
            cb(self)

    def bind(self, numbers, maps, baked, shape, out_m2m, int reduce_ndim=0):
        """Fixes how a call maps operands to inputs: input a is operands[numbers[a]] (or
        baked[a] when numbers[a] is None) read through maps[a]; outputs are new tensors
        of ``shape`` with minor_to_major out_m2m[k] (None: row-major).
        A reducing kernel: ``shape`` is the iteration shape, its trailing ``reduce_ndim``
        dims are reduced; the output is a new tensor of shape[:len(shape) - reduce_ndim]
        with minor_to_major out_m2m[0]."""
        if reduce_ndim != 0 and self.reduce_op < 0:
            raise ValueError("FusedKernel: reduce_ndim needs a reducing kernel (reduce_op)")
        if not 0 <= reduce_ndim <= len(shape):
            raise ValueError(f"FusedKernel: reduce_ndim {reduce_ndim} out of range for "
                             f"shape {tuple(shape)}")
        self.reduce_ndim = reduce_ndim
        self.numbers = [(-1 if n is None else n) for n in numbers]
        self.maps = list(maps)
        self.baked = list(baked)
        self.shape = tuple(shape)
        self.out_m2m = list(out_m2m)

    def __call__(self, operands):
        """Runs on the fusion's operands (after bind); returns the list of new outputs."""
        cdef int a, n
        cdef int64_t dims[kMaxDims]
        cdef int nd = fill_dims(self.shape, dims)
        cdef list ins = []
        for a in range(self.n_inputs):
            n = self.numbers[a]
            ins.append(self.baked[a] if n < 0 else operands[n])
        if self.reduce_op >= 0:
            return [self._run_reduce(ins, nd, dims)]
        cdef list outs = [alloc_tensor(self.prog.output_dtypes[a], nd, dims,
                                        self.out_m2m[a], False)
                          for a in range(len(self.output_dtypes))]
        self.run(ins, self.maps, self.shape, outs)
        return outs

    cdef int _bind_inputs(self, list inputs, maps, int ndim, const int64_t* dims,
                          char** ptrs, int64_t* strides, list keep) except -1:
        """Fills ptrs/strides (bytes, against the iteration dims) for the inputs, each
        broadcast right-aligned (maps[a] None) or through its BroadcastInDim map, then the
        constants (stride 0). Raises on a dtype or shape that does not fit."""
        cdef int nin = len(inputs), nc = len(self.constants), a, i, d
        cdef Tensor x
        shape = tuple([dims[i] for i in range(ndim)])
        for a in range(nin):
            x = inputs[a]
            if x._flags & F_TILED:
                x = as_strided(x)
                keep.append(x)
            if x._dtype != self.prog.input_dtypes[a]:
                raise TypeError(f"FusedKernel: input {a} is {DTYPES[x._dtype]}, expected "
                                f"{DTYPES[self.prog.input_dtypes[a]]}")
            ptrs[a] = x._data
            m = maps[a]
            if m is None:
                broadcast_strides(x, ndim, dims, &strides[a * ndim])   # (checks the shape)
            else:
                if len(m) != x._ndim:
                    raise ValueError(f"FusedKernel: input {a} map {m} vs rank {x._ndim}")
                for i in range(ndim):
                    strides[a * ndim + i] = 0
                for i in range(x._ndim):
                    d = m[i]
                    if d < 0 or d >= ndim or (x._dims[i] != 1 and x._dims[i] != dims[d]):
                        raise ValueError(f"FusedKernel: input {a} shape {shape_of(x)} does not "
                                         f"map onto {shape} with {m}")
                    if x._dims[i] != 1:
                        strides[a * ndim + d] = x._strides[i]
        for a in range(nc):
            x = self.constants[a]
            ptrs[nin + a] = x._data
            for i in range(ndim):
                strides[(nin + a) * ndim + i] = 0
        return 0

    def run(self, inputs, maps, shape, outputs):
        """Runs over the iteration ``shape``: ``outputs`` are tensors of that shape (any
        strides); input a broadcasts to it right-aligned when maps[a] is None, else its
        dim i lands on result dim maps[a][i] (BroadcastInDim). Releases the GIL."""
        cdef int nin = len(inputs), nc = len(self.constants), nout = len(outputs)
        cdef int nargs = nin + nc + nout, ndim = len(shape), a, i, d
        cdef char* ptrs[kFusedMaxOperands]
        cdef int64_t dims[kMaxDims]
        cdef int64_t strides[kFusedMaxOperands * kMaxDims]
        cdef int64_t size = 1
        cdef Tensor x
        cdef list keep = []
        if nin != self.n_inputs or nout != len(self.output_dtypes):
            raise ValueError(f"FusedKernel: expected {self.n_inputs} inputs and "
                             f"{len(self.output_dtypes)} outputs, got {nin} and {nout}")
        if nargs > kFusedMaxOperands or ndim > kMaxDims:
            raise ValueError("FusedKernel: too many operands or dims")
        for i in range(ndim):
            dims[i] = shape[i]
            size *= dims[i]
        self._bind_inputs(inputs, maps, ndim, dims, ptrs, strides, keep)
        for a in range(nout):
            x = outputs[a]
            if x._ndim != ndim or x._dtype != self.prog.output_dtypes[a] or \
                    not (x._flags & F_WRITEABLE) or (x._flags & F_TILED):
                raise ValueError(f"FusedKernel: output {a} must be a writeable strided "
                                 f"{DTYPES[self.prog.output_dtypes[a]]} tensor of rank "
                                 f"{ndim}")
            for i in range(ndim):
                if x._dims[i] != dims[i]:
                    raise ValueError(f"FusedKernel: output {a} has shape {shape_of(x)}, "
                                     f"expected {tuple(shape)}")
                strides[(nin + nc + a) * ndim + i] = x._strides[i]
            ptrs[nin + nc + a] = x._data
        if size == 0:
            return
        with nogil:
            run_fused(self.prog, ptrs, ndim, dims, strides)
        self._count_work(size)

    cdef Tensor _run_reduce(self, list inputs, int nd, int64_t* dims):
        """The reducing call: a new output of dims[:nd - reduce_ndim]. One fused pass when
        the kept dims coalesce into one ``outer`` dim and the reduced dims into one
        ``inner`` dim for every operand; else the values are computed into a temporary
        (run) and reduced by reduce_run."""
        cdef int nin = self.n_inputs, nc = len(self.constants), nk = nd - self.reduce_ndim
        cdef int a, i, d, rc, op = self.reduce_op, odt = self.prog.output_dtypes[0]
        cdef char* ptrs[kFusedMaxOperands + 1]
        cdef int64_t strides[kFusedMaxOperands * kMaxDims]
        cdef int64_t so[kFusedMaxOperands]
        cdef int64_t si[kFusedMaxOperands]
        cdef int64_t dst_strides[kMaxDims]
        cdef int64_t outer, inner, s_out
        cdef bint ok
        cdef Tensor x, tmp
        cdef list keep = []
        if len(inputs) != nin or nin + nc > kFusedMaxOperands:
            raise ValueError(f"FusedKernel: expected {nin} inputs, got {len(inputs)}")
        cdef Tensor out = alloc_tensor(odt, nk, dims, self.out_m2m[0], False)
        self._bind_inputs(inputs, self.maps, nd, dims, ptrs, strides, keep)
        ptrs[nin + nc] = out._data
        ok = _coalesce_span(nin, nd, 0, nk, dims, strides, out._strides, so, &outer, &s_out)
        ok = ok and _coalesce_span(nin, nd, nk, nd, dims, strides, NULL, si, &inner, NULL)
        self.last_fused = ok
        if ok:
            try:
                with nogil:
                    run_fused_reduce(self.prog, ptrs, outer, inner, so, si, s_out)
            except MemoryError:
                raise MemoryError(f"fused reduction of {outer} x {inner} elements (shape "
                                  f"{tuple([dims[i] for i in range(nd)])}): not enough "
                                  f"memory for its partial results") from None
            self._count_work(outer * inner)
            return out
        # Unfused fallback (e.g. a transposed input): values into a temporary, then reduce.
        tmp = alloc_tensor(odt, nd, dims, None, False)
        self.run(inputs, self.maps, self.shape, [tmp])
        for i in range(nd):
            if i >= nk:
                dst_strides[i] = 0
            else:
                dst_strides[i] = out._strides[i] if out._strides[i] != 0 else dtype_itemsize(odt)
        with nogil:
            rc = reduce_run(op, odt, tmp._data, nd, dims, tmp._strides, dst_strides,
                            out._data)
        if rc != 0:
            raise ValueError(f"FusedKernel: reduce_run failed ({rc})")
        return out


cdef bint _coalesce_span(int nargs, int nd, int lo, int hi, const int64_t* dims,
                         const int64_t* strides, const int64_t* extra, int64_t* merged,
                         int64_t* extent, int64_t* extra_merged) noexcept:
    """Merges dims lo..hi-1 (row-major order) into one dim for every operand a
    (strides[a * nd + d]) and for ``extra`` (one stride per dim, may be NULL): the merged
    stride is that of the innermost dim of extent > 1. False when some operand's strides
    do not chain (stride[d] == stride[d + 1] * dims[d + 1] over the non-1 dims)."""
    cdef int a, d
    cdef int64_t n = 1, span = 0
    for d in range(lo, hi):
        n *= dims[d]
    extent[0] = n
    for a in range(nargs):
        merged[a] = 0
    if extra_merged != NULL:
        extra_merged[0] = 0
    if n == 0:
        return True
    for d in range(hi - 1, lo - 1, -1):
        if dims[d] == 1:
            continue
        if span == 0:
            for a in range(nargs):
                merged[a] = strides[a * nd + d]
            if extra != NULL:
                extra_merged[0] = extra[d]
            span = dims[d]
            continue
        for a in range(nargs):
            if strides[a * nd + d] != merged[a] * span:
                return False
        if extra != NULL and extra[d] != extra_merged[0] * span:
            return False
        span *= dims[d]
    return True
