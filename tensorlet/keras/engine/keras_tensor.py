"""KerasTensor: the symbolic value flowing between layers of a functional model.

Calling a layer on KerasTensors runs its `call` once on placeholders of a
scratch graph (building the layer on the way), which gives the output shapes
and dtypes, and records a `Node` (layer, arguments, outputs) that functional
models replay on real tensors.
"""
from tensorlet import _nest as nest
from tensorlet.context import ctx
from tensorlet.graph.graph import FuncGraph
from tensorlet.ops import dispatch
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor_spec import TensorSpec

__all__ = ["KerasTensor", "Node", "any_keras_tensor", "symbolic_call", "trace_shapes",
           "MULTIPLE"]

# A layer's output shape when its calls produced different shapes.
MULTIPLE = "multiple"


class KerasTensor:
  """A symbolic tensor with a static shape, a dtype and the layer that made it."""

  # The KerasTensor standing for the mask the layer computes, if any (shape and dtype only;
  # the mask is computed again when the model runs).
  _keras_mask = None

  def __init__(self, shape, dtype, layer=None, node_index=0, tensor_index=0, name=None):
    self.shape = TensorShape(shape)
    self.dtype = dtype
    self.name = name
    self._keras_history = (layer, node_index, tensor_index)

  @property
  def type_spec(self):
    return TensorSpec(self.shape, self.dtype)

  @classmethod
  def from_type_spec(cls, type_spec, layer=None, node_index=0, tensor_index=0, name=None):
    """The KerasTensor standing for values of `type_spec` (a TensorSpec, or a composite
    spec: RaggedTensorSpec, SparseTensorSpec)."""
    kind = _COMPOSITE_KINDS.get(type(type_spec).__name__)
    if kind is None:
      return KerasTensor(type_spec.shape, type_spec.dtype, layer, node_index, tensor_index,
                         name)
    return kind(type_spec, layer, node_index, tensor_index, name)

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

  # A KerasTensor has no value: converting it fails, and the public TF function that
  # tried hands the call to Keras (tensorlet.ops.dispatch), which makes it a TFOpLambda.
  def _as_tensor(self):
    raise TypeError(_NO_VALUE.format(self))

  def __array__(self, dtype=None, copy=None):
    raise TypeError(_NO_VALUE.format(self))

  def numpy(self):
    raise TypeError(_NO_VALUE.format(self))

  __hash__ = object.__hash__

  def __len__(self):
    raise TypeError("Keras symbolic inputs/outputs do not implement `__len__`. You may be "
                    "trying to pass Keras symbolic inputs/outputs to a TF API that does not "
                    "register dispatching.")

  def __iter__(self):
    d = self.shape[0] if self.shape.rank else None
    if d is None:
      raise TypeError(f"Cannot iterate over a Tensor with unknown first dimension: {self}")
    return iter([self[i] for i in range(d)])


class _CompositeKerasTensor(KerasTensor):
  """A KerasTensor of a composite value: its spec gives the shape and dtype."""

  def __init__(self, type_spec, layer=None, node_index=0, tensor_index=0, name=None):
    super().__init__(type_spec.shape, type_spec.dtype, layer, node_index, tensor_index, name)
    self._spec = type_spec

  @property
  def type_spec(self):
    return self._spec

  def __repr__(self):
    layer = self._keras_history[0]
    by = f" (created by layer '{layer.name}')" if layer is not None else ""
    return f"<KerasTensor: type_spec={self._spec!r}{by}>"

  def __str__(self):
    layer = self._keras_history[0]
    name = f", name='{self.name}'" if self.name is not None else ""
    by = f", description=\"created by layer '{layer.name}'\"" if layer is not None else ""
    return f"KerasTensor(type_spec={self._spec!r}{name}{by})"


class RaggedKerasTensor(_CompositeKerasTensor):
  """The KerasTensor of a RaggedTensor (`tf.keras.Input(ragged=True)`)."""

  @property
  def ragged_rank(self):
    return self._spec.ragged_rank

  def _method(self, name, *args, **kwargs):
    from tensorlet.keras.layers import tf_op_layer
    return tf_op_layer.method_call(self, name, args, kwargs)

  def to_tensor(self, default_value=None, name=None, shape=None):
    return self._method("to_tensor", default_value=default_value, shape=shape)

  def row_lengths(self, axis=1, name=None):
    return self._method("row_lengths", axis=axis)

  def nrows(self, out_type=None, name=None):
    return self._method("nrows", out_type=out_type)

  def merge_dims(self, outer_axis, inner_axis):
    return self._method("merge_dims", outer_axis, inner_axis)

  def with_flat_values(self, new_values):
    return self._method("with_flat_values", new_values)

  def with_values(self, new_values):
    return self._method("with_values", new_values)

  @property
  def values(self):
    return self._method("values")

  @property
  def flat_values(self):
    return self._method("flat_values")

  @property
  def row_splits(self):
    return self._method("row_splits")


class SparseKerasTensor(_CompositeKerasTensor):
  """The KerasTensor of a SparseTensor (`tf.keras.Input(sparse=True)`)."""

  def _method(self, name):
    from tensorlet.keras.layers import tf_op_layer
    return tf_op_layer.method_call(self, name, (), {})

  @property
  def indices(self):
    return self._method("indices")

  @property
  def values(self):
    return self._method("values")

  @property
  def dense_shape(self):
    return self._method("dense_shape")


_COMPOSITE_KINDS = {"RaggedTensorSpec": RaggedKerasTensor,
                    "SparseTensorSpec": SparseKerasTensor}


def keras_tensor_from_value(t, layer, index, tensor_index, name):
  """The KerasTensor of a layer's output `t` (a symbolic tensor or composite value)."""
  spec = getattr(t, "_type_spec", None)
  if spec is not None and type(spec).__name__ in _COMPOSITE_KINDS:
    return KerasTensor.from_type_spec(spec, layer, index, tensor_index, name)
  return KerasTensor(t.shape, t.dtype, layer, index, tensor_index, name)


_NO_VALUE = ("{} is a Keras symbolic tensor: it has no value until the model runs. Apply "
             "Keras layers or TensorFlow functions to it inside a functional model.")


def _operator(name, reverse=False, unary=False):
  def method(self, other=None):
    from tensorlet.keras.layers import tf_op_layer
    return tf_op_layer.operator(name, self, other, reverse)
  if unary:
    def method1(self):
      from tensorlet.keras.layers import tf_op_layer
      return tf_op_layer.operator(name, self)
    return method1
  return method


for _n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
           "xor"):
  setattr(KerasTensor, f"__{_n}__", _operator(_n))
  setattr(KerasTensor, f"__r{_n}__", _operator(_n, reverse=True))
for _n in ("lt", "le", "gt", "ge"):
  setattr(KerasTensor, f"__{_n}__", _operator(_n))
for _n in ("neg", "abs", "invert"):
  setattr(KerasTensor, f"__{_n}__", _operator(_n, unary=True))
KerasTensor.__getitem__ = _operator("getitem")


def _dispatch_on_keras_tensors(api_fn, args, kwargs):
  from tensorlet.keras.layers import tf_op_layer
  return tf_op_layer.op_layer_call(api_fn, args, kwargs)


dispatch.register_type(KerasTensor, _dispatch_on_keras_tensors)


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
  graph._tl_keras_layer = layer  # its error context quotes the name as Keras' does here
  saved_scope = ctx.scope
  ctx.scope = ""  # NOTE: weights built here are named "dense/kernel:0", as in Keras.
  try:
    with graph.as_default():
      def symbolic(v, name):
        if isinstance(v, _CompositeKerasTensor):
          spec = v.type_spec
          return spec._from_components([graph.placeholder(c, name)
                                        for c in spec._component_specs])
        return graph.placeholder(TensorSpec(v.shape, v.dtype), name)

      def placeholder(v):
        if isinstance(v, KerasTensor):
          ph = symbolic(v, "input")
          if v._keras_mask is not None:
            ph._keras_mask = symbolic(v._keras_mask, "input_mask")
          return ph
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
      lambda t: keras_tensor_from_value(t, layer, index, next(counter), _output_name(layer, t)),
      outputs)
  for t, k in zip(nest.flatten(outputs), nest.flatten(kt)):
    m = getattr(t, "_keras_mask", None)
    if m is not None:
      k._keras_mask = keras_tensor_from_value(m, None, 0, 0, f"{layer.name}/mask:0")
  layer._inbound_nodes.append(Node(layer, args, kwargs, kt))
  shapes = [_tuple(t.shape) for t in nest.flatten(kt)]
  shape = shapes[0] if not nest.is_nested(kt) else shapes
  prev = layer._tl_out_shape
  layer._tl_out_shape = shape if prev is None or prev == shape else MULTIPLE
  return kt


def _output_name(layer, t):
  op = getattr(t, "op", None)
  return f"{layer.name}/{op.type}:0" if op is not None else None


def trace_shapes(layer, input_shape, dtype):
  """The output shape(s) of `layer` for inputs of `input_shape` (a TensorShape or a
  structure of them), without recording a node."""
  ins = nest.map_structure(lambda s: KerasTensor(s, dtype), input_shape,
                           ) if not isinstance(input_shape, TensorShape) else \
      KerasTensor(input_shape, dtype)
  out = _run_on_placeholders(layer, (ins,), {})
  return nest.map_structure(lambda t: t.shape, out)
