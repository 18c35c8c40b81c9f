"""Op-table rows of ops/rnn_ops.py: the fused LSTM step (forward in every float dtype,
eager and traced; gradients to second order, which exercises the primitive-op form)."""
import numpy as np
from op_table import F32_64, args, case, f16

from tensorlet.ops import rnn_ops


def _sig(x):
  return 1 / (1 + np.exp(-x))


def _lstm_ref(z, c_prev):
  u = z.shape[-1] // 4
  i, f, o = _sig(z[..., :u]), _sig(z[..., u:2 * u]), _sig(z[..., 3 * u:])
  c = f * c_prev + i * np.tanh(z[..., 2 * u:3 * u])
  return (o * np.tanh(c)).astype(z.dtype), c.astype(z.dtype)


case("lstm_gates", lambda z, c: rnn_ops.lstm_gates(z, c), _lstm_ref, args([3, 8], [3, 2]),
     (f16,) + F32_64, grad=True, order=2, rtol=2e-3, atol=2e-3)
case("lstm_gates/h_only", lambda z, c: rnn_ops.lstm_gates(z, c)[0],
     lambda z, c: _lstm_ref(z, c)[0], args([2, 3, 12], [2, 3, 3]), F32_64, grad=True)
case("lstm_gates/c_only", lambda z, c: rnn_ops.lstm_gates(z, c)[1],
     lambda z, c: _lstm_ref(z, c)[1], args([4, 4], [4, 1]), F32_64, grad=True)
