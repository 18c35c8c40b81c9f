"""tf.keras.optimizers.legacy: Keras 2's older optimizer classes (OptimizerV2).

Each is the current class with the legacy behaviour on top: `decay` (the
learning rate at step t is lr / (1 + decay t)), `lr` as a synonym of
`learning_rate`, no weight_decay / EMA arguments, the legacy config layout,
epsilon outside the square root for Adagrad (and RMSprop without momentum), and
Nadam's momentum schedule 0.96^(decay t) with decay defaulting to 0.004 (and
its learning rate not decayed).
"""
import inspect

from tensorlet import dtypes as _dt
from tensorlet.keras.optimizers import adadelta, adagrad, adam, adamax, ftrl, nadam, rmsprop, sgd
from tensorlet.keras.optimizers.optimizer import _BASE_KEYS, Optimizer, _lr_value
from tensorlet.ops import math_ops as _m

__all__ = ["Optimizer", "SGD", "Adam", "Adamax", "Nadam", "RMSprop", "Adagrad", "Adadelta",
           "Ftrl"]

_ALLOWED = ("clipnorm", "clipvalue", "global_clipnorm", "lr", "decay")


class _Legacy:
  _DEFAULT_DECAY = 0.0

  def __init__(self, *args, **kwargs):
    named = inspect.signature(type(self).__mro__[2].__init__).parameters
    for k in kwargs:
      if k not in named and k not in _ALLOWED:
        raise TypeError(f"Unexpected keyword argument passed to optimizer: {k}. Allowed "
                        f"kwargs are {set(_ALLOWED)}.")
    decay = kwargs.pop("decay", self._DEFAULT_DECAY)
    if decay < 0.0:
      raise ValueError(f"decay cannot be less than 0. Received: decay={decay}.")
    if "lr" in kwargs:
      kwargs["learning_rate"] = kwargs.pop("lr")
    self.decay = decay
    super().__init__(*args, **kwargs)

  def _lr_input(self):
    lr = super()._lr_input()
    if not self.decay:
      return lr
    step = _m.cast(self._iterations, _dt.float32)
    return _m.cast(_lr_value(lr), _dt.float32) / (1.0 + self.decay * step)

  def get_config(self):
    full = super().get_config()
    config = {"name": self.name}
    for k in ("clipnorm", "clipvalue", "global_clipnorm"):
      if full[k] is not None:
        config[k] = full[k]
    config.update(learning_rate=full["learning_rate"], decay=self.decay)
    config.update({k: v for k, v in full.items()
                   if k not in _BASE_KEYS and k not in ("is_legacy_optimizer",
                                                        "learning_rate")})
    return config

  @classmethod
  def from_config(cls, config, custom_objects=None):
    config = dict(config)
    if "lr" in config:
      config["learning_rate"] = config.pop("lr")
    return super().from_config(config, custom_objects)


# NOTE: Keras 2's legacy optimizers apply an IndexedSlices gradient with TF's sparse
# kernels: momentum SGD, RMSprop with momentum, Adamax, Adadelta and Ftrl change the
# variable and their slots at the gradient's rows only; Nadam decays its slots everywhere
# but moves only those rows of the variable.

class SGD(_Legacy, sgd.SGD):
  """Legacy SGD (same update; `decay`, `lr`)."""

  def _sparse_rule(self):
    return "rows"


class Adam(_Legacy, adam.Adam):
  """Legacy Adam (same update; `decay`, `lr`)."""


class Adamax(_Legacy, adamax.Adamax):
  """Legacy Adamax (same update; `decay`, `lr`)."""

  _SPARSE_RULE = "rows"


class Adadelta(_Legacy, adadelta.Adadelta):
  """Legacy Adadelta (same update; `decay`, `lr`)."""

  _SPARSE_RULE = "rows"


class Ftrl(_Legacy, ftrl.Ftrl):
  """Legacy Ftrl (same update; `decay`, `lr`)."""

  _SPARSE_RULE = "rows"


class Adagrad(_Legacy, adagrad.Adagrad):
  """Legacy Adagrad: var -= lr g / (sqrt(accumulator) + epsilon)."""

  def __init__(self, *args, **kwargs):
    super().__init__(*args, **kwargs)
    self._attrs["epsilon_outside"] = True


class RMSprop(_Legacy, rmsprop.RMSprop):
  """Legacy RMSprop: without momentum, var -= lr g / (sqrt(ms) + epsilon)."""

  def __init__(self, *args, **kwargs):
    super().__init__(*args, **kwargs)
    self._attrs["epsilon_outside"] = not self.momentum

  def _sparse_rule(self):
    return "rows" if self.momentum else None


class Nadam(_Legacy, nadam.Nadam):
  """Legacy Nadam: `decay` (default 0.004, also `schedule_decay`) scales the momentum
  schedule's exponent; the learning rate is not decayed."""

  _DEFAULT_DECAY = 0.004
  _SPARSE_RULE = "var_rows"

  def __init__(self, *args, **kwargs):
    if "schedule_decay" in kwargs:
      kwargs["decay"] = kwargs.pop("schedule_decay")
    super().__init__(*args, **kwargs)

  def _lr_input(self):
    return Optimizer._lr_input(self)

  def _schedule_scale(self):
    return float(self.decay)
