"""Sorting ops: sort, argsort, top_k, unique (with counts), searchsorted,
histogram_fixed_width."""
import builtins
from collections import namedtuple as _nt

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops._common import ALL, as_int, single_axis
from tensorlet.ops._common import name_scoped
from tensorlet.ops.array_ops import _int32, _math, reshape, shape, size, transpose
from tensorlet.ops.creation_ops import ones_like
from tensorlet.ops.indexing_ops import GatherGrad, dense_gradient, gather
from tensorlet.ops.registry import constant_value, convert_inputs, execute, op
from tensorlet.tensor import Tensor, convert_to_tensor
from tensorlet.tensor_shape import TensorShape


# -------------------------------------------------------------- sorting

def _topk_shape(inputs, attrs):
  x = inputs[0]
  if x.shape.rank is None:
    return [(TensorShape(None), x.dtype), (TensorShape(None), _int32)]
  d = x.shape.as_list()
  d[-1] = attrs["k"]
  return [(TensorShape(d), x.dtype), (TensorShape(d), _int32)]


@op("TopKV2", dtypes=_dt.REAL, shape=_topk_shape, num_outputs=2)
def TopKV2(x, *, k, sorted):  # noqa: A002
  if k > x.shape[-1]:
    raise ValueError(f"input must have at least k columns. Had {x.shape[-1]}, needed {k}")
  idx = np.argsort(-x if x.dtype.kind != "u" else np.iinfo(x.dtype).max - x, axis=-1,
                   kind="stable")[..., :k]
  return np.take_along_axis(x, idx, axis=-1), idx.astype(np.int32)


@TopKV2.def_grad
def _(op, dv, di):
  if dv is None:
    return [None]
  # The values are a batched gather along the last axis: its gradient scatters back.
  x, idx = op.inputs[0], op.outputs[1]
  r = x.shape.rank
  return [execute(GatherGrad, [dv, idx, shape(x)], {"axis": r - 1, "batch_dims": r - 1})]


def top_k(input, k=1, sorted=True, index_type=_int32, name=None):  # noqa: A002
  """The `k` largest entries of the last axis and their indices."""
  x = convert_to_tensor(input)
  k = as_int(constant_value(convert_to_tensor(k)), "TopKV2", "k")
  if k < 0:
    raise InvalidArgumentError(None, None, f"Need k >= 0, got {k} [Op:TopKV2]")
  if x.shape.rank == 0:
    raise InvalidArgumentError(None, None, "input must be >= 1-D, got shape [] [Op:TopKV2]")
  v, i = execute(TopKV2, [x], {"k": k, "sorted": bool(sorted)}, name)
  return _TopK(v, i)


_TopK = _nt("TopKV2", ["values", "indices"])


@name_scoped
def sort(values, axis=-1, direction="ASCENDING", name=None):
  """Sorted copy of `values` along `axis`."""
  x = convert_to_tensor(values)
  r = x.shape.rank
  if r == 0:
    raise InvalidArgumentError(None, None, "input must be at least rank 1 [Op:Sort]")
  ax = single_axis(axis, r, "Sort")
  if ax != r - 1:  # sort along the last axis, between two transposes
    perm = list(builtins.range(r))
    perm[ax], perm[-1] = perm[-1], perm[ax]
    return transpose(sort(transpose(x, perm), -1, direction), perm)
  idx = argsort(x, axis=-1, direction=direction, stable=True)
  if r == 1:  # TF's gradient is dense (a gather of the rows would give IndexedSlices)
    x = dense_gradient(x)
  return gather(x, idx, axis=r - 1, batch_dims=r - 1)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
  """Indices that sort `values` along `axis`."""
  if direction not in ("ASCENDING", "DESCENDING"):
    raise ValueError(f'`direction` must be one of "ASCENDING" or "DESCENDING", got {direction!r}')
  x = convert_to_tensor(values)
  ax = single_axis(axis, x.shape.rank, "ArgSort")
  return execute(ArgSort, [x], {"axis": ax, "descending": direction == "DESCENDING"}, name)


@op("ArgSort", dtypes=_dt.REAL, shape=lambda i, a: [(i[0].shape, _int32)], differentiable=False)
def ArgSort(x, *, axis, descending):
  if descending:
    x = -x.astype(np.float64) if x.dtype.kind in "iu" else -x
  return np.argsort(x, axis=axis, kind="stable").astype(np.int32)


def _unique_shape(inputs, attrs):
  return [(TensorShape([None]), inputs[0].dtype), (inputs[0].shape, attrs["out_idx"])]


@op("Unique", dtypes=ALL, shape=_unique_shape, num_outputs=2, differentiable=False)
def Unique(x, *, out_idx):
  vals, first, inv = np.unique(x, return_index=True, return_inverse=True)
  order = np.argsort(first, kind="stable")
  rank_of = np.empty_like(order)
  rank_of[order] = np.arange(len(order))
  return vals[order], rank_of[inv.reshape(-1)].astype(out_idx._np)


_Unique = _nt("Unique", ["y", "idx"])


def unique(x, out_idx=_int32, name=None):
  """Unique values of a 1-D tensor in first-seen order, and each element's index into them."""
  t = convert_to_tensor(x)
  if t.shape.rank != 1:
    raise InvalidArgumentError(None, None, "unique expects a 1D vector. [Op:Unique]")
  y, idx = execute(Unique, [t], {"out_idx": _dt.as_dtype(out_idx)}, name)
  return _Unique(y, idx)


@op("SearchSorted", type_inputs=(0, 1), dtypes=_dt.REAL,
    shape=lambda i, a: [(i[1].shape, a["out_type"])], differentiable=False)
def SearchSorted(sorted_sequence, values, *, side, out_type):
  if np.ndim(sorted_sequence) == 1:
    return np.searchsorted(sorted_sequence, values, side=side).astype(out_type._np)
  if np.shape(sorted_sequence)[:-1] != np.shape(values)[:-1]:
    raise InvalidArgumentError(None, None, "Leading dim_size of both tensors must match. "
                               "[Op:SearchSorted]")
  s = np.reshape(sorted_sequence, (-1, np.shape(sorted_sequence)[-1]))
  v = np.reshape(values, (-1, np.shape(values)[-1]))
  out = np.stack([np.searchsorted(a, b, side=side) for a, b in zip(s, v)])
  return out.reshape(np.shape(values)).astype(out_type._np)


def searchsorted(sorted_sequence, values, side="left", out_type=_int32, name=None):
  """Insertion points of `values` in the innermost dimension of `sorted_sequence`."""
  if side not in ("left", "right"):
    raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = "
                     f"{side}.")
  s, v = convert_inputs(SearchSorted, (sorted_sequence, values))
  if s.shape.rank is not None and v.shape.rank is not None and s.shape.rank != v.shape.rank \
      and s.shape.rank != 1:
    raise InvalidArgumentError(None, None, "sorted_sequence and values must have the same rank "
                               "[Op:SearchSorted]")
  return execute(SearchSorted, [s, v], {"side": side, "out_type": _dt.as_dtype(out_type)}, name)


_UniqueWithCounts = _nt("UniqueWithCounts", ["y", "idx", "count"])


@name_scoped
def unique_with_counts(x, out_idx=_int32, name=None):
  """unique() plus how often each unique value occurs."""
  y, idx = unique(x, out_idx)
  count = _math().unsorted_segment_sum(ones_like(idx), idx, size(y, out_idx))
  return _UniqueWithCounts(y, idx, count)


@name_scoped
def histogram_fixed_width(values, value_range, nbins=100, dtype=_int32, name=None):
  """Counts of `values` in `nbins` equal bins over `value_range` (outliers go to the ends)."""
  m = _math()
  nbins = nbins if isinstance(nbins, Tensor) else as_int(nbins, "HistogramFixedWidth", "nbins")
  v = convert_to_tensor(values)
  lo_hi = convert_to_tensor(value_range, v.dtype)
  lo, hi = lo_hi[0], lo_hi[1]
  scaled = (m.cast(v, _dt.float64) - m.cast(lo, _dt.float64)) / m.cast(hi - lo, _dt.float64)
  idx = m.cast(m.floor(scaled * nbins), _int32)
  idx = m.minimum(m.maximum(idx, 0), nbins - 1)
  return m.cast(m.unsorted_segment_sum(ones_like(reshape(idx, [-1])), reshape(idx, [-1]),
                                       nbins), dtype)
