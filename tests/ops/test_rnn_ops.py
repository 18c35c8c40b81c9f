"""The fused LSTM step: shape errors, and its two gradient forms agree."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.ops import rnn_ops


def test_bad_shapes_raise_invalid_argument():
  with pytest.raises(tf.errors.InvalidArgumentError, match="LSTMGates"):
    rnn_ops.lstm_gates(tf.ones([2, 7]), tf.ones([2, 2]))
  with pytest.raises(tf.errors.InvalidArgumentError, match="LSTMGates"):
    rnn_ops.lstm_gates(tf.ones([2, 8]), tf.ones([3, 2]))


def test_fused_and_primitive_gradients_agree():
  rng = np.random.RandomState(0)
  z, c = tf.constant(rng.standard_normal((3, 8))), tf.constant(rng.standard_normal((3, 2)))
  with tf.GradientTape() as outer:
    outer.watch([z, c])
    with tf.GradientTape() as inner:
      inner.watch([z, c])
      h, c1 = rnn_ops.lstm_gates(z, c)
      y = tf.reduce_sum(h * 2.0) + tf.reduce_sum(c1)
    recorded = inner.gradient(y, [z, c])  # an outer tape records: primitive ops
  with tf.GradientTape() as tape:
    tape.watch([z, c])
    h, c1 = rnn_ops.lstm_gates(z, c)
    y = tf.reduce_sum(h * 2.0) + tf.reduce_sum(c1)
  fused = tape.gradient(y, [z, c])  # nothing records: the one-kernel LSTMGatesGrad
  for a, b in zip(recorded, fused):
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
  assert outer.gradient(recorded[0], z) is not None
