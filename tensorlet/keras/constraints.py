"""tf.keras.constraints: projections applied to a variable after each update."""
from tensorlet.keras import backend
from tensorlet.keras.utils.serialization import deserialize_object, get_object, serialize_object
from tensorlet.ops import math_ops as _m

__all__ = ["Constraint", "MaxNorm", "NonNeg", "UnitNorm", "MinMaxNorm", "max_norm", "non_neg",
           "unit_norm", "min_max_norm", "get", "serialize", "deserialize"]


class Constraint:
  def __call__(self, w):
    return w

  def get_config(self):
    return {}

  @classmethod
  def from_config(cls, config):
    return cls(**config)


class MaxNorm(Constraint):
  """Rescales so the norm along `axis` is at most `max_value`."""

  def __init__(self, max_value=2, axis=0):
    self.max_value, self.axis = max_value, axis

  def __call__(self, w):
    norms = _m.sqrt(_m.reduce_sum(_m.square(w), axis=self.axis, keepdims=True))
    desired = _m.minimum(_m.maximum(norms, 0.0), float(self.max_value))
    return w * (desired / (backend.epsilon() + norms))

  def get_config(self):
    return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
  def __call__(self, w):
    return w * _m.cast(_m.greater_equal(w, 0.0), w.dtype)


class UnitNorm(Constraint):
  def __init__(self, axis=0):
    self.axis = axis

  def __call__(self, w):
    return w / (backend.epsilon() + _m.sqrt(_m.reduce_sum(_m.square(w), axis=self.axis,
                                                          keepdims=True)))

  def get_config(self):
    return {"axis": self.axis}


class MinMaxNorm(Constraint):
  def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
    self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

  def __call__(self, w):
    norms = _m.sqrt(_m.reduce_sum(_m.square(w), axis=self.axis, keepdims=True))
    desired = self.rate * _m.minimum(_m.maximum(norms, float(self.min_value)),
                                     float(self.max_value)) + (1 - self.rate) * norms
    return w * (desired / (backend.epsilon() + norms))

  def get_config(self):
    return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
            "axis": self.axis}


max_norm = MaxNorm
non_neg = NonNeg
unit_norm = UnitNorm
min_max_norm = MinMaxNorm
# Keras 2 also keeps the legacy spellings 'maxnorm', 'nonneg' and 'unitnorm'.
_BY_NAME = {"max_norm": MaxNorm, "non_neg": NonNeg, "unit_norm": UnitNorm,
            "min_max_norm": MinMaxNorm, "MaxNorm": MaxNorm, "NonNeg": NonNeg,
            "UnitNorm": UnitNorm, "MinMaxNorm": MinMaxNorm, "maxnorm": MaxNorm,
            "nonneg": NonNeg, "unitnorm": UnitNorm}


def get(identifier):
  """A constraint from a name ('max_norm'), a config dict, or a callable."""
  return get_object(identifier, deserialize, "constraint function")


def serialize(constraint):
  return serialize_object(constraint)


def deserialize(config, custom_objects=None):
  """A constraint from `serialize`'s dict or from a name."""
  return deserialize_object(config, custom_objects, _BY_NAME, {}, "constraint")
