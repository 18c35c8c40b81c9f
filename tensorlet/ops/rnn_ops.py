"""Fused recurrent-cell arithmetic: the LSTM gate nonlinearities and state update of one
time step as one op, so a recurrent loop body runs a few kernels per step, not a dozen.

`lstm_gates(z, c_prev)` takes the pre-activations `z = x @ kernel + h @ recurrent_kernel
+ bias` of the gates in Keras' order i, f, c, o and returns `(h, c)`:
  i, f, o = sigmoid(z_i, z_f, z_o); g = tanh(z_c); c = f * c_prev + i * g; h = o * tanh(c)
"""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.ops.registry import execute, op
from tensorlet.tensor_shape import TensorShape

__all__ = ["lstm_gates"]

_FLOAT = (_dt.float16, _dt.float32, _dt.float64)


def _gates_shape(inputs, attrs):
  z, c = inputs
  rows = z.shape[:-1] if z.shape.rank is not None else TensorShape(None)
  units = z.shape[-1] // 4 if z.shape.rank is not None and z.shape[-1] is not None else None
  s = c.shape.merge_with(rows.concatenate([units])) if rows.rank is not None else c.shape
  return [(s, z.dtype), (s, z.dtype)]


@op("LSTMGates", dtypes=_FLOAT, shape=_gates_shape, num_outputs=2)
def LSTMGates(z, c_prev):
  if z.shape[-1] % 4 or z.shape[:-1] + (z.shape[-1] // 4,) != c_prev.shape:
    raise ValueError(f"LSTMGates expects z of shape [..., 4 * units] and c_prev of shape "
                     f"[..., units]; got {list(z.shape)} and {list(c_prev.shape)}")
  u = z.shape[-1] // 4
  s = _sigmoid(z)  # all four gates in one pass (the c gate's sigmoid is unused)
  c = s[..., u:2 * u] * c_prev
  c += s[..., :u] * np.tanh(z[..., 2 * u:3 * u])
  h = np.tanh(c)
  h *= s[..., 3 * u:]
  return h.astype(z.dtype, copy=False), c.astype(z.dtype, copy=False)


def _sigmoid(z):
  s = np.negative(z)
  np.exp(s, out=s)
  s += 1
  return np.reciprocal(s, out=s)


@op("LSTMGatesGrad", dtypes=_FLOAT, num_outputs=2, differentiable=False,
    shape=lambda i, a: [(i[0].shape, i[0].dtype), (i[1].shape, i[1].dtype)])
def LSTMGatesGrad(z, c_prev, dh, dc):
  """(dz, dc_prev) of LSTMGates in one kernel (used when no tape records the gradient).
  It recomputes the step from the op's inputs rather than reading its outputs, so in a
  while_loop's gradient the replayed forward step is dead and pruned."""
  u = z.shape[-1] // 4
  one = z.dtype.type(1)
  sg = _sigmoid(z)
  i, f, o = sg[..., :u], sg[..., u:2 * u], sg[..., 3 * u:]
  g = np.tanh(z[..., 2 * u:3 * u])
  tc = np.tanh(f * c_prev + i * g)
  dct = dc + dh * o * (one - tc * tc)
  dz = np.concatenate([dct * g * i * (one - i), dct * c_prev * f * (one - f),
                       dct * i * (one - g * g), dh * tc * o * (one - o)], axis=-1)
  return dz.astype(z.dtype, copy=False), (dct * f).astype(z.dtype, copy=False)


@LSTMGates.def_grad
def _(op, dh, dc):
  z, c_prev = op.inputs
  c = op.outputs[1]
  dh = dh if dh is not None else _a.zeros_like(c)
  dc = dc if dc is not None else _a.zeros_like(c)
  from tensorlet.ops.control_flow_ops import _gradient_recorded
  if not _gradient_recorded():
    return list(execute(LSTMGatesGrad, [z, c_prev, dh, dc], {}))
  # Differentiable again (higher order): the same formulas in primitive ops.
  zi, zf, zg, zo = _a.split(z, 4, axis=-1)
  i, f, o = _m.sigmoid(zi), _m.sigmoid(zf), _m.sigmoid(zo)
  g, tc = _m.tanh(zg), _m.tanh(c)
  dct = dc + dh * o * (1 - tc * tc)
  dz = _a.concat([dct * g * i * (1 - i), dct * c_prev * f * (1 - f), dct * i * (1 - g * g),
                  dh * tc * o * (1 - o)], -1)
  return [dz, dct * f]


def lstm_gates(z, c_prev, name=None):
  """(h, c) of an LSTM step from gate pre-activations `z` (i, f, c, o) and the cell state."""
  return LSTMGates(z, c_prev)
