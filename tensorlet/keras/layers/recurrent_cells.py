"""SimpleRNN, LSTM and GRU: their cells and the layers that run them over time.

Weights follow Keras 2 so `get_weights`/`set_weights` line up with it: `kernel`
(input_dim, gates * units), `recurrent_kernel` (units, gates * units), `bias`;
LSTM gates in the order i, f, c, o; GRU gates z, r, h with, by default
(`reset_after=True`), a (2, 3 * units) bias: input bias then recurrent bias.
"""
from tensorlet.keras import activations, constraints, initializers, regularizers
from tensorlet.keras.engine.base_layer import Layer
from tensorlet.keras.layers._util import smart_cond
from tensorlet.keras.layers.core import _config
from tensorlet.keras.layers.recurrent import RNN, _sizes, batch_zeros
from tensorlet.ops import array_ops as _a
from tensorlet.ops import gru_sequence_ops
from tensorlet.ops import math_ops as _m
from tensorlet.ops import nn_ops as _nn
from tensorlet.ops import rnn_ops
from tensorlet.ops import rnn_sequence_ops
from tensorlet.tensor_shape import TensorShape

__all__ = ["SimpleRNNCell", "LSTMCell", "GRUCell", "SimpleRNN", "LSTM", "GRU"]


def _units(units):
  if not isinstance(units, int) or isinstance(units, bool):
    try:
      ok = int(units) == units
    except (TypeError, ValueError):
      ok = False
    if not ok:
      raise TypeError(f"Received an invalid value for argument `units`, expected a positive "
                      f"integer, got {units!r}.")
    units = int(units)
  if units <= 0:
    raise ValueError(f"Received an invalid value for argument `units`, expected a positive "
                     f"integer, got {units}.")
  return units


def _rate(value, name):
  try:
    value = float(value)
  except (TypeError, ValueError):
    raise TypeError(f"Argument `{name}` must be a float between 0 and 1, got "
                    f"{value!r}.") from None
  return min(1.0, max(0.0, value))  # NOTE: Keras 2 clips rather than rejecting


def _matmul_last(x, w):
  """`x @ w` over the last axis of a rank-2 or rank-3 `x`."""
  if x.shape.rank == 2:
    return _m.matmul(x, w)
  dims = x.shape.as_list()
  y = _m.matmul(_a.reshape(x, [-1, dims[-1]]), w)
  if None in dims[:-1]:
    lead = _a.shape(x)[:-1]
    out = _a.reshape(y, _a.concat([lead, [w.shape[-1]]], 0))
    out.set_shape(dims[:-1] + [w.shape[-1]])
    return out
  return _a.reshape(y, dims[:-1] + [w.shape[-1]])


class _Cell(Layer):
  """Options and dropout masks shared by the three built-in cells."""

  _GATES = 1
  _CONFIG_KEYS = ()

  def __init__(self, units, activation="tanh", recurrent_activation=None, use_bias=True,
               kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
               bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
               bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
               bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, **kwargs):
    self.implementation = kwargs.pop("implementation", 2)
    super().__init__(**kwargs)
    self.units = _units(units)
    self.activation = activations.get(activation)
    self.recurrent_activation = activations.get(recurrent_activation) \
        if recurrent_activation is not None else None
    self.use_bias = bool(use_bias)
    self.kernel_initializer = initializers.get(kernel_initializer)
    self.recurrent_initializer = initializers.get(recurrent_initializer)
    self.bias_initializer = initializers.get(bias_initializer)
    self.kernel_regularizer = regularizers.get(kernel_regularizer)
    self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
    self.bias_regularizer = regularizers.get(bias_regularizer)
    self.kernel_constraint = constraints.get(kernel_constraint)
    self.recurrent_constraint = constraints.get(recurrent_constraint)
    self.bias_constraint = constraints.get(bias_constraint)
    self.dropout = _rate(dropout, "dropout")
    self.recurrent_dropout = _rate(recurrent_dropout, "recurrent_dropout")
    self._tl_masks = None  # set by `_tl_sequence_step` for one run over a sequence

  @property
  def output_size(self):
    return self.units

  def _tl_weight(self, name, shape, init, reg, con):
    return self.add_weight(name, shape=shape, initializer=init, regularizer=reg,
                           constraint=con)

  def build(self, input_shape):
    dim = TensorShape(input_shape)[-1]
    if dim is None:
      raise ValueError(f"The last dimension of the inputs to `{type(self).__name__}` should "
                       f"be defined. Found None. Full input shape received: {input_shape}")
    k = self._GATES * self.units
    self.kernel = self._tl_weight("kernel", [dim, k], self.kernel_initializer,
                                  self.kernel_regularizer, self.kernel_constraint)
    self.recurrent_kernel = self._tl_weight("recurrent_kernel", [self.units, k],
                                            self.recurrent_initializer,
                                            self.recurrent_regularizer,
                                            self.recurrent_constraint)
    self.bias = self._tl_weight("bias", self._tl_bias_shape(), self._tl_bias_init(),
                                self.bias_regularizer, self.bias_constraint) \
        if self.use_bias else None
    self.built = True

  def _tl_bias_shape(self):
    return [self._GATES * self.units]

  def _tl_bias_init(self):
    return self.bias_initializer

  # ---------------------------------------------------------------- dropout
  def _tl_dropout_masks(self, x_like, h_like, training):
    """Masks for the inputs and the recurrent state, drawn once per sequence."""
    if self._tl_masks is not None:
      return self._tl_masks
    if training is None or training is False:
      return None, None

    def mask(like, rate):
      if not 0 < rate < 1:
        return None
      ones = _a.ones_like(like)
      return smart_cond(training, lambda: _nn.dropout(ones, rate), lambda: ones)
    return mask(x_like, self.dropout), mask(h_like, self.recurrent_dropout)

  # ------------------------------------------------------------------- call
  def _tl_project(self, x):
    """The input part of every gate: `x @ kernel + bias` (the input bias for GRU)."""
    out = _matmul_last(x, self.kernel)
    if self.use_bias:
      out = _nn.bias_add(out, self._tl_input_bias())
    return out

  def _tl_input_bias(self):
    return self.bias

  def call(self, inputs, states, training=None):
    states = list(states) if isinstance(states, (list, tuple)) else [states]
    dp, rdp = self._tl_dropout_masks(inputs, states[0], training)
    if dp is not None:
      inputs = inputs * dp
    return self._tl_recur(self._tl_project(inputs), states, rdp)

  def _tl_sequence_step(self, xt, training):
    """(all time steps projected at once, the step on one projected slice) for time-major
    inputs `xt`; the dropout masks are the same for every step, as in Keras."""
    dp = rdp = None
    if self.dropout or self.recurrent_dropout:
      batch = xt.shape[1] if xt.shape[1] is not None else _a.shape(xt)[1]
      h_like = batch_zeros(batch, [self.units], xt.dtype)
      dp, rdp = self._tl_dropout_masks(xt[0], h_like, training)
    if dp is not None:
      xt = xt * dp
    xp = self._tl_project(xt)
    return xp, lambda x_t, st: self._tl_recur(x_t, st, rdp), \
        lambda xp, st, mask, zero_masked, need_seq: self._tl_run_all(
            xp, st, mask, zero_masked, need_seq, rdp)

  def _tl_run_all(self, xp, states, mask, zero_masked, need_seq, rdp):
    """(last output, outputs at every step or None, final states) of all steps of the
    projected `xp` in one op, or None where this cell has no such op. `mask`: None or
    [time, batch, 1] booleans; `zero_masked`: masked steps output zeros, not the last
    output; `rdp`: None or the recurrent dropout mask."""
    return None

  def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
    dtype = dtype or self._tl_dtype
    return [batch_zeros(batch_size, [self.units], dtype) for _ in _sizes(self.state_size)]

  def get_config(self):
    config = super().get_config()
    config["units"] = self.units
    config["activation"] = activations.serialize(self.activation)
    if self.recurrent_activation is not None:
      config["recurrent_activation"] = activations.serialize(self.recurrent_activation)
    config.update({
        "use_bias": self.use_bias,
        "kernel_initializer": _config(self.kernel_initializer),
        "recurrent_initializer": _config(self.recurrent_initializer),
        "bias_initializer": _config(self.bias_initializer)})
    config.update({k: getattr(self, k) for k in self._CONFIG_KEYS if k == "unit_forget_bias"})
    config.update({
        "kernel_regularizer": _config(self.kernel_regularizer),
        "recurrent_regularizer": _config(self.recurrent_regularizer),
        "bias_regularizer": _config(self.bias_regularizer),
        "kernel_constraint": _config(self.kernel_constraint),
        "recurrent_constraint": _config(self.recurrent_constraint),
        "bias_constraint": _config(self.bias_constraint),
        "dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout})
    if "implementation" in self._CONFIG_KEYS:
      config["implementation"] = self.implementation
    config.update({k: getattr(self, k) for k in self._CONFIG_KEYS if k == "reset_after"})
    return config


def _masked_outputs(hs, mask, zero_masked, need_seq):
  """(last output, outputs at every step) of a one-op RNN from its state h at every step.
  A masked step outputs zeros (zero_masked) or the last output: the state of the last
  unmasked step, zeros before the first one."""
  if mask is None:
    return hs[-1], hs
  if zero_masked:
    shown = mask
  else:
    shown = _m.cumsum(_m.cast(mask, "int32"), axis=0) > 0
  seq = _a.where(shown, hs, _a.zeros_like(hs)) if need_seq else None
  h = hs[-1]
  return _a.where(shown[-1], h, _a.zeros_like(h)), seq


class SimpleRNNCell(_Cell):
  """`h = activation(x @ kernel + h_prev @ recurrent_kernel + bias)`."""

  def __init__(self, units, activation="tanh", use_bias=True,
               kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
               bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
               bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
               bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, **kwargs):
    super().__init__(units, activation, None, use_bias, kernel_initializer,
                     recurrent_initializer, bias_initializer, kernel_regularizer,
                     recurrent_regularizer, bias_regularizer, kernel_constraint,
                     recurrent_constraint, bias_constraint, dropout, recurrent_dropout,
                     **kwargs)

  @property
  def state_size(self):
    return self.units

  def _tl_recur(self, xp, states, rdp):
    h = states[0]
    if rdp is not None:
      h = h * rdp
    out = xp + _m.matmul(h, self.recurrent_kernel)
    if self.activation is not activations.linear:
      out = self.activation(out)
    return out, [out]


class _ForgetBias:
  """LSTM's `unit_forget_bias`: the bias initializer's values with ones for the forget
  gate."""

  def __init__(self, init, units):
    self.init, self.units = init, units

  def __call__(self, shape, dtype=None, **kwargs):
    u = self.units
    return _a.concat([self.init([u], dtype=dtype), _a.ones([u], dtype=dtype),
                      self.init([2 * u], dtype=dtype)], 0)


class LSTMCell(_Cell):
  """Long short-term memory: gates i, f, c, o from one matmul each of inputs and state."""

  _GATES = 4
  _CONFIG_KEYS = ("unit_forget_bias", "implementation")

  def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
               kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
               bias_initializer="zeros", unit_forget_bias=True, kernel_regularizer=None,
               recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
               recurrent_constraint=None, bias_constraint=None, dropout=0.0,
               recurrent_dropout=0.0, **kwargs):
    super().__init__(units, activation, recurrent_activation, use_bias, kernel_initializer,
                     recurrent_initializer, bias_initializer, kernel_regularizer,
                     recurrent_regularizer, bias_regularizer, kernel_constraint,
                     recurrent_constraint, bias_constraint, dropout, recurrent_dropout,
                     **kwargs)
    self.unit_forget_bias = bool(unit_forget_bias)

  @property
  def state_size(self):
    return [self.units, self.units]

  def _tl_bias_init(self):
    if self.unit_forget_bias:
      return _ForgetBias(self.bias_initializer, self.units)
    return self.bias_initializer

  def _tl_fused(self):
    return self.activation is activations.tanh and \
        self.recurrent_activation is activations.sigmoid

  def _tl_run_all(self, xp, states, mask, zero_masked, need_seq, rdp):
    if not self._tl_fused():
      return None
    hs, cs = rnn_sequence_ops.lstm_sequence(xp, states[0], states[1], self.recurrent_kernel,
                                            mask, rdp)
    last, seq = _masked_outputs(hs, mask, zero_masked, need_seq)
    return last, seq, [hs[-1], cs[-1]]

  def _tl_recur(self, xp, states, rdp):
    h, c = states[0], states[1]
    if rdp is not None:
      h = h * rdp
    if self._tl_fused():
      # the default activations: one fused kernel per step, matmul included
      h, c = rnn_ops.lstm_step(xp, h, c, self.recurrent_kernel)
      return h, [h, c]
    z = xp + _m.matmul(h, self.recurrent_kernel)
    i, f, g, o = _a.split(z, 4, axis=-1)
    ra = self.recurrent_activation
    c = ra(f) * c + ra(i) * self.activation(g)
    h = ra(o) * self.activation(c)
    return h, [h, c]


class GRUCell(_Cell):
  """Gated recurrent unit: update gate z, reset gate r, candidate h (Keras 2 order)."""

  _GATES = 3
  _CONFIG_KEYS = ("implementation", "reset_after")

  def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
               kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
               bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
               bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
               bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, reset_after=True,
               **kwargs):
    super().__init__(units, activation, recurrent_activation, use_bias, kernel_initializer,
                     recurrent_initializer, bias_initializer, kernel_regularizer,
                     recurrent_regularizer, bias_regularizer, kernel_constraint,
                     recurrent_constraint, bias_constraint, dropout, recurrent_dropout,
                     **kwargs)
    self.reset_after = bool(reset_after)

  @property
  def state_size(self):
    return self.units

  def _tl_bias_shape(self):
    return [2, 3 * self.units] if self.reset_after else [3 * self.units]

  def _tl_input_bias(self):
    return self.bias[0] if self.reset_after else self.bias

  def _tl_run_all(self, xp, states, mask, zero_masked, need_seq, rdp):
    if not (self.reset_after and self.activation is activations.tanh and
            self.recurrent_activation is activations.sigmoid):
      return None
    rb = self.bias[1] if self.use_bias else _a.zeros([3 * self.units], xp.dtype)
    hs = gru_sequence_ops.gru_sequence(xp, states[0], self.recurrent_kernel, rb, mask, rdp)
    last, seq = _masked_outputs(hs, mask, zero_masked, need_seq)
    return last, seq, [hs[-1]]

  def _tl_recur(self, xp, states, rdp):
    h = states[0]
    hd = h * rdp if rdp is not None else h
    ra, u = self.recurrent_activation, self.units
    xz, xr, xh = _a.split(xp, 3, axis=-1)
    if self.reset_after:
      hr = _m.matmul(hd, self.recurrent_kernel)
      if self.use_bias:
        hr = _nn.bias_add(hr, self.bias[1])
      rz, rr, rh = _a.split(hr, 3, axis=-1)
      z = ra(xz + rz)
      r = ra(xr + rr)
      hh = self.activation(xh + r * rh)
    else:
      rk = self.recurrent_kernel
      zr = _m.matmul(hd, rk[:, :2 * u])
      rz, rr = _a.split(zr, 2, axis=-1)
      z = ra(xz + rz)
      r = ra(xr + rr)
      hh = self.activation(xh + _m.matmul(r * hd, rk[:, 2 * u:]))
    h = z * h + (1 - z) * hh
    return h, [h]


# ------------------------------------------------------------------- layers

_CELL_ARGS = ("units", "activation", "recurrent_activation", "use_bias", "kernel_initializer",
              "recurrent_initializer", "bias_initializer", "unit_forget_bias",
              "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
              "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout",
              "recurrent_dropout", "implementation", "reset_after")


class _CellLayer(RNN):
  """SimpleRNN/LSTM/GRU: an RNN over its own cell, configured by the cell's arguments."""

  _CELL = None
  _CELL_NAME = None

  def __init__(self, cell_kwargs, return_sequences, return_state, go_backwards, stateful,
               unroll, time_major, activity_regularizer, kwargs):
    cell = self._CELL(name=self._CELL_NAME, dtype=kwargs.get("dtype"),
                      trainable=kwargs.get("trainable", True), **cell_kwargs)
    super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                     go_backwards=go_backwards, stateful=stateful, unroll=unroll,
                     time_major=time_major, activity_regularizer=activity_regularizer,
                     **kwargs)
    self.input_spec.ndim, self.input_spec.min_ndim = 3, None

  def get_config(self):
    config = super().get_config()
    cell = self.cell.get_config()
    for k in ("name", "trainable", "dtype", "batch_input_shape"):
      cell.pop(k, None)
    for k, v in cell.items():
      config[k] = v
    config["activity_regularizer"] = _config(self.activity_regularizer)
    # NOTE: Keras 2 lists activity_regularizer among the regularizers
    order = [k for k in config if k != "activity_regularizer"]
    at = order.index("bias_regularizer") + 1 if "bias_regularizer" in order else len(order)
    order.insert(at, "activity_regularizer")
    return {k: config[k] for k in order}

  @classmethod
  def from_config(cls, config, custom_objects=None):
    return cls(**config)


def _forward(name):
  return property(lambda self: getattr(self.cell, name))


for _name in _CELL_ARGS:
  if _name not in ("implementation",):
    setattr(_CellLayer, _name, _forward(_name))
_CellLayer.implementation = property(lambda self: self.cell.implementation)


def _cell_kwargs(args, kwargs):
  """The cell's arguments among a layer constructor's `locals()` (`implementation` comes
  in `kwargs`)."""
  cell = {k: args[k] for k in _CELL_ARGS if k in args}
  if "implementation" in kwargs:
    cell["implementation"] = kwargs.pop("implementation")
  return cell


class SimpleRNN(_CellLayer):
  """A fully connected RNN whose output is fed back as its next input state."""

  _CELL = SimpleRNNCell
  _CELL_NAME = "simple_rnn_cell"

  def __init__(self, units, activation="tanh", use_bias=True,
               kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
               bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
               bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
               recurrent_constraint=None, bias_constraint=None, dropout=0.0,
               recurrent_dropout=0.0, return_sequences=False, return_state=False,
               go_backwards=False, stateful=False, unroll=False, **kwargs):
    time_major = kwargs.pop("time_major", False)
    cell_kwargs = _cell_kwargs(locals(), kwargs)
    cell_kwargs.pop("implementation", None)
    super().__init__(cell_kwargs, return_sequences, return_state, go_backwards, stateful,
                     unroll, time_major, activity_regularizer, kwargs)


class LSTM(_CellLayer):
  """Long short-term memory layer (Hochreiter 1997), Keras 2's weights and defaults."""

  _CELL = LSTMCell
  _CELL_NAME = "lstm_cell"

  def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
               kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
               bias_initializer="zeros", unit_forget_bias=True, kernel_regularizer=None,
               recurrent_regularizer=None, bias_regularizer=None, activity_regularizer=None,
               kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
               dropout=0.0, recurrent_dropout=0.0, return_sequences=False, return_state=False,
               go_backwards=False, stateful=False, time_major=False, unroll=False, **kwargs):
    cell_kwargs = _cell_kwargs(locals(), kwargs)
    super().__init__(cell_kwargs, return_sequences, return_state, go_backwards, stateful,
                     unroll, time_major, activity_regularizer, kwargs)


class GRU(_CellLayer):
  """Gated recurrent unit layer (Cho 2014); `reset_after=True` as Keras 2 (cuDNN layout)."""

  _CELL = GRUCell
  _CELL_NAME = "gru_cell"

  def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
               kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
               bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
               bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
               recurrent_constraint=None, bias_constraint=None, dropout=0.0,
               recurrent_dropout=0.0, return_sequences=False, return_state=False,
               go_backwards=False, stateful=False, unroll=False, time_major=False,
               reset_after=True, **kwargs):
    cell_kwargs = _cell_kwargs(locals(), kwargs)
    super().__init__(cell_kwargs, return_sequences, return_state, go_backwards, stateful,
                     unroll, time_major, activity_regularizer, kwargs)
