"""The seed models as tf.Modules with tf.function methods (shared by the saved model
and ONNX tests). A loading process must never need this file."""
import numpy as np

import tensorlet as tf


def _init(shape, rng):
  return tf.Variable(rng.normal(0, 1 / np.sqrt(shape[0]), shape).astype(np.float32))


class Mlp100(tf.Module):
  """Seed 000's SequentialModel: flatten, 100 Dense(64, relu), Dense(10)."""

  def __init__(self, width=64, depth=100):
    super().__init__()
    rng = np.random.default_rng(0)
    self.first = _init([28 * 28, width], rng)
    self.kernels = [_init([width, width], rng) for _ in range(depth)]
    self.biases = [tf.Variable(np.full([width], 0.01, np.float32)) for _ in range(depth)]
    self.out = _init([width, 10], rng)

  @tf.function(input_signature=[tf.TensorSpec([None, 28, 28], tf.float32)])
  def __call__(self, x):
    x = tf.matmul(tf.reshape(x, [-1, 28 * 28]), self.first)
    for k, b in zip(self.kernels, self.biases):
      x = tf.nn.relu(tf.matmul(x, k) + b)
    return tf.matmul(x, self.out)


class ConvNet(tf.Module):
  """An MNIST-style convnet: conv/relu, max pool, conv/relu, global mean, dense."""

  def __init__(self):
    super().__init__()
    rng = np.random.default_rng(1)
    self.k1 = tf.Variable(rng.normal(0, 0.3, [3, 3, 1, 8]).astype(np.float32))
    self.k2 = tf.Variable(rng.normal(0, 0.3, [3, 3, 8, 8]).astype(np.float32))
    self.b2 = tf.Variable(np.full([8], 0.1, np.float32))
    self.dense = _init([8, 10], rng)

  @tf.function(input_signature=[tf.TensorSpec([None, 12, 12, 1], tf.float32)])
  def __call__(self, x):
    x = tf.nn.relu(tf.nn.conv2d(x, self.k1, strides=1, padding="SAME"))
    x = tf.nn.max_pool2d(x, ksize=2, strides=2, padding="VALID")
    x = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, self.k2, strides=1, padding="VALID"),
                                  self.b2))
    return tf.nn.softmax(tf.matmul(tf.reduce_mean(x, axis=[1, 2]), self.dense))


class Looper(tf.Module):
  """A function with tf.cond and tf.while_loop (AutoGraph converts the Python ones)."""

  def __init__(self):
    super().__init__()
    self.scale = tf.Variable([1.5, -0.5, 2.0])

  @tf.function(input_signature=[tf.TensorSpec([3], tf.float32), tf.TensorSpec([], tf.int32)])
  def __call__(self, x, n):
    if tf.reduce_sum(x) > 0:
      y = x * self.scale
    else:
      y = x - self.scale
    i = tf.constant(0)
    while i < n:
      y = tf.tanh(y) * self.scale + 0.5
      i += 1
    return y


def inputs():
  rng = np.random.default_rng(2)
  return {"mlp": rng.normal(size=[2, 28, 28]).astype(np.float32),
          "conv": rng.normal(size=[2, 12, 12, 1]).astype(np.float32),
          "loop": (np.array([0.5, -0.25, 1.0], np.float32), np.int32(3))}
