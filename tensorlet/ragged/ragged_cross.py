"""tf.ragged.cross / cross_hashed: per row, every combination of one value from each
input (ragged, sparse or dense, kept in the order given; the last varying fastest), as
a RaggedTensor. Built on the SparseCrossRows op of tf.sparse.cross."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import array_ops as A
from tensorlet.ops import math_ops as M
from tensorlet.ops._common import as_int
from tensorlet.ops.registry import constant_value, execute
from tensorlet.ops.sparse_cross_ops import DEFAULT_CROSS_KEY, SparseCrossRows
from tensorlet.ragged.ragged_tensor import RaggedTensor
from tensorlet.tensor import convert_to_tensor

__all__ = ["cross", "cross_hashed"]


def _rank_error():
  return InvalidArgumentError(None, None, "tf.ragged.cross only supports inputs with "
                              "rank=2. [Op:RaggedCross]")


def _column(x, i):
  """(row ids, values, nrows, row_splits dtype or None) of one input."""
  from tensorlet.sparse import SparseTensor
  if isinstance(x, RaggedTensor):
    if x.ragged_rank != 1 or x.flat_values.shape.rank != 1:
      raise ValueError("tf.ragged.cross only supports inputs with rank=2")
    ids, values, rows, splits = x.value_rowids(), x.values, x.nrows(), x.row_splits_dtype
  elif isinstance(x, SparseTensor):
    if x.shape.rank is not None and x.shape.rank != 2:
      raise _rank_error()
    ids, values, rows, splits = x.indices[:, 0], x.values, x.dense_shape[0], None
  else:
    x = convert_to_tensor(x)
    if x.shape.rank is not None and x.shape.rank != 2:
      raise _rank_error()
    shape = A.shape(x, out_type=_dt.int64)
    ids = A.reshape(A.broadcast_to(A.expand_dims(A.range(shape[0]), 1), shape), [-1])
    values, rows, splits = A.reshape(x, [-1]), shape[0], None
  if values.dtype is not _dt.string and values.dtype not in (_dt.int32, _dt.int64):
    raise ValueError(f"Unexpected dtype for inputs[{i}]: {values.dtype}")
  if values.dtype is not _dt.string:
    values = M.cast(values, _dt.int64)  # as TF: integers cross as int64
  return M.cast(ids, _dt.int64), values, M.cast(rows, _dt.int64), splits


def _cross(inputs, attrs):
  if not isinstance(inputs, (list, tuple)):
    raise TypeError("Inputs must be a list")
  cols = [_column(x, i) for i, x in enumerate(inputs)]
  splits = {c[3] for c in cols if c[3] is not None}
  if len(splits) > 1:
    raise ValueError("tf.ragged.cross: the ragged inputs have mismatched row_splits dtypes; "
                     "use RaggedTensor.with_row_splits_dtype() to convert them to "
                     "compatible dtypes.")
  if cols:
    nrows = cols[0][2]
    known = [constant_value(c[2]) for c in cols]
    if all(k is not None for k in known) and len({int(k) for k in known}) > 1:
      raise InvalidArgumentError(None, None, "inputs must all have the same batch dimension "
                                 "size. [Op:RaggedCross]")
  else:
    nrows = convert_to_tensor(np.int64(0))
  parts = [t for c in cols for t in c[:2]]
  indices, values, _ = execute(SparseCrossRows, [nrows] + parts, attrs)
  out = RaggedTensor.from_value_rowids(values, indices[:, 0], nrows, validate=False)
  return out.with_row_splits_dtype(splits.pop()) if splits else out


def cross(inputs, name=None):
  """The string crosses of each row of `inputs` (RaggedTensors, SparseTensors or 2-D
  Tensors with the same number of rows), values joined by "_X_", as a RaggedTensor."""
  return _cross(inputs, {"hashed": False, "num_buckets": 0, "hash_key": 0,
                         "separator": "_X_"})


def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
  """The hashed crosses of each row of `inputs` (in [0, num_buckets) when num_buckets >
  0), as a RaggedTensor of int64."""
  buckets = as_int(num_buckets, "RaggedCross", "num_buckets")
  if buckets < 0:
    raise InvalidArgumentError(None, None, f"Value for attr 'num_buckets' of {buckets} must "
                               f"be at least minimum 0 [Op:RaggedCross]")
  key = DEFAULT_CROSS_KEY if hash_key is None else as_int(hash_key, "RaggedCross",
                                                          "hash_key", wide=True)
  return _cross(inputs, {"hashed": True, "num_buckets": buckets,
                         "hash_key": key % 2 ** 64, "separator": ""})
