"""Checks of the built library itself.

Each ISA's kernel files compile the same headers with their own flags (CMakeLists.txt,
docs/architecture.md "One ISA home"). A function those headers define with vague linkage
(an `inline` function or a class's member function that the compiler did not inline) is
emitted by every one of those files, and the linker keeps ONE copy for all of them: the
AVX2 table then calls a scalar copy in its inner loop (pow ran 4x slower than libm that
way), or the baseline table calls an AVX-512 copy on a CPU without AVX-512. So every weak
symbol of namespace xarr in libxarr_core.so must sit in a per-ISA namespace (isa_*), or
be one of the few that non-ISA files alone define.
"""

import os
import shutil
import subprocess

import pytest

import xarr

# Weak by design (isa.h XARR_DECLARE_ISA_FILLS) or defined only by non-ISA files.
ALLOWED_PREFIXES = ("xarr::fill_", "void xarr::run_nary_impl<")


def _library():
    path = os.path.join(os.path.dirname(xarr._core.__file__), "libxarr_core.so")
    if not os.path.exists(path):
        pytest.skip("libxarr_core.so is not beside xarr._core")
    return path


@pytest.mark.skipif(shutil.which("nm") is None, reason="nm (binutils) is not installed")
def test_no_shared_copy_of_an_isa_compiled_function():
    out = subprocess.run(["nm", "-C", "-D", "--defined-only", _library()],
                         capture_output=True, text=True, check=True).stdout
    bad = []
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) < 3 or parts[1] not in ("W", "V"):
            continue
        name = parts[2]
        if "xarr::" not in name or "xarr::isa_" in name or name.startswith(ALLOWED_PREFIXES):
            continue
        bad.append(name)
    assert not bad, ("functions compiled into several ISA tables share one copy (make "
                     "them static always_inline, see ew_ops.h XARR_EW_FN): "
                     + "; ".join(bad[:10]))
