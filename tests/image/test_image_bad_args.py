"""Bad arguments to tf.image functions raise TF's exception types naming the
argument (found by tests/fuzz/fuzz_api.py)."""
import pytest

import tensorlet as tf


def _img():
  return tf.zeros([2, 2, 1], tf.uint8)


def test_encoder_integer_arguments():
  assert tf.image.encode_png(_img(), compression=None).shape == []   # TF's default
  with pytest.raises(TypeError, match="compression"):
    tf.image.encode_png(_img(), compression=[1])
  with pytest.raises(TypeError, match="quality"):
    tf.image.encode_jpeg(_img(), quality=1 + 2j)


def test_extract_jpeg_shape_needs_a_string_scalar():
  with pytest.raises(tf.errors.InvalidArgumentError, match="contents"):
    tf.image.extract_jpeg_shape([2 ** 40])   # not a 1 TB allocation


def test_random_crop_size_must_be_a_list():
  x = tf.zeros([2, 3])
  with pytest.raises(ValueError, match="size"):
    tf.image.stateless_random_crop(x, -1, seed=[1, 2])
  assert tf.image.stateless_random_crop(x, [1, 2], seed=[1, 2]).shape == [1, 2]


def test_adjust_jpeg_quality_needs_an_integer():
  with pytest.raises(TypeError, match="jpeg_quality"):
    tf.image.adjust_jpeg_quality(tf.zeros([2, 2, 3]), 1 + 2j)
