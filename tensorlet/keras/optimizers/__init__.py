"""tf.keras.optimizers: SGD, Adam, RMSprop, Adagrad and `get`."""
from tensorlet.keras.optimizers import schedules
from tensorlet.keras.optimizers.adagrad import Adagrad
from tensorlet.keras.optimizers.adam import Adam
from tensorlet.keras.optimizers.optimizer import Optimizer
from tensorlet.keras.optimizers.rmsprop import RMSprop
from tensorlet.keras.optimizers.sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "RMSprop", "Adagrad", "schedules", "get", "serialize",
           "deserialize"]

_CLASSES = {c.__name__: c for c in (SGD, Adam, RMSprop, Adagrad)}
_CANONICAL = {name.lower(): name for name in _CLASSES}


def serialize(optimizer):
  """{'module', 'class_name', 'config', 'registered_name'} as Keras writes it."""
  return {"module": "keras.optimizers", "class_name": type(optimizer).__name__,
          "config": optimizer.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None):
  """The optimizer described by a `serialize` dict or named by a string."""
  from tensorlet.keras.utils.serialization import deserialize_object
  if isinstance(config, str):
    config = {"class_name": _CANONICAL.get(config.lower(), config), "config": {}}
  return deserialize_object(config, custom_objects, _CLASSES, {}, "optimizer")


def get(identifier):
  """An optimizer from an instance, a name ('adam', 'sgd', ...) or a config dict."""
  if isinstance(identifier, Optimizer):
    return identifier
  if isinstance(identifier, (dict, str)):
    return deserialize(identifier)
  raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
