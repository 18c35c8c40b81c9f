"""tf.shape, tf.size, tf.rank, tf.expand_dims and one-argument tf.where of a
RaggedTensor (registered for the dense public functions)."""
from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import array_ops as A
from tensorlet.ops import dispatch
from tensorlet.ops import math_ops as M
from tensorlet.ops._common import as_int
from tensorlet.ops.registry import constant_value
from tensorlet.ragged.dynamic_ragged_shape import DynamicRaggedShape
from tensorlet.ragged.ragged_tensor import RaggedTensor
from tensorlet.tensor import convert_to_tensor

__all__ = ["shape", "size", "rank", "expand_dims", "where_true", "reverse", "squeeze", "tile"]


def shape(input, out_type=_dt.int32, name=None):  # noqa: A002
  return DynamicRaggedShape.from_tensor(input, out_type)


def size(input, out_type=_dt.int32, name=None):  # noqa: A002
  return A.size(input.flat_values, out_type=out_type)


def rank(input, name=None):  # noqa: A002
  r = input.shape.rank
  if r is not None:
    return convert_to_tensor(r, _dt.int32)
  return M.add(A.rank(input.flat_values), input.ragged_rank)


def expand_dims(input, axis, name=None):  # noqa: A002
  """A dimension of size 1 inserted at `axis` (uniform; the ragged ones keep theirs)."""
  rt = input
  r = rt.shape.rank
  a = as_int(constant_value(convert_to_tensor(axis)), "ExpandDims", "axis")
  if r is not None:
    if not -r - 1 <= a <= r:
      raise ValueError(f"axis={a} out of bounds: expected {-r - 1}<=axis<{r + 1}")
    if a < 0:
      a += r + 1
  return _expand(rt, a)


def _uniform(values, width, nrows):
  """`values` split into `nrows` rows of `width`, with `values`' row-splits dtype."""
  dt = values.row_splits_dtype
  splits = M.multiply(A.range(M.add(nrows, M.cast(1, dt)), dtype=dt), width)
  out = RaggedTensor.from_row_splits(values, splits, validate=False)
  w = constant_value(width)
  out._uniform = None if w is None else int(w)
  return out


def _expand(rt, a):
  dt = rt.row_splits_dtype
  if a == 0:
    return _uniform(rt, rt.nrows(), M.cast(1, dt))
  if a == 1:
    return _uniform(rt, M.cast(1, dt), rt.nrows())
  v = rt.values
  if isinstance(v, RaggedTensor):
    return rt.with_values(_expand(v, a - 1))
  return rt.with_values(A.expand_dims(v, a - 1))


def reverse(tensor, axis, name=None):
  """`tensor` reversed along each of `axis` (the rows' order, each row's elements, or a
  uniform inner dimension)."""
  rt = tensor
  r = rt.shape.rank
  axes = [int(a) for a in (axis if isinstance(axis, (list, tuple)) else
                           constant_value(convert_to_tensor(axis)).reshape(-1))]
  for a in axes:
    if not -r <= a < r:
      raise ValueError(f"axis={a} out of bounds for a RaggedTensor of rank {r}")
    rt = _reverse(rt, a % r)
  return rt


def _reverse(rt, a):
  from tensorlet.ragged.ragged_getitem import gather_rows
  if a == 0:
    n = rt.nrows()
    return gather_rows(rt, M.subtract(M.subtract(n, M.cast(1, n.dtype)),
                                      A.range(n, dtype=n.dtype)), keep_uniform=True)
  if a > rt.ragged_rank:  # a uniform dim of the flat values
    return rt.with_flat_values(A.reverse(rt.flat_values, [a - rt.ragged_rank]))
  if a > 1:
    return rt.with_values(_reverse(rt.values, a - 1))
  # each row's elements: value j of row i goes to start_i + (end_i - 1 - j)
  dt = rt.row_splits_dtype
  ids = rt.value_rowids()
  pos = A.range(rt.row_splits[-1], dtype=dt)
  src = M.subtract(M.add(A.gather(rt.row_splits, ids), A.gather(rt.row_splits[1:], ids)),
                   M.add(pos, M.cast(1, dt)))
  v = rt.values
  v = gather_rows(v, src, True) if isinstance(v, RaggedTensor) else A.gather(v, src)
  out = RaggedTensor.from_row_splits(v, rt.row_splits, validate=False)
  out._uniform = rt._uniform
  return out


def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002
  """Removes size-1 dims in `axis` (required, as TF's): dense inner dims, or ragged
  dims whose rows are known to hold one element each."""
  rt = input
  axis = squeeze_dims if axis is None else axis
  if axis is None:
    raise ValueError("Ragged.squeeze must have an axis argument.")
  r = rt.shape.rank
  axes = sorted({int(a) % r for a in (axis if isinstance(axis, (list, tuple)) else [axis])},
                reverse=True)
  for a in axes:
    rt = _squeeze(rt, a)
  return rt


def _squeeze(rt, a):
  if not isinstance(rt, RaggedTensor):
    return A.squeeze(rt, [a])
  if a == 0:
    if rt.shape[0] == 1:
      return rt.values
  elif a > rt.ragged_rank:
    return rt.with_flat_values(A.squeeze(rt.flat_values, [a - rt.ragged_rank]))
  elif a == 1 and _one_per_row(rt):  # one item per row: the items are the rows
    return rt.values
  elif a > 1:
    return rt.with_values(_squeeze(rt.values, a - 1))
  raise InvalidArgumentError(None, None, f"the given axis (axis = {a}) is not squeezable!")


def _one_per_row(rt):
  if rt._uniform is not None:
    return rt._uniform == 1
  lens = constant_value(rt.row_lengths())
  return lens is None or bool((lens == 1).all())  # unknown while traced: taken as given


def tile(input, multiples, name=None):  # noqa: A002
  """Repeats the rows `multiples[0]` times, each row's items `multiples[1]` times, and
  so on down to the dense inner dims."""
  rt = input
  m = constant_value(convert_to_tensor(multiples))
  if m is None:
    raise ValueError("tf.tile of a RaggedTensor needs multiples known when it is traced")
  m = [int(v) for v in m.reshape(-1)]
  if len(m) != rt.shape.rank:
    raise InvalidArgumentError(None, None, f"Expected multiples argument to be a vector of "
                               f"length {rt.shape.rank} but got length {len(m)}")
  from tensorlet.ragged.ragged_getitem import gather_rows
  out = _tile_items(rt, m[1:])
  if m[0] != 1:
    n = out.nrows()
    out = gather_rows(out, A.tile(A.range(n, dtype=n.dtype), [m[0]]))
  return out


def _tile_items(rt, ms):
  """Each row of `rt` holding its items `ms[0]` times (items tiled by `ms[1:]` first)."""
  from tensorlet.ragged.ragged_getitem import gather_rows, range_indices
  v = rt.values
  v = _tile_items(v, ms[1:]) if isinstance(v, RaggedTensor) else (
      A.tile(v, [1] + ms[1:]) if any(k != 1 for k in ms[1:]) else v)
  if ms[0] == 1:
    return rt.with_values(v)
  lens = rt.row_lengths()
  reps = M.multiply(lens, M.cast(ms[0], lens.dtype))
  pos, splits = range_indices(A.zeros_like(lens), reps)
  rows = RaggedTensor.from_row_splits(pos, splits, validate=False).value_rowids()
  src = M.add(A.gather(rt.row_splits, rows),
              M.floormod(pos, M.maximum(A.gather(lens, rows), M.cast(1, lens.dtype))))
  v = gather_rows(v, src) if isinstance(v, RaggedTensor) else A.gather(v, src)
  return RaggedTensor.from_row_splits(v, splits, validate=False)


def where_true(condition):
  """The coordinates [row, col, ...] (int64) of the true (nonzero) elements of ragged
  `condition`, in row-major order, as tf.where(condition)."""
  flat = condition.flat_values
  coords = A.where(flat)   # [position in the flat values, inner coordinates...]
  pos = coords[:, 0]
  cols = []
  levels = []
  rt = condition
  while isinstance(rt, RaggedTensor):
    levels.append(rt)
    rt = rt.values
  # from the innermost partition out: a position's row, and its column within that row
  for level in reversed(levels):
    splits = M.cast(level.row_splits, _dt.int64)
    row = A.searchsorted(splits[1:], pos, side="right", out_type=_dt.int64)
    cols.insert(0, M.subtract(pos, A.gather(splits, row)))
    pos = row
  parts = [A.expand_dims(pos, 1)] + [A.expand_dims(c, 1) for c in cols] + [coords[:, 1:]]
  return A.concat(parts, 1)


dispatch.dispatch_for(A.shape)(RaggedTensor)(shape)
dispatch.dispatch_for(A.size)(RaggedTensor)(size)
dispatch.dispatch_for(A.rank)(RaggedTensor)(rank)
dispatch.dispatch_for(A.expand_dims)(RaggedTensor)(expand_dims)
dispatch.dispatch_for(A.reverse)(RaggedTensor)(reverse)
dispatch.dispatch_for(A.squeeze)(RaggedTensor)(squeeze)
dispatch.dispatch_for(A.tile)(RaggedTensor)(tile)
