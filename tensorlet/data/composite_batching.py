"""Batching and slicing of composite dataset elements (SparseTensor, RaggedTensor).

At run time a composite slot is a tuple of NumPy component arrays (see
structure.py): a sparse slot is (indices, values, dense_shape), a ragged slot
(flat_values, row_splits, *inner row splits), a ragged slot of ragged_rank 0
(one dense array). These functions build batched specs and combine or split
such tuples the way TensorFlow's batch / unbatch / from_tensor_slices do.
"""
import numpy as np

from tensorlet.errors import InvalidArgumentError
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor_spec import TensorSpec
from tensorlet.sparse.sparse_tensor import SparseTensorSpec
from tensorlet.ragged.ragged_tensor import RaggedTensorSpec

__all__ = ["batch_spec", "unbatch_spec", "ragged_batch_spec", "stacker", "unstacker",
           "ragged_stacker"]


def _invalid(msg, op_name):
  return InvalidArgumentError(None, None, f"{msg} [Op:{op_name}]")


def _is_ragged(spec):
  return isinstance(spec, RaggedTensorSpec)


# ------------------------------------------------------------------- specs

def _unsupported(spec, what):
  return NotImplementedError(f"{what} of {type(spec).__name__} elements is not implemented in "
                             f"tensorlet's tf.data (only SparseTensor and RaggedTensor).")


def batch_spec(spec, dim):
  if isinstance(spec, SparseTensorSpec):
    return SparseTensorSpec(TensorShape([dim]).concatenate(spec.shape), spec.dtype)
  if _is_ragged(spec):
    return RaggedTensorSpec(TensorShape([dim]).concatenate(spec.shape), spec.dtype,
                            spec.ragged_rank + 1, spec.row_splits_dtype)
  raise _unsupported(spec, "Batching")


def unbatch_spec(spec, what="Unbatching"):
  if not isinstance(spec, (SparseTensorSpec, RaggedTensorSpec)):
    raise _unsupported(spec, what)
  if spec.shape.rank == 0:
    raise ValueError(f"{what} a tensor is only supported for rank >= 1")
  if isinstance(spec, SparseTensorSpec):
    return SparseTensorSpec(spec.shape[1:], spec.dtype)
  if _is_ragged(spec):
    if spec.ragged_rank == 0:
      return TensorSpec(spec.shape[1:], spec.dtype)
    # NOTE: as TF, slicing a ragged_rank-1 value gives a ragged_rank-0 spec (dense values)
    return RaggedTensorSpec(spec.shape[1:], spec.dtype, spec.ragged_rank - 1,
                            spec.row_splits_dtype)


def _ragged_rank_for(spec):
  """The ragged_rank ragged_batch gives a dense element (0: it batches densely)."""
  if spec.shape.rank is None:
    raise ValueError("ragged_batch needs elements of known rank")
  unknown = [i for i, d in enumerate(spec.shape.as_list()) if d is None]
  return unknown[-1] + 1 if unknown else 0


def ragged_batch_spec(spec, dim, splits_dtype):
  """The batched spec of one slot under ragged_batch."""
  if isinstance(spec, TensorSpec):
    rr = _ragged_rank_for(spec)
    shape = TensorShape([dim]).concatenate(spec.shape)
    if rr == 0:
      return TensorSpec(shape, spec.dtype)
    return RaggedTensorSpec(shape, spec.dtype, rr, splits_dtype)
  return batch_spec(spec, dim)


# ---------------------------------------------------------------- run time

def _stack_sparse(rows, k, op_name):
  ranks = {len(r[2]) for r in rows}
  if len(ranks) != 1:
    raise _invalid(f"Cannot batch SparseTensors of different ranks in component {k}.", op_name)
  rank = ranks.pop()
  idx = [np.concatenate([np.full((len(r[0]), 1), i, np.int64),
                         np.asarray(r[0], np.int64).reshape(-1, rank)], axis=1)
         for i, r in enumerate(rows)]
  shape = np.max(np.stack([np.asarray(r[2], np.int64) for r in rows]), axis=0) if rank else \
      np.zeros([0], np.int64)
  return (np.concatenate(idx, axis=0), np.concatenate([np.asarray(r[1]) for r in rows]),
          np.concatenate([[len(rows)], shape]).astype(np.int64))


def _stack_ragged(rows, k, op_name, splits_np):
  """rows: per-element component tuples of one ragged_rank (flat, *splits)."""
  flats = [np.asarray(r[0]) for r in rows]
  inner = {f.shape[1:] for f in flats}
  if len(inner) != 1:
    raise _invalid(f"Cannot batch ragged tensors with different inner shapes in component "
                   f"{k}.", op_name)
  nrows = [len(r[1]) - 1 if len(r) > 1 else len(r[0]) for r in rows]
  outer = np.concatenate([[0], np.cumsum(nrows)]).astype(splits_np)
  levels = []
  for j in range(1, len(rows[0])):
    parts, off = [np.zeros([1], splits_np)], 0
    for r in rows:
      s = np.asarray(r[j])
      parts.append(s[1:] + off)
      off += s[-1]
    levels.append(np.concatenate(parts).astype(splits_np))
  return (np.concatenate(flats, axis=0), outer, *levels)


def _dense_to_ragged(arr, rr, splits_np):
  """A dense array as ragged components of ragged_rank `rr` (uniform splits)."""
  arr = np.asarray(arr)
  splits, n = [], arr.shape[0] if arr.ndim else 1
  for j in range(1, rr + 1):
    splits.append((np.arange(n + 1) * arr.shape[j]).astype(splits_np))
    n *= arr.shape[j]
  return (arr.reshape((n,) + arr.shape[rr + 1:]), *splits)


def stacker(spec, k, op_name):
  """A function from the slot values of a batch's elements to the batched slot."""
  if isinstance(spec, SparseTensorSpec):
    return lambda rows: _stack_sparse(rows, k, op_name)
  if _is_ragged(spec):
    splits_np = spec.row_splits_dtype._np
    return lambda rows: _stack_ragged([r if isinstance(r, tuple) else (r,) for r in rows], k,
                                      op_name, splits_np)
  raise _unsupported(spec, "Batching")


def ragged_stacker(spec, k, op_name, splits_dtype, dense_stack):
  """ragged_batch's stacker of one slot (`dense_stack` for slots that stay dense)."""
  if isinstance(spec, TensorSpec):
    rr = _ragged_rank_for(spec)
    if rr == 0:
      return lambda rows: dense_stack(rows, k, op_name)
    splits_np = splits_dtype._np
    return lambda rows: _stack_ragged([_dense_to_ragged(r, rr - 1, splits_np) for r in rows],
                                      k, op_name, splits_np)
  return stacker(spec, k, op_name)


def _unstack_sparse(slot, op_name):
  idx, vals, shape = (np.asarray(x) for x in slot)
  if len(shape) < 2:
    raise _invalid(f"Rank of input SparseTensor should be > 1, but saw rank: {len(shape)}",
                   op_name)
  n, rest = int(shape[0]), np.asarray(shape[1:], np.int64)
  first = idx[:, 0]
  out = []
  for i in range(n):
    m = first == i
    out.append((idx[m, 1:].astype(np.int64), vals[m], rest))
  return out


def _unstack_ragged(slot, rr):
  if rr == 0:
    arr = slot[0] if isinstance(slot, tuple) else slot
    return [arr[i] for i in range(len(arr))]
  flat, splits = slot[0], slot[1:]
  out = []
  for i in range(len(splits[0]) - 1):
    lo, hi = splits[0][i], splits[0][i + 1]
    comps = []
    for s in splits[1:]:
      part = s[lo:hi + 1]
      comps.append(part - part[0])
      lo, hi = part[0], part[-1]
    out.append((flat[lo:hi], *comps))
  return out


def unstacker(spec, op_name):
  """A function from a batched slot to the list of its rows' slot values."""
  if isinstance(spec, SparseTensorSpec):
    return lambda slot: _unstack_sparse(slot, op_name)
  if _is_ragged(spec):
    return lambda slot: _unstack_ragged(slot, spec.ragged_rank)
  raise _unsupported(spec, "Unbatching")
