"""tf.distribute.CrossDeviceOps and its kinds, and the communication options of
multi-worker strategies. In one process every kind reduces the same way (an exact sum of
the replicas' values with NumPy), so the kind passed to MirroredStrategy selects nothing;
the objects also reduce distributed values themselves."""
import enum

from tensorlet.distribute import values as _values
from tensorlet.distribute.reduce_util import ReduceOp, as_reduce_op

__all__ = ["CrossDeviceOps", "ReductionToOneDevice", "HierarchicalCopyAllReduce",
           "NcclAllReduce", "CommunicationImplementation", "CommunicationOptions"]


class CrossDeviceOps:
  """Reduces and broadcasts values across the local replicas."""

  def reduce(self, reduce_op, per_replica_value, destinations=None, options=None):
    return self.batch_reduce(reduce_op, [(per_replica_value, destinations)], options)[0]

  def batch_reduce(self, reduce_op, value_destination_pairs, options=None):
    from tensorlet.distribute import cross_device
    from tensorlet.ops import math_ops
    reduce_op = as_reduce_op(reduce_op)
    out = []
    for pair in value_destination_pairs:
      v = pair[0] if isinstance(pair, tuple) else pair
      parts = [cross_device._tensor(x) for x in _values.local_values(v)]
      total = cross_device._add_all(parts)
      out.append(total if reduce_op is ReduceOp.SUM else
                 math_ops.divide(total, math_ops.cast(len(parts), total.dtype)))
    return out

  def broadcast(self, tensor, destinations=None):
    return tensor


class ReductionToOneDevice(CrossDeviceOps):
  def __init__(self, reduce_to_device=None, accumulation_fn=None):
    self.reduce_to_device = reduce_to_device
    self.accumulation_fn = accumulation_fn


class HierarchicalCopyAllReduce(CrossDeviceOps):
  def __init__(self, num_packs=1):
    self.num_packs = num_packs


class NcclAllReduce(CrossDeviceOps):
  def __init__(self, num_packs=1):
    self.num_packs = num_packs


class CommunicationImplementation(enum.Enum):
  AUTO = "AUTO"
  RING = "RING"
  NCCL = "NCCL"


class CommunicationOptions:
  """Options of cross-worker collectives: `timeout_seconds` bounds each collective (a
  dead worker then gives an error, not a hang); the others are accepted as TF's."""

  def __init__(self, bytes_per_pack=0, timeout_seconds=None,
               implementation=CommunicationImplementation.AUTO):
    if bytes_per_pack < 0:
      raise ValueError(f"bytes_per_pack must be non-negative, got {bytes_per_pack}")
    if isinstance(implementation, str):
      implementation = CommunicationImplementation(implementation.upper())
    if not isinstance(implementation, CommunicationImplementation):
      raise ValueError("implementation should be a "
                       "tf.distribute.experimental.CommunicationImplementation")
    self.bytes_per_pack = bytes_per_pack
    self.timeout_seconds = timeout_seconds
    self.implementation = implementation

  def __repr__(self):
    return (f"Options(bytes_per_pack={self.bytes_per_pack},timeout_seconds="
            f"{self.timeout_seconds}, implementation={self.implementation})")
