"""Replica collectives (xarr/_ops/collectives.py over csrc/kernels/collectives/shm.h) with
real processes (xa.distributed.run): every op against a NumPy reference computed from all
replicas' inputs, on 1, 2, 3 and 4 replicas, replica groups of equal and different sizes,
every dtype, messages larger than a slot; the faults (a replica that dies, hangs past the
timeout, or calls a different op / shape / dtype) make every survivor raise
CollectiveError; nothing is left in /dev/shm; the segment is the user's, mode 0600; the
launcher's output, exit codes and cleanup."""

import os
import secrets
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import xarr as xa
from xarr._bindings import collectives as transport
from xarr.distributed import ReplicaFailure, run
from collective_checks import (check_every_op, check_grouped,  # noqa: F401
                               no_segment_left)  # (an autouse fixture)
from replica_programs import (DTYPES, L, _input, bad_arguments, bad_peers, dies_before_psum,
                              every_op, fork_keeps_the_heap, grouped, hangs, heat2d, heat_band,
                              killed_mid_job, message_waits_through_collectives, mismatched,
                              mismatched_recv, mismatched_shape, point_to_point, shared_heap)


# ---------------------------------------------------------------- every op, every dtype


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_every_op_against_numpy(n):
    check_every_op(run(every_op, n=n, args=(DTYPES,)), n)


# ---------------------------------------------------------------- replica groups


def test_replica_groups():
    check_grouped(run(grouped, n=4))


def test_bad_arguments_raise_naming_the_op_and_values():
    errors = run(bad_arguments, n=2)[0]
    expected = [("ValueError", "xa.lax.psum: replica_groups [[0], [0, 1]] must hold each"),
                ("ValueError", "xa.lax.ppermute: perm [(0, 1), (1, 1)] repeats a target"),
                ("ValueError", "names replica 5, not in [0, 2)"),
                ("ValueError", "split_axis 0 has 3 elements, not a multiple of the group "
                               "size 2"),
                ("ValueError", "scatter_dimension 0 has 3 elements; without tiled it must"),
                ("ValueError", "computation 'sub' is not one of"),
                ("TypeError", "a bitwise reduction needs bool or integer operands"),
                ("TypeError", "xa.lax.pmax: max is not defined for complex operands (c128)")]
    for got, (kind, text) in zip(errors, expected):
        assert got is not None and got[0] == kind and text in got[1], (got, kind, text)


# ---------------------------------------------------------------- send / recv


def test_send_and_recv():
    n = 2
    res = run(point_to_point, n=n)
    for r, got in enumerate(res):
        left = (r - 1) % n
        np.testing.assert_array_equal(got["small"], np.arange(5.0) + left)
        np.testing.assert_array_equal(got["big"], np.arange(300_000, dtype=np.int32) *
                                      (left + 1))
    np.testing.assert_array_equal(res[1]["jit"], (np.arange(5.0) + 0) * 2)
    assert "recv(), channel_id=9, source=0" in res[1]["text"]


def test_a_message_waits_in_its_mailbox_through_collectives():
    res = run(message_waits_through_collectives, n=2)
    np.testing.assert_array_equal(res[1][0], np.arange(1000.0) * 3)
    assert [v[1:] for v in res] == [(3.0, 2.0), (3.0, 2.0)]


def test_a_recv_of_another_shape_fails():
    res = run(mismatched_shape, n=2, return_exceptions=True)
    assert res[1].kind == "CollectiveError" and "send / recv of f64, 48 bytes" in \
        res[1].message and "replica groups / channel differ" in res[1].message


def test_run_of_a_function_it_cannot_send_undoes_everything(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    with pytest.raises(Exception):
        run(lambda: 1, n=2)
    assert "OMP_NUM_THREADS" not in os.environ


def test_a_recv_of_another_dtype_fails_on_both():
    res = run(mismatched_recv, n=2, return_exceptions=True)
    for r in (0, 1):
        assert res[r].kind == "CollectiveError", res[r]
        assert "send / recv of f32, 16 bytes" in res[r].message
        assert "send / recv of f64, 32 bytes" in res[r].message


def test_send_recv_bad_peers():
    errors = run(bad_peers, n=2)[0]
    assert "xa.lax.send: target 0 must be another replica, in [0, 2) and not 0" in errors[0]
    assert "xa.lax.recv: source 5 must be another replica" in errors[1]
    assert "xa.lax.after_all: expected tokens, got int" in errors[2]


# ---------------------------------------------------------------- faults


def test_a_replica_that_dies_makes_every_survivor_raise():
    res = run(dies_before_psum, n=3, return_exceptions=True)
    assert res[1].kind == "exit 3"
    for r in (0, 2):
        assert res[r].kind == "CollectiveError", res[r]
        assert "xa.lax.psum" in res[r].message and "replica 1 is gone" in res[r].message


def test_a_killed_replica_leaves_no_segment_and_survivors_raise():
    res = run(killed_mid_job, n=3, return_exceptions=True)
    assert res[2].kind == "exit -9"
    for r in (0, 1):
        assert res[r].kind == "CollectiveError" and "replica 2 is gone" in res[r].message


def test_a_hung_replica_times_out(monkeypatch):
    monkeypatch.setenv("XARR_COLLECTIVE_TIMEOUT", "1.5")
    t0 = time.monotonic()
    res = run(hangs, n=2, return_exceptions=True, timeout=20)
    assert time.monotonic() - t0 < 20
    assert res[1].kind == "CollectiveError"
    assert "replica 0 did not arrive within 1.5 s (XARR_COLLECTIVE_TIMEOUT)" in res[1].message


@pytest.mark.parametrize("kind, what", [("shape", "bytes"), ("dtype", "dtype, bytes"),
                                        ("op", "op, reduction")])
def test_a_mismatch_names_both_calls(kind, what):
    res = run(mismatched, n=2, args=(kind,), return_exceptions=True)
    for r in (0, 1):
        assert res[r].kind == "CollectiveError", res[r]
        assert f"replicas called different collectives ({what} differ)" in res[r].message
        assert "replica 0 called" in res[r].message and "replica 1 called" in res[r].message


def test_the_segment_is_the_users_with_mode_0600():
    """Replica 0 of a job whose replica 1 never comes: the segment exists while it waits,
    owned by this user with mode 0600, and is gone after the attach times out."""
    token = secrets.token_hex(16)
    seen, error = [], []

    def attach():
        try:
            transport.Transport(token, 0, 2, 1 << 16, 2.0, 2.0)
        except transport.TransportFailure as e:
            error.append(e)

    t = threading.Thread(target=attach)
    t.start()
    path = f"/dev/shm/xarr-{token}"
    for _ in range(200):
        if os.path.exists(path):
            st = os.stat(path)
            seen.append((st.st_uid, st.st_mode & 0o777))
            break
        time.sleep(0.01)
    t.join()
    assert seen == [(os.geteuid(), 0o600)]
    assert error and error[0].status == "timeout" and "1 of 2 replicas attached" in \
        error[0].message
    assert not os.path.exists(path)


def test_a_segment_whose_creator_died_is_removed_by_the_others():
    """Replica 0 created the job's name and died before sizing it: replica 1's attach
    times out and removes the name (no launcher sweeps under mpiexec)."""
    token = secrets.token_hex(16)
    path = f"/dev/shm/xarr-{token}"
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
    os.close(fd)
    with pytest.raises(transport.TransportFailure, match="did not create"):
        transport.Transport(token, 1, 2, 1 << 16, 0.5, 0.5)
    assert not os.path.exists(path)


def test_replicas_take_replica_0s_slot_and_heap_sizes():
    """A replica started with another XARR_SHM_SLOT_BYTES (or heap size) joins the job
    with replica 0's: the sizes live in the segment's header."""
    token = secrets.token_hex(16)
    got = {}

    def attach(rank, slot, heap):
        t = transport.Transport(token, rank, 2, slot, 10.0, 10.0, heap)
        got[rank] = (t.slot_bytes, t.heap_bytes)
        time.sleep(0.2)      # (both attached before either detaches)
        t.close()

    threads = [threading.Thread(target=attach, args=(0, 1 << 16, 0)),
               threading.Thread(target=attach, args=(1, 1 << 20, 1 << 20))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == {0: (1 << 16, 0), 1: (1 << 16, 0)}


# ---------------------------------------------------------------- the launcher
SCRIPT = """
import sys
import numpy as np
import xarr as xa
xa.distributed.initialize()
r = xa.distributed.replica_id()
total = xa.lax.psum(xa.asarray([r + 1.0]), "i")
print("sum", float(total[0]), flush=True)
if len(sys.argv) > 1 and r == int(sys.argv[1]):
    sys.exit(7)
"""


def test_launcher_prefixes_output_and_returns_the_first_error(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(SCRIPT)
    # (run from the script's folder: a source checkout in the working directory would
    # shadow the installed xarr for python -m)
    ok = subprocess.run([sys.executable, "-m", "xarr.launch", "-n", "3", str(script)],
                        capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert sorted(ok.stdout.splitlines()) == ["[0] sum 6.0", "[1] sum 6.0", "[2] sum 6.0"]
    bad = subprocess.run([sys.executable, "-m", "xarr.launch", "-n", "2", str(script), "1"],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert bad.returncode == 7


SIGNALLED = """
import signal, sys, time
import xarr as xa
xa.distributed.initialize()
def on_term(signum, frame):
    print("got", signal.Signals(signum).name, flush=True)
    sys.exit(5)
signal.signal(signal.SIGTERM, on_term)
print("ready", flush=True)
time.sleep(60)
"""


def test_launcher_forwards_signals_to_every_replica(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(SIGNALLED)
    proc = subprocess.Popen([sys.executable, "-m", "xarr.launch", "-n", "2", str(script)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=tmp_path)
    lines = []
    try:
        while sum(line.endswith("ready") for line in lines) < 2:
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            lines.append(line.strip())
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    finally:
        proc.kill()
    lines += out.splitlines()
    assert sorted(line for line in lines if "got" in line) == ["[0] got SIGTERM",
                                                               "[1] got SIGTERM"]
    assert proc.returncode == 5


# ---------------------------------------------------------------- the worked example


@pytest.mark.parametrize("replicas", [2, 3])
def test_heat_equation_matches_one_process_bit_for_bit(replicas):
    n, steps = 37, 20
    whole, first, residuals = heat2d.solve(n, steps, check=5)     # this process: 1 of 1
    assert first == 0 and whole.shape == (n, n)
    got = np.empty_like(whole)
    bands = run(heat_band, n=replicas, args=(n, steps))
    for r, (u, lo, res) in enumerate(bands):
        lo_, hi_ = heat2d.band(n, r, replicas)
        assert lo == lo_ - 1 and u.shape == (hi_ - lo_ + 2, n)
        got[lo_:hi_] = u[1:-1]
        np.testing.assert_allclose(res, residuals, rtol=1e-12)
    got[0], got[-1] = whole[0], whole[-1]
    np.testing.assert_array_equal(got, whole)
    assert not np.array_equal(whole, heat2d.initial(n))     # (the heat moved)


# ---------------------------------------------------------------- the shared heap


@pytest.mark.parametrize("n, mixed, slot", [(2, False, None), (3, True, None),
                                            (3, False, "65536")])
def test_operands_in_the_shared_heap_are_read_in_place(monkeypatch, n, mixed, slot):
    monkeypatch.setenv("XARR_SHM_HEAP_BYTES", str(16 << 20))
    if slot:     # several rounds a collective
        monkeypatch.setenv("XARR_SHM_SLOT_BYTES", slot)
    res = run(shared_heap, n=n, args=(mixed,))
    base = np.arange(300_000, dtype=np.float32)
    xs = [base * (k + 1) for k in range(n)]
    for r, out in enumerate(res):
        assert out["heap_bytes"] == 16 << 20
        assert out["in_heap"] == [not mixed or r == 0] * 3
        np.testing.assert_array_equal(out["gather"], np.stack(xs))
        np.testing.assert_array_equal(out["psum"], sum(xs[1:], xs[0]))
        mine = [x + 1000.0 * r for x in xs]       # block r of each replica's wide
        np.testing.assert_array_equal(out["a2a"], np.concatenate(mine))
        np.testing.assert_array_equal(out["rs"], sum(mine[1:], mine[0]))
        left = (r - 1) % n
        np.testing.assert_array_equal(out["halo"], base.reshape(600, 500)[-1] + left)
        assert out["used"] == (True, 0)
        assert out["fallback"] == (False, True)


def test_a_forked_child_leaves_the_heap_to_its_parent(monkeypatch):
    monkeypatch.setenv("XARR_SHM_HEAP_BYTES", str(1 << 20))
    for code, in_heap, total, used in run(fork_keeps_the_heap, n=2):
        assert (code, in_heap, total) == (0, True, 7000.0) and used >= 8000


def test_without_a_heap_shared_memory_changes_nothing():
    out = run(shared_heap, n=2, args=(False,))[0]
    assert out["heap_bytes"] == 0 and out["in_heap"] == [False] * 3
    assert out["fallback"] == (False, True)
