"""serialize_keras_object / deserialize_keras_object: Keras objects as JSON-able
dicts `{"module", "class_name", "config", "registered_name"}` (Keras 2's `.keras`
format; the legacy `{"class_name", "config"}` dicts of `.h5` files load too).

Classes are found only in tables: custom objects (argument, scopes, registry),
then tensorlet's own namespaces picked by the dict's "module"; nothing named by a
file is imported, and Python bytecode (a Lambda's `lambda`) is refused in safe
mode.
"""
import contextlib
import threading

import numpy as np

from tensorlet.keras.saving import object_registration

__all__ = ["serialize_keras_object", "deserialize_keras_object", "json_default",
           "legacy_serialization", "safe_mode_scope", "in_safe_mode", "builtin_layer_class"]

FUNCTIONAL_MODULE = "tf_keras.src.engine.functional"


class _State(threading.local):
  def __init__(self):
    self.legacy = False
    self.safe_mode = True


_state = _State()


@contextlib.contextmanager
def legacy_serialization():
  """Layers serialize as `{"class_name", "config"}` (what `.h5` model configs hold)."""
  saved, _state.legacy = _state.legacy, True
  try:
    yield
  finally:
    _state.legacy = saved


@contextlib.contextmanager
def safe_mode_scope(safe_mode):
  saved = _state.safe_mode
  if safe_mode is not None:
    _state.safe_mode = bool(safe_mode)
  try:
    yield
  finally:
    _state.safe_mode = saved


def in_safe_mode():
  """Whether deserialization must refuse Python bytecode (True unless a loader was
  given safe_mode=False)."""
  return _state.safe_mode


def json_default(obj):
  """json.dumps' fallback for the values configs hold (NumPy, shapes, dtypes)."""
  from tensorlet.dtypes import DType
  from tensorlet.tensor_shape import TensorShape
  if isinstance(obj, np.generic):
    return obj.item()
  if isinstance(obj, np.ndarray):
    return obj.tolist()
  if isinstance(obj, TensorShape):
    return obj.as_list() if obj.rank is not None else None
  if isinstance(obj, DType):
    return obj.name
  if isinstance(obj, (set, frozenset)):
    return list(obj)
  if hasattr(obj, "get_config"):
    return serialize_keras_object(obj)
  raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable: {obj!r}")


# tensorlet module prefix -> the public Keras module name Keras writes.
_MODULES = (
    ("tensorlet.keras.engine.sequential", "keras"),
    ("tensorlet.keras.engine.training", "keras"),
    ("tensorlet.keras.engine.input_layer", "keras.layers"),
    ("tensorlet.keras.engine.base_layer", "keras.layers"),
    ("tensorlet.keras.layers", "keras.layers"),
    ("tensorlet.keras.initializers", "keras.initializers"),
    ("tensorlet.keras.regularizers", "keras.regularizers"),
    ("tensorlet.keras.constraints", "keras.constraints"),
    ("tensorlet.keras.optimizers.schedules", "keras.optimizers.schedules"),
    ("tensorlet.keras.optimizers", "keras.optimizers"),
    ("tensorlet.keras.losses", "keras.losses"),
    ("tensorlet.keras.metrics", "keras.metrics"),
    ("tensorlet.keras.mixed_precision", "keras.mixed_precision"),
)


def _public_module(cls):
  mod = cls.__module__
  if cls.__name__ == "Functional" and mod == "tensorlet.keras.engine.functional":
    return FUNCTIONAL_MODULE
  for prefix, public in _MODULES:
    if mod == prefix or mod.startswith(prefix + "."):
      return public
  return None


def _is_builtin(cls):
  return _public_module(cls) is not None and \
      object_registration._GLOBAL_CUSTOM_NAMES.get(cls) is None


def serialize_keras_object(obj):
  """`obj` as JSON-able data: plain values as they are, objects with `get_config`
  as a class dict, functions by name."""
  if obj is None or isinstance(obj, (bool, int, float, str)):
    return obj
  if isinstance(obj, np.generic):
    return obj.item()
  if isinstance(obj, np.ndarray):
    return {"class_name": "__numpy__", "config": {"value": obj.tolist(),
                                                  "dtype": obj.dtype.name}}
  if isinstance(obj, (list, tuple)):
    return [serialize_keras_object(v) for v in obj]
  if isinstance(obj, dict):
    return {k: serialize_keras_object(v) for k, v in obj.items()}
  from tensorlet.dtypes import DType
  from tensorlet.tensor_shape import TensorShape
  if isinstance(obj, DType):
    return obj.name
  if isinstance(obj, TensorShape):
    return obj.as_list() if obj.rank is not None else None
  if isinstance(obj, type) or not hasattr(obj, "get_config"):
    if callable(obj) and hasattr(obj, "__name__"):
      name = object_registration.get_registered_name(obj)
      if obj.__name__ == "<lambda>":
        raise ValueError("A Python lambda cannot be serialized by name; define a named "
                         "function (and register it with "
                         "tf.keras.saving.register_keras_serializable).")
      return {"module": "builtins", "class_name": "function", "config": name,
              "registered_name": "function"}
    raise TypeError(f"Cannot serialize {obj!r}: it has no get_config() method.")
  cls = type(obj)
  config = _plain(obj.get_config())
  if _state.legacy:
    name = cls.__name__ if _is_builtin(cls) else object_registration.get_registered_name(cls)
    return {"class_name": name, "config": config}
  builtin = _is_builtin(cls)
  out = {"module": _public_module(cls) if builtin else None, "class_name": cls.__name__,
         "config": config,
         "registered_name": (None if builtin else object_registration.get_registered_name(cls))}
  if out["module"] == FUNCTIONAL_MODULE:
    out["registered_name"] = "Functional"
  build = _build_config(obj)
  if build is not None:
    out["build_config"] = build
  return out


def _plain(value):
  """A config with NumPy scalars as Python numbers and shapes/dtypes as lists/names
  (tuples stay tuples: configs compare equal before and after JSON)."""
  if isinstance(value, dict):
    return {k: _plain(v) for k, v in value.items()}
  if isinstance(value, (list, tuple)):
    return type(value)(_plain(v) for v in value)
  if isinstance(value, np.generic):
    return value.item()
  from tensorlet.dtypes import DType
  from tensorlet.tensor_shape import TensorShape
  if isinstance(value, DType):
    return value.name
  if isinstance(value, TensorShape):
    return tuple(value.as_list()) if value.rank is not None else None
  return value


def _build_config(obj):
  from tensorlet.keras.engine.base_layer import Layer
  if not isinstance(obj, Layer) or not obj.built:
    return None
  shape = obj.__dict__.get("_tl_build_input_shape")
  if shape is None:
    return None
  return {"input_shape": _shape_data(shape)}


def _shape_data(shape):
  from tensorlet import _nest as nest
  from tensorlet.tensor_shape import TensorShape
  if isinstance(shape, TensorShape):
    return shape.as_list() if shape.rank is not None else None
  if isinstance(shape, (list, tuple)) and shape and all(
      isinstance(s, (TensorShape, list, tuple)) or s is None for s in shape) and \
      any(isinstance(s, (TensorShape, list, tuple)) for s in shape):
    return [_shape_data(s) for s in shape]
  if isinstance(shape, dict):
    return {k: _shape_data(v) for k, v in shape.items()}
  if nest.is_nested(shape):
    return list(shape)
  return shape


# ------------------------------------------------------------------ lookups
def builtin_layer_class(class_name):
  """The tensorlet layer or model class Keras calls `class_name`, or None. Any layer
  exported by tf.keras.layers is found, so new layers need no registration here."""
  if not isinstance(class_name, str) or not class_name.isidentifier():
    return None
  if class_name in ("Functional", "Model"):
    from tensorlet.keras.engine.functional import Functional
    return Functional if class_name == "Functional" else _model_class()
  if class_name == "Sequential":
    from tensorlet.keras.engine.sequential import Sequential
    return Sequential
  from tensorlet.keras import layers
  from tensorlet.keras.engine.base_layer import Layer
  try:
    cls = getattr(layers, class_name, None)
  except Exception:  # noqa: BLE001 - a lazy attribute that fails to load is "not found"
    cls = None
  return cls if isinstance(cls, type) and issubclass(cls, Layer) else None


def _model_class():
  from tensorlet.keras.engine.training import Model
  return Model


def _namespace_class(module, class_name):
  """A built-in class of another Keras namespace (initializers, losses, ...)."""
  import importlib
  table = {"keras.initializers": "tensorlet.keras.initializers",
           "keras.regularizers": "tensorlet.keras.regularizers",
           "keras.constraints": "tensorlet.keras.constraints",
           "keras.optimizers": "tensorlet.keras.optimizers",
           "keras.optimizers.schedules": "tensorlet.keras.optimizers.schedules",
           "keras.losses": "tensorlet.keras.losses",
           "keras.metrics": "tensorlet.keras.metrics",
           "keras.mixed_precision": "tensorlet.keras.mixed_precision"}
  path = table.get(module)
  if path is None or not class_name.isidentifier() or class_name.startswith("_"):
    return None
  try:
    mod = importlib.import_module(path)
  except ImportError:
    return None
  cls = getattr(mod, class_name, None)
  return cls if isinstance(cls, type) else None


def _find_function(name, custom_objects):
  found = object_registration.lookup_table(custom_objects).get(name)
  if found is not None:
    return found
  from tensorlet.keras import activations, losses, metrics
  for get in (activations.get, losses.get, metrics.get):
    try:
      fn = get(name)
    except (ValueError, TypeError):
      continue
    if fn is not None and callable(fn):
      return fn
  raise ValueError(f"Unknown function: '{name}'. Please ensure you are using a "
                   f"`keras.utils.custom_object_scope` and that this object is included in "
                   f"the scope.")


_LAMBDA_REFUSED = (
    "Requested the deserialization of a Lambda layer with a Python `lambda` inside it. This "
    "carries a potential risk of arbitrary code execution and thus it is disallowed by "
    "default. If you trust the source of the saved model, you can pass `safe_mode=False` to "
    "the loading function in order to allow Lambda layer loading.")


def check_lambda(config):
  """Raises Keras' ValueError for a Lambda config holding bytecode, in safe mode."""
  inner = config.get("config") if isinstance(config, dict) else None
  if not isinstance(inner, dict) or not _state.safe_mode:
    return
  for key in ("function", "output_shape", "mask"):
    if inner.get(f"{key}_type") == "lambda" or (
        isinstance(inner.get(key), dict) and inner[key].get("class_name") == "__lambda__"):
      raise ValueError(_LAMBDA_REFUSED)


def deserialize_keras_object(config, custom_objects=None, safe_mode=True, **kwargs):
  """The object a `serialize_keras_object` dict (or a legacy `{"class_name",
  "config"}` dict) describes; plain values come back as they are."""
  with safe_mode_scope(safe_mode):
    return _deserialize(config, custom_objects)


def _deserialize(config, custom_objects):
  if config is None or isinstance(config, (bool, int, float, str)):
    return config
  if isinstance(config, (list, tuple)):
    return [_deserialize(v, custom_objects) for v in config]
  if not isinstance(config, dict):
    raise TypeError(f"Could not parse config: {config!r}")
  if "class_name" not in config or "config" not in config:
    return {k: _deserialize(v, custom_objects) for k, v in config.items()}
  class_name = config["class_name"]
  inner = config["config"]
  if class_name == "__numpy__":
    return np.array(inner["value"], dtype=inner["dtype"])
  if class_name == "__lambda__":
    raise ValueError(_LAMBDA_REFUSED) if _state.safe_mode else \
        ValueError("Python lambdas serialized by Keras 3 cannot be loaded by tensorlet.")
  if class_name == "function":
    return _find_function(inner, custom_objects)
  if class_name == "Lambda":
    check_lambda(config)
  cls = find_class(config, custom_objects)
  with object_registration.CustomObjectScope(custom_objects or {}):
    obj = _instantiate(cls, inner, custom_objects)
    _maybe_build(obj, config.get("build_config"))
  return obj


def find_class(config, custom_objects=None):
  class_name = config.get("class_name")
  registered = config.get("registered_name")
  module = config.get("module")
  table = object_registration.lookup_table(custom_objects)
  for key in (registered, class_name):
    if isinstance(key, str) and key in table:
      return table[key]
  cls = None
  if module is None or module == "keras" or module.startswith(("keras.layers", "tf_keras.",
                                                               "keras.src.")):
    cls = builtin_layer_class(class_name)
  if cls is None and isinstance(module, str):
    cls = _namespace_class(module, class_name)
  if cls is None:
    raise ValueError(f"Unknown layer: '{class_name}'. Please ensure you are using a "
                     f"`keras.utils.custom_object_scope` and that this object is included in "
                     f"the scope. See https://www.tensorflow.org/guide/keras/save_and_"
                     f"serialize#registering_the_custom_object for details.")
  return cls


def _instantiate(cls, inner, custom_objects):
  import inspect
  from_config = getattr(cls, "from_config", None)
  if from_config is None:
    return cls(**inner)
  try:
    params = inspect.signature(from_config).parameters
  except (TypeError, ValueError):
    params = {}
  if "custom_objects" in params:
    return from_config(inner, custom_objects=custom_objects)
  return from_config(inner)


def _maybe_build(obj, build_config):
  from tensorlet.keras.engine.base_layer import Layer
  if not isinstance(obj, Layer) or obj.built or not isinstance(build_config, dict):
    return
  shape = build_config.get("input_shape")
  if shape is None:
    return
  from tensorlet.tensor_shape import TensorShape
  if isinstance(shape, list) and shape and all(isinstance(s, list) or s is None for s in shape):
    shape = [TensorShape(s) for s in shape]
  else:
    shape = TensorShape(shape)
  obj.build(shape)
  obj.built = True
  obj._tl_build_input_shape = shape
