"""tf.SparseTensor and tf.SparseTensorSpec: `values` at `indices` ([N, rank]
int64) of a tensor of `dense_shape`, every other element zero."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.composite_tensor import CompositeTensor, TensorLikeSpec
from tensorlet.ops import dispatch
from tensorlet.ops.registry import constant_value
from tensorlet.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet.tensor_shape import TensorShape, as_shape
from tensorlet.tensor_spec import TensorSpec

__all__ = ["SparseTensor", "SparseTensorSpec"]


def _int64(x, what):
  if isinstance(x, Tensor) or hasattr(x, "_as_tensor"):
    t = convert_to_tensor(x)
    if t.dtype is not _dt.int64:
      raise ValueError(f"{what}: Tensor conversion requested dtype int64 for Tensor with dtype "
                       f"{t.dtype.name}: {t!r}")
    return t
  return convert_to_tensor(x, _dt.int64)


class SparseTensor(CompositeTensor):
  """A sparse tensor: `SparseTensor(indices, values, dense_shape)`."""

  __slots__ = ("_indices", "_values", "_dense_shape", "_shape_hint", "__weakref__")
  _tf_tensor_like = True

  def __init__(self, indices, values, dense_shape):
    self._shape_hint = None  # the static shape a spec gave a symbolic value
    self._indices = _int64(indices, "indices")
    self._values = convert_to_tensor(values)
    self._dense_shape = _int64(dense_shape, "dense_shape")
    i, v, d = self._indices.shape, self._values.shape, self._dense_shape.shape
    if i.rank not in (None, 2):
      raise ValueError(f"Shape {i} must have rank 2 (indices)")
    if v.rank not in (None, 1):
      raise ValueError(f"Shape {v} must have rank 1 (values)")
    if d.rank not in (None, 1):
      raise ValueError(f"Shape {d} must have rank 1 (dense_shape)")
    if i.rank == 2 and v.rank == 1 and not TensorShape([i[0]]).is_compatible_with([v[0]]):
      raise ValueError(f"Dimensions {i[0]} and {v[0]} are not compatible")
    if i.rank == 2 and d.rank == 1 and not TensorShape([i[1]]).is_compatible_with([d[0]]):
      raise ValueError(f"Dimensions {i[1]} and {d[0]} are not compatible")

  @classmethod
  def from_value(cls, value):
    if isinstance(value, SparseTensor):
      return value
    return cls(value.indices, value.values, value.dense_shape)

  @property
  def indices(self):
    return self._indices

  @property
  def values(self):
    return self._values

  @property
  def dense_shape(self):
    return self._dense_shape

  @property
  def dtype(self):
    return self._values.dtype

  @property
  def shape(self):
    v = constant_value(self._dense_shape)
    if v is not None:
      return TensorShape([int(x) for x in np.asarray(v).reshape(-1)])
    if self._shape_hint is not None:
      return self._shape_hint
    d = self._dense_shape.shape
    r = d[0] if d.rank == 1 else None
    if r is None and self._indices.shape.rank == 2:
      r = self._indices.shape[1]
    return TensorShape(None if r is None else [None] * r)

  def get_shape(self):
    return self.shape

  @property
  def _type_spec(self):
    return SparseTensorSpec(self.shape, self.dtype)

  def with_values(self, new_values):
    st = SparseTensor(self._indices, new_values, self._dense_shape)
    st._shape_hint = self._shape_hint
    return st

  def numpy(self):
    raise AttributeError("'SparseTensor' object has no attribute 'numpy'; use "
                         "tf.sparse.to_dense(st).numpy()")

  def __repr__(self):
    return (f"SparseTensor(indices={self._indices!s}, values={self._values!s}, "
            f"dense_shape={self._dense_shape!s})")

  __str__ = __repr__

  @classmethod
  def _dispatch_elementwise(cls, od, api, args, kwargs):
    """Unary ops that keep zero at zero apply to the values."""
    from tensorlet.sparse import sparse_ops
    return sparse_ops.elementwise(od, api, args, kwargs)

  def __mul__(self, other):
    from tensorlet.sparse import sparse_ops
    return sparse_ops.sparse_dense_cwise(self, other, "mul")

  def __truediv__(self, other):
    from tensorlet.sparse import sparse_ops
    return sparse_ops.sparse_dense_cwise(self, other, "div")

  __div__ = __truediv__

  def __neg__(self):
    from tensorlet.ops import math_ops
    return self.with_values(math_ops.negative(self._values))

  def __add__(self, other):
    from tensorlet.sparse import sparse_ops
    return sparse_ops.add(self, other)

  __radd__ = __add__

  def __bool__(self):
    raise TypeError("SparseTensor may not be used as a boolean.")

  def _map_fn_rows(self):
    """Row i of the entries in row-major order: the entries between the row's bounds
    (found once by a search of the sorted first coordinates)."""
    from tensorlet.ops import array_ops as A
    from tensorlet.ops import sparse_ops as K
    from tensorlet.sparse import sparse_ops
    idx, shape = constant_value(self._indices), constant_value(self._dense_shape)
    if idx is not None and shape is not None:  # TF refuses unordered entries here
      K.check_indices(idx, shape, "SerializeManySparse")
      sp = self
    else:
      sp = sparse_ops.reorder(self)
    first = sp.indices[:, 0]
    splits = A.searchsorted(first, A.range(sp.dense_shape[0] + 1), side="left",
                            out_type=_dt.int64)
    inner_shape = sp.dense_shape[1:]
    hint = self.shape[1:] if self.shape.rank is not None else None

    def row(i):
      pos = A.range(splits[i], splits[i + 1])
      out = SparseTensor(A.gather(sp.indices[:, 1:], pos), A.gather(sp.values, pos),
                         inner_shape)
      out._shape_hint = hint
      return out
    return row

  def eval(self, *args, **kwargs):
    raise NotImplementedError("SparseTensor.eval is TF1 Session API; not available in tensorlet")


class SparseTensorSpec(TensorLikeSpec):
  """The type of a SparseTensor: its dense shape (dims may be None) and dtype."""

  __slots__ = ()

  def __init__(self, shape=None, dtype=_dt.float32):
    self._shape = as_shape(shape)
    self._dtype = _dt.as_dtype(dtype)

  @property
  def value_type(self):
    return SparseTensor

  def _fields(self):
    return (self._shape, self._dtype)

  @property
  def _component_specs(self):
    r = self._shape.rank
    return [TensorSpec([None, r], _dt.int64), TensorSpec([None], self._dtype),
            TensorSpec([r], _dt.int64)]

  def _to_components(self, value):
    if isinstance(value, SparseTensor):
      return [value.indices, value.values, value.dense_shape]
    raise TypeError(f"Expected a SparseTensor for {self!r}, got {value!r}")

  def _from_components(self, tensors):
    i, v, d = list(tensors)
    st = SparseTensor.__new__(SparseTensor)
    st._indices, st._values, st._dense_shape = i, v, d
    st._shape_hint = None if isinstance(d, EagerTensor) or self._shape.rank is None \
        else self._shape
    return st

  def __repr__(self):
    return f"SparseTensorSpec({self._shape!r}, {self._dtype!r})"

  # tf.map_fn: a row is written as its indices (the row number prepended), values and
  # dense shape; the stacked result's dense shape is the largest row's, one dim more
  def _map_fn_row_spec(self):
    return SparseTensorSpec(None, self._dtype)

  def _map_fn_part_dtypes(self):
    return [(_dt.int64, None), (self._dtype, None), (_dt.int64, None)]

  def _map_fn_encode(self, value, i):
    from tensorlet.ops import array_ops as A
    from tensorlet.ops import math_ops as M
    if not isinstance(value, SparseTensor):
      raise TypeError(f"expected a SparseTensor, got {type(value).__name__}")
    if value.dtype is not self._dtype:
      raise TypeError(f"expected dtype {self._dtype.name}, got {value.dtype.name}")
    row = A.fill(A.stack([A.shape(value.indices)[0], 1]), M.cast(i, _dt.int64))
    return [A.concat([row, value.indices], 1), value.values, value.dense_shape]

  def _map_fn_decode(self, tas):
    from tensorlet.ops import array_ops as A
    from tensorlet.ops import math_ops as M
    shapes = tas[2].stack()
    n = A.shape(shapes, out_type=_dt.int64)[:1]
    inner = M.maximum(M.reduce_max(shapes, axis=0), A.zeros_like(shapes[0]))
    out = SparseTensor(tas[0].concat(), tas[1].concat(), A.concat([n, inner], 0))
    if self._shape.rank is not None:
      out._shape_hint = TensorShape([None]).concatenate(self._shape)
    return out


# Public elementwise functions (tf.abs, tf.add, ...) apply to a SparseTensor's values.
dispatch.register_type(SparseTensor,
                       dispatch.elementwise_handler(SparseTensor._dispatch_elementwise))
