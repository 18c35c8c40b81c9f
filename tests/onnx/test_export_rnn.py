"""Keras LSTM / GRU models exported to ONNX's LSTM / GRU operators run in ONNX Runtime
with tensorlet's outputs (masks, go_backwards, Bidirectional, returned states)."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet import keras
from tensorlet.ops.gru_sequence_ops import gru_sequence
from tensorlet.ops.rnn_sequence_ops import lstm_sequence

import onnxruntime as ort  # noqa: E402

L = keras.layers


def _run(model, *args):
  opts = ort.SessionOptions()
  opts.log_severity_level = 3
  sess = ort.InferenceSession(model.SerializeToString(), opts,
                              providers=["CPUExecutionProvider"])
  feed = {i.name: np.asarray(a) for i, a in zip(sess.get_inputs(), args)}
  return sess.run(None, feed)


def _tokens():
  x = np.random.default_rng(0).integers(1, 50, size=(5, 7)).astype(np.int32)
  x[0, :3] = 0     # left padding
  x[1, 5:] = 0     # right padding
  x[2, [2, 4]] = 0  # holes
  x[3] = 0         # nothing unmasked
  return x


_LAYERS = {
    "lstm": lambda: L.LSTM(8),
    "lstm_seq": lambda: L.LSTM(8, return_sequences=True),
    "lstm_backwards": lambda: L.LSTM(8, go_backwards=True, return_sequences=True),
    "gru": lambda: L.GRU(8),
    "gru_seq_backwards": lambda: L.GRU(8, return_sequences=True, go_backwards=True),
    "bidirectional_lstm": lambda: L.Bidirectional(L.LSTM(4, return_sequences=True)),
    "bidirectional_gru": lambda: L.Bidirectional(L.GRU(4), merge_mode="sum"),
}


@pytest.mark.parametrize("mask_zero", [False, True])
@pytest.mark.parametrize("kind", sorted(_LAYERS))
def test_text_classifier_matches_onnx_runtime(kind, mask_zero):
  tf.random.set_seed(1)
  inp = keras.Input([7], dtype="int32")
  h = L.Embedding(50, 6, mask_zero=mask_zero)(inp)
  model = keras.Model(inp, L.Dense(3)(_LAYERS[kind]()(h)))
  x = _tokens()
  proto = tf.onnx.export(model)
  types = {n.op_type for n in proto.graph.node}
  assert ("GRU" if "gru" in kind else "LSTM") in types and "Gather" in types
  assert "Loop" not in types
  # the operator projects the input: the only MatMul left is Dense's
  assert [n.op_type for n in proto.graph.node].count("MatMul") == 1
  rnn = [n for n in proto.graph.node if n.op_type in ("LSTM", "GRU")]
  assert not any(n.input[1].startswith("gate_order") for n in rnn)
  want = model(x).numpy()
  got = _run(proto, x)[0]
  assert got.shape == want.shape
  np.testing.assert_allclose(got, want, atol=1e-5)
  if mask_zero and kind.endswith("seq"):
    assert np.all(want[3] == model.layers[-1].bias.numpy())  # masked steps output zeros


@pytest.mark.parametrize("cell", ["LSTM", "GRU"])
def test_returned_states_and_initial_states(cell):
  n_states = 2 if cell == "LSTM" else 1
  x_in = keras.Input([6, 3])
  s_in = [keras.Input([5]) for _ in range(n_states)]
  layer = getattr(L, cell)(5, return_sequences=True, return_state=True)
  outs = layer(x_in, initial_state=s_in)
  model = keras.Model([x_in] + s_in, outs)
  rng = np.random.default_rng(2)
  args = [rng.normal(size=[4, 6, 3]).astype(np.float32)] + \
      [rng.normal(size=[4, 5]).astype(np.float32) for _ in range(n_states)]
  got = _run(tf.onnx.export(model), *args)
  want = model(args)
  assert len(got) == 1 + n_states
  for a, b in zip(got, want):
    np.testing.assert_allclose(a, b.numpy(), atol=1e-5)


def test_sequence_ops_directly_with_a_mask():
  rng = np.random.default_rng(3)
  xp4, xp3 = (rng.normal(size=[6, 3, k * 4]).astype(np.float32) for k in (4, 3))
  mask = rng.random([6, 3, 1]) > 0.4
  r4, r3 = (rng.normal(size=[4, k * 4]).astype(np.float32) * 0.5 for k in (4, 3))
  rb = rng.normal(size=[12]).astype(np.float32)
  h0 = rng.normal(size=[3, 4]).astype(np.float32)

  @tf.function(input_signature=[tf.TensorSpec([None, 3, 16]), tf.TensorSpec([None, 3, 12]),
                                tf.TensorSpec([None, 3, 1], tf.bool), tf.TensorSpec([3, 4])])
  def f(xp4, xp3, mask, h0):
    hs, cs = lstm_sequence(xp4, h0, -h0, r4, mask=mask)
    gs = gru_sequence(xp3, h0, r3, rb, mask=mask)
    return hs, cs[-1], gs, gs[-1]
  proto = tf.onnx.export(f)
  rnn = [n for n in proto.graph.node if n.op_type in ("LSTM", "GRU")]
  assert len(rnn) == 2 and all(n.input[1].startswith("gate_order") for n in rnn)  # 0/1 W
  got = _run(proto, xp4, xp3, mask, h0)
  for a, b in zip(got, f(xp4, xp3, mask, h0)):
    np.testing.assert_allclose(a, b.numpy(), atol=1e-5)


def test_what_onnx_cannot_express_is_reported():
  r = np.ones([2, 8], np.float32)

  @tf.function(input_signature=[tf.TensorSpec([5, 2, 8]), tf.TensorSpec([2, 2])])
  def every_c(xp, h0):
    return lstm_sequence(xp, h0, h0, r)[1]
  assert [t for t, _ in tf.onnx.unsupported_ops(every_c)] == [
      "LSTMSequence with its cell state read at steps other than the last (ONNX's LSTM "
      "returns only the last)"]

  @tf.function(input_signature=[tf.TensorSpec([5, 2, 8]), tf.TensorSpec([2, 2])])
  def dropped(xp, scale):
    return lstm_sequence(xp, scale, scale, r, recurrent_scale=scale)[0]
  with pytest.raises(ValueError, match="MaskedLSTMSequence with recurrent dropout"):
    tf.onnx.export(dropped)


def test_recurrent_dropout_layers_export_for_inference():
  model = keras.Sequential([L.Embedding(50, 6, mask_zero=True),
                            L.GRU(4, dropout=0.3, recurrent_dropout=0.3), L.Dense(2)])
  x = _tokens()
  model(x)
  np.testing.assert_allclose(_run(tf.onnx.export(model), x.astype(np.float32))[0],
                             model(x).numpy(), atol=1e-5)


_LOOP_LAYERS = {
    "simple_rnn": lambda: L.SimpleRNN(8),
    "simple_rnn_relu_seq_backwards": lambda: L.SimpleRNN(8, activation="relu",
                                                          return_sequences=True,
                                                          go_backwards=True),
    "gru_reset_before": lambda: L.GRU(8, reset_after=False, return_sequences=True),
    "lstm_hard_sigmoid": lambda: L.LSTM(8, recurrent_activation="hard_sigmoid"),
    "bidirectional_simple_rnn": lambda: L.Bidirectional(L.SimpleRNN(4, return_sequences=True)),
}


@pytest.mark.parametrize("mask_zero", [False, True])
@pytest.mark.parametrize("kind", sorted(_LOOP_LAYERS))
def test_loop_recurrent_layers_export_as_onnx_loops(kind, mask_zero):
  # NOTE: the layers without a one-op form run a while_loop over TensorLists: a Loop
  # carrying ONNX sequences.
  tf.random.set_seed(5)
  model = keras.Sequential([L.Embedding(50, 6, mask_zero=mask_zero), _LOOP_LAYERS[kind](),
                            L.Dense(3)])
  x = _tokens()
  model(x)
  proto = tf.onnx.export(model)
  assert "Loop" in {n.op_type for n in proto.graph.node}
  np.testing.assert_allclose(_run(proto, x.astype(np.float32))[0], model(x).numpy(),
                             atol=1e-5)


@pytest.mark.parametrize("opset", [13, 18])
def test_the_lowest_and_a_late_opset(opset):
  model = keras.Sequential([L.Embedding(50, 3, mask_zero=True),
                            L.Bidirectional(L.SimpleRNN(4, return_sequences=True)),
                            L.LSTM(4), L.Dense(2)])
  x = _tokens().astype(np.float32)
  model(x)
  np.testing.assert_allclose(_run(tf.onnx.export(model, opset=opset), x)[0],
                             model(x).numpy(), atol=1e-5)


_MORE = {
    "lstm_unrolled": lambda: [L.LSTM(4, unroll=True)],
    "gru_unrolled": lambda: [L.GRU(4, unroll=True, return_sequences=True)],
    "simple_rnn_unrolled": lambda: [L.SimpleRNN(4, unroll=True)],
    "lstm_no_bias": lambda: [L.LSTM(4, use_bias=False)],
    "gru_no_bias": lambda: [L.GRU(4, use_bias=False, return_sequences=True)],
    "time_major": lambda: [L.LSTM(4, time_major=True, return_sequences=True)],
    "masking_layer": lambda: [L.Masking(0.0), L.LSTM(4, return_sequences=True)],
    "masking_layer_unrolled": lambda: [L.Masking(0.0), L.GRU(4, unroll=True)],
}


@pytest.mark.parametrize("kind", sorted(_MORE))
def test_more_layer_configurations(kind):
  tf.random.set_seed(7)
  model = keras.Sequential(_MORE[kind]())
  x = np.random.default_rng(7).normal(size=[3, 6, 5]).astype(np.float32)
  x[0, :2] = 0
  x[1, 4:] = 0
  model(x)
  np.testing.assert_allclose(_run(tf.onnx.export(model), x)[0], model(x).numpy(), atol=1e-5)


def test_a_stateful_layer_is_reported():
  model = keras.Sequential([keras.Input(batch_shape=(3, 6, 5)), L.LSTM(4, stateful=True)])
  model(np.zeros([3, 6, 5], np.float32))
  assert [t for t, _ in tf.onnx.unsupported_ops(model)] == ["AssignVariableOp"] * 2


def test_any_all_and_empty_axes():
  @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.bool)])
  def f(b):
    return (tf.reduce_any(b, axis=1), tf.reduce_all(b, axis=0, keepdims=True),
            tf.reduce_any(b[:0], axis=0), tf.reduce_all(b[:0], axis=0),
            tf.reduce_sum(tf.cast(b, tf.float32), axis=[]), tf.reduce_any(b))
  b = np.array([[True, False, True], [False, False, True]])
  for a, w in zip(_run(tf.onnx.export(f), b), f(b)):
    assert a.dtype == w.numpy().dtype
    np.testing.assert_array_equal(a, w.numpy())


def test_a_custom_cell_in_keras_rnn():
  class Cell(L.Layer):
    state_size = 4

    def build(self, shape):
      self.k = self.add_weight("k", [shape[-1], 4])
      self.r = self.add_weight("r", [4, 4])

    def call(self, x, states):
      h = tf.nn.relu(tf.matmul(x, self.k) + tf.matmul(states[0], self.r))
      return h, [h]
  model = keras.Sequential([L.RNN(Cell(), return_sequences=True)])
  x = np.random.default_rng(1).normal(size=[2, 5, 3]).astype(np.float32)
  model(x)
  np.testing.assert_allclose(_run(tf.onnx.export(model), x)[0], model(x).numpy(), atol=1e-6)


def test_a_growing_tensor_array_is_reported():
  @tf.function(input_signature=[tf.TensorSpec([4, 3])])
  def f(x):
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    ta = ta.write(0, x[0])
    return ta.stack()
  assert [t for t, _ in tf.onnx.unsupported_ops(f)] == [
      "TensorListSetItem with dynamic_size (a list that grows)"]


def test_gather_fill_like_cumsum_reverse_split():
  rng = np.random.default_rng(4)
  params = rng.normal(size=[6, 3]).astype(np.float32)

  @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.int32),
                                tf.TensorSpec([None, 3], tf.float32)])
  def f(ids, x):
    e = tf.gather(params, ids)                       # [b, 4, 3]
    g = tf.gather(x, [2, 0], axis=1)
    full = tf.fill([tf.shape(x)[0], 2], 1.5)
    return (e, g, full, tf.ones_like(ids), tf.zeros_like(x),
            tf.math.cumsum(x, axis=1), tf.math.cumsum(x, axis=0, exclusive=True, reverse=True),
            tf.reverse(e, [0, 2]), tf.split(e, 3, axis=2)[1], tf.split(ids, 5, axis=0)[4],
            tf.nn.bias_add(e, [1.0, 2.0, 3.0, 4.0], data_format="NCHW"))
  ids = rng.integers(0, 6, size=[5, 4]).astype(np.int32)
  x = rng.normal(size=[5, 3]).astype(np.float32)
  for a, b in zip(_run(tf.onnx.export(f), ids, x), f(ids, x)):
    assert a.dtype == b.numpy().dtype
    np.testing.assert_allclose(a, b.numpy(), rtol=1e-6, atol=1e-6)

  g = tf.function(lambda p, i: tf.gather(p, i, axis=1, batch_dims=1),
                  input_signature=[tf.TensorSpec([2, 3]), tf.TensorSpec([2, 2], tf.int32)])
  assert [t for t, _ in tf.onnx.unsupported_ops(g)] == ["GatherV2 with batch_dims"]


def test_a_users_loop_writing_a_tensor_array():
  @tf.function(input_signature=[tf.TensorSpec([None, 3])])
  def f(x):
    ta = tf.TensorArray(tf.float32, size=tf.shape(x)[0])
    acc = tf.zeros([3])
    for i in tf.range(tf.shape(x)[0]):
      acc = acc * 0.5 + x[i]
      ta = ta.write(i, acc)
    return ta.stack(), ta.size()
  x = np.random.default_rng(6).normal(size=[5, 3]).astype(np.float32)
  proto = tf.onnx.export(f)
  assert {"Loop", "SplitToSequence", "ConcatFromSequence"} <= {n.op_type for n in proto.graph.node}
  got = _run(proto, x)
  for a, b in zip(got, f(x)):
    np.testing.assert_allclose(a, b.numpy(), atol=1e-6)


def test_slices_at_indices_computed_by_tensors():
  @tf.function(input_signature=[tf.TensorSpec([4, 5]), tf.TensorSpec([], tf.int32),
                                tf.TensorSpec([], tf.int32)])
  def f(x, i, j):
    return x[i], x[i:j, -1], x[1, j::-1], x[:, i], tf.range(i, j + 10, 2)
  x = np.arange(20, dtype=np.float32).reshape(4, 5)
  proto = tf.onnx.export(f)
  for i, j in [(1, 3), (-1, 2), (0, -1)]:
    args = (x, np.int32(i), np.int32(j))
    for a, b in zip(_run(proto, *args), f(*args)):
      np.testing.assert_array_equal(a, b.numpy())
  g = tf.function(lambda x, k: x[::k], input_signature=[tf.TensorSpec([4]),
                                                         tf.TensorSpec([], tf.int32)])
  assert [t for t, _ in tf.onnx.unsupported_ops(g)] == [
      "StridedSlice with a step computed by a tensor and an open start or end"]
