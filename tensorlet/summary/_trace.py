"""Graphs for TensorBoard's graph dashboard: tf.summary.graph and
trace_on / trace_export / trace_off.

A tensorlet graph becomes a TensorBoard `GraphDef` proto from the
`as_graph_def()` data of tensorlet/graph/graph.py; graphs held in attributes
(tf.cond/tf.while_loop branches and bodies) go to the function library.
"""
import warnings

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.context import ctx
from tensorlet.tensor_shape import TensorShape
from tensorlet.summary import _events
from tensorlet.summary._api import _step_tensor, _writer
from tensorlet.summary._writer import state

__all__ = ["graph", "graph_def_proto", "trace_on", "trace_off", "trace_export"]


def _shape_proto(p, shape):
  if shape.rank is None:
    return p.TensorShapeProto(unknown_rank=True)
  return p.TensorShapeProto(dim=[p.TensorShapeProto.Dim(size=-1 if d is None else d)
                                 for d in shape.as_list()])


def _is_graph(x):
  return hasattr(x, "as_graph_def") and hasattr(x, "get_operations")


def _attr(p, value, library):
  """An AttrValue for a tensorlet attribute; Python objects without a TF attribute
  type are shown by their repr."""
  from tensorboard.compat.proto import attr_value_pb2, tensor_shape_pb2
  av = attr_value_pb2.AttrValue
  if isinstance(value, bool):
    return av(b=value)
  if isinstance(value, int):
    return av(i=value)
  if isinstance(value, float):
    return av(f=value)
  if isinstance(value, str):
    return av(s=value.encode())
  if isinstance(value, bytes):
    return av(s=value)
  if isinstance(value, _dt.DType):
    return av(type=value.as_datatype_enum)
  if isinstance(value, TensorShape):
    return av(shape=_shape_proto(tensor_shape_pb2, value))
  if isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in "biufcSO":
    return av(tensor=p.tensor_util.make_tensor_proto(np.asarray(value)))
  if _is_graph(value):
    library.append(value)
    return av(func=attr_value_pb2.NameAttrList(name=value.name))
  if isinstance(value, (list, tuple)) and value and all(
      isinstance(v, int) and not isinstance(v, bool) for v in value):
    return av(list=av.ListValue(i=list(value)))
  if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
    return av(list=av.ListValue(s=[v.encode() for v in value]))
  return av(s=repr(value).encode())


def _node_defs(p, g, library):
  from tensorboard.compat.proto import attr_value_pb2, node_def_pb2, tensor_shape_pb2
  nodes = []
  for op, nd in zip(g.get_operations(), g.as_graph_def().node):
    node = node_def_pb2.NodeDef(name=nd.name, op=nd.op, input=list(nd.input), device=nd.device)
    for k, v in nd.attr.items():
      if v is not None:
        node.attr[k].CopyFrom(_attr(p, v, library))
    if op.outputs:
      node.attr["_output_shapes"].CopyFrom(attr_value_pb2.AttrValue(
          list=attr_value_pb2.AttrValue.ListValue(
              shape=[_shape_proto(tensor_shape_pb2, t.shape) for t in op.outputs])))
    nodes.append(node)
  return nodes


def graph_def_proto(g):
  """TensorBoard's GraphDef proto for a tensorlet Graph or FuncGraph."""
  from tensorboard.compat.proto import function_pb2, versions_pb2
  p = _events.protos()
  library = []
  out = p.graph_pb2.GraphDef(node=_node_defs(p, g, library),
                             versions=versions_pb2.VersionDef(producer=1882))
  done = set()
  while library:
    sub = library.pop()
    if sub.name in done:
      continue
    done.add(sub.name)
    fdef = function_pb2.FunctionDef(node_def=_node_defs(p, sub, library))
    fdef.signature.name = sub.name
    out.library.function.append(fdef)
  return out


def _as_graph_def_proto(graph_data):
  p = _events.protos()
  if isinstance(graph_data, p.graph_pb2.GraphDef):
    return graph_data
  if hasattr(graph_data, "graph") and _is_graph(graph_data.graph):
    graph_data = graph_data.graph  # a ConcreteFunction
  if not _is_graph(graph_data):
    raise TypeError(f"tf.summary.graph: expected a tf.Graph, a ConcreteFunction or a "
                    f"GraphDef proto, got {graph_data!r}")
  return graph_def_proto(graph_data)


def graph(graph_data):
  """Writes a graph to the default writer for TensorBoard's graph dashboard.

  Returns True when written, False without a default writer or when record_if
  says no.
  """
  if ctx.graph is not None:
    raise ValueError("graph() cannot be invoked inside a graph context.")
  writer = _writer()
  if writer is None or not _recording():
    return False
  gd = _as_graph_def_proto(graph_data)
  writer._write_event(0, graph_def=gd.SerializeToString())
  return True


def _recording():
  from tensorlet.summary._api import should_record_summaries
  return bool(should_record_summaries().numpy())


# -------------------------------------------------------------------- trace
class _Trace:
  on = False
  graphs = []
  original = None


def _record_calls():
  """Wraps ConcreteFunction._call_flat to note each function run while tracing."""
  # NOTE: patched only between trace_on and trace_off, so function calls pay
  # nothing for tracing support the rest of the time.
  from tensorlet.polymorphic_function.concrete import ConcreteFunction
  original = ConcreteFunction.__dict__["_call_flat"]

  def call_flat(self, tensors):
    if all(g is not self.graph for g in _Trace.graphs):
      _Trace.graphs.append(self.graph)
    return original(self, tensors)
  ConcreteFunction._call_flat = call_flat
  _Trace.original = original


def trace_on(graph=True, profiler=False, profiler_outdir=None):
  """Starts recording the graphs of the tf.functions that run, for trace_export."""
  if ctx.graph is not None:
    warnings.warn("Must enable trace in eager mode.", stacklevel=2)
    return
  if profiler:
    warnings.warn("tensorlet has no profiler: trace_on(profiler=True) records graphs only.",
                  stacklevel=2)
  if _Trace.on:
    warnings.warn("Trace already enabled", stacklevel=2)
    return
  _Trace.on, _Trace.graphs = True, []
  if graph:
    _record_calls()


def trace_off():
  """Stops recording and forgets the recorded graphs."""
  if _Trace.original is not None:
    from tensorlet.polymorphic_function.concrete import ConcreteFunction
    ConcreteFunction._call_flat = _Trace.original
    _Trace.original = None
  _Trace.on, _Trace.graphs = False, []


def trace_export(name, step=None, profiler_outdir=None):
  """Writes the graphs recorded since trace_on to the default writer, then stops
  tracing. The graph appears in TensorBoard's graph dashboard (one graph per run:
  with several functions, each is a top-level name scope)."""
  if not isinstance(name, str):
    raise TypeError(f"tf.summary.trace_export: `name` must be a string, got {name!r}")
  if ctx.graph is not None:
    raise ValueError("Must enable trace before export through tf.summary.trace_on.")
  if not _Trace.on:
    raise ValueError("Must enable trace before export through tf.summary.trace_on.")
  graphs = list(_Trace.graphs)
  try:
    writer = _writer()
    if writer is None or not _recording() or not graphs:
      return
    step = int(_step_tensor(step).numpy())
    gd = graph_def_proto(graphs[0]) if len(graphs) == 1 else _merged(graphs)
    writer._write_event(step, graph_def=gd.SerializeToString())
    _write_run_metadata(writer, name, step, graphs)
  finally:
    trace_off()


def _merged(graphs):
  """One GraphDef holding several graphs, each under its function's name."""
  merged = None
  for g in graphs:
    gd = graph_def_proto(g)
    for node in gd.node:
      node.name = f"{g.name}/{node.name}"
      node.input[:] = [("^" if i.startswith("^") else "") + f"{g.name}/{i.lstrip('^')}"
                       for i in node.input]
    if merged is None:
      merged = gd
    else:
      merged.node.extend(gd.node)
      merged.library.function.extend(gd.library.function)
  return merged


def _write_run_metadata(writer, name, step, graphs):
  """The tagged form TF's trace_export writes (TensorBoard's graph dashboard lists it
  under `name`): a RunMetadata whose function graphs hold each GraphDef."""
  from tensorboard.plugins.graph import metadata as graph_metadata
  p = _events.protos()
  run_meta = p.config_pb2.RunMetadata()
  for g in graphs:
    run_meta.function_graphs.add().pre_optimization_graph.CopyFrom(graph_def_proto(g))
  md = p.summary_pb2.SummaryMetadata(plugin_data=p.summary_pb2.SummaryMetadata.PluginData(
      plugin_name=graph_metadata.PLUGIN_NAME_RUN_METADATA_WITH_GRAPH))
  tensor = p.tensor_util.make_tensor_proto(np.array(run_meta.SerializeToString(), dtype=object))
  writer._write_event(step, summary=p.summary_pb2.Summary(
      value=[p.summary_pb2.Summary.Value(tag=name, tensor=tensor, metadata=md)]))
