"""Trace types: what a tf.function call's arguments look like to the cache.

`key_of(value)` is the fast, hashable key of one argument:
  tensors    ("T", dtype enum, shape tuple)           shape dims may be None; also
                                                      NumPy arrays, as TF converts them
  variables  ("V", id)                                identity
  literals   ("L", type name, value)                  Python int/float/bool/str/None
  sequences  ("S", container, (keys...))              list/tuple/namedtuple
  dicts      ("D", container, ((key, type), ...))
  custom     ("C", obj.__tf_tracing_type__(None))
  others     ("O", type, obj) when hashable, ("W", identity) otherwise
A tensor key is a subtype of another when dtypes match and every dim of the
other is None or equal (unknown rank accepts any rank).
"""
import collections.abc as _abc
import weakref

import numpy as _np

from tensorlet import dtypes as _dt
from tensorlet.tensor import EagerTensor, Tensor

__all__ = ["key_of", "is_subtype", "generalize", "describe", "diff"]


def key_of(x):
  if type(x) is EagerTensor:
    return ("T", x._dtype._enum, x._value.shape)
  if isinstance(x, Tensor):
    s = x.shape
    return ("T", x.dtype._enum, None if s.rank is None else tuple(s.as_list()))
  if hasattr(x, "_handle") and hasattr(x, "_as_tensor"):
    return ("V", id(x))
  t = type(x)
  if t is _np.ndarray and x.dtype.kind != "O":  # NOTE: TF converts NumPy arrays to tensors
    d = _dt.from_numpy(x.dtype)
    if d is not None:
      return ("T", d._enum, x.shape)
  if t in (int, float, bool, str, bytes, complex) or x is None:
    return ("L", t.__name__, x)
  if t is tuple or t is list or (isinstance(x, tuple) and hasattr(x, "_fields")):
    return ("S", t, tuple(key_of(e) for e in x))
  if isinstance(x, _abc.Mapping):
    try:
      ks = sorted(x)
    except TypeError:
      ks = list(x)
    return ("D", t, tuple((k, key_of(x[k])) for k in ks))
  tt = getattr(x, "__tf_tracing_type__", None)
  if tt is not None:
    return ("C", tt(None))
  from tensorlet.tensor_spec import TensorSpec
  if isinstance(x, TensorSpec):
    s = x.shape
    return ("T", x.dtype._enum, None if s.rank is None else tuple(s.as_list()))
  try:
    hash(x)
    return ("O", t, x)
  except TypeError:
    return ("W", _IdRef(x))


class _IdRef:
  """Identity of an unhashable argument. Compares equal only to the same live
  object: a later object that reuses a dead one's id() must not hit its trace."""

  __slots__ = ("_ref", "id")

  def __init__(self, x):
    try:
      self._ref = weakref.ref(x)
    except TypeError:  # not weak-referenceable: keep it alive so its id stays unique
      self._ref = lambda x=x: x
    self.id = id(x)

  def __hash__(self):
    return self.id

  def __eq__(self, other):
    if not isinstance(other, _IdRef) or other.id != self.id:
      return False
    x = self._ref()
    return x is not None and x is other._ref()


def is_subtype(a, b):
  """True when a call with key `a` may run the trace made for key `b`."""
  if a == b:
    return True
  if a[0] != b[0]:
    return False
  k = a[0]
  if k == "T":
    if a[1] != b[1]:
      return False
    if b[2] is None:
      return True
    if a[2] is None or len(a[2]) != len(b[2]):
      return False
    return all(q is None or p == q for p, q in zip(a[2], b[2]))
  if k in ("S", "D"):
    if a[1] is not b[1] or len(a[2]) != len(b[2]):
      return False
    if k == "S":
      return all(is_subtype(x, y) for x, y in zip(a[2], b[2]))
    return all(x[0] == y[0] and is_subtype(x[1], y[1]) for x, y in zip(a[2], b[2]))
  if k == "C":
    sub = getattr(a[1], "is_subtype_of", None)
    return bool(sub(b[1])) if sub is not None else a[1] == b[1]
  return False


def generalize(a, b):
  """The most specific key both `a` and `b` are subtypes of, or None."""
  if a == b:
    return a
  if a[0] != b[0]:
    return None
  k = a[0]
  if k == "T":
    if a[1] != b[1]:
      return None
    if a[2] is None or b[2] is None or len(a[2]) != len(b[2]):
      return ("T", a[1], None)
    return ("T", a[1], tuple(p if p == q else None for p, q in zip(a[2], b[2])))
  if k == "S" and a[1] is b[1] and len(a[2]) == len(b[2]):
    parts = [generalize(x, y) for x, y in zip(a[2], b[2])]
    return None if any(p is None for p in parts) else ("S", a[1], tuple(parts))
  if k == "D" and a[1] is b[1] and [x[0] for x in a[2]] == [y[0] for y in b[2]]:
    parts = [generalize(x[1], y[1]) for x, y in zip(a[2], b[2])]
    return None if any(p is None for p in parts) else \
        ("D", a[1], tuple((x[0], p) for x, p in zip(a[2], parts)))
  if k == "C":
    sup = getattr(a[1], "most_specific_common_supertype", None)
    r = sup([b[1]]) if sup is not None else None
    return ("C", r) if r is not None else None
  return None


def describe(key):
  """Human-readable text of a key, for signatures and retrace warnings."""
  k = key[0]
  if k == "T":
    from tensorlet import dtypes
    from tensorlet.tensor_shape import TensorShape
    d = next(x for x in dtypes.ALL if x._enum == key[1])
    return f"TensorSpec(shape={TensorShape(key[2])}, dtype=tf.{d.name}, name=None)"
  if k == "V":
    return f"Variable(id={key[1]})"
  if k == "L":
    return f"Literal[{key[2]!r}]"
  if k == "S":
    inner = ", ".join(describe(e) for e in key[2])
    return f"{key[1].__name__}[{inner}]"
  if k == "D":
    inner = ", ".join(f"{kk!r}: {describe(v)}" for kk, v in key[2])
    return f"Dict[{inner}]"
  if k == "C":
    return repr(key[1])
  if k == "O":
    return f"{key[1].__name__}({key[2]!r})"
  return f"object(id={key[1].id})"


def diff(a, b, path="args"):
  """Paths (and old -> new types) where two keys differ."""
  if a == b:
    return []
  if a[0] == b[0] and a[0] == "S" and a[1] is b[1] and len(a[2]) == len(b[2]):
    out = []
    for i, (x, y) in enumerate(zip(a[2], b[2])):
      out += diff(x, y, f"{path}[{i}]")
    return out
  if a[0] == b[0] and a[0] == "D" and [x[0] for x in a[2]] == [y[0] for y in b[2]]:
    out = []
    for (kk, x), (_, y) in zip(a[2], b[2]):
      out += diff(x, y, f"{path}[{kk!r}]")
    return out
  return [(path, describe(a), describe(b))]
