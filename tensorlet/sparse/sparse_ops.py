"""tf.sparse: ops on SparseTensors, built from the sparse kernels
(ops/sparse_ops.py) and dense ops, so they run eagerly, in graphs and under
GradientTape alike."""
from tensorlet import dtypes as _dt
from tensorlet.ops import array_ops as A
from tensorlet.ops import math_ops as M
from tensorlet.ops import sparse_ops as K
from tensorlet.ops._common import as_sequence, single_axis
from tensorlet.ops.registry import constant_value, execute
from tensorlet.sparse.sparse_tensor import SparseTensor
from tensorlet.tensor import Tensor, convert_to_tensor

__all__ = ["from_dense", "to_dense", "to_indicator", "reorder", "reshape", "slice", "concat",
           "add", "sparse_dense_matmul", "matmul", "reduce_sum", "reduce_max", "retain",
           "fill_empty_rows", "transpose", "expand_dims", "maximum", "minimum", "bincount",
           "segment_sum", "segment_mean", "segment_sqrt_n", "mask"]

_i64 = _dt.int64


def _sp(x, fn):
  if not isinstance(x, SparseTensor):
    raise TypeError(f"tf.sparse.{fn}: expected a SparseTensor, got {type(x).__name__}")
  return x


def _rank(sp):
  r = sp.shape.rank
  if r is None:
    raise ValueError("this sparse op needs the rank of its input to be known")
  return r


def _strides(shape):
  """Row-major strides of a dense shape vector (int64)."""
  return M.cumprod(shape, exclusive=True, reverse=True)


def _linear(indices, shape):
  return M.reduce_sum(M.multiply(indices, _strides(shape)), axis=1)


def _unravel(lin, shape):
  strides = _strides(shape)
  return M.floormod(M.floordiv(A.expand_dims(lin, 1), strides), shape)


# ------------------------------------------------------------ conversion
def from_dense(tensor, name=None):
  """The non-zero (non-empty for strings) elements of a dense tensor."""
  t = convert_to_tensor(tensor)
  zero = A.zeros([], t.dtype) if t.dtype is not _dt.string else convert_to_tensor(b"")
  idx = A.where(M.not_equal(t, zero))
  return SparseTensor(idx, A.gather_nd(t, idx), A.shape(t, out_type=_i64))


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
  """The dense tensor; missing elements are `default_value` (0 or b"").

  Raises:
    InvalidArgumentError: indices out of bounds, out of order or repeated (with
      validate_indices).
  """
  sp = _sp(sp_input, "to_dense")
  if default_value is None:
    default_value = b"" if sp.dtype is _dt.string else 0
  d = convert_to_tensor(default_value, sp.dtype)
  out = execute(K.SparseToDense, [sp.indices, sp.dense_shape, sp.values, d],
                {"validate_indices": bool(validate_indices)})
  if sp._shape_hint is not None:
    from tensorlet.ops.array_ops import ensure_shape
    out = ensure_shape(out, sp._shape_hint)
  return out


def to_indicator(sp_input, vocab_size, name=None):
  """Bool tensor [..., vocab_size]: True at each (row..., value) of `sp_input`."""
  sp = _sp(sp_input, "to_indicator")
  if not sp.dtype.is_integer:
    raise TypeError(f"to_indicator needs integer values, got {sp.dtype.name}")
  idx = A.concat([sp.indices[:, :-1], A.expand_dims(M.cast(sp.values, _i64), 1)], 1)
  shape = A.concat([sp.dense_shape[:-1], A.reshape(M.cast(vocab_size, _i64), [1])], 0)
  return execute(K.SparseToDense, [idx, shape, A.ones_like(sp.values, _dt.bool),
                                   convert_to_tensor(False)], {"validate_indices": False})


def reorder(sp_input, name=None):
  """The same sparse tensor with its entries in row-major order."""
  sp = _sp(sp_input, "reorder")
  perm = A.argsort(_linear(sp.indices, sp.dense_shape), stable=True)
  # NOTE: as TF, the gradient of the values is dense (a row gather would give IndexedSlices)
  return SparseTensor(A.gather(sp.indices, perm), A.gather(A.dense_gradient(sp.values), perm),
                      sp.dense_shape)


def reshape(sp_input, shape, name=None):
  """The same entries in a tensor of `shape` (one dim may be -1)."""
  sp = _sp(sp_input, "reshape")
  new = M.cast(convert_to_tensor(shape), _i64)
  total = M.reduce_prod(sp.dense_shape)
  known = M.reduce_prod(A.where(M.less(new, 0), A.ones_like(new), new))
  new = A.where(M.less(new, 0), A.fill(A.shape(new), M.floordiv(total, known)), new)
  tv, nv = constant_value(total), constant_value(new)
  if tv is not None and nv is not None and int(tv) != int(nv.prod()):
    from tensorlet.errors import InvalidArgumentError
    raise InvalidArgumentError(None, None, f"Input to reshape is a tensor with {int(tv)} dense "
                               f"values, but the requested shape has {int(nv.prod())} "
                               f"[Op:SparseReshape]")
  return SparseTensor(_unravel(_linear(sp.indices, sp.dense_shape), new), sp.values, new)


def slice(sp_input, start, size, name=None):  # noqa: A001
  """The entries inside the box [start, start + size), shifted to start at 0."""
  sp = _sp(sp_input, "slice")
  start = M.cast(convert_to_tensor(start), _i64)
  size = M.cast(convert_to_tensor(size), _i64)
  inside = M.reduce_all(M.logical_and(M.greater_equal(sp.indices, start),
                                      M.less(sp.indices, M.add(start, size))), axis=1)
  shape = M.maximum(M.minimum(size, M.subtract(sp.dense_shape, start)), A.zeros_like(size))
  return SparseTensor(M.subtract(A.boolean_mask(sp.indices, inside), start),
                      A.boolean_mask(sp.values, inside), shape)


def concat(axis, sp_inputs, name=None, expand_nonconcat_dims=False, concat_dim=None):
  """Joins sparse tensors along `axis` (the other dims must match unless
  expand_nonconcat_dims, which takes their maximum)."""
  if concat_dim is not None:
    axis = concat_dim
  sps = [_sp(s, "concat") for s in as_sequence(sp_inputs, "tf.sparse.concat", "sp_inputs")]
  if not sps:
    raise ValueError("tf.sparse.concat: `sp_inputs` must hold at least one SparseTensor")
  r = _rank(sps[0])
  axis = single_axis(axis, r, "tf.sparse.concat")
  onehot = A.one_hot(axis, r, dtype=_i64)
  idx, offset = [], A.zeros([r], _i64)
  for s in sps:
    idx.append(M.add(s.indices, offset))
    offset = M.add(offset, M.multiply(s.dense_shape, onehot))
  others = sps[0].dense_shape
  for s in sps[1:]:
    if expand_nonconcat_dims:
      others = M.maximum(others, s.dense_shape)
    else:
      a, b = constant_value(others), constant_value(s.dense_shape)
      if a is not None and b is not None and any(
          int(x) != int(y) for i, (x, y) in enumerate(zip(a, b)) if i != axis):
        raise ValueError(f"Input shapes must match except along the concat dimension: "
                         f"{a.tolist()} vs {b.tolist()} (axis {axis})")
  shape = M.add(M.multiply(others, M.subtract(A.ones_like(onehot), onehot)), offset)
  return reorder(SparseTensor(A.concat(idx, 0), A.concat([s.values for s in sps], 0), shape))


def _union(a, b):
  """Sorted union of the positions of a and b, and each one's values on it (0 when
  missing)."""
  la, lb = _linear(a.indices, a.dense_shape), _linear(b.indices, b.dense_shape)
  uniq, idx = A.unique(A.concat([la, lb], 0), out_idx=_i64)
  order = A.argsort(uniq, stable=True)
  rank_of = A.invert_permutation(order) if hasattr(A, "invert_permutation") else \
      A.scatter_nd(A.expand_dims(order, 1), A.range(A.size(order, out_type=_i64),
                                                    dtype=_i64), A.shape(order, out_type=_i64))
  pos = A.gather(rank_of, idx)
  n = A.size(uniq, out_type=_i64)
  na = A.shape(la, out_type=_i64)[0]
  va = M.unsorted_segment_sum(a.values, pos[:na], n)
  vb = M.unsorted_segment_sum(b.values, pos[na:], n)
  return _unravel(A.gather(uniq, order), a.dense_shape), va, vb, pos


def add(a, b, threshold=0, thresh=None, name=None):
  """Sparse + sparse (a sparse sum; entries with |sum| < threshold are dropped) or
  sparse + dense (a dense sum)."""
  if thresh is not None:
    threshold = thresh
  if isinstance(a, SparseTensor) and isinstance(b, SparseTensor):
    idx, va, vb, _ = _union(a, b)
    v = M.add(va, vb)
    t = convert_to_tensor(threshold)
    if constant_value(t) is None or float(constant_value(t)) > 0:
      keep = M.greater_equal(M.abs(v), M.cast(t, M.abs(v).dtype))
      return SparseTensor(A.boolean_mask(idx, keep), A.boolean_mask(v, keep), a.dense_shape)
    return SparseTensor(idx, v, a.dense_shape)
  if isinstance(b, SparseTensor):
    a, b = b, a
  if not isinstance(a, SparseTensor):
    raise TypeError("tf.sparse.add: at least one input should be a SparseTensor; do you mean "
                    "to use tf.add()?")
  d = convert_to_tensor(b, a.dtype)
  return A.tensor_scatter_nd_add(d, a.indices, a.values)


def maximum(sp_a, sp_b, name=None):
  """Elementwise maximum over the union of positions (a missing entry counts as 0)."""
  idx, va, vb, _ = _union(_sp(sp_a, "maximum"), _sp(sp_b, "maximum"))
  return SparseTensor(idx, M.maximum(va, vb), sp_a.dense_shape)


def minimum(sp_a, sp_b, name=None):
  """Elementwise minimum over the union of positions (a missing entry counts as 0)."""
  idx, va, vb, _ = _union(_sp(sp_a, "minimum"), _sp(sp_b, "minimum"))
  return SparseTensor(idx, M.minimum(va, vb), sp_a.dense_shape)


# ---------------------------------------------------------------- matmul
def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
  """sp_a @ b for a 2-D SparseTensor and a dense matrix (either side may be sparse)."""
  if not isinstance(sp_a, SparseTensor):
    if not isinstance(b, SparseTensor):
      raise TypeError("tf.sparse.sparse_dense_matmul: one input must be a SparseTensor, got "
                      f"{type(sp_a).__name__} and {type(b).__name__}")
    # dense @ sparse = (sparse^T @ dense^T)^T
    out = sparse_dense_matmul(b, sp_a, adjoint_a=not adjoint_b, adjoint_b=not adjoint_a)
    return A.transpose(out)
  if _rank(sp_a) != 2:
    raise ValueError(f"sparse_dense_matmul needs a 2-D SparseTensor, got rank {_rank(sp_a)}")
  idx, vals, shape = sp_a.indices, sp_a.values, sp_a.dense_shape
  if adjoint_a:
    idx, shape = A.reverse(idx, [1]), A.reverse(shape, [0])
    if vals.dtype.is_complex:
      vals = M.conj(vals)
  d = convert_to_tensor(b, vals.dtype)
  if adjoint_b:
    d = A.transpose(d)
    if d.dtype.is_complex:
      d = M.conj(d)
  return execute(K.SparseTensorDenseMatMul, [idx, vals, shape, d], {})


matmul = sparse_dense_matmul


# ------------------------------------------------------------ reductions
def _axes(axis, r):
  axes = [axis] if isinstance(axis, int) else list(axis)
  return sorted({int(a) + r if int(a) < 0 else int(a) for a in axes})


def _reduce_sparse(sp, axis, keepdims, seg_fn):
  """The reduction as a SparseTensor with one entry per output position hit."""
  r = _rank(sp)
  axes = _axes(axis, r)
  keep = [d for d in range(r) if d not in axes]
  if not keep:  # a scalar (or all-ones shape): one entry
    ids = A.zeros(A.shape(sp.values, out_type=_i64), _i64)
    v = seg_fn(sp.values, ids, A.constant(1, _i64))
    k = r if keepdims else 0
    return SparseTensor(A.zeros([1, k], _i64), v, A.ones([k], _i64))
  keep_t = convert_to_tensor(keep, _dt.int32) if keep else A.zeros([0], _dt.int32)
  shape_k = A.gather(sp.dense_shape, keep_t)
  coords = A.gather(sp.indices, keep_t, axis=1)
  uniq, idx = A.unique(_linear(coords, shape_k), out_idx=_i64)
  vals = seg_fn(sp.values, idx, A.size(uniq, out_type=_i64))
  order = A.argsort(uniq, stable=True)
  out_idx = _unravel(A.gather(uniq, order), shape_k)
  vals = A.gather(vals, order)
  if keepdims:
    cols, shp, j = [], [], 0
    for d in range(r):
      if d in axes:
        cols.append(A.zeros_like(out_idx[:, 0]))
        shp.append(A.constant(1, _i64))
      else:
        cols.append(out_idx[:, j])
        shp.append(shape_k[j])
        j += 1
    return SparseTensor(A.stack(cols, 1), vals, A.stack(shp))
  return SparseTensor(out_idx, vals, shape_k)


def reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None,
               reduction_axes=None, keep_dims=None):
  """Sum over `axis` (all when None); a SparseTensor with output_is_sparse."""
  sp = _sp(sp_input, "reduce_sum")
  axis = reduction_axes if axis is None else axis
  keepdims = bool(keepdims if keepdims is not None else keep_dims)
  if output_is_sparse:
    return _reduce_sparse(sp, range(_rank(sp)) if axis is None else axis, keepdims,
                          M.unsorted_segment_sum)
  if axis is None:
    s = M.reduce_sum(sp.values)
    return A.reshape(s, [1] * _rank(sp)) if keepdims else s
  dense = A.tensor_scatter_nd_add(A.zeros(sp.dense_shape, sp.dtype), sp.indices, sp.values)
  return M.reduce_sum(dense, axis=axis, keepdims=keepdims)


def reduce_max(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None,
               reduction_axes=None, keep_dims=None):
  """Max over `axis` of the entries present (implicit zeros do not take part); output
  positions with no entry are 0 in the dense result."""
  sp = _sp(sp_input, "reduce_max")
  axis = reduction_axes if axis is None else axis
  keepdims = bool(keepdims if keepdims is not None else keep_dims)
  if axis is None and not output_is_sparse:
    m = M.reduce_max(sp.values)
    return A.reshape(m, [1] * _rank(sp)) if keepdims else m
  out = _reduce_sparse(sp, range(_rank(sp)) if axis is None else axis, keepdims,
                       M.unsorted_segment_max)
  return out if output_is_sparse else to_dense(out)


# ------------------------------------------------------------- structure
def retain(sp_input, to_retain):
  """The entries where the bool vector `to_retain` is True."""
  sp = _sp(sp_input, "retain")
  keep = convert_to_tensor(to_retain, _dt.bool)
  return SparseTensor(A.boolean_mask(sp.indices, keep), A.boolean_mask(sp.values, keep),
                      sp.dense_shape)


def fill_empty_rows(sp_input, default_value, name=None):
  """(sparse tensor with `default_value` at [row, 0, ...] of each empty row,
  bool vector of the rows that were empty)."""
  sp = _sp(sp_input, "fill_empty_rows")
  idx, vals, empty, _ = execute(K.SparseFillEmptyRows, [
      sp.indices, sp.values, sp.dense_shape, convert_to_tensor(default_value, sp.dtype)], {})
  return SparseTensor(idx, vals, sp.dense_shape), empty


def transpose(sp_input, perm=None, name=None):
  """Permutes the dimensions (reversed when perm is None); entries stay sorted."""
  sp = _sp(sp_input, "transpose")
  r = _rank(sp)
  perm = list(range(r))[::-1] if perm is None else [int(p) for p in perm]
  if sorted(perm) != list(range(r)):
    raise ValueError(f"perm {perm} is not a permutation of {r} dimensions")
  return reorder(SparseTensor(A.gather(sp.indices, perm, axis=1), sp.values,
                              A.gather(sp.dense_shape, perm)))


def expand_dims(sp_input, axis=None, name=None):
  """Inserts a dimension of size 1 at `axis`."""
  sp = _sp(sp_input, "expand_dims")
  r = _rank(sp)
  axis = 0 if axis is None else int(axis)
  if not -r - 1 <= axis <= r:
    raise ValueError(f"axis {axis} out of range for a rank-{r} SparseTensor")
  axis = axis + r + 1 if axis < 0 else axis
  zero = A.zeros_like(sp.indices[:, :1])
  idx = A.concat([sp.indices[:, :axis], zero, sp.indices[:, axis:]], 1)
  shape = A.concat([sp.dense_shape[:axis], A.constant([1], _i64), sp.dense_shape[axis:]], 0)
  return SparseTensor(idx, sp.values, shape)


def mask(a, mask_indices, name=None):
  """The IndexedSlices `a` without its rows whose index is in `mask_indices` (the rest in
  their order)."""
  from tensorlet.indexed_slices import IndexedSlices
  if not isinstance(a, IndexedSlices):
    raise TypeError(f"tf.sparse.mask takes an IndexedSlices, got {type(a).__name__}")
  m = A.reshape(convert_to_tensor(mask_indices, dtype_hint=a.indices.dtype), [1, -1])
  if m.dtype is not a.indices.dtype:
    m = M.cast(m, a.indices.dtype)
  hit = M.reduce_any(M.equal(A.expand_dims(a.indices, 1), m), axis=1)
  keep = A.reshape(A.where(M.logical_not(hit)), [-1])
  return IndexedSlices(A.gather(a.values, keep), A.gather(a.indices, keep),
                       a.dense_shape)


# --------------------------------------------------------------- counting
def bincount(values, weights=None, axis=0, minlength=None, maxlength=None,
             binary_output=False, name=None):
  """Counts of the values of a SparseTensor (per row with axis=-1), as a SparseTensor."""
  sp = _sp(values, "bincount")
  v = M.cast(sp.values, _i64)
  size = M.add(M.reduce_max(A.concat([A.constant([-1], _i64), v], 0)), A.constant(1, _i64))
  if minlength is not None:
    size = M.maximum(size, M.cast(minlength, _i64))
  if maxlength is not None:
    size = M.minimum(size, M.cast(maxlength, _i64))
  w = A.ones_like(v, _dt.int32 if weights is None else convert_to_tensor(weights).dtype) \
      if weights is None else convert_to_tensor(weights).values \
      if isinstance(weights, SparseTensor) else convert_to_tensor(weights)
  keep = M.less(v, size)
  v, w = A.boolean_mask(v, keep), A.boolean_mask(w, keep)
  if axis in (None, 0):
    dense = M.unsorted_segment_sum(w, v, size)
  elif axis == -1 and _rank(sp) == 2:
    rows = A.boolean_mask(sp.indices[:, 0], keep)
    n = sp.dense_shape[0]
    dense = A.reshape(M.unsorted_segment_sum(w, M.add(M.multiply(rows, size), v),
                                             M.multiply(n, size)), A.stack([n, size]))
  else:
    raise ValueError(f"bincount: axis must be 0 or -1 (for a 2-D SparseTensor), got {axis}")
  hit = from_dense(M.cast(M.not_equal(dense, A.zeros_like(dense)), _dt.int8))
  vals = A.gather_nd(dense, hit.indices)
  if binary_output:
    vals = A.ones_like(vals)
  return SparseTensor(hit.indices, vals, hit.dense_shape)


def _sparse_segment(data, indices, segment_ids, num_segments, scale, sparse_gradient):
  x = convert_to_tensor(data)
  # NOTE: as TF, the gradient of `data` is an IndexedSlices only with sparse_gradient
  x = A.gather(x if sparse_gradient else A.dense_gradient(x), indices)
  ids = convert_to_tensor(segment_ids)
  n = num_segments if num_segments is not None else \
      M.add(M.reduce_max(A.concat([A.constant([-1], ids.dtype), ids], 0)), 1)
  s = M.unsorted_segment_sum(x, ids, n)
  if scale is None:
    return s
  c = M.unsorted_segment_sum(A.ones_like(ids, x.dtype), ids, n)
  c = M.maximum(c, A.ones_like(c))
  c = A.reshape(c, A.concat([A.shape(c), A.ones([A.rank(s) - 1], _dt.int32)], 0))
  return M.truediv(s, c) if scale == "mean" else M.multiply(s, M.rsqrt(c))


def segment_sum(data, indices, segment_ids, num_segments=None, name=None,
                sparse_gradient=False):
  """Sums of the rows `indices` of `data`, grouped by `segment_ids`."""
  return _sparse_segment(data, indices, segment_ids, num_segments, None, sparse_gradient)


def segment_mean(data, indices, segment_ids, num_segments=None, name=None,
                 sparse_gradient=False):
  """Means of the rows `indices` of `data`, grouped by `segment_ids` (0 when empty)."""
  return _sparse_segment(data, indices, segment_ids, num_segments, "mean", sparse_gradient)


def segment_sqrt_n(data, indices, segment_ids, num_segments=None, name=None,
                   sparse_gradient=False):
  """Sums divided by sqrt(count) of the rows `indices`, grouped by `segment_ids`."""
  return _sparse_segment(data, indices, segment_ids, num_segments, "sqrt_n", sparse_gradient)


# --------------------------------------------------------- elementwise
_ZERO_PRESERVING = frozenset(["Abs", "Neg", "Sign", "Square", "Sqrt", "Sin", "Tan", "Asin",
                              "Atan", "Sinh", "Tanh", "Asinh", "Atanh", "Expm1", "Log1p",
                              "Floor", "Ceil", "Round", "Rint", "Erf", "Real", "Imag", "Conj"])


def elementwise(od, api, args, kwargs):
  """Unary ops with f(0) = 0 apply to a SparseTensor's values."""
  if len(args) == 1 and not kwargs and isinstance(args[0], SparseTensor) and \
      od.name in _ZERO_PRESERVING:
    return args[0].with_values(api(args[0].values))
  return NotImplemented


def sparse_dense_cwise(sp, other, kind):
  """sp * dense or sp / dense (dense broadcast to sp's shape): a SparseTensor."""
  d = convert_to_tensor(other, sp.dtype) if not isinstance(other, Tensor) else other
  if isinstance(other, SparseTensor):
    return NotImplemented
  full = A.broadcast_to(d, sp.dense_shape)
  picked = A.gather_nd(full, sp.indices)
  v = M.multiply(sp.values, picked) if kind == "mul" else M.truediv(sp.values, picked)
  return sp.with_values(v)


def _cast(x, dtype, name=None):
  return x.with_values(M.cast._tl_undispatched(x.values, dtype))


from tensorlet.ops import dispatch  # noqa: E402

dispatch.dispatch_for(M.cast)(SparseTensor)(_cast)
dispatch.dispatch_for(M.abs)(SparseTensor)(lambda x, name=None: x.with_values(
    M.abs._tl_undispatched(x.values)))


def _tf_shape(input, out_type=_dt.int32, name=None):  # noqa: A002
  return M.cast(input.dense_shape, out_type)


def _tf_size(input, out_type=_dt.int32, name=None):  # noqa: A002
  return M.cast(M.reduce_prod(input.dense_shape), out_type)


def _tf_rank(input, name=None):  # noqa: A002
  return M.cast(A.shape(input.dense_shape)[0], _dt.int32)


dispatch.dispatch_for(A.shape)(SparseTensor)(_tf_shape)
dispatch.dispatch_for(A.size)(SparseTensor)(_tf_size)
dispatch.dispatch_for(A.rank)(SparseTensor)(_tf_rank)
