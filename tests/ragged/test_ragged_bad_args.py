"""Bad arguments to tf.ragged functions raise TypeError/ValueError naming the
argument (found by tests/fuzz/fuzz_api.py)."""
import pytest

import tensorlet as tf


def test_constant_arguments():
  with pytest.raises(TypeError, match="ragged_rank"):
    tf.ragged.constant([[1]], ragged_rank=1.5)
  with pytest.raises(TypeError, match="inner_shape"):
    tf.ragged.constant([[1]], inner_shape=True)
  cyclic = [1]
  cyclic.append(cyclic)
  with pytest.raises(ValueError, match="contains itself"):
    tf.ragged.constant(cyclic)
  assert tf.ragged.constant([[[1, 2]], []], inner_shape=tf.TensorShape([2])).shape.as_list() \
      == [2, None, 2]


def test_stack_of_one_value_as_tf():
  assert tf.ragged.stack(tf.constant([1, 2])).to_list() == [[1, 2]]


def test_stack_axis_and_map_flat_values_op():
  with pytest.raises(TypeError, match="axis"):
    tf.ragged.stack([tf.ragged.constant([[1]])], axis=None)
  with pytest.raises(TypeError, match="callable"):
    tf.ragged.map_flat_values(None, tf.ragged.constant([[1]]))
