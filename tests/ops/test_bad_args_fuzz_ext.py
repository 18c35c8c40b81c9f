"""tf.one_hot, tf.tuple and tf.strings.ngrams reject bad arguments with TF's
exception types naming them (found by tests/fuzz/fuzz_api.py)."""
import pytest

import tensorlet as tf


def test_one_hot_on_and_off_values_are_scalars():
  with pytest.raises(tf.errors.InvalidArgumentError, match="on_value must be a scalar"):
    tf.one_hot([0, 1], 2, on_value=[])
  with pytest.raises(tf.errors.InvalidArgumentError, match="off_value must be a scalar"):
    tf.one_hot([0, 1], 2, off_value=tf.zeros([0]))


def test_tuple_takes_a_list():
  with pytest.raises(TypeError, match="tensors"):
    tf.tuple(None)
  assert tf.tuple([tf.constant(1)])[0].numpy() == 1


def test_ngram_width_is_an_int_or_a_list():
  with pytest.raises(TypeError, match="ngram_width"):
    tf.strings.ngrams(tf.constant(["a", "b"]), 1.5)


def test_shape_and_dims_arguments_are_vectors():
  with pytest.raises(tf.errors.InvalidArgumentError, match="1-D"):
    tf.broadcast_to([1.0], [[1]])
  with pytest.raises(tf.errors.InvalidArgumentError, match="shape"):
    tf.scatter_nd([[0]], [1.0], -1)
  with pytest.raises(tf.errors.InvalidArgumentError, match="dims"):
    tf.unravel_index([1, 2], -1)
  assert tf.zeros(3).shape == [3]    # a scalar size is still one dimension


def test_traced_huge_sizes_are_resource_errors_not_memory_errors():
  @tf.function(autograph=False)
  def mask():
    return tf.sequence_mask([2 ** 40])

  @tf.function(autograph=False)
  def segments():
    return tf.math.segment_max(tf.constant([1.0, 2.0]), [2 ** 40, 2 ** 40])
  for f in (mask, segments):
    with pytest.raises(tf.errors.ResourceExhaustedError):
      f()


def test_traced_range_shape_is_counted():
  @tf.function(autograph=False)
  def f():
    return tf.range(0, 10, 3), tf.range(5, 0, -2), tf.range(0.0, 1.0, 0.3), tf.range(1.5, 0.2, -0.4)
  assert [t.shape.as_list() for t in f.get_concrete_function().outputs] == [[4], [3], [4], [4]]


def test_repeat_beyond_memory_is_a_resource_error():
  with pytest.raises(tf.errors.ResourceExhaustedError, match="Repeat"):
    tf.repeat(tf.ones([2, 3]), [2 ** 40])
  assert tf.repeat(tf.constant([1, 2]), [2, 1]).numpy().tolist() == [1, 1, 2]
