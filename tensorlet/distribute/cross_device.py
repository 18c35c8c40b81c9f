"""Reductions of distributed values: over the local replicas with tensorlet ops (so they
work eagerly and in tf.function graphs), then across workers through the strategy's
Collectives with one fused call for all values of a batch."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.distribute.reduce_util import ReduceOp
from tensorlet.distribute.values import DistributedValues
from tensorlet.tensor import EagerTensor, Tensor, convert_to_tensor


def _tensor(x):
  if hasattr(x, "_as_tensor") and not isinstance(x, Tensor):
    return x._as_tensor()
  indices = getattr(x, "indices", None)
  if indices is not None and hasattr(x, "dense_shape") and not isinstance(x, Tensor):
    from tensorlet.ops import array_ops  # IndexedSlices gradients reduce densely
    return array_ops.scatter_nd(array_ops.expand_dims(indices, -1), x.values, x.dense_shape)
  return convert_to_tensor(x)


def _add_all(parts):
  if len(parts) == 1:
    return parts[0]
  from tensorlet.ops.reduction_ops import add_n
  return add_n(parts)


def all_reduce_across_workers(collectives, tensors, op="sum"):
  """The element-wise `op` of each tensor over all workers: one collective call."""
  if collectives.size == 1 or not tensors:
    return list(tensors)
  if all(isinstance(t, EagerTensor) for t in tensors):
    out = collectives.all_reduce([t.numpy() for t in tensors], op)
    return [EagerTensor(np.asarray(a, t.dtype.as_numpy_dtype), t.dtype)
            for a, t in zip(out, tensors)]
  from tensorlet.ops import script_ops

  def run(*arrays):
    return [np.asarray(a, x.dtype) for a, x in zip(collectives.all_reduce(list(arrays), op),
                                                    arrays)]
  out = script_ops.numpy_function(run, list(tensors), [t.dtype for t in tensors])
  out = out if isinstance(out, (list, tuple)) else [out]
  for o, t in zip(out, tensors):
    o.set_shape(t.shape)
  return list(out)


def _divide(total, n):
  from tensorlet.ops import math_ops
  if total.dtype.is_integer:
    return math_ops.floordiv(total, math_ops.cast(n, total.dtype))
  return math_ops.divide(total, math_ops.cast(n, total.dtype))


def batch_reduce(extended, reduce_op, values):
  """Reduces each value (DistributedValues or plain) over all replicas in sync."""
  n_sync = extended._num_replicas_in_sync
  sums = []
  for v in values:
    if isinstance(v, DistributedValues):
      sums.append(_add_all([_tensor(x) for x in v._values]))
    elif reduce_op is ReduceOp.MEAN or n_sync == 1:
      sums.append(None)
    else:
      raise ValueError(f"A non-DistributedValues value {v!r} cannot be reduced with the "
                       f"given reduce op {reduce_op}.")
  live = [s for s in sums if s is not None]
  reduced = iter(all_reduce_across_workers(extended._collectives, live, "sum"))
  out = []
  for v, s in zip(values, sums):
    if s is None:
      out.append(_tensor(v))
    else:
      r = next(reduced)
      out.append(_divide(r, n_sync) if reduce_op is ReduceOp.MEAN else r)
  return out


def reduce_along_axis(extended, reduce_op, value, axis):
  """strategy.reduce(op, value, axis): the reduction over `axis` of the replicas' values
  joined along it (MEAN divides by the total length of that axis)."""
  from tensorlet.ops import array_ops, math_ops
  if not isinstance(value, DistributedValues):
    t = _tensor(value)
    if reduce_op is ReduceOp.MEAN or extended._num_replicas_in_sync == 1:
      return math_ops.reduce_mean(t, axis) if reduce_op is ReduceOp.MEAN else \
          math_ops.reduce_sum(t, axis)
    raise ValueError(f"A non-DistributedValues value {value!r} cannot be reduced with the "
                     f"given reduce op {reduce_op}.")
  parts = [_tensor(x) for x in value._values]
  total = _add_all([math_ops.reduce_sum(p, axis) for p in parts])
  if reduce_op is ReduceOp.SUM:
    return all_reduce_across_workers(extended._collectives, [total])[0]
  count = _add_all([array_ops.shape(p, out_type=_dt.int64)[axis] for p in parts])
  total, count = all_reduce_across_workers(extended._collectives, [total, count])
  return math_ops.divide(total, math_ops.cast(count, total.dtype)) \
      if not total.dtype.is_integer else math_ops.floordiv(total, math_ops.cast(count,
                                                                                total.dtype))
