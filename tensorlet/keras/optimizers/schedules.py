"""tf.keras.optimizers.schedules: learning rates that depend on the step."""
from tensorlet import dtypes as _dt
from tensorlet.ops import math_ops as _m

__all__ = ["LearningRateSchedule", "ExponentialDecay", "PiecewiseConstantDecay", "serialize",
           "deserialize"]


class LearningRateSchedule:
  """A callable step -> learning rate; optimizers call it with `iterations`."""

  def __call__(self, step):
    raise NotImplementedError(f"{type(self).__name__} must implement __call__(step).")

  def get_config(self):
    raise NotImplementedError(f"{type(self).__name__} must implement get_config().")

  @classmethod
  def from_config(cls, config):
    return cls(**config)


class ExponentialDecay(LearningRateSchedule):
  """initial_learning_rate * decay_rate ^ (step / decay_steps), the exponent
  floored when `staircase`."""

  def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
               name=None):
    if decay_steps <= 0:
      raise ValueError(f"`decay_steps` must be > 0, received {decay_steps}.")
    self.initial_learning_rate = initial_learning_rate
    self.decay_steps = decay_steps
    self.decay_rate = decay_rate
    self.staircase = staircase
    self.name = name

  def __call__(self, step):
    p = _m.cast(step, _dt.float32) / float(self.decay_steps)
    if self.staircase:
      p = _m.floor(p)
    return _m.multiply(float(self.initial_learning_rate), _m.pow(float(self.decay_rate), p))

  def get_config(self):
    return {"initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
            "staircase": self.staircase, "name": self.name}


class PiecewiseConstantDecay(LearningRateSchedule):
  """values[i] while boundaries[i-1] < step <= boundaries[i]."""

  def __init__(self, boundaries, values, name=None):
    if len(boundaries) != len(values) - 1:
      raise ValueError(f"The length of boundaries should be 1 less than the length of values. "
                       f"Received: boundaries={boundaries} of length {len(boundaries)}, and "
                       f"values={values} of length {len(values)}.")
    self.boundaries = list(boundaries)
    self.values = list(values)
    self.name = name

  def __call__(self, step):
    s = _m.cast(step, _dt.int64)
    # NOTE: sum over boundaries passed gives the index without control flow,
    # so the schedule stages as a few ops inside tf.function.
    idx = _m.reduce_sum(_m.cast(_m.greater(s, [int(b) for b in self.boundaries]), _dt.int32))
    from tensorlet.ops.array_ops import gather
    return gather([float(v) for v in self.values], idx)

  def get_config(self):
    return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


def serialize(schedule):
  return {"module": "keras.optimizers.schedules", "class_name": type(schedule).__name__,
          "config": schedule.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None):
  known = {c.__name__: c for c in (ExponentialDecay, PiecewiseConstantDecay)}
  known.update(custom_objects or {})
  name = config.get("class_name")
  if name not in known:
    raise ValueError(f"Unknown learning rate schedule: '{name}'.")
  return known[name].from_config(config["config"])
