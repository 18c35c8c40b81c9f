"""RaggedTensor indexing: rt[i], rt[i:j], rt[:, a:b], rt[i, j] and inner
uniform dimensions, as TF allows (an int index into a ragged dimension below
the first is refused, as in TF)."""
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import array_ops as A
from tensorlet.ops import math_ops as M
from tensorlet.ops.registry import constant_value
from tensorlet.ragged.ragged_tensor import RaggedTensor
from tensorlet.tensor import Tensor

__all__ = ["getitem", "gather_rows", "range_indices"]


def range_indices(starts, lengths):
  """For rows [starts[i], starts[i] + lengths[i]): the flat positions of all rows'
  elements, and the row splits of the result."""
  dt = lengths.dtype
  splits = A.concat([A.zeros([1], dt), M.cumsum(lengths)], 0)
  total = splits[-1]
  ids = A.searchsorted(splits[1:], A.range(total, dtype=dt), side="right", out_type=dt)
  offs = M.subtract(A.range(total, dtype=dt), A.gather(splits, ids))
  return M.add(A.gather(M.cast(starts, dt), ids), offs), splits


def gather_rows(rt, indices, keep_uniform=False):
  """The rows `indices` (a 1-D integer tensor) of `rt`, as a RaggedTensor. With
  keep_uniform (slices and reversals, as TF; not tf.gather) a uniform row length of
  `rt` and of its ragged values is kept."""
  dt = rt.row_splits_dtype
  idx = M.cast(indices, dt)
  starts = A.gather(rt.row_splits[:-1], idx)
  lens = A.gather(rt.row_lengths(), idx)
  pos, splits = range_indices(starts, lens)
  v = rt.values
  v = gather_rows(v, pos, keep_uniform) if isinstance(v, RaggedTensor) else A.gather(v, pos)
  out = RaggedTensor.from_row_splits(v, splits, validate=False)
  if keep_uniform:
    out._uniform = rt._uniform
  return out


def _index(i, n, what):
  """Python int `i` (negative from the end) checked against `n` rows when known."""
  nv = constant_value(n)
  if nv is not None:
    nv = int(nv)
    if i >= nv:
      raise IndexError(f"Row key {i} out of bounds")
    if i < -nv:
      raise InvalidArgumentError(None, None, f"slice index {i} of dimension 0 out of bounds "
                                 f"({what} has {nv} rows)")
    return i % nv if i < 0 else i
  return M.add(n, i) if i < 0 else i


def _slice_bounds(sl, n, dt):
  """Clamped (start, stop) tensors of python slice `sl` over length(s) `n`."""
  if sl.step not in (None, 1):
    raise ValueError("RaggedTensor slicing only supports a step of 1")

  def bound(b, default):
    if b is None:
      return default
    b = M.cast(b, dt) if isinstance(b, Tensor) else M.cast(int(b), dt)
    b = A.where(M.less(b, M.cast(0, dt)), M.add(n, b), b)
    return M.minimum(M.maximum(b, A.zeros_like(n)), n)
  start = bound(sl.start, A.zeros_like(n))
  stop = bound(sl.stop, n)
  return start, M.maximum(stop, start)


def _sliced_width(width, sl):
  """The row length after slicing rows of uniform length `width` by `sl`, when static."""
  if width is None or any(isinstance(b, Tensor) for b in (sl.start, sl.stop)):
    return None
  return len(range(width)[slice(sl.start, sl.stop)])


def _outer(rt, key):
  dt = rt.row_splits_dtype
  if isinstance(key, slice):
    n = rt.nrows()
    start, stop = _slice_bounds(key, n, dt)
    return gather_rows(rt, A.range(start, stop, dtype=dt), keep_uniform=True)
  if isinstance(key, (int, Tensor)) and not isinstance(key, bool):
    i = _index(int(key), rt.nrows(), "the RaggedTensor") if isinstance(key, int) else key
    i = M.cast(i, dt)
    lo, hi = A.gather(rt.row_splits, i), A.gather(rt.row_splits, M.add(i, M.cast(1, dt)))
    v = rt.values
    if isinstance(v, RaggedTensor):
      return gather_rows(v, A.range(lo, hi, dtype=dt), keep_uniform=True)
    return A.gather(v, A.range(lo, hi, dtype=dt))
  raise TypeError(f"RaggedTensor indices must be ints, slices or tuples of them, got "
                  f"{key!r}")


def _inner(rt, keys):
  """keys applied below the first dimension of every row of `rt`."""
  if not keys:
    return rt
  k, rest = keys[0], keys[1:]
  if isinstance(k, slice):
    v = rt.values
    if k != slice(None):
      lens = rt.row_lengths()
      start, stop = _slice_bounds(k, lens, lens.dtype)
      pos, splits = range_indices(M.add(rt.row_splits[:-1], start), M.subtract(stop, start))
      v = gather_rows(v, pos, True) if isinstance(v, RaggedTensor) else A.gather(v, pos)
      width = _sliced_width(rt._uniform, k)
      rt = RaggedTensor.from_row_splits(v, splits, validate=False)
      rt._uniform = width
      v = rt.values
    if rest:
      inner = _inner(v, rest) if isinstance(v, RaggedTensor) else \
          v[(slice(None),) + tuple(rest)]
      return rt.with_values(inner)
    return rt
  if k is Ellipsis:
    raise ValueError("Ellipsis in RaggedTensor indices is not supported")
  raise ValueError("Cannot index into an inner ragged dimension.")


def getitem(rt, key):
  if not isinstance(key, tuple):
    key = (key,)
  if not key:
    return rt
  first, rest = key[0], key[1:]
  if isinstance(first, slice) and first == slice(None):
    return _inner(rt, list(rest))
  out = _outer(rt, first)
  if not rest:
    return out
  if isinstance(first, slice):
    return _inner(out, list(rest))
  if isinstance(out, RaggedTensor):
    return getitem(out, rest)
  return out[tuple(rest)]
