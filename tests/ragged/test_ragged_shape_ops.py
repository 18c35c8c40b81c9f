"""tf.ones / zeros / fill / broadcast_to given a DynamicRaggedShape, and
DynamicRaggedShape.row_partitions / tf.experimental.RowPartition, as TF 2.21."""
import numpy as np
import pytest

import tensorlet as tf


def _rt():
  return tf.ragged.constant([[1, 2, 3], [], [4, 5]])


def test_ones_zeros_fill_of_a_ragged_shape():
  s = tf.shape(_rt())
  for fn, value in [(tf.ones, 1.0), (tf.zeros, 0.0)]:
    out = fn(s)
    assert isinstance(out, tf.RaggedTensor) and out.dtype == tf.float32
    assert out.to_list() == [[value] * 3, [], [value] * 2]
    assert out.row_splits.dtype == tf.int32 and out.shape.as_list() == [3, None]
  assert tf.ones(s, dtype=tf.int32).to_list() == [[1, 1, 1], [], [1, 1]]
  assert tf.zeros(s, dtype=tf.string).to_list() == [[b''] * 3, [], [b''] * 2]
  assert tf.fill(s, 7).to_list() == [[7, 7, 7], [], [7, 7]]
  assert tf.ones(tf.shape(_rt(), out_type=tf.int64)).row_splits.dtype == tf.int64
  inner = tf.ones(tf.shape(tf.ragged.constant([[[1., 2.], [3., 4.]], [], [[5., 6.]]],
                                              ragged_rank=1)))
  assert inner.shape.as_list() == [3, None, 2] and inner.to_list() == [
      [[1.0, 1.0], [1.0, 1.0]], [], [[1.0, 1.0]]]
  two = tf.ones(tf.shape(tf.ragged.constant([[[1], [2, 3]], [[4]]])))
  assert two.shape.as_list() == [2, None, None] and two.to_list() == [[[1.0], [1.0, 1.0]],
                                                                     [[1.0]]]
  uniform = tf.zeros(tf.shape(tf.RaggedTensor.from_uniform_row_length(tf.range(6), 2)))
  assert uniform.shape.as_list() == [3, 2]


def test_broadcast_to_a_ragged_shape():
  s = tf.shape(_rt())
  assert tf.broadcast_to(tf.constant(5.0), s).to_list() == [[5.0] * 3, [], [5.0] * 2]
  col = tf.broadcast_to(tf.constant([[1], [2], [3]]), s)
  assert col.to_list() == [[1, 1, 1], [], [3, 3]] and col.row_splits.dtype == tf.int32
  s2 = tf.shape(tf.ragged.constant([[[1., 2.], [3., 4.]], [], [[5., 6.]]], ragged_rank=1))
  assert tf.broadcast_to(tf.constant([10., 20.]), s2).to_list() == [
      [[10.0, 20.0], [10.0, 20.0]], [], [[10.0, 20.0]]]
  u = tf.shape(tf.RaggedTensor.from_uniform_row_length(tf.range(6), 2))
  assert tf.broadcast_to(tf.constant([7, 8]), u).to_list() == [[7, 8], [7, 8], [7, 8]]
  for bad in ([1, 2, 3], [[1, 2], [2, 3], [3, 4]]):
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot broadcast"):
      tf.broadcast_to(tf.constant(bad), s)
  with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot broadcast"):
    tf.broadcast_to(tf.constant([[1], [2]]), s)


def test_broadcast_to_traced_and_its_gradient():
  rt = _rt()

  @tf.function
  def f(x, r):
    return tf.broadcast_to(x, tf.shape(r)), tf.ones(tf.shape(r))

  x = tf.constant([[1.0], [2.0], [3.0]])
  b, o = f(x, rt)
  assert b.to_list() == [[1.0] * 3, [], [3.0] * 2] and o.to_list() == [[1.0] * 3, [], [1.0] * 2]
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(tf.broadcast_to(x, tf.shape(rt)).flat_values * 2.0)
  np.testing.assert_allclose(tape.gradient(y, x).numpy(), [[6.0], [0.0], [4.0]])


def test_row_partitions():
  parts = tf.shape(_rt()).row_partitions
  assert isinstance(parts, tuple) and len(parts) == 1
  p = parts[0]
  assert repr(p) == "tf.RowPartition(row_splits=[0 3 3 5])" and p.dtype == tf.int32
  assert p.row_splits().numpy().tolist() == [0, 3, 3, 5]
  assert p.row_lengths().numpy().tolist() == [3, 0, 2]
  assert p.value_rowids().numpy().tolist() == [0, 0, 0, 2, 2]
  assert p.offsets_in_rows().numpy().tolist() == [0, 1, 2, 0, 1]
  assert int(p.nrows()) == 3 and int(p.nvals()) == 5 and p.static_nrows == 3
  assert p.row_starts().numpy().tolist() == [0, 3, 3] and p.row_limits().numpy().tolist() == [
      3, 3, 5]
  assert not p.is_uniform() and p.uniform_row_length() is None
  assert p.static_uniform_row_length is None
  assert tf.shape(_rt(), out_type=tf.int64).row_partitions[0].dtype == tf.int64
  nested = tf.shape(tf.ragged.constant([[[1], [2, 3]], [[4]]])).row_partitions
  assert [repr(q) for q in nested] == ["tf.RowPartition(row_splits=[0 2 3])",
                                      "tf.RowPartition(row_splits=[0 1 3 4])"]
  (u,) = tf.shape(tf.RaggedTensor.from_uniform_row_length(tf.range(6), 2)).row_partitions
  assert repr(u) == "tf.RowPartition(nrows=3, uniform_row_length=2)"
  assert u.is_uniform() and int(u.uniform_row_length()) == 2


def test_row_partition_factories_and_errors():
  RP = tf.experimental.RowPartition
  p = RP.from_row_lengths([3, 0, 2])
  assert repr(p) == "tf.RowPartition(row_splits=[0 3 3 5])" and p.dtype == tf.int64
  assert p.with_dtype(tf.int32).dtype == tf.int32
  assert repr(RP.from_value_rowids([0, 0, 2], nrows=4)) == \
      "tf.RowPartition(row_splits=[0 2 2 3 3])"
  u = RP.from_uniform_row_length(2, nvals=6)
  assert repr(u) == "tf.RowPartition(nrows=3, uniform_row_length=2)"
  assert u.row_splits().numpy().tolist() == [0, 2, 4, 6] and u.static_uniform_row_length == 2
  assert RP.from_row_splits(tf.constant([0, 2], tf.int32)).dtype == tf.int32
  assert RP.from_row_starts([0, 2], nvals=5).row_lengths().numpy().tolist() == [2, 3]
  assert RP.from_row_limits([2, 5]).row_lengths().numpy().tolist() == [2, 3]
  with pytest.raises(tf.errors.InvalidArgumentError, match="zero"):
    RP.from_row_splits([1, 2])
  with pytest.raises(tf.errors.InvalidArgumentError, match="monotonic"):
    RP.from_row_splits([0, 3, 2])
  with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
    RP.from_row_lengths([1, -2])
  with pytest.raises(ValueError, match="int32 or int64"):
    RP.from_row_splits([0., 3.])
  with pytest.raises(ValueError, match="constructor is private"):
    RP([0, 1])


def test_reshape_of_ragged_reshapes_the_flat_values_as_tf():
  rt = tf.ragged.constant([[1., 2., 3.], [], [4., 5.]])
  out = tf.reshape(rt, [-1])
  assert isinstance(out, tf.Tensor) and out.numpy().tolist() == [1., 2., 3., 4., 5.]
  uniform = tf.RaggedTensor.from_uniform_row_length(tf.range(6), 2)
  assert tf.reshape(uniform, [6]).numpy().tolist() == [0, 1, 2, 3, 4, 5]
  nested = tf.ragged.constant([[[1], [2, 3]], [[4]]])
  assert tf.reshape(nested, [2, 2]).numpy().tolist() == [[1, 2], [3, 4]]
  with pytest.raises(tf.errors.InvalidArgumentError,
                     match="tensor with 4 values, but the requested shape has 3"):
    tf.reshape(nested, [3])

  @tf.function
  def g(x):
    return tf.reshape(x, [-1])

  assert g(rt).numpy().tolist() == [1., 2., 3., 4., 5.]


def test_reshape_to_a_ragged_shape():
  s = tf.shape(tf.ragged.constant([[1., 2., 3.], [], [4., 5.]]))
  out = tf.reshape(tf.range(5), s)
  assert isinstance(out, tf.RaggedTensor) and out.to_list() == [[0, 1, 2], [], [3, 4]]
  assert tf.reshape(tf.ragged.constant([[1, 2], [3, 4, 5]]), s).to_list() == [
      [1, 2, 3], [], [4, 5]]
  with pytest.raises(tf.errors.InvalidArgumentError,
                     match="tensor with 4 values, but the requested shape has 5"):
    tf.reshape(tf.range(4), s)
