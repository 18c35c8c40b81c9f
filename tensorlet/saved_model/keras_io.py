"""Keras models as SavedModels, for inference: `save_model` traces the model's call
(training=False) for its input signature and saves it as the root's `__call__` and
the 'serving_default' signature; `load_model` returns a LoadedModel with
`__call__`, `predict` and the restored weights. Keras' `Model.save` and
`tf.keras.models.load_model` call these."""
import numpy as np

from tensorlet import _nest as nest
from tensorlet.saved_model.restored import RestoredObject

__all__ = ["save_model", "load_model", "LoadedModel", "serving_function"]


def _input_signature(model):
  from tensorlet.tensor_spec import TensorSpec
  inputs = getattr(model, "inputs", None)
  if inputs:
    specs = [TensorSpec(t.shape, t.dtype) for t in inputs]
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


def save_model(model, filepath, input_signature=None):
  """Saves a Keras model for inference (weights, serving graph, signature)."""
  from tensorlet.saved_model.save import save
  fn = serving_function(model, input_signature)
  save(model, filepath, signatures={"serving_default": fn}, root_functions={"__call__": fn},
       extra={"keras": {"class": type(model).__name__, "name": model.name}})


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


def load_model(filepath, custom_objects=None, compile=True, options=None):  # noqa: A002
  """Loads a model written by `save_model` (for inference; it cannot be trained with fit)."""
  from tensorlet.saved_model.load import load, read_manifest
  manifest = read_manifest(str(filepath))
  if "keras" not in manifest:
    raise ValueError(f"{filepath} holds a SavedModel that was not saved from a Keras model; "
                     f"load it with tf.saved_model.load.")
  return load(filepath, root_class=LoadedModel)
