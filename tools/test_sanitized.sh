#!/usr/bin/env bash
# The test suite on an AddressSanitizer + UndefinedBehaviorSanitizer build of xarr
# (CMake option XARR_SANITIZE), in its own virtual environment build/asan-venv so the
# caller's xarr stays as it is. Arguments go to pytest, e.g.
#   bash tools/test_sanitized.sh                      # the whole default suite
#   bash tools/test_sanitized.sh tests/test_fuzz.py   # a part of it
# Any sanitizer report stops the run (UBSan: -fno-sanitize-recover) and fails it.
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3
VENV=build/asan-venv
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
# shellcheck disable=SC1091
. "$VENV/bin/activate"
# The build requirements of pyproject.toml, installed here so build/asan is reused
# (incremental) on later runs.
BUILD_REQS=(scikit-build-core pybind11 cython numpy)
command -v cmake >/dev/null 2>&1 || BUILD_REQS+=(cmake)
command -v ninja >/dev/null 2>&1 || BUILD_REQS+=(ninja)
pip install -q "${BUILD_REQS[@]}"
pip install -q --no-build-isolation -Ccmake.define.XARR_SANITIZE=ON -Cbuild-dir=build/asan \
    ".[test]"

# Python is not instrumented: the ASan runtime is loaded first, with libstdc++ (ASan's
# C++ exception interceptor needs it at start-up). Leak checking is off (the interpreter
# keeps its objects at exit). Native fused kernels are off: they are compiled at run time
# without the sanitizers.
CXX_BIN="${CXX:-c++}"
export LD_PRELOAD="$("$CXX_BIN" -print-file-name=libasan.so) $("$CXX_BIN" -print-file-name=libstdc++.so)"
export ASAN_OPTIONS=detect_leaks=0
export XARR_NATIVE=0
# (pytest, not python -m pytest: the working directory must not shadow the installed xarr)
pytest -p no:cacheprovider -q "$@"
