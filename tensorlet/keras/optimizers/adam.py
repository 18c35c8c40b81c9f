"""tf.keras.optimizers.Adam."""
from tensorlet.keras.optimizers.optimizer import Optimizer
from tensorlet.ops import training_ops

__all__ = ["Adam"]


class Adam(Optimizer):
  """Adam with Keras' rule at step t: m += (g - m)(1 - beta_1); v += (g^2 - v)(1 -
  beta_2); w -= lr sqrt(1 - beta_2^t) / (1 - beta_1^t) m / (sqrt(v) + epsilon).
  With `amsgrad` the denominator uses the running maximum of v."""

  def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-07,
               amsgrad=False, name="Adam", **kwargs):
    super().__init__(name=name, **kwargs)
    self.learning_rate = learning_rate
    self.beta_1 = beta_1
    self.beta_2 = beta_2
    self.epsilon = epsilon
    self.amsgrad = amsgrad
    self._attrs = {"beta_1": float(beta_1), "beta_2": float(beta_2), "epsilon": float(epsilon)}
    self._op = (training_ops.ResourceApplyKerasAdamAmsgrad if amsgrad
                else training_ops.ResourceApplyKerasAdam)

  def _slot_specs(self):
    return [("m", 0.0), ("v", 0.0)] + ([("vhat", 0.0)] if self.amsgrad else [])

  def _update(self, grad, handles, lr):
    self._execute(self._op, [*handles, lr, self._iterations._handle, grad], self._attrs)

  def get_config(self):
    config = super().get_config()
    config.update({"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon,
                   "amsgrad": self.amsgrad})
    return config
