"""tf.keras.activations: element-wise functions and `get` by name."""
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.ops import nn_ops as _nn
from tensorlet.tensor import convert_to_tensor

__all__ = ["relu", "sigmoid", "tanh", "softmax", "log_softmax", "linear", "elu", "selu",
           "softplus", "softsign", "swish", "silu", "gelu", "exponential", "hard_sigmoid",
           "relu6", "leaky_relu", "mish", "get", "serialize", "deserialize"]


def relu(x, alpha=0.0, max_value=None, threshold=0.0):
  """max(x, 0); with `alpha` a leaky slope below `threshold`, with `max_value` a cap."""
  if alpha == 0 and max_value is None and threshold == 0:
    return _nn.relu(x)
  x = _a.identity(x)
  neg = None
  if alpha != 0:
    neg = _nn.relu(-x + threshold) if threshold != 0 else _nn.relu(-x)
  if threshold != 0:
    y = x * _m.cast(_m.greater(x, threshold), x.dtype)
  else:
    y = _nn.relu(x)
  if max_value is not None:
    # Keras clips to [0, max_value]: with a negative threshold, values in
    # (threshold, 0) pass the threshold but are clipped up to 0.
    y = _m.minimum(_m.maximum(y, _m.cast(0, x.dtype)), _m.cast(max_value, x.dtype))
  if neg is not None:
    y = y - alpha * neg
  return y


def sigmoid(x):
  return _m.sigmoid(x)


def tanh(x):
  return _m.tanh(x)


def softmax(x, axis=-1):
  """Softmax over `axis` (the last by default, or a tuple of axes); Keras 2 rejects 1-D input."""
  x = convert_to_tensor(x)
  rank = x.shape.rank
  if rank is not None and rank <= 1:
    raise ValueError(f"Cannot apply softmax to a tensor that is 1D. Received input: {x}")
  if isinstance(axis, int):
    return _nn.softmax(x, axis=axis)
  e = _m.exp(x - _m.reduce_max(x, axis=axis, keepdims=True))
  return e / _m.reduce_sum(e, axis=axis, keepdims=True)


def log_softmax(x, axis=-1):
  return _nn.log_softmax(x, axis=axis)


def linear(x):
  return x


def elu(x, alpha=1.0):
  if alpha == 1.0:
    return _nn.elu(x)
  return _a.where(_m.greater(x, 0), x, alpha * (_m.exp(x) - 1))


def selu(x):
  return _nn.selu(x)


def softplus(x):
  return _nn.softplus(x)


def softsign(x):
  return _nn.softsign(x)


def swish(x):
  """x * sigmoid(x); Keras 2 serializes it (and its alias `silu`) as 'swish'."""
  return _nn.silu(x)


silu = swish


def gelu(x, approximate=False):
  return _nn.gelu(x, approximate=approximate)


def exponential(x):
  return _m.exp(x)


def hard_sigmoid(x):
  """Keras 2's piecewise linear sigmoid: clip(0.2 * x + 0.5, 0, 1)."""
  return _m.minimum(_m.maximum(x * 0.2 + 0.5, 0.0), 1.0)


def relu6(x):
  return _nn.relu6(x)


def leaky_relu(x, alpha=0.2):
  return _nn.leaky_relu(x, alpha=alpha)


def mish(x):
  """x * tanh(softplus(x))."""
  return x * _m.tanh(_nn.softplus(x))


_BY_NAME = {f.__name__: f for f in (relu, sigmoid, tanh, softmax, log_softmax, linear, elu,
                                    selu, softplus, softsign, swish, gelu, exponential,
                                    hard_sigmoid, relu6, leaky_relu, mish)}
_BY_NAME["silu"] = swish


def get(identifier):
  """The activation for a name, a callable, or None (linear)."""
  if identifier is None:
    return linear
  if isinstance(identifier, str):
    f = _BY_NAME.get(identifier)
    if f is None:
      from tensorlet.keras.saving.object_registration import lookup_table
      f = lookup_table().get(identifier)
    if f is None:
      raise ValueError(f"Unknown activation function: '{identifier}'. Expected one of "
                       f"{sorted(_BY_NAME)}.")
    return f
  if isinstance(identifier, dict):
    return deserialize(identifier)
  if callable(identifier):
    return identifier
  raise TypeError(f"Could not interpret activation function identifier: {identifier!r}")


def serialize(activation):
  """The name of a built-in or other named function (Keras 2's legacy format), or the
  class name and config of an object with `get_config`."""
  cfg = getattr(activation, "get_config", None)
  if cfg is not None:
    return {"class_name": type(activation).__name__, "config": cfg()}
  name = getattr(activation, "__name__", None)
  if name is not None:
    return name
  raise ValueError(f"Cannot serialize activation {activation!r}")


def deserialize(config):
  if isinstance(config, str):
    return get(config)
  name = config.get("class_name") if isinstance(config, dict) else None
  if name in _BY_NAME:
    return _BY_NAME[name]
  if name == "function" and isinstance(config.get("config"), str):
    return get(config["config"])
  raise ValueError(f"Unknown activation: {config!r}")


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.keras.activations", __name__)
