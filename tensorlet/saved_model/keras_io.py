"""Keras models as SavedModels, for inference: `save_model` traces the model's call
(training=False) for its input signature and saves it as the root's `__call__` and
the 'serving_default' signature; `load_model` returns a LoadedModel with
`__call__`, `predict` and the restored weights. Keras' `Model.save` and
`tf.keras.models.load_model` call these."""
import numpy as np

from tensorlet import _nest as nest
from tensorlet.composite_tensor import TypeSpec
from tensorlet.saved_model.restored import RestoredObject

__all__ = ["save_model", "load_model", "LoadedModel", "serving_function"]


def _input_signature(model):
  from tensorlet.tensor_spec import TensorSpec
  inputs = getattr(model, "inputs", None)
  if inputs:
    # a ragged or sparse Input's spec is its composite spec
    specs = [getattr(t, "type_spec", None) or TensorSpec(t.shape, t.dtype) for t in inputs]
    return [specs[0] if len(specs) == 1 else specs]
  layers = [model] + list(getattr(model, "layers", []))[:1]
  for layer in layers:
    shape = getattr(layer, "_batch_input_shape", None)
    if shape is not None:
      return [TensorSpec([None] + list(shape)[1:], getattr(layer, "dtype", None) or "float32")]
  raise ValueError(f"Cannot tell the input signature of {model.name}: it has no Input and no "
                   f"input_shape. Pass input_signature=[tf.TensorSpec([None, ...], tf.float32)]"
                   f" to save it.")


def serving_function(model, input_signature=None):
  """The tf.function that serves `model` (inference mode) for its input signature."""
  from tensorlet.polymorphic_function.polymorphic import function
  if not getattr(model, "built", True):
    raise ValueError(f"The model {model.name} has not been built yet: call it on data or "
                     f"call build() before saving it.")
  sig = list(input_signature) if input_signature is not None else _input_signature(model)
  return function(lambda inputs: model(inputs, training=False), input_signature=sig)


def _keras_config(model):
  """The model's Keras config and compile config as JSON, or None for a model whose
  config cannot be written (a subclassed model without get_config, say)."""
  import json
  from tensorlet.keras.saving import serialization_lib
  try:
    config = serialization_lib.serialize_keras_object(model)
    compile_config = model.get_compile_config()
    return json.dumps({"config": config, "compile_config": compile_config},
                      default=serialization_lib.json_default)
  except (TypeError, ValueError, NotImplementedError):
    return None


def save_model(model, filepath, input_signature=None, signatures=None):
  """Saves a Keras model: weights, serving graph and signature, and its Keras config
  so `load_model` can rebuild the full model. `signatures` (tf.saved_model.save's
  argument) replaces the default 'serving_default'; a list of TensorSpecs there is
  taken as the input signature."""
  from tensorlet.saved_model.save import save
  if isinstance(signatures, (list, tuple)):
    input_signature, signatures = signatures, None
  fn = serving_function(model, input_signature)
  serving = fn
  spec = fn.input_signature[0] if len(fn.input_signature) == 1 else None
  if isinstance(spec, (list, tuple)):
    # A signature takes tensors only: several inputs become positional arguments.
    import inspect
    from tensorlet.polymorphic_function.polymorphic import function

    def serve(*inputs):
      return model(list(inputs), training=False)
    names = [n if n.isidentifier() else f"input_{i}"
             for i, n in enumerate(getattr(model, "input_names", None) or
                                   [f"input_{i}" for i in range(len(spec))])]
    serve.__signature__ = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])
    serving = function(serve, input_signature=list(spec))
  if any(isinstance(sp, TypeSpec) for sp in nest.flatten(list(fn.input_signature))):
    serving = _component_serving(model, fn.input_signature)
  keras = {"class": type(model).__name__, "name": model.name}
  config = _keras_config(model)
  if config is not None:
    keras["model"] = config
  save(model, filepath, signatures=signatures or {"serving_default": serving},
       root_functions={"__call__": fn}, extra={"keras": keras})


def _component_serving(model, input_signature):
  """A signature takes tensors only: as TF's, a ragged or sparse input is served as its
  component tensors (args_0, args_0_1, ...), rebuilt before the model runs."""
  import inspect
  from tensorlet.polymorphic_function.polymorphic import function
  from tensorlet.tensor_spec import TensorSpec
  specs = input_signature[0] if len(input_signature) == 1 else list(input_signature)
  single = not isinstance(specs, (list, tuple))
  specs = [specs] if single else list(specs)
  names, flat, counts = [], [], []
  for i, sp in enumerate(specs):
    parts = sp._component_specs if isinstance(sp, TypeSpec) else [sp]
    counts.append(len(parts))
    for j, c in enumerate(parts):
      names.append(f"args_{i}" if j == 0 else f"args_{i}_{j}")
      flat.append(TensorSpec(c.shape, c.dtype, name=names[-1]))

  def serve(*tensors):
    inputs, pos = [], 0
    for sp, k in zip(specs, counts):
      part = list(tensors[pos:pos + k])
      inputs.append(sp._from_components(part) if isinstance(sp, TypeSpec) else part[0])
      pos += k
    return model(inputs[0] if single else inputs, training=False)
  serve.__signature__ = inspect.Signature(
      [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])
  return function(serve, input_signature=flat)


class LoadedModel(RestoredObject):
  """A Keras model loaded for inference."""

  def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
    """Outputs for `x` as NumPy arrays, computed in batches of `batch_size` (32)."""
    x = np.asarray(x)
    n = batch_size or 32
    parts = [self(x[i:i + n]) for i in range(0, len(x), n)]
    flat = [nest.flatten(p) for p in parts]
    out = [np.concatenate([f[k].numpy() for f in flat]) for k in range(len(flat[0]))]
    return nest.pack_sequence_as(parts[0], out)


def load_model(filepath, custom_objects=None, compile=True, options=None,  # noqa: A002
               safe_mode=True):
  """Loads a model written by `save_model`: the full Keras model (same class, weights,
  compiled with its optimizer state) when its config names classes this program has
  (built-in or registered/custom objects); otherwise a LoadedModel for inference."""
  from tensorlet.saved_model.load import load, read_manifest
  manifest = read_manifest(str(filepath))
  if "keras" not in manifest:
    raise ValueError(f"{filepath} holds a SavedModel that was not saved from a Keras model; "
                     f"load it with tf.saved_model.load.")
  model = _revive(filepath, manifest["keras"].get("model"), custom_objects, compile,
                  safe_mode)
  if model is not None:
    return model
  return load(filepath, root_class=LoadedModel)


def _revive(filepath, text, custom_objects, compile, safe_mode):  # noqa: A002
  import json
  import os
  from tensorlet.keras.saving import saving_api, serialization_lib
  from tensorlet.saved_model import layout
  from tensorlet.train.checkpoint import Checkpoint
  if not text:
    return None
  data = json.loads(text)
  try:
    model = serialization_lib.deserialize_keras_object(data["config"], custom_objects,
                                                       safe_mode=safe_mode)
  except (ValueError, TypeError, NotImplementedError) as e:
    if "Lambda" in str(e) and "safe_mode" in str(e):
      raise
    return None
  if compile and data.get("compile_config"):
    saving_api.try_compile(model, data["compile_config"], custom_objects)
    opt = getattr(model, "optimizer", None)
    if opt is not None:
      opt.build(model.trainable_variables)
  Checkpoint(root=model).read(layout.variables_prefix(os.fsdecode(filepath))).expect_partial()
  return model
