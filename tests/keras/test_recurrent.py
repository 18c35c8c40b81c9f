"""Recurrent layers: SimpleRNN/LSTM/GRU, their cells, RNN, StackedRNNCells, Bidirectional,
TimeDistributed. Values against NumPy references and against real Keras 2 (fixture), finite
difference gradients eager and through the graph's while_loop, configs, states, errors."""
import os
import re
import sys

import numpy as np
import pytest

import tensorlet as tf
from tests.gradcheck import check_grads

L = tf.keras.layers
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "fixtures"))
import rnn_cases  # noqa: E402

REF = np.load(os.path.join(HERE, "fixtures", "rnn_reference.npz"))


def _rand(*shape, seed=0):
  return np.random.RandomState(seed).standard_normal(shape).astype(np.float32)


def _sig(x):
  return 1 / (1 + np.exp(-x))


# --------------------------------------------------------- NumPy references

def np_simple(x, k, r, b, h0=None, act=np.tanh):
  h = np.zeros((x.shape[0], r.shape[0]), x.dtype) if h0 is None else h0
  outs = []
  for t in range(x.shape[1]):
    h = act(x[:, t] @ k + h @ r + b)
    outs.append(h)
  return np.stack(outs, 1), [h]


def np_lstm(x, k, r, b, h0=None, c0=None, mask=None, backwards=False):
  u = r.shape[0]
  h = np.zeros((x.shape[0], u), x.dtype) if h0 is None else h0
  c = np.zeros_like(h) if c0 is None else c0
  outs = []
  out = np.zeros_like(h)  # Keras repeats the previous output at masked steps (zeros first)
  order = range(x.shape[1] - 1, -1, -1) if backwards else range(x.shape[1])
  for t in order:
    z = x[:, t] @ k + h @ r + b
    i, f, g, o = _sig(z[:, :u]), _sig(z[:, u:2 * u]), np.tanh(z[:, 2 * u:3 * u]), \
        _sig(z[:, 3 * u:])
    c_new = f * c + i * g
    h_new = o * np.tanh(c_new)
    if mask is not None:
      m = mask[:, t:t + 1]
      c_new = np.where(m, c_new, c)
      out = np.where(m, h_new, out)
      h_new = np.where(m, h_new, h)
    else:
      out = h_new
    h, c = h_new, c_new
    outs.append(out)
  return np.stack(outs, 1), [h, c]


def np_gru(x, k, r, b, h0=None, reset_after=True):
  u = r.shape[0]
  h = np.zeros((x.shape[0], u), x.dtype) if h0 is None else h0
  outs = []
  for t in range(x.shape[1]):
    if reset_after:
      xp = x[:, t] @ k + b[0]
      hr = h @ r + b[1]
      z = _sig(xp[:, :u] + hr[:, :u])
      rr = _sig(xp[:, u:2 * u] + hr[:, u:2 * u])
      hh = np.tanh(xp[:, 2 * u:] + rr * hr[:, 2 * u:])
    else:
      xp = x[:, t] @ k + b
      z = _sig(xp[:, :u] + h @ r[:, :u])
      rr = _sig(xp[:, u:2 * u] + h @ r[:, u:2 * u])
      hh = np.tanh(xp[:, 2 * u:] + (rr * h) @ r[:, 2 * u:])
    h = z * h + (1 - z) * hh
    outs.append(h)
  return np.stack(outs, 1), [h]


def test_simple_rnn_matches_numpy_eager_and_graph():
  x = _rand(3, 6, 4)
  layer = L.SimpleRNN(5, return_sequences=True, return_state=True)
  seq, h = layer(x)
  ref_seq, (ref_h,) = np_simple(x, *layer.get_weights())
  np.testing.assert_allclose(seq.numpy(), ref_seq, rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(h.numpy(), ref_h, rtol=1e-5, atol=1e-6)
  g_seq, g_h = tf.function(lambda t: layer(t))(x)
  np.testing.assert_allclose(g_seq.numpy(), ref_seq, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("backwards", [False, True])
def test_lstm_matches_numpy_with_mask_and_initial_state(backwards):
  x = _rand(3, 6, 4)
  mask = np.array([[1, 1, 1, 0, 1, 1], [1, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1]], bool)
  h0, c0 = _rand(3, 5, seed=1), _rand(3, 5, seed=2)
  layer = L.LSTM(5, return_sequences=True, return_state=True, go_backwards=backwards)
  layer(x)
  k, r, b = layer.get_weights()
  assert k.shape == (4, 20) and r.shape == (5, 20) and b.shape == (20,)
  np.testing.assert_array_equal(b, np.r_[np.zeros(5), np.ones(5), np.zeros(10)])  # forget bias
  b = _rand(20, seed=3)
  layer.set_weights([k, r, b])
  ref_seq, (ref_h, ref_c) = np_lstm(x, k, r, b, h0, c0, mask, backwards)
  for fn in (layer, tf.function(lambda *a, **kw: layer(*a, **kw))):
    seq, h, c = fn(x, mask=mask, initial_state=[h0, c0])
    np.testing.assert_allclose(seq.numpy(), ref_seq, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.numpy(), ref_h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.numpy(), ref_c, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reset_after", [True, False])
def test_gru_matches_numpy(reset_after):
  x = _rand(2, 5, 3)
  h0 = _rand(2, 4, seed=4)
  layer = L.GRU(4, reset_after=reset_after, return_sequences=True)
  layer(x)
  k, r, b = layer.get_weights()
  assert b.shape == ((2, 12) if reset_after else (12,))
  b = _rand(*b.shape, seed=5)
  layer.set_weights([k, r, b])
  ref, _ = np_gru(x, k, r, b, h0, reset_after)
  np.testing.assert_allclose(layer(x, initial_state=[h0]).numpy(), ref, rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(tf.function(lambda t: layer(t, initial_state=[h0]))(x).numpy(),
                             ref, rtol=1e-5, atol=1e-6)


def test_cells_one_step_match_numpy():
  x, h = _rand(2, 3), _rand(2, 4, seed=1)
  cell = L.LSTMCell(4)
  out, (h1, c1) = cell(x, [h, h])
  k, r, b = cell.get_weights()
  _, (rh, rc) = np_lstm(x[:, None], k, r, b, h, h)
  np.testing.assert_allclose(out.numpy(), rh, rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(c1.numpy(), rc, rtol=1e-5, atol=1e-6)
  g = L.GRUCell(4)
  out, (h1,) = g(x, [h])
  ref, _ = np_gru(x[:, None], *g.get_weights(), h)
  np.testing.assert_allclose(out.numpy(), ref[:, 0], rtol=1e-5, atol=1e-6)
  s = L.SimpleRNNCell(4)
  out, _ = s(x, [h])
  ref, _ = np_simple(x[:, None], *s.get_weights(), h)
  np.testing.assert_allclose(out.numpy(), ref[:, 0], rtol=1e-5, atol=1e-6)
  assert cell.state_size == [4, 4] and g.state_size == 4 and cell.output_size == 4


# --------------------------------------------------------- real Keras 2

ATTENTION = ("mha", "attention", "additive")  # in test_attention.py


@pytest.mark.parametrize("name", sorted(n for n in rnn_cases.CASES if not n.startswith(ATTENTION)))
@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_same_outputs_and_weight_names_as_keras2(name, mode):
  check_case_against_keras2(name, mode)


def check_case_against_keras2(name, mode):
  expr, args, kwargs = rnn_cases.CASES[name]
  layer = eval(expr)  # noqa: S307 - the shared case table
  a = [rnn_cases.resolve(v) for v in args]
  kw = {k: rnn_cases.resolve(v) for k, v in kwargs.items()}
  layer(*a, **kw)
  n = len([k for k in REF.files if k.startswith(name + "/w")])
  layer.set_weights([REF[f"{name}/w{j}"] for j in range(n)])

  def strip(s):  # layer-name counters differ between the two processes
    return re.sub(r"_\d+(/|$)", r"\1", str(s))
  assert [strip(w.name) for w in layer.weights] == [strip(s) for s in REF[f"{name}/names"]]
  fn = layer if mode == "eager" else tf.function(lambda *a, **kw: layer(*a, **kw))
  res = tf.nest.flatten(fn(*a, **kw))
  assert len(res) == len([k for k in REF.files if k.startswith(name + "/out")])
  for j, r in enumerate(res):
    np.testing.assert_allclose(np.asarray(r), REF[f"{name}/out{j}"], rtol=1e-4, atol=1e-5)


# --------------------------------------------------------- gradients

@pytest.mark.parametrize("make", [
    lambda: L.SimpleRNN(3, return_sequences=True, dtype="float64"),
    lambda: L.LSTM(3, dtype="float64"),
    lambda: L.LSTM(3, return_sequences=True, go_backwards=True, dtype="float64"),
    lambda: L.GRU(3, return_sequences=True, go_backwards=True, dtype="float64"),
    lambda: L.GRU(3, reset_after=False, dtype="float64"),
    lambda: L.GRU(3, use_bias=False, dtype="float64"),
    lambda: L.RNN([L.LSTMCell(2, dtype="float64"), L.SimpleRNNCell(2, dtype="float64")],
                  dtype="float64"),
    lambda: L.Bidirectional(L.LSTM(2, return_sequences=True, dtype="float64"),
                            dtype="float64"),
    lambda: L.TimeDistributed(L.Dense(2, activation="tanh", dtype="float64"),
                              dtype="float64"),
])
@pytest.mark.parametrize("graph", [False, True])
def test_gradients_finite_differences(make, graph):
  layer = make()
  x = _rand(2, 4, 3).astype(np.float64)
  layer(x)
  fn = tf.function(lambda t: layer(t)) if graph else layer
  check_layer_grads(fn, x, layer.trainable_weights)
  if graph:
    with tf.GradientTape() as tape:
      y = tf.reduce_sum(fn(tf.constant(x)) ** 2)
    g_graph = tape.gradient(y, layer.trainable_weights)
    with tf.GradientTape() as tape:
      y = tf.reduce_sum(layer(tf.constant(x)) ** 2)
    g_eager = tape.gradient(y, layer.trainable_weights)
    for a, b in zip(g_graph, g_eager):
      np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-7, atol=1e-9)


def check_layer_grads(fn, x, variables, eps=1e-5, seed=0):
  """Tape gradient of sum(fn(x) * r) w.r.t. x and the layer's variables against central
  differences in a random direction."""
  rng = np.random.RandomState(seed)

  xt = tf.constant(x)
  with tf.GradientTape() as tape:
    tape.watch(xt)
    outs = tf.nest.flatten(fn(xt))
    r = [rng.standard_normal(o.shape) for o in outs]
    y = tf.add_n([tf.reduce_sum(o * w) for o, w in zip(outs, r)])
  grads = tape.gradient(y, [xt] + list(variables))
  assert all(g is not None for g in grads)
  dirs = [rng.standard_normal(x.shape)] + [rng.standard_normal(v.shape) for v in variables]
  analytic = sum(float(np.sum(np.asarray(g) * d)) for g, d in zip(grads, dirs))
  base = [v.numpy().copy() for v in variables]

  def at(sign):
    for v, b, d in zip(variables, base, dirs[1:]):
      v.assign(b + sign * eps * d)
    outs = tf.nest.flatten(fn(tf.constant(x + sign * eps * dirs[0])))
    return sum(float(np.sum(o.numpy() * w)) for o, w in zip(outs, r))
  numeric = (at(1) - at(-1)) / (2 * eps)
  for v, b in zip(variables, base):
    v.assign(b)
  assert np.isclose(analytic, numeric, rtol=1e-5, atol=1e-7), (analytic, numeric)


def _op_types(layer, spec, *extra):
  f = tf.function(lambda *t: layer(*t))
  return [op.type for op in f.get_concrete_function(spec, *extra).graph.get_operations()]


def test_graph_is_one_while_loop_not_unrolled():
  types = _op_types(L.SimpleRNN(4, return_sequences=True), tf.TensorSpec([2, 30, 3]))
  assert types.count("While") == 1
  assert types.count("MatMul") <= 2  # the input projection is one GEMM before the loop
  types = _op_types(L.GRU(4, reset_after=False), tf.TensorSpec([2, 30, 3]))
  assert types.count("While") == 1 and "GRUSequence" not in types
  # GRU (reset_after=True, the default): all steps in one op
  types = _op_types(L.GRU(4, return_sequences=True), tf.TensorSpec([2, 30, 3]))
  assert types.count("GRUSequence") == 1 and "While" not in types
  # LSTM: all steps in one op (its gradient keeps the gate activations), no loop
  types = _op_types(L.LSTM(4, return_sequences=True), tf.TensorSpec([2, 30, 3]))
  assert types.count("LSTMSequence") == 1 and "While" not in types
  assert types.count("MatMul") <= 1
  layer = L.LSTM(4)
  types = _op_types(lambda t, m: layer(t, mask=m), tf.TensorSpec([2, 30, 3]),
                    tf.TensorSpec([2, 30], tf.bool))
  assert types.count("MaskedLSTMSequence") == 1 and "While" not in types
  # recurrent dropout: the masked form (its recurrent scale)
  for layer, fused in ((L.LSTM(4, recurrent_dropout=0.5), "MaskedLSTMSequence"),
                       (L.GRU(4, recurrent_dropout=0.5), "MaskedGRUSequence")):
    types = _op_types(lambda t: layer(t, training=True), tf.TensorSpec([2, 30, 3]))
    assert types.count(fused) == 1 and "While" not in types
  # options the fused op does not cover run the loop
  for layer in (L.LSTM(4, activation="relu"), L.GRU(4, recurrent_activation="hard_sigmoid")):
    types = _op_types(lambda t: layer(t, training=True), tf.TensorSpec([2, 30, 3]))
    assert types.count("While") == 1 and not any("Sequence" in t for t in types)
  unrolled = L.LSTM(4, unroll=True)
  g = tf.function(lambda t: unrolled(t))
  types = [op.type for op in g.get_concrete_function(tf.TensorSpec([2, 3, 3])).graph
           .get_operations()]
  assert "While" not in types


def _check_fused_against_step_loop(x, units, mask=None, layer=L.LSTM, training=None, **kw):
  """The one-op LSTM or GRU ((Masked)LSTMSequence, (Masked)GRUSequence), eager and in a
  graph, against the per-step loop (unroll=True) of the same weights: every output and
  the gradients with respect to the inputs, an initial state and the weights. With
  `training`, each run draws its dropout masks from the same seed."""
  kw.update(return_sequences=True, return_state=True)
  fused, steps = layer(units, **kw), layer(units, unroll=True, **kw)
  fused(x)
  steps(x)
  steps.set_weights(fused.get_weights())
  states = [tf.constant(_rand(x.shape[0], units, seed=s))
            for s in (7, 8)[:len(fused.cell.state_size) if layer is L.LSTM else 1]]
  extra = {} if mask is None else {"mask": tf.constant(mask)}

  if training is not None:
    extra["training"] = training

  def run(layer):
    tf.keras.utils.set_random_seed(11)
    with tf.GradientTape() as tape:
      xt = tf.constant(x)
      tape.watch([xt] + states)
      outs = layer(xt, initial_state=states, **extra)
      y = tf.add_n([tf.reduce_sum(o * (k + 1.5)) for k, o in enumerate(outs)])
    return outs, tape.gradient(y, [xt] + states + layer.trainable_weights)
  # NOTE: graphs against graphs: a graph draws other random numbers than eager code
  for got, want in ((run(fused), run(steps)), (tf.function(run)(fused), tf.function(run)(steps))):
    for a, b in zip(tf.nest.flatten(got), tf.nest.flatten(want)):
      np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)
  return fused, steps


def test_fused_lstm_matches_step_loop_values_and_gradients():
  x = _rand(3, 6, 4, seed=3)
  fused, steps = _check_fused_against_step_loop(x, 5)
  # in a graph with an unknown number of steps
  dyn = tf.function(lambda t: fused(t), input_signature=[tf.TensorSpec([None, None, 4])])
  np.testing.assert_allclose(dyn(x)[0].numpy(), steps(x)[0].numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("layer", [L.LSTM, L.GRU])
@pytest.mark.parametrize("zero_masked", [False, True])
@pytest.mark.parametrize("backwards", [False, True])
def test_fused_masked_rnn_matches_step_loop(layer, zero_masked, backwards):
  # rows masked at the start, in the middle, at the end and throughout
  mask = np.ones((4, 6), bool)
  mask[0, :2] = mask[1, 2:4] = mask[2, 4:] = mask[3, :] = False
  _check_fused_against_step_loop(_rand(4, 6, 3, seed=6), 3, mask, layer,
                                 go_backwards=backwards, zero_output_for_mask=zero_masked)


@pytest.mark.parametrize("layer", [L.LSTM, L.GRU])
@pytest.mark.parametrize("masked", [False, True])
def test_fused_rnn_with_recurrent_dropout_matches_step_loop(layer, masked):
  mask = np.ones((3, 5), bool)
  mask[1, 3:] = False
  _check_fused_against_step_loop(_rand(3, 5, 4, seed=12), 4, mask if masked else None, layer,
                                 training=True, dropout=0.25, recurrent_dropout=0.4)


@pytest.mark.parametrize("use_bias", [True, False])
def test_fused_gru_matches_step_loop(use_bias):
  _check_fused_against_step_loop(_rand(3, 5, 4, seed=9), 4, layer=L.GRU, use_bias=use_bias)


@pytest.mark.parametrize("make", [L.LSTM, L.GRU])
def test_fused_rnn_second_order_matches_step_loop(make):
  # A gradient penalty (the gradient of a gradient) through the one-op layer, eager and
  # in a graph, against the step loop's.
  x = _rand(2, 5, 3, seed=10).astype(np.float64)
  fused, steps = make(3, dtype="float64"), make(3, unroll=True, dtype="float64")
  fused(x)
  steps(x)
  steps.set_weights(fused.get_weights())

  def penalty_grads(layer):
    xt = tf.constant(x)
    with tf.GradientTape() as outer:
      outer.watch(xt)
      with tf.GradientTape() as inner:
        inner.watch(xt)
        y = tf.reduce_sum(layer(xt) ** 2)
      g = inner.gradient(y, xt)
      penalty = tf.reduce_sum(g * g)
    return outer.gradient(penalty, [xt] + layer.trainable_weights)
  want = penalty_grads(steps)
  for got in (penalty_grads(fused), tf.function(penalty_grads)(fused)):
    for a, b in zip(got, want):
      np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("make", [L.LSTM, L.GRU])
def test_fused_masked_rnn_gradients_finite_differences(make):
  layer = make(3, return_sequences=True, dtype="float64")
  x = _rand(3, 5, 2).astype(np.float64)
  x[0, :2] = 0.0
  x[2, 3:] = 0.0
  layer(x)
  masked = lambda t: layer(t, mask=tf.constant(x.any(-1)))  # noqa: E731
  check_layer_grads(masked, x, layer.trainable_weights)
  check_layer_grads(tf.function(masked), x, layer.trainable_weights)


def test_unroll_matches_loop_and_needs_known_time():
  x = _rand(2, 5, 3)
  a = L.GRU(3, unroll=True)
  b = L.GRU(3)
  a(x)
  b(x)
  b.set_weights(a.get_weights())
  np.testing.assert_allclose(tf.function(lambda t: a(t))(x).numpy(), b(x).numpy(), rtol=1e-6)
  with pytest.raises(ValueError, match="unroll"):
    tf.function(lambda t: a(t)).get_concrete_function(tf.TensorSpec([2, None, 3]))


def test_variable_length_graph_input():
  layer = L.LSTM(3, return_sequences=True)
  f = tf.function(lambda t: layer(t), input_signature=[tf.TensorSpec([None, None, 2])])
  for steps in (3, 7):
    x = _rand(2, steps, 2)
    np.testing.assert_allclose(f(x).numpy(), layer(x).numpy(), rtol=1e-5, atol=1e-6)


# --------------------------------------------------------- training flags, states

def test_dropout_only_when_training_eager_and_graph():
  x = _rand(4, 6, 3)
  layer = L.LSTM(8, dropout=0.5, recurrent_dropout=0.5)
  base = layer(x).numpy()
  np.testing.assert_array_equal(layer(x, training=False).numpy(), base)
  tf.random.set_seed(1)
  assert not np.allclose(layer(x, training=True).numpy(), base)
  f = tf.function(lambda t, training: layer(t, training=training))
  np.testing.assert_allclose(f(x, False).numpy(), base, rtol=1e-6)
  assert not np.allclose(f(x, True).numpy(), base)
  for cls in (L.GRU, L.SimpleRNN):
    lay = cls(4, dropout=0.3, recurrent_dropout=0.3)
    assert not np.allclose(lay(x, training=True).numpy(), lay(x).numpy())


def test_stateful_carries_states_and_reset_states():
  x = _rand(2, 3, 2)
  layer = L.SimpleRNN(3, stateful=True)
  first = layer(x).numpy()
  second = layer(x).numpy()
  assert not np.allclose(first, second)
  k, r, b = layer.get_weights()
  ref, (h,) = np_simple(x, k, r, b)
  ref2, _ = np_simple(x, k, r, b, h)
  np.testing.assert_allclose(second, ref2[:, -1], rtol=1e-5, atol=1e-6)
  assert len(layer.weights) == 3 and len(layer.states) == 1
  layer.reset_states()
  np.testing.assert_allclose(layer(x).numpy(), first, rtol=1e-6)
  layer.reset_states([np.ones((2, 3), np.float32)])
  np.testing.assert_array_equal(layer.states[0].numpy(), np.ones((2, 3)))
  with pytest.raises(ValueError):
    layer.reset_states([np.ones((5, 3))])
  with pytest.raises(AttributeError):
    L.LSTM(2).reset_states()
  with pytest.raises(ValueError, match="batch size"):
    L.LSTM(2, stateful=True)(tf.keras.Input((3, 2)))


def test_stateful_in_tf_function_updates_states():
  layer = L.LSTM(2, stateful=True)
  x = _rand(1, 4, 3)
  f = tf.function(lambda t: layer(t))
  a = f(x).numpy()
  b = f(x).numpy()
  assert not np.allclose(a, b)
  layer.reset_states()
  np.testing.assert_allclose(f(x).numpy(), a, rtol=1e-6)


def test_user_cell_in_generic_rnn():
  class MinimalCell(L.Layer):
    def __init__(self, units, **kw):
      super().__init__(**kw)
      self.units = units
      self.state_size = units

    def build(self, input_shape):
      self.kernel = self.add_weight("kernel", (input_shape[-1], self.units))
      self.recurrent_kernel = self.add_weight("recurrent_kernel", (self.units, self.units))

    def call(self, inputs, states):
      out = tf.matmul(inputs, self.kernel) + tf.matmul(states[0], self.recurrent_kernel)
      return out, [out]

  layer = L.RNN(MinimalCell(3), return_sequences=True)
  x = _rand(2, 4, 5)
  y = layer(x)
  k, r = layer.get_weights()
  ref, _ = np_simple(x, k, r, 0, act=lambda v: v)
  np.testing.assert_allclose(y.numpy(), ref, rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(tf.function(lambda t: layer(t))(x).numpy(), ref, rtol=1e-5,
                             atol=1e-5)
  assert [w.name.split("/", 1)[1] for w in layer.weights] == [
      "minimal_cell/kernel:0", "minimal_cell/recurrent_kernel:0"]


# --------------------------------------------------------- configs

@pytest.mark.parametrize("make", [
    lambda: L.SimpleRNN(3, activation="relu", dropout=0.1, return_sequences=True),
    lambda: L.LSTM(4, recurrent_activation="hard_sigmoid", unit_forget_bias=False,
                   go_backwards=True, kernel_regularizer="l2"),
    lambda: L.GRU(2, reset_after=False, stateful=False, return_state=True, unroll=True),
    lambda: L.RNN([L.LSTMCell(3), L.GRUCell(2)], return_sequences=True),
    lambda: L.RNN(L.SimpleRNNCell(3), time_major=True),
    lambda: L.Bidirectional(L.LSTM(3, return_sequences=True), merge_mode="sum"),
    lambda: L.Bidirectional(L.LSTM(2), backward_layer=L.GRU(2, go_backwards=True)),
    lambda: L.TimeDistributed(L.Dense(3)),
    lambda: L.LSTMCell(3, dropout=0.2),
    lambda: L.GRUCell(3),
    lambda: L.SimpleRNNCell(3),
    lambda: L.StackedRNNCells([L.LSTMCell(2), L.LSTMCell(3)]),
])
def test_config_round_trip(make):
  layer = make()
  config = layer.get_config()
  clone = type(layer).from_config(config)
  assert clone.get_config() == config


def test_config_matches_keras2_keys():
  config = L.LSTM(3).get_config()
  assert list(config) == [
      "name", "trainable", "dtype", "return_sequences", "return_state", "go_backwards",
      "stateful", "unroll", "time_major", "units", "activation", "recurrent_activation",
      "use_bias", "kernel_initializer", "recurrent_initializer", "bias_initializer",
      "unit_forget_bias", "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
      "activity_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint",
      "dropout", "recurrent_dropout", "implementation"]
  assert L.GRU(3).get_config()["reset_after"] is True
  assert config["recurrent_initializer"]["class_name"] == "Orthogonal"
  bi = L.Bidirectional(L.LSTM(3)).get_config()
  assert bi["merge_mode"] == "concat" and bi["layer"]["class_name"] == "LSTM"


# --------------------------------------------------------- models

def test_functional_and_sequential_models_train():
  rng = np.random.RandomState(0)
  x = rng.standard_normal((32, 6, 3)).astype(np.float32)
  y = (x.sum(axis=(1, 2)) > 0).astype(np.float32)[:, None]
  inp = tf.keras.Input((6, 3))
  seq = L.Bidirectional(L.GRU(4, return_sequences=True))(inp)
  out = L.Dense(1, activation="sigmoid")(L.LSTM(4)(L.TimeDistributed(L.Dense(4))(seq)))
  model = tf.keras.Model(inp, out)
  assert model.output_shape == (None, 1)
  model.compile("adam", "binary_crossentropy")
  hist = model.fit(x, y, epochs=3, batch_size=16, verbose=0)
  assert hist.history["loss"][-1] < hist.history["loss"][0]
  seq_model = tf.keras.Sequential([L.SimpleRNN(4, input_shape=(6, 3)), L.Dense(1)])
  seq_model.compile("sgd", "mse")
  seq_model.fit(x, y, epochs=1, verbose=0)
  assert seq_model.predict(x, verbose=0).shape == (32, 1)


def test_functional_return_state_and_initial_state_inputs():
  inp = tf.keras.Input((5, 3))
  out, h, c = L.LSTM(4, return_state=True)(inp)
  dec = L.LSTM(4, return_sequences=True)(inp, initial_state=[h, c])
  model = tf.keras.Model(inp, dec)
  x = _rand(2, 5, 3)
  assert model(x).shape == (2, 5, 4)
  assert L.LSTM(2, return_sequences=True).compute_output_shape((None, 7, 3)) == (None, 7, 2)


# --------------------------------------------------------- errors

def test_bad_arguments_and_inputs_raise_keras_errors():
  with pytest.raises(ValueError, match="units"):
    L.LSTM(0)
  with pytest.raises(ValueError, match="units"):
    L.GRUCell(-2)
  with pytest.raises(TypeError, match="units"):
    L.SimpleRNN("a")
  layer = L.LSTM(2)
  with pytest.raises(ValueError, match="expected ndim=3"):
    layer(np.ones((2, 3), np.float32))
  assert not layer.built
  with pytest.raises(ValueError, match="state"):
    L.LSTM(2)(np.ones((2, 3, 1), np.float32), initial_state=[np.ones((2, 2), np.float32)])
  with pytest.raises(ValueError, match="call"):
    L.RNN(object())
  with pytest.raises(ValueError, match="state_size"):
    L.RNN(L.Dense(2))
  with pytest.raises(ValueError, match="Layer"):
    L.Bidirectional(3)
  with pytest.raises(ValueError, match="recurrent"):
    L.Bidirectional(L.Dense(2))
  with pytest.raises(ValueError, match="merge mode"):
    L.Bidirectional(L.LSTM(2), merge_mode="x")
  with pytest.raises(ValueError, match="go_backwards"):
    L.Bidirectional(L.LSTM(2), backward_layer=L.LSTM(2))
  with pytest.raises(ValueError, match="TimeDistributed"):
    L.TimeDistributed(3)
  with pytest.raises(ValueError, match="at least 3 dimensions"):
    L.TimeDistributed(L.Dense(2))(np.ones((2, 3), np.float32))
  with pytest.raises(ValueError, match="does not support constants"):
    L.RNN(L.LSTMCell(2))(np.ones((2, 3, 1), np.float32), constants=[np.ones((2, 1))])
  assert L.LSTM(2, dropout=3.0).dropout == 1.0  # Keras 2 clips rates


def test_time_major_matches_batch_major():
  x = _rand(2, 5, 3)
  a = L.GRU(4, return_sequences=True)
  b = L.GRU(4, return_sequences=True, time_major=True)
  a(x)
  b(x.transpose(1, 0, 2))
  b.set_weights(a.get_weights())
  want = a(x).numpy()
  for fn in (b, tf.function(lambda t: b(t))):
    np.testing.assert_allclose(fn(x.transpose(1, 0, 2)).numpy(), want.transpose(1, 0, 2),
                               rtol=1e-5, atol=1e-6)


def test_bidirectional_initial_state_list_form_and_stateful_reset():
  x = _rand(2, 4, 3)
  states = [_rand(2, 2, seed=i) for i in range(4)]
  bi = L.Bidirectional(L.LSTM(2, return_state=True))
  out = bi(x, initial_state=states)
  assert len(out) == 5 and out[0].shape == (2, 4)
  listed = bi([x] + states)
  np.testing.assert_allclose(listed[0].numpy(), out[0].numpy(), rtol=1e-6)
  fw = bi.forward_layer
  ref, (h, c) = np_lstm(x, *fw.get_weights(), states[0], states[1])
  np.testing.assert_allclose(out[1].numpy(), h, rtol=1e-5, atol=1e-6)
  with pytest.raises(ValueError, match="initial_state"):
    bi(x, initial_state=states[:3])
  sbi = L.Bidirectional(L.SimpleRNN(2, stateful=True))
  first = sbi(x).numpy()
  assert not np.allclose(sbi(x).numpy(), first)
  sbi.reset_states()
  np.testing.assert_allclose(sbi(x).numpy(), first, rtol=1e-6)


def test_model_reset_states_resets_stateful_layers():
  model = tf.keras.Sequential([L.LSTM(3, stateful=True, batch_input_shape=(2, 4, 2)),
                               L.Dense(1)])
  x = _rand(2, 4, 2)
  first = model.predict(x, verbose=0)
  assert not np.allclose(model.predict(x, verbose=0), first)
  model.reset_states()
  np.testing.assert_allclose(model.predict(x, verbose=0), first, rtol=1e-6)
