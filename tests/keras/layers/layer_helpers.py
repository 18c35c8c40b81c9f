"""Checks shared by the layer tests: NumPy reference values eager and in tf.function,
finite-difference gradients w.r.t. inputs and weights, config round trips."""
import numpy as np

import tensorlet as tf


def rand(*shape, seed=0):
  return np.random.RandomState(seed).standard_normal(shape)


def check_values(layer, inputs, ref, rtol=1e-5, atol=1e-6, **call_kwargs):
  """`layer(inputs)` eagerly and inside tf.function equals `ref` (a NumPy array or a
  function of the layer, called after the layer is built)."""
  y = layer(inputs, **call_kwargs)
  want = ref(layer) if callable(ref) else ref
  np.testing.assert_allclose(np.asarray(y), want, rtol=rtol, atol=atol)
  traced = tf.function(lambda x: layer(x, **call_kwargs))(inputs)
  np.testing.assert_allclose(np.asarray(traced), want, rtol=rtol, atol=atol)
  return y


def check_layer_grads(layer, inputs, eps=1e-5, rtol=1e-4, atol=1e-6, seed=0, **call_kwargs):
  """Tape gradients of `sum(layer(x) * r)` w.r.t. the float inputs and the trainable
  weights match central differences in a random direction (float64 layers)."""
  flat = inputs if isinstance(inputs, (list, tuple)) else [inputs]
  xs = [np.asarray(x, np.float64) for x in flat]
  pack = (lambda v: list(v)) if isinstance(inputs, (list, tuple)) else (lambda v: v[0])
  layer(pack([tf.constant(x) for x in xs]), **call_kwargs)
  weights = layer.trainable_weights
  w0 = [w.numpy() for w in weights]
  r = np.random.RandomState(seed).standard_normal(
      np.shape(layer(pack([tf.constant(x) for x in xs]), **call_kwargs)))
  rng = np.random.RandomState(seed + 1)
  dx = [rng.standard_normal(x.shape) for x in xs]
  dw = [rng.standard_normal(w.shape) for w in w0]

  def objective(xv):
    return float(np.sum(np.asarray(layer(pack([tf.constant(x) for x in xv]),
                                          **call_kwargs)) * r))
  ts = [tf.constant(x) for x in xs]
  with tf.GradientTape() as tape:
    for t in ts:
      tape.watch(t)
    y = tf.reduce_sum(layer(pack(ts), **call_kwargs) * r)
  grads = tape.gradient(y, ts + list(weights))
  analytic = sum(float(np.sum(np.asarray(g) * d)) for g, d in zip(grads, dx + dw)
                 if g is not None)
  for w, a, d in zip(weights, w0, dw):
    w.assign(a + eps * d)
  plus = objective([x + eps * d for x, d in zip(xs, dx)])
  for w, a, d in zip(weights, w0, dw):
    w.assign(a - eps * d)
  minus = objective([x - eps * d for x, d in zip(xs, dx)])
  for w, a in zip(weights, w0):
    w.assign(a)
  numeric = (plus - minus) / (2 * eps)
  assert np.isclose(analytic, numeric, rtol=rtol, atol=atol), (analytic, numeric)


def check_config(layer):
  """`from_config(get_config())` gives a layer with the same config."""
  config = layer.get_config()
  clone = type(layer).from_config(config)
  assert clone.get_config() == config
  return clone
