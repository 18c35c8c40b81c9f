"""Functional models: `tf.keras.Model(inputs, outputs)` over a graph of layer calls."""
from tensorlet import _nest as nest
from tensorlet.keras import backend
from tensorlet.keras.engine.input_layer import InputLayer
from tensorlet.keras.engine.keras_tensor import KerasTensor
from tensorlet.keras.engine.training import Model
from tensorlet.tensor import Tensor

__all__ = ["Functional"]


def _nodes_between(inputs, outputs):
  """The nodes that compute `outputs` from `inputs`, in an order that runs them."""
  input_ids = {id(t) for t in inputs}
  order, done, active = [], set(), set()

  def visit(t):
    if id(t) in input_ids:
      return
    node = t.node
    if id(node) in done:
      return
    if isinstance(node.layer, InputLayer):
      raise ValueError(f"Graph disconnected: cannot obtain value for tensor {t} at layer "
                       f"\"{node.layer.name}\". The following previous layers were accessed "
                       f"without issue: {[n.layer.name for n in order]}")
    if id(node) in active:
      raise ValueError("The layer graph of the model has a cycle.")
    active.add(id(node))
    for parent in node.keras_inputs:
      visit(parent)
    active.discard(id(node))
    done.add(id(node))
    order.append(node)
  for t in outputs:
    visit(t)
  return order


def _conform(value, ref):
  """`value` fitted to its Input `ref` as Keras 2 does: a trailing dimension of 1 added or
  dropped when the ranks differ by one that way; numbers cast to the Input's dtype."""
  if not isinstance(value, Tensor):
    return value
  rank, want = value.shape.rank, ref.shape.rank
  if rank is not None and want is not None:
    from tensorlet.ops import array_ops
    if rank == want + 1 and value.shape[-1] == 1:
      value = array_ops.squeeze(value, axis=[-1])
    elif rank == want - 1 and ref.shape[-1] == 1:
      value = array_ops.expand_dims(value, -1)
  vd, dtype = value.dtype, ref.dtype
  if vd != dtype and (vd.is_floating or vd.is_integer) and \
      (dtype.is_floating or dtype.is_integer):
    from tensorlet.ops import math_ops
    return math_ops.cast(value, dtype)
  return value


def _layers_by_depth(inputs, outputs):
  """The model's layers in Keras' order (`model.layers`, and so the order of weights
  in saved files): deepest first (inputs), ties by first visit of a depth-first walk
  from the outputs."""
  index, order, done = {}, [], set()

  def visit(t):
    layer = t._keras_history[0]
    node = t.node
    if id(node) in done:
      return
    index.setdefault(id(layer), (len(index), layer))
    if not isinstance(layer, InputLayer):
      for parent in node.keras_inputs:
        visit(parent)
    done.add(id(node))
    order.append(node)
  for t in outputs:
    visit(t)
  node_depth, layer_depth = {}, {}
  for node in reversed(order):
    depth = max(node_depth.setdefault(id(node), 0), layer_depth.get(id(node.layer), 0))
    layer_depth[id(node.layer)] = depth
    node_depth[id(node)] = depth
    for parent in node.keras_inputs:
      key = id(parent.node)
      node_depth[key] = max(depth + 1, node_depth.get(key, 0))
  for t in inputs:
    layer = t._keras_history[0]
    if id(layer) not in layer_depth:
      layer_depth[id(layer)] = 0
      index[id(layer)] = (-1, layer)
  ranked = sorted(index.values(), key=lambda e: (-layer_depth[id(e[1])], e[0]))
  return [layer for _, layer in ranked]


class Functional(Model):
  """A model defined by KerasTensors: `Model(inputs=..., outputs=...)`."""

  def __init__(self, inputs, outputs, name=None, trainable=True, **kwargs):
    if name is None:
      name = backend.unique_object_name("model")
    super().__init__(name=name, trainable=trainable, **kwargs)
    # As Keras 2: inputs take the dtypes of the model's Inputs, not the model's dtype.
    self._tl_autocast = False
    self._tl_init_graph(inputs, outputs)

  def _tl_init_graph(self, inputs, outputs):
    flat_in, flat_out = nest.flatten(inputs), nest.flatten(outputs)
    for t in flat_in + flat_out:
      if not isinstance(t, KerasTensor):
        raise ValueError(f"Found unexpected instance while processing input tensors for "
                         f"keras functional model. Expecting KerasTensor, got {t!r}.")
    self._tl_in_struct = inputs[0] if isinstance(inputs, list) and len(inputs) == 1 and \
        not isinstance(outputs, list) else inputs
    self._tl_out_struct = outputs
    self._tl_inputs = flat_in
    self._tl_outputs = flat_out
    self._tl_nodes = _nodes_between(flat_in, flat_out)
    self._tl_layers = _layers_by_depth(flat_in, flat_out)
    self.inputs = list(flat_in)
    self.outputs = list(flat_out)
    self.output_names = [t._keras_history[0].name for t in flat_out]
    self.input_names = [t._keras_history[0].name for t in flat_in]
    self.built = True

  def _tl_sublayers(self):
    return list(self._tl_layers)

  @property
  def layers(self):
    return list(self._tl_layers)

  def get_layer(self, name=None, index=None):
    """A layer by name or by index in `layers`."""
    if index is not None:
      if len(self.layers) <= index:
        raise ValueError(f"Was asked to retrieve layer at index {index} but model only has "
                         f"{len(self.layers)} layers.")
      return self.layers[index]
    for layer in self.layers:
      if layer.name == name:
        return layer
    raise ValueError(f"No such layer: {name}. Existing layers are: "
                     f"{[layer.name for layer in self.layers]}.")

  def _tl_checkpoint_children(self):
    pairs = [(f"layer-{i}", layer) for i, layer in enumerate(self.layers)]
    if self.optimizer is not None:
      pairs.append(("optimizer", self.optimizer))
    return pairs

  @property
  def output_shape(self):
    shapes = [tuple(t.shape.as_list()) for t in self._tl_outputs]
    return shapes[0] if len(shapes) == 1 else shapes

  def call(self, inputs, training=None, mask=None):
    if isinstance(inputs, dict) and not isinstance(self._tl_in_struct, dict) and \
        all(n in inputs for n in self.input_names):
      # As Keras 2: a dict feeds a model built on a list of Inputs by the Inputs' names.
      inputs = [inputs[n] for n in self.input_names]
    flat = nest.flatten(inputs)
    if len(flat) != len(self._tl_inputs):
      raise ValueError(f"Layer \"{self.name}\" expects {len(self._tl_inputs)} input(s), but "
                       f"it received {len(flat)} input tensors.")
    values = {id(t): _conform(v, t) for t, v in zip(self._tl_inputs, flat)}
    for node in self._tl_nodes:
      pick = lambda v: values[id(v)] if isinstance(v, KerasTensor) else v  # noqa: E731
      args = nest.map_structure(pick, node.args)
      kwargs = nest.map_structure(pick, node.kwargs)
      out = node.layer(*args, **kwargs)
      for kt, value in zip(nest.flatten(node.outputs), nest.flatten(out)):
        values[id(kt)] = value
    return nest.pack_sequence_as(self._tl_out_struct,
                                 [values[id(t)] for t in self._tl_outputs])

  def get_config(self):
    from tensorlet.keras.saving import model_config
    return model_config.functional_config(self)
