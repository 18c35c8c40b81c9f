"""Attention, AdditiveAttention, MultiHeadAttention: values against NumPy and real Keras 2
(fixture), finite-difference gradients eager and traced, configs, dropout, errors."""
import numpy as np
import pytest

import tensorlet as tf
from tests.keras.test_recurrent import ATTENTION, check_case_against_keras2, \
    check_layer_grads, rnn_cases

L = tf.keras.layers


def _rand(*shape, seed=0):
  return np.random.RandomState(seed).standard_normal(shape).astype(np.float32)


def _softmax(x):
  e = np.exp(x - x.max(-1, keepdims=True))
  return e / e.sum(-1, keepdims=True)


def np_mha(q, v, k, ws, heads, key_dim, mask=None):
  qk, qb, kk, kb, vk, vb, ok, ob = ws
  pq = np.einsum("btd,dhk->bthk", q, qk) + qb
  pk = np.einsum("bsd,dhk->bshk", k, kk) + kb
  pv = np.einsum("bsd,dhk->bshk", v, vk) + vb
  scores = np.einsum("bthk,bshk->bhts", pq / np.sqrt(key_dim), pk)
  if mask is not None:
    scores = scores + (1 - mask[:, None].astype(np.float32)) * -1e9
  probs = _softmax(scores)
  att = np.einsum("bhts,bshk->bthk", probs, pv)
  return np.einsum("bthk,hko->bto", att, ok) + ob, probs


@pytest.mark.parametrize("name", sorted(n for n in rnn_cases.CASES if n.startswith(ATTENTION)))
@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_same_outputs_and_weight_names_as_keras2(name, mode):
  check_case_against_keras2(name, mode)


def test_attention_matches_numpy_with_masks_and_scale():
  q, v, k = _rand(2, 3, 4), _rand(2, 5, 4, seed=1), _rand(2, 5, 4, seed=2)
  qm = np.array([[1, 1, 0], [1, 1, 1]], bool)
  vm = np.array([[1, 1, 1, 0, 0], [1, 0, 1, 1, 1]], bool)
  layer = L.Attention(use_scale=True)
  layer([q, v, k])
  layer.set_weights([np.float32(0.7)])
  out, w = layer([q, v, k], mask=[qm, vm], return_attention_scores=True)
  scores = 0.7 * q @ k.transpose(0, 2, 1) - 1e9 * (~vm[:, None])
  ref_w = _softmax(scores)
  np.testing.assert_allclose(w.numpy(), ref_w, rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(out.numpy(), (ref_w @ v) * qm[..., None], rtol=1e-5, atol=1e-6)
  causal = L.Attention()([q, v], use_causal_mask=True).numpy()
  tri = np.tril(np.ones((3, 5), bool))
  np.testing.assert_allclose(causal, _softmax(q @ v.transpose(0, 2, 1) - 1e9 * ~tri) @ v,
                             rtol=1e-5, atol=1e-6)
  assert layer.compute_mask([q, v], [qm, vm]).numpy().tolist() == qm.tolist()


def test_additive_attention_matches_numpy():
  q, v = _rand(2, 3, 4), _rand(2, 5, 4, seed=1)
  layer = L.AdditiveAttention()
  out = layer([q, v]).numpy()
  (scale,) = layer.get_weights()
  scores = (scale * np.tanh(q[:, :, None] + v[:, None])).sum(-1)
  np.testing.assert_allclose(out, _softmax(scores) @ v, rtol=1e-5, atol=1e-6)


def test_multi_head_attention_matches_numpy_and_layout():
  q, v = _rand(2, 4, 6), _rand(2, 5, 6, seed=1)
  mask = np.random.RandomState(3).uniform(size=(2, 4, 5)) > 0.4
  mask[..., 0] = True
  layer = L.MultiHeadAttention(num_heads=3, key_dim=2)
  out, probs = layer(q, v, attention_mask=mask, return_attention_scores=True)
  assert [tuple(w.shape) for w in layer.weights] == [
      (6, 3, 2), (3, 2), (6, 3, 2), (3, 2), (6, 3, 2), (3, 2), (3, 2, 6), (6,)]
  assert [w.name.split("/", 1)[1] for w in layer.weights][::2] == [
      "query/kernel:0", "key/kernel:0", "value/kernel:0", "attention_output/kernel:0"]
  ref, ref_p = np_mha(q, v, v, layer.get_weights(), 3, 2, mask)
  np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(probs.numpy(), ref_p, rtol=1e-5, atol=1e-6)
  f = tf.function(lambda a, b, m: layer(a, b, attention_mask=m))
  np.testing.assert_allclose(f(q, v, mask).numpy(), ref, rtol=1e-5, atol=1e-5)
  dyn = tf.function(lambda a, b: layer(a, b), input_signature=[
      tf.TensorSpec([None, None, 6]), tf.TensorSpec([None, None, 6])])
  np.testing.assert_allclose(dyn(q, v).numpy(), np_mha(q, v, v, layer.get_weights(), 3, 2)[0],
                             rtol=1e-5, atol=1e-5)


def test_mha_dropout_only_when_training():
  x = _rand(2, 4, 8)
  layer = L.MultiHeadAttention(2, 4, dropout=0.5)
  base = layer(x, x).numpy()
  np.testing.assert_array_equal(layer(x, x, training=False).numpy(), base)
  assert not np.allclose(layer(x, x, training=True).numpy(), base)
  att = L.Attention(dropout=0.5)
  assert not np.allclose(att([x, x], training=True).numpy(), att([x, x]).numpy())


@pytest.mark.parametrize("make,call", [
    (lambda: L.Attention(use_scale=True, score_mode="concat", dtype="float64"),
     lambda layer, x: layer([x, x[:, ::-1]], use_causal_mask=True)),
    (lambda: L.AdditiveAttention(dtype="float64"), lambda layer, x: layer([x, x * 2])),
    (lambda: L.MultiHeadAttention(2, 3, value_dim=2, dtype="float64"),
     lambda layer, x: layer(x, x[:, ::-1], use_causal_mask=True)),
    (lambda: L.MultiHeadAttention(2, 2, attention_axes=(1, 2), output_shape=(3,),
                                  dtype="float64"),
     lambda layer, x: layer(tf.reshape(x, [2, 2, 2, 3]), tf.reshape(x, [2, 2, 2, 3]))),
])
@pytest.mark.parametrize("graph", [False, True])
def test_gradients_finite_differences(make, call, graph):
  layer = make()
  x = _rand(2, 4, 3).astype(np.float64)
  call(layer, tf.constant(x))
  fn = (lambda t: call(layer, t))
  check_layer_grads(tf.function(fn) if graph else fn, x, layer.trainable_weights)


@pytest.mark.parametrize("make", [
    lambda: L.Attention(use_scale=True, score_mode="concat", dropout=0.1),
    lambda: L.AdditiveAttention(use_scale=False),
    lambda: L.MultiHeadAttention(4, 8, value_dim=3, dropout=0.2, use_bias=False,
                                 output_shape=(5,), attention_axes=(1,),
                                 kernel_regularizer="l2"),
])
def test_config_round_trip(make):
  layer = make()
  config = layer.get_config()
  assert type(layer).from_config(config).get_config() == config


def test_mha_config_carries_built_shapes_like_keras2():
  layer = L.MultiHeadAttention(2, 4)
  assert layer.get_config()["attention_axes"] is None
  layer(_rand(2, 5, 6), _rand(2, 7, 6))
  config = layer.get_config()
  assert config["attention_axes"] == (1,) and config["value_dim"] == 4
  assert config["query_shape"] == [2, 5, 6] and config["value_shape"] == [2, 7, 6]
  clone = L.MultiHeadAttention.from_config(config)
  clone(_rand(2, 5, 6), _rand(2, 7, 6))
  assert [w.shape for w in clone.weights] == [w.shape for w in layer.weights]


def test_transformer_block_in_functional_model_trains():
  inp = tf.keras.Input((6, 8))
  att = L.MultiHeadAttention(2, 4)(inp, inp)
  x = L.Dense(8)(att)
  out = L.Dense(1)(L.Flatten()(x))
  model = tf.keras.Model(inp, out)
  assert model.output_shape == (None, 1)
  x = _rand(16, 6, 8)
  y = _rand(16, 1, seed=1)
  model.compile("adam", "mse")
  hist = model.fit(x, y, epochs=4, batch_size=8, verbose=0)
  assert hist.history["loss"][-1] < hist.history["loss"][0]


def test_bad_arguments_and_inputs():
  q = _rand(2, 3, 4)
  with pytest.raises(ValueError, match="list of inputs"):
    L.Attention()(q)
  with pytest.raises(ValueError, match="length 2 or 3"):
    L.Attention()([q])
  with pytest.raises(ValueError, match="mask"):
    L.Attention()([q, q], mask=q > 0)
  with pytest.raises(ValueError, match="score_mode"):
    L.Attention(score_mode="cosine")
  with pytest.raises(ValueError, match="num_heads"):
    L.MultiHeadAttention(0, 4)
  with pytest.raises(ValueError, match="key_dim"):
    L.MultiHeadAttention(2, -1)
  with pytest.raises(TypeError, match="value"):
    L.MultiHeadAttention(2, 4)(q)
  layer = L.MultiHeadAttention(2, 4)
  with pytest.raises(ValueError, match="same rank"):
    layer(q, _rand(2, 3))
  assert layer.weights == []


def test_mha_robust_masking_matches_additive_masking_on_finite_scores():
  q, v = _rand(2, 4, 6), _rand(2, 5, 6, seed=1)
  mask = np.random.RandomState(3).uniform(size=(2, 4, 5)) > 0.4
  mask[..., 0] = True
  a = L.MultiHeadAttention(2, 3)
  b = L.MultiHeadAttention(2, 3, softmax_robust_masking=True)
  a(q, v)
  b(q, v)
  b.set_weights(a.get_weights())
  _, pa = a(q, v, attention_mask=mask, return_attention_scores=True)
  _, pb = b(q, v, attention_mask=mask, return_attention_scores=True)
  np.testing.assert_allclose(pb.numpy(), pa.numpy(), rtol=1e-5, atol=1e-7)
  assert np.all(pb.numpy()[~np.broadcast_to(mask[:, None], pb.shape)] < 1e-6)
  assert b.get_config()["softmax_robust_masking"] is True
