"""Audit of issue 13's regularization layers: gradients while training (the noise is a
constant of the step, so d(out)/d(x) is the drawn multiplier), the activity loss's
gradient, masks passed through, and Keras 2's rate errors."""
import numpy as np
import pytest

import tensorlet as tf
from tests.keras.layers.layer_helpers import rand

L = tf.keras.layers


def _grad(layer, x, training=True):
  xt = tf.constant(x)
  with tf.GradientTape() as tape:
    tape.watch(xt)
    y = layer(xt, training=training)
  return y.numpy(), tape.gradient(y, xt).numpy()


@pytest.mark.parametrize("make,shape", [
    (lambda: L.SpatialDropout1D(0.5, seed=1, dtype="float64"), (3, 4, 5)),
    (lambda: L.SpatialDropout2D(0.5, seed=2, dtype="float64"), (2, 3, 3, 4)),
    (lambda: L.Dropout(0.4, seed=3, dtype="float64"), (4, 6)),
])
def test_dropout_gradient_is_the_drawn_mask(make, shape):
  x = rand(*shape) + 3.0  # no zero inputs, so y / x recovers the multiplier
  y, g = _grad(make(), x)
  np.testing.assert_allclose(g, y / x, rtol=1e-12)
  assert (g == 0).any() and (g > 0).any()
  _, g = _grad(make(), x, training=False)
  np.testing.assert_array_equal(g, 1.0)


def test_alpha_dropout_gradient_is_the_affine_scale_on_kept_units():
  rate = 0.3
  alpha_p = -1.6732632423543772 * 1.0507009873554805
  a = ((1 - rate) * (1 + rate * alpha_p ** 2)) ** -0.5
  b = -a * alpha_p * rate
  x = rand(20, 10)
  y, g = _grad(L.AlphaDropout(rate, seed=4, dtype="float64"), x)
  kept = ~np.isclose(y, a * alpha_p + b)
  np.testing.assert_allclose(g[kept], a, rtol=1e-12)
  np.testing.assert_array_equal(g[~kept], 0.0)


def test_activity_regularization_loss_gradient_matches_numpy():
  x = rand(4, 3)
  layer = L.ActivityRegularization(l1=0.1, l2=0.01, dtype="float64")
  xt = tf.constant(x)
  with tf.GradientTape() as tape:
    tape.watch(xt)
    layer(xt)
    loss = tf.add_n(layer.losses)
  want = (0.1 * np.sign(x) + 0.02 * x) / 4
  # (the factors are float32 numbers, as Keras 2 keeps them)
  np.testing.assert_allclose(tape.gradient(loss, xt).numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("make", [
    lambda: L.SpatialDropout1D(0.5), lambda: L.GaussianNoise(0.1), lambda: L.GaussianDropout(0.1),
    lambda: L.AlphaDropout(0.1), lambda: L.ActivityRegularization(l1=0.1),
    lambda: L.LayerNormalization(), lambda: L.UnitNormalization(),
])
def test_regularization_and_normalization_layers_pass_masks_on(make):
  ids = np.array([[1, 0, 2], [0, 3, 3]])
  e = L.Embedding(4, 2, mask_zero=True)(ids)
  y = make()(e, training=True)
  np.testing.assert_array_equal(y._keras_mask.numpy(), ids != 0)


@pytest.mark.parametrize("make", [lambda: L.Dropout(1.5), lambda: L.Dropout(-0.1),
                                  lambda: L.SpatialDropout1D(1.5),
                                  lambda: L.SpatialDropout2D(-1.0)])
def test_rates_outside_zero_one_are_value_errors(make):
  with pytest.raises(ValueError, match="rate"):
    make()
