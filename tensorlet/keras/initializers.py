"""tf.keras.initializers: callables `init(shape, dtype)` returning a tensor.

Variance-scaling formulas are Keras' (fans from the last two dims times the
receptive field; truncated normal stddev divided by 0.8796...).
"""
import math

from tensorlet import dtypes as _dt
from tensorlet.keras import backend
from tensorlet.ops import array_ops as _a
from tensorlet.ops import linalg_decomp_ops as _ld
from tensorlet.ops import linalg_ops as _la
from tensorlet.ops import math_ops as _m
from tensorlet.ops import random_ops as _r
from tensorlet.tensor import constant

__all__ = ["Initializer", "Zeros", "Ones", "Constant", "RandomUniform", "RandomNormal",
           "TruncatedNormal", "VarianceScaling", "GlorotUniform", "GlorotNormal", "HeUniform",
           "HeNormal", "LecunUniform", "LecunNormal", "Identity", "Orthogonal", "get",
           "serialize", "deserialize"]


def _dtype(dtype):
  return _dt.as_dtype(dtype or backend.floatx())


class Initializer:
  """Base class: subclasses implement `__call__(shape, dtype=None)`."""

  def __call__(self, shape, dtype=None, **kwargs):
    raise NotImplementedError

  def get_config(self):
    return {}

  @classmethod
  def from_config(cls, config):
    return cls(**config)


class Zeros(Initializer):
  def __call__(self, shape, dtype=None, **kwargs):
    return _a.zeros(shape, _dtype(dtype))


class Ones(Initializer):
  def __call__(self, shape, dtype=None, **kwargs):
    return _a.ones(shape, _dtype(dtype))


class Constant(Initializer):
  def __init__(self, value=0):
    self.value = value

  def __call__(self, shape, dtype=None, **kwargs):
    return constant(self.value, _dtype(dtype), shape)

  def get_config(self):
    return {"value": self.value}


class RandomUniform(Initializer):
  def __init__(self, minval=-0.05, maxval=0.05, seed=None):
    self.minval, self.maxval, self.seed = minval, maxval, seed

  def __call__(self, shape, dtype=None, **kwargs):
    return _r.uniform(shape, self.minval, self.maxval, _dtype(dtype), seed=self.seed)

  def get_config(self):
    return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


class RandomNormal(Initializer):
  def __init__(self, mean=0.0, stddev=0.05, seed=None):
    self.mean, self.stddev, self.seed = mean, stddev, seed

  def __call__(self, shape, dtype=None, **kwargs):
    return _r.normal(shape, self.mean, self.stddev, _dtype(dtype), seed=self.seed)

  def get_config(self):
    return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class TruncatedNormal(RandomNormal):
  def __call__(self, shape, dtype=None, **kwargs):
    return _r.truncated_normal(shape, self.mean, self.stddev, _dtype(dtype), seed=self.seed)


def _compute_fans(shape):
  shape = [int(d) for d in shape]
  if len(shape) < 1:
    return 1, 1
  if len(shape) == 1:
    return shape[0], shape[0]
  if len(shape) == 2:
    return shape[0], shape[1]
  receptive = math.prod(shape[:-2])
  return shape[-2] * receptive, shape[-1] * receptive


class VarianceScaling(Initializer):
  """Samples with variance `scale / n`, n = fan_in, fan_out or their mean."""

  def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
    if scale <= 0.0:
      raise ValueError(f"`scale` must be positive float. Received: scale={scale}.")
    if mode not in ("fan_in", "fan_out", "fan_avg"):
      raise ValueError(f"Invalid `mode` argument: {mode}")
    distribution = distribution.lower()
    if distribution == "normal":
      distribution = "truncated_normal"
    if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
      raise ValueError(f"Invalid `distribution` argument: {distribution}")
    self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

  def __call__(self, shape, dtype=None, **kwargs):
    fan_in, fan_out = _compute_fans(shape)
    n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
    scale = self.scale / max(1.0, n)
    dtype = _dtype(dtype)
    if self.distribution == "truncated_normal":
      stddev = math.sqrt(scale) / 0.87962566103423978
      return _r.truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
    if self.distribution == "untruncated_normal":
      return _r.normal(shape, 0.0, math.sqrt(scale), dtype, seed=self.seed)
    limit = math.sqrt(3.0 * scale)
    return _r.uniform(shape, -limit, limit, dtype, seed=self.seed)

  def get_config(self):
    return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
            "seed": self.seed}


def _scaling(name, scale, mode, distribution):
  def __init__(self, seed=None):
    VarianceScaling.__init__(self, scale, mode, distribution, seed)

  def get_config(self):
    return {"seed": self.seed}
  return type(name, (VarianceScaling,), {"__init__": __init__, "get_config": get_config,
                                         "__doc__": f"VarianceScaling({scale}, '{mode}', "
                                                    f"'{distribution}')."})


GlorotUniform = _scaling("GlorotUniform", 1.0, "fan_avg", "uniform")
GlorotNormal = _scaling("GlorotNormal", 1.0, "fan_avg", "truncated_normal")
HeUniform = _scaling("HeUniform", 2.0, "fan_in", "uniform")
HeNormal = _scaling("HeNormal", 2.0, "fan_in", "truncated_normal")
LecunUniform = _scaling("LecunUniform", 1.0, "fan_in", "uniform")
LecunNormal = _scaling("LecunNormal", 1.0, "fan_in", "truncated_normal")


class Identity(Initializer):
  def __init__(self, gain=1.0):
    self.gain = gain

  def __call__(self, shape, dtype=None, **kwargs):
    if len(shape) != 2:
      raise ValueError(f"Identity matrix initializer can only be used for 2D matrices. "
                       f"Received: shape={shape} of rank {len(shape)}.")
    return _a.eye(shape[0], shape[1], dtype=_dtype(dtype)) * self.gain

  def get_config(self):
    return {"gain": self.gain}


class Orthogonal(Initializer):
  def __init__(self, gain=1.0, seed=None):
    self.gain, self.seed = gain, seed

  def __call__(self, shape, dtype=None, **kwargs):
    if len(shape) < 2:
      raise ValueError(f"The tensor to initialize must be at least two-dimensional. "
                       f"Received: shape={shape} of rank {len(shape)}.")
    rows = math.prod(shape[:-1])
    cols = shape[-1]
    flat = (max(rows, cols), min(rows, cols))
    a = _r.normal(flat, dtype=_dtype(dtype), seed=self.seed)
    q, r = _ld.qr(a)
    q = q * _m.sign(_la.diag_part(r))
    if rows < cols:
      q = _a.transpose(q)
    return _a.reshape(q, shape) * self.gain

  def get_config(self):
    return {"gain": self.gain, "seed": self.seed}


_ALIASES = {"zeros": Zeros, "zero": Zeros, "ones": Ones, "one": Ones, "constant": Constant,
            "uniform": RandomUniform, "random_uniform": RandomUniform,
            "normal": RandomNormal, "random_normal": RandomNormal,
            "truncated_normal": TruncatedNormal, "glorot_uniform": GlorotUniform,
            "glorot_normal": GlorotNormal, "he_uniform": HeUniform, "he_normal": HeNormal,
            "lecun_uniform": LecunUniform, "lecun_normal": LecunNormal,
            "identity": Identity, "orthogonal": Orthogonal,
            "variance_scaling": VarianceScaling}
_CLASSES = {c.__name__: c for c in set(_ALIASES.values())}


def get(identifier):
  """An initializer from a name ('glorot_uniform'), a config dict, or a callable."""
  if identifier is None:
    return None
  if isinstance(identifier, str):
    cls = _ALIASES.get(identifier) or _CLASSES.get(identifier)
    if cls is None:
      raise ValueError(f"Unknown initializer: '{identifier}'. Expected one of "
                       f"{sorted(_ALIASES)}.")
    return cls()
  if isinstance(identifier, dict):
    return deserialize(identifier)
  if callable(identifier):
    return identifier
  raise ValueError(f"Could not interpret initializer identifier: {identifier!r}")


def serialize(initializer):
  return {"class_name": type(initializer).__name__, "config": initializer.get_config()}


def deserialize(config):
  cls = _CLASSES.get(config["class_name"]) or _ALIASES.get(config["class_name"])
  if cls is None:
    raise ValueError(f"Unknown initializer: {config['class_name']}")
  return cls(**config.get("config", {}))
