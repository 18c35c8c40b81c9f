"""The graph while-loop's cost per iteration (issue 18, loop machinery): a `tf.while_loop`
of 1000 tiny iterations `x = tanh(x * w)` (x: 8 floats, w: a captured Variable) in a
`tf.function`, without and with a GradientTape (forward keeping its history, then the
reverse loop: gradients of sum(x) for x0 and w). The NumPy floor runs the same ops in a
Python loop (the gradient by hand), so tensorlet minus NumPy is the machinery's overhead
per iteration.
"""
import numpy as np

import tensorlet as tf
from harness import time_pair

N = 1000


def while_loop_overhead(repeat):
  """1000 tiny iterations: forward only, and forward + gradient (tape)."""
  xn = np.linspace(-1, 1, 8).astype(np.float32)
  wn = np.float32(0.9)
  w = tf.Variable(wn)
  x0 = tf.constant(xn)

  def loop(x):
    return tf.while_loop(lambda i, x: i < N, lambda i, x: (i + 1, tf.tanh(x * w)), (0, x))[1]

  @tf.function
  def fwd(x):
    return tf.reduce_sum(loop(x))

  @tf.function
  def grad(x):
    with tf.GradientTape() as tape:
      tape.watch(x)
      s = tf.reduce_sum(loop(x))
    return tape.gradient(s, [x, w])

  def fwd_np():
    x = xn
    for _ in range(N):
      x = np.tanh(x * wn)
    return x.sum()

  def grad_np():
    x, hs = xn, []
    for _ in range(N):
      hs.append(x)
      x = np.tanh(x * wn)
    dx, dw = np.ones_like(x), np.float32(0)
    for h in reversed(hs):
      dz = dx * (1 - x * x)
      dw = dw + (dz * h).sum()
      dx = dz * wn
      x = h
    return dx, dw

  np.testing.assert_allclose(float(fwd(x0)), fwd_np(), rtol=1e-5)
  dx, dw = grad(x0)
  ex, ew = grad_np()
  np.testing.assert_allclose(np.asarray(dx), ex, rtol=1e-4, atol=1e-6)
  np.testing.assert_allclose(float(dw), ew, rtol=1e-4)
  tl, npy = time_pair(lambda: fwd(x0), fwd_np, repeat)
  yield ("while_loop 1000 tiny iterations (per it.)", tl / N, npy / N, "us", "-")
  tl, npy = time_pair(lambda: grad(x0), grad_np, repeat)
  yield ("while_loop + tape gradient (per it.)", tl / N, npy / N, "us", "-")


ALL = [("while_loop_overhead", while_loop_overhead)]
