"""Convolutions: Conv1D, Conv2D, Conv3D (groups, dilation, causal 1-D padding).

Every rank computes channels_last (channels_first inputs are transposed in
and out). 1-D and 2-D use the Conv2D op; 3-D is a sum over the depth taps of
2-D convolutions (tf.nn.conv3d in ops/conv_extra_ops.py).
"""
from tensorlet.keras.engine.base_layer import InputSpec, Layer
from tensorlet.keras.layers import _util
from tensorlet.keras.layers.core import kernel_bias_config, set_kernel_bias_options
from tensorlet.ops import array_ops as _a
from tensorlet.ops import conv_extra_ops
from tensorlet.ops import conv_ops as _c
from tensorlet.ops import nn_ops as _nn
from tensorlet.tensor_shape import TensorShape

__all__ = ["Conv1D", "Conv2D", "Conv3D", "conv_output_length", "Convolution1D",
           "Convolution2D", "Convolution3D"]


def conv_output_length(n, k, padding, stride, dilation=1):
  """Keras' output size of a convolution or pooling window along one axis."""
  if n is None:
    return None
  k = (k - 1) * dilation + 1
  n = n - k + 1 if padding == "valid" else n
  return (n + stride - 1) // stride


def to_channels_last(x, rank):
  return _a.transpose(x, [0] + list(range(2, rank + 2)) + [1])


def to_channels_first(x, rank):
  return _a.transpose(x, [0, rank + 1] + list(range(1, rank + 1)))


def spatial_conv(x, kernel, rank, strides, padding, dilation):
  """channels_last N-D convolution (rank 1, 2, 3) with padding 'valid' or 'same'."""
  if rank == 1:
    return _c.conv1d(x, kernel, strides[0], padding.upper(), dilations=dilation[0])
  if rank == 2:
    return _c.conv2d(x, kernel, strides=strides, padding=padding.upper(),
                     dilations=dilation)
  return conv_extra_ops.conv3d(x, kernel, list(strides), padding.upper(),
                               dilations=list(dilation))


class _Conv(Layer):
  """N-D convolution: `activation(conv(inputs, kernel) + bias)`."""

  _tl_rank = 2

  def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
               dilation_rate=1, groups=1, activation=None, use_bias=True,
               kernel_initializer="glorot_uniform", bias_initializer="zeros",
               kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
               kernel_constraint=None, bias_constraint=None, **kwargs):
    super().__init__(activity_regularizer=activity_regularizer, **kwargs)
    rank = self._tl_rank
    if isinstance(filters, float):
      filters = int(filters)
    if filters is not None and filters <= 0:
      raise ValueError(f"Invalid value for argument `filters`. Expected a strictly positive "
                       f"value. Received filters={filters}.")
    self.filters = filters
    self.groups = groups or 1
    self.kernel_size = _util.normalize_tuple(kernel_size, rank, "kernel_size")
    self.strides = _util.normalize_tuple(strides, rank, "strides")
    padding = padding.lower() if isinstance(padding, str) else padding
    if padding == "causal":
      if not self._tl_causal_ok:
        raise ValueError("Causal padding is only supported for `Conv1D` and "
                         "`SeparableConv1D`.")
      self.padding = padding
    else:
      self.padding = _util.normalize_padding(padding)
    self.data_format = _util.normalize_data_format(data_format)
    self.dilation_rate = _util.normalize_tuple(dilation_rate, rank, "dilation_rate")
    if filters is not None and filters % self.groups != 0:
      raise ValueError(f"The number of filters must be evenly divisible by the number of "
                       f"groups. Received: groups={self.groups}, filters={filters}.")
    if max(self.strides) > 1 and max(self.dilation_rate) > 1:
      raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                       f"Received: strides={self.strides} and "
                       f"dilation_rate={self.dilation_rate}")
    set_kernel_bias_options(self, activation, use_bias, kernel_initializer, bias_initializer,
                            kernel_regularizer, bias_regularizer, kernel_constraint,
                            bias_constraint)
    self.input_spec = InputSpec(min_ndim=rank + 2)

  _tl_causal_ok = False

  def _channel_axis(self):
    return 1 if self.data_format == "channels_first" else -1

  def _channels(self, input_shape):
    input_shape = TensorShape(input_shape)
    channels = input_shape[self._channel_axis()] if input_shape.rank else None
    if channels is None:
      raise ValueError(f"The channel dimension of the inputs should be defined. The input_shape "
                       f"received is {input_shape}, where axis {self._channel_axis()} "
                       f"(0-based) is the channel dimension, which found to be `None`.")
    return channels

  def build(self, input_shape):
    input_shape = TensorShape(input_shape)
    channels = self._channels(input_shape)
    if channels % self.groups != 0:
      raise ValueError(f"The number of input channels must be evenly divisible by the number "
                       f"of groups. Received groups={self.groups}, but the input has "
                       f"{channels} channels (full input shape is {input_shape}).")
    # Keras' check: a kernel larger than the input is named here, not as an op error.
    self.compute_output_shape(input_shape)
    self.input_spec = InputSpec(min_ndim=self._tl_rank + 2,
                                axes={self._channel_axis(): channels})
    self.kernel = self.add_weight(
        "kernel", shape=self.kernel_size + (channels // self.groups, self.filters),
        initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
        constraint=self.kernel_constraint)
    self.bias = self.add_weight("bias", shape=(self.filters,), initializer=self.bias_initializer,
                                regularizer=self.bias_regularizer,
                                constraint=self.bias_constraint) if self.use_bias else None
    self.built = True

  def _convolve(self, x, kernel):
    padding = self.padding
    if padding == "causal":
      left = (self.kernel_size[0] - 1) * self.dilation_rate[0]
      x = _a.pad(x, [[0, 0], [left, 0], [0, 0]])
      padding = "valid"
    if self.groups == 1:
      return spatial_conv(x, kernel, self._tl_rank, self.strides, padding, self.dilation_rate)
    xs = _a.split(x, self.groups, axis=-1)
    ks = _a.split(kernel, self.groups, axis=-1)
    return _a.concat([spatial_conv(a, k, self._tl_rank, self.strides, padding,
                                   self.dilation_rate) for a, k in zip(xs, ks)], -1)

  def call(self, inputs):
    rank = self._tl_rank
    if inputs.shape.rank is not None and inputs.shape.rank > rank + 2:
      # As Keras 2: extra leading batch axes are folded into one and restored after.
      lead = _a.shape(inputs)[:-(rank + 1)]
      out = self.call(_a.reshape(inputs, [-1] + inputs.shape.as_list()[-(rank + 1):]))
      return _a.reshape(out, _a.concat([lead, _a.shape(out)[1:]], 0))
    first = self.data_format == "channels_first"
    if rank == 2 and self.groups == 1:
      # The Conv2D op takes NCHW itself.
      fmt = "NCHW" if first else "NHWC"
      out = _c.conv2d(inputs, self.kernel, strides=self.strides,
                      padding=self.padding.upper(), data_format=fmt,
                      dilations=self.dilation_rate)
      if self.bias is not None:
        out = _nn.bias_add(out, self.bias, data_format=fmt)
      return self._tl_act(out) if self._tl_act is not None else out
    x = to_channels_last(inputs, rank) if first else inputs
    return self._finish(self._convolve(x, self.kernel))

  def _finish(self, out):
    """Bias, back to channels_first where asked, activation: the tail every conv shares."""
    if self.bias is not None:
      out = _nn.bias_add(out, self.bias)
    if self.data_format == "channels_first":
      out = to_channels_first(out, self._tl_rank)
    if self._tl_act is not None:
      out = self._tl_act(out)
    return out

  def _spatial_out(self, space):
    padding = "valid" if self.padding == "valid" else "same"
    return [conv_output_length(n, k, padding, s, d) for n, k, s, d in
            zip(space, self.kernel_size, self.strides, self.dilation_rate)]

  def compute_output_shape(self, input_shape):
    dims = TensorShape(input_shape).as_list()
    rank = self._tl_rank
    first = self.data_format == "channels_first"
    space = dims[2:] if first else dims[1:rank + 1]
    space = self._spatial_out(space)
    if len(dims) == rank + 2 and any(n is not None and n <= 0 for n in space):
      raise ValueError(f"One of the dimensions in the output is <= 0 due to downsampling in "
                       f"{self.name}. Consider increasing the input size. Received "
                       f"input shape {TensorShape(input_shape)} which would produce output "
                       f"shape with a zero or negative value in a dimension.")
    return TensorShape([dims[0], self.filters] + space if first else
                       [dims[0]] + space + [self.filters])

  def get_config(self):
    config = super().get_config()
    config.update({"filters": self.filters, "kernel_size": self.kernel_size,
                   "strides": self.strides, "padding": self.padding,
                   "data_format": self.data_format, "dilation_rate": self.dilation_rate,
                   "groups": self.groups})
    config.update(kernel_bias_config(self))
    return config


class Conv1D(_Conv):
  """1-D convolution over (batch, steps, channels); `padding="causal"` pads on the left so
  output t sees inputs <= t only."""

  _tl_rank = 1
  _tl_causal_ok = True

  def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format="channels_last",
               dilation_rate=1, groups=1, activation=None, use_bias=True, **kwargs):
    super().__init__(filters, kernel_size, strides=strides, padding=padding,
                     data_format=data_format, dilation_rate=dilation_rate, groups=groups,
                     activation=activation, use_bias=use_bias, **kwargs)


class Conv2D(_Conv):
  """2-D convolution over images (NHWC, or NCHW with channels_first)."""

  _tl_rank = 2

  def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
               dilation_rate=(1, 1), groups=1, activation=None, use_bias=True, **kwargs):
    super().__init__(filters, kernel_size, strides=strides, padding=padding,
                     data_format=data_format, dilation_rate=dilation_rate, groups=groups,
                     activation=activation, use_bias=use_bias, **kwargs)


class Conv3D(_Conv):
  """3-D convolution over volumes (batch, depth, height, width, channels)."""

  _tl_rank = 3

  def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
               data_format=None, dilation_rate=(1, 1, 1), groups=1, activation=None,
               use_bias=True, **kwargs):
    super().__init__(filters, kernel_size, strides=strides, padding=padding,
                     data_format=data_format, dilation_rate=dilation_rate, groups=groups,
                     activation=activation, use_bias=use_bias, **kwargs)


Convolution1D = Conv1D
Convolution2D = Conv2D
Convolution3D = Conv3D
