"""tf.print and the tf.debugging checks. Both are stateful ops, so inside a
tf.function they run on every call, in program order."""
import sys

import numpy as np

from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops._common import FLOAT, as_int, as_sequence
from tensorlet.ops._common import name_scoped
from tensorlet.ops.registry import execute, op
from tensorlet.tensor import Tensor, convert_to_tensor

_PLACEHOLDER = "\x00{}\x00"


def _fmt_scalar(x):
  if isinstance(x, (bytes, np.bytes_)):
    return x.decode("utf-8", "replace")
  if isinstance(x, (bool, np.bool_)):
    return "1" if x else "0"
  if isinstance(x, (float, np.floating)):
    if not np.isfinite(x):
      return "nan" if np.isnan(x) else ("inf" if x > 0 else "-inf")
    # NOTE: TF prints max_digits10 significant digits: 9 for float32, 17 for float64.
    digits = 17 if isinstance(x, (float, np.float64)) else 9
    return f"{float(x):.{digits}g}"
  if isinstance(x, (complex, np.complexfloating)):
    return f"({x.real:g},{x.imag:g})"
  return str(x)


def format_tensor(v, summarize=3):
  """A tensor's text as tf.print writes it: `[1 2 ... 9 10]`, nested by rows."""
  v = np.asarray(v)
  if v.ndim == 0:
    return _fmt_scalar(v[()])

  def rec(a, depth):
    n = a.shape[0]
    if summarize is not None and summarize >= 0 and n > 2 * summarize:
      idx = list(range(summarize)) + [None] + list(range(n - summarize, n))
    else:
      idx = list(range(n))
    if a.ndim == 1:
      return "[" + " ".join("..." if i is None else _fmt_scalar(a[i]) for i in idx) + "]"
    sep = "\n" * (a.ndim - 1) + " " * (depth + 1)
    return "[" + sep.join("..." if i is None else rec(a[i], depth + 1) for i in idx) + "]"
  return rec(v, 0)


def _fmt_struct(x, values, summarize):
  if isinstance(x, _Slot):
    return format_tensor(values[x.i], summarize)
  if isinstance(x, dict):
    return "{" + ", ".join(f"{k!r}: {_fmt_struct(x[k], values, summarize)}"
                           for k in sorted(x)) + "}"
  if isinstance(x, tuple):
    return "(" + ", ".join(_fmt_struct(e, values, summarize) for e in x) + \
        ("," if len(x) == 1 else "") + ")"
  if isinstance(x, list):
    return "[" + ", ".join(_fmt_struct(e, values, summarize) for e in x) + "]"
  return repr(x)  # inside a structure TF prints Python values quoted ('s', b'b')


def _fmt_top(x, values, summarize):
  return str(x) if not isinstance(x, (_Slot, dict, list, tuple)) else \
      _fmt_struct(x, values, summarize)


class _Slot:
  __slots__ = ("i",)

  def __init__(self, i):
    self.i = i


def _stream_write(stream, text):
  if stream is None or stream == "stderr":
    stream = sys.stderr
  elif stream == "stdout":
    stream = sys.stdout
  if isinstance(stream, str):
    if not stream.startswith("file://"):
      raise ValueError(f"Unsupported output stream {stream!r}")
    with open(stream[len("file://"):], "a") as f:
      f.write(text)
    return
  if callable(getattr(stream, "write", None)):
    stream.write(text)
    if hasattr(stream, "flush"):
      stream.flush()
  elif callable(stream):
    stream(text.rstrip("\n"))
  else:
    raise ValueError(f"Unsupported output stream {stream!r}")


@op("PrintV2", type_inputs=(), stateful=True, num_outputs=0, shape=lambda i, a: [],
    differentiable=False)
def PrintV2(*values, template, output_stream, sep, end, summarize):
  parts = [_fmt_top(t, values, summarize) for t in template]
  _stream_write(output_stream, sep.join(parts) + end)
  return ()


@name_scoped
def print_(*inputs, output_stream=None, summarize=3, sep=" ", end="\n", name=None):
  """Prints tensors (their values, at run time) and Python objects.

  Writes to stderr unless `output_stream` is given (sys.stdout, sys.stderr or
  "file://path"). Inside a tf.function it prints on every call.
  """
  tensors = []

  def slot(x):
    if isinstance(x, Tensor) or hasattr(x, "_as_tensor"):
      tensors.append(convert_to_tensor(x))
      return _Slot(len(tensors) - 1)
    return x
  template = tuple(nest.map_structure(slot, i) if nest.is_nested(i) else slot(i)
                   for i in inputs)
  stream = output_stream
  if stream is sys.stderr:
    stream = "stderr"
  elif stream is sys.stdout:
    stream = "stdout"
  execute(PrintV2, tensors, {"template": template, "output_stream": stream,
                             "sep": sep, "end": end, "summarize": summarize})
  return _staged_op()


def _staged_op():
  """None eagerly; in a graph the Operation just staged (as TF: usable as a control input)."""
  from tensorlet.context import ctx
  return None if ctx.graph is None else ctx.graph.get_operations()[-1]


# ------------------------------------------------------------- debugging

@op("CheckNumerics", dtypes=FLOAT, shape=lambda i, a: [(i[0].shape, i[0].dtype)],
    stateful=True)
def CheckNumerics(x, *, message):
  if not np.all(np.isfinite(x)):
    kind = "NaN" if np.any(np.isnan(x)) else "Inf"
    raise InvalidArgumentError(None, None, f"{message} : Tensor had {kind} values "
                               f"[Op:CheckNumerics]")
  return x


@CheckNumerics.def_grad
def check_numerics_grad(op, dy):
  """The checks pass gradients through unchecked (as TF's)."""
  return [dy]


@name_scoped
def check_numerics(tensor, message, name=None):
  """Returns `tensor`; raises InvalidArgumentError if it holds NaN or Inf."""
  return execute(CheckNumerics, [convert_to_tensor(tensor)], {"message": message})


@op("Assert", type_inputs=(), stateful=True, num_outputs=0, shape=lambda i, a: [],
    differentiable=False)
def Assert(condition, *data, message, summarize):
  if not bool(np.all(condition)):
    shown = " ".join(format_tensor(d, summarize) for d in data)
    raise InvalidArgumentError(None, None, f"{message}{shown}".strip())
  return ()


@name_scoped
def Assert_(condition, data, summarize=None, name=None):
  """Raises InvalidArgumentError showing `data` when `condition` is False."""
  c = convert_to_tensor(condition)
  ts, texts = [], []
  for d in as_sequence(data, "Assert", "data"):
    if isinstance(d, (str, bytes)):
      texts.append(d.decode() if isinstance(d, bytes) else d)
    else:
      ts.append(convert_to_tensor(d))
  msg = "assertion failed: " + (" ".join(texts) + " " if texts else "")
  execute(Assert, [c] + ts, {"message": msg, "summarize": summarize or 3})
  return _staged_op()


def _message(message, where):
  """The `message` argument of the assertions: a string (or bytes)."""
  if isinstance(message, bytes):
    return message.decode("utf-8", "replace")
  if not isinstance(message, str):
    raise TypeError(f"assert {where}: `message` must be a string, got {message!r:.80}")
  return message


def _assert_cmp(fn, symbol):
  def check(x, y, message=None, summarize=None, name=None):
    from tensorlet.ops.registry import convert_inputs
    from tensorlet.ops import math_ops
    x, y = convert_inputs(math_ops.Equal, (x, y))
    if x.dtype is not y.dtype:
      raise TypeError(f"x and y must have the same dtype, got {x.dtype!r} and {y.dtype!r}")
    try:
      np.broadcast_shapes(tuple(x.shape.as_list()), tuple(y.shape.as_list()))
    except (ValueError, TypeError):
      if x.shape.is_fully_defined() and y.shape.is_fully_defined():
        raise ValueError(f"Shapes {x.shape} and {y.shape} are incompatible (in "
                         f"assert {symbol})") from None
    cond = math_ops.reduce_all(fn(x, y))
    prefix = (_message(message, symbol) + "\n") if message else ""
    return Assert_(cond, [f"{prefix}Condition x {symbol} y did not hold element-wise:",
                          "x =", x, "y =", y], summarize=summarize)
  return check


def _lazy_math(name):
  def f(x, y):
    from tensorlet.ops import math_ops
    return getattr(math_ops, name)(x, y)
  return f


assert_equal = _assert_cmp(_lazy_math("equal"), "==")
assert_none_equal = _assert_cmp(_lazy_math("not_equal"), "!=")
assert_less = _assert_cmp(_lazy_math("less"), "<")
assert_less_equal = _assert_cmp(_lazy_math("less_equal"), "<=")
assert_greater = _assert_cmp(_lazy_math("greater"), ">")
assert_greater_equal = _assert_cmp(_lazy_math("greater_equal"), ">=")


def _assert_sign(cmp_name, desc):
  def check(x, message=None, summarize=None, name=None):
    t = convert_to_tensor(x)
    return _assert_cmp(_lazy_math(cmp_name), desc)(t, convert_to_tensor(0, t.dtype),
                                                  message, summarize)
  return check


assert_positive = _assert_sign("greater", ">")
assert_negative = _assert_sign("less", "<")
assert_non_negative = _assert_sign("greater_equal", ">=")
assert_non_positive = _assert_sign("less_equal", "<=")


@name_scoped
def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
  from tensorlet.ops import math_ops
  from tensorlet.ops.registry import convert_inputs
  x, y = convert_inputs(math_ops.Sub, (x, y))
  eps = np.finfo(x.dtype._np).eps if x.dtype.is_floating else 0
  rtol = 10 * eps if rtol is None else rtol
  atol = 10 * eps if atol is None else atol
  tol = atol + rtol * math_ops.abs(y)
  cond = math_ops.reduce_all(math_ops.less_equal(math_ops.abs(x - y), tol))
  return Assert_(cond, [(_message(message, "near") + "\n" if message else "") + "x and y not equal to tolerance "
                        f"rtol = {rtol}, atol = {atol}", "x =", x, "y =", y])


@name_scoped
def assert_rank(x, rank, message=None, name=None):
  t = convert_to_tensor(x)
  if t.shape.rank is not None and t.shape.rank != as_int(rank, "assert_rank", "rank"):
    raise ValueError(f"{_message(message, 'rank') + ' ' if message else ''}Tensor must have rank {int(rank)}. "
                     f"Received rank {t.shape.rank}, shape {t.shape}")


@name_scoped
def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
  sizes = {}
  pairs = list(shapes.items()) if isinstance(shapes, dict) else \
      as_sequence(shapes, "assert_shapes", "shapes")
  for pair in pairs:
    if not isinstance(pair, (list, tuple)) or len(pair) != 2 or \
        not isinstance(pair[1], (list, tuple, str)):
      raise TypeError(f"assert_shapes: each of `shapes` must be a (tensor, shape spec) pair, "
                      f"got {pair!r:.80}")
  for x, spec in pairs:
    t = convert_to_tensor(x)
    dims = t.shape.as_list()
    if len(dims) != len(spec):
      raise ValueError(f"{message or ''} Specified by tensor {t!r} dimension 0. Tensor must "
                       f"have rank {len(spec)}. Received rank {len(dims)}, shape {t.shape}")
    for d, s in zip(dims, spec):
      if isinstance(s, int):
        if d != s:
          raise ValueError(f"{message or ''} Tensor has shape {t.shape}, expected {spec}")
      elif s in sizes and sizes[s] != d:
        raise ValueError(f"{message or ''} Dimension {s!r} is {d} for one tensor and "
                         f"{sizes[s]} for another")
      else:
        sizes[s] = d


@name_scoped
def assert_type(tensor, tf_type, message=None, name=None):
  t = convert_to_tensor(tensor)
  if t.dtype is not _dt.as_dtype(tf_type):
    raise TypeError(f"{_message(message, 'type') + ' ' if message else ''}{t!r} must be of type "
                    f"{_dt.as_dtype(tf_type)!r}; got {t.dtype!r}")


@name_scoped
def assert_all_finite(t, msg, name=None, x=None, message=None):
  return check_numerics(t if x is None else x, msg if message is None else message)


def is_numeric_tensor(t):
  return isinstance(t, Tensor) and t.dtype.is_numeric


