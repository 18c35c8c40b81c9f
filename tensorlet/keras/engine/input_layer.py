"""tf.keras.Input and InputLayer: the entry points of functional models."""
from tensorlet import dtypes as _dt
from tensorlet.keras import backend
from tensorlet.keras.engine.base_layer import Layer, shape_tuple
from tensorlet.keras.engine.keras_tensor import KerasTensor, Node

__all__ = ["InputLayer", "Input"]


def _composite_spec(batch_shape, dtype, sparse, ragged):
  """The spec of a sparse or ragged input of `batch_shape`: as Keras 2, the ragged
  dimensions are all up to the last unknown one."""
  if sparse:
    from tensorlet.sparse import SparseTensorSpec
    return SparseTensorSpec(batch_shape, dtype)
  from tensorlet.ragged import RaggedTensorSpec
  ragged_rank = max([i for i in range(1, len(batch_shape)) if batch_shape[i] is None] or [0])
  return RaggedTensorSpec(batch_shape, dtype, ragged_rank)


class InputLayer(Layer):
  """A layer without weights whose output is the model's input KerasTensor (dense, or
  sparse / ragged with `sparse=True` / `ragged=True` / a composite `type_spec`)."""

  def __init__(self, input_shape=None, batch_size=None, dtype=None, name=None,
               batch_input_shape=None, sparse=None, ragged=None, type_spec=None,
               optional=False, **kwargs):
    if sparse and ragged:
      raise ValueError("Cannot set both `sparse` and `ragged` to `True` in a Keras `Input`.")
    if name is None:
      name = backend.unique_object_name("input", zero_based=False)
    if type_spec is not None:
      if input_shape is not None or batch_input_shape is not None or sparse or ragged:
        raise ValueError("Creating Keras inputs from a type_spec is only supported when "
                         "`shape`, `batch_size`, `sparse` and `ragged` are not given.")
      if not hasattr(type_spec, "shape") or not hasattr(type_spec, "dtype"):
        raise TypeError(f"InputLayer: `type_spec` must be a TypeSpec, got {type_spec!r:.80}")
      kind = type(type_spec).__name__
      sparse, ragged = kind == "SparseTensorSpec", kind == "RaggedTensorSpec"
      batch_input_shape = tuple(type_spec.shape.as_list()) if type_spec.shape.rank is not \
          None else None
      dtype = type_spec.dtype if dtype is None else dtype
    if batch_input_shape is None:
      if input_shape is None:
        raise ValueError("Please provide to Input a `shape` or a `tensor` or a `type_spec` "
                         "argument. Note that `shape` does not include the batch dimension.")
      input_shape = shape_tuple(input_shape, "input_shape")
      batch_input_shape = (batch_size,) + input_shape
    super().__init__(name=name, dtype=dtype,
                     batch_input_shape=shape_tuple(batch_input_shape, "batch_input_shape"),
                     **kwargs)
    self.built = True
    self.is_placeholder = True
    self.sparse, self.ragged = bool(sparse), bool(ragged)
    dt = _dt.as_dtype(self.dtype)
    if type_spec is None and (sparse or ragged):
      type_spec = _composite_spec(self._batch_input_shape, dt, sparse, ragged)
    if type_spec is not None:
      out = KerasTensor.from_type_spec(type_spec, self, 0, 0, name=name)
    else:
      out = KerasTensor(self._batch_input_shape, dt, self, 0, 0, name=name)
    self._inbound_nodes.append(Node(self, (), {}, out))
    self._tl_out_shape = [self._batch_input_shape]

  def get_config(self):
    return {"batch_input_shape": self._batch_input_shape, "dtype": self.dtype,
            "sparse": self.sparse, "ragged": self.ragged, "name": self.name}


def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=None, tensor=None,  # noqa: N802
          ragged=None, type_spec=None, batch_shape=None, **kwargs):
  """A KerasTensor of `shape` (without the batch dimension) to start a functional model;
  `sparse=True` / `ragged=True` (or a composite `type_spec`) make it stand for
  SparseTensor / RaggedTensor inputs.

  Example:
    >>> x = tf.keras.Input(shape=(4,))
    >>> x.shape
    TensorShape([None, 4])
  """
  if sparse and ragged:
    raise ValueError("Cannot set both `sparse` and `ragged` to `True` in a Keras `Input`.")
  if tensor is not None:
    raise ValueError("tf.keras.Input(tensor=...) wraps a TF1 graph tensor, which tensorlet "
                     "does not have; pass `shape` and `dtype` instead.")
  for k in kwargs:
    if k != "batch_input_shape":
      raise ValueError(f"Unrecognized keyword arguments: {[k]}")
  batch_shape = batch_shape or kwargs.get("batch_input_shape")
  if type_spec is not None:
    if shape is not None or batch_shape is not None or batch_size is not None:
      raise ValueError("When passing a `type_spec`, `shape`, `batch_size` and `batch_shape` "
                       "must not be given.")
    layer = InputLayer(name=name, dtype=dtype, type_spec=type_spec)
  else:
    layer = InputLayer(input_shape=shape, batch_size=batch_size, dtype=dtype, name=name,
                       batch_input_shape=batch_shape, sparse=sparse, ragged=ragged)
  return layer._inbound_nodes[0].outputs
