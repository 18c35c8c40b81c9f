"""tf.keras.models: the model classes and whole-model saving (SavedModel, inference)."""
from tensorlet.keras.engine.sequential import Sequential  # noqa: F401
from tensorlet.keras.engine.training import Model  # noqa: F401

__all__ = ["Model", "Sequential", "save_model", "load_model"]


def save_model(model, filepath, overwrite=True, include_optimizer=True, save_format=None,
               signatures=None, options=None, save_traces=True):
  """Saves `model` as a SavedModel directory that loads without its Python code."""
  from tensorlet.saved_model import keras_io
  if isinstance(filepath, str) and filepath.endswith((".h5", ".keras")):
    raise ValueError(f"tensorlet saves Keras models as SavedModel directories only; got "
                     f"{filepath!r} (.h5/.keras files are not supported)")
  keras_io.save_model(model, filepath, input_signature=signatures)


def load_model(filepath, custom_objects=None, compile=True, options=None):  # noqa: A002
  """Loads a model written by `model.save` / `save_model`, for inference."""
  from tensorlet.saved_model import keras_io
  return keras_io.load_model(filepath, custom_objects=custom_objects, compile=compile,
                             options=options)
