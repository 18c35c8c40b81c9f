"""The fused LSTM step: shape errors, and its two gradient forms agree."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.ops import rnn_ops


def test_bad_shapes_raise_invalid_argument():
  r = tf.ones([2, 8])
  with pytest.raises(tf.errors.InvalidArgumentError, match="LSTMStep"):
    rnn_ops.lstm_step(tf.ones([2, 7]), tf.ones([2, 2]), tf.ones([2, 2]), r)
  with pytest.raises(tf.errors.InvalidArgumentError, match="LSTMStep"):
    rnn_ops.lstm_step(tf.ones([2, 8]), tf.ones([2, 2]), tf.ones([3, 2]), r)
  with pytest.raises(tf.errors.InvalidArgumentError, match="LSTMStep"):
    rnn_ops.lstm_step(tf.ones([2, 8]), tf.ones([2, 2]), tf.ones([2, 2]), tf.ones([2, 6]))


def test_fused_and_primitive_gradients_agree():
  rng = np.random.RandomState(0)
  ins = [tf.constant(rng.standard_normal(s)) for s in ((3, 8), (3, 2), (3, 2), (2, 8))]

  def loss():
    h, c1 = rnn_ops.lstm_step(*ins)
    return tf.reduce_sum(h * 2.0) + tf.reduce_sum(c1)
  with tf.GradientTape() as outer:
    outer.watch(ins)
    with tf.GradientTape() as inner:
      inner.watch(ins)
      y = loss()
    recorded = inner.gradient(y, ins)  # an outer tape records: primitive ops
  with tf.GradientTape() as tape:
    tape.watch(ins)
    y = loss()
  fused = tape.gradient(y, ins)  # nothing records: the one-kernel LSTMStepGrad
  for a, b in zip(recorded, fused):
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
  assert outer.gradient(recorded[0], ins[0]) is not None
