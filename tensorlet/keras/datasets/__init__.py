"""tf.keras.datasets: loaders for the standard data sets kept in Keras' cache
(`~/.keras/datasets`, or `$KERAS_HOME/datasets`), downloaded there when missing."""
import importlib as _importlib

__all__ = ["mnist", "fashion_mnist", "cifar10", "cifar100", "imdb", "reuters",
           "boston_housing"]


def __getattr__(name):
  if name not in __all__:
    from tensorlet._unsupported import missing
    raise missing("tf.keras.datasets", name, __name__)
  module = _importlib.import_module(f"tensorlet.keras.datasets.{name}")
  globals()[name] = module
  return module


def __dir__():
  return sorted(set(globals()) | set(__all__))
