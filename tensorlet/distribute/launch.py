"""Start N workers of a tensorlet program on this machine with MPI:

    python -m tensorlet.distribute.launch -n 2 train.py [args...]

is `mpiexec -n 2 python train.py [args...]` with the `mpiexec` installed beside this
Python (the `tensorlet[distributed]` extra's MPICH), every worker's BLAS limited to
its share of the cores, and a wall-clock limit (`--timeout`) after which the whole job
is killed. For several machines call `mpiexec` yourself (docs/distributed.md).
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys


def mpiexec_path():
  """The `mpiexec` beside sys.executable (a venv's bin/), else the first on PATH."""
  here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
  if os.access(here, os.X_OK):
    return here
  found = shutil.which("mpiexec")
  if found is None:
    raise FileNotFoundError("No mpiexec beside %s nor on PATH: pip install "
                            "'tensorlet[distributed]' (mpi4py and MPICH)" % sys.executable)
  return found


def _is_hydra(mpiexec):
  try:
    out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30)
  except (OSError, subprocess.TimeoutExpired):
    return False
  return "HYDRA" in out.stdout


def worker_env(num_workers, env=None):
  """The environment for each worker: BLAS threads = this machine's cores / workers
  (unless already set), so N workers on one machine do not oversubscribe it."""
  env = dict(os.environ if env is None else env)
  threads = str(max(1, (os.cpu_count() or 1) // num_workers))
  for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    env.setdefault(var, threads)
  env.setdefault("PYTHONUNBUFFERED", "1")
  return env


def command(num_workers, argv, python=None, mpiexec=None, mpiexec_args=()):
  """The argv that starts `num_workers` local workers running `python argv...`;
  `mpiexec_args` go to mpiexec (e.g. MPICH's "-disable-auto-cleanup")."""
  if isinstance(num_workers, bool) or not isinstance(num_workers, int) or num_workers < 1:
    raise ValueError(f"num_workers must be a positive int, got {num_workers!r}")
  mpiexec = mpiexec or mpiexec_path()
  cmd = [mpiexec]
  if _is_hydra(mpiexec):
    # Local processes only, started by fork: works without any network interface.
    cmd += ["-launcher", "fork"]
  return cmd + [*mpiexec_args, "-n", str(num_workers), python or sys.executable, *argv]


def run(num_workers, argv, timeout=None, env=None, cwd=None, capture_output=False,
        mpiexec_args=()):
  """Runs the job to completion (subprocess.CompletedProcess). When `timeout` seconds
  pass first, kills every process of the job and raises subprocess.TimeoutExpired."""
  cmd = command(num_workers, argv, mpiexec_args=mpiexec_args)
  proc = subprocess.Popen(cmd, env=worker_env(num_workers, env), cwd=cwd,
                          stdout=subprocess.PIPE if capture_output else None,
                          stderr=subprocess.PIPE if capture_output else None,
                          text=True, start_new_session=True)
  try:
    out, err = proc.communicate(timeout=timeout)
  except subprocess.TimeoutExpired:
    _kill_group(proc)
    out, err = proc.communicate()
    raise subprocess.TimeoutExpired(cmd, timeout, out, err) from None
  except BaseException:
    _kill_group(proc)
    raise
  return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def _kill_group(proc, grace=5.0):
  """Ends the job: SIGTERM to mpiexec (hydra then ends its workers, which run in
  sessions of their own), SIGKILL to whatever of the process tree is left after `grace`."""
  tree = _descendants(proc.pid)
  try:
    proc.terminate()
    proc.wait(grace)
  except subprocess.TimeoutExpired:
    pass
  for pid in [proc.pid, *tree]:
    try:
      os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
      pass


def _descendants(pid):
  """Process ids below `pid` (Linux /proc; empty elsewhere)."""
  children = {}
  try:
    entries = os.listdir("/proc")
  except OSError:
    return []
  for entry in entries:
    if entry.isdigit():
      try:
        with open(f"/proc/{entry}/stat", "rb") as f:
          ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
      except (OSError, ValueError, IndexError):
        continue
      children.setdefault(ppid, []).append(int(entry))
  out, todo = [], [pid]
  while todo:
    for child in children.get(todo.pop(), []):
      out.append(child)
      todo.append(child)
  return out


def main(args=None):
  p = argparse.ArgumentParser(prog="python -m tensorlet.distribute.launch",
                              description=__doc__.splitlines()[0])
  p.add_argument("-n", "--num-workers", type=int, default=2)
  p.add_argument("--timeout", type=float, default=None, help="seconds for the whole job")
  p.add_argument("script", help="the Python program")
  p.add_argument("args", nargs=argparse.REMAINDER)
  a = p.parse_args(args)
  try:
    done = run(a.num_workers, [a.script, *a.args], timeout=a.timeout)
  except subprocess.TimeoutExpired:
    print(f"launch: the job ran past --timeout {a.timeout:g} s and was killed", file=sys.stderr)
    return 124
  return done.returncode


if __name__ == "__main__":
  sys.exit(main())
