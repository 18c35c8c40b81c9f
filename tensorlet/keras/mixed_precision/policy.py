"""tf.keras.mixed_precision.Policy and the global policy.

A policy names the dtype a layer computes in and the dtype of its variables:
"mixed_float16" computes in float16 with float32 variables; any other dtype
name uses that dtype for both ("mixed_bfloat16" is not available: NumPy has no
bfloat16).
"""
from tensorlet import dtypes as _dt

__all__ = ["Policy", "global_policy", "set_global_policy"]


class Policy:
  """A dtype policy: `name`, `compute_dtype`, `variable_dtype`.

  Example:
    >>> p = tf.keras.mixed_precision.Policy("mixed_float16")
    >>> p.compute_dtype, p.variable_dtype
    ('float16', 'float32')
  """

  def __init__(self, name):
    if isinstance(name, _dt.DType):
      raise TypeError(f"'name' must be a string, not a DType. Instead, pass DType.name. "
                      f"Got: {name.name}")
    if not isinstance(name, str):
      raise TypeError(f"'name' must be a string, but got: {name}")
    self._name = name
    if name == "mixed_float16":
      self._compute, self._variable = "float16", "float32"
    elif name in ("mixed_bfloat16", "bfloat16"):
      raise NotImplementedError(f"Policy {name!r}: tensorlet has no bfloat16 dtype (NumPy has "
                                f"none); use 'mixed_float16'.")
    elif name == "_infer":
      self._compute = self._variable = None
    else:
      try:
        dtype = _dt.as_dtype(name).name
      except (TypeError, ValueError):
        raise ValueError(f"Cannot convert value {name} to a mixed precision Policy. Valid "
                         f"policies include 'mixed_float16', 'mixed_bfloat16', and the name "
                         f"of any dtype such as 'float32'.") from None
      self._compute = self._variable = dtype

  @property
  def name(self):
    return self._name

  @property
  def compute_dtype(self):
    return self._compute

  @property
  def variable_dtype(self):
    return self._variable

  def __repr__(self):
    return f'<Policy "{self._name}">'

  def __eq__(self, other):
    return isinstance(other, Policy) and other._name == self._name

  def __hash__(self):
    return hash(self._name)

  def get_config(self):
    return {"name": self._name}

  @classmethod
  def from_config(cls, config, custom_objects=None):
    return cls(**config)


_global = [None]


def global_policy():
  """The policy layers take when built without a dtype (floatx's dtype by default)."""
  if _global[0] is not None:
    return _global[0]
  from tensorlet.keras import backend
  return Policy(backend.floatx())


def set_global_policy(policy):
  """Sets the global policy from a Policy, a name or None (back to floatx)."""
  if policy is not None and not isinstance(policy, Policy):
    policy = Policy(policy)
  if policy is not None and (policy.compute_dtype is None or
                             not _dt.as_dtype(policy.compute_dtype).is_floating):
    raise ValueError(f"set_global_policy can only be used to set the global policy to "
                     f"floating-point policies, such as \"float32\" and \"mixed_float16\", "
                     f"but got policy: {policy.name}")
  _global[0] = policy


def policy_of(dtype):
  """The Policy a layer's `dtype` argument (None, a name, a Policy or its config) gives."""
  if dtype is None:
    return global_policy()
  if isinstance(dtype, Policy):
    return dtype
  if isinstance(dtype, dict):  # a serialized policy
    return Policy(dtype.get("config", {}).get("name"))
  if isinstance(dtype, _dt.DType):
    return Policy(dtype.name)
  if isinstance(dtype, str) and dtype in ("mixed_float16", "mixed_bfloat16", "_infer"):
    return Policy(dtype)
  # Keras 2 reads any other layer dtype as a DType first: an unknown name is a TypeError.
  return Policy(_dt.as_dtype(dtype).name)
