"""Graphs as data (graph.py), their passes and lowering (passes.py), and the two
executors (executor.py), which also run the graphs held by control-flow and call ops."""
from tensorlet.graph import executor  # noqa: F401 - fills ops.registry.GRAPH_EXEC
