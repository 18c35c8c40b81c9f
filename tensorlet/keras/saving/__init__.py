"""tf.keras.saving: model files, object registration and (de)serialization."""
from tensorlet.keras.saving.object_registration import (CustomObjectScope,  # noqa: F401
                                                        custom_object_scope,
                                                        get_custom_objects,
                                                        get_registered_name,
                                                        get_registered_object,
                                                        register_keras_serializable)
from tensorlet.keras.saving.serialization_lib import (deserialize_keras_object,  # noqa: F401
                                                      serialize_keras_object)

__all__ = ["save_model", "load_model", "register_keras_serializable", "get_registered_name",
           "get_registered_object", "get_custom_objects", "custom_object_scope",
           "CustomObjectScope", "serialize_keras_object", "deserialize_keras_object"]


def save_model(model, filepath, overwrite=True, save_format=None, **kwargs):
  """Saves `model` to a `.keras` file, a legacy `.h5` file or a SavedModel directory."""
  from tensorlet.keras.saving import saving_api
  saving_api.save_model(model, filepath, overwrite, save_format=save_format, **kwargs)


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True, **kwargs):  # noqa: A002
  """Loads a model saved by `save_model` / `Model.save` (or by Keras 2)."""
  from tensorlet.keras.saving import saving_api
  return saving_api.load_model(filepath, custom_objects, compile, safe_mode,
                               kwargs.get("options"))
