"""tf.keras.initializers: callables `init(shape, dtype)` returning a tensor.

Variance-scaling formulas are Keras' (fans from the last two dims times the
receptive field; truncated normal stddev divided by 0.8796...).

Seeds follow Keras 2: a seeded initializer draws from stateless ops keyed by
[seed, 0], so every call returns the same values whatever the global seed.
An unseeded one draws from the op-seeded stream, which `tf.random.set_seed`
replays (Keras 2 picks a Python-random seed instead).
"""
import math

from tensorlet import dtypes as _dt
from tensorlet.keras import backend
from tensorlet.keras.utils.serialization import deserialize_object, get_object, serialize_object
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


def _float_dtype(dtype):
  """The dtype, which must be floating (Keras rejects others with ValueError)."""
  dtype = _dtype(dtype)
  if not dtype.is_floating:
    raise ValueError(f"Expected floating point type, got {dtype}.")
  return dtype


def _numeric_dtype(dtype):
  dtype = _dtype(dtype)
  if not (dtype.is_floating or dtype.is_integer or dtype.is_complex or dtype == _dt.bool):
    raise ValueError(f"Expected numeric or boolean dtype, got {dtype}.")
  return dtype


def _uniform(shape, minval, maxval, dtype, seed):
  if seed is None:
    return _r.uniform(shape, minval, maxval, dtype)
  return _r.stateless_uniform(shape, [int(seed), 0], minval, maxval, dtype)


def _normal(shape, mean, stddev, dtype, seed):
  if seed is None:
    return _r.normal(shape, mean, stddev, dtype)
  return _r.stateless_normal(shape, [int(seed), 0], mean, stddev, dtype)


def _truncated_normal(shape, mean, stddev, dtype, seed):
  if seed is None:
    return _r.truncated_normal(shape, mean, stddev, dtype)
  return _r.stateless_truncated_normal(shape, [int(seed), 0], mean, stddev, dtype)


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
    return _a.zeros(shape, _numeric_dtype(dtype))


class Ones(Initializer):
  def __call__(self, shape, dtype=None, **kwargs):
    return _a.ones(shape, _numeric_dtype(dtype))


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
    dtype = _dtype(dtype)
    if not (dtype.is_floating or dtype.is_integer):
      raise ValueError(f"Expected float or integer dtype, got {dtype}.")
    return _uniform(shape, self.minval, self.maxval, dtype, self.seed)

  def get_config(self):
    return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


class RandomNormal(Initializer):
  def __init__(self, mean=0.0, stddev=0.05, seed=None):
    self.mean, self.stddev, self.seed = mean, stddev, seed

  def __call__(self, shape, dtype=None, **kwargs):
    return _normal(shape, self.mean, self.stddev, _float_dtype(dtype), self.seed)

  def get_config(self):
    return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class TruncatedNormal(RandomNormal):
  def __call__(self, shape, dtype=None, **kwargs):
    return _truncated_normal(shape, self.mean, self.stddev, _float_dtype(dtype), self.seed)


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
      raise ValueError(f"Invalid `mode` argument: {mode}. Please use one of the "
                       f"{{'fan_avg', 'fan_in', 'fan_out'}}.")
    distribution = distribution.lower()
    if distribution == "normal":
      distribution = "truncated_normal"
    if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
      raise ValueError(f"Invalid `distribution` argument: {distribution}.Allowed "
                       f"distributions: {{'untruncated_normal', 'uniform', 'truncated_normal'}}.")
    self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

  def __call__(self, shape, dtype=None, **kwargs):
    fan_in, fan_out = _compute_fans(shape)
    n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
    scale = self.scale / max(1.0, n)
    dtype = _float_dtype(dtype)
    if self.distribution == "truncated_normal":
      # 0.8796... is the stddev of a unit normal truncated to [-2, 2].
      stddev = math.sqrt(scale) / 0.87962566103423978
      return _truncated_normal(shape, 0.0, stddev, dtype, self.seed)
    if self.distribution == "untruncated_normal":
      return _normal(shape, 0.0, math.sqrt(scale), dtype, self.seed)
    limit = math.sqrt(3.0 * scale)
    return _uniform(shape, -limit, limit, dtype, self.seed)

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
    dtype = _float_dtype(dtype)
    if len(shape) != 2:
      raise ValueError(f"Identity matrix initializer can only be used for 2D matrices. "
                       f"Received: shape={shape} of rank {len(shape)}.")
    return _a.eye(shape[0], shape[1], dtype=dtype) * self.gain

  def get_config(self):
    return {"gain": self.gain}


class Orthogonal(Initializer):
  def __init__(self, gain=1.0, seed=None):
    self.gain, self.seed = gain, seed

  def __call__(self, shape, dtype=None, **kwargs):
    dtype = _float_dtype(dtype)
    if len(shape) < 2:
      raise ValueError(f"The tensor to initialize must be at least two-dimensional. "
                       f"Received: shape={shape} of rank {len(shape)}.")
    rows = math.prod(shape[:-1])
    cols = shape[-1]
    flat = (max(rows, cols), min(rows, cols))
    # The QR kernel has no half-precision variant: factor in float32, then cast.
    work = _dt.float32 if dtype == _dt.float16 else dtype
    a = _normal(flat, 0.0, 1.0, work, self.seed)
    q, r = _ld.qr(a)
    q = q * _m.sign(_la.diag_part(r))
    if rows < cols:
      q = _a.transpose(q)
    return _m.cast(_a.reshape(q, shape) * self.gain, dtype)

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
_BY_NAME = dict(_ALIASES, **{c.__name__: c for c in set(_ALIASES.values())})


def get(identifier):
  """An initializer from a name ('glorot_uniform'), a config dict, a class or a callable."""
  return get_object(identifier, deserialize, "initializer", classes_are_instantiated=True)


def serialize(initializer):
  return serialize_object(initializer)


def deserialize(config, custom_objects=None):
  """An initializer from `serialize`'s dict or from a name."""
  return deserialize_object(config, custom_objects, _BY_NAME, {}, "initializer")


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.keras.initializers", __name__)
