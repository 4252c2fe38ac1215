"""Native fused kernels: a hot fused program, compiled to machine code at run time.

The fused executor (csrc/fused/executor.cpp) interprets a program one instruction at a
time over L1-sized blocks, so every instruction loads and stores its block. A program
that has run enough work (``HOT_WORK`` elements x instructions, summed over its calls) is
written here as one C++ loop over the same functors the eager tables use
(csrc/kernels/elementwise/ew_ops.h), every value kept in registers, and compiled with
the flags the active ISA's table was built with (``xarr/include/native_flags.txt``,
written by CMake). The result replaces the interpreter for contiguous rows
(``FusedKernel.set_native``; the executor interprets strided rows as before) and gives
the interpreter's bits: each value is held in its register's storage dtype, exactly as
the interpreter's buffers hold it.

Compiling takes a second or two of one core, so by default it runs on a background thread
while the interpreter keeps serving calls (the first calls of a jitted function never
wait for a compiler); the functor headers are parsed once per machine into a precompiled
header, so a kernel then compiles in about a second. Compiled libraries are cached by the
hash of their source, the installed headers, flags and compiler, in memory and on disk (a
``native`` folder in ``$XARR_CACHE_DIR``, else ``$XDG_CACHE_HOME/xarr``, else
``~/.cache/xarr``; the least recently used entries beyond CACHE_LIMIT bytes are deleted).

Environment: ``XARR_NATIVE=0`` turns native kernels off, ``XARR_NATIVE=sync`` compiles in
the calling thread (deterministic: tests, benchmarks); ``XARR_CXX`` names the compiler
(default: the one that built xarr; one not found on PATH is replaced by ``c++`` or
``g++``). Without a compiler or the installed headers, every program is interpreted.

Not compiled (interpreted always): complex dtypes (the vector tables take their complex
products from the reference table), sin/cos/tan (their contiguous loops fix large
arguments block by block) and nextafter on 16-bit floats.

Worked example: ``jit(lambda x: x * 1.5 + 2)`` on f32 gives the program
``r2 = MUL(in0, k0); out0 = ADD(r2, k1)``, written as::

    const float x0 = in0[i];
    const float v0 = ap<Mul, float>(x0, k0);
    const float v1 = ap<Add, float>(v0, k1);
    out0[i] = v1;
"""

from __future__ import annotations

import ctypes
import os
import queue
import threading
import warnings
import weakref
from pathlib import Path

from xarr import _core
from xarr._bindings.fused import FUSED_CONVERT
from xarr._dtypes import CODE_OF_XLA



def _compile_modules():
    """hashlib, shutil, subprocess, tempfile: imported when a compile needs them (together
    they cost ~25 ms of every `import xarr` otherwise)."""
    import hashlib, shutil, subprocess, tempfile  # noqa: E401  (import time, see above)
    return hashlib, shutil, subprocess, tempfile


# Elements x instructions a kernel runs before it is compiled: 64M, e.g. one call of a
# 4-op chain on 16M elements, or 160 calls of a 4-op chain on 100K.
HOT_WORK = 1 << 26

# Storage type of each dtype code (csrc/core/dtype.h DType); complex has no native form.
CTYPES = ("bool", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
          "uint32_t", "uint64_t", "f16", "bf16", "float", "double")
_F16, _BF16 = CODE_OF_XLA["f16"], CODE_OF_XLA["bf16"]
_OPS = _core.ew_ops()
# {op code: functor name}; ops whose contiguous loops take an `array` entry point (sin,
# cos, tan: they fix lanes outside vmath's fast range block by block) have no native form.
_FUNCTORS = {op: name for op, (name, has_array, _) in _core.ew_functors().items()
             if not has_array}
_SELECT = _OPS["SELECT"][0]
_NEXTAFTER = _OPS["NEXTAFTER"][0]
_NATIVE_ISAS = ("baseline", "avx2", "avx512")

# The headers and flags CMake installs beside the compiled modules (xarr/include): found
# from the core module's own file, so an editable install (package source here, compiled
# modules and headers in site-packages) finds them too.
_INCLUDE = Path(_core.__file__).resolve().parent / "include"


def mode():
    """'off', 'sync' or 'async' (XARR_NATIVE)."""
    v = os.environ.get("XARR_NATIVE", "1").strip().lower()
    if v in ("0", "off", "false", "no"):
        return "off"
    return "sync" if v == "sync" else "async"


# ----------------------------------------------------------------------- source
def source(spec, name="xarr_fused"):
    """The C++ function ``name`` (NativeFusedFn) computing a FusedKernel's ``spec`` (its
    program as built), or None when the program has something native kernels do not
    compile (``compilable``). A translation unit is PRELUDE followed by such functions."""
    if not compilable(spec):
        return None
    in_dt, const_dt, temp_dt, out_dt, code = spec
    nin, nconst = len(in_dt), len(const_dt)
    reg_dtype = list(in_dt) + list(const_dt) + list(temp_dt)
    lines = []
    value = {}  # register -> the C++ name holding its current value
    for r in range(nin):
        value[r] = f"x{r}"
    for c in range(nconst):
        value[nin + c] = f"k{c}"
    used_inputs = set()
    for n, (op, dt, odt, args, dst) in enumerate(code):
        for a in args:
            if a < nin:
                used_inputs.add(a)
        operands = ", ".join(value[a] for a in args)
        if op == FUSED_CONVERT:
            expr = f"isa_native::convert_storage<{CTYPES[dt]}, {CTYPES[odt]}>({operands})"
        elif op == _SELECT:
            p, t, f = (value[a] for a in args)
            expr = f"({p} ? {t} : {f})"
        else:
            expr = f"ap<{_FUNCTORS[op]}, {CTYPES[dt]}>({operands})"
        var = f"v{n}"
        lines.append(f"    const {CTYPES[odt]} {var} = {expr};")
        if dst < 0:
            lines.append(f"    out{-1 - dst}[i] = {var};")
        else:
            value[dst] = var
    head = []
    for r in sorted(used_inputs):
        t = CTYPES[reg_dtype[r]]
        head.append(f"  const {t}* in{r} = reinterpret_cast<const {t}*>(args[{r}]);")
    for k, d in enumerate(out_dt):
        t = CTYPES[d]
        head.append(f"  {t}* out{k} = reinterpret_cast<{t}*>(args[{nin + k}]);")
    for c, d in enumerate(const_dt):
        t = CTYPES[d]
        head.append(f"  const {t} k{c} = *reinterpret_cast<const {t}*>(consts[{c}]);")
    loads = [f"    const {CTYPES[reg_dtype[r]]} x{r} = in{r}[i];" for r in sorted(used_inputs)]
    return "\n".join([
        f'extern "C" void {name}(char* const* args, const char* const* consts, int64_t n) {{',
        *head,
        "#pragma omp simd",
        "  for (int64_t i = 0; i < n; ++i) {",
        *loads,
        *lines,
        "  }",
        "}",
        "",
    ])


# What every translation unit starts with: the functors as the ISA tables see them.
PRELUDE = """// Native fused kernels, generated by xarr/_graph/native.py.
#define XARR_ISA_NS isa_native
#include "kernels/elementwise/vector_math.h"
#include "kernels/elementwise/ew_loops.h"

namespace {
using namespace ::xarr;
using namespace ::xarr::ew;
using ::xarr::isa_native::OutOf;
namespace isa_native = ::xarr::isa_native;
// One instruction: the functor on the operands' compute values, stored back in the
// output's storage type (ew_loops.h's loops do the same per element).
template <class Op, class T, class... A> inline auto ap(A... a) {
  return store<typename OutOf<Op, T>::type>(Op::f(load<T>(a)...));
}
}  // namespace

"""


# ----------------------------------------------------------------------- compiler
class _Toolchain:
    """The compiler command for the active ISA, or the reason there is none."""

    def __init__(self):
        hashlib, shutil, subprocess, tempfile = _compile_modules()
        self.error = None
        flags_file = _INCLUDE / "native_flags.txt"
        if not flags_file.is_file():
            self.error = f"no {flags_file} (xarr was not installed with its headers)"
            return
        conf = {}
        for line in flags_file.read_text().splitlines():
            if "=" in line:
                k, v = line.split("=", 1)
                conf[k.strip()] = v.strip()
        cxx = os.environ.get("XARR_CXX") or conf.get("compiler", "")
        if not cxx or not shutil.which(cxx):
            cxx = shutil.which("c++") or shutil.which("g++")
        if not cxx:
            self.error = "no C++ compiler (set XARR_CXX)"
            return
        self.conf = conf
        self.cxx = cxx
        try:
            version = subprocess.run([cxx, "--version"], capture_output=True, text=True,
                                     timeout=30).stdout.splitlines()[:1]
        except (OSError, subprocess.SubprocessError) as e:
            self.error = f"{cxx} --version failed: {e}"
            return
        self.version = version[0] if version else ""

        # the installed headers are part of every program's meaning (a new xarr with
        # changed functors must not reuse old libraries from the disk cache)
        h = hashlib.sha256()
        for f in sorted(_INCLUDE.rglob("*")):
            if f.is_file():
                h.update(str(f.relative_to(_INCLUDE)).encode())
                h.update(f.read_bytes())
        self.headers = h.hexdigest()

    def command(self, isa, src, out, include_first=None, header=False):
        """Compiles src to a shared library out (header=True: to a precompiled header);
        include_first: a directory searched before the headers (the precompiled
        prelude's)."""
        flags = self.conf.get("common", "").split()
        if header:
            flags = [f for f in flags if f != "-shared"] + ["-x", "c++-header"]
        first = ["-I", str(include_first)] if include_first else []
        return ([self.cxx] + flags + self.conf.get(isa, "").split() + first +
                ["-I", str(_INCLUDE), str(src), "-o", str(out)])

    def cache_key(self, isa, text):
        hashlib, shutil, subprocess, tempfile = _compile_modules()
        h = hashlib.sha256()
        for part in (self.cxx, self.version, self.headers, self.conf.get("common", ""),
                     self.conf.get(isa, ""), isa, text):
            h.update(part.encode())
            h.update(b"\0")
        return h.hexdigest()[:32]


_toolchain = None
_toolchain_lock = threading.Lock()


def toolchain():
    global _toolchain
    with _toolchain_lock:
        if _toolchain is None:
            _toolchain = _Toolchain()
        return _toolchain


def cache_dir():
    base = os.environ.get("XARR_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "xarr")
    return Path(base) / "native"


# Bytes of compiled kernels and precompiled preludes (~35 MB each) kept on disk.
CACHE_LIMIT = 512 << 20


def _trim_cache(d, keep):
    """Deletes the least recently used entries of cache folder ``d`` (fused_*.so files and
    prelude_* folders; their mtime is refreshed on use) until it holds at most
    CACHE_LIMIT bytes; paths in ``keep`` stay. Another process may hold a deleted library
    (its mapping survives) or race us: errors are ignored."""
    hashlib, shutil, subprocess, tempfile = _compile_modules()
    try:
        entries = [(e.stat().st_mtime, e.stat().st_size, e) for e in d.glob("fused_*.so")]
        entries += [(e.stat().st_mtime, sum(f.stat().st_size for f in e.iterdir()), e)
                    for e in d.glob("prelude_*") if e.is_dir()]
        total = sum(size for _, size, _ in entries)
        for _, size, e in sorted(entries, key=lambda t: t[0]):
            if total <= CACHE_LIMIT:
                break
            if e in keep:
                continue
            if e.is_dir():
                shutil.rmtree(e, ignore_errors=True)
            else:
                e.unlink()
            total -= size
    except OSError:
        pass


def available():
    """True when programs can be compiled here (a compiler, the headers, a vector ISA)."""
    return (mode() != "off" and toolchain().error is None and
            _core.get_isa() in _NATIVE_ISAS)


_loaded = {}  # cache key -> library, or None (failed to compile); at most LOADED_LIMIT
_loaded_lock = threading.Lock()
LOADED_LIMIT = 256   # entries (a kernel keeps its own library alive through set_native)


def clear_loaded():
    """Forgets the libraries loaded in memory and the programs' compiled forms (kernels
    keep theirs; the disk cache stays)."""
    with _loaded_lock:
        _loaded.clear()
    with _programs_lock:
        _programs.clear()


PRELUDE_HEADER = "xarr_native_prelude.h"
_prelude_dirs = {}  # isa -> directory holding PRELUDE_HEADER and its .gch, or None


def _prelude_pch(isa):
    """A directory with PRELUDE as a precompiled header for ``isa`` (built once per
    machine and cached on disk; it halves each kernel's compile, most of which is parsing
    the functor and vector-math headers), or None when the compiler cannot make one."""
    if isa in _prelude_dirs:
        return _prelude_dirs[isa]
    hashlib, shutil, subprocess, tempfile = _compile_modules()
    tc = toolchain()
    base = cache_dir()
    d = base / f"prelude_{tc.cache_key(isa, PRELUDE)}"
    if not (d / (PRELUDE_HEADER + ".gch")).is_file():
        try:
            base.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(dir=base))
            (tmp / PRELUDE_HEADER).write_text(PRELUDE)
            r = subprocess.run(tc.command(isa, tmp / PRELUDE_HEADER,
                                          tmp / (PRELUDE_HEADER + ".gch"), header=True),
                               capture_output=True, text=True, timeout=600)
            if r.returncode == 0:
                try:
                    os.rename(tmp, d)  # atomic; another process may have won the race
                except OSError:
                    shutil.rmtree(tmp, ignore_errors=True)
            else:
                shutil.rmtree(tmp, ignore_errors=True)
        except (OSError, subprocess.SubprocessError):
            pass
    if (d / (PRELUDE_HEADER + ".gch")).is_file():
        try:
            os.utime(d)   # recently used: the cache trim keeps it
        except OSError:
            pass
        _trim_cache(base, keep={d})
    else:
        d = None
    _prelude_dirs[isa] = d
    return d


def _load(isa, funcs):
    """The library of PRELUDE + ``funcs`` (C++ functions) compiled for ``isa``, from
    memory, disk or the compiler; None when compiling failed (a warning says why)."""
    hashlib, shutil, subprocess, tempfile = _compile_modules()
    tc = toolchain()
    text = PRELUDE + funcs
    key = tc.cache_key(isa, text)
    with _loaded_lock:
        if key in _loaded:
            return _loaded[key]
    d = cache_dir()
    so = d / f"fused_{key}.so"
    lib = None
    try:
        if not so.is_file():
            pch = _prelude_pch(isa)
            d.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(dir=d) as tmp:
                src = Path(tmp) / "kernels.cpp"
                src.write_text(f'#include "{PRELUDE_HEADER}"\n' + funcs if pch else text)
                out = Path(tmp) / "kernels.so"
                r = subprocess.run(tc.command(isa, src, out, include_first=pch),
                                   capture_output=True, text=True, timeout=600)
                if r.returncode != 0:
                    raise RuntimeError(r.stderr.strip()[-2000:])
                os.replace(out, so)  # atomic: other processes see a whole file or none
            _trim_cache(d, keep={so, pch})
        else:
            os.utime(so)
        lib = ctypes.CDLL(str(so))
    except (OSError, RuntimeError, subprocess.SubprocessError) as e:
        warnings.warn(f"xarr: native fused kernels failed to compile; they stay "
                      f"interpreted: {e}", RuntimeWarning, stacklevel=2)
    with _loaded_lock:
        _loaded[key] = lib
        while len(_loaded) > LOADED_LIMIT:
            _loaded.pop(next(iter(_loaded)))
    return lib


# ----------------------------------------------------------------------- programs
class _Program:
    """Every FusedKernel built with one spec (the graph compiler builds one per fusion, so
    a Python loop unrolled under jit makes many kernels of one program, each run once a
    call). Their work adds up toward HOT_WORK, one compile serves them all, and a kernel
    built after the compile gets the native form at once."""

    __slots__ = ("kernels", "native", "asked")

    def __init__(self):
        self.kernels = weakref.WeakSet()
        self.native = {}    # isa name -> (library, address)
        self.asked = set()  # isa names whose compile has been asked for


_programs = {}      # _spec_key(spec) -> _Program
_programs_lock = threading.Lock()   # guards _programs and every program's kernels
PROGRAMS_LIMIT = 4096   # programs remembered; beyond, those without live kernels go


def _spec_key(spec):
    return repr(spec)


def _program(spec, kernel=None):
    """The program of ``spec``, with ``kernel`` (if given) made one of its kernels in the
    same step (after clear_loaded, a live kernel's program is a new one it must join)."""
    with _programs_lock:
        prog = _programs.get(_spec_key(spec))
        if prog is None:
            if len(_programs) >= PROGRAMS_LIMIT:
                for key in [k for k, p in _programs.items() if not p.kernels]:
                    del _programs[key]
            prog = _programs[_spec_key(spec)] = _Program()
        if kernel is not None:
            prog.kernels.add(kernel)
        return prog


def _ask(prog, isa):
    """Whether this call is the one that asks for prog's compile for ``isa`` (once)."""
    with _programs_lock:
        if isa in prog.asked:
            return False
        prog.asked.add(isa)
        return True


def _members(prog):
    with _programs_lock:
        return list(prog.kernels)


def compile_kernels(kernels):
    """Compiles the native forms of ``kernels`` (FusedKernels) now, in this thread, as one
    translation unit (one function per distinct program), and installs them in these
    kernels and every other kernel of the same programs. Returns how many of ``kernels``
    were installed (programs with no native form, or a machine without a compiler, stay
    interpreted)."""
    if not available():
        return 0
    isa = _core.get_isa()
    progs, funcs = {}, []   # spec key -> (program, function number)
    for kernel in kernels:
        key = _spec_key(kernel.spec)
        prog = _program(kernel.spec, kernel)
        if key in progs:
            continue
        text = source(kernel.spec, f"xarr_fused_{len(funcs)}")
        if text is not None:
            progs[key] = (prog, len(funcs))
            funcs.append(text)
    if not funcs:
        return 0
    lib = None
    try:
        lib = _load(isa, "\n".join(funcs))
    finally:
        if lib is None or _core.get_isa() != isa:   # a failed compile, or the ISA changed
            with _programs_lock:                    # meanwhile: the programs may ask again
                for prog, _ in progs.values():
                    prog.asked.discard(isa)
    if lib is None or _core.get_isa() != isa:
        return 0
    for prog, n in progs.values():
        address = ctypes.cast(getattr(lib, f"xarr_fused_{n}"), ctypes.c_void_p).value
        prog.native[isa] = (lib, address)
        for kernel in _members(prog):
            _take_native(prog, kernel, isa)
    return sum(_spec_key(kernel.spec) in progs for kernel in kernels)


def _take_native(prog, kernel, isa):
    """Installs prog's compiled form for ``isa`` in kernel; False when there is none yet."""
    done = prog.native.get(isa)
    if done is None:
        return False
    kernel.set_native(*done, _core.isa_code(isa))
    return True


# ----------------------------------------------------------------------- background
_queue = queue.Queue()
_worker = None
_worker_lock = threading.Lock()


def _work():
    while True:
        batch = [_queue.get()]
        while True:  # every kernel that turned hot meanwhile joins one compile
            try:
                batch.append(_queue.get_nowait())
            except queue.Empty:
                break
        try:
            compile_kernels(batch)
        except Exception as e:  # noqa: BLE001 - a worker must never die
            warnings.warn(f"xarr: native compile failed: {e!r}", RuntimeWarning)
        finally:
            for _ in batch:
                _queue.task_done()


def _on_work(kernel):
    """A kernel's work passed its next quantum: compile its program once the work of all
    its kernels reaches HOT_WORK, else watch it for the next quantum."""
    prog = _program(kernel.spec, kernel)
    isa = _core.get_isa()
    if _take_native(prog, kernel, isa) or isa in prog.asked:
        return
    if sum(k.work for k in _members(prog)) < HOT_WORK:
        kernel.watch(kernel.work + _quantum(), _on_work)
        return
    if _ask(prog, isa):
        _on_hot(kernel)


def _quantum():
    """Work between two reports of one kernel: 1/16 of HOT_WORK (a Python call per ~4M
    element-instructions at the default)."""
    return max(1, HOT_WORK // 16)


def _on_hot(kernel):
    if mode() == "sync":
        compile_kernels([kernel])
        return
    global _worker
    with _worker_lock:
        if _worker is None:
            _worker = threading.Thread(target=_work, name="xarr-native", daemon=True)
            _worker.start()
    _queue.put(kernel)


def compilable(spec):
    """Whether native kernels compile ``spec`` (every dtype has a C++ type, every op a
    functor): checked for every kernel built, and by ``source`` first; the source is
    written once a kernel is hot."""
    in_dt, const_dt, temp_dt, out_dt, code = spec
    if any(d >= len(CTYPES) for d in in_dt + const_dt + temp_dt + out_dt):
        return False
    return all(op == FUSED_CONVERT or op == _SELECT or
               (op in _FUNCTORS and not (op == _NEXTAFTER and dt in (_F16, _BF16)))
               for op, dt, odt, args, dst in code)


def watch(kernel):
    """Asks for ``kernel``'s native form once its program is hot (graph compiler,
    compile.py); installs it at once when the program is compiled already."""
    if mode() == "off" or not compilable(kernel.spec):
        return
    prog = _program(kernel.spec, kernel)
    isa = _core.get_isa()
    if not _take_native(prog, kernel, isa) and isa not in prog.asked:
        kernel.watch(_quantum(), _on_work)


def wait():
    """Blocks until every native compile asked for so far has finished.
    xarr.tour.best_time / per_call (which the benchmarks use) call it after their warm-up
    call, so they time the kernels users run after the first second."""
    _queue.join()
