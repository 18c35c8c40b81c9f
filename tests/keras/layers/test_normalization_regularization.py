"""LayerNormalization, GroupNormalization, UnitNormalization and the regularization layers
(SpatialDropout1D/2D, GaussianNoise, GaussianDropout, AlphaDropout, ActivityRegularization):
values vs NumPy, training behaviour, gradients, configs and Keras 2's errors."""
import numpy as np
import pytest

import tensorlet as tf
from tests.keras.layers.layer_helpers import check_config, check_layer_grads, check_values, rand

L = tf.keras.layers


def _ln(x, axes, g, b, eps=1e-3):
  m = x.mean(axes, keepdims=True)
  v = x.var(axes, keepdims=True)
  return (x - m) / np.sqrt(v + eps) * g + b


@pytest.mark.parametrize("axis,shape", [(-1, (3, 5)), ([1, 2], (2, 3, 4)), (1, (2, 3, 4))])
def test_layer_normalization_matches_numpy(axis, shape):
  x = rand(*shape).astype(np.float32)
  layer = L.LayerNormalization(axis=axis, gamma_initializer="glorot_uniform",
                               beta_initializer="glorot_uniform")
  layer(x)
  assert [w.name[len(layer.name) + 1:] for w in layer.weights] == ["gamma:0", "beta:0"]
  axes = tuple(layer.axis)
  bshape = [shape[i] if i in axes else 1 for i in range(len(shape))]

  def want(lay):
    g, b = lay.get_weights()
    return _ln(x.astype(np.float64), axes, g.reshape(bshape), b.reshape(bshape))
  check_values(layer, x, want, rtol=1e-4, atol=1e-5)
  check_layer_grads(L.LayerNormalization(axis=axis, dtype="float64",
                                         gamma_initializer="glorot_uniform"), rand(*shape))
  config = check_config(layer).get_config()
  assert config["axis"] == sorted(a % len(shape) for a in np.atleast_1d(axis))
  assert L.LayerNormalization().get_config()["axis"] == -1


@pytest.mark.parametrize("groups,shape", [(3, (2, 4, 6)), (2, (2, 4)), (-1, (2, 3, 4))])
def test_group_normalization_matches_numpy(groups, shape):
  x = rand(*shape).astype(np.float32)
  layer = L.GroupNormalization(groups=groups, gamma_initializer="glorot_uniform")
  layer(x)
  g, b = layer.get_weights()
  c = shape[-1]
  n = c if groups == -1 else groups
  xg = x.astype(np.float64).reshape(shape[:-1] + (n, c // n))
  axes = tuple(i for i in range(1, xg.ndim) if i != xg.ndim - 2)
  want = ((xg - xg.mean(axes, keepdims=True)) / np.sqrt(xg.var(axes, keepdims=True) + 1e-3))
  want = want.reshape(shape) * g + b
  check_values(layer, x, want, rtol=1e-4, atol=1e-5)
  check_layer_grads(L.GroupNormalization(groups=groups, dtype="float64",
                                         gamma_initializer="glorot_uniform"), rand(*shape))
  assert check_config(L.GroupNormalization(groups=2)).get_config()["groups"] == 2


def test_unit_normalization():
  x = rand(3, 4).astype(np.float32)
  check_values(L.UnitNormalization(), x, x / np.linalg.norm(x, axis=-1, keepdims=True),
               rtol=1e-5)
  x3 = rand(2, 3, 4)
  check_values(L.UnitNormalization(axis=[1, 2], dtype="float64"), x3,
               x3 / np.sqrt((x3 ** 2).sum((1, 2), keepdims=True)))
  check_layer_grads(L.UnitNormalization(dtype="float64"), rand(3, 4))
  check_config(L.UnitNormalization(axis=[1, 2]))


@pytest.mark.parametrize("make,err,msg", [
    (lambda: L.GroupNormalization(groups=4)(np.ones((2, 3), "f")), ValueError,
     r"Number of groups \(4\) cannot be more"),
    (lambda: L.GroupNormalization(groups=2)(np.ones((2, 3), "f")), ValueError,
     "must be a multiple"),
    (lambda: L.LayerNormalization(axis=3)(np.ones((2, 3), "f")), ValueError,
     "Invalid value for `axis`"),
    (lambda: L.LayerNormalization(axis="x"), TypeError, "axis"),
    (lambda: L.SpatialDropout1D(0.5)(np.ones((2, 3), "f")), ValueError, "expected ndim=3"),
    (lambda: L.SpatialDropout2D(0.5)(np.ones((2, 3, 4), "f")), ValueError, "expected ndim=4"),
])
def test_normalization_and_dropout_errors(make, err, msg):
  with pytest.raises(err, match=msg):
    make()


def test_spatial_dropout_drops_whole_channels_only_when_training():
  x = np.ones((4, 5, 6), np.float32)
  layer = L.SpatialDropout1D(0.5, seed=1)
  np.testing.assert_array_equal(layer(x).numpy(), x)
  y = layer(x, training=True).numpy()
  assert set(np.unique(y)) <= {0.0, 2.0}
  assert (y == y[:, :1, :]).all()  # the same draw for every step
  x2 = np.ones((3, 4, 5, 6), np.float32)
  y2 = L.SpatialDropout2D(0.5, seed=2)(x2, training=True).numpy()
  assert (y2 == y2[:, :1, :1, :]).all() and set(np.unique(y2)) <= {0.0, 2.0}
  y3 = L.SpatialDropout2D(0.5, data_format="channels_first", seed=3)(x2, training=True).numpy()
  assert (y3 == y3[:, :, :1, :1]).all()
  check_config(L.SpatialDropout2D(0.3, data_format="channels_first"))


def test_gaussian_noise_and_dropout_statistics():
  x = np.ones((200, 50), np.float32)
  for layer, mean, std in [(L.GaussianNoise(0.5, seed=1), 1.0, 0.5),
                           (L.GaussianDropout(0.2, seed=1), 1.0, np.sqrt(0.2 / 0.8))]:
    np.testing.assert_array_equal(layer(x).numpy(), x)
    y = layer(x, training=True).numpy()
    assert abs(y.mean() - mean) < 0.02 and abs(y.std() - std) < 0.02
    check_config(layer)
  assert L.GaussianNoise(0.1).get_config()["stddev"] == 0.1
  np.testing.assert_array_equal(L.GaussianDropout(1.5)(x, training=True).numpy(), x)
  # Gradients flow through the noise (d(x * n)/dx = n).
  layer = L.GaussianDropout(0.3, dtype="float64")
  xt = tf.constant(rand(3, 4))
  with tf.GradientTape() as tape:
    tape.watch(xt)
    y = layer(xt, training=True)
  g = tape.gradient(y, xt).numpy()
  np.testing.assert_allclose(g * xt.numpy(), y.numpy(), rtol=1e-10)


def test_alpha_dropout_keeps_selu_statistics():
  rng = np.random.RandomState(0)
  x = rng.standard_normal((400, 100)).astype(np.float32)
  layer = L.AlphaDropout(0.2, seed=3)
  np.testing.assert_array_equal(layer(x).numpy(), x)
  y = layer(x, training=True).numpy()
  assert abs(y.mean()) < 0.03 and abs(y.std() - 1) < 0.03
  alpha_p = -1.6732632423543772 * 1.0507009873554805
  a = ((1 - 0.2) * (1 + 0.2 * alpha_p ** 2)) ** -0.5
  b = -a * alpha_p * 0.2
  dropped = np.isclose(y, a * alpha_p + b)
  assert 0.15 < dropped.mean() < 0.25
  np.testing.assert_allclose(y[~dropped], a * x[~dropped] + b, rtol=1e-5)
  assert check_config(layer).get_config() == {"name": layer.name, "trainable": True,
                                              "dtype": "float32", "rate": 0.2, "seed": 3}


def test_activity_regularization_adds_per_example_loss():
  layer = L.ActivityRegularization(l1=0.1, l2=0.01)
  x = rand(4, 3).astype(np.float32)
  y = layer(x)
  np.testing.assert_array_equal(y.numpy(), x)
  want = (0.1 * np.abs(x).sum() + 0.01 * (x ** 2).sum()) / 4
  assert len(layer.losses) == 1
  np.testing.assert_allclose(float(layer.losses[0]), want, rtol=1e-5)
  assert check_config(layer).get_config()["l1"] == 0.1
  a = tf.keras.Input((3,))
  model = tf.keras.Model(a, L.ActivityRegularization(l2=1.0)(L.Dense(2)(a)))
  model(x)
  assert len(model.losses) == 1
