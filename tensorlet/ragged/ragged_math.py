"""Elementwise ops and reductions on RaggedTensors (dispatched from the dense
public functions, see ops/composite_dispatch.py)."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import array_ops as A
from tensorlet.ops import composite_dispatch as dispatch
from tensorlet.ops import math_ops as M
from tensorlet.ops.registry import constant_value
from tensorlet.ragged.ragged_tensor import RaggedTensor
from tensorlet.tensor import Tensor, convert_to_tensor

__all__ = ["elementwise", "reduce"]


def _same_splits(a, b):
  if a.ragged_rank != b.ragged_rank:
    raise ValueError(f"Ragged tensors have different ragged ranks ({a.ragged_rank} vs "
                     f"{b.ragged_rank}) in an elementwise op")
  for x, y in zip(a.nested_row_splits, b.nested_row_splits):
    vx, vy = constant_value(x), constant_value(y)
    if vx is not None and vy is not None and not np.array_equal(vx, vy):
      raise InvalidArgumentError(None, None, "Inputs must have identical ragged splits: the "
                                 "ragged tensors of an elementwise op differ in row lengths")


def _dense_on(rt, x):
  """Dense operand `x` as flat values matching `rt` (broadcast over its rows)."""
  t = convert_to_tensor(x, dtype_hint=rt.dtype)
  r, rank = t.shape.rank, rt.shape.rank
  if r is None or r < rank:
    return t  # broadcasts against the flat values' inner dims
  if rt.ragged_rank == 1 and r == rank and t.shape[1] == 1:
    return A.gather(A.squeeze(t, [1]), rt.value_rowids())
  raise ValueError(f"Unable to broadcast a dense tensor of shape {t.shape} against a ragged "
                   f"tensor of shape {rt.shape}")


def elementwise(api, args, kwargs):
  """`api` applied to the flat values; ragged operands must share their row splits."""
  rts = [a for a in list(args) + list(kwargs.values()) if isinstance(a, RaggedTensor)]
  if not rts:
    return NotImplemented
  first = rts[0]
  for r in rts[1:]:
    _same_splits(first, r)

  def flat(a):
    if isinstance(a, RaggedTensor):
      return a.flat_values
    if isinstance(a, (Tensor, list, tuple, np.ndarray)):
      return _dense_on(first, a)
    return a
  out = api(*[flat(a) for a in args], **{k: flat(v) for k, v in kwargs.items()})
  return first.with_flat_values(out)


def _map_values(fn):
  def impl(input, *args, **kwargs):  # noqa: A002
    return input.with_flat_values(fn(input.flat_values, *args, **kwargs))
  return impl


for _api in (M.cast, M.abs, A.zeros_like, A.ones_like):
  dispatch.dispatch_for(_api)(RaggedTensor)(_map_values(_api._tl_undispatched))


# ------------------------------------------------------------ reductions
_SEGMENT = {"reduce_sum": M.unsorted_segment_sum, "reduce_max": M.unsorted_segment_max,
            "reduce_min": M.unsorted_segment_min, "reduce_prod": M.unsorted_segment_prod}


def _segment_reduce(kind, values, ids, n):
  if kind in _SEGMENT:
    return _SEGMENT[kind](values, ids, n)
  if kind == "reduce_mean":
    s = M.unsorted_segment_sum(values, ids, n)
    c = M.unsorted_segment_sum(A.ones_like(values), ids, n)
    return M.truediv(s, c)
  as_int = M.cast(values, _dt.int32)
  # empty rows are False for any and True for all (the identities of OR and AND)
  if kind == "reduce_any":
    return M.greater(M.unsorted_segment_sum(as_int, ids, n), 0)
  if kind == "reduce_all":
    return M.equal(M.unsorted_segment_sum(1 - as_int, ids, n), 0)
  raise NotImplementedError(f"{kind} is not implemented for RaggedTensor")


def reduce(kind, rt, axis=None, keepdims=False):
  dense = getattr(M, kind)
  if axis is None:
    return dense(rt.flat_values)
  if isinstance(axis, (list, tuple)):
    out = rt
    for a in sorted((a + rt.shape.rank if a < 0 else a for a in axis), reverse=True):
      out = reduce(kind, out, a, keepdims) if isinstance(out, RaggedTensor) else \
          dense(out, axis=a, keepdims=keepdims)
    return out
  axis = int(axis)
  rank = rt.shape.rank
  if axis < 0:
    axis += rank
  if not 0 <= axis < rank:
    raise ValueError(f"axis={axis} out of range for a ragged tensor of rank {rank}")
  rr = rt.ragged_rank
  if axis > rr:  # a uniform inner dimension
    return rt.with_flat_values(dense(rt.flat_values, axis=axis - rr, keepdims=keepdims))
  if axis == 1 and rr == 1:
    out = _segment_reduce(kind, rt.values, rt.value_rowids(), rt.nrows())
    return A.expand_dims(out, 1) if keepdims else out
  if axis == 0 and rr == 1:
    starts = A.gather(rt.row_splits, rt.value_rowids())
    cols = M.subtract(A.range(A.shape(rt.values, out_type=rt.row_splits_dtype)[0],
                              dtype=rt.row_splits_dtype), starts)
    lens = rt.row_lengths()
    width = M.reduce_max(A.concat([A.zeros([1], lens.dtype), lens], 0))
    out = _segment_reduce(kind, rt.values, cols, width)
    return A.expand_dims(out, 0) if keepdims else out
  if axis >= 2:
    return rt.with_values(reduce(kind, rt.values, axis - 1, keepdims))
  raise NotImplementedError(f"tf.{kind} over axis {axis} of a RaggedTensor with ragged_rank "
                            f"{rr} is not implemented")


def _reduction(kind):
  def impl(input_tensor, axis=None, keepdims=False, name=None):
    return reduce(kind, input_tensor, axis, keepdims)
  return impl


for _kind in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
              "reduce_any", "reduce_all"):
  dispatch.dispatch_for(getattr(M, _kind))(RaggedTensor)(_reduction(_kind))
