"""Pooling layers: Max/AveragePooling1D/2D/3D and the global poolings (1-D, 2-D, 3-D)."""
import numpy as np

from tensorlet.keras.engine.base_layer import InputSpec, Layer
from tensorlet.keras.layers import _util
from tensorlet.keras.layers.convolutional import conv_output_length
from tensorlet.ops import array_ops as _a
from tensorlet.ops import conv_ops as _c
from tensorlet.ops import math_ops as _m
from tensorlet.tensor import convert_to_tensor
from tensorlet.tensor_shape import TensorShape

__all__ = ["MaxPooling2D", "AveragePooling2D", "GlobalAveragePooling2D", "GlobalMaxPooling2D",
           "MaxPool2D", "AvgPool2D", "GlobalAvgPool2D", "GlobalMaxPool2D", "MaxPooling1D",
           "AveragePooling1D", "GlobalAveragePooling1D", "GlobalMaxPooling1D", "MaxPool1D",
           "AvgPool1D", "GlobalAvgPool1D", "GlobalMaxPool1D", "MaxPooling3D", "AveragePooling3D",
           "GlobalAveragePooling3D", "GlobalMaxPooling3D", "MaxPool3D", "AvgPool3D",
           "GlobalAvgPool3D", "GlobalMaxPool3D"]


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


class _Pooling3D(Layer):
  """3-D pooling: 2-D pooling of every depth slice, then over the depth window (for the
  average, over the real cells only, as TF's SAME padding does)."""
  _tl_max = True

  def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None,
               **kwargs):
    super().__init__(**kwargs)
    self.pool_size = _util.normalize_tuple(pool_size, 3, "pool_size")
    self.strides = _util.normalize_tuple(strides if strides is not None else pool_size, 3,
                                         "strides")
    self.padding = _util.normalize_padding(padding)
    self.data_format = _util.normalize_data_format(data_format)
    self.input_spec = InputSpec(ndim=5)

  def call(self, inputs):
    first = self.data_format == "channels_first"
    x = _a.transpose(inputs, [0, 2, 3, 4, 1]) if first else inputs
    depth = x.shape[1]
    if depth is None:
      raise ValueError(f"{type(self).__name__} needs a static depth. Received input shape "
                       f"{inputs.shape}.")
    dyn = _a.shape(x)
    pool2d = _c.max_pool2d if self._tl_max else _c.avg_pool2d
    y = pool2d(_a.reshape(x, _a.concat([[-1], dyn[2:]], 0)), self.pool_size[1:],
               self.strides[1:], self.padding.upper())
    ys = _a.shape(y)
    y = _a.reshape(y, _a.stack([dyn[0], depth, ys[1], ys[2], ys[3]]))
    k, s = self.pool_size[0], self.strides[0]
    out_d = conv_output_length(depth, k, self.padding, s)
    before = max((out_d - 1) * s + k - depth, 0) // 2 if self.padding == "same" else 0
    taps = []
    counts = np.zeros(out_d)
    for t in range(k):
      idx = [i * s + t - before for i in range(out_d)]
      valid = np.array([0 <= j < depth for j in idx])
      counts += valid
      taps.append((np.clip(idx, 0, depth - 1).astype(np.int32), valid))
    out = None
    for idx, valid in taps:
      v = _a.gather(y, idx, axis=1)
      if not valid.all():
        # Out-of-range taps repeat an edge slice: harmless for the max; left out of
        # the average by a zero weight.
        if not self._tl_max:
          v = v * convert_to_tensor(valid.reshape(1, -1, 1, 1, 1).astype(
              v.dtype.as_numpy_dtype))
      out = v if out is None else (_m.maximum(out, v) if self._tl_max else out + v)
    if not self._tl_max:
      out = out / convert_to_tensor(counts.reshape(1, -1, 1, 1, 1).astype(
          out.dtype.as_numpy_dtype))
    return _a.transpose(out, [0, 4, 1, 2, 3]) if first else out

  def compute_output_shape(self, input_shape):
    dims = TensorShape(input_shape).as_list()
    first = self.data_format == "channels_first"
    space = dims[2:] if first else dims[1:4]
    space = [conv_output_length(n, k, self.padding, s) for n, k, s in
             zip(space, self.pool_size, self.strides)]
    return TensorShape(dims[:2] + space if first else [dims[0]] + space + [dims[4]])

  def get_config(self):
    config = super().get_config()
    config.update({"pool_size": self.pool_size, "padding": self.padding,
                   "strides": self.strides, "data_format": self.data_format})
    return config


class MaxPooling3D(_Pooling3D):
  """The maximum over each `pool_size` volume."""
  _tl_max = True


class AveragePooling3D(_Pooling3D):
  """The mean over each `pool_size` volume (real cells only with 'same' padding)."""
  _tl_max = False


class _GlobalPooling3D(_GlobalPooling2D):
  def __init__(self, data_format=None, keepdims=False, **kwargs):
    super().__init__(data_format=data_format, keepdims=keepdims, **kwargs)
    self.input_spec = InputSpec(ndim=5)

  def call(self, inputs):
    axes = [2, 3, 4] if self.data_format == "channels_first" else [1, 2, 3]
    return type(self)._tl_reduce(inputs, axis=axes, keepdims=self.keepdims)

  def compute_output_shape(self, input_shape):
    dims = TensorShape(input_shape).as_list()
    first = self.data_format == "channels_first"
    c = dims[1] if first else dims[4]
    if not self.keepdims:
      return TensorShape([dims[0], c])
    return TensorShape([dims[0], c, 1, 1, 1] if first else [dims[0], 1, 1, 1, c])


class GlobalAveragePooling3D(_GlobalPooling3D):
  """The mean over the three spatial axes."""
  _tl_reduce = staticmethod(_m.reduce_mean)


class GlobalMaxPooling3D(_GlobalPooling3D):
  """The maximum over the three spatial axes."""
  _tl_reduce = staticmethod(_m.reduce_max)


MaxPool3D = MaxPooling3D
AvgPool3D = AveragePooling3D
GlobalAvgPool3D = GlobalAveragePooling3D
GlobalMaxPool3D = GlobalMaxPooling3D
