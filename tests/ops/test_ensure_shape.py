"""PreventGradient's error; tf.ensure_shape traced with unknown dims: the output carries the merged static shape
and a mismatch found when the graph runs raises InvalidArgumentError (as TF)."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.ops import array_ops


def test_traced_ensure_shape_refines_and_checks_at_run_time():
  seen = []

  @tf.function(input_signature=[tf.TensorSpec([None, None, None], tf.float64)])
  def f(x):
    y = tf.ensure_shape(x, [2, None, 3])
    seen.append(y.shape.as_list())
    return y * 2

  np.testing.assert_array_equal(f(np.ones((2, 4, 3))).numpy(), np.full((2, 4, 3), 2.0))
  assert seen == [[2, None, 3]]
  with pytest.raises(tf.errors.InvalidArgumentError, match="EnsureShape"):
    f(np.ones((2, 4, 4)))


def test_ensure_shape_static_mismatch_and_gradient():
  with pytest.raises(tf.errors.InvalidArgumentError, match="not compatible"):
    tf.ensure_shape(tf.zeros([2, 3]), [3, 2])
  x = tf.constant(np.arange(6.0).reshape(2, 3))

  @tf.function(input_signature=[tf.TensorSpec(None, tf.float64)])
  def g(x):
    with tf.GradientTape() as tape:
      tape.watch(x)
      y = tf.reduce_sum(tf.ensure_shape(x, [2, 3]) ** 2)
    return tape.gradient(y, x)

  np.testing.assert_allclose(g(x).numpy(), 2 * x.numpy())


def test_prevent_gradient_raises_its_message():
  x = tf.constant([1.0, 2.0])
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = array_ops.PreventGradient(x, message="not here")
  with pytest.raises(LookupError, match="not here"):
    tape.gradient(y, x)
