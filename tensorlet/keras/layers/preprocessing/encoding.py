"""Shared pieces of the categorical layers: turning integer ids into one-hot,
multi-hot, count and tf-idf vectors (dense or sparse), and input conversion."""
import numpy as np

import tensorlet as tf
from tensorlet.ragged.ragged_tensor import RaggedTensor
from tensorlet.sparse.sparse_tensor import SparseTensor

INT, ONE_HOT, MULTI_HOT, COUNT, TF_IDF = "int", "one_hot", "multi_hot", "count", "tf_idf"


def ensure_tensor(inputs, dtype=None):
  """A tensor, ragged or sparse tensor of `inputs`, cast to `dtype` if given."""
  if not isinstance(inputs, (tf.Tensor, RaggedTensor, SparseTensor)):
    inputs = tf.convert_to_tensor(inputs, dtype)
  if dtype is not None and inputs.dtype != tf.as_dtype(dtype):
    inputs = tf.cast(inputs, dtype)
  return inputs


def listify(x):
  """Tensors and arrays as (nested) Python lists, for configs."""
  if isinstance(x, tf.Tensor):
    x = x.numpy()
  if isinstance(x, np.ndarray):
    x = x.tolist()
    return [v.decode("utf-8") if isinstance(v, bytes) else v for v in x] \
        if x and isinstance(x, list) else x
  return x


def validate_mode(value, allowed, layer_name, arg_name="output_mode", allow_none=False,
                  allow_callables=False):
  """Keras' ValueError unless `value` is one of the `allowed` strings (or None, or a
  callable, where allowed)."""
  if (allow_none and value is None) or (allow_callables and callable(value)) or \
      (isinstance(value, str) and value in allowed):
    return
  choices = ("`None`, " if allow_none else "") + ("a `Callable`, " if allow_callables else "")
  note = (f"If restoring a model and `{arg_name}` is a custom callable, please ensure the "
          f"callable is registered as a custom object. See "
          f"https://www.tensorflow.org/guide/keras/save_and_serialize"
          f"#registering_the_custom_object for details. ") if allow_callables else ""
  raise ValueError(f"Unkown value for `{arg_name}` argument of layer {layer_name}. {note}"
                   f"Allowed values are: {choices}or one of the following values: {allowed}. "
                   f"Received: {value}")


def _expand(x, axis):
  if isinstance(x, SparseTensor):
    return tf.sparse.expand_dims(x, axis)
  return tf.expand_dims(x, axis)


def _rows_and_ids(ids):
  """(row of each id, the ids) flattened, and the number of rows of a rank-2 input;
  rank 1 is one row."""
  if isinstance(ids, SparseTensor):
    rank = ids.shape.rank
    rows = ids.indices[:, 0] if rank == 2 else tf.zeros_like(ids.indices[:, 0])
    nrows = ids.dense_shape[0] if rank == 2 else tf.constant(1, tf.int64)
    return rows, ids.values, nrows
  if isinstance(ids, RaggedTensor):
    return ids.value_rowids(), ids.values, ids.nrows()
  if ids.shape.rank == 1:
    return tf.zeros_like(ids, tf.int64), ids, tf.constant(1, tf.int64)
  shape = tf.shape(ids, out_type=tf.int64)
  rows = tf.reshape(tf.broadcast_to(tf.range(shape[0])[:, None], shape), [-1])
  return rows, tf.reshape(ids, [-1]), shape[0]


def _bincount(ids, depth, binary, dtype, weights):
  """Per-row counts of ids in [0, depth) as a dense [rows, depth] (or [depth])
  tensor; ids out of range count nowhere."""
  rank1 = not isinstance(ids, RaggedTensor) and ids.shape.rank == 1
  rows, flat, nrows = _rows_and_ids(ids)
  flat = tf.cast(flat, tf.int64)
  if weights is None:
    w = tf.ones_like(flat, dtype)
  else:
    w = tf.cast(weights.values if isinstance(weights, (SparseTensor, RaggedTensor))
                else tf.reshape(weights, [-1]), dtype)
  keep = tf.logical_and(flat >= 0, flat < depth)
  n = nrows * depth
  seg = tf.where(keep, rows * depth + flat, n)  # out-of-range ids land in a dropped slot
  counts = tf.math.unsorted_segment_sum(w, seg, n + 1)[:-1]
  if binary:
    counts = tf.cast(counts > 0, dtype)
  return tf.reshape(counts, [depth]) if rank1 else tf.reshape(counts, tf.stack([nrows, depth]))


def encode_categorical_inputs(inputs, output_mode, depth, dtype="float32", sparse=False,
                              count_weights=None, idf_weights=None):
  """Integer ids as vectors of `depth`: one_hot, multi_hot, count or tf_idf."""
  dtype = tf.as_dtype(dtype)
  if output_mode == INT:
    if isinstance(inputs, RaggedTensor):
      return inputs.with_flat_values(tf.cast(inputs.flat_values, dtype))
    if isinstance(inputs, SparseTensor):
      return SparseTensor(inputs.indices, tf.cast(inputs.values, dtype), inputs.dense_shape)
    return tf.identity(tf.cast(inputs, dtype))
  original_shape = inputs.shape
  if inputs.shape.rank == 0:
    inputs = _expand(inputs, -1)
  if output_mode == ONE_HOT and inputs.shape[-1] != 1:
    inputs = _expand(inputs, -1)
  if inputs.shape.rank > 2:
    raise ValueError(f"When output_mode is not `'int'`, maximum supported output rank is 2. "
                     f"Received output_mode {output_mode} and input shape {original_shape}, "
                     f"which would result in output rank {inputs.shape.rank}.")
  binary = output_mode in (MULTI_HOT, ONE_HOT)
  counts = _bincount(inputs, depth, binary, dtype, count_weights)
  if output_mode == TF_IDF:
    if idf_weights is None:
      raise ValueError(f"When output mode is `'tf_idf'`, idf_weights must be provided. "
                       f"Received: output_mode={output_mode} and idf_weights={idf_weights}")
    counts = counts * tf.cast(idf_weights, dtype)
  if counts.shape.rank == 2:
    rows = None if isinstance(inputs, (RaggedTensor, SparseTensor)) else inputs.shape[0]
    counts.set_shape([rows, depth])
  if sparse:
    return _to_sparse(counts, inputs, depth, binary, dtype, count_weights)
  return counts


def _to_sparse(dense, inputs, depth, binary, dtype, weights):
  # The entries of a sparse bincount are the (row, id) pairs that occur.
  occur = _bincount(inputs, depth, True, tf.int32, None)
  where = tf.cast(tf.where(occur > 0), tf.int64)
  return SparseTensor(where, tf.gather_nd(dense, where), tf.shape(dense, out_type=tf.int64))


def output_shape(shape, output_mode, depth):
  """The static output shape of encode_categorical_inputs for an input `shape`."""
  shape = list(shape)
  if output_mode == INT:
    return tf.TensorShape(shape)
  if not shape:
    return tf.TensorShape([depth])
  if output_mode == ONE_HOT and shape[-1] != 1:
    return tf.TensorShape(shape + [depth])
  return tf.TensorShape(shape[:-1] + [depth])
