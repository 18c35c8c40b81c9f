"""tf.summary.graph and trace_on / trace_export: GraphDefs TensorBoard reads."""
import numpy as np
import pytest

import tensorlet as tf
from tensorboard.backend.event_processing import event_accumulator as ea
from tensorboard.backend.event_processing import plugin_event_accumulator as pea
from tensorboard.compat.proto import config_pb2
from tensorboard.util import tensor_util
from tensorlet.polymorphic_function.concrete import ConcreteFunction


def _graph(logdir):
  acc = ea.EventAccumulator(str(logdir))
  acc.Reload()
  return acc.Graph()


v = tf.Variable(1.0)


@tf.function
def model(x):
  y = tf.matmul(x, tf.ones([2, 2])) + v
  if tf.reduce_sum(y) > 0:
    y = y * 2.0
  return tf.nn.relu(y)


@tf.function
def other(x):
  return x - 1.0


def test_trace_export_writes_the_called_function_graph(tmp_path):
  writer = tf.summary.create_file_writer(str(tmp_path))
  plain_call_flat = ConcreteFunction.__dict__["_call_flat"]
  tf.summary.trace_on(graph=True, profiler=False)
  model(tf.ones([1, 2]))
  model(tf.ones([1, 2]))          # the same graph is recorded once
  with writer.as_default():
    tf.summary.trace_export(name="model_trace", step=0)
  writer.close()
  assert ConcreteFunction.__dict__["_call_flat"] is plain_call_flat   # tracing is off again
  gd = _graph(tmp_path)
  ops = {n.name: n for n in gd.node}
  assert ops["MatMul"].op == "MatMul" and ops["MatMul"].input[0] == "x"
  assert ops["x"].attr["shape"].shape.dim[1].size == 2
  assert "ReadVariableOp" in ops and ops["add"].input == ["MatMul", "ReadVariableOp"]
  assert ops["x"].attr["_output_shapes"].list.shape[0].dim[0].size == 1
  cond = next(n for n in gd.node if n.op in ("If", "StatelessIf"))
  branches = {f.signature.name for f in gd.library.function}
  assert cond.attr["then_graph"].func.name in branches
  # The tagged run-metadata form TF writes, listed under the trace's name.
  acc = pea.EventAccumulator(str(tmp_path), size_guidance={pea.TENSORS: 0})
  acc.Reload()
  (event,) = acc.Tensors("model_trace")
  meta = config_pb2.RunMetadata.FromString(tensor_util.make_ndarray(event.tensor_proto).item())
  assert [n.name for n in meta.function_graphs[0].pre_optimization_graph.node] == \
      [n.name for n in gd.node]
  assert acc.SummaryMetadata("model_trace").plugin_data.plugin_name == \
      "graph_run_metadata_graph"


def test_trace_of_several_functions_puts_each_under_its_name(tmp_path):
  writer = tf.summary.create_file_writer(str(tmp_path))
  tf.summary.trace_on()
  model(tf.ones([1, 2]))
  other(tf.constant(3.0))
  with writer.as_default():
    tf.summary.trace_export("both", step=1)
  writer.close()
  names = [n.name for n in _graph(tmp_path).node]
  prefixes = {n.split("/")[0] for n in names}
  assert len(prefixes) == 2
  sub = next(n for n in _graph(tmp_path).node if n.name.endswith("/sub"))
  assert all(i.split("/")[0] == sub.name.split("/")[0] for i in sub.input)


def test_trace_errors_and_trace_off(tmp_path):
  with pytest.raises(ValueError, match="Must enable trace"):
    tf.summary.trace_export("x", step=0)
  tf.summary.trace_on()
  tf.summary.trace_off()
  with pytest.raises(ValueError, match="Must enable trace"):
    tf.summary.trace_export("x", step=0)
  tf.summary.trace_on()
  other(tf.constant(1.0))
  with tf.summary.create_file_writer(str(tmp_path)).as_default():
    with pytest.raises(ValueError, match="No step set"):
      tf.summary.trace_export("x")
  with pytest.warns(UserWarning, match="no profiler"):
    tf.summary.trace_on(profiler=True)
  tf.summary.trace_off()


def test_summary_graph_of_a_concrete_function(tmp_path):
  cf = model.get_concrete_function(tf.TensorSpec([None, 2], tf.float32))
  with tf.summary.create_file_writer(str(tmp_path)).as_default():
    assert tf.summary.graph(cf.graph) is True
  gd = _graph(tmp_path)
  assert gd.node[0].name == "x" and gd.node[0].attr["shape"].shape.dim[0].size == -1
  const = next(n for n in gd.node if n.op == "Const")   # tf.ones' shape
  assert const.attr["dtype"].type == tf.int32.as_datatype_enum
  np.testing.assert_array_equal(tensor_util.make_ndarray(const.attr["value"].tensor), [2, 2])
  with pytest.raises(TypeError, match="tf.Graph"):
    with tf.summary.create_file_writer(str(tmp_path)).as_default():
      tf.summary.graph("not a graph")
