"""Whole-model and weights files, by path: `.keras` (Keras' zip format), `.h5` /
`.hdf5` (Keras 2's legacy HDF5 layout), `.weights.h5`, and SavedModel directories
or TF checkpoints otherwise. Also the compile config the formats carry."""
import json
import os
import warnings

from tensorlet.keras.saving import serialization_lib

__all__ = ["save_model", "load_model", "save_weights", "load_weights", "model_to_json",
           "model_from_json", "compile_config", "compile_from_config", "require_h5py"]

# The Keras release whose file formats tensorlet writes (readers check nothing else).
KERAS_VERSION = "2.21.0"


def require_h5py():
  """h5py, or an ImportError naming the extra that installs it."""
  try:
    import h5py
  except ImportError:
    raise ImportError("Saving or loading `.h5`, `.weights.h5` and `.keras` files requires "
                      "h5py, an optional dependency of tensorlet: `pip install "
                      "tensorlet[h5]` (or `pip install h5py`).") from None
  return h5py


def _fspath(filepath, what):
  if isinstance(filepath, bytes):
    filepath = os.fsdecode(filepath)
  if not isinstance(filepath, (str, os.PathLike)):
    raise TypeError(f"{what}: `filepath` must be a path (str or os.PathLike), got "
                    f"{filepath!r}")
  return os.fspath(filepath)


def _is_h5_path(path):
  return path.endswith((".h5", ".hdf5"))


def _check_overwrite(path, overwrite):
  if not overwrite and os.path.exists(path):
    raise FileExistsError(f"{path} exists and overwrite=False.")


def save_model(model, filepath, overwrite=True, include_optimizer=True, save_format=None,
               signatures=None, options=None, save_traces=True, **kwargs):
  """Model.save: the format follows `save_format` ('keras', 'h5', 'tf') or the suffix."""
  from tensorlet.keras.engine.training import Model
  path = _fspath(filepath, "save")
  if not isinstance(model, Model):
    raise TypeError(f"save_model expects a tf.keras.Model, got {type(model).__name__}.")
  for k in kwargs:
    if k not in ("save_traces",):
      raise TypeError(f"save() got an unexpected keyword argument '{k}'")
  if save_format not in (None, "keras", "keras_v3", "h5", "tf"):
    raise ValueError(f"Unknown format. Received: `save_format`={save_format}. Supported: "
                     f"'keras', 'h5', 'tf'.")
  _check_overwrite(path, overwrite)
  if save_format in ("keras", "keras_v3") or (save_format is None and path.endswith(".keras")):
    from tensorlet.keras.saving import keras_zip
    keras_zip.save_model(model, path, include_optimizer)
  elif save_format == "h5" or (save_format is None and _is_h5_path(path)):
    from tensorlet.keras.saving import legacy_h5
    legacy_h5.save_model(model, path, include_optimizer)
  else:
    from tensorlet.saved_model import keras_io
    keras_io.save_model(model, path, signatures=signatures)


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True,  # noqa: A002
               options=None):
  """The model a `.keras`, `.h5` or SavedModel path holds, with its weights, and
  compiled (optimizer state included) when the file says how and `compile`."""
  path = _fspath(filepath, "load_model")
  if not os.path.exists(path):
    raise OSError(f"No file or directory found at {path}")
  if path.endswith(".keras"):
    from tensorlet.keras.saving import keras_zip
    return keras_zip.load_model(path, custom_objects, compile, safe_mode)
  if os.path.isdir(path):
    from tensorlet.saved_model import keras_io
    return keras_io.load_model(path, custom_objects=custom_objects, compile=compile,
                               options=options, safe_mode=safe_mode)
  import zipfile
  if zipfile.is_zipfile(path):
    from tensorlet.keras.saving import keras_zip
    return keras_zip.load_model(path, custom_objects, compile, safe_mode)
  from tensorlet.keras.saving import legacy_h5
  return legacy_h5.load_model(path, custom_objects, compile, safe_mode)


def save_weights(model, filepath, overwrite=True, save_format=None, options=None):
  path = _fspath(filepath, "save_weights")
  if save_format not in (None, "h5", "tf"):
    raise ValueError(f"Unknown format. Received: `save_format`={save_format}. Supported: "
                     f"'h5', 'tf'.")
  if path.endswith(".keras"):
    raise ValueError(f"save_weights writes weights only; a `.keras` path ({path}) is for "
                     f"model.save(). Use a `.weights.h5` path.")
  _check_overwrite(path, overwrite) if _is_h5_path(path) else None
  if path.endswith(".weights.h5") and save_format != "tf":
    from tensorlet.keras.saving import keras_zip
    keras_zip.save_weights(model, path)
  elif save_format == "h5" or (save_format is None and _is_h5_path(path)):
    from tensorlet.keras.saving import legacy_h5
    legacy_h5.save_weights(model, path)
  else:
    from tensorlet.train import checkpoint_management
    from tensorlet.train.checkpoint import Checkpoint
    Checkpoint(root=model).write(path)
    directory = os.path.dirname(os.path.abspath(path))
    checkpoint_management.update_checkpoint_state(directory, path, [path])


def load_weights(model, filepath, skip_mismatch=False, by_name=False, options=None):
  path = _fspath(filepath, "load_weights")
  if path.endswith(".keras"):
    from tensorlet.keras.saving import keras_zip
    return keras_zip.load_weights_from_zip(model, path, skip_mismatch)
  if path.endswith(".weights.h5"):
    if by_name:
      raise ValueError("by_name=True is only supported for legacy `.h5` weights files; "
                       "`.weights.h5` files are matched by model structure.")
    from tensorlet.keras.saving import keras_zip
    return keras_zip.load_weights(model, path, skip_mismatch)
  if _is_h5_path(path) or (os.path.isfile(path) and _is_hdf5(path)):
    from tensorlet.keras.saving import legacy_h5
    return legacy_h5.load_weights(model, path, by_name, skip_mismatch)
  if by_name:
    raise NotImplementedError("Weights may only be loaded based on topology into Models "
                              "when loading TensorFlow-formatted weights (got by_name=True "
                              "to load_weights).")
  from tensorlet.train.checkpoint import Checkpoint
  return Checkpoint(root=model).read(path)


def _is_hdf5(path):
  with open(path, "rb") as f:
    return f.read(8) == b"\x89HDF\r\n\x1a\n"


# ------------------------------------------------------------------- JSON
def model_to_json(model, **kwargs):
  config = {"class_name": _class_name(model), "config": model.get_config(),
            "keras_version": KERAS_VERSION, "backend": "tensorflow"}
  return json.dumps(config, default=serialization_lib.json_default, **kwargs)


def _class_name(model):
  from tensorlet.keras.saving import object_registration
  cls = type(model)
  if serialization_lib._is_builtin(cls) or cls.__module__ == "tensorlet.keras.engine.functional":
    return cls.__name__
  return object_registration.get_registered_name(cls)


def model_from_json(json_string, custom_objects=None):
  """The model (new weights) a `to_json` string describes."""
  try:
    config = json.loads(json_string)
  except (TypeError, ValueError) as e:
    raise ValueError(f"model_from_json expects a JSON string: {e}") from None
  return model_from_config(config, custom_objects)


def model_from_config(config, custom_objects=None):
  if not isinstance(config, dict) or "class_name" not in config:
    raise ValueError(f"`model_from_config` expects a dictionary with a 'class_name' key, "
                     f"got {config!r}"[:500])
  from tensorlet.keras.engine.training import Model
  model = serialization_lib.deserialize_keras_object(config, custom_objects)
  if not isinstance(model, Model):
    raise TypeError(f"The config describes a {type(model).__name__}, not a model.")
  return model


# --------------------------------------------------------------- compile
def compile_config(model):
  args = model.__dict__.get("_tl_compile_args")
  if not getattr(model, "_is_compiled", False) or args is None:
    return None
  out = {}
  for key, value in args.items():
    if key == "optimizer" and not isinstance(value, str):
      value = model.optimizer
    out[key] = serialization_lib.serialize_keras_object(value)
  return out


def _compile_value(value, kind, custom_objects, outputs=()):
  if value is None or isinstance(value, (str, int, float, bool)):
    return value
  if isinstance(value, list):
    return [_compile_value(v, kind, custom_objects, outputs) for v in value]
  if isinstance(value, dict) and not ("class_name" in value and "config" in value):
    return {k: _compile_value(v, kind, custom_objects, outputs) for k, v in value.items()}
  if isinstance(value, dict):
    if value["class_name"] == "function":
      return serialization_lib._find_function(value["config"], custom_objects)
    if kind == "metrics" and value["class_name"] == "MeanMetricWrapper":
      # Keras 2 wraps a metric named by a string ("mae"), naming it after the output
      # ("dense_mae") in multi-output models; the user's string restores the same metric.
      return _wrapped_metric_name(value["config"], custom_objects, outputs)
    from tensorlet.keras import losses, metrics, optimizers
    module = {"loss": losses, "metrics": metrics, "optimizer": optimizers}[kind]
    return module.deserialize(value, custom_objects)
  return value


def _wrapped_metric_name(config, custom_objects, outputs):
  from tensorlet.keras import metrics
  name, fn = config.get("name"), config.get("fn")
  candidates = []
  if isinstance(name, str):
    for out in sorted(outputs, key=len, reverse=True):
      if name.startswith(out + "_"):
        candidates.append(name[len(out) + 1:])
        break
    candidates.append(name)
  if isinstance(fn, str):
    candidates.append(fn)
  for candidate in candidates:
    try:
      metrics.get(candidate)
      return candidate
    except ValueError:
      continue
  return metrics.deserialize({"class_name": "MeanMetricWrapper", "config": config},
                             custom_objects)


def compile_from_config(model, config, custom_objects=None):
  """Compiles `model` as a compile config says (Keras' `compile_from_config`)."""
  if not isinstance(config, dict):
    raise ValueError(f"compile_from_config expects a dict, got {config!r}")
  kinds = {"optimizer": "optimizer", "loss": "loss", "metrics": "metrics",
           "weighted_metrics": "metrics"}
  args = {}
  outputs = list(getattr(model, "output_names", None) or [])
  for key, value in config.items():
    if key not in ("optimizer", "loss", "metrics", "loss_weights", "weighted_metrics",
                   "run_eagerly", "steps_per_execution", "jit_compile"):
      continue
    if value is None:
      continue
    args[key] = _compile_value(value, kinds[key], custom_objects, outputs) \
        if key in kinds else value
  model.compile(**args)


def try_compile(model, config, custom_objects):
  """Compiles from a file's config; a config this build cannot honour leaves the model
  uncompiled with a warning, as Keras does."""
  try:
    compile_from_config(model, config, custom_objects)
    return True
  except (ValueError, TypeError, NotImplementedError) as e:
    warnings.warn(f"The model could not be compiled from the saved training config ({e}); "
                  f"it is loaded uncompiled. Compile it with `model.compile()` before "
                  f"training or evaluating.", stacklevel=3)
    return False
