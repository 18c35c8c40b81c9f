"""The fused LSTM step and the one-op LSTM and GRU sequences: shape errors, and their two
gradient forms agree."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.ops import gru_sequence_ops, rnn_ops, rnn_sequence_ops


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


def test_while_loop_gradient_replays_no_lstm_step(monkeypatch):
  # The gradient loop recomputes only what LSTMStepGrad reads (the step's inputs); the
  # forward step itself, whose outputs it does not need, is pruned from the replay.
  calls = []
  kernel = rnn_ops.LSTMStep.kernel
  monkeypatch.setattr(rnn_ops.LSTMStep, "kernel", lambda *a: calls.append(1) or kernel(*a))
  rng = np.random.RandomState(1)
  xs = tf.constant(rng.standard_normal((5, 3, 8)).astype(np.float32))
  r = tf.Variable(rng.standard_normal((2, 8)).astype(np.float32))

  @tf.function
  def grads(xs):
    with tf.GradientTape() as tape:
      tape.watch(xs)
      h = c = tf.zeros([3, 2])
      _, h, c = tf.while_loop(lambda t, h, c: t < 5,
                              lambda t, h, c: (t + 1, *rnn_ops.lstm_step(xs[t], h, c, r)),
                              (0, h, c))
      loss = tf.reduce_sum(h)
    return tape.gradient(loss, [xs, r])
  got = grads(xs)
  calls.clear()
  got = grads(xs)
  assert len(calls) == 5
  with tf.GradientTape() as tape:  # eager Python loop: the reference
    tape.watch(xs)
    h = c = tf.zeros([3, 2])
    for t in range(5):
      h, c = rnn_ops.lstm_step(xs[t], h, c, r)
    loss = tf.reduce_sum(h)
  want = tape.gradient(loss, [xs, r])
  for a, b in zip(got, want):
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def test_sequence_bad_shapes_raise_invalid_argument():
  r = tf.ones([2, 8])
  h = tf.ones([3, 2])
  for xp, h0, c0, rk in ((tf.ones([4, 3, 7]), h, h, r), (tf.ones([3, 8]), h, h, r),
                         (tf.ones([4, 2, 8]), h, h, r), (tf.ones([4, 3, 8]), h, tf.ones([2, 2]), r),
                         (tf.ones([4, 3, 8]), h, h, tf.ones([2, 6]))):
    with pytest.raises(tf.errors.InvalidArgumentError, match="LSTMSequence"):
      rnn_sequence_ops.lstm_sequence(xp, h0, c0, rk)
  with pytest.raises(tf.errors.InvalidArgumentError, match="MaskedLSTMSequence"):
    rnn_sequence_ops.lstm_sequence(tf.ones([4, 3, 8]), h, h, r, mask=tf.ones([4, 3], tf.bool))
  with pytest.raises(tf.errors.InvalidArgumentError, match="recurrent_scale"):
    rnn_sequence_ops.lstm_sequence(tf.ones([4, 3, 8]), h, h, r, recurrent_scale=tf.ones([3, 3]))


def test_sequence_fused_and_primitive_gradients_agree():
  # The one-kernel LSTMSequenceGrad (no tape records the gradient) against the
  # primitive-op while_loop form (an outer tape records it), and the per-step op.
  rng = np.random.RandomState(2)
  ins = [tf.constant(rng.standard_normal(s)) for s in ((6, 3, 8), (3, 2), (3, 2), (2, 8))]
  w = [tf.constant(rng.standard_normal((6, 3, 2))) for _ in range(2)]

  def loss(seq):
    hs, cs = seq()
    return tf.reduce_sum(hs * w[0]) + tf.reduce_sum(cs * w[1])

  def steps():
    xp, h, c, r = ins
    hs, cs = [], []
    for t in range(6):
      h, c = rnn_ops.lstm_step(xp[t], h, c, r)
      hs.append(h)
      cs.append(c)
    return tf.stack(hs), tf.stack(cs)
  with tf.GradientTape() as outer:
    outer.watch(ins)
    with tf.GradientTape() as inner:
      inner.watch(ins)
      y = loss(lambda: rnn_sequence_ops.lstm_sequence(*ins))
    recorded = inner.gradient(y, ins)
  with tf.GradientTape() as tape:
    tape.watch(ins)
    y = loss(lambda: rnn_sequence_ops.lstm_sequence(*ins))
  fused = tape.gradient(y, ins)
  with tf.GradientTape() as tape:
    tape.watch(ins)
    y = loss(steps)
  per_step = tape.gradient(y, ins)
  for a, b, c in zip(recorded, fused, per_step):
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(c.numpy(), b.numpy(), rtol=1e-12, atol=1e-14)
  assert outer.gradient(recorded[3], ins[0]) is not None


def test_sequence_gradient_in_graph_with_unknown_steps():
  rng = np.random.RandomState(3)
  ins = [tf.constant(rng.standard_normal(s).astype(np.float32))
         for s in ((5, 2, 4), (2, 1), (2, 1), (1, 4))]

  @tf.function(input_signature=[tf.TensorSpec([None, None, 4])] +
               [tf.TensorSpec([None, 1])] * 2 + [tf.TensorSpec([1, 4])])
  def grads(*a):
    with tf.GradientTape() as tape:
      tape.watch(a)
      hs, cs = rnn_sequence_ops.lstm_sequence(*a)
      y = tf.reduce_sum(hs[-1]) + tf.reduce_sum(cs * 0.5)
    return tape.gradient(y, a)
  with tf.GradientTape() as tape:
    tape.watch(ins)
    hs, cs = rnn_sequence_ops.lstm_sequence(*ins)
    y = tf.reduce_sum(hs[-1]) + tf.reduce_sum(cs * 0.5)
  for a, b in zip(grads(*ins), tape.gradient(y, ins)):
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)


def test_gru_sequence_bad_shapes_raise_invalid_argument():
  r, rb, h = tf.ones([2, 6]), tf.ones([6]), tf.ones([3, 2])
  for xp, h0, rk, b in ((tf.ones([4, 3, 5]), h, r, rb), (tf.ones([3, 6]), h, r, rb),
                        (tf.ones([4, 2, 6]), h, r, rb), (tf.ones([4, 3, 6]), h, r, tf.ones([2, 6])),
                        (tf.ones([4, 3, 6]), h, tf.ones([2, 8]), rb)):
    with pytest.raises(tf.errors.InvalidArgumentError, match="GRUSequence"):
      gru_sequence_ops.gru_sequence(xp, h0, rk, b)
  with pytest.raises(tf.errors.InvalidArgumentError, match="MaskedGRUSequence"):
    gru_sequence_ops.gru_sequence(tf.ones([4, 3, 6]), h, r, rb, mask=tf.ones([4, 1, 1], tf.bool))
  with pytest.raises(tf.errors.InvalidArgumentError, match="recurrent_scale"):
    gru_sequence_ops.gru_sequence(tf.ones([4, 3, 6]), h, r, rb, recurrent_scale=tf.ones([2]))


def test_gru_sequence_fused_and_primitive_gradients_agree():
  rng = np.random.RandomState(4)
  ins = [tf.constant(rng.standard_normal(s)) for s in ((6, 3, 6), (3, 2), (2, 6), (6,))]
  mask = tf.constant(rng.rand(6, 3, 1) > 0.3)
  w = tf.constant(rng.standard_normal((6, 3, 2)))
  for m in (None, mask):
    with tf.GradientTape() as outer:
      outer.watch(ins)
      with tf.GradientTape() as inner:
        inner.watch(ins)
        y = tf.reduce_sum(gru_sequence_ops.gru_sequence(*ins, mask=m) * w)
      recorded = inner.gradient(y, ins)
    with tf.GradientTape() as tape:
      tape.watch(ins)
      y = tf.reduce_sum(gru_sequence_ops.gru_sequence(*ins, mask=m) * w)
    for a, b in zip(recorded, tape.gradient(y, ins)):
      np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-14)
    assert outer.gradient(recorded[2], ins[0]) is not None
