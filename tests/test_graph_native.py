"""Native fused kernels (xarr/_graph/native.py): a hot fused program compiled to C++ at
run time must give the interpreter's bits, for random DAGs over every real dtype, for
kInput reductions, on 1 and 2 threads, with strided rows falling back to the
interpreter, and must step aside when the active ISA changes."""

import os
import shutil
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xarr as xa
from conftest import LAYOUTS, assert_same, make_tensor, random_array, to_np
from test_graph_random import programs, run
from xarr._graph import native

# Skipped only where native kernels cannot exist (no compiler, native kernels switched off,
# no vector ISA); a compiler without the installed headers and flags is a packaging bug and
# fails test_available_with_a_compiler_and_headers.
pytestmark = pytest.mark.skipif(
    not (shutil.which("c++") or shutil.which("g++")) or native.mode() == "off" or
    xa._core.get_isa() not in native._NATIVE_ISAS,
    reason="no C++ compiler, XARR_NATIVE=0 or no vector ISA: native kernels off")

REAL_DTYPES = [xa.bool_, xa.int8, xa.int16, xa.int32, xa.int64, xa.uint8, xa.uint16,
               xa.uint32, xa.uint64, xa.float16, xa.bfloat16, xa.float32, xa.float64]


def bits(x):
    return to_np(x).copy()


def test_available_with_a_compiler_and_headers():
    """The installed package ships its headers and flags, so with a compiler on PATH
    native kernels must be available."""
    assert (native._INCLUDE / "native_flags.txt").is_file()
    assert native.toolchain().error is None
    assert native.available()


# Shapes larger than a block (2048 f32), with tails, and rows of a 2-D iteration space.
BIG = [(5000,), (3, 2100), (70, 33), (1,), (0, 5)]


@settings(max_examples=3, deadline=None)
@given(st.lists(programs(), min_size=25, max_size=25), st.sampled_from(BIG))
def test_random_dags_native_matches_interpreter(cases, shape):
    """25 random programs compiled as one translation unit: each compiled kernel gives
    the interpreter's bits (inputs of every layout; strided rows are interpreted)."""
    runs = []
    for shapes, dtypes, layouts, program, seed in cases:
        rng = np.random.default_rng(seed)
        in_shapes = [shape if len(s) != 1 or not shape else shape[-1:] for s in shapes]
        arrays = [random_array(rng, s, d, specials=0.15) for s, d in zip(in_shapes, dtypes)]
        ts = [make_tensor(a, how) for a, how in zip(arrays, layouts)]
        c = xa.jit(lambda *xs, p=program: run(p, xs)).lower(*ts).compile()
        interp = c(*ts)
        interp = [bits(v) for v in (interp if isinstance(interp, tuple) else (interp,))]
        runs.append((c, ts, interp, arrays))
    kernels = [k for c, *_ in runs for k in c.fused_kernels]
    n = native.compile_kernels(kernels)
    assert n == sum(native.source(k.spec) is not None for k in kernels)
    # the cheap check watch() makes agrees with writing the source
    assert all(native.compilable(k.spec) == (native.source(k.spec) is not None)
               for k in kernels)
    assert n > 0
    assert all(k.is_native for k in kernels if native.source(k.spec) is not None)
    for c, ts, interp, arrays in runs:
        got = c(*ts)
        got = got if isinstance(got, tuple) else (got,)
        info = {f"in{k}": a for k, a in enumerate(arrays)}
        for g, want in zip(got, interp):
            assert_same(g, want, inputs=info)


def _every_op_chain(x, y, z):
    """Every elementwise op that applies to the dtype, chained so each result feeds the
    next (values pass through temporaries of the op's dtype), with conversions to every
    dtype and back, selects and clamps."""
    acc = x
    ops = [
        lambda a: -a, xa.abs, xa.sign, xa.bitwise_not, xa.logical_not, xa.floor, xa.ceil,
        xa.round, xa.trunc, xa.exp, xa.expm1, xa.exp2, xa.log, xa.log1p, xa.log2, xa.log10,
        xa.tanh, xa.arcsin, xa.arctan, xa.sinh, xa.arcsinh, xa.sqrt, xa.cbrt, xa.square,
        xa.isfinite, xa.isnan, xa.isinf, xa.signbit,
        lambda a: a + y, lambda a: a - y, lambda a: a * y, lambda a: a / y,
        lambda a: a // y, lambda a: a % y, lambda a: xa.fmod(a, y),
        lambda a: xa.maximum(a, y), lambda a: xa.minimum(a, y),
        # integer powers: non-negative exponents (a negative one raises eagerly, from the
        # values, which a traced function cannot see)
        lambda a: xa.power(a, y) if np.dtype(a.dtype).kind == "f" else xa.power(a, y & 3),
        lambda a: xa.arctan2(a, y), lambda a: xa.hypot(a, y), lambda a: xa.copysign(a, y),
        lambda a: xa.logaddexp(a, y), lambda a: a & y, lambda a: a | y, lambda a: a ^ y,
        lambda a: a << y, lambda a: a >> y, lambda a: a < y, lambda a: a == y,
        lambda a: a >= y, lambda a: xa.nextafter(a, y),
        lambda a: xa.where(a > z, a, z), lambda a: xa.clip(a, y, z),
    ]
    outs = []
    for op in ops:
        try:
            v = op(acc)
        except (TypeError, ValueError, OverflowError):
            continue
        outs.append(v)
        if v.dtype == x.dtype:
            acc = v
    for d in REAL_DTYPES:
        outs.append(acc.astype(d).astype(x.dtype) + x)
    # one output per op keeps every result observable
    return tuple(outs)


@pytest.mark.parametrize("shape", [(2500,), (4, 129)])
def test_every_op_every_dtype_native_matches_interpreter(shape):
    rng = np.random.default_rng(11)
    runs = []
    for d in REAL_DTYPES:
        arrays = [random_array(rng, shape, d, specials=0.2) for _ in range(3)]
        ts = [xa.asarray(a) for a in arrays]
        c = xa.jit(_every_op_chain).lower(*ts).compile()
        runs.append((d, c, ts, [bits(v) for v in c(*ts)]))
    kernels = [k for _, c, *_ in runs for k in c.fused_kernels]
    assert native.compile_kernels(kernels) > 0
    for d, c, ts, interp in runs:
        assert any(k.is_native for k in c.fused_kernels), d
        for g, want in zip(c(*ts), interp):
            assert_same(g, want)


@pytest.mark.parametrize("dtype", [xa.float32, xa.float64, xa.float16, xa.int32])
@pytest.mark.parametrize("shape,axis", [((100000,), None), ((37, 3000), 1), ((300, 40), 1),
                                        ((50, 300), 0), ((3000, 5), 1)])
def test_fused_reduction_native_matches_interpreter(dtype, shape, axis, restore_threads):
    """kInput fusion: the native form feeds the reduction's staging block; the sums are
    the interpreter's bit for bit, on 1 and 2 threads."""
    rng = np.random.default_rng(3)
    x = xa.asarray(random_array(rng, shape, dtype, low=-2, high=2)
                   if dtype != xa.int32 else random_array(rng, shape, dtype))
    c = xa.jit(lambda v: xa.sum(v * 3 - 1, axis=axis)).lower(x).compile()
    interp = bits(c(x))
    assert native.compile_kernels(c.fused_kernels) == 1
    for threads in (1, 2):
        xa.set_num_threads(threads)
        assert_same(c(x), interp)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_strided_and_broadcast_rows_fall_back(layout):
    """Rows that are not contiguous (column-major, tiled, sliced, broadcast along the row)
    run interpreted in the same call; results equal the eager ones."""
    rng = np.random.default_rng(5)
    a = random_array(rng, (40, 300), np.float32)
    col = random_array(rng, (40, 1), np.float32)
    ta, tcol = make_tensor(a, layout), xa.asarray(col)
    f = xa.jit(lambda u, v: xa.exp(u) * 2 - v)
    c = f.lower(ta, tcol).compile()
    assert native.compile_kernels(c.fused_kernels) == 1
    assert_same(c(ta, tcol), to_np(xa.exp(ta) * 2 - tcol))
    sliced = xa.asarray(a)[:, ::3]
    c2 = f.lower(sliced, tcol).compile()
    assert native.compile_kernels(c2.fused_kernels) == 1
    assert_same(c2(sliced, tcol), to_np(xa.exp(sliced) * 2 - tcol))


def test_native_steps_aside_when_the_isa_changes(restore_isa):
    """Each ISA's table gives its own bits for transcendental functions: a kernel compiled
    for the active ISA is not used after set_isa('ref')."""
    x = xa.asarray(np.linspace(-3, 3, 5000, dtype=np.float32))
    c = xa.jit(lambda v: xa.tanh(v) + xa.exp(v)).lower(x).compile()
    assert native.compile_kernels(c.fused_kernels) == 1
    xa._core.set_isa("ref")
    want = to_np(xa.tanh(x) + xa.exp(x))
    assert_same(c(x), want)
    assert c.fused_kernels[0].is_native


def cached_kernel(f):
    """The fused kernel the jitted f's one cached executable runs."""
    (compiled,) = set(f._cache.values())
    (kernel,) = compiled.fused_kernels
    return kernel


def test_hot_kernels_compile_in_sync_mode(monkeypatch):
    """A kernel turns native once its work reaches HOT_WORK (XARR_NATIVE=sync compiles in
    the calling thread); below it, it stays interpreted."""
    monkeypatch.setenv("XARR_NATIVE", "sync")
    monkeypatch.setattr(native, "HOT_WORK", 30000)
    x = xa.asarray(np.arange(10000, dtype=np.float32))
    f = xa.jit(lambda v: v * 2 + 1)
    f(x)
    kernel = cached_kernel(f)
    assert kernel.work == 20000 and not kernel.is_native
    f(x)
    assert kernel.is_native
    assert_same(f(x), np.arange(10000, dtype=np.float32) * 2 + 1)


def test_background_compile_and_wait(monkeypatch):
    monkeypatch.setenv("XARR_NATIVE", "1")
    monkeypatch.setattr(native, "HOT_WORK", 1000)
    x = xa.asarray(np.arange(3000, dtype=np.float64))
    f = xa.jit(lambda v: xa.sqrt(v) * 3 - v)
    want = bits(f(x))
    native.wait()
    assert cached_kernel(f).is_native
    assert_same(f(x), want)


def test_off_never_compiles(monkeypatch):
    monkeypatch.setenv("XARR_NATIVE", "0")
    monkeypatch.setattr(native, "HOT_WORK", 1)
    x = xa.asarray(np.arange(3000, dtype=np.float32))
    f = xa.jit(lambda v: v - 7)
    f(x)
    f(x)
    native.wait()
    assert not cached_kernel(f).is_native
    assert not native.available()


def test_no_native_form_for_complex_and_trig():
    z = xa.asarray(np.ones(10, np.complex64))
    c = xa.jit(lambda v: v * v + 1).lower(z).compile()
    assert native.source(c.fused_kernels[0].spec) is None
    assert native.compile_kernels(c.fused_kernels) == 0
    x = xa.asarray(np.ones(10, np.float32))
    c = xa.jit(lambda v: xa.sin(v) + 1).lower(x).compile()
    assert native.source(c.fused_kernels[0].spec) is None


def test_a_compile_error_warns_and_stays_interpreted():
    with pytest.warns(RuntimeWarning, match="failed to compile"):
        assert native._load(xa._core.get_isa(), "this is not C++ {") is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert native._load(xa._core.get_isa(), "this is not C++ {") is None  # cached


def test_the_prelude_is_precompiled_once():
    """Kernels compile against a precompiled PRELUDE (built once per ISA and cached on
    disk). (GCC would fall back to the plain header if the .gch did not match; the
    bit-identity tests above do not tell the two apart.)"""
    d = native._prelude_pch(xa._core.get_isa())
    assert d is not None and (d / (native.PRELUDE_HEADER + ".gch")).is_file()
    assert (d / native.PRELUDE_HEADER).read_text() == native.PRELUDE


def test_generated_source_worked_example():
    x = xa.asarray(np.ones(8, np.float32))
    k = xa.jit(lambda v: v * 1.5 + 2).lower(x).compile().fused_kernels[0]
    text = native.source(k.spec, "f")
    assert 'extern "C" void f(char* const* args, const char* const* consts, int64_t n)' in text
    assert "const float v0 = ap<Mul, float>(x0, k0);" in text
    assert "const float v1 = ap<Add, float>(v0, k1);" in text
    assert "out0[i] = v1;" in text


def test_the_disk_cache_is_trimmed_least_recently_used_first(tmp_path, monkeypatch):
    """Beyond CACHE_LIMIT bytes the oldest libraries and prelude folders go; what is in
    use stays."""
    monkeypatch.setattr(native, "CACHE_LIMIT", 3000)
    for i, age in enumerate((400, 300, 200, 100)):
        f = tmp_path / f"fused_{i}.so"
        f.write_bytes(b"x" * 1000)
        os.utime(f, (f.stat().st_mtime - age,) * 2)
    old_prelude = tmp_path / "prelude_old"
    old_prelude.mkdir()
    (old_prelude / "h.gch").write_bytes(b"x" * 1000)
    os.utime(old_prelude, (old_prelude.stat().st_mtime - 500,) * 2)
    other = tmp_path / "notes.txt"
    other.write_text("not ours")
    native._trim_cache(tmp_path, keep={tmp_path / "fused_0.so"})
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["fused_0.so", "fused_2.so", "fused_3.so", "notes.txt"]


def test_kernels_of_one_program_share_work_and_compile(monkeypatch):
    """The fusions of an unrolled loop are one program: their work adds up to HOT_WORK
    (each alone stays below it), one compile serves them all, and a kernel of the same
    program built later (another jit function) is native from its first call."""
    monkeypatch.setenv("XARR_NATIVE", "sync")
    monkeypatch.setattr(native, "HOT_WORK", 40000)
    x = xa.asarray(np.linspace(0, 1, 2000, dtype=np.float32))

    def step(v):
        return xa.sqrt(v) * 0.5 + v

    def loop(v):
        for _ in range(4):
            v = xa.cumsum(step(v)) * 1e-3   # the scan keeps each step a fusion of its own
        return v
    f = xa.jit(loop)
    want = bits(f(x))
    g = xa.jit(lambda v: step(v * 1e-3))
    spec = g.lower(x).compile().fused_kernels[0].spec
    same = [k for k in next(iter(f._cache.values())).fused_kernels if k.spec == spec]
    assert len(same) == 3 and not any(k.is_native for k in same)
    assert all(k.work == 8000 for k in same)   # 24000 in all, below HOT_WORK
    f(x)                                       # 48000
    assert all(k.is_native for k in same)
    assert_same(f(x), want)
    g(x)
    assert cached_kernel(g).is_native


def test_live_kernels_still_turn_native_after_clear_caches(monkeypatch):
    """xa.clear_caches() forgets the programs' records; a kernel still held (a Compiled
    object) joins its program's new record and turns native once hot again."""
    monkeypatch.setenv("XARR_NATIVE", "sync")
    monkeypatch.setattr(native, "HOT_WORK", 20000)
    x = xa.asarray(np.arange(3000, dtype=np.float32))
    c = xa.jit(lambda v: v * v * 3 + 2).lower(x).compile()
    c(x)
    xa.clear_caches()
    (kernel,) = c.fused_kernels
    for _ in range(4):
        c(x)
    assert kernel.is_native
