"""tf.map_fn / tf.scan over SparseTensor rows and with SparseTensorSpec /
RaggedTensorSpec results: values against NumPy, TF's mismatch error, one While
node inside tf.function, and gradients through the values (expectations
checked against TensorFlow 2.21)."""
import numpy as np
import pytest

import tensorlet as tf
from gradcheck import check_grads

DENSE = np.array([[1.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 3.0, 0.0, 0.0]],
                 np.float32)


def sp():
  return tf.sparse.SparseTensor([[0, 0], [0, 2], [2, 1]], [1.0, 2.0, 3.0], [3, 4])


def test_rows_are_sparse_tensors_of_one_rank_less():
  seen = []

  def fn(x):
    seen.append((type(x).__name__, x.shape.as_list(), x.dense_shape.numpy().tolist()))
    return tf.sparse.reduce_sum(x)
  out = tf.map_fn(fn, sp(), fn_output_signature=tf.float32)
  np.testing.assert_array_equal(out.numpy(), DENSE.sum(1))
  assert seen[0] == ("SparseTensor", [4], [4])
  dense_rows = tf.map_fn(tf.sparse.to_dense, sp(), fn_output_signature=tf.float32)
  np.testing.assert_array_equal(dense_rows.numpy(), DENSE)


def test_unordered_entries_are_refused_as_tf():
  s = tf.sparse.SparseTensor([[2, 1], [0, 2], [0, 0]], [3.0, 2.0, 1.0], [3, 4])
  with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = \[0,2\] is out "
                                                           r"of order"):
    tf.map_fn(tf.sparse.to_dense, s, fn_output_signature=tf.float32)
  rows = tf.map_fn(tf.sparse.to_dense, tf.sparse.reorder(s), fn_output_signature=tf.float32)
  np.testing.assert_array_equal(rows.numpy(), DENSE)


def test_sparse_results_are_stacked():
  r = tf.map_fn(lambda x: x * 2.0, sp())
  assert isinstance(r, tf.SparseTensor)
  assert r.indices.numpy().tolist() == [[0, 0], [0, 2], [2, 1]]
  assert r.values.numpy().tolist() == [2.0, 4.0, 6.0]
  assert r.dense_shape.numpy().tolist() == [3, 4]
  r = tf.map_fn(lambda x: x * 2.0, sp(),
                fn_output_signature=tf.SparseTensorSpec([4], tf.float32))
  np.testing.assert_array_equal(tf.sparse.to_dense(r).numpy(), DENSE * 2)
  made = tf.map_fn(tf.sparse.from_dense, tf.constant([[1.0, 0.0], [0.0, 0.0]]),
                   fn_output_signature=tf.SparseTensorSpec(None, tf.float32))
  assert made.indices.numpy().tolist() == [[0, 0]]
  assert made.dense_shape.numpy().tolist() == [2, 2]
  s3 = tf.sparse.SparseTensor([[0, 0, 1], [1, 1, 0]], [1, 2], [2, 2, 2])
  same = tf.map_fn(lambda x: x, s3)
  assert same.dense_shape.numpy().tolist() == [2, 2, 2]
  assert same.indices.numpy().tolist() == [[0, 0, 1], [1, 1, 0]]
  np.testing.assert_array_equal(
      tf.map_fn(tf.sparse.to_dense, s3, fn_output_signature=tf.int32).numpy(),
      [[[0, 1], [0, 0]], [[0, 0], [2, 0]]])


def test_mixed_dense_and_sparse_results():
  d, s = tf.map_fn(lambda x: (x, tf.sparse.from_dense(x)), tf.constant([[1, 0], [0, 4]]),
                   fn_output_signature=(tf.int32, tf.SparseTensorSpec([2], tf.int32)))
  assert d.numpy().tolist() == [[1, 0], [0, 4]]
  assert s.indices.numpy().tolist() == [[0, 0], [1, 1]] and s.values.numpy().tolist() == [1, 4]


def test_result_not_matching_the_signature_is_tf_value_error():
  with pytest.raises(ValueError, match=r"Error in map_fn:\n  Expected `fn` to return a:\n"
                                       r"    SparseTensorSpec\(TensorShape\(None\), tf.float32\)"
                                       r"\n  But it returned a:\n    TensorSpec\(shape=\(\), "):
    tf.map_fn(tf.sparse.reduce_sum, sp())
  with pytest.raises(ValueError):
    tf.map_fn(lambda x: x, sp(), fn_output_signature=tf.float32)


def test_in_tf_function_one_while_loop():
  @tf.function
  def f(s):
    return tf.map_fn(tf.sparse.reduce_sum, s, fn_output_signature=tf.float32), \
        tf.map_fn(lambda x: x * 3.0, s)
  sums, tripled = f(sp())
  np.testing.assert_array_equal(sums.numpy(), DENSE.sum(1))
  np.testing.assert_array_equal(tf.sparse.to_dense(tripled).numpy(), DENSE * 3)
  ops = [o.type for o in f.get_concrete_function(sp()).graph.get_operations()]
  assert ops.count("While") == 2
  other = tf.sparse.SparseTensor([[1, 3]], [5.0], [2, 4])
  np.testing.assert_array_equal(f(other)[0].numpy(), [0.0, 5.0])


def test_gradient_through_sparse_rows():
  idx = [[0, 0], [0, 2], [2, 1]]

  def f(v):
    s = tf.sparse.SparseTensor(idx, v, [3, 4])
    w = tf.constant([1.0, -2.0, 3.0], tf.float64)
    sums = tf.map_fn(lambda x: tf.reduce_sum(tf.square(x.values)), s,
                     fn_output_signature=tf.float64)
    return sums * w
  check_grads(f, [tf.constant([1.0, 2.0, 3.0], tf.float64)])


def test_scan_and_folds_refuse_composite_elems_as_tf():
  for api in (tf.scan, tf.foldl, tf.foldr):
    with pytest.raises(ValueError):
      api(lambda a, x: a + tf.sparse.reduce_sum(x), sp(), initializer=0.0)
    with pytest.raises(ValueError):
      api(lambda a, x: a + tf.reduce_sum(x), tf.ragged.constant([[1.0], []]), initializer=0.0)


def test_ragged_signature_from_dense_and_sparse_rows():
  r = tf.map_fn(lambda x: x[:x[0]], tf.constant([[1, 2], [2, 4]]),
                fn_output_signature=tf.RaggedTensorSpec([None], tf.int32))
  assert r.to_list() == [[1], [2, 4]]
  nz = tf.map_fn(lambda x: x.values, sp(),
                 fn_output_signature=tf.RaggedTensorSpec([None], tf.float32))
  assert nz.to_list() == [[1.0, 2.0], [], [3.0]]
  with pytest.raises(ValueError, match="Expected `fn` to return a:\n    RaggedTensorSpec"):
    tf.map_fn(lambda x: x, sp(), fn_output_signature=tf.RaggedTensorSpec([None], tf.float32))
