"""tf.keras.regularizers: penalties on weights, `reg(weight) -> scalar`."""
from tensorlet.ops import math_ops as _m

__all__ = ["Regularizer", "L1", "L2", "L1L2", "OrthogonalRegularizer", "l1", "l2", "l1_l2",
           "get", "serialize", "deserialize"]


class Regularizer:
  """Base class: `__call__(x)` returns a scalar penalty."""

  def __call__(self, x):
    return 0.0

  def get_config(self):
    return {}

  @classmethod
  def from_config(cls, config):
    return cls(**config)


class L1L2(Regularizer):
  """l1 * sum(|x|) + l2 * sum(x ** 2)."""

  def __init__(self, l1=0.0, l2=0.0):
    self.l1 = float(l1)
    self.l2 = float(l2)

  def __call__(self, x):
    total = None
    if self.l1:
      total = self.l1 * _m.reduce_sum(_m.abs(x))
    if self.l2:
      t = self.l2 * _m.reduce_sum(_m.square(x))
      total = t if total is None else total + t
    if total is None:
      return _m.reduce_sum(x * 0.0)
    return total

  def get_config(self):
    return {"l1": self.l1, "l2": self.l2}


class L1(L1L2):
  def __init__(self, l1=0.01):
    super().__init__(l1=l1)

  def get_config(self):
    return {"l1": self.l1}


class L2(L1L2):
  def __init__(self, l2=0.01):
    super().__init__(l2=l2)

  def get_config(self):
    return {"l2": self.l2}


class OrthogonalRegularizer(Regularizer):
  """factor * mean(|off-diagonal of normalized rows (or columns) Gram matrix|)."""

  def __init__(self, factor=0.01, mode="rows"):
    if mode not in ("rows", "columns"):
      raise ValueError(f"Invalid value for argument `mode`. Expected one of {{'rows', "
                       f"'columns'}}. Received: mode={mode}")
    self.factor, self.mode = factor, mode

  def __call__(self, x):
    from tensorlet.ops import array_ops as _a
    if self.mode == "columns":
      x = _a.transpose(x)
    x = _m.l2_normalize(x, axis=1)
    prod = _m.matmul(x, x, transpose_b=True)
    n = x.shape[0]
    off = _m.abs(prod - _a.eye(n, dtype=x.dtype))
    return self.factor * _m.reduce_sum(off) / (n * (n - 1))

  def get_config(self):
    return {"factor": self.factor, "mode": self.mode}


def l1_l2(l1=0.01, l2=0.01):
  return L1L2(l1=l1, l2=l2)


l1 = L1
l2 = L2
_BY_NAME = {"l1": L1, "l2": L2, "l1_l2": L1L2, "L1": L1, "L2": L2, "L1L2": L1L2,
            "OrthogonalRegularizer": OrthogonalRegularizer,
            "orthogonal_regularizer": OrthogonalRegularizer}


def get(identifier):
  if identifier is None:
    return None
  if isinstance(identifier, str):
    cls = _BY_NAME.get(identifier)
    if cls is None:
      raise ValueError(f"Unknown regularizer: '{identifier}'")
    return cls()
  if isinstance(identifier, dict):
    return deserialize(identifier)
  if callable(identifier):
    return identifier
  raise ValueError(f"Could not interpret regularizer identifier: {identifier!r}")


def serialize(regularizer):
  return {"class_name": type(regularizer).__name__, "config": regularizer.get_config()}


def deserialize(config):
  cls = _BY_NAME.get(config["class_name"])
  if cls is None:
    raise ValueError(f"Unknown regularizer: {config['class_name']}")
  return cls(**config.get("config", {}))
