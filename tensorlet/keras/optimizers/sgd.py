"""tf.keras.optimizers.SGD: gradient descent with optional (Nesterov) momentum."""
from tensorlet.keras.optimizers.optimizer import Optimizer
from tensorlet.ops import training_ops

__all__ = ["SGD"]


class SGD(Optimizer):
  """Keras' rule: m = momentum * m - lr * g; w += m (Nesterov: w += momentum * m -
  lr * g); without momentum w -= lr * g.

  Example:
    >>> opt = tf.keras.optimizers.SGD(learning_rate=0.1)
    >>> var = tf.Variable(1.0)
    >>> opt.minimize(lambda: (var ** 2) / 2.0, [var]).numpy()
    1
    >>> var.numpy()
    0.9
  """

  def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
    super().__init__(name=name, **kwargs)
    self.learning_rate = learning_rate
    if isinstance(momentum, (int, float)) and not 0 <= momentum <= 1:
      raise ValueError("`momentum` must be between [0, 1].")
    self.momentum = momentum
    self.nesterov = nesterov
    self._attrs = {"momentum": float(momentum), "use_nesterov": bool(nesterov)}

  def _slot_specs(self):
    return [("m", 0.0)] if self.momentum else []

  def _sparse_rule(self):
    # NOTE: as Keras 2, a sparse step without momentum touches the gradient's rows only
    # (the same values as the dense step, without a dense gradient); with momentum the
    # velocity of every row decays.
    return None if self.momentum else "rows"

  def _update(self, grad, handles, lr):
    if self.momentum:
      self._execute(training_ops.ResourceApplyKerasMomentum, [handles[0], handles[1], lr, grad],
                    self._attrs)
    else:
      self._execute(training_ops.ResourceApplyGradientDescent, [handles[0], lr, grad])

  def get_config(self):
    config = super().get_config()
    config.update({"momentum": self.momentum, "nesterov": self.nesterov})
    return config
