"""tf.keras.models: the model classes, whole-model files, configs and cloning."""
from tensorlet.keras.engine.sequential import Sequential  # noqa: F401
from tensorlet.keras.engine.training import Model  # noqa: F401

__all__ = ["Model", "Sequential", "save_model", "load_model", "model_from_json",
           "model_from_config", "clone_model"]


def save_model(model, filepath, overwrite=True, include_optimizer=True, save_format=None,
               signatures=None, options=None, save_traces=True):
  """Saves `model`: a `.keras` zip, an `.h5` file (Keras 2's legacy format) or, for any
  other path, a SavedModel directory."""
  from tensorlet.keras.saving import saving_api
  saving_api.save_model(model, filepath, overwrite, include_optimizer, save_format,
                        signatures, options, save_traces)


def load_model(filepath, custom_objects=None, compile=True, options=None,  # noqa: A002
               safe_mode=True):
  """The model written by `model.save` / `save_model` (or by Keras 2): its class, weights
  and, with `compile=True`, its compiled state and optimizer state."""
  from tensorlet.keras.saving import saving_api
  return saving_api.load_model(filepath, custom_objects, compile, safe_mode, options)


def model_from_json(json_string, custom_objects=None):
  """A new model (fresh weights) from `model.to_json()`."""
  from tensorlet.keras.saving import saving_api
  return saving_api.model_from_json(json_string, custom_objects)


def model_from_config(config, custom_objects=None):
  """A new model from `{"class_name": ..., "config": model.get_config()}`."""
  from tensorlet.keras.saving import saving_api
  return saving_api.model_from_config(config, custom_objects)


def clone_model(model, input_tensors=None, clone_function=None):
  """A model of the same structure with new layers (new weights, not copied).

  `clone_function(layer)` makes each new layer (default: from the layer's config);
  `input_tensors` replace the inputs of a functional or Sequential model.
  """
  from tensorlet.keras.saving import clone
  return clone.clone_model(model, input_tensors, clone_function)


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.keras.models", __name__)
