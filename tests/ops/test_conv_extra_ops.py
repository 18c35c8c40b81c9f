"""tf.nn.conv3d / tf.nn.conv1d_transpose: NCDHW / NCW layouts and argument errors (the
numerics and gradients are rows of op_rows_conv.py)."""
import numpy as np
import pytest

import tensorlet as tf


def test_conv3d_channels_first_is_transposed_channels_last():
  rng = np.random.RandomState(0)
  x = rng.standard_normal((1, 4, 5, 4, 2)).astype(np.float32)
  k = rng.standard_normal((2, 2, 2, 2, 3)).astype(np.float32)
  last = tf.nn.conv3d(x, k, [1, 1, 1, 1, 1], "SAME")
  first = tf.nn.conv3d(np.transpose(x, (0, 4, 1, 2, 3)), k, [1, 1, 1, 1, 1], "SAME",
                       data_format="NCDHW")
  np.testing.assert_allclose(np.transpose(first.numpy(), (0, 2, 3, 4, 1)), last.numpy(),
                             rtol=1e-5, atol=1e-5)


def test_conv1d_transpose_ncw_and_static_output_shape():
  rng = np.random.RandomState(1)
  x = rng.standard_normal((2, 5, 2)).astype(np.float32)
  k = rng.standard_normal((3, 4, 2)).astype(np.float32)
  nwc = tf.nn.conv1d_transpose(x, k, [2, 10, 4], 2, "SAME")
  ncw = tf.nn.conv1d_transpose(np.transpose(x, (0, 2, 1)), k, [2, 4, 10], 2, "SAME",
                               data_format="NCW")
  assert nwc.shape == (2, 10, 4)
  np.testing.assert_allclose(np.transpose(ncw.numpy(), (0, 2, 1)), nwc.numpy(), rtol=1e-5,
                             atol=1e-5)


@pytest.mark.parametrize("call,msg", [
    (lambda x, k: tf.nn.conv3d(x, k, 1, "SAME", data_format="NHWC"), "data_format"),
    (lambda x, k: tf.nn.conv3d(x, k, 1, "FULL"), "padding"),
    (lambda x, k: tf.nn.conv3d(x, k, [2, 1, 1, 1, 1], "SAME"), "batch and depth"),
    (lambda x, k: tf.nn.conv3d(x, k, [1, 1], "SAME"), "length 1, 3 or 5"),
    (lambda x, k: tf.nn.conv3d(x[..., :1], k, 1, "SAME"), "in_channels"),
    (lambda x, k: tf.nn.conv3d(x[:, :1], k, 1, "VALID"), "exceeds the input depth"),
    (lambda x, k: tf.nn.conv3d(x[0], k, 1, "VALID"), "5-D"),
    (lambda x, k: tf.nn.conv1d_transpose(x[:, 0, 0], k[0], [1, 4, 3], 1, data_format="NHWC"),
     "data_format"),
])
def test_bad_arguments(call, msg):
  x = np.ones((1, 3, 4, 4, 2), np.float32)
  k = np.ones((2, 2, 2, 2, 3), np.float32)
  with pytest.raises(ValueError, match=msg):
    call(x, k)


def test_conv3d_transpose_errors():
  x = np.ones((1, 2, 3, 3, 2), np.float32)
  k = np.ones((2, 2, 2, 4, 2), np.float32)
  assert tf.nn.conv3d_transpose(x, k, [1, 4, 6, 6, 4], 2, "SAME").shape == (1, 4, 6, 6, 4)
  with pytest.raises(ValueError, match="padding"):
    tf.nn.conv3d_transpose(x, k, [1, 4, 6, 6, 4], 2, "FULL")
  with pytest.raises(ValueError, match="static 5-D filter"):
    tf.nn.conv3d_transpose(x, k[0], [1, 4, 6, 6, 4], 2)
