"""Runs a worker program under `mpiexec -n N` on this machine for the MPI tests.

The program is given as source text; each worker reports with `report(obj)`: a JSON
line in a file of its own (MPICH's launcher may drop a worker's stdout once another
worker died, so the failure tests cannot rely on it). Every run has a wall-clock
limit, and the job's processes are killed when it passes."""
import json
import os
import subprocess
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PRELUDE = """\
import json, os, sys
import numpy as np
def report(obj):
  from mpi4py import MPI
  path = os.path.join(os.environ["MPI_TEST_REPORTS"], "%d.jsonl" % MPI.COMM_WORLD.Get_rank())
  with open(path, "a") as f:
    f.write(json.dumps(obj) + "\\n")
"""


def run_workers(tmp_path, source, n=2, timeout=120, env=None, args=(), name="worker.py",
                mpiexec_args=()):
  """(CompletedProcess, {rank: [reported objects]}) of `source` run by n MPI workers."""
  pytest.importorskip("mpi4py")
  from tensorlet.distribute import launch
  tmp_path.mkdir(parents=True, exist_ok=True)
  path = tmp_path / name
  path.write_text(PRELUDE + textwrap.dedent(source))
  e = dict(os.environ)
  e["PYTHONPATH"] = ROOT + os.pathsep + e.get("PYTHONPATH", "")
  e.setdefault("TENSORLET_COLLECTIVE_TIMEOUT", "60")
  reports_dir = tmp_path / "reports"
  reports_dir.mkdir(exist_ok=True)
  e["MPI_TEST_REPORTS"] = str(reports_dir)
  e.update(env or {})
  done = launch.run(n, [str(path), *args], timeout=timeout, env=e, cwd=str(tmp_path),
                    capture_output=True, mpiexec_args=mpiexec_args)
  reports = {}
  for f in sorted(reports_dir.glob("*.jsonl")):
    reports[int(f.stem)] = [json.loads(line) for line in f.read_text().splitlines()]
  return done, reports


def check_ok(done):
  assert done.returncode == 0, f"workers failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
