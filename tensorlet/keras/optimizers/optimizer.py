"""tf.keras.optimizers.Optimizer: Keras 2's (non-legacy) optimizer base.

A subclass names its slots and issues one fused update op per variable
(tensorlet/ops/training_ops.py). Slots are created on first use of a variable,
also while a tf.function is traced for the first time; `iterations` counts
applied steps and is read by the update ops themselves, so a step in a graph
costs one node per variable plus the increment.
"""
import warnings

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import clip_ops
from tensorlet.ops.registry import execute
from tensorlet.tensor import Tensor, convert_to_tensor
from tensorlet.train import checkpoint_hooks
from tensorlet.variables import Variable

__all__ = ["Optimizer"]

_BASE_KEYS = ("name", "weight_decay", "clipnorm", "global_clipnorm", "clipvalue", "use_ema",
              "ema_momentum", "ema_overwrite_frequency", "jit_compile")


class Optimizer:
  """Base class of Keras optimizers: `apply_gradients`, `minimize`, slots."""

  def __init__(self, name, weight_decay=None, clipnorm=None, clipvalue=None,
               global_clipnorm=None, use_ema=False, ema_momentum=0.99,
               ema_overwrite_frequency=None, jit_compile=False, **kwargs):
    for k in kwargs:
      if k == "lr":
        # NOTE: as Keras 2: `lr` is accepted with a warning and ignored.
        warnings.warn("`lr` is deprecated in Keras optimizer, please use `learning_rate`.",
                      stacklevel=3)
      elif k == "decay":
        raise ValueError(f"decay is deprecated in the new TF-Keras optimizer, please check "
                         f"the docstring for valid arguments, or use the legacy optimizer, "
                         f"e.g., tf.keras.optimizers.legacy.{type(self).__name__}.")
      else:
        raise TypeError(f"{k} is not a valid argument, kwargs should be empty  for "
                        f"`optimizer_experimental.Optimizer`.")
    if clipnorm is not None and global_clipnorm is not None:
      raise ValueError(f"At most one of `clipnorm` and `global_clipnorm` can be set. Received: "
                       f"clipnorm={clipnorm}, global_clipnorm={global_clipnorm}.")
    if use_ema:
      raise NotImplementedError("tensorlet's Keras optimizers do not implement use_ema=True "
                                "(exponential moving averages of the weights).")
    self.name = name
    self.weight_decay = weight_decay
    self.clipnorm = clipnorm
    self.clipvalue = clipvalue
    self.global_clipnorm = global_clipnorm
    self.use_ema = use_ema
    self.ema_momentum = ema_momentum
    self.ema_overwrite_frequency = ema_overwrite_frequency
    self.jit_compile = jit_compile
    self._iterations = Variable(0, name="iteration", dtype=_dt.int64, trainable=False)
    self._slots = {}       # id of a variable -> (variable, handles of it and its slots)
    self._slot_list = []   # (variable, slot name, slot variable) in creation order

  # ------------------------------------------------------------ properties
  @property
  def iterations(self):
    """The number of steps applied: an int64 tf.Variable."""
    return self._iterations

  @property
  def learning_rate(self):
    lr = self._learning_rate
    if isinstance(lr, Variable):
      return lr
    return lr(self._iterations)

  @learning_rate.setter
  def learning_rate(self, value):
    from tensorlet.keras.optimizers.schedules import LearningRateSchedule
    cur = getattr(self, "_learning_rate", None)
    if isinstance(value, LearningRateSchedule):
      self._learning_rate = value
    elif isinstance(cur, Variable):
      cur.assign(value)
    else:
      if not isinstance(value, (int, float, Tensor, Variable)) and \
          not hasattr(value, "dtype"):
        raise TypeError(f"`learning_rate` must be a number, a tensor or a "
                        f"LearningRateSchedule; received {value!r}.")
      self._learning_rate = Variable(value, name="learning_rate", dtype=_dt.float32,
                                     trainable=False)

  lr = learning_rate

  @property
  def variables(self):
    """`iterations` then the slot variables in creation order."""
    return [self._iterations] + [s for _, _, s in self._slot_list]

  def _tl_slot_variables(self):
    return iter(self._slot_list)

  def _tl_checkpoint_children(self):
    out = [("iter", self._iterations)]
    if isinstance(self._learning_rate, Variable):
      out.append(("learning_rate", self._learning_rate))
    return out

  # ----------------------------------------------------------------- slots
  def _slot_specs(self):
    """[(slot name, initial value)] for each variable; subclasses override."""
    return []

  def build(self, var_list):
    """Creates the slots of every variable in `var_list` (done on first use anyway)."""
    for v in var_list:
      if id(v) not in self._slots:
        self._create_slots(v)

  def _create_slots(self, var):
    handles = [var._handle]
    base = var._name
    for slot, init in self._slot_specs():
      value = _filled(var, init)
      s = Variable(value, name=f"{self.name}/{slot}/{base}", dtype=var.dtype, trainable=False)
      self._slot_list.append((var, slot, s))
      handles.append(s._handle)
      checkpoint_hooks.slot_created(self, slot, var, s)
    entry = self._slots[id(var)] = (var, tuple(handles))
    return entry

  # ------------------------------------------------------------- updating
  def _update(self, grad, handles, lr):
    """Issues the update of one variable (handles: the variable, then its slots)."""
    raise NotImplementedError(f"{type(self).__name__} must implement _update.")

  def apply_gradients(self, grads_and_vars, name=None, skip_gradients_aggregation=False,
                      **kwargs):
    """Applies one step to each (gradient, variable) pair; returns `iterations`."""
    pairs = list(grads_and_vars)
    if not pairs:
      return self._iterations
    grads, variables = self._filter(pairs)
    if self.clipnorm is not None or self.clipvalue is not None or \
        self.global_clipnorm is not None:
      grads = self._clip(grads)
    lr = self._learning_rate
    lr = lr._handle if isinstance(lr, Variable) else convert_to_tensor(lr(self._iterations),
                                                                       _dt.float32)
    slots = self._slots
    for g, v in zip(grads, variables):
      entry = slots.get(id(v))
      if entry is None or entry[0] is not v:
        entry = self._create_slots(v)
      if not isinstance(g, Tensor):
        g = convert_to_tensor(g, v.dtype)
      elif g._dtype is not v._dtype:
        raise InvalidArgumentError(
            None, None, f"{type(self).__name__}.apply_gradients: the gradient of variable "
            f"'{v.name}' has dtype {g.dtype.name}, the variable {v.dtype.name}.")
      if self.weight_decay:
        v.assign_sub(v * (float(self.weight_decay) * _lr_value(lr)))
      self._update(g, entry[1], lr)
      if v.constraint is not None:  # Keras 2: projected right after the variable's update
        v.assign(v.constraint(v))
    self._iterations.assign_add(1)
    return self._iterations

  def _filter(self, pairs):
    grads, variables = [], []
    missing = []
    for g, v in pairs:
      if not isinstance(v, Variable):
        raise TypeError(f"apply_gradients expects (gradient, tf.Variable) pairs; received a "
                        f"{type(v).__name__} in the place of a variable.")
      if g is None:
        missing.append(v)
        continue
      grads.append(g)
      variables.append(v)
    if not grads:
      raise ValueError(f"No gradients provided for any variable: "
                       f"({[v.name for _, v in pairs]},). Provided `grads_and_vars` is "
                       f"{tuple(pairs)}.")
    if missing:
      warnings.warn(f"Gradients do not exist for variables {[v.name for v in missing]} when "
                    f"minimizing the loss. If you're using `model.compile()`, did you forget "
                    f"to provide a `loss` argument?", stacklevel=3)
    return grads, variables

  def _clip(self, grads):
    if self.clipnorm is not None:
      grads = [clip_ops.clip_by_norm(g, self.clipnorm) for g in grads]
    if self.global_clipnorm is not None:
      grads = clip_ops.clip_by_global_norm(grads, self.global_clipnorm)[0]
    if self.clipvalue is not None:
      grads = [clip_ops.clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
    return grads

  def compute_gradients(self, loss, var_list, tape=None):
    """(gradient, variable) pairs of `loss` (a tensor with `tape`, or a callable)."""
    from tensorlet.autodiff.tape import GradientTape
    if not callable(loss) and tape is None:
      raise ValueError(f"`tape` is required when a `Tensor` loss is passed. Received: "
                       f"loss={loss}, tape={tape}.")
    if tape is None:
      tape = GradientTape()
    if callable(loss):
      with tape:
        if not callable(var_list):
          tape.watch(var_list)
        loss = loss()
        if callable(var_list):
          var_list = var_list()
    var_list = list(var_list)
    grads = tape.gradient(loss, var_list)
    return list(zip(grads, var_list))

  def minimize(self, loss, var_list, tape=None):
    """Computes the gradients of `loss` and applies them; returns `iterations`."""
    return self.apply_gradients(self.compute_gradients(loss, var_list, tape))

  # --------------------------------------------------------------- config
  def get_config(self):
    config = {k: getattr(self, k) for k in _BASE_KEYS}
    config["is_legacy_optimizer"] = False
    lr = self._learning_rate
    if isinstance(lr, Variable):
      config["learning_rate"] = lr.numpy()
    else:
      from tensorlet.keras.optimizers import schedules
      config["learning_rate"] = schedules.serialize(lr)
    return config

  @classmethod
  def from_config(cls, config, custom_objects=None):
    config = dict(config)
    config.pop("is_legacy_optimizer", None)
    lr = config.get("learning_rate")
    if isinstance(lr, dict):
      from tensorlet.keras.optimizers import schedules
      config["learning_rate"] = schedules.deserialize(lr, custom_objects)
    return cls(**config)


def _filled(var, value):
  return np.full(np.shape(var._value), value, dtype=var.dtype.as_numpy_dtype)


def _lr_value(lr):
  from tensorlet.ops.state_ops import variable_of
  if getattr(lr, "dtype", None) is _dt.resource:
    return variable_of(lr).read_value()
  return lr
