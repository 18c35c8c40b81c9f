"""tf.experimental.DynamicRaggedShape: what tf.shape returns for a RaggedTensor.

A shape whose dimensions after the first may be ragged: the row partitions
(one row_splits vector per ragged dimension) and the shape of the flat values
(`inner_shape`). Indexing gives a scalar tensor for a uniform dimension and
refuses a ragged one, as TF's does, so `tf.shape(rt)[0]` (the batch size) and
`tf.shape(rt)[-1]` (a dense inner dimension) work as they do on a dense shape.
"""
from tensorlet import dtypes as _dt
from tensorlet.ops import array_ops as A
from tensorlet.ops import math_ops as M
from tensorlet.ops.registry import constant_value
from tensorlet.tensor import EagerTensor, convert_to_tensor
from tensorlet.tensor_shape import TensorShape

__all__ = ["DynamicRaggedShape"]


class DynamicRaggedShape:
  """The shape of a RaggedTensor: its row partitions and the shape of its flat values."""

  __slots__ = ("_splits", "_uniform", "_inner_shape", "_static_inner", "_static_nrows",
               "_dtype")

  def __init__(self, row_splits, inner_shape, dtype=_dt.int32, static_inner=None,
               static_nrows=None, uniform=None):
    self._splits = tuple(row_splits)
    # each partition's one row length when the rows are known to be uniform, else None
    self._uniform = tuple(uniform) if uniform is not None else (None,) * len(self._splits)
    self._inner_shape = inner_shape
    self._dtype = _dt.as_dtype(dtype)
    self._static_inner = static_inner   # TensorShape of the flat values
    self._static_nrows = static_nrows

  @classmethod
  def from_tensor(cls, rt, dtype=_dt.int32):
    """The shape of RaggedTensor `rt`, its dimensions as `dtype` tensors."""
    dtype = _dt.as_dtype(dtype)
    if dtype not in (_dt.int32, _dt.int64):
      raise ValueError(f"dtype must be int32 or int64, got {dtype!r}")
    flat = rt.flat_values
    uniform, level = [], rt
    while hasattr(level, "_uniform"):
      uniform.append(level._uniform)
      level = level.values
    return cls(rt.nested_row_splits, A.shape(flat, out_type=dtype), dtype, flat.shape,
               rt.shape[0], uniform)

  # ------------------------------------------------------------ facts
  @property
  def dtype(self):
    return self._dtype

  @property
  def num_row_partitions(self):
    return len(self._splits)

  @property
  def rank(self):
    r = self._static_inner.rank
    return None if r is None else r + len(self._splits)

  @property
  def inner_shape(self):
    """The shape of the flat values, a 1-D tensor."""
    return self._inner_shape

  @property
  def inner_rank(self):
    return self._static_inner.rank

  @property
  def row_partitions(self):
    """One tf.experimental.RowPartition per ragged dimension, in the shape's dtype."""
    from tensorlet.ragged.row_partition import RowPartition
    return tuple(RowPartition(M.cast(s, self._dtype) if s.dtype is not self._dtype else s, u,
                              internal=True) for s, u in zip(self._splits, self._uniform))

  def is_uniform(self, axis):
    a = self._axis(axis)
    return not 1 <= a <= len(self._splits) or self._uniform[a - 1] is not None

  def _nrows(self):
    if self._static_nrows is not None:
      return convert_to_tensor(self._static_nrows, self._dtype)
    if not self._splits:
      return self._inner_shape[0]
    s = self._splits[0]
    return M.cast(M.subtract(A.shape(s, out_type=s.dtype)[0], M.cast(1, s.dtype)), self._dtype)

  def static_lengths(self):
    """Each dimension as TF lists it: an int when known statically, a tuple of row
    lengths for a ragged one whose values are known, else None."""
    out = [self._static_nrows]
    for s, u in zip(self._splits, self._uniform):
      v = constant_value(s) if isinstance(s, EagerTensor) and u is None else None
      out.append(u if u is not None or v is None else
                 tuple(int(b - a) for a, b in zip(v[:-1], v[1:])))
    inner = self._static_inner.as_list() if self._static_inner.rank is not None else []
    return out + inner[1:]

  def _axis(self, axis):
    r = self.rank
    if not isinstance(axis, int) or isinstance(axis, bool):
      raise TypeError("Argument is not an int or a slice")
    if axis < 0 and r is not None:
      axis += r
    if axis < 0:
      raise IndexError(f"Index must be non-negative: {axis}")
    if r is not None and axis >= r:
      raise IndexError(f"Index is too big: {axis}>={r}")
    return axis

  # ---------------------------------------------------------- indexing
  def __getitem__(self, index):
    if isinstance(index, slice):
      return self._slice(index)
    a = self._axis(index)
    k = len(self._splits)
    if a == 0:
      return self._nrows()
    if a <= k:
      if self._uniform[a - 1] is not None:
        return convert_to_tensor(self._uniform[a - 1], self._dtype)
      raise ValueError(f"Index {index} is not uniform")
    i = a - k
    d = self._static_inner[i] if self._static_inner.rank is not None else None
    return convert_to_tensor(d, self._dtype) if d is not None else self._inner_shape[i]

  def _slice(self, sl):
    if sl.step not in (None, 1):
      raise ValueError("DynamicRaggedShape slices must have a step of 1")
    r = self.rank
    start, stop, _ = sl.indices(r) if r is not None else (sl.start or 0, sl.stop, 1)
    if start != 0:  # TF slices a ragged shape only from its first dimension
      raise ValueError("All relevant dimensions must be uniform")
    stop = max(stop, 0)
    k = min(len(self._splits), max(stop - 1, 0))
    inner_stop = max(stop - k, 0)
    if k == 0:
      inner = A.reshape(self._nrows(), [1])[:stop]
      static = TensorShape([self._static_nrows])[:stop]
      return DynamicRaggedShape((), inner, self._dtype, static, self._static_nrows)
    inner = self._inner_shape[:inner_stop]
    static = self._static_inner[:inner_stop] if self._static_inner.rank is not None else \
        self._static_inner
    return DynamicRaggedShape(self._splits[:k], inner, self._dtype, static,
                              self._static_nrows, self._uniform[:k])

  def __len__(self):
    raise TypeError("object of type 'DynamicRaggedShape' has no len()")

  def __iter__(self):
    raise TypeError("'DynamicRaggedShape' object is not iterable; index it instead")

  def __repr__(self):
    def dim(x):
      if isinstance(x, tuple):
        return "(" + ", ".join(str(v) for v in x) + (",)" if len(x) == 1 else ")")
      return "None" if x is None else str(x)
    lengths = ", ".join(dim(x) for x in self.static_lengths())
    return f"<DynamicRaggedShape lengths=[{lengths}] num_row_partitions=" \
        f"{self.num_row_partitions}>"

  __str__ = __repr__
