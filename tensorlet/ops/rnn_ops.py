"""Fused recurrent-cell arithmetic: one LSTM time step (the recurrent matmul, the gate
nonlinearities and the state update) as one op, so a recurrent loop body runs a few
kernels per step, not a dozen.

`lstm_step(x, h, c_prev, recurrent_kernel)` takes the input part of the gate
pre-activations `x` (`inputs @ kernel + bias`, gates in Keras' order i, f, c, o), the
previous output and cell state, and returns `(h, c)`:
  z = x + h @ recurrent_kernel
  i, f, o = sigmoid(z_i, z_f, z_o); g = tanh(z_c); c = f * c_prev + i * g; h = o * tanh(c)

`lstm_sequence(xp, h0, c0, recurrent_kernel)` runs that step over the leading (time) axis
of `xp` in ONE op (the Keras LSTM layer's path, as Keras uses one cuDNN op on a GPU): the
forward keeps the gate activations for the gradient, whose kernel walks back over time
with one small GEMM per step and forms the recurrent kernel's gradient as one GEMM over
all steps.
"""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.ops import _blas_threads as _bt
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.ops._common import name_scoped
from tensorlet.ops.registry import execute, op
from tensorlet.tensor_shape import TensorShape

__all__ = ["lstm_step", "lstm_sequence"]

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


# ---------------------------------------------------------------- whole sequence

def _seq_shape(inputs, attrs):
  xp, h0, c0, r = inputs
  t = xp.shape[0] if xp.shape.rank is not None else None
  seq = TensorShape([t]).concatenate(h0.shape.merge_with(c0.shape))
  return [(seq, xp.dtype), (seq, xp.dtype), (xp.shape, xp.dtype), (seq, xp.dtype)]


def _check_seq(xp, h0, c0, r):
  u = r.shape[0] if r.ndim == 2 else -1
  if r.ndim != 2 or r.shape[1] != 4 * u or xp.ndim != 3 or xp.shape[1:] != (h0.shape[0], 4 * u) \
      or h0.ndim != 2 or h0.shape != c0.shape or h0.shape[-1] != u:
    raise ValueError(f"LSTMSequence expects xp [time, batch, 4 * units], h0 and c0 "
                     f"[batch, units] and recurrent_kernel [units, 4 * units]; got "
                     f"{list(xp.shape)}, {list(h0.shape)}, {list(c0.shape)} and {list(r.shape)}")


@op("LSTMSequence", dtypes=_FLOAT, shape=_seq_shape, num_outputs=4)
def LSTMSequence(xp, h0, c0, r):
  """(h, c, gates, tanh(c)) at every step: `gates` holds i, f, g, o activated, and it and
  tanh(c) are kept for the gradient only (they have no gradient of their own)."""
  _check_seq(xp, h0, c0, r)
  steps, batch, u4 = xp.shape
  u = u4 // 4
  dt = xp.dtype
  hs = np.empty((steps, batch, u), dt)
  cs = np.empty_like(hs)
  tcs = np.empty_like(hs)
  gates = np.empty(xp.shape, dt)
  tmp = np.empty((batch, u), dt)
  r = r.astype(dt, copy=False)
  h, c = h0.astype(dt, copy=False), c0.astype(dt, copy=False)
  _bt.gemm(batch, u4, u)
  # NOTE: one small GEMM per step writes straight into its slice of `gates`; every
  # elementwise op writes into a preallocated buffer (no allocation in the loop).
  for t in range(steps):
    z = gates[t]
    np.matmul(h, r, out=z)
    z += xp[t]
    zg = z[:, 2 * u:3 * u]
    np.tanh(zg, out=tmp)
    _sigmoid_inplace(z)
    zg[...] = tmp
    c_t = cs[t]
    np.multiply(z[:, u:2 * u], c, out=c_t)
    np.multiply(z[:, :u], tmp, out=tmp)
    c_t += tmp
    np.tanh(c_t, out=tcs[t])
    np.multiply(z[:, 3 * u:], tcs[t], out=hs[t])
    h, c = hs[t], c_t
  return hs, cs, gates, tcs


def _sigmoid_inplace(z):
  np.negative(z, out=z)
  np.exp(z, out=z)
  z += 1
  np.reciprocal(z, out=z)


@op("LSTMSequenceGrad", dtypes=_FLOAT, num_outputs=4, differentiable=False,
    shape=lambda i, a: [(i[0].shape, i[0].dtype), (i[1].shape, i[1].dtype),
                        (i[2].shape, i[2].dtype), (i[3].shape, i[3].dtype)])
def LSTMSequenceGrad(xp, h0, c0, r, hs, cs, gates, tcs, dhs, dcs):
  """(dxp, dh0, dc0, dr) of LSTMSequence from its kept activations (used when no tape
  records the gradient)."""
  steps, batch, u4 = gates.shape
  u = u4 // 4
  dt = gates.dtype
  r = r.astype(dt, copy=False)
  rt = np.ascontiguousarray(r.T)
  dz = np.empty((steps, batch, 4, u), dt)
  # Output gradients are mostly zero (only the last step's h for a layer that returns
  # the last output): steps without one skip the add.
  dh_at = set(np.flatnonzero(dhs.reshape(steps, -1).any(1)).tolist()) if steps else set()
  dc_at = set(np.flatnonzero(dcs.reshape(steps, -1).any(1)).tolist()) if steps else set()
  dh = np.zeros((batch, u), dt)
  dc = np.zeros((batch, u), dt)
  dct = np.empty((batch, u), dt)
  k = min(_BLOCK, steps)
  p = np.empty((k, batch, 3, u), dt)  # d z_i, z_f, z_g per unit of dc_t
  a = np.empty((k, batch, u), dt)     # dc_t per unit of dh_t
  b = np.empty((k, batch, u), dt)     # d z_o per unit of dh_t
  tmp = np.empty((k, batch, u), dt)
  _bt.gemm(batch, u, u4)
  for end in range(steps, 0, -k):
    # NOTE: the factors that do not depend on the recurrence, for a block of steps at
    # once (cache-sized arrays: 3x fewer calls than per step, 2x faster than all steps
    # at once, whose strided passes stream the whole gate array from memory).
    start = max(0, end - k)
    n = end - start
    gb = gates[start:end]
    i, f, g, o = (gb[..., j * u:(j + 1) * u] for j in range(4))
    tc = tcs[start:end]
    pi, pf, pg, an, bn, tn = p[:n, :, 0], p[:n, :, 1], p[:n, :, 2], a[:n], b[:n], tmp[:n]
    np.multiply(i, i, out=tn)
    np.subtract(i, tn, out=tn)
    np.multiply(tn, g, out=pi)
    np.multiply(f, f, out=tn)
    np.subtract(f, tn, out=pf)
    pf[0] *= c0 if start == 0 else cs[start - 1]
    pf[1:] *= cs[start:end - 1]
    np.multiply(g, g, out=tn)
    np.subtract(1, tn, out=tn)
    np.multiply(tn, i, out=pg)
    np.multiply(tc, tc, out=tn)
    np.subtract(1, tn, out=tn)
    np.multiply(tn, o, out=an)
    np.multiply(o, o, out=tn)
    np.subtract(o, tn, out=tn)
    np.multiply(tn, tc, out=bn)
    for t in range(end - 1, start - 1, -1):
      j = t - start
      if t in dh_at:
        dh += dhs[t]
      np.multiply(dh, a[j], out=dct)
      dct += dc
      if t in dc_at:
        dct += dcs[t]
      d = dz[t]
      np.multiply(dh, b[j], out=d[:, 3])
      np.multiply(p[j], dct[:, None, :], out=d[:, :3])
      np.multiply(dct, f[j], out=dc)
      np.matmul(d.reshape(batch, u4), rt, out=dh)
  dz = dz.reshape(steps, batch, u4)
  _bt.gemm(u, u4, steps * batch)
  dr = h0.T.astype(dt, copy=False) @ dz[0] if steps else np.zeros(r.shape, dt)
  if steps > 1:
    dr += hs[:-1].reshape(-1, u).T @ dz[1:].reshape(-1, u4)
  return dz.astype(xp.dtype, copy=False), dh.astype(h0.dtype, copy=False), \
      dc.astype(c0.dtype, copy=False), dr.astype(r.dtype, copy=False)


_BLOCK = 16  # steps per block of LSTMSequenceGrad's recurrence-free factors


@LSTMSequence.def_grad
def _(op, dhs, dcs, _dgates, _dtcs):
  xp, h0, c0, r = op.inputs
  hs, cs, gates, tcs = op.outputs
  dhs = dhs if dhs is not None else _a.zeros_like(hs)
  dcs = dcs if dcs is not None else _a.zeros_like(cs)
  from tensorlet.ops.control_flow_ops import _gradient_recorded
  if not _gradient_recorded():
    return list(execute(LSTMSequenceGrad, [xp, h0, c0, r, hs, cs, gates, tcs, dhs, dcs], {}))
  return _primitive_sequence_grad(xp, h0, c0, r, hs, cs, dhs, dcs)


def _primitive_sequence_grad(xp, h0, c0, r, hs, cs, dhs, dcs):
  """The same gradient in primitive ops and a while_loop, differentiable again (higher
  order): each step's gates are recomputed from the op's inputs and outputs."""
  from tensorlet.ops import control_flow_ops as cf
  from tensorlet.ops.tensor_array_ops import TensorArray
  n = _a.shape(xp)[0]
  h_prev = _a.concat([_a.expand_dims(h0, 0), hs[:-1]], 0)
  c_prev = _a.concat([_a.expand_dims(c0, 0), cs[:-1]], 0)

  def body(t, dh_next, dc_next, dr, ta):
    hp = _a.gather(h_prev, t)
    dh = _a.gather(dhs, t) + dh_next
    z = _a.gather(xp, t) + _m.matmul(hp, r)
    zi, zf, zg, zo = _a.split(z, 4, axis=-1)
    i, f, o = _m.sigmoid(zi), _m.sigmoid(zf), _m.sigmoid(zo)
    g, tc = _m.tanh(zg), _m.tanh(_a.gather(cs, t))
    dct = dc_next + _a.gather(dcs, t) + dh * o * (1 - tc * tc)
    dz = _a.concat([dct * g * i * (1 - i), dct * _a.gather(c_prev, t) * f * (1 - f),
                    dct * i * (1 - g * g), dh * tc * o * (1 - o)], -1)
    return (t - 1, _m.matmul(dz, r, transpose_b=True), dct * f,
            dr + _m.matmul(hp, dz, transpose_a=True), ta.write(t, dz))
  ta = TensorArray(xp.dtype, size=n, element_shape=xp.shape[1:])
  _, dh0, dc0, dr, ta = cf.while_loop(
      lambda t, *rest: t >= 0, body,
      [n - 1, _a.zeros_like(h0), _a.zeros_like(c0), _a.zeros_like(r), ta])
  dxp = ta.stack()
  dxp.set_shape(xp.shape)
  return [dxp, dh0, dc0, dr]


@name_scoped
def lstm_sequence(xp, h0, c0, recurrent_kernel, name=None):
  """(h at every step [time, batch, units], c at every step) of an LSTM run over the
  leading axis of `xp` (the input part of the gate pre-activations, [time, batch,
  4 * units]) from the states `h0`, `c0` ([batch, units])."""
  hs, cs, _, _ = LSTMSequence(xp, h0, c0, recurrent_kernel)
  return hs, cs
