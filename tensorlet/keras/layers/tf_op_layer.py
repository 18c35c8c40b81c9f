"""TFOpLambda: a TF function applied to Keras symbolic tensors, as a layer of the model.

`tf.concat([a, b], 1)`, `a + b`, `a[:, 0]` or `tf.nn.relu(a)` on KerasTensors
(`tf.keras.Input`) make one of these layers and call it, so the op is a node
of the functional model, replayed on real tensors when the model runs (Keras
2's TFOpLambda; SlicingOpLambda for `[]`). The public functions reach here
through `tensorlet.ops.dispatch`; the operators of KerasTensor call
`op_layer_call` directly.
"""
import inspect

from tensorlet import _nest as nest
from tensorlet.keras import backend
from tensorlet.keras.engine.base_layer import Layer
from tensorlet.keras.engine.keras_tensor import KerasTensor
from tensorlet.ops import dispatch

__all__ = ["TFOpLambda", "SlicingOpLambda", "InstanceProperty", "InstanceMethod",
           "op_layer_call", "method_call"]


class TFOpLambda(Layer):
  """Wraps the public TF function `function` (or its API name, "math.add") as a layer
  without weights; the layer is named "tf." + the API name."""

  # The function gets its arguments as given (`2 * x` stays `multiply(2, x)`).
  _tl_convert_inputs = False

  def __init__(self, function, **kwargs):
    symbol = kwargs.pop("_tl_symbol", None)
    if isinstance(function, str):
      symbol, function = function, dispatch.lookup(function)
    elif symbol is None:
      symbol = dispatch.api_name(function) or _operator_name(function) or \
          getattr(function, "__name__", "lambda")
    self.function = function
    self.symbol = symbol
    if kwargs.get("name") is None:
      kwargs["name"] = backend.unique_object_name("tf." + symbol)
    kwargs["autocast"] = False  # as Keras 2: `tf.cast(x, "float64")` must stay float64
    super().__init__(**kwargs)
    self._tl_sig = None

  def call(self, *args, **kwargs):
    return self.function(*args, **kwargs)

  def get_config(self):
    config = super().get_config()
    config["function"] = self.symbol
    return config

  @classmethod
  def from_config(cls, config):
    config = dict(config)
    return cls(config.pop("function"), **config)


class SlicingOpLambda(TFOpLambda):
  """`x[key]` on a KerasTensor (Keras 2's layer for `tf.__operators__.getitem`)."""


class InstanceProperty(Layer):
  """`x.attr_name` of a composite Keras symbolic tensor (`rt.flat_values`), as a layer
  (Keras 2's InstanceProperty, named "input." + the attribute)."""

  _tl_convert_inputs = False

  def __init__(self, attr_name, **kwargs):
    self.attr_name = attr_name
    if kwargs.get("name") is None:
      kwargs["name"] = backend.unique_object_name("input." + attr_name)
    kwargs["autocast"] = False
    super().__init__(**kwargs)

  def call(self, obj):
    return getattr(obj, self.attr_name)

  def get_config(self):
    config = super().get_config()
    config["attr_name"] = self.attr_name
    return config


class InstanceMethod(InstanceProperty):
  """`x.attr_name(*args, **kwargs)` of a composite Keras symbolic tensor
  (`rt.to_tensor()`), as a layer (Keras 2's InstanceMethod)."""

  def call(self, obj, args, kwargs):
    return getattr(obj, self.attr_name)(*args, **kwargs)


_PROPERTIES = frozenset(["values", "flat_values", "row_splits", "indices", "dense_shape"])


def method_call(x, attr_name, args, kwargs):
  """`x.attr_name(...)` (or the property) on a composite KerasTensor, as a node."""
  if attr_name in _PROPERTIES:
    return InstanceProperty(attr_name)(x)
  return InstanceMethod(attr_name)(x, list(args), dict(kwargs))


def _getitem(x, key):
  from tensorlet.tensor import Tensor, convert_to_tensor
  if getattr(x, "_tf_tensor_like", False) and not isinstance(x, Tensor):
    return x[key]  # a RaggedTensor indexes itself
  return convert_to_tensor(x)[key]


# Python operator -> (API name, function) as Keras 2 records them.
def _ops_table():
  from tensorlet.ops import math_ops
  import tensorlet.linalg  # noqa: F401 - installs the dispatching wrappers
  import tensorlet as tf
  return {
      "add": ("__operators__.add", tf.math.add), "sub": ("math.subtract", tf.math.subtract),
      "mul": ("math.multiply", tf.math.multiply), "truediv": ("math.truediv", tf.math.truediv),
      "floordiv": ("math.floordiv", tf.math.floordiv), "mod": ("math.floormod", tf.math.floormod),
      "pow": ("math.pow", tf.math.pow), "matmul": ("linalg.matmul", tf.linalg.matmul),
      "lt": ("math.less", tf.math.less), "le": ("math.less_equal", tf.math.less_equal),
      "gt": ("math.greater", tf.math.greater),
      "ge": ("math.greater_equal", tf.math.greater_equal),
      "and": ("math.logical_and", math_ops.logical_and),
      "or": ("math.logical_or", math_ops.logical_or),
      "xor": ("math.logical_xor", math_ops.logical_xor),
      "neg": ("math.negative", tf.math.negative), "abs": ("math.abs", tf.math.abs),
      "invert": ("math.logical_not", math_ops.logical_not),
  }


_TABLE = None
_OPERATOR_NAMES = {}


def _table():
  global _TABLE
  if _TABLE is None:
    _TABLE = _ops_table()
    dispatch.OPERATORS["add"] = _TABLE["add"][1]
    dispatch.OPERATORS["getitem"] = _getitem
    _OPERATOR_NAMES[id(_getitem)] = "__operators__.getitem"
    _OPERATOR_NAMES[id(_TABLE["add"][1])] = "__operators__.add"
  return _TABLE


def _operator_name(fn):
  _table()
  return _OPERATOR_NAMES.get(id(fn))


def _bind_positional(fn, args, kwargs):
  """Moves keyword arguments up to the first one holding a KerasTensor into positions,
  so the layer's first input is positional as `Layer.__call__` requires."""
  if args:
    return args, kwargs
  try:
    params = list(inspect.signature(fn).parameters.values())
  except (TypeError, ValueError):
    return args, kwargs
  args, kwargs = [], dict(kwargs)
  for p in params:
    if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or p.name not in kwargs:
      break
    v = kwargs.pop(p.name)
    args.append(v)
    if any(isinstance(t, KerasTensor) for t in nest.flatten(v)):
      return tuple(args), kwargs
  kwargs.update({p.name: v for p, v in zip(params, args)})
  return (), kwargs


def op_layer_call(fn, args, kwargs, symbol=None):
  """`fn(*args, **kwargs)` as a TFOpLambda node on KerasTensors."""
  args, kwargs = _bind_positional(fn, tuple(args), dict(kwargs))
  if not args:
    raise TypeError(f"Cannot apply {getattr(fn, '__name__', fn)} to Keras symbolic tensors "
                    f"passed only as keyword arguments not in its signature.")
  cls = SlicingOpLambda if fn is _getitem else TFOpLambda
  return cls(fn, _tl_symbol=symbol)(*args, **kwargs)


def operator(name, x, y=None, reverse=False):
  """The KerasTensor operator `name` ("add", "neg", "getitem", ...)."""
  if name == "getitem":
    _table()
    return op_layer_call(_getitem, (x, y), {}, "__operators__.getitem")
  symbol, fn = _table()[name]
  if name in ("neg", "abs", "invert"):
    return op_layer_call(fn, (x,), {}, symbol)
  args = (y, x) if reverse else (x, y)
  return op_layer_call(fn, args, {}, symbol)
