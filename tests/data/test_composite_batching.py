"""batch / unbatch / ragged_batch / from_tensor_slices of SparseTensor and
RaggedTensor elements (specs and values as TensorFlow 2.21 gives them)."""
import numpy as np
import pytest

import tensorlet as tf


def _sparse_rows():
  # element i: a 1-D sparse vector of length i + 1 with value i at position i
  return tf.data.Dataset.range(1, 4).map(
      lambda n: tf.sparse.SparseTensor([[n - 1]], [n], [n]))


def _st():
  return tf.sparse.SparseTensor([[0, 0], [1, 2], [2, 1]], [1., 2., 3.], [3, 4])


def _sparse_parts(sp):
  return (np.asarray(sp.indices).tolist(), np.asarray(sp.values).tolist(),
          np.asarray(sp.dense_shape).tolist())


# ------------------------------------------------------------------ sparse

def test_from_tensor_slices_of_sparse():
  ds = tf.data.Dataset.from_tensor_slices(_st())
  assert ds.element_spec == tf.SparseTensorSpec([4], tf.float32)
  assert int(ds.cardinality()) == 3
  dense = np.zeros([3, 4], np.float32)
  dense[0, 0], dense[1, 2], dense[2, 1] = 1, 2, 3
  got = [tf.sparse.to_dense(e).numpy() for e in ds]
  np.testing.assert_array_equal(np.stack(got), dense)
  assert [_sparse_parts(e) for e in ds][1] == ([[2]], [2.0], [4])


def test_batch_of_sparse_takes_max_shape():
  ds = _sparse_rows().batch(3)
  assert ds.element_spec == tf.SparseTensorSpec([None, None], tf.int64)
  (b,) = list(ds)
  assert _sparse_parts(b) == ([[0, 0], [1, 1], [2, 2]], [1, 2, 3], [3, 3])
  np.testing.assert_array_equal(tf.sparse.to_dense(b).numpy(), np.diag([1, 2, 3]))


def test_batch_unbatch_sparse_round_trip_and_cardinality():
  ds = tf.data.Dataset.from_tensor_slices(_st())
  b = ds.batch(2)
  assert b.element_spec == tf.SparseTensorSpec([None, 4], tf.float32)
  assert int(b.cardinality()) == 2
  parts = [_sparse_parts(e) for e in b]
  assert parts == [([[0, 0], [1, 2]], [1.0, 2.0], [2, 4]), ([[0, 1]], [3.0], [1, 4])]
  bd = ds.batch(2, drop_remainder=True)
  assert bd.element_spec == tf.SparseTensorSpec([2, 4], tf.float32)
  assert int(bd.cardinality()) == 1
  u = b.unbatch()
  assert u.element_spec == tf.SparseTensorSpec([4], tf.float32)
  assert [_sparse_parts(e) for e in u] == [_sparse_parts(e) for e in ds]


def test_sparse_mixed_with_dense_components():
  ds = tf.data.Dataset.from_tensor_slices((_st(), np.arange(3, dtype=np.int32))).batch(2)
  assert ds.element_spec == (tf.SparseTensorSpec([None, 4], tf.float32),
                             tf.TensorSpec([None], tf.int32))
  (sp, d), _ = list(ds)
  np.testing.assert_array_equal(d.numpy(), [0, 1])
  assert _sparse_parts(sp)[2] == [2, 4]


def test_unbatch_of_rank1_sparse_is_invalid_argument():
  ds = tf.data.Dataset.from_tensors(tf.sparse.SparseTensor([[0]], [1.], [3])).unbatch()
  assert ds.element_spec == tf.SparseTensorSpec([], tf.float32)
  with pytest.raises(tf.errors.InvalidArgumentError, match="Rank of input SparseTensor"):
    list(ds)


def test_batch_of_rank2_sparse_elements_of_different_shapes():
  ds = tf.data.Dataset.range(2).map(
      lambda n: tf.sparse.reshape(tf.sparse.SparseTensor([[3]], [n], [4]),
                                  tf.where(n > 0, tf.constant([2, 2], tf.int64),
                                           tf.constant([4, 1], tf.int64))))
  (b,) = list(ds.batch(2))
  assert _sparse_parts(b) == ([[0, 3, 0], [1, 1, 1]], [0, 1], [2, 4, 2])


def test_padded_batch_of_sparse_is_type_error():
  with pytest.raises(TypeError, match="padded_batch"):
    _sparse_rows().padded_batch(2)


# ------------------------------------------------------------------ ragged

def _rt():
  return tf.ragged.constant([[1, 2], [3], [4, 5, 6]])


def _rt3():
  return tf.ragged.constant([[[1, 2], [3]], [[4]]])


def test_from_tensor_slices_of_ragged():
  ds = tf.data.Dataset.from_tensor_slices(_rt())
  assert ds.element_spec == tf.RaggedTensorSpec([None], tf.int32, 0, tf.int64)
  assert int(ds.cardinality()) == 3
  got = [e.numpy().tolist() for e in ds]
  assert got == [[1, 2], [3], [4, 5, 6]]
  ds3 = tf.data.Dataset.from_tensor_slices(_rt3())
  assert ds3.element_spec == tf.RaggedTensorSpec([None, None], tf.int32, 1, tf.int64)
  assert [e.to_list() for e in ds3] == [[[1, 2], [3]], [[4]]]


def test_batch_of_ragged_elements_is_ragged():
  b = tf.data.Dataset.from_tensor_slices(_rt()).batch(2)
  assert b.element_spec == tf.RaggedTensorSpec([None, None], tf.int32, 1, tf.int64)
  assert [e.to_list() for e in b] == [[[1, 2], [3]], [[4, 5, 6]]]
  b3 = tf.data.Dataset.from_tensor_slices(_rt3()).batch(2)
  assert b3.element_spec == tf.RaggedTensorSpec([None, None, None], tf.int32, 2, tf.int64)
  assert [e.to_list() for e in b3] == [[[[1, 2], [3]], [[4]]]]
  bd = tf.data.Dataset.from_tensor_slices(_rt3()).batch(2, drop_remainder=True)
  assert bd.element_spec == tf.RaggedTensorSpec([2, None, None], tf.int32, 2, tf.int64)
  assert int(bd.cardinality()) == 1


def test_unbatch_of_ragged_round_trips():
  b = tf.data.Dataset.from_tensor_slices(_rt3()).batch(2)
  u = b.unbatch()
  assert u.element_spec == tf.RaggedTensorSpec([None, None], tf.int32, 1, tf.int64)
  assert [e.to_list() for e in u] == [[[1, 2], [3]], [[4]]]
  u2 = tf.data.Dataset.from_tensor_slices(_rt()).batch(2).unbatch()
  assert u2.element_spec == tf.RaggedTensorSpec([None], tf.int32, 0, tf.int64)
  assert [e.numpy().tolist() for e in u2] == [[1, 2], [3], [4, 5, 6]]
  scalars = tf.data.Dataset.from_tensor_slices(_rt()).unbatch()
  assert scalars.element_spec == tf.TensorSpec([], tf.int32)
  assert [int(x) for x in scalars] == [1, 2, 3, 4, 5, 6]


def test_ragged_batch_of_dense_elements():
  rng = np.random.default_rng(0)
  lens = rng.integers(0, 5, size=7)
  ds = tf.data.Dataset.from_tensor_slices(lens).map(lambda n: tf.range(n))
  rb = ds.ragged_batch(3)
  assert rb.element_spec == tf.RaggedTensorSpec([None, None], tf.int64, 1, tf.int64)
  assert int(rb.cardinality()) == 3
  want = [[list(range(n)) for n in lens[i:i + 3]] for i in range(0, 7, 3)]
  assert [e.to_list() for e in rb] == want
  rb32 = ds.ragged_batch(3, drop_remainder=True, row_splits_dtype=tf.int32)
  assert rb32.element_spec == tf.RaggedTensorSpec([3, None], tf.int64, 1, tf.int32)
  first = next(iter(rb32))
  assert first.row_splits.dtype == tf.int32
  np.testing.assert_array_equal(first.row_splits.numpy(), np.cumsum([0] + list(lens[:3])))


def test_ragged_batch_keeps_known_dims_and_fully_known_shapes_dense():
  ds = tf.data.Dataset.range(4).map(
      lambda x: tf.reshape(tf.fill([tf.cast(2 * x, tf.int32)], x), [-1, 2]))
  rb = ds.ragged_batch(2)
  assert rb.element_spec == tf.RaggedTensorSpec([None, None, 2], tf.int64, 1, tf.int64)
  assert [e.to_list() for e in rb][1] == [[[2, 2], [2, 2]], [[3, 3], [3, 3], [3, 3]]]
  assert tf.data.Dataset.range(4).ragged_batch(2).element_spec == tf.TensorSpec([None],
                                                                                  tf.int64)
  fixed = tf.data.Dataset.from_tensor_slices(np.ones([4, 3], np.float32)).ragged_batch(2)
  assert fixed.element_spec == tf.TensorSpec([None, 3], tf.float32)
  np.testing.assert_array_equal(next(iter(fixed)).numpy(), np.ones([2, 3]))


def test_ragged_batch_all_dims_unknown_and_tuples():
  ds = tf.data.Dataset.range(3).map(lambda x: (tf.reshape(tf.range(x * x), [x, x]), x))
  rb = ds.ragged_batch(2)
  assert rb.element_spec == (tf.RaggedTensorSpec([None, None, None], tf.int64, 2, tf.int64),
                             tf.TensorSpec([None], tf.int64))
  r, n = next(iter(rb))
  assert r.to_list() == [[], [[0]]]
  np.testing.assert_array_equal(n.numpy(), [0, 1])


def test_batch_of_dense_with_different_shapes_still_invalid_argument():
  ds = tf.data.Dataset.range(3).map(lambda x: tf.range(x))
  with pytest.raises(tf.errors.InvalidArgumentError):
    list(ds.batch(2))


def test_ragged_batch_bad_arguments():
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.data.Dataset.range(3).map(lambda x: tf.range(x)).ragged_batch(0)
  with pytest.raises((TypeError, ValueError)):
    tf.data.Dataset.range(3).ragged_batch(2, row_splits_dtype=tf.float32)


# ---------------------------------------------------------- inside tf.function

def test_composite_batches_inside_tf_function():
  rt, st = _rt(), _st()

  @tf.function
  def ragged_total():
    ds = tf.data.Dataset.from_tensor_slices(rt).batch(2)
    return ds.reduce(tf.constant(0, tf.int32), lambda s, x: s + tf.reduce_sum(x.flat_values))

  @tf.function
  def sparse_rows():
    ds = tf.data.Dataset.from_tensor_slices(st).batch(2)
    return ds.reduce(tf.constant(0, tf.int64), lambda s, x: s + x.dense_shape[0])

  assert int(ragged_total()) == 21
  assert int(sparse_rows()) == 3

  @tf.function
  def lengths(ds):
    out = tf.constant(0, tf.int64)
    for x in ds:
      out += tf.reduce_sum(x.row_lengths())
    return out

  rb = tf.data.Dataset.range(5).map(lambda n: tf.range(n)).ragged_batch(2)
  assert int(lengths(rb)) == 0 + 1 + 2 + 3 + 4


def test_bucket_by_sequence_length_of_ragged_says_not_implemented():
  ds = tf.data.Dataset.from_tensor_slices(_rt())
  with pytest.raises(NotImplementedError, match="bucket_by_sequence_length"):
    ds.bucket_by_sequence_length(lambda x: tf.constant(1, tf.int32), [2], [1, 1],
                                 no_padding=True)


def test_datasets_built_inside_tf_function_from_composite_arguments():
  @tf.function
  def totals(rt, st):
    a = tf.data.Dataset.from_tensor_slices(rt).batch(2).reduce(
        tf.constant(0, tf.int32), lambda s, x: s + tf.reduce_sum(x.flat_values))
    b = tf.data.Dataset.from_tensor_slices(st).batch(2).unbatch().reduce(
        tf.constant(0., tf.float32), lambda s, x: s + tf.reduce_sum(x.values))
    c = tf.data.Dataset.from_tensors(st).unbatch().reduce(
        tf.constant(0, tf.int64), lambda s, x: s + 1)
    return a, b, c

  a, b, c = totals(_rt(), _st())
  assert (int(a), float(b), int(c)) == (21, 6.0, 3)


def test_composite_slices_through_shuffle_repeat_and_map():
  ds = tf.data.Dataset.from_tensor_slices(_rt()).shuffle(3, seed=7).repeat(2)
  rows = [tuple(e.numpy().tolist()) for e in ds]
  assert sorted(rows) == sorted([(1, 2), (3,), (4, 5, 6)] * 2)
  doubled = tf.data.Dataset.from_tensor_slices(_rt()).batch(2).map(lambda x: x * 2)
  assert doubled.element_spec == tf.RaggedTensorSpec([None, None], tf.int32, 1, tf.int64)
  assert [e.to_list() for e in doubled] == [[[2, 4], [6]], [[8, 10, 12]]]


def test_slices_of_composite_and_dense_with_different_sizes_is_value_error():
  with pytest.raises(ValueError, match="not compatible"):
    tf.data.Dataset.from_tensor_slices((_rt(), np.arange(2)))


def test_ragged_batch_of_ragged_elements_keeps_their_splits_dtype():
  ds = tf.data.Dataset.from_tensor_slices(_rt3())
  assert ds.ragged_batch(2, row_splits_dtype=tf.int32).element_spec == \
      tf.RaggedTensorSpec([None, None, None], tf.int32, 2, tf.int64)


def test_iterator_checkpoint_of_ragged_batches(tmp_path):
  rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6], [7]])
  ds = tf.data.Dataset.from_tensor_slices(rt).batch(2)
  it = iter(ds)
  next(it)
  path = tf.train.Checkpoint(iterator=it).save(str(tmp_path / "ckpt"))
  assert next(it).to_list() == [[4, 5, 6], [7]]
  it2 = iter(ds)
  tf.train.Checkpoint(iterator=it2).restore(path)
  assert next(it2).to_list() == [[4, 5, 6], [7]]
