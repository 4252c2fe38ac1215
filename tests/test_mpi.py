"""The MPI backend (xarr/distributed/_mpi.py) under a real ``mpiexec`` (MPICH from PyPI's
``mpich`` wheel, mpi4py): the same replica programs and NumPy references as the
shared-memory tests, on one node (the node's shared memory carries every collective),
on several simulated nodes (XARR_MPI_RANKS_PER_NODE: groups within a node on shared
memory, the others on MPI) and with one rank per node (MPI carries everything); the call
agreement (mismatches name both calls), the timeout, and a rank that dies."""

import json
import os
import pickle
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from collective_checks import (check_every_op, check_grouped,  # noqa: F401
                               no_segment_left)  # (an autouse fixture)
from replica_programs import DTYPES, heat2d

pytest.importorskip("mpi4py")
HERE = Path(__file__).resolve().parent
# (the mpich wheel installs mpiexec beside the interpreter)
MPIEXEC = shutil.which("mpiexec", path=str(Path(sys.executable).parent)) or \
    shutil.which("mpiexec")
if MPIEXEC is None:
    pytest.skip("no mpiexec (pip install mpich)", allow_module_level=True)


def _clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("XARR_REPLICA", "XARR_NUM_REPLICAS", "XARR_JOB",
                                "PMI_", "OMPI_", "PMIX_"))}
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", **extra)
    return env


def mpirun(tmp_path, n, program, args=(), timeout=180, **env):
    """Runs replica_programs.<program>(*args) on n MPI ranks: (exit code, per-rank
    results, output)."""
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    proc = subprocess.run([MPIEXEC, "-n", str(n), sys.executable, str(HERE / "mpi_driver.py"),
                           program, str(out), json.dumps(list(args))],
                          capture_output=True, text=True, timeout=timeout, cwd=tmp_path,
                          env=_clean_env(**env))
    results = {}
    for r in range(n):
        f = out / f"{r}.pkl"
        results[r] = pickle.loads(f.read_bytes()) if f.exists() else None
    return proc.returncode, results, proc.stdout + proc.stderr


def _values(results, n):
    for r in range(n):
        assert results[r] is not None and results[r][0] == "ok", results[r]
    return [results[r][1] for r in range(n)]


# one node of n ranks; n nodes of one rank (MPI carries everything); nodes of 2 (mixed)
LAYOUTS = [(2, None), (3, "1"), (4, "2")]


@pytest.mark.parametrize("n, per_node", LAYOUTS)
def test_every_op_against_numpy(tmp_path, n, per_node):
    env = {} if per_node is None else {"XARR_MPI_RANKS_PER_NODE": per_node}
    code, res, text = mpirun(tmp_path, n, "every_op", [[np.dtype(d).name for d in DTYPES]],
                             **env)
    assert code == 0, text
    check_every_op(_values(res, n), n)


@pytest.mark.parametrize("per_node", [None, "1", "2"])
def test_replica_groups(tmp_path, per_node):
    env = {} if per_node is None else {"XARR_MPI_RANKS_PER_NODE": per_node}
    code, res, text = mpirun(tmp_path, 4, "grouped", **env)
    assert code == 0, text
    check_grouped(_values(res, 4))


@pytest.mark.parametrize("per_node", [None, "1"])
def test_send_and_recv(tmp_path, per_node):
    env = {} if per_node is None else {"XARR_MPI_RANKS_PER_NODE": per_node}
    code, res, text = mpirun(tmp_path, 2, "point_to_point", **env)
    assert code == 0, text
    got = _values(res, 2)
    for r in range(2):
        left = (r - 1) % 2
        np.testing.assert_array_equal(got[r]["small"], np.arange(5.0) + left)
        np.testing.assert_array_equal(got[r]["big"], np.arange(300_000, dtype=np.int32) *
                                      (left + 1))
    np.testing.assert_array_equal(got[1]["jit"], np.arange(5.0) * 2)


def test_the_heat_equation_across_nodes_matches_one_process(tmp_path):
    n, steps = 37, 20
    whole, _, _ = heat2d.solve(n, steps, check=5)
    code, res, text = mpirun(tmp_path, 3, "heat_band", [n, steps],
                             XARR_MPI_RANKS_PER_NODE="2")
    assert code == 0, text
    got = np.empty_like(whole)
    for r, (u, lo, _) in enumerate(_values(res, 3)):
        lo_, hi_ = heat2d.band(n, r, 3)
        got[lo_:hi_] = u[1:-1]
    got[0], got[-1] = whole[0], whole[-1]
    np.testing.assert_array_equal(got, whole)


@pytest.mark.parametrize("kind, what", [("shape", "bytes"), ("dtype", "dtype, bytes"),
                                        ("op", "op, reduction")])
def test_a_mismatch_names_both_calls(tmp_path, kind, what):
    code, res, text = mpirun(tmp_path, 2, "mismatched", [kind], XARR_MPI_RANKS_PER_NODE="1")
    for r in (0, 1):
        assert res[r] is not None and res[r][1] == "CollectiveError", (res, text)
        assert f"replicas called different collectives ({what} differ)" in res[r][2]


def test_a_mismatched_recv_fails(tmp_path):
    code, res, text = mpirun(tmp_path, 2, "mismatched_shape", XARR_MPI_RANKS_PER_NODE="1",
                             XARR_COLLECTIVE_TIMEOUT="3")
    assert res[1][1] == "CollectiveError" and "send / recv of f64, 48 bytes" in res[1][2]
    assert res[0][1] == "CollectiveError"      # its psum never found replica 1


def test_a_hung_rank_times_out(tmp_path):
    t0 = time.monotonic()
    code, res, text = mpirun(tmp_path, 2, "hangs", [4], XARR_MPI_RANKS_PER_NODE="1",
                             XARR_COLLECTIVE_TIMEOUT="1.5")
    assert res[1] is not None and res[1][1] == "CollectiveError", (res, text)
    assert "within 1.5 s (XARR_COLLECTIVE_TIMEOUT)" in res[1][2]
    assert time.monotonic() - t0 < 60


def test_a_rank_that_dies_ends_the_job(tmp_path):
    """mpiexec stops every rank when one dies; a survivor that got further raises."""
    t0 = time.monotonic()
    code, res, text = mpirun(tmp_path, 3, "dies_before_psum", timeout=120,
                             XARR_MPI_RANKS_PER_NODE="1", XARR_COLLECTIVE_TIMEOUT="5")
    assert code != 0 and time.monotonic() - t0 < 60
    for r in (0, 2):
        assert res[r] is None or res[r][1] == "CollectiveError", res[r]


def test_a_permute_within_uneven_nodes(tmp_path):
    """3 ranks on nodes of 2: ranks 0 and 1 swap on their node's segment, rank 2 (alone on
    its node) is nobody's target and gets zeros, without MPI."""
    code, res, text = mpirun(tmp_path, 3, "swap_within_node", XARR_MPI_RANKS_PER_NODE="2",
                             XARR_COLLECTIVE_TIMEOUT="10")
    assert code == 0, text
    got = _values(res, 3)
    np.testing.assert_array_equal(got[0], [2.0, 2.0])
    np.testing.assert_array_equal(got[1], [1.0, 1.0])
    np.testing.assert_array_equal(got[2], [0.0, 0.0])


def test_groups_within_a_node_take_its_shared_memory(tmp_path):
    code, res, text = mpirun(tmp_path, 4, "routes_taken", XARR_MPI_RANKS_PER_NODE="2")
    assert code == 0, text
    for r, got in enumerate(_values(res, 4)):
        assert got["neighbours"] == ("Transport", 3.0 if r < 2 else 7.0)
        assert got["strided"] == ("MpiGroup", 4.0 if r % 2 == 0 else 6.0)
        assert got["all"] == ("MpiGroup", 10.0)
        assert got["permute_within"] == "Transport"
        assert got["permute_across"] == "MpiGroup"
