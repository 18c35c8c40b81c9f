"""tf.keras.losses: loss functions and Keras 2's Loss classes.

A Loss computes per-sample values with its function (reduced over the last
axis), weights them by `sample_weight` (squeezed or expanded by one
dimension to match, as Keras does) and reduces them: 'auto' and
'sum_over_batch_size' divide the sum by the number of elements, 'sum' sums,
'none' keeps them.
"""
from tensorlet import dtypes as _dt
from tensorlet.keras import backend
from tensorlet.keras.utils.serialization import deserialize_object, get_object
from tensorlet.ops import array_ops as _a
from tensorlet.ops import clip_ops
from tensorlet.ops import math_ops as _m
from tensorlet.ops import nn_ops
from tensorlet.tensor import Tensor, convert_to_tensor

__all__ = ["Reduction", "Loss", "LossFunctionWrapper", "MeanSquaredError", "MeanAbsoluteError",
           "BinaryCrossentropy", "CategoricalCrossentropy", "SparseCategoricalCrossentropy",
           "mean_squared_error", "mean_absolute_error", "binary_crossentropy",
           "categorical_crossentropy", "sparse_categorical_crossentropy", "mse", "MSE", "mae",
           "MAE", "get", "serialize", "deserialize"]


class Reduction:
  """How a Loss reduces the weighted per-sample losses."""
  AUTO = "auto"
  NONE = "none"
  SUM = "sum"
  SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

  @classmethod
  def all(cls):
    return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

  @classmethod
  def validate(cls, key):
    if key not in cls.all():
      raise ValueError(f'Invalid Reduction Key: {key}. Expected keys are "{cls.all()}"')


# ------------------------------------------------------------------ helpers
def _drop_last_unit_dim(a, b):
  """`a` without its last dimension when that is 1 and `a` has one more dim than `b`."""
  ra, rb = a.shape.rank, b.shape.rank
  if ra is not None and rb is not None and ra - rb == 1 and a.shape[-1] == 1:
    return _a.squeeze(a, [-1])
  return a


def squeeze_or_expand_dimensions(y_pred, y_true=None, sample_weight=None):
  """Keras' alignment: a trailing unit dimension is dropped from whichever of
  y_pred / y_true has one more; sample_weight is squeezed or expanded by one
  dimension to y_pred's rank."""
  if y_true is not None:
    y_pred, y_true = _drop_last_unit_dim(y_pred, y_true), _drop_last_unit_dim(y_true, y_pred)
  if sample_weight is None:
    return y_pred, y_true, None
  rw, rp = sample_weight.shape.rank, y_pred.shape.rank
  if rw is not None and rp is not None and rw:
    if rw - rp == 1:
      sample_weight = _a.squeeze(sample_weight, [-1])
    elif rp - rw == 1:
      sample_weight = _a.expand_dims(sample_weight, -1)
  return y_pred, y_true, sample_weight


def compute_weighted_loss(losses, sample_weight=None, reduction=Reduction.SUM_OVER_BATCH_SIZE):
  """Weights `losses` by `sample_weight` and reduces them by `reduction`."""
  losses = convert_to_tensor(losses)
  input_dtype = None
  if not losses.dtype.is_floating:
    input_dtype = losses.dtype
    losses = _m.cast(losses, _dt.float32)
  if sample_weight is not None:
    sample_weight = _m.cast(convert_to_tensor(sample_weight), losses.dtype)
    losses, _, sample_weight = squeeze_or_expand_dimensions(losses, None, sample_weight)
    losses = _m.multiply(losses, sample_weight)
  if reduction != Reduction.NONE:
    total = _m.reduce_sum(losses)
    if reduction != Reduction.SUM:
      total = _m.div_no_nan(total, _m.cast(_a.size(losses), losses.dtype))
    losses = total
  return _m.cast(losses, input_dtype) if input_dtype is not None else losses


def _pair(y_true, y_pred):
  y_pred = convert_to_tensor(y_pred)
  return _m.cast(y_true, y_pred.dtype), y_pred


# --------------------------------------------------------------- functions
def mean_squared_error(y_true, y_pred):
  """mean((y_pred - y_true)^2, axis=-1)."""
  y_true, y_pred = _pair(y_true, y_pred)
  return _m.reduce_mean(_m.squared_difference(y_pred, y_true), axis=-1)


def mean_absolute_error(y_true, y_pred):
  """mean(|y_pred - y_true|, axis=-1)."""
  y_true, y_pred = _pair(y_true, y_pred)
  return _m.reduce_mean(_m.abs(y_pred - y_true), axis=-1)


def _eps(dtype):
  return convert_to_tensor(backend.epsilon(), dtype)


def _binary_crossentropy(target, output, from_logits):
  if from_logits:
    return nn_ops.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
  eps = _eps(output.dtype)
  output = clip_ops.clip_by_value(output, eps, 1.0 - eps)
  bce = target * _m.log(output + eps)
  bce += (1.0 - target) * _m.log(1.0 - output + eps)
  return -bce


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
  """Mean over `axis` of -(y log p + (1 - y) log(1 - p)), p clipped to [eps, 1 - eps]."""
  y_true, y_pred = _pair(y_true, y_pred)
  if label_smoothing:
    y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
  return _m.reduce_mean(_binary_crossentropy(y_true, y_pred, from_logits), axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
  """-sum(y_true * log(p), axis), p = y_pred normalised and clipped (or softmax of logits)."""
  if isinstance(axis, bool):
    raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type "
                     f"{type(axis)}")
  y_true, y_pred = _pair(y_true, y_pred)
  if label_smoothing:
    n = _m.cast(_a.shape(y_true)[-1], y_pred.dtype)
    y_true = y_true * (1.0 - label_smoothing) + label_smoothing / n
  if not y_true.shape.is_compatible_with(y_pred.shape):
    raise ValueError(f"Shapes {_tuple(y_true.shape)} and {_tuple(y_pred.shape)} are "
                     f"incompatible")
  if from_logits:
    return nn_ops.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred, axis=axis)
  p = y_pred / _m.reduce_sum(y_pred, axis, keepdims=True)
  eps = _eps(p.dtype)
  p = clip_ops.clip_by_value(p, eps, 1.0 - eps)
  return -_m.reduce_sum(y_true * _m.log(p), axis)


def _tuple(shape):
  return tuple(shape.as_list()) if shape.rank is not None else "<unknown>"


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1,
                                    ignore_class=None):
  """Cross-entropy of integer labels against probabilities (clipped) or logits.

  Labels with one dimension fewer than y_pred (or a trailing unit dimension)
  index its `axis`; `ignore_class` labels contribute 0.
  """
  target = _m.cast(convert_to_tensor(y_true), _dt.int64)
  output = convert_to_tensor(y_pred)
  if not from_logits:
    eps = _eps(output.dtype)
    output = _m.log(clip_ops.clip_by_value(output, eps, 1.0 - eps))
  rank = output.shape.rank
  if rank is not None and axis % rank != rank - 1:
    perm = [i for i in range(rank) if i != axis % rank] + [axis % rank]
    output = _a.transpose(output, perm)
  reshape = target.shape.rank is not None and rank is not None and \
      target.shape.rank != rank - 1
  out_shape = _a.shape(output)
  if reshape:
    target = _a.reshape(target, [-1])
    output = _a.reshape(output, [-1, out_shape[-1]])
  valid = None
  if ignore_class is not None:
    valid = _m.not_equal(target, ignore_class)
    target = target * _m.cast(valid, target.dtype)
  res = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)
  if valid is not None:
    res = res * _m.cast(valid, res.dtype)
  if reshape and rank >= 3:
    res = _a.reshape(res, out_shape[:-1])
  return res


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error


# ------------------------------------------------------------------ classes
class Loss:
  """Base class: subclasses implement `call(y_true, y_pred)` -> per-sample losses."""

  def __init__(self, reduction=Reduction.AUTO, name=None):
    Reduction.validate(reduction)
    self.reduction = reduction
    self.name = name

  def __call__(self, y_true, y_pred, sample_weight=None):
    losses = self.call(y_true, y_pred)
    reduction = Reduction.SUM_OVER_BATCH_SIZE if self.reduction == Reduction.AUTO \
        else self.reduction
    return compute_weighted_loss(losses, sample_weight, reduction)

  def call(self, y_true, y_pred):
    raise NotImplementedError(f"{type(self).__name__} must implement call(y_true, y_pred).")

  def get_config(self):
    return {"reduction": self.reduction, "name": self.name}

  @classmethod
  def from_config(cls, config):
    return cls(**config)


class LossFunctionWrapper(Loss):
  """A Loss calling `fn(y_true, y_pred, **kwargs)`."""

  def __init__(self, fn, reduction=Reduction.AUTO, name=None, **kwargs):
    super().__init__(reduction=reduction, name=name)
    self.fn = fn
    self._fn_kwargs = kwargs

  def call(self, y_true, y_pred):
    # NOTE: as Keras: only two tensors are aligned; NumPy inputs broadcast as given.
    if isinstance(y_true, Tensor) and isinstance(y_pred, Tensor):
      y_pred, y_true, _ = squeeze_or_expand_dimensions(y_pred, y_true)
    return self.fn(y_true, y_pred, **self._fn_kwargs)

  def get_config(self):
    config = super().get_config()
    config.update(self._fn_kwargs)
    config["fn"] = self.fn.__name__
    return config

  @classmethod
  def from_config(cls, config):
    config = dict(config)
    config.pop("fn", None)
    return cls(**config)


class MeanSquaredError(LossFunctionWrapper):
  """Mean of squared errors."""

  def __init__(self, reduction=Reduction.AUTO, name="mean_squared_error"):
    super().__init__(mean_squared_error, reduction=reduction, name=name)


class MeanAbsoluteError(LossFunctionWrapper):
  """Mean of absolute errors."""

  def __init__(self, reduction=Reduction.AUTO, name="mean_absolute_error"):
    super().__init__(mean_absolute_error, reduction=reduction, name=name)


class BinaryCrossentropy(LossFunctionWrapper):
  """Binary cross-entropy of labels in [0, 1] against probabilities or logits."""

  def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
               reduction=Reduction.AUTO, name="binary_crossentropy"):
    super().__init__(binary_crossentropy, reduction=reduction, name=name,
                     from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)


class CategoricalCrossentropy(LossFunctionWrapper):
  """Cross-entropy of one-hot labels against probabilities or logits."""

  def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
               reduction=Reduction.AUTO, name="categorical_crossentropy"):
    super().__init__(categorical_crossentropy, reduction=reduction, name=name,
                     from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)


class SparseCategoricalCrossentropy(LossFunctionWrapper):
  """Cross-entropy of integer labels against probabilities or logits.

  Example:
    >>> loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    >>> float(loss([0], [[2.0, 0.0]]))  # doctest: +ELLIPSIS
    0.1269...
  """

  def __init__(self, from_logits=False, ignore_class=None, reduction=Reduction.AUTO,
               name="sparse_categorical_crossentropy"):
    super().__init__(sparse_categorical_crossentropy, reduction=reduction, name=name,
                     from_logits=from_logits, ignore_class=ignore_class)


# ------------------------------------------------------------------ lookup
_CLASSES = {c.__name__: c for c in (MeanSquaredError, MeanAbsoluteError, BinaryCrossentropy,
                                    CategoricalCrossentropy, SparseCategoricalCrossentropy)}
_FUNCTIONS = {f.__name__: f for f in (mean_squared_error, mean_absolute_error,
                                      binary_crossentropy, categorical_crossentropy,
                                      sparse_categorical_crossentropy)}
_FUNCTIONS.update(mse=mse, MSE=mse, mae=mae, MAE=mae)


def serialize(loss):
  if isinstance(loss, Loss):
    return {"module": "keras.losses", "class_name": type(loss).__name__,
            "config": loss.get_config(), "registered_name": None}
  return getattr(loss, "__name__", loss)


def deserialize(name, custom_objects=None):
  """A loss function from its name, or a Loss from a `serialize` dict."""
  return deserialize_object(name, custom_objects, _CLASSES, _FUNCTIONS, "loss function")


def get(identifier):
  """A loss from None, a name ('mse', 'categorical_crossentropy', ...), a config
  dict or a callable (returned as is)."""
  return get_object(identifier, deserialize, "loss function")
