"""tf.experimental: the names tensorlet implements (Optional, DynamicRaggedShape, RowPartition)."""


def __getattr__(name):
  if name == "Optional":
    from tensorlet.data.optional import Optional
    return Optional
  if name == "DynamicRaggedShape":
    from tensorlet.ragged.dynamic_ragged_shape import DynamicRaggedShape
    return DynamicRaggedShape
  if name == "RowPartition":
    from tensorlet.ragged.row_partition import RowPartition
    return RowPartition
  from tensorlet._unsupported import missing
  raise missing("tf.experimental", name, __name__)
