"""Runs independent pieces of one kernel (row blocks of a GEMM, runs of an optimizer
update) on a small pool of threads beside the caller; NumPy releases the GIL in BLAS
calls and ufunc loops, so the pieces run on several cores.

Why not the BLAS's own threads: OpenBLAS splits a GEMM statically and its threads spin
while waiting for the slowest, so a thread that another process preempts stalls the
whole call (the thread cliff in _blas_threads). Here the pieces are handed out one at
a time: a preempted thread delays only the piece it holds, the others (the caller
among them) take the rest, and idle pool threads sleep on a queue instead of spinning.
Each piece runs its BLAS call on one BLAS thread.

`threads()` is the count a kernel may use: the user's default BLAS count (so
OPENBLAS_NUM_THREADS=1 or a one-core machine keeps every kernel serial); 1 when
tf.config.threading fixes an intra-op count (the BLAS then runs every op on that many).
"""
import itertools
import queue
import threading

from tensorlet.ops import _blas_threads as _bt

__all__ = ["threads", "run"]

_pool = []          # worker threads (daemons), started on first use
_jobs = queue.SimpleQueue()
_start_lock = threading.Lock()


def threads():
  """Threads a kernel may split its work over (1: run serially)."""
  if _bt._enabled is None:
    _bt._init()
  return min(_bt._max, _bt._ncpu) if _bt._enabled else 1


def _worker():
  while True:
    job = _jobs.get()
    job()


def _ensure(n):
  if len(_pool) >= n:
    return
  with _start_lock:
    while len(_pool) < n:
      t = threading.Thread(target=_worker, name=f"tensorlet-kernel-{len(_pool)}", daemon=True)
      t.start()
      _pool.append(t)


class _Job:
  """One call's pieces: a shared counter hands them out; the caller waits only for
  pieces a worker has taken and not finished."""
  __slots__ = ("fn", "n", "next", "lock", "active", "idle", "error")

  def __init__(self, fn, n):
    self.fn, self.n = fn, n
    self.next = itertools.count()
    self.lock = threading.Lock()
    self.active = 0
    self.idle = threading.Condition(self.lock)
    self.error = None

  def __call__(self):
    fn, n, lock = self.fn, self.n, self.lock
    while True:
      with lock:
        i = next(self.next)
        if i >= n or self.error is not None:
          return
        self.active += 1
      try:
        fn(i)
      except BaseException as e:  # noqa: BLE001 - re-raised in the caller
        with lock:
          if self.error is None:
            self.error = e
      finally:
        with lock:
          self.active -= 1
          if not self.active:
            self.idle.notify_all()


def run(fn, n, nthreads=None):
  """Calls fn(i) for every i in range(n), on up to `nthreads` threads (the caller is
  one of them; default `threads()`), and returns when all are done. The first
  exception a piece raises is raised here (pieces not yet started are skipped)."""
  t = min(n, threads() if nthreads is None else nthreads)
  if t < 2:
    for i in range(n):
      fn(i)
    return
  if _bt._enabled is None:
    _bt._init()
  if _bt._set is not None and _bt._cur != 1:
    _bt._switch(1)  # each piece's BLAS call on one thread
  _ensure(t - 1)
  job = _Job(fn, n)
  for _ in range(t - 1):
    _jobs.put(job)
  job()
  with job.lock:
    while job.active:
      job.idle.wait()
  if job.error is not None:
    raise job.error
