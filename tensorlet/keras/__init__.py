"""tf.keras: layers, models and the training loop (Keras 2 semantics).

Submodules load on first attribute access so `import tensorlet` stays fast.
"""
import importlib as _importlib

_MODULES = {name: f"tensorlet.keras.{name}" for name in (
    "layers", "models", "optimizers", "losses", "metrics", "callbacks", "initializers",
    "activations", "regularizers", "constraints", "datasets", "utils", "backend",
    "mixed_precision", "saving", "preprocessing")}
_ATTRS = {
    "Model": ("tensorlet.keras.engine.training", "Model"),
    "Sequential": ("tensorlet.keras.engine.sequential", "Sequential"),
    "Input": ("tensorlet.keras.engine.input_layer", "Input"),
}


def __getattr__(name):
  module = _MODULES.get(name)
  if module is not None:
    value = _importlib.import_module(module)
  elif name in _ATTRS:
    path, attr = _ATTRS[name]
    value = getattr(_importlib.import_module(path), attr)
  else:
    from tensorlet._unsupported import missing
    raise missing("tf.keras", name, __name__)
  globals()[name] = value
  return value


def __dir__():
  return sorted(set(globals()) | set(_MODULES) | set(_ATTRS))
