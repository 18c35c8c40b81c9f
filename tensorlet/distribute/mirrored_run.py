"""strategy.run: the replica function once per local replica.

One replica runs directly in the caller's thread. Several run in threads that take turns
(only one runs at a time, in replica order), as TF's MirroredStrategy does: a replica
that reaches merge_call (all_reduce, a variable update, an optimizer step) pauses;
when all have paused, the merge function runs once in the caller's thread, in
cross-replica context, then the replicas resume in order. Because they take turns, a
tf.function being traced sees each replica's ops added in turn to the same graph, and
results are deterministic.

The threads are kept per strategy and reused by the next call (starting two threads per
call cost more than a small replica function); a call made while they are busy (from
another thread, or from inside a replica function) gets threads of its own.
"""
import queue
import sys
import threading
import weakref

from tensorlet.context import ctx
from tensorlet.distribute import values as _values
from tensorlet.distribute._state import state
from tensorlet.distribute.distribute_lib import ReplicaContext


class _Aborted(BaseException):
  """Unwinds a paused replica thread after another replica failed."""


def call_for_each_replica(strategy, fn, args, kwargs):
  ext = strategy.extended
  base = ext._collectives.rank * ext._num_local
  if ext._num_local == 1:
    saved, pushed = state.replica, strategy not in state.scopes[-1:]
    state.replica = ReplicaContext(strategy, base, 0)
    if pushed:
      state.scopes.append(strategy)
    try:
      out = fn(*_values.select_replica(0, args), **_values.select_replica(0, kwargs))
      # One replica of several workers: results are per-replica (reduce sums workers).
      return _values.regroup([out]) if ext._collectives.size > 1 else out
    finally:
      if pushed:
        state.scopes.pop()
      state.replica = saved
  return _Coordinator(strategy, fn, args, kwargs, base).run()


def _reset_thread_state():
  """A pooled thread back to a new thread's context between calls."""
  ctx.__init__()
  state.__init__()
  summary = sys.modules.get("tensorlet.summary._writer")
  if summary is not None:
    summary.state.__init__()


def _serve(jobs):
  while True:
    job = jobs.get()
    if job is None:
      return
    try:
      job.run()
    finally:
      job = None  # holds the strategy: let it go while waiting for the next call
      _reset_thread_state()


class _Pool:
  """Threads that run one replica's job each per call, kept while the strategy lives."""

  def __init__(self, n):
    self.lock = threading.Lock()
    self.queues = [queue.SimpleQueue() for _ in range(n)]
    for i, q in enumerate(self.queues):
      threading.Thread(target=_serve, args=(q,), name=f"tensorlet-replica-{i}",
                       daemon=True).start()

  def close(self):
    for q in self.queues:
      q.put(None)


def _pool_of(strategy, n):
  pool = strategy.__dict__.get("_tl_replica_pool")
  if pool is None or len(pool.queues) != n:
    if pool is not None:
      pool.close()
    pool = _Pool(n)
    strategy._tl_replica_pool = pool
    weakref.finalize(strategy, pool.close)
  return pool


class _OwnThread(threading.Thread):
  """A thread for one job (the strategy's pool is busy)."""

  def __init__(self, job):
    super().__init__(target=job.run, name=f"tensorlet-replica-{job.local_id}", daemon=True)


class _ReplicaJob:

  def __init__(self, coordinator, local_id, fn, args, kwargs):
    self.coordinator, self.local_id = coordinator, local_id
    self.fn, self.args, self.kwargs = fn, args, kwargs
    self.should_run, self.has_paused = threading.Event(), threading.Event()
    self.done, self.result, self.error = False, None, None
    self.merge_request = None  # (merge_fn, args, kwargs) while paused in merge_call
    self.merge_result, self.abort = None, False
    self.variables_made = 0
    self.parent = (ctx.graph, ctx.scope, ctx.run_functions_eagerly, ctx.variable_creator,
                   list(state.scopes))
    # As TF: summaries written in a replica function are recorded by replica 0 only.
    # (Looked up, not imported: tf.summary sits above this layer and may be unused.)
    summary = sys.modules.get("tensorlet.summary._writer")
    self.summary = None if summary is None or local_id else (
        summary.state, summary.state.writer, summary.state.step, list(summary.state.record_if))

  def run(self):
    self.should_run.wait()
    self.should_run.clear()
    c = self.coordinator
    graph, scope, eager, creator, scopes = self.parent
    ctx.graph, ctx.run_functions_eagerly, ctx.variable_creator = graph, eager, creator
    ctx.device = c.strategy.extended.worker_devices[self.local_id]
    ctx.scope = scope + (f"replica_{self.local_id}/" if self.local_id and graph is not None
                         else "")
    state.scopes = scopes if c.strategy in scopes[-1:] else scopes + [c.strategy]
    state.replica = ReplicaContext(c.strategy, c.base + self.local_id, self.local_id, c)
    if self.summary is not None:
      summary_state = self.summary[0]
      summary_state.writer, summary_state.step, summary_state.record_if = self.summary[1:]
    try:
      self.result = self.fn(*_values.select_replica(self.local_id, self.args),
                            **_values.select_replica(self.local_id, self.kwargs))
    except _Aborted:
      pass
    except BaseException:  # noqa: B036 - handed to the caller's thread
      self.error = sys.exc_info()
    finally:
      self.done = True
      self.has_paused.set()

  def step(self):
    """Lets this replica run until it pauses in merge_call or returns."""
    self.should_run.set()
    self.has_paused.wait()
    self.has_paused.clear()


class _Coordinator:

  def __init__(self, strategy, fn, args, kwargs, base):
    self.strategy, self.base = strategy, base
    n = strategy.extended._num_local
    self.threads = [_ReplicaJob(self, i, fn, args, kwargs) for i in range(n)]
    self.created = []  # variables replica 0 created, in order

  def variable(self, local_id, cls):
    """A variable made in a replica function: replica 0 makes it (each replica runs a
    stretch of code after replica 0 ran it), the others take replica 0's in order, so
    lazily built layers and metrics share one set of variables."""
    t = self.threads[local_id]
    k = t.variables_made
    t.variables_made += 1
    if local_id == 0:
      v = object.__new__(cls)
      self.created.append(v)
      return v
    if k >= len(self.created):
      raise RuntimeError(f"replica {local_id} created a variable that replica 0 did not "
                         f"create; replica functions must create the same variables")
    return self.created[k]

  def merge(self, replica_ctx, merge_fn, args, kwargs):
    """Called in a replica thread: pause until the merge function has run."""
    t = self.threads[replica_ctx._local_id]
    t.merge_request = (merge_fn, args, kwargs)
    t.has_paused.set()
    t.should_run.wait()
    t.should_run.clear()
    if t.abort:
      raise _Aborted()
    result, t.merge_result = t.merge_result, None
    return result

  def _fail(self, error):
    for t in self.threads:
      if not t.done:
        t.abort = True
        t.step()
    raise error[1].with_traceback(error[2])

  def run(self):
    pool = _pool_of(self.strategy, len(self.threads))
    pooled = pool.lock.acquire(blocking=False)
    own = []
    if pooled:
      for q, t in zip(pool.queues, self.threads):
        q.put(t)
    else:
      own = [_OwnThread(t) for t in self.threads]
      for th in own:
        th.start()
    try:
      for t in self.threads:
        t.step()
      while True:
        for t in self.threads:
          if t.error is not None:
            self._fail(t.error)
        if all(t.done for t in self.threads):
          break
        if any(t.done for t in self.threads):
          self._fail((RuntimeError, RuntimeError(
              "strategy.run: the replicas called merge_call (all_reduce, a variable "
              "update, an optimizer step) a different number of times; every replica must "
              "make the same synchronizing calls in the same order"), None))
        self._merge()
    finally:
      # Every job has returned (done is set last); its thread is free again.
      for th in own:
        th.join(timeout=1.0)
      if pooled:
        if all(t.done for t in self.threads):
          pool.lock.release()
        else:  # interrupted while replicas were paused: leave those threads to them
          self.strategy._tl_replica_pool = None
    return _values.regroup([t.result for t in self.threads])

  def _merge(self):
    requests = [t.merge_request for t in self.threads]
    for t in self.threads:
      t.merge_request = None
    merge_fn = requests[0][0]
    args = _values.regroup([r[1] for r in requests])
    kwargs = _values.regroup([r[2] for r in requests])
    pushed = self.strategy not in state.scopes[-1:]
    if pushed:
      state.scopes.append(self.strategy)
    saved = state.replica
    state.replica = None
    try:
      result = merge_fn(self.strategy, *args, **kwargs)
    except BaseException:  # noqa: B036
      self._fail(sys.exc_info())
    finally:
      state.replica = saved
      if pushed:
        state.scopes.pop()
    for i, t in enumerate(self.threads):
      t.merge_result = _values.select_replica(i, result)
      t.step()
