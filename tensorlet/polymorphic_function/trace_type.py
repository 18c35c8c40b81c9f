"""Trace types: what a tf.function call's arguments look like to its cache.

`from_value(x)` gives the trace type of one argument, an instance of a class
below (TF's `trace_type` system):
  TensorType     tensors, NumPy arrays and TensorSpecs: dtype + shape (dims may be None)
  LiteralType    Python int/float/bool/str/bytes/complex/None, by type and value
  VariableType   a variable: dtype, shape, trainable, alias id (a resource input)
  SequenceType   list/tuple/namedtuple of trace types
  MappingType    dict-like of trace types, by sorted keys
  CustomType     a user `__tf_tracing_type__` result (tf.types.experimental.TraceType)
  OpaqueType     any other hashable object, by equality
  WeakrefType    any other unhashable object, by identity while it lives
Composite values (sparse and ragged tensors) return their spec, a
composite_tensor.TypeSpec with the same methods, from `__tf_tracing_type__`.

Each type answers `is_subtype_of` (a call of this type may run a trace made
for `other`), `most_specific_common_supertype`, `placeholder_value` (what the
traced Python function sees), `to_tensors` (the flat tensors a value passes to
the graph), `cast` (the same, checking the value fits: ConcreteFunction
calls), `input_spec` (for `structured_input_signature`) and `describe`.
"""
import collections.abc as _abc
import weakref

import numpy as _np

from tensorlet import dtypes as _dt
from tensorlet import types as _types
from tensorlet.composite_tensor import TypeSpec
from tensorlet.errors import InvalidArgumentError
from tensorlet.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor_spec import TensorSpec

__all__ = ["TraceType", "TensorType", "LiteralType", "VariableType", "VariableSpec", "SequenceType",
           "MappingType", "CustomType", "OpaqueType", "WeakrefType", "from_value",
           "PlaceholderContext", "CastContext"]


class PlaceholderContext:
  """Where placeholders go while a function is traced: the graph, the argument's
  name, the flat list of placeholders made so far, and the call's actual value
  (identity types hand the traced function that object)."""

  __slots__ = ("graph", "name", "leaves", "value")

  def __init__(self, graph, name, leaves, value=None):
    self.graph, self.name, self.leaves, self.value = graph, name, leaves, value


class CastContext:
  """What a checked call (`cast`) needs for its error messages."""

  __slots__ = ("fname", "path", "signature")

  def __init__(self, fname, path, signature=""):
    self.fname, self.path, self.signature = fname, path, signature

  def at(self, suffix):
    return CastContext(self.fname, self.path + suffix, self.signature)

  def cannot_cast(self, value, t):
    return TypeError(f"Binding inputs to tf.function failed due to `Can not cast {value!r} to "
                     f"{t.describe()}`. Received value {value!r} for argument '{self.path}' "
                     f"with signature: {self.signature}.")


class TraceType(_types.TraceType):
  """Base of the built-in trace types (defaults: equality is the only subtyping)."""

  __slots__ = ()

  def is_subtype_of(self, other):
    return self == other

  def most_specific_common_supertype(self, others):
    return self if all(self == o for o in others) else None

  def placeholder_value(self, placeholder_context=None):
    return placeholder_context.value if placeholder_context is not None else None

  def to_tensors(self, value, out):
    """Appends the tensors `value` passes to a trace of this type (none for Python values)."""

  def cast(self, value, where, out):
    """`to_tensors` for a value not yet known to fit: raises TypeError when it does not."""
    if not from_value(value).is_subtype_of(self):
      raise where.cannot_cast(value, self)
    self.to_tensors(value, out)

  def input_spec(self):
    """This argument in `structured_input_signature`."""
    return self

  def describe(self):
    return repr(self)

  def diff(self, other, path):
    """[(path, old, new)] where `other` differs from this type (retrace warnings)."""
    return [] if self == other else [(path, self.describe(), other.describe())]

  def __ne__(self, other):
    return not self == other

  def __repr__(self):
    return self.describe()


class TensorType(TraceType):
  """A tensor's dtype and shape (a tuple whose dims may be None; None for unknown rank)."""

  __slots__ = ("dtype", "shape")

  def __init__(self, dtype, shape):
    self.dtype = dtype
    self.shape = shape

  def __eq__(self, other):
    return type(other) is TensorType and other.dtype is self.dtype and other.shape == self.shape

  def __hash__(self):
    return hash((self.dtype._enum, self.shape))

  def is_subtype_of(self, other):
    if type(other) is not TensorType or other.dtype is not self.dtype:
      return False
    b = other.shape
    if b is None:
      return True
    a = self.shape
    if a is None or len(a) != len(b):
      return False
    return all(q is None or p == q for p, q in zip(a, b))

  def most_specific_common_supertype(self, others):
    shape = self.shape
    for o in others:
      if type(o) is not TensorType or o.dtype is not self.dtype:
        return None
      if shape is None or o.shape is None or len(shape) != len(o.shape):
        shape = None
      else:
        shape = tuple(p if p == q else None for p, q in zip(shape, o.shape))
    return TensorType(self.dtype, shape)

  def spec(self, name=None):
    return TensorSpec(TensorShape(self.shape), self.dtype, name)

  def placeholder_value(self, placeholder_context=None):
    c = placeholder_context
    ph = c.graph.placeholder(self.spec(), c.name)
    c.leaves.append(ph)
    return ph

  def to_tensors(self, value, out):
    if isinstance(value, Tensor):
      out.append(value)
    elif hasattr(value, "_as_tensor"):
      out.append(value._as_tensor())
    else:
      out.append(convert_to_tensor(value, self.dtype))

  def cast(self, value, where, out):
    i = len(out)
    if isinstance(value, Tensor):
      t = value
    elif hasattr(value, "_as_tensor"):
      t = value._as_tensor()
    else:
      t = convert_to_tensor(value, self.dtype)
    if t.dtype is not self.dtype:
      raise InvalidArgumentError(
          None, None, f"cannot compute __inference_{where.fname} as input #{i}(zero-based) was "
          f"expected to be a {self.dtype.name} tensor but is a {t.dtype.name} tensor "
          f"[Op:__inference_{where.fname}]")
    if not TensorShape(self.shape).is_compatible_with(t.shape):
      raise InvalidArgumentError(
          None, None, f"cannot compute __inference_{where.fname}: input #{i} ('{where.path}') "
          f"has shape {t.shape}, which does not fit the traced shape {TensorShape(self.shape)} "
          f"[Op:__inference_{where.fname}]")
    out.append(t)

  def input_spec(self):
    return self.spec()

  def describe(self):
    return f"TensorSpec(shape={TensorShape(self.shape)}, dtype=tf.{self.dtype.name}, name=None)"


class LiteralType(TraceType):
  """A Python number, string or None: calls with another value trace again."""

  __slots__ = ("value",)

  def __init__(self, value):
    self.value = value

  def __eq__(self, other):
    return type(other) is type(self) and type(other.value) is type(self.value) and \
        other.value == self.value

  def __hash__(self):
    return hash((type(self.value), self.value))

  def placeholder_value(self, placeholder_context=None):
    return self.value

  def cast(self, value, where, out):
    if from_value(value) != self:
      raise where.cannot_cast(value, self)

  def input_spec(self):
    return self.value

  def describe(self):
    return f"Literal[{self.value!r}]"


class _Identity:
  """Identity of an object. Compares equal only to the same live object: a later
  object that reuses a dead one's id() must not hit its trace."""

  __slots__ = ("_ref", "id")

  def __init__(self, x):
    try:
      self._ref = weakref.ref(x)
    except TypeError:  # not weak-referenceable: keep it alive so its id stays unique
      self._ref = lambda x=x: x
    self.id = id(x)

  def get(self):
    return self._ref()

  def __hash__(self):
    return self.id

  def __eq__(self, other):
    if not isinstance(other, _Identity) or other.id != self.id:
      return False
    x = self._ref()
    return x is not None and x is other._ref()


class WeakrefType(TraceType):
  """An unhashable object other than a container, by identity."""

  __slots__ = ("ref",)

  def __init__(self, x):
    self.ref = _Identity(x)

  def __eq__(self, other):
    return type(other) is type(self) and other.ref == self.ref

  def __hash__(self):
    return hash((type(self).__name__, self.ref.id))

  def placeholder_value(self, placeholder_context=None):
    return self.ref.get()

  def describe(self):
    return f"object(id={self.ref.id})"


class VariableSpec:
  """The `structured_input_signature` entry of a variable argument (TF's VariableSpec)."""

  __slots__ = ("shape", "dtype", "trainable", "alias_id")

  def __init__(self, shape, dtype, trainable=True, alias_id=None):
    self.shape = TensorShape(shape)
    self.dtype = _dt.as_dtype(dtype)
    self.trainable = trainable
    self.alias_id = alias_id

  def __eq__(self, other):
    return type(other) is VariableSpec and (self.shape, self.dtype, self.trainable,
                                            self.alias_id) == (other.shape, other.dtype,
                                                               other.trainable, other.alias_id)

  def __hash__(self):
    return hash((self.dtype, self.trainable, self.alias_id))

  def __repr__(self):
    return (f"VariableSpec(shape={self.shape}, dtype=tf.{self.dtype.name}, "
            f"trainable={self.trainable}, alias_id={self.alias_id})")


# id(variable) -> alias id while one call's trace types are built (type_of): the
# same variable passed twice is one input of the trace, as TF's alias_id says.
_alias_ids = None


class VariableType(TraceType):
  """A tf.Variable argument: dtype, shape, trainability and aliasing (TF's
  VariableSpec). Variables that agree share a trace: the graph reads and writes
  the variable passed to each call through a resource input."""

  __slots__ = ("dtype", "shape", "trainable", "alias_id")

  def __init__(self, dtype, shape, trainable, alias_id):
    self.dtype, self.shape, self.trainable, self.alias_id = dtype, shape, trainable, alias_id

  @classmethod
  def of(cls, v):
    s = v.shape
    a = _alias_ids
    alias = 0 if a is None else a.setdefault(id(v), len(a))
    return cls(v.dtype, None if s.rank is None else tuple(s.as_list()), v.trainable, alias)

  def _key(self):
    return (self.dtype, self.shape, self.trainable, self.alias_id)

  def __eq__(self, other):
    return type(other) is VariableType and other._key() == self._key()

  def __hash__(self):
    return hash((self.dtype._enum, self.shape, self.trainable, self.alias_id))

  def is_subtype_of(self, other):
    if type(other) is not VariableType or (self.dtype, self.trainable, self.alias_id) != (
        other.dtype, other.trainable, other.alias_id):
      return False
    return TensorType(self.dtype, self.shape).is_subtype_of(TensorType(other.dtype, other.shape))

  def most_specific_common_supertype(self, others):
    if any(type(o) is not VariableType or (o.dtype, o.trainable, o.alias_id) !=
           (self.dtype, self.trainable, self.alias_id) for o in others):
      return None
    t = TensorType(self.dtype, self.shape).most_specific_common_supertype(
        [TensorType(o.dtype, o.shape) for o in others])
    return VariableType(self.dtype, t.shape, self.trainable, self.alias_id)

  def placeholder_value(self, placeholder_context=None):
    c = placeholder_context
    v = c.value if c is not None else None
    if v is None or not hasattr(v, "_handle"):
      raise TypeError(f"Tracing with {self.describe()} needs a tf.Variable as the value; "
                      f"call the function (or get_concrete_function) with a variable.")
    c.leaves.append(c.graph.variable_argument(v, c.name))
    return v

  def to_tensors(self, value, out):
    out.append(value._handle)

  def cast(self, value, where, out):
    if not (hasattr(value, "_handle") and hasattr(value, "_as_tensor")):
      raise where.cannot_cast(value, self)
    got = VariableType(value.dtype, None if value.shape.rank is None else
                       tuple(value.shape.as_list()), value.trainable, self.alias_id)
    if not got.is_subtype_of(self):
      raise InvalidArgumentError(
          None, None, f"cannot compute __inference_{where.fname}: the variable passed for "
          f"'{where.path}' is {got.describe()}, the trace takes {self.describe()} "
          f"[Op:__inference_{where.fname}]")
    out.append(value._handle)

  def input_spec(self):
    return VariableSpec(self.shape, self.dtype, self.trainable, self.alias_id)

  def describe(self):
    return repr(self.input_spec())


class OpaqueType(LiteralType):
  """Any other hashable object: equal objects share a trace."""

  __slots__ = ()

  def input_spec(self):
    return self

  def placeholder_value(self, placeholder_context=None):
    c = placeholder_context
    return c.value if c is not None and c.value is not None else self.value

  def describe(self):
    return f"{type(self.value).__name__}({self.value!r})"


class SequenceType(TraceType):
  """A list, tuple or namedtuple of trace types."""

  __slots__ = ("container", "components")

  def __init__(self, container, components):
    self.container = container
    self.components = components

  def __eq__(self, other):
    return type(other) is SequenceType and other.container is self.container and \
        other.components == self.components

  def __hash__(self):
    return hash((self.container, self.components))

  def is_subtype_of(self, other):
    return type(other) is SequenceType and other.container is self.container and \
        len(other.components) == len(self.components) and \
        all(a.is_subtype_of(b) for a, b in zip(self.components, other.components))

  def most_specific_common_supertype(self, others):
    parts = []
    for i, c in enumerate(self.components):
      subs = []
      for o in others:
        if type(o) is not SequenceType or o.container is not self.container or \
            len(o.components) != len(self.components):
          return None
        subs.append(o.components[i])
      p = c.most_specific_common_supertype(subs)
      if p is None:
        return None
      parts.append(p)
    return SequenceType(self.container, tuple(parts))

  def _build(self, values):
    if hasattr(self.container, "_fields"):
      return self.container(*values)
    return self.container(values)

  def placeholder_value(self, placeholder_context=None):
    c = placeholder_context
    vals = [] if c.value is None else list(c.value)
    out = []
    for i, t in enumerate(self.components):
      out.append(t.placeholder_value(PlaceholderContext(
          c.graph, c.name, c.leaves, vals[i] if i < len(vals) else None)))
    return self._build(out)

  def to_tensors(self, value, out):
    for t, v in zip(self.components, value):
      t.to_tensors(v, out)

  def cast(self, value, where, out):
    if not isinstance(value, (list, tuple)) or len(value) != len(self.components):
      raise TypeError(f"Binding inputs to tf.function failed: '{where.path}' should be "
                      f"{self.describe()}, got {value!r}")
    for i, (t, v) in enumerate(zip(self.components, value)):
      t.cast(v, where.at(f"[{i}]"), out)

  def input_spec(self):
    return self._build([t.input_spec() for t in self.components])

  def describe(self):
    return f"{self.container.__name__}[{', '.join(t.describe() for t in self.components)}]"

  def diff(self, other, path):
    if type(other) is SequenceType and other.container is self.container and \
        len(other.components) == len(self.components):
      out = []
      for i, (a, b) in enumerate(zip(self.components, other.components)):
        out += a.diff(b, f"{path}[{i}]")
      return out
    return TraceType.diff(self, other, path)


class MappingType(TraceType):
  """A dict-like of trace types; `keys` and `components` are parallel tuples."""

  __slots__ = ("container", "keys", "components")

  def __init__(self, container, keys, components):
    self.container = container
    self.keys = keys
    self.components = components

  def __eq__(self, other):
    return type(other) is MappingType and other.container is self.container and \
        other.keys == self.keys and other.components == self.components

  def __hash__(self):
    return hash((self.container, self.keys, self.components))

  def _same_keys(self, o):
    return type(o) is MappingType and o.container is self.container and o.keys == self.keys

  def is_subtype_of(self, other):
    return self._same_keys(other) and \
        all(a.is_subtype_of(b) for a, b in zip(self.components, other.components))

  def most_specific_common_supertype(self, others):
    if not all(self._same_keys(o) for o in others):
      return None
    parts = []
    for i, c in enumerate(self.components):
      p = c.most_specific_common_supertype([o.components[i] for o in others])
      if p is None:
        return None
      parts.append(p)
    return MappingType(self.container, self.keys, tuple(parts))

  def _build(self, d):
    try:
      return self.container(d)
    except TypeError:
      return d

  def placeholder_value(self, placeholder_context=None):
    c = placeholder_context
    v = c.value
    return self._build({k: t.placeholder_value(PlaceholderContext(
        c.graph, c.name, c.leaves, v[k] if v is not None else None))
        for k, t in zip(self.keys, self.components)})

  def to_tensors(self, value, out):
    for k, t in zip(self.keys, self.components):
      t.to_tensors(value[k], out)

  def cast(self, value, where, out):
    if not isinstance(value, _abc.Mapping) or set(value) != set(self.keys):
      raise TypeError(f"Binding inputs to tf.function failed: '{where.path}' should be "
                      f"{self.describe()}, got {value!r}")
    for k, t in zip(self.keys, self.components):
      t.cast(value[k], where.at(f"[{k!r}]"), out)

  def input_spec(self):
    return self._build({k: t.input_spec() for k, t in zip(self.keys, self.components)})

  def describe(self):
    inner = ", ".join(f"{k!r}: {t.describe()}" for k, t in zip(self.keys, self.components))
    return f"Dict[{inner}]"

  def diff(self, other, path):
    if self._same_keys(other):
      out = []
      for k, a, b in zip(self.keys, self.components, other.components):
        out += a.diff(b, f"{path}[{k!r}]")
      return out
    return TraceType.diff(self, other, path)


class CustomType(TraceType):
  """A user's `__tf_tracing_type__` result. Types that also describe how their value
  enters a graph as tensors (`flatten`/`to_tensors`/`from_tensors`, as tf.data's
  specs do) get placeholders; others hand the traced function `placeholder_value`."""

  __slots__ = ("inner",)

  def __init__(self, inner):
    self.inner = inner

  def __eq__(self, other):
    return type(other) is CustomType and self.inner == other.inner

  def __hash__(self):
    return hash(self.inner)

  def is_subtype_of(self, other):
    if type(other) is not CustomType:
      return False
    sub = getattr(self.inner, "is_subtype_of", None)
    return bool(sub(other.inner)) if sub is not None else self.inner == other.inner

  def most_specific_common_supertype(self, others):
    if any(type(o) is not CustomType for o in others):
      return None
    sup = getattr(self.inner, "most_specific_common_supertype", None)
    r = sup([o.inner for o in others]) if sup is not None else None
    return CustomType(r) if r is not None else None

  def _tensor_protocol(self):
    return hasattr(self.inner, "to_tensors")

  def placeholder_value(self, placeholder_context=None):
    c = placeholder_context
    if self._tensor_protocol():
      phs = [c.graph.placeholder(s, c.name) for s in self.inner.flatten()]
      c.leaves.extend(phs)
      return self.inner.from_tensors(iter(phs))
    if c.value is not None:
      return c.value
    try:
      return self.inner.placeholder_value(c)
    except (AttributeError, NotImplementedError):
      return None

  def to_tensors(self, value, out):
    if self._tensor_protocol():
      out.extend(self.inner.to_tensors(value))

  def cast(self, value, where, out):
    got = from_value(value)
    if self._tensor_protocol() and got.is_subtype_of(self):
      out.extend(self.inner.to_tensors(value))
    elif got != self:
      raise where.cannot_cast(value, self)

  def input_spec(self):
    return self.inner

  def describe(self):
    return repr(self.inner)


_LITERALS = frozenset([int, float, bool, str, bytes, complex, type(None)])


def from_value(x):
  """The trace type of one tf.function argument."""
  t = type(x)
  if t is EagerTensor:
    return TensorType(x._dtype, x._value.shape)
  if t in _LITERALS:
    return LiteralType(x)
  if t is list or t is tuple:
    return SequenceType(t, tuple([from_value(e) for e in x]))
  if isinstance(x, Tensor):
    s = x.shape
    return TensorType(x.dtype, None if s.rank is None else tuple(s.as_list()))
  if hasattr(x, "_handle") and hasattr(x, "_as_tensor"):
    return VariableType.of(x)
  if t is _np.ndarray and x.dtype.kind != "O":  # NOTE: TF converts NumPy arrays to tensors
    d = _dt.from_numpy(x.dtype)
    if d is not None:
      return TensorType(d, x.shape)
  if isinstance(x, tuple) and hasattr(x, "_fields"):
    return SequenceType(t, tuple(from_value(e) for e in x))
  if isinstance(x, _abc.Mapping):
    try:
      ks = sorted(x)
    except TypeError:
      ks = list(x)
    return MappingType(t, tuple(ks), tuple(from_value(x[k]) for k in ks))
  tt = getattr(x, "__tf_tracing_type__", None)
  if tt is not None:
    r = tt(None)
    return r if isinstance(r, (TraceType, TypeSpec)) else CustomType(r)
  if isinstance(x, TensorSpec):
    s = x.shape
    return TensorType(x.dtype, None if s.rank is None else tuple(s.as_list()))
  if isinstance(x, (TraceType, TypeSpec)):  # a spec passed to get_concrete_function
    return x
  try:
    hash(x)
    return OpaqueType(x)
  except TypeError:
    return WeakrefType(x)
