"""tf.keras.backend: float type, fuzz factor, object names and session state.

Layer names are made unique per snake-cased base name ("dense", "dense_1", ...)
by counters kept here; `clear_session()` resets them, as in Keras.
"""
import re

import numpy as np

__all__ = ["floatx", "set_floatx", "epsilon", "set_epsilon", "image_data_format",
           "set_image_data_format", "clear_session", "get_uid", "unique_object_name",
           "get_value", "set_value", "batch_get_value", "is_keras_tensor", "int_shape"]

_FLOATX = "float32"
_EPSILON = 1e-7
_IMAGE_DATA_FORMAT = "channels_last"
_UIDS = {}


def floatx():
  """The default float type as a string: 'float32'."""
  return _FLOATX


def set_floatx(value):
  global _FLOATX
  if value not in ("float16", "bfloat16", "float32", "float64"):
    raise ValueError(f"Unknown `floatx` value: {value}. Expected one of {{'float16', "
                     f"'bfloat16', 'float32', 'float64'}}")
  _FLOATX = str(value)


def epsilon():
  """The fuzz factor used in numeric expressions: 1e-07."""
  return _EPSILON


def set_epsilon(value):
  global _EPSILON
  _EPSILON = float(value)


def image_data_format():
  return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format):
  global _IMAGE_DATA_FORMAT
  if data_format not in ("channels_last", "channels_first"):
    raise ValueError(f"Unknown data_format: {data_format}")
  _IMAGE_DATA_FORMAT = data_format


def clear_session():
  """Resets the name counters (the next Dense is 'dense' again)."""
  _UIDS.clear()


def get_uid(prefix=""):
  """1, 2, 3, ... for each call with the same prefix."""
  _UIDS[prefix] = _UIDS.get(prefix, 0) + 1
  return _UIDS[prefix]


def unique_object_name(base, zero_based=True):
  """'dense', then 'dense_1', 'dense_2' (zero_based) or 'input_1', 'input_2'."""
  n = get_uid(base)
  if zero_based:
    return base if n == 1 else f"{base}_{n - 1}"
  return f"{base}_{n}"


_FIRST = re.compile(r"(.)([A-Z][a-z0-9]+)")
_SECOND = re.compile(r"([a-z])([A-Z])")


def to_snake_case(name):
  """Keras' snake case: 'Conv2D' -> 'conv2d', 'BatchNormalization' -> 'batch_normalization'."""
  s = _SECOND.sub(r"\1_\2", _FIRST.sub(r"\1_\2", name)).lower()
  return s if s[0] != "_" else "private" + s


def get_value(x):
  """The NumPy value of a variable or tensor."""
  if hasattr(x, "numpy"):
    return x.numpy()
  return np.asarray(x)


def batch_get_value(tensors):
  return [get_value(t) for t in tensors]


def set_value(x, value):
  """Assigns `value` to the variable `x`."""
  x.assign(np.asarray(value, dtype=x.dtype.as_numpy_dtype))


def is_keras_tensor(x):
  from tensorlet.keras.engine.keras_tensor import KerasTensor
  return isinstance(x, KerasTensor)


def int_shape(x):
  """The static shape as a tuple of ints and None."""
  s = x.shape
  return None if s.rank is None else tuple(s.as_list())


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.keras.backend", __name__)
