"""Dtype sets and shape rules shared by the op modules."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.tensor_shape import TensorShape, broadcast_static

FLOAT = _dt.FLOATS
FLOAT_C = _dt.FLOATS | _dt.COMPLEX
REAL = _dt.REAL
NUMERIC = _dt.NUMERIC
INT = _dt.INTS
BOOL = frozenset({_dt.bool})
NUM_STR = NUMERIC | {_dt.string}
ALL = frozenset(d for d in _dt.ALL if d not in (_dt.resource, _dt.variant))


def same_shape(inputs, attrs):
  x = inputs[0]
  return [(x.shape, x.dtype)]


def _dims(shape):
  return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]" \
      if shape.rank is not None else "<unknown>"


def broadcast_shape(inputs, attrs):
  x, y = inputs[0], inputs[1]
  try:
    return [(broadcast_static(x.shape, y.shape), x.dtype)]
  except ValueError:
    raise ValueError(f"Incompatible shapes: {_dims(x.shape)} vs. {_dims(y.shape)}") from None


def broadcast_bool(inputs, attrs):
  return [(broadcast_shape(inputs, attrs)[0][0], _dt.bool)]


def norm_axis(axis, rank, op_name):
  """Axis attribute -> tuple of non-negative ints (None stays None)."""
  if axis is None:
    return None
  if hasattr(axis, "numpy"):
    axis = axis.numpy()
  if isinstance(axis, np.ndarray):
    axis = axis.tolist()
  axes = axis if isinstance(axis, (list, tuple)) else [axis]
  out = []
  for a in axes:
    a = int(a)
    if rank is not None and not -rank <= a < rank:
      raise _axis_error(op_name, a, rank)
    out.append(a % rank if rank else a)
  return tuple(out)


def _axis_error(op_name, a, rank):
  from tensorlet.errors import InvalidArgumentError
  if op_name in REDUCTIONS:
    msg = f"Invalid reduction dimension ({a} for input with {rank} dimension(s))"
  else:
    msg = _AXIS_MESSAGES.get(op_name, "Expected axis in the range [{lo}, {hi}), but got {a}")
    msg = msg.format(lo=-rank, hi=rank, a=a)
  return InvalidArgumentError(None, None, f"{msg} [Op:{op_name}]")


REDUCTIONS = {"Sum", "Mean", "Max", "Min", "Prod", "Any", "All", "EuclideanNorm"}
# TF kernels word their axis errors differently; the default is GatherV2's.
_AXIS_MESSAGES = {
    "ArgMax": "Expected dimension in the range [{lo}, {hi}), but got {a}",
    "ArgMin": "Expected dimension in the range [{lo}, {hi}), but got {a}",
    "Cumsum": "ScanOp: Expected scan axis in the range [{lo}, {hi}), but got {a}",
    "Cumprod": "ScanOp: Expected scan axis in the range [{lo}, {hi}), but got {a}",
    "ConcatV2": "ConcatOp : Expected concatenating dimensions in the range [{lo}, {hi}), but "
                "got {a}",
    "ReverseV2": "'axis'[0] = {a} is out of valid range [{lo}, {hi})",
    "Squeeze": "Tried to squeeze dim index {a} for tensor with {hi} dimensions.",
}


def reduced_shape(shape, axis, keepdims):
  if shape.rank is None:
    return TensorShape(None)
  dims = shape.as_list()
  if axis is None:
    return TensorShape([1] * len(dims) if keepdims else [])
  return TensorShape([1 if i in axis else d for i, d in enumerate(dims)] if keepdims else
                     [d for i, d in enumerate(dims) if i not in axis])
