"""Elementwise ops and reductions on RaggedTensors (dispatched from the dense
public functions, see ops/dispatch.py)."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import array_ops as A
from tensorlet.ops import dispatch
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


def _binary(api):
  def impl(x, y, name=None):
    return elementwise(api, (x, y), {})
  return impl


# the binary ops that are plain functions, not elementwise op wrappers (integer
# division casts first); the same operands rules as the others
for _api in (M.truediv, M.divide, M.pow):
  dispatch.dispatch_for(_api)(RaggedTensor)(_binary(_api._tl_undispatched))


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


def _aligned_reduce(kind, v, seg, nseg):
  """Rows j of `v` (a tensor or RaggedTensor) reduced into `nseg` output rows by
  segment `seg[j]`, elementwise with the rows aligned at their starts at every
  ragged level (an output row is as long as its longest input row)."""
  if not isinstance(v, RaggedTensor):
    return _segment_reduce(kind, v, seg, nseg)
  dt = v.row_splits_dtype
  seg = M.cast(seg, dt)
  lens = M.unsorted_segment_max(v.row_lengths(), seg, nseg)
  lens = M.maximum(lens, A.zeros_like(lens))  # an output row nobody reaches is empty
  out_splits = A.concat([A.zeros([1], dt), M.cumsum(lens)], 0)
  rows = v.value_rowids()
  cols = M.subtract(A.range(v.row_splits[-1], dtype=dt), A.gather(v.row_splits, rows))
  inner_seg = M.add(A.gather(out_splits, A.gather(seg, rows)), cols)
  values = _aligned_reduce(kind, v.values, inner_seg, out_splits[-1])
  return RaggedTensor.from_row_splits(values, out_splits, validate=False)


def _mean(rt, axis, keepdims):
  """Sum over count (a mean over several axes is not a mean of means); integer
  values give float64 means, as TF's ragged reduce_mean."""
  if rt.dtype.is_integer or rt.dtype is _dt.bool:
    rt = M.cast(rt, _dt.float64)
  total = reduce("reduce_sum", rt, axis, keepdims)
  count = reduce("reduce_sum", A.ones_like(rt), axis, keepdims)
  return M.truediv(total, count)


def reduce(kind, rt, axis=None, keepdims=False):
  dense = getattr(M, kind)
  if kind == "reduce_mean":
    return _mean(rt, axis, keepdims)
  if axis is None:
    out = dense(rt.flat_values)
    return A.reshape(out, [1] * rt.shape.rank) if keepdims and rt.shape.rank else out
  if isinstance(axis, (list, tuple)):
    out = rt
    for a in sorted({a + rt.shape.rank if a < 0 else a for a in axis}, reverse=True):
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
  if axis >= 2:
    return rt.with_values(reduce(kind, rt.values, axis - 1, keepdims))
  if axis == 1:
    out = _aligned_reduce(kind, rt.values, rt.value_rowids(), rt.nrows())
  else:  # every row into one
    one = M.cast(1, rt.row_splits_dtype)
    out = _aligned_reduce(kind, rt, A.zeros_like(rt.row_lengths()), one)
    out = out.values
  return A.expand_dims(out, axis) if keepdims else out


def _reduction(kind):
  def impl(input_tensor, axis=None, keepdims=False, name=None):
    return reduce(kind, input_tensor, axis, keepdims)
  return impl


for _kind in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
              "reduce_any", "reduce_all"):
  dispatch.dispatch_for(getattr(M, _kind))(RaggedTensor)(_reduction(_kind))
