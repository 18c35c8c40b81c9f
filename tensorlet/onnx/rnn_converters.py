"""Converters of the one-op recurrent layers (LSTMSequence, GRUSequence and their masked
forms) to ONNX's LSTM and GRU operators.

The sequence ops take the input projection already done (xp = x @ kernel + bias per
step). Where xp is computed as the Keras layers do, the ONNX operator gets x and the
kernel and bias in its gate order (Keras' LSTM order i, f, c, o; ONNX's i, o, f, c; GRU
z, r, h in both) and projects all steps itself; otherwise xp is its input X and a 0/1
input weight W only reorders the gates (ones times xp plus exact zeros: xp unchanged).

A Keras mask keeps a row's states at its masked steps, wherever they are (left padding
too). ONNX's sequence_lens only ends rows early, so a masked op moves each row's
unmasked steps to the front (in order), runs the operator for as many steps as the row
has, and reads the state at step t back as the state after the row's first cumsum(mask)[t]
unmasked steps (h0 before any): the same states for any mask.

ONNX returns the cell state c at the last step only; the converters accept an LSTM whose
c is read only as c[-1] (what the Keras layers do) and say so otherwise. (ONNX Runtime's
CPU LSTM and GRU run float32 and float16; a float64 model is valid ONNX that it refuses.)
"""
import numpy as np

__all__ = ["RNN_CONVERTERS", "RNN_LIMITS"]

_LSTM_ORDER = (0, 3, 1, 2)  # ONNX's i, o, f, c as Keras gate blocks


def _consumers(t):
  """The ops of t's graph that read t, and whether the graph returns it."""
  g = t.op.graph
  users = [o for o in g.get_operations() if any(i is t for i in o.inputs)]
  return users, any(o is t for o in g.outputs)


def _units(op):
  r = op.inputs[3 if op.type.endswith("LSTMSequence") else 2]
  return r.shape[0] if r.shape.rank == 2 else None


def _limit(op):
  gates = 4 if op.type.endswith("LSTMSequence") else 3
  if _units(op) is None:
    return "a recurrent kernel of unknown shape"
  if op.type.startswith("Masked"):
    scale = op.inputs[5].op
    if scale.type != "OnesLike":
      return "recurrent dropout (a recurrent scale that is not all ones)"
  if gates == 4:
    users, returned = _consumers(op.outputs[1])
    if returned or any(u.type != "StridedSlice" or u.attrs["spec"][:1] != (("i", -1),)
                       for u in users):
      return "its cell state read at steps other than the last (ONNX's LSTM returns " \
             "only the last)"
  kept = op.outputs[2:] if gates == 4 else op.outputs[1:]
  if any(_consumers(t)[0] or _consumers(t)[1] for t in kept):
    return "its gradient-only outputs read"
  return None


def _c(s, array, hint="const"):
  return s.b.constant(np.asarray(array), hint)


def _i64(s, values):
  return _c(s, np.asarray(values, np.int64), "axes")


def _unsqueeze0(s, name):
  return s.node("Unsqueeze", [name, _i64(s, [0])])[0]


def _compact(s, xp, mask):
  """(xp with each row's unmasked steps moved to the front in order, cumsum of the mask
  over time [T, B] int64, the number of unmasked steps per row [B] int64)."""
  on = s.node("Squeeze", [mask, _i64(s, [2])])[0]
  m = s.node("Cast", [on], to=s.b.onnx_type_of(np.int64))[0]
  cum = s.node("CumSum", [m, _c(s, np.int64(0), "axis")])[0]
  count = s.node("ReduceSum", [m, _i64(s, [0])], keepdims=0)[0]
  steps = s.node("Gather", [s.node("Shape", [m])[0], _c(s, np.int64(0), "zero")], axis=0)[0]
  t = s.node("Range", [_c(s, np.int64(0), "zero"), steps, _c(s, np.int64(1), "one")])[0]
  t = s.node("Unsqueeze", [t, _i64(s, [1])])[0]
  # unmasked step t goes to cum[t] - 1; masked ones follow the unmasked, in order
  kept = s.node("Sub", [cum, _c(s, np.int64(1), "one")])[0]
  after = s.node("Add", [count, s.node("Sub", [t, cum])[0]])[0]
  dest = s.node("Where", [on, kept, after])[0]
  dest = s.node("Expand", [s.node("Unsqueeze", [dest, _i64(s, [2])])[0],
                           s.node("Shape", [xp])[0]])[0]
  moved = s.node("ScatterElements", [xp, dest, xp], axis=0)[0]
  return moved, cum, count


def _states(s, y, h0, cum):
  """The state at every step [T, B, U] from ONNX's Y [T, 1, B, U]: unmasked, Y itself;
  masked, h0 or Y at the row's cum-th compacted step."""
  y = s.node("Squeeze", [y, _i64(s, [1])])[0]
  if cum is None:
    return y
  full = s.node("Concat", [_unsqueeze0(s, h0), y], axis=0)[0]
  idx = s.node("Expand", [s.node("Unsqueeze", [cum, _i64(s, [2])])[0],
                          s.node("Shape", [y])[0]])[0]
  return s.node("GatherElements", [full, idx], axis=0)[0]


def _last(s, y_last, first, count):
  """ONNX's state after the last step [B, U] (`first` for rows without unmasked steps)."""
  y_last = s.node("Squeeze", [y_last, _i64(s, [0])])[0]
  if count is None:
    return y_last
  some = s.node("Greater", [count, _c(s, np.int64(0), "zero")])[0]
  some = s.node("Unsqueeze", [some, _i64(s, [1])])[0]
  return s.node("Where", [some, y_last, first])[0]


def _projection(s, xp):
  """(x [T, B, d], kernel [d, k], bias [k] or None) ONNX names where the op's `xp` is
  x @ kernel (+ bias) at every step as the Keras layers compute it (reshape to [T * B,
  d], MatMul, reshape back, BiasAdd), else None."""
  t, bias = xp, None
  if t.op.type == "BiasAdd":
    if t.op.attrs.get("data_format") not in (None, "NHWC"):
      return None
    t, bias = t.op.inputs
  mm = t.op.inputs[0].op if t.op.type == "Reshape" else None
  if mm is None or mm.type != "MatMul" or mm.attrs.get("transpose_a") or \
      mm.attrs.get("transpose_b"):
    return None
  flat, k = mm.inputs
  x = flat.op.inputs[0] if flat.op.type == "Reshape" else None
  if x is None or x.shape.rank != 3 or flat.shape.rank != 2 or k.shape.rank != 2 or \
      x.shape[-1] is None or flat.shape[-1] != x.shape[-1] or \
      k.shape[-1] != xp.shape[-1] or not x.shape[:2].is_compatible_with(xp.shape[:2]):
    return None
  return tuple(None if v is None else s.names[id(v)] for v in (x, k, bias))


def _run(s, op, ins, onnx_op, gates, order, r, rb, state_ins, **attrs):
  """ONNX's `onnx_op` over the op's steps: (h at every step, the other states at the
  last step). `rb`: the recurrent bias (None: zeros)."""
  mask = ins[4] if op.type.startswith("Masked") else None
  u = _units(op)
  dt = op.inputs[0].dtype._np
  idx = np.concatenate([np.arange(u) + k * u for k in order])
  gate_idx = _c(s, idx.astype(np.int64), "gate_order")

  def reorder(name, axis):
    if list(order) == sorted(order):
      return name
    return s.node("Gather", [name, gate_idx], axis=axis)[0]

  def bias(name):
    return reorder(name, 0) if name is not None else _c(s, np.zeros([gates * u], dt), "bias")
  proj = _projection(s, op.inputs[0])
  if proj is not None:
    # NOTE: the ONNX operator does the input projection (one GEMM over all steps).
    x, k, wb = proj
    w = _unsqueeze0(s, s.node("Transpose", [reorder(k, 1)], perm=[1, 0])[0])
  else:
    # NOTE: xp as ONNX's X, a 0/1 W only reorders the gates.
    x, wb = ins[0], None
    w = _c(s, np.eye(gates * u, dtype=dt)[idx][None], "gate_order")
  b = _unsqueeze0(s, s.node("Concat", [bias(wb), bias(rb)], axis=0)[0])
  rk = _unsqueeze0(s, s.node("Transpose", [reorder(r, 1)], perm=[1, 0])[0])
  cum = count = None
  lens = ""  # NOTE: an empty name is ONNX's absent optional input
  if mask is not None:
    x, cum, count = _compact(s, x, mask)
    lens = s.node("Cast", [count], to=s.b.onnx_type_of(np.int32))[0]
  outs = s.node(onnx_op, [x, w, rk, b, lens] + [_unsqueeze0(s, v) for v in state_ins],
                n_out=1 + len(state_ins), hidden_size=int(u), **attrs)
  hs = _states(s, outs[0], state_ins[0], cum)
  lasts = [_last(s, y, first, count) for y, first in zip(outs[2:], state_ins[1:])]
  return hs, lasts


def _lstm(s, op, ins):
  hs, (c_last,) = _run(s, op, ins, "LSTM", 4, _LSTM_ORDER, ins[3], None, ins[1:3])
  # NOTE: c at the last step only, as [1, B, U]: every reader takes [-1] (_limit).
  return [hs, _unsqueeze0(s, c_last), None, None]


def _gru(s, op, ins):
  hs, _ = _run(s, op, ins, "GRU", 3, (0, 1, 2), ins[2], ins[3], ins[1:2],
               linear_before_reset=1)
  return [hs, None, None, None]


def _lstm_step(s, op, ins):
  """One fused LSTM step (an unrolled Keras LSTM) in elementwise ONNX ops."""
  x, h, c, r = ins
  u = op.inputs[3].shape[0]
  z = s.node("Add", [s.node("MatMul", [h, r])[0], x])[0]
  zi, zf, zg, zo = s.node("Split", [z, _i64(s, [u] * 4)], n_out=4, axis=-1)
  i, f, o = (s.node("Sigmoid", [v])[0] for v in (zi, zf, zo))
  c = s.node("Add", [s.node("Mul", [f, c])[0],
                     s.node("Mul", [i, s.node("Tanh", [zg])[0]])[0]])[0]
  return [s.node("Mul", [o, s.node("Tanh", [c])[0]])[0], c]


def _step_limit(op):
  r = op.inputs[3]
  return "a recurrent kernel of unknown shape" if r.shape.rank != 2 or r.shape[0] is None \
      else None


RNN_CONVERTERS = {"LSTMStep": _lstm_step, "LSTMSequence": _lstm, "MaskedLSTMSequence": _lstm,
                  "GRUSequence": _gru, "MaskedGRUSequence": _gru}
RNN_LIMITS = dict.fromkeys(RNN_CONVERTERS, _limit)
RNN_LIMITS["LSTMStep"] = _step_limit
