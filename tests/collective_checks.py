"""What the replica programs of tests/replica_programs.py must return: NumPy references
computed from every replica's inputs, shared by the shared-memory tests
(test_collectives.py) and the MPI tests (test_mpi.py), with the fixture both use to check
that no job segment is left in /dev/shm."""

import os

import numpy as np
import pytest

from replica_programs import DTYPES, _blocks, _input


def shm_names():
    """The job segments in /dev/shm."""
    return sorted(n for n in os.listdir("/dev/shm") if n.startswith("xarr-"))


@pytest.fixture(autouse=True)
def no_segment_left():
    """Every test of a module that imports this leaves /dev/shm as it found it."""
    before = shm_names()
    yield
    assert shm_names() == before


def _want(n, r, dt, op):
    xs = [_input(k, dt) for k in range(n)]
    mine = [_blocks(k, dt, n)[r] for k in range(n)]      # block r of each replica
    if op == "psum":
        return sum(xs[1:], xs[0])
    if op == "pmax":
        return np.maximum.reduce(xs)
    if op == "pmin":
        return np.minimum.reduce(xs)
    if op == "all_gather":
        return np.stack(xs)
    if op == "all_gather_tiled_1":
        return np.concatenate(xs, axis=1)
    if op == "ppermute":
        return xs[r - 1] if r > 0 else np.zeros_like(xs[0])
    if op == "all_to_all":      # block r of every replica's split axis, concatenated
        return np.concatenate(mine, axis=0)
    if op in ("psum_scatter", "psum_scatter_stack"):
        return sum(mine[1:], mine[0])
    if op == "all_to_all_stack":   # (4, 6, n): replica k's block r stacked last
        return np.stack(mine, axis=2)
    raise AssertionError(op)


def check_every_op(results, n):
    """every_op's results on n replicas against NumPy."""
    for r, out in enumerate(results):
        assert out["id"] == (r, r)
        for dt in DTYPES:
            name = np.dtype(dt).name
            for op in ("psum", "pmax", "pmin", "all_gather", "all_gather_tiled_1",
                       "ppermute", "all_to_all", "psum_scatter", "all_to_all_stack",
                       "psum_scatter_stack"):
                if (name, op) not in out:
                    continue
                got, want = out[name, op], _want(n, r, dt, op)
                assert got.dtype == want.dtype and got.shape == want.shape, (name, op)
                np.testing.assert_array_equal(got, want, err_msg=f"{name} {op} on {r}")
        ints = [_input(k, np.int32) for k in range(n)]
        np.testing.assert_allclose(out["pmean"], sum(ints) / n)
        assert out["pmean"].dtype == np.float64
        np.testing.assert_array_equal(out["tree"]["a"], [n, sum(range(n))])
        np.testing.assert_array_equal(out["tree"]["b"][0], [sum(range(n))])
        np.testing.assert_array_equal(out["bool_or"], np.arange(5) < n)
        counts = sum((np.arange(5) >= k).astype(np.int32) for k in range(n))
        assert out["bool_count"].dtype == np.int32
        np.testing.assert_array_equal(out["bool_count"], counts)
        np.testing.assert_array_equal(out["a2a_tree"][0], np.concatenate(
            [(np.arange(2.0 * n) + k)[2 * r: 2 * r + 2] for k in range(n)]))
        acc = _input(0, np.float64)
        for k in range(1, n):
            acc = acc * 2 + _input(k, np.float64)
        np.testing.assert_array_equal(out["traced"], acc)
        np.testing.assert_array_equal(
            out["big"], np.arange(700_001, dtype=np.float32) * (n * (n + 1) // 2))
        for j, e, z in zip(out["jit"], out["eager"], out["lazy"]):
            np.testing.assert_array_equal(j, e)
            np.testing.assert_array_equal(z, e)
        groups = "{" + ",".join(map(str, range(n))) + "}"
        for line in ("all-reduce(", "all-gather(", "reduce-scatter(", "all-to-all(",
                     f"replica_groups={{{groups}}}, to_apply=%add", "to_apply=%max",
                     f"collective-permute(p0), source_target_pairs={{{{0,{n - 1}}}}}"):
            assert line in out["text"], (line, out["text"])
    # every replica got the same bits
    for op in ("psum", "all_gather"):
        for out in results[1:]:
            np.testing.assert_array_equal(out["float32", op], results[0]["float32", op])


def check_grouped(res):
    """grouped's results on 4 replicas."""
    v = [np.array([1.0, 10.0]) * (r + 1) for r in range(4)]
    for r, out in enumerate(res):
        pair = [0, 2] if r in (0, 2) else [1, 3]
        np.testing.assert_array_equal(out["pairs"], v[pair[0]] + v[pair[1]])
        np.testing.assert_array_equal(out["uneven"], v[3] if r == 3 else v[2])
        order = [1, 0] if r in (0, 1) else [3, 2]
        np.testing.assert_array_equal(out["gather"], np.stack([v[k] for k in order]))
        group = [0, 1, 2] if r < 3 else [3]
        np.testing.assert_array_equal(out["crs"], sum(v[k] for k in group))
        members = [0, 3] if r in (0, 3) else [1, 2]
        total = sum(np.arange(4.0) + k for k in members)
        i = members.index(r)
        np.testing.assert_array_equal(out["rs"], total[2 * i: 2 * i + 2])
        np.testing.assert_array_equal(out["uneven_big"], np.full(40_000, 4.0 if r == 3
                                                                   else 6.0))
        np.testing.assert_array_equal(out["after"], sum(v))
        a2a = np.arange(36_000.0) + 3 if r == 3 else np.concatenate(
            [(np.arange(36_000.0) + k)[12_000 * r: 12_000 * (r + 1)] for k in range(3)])
        np.testing.assert_array_equal(out["uneven_a2a"], a2a)
        source = {3: 0, 0: 3, 2: 1}.get(r)
        np.testing.assert_array_equal(out["permute"], v[source] if source is not None
                                      else np.zeros(2))
