"""Keras losses against NumPy formulas; reductions, weights, alignment, errors."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.keras import losses

EPS = 1e-7
rng = np.random.default_rng(3)
Y = rng.uniform(size=(4, 3)).astype(np.float32)
P = rng.uniform(0.05, 0.95, size=(4, 3)).astype(np.float32)
LOGITS = rng.standard_normal((4, 3)).astype(np.float32)
ONEHOT = np.eye(3, dtype=np.float32)[[0, 2, 1, 2]]
LABELS = np.array([0, 2, 1, 2])


def _softmax(z):
  e = np.exp(z - z.max(-1, keepdims=True))
  return e / e.sum(-1, keepdims=True)


def _sigmoid(z):
  return 1 / (1 + np.exp(-z))


def _bce(y, p):
  p = np.clip(p, EPS, 1 - EPS)
  return -(y * np.log(p + EPS) + (1 - y) * np.log(1 - p + EPS))


CASES = [
    (losses.MeanSquaredError(), Y, P, ((P - Y) ** 2).mean(-1)),
    (losses.MeanAbsoluteError(), Y, P, np.abs(P - Y).mean(-1)),
    (losses.BinaryCrossentropy(), Y, P, _bce(Y, P).mean(-1)),
    (losses.BinaryCrossentropy(from_logits=True), Y, LOGITS,
     _bce(Y, _sigmoid(LOGITS)).mean(-1)),
    (losses.BinaryCrossentropy(label_smoothing=0.2), Y, P,
     _bce(Y * 0.8 + 0.1, P).mean(-1)),
    (losses.CategoricalCrossentropy(), ONEHOT, P,
     -(ONEHOT * np.log(P / P.sum(-1, keepdims=True))).sum(-1)),
    (losses.CategoricalCrossentropy(from_logits=True), ONEHOT, LOGITS,
     -(ONEHOT * np.log(_softmax(LOGITS))).sum(-1)),
    (losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.3), ONEHOT, LOGITS,
     -((ONEHOT * 0.7 + 0.1) * np.log(_softmax(LOGITS))).sum(-1)),
    (losses.SparseCategoricalCrossentropy(), LABELS, _softmax(LOGITS),
     -np.log(_softmax(LOGITS)[np.arange(4), LABELS])),
    (losses.SparseCategoricalCrossentropy(from_logits=True), LABELS, LOGITS,
     -np.log(_softmax(LOGITS)[np.arange(4), LABELS])),
    (losses.SparseCategoricalCrossentropy(from_logits=True), LABELS[:, None], LOGITS,
     -np.log(_softmax(LOGITS)[np.arange(4), LABELS])),
]
IDS = ["mse", "mae", "bce", "bce_logits", "bce_smooth", "cce", "cce_logits", "cce_smooth",
       "scce", "scce_logits", "scce_column_labels"]


@pytest.mark.parametrize("loss,y,p,per_sample", CASES, ids=IDS)
def test_values_and_reductions(loss, y, p, per_sample):
  got = loss(tf.constant(y), tf.constant(p))
  assert got.dtype == tf.float32 and got.shape == []
  np.testing.assert_allclose(got.numpy(), per_sample.mean(), rtol=1e-5)
  w = np.array([1.0, 0.0, 2.0, 0.5], np.float32)
  weighted = loss(tf.constant(y), tf.constant(p), sample_weight=tf.constant(w))
  np.testing.assert_allclose(weighted.numpy(), (per_sample * w).sum() / 4, rtol=1e-5)
  cfg = loss.get_config()
  for reduction, want in [("none", per_sample), ("sum", per_sample.sum())]:
    cfg2 = dict(cfg, reduction=reduction)
    again = type(loss).from_config(cfg2)
    np.testing.assert_allclose(again(y, p).numpy(), want, rtol=1e-5)


@pytest.mark.parametrize("loss,y,p,per_sample", CASES, ids=IDS)
def test_same_values_in_a_graph(loss, y, p, per_sample):
  f = tf.function(lambda a, b: loss(a, b))
  np.testing.assert_allclose(f(tf.constant(y), tf.constant(p)).numpy(), per_sample.mean(),
                             rtol=1e-5)


def test_gradient_of_sparse_logits_loss():
  logits = tf.Variable(LOGITS)
  with tf.GradientTape() as tape:
    loss = losses.SparseCategoricalCrossentropy(from_logits=True)(LABELS, logits)
  g = tape.gradient(loss, logits).numpy()
  np.testing.assert_allclose(g, (_softmax(LOGITS) - np.eye(3)[LABELS]) / 4, rtol=1e-5,
                             atol=1e-7)


def test_keras_alignment_rules():
  mse = losses.MeanSquaredError()
  # Two tensors: y_pred's trailing unit dimension is dropped.
  assert mse(tf.constant([1.0, 2.0]), tf.constant([[1.0], [3.0]])).numpy() == 0.5
  # NumPy inputs are not aligned (Keras broadcasts them) and keep float64.
  r = mse(np.array([1.0, 2.0]), np.array([[1.0], [3.0]]))
  assert r.dtype == tf.float64 and r.numpy() == 1.5
  assert mse([[1.0, 2.0], [3, 4]], [[1.0, 1.0], [1, 1]], sample_weight=[1.0, 0.0]).numpy() \
      == 0.25
  np.testing.assert_allclose(mse(Y, P, sample_weight=[[1.0], [1.0], [1.0], [1.0]]).numpy(),
                             ((P - Y) ** 2).mean(), rtol=1e-6)
  none = losses.MeanSquaredError(reduction="none")(tf.constant([[1, 2]]), tf.constant([[1, 4]]))
  assert none.dtype == tf.int32 and none.numpy().tolist() == [2]


def test_functions_and_scce_probabilities_are_clipped():
  np.testing.assert_allclose(losses.mse([1, 2], [1.0, 3.0]).numpy(), 0.5)
  assert losses.MSE is losses.mean_squared_error and losses.mae is losses.mean_absolute_error
  r = losses.sparse_categorical_crossentropy([0, 1], [[0.0, 1.0], [0.0, 1.0]])
  np.testing.assert_allclose(r.numpy(), [-np.log(EPS), -np.log(1 - EPS)], rtol=1e-4, atol=1e-7)
  ex = losses.SparseCategoricalCrossentropy()([[1], [2]], [[.1, .2, .7], [.2, .3, .5]])
  np.testing.assert_allclose(ex.numpy(), 1.1512925624847412, rtol=1e-6)  # tf_keras' value
  bce = losses.BinaryCrossentropy(from_logits=True, reduction="sum")([[1.0], [0.0]],
                                                                     [[2.0], [-1.0]])
  np.testing.assert_allclose(bce.numpy(), 0.4401896893978119, rtol=1e-6)
  ign = losses.sparse_categorical_crossentropy([0, 1], LOGITS[:2, :2], from_logits=True,
                                               ignore_class=1)
  assert ign.numpy()[1] == 0.0
  images = losses.sparse_categorical_crossentropy(np.zeros([2, 3, 3]), np.ones([2, 3, 3, 4]),
                                                  from_logits=True)
  assert images.shape == [2, 3, 3]
  np.testing.assert_allclose(images.numpy(), np.log(4.0), rtol=1e-6)


def test_config_get_serialize():
  assert losses.MeanSquaredError().get_config() == {
      "reduction": "auto", "name": "mean_squared_error", "fn": "mean_squared_error"}
  assert losses.SparseCategoricalCrossentropy(from_logits=True).get_config() == {
      "reduction": "auto", "name": "sparse_categorical_crossentropy", "from_logits": True,
      "ignore_class": None, "fn": "sparse_categorical_crossentropy"}
  assert losses.BinaryCrossentropy().get_config() == {
      "reduction": "auto", "name": "binary_crossentropy", "from_logits": False,
      "label_smoothing": 0.0, "axis": -1, "fn": "binary_crossentropy"}
  assert losses.get("mse") is losses.mean_squared_error
  assert losses.get("categorical_crossentropy") is losses.categorical_crossentropy
  assert isinstance(losses.get("BinaryCrossentropy"), losses.BinaryCrossentropy)
  cfg = losses.serialize(losses.CategoricalCrossentropy(label_smoothing=0.1))
  again = losses.get(cfg)
  assert isinstance(again, losses.CategoricalCrossentropy)
  assert again.get_config()["label_smoothing"] == 0.1
  assert losses.get(None) is None and losses.get(len) is len
  assert losses.Reduction.all() == ("auto", "none", "sum", "sum_over_batch_size")


def test_custom_loss_subclass():
  class Half(losses.Loss):
    def call(self, y_true, y_pred):
      return tf.reduce_mean(tf.abs(y_true - y_pred), axis=-1) / 2

  np.testing.assert_allclose(Half()(Y, P).numpy(), np.abs(Y - P).mean() / 2, rtol=1e-6)
  with pytest.raises(NotImplementedError, match="must implement call"):
    losses.Loss()(Y, P)


def test_bad_input():
  with pytest.raises(ValueError, match=r"Invalid Reduction Key: foo\. Expected keys are"):
    losses.MeanSquaredError(reduction="foo")
  with pytest.raises(ValueError, match="Unknown loss function: 'foo'"):
    losses.get("foo")
  with pytest.raises(ValueError, match="Could not interpret loss function identifier"):
    losses.get(3)
  with pytest.raises(ValueError, match=r"Shapes \(2, 3\) and \(2, 4\) are incompatible"):
    losses.CategoricalCrossentropy()(tf.ones([2, 3]), tf.ones([2, 4]))
  with pytest.raises(ValueError, match="`axis` must be of type `int`"):
    losses.categorical_crossentropy(ONEHOT, P, axis=True)
  with pytest.raises(tf.errors.InvalidArgumentError):
    losses.SparseCategoricalCrossentropy(from_logits=True)([5, 0, 0, 0], LOGITS)


# ------------------------------------------------------- the other Keras 2 losses
Y01 = (rng.uniform(size=(4, 3)) > 0.5).astype(np.float32)
WIDE = (rng.standard_normal((4, 3)) * 2).astype(np.float32)


def _np_hinge(y, p, squared=False):
  y = 2 * y - 1 if np.isin(y, [0, 1]).all() else y
  h = np.maximum(1 - y * p, 0)
  return (h ** 2 if squared else h).mean(-1)


def _np_huber(y, p, d):
  e = p - y
  return np.where(np.abs(e) <= d, 0.5 * e ** 2, d * np.abs(e) - 0.5 * d * d).mean(-1)


def _l2n(x, axis=-1):
  return x / np.sqrt(np.maximum((x ** 2).sum(axis, keepdims=True), 1e-12))


def _np_focal(y, p, gamma=2.0, balance=None):
  pt = y * p + (1 - y) * (1 - p)
  out = (1 - pt) ** gamma * _bce(y, p)
  if balance is not None:
    out = (y * balance + (1 - y) * (1 - balance)) * out
  return out.mean(-1)


MORE = [
    ("hinge_01", losses.Hinge(), Y01, WIDE, _np_hinge(Y01, WIDE)),
    ("hinge_pm1", losses.Hinge(), 2 * Y01 - 1, WIDE, _np_hinge(2 * Y01 - 1, WIDE)),
    ("hinge_real", losses.Hinge(), Y, WIDE, np.maximum(1 - Y * WIDE, 0).mean(-1)),
    ("squared_hinge", losses.SquaredHinge(), Y01, WIDE, _np_hinge(Y01, WIDE, True)),
    ("categorical_hinge", losses.CategoricalHinge(), ONEHOT, WIDE,
     np.maximum(((1 - ONEHOT) * WIDE).max(-1) - (ONEHOT * WIDE).sum(-1) + 1, 0)),
    ("huber", losses.Huber(), Y, WIDE, _np_huber(Y, WIDE, 1.0)),
    ("huber_delta", losses.Huber(delta=0.5), Y, WIDE, _np_huber(Y, WIDE, 0.5)),
    ("log_cosh", losses.LogCosh(), Y, WIDE, np.log(np.cosh(WIDE - Y)).mean(-1)),
    ("kld", losses.KLDivergence(), Y, P,
     (np.clip(Y, EPS, 1) * np.log(np.clip(Y, EPS, 1) / np.clip(P, EPS, 1))).sum(-1)),
    ("poisson", losses.Poisson(), Y, P, (P - Y * np.log(P + EPS)).mean(-1)),
    ("cosine", losses.CosineSimilarity(), Y, WIDE, -(_l2n(Y) * _l2n(WIDE)).sum(-1)),
    ("msle", losses.MeanSquaredLogarithmicError(), Y, WIDE,
     ((np.log(np.maximum(WIDE, EPS) + 1) - np.log(np.maximum(Y, EPS) + 1)) ** 2).mean(-1)),
    ("mape", losses.MeanAbsolutePercentageError(), Y, WIDE,
     100 * (np.abs(Y - WIDE) / np.maximum(np.abs(Y), EPS)).mean(-1)),
    ("focal", losses.BinaryFocalCrossentropy(), Y01, P, _np_focal(Y01, P)),
    ("focal_balanced", losses.BinaryFocalCrossentropy(apply_class_balancing=True, alpha=0.3,
                                                      gamma=1.5), Y01, P,
     _np_focal(Y01, P, 1.5, 0.3)),
    ("focal_logits", losses.BinaryFocalCrossentropy(from_logits=True), Y01, WIDE,
     None),  # filled below: needs the logits form of the cross-entropy
    ("categorical_focal", losses.CategoricalFocalCrossentropy(), ONEHOT, P,
     (-0.25 * (1 - P / P.sum(-1, keepdims=True)) ** 2 * ONEHOT *
      np.log(P / P.sum(-1, keepdims=True))).sum(-1)),
]
_s = _sigmoid(WIDE)
_pt = Y01 * _s + (1 - Y01) * (1 - _s)
_logit_bce = np.maximum(WIDE, 0) - WIDE * Y01 + np.log1p(np.exp(-np.abs(WIDE)))
MORE[15] = MORE[15][:4] + (((1 - _pt) ** 2 * _logit_bce).mean(-1),)

# Values real Keras 2 (tf_keras 2.21) gave for these classes on the inputs that
# test_more_losses_match_keras_values builds (same seed and draws).
KERAS_VALUES = {"Hinge": 0.975045919418335, "CategoricalHinge": 0.8372266292572021,
                "Huber": 0.6981344223022461, "LogCosh": 0.624610185623169,
                "KLDivergence": 1.04072904586792, "BinaryFocalCrossentropy": 0.4590313732624054}


@pytest.mark.parametrize("case", MORE, ids=[c[0] for c in MORE])
def test_more_losses_against_numpy(case):
  _, loss, y, p, per_sample = case
  got = loss(tf.constant(y), tf.constant(p))
  assert got.dtype == tf.float32 and got.shape == []
  np.testing.assert_allclose(got.numpy(), per_sample.mean(), rtol=2e-5, atol=1e-6)
  w = np.array([1.0, 0.0, 2.0, 0.5], np.float32)
  np.testing.assert_allclose(loss(y, p, sample_weight=w).numpy(),
                             (per_sample * w).sum() / 4, rtol=2e-5, atol=1e-6)
  traced = tf.function(lambda a, b: loss(a, b))(tf.constant(y), tf.constant(p))
  np.testing.assert_allclose(traced.numpy(), per_sample.mean(), rtol=2e-5, atol=1e-6)
  cfg = loss.get_config()
  again = type(loss).from_config(dict(cfg, reduction="none"))
  np.testing.assert_allclose(again(y, p).numpy(), per_sample, rtol=2e-5, atol=1e-6)
  via_name = losses.get(type(loss).__name__)
  assert type(via_name) is type(loss)
  fn = losses.get(loss.fn.__name__)
  assert fn is loss.fn
  round_trip = losses.deserialize(losses.serialize(loss))
  assert type(round_trip) is type(loss) and round_trip.get_config() == cfg


def test_more_losses_match_keras_values():
  g = np.random.default_rng(0)
  y01 = (g.uniform(size=(4, 3)) > 0.5).astype(np.float32)
  p = g.uniform(0.05, 0.95, size=(4, 3)).astype(np.float32)
  logits = (g.standard_normal((4, 3)) * 2).astype(np.float32)
  y = g.uniform(size=(4, 3)).astype(np.float32)
  onehot = np.eye(3, dtype=np.float32)[[0, 2, 1, 2]]
  inputs = {"Hinge": (y01, logits), "CategoricalHinge": (onehot, logits),
            "Huber": (y, logits), "LogCosh": (y, logits), "KLDivergence": (y, p),
            "BinaryFocalCrossentropy": (y01, p)}
  for name, want in KERAS_VALUES.items():
    got = getattr(losses, name)()(*inputs[name])
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, err_msg=name)


def test_more_loss_gradients_against_numpy():
  p = tf.Variable(WIDE)
  with tf.GradientTape() as tape:
    loss = losses.Huber(delta=0.5)(Y, p)
  e = WIDE - Y
  want = np.clip(e, -0.5, 0.5) / e.size
  np.testing.assert_allclose(tape.gradient(loss, p).numpy(), want, rtol=1e-5, atol=1e-7)
  with tf.GradientTape() as tape:
    loss = losses.LogCosh()(Y, p)
  np.testing.assert_allclose(tape.gradient(loss, p).numpy(), np.tanh(e) / e.size, rtol=1e-4,
                             atol=1e-7)


def test_more_loss_aliases_and_configs():
  assert losses.kld is losses.KLD is losses.kullback_leibler_divergence is \
      losses.kl_divergence
  assert losses.msle is losses.MSLE is losses.mean_squared_logarithmic_error
  assert losses.mape is losses.MAPE is losses.mean_absolute_percentage_error
  assert losses.logcosh is losses.log_cosh
  assert losses.get("kld") is losses.kl_divergence and losses.get("huber") is losses.huber
  assert losses.get("huber_loss") is losses.huber  # as tf_keras
  assert losses.Huber(0.3).get_config() == {"reduction": "auto", "name": "huber_loss",
                                           "delta": 0.3, "fn": "huber"}
  cfg = losses.BinaryFocalCrossentropy(gamma=3.0).get_config()
  assert cfg["gamma"] == 3.0 and cfg["alpha"] == 0.25 and cfg["name"] == \
      "binary_focal_crossentropy"
  with pytest.raises(TypeError, match="unexpected keyword argument 'delta'"):
    losses.Hinge(delta=1.0)
  # The function forms reduce the last axis only.
  assert losses.poisson(Y, P).shape == [4]
  np.testing.assert_allclose(losses.cosine_similarity(Y, WIDE, axis=0).numpy(),
                             -(_l2n(Y, 0) * _l2n(WIDE, 0)).sum(0), rtol=1e-5)
