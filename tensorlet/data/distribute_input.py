"""What tf.distribute needs from a pipeline: sharding it by its input files
(AutoShardPolicy.FILE) and grouping consecutive elements into one step of several
replicas (distribute_datasets_from_function).

tf.distribute sits below tf.data, so it reaches these through DatasetV2 methods.
"""
import numpy as np

from tensorlet import errors
from tensorlet.data import structure
from tensorlet.data.dataset import DatasetV2
from tensorlet.data.interleave import _InterleaveDataset
from tensorlet.data.readers import _FileDataset
from tensorlet.data.transformations import _BatchDataset, _FlatMapDataset, _PaddedBatchDataset
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor_spec import TensorSpec

__all__ = ["shard_by_files"]


def _reads_files(d, seen=None):
  """Whether a dataset (a map function's prototype) has a file reader as a source."""
  seen = set() if seen is None else seen
  if id(d) in seen:
    return False
  seen.add(id(d))
  return isinstance(d, _FileDataset) or any(_reads_files(i, seen)
                                            for i in getattr(d, "_inputs", []) or [])


def _count(names):
  return sum(1 for _ in names._flat_iter())


def shard_by_files(dataset, num_workers, index):
  """A copy of `dataset` whose file readers read only the files i of each file list with
  i % num_workers == index, as TF's FILE auto-sharding. Raises NotFoundError when the
  pipeline reads no files, InvalidArgumentError when a list has fewer files than
  workers."""
  counts = []

  def names_shard(names_ds):
    counts.append(_count(names_ds))
    return names_ds.shard(num_workers, index)

  def rebuild(d):
    if isinstance(d, _FileDataset):
      if d._has_ds:
        return d._instantiate([names_shard(d._inputs[0])], d._values)
      names = np.asarray(d._values[0], dtype=object).reshape(-1)
      counts.append(names.size)
      return d._instantiate([], [names[index::num_workers]] + list(d._values[1:]))
    if isinstance(d, (_FlatMapDataset, _InterleaveDataset)) and _reads_files(d._fn.structure):
      return d._instantiate([names_shard(d._inputs[0])] + d._inputs[1:], d._values)
    inputs = getattr(d, "_inputs", []) or []
    new = [rebuild(i) for i in inputs]
    if all(a is b for a, b in zip(new, inputs)):
      return d
    return d._instantiate(new, d._values)

  if dataset._values is None:
    raise NotImplementedError("sharding by files a dataset built inside a tf.function is not "
                              "implemented in tensorlet: build it eagerly")
  out = rebuild(dataset)
  if not counts:
    raise errors.NotFoundError(None, None, "Found an unshardable source dataset: the "
                               "pipeline reads no files (AutoShardPolicy.FILE needs a file "
                               "based source such as TFRecordDataset or TextLineDataset)")
  if min(counts) < num_workers:
    raise errors.InvalidArgumentError(
        None, None, f"Could not apply FILE based sharding: the dataset only has "
        f"{min(counts)} file(s), which is not enough for the required {num_workers} "
        f"shards/workers. Set `auto_shard_policy` to DATA or OFF to shard small datasets.")
  return out


def batch_size(dataset):
  """The batch size of the batching nearest the pipeline's end, or None."""
  d = dataset
  while d is not None:
    if isinstance(d, (_BatchDataset, _PaddedBatchDataset)) and d._values is not None:
      return int(d._values[0])
    inputs = getattr(d, "_inputs", None)
    d = inputs[0] if inputs else None
  return None


def _relaxed(spec):
  return TensorSpec(TensorShape([None]).concatenate(spec.shape[1:]), spec.dtype, spec.name)


class _ConsecutiveDataset(DatasetV2):
  """Tuples of `count` consecutive elements of the input; a tuple the input ends inside
  is filled with empty batches (0 rows) shaped as the first element of the tuple."""

  _op_name = "TensorletConsecutiveDataset"

  def __init__(self, input_ds, count):
    spec = input_ds.element_spec
    flat = structure.flatten(spec)
    if not all(isinstance(s, TensorSpec) and s.shape.rank != 0 for s in flat):
      raise NotImplementedError(
          "several local replicas reading distribute_datasets_from_function's dataset inside "
          "a tf.function need batched dense tensors (rank >= 1) in tensorlet; got "
          f"{spec}")
    self._count = count
    one = structure.pack(spec, [_relaxed(s) for s in flat])
    self._setup([input_ds], [], tuple([one] * count))

  def _flat_iter(self):
    k = self._count
    it = self._inputs[0]._flat_iter()
    for first in it:
      group = [first]
      for e in it:
        group.append(e)
        if len(group) == k:
          break
      while len(group) < k:
        group.append([np.asarray(v)[:0] for v in first])
      yield [v for e in group for v in e]

  def _cardinality(self):
    n = self._inputs[0]._cardinality()
    return -(-n // self._count) if n >= 0 else n


class _SynchronizedStepsDataset(DatasetV2):
  """The steps of one worker of several that read different files (FILE sharding) in a
  tf.function loop: tuples of `count` pieces (one per local replica) of `per` rows cut
  from this worker's batches (`per` None: each batch cut into `pieces` parts). Before
  each step `agree(n)` sums over the workers the pieces each one has; the loop goes on
  while any worker has one, and replicas without data get empty batches (0 rows), as
  TF's loops over multi-worker datasets do, so every worker runs the same steps."""

  _op_name = "TensorletSynchronizedStepsDataset"

  def __init__(self, input_ds, count, per, pieces, agree):
    spec = input_ds.element_spec
    flat = structure.flatten(spec)
    if not all(isinstance(s, TensorSpec) and s.shape.rank != 0 for s in flat):
      raise NotImplementedError(
          "a tf.function loop over a dataset sharded by files across workers needs batched "
          f"dense tensors (rank >= 1) in tensorlet; got {spec}")
    self._count, self._per, self._pieces, self._agree = count, per, pieces, agree
    self._empty = [np.zeros([0] + [d if d is not None else 0 for d in s.shape.as_list()[1:]],
                            s.dtype.as_numpy_dtype) for s in flat]
    one = structure.pack(spec, [_relaxed(s) for s in flat])
    self._setup([input_ds], [], tuple([one] * count))

  def _cut(self, it):
    for flat in it:
      rows = np.shape(flat[0])[0]
      per = self._per or max(1, -(-rows // self._pieces))
      for i in range(0, rows, per):
        yield [np.asarray(v)[i:i + per] for v in flat]

  def _flat_iter(self):
    k = self._count
    pieces = self._cut(self._inputs[0]._flat_iter())
    while True:
      group = []
      for p in pieces:
        group.append(p)
        if len(group) == k:
          break
      if self._agree(len(group)) == 0:
        return
      while len(group) < k:
        group.append([e[:0] for e in group[0]] if group else list(self._empty))
      yield [v for e in group for v in e]

  def _cardinality(self):
    return -2  # unknown: it depends on the other workers
