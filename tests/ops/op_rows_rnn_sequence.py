"""Op-table rows of `rnn_ops.lstm_sequence` (the LSTMSequence op: every step of an LSTM in
one op): forward in every float dtype, eager and traced; gradients to second order (the
second order goes through the primitive-op form of its gradient)."""
import numpy as np
from op_table import F32_64, args, case, f16

from tensorlet.ops import rnn_ops


def _sig(x):
  return 1 / (1 + np.exp(-x))


def _ref(xp, h, c, r):
  u = r.shape[0]
  hs, cs = [], []
  for x in xp:
    z = x + h @ r
    i, f, o = _sig(z[..., :u]), _sig(z[..., u:2 * u]), _sig(z[..., 3 * u:])
    c = f * c + i * np.tanh(z[..., 2 * u:3 * u])
    h = o * np.tanh(c)
    hs.append(h)
    cs.append(c)
  return np.stack(hs).astype(xp.dtype), np.stack(cs).astype(xp.dtype)


case("lstm_sequence", lambda xp, h, c, r: rnn_ops.lstm_sequence(xp, h, c, r), _ref,
     args([4, 3, 8], [3, 2], [3, 2], [2, 8], lo=-1, hi=1), (f16,) + F32_64, grad=True,
     order=2, rtol=3e-3, atol=3e-3)
case("lstm_sequence/h_only", lambda xp, h, c, r: rnn_ops.lstm_sequence(xp, h, c, r)[0],
     lambda *a: _ref(*a)[0], args([3, 2, 12], [2, 3], [2, 3], [3, 12]), F32_64, grad=True)
case("lstm_sequence/last_c", lambda xp, h, c, r: rnn_ops.lstm_sequence(xp, h, c, r)[1][-1],
     lambda *a: _ref(*a)[1][-1], args([5, 4, 4], [4, 1], [4, 1], [1, 4]), F32_64, grad=True)
case("lstm_sequence/one_step", lambda xp, h, c, r: rnn_ops.lstm_sequence(xp, h, c, r),
     _ref, args([1, 2, 8], [2, 2], [2, 2], [2, 8]), F32_64, grad=True, order=2)
