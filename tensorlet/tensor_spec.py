"""tf.TensorSpec: the type of a tensor (shape with None dims, dtype, name)."""
from tensorlet import dtypes as _dt
from tensorlet.tensor_shape import TensorShape, as_shape

__all__ = ["TensorSpec"]


class TensorSpec:
  """Describes a tensor: `TensorSpec(shape=[None, 3], dtype=tf.float32)`."""

  __slots__ = ("_shape", "_dtype", "_name")

  def __init__(self, shape, dtype=_dt.float32, name=None):
    self._shape = as_shape(shape)
    self._dtype = _dt.as_dtype(dtype)
    self._name = name

  @classmethod
  def from_tensor(cls, tensor, name=None):
    return cls(tensor.shape, tensor.dtype, name)

  @classmethod
  def from_spec(cls, spec, name=None):
    return cls(spec.shape, spec.dtype, name if name is not None else spec.name)

  @property
  def shape(self):
    return self._shape

  @property
  def dtype(self):
    return self._dtype

  @property
  def name(self):
    return self._name

  def is_compatible_with(self, other):
    """True when `other` (a spec or tensor) has this dtype and a compatible shape."""
    return self._dtype is getattr(other, "dtype", None) and \
        self._shape.is_compatible_with(other.shape)

  def is_subtype_of(self, other):
    return isinstance(other, TensorSpec) and self._dtype is other._dtype and \
        self._shape.is_subtype_of(other._shape)

  def most_specific_common_supertype(self, others):
    if any(not isinstance(o, TensorSpec) or o._dtype is not self._dtype for o in others):
      return None
    shape = self._shape
    for o in others:
      shape = shape.most_specific_compatible_shape(o._shape)
    return TensorSpec(shape, self._dtype)

  def __eq__(self, other):
    return isinstance(other, TensorSpec) and self._shape == other._shape and \
        self._dtype is other._dtype and self._name == other._name

  def __ne__(self, other):
    return not self == other

  def __hash__(self):
    return hash((self._shape, self._dtype._enum, self._name))

  def __repr__(self):
    name = repr(self._name) if self._name is not None else "None"
    return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={name})"

  def __reduce__(self):
    return TensorSpec, (self._shape.dims, self._dtype.name, self._name)

