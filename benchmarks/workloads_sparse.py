"""Sparse (IndexedSlices) training steps beside a hand-written NumPy floor: a
100000 x 128 embedding table, 2048 looked-up ids (repeats included), loss
sum(rows^2), one optimizer step as a tf.function. Keras 2 updates only the looked-up
rows for SGD and Adagrad; the floor sums repeated rows and updates those rows in place.
Real TF 2.21 (tf_keras, one thread, CPU time, 2026-11-25): SGD 143.5 ms (its SGD keeps a
dense momentum slot even at momentum 0), Adagrad 3.75 ms."""
import numpy as np

import tensorlet as tf
from harness import time_pair

ROWS, DIM, IDS, LR, EPS = 100000, 128, 2048, 0.1, 1e-7


def _numpy_step(table, ids, acc):
  order = np.argsort(ids, kind="stable")
  s = ids[order]
  first = np.flatnonzero(np.concatenate([[True], s[1:] != s[:-1]]))
  uniq = s[first]
  g = np.add.reduceat(2.0 * table[s], first, axis=0)  # repeated rows summed in order
  if acc is None:
    table[uniq] -= np.float32(LR) * g
  else:
    acc[uniq] += g * g
    table[uniq] -= np.float32(LR) * g / np.sqrt(acc[uniq] + np.float32(EPS))


def embedding_step(name, make_opt, adagrad):
  def workload(repeat):
    rng = np.random.RandomState(0)
    start = rng.standard_normal((ROWS, DIM)).astype(np.float32)
    ids = rng.randint(0, ROWS, IDS)
    emb, opt = tf.Variable(start), make_opt()

    @tf.function
    def step(i):
      with tf.GradientTape() as t:
        loss = tf.reduce_sum(tf.gather(emb, i) ** 2)
      opt.apply_gradients([(t.gradient(loss, emb), emb)])
      return loss
    table, acc = start.copy(), np.full((ROWS, DIM), 0.1, np.float32) if adagrad else None
    step(tf.constant(ids))
    _numpy_step(table, ids, acc)
    np.testing.assert_allclose(emb.numpy(), table, rtol=1e-5, atol=1e-6)
    idt = tf.constant(ids)
    tl, npy = time_pair(lambda: step(idt), lambda: _numpy_step(table, ids, acc), repeat)
    yield (f"embedding 100000x128 {name} step, graph", tl, npy, "ms", "<= TF graph")
  return workload


ALL = [("sparse_sgd", embedding_step("SGD", lambda: tf.keras.optimizers.SGD(LR), False)),
       ("sparse_adagrad", embedding_step(
           "Adagrad", lambda: tf.keras.optimizers.Adagrad(LR, epsilon=EPS), True))]
