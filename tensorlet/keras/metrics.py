"""tf.keras.metrics: stateful metrics and metric functions.

A Metric is a tf.Module whose state lives in non-trainable variables, so
`update_state` works eagerly and stages assign ops inside a tf.function;
`result()` reads the state, `reset_state()` zeroes it.
"""
import sys

from tensorlet import dtypes as _dt
from tensorlet.keras import losses as _losses
from tensorlet.keras.utils.serialization import deserialize_object
from tensorlet.keras.losses import squeeze_or_expand_dimensions
from tensorlet.module import Module
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.tensor import convert_to_tensor
from tensorlet.variables import Variable, VariableAggregation, VariableSynchronization

__all__ = ["Metric", "Mean", "Sum", "MeanMetricWrapper", "Accuracy", "BinaryAccuracy",
           "CategoricalAccuracy", "SparseCategoricalAccuracy", "MeanSquaredError",
           "MeanAbsoluteError", "accuracy", "binary_accuracy", "categorical_accuracy",
           "sparse_categorical_accuracy", "get", "serialize", "deserialize", "SumOverBatchSize",
           "RootMeanSquaredError", "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError",
           "CosineSimilarity", "Hinge", "SquaredHinge", "CategoricalHinge", "KLDivergence",
           "Poisson", "LogCoshError", "BinaryCrossentropy", "CategoricalCrossentropy",
           "SparseCategoricalCrossentropy", "TopKCategoricalAccuracy",
           "SparseTopKCategoricalAccuracy", "MeanIoU", "FBetaScore", "F1Score", "TruePositives",
           "FalsePositives", "TrueNegatives", "FalseNegatives", "Precision", "Recall", "AUC",
           "top_k_categorical_accuracy", "sparse_top_k_categorical_accuracy", "cosine_similarity",
           "hinge", "squared_hinge", "categorical_hinge", "kl_divergence", "kld", "KLD",
           "kullback_leibler_divergence", "poisson", "log_cosh", "logcosh",
           "mean_absolute_percentage_error", "mape", "MAPE", "mean_squared_logarithmic_error",
           "msle", "MSLE", "binary_focal_crossentropy", "categorical_focal_crossentropy"]


class Metric(Module):
  """Base class: subclasses create state with `add_weight` and implement
  `update_state` and `result`."""

  def __init_subclass__(cls, **kwargs):
    super().__init_subclass__(**kwargs)
    fn = cls.__dict__.get("result")
    if fn is not None and not hasattr(fn, "_tl_local_result"):
      cls.result = _replica_merged_result(fn)

  def __init__(self, name=None, dtype=None, **kwargs):
    super().__init__()
    # NOTE: Keras metric names need not be identifiers ("val loss" is fine); unnamed
    # metrics get unique names ("auc", "auc_1", ...) as Keras 2's layers do.
    if name is None:
      from tensorlet.keras import backend
      name = backend.unique_object_name(backend.to_snake_case(type(self).__name__))
    self._name = name
    self._dtype = _dt.as_dtype(dtype) if dtype is not None else _dt.float32
    self._weights = []

  @property
  def dtype(self):
    return self._dtype

  @property
  def variables(self):
    """The state variables in creation order."""
    return list(self._weights)

  weights = variables

  @property
  def trainable_variables(self):
    return []

  @property
  def non_trainable_variables(self):
    return list(self._weights)

  def add_weight(self, name, shape=(), dtype=None, initializer="zeros"):
    """A non-trainable state variable, zero-initialised unless `initializer` says."""
    from tensorlet.keras import initializers
    dtype = _dt.as_dtype(dtype) if dtype is not None else self._dtype
    init = initializers.get(initializer)
    # As Keras 2: under a distribution strategy each replica accumulates its own copy;
    # results read their sum across replicas.
    v = Variable(lambda: init(shape, dtype=dtype), name=name, dtype=dtype, trainable=False,
                 synchronization=VariableSynchronization.ON_READ,
                 aggregation=VariableAggregation.SUM)
    self._weights.append(v)
    return v

  def update_state(self, *args, **kwargs):
    raise NotImplementedError(f"{type(self).__name__} must implement update_state.")

  def result(self):
    raise NotImplementedError(f"{type(self).__name__} must implement result.")

  def reset_state(self):
    """Sets every state variable to zero."""
    for v in self._weights:
      v.assign(_a.zeros_like(v))

  def reset_states(self):
    return self.reset_state()

  def __call__(self, *args, **kwargs):
    """Updates the state with this batch and returns the new result."""
    self.update_state(*args, **kwargs)
    return self.result()

  def get_config(self):
    return {"name": self.name, "dtype": self._dtype.name}

  @classmethod
  def from_config(cls, config):
    return cls(**config)

  def __repr__(self):
    return f"{type(self).__name__}(name={self.name},dtype={self._dtype.name})"


def _replica_merged_result(result):
  """`result` that, in a replica function of a strategy with several replicas, is
  computed once in cross-replica context (over all replicas' state), as Keras 2's."""
  def merged(self):
    dist = sys.modules.get("tensorlet.distribute._state")  # (None: tf.distribute unused)
    r = dist.state.replica if dist is not None else None
    if r is None or not r._needs_merge:
      return result(self)
    from tensorlet.distribute.values import Mirrored
    return r.merge_call(lambda strategy: Mirrored([result(self)]))
  merged._tl_local_result = result
  merged.__name__, merged.__doc__, merged.__qualname__ = \
      result.__name__, result.__doc__, result.__qualname__
  return merged


class _Reduce(Metric):
  """Sums values (and their weights, for the weighted mean)."""

  _MEAN = True
  _BY_SIZE = False  # divide by the number of values, not the sum of their weights

  def __init__(self, name=None, dtype=None):
    super().__init__(name=name, dtype=dtype)
    self.total = self.add_weight("total")
    if self._MEAN:
      self.count = self.add_weight("count")

  def update_state(self, values, sample_weight=None):
    values = _m.cast(values, self._dtype)
    if sample_weight is not None:
      w = _m.cast(sample_weight, self._dtype)
      values, _, w = squeeze_or_expand_dimensions(values, None, w)
      vr, wr = values.shape.rank, w.shape.rank
      if vr is not None and wr is not None and wr < vr and not _broadcastable(w, values):
        # NOTE: as Keras: weights that cannot broadcast weight the mean over the
        # trailing dimensions they do not have.
        values = _m.reduce_mean(values, axis=list(range(wr, vr)))
      if w.shape != values.shape:
        w = _a.broadcast_to(w, _a.shape(values))
      values = values * w
    self.total.assign_add(_m.reduce_sum(values))
    if self._MEAN:
      n = _m.cast(_a.size(values), self._dtype) if sample_weight is None or self._BY_SIZE \
          else _m.reduce_sum(w)
      self.count.assign_add(n)

  def result(self):
    if self._MEAN:
      return _m.div_no_nan(self.total, self.count)
    return _a.identity(self.total)


def _broadcastable(w, values):
  ws, vs = w.shape.as_list(), values.shape.as_list()
  ws = [1] * (len(vs) - len(ws)) + ws
  return all(a in (1, None) or b is None or a == b for a, b in zip(ws, vs))


class Mean(_Reduce):
  """The (weighted) mean of the values seen.

  Example:
    >>> m = tf.keras.metrics.Mean()
    >>> m.update_state([1.0, 3.0, 5.0])
    >>> float(m.result())
    3.0
  """

  def __init__(self, name="mean", dtype=None):
    super().__init__(name=name, dtype=dtype)


class Sum(_Reduce):
  """The (weighted) sum of the values seen."""

  _MEAN = False

  def __init__(self, name="sum", dtype=None):
    super().__init__(name=name, dtype=dtype)


class SumOverBatchSize(_Reduce):
  """The (weighted) sum of the values seen divided by the number of values (weights
  do not count towards the divisor)."""

  _BY_SIZE = True

  def __init__(self, name="sum_over_batch_size", dtype=None):
    super().__init__(name=name, dtype=dtype)


class MeanMetricWrapper(Mean):
  """The mean of `fn(y_true, y_pred, **kwargs)` over everything seen."""

  def __init__(self, fn, name=None, dtype=None, **kwargs):
    super().__init__(name=name, dtype=dtype)
    self._fn = fn
    self._fn_kwargs = kwargs

  def update_state(self, y_true, y_pred, sample_weight=None):
    y_true = _m.cast(y_true, self._dtype)
    y_pred = _m.cast(y_pred, self._dtype)
    y_pred, y_true, _ = squeeze_or_expand_dimensions(y_pred, y_true)
    matches = self._fn(y_true, y_pred, **self._fn_kwargs)
    return super().update_state(matches, sample_weight=sample_weight)

  def get_config(self):
    config = super().get_config()
    config.update(self._fn_kwargs)
    if type(self) is MeanMetricWrapper:
      config["fn"] = getattr(self._fn, "__name__", self._fn)
    return config

  @classmethod
  def from_config(cls, config):
    config = dict(config)
    if cls is MeanMetricWrapper:
      fn = config.pop("fn")
      if isinstance(fn, str) and fn not in _FUNCTIONS:
        fn = _losses.get(fn)  # a loss function used as a metric
      return cls(get(fn), **config)
    return cls(**config)


# ----------------------------------------------------------------- functions
def accuracy(y_true, y_pred):
  """1.0 where y_pred equals y_true, else 0.0."""
  y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
  # Keras checks the shapes first (a ValueError), rather than broadcasting in Equal.
  if not y_pred.shape.is_compatible_with(y_true.shape):
    raise ValueError(f"Shapes {y_pred.shape} and {y_true.shape} are incompatible")
  if y_true.dtype != y_pred.dtype:
    y_pred = _m.cast(y_pred, y_true.dtype)
  return _m.cast(_m.equal(y_true, y_pred), _dt.float32)


def binary_accuracy(y_true, y_pred, threshold=0.5):
  """Mean over the last axis of (y_pred > threshold) == y_true."""
  y_pred = convert_to_tensor(y_pred)
  y_true = _m.cast(y_true, y_pred.dtype)
  hits = _m.equal(y_true, _m.cast(_m.greater(y_pred, threshold), y_pred.dtype))
  return _m.reduce_mean(_m.cast(hits, _dt.float32), axis=-1)


def sparse_categorical_accuracy(y_true, y_pred):
  """1.0 where argmax(y_pred, -1) equals the integer label y_true."""
  y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
  reshape = None
  if y_true.shape.rank is not None and y_pred.shape.rank is not None and \
      y_true.shape.rank == y_pred.shape.rank:
    reshape = _a.shape(y_true)
    y_true = _a.squeeze(y_true, [-1])
  pred = _m.argmax(y_pred, axis=-1)
  if pred.dtype != y_true.dtype:
    pred = _m.cast(pred, y_true.dtype)
  matches = _m.cast(_m.equal(y_true, pred), _dt.float32)
  return _a.reshape(matches, reshape) if reshape is not None else matches


def categorical_accuracy(y_true, y_pred):
  """1.0 where argmax(y_pred, -1) equals argmax(y_true, -1)."""
  return sparse_categorical_accuracy(_m.argmax(y_true, axis=-1), y_pred)


def top_k_categorical_accuracy(y_true, y_pred, k=5):
  """1.0 where the class of one-hot y_true is among the k largest of y_pred (ties at
  the boundary count as in)."""
  return sparse_top_k_categorical_accuracy(_m.argmax(y_true, axis=-1), y_pred, k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
  """1.0 where the integer label y_true is among the k largest of y_pred."""
  from tensorlet.math import in_top_k
  y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
  rt, rp = y_true.shape.rank, y_pred.shape.rank
  out_shape = None
  if rt is not None and rp is not None:
    if rt == rp and rt > 1:
      y_true = _a.squeeze(y_true, [-1])
      rt -= 1
    if rp > 2:
      out_shape = _a.shape(y_true)
      y_pred = _a.reshape(y_pred, [-1, _a.shape(y_pred)[-1]])
      y_true = _a.reshape(y_true, [-1])
  hits = _m.cast(in_top_k(_m.cast(y_true, _dt.int32), y_pred, k), _dt.float32)
  return _a.reshape(hits, out_shape) if out_shape is not None else hits


def cosine_similarity(y_true, y_pred, axis=-1):
  """sum(l2_normalize(y_true) * l2_normalize(y_pred), axis) (1 for the same direction)."""
  y_pred = convert_to_tensor(y_pred)
  y_true = _m.cast(y_true, y_pred.dtype)
  return _m.reduce_sum(_m.l2_normalize(y_true, axis=axis) * _m.l2_normalize(y_pred, axis=axis),
                       axis=axis)


# ------------------------------------------------------------------- classes
def _wrapper(fn, default_name, doc, cls_name=None, **defaults):
  def __init__(self, name=default_name, dtype=None, **kwargs):
    for key in kwargs:
      if key not in defaults:
        raise TypeError(f"{cls_name}.__init__() got an unexpected keyword argument '{key}'")
    kw = dict(defaults, **kwargs)
    MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **kw)
  cls_name = cls_name or "".join(p.capitalize() for p in default_name.split("_"))
  return type(cls_name, (MeanMetricWrapper,), {"__init__": __init__, "__doc__": doc,
                                               "__module__": __name__,
                                               "from_config": classmethod(_from_config)})


def _from_config(cls, config):
  return cls(**config)


Accuracy = _wrapper(accuracy, "accuracy", "How often predictions equal labels.")
BinaryAccuracy = _wrapper(binary_accuracy, "binary_accuracy",
                          "How often (y_pred > threshold) equals binary labels.", threshold=0.5)
CategoricalAccuracy = _wrapper(categorical_accuracy, "categorical_accuracy",
                               "How often argmax(y_pred) equals argmax(one-hot y_true).")
SparseCategoricalAccuracy = _wrapper(sparse_categorical_accuracy, "sparse_categorical_accuracy",
                                     "How often argmax(y_pred) equals integer labels.")
MeanSquaredError = _wrapper(_losses.mean_squared_error, "mean_squared_error",
                            "The mean of squared errors.")
MeanAbsoluteError = _wrapper(_losses.mean_absolute_error, "mean_absolute_error",
                             "The mean of absolute errors.")

MeanAbsolutePercentageError = _wrapper(_losses.mean_absolute_percentage_error,
                                       "mean_absolute_percentage_error",
                                       "100 times the mean relative absolute error.")
MeanSquaredLogarithmicError = _wrapper(_losses.mean_squared_logarithmic_error,
                                       "mean_squared_logarithmic_error",
                                       "The mean squared difference of log(1 + x).")
CosineSimilarity = _wrapper(cosine_similarity, "cosine_similarity",
                            "The mean cosine similarity of labels and predictions.", axis=-1)
Hinge = _wrapper(_losses.hinge, "hinge", "The mean hinge loss.")
SquaredHinge = _wrapper(_losses.squared_hinge, "squared_hinge", "The mean squared hinge loss.")
CategoricalHinge = _wrapper(_losses.categorical_hinge, "categorical_hinge",
                            "The mean categorical hinge loss.")
KLDivergence = _wrapper(_losses.kl_divergence, "kullback_leibler_divergence",
                        "The mean Kullback-Leibler divergence.", cls_name="KLDivergence")
Poisson = _wrapper(_losses.poisson, "poisson", "The mean Poisson loss.")
LogCoshError = _wrapper(_losses.log_cosh, "logcosh", "The mean log(cosh(error)).",
                        cls_name="LogCoshError")
BinaryCrossentropy = _wrapper(_losses.binary_crossentropy, "binary_crossentropy",
                              "The mean binary cross-entropy.", from_logits=False,
                              label_smoothing=0.0)
CategoricalCrossentropy = _wrapper(_losses.categorical_crossentropy, "categorical_crossentropy",
                                   "The mean categorical cross-entropy.", from_logits=False,
                                   label_smoothing=0.0, axis=-1)
SparseCategoricalCrossentropy = _wrapper(
    _losses.sparse_categorical_crossentropy, "sparse_categorical_crossentropy",
    "The mean sparse categorical cross-entropy.", from_logits=False, ignore_class=None,
    axis=-1)
TopKCategoricalAccuracy = _wrapper(top_k_categorical_accuracy, "top_k_categorical_accuracy",
                                   "How often the one-hot label is in the top k predictions.",
                                   cls_name="TopKCategoricalAccuracy", k=5)
SparseTopKCategoricalAccuracy = _wrapper(
    sparse_top_k_categorical_accuracy, "sparse_top_k_categorical_accuracy",
    "How often the integer label is in the top k predictions.",
    cls_name="SparseTopKCategoricalAccuracy", k=5)


class RootMeanSquaredError(Mean):
  """sqrt of the (weighted) mean of squared errors."""

  def __init__(self, name="root_mean_squared_error", dtype=None):
    super().__init__(name=name, dtype=dtype)

  def update_state(self, y_true, y_pred, sample_weight=None):
    y_true = _m.cast(y_true, self._dtype)
    y_pred = _m.cast(y_pred, self._dtype)
    y_pred, y_true, _ = squeeze_or_expand_dimensions(y_pred, y_true)
    return super().update_state(_m.squared_difference(y_pred, y_true),
                                sample_weight=sample_weight)

  def result(self):
    return _m.sqrt(_m.div_no_nan(self.total, self.count))


class MeanIoU(Metric):
  """Mean over classes of intersection / union, from a confusion matrix summed over
  batches (classes that never occur in labels or predictions are left out)."""

  def __init__(self, num_classes, name=None, dtype=None, ignore_class=None,
               sparse_y_true=True, sparse_y_pred=True, axis=-1):
    super().__init__(name=name, dtype=dtype)
    self.num_classes = num_classes
    self.ignore_class = ignore_class
    self.sparse_y_true = sparse_y_true
    self.sparse_y_pred = sparse_y_pred
    self.axis = axis
    self.total_cm = self.add_weight("total_confusion_matrix",
                                    shape=(num_classes, num_classes))

  def update_state(self, y_true, y_pred, sample_weight=None):
    y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
    if not self.sparse_y_pred:
      y_pred = _m.argmax(y_pred, axis=self.axis)
    if not self.sparse_y_true:
      y_true = _m.argmax(y_true, axis=self.axis)
    y_true = _a.reshape(_m.cast(y_true, self._dtype), [-1])
    y_pred = _a.reshape(_m.cast(y_pred, self._dtype), [-1])
    if sample_weight is not None:
      sample_weight = _a.reshape(_m.cast(sample_weight, self._dtype), [-1])
    if self.ignore_class is not None:
      valid = _m.not_equal(y_true, float(self.ignore_class))
      y_true, y_pred = _a.boolean_mask(y_true, valid), _a.boolean_mask(y_pred, valid)
      if sample_weight is not None:
        sample_weight = _a.boolean_mask(sample_weight, valid)
    cm = _m.confusion_matrix(y_true, y_pred, self.num_classes, weights=sample_weight,
                             dtype=self._dtype)
    self.total_cm.assign_add(cm)

  def result(self):
    cm = self.total_cm
    tp = _m.reduce_sum(cm * _a.eye(self.num_classes, dtype=self._dtype), axis=1)
    denominator = _m.reduce_sum(cm, axis=0) + _m.reduce_sum(cm, axis=1) - tp
    valid = _m.reduce_sum(_m.cast(_m.greater(denominator, 1e-9), self._dtype))
    return _m.div_no_nan(_m.reduce_sum(_m.div_no_nan(tp, denominator)), valid)

  def get_config(self):
    return {"num_classes": self.num_classes, "ignore_class": self.ignore_class,
            "sparse_y_true": self.sparse_y_true, "sparse_y_pred": self.sparse_y_pred,
            "axis": self.axis, **super().get_config()}


class FBetaScore(Metric):
  """F-beta of one-hot (or multi-label) targets: per class, or averaged 'micro',
  'macro' or 'weighted' (by support). Predictions are thresholded at `threshold`,
  or the row's largest value counts as the prediction when it is None."""

  def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score", dtype=None):
    super().__init__(name=name, dtype=dtype)
    if average not in (None, "micro", "macro", "weighted"):
      raise ValueError(f"Invalid `average` argument value. Expected one of: {{None, 'micro', "
                       f"'macro', 'weighted'}}. Received: average={average}")
    if not isinstance(beta, float):
      raise ValueError(f"Invalid `beta` argument value. It should be a Python float. "
                       f"Received: beta={beta} of type '{type(beta)}'")
    if beta <= 0.0:
      raise ValueError(f"Invalid `beta` argument value. It should be > 0. Received: "
                       f"beta={beta}")
    if threshold is not None:
      if not isinstance(threshold, float):
        raise ValueError(f"Invalid `threshold` argument value. It should be a Python float. "
                         f"Received: threshold={threshold} of type '{type(threshold)}'")
      if threshold > 1.0 or threshold <= 0.0:
        raise ValueError(f"Invalid `threshold` argument value. It should verify 0 < "
                         f"threshold <= 1. Received: threshold={threshold}")
    self.average, self.beta, self.threshold = average, beta, threshold
    self.axis = None if average == "micro" else 0
    self.built = False

  def _build(self, y_true_shape, y_pred_shape):
    if y_pred_shape.rank != 2 or y_true_shape.rank != 2:
      raise ValueError(f"FBetaScore expects 2D inputs with shape (batch_size, output_dim). "
                       f"Received input shapes: y_pred.shape={y_pred_shape} and "
                       f"y_true.shape={y_true_shape}.")
    if y_pred_shape[-1] is None or y_true_shape[-1] is None:
      raise ValueError(f"FBetaScore expects 2D inputs with shape (batch_size, output_dim), "
                       f"with output_dim fully defined (not None). Received input shapes: "
                       f"y_pred.shape={y_pred_shape} and y_true.shape={y_true_shape}.")
    shape = () if self.average == "micro" else (y_pred_shape[-1],)
    for name in ("true_positives", "false_positives", "false_negatives",
                 "intermediate_weights"):
      setattr(self, name, self.add_weight(name, shape=shape))
    self.built = True

  def update_state(self, y_true, y_pred, sample_weight=None):
    y_true = _m.cast(convert_to_tensor(y_true), self._dtype)
    y_pred = _m.cast(convert_to_tensor(y_pred), self._dtype)
    if not self.built:
      self._build(y_true.shape, y_pred.shape)
    if self.threshold is None:
      top = _m.reduce_max(y_pred, axis=-1, keepdims=True)
      y_pred = _m.logical_and(y_pred >= top, _m.abs(y_pred) > 1e-9)
    else:
      y_pred = y_pred > self.threshold
    y_pred = _m.cast(y_pred, self._dtype)
    w = None if sample_weight is None else \
        _a.expand_dims(_m.cast(sample_weight, self._dtype), 1)

    def total(values):
      return _m.reduce_sum(values if w is None else values * w, axis=self.axis)
    self.true_positives.assign_add(total(y_pred * y_true))
    self.false_positives.assign_add(total(y_pred * (1.0 - y_true)))
    self.false_negatives.assign_add(total((1.0 - y_pred) * y_true))
    self.intermediate_weights.assign_add(total(y_true))

  def result(self):
    if not self.built:
      return convert_to_tensor(0.0, self._dtype)
    tp, fp, fn = self.true_positives, self.false_positives, self.false_negatives
    precision = _m.div_no_nan(tp, tp + fp)
    recall = _m.div_no_nan(tp, tp + fn)
    b2 = self.beta * self.beta
    f = _m.div_no_nan(precision * recall, b2 * precision + recall) * (1.0 + b2)
    if self.average == "weighted":
      weights = _m.div_no_nan(self.intermediate_weights,
                              _m.reduce_sum(self.intermediate_weights))
      return _m.reduce_sum(f * weights)
    if self.average is not None:
      return _m.reduce_mean(f)
    return f

  def reset_state(self):
    if self.built:
      super().reset_state()

  def get_config(self):
    return {**super().get_config(), "average": self.average, "beta": self.beta,
            "threshold": self.threshold}


class F1Score(FBetaScore):
  """FBetaScore with beta = 1: the harmonic mean of precision and recall.

  Example:
    >>> m = tf.keras.metrics.F1Score(average="micro", threshold=0.5)
    >>> float(m([[1, 0], [0, 1]], [[0.9, 0.2], [0.6, 0.3]]))
    0.5
  """

  def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
    super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

  def get_config(self):
    config = super().get_config()
    del config["beta"]
    return config


mse = MSE = _losses.mean_squared_error
mae = MAE = _losses.mean_absolute_error
mean_squared_error = _losses.mean_squared_error
mean_absolute_error = _losses.mean_absolute_error
binary_crossentropy = _losses.binary_crossentropy
categorical_crossentropy = _losses.categorical_crossentropy
sparse_categorical_crossentropy = _losses.sparse_categorical_crossentropy
binary_focal_crossentropy = _losses.binary_focal_crossentropy
categorical_focal_crossentropy = _losses.categorical_focal_crossentropy
hinge, squared_hinge = _losses.hinge, _losses.squared_hinge
categorical_hinge, poisson = _losses.categorical_hinge, _losses.poisson
kl_divergence = kld = KLD = kullback_leibler_divergence = _losses.kl_divergence
log_cosh = logcosh = _losses.log_cosh
mean_absolute_percentage_error = mape = MAPE = _losses.mean_absolute_percentage_error
mean_squared_logarithmic_error = msle = MSLE = _losses.mean_squared_logarithmic_error

# The confusion-matrix metrics live beside this module (they subclass Metric).
from tensorlet.keras.confusion_metrics import (  # noqa: E402
    AUC, FalseNegatives, FalsePositives, Precision, Recall, TrueNegatives, TruePositives)

_CLASSES = {c.__name__: c for c in (
    Mean, Sum, Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
    MeanSquaredError, MeanAbsoluteError, SumOverBatchSize, MeanMetricWrapper,
    RootMeanSquaredError, MeanAbsolutePercentageError, MeanSquaredLogarithmicError,
    CosineSimilarity, Hinge, SquaredHinge, CategoricalHinge, KLDivergence, Poisson,
    LogCoshError, BinaryCrossentropy, CategoricalCrossentropy, SparseCategoricalCrossentropy,
    TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy, MeanIoU, FBetaScore, F1Score,
    TruePositives, FalsePositives, TrueNegatives, FalseNegatives, Precision, Recall, AUC)}
_FUNCTIONS = {f.__name__: f for f in (
    accuracy, binary_accuracy, categorical_accuracy, sparse_categorical_accuracy,
    mean_squared_error, mean_absolute_error, binary_crossentropy, categorical_crossentropy,
    sparse_categorical_crossentropy, top_k_categorical_accuracy,
    sparse_top_k_categorical_accuracy, cosine_similarity, hinge, squared_hinge,
    categorical_hinge, kl_divergence, poisson, log_cosh, mean_absolute_percentage_error,
    mean_squared_logarithmic_error, binary_focal_crossentropy, categorical_focal_crossentropy)}
_FUNCTIONS.update(mse=mse, MSE=mse, mae=mae, MAE=mae, acc=accuracy, mape=mape, MAPE=mape,
                  msle=msle, MSLE=msle, kld=kld, KLD=kld, kullback_leibler_divergence=kld,
                  logcosh=log_cosh)


def serialize(metric):
  if isinstance(metric, Metric):
    return {"module": "keras.metrics", "class_name": type(metric).__name__,
            "config": metric.get_config(), "registered_name": None}
  return getattr(metric, "__name__", metric)


def deserialize(config, custom_objects=None):
  """A metric function from its name, or a Metric from a name or `serialize` dict."""
  return deserialize_object(config, custom_objects, _CLASSES, _FUNCTIONS, "metric function")


def get(identifier):
  """A metric from a name ('mse', 'Accuracy', ...), a config dict, a Metric or a callable."""
  if isinstance(identifier, (str, dict)):
    return deserialize(identifier)
  if callable(identifier):
    return identifier
  raise ValueError(f"Could not interpret metric identifier: {identifier}")


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.keras.metrics", __name__)
