"""Pooling layers: Max/AveragePooling1D/2D and the global poolings (1-D and 2-D)."""
from tensorlet.keras.engine.base_layer import InputSpec, Layer
from tensorlet.keras.layers import _util
from tensorlet.keras.layers.convolutional import conv_output_length
from tensorlet.ops import array_ops as _a
from tensorlet.ops import conv_ops as _c
from tensorlet.ops import math_ops as _m
from tensorlet.tensor_shape import TensorShape

__all__ = ["MaxPooling2D", "AveragePooling2D", "GlobalAveragePooling2D", "GlobalMaxPooling2D",
           "MaxPool2D", "AvgPool2D", "GlobalAvgPool2D", "GlobalMaxPool2D", "MaxPooling1D",
           "AveragePooling1D", "GlobalAveragePooling1D", "GlobalMaxPooling1D", "MaxPool1D",
           "AvgPool1D", "GlobalAvgPool1D", "GlobalMaxPool1D"]


class _Pooling2D(Layer):
  _tl_pool = None

  def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
               **kwargs):
    super().__init__(**kwargs)
    self.pool_size = _util.normalize_tuple(pool_size, 2, "pool_size")
    self.strides = _util.normalize_tuple(strides if strides is not None else pool_size, 2,
                                         "strides")
    self.padding = _util.normalize_padding(padding)
    self.data_format = _util.normalize_data_format(data_format)
    self.input_spec = InputSpec(ndim=4)

  def call(self, inputs):
    fmt = "NCHW" if self.data_format == "channels_first" else "NHWC"
    return type(self)._tl_pool(inputs, self.pool_size, self.strides, self.padding.upper(),
                               data_format=fmt)

  def compute_output_shape(self, input_shape):
    dims = TensorShape(input_shape).as_list()
    first = self.data_format == "channels_first"
    space = dims[2:] if first else dims[1:3]
    space = [conv_output_length(n, k, self.padding, s) for n, k, s in
             zip(space, self.pool_size, self.strides)]
    return TensorShape(dims[:2] + space if first else [dims[0]] + space + [dims[3]])

  def get_config(self):
    config = super().get_config()
    config.update({"pool_size": self.pool_size, "padding": self.padding,
                   "strides": self.strides, "data_format": self.data_format})
    return config


class MaxPooling2D(_Pooling2D):
  """The maximum over each `pool_size` window."""
  _tl_pool = staticmethod(_c.max_pool2d)


class AveragePooling2D(_Pooling2D):
  """The mean over each `pool_size` window ('same' padding averages real cells only)."""
  _tl_pool = staticmethod(_c.avg_pool2d)


class _GlobalPooling2D(Layer):
  _tl_reduce = None

  def __init__(self, data_format=None, keepdims=False, **kwargs):
    super().__init__(**kwargs)
    self.data_format = _util.normalize_data_format(data_format)
    self.keepdims = keepdims
    self.input_spec = InputSpec(ndim=4)

  def call(self, inputs):
    axes = [2, 3] if self.data_format == "channels_first" else [1, 2]
    return type(self)._tl_reduce(inputs, axis=axes, keepdims=self.keepdims)

  def compute_output_shape(self, input_shape):
    dims = TensorShape(input_shape).as_list()
    c = dims[1] if self.data_format == "channels_first" else dims[3]
    if not self.keepdims:
      return TensorShape([dims[0], c])
    return TensorShape([dims[0], c, 1, 1] if self.data_format == "channels_first" else
                       [dims[0], 1, 1, c])

  def get_config(self):
    config = super().get_config()
    config.update({"data_format": self.data_format, "keepdims": self.keepdims})
    return config


class GlobalAveragePooling2D(_GlobalPooling2D):
  """The mean over the spatial axes: (batch, h, w, c) -> (batch, c)."""
  _tl_reduce = staticmethod(_m.reduce_mean)


class GlobalMaxPooling2D(_GlobalPooling2D):
  """The maximum over the spatial axes: (batch, h, w, c) -> (batch, c)."""
  _tl_reduce = staticmethod(_m.reduce_max)


MaxPool2D = MaxPooling2D
AvgPool2D = AveragePooling2D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalMaxPool2D = GlobalMaxPooling2D


class _Pooling1D(Layer):
  """1-D pooling over (batch, steps, features), as 2-D pooling of height 1."""
  _tl_pool = None

  def __init__(self, pool_size=2, strides=None, padding="valid", data_format="channels_last",
               **kwargs):
    super().__init__(**kwargs)
    self.pool_size = _util.normalize_tuple(pool_size, 1, "pool_size")
    self.strides = _util.normalize_tuple(strides if strides is not None else pool_size, 1,
                                         "strides")
    self.padding = _util.normalize_padding(padding)
    self.data_format = _util.normalize_data_format(data_format)
    self.input_spec = InputSpec(ndim=3)

  def call(self, inputs):
    x = inputs
    if self.data_format == "channels_first":
      x = _a.transpose(x, [0, 2, 1])
    y = type(self)._tl_pool(_a.expand_dims(x, 1), (1,) + self.pool_size,
                            (1,) + self.strides, self.padding.upper())
    y = _a.squeeze(y, [1])
    return _a.transpose(y, [0, 2, 1]) if self.data_format == "channels_first" else y

  def compute_output_shape(self, input_shape):
    dims = TensorShape(input_shape).as_list()
    first = self.data_format == "channels_first"
    steps = dims[2] if first else dims[1]
    steps = conv_output_length(steps, self.pool_size[0], self.padding, self.strides[0])
    return TensorShape([dims[0], dims[1], steps] if first else [dims[0], steps, dims[2]])

  def get_config(self):
    config = super().get_config()
    config.update({"strides": self.strides, "pool_size": self.pool_size,
                   "padding": self.padding, "data_format": self.data_format})
    return config


class MaxPooling1D(_Pooling1D):
  """The maximum over each `pool_size` window of steps."""
  _tl_pool = staticmethod(_c.max_pool2d)


class AveragePooling1D(_Pooling1D):
  """The mean over each `pool_size` window of steps."""
  _tl_pool = staticmethod(_c.avg_pool2d)


class GlobalAveragePooling1D(Layer):
  """The mean over steps: (batch, steps, features) -> (batch, features); masked steps
  (mask False) are left out of the mean."""

  def __init__(self, data_format="channels_last", keepdims=False, **kwargs):
    super().__init__(**kwargs)
    self.data_format = _util.normalize_data_format(data_format)
    self.keepdims = keepdims
    self.input_spec = InputSpec(ndim=3)
    self.supports_masking = True

  def _axis(self):
    return 2 if self.data_format == "channels_first" else 1

  def call(self, inputs, mask=None):
    axis = self._axis()
    if mask is None:
      return _m.reduce_mean(inputs, axis=axis, keepdims=self.keepdims)
    m = _m.cast(mask, inputs.dtype)
    m = _a.expand_dims(m, 2 if axis == 1 else 1)
    return _m.reduce_sum(inputs * m, axis=axis, keepdims=self.keepdims) / \
        _m.reduce_sum(m, axis=axis, keepdims=self.keepdims)

  def compute_mask(self, inputs, mask=None):
    return None

  def compute_output_shape(self, input_shape):
    dims = TensorShape(input_shape).as_list()
    axis = self._axis()
    if self.keepdims:
      dims[axis] = 1
      return TensorShape(dims)
    return TensorShape([d for i, d in enumerate(dims) if i != axis])

  def get_config(self):
    config = super().get_config()
    config.update({"data_format": self.data_format, "keepdims": self.keepdims})
    return config


class GlobalMaxPooling1D(GlobalAveragePooling1D):
  """The maximum over steps: (batch, steps, features) -> (batch, features)."""

  def __init__(self, data_format="channels_last", keepdims=False, **kwargs):
    super().__init__(data_format=data_format, keepdims=keepdims, **kwargs)
    self.supports_masking = False

  def call(self, inputs):
    return _m.reduce_max(inputs, axis=self._axis(), keepdims=self.keepdims)


MaxPool1D = MaxPooling1D
AvgPool1D = AveragePooling1D
GlobalAvgPool1D = GlobalAveragePooling1D
GlobalMaxPool1D = GlobalMaxPooling1D
