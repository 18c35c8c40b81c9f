"""Graph.lint() finds every kind of malformed graph, and str(graph) prints
attributes and nested graphs (branches, loop bodies, called functions)."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.graph import passes
from tensorlet.ops import array_ops, math_ops


def _graph():
  @tf.function
  def f(x, y):
    return tf.exp(x) * y + 1.0
  return f.get_concrete_function(tf.ones([2]), tf.ones([2])).graph


def _op(g, type_):
  return next(op for op in g.get_operations() if op.type == type_)


def test_traced_lowered_and_optimised_graphs_lint_clean():
  g = _graph()
  assert g.lint() is g
  low = passes.lower(g, optimized=False)
  low.lint()
  passes.optimize(low, lint=True).lint()


def test_lint_reports_an_input_produced_later():
  g = _graph()
  ops = g._ops
  i, j = ops.index(_op(g, "Exp")), ops.index(_op(g, "Mul"))
  ops[i], ops[j] = ops[j], ops[i]
  with pytest.raises(ValueError, match="produced later"):
    g.lint()


def test_lint_reports_a_tensor_of_another_graph():
  g, other = _graph(), _graph()
  _op(g, "Mul").inputs[0] = _op(other, "Exp").outputs[0]
  with pytest.raises(ValueError, match="not a tensor of this graph"):
    g.lint()


def test_lint_reports_wrong_arity():
  g = _graph()
  mul = _op(g, "Mul")
  mul.inputs = mul.inputs[:1]
  with pytest.raises(ValueError, match="1 inputs, its kernel takes 2"):
    g.lint()


def test_lint_reports_a_dtype_the_opdef_refuses():
  g = _graph()
  mul = _op(g, "Mul")
  mul.outputs[0]._dtype = tf.int32     # a consumer now sees int32 beside float32
  with pytest.raises(ValueError, match="does not match type"):
    g.lint()


def test_lint_reports_duplicate_names_and_foreign_outputs():
  g = _graph()
  _op(g, "Mul").name = _op(g, "Exp").name
  with pytest.raises(ValueError, match="the name is used twice"):
    g.lint()
  g = _graph()
  g.outputs = [_op(_graph(), "Exp").outputs[0]]
  with pytest.raises(ValueError, match="output 0"):
    g.lint()


def test_lint_lists_every_problem_at_once():
  g = _graph()
  _op(g, "Mul").name = _op(g, "Exp").name
  _op(g, "AddV2").inputs = []
  with pytest.raises(ValueError) as e:
    g.lint()
  assert "used twice" in str(e.value) and "0 inputs" in str(e.value)


def test_str_prints_attrs_and_nested_graphs():
  v = tf.Variable([1.0, 2.0])

  @tf.function
  def inner(x):
    return tf.reduce_sum(x, axis=0, keepdims=True)

  @tf.function
  def f(x):
    y = tf.cond(x[0] > 0, lambda: x * 2.0, lambda: x - v)
    y = tf.while_loop(lambda i, s: i < 2, lambda i, s: (i + 1, s * 3.0), [0, y])[1]
    return inner(y)
  text = str(f.get_concrete_function(tf.ones([2])).graph)
  for part in ["graph f(", "StatelessIf(", "then_graph:", "graph cond_true", "else_graph:",
               "graph cond_false", "While(", "body_graph:", "graph while_body", "cond_graph:",
               "PartitionedCall(", "graph inner(", "keepdims=True", "axis=", "n_vars=2",
               "return "]:
    assert part in text, part
  lines = text.splitlines()
  nested = next(ln for ln in lines if ln.strip().startswith("graph while_body"))
  assert len(nested) - len(nested.lstrip()) > 2          # indented below its op


def test_str_shows_constants_short_and_large_ones_by_shape():
  @tf.function
  def f(x):
    return x + tf.constant(np.arange(100, dtype=np.float32).reshape(10, 10)) + 2.5
  text = str(f.get_concrete_function(tf.ones([10, 10])).graph)
  assert "<float32[10, 10]>" in text and "value=2.5" in text


def test_what_the_core_knows_about_ops_is_opdef_fields():
  from tensorlet.ops.registry import REGISTRY
  assert REGISTRY["Placeholder"].is_placeholder and REGISTRY["Const"].is_const
  assert REGISTRY["ReadVariableOp"].reads_state
  assert array_ops.Shape.static_value is not None and math_ops.Mul.simplify is not None
  from tensorlet.ops import script_ops  # loads on first use of tf.py_function
  assert script_ops.EagerPyFunc is REGISTRY["EagerPyFunc"]
  assert REGISTRY["EagerPyFunc"].runs_python == "tf.py_function"
  assert not any(od.is_placeholder for name, od in REGISTRY.items() if name != "Placeholder")
