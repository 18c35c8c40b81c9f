"""tf.keras.optimizers: SGD, Adam, RMSprop, Adagrad and `get`."""
from tensorlet.keras.optimizers import schedules
from tensorlet.keras.optimizers.adagrad import Adagrad
from tensorlet.keras.optimizers.adam import Adam
from tensorlet.keras.optimizers.optimizer import Optimizer
from tensorlet.keras.optimizers.rmsprop import RMSprop
from tensorlet.keras.optimizers.sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "RMSprop", "Adagrad", "schedules", "get", "serialize",
           "deserialize"]

_BY_NAME = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop, "adagrad": Adagrad}


def serialize(optimizer):
  """{'module', 'class_name', 'config', 'registered_name'} as Keras writes it."""
  return {"module": "keras.optimizers", "class_name": type(optimizer).__name__,
          "config": optimizer.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None):
  """The optimizer described by a `serialize` dict."""
  name = config.get("class_name") if isinstance(config, dict) else None
  cls = (custom_objects or {}).get(name) or _BY_NAME.get(str(name).lower())
  if cls is None:
    raise ValueError(f"Unknown optimizer: '{name}'. Please ensure you are using a "
                     f"`keras.utils.custom_object_scope` and that this object is included "
                     f"in the scope.")
  return cls.from_config(config.get("config", {}))


def get(identifier):
  """An optimizer from an instance, a name ('adam', 'sgd', ...) or a config dict."""
  if isinstance(identifier, Optimizer):
    return identifier
  if isinstance(identifier, dict):
    return deserialize(identifier)
  if isinstance(identifier, str):
    return deserialize({"class_name": identifier, "config": {}})
  raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
