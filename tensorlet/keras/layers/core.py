"""Core layers: Dense, Activation, Dropout, Flatten, Reshape, Embedding."""
import math

from tensorlet import dtypes as _dt
from tensorlet.keras import activations, constraints, initializers, regularizers
from tensorlet.keras.engine.base_layer import InputSpec, Layer, shape_tuple
from tensorlet.keras.layers._util import int_tuple, smart_cond
from tensorlet.ops import array_ops as _a
from tensorlet.ops import linalg_ops as _la
from tensorlet.ops import math_ops as _m
from tensorlet.ops import nn_ops as _nn
from tensorlet.ops._common import as_int
from tensorlet.tensor_shape import TensorShape

__all__ = ["Dense", "Activation", "Dropout", "Flatten", "Reshape", "Embedding"]


def _config(fn):
  """The serialized form of an initializer/regularizer/constraint (None stays None)."""
  if fn is None:
    return None
  cfg = getattr(fn, "get_config", None)
  return {"class_name": type(fn).__name__, "config": cfg()} if cfg else fn


def set_kernel_bias_options(layer, activation, use_bias, kernel_initializer,
                            bias_initializer, kernel_regularizer, bias_regularizer,
                            kernel_constraint, bias_constraint):
  """Resolves the activation and the kernel/bias options shared by Dense and Conv2D."""
  layer.activation = activations.get(activation)
  layer.use_bias = use_bias
  layer.kernel_initializer = initializers.get(kernel_initializer)
  layer.bias_initializer = initializers.get(bias_initializer)
  layer.kernel_regularizer = regularizers.get(kernel_regularizer)
  layer.bias_regularizer = regularizers.get(bias_regularizer)
  layer.kernel_constraint = constraints.get(kernel_constraint)
  layer.bias_constraint = constraints.get(bias_constraint)
  # NOTE: a linear activation is skipped rather than called.
  layer._tl_act = None if layer.activation is activations.linear else layer.activation


def kernel_bias_config(layer):
  """The config entries of the options `set_kernel_bias_options` set (Keras 2's keys)."""
  return {"activation": activations.serialize(layer.activation), "use_bias": layer.use_bias,
          "kernel_initializer": _config(layer.kernel_initializer),
          "bias_initializer": _config(layer.bias_initializer),
          "kernel_regularizer": _config(layer.kernel_regularizer),
          "bias_regularizer": _config(layer.bias_regularizer),
          "activity_regularizer": _config(layer.activity_regularizer),
          "kernel_constraint": _config(layer.kernel_constraint),
          "bias_constraint": _config(layer.bias_constraint)}


class Dense(Layer):
  """`activation(inputs @ kernel + bias)` on the last axis of `inputs`.

  Example:
    >>> tf.keras.layers.Dense(3)(tf.ones([2, 4])).shape
    TensorShape([2, 3])
  """

  def __init__(self, units, activation=None, use_bias=True,
               kernel_initializer="glorot_uniform", bias_initializer="zeros",
               kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
               kernel_constraint=None, bias_constraint=None, **kwargs):
    super().__init__(activity_regularizer=activity_regularizer, **kwargs)
    units = int(units) if isinstance(units, float) else as_int(units, "Dense", "units")
    if units < 0:  # Keras 2 accepts 0 (an empty output)
      raise ValueError(f"Received an invalid value for `units`, expected a positive integer. "
                       f"Received: units={units}")
    self.units = units
    set_kernel_bias_options(self, activation, use_bias, kernel_initializer, bias_initializer,
                            kernel_regularizer, bias_regularizer, kernel_constraint,
                            bias_constraint)
    self.input_spec = InputSpec(min_ndim=2)
    self.supports_masking = True

  def build(self, input_shape):
    last = TensorShape(input_shape)[-1]
    if last is None:
      raise ValueError(f"The last dimension of the inputs to a Dense layer should be defined. "
                       f"Found None. Full input shape received: {input_shape}")
    self.input_spec = InputSpec(min_ndim=2, axes={-1: last})
    self.kernel = self.add_weight("kernel", shape=[last, self.units],
                                  initializer=self.kernel_initializer,
                                  regularizer=self.kernel_regularizer,
                                  constraint=self.kernel_constraint)
    self.bias = self.add_weight("bias", shape=[self.units], initializer=self.bias_initializer,
                                regularizer=self.bias_regularizer,
                                constraint=self.bias_constraint) if self.use_bias else None
    self.built = True

  def call(self, inputs):
    if inputs.dtype != self.kernel.dtype:
      # As Keras 2's Dense: integer (or complex) inputs are cast to the layer's dtype
      # rather than failing in MatMul; strings fail in the Cast (UnimplementedError).
      inputs = _m.cast(inputs, self.kernel.dtype)
    kind = type(inputs).__name__
    if kind == "RaggedTensor":  # the rows keep their lengths: Dense of the flat values
      if inputs.flat_values.shape.rank == 1:
        raise ValueError(f"Dense layer only supports RaggedTensors when the innermost "
                         f"dimension is non-ragged. Received: inputs.shape={inputs.shape}.")
      return inputs.with_flat_values(self.call(inputs.flat_values))
    if kind == "SparseTensor":
      from tensorlet.sparse import sparse_ops
      out = sparse_ops.sparse_dense_matmul(inputs, self.kernel)
      out = _nn.bias_add(out, self.bias) if self.bias is not None else out
      return self._tl_act(out) if self._tl_act is not None else out
    if inputs.ndim == 2:
      out = _m.matmul(inputs, self.kernel)
    else:
      out = _la.tensordot(inputs, self.kernel, [[inputs.ndim - 1], [0]])
    if self.bias is not None:
      out = _nn.bias_add(out, self.bias)
    if self._tl_act is not None:
      out = self._tl_act(out)
    return out

  def compute_output_shape(self, input_shape):
    return TensorShape(input_shape)[:-1].concatenate([self.units])

  def get_config(self):
    config = super().get_config()
    config["units"] = self.units
    config.update(kernel_bias_config(self))
    return config


class Activation(Layer):
  """Applies an activation function ('relu', 'softmax', a callable, ...)."""

  def __init__(self, activation, **kwargs):
    super().__init__(**kwargs)
    self.supports_masking = True
    self.activation = activations.get(activation)

  def call(self, inputs):
    return self.activation(inputs)

  def compute_output_shape(self, input_shape):
    return TensorShape(input_shape)

  def get_config(self):
    config = super().get_config()
    config["activation"] = activations.serialize(self.activation)
    return config


class Dropout(Layer):
  """Zeroes a `rate` fraction of inputs (scaling the rest) when training; identity
  otherwise."""

  def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
    super().__init__(**kwargs)
    if isinstance(rate, (int, float)) and not 0 <= rate <= 1:
      raise ValueError(f"Invalid value received for argument `rate`. Expected a float value "
                       f"between 0 and 1. Received: rate={rate}")
    self.rate, self.noise_shape, self.seed = rate, noise_shape, seed
    self.supports_masking = True

  def call(self, inputs, training=None):
    if training is None or training is False or self.rate == 0:
      return inputs
    if type(inputs).__name__ == "RaggedTensor" and self.noise_shape is None:
      return inputs.with_flat_values(self.call(inputs.flat_values, training))
    return smart_cond(training, lambda: _nn.dropout(inputs, self.rate, self._noise(inputs),
                                                    seed=self.seed),
                      lambda: _a.identity(inputs))

  def _noise(self, inputs):
    if self.noise_shape is None:
      return None
    # NOTE: Keras lets None entries of noise_shape follow the input's dims.
    dims = _a.shape(inputs)
    return _a.stack([dims[i] if d is None else d for i, d in enumerate(self.noise_shape)])

  def compute_output_shape(self, input_shape):
    return TensorShape(input_shape)

  def get_config(self):
    config = super().get_config()
    config.update({"rate": self.rate, "noise_shape": self.noise_shape, "seed": self.seed})
    return config


class Flatten(Layer):
  """Reshapes each example to one axis: (batch, ...) -> (batch, prod(...))."""

  def __init__(self, data_format=None, **kwargs):
    super().__init__(**kwargs)
    from tensorlet.keras.layers._util import normalize_data_format
    self.data_format = normalize_data_format(data_format)
    self.input_spec = InputSpec(min_ndim=1)

  def call(self, inputs):
    if self.data_format == "channels_first" and inputs.ndim > 2:
      inputs = _a.transpose(inputs, [0] + list(range(2, inputs.ndim)) + [1])
    if inputs.ndim == 1:
      return _a.expand_dims(inputs, 1)
    dims = inputs.shape.as_list()
    rest = dims[1:]
    if None in rest:
      return _a.reshape(inputs, _a.stack([_a.shape(inputs)[0], -1]))
    return _a.reshape(inputs, [-1 if dims[0] is None else dims[0], math.prod(rest)])

  def compute_output_shape(self, input_shape):
    dims = TensorShape(input_shape).as_list()
    rest = dims[1:]
    return TensorShape([dims[0], None if None in rest else math.prod(rest)])

  def get_config(self):
    config = super().get_config()
    config["data_format"] = self.data_format
    return config


class Reshape(Layer):
  """Reshapes each example to `target_shape` (one entry may be -1)."""

  def __init__(self, target_shape, **kwargs):
    super().__init__(**kwargs)
    self.target_shape = int_tuple(target_shape, "Reshape", "target_shape")
    if sum(1 for d in self.target_shape if d == -1) > 1:
      raise ValueError(f"There must be at most one unknown dimension (-1) in "
                       f"output_shape. Received: output_shape={self.target_shape}.")

  def call(self, inputs):
    batch = inputs.shape[0] if inputs.ndim else None
    if batch is None:
      if -1 not in self.target_shape:
        # A constant shape keeps the static shape (None, *target_shape) known.
        return _a.reshape(inputs, (-1,) + self.target_shape)
      batch = _a.shape(inputs)[0]
      return _a.reshape(inputs, _a.stack([batch] + list(self.target_shape)))
    return _a.reshape(inputs, (batch,) + self.target_shape)

  def compute_output_shape(self, input_shape):
    dims = TensorShape(input_shape).as_list()
    target = list(self.target_shape)
    if -1 in target:
      known = math.prod(d for d in target if d != -1)
      rest = dims[1:]
      target[target.index(-1)] = None if None in rest else math.prod(rest) // known
    return TensorShape([dims[0]] + target)

  def get_config(self):
    config = super().get_config()
    config["target_shape"] = self.target_shape
    return config


def _sparse_lookup(table, ids, dim):
  from tensorlet.sparse import SparseTensor
  n = _a.shape(ids.indices, out_type=_dt.int64)[0]
  values = _a.reshape(_nn.embedding_lookup(table, ids.values), [-1])
  cols = _a.reshape(_a.tile(_a.range(dim, dtype=_dt.int64), _a.reshape(n, [1])), [-1, 1])
  rows = _a.repeat(ids.indices, dim, axis=0)
  return SparseTensor(_a.concat([rows, cols], 1), values,
                      _a.concat([ids.dense_shape, _a.constant([dim], _dt.int64)], 0))


class Embedding(Layer):
  """Looks up rows of an `(input_dim, output_dim)` table by integer ids."""

  def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
               embeddings_regularizer=None, activity_regularizer=None,
               embeddings_constraint=None, mask_zero=False, input_length=None, sparse=False,
               **kwargs):
    self.sparse = bool(sparse)  # SparseTensor outputs (not in the config, as Keras 2)
    if input_length is not None and "input_shape" not in kwargs:
      kwargs["input_shape"] = shape_tuple(input_length, "input_length")
    kwargs["autocast"] = False
    super().__init__(activity_regularizer=activity_regularizer, **kwargs)
    if input_dim <= 0 or output_dim <= 0:
      raise ValueError(f"Both `input_dim` and `output_dim` should be positive, "
                       f"Received input_dim = {input_dim} and output_dim = {output_dim}")
    self.input_dim, self.output_dim = input_dim, output_dim
    self.embeddings_initializer = initializers.get(embeddings_initializer)
    self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
    self.embeddings_constraint = constraints.get(embeddings_constraint)
    self.mask_zero = mask_zero
    self.supports_masking = mask_zero
    self.input_length = input_length

  def build(self, input_shape=None):
    self.embeddings = self.add_weight("embeddings", shape=[self.input_dim, self.output_dim],
                                      initializer=self.embeddings_initializer,
                                      regularizer=self.embeddings_regularizer,
                                      constraint=self.embeddings_constraint)
    self.built = True

  def call(self, inputs):
    if inputs.dtype not in (_dt.int32, _dt.int64):
      inputs = _m.cast(inputs, _dt.int32)
    from tensorlet.sparse import sparse_ops
    if type(inputs).__name__ == "SparseTensor":
      if self.sparse:  # each id's vector as entries along a new last axis
        return _sparse_lookup(self.embeddings, inputs, self.output_dim)
      # Keras 2 looks the ids up with safe_embedding_lookup_sparse(default_id=0): a
      # missing position gets row 0, as the lookup of the densified ids does
      inputs = sparse_ops.to_dense(inputs)
    out = _nn.embedding_lookup(self.embeddings, inputs)
    return sparse_ops.from_dense(out) if self.sparse else out

  def compute_mask(self, inputs, mask=None):
    return _m.not_equal(inputs, 0) if self.mask_zero else None

  def compute_output_shape(self, input_shape):
    return TensorShape(input_shape).concatenate([self.output_dim])

  def get_config(self):
    config = super().get_config()
    config.update({"input_dim": self.input_dim, "output_dim": self.output_dim,
                   "embeddings_initializer": _config(self.embeddings_initializer),
                   "embeddings_regularizer": _config(self.embeddings_regularizer),
                   "activity_regularizer": _config(self.activity_regularizer),
                   "embeddings_constraint": _config(self.embeddings_constraint),
                   "mask_zero": self.mask_zero, "input_length": self.input_length})
    return config
