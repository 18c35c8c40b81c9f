"""tf.sparse.split, softmax, eye, map_values and reset_shape: values against NumPy,
errors, tf.function and gradients (expectations checked against TensorFlow 2.21)."""
import numpy as np
import pytest

import tensorlet as tf
from gradcheck import check_grads


def st():
  return tf.sparse.SparseTensor([[0, 1], [1, 0], [1, 2]], [1.0, -2.0, 3.0], [2, 3])


def parts(s):
  return s.indices.numpy().tolist(), s.values.numpy().tolist(), s.dense_shape.numpy().tolist()


def test_split_gives_the_first_pieces_the_extra_columns():
  a, b = tf.sparse.split(sp_input=st(), num_split=2, axis=1)
  assert parts(a) == ([[0, 1], [1, 0]], [1.0, -2.0], [2, 2])
  assert parts(b) == ([[1, 0]], [3.0], [2, 1])
  rows = tf.sparse.split(sp_input=st(), num_split=2, axis=0)
  assert [parts(r) for r in rows] == [([[0, 1]], [1.0], [1, 3]),
                                      ([[0, 0], [0, 2]], [-2.0, 3.0], [1, 3])]
  dense = tf.sparse.to_dense(st()).numpy()
  got = np.concatenate([tf.sparse.to_dense(p).numpy()
                        for p in tf.sparse.split(sp_input=st(), num_split=3, axis=-1)], 1)
  np.testing.assert_array_equal(got, dense)
  assert parts(tf.sparse.split(st(), 2, 1)[1]) == ([[1, 0]], [3.0], [2, 1])
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.sparse.split(sp_input=st(), num_split=2, axis=2)


def test_softmax_over_present_entries():
  s = tf.sparse.SparseTensor([[0, 0], [0, 2], [1, 1], [2, 0], [2, 1]],
                             [1.0, 2.0, 3.0, 4.0, 4.0], [3, 3])
  out = tf.sparse.softmax(s)
  e = np.exp([1.0, 2.0])
  np.testing.assert_allclose(out.values.numpy(), list(e / e.sum()) + [1.0, 0.5, 0.5],
                             rtol=1e-6)
  assert out.indices.numpy().tolist() == s.indices.numpy().tolist()
  s3 = tf.sparse.SparseTensor([[0, 0, 0], [0, 0, 1], [1, 0, 0]], [0.0, 1.0, 5.0], [2, 1, 2])
  e = np.exp([0.0, 1.0])
  np.testing.assert_allclose(tf.sparse.softmax(s3).values.numpy(), list(e / e.sum()) + [1.0],
                             rtol=1e-6)
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.sparse.softmax(tf.sparse.SparseTensor([[0]], [1.0], [2]))


def test_softmax_gradient_and_tf_function():
  idx = [[0, 0], [0, 2], [1, 1]]

  def f(v):
    return tf.sparse.softmax(tf.sparse.SparseTensor(idx, v, [2, 3])).values * \
        tf.constant([1.0, 2.0, 3.0], tf.float64)
  check_grads(f, [tf.constant([0.5, -1.0, 2.0], tf.float64)])
  g = tf.function(lambda s: tf.sparse.softmax(s).values)
  np.testing.assert_allclose(g(st()).numpy(), [1.0, 1 / (1 + np.exp(5.0)),
                                               1 / (1 + np.exp(-5.0))], rtol=1e-6)


def test_eye():
  e = tf.sparse.eye(2, 3, dtype=tf.int32)
  assert parts(e) == ([[0, 0], [1, 1]], [1, 1], [2, 3]) and e.dtype == tf.int32
  np.testing.assert_array_equal(tf.sparse.to_dense(tf.sparse.eye(3)).numpy(), np.eye(3))


def test_map_values():
  assert parts(tf.sparse.map_values(tf.add, st(), st()))[1] == [2.0, -4.0, 6.0]
  assert parts(tf.sparse.map_values(tf.add, st(), 1.0))[1] == [2.0, -1.0, 4.0]
  assert parts(tf.sparse.map_values(tf.math.square, st()))[1] == [1.0, 4.0, 9.0]
  other = tf.sparse.SparseTensor([[0, 0], [1, 0], [1, 2]], [1.0, 1.0, 1.0], [2, 3])
  with pytest.raises(tf.errors.InvalidArgumentError, match="indices"):
    tf.sparse.map_values(tf.add, st(), other)
  with pytest.raises(ValueError, match="No SparseTensor"):
    tf.sparse.map_values(tf.add, 1.0, 2.0)


def test_reset_shape():
  assert parts(tf.sparse.reset_shape(st(), [3, 4]))[2] == [3, 4]
  tight = tf.sparse.SparseTensor([[0, 1], [1, 0]], [1.0, 2.0], [5, 7])
  assert parts(tf.sparse.reset_shape(tight))[2] == [2, 2]
  with pytest.raises(ValueError, match="dimension sizes >="):
    tf.sparse.reset_shape(st(), [1, 4])
