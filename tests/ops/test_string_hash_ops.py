"""tf.strings.to_hash_bucket_fast / to_hash_bucket_strong: shapes, graphs, errors."""
import numpy as np
import pytest

import tensorlet as tf


def test_shape_kept_and_traced_equals_eager():
  x = tf.constant([["a", "bb"], ["", "a"]])
  eager = tf.strings.to_hash_bucket_fast(x, 10)
  assert eager.shape == (2, 2) and eager.dtype == tf.int64
  traced = tf.function(lambda s: tf.strings.to_hash_bucket_fast(s, 10))(x)
  np.testing.assert_array_equal(eager.numpy(), traced.numpy())
  assert eager.numpy()[0, 0] == eager.numpy()[1, 1]
  strong = tf.function(lambda s: tf.strings.to_hash_bucket_strong(s, 10, [3, 4]))(x)
  np.testing.assert_array_equal(strong.numpy(),
                                tf.strings.to_hash_bucket_strong(x, 10, [3, 4]).numpy())
  assert tf.strings.to_hash_bucket_fast("abc", 5).shape == ()


def test_bad_arguments():
  with pytest.raises(tf.errors.InvalidArgumentError, match="num_buckets"):
    tf.strings.to_hash_bucket_fast(["a"], 0)
  with pytest.raises(tf.errors.InvalidArgumentError, match="num_buckets"):
    tf.strings.to_hash_bucket_strong(["a"], 0, [1, 2])
  with pytest.raises(tf.errors.InvalidArgumentError, match="Key must have 2 elements"):
    tf.strings.to_hash_bucket_strong(["a"], 3, [1])
  with pytest.raises(TypeError):
    tf.strings.to_hash_bucket_fast([1], 3)
  with pytest.raises(TypeError):
    tf.strings.to_hash_bucket_fast(["a"], 2.5)
