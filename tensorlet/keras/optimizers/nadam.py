"""tf.keras.optimizers.Nadam."""
from tensorlet import dtypes as _dt
from tensorlet.keras.optimizers.optimizer import Optimizer
from tensorlet.ops import math_ops as _m
from tensorlet.ops import training_ops
from tensorlet.variables import Variable

__all__ = ["Nadam"]


class Nadam(Optimizer):
  """Adam with Nesterov momentum (Dozat), Keras' rule: the momentum schedule
  u_t = beta_1 (1 - 0.96^t / 2) and its running product are shared by every variable
  of a step; see ResourceApplyKerasNadam for the update."""

  def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-07,
               name="Nadam", **kwargs):
    super().__init__(name=name, **kwargs)
    self.learning_rate = learning_rate
    self.beta_1 = beta_1
    self.beta_2 = beta_2
    self.epsilon = epsilon
    self._attrs = {"beta_1": float(beta_1), "beta_2": float(beta_2), "epsilon": float(epsilon),
                   "schedule_scale": self._schedule_scale()}
    self._u_product = Variable(1.0, name="u_product", dtype=_dt.float32, trainable=False)
    self._u_product_t = None

  def _schedule_scale(self):
    return 1.0

  def _tl_checkpoint_children(self):
    return super()._tl_checkpoint_children() + [("_u_product", self._u_product)]

  def _slot_specs(self):
    return [("m", 0.0), ("v", 0.0)]

  def _before_updates(self, variables):
    # The product advances once per step, before the first variable's update reads it.
    t = _m.cast(self._iterations + 1, _dt.float32)
    u_t = self.beta_1 * (1.0 - 0.5 * _m.pow(0.96, t * self._attrs["schedule_scale"]))
    self._u_product_t = self._u_product * u_t
    self._u_product.assign(self._u_product_t)

  def _update(self, grad, handles, lr):
    self._execute(training_ops.ResourceApplyKerasNadam,
                  [*handles, lr, self._iterations._handle, self._u_product_t, grad], self._attrs)

  def get_config(self):
    config = super().get_config()
    config.update({"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon})
    return config
