"""tf.ragged.cross / cross_hashed against values printed by real TF 2.21: ragged,
sparse and dense inputs in the order given, hashing, row_splits dtypes, traced use,
and the errors."""
import pytest

import tensorlet as tf


def _inputs():
  a = tf.ragged.constant([['a', 'b'], ['c'], []])
  b = tf.ragged.constant([['x'], ['y', 'z'], ['w']])
  d = tf.constant([['d1'], ['d2'], ['d3']])
  s = tf.sparse.from_dense(tf.constant([['s1', ''], ['', 's2'], ['s3', '']]))
  return a, b, d, s


def test_cross_strings_in_input_order():
  a, b, d, s = _inputs()
  assert tf.ragged.cross([a, b]).to_list() == [[b'a_X_x', b'b_X_x'], [b'c_X_y', b'c_X_z'], []]
  assert tf.ragged.cross([a, b, d]).to_list() == [
      [b'a_X_x_X_d1', b'b_X_x_X_d1'], [b'c_X_y_X_d2', b'c_X_z_X_d2'], []]
  assert tf.ragged.cross([a, s, d]).to_list() == [
      [b'a_X_s1_X_d1', b'b_X_s1_X_d1'], [b'c_X_s2_X_d2'], []]
  assert tf.ragged.cross([d, a]).to_list() == [[b'd1_X_a', b'd1_X_b'], [b'd2_X_c'], []]
  i = tf.ragged.constant([[1, 2], [3], [4]], dtype=tf.int64)
  assert tf.ragged.cross([a, i]).to_list() == [
      [b'a_X_1', b'a_X_2', b'b_X_1', b'b_X_2'], [b'c_X_3'], []]
  one = tf.ragged.cross([tf.ragged.constant([[1, 2]], dtype=tf.int32)])
  assert one.dtype == tf.string and one.to_list() == [[b'1', b'2']]
  assert tf.ragged.cross([d]).to_list() == [[b'd1'], [b'd2'], [b'd3']]
  empty = tf.ragged.cross([])
  assert isinstance(empty, tf.RaggedTensor) and empty.to_list() == []


def test_cross_hashed_as_tf():
  a, b, d, s = _inputs()
  out = tf.ragged.cross_hashed([a, b, d], num_buckets=100)
  assert out.dtype == tf.int64 and out.to_list() == [[60, 17], [66, 13], []]
  assert tf.ragged.cross_hashed([a, b]).to_list() == [
      [1484974617627318892, 3552177129620670004],
      [6571367263544129360, 5890530401397985473], []]
  assert tf.ragged.cross_hashed([a, b], num_buckets=10, hash_key=7).to_list() == [
      [8, 5], [1, 3], []]
  assert tf.ragged.cross_hashed([a, s, d]).to_list() == [
      [6807766291702915341, 7787000843107876536], [728641526834012186], []]
  assert tf.ragged.cross_hashed([d, s, a], num_buckets=1000).to_list() == [
      [271, 463], [151], []]


def test_row_splits_dtype_and_traced():
  a, b, _, _ = _inputs()
  assert tf.ragged.cross([a, b]).row_splits.dtype == tf.int64
  a32 = a.with_row_splits_dtype(tf.int32)
  assert tf.ragged.cross([a32, a32]).row_splits.dtype == tf.int32
  with pytest.raises(ValueError, match="row_splits dtypes"):
    tf.ragged.cross([a32, b])

  @tf.function
  def f(x, y):
    return tf.ragged.cross([x, y]), tf.ragged.cross_hashed([x, y], num_buckets=10, hash_key=7)

  strings, hashed = f(a, b)
  assert strings.to_list() == [[b'a_X_x', b'b_X_x'], [b'c_X_y', b'c_X_z'], []]
  assert hashed.to_list() == [[8, 5], [1, 3], []]


def test_errors():
  a, _, _, _ = _inputs()
  with pytest.raises(ValueError, match="only supports inputs with rank=2"):
    tf.ragged.cross([tf.ragged.constant([[['a']]])])
  with pytest.raises(tf.errors.InvalidArgumentError, match="only supports inputs with rank=2"):
    tf.ragged.cross([tf.zeros([3, 1, 1], tf.int64)])
  with pytest.raises(tf.errors.InvalidArgumentError, match="only supports inputs with rank=2"):
    tf.ragged.cross([tf.sparse.from_dense(tf.zeros([3, 1, 1], tf.int64))])
  with pytest.raises(tf.errors.InvalidArgumentError, match="same batch dimension size"):
    tf.ragged.cross([a, tf.constant([['a']])])
  with pytest.raises(TypeError, match="Inputs must be a list"):
    tf.ragged.cross(a)
  with pytest.raises(ValueError, match=r"Unexpected dtype for inputs\[0\]: <dtype: 'float32'>"):
    tf.ragged.cross([tf.ragged.constant([[1.0]])])
  with pytest.raises(tf.errors.InvalidArgumentError, match="num_buckets' of -1"):
    tf.ragged.cross_hashed([a], num_buckets=-1)
