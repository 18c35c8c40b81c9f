"""tf.distribute.ReduceOp: how values of the replicas combine."""
import enum

from tensorlet.variables import VariableAggregation

__all__ = ["ReduceOp"]


class ReduceOp(enum.Enum):
  """SUM adds the replicas' values; MEAN divides that by the number of replicas."""
  SUM = "SUM"
  MEAN = "MEAN"

  @staticmethod
  def from_variable_aggregation(aggregation):
    op = {VariableAggregation.SUM: ReduceOp.SUM,
          VariableAggregation.MEAN: ReduceOp.MEAN}.get(aggregation)
    if op is None:
      raise ValueError(f"Could not convert from `tf.VariableAggregation` {aggregation} to "
                       f"`tf.distribute.ReduceOp` type")
    return op


def as_reduce_op(reduce_op):
  """A ReduceOp from a ReduceOp or its name ("SUM", "mean")."""
  if isinstance(reduce_op, ReduceOp):
    return reduce_op
  if isinstance(reduce_op, str):
    try:
      return ReduceOp(reduce_op.upper())
    except ValueError:
      pass
  raise ValueError(f"reduce_op must be tf.distribute.ReduceOp.SUM or MEAN (or their names), "
                   f"got {reduce_op!r}")
