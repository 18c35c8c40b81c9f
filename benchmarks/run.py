"""Runs the BENCHMARKS.md workloads: `python benchmarks/run.py [-k NAME] [--quick]`.

Each line prints tensorlet's median, hand-written NumPy's median measured
alternately in the same process, their ratio, and the target.
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
  args = p.parse_args()
  if args.threads:
    for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
      os.environ[v] = args.threads
  import workloads
  repeat = 5 if args.quick else 15
  print(f"{'workload':34s} {'tensorlet':>12s} {'numpy':>12s} {'ratio':>7s}  target")
  for name, fn in workloads.ALL + __import__("distributed").ALL:  # dist_*: MPI workers
    if args.k and args.k not in name:
      continue
    for row in fn(repeat):
      print(_fmt(*row), flush=True)
  if not args.k or "import" in args.k:
    print(_fmt(*import_time()), flush=True)


def _fmt(name, tl, npy, unit, target):
  scale, u = (1e6, "us") if unit == "us" else (1e3, "ms")
  ratio = f"{tl / npy:6.2f}x" if npy else "     -"
  nps = f"{npy * scale:10.3f}{u}" if npy else f"{'-':>12s}"
  return f"{name:34s} {tl * scale:10.3f}{u} {nps} {ratio}  {target}"


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
