"""Sequence-model training steps (issue 13/18), each beside a hand-written NumPy floor:

- LSTM text classifier: Embedding(10000, 64) -> LSTM(64) -> Dense(1), batch 32 of 100
  token ids, binary cross-entropy from logits, Adam.
- SimpleRNN text classifier: Embedding(10000, 64) -> SimpleRNN(64) -> Dense(1), the LSTM's
  data and loss; its graph runs a `tf.while_loop` per time step (the loop machinery's
  benchmark: the one-op LSTM no longer runs one).
- Transformer block: x + MultiHeadAttention(4 heads, key_dim 16) -> LayerNormalization ->
  x + Dense(64)(Dense(256, relu)) -> LayerNormalization, batch 32 x 64 steps x 64, mean
  squared error to a target, Adam.

`tf_reference.py` in this folder times the same steps in real TensorFlow.
"""
import time

import numpy as np

import tensorlet as tf
from harness import time_pair

from seq_data import (D_MODEL, EMB, FF, HEADS, STEPS, T_SEQ, UNITS, VOCAB, lstm_data,
                      transformer_data)


def _sig(x):
  return 1 / (1 + np.exp(-x))


def _text_model(recurrent):
  """Embedding(VOCAB, EMB) -> `recurrent`(UNITS) -> Dense(1), seeded and built."""
  L = tf.keras.layers
  tf.keras.utils.set_random_seed(0)
  model = tf.keras.Sequential([L.Embedding(VOCAB, EMB), recurrent(UNITS), L.Dense(1)])
  model.build((None, STEPS))
  return model


def lstm_model():
  return _text_model(tf.keras.layers.LSTM)


def lstm_numpy_step(params, ids, y, update):
  """Forward, backpropagation through time and `update(ps, grads)` of the same model."""
  ps = [np.array(p) for p in params]
  u = UNITS
  flat_ids = ids.reshape(-1)
  n = ids.shape[0]

  def step():
    emb, k, r, b, wd, bd = ps
    e = emb[flat_ids]  # (B*T, E)
    xp = (e @ k + b).reshape(n, STEPS, 4 * u).transpose(1, 0, 2)
    h = np.zeros((n, u), np.float32)
    c = np.zeros((n, u), np.float32)
    hs, cs, gates = [h], [c], []
    for t in range(STEPS):
      z = xp[t] + h @ r
      i, f, o = _sig(z[:, :u]), _sig(z[:, u:2 * u]), _sig(z[:, 3 * u:])
      g = np.tanh(z[:, 2 * u:3 * u])
      c = f * c + i * g
      h = o * np.tanh(c)
      hs.append(h)
      cs.append(c)
      gates.append((i, f, g, o))
    logits = h @ wd + bd
    loss = np.mean(np.maximum(logits, 0) - logits * y + np.log1p(np.exp(-np.abs(logits))))
    dl = (_sig(logits) - y) / n
    dwd, dbd = h.T @ dl, dl.sum(0)
    dh = dl @ wd.T
    dc = np.zeros_like(dh)
    dr = np.zeros_like(r)
    dxp = np.empty((STEPS, n, 4 * u), np.float32)
    for t in range(STEPS - 1, -1, -1):
      i, f, g, o = gates[t]
      tc = np.tanh(cs[t + 1])
      dc = dc + dh * o * (1 - tc * tc)
      dz = dxp[t]
      dz[:, :u] = dc * g * i * (1 - i)
      dz[:, u:2 * u] = dc * cs[t] * f * (1 - f)
      dz[:, 2 * u:3 * u] = dc * i * (1 - g * g)
      dz[:, 3 * u:] = dh * tc * o * (1 - o)
      dr += hs[t].T @ dz
      dh = dz @ r.T
      dc = dc * f
    dxp2 = dxp.transpose(1, 0, 2).reshape(-1, 4 * u)
    dk = e.T @ dxp2
    db = dxp2.sum(0)
    demb = np.zeros_like(emb)
    np.add.at(demb, flat_ids, dxp2 @ k.T)
    update(ps, [demb, dk, dr, db, dwd, dbd])
    return loss
  return step


def lstm_train_step(model, opt):
  from w7_common import keras_train_step
  return keras_train_step(tf, model, tf.keras.losses.BinaryCrossentropy(from_logits=True), opt)


def _adam():
  return tf.keras.optimizers.Adam(1e-3, beta_1=0.9, beta_2=0.999, epsilon=1e-7)


def _rows(name, train_step, step_np, x, y, repeat):
  l_tl, l_np = float(train_step(x, y)), float(step_np())
  assert abs(l_tl - l_np) < 1e-4, (l_tl, l_np)
  tl, npy = time_pair(lambda: train_step(x, y), step_np, repeat)
  yield (f"{name}, eager", tl, npy, "ms", "-")
  f = tf.function(train_step)
  t = time.perf_counter()
  f(x, y)
  first = time.perf_counter() - t
  tl, npy = time_pair(lambda: f(x, y), step_np, repeat)
  yield (f"{name}, tf.function", tl, npy, "ms", "<= TF graph (tf_reference.py)")
  yield (f"{name} trace (first - steady)", first - tl, 0, "ms", "-")


def _text_classifier(name, model, numpy_step, repeat):
  """Rows of a text classifier's train step (`model`) beside `numpy_step`, Adam, batch
  32 x 100 steps."""
  from workloads import _numpy_adam
  ids, y = lstm_data()
  params = [np.asarray(v) for v in model.trainable_variables]
  step_np = numpy_step(params, ids, y, _numpy_adam(params))
  yield from _rows(name, lstm_train_step(model, _adam()), step_np, tf.constant(ids),
                   tf.constant(y), max(3, repeat // 3))


def lstm_text_classifier(repeat):
  """Embedding(10000, 64) -> LSTM(64) -> Dense(1), Adam, batch 32 x 100 steps."""
  return _text_classifier("LSTM text classifier step", lstm_model(), lstm_numpy_step, repeat)


# ------------------------------------------------------------- SimpleRNN

def simple_rnn_model():
  return _text_model(tf.keras.layers.SimpleRNN)


def simple_rnn_numpy_step(params, ids, y, update):
  """Forward, backpropagation through time and `update(ps, grads)` of the SimpleRNN model."""
  ps = [np.array(p) for p in params]
  flat_ids = ids.reshape(-1)
  n = ids.shape[0]

  def step():
    emb, k, r, b, wd, bd = ps
    e = emb[flat_ids]  # (B*T, E)
    xp = (e @ k + b).reshape(n, STEPS, UNITS).transpose(1, 0, 2)
    h = np.zeros((n, UNITS), np.float32)
    hs = [h]
    for t in range(STEPS):
      h = np.tanh(xp[t] + h @ r)
      hs.append(h)
    logits = h @ wd + bd
    loss = np.mean(np.maximum(logits, 0) - logits * y + np.log1p(np.exp(-np.abs(logits))))
    dl = (_sig(logits) - y) / n
    dwd, dbd = h.T @ dl, dl.sum(0)
    dh = dl @ wd.T
    dr = np.zeros_like(r)
    dxp = np.empty((STEPS, n, UNITS), np.float32)
    for t in range(STEPS - 1, -1, -1):
      h1 = hs[t + 1]
      dz = dxp[t]
      np.multiply(dh, 1 - h1 * h1, out=dz)
      dr += hs[t].T @ dz
      dh = dz @ r.T
    dxp2 = dxp.transpose(1, 0, 2).reshape(-1, UNITS)
    dk = e.T @ dxp2
    db = dxp2.sum(0)
    demb = np.zeros_like(emb)
    np.add.at(demb, flat_ids, dxp2 @ k.T)
    update(ps, [demb, dk, dr, db, dwd, dbd])
    return loss
  return step


def simple_rnn_text_classifier(repeat):
  """Embedding(10000, 64) -> SimpleRNN(64) -> Dense(1), Adam, batch 32 x 100 steps."""
  return _text_classifier("SimpleRNN text classifier step", simple_rnn_model(),
                          simple_rnn_numpy_step, repeat)


# ------------------------------------------------------------- Transformer block

def transformer_model():
  L = tf.keras.layers
  LN = L.LayerNormalization
  tf.keras.utils.set_random_seed(0)

  class Block(tf.keras.Model):
    def __init__(self):
      super().__init__()
      self.mha = L.MultiHeadAttention(HEADS, D_MODEL // HEADS)
      self.ln1 = LN()
      self.ff1 = L.Dense(FF, activation="relu")
      self.ff2 = L.Dense(D_MODEL)
      self.ln2 = LN()

    def call(self, x, training=None):
      x1 = self.ln1(x + self.mha(x, x, training=training))
      return self.ln2(x1 + self.ff2(self.ff1(x1)))
  model = Block()
  model(np.zeros((1, T_SEQ, D_MODEL), np.float32))
  return model


def _ln_forward(x, g, b):
  mu = x.mean(-1, keepdims=True)
  xc = x - mu
  inv = 1 / np.sqrt((xc * xc).mean(-1, keepdims=True) + 1e-3)
  xh = xc * inv
  return xh * g + b, (xh, inv)


def _ln_backward(dy, g, cache):
  xh, inv = cache
  dxh = dy * g
  n = xh.shape[-1]
  dx = inv / n * (n * dxh - dxh.sum(-1, keepdims=True) - xh * (dxh * xh).sum(-1, keepdims=True))
  return dx, (dy * xh).reshape(-1, n).sum(0), dy.reshape(-1, n).sum(0)


def transformer_numpy_step(params, x, y, update):
  """Hand-derived forward and backward of the block; params in Keras' weight order."""
  ps = [np.array(p) for p in params]
  bsz, t, d = x.shape
  hd = D_MODEL // HEADS
  x2 = x.reshape(-1, d)

  def heads(a):  # (B*T, H*hd) -> (B, H, T, hd)
    return a.reshape(bsz, t, HEADS, hd).transpose(0, 2, 1, 3)

  def merge(a):  # (B, H, T, hd) -> (B*T, H*hd)
    return a.transpose(0, 2, 1, 3).reshape(bsz * t, HEADS * hd)

  def step():
    (qk, qb, kk, kb, vk, vb, ok, ob, g1, b1, w1, c1, w2, c2, g2, b2) = ps
    qk2, kk2, vk2 = (w.reshape(d, -1) for w in (qk, kk, vk))
    ok2 = ok.reshape(-1, d)
    q = heads(x2 @ qk2 + qb.reshape(-1)) * np.float32(1 / np.sqrt(hd))
    k = heads(x2 @ kk2 + kb.reshape(-1))
    v = heads(x2 @ vk2 + vb.reshape(-1))
    s = q @ k.transpose(0, 1, 3, 2)
    s = np.exp(s - s.max(-1, keepdims=True))
    p = s / s.sum(-1, keepdims=True)
    o = merge(p @ v)
    att = o @ ok2 + ob
    x1, ln1 = _ln_forward(x2 + att, g1, b1)
    hpre = x1 @ w1 + c1
    hr = np.maximum(hpre, 0)
    ff = hr @ w2 + c2
    out, ln2 = _ln_forward(x1 + ff, g2, b2)
    diff = out - y.reshape(-1, d)
    loss = np.mean(diff * diff)
    dout = diff * np.float32(2 / diff.size)
    dsum2, dg2, db2 = _ln_backward(dout, g2, ln2)
    dw2, dc2 = hr.T @ dsum2, dsum2.sum(0)
    dh = (dsum2 @ w2.T) * (hpre > 0)
    dw1, dc1 = x1.T @ dh, dh.sum(0)
    dx1 = dsum2 + dh @ w1.T
    dsum1, dg1, db1 = _ln_backward(dx1, g1, ln1)
    dok, dob = o.T @ dsum1, dsum1.sum(0)
    do = heads(dsum1 @ ok2.T)
    dp = do @ v.transpose(0, 1, 3, 2)
    dv = p.transpose(0, 1, 3, 2) @ do
    ds = p * (dp - (dp * p).sum(-1, keepdims=True))
    dq = (ds @ k) * np.float32(1 / np.sqrt(hd))
    dk = ds.transpose(0, 1, 3, 2) @ q
    dq2, dk2, dv2 = merge(dq), merge(dk), merge(dv)
    grads = [(x2.T @ dq2).reshape(qk.shape), dq2.sum(0).reshape(qb.shape),
             (x2.T @ dk2).reshape(kk.shape), dk2.sum(0).reshape(kb.shape),
             (x2.T @ dv2).reshape(vk.shape), dv2.sum(0).reshape(vb.shape),
             dok.reshape(ok.shape), dob, dg1, db1, dw1, dc1, dw2, dc2, dg2, db2]
    update(ps, grads)
    return loss
  return step


def transformer_block(repeat):
  """MultiHeadAttention(4, 16) + LayerNormalization + feed-forward 256, Adam, 32 x 64 x 64."""
  from workloads import _numpy_adam
  x, y = transformer_data()
  model = transformer_model()
  params = [np.asarray(v) for v in model.trainable_variables]
  step_np = transformer_numpy_step(params, x, y, _numpy_adam(params))
  from w7_common import keras_train_step
  train_step = keras_train_step(tf, model, tf.keras.losses.MeanSquaredError(), _adam())
  yield from _rows("Transformer block step", train_step, step_np, tf.constant(x),
                   tf.constant(y), repeat)


ALL = [
    ("lstm_text_classifier", lstm_text_classifier),
    ("simple_rnn_text_classifier", simple_rnn_text_classifier),
    ("transformer_block", transformer_block),
]
