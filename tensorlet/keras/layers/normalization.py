"""BatchNormalization with Keras' moving statistics."""
from tensorlet.keras import constraints, initializers, regularizers
from tensorlet.keras.engine.base_layer import InputSpec, Layer
from tensorlet.keras.layers._util import smart_cond
from tensorlet.keras.layers.core import _config
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.ops import nn_ops as _nn
from tensorlet.tensor_shape import TensorShape
from tensorlet.variables import VariableAggregation, VariableSynchronization

__all__ = ["BatchNormalization"]


class BatchNormalization(Layer):
  """Normalizes with the batch's statistics when training, with moving ones otherwise.

  Each training call moves the statistics toward the batch's:
  `moving = moving * momentum + batch * (1 - momentum)`. As in Keras 2 the
  moving variance takes the unbiased batch variance for 4-D inputs (Keras'
  fused kernel) and the biased one otherwise. A frozen layer
  (`trainable=False`) always runs in inference mode.
  """

  def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
               beta_initializer="zeros", gamma_initializer="ones",
               moving_mean_initializer="zeros", moving_variance_initializer="ones",
               beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
               gamma_constraint=None, **kwargs):
    super().__init__(**kwargs)
    self.axis = axis
    self.momentum, self.epsilon = momentum, epsilon
    self.center, self.scale = center, scale
    self.beta_initializer = initializers.get(beta_initializer)
    self.gamma_initializer = initializers.get(gamma_initializer)
    self.moving_mean_initializer = initializers.get(moving_mean_initializer)
    self.moving_variance_initializer = initializers.get(moving_variance_initializer)
    self.beta_regularizer = regularizers.get(beta_regularizer)
    self.gamma_regularizer = regularizers.get(gamma_regularizer)
    self.beta_constraint = constraints.get(beta_constraint)
    self.gamma_constraint = constraints.get(gamma_constraint)
    self.supports_masking = True

  def build(self, input_shape):
    input_shape = TensorShape(input_shape)
    rank = input_shape.rank
    axis = self.axis if isinstance(self.axis, int) else self.axis[0]
    if not -rank <= axis < rank:
      raise ValueError(f"Invalid axis: {self.axis}")
    axis %= rank
    dim = input_shape[axis]
    if dim is None:
      raise ValueError(f"Axis {axis} of input tensor should have a defined dimension but the "
                       f"layer received an input with shape {input_shape}.")
    self._tl_axis = axis
    self._tl_reduce = [i for i in range(rank) if i != axis]
    self._tl_bcast = None if axis == rank - 1 else [dim if i == axis else 1
                                                    for i in range(rank)]
    self.input_spec = InputSpec(ndim=rank, axes={axis: dim})
    self.gamma = self.add_weight("gamma", shape=(dim,), initializer=self.gamma_initializer,
                                 regularizer=self.gamma_regularizer,
                                 constraint=self.gamma_constraint) if self.scale else None
    self.beta = self.add_weight("beta", shape=(dim,), initializer=self.beta_initializer,
                                regularizer=self.beta_regularizer,
                                constraint=self.beta_constraint) if self.center else None
    # As Keras 2: under a distribution strategy each replica keeps its own moving
    # statistics, read as their mean across replicas.
    on_read = {"synchronization": VariableSynchronization.ON_READ,
               "aggregation": VariableAggregation.MEAN}
    self.moving_mean = self.add_weight("moving_mean", shape=(dim,), trainable=False,
                                       initializer=self.moving_mean_initializer, **on_read)
    self.moving_variance = self.add_weight("moving_variance", shape=(dim,), trainable=False,
                                           initializer=self.moving_variance_initializer,
                                           **on_read)
    self.built = True

  def _normalize(self, x, mean, variance):
    params = [mean, variance, self.beta, self.gamma]
    if self._tl_bcast is not None:
      params = [None if p is None else _a.reshape(p, self._tl_bcast) for p in params]
    return _nn.batch_normalization(x, params[0], params[1], params[2], params[3], self.epsilon)

  def _train(self, x):
    mean, variance = _nn.moments(x, self._tl_reduce)
    moving_var = variance
    if x.ndim == 4:
      n = _m.cast(_a.size(x) // _a.shape(x)[self._tl_axis], variance.dtype)
      moving_var = variance * n / _m.maximum(n - 1.0, 1.0)
    decay = 1.0 - self.momentum
    self.moving_mean.assign_sub((self.moving_mean - mean) * decay)
    self.moving_variance.assign_sub((self.moving_variance - moving_var) * decay)
    return self._normalize(x, mean, variance)

  def call(self, inputs, training=None):
    if training is None or training is False or not self.trainable:
      return self._normalize(inputs, self.moving_mean, self.moving_variance)
    return smart_cond(training, lambda: self._train(inputs),
                      lambda: self._normalize(inputs, self.moving_mean, self.moving_variance))

  def compute_output_shape(self, input_shape):
    return TensorShape(input_shape)

  def get_config(self):
    config = super().get_config()
    config.update({"axis": self.axis, "momentum": self.momentum, "epsilon": self.epsilon,
                   "center": self.center, "scale": self.scale})
    for key in ("beta_initializer", "gamma_initializer", "moving_mean_initializer",
                "moving_variance_initializer", "beta_regularizer", "gamma_regularizer",
                "beta_constraint", "gamma_constraint"):
      config[key] = _config(getattr(self, key))
    return config
