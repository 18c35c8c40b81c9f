"""Lambda layers: arguments, output_shape, masks, training, configs of named functions
by name and of Python lambdas as bytecode that loads only with safe_mode=False."""
import numpy as np
import pytest

import tensorlet as tf
from tests.keras.layers.layer_helpers import check_layer_grads, check_values, rand

L = tf.keras.layers


def scale(x, k=2.0):
  return x * k


def test_lambda_with_arguments_values_and_gradients():
  x = rand(2, 3).astype(np.float32)
  check_values(L.Lambda(scale, arguments={"k": 3.0}), x, x * 3)
  check_layer_grads(L.Lambda(lambda v: tf.sin(v) * v, dtype="float64"), rand(2, 3))


def test_lambda_output_shape_forms():
  assert L.Lambda(scale).compute_output_shape((None, 3)) == tf.TensorShape([None, 3])
  assert L.Lambda(lambda v: tf.concat([v, v], -1), output_shape=(6,)).compute_output_shape(
      (None, 3)) == tf.TensorShape([None, 6])
  fn = L.Lambda(lambda v: tf.concat([v, v], -1), output_shape=lambda s: (s[0], 2 * s[1]))
  assert fn.compute_output_shape((None, 3)) == tf.TensorShape([None, 6])
  a = tf.keras.Input((3,))
  assert L.Lambda(lambda v: v[:, :2])(a).shape.as_list() == [None, 2]


def test_lambda_passes_mask_and_training_when_the_function_takes_them():
  seen = {}

  def fn(x, mask=None, training=None):
    seen["mask"], seen["training"] = mask, training
    return x
  layer = L.Lambda(fn, mask=lambda inputs, mask: mask)
  m = np.array([[True, False]])
  out = layer(np.ones((1, 2), np.float32), mask=m, training=True)
  assert seen["training"] is True and np.array_equal(np.asarray(seen["mask"]), m)
  assert np.array_equal(np.asarray(out._keras_mask), m)


def test_named_function_config_loads_by_name():
  layer = L.Lambda(scale, arguments={"k": 4.0}, name="sc")
  config = layer.get_config()
  assert config["function"] == "scale" and config["function_type"] == "function"
  assert config["module"] == __name__ and config["arguments"] == {"k": 4.0}
  clone = L.Lambda.from_config(config)
  assert clone.function is scale
  np.testing.assert_allclose(clone(np.ones((1, 2), np.float32)).numpy(), [[4.0, 4.0]])
  relu = L.Lambda.from_config({"name": "r", "function": "relu", "function_type": "function",
                               "module": "no.such.module", "arguments": {}})
  assert relu.function is tf.keras.activations.relu


def test_python_lambda_is_bytecode_and_needs_safe_mode_false():
  k = 5.0
  layer = L.Lambda(lambda x: x * k + 1, output_shape=(3,))
  config = layer.get_config()
  assert config["function_type"] == "lambda" and isinstance(config["function"], tuple)
  assert config["output_shape"] == (3,) and config["output_shape_type"] == "raw"
  with pytest.raises(ValueError, match="arbitrary code execution"):
    L.Lambda.from_config(config)
  clone = L.Lambda.from_config(config, safe_mode=False)
  np.testing.assert_allclose(clone(np.ones((1, 3), np.float32)).numpy(), [[6.0] * 3])


def test_bad_lambda_arguments():
  with pytest.raises(TypeError, match="callable"):
    L.Lambda(3)
  with pytest.raises(ValueError, match="Unknown function"):
    L.Lambda.from_config({"name": "x", "function": "nope_fn", "function_type": "function",
                          "module": "nope"})


def test_lambda_in_functional_model_trains():
  a = tf.keras.Input((3,))
  h = L.Lambda(lambda v: tf.concat([v, v * v], -1))(a)
  model = tf.keras.Model(a, L.Dense(1)(h))
  x = np.random.RandomState(0).rand(32, 3).astype("f")
  y = (x ** 2).sum(1, keepdims=True)
  model.compile("adam", "mse")
  before = model.evaluate(x, y, verbose=0)
  model.fit(x, y, epochs=5, verbose=0)
  assert model.evaluate(x, y, verbose=0) < before
