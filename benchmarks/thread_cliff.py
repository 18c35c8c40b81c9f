"""The thread-cliff check: the same steps with tensorlet's default BLAS threads (its size
and load policy), with one thread, and with the BLAS's own default for every op (no
policy: what an unmanaged job does), measured alternately in one process. Run it with
busy neighbours started by run.py (`--busy-neighbours N`) and without.
"""
import gc
import statistics
import time


import tensorlet as tf
from harness import calls_per_sample
from tensorlet.ops import _blas_threads

MODES = ("default", "no policy", "1 thread")


def _mode(name):
  if name == "1 thread":
    _blas_threads.set_fixed(1)
  else:
    _blas_threads.set_fixed(0)
    _blas_threads.set_policy(name == "default")


def _steps():
  from workloads_w7 import train_step, w7_graph_step
  tf.random.set_seed(0)
  w7, x, y = w7_graph_step()
  yield "cliff W7 convnet step (graph)", lambda: w7(x, y), 0.15

  x4 = tf.random.uniform([32, 784])
  y4 = tf.random.uniform([32], maxval=10, dtype=tf.int32)
  m4 = tf.keras.Sequential([tf.keras.layers.Dense(128, activation="relu"),
                            tf.keras.layers.Dense(10)])
  w4 = tf.function(train_step(m4, tf.keras.losses.SparseCategoricalCrossentropy(
      from_logits=True), tf.keras.optimizers.Adam()))
  yield "cliff W4 MLP step (graph)", lambda: w4(x4, y4), 0.05

  a = tf.ones([1000, 1000])
  b = tf.ones([1000, 1000]) * 0.001

  @tf.function
  def w2(x, y):
    s = tf.zeros_like(x) + tf.matmul(x, y)
    for _ in range(10):
      s = s + tf.matmul(s, y) * x
    return s
  yield "cliff W2 matmul chain (graph)", lambda: w2(a, b), 0.2


def thread_cliff(repeat):
  """Rows: each step's median per mode; the ratio column is default / one thread."""
  repeat = max(5, repeat // 2)
  try:
    for name, fn, min_time in _steps():
      _mode("1 thread")
      fn()
      n = calls_per_sample(fn, min_time)
      times = {m: [] for m in MODES}
      gc.disable()
      try:
        for r in range(repeat):
          # NOTE: BLAS workers left spinning by the no-policy run slow whatever runs
          # next: the other two modes take turns after it.
          for m in (MODES if r % 2 else MODES[::-1]):
            _mode(m)
            fn()  # the policy's first sample, and the switch, outside the timing
            t = time.perf_counter()
            for _ in range(n):
              fn()
            times[m].append((time.perf_counter() - t) / n)
      finally:
        gc.enable()
      med = {m: statistics.median(v) for m, v in times.items()}
      one = med["1 thread"]
      yield (f"{name}, default", med["default"], one, "ms",
             "<= 1.2x one thread under load")
      yield (f"{name}, no policy", med["no policy"], one, "ms", "-")
  finally:
    _mode("default")


ALL = [("thread_cliff", thread_cliff)]
