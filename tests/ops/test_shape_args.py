"""Shape arguments that mix Python ints with dimension tensors pack as TF's:
int64 when a dimension tensor is int64 (tf.data's Dataset.range yields int64)."""
import numpy as np
import pytest

import tensorlet as tf


def test_fill_with_an_int64_dimension_from_a_dataset():
  ds = tf.data.Dataset.range(3).map(lambda x: tf.fill([x, 2], 1.0))
  assert [e.shape.as_list() for e in ds] == [[0, 2], [1, 2], [2, 2]]


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
def test_zeros_with_a_dimension_tensor_in_a_function(dtype):
  f = tf.function(lambda n: tf.zeros([n, 3]))
  np.testing.assert_array_equal(f(tf.constant(2, dtype)).numpy(), np.zeros([2, 3]))


def test_float_dimension_tensor_is_type_error():
  with pytest.raises(TypeError, match="shape dimensions must be integers"):
    tf.zeros([tf.constant(2.0), 3])
