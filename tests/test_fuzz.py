"""The fuzz harness (issue 11): every public op of ``xa.*`` and ``xa.lax.*`` on
hypothesis-drawn operands against its reference (tests/fuzz_ops.py has the op table).

Two profiles over the same table:
  * ``pytest`` (default): QUICK_EXAMPLES examples per op, part of every run and of CI;
  * ``pytest -m fuzz``: LONG_EXAMPLES examples per op (thousands in all), for a session
    that changes kernels or frontends (README, "Developing").
Each example runs eagerly; a third of those with tensor-only arguments also run under
``xa.jit``, another third under ``xa.lazy()`` (the same bits are expected).
"""

import inspect
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xarr as xa
from fuzz_ops import NOT_FUZZED, SPECS, exact, expected_errors

QUICK_EXAMPLES = 8
LONG_EXAMPLES = int(os.environ.get("XARR_FUZZ_EXAMPLES", "400"))


def public_ops():
    """"xa.<name>" / "lax.<name>" for every public function (classes, dtypes and
    constants are not ops)."""
    out = []
    for prefix, mod in (("xa.", xa), ("lax.", xa.lax)):
        for name in dir(mod):
            v = getattr(mod, name)
            if name.startswith("_") or inspect.isclass(v) or inspect.ismodule(v) or \
                    not callable(v) or isinstance(v, np.dtype):
                continue
            out.append(prefix + name)
    return sorted(out)


def test_every_public_op_is_fuzzed():
    """A public function needs a spec in tests/fuzz_ops.py (or a NOT_FUZZED reason)."""
    ops = set(public_ops())
    missing = sorted(n for n in ops if n not in SPECS and n not in NOT_FUZZED)
    assert not missing, f"public ops without a fuzz spec: {missing}"
    stale = [n for n in list(SPECS) + list(NOT_FUZZED) if n not in ops]
    assert not stale, f"fuzz specs for names that are not public ops: {stale}"


def run_one(name, draw):
    case = SPECS[name](draw)
    try:
        want = case.ref()
    except Exception as err:  # noqa: BLE001 - the reference refused: a bad argument
        allowed = case.errors or expected_errors(err)
        try:
            got = case.run()
        except allowed:
            return
        except Exception as e:  # noqa: BLE001
            raise AssertionError(f"{name}: raised {type(e).__name__}: {e}; the reference "
                                 f"raised {type(err).__name__} ({err}); inputs "
                                 f"{case.inputs}") from e
        raise AssertionError(f"{name}: returned {got!r} where the reference raised "
                             f"{type(err).__name__}: {err}; inputs {case.inputs}")
    mode = draw(st.sampled_from(case.modes)) if case.traced else "eager"
    try:
        got = run_in(mode, case)
    except Exception as e:
        raise AssertionError(f"{name} ({mode}): raised {type(e).__name__}: {e}; the "
                             f"reference returned {want!r}; inputs {case.inputs}") from e
    try:
        (case.check or exact)(got, want)
    except AssertionError as e:
        raise AssertionError(f"{name} ({mode}): {e}; inputs {case.inputs}") from None


def run_in(mode, case):
    """case.run() eagerly, or its traced (fn, tensors) under xa.jit / xa.lazy() (the
    values computed; results that are not tensors come out of jit as they are)."""
    if mode == "eager":
        return case.run()
    fn, tensors = case.traced
    if mode == "jit":
        return xa.jit(lambda *ts: fn(*ts))(*tensors)
    with xa.lazy():
        out = fn(*tensors)
    if isinstance(out, (tuple, list)):
        return tuple(xa.eval(v) for v in out)
    return xa.eval(out)


def _fuzz(name, examples):
    @settings(max_examples=examples, deadline=None, derandomize=examples == QUICK_EXAMPLES,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                     HealthCheck.data_too_large])
    @given(data=st.data())
    def run(data):
        run_one(name, data.draw)
    run()


@pytest.mark.parametrize("name", sorted(SPECS))
def test_fuzz_quick(name):
    _fuzz(name, QUICK_EXAMPLES)


@pytest.mark.fuzz
@pytest.mark.parametrize("name", sorted(SPECS))
def test_fuzz_long(name):
    _fuzz(name, LONG_EXAMPLES)
