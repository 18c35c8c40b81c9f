"""Timing harness: tensorlet and hand-written NumPy run alternately in one
process, so the ratio holds even when the machine's speed drifts."""
import gc
import statistics
import sys
import time

# What the samples measure: wall time, or the process's CPU time (run.py --cpu), the
# steadier figure on a shared, busy host.
CLOCK = time.perf_counter


def _user_threads():
  """Hands the BLAS back the user's default thread count before NumPy's samples: the
  count is process-wide, and tensorlet's policy may have left it at one thread, which
  would time the hand-written NumPy below what the user's own NumPy code gets."""
  bt = sys.modules.get("tensorlet.ops._blas_threads")
  if bt is not None:
    bt.hand_back()


def time_pair(fn_tl, fn_np, repeat=15, min_time=0.05, warmup=2):
  """Medians (seconds per call) of `fn_tl` and `fn_np`, measured alternately."""
  for _ in range(warmup):
    fn_tl()
    _user_threads()
    fn_np()
  n = 1
  while True:  # calls per sample so one sample lasts >= min_time
    _user_threads()
    t = time.perf_counter()
    for _ in range(n):
      fn_np()
    if time.perf_counter() - t >= min_time or n >= 1 << 16:
      break
    n *= 2
  tl, npy = [], []
  gc_was = gc.isenabled()
  gc.disable()
  try:
    for _ in range(repeat):
      t = CLOCK()
      for _ in range(n):
        fn_tl()
      tl.append((CLOCK() - t) / n)
      _user_threads()
      t = CLOCK()
      for _ in range(n):
        fn_np()
      npy.append((CLOCK() - t) / n)
  finally:
    if gc_was:
      gc.enable()
  return statistics.median(tl), statistics.median(npy)


def calls_per_sample(fn, min_time):
  """How many calls of `fn` one sample needs to last >= min_time (a power of 2)."""
  n = 1
  while True:
    t = time.perf_counter()
    for _ in range(n):
      fn()
    if time.perf_counter() - t >= min_time or n >= 1 << 16:
      return n
    n *= 2


def time_one(fn, repeat=15, min_time=0.05, warmup=2):
  for _ in range(warmup):
    fn()
  n = calls_per_sample(fn, min_time)
  out = []
  for _ in range(repeat):
    t = CLOCK()
    for _ in range(n):
      fn()
    out.append((CLOCK() - t) / n)
  return statistics.median(out)
