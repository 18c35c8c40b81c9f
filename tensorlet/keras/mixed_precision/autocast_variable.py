"""The variables of mixed-precision layers: float32 state that reads as the layer's
compute dtype (float16) while the layer's `call` runs, as Keras 2's
AutoCastVariable. The optimizer, checkpoints and `assign` see the float32
variable; gradients flow back through the cast in float32."""
import threading

from tensorlet import dtypes as _dt
from tensorlet.variables import Variable

__all__ = ["AutoCastVariable", "autocast_scope"]

_state = threading.local()


def _active():
  return getattr(_state, "dtype", None)


class autocast_scope:  # noqa: N801 (a context manager used like a function)
  """Within it, AutoCastVariables read as `dtype` (None: as themselves)."""

  def __init__(self, dtype):
    self._dtype = dtype

  def __enter__(self):
    self._saved = _active()
    _state.dtype = self._dtype

  def __exit__(self, *exc):
    _state.dtype = self._saved
    return False


class AutoCastVariable(Variable):
  """A floating Variable read as the active autocast dtype."""

  _reading = False
  # Made in a strategy's scope: an AutoCastDistributedVariable, also a MirroredVariable
  # (or SyncOnReadVariable), as TF's.
  _tl_distributed_name = "AutoCastDistributedVariable"

  def _as_tensor(self):
    self._reading = True  # the read itself is of the float32 variable
    try:
      t = super()._as_tensor()
    finally:
      self._reading = False
    dtype = _active()
    if dtype is not None and dtype is not self._dtype:
      from tensorlet.ops import math_ops
      return math_ops.cast(t, dtype)
    return t

  @property
  def dtype(self):
    """The dtype reads give: the compute dtype inside the layer's call, else the
    variable's own."""
    dtype = None if self._reading else _active()
    return dtype if dtype is not None else self._dtype

  @property
  def true_dtype(self):
    return self._dtype

  def _same_dtype(self, value):
    # Updates computed in the compute dtype (e.g. BatchNormalization's moving
    # statistics) are stored in the variable's dtype.
    from tensorlet.tensor import Tensor
    if isinstance(value, Tensor) and value.dtype is not self._dtype and \
        value.dtype.is_floating:
      from tensorlet.ops import math_ops
      return math_ops.cast(value, self._dtype)
    return value

  def assign(self, value, *args, **kwargs):
    return super().assign(self._same_dtype(value), *args, **kwargs)

  def assign_add(self, delta, *args, **kwargs):
    return super().assign_add(self._same_dtype(delta), *args, **kwargs)

  def assign_sub(self, delta, *args, **kwargs):
    return super().assign_sub(self._same_dtype(delta), *args, **kwargs)


def as_dtype_or_none(name):
  return None if name is None else _dt.as_dtype(name)
