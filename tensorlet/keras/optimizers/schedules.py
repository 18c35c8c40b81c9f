"""tf.keras.optimizers.schedules: learning rates that depend on the step.

Each schedule is a few float32 ops of the step (no Python control flow on
tensors), so it stages inside tf.function as the optimizer reads it.
"""
import math

from tensorlet import dtypes as _dt
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m

__all__ = ["LearningRateSchedule", "ExponentialDecay", "PiecewiseConstantDecay",
           "InverseTimeDecay", "PolynomialDecay", "CosineDecay", "CosineDecayRestarts",
           "serialize", "deserialize"]


def _f(step):
  return _m.cast(step, _dt.float32)


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

  def _p(self, step):
    p = _f(step) / float(self.decay_steps)
    return _m.floor(p) if self.staircase else p

  def __call__(self, step):
    return _m.multiply(float(self.initial_learning_rate),
                       _m.pow(float(self.decay_rate), self._p(step)))

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


class InverseTimeDecay(ExponentialDecay):
  """initial_learning_rate / (1 + decay_rate * step / decay_steps), the quotient
  floored when `staircase`."""

  def __call__(self, step):
    return float(self.initial_learning_rate) / (1.0 + float(self.decay_rate) * self._p(step))


class PolynomialDecay(LearningRateSchedule):
  """(initial - end) * (1 - step / decay_steps)^power + end, the step held at
  decay_steps; with `cycle`, decay_steps grows to the next multiple of itself."""

  def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0,
               cycle=False, name=None):
    self.initial_learning_rate = initial_learning_rate
    self.decay_steps = decay_steps
    self.end_learning_rate = end_learning_rate
    self.power = power
    self.cycle = cycle
    self.name = name

  def __call__(self, step):
    s = _f(step)
    steps = float(self.decay_steps)
    if self.cycle:
      mult = _a.where(_m.equal(s, 0.0), 1.0, _m.ceil(s / steps))
      steps = steps * mult
    else:
      s = _m.minimum(s, steps)
    p = s / steps
    start, end = float(self.initial_learning_rate), float(self.end_learning_rate)
    return (start - end) * _m.pow(1.0 - p, float(self.power)) + end

  def get_config(self):
    return {"initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps, "end_learning_rate": self.end_learning_rate,
            "power": self.power, "cycle": self.cycle, "name": self.name}


def _cosine(fraction, alpha, scale=1.0):
  return (1.0 - alpha) * (0.5 * scale * (1.0 + _m.cos(math.pi * fraction))) + alpha


class CosineDecay(LearningRateSchedule):
  """Cosine decay from the initial rate (or from `warmup_target` after a linear warmup
  of `warmup_steps`) to alpha times it over `decay_steps`, then constant."""

  def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name=None,
               warmup_target=None, warmup_steps=0):
    self.initial_learning_rate = initial_learning_rate
    self.decay_steps = decay_steps
    self.alpha = alpha
    self.name = name
    self.warmup_steps = warmup_steps
    self.warmup_target = warmup_target

  def __call__(self, step):
    s = _f(step)
    init, steps, alpha = float(self.initial_learning_rate), float(self.decay_steps), \
        float(self.alpha)
    if self.warmup_target is None:
      return init * _cosine(_m.minimum(s, steps) / steps, alpha)
    target, warm = float(self.warmup_target), float(self.warmup_steps)
    s = _m.minimum(s, steps + warm)
    warmup = (target - init) * (s / warm if warm else s * 0.0) + init
    decay = target * _cosine((s - warm) / steps, alpha)
    return _a.where(s < warm, warmup, decay)

  def get_config(self):
    return {"initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
            "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}


class CosineDecayRestarts(LearningRateSchedule):
  """Cosine decay with warm restarts (SGDR): the i-th period lasts first_decay_steps *
  t_mul^i steps and starts from initial_learning_rate * m_mul^i."""

  def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0,
               alpha=0.0, name=None):
    self.initial_learning_rate = initial_learning_rate
    self.first_decay_steps = first_decay_steps
    self._t_mul = t_mul
    self._m_mul = m_mul
    self.alpha = alpha
    self.name = name

  def __call__(self, step):
    fraction = _f(step) / float(self.first_decay_steps)
    t_mul = float(self._t_mul)
    if t_mul == 1.0:
      i_restart = _m.floor(fraction)
      fraction = fraction - i_restart
    else:
      i_restart = _m.floor(_m.log(1.0 - fraction * (1.0 - t_mul)) / math.log(t_mul))
      sum_r = (1.0 - _m.pow(t_mul, i_restart)) / (1.0 - t_mul)
      fraction = (fraction - sum_r) / _m.pow(t_mul, i_restart)
    m_fac = _m.pow(float(self._m_mul), i_restart)
    return float(self.initial_learning_rate) * _cosine(fraction, float(self.alpha), m_fac)

  def get_config(self):
    return {"initial_learning_rate": self.initial_learning_rate,
            "first_decay_steps": self.first_decay_steps, "t_mul": self._t_mul,
            "m_mul": self._m_mul, "alpha": self.alpha, "name": self.name}


def serialize(schedule):
  return {"module": "keras.optimizers.schedules", "class_name": type(schedule).__name__,
          "config": schedule.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None):
  known = {c.__name__: c for c in (ExponentialDecay, PiecewiseConstantDecay,
                                   InverseTimeDecay, PolynomialDecay, CosineDecay,
                                   CosineDecayRestarts)}
  known.update(custom_objects or {})
  name = config.get("class_name")
  if name not in known:
    raise ValueError(f"Unknown learning rate schedule: '{name}'.")
  return known[name].from_config(config["config"])
