"""tf.sets on dense and sparse sets (values checked against TensorFlow 2.21)."""
import numpy as np
import pytest

import tensorlet as tf

A = tf.constant([[1, 2, 2, 3], [4, 5, 6, 6]])
B = tf.constant([[2, 3, 7, 7], [4, 4, 9, 9]])


def parts(s):
  return s.indices.numpy().tolist(), s.values.numpy().tolist(), s.dense_shape.numpy().tolist()


def test_dense_set_operations():
  assert parts(tf.sets.intersection(A, B)) == ([[0, 0], [0, 1], [1, 0]], [2, 3, 4], [2, 2])
  assert parts(tf.sets.union(A, B))[1] == [1, 2, 3, 7, 4, 5, 6, 9]
  assert parts(tf.sets.union(A, B))[2] == [2, 4]
  assert parts(tf.sets.difference(A, B)) == ([[0, 0], [1, 0], [1, 1]], [1, 5, 6], [2, 2])
  assert parts(tf.sets.difference(A, B, aminusb=False))[1] == [7, 9]
  assert parts(tf.sets.intersection([[1, 2]], [[3, 4]])) == ([], [], [1, 0])
  assert tf.sets.union([["a", "b"]], [["b", "c"]]).values.numpy().tolist() == [b"a", b"b",
                                                                               b"c"]


def test_sparse_sets_and_size():
  s = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [3, 1, 5], [2, 3])
  assert parts(tf.sets.union(A, s))[1] == [1, 2, 3, 4, 5, 6]
  np.testing.assert_array_equal(tf.sets.size(s).numpy(), [2, 1])
  assert tf.sets.size(s).dtype == tf.int32
  with pytest.raises(TypeError, match="SparseTensor"):
    tf.sets.size(A)


def test_set_errors():
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.sets.union(A, tf.constant([[1, 2]]))
  with pytest.raises(TypeError):
    tf.sets.union(A, tf.constant([[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]]))
  with pytest.raises(ValueError):
    tf.sets.union(tf.constant([1, 2]), tf.constant([1, 2]))


def test_sets_inside_tf_function():
  f = tf.function(lambda a, b: tf.sets.intersection(a, b))
  assert parts(f(A, B)) == ([[0, 0], [0, 1], [1, 0]], [2, 3, 4], [2, 2])
