"""Gradient ops built in a graph sit under `gradient_tape/<forward op>/` (TF's
layout), so TensorBoard's op graph groups them apart from the model."""
import numpy as np

import tensorlet as tf


def test_gradient_ops_are_under_gradient_tape_scopes():
  v = tf.Variable(2.0)

  @tf.function
  def f(x):
    with tf.GradientTape() as t:
      with tf.name_scope("model"):
        y = tf.reduce_sum(x * v)
    return t.gradient(y, v)
  x = tf.constant([1.0, 2.0])
  cf = f.get_concrete_function(x)
  names = [op.name for op in cf.graph.get_operations()]
  grad_ops = [n for n in names if n.startswith("gradient_tape/")]
  assert any(n.startswith("gradient_tape/model/Sum/") for n in grad_ops)
  assert any(n.startswith("gradient_tape/model/mul/") for n in grad_ops)
  forward = [n for n in names if n.startswith("model/")]
  assert forward and not any("gradient_tape" in n for n in forward)
  np.testing.assert_allclose(f(x).numpy(), 3.0)

