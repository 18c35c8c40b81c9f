"""Configs of Sequential and functional models as Keras 2 writes them, and the
models they describe.

A functional config lists every layer with its `inbound_nodes`: one entry per
call of the layer inside the model, each the call's first argument with every
KerasTensor written `[layer_name, node_index, tensor_index, kwargs]` (node
indices count only the calls that belong to this model). Rebuilding calls each
layer on the outputs of the nodes it names, deferring a call whose inputs are
not made yet, so configs listing layers in any order load.
"""
import inspect
import json

from tensorlet import _nest as nest
from tensorlet.keras.saving import serialization_lib

__all__ = ["sequential_config", "sequential_from_config", "functional_config",
           "functional_from_config", "model_from_config"]


def _layer_entry(layer):
  return serialization_lib.serialize_keras_object(layer)


# ---------------------------------------------------------------- Sequential
def sequential_config(model):
  layers = []
  if model._tl_input is not None:
    layers.append(_layer_entry(model._tl_input._keras_history[0]))
  layers.extend(_layer_entry(layer) for layer in model._tl_layers)
  config = {"name": model.name, "layers": layers}
  shape = model.__dict__.get("_tl_build_input_shape")
  if model._tl_input is None and shape is not None:
    config["build_input_shape"] = serialization_lib._shape_data(shape)
  return config


def sequential_from_config(cls, config, custom_objects=None):
  if "name" in config and "layers" not in config:
    raise ValueError(f"Invalid Sequential config (no 'layers'): {config!r}"[:500])
  layer_configs = config["layers"] if isinstance(config, dict) else config
  model = cls(name=config.get("name") if isinstance(config, dict) else None)
  for layer_config in layer_configs:
    layer = serialization_lib._deserialize(layer_config, custom_objects)
    model.add(layer)
  shape = config.get("build_input_shape") if isinstance(config, dict) else None
  if shape is not None and model._tl_input is None:
    model.build(shape)
  return model


# ---------------------------------------------------------------- functional
def _network_nodes(model):
  nodes = {id(n) for n in model._tl_nodes}
  for t in model._tl_inputs:
    nodes.add(id(t.node))
  return nodes


def _skips_first_node(layer):
  """Whether Keras counts this layer's calls from 1: a nested model with its own inputs
  has a node 0 of its own (its inner graph) in Keras, which tensorlet does not record."""
  from tensorlet.keras.engine.functional import Functional
  from tensorlet.keras.engine.sequential import Sequential
  if isinstance(layer, Functional):
    return True
  return isinstance(layer, Sequential) and layer._tl_input is not None


def _node_index_map(model, in_model):
  """(id(layer), index in layer._inbound_nodes) -> index among the model's nodes, as
  Keras numbers them."""
  out = {}
  for layer in model.layers:
    k = 1 if _skips_first_node(layer) else 0
    for i, node in enumerate(layer._inbound_nodes):
      if id(node) in in_model:
        out[(id(layer), i)] = k
        k += 1
  return out


def _tensor_entry(kt, index_map):
  layer, node_index, tensor_index = kt._keras_history
  return [layer.name, index_map.get((id(layer), node_index), 0), tensor_index]


def _node_data(node, index_map):
  from tensorlet.keras.engine.keras_tensor import KerasTensor
  args, kwargs = node.args, dict(node.kwargs)
  if args:
    first, rest = args[0], args[1:]
  else:
    first = kwargs.pop("inputs", None)
    rest = ()
  if rest:
    try:
      names = [p for p in inspect.signature(node.layer.call).parameters][1:]
    except (TypeError, ValueError):
      names = []
    kwargs.update(zip(names, rest))

  def ser(v):
    return _tensor_entry(v, index_map) if isinstance(v, KerasTensor) else v
  kwargs = nest.map_structure(ser, kwargs)
  try:
    json.dumps(kwargs, default=serialization_lib.json_default)
  except TypeError:
    kwargs = {}

  def entry(v):
    if isinstance(v, KerasTensor):
      return _tensor_entry(v, index_map) + [kwargs]
    return ["_CONSTANT_VALUE", -1, v, kwargs]
  if isinstance(first, (list, tuple)):
    return [_map_struct(entry, v) for v in first]
  if isinstance(first, dict):
    return {k: _map_struct(entry, v) for k, v in first.items()}
  return [entry(first)]


def _map_struct(fn, value):
  if isinstance(value, (list, tuple)):
    return [_map_struct(fn, v) for v in value]
  if isinstance(value, dict):
    return {k: _map_struct(fn, v) for k, v in value.items()}
  return fn(value)


def functional_config(model):
  from tensorlet.keras.engine.input_layer import InputLayer
  in_model = _network_nodes(model)
  index_map = _node_index_map(model, in_model)
  layer_configs = []
  for layer in model.layers:
    entry = _layer_entry(layer)
    entry["name"] = layer.name
    nodes = []
    if not isinstance(layer, InputLayer):
      for node in layer._inbound_nodes:
        if id(node) in in_model:
          nodes.append(_node_data(node, index_map))
    entry["inbound_nodes"] = nodes
    layer_configs.append(entry)

  def coords(structure, flat):
    entries = [_tensor_entry(t, index_map) for t in flat]
    if not nest.is_nested(structure):
      return entries
    packed = nest.pack_sequence_as(structure, list(range(len(entries))))
    return _map_struct(lambda i: entries[i], packed)
  return {"name": model.name, "trainable": model.trainable, "layers": layer_configs,
          "input_layers": coords(model._tl_in_struct, model._tl_inputs),
          "output_layers": coords(model._tl_out_struct, model._tl_outputs)}


def _is_entry(x):
  return isinstance(x, (list, tuple)) and 3 <= len(x) <= 4 and isinstance(x[0], str) and \
      isinstance(x[1], int)


def _map_entries(fn, data):
  if _is_entry(data):
    return fn(data)
  if isinstance(data, (list, tuple)):
    return [_map_entries(fn, v) for v in data]
  if isinstance(data, dict):
    return {k: _map_entries(fn, v) for k, v in data.items()}
  return data


def _flat_entries(data):
  out = []
  _map_entries(out.append, data)
  return out


class _Missing(Exception):
  pass


def functional_from_config(cls, config, custom_objects=None, make_layer=None):
  """The model a functional config describes (new layers, weights initialized);
  `make_layer(layer_data, custom_objects)` replaces deserialization (clone_model)."""
  from tensorlet.keras.engine.input_layer import InputLayer
  for key in ("layers", "input_layers", "output_layers"):
    if key not in config:
      raise ValueError(f"Invalid functional model config: missing '{key}'.")
  created = {}
  outputs = {}   # layer name -> [outputs of its node 0, node 1, ...]
  pending = []   # [layer, [node data...]] in config order
  for layer_data in config["layers"]:
    if make_layer is not None:
      layer = make_layer(layer_data, custom_objects)
    else:
      layer = serialization_lib._deserialize(
          {k: v for k, v in layer_data.items() if k not in ("inbound_nodes", "name")},
          custom_objects)
    name = layer_data.get("name", layer.name)
    created[name] = layer
    outputs[name] = []
    if isinstance(layer, InputLayer):
      outputs[name].append(layer._inbound_nodes[0].outputs)
    else:
      if _skips_first_node(layer):
        outputs[name].append(None)  # Keras' node 0 of a nested model: its inner graph
      nodes = list(layer_data.get("inbound_nodes") or [])
      if nodes:
        pending.append([name, layer, nodes])

  def tensor(entry):
    name, node_index, tensor_index = entry[0], entry[1], entry[2]
    if name not in outputs:
      raise ValueError(f"The functional config names layer '{name}', which it does not "
                       f"define.")
    made = outputs[name]
    if node_index >= len(made):
      raise _Missing()
    if made[node_index] is None:
      raise ValueError(f"The functional config names node {node_index} of model '{name}', "
                       f"its inner graph, as an input.")
    return nest.flatten(made[node_index])[tensor_index]

  def kw_tensors(value):
    if isinstance(value, list) and len(value) == 3 and isinstance(value[0], str) and \
        value[0] in outputs:
      return tensor(value)
    if isinstance(value, list):
      return [kw_tensors(v) for v in value]
    if isinstance(value, dict):
      return {k: kw_tensors(v) for k, v in value.items()}
    return value

  def call(layer, node_data):
    kwargs = {}

    def arg(entry):
      nonlocal kwargs
      if len(entry) == 4 and isinstance(entry[3], dict) and entry[3]:
        kwargs = kw_tensors(entry[3])
      if entry[0] == "_CONSTANT_VALUE":
        return entry[2]
      return tensor(entry)
    inputs = _map_entries(arg, node_data)
    if isinstance(inputs, list) and len(inputs) == 1 and not isinstance(inputs[0],
                                                                         (list, dict)):
      inputs = inputs[0]
    return layer(inputs, **kwargs)

  while pending:
    progress = False
    for item in pending:
      name, layer, nodes = item
      while nodes:
        try:
          out = call(layer, nodes[0])
        except _Missing:
          break
        outputs[name].append(out)
        nodes.pop(0)
        progress = True
    pending = [item for item in pending if item[2]]
    if pending and not progress:
      raise ValueError(f"The functional config cannot be rebuilt: the inputs of layer(s) "
                       f"{[p[0] for p in pending]} are never computed.")

  def struct(data):
    flat = _flat_entries(data)
    tensors = [tensor(e) for e in flat]
    if len(tensors) == 1 and isinstance(data, list):
      return tensors[0]
    counter = iter(tensors)
    return _map_entries(lambda e: next(counter), data)
  inputs = struct(config["input_layers"])
  outs = struct(config["output_layers"])
  from tensorlet.keras.engine.functional import Functional
  target = cls if isinstance(cls, type) and issubclass(cls, Functional) else Functional
  try:
    model = target(inputs=inputs, outputs=outs, name=config.get("name"))
  except TypeError:
    model = Functional(inputs=inputs, outputs=outs, name=config.get("name"))
  if config.get("trainable") is False:
    model.trainable = False
  return model


def model_from_config(cls, config, custom_objects=None):
  """Model.from_config: a functional config rebuilds the graph; other configs are
  the constructor arguments of a subclassed model."""
  if isinstance(config, dict) and "layers" in config and "input_layers" in config:
    return functional_from_config(cls, config, custom_objects)
  try:
    return cls(**config)
  except TypeError as e:
    raise TypeError(f"Unable to revive model from config. When overriding the `get_config()` "
                    f"method, make sure that the returned config contains all items used as "
                    f"arguments in the  constructor to {cls}, which is the default behavior. "
                    f"You can override this default behavior by defining a `from_config(cls, "
                    f"config)` class method to specify how to create an instance of "
                    f"{cls.__name__} from its config.\n\nReceived config={config}\n\nError "
                    f"encountered during deserialization: {e}") from None
