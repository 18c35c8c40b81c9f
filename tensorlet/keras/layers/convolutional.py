"""Conv2D: 2-D convolution over images (NHWC, or NCHW with channels_first)."""
from tensorlet.keras import activations
from tensorlet.keras.engine.base_layer import InputSpec, Layer
from tensorlet.keras.layers import _util
from tensorlet.keras.layers.core import _config, set_kernel_bias_options
from tensorlet.ops import conv_ops as _c
from tensorlet.ops import nn_ops as _nn
from tensorlet.tensor_shape import TensorShape

__all__ = ["Conv2D"]


def conv_output_length(n, k, padding, stride, dilation=1):
  """Keras' output size of a convolution or pooling window along one axis."""
  if n is None:
    return None
  k = (k - 1) * dilation + 1
  n = n - k + 1 if padding == "valid" else n
  return (n + stride - 1) // stride


class Conv2D(Layer):
  """`activation(conv2d(inputs, kernel) + bias)` with `filters` output channels."""

  def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
               dilation_rate=(1, 1), groups=1, activation=None, use_bias=True,
               kernel_initializer="glorot_uniform", bias_initializer="zeros",
               kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
               kernel_constraint=None, bias_constraint=None, **kwargs):
    super().__init__(activity_regularizer=activity_regularizer, **kwargs)
    if filters is not None and filters <= 0:
      raise ValueError(f"Invalid value for argument `filters`. Expected a strictly positive "
                       f"value. Received filters={filters}.")
    if groups != 1:
      raise ValueError("Conv2D supports groups=1 only.")
    self.filters = filters
    self.kernel_size = _util.normalize_tuple(kernel_size, 2, "kernel_size")
    self.strides = _util.normalize_tuple(strides, 2, "strides")
    self.padding = _util.normalize_padding(padding)
    self.data_format = _util.normalize_data_format(data_format)
    self.dilation_rate = _util.normalize_tuple(dilation_rate, 2, "dilation_rate")
    if max(self.strides) > 1 and max(self.dilation_rate) > 1:
      raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                       f"Received: strides={self.strides} and "
                       f"dilation_rate={self.dilation_rate}")
    self.groups = groups
    set_kernel_bias_options(self, activation, use_bias, kernel_initializer, bias_initializer,
                            kernel_regularizer, bias_regularizer, kernel_constraint,
                            bias_constraint)
    self._tl_fmt = "NCHW" if self.data_format == "channels_first" else "NHWC"
    self.input_spec = InputSpec(min_ndim=4)

  def _channel_axis(self):
    return 1 if self.data_format == "channels_first" else -1

  def build(self, input_shape):
    input_shape = TensorShape(input_shape)
    channels = input_shape[self._channel_axis()] if input_shape.rank else None
    if channels is None:
      raise ValueError(f"The channel dimension of the inputs should be defined. The input_shape "
                       f"received is {input_shape}, where axis {self._channel_axis()} "
                       f"(0-based) is the channel dimension, which found to be `None`.")
    # Keras' check: a kernel larger than the image is the user's mistake, named here
    # rather than as the Conv2D op's negative output size.
    self.compute_output_shape(input_shape)
    self.input_spec = InputSpec(ndim=4, axes={self._channel_axis(): channels})
    self.kernel = self.add_weight("kernel", shape=self.kernel_size + (channels, self.filters),
                                  initializer=self.kernel_initializer,
                                  regularizer=self.kernel_regularizer,
                                  constraint=self.kernel_constraint)
    self.bias = self.add_weight("bias", shape=(self.filters,), initializer=self.bias_initializer,
                                regularizer=self.bias_regularizer,
                                constraint=self.bias_constraint) if self.use_bias else None
    self.built = True

  def call(self, inputs):
    out = _c.conv2d(inputs, self.kernel, strides=self.strides, padding=self.padding.upper(),
                    data_format=self._tl_fmt, dilations=self.dilation_rate)
    if self.bias is not None:
      out = _nn.bias_add(out, self.bias, data_format=self._tl_fmt)
    if self._tl_act is not None:
      out = self._tl_act(out)
    return out

  def compute_output_shape(self, input_shape):
    dims = TensorShape(input_shape).as_list()
    first = self.data_format == "channels_first"
    space = dims[2:] if first else dims[1:3]
    space = [conv_output_length(n, k, self.padding, s, d) for n, k, s, d in
             zip(space, self.kernel_size, self.strides, self.dilation_rate)]
    if len(dims) == 4 and any(n is not None and n <= 0 for n in space):
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
                   "groups": self.groups, "activation": activations.serialize(self.activation),
                   "use_bias": self.use_bias,
                   "kernel_initializer": _config(self.kernel_initializer),
                   "bias_initializer": _config(self.bias_initializer)})
    return config
