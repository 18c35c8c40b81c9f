"""What `compile` makes of its loss and metrics arguments.

`LossesContainer` applies one loss per model output, adds the regularization
losses and tracks the batch-size weighted mean of the total as the metric
"loss" (and "<output>_loss" per output for multi-output models).
`MetricsContainer` resolves metric identifiers on the first batch, when the
shapes of targets and predictions are known ('accuracy' becomes binary,
sparse categorical or categorical accuracy, as in Keras).
"""
from tensorlet import _nest as nest
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m

__all__ = ["LossesContainer", "MetricsContainer"]


def _by_output(value, names, what):
  """A per-output list from one value (broadcast), a list or a dict keyed by output name."""
  if isinstance(value, dict):
    unknown = [k for k in value if k not in names]
    if unknown:
      raise ValueError(f"Found unexpected {what} keys {unknown}; the model's outputs are "
                       f"{names}.")
    return [value.get(n) for n in names]
  if isinstance(value, (list, tuple)) and what == "loss":
    if len(value) != len(names):
      raise ValueError(f"When passing a list as loss, it should have one entry per model "
                       f"outputs. The model has {len(names)} outputs, but you passed "
                       f"loss={value}")
    return list(value)
  return [value] * len(names)


class _FunctionLoss:
  """A `fn(y_true, y_pred)` loss reduced like Keras' SUM_OVER_BATCH_SIZE."""

  def __init__(self, fn):
    self.fn = fn
    self.name = getattr(fn, "__name__", "loss")

  def __call__(self, y_true, y_pred, sample_weight=None):
    from tensorlet.keras.losses import graph_scope, _scope_name
    with graph_scope(_scope_name(self.name, "loss")):
      values = self.fn(y_true, y_pred)
      with graph_scope("weighted_loss"):
        return self._reduce(values, sample_weight)

  def _reduce(self, values, sample_weight):
    if sample_weight is None:
      if values.shape.rank is not None and values.shape.num_elements() != 0 and \
          values.shape.is_fully_defined():
        return _m.reduce_mean(values)
      # As Keras 2's safe mean: an empty batch (a replica's share of a short last batch
      # under a distribution strategy) has loss 0, not NaN.
      return _m.div_no_nan(_m.reduce_sum(values), _m.cast(_a.size(values), values.dtype))
    sample_weight = _m.cast(sample_weight, values.dtype)
    if sample_weight.shape.rank is not None and values.shape.rank is not None and \
        sample_weight.shape.rank > values.shape.rank:
      sample_weight = _a.squeeze(sample_weight, -1)
    values = values * sample_weight
    return _m.reduce_sum(values) / _m.cast(_a.size(values), values.dtype)


def _resolve_loss(identifier):
  if identifier is None:
    return None
  from tensorlet.keras import losses
  obj = losses.get(identifier)
  return obj if isinstance(obj, losses.Loss) else _FunctionLoss(obj)


class LossesContainer:
  """Total loss of a batch and its running mean (the "loss" metric)."""

  def __init__(self, loss, loss_weights=None):
    self._spec = loss
    self._weights = loss_weights
    self._losses = None
    self.metrics = []

  def build(self, y_pred, output_names):
    from tensorlet.keras import metrics
    flat = nest.flatten(y_pred)
    names = output_names[:len(flat)] if output_names else [f"output_{i + 1}"
                                                            for i in range(len(flat))]
    self._losses = [_resolve_loss(v) for v in _by_output(self._spec, names, "loss")]
    weights = self._weights
    self._loss_weights = [1.0] * len(names) if weights is None else [
        1.0 if w is None else w for w in _by_output(weights, names, "loss_weights")]
    self.metrics = [metrics.Mean(name="loss")]
    if len(flat) > 1:
      self.metrics += [metrics.Mean(name=f"{n}_loss") for n, fn in zip(names, self._losses)
                       if fn is not None]

  def __call__(self, y_true, y_pred, sample_weight=None, regularization_losses=None):
    if self._losses is None:
      raise RuntimeError("LossesContainer.build must run before the first call.")
    preds = nest.flatten(y_pred)
    trues = nest.flatten(y_true) if len(preds) > 1 else [y_true]
    weights = [None] * len(preds) if sample_weight is None else (
        nest.flatten(sample_weight) if len(preds) > 1 else [sample_weight])
    if len(trues) != len(preds):
      raise ValueError(f"The model has {len(preds)} outputs but {len(trues)} targets were "
                       f"given.")
    total, per_output = [], []
    for fn, w, yt, yp, sw in zip(self._losses, self._loss_weights, trues, preds, weights):
      if fn is None:
        continue
      if yt is None:
        # Keras 2 skips the loss (training then fails with "No gradients provided" and
        # evaluate reports 0); naming the missing targets is clearer.
        raise ValueError(f"The loss {getattr(fn, 'name', fn)!r} needs targets, but `y` is "
                         f"None: pass `y` to fit/evaluate (or (x, y) elements in a "
                         f"dataset), or compile without a loss for this output.")
      value = fn(yt, yp, sample_weight=sw)
      per_output.append(value)
      total.append(value * w if w != 1.0 else value)
    if regularization_losses:
      total.append(_m.add_n([_m.cast(r, total[0].dtype) if total else r
                             for r in regularization_losses]))
    if not total:
      raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
    loss = _m.add_n(total) if len(total) > 1 else total[0]
    batch = _m.cast(_a.shape(preds[0])[0], loss.dtype) if preds[0].shape.rank else None
    self.metrics[0].update_state(loss, sample_weight=batch)
    for metric, value in zip(self.metrics[1:], per_output):
      metric.update_state(value, sample_weight=batch)
    from tensorlet.ops.nn_ops import num_replicas_in_sync
    n = num_replicas_in_sync()
    if n > 1:
      # As Keras 2: each replica's mean loss over its part of the batch is divided by
      # the number of replicas, so the replicas' summed gradients are the global mean's.
      loss = loss / _m.cast(n, loss.dtype)
    return loss


def _accuracy_for(loss, y_true, y_pred):
  """Keras' choice of accuracy: by the loss when it says, else by the shapes."""
  from tensorlet.keras import metrics
  kind = type(loss).__name__ if not isinstance(loss, _FunctionLoss) else loss.name
  kind = kind.replace("_", "").lower()
  if kind in ("binarycrossentropy",):
    return metrics.BinaryAccuracy
  if kind in ("sparsecategoricalcrossentropy",):
    return metrics.SparseCategoricalAccuracy
  if kind in ("categoricalcrossentropy",):
    return metrics.CategoricalAccuracy
  t, p = y_true.shape, y_pred.shape
  p_last = p[-1] if p.rank else None
  t_last = t[-1] if t.rank else None
  if p_last == 1:
    return metrics.BinaryAccuracy
  if t.rank is not None and p.rank is not None and (t.rank < p.rank or
                                                    (t_last == 1 and p_last != 1)):
    return metrics.SparseCategoricalAccuracy
  return metrics.CategoricalAccuracy


class _FunctionMetric:
  """Wraps `fn(y_true, y_pred)` as a mean metric (Keras' MeanMetricWrapper)."""

  def __init__(self, fn, name):
    from tensorlet.keras import metrics
    self._mean = metrics.Mean(name=name)
    self.fn = fn
    self.name = name

  def update_state(self, y_true, y_pred, sample_weight=None):
    return self._mean.update_state(self.fn(y_true, y_pred), sample_weight=sample_weight)

  def result(self):
    return self._mean.result()

  def reset_state(self):
    self._mean.reset_state()

  @property
  def variables(self):
    return self._mean.variables


class MetricsContainer:
  """The compiled metrics of each output, built on the first batch."""

  def __init__(self, metrics=None, weighted_metrics=None, loss=None):
    self._spec, self._weighted_spec, self._loss = metrics, weighted_metrics, loss
    self._per_output = None
    self.metrics = []

  @property
  def built(self):
    return self._per_output is not None

  def _resolve(self, identifier, loss, y_true, y_pred, prefix):
    from tensorlet.keras import metrics
    if isinstance(identifier, str) and identifier in ("accuracy", "acc"):
      return _accuracy_for(loss, y_true, y_pred)(name=prefix + identifier)
    obj = metrics.get(identifier)
    if isinstance(obj, metrics.Metric):
      return obj
    name = identifier if isinstance(identifier, str) else getattr(obj, "__name__", "metric")
    return _FunctionMetric(obj, prefix + name)

  def build(self, y_true, y_pred, output_names, losses):
    preds = nest.flatten(y_pred)
    trues = nest.flatten(y_true) if len(preds) > 1 else [y_true]
    names = output_names[:len(preds)] if output_names else [f"output_{i + 1}"
                                                             for i in range(len(preds))]
    specs = self._per_output_specs(self._spec, names)
    wspecs = self._per_output_specs(self._weighted_spec, names)
    self._per_output = []
    for i, (yt, yp) in enumerate(zip(trues, preds)):
      prefix = f"{names[i]}_" if len(preds) > 1 else ""
      loss = losses[i] if losses and i < len(losses) else None
      plain = [self._resolve(m, loss, yt, yp, prefix) for m in specs[i]]
      weighted = [self._resolve(m, loss, yt, yp, prefix + "weighted_") for m in wspecs[i]]
      self._per_output.append((plain, weighted))
      self.metrics.extend(plain + weighted)

  @staticmethod
  def _per_output_specs(spec, names):
    if spec is None:
      return [[] for _ in names]
    if isinstance(spec, dict):
      return [list(nest.flatten(spec.get(n, []))) for n in names]
    if isinstance(spec, (list, tuple)) and len(names) > 1 and len(spec) == len(names) and \
        all(isinstance(s, (list, tuple)) for s in spec):
      return [list(s) for s in spec]
    if not isinstance(spec, (list, tuple)):
      # One metric not in a list ('mae'), as Keras 2 accepts it.
      spec = [spec]
    return [list(spec) for _ in names]

  def update_state(self, y_true, y_pred, sample_weight=None):
    preds = nest.flatten(y_pred)
    trues = nest.flatten(y_true) if len(preds) > 1 else [y_true]
    weights = [None] * len(preds) if sample_weight is None else (
        nest.flatten(sample_weight) if len(preds) > 1 else [sample_weight])
    for (plain, weighted), yt, yp, sw in zip(self._per_output, trues, preds, weights):
      for m in plain:
        m.update_state(yt, yp)
      for m in weighted:
        m.update_state(yt, yp, sample_weight=sw)


