"""W7 (the TF quickstart's MNIST convnet train step) and the demo's one-epoch fit, eager
and graph, each beside the same work hand-written in NumPy (forward, backward, Adam)
measured alternately in the same process.

W7: Conv2D(32, 3, relu) -> Flatten -> Dense(128, relu) -> Dense(10), batch 32 of
28x28x1, SparseCategoricalCrossentropy(from_logits=True), Adam, a train step with a
GradientTape (eager, and as a tf.function).
Demo: examples/demo.py's convnet (Conv2D 32 same, MaxPool, Conv2D 64 same, Flatten,
Dropout 0.25, Dense 10), Adam(2e-3), one `fit` epoch of 1347 8x8x1 images, batch 32.
"""
import os
import sys

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

import tensorlet as tf
from w7_common import demo_data, keras_train_step, w7_data
from harness import time_pair

def w7_model():
  L = tf.keras.layers
  return tf.keras.Sequential([
      tf.keras.Input((28, 28, 1)), L.Conv2D(32, 3, activation="relu"), L.Flatten(),
      L.Dense(128, activation="relu"), L.Dense(10)])


def train_step(model, loss_fn, opt):
  return keras_train_step(tf, model, loss_fn, opt)


def w7_graph_step():
  """A fresh W7 model's train step as a tf.function, and its (x, y) tensors."""
  x, y = (tf.constant(a) for a in w7_data())
  step = train_step(w7_model(), tf.keras.losses.SparseCategoricalCrossentropy(
      from_logits=True), tf.keras.optimizers.Adam())
  return tf.function(step), x, y


# ------------------------------------------------------------- NumPy pieces

def _cols(xp, kh, kw):
  """im2col of a padded NHWC batch: rows (n, oh, ow), columns (kh, kw, c)."""
  n, h, w, c = xp.shape
  oh, ow = h - kh + 1, w - kw + 1
  v = sliding_window_view(xp, (kh, kw), axis=(1, 2))  # n, oh, ow, c, kh, kw
  return v.transpose(0, 1, 2, 4, 5, 3).reshape(n * oh * ow, kh * kw * c)


def _softmax_xent(logits, y):
  """Mean sparse cross-entropy from logits and its gradient wrt the logits."""
  n = logits.shape[0]
  m = logits.max(axis=1, keepdims=True)
  e = np.exp(logits - m)
  s = e.sum(axis=1, keepdims=True)
  r = np.arange(n)
  loss = np.mean(np.log(s[:, 0]) + m[:, 0] - logits[r, y])
  d = e / s
  d[r, y] -= 1
  return loss, d / n


def w7_numpy_step(x, y, params, update):
  """The W7 step by hand: conv (one im2col GEMM), dense layers, their gradients (no input
  gradient for the first layer, as TF skips it too), `update(ps, grads)`."""
  ps = [np.array(p) for p in params]
  n = x.shape[0]

  def step():
    k, c, w2, b2, w3, b3 = ps
    cols = _cols(x, 3, 3)
    a1 = np.maximum(cols @ k.reshape(9, 32) + c, 0)       # (n*26*26, 32)
    flat = a1.reshape(n, -1)
    h2 = np.maximum(flat @ w2 + b2, 0)
    loss, dl = _softmax_xent(h2 @ w3 + b3, y)
    dh2 = (dl @ w3.T) * (h2 > 0)
    dz1 = (dh2 @ w2.T).reshape(-1, 32) * (a1 > 0)
    update(ps, [(cols.T @ dz1).reshape(3, 3, 1, 32), dz1.sum(axis=0), flat.T @ dh2,
                dh2.sum(axis=0), h2.T @ dl, dl.sum(axis=0)])
    return loss
  return step


def demo_numpy_epoch(x, y, params, lr=2e-3, batch=32, seed=0):
  """One fit epoch of the demo convnet by hand: shuffle, per batch forward, backward
  (max-pool to the first maximum, conv input gradient by col2im), Adam, accuracy."""
  from workloads import _numpy_adam
  ps = [np.array(p) for p in params]
  update = _numpy_adam(ps, lr=lr)
  rng = np.random.default_rng(seed)

  def train_batch(xb, yb):
    k1, c1, k2, c2, w, b = ps
    n = xb.shape[0]
    cols1 = _cols(np.pad(xb, ((0, 0), (1, 1), (1, 1), (0, 0))), 3, 3)     # (n*64, 9)
    a1 = np.maximum(cols1 @ k1.reshape(9, 32) + c1, 0).reshape(n, 8, 8, 32)
    win = a1.reshape(n, 4, 2, 4, 2, 32).transpose(0, 1, 3, 2, 4, 5).reshape(n, 4, 4, 4, 32)
    arg = win.argmax(axis=3)
    p1 = np.take_along_axis(win, arg[:, :, :, None], axis=3)[:, :, :, 0]
    cols2 = _cols(np.pad(p1, ((0, 0), (1, 1), (1, 1), (0, 0))), 3, 3)     # (n*16, 288)
    a2 = np.maximum(cols2 @ k2.reshape(288, 64) + c2, 0)
    keep = (rng.random((n, 1024)) >= 0.25) / np.float32(0.75)
    d = a2.reshape(n, 1024) * keep
    logits = d @ w + b
    _, dl = _softmax_xent(logits, yb)
    correct = int((logits.argmax(axis=1) == yb).sum())
    dz2 = ((dl @ w.T) * keep).reshape(-1, 64) * (a2 > 0)
    dcols2 = (dz2 @ k2.reshape(288, 64).T).reshape(n, 4, 4, 3, 3, 32)
    dp = np.zeros((n, 6, 6, 32), np.float32)
    for i in range(3):
      for j in range(3):
        dp[:, i:i + 4, j:j + 4] += dcols2[:, :, :, i, j]
    dwin = np.zeros_like(win)
    np.put_along_axis(dwin, arg[:, :, :, None], dp[:, 1:5, 1:5, None], axis=3)
    da1 = dwin.reshape(n, 4, 4, 2, 2, 32).transpose(0, 1, 3, 2, 4, 5).reshape(-1, 32)
    dz1 = da1 * (a1.reshape(-1, 32) > 0)
    update(ps, [(cols1.T @ dz1).reshape(3, 3, 1, 32), dz1.sum(axis=0),
                (cols2.T @ dz2).reshape(3, 3, 32, 64), dz2.sum(axis=0), d.T @ dl,
                dl.sum(axis=0)])
    return correct

  def epoch():
    order = rng.permutation(len(x))
    correct = 0
    for s in range(0, len(x), batch):
      idx = order[s:s + batch]
      correct += train_batch(x[idx], y[idx])
    return correct / len(x)
  return epoch


# ------------------------------------------------------------- workloads

def w7_mnist_step(repeat):
  """W7: the quickstart convnet's train step, eager and tf.function, beside NumPy."""
  from workloads import _numpy_adam, _warm_tracing
  _warm_tracing()
  tf.random.set_seed(0)
  x, y = w7_data()
  model = w7_model()
  xt, yt = tf.constant(x), tf.constant(y)
  step = train_step(model, tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                    tf.keras.optimizers.Adam())
  params = [np.asarray(v) for v in model.trainable_variables]
  step_np = w7_numpy_step(x, y, params, _numpy_adam(params))
  l_tl, l_np = float(step(xt, yt)), float(step_np())
  assert abs(l_tl - l_np) < 1e-4, (l_tl, l_np)
  rep = max(5, repeat)
  tl, npy = time_pair(lambda: step(xt, yt), step_np, rep, min_time=0.1)
  yield ("W7 MNIST convnet step, eager", tl, npy, "ms", "-")
  f = tf.function(step)
  f(xt, yt)
  tl, npy = time_pair(lambda: f(xt, yt), step_np, rep, min_time=0.1)
  yield ("W7 MNIST convnet step, tf.function", tl, npy, "ms", "<= TF graph")


def demo_epoch(repeat):
  """The demo's one-epoch fit (run_eagerly True and False) beside a NumPy epoch."""
  sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
      os.path.abspath(__file__))), "examples"))
  import demo
  x, y = demo_data()
  rep = max(3, repeat // 3)
  for eager in (True, False):
    tf.random.set_seed(0)
    model = demo.compiled(demo.make_model(), run_eagerly=eager)
    model.build((None, 8, 8, 1))
    epoch_np = demo_numpy_epoch(x, y, [np.asarray(v) for v in model.trainable_variables])

    def epoch_tl(model=model):
      model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    tl, npy = time_pair(epoch_tl, epoch_np, rep, min_time=0.2, warmup=1)
    mode = "eager (run_eagerly)" if eager else "graph"
    yield (f"demo fit epoch, {mode}", tl, npy, "ms", "<= TF" if not eager else "-")


ALL = [("w7_mnist_step", w7_mnist_step), ("demo_epoch", demo_epoch)]
