"""Op-table rows of `rnn_sequence_ops.lstm_sequence` (the LSTMSequence and
MaskedLSTMSequence ops: every step of an LSTM in one op): forward in every float dtype,
eager and traced; gradients to second order (the second order goes through the
primitive-op form of their gradient)."""
import numpy as np
from op_table import F32_64, args, case, f16

import tensorlet as tf
from tensorlet.ops import rnn_sequence_ops


def _sig(x):
  return 1 / (1 + np.exp(-x))


def _ref(xp, h, c, r, mask=None):
  u = r.shape[0]
  hs, cs = [], []
  for t, x in enumerate(xp):
    z = x + h @ r
    i, f, o = _sig(z[..., :u]), _sig(z[..., u:2 * u]), _sig(z[..., 3 * u:])
    c_new = f * c + i * np.tanh(z[..., 2 * u:3 * u])
    h_new = o * np.tanh(c_new)
    keep = True if mask is None else mask[t]
    h, c = np.where(keep, h_new, h), np.where(keep, c_new, c)
    hs.append(h)
    cs.append(c)
  return np.stack(hs).astype(xp.dtype), np.stack(cs).astype(xp.dtype)


# rows kept from the start, from the middle, at the end, and all masked
_MASK = np.array([[0, 1, 1, 1], [1, 1, 0, 1], [1, 1, 1, 0], [0, 0, 0, 0]], bool).T[..., None]


case("lstm_sequence", lambda xp, h, c, r: rnn_sequence_ops.lstm_sequence(xp, h, c, r), _ref,
     args([4, 3, 8], [3, 2], [3, 2], [2, 8], lo=-1, hi=1), (f16,) + F32_64, grad=True,
     order=2, rtol=3e-3, atol=3e-3)
case("lstm_sequence/h_only", lambda xp, h, c, r: rnn_sequence_ops.lstm_sequence(xp, h, c, r)[0],
     lambda *a: _ref(*a)[0], args([3, 2, 12], [2, 3], [2, 3], [3, 12]), F32_64, grad=True)
case("lstm_sequence/last_c", lambda xp, h, c, r: rnn_sequence_ops.lstm_sequence(xp, h, c, r)[1][-1],
     lambda *a: _ref(*a)[1][-1], args([5, 4, 4], [4, 1], [4, 1], [1, 4]), F32_64, grad=True)
case("lstm_sequence/one_step", lambda xp, h, c, r: rnn_sequence_ops.lstm_sequence(xp, h, c, r),
     _ref, args([1, 2, 8], [2, 2], [2, 2], [2, 8]), F32_64, grad=True, order=2)
case("lstm_sequence/masked",
     lambda xp, h, c, r: rnn_sequence_ops.lstm_sequence(xp, h, c, r, mask=tf.constant(_MASK)),
     lambda *a: _ref(*a, mask=_MASK), args([4, 4, 8], [4, 2], [4, 2], [2, 8], lo=-1, hi=1),
     (f16,) + F32_64, grad=True, order=2, rtol=3e-3, atol=3e-3)
