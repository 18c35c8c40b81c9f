"""tf.keras.optimizers.Adamax."""
from tensorlet.keras.optimizers.optimizer import Optimizer
from tensorlet.ops import training_ops

__all__ = ["Adamax"]


class Adamax(Optimizer):
  """Adam with the infinity norm, Keras' rule at step t: m += (g - m)(1 - beta_1);
  u = max(beta_2 u, |g|); w -= lr m / ((1 - beta_1^t)(u + epsilon))."""

  def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-07,
               name="Adamax", **kwargs):
    super().__init__(name=name, **kwargs)
    self.learning_rate = learning_rate
    self.beta_1 = beta_1
    self.beta_2 = beta_2
    self.epsilon = epsilon
    self._attrs = {"beta_1": float(beta_1), "beta_2": float(beta_2), "epsilon": float(epsilon)}

  def _slot_specs(self):
    return [("m", 0.0), ("u", 0.0)]

  def _update(self, grad, handles, lr):
    self._execute(training_ops.ResourceApplyKerasAdamax,
                  [*handles, lr, self._iterations._handle, grad], self._attrs)

  def get_config(self):
    config = super().get_config()
    config.update({"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon})
    return config
