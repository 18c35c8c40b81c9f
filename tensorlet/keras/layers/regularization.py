"""Regularization layers: SpatialDropout1D/2D, GaussianNoise, GaussianDropout,
AlphaDropout, ActivityRegularization. The noise layers act only when training."""
import math

from tensorlet.keras import regularizers
from tensorlet.keras.engine.base_layer import InputSpec, Layer
from tensorlet.keras.layers import _util
from tensorlet.keras.layers._util import smart_cond
from tensorlet.keras.layers.core import Dropout
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.ops import random_ops as _r
from tensorlet.tensor_shape import TensorShape

__all__ = ["SpatialDropout1D", "SpatialDropout2D", "GaussianNoise", "GaussianDropout",
           "AlphaDropout", "ActivityRegularization"]


class SpatialDropout1D(Dropout):
  """Drops whole feature maps: one draw per (example, channel), shared over the steps."""

  def __init__(self, rate, **kwargs):
    super().__init__(rate, **kwargs)
    self.input_spec = InputSpec(ndim=3)

  def _noise(self, inputs):
    s = _a.shape(inputs)
    return _a.stack([s[0], 1, s[2]])


class SpatialDropout2D(Dropout):
  """Drops whole 2-D feature maps: one draw per (example, channel)."""

  def __init__(self, rate, data_format=None, **kwargs):
    super().__init__(rate, **kwargs)
    self.data_format = _util.normalize_data_format(data_format)
    self.input_spec = InputSpec(ndim=4)

  def _noise(self, inputs):
    s = _a.shape(inputs)
    if self.data_format == "channels_first":
      return _a.stack([s[0], s[1], 1, 1])
    return _a.stack([s[0], 1, 1, s[3]])

  def get_config(self):
    config = super().get_config()
    config["data_format"] = self.data_format
    return config


class _Noise(Layer):
  """A layer that changes its inputs only when training."""

  def __init__(self, **kwargs):
    super().__init__(**kwargs)
    self.supports_masking = True

  def call(self, inputs, training=None):
    if training is None or training is False or not self._tl_active():
      return inputs
    return smart_cond(training, lambda: self._noisy(inputs), lambda: _a.identity(inputs))

  def _tl_active(self):
    return True

  def compute_output_shape(self, input_shape):
    return TensorShape(input_shape)


class GaussianNoise(_Noise):
  """Adds zero-mean Gaussian noise of `stddev` when training."""

  def __init__(self, stddev, seed=None, **kwargs):
    super().__init__(**kwargs)
    self.stddev, self.seed = stddev, seed

  def _noisy(self, x):
    return x + _r.normal(_a.shape(x), 0.0, self.stddev, dtype=x.dtype, seed=self.seed)

  def get_config(self):
    config = super().get_config()
    config.update({"stddev": self.stddev, "seed": self.seed})
    return config


class GaussianDropout(_Noise):
  """Multiplies by Gaussian noise of mean 1 and stddev sqrt(rate / (1 - rate)) when
  training (only for 0 < rate < 1)."""

  def __init__(self, rate, seed=None, **kwargs):
    super().__init__(**kwargs)
    self.rate, self.seed = rate, seed

  def _tl_active(self):
    return 0 < self.rate < 1

  def _noisy(self, x):
    std = math.sqrt(self.rate / (1.0 - self.rate))
    return x * _r.normal(_a.shape(x), 1.0, std, dtype=x.dtype, seed=self.seed)

  def get_config(self):
    config = super().get_config()
    config.update({"rate": self.rate, "seed": self.seed})
    return config


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


class AlphaDropout(_Noise):
  """Dropout for SELU networks: dropped units take SELU's negative saturation value and
  an affine correction keeps the mean and variance of the inputs."""

  def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
    super().__init__(**kwargs)
    self.rate, self.noise_shape, self.seed = rate, noise_shape, seed

  def _tl_active(self):
    return 0 < self.rate < 1

  def _noisy(self, x):
    alpha_p = -_SELU_ALPHA * _SELU_SCALE
    shape = _a.shape(x) if self.noise_shape is None else self.noise_shape
    kept = _m.cast(_m.greater_equal(_r.uniform(shape, dtype=x.dtype, seed=self.seed),
                                    self.rate), x.dtype)
    a = ((1 - self.rate) * (1 + self.rate * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * self.rate
    return a * (x * kept + alpha_p * (1 - kept)) + b

  def get_config(self):
    config = super().get_config()
    config.update({"rate": self.rate, "seed": self.seed})
    return config


class ActivityRegularization(Layer):
  """Passes its inputs through and adds `l1 * sum(|x|) + l2 * sum(x**2)` (per example of
  the batch) to the model's losses."""

  def __init__(self, l1=0.0, l2=0.0, **kwargs):
    super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
    self.supports_masking = True
    self.l1, self.l2 = l1, l2

  def compute_output_shape(self, input_shape):
    return TensorShape(input_shape)

  def get_config(self):
    config = super().get_config()
    config.update({"l1": self.l1, "l2": self.l2})
    return config
