"""tf.experimental.RowPartition: how a RaggedTensor's values are split into rows (its
row_splits, and the one row length when the rows are known to be uniform). The
factories check their arguments as RaggedTensor's do, by building one over
placeholder values of the right length."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.ops import array_ops as A
from tensorlet.ops import math_ops as M
from tensorlet.ops.registry import constant_value
from tensorlet.tensor import EagerTensor, convert_to_tensor

__all__ = ["RowPartition"]


def _placeholder(n):
  # never negative, so that bad arguments meet the RaggedTensor factory's own check
  return A.zeros(A.reshape(M.maximum(M.cast(n, _dt.int64), 0), [1]), _dt.int8)


def _int(x):
  t = convert_to_tensor(x, dtype_hint=_dt.int64)
  if t.dtype not in (_dt.int32, _dt.int64):
    raise ValueError("row_splits must have dtype int32 or int64")
  return t


class RowPartition:
  """The row partition of one ragged dimension (use the `from_*` factories)."""

  __slots__ = ("_splits", "_uniform")

  def __init__(self, row_splits, uniform=None, internal=False):
    if not internal:
      raise ValueError("RowPartition constructor is private; please use one of the factory "
                       "methods instead (e.g., RowPartition.from_row_lengths())")
    self._splits = row_splits
    self._uniform = uniform   # the static row length, when the rows are uniform

  @classmethod
  def _of(cls, rt):
    return cls(rt.row_splits, rt._uniform, internal=True)

  # ------------------------------------------------------------ factories
  @classmethod
  def from_row_splits(cls, row_splits, validate=True, dtype=None, dtype_hint=None):
    from tensorlet.ragged.ragged_tensor import RaggedTensor
    s = _int(row_splits)
    return cls._of(RaggedTensor.from_row_splits(_placeholder(s[-1]), s, validate=validate))\
        ._cast(dtype)

  @classmethod
  def from_row_lengths(cls, row_lengths, validate=True, dtype=None, dtype_hint=None):
    from tensorlet.ragged.ragged_tensor import RaggedTensor
    n = _int(row_lengths)
    return cls._of(RaggedTensor.from_row_lengths(_placeholder(M.reduce_sum(n)), n,
                                                 validate=validate))._cast(dtype)

  @classmethod
  def from_value_rowids(cls, value_rowids, nrows=None, validate=True, dtype=None,
                        dtype_hint=None):
    from tensorlet.ragged.ragged_tensor import RaggedTensor
    ids = _int(value_rowids)
    return cls._of(RaggedTensor.from_value_rowids(_placeholder(A.size(ids)), ids, nrows,
                                                  validate=validate))._cast(dtype)

  @classmethod
  def from_row_starts(cls, row_starts, nvals, validate=True, dtype=None, dtype_hint=None):
    from tensorlet.ragged.ragged_tensor import RaggedTensor
    return cls._of(RaggedTensor.from_row_starts(_placeholder(nvals), _int(row_starts),
                                                validate=validate))._cast(dtype)

  @classmethod
  def from_row_limits(cls, row_limits, validate=True, dtype=None, dtype_hint=None):
    from tensorlet.ragged.ragged_tensor import RaggedTensor
    lim = _int(row_limits)
    n = M.reduce_max(A.concat([A.zeros([1], lim.dtype), lim], 0))
    return cls._of(RaggedTensor.from_row_limits(_placeholder(n), lim,
                                                validate=validate))._cast(dtype)

  @classmethod
  def from_uniform_row_length(cls, uniform_row_length, nvals=None, nrows=None, validate=True,
                              dtype=None, dtype_hint=None):
    from tensorlet.ragged.ragged_tensor import RaggedTensor
    w = _int(uniform_row_length)
    if nvals is None:
      if nrows is None:
        raise ValueError("from_uniform_row_length: nvals or nrows must be given")
      nvals = M.multiply(M.cast(nrows, _dt.int64), M.cast(w, _dt.int64))
    return cls._of(RaggedTensor.from_uniform_row_length(_placeholder(nvals), w, nrows,
                                                        validate=validate))._cast(dtype)

  def _cast(self, dtype):
    return self if dtype is None else self.with_dtype(dtype)

  # ------------------------------------------------------------ facts
  @property
  def dtype(self):
    return self._splits.dtype

  def with_dtype(self, dtype):
    dt = _dt.as_dtype(dtype)
    if dt not in (_dt.int32, _dt.int64):
      raise ValueError(f"dtype must be int32 or int64, got {dt!r}")
    return RowPartition(M.cast(self._splits, dt), self._uniform, internal=True)

  def row_splits(self):
    return self._splits

  def row_starts(self):
    return self._splits[:-1]

  def row_limits(self):
    return self._splits[1:]

  def row_lengths(self):
    return M.subtract(self._splits[1:], self._splits[:-1])

  def nrows(self):
    return M.subtract(A.shape(self._splits, out_type=self.dtype)[0], M.cast(1, self.dtype))

  def nvals(self):
    return self._splits[-1]

  def value_rowids(self):
    pos = A.range(self._splits[-1], dtype=self.dtype)
    return A.searchsorted(self._splits[1:], pos, side="right", out_type=self.dtype)

  def offsets_in_rows(self):
    """Each value's position within its row."""
    ids = self.value_rowids()
    return M.subtract(A.range(self._splits[-1], dtype=self.dtype), A.gather(self._splits, ids))

  def uniform_row_length(self):
    if self._uniform is None:
      return None
    return convert_to_tensor(np.array(self._uniform, self.dtype.as_numpy_dtype))

  def is_uniform(self):
    return self._uniform is not None

  @property
  def static_nrows(self):
    n = self._splits.shape
    return n[0] - 1 if n.rank == 1 and n[0] is not None else None

  @property
  def static_uniform_row_length(self):
    return self._uniform

  @property
  def static_nvals(self):
    if self._uniform is not None and self.static_nrows is not None:
      return self._uniform * self.static_nrows
    return None

  def __repr__(self):
    if self._uniform is not None and self.static_nrows is not None:
      return f"tf.RowPartition(nrows={self.static_nrows}, uniform_row_length={self._uniform})"
    s = constant_value(self._splits) if isinstance(self._splits, EagerTensor) else None
    text = np.array2string(np.asarray(s)) if s is not None else repr(self._splits)
    return f"tf.RowPartition(row_splits={text})"
