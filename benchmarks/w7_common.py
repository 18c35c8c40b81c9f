"""Inputs of W7 and the demo epoch and the Keras train step, shared by workloads_w7.py and
tf_reference.py (no framework imported here: real TensorFlow's script uses it too)."""
import statistics
import time

import numpy as np

W7_BATCH = 32
DEMO_N = 1347  # the demo's training images (75% of scikit-learn's 1797 digits)


def w7_data():
  """A batch of 32 MNIST-shaped images (28x28x1 in [0, 1)) and int32 labels."""
  rng = np.random.default_rng(7)
  x = rng.random((W7_BATCH, 28, 28, 1), dtype=np.float32)
  y = rng.integers(0, 10, W7_BATCH).astype(np.int32)
  return x, y


def demo_data():
  """The demo's training set's shapes: 1347 8x8x1 images and int32 labels."""
  rng = np.random.default_rng(0)
  x = rng.random((DEMO_N, 8, 8, 1), dtype=np.float32)
  y = rng.integers(0, 10, DEMO_N).astype(np.int32)
  return x, y


def keras_train_step(tf, model, loss_fn, opt):
  """The quickstart's train step in framework `tf`: forward under a GradientTape,
  gradients, optimizer update; returns the loss."""
  def step(x, y):
    with tf.GradientTape() as tape:
      loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss
  return step


def time_step(step, x, y, repeat):
  """(median wall s, min wall s, median CPU s) of `step(x, y)` after 3 warm-up calls.
  NOTE: CPU time (all threads) is the steadier figure on a shared, busy host."""
  for _ in range(3):
    step(x, y)
  ts, cpu = [], []
  for _ in range(repeat):
    t, c = time.perf_counter(), time.process_time()
    step(x, y).numpy()
    ts.append(time.perf_counter() - t)
    cpu.append(time.process_time() - c)
  return statistics.median(ts), min(ts), statistics.median(cpu)
