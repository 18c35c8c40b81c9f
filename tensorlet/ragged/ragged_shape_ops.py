"""tf.ones / tf.zeros / tf.fill / tf.broadcast_to / tf.reshape given a
DynamicRaggedShape (what tf.shape of a RaggedTensor returns): RaggedTensors of that
shape, their row_splits in the shape's dtype, as TF's; and tf.reshape of a
RaggedTensor, which reshapes its flat values, as TF's."""
from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import array_ops as A
from tensorlet.ops import dispatch
from tensorlet.ops import creation_ops as C
from tensorlet.ops import math_ops as M
from tensorlet.ops.registry import constant_value
from tensorlet.ragged.dynamic_ragged_shape import DynamicRaggedShape
from tensorlet.ragged.ragged_tensor import RaggedTensor
from tensorlet.tensor import convert_to_tensor

__all__ = ["ones", "zeros", "fill", "broadcast_to", "reshape"]


def _wrap(shape, flat):
  """`flat` (the flat values) partitioned as `shape`'s ragged dimensions."""
  out = flat
  for p in reversed(shape.row_partitions):
    out = RaggedTensor.from_row_splits(out, p.row_splits(), validate=False)
    out._uniform = p.static_uniform_row_length
  return out


def _creation(dense_fn):
  def impl(shape, dtype=_dt.float32, name=None, layout=None):
    if not isinstance(shape, DynamicRaggedShape):
      return NotImplemented
    return _wrap(shape, dense_fn(shape.inner_shape, dtype))
  return impl


def fill(dims, value, name=None):
  if not isinstance(dims, DynamicRaggedShape):
    return NotImplemented
  return _wrap(dims, C.fill(dims.inner_shape, value))


def _cannot(why):
  return InvalidArgumentError(None, None, f"Cannot broadcast: {why} [Op:BroadcastTo]")


def broadcast_to(input, shape, name=None):  # noqa: A002
  """Dense `input` broadcast (numpy-style, aligned on the right) to ragged `shape`: the
  input's dimensions that meet a ragged one must be 1."""
  if not isinstance(shape, DynamicRaggedShape) or isinstance(input, RaggedTensor):
    return NotImplemented
  x = convert_to_tensor(input)
  rank, k = shape.rank, shape.num_row_partitions
  if x.shape.rank is None or rank is None:
    raise ValueError("broadcast_to a DynamicRaggedShape needs inputs of known rank")
  if x.shape.rank > rank:
    raise ValueError(f"Cannot broadcast a tensor of rank {x.shape.rank} to a shape of rank "
                     f"{rank}")
  x = A.reshape(x, A.concat([A.ones([rank - x.shape.rank], _dt.int32),
                             A.shape(x, out_type=_dt.int32)], 0)) \
      if x.shape.rank < rank else x
  dims = x.shape.as_list()
  parts = shape.row_partitions
  for j, p in enumerate(parts, start=1):
    d = dims[j]
    if d == 1:
      continue
    width = p.static_uniform_row_length
    if d is None or width is None:
      raise _cannot(f"dimension {j} of the input ({d}) meets a ragged dimension")
    if d != width:
      raise _cannot(f"dimension {j} of the input ({d}) is not {width}")
  n0 = constant_value(shape[0])
  if dims[0] not in (1, None) and n0 is not None and int(n0) != dims[0]:
    raise _cannot(f"dimension 0 of the input ({dims[0]}) is not {int(n0)}")
  # each flat value's index along the outer k+1 dimensions, innermost partition first
  pos = A.range(parts[-1].nvals(), dtype=parts[-1].dtype)
  index = [None] * (k + 1)
  for j in range(k, 0, -1):
    p = parts[j - 1]
    ids = A.searchsorted(p.row_splits()[1:], M.cast(pos, p.dtype), side="right",
                         out_type=p.dtype)
    index[j] = M.subtract(M.cast(pos, p.dtype), A.gather(p.row_splits(), ids))
    pos = ids
  index[0] = pos
  cols = [M.cast(ix, _dt.int64) if dims[j] != 1 else A.zeros_like(M.cast(ix, _dt.int64))
          for j, ix in enumerate(index)]
  outer = A.gather_nd(x, A.stack(cols, 1))
  flat_shape = M.cast(shape.inner_shape, _dt.int64)
  return _wrap(shape, A.broadcast_to(outer, flat_shape))


def reshape(tensor, shape, name=None):
  """As TF's: a RaggedTensor's flat values (row partitions dropped) reshaped to `shape`;
  given a DynamicRaggedShape, partitioned as it."""
  flat = tensor.flat_values if isinstance(tensor, RaggedTensor) else tensor
  if isinstance(shape, DynamicRaggedShape):
    return _wrap(shape, A.reshape(flat, shape.inner_shape))
  return A.reshape(flat, shape)


dispatch.dispatch_for(A.reshape)(RaggedTensor)(reshape)
dispatch.dispatch_for(A.reshape)(DynamicRaggedShape)(reshape)
dispatch.dispatch_for(C.ones)(DynamicRaggedShape)(_creation(C.ones))
dispatch.dispatch_for(C.zeros)(DynamicRaggedShape)(_creation(C.zeros))
dispatch.dispatch_for(C.fill)(DynamicRaggedShape)(fill)
dispatch.dispatch_for(A.broadcast_to)(DynamicRaggedShape)(broadcast_to)
