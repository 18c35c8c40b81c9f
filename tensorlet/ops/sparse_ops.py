"""Sparse kernels: SparseToDense, SparseTensorDenseMatMul, SparseFillEmptyRows,
DenseBincount. A sparse tensor enters them as its components (indices [N, rank]
int64, values [N], dense_shape [rank] int64); the public functions are in
tensorlet/sparse/."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import array_ops as A
from tensorlet.ops import math_ops as M
from tensorlet.ops._common import ALL, NUMERIC, name_scoped
from tensorlet.ops.registry import constant_value, execute, op
from tensorlet.tensor_shape import TensorShape

__all__ = ["SparseToDense", "SparseTensorDenseMatMul", "SparseFillEmptyRows", "DenseBincount",
           "check_indices"]


def _idx_text(row):
  return "[" + ",".join(str(int(v)) for v in row) + "]"


def check_indices(indices, shape, op_name, order=True):
  """TF's validation: every index in bounds, and (order=True) strictly increasing in
  row-major order (no repeats)."""
  indices = np.asarray(indices)
  indices = indices.reshape(indices.shape[0] if indices.ndim else 0, len(shape))
  shape = np.asarray(shape, np.int64)
  bad = np.any((indices < 0) | (indices >= shape), axis=1)
  if bad.any():
    j = int(np.argmax(bad))
    raise InvalidArgumentError(None, None, f"indices[{j}] = {_idx_text(indices[j])} is out of "
                               f"bounds: need 0 <= index < {_idx_text(shape)} [Op:{op_name}]")
  if order and len(indices) > 1:
    lin = np.ravel_multi_index(tuple(indices.T), tuple(shape)) if shape.size else \
        np.zeros(len(indices), np.int64)
    d = np.diff(lin)
    if (d <= 0).any():
      j = int(np.argmax(d <= 0)) + 1
      what = "is repeated" if d[j - 1] == 0 else "is out of order. Many sparse ops require " \
          "sorted indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n"
      raise InvalidArgumentError(None, None, f"indices[{j}] = {_idx_text(indices[j])} {what} "
                                 f"[Op:{op_name}]")


def _const_shape(t):
  v = constant_value(t)
  return TensorShape(None if v is None else [int(x) for x in np.asarray(v).reshape(-1)]) \
      if v is not None else TensorShape([None] * t.shape[0] if t.shape.rank == 1 and
                                        t.shape[0] is not None else None)


@op("SparseToDense", type_inputs=(2, 3), dtypes=ALL,
    shape=lambda i, a: [(_const_shape(i[1]), i[2].dtype)])
def SparseToDense(indices, output_shape, values, default_value, *, validate_indices):
  shape = tuple(int(s) for s in np.asarray(output_shape).reshape(-1))
  idx = np.asarray(indices)
  idx = idx.reshape(idx.shape[0] if idx.ndim else 0, len(shape))
  if validate_indices:
    check_indices(idx, shape, "SparseToDense")
  else:
    check_indices(idx, shape, "SparseToDense", order=False)
  out = np.full(shape, default_value, dtype=np.asarray(values).dtype if np.ndim(values)
                else np.asarray(default_value).dtype)
  if not shape:  # a scalar: the last value given, if any
    if np.size(values):
      out[()] = np.asarray(values).reshape(-1)[-1]
    return out
  out[tuple(idx.T)] = values
  return out


@SparseToDense.def_grad
def _(op, dy):
  picked = A.gather_nd(dy, op.inputs[0])
  return [None, None, picked, M.subtract(M.reduce_sum(dy), M.reduce_sum(picked))]


def _matmul_shape(inputs, attrs):
  a_shape = _const_shape(inputs[2])
  b = inputs[3].shape
  rows = a_shape[0] if a_shape.rank else None
  cols = b[1] if b.rank == 2 else None
  return [(TensorShape([rows, cols]), inputs[1].dtype)]


@op("SparseTensorDenseMatMul", type_inputs=(1, 3), dtypes=NUMERIC, shape=_matmul_shape)
def SparseTensorDenseMatMul(a_indices, a_values, a_shape, b):
  m, k = (int(s) for s in np.asarray(a_shape).reshape(-1))
  if np.ndim(b) != 2 or np.shape(b)[0] != k:
    raise InvalidArgumentError(None, None, f"Cannot multiply A and B because inner dimension "
                               f"does not match: {k} vs. {np.shape(b)[0] if np.ndim(b) else 0}."
                               f"  Did you forget a transpose?  Dimensions of A: [{m}, {k}).  "
                               f"Dimensions of B: {list(np.shape(b))} "
                               f"[Op:SparseTensorDenseMatMul]")
  check_indices(a_indices, (m, k), "SparseTensorDenseMatMul", order=False)
  out = np.zeros((m, np.shape(b)[1]), dtype=np.result_type(a_values, b))
  rows, cols = np.asarray(a_indices).T
  np.add.at(out, rows, a_values[:, None] * b[cols])
  return out


@SparseTensorDenseMatMul.def_grad
def _(op, dy):
  idx, vals, shape, b = op.inputs
  rows, cols = idx[:, 0], idx[:, 1]
  d_vals = M.reduce_sum(M.multiply(A.gather(dy, rows), A.gather(b, cols)), axis=1)
  flipped = A.stack([cols, rows], 1)
  d_b = execute(SparseTensorDenseMatMul, [flipped, vals, A.reverse(shape, [0]), dy], {})
  return [None, d_vals, None, d_b]


def _fill_shape(inputs, attrs):
  r = inputs[0].shape[1] if inputs[0].shape.rank == 2 else None
  d = inputs[1].dtype
  return [(TensorShape([None, r]), _dt.int64), (TensorShape([None]), d),
          (TensorShape([None]), _dt.bool), (TensorShape([None]), _dt.int64)]


@op("SparseFillEmptyRows", type_inputs=(1, 3), dtypes=ALL, num_outputs=4, shape=_fill_shape)
def SparseFillEmptyRows(indices, values, dense_shape, default_value):
  """Adds (row, 0, ...) = default for each empty row; outputs indices, values,
  empty_row_indicator and reverse_index_map (input entry -> output entry)."""
  indices = np.asarray(indices, np.int64)
  shape = np.asarray(dense_shape, np.int64)
  n = int(shape[0]) if shape.size else 0
  check_indices(indices, shape, "SparseFillEmptyRows", order=False)
  present = np.zeros(n, bool)
  present[indices[:, 0]] = True
  empty = np.nonzero(~present)[0]
  add = np.zeros((empty.size, shape.size), np.int64)
  add[:, 0] = empty
  all_idx = np.concatenate([indices, add], 0)
  all_vals = np.concatenate([np.asarray(values), np.full(empty.size, default_value,
                                                         np.asarray(values).dtype)])
  order = np.lexsort(all_idx.T[::-1], axis=-1) if all_idx.size else np.arange(len(all_idx))
  inv = np.empty_like(order)
  inv[order] = np.arange(order.size)
  return (all_idx[order], all_vals[order], ~present, inv[:len(indices)].astype(np.int64))


@SparseFillEmptyRows.def_grad
def _(op, d_idx, d_vals, d_empty, d_map):
  rmap = op.outputs[3]
  picked = A.gather(d_vals, rmap)
  return [None, picked, None, M.subtract(M.reduce_sum(d_vals), M.reduce_sum(picked))]


def _bincount_shape(inputs, attrs):
  size = constant_value(inputs[1])
  n = None if size is None else int(size)
  x = inputs[0].shape
  d = inputs[2].dtype if inputs[2].shape.rank != 1 or inputs[2].shape[0] != 0 else \
      attrs["T"]
  if x.rank == 2:
    return [(TensorShape([x[0], n]), d)]
  return [(TensorShape([n]), d)]


@op("DenseBincount", type_inputs=(), dtypes=None, shape=_bincount_shape,
    differentiable=False)
def DenseBincount(input, size, weights, *, binary_output, T):  # noqa: A002
  """Counts of each value of `input` in [0, size) (per row for a matrix input); with
  non-empty `weights`, their sums."""
  x = np.asarray(input)
  n = int(size)
  if n < 0:
    raise InvalidArgumentError(None, None, f"size ({n}) must be non-negative "
                               f"[Op:DenseBincount]")
  if x.size and x.min() < 0:
    raise InvalidArgumentError(None, None, "Input arr must be non-negative! [Op:Bincount]")
  w = np.asarray(weights)
  has_w = w.size > 0
  out_dt = w.dtype if has_w else T.as_numpy_dtype

  def count(row, wrow):
    keep = row < n
    r = np.bincount(row[keep], None if wrow is None else wrow[keep], minlength=n)[:n]
    return (r > 0) if binary_output else r
  if x.ndim == 2:
    return np.stack([count(x[i], w[i] if has_w else None) for i in range(x.shape[0])]
                    ).astype(out_dt).reshape(x.shape[0], n)
  return count(x.reshape(-1), w.reshape(-1) if has_w else None).astype(out_dt)


@name_scoped
def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=_dt.int32, name=None,
             axis=None, binary_output=False):
  """Counts (or weight sums) of each integer value of `arr` (per row with axis=-1).

  Example:
    >>> tf.math.bincount([1, 1, 3], minlength=5).numpy()
    array([0, 2, 0, 1, 0], dtype=int32)
  """
  from tensorlet.tensor import convert_to_tensor
  x = convert_to_tensor(arr)
  if not x.dtype.is_integer:
    raise TypeError(f"bincount: arr must be integers, got {x.dtype.name}")
  if axis is None:
    x = A.reshape(x, [-1])
  elif axis not in (-1, x.shape.rank - 1) or x.shape.rank != 2:
    raise ValueError(f"bincount: axis must be None or -1 with a 2-D arr, got axis={axis} for "
                     f"shape {x.shape}")
  flat = M.cast(A.reshape(x, [-1]), _dt.int64)
  size = M.add(M.reduce_max(A.concat([A.constant([-1], _dt.int64), flat], 0)),
               A.constant(1, _dt.int64))
  if minlength is not None:
    size = M.maximum(size, M.cast(minlength, _dt.int64))
  if maxlength is not None:
    size = M.minimum(size, M.cast(maxlength, _dt.int64))
  if weights is None:
    w = A.zeros([0], _dt.as_dtype(dtype))
  else:
    w = convert_to_tensor(weights)
    if axis is None:
      w = A.reshape(w, [-1])
  return execute(DenseBincount, [x, size, w], {"binary_output": bool(binary_output),
                                               "T": _dt.as_dtype(dtype)})
