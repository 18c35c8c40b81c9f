"""tf.io.parse_example / parse_single_example / parse_single_sequence_example
and their feature configs (FixedLenFeature, VarLenFeature,
FixedLenSequenceFeature).

Sparse results are tensorlet.sparse.SparseTensors, made in one place,
`_sparse_result`. A RaggedFeature is parsed as the variable-length features
it names (its values and partitions) and assembled into a RaggedTensor from
those sparse results (`_ragged_result`).
"""
import collections

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import parsing_ops
from tensorlet.tensor import Tensor, convert_to_tensor

__all__ = ["FixedLenFeature", "VarLenFeature", "FixedLenSequenceFeature", "RaggedFeature",
           "SparseTensorValue",
           "parse_example", "parse_single_example", "parse_single_sequence_example",
           "parse_sequence_example"]

_ALLOWED = (_dt.float32, _dt.int64, _dt.string)


class FixedLenFeature(collections.namedtuple("FixedLenFeature",
                                             ["shape", "dtype", "default_value"])):
  """A feature with a fixed number of values: parsed to a dense tensor of `shape`."""

  def __new__(cls, shape, dtype, default_value=None):
    return super().__new__(cls, shape, dtype, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
  """A feature with any number of values: parsed to a sparse tensor."""


class FixedLenSequenceFeature(collections.namedtuple(
    "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
  """A sequence of values of `shape` each: parsed to [length] + shape (padded in a batch)."""

  def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
    return super().__new__(cls, shape, dtype, allow_missing, default_value)


SparseTensorValue = collections.namedtuple("SparseTensorValue",
                                           ["indices", "values", "dense_shape"])


def _sparse_result(indices, values, dense_shape):
  from tensorlet.sparse import SparseTensor
  return SparseTensor(indices, values, dense_shape)


class RaggedFeature(collections.namedtuple(
    "RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"])):
  """A feature parsed to a RaggedTensor: the values of `value_key` (default: the
  feature's own key) split by `partitions` (outermost first), each naming an int64
  feature of the same Example. In parse_example the batch adds the outer dimension."""

  class RowSplits(collections.namedtuple("RowSplits", ["key"])):
    pass

  class RowLengths(collections.namedtuple("RowLengths", ["key"])):
    pass

  class RowStarts(collections.namedtuple("RowStarts", ["key"])):
    pass

  class RowLimits(collections.namedtuple("RowLimits", ["key"])):
    pass

  class ValueRowIds(collections.namedtuple("ValueRowIds", ["key"])):
    pass

  class UniformRowLength(collections.namedtuple("UniformRowLength", ["length"])):
    pass

  _SUPPORTED = ("RowSplits", "RowLengths", "RowLimits")

  def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=_dt.int32,
              validate=False):
    dtype = _dt.as_dtype(dtype)
    splits = _dt.as_dtype(row_splits_dtype)
    if splits not in (_dt.int32, _dt.int64):
      raise ValueError(f"Invalid row_splits_dtype {splits!r}: expected int32 or int64.")
    if value_key is not None and (not isinstance(value_key, str) or not value_key):
      raise ValueError(f"Invalid value_key {value_key!r}: expected a non-empty string.")
    partitions = tuple(partitions)
    kinds = (cls.RowSplits, cls.RowLengths, cls.RowStarts, cls.RowLimits, cls.ValueRowIds,
             cls.UniformRowLength)
    for p in partitions:
      if not isinstance(p, kinds):
        raise TypeError(f"Invalid partition {p!r}: expected one of the RaggedFeature "
                        f"partition types (RowSplits, RowLengths, ...).")
      if type(p).__name__ not in cls._SUPPORTED:
        raise NotImplementedError(f"RaggedFeature.{type(p).__name__} partitions are not "
                                  f"implemented in tensorlet (RowSplits, RowLengths and "
                                  f"RowLimits are).")
    return super().__new__(cls, dtype, value_key, partitions, splits, validate)


def _dtype(feature, key):
  dtype = _dt.as_dtype(feature.dtype)
  if dtype not in _ALLOWED:
    raise InvalidArgumentError(None, None, f"Feature {key}: the dtype {dtype.name} is not "
                               f"supported; use float32, int64 or string.")
  return dtype


def _shape(feature, key):
  if feature.shape is None:
    raise ValueError(f"Missing shape for feature {key}. Received feature={feature}.")
  shape = [int(d) for d in (feature.shape.as_list() if hasattr(feature.shape, "as_list")
                            else np.reshape(feature.shape, [-1]))]
  for d in shape:
    if d < 0:
      raise ValueError(f"Dimension {d} must be >= 0")
  return tuple(shape)


def _default(feature, key, dtype, shape, seq):
  value = feature.default_value
  empty = np.zeros([0], object if dtype is _dt.string else dtype._np)
  if value is None:
    return convert_to_tensor(empty, dtype)
  t = convert_to_tensor(value, dtype) if not isinstance(value, Tensor) else value
  if seq:
    if t.shape.rank != 0:
      raise ValueError(f"The default_value of FixedLenSequenceFeature {key} must be a scalar")
    return t
  from tensorlet.ops.registry import constant_value
  arr = constant_value(t)
  if arr is None:
    raise ValueError(f"The default_value of feature {key} must be known when parsing is "
                     f"built, not a computed tensor")
  if arr.size == 1 and int(np.prod(shape)) != 1:
    arr = np.broadcast_to(arr.reshape(()), shape)
  try:
    arr = np.reshape(arr, shape)
  except ValueError:
    raise ValueError(f"The default_value of feature {key} has {arr.size} values; the shape "
                     f"{list(shape)} needs {int(np.prod(shape))}") from None
  return convert_to_tensor(np.array(arr), dtype)


def _ragged_keys(features):
  """{key: dtype} of the variable-length features RaggedFeatures read."""
  out = {}
  for key, f in features.items():
    if isinstance(f, RaggedFeature):
      for k, dtype in [(f.value_key or key, f.dtype)] + [(p.key, _dt.int64)
                                                          for p in f.partitions]:
        if out.get(k, dtype) is not dtype:
          raise ValueError(f"Feature {k} is read by RaggedFeatures with different dtypes")
        out[k] = dtype
  clash = set(out) & {k for k, f in features.items() if isinstance(f, VarLenFeature)}
  if clash:
    raise ValueError(f"Ragged and sparse keys must not intersect; intersection: {clash}")
  return out


def _check_features(features, arg):
  if features is not None and not isinstance(features, dict):
    raise TypeError(f"tf.io parsing: `{arg}` must be a dict of feature configurations "
                    f"(FixedLenFeature, VarLenFeature ...), got {features!r:.80}")


def _split(features, batched):
  _check_features(features, "features")
  if not features:
    raise ValueError("Invalid argument: features cannot be empty.")
  sparse_keys, sparse_types = [], []
  dense = []
  for key in sorted(features):
    f = features[key]
    if isinstance(f, RaggedFeature):
      continue
    if isinstance(f, VarLenFeature):
      sparse_keys.append(key)
      sparse_types.append(_dtype(f, key))
    elif isinstance(f, FixedLenFeature):
      dtype = _dtype(f, key)
      shape = _shape(f, key)
      dense.append((key, dtype, shape, False, _default(f, key, dtype, shape, False)))
    elif isinstance(f, FixedLenSequenceFeature):
      if not f.allow_missing:
        raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to be "
                         "True.")
      dtype = _dtype(f, key)
      shape = _shape(f, key)
      dense.append((key, dtype, shape, True, _default(f, key, dtype, shape, True)))
    else:
      raise ValueError(f"Unsupported feature type {type(f).__name__} for key {key}; expected "
                       f"FixedLenFeature, VarLenFeature, FixedLenSequenceFeature or "
                       f"RaggedFeature.")
  return sparse_keys, sparse_types, dense


def _serialized(serialized, rank):
  t = serialized if isinstance(serialized, Tensor) else convert_to_tensor(serialized,
                                                                          _dt.string)
  if t.dtype is not _dt.string:
    raise TypeError(f"`serialized` must be a string tensor, got {t.dtype.name}")
  if rank == 0 and t.shape.rank not in (0, None):
    raise ValueError("Input serialized must be a scalar")
  if rank == 1 and t.shape.rank not in (1, None):
    raise ValueError(f"Input serialized must be a vector, got shape {t.shape}")
  return t


def _parse(serialized, features, batched):
  sparse_keys, sparse_types, dense = _split(features, batched)
  ragged = _ragged_keys(features)
  for k in sorted(ragged):
    sparse_keys.append(k)
    sparse_types.append(_dtype(RaggedFeature(ragged[k]), k))
  serialized = _serialized(serialized, 1 if batched else 0)
  outs = parsing_ops.ParseExampleV2(
      serialized, *[d[4] for d in dense], sparse_keys=tuple(sparse_keys),
      sparse_types=tuple(sparse_types), dense_keys=tuple(d[0] for d in dense),
      dense_types=tuple(d[1] for d in dense), dense_shapes=tuple(d[2] for d in dense),
      dense_seq=tuple(d[3] for d in dense), batched=batched)
  outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
  n = len(sparse_keys)
  result = {}
  for i, key in enumerate(sparse_keys):
    result[key] = _sparse_result(outs[i], outs[n + i], outs[2 * n + i])
  for j, d in enumerate(dense):
    result[d[0]] = outs[3 * n + j]
  parts = {k: result.pop(k) for k in ragged}
  for key, f in features.items():
    if isinstance(f, RaggedFeature):
      result[key] = _ragged_result(f, key, parts, batched)
  return {k: result[k] for k in features}


def _partition_lengths(p, sp, example_ids):
  """Row lengths (int64) of partition `p` from its sparse result, and the example
  each row belongs to; examples are concatenated, so splits/limits restart at 0."""
  import tensorlet as tf
  v = sp.values
  if isinstance(p, RaggedFeature.RowLengths):
    return v, example_ids
  same = tf.equal(example_ids[1:], example_ids[:-1])
  if isinstance(p, RaggedFeature.RowSplits):
    diffs = v[1:] - v[:-1]
    return tf.boolean_mask(diffs, same), tf.boolean_mask(example_ids[1:], same)
  # RowLimits: each example's first row starts at 0
  prev = tf.concat([tf.zeros([1], tf.int64), tf.where(same, v[:-1], tf.zeros_like(v[:-1]))], 0)
  return v - prev[:tf.shape(v)[0]], example_ids


def _ragged_result(f, key, parts, batched):
  """The RaggedTensor (or, for one example without partitions, the dense values)
  of RaggedFeature `f` from the sparse results of the features it reads."""
  import tensorlet as tf
  from tensorlet.ragged.ragged_tensor import RaggedTensor
  sd = f.row_splits_dtype
  vals = parts[f.value_key or key]
  current = vals.values
  # NOTE: one example's sparse indices are positions; every row is example 0
  ids = (lambda sp: sp.indices[:, 0]) if batched else \
      (lambda sp: tf.zeros_like(sp.indices[:, 0]))
  example_ids = ids(vals)
  for p in reversed(f.partitions):
    sp = parts[p.key]
    lengths, example_ids = _partition_lengths(p, sp, ids(sp))
    current = RaggedTensor.from_row_lengths(current, tf.cast(lengths, sd),
                                            validate=True)
  if not batched:
    return current
  return RaggedTensor.from_value_rowids(current, tf.cast(example_ids, sd),
                                        nrows=tf.cast(vals.dense_shape[0], sd))


def parse_example(serialized, features, example_names=None, name=None):
  """Parses a batch (1-D string tensor) of serialized Examples.

  Returns a dict: FixedLenFeature -> [batch] + shape, FixedLenSequenceFeature ->
  [batch, longest] + shape (padded), VarLenFeature -> a sparse tensor with
  (example, index) indices.
  """
  return _parse(serialized, features, True)


def parse_single_example(serialized, features, example_names=None, name=None):
  """Parses one serialized Example (a string scalar); see parse_example."""
  return _parse(serialized, features, False)


def _seq_split(context_features, sequence_features):
  _check_features(context_features, "context_features")
  _check_features(sequence_features, "sequence_features")
  ctx_sparse, ctx_dense = [], []
  for key in sorted(context_features or {}):
    f = context_features[key]
    if isinstance(f, VarLenFeature):
      ctx_sparse.append((key, _dtype(f, key)))
    elif isinstance(f, FixedLenFeature):
      dtype, shape = _dtype(f, key), _shape(f, key)
      ctx_dense.append((key, dtype, shape, _default(f, key, dtype, shape, False)))
    else:
      raise ValueError(f"Unsupported context feature type {type(f).__name__} for key {key}")
  fl_sparse, fl_dense = [], []
  for key in sorted(sequence_features or {}):
    f = sequence_features[key]
    if isinstance(f, VarLenFeature):
      fl_sparse.append((key, _dtype(f, key)))
    elif isinstance(f, FixedLenSequenceFeature):
      dtype, shape = _dtype(f, key), _shape(f, key)
      default = _default(f, key, dtype, shape, False) if f.default_value is not None else \
          convert_to_tensor(np.zeros([0], object if dtype is _dt.string else dtype._np), dtype)
      fl_dense.append((key, dtype, shape, default, bool(f.allow_missing)))
    else:
      raise ValueError(f"Unsupported sequence feature type {type(f).__name__} for key {key}")
  return ctx_sparse, ctx_dense, fl_sparse, fl_dense


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None,
                                  example_name=None, name=None):
  """Parses one serialized SequenceExample: returns (context dict, feature_list dict)."""
  if not context_features and not sequence_features:
    raise ValueError("Invalid argument: features cannot be empty.")
  cs, cd, fs, fd = _seq_split(context_features, sequence_features)
  serialized = _serialized(serialized, 0)
  outs = parsing_ops.ParseSingleSequenceExample(
      serialized, *[d[3] for d in cd], *[d[3] for d in fd],
      context_sparse_keys=tuple(k for k, _ in cs), context_sparse_types=tuple(t for _, t in cs),
      context_dense_keys=tuple(d[0] for d in cd), context_dense_types=tuple(d[1] for d in cd),
      context_dense_shapes=tuple(d[2] for d in cd),
      feature_list_sparse_keys=tuple(k for k, _ in fs),
      feature_list_sparse_types=tuple(t for _, t in fs),
      feature_list_dense_keys=tuple(d[0] for d in fd),
      feature_list_dense_types=tuple(d[1] for d in fd),
      feature_list_dense_shapes=tuple(d[2] for d in fd),
      feature_list_dense_missing=tuple(d[4] for d in fd))
  outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
  pos = 0

  def take(n):
    nonlocal pos
    part = outs[pos:pos + n]
    pos += n
    return part
  context, lists = {}, {}
  for group, sparse, dense in ((context, cs, cd), (lists, fs, fd)):
    ind, val, shp = take(len(sparse)), take(len(sparse)), take(len(sparse))
    for (k, _), i, v, s in zip(sparse, ind, val, shp):
      group[k] = _sparse_result(i, v, s)
    for d, t in zip(dense, take(len(dense))):
      group[d[0]] = t
  return context, lists


def parse_sequence_example(serialized, context_features=None, sequence_features=None,
                           example_names=None, name=None):
  """Batched SequenceExample parsing is not implemented in tensorlet yet."""
  raise NotImplementedError("tf.io.parse_sequence_example (batched) is not implemented in "
                            "tensorlet; use parse_single_sequence_example per record "
                            "(e.g. in Dataset.map).")
