"""Fused recurrent-cell arithmetic: one LSTM time step (the recurrent matmul, the gate
nonlinearities and the state update) as one op, so a recurrent loop body runs a few
kernels per step, not a dozen.

`lstm_step(x, h, c_prev, recurrent_kernel)` takes the input part of the gate
pre-activations `x` (`inputs @ kernel + bias`, gates in Keras' order i, f, c, o), the
previous output and cell state, and returns `(h, c)`:
  z = x + h @ recurrent_kernel
  i, f, o = sigmoid(z_i, z_f, z_o); g = tanh(z_c); c = f * c_prev + i * g; h = o * tanh(c)

All steps of a sequence in one op: `rnn_sequence_ops.lstm_sequence`.
"""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.ops import _blas_threads as _bt
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.ops._common import name_scoped
from tensorlet.ops.registry import execute, op

__all__ = ["lstm_step"]

_FLOAT = (_dt.float16, _dt.float32, _dt.float64)


def _step_shape(inputs, attrs):
  x, h, c, r = inputs
  s = h.shape.merge_with(c.shape)
  return [(s, x.dtype), (s, x.dtype)]


def _sigmoid(z):
  s = np.negative(z)
  np.exp(s, out=s)
  s += 1
  return np.reciprocal(s, out=s)


def _check(x, h, c_prev, r):
  u = r.shape[0] if r.ndim == 2 else -1
  if r.ndim != 2 or r.shape[1] != 4 * u or x.shape != h.shape[:-1] + (4 * u,) or \
      h.shape != c_prev.shape or h.shape[-1] != u:
    raise ValueError(f"LSTMStep expects x [batch, 4 * units], h and c_prev [batch, units] "
                     f"and recurrent_kernel [units, 4 * units]; got {list(x.shape)}, "
                     f"{list(h.shape)}, {list(c_prev.shape)} and {list(r.shape)}")


@op("LSTMStep", dtypes=_FLOAT, shape=_step_shape, num_outputs=2)
def LSTMStep(x, h, c_prev, r):
  _check(x, h, c_prev, r)
  _bt.gemm(h.size // r.shape[0], r.shape[1], r.shape[0])
  z = h @ r
  z += x
  u = r.shape[0]
  s = _sigmoid(z)  # all four gates in one pass (the c gate's sigmoid is unused)
  c = s[..., u:2 * u] * c_prev
  c += s[..., :u] * np.tanh(z[..., 2 * u:3 * u])
  h_new = np.tanh(c)
  h_new *= s[..., 3 * u:]
  return h_new.astype(x.dtype, copy=False), c.astype(x.dtype, copy=False)


@op("LSTMStepGrad", dtypes=_FLOAT, num_outputs=4, differentiable=False,
    shape=lambda i, a: [(t.shape, t.dtype) for t in i[:4]])
def LSTMStepGrad(x, h, c_prev, r, dh, dc):
  """(dx, dh_prev, dc_prev, dr) of LSTMStep in one kernel (used when no tape records the
  gradient). It recomputes the step from the op's inputs rather than reading its outputs,
  so in a while_loop's gradient the replayed forward step is dead and pruned."""
  # NOTE: the three products here (32x64 @ 64x256 in the LSTM benchmark) are above
  # OpenBLAS's own one-thread size: left at 2 threads by an earlier big GEMM they ran
  # 9x slower (h.T @ dz: 178 vs 20 us) on a busy 2-core host.
  # Running dz @ r.T and h.T @ dz side by side on _parallel's pool measured 3x slower
  # (92 vs 32 us for the pair): waking a pool thread costs more than one such GEMM.
  _bt.gemm(h.size // r.shape[0], r.shape[1], r.shape[0])
  z = h @ r
  z += x
  u = r.shape[0]
  one = x.dtype.type(1)
  sg = _sigmoid(z)
  i, f, o = sg[..., :u], sg[..., u:2 * u], sg[..., 3 * u:]
  g = np.tanh(z[..., 2 * u:3 * u])
  tc = np.tanh(f * c_prev + i * g)
  dct = dc + dh * o * (one - tc * tc)
  dz = np.concatenate([dct * g * i * (one - i), dct * c_prev * f * (one - f),
                       dct * i * (one - g * g), dh * tc * o * (one - o)], axis=-1)
  dz = dz.astype(x.dtype, copy=False)
  return dz, dz @ r.T, (dct * f).astype(x.dtype, copy=False), h.T @ dz


@LSTMStep.def_grad
def _(op, dh, dc):
  x, h, c_prev, r = op.inputs
  c = op.outputs[1]
  dh = dh if dh is not None else _a.zeros_like(c)
  dc = dc if dc is not None else _a.zeros_like(c)
  from tensorlet.ops.control_flow_ops import _gradient_recorded
  if not _gradient_recorded():
    return list(execute(LSTMStepGrad, [x, h, c_prev, r, dh, dc], {}))
  # Differentiable again (higher order): the same formulas in primitive ops.
  z = x + _m.matmul(h, r)
  zi, zf, zg, zo = _a.split(z, 4, axis=-1)
  i, f, o = _m.sigmoid(zi), _m.sigmoid(zf), _m.sigmoid(zo)
  g, tc = _m.tanh(zg), _m.tanh(c)
  dct = dc + dh * o * (1 - tc * tc)
  dz = _a.concat([dct * g * i * (1 - i), dct * c_prev * f * (1 - f), dct * i * (1 - g * g),
                  dh * tc * o * (1 - o)], -1)
  return [dz, _m.matmul(dz, r, transpose_b=True), dct * f, _m.matmul(h, dz, transpose_a=True)]


@name_scoped
def lstm_step(x, h, c_prev, recurrent_kernel, name=None):
  """(h, c) of one LSTM step: `x` is the input part of the gate pre-activations."""
  return LSTMStep(x, h, c_prev, recurrent_kernel)
