"""Per-example normalizations: LayerNormalization, GroupNormalization, UnitNormalization."""
from tensorlet.keras import constraints, initializers, regularizers
from tensorlet.keras.engine.base_layer import InputSpec, Layer
from tensorlet.keras.layers.core import _config
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.ops import nn_ops as _nn
from tensorlet.tensor_shape import TensorShape

__all__ = ["LayerNormalization", "GroupNormalization", "UnitNormalization"]


def _axes(axis, rank):
  """`axis` (int or list) as sorted non-negative axes, Keras 2's errors otherwise."""
  axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
  out = []
  for a in axes:
    if not isinstance(a, int):
      raise TypeError(f"Expected an int or a list/tuple of ints for the argument 'axis', but "
                      f"received: {axis}")
    b = a + rank if a < 0 else a
    if not 0 <= b < rank:
      raise ValueError(f"Invalid value for `axis` argument. Expected 0 <= axis < inputs.rank "
                       f"(with inputs.rank={rank}). Received: axis={tuple(axes)}")
    out.append(b)
  if len(out) != len(set(out)):
    raise ValueError(f"Duplicate axis: {tuple(axes)}")
  return sorted(out)


def _axis_arg(axis):
  if isinstance(axis, (list, tuple)):
    return list(axis)
  if isinstance(axis, int):
    return axis
  raise TypeError(f"Expected an int or a list/tuple of ints for the argument 'axis', but "
                  f"received: {axis}")


class _AffineNorm(Layer):
  """Shared options of the normalizations with a learned scale `gamma` and offset `beta`."""

  def __init__(self, axis, epsilon, center, scale, beta_initializer, gamma_initializer,
               beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint, **kwargs):
    super().__init__(**kwargs)
    self.axis = _axis_arg(axis)
    self.epsilon = epsilon
    self.center, self.scale = center, scale
    self.beta_initializer = initializers.get(beta_initializer)
    self.gamma_initializer = initializers.get(gamma_initializer)
    self.beta_regularizer = regularizers.get(beta_regularizer)
    self.gamma_regularizer = regularizers.get(gamma_regularizer)
    self.beta_constraint = constraints.get(beta_constraint)
    self.gamma_constraint = constraints.get(gamma_constraint)
    self.supports_masking = True

  def _add_affine(self, shape):
    self.gamma = self.add_weight("gamma", shape=shape, initializer=self.gamma_initializer,
                                 regularizer=self.gamma_regularizer,
                                 constraint=self.gamma_constraint) if self.scale else None
    self.beta = self.add_weight("beta", shape=shape, initializer=self.beta_initializer,
                                regularizer=self.beta_regularizer,
                                constraint=self.beta_constraint) if self.center else None

  def compute_output_shape(self, input_shape):
    return TensorShape(input_shape)

  def get_config(self):
    config = super().get_config()
    config.update({"axis": self.axis, "epsilon": self.epsilon, "center": self.center,
                   "scale": self.scale, "beta_initializer": _config(self.beta_initializer),
                   "gamma_initializer": _config(self.gamma_initializer),
                   "beta_regularizer": _config(self.beta_regularizer),
                   "gamma_regularizer": _config(self.gamma_regularizer),
                   "beta_constraint": _config(self.beta_constraint),
                   "gamma_constraint": _config(self.gamma_constraint)})
    return config


class LayerNormalization(_AffineNorm):
  """Normalizes each example over `axis` (the last by default) to mean 0 and variance 1,
  then scales by `gamma` and shifts by `beta` (shaped like those axes)."""

  def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
               gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None,
               beta_constraint=None, gamma_constraint=None, **kwargs):
    super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                     beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint,
                     **kwargs)

  def build(self, input_shape):
    dims = TensorShape(input_shape).as_list()
    self.axis = _axes(self.axis, len(dims))
    shape = [dims[a] for a in self.axis]
    if None in shape:
      raise ValueError(f"The normalized axes {self.axis} of the inputs of LayerNormalization "
                       f"must be defined. Received input_shape={tuple(dims)}")
    self._add_affine(shape)
    self.built = True

  def call(self, inputs):
    rank = inputs.shape.rank
    if type(inputs).__name__ == "RaggedTensor":
      # normalizing the dense inner axes of each element: those of the flat values
      inner = [a - inputs.ragged_rank for a in self.axis]
      if min(inner) < 1:
        raise ValueError(f"LayerNormalization of a RaggedTensor normalizes its uniform inner "
                         f"axes only; got axis={self.axis} for ragged_rank "
                         f"{inputs.ragged_rank}")
      flat = inputs.flat_values
      mean, var = _nn.moments(flat, inner, keepdims=True)
      bshape = [flat.shape[i] if i in inner else 1 for i in range(flat.shape.rank)]
      gamma = None if self.gamma is None else _a.reshape(self.gamma, bshape)
      beta = None if self.beta is None else _a.reshape(self.beta, bshape)
      return inputs.with_flat_values(_nn.batch_normalization(flat, mean, var, beta, gamma,
                                                             self.epsilon))
    mean, var = _nn.moments(inputs, self.axis, keepdims=True)
    bshape = [inputs.shape[i] if i in self.axis else 1 for i in range(rank)]
    gamma = None if self.gamma is None else _a.reshape(self.gamma, bshape)
    beta = None if self.beta is None else _a.reshape(self.beta, bshape)
    return _nn.batch_normalization(inputs, mean, var, beta, gamma, self.epsilon)


class GroupNormalization(_AffineNorm):
  """Splits the channels (`axis`) into `groups` and normalizes each group of each example;
  `groups=-1` is instance normalization, `groups=1` layer normalization over channels."""

  def __init__(self, groups=32, axis=-1, epsilon=1e-3, center=True, scale=True,
               beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
               gamma_regularizer=None, beta_constraint=None, gamma_constraint=None, **kwargs):
    super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                     beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint,
                     **kwargs)
    self.groups = groups

  def build(self, input_shape):
    dims = TensorShape(input_shape).as_list()
    _axes(self.axis, len(dims))
    dim = dims[self.axis]
    if dim is None:
      raise ValueError(f"Axis {self.axis} of input tensor should have a defined dimension but "
                       f"the layer received an input with shape {tuple(dims)}.")
    if self.groups == -1:
      self.groups = dim
    if dim < self.groups:
      raise ValueError(f"Number of groups ({self.groups}) cannot be more than the number of "
                       f"channels ({dim}).")
    if dim % self.groups != 0:
      raise ValueError(f"Number of groups ({self.groups}) must be a multiple of the number of "
                       f"channels ({dim}).")
    self.input_spec = InputSpec(ndim=len(dims), axes={self.axis: dim})
    self._add_affine((dim,))
    self.built = True

  def call(self, inputs):
    dims = inputs.shape.as_list()
    rank = len(dims)
    axis = self.axis % rank
    dim = dims[axis]
    shape = _a.shape(inputs)
    grouped_shape = _a.concat([shape[:axis], [self.groups, dim // self.groups],
                               shape[axis + 1:]], 0)
    x = _a.reshape(inputs, grouped_shape)
    reduce = [i for i in range(1, rank + 1) if i != axis]
    mean, var = _nn.moments(x, reduce, keepdims=True)
    x = (x - mean) * _m.rsqrt(var + self.epsilon)
    x = _a.reshape(x, shape)
    bshape = [dim if i == axis else 1 for i in range(rank)]
    if self.gamma is not None:
      x = x * _a.reshape(self.gamma, bshape)
    if self.beta is not None:
      x = x + _a.reshape(self.beta, bshape)
    return x

  def get_config(self):
    config = super().get_config()
    config["groups"] = self.groups
    return config


class UnitNormalization(Layer):
  """Scales each example to unit L2 norm over `axis`."""

  def __init__(self, axis=-1, **kwargs):
    super().__init__(**kwargs)
    self.axis = _axis_arg(axis)
    self.supports_masking = True

  def build(self, input_shape):
    self._tl_axes = _axes(self.axis, TensorShape(input_shape).rank)
    self.built = True

  def call(self, inputs):
    # Keras 2 casts (integer inputs too) to the compute dtype first.
    return _m.l2_normalize(_m.cast(inputs, self.compute_dtype), axis=self._tl_axes,
                           epsilon=1e-12)

  def compute_output_shape(self, input_shape):
    return TensorShape(input_shape)

  def get_config(self):
    config = super().get_config()
    config["axis"] = self.axis
    return config
