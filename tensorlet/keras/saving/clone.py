"""tf.keras.models.clone_model: the same architecture with new layers."""
from tensorlet import _nest as nest

__all__ = ["clone_model"]


def _default_clone(layer):
  return type(layer).from_config(layer.get_config())


def clone_model(model, input_tensors=None, clone_function=None):
  from tensorlet.keras.engine.functional import Functional
  from tensorlet.keras.engine.input_layer import InputLayer
  from tensorlet.keras.engine.sequential import Sequential
  from tensorlet.keras.engine.training import Model
  from tensorlet.keras.saving import model_config
  if not isinstance(model, Model):
    raise ValueError(f"Expected `model` argument to be a `Model` instance, got {model!r}")
  clone = clone_function or _default_clone
  if isinstance(model, Sequential):
    layers = [clone(layer) for layer in model.layers]
    new = Sequential(name=model.name)
    if input_tensors is not None:
      flat = nest.flatten(input_tensors)
      if len(flat) != 1:
        raise ValueError(f"To clone a `Sequential` model, we expect at most one tensor as "
                         f"part of `input_tensors`. Received: input_tensors={input_tensors}")
      new.add(flat[0])
    elif model._tl_input is not None:
      old = model._tl_input._keras_history[0]
      new.add(InputLayer.from_config(old.get_config()))
    for layer in layers:
      new.add(layer)
    return new
  if isinstance(model, Functional):
    by_name = {layer.name: layer for layer in model.layers}
    given = nest.flatten(input_tensors) if input_tensors is not None else None
    names = [t._keras_history[0].name for t in model._tl_inputs]

    def make(layer_data, custom_objects):
      old = by_name[layer_data["name"]]
      if isinstance(old, InputLayer):
        if given is not None:
          return given[names.index(old.name)]._keras_history[0]
        return InputLayer.from_config(old.get_config())
      return clone(old)
    return model_config.functional_from_config(type(model), model.get_config(),
                                               make_layer=make)
  if clone_function is not None or input_tensors is not None:
    raise ValueError(f"Arguments `clone_function` and `input_tensors` are only supported for "
                     f"Sequential models or functional models. Received model of type "
                     f"'{type(model).__name__}', with clone_function={clone_function} and "
                     f"input_tensors={input_tensors}")
  return type(model).from_config(model.get_config())
