"""BatchNormalization with Keras 2's moving statistics, dtypes, kernel choice and renorm."""
import warnings

from tensorlet import dtypes as _dt
from tensorlet.keras import constraints, initializers, regularizers
from tensorlet.keras.engine.base_layer import InputSpec, Layer
from tensorlet.keras.layers._util import smart_cond
from tensorlet.keras.layers.core import _config
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.ops import nn_ops as _nn
from tensorlet.tensor import EagerTensor
from tensorlet.tensor_shape import TensorShape
from tensorlet.variables import VariableAggregation, VariableSynchronization

__all__ = ["BatchNormalization"]

_HALF = ("float16", "bfloat16")


class BatchNormalization(Layer):
  """Normalizes with the batch's statistics when training, with moving ones otherwise.

  Each training call moves the statistics toward the batch's:
  `moving = moving * momentum + batch * (1 - momentum)`. Keras 2 runs its fused
  kernel for 4-D and 5-D inputs normalized over the channel axis (1 or last) in a
  float16/float32 compute dtype; that kernel moves the variance toward the
  unbiased batch variance, the plain path (other ranks and axes, float64,
  `fused=False`, `synchronized=True`) toward the biased one. The weights are
  float32 for a float16 layer and never AutoCast, and float16 inputs are
  normalized in float32 (the output is float16). A `mask` weighs the batch
  statistics on the plain path (the fused kernel ignores it, with a warning).
  `renorm=True` is Keras' batch renormalization (r and d corrections from renorm
  statistics, clipped by `renorm_clipping`; the moving variance follows a moving
  standard deviation), `adjustment` a function of the input shape giving a (scale,
  bias) applied in training, `virtual_batch_size` Keras' ghost batches.
  A frozen layer (`trainable=False`) always runs in inference mode.
  """

  def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
               beta_initializer="zeros", gamma_initializer="ones",
               moving_mean_initializer="zeros", moving_variance_initializer="ones",
               beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
               gamma_constraint=None, synchronized=False, *, renorm=False,
               renorm_clipping=None, renorm_momentum=0.99, fused=None,
               virtual_batch_size=None, adjustment=None, **kwargs):
    super().__init__(**kwargs)
    if isinstance(axis, (list, tuple)):
      self.axis = list(axis)
    elif isinstance(axis, int) and not isinstance(axis, bool):
      self.axis = axis
    else:
      raise TypeError(f"Expected an int or a list/tuple of ints for the argument 'axis', "
                      f"but received: {axis!r}")
    if synchronized and fused:
      raise ValueError("`fused=True` is not supported when `synchronized=True`.")
    self.synchronized = bool(synchronized)
    if self.synchronized:
      fused = False
    self.momentum, self.epsilon = momentum, epsilon
    self.center, self.scale = center, scale
    self.renorm = bool(renorm)
    self.virtual_batch_size, self.adjustment = virtual_batch_size, adjustment
    if self.renorm:
      renorm_clipping = renorm_clipping or {}
      keys = ["rmax", "rmin", "dmax"]
      if set(renorm_clipping) - set(keys):
        raise ValueError(f"Received invalid keys for `renorm_clipping` argument: "
                         f"{renorm_clipping}. Supported values: {keys}.")
      self.renorm_clipping, self.renorm_momentum = renorm_clipping, renorm_momentum
    self.beta_initializer = initializers.get(beta_initializer)
    self.gamma_initializer = initializers.get(gamma_initializer)
    self.moving_mean_initializer = initializers.get(moving_mean_initializer)
    self.moving_variance_initializer = initializers.get(moving_variance_initializer)
    self.beta_regularizer = regularizers.get(beta_regularizer)
    self.gamma_regularizer = regularizers.get(gamma_regularizer)
    self.beta_constraint = constraints.get(beta_constraint)
    self.gamma_constraint = constraints.get(gamma_constraint)
    if fused:
      self._raise_if_fused_cannot_be_used()
    elif fused is None and not self._fused_can_be_used():
      fused = False
    self.fused = fused
    self.supports_masking = True

  def _raise_if_fused_cannot_be_used(self):
    if self.renorm:
      raise ValueError("Passing both `fused=True` and `renorm=True` is not supported")
    axis = [self.axis] if isinstance(self.axis, int) else self.axis
    if len(axis) > 1 or axis[0] not in (-4, -3, -1, 1, 3, 4):
      raise ValueError(f"Passing `fused=True` is only supported when axis is 1 or 3 for "
                       f"input rank = 4 or 1 or 4 for input rank = 5. Got axis {axis}")
    if self.virtual_batch_size is not None:
      raise ValueError("Passing `fused=True` is not supported when `virtual_batch_size` is "
                       "specified.")
    if self.adjustment is not None:
      raise ValueError("Passing `fused=True` is not supported when `adjustment` is specified.")
    if self.compute_dtype not in ("float16", "bfloat16", "float32", None):
      raise ValueError(f"Passing `fused=True` is only supported when the compute dtype is "
                       f"float16, bfloat16, or float32. Got dtype: {self.compute_dtype}")

  def _fused_can_be_used(self):
    try:
      self._raise_if_fused_cannot_be_used()
      return True
    except ValueError:
      return False

  @property
  def _param_dtype(self):
    return _dt.float32 if self.dtype in _HALF else _dt.as_dtype(self.dtype or "float32")

  def build(self, input_shape):
    input_shape = TensorShape(input_shape)
    rank = input_shape.rank
    if not rank:
      raise ValueError(f"Input has undefined rank. Received: input_shape={input_shape}")
    axis = [self.axis] if isinstance(self.axis, int) else list(self.axis)
    axis = [a + rank if a < 0 else a for a in axis]
    if any(not 0 <= a < rank for a in axis):
      raise ValueError(f"Invalid value for `axis` argument. Expected 0 <= axis < inputs.rank "
                       f"(with inputs.rank={rank}). Received: axis={tuple(axis)}")
    if len(axis) != len(set(axis)):
      raise ValueError(f"Duplicate axis: {tuple(axis)}")
    self.axis = axis  # as Keras: the config of a built layer lists the axes
    vbs = self.virtual_batch_size
    if vbs is not None:
      if vbs <= 0:
        raise ValueError(f"`virtual_batch_size` must be a positive integer that divides the "
                         f"true batch size of the input tensor. Received: "
                         f"virtual_batch_size={vbs}")
      if 0 in axis:
        raise ValueError(f"When using `virtual_batch_size`, the batch dimension must be 0 and "
                         f"thus axis cannot include 0. Received axis={axis}")
      if self.adjustment is not None:
        raise ValueError("When using `virtual_batch_size`, adjustment cannot be specified")
    if self.fused is None:
      self.fused = rank in (4, 5)
    elif self.fused and rank not in (4, 5):
      raise ValueError(f"Batch normalization layers with `fused=True` only support 4D or 5D "
                       f"input tensors. Received tensor with shape: {tuple(input_shape)}")
    if self.fused and axis not in ([1], [rank - 1]):
      if rank == 5:
        self.fused = False
      else:
        raise ValueError(f"Unsupported axis. The use of `fused=True` is only possible with "
                         f"`axis=1` or `axis=3` for 4D input tensors. Received: "
                         f"axis={tuple(axis)}")
    dims = {a: input_shape[a] for a in axis}
    if any(d is None for d in dims.values()):
      raise ValueError(f"Input has undefined `axis` dimension. Received input with shape "
                       f"{tuple(input_shape)} and axis={tuple(axis)}")
    self.input_spec = InputSpec(ndim=rank, axes=dims)
    if len(axis) == 1 and vbs is None:
      shape = (dims[axis[0]],)
      self._tl_bcast = None if axis[0] == rank - 1 else [
          dims[axis[0]] if i == axis[0] else 1 for i in range(rank)]
    else:
      shape = tuple(dims.get(i, 1) for i in range(rank))
      self._tl_bcast = None
    self._tl_reduce = [i for i in range(rank) if i not in axis]
    if vbs is not None:
      # Keras' ghost batches: the inputs reshaped to (vbs, batch // vbs, ...), a weight
      # dimension of 1 for the new one, statistics per ghost batch (not over axis 1)
      shape = (shape[0], 1) + shape[1:]
      self.axis = axis = [a + 1 for a in axis]
      self._tl_reduce = [i for i in range(rank + 1) if i not in axis]
      del self._tl_reduce[1]
    param = dict(shape=shape, dtype=self._param_dtype, experimental_autocast=False)
    self.gamma = self.add_weight("gamma", initializer=self.gamma_initializer,
                                 regularizer=self.gamma_regularizer,
                                 constraint=self.gamma_constraint, **param) if self.scale else None
    self.beta = self.add_weight("beta", initializer=self.beta_initializer,
                                regularizer=self.beta_regularizer,
                                constraint=self.beta_constraint, **param) if self.center else None
    # As Keras 2: under a distribution strategy each replica keeps its own moving
    # statistics, read as their mean across replicas.
    stat = dict(trainable=False, synchronization=VariableSynchronization.ON_READ,
                aggregation=VariableAggregation.MEAN, **param)
    self.moving_mean = self.add_weight("moving_mean", initializer=self.moving_mean_initializer,
                                       **stat)
    self.moving_variance = self.add_weight(
        "moving_variance", initializer=self.moving_variance_initializer, **stat)
    if self.renorm:
      # batch renormalization tracks the inference standard deviation (and, for the
      # corrections, a mean and standard deviation of their own)
      def stddev_initializer(*args, **kwargs):
        return _m.sqrt(self.moving_variance_initializer(*args, **kwargs))
      self.moving_stddev = self.add_weight("moving_stddev", initializer=stddev_initializer,
                                           **stat)
      self.renorm_mean = self.add_weight("renorm_mean", initializer=self.moving_mean_initializer,
                                         **stat)
      self.renorm_stddev = self.add_weight("renorm_stddev", initializer=stddev_initializer,
                                           **stat)
    self.built = True

  def _bcast(self, v):
    return v if v is None or self._tl_bcast is None else _a.reshape(v, self._tl_bcast)

  def _normalize(self, x, mean, variance, offset=None, scale=None):
    if offset is None and scale is None:
      offset, scale = self._bcast(self.beta), self._bcast(self.gamma)
    params = [None if p is None else _m.cast(p, x.dtype)
              for p in (self._bcast(mean), self._bcast(variance), offset, scale)]
    return _nn.batch_normalization(x, *params, self.epsilon)

  def _moments(self, x, mask):
    keepdims = len(self.axis) > 1 or self.virtual_batch_size is not None
    if self.synchronized:
      return self._sync_moments(x, mask, keepdims)
    if mask is None:
      return _nn.moments(x, self._tl_reduce, keepdims=keepdims)
    weights = _a.expand_dims(_m.cast(mask, self.compute_dtype), -1)
    return _nn.weighted_moments(x, self._tl_reduce, weights, keepdims=keepdims)

  def _sync_moments(self, x, mask, keepdims):
    # Keras' all-reduce of sums over the replicas (one replica outside a strategy)
    from tensorlet.distribute import distribute_lib
    ctx = distribute_lib.get_replica_context()
    if ctx is None:
      return _nn.moments(x, self._tl_reduce, keepdims=keepdims)
    axes = self._tl_reduce
    if mask is not None:
      weights = _a.expand_dims(_m.cast(mask, x.dtype), -1)
      x = x * weights
      count = _a.broadcast_to(weights, _a.shape(x))
    else:
      count = _a.ones_like(x)
    total, squares, count = ctx.all_reduce("SUM", [
        _m.reduce_sum(x, axes, keepdims=True), _m.reduce_sum(_m.square(x), axes, keepdims=True),
        _m.reduce_sum(count, axes, keepdims=True)])
    mean = _m.div_no_nan(total, count)
    variance = _m.maximum(_m.div_no_nan(squares, count) - _m.square(mean), 0.0)
    if not keepdims:
      mean, variance = _a.squeeze(mean, axes), _a.squeeze(variance, axes)
    return mean, variance

  def _update(self, variable, value, momentum=None):
    decay = _m.cast(1.0 - (self.momentum if momentum is None else momentum), variable.dtype)
    return variable.assign_sub((variable - _m.cast(value, variable.dtype)) * decay)

  def _renorm_corrections(self, mean, variance):
    """Batch renormalization's r and d (from the renorm statistics before this batch
    moves them), clipped as asked."""
    stddev = _m.sqrt(variance + self.epsilon)
    renorm_stddev = _m.maximum(self.renorm_stddev, _m.sqrt(self.epsilon))
    r = stddev / renorm_stddev
    d = (mean - self.renorm_mean) / renorm_stddev
    clip = self.renorm_clipping
    if clip.get("rmin") is not None:
      r = _m.maximum(r, clip["rmin"])
    if clip.get("rmax") is not None:
      r = _m.minimum(r, clip["rmax"])
    if clip.get("dmax") is not None:
      d = _m.minimum(_m.maximum(d, -clip["dmax"]), clip["dmax"])
    self._update(self.renorm_mean, mean, self.renorm_momentum)
    self._update(self.renorm_stddev, stddev, self.renorm_momentum)
    return _a.stop_gradient(r), _a.stop_gradient(d)

  def _train(self, x, mask):
    if self.fused:
      mean, variance = _nn.moments(x, self._tl_reduce)
      # the fused kernel's moving variance is the unbiased batch variance
      n = _m.cast(_a.size(x) // _a.shape(x)[self.axis[0]], variance.dtype)
      moving_var = variance * n / _m.maximum(n - 1.0, 1.0)
      self._update(self.moving_mean, mean)
      self._update(self.moving_variance, moving_var)
      return self._normalize(x, mean, variance)
    mean, variance = self._moments(_m.cast(x, self._param_dtype), mask)
    new_mean, new_variance = mean, variance
    if self.virtual_batch_size is not None:  # the moving statistics take the ghosts' mean
      new_mean = _m.reduce_mean(mean, axis=1, keepdims=True)
      new_variance = _m.reduce_mean(variance, axis=1, keepdims=True)
    scale, offset = self._bcast(self.gamma), self._bcast(self.beta)
    # Keras composes (scale, offset) with a transform applied after it: x * s + o
    if self.adjustment is not None:
      adj_scale, adj_bias = self.adjustment(_a.shape(x))
      scale, offset = _compose(adj_scale, adj_bias, scale, offset)
    if self.renorm:
      r, d = self._renorm_corrections(new_mean, new_variance)
      scale, offset = _compose(self._bcast(r), self._bcast(d), scale, offset)
      stddev = self._update(self.moving_stddev, _m.sqrt(new_variance + self.epsilon))
      self.moving_variance.assign(_nn.relu(stddev * stddev - self.epsilon))
    else:
      self._update(self.moving_variance, new_variance)
    self._update(self.moving_mean, new_mean)
    return self._normalize(x, mean, variance, offset, scale)

  def call(self, inputs, training=None, mask=None):
    inputs = _m.cast(inputs, self.compute_dtype)
    if self.fused and mask is not None:
      warnings.warn("Masking is not supported with `fused=True`. You should either turn off "
                    "fusing (`fused=False`) or you should not pass a `mask` argument when "
                    "calling the layer. For the moment `mask` will be ignored for the "
                    "normalization.", stacklevel=2)
      mask = None
    half = inputs.dtype.name in _HALF
    x = _m.cast(inputs, _dt.float32) if half else inputs  # 16-bit inputs: float32 math
    vbs = self.virtual_batch_size
    if vbs is not None:
      # NOTE: as Keras, ghost batches only when training is known to be True; else one
      # batch (a training flag known only when the graph runs included)
      known = training is True or (isinstance(training, EagerTensor) and bool(training))
      rest = _a.shape(x)[1:]
      original = _a.concat([[-1], rest], 0)
      x = _a.reshape(x, _a.concat([[vbs, -1] if known else [-1, 1], rest], 0))
    if training is None or training is False or not self.trainable:
      out = self._normalize(x, self.moving_mean, self.moving_variance)
    else:
      out = smart_cond(training, lambda: self._train(x, mask),
                       lambda: self._normalize(x, self.moving_mean, self.moving_variance))
    if vbs is not None:
      out = _a.reshape(out, original)
    return _m.cast(out, inputs.dtype) if half else out

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
    if self.renorm:
      config.update(renorm=True, renorm_clipping=self.renorm_clipping,
                    renorm_momentum=self.renorm_momentum)
    if self.virtual_batch_size is not None:
      config["virtual_batch_size"] = self.virtual_batch_size
    if self.adjustment is not None:
      warnings.warn("The `adjustment` function of this `BatchNormalization` layer cannot be "
                    "serialized and has been omitted from the layer config. It will not be "
                    "included when re-creating the layer from the saved config.", stacklevel=2)
    return config  # NOTE: as Keras 2's, without `synchronized` (and `fused`)


def _compose(scale, offset, then_scale, then_offset):
  """(scale, offset) of x * scale + offset followed by * then_scale + then_offset."""
  if then_scale is not None:
    scale, offset = scale * then_scale, offset * then_scale
  if then_offset is not None:
    offset = offset + then_offset
  return scale, offset
