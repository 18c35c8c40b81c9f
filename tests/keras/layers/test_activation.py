"""Activation layers: values vs NumPy, masks, gradients, configs, Keras 2's errors."""
import numpy as np
import pytest

import tensorlet as tf
from tests.keras.layers.layer_helpers import check_config, check_layer_grads, check_values, rand

L = tf.keras.layers
X = np.array([[-2.0, -0.5, 0.5, 2.0, 7.0]], np.float32)


def _softmax(x, axis=-1):
  e = np.exp(x - x.max(axis=axis, keepdims=True))
  return e / e.sum(axis=axis, keepdims=True)


_CASES = [
    (L.ReLU, {}, lambda x: np.maximum(x, 0)),
    (L.ReLU, {"max_value": 6, "negative_slope": 0.1, "threshold": 1.0},
     lambda x: np.where(x >= 1, np.minimum(x, 6) * (x > 1), 0.1 * (x - 1))),
    (L.LeakyReLU, {}, lambda x: np.where(x > 0, x, np.float32(0.3) * x)),
    (L.LeakyReLU, {"alpha": 0.1}, lambda x: np.where(x > 0, x, 0.1 * x)),
    (L.ELU, {"alpha": 0.5}, lambda x: np.where(x > 0, x, 0.5 * (np.exp(x) - 1))),
    (L.ThresholdedReLU, {"theta": 0.6}, lambda x: np.where(x > 0.6, x, 0)),
    (L.Softmax, {}, _softmax),
    (L.Softmax, {"axis": 0}, lambda x: _softmax(x, 0)),
    (L.Softmax, {"axis": (0, 1)}, lambda x: np.exp(x) / np.exp(x).sum()),
]


@pytest.mark.parametrize("cls,kw,ref", _CASES, ids=[f"{c.__name__}{i}"
                                                    for i, (c, _, _) in enumerate(_CASES)])
def test_activation_layers_values_grads_config(cls, kw, ref):
  x = np.concatenate([X, rand(3, 5).astype(np.float32)], 0)
  check_values(cls(**kw), x, ref(x), rtol=1e-5, atol=1e-6)
  # Away from the kinks, so central differences are smooth.
  xs = rand(3, 5) + np.sign(rand(3, 5, seed=3)) * 0.05
  check_layer_grads(cls(dtype="float64", **kw), xs)
  check_config(cls(**kw))


def test_relu_and_leaky_configs_are_keras2():
  assert L.ReLU(name="r").get_config() == {"name": "r", "trainable": True, "dtype": "float32",
                                           "max_value": None, "negative_slope": 0.0,
                                           "threshold": 0.0}
  assert L.LeakyReLU().get_config()["alpha"] == 0.30000001192092896
  assert L.ThresholdedReLU().get_config()["theta"] == 1.0
  assert L.Softmax().get_config()["axis"] == -1


def test_softmax_mask_zeroes_masked_positions():
  mask = np.array([[True, False, True, False, False]])
  out = L.Softmax()(X, mask=mask).numpy()
  want = _softmax(np.where(mask, X, -1e9))
  np.testing.assert_allclose(out, want, rtol=1e-6)
  assert out[0, 1] == 0.0
  # A mask riding on the input (from Embedding(mask_zero=True)) is used without being passed.
  ids = np.array([[3, 1, 0]])
  e = L.Embedding(4, 1, mask_zero=True)
  scores = e(ids)[..., 0]
  scores._keras_mask = e(ids)._keras_mask
  y = L.Softmax()(scores)
  assert float(y[0, 2]) == 0.0 and abs(float(tf.reduce_sum(y)) - 1) < 1e-6
  assert y._keras_mask is not None


def test_prelu_shared_axes_weights_and_gradients():
  p = L.PReLU(shared_axes=[1, 2], alpha_initializer="ones")
  x = rand(2, 3, 4, 5).astype(np.float32)
  p(x)
  assert [w.name for w in p.weights] == [f"{p.name}/alpha:0"] and p.name.startswith("p_re_lu")
  assert p.alpha.shape == (1, 1, 5)
  p.alpha.assign(np.full((1, 1, 5), 0.25, np.float32) * np.arange(1, 6))
  check_values(p, x, lambda layer: np.where(x > 0, x, layer.alpha.numpy() * x))
  q = L.PReLU(dtype="float64", alpha_initializer="glorot_uniform")
  check_layer_grads(q, rand(2, 3) + np.sign(rand(2, 3, seed=4)) * 0.05)
  assert q.alpha.shape == (3,)
  config = check_config(L.PReLU(shared_axes=1)).get_config()
  assert config["shared_axes"] == [1]
  assert config["alpha_initializer"]["class_name"] == "Zeros"
  with pytest.raises(ValueError):
    p(rand(2, 3, 4, 6).astype(np.float32))


@pytest.mark.parametrize("make,msg", [
    (lambda: L.ReLU(max_value=-1), "max_value of a ReLU layer cannot be a negative"),
    (lambda: L.ReLU(negative_slope=-1), "negative_slope"),
    (lambda: L.ReLU(negative_slope=None), "negative_slope"),
    (lambda: L.ReLU(threshold=-1), "threshold of a ReLU layer"),
    (lambda: L.LeakyReLU(alpha=None), "Leaky ReLU layer cannot be None"),
    (lambda: L.ELU(alpha=None), "ELU layer cannot be None"),
    (lambda: L.ThresholdedReLU(theta=None), "cannot be None"),
    (lambda: L.ThresholdedReLU(theta=-1), "should be >=0"),
    (lambda: L.Softmax()(np.ones((3,), np.float32)), "1D"),
])
def test_bad_arguments_raise_keras2_errors(make, msg):
  with pytest.raises(ValueError, match=msg):
    make()


@pytest.mark.parametrize("name", ["gelu", "swish", "silu", "mish", "hard_sigmoid", "exponential",
                                  "selu", "softsign", "softplus", "relu6", "elu", "leaky_relu"])
def test_keras_activations_are_complete(name):
  fn = tf.keras.activations.get(name)
  x = tf.constant(X)
  assert fn(x).shape == x.shape
  assert tf.keras.layers.Activation(name)(X).shape == X.shape
