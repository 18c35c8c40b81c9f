"""Keras 2's Normalization layer: (x - mean) / sqrt(variance) per feature along `axis`,
with mean and variance given or learnt by `adapt`."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.keras import backend
from tensorlet.keras.layers.preprocessing.base import PreprocessingLayer
from tensorlet.keras.layers.preprocessing.encoding import listify
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.ops import nn_ops as _nn
from tensorlet.tensor import convert_to_tensor
from tensorlet.tensor_shape import TensorShape
from tensorlet.variables import Variable

__all__ = ["Normalization"]


class Normalization(PreprocessingLayer):
  """Shifts and scales inputs to mean 0 and variance 1 per index of `axis`.

  `axis` (int, tuple or None) names the axes that keep separate statistics
  (default the last; None: one mean and variance for everything). Give `mean`
  and `variance`, or call `adapt(data)` to compute them. `invert=True` maps
  normalized values back: mean + x * sqrt(variance).

  Example:
    >>> layer = tf.keras.layers.Normalization(axis=None)
    >>> layer.adapt(np.array([1., 2., 3., 4., 5.]))
    >>> layer(np.array([1., 3., 5.])).numpy().round(4)
    array([-1.4142,  0.    ,  1.4142], dtype=float32)
  """

  _tl_adapt_eagerly = True

  def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
    super().__init__(**kwargs)
    if axis is None:
      axis = ()
    elif isinstance(axis, int):
      axis = (axis,)
    elif isinstance(axis, (list, tuple)) and all(isinstance(a, int) for a in axis):
      axis = tuple(axis)
    else:
      raise TypeError(f"Normalization: `axis` must be an int, a tuple of ints or None, got "
                      f"{axis!r:.80}")
    self.axis = axis
    for arg, value in (("mean", mean), ("variance", variance)):
      if isinstance(value, Variable):
        raise ValueError(f"Normalization does not support passing a Variable for the `{arg}` "
                         f"init arg.")
    if (mean is not None) != (variance is not None):
      raise ValueError(f"When setting values directly, both `mean` and `variance` must be "
                       f"set. Got mean: {mean} and variance: {variance}")
    self.input_mean = mean
    self.input_variance = variance
    self.invert = invert

  def build(self, input_shape):
    if isinstance(input_shape, (list, tuple)) and input_shape and \
        all(isinstance(s, TensorShape) for s in input_shape):
      raise ValueError("Normalization only accepts a single input. If you are passing a python "
                       "list or tuple as a single input, please convert to a numpy array or "
                       "`tf.Tensor`.")
    shape = TensorShape(input_shape).as_list()
    ndim = len(shape)
    if any(a < -ndim or a >= ndim for a in self.axis):
      raise ValueError(f"All `axis` values must be in the range [-ndim, ndim). Found ndim: "
                       f"`{ndim}`, axis: {self.axis}")
    keep = sorted(a if a >= 0 else a + ndim for a in self.axis)
    for d in keep:
      if shape[d] is None:
        raise ValueError(f"All `axis` values to be kept must have known shape. Got axis: "
                         f"{self.axis}, input shape: {shape}, with unknown axis at index: {d}")
    self._keep_axis = keep
    self._reduce_axis = [d for d in range(ndim) if d not in keep]
    self._broadcast_shape = [shape[d] if d in keep else 1 for d in range(ndim)]
    stat_shape = tuple(shape[d] for d in keep)
    dtype = self.compute_dtype
    if self.input_mean is None:
      self.adapt_mean = self.add_weight(name="mean", shape=stat_shape, dtype=dtype,
                                        initializer="zeros", trainable=False)
      self.adapt_variance = self.add_weight(name="variance", shape=stat_shape, dtype=dtype,
                                            initializer="ones", trainable=False)
      self.count = self.add_weight(name="count", shape=(), dtype=_dt.int64,
                                   initializer="zeros", trainable=False)
      self.built = True
      self.finalize_state()
    else:
      ones = np.ones(stat_shape)
      mean = np.asarray(listify(self.input_mean)) * ones
      variance = np.asarray(listify(self.input_variance)) * ones
      self.mean = convert_to_tensor(mean.reshape(self._broadcast_shape).astype(
          _dt.as_dtype(dtype).as_numpy_dtype))
      self.variance = convert_to_tensor(variance.reshape(self._broadcast_shape).astype(
          _dt.as_dtype(dtype).as_numpy_dtype))
    self.built = True

  def adapt(self, data, batch_size=None, steps=None):
    # NOTE: Keras 2 builds from the adapt step's input signature: a dataset's element
    # shape (so unbatched elements keep their first axis), else [None, ...].
    spec = getattr(data, "element_spec", None)
    self._tl_adapt_shape = getattr(spec, "shape", None)
    try:
      super().adapt(data, batch_size=batch_size, steps=steps)
    finally:
      self._tl_adapt_shape = None

  def _adapt_maybe_build(self, data):
    shape = getattr(self, "_tl_adapt_shape", None)
    if self.built or shape is None:
      return super()._adapt_maybe_build(data)
    if self._batch_input_shape is None:
      self._batch_input_shape = (None,) * shape.rank
    self.build(shape)
    self.built = True

  def update_state(self, data):
    if self.input_mean is not None:
      raise ValueError(f"Cannot `adapt` a Normalization layer that is initialized with static "
                       f"`mean` and `variance`, you passed mean {self.input_mean} and variance "
                       f"{self.input_variance}.")
    if not self.built:
      raise RuntimeError("`build` must be called before `update_state`.")
    data = self._standardize(data)
    dims = data.shape.as_list()
    if len(dims) != len(self._broadcast_shape) or any(
        dims[d] is not None and dims[d] != self._broadcast_shape[d] for d in self._keep_axis):
      raise ValueError(f"Normalization keeps statistics of shape "
                       f"{[self._broadcast_shape[d] for d in self._keep_axis]} (axis "
                       f"{self.axis}); `adapt` got data of incompatible shape {data.shape}.")
    batch_mean, batch_var = _nn.moments(data, axes=self._reduce_axis)
    if None in dims:
      shape = _a.shape(data, out_type=_dt.int64)
      batch_count = _m.reduce_prod(_a.gather(shape, self._reduce_axis)) \
          if self._reduce_axis else 1
    else:
      batch_count = int(np.prod([dims[d] for d in self._reduce_axis]))
    total = self.count + batch_count
    dtype = self.adapt_mean.dtype
    w_batch = _m.cast(batch_count, dtype) / _m.cast(total, dtype)
    w_old = 1.0 - w_batch
    mean = self.adapt_mean * w_old + batch_mean * w_batch
    var = (self.adapt_variance + (self.adapt_mean - mean) ** 2) * w_old + \
        (batch_var + (batch_mean - mean) ** 2) * w_batch
    self.adapt_mean.assign(mean)
    self.adapt_variance.assign(var)
    self.count.assign(total)

  def reset_state(self):
    if self.input_mean is not None or not self.built:
      return
    self.adapt_mean.assign(_a.zeros_like(self.adapt_mean))
    self.adapt_variance.assign(_a.ones_like(self.adapt_variance))
    self.count.assign(_a.zeros_like(self.count))

  def finalize_state(self):
    if self.input_mean is not None or not self.built:
      return
    self.mean = _a.reshape(self.adapt_mean.read_value(), self._broadcast_shape)
    self.variance = _a.reshape(self.adapt_variance.read_value(), self._broadcast_shape)

  def _standardize(self, x):
    x = convert_to_tensor(x)
    if x.dtype != self.compute_dtype:
      x = _m.cast(x, self.compute_dtype)
    return x

  def call(self, inputs):
    x = self._standardize(inputs)
    if self.input_mean is None:
      # NOTE: read from the variables, so weights loaded from a file take effect.
      mean = _a.reshape(self.adapt_mean, self._broadcast_shape)
      variance = _a.reshape(self.adapt_variance, self._broadcast_shape)
    else:
      mean, variance = self.mean, self.variance
    scale = _m.maximum(_m.sqrt(variance), backend.epsilon())
    if self.invert:
      return mean + x * scale
    return (x - mean) / scale

  def compute_output_shape(self, input_shape):
    return TensorShape(input_shape)

  def get_config(self):
    config = super().get_config()
    config.update({"axis": self.axis, "invert": self.invert, "mean": listify(self.input_mean),
                   "variance": listify(self.input_variance)})
    return config
