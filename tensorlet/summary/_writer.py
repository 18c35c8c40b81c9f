"""SummaryWriter objects and the default-writer / step / record_if state."""
import os
import threading
import time

import numpy as np

from tensorlet.errors import FailedPreconditionError
from tensorlet.summary import _encode, _events

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "state"]


class _State(threading.local):
  def __init__(self):
    self.writer = None       # the default writer (None: summaries are no-ops)
    self.step = None         # tf.summary.experimental.set_step's value
    self.record_if = []      # stack of record_if conditions


state = _State()


class SummaryWriter:
  """Base class of summary writers (tf.summary.SummaryWriter)."""

  records = True  # False for the no-op writer: summary functions then return False

  def set_as_default(self, step=None):
    """Makes this the default writer for the rest of the thread (and `step` the step)."""
    self._check_open()
    state.writer = self
    if step is not None:
      state.step = step

  def as_default(self, step=None):
    """A context in which this writer (and `step`, if given) is the default."""
    self._check_open()
    return _DefaultScope(self, step)

  def __enter__(self):
    self._scope = self.as_default()
    return self._scope.__enter__()

  def __exit__(self, *exc):
    scope, self._scope = self._scope, None
    return scope.__exit__(*exc)

  def init(self):
    """Nothing to initialize: a file writer opens its file when created."""

  def flush(self):
    """Writes buffered events to disk."""

  def close(self):
    """Flushes and closes the writer."""

  def _check_open(self):
    pass


class _DefaultScope:
  def __init__(self, writer, step):
    self._writer = writer
    self._step = step

  def __enter__(self):
    self._old = state.writer, state.step
    state.writer = self._writer
    if self._step is not None:
      state.step = self._step
    return self._writer

  def __exit__(self, *exc):
    state.writer, old_step = self._old
    if self._step is not None:
      state.step = old_step
    if not self._writer.closed:
      from tensorlet.summary._api import flush
      flush(self._writer)  # NOTE: an op inside tf.function, so each call flushes
    return False


class FileWriter(SummaryWriter):
  """Writes summaries to an event file in `logdir`."""

  def __init__(self, logdir, max_queue, flush_millis, filename_suffix):
    self.logdir = logdir
    self._file = _events.EventFile(logdir, max_queue, flush_millis, filename_suffix)
    self._scope = None

  @property
  def closed(self):
    return self._file.closed

  def flush(self):
    self._file.flush()

  def close(self):
    self._file.close()

  def _check_open(self):
    if self._file.closed:
      raise RuntimeError(f"SummaryWriter {self!r} is already closed")

  def __repr__(self):
    return f"<tensorlet SummaryWriter logdir={self.logdir!r}>"

  def _write_tensor(self, tag, step, kind, params, value, metadata):
    """Encodes `value` for `kind` and writes one summary event (a kernel calls this)."""
    if self._file.closed:
      raise FailedPreconditionError(None, None, f"Cannot write summary {tag!r}: the "
                                    f"SummaryWriter for {self.logdir!r} is closed.")
    if kind == "histogram":
      value = _encode.histogram_buckets(value, params[0])
    elif kind == "image":
      value = _encode.image_tensor(value, params[0])
    p = _events.protos()
    summary = p.summary_pb2.Summary(value=[p.summary_pb2.Summary.Value(
        tag=tag, tensor=p.tensor_util.make_tensor_proto(np.asarray(value)),
        metadata=p.summary_pb2.SummaryMetadata.FromString(metadata))])
    self._write_event(step, summary=summary)

  def _write_event(self, step, **fields):
    self._file.write_event(_events.protos().event_pb2.Event(
        wall_time=time.time(), step=step, **fields))


class NoopWriter(SummaryWriter):
  """A writer that writes nothing (tf.summary.create_noop_writer)."""

  closed = False
  records = False


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None,
                       name=None, experimental_trackable=False, experimental_mesh=None):
  """A SummaryWriter writing an event file into `logdir` (created if needed).

  Events are buffered and written every `max_queue` (10) events, every
  `flush_millis` (120000) ms, on `flush()`, `close()`, leaving `as_default()` and
  at exit.
  """
  from tensorlet.train.checkpoint import as_path
  if logdir is None:
    raise ValueError("tf.summary.create_file_writer: argument `logdir` cannot be None")
  for value, what in ((max_queue, "max_queue"), (flush_millis, "flush_millis")):
    if value is not None and (isinstance(value, bool) or
                              not isinstance(value, (int, float, np.integer, np.floating))):
      raise TypeError(f"tf.summary.create_file_writer: `{what}` must be a number, got "
                      f"{value!r}")
  try:
    logdir = as_path(logdir, "logdir")
  except TypeError:
    raise TypeError(f"Cannot convert {logdir!r} to EagerTensor of dtype string") from None
  if not logdir:
    raise ValueError("tf.summary.create_file_writer: `logdir` must be a non-empty path")
  return FileWriter(os.path.expanduser(logdir), 10 if max_queue is None else max_queue,
                    120000 if flush_millis is None else flush_millis, filename_suffix or "")


def create_noop_writer():
  """A SummaryWriter that records nothing."""
  return NoopWriter()
