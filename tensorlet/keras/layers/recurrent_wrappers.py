"""Wrappers around a layer: `Bidirectional` (an RNN run both ways) and
`TimeDistributed` (a layer applied to every time step)."""
from tensorlet import _nest as nest
from tensorlet.context import ctx
from tensorlet.keras.engine.base_layer import Layer
from tensorlet.keras.layers.recurrent import (deserialize_layer, serialize_layer,
                                              split_initial_state)
from tensorlet.ops import array_ops as _a
from tensorlet.tensor import Tensor
from tensorlet.tensor_shape import TensorShape

__all__ = ["Bidirectional", "TimeDistributed"]

_MERGE_MODES = ("sum", "mul", "ave", "concat", None)


def _rename(layer, name):
  layer._name = name
  layer._scope_name = ctx.scope + name + "/"


class Bidirectional(Layer):
  """Runs a copy of an RNN layer forwards and another backwards and merges them.

  Example:
    >>> bi = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(4))
    >>> bi(tf.ones([2, 5, 3])).shape
    TensorShape([2, 8])
  """

  def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
    if not isinstance(layer, Layer):
      raise ValueError(f"Please initialize `Bidirectional` layer with a `tf.keras.layers.Layer` "
                       f"instance. Received: {layer}")
    if backward_layer is not None and not isinstance(backward_layer, Layer):
      raise ValueError(f"`backward_layer` need to be a `tf.keras.layers.Layer` instance. "
                       f"Received: {backward_layer}")
    if merge_mode not in _MERGE_MODES:
      raise ValueError(f"Invalid merge mode. Received: {merge_mode}. Merge mode should be one "
                       f"of {{\"sum\", \"mul\", \"ave\", \"concat\", None}}")
    for attr in ("go_backwards", "return_sequences", "return_state"):
      if not hasattr(layer, attr):
        raise ValueError(f"`Bidirectional` needs a recurrent layer (one with "
                         f"`return_sequences`, `return_state` and `go_backwards`). "
                         f"Received: {layer}")
    super().__init__(**kwargs)
    config = layer.get_config()
    self.forward_layer = type(layer).from_config(dict(config))
    self._tl_custom_backward = backward_layer is not None
    if backward_layer is None:
      config = dict(config, go_backwards=not layer.go_backwards)
      backward_layer = type(layer).from_config(config)
    else:
      for attr in ("return_sequences", "return_state", "stateful"):
        if getattr(backward_layer, attr) != getattr(layer, attr):
          raise ValueError(f"Forward layer and backward layer should have the same value "
                           f"for `{attr}`. Got {getattr(layer, attr)} for the forward layer "
                           f"and {getattr(backward_layer, attr)} for the backward layer.")
      if backward_layer.go_backwards == layer.go_backwards:
        raise ValueError("Forward layer and backward layer should have different "
                         "`go_backwards` value. Both have "
                         f"go_backwards={layer.go_backwards}.")
    self.backward_layer = backward_layer
    _rename(self.forward_layer, "forward_" + self.forward_layer.name)
    _rename(self.backward_layer, "backward_" + self.backward_layer.name)
    # NOTE: as Keras 2: masked steps give zeros, so the two directions line up when merged.
    for inner in (self.forward_layer, self.backward_layer):
      if hasattr(inner, "zero_output_for_mask"):
        inner.zero_output_for_mask = layer.return_sequences
    self.merge_mode = merge_mode
    self.return_sequences = layer.return_sequences
    self.return_state = layer.return_state
    self._tl_stateful_inner = layer.stateful
    self.supports_masking = True
    self._tl_initial_weights = weights

  @property
  def layer(self):
    return self.forward_layer

  @property
  def stateful(self):
    return self._tl_stateful_inner

  def reset_states(self, states=None):
    if states is None:
      self.forward_layer.reset_states()
      self.backward_layer.reset_states()
      return
    half = len(states) // 2
    self.forward_layer.reset_states(states[:half])
    self.backward_layer.reset_states(states[half:])

  def __call__(self, *args, **kwargs):
    return super().__call__(*split_initial_state(args, kwargs), **kwargs)

  def call(self, inputs, training=None, mask=None, initial_state=None, constants=None):
    if constants is not None:
      raise NotImplementedError("Bidirectional `constants` are not supported by tensorlet yet.")
    fkw, bkw = {"training": training}, {"training": training}
    if mask is not None:
      fkw["mask"] = bkw["mask"] = mask
    if initial_state is not None:
      states = nest.flatten(initial_state)
      if len(states) % 2:
        raise ValueError(f"When passing `initial_state` to a Bidirectional RNN, the state "
                         f"should be a list containing the states of the underlying RNNs. "
                         f"Received: {initial_state}")
      half = len(states) // 2
      fkw["initial_state"], bkw["initial_state"] = states[:half], states[half:]
    y = self.forward_layer(inputs, **fkw)
    y_rev = self.backward_layer(inputs, **bkw)
    if self.return_state:
      states = list(y[1:]) + list(y_rev[1:])
      y, y_rev = y[0], y_rev[0]
    if self.return_sequences:
      time = 0 if getattr(self.forward_layer, "time_major", False) else 1
      y_rev = _a.reverse(y_rev, [time])
    mode = self.merge_mode
    if mode == "concat":
      out = _a.concat([y, y_rev], -1)
    elif mode == "sum":
      out = y + y_rev
    elif mode == "ave":
      out = (y + y_rev) / 2
    elif mode == "mul":
      out = y * y_rev
    else:
      out = [y, y_rev]
    if self.return_state:
      return (out if mode is None else [out]) + states
    return out

  def compute_mask(self, inputs, mask=None):
    if isinstance(mask, (list, tuple)):
      mask = mask[0]
    out = mask if self.return_sequences else None
    if self.merge_mode is None:
      out = [out, out]
    elif self.return_state:
      out = [out]
    if self.return_state:
      n = len(self.forward_layer.states) * 2
      out = list(out) + [None] * n
    return out

  def compute_output_shape(self, input_shape):
    fw = self.forward_layer.compute_output_shape(input_shape)
    states = []
    if self.return_state:
      fw, states = fw[0], list(fw[1:])
      states = states + states
    fw = TensorShape(fw)
    if self.merge_mode == "concat":
      out = fw[:-1].concatenate([None if fw[-1] is None else fw[-1] * 2])
    elif self.merge_mode is None:
      out = [fw, fw]
    else:
      out = fw
    if self.return_state:
      return (out if self.merge_mode is None else [out]) + states
    return out

  def get_config(self):
    config = super().get_config()
    config["layer"] = serialize_layer(self.forward_layer)
    config["layer"]["config"]["name"] = self.forward_layer.name[len("forward_"):]
    config["merge_mode"] = self.merge_mode
    if self._tl_custom_backward:
      config["backward_layer"] = serialize_layer(self.backward_layer)
      config["backward_layer"]["config"]["name"] = \
          self.backward_layer.name[len("backward_"):]
    return config

  @classmethod
  def from_config(cls, config, custom_objects=None):
    config = dict(config)
    layer = deserialize_layer(config.pop("layer"), custom_objects)
    back = config.pop("backward_layer", None)
    if back is not None:
      back = deserialize_layer(back, custom_objects)
    return cls(layer, backward_layer=back, **config)


class TimeDistributed(Layer):
  """Applies `layer` to every slice `inputs[:, t]` (batch and time merged into one axis).

  Example:
    >>> td = tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(2))
    >>> td(tf.ones([4, 3, 5])).shape
    TensorShape([4, 3, 2])
  """

  def __init__(self, layer, **kwargs):
    if not isinstance(layer, Layer):
      raise ValueError(f"Please initialize `TimeDistributed` layer with a "
                       f"`tf.keras.layers.Layer` instance. Received: {layer}")
    super().__init__(**kwargs)
    self.layer = layer
    self.supports_masking = True

  def _tl_check(self, shape):
    shape = TensorShape(shape)
    if shape.rank is not None and shape.rank < 3:
      raise ValueError(f"`TimeDistributed` Layer should be passed an `input_shape ` with at "
                       f"least 3 dimensions, received: {tuple(shape.as_list())}")
    return shape

  def build(self, input_shape):
    shape = self._tl_check(input_shape)
    if not self.layer.built:
      # NOTE: Keras 2 builds the inner layer in the wrapper's scope, so its weights are
      # "time_distributed/kernel:0"; weight files match on those names.
      inner = self.layer
      name = inner._name
      inner._name = self._name
      try:
        inner.build(TensorShape([None]).concatenate(shape[2:]))
      finally:
        inner._name = name
      inner.built = True
    self.built = True

  def call(self, inputs, training=None, mask=None):
    if type(inputs).__name__ == "RaggedTensor" and inputs.ragged_rank == 1:
      # as Keras 2: the wrapped layer runs on the time steps of all rows at once
      kw = {"training": training} if training is not None else {}
      return inputs.with_values(self.layer(inputs.values, **kw))
    if not isinstance(inputs, Tensor):
      raise TypeError(f"`TimeDistributed` takes one tensor; received {inputs!r}"[:500])
    shape = self._tl_check(inputs.shape)
    dims = shape.as_list()
    if None in dims[:2] or None in dims[2:]:
      dyn = _a.shape(inputs)
      lead = [dims[0] if dims[0] is not None else dyn[0],
              dims[1] if dims[1] is not None else dyn[1]]
    else:
      dyn, lead = None, dims[:2]
    rest = [d if d is not None else dyn[i + 2] for i, d in enumerate(dims[2:])]
    flat_shape = [-1] + rest
    if any(isinstance(d, Tensor) for d in flat_shape):
      flat_shape = _a.stack(flat_shape)
    x = _a.reshape(inputs, flat_shape)
    x.set_shape([None if None in dims[:2] else dims[0] * dims[1]] + dims[2:])
    kw = {"training": training} if training is not None else {}
    y = self.layer(x, **kw)

    def back(t):
      out_rest = t.shape.as_list()[1:]
      if any(d is None for d in out_rest) or any(isinstance(d, Tensor) for d in lead):
        ts = _a.shape(t)
        full = list(lead) + [d if d is not None else ts[i + 1]
                             for i, d in enumerate(out_rest)]
        out = _a.reshape(t, _a.stack(full))
        out.set_shape(dims[:2] + out_rest)
        return out
      return _a.reshape(t, list(lead) + out_rest)
    return nest.map_structure(back, y)

  def compute_mask(self, inputs, mask=None):
    return mask

  def compute_output_shape(self, input_shape):
    shape = self._tl_check(input_shape)
    inner = self.layer.compute_output_shape(TensorShape([None]).concatenate(shape[2:]))
    return nest.map_structure(lambda s: TensorShape(shape[:2]).concatenate(TensorShape(s)[1:]),
                              inner) if not isinstance(inner, TensorShape) else \
        TensorShape(shape[:2]).concatenate(inner[1:])

  def get_config(self):
    config = super().get_config()
    config["layer"] = serialize_layer(self.layer)
    return config

  @classmethod
  def from_config(cls, config, custom_objects=None):
    config = dict(config)
    layer = deserialize_layer(config.pop("layer"), custom_objects)
    return cls(layer, **config)
