"""Finite-difference gradient checks shared by the op tests.

`check_grads(f, args)` compares the tape gradient of `sum(f(*args) * r)` for a
random `r` against central differences in a random direction (inner-product
form, as autograd/JAX do); `order=2` also checks the gradient of the
gradient.
"""
import numpy as np

import tensorlet as tf


def _scalarize(f, r_seed):
  def g(*xs):
    y = f(*xs)
    rng = np.random.RandomState(r_seed)
    r = rng.standard_normal(np.shape(y)).astype(np.float64)
    return tf.reduce_sum(tf.cast(y, tf.float64) * r)
  return g


def numeric_directional(f, args, direction, eps):
  plus = [tf.constant(a + eps * d) for a, d in zip(args, direction)]
  minus = [tf.constant(a - eps * d) for a, d in zip(args, direction)]
  return (float(f(*plus)) - float(f(*minus))) / (2 * eps)


def dense(g):
  """A gradient as a tensor (gathers give IndexedSlices, as in TF)."""
  return tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g


def tape_grads(f, args):
  ts = [tf.constant(a) for a in args]
  with tf.GradientTape() as tape:
    for t in ts:
      tape.watch(t)
    y = f(*ts)
  return [None if g is None else np.asarray(dense(g), dtype=np.float64)
          for g in tape.gradient(y, ts)]


def check_grads(f, args, order=1, eps=1e-4, rtol=1e-3, atol=1e-4, seed=0):
  """Asserts tape gradients of `f` match central differences (float64 inputs)."""
  args = [np.asarray(a, dtype=np.float64) for a in args]
  g = _scalarize(f, seed)
  rng = np.random.RandomState(seed + 1)
  direction = [rng.standard_normal(a.shape) for a in args]
  grads = tape_grads(g, args)
  analytic = sum(float(np.sum(gr * d)) for gr, d in zip(grads, direction) if gr is not None)
  numeric = numeric_directional(g, args, direction, eps)
  assert np.isclose(analytic, numeric, rtol=rtol, atol=atol), \
      f"gradient mismatch: tape {analytic} vs finite differences {numeric}"
  if order >= 2:
    def first(*xs):
      with tf.GradientTape() as t:
        for x in xs:
          t.watch(x)
        y = g(*xs)
      gs = t.gradient(y, list(xs))
      return tf.add_n([tf.reduce_sum(dense(gi) * di) for gi, di in zip(gs, direction)
                       if gi is not None])
    check_grads(first, args, order=order - 1, eps=eps, rtol=rtol * 10, atol=atol * 10,
                seed=seed + 2)
