"""DType objects and TensorFlow's (not NumPy's) type rules.

A `DType` wraps a NumPy dtype. Strings are stored as NumPy object arrays of
`bytes`, which is how `tf.string` tensors hand values back to Python.
"""
import builtins as _builtins

import numpy as np

_pybool = _builtins.bool

__all__ = ["DType", "as_dtype"]


class DType:
  __slots__ = ("name", "_np", "_enum")

  def __init__(self, name, np_dtype, enum):
    self.name = name
    self._np = np.dtype(np_dtype)
    self._enum = enum

  @property
  def as_numpy_dtype(self):
    return self._np.type

  @property
  def base_dtype(self):
    return self

  @property
  def real_dtype(self):
    return {complex64: float32, complex128: float64}.get(self, self)

  @property
  def is_floating(self):
    return self._np.kind == "f"

  @property
  def is_integer(self):
    return self._np.kind in "iu"

  @property
  def is_unsigned(self):
    return self._np.kind == "u"

  @property
  def is_complex(self):
    return self._np.kind == "c"

  @property
  def is_bool(self):
    return self._np.kind == "b"

  @property
  def is_numeric(self):
    return self._np.kind in "iufc"

  @property
  def size(self):
    return self._np.itemsize

  @property
  def min(self):
    if self.is_floating:
      return float(np.finfo(self._np).min)
    if self.is_integer:
      return int(np.iinfo(self._np).min)
    if self.is_bool:
      return False
    raise TypeError(f"Cannot find minimum value of {self.name}.")

  @property
  def max(self):
    if self.is_floating:
      return float(np.finfo(self._np).max)
    if self.is_integer:
      return int(np.iinfo(self._np).max)
    if self.is_bool:
      return True
    raise TypeError(f"Cannot find maximum value of {self.name}.")

  @property
  def as_datatype_enum(self):
    return self._enum

  def is_compatible_with(self, other):
    return self is as_dtype(other)

  def __repr__(self):
    return f"tf.{self.name}"

  def __str__(self):
    return f"<dtype: '{self.name}'>"

  def __eq__(self, other):
    if isinstance(other, DType):
      return self is other
    if other is None:
      return False
    try:
      return self is as_dtype(other)
    except TypeError:
      return False

  def __ne__(self, other):
    return not self.__eq__(other)

  def __hash__(self):
    return self._enum

  def __reduce__(self):
    return as_dtype, (self.name,)


# Enum values follow TensorFlow's DataType proto, which event files and
# saved graphs use.
float32 = DType("float32", np.float32, 1)
float64 = DType("float64", np.float64, 2)
int32 = DType("int32", np.int32, 3)
uint8 = DType("uint8", np.uint8, 4)
int16 = DType("int16", np.int16, 5)
int8 = DType("int8", np.int8, 6)
string = DType("string", object, 7)
complex64 = DType("complex64", np.complex64, 8)
int64 = DType("int64", np.int64, 9)
bool = DType("bool", np.bool_, 10)  # noqa: A001 - mirrors tf.bool
uint16 = DType("uint16", np.uint16, 17)
complex128 = DType("complex128", np.complex128, 18)
float16 = DType("float16", np.float16, 19)
resource = DType("resource", object, 20)
variant = DType("variant", object, 21)
uint32 = DType("uint32", np.uint32, 22)
uint64 = DType("uint64", np.uint64, 23)

half = float16
double = float64

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, uint16,
       uint32, uint64, bool, string, complex64, complex128, resource, variant)
FLOATS = frozenset({float16, float32, float64})
COMPLEX = frozenset({complex64, complex128})
INTS = frozenset({int8, int16, int32, int64, uint8, uint16, uint32, uint64})
SIGNED_INTS = frozenset({int8, int16, int32, int64})
NUMERIC = FLOATS | COMPLEX | INTS
REAL = FLOATS | INTS
INEXACT = FLOATS | COMPLEX

_BY_NAME = {d.name: d for d in ALL}
_BY_NAME.update(half=float16, double=float64, float=float32, int=int32,
                str=string, bytes=string, object=string)
_BY_NP = {d._np: d for d in ALL if d not in (resource, variant)}
_BY_NP[np.dtype(object)] = string


def as_dtype(value):
  """Converts a DType, NumPy dtype, Python type or name to a `tf.DType`."""
  if isinstance(value, DType):
    return value
  if isinstance(value, str):
    try:
      return _BY_NAME[value]
    except KeyError:
      pass
    raise TypeError(f"Cannot convert value {value!r} to a TensorFlow DType.")
  if value is float:
    return float32
  if value is int:
    return int32
  if value is _pybool:
    return bool
  if value in (str, bytes):
    return string
  if value is complex:
    return complex128
  try:
    npd = np.dtype(value)
  except TypeError:
    raise TypeError(f"Cannot convert value {value!r} to a TensorFlow DType.") from None
  if npd.kind in "SUO":
    return string
  try:
    return _BY_NP[npd]
  except KeyError:
    raise TypeError(f"Cannot convert value {value!r} to a TensorFlow DType.") from None


def from_numpy(npd):
  """The DType of a NumPy array's dtype; `None` if TensorFlow has none."""
  d = _BY_NP.get(npd)
  if d is None and npd.kind in "SUO":
    return string
  return d


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.dtypes", __name__)
