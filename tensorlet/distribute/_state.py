"""Which strategy and replica the running thread is in (thread-local, as TF's stack).

A replica thread of MirroredStrategy starts with a copy of its caller's state; merge_call
functions run in the caller's thread, in cross-replica context.
"""
import threading


class _State(threading.local):

  def __init__(self):
    self.scopes = []     # strategies whose scope() is entered, innermost last
    self.replica = None  # the ReplicaContext this thread runs as; None: cross-replica
    self.saving = False  # tf.saved_model.save is tracing: variables act as one


state = _State()

# The Collectives of the last multi-worker strategy made here: this process's worker.
worker_group = None


def current_extended():
  """The extended object of the strategy in scope (or of the running replica); None for
  the default strategy."""
  r = state.replica
  if r is not None:
    return r._extended
  if state.scopes:
    return state.scopes[-1].extended
  return None


def local_replica_of(extended):
  """The local index of the replica of `extended` this thread runs, or None (cross-replica
  context, or another strategy)."""
  r = state.replica
  if r is not None and r._extended is extended:
    return r._local_id
  return None


class saving:  # noqa: N801 - a context manager
  """While saving, a sync-on-read variable reads (and is captured) as the variable the
  saved object tracks, holding its aggregate value."""

  def __enter__(self):
    self._saved = state.saving
    state.saving = True

  def __exit__(self, *exc):
    state.saving = self._saved
    return False
