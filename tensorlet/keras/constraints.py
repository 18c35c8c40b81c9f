"""tf.keras.constraints: projections applied to a variable after each update."""
from tensorlet.keras import backend
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


def _by_name(name):
  cls = _BY_NAME.get(name)
  if cls is None:
    raise ValueError(f"Unknown constraint: '{name}'")
  return cls


def get(identifier):
  """A constraint from a name ('max_norm'), a config dict, or a callable."""
  if identifier is None:
    return None
  if isinstance(identifier, str):
    return _by_name(identifier)()
  if isinstance(identifier, dict):
    return deserialize(identifier)
  if callable(identifier):
    return identifier
  raise ValueError(f"Could not interpret constraint function identifier: {identifier!r}")


def serialize(constraint):
  return {"class_name": type(constraint).__name__, "config": constraint.get_config()}


def deserialize(config):
  """A constraint from `serialize`'s dict (extra keys such as 'module' are ignored) or
  from a name."""
  if isinstance(config, str):
    return _by_name(config)()
  return _by_name(config["class_name"]).from_config(config.get("config", {}))
