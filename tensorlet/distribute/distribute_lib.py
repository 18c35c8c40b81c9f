"""Strategies, their extended objects and replica contexts; the default strategy.

Every strategy here is "n local replicas in this process, times the workers of its
Collectives": the default strategy and OneDeviceStrategy have one replica and plain
variables, MirroredStrategy one replica per device and mirrored variables. `run` calls
the function once per local replica (mirrored_run.py); reductions go through
cross_device.py.
"""
import contextlib
import inspect

from tensorlet import _nest as nest
from tensorlet import variables as _variables
from tensorlet.ops import nn_ops as _nn_ops
from tensorlet.distribute import cross_device, values as _values
from tensorlet.distribute._state import state, current_extended
from tensorlet.distribute.collectives import Collectives, LocalCollectives
from tensorlet.distribute.reduce_util import ReduceOp, as_reduce_op

__all__ = ["Strategy", "StrategyExtended", "ReplicaContext", "get_strategy", "has_strategy",
           "in_cross_replica_context", "get_replica_context", "experimental_set_strategy"]


def get_strategy():
  """The strategy in scope (or running the current replica); else the default strategy."""
  r = state.replica
  if r is not None:
    return r._strategy
  if state.scopes:
    return state.scopes[-1]
  return _default_strategy()


def has_strategy():
  """True inside a (non-default) strategy's scope or replica function."""
  return get_strategy() is not _default_strategy()


def in_cross_replica_context():
  """True in a strategy's scope outside its replica functions (and in merge_call)."""
  return state.replica is None and bool(state.scopes)


def get_replica_context():
  """The ReplicaContext of the running replica; None in cross-replica context; outside any
  strategy the default strategy's replica context."""
  r = state.replica
  if r is not None:
    return r
  if state.scopes:
    return None
  return _default_strategy().extended._default_replica_context


def experimental_set_strategy(strategy):
  """Enters `strategy`'s scope for good (None: leaves the one entered this way)."""
  old = getattr(state, "set_scope", None)
  if old is not None:
    old.__exit__(None, None, None)
    state.set_scope = None
  if strategy is not None:
    state.set_scope = strategy.scope()
    state.set_scope.__enter__()


class ReplicaContext:
  """What a replica function sees: its id, the strategy, all_reduce and merge_call."""

  def __init__(self, strategy, replica_id_in_sync_group, local_id=0, coordinator=None):
    self._strategy = strategy
    self._extended = strategy.extended
    self._replica_id = replica_id_in_sync_group
    self._local_id = local_id
    self._coordinator = coordinator

  @property
  def strategy(self):
    return self._strategy

  @property
  def num_replicas_in_sync(self):
    return self._extended._num_replicas_in_sync

  @property
  def replica_id_in_sync_group(self):
    if self._strategy is _default_strategy():
      return self._replica_id  # as TF: a Python int outside any strategy
    from tensorlet import dtypes
    from tensorlet.tensor import constant
    return constant(self._replica_id, dtypes.int32)

  @property
  def devices(self):
    return (self._extended.worker_devices[self._local_id],)

  @property
  def _needs_merge(self):
    return self._extended._num_replicas_in_sync > 1

  def merge_call(self, merge_fn, args=(), kwargs=None):
    """Runs merge_fn(strategy, *args, **kwargs) once in cross-replica context, with
    the replicas' arguments regrouped (PerReplica where they differ); every replica gets
    its part of the result."""
    kwargs = dict(kwargs or {})
    if self._coordinator is not None:
      return self._coordinator.merge(self, merge_fn, args, kwargs)
    saved = state.replica
    state.replica = None
    pushed = self._strategy not in state.scopes[-1:]
    if pushed:
      state.scopes.append(self._strategy)
    try:
      if self._extended._collectives.size > 1:
        # One local replica of several workers: its values are per-replica values.
        args, kwargs = _values.regroup([(args, kwargs)])
      result = merge_fn(self._strategy, *args, **kwargs)
    finally:
      if pushed:
        state.scopes.pop()
      state.replica = saved
    return _values.select_replica(0, result)

  def all_reduce(self, reduce_op, value, options=None):
    """The reduction of `value` (a nest of tensors) over all replicas in sync, on each."""
    reduce_op = as_reduce_op(reduce_op)
    flat = nest.flatten(value)

    def merge(strategy, *per_replica):
      # As TF: a value that is the same object on every replica comes back as it is.
      dist = [i for i, v in enumerate(per_replica)
              if isinstance(v, _values.DistributedValues)]
      out = [v if isinstance(v, _values.DistributedValues) else cross_device._tensor(v)
             for v in per_replica]
      reduced = strategy.extended.batch_reduce_to(reduce_op, [per_replica[i] for i in dist])
      for i, r in zip(dist, reduced):
        out[i] = r
      return _values.Mirrored([out])
    if not self._needs_merge:
      reduced = [cross_device._tensor(v) for v in flat]
    else:
      reduced = self.merge_call(merge, args=tuple(flat))
      from tensorlet.ops.array_ops import identity
      reduced = [identity(t) for t in reduced]  # each replica's own tensor, as TF's
    return nest.pack_sequence_as(value, reduced)

  def all_gather(self, value, axis, options=None):
    """The replicas' values concatenated along `axis`, on each replica."""
    flat = nest.flatten(value)

    def merge(strategy, *per_replica):
      return _values.Mirrored([[strategy.extended._gather(v, axis) for v in per_replica]])
    return nest.pack_sequence_as(value, self.merge_call(merge, args=tuple(flat)))

  def __repr__(self):
    return f"<{type(self).__name__} replica {self._replica_id} of " \
           f"{self.num_replicas_in_sync}>"


class StrategyExtended:
  """A strategy's machinery: devices, the Collectives, reductions, variable creation.

  Args:
    container_strategy: the Strategy this belongs to.
    devices: the local replicas' devices.
    collectives: the worker group (default LocalCollectives(): this process alone).
    distribute_variables: whether variables created in scope are mirrored /
      sync-on-read (MirroredStrategy) or plain (default and one-device strategies).
  """

  def __init__(self, container_strategy, devices, collectives=None,
               distribute_variables=False):
    from tensorlet.context import canonical_device
    if collectives is not None and not isinstance(collectives, Collectives):
      raise TypeError(f"collectives must be a tf.distribute Collectives object, got "
                      f"{type(collectives).__name__}")
    self._container_strategy_ref = container_strategy
    self._devices = tuple(canonical_device(d) if d.startswith("/") or ":" in d else d
                          for d in devices)
    self._collectives = collectives if collectives is not None else LocalCollectives()
    if self._collectives.size > 1:
      from tensorlet.distribute import _state as _process
      _process.worker_group = self._collectives
    self._distribute_variables = distribute_variables
    self._num_local = len(self._devices)

  @property
  def _default_replica_context(self):
    return ReplicaContext(self._container_strategy_ref, 0)

  @property
  def collectives(self):
    """(tensorlet) The worker group: LocalCollectives, or a multi-worker strategy's."""
    return self._collectives

  @property
  def _num_replicas_in_sync(self):
    return self._num_local * self._collectives.size

  @property
  def worker_devices(self):
    return self._devices

  @property
  def parameter_devices(self):
    return self._devices

  @property
  def should_checkpoint(self):
    """Whether this worker writes checkpoints (the chief)."""
    return self._collectives.is_chief

  @property
  def should_save_summary(self):
    """Whether this worker writes summaries (the chief)."""
    return self._collectives.is_chief

  @property
  def should_init(self):
    return True

  @property
  def experimental_between_graph(self):
    return self._collectives.size > 1

  @property
  def experimental_should_init(self):
    return True

  # ------------------------------------------------------------- reductions
  def reduce_to(self, reduce_op, value, destinations=None, options=None):
    return self.batch_reduce_to(reduce_op, [(value, destinations)], options)[0]

  def batch_reduce_to(self, reduce_op, value_destination_pairs, options=None):
    """Reduces each value over all replicas in sync (one fused cross-worker call)."""
    reduce_op = as_reduce_op(reduce_op)
    vals = [p[0] if isinstance(p, tuple) else p for p in value_destination_pairs]
    return cross_device.batch_reduce(self, reduce_op, vals)

  def _gather(self, value, axis):
    from tensorlet.ops import array_ops
    parts = [cross_device._tensor(v) for v in _values.local_values(value)]
    local = parts[0] if len(parts) == 1 else array_ops.concat(parts, axis)
    if self._collectives.size == 1:
      return local
    import numpy as np
    from tensorlet.tensor import EagerTensor
    coll = self._collectives
    if isinstance(local, EagerTensor):
      return EagerTensor(np.asarray(coll.all_gather(local.numpy(), axis)), local.dtype)
    from tensorlet.ops import script_ops
    return script_ops.numpy_function(lambda a: np.asarray(coll.all_gather(a, axis), a.dtype),
                                     [local], local.dtype)

  def update(self, var, fn, args=(), kwargs=None, group=True):
    """Runs fn(var, *args, **kwargs) in cross-replica context (once: a mirrored variable
    keeps one value for all replicas)."""
    return fn(var, *_values.select_replica(0, tuple(args)),
              **_values.select_replica(0, dict(kwargs or {})))

  def value_container(self, value):
    return value

  def variable_created_in_scope(self, v):
    return getattr(v, "_tl_extended", None) is self

  # --------------------------------------------------------------- variables
  def _make_variable(self, args, kwargs, base=_variables.Variable):
    """The object tf.Variable(*args, **kwargs) (or base(...), a Variable subclass that
    asks to be distributed) returns in this strategy's scope."""
    if not self._distribute_variables:
      return None
    from tensorlet.distribute import distributed_variables as dv
    bound = _VARIABLE_SIGNATURE.bind_partial(None, *args, **kwargs).arguments
    sync = bound.get("synchronization", _variables.VariableSynchronization.AUTO)
    cls = dv.SyncOnReadVariable if sync is _variables.VariableSynchronization.ON_READ \
        else dv.MirroredVariable
    if base is not _variables.Variable:
      cls = _distributed_subclass(base, cls)
    r = state.replica
    if r is not None and r._extended is self and r._coordinator is not None:
      return r._coordinator.variable(r._local_id, cls)
    return object.__new__(cls)


_VARIABLE_SIGNATURE = inspect.signature(_variables.Variable.__init__)
_SUBCLASSES = {}


def _distributed_subclass(base, dist_cls):
  """base's behaviour over dist_cls's distribution (TF's AutoCastDistributedVariable)."""
  key = (base, dist_cls)
  if key not in _SUBCLASSES:
    _SUBCLASSES[key] = type(base._tl_distributed_name, (base, dist_cls),
                            {"__module__": base.__module__})
  return _SUBCLASSES[key]


def _create_variable(args, kwargs, cls=_variables.Variable):
  ext = current_extended()
  return None if ext is None else ext._make_variable(args, kwargs, cls)


_variables._creator = _create_variable


def _replicas_in_sync():
  return get_strategy().num_replicas_in_sync


_nn_ops.num_replicas_in_sync = _replicas_in_sync


class Strategy:
  """tf.distribute.Strategy: how computation and variables spread over replicas."""

  def __init__(self, extended):
    self._extended = extended

  @property
  def extended(self):
    return self._extended

  @property
  def num_replicas_in_sync(self):
    return self._extended._num_replicas_in_sync

  @property
  def cluster_resolver(self):
    return None

  @contextlib.contextmanager
  def _scope(self):
    if state.scopes and state.scopes[-1] is not self and \
        state.scopes[-1] is not _default_strategy() and self is not _default_strategy():
      raise ValueError("Mixing different tf.distribute.Strategy objects: "
                       f"{self!r} is not {state.scopes[-1]!r}")
    state.scopes.append(self)
    try:
      yield self
    finally:
      state.scopes.pop()

  def scope(self):
    """Variables created in it belong to this strategy; it is the current strategy."""
    if self is _default_strategy():
      return contextlib.nullcontext(self)  # as TF: still the default replica context
    return self._scope()

  def run(self, fn, args=(), kwargs=None, options=None):
    """Calls fn(*args, **kwargs) on each replica, with PerReplica arguments unpacked;
    returns the results regrouped (PerReplica where the replicas' results differ)."""
    if not callable(fn):
      raise TypeError(f"strategy.run: fn must be callable, got {fn!r}")
    if state.replica is not None and state.replica._strategy is self:
      raise RuntimeError("Method requires being in cross-replica context, use "
                         "get_replica_context().merge_call()")
    from tensorlet.distribute import mirrored_run
    return mirrored_run.call_for_each_replica(self, fn, tuple(args), dict(kwargs or {}))

  def reduce(self, reduce_op, value, axis=None):
    """Combines the replicas' values (SUM or MEAN) into one tensor (nests map)."""
    reduce_op = as_reduce_op(reduce_op)
    if state.replica is not None and state.replica._strategy is self:
      raise RuntimeError("`reduce` must be called in cross-replica context (outside "
                         "`strategy.run`); in a replica use get_replica_context().all_reduce")
    flat = nest.flatten(value)
    if axis is None:
      out = self._extended.batch_reduce_to(reduce_op, flat)
    else:
      out = [cross_device.reduce_along_axis(self._extended, reduce_op, v, axis) for v in flat]
    return nest.pack_sequence_as(value, out)

  def experimental_local_results(self, value):
    """The local replicas' values of `value` (a tuple; nests give tuples of nests)."""
    flat = nest.flatten(value)
    if not flat:
      return (value,)
    per = [_values.local_values(v) for v in flat]
    n = max(len(p) for p in per)
    return tuple(nest.pack_sequence_as(value, [p[i] if len(p) > 1 else p[0] for p in per])
                 for i in range(n))

  def gather(self, value, axis):
    """The replicas' values concatenated along `axis` (across workers too)."""
    return nest.map_structure(lambda v: self._extended._gather(v, axis), value)

  def experimental_distribute_dataset(self, dataset, options=None):
    """Splits each global batch of `dataset` across the replicas in sync."""
    from tensorlet.distribute import input_lib
    return input_lib.DistributedDataset(dataset, self._extended, options)

  def distribute_datasets_from_function(self, dataset_fn, options=None):
    """dataset_fn(InputContext) builds this worker's dataset of per-replica batches."""
    from tensorlet.distribute import input_lib
    return input_lib.DistributedDatasetsFromFunction(dataset_fn, self._extended, options)

  def experimental_distribute_values_from_function(self, value_fn):
    """PerReplica of value_fn(ValueContext) for each local replica."""
    from tensorlet.distribute import input_lib
    ext = self._extended
    base = ext._collectives.rank * ext._num_local
    vals = [value_fn(input_lib.ValueContext(base + i, ext._num_replicas_in_sync))
            for i in range(ext._num_local)]
    return _values.PerReplica(vals)

  def __repr__(self):
    return f"<{type(self).__module__}.{type(self).__name__} object, " \
           f"{self.num_replicas_in_sync} replica(s)>"


class _DefaultDistributionStrategy(Strategy):
  """The strategy in effect outside any scope: one replica, plain variables."""

  def __init__(self):
    super().__init__(StrategyExtended(self, ["/device:CPU:0"]))

  def run(self, fn, args=(), kwargs=None, options=None):
    return fn(*args, **(kwargs or {}))


_DEFAULT = []


def _default_strategy():
  if not _DEFAULT:
    _DEFAULT.append(_DefaultDistributionStrategy())
  return _DEFAULT[0]
