"""tf.experimental: the names tensorlet implements (Optional, DynamicRaggedShape,
RowPartition) and tensorlet's graph pictures and step-through inspection
(graph/inspection.py)."""


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
  if name in ("graph_svg", "graph_dot", "inspect"):
    from tensorlet.graph import inspection
    return getattr(inspection, name)
  from tensorlet._unsupported import missing
  raise missing("tf.experimental", name, __name__)
