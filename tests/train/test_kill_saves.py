"""SIGKILL in the middle of saving loses nothing.

A child process saves version 1, 2, 3, ... of two large variables (both hold
the version number) over the same path as fast as it can; the test kills it
with SIGKILL at a random moment and then loads what is on disk: it must load,
and both variables must hold the same complete version. The default run makes
a few seeded trials per save path; `TENSORLET_KILL_TRIALS=100` runs the long
version (its command is in the README's testing section).
"""
import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import tensorlet as tf

TRIALS = int(os.environ.get("TENSORLET_KILL_TRIALS", "3"))
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
N = 500_000   # elements per variable: a save takes a few milliseconds

_SETUP = f"""
import sys
import numpy as np
import tensorlet as tf
N = {N}
where = sys.argv[1]
"""

# Each child makes the objects, saves version 0 completely, says "ready", then
# saves versions 1, 2, ... until it is killed.
_CHILDREN = {
    "checkpoint_write": """
ckpt = tf.train.Checkpoint(a=tf.Variable(np.zeros(N, np.float32)),
                           b=tf.Variable(np.zeros(N, np.float32)))
def save(k):
  ckpt.a.assign(np.full(N, k, np.float32)); ckpt.b.assign(np.full(N, k, np.float32))
  ckpt.write(where + "/c")
""",
    "checkpoint_manager": """
ckpt = tf.train.Checkpoint(a=tf.Variable(np.zeros(N, np.float32)),
                           b=tf.Variable(np.zeros(N, np.float32)))
manager = tf.train.CheckpointManager(ckpt, where, max_to_keep=2)
def save(k):
  ckpt.a.assign(np.full(N, k, np.float32)); ckpt.b.assign(np.full(N, k, np.float32))
  manager.save(checkpoint_number=k % 4)   # numbers come round again: re-saves too
""",
    "keras_save_weights": """
model = tf.keras.Sequential([tf.keras.layers.Dense(1000, input_shape=(N // 1000,))])
model.build((None, N // 1000))
def save(k):
  for v in model.weights:
    v.assign(np.full(v.shape, k, np.float32))
  model.save_weights(where + "/w")
""",
    "saved_model": """
m = tf.Module()
m.a = tf.Variable(np.zeros(N, np.float32)); m.b = tf.Variable(np.zeros(N, np.float32))
def save(k):
  m.a.assign(np.full(N, k, np.float32)); m.b.assign(np.full(N, k, np.float32))
  tf.saved_model.save(m, where + "/sm")
""",
}

_LOOP = """
save(0)
print("ready", flush=True)
k = 1
while True:
  save(k)
  k += 1
"""


def _versions_on_disk(kind, where):
  """Loads what a killed child left; returns the versions found in every variable."""
  if kind == "checkpoint_write":
    ckpt = tf.train.Checkpoint(a=tf.Variable(np.ones(N, np.float32)),
                               b=tf.Variable(np.ones(N, np.float32)))
    ckpt.read(where + "/c").assert_consumed()
    return [ckpt.a.numpy(), ckpt.b.numpy()]
  if kind == "checkpoint_manager":
    ckpt = tf.train.Checkpoint(a=tf.Variable(np.ones(N, np.float32)),
                               b=tf.Variable(np.ones(N, np.float32)))
    manager = tf.train.CheckpointManager(ckpt, where, max_to_keep=2)
    assert manager.latest_checkpoint is not None
    assert tf.train.latest_checkpoint(where) == manager.latest_checkpoint
    found = []
    for path in manager.checkpoints:   # every listed checkpoint is complete
      ckpt.read(path).assert_existing_objects_matched()
      found += [ckpt.a.numpy(), ckpt.b.numpy()]
    ckpt.read(manager.latest_checkpoint).assert_existing_objects_matched()
    return found + [ckpt.a.numpy(), ckpt.b.numpy()]
  if kind == "keras_save_weights":
    model = tf.keras.Sequential([tf.keras.layers.Dense(1000, input_shape=(N // 1000,))])
    model.build((None, N // 1000))
    model.load_weights(where + "/w")
    return [v.numpy() for v in model.weights]
  loaded = tf.saved_model.load(where + "/sm")
  return [loaded.a.numpy(), loaded.b.numpy()]


def _consistent(arrays):
  """Each array holds one version; the variables saved together agree."""
  firsts = []
  for a in arrays:
    assert a.size and (a == a.flat[0]).all(), "a variable mixes two versions"
    firsts.append(float(a.flat[0]))
  return firsts


@pytest.mark.parametrize("kind", sorted(_CHILDREN))
def test_sigkill_during_save_leaves_a_loadable_version(kind, tmp_path):
  rng = random.Random(f"kill-{kind}")
  env = dict(os.environ, PYTHONPATH=_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
  script = _SETUP + textwrap.dedent(_CHILDREN[kind]) + _LOOP
  for trial in range(TRIALS):
    where = str(tmp_path / f"t{trial}")
    os.makedirs(where)
    child = subprocess.Popen([sys.executable, "-c", script, where], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env)
    try:
      line = child.stdout.readline()
      assert line.strip() == b"ready", child.stderr.read().decode()[-2000:]
      time.sleep(rng.uniform(0.0, 0.3))
    finally:
      child.send_signal(signal.SIGKILL)
      child.wait(timeout=30)
      child.stdout.close()
      child.stderr.close()
    versions = _consistent(_versions_on_disk(kind, where))
    if kind in ("checkpoint_write", "saved_model"):
      assert len(set(versions)) == 1, f"variables from different saves: {versions}"
    # A second save over the same path cleans up after the killed one.
    if kind == "checkpoint_write":
      tf.train.Checkpoint(a=tf.Variable(np.zeros(N, np.float32)),
                          b=tf.Variable(np.zeros(N, np.float32))).write(where + "/c")
      assert sorted(os.listdir(where)) == ["c.data-00000-of-00001", "c.index"]
    if kind == "saved_model":
      m = tf.Module()
      m.a = tf.Variable(np.zeros(N, np.float32))
      m.b = tf.Variable(np.zeros(N, np.float32))
      tf.saved_model.save(m, where + "/sm")
      assert sorted(os.listdir(where)) == ["sm"]
