"""tf.keras.Sequential: a plain stack of layers, each with one input and one output."""
from tensorlet.keras.engine import keras_tensor
from tensorlet.keras.engine.base_layer import Layer
from tensorlet.keras.engine.input_layer import Input, InputLayer
from tensorlet.keras.engine.training import Model
from tensorlet.tensor_shape import TensorShape

__all__ = ["Sequential"]


class Sequential(Model):
  """Layers applied one after another.

  With the input shape known (an `Input`, or `input_shape=` on the first layer)
  the model is built at once, so `summary()` works before any data; otherwise it
  builds on its first call.

  Example:
    >>> model = tf.keras.Sequential([tf.keras.layers.Dense(10, input_shape=(784,)),
    ...                              tf.keras.layers.Dense(10)])
    >>> model.output_shape
    (None, 10)
  """

  def __init__(self, layers=None, name=None):
    super().__init__(name=name)
    self._tl_layers = []
    self._tl_input = None      # the KerasTensor the symbolic stack starts from
    self._tl_output = None
    self._tl_is_sequential = True
    if layers is not None:
      if not isinstance(layers, (list, tuple)):
        layers = [layers]
      for layer in layers:
        self.add(layer)

  @property
  def layers(self):
    return list(self._tl_layers)

  def _tl_sublayers(self):
    return list(self._tl_layers)

  def _tl_checkpoint_children(self):
    pairs = [(f"layer-{i}", layer) for i, layer in enumerate(self._tl_layers)]
    if self.optimizer is not None:
      pairs.append(("optimizer", self.optimizer))
    return pairs

  def add(self, layer):
    """Appends a layer (or starts the stack from a `tf.keras.Input`)."""
    if isinstance(layer, keras_tensor.KerasTensor):
      layer = layer._keras_history[0]
    if not isinstance(layer, Layer):
      raise TypeError(f"The added layer must be an instance of class Layer. Received: "
                      f"layer={layer} of type {type(layer)}.")
    if any(layer.name == other.name for other in self._tl_layers):
      raise ValueError(f"All layers added to a Sequential model should have unique names. "
                       f"Name \"{layer.name}\" is already the name of a layer in this model. "
                       f"Update the `name` argument to pass a unique name.")
    if isinstance(layer, InputLayer):
      if self._tl_layers or self._tl_input is not None:
        raise ValueError("An InputLayer can only be the first layer of a Sequential model.")
      self._tl_input = self._tl_output = layer._inbound_nodes[0].outputs
      self.built = True
      return
    self._tl_layers.append(layer)
    if self._tl_output is not None:
      self._tl_output = layer(self._tl_output)
    elif len(self._tl_layers) == 1 and layer._batch_input_shape is not None:
      self.build(layer._batch_input_shape)

  def pop(self):
    """Removes the last layer."""
    if not self._tl_layers:
      raise TypeError("There are no layers in the model.")
    self._tl_layers.pop()
    if self._tl_input is not None:
      x = self._tl_input
      for layer in self._tl_layers:
        x = layer(x)
      self._tl_output = x

  def build(self, input_shape=None):
    """Traces the stack on a KerasTensor of `input_shape` (batch dimension first)."""
    if input_shape is None:
      if self._tl_input is None:
        raise ValueError("You must provide an `input_shape` argument.")
      return
    dims = TensorShape(input_shape).as_list()
    self._tl_build_input_shape = TensorShape(dims)
    if self._tl_input is None:
      first = self._tl_layers[0] if self._tl_layers else None
      self._tl_input = Input(batch_shape=tuple(dims), dtype=first and first.dtype,
                             name=f"{first.name}_input" if first else None)
    x = self._tl_input
    for layer in self._tl_layers:
      x = layer(x)
    self._tl_output = x
    self.built = True

  def _maybe_build(self, inputs):
    if not self.built:
      # NOTE: as Keras, the symbolic build forgets the batch size of the first batch.
      shape = TensorShape(inputs.shape).as_list()
      if isinstance(inputs, keras_tensor.KerasTensor):
        self.build([None] + shape[1:])
      else:
        try:
          self.build([None] + shape[1:])
        except Exception:
          # NOTE: as Keras, a stack that cannot be traced on a symbolic input runs layer
          # by layer on the real one (a failing layer reports its error from there).
          self._tl_input = self._tl_output = None
          self._tl_build_input_shape = TensorShape(shape)
          self.built = True
    super()._maybe_build(inputs)

  @property
  def inputs(self):
    return [self._tl_input] if self._tl_input is not None else None

  @property
  def outputs(self):
    return [self._tl_output] if self._tl_output is not None else None

  @property
  def output_names(self):
    return [self._tl_layers[-1].name] if self._tl_layers else []

  @property
  def output_shape(self):
    if self._tl_output is None:
      raise AttributeError(f"The layer \"{self.name}\" has never been called and thus has no "
                           f"defined output shape.")
    return tuple(self._tl_output.shape.as_list())

  def call(self, inputs, training=None, mask=None):
    for layer in self._tl_layers:
      inputs = layer(inputs)
    return inputs

  def get_config(self):
    from tensorlet.keras.saving import model_config
    return model_config.sequential_config(self)

  @classmethod
  def from_config(cls, config, custom_objects=None):
    from tensorlet.keras.saving import model_config
    return model_config.sequential_from_config(cls, config, custom_objects)
