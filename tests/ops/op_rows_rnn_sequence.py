"""Op-table rows of `rnn_sequence_ops.lstm_sequence` and `gru_sequence_ops.gru_sequence`
(the (Masked)LSTMSequence and (Masked)GRUSequence ops: every step of an LSTM or a GRU in
one op): forward in every float dtype, eager and traced; gradients to second order (the
second order goes through the primitive-op form of their gradient)."""
import numpy as np
from op_table import F32_64, args, case, f16

import tensorlet as tf
from tensorlet.ops import gru_sequence_ops, rnn_sequence_ops


def _sig(x):
  return 1 / (1 + np.exp(-x))


def _ref(xp, h, c, r, mask=None, scale=1):
  u = r.shape[0]
  hs, cs = [], []
  for t, x in enumerate(xp):
    z = x + (h * scale) @ r
    i, f, o = _sig(z[..., :u]), _sig(z[..., u:2 * u]), _sig(z[..., 3 * u:])
    c_new = f * c + i * np.tanh(z[..., 2 * u:3 * u])
    h_new = o * np.tanh(c_new)
    keep = True if mask is None else mask[t]
    h, c = np.where(keep, h_new, h), np.where(keep, c_new, c)
    hs.append(h)
    cs.append(c)
  return np.stack(hs).astype(xp.dtype), np.stack(cs).astype(xp.dtype)


def _gru_ref(xp, h, r, rb, mask=None, scale=1):
  u = r.shape[0]
  hs = []
  for t, x in enumerate(xp):
    rec = (h * scale) @ r + rb
    z, rg = _sig(x[..., :u] + rec[..., :u]), _sig(x[..., u:2 * u] + rec[..., u:2 * u])
    hh = np.tanh(x[..., 2 * u:] + rg * rec[..., 2 * u:])
    h = np.where(True if mask is None else mask[t], z * h + (1 - z) * hh, h)
    hs.append(h)
  return np.stack(hs).astype(xp.dtype)


# rows kept from the start, from the middle, at the end, and all masked
_MASK = np.array([[0, 1, 1, 1], [1, 1, 0, 1], [1, 1, 1, 0], [0, 0, 0, 0]], bool).T[..., None]
# a recurrent dropout mask (rate 0.5: kept units scaled by 2), [batch 4, units 2]
_SCALE = np.array([[2, 0], [0, 2], [2, 2], [0, 0]], np.float32)


def _dropped(fn):
  """fn with _MASK and the recurrent scale _SCALE in the inputs' dtype."""
  return lambda *a: fn(*a, mask=tf.constant(_MASK), recurrent_scale=tf.cast(_SCALE, a[0].dtype))


_lstm = rnn_sequence_ops.lstm_sequence
case("lstm_sequence", _lstm, _ref, args([4, 3, 8], [3, 2], [3, 2], [2, 8], lo=-1, hi=1),
     (f16,) + F32_64, grad=True, order=2, rtol=3e-3, atol=3e-3)
case("lstm_sequence/h_only", lambda *a: _lstm(*a)[0], lambda *a: _ref(*a)[0],
     args([3, 2, 12], [2, 3], [2, 3], [3, 12]), F32_64, grad=True)
case("lstm_sequence/last_c", lambda *a: _lstm(*a)[1][-1], lambda *a: _ref(*a)[1][-1],
     args([5, 4, 4], [4, 1], [4, 1], [1, 4]), F32_64, grad=True)
case("lstm_sequence/one_step", _lstm, _ref, args([1, 2, 8], [2, 2], [2, 2], [2, 8]), F32_64,
     grad=True, order=2)
case("lstm_sequence/masked", lambda *a: _lstm(*a, mask=tf.constant(_MASK)),
     lambda *a: _ref(*a, mask=_MASK), args([4, 4, 8], [4, 2], [4, 2], [2, 8], lo=-1, hi=1),
     (f16,) + F32_64, grad=True, order=2, rtol=3e-3, atol=3e-3)
case("gru_sequence", gru_sequence_ops.gru_sequence, _gru_ref,
     args([4, 3, 6], [3, 2], [2, 6], [6], lo=-1, hi=1), (f16,) + F32_64, grad=True, order=2,
     rtol=3e-3, atol=3e-3)
case("gru_sequence/last", lambda *a: gru_sequence_ops.gru_sequence(*a)[-1],
     lambda *a: _gru_ref(*a)[-1], args([5, 2, 9], [2, 3], [3, 9], [9]), F32_64, grad=True)
case("gru_sequence/masked",
     lambda xp, h, r, rb: gru_sequence_ops.gru_sequence(xp, h, r, rb, tf.constant(_MASK)),
     lambda *a: _gru_ref(*a, mask=_MASK), args([4, 4, 6], [4, 2], [2, 6], [6], lo=-1, hi=1),
     (f16,) + F32_64, grad=True, order=2, rtol=3e-3, atol=3e-3)
case("lstm_sequence/recurrent_dropout", _dropped(_lstm),
     lambda *a: _ref(*a, mask=_MASK, scale=_SCALE.astype(a[0].dtype)),
     args([4, 4, 8], [4, 2], [4, 2], [2, 8], lo=-1, hi=1), F32_64, grad=True, order=2)
case("gru_sequence/recurrent_dropout", _dropped(gru_sequence_ops.gru_sequence),
     lambda *a: _gru_ref(*a, mask=_MASK, scale=_SCALE.astype(a[0].dtype)),
     args([4, 4, 6], [4, 2], [2, 6], [6], lo=-1, hi=1), F32_64, grad=True, order=2)
