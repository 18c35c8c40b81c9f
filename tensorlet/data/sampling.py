"""Sources that draw or count: sample_from_datasets, choose_from_datasets,
Dataset.counter, Dataset.random, Dataset.list_files.

Random draws use NumPy's Philox streams seeded from (seed, seed2, epoch) as
the shuffle does: the same seed gives the same sequence (not TensorFlow's
numbers, which come from its own kernels).
"""
import itertools
import os

import numpy as np

from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.data import structure
from tensorlet.data.dataset import (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, DatasetV2,
                                    _int64)
from tensorlet.errors import InvalidArgumentError
from tensorlet.tensor import Tensor, convert_to_tensor
from tensorlet.tensor_spec import TensorSpec

__all__ = ["_DirectedInterleaveDataset", "sample_from_datasets", "choose_from_datasets",
           "counter", "random_dataset", "list_files"]


def _seeded_rng(seeds, fresh, epoch):
  seed, seed2 = seeds
  base = [seed, seed2] if (seed, seed2) != (0, 0) else [fresh]
  return np.random.default_rng(base + [epoch])


def _common_spec(datasets):
  specs = [d.element_spec for d in datasets]
  first = specs[0]
  for i, s in enumerate(specs[1:], 1):
    try:
      nest.assert_same_structure(first, s, check_types=False)
      flat = [structure.compatible_spec(a, b) for a, b in zip(nest.flatten(first),
                                                             nest.flatten(s))]
    except (TypeError, ValueError, AttributeError):
      flat = [None]
    if any(f is None for f in flat):
      raise TypeError(f"Invalid `datasets`. `datasets` must have compatible element specs.  "
                      f"Dataset 0 element_spec={specs[0]}. Dataset {i} element_spec={s}.")
    first = nest.pack_sequence_as(first, flat)
  return first


class _DirectedInterleaveDataset(DatasetV2):
  """Elements of `datasets[i]` for each index i of a selector iterator."""

  _op_name = "DirectedInterleaveDataset"

  def __init__(self, selector, datasets, stop_on_empty, selector_fn=None):
    self._stop_on_empty = bool(stop_on_empty)
    self._selector_fn = selector_fn
    inputs = ([selector] if selector is not None else []) + list(datasets)
    self._n = len(datasets)
    self._setup(inputs, [], _common_spec(datasets))

  def _init_state(self):
    self._epoch = 0

  def _selector(self, its, alive):
    if self._selector_fn is not None:
      epoch, self._epoch = self._epoch, self._epoch + 1
      return self._selector_fn(alive, epoch)
    return (int(e[0]) for e in self._inputs[0]._flat_iter())

  def _flat_iter(self):
    datasets = self._inputs[-self._n:]
    its = [d._flat_iter() for d in datasets]
    alive = [True] * self._n
    for i in self._selector(its, alive):
      if not 0 <= i < self._n:
        raise InvalidArgumentError(None, None, f"Selector index out of range: {i} >= "
                                   f"{self._n} [Op:IteratorGetNext]")
      if not alive[i]:
        continue
      e = next(its[i], None)
      if e is None:
        alive[i] = False
        if self._stop_on_empty or not any(alive):
          return
        continue
      yield e

  def _cardinality(self):
    ns = [d._cardinality() for d in self._inputs[-self._n:]]
    if self._selector_fn is not None and all(n == INFINITE_CARDINALITY for n in ns):
      return INFINITE_CARDINALITY
    return UNKNOWN_CARDINALITY


def _check_datasets(datasets):
  if isinstance(datasets, DatasetV2) or not datasets:
    raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
  datasets = list(datasets)
  for d in datasets:
    if not isinstance(d, DatasetV2):
      raise TypeError(f"Invalid `datasets`. `datasets` must be a list of `tf.data.Dataset`, "
                      f"got {type(d).__name__}.")
  return datasets


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                         rerandomize_each_iteration=None):
  """Elements drawn from `datasets` at random with probabilities `weights`
  (uniform when None); an exhausted dataset drops out (or ends the result when
  stop_on_empty_dataset)."""
  from tensorlet.ops.random_ops import get_seed
  datasets = _check_datasets(datasets)
  if weights is None:
    w = np.full(len(datasets), 1.0 / len(datasets))
  else:
    if isinstance(weights, DatasetV2):
      raise NotImplementedError("sample_from_datasets with a dataset of weights is not "
                                "implemented in tensorlet; pass a list or tensor.")
    from tensorlet.ops.registry import constant_value
    w = constant_value(weights) if isinstance(weights, Tensor) else np.asarray(weights,
                                                                               np.float64)
    w = np.asarray(w, np.float64).reshape(-1)
    if len(w) != len(datasets):
      raise ValueError(f"Invalid `weights`. `weights` should have the same length as "
                       f"`datasets` but got `len(weights)={len(w)}` vs. "
                       f"`len(datasets)={len(datasets)}`.")
  seeds = get_seed(seed)
  fresh = int(np.random.SeedSequence().entropy % (1 << 63))

  def selector(alive, epoch):
    rng = _seeded_rng(seeds, fresh, epoch if rerandomize_each_iteration else 0)
    while True:
      p = np.where(alive, w, 0.0)
      total = p.sum()
      if total <= 0:
        return
      draws = rng.random(64)
      cum = np.cumsum(p / total)
      for u in draws:
        i = int(min(np.searchsorted(cum, u, side="right"), len(cum) - 1))
        yield i
        if not alive[i]:
          break
  return _DirectedInterleaveDataset(None, datasets, stop_on_empty_dataset, selector)


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
  """Elements of `datasets[i]` for each int64 scalar i of `choice_dataset`."""
  datasets = _check_datasets(datasets)
  if not isinstance(choice_dataset, DatasetV2):
    raise TypeError("Invalid `choice_dataset`. `choice_dataset` must be a `tf.data.Dataset`.")
  spec = choice_dataset.element_spec
  if not isinstance(spec, TensorSpec) or spec.dtype is not _dt.int64 or \
      spec.shape.rank not in (0, None):
    raise TypeError(f"Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar "
                    f"`tf.int64` tensors but are {spec}.")
  return _DirectedInterleaveDataset(choice_dataset, datasets, stop_on_empty_dataset)


class _CounterDataset(DatasetV2):
  _op_name = "CounterDataset"
  _repr_name = "_ScanDataset"  # NOTE: TF builds counter from range + scan

  def __init__(self, start, step, dtype):
    self._dtype = _dt.as_dtype(dtype)
    self._setup([], [_int64(start, "start"), _int64(step, "step")],
                TensorSpec([], self._dtype))

  def _flat_iter(self):
    start, step = (int(v) for v in self._values)
    cast = self._dtype._np.type
    for i in itertools.count():
      yield [cast(start + i * step)]

  def _cardinality(self):
    return INFINITE_CARDINALITY


def counter(start=0, step=1, dtype=_dt.int64, name=None):
  """start, start + step, ... forever."""
  return _CounterDataset(start, step, dtype)


class _RandomDataset(DatasetV2):
  """Uniform int64 values in [0, 2**32), forever (as TF's RandomDataset)."""

  _op_name = "RandomDataset"

  def __init__(self, seed, rerandomize_each_iteration):
    from tensorlet.ops.random_ops import get_seed
    self._seeds = get_seed(seed)
    self._rerandomize = bool(rerandomize_each_iteration)
    self._fresh = int(np.random.SeedSequence().entropy % (1 << 63))
    self._setup([], [], TensorSpec([], _dt.int64))

  def _init_state(self):
    self._epoch = 0

  def _flat_iter(self):
    epoch = self._epoch if self._rerandomize else 0
    self._epoch += 1
    rng = _seeded_rng(self._seeds, self._fresh, epoch)
    while True:
      for v in rng.integers(0, 1 << 32, 256, dtype=np.int64):
        yield [v]

  def _cardinality(self):
    return INFINITE_CARDINALITY


def random_dataset(seed=None, rerandomize_each_iteration=None, name=None):
  return _RandomDataset(seed, rerandomize_each_iteration)


def list_files(file_pattern, shuffle=None, seed=None, name=None):
  """The files matching `file_pattern` (a glob or list of them), shuffled unless
  shuffle=False; InvalidArgumentError when nothing matches."""
  from tensorlet.data.sources import _TensorSliceDataset
  from tensorlet.ops.io_ops import MatchingFiles
  from tensorlet.ops.registry import constant_value
  patterns = file_pattern
  if isinstance(file_pattern, Tensor):
    patterns = constant_value(file_pattern)
    if patterns is None:
      raise NotImplementedError("Dataset.list_files of a pattern computed inside tf.function "
                                "is not implemented in tensorlet; pass a string.")
  # NOTE: the files are listed when the dataset is built (inside tf.function: when
  # it is traced), not each time the function runs.
  if isinstance(patterns, (str, bytes)) or hasattr(patterns, "__fspath__"):
    patterns = [patterns]
  pats = np.array([os.fsencode(p) if not isinstance(p, bytes) else p
                   for p in np.asarray(patterns, dtype=object).reshape(-1)], dtype=object)
  names = MatchingFiles.kernel(pats)
  if names.size == 0:
    shown = ", ".join(p.decode() if isinstance(p, bytes) else str(p) for p in pats.reshape(-1))
    raise InvalidArgumentError(None, None, f"Expected 'tf.Tensor(False, shape=(), "
                               f"dtype=bool)' to be true. Summarized data: b'No files matched "
                               f"pattern: {shown}'")
  names = convert_to_tensor(names, _dt.string)
  ds = _TensorSliceDataset(names)
  if shuffle is None or shuffle:
    ds = ds.shuffle(int(np.size(constant_value(names))), seed=seed)
  return ds
