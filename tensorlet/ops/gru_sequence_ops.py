"""Every step of a GRU over a sequence in ONE op (the Keras GRU layer's path with its
default activations and `reset_after=True`, the variant Keras 2 runs as one cuDNN op).

`gru_sequence(xp, h0, recurrent_kernel, recurrent_bias, mask=None, recurrent_scale=None)`
takes the input part
of the gate pre-activations `xp` ([time, batch, 3 * units], gates z, r, h in Keras'
order, input bias included) and the state `h0` ([batch, units]) and returns the state
at every step:
  rec = h @ recurrent_kernel + recurrent_bias
  z, r = sigmoid(xp_z + rec_z), sigmoid(xp_r + rec_r); hh = tanh(xp_h + r * rec_h)
  h = z * h + (1 - z) * hh
With a boolean `mask` [time, batch, 1], rows whose mask is False keep their state;
`recurrent_scale` [batch, units] multiplies h in `h @ recurrent_kernel` (Keras' recurrent
dropout mask).
As for the LSTM (rnn_sequence_ops.py), the forward keeps its activations for the
gradient, whose kernel takes one small GEMM per step and forms the recurrent kernel's
gradient as one GEMM over all steps; a recorded gradient uses primitive ops.
"""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.ops import _blas_threads as _bt
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.ops._common import name_scoped
from tensorlet.ops.registry import op
from tensorlet.ops.rnn_sequence_ops import (_BLOCK, _kept_rows, _scale, _sigmoid_inplace,
                                            check_shapes, def_sequence_grad, masks_or_ones,
                                            recurrent_kernel_grad, recurrent_matmul,
                                            reverse_loop)
from tensorlet.tensor_shape import TensorShape

__all__ = ["gru_sequence"]

_FLOAT = (_dt.float16, _dt.float32, _dt.float64)


def _seq_shape(inputs, attrs):
  xp, h0 = inputs[:2]
  t = xp.shape[0] if xp.shape.rank is not None else None
  seq = TensorShape([t]).concatenate(h0.shape)
  zr = seq[:-1].concatenate([None if seq[-1] is None else 2 * seq[-1]]) \
      if seq.rank is not None else seq
  return [(seq, xp.dtype), (zr, xp.dtype), (seq, xp.dtype), (seq, xp.dtype)]


_BIAS = ", recurrent_bias [3 * units]"


def _bias(r, rb):
  return [(rb, (r.shape[-1],) if r.ndim == 2 else (-1,))]


def _forward(xp, h0, r, rb, mask, scale):
  steps, batch, u3 = xp.shape
  u = u3 // 3
  dt = xp.dtype
  hs = np.empty((steps, batch, u), dt)
  zrs = np.empty((steps, batch, 2 * u), dt)   # z, r activated
  hhs = np.empty((steps, batch, u), dt)       # the candidate state
  rechs = np.empty((steps, batch, u), dt)     # rec_h (before the reset gate)
  rec = np.empty((batch, u3), dt)
  tmp = np.empty((batch, u), dt)
  tmp2 = np.empty((batch, u), dt)
  r, rb = r.astype(dt, copy=False), rb.astype(dt, copy=False)
  h = h0.astype(dt, copy=False)
  keep = _kept_rows(mask)
  scale = _scale(scale, dt)
  _bt.gemm(batch, u3, u)
  for t in range(steps):
    x = xp[t]
    recurrent_matmul(h, r, scale, tmp, rec)
    rec += rb
    zr = zrs[t]
    np.add(x[:, :2 * u], rec[:, :2 * u], out=zr)
    _sigmoid_inplace(zr)
    rechs[t] = rec[:, 2 * u:]
    hh = hhs[t]
    np.multiply(zr[:, u:], rec[:, 2 * u:], out=hh)
    hh += x[:, 2 * u:]
    np.tanh(hh, out=hh)
    # NOTE: z * h + (1 - z) * hh as Keras writes it (hh + z * (h - hh), one op fewer,
    # rounds differently from the step-by-step layer).
    np.multiply(zr[:, :u], h, out=tmp)
    np.subtract(1, zr[:, :u], out=tmp2)
    tmp2 *= hh
    np.add(tmp, tmp2, out=hs[t])
    if t in keep:
      np.copyto(hs[t], h, where=keep[t])
    h = hs[t]
  return hs, zrs, hhs, rechs


def _backward(h0, r, hs, zrs, hhs, rechs, dhs, mask, scale):
  steps, batch, u = hs.shape
  u3 = 3 * u
  dt = hs.dtype
  r = r.astype(dt, copy=False)
  rt = np.ascontiguousarray(r.T)
  drec = np.empty((steps, batch, u3), dt)  # gradient of rec = h @ r + rb
  dxh = np.empty((steps, batch, u), dt)    # gradient of xp_h (xp_z, xp_r: as rec's)
  dh_at = set(np.flatnonzero(dhs.reshape(steps, -1).any(1)).tolist()) if steps else set()
  keep = _kept_rows(mask)
  scale = _scale(scale, dt)
  dh = np.zeros((batch, u), dt)
  spare = np.empty((batch, u), dt)
  k = min(_BLOCK, steps)
  p1 = np.empty((k, batch, u), dt)  # d z_pre per unit of dh: (h_prev - hh) z (1 - z)
  p2 = np.empty((k, batch, u), dt)  # d hh_pre per unit of dh: (1 - z)(1 - hh^2)
  p3 = np.empty((k, batch, u), dt)  # d r_pre per unit of d hh_pre: rec_h r (1 - r)
  tmp = np.empty((k, batch, u), dt)
  _bt.gemm(batch, u, u3)
  for end in range(steps, 0, -k):
    # NOTE: the recurrence-free factors per block of steps, as in LSTMSequenceGrad.
    start = max(0, end - k)
    n = end - start
    z, rg = zrs[start:end, :, :u], zrs[start:end, :, u:]
    hh, tn = hhs[start:end], tmp[:n]
    q1, q2, q3 = p1[:n], p2[:n], p3[:n]
    q1[0] = h0 if start == 0 else hs[start - 1]
    q1[1:] = hs[start:end - 1]
    q1 -= hh
    np.multiply(z, z, out=tn)
    np.subtract(z, tn, out=tn)
    q1 *= tn
    np.multiply(hh, hh, out=tn)
    np.subtract(1, tn, out=tn)
    np.subtract(1, z, out=q2)
    q2 *= tn
    np.multiply(rg, rg, out=tn)
    np.subtract(rg, tn, out=tn)
    np.multiply(tn, rechs[start:end], out=q3)
    for t in range(end - 1, start - 1, -1):
      j = t - start
      if t in dh_at:
        dh += dhs[t]
      d, da = drec[t], dxh[t]
      np.multiply(dh, p1[j], out=d[:, :u])
      np.multiply(dh, p2[j], out=da)
      np.multiply(da, p3[j], out=d[:, u:2 * u])
      np.multiply(da, zrs[t, :, u:], out=d[:, 2 * u:])
      np.multiply(dh, zrs[t, :, :u], out=spare)
      if t in keep:
        # Rows that kept their state: no gate gradient; dh passes straight back.
        off = keep[t]
        np.copyto(d, 0, where=off)
        np.copyto(da, 0, where=off)
        np.copyto(spare, dh, where=off)
      np.matmul(d, rt, out=dh)
      if scale is not None:
        dh *= scale
      dh += spare
  dxp = np.concatenate([drec[..., :2 * u], dxh], -1)
  return dxp, dh.astype(h0.dtype, copy=False), recurrent_kernel_grad(h0, hs, drec, scale), \
      drec.reshape(-1, u3).sum(0)


def _grad_shape(inputs, attrs):
  return [(t.shape, t.dtype) for t in inputs[:4]]


@op("GRUSequence", dtypes=_FLOAT, shape=_seq_shape, num_outputs=4)
def GRUSequence(xp, h0, r, rb):
  """(h, z and r, the candidate hh, rec_h) at every step; all but h are kept for the
  gradient only (they have no gradient of their own)."""
  check_shapes("GRUSequence", 3, xp, h0, r, None, _bias(r, rb), _BIAS)
  return _forward(xp, h0, r, rb, None, None)


@op("GRUSequenceGrad", dtypes=_FLOAT, num_outputs=4, differentiable=False, shape=_grad_shape)
def GRUSequenceGrad(xp, h0, r, rb, hs, zrs, hhs, rechs, dhs):
  """(dxp, dh0, dr, drb) of GRUSequence from its kept activations."""
  return _backward(h0, r, hs, zrs, hhs, rechs, dhs, None, None)


@op("MaskedGRUSequence", dtypes=_FLOAT, type_inputs=(0, 1, 2, 3, 5), shape=_seq_shape,
    num_outputs=4)
def MaskedGRUSequence(xp, h0, r, rb, mask, scale):
  """GRUSequence where rows whose boolean `mask` [time, batch, 1] is False keep their
  state, and h is multiplied by `scale` [batch, units] in each recurrent matmul."""
  check_shapes("MaskedGRUSequence", 3, xp, h0, r, mask, _bias(r, rb) + [(scale, h0.shape)],
               _BIAS)
  return _forward(xp, h0, r, rb, mask, scale)


@op("MaskedGRUSequenceGrad", dtypes=_FLOAT, type_inputs=(0, 1, 2, 3), num_outputs=4,
    differentiable=False, shape=_grad_shape)
def MaskedGRUSequenceGrad(xp, h0, r, rb, mask, scale, hs, zrs, hhs, rechs, dhs):
  return _backward(h0, r, hs, zrs, hhs, rechs, dhs, mask, scale)


def _primitive_grad(ins, mask, scale, outs, dys):
  """The same gradient in primitive ops and a while_loop, differentiable again (higher
  order): each step's gates are recomputed from the op's inputs and outputs."""
  (xp, h0, r, rb), hs, (dhs,) = ins, outs[0], dys
  h_prev = _a.concat([_a.expand_dims(h0, 0), hs[:-1]], 0)

  def body(t, dh_next, dr, drb, ta):
    hp = _a.gather(h_prev, t)
    hd = hp * scale if scale is not None else hp
    dh = _a.gather(dhs, t) + dh_next
    xz, xr, xh = _a.split(_a.gather(xp, t), 3, axis=-1)
    rz, rr, rh = _a.split(_m.matmul(hd, r) + rb, 3, axis=-1)
    z, rg = _m.sigmoid(xz + rz), _m.sigmoid(xr + rr)
    hh = _m.tanh(xh + rg * rh)
    dzp = dh * (hp - hh) * z * (1 - z)
    da = dh * (1 - z) * (1 - hh * hh)
    drp = da * rh * rg * (1 - rg)
    drec = _a.concat([dzp, drp, da * rg], -1)
    dx = _a.concat([dzp, drp, da], -1)
    dh_rec = _m.matmul(drec, r, transpose_b=True)
    if mask is not None:
      m = _a.gather(mask, t)
      drec = _a.where(m, drec, _a.zeros_like(drec))
      dx = _a.where(m, dx, _a.zeros_like(dx))
      dh_prev = _a.where(m, dh * z + dh_rec * scale, dh)
    else:
      dh_prev = dh * z + dh_rec
    return (t - 1, dh_prev, dr + _m.matmul(hd, drec, transpose_a=True),
            drb + _m.reduce_sum(drec, 0), ta.write(t, dx))
  dxp, rest = reverse_loop(xp, body, [_a.zeros_like(h0), _a.zeros_like(r), _a.zeros_like(rb)])
  return [dxp] + rest


def_sequence_grad((GRUSequence, MaskedGRUSequence), (GRUSequenceGrad, MaskedGRUSequenceGrad),
                  _primitive_grad, 1)


@name_scoped
def gru_sequence(xp, h0, recurrent_kernel, recurrent_bias, mask=None, recurrent_scale=None,
                 name=None):
  """The GRU state at every step [time, batch, units]; see the module docstring."""
  if mask is None and recurrent_scale is None:
    return GRUSequence(xp, h0, recurrent_kernel, recurrent_bias)[0]
  mask, recurrent_scale = masks_or_ones(xp, h0, mask, recurrent_scale)
  return MaskedGRUSequence(xp, h0, recurrent_kernel, recurrent_bias, mask, recurrent_scale)[0]
