"""tf.RaggedTensor and tf.RaggedTensorSpec.

A RaggedTensor is `values` (a tensor, or a RaggedTensor for more ragged
dimensions) partitioned into rows by `row_splits` (row i is
values[row_splits[i]:row_splits[i+1]]). Everything is built from dense ops,
so ragged values work eagerly, in graphs and under GradientTape alike; the
checks of factory arguments run when the values are known (eagerly).
"""
import builtins

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.composite_tensor import CompositeTensor, TensorLikeSpec
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import array_ops as A
from tensorlet.ops import math_ops as M
from tensorlet.ops import dispatch
from tensorlet.ops.registry import constant_value
from tensorlet.tensor import Tensor, convert_to_tensor
from tensorlet.tensor_shape import TensorShape, as_shape
from tensorlet.tensor_spec import TensorSpec

__all__ = ["RaggedTensor", "RaggedTensorSpec", "convert_to_tensor_or_ragged"]


def _splits_dtype(dtype):
  d = _dt.as_dtype(dtype)
  if d not in (_dt.int32, _dt.int64):
    raise ValueError(f"row_splits_dtype must be int32 or int64, got {d!r}")
  return d


def _int_tensor(x, dtype, what):
  if isinstance(x, Tensor):
    if not x.dtype.is_integer:
      raise TypeError(f"{what} must be an integer tensor, got {x.dtype.name}")
    return M.cast(x, dtype) if x.dtype is not dtype else x
  t = convert_to_tensor(x, dtype_hint=dtype)
  if not t.dtype.is_integer:
    raise TypeError(f"{what} must be integers, got {t.dtype.name}")
  return M.cast(t, dtype) if t.dtype is not dtype else t


def _known(t):
  v = constant_value(t)
  return None if v is None else np.asarray(v)


def _nvals(values):
  """The number of rows of `values` (a tensor or a RaggedTensor), as a scalar tensor."""
  if isinstance(values, RaggedTensor):
    return values.nrows()
  return A.shape(values, out_type=_dt.int64)[0]


class RaggedTensor(CompositeTensor):
  """A tensor with rows of different lengths (use the `from_*` factories or
  `tf.ragged.constant`)."""

  # _keras_mask: the mask a Keras layer attaches to its output, as on tensors
  # _uniform: the rows' one length when known statically (from_uniform_row_length, ...)
  __slots__ = ("_values", "_row_splits", "_uniform", "_keras_mask", "__weakref__")
  _tf_tensor_like = True

  def __init__(self, values, row_splits, internal=False):
    if not internal:
      raise ValueError("RaggedTensor constructor is private; please use one of the factory "
                       "methods instead (e.g., RaggedTensor.from_row_lengths())")
    self._values = values
    self._row_splits = row_splits
    self._uniform = None

  # ------------------------------------------------------------ factories
  @classmethod
  def from_row_splits(cls, values, row_splits, name=None, validate=True):
    values = _as_values(values)
    splits = _int_tensor(row_splits, _splits_of(row_splits), "row_splits")
    if splits.shape.rank not in (None, 1):
      raise ValueError(f"row_splits must be a vector, got shape {splits.shape}")
    if splits.shape.rank == 1 and splits.shape[0] == 0:
      raise ValueError("row_splits must have at least one element (the leading 0)")
    if validate:
      s = _known(splits)
      n = _known(_nvals(values))
      if s is not None:
        if s.size == 0 or s[0] != 0:
          raise InvalidArgumentError(None, None, "Arguments to from_row_splits do not form a "
                                     "valid RaggedTensor: zero: first element of row_splits "
                                     "must be zero")
        if np.any(np.diff(s) < 0):
          raise InvalidArgumentError(None, None, "Arguments to from_row_splits do not form a "
                                     "valid RaggedTensor: monotonic: row_splits must be sorted "
                                     "in ascending order")
        if n is not None and s[-1] != n:
          raise InvalidArgumentError(None, None, f"Arguments to from_row_splits do not form a "
                                     f"valid RaggedTensor: nvals: last element of row_splits "
                                     f"({s[-1]}) must equal the number of values ({n})")
    return cls(values, splits, internal=True)

  @classmethod
  def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
    values = _as_values(values)
    lengths = _int_tensor(row_lengths, _splits_of(row_lengths), "row_lengths")
    if validate:
      v = _known(lengths)
      if v is not None and np.any(v < 0):
        raise InvalidArgumentError(None, None, "Arguments to from_row_lengths do not form a "
                                   "valid RaggedTensor: row_lengths must be non-negative")
    zero = A.zeros([1], lengths.dtype)
    return cls.from_row_splits(values, A.concat([zero, M.cumsum(lengths)], 0),
                               validate=validate)

  @classmethod
  def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
    values = _as_values(values)
    dt = _splits_of(value_rowids)
    ids = _int_tensor(value_rowids, dt, "value_rowids")
    v = _known(ids)
    if validate and v is not None and (np.any(v < 0) or np.any(np.diff(v) < 0)):
      raise InvalidArgumentError(None, None, "Arguments to from_value_rowids do not form a "
                                 "valid RaggedTensor: value_rowids must be sorted and "
                                 "non-negative")
    if nrows is None:
      nrows = M.add(M.reduce_max(A.concat([A.fill([1], M.cast(-1, dt)), ids], 0)),
                    M.cast(1, dt))
    nrows = _int_tensor(nrows, dt, "nrows")
    nr = _known(nrows)
    if validate and v is not None and nr is not None and v.size and v.max() >= nr:
      raise InvalidArgumentError(None, None, f"Arguments to from_value_rowids do not form a "
                                 f"valid RaggedTensor: value_rowids must be less than nrows "
                                 f"({int(nr)})")
    lengths = M.unsorted_segment_sum(A.ones_like(ids), ids, nrows)
    return cls.from_row_lengths(values, lengths, validate=False)

  @classmethod
  def from_row_starts(cls, values, row_starts, name=None, validate=True):
    values = _as_values(values)
    starts = _int_tensor(row_starts, _splits_of(row_starts), "row_starts")
    n = M.cast(A.reshape(_nvals(values), [1]), starts.dtype)
    return cls.from_row_splits(values, A.concat([starts, n], 0), validate=validate)

  @classmethod
  def from_row_limits(cls, values, row_limits, name=None, validate=True):
    values = _as_values(values)
    limits = _int_tensor(row_limits, _splits_of(row_limits), "row_limits")
    return cls.from_row_splits(values, A.concat([A.zeros([1], limits.dtype), limits], 0),
                               validate=validate)

  @classmethod
  def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, validate=True,
                              name=None):
    values = _as_values(values)
    width = _int_tensor(uniform_row_length, _dt.int64, "uniform_row_length")
    if nrows is None:
      nrows = M.floordiv(_nvals(values), M.maximum(width, M.cast(1, _dt.int64)))
    nrows = _int_tensor(nrows, _dt.int64, "nrows")
    splits = M.multiply(A.range(M.add(nrows, M.cast(1, _dt.int64)), dtype=_dt.int64), width)
    out = cls.from_row_splits(values, splits, validate=validate)
    w = constant_value(width)
    out._uniform = None if w is None else int(w)
    return out

  @classmethod
  def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
    if isinstance(nested_row_splits, Tensor):
      raise TypeError("nested_row_splits must be a list of tensors")
    result = flat_values
    for splits in reversed(list(nested_row_splits)):
      result = cls.from_row_splits(result, splits, validate=validate)
    return result

  @classmethod
  def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None, validate=True):
    result = flat_values
    for lengths in reversed(list(nested_row_lengths)):
      result = cls.from_row_lengths(result, lengths, validate=validate)
    return result

  @classmethod
  def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None,
                               name=None, validate=True):
    ids = list(nested_value_rowids)
    nrows = [None] * len(ids) if nested_nrows is None else list(nested_nrows)
    if len(nrows) != len(ids):
      raise ValueError("nested_nrows must have the same length as nested_value_rowids")
    result = flat_values
    for r, n in reversed(list(zip(ids, nrows))):
      result = cls.from_value_rowids(result, r, n, validate=validate)
    return result

  @classmethod
  def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None,
                  row_splits_dtype=_dt.int64):
    dt = _splits_dtype(row_splits_dtype)
    if lengths is not None and padding is not None:
      raise ValueError("Specify lengths or padding, but not both")
    t = convert_to_tensor(tensor)
    if not isinstance(ragged_rank, int) or ragged_rank < 1:
      raise ValueError(f"ragged_rank must be a positive integer, got {ragged_rank!r}")
    if t.shape.rank is not None and t.shape.rank <= ragged_rank:
      raise ValueError(f"ragged_rank must be less than the rank of tensor ({t.shape.rank}), "
                       f"got {ragged_rank}")
    if ragged_rank > 1:
      # the outer dims are uniform: fold them, make the inner ragged, unfold
      shp = A.shape(t, out_type=dt)
      inner = cls.from_tensor(A.reshape(t, A.concat([[-1], shp[2:]], 0)), lengths, padding,
                              ragged_rank - 1, row_splits_dtype=dt)
      out = cls.from_uniform_row_length(inner, M.cast(shp[1], _dt.int64), M.cast(shp[0],
                                                                                _dt.int64))
      out._uniform = t.shape[1] if t.shape.rank is not None else out._uniform
      return out.with_row_splits_dtype(dt)
    shp = A.shape(t, out_type=dt)
    nrows, ncols = shp[0], shp[1]
    if padding is not None:
      pad = convert_to_tensor(padding, t.dtype)
      keep = M.not_equal(t, pad)
      for _ in range((t.shape.rank or 2) - 2):
        keep = M.reduce_any(keep, axis=-1)
      # a row's length is one past its last non-padding element
      pos = M.cast(A.range(1, M.add(ncols, M.cast(1, dt)), dtype=dt), dt)
      lengths = M.reduce_max(A.where(keep, A.fill(A.shape(keep), M.cast(1, dt)) * pos,
                                     A.zeros_like(M.cast(keep, dt))), axis=1)
    if lengths is None:
      values = A.reshape(t, A.concat([[-1], shp[2:]], 0))
      splits = M.multiply(A.range(M.add(nrows, M.cast(1, dt)), dtype=dt), ncols)
      out = cls.from_row_splits(values, splits, validate=False)
      out._uniform = t.shape[1] if t.shape.rank is not None else None
      return out
    lengths = _int_tensor(lengths, dt, "lengths")
    lengths = M.minimum(lengths, ncols)
    mask = A.sequence_mask(lengths, ncols)
    return cls.from_row_lengths(A.boolean_mask(t, mask), lengths, validate=False)

  @classmethod
  def from_sparse(cls, st_input, name=None, row_splits_dtype=_dt.int64):
    """The rows of a 2-D "ragged-right" SparseTensor (each row's entries in columns 0, 1,
    ... with no gaps), as a RaggedTensor."""
    dt = _splits_dtype(row_splits_dtype)
    if not hasattr(st_input, "dense_shape"):
      raise TypeError(f"Expected SparseTensor, got {type(st_input).__name__}")
    if st_input.shape.rank not in (None, 2):
      raise ValueError(f"rank(st_input) must be 2, got {st_input.shape.rank}")
    rows = M.cast(st_input.indices[:, 0], dt)
    out = cls.from_value_rowids(st_input.values, rows, M.cast(st_input.dense_shape[0], dt),
                                validate=False)
    idx = _known(st_input.indices)
    if idx is not None and idx.size:
      want = np.asarray(out.value_rowids()._value)
      splits = np.asarray(out.row_splits._value)
      if not np.array_equal(idx[:, 0], want) or \
          not np.array_equal(idx[:, 1], np.arange(len(idx)) - splits[want]):
        raise InvalidArgumentError(None, None, "SparseTensor is not right-ragged: its entries "
                                   "must be in row-major order, each row's in columns 0, 1, "
                                   "... without gaps")
    return out

  def to_sparse(self, name=None):
    """A SparseTensor of every element (in row-major order) with the bounding shape."""
    from tensorlet.ragged.ragged_array_ops import where_true
    from tensorlet.sparse import SparseTensor
    everything = self.with_flat_values(A.fill(A.shape(self.flat_values), True))
    return SparseTensor(where_true(everything), A.reshape(self.flat_values, [-1]),
                        self.bounding_shape(out_type=_dt.int64))

  # ----------------------------------------------------------- structure
  @property
  def values(self):
    return self._values

  @property
  def row_splits(self):
    return self._row_splits

  @property
  def flat_values(self):
    v = self._values
    while isinstance(v, RaggedTensor):
      v = v._values
    return v

  @property
  def nested_row_splits(self):
    out, rt = [self._row_splits], self._values
    while isinstance(rt, RaggedTensor):
      out.append(rt._row_splits)
      rt = rt._values
    return tuple(out)

  @property
  def uniform_row_length(self):
    """The length of every row when the rows are known to be uniform (as a tensor of
    the row_splits dtype), else None."""
    if self._uniform is None:
      return None
    return convert_to_tensor(np.array(self._uniform, self.row_splits_dtype.as_numpy_dtype))

  @property
  def ragged_rank(self):
    v = self._values
    return v.ragged_rank + 1 if isinstance(v, RaggedTensor) else 1

  @property
  def dtype(self):
    return self.flat_values.dtype

  @property
  def row_splits_dtype(self):
    return self._row_splits.dtype

  @property
  def shape(self):
    n = self._row_splits.shape
    nrows = n[0] - 1 if n.rank == 1 and n[0] is not None else None
    inner = self._values.shape
    if inner.rank is None:
      return TensorShape(None)
    return TensorShape([nrows, self._uniform] + inner.as_list()[1:])

  def get_shape(self):
    return self.shape

  @property
  def ndim(self):
    return self.shape.rank

  @property
  def _type_spec(self):
    return RaggedTensorSpec(self.shape, self.dtype, self.ragged_rank, self.row_splits_dtype)

  def nrows(self, out_type=None, name=None):
    n = M.subtract(A.shape(self._row_splits, out_type=self.row_splits_dtype)[0],
                   M.cast(1, self.row_splits_dtype))
    return n if out_type is None else M.cast(n, out_type)

  def row_starts(self, name=None):
    return self._row_splits[:-1]

  def row_limits(self, name=None):
    return self._row_splits[1:]

  def row_lengths(self, axis=1, name=None):
    if axis in (1, -self.shape.rank + 1 if self.shape.rank else None):
      return M.subtract(self._row_splits[1:], self._row_splits[:-1])
    if axis == 0:
      raise ValueError("row_lengths: axis=0 has no row lengths (the rows are uniform)")
    if isinstance(self._values, RaggedTensor):
      return self.with_values(self._values.row_lengths(axis - 1))
    raise ValueError(f"row_lengths: axis={axis} is not a ragged dimension")

  def nested_row_lengths(self, name=None):
    out, rt = [], self
    while isinstance(rt, RaggedTensor):
      out.append(rt.row_lengths())
      rt = rt._values
    return tuple(out)

  def value_rowids(self, name=None):
    """The row of each value: rows searched in row_limits (sorted), so it works in graphs."""
    n = _nvals(self._values)
    pos = A.range(M.cast(n, self.row_splits_dtype), dtype=self.row_splits_dtype)
    ids = A.searchsorted(self._row_splits[1:], pos, side="right",
                         out_type=self.row_splits_dtype)
    return ids

  def nested_value_rowids(self, name=None):
    out, rt = [], self
    while isinstance(rt, RaggedTensor):
      out.append(rt.value_rowids())
      rt = rt._values
    return tuple(out)

  def bounding_shape(self, axis=None, name=None, out_type=None):
    dt = out_type or self.row_splits_dtype
    dims = [M.cast(self.nrows(), dt)]
    rt = self
    while isinstance(rt, RaggedTensor):
      lens = rt.row_lengths()
      dims.append(M.cast(M.reduce_max(A.concat([A.zeros([1], lens.dtype), lens], 0)), dt))
      rt = rt._values
    inner = A.shape(rt, out_type=dt)[1:]
    shape = A.concat([A.stack(dims), inner], 0)
    return shape if axis is None else A.gather(shape, axis)

  def with_values(self, new_values):
    out = RaggedTensor(_as_values(new_values), self._row_splits, internal=True)
    out._uniform = self._uniform
    return out

  def with_flat_values(self, new_values):
    if isinstance(self._values, RaggedTensor):
      return self.with_values(self._values.with_flat_values(new_values))
    return self.with_values(new_values)

  def with_row_splits_dtype(self, dtype):
    dt = _splits_dtype(dtype)
    v = self._values
    if isinstance(v, RaggedTensor):
      v = v.with_row_splits_dtype(dt)
    out = RaggedTensor(v, M.cast(self._row_splits, dt), internal=True)
    out._uniform = self._uniform
    return out

  def merge_dims(self, outer_axis, inner_axis):
    rank = self.shape.rank
    outer = outer_axis + rank if outer_axis < 0 else outer_axis
    inner = inner_axis + rank if inner_axis < 0 else inner_axis
    if not 0 <= outer <= inner < rank:
      raise ValueError(f"Expected outer_axis ({outer_axis}) to be less than or equal to "
                       f"inner_axis ({inner_axis}) and both within rank {rank}")
    if outer == inner:
      return self
    if outer == 0:
      # merging the outermost dims: the values, with their own dims merged further
      v = self._values
      if inner == 1:
        return v
      if isinstance(v, RaggedTensor):
        return v.merge_dims(0, inner - 1)
      return A.reshape(v, A.concat([[-1], A.shape(v)[inner:]], 0))
    if outer > 1:
      v = self._values
      return self.with_values(v.merge_dims(outer - 1, inner - 1) if isinstance(
          v, RaggedTensor) else A.reshape(v, A.concat(
              [A.shape(v)[:outer - 1], [-1], A.shape(v)[inner:]], 0)))
    # merging dims 1..inner of each row: the values' dims 0..inner-1 flatten, and each
    # row's split is carried through the merged levels' partitions
    v, splits = self._values, self._row_splits
    merged = v.merge_dims(0, inner - 1) if isinstance(v, RaggedTensor) else \
        A.reshape(v, A.concat([[-1], A.shape(v)[inner:]], 0))
    for _ in builtins.range(inner - 1):
      if isinstance(v, RaggedTensor):
        splits, v = A.gather(v.row_splits, splits), v.values
      else:
        splits = M.multiply(splits, M.cast(A.shape(v)[1], splits.dtype))
        v = A.reshape(v, A.concat([[-1], A.shape(v)[2:]], 0))
    return RaggedTensor(merged, splits, internal=True)

  # ---------------------------------------------------------- conversion
  def to_tensor(self, default_value=None, name=None, shape=None):
    flat = self.flat_values
    default = A.zeros([], flat.dtype) if default_value is None and flat.dtype is not \
        _dt.string else (convert_to_tensor(b"" if default_value is None else default_value,
                                           flat.dtype))
    dense = self._dense(default)
    if shape is not None:
      dense = _fit(dense, as_shape(shape), default)
    return dense

  def _dense(self, default):
    """The padded tensor of this ragged tensor, filled with `default`."""
    v = self._values
    inner = v._dense(default) if isinstance(v, RaggedTensor) else v
    dt = self.row_splits_dtype
    lens = self.row_lengths()
    width = M.reduce_max(A.concat([A.zeros([1], dt), lens], 0))
    ids = self.value_rowids()
    cols = M.subtract(A.range(M.cast(_nvals(inner), dt), dtype=dt), A.gather(self._row_splits,
                                                                              ids))
    out_shape = A.concat([A.stack([self.nrows(), width]),
                          A.shape(inner, out_type=dt)[1:]], 0)
    base = A.fill(out_shape, default)
    out = A.tensor_scatter_nd_update(base, A.stack([ids, cols], 1), inner)
    if inner.shape.rank is not None:  # the uniform dims stay known in a graph
      out.set_shape(TensorShape([self.shape[0], None]).concatenate(inner.shape[1:]))
    return out

  def to_list(self):
    if not _eager(self):
      raise ValueError("RaggedTensor.to_list() is only supported in eager mode.")
    splits = [np.asarray(s._value) for s in self.nested_row_splits]
    vals = self.flat_values._value
    items = vals.tolist()

    def build(level, lo, hi):
      s = splits[level]
      rows = []
      for i in range(lo, hi):
        a, b = int(s[i]), int(s[i + 1])
        rows.append(items[a:b] if level == len(splits) - 1 else build(level + 1, a, b))
      return rows
    return build(0, 0, len(splits[0]) - 1)

  def numpy(self):
    if not _eager(self):
      raise ValueError("RaggedTensor.numpy() is only supported in eager mode.")
    vals = self._values.numpy()
    s = np.asarray(self._row_splits._value)
    rows = [vals[s[i]:s[i + 1]] for i in range(len(s) - 1)]
    if not rows:
      return np.zeros((0, 0) + vals.shape[1:], vals.dtype)
    if all(len(r) == len(rows[0]) for r in rows):
      return np.array(rows)  # rows of one length stack into one array, as TF's
    out = np.empty(len(rows), dtype=object)
    out[:] = rows
    return out

  # ------------------------------------------------------------ indexing
  def __getitem__(self, key):
    from tensorlet.ragged import ragged_getitem
    return ragged_getitem.getitem(self, key)

  def _map_fn_rows(self):
    return self.__getitem__

  def __iter__(self):
    if not _eager(self):
      raise TypeError("Iterating over a symbolic RaggedTensor is not allowed in graph mode")
    return (self[i] for i in range(int(self.nrows()._value)))

  def __bool__(self):
    raise TypeError("RaggedTensor may not be used as a boolean.")

  __hash__ = None

  # ------------------------------------------------------ elementwise math
  @classmethod
  def _dispatch_elementwise(cls, od, api, args, kwargs):
    from tensorlet.ragged import ragged_math
    return ragged_math.elementwise(api, args, kwargs)

  def __repr__(self):
    if _eager(self):
      return f"<tf.RaggedTensor {_text(self)}>"
    return (f"tf.RaggedTensor(values={self._values!r}, row_splits={self._row_splits!r})")

  __str__ = __repr__


def _operator(fn_name, reverse=False):
  def method(self, other):
    from tensorlet.ops import math_ops
    fn = getattr(math_ops, fn_name)
    return fn(other, self) if reverse else fn(self, other)
  method.__name__ = fn_name
  return method


for _name, _fn in [("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                   ("truediv", "truediv"), ("floordiv", "floordiv"), ("mod", "floormod"),
                   ("pow", "pow")]:
  setattr(RaggedTensor, f"__{_name}__", _operator(_fn))
  setattr(RaggedTensor, f"__r{_name}__", _operator(_fn, reverse=True))
for _name, _fn in [("lt", "less"), ("le", "less_equal"), ("gt", "greater"),
                   ("ge", "greater_equal"), ("and", "logical_and"), ("or", "logical_or"),
                   ("xor", "logical_xor")]:
  setattr(RaggedTensor, f"__{_name}__", _operator(_fn))
RaggedTensor.__eq__ = lambda self, other: M.equal(self, other)
RaggedTensor.__ne__ = lambda self, other: M.not_equal(self, other)
RaggedTensor.__neg__ = lambda self: M.negative(self)
RaggedTensor.__abs__ = lambda self: M.abs(self)
RaggedTensor.__invert__ = lambda self: M.logical_not(self)


def _text(rt):
  """The rows as TF prints them: NumPy's layout of the nested row arrays (so rank-3+
  values break lines as TF's do), each scalar as str() prints it."""
  def fmt(x):
    if isinstance(x, np.ndarray):
      if x.size:
        return np.array2string(x, separator=", ", formatter={"all": fmt})
      return repr(x.tolist())  # an empty [0, 3] array is [[], [], []], not []
    return str(x)
  return fmt(rt.numpy())


def _eager(rt):
  from tensorlet.tensor import EagerTensor
  return all(isinstance(s, EagerTensor) for s in rt.nested_row_splits) and \
      isinstance(rt.flat_values, EagerTensor)


def _splits_of(x):
  d = getattr(x, "dtype", None)
  return d if d in (_dt.int32, _dt.int64) else _dt.int64


def _as_values(values):
  if isinstance(values, RaggedTensor):
    return values
  t = convert_to_tensor(values)
  if t.shape.rank == 0:
    raise ValueError("values must have rank at least 1 (a scalar cannot be partitioned)")
  return t


def _fit(dense, shape, default):
  """`dense` padded with `default` or truncated to `shape` (None dims keep theirs)."""
  if shape.rank is None:
    return dense
  if dense.shape.rank is not None and dense.shape.rank != shape.rank:
    raise ValueError(f"to_tensor: shape {shape} does not have the rank of the tensor "
                     f"({dense.shape.rank})")
  cur = A.shape(dense, out_type=_dt.int64)
  want = A.stack([cur[i] if d is None else M.cast(d, _dt.int64)
                  for i, d in enumerate(shape.as_list())])
  keep = M.minimum(cur, want)
  dense = A.slice(dense, A.zeros_like(keep), keep)
  pad = M.subtract(want, keep)
  return A.pad(dense, A.stack([A.zeros_like(pad), pad], 1), constant_values=default)


def convert_to_tensor_or_ragged(value, dtype=None):
  if isinstance(value, RaggedTensor):
    if dtype is not None and value.dtype is not _dt.as_dtype(dtype):
      raise ValueError(f"Tensor conversion requested dtype {_dt.as_dtype(dtype).name} for "
                       f"RaggedTensor with dtype {value.dtype.name}")
    return value
  return convert_to_tensor(value, dtype)


class RaggedTensorSpec(TensorLikeSpec):
  """The type of a RaggedTensor: shape (ragged dims None), dtype, ragged_rank,
  row_splits_dtype."""

  __slots__ = ("_ragged_rank", "_row_splits_dtype", "_flat_values_spec")

  def __init__(self, shape=None, dtype=_dt.float32, ragged_rank=None,
               row_splits_dtype=_dt.int64, flat_values_spec=None):
    self._shape = as_shape(shape)
    self._dtype = _dt.as_dtype(dtype)
    self._row_splits_dtype = _splits_dtype(row_splits_dtype)
    rank = self._shape.rank
    if ragged_rank is None:
      if rank is None:
        raise ValueError("Must specify ragged_rank or a shape with a known rank.")
      ragged_rank = rank - 1
    if not isinstance(ragged_rank, int):
      raise TypeError(f"ragged_rank must be an int, got {ragged_rank!r}")
    if rank is not None and not 0 <= ragged_rank < max(rank, 1):
      raise ValueError(f"ragged_rank must be non-negative and less than the rank "
                       f"({rank}), got {ragged_rank}")
    self._ragged_rank = ragged_rank
    self._flat_values_spec = flat_values_spec

  @property
  def ragged_rank(self):
    return self._ragged_rank

  @property
  def row_splits_dtype(self):
    return self._row_splits_dtype

  @property
  def flat_values_spec(self):
    return self._flat_values_spec

  @property
  def value_type(self):
    return RaggedTensor

  def _fields(self):
    return (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)

  @property
  def _component_specs(self):
    rr, dims = self._ragged_rank, self._shape
    if rr == 0:  # a ragged_rank-0 value is one dense tensor
      return [TensorSpec(dims, self._dtype)]
    inner = [None] if dims.rank is None else [None] + dims.as_list()[rr + 1:]
    flat = TensorSpec(TensorShape(None) if dims.rank is None else TensorShape(inner),
                      self._dtype)
    outer = None if dims.rank is None or dims[0] is None else dims[0] + 1
    splits = [TensorSpec([outer], self._row_splits_dtype)] + \
        [TensorSpec([None], self._row_splits_dtype) for _ in range(rr - 1)]
    return [flat] + splits

  def _to_components(self, value):
    if isinstance(value, RaggedTensor):
      return [value.flat_values] + list(value.nested_row_splits)
    # a dense tensor of a spec with ragged_rank 0 is its own component
    return [convert_to_tensor(value)]

  def _from_components(self, tensors):
    tensors = list(tensors)
    if self._ragged_rank == 0:
      return tensors[0]
    result = tensors[0]
    dims = self._shape.as_list() if self._shape.rank is not None else None
    for level in reversed(range(len(tensors) - 1)):
      result = RaggedTensor(result, tensors[level + 1], internal=True)
      result._uniform = dims[level + 1] if dims is not None else None
    return result

  def __repr__(self):
    return (f"RaggedTensorSpec({self._shape!r}, {self._dtype!r}, {self._ragged_rank}, "
            f"{self._row_splits_dtype!r})")

  # tf.map_fn: a row is written as its number of rows, its nested row lengths and its
  # flat values; the stacked result is rebuilt from those (one ragged level more)
  def _map_fn_row_spec(self):
    shape = self._shape[1:] if self._shape.rank is not None else None
    return RaggedTensorSpec(shape, self._dtype, self._ragged_rank - 1, self._row_splits_dtype)

  def _map_fn_part_dtypes(self):
    dt = self._row_splits_dtype
    return [(dt, [])] + [(dt, None)] * self._ragged_rank + [(self._dtype, None)]

  def _map_fn_encode(self, value, i):
    dt = self._row_splits_dtype
    if isinstance(value, RaggedTensor):
      lengths = list(value.nested_row_lengths())
      flat, nrows = value.flat_values, M.cast(value.nrows(), dt)
    elif isinstance(value, CompositeTensor):
      raise TypeError(f"expected a RaggedTensor, got {type(value).__name__}")
    else:
      flat = value if isinstance(value, Tensor) else convert_to_tensor(value, self._dtype)
      if flat.shape.rank == 0:
        raise InvalidArgumentError(None, None, f"Ragged values must have rank >= 1; map_fn's "
                                   f"fn returned a scalar for {self!r}")
      lengths, nrows = [], M.cast(A.shape(flat)[0], dt)
    if len(lengths) != self._ragged_rank:
      raise ValueError(f"map_fn: fn returned a value with ragged_rank {len(lengths)} where "
                       f"fn_output_signature {self!r} expects {self._ragged_rank}")
    return [nrows] + [M.cast(ln, dt) for ln in lengths] + [flat]

  def _map_fn_decode(self, tas):
    levels = [tas[0].stack()] + [ta.concat() for ta in tas[1:-1]]
    return RaggedTensor.from_nested_row_lengths(tas[-1].concat(), levels, validate=False)


# Public elementwise functions (tf.abs, tf.add, ...) apply to a RaggedTensor's values.
dispatch.register_type(RaggedTensor,
                       dispatch.elementwise_handler(RaggedTensor._dispatch_elementwise))
