"""Model configs (get_config/from_config, to_json/model_from_json, clone_model) and
tf.keras.saving's registry and (de)serialization."""
import json

import numpy as np
import pytest

import tensorlet as tf

L = tf.keras.layers
saving = tf.keras.saving


@pytest.fixture(autouse=True)
def _fresh_names():
  tf.keras.backend.clear_session()


def _functional():
  a = tf.keras.Input((3,), name="a")
  b = tf.keras.Input((2,), name="b")
  shared = L.Dense(4, activation="relu", name="shared")
  h = shared(a)
  h2 = L.Dense(4, name="proj")(b)
  h3 = shared(L.Dense(3, name="back")(h2))  # a second call of the shared layer
  return tf.keras.Model([a, b], [L.Dense(1, name="out")(h), h3], name="net")


def test_functional_config_is_keras_2s():
  config = _functional().get_config()
  assert config["name"] == "net"
  by_name = {entry["name"]: entry for entry in config["layers"]}
  assert by_name["a"]["inbound_nodes"] == []
  assert by_name["shared"]["inbound_nodes"] == [[["a", 0, 0, {}]], [["back", 0, 0, {}]]]
  assert by_name["out"]["inbound_nodes"] == [[["shared", 0, 0, {}]]]
  assert config["input_layers"] == [["a", 0, 0], ["b", 0, 0]]
  assert config["output_layers"] == [["out", 0, 0], ["shared", 1, 0]]
  assert by_name["shared"]["class_name"] == "Dense"
  assert by_name["shared"]["module"] == "keras.layers"
  json.dumps(config)


def test_functional_from_config_rebuilds_the_graph():
  m = _functional()
  x = [np.ones((2, 3), "float32"), np.full((2, 2), 0.5, "float32")]
  m2 = tf.keras.Model.from_config(m.get_config())
  assert type(m2).__name__ == "Functional" and m2.name == "net"
  assert [layer.name for layer in m2.layers] == [layer.name for layer in m.layers]
  assert len(m2.weights) == len(m.weights)
  m2.set_weights(m.get_weights())
  for got, want in zip(m2.predict(x, verbose=0), m.predict(x, verbose=0)):
    np.testing.assert_allclose(got, want, rtol=1e-6)
  assert m2.get_config() == m.get_config()


def test_layers_listed_out_of_order_still_load():
  config = _functional().get_config()
  config["layers"] = config["layers"][::-1]
  m = tf.keras.Model.from_config(config)
  assert m.output_names == ["out", "shared"]


def test_sequential_config_round_trip():
  m = tf.keras.Sequential([L.Dense(3, input_shape=(2,), activation="tanh"),
                           L.Dropout(0.2), L.Dense(1)], name="seq")
  config = m.get_config()
  assert config["name"] == "seq"
  assert [c["class_name"] for c in config["layers"]] == ["InputLayer", "Dense", "Dropout",
                                                         "Dense"]
  m2 = tf.keras.Sequential.from_config(config)
  assert m2.built and [type(x) for x in m2.layers] == [type(x) for x in m.layers]
  unbuilt = tf.keras.Sequential([L.Dense(2)])
  assert tf.keras.Sequential.from_config(unbuilt.get_config()).built is False
  unbuilt(np.ones((1, 5), "float32"))
  again = tf.keras.Sequential.from_config(unbuilt.get_config())
  assert again.built and again.layers[0].kernel.shape == (5, 2)


def test_to_json_and_model_from_json():
  m = _functional()
  text = m.to_json()
  data = json.loads(text)
  assert data["class_name"] == "Functional" and data["backend"] == "tensorflow"
  m2 = tf.keras.models.model_from_json(text)
  assert m2.get_config() == m.get_config()
  s = tf.keras.Sequential([L.Dense(2, input_shape=(3,))])
  assert type(tf.keras.models.model_from_json(s.to_json())) is tf.keras.Sequential
  with pytest.raises(ValueError, match="JSON"):
    tf.keras.models.model_from_json("{not json")
  with pytest.raises(ValueError, match="Unknown layer: 'Nope'"):
    tf.keras.models.model_from_json(json.dumps(
        {"class_name": "Sequential", "config": {"name": "s", "layers": [
            {"class_name": "Nope", "config": {}}]}}))


@saving.register_keras_serializable(package="test_serialization")
class Tower(tf.keras.Model):
  def __init__(self, width=2, **kwargs):
    super().__init__(**kwargs)
    self.width = width
    self.dense = L.Dense(width)

  def call(self, x):
    return self.dense(x)

  def get_config(self):
    return {"width": self.width, "name": self.name}


def test_subclassed_model_config_and_json():
  m = Tower(width=3)
  m(np.ones((1, 2), "float32"))
  data = json.loads(m.to_json())
  assert data["class_name"] == "test_serialization>Tower"
  m2 = tf.keras.models.model_from_json(m.to_json())
  assert type(m2) is Tower and m2.width == 3
  with pytest.raises(TypeError, match="Unable to revive model from config"):
    Tower.from_config({"bogus": 1})


def test_clone_model():
  m = _functional()
  c = tf.keras.models.clone_model(m)
  assert type(c) is type(m) and c.get_config()["layers"][2]["config"]["units"] == 4
  assert all(a is not b for a, b in zip(c.weights, m.weights))
  s = tf.keras.Sequential([L.Dense(3, input_shape=(2,)), L.Dense(1)])
  cs = tf.keras.models.clone_model(s)
  assert type(cs) is tf.keras.Sequential and cs.layers[0] is not s.layers[0]
  assert cs.output_shape == (None, 1)
  renamed = tf.keras.models.clone_model(
      s, clone_function=lambda layer: type(layer).from_config(
          {**layer.get_config(), "name": layer.name + "_copy"}))
  assert [layer.name for layer in renamed.layers] == ["dense_copy", "dense_1_copy"]
  x = tf.keras.Input((2,), name="new_in")
  with_input = tf.keras.models.clone_model(s, input_tensors=x)
  assert with_input.inputs[0] is x
  t = Tower(width=2)
  t(np.ones((1, 2), "float32"))
  assert type(tf.keras.models.clone_model(t)) is Tower
  with pytest.raises(ValueError, match="clone_function"):
    tf.keras.models.clone_model(t, clone_function=lambda layer: layer)


def test_register_and_lookup():
  @saving.register_keras_serializable(package="pkg", name="Twice")
  def twice(x):
    return x * 2
  assert saving.get_registered_name(twice) == "pkg>Twice"
  assert saving.get_registered_object("pkg>Twice") is twice
  assert saving.get_custom_objects()["pkg>Twice"] is twice
  assert saving.get_registered_name(len) == "len"
  assert saving.get_registered_object("nothing") is None
  with pytest.raises(ValueError, match="get_config"):
    saving.register_keras_serializable()(type("NoConfig", (), {}))
  with saving.custom_object_scope({"thrice": len}):
    assert saving.get_registered_object("thrice") is len
  assert saving.get_registered_object("thrice") is None
  assert tf.keras.utils.custom_object_scope is saving.custom_object_scope
  assert tf.keras.utils.get_custom_objects() is saving.get_custom_objects()


def test_serialize_and_deserialize_keras_objects():
  dense = L.Dense(2, activation="relu", kernel_initializer="he_normal", name="d")
  data = saving.serialize_keras_object(dense)
  assert (data["module"], data["class_name"], data["registered_name"]) == (
      "keras.layers", "Dense", None)
  assert data["config"]["kernel_initializer"]["class_name"] == "HeNormal"
  back = saving.deserialize_keras_object(data)
  assert type(back) is L.Dense and back.units == 2 and back.name == "d"
  opt = saving.deserialize_keras_object(
      saving.serialize_keras_object(tf.keras.optimizers.Adam(0.25)))
  assert type(opt) is tf.keras.optimizers.Adam
  assert np.isclose(float(opt.learning_rate.numpy()), 0.25)
  init = saving.deserialize_keras_object(
      {"module": "keras.initializers", "class_name": "Constant", "config": {"value": 3.0},
       "registered_name": None})
  np.testing.assert_array_equal(init((2,)).numpy(), [3.0, 3.0])
  fn = saving.serialize_keras_object(tf.keras.activations.relu)
  assert fn == {"module": "builtins", "class_name": "function", "config": "relu",
                "registered_name": "function"}
  assert saving.deserialize_keras_object(fn) is tf.keras.activations.relu
  arr = saving.serialize_keras_object(np.arange(3, dtype="int32"))
  np.testing.assert_array_equal(saving.deserialize_keras_object(arr), [0, 1, 2])
  assert saving.deserialize_keras_object([1, "a", None]) == [1, "a", None]
  with pytest.raises(ValueError, match="Unknown layer"):
    saving.deserialize_keras_object({"module": "os", "class_name": "system", "config": {}})
  with pytest.raises(ValueError, match="safe_mode=False"):
    saving.deserialize_keras_object({"class_name": "Lambda", "config": {
        "function": ["4wAAAA==", None, None], "function_type": "lambda"}})
  with pytest.raises(ValueError, match="lambda"):
    saving.serialize_keras_object(lambda x: x)


def test_compile_config_round_trip():
  m = tf.keras.Sequential([L.Dense(1, input_shape=(2,))])
  assert m.get_compile_config() is None
  m.compile(tf.keras.optimizers.SGD(0.5), loss=tf.keras.losses.mean_squared_error,
            metrics=["mae", tf.keras.metrics.MeanSquaredError()])
  config = m.get_compile_config()
  assert config["optimizer"]["class_name"] == "SGD"
  assert config["loss"]["class_name"] == "function"
  json.dumps(config)
  m2 = tf.keras.Sequential([L.Dense(1, input_shape=(2,))])
  m2.compile_from_config(config)
  assert type(m2.optimizer) is tf.keras.optimizers.SGD
  assert np.isclose(float(m2.optimizer.learning_rate.numpy()), 0.5)
  logs = m2.evaluate(np.ones((2, 2)), np.ones((2, 1)), verbose=0, return_dict=True)
  assert set(logs) == {"loss", "mae", "mean_squared_error"}
