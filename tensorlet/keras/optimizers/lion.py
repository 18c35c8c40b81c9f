"""tf.keras.optimizers.Lion."""
from tensorlet.keras.optimizers.optimizer import Optimizer
from tensorlet.ops import training_ops

__all__ = ["Lion"]


class Lion(Optimizer):
  """EvoLved sign momentum (Chen et al.): w -= lr sign(beta_1 m + (1 - beta_1) g);
  m = beta_2 m + (1 - beta_2) g."""

  def __init__(self, learning_rate=0.0001, beta_1=0.9, beta_2=0.99, name="Lion", **kwargs):
    super().__init__(name=name, **kwargs)
    if beta_1 <= 0 or beta_1 > 1:
      raise ValueError(f"`beta_1`={beta_1} must be between ]0, 1]. Otherwise, the optimizer "
                       f"degenerates to SignSGD.")
    self.learning_rate = learning_rate
    self.beta_1 = beta_1
    self.beta_2 = beta_2
    self._attrs = {"beta_1": float(beta_1), "beta_2": float(beta_2)}

  def _slot_specs(self):
    return [("m", 0.0)]

  def _update(self, grad, handles, lr):
    self._execute(training_ops.ResourceApplyKerasLion, [*handles, lr, grad], self._attrs)

  def get_config(self):
    config = super().get_config()
    config.update({"beta_1": self.beta_1, "beta_2": self.beta_2})
    return config
