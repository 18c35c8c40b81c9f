"""The rest of Keras 2's metrics against NumPy: confusion counts, Precision, Recall,
AUC, top-k accuracy, MeanIoU, F-scores and the mean-of-a-function metrics; configs,
lookup, graphs, reset."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.keras import metrics

rng = np.random.default_rng(1)
Y01 = (rng.uniform(size=(6, 3)) > 0.5).astype(np.float32)
P = rng.uniform(0, 1, size=(6, 3)).astype(np.float32)
L = (rng.standard_normal((6, 4)) * 2).astype(np.float32)
Y = rng.uniform(size=(6, 4)).astype(np.float32)
LAB = np.array([0, 3, 1, 2, 3, 0])
OH = np.eye(4, dtype=np.float32)[LAB]
SW = np.array([1.0, 0.5, 2.0, 0.0, 1.0, 3.0], np.float32)
EPS = 1e-7


def _counts(y, p, thresholds, w=None):
  """(tp, fp, tn, fn) per threshold: positive prediction is p > t."""
  w = np.ones(p.size) if w is None else np.broadcast_to(w, p.shape).reshape(-1)
  y, p = y.reshape(-1).astype(bool), p.reshape(-1)
  out = []
  for t in thresholds:
    pos = p > t
    out.append([(w * (y & pos)).sum(), (w * (~y & pos)).sum(), (w * (~y & ~pos)).sum(),
                (w * (y & ~pos)).sum()])
  return np.array(out, dtype=np.float64).T


def _feed(m, y, p, w=None):
  m.update_state(y, p, sample_weight=w)
  m.update_state(y[:3], p[:3])
  return m.result().numpy()


def _two_batches(y, p, w=None):
  """The data _feed gives a metric, as one batch."""
  w = np.ones(len(y), np.float32) if w is None else w
  return (np.concatenate([y, y[:3]]), np.concatenate([p, p[:3]]),
          np.concatenate([w, np.ones(3, np.float32)]))


@pytest.mark.parametrize("weighted", [False, True])
def test_condition_counts_precision_recall(weighted):
  w = SW[:, None] if weighted else None
  yy, pp, ww = _two_batches(Y01, P, SW if weighted else None)
  ww = np.broadcast_to(ww[:, None], yy.shape)
  tp, fp, tn, fn = _counts(yy, pp, [0.5], ww)
  for cls, want in [(metrics.TruePositives, tp), (metrics.FalsePositives, fp),
                    (metrics.TrueNegatives, tn), (metrics.FalseNegatives, fn)]:
    got = _feed(cls(), Y01, P, w)
    assert got.shape == () and np.isclose(got, want[0]), cls.__name__
  np.testing.assert_allclose(_feed(metrics.Precision(), Y01, P, w), tp[0] / (tp[0] + fp[0]),
                             rtol=1e-6)
  np.testing.assert_allclose(_feed(metrics.Recall(), Y01, P, w), tp[0] / (tp[0] + fn[0]),
                             rtol=1e-6)
  ths = [0.1, 0.5, 0.9]
  tp, fp, tn, fn = _counts(yy, pp, ths, ww)
  np.testing.assert_allclose(_feed(metrics.FalsePositives(ths), Y01, P, w), fp, rtol=1e-6)
  np.testing.assert_allclose(_feed(metrics.Precision(ths), Y01, P, w), tp / (tp + fp),
                             rtol=1e-6)


def test_precision_top_k_and_class_id():
  # top_k=1: only each row's largest prediction can count as positive.
  keep = P == P.max(-1, keepdims=True)
  yy, pp, _ = _two_batches(Y01, np.where(keep, P, -1e10))
  tp, fp, _, _ = _counts(yy, pp, [-1e10])
  np.testing.assert_allclose(_feed(metrics.Precision(top_k=1), Y01, P), tp / (tp + fp),
                             rtol=1e-6)
  yy, pp, _ = _two_batches(Y01[:, 2:], P[:, 2:])
  tp, _, _, fn = _counts(yy, pp, [0.3, 0.6])
  np.testing.assert_allclose(_feed(metrics.Recall([0.3, 0.6], class_id=2), Y01, P),
                             tp / (tp + fn), rtol=1e-6)
  # Values tf_keras 2.21 gives for these inputs.
  np.testing.assert_allclose(_feed(metrics.Precision(top_k=1), Y01, P), 0.3333333432674408)
  np.testing.assert_allclose(_feed(metrics.Recall([0.3, 0.6], class_id=2), Y01, P),
                             [1.0, 0.3333333432674408])


def _np_auc(y, p, n=200, curve="ROC", method="interpolation", w=None):
  ths = [-EPS] + [(i + 1) / (n - 1) for i in range(n - 2)] + [1 + EPS]
  tp, fp, tn, fn = _counts(y, p, ths, w)
  div = lambda a, b: np.where(b == 0, 0.0, a / np.where(b == 0, 1, b))  # noqa: E731
  if curve == "PR" and method == "interpolation":
    dtp = tp[:-1] - tp[1:]
    pos = tp + fp
    dp = pos[:-1] - pos[1:]
    slope = div(dtp, np.maximum(dp, 0))
    intercept = tp[1:] - slope * pos[1:]
    ratio = np.where((pos[:-1] > 0) & (pos[1:] > 0), div(pos[:-1], np.maximum(pos[1:], 0)), 1)
    return div(slope * (dtp + intercept * np.log(ratio)), tp[1:] + fn[1:]).sum()
  recall = div(tp, tp + fn)
  x, yv = (div(fp, fp + tn), recall) if curve == "ROC" else (recall, div(tp, tp + fp))
  h = {"interpolation": (yv[:-1] + yv[1:]) / 2, "minoring": np.minimum(yv[:-1], yv[1:]),
       "majoring": np.maximum(yv[:-1], yv[1:])}[method]
  return ((x[:-1] - x[1:]) * h).sum()


@pytest.mark.parametrize("kwargs", [{}, {"num_thresholds": 7}, {"curve": "PR"},
                                    {"curve": "PR", "summation_method": "minoring"},
                                    {"summation_method": "majoring"}])
def test_auc_against_numpy(kwargs):
  yy, pp, ww = _two_batches(Y01, P, SW)
  want = _np_auc(yy, pp, kwargs.get("num_thresholds", 200), kwargs.get("curve", "ROC"),
                 kwargs.get("summation_method", "interpolation"),
                 np.broadcast_to(ww[:, None], yy.shape))
  np.testing.assert_allclose(_feed(metrics.AUC(**kwargs), Y01, P, SW[:, None]), want,
                             rtol=1e-5, atol=1e-7)


def test_auc_multi_label_logits_thresholds_and_keras_values():
  yy, pp, _ = _two_batches(Y01, P)
  per_label = [_np_auc(yy[:, i], pp[:, i]) for i in range(3)]
  m = metrics.AUC(multi_label=True)
  np.testing.assert_allclose(_feed(m, Y01, P), np.mean(per_label), rtol=1e-5)
  assert m.true_positives.shape == [200, 3]
  pr = [_np_auc(yy[:, i], pp[:, i], curve="PR") for i in range(3)]
  lw = np.array([1.0, 2.0, 0.5])
  np.testing.assert_allclose(
      _feed(metrics.AUC(multi_label=True, label_weights=lw, curve="PR"), Y01, P),
      (np.array(pr) * lw).sum() / lw.sum(), rtol=1e-5)
  np.testing.assert_allclose(_feed(metrics.AUC(from_logits=True), Y01, P * 4 - 2),
                             _np_auc(yy, 1 / (1 + np.exp(-(pp * 4 - 2)))), rtol=1e-5)
  m = metrics.AUC(thresholds=[0.75, 0.25, 0.5])
  assert m.num_thresholds == 5 and m.thresholds[1:-1] == [0.25, 0.5, 0.75]
  # tf_keras 2.21 on these inputs (PR_GAIN, label_weights without multi_label).
  np.testing.assert_allclose(_feed(metrics.AUC(curve="PR_GAIN"), Y01, P), -0.5728862881660461,
                             rtol=1e-5)
  np.testing.assert_allclose(_feed(metrics.AUC(label_weights=[1, 2, 0.5]), Y01, P, SW[:, None]),
                             0.22605964541435242, rtol=1e-5)


def test_auc_in_a_graph_and_reset():
  m = metrics.AUC(num_thresholds=11)
  f = tf.function(lambda y, p: m.update_state(y, p))
  f(tf.constant(Y01), tf.constant(P))
  f(tf.constant(Y01[:3]), tf.constant(P[:3]))
  yy, pp, _ = _two_batches(Y01, P)
  np.testing.assert_allclose(m.result().numpy(), _np_auc(yy, pp, 11), rtol=1e-5)
  m.reset_state()
  assert m.true_positives.numpy().sum() == 0 and m.result().numpy() == 0.0


def test_top_k_accuracy():
  rank = (L > L[np.arange(6), LAB][:, None]).sum(-1)
  np.testing.assert_allclose(_feed(metrics.TopKCategoricalAccuracy(k=2), OH, L),
                             np.concatenate([rank, rank[:3]]).__lt__(2).mean(), rtol=1e-6)
  np.testing.assert_allclose(_feed(metrics.SparseTopKCategoricalAccuracy(k=1), LAB, L),
                             np.concatenate([rank, rank[:3]]).__lt__(1).mean(), rtol=1e-6)
  m = metrics.SparseTopKCategoricalAccuracy(k=1)
  m.update_state(LAB[:, None], L, sample_weight=SW)
  np.testing.assert_allclose(m.result().numpy(), ((rank < 1) * SW).sum() / SW.sum(),
                             rtol=1e-6)
  # ties at the boundary count as in the top k, as tf.math.in_top_k
  assert metrics.sparse_top_k_categorical_accuracy([0], [[1.0, 1.0, 1.0]], k=1).numpy() == 1
  assert metrics.TopKCategoricalAccuracy().get_config() == {
      "name": "top_k_categorical_accuracy", "dtype": "float32", "k": 5}


def _np_miou(t, p, n, w=None):
  cm = np.zeros((n, n))
  np.add.at(cm, (t, p), 1 if w is None else w)
  tp = np.diag(cm)
  den = cm.sum(0) + cm.sum(1) - tp
  valid = den > 0
  return (tp[valid] / den[valid]).sum() / valid.sum()


def test_mean_iou():
  pred = np.array([0, 3, 2, 2, 1, 0])
  m = metrics.MeanIoU(num_classes=4)
  m.update_state(LAB, pred, sample_weight=SW)
  np.testing.assert_allclose(m.result().numpy(), _np_miou(LAB, pred, 4, SW), rtol=1e-6)
  m = metrics.MeanIoU(num_classes=4, ignore_class=0)
  m.update_state(LAB, pred)
  keep = LAB != 0
  np.testing.assert_allclose(m.result().numpy(), _np_miou(LAB[keep], pred[keep], 4), rtol=1e-6)
  m = metrics.MeanIoU(num_classes=4, sparse_y_pred=False)
  m.update_state(LAB, L)
  np.testing.assert_allclose(m.result().numpy(), _np_miou(LAB, L.argmax(-1), 4), rtol=1e-6)
  assert m.name.startswith("mean_io_u") and m.get_config()["num_classes"] == 4
  again = metrics.MeanIoU.from_config(m.get_config())
  assert again.sparse_y_pred is False


def _np_f(y, pred, beta=1.0, average=None, w=None):
  w = np.ones(len(y)) if w is None else w
  axis = None if average == "micro" else 0
  tp = (pred * y * w[:, None]).sum(axis)
  fp = (pred * (1 - y) * w[:, None]).sum(axis)
  fn = ((1 - pred) * y * w[:, None]).sum(axis)
  with np.errstate(invalid="ignore", divide="ignore"):
    prec = np.nan_to_num(tp / (tp + fp))
    rec = np.nan_to_num(tp / (tp + fn))
    f = np.nan_to_num(prec * rec / (beta ** 2 * prec + rec)) * (1 + beta ** 2)
  if average == "weighted":
    sup = (y * w[:, None]).sum(0)
    return (f * sup / sup.sum()).sum()
  return f.mean() if average else f


def test_f_scores():
  argmax_pred = (L == L.max(-1, keepdims=True)).astype(np.float32)
  m = metrics.F1Score()
  m.update_state(OH, L, sample_weight=SW)
  np.testing.assert_allclose(m.result().numpy(), _np_f(OH, argmax_pred, w=SW), rtol=1e-6)
  for average in ("micro", "macro", "weighted"):
    m = metrics.F1Score(average=average, threshold=0.5)
    m.update_state(Y01, P)
    np.testing.assert_allclose(m.result().numpy(),
                               _np_f(Y01, (P > 0.5).astype(np.float32), average=average),
                               rtol=1e-6, err_msg=average)
  m = metrics.FBetaScore(beta=2.0, average="macro")
  m.update_state(OH, L)
  np.testing.assert_allclose(m.result().numpy(), _np_f(OH, argmax_pred, 2.0, "macro"),
                             rtol=1e-6)
  assert metrics.F1Score(average="micro").get_config() == {
      "name": "f1_score", "dtype": "float32", "average": "micro", "threshold": None}
  with pytest.raises(ValueError, match="Invalid `average` argument value"):
    metrics.F1Score(average="mean")
  with pytest.raises(ValueError, match="It should verify 0 < threshold <= 1"):
    metrics.F1Score(threshold=1.5)
  with pytest.raises(ValueError, match="FBetaScore expects 2D inputs"):
    metrics.F1Score()([1.0, 0.0], [0.3, 0.2])


def _l2n(x):
  return x / np.sqrt((x ** 2).sum(-1, keepdims=True))


FN_METRICS = [
    (metrics.RootMeanSquaredError, Y, L, None),
    (metrics.MeanAbsolutePercentageError, Y, L,
     100 * (np.abs(Y - L) / np.maximum(np.abs(Y), EPS)).mean(-1)),
    (metrics.MeanSquaredLogarithmicError, Y, L,
     ((np.log(np.maximum(L, EPS) + 1) - np.log(Y + 1)) ** 2).mean(-1)),
    (metrics.CosineSimilarity, Y, L, (_l2n(Y) * _l2n(L)).sum(-1)),
    (metrics.Hinge, Y01, P, np.maximum(1 - (2 * Y01 - 1) * P, 0).mean(-1)),
    (metrics.SquaredHinge, Y01, P, (np.maximum(1 - (2 * Y01 - 1) * P, 0) ** 2).mean(-1)),
    (metrics.CategoricalHinge, OH, L,
     np.maximum(((1 - OH) * L).max(-1) - (OH * L).sum(-1) + 1, 0)),
    (metrics.KLDivergence, Y, np.abs(L) / 8,
     (Y * np.log(Y / np.clip(np.abs(L) / 8, EPS, 1))).sum(-1)),
    (metrics.Poisson, Y, np.abs(L), (np.abs(L) - Y * np.log(np.abs(L) + EPS)).mean(-1)),
    (metrics.LogCoshError, Y, L, np.log(np.cosh(L - Y)).mean(-1)),
]


@pytest.mark.parametrize("cls,y,p,per_sample", FN_METRICS, ids=[c[0].__name__ for c in FN_METRICS])
def test_mean_of_function_metrics(cls, y, p, per_sample):
  m = cls()
  m.update_state(y, p, sample_weight=SW)
  m.update_state(y[:2], p[:2])
  w = np.concatenate([SW, [1.0, 1.0]])
  if cls is metrics.RootMeanSquaredError:
    # Keras weights each squared error, so a row's weight counts once per column
    want = np.sqrt(((np.concatenate([p, p[:2]]) - np.concatenate([y, y[:2]])) ** 2 *
                    w[:, None]).sum() / (w.sum() * y.shape[1]))
  else:
    values = np.concatenate([per_sample, per_sample[:2]])
    want = (values * w).sum() / w.sum()
  np.testing.assert_allclose(m.result().numpy(), want, rtol=2e-5)
  again = cls.from_config(m.get_config())
  assert type(again) is cls and again.name == m.name
  assert type(metrics.get(cls.__name__)) is cls
  traced = cls()
  tf.function(lambda a, b: traced.update_state(a, b))(tf.constant(y), tf.constant(p))
  plain = cls()
  plain.update_state(y, p)
  np.testing.assert_allclose(traced.result().numpy(), plain.result().numpy(), rtol=1e-6)


def test_sum_over_batch_size_and_wrapper():
  m = metrics.SumOverBatchSize()
  m.update_state([1.0, 2.0, 3.0], sample_weight=[1.0, 0.0, 2.0])
  assert m.result().numpy() == pytest.approx(7 / 3)
  m.update_state([4.0])
  assert m.result().numpy() == pytest.approx(11 / 4)
  w = metrics.MeanMetricWrapper(tf.keras.losses.huber, name="h", delta=0.5)
  w.update_state(Y, L)
  e = L - Y
  huber = np.where(np.abs(e) <= 0.5, 0.5 * e ** 2, 0.5 * np.abs(e) - 0.125).mean(-1).mean()
  np.testing.assert_allclose(w.result().numpy(), huber, rtol=1e-6)


def test_confusion_configs_names_and_errors():
  p = metrics.Precision(thresholds=[0.3, 0.7], class_id=1, name="p")
  cfg = p.get_config()
  assert cfg == {"thresholds": [0.3, 0.7], "top_k": None, "class_id": 1, "name": "p",
                 "dtype": "float32"}
  assert metrics.Precision.from_config(cfg).thresholds == [0.3, 0.7]
  tf.keras.backend.clear_session()
  assert metrics.TruePositives().name == "true_positives" and metrics.AUC().name == "auc"
  # unnamed metrics get unique names, as Keras 2's: two AUCs log "auc" and "auc_1"
  assert metrics.AUC().name == "auc_1" and metrics.AUC(name="auc").name == "auc"
  cfg = metrics.AUC(curve="PR", multi_label=True, num_labels=3).get_config()
  assert cfg["curve"] == "PR" and cfg["num_labels"] == 3 and "thresholds" not in cfg
  a = metrics.deserialize(metrics.serialize(metrics.AUC(num_thresholds=9)))
  assert isinstance(a, metrics.AUC) and a.num_thresholds == 9
  for name in ("Precision", "Recall", "AUC", "TruePositives", "FalseNegatives", "F1Score",
               "MeanIoU"):
    assert getattr(metrics, name).__name__ == name
  assert metrics.get("top_k_categorical_accuracy") is metrics.top_k_categorical_accuracy
  assert metrics.get("msle") is metrics.mean_squared_logarithmic_error
  with pytest.raises(ValueError, match="Threshold values must be in"):
    metrics.Precision(thresholds=1.5)
  with pytest.raises(ValueError, match="Invalid AUC curve value"):
    metrics.AUC(curve="XY")
  with pytest.raises(ValueError, match="`num_thresholds` must be an integer > 1"):
    metrics.AUC(num_thresholds=1)
  with pytest.raises(ValueError, match="needed only when `multi_label` is True"):
    metrics.AUC(num_labels=3)
  with pytest.raises(ValueError, match="must have rank 2 when `multi_label=True`"):
    metrics.AUC(multi_label=True).update_state([1.0, 0.0], [0.4, 0.3])
  with pytest.raises(ValueError, match="incompatible"):
    metrics.Recall().update_state(np.ones((2, 3)), np.ones((2, 4)))


def test_compiled_string_names_build_these_metrics():
  tf.keras.backend.clear_session()
  model = tf.keras.Sequential([tf.keras.layers.Dense(1, activation="sigmoid")])
  model.compile("sgd", "binary_crossentropy",
                metrics=["AUC", tf.keras.metrics.Precision(name="prec"), "Recall"])
  x = rng.uniform(size=(16, 3)).astype(np.float32)
  y = (x.sum(-1, keepdims=True) > 1.5).astype(np.float32)
  logs = model.evaluate(x, y, verbose=0, return_dict=True)
  assert set(logs) == {"loss", "auc", "prec", "recall"}
  pred = model.predict(x, verbose=0)
  tp, fp, _, fn = _counts(y, pred, [0.5])
  assert logs["prec"] == pytest.approx(tp[0] / (tp[0] + fp[0]) if tp[0] + fp[0] else 0.0)
  assert logs["auc"] == pytest.approx(_np_auc(y, pred), rel=1e-5)


def test_mean_metric_wrapper_config_names_its_function():
  w = metrics.MeanMetricWrapper(tf.keras.losses.huber, name="h", delta=0.5)
  cfg = w.get_config()
  assert cfg == {"name": "h", "dtype": "float32", "delta": 0.5, "fn": "huber"}
  again = metrics.MeanMetricWrapper.from_config(cfg)
  again.update_state(Y, L)
  w.update_state(Y, L)
  np.testing.assert_allclose(again.result().numpy(), w.result().numpy())
