"""ImageProjectiveTransformV3 beyond the op table: errors for bad inputs (eager and
in graphs), one transform for a batch, the fill of a degenerate projection, the
gradient as the adjoint. (Values against real TF 2.21: the Keras preprocessing
tests run the op through RandomRotation/Zoom/Translation on TF's fixture.)"""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.ops.image_transform_ops import image_projective_transform_v3 as transform

IDENTITY = [[1, 0, 0, 0, 1, 0, 0, 0]]
X = np.arange(2 * 4 * 5 * 1, dtype=np.float32).reshape(2, 4, 5, 1)


@pytest.mark.parametrize("call,msg", [
    (lambda: transform(X[0], IDENTITY, [4, 5]), "must be 4-D"),
    (lambda: transform(X, [[1, 0, 0, 0, 1, 0, 0]], [4, 5]), "transforms"),
    (lambda: transform(X, np.zeros((3, 8)), [4, 5]), "transforms"),
    (lambda: transform(X, IDENTITY, [4, 5, 1]), "output_shape"),
    (lambda: transform(X, IDENTITY, [0, 5]), "positive"),
    (lambda: transform(X, IDENTITY, [4, 5], fill_mode="mirror"), "fill_mode"),
    (lambda: transform(X, IDENTITY, [4, 5], interpolation="cubic"), "interpolation"),
    (lambda: transform(X.astype(np.int8), IDENTITY, [4, 5]), "int8"),
])
def test_bad_inputs(call, msg):
  with pytest.raises(tf.errors.InvalidArgumentError, match=msg):
    call()


def test_bad_inputs_in_graphs():
  with pytest.raises((ValueError, tf.errors.InvalidArgumentError), match="transforms"):
    tf.function(lambda t: transform(X, t, [4, 5]))(tf.zeros([3, 7]))
  f = tf.function(lambda t: transform(X, t, [4, 5]))
  with pytest.raises(tf.errors.InvalidArgumentError, match="transforms"):
    f(tf.zeros([3, 8]))


def test_one_transform_for_the_batch_and_output_size():
  shift = [[1, 0, 1, 0, 1, 0, 0, 0]]  # reads x + 1: moves the image one column left
  y = transform(X, shift, [3, 6], fill_value=-1.0, interpolation="NEAREST",
                fill_mode="CONSTANT").numpy()
  want = np.full((2, 3, 6, 1), -1.0, np.float32)
  want[:, :, :4] = X[:, :3, 1:]
  np.testing.assert_array_equal(y, want)
  assert tf.function(lambda x: transform(x, shift, [3, 6]))(X).shape == (2, 3, 6, 1)


def test_degenerate_projection_gives_fill_value():
  t = [[1, 0, 0, 0, 1, 0, -1, 0]]  # k = 1 - x is 0 in column 1
  y = transform(X, t, [4, 5], fill_value=9.0, fill_mode="REFLECT").numpy()
  np.testing.assert_array_equal(y[:, :, 1], 9.0)
  assert np.isfinite(y).all()


def test_gradient_is_the_adjoint_and_transforms_get_none():
  x = tf.constant(np.random.RandomState(0).standard_normal((2, 4, 5, 2)))
  t = tf.constant([[0.9, -0.2, 0.7, 0.3, 1.1, -0.4, 0.0, 0.0]], tf.float32)
  dy = np.random.RandomState(1).standard_normal((2, 6, 3, 2))
  with tf.GradientTape() as tape:
    tape.watch([x, t])
    y = transform(x, t, [6, 3], fill_value=2.0, fill_mode="WRAP")
    loss = tf.reduce_sum(y * dy)
  gx, gt = tape.gradient(loss, [x, t])
  assert gt is None
  v = np.random.RandomState(2).standard_normal(x.shape)
  lin = (transform(v, t, [6, 3], fill_value=2.0, fill_mode="WRAP").numpy()
         - transform(np.zeros_like(v), t, [6, 3], fill_value=2.0, fill_mode="WRAP").numpy())
  np.testing.assert_allclose(np.sum(gx.numpy() * v), np.sum(lin * dy), rtol=1e-10)
