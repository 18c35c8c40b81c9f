"""A FuncGraph run as a Python callable over arrays (tf.data functions), and
the graph-building helpers tf.function shares with control flow (defined in
graph/building.py)."""
from tensorlet.graph import executor
from tensorlet.graph.building import (build_graph, capture_values, finish_outputs,  # noqa: F401
                                      note_captured_variables)

__all__ = ["build_graph", "GraphCallable", "finish_outputs"]


class GraphCallable:
  """A FuncGraph as a Python function over arrays: call(input arrays + capture
  values) -> tuple of output arrays (compiled once, by the executor)."""

  def __init__(self, fg, name="branch"):
    self.fg = fg
    self.name = name

  def __call__(self, *arrays):
    return executor.function_for(self.fg)(*arrays)

  def compiled(self):
    """The compiled function itself (no per-call dispatch; loops call it directly)."""
    return executor.function_for(self.fg)

