"""tf.sparse.split, softmax, eye, map_values and reset_shape."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import array_ops as A
from tensorlet.ops import math_ops as M
from tensorlet.ops.registry import constant_value
from tensorlet.sparse.sparse_ops import _linear, _rank, _sp, slice as sparse_slice
from tensorlet.sparse.sparse_tensor import SparseTensor
from tensorlet.tensor import convert_to_tensor

__all__ = ["split", "softmax", "eye", "map_values", "reset_shape"]

_i64 = _dt.int64


def split(sp_input=None, num_split=None, axis=None, name=None):
  """`num_split` SparseTensors along `axis`; the first (size % num_split) pieces are one
  longer, as TF's."""
  sp = _sp(sp_input, "split")
  r = _rank(sp)
  if not isinstance(num_split, int) or isinstance(num_split, bool) or num_split < 1:
    raise ValueError(f"num_split must be a positive int, got {num_split!r}")
  axis = int(constant_value(convert_to_tensor(axis)))
  if not -r <= axis < r:
    raise InvalidArgumentError(None, None, f"Split dim {axis} is out of range [{-r}, {r}) "
                               f"[Op:SparseSplit]")
  axis %= r
  dim = M.cast(sp.dense_shape[axis], _i64)
  base, extra = M.floordiv(dim, num_split), M.floormod(dim, num_split)
  out, start = [], A.zeros([], _i64)
  for i in range(num_split):
    size = M.add(base, M.cast(M.less(M.cast(i, _i64), extra), _i64))
    onehot = A.one_hot(axis, r, dtype=_i64)
    starts = M.multiply(onehot, start)
    sizes = A.where(M.equal(onehot, 1), A.fill([r], size), sp.dense_shape)
    out.append(sparse_slice(sp, starts, sizes))
    start = M.add(start, size)
  return out


def softmax(sp_input, name=None):
  """Softmax over the last dimension, of the entries present only (a row's missing
  entries stay missing)."""
  sp = _sp(sp_input, "softmax")
  r = _rank(sp)
  if r < 2:
    raise InvalidArgumentError(None, None, "Input should have rank >= 2, but received "
                               f"shape: {sp.shape} [Op:SparseSoftmax]")
  rows = _linear(sp.indices[:, :-1], sp.dense_shape[:-1])
  n = M.reduce_prod(sp.dense_shape[:-1])
  peak = A.gather(M.unsorted_segment_max(sp.values, rows, n), rows)
  e = M.exp(M.subtract(sp.values, peak))
  total = A.gather(M.unsorted_segment_sum(e, rows, n), rows)
  return sp.with_values(M.truediv(e, total))


def eye(num_rows, num_columns=None, dtype=_dt.float32, name=None):
  """A [num_rows, num_columns] SparseTensor with ones on the diagonal."""
  rows = M.cast(convert_to_tensor(num_rows), _i64)
  cols = rows if num_columns is None else M.cast(convert_to_tensor(num_columns), _i64)
  diag = A.range(M.minimum(rows, cols), dtype=_i64)
  return SparseTensor(A.stack([diag, diag], 1), A.ones(A.shape(diag), dtype),
                      A.stack([rows, cols]))


def map_values(op, *args, **kwargs):
  """`op` applied to the values of the SparseTensor arguments (which must share their
  indices and dense shape); other arguments pass through."""
  sps = [a for a in list(args) + list(kwargs.values()) if isinstance(a, SparseTensor)]
  if not sps:
    raise ValueError("No SparseTensor in argument list of map_values")
  first = sps[0]
  for s in sps[1:]:
    for x, y, what in ((first.indices, s.indices, "indices"),
                       (first.dense_shape, s.dense_shape, "dense_shape")):
      a, b = constant_value(x), constant_value(y)
      if a is not None and b is not None and (a.shape != b.shape or np.any(a != b)):
        raise InvalidArgumentError(None, None, f"map_values: the SparseTensors differ in "
                                   f"their {what}")

  def values(a):
    return a.values if isinstance(a, SparseTensor) else a
  out = op(*[values(a) for a in args], **{k: values(v) for k, v in kwargs.items()})
  return SparseTensor(first.indices, out, first.dense_shape)


def reset_shape(sp_input, new_shape=None):
  """The same entries with dense shape `new_shape` (no smaller than the current one), or
  the tightest shape that holds them."""
  sp = _sp(sp_input, "reset_shape")
  if new_shape is None:
    return SparseTensor(sp.indices, sp.values, M.add(M.reduce_max(sp.indices, axis=0),
                                                     M.cast(1, _i64)))
  new = M.cast(convert_to_tensor(new_shape), _i64)
  a, b = constant_value(new), constant_value(sp.dense_shape)
  if a is not None and b is not None:
    if a.shape != b.shape:
      raise ValueError(f"Shapes must be equal rank, but are {b.size} and {a.size}")
    if np.any(a < b):
      raise ValueError(f"Requested new_shape should have dimension sizes >= sp_input.shape. "
                       f" Found new_shape ({a}), sp_input.shape ({b}).")
  return SparseTensor(sp.indices, sp.values, new)
