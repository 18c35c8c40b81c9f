"""tf.keras.optimizers.RMSprop."""
from tensorlet.keras.optimizers.optimizer import Optimizer
from tensorlet.ops import training_ops

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
  """Keras' rule: velocity = rho velocity + (1 - rho) g^2; w -= lr g / sqrt(velocity +
  epsilon), with optional momentum and `centered` (subtracts the squared mean
  gradient from the velocity)."""

  _SLOT_GROUPS = (("velocity",), ("momentum",), ("average_gradient",))

  def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-07,
               centered=False, name="RMSprop", **kwargs):
    kwargs.setdefault("ema_overwrite_frequency", 100)  # NOTE: Keras' RMSprop default
    super().__init__(name=name, **kwargs)
    self.learning_rate = learning_rate
    self.rho = rho
    self.momentum = momentum
    self.epsilon = epsilon
    self.centered = centered
    self._attrs = {"rho": float(rho), "momentum": float(momentum), "epsilon": float(epsilon),
                   "centered": bool(centered)}

  def _slot_specs(self):
    specs = [("velocity", 0.0)]
    if self.momentum > 0:
      specs.append(("momentum", 0.0))
    if self.centered:
      specs.append(("average_gradient", 0.0))
    return specs

  def _update(self, grad, handles, lr):
    self._execute(training_ops.ResourceApplyKerasRMSProp,
                  [handles[0], handles[1], lr, grad, *handles[2:]], self._attrs)

  def get_config(self):
    config = super().get_config()
    config.update({"rho": self.rho, "momentum": self.momentum, "epsilon": self.epsilon,
                   "centered": self.centered})
    return config
