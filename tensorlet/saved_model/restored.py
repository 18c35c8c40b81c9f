"""What tf.saved_model.load returns: plain trackable objects holding restored
variables, functions that dispatch a call to one of their saved traces, and
signature functions (keyword arguments in, a dict of named tensors out)."""
from tensorlet import _nest as nest
from tensorlet.errors import InvalidArgumentError
from tensorlet.polymorphic_function import trace_type
from tensorlet.module import Module
from tensorlet.tensor import Tensor

__all__ = ["RestoredObject", "RestoredFunction", "SignatureFunction",
           "NoMatchingFunctionError"]


class NoMatchingFunctionError(TypeError, ValueError):
  """Arguments that fit no saved trace. TF 2.21 raises TypeError ("Binding inputs to
  tf.function failed"), earlier versions ValueError; this is both."""


class RestoredObject(Module):
  """A loaded object: its attributes are the saved children and functions."""

  def __init__(self):
    super().__init__(name="restored")

  def __call__(self, *args, **kwargs):
    # NOTE: Python looks `__call__` up on the class; a saved `__call__` is an attribute.
    fn = self.__dict__.get("__call__")
    if fn is None:
      raise TypeError("The loaded object is not callable: it was saved without a __call__ "
                      "tf.function.")
    return fn(*args, **kwargs)


class RestoredFunction:
  """A loaded tf.function: the saved ConcreteFunctions, called by the first whose
  signature the arguments fit."""

  def __init__(self, name, concrete_functions):
    self.__name__ = name
    self.concrete_functions = list(concrete_functions)

  def _tl_concrete_functions(self):
    return self.concrete_functions

  def __call__(self, *args, **kwargs):
    for cf in self.concrete_functions:
      try:
        leaves = cf._bind(args, dict(kwargs))
      except (TypeError, ValueError, InvalidArgumentError):
        continue
      return cf._call_flat(leaves)
    raise NoMatchingFunctionError(
        f"Could not find matching concrete function to call loaded from the SavedModel. Got "
        f"arguments {_describe(args, kwargs)} for '{self.__name__}', which was saved with "
        f"these signatures:\n" + self._signatures())

  def get_concrete_function(self, *args, **kwargs):
    """The saved trace for these arguments (tensors or TensorSpecs)."""
    if not args and not kwargs and len(self.concrete_functions) == 1:
      return self.concrete_functions[0]
    for cf in self.concrete_functions:
      params = cf._params
      if len(args) > len(params) or set(kwargs) - {n for n, _, _ in params}:
        continue
      # NOTE: a Python argument left out keeps its traced value, as in a call.
      keys = [trace_type.from_value(a) for a in args] + [
          trace_type.from_value(kwargs[n]) if n in kwargs else k
          for n, _, k in params[len(args):]]
      if all(a.is_subtype_of(k) for a, (_, _, k) in zip(keys, params)):
        return cf
    raise ValueError(f"'{self.__name__}' has no saved trace for {_describe(args, kwargs)}; "
                     f"it was saved with:\n" + self._signatures())

  def _signatures(self):
    return "\n".join(f"  {cf.function_type}" for cf in self.concrete_functions) or \
        "  (none: the function was never traced before saving)"

  def __repr__(self):
    return f"<RestoredFunction {self.__name__}>"


def _describe(args, kwargs):
  def one(x):
    if isinstance(x, Tensor):
      return f"TensorSpec(shape={x.shape}, dtype=tf.{x.dtype.name})"
    return repr(x)
  parts = [one(a) for a in args] + [f"{k}={one(v)}" for k, v in kwargs.items()]
  return "(" + ", ".join(parts) + ")"


class SignatureFunction:
  """A serving signature: call with keyword arguments; returns {name: tensor}."""

  def __init__(self, name, cf):
    self.name = name
    self._tl_signature_of = cf

  @property
  def structured_input_signature(self):
    cf = self._tl_signature_of
    args, kwargs = cf.structured_input_signature
    return (), {**{n: s for (n, _, _), s in zip(cf._params, args)}, **kwargs}

  @property
  def structured_outputs(self):
    return _named(self._tl_signature_of.structured_outputs)

  def __call__(self, *args, **kwargs):
    cf = self._tl_signature_of
    if args:
      names = ", ".join(n for n, _, _ in cf._params)
      raise TypeError(f"The signature '{self.name}' takes keyword arguments only ({names}); "
                      f"got {len(args)} positional argument(s).")
    return _named(cf(**kwargs))

  def __repr__(self):
    return f"<SignatureFunction {self.name}>"


def _named(out):
  """Signature outputs by name: a dict stays as is, anything else is output_0, output_1..."""
  if isinstance(out, dict):
    return dict(out)
  return {f"output_{i}": t for i, t in enumerate(nest.flatten(out))}
