"""tf.data.Dataset: the base class and its trace type (DatasetSpec).

A dataset is a Python object with an `element_spec` and a `_flat_iter()`
generator of flat elements (lists of NumPy values, one per component).
Transformations are subclasses (sources.py, transformations.py) that hold
their input datasets (`_inputs`) and tensor parameters (`_params`, their
values in `_values`). In a graph a dataset is a variant tensor (ops.py); a
dataset made while a graph is built is a prototype that the graph
instantiates at run time.

Iteration: eagerly `for x in dataset` yields EagerTensors in the element
structure. Inside tf.function, AutoGraph turns `for x in dataset` into one
ReduceDataset node (`__tl_for_stmt__`); `iter`/`next` stage graph iterator
nodes (iterators.py).
"""
import copy

import numpy as np

from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.context import ctx
from tensorlet.data import ops
from tensorlet.ops.registry import execute
from tensorlet.polymorphic_function import user_code
from tensorlet.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet.tensor_spec import TensorSpec
from tensorlet.types import TraceType

__all__ = ["DatasetV2", "Dataset", "DatasetSpec", "AUTOTUNE",
           "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY"]

from tensorlet.data.options import Options  # noqa: E402,F401 - re-exported as tf.data.Options

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


def _int64(value, name):
  """A scalar int64 tensor parameter (integer tensors are cast)."""
  if isinstance(value, Tensor) or hasattr(value, "_as_tensor"):
    t = convert_to_tensor(value)
    if t.dtype is not _dt.int64:
      if not t.dtype.is_integer:
        # TF: a failed int64 conversion of a tensor is a ValueError.
        raise ValueError(f"`{name}` must be an integer, got a {t.dtype.name} tensor")
      from tensorlet.ops.math_ops import cast
      t = cast(t, _dt.int64)
  else:
    if value is None:
      raise ValueError(f"`{name}` must be an integer (int64) scalar, got None")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
      raise TypeError(f"`{name}` must be an integer (int64) scalar, got {value!r}")
    t = convert_to_tensor(np.int64(value))
  if t.shape.rank not in (0, None):
    raise ValueError(f"`{name}` must be a scalar, got shape {t.shape}")
  return t


class DatasetV2:
  """A sequence of elements, each a (nested) structure of tensors.

  Example:
    >>> ds = tf.data.Dataset.from_tensor_slices([1, 2, 3]).map(lambda x: x * 2)
    >>> [int(x) for x in ds]
    [2, 4, 6]
  """

  _op_name = None

  # ------------------------------------------------------- construction
  def _setup(self, inputs, params, element_spec):
    """Records inputs and parameters; eagerly validates, in a graph stages the node."""
    self._inputs = list(inputs)
    self._params = list(params)
    self._element_spec = element_spec
    self._variant = None
    if ctx.graph is None:
      for d in self._inputs:
        if d._values is None:
          raise ValueError(f"A tf.data.Dataset built inside a tf.function cannot be used "
                           f"outside it ({type(d).__name__}).")
      for p in self._params:
        if not isinstance(p, EagerTensor):
          raise ValueError(f"{type(self).__name__}: the symbolic tensor {p!r} of a "
                           f"tf.function graph cannot be used outside it.")
      self._values = [p._value for p in self._params]
      self._init_state()
      self._validate()
    else:
      self._values = None
      self._variant = execute(
          ops.dataset_op(self._op_name),
          [d._variant_tensor() for d in self._inputs] + self._params, {"proto": self},
          self._op_name)

  def _instantiate(self, inputs, values):
    """A concrete copy of this prototype for run-time inputs and parameter values."""
    new = copy.copy(self)
    new._inputs = list(inputs)
    new._values = list(values)
    new._variant = None
    new._init_state()
    new._validate()
    return new

  def _init_state(self):
    """Per-object mutable state (shuffle epochs, cache contents)."""

  def _validate(self):
    """Checks parameter values (`self._values`); raises InvalidArgumentError."""

  def _flat_iter(self):
    raise NotImplementedError

  def _cardinality(self):
    return UNKNOWN_CARDINALITY

  def _index_iter(self):
    """`(arrays, iterator of row numbers)` when every element is row i of the flat
    component `arrays` (from_tensor_slices, shuffled, taken ...), else None.

    NOTE: lets `batch` gather a batch with one fancy index per component
    instead of slicing and re-stacking every element; the row order is the
    element order of `_flat_iter`, so both paths give the same batches.
    """
    return None

  def _check_concrete(self):
    if self._values is None:
      raise TypeError(f"The {type(self).__name__} was built inside a tf.function; it can "
                      f"only be used inside that function.")

  def _variant_tensor(self):
    """The variant tensor of this dataset (an EagerTensor when built eagerly)."""
    if self._variant is None:
      self._variant = ops.variant_of(self)
    return self._variant

  def _type_spec(self):
    return DatasetSpec(self._element_spec)

  # ------------------------------------------------------------ metadata
  @property
  def element_spec(self):
    """The structure of TensorSpecs of one element."""
    return self._element_spec

  def __repr__(self):
    name = getattr(self, "_repr_name", type(self).__name__)
    return f"<{name} element_spec={self._element_spec!r}>"

  def __bool__(self):
    return True

  def cardinality(self):
    """The number of elements as an int64 scalar tensor; INFINITE_CARDINALITY (-1)
    or UNKNOWN_CARDINALITY (-2) when it is not known without iterating."""
    if ctx.graph is not None:
      return ops.cardinality_node(self)
    self._check_concrete()
    return convert_to_tensor(np.int64(self._cardinality()))

  def __len__(self):
    if ctx.graph is not None:
      raise TypeError("`tf.data.Dataset` only supports `len` in eager mode. Use "
                      "`tf.data.Dataset.cardinality()` instead.")
    self._check_concrete()
    n = self._cardinality()
    if n == INFINITE_CARDINALITY:
      raise TypeError("The dataset is infinite.")
    if n == UNKNOWN_CARDINALITY:
      raise TypeError("The dataset length is unknown.")
    return int(n)

  def __tf_tracing_type__(self, context):
    return DatasetSpec(self._element_spec)

  # ----------------------------------------------------------- iteration
  def __iter__(self):
    """An iterator over the elements; inside tf.function a graph iterator whose
    `next()` stages an IteratorGetNext node."""
    from tensorlet.data import iterators
    if ctx.graph is not None:
      return iterators.graph_iterator(self)
    self._check_concrete()
    return iterators.OwnedIterator(self)

  def as_numpy_iterator(self):
    """An iterator of elements as NumPy values (strings as bytes)."""
    if ctx.graph is not None:
      raise RuntimeError("`tf.data.Dataset.as_numpy_iterator()` is only supported in eager "
                         "mode.")
    from tensorlet.data.iterators import NumpyIterator
    self._check_concrete()
    return NumpyIterator(self)

  def __tl_for_stmt__(self, extra_test, body, get_state, set_state, symbol_names, opts):
    """AutoGraph's `for x in dataset` (see autograph/operators/control_flow.py)."""
    from tensorlet.data import loops
    loops.for_stmt(self, extra_test, body, get_state, set_state, symbol_names, opts)

  def reduce(self, initial_state, reduce_func, name=None):
    """Folds the dataset: `state = reduce_func(state, element)` for every element.

    The function is traced once (again if it changes a state shape, which is
    then relaxed). Returns the final state.

    Example:
      >>> int(tf.data.Dataset.range(5).reduce(np.int64(0), lambda s, x: s + x))
      10
    """
    from tensorlet.data import loops
    return loops.reduce(self, initial_state, reduce_func)

  def get_single_element(self, name=None):
    """The only element of the dataset (InvalidArgumentError if not exactly one)."""
    from tensorlet.data import loops
    return loops.single_element(self)

  # ------------------------------------------------------------- sources
  @staticmethod
  def from_tensor_slices(tensors, name=None):
    """Elements are slices of `tensors` along their first dimension."""
    from tensorlet.data.sources import _TensorSliceDataset
    return _TensorSliceDataset(tensors)

  @staticmethod
  def from_tensors(tensors, name=None):
    """One element: `tensors`."""
    from tensorlet.data.sources import _TensorDataset
    return _TensorDataset(tensors)

  @staticmethod
  def range(*args, output_type=_dt.int64, name=None):
    """Like Python's range: `range(stop)`, `range(start, stop[, step])`."""
    from tensorlet.data.sources import _RangeDataset
    return _RangeDataset(args, output_type)

  @staticmethod
  def from_generator(generator, output_types=None, output_shapes=None, args=None,
                     output_signature=None, name=None):
    """Elements from a Python generator, called anew for each iteration.

    Args:
      generator: a callable returning an iterable (called with `args` as NumPy values).
      output_types / output_shapes: the element's dtypes (and shapes), or
      output_signature: its TensorSpecs.
    """
    from tensorlet.data.sources import _GeneratorDataset
    return _GeneratorDataset(generator, output_types, output_shapes, args, output_signature)

  @staticmethod
  def zip(*args, datasets=None, name=None):
    """Elements are tuples (or the given structure) of the datasets' elements."""
    from tensorlet.data.transformations import _ZipDataset
    if datasets is not None and args:
      raise TypeError("Both `*args` and `datasets` cannot be set.")
    if datasets is None:
      if not args:
        raise TypeError("Must pass at least one dataset to `zip`.")
      datasets = args[0] if len(args) == 1 else tuple(args)
    return _ZipDataset(datasets)

  # ----------------------------------------------------- transformations
  def concatenate(self, dataset, name=None):
    from tensorlet.data.transformations import _ConcatenateDataset
    return _ConcatenateDataset(self, dataset)

  def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
    """Applies `map_func` to each element (traced once into a graph)."""
    from tensorlet.data.transformations import _MapDataset, _ParallelMapDataset
    if num_parallel_calls is None:
      return _MapDataset(self, map_func)
    return _ParallelMapDataset(self, map_func, num_parallel_calls, deterministic)

  def filter(self, predicate, name=None):
    """Keeps the elements for which `predicate` (traced once) is true."""
    from tensorlet.data.transformations import _FilterDataset
    return _FilterDataset(self, predicate)

  def flat_map(self, map_func, name=None):
    """Concatenates the datasets `map_func` returns for each element."""
    from tensorlet.data.transformations import _FlatMapDataset
    return _FlatMapDataset(self, map_func)

  def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
            deterministic=None, name=None):
    """Stacks `batch_size` consecutive elements (the last batch may be smaller)."""
    from tensorlet.data.transformations import _BatchDataset
    return _BatchDataset(self, batch_size, drop_remainder, num_parallel_calls)

  def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                   drop_remainder=False, name=None):
    """Batches elements padded to `padded_shapes` (None dims: the batch's longest)."""
    from tensorlet.data.transformations import _PaddedBatchDataset
    return _PaddedBatchDataset(self, batch_size, padded_shapes, padding_values, drop_remainder)

  def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype=_dt.int64,
                   name=None):
    """Batches elements of differing shapes into RaggedTensors (elements whose shape
    is fully known batch densely; sparse and ragged elements batch as `batch` does)."""
    from tensorlet.data.transformations import _RaggedBatchDataset
    return _RaggedBatchDataset(self, batch_size, drop_remainder, row_splits_dtype)

  def unbatch(self, name=None):
    """Splits each element along its first dimension."""
    from tensorlet.data.transformations import _UnbatchDataset
    return _UnbatchDataset(self)

  def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
    """Shuffles with a buffer of `buffer_size` elements (TensorFlow's algorithm)."""
    from tensorlet.data.transformations import _ShuffleDataset
    return _ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

  def repeat(self, count=None, name=None):
    """Repeats the dataset `count` times (None or -1: forever)."""
    from tensorlet.data.transformations import _RepeatDataset
    return _RepeatDataset(self, count)

  def take(self, count, name=None):
    """The first `count` elements (-1: all)."""
    from tensorlet.data.transformations import _TakeDataset
    return _TakeDataset(self, count)

  def skip(self, count, name=None):
    """All but the first `count` elements (-1: none)."""
    from tensorlet.data.transformations import _SkipDataset
    return _SkipDataset(self, count)

  def take_while(self, predicate, name=None):
    """Elements up to the first one for which `predicate` is false."""
    from tensorlet.data.transformations import _TakeWhileDataset
    return _TakeWhileDataset(self, predicate)

  def shard(self, num_shards, index, name=None):
    """Every `num_shards`-th element, starting at `index`."""
    from tensorlet.data.transformations import _ShardDataset
    return _ShardDataset(self, num_shards, index)

  def prefetch(self, buffer_size, name=None):
    """Produces up to `buffer_size` elements ahead in a background thread
    (AUTOTUNE: 4; 0: none), overlapping the input pipeline with the consumer."""
    from tensorlet.data.transformations import _PrefetchDataset
    return _PrefetchDataset(self, buffer_size)

  def cache(self, filename="", name=None):
    """Caches elements in memory, or in `filename + '.npz'` when a filename is given."""
    from tensorlet.data.transformations import _CacheDataset
    return _CacheDataset(self, filename)

  def enumerate(self, start=0, name=None):
    """Pairs each element with its index: (int64 index, element)."""
    range_ds = DatasetV2.range(start, np.iinfo(np.int64).max)
    return DatasetV2.zip((range_ds, self))

  def interleave(self, map_func, cycle_length=None, block_length=None,
                 num_parallel_calls=None, deterministic=None, name=None):
    """Elements of the datasets `map_func` makes, `cycle_length` at a time and
    `block_length` from each in turn (TensorFlow's order)."""
    from tensorlet.data.interleave import _InterleaveDataset
    return _InterleaveDataset(self, map_func, cycle_length, block_length, num_parallel_calls,
                              deterministic)

  def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
    """A dataset of windows: each a dataset (per component) of `size` elements
    taken every `stride`, windows starting every `shift` (default `size`)."""
    from tensorlet.data.windowing import _WindowDataset
    return _WindowDataset(self, size, shift, stride, drop_remainder)

  def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None,
                      name=None):
    """Groups elements by the int64 `key_func(x)` into windows of `window_size`
    (or `window_size_func(key)`); yields the elements of `reduce_func(key, window)`."""
    from tensorlet.data.windowing import _GroupByWindowDataset
    return _GroupByWindowDataset(self, key_func, reduce_func, window_size, window_size_func)

  def bucket_by_sequence_length(self, element_length_func, bucket_boundaries,
                                bucket_batch_sizes, padded_shapes=None, padding_values=None,
                                pad_to_bucket_boundary=False, no_padding=False,
                                drop_remainder=False, name=None):
    """Padded batches of elements whose lengths fall in the same bucket."""
    from tensorlet.data.windowing import _BucketBySequenceLengthDataset
    return _BucketBySequenceLengthDataset(self, element_length_func, bucket_boundaries,
                                          bucket_batch_sizes, padded_shapes, padding_values,
                                          pad_to_bucket_boundary, no_padding, drop_remainder)

  def scan(self, initial_state, scan_func, name=None):
    """Outputs of `scan_func(state, x) -> (new_state, output)`, state carried along."""
    from tensorlet.data.element_ops import _ScanDataset
    return _ScanDataset(self, initial_state, scan_func)

  def unique(self, name=None):
    """The elements without repeats (int32, int64 or string elements)."""
    from tensorlet.data.element_ops import _UniqueDataset
    return _UniqueDataset(self)

  def ignore_errors(self, log_warning=False, name=None):
    """The elements, leaving out those whose computation raised an error."""
    from tensorlet.data.element_ops import _IgnoreErrorsDataset
    return _IgnoreErrorsDataset(self, log_warning)

  def rejection_resample(self, class_func, target_dist, initial_dist=None, seed=None,
                         name=None):
    """(class, element) pairs resampled so classes follow `target_dist`."""
    from tensorlet.data.element_ops import _RejectionResampleDataset
    return _RejectionResampleDataset(self, class_func, target_dist, initial_dist, seed)

  def snapshot(self, path, compression="AUTO", reader_func=None, shard_func=None, name=None):
    """Writes the first complete pass under `path`; later passes read it back."""
    from tensorlet.data.save_load import _SnapshotDataset
    if reader_func is not None or shard_func is not None:
      raise NotImplementedError("Dataset.snapshot(reader_func/shard_func) is not implemented "
                                "in tensorlet.")
    return _SnapshotDataset(self, path, compression)

  def save(self, path, compression=None, shard_func=None, checkpoint_args=None):
    """Writes every element under the directory `path` (tensorlet's format, no pickle)."""
    from tensorlet.data import save_load
    self._check_concrete()
    save_load.save(self, path, compression, shard_func, checkpoint_args)

  @staticmethod
  def load(path, element_spec=None, compression=None, reader_func=None):
    """The dataset written by Dataset.save at `path`."""
    from tensorlet.data import save_load
    return save_load.load(path, element_spec, compression, reader_func)

  @staticmethod
  def list_files(file_pattern, shuffle=None, seed=None, name=None):
    """The file names matching a glob pattern (or list), shuffled unless shuffle=False."""
    from tensorlet.data.sampling import list_files
    return list_files(file_pattern, shuffle, seed)

  @staticmethod
  def counter(start=0, step=1, dtype=_dt.int64, name=None):
    """start, start + step, ... forever."""
    from tensorlet.data.sampling import counter
    return counter(start, step, dtype)

  @staticmethod
  def random(seed=None, rerandomize_each_iteration=None, name=None):
    """Random int64 values in [0, 2**32), forever."""
    from tensorlet.data.sampling import random_dataset
    return random_dataset(seed, rerandomize_each_iteration)

  @staticmethod
  def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                           rerandomize_each_iteration=None):
    """Elements drawn at random from `datasets` with probabilities `weights`."""
    from tensorlet.data.sampling import sample_from_datasets
    return sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset,
                                rerandomize_each_iteration)

  @staticmethod
  def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    """Elements of `datasets[i]` for each i of the int64 `choice_dataset`."""
    from tensorlet.data.sampling import choose_from_datasets
    return choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)

  def apply(self, transformation_func):
    """`transformation_func(self)`, which must return a Dataset."""
    out = transformation_func(self)
    if not isinstance(out, DatasetV2):
      raise TypeError("`transformation_func` must return a `tf.data.Dataset` object.")
    return out

  def options(self):
    """The tf.data.Options of this pipeline: those set upstream, merged (later wins)."""
    from tensorlet.data.options import merge_options
    found = []

    def collect(d, seen):
      for i in getattr(d, "_inputs", []) or []:
        if id(i) not in seen:
          seen.add(id(i))
          collect(i, seen)
      own = getattr(d, "_own_options", None)
      if own is not None:
        found.append(own)
    collect(self, set())
    return merge_options(*found)

  def _tl_shard_by_files(self, num_workers, index):
    """tf.distribute's FILE auto-sharding (a hook: tf.distribute sits below tf.data)."""
    from tensorlet.data.distribute_input import shard_by_files
    return shard_by_files(self, num_workers, index)

  def _tl_batch_size(self):
    """The batch size of the last batching in the pipeline, or None (a hook)."""
    from tensorlet.data.distribute_input import batch_size
    return batch_size(self)

  def _tl_consecutive(self, count):
    """Tuples of `count` consecutive elements, for several replicas' steps (a hook)."""
    from tensorlet.data.distribute_input import _ConsecutiveDataset
    return _ConsecutiveDataset(self, count)

  def _tl_synchronized_steps(self, count, per, pieces, agree):
    """The steps of one of several workers reading different files (a hook)."""
    from tensorlet.data.distribute_input import _SynchronizedStepsDataset
    return _SynchronizedStepsDataset(self, count, per, pieces, agree)

  def with_options(self, options, name=None):
    """This dataset with `options` set (merged over the options set upstream)."""
    from tensorlet.data.options import Options
    if not isinstance(options, Options):
      raise TypeError(f"Dataset.with_options expects a tf.data.Options, got {options!r}")
    from tensorlet.data.transformations import _OptionsDataset
    return _OptionsDataset(self, options)



# The methods that trace a user function: an error there reads "in user code"
# without tensorlet's frames (polymorphic_function/user_code.py).
user_code.filter_methods(DatasetV2, ("reduce", "map", "filter", "flat_map", "take_while",
                                "interleave", "group_by_window", "scan"))

Dataset = DatasetV2


# ------------------------------------------------------------------ DatasetSpec

def _structure_key(spec):
  if isinstance(spec, tuple):
    return ("t", type(spec).__name__, tuple(_structure_key(s) for s in spec))
  if isinstance(spec, dict):
    return ("d", tuple((k, _structure_key(spec[k])) for k in sorted(spec)))
  if isinstance(spec, TensorSpec):
    return ("x", spec.shape, spec.dtype._enum)
  return ("spec", spec)  # DatasetSpec, OptionalSpec, composite specs: hashable types


class DatasetSpec(TraceType):
  """The type of a dataset: its element_spec. tf.function traces datasets by it."""

  def __init__(self, element_spec, dataset_shape=()):
    self._element_spec = element_spec
    self._dataset_shape = dataset_shape

  @property
  def element_spec(self):
    return self._element_spec

  @property
  def value_type(self):
    return DatasetV2

  @staticmethod
  def from_value(value):
    return DatasetSpec(value.element_spec)

  def is_subtype_of(self, other):
    if type(other) is not type(self):
      return False
    a, b = nest.flatten(self._element_spec), nest.flatten(other._element_spec)
    try:
      nest.assert_same_structure(self._element_spec, other._element_spec)
    except (TypeError, ValueError):
      return False
    return all(x.is_subtype_of(y) for x, y in zip(a, b))

  def most_specific_common_supertype(self, others):
    spec = self._element_spec
    for o in others:
      if type(o) is not type(self):
        return None
      try:
        nest.assert_same_structure(spec, o._element_spec)
      except (TypeError, ValueError):
        return None
      flat = [x.most_specific_common_supertype([y]) for x, y in
              zip(nest.flatten(spec), nest.flatten(o._element_spec))]
      if any(f is None for f in flat):
        return None
      spec = nest.pack_sequence_as(spec, flat)
    return type(self)(spec)

  # NOTE: TF's TraceType protocol for values that enter a graph as tensors: a
  # dataset is one variant tensor there.
  def flatten(self):
    return [TensorSpec([], _dt.variant)]

  def to_tensors(self, value):
    return [value._variant_tensor()]

  def from_tensors(self, tensors):
    return _VariantDataset(next(iter(tensors)), self._element_spec)

  def placeholder_value(self, placeholder_context=None):
    raise NotImplementedError("A dataset argument enters the graph through from_tensors")

  def __eq__(self, other):
    return type(other) is type(self) and \
        _structure_key(self._element_spec) == _structure_key(other._element_spec)

  def __hash__(self):
    return hash((type(self).__name__, _structure_key(self._element_spec)))

  def __repr__(self):
    return f"DatasetSpec({self._element_spec!r}, TensorShape([]))"


class _VariantDataset(DatasetV2):
  """A dataset inside a graph that only exists as a variant tensor (a function argument)."""

  def __init__(self, variant, element_spec):
    self._inputs = []
    self._params = []
    self._values = None
    self._variant = variant
    self._element_spec = element_spec


def check_dataset(x, what):
  if not isinstance(x, DatasetV2):
    raise TypeError(f"{what} must be a `tf.data.Dataset`, got {type(x).__name__}.")
  return x

