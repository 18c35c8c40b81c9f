"""Variables never change shape through assignment, eagerly or in graphs whose
input shapes are unknown at trace time (TF checks in the kernel)."""
import numpy as np
import pytest

import tensorlet as tf

SHAPELESS = [tf.TensorSpec(None, tf.float32)]


@pytest.mark.parametrize("value", [np.float32(1), np.zeros([4, 5], np.float32),
                                   np.zeros([0], np.float32)])
def test_assign_of_another_shape_in_a_graph_is_invalid_argument(value):
  v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
  f = tf.function(lambda x: v.assign(x).read_value(), input_signature=SHAPELESS)
  with pytest.raises(tf.errors.InvalidArgumentError,
                     match=r"wrong shape. Expected \[2,3\] got \["):
    f(tf.constant(value))
  np.testing.assert_array_equal(v.numpy(), np.arange(6).reshape(2, 3))
  assert v.shape == (2, 3)


@pytest.mark.parametrize("method", ["assign_add", "assign_sub"])
def test_update_of_another_shape_in_a_graph_is_invalid_argument(method):
  v = tf.Variable(np.ones([2, 3], np.float32))
  f = tf.function(lambda x: getattr(v, method)(x).read_value(), input_signature=SHAPELESS)
  with pytest.raises(tf.errors.InvalidArgumentError,
                     match=r"Cannot update variable with shape \[2,3\] using a Tensor with "
                     r"shape \[\], shapes must be equal"):
    f(tf.constant(5.0))    # would broadcast in NumPy
  np.testing.assert_array_equal(v.numpy(), np.ones([2, 3]))
  np.testing.assert_array_equal(f(tf.ones([2, 3])).numpy(),
                                np.full([2, 3], 2.0 if method == "assign_add" else 0.0))


def test_a_variable_declared_shapeless_takes_any_shape():
  w = tf.Variable(tf.zeros([2, 3]), shape=tf.TensorShape(None))
  f = tf.function(lambda x: w.assign(x).read_value(), input_signature=SHAPELESS)
  assert f(tf.zeros([4])).shape == (4,)
  assert w.numpy().shape == (4,)
