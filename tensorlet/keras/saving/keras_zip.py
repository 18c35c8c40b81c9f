"""Keras' `.keras` zip (config.json, metadata.json, model.weights.h5) and its
weights layout, also written alone as `.weights.h5`.

The weights file mirrors the object tree as Keras walks it: every layer or
optimizer gets a group `<path>/vars` holding its own variables as datasets
"0", "1", ... (a layer's trainable ones first, in creation order; an
optimizer's `variables`). Children are the object's attributes in reverse
sorted name order (a model's `layers` and `optimizer` included); a layer held
directly is at `<path>/<attribute>`, one in a list or dict at
`<path>/<attribute>/<snake_case class name>[_<n>]`. An object reached twice is
written once, where it is first met.
"""
import datetime
import io
import json
import warnings
import zipfile

import numpy as np

from tensorlet.keras.saving import saving_api, serialization_lib

__all__ = ["save_model", "load_model", "save_weights", "load_weights",
           "load_weights_from_zip"]

_CONFIG, _METADATA, _WEIGHTS = "config.json", "metadata.json", "model.weights.h5"
# Attributes of tensorlet's Keras machinery that hold no saved state.
_SKIP = frozenset({"_inbound_nodes", "_outbound_nodes", "compiled_loss", "compiled_metrics",
                   "loss", "history", "input_spec", "inputs", "outputs", "activity_regularizer"})


def _snake(name):
  from tensorlet.keras import backend
  return backend.to_snake_case(name)


def _is_trackable(obj):
  from tensorlet.keras.engine.base_layer import Layer
  from tensorlet.keras.optimizers.optimizer import Optimizer
  return isinstance(obj, (Layer, Optimizer))


def _own_variables(obj):
  from tensorlet.keras.optimizers.optimizer import Optimizer
  if isinstance(obj, Optimizer):
    return list(obj.variables)
  own = obj.__dict__.get("_tl_weights", [])
  return [w for w in own if w.trainable] + [w for w in own if not w.trainable]


def _children(obj):
  from tensorlet.keras.engine.training import Model
  from tensorlet.keras.optimizers.optimizer import Optimizer
  if isinstance(obj, Optimizer):
    return []
  items = {k: v for k, v in obj.__dict__.items()
           if not k.startswith(("_tl_", "__")) and k not in _SKIP}
  if isinstance(obj, Model):
    items["layers"] = obj.layers
    items["optimizer"] = obj.optimizer
  return [(k, items[k]) for k in sorted(items, reverse=True)]


def _join(path, name):
  return f"{path}/{name}" if path else name


def _walk(obj, path, visit, visited):
  """Calls visit(obj, path) for `obj` and every trackable below it, as Keras' walk."""
  if id(obj) in visited:
    return
  visit(obj, path)
  visited.add(id(obj))
  for name, child in _children(obj):
    if _is_trackable(child):
      _walk(child, _join(path, name), visit, visited)
    elif isinstance(child, (list, tuple, dict, set)):
      _walk_container(child, _join(path, name), visit, visited)


def _walk_container(container, path, visit, visited):
  used = {}
  values = list(container.values()) if isinstance(container, dict) else list(container)
  for item in values:
    if not _is_trackable(item) or id(item) in visited:
      continue
    name = _snake(type(item).__name__)
    if name in used:
      used[name] += 1
      name = f"{name}_{used[name]}"
    else:
      used[name] = 0
    _walk(item, _join(path, name), visit, visited)


def _prepare_optimizer(model, optimizer=True):
  """Builds the optimizer's slots for the model's variables (so its state can load)."""
  opt = getattr(model, "optimizer", None)
  if optimizer and opt is not None and hasattr(opt, "build") and len(opt.variables) <= 1:
    opt.build(model.trainable_variables)


def write_weights(model, h5file, include_optimizer=True):
  def visit(obj, path):
    from tensorlet.keras.optimizers.optimizer import Optimizer
    group = h5file.require_group(_join(path, "vars"))
    if isinstance(obj, Optimizer) and not include_optimizer:
      return
    if hasattr(obj, "save_own_variables"):  # a layer that names its own state
      store = {}
      obj.save_own_variables(store)
      for key, value in store.items():
        group.create_dataset(key, data=np.asarray(value))
      return
    for i, v in enumerate(_own_variables(obj)):
      group.create_dataset(str(i), data=np.asarray(v.numpy()))
  _walk(model, "", visit, set())
  _write_metrics(model, h5file)


def _write_metrics(model, h5file):
  """The compiled metrics' state under the names Keras 2 gives its metric objects
  ("mean" for loss trackers, "mean_metric_wrapper" for metrics named by a string or a
  function, the class otherwise): a Keras model that has trained reads them back.
  tensorlet itself does not restore metric state (it never affects the model)."""
  from tensorlet import _nest as nest
  from tensorlet.keras.engine.training import Model
  if not isinstance(model, Model) or not getattr(model, "_is_compiled", False):
    return
  args = model.__dict__.get("_tl_compile_args") or {}
  given = {id(m) for m in nest.flatten([args.get("metrics"), args.get("weighted_metrics")])}
  trackers = {id(m) for m in (model.compiled_loss.metrics if model.compiled_loss else [])}
  used = {}
  for metric in model.metrics:
    if id(metric) in trackers:
      name = "mean"
    elif id(metric) in given:
      name = _snake(type(metric).__name__)
    else:
      name = "mean_metric_wrapper"
    if name in used:
      used[name] += 1
      name = f"{name}_{used[name]}"
    else:
      used[name] = 0
    group = h5file.require_group(f"metrics/{name}/vars")
    for i, v in enumerate(getattr(metric, "variables", [])):
      group.create_dataset(str(i), data=np.asarray(v.numpy()))


def read_weights(model, h5file, skip_mismatch=False, include_optimizer=True):
  """Assigns the file's values to the model's variables; every check runs before the
  first assignment, so a mismatch leaves the model as it was."""
  from tensorlet.keras.optimizers.optimizer import Optimizer
  pairs = []
  custom = []

  def visit(obj, path):
    own = _own_variables(obj)
    group = h5file.get(_join(path, "vars"))
    if hasattr(obj, "load_own_variables"):
      custom.append((obj, {} if group is None else {k: group[k][()] for k in group}))
      return
    values = [] if group is None else [group[str(i)][()] for i in range(len(group))
                                      if str(i) in group]
    if isinstance(obj, Optimizer):
      if not include_optimizer:
        return
      if len(values) != len(own):
        warnings.warn(f"Skipping variable loading for optimizer '{obj.name}', because it has "
                      f"{len(own)} variables whereas the saved optimizer has {len(values)} "
                      f"variables.", stacklevel=4)
        return
    elif len(values) != len(own):
      msg = (f"Layer '{obj.name}' expected {len(own)} variables, but received "
             f"{len(values)} variables during loading. Expected: {[v.name for v in own]}")
      if skip_mismatch:
        warnings.warn(f"Could not load weights in object {obj.name}. Skipping object. "
                      f"Exception encountered: {msg}", stacklevel=4)
        return
      raise ValueError(msg)
    mine = []
    for v, value in zip(own, values):
      want = tuple(v.shape.as_list())
      if not v.shape.is_compatible_with(np.shape(value)):
        msg = (f"Shape mismatch in layer '{getattr(obj, 'name', path)}' for weight {v.name}: "
               f"the model has shape {want}, the file {tuple(np.shape(value))}.")
        if skip_mismatch:
          warnings.warn(f"Could not load weights in object {getattr(obj, 'name', path)}. "
                        f"Skipping object. Exception encountered: {msg}", stacklevel=4)
          return
        raise ValueError(msg)
      mine.append((v, value))
    pairs.extend(mine)
  _walk(model, "", visit, set())
  for v, value in pairs:
    v.assign(np.asarray(value).astype(v.dtype.as_numpy_dtype, copy=False))
  for obj, store in custom:
    obj.load_own_variables(store)


# ------------------------------------------------------------------ assets
def _write_assets(model, z):
  """Files a layer writes with `save_assets(dir)` (vocabularies), stored in the zip under
  assets/<the layer's path>/, as Keras does."""
  import os
  import tempfile

  def visit(obj, path):
    if not hasattr(obj, "save_assets"):
      return
    with tempfile.TemporaryDirectory() as d:
      obj.save_assets(d)
      for name in sorted(os.listdir(d)):
        with open(os.path.join(d, name), "rb") as f:
          z.writestr(f"assets/{_join(path, name)}", f.read())
  _walk(model, "", visit, set())


def _read_assets(model, assets):
  import os
  import tempfile

  def visit(obj, path):
    if not hasattr(obj, "load_assets"):
      return
    prefix = f"assets/{path}/" if path else "assets/"
    files = {n[len(prefix):]: data for n, data in assets.items()
             if n.startswith(prefix) and "/" not in n[len(prefix):]}
    if not files:
      return
    with tempfile.TemporaryDirectory() as d:
      for name, data in files.items():
        with open(os.path.join(d, name), "wb") as f:
          f.write(data)
      obj.load_assets(d)
  _walk(model, "", visit, set())


# ------------------------------------------------------------------- files
def _h5_bytes(write):
  h5py = saving_api.require_h5py()
  buf = io.BytesIO()
  with h5py.File(buf, "w") as f:
    write(f)
  return buf.getvalue()


def _h5_read(data_or_path, read):
  h5py = saving_api.require_h5py()
  src = io.BytesIO(data_or_path) if isinstance(data_or_path, bytes) else data_or_path
  try:
    f = h5py.File(src, "r")
  except OSError as e:
    raise ValueError(f"Not a readable HDF5 weights file: {e}") from None
  with f:
    return read(f)


def _atomic(path, payload):
  from tensorlet.train import _format
  _format.atomic_write(path, payload)


def save_model(model, path, include_optimizer=True):
  saving_api.require_h5py()
  config = serialization_lib.serialize_keras_object(model)
  compile_config = model.get_compile_config() if include_optimizer else None
  if compile_config is not None:
    config["compile_config"] = compile_config
  metadata = {"keras_version": saving_api.KERAS_VERSION,
              "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")}
  config_json = json.dumps(config, default=serialization_lib.json_default)
  weights = _h5_bytes(lambda f: write_weights(model, f, include_optimizer))
  buf = io.BytesIO()
  with zipfile.ZipFile(buf, "w") as z:
    z.writestr(_METADATA, json.dumps(metadata))
    z.writestr(_CONFIG, config_json)
    z.writestr(_WEIGHTS, weights)
    _write_assets(model, z)
  _atomic(path, buf.getvalue())


def _read_zip(path):
  try:
    with zipfile.ZipFile(path, "r") as z:
      names = set(z.namelist())
      if _CONFIG not in names:
        raise ValueError(f"{path} is not a `.keras` model file: it has no {_CONFIG}.")
      config = json.loads(z.read(_CONFIG).decode("utf-8"))
      weights = z.read(_WEIGHTS) if _WEIGHTS in names else None
      assets = {n: z.read(n) for n in names if n.startswith("assets/") and not n.endswith("/")}
  except zipfile.BadZipFile as e:
    raise ValueError(f"{path} is not a valid `.keras` zip file: {e}") from None
  return config, weights, assets


def load_model(path, custom_objects=None, compile=True, safe_mode=True):  # noqa: A002
  from tensorlet.keras.engine.base_layer import Layer
  saving_api.require_h5py()
  config, weights, assets = _read_zip(path)
  if not isinstance(config, dict):
    raise ValueError(f"{path}: config.json does not describe a model.")
  compile_config = config.pop("compile_config", None)
  model = serialization_lib.deserialize_keras_object(config, custom_objects,
                                                     safe_mode=safe_mode)
  if not isinstance(model, Layer):
    raise ValueError(f"{path} does not hold a Keras model (config.json describes "
                     f"{type(model).__name__}).")
  compiled = False
  if compile and compile_config:
    compiled = saving_api.try_compile(model, compile_config, custom_objects)
  if weights is not None:
    if compiled:
      _prepare_optimizer(model)
    _h5_read(weights, lambda f: read_weights(model, f, include_optimizer=compiled))
  _read_assets(model, assets)
  return model


def save_weights(model, path):
  _atomic(path, _h5_bytes(lambda f: write_weights(model, f)))


def load_weights(model, path, skip_mismatch=False):
  if not model.built:
    raise ValueError(f"Weights can only be loaded into a built model; build "
                     f"{model.name} (call it on data or `build()`) first.")
  _prepare_optimizer(model)
  _h5_read(path, lambda f: read_weights(model, f, skip_mismatch))


def load_weights_from_zip(model, path, skip_mismatch=False):
  _, weights, _ = _read_zip(path)
  if weights is None:
    raise ValueError(f"{path} holds no {_WEIGHTS}.")
  _prepare_optimizer(model)
  _h5_read(weights, lambda f: read_weights(model, f, skip_mismatch))
