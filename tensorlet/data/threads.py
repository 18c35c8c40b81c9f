"""Thread-backed iteration: map with num_parallel_calls, and prefetch.

`map(f, num_parallel_calls=n)` runs up to n calls of the compiled function at
once in a thread pool (NumPy kernels, tf.py_function bodies and file reads
release the GIL, so they overlap); results come out in input order unless
deterministic=False, then in completion order. `prefetch(n)` runs its input
in a producer thread that keeps up to n elements ready, so producing the
next element overlaps with the consumer's work. Errors reach the consumer at
the element where they happened; abandoning the iterator stops the thread.
"""
import collections
import os
import queue
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

__all__ = ["parallel_map", "prefetched", "resolve_parallelism"]

_EXECUTORS = {}
_LOCK = threading.Lock()


def resolve_parallelism(n):
  """AUTOTUNE (-1) -> the number of CPUs."""
  return (os.cpu_count() or 1) if n == -1 else n


def _executor(n):
  # NOTE: one shared pool per size; pipelines are many and short-lived.
  with _LOCK:
    ex = _EXECUTORS.get(n)
    if ex is None:
      ex = _EXECUTORS[n] = ThreadPoolExecutor(n, thread_name_prefix="tensorlet-data-map")
    return ex


def parallel_map(fn, items, n, deterministic=True):
  """`fn(item)` for each item, up to `n` at once in threads."""
  if n <= 1:
    for x in items:
      yield fn(x)
    return
  ex = _executor(n)
  pending = collections.deque()
  it = iter(items)
  exhausted = False
  try:
    while True:
      while not exhausted and len(pending) < n:
        x = next(it, _END)
        if x is _END:
          exhausted = True
        else:
          pending.append(ex.submit(fn, x))
      if not pending:
        return
      if deterministic:
        fut = pending.popleft()
      else:
        done, _ = wait(pending, return_when=FIRST_COMPLETED)
        fut = next(f for f in pending if f in done)
        pending.remove(fut)
      yield fut.result()
  finally:
    for f in pending:
      f.cancel()


_END = object()


class _Failure:
  __slots__ = ("error",)

  def __init__(self, error):
    self.error = error


def prefetched(items_fn, size):
  """The items of `items_fn()`, produced by a background thread up to `size` ahead."""
  q = queue.Queue(maxsize=max(size, 1))
  stop = threading.Event()

  def produce():
    try:
      for x in items_fn():
        while not stop.is_set():
          try:
            q.put(x, timeout=0.05)
            break
          except queue.Full:
            continue
        if stop.is_set():
          return
      q.put(_END)
    except BaseException as e:  # NOTE: handed to the consumer, raised there
      q.put(_Failure(e))
  t = threading.Thread(target=produce, name="tensorlet-data-prefetch", daemon=True)
  t.start()
  try:
    while True:
      x = q.get()
      if x is _END:
        return
      if isinstance(x, _Failure):
        raise x.error
      yield x
  finally:
    stop.set()
