"""tf.keras.losses: loss functions and Keras 2's Loss classes.

A Loss computes per-sample values with its function (reduced over the last
axis), weights them by `sample_weight` (squeezed or expanded by one
dimension to match, as Keras does) and reduces them: 'auto' and
'sum_over_batch_size' divide the sum by the number of elements, 'sum' sums,
'none' keeps them.
"""
import contextlib
import re

from tensorlet import dtypes as _dt
from tensorlet.context import ctx, name_scope
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
           "MAE", "get", "serialize", "deserialize", "Hinge", "SquaredHinge", "CategoricalHinge",
           "Huber", "LogCosh", "KLDivergence", "Poisson", "CosineSimilarity",
           "MeanSquaredLogarithmicError", "MeanAbsolutePercentageError",
           "BinaryFocalCrossentropy", "CategoricalFocalCrossentropy", "hinge", "squared_hinge",
           "categorical_hinge", "huber", "log_cosh", "logcosh", "kl_divergence", "kld", "KLD",
           "kullback_leibler_divergence", "poisson", "cosine_similarity",
           "mean_squared_logarithmic_error", "msle", "MSLE", "mean_absolute_percentage_error",
           "mape", "MAPE", "binary_focal_crossentropy", "categorical_focal_crossentropy"]


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


def graph_scope(name):
  """tf.name_scope(name) while tracing; nothing eagerly (where names are unused)."""
  return name_scope(name) if ctx.graph is not None else contextlib.nullcontext()


def _scope_name(name, class_name):
  """Keras' name scope of a loss: its name with characters a scope cannot hold dropped."""
  if not name:
    return class_name.strip("_")
  return re.sub(r"[^A-Za-z0-9_.\-]", "", name) or "lambda"


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


def _maybe_convert_labels(y_true):
  """Labels that are all 0 or 1 become -1 / 1 (Keras' hinge convention)."""
  binary = _m.reduce_all(_m.logical_or(_m.equal(y_true, 0.0), _m.equal(y_true, 1.0)))
  return _a.where(binary, 2.0 * y_true - 1.0, y_true)


def hinge(y_true, y_pred):
  """mean(max(1 - y_true * y_pred, 0), -1); 0/1 labels are taken as -1/1."""
  y_true, y_pred = _pair(y_true, y_pred)
  y_true = _maybe_convert_labels(y_true)
  return _m.reduce_mean(_m.maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


def squared_hinge(y_true, y_pred):
  """mean(max(1 - y_true * y_pred, 0)^2, -1); 0/1 labels are taken as -1/1."""
  y_true, y_pred = _pair(y_true, y_pred)
  y_true = _maybe_convert_labels(y_true)
  return _m.reduce_mean(_m.square(_m.maximum(1.0 - y_true * y_pred, 0.0)), axis=-1)


def categorical_hinge(y_true, y_pred):
  """max(max((1 - y_true) * y_pred, -1) - sum(y_true * y_pred, -1) + 1, 0)."""
  y_true, y_pred = _pair(y_true, y_pred)
  pos = _m.reduce_sum(y_true * y_pred, axis=-1)
  neg = _m.reduce_max((1.0 - y_true) * y_pred, axis=-1)
  return _m.maximum(neg - pos + 1.0, 0.0)


def huber(y_true, y_pred, delta=1.0):
  """mean over -1 of 0.5 e^2 where |e| <= delta, else delta |e| - 0.5 delta^2."""
  floatx = _dt.as_dtype(backend.floatx())
  y_pred, y_true = _m.cast(y_pred, floatx), _m.cast(y_true, floatx)
  delta = _m.cast(delta, floatx)
  error = y_pred - y_true
  abs_error = _m.abs(error)
  return _m.reduce_mean(_a.where(abs_error <= delta, 0.5 * _m.square(error),
                                 delta * abs_error - 0.5 * _m.square(delta)), axis=-1)


def log_cosh(y_true, y_pred):
  """mean(log(cosh(y_pred - y_true)), -1), computed as x + softplus(-2x) - log 2."""
  y_true, y_pred = _pair(y_true, y_pred)
  x = y_pred - y_true
  return _m.reduce_mean(x + _m.softplus(-2.0 * x) - _m.cast(_m.log(2.0), x.dtype), axis=-1)


def kl_divergence(y_true, y_pred):
  """sum(y_true * log(y_true / y_pred), -1), both clipped to [eps, 1]."""
  y_true, y_pred = _pair(y_true, y_pred)
  eps = _eps(y_pred.dtype)
  y_true = clip_ops.clip_by_value(y_true, eps, 1.0)
  y_pred = clip_ops.clip_by_value(y_pred, eps, 1.0)
  return _m.reduce_sum(y_true * _m.log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
  """mean(y_pred - y_true * log(y_pred + eps), -1)."""
  y_true, y_pred = _pair(y_true, y_pred)
  return _m.reduce_mean(y_pred - y_true * _m.log(y_pred + _eps(y_pred.dtype)), axis=-1)


def cosine_similarity(y_true, y_pred, axis=-1):
  """-sum(l2_normalize(y_true) * l2_normalize(y_pred), axis) (a loss: -1 is best)."""
  y_true, y_pred = _pair(y_true, y_pred)
  y_true = _m.l2_normalize(y_true, axis=axis)
  y_pred = _m.l2_normalize(y_pred, axis=axis)
  return -_m.reduce_sum(y_true * y_pred, axis=axis)


def mean_squared_logarithmic_error(y_true, y_pred):
  """mean((log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1))^2, -1)."""
  y_true, y_pred = _pair(y_true, y_pred)
  eps = _eps(y_pred.dtype)
  first = _m.log(_m.maximum(y_pred, eps) + 1.0)
  second = _m.log(_m.maximum(y_true, eps) + 1.0)
  return _m.reduce_mean(_m.squared_difference(first, second), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
  """100 * mean(|y_true - y_pred| / max(|y_true|, eps), -1)."""
  y_true, y_pred = _pair(y_true, y_pred)
  diff = _m.abs((y_true - y_pred) / _m.maximum(_m.abs(y_true), _eps(y_pred.dtype)))
  return 100.0 * _m.reduce_mean(diff, axis=-1)


def binary_focal_crossentropy(y_true, y_pred, apply_class_balancing=False, alpha=0.25,
                              gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1):
  """Mean over `axis` of (1 - p_t)^gamma * binary cross-entropy, p_t the probability
  given to the true class; with `apply_class_balancing` weighted alpha / 1 - alpha."""
  y_true, y_pred = _pair(y_true, y_pred)
  if label_smoothing:
    y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
  p = _m.sigmoid(y_pred) if from_logits else y_pred
  p_t = y_true * p + (1.0 - y_true) * (1.0 - p)
  focal = _m.pow(1.0 - p_t, _m.cast(gamma, p.dtype)) * \
      _binary_crossentropy(y_true, y_pred, from_logits)
  if apply_class_balancing:
    focal = (y_true * alpha + (1.0 - y_true) * (1.0 - alpha)) * focal
  return _m.reduce_mean(focal, axis=axis)


def categorical_focal_crossentropy(y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False,
                                   label_smoothing=0.0, axis=-1):
  """sum over `axis` of -alpha (1 - p)^gamma y_true log(p), p the normalised, clipped
  probabilities (softmax of logits)."""
  y_true, y_pred = _pair(y_true, y_pred)
  if label_smoothing:
    n = _m.cast(_a.shape(y_true)[-1], y_pred.dtype)
    y_true = y_true * (1.0 - label_smoothing) + label_smoothing / n
  if from_logits:
    y_pred = nn_ops.softmax(y_pred, axis=axis)
  p = y_pred / _m.reduce_sum(y_pred, axis, keepdims=True)
  eps = _eps(p.dtype)
  p = clip_ops.clip_by_value(p, eps, 1.0 - eps)
  focal = alpha * _m.pow(1.0 - p, _m.cast(gamma, p.dtype)) * (-y_true * _m.log(p))
  return _m.reduce_sum(focal, axis=axis)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
msle = MSLE = mean_squared_logarithmic_error
mape = MAPE = mean_absolute_percentage_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh


# ------------------------------------------------------------------ classes
class Loss:
  """Base class: subclasses implement `call(y_true, y_pred)` -> per-sample losses."""

  def __init__(self, reduction=Reduction.AUTO, name=None):
    Reduction.validate(reduction)
    self.reduction = reduction
    self.name = name

  def __call__(self, y_true, y_pred, sample_weight=None):
    # NOTE: as Keras, a traced loss is built under its name's scope
    # ("mean_squared_error/...", the weighting under ".../weighted_loss/").
    with graph_scope(_scope_name(self.name, type(self).__name__)):
      losses = self.call(y_true, y_pred)
      reduction = Reduction.SUM_OVER_BATCH_SIZE if self.reduction == Reduction.AUTO \
          else self.reduction
      with graph_scope("weighted_loss"):
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


def _loss_class(fn, cls_name, default_name, doc, **defaults):
  """A LossFunctionWrapper subclass calling `fn` with keyword defaults (Keras' signature:
  the function's options, then reduction and name)."""
  def __init__(self, *args, reduction=Reduction.AUTO, name=default_name, **kwargs):
    if len(args) > len(defaults):
      raise TypeError(f"{cls_name}() takes at most {len(defaults)} positional arguments "
                      f"({len(args)} given)")
    kw = dict(defaults)
    for key, value in zip(defaults, args):
      kw[key] = value
    for key, value in kwargs.items():
      if key not in defaults:
        raise TypeError(f"{cls_name}.__init__() got an unexpected keyword argument '{key}'")
      kw[key] = value
    LossFunctionWrapper.__init__(self, fn, reduction=reduction, name=name, **kw)
  return type(cls_name, (LossFunctionWrapper,), {"__init__": __init__, "__doc__": doc,
                                                 "__module__": __name__})


Hinge = _loss_class(hinge, "Hinge", "hinge", "Hinge loss of -1/1 (or 0/1) labels.")
SquaredHinge = _loss_class(squared_hinge, "SquaredHinge", "squared_hinge",
                           "Squared hinge loss of -1/1 (or 0/1) labels.")
CategoricalHinge = _loss_class(categorical_hinge, "CategoricalHinge", "categorical_hinge",
                               "Hinge loss of one-hot labels.")
Huber = _loss_class(huber, "Huber", "huber_loss", "Quadratic within `delta`, linear outside.",
                    delta=1.0)
LogCosh = _loss_class(log_cosh, "LogCosh", "log_cosh", "Logarithm of the hyperbolic cosine.")
KLDivergence = _loss_class(kl_divergence, "KLDivergence", "kl_divergence",
                           "Kullback-Leibler divergence of y_pred from y_true.")
Poisson = _loss_class(poisson, "Poisson", "poisson", "Poisson negative log likelihood.")
CosineSimilarity = _loss_class(cosine_similarity, "CosineSimilarity", "cosine_similarity",
                               "Negative cosine similarity along `axis`.", axis=-1)
MeanSquaredLogarithmicError = _loss_class(
    mean_squared_logarithmic_error, "MeanSquaredLogarithmicError",
    "mean_squared_logarithmic_error", "Mean squared difference of log(1 + x).")
MeanAbsolutePercentageError = _loss_class(
    mean_absolute_percentage_error, "MeanAbsolutePercentageError",
    "mean_absolute_percentage_error", "100 times the mean relative absolute error.")
BinaryFocalCrossentropy = _loss_class(
    binary_focal_crossentropy, "BinaryFocalCrossentropy", "binary_focal_crossentropy",
    "Binary cross-entropy down-weighting easy examples by (1 - p_t)^gamma.",
    apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False,
    label_smoothing=0.0, axis=-1)
CategoricalFocalCrossentropy = _loss_class(
    categorical_focal_crossentropy, "CategoricalFocalCrossentropy",
    "categorical_focal_crossentropy",
    "Categorical cross-entropy down-weighting easy examples by alpha (1 - p)^gamma.",
    alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1)


# ------------------------------------------------------------------ lookup
_CLASSES = {c.__name__: c for c in (
    MeanSquaredError, MeanAbsoluteError, BinaryCrossentropy, CategoricalCrossentropy,
    SparseCategoricalCrossentropy, Hinge, SquaredHinge, CategoricalHinge, Huber, LogCosh,
    KLDivergence, Poisson, CosineSimilarity, MeanSquaredLogarithmicError,
    MeanAbsolutePercentageError, BinaryFocalCrossentropy, CategoricalFocalCrossentropy)}
_FUNCTIONS = {f.__name__: f for f in (
    mean_squared_error, mean_absolute_error, binary_crossentropy, categorical_crossentropy,
    sparse_categorical_crossentropy, hinge, squared_hinge, categorical_hinge, huber, log_cosh,
    kl_divergence, poisson, cosine_similarity, mean_squared_logarithmic_error,
    mean_absolute_percentage_error, binary_focal_crossentropy,
    categorical_focal_crossentropy)}
_FUNCTIONS.update(mse=mse, MSE=mse, mae=mae, MAE=mae, msle=msle, MSLE=msle, mape=mape,
                  MAPE=mape, kld=kld, KLD=kld, kullback_leibler_divergence=kld,
                  logcosh=log_cosh, huber_loss=huber)


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


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.keras.losses", __name__)
