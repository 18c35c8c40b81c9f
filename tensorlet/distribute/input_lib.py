"""Distributed input: global batches split across the replicas in sync, and datasets
built per worker from an InputContext.

experimental_distribute_dataset: every worker iterates the same dataset; each global
batch of b elements is cut into num_replicas_in_sync pieces of ceil(b / n) elements in
replica order (the last ones shorter or empty, as TF's rebatching), and each worker
keeps the pieces of its own replicas: sharding by data.

The dataset's `options().experimental_distribute.auto_shard_policy` chooses how workers
share it, as TF: DATA as above; OFF (and HINT) every worker reads the whole dataset and
steps through all the pieces of every global batch, its replicas' share at a time; FILE
each worker reads its share of the input files (file i when i % workers == its index)
and steps through all the pieces of its own global batches, the workers agreeing each
step whether any has data left (those that ran out get empty batches); AUTO (the
default) is FILE when the pipeline reads files, else DATA.
"""
import enum

import numpy as np

from tensorlet import _nest as nest
from tensorlet import errors
from tensorlet.distribute.values import PerReplica

__all__ = ["InputContext", "InputOptions", "InputReplicationMode", "RunOptions", "ValueContext", "DistributedDataset",
           "DistributedDatasetsFromFunction", "DistributedIterator", "split_batch"]


class InputContext:
  """What dataset_fn learns about the input pipeline it builds."""

  def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
    self._num_input_pipelines = num_input_pipelines
    self._input_pipeline_id = input_pipeline_id
    self._num_replicas_in_sync = num_replicas_in_sync

  @property
  def num_input_pipelines(self):
    return self._num_input_pipelines

  @property
  def input_pipeline_id(self):
    return self._input_pipeline_id

  @property
  def num_replicas_in_sync(self):
    return self._num_replicas_in_sync

  def get_per_replica_batch_size(self, global_batch_size):
    if global_batch_size % self._num_replicas_in_sync != 0:
      raise ValueError(f"The `global_batch_size` {global_batch_size!r} is not divisible by "
                       f"`num_replicas_in_sync` {self._num_replicas_in_sync!r}")
    return global_batch_size // self._num_replicas_in_sync

  def __str__(self):
    return (f"tf.distribute.InputContext(input pipeline id {self._input_pipeline_id}, total: "
            f"{self._num_input_pipelines})")


class ValueContext:
  """What value_fn of experimental_distribute_values_from_function learns."""

  def __init__(self, replica_id_in_sync_group=0, num_replicas_in_sync=1):
    self._replica_id_in_sync_group = replica_id_in_sync_group
    self._num_replicas_in_sync = num_replicas_in_sync

  @property
  def replica_id_in_sync_group(self):
    return self._replica_id_in_sync_group

  @property
  def num_replicas_in_sync(self):
    return self._num_replicas_in_sync


class InputReplicationMode(enum.Enum):
  """How input pipelines map to replicas (PER_WORKER: one per worker, split per replica)."""
  PER_WORKER = "PER_WORKER"
  PER_REPLICA = "PER_REPLICA"


class RunOptions:
  """tf.distribute.RunOptions (TPU-only settings in TF; accepted and kept)."""

  def __init__(self, experimental_enable_dynamic_batch_size=True,
               experimental_bucketizing_dynamic_shape=False, experimental_xla_options=None):
    self.experimental_enable_dynamic_batch_size = experimental_enable_dynamic_batch_size
    self.experimental_bucketizing_dynamic_shape = experimental_bucketizing_dynamic_shape
    self.experimental_xla_options = experimental_xla_options


class InputOptions:
  """tf.distribute.InputOptions (placement hints; tensorlet keeps data on the host)."""

  def __init__(self, experimental_fetch_to_device=None, experimental_replication_mode=None,
               experimental_place_dataset_on_device=False,
               experimental_per_replica_buffer_size=1):
    self.experimental_fetch_to_device = experimental_fetch_to_device
    self.experimental_replication_mode = experimental_replication_mode
    self.experimental_place_dataset_on_device = experimental_place_dataset_on_device
    self.experimental_per_replica_buffer_size = experimental_per_replica_buffer_size


def split_batch(t, n, first, count):
  """Pieces first..first+count-1 of `t` cut along axis 0 into n pieces of ceil(b / n)."""
  from tensorlet.composite_tensor import CompositeTensor
  from tensorlet.ops import array_ops, math_ops
  from tensorlet.tensor import convert_to_tensor
  if isinstance(t, CompositeTensor) and hasattr(t, "dense_shape"):
    return _split_sparse(t, n, first, count)
  if isinstance(t, CompositeTensor):
    b = t.shape[0] if t.shape.rank else None
    if b is None or not hasattr(t, "nrows"):
      raise ValueError(f"experimental_distribute_dataset: cannot split a batch of "
                       f"{type(t).__name__} across replicas (ragged batches with a known "
                       f"number of rows can be split)")
    per = -(-b // n)
    return [t[min(i * per, b):min((i + 1) * per, b)] for i in range(first, first + count)]
  t = convert_to_tensor(t)
  if t.shape.rank == 0:
    raise ValueError("experimental_distribute_dataset: the dataset's elements must be "
                     "batched (rank >= 1) to be split across replicas; call "
                     "dataset.batch(global_batch_size) first")
  b = t.shape[0]
  if b is not None:
    per = -(-b // n)
    return [t[min(i * per, b):min((i + 1) * per, b)] for i in range(first, first + count)]
  bt = array_ops.shape(t)[0]
  per = (bt + n - 1) // n
  return [t[math_ops.minimum(i * per, bt):math_ops.minimum((i + 1) * per, bt)]
          for i in range(first, first + count)]


def _sparse_rows(t, lo, hi):
  """Rows lo..hi-1 of a SparseTensor: their entries renumbered from row 0, dense_shape
  [hi - lo, ...]."""
  from tensorlet import dtypes
  from tensorlet.ops import array_ops, indexing_ops, math_ops
  lo, hi = math_ops.cast(lo, dtypes.int64), math_ops.cast(hi, dtypes.int64)
  rows = t.indices[:, 0]
  keep = math_ops.logical_and(math_ops.greater_equal(rows, lo), math_ops.less(rows, hi))
  rest = t.dense_shape[1:]
  shift = array_ops.concat([array_ops.reshape(lo, [1]), array_ops.zeros_like(rest)], 0)
  shape = array_ops.concat([array_ops.reshape(hi - lo, [1]), rest], 0)
  return type(t)(math_ops.subtract(indexing_ops.boolean_mask(t.indices, keep), shift),
                 indexing_ops.boolean_mask(t.values, keep), shape)


def _split_sparse(t, n, first, count):
  """A SparseTensor's rows cut as a dense batch's."""
  from tensorlet.ops import math_ops
  b = t.shape[0] if t.shape.rank else None
  b = t.dense_shape[0] if b is None else b
  per = (b + n - 1) // n
  return [_sparse_rows(t, math_ops.minimum(i * per, b), math_ops.minimum((i + 1) * per, b))
          for i in range(first, first + count)]


def _row_slice(t, lo, hi):
  if hasattr(t, "dense_shape") and hasattr(t, "indices"):
    return _sparse_rows(t, lo, hi)
  return t[lo:hi]


def split_structure(element, extended):
  """This worker's replicas' pieces of a global batch: PerReplica leaves (plain tensors
  when the worker has one replica)."""
  n = extended._num_replicas_in_sync
  k = extended._num_local
  first = extended._collectives.rank * k
  if n == 1:
    return element

  def split(t):
    parts = split_batch(t, n, first, k)
    return parts[0] if k == 1 else PerReplica(parts)
  return nest.map_structure(split, element)


class DistributedIterator:
  """Iterator over per-replica batches (`next`, `get_next`)."""

  def __init__(self, next_fn, element_spec=None):
    self._next = next_fn
    self._element_spec = element_spec

  def __iter__(self):
    return self

  def __next__(self):
    return self._next()

  def get_next(self):
    return self._next()

  @property
  def element_spec(self):
    return self._element_spec


_OFF, _AUTO, _FILE, _DATA, _HINT = -1, 0, 1, 2, 3


def _shard_policy(dataset):
  try:
    policy = dataset.options().experimental_distribute.auto_shard_policy
  except AttributeError:  # an iterable that is not a tf.data.Dataset
    return _DATA
  return _AUTO if policy is None else int(policy)


def _empty_from_spec(spec):
  """A batch of 0 rows for each leaf of an element_spec."""
  from tensorlet.tensor import convert_to_tensor

  def empty(s):
    dims = [0] + [d if d is not None else 0 for d in list(s.shape)[1:]]
    return convert_to_tensor(np.zeros(dims, s.dtype.as_numpy_dtype), s.dtype)
  return nest.map_structure(empty, spec)


def _all_pieces(element, n):
  """The n pieces of a global batch, each in the element's structure."""
  flat = nest.flatten(element)
  cut = [split_batch(t, n, 0, n) for t in flat]
  return [nest.pack_sequence_as(element, [c[i] for c in cut]) for i in range(n)]


def _fixed_pieces(element, per):
  """A global batch cut into pieces of `per` rows (the last shorter), as TF rebatches
  when every worker steps through every piece."""
  flat = nest.flatten(element)
  b = flat[0].shape[0]
  return [nest.pack_sequence_as(element, [_row_slice(t, i, min(i + per, b)) for t in flat])
          for i in range(0, b, per)]


def _rows(piece):
  return nest.flatten(piece)[0].shape[0] != 0


def _per_replica(parts):
  if len(parts) == 1:
    return parts[0]
  flat = [nest.flatten(p) for p in parts]
  return nest.pack_sequence_as(parts[0], [PerReplica(v) for v in zip(*flat)])


class DistributedDataset:
  """A dataset whose elements are split across the replicas in sync."""

  _tl_distributed_dataset = True

  def __init__(self, dataset, extended, options=None):
    if not hasattr(dataset, "__iter__"):
      raise TypeError(f"experimental_distribute_dataset expects a tf.data.Dataset, got "
                      f"{type(dataset).__name__}")
    self._dataset, self._extended, self._options = dataset, extended, options
    self._mode = "data"
    c = extended._collectives
    if c.size > 1:
      policy = _shard_policy(dataset)
      if policy in (_OFF, _HINT):
        self._mode = "all"
      elif policy == _FILE:
        self._dataset, self._mode = dataset._tl_shard_by_files(c.size, c.rank), "files"
      elif policy == _AUTO and hasattr(dataset, "_tl_shard_by_files"):
        try:
          self._dataset, self._mode = dataset._tl_shard_by_files(c.size, c.rank), "files"
        except (errors.NotFoundError, errors.InvalidArgumentError):
          pass  # no files, or too few: by data

  def __iter__(self):
    it = iter(self._dataset)
    ext = self._extended
    if self._mode == "data":
      return DistributedIterator(lambda: split_structure(next(it), ext), self.element_spec)
    n, k, coll = ext._num_replicas_in_sync, ext._num_local, ext._collectives
    size = self._dataset._tl_batch_size() if hasattr(self._dataset, "_tl_batch_size") else None
    if size:
      per = -(-size // n)
      pieces = (p for e in it for p in _fixed_pieces(e, per))
    else:
      pieces = (p for e in it for p in _all_pieces(e, n) if _rows(p))
    sync = self._mode == "files"

    def step():
      parts = []
      for p in pieces:
        parts.append(p)
        if len(parts) == k:
          break
      if sync:  # workers read different files: go on while any has data
        (total,) = coll.all_reduce([np.array(len(parts), np.int64)], "sum")
        if int(total) == 0:
          raise StopIteration
        if not parts:
          parts = [_empty_from_spec(self.element_spec)]
      elif not parts:
        raise StopIteration
      while len(parts) < k:
        parts.append(nest.map_structure(_empty_like, parts[0]))
      return _per_replica(parts)
    return DistributedIterator(step, self.element_spec)

  @property
  def element_spec(self):
    return getattr(self._dataset, "element_spec", None)

  def cardinality(self):
    """The number of steps: the global batches (times workers when each steps through
    every piece; unknown when workers read different files)."""
    from tensorlet.tensor import convert_to_tensor
    card = self._dataset.cardinality()
    if self._mode == "data":
      return card
    n = int(card)
    if self._mode == "files":
      n = -2  # unknown
    elif n >= 0:
      n *= self._extended._collectives.size
    return convert_to_tensor(np.int64(n))

  def __tl_for_stmt__(self, extra_test, body, get_state, set_state, symbol_names, opts):
    # AutoGraph's `for x in dist_dataset` in a tf.function: the dataset's own graph loop,
    # each global batch split before the body sees it.
    ext = self._extended
    if self._mode == "data":
      self._dataset.__tl_for_stmt__(extra_test, lambda e: body(split_structure(e, ext)),
                                    get_state, set_state, symbol_names, opts)
      return
    if extra_test is not None:
      raise NotImplementedError(
          "`break` or `return` inside a tf.function loop over a distributed dataset that "
          "every worker steps through whole (auto_shard_policy OFF or FILE) is not "
          "implemented in tensorlet; iterate it outside the tf.function")
    n, k = ext._num_replicas_in_sync, ext._num_local
    if self._mode == "files":
      # Workers read different files, so their step counts may differ (files % workers
      # != 0): every step agrees across the workers whether any still has data.
      coll = ext._collectives
      size = self._dataset._tl_batch_size() if hasattr(self._dataset, "_tl_batch_size") \
          else None

      def agree(count):
        (total,) = coll.all_reduce([np.array(count, np.int64)], "sum")
        return int(total)
      steps = self._dataset._tl_synchronized_steps(k, -(-size // n) if size else None, n,
                                                   agree)
      steps.__tl_for_stmt__(None, lambda e: body(_per_replica(list(e))), get_state,
                            set_state, symbol_names, opts)
      return

    def steps(e):  # one global batch: workers' worth of steps, unrolled in the body
      pieces = _all_pieces(e, n)
      for j in range(0, n, k):
        body(_per_replica(pieces[j:j + k]))
    self._dataset.__tl_for_stmt__(None, steps, get_state, set_state, symbol_names, opts)


def _empty_like(t):
  return t[:0]


class DistributedDatasetsFromFunction:
  """This worker's dataset from dataset_fn(InputContext); each step takes one element per
  local replica (replicas left when it runs out get empty batches)."""

  def __init__(self, dataset_fn, extended, options=None):
    c = extended._collectives
    self._ctx = InputContext(c.size, c.rank, extended._num_replicas_in_sync)
    self._dataset = dataset_fn(self._ctx)
    if not hasattr(self._dataset, "__iter__"):
      raise TypeError(f"dataset_fn must return a tf.data.Dataset, got "
                      f"{type(self._dataset).__name__}")
    self._extended, self._options = extended, options

  def __iter__(self):
    it = iter(self._dataset)
    k = self._extended._num_local

    def step():
      parts = [next(it)]
      for _ in range(k - 1):
        try:
          parts.append(next(it))
        except StopIteration:
          parts.append(nest.map_structure(_empty_like, parts[0]))
      if k == 1:
        return parts[0]
      flat = [nest.flatten(p) for p in parts]
      return nest.pack_sequence_as(parts[0], [PerReplica(v) for v in zip(*flat)])
    return DistributedIterator(step, self.element_spec)

  def __tl_for_stmt__(self, extra_test, body, get_state, set_state, symbol_names, opts):
    k = self._extended._num_local
    if k == 1:  # one replica per worker: the worker's dataset is the replica's
      self._dataset.__tl_for_stmt__(extra_test, body, get_state, set_state, symbol_names, opts)
      return
    # Several: a loop over tuples of k consecutive elements (empty batches fill the last).
    self._dataset._tl_consecutive(k).__tl_for_stmt__(
        extra_test, lambda e: body(_per_replica(list(e))), get_state, set_state, symbol_names,
        opts)

  @property
  def element_spec(self):
    return getattr(self._dataset, "element_spec", None)
