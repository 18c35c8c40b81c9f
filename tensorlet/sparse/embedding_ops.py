"""tf.nn.embedding_lookup_sparse and tf.nn.safe_embedding_lookup_sparse: the embeddings
of the ids in each row of a SparseTensor, combined by "sum", "mean" or "sqrtn" (with
optional weights), composed as TF composes them, so the gradient of the table is an
IndexedSlices."""
from tensorlet import dtypes as _dt
from tensorlet.ops import array_ops as A
from tensorlet.ops import math_ops as M
from tensorlet.ops.nn_ops import embedding_lookup
from tensorlet.sparse import sparse_ops
from tensorlet.sparse.sparse_tensor import SparseTensor
from tensorlet.tensor import EagerTensor, convert_to_tensor

__all__ = ["embedding_lookup_sparse", "safe_embedding_lookup_sparse"]

_COMBINERS = ("mean", "sqrtn", "sum")


def _sparse_combine(params, ids, segment_ids, combiner, sparse_gradient):
  fn = {"sum": sparse_ops.segment_sum, "mean": sparse_ops.segment_mean,
        "sqrtn": sparse_ops.segment_sqrt_n}[combiner]
  return fn(params, ids, segment_ids, sparse_gradient=sparse_gradient)


def _weighted_combine(embeddings, weights, segment_ids, combiner):
  original = embeddings.dtype
  if original is _dt.float16:  # (tensorlet has no bfloat16)
    embeddings = M.cast(embeddings, _dt.float32)
  if weights.dtype is not embeddings.dtype:
    weights = M.cast(weights, embeddings.dtype)
  ones = A.ones(A.expand_dims(A.rank(embeddings) - 1, 0), _dt.int32)
  weights = A.reshape(weights, A.concat([A.shape(weights), ones], 0))
  total = M.segment_sum(embeddings * weights, segment_ids)
  if combiner == "mean":
    total = M.div_no_nan(total, M.segment_sum(weights, segment_ids))
  elif combiner == "sqrtn":
    total = M.div_no_nan(total, M.sqrt(M.segment_sum(weights * weights, segment_ids)))
  return M.cast(total, original) if total.dtype is not original else total


def embedding_lookup_sparse(params, sp_ids, sp_weights, combiner=None, max_norm=None,
                            name=None, allow_fast_lookup=False):
  """Row i of the result combines the embeddings `params[sp_ids[i, :]]` (weighted by
  `sp_weights[i, :]` when given): their sum, mean or sum / sqrt(count) ("sqrtn").
  The result has as many rows as the last row holding an id, plus one.

  Raises:
    ValueError: an unknown combiner. TypeError: `sp_ids` (or `sp_weights`) is not a
    SparseTensor.
  """
  if combiner is None:
    combiner = "mean"
  if combiner not in _COMBINERS:
    raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
  if not isinstance(sp_ids, SparseTensor):
    raise TypeError(f"sp_ids must be SparseTensor, got {type(sp_ids)}")
  if sp_weights is not None:
    if not isinstance(sp_weights, SparseTensor):
      raise TypeError(f"sp_weights must be either None or SparseTensor,got {type(sp_weights)}")
    sp_ids.values.shape.assert_is_compatible_with(sp_weights.values.shape)
    sp_ids.indices.shape.assert_is_compatible_with(sp_weights.indices.shape)
  shards = list(params) if isinstance(params, (list, tuple)) else [params]
  segment_ids = sp_ids.indices[:, 0]
  ids = sp_ids.values
  if sp_weights is None and max_norm is None and len(shards) == 1:
    # NOTE: TF's fast path: the table's gradient is an IndexedSlices of the looked-up rows
    return _sparse_combine(convert_to_tensor(shards[0]), ids, segment_ids, combiner, True)
  unique_ids, idx = A.unique(ids)
  embeddings = embedding_lookup(shards, unique_ids, max_norm=max_norm)
  if sp_weights is None:
    return _sparse_combine(embeddings, idx, segment_ids, combiner, False)
  return _weighted_combine(A.gather(embeddings, idx), sp_weights.values,
                           M.cast(segment_ids, _dt.int32), combiner)


def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None,
                                 combiner="mean", default_id=None, max_norm=None, name=None,
                                 allow_fast_lookup=False):
  """embedding_lookup_sparse for ids of any rank (the last axis is combined), leaving out
  negative ids (and, unless combining by "sum", entries of weight <= 0); a row left
  without ids gets the embedding of `default_id`, or zeros.

  Raises:
    ValueError: `embedding_weights` is None or empty, or its shards differ in dtype.
  """
  if embedding_weights is None:
    raise ValueError(f"Missing embedding_weights {embedding_weights}.")
  shards = list(embedding_weights) if isinstance(embedding_weights, (list, tuple)) \
      else [embedding_weights]
  if not shards:
    raise ValueError(f"Missing embedding_weights {embedding_weights}.")
  if len({s.dtype for s in shards}) != 1:
    raise ValueError("All embedding weights must have the same dtype.")
  shape = sparse_ids.dense_shape
  rank = sparse_ids.dense_shape.shape[0]
  rank = A.size(shape) if rank is None else rank
  ids = sparse_ops.reshape(sparse_ids, A.stack([M.reduce_prod(shape[:rank - 1]),
                                                A.gather(shape, rank - 1)]))
  weights = None if sparse_weights is None else \
      SparseTensor(ids.indices, sparse_weights.values, ids.dense_shape)
  keep = M.greater_equal(ids.values, 0)
  if weights is not None and combiner != "sum":
    keep = M.logical_and(keep, M.greater(weights.values, 0))
  ids = sparse_ops.retain(ids, keep)
  if weights is not None:
    weights = sparse_ops.retain(weights, keep)
  ids, empty = sparse_ops.fill_empty_rows(ids, default_id or 0)
  if weights is not None:
    weights, _ = sparse_ops.fill_empty_rows(weights, 1.0)
  result = embedding_lookup_sparse(shards, ids, weights, combiner=combiner, max_norm=max_norm)
  if default_id is None:
    result = A.where(A.reshape(empty, [-1, 1]), A.zeros_like(result), result)
  out = A.reshape(result, A.concat([M.cast(shape, _dt.int32)[:rank - 1],
                                    A.shape(result)[1:]], 0))
  static = sparse_ids.dense_shape.shape[0]
  if static is not None and result.shape.rank is not None and not isinstance(out, EagerTensor):
    out.set_shape([None] * (static - 1) + result.shape.as_list()[1:])
  return out
