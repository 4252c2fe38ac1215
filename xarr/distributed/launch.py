"""``python -m xarr.launch -n N script.py args...``: starts N replicas of a program, like
torchrun or mpirun.

Each replica runs ``python script.py args...`` with XARR_REPLICA_ID, XARR_NUM_REPLICAS and
XARR_JOB_TOKEN set (xarr/distributed/_state.py), and OMP_NUM_THREADS and
OPENBLAS_NUM_THREADS = cores / N unless the environment sets them. The launcher prefixes
each line a replica prints with ``[rank]``, forwards SIGINT and SIGTERM to the replicas,
and when one exits with an error gives the others a grace period (XARR_LAUNCH_GRACE
seconds, default 10: time to raise their own CollectiveError) before it terminates them.
It exits with the first non-zero exit code (128 + the signal for a replica killed by one)
and removes the job's shared memory if a replica died before every replica had attached
(after that the segment has no name: shm.h).

    $ python -m xarr.launch -n 2 examples/heat2d.py --n 256 --steps 100
    [0] replica 0 of 2: rows 1..127, ...
    [1] replica 1 of 2: rows 128..254, ...
"""

import argparse
import os
import secrets
import signal
import subprocess
import sys
import threading
import time

_SHM_DIR = "/dev/shm"


def job_environment(rank, n, token, base=None):
    """The environment of replica ``rank`` of ``n``."""
    env = dict(os.environ if base is None else base)
    env["XARR_REPLICA_ID"] = str(rank)
    env["XARR_NUM_REPLICAS"] = str(n)
    env["XARR_JOB_TOKEN"] = token
    threads = str(max(1, (os.cpu_count() or 1) // n))
    env.setdefault("OMP_NUM_THREADS", threads)        # xarr's kernels
    env.setdefault("OPENBLAS_NUM_THREADS", threads)   # NumPy's BLAS (its idle threads spin)
    return env


def sweep(token):
    """Removes what a job left in /dev/shm (its segment, when the job died before every
    replica attached). Returns the names removed."""
    gone = []
    try:
        names = os.listdir(_SHM_DIR)
    except OSError:
        return gone
    for name in names:
        if name.startswith(f"xarr-{token}"):
            try:
                os.unlink(os.path.join(_SHM_DIR, name))
                gone.append(name)
            except OSError:
                pass
    return gone


def _pump(rank, stream, out, lock):
    """Copies a replica's output to ``out``, each line prefixed with its rank."""
    for line in iter(stream.readline, b""):
        with lock:
            out.write(f"[{rank}] ".encode() + line)
            out.flush()
    stream.close()


def stop(procs, wait=5.0):
    """Terminates the processes still running, and kills those that outlive ``wait``."""
    for p in procs:
        if p.poll() is None:
            p.terminate()
    end = time.monotonic() + wait
    while any(p.poll() is None for p in procs) and time.monotonic() < end:
        time.sleep(0.01)
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()


def _exit_code(returncode):
    return 128 - returncode if returncode < 0 else returncode


def launch(n, argv, grace=None):
    """Runs ``argv`` as n replicas; returns the first non-zero exit code, or 0."""
    if n < 1:
        raise ValueError(f"xarr.launch: -n must be at least 1, got {n}")
    grace = float(os.environ.get("XARR_LAUNCH_GRACE", "10")) if grace is None else grace
    token = secrets.token_hex(16)
    out = sys.stdout.buffer
    lock = threading.Lock()
    procs, pumps = [], []

    def forward(signum, frame):
        for p in procs:
            if p.poll() is None:
                p.send_signal(signum)

    old = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    first_error, deadline = 0, None
    try:
        for rank in range(n):
            # (a session of its own: a terminal's Ctrl-C reaches a replica once, forwarded)
            p = subprocess.Popen(argv, env=job_environment(rank, n, token),
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 start_new_session=True)
            procs.append(p)
            t = threading.Thread(target=_pump, args=(rank, p.stdout, out, lock), daemon=True)
            t.start()
            pumps.append(t)
        while any(p.poll() is None for p in procs):
            for p in procs:
                rc = p.poll()
                if rc not in (None, 0) and first_error == 0:
                    first_error = _exit_code(rc)
                    deadline = time.monotonic() + grace
            if deadline is not None and time.monotonic() > deadline:
                stop(procs)
                deadline = None
            time.sleep(0.01)
        for p in procs:
            if p.returncode != 0 and first_error == 0:
                first_error = _exit_code(p.returncode)
    finally:
        stop(procs)    # (none running, unless a start failed or the launcher was stopped)
        for s, h in old.items():
            signal.signal(s, h)
        for t in pumps:
            t.join(timeout=5)
        sweep(token)
    return first_error


def main(args=None):
    parser = argparse.ArgumentParser(
        prog="python -m xarr.launch",
        description="Start N replicas of a Python program (xarr's SPMD launcher).")
    parser.add_argument("-n", "--nproc", type=int, required=True, help="number of replicas")
    parser.add_argument("script", help="the Python program")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    ns = parser.parse_args(args)
    return launch(ns.nproc, [sys.executable, ns.script] + ns.args)


if __name__ == "__main__":
    sys.exit(main())
