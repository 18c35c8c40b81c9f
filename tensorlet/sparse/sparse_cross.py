"""tf.sparse.cross / cross_hashed: the crosses of the values of each row of sparse and
dense inputs (the SparseCrossRows op in ops/sparse_cross_ops.py)."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import array_ops, math_ops
from tensorlet.ops._common import as_int
from tensorlet.ops.registry import execute
from tensorlet.ops.sparse_cross_ops import DEFAULT_CROSS_KEY, SparseCrossRows
from tensorlet.sparse.sparse_tensor import SparseTensor
from tensorlet.tensor import convert_to_tensor


def _columns(inputs, fn):
  if not isinstance(inputs, (list, tuple)):
    raise TypeError(f"tf.sparse.{fn}: inputs must be a list of SparseTensors or 2-D Tensors")
  parts, nrows = [], convert_to_tensor(np.int64(0)) if not inputs else None
  # As TF's SparseCrossV2 op: the sparse inputs come first, then the dense ones.
  ordered = [x for x in inputs if isinstance(x, SparseTensor)] + \
      [x for x in inputs if not isinstance(x, SparseTensor)]
  dense_pos = -1
  for x in ordered:
    if isinstance(x, SparseTensor):
      ids, values, rows = x.indices[:, 0], x.values, x.dense_shape[0]
    else:
      dense_pos += 1
      x = convert_to_tensor(x)
      if x.shape.rank is not None and x.shape.rank != 2:
        raise InvalidArgumentError(None, None, f"Dense inputs should be a matrix but received "
                                   f"shape {x.shape.as_list()} at position "
                                   f"{dense_pos} "
                                   f"[Op:SparseCrossV2]")
      shape = array_ops.shape(x, out_type=_dt.int64)
      rows = shape[0]
      ids = array_ops.reshape(array_ops.broadcast_to(
          array_ops.expand_dims(array_ops.range(rows), 1), shape), [-1])
      values = array_ops.reshape(x, [-1])
    if values.dtype is not _dt.string:
      values = math_ops.cast(values, _dt.int64)  # as TF: numbers cross as int64
    parts += [math_ops.cast(ids, _dt.int64), values]
    nrows = rows if nrows is None else nrows
  return math_ops.cast(nrows, _dt.int64), parts


def _sparse(outs):
  return SparseTensor(outs[0], outs[1], outs[2])


def cross(inputs, name=None, separator=None):
  """The string crosses of each row of the inputs, values joined by `separator`
  (default "_X_"), as a SparseTensor."""
  nrows, parts = _columns(inputs, "cross")
  return _sparse(execute(SparseCrossRows, [nrows] + parts, {
      "hashed": False, "num_buckets": 0, "hash_key": 0,
      "separator": "_X_" if separator is None else str(separator)}))


def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
  """The hashed crosses of each row of the inputs (in [0, num_buckets) when
  num_buckets > 0), as a SparseTensor of int64."""
  nrows, parts = _columns(inputs, "cross_hashed")
  key = DEFAULT_CROSS_KEY if hash_key is None else as_int(hash_key, "SparseCrossHashed",
                                                          "hash_key", wide=True)
  return _sparse(execute(SparseCrossRows, [nrows] + parts, {
      "hashed": True, "num_buckets": as_int(num_buckets, "SparseCrossHashed", "num_buckets"),
      "hash_key": key % 2 ** 64, "separator": ""}))
