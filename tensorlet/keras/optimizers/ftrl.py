"""tf.keras.optimizers.Ftrl."""
from tensorlet.keras.optimizers.optimizer import Optimizer
from tensorlet.ops import training_ops

__all__ = ["Ftrl"]


class Ftrl(Optimizer):
  """Follow-the-regularized-leader (McMahan et al.) with L1, L2 and L2-shrinkage
  regularization, Keras 2's rule (see ResourceApplyKerasFtrl)."""

  def __init__(self, learning_rate=0.001, learning_rate_power=-0.5,
               initial_accumulator_value=0.1, l1_regularization_strength=0.0,
               l2_regularization_strength=0.0, l2_shrinkage_regularization_strength=0.0,
               beta=0.0, name="Ftrl", **kwargs):
    super().__init__(name=name, **kwargs)
    for value, what, sign in (
        (initial_accumulator_value, "initial_accumulator_value", "positive or zero"),
        (-learning_rate_power, "learning_rate_power", "negative or zero"),
        (l1_regularization_strength, "l1_regularization_strength", "positive or zero"),
        (l2_regularization_strength, "l2_regularization_strength", "positive or zero"),
        (l2_shrinkage_regularization_strength, "l2_shrinkage_regularization_strength",
         "positive or zero")):
      if value < 0.0:
        shown = -value if what == "learning_rate_power" else value
        raise ValueError(f"`{what}` needs to be {sign}. Received: {what}={shown}.")
    self.learning_rate = learning_rate
    self.learning_rate_power = learning_rate_power
    self.initial_accumulator_value = initial_accumulator_value
    self.l1_regularization_strength = l1_regularization_strength
    self.l2_regularization_strength = l2_regularization_strength
    self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
    self.beta = beta
    self._attrs = {"lr_power": float(learning_rate_power),
                   "l1": float(l1_regularization_strength),
                   "l2": float(l2_regularization_strength),
                   "l2_shrinkage": float(l2_shrinkage_regularization_strength),
                   "beta": float(beta)}

  def _slot_specs(self):
    return [("accumulator", float(self.initial_accumulator_value)), ("linear", 0.0)]

  def _update(self, grad, handles, lr):
    self._execute(training_ops.ResourceApplyKerasFtrl, [*handles, lr, grad], self._attrs)

  def get_config(self):
    config = super().get_config()
    config.update({"learning_rate_power": self.learning_rate_power,
                   "initial_accumulator_value": self.initial_accumulator_value,
                   "l1_regularization_strength": self.l1_regularization_strength,
                   "l2_regularization_strength": self.l2_regularization_strength,
                   "l2_shrinkage_regularization_strength":
                       self.l2_shrinkage_regularization_strength,
                   "beta": self.beta})
    return config
