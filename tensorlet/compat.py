"""tf.compat: text/bytes helpers, shape-dimension helpers, forward compatibility.

`tf.compat.v2` is tensorlet itself; `tf.compat.v1` (TF1 sessions, placeholders,
collections) is out of tensorlet's scope and says so on any use.
"""
import datetime as _datetime
import numbers as _numbers
import os as _os
import sys as _sys
import types as _types

import numpy as _np

bytes_or_text_types = (bytes, str)
integral_types = (_numbers.Integral, _np.integer)
real_types = (_numbers.Real, _np.integer, _np.floating)
complex_types = (_numbers.Complex, _np.number)


def as_bytes(bytes_or_text, encoding="utf-8"):
  """bytes unchanged, str encoded (`encoding`); anything else is a TypeError."""
  encoding = _codec_name(encoding)
  if isinstance(bytes_or_text, bytearray):
    return bytes(bytes_or_text)
  if isinstance(bytes_or_text, str):
    return bytes_or_text.encode(encoding)
  if isinstance(bytes_or_text, bytes):
    return bytes_or_text
  raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text, encoding="utf-8"):
  """str unchanged, bytes decoded (`encoding`); anything else is a TypeError."""
  encoding = _codec_name(encoding)
  if isinstance(bytes_or_text, str):
    return bytes_or_text
  if isinstance(bytes_or_text, bytes):
    return bytes_or_text.decode(encoding)
  raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def _codec_name(encoding):
  import codecs
  return codecs.lookup(encoding).name


as_str = as_text


def as_str_any(value, encoding="utf-8"):
  """str of any value (bytes decoded)."""
  if isinstance(value, bytes):
    return as_str(value, encoding)
  return str(value)


def path_to_str(path):
  """A path-like object as its string (other values unchanged)."""
  if isinstance(path, _os.PathLike):
    path = _os.fspath(path)
  return as_str(path) if isinstance(path, bytes) else path


def path_to_bytes(path):
  if isinstance(path, _os.PathLike):
    path = _os.fspath(path)
  return as_bytes(path)


def dimension_value(dimension):
  """The int (or None) of a TensorShape dimension, whatever form it comes in."""
  if dimension is None or isinstance(dimension, int):
    return dimension
  value = getattr(dimension, "value", dimension)
  return None if value is None else int(value)


def dimension_at_index(shape, index):
  """The dimension `index` of `shape` (unknown rank: an unknown dimension)."""
  from tensorlet.tensor_shape import TensorShape
  shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
  if shape.rank is None:
    return None
  return shape[index]


# ------------------------------------------------------ forward compatibility

# TF 2.21's horizon: graphs produced here may use ops consumers built after it know.
_HORIZON = _datetime.date(2026, 1, 16)
_horizon = [_HORIZON]


def forward_compatible(year, month, day):
  """True when the forward-compatibility horizon is past year-month-day."""
  return _horizon[0] > _datetime.date(year, month, day)


class forward_compatibility_horizon:  # noqa: N801 - TF's name
  """Context manager moving the horizon (for tests of both sides of a change)."""

  def __init__(self, year, month, day):
    self._date = _datetime.date(year, month, day)

  def __enter__(self):
    self._old = _horizon[0]
    _horizon[0] = self._date

  def __exit__(self, *exc):
    _horizon[0] = self._old
    return False


# ---------------------------------------------------------------- v1 / v2

class _V1(_types.ModuleType):
  """tf.compat.v1: every attribute raises, naming what is missing."""

  def __getattr__(self, name):
    if name.startswith("__"):
      raise AttributeError(name)
    from tensorlet._unsupported import missing
    raise missing("tf.compat.v1", name)


v1 = _V1("tensorlet.compat.v1")


def __getattr__(name):
  if name == "v2":
    return _sys.modules["tensorlet"]
  from tensorlet._unsupported import missing
  raise missing("tf.compat", name, __name__)
