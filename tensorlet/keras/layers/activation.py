"""Activation layers: Softmax, ReLU, LeakyReLU, PReLU, ELU, ThresholdedReLU."""
import numpy as np

from tensorlet.keras import activations, constraints, initializers, regularizers
from tensorlet.keras.engine.base_layer import InputSpec, Layer
from tensorlet.keras.layers.core import _config
from tensorlet.ops import math_ops as _m
from tensorlet.ops import nn_ops as _nn
from tensorlet.tensor_shape import TensorShape

__all__ = ["Softmax", "ReLU", "LeakyReLU", "PReLU", "ELU", "ThresholdedReLU"]


def _floatx(v):
  """A float as Keras 2 stores it (cast to float32 first: 0.3 -> 0.30000001192092896)."""
  return float(np.float32(v))


class _Elementwise(Layer):
  """Shape-preserving, mask-preserving activation layers."""

  def __init__(self, **kwargs):
    super().__init__(**kwargs)
    self.supports_masking = True

  def compute_output_shape(self, input_shape):
    return TensorShape(input_shape)


class Softmax(_Elementwise):
  """Softmax over `axis` (an int or a tuple of axes); masked-out positions (mask False)
  get probability 0."""

  def __init__(self, axis=-1, **kwargs):
    super().__init__(**kwargs)
    self.axis = axis

  def call(self, inputs, mask=None):
    if mask is not None:
      # Keras 2 adds a large negative number where the mask is False.
      big = -65500.0 if inputs.dtype.name == "float16" else -1e9
      inputs = inputs + (1.0 - _m.cast(mask, inputs.dtype)) * big
    if isinstance(self.axis, (tuple, list)):
      if len(self.axis) > 1:
        return _m.exp(inputs - _m.reduce_logsumexp(inputs, axis=list(self.axis),
                                                   keepdims=True))
      return activations.softmax(inputs, axis=self.axis[0])
    return activations.softmax(inputs, axis=self.axis)

  def get_config(self):
    config = super().get_config()
    config["axis"] = self.axis
    return config


class ReLU(_Elementwise):
  """`max_value` caps the output; below `threshold` the output is
  `negative_slope * (x - threshold)`."""

  def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
    super().__init__(**kwargs)
    if max_value is not None and max_value < 0.0:
      raise ValueError(f"max_value of a ReLU layer cannot be a negative value. Received: "
                       f"{max_value}")
    if negative_slope is None or negative_slope < 0.0:
      raise ValueError(f"negative_slope of a ReLU layer cannot be a negative value. "
                       f"Received: {negative_slope}")
    if threshold is None or threshold < 0.0:
      raise ValueError(f"threshold of a ReLU layer cannot be a negative value. Received: "
                       f"{threshold}")
    self.max_value = max_value
    self.negative_slope = _floatx(negative_slope)
    self.threshold = _floatx(threshold)

  def call(self, inputs):
    return activations.relu(inputs, alpha=self.negative_slope, max_value=self.max_value,
                            threshold=self.threshold)

  def get_config(self):
    config = super().get_config()
    config.update({"max_value": self.max_value, "negative_slope": self.negative_slope,
                   "threshold": self.threshold})
    return config


class LeakyReLU(_Elementwise):
  """`x` for x >= 0, `alpha * x` below."""

  def __init__(self, alpha=0.3, **kwargs):
    super().__init__(**kwargs)
    if alpha is None:
      raise ValueError(f"The alpha value of a Leaky ReLU layer cannot be None, Expecting a "
                       f"float. Received: {alpha}")
    self.alpha = _floatx(alpha)

  def call(self, inputs):
    return _nn.leaky_relu(inputs, alpha=self.alpha)

  def get_config(self):
    config = super().get_config()
    config["alpha"] = self.alpha
    return config


class ELU(_Elementwise):
  """`x` for x > 0, `alpha * (exp(x) - 1)` below."""

  def __init__(self, alpha=1.0, **kwargs):
    super().__init__(**kwargs)
    if alpha is None:
      raise ValueError(f"Alpha of an ELU layer cannot be None, expecting a float. Received: "
                       f"{alpha}")
    self.alpha = _floatx(alpha)

  def call(self, inputs):
    return activations.elu(inputs, alpha=self.alpha)

  def get_config(self):
    config = super().get_config()
    config["alpha"] = self.alpha
    return config


class ThresholdedReLU(_Elementwise):
  """`x` where x > theta, 0 elsewhere."""

  def __init__(self, theta=1.0, **kwargs):
    super().__init__(**kwargs)
    if theta is None:
      raise ValueError(f"Theta of a Thresholded ReLU layer cannot be None, expecting a float. "
                       f"Received: {theta}")
    if theta < 0:
      raise ValueError(f"The theta value of a Thresholded ReLU layer should be >=0. "
                       f"Received: {theta}")
    self.theta = _floatx(theta)

  def call(self, inputs):
    return inputs * _m.cast(_m.greater(inputs, self.theta), inputs.dtype)

  def get_config(self):
    config = super().get_config()
    config["theta"] = self.theta
    return config


class PReLU(_Elementwise):
  """Leaky ReLU with a learned slope `alpha` per element (shared over `shared_axes`)."""

  def __init__(self, alpha_initializer="zeros", alpha_regularizer=None, alpha_constraint=None,
               shared_axes=None, **kwargs):
    super().__init__(**kwargs)
    self.alpha_initializer = initializers.get(alpha_initializer)
    self.alpha_regularizer = regularizers.get(alpha_regularizer)
    self.alpha_constraint = constraints.get(alpha_constraint)
    if shared_axes is None:
      self.shared_axes = None
    elif isinstance(shared_axes, (list, tuple)):
      self.shared_axes = list(shared_axes)
    else:
      self.shared_axes = [shared_axes]

  def build(self, input_shape):
    dims = TensorShape(input_shape).as_list()
    param_shape = list(dims[1:])
    for i in self.shared_axes or ():
      param_shape[i - 1] = 1
    if None in param_shape:
      raise ValueError(f"The non-shared axes of the inputs of a PReLU layer must be defined. "
                       f"Received: input_shape={tuple(dims)}, shared_axes={self.shared_axes}")
    self.alpha = self.add_weight("alpha", shape=param_shape,
                                 initializer=self.alpha_initializer,
                                 regularizer=self.alpha_regularizer,
                                 constraint=self.alpha_constraint)
    axes = {i: d for i, d in enumerate(dims) if i and param_shape[i - 1] != 1}
    self.input_spec = InputSpec(ndim=len(dims), axes=axes)
    self.built = True

  def call(self, inputs):
    return _nn.relu(inputs) - self.alpha * _nn.relu(-inputs)

  def get_config(self):
    config = super().get_config()
    config.update({"alpha_initializer": _config(self.alpha_initializer),
                   "alpha_regularizer": _config(self.alpha_regularizer),
                   "alpha_constraint": _config(self.alpha_constraint),
                   "shared_axes": self.shared_axes})
    return config
