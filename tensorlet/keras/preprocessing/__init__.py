"""tf.keras.preprocessing: the Keras 2 names of the sequence, image and dataset helpers
(the same functions as tf.keras.utils)."""
import importlib as _importlib

__all__ = ["sequence", "image", "image_dataset_from_directory", "text_dataset_from_directory",
           "timeseries_dataset_from_array"]

_SUBMODULES = {"sequence": "tensorlet.keras.preprocessing.sequence",
               "image": "tensorlet.keras.preprocessing.image"}


def __getattr__(name):
  if name in _SUBMODULES:
    value = _importlib.import_module(_SUBMODULES[name])
  elif name in __all__:
    from tensorlet.keras import utils
    value = getattr(utils, name)
  else:
    from tensorlet._unsupported import missing
    raise missing("tf.keras.preprocessing", name, __name__)
  globals()[name] = value
  return value
