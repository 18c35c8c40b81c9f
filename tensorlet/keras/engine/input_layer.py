"""tf.keras.Input and InputLayer: the entry points of functional models."""
from tensorlet import dtypes as _dt
from tensorlet.keras import backend
from tensorlet.keras.engine.base_layer import Layer
from tensorlet.keras.engine.keras_tensor import KerasTensor, Node

__all__ = ["InputLayer", "Input"]


class InputLayer(Layer):
  """A layer without weights whose output is the model's input KerasTensor."""

  def __init__(self, input_shape=None, batch_size=None, dtype=None, name=None,
               batch_input_shape=None, sparse=None, ragged=None, optional=False, **kwargs):
    if sparse or ragged:
      raise ValueError("InputLayer supports dense inputs only (no sparse or ragged inputs).")
    if name is None:
      name = backend.unique_object_name("input", zero_based=False)
    if batch_input_shape is None:
      if input_shape is None:
        raise ValueError("Please provide to Input a `shape` or a `tensor` or a `type_spec` "
                         "argument. Note that `shape` does not include the batch dimension.")
      input_shape = (input_shape,) if isinstance(input_shape, int) else tuple(input_shape)
      batch_input_shape = (batch_size,) + input_shape
    super().__init__(name=name, dtype=dtype, batch_input_shape=tuple(batch_input_shape),
                     **kwargs)
    self.built = True
    self.is_placeholder = True
    out = KerasTensor(self._batch_input_shape, _dt.as_dtype(self.dtype), self, 0, 0,
                      name=name)
    self._inbound_nodes.append(Node(self, (), {}, out))
    self._tl_out_shape = [self._batch_input_shape]

  def get_config(self):
    return {"batch_input_shape": self._batch_input_shape, "dtype": self.dtype,
            "sparse": False, "ragged": False, "name": self.name}


def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=None, tensor=None,  # noqa: N802
          ragged=None, type_spec=None, batch_shape=None, **kwargs):
  """A KerasTensor of `shape` (without the batch dimension) to start a functional model.

  Example:
    >>> x = tf.keras.Input(shape=(4,))
    >>> x.shape
    TensorShape([None, 4])
  """
  if sparse or ragged or tensor is not None or type_spec is not None:
    raise ValueError("tf.keras.Input supports dense inputs given by `shape`/`batch_shape` "
                     "only (no sparse, ragged, tensor or type_spec inputs).")
  for k in kwargs:
    if k != "batch_input_shape":
      raise ValueError(f"Unrecognized keyword arguments: {[k]}")
  batch_shape = batch_shape or kwargs.get("batch_input_shape")
  layer = InputLayer(input_shape=shape, batch_size=batch_size, dtype=dtype, name=name,
                     batch_input_shape=batch_shape)
  return layer._inbound_nodes[0].outputs
