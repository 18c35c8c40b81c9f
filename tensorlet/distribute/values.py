"""Distributed values: PerReplica (one value per local replica) and Mirrored (the same
value on every replica), with the helpers that regroup the replicas' results and pick
one replica's part of a structure."""
from tensorlet import _nest as nest
from tensorlet.composite_tensor import CompositeTensor, TypeSpec, type_spec_from_value
from tensorlet.tensor import Tensor
from tensorlet.tensor_spec import TensorSpec
from tensorlet.variables import Variable

__all__ = ["DistributedValues", "PerReplica", "Mirrored", "PerReplicaSpec", "regroup",
           "select_replica"]


class DistributedValues:
  """Values of the local replicas of a strategy, in replica order (`values`)."""

  def __init__(self, values):
    self._values = tuple(values)

  @property
  def values(self):
    return self._values

  def _get(self):
    return self._values[0]

  def __repr__(self):
    body = ",\n".join(f"  {i}: {v!r}" for i, v in enumerate(self._values))
    return f"{type(self).__name__}:{{\n{body}\n}}"

  def __str__(self):
    body = ",\n".join(f"  {i}: {v}" for i, v in enumerate(self._values))
    return f"{type(self).__name__}:{{\n{body}\n}}"

  def __len__(self):
    raise TypeError(f"{type(self).__name__} has no len(); use "
                    f"strategy.experimental_local_results(value)")

  def __bool__(self):
    raise TypeError(f"the truth value of a {type(self).__name__} is ambiguous; reduce it "
                    f"with strategy.reduce or look at experimental_local_results")


class PerReplica(DistributedValues, CompositeTensor):
  """One value per local replica (inputs of strategy.run, its results)."""

  @property
  def _type_spec(self):
    return PerReplicaSpec(*(type_spec_from_value(v) for v in self._values))


class Mirrored(DistributedValues):
  """The same value on every local replica."""


class PerReplicaSpec(TypeSpec):
  """The type of a PerReplica: the spec of each replica's value."""

  __slots__ = ("_value_specs",)

  def __init__(self, *value_specs):
    self._value_specs = tuple(value_specs)

  def _fields(self):
    return self._value_specs

  value_type = property(lambda self: PerReplica)

  @property
  def _component_specs(self):
    out = []
    for s in self._value_specs:
      out.extend([s] if isinstance(s, TensorSpec) else s._component_specs)
    return out

  def _to_components(self, value):
    out = []
    for s, v in zip(self._value_specs, value._values):
      out.extend([v] if isinstance(s, TensorSpec) else s._to_components(v))
    return out

  def _from_components(self, tensors):
    tensors = list(tensors)
    values = []
    for s in self._value_specs:
      if isinstance(s, TensorSpec):
        values.append(tensors.pop(0))
      else:
        n = len(s._component_specs)
        values.append(s._from_components(tensors[:n]))
        del tensors[:n]
    return PerReplica(values)

  def is_subtype_of(self, other):
    return type(other) is type(self) and len(self._value_specs) == len(other._value_specs) \
        and all(a.is_subtype_of(b) for a, b in zip(self._value_specs, other._value_specs))

  def most_specific_common_supertype(self, others):
    specs = list(self._value_specs)
    for o in others:
      if type(o) is not type(self) or len(o._value_specs) != len(specs):
        return None
      specs = [a.most_specific_common_supertype([b]) for a, b in zip(specs, o._value_specs)]
      if any(s is None for s in specs):
        return None
    return PerReplicaSpec(*specs)

  def __repr__(self):
    return f"PerReplicaSpec({', '.join(map(repr, self._value_specs))})"


def _is_leaf_value(x):
  return isinstance(x, (Tensor, int, float, complex)) or hasattr(x, "__array__") and \
      not isinstance(x, (Variable, DistributedValues))


def regroup(per_replica):
  """One structure from the replicas' structures (same nesting): a leaf the same object on
  every replica stays itself, other leaves become PerReplica. A single replica's tensors
  are wrapped too, so reductions treat them alike."""
  first = per_replica[0]
  flat = [nest.flatten(s) for s in per_replica]
  for i, f in enumerate(flat[1:], 1):
    if len(f) != len(flat[0]):
      raise ValueError(f"replica {i} returned a structure that differs from replica 0's: "
                       f"{per_replica[i]!r} vs {first!r}")
  out = []
  for leaves in zip(*flat):
    a = leaves[0]
    if len(leaves) == 1:
      out.append(PerReplica(leaves) if _is_leaf_value(a) else a)
    elif all(x is a for x in leaves):
      out.append(a)
    else:
      out.append(PerReplica(leaves))
  return nest.pack_sequence_as(first, out)


def select_replica(i, structure):
  """Replica `i`'s part of a structure: DistributedValues leaves give their i-th value."""
  def pick(x):
    if isinstance(x, Mirrored):
      return x._values[min(i, len(x._values) - 1)]
    return x._values[i] if isinstance(x, DistributedValues) else x
  return nest.map_structure(pick, structure)


def local_values(value):
  """experimental_local_results of one value."""
  if isinstance(value, DistributedValues):
    return value._values
  vals = getattr(value, "_tl_local_values", None)
  if vals is not None:
    return vals()
  return (value,)
