"""Every step of an LSTM over a sequence in ONE op (the Keras LSTM layer's path with its
default activations, as Keras 2 runs one cuDNN op on a GPU).

`lstm_sequence(xp, h0, c0, recurrent_kernel, mask=None, recurrent_scale=None)` runs
`rnn_ops.lstm_step` over the leading (time) axis of `xp` (the input part of the gate
pre-activations, [time, batch, 4 * units]) from the states `h0`, `c0` ([batch, units])
and returns the states h and c at every step. With a boolean `mask` [time, batch, 1], a
batch row whose mask is False at a step keeps its previous states there (Keras' masked
RNN step); `recurrent_scale` [batch, units] multiplies h before every recurrent matmul
(Keras' recurrent dropout mask, the same at every step).

The forward keeps the gate activations and tanh(c) for the gradient, whose kernel walks
back over time with one small GEMM per step (no step is recomputed) and forms the
recurrent kernel's gradient as one GEMM over all steps. When a tape records the gradient
(higher order) it is built from primitive ops in a while_loop instead.
"""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.ops import _blas_threads as _bt
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.ops._common import name_scoped
from tensorlet.ops.registry import execute, op
from tensorlet.tensor_shape import TensorShape

__all__ = ["lstm_sequence"]

_FLOAT = (_dt.float16, _dt.float32, _dt.float64)
_BLOCK = 16  # steps per block of the gradient's recurrence-free factors


def _seq_shape(inputs, attrs):
  xp, h0, c0 = inputs[:3]
  t = xp.shape[0] if xp.shape.rank is not None else None
  seq = TensorShape([t]).concatenate(h0.shape.merge_with(c0.shape))
  return [(seq, xp.dtype), (seq, xp.dtype), (xp.shape, xp.dtype), (seq, xp.dtype)]


def check_shapes(name, gates, xp, h0, r, mask, extra=(), extra_names=""):
  """ValueError (InvalidArgumentError from the op) unless xp is [time, batch, gates *
  units], h0 [batch, units], r [units, gates * units], mask (when given) [time, batch,
  1] and each (tensor, shape) pair of `extra` (named in `extra_names`) matches."""
  if mask is not None:
    extra_names += ", recurrent_scale [batch, units]"
  u = r.shape[0] if r.ndim == 2 else -1
  if r.ndim != 2 or r.shape[1] != gates * u or xp.ndim != 3 or h0.ndim != 2 or \
      xp.shape[1:] != (h0.shape[0], gates * u) or h0.shape[-1] != u or \
      any(e.shape != want for e, want in extra) or \
      (mask is not None and mask.shape != xp.shape[:2] + (1,)):
    got = [list(t.shape) for t in (xp, h0, r) + tuple(e for e, _ in extra)]
    want = f"xp [time, batch, {gates} * units], h0 [batch, units], recurrent_kernel " \
        f"[units, {gates} * units]{extra_names}"
    if mask is not None:
      got.append(list(mask.shape))
      want += " and mask [time, batch, 1]"
    raise ValueError(f"{name} expects {want}; got {', '.join(map(str, got))}")


def _sigmoid_inplace(z):
  np.negative(z, out=z)
  np.exp(z, out=z)
  z += 1
  np.reciprocal(z, out=z)


def _forward(xp, h0, c0, r, mask, scale):
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
  keep = _kept_rows(mask)
  scale = _scale(scale, dt)
  hd = np.empty((batch, u), dt) if scale is not None else None
  _bt.gemm(batch, u4, u)
  # NOTE: one small GEMM per step writes straight into its slice of `gates`; every
  # elementwise op writes into a preallocated buffer (no allocation in the loop).
  for t in range(steps):
    z = gates[t]
    recurrent_matmul(h, r, scale, hd, z)
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
    if t in keep:  # masked rows keep their states (their gates go unused)
      np.copyto(c_t, c, where=keep[t])
      np.copyto(hs[t], h, where=keep[t])
    h, c = hs[t], c_t
  return hs, cs, gates, tcs


def recurrent_matmul(h, r, scale, scratch, out):
  """out = (h * scale) @ r, or h @ r where `scale` is None (`scratch` holds h * scale)."""
  if scale is None:
    np.matmul(h, r, out=out)
  else:
    np.multiply(h, scale, out=scratch)
    np.matmul(scratch, r, out=out)


def _scale(scale, dt):
  """The recurrent multiplier as an array of `dt`, or None where it is all ones."""
  if scale is None or (scale == 1).all():
    return None
  return scale.astype(dt, copy=False)


def _kept_rows(mask):
  """{step: [batch, 1] True where the row keeps its states} for steps with such rows."""
  if mask is None:
    return {}
  off = ~mask.astype(bool, copy=False)
  return {int(t): off[t] for t in np.flatnonzero(off.reshape(off.shape[0], -1).any(1))}


def _backward(h0, c0, r, hs, cs, gates, tcs, dhs, dcs, mask, scale):
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
  keep = _kept_rows(mask)
  scale = _scale(scale, dt)
  dh = np.zeros((batch, u), dt)
  dc = np.zeros((batch, u), dt)
  dct = np.empty((batch, u), dt)
  spare = np.empty((batch, u), dt)
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
      if t in dc_at:
        dc += dcs[t]
      np.multiply(dh, a[j], out=dct)
      dct += dc
      d = dz[t]
      np.multiply(dh, b[j], out=d[:, 3])
      np.multiply(p[j], dct[:, None, :], out=d[:, :3])
      if t in keep:
        # Rows that kept their states: no gate gradient; dh and dc pass straight back.
        off = keep[t]
        np.copyto(d, 0, where=off[:, :, None])
        np.multiply(dct, f[j], out=spare)
        np.copyto(spare, dc, where=off)
        dc, spare = spare, dc
        np.matmul(d.reshape(batch, u4), rt, out=spare)
        if scale is not None:
          spare *= scale
        np.copyto(spare, dh, where=off)
        dh, spare = spare, dh
        continue
      np.multiply(dct, f[j], out=dc)
      np.matmul(d.reshape(batch, u4), rt, out=dh)
      if scale is not None:
        dh *= scale
  dz = dz.reshape(steps, batch, u4)
  return dz, dh.astype(h0.dtype, copy=False), dc.astype(c0.dtype, copy=False), \
      recurrent_kernel_grad(h0, hs, dz, scale).astype(r.dtype, copy=False)


def recurrent_kernel_grad(h0, hs, dz, scale):
  """sum over steps of h_prev.T @ dz (h_prev times `scale` where given), as ONE GEMM over
  all steps but the first."""
  steps, batch, n = dz.shape
  u = hs.shape[-1]
  h0 = h0.astype(dz.dtype, copy=False)
  hp = hs[:-1] if scale is None else hs[:-1] * scale
  if scale is not None:
    h0 = h0 * scale
  _bt.gemm(u, n, steps * batch)
  dr = h0.T @ dz[0] if steps else np.zeros((u, n), dz.dtype)
  if steps > 1:
    dr += hp.reshape(-1, u).T @ dz[1:].reshape(-1, n)
  return dr


def _grad_shape(inputs, attrs):
  return [(t.shape, t.dtype) for t in inputs[:4]]


@op("LSTMSequence", dtypes=_FLOAT, shape=_seq_shape, num_outputs=4)
def LSTMSequence(xp, h0, c0, r):
  """(h, c, gates, tanh(c)) at every step: `gates` holds i, f, g, o activated, and it and
  tanh(c) are kept for the gradient only (they have no gradient of their own)."""
  check_shapes("LSTMSequence", 4, xp, h0, r, None, [(c0, h0.shape)], ", c0 [batch, units]")
  return _forward(xp, h0, c0, r, None, None)


@op("LSTMSequenceGrad", dtypes=_FLOAT, num_outputs=4, differentiable=False,
    shape=_grad_shape)
def LSTMSequenceGrad(xp, h0, c0, r, hs, cs, gates, tcs, dhs, dcs):
  """(dxp, dh0, dc0, dr) of LSTMSequence from its kept activations (used when no tape
  records the gradient)."""
  return _backward(h0, c0, r, hs, cs, gates, tcs, dhs, dcs, None, None)


@op("MaskedLSTMSequence", dtypes=_FLOAT, type_inputs=(0, 1, 2, 3, 5), shape=_seq_shape,
    num_outputs=4)
def MaskedLSTMSequence(xp, h0, c0, r, mask, scale):
  """LSTMSequence where rows whose boolean `mask` [time, batch, 1] is False keep their
  states, and h is multiplied by `scale` [batch, units] before each recurrent matmul."""
  check_shapes("MaskedLSTMSequence", 4, xp, h0, r, mask,
               [(c0, h0.shape), (scale, h0.shape)], ", c0 [batch, units]")
  return _forward(xp, h0, c0, r, mask, scale)


@op("MaskedLSTMSequenceGrad", dtypes=_FLOAT, type_inputs=(0, 1, 2, 3), num_outputs=4,
    differentiable=False, shape=_grad_shape)
def MaskedLSTMSequenceGrad(xp, h0, c0, r, mask, scale, hs, cs, gates, tcs, dhs, dcs):
  return _backward(h0, c0, r, hs, cs, gates, tcs, dhs, dcs, mask, scale)


def def_sequence_grad(ops, grad_ops, primitive, n_states):
  """Declares the gradient of a one-op RNN and of its masked form (`ops`; inputs: 4
  tensors, then the masked form's mask and recurrent scale; outputs: `n_states` states
  at every step, then what the gradient kernel reads): its gradient op (`grad_ops`,
  unmasked and masked) when no tape records the gradient, else `primitive(inputs, mask,
  scale, outputs, output gradients)` in differentiable ops."""
  grad_op, masked_grad_op = grad_ops

  def grad(op, *dys):
    ins, outs = list(op.inputs[:4]), list(op.outputs)
    mask, scale = op.inputs[4:] if len(op.inputs) > 4 else (None, None)
    dys = [d if d is not None else _a.zeros_like(o) for d, o in zip(dys[:n_states], outs)]
    from tensorlet.ops.control_flow_ops import _gradient_recorded
    if _gradient_recorded():
      grads = primitive(ins, mask, scale, outs, dys)
    elif mask is None:
      grads = list(execute(grad_op, ins + outs + dys, {}))
    else:
      grads = list(execute(masked_grad_op, ins + [mask, scale] + outs + dys, {}))
    # NOTE: no gradient for the mask nor for the dropout mask (Keras' is a constant).
    return grads if mask is None else grads + [None, None]
  for o in ops:
    o.def_grad(grad)


def reverse_loop(xp, body, carried):
  """`body(t, *carried, ta) -> (t - 1, *carried, ta)` for t from xp's last step down to
  0 in a while_loop, `ta` a TensorArray of the gradients of xp's steps; returns (the
  gradient of xp, the final carried values)."""
  from tensorlet.ops import control_flow_ops as cf
  from tensorlet.ops.tensor_array_ops import TensorArray
  n = _a.shape(xp)[0]
  ta = TensorArray(xp.dtype, size=n, element_shape=xp.shape[1:])
  out = cf.while_loop(lambda t, *rest: t >= 0, body, [n - 1] + list(carried) + [ta])
  dxp = out[-1].stack()
  dxp.set_shape(xp.shape)
  return dxp, list(out[1:-1])


def _primitive_grad(ins, mask, scale, outs, dys):
  """The same gradient in primitive ops and a while_loop, differentiable again (higher
  order): each step's gates are recomputed from the op's inputs and outputs."""
  (xp, h0, c0, r), (hs, cs), (dhs, dcs) = ins, outs[:2], dys
  h_prev = _a.concat([_a.expand_dims(h0, 0), hs[:-1]], 0)
  c_prev = _a.concat([_a.expand_dims(c0, 0), cs[:-1]], 0)

  def body(t, dh_next, dc_next, dr, ta):
    hp = _a.gather(h_prev, t)
    if scale is not None:
      hp = hp * scale
    dh = _a.gather(dhs, t) + dh_next
    dc = _a.gather(dcs, t) + dc_next
    z = _a.gather(xp, t) + _m.matmul(hp, r)
    zi, zf, zg, zo = _a.split(z, 4, axis=-1)
    i, f, o = _m.sigmoid(zi), _m.sigmoid(zf), _m.sigmoid(zo)
    g, tc = _m.tanh(zg), _m.tanh(_a.gather(cs, t))
    dct = dc + dh * o * (1 - tc * tc)
    dz = _a.concat([dct * g * i * (1 - i), dct * _a.gather(c_prev, t) * f * (1 - f),
                    dct * i * (1 - g * g), dh * tc * o * (1 - o)], -1)
    dh_prev, dc_prev = _m.matmul(dz, r, transpose_b=True), dct * f
    if mask is not None:
      m = _a.gather(mask, t)
      dz = _a.where(m, dz, _a.zeros_like(dz))
      dh_prev = _a.where(m, dh_prev * scale, dh)
      dc_prev = _a.where(m, dc_prev, dc)
    return (t - 1, dh_prev, dc_prev, dr + _m.matmul(hp, dz, transpose_a=True),
            ta.write(t, dz))
  dxp, rest = reverse_loop(xp, body, [_a.zeros_like(h0), _a.zeros_like(c0), _a.zeros_like(r)])
  return [dxp] + rest


def_sequence_grad((LSTMSequence, MaskedLSTMSequence), (LSTMSequenceGrad, MaskedLSTMSequenceGrad),
                  _primitive_grad, 2)


@name_scoped
def lstm_sequence(xp, h0, c0, recurrent_kernel, mask=None, recurrent_scale=None, name=None):
  """(h at every step [time, batch, units], c at every step) of an LSTM over the leading
  axis of `xp`; see the module docstring."""
  if mask is None and recurrent_scale is None:
    hs, cs, _, _ = LSTMSequence(xp, h0, c0, recurrent_kernel)
  else:
    mask, recurrent_scale = masks_or_ones(xp, h0, mask, recurrent_scale)
    hs, cs, _, _ = MaskedLSTMSequence(xp, h0, c0, recurrent_kernel, mask, recurrent_scale)
  return hs, cs


def masks_or_ones(xp, h0, mask, scale):
  """The masked ops' step mask and recurrent scale, all-True / all-ones where None."""
  if mask is None:
    mask = _a.ones_like(xp[..., :1], dtype="bool")
  if scale is None:
    scale = _a.ones_like(h0)
  return mask, scale
