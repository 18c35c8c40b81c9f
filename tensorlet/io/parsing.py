"""tf.io.parse_example / parse_single_example / parse_single_sequence_example
and their feature configs (FixedLenFeature, VarLenFeature,
FixedLenSequenceFeature).

Sparse results are SparseTensors from tensorlet.sparse when that package is
present; until then they are `SparseTensorValue(indices, values,
dense_shape)` namedtuples of tensors (TF's own value form of a sparse tensor),
made in one place, `_sparse_result`.
"""
import collections

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import parsing_ops
from tensorlet.tensor import Tensor, convert_to_tensor

__all__ = ["FixedLenFeature", "VarLenFeature", "FixedLenSequenceFeature", "SparseTensorValue",
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
  try:
    from tensorlet.sparse import SparseTensor
  except ImportError:
    return SparseTensorValue(indices, values, dense_shape)
  return SparseTensor(indices, values, dense_shape)


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


def _split(features, batched):
  if not features:
    raise ValueError("Invalid argument: features cannot be empty.")
  sparse_keys, sparse_types = [], []
  dense = []
  for key in sorted(features):
    f = features[key]
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
                       f"FixedLenFeature, VarLenFeature or FixedLenSequenceFeature.")
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
  return {k: result[k] for k in features}


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
