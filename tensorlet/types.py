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


class _LateNamespace(type):
  # tf.types.experimental re-exports classes of the function layer above: bound on first
  # access, so `import tensorlet` need not load tf.function's modules.
  def __getattr__(cls, name):
    if name in ("ConcreteFunction", "FunctionType"):
      from tensorlet.polymorphic_function import concrete
      return getattr(concrete, name)
    if name in ("PolymorphicFunction", "GenericFunction"):
      from tensorlet.polymorphic_function.polymorphic import Function
      return Function
    raise AttributeError(f"module 'tf.types.experimental' has no attribute '{name}'")


class experimental(metaclass=_LateNamespace):  # noqa: N801 - TF's namespace
  TraceType = TraceType


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.types", __name__)
