"""tf.keras.activations: values against NumPy formulas written here, tape gradients against
finite differences, and get/serialize/deserialize as in Keras 2 (tf_keras).
"""
import math

import numpy as np
import pytest

import tensorlet as tf
from gradcheck import check_grads

A = tf.keras.activations

# Points away from every kink (0, +-1, +-2.5, 6, the thresholds used below), so central
# differences are valid for the piecewise-linear activations too.
X = np.array([-3.7, -2.3, -1.1, -0.4, 0.3, 0.9, 1.7, 3.1, 4.4, 7.2])
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
_erf = np.vectorize(math.erf)


def np_relu(x, alpha=0.0, max_value=None, threshold=0.0):
  y = np.where(x > threshold, x, 0.0)
  if max_value is not None:
    y = np.clip(y, 0.0, max_value)  # Keras clips below at 0 too
  return y - alpha * np.maximum(threshold - x, 0.0)


def np_softplus(x):
  return np.log1p(np.exp(x))


def np_sigmoid(x):
  return 1 / (1 + np.exp(-x))


def np_elu(x, alpha=1.0):
  return np.where(x > 0, x, alpha * (np.exp(x) - 1))


def np_softmax(x, axis=-1):
  e = np.exp(x - x.max(axis=axis, keepdims=True))
  return e / e.sum(axis=axis, keepdims=True)


CASES = [
    ("relu", A.relu, np_relu),
    ("relu_alpha", lambda x: A.relu(x, alpha=0.1), lambda x: np_relu(x, alpha=0.1)),
    ("relu_max", lambda x: A.relu(x, max_value=2.0), lambda x: np_relu(x, max_value=2.0)),
    ("relu_threshold", lambda x: A.relu(x, threshold=1.5),
     lambda x: np_relu(x, threshold=1.5)),
    ("relu_negative_threshold_max", lambda x: A.relu(x, threshold=-1.5, max_value=5.0),
     lambda x: np_relu(x, threshold=-1.5, max_value=5.0)),
    ("relu_all", lambda x: A.relu(x, alpha=0.3, max_value=4.0, threshold=1.5),
     lambda x: np_relu(x, alpha=0.3, max_value=4.0, threshold=1.5)),
    ("sigmoid", A.sigmoid, np_sigmoid),
    ("tanh", A.tanh, np.tanh),
    ("softplus", A.softplus, np_softplus),
    ("softsign", A.softsign, lambda x: x / (1 + np.abs(x))),
    ("elu", A.elu, np_elu),
    ("elu_alpha", lambda x: A.elu(x, alpha=0.5), lambda x: np_elu(x, 0.5)),
    ("selu", A.selu, lambda x: SELU_SCALE * np_elu(x, SELU_ALPHA)),
    ("gelu", A.gelu, lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2)))),
    ("gelu_approximate", lambda x: A.gelu(x, approximate=True),
     lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    ("swish", A.swish, lambda x: x * np_sigmoid(x)),
    ("silu", A.silu, lambda x: x * np_sigmoid(x)),
    ("mish", A.mish, lambda x: x * np.tanh(np_softplus(x))),
    ("exponential", A.exponential, np.exp),
    ("hard_sigmoid", A.hard_sigmoid, lambda x: np.clip(0.2 * x + 0.5, 0, 1)),
    ("linear", A.linear, lambda x: x),
    ("relu6", A.relu6, lambda x: np.clip(x, 0, 6)),
    ("leaky_relu", A.leaky_relu, lambda x: np.where(x > 0, x, 0.2 * x)),
    ("leaky_relu_alpha", lambda x: A.leaky_relu(x, alpha=0.05),
     lambda x: np.where(x > 0, x, 0.05 * x)),
]


@pytest.mark.parametrize("name,fn,ref", CASES, ids=[c[0] for c in CASES])
def test_values_match_numpy(name, fn, ref):
  out = fn(tf.constant(X))
  assert out.dtype == tf.float64
  np.testing.assert_allclose(out, ref(X), rtol=1e-12, atol=1e-12)
  out32 = fn(tf.constant(X, tf.float32))
  assert out32.dtype == tf.float32  # no silent promotion
  np.testing.assert_allclose(out32, ref(X), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name,fn,ref", CASES, ids=[c[0] for c in CASES])
def test_gradients_match_finite_differences(name, fn, ref):
  check_grads(fn, [X])


def test_relu_options_match_keras_values():
  # Read off tf_keras 2.21 for these inputs (kinks included on purpose).
  x = tf.constant([-3., -1., -0.5, 0., 0.5, 1., 3., 7.])
  np.testing.assert_allclose(A.relu(x, threshold=-1., max_value=5.),
                             [0, 0, 0, 0, 0.5, 1, 3, 5])
  np.testing.assert_allclose(A.relu(x, threshold=-1.), [0, 0, -0.5, 0, 0.5, 1, 3, 7])
  np.testing.assert_allclose(A.relu(x, alpha=0.1, threshold=1., max_value=2.),
                             [-0.4, -0.2, -0.15, -0.1, -0.05, 0, 2, 2], rtol=1e-6)
  np.testing.assert_allclose(A.relu(x, alpha=0.1), [-0.3, -0.1, -0.05, 0, 0.5, 1, 3, 7],
                             rtol=1e-6)
  np.testing.assert_allclose(A.relu(x, max_value=6), [0, 0, 0, 0, 0.5, 1, 3, 6])
  np.testing.assert_allclose(A.hard_sigmoid(x), [0, 0.3, 0.4, 0.5, 0.6, 0.7, 1, 1],
                             rtol=1e-6)


def test_softmax_axis():
  x = np.array([[[1.0, 2.0, 0.5], [3.0, -1.0, 2.0]], [[0.0, 4.0, 1.0], [2.5, 2.5, -3.0]]])
  for axis in (-1, 0, 1, 2):
    np.testing.assert_allclose(A.softmax(tf.constant(x), axis=axis), np_softmax(x, axis),
                               rtol=1e-12)
  # A tuple of axes normalizes over all of them (Keras 2 computes it by hand).
  np.testing.assert_allclose(A.softmax(tf.constant(x), axis=(1, 2)), np_softmax(x, (1, 2)),
                             rtol=1e-12)
  np.testing.assert_allclose(A.log_softmax(tf.constant(x), axis=1),
                             np.log(np_softmax(x, 1)), rtol=1e-12)
  check_grads(lambda t: A.softmax(t, axis=0), [x])
  check_grads(lambda t: A.softmax(t, axis=(0, 2)), [x])


def test_softmax_rejects_1d():
  with pytest.raises(ValueError, match="Cannot apply softmax to a tensor that is 1D"):
    A.softmax(tf.constant([1.0, 2.0]))


def test_get_serialize_deserialize():
  names = ["relu", "sigmoid", "tanh", "softmax", "softplus", "softsign", "elu", "selu", "gelu",
           "swish", "exponential", "hard_sigmoid", "linear", "mish", "relu6", "leaky_relu",
           "log_softmax"]
  for name in names:
    fn = A.get(name)
    assert fn is getattr(A, name)
    assert A.serialize(fn) == name
    assert A.deserialize(name) is fn
    assert A.deserialize({"class_name": name, "config": {}}) is fn
    # Keras 2.13+ format: the name is also the config.
    assert A.deserialize({"module": "keras.activations", "class_name": name, "config": name,
                          "registered_name": name}) is fn
  # 'silu' is an alias of swish, which Keras 2 serializes as 'swish'.
  assert A.get("silu") is A.swish
  assert A.serialize(A.silu) == "swish"
  assert A.get(None) is A.linear

  def custom(x):
    return x
  assert A.get(custom) is custom
  assert A.serialize(custom) == "custom"  # Keras 2's legacy format: the function's name


def test_get_errors():
  with pytest.raises(ValueError, match="Unknown activation function"):
    A.get("nope")
  with pytest.raises(ValueError, match="Unknown activation function"):
    A.get("Relu")  # names are case-sensitive
  with pytest.raises(TypeError, match="Could not interpret activation function identifier"):
    A.get(5)
  with pytest.raises(ValueError):
    A.deserialize("nope")


def test_dense_activation_by_name_round_trips():
  layer = tf.keras.layers.Dense(2, activation="silu")
  cfg = layer.get_config()
  assert cfg["activation"] == "swish"
  assert tf.keras.layers.Dense.from_config(cfg).activation is A.swish
