"""Event files: TFRecord-framed `Event` protos that TensorBoard reads.

The protobuf classes come from the `tensorboard` package (the `summary`
extra), imported once, on the first writer. Records are buffered in memory
and reach the file on `flush()` (the writer flushes every `max_queue` events,
every `flush_millis`, on close and at interpreter exit).
"""
import atexit
import itertools
import os
import socket
import struct
import threading
import time
import weakref

__all__ = ["protos", "EventFile"]

_PROTOS = None
_OPEN = weakref.WeakSet()
_COUNTER = itertools.count()


def protos():
  """The tensorboard modules used to build events (imported on first use)."""
  global _PROTOS
  if _PROTOS is None:
    try:
      from tensorboard.compat.proto import (config_pb2, event_pb2, graph_pb2, summary_pb2,
                                            tensor_pb2)
      from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import masked_crc32c
      from tensorboard.util import tensor_util
    except ImportError as e:
      raise ImportError("tf.summary writes TensorBoard event files with the protobuf "
                        "messages of the `tensorboard` package; install it with "
                        "`pip install tensorlet[summary]` (or `pip install tensorboard`)."
                        ) from e

    class _Protos:
      pass
    p = _Protos()
    p.config_pb2, p.event_pb2, p.graph_pb2 = config_pb2, event_pb2, graph_pb2
    p.summary_pb2, p.tensor_pb2, p.tensor_util = summary_pb2, tensor_pb2, tensor_util
    p.masked_crc32c = masked_crc32c
    _PROTOS = p
  return _PROTOS


def _frame(data, crc):
  header = struct.pack("<Q", len(data))
  return b"".join((header, struct.pack("<I", crc(header)), data, struct.pack("<I", crc(data))))


class EventFile:
  """One `events.out.tfevents.*` file, appended to in TFRecord framing."""

  def __init__(self, logdir, max_queue=10, flush_millis=120000, filename_suffix=""):
    p = protos()
    if os.path.exists(logdir) and not os.path.isdir(logdir):
      from tensorlet.errors import FailedPreconditionError
      raise FailedPreconditionError(None, None, f"tf.summary.create_file_writer: logdir "
                                    f"{logdir} is not a directory")
    os.makedirs(logdir, exist_ok=True)
    name = (f"events.out.tfevents.{int(time.time())}.{socket.gethostname()}.{os.getpid()}."
            f"{next(_COUNTER)}.v2{filename_suffix}")
    self.path = os.path.join(logdir, name)
    self._file = open(self.path, "wb")
    self._lock = threading.Lock()
    self._pending = []
    self._max_queue = max(1, int(max_queue))
    self._flush_s = flush_millis / 1000.0
    self._last_flush = time.monotonic()
    self._crc = p.masked_crc32c
    self._event = p.event_pb2.Event
    self.write_event(self._event(wall_time=time.time(), file_version="brain.Event:2"))
    self.flush()
    _OPEN.add(self)

  @property
  def closed(self):
    return self._file is None

  def write_event(self, event):
    record = _frame(event.SerializeToString(), self._crc)
    with self._lock:
      self._pending.append(record)
      due = len(self._pending) >= self._max_queue or \
          time.monotonic() - self._last_flush >= self._flush_s
    if due:
      self.flush()

  def flush(self):
    with self._lock:
      if self._file is None:
        return
      if self._pending:
        self._file.write(b"".join(self._pending))
        self._pending.clear()
      self._file.flush()
      self._last_flush = time.monotonic()

  def close(self):
    self.flush()
    with self._lock:
      if self._file is not None:
        self._file.close()
        self._file = None
    _OPEN.discard(self)


@atexit.register
def _flush_all():
  for f in list(_OPEN):
    try:
      f.close()
    except OSError:
      pass
