"""tf.ragged functions, and tf.concat / tf.stack / tf.gather / tf.where /
tf.boolean_mask on RaggedTensors."""
import builtins

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.ops import array_ops as A
from tensorlet.ops import dispatch
from tensorlet.ops import math_ops as M
from tensorlet.ops._common import as_int, as_sequence
from tensorlet.ops.registry import constant_value
from tensorlet.errors import InvalidArgumentError
from tensorlet.ragged.ragged_getitem import gather_rows, range_indices
from tensorlet.ragged.ragged_math import _same_splits, elementwise
from tensorlet.ragged.ragged_tensor import RaggedTensor, _splits_dtype
from tensorlet.tensor import convert_to_tensor

__all__ = ["constant", "range", "boolean_mask", "stack", "map_flat_values",
           "row_splits_to_segment_ids", "segment_ids_to_row_splits"]


# ---------------------------------------------------------------- constant
def _scalar_depths(x, depth, out, _path=()):
  if isinstance(x, (list, tuple)):
    if id(x) in _path:
      raise ValueError("tf.ragged.constant: `pylist` contains itself (a cyclic list)")
    _path = _path + (id(x),)
    for e in x:
      _scalar_depths(e, depth + 1, out, _path)
    if not x:
      out["empty"] = max(out.get("empty", 0), depth + 1)
  else:
    out.setdefault("depths", set()).add(depth)


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None,
             row_splits_dtype=_dt.int64):
  """A RaggedTensor from a nested Python list whose rows may differ in length."""
  dt = _splits_dtype(row_splits_dtype)
  info = {}
  _scalar_depths(pylist, 0, info)
  depths = info.get("depths", set())
  if len(depths) > 1:
    raise ValueError("all scalar values must have the same nesting depth")
  scalars = bool(depths)
  k = depths.pop() if depths else info.get("empty", 1)
  inner = () if inner_shape is None else tuple(
      as_int(d, "tf.ragged.constant", "inner_shape")
      for d in as_sequence(inner_shape.as_list() if hasattr(inner_shape, "as_list")
                           else inner_shape, "tf.ragged.constant", "inner_shape"))
  if ragged_rank is not None:
    ragged_rank = as_int(ragged_rank, "tf.ragged.constant", "ragged_rank")
  if not scalars and ragged_rank is not None:  # only empty lists: as deep as asked
    k = max(k, ragged_rank + 1 + len(inner))
  if ragged_rank is None:
    ragged_rank = max(0, k - 1 - len(inner))
  if ragged_rank < 0:
    raise ValueError(f"Invalid ragged_rank={ragged_rank}")
  if k and ragged_rank >= k:
    raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank={ragged_rank}")
  if ragged_rank == 0:
    return convert_to_tensor(pylist, dtype)
  items, splits = list(pylist), []
  for _ in builtins.range(ragged_rank):
    s, nxt = [0], []
    for it in items:
      if not isinstance(it, (list, tuple)):
        raise ValueError(f"Invalid pylist={pylist!r}: incompatible with "
                         f"ragged_rank={ragged_rank}")
      nxt.extend(it)
      s.append(len(nxt))
    splits.append(np.asarray(s, dt.as_numpy_dtype))
    items = nxt
  if items:
    try:
      values = convert_to_tensor(items, dtype)
    except TypeError as e:  # values of mixed kinds: TF's ValueError
      raise ValueError("Can't convert Python sequence with mixed types to Tensor.") from None
    if inner and tuple(values.shape.as_list()[1:]) != inner:
      raise ValueError(f"inner values have shape {values.shape[1:]}, not inner_shape "
                       f"{list(inner)}")
  else:
    tail = list(inner) if inner else [0] * max(0, k - 1 - ragged_rank)
    values = convert_to_tensor(np.zeros([0] + tail, (_dt.as_dtype(dtype) if dtype else
                                                     _dt.float32).as_numpy_dtype))
  return RaggedTensor.from_nested_row_splits(values, [convert_to_tensor(s) for s in splits],
                                             validate=False)


# ----------------------------------------------------------------- range
def range(starts, limits=None, deltas=1, dtype=None, name=None,  # noqa: A001
          row_splits_dtype=_dt.int64):
  """Row i is tf.range(starts[i], limits[i], deltas[i]); scalars broadcast."""
  dt = _splits_dtype(row_splits_dtype)
  if limits is None:
    starts, limits = 0, starts
  s, l, d = (convert_to_tensor(v) for v in (starts, limits, deltas))
  out_dt = _dt.as_dtype(dtype) if dtype is not None else \
      next((t.dtype for t in (s, l, d) if t.dtype.is_floating), s.dtype
           if s.dtype is l.dtype else l.dtype)
  s, l, d = (M.cast(t, out_dt) for t in (s, l, d))
  rank = max(t.shape.rank for t in (s, l, d))
  if rank > 1:
    raise ValueError("starts, limits and deltas must be scalars or vectors")
  n = A.shape(s + l + d)
  s, l, d = (A.broadcast_to(t, n) for t in (s, l, d))
  span = M.cast(M.subtract(l, s), _dt.float64)
  lens = M.cast(M.maximum(M.ceil(M.truediv(span, M.cast(d, _dt.float64))),
                          M.cast(0.0, _dt.float64)), dt)
  pos, splits = range_indices(A.zeros_like(lens), lens)
  ids = RaggedTensor.from_row_splits(pos, splits, validate=False).value_rowids()
  values = M.add(A.gather(s, ids), M.multiply(A.gather(d, ids), M.cast(pos, out_dt)))
  return RaggedTensor.from_row_splits(values, splits, validate=False)


# ---------------------------------------------------------- boolean_mask
def boolean_mask(data, mask, name=None):
  """Keeps the elements of `data` where `mask` is True, keeping the row structure."""
  if isinstance(mask, RaggedTensor):
    if not isinstance(data, RaggedTensor):
      data = RaggedTensor.from_tensor(data, ragged_rank=mask.ragged_rank)
    _same_splits(data, mask)
    if mask.ragged_rank > 1:
      return data.with_values(boolean_mask(data.values, mask.values))
    keep = mask.values
    lens = M.unsorted_segment_sum(M.cast(keep, data.row_splits_dtype), data.value_rowids(),
                                  data.nrows())
    return RaggedTensor.from_row_lengths(A.boolean_mask(data.values, keep), lens,
                                         validate=False)
  m = convert_to_tensor(mask)
  if m.dtype is not _dt.bool:
    raise TypeError(f"mask must be a bool tensor, got {m.dtype.name}")
  if m.shape.rank == 1:
    if isinstance(data, RaggedTensor):
      return gather_rows(data, A.where(m)[:, 0])
    return A.boolean_mask._tl_undispatched(data, m)
  if isinstance(data, RaggedTensor):
    return boolean_mask(data, RaggedTensor.from_tensor(m, ragged_rank=data.ragged_rank))
  d = convert_to_tensor(data)
  lens = M.reduce_sum(M.cast(m, _dt.int64), axis=1)
  return RaggedTensor.from_row_lengths(A.boolean_mask._tl_undispatched(d, m), lens,
                                       validate=False)


# ------------------------------------------------------- concat and stack
def _as_ragged(x, ragged_rank=1):
  if isinstance(x, RaggedTensor):
    return x
  return RaggedTensor.from_tensor(convert_to_tensor(x), ragged_rank=ragged_rank)


def _concat0(rts):
  dt = rts[0].row_splits_dtype
  vals = [r.values for r in rts]
  values = _concat0(vals) if isinstance(vals[0], RaggedTensor) else A.concat(vals, 0)
  parts, offset = [A.zeros([1], dt)], A.zeros([], dt)
  for r in rts:
    parts.append(M.add(r.row_splits[1:], offset))
    offset = M.add(offset, r.row_splits[-1])
  return RaggedTensor.from_row_splits(values, A.concat(parts, 0), validate=False)


def _concat1(rts):
  """Row-wise concatenation of ragged tensors with the same number of rows."""
  dt = rts[0].row_splits_dtype
  lens = [r.row_lengths() for r in rts]
  total = lens[0]
  for x in lens[1:]:
    total = M.add(total, x)
  out_splits = A.concat([A.zeros([1], dt), M.cumsum(total)], 0)
  targets, before = [], A.zeros_like(total)
  for r, ln in zip(rts, lens):
    ids = r.value_rowids()
    col = M.subtract(A.range(r.row_splits[-1], dtype=dt), A.gather(r.row_splits, ids))
    targets.append(M.add(A.gather(M.add(out_splits[:-1], before), ids), col))
    before = M.add(before, ln)
  order = A.argsort(A.concat(targets, 0), stable=True)
  vals = [r.values for r in rts]
  values = gather_rows(_concat0(vals), order) if isinstance(vals[0], RaggedTensor) else \
      A.gather(A.concat(vals, 0), order)
  return RaggedTensor.from_row_splits(values, out_splits, validate=False)


def _ragged_concat(values, axis, name=None):
  rr = max(v.ragged_rank for v in values if isinstance(v, RaggedTensor))
  rts = [_as_ragged(v, rr) for v in values]
  rank = rts[0].shape.rank
  axis = as_int(axis, "tf.concat", "axis")
  axis = axis + rank if axis < 0 else axis
  if axis == 0:
    return _concat0(rts)
  if axis == 1:
    return _concat1(rts)
  return _rowwise(rts, lambda vals: A.concat(vals, axis - 1) if not isinstance(
      vals[0], RaggedTensor) else _ragged_concat(vals, axis - 1), "concat")


def _rowwise(rts, op, what):
  """`op` applied to the values of ragged tensors that share their outer row splits
  (an axis below the first two: each row is combined with the same row of the others)."""
  first = rts[0].row_splits
  fv = constant_value(first)
  for r in rts[1:]:
    v = constant_value(r.row_splits)
    if fv is not None and v is not None and not np.array_equal(fv, v):
      raise InvalidArgumentError(None, None, f"Input tensors at index 0 (=x) and {rts.index(r)} "
                                 f"(=y) have incompatible shapes: tf.{what} of RaggedTensors "
                                 f"along an inner axis needs the same row lengths")
  return rts[0].with_values(op([r.values for r in rts]))


def stack(values, axis=0, name=None):
  """Stacks tensors or ragged tensors (which may differ in their ragged dims)."""
  # NOTE: as TF, a single value is a list of one
  values = list(values) if isinstance(values, (list, tuple)) else [values]
  if not values:
    raise ValueError("tf.ragged.stack expects at least one value")
  if not any(isinstance(v, RaggedTensor) for v in values):
    ts = [convert_to_tensor(v) for v in values]
    if axis == 0:
      lens = A.stack([A.shape(t, out_type=_dt.int64)[0] for t in ts])
      return RaggedTensor.from_row_lengths(A.concat(ts, 0), lens, validate=False)
    values = ts
  rr = max([v.ragged_rank for v in values if isinstance(v, RaggedTensor)] or [1])
  rts = [_as_ragged(v, rr) for v in values]
  rank = rts[0].shape.rank
  axis = as_int(axis, "tf.ragged.stack", "axis")
  axis = axis + rank + 1 if axis < 0 else axis
  k = len(rts)
  rows = _concat0(rts)
  if axis == 0:
    lens = A.stack([M.cast(r.nrows(), _dt.int64) for r in rts])
    return RaggedTensor.from_row_lengths(rows, lens, validate=False)
  if axis == 1:
    n = rts[0].nrows()
    perm = A.reshape(A.transpose(A.reshape(A.range(M.multiply(n, k), dtype=n.dtype),
                                           A.stack([k, n]))), [-1])
    out = RaggedTensor.from_uniform_row_length(gather_rows(rows, perm), k, M.cast(
        n, _dt.int64))
    out._uniform = None  # TF's stack along axis 1 leaves the new dim ragged
    return out
  return _rowwise(rts, lambda vals: A.stack(vals, axis - 1) if not isinstance(
      vals[0], RaggedTensor) else stack(vals, axis - 1), "stack")


def _ragged_stack(values, axis=0, name=None):
  return stack(values, axis)


# ------------------------------------------------------------ gather/where
def _ragged_gather(params, indices, validate_indices=None, axis=None, batch_dims=0,
                   name=None):
  if axis not in (None, 0) or batch_dims:
    raise NotImplementedError("tf.gather on RaggedTensors supports axis=0, batch_dims=0")
  if isinstance(indices, RaggedTensor):
    return indices.with_flat_values(gather(params, indices.flat_values))
  idx = convert_to_tensor(indices)
  if not isinstance(params, RaggedTensor):
    return A.gather._tl_undispatched(params, idx)
  if idx.shape.rank == 0:
    return params[idx]
  rows = gather_rows(params, A.reshape(idx, [-1]))
  for w in reversed(idx.shape.as_list()[1:]):
    rows = RaggedTensor.from_uniform_row_length(rows, w)
    rows._uniform = None  # as TF's gather: the indices' inner dims come back ragged
  return rows


def _ragged_gather_nd(params, indices, batch_dims=0, name=None):
  """params[index] for each index (a row of the last axis of `indices`): leading
  coordinates step through the row partitions, the rest index the dense values."""
  if batch_dims:
    raise NotImplementedError("tf.gather_nd on RaggedTensors supports batch_dims=0")
  if isinstance(indices, RaggedTensor):
    return indices.with_flat_values(_ragged_gather_nd(params, indices.flat_values))
  idx = convert_to_tensor(indices)
  k = idx.shape[-1]
  if idx.shape.rank is None or k is None:
    raise ValueError("tf.gather_nd on a RaggedTensor needs indices of known shape")
  if not isinstance(params, RaggedTensor):
    return A.gather_nd._tl_undispatched(params, idx)
  batch = idx.shape[:-1]
  flat = A.reshape(idx, [-1, k])
  if k == 0:
    raise NotImplementedError("tf.gather_nd on a RaggedTensor with empty index tuples")
  # a row of `level` at each step: its start in the level's values, plus the coordinate
  level, pos, used = params, M.cast(flat[:, 0], params.row_splits_dtype), 1
  while used < k and isinstance(level, RaggedTensor):
    pos = M.add(A.gather(level.row_splits, pos), M.cast(flat[:, used], pos.dtype))
    level, used = level.values, used + 1
  if isinstance(level, RaggedTensor):
    rows = gather_rows(level, pos)
  elif used == k:
    rows = A.gather(level, pos)
  else:
    rest = M.cast(flat[:, used:], pos.dtype)
    rows = A.gather_nd._tl_undispatched(level, A.concat([A.expand_dims(pos, 1), rest], 1))
  for w in reversed(batch.as_list()[1:]):
    rows = RaggedTensor.from_uniform_row_length(rows, w) if isinstance(rows, RaggedTensor) \
        else rows
  if not isinstance(rows, RaggedTensor) and batch.rank != 1:
    rows = A.reshape(rows, A.concat([A.shape(idx)[:-1], A.shape(rows)[1:]], 0))
  return rows


def gather(params, indices):
  return A.gather(params, indices)


def _ragged_where(condition, x=None, y=None, name=None):
  if x is None and y is None:
    from tensorlet.ragged.ragged_array_ops import where_true
    return where_true(condition)
  return elementwise(A.where._tl_undispatched, (condition, x, y), {})


def map_flat_values(op, *args, **kwargs):
  """Applies `op` to the flat values of the ragged arguments (sharing row splits)."""
  if not callable(op):
    raise TypeError(f"tf.ragged.map_flat_values: `op` must be callable, got {op!r:.80}")
  rts = [a for a in list(args) + list(kwargs.values()) if isinstance(a, RaggedTensor)]
  if not rts:
    return op(*args, **kwargs)
  for r in rts[1:]:
    _same_splits(rts[0], r)

  def flat(a):
    return a.flat_values if isinstance(a, RaggedTensor) else a
  return rts[0].with_flat_values(op(*[flat(a) for a in args],
                                    **{k: flat(v) for k, v in kwargs.items()}))


def row_splits_to_segment_ids(splits, name=None, out_type=None):
  s = convert_to_tensor(splits, dtype_hint=_dt.int64)
  rt = RaggedTensor.from_row_splits(A.zeros(A.reshape(s[-1], [1]), _dt.int32), s)
  ids = rt.value_rowids()
  return ids if out_type is None else M.cast(ids, out_type)


def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
  ids = convert_to_tensor(segment_ids, dtype_hint=_dt.int64)
  rt = RaggedTensor.from_value_rowids(A.zeros_like(ids), ids, num_segments)
  s = rt.row_splits
  return s if out_type is None else M.cast(s, out_type)


dispatch.dispatch_for(A.concat)(RaggedTensor)(_ragged_concat)
dispatch.dispatch_for(A.stack)(RaggedTensor)(_ragged_stack)
dispatch.dispatch_for(A.gather)(RaggedTensor)(_ragged_gather)
dispatch.dispatch_for(A.gather_nd)(RaggedTensor)(_ragged_gather_nd)
dispatch.dispatch_for(A.where)(RaggedTensor)(_ragged_where)
dispatch.dispatch_for(A.boolean_mask)(RaggedTensor)(
    lambda tensor, mask, axis=None, name=None: boolean_mask(tensor, mask))
