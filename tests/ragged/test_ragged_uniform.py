"""A uniform row length is kept where TF 2.21 keeps it (row slices, inner slices,
reversals, elementwise ops, with_values) and dropped where TF drops it (tf.gather,
concat, tile); RaggedTensor.uniform_row_length."""
import tensorlet as tf


def _rt():
  return tf.RaggedTensor.from_uniform_row_length(tf.range(12), 3)


def _width(x):
  return None if x.uniform_row_length is None else int(x.uniform_row_length)


def test_row_slices_keep_the_uniform_length():
  rt = _rt()
  for x, rows in [(rt[1:], 3), (rt[:2], 2), (rt[-2:], 2), (rt[5:], 0), (rt[:, :], 4),
                  (tf.reverse(rt, [0]), 4), (rt + 1, 4),
                  (tf.ragged.map_flat_values(tf.math.square, rt), 4),
                  (rt.with_values(rt.values * 2), 4)]:
    assert x.shape.as_list() == [rows, 3] and _width(x) == 3
  assert rt[1:].to_list() == [[3, 4, 5], [6, 7, 8], [9, 10, 11]]
  r32 = rt.with_row_splits_dtype(tf.int32)[1:]
  assert r32.uniform_row_length.dtype == tf.int32 and _width(r32) == 3
  from_dense = tf.RaggedTensor.from_tensor(tf.zeros([2, 3]))[1:]
  assert from_dense.shape.as_list() == [1, 3]


def test_inner_slices_give_the_sliced_length():
  rt = _rt()
  for key, width, first in [(slice(1, None), 2, [1, 2]), (slice(-2, None), 2, [1, 2]),
                            (slice(5, None), 0, []), (slice(1, 10), 2, [1, 2])]:
    x = rt[:, key]
    assert x.shape.as_list() == [4, width] and _width(x) == width
    assert x.to_list()[0] == first
  x = rt[1:3, :2]
  assert x.shape.as_list() == [2, 2] and x.to_list() == [[3, 4], [6, 7]]


def test_gather_concat_tile_drop_it_as_tf():
  rt = _rt()
  for x in [tf.gather(rt, [0, 2]), tf.concat([rt, rt], 0), tf.tile(rt, [2, 1])]:
    assert x.shape[1] is None and x.uniform_row_length is None
  assert tf.RaggedTensor.from_row_lengths([1, 2], [1, 1]).uniform_row_length is None


def test_nested_uniform_values():
  nested = tf.RaggedTensor.from_row_lengths(
      tf.RaggedTensor.from_uniform_row_length(tf.range(12), 2), [2, 1, 3])
  assert nested.shape.as_list() == [3, None, 2] and nested.uniform_row_length is None
  assert nested[1:].shape.as_list() == [2, None, 2]
  assert nested.values[1:].shape.as_list() == [5, 2]
  assert nested[:, :, 1:].shape.as_list() == [3, None, 1]
  assert nested[:, :, 1:].to_list() == [[[1], [3]], [[5]], [[7], [9], [11]]]
  assert tf.gather(nested, [2, 0]).shape.as_list() == [2, None, None]


def test_traced_slice_keeps_it():
  @tf.function
  def f(x):
    y = x[1:]
    assert y.shape.as_list() == [3, 3]
    return y.uniform_row_length

  assert int(f(_rt())) == 3
