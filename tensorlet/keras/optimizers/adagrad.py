"""tf.keras.optimizers.Adagrad."""
from tensorlet.keras.optimizers.optimizer import Optimizer
from tensorlet.ops import training_ops

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
  """Keras' rule: accumulator += g^2; w -= lr g / sqrt(accumulator + epsilon); the
  accumulator starts at `initial_accumulator_value`."""

  def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-07,
               name="Adagrad", **kwargs):
    super().__init__(name=name, **kwargs)
    self.learning_rate = learning_rate
    self.initial_accumulator_value = initial_accumulator_value
    self.epsilon = epsilon
    self._attrs = {"epsilon": float(epsilon)}

  def _slot_specs(self):
    return [("accumulator", float(self.initial_accumulator_value))]

  # NOTE: Keras 2 steps a sparse gradient at its rows only: the dense step's values there,
  # and a zero gradient leaves the other rows as they are.
  _SPARSE_RULE = "rows"

  def _update(self, grad, handles, lr):
    self._execute(training_ops.ResourceApplyKerasAdagrad, [handles[0], handles[1], lr, grad],
                  self._attrs)

  def get_config(self):
    config = super().get_config()
    config.update({"initial_accumulator_value": self.initial_accumulator_value,
                   "epsilon": self.epsilon})
    return config
