"""tf.keras.utils: files and data helpers, the progress bar, object registration."""
import importlib as _importlib

import numpy as np

__all__ = ["Progbar", "to_categorical", "normalize", "set_random_seed", "get_file",
           "Sequence", "pad_sequences", "image_dataset_from_directory",
           "text_dataset_from_directory", "timeseries_dataset_from_array", "array_to_img",
           "img_to_array", "load_img", "save_img", "register_keras_serializable",
           "custom_object_scope", "CustomObjectScope", "get_custom_objects",
           "get_registered_name", "get_registered_object", "serialize_keras_object",
           "deserialize_keras_object", "plot_model", "model_to_dot"]

# Loaded on first access (keeps `import tensorlet` fast).
_LAZY = {
    "Progbar": "tensorlet.keras.utils.progbar",
    "get_file": "tensorlet.keras.utils.data_utils",
    "Sequence": "tensorlet.keras.utils.data_utils",
    "pad_sequences": "tensorlet.keras.utils.sequence_utils",
    "image_dataset_from_directory": "tensorlet.keras.utils.image_dataset",
    "text_dataset_from_directory": "tensorlet.keras.utils.text_dataset",
    "timeseries_dataset_from_array": "tensorlet.keras.utils.timeseries_dataset",
    "array_to_img": "tensorlet.keras.utils.image_utils",
    "img_to_array": "tensorlet.keras.utils.image_utils",
    "load_img": "tensorlet.keras.utils.image_utils",
    "save_img": "tensorlet.keras.utils.image_utils",
    "register_keras_serializable": "tensorlet.keras.saving.object_registration",
    "custom_object_scope": "tensorlet.keras.saving.object_registration",
    "CustomObjectScope": "tensorlet.keras.saving.object_registration",
    "get_custom_objects": "tensorlet.keras.saving.object_registration",
    "get_registered_name": "tensorlet.keras.saving.object_registration",
    "get_registered_object": "tensorlet.keras.saving.object_registration",
    "serialize_keras_object": "tensorlet.keras.saving.serialization_lib",
    "deserialize_keras_object": "tensorlet.keras.saving.serialization_lib",
    "plot_model": "tensorlet.keras.utils.vis_utils",
    "model_to_dot": "tensorlet.keras.utils.vis_utils",
}


def __getattr__(name):
  module = _LAZY.get(name)
  if module is None:
    from tensorlet._unsupported import missing
    raise missing("tf.keras.utils", name, __name__)
  value = getattr(_importlib.import_module(module), name)
  globals()[name] = value
  return value


def __dir__():
  return sorted(set(globals()) | set(_LAZY))


def to_categorical(y, num_classes=None, dtype="float32"):
  """One-hot rows for integer class ids (a trailing axis of size 1 is dropped)."""
  y = np.asarray(y, dtype="int64")
  shape = y.shape
  if shape and shape[-1] == 1 and len(shape) > 1:
    shape = shape[:-1]
  y = y.reshape(-1)
  num_classes = num_classes or int(y.max()) + 1
  out = np.zeros((y.shape[0], num_classes), dtype=dtype)
  out[np.arange(y.shape[0]), y] = 1
  return out.reshape(shape + (num_classes,))


def normalize(x, axis=-1, order=2):
  """`x` divided by its `order`-norm along `axis` (zero norms leave zeros)."""
  x = np.asarray(x)
  norm = np.atleast_1d(np.linalg.norm(x, order, axis))
  norm[norm == 0] = 1
  return x / np.expand_dims(norm, axis)


def set_random_seed(seed):
  """Seeds Python's, NumPy's and tensorlet's global generators."""
  import random
  from tensorlet import random as tl_random
  if not isinstance(seed, int) or isinstance(seed, bool):
    raise ValueError(f"Expected `seed` argument to be an integer. Received: seed={seed} (of "
                     f"type {type(seed)})")
  random.seed(seed)
  np.random.seed(seed)
  tl_random.set_seed(seed)
