"""The variables MirroredStrategy creates in its scope.

MirroredVariable (synchronization ON_WRITE/AUTO): one value for all replicas. The
replicas of one process share a host, so it keeps a single copy; every update made in a
replica function is merged first (reduced as its `aggregation` says, then applied once),
which keeps it identical on every replica as TF's copies are. Across workers, the
initial value is broadcast from the chief.

One difference: with aggregation NONE, TF updates each replica's copy with that
replica's value, and the copies drift apart when the values differ; here replica 0's
update is applied (what TF reads in cross-replica context: its first copy), so a replica
other than 0 reading the variable after such a drifting update sees replica 0's value.

SyncOnReadVariable (synchronization ON_READ, e.g. metric totals, BatchNormalization's
moving statistics): one copy per local replica, each replica reads and writes its own;
read in cross-replica context it is their aggregate (SUM / MEAN over all replicas in
sync, across workers too).
"""
import numpy as np

from tensorlet.distribute._state import current_extended, local_replica_of, state
from tensorlet.distribute.reduce_util import ReduceOp
from tensorlet.distribute import values as _values
from tensorlet.variables import Variable, VariableAggregation, VariableSynchronization

__all__ = ["MirroredVariable", "SyncOnReadVariable"]


def _broadcast_initial_value(var, ext):
  if ext._collectives.size > 1:
    (value,) = ext._collectives.broadcast([np.asarray(var._value)], root=0)
    var._set(np.asarray(value, var._dtype.as_numpy_dtype))


class MirroredVariable(Variable):
  """One logical variable, identical on every replica of its strategy."""

  def __init__(self, *args, **kwargs):
    if self.__dict__.get("_tl_extended") is not None:
      return  # made by a replica function's merge_call, already initialised
    ext = current_extended()
    self._tl_extended = ext
    super().__init__(*args, **kwargs)
    if self._synchronization is VariableSynchronization.AUTO:
      self._synchronization = VariableSynchronization.ON_WRITE
    _broadcast_initial_value(self, ext)

  @property
  def values(self):
    return (self,) * self._tl_extended._num_local

  def _tl_local_values(self):
    return self.values

  def _merged_update(self, method, value, read_value):
    rc_local = local_replica_of(self._tl_extended)
    if rc_local is None or self._tl_extended._num_replicas_in_sync == 1:
      return getattr(Variable, method)(self, value, read_value=read_value)
    agg = self._aggregation
    rc = state.replica

    def merge(strategy, v):
      if agg in (VariableAggregation.ONLY_FIRST_REPLICA, VariableAggregation.NONE):
        val = _values.local_values(v)[0]
      else:
        val = strategy.extended.reduce_to(ReduceOp.from_variable_aggregation(agg), v)
      getattr(Variable, method)(self, val, read_value=False)
    rc.merge_call(merge, args=(value,))
    return self if read_value else None

  def assign(self, value, use_locking=None, name=None, read_value=True):
    return self._merged_update("assign", value, read_value)

  def assign_add(self, delta, use_locking=None, name=None, read_value=True):
    return self._merged_update("assign_add", delta, read_value)

  def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
    return self._merged_update("assign_sub", delta, read_value)

  def __repr__(self):
    return "MirroredVariable:{\n" + ",\n".join(
        f"  {i}: {Variable.__repr__(self)}" for i in range(self._tl_extended._num_local)) + \
        "\n}"


class SyncOnReadVariable(Variable):
  """A variable with one copy per local replica, aggregated when read across replicas."""

  def __init__(self, *args, **kwargs):
    if self.__dict__.get("_tl_extended") is not None:
      return
    ext = current_extended()
    self._tl_extended = ext
    super().__init__(*args, **kwargs)
    _broadcast_initial_value(self, ext)
    # The copies hold the values; this object's own storage only names the variable.
    self._tl_copies = []
    for k in range(ext._num_local):
      c = object.__new__(Variable)
      Variable.__init__(c, np.array(self._value, copy=True), trainable=False,
                        dtype=self._dtype, shape=self._shape,
                        synchronization=self._synchronization, aggregation=self._aggregation)
      c._name = self._name if k == 0 else f"{self._name}/replica_{k}"
      self._tl_copies.append(c)

  # Each replica reads and writes its own copy (the first one in cross-replica context).
  @property
  def _handle(self):
    copies = self.__dict__.get("_tl_copies")
    if not copies or state.saving:
      return self.__dict__["_tl_own_handle"]
    k = local_replica_of(self._tl_extended)
    return copies[k or 0]._handle

  @_handle.setter
  def _handle(self, h):
    self.__dict__["_tl_own_handle"] = h

  @property
  def values(self):
    return tuple(self._tl_copies)

  def _tl_local_values(self):
    return self.values

  def _copy(self):
    k = local_replica_of(self._tl_extended)
    return None if k is None else self._tl_copies[k]

  def _as_tensor(self):
    c = self._copy()
    if c is not None:
      return c._as_tensor()
    if state.saving:
      # The tracked variable, holding the aggregate the checkpoint part saves.
      from tensorlet.context import init_scope
      with init_scope():
        Variable._set(self, self._aggregate().numpy())
      return Variable._as_tensor(self)
    return self._aggregate()

  def _aggregate(self):
    """The cross-replica value: the copies reduced as `aggregation` says."""
    from tensorlet.distribute import cross_device
    ext = self._tl_extended
    agg = self._aggregation
    if agg in (VariableAggregation.SUM, VariableAggregation.MEAN):
      reads = [c._as_tensor() for c in self._tl_copies]
      op = ReduceOp.from_variable_aggregation(agg)
      return cross_device.batch_reduce(ext, op, [_values.PerReplica(reads)])[0]
    return self._tl_copies[0]._as_tensor()

  def numpy(self):
    return np.array(self._as_tensor().numpy(), copy=True)

  def __array__(self, dtype=None, copy=None):
    v = self.numpy()
    return v.astype(dtype) if dtype is not None else v

  def _cross_replica_write(self, method, value, read_value):
    ext = self._tl_extended
    if method != "assign" and self._aggregation is VariableAggregation.SUM:
      raise ValueError(f"SyncOnReadVariable does not support `{method}` in cross-replica "
                       f"context when aggregation is set to `tf.VariableAggregation.SUM`.")
    if method == "assign" and self._aggregation is VariableAggregation.SUM:
      from tensorlet.ops import math_ops
      from tensorlet.tensor import convert_to_tensor
      value = math_ops.divide(convert_to_tensor(value, self._dtype),
                              math_ops.cast(ext._num_replicas_in_sync, self._dtype))
    for c in self._tl_copies:
      getattr(c, method)(value, read_value=False)
    return self if read_value else None

  def _write(self, method, value, read_value):
    c = self._copy()
    if c is None:
      return self._cross_replica_write(method, value, read_value)
    getattr(c, method)(value, read_value=False)
    return self if read_value else None

  def assign(self, value, use_locking=None, name=None, read_value=True):
    return self._write("assign", value, read_value)

  def assign_add(self, delta, use_locking=None, name=None, read_value=True):
    return self._write("assign_add", delta, read_value)

  def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
    return self._write("assign_sub", delta, read_value)

  def __repr__(self):
    return "SyncOnReadVariable:{\n" + ",\n".join(
        f"  {i}: {Variable.__repr__(c)}" for i, c in enumerate(self._tl_copies)) + "\n}"
