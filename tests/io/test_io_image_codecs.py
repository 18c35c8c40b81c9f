"""tf.io exports the image codecs of tf.image (as TF)."""
import numpy as np

import tensorlet as tf


def test_tf_io_image_codecs_are_tf_image_s():
  for name in ["decode_and_crop_jpeg", "decode_bmp", "decode_gif", "decode_image",
               "decode_jpeg", "decode_png", "encode_jpeg", "encode_png",
               "extract_jpeg_shape", "is_jpeg"]:
    assert getattr(tf.io, name) is getattr(tf.image, name), name
  x = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)
  np.testing.assert_array_equal(tf.io.decode_png(tf.io.encode_png(x)).numpy(), x)
  assert bool(tf.io.is_jpeg(tf.io.encode_jpeg(x)))
