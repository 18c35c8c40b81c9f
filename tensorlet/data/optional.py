"""tf.experimental.Optional: a value that may be absent, and its spec.

An Optional is one `variant` tensor holding an `OptionalValue` (None or the
flat components), like a dataset; OptionalSpec is its trace type, so
Optionals pass into and out of tf.function and through dataset elements
as one component. Ops: OptionalFromValue, OptionalNone, OptionalHasValue,
OptionalGetValue (InvalidArgumentError when empty) and
IteratorGetNextAsOptional.
"""
from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.data import ops as data_ops
from tensorlet.data import structure
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops.registry import execute, op
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor_spec import TensorSpec
from tensorlet.types import TraceType

__all__ = ["Optional", "OptionalSpec", "get_next_as_optional"]


class OptionalValue:
  """The run-time value: `flat` is None (empty) or a list of component values."""

  __slots__ = ("flat",)

  def __init__(self, flat):
    self.flat = flat


def _variant(inputs, attrs):
  return [(TensorShape([]), _dt.variant)]


@op("OptionalFromValue", type_inputs=(), stateful=False, differentiable=False, shape=_variant)
def OptionalFromValue(*components):
  return data_ops.Variant(OptionalValue(list(components)))


@op("OptionalNone", type_inputs=(), stateful=False, differentiable=False, shape=_variant)
def OptionalNone():
  return data_ops.Variant(OptionalValue(None))


@op("OptionalHasValue", type_inputs=(), stateful=False, differentiable=False,
    shape=lambda i, a: [(TensorShape([]), _dt.bool)])
def OptionalHasValue(optional):
  import numpy as np
  return np.bool_(optional.value.flat is not None)


@op("OptionalGetValue", type_inputs=(), stateful=False, num_outputs=None,
    differentiable=False, shape=lambda i, a: list(a["out_specs"]))
def OptionalGetValue(optional, *, out_specs):
  flat = optional.value.flat
  if flat is None:
    raise InvalidArgumentError(None, None, "The given optional does not have a value. "
                               "[Op:OptionalGetValue]")
  return tuple(flat)


@op("IteratorGetNextAsOptional", type_inputs=(), stateful=True, differentiable=False,
    shape=_variant)
def IteratorGetNextAsOptional(iterator, *, out_specs):
  return data_ops.Variant(OptionalValue(iterator.value.next_flat()))


def _out_specs(spec):
  return tuple((s.shape, s.dtype) for s in nest.flatten(spec))


class Optional:
  """A value of `element_spec` that may be missing.

  Example:
    >>> o = tf.experimental.Optional.from_value(42)
    >>> bool(o.has_value()), int(o.get_value())
    (True, 42)
  """

  def __init__(self, variant, element_spec):
    self._variant = variant
    self._element_spec = element_spec

  @staticmethod
  def from_value(value):
    """An Optional holding `value` (a tensor or a structure of tensors)."""
    value = structure.normalize(value, "Optional value")
    spec = nest.map_structure(structure.spec_of, value)
    return Optional(execute(OptionalFromValue, structure.flatten(value), {},
                            "OptionalFromValue"), spec)

  @staticmethod
  def empty(element_spec):
    """An Optional with no value, of `element_spec`."""
    return Optional(execute(OptionalNone, [], {}, "OptionalNone"), element_spec)

  @property
  def element_spec(self):
    return self._element_spec

  def has_value(self, name=None):
    """A bool scalar tensor: whether a value is present."""
    return execute(OptionalHasValue, [self._variant], {}, "OptionalHasValue")

  def get_value(self, name=None):
    """The value; InvalidArgumentError (when run) if there is none."""
    outs = execute(OptionalGetValue, [self._variant],
                   {"out_specs": _out_specs(self._element_spec)}, "OptionalGetValue")
    outs = list(outs) if isinstance(outs, tuple) else [outs]
    return structure.pack(self._element_spec, outs)

  @property
  def _type_spec(self):
    return OptionalSpec(self._element_spec)

  def __tf_tracing_type__(self, context):
    return OptionalSpec(self._element_spec)

  def __repr__(self):
    return f"<Optional element_spec={self._element_spec!r}>"


class OptionalSpec(TraceType):
  """The type of an Optional: the spec of its value. Traced as one variant tensor."""

  def __init__(self, element_spec):
    self._element_spec = element_spec

  @property
  def element_spec(self):
    return self._element_spec

  @property
  def value_type(self):
    return Optional

  @staticmethod
  def from_value(value):
    return OptionalSpec(value.element_spec)

  def _key(self):
    from tensorlet.data.dataset import _structure_key
    return _structure_key(self._element_spec)

  def is_subtype_of(self, other):
    from tensorlet.data.dataset import DatasetSpec
    return type(other) is type(self) and \
        DatasetSpec(self._element_spec).is_subtype_of(DatasetSpec(other._element_spec))

  def most_specific_common_supertype(self, others):
    from tensorlet.data.dataset import DatasetSpec
    if any(type(o) is not type(self) for o in others):
      return None
    common = DatasetSpec(self._element_spec).most_specific_common_supertype(
        [DatasetSpec(o._element_spec) for o in others])
    return None if common is None else OptionalSpec(common.element_spec)

  # The composite protocol (a dataset element slot, tf.nest expand_composites).
  @property
  def _component_specs(self):
    return [TensorSpec([], _dt.variant)]

  def _to_components(self, value):
    return [value._variant]

  def _from_components(self, tensors):
    return Optional(list(tensors)[0], self._element_spec)

  def flatten(self):
    return [TensorSpec([], _dt.variant)]

  def to_tensors(self, value):
    return [value._variant]

  def from_tensors(self, tensors):
    return Optional(next(iter(tensors)), self._element_spec)

  def placeholder_value(self, placeholder_context=None):
    raise NotImplementedError("An Optional argument enters the graph through from_tensors")

  def __eq__(self, other):
    return type(other) is type(self) and self._key() == other._key()

  def __hash__(self):
    return hash(("OptionalSpec", self._key()))

  def __repr__(self):
    return f"OptionalSpec({self._element_spec!r})"


def get_next_as_optional(iterator):
  """The iterator's next element as an Optional (empty at the end)."""
  spec = iterator.element_spec
  v = execute(IteratorGetNextAsOptional, [iterator._variant_tensor()],
              {"out_specs": _out_specs(spec)}, "IteratorGetNextAsOptional")
  return Optional(v, spec)
