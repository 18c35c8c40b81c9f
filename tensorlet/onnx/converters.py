"""One converter per exportable op: (scope, op, input names) -> output names.

Ops not in CONVERTERS cannot be exported; `export` lists them with their
source lines. NHWC convolutions and pools are wrapped in transposes, since
ONNX's Conv and pools are NCHW.
"""
import numpy as np

from tensorlet.onnx.list_converters import LIST_CONVERTERS, LIST_LIMITS
from tensorlet.onnx.rnn_converters import RNN_CONVERTERS, RNN_LIMITS

__all__ = ["CONVERTERS", "LIMITS"]

_BIG = np.iinfo(np.int64).max

_ELEMENTWISE = {
    "Identity": "Identity", "StopGradient": "Identity", "Relu": "Relu", "Tanh": "Tanh",
    "Sigmoid": "Sigmoid", "Exp": "Exp", "Log": "Log", "Sqrt": "Sqrt", "Neg": "Neg",
    "Abs": "Abs", "Floor": "Floor", "Ceil": "Ceil", "Sin": "Sin", "Cos": "Cos", "Tan": "Tan",
    "Reciprocal": "Reciprocal", "Sign": "Sign", "Erf": "Erf", "Round": "Round",
    "Softplus": "Softplus", "LogicalNot": "Not", "AddV2": "Add", "Sub": "Sub", "Mul": "Mul",
    "RealDiv": "Div", "Maximum": "Max", "Minimum": "Min", "Pow": "Pow", "Less": "Less",
    "Greater": "Greater", "LessEqual": "LessOrEqual", "GreaterEqual": "GreaterOrEqual",
    "Equal": "Equal", "LogicalAnd": "And", "LogicalOr": "Or",
    "SelectV2": "Where", "AddN": "Sum", "BatchMatMulV2": "MatMul"}

_REDUCE = {"Sum": "ReduceSum", "Mean": "ReduceMean", "Max": "ReduceMax", "Min": "ReduceMin",
           "Prod": "ReduceProd"}


def _elementwise(onnx_op):
  return lambda s, op, ins: s.node(onnx_op, ins)


def _int64(s, name):
  return s.node("Cast", [name], to=s.b.onnx_type_of(np.int64))[0]


def _axes(s, axes):
  return s.b.constant(np.asarray(axes, np.int64), "axes")


def _swap_last(s, name, rank):
  perm = list(range(rank))
  perm[-2:] = perm[-1], perm[-2]
  return s.node("Transpose", [name], perm=perm)[0]


def _matmul(s, op, ins):
  a, b = ins
  if op.attrs.get("transpose_a"):
    a = _swap_last(s, a, op.inputs[0].shape.rank)
  if op.attrs.get("transpose_b"):
    b = _swap_last(s, b, op.inputs[1].shape.rank)
  return s.node("MatMul", [a, b])


def _reduce(onnx_op):
  def conv(s, op, ins):
    axis = op.attrs.get("axis")
    keep = int(bool(op.attrs.get("keepdims")))
    if axis is not None and not len(axis):
      return s.node("Identity", ins[:1])  # NOTE: ONNX reduces every axis for empty axes
    if axis is None:
      return s.node(onnx_op, ins, keepdims=keep)
    # NOTE: ReduceSum takes axes as an input from opset 13, the others from 18.
    if onnx_op == "ReduceSum" or s.b.opset >= 18:
      return s.node(onnx_op, [ins[0], _axes(s, axis)], keepdims=keep)
    return s.node(onnx_op, ins, axes=list(axis), keepdims=keep)
  return conv


def _bool_reduce(onnx_op):
  """Any as a sum of ones (an empty Any is False), All as a min (an empty All is True)."""
  count = _reduce(onnx_op)

  def conv(s, op, ins):
    n = count(s, op, [s.node("Cast", ins[:1], to=s.b.onnx_type_of(np.int32))[0]])
    return s.node("Cast", n, to=s.b.onnx_type_of(np.bool_))
  return conv


def _nchw(s, name):
  return s.node("Transpose", [name], perm=[0, 3, 1, 2])[0]


def _nhwc(s, name):
  return s.node("Transpose", [name], perm=[0, 2, 3, 1])


def _padding(op):
  pad = op.attrs.get("padding", "VALID")
  if pad == "SAME":
    return {"auto_pad": "SAME_UPPER"}
  if pad == "VALID":
    return {"auto_pad": "VALID"}
  p = list(op.attrs["explicit_paddings"])  # NHWC (before, after) pairs
  return {"pads": [p[2], p[4], p[3], p[5]]}


def _conv2d(s, op, ins):
  w = s.node("Transpose", [ins[1]], perm=[3, 2, 0, 1])[0]  # HWIO -> OIHW
  strides = list(op.attrs.get("strides", (1, 1, 1, 1)))[1:3]
  dil = list(op.attrs.get("dilations", (1, 1, 1, 1)))[1:3]
  y = s.node("Conv", [_nchw(s, ins[0]), w], strides=strides, dilations=dil, **_padding(op))
  return _nhwc(s, y[0])


def _pool(onnx_op):
  def conv(s, op, ins):
    k = list(op.attrs["ksize"])[1:3]
    strides = list(op.attrs["strides"])[1:3]
    y = s.node(onnx_op, [_nchw(s, ins[0])], kernel_shape=k, strides=strides, **_padding(op))
    return _nhwc(s, y[0])
  return conv


def _reshape(s, op, ins):
  return s.node("Reshape", [ins[0], _int64(s, ins[1])])


def _cast(s, op, ins):
  return s.node("Cast", ins, to=s.b.onnx_type(op.attrs["DstT"]))


def _shape(s, op, ins):
  return s.node("Cast", s.node("Shape", ins), to=s.b.onnx_type(op.attrs["out_type"]))


def _softmax(onnx_op):
  return lambda s, op, ins: s.node(onnx_op, ins, axis=-1)


def _square(s, op, ins):
  return s.node("Mul", [ins[0], ins[0]])


def _squared_difference(s, op, ins):
  d = s.node("Sub", ins)[0]
  return s.node("Mul", [d, d])


def _rsqrt(s, op, ins):
  return s.node("Reciprocal", s.node("Sqrt", ins))


def _not_equal(s, op, ins):
  return s.node("Not", s.node("Equal", ins))


def _relu6(s, op, ins):
  dt = op.inputs[0].dtype._np
  return s.node("Clip", [ins[0], s.b.constant(np.array(0, dt)), s.b.constant(np.array(6, dt))])


def _transpose(s, op, ins):
  return s.node("Transpose", ins, perm=list(op.attrs["perm"]))


def _concat(s, op, ins):
  return s.node("Concat", ins, axis=int(op.attrs["axis"]))


def _pack(s, op, ins):
  axis = int(op.attrs.get("axis", 0))
  parts = [s.node("Unsqueeze", [x, _axes(s, [axis])])[0] for x in ins]
  return s.node("Concat", parts, axis=axis)


def _expand_dims(s, op, ins):
  return s.node("Unsqueeze", [ins[0], _axes(s, [int(op.attrs["axis"])])])


def _squeeze(s, op, ins):
  axis = op.attrs.get("axis") or ()
  return s.node("Squeeze", [ins[0], _axes(s, axis)] if axis else ins)


def _slice_limit(op):
  spec = op.attrs["spec"]
  if any(e[0] == "s" and isinstance(e[3], tuple) and None in e[1:3] for e in spec):
    return "a step computed by a tensor and an open start or end"
  if any(e[0] == "n" for e in spec):
    return "tf.newaxis"
  if any(e[0] == "e" for e in spec) and op.inputs[0].shape.rank is None:
    return "an ellipsis on a tensor of unknown rank"
  return None


def _bound(s, ins, v, plus_one=False):
  """A [1] int64 ONNX value of a slice bound: a number, or ("t", k) the k-th index input;
  plus_one: the end of an index (index + 1, to the end for -1)."""
  if not isinstance(v, tuple):
    return v + 1 if plus_one and v != -1 else (_BIG if plus_one else v)
  t = s.node("Unsqueeze", [_int64(s, ins[1 + v[1]]), _axes(s, [0])])[0]
  if not plus_one:
    return t
  last = s.node("Equal", [t, _axes(s, [-1])])[0]
  return s.node("Where", [last, _axes(s, [_BIG]), s.node("Add", [t, _axes(s, [1])])[0]])[0]


def _bounds(s, values):
  if not any(isinstance(v, str) for v in values):
    return _axes(s, values)
  return s.node("Concat", [v if isinstance(v, str) else _axes(s, [v]) for v in values],
                axis=0)[0]


def _strided_slice(s, op, ins):
  spec = op.attrs["spec"]
  starts, ends, steps, axes, squeeze = [], [], [], [], []
  axis = 0
  for e in spec:
    if e[0] == "e":
      axis += op.inputs[0].shape.rank - sum(1 for x in spec if x[0] in "si")
      continue
    if e[0] == "i":
      starts.append(_bound(s, ins, e[1]))
      ends.append(_bound(s, ins, e[1], plus_one=True))
      steps.append(1)
      squeeze.append(axis)
    else:
      _, b, end, st = e
      st = 1 if st is None else st
      up = isinstance(st, tuple) or st > 0
      starts.append(_bound(s, ins, b) if b is not None else (0 if up else _BIG))
      ends.append(_bound(s, ins, end) if end is not None else (_BIG if up else -_BIG))
      steps.append(_bound(s, ins, st))
    axes.append(axis)
    axis += 1
  y = s.node("Slice", [ins[0]] + [_bounds(s, v) for v in (starts, ends, axes, steps)])
  return s.node("Squeeze", [y[0], _axes(s, squeeze)]) if squeeze else y


def _range(s, op, ins):
  return s.node("Range", ins)


def _if(s, op, ins):
  a = op.attrs
  caps = ins[1:]
  then_g = s.subgraph(a["then_graph"], [], [caps[i] for i in a["then_idx"]], "then")
  else_g = s.subgraph(a["else_graph"], [], [caps[i] for i in a["else_idx"]], "else")
  return s.node("If", [ins[0]], n_out=len(op.outputs), then_branch=then_g, else_branch=else_g)


def _while(s, op, ins):
  a = op.attrs
  n = a["n_vars"]
  caps = ins[n:len(ins) - (1 if a["has_max"] else 0)]
  ccaps = [caps[i] for i in a["cond_idx"]]
  bcaps = [caps[i] for i in a["body_idx"]]
  first = s.inline(a["cond_graph"], ins[:n], ccaps)[0]
  trip = _int64(s, ins[-1]) if a["has_max"] else ""
  body = s.loop_body(a["body_graph"], a["cond_graph"], bcaps, ccaps, ins[:n])
  outs = s.node("Loop", [trip, first] + list(ins[:n]), n_out=n, body=body)
  s.b.same_types(ins[:n], outs)
  return outs + [None]  # NOTE: the loop history (for gradients) has no ONNX value


def _gather(s, op, ins):
  return s.node("Gather", ins[:2], axis=int(op.attrs.get("axis", 0)))


def _gather_limit(op):
  return "batch_dims" if op.attrs.get("batch_dims") else None


def _fill(s, op, ins):
  return s.node("Expand", [ins[1], _int64(s, ins[0])])


def _like(value):
  def conv(s, op, ins):
    one = s.b.constant(np.array(value, op.outputs[0].dtype._np))
    return s.node("Expand", [one, s.node("Shape", ins)[0]])
  return conv


def _cumsum(s, op, ins):
  a = op.attrs
  return s.node("CumSum", [ins[0], s.b.constant(np.array(int(a["axis"]), np.int64), "axis")],
                exclusive=int(bool(a.get("exclusive"))), reverse=int(bool(a.get("reverse"))))


def _reverse(s, op, ins):
  y = ins[0]
  for axis in op.attrs["axis"]:
    y = s.node("Slice", [y] + [_axes(s, [v]) for v in (-1, -_BIG, axis, -1)])[0]
  return [y]


def _split(s, op, ins):
  n = int(op.attrs["num_split"])
  x = op.inputs[0]
  axis = int(op.attrs["axis"]) % x.shape.rank
  size = x.shape[axis]
  if size is not None:
    sizes = _axes(s, [size // n] * n)
  else:
    dim = s.node("Gather", [s.node("Shape", [ins[0]])[0], _axes(s, [axis])], axis=0)[0]
    part = s.node("Div", [dim, s.b.constant(np.array([n], np.int64), "n")])[0]
    sizes = s.node("Expand", [part, _axes(s, [n])])[0]
  return s.node("Split", [ins[0], sizes], n_out=n, axis=axis)


def _split_limit(op):
  return "an input of unknown rank" if op.inputs[0].shape.rank is None else None


def _identity(s, op, ins):
  if op.inputs[0].dtype.name == "variant" and s.b.opset < 14:
    return ins  # NOTE: Identity takes sequences (TensorLists) from opset 14 on
  return s.node("Identity", ins)


def _unpack(s, op, ins):
  n = int(op.attrs["num"])
  axis = int(op.attrs["axis"]) % op.inputs[0].shape.rank
  parts = s.node("Split", [ins[0], _axes(s, [1] * n)], n_out=n, axis=axis) if n > 1 else ins
  return [s.node("Squeeze", [p, _axes(s, [axis])])[0] for p in parts]


def _bias_add(s, op, ins):
  x, b = ins
  if op.attrs.get("data_format") == "NCHW":  # the bias runs along axis 1
    b = s.node("Unsqueeze", [b, _axes(s, list(range(1, op.inputs[0].shape.rank - 1)))])[0]
  return s.node("Add", [x, b])


def _bias_limit(op):
  nchw = op.attrs.get("data_format") == "NCHW"
  return "data_format NCHW on a tensor of unknown rank" if nchw and \
      op.inputs[0].shape.rank is None else None


def _call(s, op, ins):
  """A call of another tf.function: its graph inlined (ONNX has no calls)."""
  f = op.attrs["f"]
  n = len(f.inputs)
  return s.inline(f, ins[:n], ins[n:])


CONVERTERS = {k: _elementwise(v) for k, v in _ELEMENTWISE.items()}
CONVERTERS.update({k: _reduce(v) for k, v in _REDUCE.items()})
CONVERTERS.update({
    "MatMul": _matmul, "Conv2D": _conv2d, "MaxPool": _pool("MaxPool"),
    "AvgPool": _pool("AveragePool"), "Reshape": _reshape, "Cast": _cast, "Shape": _shape,
    "Softmax": _softmax("Softmax"), "LogSoftmax": _softmax("LogSoftmax"), "Square": _square,
    "SquaredDifference": _squared_difference, "Rsqrt": _rsqrt, "NotEqual": _not_equal,
    "Relu6": _relu6, "Transpose": _transpose, "ConcatV2": _concat, "Pack": _pack,
    "ExpandDims": _expand_dims, "Squeeze": _squeeze, "If": _if, "StatelessIf": _if,
    "While": _while, "StridedSlice": _strided_slice, "PartitionedCall": _call,
    "StatefulPartitionedCall": _call, "GatherV2": _gather, "Fill": _fill,
    "OnesLike": _like(1), "ZerosLike": _like(0), "Cumsum": _cumsum, "ReverseV2": _reverse,
    "Split": _split, "Range": _range,
    "Identity": _identity, "Unpack": _unpack, "Any": _bool_reduce("ReduceSum"),
    "All": _bool_reduce("ReduceMin"), "BiasAdd": _bias_add})
CONVERTERS.update(RNN_CONVERTERS)
CONVERTERS.update(LIST_CONVERTERS)
# Converters that handle only some uses of their op: op -> (op -> reason it cannot, or None).
LIMITS = {"StridedSlice": _slice_limit, "GatherV2": _gather_limit, "Split": _split_limit,
          "Unpack": _split_limit, "BiasAdd": _bias_limit,
          **RNN_LIMITS,
          **LIST_LIMITS}
