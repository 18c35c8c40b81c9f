"""Lambda: an arbitrary function of the inputs as a layer without weights.

Configs name a module-level function by module and name (loaded by lookup, no
code runs); a Python lambda or closure is written as marshalled bytecode as
Keras 2 writes it, and loading that bytecode runs code from the file, so
`from_config` refuses it unless called with `safe_mode=False`.
"""
import base64
import inspect
import marshal
import sys
import types

from tensorlet import _nest as nest
from tensorlet.keras.engine.base_layer import Layer
from tensorlet.tensor_shape import TensorShape

__all__ = ["Lambda"]


class Lambda(Layer):
  """`function(inputs, **arguments)` as a layer.

  Args:
    function: the function; it may take `mask` and `training` arguments.
    output_shape: the output shape without the batch axis, or a function of the input
      shape; by default found by tracing `function`.
    mask: a fixed output mask, or a function `(inputs, mask) -> mask`.
    arguments: extra keyword arguments of `function`.
  """

  def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
    super().__init__(**kwargs)
    if not callable(function):
      raise TypeError(f"`function` of a Lambda layer must be callable. Received: "
                      f"function={function!r}")
    self.function = function
    self.arguments = arguments or {}
    self.mask = mask
    self._output_shape = output_shape
    self.supports_masking = mask is not None
    try:
      params = inspect.signature(function).parameters
    except (TypeError, ValueError):
      params = {}
    self._tl_fn_mask = "mask" in params
    self._tl_fn_training = "training" in params

  def call(self, inputs, mask=None, training=None):
    kwargs = dict(self.arguments)
    if self._tl_fn_mask:
      kwargs["mask"] = mask
    if self._tl_fn_training:
      kwargs["training"] = training
    return self.function(inputs, **kwargs)

  def compute_output_shape(self, input_shape):
    if self._output_shape is None:
      return super().compute_output_shape(input_shape)
    if callable(self._output_shape):
      out = self._output_shape(input_shape)
      return nest.map_structure(TensorShape, out) if _is_shape_list(out) else TensorShape(out)
    batch = _batch(input_shape)
    if _is_shape_list(self._output_shape):
      return [TensorShape((batch,) + tuple(s)) for s in self._output_shape]
    return TensorShape((batch,) + tuple(self._output_shape))

  def compute_mask(self, inputs, mask=None):
    if callable(self.mask):
      return self.mask(inputs, mask)
    return self.mask

  def get_config(self):
    config = super().get_config()
    fn, fn_type, module = _serialize_function(self.function)
    config.update({"function": fn, "function_type": fn_type, "module": module})
    if callable(self._output_shape):
      out, out_type, out_module = _serialize_function(self._output_shape)
    else:
      out, out_type, out_module = self._output_shape, "raw", None
    config.update({"output_shape": out, "output_shape_type": out_type,
                   "output_shape_module": out_module})
    if self.mask is not None:
      if callable(self.mask):
        m, m_type, m_module = _serialize_function(self.mask)
      else:
        m, m_type, m_module = self.mask, "raw", None
      config.update({"mask": m, "mask_type": m_type, "mask_module": m_module})
    config["arguments"] = self.arguments
    return config

  @classmethod
  def from_config(cls, config, custom_objects=None, safe_mode=None):
    """The layer of `config`. A function given as Python bytecode ("lambda" type) is
    loaded only with `safe_mode=False`: loading it runs code from the config."""
    config = dict(config)
    custom = custom_objects or {}
    function = _load(config.pop("function"), config.pop("function_type", "function"),
                     config.pop("module", None), custom, safe_mode)
    out_type = config.pop("output_shape_type", "raw")
    out_module = config.pop("output_shape_module", None)
    out = config.pop("output_shape", None)
    if out is not None and out_type != "raw":
      out = _load(out, out_type, out_module, custom, safe_mode)
    elif isinstance(out, list) and out and not isinstance(out[0], (list, tuple)):
      out = tuple(out)
    mask_type = config.pop("mask_type", "raw")
    mask_module = config.pop("mask_module", None)
    mask = config.pop("mask", None)
    if mask is not None and mask_type != "raw":
      mask = _load(mask, mask_type, mask_module, custom, safe_mode)
    return cls(function, output_shape=out, mask=mask, **config)


def _batch(input_shape):
  first = nest.flatten(input_shape) if _is_shape_list(input_shape) else None
  if first:
    s = input_shape[0]
  else:
    s = input_shape
  dims = TensorShape(s).as_list() if TensorShape(s).rank else [None]
  return dims[0]


def _is_shape_list(s):
  return isinstance(s, (list, tuple)) and bool(s) and all(
      isinstance(e, (list, tuple, TensorShape)) for e in s)


def _serialize_function(fn):
  """(what to write, "function" or "lambda", module): module-level functions by name,
  other Python functions as Keras 2's marshalled (code, defaults, closure) triple."""
  module = getattr(fn, "__module__", None)
  name = getattr(fn, "__name__", None)
  qual = getattr(fn, "__qualname__", name)
  if name and qual == name and name != "<lambda>" and module in sys.modules and \
      getattr(sys.modules[module], name, None) is fn:
    return name, "function", module
  if isinstance(fn, types.FunctionType):
    code = base64.encodebytes(marshal.dumps(fn.__code__)).decode("ascii")
    closure = tuple(c.cell_contents for c in fn.__closure__) if fn.__closure__ else None
    return (code, fn.__defaults__, closure), "lambda", module
  if name:
    return name, "function", module
  raise ValueError(f"Cannot serialize the function {fn!r} of a Lambda layer.")


def _load(value, kind, module, custom, safe_mode):
  if kind == "function":
    if value in custom:
      return custom[value]
    mod = sys.modules.get(module) if module else None
    fn = getattr(mod, value, None) if mod is not None else None
    if fn is None:
      from tensorlet.keras import activations
      fn = getattr(activations, value, None)
    if fn is None:
      raise ValueError(f"Unknown function: '{value}' (module '{module}'). Please ensure you "
                       f"are using a `keras.utils.custom_object_scope` and that this object "
                       f"is included in the scope.")
    return fn
  if kind != "lambda":
    raise ValueError(f"Unknown function type {kind!r} in a Lambda layer config.")
  if safe_mode is not False:
    raise ValueError("Requested the deserialization of a Lambda layer with a Python `lambda` "
                     "inside it. This carries a potential risk of arbitrary code execution "
                     "and thus it is disallowed by default. If you trust the source of the "
                     "saved model, you can pass `safe_mode=False` to the loading function in "
                     "order to allow Lambda layer loading.")
  if isinstance(value, (list, tuple)):
    code, defaults, closure = (list(value) + [None, None])[:3]
  else:
    code, defaults, closure = value, None, None
  try:
    raw = marshal.loads(base64.decodebytes(code.encode("ascii")))
  except (ValueError, EOFError, TypeError) as e:
    raise ValueError(f"Cannot load the Python bytecode of a Lambda layer (written by "
                     f"another Python version?): {e}") from None
  globs = dict(sys.modules[module].__dict__) if module in sys.modules else {}
  globs.setdefault("__builtins__", __builtins__)
  if closure is not None:
    closure = tuple(_cell(c) for c in closure)
  return types.FunctionType(raw, globs, raw.co_name, tuple(defaults) if defaults else None,
                            closure)


def _cell(value):
  return (lambda: value).__closure__[0]
