"""Dtype sets and shape rules shared by the op modules."""
import functools

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


def as_int(value, op_name, arg, wide=False):
  """An integer argument (Python or NumPy int, or an integer scalar tensor or
  array) as a Python int; TF's TypeError naming the op and argument otherwise.
  Beyond int64 is a ValueError unless `wide` (seeds may be larger)."""
  v = value
  if hasattr(v, "numpy") and hasattr(v, "dtype"):
    v = v.numpy()
  if isinstance(v, np.ndarray) and v.ndim == 0:
    v = v[()]
  if isinstance(v, (int, np.integer)):
    v = int(v)
    if not wide and not -2 ** 63 <= v < 2 ** 63:
      raise ValueError(f"{op_name}: `{arg}` = {v} is out of the int64 range")
    return v
  raise TypeError(f"{op_name}: `{arg}` must be an integer (a Python int or an integer scalar "
                  f"tensor), got {_short(value)}")


def as_str(value, op_name, arg):
  """A string argument (str, or bytes decoded as UTF-8); TF's TypeError otherwise."""
  if isinstance(value, bytes):
    value = value.decode("utf-8", "replace")
  if not isinstance(value, str):
    raise TypeError(f"{op_name}: `{arg}` must be a string, got {_short(value)}")
  return value


def as_sequence(value, op_name, arg):
  """A list/tuple argument of values (tensors, arrays, numbers) as a list; TF's
  TypeError naming the op and argument for anything that is not a sequence."""
  if isinstance(value, (list, tuple)):
    return list(value)
  raise TypeError(f"{op_name}: `{arg}` must be a list or tuple, got {_short(value)}")


def _short(value):
  try:
    text = repr(value)
  except Exception:  # noqa: BLE001 - a repr that fails still deserves a message
    text = f"<{type(value).__name__}>"
  return text if len(text) <= 80 else text[:77] + "..."


def height_width(value, name, positive_what):
  """(height, width) from a 2-element size argument (image resizes and transforms);
  ValueError naming `name`, or `positive_what` for sizes that are not positive."""
  s = np.asarray(value).reshape(-1)
  if s.size != 2:
    raise ValueError(f"{name} must be a 1-D tensor of 2 elements: new_height, new_width; "
                     f"got {s.tolist()}")
  h, w = int(s[0]), int(s[1])
  if h <= 0 or w <= 0:
    raise ValueError(f"{positive_what} must be positive, got [{h}, {w}]")
  return h, w


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
    a = as_int(a, op_name, "axis")
    if rank is not None and not -rank <= a < rank:
      raise _axis_error(op_name, a, rank)
    out.append(a % rank if rank else a)
  return tuple(out)


def single_axis(axis, rank, op_name):
  """One axis (an int, or a list or tensor holding exactly one) as a non-negative int."""
  axes = norm_axis(axis, rank, op_name)
  if axes is None or len(axes) != 1:
    raise TypeError(f"{op_name}: `axis` must be a single integer, got {axis!r:.80}")
  return axes[0]


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


def name_scoped(fn):
  """For a public function made of several ops: `name=` given opens a name scope
  around them, as TF names such functions' ops "<name>/..." (in graphs)."""
  from tensorlet.context import name_scope
  code = fn.__code__
  positional = code.co_varnames[:code.co_argcount]
  pos = positional.index("name") if "name" in positional else 1 << 30

  @functools.wraps(fn)
  def wrapper(*args, **kwargs):
    name = args[pos] if len(args) > pos else kwargs.get("name")
    if name is None:
      return fn(*args, **kwargs)
    with name_scope(name):
      return fn(*args, **kwargs)
  return wrapper
