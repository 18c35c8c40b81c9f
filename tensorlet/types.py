"""tf.types: base classes users subclass (the tracing protocol's TraceType)."""


class TraceType:
  """Base of custom trace types returned by `__tf_tracing_type__`.

  Subclasses implement is_subtype_of, most_specific_common_supertype,
  placeholder_value, __eq__ and __hash__ (see tf.function's tracing rules).
  """

  def is_subtype_of(self, other):
    raise NotImplementedError

  def most_specific_common_supertype(self, others):
    raise NotImplementedError

  def placeholder_value(self, placeholder_context=None):
    raise NotImplementedError

  def __eq__(self, other):
    raise NotImplementedError

  def __hash__(self):
    raise NotImplementedError


class experimental:  # noqa: N801 - TF's namespace
  TraceType = TraceType


def _late():
  # late-bound: tf.types.experimental re-exports classes of the function layer above
  from tensorlet.polymorphic_function.concrete import ConcreteFunction, FunctionType
  from tensorlet.polymorphic_function.polymorphic import Function
  experimental.ConcreteFunction = ConcreteFunction
  experimental.FunctionType = FunctionType
  experimental.PolymorphicFunction = Function
  experimental.GenericFunction = Function


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.types", __name__)
