"""tensorlet.experimental.graph_svg / graph_dot / inspect (public graph looking-glass)."""
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import tensorlet as tf


def _fn():
  v = tf.Variable(2.0)

  @tf.function
  def f(x):
    y = x * v
    return tf.reduce_sum(y) + 1.0
  return f


def test_inspect_returns_every_node_value_in_order(capsys):
  f = _fn()
  x = tf.constant([1.0, 2.0])
  values = tf.experimental.inspect(f, x, print_values=True)
  np.testing.assert_array_equal(values["x"], [1.0, 2.0])
  np.testing.assert_array_equal(values["mul"], [2.0, 4.0])
  assert values["Sum"] == 6.0 and values["add"] == 7.0
  assert list(values)[-1] == "Identity" and values["Identity"] == f(x).numpy()
  out = capsys.readouterr().out
  assert "mul (Mul): array([2., 4.], dtype=float32)" in out


def test_inspect_checks_arguments():
  f = _fn()
  cf = f.get_concrete_function(tf.TensorSpec([2]))
  with pytest.raises(ValueError, match="needs the 1 tensor arguments"):
    tf.experimental.inspect(cf)
  with pytest.raises(TypeError, match="tf.function or a ConcreteFunction"):
    tf.experimental.inspect(lambda x: x, tf.constant(1.0))


def test_graph_svg_has_arrowheads_and_writes_file(tmp_path):
  f = _fn()
  cf = f.get_concrete_function(tf.TensorSpec([2]))
  path = tmp_path / "f.svg"
  text = tf.experimental.graph_svg(cf, path)
  assert path.read_text() == text
  root = ET.fromstring(text)
  ns = "{http://www.w3.org/2000/svg}"
  assert root.find(f"{ns}defs/{ns}marker") is not None
  lines = root.findall(f"{ns}line")
  assert lines and all(l.get("marker-end") == "url(#arrow)" for l in lines)
  labels = {t.text for t in root.iter(f"{ns}text")}
  assert {"mul", "Sum", "Mul"} <= labels


def test_graph_dot_draws_loop_bodies_as_clusters(tmp_path):
  @tf.function
  def loop(n):
    i = tf.constant(0)
    while i < n:
      i += 1
    return i
  text = tf.experimental.graph_dot(loop, tmp_path / "l.dot", tf.constant(3))
  assert text.startswith("digraph") and "subgraph \"cluster_" in text and "->" in text
