"""Runs one function of tests/replica_programs.py on every rank of an MPI job and keeps
each rank's result for tests/test_mpi.py:

    mpiexec -n 4 python mpi_driver.py NAME OUTDIR [JSON ARGS]

writes OUTDIR/<rank>.pkl: ("ok", result as NumPy arrays) or ("error", exception type
name, message). xarr joins the job through MPI (xarr/distributed/_mpi.py) because mpiexec
started it."""

import json
import pickle
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import replica_programs  # noqa: E402  (this folder's module, on the path just above)

import xarr as xa  # noqa: E402
from xarr.distributed import _to_numpy as as_numpy  # noqa: E402  (run()'s own conversion)


def main():
    name, outdir = sys.argv[1], Path(sys.argv[2])
    args = json.loads(sys.argv[3]) if len(sys.argv) > 3 else []
    rank, _ = xa.distributed.initialize()
    try:
        result = ("ok", as_numpy(getattr(replica_programs, name)(*args)))
    except Exception as e:   # noqa: BLE001 (every failure goes to the test)
        result = ("error", type(e).__name__, str(e))
    (outdir / f"{rank}.pkl").write_bytes(pickle.dumps(result))


if __name__ == "__main__":
    main()
