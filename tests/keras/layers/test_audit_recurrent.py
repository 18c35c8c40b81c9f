"""Audit of issue 13's recurrent layers against Keras 2's errors: after a build, an input
with other feature sizes (or a stateful layer's other batch size) is a ValueError naming
the layer, eager and traced, and leaves weights and states as they were; a mask whose
length is not the input's is a ValueError, not a silent result."""
import numpy as np
import pytest

import tensorlet as tf
from tests.keras.layers.layer_helpers import rand

L = tf.keras.layers

_RNNS = [
    lambda: L.SimpleRNN(3),
    lambda: L.LSTM(3, return_sequences=True),
    lambda: L.GRU(3, go_backwards=True),
    lambda: L.GRU(3, reset_after=False, time_major=True),
    lambda: L.RNN(L.LSTMCell(2)),
    lambda: L.RNN([L.GRUCell(2), L.SimpleRNNCell(3)]),
    lambda: L.Bidirectional(L.LSTM(2)),
]


@pytest.mark.parametrize("make", _RNNS)
@pytest.mark.parametrize("graph", [False, True])
def test_wrong_feature_size_after_build_is_a_value_error_and_changes_nothing(make, graph):
  layer = make()
  good = rand(2, 4, 3).astype(np.float32)
  want = layer(good).numpy()
  before = [w.copy() for w in layer.get_weights()]
  call = tf.function(lambda x: layer(x)) if graph else layer
  with pytest.raises(ValueError, match="is incompatible with the layer"):
    call(rand(2, 4, 5).astype(np.float32))
  for a, b in zip(layer.get_weights(), before):
    np.testing.assert_array_equal(a, b)
  np.testing.assert_allclose(layer(good).numpy(), want, rtol=1e-6)


def test_rnn_input_spec_message_names_the_expected_shape_like_keras2():
  layer = L.LSTM(2)
  layer(np.ones((2, 4, 3), np.float32))
  with pytest.raises(ValueError, match=r'layer "lstm\w*" .*expected shape=\(None, None, 3\), '
                                       r'found shape=\(2, 4, 5\)'):
    layer(np.ones((2, 4, 5), np.float32))
  # Other batch sizes and lengths are fine for a layer that is not stateful.
  assert layer(np.ones((5, 7, 3), np.float32)).shape == (5, 2)


def test_stateful_layer_rejects_another_batch_size_and_keeps_its_states():
  layer = L.LSTM(2, stateful=True)
  x = rand(2, 4, 3).astype(np.float32)
  layer(x)
  states = [s.numpy().copy() for s in layer.states]
  weights = [w.copy() for w in layer.get_weights()]
  with pytest.raises(ValueError, match=r"expected shape=\(2, None, 3\)"):
    layer(rand(3, 4, 3).astype(np.float32))
  for s, want in zip(layer.states, states):
    np.testing.assert_array_equal(s.numpy(), want)
  for a, b in zip(layer.get_weights(), weights):
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("make", [lambda: L.GRU(2), lambda: L.SimpleRNN(2, return_sequences=True),
                                  lambda: L.LSTM(2, go_backwards=True)])
def test_mask_of_another_length_is_a_value_error(make):
  x = np.ones((2, 4, 3), np.float32)
  with pytest.raises(ValueError, match="mask"):
    make()(x, mask=np.ones((2, 5), bool))
  with pytest.raises(ValueError, match="mask"):
    make()(x, mask=np.ones((3, 4), bool))
  # The right mask still works: a masked tail gives the state after the unmasked steps.
  layer = L.GRU(2)
  m = np.array([[True, True, False, False], [True, True, True, True]])
  x = rand(2, 4, 3).astype(np.float32)
  np.testing.assert_allclose(layer(x, mask=m).numpy()[0], layer(x[:1, :2]).numpy()[0],
                             rtol=1e-5, atol=1e-6)
