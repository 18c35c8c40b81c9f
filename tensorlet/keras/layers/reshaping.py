"""Shape layers: UpSampling1D/2D/3D, ZeroPadding1D/2D/3D, Cropping1D/2D/3D, RepeatVector,
Permute."""
import numpy as np

from tensorlet.keras.engine.base_layer import InputSpec, Layer
from tensorlet.keras.layers import _util
from tensorlet import dtypes as _dt
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.ops._common import as_int
from tensorlet.tensor import convert_to_tensor
from tensorlet.tensor_shape import TensorShape

__all__ = ["UpSampling1D", "UpSampling2D", "ZeroPadding1D", "ZeroPadding2D", "Cropping1D",
           "Cropping2D", "RepeatVector", "Permute", "UpSampling3D", "ZeroPadding3D", "Cropping3D"]

_INTERPOLATIONS = ("area", "bicubic", "bilinear", "gaussian", "lanczos3", "lanczos5",
                   "mitchellcubic", "nearest")


def _mul(n, k):
  return None if n is None else n * k


class UpSampling1D(Layer):
  """Repeats each step `size` times: (batch, steps, features) -> (batch, steps * size, ...)."""

  def __init__(self, size=2, **kwargs):
    super().__init__(**kwargs)
    self.size = int(size) if isinstance(size, float) else as_int(size, "UpSampling1D", "size")
    self.input_spec = InputSpec(ndim=3)

  def call(self, inputs):
    return _a.repeat(inputs, self.size, axis=1)

  def compute_output_shape(self, input_shape):
    d = TensorShape(input_shape).as_list()
    return TensorShape([d[0], _mul(d[1], self.size), d[2]])

  def get_config(self):
    config = super().get_config()
    config["size"] = self.size
    return config


def _bilinear_axis(x, axis, n, scale):
  """Resizes static axis `axis` of size n by `scale` as tf.image.resize's bilinear
  (half-pixel centres): a gather of the two neighbours and a fixed-weight blend."""
  out = np.arange(n * scale)
  src = (out + 0.5) / scale - 0.5
  lo = np.floor(src)
  w = (src - lo).astype(np.float64)
  i0 = np.clip(lo, 0, n - 1).astype(np.int32)
  i1 = np.clip(lo + 1, 0, n - 1).astype(np.int32)
  shape = [1] * x.shape.rank
  shape[axis] = n * scale
  wt = convert_to_tensor(w.reshape(shape).astype(x.dtype.as_numpy_dtype))
  a = _a.gather(x, i0, axis=axis)
  b = _a.gather(x, i1, axis=axis)
  return a + (b - a) * wt


class UpSampling2D(Layer):
  """Repeats rows and columns by `size` ('nearest'), or resizes by `size` with any other
  `tf.image.resize` interpolation (bilinear, bicubic, area, lanczos3/5, gaussian,
  mitchellcubic)."""

  def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
    super().__init__(**kwargs)
    self.data_format = _util.normalize_data_format(data_format)
    self.size = _util.normalize_tuple(size, 2, "size")
    if interpolation not in _INTERPOLATIONS:
      raise ValueError(f"`interpolation` argument should be one of: {list(_INTERPOLATIONS)}. "
                       f"Received: \"{interpolation}\".")
    self.interpolation = interpolation
    self.input_spec = InputSpec(ndim=4)

  def call(self, inputs):
    axes = (2, 3) if self.data_format == "channels_first" else (1, 2)
    x = inputs
    if self.interpolation == "nearest":
      for axis, k in zip(axes, self.size):
        x = _a.repeat(x, k, axis=axis)
      return x
    if self.interpolation != "bilinear":
      return self._resize(x, axes)
    for axis, k in zip(axes, self.size):
      n = x.shape[axis]
      if n is None:
        raise ValueError("UpSampling2D(interpolation=\"bilinear\") needs static spatial "
                         "dimensions.")
      x = _bilinear_axis(x, axis, n, k)
    return x

  def _resize(self, x, axes):
    """The other interpolations: tf.image.resize to size times the image (float32 out,
    as Keras 2's backend.resize_images)."""
    from tensorlet.image.resizing import resize
    dims = [x.shape[a] for a in axes]
    if None in dims:
      size = _m.cast(_a.shape(x), _dt.int32)[axes[0]:axes[1] + 1] * np.array(self.size, np.int32)
    else:
      size = [d * k for d, k in zip(dims, self.size)]
    if self.data_format == "channels_first":
      return _a.transpose(resize(_a.transpose(x, [0, 2, 3, 1]), size, self.interpolation),
                          [0, 3, 1, 2])
    return resize(x, size, self.interpolation)

  def compute_output_shape(self, input_shape):
    d = TensorShape(input_shape).as_list()
    if self.data_format == "channels_first":
      return TensorShape([d[0], d[1], _mul(d[2], self.size[0]), _mul(d[3], self.size[1])])
    return TensorShape([d[0], _mul(d[1], self.size[0]), _mul(d[2], self.size[1]), d[3]])

  def get_config(self):
    config = super().get_config()
    config.update({"size": self.size, "data_format": self.data_format,
                   "interpolation": self.interpolation})
    return config


def _pairs(value, n, name):
  """An int, n ints or n pairs -> n (before, after) pairs (Keras' padding/cropping)."""
  if isinstance(value, int):
    return ((value, value),) * n
  if not isinstance(value, (list, tuple)) or len(value) != n:
    raise ValueError(f"`{name}` should have {n} elements. Received: {value}.")
  out = []
  for v in value:
    if isinstance(v, int):
      out.append((v, v))
    else:
      out.append(_util.normalize_tuple(v, 2, f"{name}", allow_zero=True))
  return tuple(out)


def _spatial_axes(data_format, n):
  return tuple(range(2, n + 2)) if data_format == "channels_first" else tuple(range(1, n + 1))


class _SpatialPadding(Layer):
  """Zero padding of the spatial axes by `self.padding` ((before, after) per axis)."""

  def call(self, inputs):
    pads = [[0, 0]] * inputs.shape.rank
    for axis, p in zip(_spatial_axes(self.data_format, len(self.padding)), self.padding):
      pads[axis] = list(p)
    return _a.pad(inputs, pads)

  def compute_output_shape(self, input_shape):
    d = TensorShape(input_shape).as_list()
    for axis, p in zip(_spatial_axes(self.data_format, len(self.padding)), self.padding):
      d[axis] = None if d[axis] is None else d[axis] + sum(p)
    return TensorShape(d)

  def get_config(self):
    config = super().get_config()
    config.update({"padding": self.padding, "data_format": self.data_format})
    return config


class _SpatialCropping(Layer):
  """Removes `self.cropping` ((before, after) per axis) cells from the spatial axes."""

  def call(self, inputs):
    key = [slice(None)] * inputs.shape.rank
    for axis, (a, b) in zip(_spatial_axes(self.data_format, len(self.cropping)),
                            self.cropping):
      n = inputs.shape[axis]
      if n is not None and a + b >= n:
        raise ValueError(f"Argument `cropping` must be smaller than the input shape. "
                         f"Received: inputs.shape={inputs.shape}, and cropping="
                         f"{self.cropping}")
      key[axis] = slice(a, -b if b else None)
    return inputs[tuple(key)]

  def compute_output_shape(self, input_shape):
    d = TensorShape(input_shape).as_list()
    for axis, p in zip(_spatial_axes(self.data_format, len(self.cropping)), self.cropping):
      d[axis] = None if d[axis] is None else d[axis] - sum(p)
    return TensorShape(d)

  def get_config(self):
    config = super().get_config()
    config.update({"cropping": self.cropping, "data_format": self.data_format})
    return config


class ZeroPadding1D(Layer):
  """Adds `padding` zero steps before and after: an int or a (before, after) pair."""

  def __init__(self, padding=1, **kwargs):
    super().__init__(**kwargs)
    self.padding = _util.normalize_tuple(padding, 2, "padding", allow_zero=True)
    self.input_spec = InputSpec(ndim=3)

  def call(self, inputs):
    return _a.pad(inputs, [[0, 0], list(self.padding), [0, 0]])

  def compute_output_shape(self, input_shape):
    d = TensorShape(input_shape).as_list()
    steps = None if d[1] is None else d[1] + sum(self.padding)
    return TensorShape([d[0], steps, d[2]])

  def get_config(self):
    config = super().get_config()
    config["padding"] = self.padding
    return config


class ZeroPadding2D(_SpatialPadding):
  """Adds zero rows and columns: an int, (rows, cols) or ((top, bottom), (left, right))."""

  def __init__(self, padding=(1, 1), data_format=None, **kwargs):
    super().__init__(**kwargs)
    self.data_format = _util.normalize_data_format(data_format)
    if isinstance(padding, int):
      self.padding = ((padding, padding), (padding, padding))
    elif isinstance(padding, (list, tuple)) and len(padding) == 2:
      self.padding = _pairs(padding, 2, "padding")
    else:
      raise ValueError(f"`padding` should be either an int, a tuple of 2 ints "
                       f"(symmetric_height_pad, symmetric_width_pad), or a tuple of 2 tuples "
                       f"of 2 ints ((top_pad, bottom_pad), (left_pad, right_pad)). Received: "
                       f"padding={padding}.")
    self.input_spec = InputSpec(ndim=4)


class Cropping1D(Layer):
  """Removes `cropping` steps (before, after) from the steps axis."""

  def __init__(self, cropping=(1, 1), **kwargs):
    super().__init__(**kwargs)
    self.cropping = _util.normalize_tuple(cropping, 2, "cropping", allow_zero=True)
    self.input_spec = InputSpec(ndim=3)

  def call(self, inputs):
    steps = inputs.shape[1]
    if steps is not None and sum(self.cropping) >= steps:
      raise ValueError(f"cropping parameter of `Cropping1D` layer must be smaller than the "
                       f"input length. Received: inputs.shape={inputs.shape}, and "
                       f"cropping={self.cropping}")
    a, b = self.cropping
    return inputs[:, a:-b] if b else inputs[:, a:]

  def compute_output_shape(self, input_shape):
    d = TensorShape(input_shape).as_list()
    steps = None if d[1] is None else d[1] - sum(self.cropping)
    return TensorShape([d[0], steps, d[2]])

  def get_config(self):
    config = super().get_config()
    config["cropping"] = self.cropping
    return config


class Cropping2D(_SpatialCropping):
  """Removes rows and columns: an int, (rows, cols) or ((top, bottom), (left, right))."""

  def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
    super().__init__(**kwargs)
    self.data_format = _util.normalize_data_format(data_format)
    if isinstance(cropping, int):
      self.cropping = ((cropping, cropping), (cropping, cropping))
    elif isinstance(cropping, (list, tuple)) and len(cropping) == 2:
      self.cropping = _pairs(cropping, 2, "cropping")
    else:
      raise ValueError(f"`cropping` should be either an int, a tuple of 2 ints "
                       f"(symmetric_height_crop, symmetric_width_crop), or a tuple of 2 tuples "
                       f"of 2 ints ((top_crop, bottom_crop), (left_crop, right_crop)). "
                       f"Received: cropping={cropping}.")
    self.input_spec = InputSpec(ndim=4)


class RepeatVector(Layer):
  """(batch, features) -> (batch, n, features)."""

  def __init__(self, n, **kwargs):
    super().__init__(**kwargs)
    if not isinstance(n, int):
      raise TypeError(f"Expected an integer value for `n`, got {type(n)}.")
    self.n = n
    self.input_spec = InputSpec(ndim=2)

  def call(self, inputs):
    return _a.tile(_a.expand_dims(inputs, 1), [1, self.n, 1])

  def compute_output_shape(self, input_shape):
    d = TensorShape(input_shape).as_list()
    return TensorShape([d[0], self.n, d[1]])

  def get_config(self):
    config = super().get_config()
    config["n"] = self.n
    return config


class Permute(Layer):
  """Permutes the non-batch axes: `dims` is a permutation of 1..rank-1."""

  def __init__(self, dims, **kwargs):
    super().__init__(**kwargs)
    self.dims = _util.int_tuple(dims, "Permute", "dims")
    if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
      raise ValueError(f"Invalid permutation argument `dims` for Permute Layer. The set of "
                       f"indices in `dims` must be consecutive and start from 1. Received "
                       f"dims={dims}")
    self.input_spec = InputSpec(ndim=len(self.dims) + 1)

  def call(self, inputs):
    return _a.transpose(inputs, (0,) + self.dims)

  def compute_output_shape(self, input_shape):
    d = TensorShape(input_shape).as_list()
    return TensorShape([d[0]] + [d[i] for i in self.dims])

  def get_config(self):
    config = super().get_config()
    config["dims"] = self.dims
    return config


class UpSampling3D(Layer):
  """Repeats depth, rows and columns by `size`."""

  def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
    super().__init__(**kwargs)
    self.data_format = _util.normalize_data_format(data_format)
    self.size = _util.normalize_tuple(size, 3, "size")
    self.input_spec = InputSpec(ndim=5)

  def call(self, inputs):
    x = inputs
    for axis, k in zip(_spatial_axes(self.data_format, 3), self.size):
      x = _a.repeat(x, k, axis=axis)
    return x

  def compute_output_shape(self, input_shape):
    d = TensorShape(input_shape).as_list()
    for axis, k in zip(_spatial_axes(self.data_format, 3), self.size):
      d[axis] = _mul(d[axis], k)
    return TensorShape(d)

  def get_config(self):
    config = super().get_config()
    config.update({"size": self.size, "data_format": self.data_format})
    return config


def _pairs3(value, name):
  if isinstance(value, int):
    return ((value, value),) * 3
  if isinstance(value, (list, tuple)) and len(value) == 3:
    return _pairs(value, 3, name)
  raise ValueError(f"`{name}` should be either an int, a tuple of 3 ints (symmetric_dim1, "
                   f"symmetric_dim2, symmetric_dim3), or a tuple of 3 tuples of 2 ints "
                   f"((left_dim1, right_dim1), (left_dim2, right_dim2), (left_dim3, "
                   f"right_dim3)). Received: {name}={value}.")


class ZeroPadding3D(_SpatialPadding):
  """Adds zeros around the three spatial axes."""

  def __init__(self, padding=(1, 1, 1), data_format=None, **kwargs):
    super().__init__(**kwargs)
    self.data_format = _util.normalize_data_format(data_format)
    self.padding = _pairs3(padding, "padding")
    self.input_spec = InputSpec(ndim=5)


class Cropping3D(_SpatialCropping):
  """Removes cells from both ends of the three spatial axes."""

  def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
    super().__init__(**kwargs)
    self.data_format = _util.normalize_data_format(data_format)
    self.cropping = _pairs3(cropping, "cropping")
    self.input_spec = InputSpec(ndim=5)
