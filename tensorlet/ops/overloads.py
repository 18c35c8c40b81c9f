"""Python operators on tf.Tensor and tf.Variable.

Binary operators convert a Python scalar operand straight to the tensor's
dtype (TF's rule: `x * 2` keeps x's dtype; `int_tensor * 1.5` is an error) and
call `execute` directly: this is the hot path of small eager programs.

TF 2.21's mixing rules, which `int_tensor op value` follows here: the value is
converted to the tensor's dtype (a Python float never becomes an int: TypeError;
Python ints wrap around; NumPy values are cast). Only `+` and `/` convert with a dtype *hint* (TF's `_add_dispatch` and
`truediv`): a value that does not fit keeps its own dtype, and then `+` fails in
AddV2's dtype check (InvalidArgumentError eagerly, TypeError in graphs) while
`/` raises TypeError ("`x` and `y` must have the same dtype"). A reflected
operator (`1.5 + t`) converts strictly. `None` is a ValueError, as TF's.
"""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.composite_tensor import CompositeTensor
from tensorlet.ops import array_ops, math_ops
from tensorlet.ops.registry import convert_inputs, execute
from tensorlet.tensor import EagerTensor, Tensor, convert_to_tensor

_EMPTY = {}
_cache = {}
_FLOATISH = frozenset(d._enum for d in _dt.FLOATS | _dt.COMPLEX)
_INTISH = frozenset(d._enum for d in _dt.INTS) | _FLOATISH


def _scalar(v, dtype):
  """A (cached) eager scalar of Python number `v` as `dtype`, or None if not allowed."""
  key = (v, type(v), dtype._enum)  # NOTE: 2 == 2.0 in a dict; a float must not hit an int
  t = _cache.get(key)
  if t is None:
    e = dtype._enum
    if type(v) is float and e not in _FLOATISH:
      return None
    if type(v) is int and (e not in _INTISH or (dtype.is_integer and not
                                                   dtype.min <= v <= dtype.max)):
      return None
    if len(_cache) > 4096:
      _cache.clear()
    # NOTE: a 0-d array, not a NumPy scalar: `x * c` is ~35% faster on small
    # arrays (NumPy converts a scalar operand on every call).
    t = _cache[key] = EagerTensor(np.asarray(v, dtype._np), dtype)
  return t


_NONE = ("Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) "
         "to a Tensor.")


def _other(x, y, od):
  """Converts operand `y` to pair with tensor `x` (strictly: to x's dtype)."""
  ty = type(y)
  if ty is EagerTensor or isinstance(y, Tensor):
    return y
  conv = getattr(y, "_as_tensor", None)
  if conv is not None:  # a variable
    return conv()
  if (ty is float or ty is int) and type(x) is EagerTensor:
    t = _scalar(y, x._dtype)
    if t is not None:
      return t
  if y is None:
    raise ValueError(_NONE)
  return convert_inputs(od, (x, y))[1]


def _hinted(x, y, od):
  """`y` converted with x's dtype as a hint: a value that does not fit keeps its own."""
  try:
    return _other(x, y, od)
  except TypeError:
    if isinstance(y, CompositeTensor):
      raise
    return convert_to_tensor(y)


def _self(x):
  return x if isinstance(x, Tensor) else x._as_tensor()


def _binary(od, name):
  # `name` is the graph node name TF gives the operator (`a + b` -> "add").
  def fwd(x, y):
    x = _self(x)
    try:
      y = _other(x, y, od)
    except TypeError:
      if isinstance(y, CompositeTensor):  # its reflected operator handles it
        return NotImplemented
      raise
    return execute(od, (x, y), _EMPTY, name)

  def rev(x, y):
    x = _self(x)
    return execute(od, (_other(x, y, od), x), _EMPTY, name)
  return fwd, rev


def _add(x, y):
  x = _self(x)
  try:
    y = _hinted(x, y, math_ops.AddV2)
  except TypeError:
    if isinstance(y, CompositeTensor):  # its reflected operator handles it
      return NotImplemented
    raise
  return execute(math_ops.AddV2, (x, y), _EMPTY, "add")


def _truediv(x, y):
  x = _self(x)
  try:
    y = _hinted(x, y, math_ops.RealDiv)
  except TypeError:
    if isinstance(y, CompositeTensor):
      return NotImplemented
    raise
  if y.dtype is not x.dtype:
    raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y.dtype!r}.")
  if x.dtype.is_integer:
    return math_ops.truediv(x, y)
  return execute(math_ops.RealDiv, (x, y), _EMPTY, "truediv")


def _rtruediv(x, y):
  x = _self(x)
  return _truediv(_other(x, y, math_ops.RealDiv), x)


# NOTE: like TF, `==` is elementwise and gives a scalar False/True for shapes
# that do not broadcast; operands of another dtype raise as any binary op does.
def _eq(x, y):
  x = _self(x)
  if y is None:
    return False
  return execute(math_ops.Equal, (x, _other(x, y, math_ops.Equal)),
                 {"incompatible_shape_error": False})


def _ne(x, y):
  x = _self(x)
  if y is None:
    return True
  return execute(math_ops.NotEqual, (x, _other(x, y, math_ops.NotEqual)),
                 {"incompatible_shape_error": False})


def _logical_or_bitwise(logical_od, bit_fn):
  def fwd(x, y):
    x = _self(x)
    y = _other(x, y, logical_od)
    if x.dtype is _dt.bool:
      return execute(logical_od, (x, y), _EMPTY)
    return bit_fn(x, y)

  def rev(x, y):
    return fwd(_other(_self(x), y, logical_od), _self(x))
  return fwd, rev


def _bitwise(np_fn, name):
  from tensorlet.ops.registry import op
  from tensorlet.ops._common import INT, broadcast_shape
  od = op(name, dtypes=INT, shape=broadcast_shape, differentiable=False)(np_fn)
  return lambda x, y: execute(od, convert_inputs(od, (x, y)), _EMPTY)


_bit_and = _bitwise(np.bitwise_and, "BitwiseAnd")
_bit_or = _bitwise(np.bitwise_or, "BitwiseOr")
_bit_xor = _bitwise(np.bitwise_xor, "BitwiseXor")


def _invert(x):
  x = _self(x)
  if x.dtype is _dt.bool:
    return math_ops.logical_not(x)
  return execute(_Invert, (x,), _EMPTY)


def _make_invert():
  from tensorlet.ops.registry import op
  from tensorlet.ops._common import INT, same_shape
  return op("Invert", dtypes=INT, shape=same_shape, differentiable=False)(np.invert)


_Invert = _make_invert()


def _getitem(x, key):
  # NOTE: as TF, a bool tensor or NumPy array (or a Python bool) as the whole key
  # is a mask: x[mask] is tf.boolean_mask(x, mask). Lists are index lists.
  if type(key) is bool or (isinstance(key, Tensor) and key.dtype is _dt.bool) or \
      (isinstance(key, np.ndarray) and key.dtype == np.bool_):
    return array_ops.boolean_mask(_self(x), key)
  return array_ops.strided_slice_index(_self(x), key)


def _matmul(x, y):
  return math_ops.matmul(_self(x), y)


def _rmatmul(x, y):
  return math_ops.matmul(y, _self(x))


def _pow(x, y):
  x = _self(x)
  return execute(math_ops.Pow, (x, _other(x, y, math_ops.Pow)), _EMPTY, "pow")


def _rpow(x, y):
  x = _self(x)
  return execute(math_ops.Pow, (_other(x, y, math_ops.Pow), x), _EMPTY, "pow")


def install(cls):
  """Binds the operators onto `cls` (Tensor or Variable)."""
  table = {
      "add": math_ops.AddV2, "sub": math_ops.Sub, "mul": math_ops.Mul,
      "floordiv": math_ops.FloorDiv, "mod": math_ops.FloorMod,
  }
  for name, od in table.items():
    fwd, rev = _binary(od, name)
    setattr(cls, f"__{name}__", fwd)
    setattr(cls, f"__r{name}__", rev)
  cmp = {"lt": math_ops.Less, "le": math_ops.LessEqual, "gt": math_ops.Greater,
         "ge": math_ops.GreaterEqual}
  for name, od in cmp.items():
    setattr(cls, f"__{name}__", _binary(od, od.name)[0])
  cls.__add__ = _add
  cls.__truediv__ = _truediv
  cls.__rtruediv__ = _rtruediv
  cls.__pow__ = _pow
  cls.__rpow__ = _rpow
  cls.__matmul__ = _matmul
  cls.__rmatmul__ = _rmatmul
  cls.__eq__ = _eq
  cls.__ne__ = _ne
  cls.__and__, cls.__rand__ = _logical_or_bitwise(math_ops.LogicalAnd, _bit_and)
  cls.__or__, cls.__ror__ = _logical_or_bitwise(math_ops.LogicalOr, _bit_or)
  cls.__xor__, cls.__rxor__ = _logical_or_bitwise(math_ops.LogicalXor, _bit_xor)
  cls.__invert__ = _invert
  cls.__neg__ = lambda x: execute(math_ops.Neg, (_self(x),), _EMPTY)
  cls.__pos__ = lambda x: _self(x)
  cls.__abs__ = lambda x: math_ops.abs(_self(x))
  cls.__getitem__ = _getitem
  cls.__hash__ = Tensor.__hash__ if cls is Tensor else cls.__hash__


install(Tensor)
