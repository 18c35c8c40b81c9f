"""tf.keras.optimizers.AdamW."""
from tensorlet.keras.optimizers.adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
  """Adam with decoupled weight decay: before each step var -= var * weight_decay * lr
  (variables named in `exclude_from_weight_decay` are left alone)."""

  def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999,
               epsilon=1e-07, amsgrad=False, name="AdamW", **kwargs):
    if weight_decay is None:
      raise ValueError("Missing value of `weight_decay` which is required and must be a "
                       "float value.")
    super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2,
                     epsilon=epsilon, amsgrad=amsgrad, name=name, weight_decay=weight_decay,
                     **kwargs)
