"""Depthwise and separable convolutions: DepthwiseConv2D, SeparableConv1D/2D
(1-D runs as 2-D of height 1, with Keras 2's 1-D weight shapes)."""
from tensorlet.keras import constraints, initializers, regularizers
from tensorlet.keras.engine.base_layer import InputSpec
from tensorlet.keras.layers.convolutional import _Conv, to_channels_last
from tensorlet.keras.layers.core import _config
from tensorlet.ops import array_ops as _a
from tensorlet.ops import conv_ops as _c
from tensorlet.tensor_shape import TensorShape

__all__ = ["DepthwiseConv2D", "SeparableConv1D", "SeparableConv2D", "SeparableConvolution1D",
           "SeparableConvolution2D"]


class _DepthwiseBase(_Conv):
  """Per-channel convolution with `depth_multiplier` outputs per channel, optionally
  followed by a 1x1 `pointwise` convolution to `filters` channels."""

  _tl_pointwise = False

  def __init__(self, filters, kernel_size, strides, padding, data_format, dilation_rate,
               depth_multiplier, activation, use_bias, depthwise_initializer,
               bias_initializer, depthwise_regularizer, bias_regularizer, activity_regularizer,
               depthwise_constraint, bias_constraint, **kwargs):
    super().__init__(filters, kernel_size, strides=strides, padding=padding,
                     data_format=data_format, dilation_rate=dilation_rate,
                     activation=activation, use_bias=use_bias, bias_initializer=bias_initializer,
                     bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                     bias_constraint=bias_constraint, **kwargs)
    self.depth_multiplier = depth_multiplier
    self.depthwise_initializer = initializers.get(depthwise_initializer)
    self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
    self.depthwise_constraint = constraints.get(depthwise_constraint)

  def build(self, input_shape):
    input_shape = TensorShape(input_shape)
    rank = self._tl_rank
    if input_shape.rank != rank + 2:
      raise ValueError(f"Inputs to `{type(self).__name__}` should have rank {rank + 2}. "
                       f"Received input_shape={input_shape}.")
    channels = self._channels(input_shape)
    self.compute_output_shape(input_shape)
    self.input_spec = InputSpec(ndim=rank + 2, axes={self._channel_axis(): channels})
    self.depthwise_kernel = self.add_weight(
        "depthwise_kernel", shape=self.kernel_size + (channels, self.depth_multiplier),
        initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
        constraint=self.depthwise_constraint)
    if self._tl_pointwise:
      self.pointwise_kernel = self.add_weight(
          "pointwise_kernel", shape=(1,) * rank + (channels * self.depth_multiplier,
                                                   self.filters),
          initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
          constraint=self.pointwise_constraint)
    units = self.filters if self._tl_pointwise else channels * self.depth_multiplier
    self.bias = self.add_weight("bias", shape=(units,), initializer=self.bias_initializer,
                                regularizer=self.bias_regularizer,
                                constraint=self.bias_constraint) if self.use_bias else None
    self.built = True

  def call(self, inputs):
    rank = self._tl_rank
    first = self.data_format == "channels_first"
    x = to_channels_last(inputs, rank) if first else inputs
    dk = self.depthwise_kernel
    strides, dil, padding = list(self.strides), list(self.dilation_rate), self.padding
    if padding == "causal":
      left = (self.kernel_size[0] - 1) * self.dilation_rate[0]
      x = _a.pad(x, [[0, 0], [left, 0], [0, 0]])
      padding = "valid"
    if rank == 1:
      x, dk = _a.expand_dims(x, 1), _a.expand_dims(dk, 0)
      strides, dil = [1] + strides, [1] + dil
    out = _c.depthwise_conv2d(x, dk, [1] + strides + [1], padding.upper(), dilations=dil)
    if self._tl_pointwise:
      pk = self.pointwise_kernel
      if rank == 1:
        pk = _a.expand_dims(pk, 0)
      out = _c.conv2d(out, pk, 1, "VALID")
    if rank == 1:
      out = _a.squeeze(out, [1])
    return self._finish(out)

  def compute_output_shape(self, input_shape):
    if not self._tl_pointwise:
      dims = TensorShape(input_shape).as_list()
      c = dims[1] if self.data_format == "channels_first" else dims[-1]
      saved = self.filters
      self.filters = None if c is None else c * self.depth_multiplier
      try:
        return super().compute_output_shape(input_shape)
      finally:
        self.filters = saved
    return super().compute_output_shape(input_shape)

  def get_config(self):
    config = super().get_config()
    if not self._tl_pointwise:
      for k in ("kernel_initializer", "kernel_regularizer", "kernel_constraint"):
        config.pop(k)
    config.update({"depth_multiplier": self.depth_multiplier,
                   "depthwise_initializer": _config(self.depthwise_initializer),
                   "depthwise_regularizer": _config(self.depthwise_regularizer),
                   "depthwise_constraint": _config(self.depthwise_constraint)})
    return config


class DepthwiseConv2D(_DepthwiseBase):
  """Convolves each input channel with its own `depth_multiplier` filters: C * M outputs.
  Weights: depthwise_kernel (kh, kw, C, M), bias (C * M)."""

  _tl_rank = 2

  def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1,
               data_format=None, dilation_rate=(1, 1), activation=None, use_bias=True,
               depthwise_initializer="glorot_uniform", bias_initializer="zeros",
               depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
               depthwise_constraint=None, bias_constraint=None, **kwargs):
    super().__init__(None, kernel_size, strides, padding, data_format, dilation_rate,
                     depth_multiplier, activation, use_bias, depthwise_initializer,
                     bias_initializer, depthwise_regularizer, bias_regularizer,
                     activity_regularizer, depthwise_constraint, bias_constraint, **kwargs)

  def get_config(self):
    config = super().get_config()
    config.pop("filters")
    return config


class _Separable(_DepthwiseBase):
  _tl_pointwise = True

  def __init__(self, filters, kernel_size, strides, padding, data_format, dilation_rate,
               depth_multiplier, activation, use_bias, depthwise_initializer,
               pointwise_initializer, bias_initializer, depthwise_regularizer,
               pointwise_regularizer, bias_regularizer, activity_regularizer,
               depthwise_constraint, pointwise_constraint, bias_constraint, **kwargs):
    super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                     depth_multiplier, activation, use_bias, depthwise_initializer,
                     bias_initializer, depthwise_regularizer, bias_regularizer,
                     activity_regularizer, depthwise_constraint, bias_constraint, **kwargs)
    self.pointwise_initializer = initializers.get(pointwise_initializer)
    self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
    self.pointwise_constraint = constraints.get(pointwise_constraint)

  def get_config(self):
    config = super().get_config()
    config.update({"pointwise_initializer": _config(self.pointwise_initializer),
                   "pointwise_regularizer": _config(self.pointwise_regularizer),
                   "pointwise_constraint": _config(self.pointwise_constraint)})
    return config


def _separable_init(rank_default):
  strides, dil = (1,) * rank_default, (1,) * rank_default
  if rank_default == 1:
    strides, dil = 1, 1

  def __init__(self, filters, kernel_size, strides=strides, padding="valid", data_format=None,
               dilation_rate=dil, depth_multiplier=1, activation=None, use_bias=True,
               depthwise_initializer="glorot_uniform", pointwise_initializer="glorot_uniform",
               bias_initializer="zeros", depthwise_regularizer=None, pointwise_regularizer=None,
               bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
               pointwise_constraint=None, bias_constraint=None, **kwargs):
    _Separable.__init__(self, filters, kernel_size, strides, padding, data_format,
                        dilation_rate, depth_multiplier, activation, use_bias,
                        depthwise_initializer, pointwise_initializer, bias_initializer,
                        depthwise_regularizer, pointwise_regularizer, bias_regularizer,
                        activity_regularizer, depthwise_constraint, pointwise_constraint,
                        bias_constraint, **kwargs)
  return __init__


class SeparableConv2D(_Separable):
  """Depthwise 2-D convolution then a 1x1 convolution to `filters` channels. Weights:
  depthwise_kernel (kh, kw, C, M), pointwise_kernel (1, 1, C * M, filters), bias."""

  _tl_rank = 2
  __init__ = _separable_init(2)


class SeparableConv1D(_Separable):
  """Depthwise 1-D convolution then a pointwise one; `padding="causal"` allowed."""

  _tl_rank = 1
  _tl_causal_ok = True
  __init__ = _separable_init(1)


SeparableConvolution1D = SeparableConv1D
SeparableConvolution2D = SeparableConv2D
