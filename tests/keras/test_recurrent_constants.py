"""RNN(constants=...) with cells that take constant inputs, and the dropout masks of
stacked cells drawn once per sequence."""
import numpy as np
import pytest

import tensorlet as tf

L = tf.keras.layers


@tf.keras.utils.register_keras_serializable(package="rnn_constants_test")
class ConstCell(L.Layer):
  """h_t = x_t @ w + h_{t-1} + c (c a constant input of the RNN)."""

  def __init__(self, units, **kwargs):
    super().__init__(**kwargs)
    self.units = units
    self.state_size = units

  def build(self, input_shape):
    self.w = self.add_weight("w", [input_shape[-1], self.units], initializer="glorot_uniform")

  def call(self, inputs, states, constants):
    h = tf.matmul(inputs, self.w) + states[0] + constants[0]
    return h, [h]

  def get_config(self):
    return {**super().get_config(), "units": self.units}


def _reference(x, w, c):
  h = np.zeros((x.shape[0], w.shape[1]), np.float32)
  outs = []
  for t in range(x.shape[1]):
    h = x[:, t] @ w + h + c
    outs.append(h)
  return np.stack(outs, 1)


def test_constants_values_eager_traced_and_functional():
  rng = np.random.RandomState(0)
  x = rng.rand(2, 4, 3).astype(np.float32)
  c = rng.rand(2, 5).astype(np.float32)
  rnn = L.RNN(ConstCell(5), return_sequences=True)
  out = rnn(x, constants=c).numpy()
  want = _reference(x, rnn.cell.w.numpy(), c)
  np.testing.assert_allclose(out, want, rtol=1e-5)
  traced = tf.function(lambda a, b: rnn(a, constants=b))(x, c)
  np.testing.assert_allclose(traced.numpy(), want, rtol=1e-5)
  xi, ci = L.Input((4, 3)), L.Input((5,))
  model = tf.keras.Model([xi, ci], rnn(xi, constants=ci))
  np.testing.assert_allclose(model([x, c]).numpy(), want, rtol=1e-5)
  assert rnn.get_config()["num_constants"] == 1


def test_constants_gradient_and_config_round_trip():
  rng = np.random.RandomState(1)
  x = tf.constant(rng.rand(2, 3, 2).astype(np.float32))
  c = tf.constant(rng.rand(2, 4).astype(np.float32))
  rnn = L.RNN(ConstCell(4))
  with tf.GradientTape() as tape:
    tape.watch(c)
    y = tf.reduce_sum(rnn(x, constants=c))
  # h_T = ... + T * c: each constant entry adds 3 (time steps) to the sum.
  np.testing.assert_allclose(tape.gradient(y, c).numpy(), np.full((2, 4), 3.0), rtol=1e-6)
  clone = L.RNN.from_config(rnn.get_config())
  assert clone._num_constants == 1 and isinstance(clone.cell, ConstCell)


def test_constants_on_a_cell_without_them_is_an_error():
  with pytest.raises(ValueError, match="does not support constants"):
    L.RNN(L.SimpleRNNCell(2))(np.ones((1, 2, 2), np.float32), constants=np.ones((1, 2)))


def test_stacked_constants_reach_the_cells_that_take_them():
  x = np.ones((1, 2, 2), np.float32)
  c = np.full((1, 3), 10.0, np.float32)
  rnn = L.RNN([ConstCell(3), L.SimpleRNNCell(3)], return_sequences=True)
  out = rnn(x, constants=c).numpy()
  assert out.shape == (1, 2, 3)


@pytest.mark.parametrize("traced", [False, True])
def test_stacked_cells_dropout_masks_drawn_once_per_sequence(traced):
  tf.random.set_seed(3)
  cells = [L.SimpleRNNCell(8, dropout=0.5, recurrent_initializer="zeros"),
           L.SimpleRNNCell(8, dropout=0.5, recurrent_initializer="zeros")]
  rnn = L.RNN(cells, return_sequences=True)
  # The same input at every step and no recurrence: equal outputs at every step iff
  # every step uses the same dropout masks.
  x = np.tile(np.random.RandomState(0).rand(4, 1, 6).astype(np.float32), [1, 5, 1])
  call = tf.function(lambda a: rnn(a, training=True)) if traced else \
      (lambda a: rnn(a, training=True))
  out = call(x).numpy()
  for t in range(1, 5):
    np.testing.assert_allclose(out[:, t], out[:, 0], rtol=1e-6)
  inference = rnn(x, training=False).numpy()
  assert not np.allclose(out, inference)  # dropout did act
  assert all(c._tl_masks is None for c in cells)  # nothing left over for the next call
  again = call(x).numpy()
  assert not np.allclose(again, out)  # a new sequence draws new masks
