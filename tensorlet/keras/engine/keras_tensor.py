"""KerasTensor: the symbolic value flowing between layers of a functional model.

Calling a layer on KerasTensors runs its `call` once on placeholders of a
scratch graph (building the layer on the way), which gives the output shapes
and dtypes, and records a `Node` (layer, arguments, outputs) that functional
models replay on real tensors.
"""
from tensorlet import _nest as nest
from tensorlet.context import ctx
from tensorlet.graph.graph import FuncGraph
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor_spec import TensorSpec

__all__ = ["KerasTensor", "Node", "any_keras_tensor", "symbolic_call", "trace_shapes",
           "MULTIPLE"]

# A layer's output shape when its calls produced different shapes.
MULTIPLE = "multiple"


class KerasTensor:
  """A symbolic tensor with a static shape, a dtype and the layer that made it."""

  def __init__(self, shape, dtype, layer=None, node_index=0, tensor_index=0, name=None):
    self.shape = TensorShape(shape)
    self.dtype = dtype
    self.name = name
    self._keras_history = (layer, node_index, tensor_index)

  @property
  def node(self):
    layer, index, _ = self._keras_history
    return layer._inbound_nodes[index]

  @property
  def ndim(self):
    return self.shape.rank

  def get_shape(self):
    return self.shape

  def __repr__(self):
    layer = self._keras_history[0]
    by = f" (created by layer '{layer.name}')" if layer is not None else ""
    return f"<KerasTensor: shape={_tuple(self.shape)} dtype={self.dtype.name}{by}>"

  def __bool__(self):
    raise TypeError("Using a symbolic KerasTensor as a Python bool is not allowed; "
                    "the value is only known when the model runs.")


def _tuple(shape):
  return tuple(shape.as_list()) if shape.rank is not None else None


class Node:
  """One call of `layer` on KerasTensors: its arguments and its outputs."""

  def __init__(self, layer, args, kwargs, outputs):
    self.layer = layer
    self.args = args
    self.kwargs = kwargs
    self.outputs = outputs
    self.keras_inputs = [t for t in nest.flatten((args, kwargs)) if isinstance(t, KerasTensor)]

  @property
  def inputs(self):
    return self.keras_inputs

  @property
  def output_structure(self):
    return self.outputs

  @property
  def parents(self):
    return [t.node for t in self.keras_inputs]


def any_keras_tensor(args, kwargs):
  return any(isinstance(t, KerasTensor) for t in nest.flatten((args, kwargs)))


def _run_on_placeholders(layer, args, kwargs):
  """Calls `layer` on scratch-graph placeholders standing for the KerasTensors."""
  graph = FuncGraph("keras_scratch")
  saved_scope = ctx.scope
  ctx.scope = ""  # NOTE: weights built here are named "dense/kernel:0", as in Keras.
  try:
    with graph.as_default():
      def placeholder(v):
        if isinstance(v, KerasTensor):
          return graph.placeholder(TensorSpec(v.shape, v.dtype), "input")
        return v
      sargs = nest.map_structure(placeholder, args)
      skwargs = nest.map_structure(placeholder, kwargs)
      outputs = layer(*sargs, **skwargs)
  finally:
    ctx.scope = saved_scope
    _drop_symbolic_losses()
  return outputs


def _drop_symbolic_losses():
  from tensorlet.keras.engine import base_layer
  for lossy in list(base_layer._LOSSY):
    lossy._tl_call_losses = []
  base_layer._LOSSY.clear()


def symbolic_call(layer, args, kwargs):
  """`layer(*args, **kwargs)` on KerasTensors: new KerasTensors and a recorded Node."""
  outputs = _run_on_placeholders(layer, args, kwargs)
  index = len(layer._inbound_nodes)
  counter = iter(range(1 << 30))
  kt = nest.map_structure(
      lambda t: KerasTensor(t.shape, t.dtype, layer, index, next(counter),
                            name=f"{layer.name}/{t.op.type}:0"), outputs)
  layer._inbound_nodes.append(Node(layer, args, kwargs, kt))
  shapes = [_tuple(t.shape) for t in nest.flatten(kt)]
  shape = shapes[0] if not nest.is_nested(kt) else shapes
  prev = layer._tl_out_shape
  layer._tl_out_shape = shape if prev is None or prev == shape else MULTIPLE
  return kt


def trace_shapes(layer, input_shape, dtype):
  """The output shape(s) of `layer` for inputs of `input_shape` (a TensorShape or a
  structure of them), without recording a node."""
  ins = nest.map_structure(lambda s: KerasTensor(s, dtype), input_shape,
                           ) if not isinstance(input_shape, TensorShape) else \
      KerasTensor(input_shape, dtype)
  out = _run_on_placeholders(layer, (ins,), {})
  return nest.map_structure(lambda t: t.shape, out)
