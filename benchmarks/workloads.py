"""The workloads of /work/shared/BENCHMARKS.md, each beside its NumPy floor.

A workload is a function(repeat) yielding rows
(name, tensorlet_seconds, numpy_seconds, unit, target_text).
"""
import time

import numpy as np

import tensorlet as tf
from harness import time_pair


def w3_tiny_ops_eager(repeat):
  """W3: 1000 x (x * 1.0001 + 0.5) on 8 floats = 2000 tiny ops."""
  x0 = tf.random.uniform([8])
  xn = np.asarray(x0)

  def run_tl():
    x = x0
    for _ in range(1000):
      x = x * 1.0001 + 0.5
    return x

  def run_np():
    x = xn
    a, b = np.float32(1.0001), np.float32(0.5)
    for _ in range(1000):
      x = x * a + b
    return x
  tl, npy = time_pair(run_tl, run_np, repeat)
  yield ("W3 tiny ops, eager (per op)", tl / 2000, npy / 2000, "us", "<= 2 us/op")


def _w1_params():
  tf.random.set_seed(0)
  ws = [tf.Variable(tf.random.uniform([784, 64], -0.05, 0.05))]
  ws += [tf.Variable(tf.random.uniform([64, 64], -0.1, 0.1)) for _ in range(99)]
  bs = [tf.Variable(tf.zeros([64])) for _ in range(100)]
  wo = tf.Variable(tf.random.uniform([64, 10], -0.1, 0.1))
  bo = tf.Variable(tf.zeros([10]))
  return ws, bs, wo, bo


def w1_hand_eager(repeat):
  """W1 hand: flatten [20,28,28], 100 x Dense(64, relu), Dense(10), eager."""
  x = tf.random.uniform([20, 28, 28])
  model, model_np = _w1_hand(x)
  np.testing.assert_allclose(np.asarray(model(x)), model_np(), rtol=1e-4, atol=1e-5)
  tl, npy = time_pair(lambda: model(x), model_np, repeat)
  yield ("W1 hand, eager", tl, npy, "ms", "<= 2.0x")


def w3_tiny_ops_graph(repeat):
  """W3 under tf.function: the Python loop unrolls into 2000 graph ops."""
  _warm_tracing()
  x0 = tf.random.uniform([8])
  xn = np.asarray(x0)

  def body(x):
    for _ in range(1000):
      x = x * 1.0001 + 0.5
    return x
  f = tf.function(body)
  t = time.perf_counter()
  f(x0)
  trace = time.perf_counter() - t

  def run_np():
    x = xn
    a, b = np.float32(1.0001), np.float32(0.5)
    for _ in range(1000):
      x = x * a + b
    return x
  np.testing.assert_allclose(np.asarray(f(x0)), run_np(), rtol=1e-5)
  tl, npy = time_pair(lambda: f(x0), run_np, repeat)
  yield ("W3 tiny ops, tf.function (per op)", tl / 2000, npy / 2000, "us", "<= 0.5 us/op")
  yield ("W3 trace + first call (2000 ops)", trace, 0, "ms", "-")


def _w1_hand(x):
  ws, bs, wo, bo = _w1_params()

  def model(x):
    h = tf.reshape(x, [20, 784])
    for w, b in zip(ws, bs):
      h = tf.nn.relu(tf.matmul(h, w) + b)
    return tf.matmul(h, wo) + bo
  xn = np.asarray(x)
  wn = [np.asarray(w) for w in ws]
  bn = [np.asarray(b) for b in bs]
  won, bon = np.asarray(wo), np.asarray(bo)

  def model_np():
    h = xn.reshape(20, 784)
    for w, b in zip(wn, bn):
      h = np.maximum(h @ w + b, 0)
    return h @ won + bon
  return model, model_np


def _warm_tracing():
  """Traces a small function once so W6 measures tracing, not first imports."""
  @tf.function
  def warm(x):
    for _ in tf.range(2):
      x = tf.nn.relu(x) + 1.0
    return x
  warm(tf.ones([2]))


def w1_hand_graph(repeat):
  """W1 hand under tf.function, and W6's tracing cost for it."""
  _warm_tracing()
  x = tf.random.uniform([20, 28, 28])
  model, model_np = _w1_hand(x)
  f = tf.function(model)
  t = time.perf_counter()
  f(x)
  first = time.perf_counter() - t
  np.testing.assert_allclose(np.asarray(f(x)), model_np(), rtol=1e-4, atol=1e-5)
  tl, npy = time_pair(lambda: f(x), model_np, repeat)
  yield ("W1 hand, tf.function", tl, npy, "ms", "<= 1.0x")
  yield ("W6 trace W1 hand (first - steady)", first - tl, 0, "ms", "<= 50 ms")


def w1_hand_tape_around_function(repeat):
  """W1 hand as a tf.function called under an eager GradientTape (one call op:
  the compiled forward with intermediates, then the compiled gradient graph),
  gradient w.r.t. all 202 weights, beside the same forward+gradient traced as
  one tf.function (the second column here is that function, not NumPy)."""
  _warm_tracing()
  x = tf.random.uniform([20, 28, 28])
  ws, bs, wo, bo = _w1_params()
  weights = ws + bs + [wo, bo]

  def model(x):
    h = tf.reshape(x, [20, 784])
    for w, b in zip(ws, bs):
      h = tf.nn.relu(tf.matmul(h, w) + b)
    return tf.reduce_sum(tf.matmul(h, wo) + bo)
  f = tf.function(model)

  def tape_around():
    with tf.GradientTape() as tape:
      y = f(x)
    return tape.gradient(y, weights)

  @tf.function
  def one_function(x):
    with tf.GradientTape() as tape:
      y = model(x)
    return tape.gradient(y, weights)
  a, b = tape_around(), one_function(x)
  for ga, gb in zip(a, b):
    np.testing.assert_allclose(np.asarray(ga), np.asarray(gb), rtol=1e-4, atol=1e-6)
  tl, one = time_pair(tape_around, lambda: one_function(x), repeat)
  yield ("W1 hand, tape around tf.function", tl, one, "ms", "<= 1.3x of one tf.function")


def w2_matmul_chain(repeat):
  """W2: s = zeros_like(x) + x@y; 10 x (s = s + (s@y) * x), 1000x1000 float32."""
  x = tf.ones([1000, 1000])
  y = tf.ones([1000, 1000]) * 0.001

  def function_tf(x, y):
    s = tf.zeros_like(x, dtype=tf.float32)
    s = s + tf.matmul(x, y)
    for _ in range(10):
      s = s + tf.matmul(s, y) * x
    return s
  xn, yn = np.asarray(x), np.asarray(y)

  def function_np():
    s = np.zeros_like(xn)
    s = s + xn @ yn
    for _ in range(10):
      s = s + (s @ yn) * xn
    return s
  f = tf.function(function_tf)
  np.testing.assert_allclose(np.asarray(f(x, y)), function_np(), rtol=1e-4)
  rep = max(3, repeat // 3)
  tl, npy = time_pair(lambda: function_tf(x, y), function_np, rep, min_time=0.1)
  yield ("W2 matmul chain, eager", tl, npy, "ms", "<= 1.05x")
  tl, npy = time_pair(lambda: f(x, y), function_np, rep, min_time=0.1)
  yield ("W2 matmul chain, tf.function", tl, npy, "ms", "<= 1.02x")


def _w4_data():
  tf.random.set_seed(0)
  x = tf.random.uniform([32, 784])
  y = tf.random.uniform([32], maxval=10, dtype=tf.int32)
  w1 = tf.Variable(tf.random.uniform([784, 128], -0.05, 0.05))
  b1 = tf.Variable(tf.zeros([128]))
  w2 = tf.Variable(tf.random.uniform([128, 10], -0.1, 0.1))
  b2 = tf.Variable(tf.zeros([10]))
  return x, y, [w1, b1, w2, b2]


def _w4_numpy(x, y, params, update):
  """Hand-derived forward and backward of the W4 MLP; `update(ps, grads)` changes ps."""
  xn, yn = np.asarray(x), np.asarray(y)
  ps = [np.array(p) for p in params]
  n = xn.shape[0]
  onehot = np.zeros((n, 10), np.float32)
  onehot[np.arange(n), yn] = 1.0

  def step():
    w1, b1, w2, b2 = ps
    h = np.maximum(xn @ w1 + b1, 0)
    logits = h @ w2 + b2
    m = logits.max(axis=1, keepdims=True)
    e = np.exp(logits - m)
    s = e.sum(axis=1, keepdims=True)
    loss = np.mean(np.log(s[:, 0]) + m[:, 0] - logits[np.arange(n), yn])
    dlogits = (e / s - onehot) / n
    dh = (dlogits @ w2.T) * (h > 0)
    update(ps, [xn.T @ dh, dh.sum(axis=0), h.T @ dlogits, dlogits.sum(axis=0)])
    return loss
  return step


def _numpy_sgd(lr=0.01):
  def update(ps, grads):
    for i, g in enumerate(grads):
      ps[i] = ps[i] - lr * g
  return update


def _numpy_adam(params, lr=1e-3, b1=0.9, b2=0.999, eps=1e-7):
  """Keras' Adam: lr_t = lr * sqrt(1 - b2^t) / (1 - b1^t); p -= lr_t * m / (sqrt(v) + eps)."""
  ms = [np.zeros(p.shape, np.float32) for p in params]
  vs = [np.zeros(p.shape, np.float32) for p in params]
  t = [0]

  def update(ps, grads):
    t[0] += 1
    lr_t = np.float32(lr * np.sqrt(1 - b2 ** t[0]) / (1 - b1 ** t[0]))
    for i, g in enumerate(grads):
      ms[i] = b1 * ms[i] + (1 - b1) * g
      vs[i] = b2 * vs[i] + (1 - b2) * g * g
      ps[i] = ps[i] - lr_t * ms[i] / (np.sqrt(vs[i]) + eps)
  return update


def _w4_loss(params):
  w1, b1, w2, b2 = params

  def loss_fn(x, y):
    logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                         logits=logits))
  return loss_fn


def _w4_rows(name, train_batch, step_np, x, y, repeat, graph_target="<= 1.0x"):
  l_tl, l_np = float(train_batch(x, y)), float(step_np())
  assert abs(l_tl - l_np) < 1e-4, (l_tl, l_np)
  tl, npy = time_pair(lambda: train_batch(x, y), step_np, repeat)
  yield (f"W4 {name}, eager", tl, npy, "ms", "<= 2.5x")
  f = tf.function(train_batch)
  t = time.perf_counter()
  f(x, y)
  first = time.perf_counter() - t
  tl, npy = time_pair(lambda: f(x, y), step_np, repeat)
  yield (f"W4 {name}, tf.function", tl, npy, "ms", graph_target)
  yield (f"W6 trace W4 {name} (first - steady)", first - tl, 0, "ms", "<= 20 ms")


def w4_hand_sgd(repeat):
  """W4 hand_sgd: GradientTape forward/backward of a 784-128-10 MLP, p.assign_sub(0.01 * g)."""
  _warm_tracing()
  x, y, params = _w4_data()
  loss_fn = _w4_loss(params)

  def train_batch(x, y):
    with tf.GradientTape() as tape:
      loss = loss_fn(x, y)
    grads = tape.gradient(loss, params)
    for p, g in zip(params, grads):
      p.assign_sub(0.01 * g)
    return loss
  yield from _w4_rows("hand_sgd", train_batch, _w4_numpy(x, y, params, _numpy_sgd()), x, y,
                      repeat)


def w4_hand_adam(repeat):
  """W4 hand: the same MLP, tf.keras.optimizers.Adam(1e-3, 0.9, 0.999, 1e-7)."""
  _warm_tracing()
  x, y, params = _w4_data()
  loss_fn = _w4_loss(params)
  opt = tf.keras.optimizers.Adam(1e-3, beta_1=0.9, beta_2=0.999, epsilon=1e-7)

  def train_batch(x, y):
    with tf.GradientTape() as tape:
      loss = loss_fn(x, y)
    grads = tape.gradient(loss, params)
    opt.apply_gradients(zip(grads, params))
    return loss
  step_np = _w4_numpy(x, y, params, _numpy_adam([np.asarray(p) for p in params]))
  yield from _w4_rows("hand (Adam)", train_batch, step_np, x, y, repeat)


class _SequentialModel:
  """Seed 000's 100-layer model, verbatim (built lazily: tf.keras loads on first use)."""

  @staticmethod
  def make():
    class SequentialModel(tf.keras.Model):
      def __init__(self, **kwargs):
        super(SequentialModel, self).__init__(**kwargs)
        self.flatten = tf.keras.layers.Flatten(input_shape=(28, 28))
        # Add a lot of small layers
        num_layers = 100
        self.my_layers = [tf.keras.layers.Dense(64, activation="relu")
                          for n in range(num_layers)]
        self.dropout = tf.keras.layers.Dropout(0.2)
        self.dense_2 = tf.keras.layers.Dense(10)

      def call(self, x):
        x = self.flatten(x)
        for layer in self.my_layers:
          x = layer(x)
        x = self.dropout(x)
        x = self.dense_2(x)
        return x
    return SequentialModel()


def w1_keras(repeat):
  """W1 keras: the seed's SequentialModel, eager and as tf.function(model)."""
  _warm_tracing()
  tf.random.set_seed(0)
  x = tf.random.uniform([20, 28, 28])
  model = _SequentialModel.make()
  model(x)
  xn = np.asarray(x).reshape(20, 784)
  weights = [(np.asarray(layer.kernel), np.asarray(layer.bias)) for layer in model.my_layers]
  wo, bo = np.asarray(model.dense_2.kernel), np.asarray(model.dense_2.bias)

  def model_np():
    h = xn
    for w, b in weights:
      h = np.maximum(h @ w + b, 0)
    return h @ wo + bo
  np.testing.assert_allclose(np.asarray(model(x)), model_np(), rtol=1e-4, atol=1e-5)
  tl, npy = time_pair(lambda: model(x), model_np, repeat)
  yield ("W1 keras, eager", tl, npy, "ms", "<= 3.0x")
  f = tf.function(model)
  t = time.perf_counter()
  f(x)
  first = time.perf_counter() - t
  np.testing.assert_allclose(np.asarray(f(x)), model_np(), rtol=1e-4, atol=1e-5)
  tl, npy = time_pair(lambda: f(x), model_np, repeat)
  yield ("W1 keras, tf.function", tl, npy, "ms", "<= 1.2x")
  yield ("W6 trace W1 keras (first - steady)", first - tl, 0, "ms", "-")


def w4_keras(repeat):
  """W4 keras: Sequential([Dense(128, relu), Dense(10)]), SparseCategoricalCrossentropy, Adam."""
  _warm_tracing()
  x, y, params = _w4_data()
  model = tf.keras.Sequential([tf.keras.layers.Dense(128, activation="relu"),
                               tf.keras.layers.Dense(10)])
  model(x)
  for var, p in zip(model.trainable_variables, params):
    var.assign(p)  # the same starting point as the NumPy floor
  from w7_common import keras_train_step
  train_batch = keras_train_step(
      tf, model, tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
      tf.keras.optimizers.Adam(1e-3, beta_1=0.9, beta_2=0.999, epsilon=1e-7))
  step_np = _w4_numpy(x, y, params, _numpy_adam([np.asarray(p) for p in params]))
  yield from _w4_rows("keras", train_batch, step_np, x, y, repeat, "<= 1.2x")


def w5_conv(repeat):
  """W5: [1, 200, 200, 100] NHWC, 100 filters 3x3, VALID, + bias: tf.nn.conv2d and Keras."""
  tf.random.set_seed(0)
  x = tf.random.uniform([1, 200, 200, 100])
  w = tf.Variable(tf.random.uniform([3, 3, 100, 100], -0.05, 0.05))
  b = tf.Variable(tf.zeros([100]))
  xn, wn, bn = np.asarray(x), np.asarray(w), np.asarray(b)

  def conv_np():  # im2col: sliding windows, one reshape-copy, one sgemm
    cols = np.lib.stride_tricks.sliding_window_view(xn[0], (3, 3), axis=(0, 1))
    cols = cols.transpose(0, 1, 3, 4, 2).reshape(198 * 198, 900)
    return (cols @ wn.reshape(900, 100) + bn).reshape(1, 198, 198, 100)

  def conv_tl(x):
    return tf.nn.conv2d(x, w, 1, "VALID") + b
  np.testing.assert_allclose(np.asarray(conv_tl(x)), conv_np(), rtol=1e-4, atol=1e-4)
  rep = max(3, repeat // 3)
  tl, npy = time_pair(lambda: conv_tl(x), conv_np, rep, min_time=0.1)
  yield ("W5 conv2d, eager", tl, npy, "ms", "<= TF graph (38.8 ms there)")
  f = tf.function(conv_tl)
  f(x)
  tl, npy = time_pair(lambda: f(x), conv_np, rep, min_time=0.1)
  yield ("W5 conv2d, tf.function", tl, npy, "ms", "<= TF graph (38.8 ms there)")
  layer = tf.keras.layers.Conv2D(100, 3)
  layer(x)
  layer.kernel.assign(w)
  tl, npy = time_pair(lambda: layer(x), conv_np, rep, min_time=0.1)
  yield ("W5 keras Conv2D, eager", tl, npy, "ms", "<= TF graph (38.8 ms there)")


def w3_tiny_ops_while(repeat):
  """W3 variant: `for _ in tf.range(1000)` in tf.function (one while_loop of tiny ops)."""
  x0 = tf.random.uniform([8])
  xn = np.asarray(x0)

  @tf.function
  def f(x):
    for _ in tf.range(1000):
      x = x * 1.0001 + 0.5
    return x

  def run_np():
    x = xn
    a, b = np.float32(1.0001), np.float32(0.5)
    for _ in range(1000):
      x = x * a + b
    return x
  np.testing.assert_allclose(np.asarray(f(x0)), run_np(), rtol=1e-5)
  tl, npy = time_pair(lambda: f(x0), run_np, repeat)
  yield ("W3 tf.range loop (per iteration)", tl / 1000, npy / 1000, "us", "<= 2x NumPy loop")


def w4_call_with_variables(repeat):
  """The call overhead of a tf.function given W4's tensors and its 4 weights (tf.Variables)
  as arguments, against one given the tensors only (the same tiny graph)."""
  _warm_tracing()
  x, y, params = _w4_data()
  f = tf.function(lambda x, y, w1, b1, w2, b2: x[0, 0] + 1.0)
  g = tf.function(lambda x, y: x[0, 0] + 1.0)
  f(x, y, *params)
  g(x, y)
  tl, npy = time_pair(lambda: f(x, y, *params), lambda: g(x, y), repeat)
  yield ("tf.function call, + 4 Variable args", tl, npy, "us", "-")


ALL = [
    ("w3_eager", w3_tiny_ops_eager),
    ("w3_graph", w3_tiny_ops_graph),
    ("w1_hand_eager", w1_hand_eager),
    ("w1_hand_graph", w1_hand_graph),
    ("w1_hand_tape_function", w1_hand_tape_around_function),
    ("w3_while", w3_tiny_ops_while),
    ("w4_hand_sgd", w4_hand_sgd),
    ("w4_hand_adam", w4_hand_adam),
    ("w1_keras", w1_keras),
    ("w4_keras", w4_keras),
    ("w4_call_variables", w4_call_with_variables),
    ("w2", w2_matmul_chain),
    ("w5", w5_conv),
]
ALL += __import__("workloads_seq").ALL  # LSTM and Transformer training steps
ALL += __import__("workloads_loop").ALL  # while_loop machinery per iteration
ALL += __import__("workloads_conv").ALL  # convolution training kernels
ALL += __import__("workloads_w7").ALL  # MNIST convnet step, demo fit epoch
ALL += __import__("thread_cliff").ALL  # default vs one BLAS thread vs no policy

from io_workloads import tfrecord_parse_example  # noqa: E402

ALL.append(("tfrecord_parse_example", tfrecord_parse_example))
ALL += __import__("workloads_augment").ALL  # Keras image augmentation layers
ALL += __import__("workloads_sparse").ALL  # IndexedSlices embedding steps
