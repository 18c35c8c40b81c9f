"""Seed models saved here and loaded in a fresh process that never imports their
classes: same outputs, fine-tuning with a tape, saving again."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tensorlet as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seed_modules  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LR = 0.01

# Runs in the fresh process: load, compare, fine-tune one SGD step, compare, save again.
CHILD = r"""
import sys
import numpy as np
import tensorlet as tf
base = sys.argv[1]
data = np.load(base + "/data.npz", allow_pickle=False)
args = {"mlp": (data["in_mlp"],), "conv": (data["in_conv"],),
        "loop": (data["in_loop_x"], data["in_loop_n"])}
for name in ("mlp", "conv", "loop"):
  m = tf.saved_model.load(f"{base}/{name}")
  np.testing.assert_allclose(m(*args[name]).numpy(), data["out_" + name], rtol=1e-5, atol=1e-6)
  with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.square(m(*args[name])))
  grads = tape.gradient(loss, m.trainable_variables)
  assert len(grads) == len(m.trainable_variables) and all(g is not None for g in grads)
  for v, g in zip(m.trainable_variables, grads):
    v.assign_sub(%(lr)r * g)
  np.testing.assert_allclose(m(*args[name]).numpy(), data["tuned_" + name], rtol=1e-4,
                             atol=1e-5)
  tf.saved_model.save(m, f"{base}/{name}_again")
assert "seed_modules" not in sys.modules and not any("tests" in p for p in sys.path)
print("child ok")
""" % {"lr": LR}


def _tune(model, args):
  with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.square(model(*args)))
  for v, g in zip(model.trainable_variables, tape.gradient(loss, model.trainable_variables)):
    v.assign_sub(LR * g)
  return model(*args).numpy()


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
  base = tmp_path_factory.mktemp("seeds")
  ins = seed_modules.inputs()
  args = {"mlp": (ins["mlp"],), "conv": (ins["conv"],), "loop": ins["loop"]}
  models = {"mlp": seed_modules.Mlp100(), "conv": seed_modules.ConvNet(),
            "loop": seed_modules.Looper()}
  data = {"in_mlp": ins["mlp"], "in_conv": ins["conv"], "in_loop_x": ins["loop"][0],
          "in_loop_n": ins["loop"][1]}
  for name, m in models.items():
    data["out_" + name] = m(*args[name]).numpy()
    tf.saved_model.save(m, str(base / name))
  for name, m in models.items():
    data["tuned_" + name] = _tune(m, args[name])
  np.savez(base / "data.npz", **data)
  return base, data, args


def test_fresh_process_loads_runs_fine_tunes_and_saves_again(saved):
  base, data, args = saved
  env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
  env["PYTHONPATH"] = ROOT
  r = subprocess.run([sys.executable, "-c", CHILD, str(base)], cwd=str(base), env=env,
                     capture_output=True, text=True, timeout=120)
  assert r.returncode == 0, r.stderr[-3000:]
  assert "child ok" in r.stdout
  # what the child saved after fine-tuning loads here with the tuned outputs
  for name in ("mlp", "conv", "loop"):
    m = tf.saved_model.load(str(base / f"{name}_again"))
    np.testing.assert_allclose(m(*args[name]).numpy(), data["tuned_" + name], rtol=1e-4,
                               atol=1e-5)


def test_loaded_gradients_equal_the_originals(tmp_path):
  m = seed_modules.Looper()
  x, n = seed_modules.inputs()["loop"]
  tf.saved_model.save(m, str(tmp_path))
  loaded = tf.saved_model.load(str(tmp_path))
  grads = []
  for obj in (m, loaded):
    with tf.GradientTape() as tape:
      y = tf.reduce_sum(obj(x, n) ** 2)
    grads.append(tape.gradient(y, obj.trainable_variables)[0].numpy())
  np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)
  assert [v.name for v in loaded.variables] == [v.name for v in m.variables]
