"""Audit of issue 13's gaps outside the recurrent family: Embedding (values, gradient of the
looked-up rows by finite differences, config, mask_zero, errors), GroupNormalization's
`axis` check, UnitNormalization on integer inputs, and Keras 2's error types for inputs
that do not fit a built layer, with the weights unchanged and the layer still usable."""
import numpy as np
import pytest

import tensorlet as tf
from tests.keras.layers.layer_helpers import check_config, check_values, rand

L = tf.keras.layers


def test_embedding_values_mask_and_config():
  layer = L.Embedding(6, 3, mask_zero=True, embeddings_initializer="glorot_uniform")
  ids = np.array([[1, 0, 5], [2, 2, 0]], np.int32)
  y = check_values(layer, ids, lambda lay: lay.get_weights()[0][ids])
  assert y.dtype == tf.float32
  np.testing.assert_array_equal(y._keras_mask.numpy(), ids != 0)
  np.testing.assert_array_equal(layer.compute_mask(ids).numpy(), ids != 0)
  assert L.Embedding(6, 3).compute_mask(ids) is None
  config = check_config(layer).get_config()
  assert config["input_dim"] == 6 and config["output_dim"] == 3 and config["mask_zero"] is True
  assert [w.name for w in layer.weights] == [layer.name + "/embeddings:0"]


def test_embedding_gradient_matches_finite_differences():
  layer = L.Embedding(5, 2, dtype="float64")
  ids = np.array([[1, 3, 1], [4, 0, 1]], np.int32)
  layer(ids)
  w0 = layer.embeddings.numpy().copy()
  r = rand(2, 3, 2, seed=3)
  with tf.GradientTape() as tape:
    y = tf.reduce_sum(layer(ids) * r)
  g = tf.convert_to_tensor(tape.gradient(y, layer.embeddings)).numpy()
  d = rand(5, 2, seed=4)
  eps = 1e-6

  def f(w):
    layer.embeddings.assign(w)
    return float(np.sum(layer(ids).numpy() * r))
  numeric = (f(w0 + eps * d) - f(w0 - eps * d)) / (2 * eps)
  layer.embeddings.assign(w0)
  np.testing.assert_allclose(np.sum(g * d), numeric, rtol=1e-6)
  # Row 1 appears three times: its gradient is the sum of the three directions.
  np.testing.assert_allclose(g[1], r[0, 0] + r[0, 2] + r[1, 2], rtol=1e-12)
  np.testing.assert_array_equal(g[2], 0.0)


@pytest.mark.parametrize("make,exc,msg", [
    (lambda: L.Embedding(0, 3), ValueError, "should be positive"),
    (lambda: L.Embedding(3, 0), ValueError, "should be positive"),
    (lambda: L.Embedding(3, 2)(np.array([[5]])), tf.errors.InvalidArgumentError, "not in"),
    (lambda: L.Embedding(3, 2)(np.array([[-1]])), tf.errors.InvalidArgumentError, "not in"),
    (lambda: L.GroupNormalization(groups=1, axis=3)(np.ones((2, 3), "f")), ValueError,
     "Invalid value for `axis`"),
    (lambda: L.GroupNormalization(groups=1, axis="a"), TypeError, "axis"),
    (lambda: L.Dense(2, dtype="foo"), TypeError, "DType"),
    (lambda: L.LSTM(2, dtype="foo"), TypeError, "DType"),
])
def test_errors_match_keras2(make, exc, msg):
  with pytest.raises(exc, match=msg):
    make()


def test_unit_normalization_casts_integer_inputs_like_keras2():
  y = L.UnitNormalization()(np.array([[3, 4], [0, 5]], np.int32))
  assert y.dtype == tf.float32
  np.testing.assert_allclose(y.numpy(), [[0.6, 0.8], [0.0, 1.0]], rtol=1e-6)


# (make, good input shape, bad input shape, Keras 2's error type for the bad call)
_BUILT = [
    (lambda: L.Dense(2), (2, 3), (2, 4), ValueError),
    (lambda: L.Conv1D(2, 3), (1, 5, 3), (1, 5, 4), ValueError),
    (lambda: L.Conv2D(2, 3), (1, 5, 5, 3), (1, 5, 5, 4), ValueError),
    (lambda: L.Conv2DTranspose(2, 3), (1, 5, 5, 3), (1, 5, 5, 4), ValueError),
    (lambda: L.DepthwiseConv2D(3), (1, 5, 5, 3), (1, 5, 5, 2), ValueError),
    (lambda: L.SeparableConv2D(2, 3), (1, 5, 5, 3), (1, 5, 5, 4), ValueError),
    (lambda: L.GroupNormalization(groups=3), (2, 3), (2, 6), ValueError),
    (lambda: L.BatchNormalization(), (2, 3), (2, 4), ValueError),
    (lambda: L.LSTM(2), (2, 4, 3), (2, 4, 5), ValueError),
    (lambda: L.TimeDistributed(L.Dense(2)), (2, 4, 3), (2, 4, 5), ValueError),
    (lambda: L.LayerNormalization(), (2, 3), (2, 4), tf.errors.InvalidArgumentError),
    (lambda: L.Attention(), [(2, 3, 4), (2, 3, 4)], [(2, 3, 4), (2, 3, 5)],
     tf.errors.InvalidArgumentError),
    (lambda: L.AdditiveAttention(), [(2, 3, 4), (2, 3, 4)], [(2, 3, 5), (2, 3, 5)],
     tf.errors.InvalidArgumentError),
]


def _arrays(shape, seed):
  if isinstance(shape, list):
    return [rand(*s, seed=seed + i).astype(np.float32) for i, s in enumerate(shape)]
  return rand(*shape, seed=seed).astype(np.float32)


@pytest.mark.parametrize("make,good,bad,exc", _BUILT,
                         ids=[f"{i}" for i in range(len(_BUILT))])
def test_bad_input_to_a_built_layer_raises_keras2_type_and_changes_nothing(make, good, bad, exc):
  layer = make()
  x = _arrays(good, 0)
  want = layer(x).numpy()
  before = [w.copy() for w in layer.get_weights()]
  with pytest.raises(exc):
    layer(_arrays(bad, 1), training=True)
  for a, b in zip(layer.get_weights(), before):
    np.testing.assert_array_equal(a, b)
  np.testing.assert_allclose(layer(x).numpy(), want, rtol=1e-6)


def test_multi_head_attention_bad_feature_size_changes_nothing():
  layer = L.MultiHeadAttention(2, 2)
  x = rand(2, 4, 3).astype(np.float32)
  want = layer(x, x).numpy()
  before = [w.copy() for w in layer.get_weights()]
  bad = rand(2, 4, 5).astype(np.float32)
  with pytest.raises(tf.errors.InvalidArgumentError):
    layer(bad, bad)
  for a, b in zip(layer.get_weights(), before):
    np.testing.assert_array_equal(a, b)
  np.testing.assert_allclose(layer(x, x).numpy(), want, rtol=1e-6)


def test_embedding_and_batch_normalization_configs_keep_every_keras2_option():
  e = L.Embedding(4, 2, embeddings_regularizer="l2", activity_regularizer="l1",
                  embeddings_constraint="non_neg")
  clone = check_config(e)
  assert type(clone.embeddings_regularizer).__name__ == "L2"
  assert type(clone.activity_regularizer).__name__ == "L1"
  assert type(clone.embeddings_constraint).__name__ == "NonNeg"
  clone(np.array([[1, 2]]))
  assert len(clone.losses) == 2
  bn = L.BatchNormalization(beta_initializer="ones", gamma_initializer="zeros",
                            moving_mean_initializer="ones", moving_variance_initializer="zeros",
                            gamma_regularizer="l2", beta_constraint="non_neg")
  config = check_config(bn).get_config()
  assert set(config) >= {"beta_initializer", "gamma_initializer", "moving_mean_initializer",
                         "moving_variance_initializer", "beta_regularizer", "gamma_regularizer",
                         "beta_constraint", "gamma_constraint"}
  clone = L.BatchNormalization.from_config(config)
  clone(np.ones((2, 3), np.float32))
  np.testing.assert_array_equal(clone.get_weights()[0], 0.0)  # gamma
  np.testing.assert_array_equal(clone.get_weights()[2], 1.0)  # moving_mean
  assert type(clone.beta_constraint).__name__ == "NonNeg"


def test_dense_with_zero_units_is_an_empty_output_as_in_keras2():
  layer = L.Dense(0)
  y = layer(np.ones((2, 3), np.float32))
  assert y.shape == (2, 0) and layer.kernel.shape == (3, 0)
  with pytest.raises(ValueError, match="units"):
    L.Dense(-1)
