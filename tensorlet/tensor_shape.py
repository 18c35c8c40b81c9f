"""TensorShape: a possibly partially known shape (`None` for unknown dims)."""

__all__ = ["TensorShape", "as_shape", "broadcast_static"]


class TensorShape:
  __slots__ = ("_dims",)

  def __init__(self, dims):
    if dims is None:
      self._dims = None
    elif isinstance(dims, TensorShape):
      self._dims = dims._dims
    else:
      if isinstance(dims, int):
        dims = (dims,)
      if isinstance(dims, (str, bytes)) or not hasattr(dims, "__iter__"):
        raise TypeError(f"A shape must be a list of dimensions (ints or None), a TensorShape "
                        f"or None; got {dims!r:.80}")
      out = []
      for d in dims:
        if d is None:
          out.append(None)
        elif hasattr(d, "value") and not isinstance(d, int):
          out.append(d.value)
        else:
          try:
            v = int(d)
          except (TypeError, ValueError):
            raise TypeError(f"Dimension value must be integer or None, got {d!r}") from None
          if v < 0:
            if v == -1:
              out.append(None)
              continue
            raise ValueError(f"Dimension {v} must be >= 0")
          out.append(v)
      self._dims = tuple(out)

  @property
  def rank(self):
    return None if self._dims is None else len(self._dims)

  ndims = rank

  @property
  def dims(self):
    return None if self._dims is None else list(self._dims)

  def as_list(self):
    if self._dims is None:
      raise ValueError("as_list() is not defined on an unknown TensorShape.")
    return list(self._dims)

  def is_fully_defined(self):
    return self._dims is not None and None not in self._dims

  def assert_is_fully_defined(self):
    if not self.is_fully_defined():
      raise ValueError(f"Shape {self} is not fully defined")

  def num_elements(self):
    if not self.is_fully_defined():
      return None
    n = 1
    for d in self._dims:
      n *= d
    return n

  def __len__(self):
    if self._dims is None:
      raise ValueError("Cannot take the length of shape with unknown rank.")
    return len(self._dims)

  def __iter__(self):
    if self._dims is None:
      raise ValueError("Cannot iterate over a shape with unknown rank.")
    return iter(self._dims)

  def __getitem__(self, key):
    if isinstance(key, slice):
      if self._dims is None:
        return TensorShape(None)
      return TensorShape(self._dims[key])
    if self._dims is None:
      return None
    return self._dims[key]

  def __bool__(self):
    return self._dims is not None

  def is_compatible_with(self, other):
    other = as_shape(other)
    if self._dims is None or other._dims is None:
      return True
    if len(self._dims) != len(other._dims):
      return False
    return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

  def assert_is_compatible_with(self, other):
    if not self.is_compatible_with(other):
      raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

  def is_subtype_of(self, other):
    """True when every value of this shape also fits `other` (known fits unknown)."""
    other = as_shape(other)
    if other._dims is None:
      return True
    if self._dims is None or len(self._dims) != len(other._dims):
      return False
    return all(b is None or a == b for a, b in zip(self._dims, other._dims))

  def merge_with(self, other):
    other = as_shape(other)
    if self._dims is None:
      return other
    if other._dims is None:
      return self
    if not self.is_compatible_with(other):
      raise ValueError(f"Shapes {self} and {other} are not compatible")
    return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

  def most_specific_compatible_shape(self, other):
    other = as_shape(other)
    if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
      return TensorShape(None)
    return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims)])

  def concatenate(self, other):
    other = as_shape(other)
    if self._dims is None or other._dims is None:
      return TensorShape(None)
    return TensorShape(self._dims + other._dims)

  def with_rank(self, rank):
    if self._dims is None:
      return TensorShape([None] * rank)
    if len(self._dims) != rank:
      raise ValueError(f"Shape {self} must have rank {rank}")
    return self

  def __eq__(self, other):
    try:
      other = as_shape(other)
    except (TypeError, ValueError):
      return NotImplemented
    return self._dims == other._dims

  def __ne__(self, other):
    r = self.__eq__(other)
    return r if r is NotImplemented else not r

  def __hash__(self):
    return hash(self._dims)

  def __repr__(self):
    if self._dims is None:
      return "TensorShape(None)"
    return f"TensorShape({list(self._dims)})"

  def __str__(self):
    if self._dims is None:
      return "<unknown>"
    inner = ", ".join("None" if d is None else str(d) for d in self._dims)
    if len(self._dims) == 1:
      return f"({inner},)"
    return f"({inner})"

  def __reduce__(self):
    return TensorShape, (self.dims,)


def as_shape(shape):
  if isinstance(shape, TensorShape):
    return shape
  return TensorShape(shape)


def broadcast_static(a, b):
  """Static broadcast of two shapes; None dims stay unknown. Raises ValueError."""
  a, b = as_shape(a), as_shape(b)
  if a._dims is None or b._dims is None:
    return TensorShape(None)
  x, y = a._dims, b._dims
  n = max(len(x), len(y))
  x = (1,) * (n - len(x)) + x
  y = (1,) * (n - len(y)) + y
  out = []
  for p, q in zip(x, y):
    if p == 1:
      out.append(q)
    elif q == 1:
      out.append(p)
    elif p is None:
      out.append(q)
    elif q is None or p == q:
      out.append(p)
    else:
      raise ValueError(f"Incompatible shapes: {list(a._dims)} vs. {list(b._dims)}")
  return TensorShape(out)
