"""Op-table rows of ops/rnn_ops.py: the fused LSTM step (forward in every float dtype,
eager and traced; gradients to second order, which exercises the primitive-op form)."""
import numpy as np
from op_table import F32_64, args, case, f16

from tensorlet.ops import rnn_ops


def _sig(x):
  return 1 / (1 + np.exp(-x))


def _lstm_ref(x, h, c_prev, r):
  u = r.shape[0]
  z = x + h @ r
  i, f, o = _sig(z[..., :u]), _sig(z[..., u:2 * u]), _sig(z[..., 3 * u:])
  c = f * c_prev + i * np.tanh(z[..., 2 * u:3 * u])
  return (o * np.tanh(c)).astype(x.dtype), c.astype(x.dtype)


case("lstm_step", lambda x, h, c, r: rnn_ops.lstm_step(x, h, c, r), _lstm_ref,
     args([3, 8], [3, 2], [3, 2], [2, 8], lo=-1, hi=1), (f16,) + F32_64, grad=True, order=2,
     rtol=2e-3, atol=2e-3)
case("lstm_step/h_only", lambda x, h, c, r: rnn_ops.lstm_step(x, h, c, r)[0],
     lambda *a: _lstm_ref(*a)[0], args([2, 12], [2, 3], [2, 3], [3, 12]), F32_64, grad=True)
case("lstm_step/c_only", lambda x, h, c, r: rnn_ops.lstm_step(x, h, c, r)[1],
     lambda *a: _lstm_ref(*a)[1], args([4, 4], [4, 1], [4, 1], [1, 4]), F32_64, grad=True)
