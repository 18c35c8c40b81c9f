"""tf.Tensor: the eager kind (holds an ndarray) and the symbolic kind (a graph
output), with one Python surface; conversion of Python values to tensors.

Python values follow TensorFlow's inference, not NumPy's: int -> int32 (int64
when it does not fit), float -> float32, complex -> complex128, str/bytes ->
string. NumPy arrays keep their dtype.
"""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.context import ctx, canonical_device
from tensorlet.errors import InvalidArgumentError
from tensorlet.tensor_shape import TensorShape

__all__ = ["Tensor", "EagerTensor", "convert_to_tensor", "constant", "newaxis"]

newaxis = None
_BY_NP = _dt._BY_NP
_float32 = _dt.float32
_int32 = _dt.int32
_string = _dt.string


class Tensor:
  """Base of eager and symbolic tensors (`isinstance(x, tf.Tensor)` holds for both)."""

  __slots__ = ()
  __array_priority__ = 100
  OVERLOADABLE_OPERATORS = ()

  @property
  def ndim(self):
    return self.shape.rank

  def get_shape(self):
    return self.shape

  def ref(self):
    return _Reference(self)

  def experimental_ref(self):
    return self.ref()

  def __hash__(self):
    raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

  def __iter__(self):
    shape = self.shape
    if shape.rank is None:
      raise TypeError("Cannot iterate over a tensor with unknown shape.")
    if shape.rank == 0:
      raise TypeError("Cannot iterate over a scalar tensor.")
    n = shape[0]
    if n is None:
      raise TypeError("Cannot iterate over a tensor with unknown first dimension.")
    return (self[i] for i in range(n))

  # Operators are bound in tensorlet/ops/overloads.py.


def is_tensor(x):
  """tf.is_tensor: tensors, variables, sparse and ragged tensors (not NumPy arrays)."""
  return isinstance(x, Tensor) or getattr(type(x), "_tf_tensor_like", False)


class _Reference:
  __slots__ = ("_t",)

  def __init__(self, t):
    self._t = t

  def deref(self):
    return self._t

  def __hash__(self):
    return id(self._t)

  def __eq__(self, other):
    return isinstance(other, _Reference) and other._t is self._t

  def __repr__(self):
    return f"<Reference wrapping {self._t!r}>"


class EagerTensor(Tensor):
  """A tensor with a value: `_value` is an ndarray (or NumPy scalar for 0-d)."""

  __slots__ = ("_value", "_dtype", "_device", "_keras_mask", "__weakref__")

  def __init__(self, value, dtype):
    self._value = value
    self._dtype = dtype
    self._device = ctx.device

  @property
  def dtype(self):
    return self._dtype

  @property
  def shape(self):
    return TensorShape(self._value.shape)

  @property
  def ndim(self):
    return self._value.ndim

  @property
  def device(self):
    # NOTE: the scope active when the tensor was made, resolved as TF's soft placement.
    try:
      return canonical_device(self._device)
    except AttributeError:
      return canonical_device("")

  @property
  def name(self):
    raise AttributeError("Tensor.name is undefined when eager execution is enabled.")

  @property
  def graph(self):
    raise AttributeError("Tensor.graph is undefined when eager execution is enabled.")

  @property
  def op(self):
    raise AttributeError("Tensor.op is undefined when eager execution is enabled.")

  def numpy(self):
    # NOTE: no copy, like TF: the array is shared and must be treated as read-only.
    v = self._value
    if v.ndim == 0:
      return v[()]  # a NumPy scalar (a string scalar is `bytes`), as in TF
    return v

  def _numpy_text(self, is_repr=False):
    v = self._value
    if v.ndim == 0:
      x = v[()] if isinstance(v, np.ndarray) else v
      text = repr(x) if isinstance(x, bytes) else str(x)
    else:
      text = np.array_repr(v) if is_repr else np.array_str(v)
    if "\n" in text:
      text = "\n" + text
    return text

  def __str__(self):
    return f"tf.Tensor({self._numpy_text()}, shape={self.shape}, dtype={self._dtype.name})"

  def __repr__(self):
    return (f"<tf.Tensor: shape={self.shape}, dtype={self._dtype.name}, "
            f"numpy={self._numpy_text(True)}>")

  def __format__(self, spec):
    # TF formats the NumPy value: "{}".format(t) is "[1 2]", "{:.2f}" works on scalars.
    return format(self.numpy(), spec)

  def __array__(self, dtype=None, copy=None):
    v = np.asarray(self._value)
    if dtype is not None and v.dtype != dtype:
      return v.astype(dtype)
    if copy:
      return v.copy()
    return v

  def __len__(self):
    if self._value.ndim == 0:
      raise TypeError("Scalar tensor has no `len()`")
    return self._value.shape[0]

  def __bool__(self):
    return bool(self._value)

  def __int__(self):
    return int(self._value)

  def __float__(self):
    return float(self._value)

  def __complex__(self):
    return complex(self._value)

  def __index__(self):
    if not self._dtype.is_integer:
      raise TypeError(f"Only integer tensors can be used as an index, got {self._dtype.name}")
    return int(self._value)

  def __copy__(self):
    return self

  def __deepcopy__(self, memo):
    return EagerTensor(np.array(self._value, copy=True) if isinstance(self._value, np.ndarray)
                       else self._value, self._dtype)

  def __reduce__(self):
    return _rebuild, (np.asarray(self._value), self._dtype.name)

  def set_shape(self, shape):
    if not self.shape.is_compatible_with(shape):
      raise ValueError(f"Tensor's shape {self.shape} is not compatible with supplied shape "
                       f"{TensorShape(shape)}.")

  def cpu(self):
    return self

  def gpu(self, index=0):
    raise RuntimeError("No GPU is available: tensorlet runs its kernels on the CPU.")


def _rebuild(arr, dtype_name):
  dt = _dt.as_dtype(dtype_name)
  v = arr.astype(object) if dt is _string else arr
  return EagerTensor(v[()] if v.ndim == 0 and dt is not _string else v, dt)


# ---------------------------------------------------------------- conversion

def _infer_np(value):
  """NumPy array for a Python value using TF's dtype inference."""
  if isinstance(value, (bytes, str)):
    return np.array(value.encode() if isinstance(value, str) else value, dtype=object)
  try:
    arr = np.asarray(value)
  except ValueError:
    if isinstance(value, (list, tuple)):
      raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None
    raise
  k = arr.dtype.kind
  if k in "SU" and isinstance(value, (list, tuple)):
    # NumPy turns [1, "a"] into strings; TF refuses to mix numbers and strings.
    arr = _to_bytes_array(np.array(value, dtype=object))
  if k == "f":
    return arr.astype(np.float32)
  if k == "i":
    if arr.dtype == np.int64:
      if arr.size == 0 or (arr.min() >= -2**31 and arr.max() < 2**31):
        return arr.astype(np.int32)
    return arr
  if k == "c":
    return arr.astype(np.complex128)
  if k == "O":
    _check_big_ints(arr)
  if k in "SUO":
    return _to_bytes_array(arr)
  return arr


def _check_big_ints(arr):
  """TF's ValueError for Python ints past 64 bits (NumPy made an object array)."""
  if any(type(x) is int for x in arr.reshape(-1)):
    raise ValueError("Can't convert Python sequence with out-of-range integer to Tensor.")


def _to_bytes_array(arr):
  out = np.empty(arr.shape, dtype=object)
  flat = out.reshape(-1)
  for i, x in enumerate(arr.reshape(-1)):
    if isinstance(x, str):
      x = x.encode()
    elif isinstance(x, np.bytes_):
      x = bytes(x)
    elif isinstance(x, np.str_):
      x = str(x).encode()
    elif not isinstance(x, bytes):
      raise TypeError(f"Failed to convert elements of {arr.tolist()!r} to Tensor: "
                      f"{x!r} is not a string.")
    flat[i] = x
  return out


def _contains_tensor(value):
  if isinstance(value, (list, tuple)):
    return any(_contains_tensor(v) for v in value)
  return isinstance(value, Tensor) or hasattr(value, "_as_tensor")


def _np_value(value, dtype):
  """ndarray (or NumPy scalar) of `value`, as `dtype` if given (None -> infer)."""
  if isinstance(value, np.ndarray) or isinstance(value, np.generic):
    arr = np.asarray(value)
    if arr.dtype.kind in "SUO":
      arr = _to_bytes_array(arr)
      if dtype is not None and dtype is not _string:
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
      return arr
    if dtype is None:
      if _BY_NP.get(arr.dtype) is None:
        raise TypeError(f"Cannot convert a NumPy array of dtype {arr.dtype} to a Tensor.")
      return arr
    return _cast_checked(arr, dtype, value, exact=False)
  if dtype is None:
    try:
      return _infer_np(value)
    except (ValueError, TypeError) as e:
      if str(e).startswith("Can't convert") or (isinstance(value, (list, tuple)) and
                                                 str(e).startswith("Failed to convert")):
        raise type(e)(str(e)) from None
      raise ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type "
                       f"({type(value)}) to a Tensor.") from None
  if dtype is _string:
    arr = np.asarray(value, dtype=object)
    if arr.dtype.kind != "O" or any(not isinstance(x, (bytes, str)) for x in arr.reshape(-1)):
      raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype string")
    return _to_bytes_array(arr)
  try:
    arr = np.asarray(value)
  except (ValueError, TypeError) as e:
    raise ValueError(f"Attempt to convert a value ({value!r}) to a Tensor: {e}") from None
  return _cast_checked(arr, dtype, value, exact=True)


def _cast_checked(arr, dtype, value, exact):
  """Python values must fit `dtype` exactly (1.5 is no int32); arrays are cast."""
  k = arr.dtype.kind
  tk = dtype._np.kind
  if k == "O" and tk != "O":
    _check_big_ints(arr)
  if k in "SUO" or (k == "O" and tk != "O"):
    raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
  if exact:
    if (k == "f" and tk in "iub") or (k == "c" and tk != "c") or (k in "iu" and tk == "b") or \
        (k == "b" and tk == "u"):  # NOTE: TF 2.21: True converts to int32 but not to uint8
      raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
    # NOTE: Python ints out of an integer dtype's range wrap around, as TF's
    # conversion does (tf.constant(-1, tf.uint8) is 255, 2**32 + 1 as int32 is 1).
  if arr.dtype == dtype._np:
    return arr
  with np.errstate(all="ignore"):
    return arr.astype(dtype._np)


def _wrap_np(arr, dtype=None):
  if dtype is None:
    dtype = _BY_NP.get(arr.dtype)
    if dtype is None:
      dtype = _string
  if arr.ndim == 0 and dtype is not _string:
    arr = arr[()]
  return EagerTensor(arr, dtype)


def _contains_tensor_checked(value):
  try:
    return _contains_tensor(value)
  except RecursionError:
    raise ValueError("Can't convert a self-referencing or too deeply nested Python sequence "
                     "to a Tensor.") from None


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
  """Converts tensors, variables, NumPy arrays and Python values to a Tensor.

  Args:
    value: the value to convert.
    dtype: required dtype; a mismatch raises.
    dtype_hint: dtype used for Python values when `dtype` is None.
  Returns:
    A `tf.Tensor`.
  Raises:
    ValueError / TypeError when the value does not fit.
  """
  if dtype is not None:
    dtype = _dt.as_dtype(dtype)
  if isinstance(value, Tensor):
    if dtype is not None and value.dtype is not dtype:
      raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                       f"{value.dtype.name}: {value!r}")
    return value
  conv = getattr(value, "_as_tensor", None)
  if conv is not None:
    t = conv()
    if dtype is not None and t.dtype is not dtype:
      raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                       f"{t.dtype.name}: {value!r}")
    return t
  if isinstance(value, (list, tuple)) and _contains_tensor_checked(value):
    from tensorlet.ops import array_ops  # late-bound: packing tensors is an op (layer above)
    return array_ops.stack([convert_to_tensor(v, dtype, dtype_hint) for v in value])
  if dtype is None and dtype_hint is not None and not isinstance(value, (np.ndarray, np.generic)):
    hint = _dt.as_dtype(dtype_hint)
    try:
      return _finish(_np_value(value, hint), hint)
    except (TypeError, ValueError):
      pass
  arr = _np_value(value, dtype)
  return _finish(arr, dtype)


def _finish(arr, dtype, name=None):
  t = _wrap_np(arr if isinstance(arr, np.ndarray) else np.asarray(arr), dtype)
  g = ctx.graph
  if g is not None:
    return g.capture_constant(t, name)
  return t


def constant(value, dtype=None, shape=None, name="Const"):
  """tf.constant: a tensor from a Python or NumPy value, optionally reshaped.

  Example:
    >>> tf.constant([[1, 2], [3, 4]]).dtype
    tf.int32
  """
  if isinstance(value, Tensor) or hasattr(value, "_as_tensor"):
    if getattr(type(value), "_tl_no_constant", False):  # NOTE: as TF (IndexedSlices)
      raise ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type "
                       f"({type(value)}) to a Tensor.")
    t = convert_to_tensor(value)
    if dtype is not None and t.dtype is not _dt.as_dtype(dtype):
      from tensorlet.ops.math_ops import cast  # late-bound: a cast is an op (layer above)
      t = cast(t, dtype)
    if shape is not None:
      from tensorlet.ops.array_ops import reshape  # late-bound: reshape is an op (layer above)
      t = reshape(t, shape)
    return t
  if dtype is not None:
    dtype = _dt.as_dtype(dtype)
  arr = _np_value(value, dtype)
  arr = np.asarray(arr)
  if shape is not None:
    shape = tuple(TensorShape(shape).as_list())
    n = int(np.prod(shape))
    if arr.size == n:
      arr = arr.reshape(shape)
    elif arr.size == 1:
      arr = np.broadcast_to(arr.reshape(()), shape).copy()
    else:
      raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor "
                      f"{value!r} (converted from {value!r}) has {arr.size} elements, "
                      f"but got `shape` {shape} with {n} elements).")
  return _finish(arr, dtype)
