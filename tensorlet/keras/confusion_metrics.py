"""Keras 2's metrics over confusion-matrix counts at thresholds: TruePositives,
FalsePositives, TrueNegatives, FalseNegatives, Precision, Recall and AUC.

A prediction counts as positive at threshold t when it is > t; a label counts
as positive when it is non-zero. Every threshold's count is one element of a
state variable, so one batch updates all of them with a few broadcast ops.
"""
from tensorlet import dtypes as _dt
from tensorlet.keras import backend
from tensorlet.keras.losses import squeeze_or_expand_dimensions
from tensorlet.keras.metrics import Metric
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.tensor import convert_to_tensor

__all__ = ["TruePositives", "FalsePositives", "TrueNegatives", "FalseNegatives", "Precision",
           "Recall", "AUC"]

_NEG_INF = -1e10
_KINDS = ("tp", "fp", "tn", "fn")


def _filter_top_k(x, k):
  """x with everything but each row's k largest values set to -1e10."""
  from tensorlet.ops.array_ops import one_hot, top_k
  _, idx = top_k(x, k, sorted=False)
  mask = _m.reduce_sum(one_hot(idx, _a.shape(x)[-1], dtype=x.dtype), axis=-2)
  return x * mask + _NEG_INF * (1.0 - mask)


def update_confusion_variables(variables, y_true, y_pred, thresholds, top_k=None,
                               class_id=None, sample_weight=None, multi_label=False,
                               label_weights=None):
  """Adds this batch's (weighted) counts to `variables` ({'tp'|'fp'|'tn'|'fn': var}),
  one element per threshold ([thresholds, labels] with `multi_label`)."""
  dtype = next(iter(variables.values())).dtype
  y_true = _m.cast(convert_to_tensor(y_true), dtype)
  y_pred = _m.cast(convert_to_tensor(y_pred), dtype)
  if sample_weight is not None:
    sample_weight = _m.cast(convert_to_tensor(sample_weight), dtype)
  y_pred, y_true, sample_weight = squeeze_or_expand_dimensions(y_pred, y_true, sample_weight)
  if not y_pred.shape.is_compatible_with(y_true.shape):
    raise ValueError(f"Shapes {y_pred.shape} and {y_true.shape} are incompatible")
  if top_k is not None:
    y_pred = _filter_top_k(y_pred, top_k)
  if class_id is not None:
    y_true = y_true[..., class_id:class_id + 1]
    y_pred = y_pred[..., class_id:class_id + 1]
  thresholds = convert_to_tensor([float(t) for t in thresholds], dtype)
  if multi_label:
    preds, labels = _a.expand_dims(y_pred, 0), _a.expand_dims(y_true, 0)
    thresholds = _a.reshape(thresholds, [-1, 1, 1])
    flat = lambda w: _a.expand_dims(w, 0)  # noqa: E731
  else:
    preds, labels = _a.reshape(y_pred, [1, -1]), _a.reshape(y_true, [1, -1])
    thresholds = _a.reshape(thresholds, [-1, 1])
    flat = lambda w: _a.reshape(w, [1, -1])  # noqa: E731
  pred_pos = _m.greater(preds, thresholds)
  label_pos = _m.not_equal(labels, 0.0)
  weights = None
  if sample_weight is not None:
    weights = flat(_a.broadcast_to(sample_weight, _a.shape(y_pred)))
  if label_weights is not None and not multi_label:
    lw = flat(_a.broadcast_to(_m.cast(label_weights, dtype), _a.shape(y_pred)))
    weights = lw if weights is None else weights * lw
  conds = {"tp": (label_pos, pred_pos), "fp": (_m.logical_not(label_pos), pred_pos),
           "tn": (_m.logical_not(label_pos), _m.logical_not(pred_pos)),
           "fn": (label_pos, _m.logical_not(pred_pos))}
  for kind, var in variables.items():
    label, pred = conds[kind]
    hits = _m.cast(_m.logical_and(label, pred), dtype)
    if weights is not None:
      hits = hits * weights
    var.assign_add(_m.reduce_sum(hits, axis=1))


def _check_thresholds(thresholds, default):
  if thresholds is None:
    return [default], True
  values = list(thresholds) if isinstance(thresholds, (list, tuple)) else [thresholds]
  for t in values:
    if not 0.0 <= float(t) <= 1.0:
      raise ValueError(f"Threshold values must be in [0, 1]. Received: {thresholds}")
  return [float(t) for t in values], not isinstance(thresholds, (list, tuple))


class _ConditionCount(Metric):
  """Weighted count of one confusion-matrix cell at each threshold."""

  _KIND = None

  def __init__(self, thresholds=None, name=None, dtype=None):
    super().__init__(name=name, dtype=dtype)
    self.init_thresholds = thresholds
    self.thresholds, self._single = _check_thresholds(thresholds, 0.5)
    self.accumulator = self.add_weight("accumulator", shape=(len(self.thresholds),))

  def update_state(self, y_true, y_pred, sample_weight=None):
    update_confusion_variables({self._KIND: self.accumulator}, y_true, y_pred,
                               self.thresholds, sample_weight=sample_weight)

  def result(self):
    return self.accumulator[0] if len(self.thresholds) == 1 else \
        _a.identity(self.accumulator)

  def get_config(self):
    return {"thresholds": self.init_thresholds, **super().get_config()}


class TruePositives(_ConditionCount):
  """Weighted count of positive labels predicted positive (> threshold)."""
  _KIND = "tp"


class FalsePositives(_ConditionCount):
  """Weighted count of negative labels predicted positive (> threshold)."""
  _KIND = "fp"


class TrueNegatives(_ConditionCount):
  """Weighted count of negative labels predicted negative (<= threshold)."""
  _KIND = "tn"


class FalseNegatives(_ConditionCount):
  """Weighted count of positive labels predicted negative (<= threshold)."""
  _KIND = "fn"


class _PrecisionRecall(Metric):
  _OTHER = None

  def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
    super().__init__(name=name, dtype=dtype)
    self.init_thresholds = thresholds
    self.top_k = top_k
    self.class_id = class_id
    default = 0.5 if top_k is None else _NEG_INF
    self.thresholds, _ = _check_thresholds(thresholds, default)
    n = len(self.thresholds)
    self.true_positives = self.add_weight("true_positives", shape=(n,))
    other = "false_positives" if self._OTHER == "fp" else "false_negatives"
    setattr(self, other, self.add_weight(other, shape=(n,)))
    self._other = getattr(self, other)

  def update_state(self, y_true, y_pred, sample_weight=None):
    update_confusion_variables({"tp": self.true_positives, self._OTHER: self._other}, y_true,
                               y_pred, self.thresholds, top_k=self.top_k,
                               class_id=self.class_id, sample_weight=sample_weight)

  def result(self):
    r = _m.div_no_nan(self.true_positives, self.true_positives + self._other)
    return r[0] if len(self.thresholds) == 1 else r

  def get_config(self):
    return {"thresholds": self.init_thresholds, "top_k": self.top_k,
            "class_id": self.class_id, **super().get_config()}


class Precision(_PrecisionRecall):
  """tp / (tp + fp) at each threshold (optionally of the top_k predictions or one
  class_id).

  Example:
    >>> m = tf.keras.metrics.Precision()
    >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
    >>> float(m.result())  # doctest: +ELLIPSIS
    0.666...
  """
  _OTHER = "fp"


class Recall(_PrecisionRecall):
  """tp / (tp + fn) at each threshold (optionally of the top_k predictions or one
  class_id)."""
  _OTHER = "fn"


class AUC(Metric):
  """Area under the ROC or PR curve, from confusion counts at `num_thresholds`
  thresholds spread evenly over [0, 1] (or the given `thresholds`), summed by
  interpolation (PR: Davis & Goadrich's), minoring or majoring. With
  `multi_label`, one curve per label, averaged (weighted by `label_weights`)."""

  def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation",
               name=None, dtype=None, thresholds=None, multi_label=False, num_labels=None,
               label_weights=None, from_logits=False):
    super().__init__(name=name, dtype=dtype)
    curve = str(curve).upper()
    if curve not in ("ROC", "PR", "PR_GAIN"):
      raise ValueError(f'Invalid AUC curve value: "{curve}". Expected values are ["ROC", '
                       f'"PR", "PR_GAIN"]')
    summation_method = str(summation_method).lower()
    if summation_method not in ("interpolation", "minoring", "majoring"):
      raise ValueError(f'Invalid AUC summation method value: "{summation_method}". Expected '
                       f'values are ["interpolation", "majoring", "minoring"]')
    self.curve, self.summation_method = curve, summation_method
    self._init_from_thresholds = thresholds is not None
    eps = backend.epsilon()
    if thresholds is not None:
      inner = sorted(float(t) for t in thresholds)
      self.num_thresholds = len(inner) + 2
    else:
      if num_thresholds <= 1:
        raise ValueError(f"Argument `num_thresholds` must be an integer > 1. Received: "
                         f"num_thresholds={num_thresholds}")
      self.num_thresholds = num_thresholds
      inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    self._thresholds = [0.0 - eps] + inner + [1.0 + eps]
    self.multi_label = multi_label
    self.num_labels = num_labels
    if label_weights is not None:
      label_weights = [float(w) for w in label_weights]
      if any(w < 0 for w in label_weights):
        raise ValueError("All values of `label_weights` must be non-negative.")
    self.label_weights = label_weights
    self._from_logits = from_logits
    self._built = False
    if multi_label:
      if num_labels:
        self._build(num_labels)
    else:
      if num_labels:
        raise ValueError("`num_labels` is needed only when `multi_label` is True.")
      self._build(None)

  @property
  def thresholds(self):
    return list(self._thresholds)

  def _build(self, num_labels):
    shape = (self.num_thresholds,) if num_labels is None else (self.num_thresholds,
                                                                num_labels)
    self._num_labels = num_labels
    for name in ("true_positives", "true_negatives", "false_positives", "false_negatives"):
      setattr(self, name, self.add_weight(name, shape=shape))
    self._built = True

  def update_state(self, y_true, y_pred, sample_weight=None):
    y_pred = convert_to_tensor(y_pred)
    if not self._built:
      if y_pred.shape.rank != 2:
        raise ValueError(f"`y_pred` must have rank 2 when `multi_label=True`. Found rank "
                         f"{y_pred.shape.rank}. Full shape received for `y_pred`: "
                         f"{y_pred.shape}")
      self._build(y_pred.shape[1])
    if self._from_logits:
      y_pred = _m.sigmoid(y_pred)
    update_confusion_variables(
        {"tp": self.true_positives, "tn": self.true_negatives, "fp": self.false_positives,
         "fn": self.false_negatives}, y_true, y_pred, self._thresholds,
        sample_weight=sample_weight, multi_label=self.multi_label,
        label_weights=None if self.multi_label else self.label_weights)

  def _by_label(self, values, axis_sum):
    if not self.multi_label:
      return _m.reduce_sum(values)
    by_label = _m.reduce_sum(values, axis=0)
    if self.label_weights is None:
      return _m.reduce_mean(by_label)
    lw = convert_to_tensor(self.label_weights, self._dtype)
    return _m.div_no_nan(_m.reduce_sum(by_label * lw), _m.reduce_sum(lw))

  def _interpolate_pr_auc(self):
    tp, fp, fn = self.true_positives, self.false_positives, self.false_negatives
    dtp = tp[:-1] - tp[1:]
    p = tp + fp
    dp = p[:-1] - p[1:]
    slope = _m.div_no_nan(dtp, _m.maximum(dp, 0.0))
    intercept = tp[1:] - slope * p[1:]
    ratio = _a.where(_m.logical_and(p[:-1] > 0, p[1:] > 0),
                     _m.div_no_nan(p[:-1], _m.maximum(p[1:], 0.0)), _a.ones_like(p[1:]))
    inc = _m.div_no_nan(slope * (dtp + intercept * _m.log(ratio)),
                        _m.maximum(tp[1:] + fn[1:], 0.0))
    return self._by_label(inc, True)

  def result(self):
    if not self._built:
      return convert_to_tensor(0.0, self._dtype)
    if self.curve == "PR" and self.summation_method == "interpolation":
      return self._interpolate_pr_auc()
    tp, tn = self.true_positives, self.true_negatives
    fp, fn = self.false_positives, self.false_negatives
    recall = _m.div_no_nan(tp, tp + fn)
    if self.curve == "ROC":
      x, y = _m.div_no_nan(fp, fp + tn), recall
    elif self.curve == "PR":
      x, y = recall, _m.div_no_nan(tp, tp + fp)
    else:
      scale = _m.div_no_nan(tp + fn, fp + tn)
      zero = _m.equal(tp, 0.0)
      x = _m.maximum(_a.where(zero, _a.zeros_like(tp),
                              1.0 - scale * _m.div_no_nan(fn, tp)), 0.0)
      y = _a.where(zero, _a.ones_like(tp), 1.0 - scale * _m.div_no_nan(fp, tp))
    if self.summation_method == "interpolation":
      heights = (y[:-1] + y[1:]) / 2.0
    elif self.summation_method == "minoring":
      heights = _m.minimum(y[:-1], y[1:])
    else:
      heights = _m.maximum(y[:-1], y[1:])
    return self._by_label((x[:-1] - x[1:]) * heights, True)

  def reset_state(self):
    if self._built:
      super().reset_state()

  def get_config(self):
    config = {"num_thresholds": self.num_thresholds, "curve": self.curve,
              "summation_method": self.summation_method, "multi_label": self.multi_label,
              "num_labels": self.num_labels, "label_weights": self.label_weights,
              "from_logits": self._from_logits}
    if self._init_from_thresholds:
      config["thresholds"] = self.thresholds[1:-1]
    return {**super().get_config(), **config}
