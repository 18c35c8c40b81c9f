"""Summary ops: writing a summary and flushing a writer are stateful ops, so
inside a tf.function they stay in program order and write on every call.

The writer is an attribute (the Python SummaryWriter chosen when the op was
built, as TF captures the default writer's resource at trace time). The kernel
turns the raw tensor into what TensorBoard's plugin expects (histogram
buckets, PNG images) only when the op runs.
"""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.ops.registry import op
from tensorlet.tensor_shape import TensorShape

__all__ = ["WriteSummary", "FlushSummaryWriter"]

_BOOL_SCALAR = [(TensorShape([]), _dt.bool)]


@op("WriteSummary", type_inputs=(), stateful=True, differentiable=False,
    shape=lambda i, a: _BOOL_SCALAR)
def WriteSummary(step, tensor, *condition, writer, tag, kind, params, metadata):
  """Writes `tensor` under `tag` at `step`; a False `condition` skips it."""
  if condition and not bool(condition[0]):
    return np.bool_(False)
  writer._write_tensor(tag, int(step), kind, params, tensor, metadata)
  return np.bool_(True)


@op("FlushSummaryWriter", type_inputs=(), stateful=True, differentiable=False, num_outputs=0,
    shape=lambda i, a: [])
def FlushSummaryWriter(*, writer):
  writer.flush()
  return ()
