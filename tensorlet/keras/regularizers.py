"""tf.keras.regularizers: penalties on weights, `reg(weight) -> scalar`.

Penalty factors are stored rounded to floatx, as Keras 2's `cast_to_floatx`
does, so configs read back e.g. 0.009999999776482582 for 0.01.
"""
import math

import numpy as np

from tensorlet.keras import backend
from tensorlet.keras.utils.serialization import deserialize_object, get_object, serialize_object
from tensorlet.ops import math_ops as _m
from tensorlet.tensor import constant

__all__ = ["Regularizer", "L1", "L2", "L1L2", "OrthogonalRegularizer", "l1", "l2", "l1_l2",
           "get", "serialize", "deserialize"]


class Regularizer:
  """Base class: `__call__(x)` returns a scalar penalty."""

  def __call__(self, x):
    return 0.0

  def get_config(self):
    return {}

  @classmethod
  def from_config(cls, config):
    return cls(**config)


def _penalty(x):
  """`x` checked as Keras 2 does (a finite int or float), rounded to floatx."""
  if not isinstance(x, (float, int)):
    raise ValueError(f"Value {x} is not a valid regularization penalty number, expected an int "
                     f"or float value.")
  if math.isinf(x) or math.isnan(x):
    raise ValueError(f"Value {x} is not a valid regularization penalty number, an infinite "
                     f"number or NaN are not valid values.")
  return float(np.asarray(x, dtype=backend.floatx()))


def _no_extra(kwargs):
  if kwargs:
    raise TypeError(f"Argument(s) not recognized: {kwargs}")


class L1L2(Regularizer):
  """l1 * sum(|x|) + l2 * sum(x ** 2)."""

  def __init__(self, l1=0.0, l2=0.0):
    self.l1 = _penalty(0.0 if l1 is None else l1)
    self.l2 = _penalty(0.0 if l2 is None else l2)

  def __call__(self, x):
    # Keras 2 starts from a constant zero, so with both factors 0 the penalty does not
    # depend on x (no gradient) and stays finite whatever x holds.
    total = constant(0.0, dtype=x.dtype)
    if self.l1:
      total = total + self.l1 * _m.reduce_sum(_m.abs(x))
    if self.l2:
      total = total + self.l2 * _m.reduce_sum(_m.square(x))
    return total

  def get_config(self):
    return {"l1": self.l1, "l2": self.l2}


class L1(L1L2):
  def __init__(self, l1=0.01, **kwargs):
    l1 = kwargs.pop("l", l1)  # Keras 2 still accepts the old keyword `l`
    _no_extra(kwargs)
    super().__init__(l1=0.01 if l1 is None else l1)

  def get_config(self):
    return {"l1": self.l1}


class L2(L1L2):
  def __init__(self, l2=0.01, **kwargs):
    l2 = kwargs.pop("l", l2)
    _no_extra(kwargs)
    super().__init__(l2=0.01 if l2 is None else l2)

  def get_config(self):
    return {"l2": self.l2}


class OrthogonalRegularizer(Regularizer):
  """factor * mean(|off-diagonal of normalized rows (or columns) Gram matrix|)."""

  def __init__(self, factor=0.01, mode="rows"):
    if mode not in ("rows", "columns"):
      raise ValueError(f"Invalid value for argument `mode`. Expected one of {{'rows', "
                       f"'columns'}}. Received: mode={mode}")
    self.factor, self.mode = _penalty(factor), mode

  def __call__(self, x):
    from tensorlet.ops import array_ops as _a
    if self.mode == "columns":
      x = _a.transpose(x)
    x = _m.l2_normalize(x, axis=1)
    prod = _m.matmul(x, x, transpose_b=True)
    n = x.shape[0]
    off = _m.abs(prod - _a.eye(n, dtype=x.dtype))
    return self.factor * _m.reduce_sum(off) / (n * (n - 1))

  def get_config(self):
    return {"factor": self.factor, "mode": self.mode}


def l1_l2(l1=0.01, l2=0.01):
  return L1L2(l1=l1, l2=l2)


l1 = L1
l2 = L2
# 'l1_l2' names the function, so get('l1_l2') has both factors 0.01 as in Keras 2.
_BY_NAME = {"l1": L1, "l2": L2, "l1_l2": l1_l2, "L1": L1, "L2": L2, "L1L2": L1L2,
            "OrthogonalRegularizer": OrthogonalRegularizer,
            "orthogonal_regularizer": OrthogonalRegularizer}


def get(identifier):
  return get_object(identifier, deserialize, "regularizer")


def serialize(regularizer):
  return serialize_object(regularizer)


def deserialize(config, custom_objects=None):
  """A regularizer from `serialize`'s dict or from a name."""
  return deserialize_object(config, custom_objects, _BY_NAME, {}, "regularizer")


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.keras.regularizers", __name__)
