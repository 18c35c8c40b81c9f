"""The generic recurrent layer `RNN(cell)`, `StackedRNNCells` and the loop over time.

A cell maps `(inputs_t, states) -> (output_t, new_states)`. `RNN` runs it over
the time axis: eagerly (or with `unroll=True`) as a Python loop, and inside a
graph as ONE `tf.while_loop` reading a TensorArray of the inputs, so traced
models stay small and their gradient is one reverse loop.

The built-in cells (SimpleRNN, LSTM, GRU) also offer `_tl_sequence_step`: the
input projection `x @ kernel + bias` of every time step becomes one matmul
before the loop, and the loop body keeps only the recurrent matmul (one GEMM
for all gates) and the gate arithmetic.
An LSTM or GRU (`reset_after=True`) with its default activations runs all its
steps in one op instead (`_tl_run_all`: `rnn_sequence_ops.lstm_sequence`,
`gru_sequence_ops.gru_sequence`, with masks and recurrent dropout too, as Keras
uses one cuDNN op on a GPU), whose gradient reuses the forward's gate
activations.
"""
import numpy as np

from tensorlet import _nest as nest
from tensorlet.context import ctx, name_scope
from tensorlet.keras.engine.base_layer import InputSpec, Layer
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.tensor import Tensor, convert_to_tensor
from tensorlet.tensor_shape import TensorShape

__all__ = ["RNN", "StackedRNNCells", "deserialize_layer"]


def deserialize_layer(config, custom_objects=None):
  """A layer from `{"class_name", "config"}`: the user's `custom_objects` first, then
  the built-in `tf.keras.layers`."""
  if isinstance(config, Layer):
    return config
  if not isinstance(config, dict) or "class_name" not in config:
    raise ValueError(f"Could not interpret serialized layer: {config!r}")
  name = config["class_name"]
  from tensorlet.keras.saving import object_registration
  cls = object_registration.get_registered_object(config.get("registered_name") or name,
                                                  custom_objects) or \
      object_registration.get_registered_object(name, custom_objects)
  if cls is None:
    from tensorlet.keras import layers
    cls = getattr(layers, name, None)
  if cls is None:
    raise ValueError(f"Unknown layer: '{name}'. Please ensure you are using a "
                     f"`keras.utils.custom_object_scope` and that this object is included in "
                     f"the scope.")
  cfg = dict(config.get("config", {}))
  try:
    return cls.from_config(cfg, custom_objects=custom_objects)
  except TypeError:
    return cls.from_config(cfg)


def split_initial_state(args, kwargs):
  """Keras' list form `layer([x, h0, c0])` -> `layer(x, initial_state=[h0, c0])`."""
  if args and isinstance(args[0], (list, tuple)) and len(args[0]) > 1 and \
      "initial_state" not in kwargs:
    x = list(args[0])
    kwargs["initial_state"] = x[1:]
    args = (x[0],) + args[1:]
  return args


def serialize_layer(layer):
  from tensorlet.keras.saving import object_registration
  out = {"class_name": type(layer).__name__, "config": layer.get_config()}
  registered = object_registration.get_registered_name(type(layer))
  if registered != out["class_name"]:
    out["registered_name"] = registered
  return out


def _sizes(state_size):
  """A cell's `state_size` as a flat list of ints (or TensorShapes)."""
  if isinstance(state_size, (list, tuple)) and not isinstance(state_size, TensorShape):
    return list(state_size)
  return [state_size]


def _dims(size):
  if isinstance(size, TensorShape):
    return size.as_list()
  if isinstance(size, (list, tuple)):
    return list(size)
  return [size]


def batch_zeros(batch, dims, dtype):
  """Zeros of shape `[batch] + dims`, `batch` an int or a scalar tensor (static shape kept)."""
  if isinstance(batch, Tensor):
    out = _a.zeros(_a.stack([batch] + list(dims)), dtype=dtype)
    out.set_shape([None] + list(dims))
    return out
  return _a.zeros([batch] + list(dims), dtype=dtype)


def zero_states(cell, batch_size, dtype):
  """Zeros shaped `[batch] + size` for each of the cell's states."""
  get = getattr(cell, "get_initial_state", None)
  if get is not None and not getattr(get, "_tl_default", False):
    st = get(inputs=None, batch_size=batch_size, dtype=dtype)
    return list(st) if isinstance(st, (list, tuple)) else [st]
  return [batch_zeros(batch_size, _dims(s), dtype) for s in _sizes(cell.state_size)]


def _takes_constants(cell):
  import inspect
  try:
    params = inspect.signature(cell.call).parameters
  except (TypeError, ValueError):
    return False
  return "constants" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _draw_dropout_masks(cell, x0, training):
  """Draws the dropout masks of the built-in cells (alone or stacked) once for a run
  over a sequence: every time step uses the same masks, as in Keras. Returns the cells
  whose masks were set (to clear after the run)."""
  cells = cell.cells if isinstance(cell, StackedRNNCells) else [cell]
  batch = x0.shape[0] if x0.shape[0] is not None else _a.shape(x0)[0]
  like, drawn = x0, []
  for c in cells:
    draw = getattr(c, "_tl_dropout_masks", None)
    if draw is not None and (c.dropout or c.recurrent_dropout):
      c._tl_masks = None
      c._tl_masks = draw(like, batch_zeros(batch, [c.units], x0.dtype), training)
      drawn.append(c)
    out = getattr(c, "output_size", None)
    like = batch_zeros(batch, _dims(out if out is not None else _sizes(c.state_size)[0]),
                       x0.dtype)
  return drawn


def _default(fn):
  fn._tl_default = True
  return fn


class StackedRNNCells(Layer):
  """Cells run one after the other at each time step; the states are all cells'."""

  def __init__(self, cells, **kwargs):
    if not isinstance(cells, (list, tuple)):
      raise TypeError(f"StackedRNNCells: `cells` must be a list of RNN cells, got {cells!r:.80}")
    for cell in cells:
      if not callable(getattr(cell, "call", None)):
        raise ValueError(f"All cells must have a `call` method. Received cell without a "
                         f"`call` method: {cell}")
      if not hasattr(cell, "state_size"):
        raise ValueError(f"All cells must have a `state_size` attribute. Received cell "
                         f"without a `state_size`: {cell}")
    super().__init__(**kwargs)
    self.cells = list(cells)

  @property
  def state_size(self):
    return tuple(s for cell in self.cells for s in _sizes(cell.state_size))

  @property
  def output_size(self):
    last = self.cells[-1]
    out = getattr(last, "output_size", None)
    return out if out is not None else _sizes(last.state_size)[0]

  def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
    return [s for cell in self.cells for s in zero_states(cell, batch_size, dtype)]

  def build(self, input_shape):
    shape = TensorShape(input_shape)
    for cell in self.cells:
      if isinstance(cell, Layer) and not cell.built:
        with name_scope(cell.name):
          cell.build(shape)
        cell.built = True
      out = getattr(cell, "output_size", None)
      if out is None:
        out = _sizes(cell.state_size)[0]
      shape = TensorShape([shape[0]] + _dims(out))
    self.built = True

  def call(self, inputs, states, constants=None, training=None, **kwargs):
    states = list(states)
    new_all = []
    for cell in self.cells:
      n = len(_sizes(cell.state_size))
      mine, states = states[:n], states[n:]
      extra = {"constants": constants} if constants is not None and \
          _takes_constants(cell) else {}
      inputs, new = cell(inputs, mine, training=training, **extra)
      new_all.extend(new if isinstance(new, (list, tuple)) else [new])
    return inputs, new_all

  def get_config(self):
    config = super().get_config()
    config["cells"] = [serialize_layer(c) for c in self.cells]
    return config

  @classmethod
  def from_config(cls, config, custom_objects=None):
    config = dict(config)
    cells = [deserialize_layer(c, custom_objects) for c in config.pop("cells")]
    return cls(cells, **config)


class RNN(Layer):
  """Runs a cell over the time axis of `(batch, time, features)` inputs.

  Example:
    >>> rnn = tf.keras.layers.RNN(tf.keras.layers.LSTMCell(4), return_sequences=True)
    >>> rnn(tf.ones([2, 5, 3])).shape
    TensorShape([2, 5, 4])
  """

  def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False,
               stateful=False, unroll=False, time_major=False, **kwargs):
    if isinstance(cell, (list, tuple)):
      cell = StackedRNNCells(cell, dtype=kwargs.get("dtype"))
    if not callable(getattr(cell, "call", None)):
      raise ValueError(f"Argument `cell` should have a `call` method. The RNN was passed: "
                       f"cell={cell}")
    if not hasattr(cell, "state_size"):
      raise ValueError(f"The RNN cell should have a `state_size` attribute (tuple of integers, "
                       f"one integer per RNN state). Received: cell={cell}")
    self.zero_output_for_mask = kwargs.pop("zero_output_for_mask", False)
    self._num_constants = kwargs.pop("num_constants", 0) or 0
    if "input_shape" not in kwargs and ("input_dim" in kwargs or "input_length" in kwargs):
      kwargs["input_shape"] = (kwargs.pop("input_length", None), kwargs.pop("input_dim", None))
    kwargs.pop("input_length", None)
    super().__init__(**kwargs)
    self.cell = cell
    self.return_sequences = return_sequences
    self.return_state = return_state
    self.go_backwards = go_backwards
    self._tl_stateful = stateful
    self.unroll = unroll
    self.time_major = time_major
    self.supports_masking = True
    self.input_spec = InputSpec(min_ndim=3)
    self._tl_state_vars = None

  @property
  def stateful(self):
    return self._tl_stateful

  @property
  def states(self):
    """The variables that carry a stateful layer's states between calls ([None] * n
    otherwise)."""
    if self._tl_state_vars is None:
      return [None] * len(_sizes(self.cell.state_size))
    return list(self._tl_state_vars)

  def _tl_batch_and_time(self):
    return (1, 0) if self.time_major else (0, 1)

  def build(self, input_shape):
    if isinstance(input_shape, (list, tuple)) and input_shape and \
        isinstance(input_shape[0], (list, tuple, TensorShape)):
      input_shape = input_shape[0]
    shape = TensorShape(input_shape)
    b, t = self._tl_batch_and_time()
    step = TensorShape([shape[b]] + shape.as_list()[2:])
    if isinstance(self.cell, Layer) and not self.cell.built:
      with name_scope(self.cell.name):
        self.cell.build(step)
      self.cell.built = True
    if self.stateful:
      self._tl_make_state_vars(shape[b])
    if shape.rank is not None:
      # As Keras 2: later calls must keep the feature sizes (and a stateful layer's batch),
      # so a wrong input is a ValueError naming the layer, not a matmul error in the loop.
      dims = shape.as_list()
      dims[t] = None
      if not self.stateful:
        dims[b] = None
      self.input_spec = InputSpec(shape=tuple(dims))
    self.built = True

  def _tl_make_state_vars(self, batch):
    if batch is None:
      raise ValueError("If a RNN is stateful, it needs to know its batch size. Specify the "
                       "batch size of your input tensors: \n- If using a Sequential model, "
                       "specify the batch size by passing a `batch_input_shape` argument to "
                       "your first layer.\n- If using the functional API, specify the batch "
                       "size by passing a `batch_shape` argument to your Input layer.")
    from tensorlet.variables import Variable
    dtype = self._tl_dtype
    self._tl_state_vars = [
        Variable(np.zeros([batch] + _dims(s), dtype.as_numpy_dtype), trainable=False,
                 name="Variable", dtype=dtype) for s in _sizes(self.cell.state_size)]

  def reset_states(self, states=None):
    """Zeroes a stateful layer's states, or sets them to `states` (arrays)."""
    if not self.stateful:
      raise AttributeError("Layer must be stateful.")
    if self._tl_state_vars is None:
      raise ValueError("The layer is not built yet, so its states cannot be reset; call it on "
                       "inputs of a known batch size first.")
    if states is None:
      for v in self._tl_state_vars:
        v.assign(np.zeros(v.shape.as_list(), v.dtype.as_numpy_dtype))
      return
    states = list(states) if isinstance(states, (list, tuple)) else [states]
    if len(states) != len(self._tl_state_vars):
      raise ValueError(f"Layer {self.name} expects {len(self._tl_state_vars)} states, but it "
                       f"received {len(states)} state values. States received: {states}")
    arrays = []
    for i, (v, s) in enumerate(zip(self._tl_state_vars, states)):
      a = np.asarray(s)
      if tuple(v.shape.as_list()) != a.shape:
        raise ValueError(f"State {i} is incompatible with layer {self.name}: expected shape="
                         f"{tuple(v.shape.as_list())} but found shape={a.shape}")
      arrays.append(a)
    for v, a in zip(self._tl_state_vars, arrays):
      v.assign(a.astype(v.dtype.as_numpy_dtype))

  def get_initial_state(self, inputs):
    b = self._tl_batch_and_time()[0]
    batch = inputs.shape[b]
    if batch is None:
      batch = _a.shape(inputs)[b]
    return zero_states(self.cell, batch, inputs.dtype)

  def compute_mask(self, inputs, mask=None):
    if isinstance(mask, (list, tuple)):
      mask = mask[0]
    out = mask if self.return_sequences else None
    if self.return_state:
      return [out] + [None] * len(_sizes(self.cell.state_size))
    return out

  def __call__(self, *args, **kwargs):
    constants = kwargs.get("constants")
    if constants is not None:
      constants = list(constants) if isinstance(constants, (list, tuple)) else [constants]
      kwargs["constants"] = constants
      self._num_constants = len(constants)
    elif self._num_constants and args and isinstance(args[0], (list, tuple)):
      # Keras' list form `layer([x, *initial_states, *constants])` of saved models.
      x = list(args[0])
      kwargs["constants"] = x[-self._num_constants:]
      args = ((x[:-self._num_constants] if len(x) > self._num_constants + 1
               else x[0]),) + args[1:]
    return super().__call__(*split_initial_state(args, kwargs), **kwargs)

  def call(self, inputs, mask=None, training=None, initial_state=None, constants=None):
    if type(inputs).__name__ == "RaggedTensor":
      return _ragged_call(self, inputs, training, initial_state, constants)
    if constants is not None:
      constants = [convert_to_tensor(c) if not isinstance(c, Tensor) else c
                   for c in nest.flatten(constants)]
      if not _takes_constants(self.cell):
        raise ValueError(f"RNN cell {self.cell} does not support constants. "
                         f"Received: constants={constants}")
    if isinstance(mask, (list, tuple)):
      mask = mask[0]
    n_states = len(_sizes(self.cell.state_size))
    if initial_state is not None:
      initial_state = [convert_to_tensor(s) if not isinstance(s, Tensor) else s
                       for s in nest.flatten(initial_state)]
      if len(initial_state) != n_states:
        raise ValueError(f"Layer {self.name} expects {n_states} state(s), but it received "
                         f"{len(initial_state)} initial state(s). Input received: "
                         f"{initial_state}"[:1000])
      initial_state = [_m.cast(s, inputs.dtype) if s.dtype != inputs.dtype else s
                       for s in initial_state]
    elif self.stateful:
      initial_state = [v.value() for v in self._tl_state_vars]
    else:
      initial_state = self.get_initial_state(inputs)
    last, seq, states = self._tl_run(inputs, initial_state, mask, training, constants)
    if self.stateful:
      for v, s in zip(self._tl_state_vars, states):
        v.assign(s)
    if seq is not None and not self.time_major:
      seq = _a.transpose(seq, [1, 0] + list(range(2, seq.shape.rank)))
    out = seq if self.return_sequences else last
    if self.return_state:
      return [out] + list(states)
    return out

  # ----------------------------------------------------------------- the loop
  def _tl_run(self, inputs, states, mask, training, constants=None):
    """(last output, outputs stacked over time or None, final states)."""
    xt = inputs if self.time_major else _a.transpose(
        inputs, [1, 0] + list(range(2, inputs.shape.rank)))
    if mask is not None:
      mask = convert_to_tensor(mask)
      if mask.dtype.name != "bool":
        mask = _m.cast(mask, "bool")
      mask = _a.transpose(mask, [1, 0]) if not self.time_major else mask
      want, got = xt.shape.as_list()[:2], mask.shape.as_list()
      if len(got) != 2 or any(w is not None and g is not None and w != g
                              for w, g in zip(want, got)):
        raise ValueError(f"The mask of layer {self.name} must have the shape of the input's "
                         f"batch and time axes {tuple(inputs.shape.as_list()[:2])}; received "
                         f"a mask with (time, batch) shape {tuple(got)}.")
      mask = _a.expand_dims(mask, -1)
    if self.go_backwards:
      xt = _a.reverse(xt, [0])
      if mask is not None:
        mask = _a.reverse(mask, [0])
    seq_step = getattr(self.cell, "_tl_sequence_step", None)
    cell = self.cell
    drawn = []
    if seq_step is not None and constants is None:
      xt, step, run_all = seq_step(xt, training)
      if run_all is not None and not self.unroll and xt.shape[0] != 0:
        done = run_all(xt, list(states), mask, self.zero_output_for_mask,
                       self.return_sequences)
        if done is not None:
          return done
    else:
      seq_step = None
      extra = {"constants": constants} if constants is not None else {}
      if xt.shape[0] != 0:
        drawn = _draw_dropout_masks(cell, xt[0], training)

      def step(x_t, st):
        out, new = cell(x_t, st, training=training, **extra)
        return out, (list(new) if isinstance(new, (list, tuple)) else [new])
    try:
      return _time_loop(step, xt, list(states), mask, self.return_sequences,
                        self.unroll, self.zero_output_for_mask, self._tl_out_zeros(states),
                        out_is_state=seq_step is not None)
    finally:
      for c in drawn:
        c._tl_masks = None

  def _tl_out_zeros(self, states):
    size = getattr(self.cell, "output_size", None)
    if size is None:
      return _a.zeros_like(states[0])
    batch = states[0].shape[0]
    if batch is None:
      batch = _a.shape(states[0])[0]
    return batch_zeros(batch, _dims(size), states[0].dtype)

  # ------------------------------------------------------------------ shapes
  def compute_output_shape(self, input_shape):
    if isinstance(input_shape, (list, tuple)) and input_shape and \
        isinstance(input_shape[0], (list, tuple, TensorShape)):
      input_shape = input_shape[0]
    shape = TensorShape(input_shape).as_list()
    b, t = self._tl_batch_and_time()
    size = getattr(self.cell, "output_size", None)
    if size is None:
      size = _sizes(self.cell.state_size)[0]
    if self.return_sequences:
      out = [shape[t], shape[b]] if self.time_major else [shape[b], shape[t]]
      out = TensorShape(out + _dims(size))
    else:
      out = TensorShape([shape[b]] + _dims(size))
    if self.return_state:
      return [out] + [TensorShape([shape[b]] + _dims(s)) for s in _sizes(self.cell.state_size)]
    return out

  # ------------------------------------------------------------------ config
  def get_config(self):
    config = super().get_config()
    config.update({"return_sequences": self.return_sequences,
                   "return_state": self.return_state, "go_backwards": self.go_backwards,
                   "stateful": self.stateful, "unroll": self.unroll,
                   "time_major": self.time_major})
    if self.zero_output_for_mask:
      config["zero_output_for_mask"] = True
    if self._num_constants:
      config["num_constants"] = self._num_constants
    if type(self) is RNN:
      config["cell"] = serialize_layer(self.cell)
    return config

  @classmethod
  def from_config(cls, config, custom_objects=None):
    config = dict(config)
    cell = deserialize_layer(config.pop("cell"), custom_objects)
    return cls(cell, **config)


def _time_loop(step, xt, states, mask, need_seq, unroll, zero_masked, out0,
               out_is_state=False):
  """Runs `step(x_t, states) -> (out, states)` over axis 0 of `xt`.

  Masked steps (mask False) keep the previous states and repeat the previous output
  (zeros where `zero_masked`). Returns (last output, stacked outputs or None, states).
  """
  steps = xt.shape[0]
  if ctx.graph is None or unroll:
    if steps is None:
      raise ValueError("Cannot unroll a RNN if the time dimension is undefined. \n- If using "
                       "a Sequential model, specify the time dimension by passing an "
                       "`input_shape` or `batch_input_shape` argument to your first layer. "
                       "If your first layer is an Embedding, you can also use the "
                       "`input_length` argument.\n- If using the functional API, specify the "
                       "time dimension by passing a `shape` or `batch_shape` argument to "
                       "your Input layer.")
    xs = _a.unstack(xt) if steps else []
    ms = _a.unstack(mask) if mask is not None and steps else None
    last, outs = out0, []
    for i in range(steps):
      out, new = step(xs[i], states)
      if ms is not None:
        m = ms[i]
        new = [_a.where(m, n, s) for n, s in zip(new, states)]
        out = _a.where(m, out, _a.zeros_like(out) if zero_masked else last)
      states, last = new, out
      outs.append(out)
    seq = (_a.stack(outs) if outs else None) if need_seq else None
    return last, seq, states
  from tensorlet.ops.control_flow_ops import while_loop
  from tensorlet.ops.tensor_array_ops import TensorArray
  n = _a.shape(xt)[0] if steps is None else steps
  xs = TensorArray(xt.dtype, size=n, element_shape=xt.shape[1:]).unstack(xt)
  ms = TensorArray(mask.dtype, size=n, element_shape=mask.shape[1:]).unstack(mask) \
      if mask is not None else None
  seq = TensorArray(out0.dtype, size=n, element_shape=out0.shape) if need_seq else None
  k = len(states)
  # NOTE: a built-in cell's output is its first state; without a mask the loop need not
  # carry the last output too (one loop variable and two gradient ops per step fewer).
  carry = ms is not None or not out_is_state

  def body(i, *rest):
    last = rest[0] if carry else None
    rest = rest[1:] if carry else rest
    st = list(rest[:k])
    out, new = step(xs.read(i), st)
    if ms is not None:
      m = ms.read(i)
      new = [_a.where(m, a, b) for a, b in zip(new, st)]
      out = _a.where(m, out, _a.zeros_like(out) if zero_masked else last)
    tail = [rest[k].write(i, out)] if need_seq else []
    return [i + 1] + ([out] if carry else []) + list(new) + tail

  loop_vars = [convert_to_tensor(np.int32(0))] + ([out0] if carry else []) + list(states) + \
      ([seq] if need_seq else [])
  res = list(while_loop(lambda i, *r: i < n, body, loop_vars))
  if not carry:
    res.insert(1, res[1])
  last, new = res[1], list(res[2:2 + k])
  out_seq = res[2 + k].stack() if need_seq else None
  if out_seq is not None and steps is not None:
    out_seq.set_shape([steps] + out0.shape.as_list())
  return last, out_seq, new


def _ragged_call(layer, inputs, training, initial_state, constants):
  """As Keras 2: a ragged batch runs padded, each row masked past its length; sequences
  come back ragged (for go_backwards, each row's outputs in the order they were made)."""
  if inputs.ragged_rank != 1:
    raise ValueError(f"The input of an RNN layer must be ragged in its time dimension only "
                     f"(ragged_rank 1), got ragged_rank {inputs.ragged_rank}")
  lengths = inputs.row_lengths()
  padded = inputs.to_tensor()
  mask = _a.sequence_mask(lengths, _a.shape(padded)[1])
  kwargs = {} if constants is None else {"constants": constants}
  out = layer.call(padded, mask=mask, training=training, initial_state=initial_state, **kwargs)
  if not layer.return_sequences:
    return out
  outs = out if layer.return_state else [out]
  seq = outs[0]
  if layer.go_backwards:
    seq = _a.reverse_sequence(_a.reverse(seq, [1]), lengths, seq_axis=1, batch_axis=0)
  from tensorlet.ragged import RaggedTensor
  seq = RaggedTensor.from_tensor(seq, lengths=lengths)
  return [seq] + list(outs[1:]) if layer.return_state else seq
