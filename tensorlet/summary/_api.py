"""tf.summary's write functions: scalar, histogram, image, text, write, flush,
record_if and the step. Each builds one `WriteSummary` op, so it writes when
run eagerly and on every call of a tf.function it was traced into."""
import contextlib

from tensorlet import dtypes as _dt
from tensorlet.context import ctx
from tensorlet.summary import _encode
from tensorlet.summary._writer import state
from tensorlet.tensor import EagerTensor, Tensor, convert_to_tensor

__all__ = ["write", "scalar", "histogram", "image", "text", "flush", "record_if",
           "should_record_summaries", "get_step", "set_step", "summary_scope"]


def get_step():
  """The default step (tf.summary.experimental.get_step), or None."""
  return state.step


def set_step(step):
  """Sets the default step: an int, an int64 tensor or variable (read when writing)."""
  state.step = step


def _step_tensor(step):
  if step is None:
    step = state.step
  if step is None:
    raise ValueError("No step set. Please specify one either through the `step` argument "
                     "or through tf.summary.experimental.set_step()")
  if hasattr(step, "read_value"):
    step = step.read_value()
  step = convert_to_tensor(step, _dt.int64)
  if step.shape.rank not in (None, 0):
    raise ValueError(f"`step` must be a scalar, got shape {step.shape}")
  return step


@contextlib.contextmanager
def record_if(condition):
  """Records summaries only where `condition` (a bool, bool tensor or a callable
  returning one) is true."""
  state.record_if.append(condition)
  try:
    yield
  finally:
    state.record_if.pop()


def _condition():
  """None (record), False (never) or a bool tensor deciding at run time."""
  cond = None
  for c in state.record_if:
    c = c() if callable(c) else c
    if isinstance(c, Tensor) or hasattr(c, "_as_tensor"):
      c = convert_to_tensor(c, _dt.bool)
      if isinstance(c, EagerTensor):
        c = bool(c.numpy())
    if isinstance(c, Tensor):
      from tensorlet.ops.math_ops import logical_and
      cond = c if cond is None else logical_and(cond, c)
    elif not c:
      return False
  return cond


def should_record_summaries():
  """A bool tensor: True when a default writer exists and record_if allows it."""
  if _writer() is None:
    return convert_to_tensor(False)
  cond = _condition()
  if cond is None:
    return convert_to_tensor(True)
  return convert_to_tensor(False) if cond is False else cond


@contextlib.contextmanager
def summary_scope(name, default_name=None, values=None):
  """A name scope for summary ops; yields (tag, scope name) under the current scope."""
  from tensorlet.context import name_scope
  with name_scope(name or default_name) as scope:
    yield ctx.scope[:-1], scope


def _writer():
  """The default writer, or None when there is none or it records nothing."""
  w = state.writer
  return w if w is not None and w.records else None


def _tag(name):
  if not isinstance(name, str):
    raise TypeError(f"summary name must be a string, got {name!r}")
  return ctx.scope + name


def _data(op, name, data):
  """`data` as a tensor; None gets a message naming the summary, not convert_to_tensor's."""
  if data is None:
    raise ValueError(f"tf.summary.{op} {name!r}: `data` is None; expected a tensor or a "
                     f"value convertible to one")
  return convert_to_tensor(data)


def _emit(name, tensor, step, kind, params, metadata):
  """The shared tail of every summary function: one WriteSummary op."""
  writer = _writer()
  cond = _condition()
  if cond is False:
    return convert_to_tensor(False)
  from tensorlet.ops.summary_ops import WriteSummary
  inputs = [_step_tensor(step), tensor] + ([] if cond is None else [cond])
  return WriteSummary(*inputs, writer=writer, tag=_tag(name), kind=kind, params=params,
                      metadata=metadata)


def write(tag, tensor, step=None, metadata=None, name=None):
  """Writes a generic tensor summary; returns a bool tensor (False when nothing is
  recorded). `metadata` may be a SummaryMetadata proto or its bytes."""
  if _writer() is None:
    return convert_to_tensor(False)
  tensor = _data("write", tag, tensor() if callable(tensor) else tensor)
  if metadata is None:
    metadata = _encode.metadata(None)
  elif not isinstance(metadata, bytes):
    if not hasattr(metadata, "SerializeToString"):
      raise TypeError(f"tf.summary.write {tag!r}: `metadata` must be a SummaryMetadata proto "
                      f"or its serialized bytes, got {metadata!r}")
    metadata = metadata.SerializeToString()
  return _emit(tag, tensor, step, "tensor", (), metadata)


def scalar(name, data, step=None, description=None):
  """Writes a scalar (cast to float32) for TensorBoard's scalars dashboard."""
  if _writer() is None:
    return convert_to_tensor(False)
  from tensorlet.ops.math_ops import cast
  data = _data("scalar", name, data)
  if data.shape.rank not in (None, 0):
    raise ValueError(f"Expected scalar shape, saw shape: {tuple(data.shape.as_list())}.")
  if data.dtype is _dt.string:
    raise TypeError(f"tf.summary.scalar {name!r}: cannot write a string tensor as a scalar "
                    f"(Cast string to float is not supported)")
  return _emit(name, cast(data, _dt.float32), step, "scalar", (),
               _encode.metadata("scalars", description))


def histogram(name, data, step=None, buckets=None, description=None):
  """Writes a histogram of `data` (any shape, flattened) with `buckets` (30) buckets."""
  if _writer() is None:
    return convert_to_tensor(False)
  if buckets is None:
    buckets = _encode.DEFAULT_BUCKETS
  elif isinstance(buckets, Tensor):
    buckets = int(buckets.numpy())
  elif not isinstance(buckets, int) or isinstance(buckets, bool):
    raise TypeError(f"tf.summary.histogram: `buckets` must be an int, got {buckets!r}")
  if buckets < 0:
    raise ValueError(f"tf.summary.histogram {name!r}: `buckets` must be >= 0, got {buckets}")
  data = _data("histogram", name, data)
  if data.dtype is _dt.string:
    raise TypeError(f"tf.summary.histogram {name!r}: data must be numeric, got a string "
                    f"tensor")
  return _emit(name, data, step, "histogram", (buckets,),
               _encode.metadata("histograms", description))


def image(name, data, step=None, max_outputs=3, description=None):
  """Writes up to `max_outputs` images from `data` of shape [k, h, w, c] (c in 1-4;
  floats in [0, 1] or uint8)."""
  if _writer() is None:
    return convert_to_tensor(False)
  data = _data("image", name, data)
  shape = data.shape
  if shape.rank is not None and shape.rank != 4:
    raise ValueError(f"Tensor {name!r} must have rank 4. Received rank {shape.rank}, shape "
                     f"{tuple(shape.as_list())}")
  channels = shape.as_list()[-1] if shape.rank is not None else None
  if channels is not None and channels not in (1, 2, 3, 4):
    raise ValueError(f"tf.summary.image {name!r}: images must have 1, 2, 3 or 4 channels, "
                     f"got {channels}")
  if data.dtype is _dt.string or data.dtype.is_complex:
    raise TypeError(f"tf.summary.image {name!r}: cannot convert {data.dtype.name} images "
                    f"to uint8")
  if not isinstance(max_outputs, int) or max_outputs < 0:
    raise ValueError(f"tf.summary.image: `max_outputs` must be a non-negative int, got "
                     f"{max_outputs!r}")
  return _emit(name, data, step, "image", (max_outputs,),
               _encode.metadata("images", description))


def text(name, data, step=None, description=None):
  """Writes a string tensor (Markdown) for TensorBoard's text dashboard."""
  if _writer() is None:
    return convert_to_tensor(False)
  data = _data("text", name, data)
  if data.dtype is not _dt.string:
    raise TypeError(f"tensor must be of type tf.string; got tf.{data.dtype.name}")
  return _emit(name, data, step, "text", (),
               _encode.metadata("text", description))


def flush(writer=None, name=None):
  """Flushes `writer` (default: the default writer); in a tf.function, when it runs."""
  writer = state.writer if writer is None else writer
  if writer is None:
    return None
  from tensorlet.ops.summary_ops import FlushSummaryWriter
  FlushSummaryWriter(writer=writer)
  return None
