"""tf.saved_model with RaggedTensor and SparseTensor arguments and results: the
specs are saved as data and the loaded functions take and return composites."""
import numpy as np

import tensorlet as tf


class M(tf.Module):

  @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.float32)])
  def rows(self, x):
    return tf.reduce_sum(x, axis=1), x * 2.0

  @tf.function(input_signature=[tf.SparseTensorSpec([None, 3], tf.float32)])
  def sparse(self, s):
    return tf.sparse.to_dense(s), tf.sparse.transpose(s)


def test_ragged_and_sparse_functions_round_trip(tmp_path):
  tf.saved_model.save(M(), str(tmp_path / "m"))
  loaded = tf.saved_model.load(str(tmp_path / "m"))
  total, doubled = loaded.rows(tf.ragged.constant([[1.0, 2.0], [], [3.0]]))
  np.testing.assert_array_equal(total.numpy(), [3.0, 0.0, 3.0])
  assert isinstance(doubled, tf.RaggedTensor)
  assert doubled.to_list() == [[2.0, 4.0], [], [6.0]]
  d, t = loaded.sparse(tf.SparseTensor([[0, 1]], [2.0], [2, 3]))
  np.testing.assert_array_equal(d.numpy(), [[0, 2, 0], [0, 0, 0]])
  assert isinstance(t, tf.SparseTensor)
  np.testing.assert_array_equal(t.indices.numpy(), [[1, 0]])
  cf = loaded.rows.concrete_functions[0]
  assert cf.structured_input_signature[0] == (tf.RaggedTensorSpec([None, None], tf.float32),)


def test_function_with_ragged_argument_called_inside_another_function():
  @tf.function
  def inner(x):
    return tf.reduce_max(x, axis=1)

  @tf.function
  def outer(x):
    return inner(x) + 1.0
  np.testing.assert_array_equal(outer(tf.ragged.constant([[1.0, 5.0], [2.0]])).numpy(),
                                [6.0, 3.0])
