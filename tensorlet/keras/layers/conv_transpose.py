"""Transposed convolutions: Conv1DTranspose, Conv2DTranspose, Conv3DTranspose (the gradient of a
convolution with respect to its input, as a layer)."""
import numpy as np

from tensorlet.keras.engine.base_layer import InputSpec
from tensorlet.keras.layers import _util
from tensorlet.keras.layers.convolutional import _Conv, to_channels_last
from tensorlet.ops import array_ops as _a
from tensorlet.ops import conv_extra_ops
from tensorlet.ops import conv_ops as _c
from tensorlet.tensor import convert_to_tensor
from tensorlet.tensor_shape import TensorShape

__all__ = ["Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose", "deconv_output_length",
           "Convolution1DTranspose", "Convolution2DTranspose", "Convolution3DTranspose"]


def deconv_output_length(n, k, padding, output_padding=None, stride=1, dilation=1):
  """Keras' output size of a transposed convolution along one axis."""
  if n is None:
    return None
  k = k + (k - 1) * (dilation - 1)
  if output_padding is None:
    if padding == "valid":
      return n * stride + max(k - stride, 0)
    return n * stride
  pad = k // 2 if padding == "same" else 0
  return (n - 1) * stride + k - 2 * pad + output_padding


class _ConvTranspose(_Conv):
  """Kernel (*kernel_size, filters, in_channels), as Keras 2 lays it out."""

  def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None,
               data_format=None, dilation_rate=1, activation=None, use_bias=True, **kwargs):
    super().__init__(filters, kernel_size, strides=strides, padding=padding,
                     data_format=data_format, dilation_rate=dilation_rate,
                     activation=activation, use_bias=use_bias, **kwargs)
    rank = self._tl_rank
    if output_padding is None:
      self.output_padding = None
    else:
      self.output_padding = _util.normalize_tuple(output_padding, rank, "output_padding",
                                                  allow_zero=True)
      for stride, pad in zip(self.strides, self.output_padding):
        if pad >= stride:
          raise ValueError(f"Strides must be greater than output padding. Received strides="
                           f"{self.strides}, output_padding={self.output_padding}.")

  def build(self, input_shape):
    input_shape = TensorShape(input_shape)
    if input_shape.rank != self._tl_rank + 2:
      raise ValueError(f"Inputs should have rank {self._tl_rank + 2}. Received input_shape="
                       f"{input_shape}.")
    channels = self._channels(input_shape)
    self.input_spec = InputSpec(ndim=self._tl_rank + 2, axes={self._channel_axis(): channels})
    self.kernel = self.add_weight("kernel", shape=self.kernel_size + (self.filters, channels),
                                  initializer=self.kernel_initializer,
                                  regularizer=self.kernel_regularizer,
                                  constraint=self.kernel_constraint)
    self.bias = self.add_weight("bias", shape=(self.filters,), initializer=self.bias_initializer,
                                regularizer=self.bias_regularizer,
                                constraint=self.bias_constraint) if self.use_bias else None
    self.built = True

  def _spatial_out(self, space):
    pads = self.output_padding or (None,) * self._tl_rank
    return [deconv_output_length(n, k, self.padding, p, s, d) for n, k, p, s, d in
            zip(space, self.kernel_size, pads, self.strides, self.dilation_rate)]

  def call(self, inputs):
    rank = self._tl_rank
    first = self.data_format == "channels_first"
    x = to_channels_last(inputs, rank) if first else inputs
    space = x.shape.as_list()[1:rank + 1]
    if None in space:
      raise ValueError(f"{type(self).__name__} needs static spatial input dimensions. "
                       f"Received input shape {inputs.shape}.")
    out_space = self._spatial_out(space)
    shape = _a.concat([_a.shape(x)[:1], convert_to_tensor(
        np.array(out_space + [self.filters], np.int32))], 0)
    conv = {1: conv_extra_ops.conv1d_transpose, 2: _c.conv2d_transpose,
            3: conv_extra_ops.conv3d_transpose}[rank]
    # NOTE: Keras 2's Conv3DTranspose gives the op no dilations (dilation_rate only
    # changes its output shape); kept so that weights give Keras 2's outputs.
    dil = list(self.dilation_rate) if rank < 3 else None
    out = conv(x, self.kernel, shape, list(self.strides), padding=self.padding.upper(),
               dilations=dil)
    # The output shape is a tensor (dynamic batch): give the graph its static part.
    out.set_shape(TensorShape([x.shape[0]] + out_space + [self.filters]))
    return self._finish(out)

  def get_config(self):
    config = super().get_config()
    config["output_padding"] = self.output_padding
    return config


class Conv2DTranspose(_ConvTranspose):
  """Transposed 2-D convolution ("deconvolution"): upsamples by `strides`."""

  _tl_rank = 2

  def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
               output_padding=None, data_format=None, dilation_rate=(1, 1), activation=None,
               use_bias=True, **kwargs):
    super().__init__(filters, kernel_size, strides=strides, padding=padding,
                     output_padding=output_padding, data_format=data_format,
                     dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
                     **kwargs)


class Conv1DTranspose(_ConvTranspose):
  """Transposed 1-D convolution over (batch, steps, channels)."""

  _tl_rank = 1

  def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None,
               data_format=None, dilation_rate=1, activation=None, use_bias=True, **kwargs):
    super().__init__(filters, kernel_size, strides=strides, padding=padding,
                     output_padding=output_padding, data_format=data_format,
                     dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
                     **kwargs)


class Conv3DTranspose(_ConvTranspose):
  """Transposed 3-D convolution over volumes (batch, depth, height, width, channels)."""

  _tl_rank = 3

  def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
               output_padding=None, data_format=None, dilation_rate=(1, 1, 1),
               activation=None, use_bias=True, **kwargs):
    super().__init__(filters, kernel_size, strides=strides, padding=padding,
                     output_padding=output_padding, data_format=data_format,
                     dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
                     **kwargs)


Convolution1DTranspose = Conv1DTranspose
Convolution2DTranspose = Conv2DTranspose
Convolution3DTranspose = Conv3DTranspose
