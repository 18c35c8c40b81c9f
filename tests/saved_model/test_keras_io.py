"""Keras models saved for inference, loaded back, and exported to ONNX."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.saved_model import keras_io


def _convnet():
  # seed 004's MNIST model, smaller
  return tf.keras.Sequential([
      tf.keras.layers.Conv2D(4, [3, 3], activation="relu", input_shape=(10, 10, 1)),
      tf.keras.layers.MaxPooling2D(), tf.keras.layers.Flatten(),
      tf.keras.layers.Dropout(0.5), tf.keras.layers.Dense(3)])


def test_save_load_predict(tmp_path):
  m = _convnet()
  x = np.random.default_rng(0).normal(size=[5, 10, 10, 1]).astype(np.float32)
  want = m(x, training=False).numpy()
  keras_io.save_model(m, str(tmp_path))
  loaded = keras_io.load_model(str(tmp_path))
  # batches of 2 round differently in BLAS than one batch of 5
  np.testing.assert_allclose(loaded.predict(x, batch_size=2), want, rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(loaded(x).numpy(), want, rtol=1e-6)
  assert type(loaded) is tf.keras.Sequential  # the full model, rebuilt from its config
  out = tf.saved_model.load(str(tmp_path)).signatures["serving_default"](
      inputs=tf.constant(x))
  np.testing.assert_allclose(out["output_0"].numpy(), want, rtol=1e-6)
  assert len(loaded.trainable_variables) == len(m.trainable_variables)


def test_onnx_export_of_a_keras_model():
  import onnxruntime as ort
  m = _convnet()
  x = np.random.default_rng(1).normal(size=[2, 10, 10, 1]).astype(np.float32)
  proto = tf.onnx.export(m)
  sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
  got = sess.run(None, {sess.get_inputs()[0].name: x})[0]
  np.testing.assert_allclose(got, m(x, training=False).numpy(), rtol=1e-5, atol=1e-6)


def test_errors(tmp_path):
  class Sub(tf.keras.Model):
    def __init__(self):
      super().__init__()
      self.d = tf.keras.layers.Dense(2)

    def call(self, x):
      return self.d(x)
  sub = Sub()
  with pytest.raises(ValueError, match="not been built"):
    keras_io.save_model(sub, str(tmp_path / "a"))
  sub(np.ones([1, 3], np.float32))
  with pytest.raises(ValueError, match="input_signature"):
    keras_io.save_model(sub, str(tmp_path / "a"))
  keras_io.save_model(sub, str(tmp_path / "a"),
                      input_signature=[tf.TensorSpec([None, 3], tf.float32)])
  assert keras_io.load_model(str(tmp_path / "a")).predict(np.ones([4, 3])).shape == (4, 2)
  tf.saved_model.save(tf.Module(), str(tmp_path / "b"))
  with pytest.raises(ValueError, match="not saved from a Keras model"):
    keras_io.load_model(str(tmp_path / "b"))


def test_model_save_and_keras_load_model(tmp_path):
  m = tf.keras.Sequential([tf.keras.Input(shape=(4,)),
                           tf.keras.layers.Dense(3, activation="relu"), tf.keras.layers.Dense(2)])
  x = np.random.default_rng(1).random([5, 4]).astype(np.float32)
  m.save(str(tmp_path / "model"))
  loaded = tf.keras.models.load_model(str(tmp_path / "model"))
  np.testing.assert_allclose(loaded.predict(x), m.predict(x, verbose=0), rtol=1e-6)
  tf.keras.models.save_model(m, str(tmp_path / "again"))
  np.testing.assert_allclose(tf.keras.models.load_model(str(tmp_path / "again"))(x).numpy(),
                             m(x).numpy(), rtol=1e-6)
  assert tf.keras.models.Sequential is tf.keras.Sequential


from test_seed000_keras import ManyLayers as SequentialModel  # noqa: E402 - seed 000's model


_CHILD = r"""
import sys
import numpy as np
import tensorlet as tf
base = sys.argv[1]
data = np.load(base + "/data.npz", allow_pickle=False)
for name in ("seed000", "convnet"):
  m = tf.keras.models.load_model(f"{base}/{name}")
  np.testing.assert_allclose(m.predict(data["x_" + name]), data["y_" + name], rtol=1e-5,
                             atol=1e-6)
assert not any("test_keras_io" in k for k in sys.modules)  # the classes never load here
print("child ok")
"""


def test_seed_keras_models_load_in_a_fresh_process(tmp_path):
  import os
  import subprocess
  import sys
  tf.random.set_seed(0)
  rng = np.random.default_rng(0)
  x = {"seed000": rng.random([20, 28, 28], dtype=np.float32),
       "convnet": rng.normal(size=[5, 10, 10, 1]).astype(np.float32)}
  models = {"seed000": SequentialModel(), "convnet": _convnet()}
  data = {}
  for name, m in models.items():
    data["x_" + name] = x[name]
    data["y_" + name] = m(x[name], training=False).numpy()
    keras_io.save_model(m, str(tmp_path / name),
                        input_signature=[tf.TensorSpec([None] + list(x[name].shape[1:]))])
  np.savez(tmp_path / "data.npz", **data)
  root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
  env = dict(os.environ, PYTHONPATH=root)
  r = subprocess.run([sys.executable, "-c", _CHILD, str(tmp_path)], cwd=str(tmp_path), env=env,
                     capture_output=True, text=True, timeout=120)
  assert r.returncode == 0, r.stderr[-3000:]
  assert "child ok" in r.stdout
