"""tensorlet basics: eager tensors, gradients, tf.function graphs and AutoGraph.

Trains a linear model y = 3x + 2 from noisy data, first eagerly, then with a
tf.function training step (a compiled graph with a tensor-dependent loop),
and prints the timings of both.
"""
import time

import tensorlet as tf


def main():
  tf.random.set_seed(0)
  print("Eager tensors:")
  a = tf.constant([[1, 2], [3, 4]])
  print(a)
  print(a * tf.add(a, 1))

  print("\nGradients (d/dx x^3 at 3, and its second derivative):")
  x = tf.constant(3.0)
  with tf.GradientTape() as outer:
    outer.watch(x)
    with tf.GradientTape() as inner:
      inner.watch(x)
      y = x * x * x
    dy = inner.gradient(y, x)
  print(dy.numpy(), outer.gradient(dy, x).numpy())

  print("\nLinear regression, eager vs tf.function:")
  n = 2000
  xs = tf.random.normal([n])
  ys = xs * 3.0 + 2.0 + tf.random.normal([n]) * 0.5
  for mode in ("eager", "graph"):
    w, b = tf.Variable(5.0), tf.Variable(10.0)

    def train(steps):
      for _ in tf.range(steps) if mode == "graph" else range(int(steps)):
        with tf.GradientTape() as tape:
          loss = tf.reduce_mean(tf.square(xs * w + b - ys))
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.1 * gw)
        b.assign_sub(0.1 * gb)
      return tf.reduce_mean(tf.square(xs * w + b - ys))
    fn = tf.function(train) if mode == "graph" else train
    fn(tf.constant(1))
    t = time.perf_counter()
    loss = fn(tf.constant(300))
    dt = time.perf_counter() - t
    print(f"  {mode:5s}: loss {float(loss):.3f}  W = {w.numpy():.3f}  B = {b.numpy():.3f}  "
          f"({dt * 1e3:.1f} ms for 300 steps)")

  print("\nAutoGraph turns tensor control flow into graph ops:")

  @tf.function
  def collatz_steps(n):
    steps = 0
    while n != 1:
      n = n // 2 if n % 2 == 0 else 3 * n + 1
      steps += 1
    return steps
  print("  collatz_steps(27) =", collatz_steps(tf.constant(27)).numpy())
  print(tf.autograph.to_code(collatz_steps.python_function))


if __name__ == "__main__":
  main()
