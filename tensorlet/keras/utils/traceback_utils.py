"""Keras 2's per-layer error context: an exception raised by a layer's `call`
is raised again, of the same type, with the layer's name and class and a
summary of the call arguments around the original message.

Only the innermost failing layer adds its context (the new exception is marked
`_keras_call_info_injected`; outer layers pass it on as it is). An exception
whose type cannot be built from one message becomes a RuntimeError, as in
tf_keras. In a graph, a user layer's `call` runs through AutoGraph, and the
original message is then TF's "in user code:" block of the frames under `call`.
"""
import inspect

from tensorlet import _nest as nest
from tensorlet.context import ctx
from tensorlet.errors import OpError
from tensorlet.tensor import Tensor

__all__ = ["with_call_info"]


def _format_value(value):
  if isinstance(value, Tensor):
    return f"tf.Tensor(shape={value.shape}, dtype={value.dtype.name})"
  return repr(value)


def _arguments(fn, args, kwargs):
  """The "  • name=value" lines of the call; None when `fn` cannot take them."""
  try:
    signature = inspect.signature(fn)
    bound = signature.bind(*args, **kwargs)
  except (TypeError, ValueError):
    return None
  lines = []
  for p in signature.parameters.values():
    if p.name in bound.arguments:
      value = nest.map_structure(_format_value, bound.arguments[p.name])
    else:
      value = p.default  # NOTE: as tf_keras: an unbound *args shows inspect's `_empty`
    lines.append(f"  • {p.name}={value}")
  return "\n".join(lines)


def _message(e, in_graph):
  if in_graph and not getattr(e, "_tl_user_code", False):
    from tensorlet.polymorphic_function import user_code
    block = user_code.user_block(e)
    if block is not None:
      return block
  if isinstance(e, OpError):
    return e.message
  return e.args[0] if e.args else ""


def with_call_info(layer, e, args, kwargs, in_graph=False):
  """The exception to raise for `e`, raised by `layer.call(*args, **kwargs)`: `e`
  itself when an inner layer already added its context or the arguments do not
  bind, else a new one of its type (RuntimeError where the type cannot be built
  from a message). `in_graph`: the call ran through AutoGraph."""
  if hasattr(e, "_keras_call_info_injected"):
    return e
  arguments = _arguments(layer.call, args, kwargs)
  if not arguments:
    return e
  quote = '"' if getattr(ctx.graph, "_tl_keras_layer", None) is layer else "'"
  name = f"layer {quote}{layer.name}{quote} (type {type(layer).__name__})"
  message = (f"Exception encountered when calling {name}.\n\n{_message(e, in_graph)}\n\n"
             f"Call arguments received by {name}:\n{arguments}")
  if isinstance(e, OpError):
    try:
      new = type(e)(e.node_def, e.op, message)
    except TypeError:
      new = RuntimeError(message)
    else:
      new.error_code = e.error_code
  else:
    try:
      new = type(e)(message)
    except TypeError:
      new = RuntimeError(message)
  new._keras_call_info_injected = True
  return new
