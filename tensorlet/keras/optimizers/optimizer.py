"""tf.keras.optimizers.Optimizer: Keras 2's (non-legacy) optimizer base.

A subclass names its slots and issues one fused update op per variable
(tensorlet/ops/training_ops.py). Slots are created on first use of a variable,
also while a tf.function is traced for the first time; `iterations` counts
applied steps and is read by the update ops themselves, so a step in a graph
costs one node per variable plus the increment.

`apply_gradients` checks every gradient (type, dtype, shape) before it
creates a slot or changes a variable, so a bad pair anywhere in the list
leaves variables, slots and `iterations` as they were. Then, in Keras 2's
order: clipping (clipnorm, else global_clipnorm, else clipvalue), weight decay
(var -= var * weight_decay * lr), the updates, the moving averages of
`use_ema`, constraints, and the step count.
"""
import re
import sys
import warnings

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.context import ctx, name_scope
from tensorlet.errors import InvalidArgumentError
from tensorlet.indexed_slices import IndexedSlices, to_dense
from tensorlet.ops import clip_ops, training_ops
from tensorlet.ops.registry import execute
from tensorlet.tensor import Tensor, convert_to_tensor
from tensorlet.train import checkpoint_hooks
from tensorlet.variables import Variable

__all__ = ["Optimizer"]

_BASE_KEYS = ("name", "weight_decay", "clipnorm", "global_clipnorm", "clipvalue", "use_ema",
              "ema_momentum", "ema_overwrite_frequency", "jit_compile")


def _replica_merged(apply):
  """`apply_gradients` that, in a replica function of a strategy with several replicas,
  sums the replicas' gradients (one fused all-reduce for all of them, unless
  skip_gradients_aggregation) and applies the step once, in cross-replica context."""
  def apply_gradients(self, grads_and_vars, name=None, skip_gradients_aggregation=False,
                      **kwargs):
    dist = sys.modules.get("tensorlet.distribute._state")  # (None: tf.distribute unused)
    r = dist.state.replica if dist is not None else None
    if r is None or not r._needs_merge:
      return apply(self, grads_and_vars, name, skip_gradients_aggregation, **kwargs)

    def merge(strategy, pairs):
      from tensorlet.distribute.reduce_util import ReduceOp
      from tensorlet.distribute.values import local_values
      grads = [g for g, _ in pairs]
      live = [i for i, g in enumerate(grads) if g is not None]
      if skip_gradients_aggregation:
        reduced = [local_values(grads[i])[0] for i in live]
      else:
        reduced = strategy.extended.batch_reduce_to(ReduceOp.SUM, [grads[i] for i in live])
      for i, g in zip(live, reduced):
        grads[i] = g
      return apply(self, list(zip(grads, [v for _, v in pairs])), name, True, **kwargs)
    return r.merge_call(merge, args=([tuple(p) for p in grads_and_vars],))
  apply_gradients.__doc__ = apply.__doc__
  apply_gradients._tl_local_apply = apply
  return apply_gradients


class Optimizer:
  """Base class of Keras optimizers: `apply_gradients`, `minimize`, slots."""

  def __init_subclass__(cls, **kwargs):
    super().__init_subclass__(**kwargs)
    fn = cls.__dict__.get("apply_gradients")
    if fn is not None and not hasattr(fn, "_tl_local_apply"):
      cls.apply_gradients = _replica_merged(fn)

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
      if not 0 <= ema_momentum <= 1:
        raise ValueError(f"`ema_momentum` must be in the range [0, 1]. Received: "
                         f"ema_momentum={ema_momentum}")
      if ema_overwrite_frequency and (not isinstance(ema_overwrite_frequency, int) or
                                      ema_overwrite_frequency < 1):
        raise ValueError(f"`ema_overwrite_frequency` must be an integer > 1 or None. "
                         f"Received: ema_overwrite_frequency={ema_overwrite_frequency}")
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
    self._averages = {}    # id of a variable -> its moving average (use_ema)
    self._exclude_ids, self._exclude_names = set(), []

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

  # Slots created in separate loops over the variables by Keras 2's `build`
  # (RMSprop), which orders `variables`; None: all of a variable's slots together.
  _SLOT_GROUPS = None

  @property
  def variables(self):
    """`iterations`, then the slot variables in Keras 2's order: the EMA averages, then
    each variable's slots (or, where Keras builds them in separate loops, each kind of
    slot for every variable in turn)."""
    slots = [(v, n, s) for v, n, s in self._slot_list if n != "average"]
    out = [self._iterations] + [s for _, n, s in self._slot_list if n == "average"]
    if self._SLOT_GROUPS is None:
      return out + [s for _, _, s in slots]
    for group in self._SLOT_GROUPS:
      out += [s for _, n, s in slots if n in group]
    return out

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
    if self.use_ema:
      avg = Variable(np.array(var._value, copy=True), name=f"{self.name}/average/{base}",
                     dtype=var.dtype, trainable=False)
      self._slot_list.append((var, "average", avg))
      self._averages[id(var)] = avg
      checkpoint_hooks.slot_created(self, "average", var, avg)
    entry = self._slots[id(var)] = (var, tuple(handles))
    return entry

  def exclude_from_weight_decay(self, var_list=None, var_names=None):
    """Variables (or variables whose name matches one of the `var_names` patterns) that
    weight decay leaves alone; set before the first step."""
    if self._slots:
      raise ValueError("`exclude_from_weight_decay()` can only be configued before the "
                       "optimizer is built.")
    self._exclude_ids = {id(v) for v in var_list or ()}
    self._exclude_names = list(var_names or ())

  def _use_weight_decay(self, var):
    if id(var) in self._exclude_ids:
      return False
    return not any(re.search(n, var.name) is not None for n in self._exclude_names)

  # ------------------------------------------------------------- updating
  def _update(self, grad, handles, lr):
    """Issues the update of one variable (handles: the variable, then its slots)."""
    raise NotImplementedError(f"{type(self).__name__} must implement _update.")

  # How an IndexedSlices gradient updates (Keras 2): None: as the dense gradient of its
  # summed rows (every rule of the current optimizers comes to that); "rows": the
  # variable and slots at the gradient's rows only; "var_rows": the slots take the dense
  # step and the variable changes at the gradient's rows only (legacy Nadam).
  _SPARSE_RULE = None
  _sparse_rows = None  # while an update runs on rows: (rule, unique indices, handles)

  def _sparse_rule(self):
    return self._SPARSE_RULE

  def _update_sparse(self, grad, handles, lr):
    """Keras 2 clips an IndexedSlices by its values, then sums the rows of repeated
    indices before the update."""
    rule = self._sparse_rule()
    if rule is None:
      self._update(to_dense(grad), handles, lr)
      return
    from tensorlet.ops import array_ops, math_ops
    rows, pos = array_ops.unique(grad.indices)
    values = math_ops.unsorted_segment_sum(grad.values, pos, array_ops.shape(rows)[0])
    g = values if rule == "rows" else to_dense(IndexedSlices(values, rows, grad.dense_shape))
    self._sparse_rows = (rule, rows, handles)
    try:
      self._update(g, handles, lr)
    finally:
      self._sparse_rows = None

  def _execute(self, od, inputs, attrs=None):
    """Runs an update op; inside `_update_sparse` with a rule, on the gradient's rows."""
    attrs = attrs or {}
    if self._sparse_rows is None:
      return execute(od, inputs, attrs)
    rule, rows, handles = self._sparse_rows
    sliced = tuple(i for i, t in enumerate(inputs) if any(t is h for h in handles))
    return execute(training_ops.ResourceSparseApplyRows, list(inputs) + [rows],
                   {"dense": od.name, "dense_attrs": attrs, "sliced": sliced,
                    "var_rows_only": rule == "var_rows"})

  def apply_gradients(self, grads_and_vars, name=None, skip_gradients_aggregation=False,
                      **kwargs):
    """Applies one step to each (gradient, variable) pair; returns `iterations`."""
    pairs = list(grads_and_vars)
    if not pairs:
      return self._iterations
    grads, variables = self._filter(pairs)
    grads = [self._checked(g, v) for g, v in zip(grads, variables)]
    slots = self._slots
    entries = []
    for v in variables:
      entry = slots.get(id(v))
      if entry is None or entry[0] is not v:
        entry = self._create_slots(v)
      entries.append(entry)
    if ctx.graph is None:
      return self._apply(grads, variables, entries)
    # NOTE: as Keras, a traced step's update ops go under the optimizer's name
    # scope ("Adam/..."), so TensorBoard groups them apart from the model.
    with name_scope(name or self.name):
      return self._apply(grads, variables, entries)

  apply_gradients = _replica_merged(apply_gradients)

  def _apply(self, grads, variables, entries):
    if self.clipnorm or self.clipvalue or self.global_clipnorm:
      grads = self._clip(grads)
    lr = self._lr_input()
    self._before_updates(variables)
    if self.weight_decay:
      decay = float(self.weight_decay) * _lr_value(lr)
      for v in variables:
        if self._use_weight_decay(v):
          v.assign_sub(v * _cast_like(decay, v))
    for g, entry in zip(grads, entries):
      if type(g) is IndexedSlices:
        self._update_sparse(g, entry[1], lr)
      else:
        self._update(g, entry[1], lr)
    if self.use_ema:
      self._update_averages(variables)
    for v in variables:
      if v.constraint is not None:  # Keras 2: projected after every update
        v.assign(v.constraint(v))
    self._iterations.assign_add(1)
    return self._iterations

  def _lr_input(self):
    """The learning rate the update ops read: the variable's handle or a schedule's value."""
    lr = self._learning_rate
    if isinstance(lr, Variable):
      return lr._handle
    return convert_to_tensor(lr(self._iterations), _dt.float32)

  def _before_updates(self, variables):
    """Called once per step after the checks and before any update (Nadam's product)."""

  def _checked(self, g, v):
    """`g` as a tensor of `v`'s dtype and shape, or the error TF raises for the pair."""
    who = f"{type(self).__name__}.apply_gradients"
    if type(g) is IndexedSlices:
      if g.dtype is not v._dtype:
        raise InvalidArgumentError(
            None, None, f"{who}: the gradient of variable '{v.name}' has dtype "
            f"{g.dtype.name}, the variable {v.dtype.name}.")
      if g.dense_shape is None:  # Keras 2 updates the variable's rows all the same
        from tensorlet.ops import array_ops
        shape = v.shape.as_list() if v.shape.is_fully_defined() else array_ops.shape(v)
        g = IndexedSlices(g.values, g.indices, shape)
    elif not isinstance(g, Tensor):
      try:
        g = convert_to_tensor(g, v.dtype)
      except (TypeError, ValueError) as e:
        raise type(e)(f"{who}: the gradient of variable '{v.name}' cannot be converted to "
                      f"{v.dtype.name}: {e}") from None
    elif g._dtype is not v._dtype:
      raise InvalidArgumentError(
          None, None, f"{who}: the gradient of variable '{v.name}' has dtype "
          f"{g.dtype.name}, the variable {v.dtype.name}.")
    if not g.shape.is_compatible_with(v.shape):
      raise InvalidArgumentError(
          None, None, f"{who}: var and grad do not have the same shape {v.shape.as_list()} "
          f"{g.shape.as_list()} (variable '{v.name}').")
    return g

  def _update_averages(self, variables):
    from tensorlet.ops import array_ops, math_ops
    m = float(self.ema_momentum)
    averages = [self._averages[id(v)] for v in variables]
    for v, avg in zip(variables, averages):
      avg.assign(avg * _cast_like(m, v) + v * _cast_like(1.0 - m, v))
    freq = self.ema_overwrite_frequency
    if freq:
      due = math_ops.equal((self._iterations + 1) % freq, 0)
      for v, avg in zip(variables, averages):
        v.assign(array_ops.where(due, avg, v))

  def finalize_variable_values(self, var_list):
    """With `use_ema`, sets each variable to its moving average (fit does this at the end)."""
    if self.use_ema:
      for v in var_list:
        avg = self._averages.get(id(v))
        if avg is not None:
          v.assign(avg)

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
    # NOTE: as Keras 2: only the first of clipnorm, global_clipnorm, clipvalue applies.
    if self.clipnorm and self.clipnorm > 0:
      return [clip_ops.clip_by_norm(g, self.clipnorm) for g in grads]
    if self.global_clipnorm and self.global_clipnorm > 0:
      return clip_ops.clip_by_global_norm(grads, self.global_clipnorm)[0]
    if self.clipvalue and self.clipvalue > 0:
      return [clip_ops.clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
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


def _cast_like(x, v):
  from tensorlet.ops import math_ops
  return math_ops.cast(x, v.dtype) if isinstance(x, Tensor) else x


def _lr_value(lr):
  from tensorlet.ops.state_ops import variable_of
  if getattr(lr, "dtype", None) is _dt.resource:
    return variable_of(lr).read_value()
  return lr
