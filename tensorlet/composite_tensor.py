"""Composite tensors: values made of several tensors (tf.SparseTensor,
tf.RaggedTensor), and TypeSpec, the base of their specs.

A composite value lists its component tensors (`_to_components`, flat) and
its spec rebuilds a value from such a list (`_from_components`). That is all
tf.function, tf.nest(expand_composites=True), map_fn and tf.data need: a spec
is also the value's trace type (is_subtype_of, most_specific_common_supertype,
placeholder_value, to_tensors, cast, describe), so composites need no special
case in the dispatch code.
"""
from tensorlet import types as _types
from tensorlet.tensor_shape import TensorShape

__all__ = ["CompositeTensor", "TypeSpec", "type_spec_from_value"]


class CompositeTensor:
  """Base of values made of several tensors."""

  __slots__ = ()

  @property
  def _type_spec(self):
    raise NotImplementedError

  def _to_components(self):
    """The component tensors, flat."""
    return self._type_spec._to_components(self)

  def _from_components(self, tensors):
    """A value of this one's type from new components (control flow rebuilds loop
    variables and branch outputs this way)."""
    return self._type_spec._from_components(tensors)

  def __tf_tracing_type__(self, context):
    return self._type_spec

  def _map_fn_rows(self):
    """For tf.map_fn over this value: a function of a row index (a scalar tensor)
    giving that row, with any work shared by all rows done once, here."""
    raise TypeError(f"tf.map_fn cannot iterate over the rows of a {type(self).__name__}")

  def __array__(self, dtype=None, copy=None):
    # NOTE: refusing conversion makes dense ops fail early on a composite, so
    # ops/dispatch.py can run the composite implementation instead.
    raise TypeError(f"Failed to convert a {type(self).__name__} to a dense Tensor; use its "
                    f"own ops (e.g. to_tensor() / tf.sparse.to_dense())")


class TypeSpec(_types.TraceType):
  """The type of a composite value; subclasses define `_fields` (the constructor's
  arguments, in order: TensorShapes compare by subtyping, others by equality),
  `_component_specs`, `_to_components`, `_from_components` and `value_type`."""

  __slots__ = ()

  def _fields(self):
    raise NotImplementedError

  # ---------------------------------------------------------- components
  @property
  def _component_specs(self):
    raise NotImplementedError

  def _to_components(self, value):
    raise NotImplementedError

  def _from_components(self, tensors):
    raise NotImplementedError

  # ------------------------------------------------------------- typing
  def __eq__(self, other):
    return type(other) is type(self) and self._fields() == other._fields()

  def __ne__(self, other):
    return not self == other

  def __hash__(self):
    return hash((type(self).__name__,) + tuple(self._fields()))

  def is_subtype_of(self, other):
    if type(other) is not type(self):
      return False
    for a, b in zip(self._fields(), other._fields()):
      if isinstance(a, TensorShape):
        if not a.is_subtype_of(b):
          return False
      elif a != b:
        return False
    return True

  def most_specific_common_supertype(self, others):
    fields = list(self._fields())
    for o in others:
      if type(o) is not type(self):
        return None
      for i, (a, b) in enumerate(zip(fields, o._fields())):
        if isinstance(a, TensorShape):
          fields[i] = a.most_specific_compatible_shape(b)
        elif a != b:
          return None
    return type(self)(*fields)

  def is_compatible_with(self, spec_or_value):
    other = spec_or_value if isinstance(spec_or_value, TypeSpec) else \
        getattr(spec_or_value, "_type_spec", None)
    if type(other) is not type(self):
      return False
    for a, b in zip(self._fields(), other._fields()):
      if isinstance(a, TensorShape):
        if not a.is_compatible_with(b):
          return False
      elif a != b:
        return False
    return True

  # ------------------------------------------- the tf.function protocol
  def placeholder_value(self, placeholder_context=None):
    c = placeholder_context
    phs = [c.graph.placeholder(s, c.name) for s in self._component_specs]
    c.leaves.extend(phs)
    return self._from_components(phs)

  def to_tensors(self, value, out):
    out.extend(self._to_components(value))

  def cast(self, value, where, out):
    spec = getattr(value, "_type_spec", None)
    if spec is None or not spec.is_subtype_of(self):
      raise TypeError(f"Binding inputs to tf.function failed due to `Can not cast {value!r} to "
                      f"{self!r}`. Received value {value!r} for argument '{where.path}' with "
                      f"signature: {where.signature}.")
    out.extend(self._to_components(value))

  def input_spec(self):
    return self

  # ------------------- tf.map_fn results (one value per row, stacked)
  # A spec that map_fn can collect defines `_map_fn_row_spec` (the spec of one row of
  # a value of this spec), `_map_fn_part_dtypes` (the dtypes of the tensors one row is
  # written as), `_map_fn_encode(value, i)` (those tensors for row i) and
  # `_map_fn_decode(tensor_arrays)` (the stacked value).
  def _map_fn_row_spec(self):
    return self

  def _map_fn_part_dtypes(self):
    raise NotImplementedError(f"tf.map_fn results of type {self!r} are not implemented")

  def describe(self):
    return repr(self)

  def diff(self, other, path):
    return [] if self == other else [(path, self.describe(), other.describe())]


class TensorLikeSpec(TypeSpec):
  """A TypeSpec of a value that has a (dense) shape and a dtype, as sparse and
  ragged tensors do."""

  __slots__ = ("_shape", "_dtype")

  @classmethod
  def from_value(cls, value):
    return value._type_spec

  @property
  def shape(self):
    return self._shape

  @property
  def dtype(self):
    return self._dtype


def type_spec_from_value(value):
  """tf.type_spec_from_value: a composite's spec, or the TensorSpec of a tensor (or of
  what converts to one)."""
  if isinstance(value, CompositeTensor):
    return value._type_spec
  from tensorlet.tensor import convert_to_tensor
  from tensorlet.tensor_spec import TensorSpec
  try:
    t = convert_to_tensor(value)
  except (TypeError, ValueError):
    raise TypeError(f"Could not build a TypeSpec for {value!r} of unsupported type "
                    f"{type(value)}.") from None
  return TensorSpec(t.shape, t.dtype)
