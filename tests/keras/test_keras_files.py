"""Whole-model and weights files: `.keras`, legacy `.h5`, `.weights.h5`, SavedModel
directories and checkpoints; files written by real Keras 2 (fixtures/) load with
identical predictions, compiled, with their optimizer state."""
import json
import os
import sys
import warnings
import zipfile

import numpy as np
import pytest

import tensorlet as tf

h5py = pytest.importorskip("h5py")

L = tf.keras.layers
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
sys.path.insert(0, FIXTURES)
import make_fixtures  # noqa: E402 - the fixtures' own definitions, without TensorFlow


def fixture(name):
  return os.path.join(FIXTURES, name)


@pytest.fixture(autouse=True)
def _fresh_names():
  tf.keras.backend.clear_session()


Scale = make_fixtures.define_scale(tf.keras)


def close(a, b):
  np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------ Keras 2 files
@pytest.mark.parametrize("ext", ["keras", "h5"])
def test_keras2_sequential_loads_as_the_full_compiled_model(ext):
  x, want = np.load(fixture("sequential_x.npy")), np.load(fixture("sequential_y0.npy"))
  m = tf.keras.models.load_model(fixture(f"sequential.{ext}"))
  assert type(m) is tf.keras.Sequential
  assert [type(layer).__name__ for layer in m.layers] == [
      "Conv2D", "BatchNormalization", "MaxPooling2D", "Flatten", "Dropout", "Dense", "Dense"]
  close(m.predict(x, verbose=0), want)
  assert isinstance(m.optimizer, tf.keras.optimizers.Adam)
  assert m.loss == "sparse_categorical_crossentropy"
  # Keras trained two steps: the step count and Adam's moments come back.
  assert int(m.optimizer.iterations.numpy()) == 2
  assert len(m.optimizer.variables) == 1 + 2 * len(m.trainable_variables)
  assert any(np.abs(v.numpy()).sum() > 0 for v in m.optimizer.variables[1:])
  assert len(m.losses) == 1  # the l2 kernel regularizer
  lines = []
  m.summary(print_fn=lines.append)
  assert "Total params: 379" in "\n".join(lines)
  hist = m.fit(x, np.array([0, 1, 2, 0, 1, 2]), epochs=2, verbose=0)
  assert set(hist.history) == {"loss", "accuracy"}
  assert int(m.optimizer.iterations.numpy()) == 4


@pytest.mark.parametrize("ext", ["keras", "h5"])
def test_keras2_functional_loads_with_both_outputs(ext):
  xs = [np.load(fixture("functional_x_image.npy")), np.load(fixture("functional_x_tokens.npy"))]
  want = [np.load(fixture("functional_y0.npy")), np.load(fixture("functional_y1.npy"))]
  m = tf.keras.models.load_model(fixture(f"functional.{ext}"))
  assert type(m).__name__ == "Functional" and m.name == "two_towers"
  assert [layer.name for layer in m.layers] == [
      "image", "conv", "tokens", "bn", "embed", "activation", "reshape",
      "global_average_pooling2d", "dropout_1", "image_out", "token_out"]
  assert m.input_names == ["image", "tokens"] and m.output_names == ["image_out", "token_out"]
  for got, expected in zip(m.predict(xs, verbose=0), want):
    close(got, expected)
  opt = m.optimizer
  assert isinstance(opt, tf.keras.optimizers.SGD) and opt.get_config()["momentum"] == 0.9
  assert np.isclose(float(opt.learning_rate.numpy()), 0.05)
  assert int(opt.iterations.numpy()) == 1
  logs = m.evaluate(xs, [want[0], np.array([0.0, 1.0, 1.0, 0.0])], verbose=0, return_dict=True)
  assert {"loss", "image_out_mae", "token_out_accuracy"} <= set(logs)


@pytest.mark.parametrize("ext", ["keras", "h5"])
def test_keras2_nested_model(ext, tmp_path):
  x, want = np.load(fixture("nested_x.npy")), np.load(fixture("nested_y.npy"))
  m = tf.keras.models.load_model(fixture(f"nested.{ext}"))
  assert [type(layer).__name__ for layer in m.layers] == ["InputLayer", "Sequential", "Dense"]
  close(m.predict(x, verbose=0), want)
  # Keras numbers the calls of a nested model from 1 (its node 0 is its inner graph).
  head = [entry for entry in m.get_config()["layers"] if entry["name"] == "head"][0]
  assert head["inbound_nodes"] == [[["inner", 1, 0, {}]]]
  m.save(str(tmp_path / f"again.{ext}"))
  close(tf.keras.models.load_model(str(tmp_path / f"again.{ext}")).predict(x, verbose=0), want)


def _sequential_like_fixture():
  return tf.keras.Sequential([
      L.Conv2D(4, 3, activation="relu", input_shape=(8, 8, 1)), L.BatchNormalization(),
      L.MaxPooling2D(), L.Flatten(), L.Dropout(0.25), L.Dense(8, activation="relu"),
      L.Dense(3, activation="softmax")])


@pytest.mark.parametrize("name", ["sequential.weights.h5", "sequential.h5"])
def test_keras2_weights_files_load_into_a_tensorlet_model(name):
  x, want = np.load(fixture("sequential_x.npy")), np.load(fixture("sequential_y0.npy"))
  m = _sequential_like_fixture()
  m.load_weights(fixture(name))
  close(m.predict(x, verbose=0), want)


def test_keras2_registered_custom_layer():
  x, want = np.load(fixture("custom_x.npy")), np.load(fixture("custom_y.npy"))
  m = tf.keras.models.load_model(fixture("custom.keras"))
  assert type(m.layers[-1]) is Scale and m.layers[-1].offset == 0.5
  close(m.predict(x, verbose=0), want)
  assert isinstance(m.optimizer, tf.keras.optimizers.RMSprop)


def test_unknown_custom_layer_needs_custom_objects():
  registry = tf.keras.saving.get_custom_objects()
  saved = registry.pop("fixtures>Scale")
  try:
    with pytest.raises(ValueError, match="Unknown layer: 'Scale'"):
      tf.keras.models.load_model(fixture("custom.keras"))
    m = tf.keras.models.load_model(fixture("custom.keras"), custom_objects={"Scale": Scale})
    assert type(m.layers[-1]) is Scale
    with tf.keras.saving.custom_object_scope({"Scale": Scale}):
      m = tf.keras.models.load_model(fixture("custom.keras"))
    assert type(m.layers[-1]) is Scale
  finally:
    registry["fixtures>Scale"] = saved


@pytest.mark.parametrize("name", ["lambda.keras", "lambda.h5"])
def test_lambda_bytecode_is_refused_in_safe_mode(name):
  with pytest.raises(ValueError, match="safe_mode=False"):
    tf.keras.models.load_model(fixture(name))


# ------------------------------------------------------------ round trips
def _every_layer_model(dropout=0.5):
  """A functional model with every layer kind the package has (one branch each)."""
  image = tf.keras.Input((6, 6, 2), name="image")
  tokens = tf.keras.Input((4,), dtype="int32", name="tokens")
  h = L.Conv2D(3, 3, padding="same", activation="relu")(image)
  h = L.BatchNormalization()(h)
  a = L.MaxPooling2D()(h)
  a = L.AveragePooling2D(pool_size=(1, 1))(a)
  a = L.Flatten()(a)
  b = L.GlobalAveragePooling2D()(h)
  c = L.GlobalMaxPooling2D()(h)
  e = L.Embedding(10, 2)(tokens)
  e = L.Reshape((8,))(e)
  out1 = L.Dense(2, name="from_pooling")(L.Dropout(dropout)(a))
  out2 = L.Activation("tanh")(L.Dense(2, kernel_regularizer="l2")(b))
  out3 = L.Dense(1, name="from_global_max")(c)
  out4 = L.Dense(1, activation="sigmoid", name="from_tokens")(e)
  return tf.keras.Model([image, tokens], [out1, out2, out3, out4])


def _data(rng):
  return [rng.normal(size=(5, 6, 6, 2)).astype("float32"),
          rng.integers(0, 10, size=(5, 4)).astype("int32")]


def _trained(model, xs, rng):
  model.compile(tf.keras.optimizers.Adam(0.01), loss=["mse", "mse", "mse", "mse"],
                metrics=[["mae"], [], [], []])
  ys = [rng.normal(size=(5, 2)), rng.normal(size=(5, 2)), rng.normal(size=(5, 1)),
        rng.random(size=(5, 1))]
  model.fit(xs, ys, epochs=2, verbose=0)
  return ys


@pytest.mark.parametrize("fmt", ["m.keras", "m.h5", "savedmodel"])
def test_every_layer_kind_round_trips_with_training_state(tmp_path, fmt):
  rng = np.random.default_rng(0)
  xs = _data(rng)
  model = _every_layer_model(dropout=0.0)  # no noise: training must go on identically
  ys = _trained(model, xs, rng)
  want = model.predict(xs, verbose=0)
  path = str(tmp_path / fmt)
  model.save(path)
  loaded = tf.keras.models.load_model(path)
  assert type(loaded) is type(model)
  assert [type(a) for a in loaded.layers] == [type(b) for b in model.layers]
  for got, expected in zip(loaded.predict(xs, verbose=0), want):
    close(got, expected)
  assert type(loaded.optimizer) is tf.keras.optimizers.Adam
  for a, b in zip(loaded.optimizer.variables, model.optimizer.variables):
    close(a.numpy(), b.numpy())
  # Training goes on exactly as it would have in the original model.
  model.fit(xs, ys, verbose=0, shuffle=False)
  loaded.fit(xs, ys, verbose=0, shuffle=False)
  for a, b in zip(loaded.weights, model.weights):
    close(a.numpy(), b.numpy())


@pytest.mark.parametrize("fmt", ["w.weights.h5", "w.h5", "ckpt"])
def test_weights_round_trip(tmp_path, fmt):
  rng = np.random.default_rng(1)
  xs = _data(rng)
  model = _every_layer_model()
  _trained(model, xs, rng)
  path = str(tmp_path / fmt)
  model.save_weights(path)
  other = _every_layer_model()
  other.load_weights(path)
  for got, expected in zip(other.predict(xs, verbose=0), model.predict(xs, verbose=0)):
    close(got, expected)


def test_keras_zip_layout(tmp_path):
  model = tf.keras.Sequential([L.Dense(3, input_shape=(2,)), L.BatchNormalization(),
                               L.Dense(1)])
  model.compile("adam", "mse")
  model.fit(np.ones((4, 2)), np.ones((4, 1)), verbose=0)
  path = str(tmp_path / "m.keras")
  model.save(path)
  with zipfile.ZipFile(path) as z:
    assert set(z.namelist()) == {"config.json", "metadata.json", "model.weights.h5"}
    config = json.loads(z.read("config.json"))
    meta = json.loads(z.read("metadata.json"))
    z.extract("model.weights.h5", str(tmp_path))
  assert set(meta) == {"keras_version", "date_saved"}
  assert (config["module"], config["class_name"]) == ("keras", "Sequential")
  assert [c["class_name"] for c in config["config"]["layers"]] == [
      "InputLayer", "Dense", "BatchNormalization", "Dense"]
  assert config["config"]["layers"][1]["build_config"] == {"input_shape": [None, 2]}
  assert config["compile_config"]["optimizer"] == "adam"
  assert config["compile_config"]["loss"] == "mse"
  with h5py.File(str(tmp_path / "model.weights.h5"), "r") as f:
    shapes = {}
    f.visititems(lambda name, obj: shapes.__setitem__(name, getattr(obj, "shape", None)))
  assert shapes["layers/dense/vars/0"] == (2, 3)
  assert shapes["layers/dense/vars/1"] == (3,)
  assert [shapes[f"layers/batch_normalization/vars/{i}"] for i in range(4)] == [(3,)] * 4
  assert shapes["layers/dense_1/vars/0"] == (3, 1)
  assert shapes["optimizer/vars/0"] == () and shapes["optimizer/vars/1"] == (2, 3)
  assert "metrics/mean/vars/0" in shapes and "vars" in shapes


def test_legacy_h5_layout(tmp_path):
  model = tf.keras.Sequential([L.Dense(3, input_shape=(2,)), L.Dense(1)])
  model.compile("sgd", "mse", metrics=["mae"])
  path = str(tmp_path / "m.h5")
  model.save(path)
  with h5py.File(path, "r") as f:
    assert json.loads(f.attrs["model_config"])["class_name"] == "Sequential"
    training = json.loads(f.attrs["training_config"])
    assert training["loss"] == "mse" and training["metrics"] == ["mae"]
    assert training["optimizer_config"]["class_name"] == "SGD"
    g = f["model_weights"]
    assert [n.decode() for n in g.attrs["layer_names"]] == ["dense", "dense_1"]
    assert [n.decode() for n in g["dense"].attrs["weight_names"]] == [
        "dense/kernel:0", "dense/bias:0"]
    assert g["dense/dense/kernel:0"].shape == (2, 3)


class Residual(tf.keras.Model):
  def __init__(self, units=3, **kwargs):
    super().__init__(**kwargs)
    self.units = units
    self.inner = L.Dense(units)
    self.blocks = [L.Dense(units), L.Dense(units)]

  def call(self, x):
    h = self.inner(x)
    for block in self.blocks:
      h = h + block(h)
    return h

  def get_config(self):
    return {"units": self.units, "name": self.name}


def test_subclassed_model_round_trips_with_custom_objects(tmp_path):
  m = Residual(units=4)
  x = np.random.default_rng(2).normal(size=(3, 5)).astype("float32")
  want = m(x).numpy()
  m.compile("adam", "mse")
  path = str(tmp_path / "r.keras")
  m.save(path)
  loaded = tf.keras.models.load_model(path, custom_objects={"Residual": Residual})
  assert type(loaded) is Residual and loaded.units == 4
  close(loaded(x).numpy(), want)
  loaded.fit(x, np.zeros((3, 4)), verbose=0)
  with pytest.raises(NotImplementedError, match="Functional model or a Sequential model"):
    m.save(str(tmp_path / "r.h5"))
  assert not os.path.exists(tmp_path / "r.h5")
  m.save_weights(str(tmp_path / "r_weights.h5"))
  other = Residual(units=4)
  other(x)
  other.load_weights(str(tmp_path / "r_weights.h5"))
  close(other(x).numpy(), want)


def test_tf_saved_model_save_of_a_keras_model_is_callable(tmp_path):
  m = tf.keras.Sequential([L.Dense(2, input_shape=(3,))])
  x = np.ones((2, 3), "float32")
  tf.saved_model.save(m, str(tmp_path))
  loaded = tf.saved_model.load(str(tmp_path))
  close(loaded(x).numpy(), m(x).numpy())
  out = loaded.signatures["serving_default"](inputs=tf.constant(x))
  close(list(out.values())[0].numpy(), m(x).numpy())
  assert type(tf.keras.models.load_model(str(tmp_path))) is tf.keras.Sequential


# ------------------------------------------------------------ weights options
def _pair():
  a = tf.keras.Sequential([L.Dense(3, input_shape=(2,), name="shared"),
                           L.Dense(1, name="head")])
  b = tf.keras.Sequential([L.Dense(3, input_shape=(2,), name="shared"),
                           L.Dense(4, name="head"), L.Dense(1, name="extra")])
  return a, b


def test_by_name_and_skip_mismatch(tmp_path):
  a, b = _pair()
  path = str(tmp_path / "a.h5")
  a.save_weights(path)
  before = [w.numpy() for w in b.weights]
  with pytest.raises(ValueError, match="Layer count mismatch"):
    b.load_weights(path)
  with pytest.raises(ValueError, match="Shape mismatch in layer head"):
    b.load_weights(path, by_name=True)
  for w, v in zip(b.weights, before):  # a failed load changes nothing
    np.testing.assert_array_equal(w.numpy(), v)
  with pytest.raises(ValueError, match="skip_mismatch can only be set to True when by_name"):
    b.load_weights(path, skip_mismatch=True)
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    b.load_weights(path, by_name=True, skip_mismatch=True)
  assert any("head" in str(w.message) for w in caught)
  np.testing.assert_array_equal(b.layers[0].kernel.numpy(), a.layers[0].kernel.numpy())
  np.testing.assert_array_equal(b.layers[1].kernel.numpy(), before[2])


def test_weights_h5_skip_mismatch(tmp_path):
  a, b = _pair()
  path = str(tmp_path / "a.weights.h5")
  a.save_weights(path)
  with pytest.raises(ValueError):
    b.load_weights(path)
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    b.load_weights(path, skip_mismatch=True)
  np.testing.assert_array_equal(b.layers[0].kernel.numpy(), a.layers[0].kernel.numpy())
  with pytest.raises(ValueError, match="by_name"):
    b.load_weights(path, by_name=True)


def test_saves_are_atomic(tmp_path):
  m = tf.keras.Sequential([L.Dense(1, input_shape=(2,))])
  for name in ("m.keras", "m.h5", "w.weights.h5", "w.h5"):
    path = tmp_path / name
    path.write_bytes(b"old")

    class Boom(Exception):
      pass

    def broken(*args, **kwargs):
      raise Boom()
    w = m.weights[0]
    original = type(w).numpy
    type(w).numpy = broken
    try:
      with pytest.raises(Boom):
        (m.save_weights if name.startswith("w") else m.save)(str(path))
    finally:
      type(w).numpy = original
    assert path.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in tmp_path.iterdir() if not p.name.startswith(".tmp"))


def test_bad_files(tmp_path):
  (tmp_path / "bad.keras").write_bytes(b"not a zip")
  with pytest.raises(ValueError, match="not a valid `.keras` zip"):
    tf.keras.models.load_model(str(tmp_path / "bad.keras"))
  with zipfile.ZipFile(tmp_path / "empty.keras", "w") as z:
    z.writestr("metadata.json", "{}")
  with pytest.raises(ValueError, match="no config.json"):
    tf.keras.models.load_model(str(tmp_path / "empty.keras"))
  with pytest.raises(OSError, match="No file or directory found"):
    tf.keras.models.load_model(str(tmp_path / "missing.keras"))
  with h5py.File(tmp_path / "nomodel.h5", "w") as f:
    f.attrs["x"] = 1
  with pytest.raises(ValueError, match="No model config found"):
    tf.keras.models.load_model(str(tmp_path / "nomodel.h5"))
  m = tf.keras.Sequential([L.Dense(1, input_shape=(2,))])
  with pytest.raises(ValueError, match="Unknown format"):
    m.save(str(tmp_path / "x"), save_format="pickle")
  with pytest.raises(ValueError, match="model.save"):
    m.save_weights(str(tmp_path / "w.keras"))
  m.save(str(tmp_path / "m.keras"))
  with pytest.raises(FileExistsError):
    m.save(str(tmp_path / "m.keras"), overwrite=False)
