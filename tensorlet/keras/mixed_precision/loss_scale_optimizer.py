"""tf.keras.mixed_precision.LossScaleOptimizer: dynamic loss scaling, Keras 2's rule.

The loss is multiplied by the loss scale before differentiation (so float16
gradients do not underflow) and the gradients divided by it before they are
applied. With dynamic scaling, a step whose gradients are all finite counts
towards `dynamic_growth_steps` (then the scale doubles); a step with an inf
or NaN gradient is skipped (only `iterations` advances) and halves the scale
(never below 1).
"""
from tensorlet import dtypes as _dt
from tensorlet.indexed_slices import IndexedSlices
from tensorlet.keras.optimizers.optimizer import Optimizer
from tensorlet.ops import math_ops as _m
from tensorlet.tensor import convert_to_tensor
from tensorlet.variables import Variable

__all__ = ["LossScaleOptimizer"]

_DEFAULT_INITIAL_SCALE = 2.0 ** 15
_DEFAULT_GROWTH_STEPS = 2000


class LossScaleOptimizer(Optimizer):
  """Wraps `inner_optimizer`; scales losses and unscales gradients.

  Example:
    >>> opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1))
    >>> float(opt.loss_scale)
    32768.0
  """

  def __init__(self, inner_optimizer, dynamic=True, initial_scale=None,
               dynamic_growth_steps=None):
    if not isinstance(inner_optimizer, Optimizer):
      raise TypeError(f'"inner_optimizer" must be an instance of '
                      f'`tf.keras.optimizers.Optimizer`, but got: {inner_optimizer}.')
    if isinstance(inner_optimizer, LossScaleOptimizer):
      raise TypeError(f"LossScaleOptimizer cannot wrap another LossScaleOptimizer, but got: "
                      f"{inner_optimizer}")
    if not isinstance(dynamic, bool):
      raise TypeError(f'"dynamic" argument to LossScaleOptimizer.__init__ must be a bool, but '
                      f'got: {dynamic!r}')
    self._optimizer = inner_optimizer
    self._dynamic = dynamic
    if dynamic:
      initial_scale = _DEFAULT_INITIAL_SCALE if initial_scale is None else initial_scale
      steps = _DEFAULT_GROWTH_STEPS if dynamic_growth_steps is None else dynamic_growth_steps
      self._growth_steps = int(steps)
      self._counter = Variable(0, name="counter", dtype=_dt.int64, trainable=False)
    else:
      if initial_scale is None:
        raise ValueError('"initial_scale" must be specified if "dynamic" is False')
      if dynamic_growth_steps is not None:
        raise ValueError(f'"dynamic_growth_steps" must be None if "dynamic" is False, but got: '
                         f'{dynamic_growth_steps}')
      self._growth_steps = None
      self._counter = None
    self._initial_scale = float(initial_scale)
    self._loss_scale = Variable(self._initial_scale, name="current_loss_scale",
                                dtype=_dt.float32, trainable=False)
    self.name = "LossScaleOptimizer"

  # --------------------------------------------------------------- delegation
  @property
  def inner_optimizer(self):
    return self._optimizer

  @property
  def iterations(self):
    return self._optimizer.iterations

  @property
  def learning_rate(self):
    return self._optimizer.learning_rate

  @learning_rate.setter
  def learning_rate(self, value):
    self._optimizer.learning_rate = value

  lr = learning_rate

  @property
  def variables(self):
    return self._optimizer.variables

  def _tl_slot_variables(self):
    return self._optimizer._tl_slot_variables()

  def _tl_checkpoint_children(self):
    out = [("inner_optimizer", self._optimizer), ("current_loss_scale", self._loss_scale)]
    if self._counter is not None:
      out.append(("good_steps", self._counter))
    return out

  def finalize_variable_values(self, var_list):
    self._optimizer.finalize_variable_values(var_list)

  def __getattr__(self, name):
    if name.startswith("_"):
      raise AttributeError(name)
    return getattr(self._optimizer, name)

  # -------------------------------------------------------------- the scale
  @property
  def dynamic(self):
    return self._dynamic

  @property
  def loss_scale(self):
    """The current loss scale, a float32 tensor."""
    return self._loss_scale.read_value()

  @property
  def dynamic_counter(self):
    """Steps with finite gradients since the scale last changed (dynamic only)."""
    return self._counter

  @property
  def initial_scale(self):
    return self._initial_scale

  @property
  def dynamic_growth_steps(self):
    return self._growth_steps

  def get_scaled_loss(self, loss):
    """`loss` times the loss scale (a callable gives a callable)."""
    if callable(loss):
      def scaled():
        value = loss()
        return value * _m.cast(self._loss_scale, value.dtype)
      return scaled
    loss = convert_to_tensor(loss)
    return loss * _m.cast(self._loss_scale, loss.dtype)

  def get_unscaled_gradients(self, grads):
    """Each gradient divided by the loss scale (None stays None)."""
    inv = 1.0 / self._loss_scale.read_value()
    return [None if g is None else
            IndexedSlices(g.values * _m.cast(inv, g.dtype), g.indices, g.dense_shape)
            if isinstance(g, IndexedSlices) else g * _m.cast(inv, g.dtype) for g in grads]

  # ---------------------------------------------------------------- steps
  def compute_gradients(self, loss, var_list, tape=None):
    from tensorlet.autodiff.tape import GradientTape
    tape = GradientTape() if tape is None else tape
    with tape:
      loss = self.get_scaled_loss(loss)
    pairs = self._optimizer.compute_gradients(loss, var_list, tape=tape)
    grads = self.get_unscaled_gradients([g for g, _ in pairs])
    return list(zip(grads, [v for _, v in pairs]))

  def apply_gradients(self, grads_and_vars, name=None, skip_gradients_aggregation=False,
                      **kwargs):
    """Applies the step when every gradient is finite; updates the dynamic scale."""
    from tensorlet.ops import control_flow_ops
    pairs = [(g, v) for g, v in grads_and_vars if g is not None]
    if not pairs:
      return self._optimizer.apply_gradients(grads_and_vars)
    grads = [self._optimizer._checked(g, v) for g, v in pairs]
    pairs = list(zip(grads, [v for _, v in pairs]))
    if not self._dynamic:
      return self._optimizer.apply_gradients(pairs)
    self._optimizer.build([v for _, v in pairs])  # slots exist before the branch
    finite = _m.reduce_all(convert_to_tensor([_m.reduce_all(_m.is_finite(
        g.values if isinstance(g, IndexedSlices) else g)) for g in grads]))
    self._update_scale(finite)

    def apply():
      self._optimizer.apply_gradients(pairs)
      return convert_to_tensor(True)

    def skip():
      self._optimizer.iterations.assign_add(1)
      return convert_to_tensor(False)
    control_flow_ops.cond(finite, apply, skip)
    return self._optimizer.iterations

  def _update_scale(self, finite):
    from tensorlet.ops import array_ops
    scale, counter = self._loss_scale, self._counter
    grow = _m.logical_and(finite, counter + 1 >= self._growth_steps)
    doubled = scale * 2.0
    new_scale = array_ops.where(
        finite, array_ops.where(_m.logical_and(grow, _m.is_finite(doubled)), doubled, scale),
        _m.maximum(scale / 2.0, 1.0))
    new_counter = array_ops.where(_m.logical_and(finite, _m.logical_not(grow)), counter + 1,
                                  _m.cast(0, _dt.int64))
    scale.assign(new_scale)
    counter.assign(new_counter)

  # --------------------------------------------------------------- config
  def get_config(self):
    from tensorlet.keras import optimizers
    return {"inner_optimizer": optimizers.serialize(self._optimizer), "dynamic": self._dynamic,
            "initial_scale": self._initial_scale,
            "dynamic_growth_steps": self._growth_steps}

  @classmethod
  def from_config(cls, config, custom_objects=None):
    from tensorlet.keras import optimizers
    config = dict(config)
    config["inner_optimizer"] = optimizers.deserialize(config["inner_optimizer"],
                                                       custom_objects)
    return cls(**config)
