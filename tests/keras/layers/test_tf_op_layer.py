"""TF functions and operators on Keras symbolic tensors become TFOpLambda nodes of
functional models (several inputs and outputs, shared layers, nested models), which
build, train, save weights and reload."""
import numpy as np
import pytest

import tensorlet as tf
from tests.keras.layers.layer_helpers import rand

L = tf.keras.layers


def _layer(kt):
  return kt._keras_history[0]


def test_ops_and_operators_on_keras_tensors_are_named_as_keras2():
  a, b = tf.keras.Input((3,)), tf.keras.Input((3,))
  cases = [(a + b, "TFOpLambda", "__operators__.add"), (a * b, "TFOpLambda", "math.multiply"),
           (a - b, "TFOpLambda", "math.subtract"), (a / b, "TFOpLambda", "math.truediv"),
           (-a, "TFOpLambda", "math.negative"), (a[:, 0:2], "SlicingOpLambda",
                                                 "__operators__.getitem"),
           (a @ tf.ones((3, 2)), "TFOpLambda", "linalg.matmul"),
           (a > b, "TFOpLambda", "math.greater"), (tf.concat([a, b], 1), "TFOpLambda", "concat"),
           (tf.stack([a, b], 1), "TFOpLambda", "stack"),
           (tf.reshape(a, (-1, 3, 1)), "TFOpLambda", "reshape"),
           (tf.nn.relu(a), "TFOpLambda", "nn.relu"),
           (tf.reduce_sum(a, axis=1), "TFOpLambda", "math.reduce_sum"),
           (tf.matmul(a, tf.ones((3, 2))), "TFOpLambda", "linalg.matmul"),
           (tf.sigmoid(a), "TFOpLambda", "math.sigmoid"), (a ** 2, "TFOpLambda", "math.pow"),
           (2 * a, "TFOpLambda", "math.multiply"), (abs(a), "TFOpLambda", "math.abs"),
           (tf.cast(a, "int32"), "TFOpLambda", "cast"),
           (tf.concat(values=[a, b], axis=1), "TFOpLambda", "concat")]
  for kt, cls, fn in cases:
    layer = _layer(kt)
    assert type(layer).__name__ == cls
    config = layer.get_config()
    assert config["function"] == fn and config["name"].startswith("tf." + fn)
    assert layer.name == config["name"]
  assert (a + b).shape.as_list() == [None, 3]
  assert tf.concat([a, b], 1).shape.as_list() == [None, 6]
  assert tf.cast(a, "int32").dtype == tf.int32
  assert tf.split(a, 3, axis=1)[1].shape.as_list() == [None, 1]


def test_tf_op_lambda_config_round_trip_rebuilds_the_function():
  a = tf.keras.Input((3,))
  layer = _layer(tf.math.reduce_sum(a, axis=1))
  clone = L.TFOpLambda.from_config(layer.get_config())
  assert clone.function is tf.math.reduce_sum and clone.name == layer.name
  x = rand(2, 3).astype("f")
  np.testing.assert_allclose(clone(x, axis=1).numpy(), x.sum(1), rtol=1e-6)
  getitem = L.SlicingOpLambda.from_config(_layer(a[:, 1]).get_config())
  np.testing.assert_allclose(getitem(x, (slice(None), 1)).numpy(), x[:, 1])
  for name in ("compat.v1.transpose", "nn.softmax", "__operators__.add", "linalg.matmul"):
    assert callable(L.TFOpLambda(name).function)
  with pytest.raises(ValueError, match="Unknown TensorFlow API symbol"):
    L.TFOpLambda("math.no_such_op")


def test_two_input_model_with_ops_trains_saves_and_reloads(tmp_path):
  def build():
    a, b = tf.keras.Input((4,), name="a"), tf.keras.Input((3,), name="b")
    shared = L.Dense(5, activation="relu", name="shared")
    ha = shared(tf.concat([a[:, :3], b], axis=1))
    hb = shared(tf.concat([b, a[:, 1:]], axis=1))
    h = tf.nn.relu(ha + 0.5 * hb) - tf.reduce_mean(ha, axis=1, keepdims=True)
    out1 = L.Dense(1, name="out1")(h)
    out2 = tf.keras.layers.Dense(2, name="out2")(tf.stack([ha, hb], axis=1)[:, 0])
    return tf.keras.Model([a, b], [out1, out2])
  model = build()
  assert model.get_layer("shared") is model.layers[model.layers.index(model.get_layer("shared"))]
  rng = np.random.RandomState(0)
  xa, xb = rng.rand(64, 4).astype("f"), rng.rand(64, 3).astype("f")
  y1, y2 = xa.sum(1, keepdims=True), np.stack([xb[:, 0], xa[:, 0]], 1)
  model.compile("adam", ["mse", "mse"])
  first = model.evaluate([xa, xb], [y1, y2], verbose=0)[0]
  model.fit([xa, xb], [y1, y2], epochs=20, batch_size=16, verbose=0)
  assert model.evaluate([xa, xb], [y1, y2], verbose=0)[0] < first
  pred = model.predict([xa, xb], verbose=0)
  eager = model([xa, xb])
  np.testing.assert_allclose(pred[0], eager[0].numpy(), rtol=1e-5, atol=1e-6)
  traced = tf.function(lambda x, y: model([x, y]))(xa, xb)
  np.testing.assert_allclose(traced[1].numpy(), eager[1].numpy(), rtol=1e-5, atol=1e-6)
  path = str(tmp_path / "ckpt" / "w")
  model.save_weights(path)
  again = build()
  again.load_weights(path)
  for p, q in zip(again([xa, xb]), eager):
    np.testing.assert_allclose(p.numpy(), q.numpy(), rtol=1e-6)


def test_nested_model_and_ops_on_its_outputs():
  x = tf.keras.Input((3,))
  inner = tf.keras.Model(x, L.Dense(2, name="d")(x) * 2.0, name="inner")
  a, b = tf.keras.Input((3,)), tf.keras.Input((3,))
  out = tf.concat([inner(a), inner(b)], axis=-1) + 1.0
  outer = tf.keras.Model([a, b], out)
  va, vb = rand(2, 3).astype("f"), rand(2, 3, seed=1).astype("f")
  k, c = inner.get_layer("d").get_weights()
  want = np.concatenate([(va @ k + c) * 2, (vb @ k + c) * 2], -1) + 1
  np.testing.assert_allclose(outer([va, vb]).numpy(), want, rtol=1e-5, atol=1e-6)
  assert [type(layer).__name__ for layer in outer.layers] == \
      ["InputLayer", "InputLayer", "Functional", "TFOpLambda", "TFOpLambda"]
  assert len(outer.trainable_weights) == 2


def test_gradients_flow_through_op_layers():
  a = tf.keras.Input((3,), dtype="float64")
  d = L.Dense(2, dtype="float64")
  model = tf.keras.Model(a, tf.reduce_sum(tf.nn.tanh(d(a)) ** 2, axis=1))
  x = tf.constant(rand(4, 3))
  with tf.GradientTape() as tape:
    y = tf.reduce_sum(model(x))
  g = tape.gradient(y, d.kernel)
  k, c = d.get_weights()
  t = np.tanh(x.numpy() @ k + c)
  want = x.numpy().T @ (2 * t * (1 - t ** 2))
  np.testing.assert_allclose(g.numpy(), want, rtol=1e-6)


def test_keras_tensor_has_no_value():
  a = tf.keras.Input((3,))
  with pytest.raises(TypeError, match="symbolic"):
    a.numpy()
  with pytest.raises(TypeError, match="symbolic"):
    np.asarray(a)
  with pytest.raises(TypeError):
    bool(a)
  with pytest.raises(TypeError, match="__len__"):
    len(a)


def test_plain_calls_are_unchanged_and_errors_still_raise():
  assert tf.add is tf.math.add and tf.sigmoid is tf.nn.sigmoid
  np.testing.assert_allclose(tf.concat([[1.0], [2.0]], 0).numpy(), [1.0, 2.0])
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.concat([tf.ones([2, 2]), tf.ones([3, 3])], 0)
  assert tf.concat.__name__ == "concat" and tf.concat.__doc__
