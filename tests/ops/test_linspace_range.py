"""tf.linspace and tf.range with mixed int/float arguments, cast as TF casts them."""
import numpy as np
import pytest

import tensorlet as tf


def test_linspace_int_bounds_give_float64():
  x = tf.linspace(-2, 2, 201)
  assert x.dtype == tf.float64 and x.shape == [201]
  np.testing.assert_allclose(x.numpy(), np.linspace(-2, 2, 201))
  assert x.numpy()[0] == -2 and x.numpy()[-1] == 2  # both ends exact


def test_linspace_cases():
  assert tf.linspace(0.0, 1.0, 3).dtype == tf.float32
  assert tf.linspace(tf.constant(0, tf.int64), 4, 3).dtype == tf.float64
  assert tf.linspace(0, 1, 0).shape == [0]
  np.testing.assert_array_equal(tf.linspace(1.0, 4.0, 1), [1.0])
  np.testing.assert_allclose(tf.linspace([0.0, 1.0], [1.0, 3.0], 3, axis=1),
                             [[0, 0.5, 1], [1, 2, 3]])
  np.testing.assert_allclose(tf.linspace([0.0, 1.0], [1.0, 3.0], 3),
                             [[0, 1], [0.5, 2], [1, 3]])
  with pytest.raises(TypeError, match="Cannot convert 5.0 to EagerTensor of dtype int32"):
    tf.linspace(0, 5.0, 3)
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.linspace(0.0, 1.0, -1)


def test_linspace_in_function_with_unknown_shape():
  f = tf.function(lambda a, b: tf.linspace(a, b, 4),
                  input_signature=[tf.TensorSpec([None]), tf.TensorSpec([None])])
  np.testing.assert_allclose(f(tf.constant([0.0, 1.0]), tf.constant([3.0, 4.0])).numpy(),
                             [[0, 1], [1, 2], [2, 3], [3, 4]])


def test_range_mixed_arguments():
  r = tf.range(1, 5.5)
  assert r.dtype == tf.float32
  np.testing.assert_array_equal(r, [1, 2, 3, 4, 5])
  assert tf.range(tf.constant(1, tf.int64), 5).dtype == tf.int64
  np.testing.assert_array_equal(tf.range(0, 1, 0.25, dtype=tf.float64), [0, 0.25, 0.5, 0.75])
  assert tf.range(0, 1, 0.25, dtype=tf.float64).dtype == tf.float64
  assert tf.range(3, dtype=tf.float32).dtype == tf.float32
  with pytest.raises(TypeError, match="Cannot convert 2.0 to EagerTensor of dtype int32"):
    tf.range(2.0, dtype=tf.int32)
