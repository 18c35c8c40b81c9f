"""Segment ops: unsorted_segment_* kernels and gradients, sorted segment_* on top."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import array_ops
from tensorlet.ops._common import NUMERIC, REAL, as_int
from tensorlet.ops.indexing_ops import _scatter_add
from tensorlet.ops._common import name_scoped
from tensorlet.ops.math_ops import _sh, cast, div_no_nan, equal, greater, greater_equal, maximum
from tensorlet.ops.reduction_ops import reduce_max
from tensorlet.ops.registry import execute, op
from tensorlet.tensor import Tensor, constant, convert_to_tensor
from tensorlet.tensor_shape import TensorShape


# ------------------------------------------------------------- segments

def _segment_shape(inputs, attrs):
  from tensorlet.ops.registry import constant_value
  x, ids = inputs[0], inputs[1]
  n = constant_value(inputs[2])
  n = None if n is None else int(n)
  if x.shape.rank is None or ids.shape.rank is None:
    return [(TensorShape(None), x.dtype)]
  return [(TensorShape([n] + x.shape.as_list()[ids.shape.rank:]), x.dtype)]


def _segment_kernel(ufunc, empty):
  def k(data, segment_ids, num_segments):
    num_segments = as_int(num_segments, "UnsortedSegment", "num_segments")
    if np.shape(data)[:np.ndim(segment_ids)] != np.shape(segment_ids):
      raise InvalidArgumentError(None, None, f"segment_ids.shape = {_sh(np.shape(segment_ids))} "
                                 f"must be a prefix of data.shape = {_sh(np.shape(data))}")
    if np.size(segment_ids) and np.max(segment_ids) >= num_segments:
      raise InvalidArgumentError(None, None, f"segment_ids[{int(np.argmax(segment_ids))}] = "
                                 f"{np.max(segment_ids)} is out of range [0, {num_segments})")
    ids = np.reshape(segment_ids, [-1])
    rows = np.reshape(data, (ids.size,) + np.shape(data)[np.ndim(segment_ids):])
    if ids.size and ids.min() < 0:
      keep = ids >= 0  # NOTE: TF drops negative ids
      ids, rows = ids[keep], rows[keep]
    out = np.full((num_segments,) + rows.shape[1:], empty(data.dtype), dtype=data.dtype)
    if ufunc is np.add:  # IndexedSlices to dense: the sum's faster loop, same order
      _scatter_add(out, ids, rows)
    else:
      ufunc.at(out, ids, rows)
    return out
  return k


def _lowest(dt):
  return np.finfo(dt).min if dt.kind == "f" else np.iinfo(dt).min


def _highest(dt):
  return np.finfo(dt).max if dt.kind == "f" else np.iinfo(dt).max


UnsortedSegmentSum = op("UnsortedSegmentSum", type_inputs=(0,), dtypes=NUMERIC,
                        shape=_segment_shape)(_segment_kernel(np.add, lambda dt: 0))
UnsortedSegmentMax = op("UnsortedSegmentMax", type_inputs=(0,), dtypes=REAL,
                        shape=_segment_shape)(_segment_kernel(np.maximum, _lowest))
UnsortedSegmentMin = op("UnsortedSegmentMin", type_inputs=(0,), dtypes=REAL,
                        shape=_segment_shape)(_segment_kernel(np.minimum, _highest))
UnsortedSegmentProd = op("UnsortedSegmentProd", type_inputs=(0,), dtypes=NUMERIC,
                         shape=_segment_shape, differentiable=False)(
                             _segment_kernel(np.multiply, lambda dt: 1))


def _gather_drop_negatives(params, ids):
  """gather(params, ids) with the rows of negative ids zeroed (TF's segment gradients)."""
  keep = greater_equal(ids, array_ops.zeros_like(ids))
  g = array_ops.gather(params, array_ops.where(keep, ids, array_ops.zeros_like(ids)))
  if g.shape.rank is not None and keep.shape.rank is not None:
    extra = array_ops.ones([g.shape.rank - keep.shape.rank], _dt.int32)
  else:
    extra = array_ops.fill([array_ops.rank(g) - array_ops.rank(keep)], 1)
  keep = array_ops.reshape(keep, array_ops.concat([array_ops.shape(keep), extra], 0))
  return array_ops.where(keep, g, array_ops.zeros_like(g))


@UnsortedSegmentSum.def_grad
def _(op, dy):
  return [_gather_drop_negatives(dy, op.inputs[1]), None, None]


def _segment_minmax_grad(op, dy):
  # TF's rule: the gradient is shared equally by the elements that hit the extremum.
  x, ids = op.inputs[0], op.inputs[1]
  hit = cast(equal(x, _gather_drop_negatives(op.outputs[0], ids)), dy.dtype)
  n = execute(UnsortedSegmentSum, [hit, ids, op.inputs[2]], {})
  return [_gather_drop_negatives(div_no_nan(dy, n), ids) * hit, None, None]


UnsortedSegmentMax.def_grad(_segment_minmax_grad)
UnsortedSegmentMin.def_grad(_segment_minmax_grad)


def _unsorted_public(od, name):
  def f(data, segment_ids, num_segments, name=None):
    x = convert_to_tensor(data)
    ids = convert_to_tensor(segment_ids)
    if not ids.dtype.is_integer:
      raise InvalidArgumentError(None, None, f"Value for attr 'Tindices' of {ids.dtype.name} is "
                                 f"not in the list of allowed values: int32, int64 "
                                 f"[Op:{od.name}]")
    n = num_segments if isinstance(num_segments, Tensor) else convert_to_tensor(
        as_int(num_segments, od.name, "num_segments"), ids.dtype)
    return execute(od, [x, ids, n], {}, name)
  f.__name__ = f.__qualname__ = name
  f.__doc__ = (f"tf.math.{name}: reduces the rows of `data` with equal `segment_ids` into "
               f"`num_segments` rows (negative ids are dropped).")
  return f


unsorted_segment_sum = _unsorted_public(UnsortedSegmentSum, "unsorted_segment_sum")
unsorted_segment_max = _unsorted_public(UnsortedSegmentMax, "unsorted_segment_max")
unsorted_segment_min = _unsorted_public(UnsortedSegmentMin, "unsorted_segment_min")
unsorted_segment_prod = _unsorted_public(UnsortedSegmentProd, "unsorted_segment_prod")


@name_scoped
def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
  """Mean of the rows of each segment (0 for empty segments)."""
  x = convert_to_tensor(data)
  ids = convert_to_tensor(segment_ids)
  s = unsorted_segment_sum(x, ids, num_segments)
  n = unsorted_segment_sum(array_ops.ones_like(ids, dtype=x.dtype), ids, num_segments)
  n = array_ops.reshape(maximum(n, array_ops.ones_like(n)), array_ops.concat(
      [array_ops.shape(n), array_ops.ones_like(array_ops.shape(s)[1:])], 0))
  return s / n


def _sorted_segment(unsorted, empty_is_zero):
  def f(data, segment_ids, name=None):
    from tensorlet.ops.registry import constant_value
    ids = convert_to_tensor(segment_ids)
    if not ids.dtype.is_integer:
      raise InvalidArgumentError(None, None, f"Value for attr 'Tindices' of {ids.dtype.name} is "
                                 f"not in the list of allowed values: int32, int64")
    v = constant_value(ids)
    if v is not None:
      v = np.reshape(v, [-1])
      if v.size and (np.any(np.diff(v) < 0) or v[0] < 0):
        raise InvalidArgumentError(None, None, "segment ids are not increasing or are negative")
      n = int(v[-1]) + 1 if v.size else 0
    else:  # known at run time only: one more than the largest id
      n = reduce_max(array_ops.concat([array_ops.reshape(ids, [-1]),
                                       constant([-1], ids.dtype)], 0)) + 1
    r = unsorted(data, ids, n)
    if empty_is_zero:  # TF's sorted max/min give 0 for empty segments
      cnt = unsorted_segment_sum(array_ops.ones_like(ids), ids, n)
      cnt = array_ops.reshape(cnt, array_ops.concat(
          [array_ops.shape(cnt), array_ops.ones_like(array_ops.shape(r)[1:])], 0))
      r = array_ops.where(array_ops.broadcast_to(greater(cnt, 0), array_ops.shape(r)), r,
                          array_ops.zeros_like(r))
    return r
  f.__doc__ = "Segment reduction over sorted `segment_ids` (segments 0..max id)."
  return f


segment_sum = _sorted_segment(unsorted_segment_sum, False)
segment_mean = _sorted_segment(unsorted_segment_mean, False)
segment_max = _sorted_segment(unsorted_segment_max, True)
segment_min = _sorted_segment(unsorted_segment_min, True)
segment_prod = _sorted_segment(unsorted_segment_prod, False)
