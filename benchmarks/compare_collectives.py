"""Issue 17's side-by-side: xarr's replica collectives against mpi4py + MPICH and
torch.distributed (gloo), 2 replicas on this machine, same message sizes, one run.

    python benchmarks/compare_collectives.py --peers-python PATH [--markdown F] [--svg F]

xarr runs in this interpreter (xa.distributed.run); the peers run in the interpreter of
--peers-python (a venv with numpy, mpi4py, the mpich wheel and torch): MPI under that
venv's mpiexec, gloo under torch.multiprocessing. Times are per call on replica 0 (best of
3 batches after a warm-up); "GB/s" is algorithmic bandwidth, the message bytes (per
replica: the operand of all-reduce, all-gather and all-to-all, the input of
reduce-scatter) over the time. The ppermute row compares a 1 MB halo exchange with a plain
copy of the same bytes. --svg writes the all-reduce latency / bandwidth sweep.

The column "xarr on MPI" runs xarr's MPI backend (xarr/distributed/_mpi.py) under this
interpreter's mpiexec (the mpich wheel) with XARR_MPI_RANKS_PER_NODE=1: each replica a
"node" of its own, so MPI carries everything, as between machines. Its ratio to mpi4py is
the backend's own cost (the call agreement, polled waits, Python).
"""

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

SWEEP = [1 << k for k in range(10, 27, 2)]          # 1 KiB .. 64 MiB, all-reduce
TABLE = [("all_reduce", 4096), ("all_reduce", 1 << 20), ("all_reduce", 64 << 20),
         ("all_gather", 1 << 20), ("all_gather", 64 << 20),
         ("reduce_scatter", 1 << 20), ("reduce_scatter", 64 << 20),
         ("all_to_all", 1 << 20), ("all_to_all", 64 << 20), ("ppermute", 1 << 20)]
# The same with xarr's operands in the shared heap (xa.distributed.shared_memory(): read in
# place, not copied through the slots); the peers' column repeats their plain run.
HEAP_TABLE = [(op, nbytes) for op, nbytes in TABLE if nbytes >= 1 << 20]
HEAP_BYTES = 160 << 20


def _iterations(nbytes):
    return max(3, min(2000, (256 << 20) // max(nbytes, 1)))


def _time(call, sync, nbytes):
    """Best per-call seconds of 3 batches (a barrier before each), after a warm-up."""
    for _ in range(3):
        call()
    best = float("inf")
    it = _iterations(nbytes)
    for _ in range(3):
        sync()
        t = time.perf_counter()
        for _ in range(it):
            call()
        best = min(best, (time.perf_counter() - t) / it)
    return best


# ---------------------------------------------------------------- xarr
def xarr_worker(cases, report=False):
    import xarr as xa
    L = xa.lax
    n = xa.distributed.num_replicas()
    zero = xa.asarray(np.zeros(1))
    sync = lambda: L.psum(zero, "i")  # noqa: E731
    out = {}
    for op, nbytes in cases:
        heap = op.endswith("@heap")
        op = op.removesuffix("@heap")
        with (xa.distributed.shared_memory() if heap else contextlib.nullcontext()):
            x = xa.asarray(np.ones(nbytes // 4, np.float32)) + 0.0
        calls = {"all_reduce": lambda: L.psum(x, "i"),
                 "all_gather": lambda: L.all_gather(x, "i", tiled=True),
                 "reduce_scatter": lambda: L.psum_scatter(x, "i", tiled=True),
                 "all_to_all": lambda: L.all_to_all(x, "i", 0, 0, tiled=True),
                 "ppermute": lambda: L.ppermute(x, "i", [(k, (k + 1) % n) for k in range(n)])}
        out[f"{op}{'@heap' if heap else ''} {nbytes}"] = _time(calls[op], sync, nbytes)
        del x, calls
    if report and xa.distributed.replica_id() == 0:
        print(json.dumps(out))
    return out


# ---------------------------------------------------------------- mpi4py
def mpi_worker(cases):
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    n = comm.Get_size()
    out = {}
    for op, nbytes in cases:
        x = np.ones(nbytes // 4, np.float32)
        calls = {"all_reduce": (lambda y: lambda: comm.Allreduce(x, y))(np.empty_like(x)),
                 "all_gather": (lambda y: lambda: comm.Allgather(x, y))(
                     np.empty(x.size * n, np.float32)),
                 "reduce_scatter": (lambda y: lambda: comm.Reduce_scatter_block(x, y))(
                     np.empty(x.size // n, np.float32)),
                 "all_to_all": (lambda y: lambda: comm.Alltoall(x, y))(np.empty_like(x)),
                 "ppermute": (lambda y: lambda: comm.Sendrecv(
                     x, (comm.rank + 1) % n, 0, y, (comm.rank - 1) % n, 0))(np.empty_like(x))}
        out[f"{op} {nbytes}"] = _time(calls[op], comm.Barrier, nbytes)
    if comm.rank == 0:
        print(json.dumps(out))


# ---------------------------------------------------------------- gloo
def _gloo_replica(rank, n, path, cases, queue):
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{path}", rank=rank, world_size=n)
    out = {}
    for op, nbytes in cases:
        if op != "all_reduce":
            continue
        x = torch.ones(nbytes // 4)
        out[f"{op} {nbytes}"] = _time(lambda: dist.all_reduce(x), dist.barrier, nbytes)
    if rank == 0:
        queue.put(out)
    dist.destroy_process_group()


def gloo_worker(cases):
    import torch.multiprocessing as mp
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    path = tempfile.mktemp(prefix="gloo-")
    procs = [ctx.Process(target=_gloo_replica, args=(r, 2, path, cases, queue))
             for r in range(2)]
    for p in procs:
        p.start()
    out = queue.get(timeout=600)
    for p in procs:
        p.join()
    print(json.dumps(out))


# ---------------------------------------------------------------- the comparison
def _peer(peers_python, kind, cases):
    here = os.path.abspath(__file__)
    args = [peers_python, here, "--worker", kind, "--cases", json.dumps(cases)]
    if kind in ("mpi", "xarr"):
        mpiexec = os.path.join(os.path.dirname(peers_python), "mpiexec")
        if not os.path.exists(mpiexec):
            return {}
        args = [mpiexec, "-n", "2"] + args
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["OMP_NUM_THREADS"] = "1"
    if kind == "xarr":
        env["XARR_MPI_RANKS_PER_NODE"] = "1"
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=1800)
    if done.returncode:
        print(f"{kind}: failed\n{done.stderr[-2000:]}", file=sys.stderr)
        return {}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _size(nbytes):
    return f"{nbytes >> 20} MB" if nbytes >= 1 << 20 else f"{nbytes >> 10} KB"


def _svg(sweep, path):
    """Latency (us) and algorithmic bandwidth (GB/s) of all-reduce against message size,
    log-log, one polyline per library: a plain SVG, no plotting library."""
    import math
    w, h, pad = 640, 300, 50
    colors = {"xarr": "#c0392b", "mpi4py+MPICH": "#2471a3", "gloo": "#7d3c98"}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * w}" height="{h}" '
             f'font-family="sans-serif" font-size="11">']
    for panel, (title, value) in enumerate((("all-reduce latency (us)", lambda n, t: t * 1e6),
                                            ("all-reduce GB/s", lambda n, t: n / t / 1e9))):
        x0 = panel * w
        pts = {lib: [(n, value(n, t)) for n, t in rows if t] for lib, rows in sweep.items()}
        vals = [v for rows in pts.values() for _, v in rows]
        if not vals:
            continue
        lo, hi = math.log10(min(vals)), math.log10(max(vals))
        hi = hi if hi > lo else lo + 1
        sx = lambda n: x0 + pad + (math.log2(n) - 10) / 16 * (w - 2 * pad)  # noqa: E731
        sy = lambda v: h - pad - (math.log10(v) - lo) / (hi - lo) * (h - 2 * pad)  # noqa
        parts.append(f'<text x="{x0 + pad}" y="20">{title}, 2 replicas, against bytes</text>')
        parts.append(f'<rect x="{x0 + pad}" y="{pad}" width="{w - 2 * pad}" '
                     f'height="{h - 2 * pad}" fill="none" stroke="#999"/>')
        for n in SWEEP:
            parts.append(f'<text x="{sx(n) - 12:.0f}" y="{h - pad + 15}">{_size(n)}</text>')
        for k in range(math.floor(lo), math.ceil(hi) + 1):
            if lo <= k <= hi:
                parts.append(f'<text x="{x0 + 5}" y="{sy(10 ** k) + 4:.0f}">1e{k}</text>')
        for i, (lib, rows) in enumerate(pts.items()):
            line = " ".join(f"{sx(n):.1f},{sy(v):.1f}" for n, v in rows)
            parts.append(f'<polyline points="{line}" fill="none" stroke="{colors[lib]}" '
                         f'stroke-width="2"/>')
            parts.append(f'<text x="{x0 + w - pad - 90}" y="{pad + 15 + 14 * i}" '
                         f'fill="{colors[lib]}">{lib}</text>')
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")


def main():
    p = argparse.ArgumentParser(description="xarr's collectives against mpi4py and gloo")
    p.add_argument("--peers-python", default=os.environ.get("XARR_PEERS_PYTHON"))
    p.add_argument("--worker", choices=["mpi", "gloo", "xarr"])
    p.add_argument("--cases")
    p.add_argument("--markdown")
    p.add_argument("--svg")
    ns = p.parse_args()
    if ns.worker:
        cases = [tuple(c) for c in json.loads(ns.cases)]
        if ns.worker == "xarr":
            xarr_worker(cases, report=True)
        else:
            (mpi_worker if ns.worker == "mpi" else gloo_worker)(cases)
        return
    import xarr as xa
    cases = TABLE + [("all_reduce", n) for n in SWEEP if ("all_reduce", n) not in TABLE]
    os.environ["XARR_SHM_HEAP_BYTES"] = str(HEAP_BYTES)     # (the replicas inherit it)
    ours = xa.distributed.run(xarr_worker, n=2, args=(
        cases + [(op + "@heap", nbytes) for op, nbytes in HEAP_TABLE],), timeout=1800)[0]
    mpi = _peer(ns.peers_python, "mpi", cases) if ns.peers_python else {}
    gloo = _peer(ns.peers_python, "gloo", cases) if ns.peers_python else {}
    on_mpi = _peer(sys.executable, "xarr", cases)
    buf = np.ones((1 << 20) // 4, np.float32)
    dst = np.empty_like(buf)
    copy = _time(lambda: np.copyto(dst, buf), lambda: None, 1 << 20)
    lines = ["| collective, 2 replicas | bytes | xarr | mpi4py+MPICH | MPI / xarr | gloo | "
             "gloo / xarr | xarr GB/s | xarr on MPI | MPI / xarr on MPI |",
             "|---|---|---|---|---|---|---|---|---|---|"]

    def cell(t):
        return "-" if t is None else (f"{t * 1e6:.1f} us" if t < 1e-3 else f"{t * 1e3:.2f} ms")

    for op, nbytes in TABLE:
        key = f"{op} {nbytes}"
        t, m, g, o = ours[key], mpi.get(key), gloo.get(key), on_mpi.get(key)
        lines.append(f"| {op} | {_size(nbytes)} | {cell(t)} | {cell(m)} | "
                     f"{'-' if m is None else f'{m / t:.2f}x'} | {cell(g)} | "
                     f"{'-' if g is None else f'{g / t:.2f}x'} | {nbytes / t / 1e9:.2f} | "
                     f"{cell(o)} | {'-' if m is None or o is None else f'{m / o:.2f}x'} |")
    for op, nbytes in HEAP_TABLE:
        t, m = ours[f"{op}@heap {nbytes}"], mpi.get(f"{op} {nbytes}")
        lines.append(f"| {op}, operand in the shared heap | {_size(nbytes)} | {cell(t)} | "
                     f"{cell(m)} | {'-' if m is None else f'{m / t:.2f}x'} | - | - | "
                     f"{nbytes / t / 1e9:.2f} | - | - |")
    lines.append(f"| plain copy (reference for ppermute) | 1 MB | {cell(copy)} | - | - | - | - "
                 f"| {(1 << 20) / copy / 1e9:.2f} | - | - |")
    lines.append("")
    lines.append("| all-reduce sweep | " + " | ".join(_size(n) for n in SWEEP) + " |")
    lines.append("|---|" + "---|" * len(SWEEP))
    sweep = {}
    for lib, res in (("xarr", ours), ("mpi4py+MPICH", mpi), ("gloo", gloo)):
        rows = [(n, res.get(f"all_reduce {n}")) for n in SWEEP]
        sweep[lib] = rows
        lines.append(f"| {lib} | " + " | ".join(cell(t) for _, t in rows) + " |")
    text = "\n".join(lines)
    print(text)
    if ns.markdown:
        with open(ns.markdown, "w") as f:
            f.write(text + "\n")
    if ns.svg:
        _svg(sweep, ns.svg)


if __name__ == "__main__":
    main()
