"""tf.keras.optimizers: SGD, Adam, AdamW, Adamax, Nadam, RMSprop, Adagrad, Adadelta, Ftrl,
Lion, the `legacy` names, `schedules` and `get`."""
from tensorlet.keras.optimizers import schedules
from tensorlet.keras.optimizers.adadelta import Adadelta
from tensorlet.keras.optimizers.adagrad import Adagrad
from tensorlet.keras.optimizers.adam import Adam
from tensorlet.keras.optimizers.adamax import Adamax
from tensorlet.keras.optimizers.adamw import AdamW
from tensorlet.keras.optimizers.ftrl import Ftrl
from tensorlet.keras.optimizers.lion import Lion
from tensorlet.keras.optimizers.nadam import Nadam
from tensorlet.keras.optimizers.optimizer import Optimizer
from tensorlet.keras.optimizers.rmsprop import RMSprop
from tensorlet.keras.optimizers.sgd import SGD
from tensorlet.keras.optimizers import legacy  # noqa: E402  (after the classes it names)

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adamax", "Nadam", "RMSprop", "Adagrad",
           "Adadelta", "Ftrl", "Lion", "legacy", "schedules", "get", "serialize", "deserialize"]

_CLASSES = {c.__name__: c for c in (SGD, Adam, AdamW, Adamax, Nadam, RMSprop, Adagrad,
                                    Adadelta, Ftrl, Lion)}
_CANONICAL = {name.lower(): name for name in _CLASSES}


def serialize(optimizer):
  """{'module', 'class_name', 'config', 'registered_name'} as Keras writes it (legacy
  optimizers marked `is_legacy_optimizer`)."""
  config = optimizer.get_config()
  if isinstance(optimizer, legacy._Legacy):
    config["is_legacy_optimizer"] = True
  return {"module": "keras.optimizers", "class_name": type(optimizer).__name__,
          "config": config, "registered_name": None}


def deserialize(config, custom_objects=None):
  """The optimizer described by a `serialize` dict or named by a string."""
  from tensorlet.keras.utils.serialization import deserialize_object
  if isinstance(config, str):
    config = {"class_name": _CANONICAL.get(config.lower(), config), "config": {}}
  elif isinstance(config, dict) and config.get("config", {}).get("is_legacy_optimizer"):
    config = dict(config, config=dict(config["config"]))
    config["config"].pop("is_legacy_optimizer")
    classes = {n: getattr(legacy, n) for n in legacy.__all__ if n != "Optimizer"}
    return deserialize_object(config, custom_objects, classes, {}, "optimizer")
  if isinstance(config, dict) and config.get("class_name") == "LossScaleOptimizer":
    from tensorlet.keras.mixed_precision import LossScaleOptimizer
    return LossScaleOptimizer.from_config(config.get("config", {}), custom_objects)
  return deserialize_object(config, custom_objects, _CLASSES, {}, "optimizer")


def get(identifier):
  """An optimizer from an instance, a name ('adam', 'sgd', ...) or a config dict."""
  if isinstance(identifier, Optimizer):
    return identifier
  if isinstance(identifier, (dict, str)):
    return deserialize(identifier)
  raise ValueError(f"Could not interpret optimizer identifier: {identifier}")


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.keras.optimizers", __name__)
