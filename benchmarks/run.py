"""Runs the BENCHMARKS.md workloads: `python benchmarks/run.py [-k NAME] [--quick]`.

Each line prints tensorlet's median, hand-written NumPy's median measured
alternately in the same process, their ratio, and the target. BLAS threads are the
user's default (tensorlet's size and load policy decides per op) unless `--threads N`.
`--busy-neighbours N` first starts N real training processes beside the benchmark (the
W7 convnet step in a loop with the BLAS's default threads; `--neighbour tf` runs it in
TensorFlow) and stops them at the end: `-k cliff --busy-neighbours 2` is the
thread-cliff check (default threads vs one thread vs no policy, under load).
"""
import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main():
  p = argparse.ArgumentParser(description=__doc__)
  p.add_argument("-k", default="", help="only workloads whose name contains this")
  p.add_argument("--quick", action="store_true", help="fewer repeats")
  p.add_argument("--threads", default=None, help="BLAS threads for both sides")
  p.add_argument("--cpu", action="store_true",
                 help="time by the process's CPU time instead of wall time")
  p.add_argument("--busy-neighbours", type=int, default=0, metavar="N",
                 help="start N busy training processes beside the benchmark")
  p.add_argument("--neighbour", default="tensorlet",
                 choices=["tensorlet", "tensorlet-policy", "tf", "spin"],
                 help="what the neighbours run: the W7 step in tensorlet without its thread "
                      "policy (or with it), in TensorFlow (TF_PYTHON, default "
                      "/work/tfref/bin/python), or a pure-Python busy loop")
  args = p.parse_args()
  neighbours = start_neighbours(args.busy_neighbours, args.neighbour)  # their own threads
  if args.threads:
    for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
      os.environ[v] = args.threads
  try:
    run(args)
  finally:
    for proc in neighbours:
      proc.kill()
      proc.wait()


def run(args):
  import harness
  import workloads
  if args.cpu:
    harness.CLOCK = time.process_time
  from tensorlet.ops import _blas_threads
  repeat = 5 if args.quick else 15
  threads = args.threads or f"default ({_blas_threads.default_threads()}, " \
      f"policy {'on' if _blas_threads.policy_enabled() else 'off'})"
  print(f"BLAS threads: {threads}; busy neighbours: {args.busy_neighbours}"
        f"{' (' + args.neighbour + ')' if args.busy_neighbours else ''}; "
        f"{'CPU' if args.cpu else 'wall'} time; "
        f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
  print(f"{'workload':40s} {'tensorlet':>12s} {'numpy':>12s} {'ratio':>7s}  target")
  for name, fn in workloads.ALL + __import__("distributed").ALL:  # dist_*: MPI workers
    if args.k and args.k not in name:
      continue
    for row in fn(repeat):
      print(_fmt(*row), flush=True)
  if not args.k or "import" in args.k:
    print(_fmt(*import_time()), flush=True)


def start_neighbours(n, kind):
  """n neighbour processes, each started and past its first (traced) step."""
  here = os.path.dirname(os.path.abspath(__file__))
  if kind == "tf":
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3")
    cmd = [os.environ.get("TF_PYTHON", "/work/tfref/bin/python"),
           os.path.join(here, "tf_reference.py"), "--neighbour"]
  elif kind == "spin":
    env = dict(os.environ)
    cmd = [sys.executable, "-c", "print('ready', flush=True)\nwhile True: pass"]
  else:
    env = dict(os.environ)
    cmd = [sys.executable, os.path.join(here, "neighbour.py")] + (
        ["--policy"] if kind == "tensorlet-policy" else [])
  procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True)
           for _ in range(n)]
  try:
    for proc in procs:
      for line in proc.stdout:  # until its first step is done
        if line.strip() == "ready":
          break
      else:
        raise RuntimeError(f"a busy neighbour did not start: {' '.join(cmd)}")
  except BaseException:
    for proc in procs:
      proc.kill()
    raise
  return procs


def _fmt(name, tl, npy, unit, target):
  scale, u = (1e6, "us") if unit == "us" else (1e3, "ms")
  ratio = f"{tl / npy:6.2f}x" if npy else "     -"
  nps = f"{npy * scale:10.3f}{u}" if npy else f"{'-':>12s}"
  return f"{name:40s} {tl * scale:10.3f}{u} {nps} {ratio}  {target}"


def import_time():
  ts = []
  for _ in range(3):
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import tensorlet"], check=True, cwd=ROOT)
    ts.append(time.perf_counter() - t)
  ts.sort()
  base = []
  for _ in range(3):
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import numpy"], check=True, cwd=ROOT)
    base.append(time.perf_counter() - t)
  base.sort()
  return ("import tensorlet (process)", ts[1], base[1], "ms", "<= 250 ms (numpy alone beside)")


if __name__ == "__main__":
  main()
