"""tf.keras.metrics: stateful metrics and metric functions.

A Metric is a tf.Module whose state lives in non-trainable variables, so
`update_state` works eagerly and stages assign ops inside a tf.function;
`result()` reads the state, `reset_state()` zeroes it.
"""
from tensorlet import dtypes as _dt
from tensorlet.keras import losses as _losses
from tensorlet.keras.utils.serialization import deserialize_object
from tensorlet.keras.losses import squeeze_or_expand_dimensions
from tensorlet.module import Module, _camel_to_snake
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.tensor import convert_to_tensor
from tensorlet.variables import Variable

__all__ = ["Metric", "Mean", "Sum", "MeanMetricWrapper", "Accuracy", "BinaryAccuracy",
           "CategoricalAccuracy", "SparseCategoricalAccuracy", "MeanSquaredError",
           "MeanAbsoluteError", "accuracy", "binary_accuracy", "categorical_accuracy",
           "sparse_categorical_accuracy", "get", "serialize", "deserialize"]


class Metric(Module):
  """Base class: subclasses create state with `add_weight` and implement
  `update_state` and `result`."""

  def __init__(self, name=None, dtype=None, **kwargs):
    super().__init__()
    # NOTE: Keras metric names need not be identifiers ("val loss" is fine).
    self._name = name if name is not None else _camel_to_snake(type(self).__name__)
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
    v = Variable(lambda: init(shape, dtype=dtype), name=name, dtype=dtype, trainable=False)
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


class _Reduce(Metric):
  """Sums values (and their weights, for the weighted mean)."""

  _MEAN = True

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
      n = _m.cast(_a.size(values), self._dtype) if sample_weight is None else _m.reduce_sum(w)
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
    return config

  @classmethod
  def from_config(cls, config):
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


# ------------------------------------------------------------------- classes
def _wrapper(fn, default_name, doc, **defaults):
  def __init__(self, name=default_name, dtype=None, **kwargs):
    kw = dict(defaults, **kwargs)
    MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **kw)
  cls_name = "".join(p.capitalize() for p in default_name.split("_"))
  return type(cls_name, (MeanMetricWrapper,), {"__init__": __init__, "__doc__": doc,
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

mse = MSE = _losses.mean_squared_error
mae = MAE = _losses.mean_absolute_error
mean_squared_error = _losses.mean_squared_error
mean_absolute_error = _losses.mean_absolute_error
binary_crossentropy = _losses.binary_crossentropy
categorical_crossentropy = _losses.categorical_crossentropy
sparse_categorical_crossentropy = _losses.sparse_categorical_crossentropy

_CLASSES = {c.__name__: c for c in (Mean, Sum, Accuracy, BinaryAccuracy, CategoricalAccuracy,
                                    SparseCategoricalAccuracy, MeanSquaredError,
                                    MeanAbsoluteError)}
_FUNCTIONS = {f.__name__: f for f in (accuracy, binary_accuracy, categorical_accuracy,
                                      sparse_categorical_accuracy, mean_squared_error,
                                      mean_absolute_error, binary_crossentropy,
                                      categorical_crossentropy,
                                      sparse_categorical_crossentropy)}
_FUNCTIONS.update(mse=mse, MSE=mse, mae=mae, MAE=mae, acc=accuracy)


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
