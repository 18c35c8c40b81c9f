"""Built-in layers: forward numerics vs NumPy, gradients, shapes, training flags, errors."""
import numpy as np
import pytest

import tensorlet as tf
from tests.gradcheck import check_grads

L = tf.keras.layers


def _rand(*shape, seed=0):
  return np.random.RandomState(seed).standard_normal(shape).astype(np.float32)


def test_dense_matches_numpy_and_builds_on_first_call():
  d = L.Dense(3, activation="relu")
  assert not d.built
  x = _rand(4, 5)
  y = d(x)
  assert d.built and y.shape == (4, 3) and y.dtype == tf.float32
  w, b = d.get_weights()
  np.testing.assert_allclose(y.numpy(), np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-6)
  assert [v.name.split("/")[-1] for v in d.weights] == ["kernel:0", "bias:0"]


def test_dense_on_rank3_inputs_contracts_last_axis():
  d = L.Dense(2, use_bias=False)
  x = _rand(2, 3, 4)
  np.testing.assert_allclose(d(x).numpy(), x @ d.kernel.numpy(), rtol=1e-5, atol=1e-6)
  assert d.bias is None and len(d.trainable_weights) == 1


def test_dense_gradient_finite_differences():
  d = L.Dense(3, activation="tanh", dtype="float64")
  d(np.zeros((1, 4)))
  w, b = d.get_weights()
  check_grads(lambda x, k, c: tf.tanh(tf.matmul(x, k) + c), [_rand(2, 4), w, b])

  def through_layer(x):
    return d(x)
  check_grads(through_layer, [_rand(2, 4)])


def test_conv2d_matches_numpy_and_gradients():
  c = L.Conv2D(2, 3, padding="same", activation="relu", dtype="float64")
  x = _rand(1, 5, 5, 3).astype(np.float64)
  y = c(x).numpy()
  k, b = c.get_weights()
  pad = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
  ref = np.zeros((1, 5, 5, 2))
  for i in range(5):
    for j in range(5):
      ref[0, i, j] = np.tensordot(pad[0, i:i + 3, j:j + 3], k, 3) + b
  np.testing.assert_allclose(y, np.maximum(ref, 0), rtol=1e-6, atol=1e-8)
  assert L.Conv2D(4, (3, 2), strides=2)(tf.zeros([2, 9, 9, 1])).shape == (2, 4, 4, 4)
  check_grads(lambda t: c(t), [x])


def test_pooling_layers_match_numpy():
  x = _rand(2, 4, 6, 3)
  mx = L.MaxPooling2D()(x).numpy()
  av = L.AveragePooling2D(pool_size=2)(x).numpy()
  blocks = x.reshape(2, 2, 2, 3, 2, 3)
  np.testing.assert_allclose(mx, blocks.max(axis=(2, 4)), rtol=1e-6)
  np.testing.assert_allclose(av, blocks.mean(axis=(2, 4)), rtol=1e-5)
  np.testing.assert_allclose(L.GlobalAveragePooling2D()(x).numpy(), x.mean(axis=(1, 2)),
                             rtol=1e-5)
  np.testing.assert_allclose(L.GlobalMaxPooling2D()(x).numpy(), x.max(axis=(1, 2)))
  assert L.MaxPooling2D(3, strides=1, padding="same")(x).shape == (2, 4, 6, 3)


def test_flatten_reshape_activation_embedding():
  x = _rand(2, 3, 4)
  np.testing.assert_array_equal(L.Flatten()(x).numpy(), x.reshape(2, 12))
  np.testing.assert_array_equal(L.Reshape((4, 3))(x).numpy(), x.reshape(2, 4, 3))
  np.testing.assert_array_equal(L.Reshape((-1,))(x).numpy(), x.reshape(2, 12))
  np.testing.assert_allclose(L.Activation("softmax")(x).numpy(),
                             np.exp(x) / np.exp(x).sum(-1, keepdims=True), rtol=1e-5)
  e = L.Embedding(10, 3)
  ids = np.array([[1, 2], [9, 0]])
  out = e(ids)
  assert out.shape == (2, 2, 3)
  np.testing.assert_array_equal(out.numpy(), e.embeddings.numpy()[ids])
  w = e.embeddings.numpy()
  assert np.all(np.abs(w) <= 0.05)  # Keras' 'uniform' initializer: U(-0.05, 0.05)
  with tf.GradientTape() as tape:
    loss = tf.reduce_sum(e(ids))
  g = tf.convert_to_tensor(tape.gradient(loss, e.embeddings))
  expected = np.zeros((10, 3), np.float32)
  np.add.at(expected, ids.reshape(-1), 1.0)
  np.testing.assert_array_equal(g.numpy(), expected)


def test_dropout_only_when_training():
  x = np.ones((100, 50), np.float32)
  d = L.Dropout(0.5)
  np.testing.assert_array_equal(d(x).numpy(), x)
  np.testing.assert_array_equal(d(x, training=False).numpy(), x)
  y = d(x, training=True).numpy()
  assert set(np.unique(y)) <= {0.0, 2.0}
  assert 0.4 < (y == 0).mean() < 0.6
  with pytest.raises(ValueError):
    L.Dropout(1.5)


def test_batch_normalization_training_and_moving_statistics():
  x = _rand(8, 3) * 2 + 1
  bn = L.BatchNormalization(momentum=0.9)
  y = bn(x, training=True).numpy()
  mean, var = x.mean(0), x.var(0)
  np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-3), rtol=1e-4, atol=1e-5)
  np.testing.assert_allclose(bn.moving_mean.numpy(), 0.1 * mean, rtol=1e-5)
  np.testing.assert_allclose(bn.moving_variance.numpy(), 0.9 + 0.1 * var, rtol=1e-5)
  inf = bn(x).numpy()
  np.testing.assert_allclose(inf, (x - bn.moving_mean.numpy()) /
                             np.sqrt(bn.moving_variance.numpy() + 1e-3), rtol=1e-4, atol=1e-5)
  assert [w.name.split("/")[-1] for w in bn.weights] == [
      "gamma:0", "beta:0", "moving_mean:0", "moving_variance:0"]
  assert len(bn.trainable_weights) == 2 and len(bn.non_trainable_weights) == 2


def test_batch_normalization_4d_uses_unbiased_moving_variance():
  x = _rand(4, 5, 5, 3)
  bn = L.BatchNormalization(momentum=0.5)
  bn(x, training=True)
  np.testing.assert_allclose(bn.moving_variance.numpy(),
                             0.5 + 0.5 * x.var(axis=(0, 1, 2), ddof=1), rtol=1e-5)


def test_frozen_batch_normalization_runs_in_inference_mode():
  bn = L.BatchNormalization()
  x = _rand(4, 2)
  bn(x)
  bn.trainable = False
  bn(x, training=True)
  np.testing.assert_array_equal(bn.moving_mean.numpy(), [0, 0])
  assert bn.trainable_weights == [] and len(bn.non_trainable_weights) == 4


def test_batch_normalization_gradient():
  bn = L.BatchNormalization(dtype="float64")
  bn(np.zeros((3, 2)))
  check_grads(lambda t: bn(t, training=False), [_rand(3, 2)])


def test_custom_layer_build_call_add_weight_and_training_propagation():
  seen = []

  class Scale(L.Layer):
    def build(self, input_shape):
      self.w = self.add_weight("w", shape=[input_shape[-1]], initializer="ones")
      self.count = self.add_weight("count", shape=[], initializer="zeros", trainable=False)

    def call(self, x, training=None):
      seen.append(training)
      return x * self.w

  class Outer(L.Layer):
    def __init__(self):
      super().__init__()
      self.inner = Scale()

    def call(self, x):
      return self.inner(x)

  o = Outer()
  o(np.ones((2, 3), np.float32), training=True)
  o(np.ones((2, 3), np.float32))
  assert seen == [True, None]
  assert [len(o.trainable_weights), len(o.non_trainable_weights)] == [1, 1]
  assert o.inner.w.shape == (3,)


def test_add_loss_and_regularizers():
  d = L.Dense(2, kernel_regularizer=tf.keras.regularizers.l2(0.1), kernel_initializer="ones")
  d(np.ones((1, 3), np.float32))
  assert len(d.losses) == 1
  np.testing.assert_allclose(float(d.losses[0]), 0.1 * 6)


def test_built_layer_rejects_wrong_shape_and_rank():
  d = L.Dense(3)
  d(np.ones((2, 4), np.float32))
  with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 4"):
    d(np.ones((2, 5), np.float32))
  with pytest.raises(ValueError, match="expected min_ndim=2, found ndim=1"):
    L.Dense(2)(np.ones(3, np.float32))
  c = L.Conv2D(2, 3)
  with pytest.raises(ValueError, match="expected min_ndim=4, found ndim=3"):
    c(np.ones((5, 5, 3), np.float32))


def test_unknown_identifiers_raise_value_error():
  with pytest.raises(ValueError, match="Unknown activation"):
    L.Dense(3, activation="nope")
  with pytest.raises(ValueError, match="Unknown initializer"):
    L.Dense(3, kernel_initializer="nope")
  with pytest.raises(ValueError, match="Unknown regularizer"):
    L.Dense(3, kernel_regularizer="nope")
  with pytest.raises(TypeError, match="Keyword argument not understood"):
    L.Dense(3, bogus=1)
  with pytest.raises(ValueError, match="padding"):
    L.Conv2D(3, 3, padding="full")


def test_layers_trace_once_under_tf_function_with_same_numerics():
  d = L.Dense(4, activation="relu")
  x = tf.constant(_rand(3, 5))
  eager = d(x).numpy()
  f = tf.function(lambda t: d(t))
  np.testing.assert_allclose(f(x).numpy(), eager, rtol=1e-6)
  assert f.experimental_get_tracing_count() == 1


def test_float64_inputs_are_cast_to_layer_dtype():
  y = L.Dense(2)(np.ones((1, 3)))
  assert y.dtype == tf.float32
  assert L.Dense(2, dtype="float64")(np.ones((1, 3), np.float32)).dtype == tf.float64
