"""tf.IndexedSlices and tf.IndexedSlicesSpec: rows `indices` of a tensor of shape
`dense_shape` given as `values` (one row per index, repeats add up), the form the
gradient of a gather takes.

The value converts to a dense tensor wherever a tensor is wanted (so dense ops
and gradient rules see the summed rows), while the reverse pass, optimizers and
clipping keep it sparse where TensorFlow does.
"""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.composite_tensor import CompositeTensor, TypeSpec
from tensorlet.context import ctx
from tensorlet.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet.tensor_shape import TensorShape, as_shape
from tensorlet.tensor_spec import TensorSpec

__all__ = ["IndexedSlices", "IndexedSlicesSpec", "is_indexed_slices", "to_dense"]


def _tensor(x):
  return x if isinstance(x, Tensor) else convert_to_tensor(x)


def _constant_dims(dense_shape):
  """The dims `dense_shape` holds when they are known now (an eager tensor), else None."""
  if isinstance(dense_shape, EagerTensor):
    return [int(d) for d in np.asarray(dense_shape._value).reshape(-1)]
  from tensorlet.ops.registry import constant_value
  v = constant_value(dense_shape)
  return None if v is None else [int(d) for d in np.asarray(v).reshape(-1)]


class IndexedSlices(CompositeTensor):
  """A tensor given by some of its rows: `IndexedSlices(values, indices, dense_shape)`
  stands for the tensor of shape `dense_shape` whose row `indices[i]` is `values[i]`
  (rows named twice add up, rows not named are zero).

  Example:
    >>> s = tf.IndexedSlices(tf.constant([[1., 2.]]), tf.constant([2]), tf.constant([3, 2]))
    >>> tf.convert_to_tensor(s).numpy()
    array([[0., 0.],
           [0., 0.],
           [1., 2.]], dtype=float32)
  """

  __slots__ = ("_values", "_indices", "_dense_shape", "__weakref__")
  _tf_tensor_like = True
  _tl_no_constant = True  # tf.constant refuses it (tf.convert_to_tensor densifies)

  def __init__(self, values, indices, dense_shape=None):
    self._values = _tensor(values)
    self._indices = _tensor(indices)
    self._dense_shape = None if dense_shape is None else _tensor(dense_shape)

  @classmethod
  def _make(cls, values, indices, dense_shape):
    s = cls.__new__(cls)
    s._values, s._indices, s._dense_shape = values, indices, dense_shape
    return s

  # ------------------------------------------------------------ fields
  @property
  def values(self):
    return self._values

  @property
  def indices(self):
    return self._indices

  @property
  def dense_shape(self):
    return self._dense_shape

  @property
  def dtype(self):
    return self._values.dtype

  @property
  def shape(self):
    """The dense shape as far as `dense_shape` tells it now (unknown without one)."""
    d = self._dense_shape
    if d is None:
      return TensorShape(None)
    dims = _constant_dims(d)
    if dims is not None:
      return TensorShape(dims)
    r = d.shape
    return TensorShape(None if r.rank != 1 or r[0] is None else [None] * r[0])

  @property
  def device(self):
    return self._values.device

  @property
  def name(self):
    return self._values.name

  @property
  def op(self):
    return self._values.op

  @property
  def graph(self):
    return self._values.graph

  def consumers(self):
    """The operations that use the values (none when eager)."""
    if isinstance(self._values, EagerTensor):
      return []
    return list(self._values.consumers())

  @property
  def _type_spec(self):
    vs = self._values.shape
    indices_shape = self._indices.shape.merge_with(vs[:1] if vs.rank is not None
                                                   else TensorShape(None))
    shape = TensorShape([None]).concatenate(vs[1:]) if vs.rank is not None \
        else TensorShape(None)
    dense_dtype = None
    if self._dense_shape is not None:
      dense_dtype = self._dense_shape.dtype
      shape = shape.merge_with(self.shape)
    return IndexedSlicesSpec(shape, self.dtype, self._indices.dtype, dense_dtype, indices_shape)

  # ------------------------------------------------------- conversion
  def _as_tensor(self):
    return to_dense(self)

  def __neg__(self):
    from tensorlet.ops import math_ops
    return IndexedSlices._make(math_ops.negative(self._values), self._indices,
                               self._dense_shape)

  def __str__(self):
    d = "" if self._dense_shape is None else f", dense_shape={self._dense_shape!s}"
    return f"IndexedSlices(indices={self._indices!s}, values={self._values!s}{d})"

  def numpy(self):
    raise AttributeError("'IndexedSlices' object has no attribute 'numpy'; use "
                         "tf.convert_to_tensor(slices).numpy()")


def is_indexed_slices(x):
  return isinstance(x, IndexedSlices)


def to_dense(s, name=None):
  """The dense tensor `s` stands for: its rows summed into zeros of `dense_shape`
  (TF's conversion; negative indices are dropped)."""
  from tensorlet.ops.registry import execute
  from tensorlet.ops.segment_ops import UnsortedSegmentSum
  if s._dense_shape is None:
    raise ValueError(f"Tensor conversion requested for IndexedSlices for argument `value` "
                     f"without dense_shape: {s}")
  dims = _constant_dims(s._dense_shape)
  if dims is not None:
    if ctx.graph is None:
      n = EagerTensor(np.asarray(dims[0], s._indices.dtype.as_numpy_dtype), s._indices.dtype)
    else:
      n = convert_to_tensor(dims[0], s._indices.dtype)
  else:
    from tensorlet.ops import array_ops
    n = array_ops.gather(s._dense_shape, 0)
  out = execute(UnsortedSegmentSum, [s._values, s._indices, n], {}, name)
  if dims is not None and not isinstance(out, EagerTensor) and out.shape.rank != len(dims):
    out.set_shape(dims)
  return out


class IndexedSlicesSpec(TypeSpec):
  """The type of an IndexedSlices: the dense shape, the dtypes of values, indices and
  dense_shape (None: it has none) and the shape of the indices (the number of rows)."""

  __slots__ = ("_shape", "_dtype", "_indices_dtype", "_dense_shape_dtype", "_indices_shape")

  def __init__(self, shape=None, dtype=_dt.float32, indices_dtype=_dt.int64,
               dense_shape_dtype=None, indices_shape=None):
    self._shape = as_shape(shape)
    self._dtype = _dt.as_dtype(dtype)
    self._indices_dtype = _dt.as_dtype(indices_dtype)
    self._dense_shape_dtype = None if dense_shape_dtype is None else \
        _dt.as_dtype(dense_shape_dtype)
    self._indices_shape = as_shape(indices_shape).with_rank(1) if indices_shape is not None \
        else TensorShape([None])

  @property
  def value_type(self):
    return IndexedSlices

  def _fields(self):
    return (self._shape, self._dtype, self._indices_dtype, self._dense_shape_dtype,
            self._indices_shape)

  @property
  def _component_specs(self):
    rest = self._shape[1:] if self._shape.rank is not None else TensorShape(None)
    specs = [TensorSpec(self._indices_shape.concatenate(rest), self._dtype),
             TensorSpec(self._indices_shape, self._indices_dtype)]
    if self._dense_shape_dtype is not None:
      specs.append(TensorSpec([self._shape.rank], self._dense_shape_dtype))
    return specs

  def _to_components(self, value):
    if not isinstance(value, IndexedSlices):
      raise TypeError(f"Expected an IndexedSlices for {self!r}, got {value!r}")
    if value.dense_shape is None:
      return [value.values, value.indices]
    return [value.values, value.indices, value.dense_shape]

  def _from_components(self, tensors):
    t = list(tensors)
    return IndexedSlices._make(t[0], t[1], t[2] if len(t) > 2 else None)

  def __repr__(self):
    d = "None" if self._dense_shape_dtype is None else repr(self._dense_shape_dtype)
    return (f"IndexedSlicesSpec({self._shape!r}, {self._dtype!r}, {self._indices_dtype!r}, "
            f"{d}, {self._indices_shape!r})")
