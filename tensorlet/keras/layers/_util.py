"""Argument normalisation and the training switch shared by the built-in layers."""
import numbers

from tensorlet.tensor import Tensor


def normalize_tuple(value, n, name, allow_zero=False):
  """An int or n ints -> a tuple of n positive ints (Keras' `conv_utils.normalize_tuple`;
  zeros only where `allow_zero`)."""
  if isinstance(value, int) and not isinstance(value, bool):
    value = (value,) * n
  try:
    value = tuple(value)
  except TypeError:
    raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. "
                     f"Received: {value}") from None
  if len(value) != n or not all(isinstance(v, int) for v in value):
    raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. "
                     f"Received: {value}")
  bad = {v for v in value if v < 0 or (v == 0 and not allow_zero)}
  if bad:
    raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. Received: "
                     f"{value} including {bad} that does not satisfy the requirement "
                     f"`{'>= 0' if allow_zero else '> 0'}`.")
  return value


def int_tuple(value, layer, arg):
  """A list/tuple of integers (a shape or permutation argument) as a tuple;
  TypeError naming the layer and argument for anything else."""
  if not isinstance(value, (list, tuple)) or not all(
      isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value):
    if hasattr(value, "as_list") and None not in value:   # a fully known TensorShape
      return tuple(value.as_list())
    raise TypeError(f"{layer}: `{arg}` must be a list or tuple of integers, got {value!r:.80}")
  return tuple(int(v) for v in value)


def normalize_padding(value):
  padding = value.lower() if isinstance(value, str) else value
  if padding not in ("valid", "same"):
    raise ValueError(f"The `padding` argument must be a list/tuple or one of \"valid\", "
                     f"\"same\" (or \"causal\", only for `Conv1D). Received: {value}")
  return padding


def normalize_data_format(value):
  from tensorlet.keras import backend
  fmt = value or backend.image_data_format()
  fmt = fmt.lower() if isinstance(fmt, str) else fmt
  if fmt not in ("channels_first", "channels_last"):
    raise ValueError(f"The `data_format` argument must be one of \"channels_first\", "
                     f"\"channels_last\". Received: {value}")
  return fmt


def smart_cond(training, true_fn, false_fn):
  """`true_fn()` or `false_fn()` for a Python flag; a tf.cond for a tensor flag."""
  if isinstance(training, Tensor):
    from tensorlet.graph.control_flow import cond
    return cond(training, true_fn, false_fn)
  return true_fn() if training else false_fn()
