"""Masking: marks time steps whose features all equal `mask_value` as padding."""
from tensorlet.keras.engine.base_layer import Layer
from tensorlet.ops import math_ops as _m
from tensorlet.tensor_shape import TensorShape

__all__ = ["Masking"]


class Masking(Layer):
  """Zeroes the steps whose features all equal `mask_value` and gives the mask
  `any(inputs != mask_value, axis=-1)` to the layers downstream."""

  def __init__(self, mask_value=0.0, **kwargs):
    super().__init__(**kwargs)
    self.supports_masking = True
    self.mask_value = mask_value

  def compute_mask(self, inputs, mask=None):
    return _m.reduce_any(_m.not_equal(inputs, self.mask_value), axis=-1)

  def call(self, inputs):
    keep = _m.reduce_any(_m.not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
    return inputs * _m.cast(keep, inputs.dtype)

  def compute_output_shape(self, input_shape):
    return TensorShape(input_shape)

  def get_config(self):
    config = super().get_config()
    config["mask_value"] = self.mask_value
    return config


