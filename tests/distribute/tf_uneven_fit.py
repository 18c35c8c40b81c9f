"""Writes tf_uneven_fit.json: real TF 2.21 (tf_keras) fit under MirroredStrategy over two
virtual CPUs on 9 examples with batch size 8, so the last batch leaves one replica empty.
Run with /work/tfref/bin/python (TF_USE_LEGACY_KERAS=1)."""
import json
import os

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

rng = np.random.default_rng(0)
x = rng.normal(size=(9, 3)).astype("float32")
y = rng.normal(size=(9, 1)).astype("float32")
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
out = {}
for name, loss in (("string", "mse"), ("object", tf.keras.losses.MeanSquaredError())):
  with s.scope():
    m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    m.set_weights([np.array([[0.1], [0.2], [-0.3]], "float32"), np.array([0.05], "float32")])
    m.compile(tf.keras.optimizers.SGD(0.1), loss, metrics=["mae"])
  h = m.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
  out[name] = {"history": h.history, "weights": [w.tolist() for w in m.get_weights()]}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_uneven_fit.json"),
          "w") as f:
  json.dump(out, f, indent=1)
