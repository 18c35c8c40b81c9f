"""tf.keras.mixed_precision: dtype policies (float16 compute with float32
variables) and the LossScaleOptimizer."""
from tensorlet.keras.mixed_precision.policy import Policy, global_policy, set_global_policy

__all__ = ["Policy", "global_policy", "set_global_policy", "LossScaleOptimizer"]


def __getattr__(name):
  # NOTE: loaded on use: layers import this package, the optimizer stack is heavier.
  if name == "LossScaleOptimizer":
    from tensorlet.keras.mixed_precision.loss_scale_optimizer import LossScaleOptimizer
    return LossScaleOptimizer
  from tensorlet._unsupported import missing
  raise missing("tf.keras.mixed_precision", name, __name__)
