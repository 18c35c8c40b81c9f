"""tf.keras.optimizers.Adadelta."""
from tensorlet.keras.optimizers.optimizer import Optimizer
from tensorlet.ops import training_ops

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
  """Keras' rule: E[g^2] = rho E[g^2] + (1 - rho) g^2; delta = -sqrt(E[dx^2] + eps) g /
  sqrt(E[g^2] + eps); E[dx^2] = rho E[dx^2] + (1 - rho) delta^2; w += lr delta."""

  def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-07, name="Adadelta",
               **kwargs):
    super().__init__(name=name, **kwargs)
    self.learning_rate = learning_rate
    self.rho = rho
    self.epsilon = epsilon
    self._attrs = {"rho": float(rho), "epsilon": float(epsilon)}

  def _slot_specs(self):
    return [("accumulated_grad", 0.0), ("accumulated_delta_var", 0.0)]

  def _update(self, grad, handles, lr):
    self._execute(training_ops.ResourceApplyKerasAdadelta, [*handles, lr, grad], self._attrs)

  def get_config(self):
    config = super().get_config()
    config.update({"rho": self.rho, "epsilon": self.epsilon})
    return config
