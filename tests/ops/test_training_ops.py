"""Fused optimizer update ops: in-place writes, snapshots, graphs, errors."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.ops import training_ops as T
from tensorlet.ops.registry import execute


def test_gradient_descent_writes_in_place_when_unshared():
  v = tf.Variable(np.arange(6, dtype=np.float32))
  address = v._value.__array_interface__["data"][0]
  execute(T.ResourceApplyGradientDescent, [v.handle, tf.constant(0.5), tf.ones([6])])
  # nothing else held the array: updated in place
  assert v._value.__array_interface__["data"][0] == address
  np.testing.assert_array_equal(v.numpy(), np.arange(6) - 0.5)


def test_shared_array_is_copied_so_reads_keep_their_values():
  v = tf.Variable([1.0, 2.0])
  m = tf.Variable([0.0, 0.0])
  read = v.read_value()
  execute(T.ResourceApplyKerasMomentum, [v.handle, m.handle, tf.constant(1.0),
                                         tf.constant([1.0, 1.0])],
          {"momentum": 0.5, "use_nesterov": False})
  np.testing.assert_array_equal(read.numpy(), [1.0, 2.0])
  np.testing.assert_array_equal(v.numpy(), [0.0, 1.0])
  np.testing.assert_array_equal(m.numpy(), [-1.0, -1.0])


def test_adam_in_a_graph_is_one_node_per_variable():
  from tensorlet.keras import optimizers
  opt = optimizers.Adam()
  vs = [tf.Variable(tf.ones([3, 2])), tf.Variable(tf.zeros([2]))]

  @tf.function
  def step(g1, g2):
    opt.apply_gradients([(g1, vs[0]), (g2, vs[1])])
  cf = step.get_concrete_function(tf.ones([3, 2]), tf.ones([2]))
  types = [o.type for o in cf.graph.get_operations()]
  assert types.count("ResourceApplyKerasAdam") == 2
  assert len([t for t in types if t not in ("Placeholder",)]) <= 4
  step(tf.ones([3, 2]), tf.ones([2]))
  assert opt.iterations.numpy() == 1
  np.testing.assert_allclose(vs[1].numpy(), [-0.001, -0.001], rtol=1e-4)


def test_adagrad_and_rmsprop_kernels():
  v, acc = tf.Variable([1.0]), tf.Variable([0.1])
  execute(T.ResourceApplyKerasAdagrad, [v.handle, acc.handle, tf.constant(0.1),
                                        tf.constant([2.0])], {"epsilon": 1e-7})
  np.testing.assert_allclose(acc.numpy(), [4.1])
  np.testing.assert_allclose(v.numpy(), [1.0 - 0.2 / np.sqrt(4.1 + 1e-7)], rtol=1e-6)
  v, ms = tf.Variable([1.0]), tf.Variable([0.0])
  execute(T.ResourceApplyKerasRMSProp, [v.handle, ms.handle, tf.constant(0.1),
                                        tf.constant([2.0])],
          {"rho": 0.9, "momentum": 0.0, "epsilon": 1e-7, "centered": False})
  np.testing.assert_allclose(ms.numpy(), [0.4], rtol=1e-6)
  np.testing.assert_allclose(v.numpy(), [1.0 - 0.2 / np.sqrt(0.4 + 1e-7)], rtol=1e-6)


def test_errors_name_the_op():
  v = tf.Variable([1.0, 2.0])
  with pytest.raises(tf.errors.InvalidArgumentError,
                     match=r"same shape \[2\] \[3\] \[Op:ResourceApplyGradientDescent\]"):
    execute(T.ResourceApplyGradientDescent, [v.handle, tf.constant(0.5), tf.ones([3])])
  with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T'"):
    execute(T.ResourceApplyGradientDescent, [tf.constant([1.0]), tf.constant(0.5),
                                             tf.ones([1])])
  np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
