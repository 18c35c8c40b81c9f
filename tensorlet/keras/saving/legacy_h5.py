"""Keras 2's legacy HDF5 files: whole models (`model_config`, `training_config`,
`model_weights`, `optimizer_weights`) and `save_weights` files (`.h5`).

Weights are grouped by layer name; each layer group lists its datasets in a
`weight_names` attribute (the layer's `weights` order), and the file or
`model_weights` group lists the layers in `layer_names`. Loading matches
layers by position among those with weights (or by name with `by_name=True`)
and weights by position inside a layer, as Keras does.
"""
import io
import json
import warnings

import numpy as np

from tensorlet.keras.saving import saving_api, serialization_lib

__all__ = ["save_model", "load_model", "save_weights", "load_weights"]

# HDF5 object headers hold at most 64 KiB; Keras splits longer attributes in chunks.
_HEADER_LIMIT = 64512


def _save_attr(group, name, values):
  data = np.asarray([v.encode("utf8") if isinstance(v, str) else v for v in values])
  if data.size and data.nbytes > _HEADER_LIMIT:
    chunks = int(np.ceil(data.nbytes / _HEADER_LIMIT)) + 1
    for i, part in enumerate(np.array_split(data, chunks)):
      group.attrs[f"{name}{i}"] = part
  else:
    group.attrs[name] = data


def _load_attr(group, name):
  def decode(values):
    return [v.decode("utf8") if isinstance(v, bytes) else str(v) for v in values]
  if name in group.attrs:
    return decode(group.attrs[name])
  out, i = [], 0
  while f"{name}{i}" in group.attrs:
    out.extend(decode(group.attrs[f"{name}{i}"]))
    i += 1
  return out


def _text_attr(f, name):
  value = f.attrs.get(name)
  if value is None:
    return None
  return value.decode("utf8") if isinstance(value, bytes) else str(value)


def _weight_names(weights):
  names, seen = [], set()
  for w in weights:
    name = w.name if w.name.endswith(":0") or ":" in w.name else w.name + ":0"
    base, n = name, 0
    while name in seen:
      n += 1
      name = base.replace(":", f"_{n}:", 1)
    seen.add(name)
    names.append(name)
  return names


def _own_weights(model):
  held = {id(w) for layer in model.layers for w in layer.weights}
  return [w for w in model.weights if id(w) not in held]


def write_weights(model, group):
  layers = model.layers
  _save_attr(group, "layer_names", [layer.name for layer in layers])
  group.attrs["backend"] = "tensorflow".encode("utf8")
  group.attrs["keras_version"] = saving_api.KERAS_VERSION.encode("utf8")
  for layer in layers:
    _write_layer(group.create_group(layer.name), layer.weights)
  _write_layer(group.create_group("top_level_model_weights"), _own_weights(model))


def _write_layer(g, weights):
  names = _weight_names(weights)
  _save_attr(g, "weight_names", names)
  for name, w in zip(names, weights):
    g.create_dataset(name, data=np.asarray(w.numpy()))


def _saved_layers(group):
  """[(layer name, [weight arrays])] of the layers that have weights."""
  out = []
  for name in _load_attr(group, "layer_names"):
    g = group[name]
    names = _load_attr(g, "weight_names")
    if names:
      out.append((name, [np.asarray(g[n]) for n in names]))
  return out


def _check_shape(w, value, where):
  want = tuple(w.shape.as_list())
  if not w.shape.is_compatible_with(value.shape):
    raise ValueError(f"Shape mismatch in {where} for weight {w.name}. Weight expects shape "
                     f"{want}. Received saved weight with shape {tuple(value.shape)}")


def read_weights(model, group, by_name=False, skip_mismatch=False):
  """Loads a `save_weights` group into `model`; all checks come before any assignment."""
  if skip_mismatch and not by_name:
    raise ValueError("When calling model.load_weights, skip_mismatch can only be set to True "
                     "when by_name is True.")
  saved = _saved_layers(group)
  pairs = []
  if by_name:
    index = {}
    for layer in model.layers:
      index.setdefault(layer.name, []).append(layer)
    for name, values in saved:
      for layer in index.get(name, []):
        weights = layer.weights
        if len(weights) != len(values):
          msg = (f"Weight count mismatch for layer named {layer.name}. Layer expects "
                 f"{len(weights)} weight(s). Received {len(values)} saved weight(s)")
          if skip_mismatch:
            warnings.warn(f"Skipping loading of weights for layer #{layer.name}: {msg}",
                          stacklevel=3)
            continue
          raise ValueError(msg)
        for w, value in zip(weights, values):
          try:
            _check_shape(w, value, f"layer {layer.name}")
          except ValueError as e:
            if skip_mismatch:
              warnings.warn(f"Skipping loading weights for layer #{layer.name}: {e}",
                            stacklevel=3)
              continue
            raise
          pairs.append((w, value))
  else:
    layers = [layer for layer in model.layers if layer.weights]
    if len(layers) != len(saved):
      raise ValueError(f"Layer count mismatch when loading weights from file. Model expected "
                       f"{len(layers)} layers, found {len(saved)} saved layers.")
    for k, (layer, (name, values)) in enumerate(zip(layers, saved)):
      weights = layer.weights
      if len(weights) != len(values):
        raise ValueError(f"Weight count mismatch for layer #{k} (named {layer.name} in the "
                         f"current model, {name} in the save file). Layer expects "
                         f"{len(weights)} weight(s). Received {len(values)} saved weight(s)")
      for w, value in zip(weights, values):
        _check_shape(w, value, f"layer #{k} (named {layer.name})")
        pairs.append((w, value))
  if "top_level_model_weights" in group:
    g = group["top_level_model_weights"]
    values = [np.asarray(g[n]) for n in _load_attr(g, "weight_names")]
    own = _own_weights(model)
    if len(values) == len(own):
      for w, value in zip(own, values):
        _check_shape(w, value, "the model's own weights")
        pairs.append((w, value))
    elif not skip_mismatch:
      raise ValueError(f"Weight count mismatch for top-level weights when loading weights "
                       f"from file. Model expects {len(own)} top-level weight(s). Received "
                       f"{len(values)} saved top-level weight(s)")
  for w, value in pairs:
    w.assign(value.astype(w.dtype.as_numpy_dtype, copy=False))


# ---------------------------------------------------------------- files
def _write_file(path, write):
  h5py = saving_api.require_h5py()
  buf = io.BytesIO()
  with h5py.File(buf, "w") as f:
    write(f)
  from tensorlet.train import _format
  _format.atomic_write(path, buf.getvalue())


def _open(path):
  h5py = saving_api.require_h5py()
  import os
  if not os.path.exists(path):
    raise FileNotFoundError(f"[Errno 2] Unable to open file: no such file or directory: "
                            f"'{path}'")
  try:
    return h5py.File(path, "r")
  except OSError as e:
    raise OSError(f"Unable to open {path} as an HDF5 file: {e}") from None


def save_weights(model, path):
  _write_file(path, lambda f: write_weights(model, f))


def load_weights(model, path, by_name=False, skip_mismatch=False):
  with _open(path) as f:
    group = f
    if "layer_names" not in f.attrs and "layer_names0" not in f.attrs and "model_weights" in f:
      group = f["model_weights"]
    read_weights(model, group, by_name, skip_mismatch)


def _legacy(value):
  """Compile arguments as Keras 2 writes them in `training_config`."""
  if value is None or isinstance(value, (str, int, float, bool)):
    return value
  if isinstance(value, (list, tuple)):
    return [_legacy(v) for v in value]
  if isinstance(value, dict):
    return {k: _legacy(v) for k, v in value.items()}
  with serialization_lib.legacy_serialization():
    out = serialization_lib.serialize_keras_object(value)
  if isinstance(out, dict) and out.get("class_name") == "function":
    return out["config"]
  return out


def _training_config(model):
  args = model.__dict__.get("_tl_compile_args")
  if not getattr(model, "_is_compiled", False) or args is None:
    return None
  from tensorlet.keras import optimizers
  opt = optimizers.serialize(model.optimizer)
  return {"loss": _legacy(args.get("loss")), "metrics": _legacy(args.get("metrics")),
          "weighted_metrics": _legacy(args.get("weighted_metrics")),
          "loss_weights": _legacy(args.get("loss_weights")),
          "optimizer_config": {"class_name": opt["class_name"], "config": opt["config"]}}


def save_model(model, path, include_optimizer=True):
  from tensorlet.keras.engine.functional import Functional
  from tensorlet.keras.engine.sequential import Sequential
  if not isinstance(model, (Functional, Sequential)):
    raise NotImplementedError(
        "Saving the model to HDF5 format requires the model to be a Functional model or a "
        "Sequential model. It does not work for subclassed models, because such models are "
        "defined via the body of a Python method, which isn't safely serializable. Consider "
        "saving to the Tensorflow SavedModel format (by setting save_format=\"tf\") or using "
        "`save_weights`.")
  with serialization_lib.legacy_serialization():
    config = {"class_name": type(model).__name__, "config": model.get_config()}
  model_config = json.dumps(config, default=serialization_lib.json_default)
  training = _training_config(model) if include_optimizer else None
  opt = model.optimizer if training is not None else None

  def write(f):
    f.attrs["backend"] = "tensorflow".encode("utf8")
    f.attrs["keras_version"] = saving_api.KERAS_VERSION.encode("utf8")
    f.attrs["model_config"] = model_config.encode("utf8")
    write_weights(model, f.create_group("model_weights"))
    if training is not None:
      f.attrs["training_config"] = json.dumps(
          training, default=serialization_lib.json_default).encode("utf8")
      variables = list(opt.variables)
      if len(variables) > 1:
        g = f.create_group("optimizer_weights")
        names = _weight_names(variables)
        _save_attr(g, "weight_names", names)
        for name, v in zip(names, variables):
          g.create_dataset(name, data=np.asarray(v.numpy()))
  _write_file(path, write)


def _compile_args(training, model):
  args = {"optimizer": training.get("optimizer_config"), "loss": training.get("loss"),
          "metrics": training.get("metrics"),
          "weighted_metrics": training.get("weighted_metrics"),
          "loss_weights": training.get("loss_weights")}
  n_out = len(getattr(model, "outputs", None) or [None])
  for key in ("metrics", "weighted_metrics"):
    value = args[key]
    # Keras 2 writes the metrics of each output as a list of lists.
    if isinstance(value, list) and n_out == 1 and len(value) == 1 and \
        isinstance(value[0], list):
      args[key] = value[0]
  return args


def load_model(path, custom_objects=None, compile=True, safe_mode=True):  # noqa: A002
  from tensorlet.keras.engine.base_layer import Layer
  with _open(path) as f:
    text = _text_attr(f, "model_config")
    if text is None:
      raise ValueError(f"No model config found in the file at {path}.")
    config = json.loads(text)
    model = serialization_lib.deserialize_keras_object(config, custom_objects,
                                                       safe_mode=safe_mode)
    if not isinstance(model, Layer):
      raise ValueError(f"{path} does not describe a Keras model.")
    read_weights(model, f["model_weights"])
    training = _text_attr(f, "training_config")
    if compile and training is not None:
      args = _compile_args(json.loads(training), model)
      if saving_api.try_compile(model, args, custom_objects) and "optimizer_weights" in f:
        g = f["optimizer_weights"]
        values = [np.asarray(g[n]) for n in _load_attr(g, "weight_names")]
        _load_optimizer(model, values)
  return model


def _load_optimizer(model, values):
  opt = model.optimizer
  opt.build(model.trainable_variables)
  variables = list(opt.variables)
  if len(variables) != len(values) or any(
      tuple(v.shape.as_list()) != tuple(x.shape) for v, x in zip(variables, values)):
    warnings.warn("Error in loading the saved optimizer state. As a result, your model is "
                  "starting with a freshly initialized optimizer.", stacklevel=3)
    return
  for v, x in zip(variables, values):
    v.assign(x.astype(v.dtype.as_numpy_dtype, copy=False))
